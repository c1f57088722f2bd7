/* tests/analysis/test_an_vclass.c - why an instruction is invariant: each class on hand-built code. */
#define _GNU_SOURCE
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "an_cfg.h"
#include "an_proc.h"
#include "an_vclass.h"
#include "img.h"
#include "fixtures/mkelf.h"

#define TEXT 0x120000000ull
#define RODATA 0x12000c000ull /* GP (TEXT + 0x8000) + 0x4000 */

enum { T0 = 1, T1, T2, T3, T4, T5, T6, A0 = 16, A1, RA = 26, PV = 27, GP = 29, ZERO = 31 };

/*
 * f: a GP prologue, a constant, a literal load from .rodata, arithmetic on an argument, a load
 * through an argument, a loop whose latch compare feeds the back edge, a compare after the loop
 * feeding a forward branch, a call. h: a loop whose exit test sits at its top.
 */

static char path[64];
static struct img *elf;
static struct an_procs *ps;

static int setup(void **state)
{
	static const uint64_t ro[2] = { 0x1234, 0 };
	const uint32_t code[] = {
		/* f */
		enc_mem(0x09, GP, PV, 1), /* 0: ldah gp,1(pv) */
		enc_mem(0x08, GP, GP, -32768), /* 1: lda gp,-32768(gp) */
		enc_mem(0x08, T0, ZERO, 7), /* 2: lda t0,7 */
		enc_mem(0x29, T1, GP, 0x4000), /* 3: ldq t1,16384(gp) -> .rodata */
		enc_oprl(0x10, 0x20, A0, 1, T2), /* 4: addq a0,1,t2 */
		enc_mem(0x29, T3, A1, 0), /* 5: ldq t3,0(a1) */
		enc_mem(0x29, T4, T3, 0), /* 6: ldq t4,0(t3)      loop */
		enc_oprl(0x10, 0x20, T3, 8, T3), /* 7: addq t3,8,t3 */
		enc_opr(0x10, 0x2d, T3, T1, T5), /* 8: cmpeq t3,t1,t5 */
		enc_bra(0x39, T5, 9, 6), /* 9: beq t5,6         back edge */
		enc_opr(0x10, 0x1d, T4, T0, T6), /* 10: cmpult t4,t0,t6 */
		enc_bra(0x3d, T6, 11, 13), /* 11: bne t6,13 */
		enc_bra(0x34, RA, 12, 14), /* 12: bsr ra,g */
		W_RET, /* 13 */
		/* g */
		W_RET, /* 14 */
		/* h */
		enc_mem(0x08, T2, ZERO, 0), /* 15: clr t2 */
		enc_mem(0x29, T0, A0, 0), /* 16: ldq t0,0(a0)     loop head */
		enc_oprl(0x10, 0x2d, T0, 0, T1), /* 17: cmpeq t0,0,t1 */
		enc_bra(0x3d, T1, 18, 21), /* 18: bne t1,21        exit */
		enc_oprl(0x10, 0x20, A0, 8, A0), /* 19: addq a0,8,a0 */
		enc_bra(0x30, ZERO, 20, 16), /* 20: br 16 */
		W_RET, /* 21 */
		/* k */
		enc_mem(0x08, T0, 30, 64), /* 22: lda t0,64(sp)      a frame address */
		enc_mem(0x29, T1, 30, 64), /* 23: ldq t1,64(sp)      a stack slot: data */
		W_RET, /* 24 */
	};
	const struct mkelf_sym syms[] = { { "f", TEXT, 14 * 4, true },
					  { "g", TEXT + 14 * 4, 4, true },
					  { "h", TEXT + 15 * 4, 7 * 4, true },
					  { "k", TEXT + 22 * 4, 3 * 4, true } };
	struct ax_error err;

	(void)state;
	snprintf(path, sizeof(path), "/tmp/test_an_vclass.%d.elf", (int)getpid());
	if (mkelf_write(path, TEXT, code, sizeof(code) / 4, (const uint8_t *)ro, sizeof(ro), RODATA,
			syms, 4))
		return -1;
	if (img_open(path, 0, &elf, NULL) || an_procs_find(elf, &ps, &err))
		return -1;
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	an_procs_free(ps);
	img_close(elf);
	unlink(path);
	return 0;
}

static struct an_vinfo classify(const char *proc, unsigned int index, uint32_t *dep, uint32_t ndep)
{
	const struct an_proc *p = an_procs_lookup(ps, proc);
	struct an_cfg *cfg = NULL;
	struct an_vinfo v;
	struct ax_error err;

