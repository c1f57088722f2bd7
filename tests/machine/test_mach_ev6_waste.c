/* tests/machine/test_mach_ev6_waste.c - EV6 truth of wasted issue slots against a brute force. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <zlib.h>
#include <cmocka.h>

#include "test_mach_ev6_util.h"

#define CODE 0x120000000ull
#define DATA 0x140000000ull
#define NPC 16 /* the loop's instructions */

struct done {
	uint64_t pc, f, t, ready;
};

/*
 * A loop without mispredicts or replays (straight line, an unconditional branch back, loads
 * and stores to different lines): every window is a retired execution, so the per-pc truth can
 * be recomputed from the stages of every instruction, by brute force. Loads walk 4 MB (misses:
 * long windows in which much else issues) and a multiply chain keeps the machine busy.
 */
static size_t run_clean(struct mach_ev6 *m, struct done *d, size_t iters)
{
	size_t n = 0;

	for (size_t i = 0; i < iters; i++) {
		for (unsigned int k = 0; k < NPC; k++) {
			uint64_t pc = CODE + 4 * k, ea = 0;
			uint32_t w;
			struct ev6_stages s;

			if (k == 0 || k == 7) {
				w = LDQ(5 + k, 0, 6);
				ea = DATA + ((i * 64 + k * 8) % (4u << 20));
			} else if (k == 3) {
				w = STQ(3, 0, 4);
				ea = DATA + (8u << 20) + (i % 64) * 64;
			} else if (k == 4 || k == 5) {
				w = MULQ(9 + k, 2, 9 + k);
			} else if (k == NPC - 1) {
				w = BR(-(int)NPC);
			} else {
				w = ADDQ(5, 7, 16 + k);
			}
			s = feed6(m, w, pc, k == NPC - 1 ? CODE : pc + 4, ea);
			d[n++] = (struct done){ pc, s.fetch, s.issue, s.ready };
		}
	}
	return n;
}

