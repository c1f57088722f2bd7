/* tests/machine/test_mach_truth.c - truth file: round trip, damaged-file rejection. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>
#include <cmocka.h>

#include "mach_kern.h"
#include "test_mach_ev5_util.h"

#define CODE 0x120000000ull
#define DATA 0x140000000ull

static char path[64];

static int setup(void **state)
{
	(void)state;
	snprintf(path, sizeof(path), "/tmp/test_mach_truth.%d", (int)getpid());
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	unlink(path);
	return 0;
}

/* A run with loads, a conditional branch both ways, an indirect jump to three targets. */
static struct mach_ev5 *sample_run(void)
{
	struct mach_ev5 *m = new_model();

	if (!m)
		return NULL;
	for (int it = 0; it < 100; it++) {
		feed1(m, LDQ(3, 0, 1), CODE, DATA + 64 * (uint64_t)(it % 50));
		feed(m, BEQ(3, 1), CODE + 4, (it % 4) ? CODE + 8 : CODE + 12, 0);
		if (it % 4)
			feed1(m, NOP(), CODE + 8, 0);
		feed(m, JMP(27, 0), CODE + 12, CODE + 0x100 * (uint64_t)(1 + it % 3), 0);
		feed(m, BR(0), CODE + 0x100 * (uint64_t)(1 + it % 3), CODE, 0);
	}
	return m;
}

static uint8_t *slurp(const char *p, size_t *len)
{
	FILE *f = fopen(p, "rb");
	uint8_t *buf;
	long n;

	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	buf = malloc((size_t)n);
	if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
		free(buf);
		buf = NULL;
	}
	fclose(f);
	*len = (size_t)n;
	return buf;
}