	assert_non_null(p);
	assert_int_equal(an_cfg_build(ps, p, &cfg, &err), 0);
	assert_int_equal(an_vclass(cfg, elf, TEXT + 4ull * index, &v, dep, ndep), 0);
	an_cfg_free(cfg);
	return v;
}

static void test_vclass_by_construction(void **state)
{
	(void)state;
	assert_int_equal(classify("f", 1, NULL, 0).cls, AN_VC_CONST); /* the GP set-up */
	assert_int_equal(classify("f", 2, NULL, 0).cls, AN_VC_CONST); /* lda t0,7 */
	assert_int_equal(classify("f", 3, NULL, 0).cls, AN_VC_LITERAL); /* .rodata via GP */
	assert_int_equal(classify("f", 12, NULL, 0).cls, AN_VC_LINK); /* bsr ra */
	assert_int_equal(classify("h", 15, NULL, 0).cls, AN_VC_CONST); /* clr t2 */
	assert_int_equal(classify("k", 22, NULL, 0).cls, AN_VC_CONST); /* lda t0,64(sp) */
	assert_int_equal(classify("k", 23, NULL, 0).cls, AN_VC_DATA); /* ldq t1,64(sp) */
	assert_int_equal(classify("f", 3, NULL, 0).suggest, AN_VS_NONE);
}

static void test_vclass_loop_control(void **state)
{
	(void)state;
	assert_int_equal(classify("f", 8, NULL, 0).cls, AN_VC_LOOP); /* the latch's compare */
	assert_int_equal(classify("h", 17, NULL, 0).cls, AN_VC_LOOP); /* the exit test at the top */
	/* after the loop, a compare feeding a forward branch that no loop contains: data */
	assert_int_equal(classify("f", 10, NULL, 0).cls, AN_VC_DATA);
	assert_int_equal(classify("f", 10, NULL, 0).suggest, AN_VS_SPECULATE);
}

static void test_vclass_data_and_suggestions(void **state)
{
	uint32_t dep[8];
	struct an_vinfo v;

	(void)state;
	v = classify("f", 4, NULL, 0); /* addq a0,1,t2 at the entry: the argument */
	assert_int_equal(v.cls, AN_VC_DATA);
	assert_int_equal(v.suggest, AN_VS_SPECIALISE);
	assert_int_equal(v.arg, A0);
	v = classify("f", 5, NULL, 0); /* ldq t3,0(a1): a load from memory the code does not fix */
	assert_int_equal(v.cls, AN_VC_DATA);
	assert_int_equal(v.suggest, AN_VS_HOIST);
	v = classify("f", 6, dep,
		     8); /* ldq t4,0(t3) in the loop: data, no dependant in its block */
	assert_int_equal(v.cls, AN_VC_DATA);
	assert_int_equal(v.ndep, 1);
	assert_int_equal(dep[0], 6);
	v = classify("f", 7, dep, 8); /* addq t3: the compare and the branch depend on it */
	assert_int_equal(v.cls, AN_VC_DATA);
	assert_int_equal(v.suggest, AN_VS_SPECULATE);
	assert_int_equal(v.ndep, 3);
	assert_int_equal(dep[1], 8);
	assert_int_equal(dep[2], 9);
	v = classify("h", 16, NULL, 0); /* ldq t0,0(a0): data (the loop's own load) */
	assert_int_equal(v.cls, AN_VC_DATA);
}

static void test_vclass_bad_address(void **state)
{
	const struct an_proc *p = an_procs_lookup(ps, "g");
	struct an_cfg *cfg = NULL;
	struct an_vinfo v;
	struct ax_error err;

	(void)state;
	assert_int_equal(an_cfg_build(ps, p, &cfg, &err), 0);
	assert_int_equal(an_vclass(cfg, elf, TEXT, &v, NULL, 0), -EINVAL); /* before g */
	assert_int_equal(an_vclass(cfg, elf, TEXT + 15 * 4, &v, NULL, 0), -EINVAL); /* after */
	assert_int_equal(an_vclass(cfg, elf, TEXT + 14 * 4 + 2, &v, NULL, 0), -EINVAL);
	an_cfg_free(cfg);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_vclass_by_construction),
		cmocka_unit_test(test_vclass_loop_control),
		cmocka_unit_test(test_vclass_data_and_suggestions),
		cmocka_unit_test(test_vclass_bad_address),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
