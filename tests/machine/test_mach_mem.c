/* tests/machine/test_mach_mem.c - unit tests of the hosted machine's address space (mach_mem.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include <cmocka.h>

#include "axp_asm.h"
#include "mach_mem.h"

#define PG MACH_PAGE_SIZE
#define RW (MACH_PROT_R | MACH_PROT_W)

static int setup(void **state)
{
	struct mach_mem *m;

	if (mach_mem_new(&m))
		return -1;
	*state = m;
	return 0;
}

static int teardown(void **state)
{
	mach_mem_free(*state);
	return 0;
}

static int load(struct mach_mem *m, uint64_t va, unsigned int size, uint64_t *v)
{
	struct axp_access acc;

	return mach_mem_ops.load(m, va, size, v, &acc);
}

static int store(struct mach_mem *m, uint64_t va, unsigned int size, uint64_t v)
{
	struct axp_access acc;

	return mach_mem_ops.store(m, va, size, v, &acc);
}

static void test_mach_mem_map_anonymous_is_zero_and_placed_at_unmapped_base(void **state)
{
	struct mach_mem *m = *state;
	uint64_t va, v = 1;

	assert_int_equal(mach_mem_map(m, 0, 3 * PG + 1, RW, 0, -1, 0, &va), 0);
	assert_int_equal(va, MACH_UNMAPPED_BASE);
	assert_int_equal(load(m, va + 4 * PG - 8, 8, &v), 0); /* rounded up to 4 pages */
	assert_int_equal(v, 0);
	assert_int_equal(load(m, va + 4 * PG, 8, &v), -EFAULT);
	/* The next mapping goes right after it (first fit). */
	assert_int_equal(mach_mem_map(m, 0, PG, RW, 0, -1, 0, &v), 0);
	assert_int_equal(v, va + 4 * PG);
}

static void test_mach_mem_hint_used_when_free(void **state)
{
	struct mach_mem *m = *state;
	uint64_t va, va2;

	assert_int_equal(mach_mem_map(m, 0x300000000ull, PG, RW, 0, -1, 0, &va), 0);
	assert_int_equal(va, 0x300000000ull);
	/* The same hint again is taken: the search starts at TASK_UNMAPPED_BASE. */
	assert_int_equal(mach_mem_map(m, 0x300000000ull, PG, RW, 0, -1, 0, &va2), 0);
	assert_int_equal(va2, MACH_UNMAPPED_BASE);
}

static void test_mach_mem_fixed_replaces_and_noreplace_refuses(void **state)
{
	struct mach_mem *m = *state;
	uint64_t va = 0x100000000ull, out, v;

	assert_int_equal(mach_mem_map(m, va, 2 * PG, RW, MACH_MAP_FIXED, -1, 0, &out), 0);
	assert_int_equal(store(m, va + 16, 8, 0x1122334455667788ull), 0);
	assert_int_equal(mach_mem_map(m, va, PG, RW, MACH_MAP_NOREPLACE, -1, 0, &out), -EEXIST);
	assert_int_equal(load(m, va + 16, 8, &v), 0);
	assert_int_equal(v, 0x1122334455667788ull);
	assert_int_equal(mach_mem_map(m, va, PG, MACH_PROT_R, MACH_MAP_FIXED, -1, 0, &out), 0);
	assert_int_equal(load(m, va + 16, 8, &v), 0);
	assert_int_equal(v, 0); /* fresh zero page */
	assert_int_equal(store(m, va + 16, 8, 1), -EFAULT); /* read-only now */
	assert_int_equal(store(m, va + PG, 8, 1), 0); /* second page untouched, writable */
	assert_int_equal(mach_mem_map(m, va + 1, PG, RW, MACH_MAP_FIXED, -1, 0, &out), -EINVAL);
	assert_int_equal(
		mach_mem_map(m, MACH_TASK_SIZE - PG, 2 * PG, RW, MACH_MAP_FIXED, -1, 0, &out),
		-ENOMEM);
	assert_int_equal(mach_mem_map(m, 0, 0, RW, 0, -1, 0, &out), -EINVAL);
}

static void test_mach_mem_unmap_then_access_faults(void **state)
{
	struct mach_mem *m = *state;
	uint64_t va, v;

	assert_int_equal(mach_mem_map(m, 0, 3 * PG, RW, 0, -1, 0, &va), 0);
	assert_int_equal(mach_mem_unmap(m, va + PG, PG), 0);
	assert_int_equal(load(m, va, 8, &v), 0);
	assert_int_equal(load(m, va + PG, 8, &v), -EFAULT);
	assert_int_equal(load(m, va + 2 * PG, 8, &v), 0);
	assert_false(mach_mem_range_ok(m, va, 3 * PG, MACH_PROT_R));
	assert_int_equal(mach_mem_unmap(m, va + 8, PG), -EINVAL); /* unaligned */
	assert_int_equal(mach_mem_unmap(m, va + PG, PG), 0); /* unmapping a hole is fine */
	/* The hole is reused by the next first-fit mapping. */
	assert_int_equal(mach_mem_map(m, 0, PG, RW, 0, -1, 0, &v), 0);
	assert_int_equal(v, va + PG);
}