static int cmp_t(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Issues at cycles <= c among the sorted issue cycles. */
static size_t upto(const uint64_t *t, size_t n, uint64_t c)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (t[mid] <= c)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* [PM §5.2.3] per pc: cycles = sum (ready - fetch), useful = other retired issues in
 * [fetch, ready],
 * slots = 4 x cycles; exactly the brute force, whatever the distance of the issuing ones. */
static void test_waste_matches_brute_force(void **state)
{
	const size_t iters = 3000;
	struct mach_ev6 *m = new_ev6(NULL);
	struct done *d = calloc(iters * NPC, sizeof(*d));
	uint64_t *t = calloc(iters * NPC, sizeof(*t));
	uint64_t cyc[NPC] = { 0 }, use[NPC] = { 0 }, wasted_min = UINT64_MAX, wasted_max = 0;
	size_t n;

	(void)state;
	assert_non_null(m);
	assert_non_null(d);
	assert_non_null(t);
	n = run_clean(m, d, iters);
	/* the premise: no other windows (DTB misses abort younger copies, which are not timed) */
	assert_int_equal(m->badpath, 0);
	assert_int_equal(
		m->replays[EV6_RP_STLD] + m->replays[EV6_RP_LDLD] + m->replays[EV6_RP_MBOX], 0);
	for (size_t i = 0; i < n; i++)
		t[i] = d[i].t;
	qsort(t, n, sizeof(*t), cmp_t);
	for (size_t i = 0; i < n; i++) {
		unsigned int k = (unsigned int)((d[i].pc - CODE) / 4);

		cyc[k] += d[i].ready - d[i].f;
		/* the others: its own issue is in its window and not counted */
		use[k] += upto(t, n, d[i].ready) - (d[i].f ? upto(t, n, d[i].f - 1) : 0) - 1;
	}
	for (unsigned int k = 0; k < NPC; k++) {
		struct mach_truth_waste w;

		assert_true(mach_ev6_waste_get(m, CODE + 4 * k, &w));
		assert_int_equal(w.windows, iters);
		assert_int_equal(w.cycles, cyc[k]);
		assert_int_equal(w.slots, 4 * cyc[k]);
		assert_int_equal(w.useful, use[k]);
		if (w.slots - w.useful < wasted_min)
			wasted_min = w.slots - w.useful;
		if (w.slots - w.useful > wasted_max)
			wasted_max = w.slots - w.useful;
	}
	assert_int_equal(mach_ev6_waste_clamped(m), 0);
	/* the loop is not trivial: waste differs a lot between its instructions */
	assert_true(wasted_max > 2 * wasted_min);
	mach_ev6_free(m);
	free(d);
	free(t);
}

/* A loop with everything (replays, mispredicts, bad path): the counts agree with the other
 * truth counters, nothing is clamped, and the file carries section 7 back unchanged. */
static void test_waste_windows_and_file(void **state)
{
	struct mach_ev6 *m = new_ev6(NULL);
	uint64_t lcg = 1, useful = 0;
	char path[] = "/tmp/axprof-waste-XXXXXX";
	struct mach_truth *t;
	struct ax_error err;
	int fd;

	(void)state;
	assert_non_null(m);
	for (uint64_t i = 0; i < 20000; i++) {
		bool taken;

		lcg = lcg * 6364136223846793005ull + 1442695040888963407ull;
		taken = (lcg >> 40) & 1;
		feed6s(m, LDQ(5, 0, 6), CODE, DATA + (i * 64) % (1u << 20));
		feed6s(m, STQ(3, 0, 4), CODE + 4, DATA + (2u << 20));
		feed6s(m, LDQ(8, 0, 9), CODE + 8, DATA + (2u << 20)); /* store-load conflicts */
		feed6s(m, ADDQ(8, 9, 10), CODE + 12, 0);
		feed6(m, BNE(1, 8), CODE + 16, taken ? CODE + 52 : CODE + 20, 0);
		if (!taken)
			for (unsigned int k = 20; k < 52; k += 4)
				feed6s(m, ADDQ(1, 2, 20), CODE + k, 0);
		feed6(m, BR(-14), CODE + 52, CODE, 0);
	}
	assert_true(m->replays[EV6_RP_STLD] > 0);
	assert_true(m->badpath > 0);
	for (uint64_t pc = CODE; pc <= CODE + 52; pc += 4) {
		struct ev6_trec r = trec6(m, pc);
		struct mach_truth_waste w;

		assert_true(mach_ev6_waste_get(m, pc, &w));
		if (pc <= CODE + 16) { /* never on a bad path: retired + replayed attempts */
			assert_int_equal(w.windows, r.c[EV6_TC_RETIRE] + r.c[EV6_TC_AB_REPLAY]);
			assert_true(w.cycles >= r.c[EV6_TC_FETCH_MAP] + r.c[EV6_TC_MAP_ISSUE] +
							r.c[EV6_TC_ISSUE_READY]);
		} else { /* bad-path copies are timed too */
			assert_true(w.windows >= r.c[EV6_TC_RETIRE]);
		}
		useful += w.useful;
	}
	assert_true(useful > 0);
	assert_int_equal(mach_ev6_waste_clamped(m), 0);

	fd = mkstemp(path);
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(mach_ev6_truth_write(m, path), 0);
	assert_int_equal(mach_truth_read(path, &t, &err), 0);
	unlink(path);
	assert_true(t->nwaste > 0);
	for (size_t i = 0; i < t->nwaste; i++) {
		struct mach_truth_waste w;
		const struct mach_truth_waste *f = &t->waste[i];

		assert_true(mach_ev6_waste_get(m, f->pc, &w));
		assert_int_equal(f->windows, w.windows);
		assert_int_equal(f->cycles, w.cycles);
		assert_int_equal(f->slots, w.slots);
		assert_int_equal(f->useful, w.useful);
		assert_ptr_equal(mach_truth_find_waste(t, f->pc), f);
	}
	assert_null(mach_truth_find_waste(t, 4));
	mach_truth_free(t);
	mach_ev6_free(m);
}

static uint64_t get64(const uint8_t *p)
{
	uint64_t v = 0;

	for (int i = 7; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

static void put64(uint8_t *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static void fix_crc(uint8_t *buf, size_t len)
{
	uLong c;

	memset(buf + 32, 0, 4);
	c = crc32(crc32(0L, Z_NULL, 0), buf, (uInt)len);
	for (int i = 0; i < 4; i++)
		buf[32 + i] = (uint8_t)(c >> (8 * i));
}

/* A damaged section 7 is rejected with the offset of the bad field: a record with no window,
 * records out of order. */
static void test_waste_section_rejects_damage(void **state)
{
	struct mach_ev6 *m = new_ev6(NULL);
	char path[] = "/tmp/axprof-waste-XXXXXX";
	uint8_t *buf, *copy, *sec = NULL;
	struct mach_truth *t;
	struct ax_error err;
	size_t len;
	FILE *f;
	int fd;

	(void)state;
	assert_non_null(m);
	for (uint64_t i = 0; i < 200; i++)
		for (unsigned int k = 0; k < 4; k++)
			feed6(m, k == 3 ? BR(-4) : ADDQ(1, 2, 3), CODE + 4 * k,
			      k == 3 ? CODE : CODE + 4 * k + 4, 0);
	fd = mkstemp(path);
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(mach_ev6_truth_write(m, path), 0);
	f = fopen(path, "rb");
	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	len = (size_t)ftell(f);
	rewind(f);
	buf = malloc(len);
	copy = malloc(len);
	assert_int_equal(fread(buf, 1, len, f), len);
	fclose(f);
	unlink(path);
	for (uint32_t i = 0; i < buf[20]; i++) /* the section table */
		if (buf[64 + 32 * i] == MACH_TRUTH_SEC_WASTED)
			sec = buf + 64 + 32 * i;
	assert_non_null(sec);
	assert_true(get64(sec + 16) >= 2);

	memcpy(copy, buf, len);
	put64(copy + get64(sec + 8) + 8, 0); /* windows of the first record */
	fix_crc(copy, len);
	assert_int_equal(mach_truth_parse(copy, len, "t", &t, &err), -EBADMSG);
	assert_int_equal(err.offset, get64(sec + 8) + 8);

	memcpy(copy, buf, len);
	put64(copy + get64(sec + 8) + MACH_TRUTH_WASTE_SIZE, 4); /* second pc below the first */
	fix_crc(copy, len);
	assert_int_equal(mach_truth_parse(copy, len, "t", &t, &err), -EBADMSG);
	assert_int_equal(err.offset, get64(sec + 8) + MACH_TRUTH_WASTE_SIZE);

	assert_int_equal(mach_truth_parse(buf, len, "t", &t, &err), 0);
	assert_int_equal(t->nwaste, 4);
	mach_truth_free(t);
	free(buf);
	free(copy);
	mach_ev6_free(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_waste_matches_brute_force),
		cmocka_unit_test(test_waste_windows_and_file),
		cmocka_unit_test(test_waste_section_rejects_damage),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