static void put32le(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

/* Recompute the whole-file CRC after a deliberate change (to reach the deeper checks). */
static void fix_crc(uint8_t *buf, size_t len)
{
	uLong c;

	memset(buf + 32, 0, 4);
	c = crc32(0L, Z_NULL, 0);
	c = crc32(c, buf, (uInt)len);
	put32le(buf + 32, (uint32_t)c);
}

/*
 * Kernel time (machine/mach_kern.h): a CALL_PAL callsys, then 5000 cycles of sys_write. The
 * CYCLES interrupts due in them report the call's pseudo-pc (one per 1000 cycles), the truth
 * keeps them out of every PC's head cycles and lists them in section 10.
 */
static void test_truth_kernel_time(void **state)
{
	struct mach_ev5 *m = new_model();
	struct mach_truth *t = NULL;
	struct ax_error err;
	struct mach_irq irq;
	uint64_t heads = 0, c0, kpc = mach_kern_pc(4);
	unsigned int in_kernel = 0, other = 0;

	(void)state;
	assert_non_null(m);
	for (int i = 0; i < 20; i++)
		feed1(m, ADDQ(1, 2, 3), CODE + 4 * (uint64_t)i, 0);
	feed1(m, 0x00000083u, CODE + 80, 0); /* call_pal callsys */
	c0 = mach_ev5_cycles(m);
	mach_ev5_pmu_arm(m, MACH_EV_CYCLES, 1000);
	mach_ev5_kernel(m, 4, kpc, 5000);
	assert_int_equal(mach_ev5_cycles(m), c0 + 5000);
	while (mach_ev5_irq_take(m, &irq)) {
		in_kernel += irq.pc == kpc;
		other += irq.pc != kpc;
		mach_ev5_pmu_arm(m, MACH_EV_CYCLES, 1000);
	}
	/* overflows at c0 + 1000 .. c0 + 4000 are delivered 6 cycles later, inside the call */
	assert_int_equal(in_kernel, 4);
	assert_int_equal(other, 0);
	for (int i = 0; i < 5; i++)
		feed1(m, ADDQ(1, 2, 3), CODE + 84 + 4 * (uint64_t)i, 0);
	assert_true(mach_ev5_cycles(m) < c0 + 5000 + 40); /* the next fetch, no PAL stall */
	assert_int_equal(mach_ev5_truth_write(m, path), 0);
	assert_int_equal(mach_truth_read(path, &t, &err), 0);
	assert_int_equal(t->nsyscalls, 1);
	assert_int_equal(t->syscalls[0].nr, 4);
	assert_int_equal(t->syscalls[0].calls, 1);
	assert_int_equal(t->syscalls[0].cycles, 5000);
	assert_string_equal(t->syscalls[0].name, "sys_write");
	assert_int_equal(t->kernel_cycles, 5000);
	for (size_t i = 0; i < t->npcs; i++)
		heads += t->pcs[i].head;
	assert_int_equal(heads + t->kernel_cycles, t->sum.cycles);
	mach_truth_free(t);
	mach_ev5_free(m);
}

/* Section 10 damaged: a name without its NUL, records out of order, more cycles than the run. */
static void test_truth_rejects_bad_syscalls(void **state)
{
	struct mach_ev5 *m = new_model();
	struct mach_truth *t = NULL;
	struct ax_error err;
	uint8_t *buf, *rec = NULL;
	size_t len;

	(void)state;
	assert_non_null(m);
	feed1(m, 0x00000083u, CODE, 0);
	mach_ev5_kernel(m, 4, mach_kern_pc(4), 100);
	feed1(m, 0x00000083u, CODE + 4, 0);
	mach_ev5_kernel(m, 20, mach_kern_pc(20), 100);
	assert_int_equal(mach_ev5_truth_write(m, path), 0);
	buf = slurp(path, &len);
	assert_non_null(buf);
	for (uint32_t i = 0; i < buf[20]; i++)
		if (buf[64 + 32 * i] == MACH_TRUTH_SEC_SYSCALLS)
			rec = buf + buf[64 + 32 * i + 8] + 256u * buf[64 + 32 * i + 9];
	assert_non_null(rec);
	assert_int_equal(mach_truth_parse(buf, len, "t", &t, &err), 0);
	mach_truth_free(t);
	memset(rec + 24, 'x', MACH_TRUTH_SYSCALL_NAME);
	fix_crc(buf, len);
	assert_int_equal(mach_truth_parse(buf, len, "t", &t, &err), -EBADMSG);
	assert_non_null(strstr(err.msg, "NUL"));
	memset(rec + 24, 0, MACH_TRUTH_SYSCALL_NAME);
	memcpy(rec + 24, "sys_write", 9);
	rec[0] = 30; /* 30 before 20 */
	fix_crc(buf, len);
	assert_int_equal(mach_truth_parse(buf, len, "t", &t, &err), -EBADMSG);
	assert_non_null(strstr(err.msg, "order"));
	rec[0] = 4;
	rec[16 + 5] = 1; /* 2^40 cycles */
	fix_crc(buf, len);
	assert_int_equal(mach_truth_parse(buf, len, "t", &t, &err), -EBADMSG);
	assert_non_null(strstr(err.msg, "exceed"));
	free(buf);
	mach_ev5_free(m);
}

static void test_truth_round_trip(void **state)
{
	struct mach_ev5 *m = sample_run();
	struct mach_truth *t = NULL;
	const struct mach_truth_pc *r;
	struct mach_truth_pc mem;
	struct ax_error err;
	uint64_t heads = 0;

	(void)state;
	assert_non_null(m);
	assert_int_equal(mach_ev5_truth_write(m, path), 0);
	assert_int_equal(mach_truth_read(path, &t, &err), 0);
	assert_int_equal(t->version, MACH_TRUTH_VERSION);
	assert_int_equal(t->sum.cycles, mach_ev5_cycles(m));
	assert_int_equal(t->sum.insns, m->insns);
	assert_int_equal(t->sum.events[MACH_EV_DMISS], mach_ev5_count(m, MACH_EV_DMISS));
	assert_int_equal(t->sum.param[MACH_TP_MEM_LAT], 80);
	assert_int_equal(t->npcs, 7);
	for (size_t i = 0; i < t->npcs; i++) {
		r = &t->pcs[i];
		assert_true(mach_ev5_truth_get(m, r->pc, &mem));
		assert_memory_equal(r, &mem, sizeof(mem));
		heads += r->head;
	}
	assert_int_equal(heads, t->sum.cycles);
	r = mach_truth_find(t, CODE + 4);
	assert_non_null(r);
	assert_int_equal(r->exec, 100);
	assert_null(mach_truth_find(t, CODE + 16));
	/* edges: the conditional branch both ways, the jump's three targets */
	assert_int_equal(mach_truth_edge_count(t, CODE + 4, CODE + 12), 25);
	assert_int_equal(mach_truth_edge_count(t, CODE + 4, CODE + 8), 75);
	assert_int_equal(mach_truth_edge_count(t, CODE + 12, CODE + 0x100), 34);
	assert_int_equal(mach_truth_edge_count(t, CODE + 12, CODE + 0x200), 33);
	assert_int_equal(mach_truth_edge_count(t, CODE + 12, CODE + 0x300), 33);
	assert_int_equal(mach_truth_edge_count(t, CODE + 0x200, CODE), 33);
	assert_int_equal(mach_truth_edge_count(t, CODE, CODE + 4), 0); /* straight line: none */
	assert_int_equal(t->nedges, 2 + 3 + 3);
	mach_truth_free(t);
	mach_ev5_free(m);
}

static void test_truth_rejects_truncated(void **state)
{
	struct mach_ev5 *m = sample_run();
	struct mach_truth *t = NULL;
	uint8_t *buf;
	size_t len;
	struct ax_error err;

	(void)state;
	assert_non_null(m);
	assert_int_equal(mach_ev5_truth_write(m, path), 0);
	buf = slurp(path, &len);
	assert_non_null(buf);
	for (size_t n = 0; n < len; n += (n < 400 ? 1 : 97)) {
		err.offset = UINT64_MAX;
		assert_int_equal(mach_truth_parse(buf, n, "T", &t, &err), -EBADMSG);
		assert_null(t);
		assert_true(err.offset <= n || err.offset == 24);
	}
	/* and through the file reader */
	assert_int_equal(truncate(path, (off_t)len - 1), 0);
	assert_int_equal(mach_truth_read(path, &t, &err), -EBADMSG);
	assert_int_equal(err.offset, len - 1);
	assert_non_null(strstr(err.msg, path)); /* the file reader names the file */
	assert_non_null(strstr(err.msg, "truncated"));
	free(buf);
	mach_ev5_free(m);
}

static void test_truth_rejects_bad_magic_crc_version(void **state)
{
	struct mach_ev5 *m = sample_run();
	struct mach_truth *t = NULL;
	uint8_t *buf;
	size_t len;
	struct ax_error err;

	(void)state;
	assert_non_null(m);
	assert_int_equal(mach_ev5_truth_write(m, path), 0);
	buf = slurp(path, &len);
	assert_non_null(buf);
	assert_int_equal(mach_truth_parse(buf, len, "T", &t, &err), 0);
	mach_truth_free(t);

	buf[0] ^= 1; /* magic */
	assert_int_equal(mach_truth_parse(buf, len, "T", &t, &err), -EBADMSG);
	assert_int_equal(err.offset, 0);
	assert_non_null(
		strstr(err.msg, "T: offset 0: not a truth file (bad magic) (mach_truth.c:"));
	assert_int_equal(err.code, -EBADMSG);
	assert_true(err.line > 0);
	buf[0] ^= 1;

	buf[len - 3] ^= 0x40; /* a data byte: the checksum catches it */
	assert_int_equal(mach_truth_parse(buf, len, "T", &t, &err), -EBADMSG);
	assert_int_equal(err.offset, 32);
	assert_non_null(strstr(err.msg, "T: offset 32: checksum mismatch"));
	buf[len - 3] ^= 0x40;

	put32le(buf + 8, MACH_TRUTH_VERSION + 1); /* a future version, checksum valid */
	fix_crc(buf, len);
	assert_int_equal(mach_truth_parse(buf, len, "T", &t, &err), -EBADMSG);
	assert_int_equal(err.offset, 8);
	assert_non_null(strstr(err.msg, "format version"));
	assert_null(t);
	free(buf);
	mach_ev5_free(m);
}

static void test_truth_rejects_bad_structure(void **state)
{
	struct mach_ev5 *m = sample_run();
	struct mach_truth *t = NULL;
	uint8_t *buf, *copy;
	size_t len;
	struct ax_error err;
	uint32_t seed = 12345;

	(void)state;
	assert_non_null(m);
	assert_int_equal(mach_ev5_truth_write(m, path), 0);
	buf = slurp(path, &len);
	assert_non_null(buf);
	copy = malloc(len);
	assert_non_null(copy);

	/* a section offset beyond the end */
	memcpy(copy, buf, len);
	put32le(copy + 64 + 32 + 8, (uint32_t)len + 8);
	fix_crc(copy, len);
	assert_int_equal(mach_truth_parse(copy, len, "T", &t, &err), -EBADMSG);
	assert_int_equal(err.offset, 64 + 32 + 8);

	/* a record count that does not fit */
	memcpy(copy, buf, len);
	put32le(copy + 64 + 64 + 16, 0xffffff);
	fix_crc(copy, len);
	assert_int_equal(mach_truth_parse(copy, len, "T", &t, &err), -EBADMSG);
	assert_int_equal(err.offset, 64 + 64 + 16);

	/* per-PC records out of order */
	memcpy(copy, buf, len);
	copy[64 + 96 + 256 + 136] = 0; /* the second record's pc, low byte */
	copy[64 + 96 + 256 + 136 + 1] = 0;
	fix_crc(copy, len);
	assert_int_equal(mach_truth_parse(copy, len, "T", &t, &err), -EBADMSG);
	assert_int_equal(err.offset, 64 + 96 + 256 + 136);
	assert_non_null(strstr(err.msg, "not in increasing order"));

	/* random byte damage with a valid checksum: parse or reject, never crash */
	for (int i = 0; i < 2000; i++) {
		int r;

		memcpy(copy, buf, len);
		for (int k = 0; k < 3; k++) {
			seed = seed * 1103515245u + 12345u;
			copy[36 + (seed >> 8) % (len - 36)] ^= (uint8_t)(1u << ((seed >> 4) & 7));
		}
		fix_crc(copy, len);
		r = mach_truth_parse(copy, len, "T", &t, &err);
		assert_true(r == 0 || r == -EBADMSG);
		if (r == 0)
			mach_truth_free(t);
		else
			assert_true(err.offset < len);
	}
	assert_int_equal(mach_truth_read("/nonexistent/truth", &t, &err), -ENOENT);
	assert_string_equal(err.msg, "/nonexistent/truth: open: No such file or directory");
	free(copy);
	free(buf);
	mach_ev5_free(m);
}

static void test_truth_skips_unknown_section(void **state)
{
	struct mach_ev5 *m = sample_run();
	struct mach_truth *t = NULL;
	uint8_t *buf;
	size_t len;
	struct ax_error err;

	(void)state;
	assert_non_null(m);
	assert_int_equal(mach_ev5_truth_write(m, path), 0);
	buf = slurp(path, &len);
	assert_non_null(buf);
	/* retype the edge section as a future "values" section: then edges are missing */
	put32le(buf + 64 + 64, MACH_TRUTH_SEC_VALUES);
	fix_crc(buf, len);
	assert_int_equal(mach_truth_parse(buf, len, "T", &t, &err), -EBADMSG);
	assert_int_equal(err.offset, 64);
	assert_non_null(strstr(err.msg, "missing"));
	free(buf);
	mach_ev5_free(m);
}

static void test_truth_write_failure_reported(void **state)
{
	struct mach_ev5 *m = sample_run();

	(void)state;
	assert_non_null(m);
	assert_int_equal(mach_ev5_truth_write(m, "/nonexistent-dir/truth"), -ENOENT);
	assert_int_equal(access("/nonexistent-dir", F_OK), -1);
	mach_ev5_free(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_truth_round_trip, setup, teardown),
		cmocka_unit_test_setup_teardown(test_truth_kernel_time, setup, teardown),
		cmocka_unit_test_setup_teardown(test_truth_rejects_bad_syscalls, setup, teardown),
		cmocka_unit_test_setup_teardown(test_truth_rejects_truncated, setup, teardown),
		cmocka_unit_test_setup_teardown(test_truth_rejects_bad_magic_crc_version, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_truth_rejects_bad_structure, setup, teardown),
		cmocka_unit_test_setup_teardown(test_truth_skips_unknown_section, setup, teardown),
		cmocka_unit_test(test_truth_write_failure_reported),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