static void test_mach_mem_protect_semantics(void **state)
{
	struct mach_mem *m = *state;
	uint64_t va, v;
	uint32_t w;

	assert_int_equal(mach_mem_map(m, 0, 2 * PG, MACH_PROT_W, 0, -1, 0, &va), 0);
	assert_int_equal(load(m, va, 4, &v), 0); /* write implies read (Linux/Alpha) */
	assert_int_equal(mach_mem_ops.fetch(m, va, &w), -EFAULT); /* but not execute */
	assert_int_equal(mach_mem_protect(m, va, PG, MACH_PROT_R), 0);
	assert_int_equal(store(m, va, 4, 1), -EFAULT);
	assert_int_equal(store(m, va + PG, 4, 1), 0);
	assert_int_equal(mach_mem_protect(m, va, PG, 0), 0);
	assert_int_equal(load(m, va, 4, &v), -EFAULT);
	assert_int_equal(mach_mem_protect(m, va, PG, MACH_PROT_X), 0);
	assert_int_equal(mach_mem_ops.fetch(m, va, &w), 0);
	/* A range with an unmapped page is refused as a whole. */
	assert_int_equal(mach_mem_protect(m, va, 3 * PG, RW), -ENOMEM);
	assert_int_equal(store(m, va + PG, 4, 1), 0);
	assert_int_equal(mach_mem_protect(m, va + 4, PG, RW), -EINVAL);
}

static void test_mach_mem_unaligned_and_page_crossing_accesses(void **state)
{
	struct mach_mem *m = *state;
	uint64_t va, v;

	assert_int_equal(mach_mem_map(m, 0, 2 * PG, RW, 0, -1, 0, &va), 0);
	assert_int_equal(store(m, va + PG - 3, 8, 0x0807060504030201ull), 0);
	assert_int_equal(load(m, va + PG - 3, 8, &v), 0);
	assert_int_equal(v, 0x0807060504030201ull);
	assert_int_equal(load(m, va + PG - 1, 2, &v), 0);
	assert_int_equal(v, 0x0403);
	assert_int_equal(load(m, va + PG, 4, &v), 0);
	assert_int_equal(v, 0x07060504);
	/* Crossing into an unmapped page faults and changes nothing. */
	assert_int_equal(mach_mem_unmap(m, va + PG, PG), 0);
	assert_int_equal(load(m, va + PG - 4, 8, &v), -EFAULT);
	assert_int_equal(store(m, va + PG - 4, 8, ~0ull), -EFAULT);
	assert_int_equal(load(m, va + PG - 4, 4, &v), 0);
	assert_int_equal(v, 0x03020100);
	/* Outside the 42-bit space. */
	assert_int_equal(load(m, MACH_TASK_SIZE, 1, &v), -EFAULT);
	assert_int_equal(load(m, ~0ull - 3, 8, &v), -EFAULT);
}

static void test_mach_mem_brk_grow_shrink_and_collide(void **state)
{
	struct mach_mem *m = *state;
	uint64_t start = 0x120010000ull, out, v;

	mach_mem_brk_init(m, start + 5);
	start += PG; /* page aligned up */
	assert_int_equal(mach_mem_brk(m, 0), start);
	assert_int_equal(mach_mem_brk(m, start - PG), start); /* below the start: unchanged */
	assert_int_equal(mach_mem_brk(m, start + 100), start + 100);
	assert_int_equal(store(m, start + 99, 1, 0xab), 0);
	assert_int_equal(mach_mem_brk(m, start + 3 * PG), start + 3 * PG);
	assert_int_equal(load(m, start + 99, 1, &v), 0);
	assert_int_equal(v, 0xab);
	/* Shrinking releases the pages; growing again gives zeros. */
	assert_int_equal(mach_mem_brk(m, start), start);
	assert_int_equal(load(m, start, 1, &v), -EFAULT);
	assert_int_equal(mach_mem_brk(m, start + PG), start + PG);
	assert_int_equal(load(m, start + 99, 1, &v), 0);
	assert_int_equal(v, 0);
	/* A mapping in the way (with its guard page) stops growth. */
	assert_int_equal(mach_mem_map(m, start + 4 * PG, PG, RW, MACH_MAP_FIXED, -1, 0, &out), 0);
	assert_int_equal(mach_mem_brk(m, start + 3 * PG + 1), start + PG);
	assert_int_equal(mach_mem_brk(m, start + 3 * PG), start + 3 * PG);
}

static void test_mach_mem_remap_grow_in_place_and_move(void **state)
{
	struct mach_mem *m = *state;
	uint64_t va, out, v, blocker;

	assert_int_equal(mach_mem_map(m, 0x200000000ull, 2 * PG, RW, MACH_MAP_FIXED, -1, 0, &va),
			 0);
	assert_int_equal(store(m, va + 8, 8, 42), 0);
	assert_int_equal(mach_mem_remap(m, va, 2 * PG, 4 * PG, 0, 0, &out), 0);
	assert_int_equal(out, va);
	assert_int_equal(store(m, va + 3 * PG, 8, 7), 0);
	/* Blocked after the mapping: without MAYMOVE it fails, with it the data moves. */
	assert_int_equal(mach_mem_map(m, va + 4 * PG, PG, RW, MACH_MAP_FIXED, -1, 0, &blocker), 0);
	assert_int_equal(mach_mem_remap(m, va, 4 * PG, 8 * PG, 0, 0, &out), -ENOMEM);
	assert_int_equal(mach_mem_remap(m, va, 4 * PG, 8 * PG, MACH_REMAP_MAYMOVE, 0, &out), 0);
	assert_true(out != va);
	assert_int_equal(load(m, out + 8, 8, &v), 0);
	assert_int_equal(v, 42);
	assert_int_equal(load(m, out + 3 * PG, 8, &v), 0);
	assert_int_equal(v, 7);
	assert_int_equal(load(m, va, 8, &v), -EFAULT);
	/* Shrink. */
	assert_int_equal(mach_mem_remap(m, out, 8 * PG, PG, 0, 0, &va), 0);
	assert_int_equal(va, out);
	assert_int_equal(load(m, out + PG, 8, &v), -EFAULT);
	/* Unmapped source. */
	assert_int_equal(mach_mem_remap(m, out + 2 * PG, PG, 2 * PG, MACH_REMAP_MAYMOVE, 0, &va),
			 -EFAULT);
}

static void test_mach_mem_file_mapping_zero_fills_past_eof(void **state)
{
	struct mach_mem *m = *state;
	char path[] = "/tmp/test_mach_mem.XXXXXX";
	int fd = mkstemp(path);
	char data[5000];
	uint64_t va, v;

	assert_true(fd >= 0);
	unlink(path);
	for (size_t i = 0; i < sizeof(data); i++)
		data[i] = (char)(i * 7 + 1);
	assert_int_equal(write(fd, data, sizeof(data)), (ssize_t)sizeof(data));
	assert_int_equal(mach_mem_map(m, 0, 2 * PG, MACH_PROT_R, 0, fd, 0, &va), 0);
	assert_int_equal(load(m, va + 4999, 1, &v), 0);
	assert_int_equal(v, (uint8_t)(4999 * 7 + 1));
	assert_int_equal(load(m, va + 5000, 8, &v), 0); /* past EOF in the same host page */
	assert_int_equal(v, 0);
	assert_int_equal(load(m, va + 6000, 8, &v), 0); /* past EOF, next host page */
	assert_int_equal(v, 0);
	/* The second page is wholly past EOF: it faults (SIGBUS for the machine). */
	assert_int_equal(load(m, va + PG + 8, 8, &v), -EFAULT);
	/* Private: writes (once writable) do not reach the file. */
	assert_int_equal(mach_mem_protect(m, va, PG, RW), 0);
	assert_int_equal(store(m, va, 1, 0), 0);
	assert_int_equal(pread(fd, data, 1, 0), 1);
	assert_int_equal(data[0], 1);
	assert_int_equal(mach_mem_map(m, 0, PG, MACH_PROT_R, 0, fd, 100, &va), -EINVAL);
	close(fd);
}

static void test_mach_mem_pages_past_eof_fault_and_keep_their_protection(void **state)
{
	struct mach_mem *m = *state;
	char path[] = "/tmp/test_mach_mem.XXXXXX";
	int fd = mkstemp(path);
	uint64_t va, v, start, end;
	unsigned int flags;
	char c = 'x';

	assert_true(fd >= 0);
	unlink(path);
	assert_int_equal(pwrite(fd, &c, 1, 99), 1); /* 100 bytes */
	assert_int_equal(mach_mem_map(m, 0, 3 * PG, MACH_PROT_R, 0, fd, 0, &va), 0);
	assert_int_equal(load(m, va + 99, 1, &v), 0);
	assert_int_equal(v, 'x');
	assert_int_equal(load(m, va + PG - 8, 8, &v), 0); /* the partial last page reads zeros */
	assert_int_equal(v, 0);
	assert_int_equal(load(m, va + PG, 8, &v), -EFAULT);
	assert_int_equal(load(m, va + 2 * PG + 16, 8, &v), -EFAULT);
	assert_int_equal(mach_mem_read(m, va + PG, &v, 8), -EFAULT); /* system calls: EFAULT */
	assert_true(mach_mem_page(m, va + PG) & MACH_PG_EOF);
	assert_false(mach_mem_page(m, va) & MACH_PG_EOF);
	assert_int_equal(mach_mem_prot(m, va + PG), MACH_PROT_R);
	/* One run for the whole mapping: past-EOF pages are part of it. */
	assert_true(mach_mem_next_run(m, 0, &start, &end, &flags));
	assert_int_equal(start, va);
	assert_int_equal(end, va + 3 * PG);
	assert_int_equal(flags, MACH_PROT_R);
	/* mprotect changes what they would allow, not that they fault. */
	assert_int_equal(mach_mem_protect(m, va, 3 * PG, RW), 0);
	assert_int_equal(mach_mem_prot(m, va + PG), RW);
	assert_int_equal(store(m, va + PG, 8, 1), -EFAULT);
	assert_int_equal(store(m, va, 8, 1), 0);
	/* A mapping that starts past EOF is all such pages; unmapping forgets them. */
	assert_int_equal(mach_mem_map(m, 0, PG, MACH_PROT_R, 0, fd, PG, &va), 0);
	assert_true(mach_mem_page(m, va) & MACH_PG_EOF);
	assert_int_equal(mach_mem_unmap(m, va, PG), 0);
	assert_int_equal(mach_mem_page(m, va), 0);
	assert_int_equal(mach_mem_prot(m, va), 0);
	close(fd);
}

static void test_mach_mem_read_write_str_checks(void **state)
{
	struct mach_mem *m = *state;
	const char *s;
	uint64_t va;
	char buf[16];

	assert_int_equal(mach_mem_map(m, 0, PG, RW, 0, -1, 0, &va), 0);
	assert_int_equal(mach_mem_write(m, va + PG - 6, "hello", 6), 0);
	assert_int_equal(mach_mem_str(m, va + PG - 6, 100, &s), 0);
	assert_string_equal(s, "hello");
	assert_int_equal(mach_mem_str(m, va + PG - 6, 3, &s), -ENAMETOOLONG);
	assert_int_equal(mach_mem_write(m, va + PG - 1, "ab", 2), -EFAULT);
	/* An unterminated string at the end of the mapping is a fault. */
	memset(buf, 'x', sizeof(buf));
	assert_int_equal(mach_mem_write(m, va + PG - 16, buf, 16), 0);
	assert_int_equal(mach_mem_str(m, va + PG - 16, 4096, &s), -EFAULT);
	assert_int_equal(mach_mem_protect(m, va, PG, MACH_PROT_R), 0);
	assert_int_equal(mach_mem_write(m, va, "a", 1), -EFAULT);
	assert_int_equal(mach_mem_poke(m, va, "a", 1), 0); /* the loader's write ignores prot */
	assert_int_equal(mach_mem_read(m, va, buf, 1), 0);
	assert_int_equal(buf[0], 'a');
	assert_null(mach_mem_ptr(m, va, PG + 1, MACH_PROT_R));
	assert_non_null(mach_mem_ptr(m, va, PG, MACH_PROT_R));
}

static void test_mach_mem_decode_cache_follows_stores_and_protection(void **state)
{
	struct mach_mem *m = *state;
	const uint32_t addq = 0x40220401; /* addq r1,r2,r1 */
	const uint32_t subq = 0x40220521; /* subq r1,r2,r1 */
	const struct axp_insn *d;
	uint64_t va;
	int err = 0;

	assert_int_equal(mach_mem_map(m, 0, PG, RW | MACH_PROT_X, 0, -1, 0, &va), 0);
	assert_int_equal(mach_mem_write(m, va, &addq, 4), 0);
	d = mach_mem_fetch_insn(m, va, &err);
	assert_non_null(d);
	assert_int_equal(d->op, AXP_OP_ADDQ);
	assert_true(mach_mem_page(m, va) & MACH_PG_DECODED);
	/* A store through the executor's path re-decodes just that word. */
	assert_int_equal(store(m, va, 4, subq), 0);
	d = mach_mem_fetch_insn(m, va, &err);
	assert_non_null(d);
	assert_int_equal(d->op, AXP_OP_SUBQ);
	/* Removing execute permission drops the decoded page: the fetch faults. */
	assert_int_equal(mach_mem_protect(m, va, PG, RW), 0);
	assert_false(mach_mem_page(m, va) & MACH_PG_DECODED);
	assert_null(mach_mem_fetch_insn(m, va, &err));
	assert_int_equal(err, -EFAULT);
	/* imb-style flush and unmap of decoded pages. */
	assert_int_equal(mach_mem_protect(m, va, PG, MACH_PROT_R | MACH_PROT_X), 0);
	assert_non_null(mach_mem_fetch_insn(m, va + 4, &err));
	mach_mem_code_changed(m, 0, MACH_TASK_SIZE);
	assert_false(mach_mem_page(m, va) & MACH_PG_DECODED);
	assert_non_null(mach_mem_fetch_insn(m, va + 4, &err));
	assert_int_equal(mach_mem_unmap(m, va, PG), 0);
	assert_null(mach_mem_fetch_insn(m, va + 4, &err));
}

/*
 * axp_run() reads straight from the decoded page (mach_mem_ops.insn_page) after the first fetch:
 * an instruction that stores over a later instruction of the same page, in the same run, must
 * still see the new word executed, not the decoded copy it had (the store marks it stale).
 */
static void test_mach_mem_run_window_sees_code_stores(void **state)
{
	struct mach_mem *m = *state;
	const uint32_t prog[] = {
		0xb0640008u, /* stl  r3,8(r4): overwrite the word at +8 */
		0x40220401u, /* addq r1,r2,r1 */
		0x40220401u, /* addq r1,r2,r1, replaced by subq r1,r2,r1 before it runs */
		0x40220401u, /* addq r1,r2,r1 */
		0x00000000u, /* call_pal 0: ends the run */
	};
	struct axp_run_cfg cfg = { .mem = &mach_mem_ops, .mem_priv = m };
	struct axp_stop_info info;
	struct axp_ctx ctx = { 0 };
	int err = 0;
	uint64_t va;

	assert_int_equal(mach_mem_map(m, 0, PG, RW | MACH_PROT_X, 0, -1, 0, &va), 0);
	assert_int_equal(mach_mem_write(m, va, prog, sizeof(prog)), 0);
	/* Decode the whole program first: the page's entries hold the old words. */
	for (unsigned int i = 0; i < 5; i++)
		assert_non_null(mach_mem_fetch_insn(m, va + 4 * i, &err));
	ctx.pc = va;
	ctx.lock_addr = AXP_NO_LOCK;
	ctx.r[1] = 10;
	ctx.r[2] = 3;
	ctx.r[3] = 0x40220521u; /* subq r1,r2,r1 */
	ctx.r[4] = va;
	assert_int_equal(axp_run(&ctx, &cfg, 100, &info), AXP_STOP_CALL_PAL);
	assert_int_equal(info.executed, 4);
	assert_int_equal(ctx.r[1], 10 + 3 - 3 + 3); /* addq, subq, addq */
	assert_int_equal(ctx.pc, va + 16);
	/* Run it again from the top: the page now decodes the new word from the start. */
	ctx.pc = va;
	ctx.r[1] = 10;
	assert_int_equal(axp_run(&ctx, &cfg, 100, &info), AXP_STOP_CALL_PAL);
	assert_int_equal(ctx.r[1], 13);
}

/*
 * The executor's own loads and stores (mach_mem_ops.direct) at the edges of what they may do:
 * the last quadword of a page (direct), a quadword across two pages (load()/store()), LDQ_U's
 * alignment, a store to a read-only page and a load from an unmapped one (faults with the
 * address, nothing written), each against the value read back through mach_mem_read().
 */
static void test_mach_mem_run_direct_accesses_match_the_slow_path(void **state)
{
	struct mach_mem *m = *state;
	const uint32_t prog[] = {
		asm_mem(0x2d, 1, 4, (int)PG - 8), /* stq   r1, PG-8(r4): last quadword of data */
		asm_mem(0x2d, 2, 4, (int)PG - 4), /* stq   r2, PG-4(r4): crosses into page 2 */
		asm_mem(0x29, 5, 4, (int)PG - 8), /* ldq   r5, PG-8(r4) */
		asm_mem(0x29, 6, 4, (int)PG - 4), /* ldq   r6, PG-4(r4) */
		asm_mem(0x0b, 7, 4, (int)PG - 3), /* ldq_u r7, PG-3(r4): the quadword at PG-8 */
		asm_mem(0x0e, 1, 4, 3), /* stb   r1, 3(r4) */
		asm_mem(0x2c, 1, 8, 0), /* stl   r1, 0(r8): read-only page, faults */
		0x00000000u,
	};
	struct axp_run_cfg cfg = { .mem = &mach_mem_ops, .mem_priv = m };
	struct axp_stop_info info;
	struct axp_ctx ctx = { 0 };
	uint64_t code, data, ro, q;
	uint8_t b;

	assert_non_null(mach_mem_ops.direct);
	assert_int_equal(mach_mem_map(m, 0, PG, RW | MACH_PROT_X, 0, -1, 0, &code), 0);
	assert_int_equal(mach_mem_map(m, 0, 3 * PG, RW, 0, -1, 0, &data), 0);
	assert_int_equal(mach_mem_protect(m, data + 2 * PG, PG, MACH_PROT_R), 0);
	ro = data + 2 * PG;
	assert_int_equal(mach_mem_write(m, code, prog, sizeof(prog)), 0);
	ctx.pc = code;
	ctx.lock_addr = AXP_NO_LOCK;
	ctx.r[1] = 0x1122334455667788ull;
	ctx.r[2] = 0x99aabbccddeeff00ull;
	ctx.r[4] = data;
	ctx.r[8] = ro;
	assert_int_equal(axp_run(&ctx, &cfg, 100, &info), AXP_STOP_STORE_FAULT);
	assert_int_equal(info.executed, 6);
	assert_int_equal(info.addr, ro);
	assert_int_equal(info.pc, code + 24);
	/* stq r2 at PG-4 overwrote the upper half of r1's quadword. */
	assert_int_equal(mach_mem_read(m, data + PG - 8, &q, 8), 0);
	assert_int_equal(q, 0xddeeff0055667788ull);
	assert_int_equal(ctx.r[5], q);
	assert_int_equal(mach_mem_read(m, data + PG - 4, &q, 8), 0);
	assert_int_equal(q, ctx.r[2]);
	assert_int_equal(ctx.r[6], ctx.r[2]);
	assert_int_equal(ctx.r[7], ctx.r[5]);
	assert_int_equal(mach_mem_read(m, data + 3, &b, 1), 0);
	assert_int_equal(b, 0x88);
	assert_int_equal(mach_mem_read(m, ro, &q, 8), 0);
	assert_int_equal(q, 0);
	/* A load from an unmapped page faults the same way, r5 unchanged. */
	assert_int_equal(mach_mem_unmap(m, data + PG, PG), 0);
	ctx.pc = code + 12;
	ctx.r[6] = 42;
	assert_int_equal(axp_run(&ctx, &cfg, 100, &info), AXP_STOP_LOAD_FAULT);
	assert_int_equal(info.executed, 0);
	assert_int_equal(info.addr, data + PG - 4);
	assert_int_equal(ctx.r[6], 42);
}

/*
 * A run whose budget ends exactly at the end of the decoded page (the functional loop's uncounted
 * segment stops at the page's sentinel entry): the stop names the page's last instruction, the
 * one executed last, and the next run goes on from the next page.
 */
static void test_mach_mem_run_budget_ends_at_the_window_end(void **state)
{
	struct mach_mem *m = *state;
	struct axp_run_cfg cfg = { .mem = &mach_mem_ops, .mem_priv = m };
	struct axp_stop_info info;
	struct axp_ctx ctx = { 0 };
	uint32_t prog[12];
	uint64_t code;

	for (unsigned int i = 0; i < 11; i++) /* addq r1,i+1,r1 */
		prog[i] = asm_opri(0x10, 1, i + 1, 0x20, 1);
	prog[11] = 0; /* call_pal 0 */
	assert_int_equal(mach_mem_map(m, 0, 2 * PG, RW | MACH_PROT_X, 0, -1, 0, &code), 0);
	/* eight on the first page, the rest on the second */
	assert_int_equal(mach_mem_write(m, code + PG - 32, prog, sizeof(prog)), 0);
	ctx.pc = code + PG - 32;
	ctx.lock_addr = AXP_NO_LOCK;
	assert_int_equal(axp_run(&ctx, &cfg, 8, &info), AXP_STOP_BUDGET);
	assert_int_equal(info.executed, 8);
	assert_int_equal(info.pc, code + PG);
	assert_int_equal(ctx.pc, code + PG);
	assert_int_equal(info.word, prog[7]);
	assert_int_equal(ctx.r[1], 36);
	assert_int_equal(axp_run(&ctx, &cfg, 100, &info), AXP_STOP_CALL_PAL);
	assert_int_equal(info.executed, 3);
	assert_int_equal(ctx.r[1], 66);
}

/*
 * The functional loop remembers pages that passed the load test for one run only (axp.h): a load
 * that went direct in one run faults in the next once its page lost its read permission in
 * between (as munmap or mprotect do), nothing loaded.
 */
static void test_mach_mem_run_forgets_load_pages_between_runs(void **state)
{
	struct mach_mem *m = *state;
	const uint32_t prog[] = {
		asm_mem(0x29, 5, 4, 0), /* ldq r5, 0(r4) */
		asm_mem(0x29, 6, 4, 8), /* ldq r6, 8(r4) */
		0x00000000u, /* call_pal 0 */
	};
	struct axp_run_cfg cfg = { .mem = &mach_mem_ops, .mem_priv = m };
	struct axp_stop_info info;
	struct axp_ctx ctx = { 0 };
	uint64_t code, data, q = 0x0123456789abcdefull;

	assert_int_equal(mach_mem_map(m, 0, PG, RW | MACH_PROT_X, 0, -1, 0, &code), 0);
	assert_int_equal(mach_mem_map(m, 0, PG, RW, 0, -1, 0, &data), 0);
	assert_int_equal(mach_mem_write(m, code, prog, sizeof(prog)), 0);
	assert_int_equal(mach_mem_write(m, data + 8, &q, 8), 0);
	ctx.pc = code;
	ctx.lock_addr = AXP_NO_LOCK;
	ctx.r[4] = data;
	assert_int_equal(axp_run(&ctx, &cfg, 100, &info), AXP_STOP_CALL_PAL);
	assert_int_equal(info.executed, 2);
	assert_int_equal(ctx.r[6], q);
	assert_int_equal(mach_mem_protect(m, data, PG, 0), 0);
	ctx.pc = code;
	ctx.r[5] = 42;
	ctx.r[6] = 43;
	assert_int_equal(axp_run(&ctx, &cfg, 100, &info), AXP_STOP_LOAD_FAULT);
	assert_int_equal(info.executed, 0);
	assert_int_equal(info.addr, data);
	assert_int_equal(info.pc, code);
	assert_int_equal(ctx.r[5], 42);
	/* readable again: the same loads go through */
	assert_int_equal(mach_mem_protect(m, data, PG, MACH_PROT_R), 0);
	assert_int_equal(axp_run(&ctx, &cfg, 100, &info), AXP_STOP_CALL_PAL);
	assert_int_equal(ctx.r[6], q);
}

/*
 * axp_run() over the decode cache's window and the direct accesses (mach_mem_ops), with and
 * without an observer, against axp_step() on the plain fetch/load/store operations, stopped at
 * every budget: the same registers, pc, memory and stop. The program runs straight across a page
 * boundary, takes a loop, loads and stores on two data pages and unaligned, and stores into code:
 * into a page the store test passed before the page was decoded (the first instruction run there
 * rewrites its own word, which must not go straight to memory once the page is decoded), and, in
 * the loop, into a later instruction of its own window that has run before.
 */
#define SEQ_N 15

static uint64_t seq_setup(struct mach_mem *m, struct axp_ctx *ctx)
{
	const uint32_t addq = asm_opr(0x10, 1, 2, 0x20, 1); /* addq r1,r2,r1 */
	const uint32_t subq = asm_opr(0x10, 1, 2, 0x29, 1); /* subq r1,r2,r1 */
	const uint32_t prog[SEQ_N] = {
		/* the last 8 words of page A */
		asm_mem(0x29, 5, 4, 0), /* ldq  r5, 0(r4) */
		asm_mem(0x2d, 5, 6, 8), /* stq  r5, 8(r6): the second data page */
		asm_mem(0x29, 7, 6, 0), /* ldq  r7, 0(r6) */
		asm_mem(0x2d, 7, 4, 16), /* stq  r7, 16(r4) */
		asm_mem(0x28, 8, 4, 2), /* ldl  r8, 2(r4): unaligned */
		asm_mem(0x2d, 11, 9, 0x100), /* stq  r11, 0x100(r9): page B, not decoded yet */
		asm_mem(0x2c, 3, 9, 12), /* stl  r3, 12(r9): B+12 becomes subq */
		addq,
		/* page B */
		asm_mem(0x2c, 10, 9, 0), /* loop: stl r10, 0(r9): this word becomes addq */
		asm_mem(0x2c, 15, 9, 20), /* stl  r15, 20(r9): B+20 becomes r15 */
		asm_opr(0x10, 15, 16, 0x20, 15), /* addq r15,r16,r15: addq, subq, s8addq */
		subq, /* (already, before it is decoded) */
		asm_opri(0x10, 12, 1, 0x29, 12), /* subq r12,1,r12 */
		addq, /* (r15 of this turn) */
		asm_bra(0x3d, 12, -7), /* bne  r12, loop */
	};
	const uint32_t end = 0; /* call_pal 0 */
	uint64_t code, data, q;

	assert_int_equal(mach_mem_map(m, 0, 2 * PG, RW | MACH_PROT_X, 0, -1, 0, &code), 0);
	assert_int_equal(mach_mem_map(m, 0, 2 * PG, RW, 0, -1, 0, &data), 0);
	for (unsigned int i = 0; i < 8; i++) {
		q = 0x0102030405060708ull * (i + 1);
		assert_int_equal(mach_mem_write(m, data + 8 * i, &q, 8), 0);
		assert_int_equal(mach_mem_write(m, data + PG + 8 * i, &q, 8), 0);
	}
	assert_int_equal(mach_mem_write(m, code + PG - 32, prog, sizeof(prog)), 0);
	assert_int_equal(mach_mem_write(m, code + PG + 4 * (SEQ_N - 8), &end, 4), 0);
	memset(ctx, 0, sizeof(*ctx));
	ctx->pc = code + PG - 32;
	ctx->lock_addr = AXP_NO_LOCK;
	ctx->r[1] = 100;
	ctx->r[2] = 7;
	ctx->r[3] = subq;
	ctx->r[4] = data;
	ctx->r[6] = data + PG;
	ctx->r[9] = code + PG;
	ctx->r[10] = addq;
	ctx->r[11] = 0x1111;
	ctx->r[12] = 3;
	ctx->r[15] = addq;
	ctx->r[16] = subq - addq;
	return data;
}

static unsigned int seq_events;

static void seq_count(void *priv, const struct axp_event *ev)
{
	(void)priv;
	(void)ev;
	seq_events++;
}

static void test_mach_mem_run_matches_step_at_every_budget(void **state)
{
	struct axp_mem_ops step_ops = mach_mem_ops;
	const struct axp_observer obs = { .insn = seq_count };
	uint8_t want_data[2 * 64], got_data[2 * 64];
	unsigned int reached_end = 0;

	(void)state;
	step_ops.fetch_insn = NULL;
	step_ops.insn_page = NULL;
	step_ops.direct = NULL;
	for (uint64_t budget = 0; budget <= 32; budget++) {
		for (unsigned int kind = 0; kind < 2; kind++) {
			struct mach_mem *ms, *mr;
			struct axp_ctx want, got;
			struct axp_stop_info si = { 0 }, ri;
			struct axp_run_cfg scfg = { .mem = &step_ops };
			struct axp_run_cfg rcfg = { .mem = &mach_mem_ops,
						    .obs = kind ? &obs : NULL };
			uint64_t data, n = 0;
			int rc = 0;

			assert_int_equal(mach_mem_new(&ms), 0);
			assert_int_equal(mach_mem_new(&mr), 0);
			data = seq_setup(ms, &want);
			assert_int_equal(seq_setup(mr, &got), data);
			scfg.mem_priv = ms;
			rcfg.mem_priv = mr;
			si.reason = AXP_STOP_BUDGET;
			while (n < budget && !(rc = axp_step(&want, &scfg, &si)))
				n++;
			if (!rc)
				si.pc = want.pc;
			seq_events = 0;
			assert_int_equal(axp_run(&got, &rcfg, budget, &ri), si.reason);
			assert_int_equal(ri.executed, n);
			assert_int_equal(ri.pc, si.pc);
			if (n || rc)
				assert_int_equal(ri.word, si.word);
			assert_int_equal(seq_events, kind ? n : 0);
			assert_memory_equal(&got, &want, sizeof(want));
			assert_int_equal(mach_mem_read(ms, data, want_data, 64), 0);
			assert_int_equal(mach_mem_read(ms, data + PG, want_data + 64, 64), 0);
			assert_int_equal(mach_mem_read(mr, data, got_data, 64), 0);
			assert_int_equal(mach_mem_read(mr, data + PG, got_data + 64, 64), 0);
			assert_memory_equal(got_data, want_data, sizeof(want_data));
			if (si.reason == AXP_STOP_CALL_PAL) {
				/* 100 + 7; turn 1: stl, -7, +7 (r15 was addq); turn 2: +7
				 * (the rewritten word), -7, -7; turn 3: +7, -7, *8 + 7 */
				assert_int_equal(got.r[1],
						 (100 + 7 - 7 + 7 + 7 - 7 - 7 + 7 - 7) * 8 + 7);
				reached_end++;
			}
			mach_mem_free(ms);
			mach_mem_free(mr);
		}
	}
	assert_true(reached_end > 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(
			test_mach_mem_map_anonymous_is_zero_and_placed_at_unmapped_base, setup,
			teardown),
		cmocka_unit_test_setup_teardown(test_mach_mem_hint_used_when_free, setup, teardown),
		cmocka_unit_test_setup_teardown(test_mach_mem_fixed_replaces_and_noreplace_refuses,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_mach_mem_unmap_then_access_faults, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_mach_mem_protect_semantics, setup, teardown),
		cmocka_unit_test_setup_teardown(test_mach_mem_unaligned_and_page_crossing_accesses,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_mach_mem_brk_grow_shrink_and_collide, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_mach_mem_remap_grow_in_place_and_move, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_mach_mem_file_mapping_zero_fills_past_eof,
						setup, teardown),
		cmocka_unit_test_setup_teardown(
			test_mach_mem_pages_past_eof_fault_and_keep_their_protection, setup,
			teardown),
		cmocka_unit_test_setup_teardown(test_mach_mem_read_write_str_checks, setup,
						teardown),
		cmocka_unit_test_setup_teardown(
			test_mach_mem_decode_cache_follows_stores_and_protection, setup, teardown),
		cmocka_unit_test_setup_teardown(test_mach_mem_run_window_sees_code_stores, setup,
						teardown),
		cmocka_unit_test_setup_teardown(
			test_mach_mem_run_direct_accesses_match_the_slow_path, setup, teardown),
		cmocka_unit_test_setup_teardown(test_mach_mem_run_budget_ends_at_the_window_end,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_mach_mem_run_forgets_load_pages_between_runs,
						setup, teardown),
		cmocka_unit_test(test_mach_mem_run_matches_step_at_every_budget),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
