/* tests/analysis/test_an_cfg.c - CFG building: blocks, edges, jump tables, classes, bad input. */
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
#include "img.h"
#include "an_proc.h"
#include "an_sched.h"
#include "fixtures/mkelf.h"

#define TEXT 0x120000000ull
#define RODATA 0x12000c000ull
#define FIXTURES "tests/analysis/fixtures/"

enum { V0 = 0, T0, T1, T2, A0 = 16, A1, RA = 26, PV = 27, GP = 29, SP = 30, ZERO = 31 };

static char path[64];

static int setup(void **state)
{
	(void)state;
	snprintf(path, sizeof(path), "/tmp/test_an_cfg.%d.elf", (int)getpid());
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	unlink(path);
	return 0;
}

struct fixture {
	struct img *elf;
	struct an_procs *ps;
};

static void fixture_open(struct fixture *im, const char *file)
{
	struct ax_error err;

	assert_int_equal(img_open(file, 0, &im->elf, NULL), 0);
	assert_int_equal(an_procs_find(im->elf, &im->ps, &err), 0);
}

static void fixture_close(struct fixture *im)
{
	an_procs_free(im->ps);
	img_close(im->elf);
}

/* Build, classify and check the CFG of the procedure named `name`. */
static struct an_cfg *cfg_of(const struct fixture *im, const char *name)
{
	const struct an_proc *p = an_procs_lookup(im->ps, name);
	struct an_cfg *cfg = NULL;
	struct ax_error err;

	assert_non_null(p);
	assert_int_equal(an_cfg_build(im->ps, p, &cfg, &err), 0);
	assert_int_equal(an_cfg_classes(cfg), 0);
	if (an_cfg_check(cfg, &err))
		fail_msg("%s: %s", name, err.msg);
	return cfg;
}

/* The edge from block `from` of kind `kind` (the first one), or NULL. */
static const struct an_edge *edge(const struct an_cfg *cfg, uint32_t from, unsigned int kind)
{
	const struct an_block *b = &cfg->block[from];

	for (uint32_t e = b->succ; e < b->succ + b->nsucc; e++)
		if (cfg->edge[e].kind == kind)
			return &cfg->edge[e];
	return NULL;
}

/*
 * f:  0 lda sp,-16(sp)         b0
 *     1 beq a0,5
 *     2 addq a0,1,a0           b1
 *     3 bsr ra,g               (call)
 *     4 br 7                   b2
 *     5 subq a0,1,a0           b3   loop
 *     6 bne a0,5
 *     7 call_pal callsys       b4
 *     8 ret                    b5
 *     9 nop, 10 unop, 11 nop   b6   padding (unreachable)
 * g: 12 ret
 */
static void test_an_cfg_block_splitting(void **state)
{
	uint32_t w[13] = {
		enc_mem(0x08, SP, SP, -16),
		enc_bra(0x39, A0, 1, 5),
		enc_oprl(0x10, 0x20, A0, 1, A0),
		enc_bra(0x34, RA, 3, 12),
		enc_bra(0x30, ZERO, 4, 7),
		enc_oprl(0x10, 0x29, A0, 1, A0),
		enc_bra(0x3d, A0, 6, 5),
		0x00000083, /* call_pal callsys */
		W_RET,
		W_NOP,
		W_UNOP,
		W_NOP,
		W_RET,
	};
	const struct mkelf_sym syms[] = { { "f", TEXT, 48, true }, { "g", TEXT + 48, 4, true } };
	static const uint32_t starts[] = { 0, 2, 4, 5, 7, 8, 9 };
	struct fixture im;
	struct an_cfg *cfg;
	const struct an_edge *e;

	(void)state;
	assert_int_equal(mkelf_write(path, TEXT, w, 13, NULL, 0, 0, syms, 2), 0);
	fixture_open(&im, path);
	cfg = cfg_of(&im, "f");
	assert_int_equal(cfg->nblocks, 7);
	for (uint32_t b = 0; b < 7; b++)
		assert_int_equal(cfg->block[b].first, starts[b]);
	/* b0: beq taken -> b3, fall -> b1 */
	assert_non_null(e = edge(cfg, 0, AN_EDGE_TAKEN));
	assert_int_equal(e->to, 3);
	assert_non_null(e = edge(cfg, 0, AN_EDGE_FALL));
	assert_int_equal(e->to, 1);
	/* b1: the call returns to b2 */
	assert_int_equal(cfg->block[1].nsucc, 1);
	assert_non_null(e = edge(cfg, 1, AN_EDGE_CALLRET));
	assert_int_equal(e->to, 2);
	assert_true(cfg->block[1].flags & AN_BLK_CALL);
	/* b2: br -> b4; b3: loop to itself and out to b4 */
	assert_int_equal(edge(cfg, 2, AN_EDGE_TAKEN)->to, 4);
	assert_int_equal(edge(cfg, 3, AN_EDGE_TAKEN)->to, 3);
	assert_int_equal(edge(cfg, 3, AN_EDGE_FALL)->to, 4);
	/* b4: callsys returns; b5: ret */
	assert_int_equal(edge(cfg, 4, AN_EDGE_CALLRET)->to, 5);
	assert_non_null(e = edge(cfg, 5, AN_EDGE_EXIT));
	assert_int_equal(e->why, AN_EXIT_RETURN);
	/* padding after the RET: unreachable, falls off the end */
	assert_true(cfg->block[6].flags & AN_BLK_PAD);
	assert_true(cfg->block[6].flags & AN_BLK_UNREACHABLE);
	assert_int_equal(edge(cfg, 6, AN_EDGE_EXIT)->why, AN_EXIT_FALLOUT);
	assert_int_equal(cfg->nunreachable, 1);
	assert_int_equal(cfg->nentry_edges, 1);
	assert_false(cfg->flags & AN_CFG_MISSING_EDGES);
	/* classes: once per call: b0, b4, b5; b1 and b2 (then-path); the loop body apart */
	assert_int_equal(cfg->block[4].cls, cfg->block[0].cls);
	assert_int_equal(cfg->block[5].cls, cfg->block[0].cls);
	assert_int_equal(cfg->block[1].cls, cfg->block[2].cls);
	assert_int_not_equal(cfg->block[1].cls, cfg->block[0].cls);
	assert_int_not_equal(cfg->block[3].cls, cfg->block[0].cls);
	assert_int_not_equal(cfg->block[3].cls, cfg->block[1].cls);
	assert_int_equal(edge(cfg, 0, AN_EDGE_TAKEN)->cls, edge(cfg, 3, AN_EDGE_FALL)->cls);
	assert_true(cfg->nclasses <= cfg->nblocks + cfg->nedges);
	an_cfg_free(cfg);
	fixture_close(&im);
}

/*
 * A GP-relative jump table in .rodata, as GCC lays it out (cmpule/beq range check), and one
 * bounded only by an AND mask (scanned), in a synthetic image.
 */
static void test_an_cfg_jump_table_synthetic(void **state)
{
	/* gp = TEXT + 0x18000; the table at RODATA = gp - 0x10000 + 0x4000 */
	const int64_t gp = (int64_t)TEXT + 0x18000;
	uint32_t w[32];
	int32_t table[8];
	int n = 0;
	struct fixture im;
	struct an_cfg *cfg;
	uint32_t jtab = 0;

	(void)state;
	w[n++] = enc_mem(0x09, GP, PV, 2); /* ldah gp,2(pv): gp = TEXT + 0x20000 */
	w[n++] = enc_mem(0x08, GP, GP, -0x8000); /* lda gp,-0x8000(gp) */
	w[n++] = enc_oprl(0x10, 0x3d, A0, 3, T0); /* 2 cmpule a0,3,t0 */
	w[n++] = enc_bra(0x39, T0, 3, 16); /* 3 beq t0,default */
	w[n++] = enc_mem(0x09, T0, GP, -1); /* 4 ldah t0,-1(gp) */
	w[n++] = enc_mem(0x08, T0, T0, (int)(RODATA - (uint64_t)gp + 0x10000)); /* 5 lda */
	w[n++] = enc_opr(0x10, 0x22, A0, T0, A0); /* 6 s4addq a0,t0,a0 */
	w[n++] = enc_mem(0x28, T0, A0, 0); /* 7 ldl t0,0(a0) */
	w[n++] = enc_opr(0x10, 0x20, GP, T0, T0); /* 8 addq gp,t0,t0 */
	w[n++] = enc_jmp(0, ZERO, T0); /* 9 jmp (t0) */
	w[n++] = W_RET; /* 10 case 0 */
	w[n++] = W_RET; /* 11 case 1 */
	w[n++] = W_RET; /* 12 case 2, 3 */
	w[n++] = W_NOP;
	w[n++] = W_NOP;
	w[n++] = W_NOP;
	w[n++] = W_RET; /* 16 default */
	assert_true(n == 17);
	table[0] = (int32_t)((int64_t)(TEXT + 40) - gp);
	table[1] = (int32_t)((int64_t)(TEXT + 44) - gp);
	table[2] = (int32_t)((int64_t)(TEXT + 48) - gp);
	table[3] = (int32_t)((int64_t)(TEXT + 48) - gp);
	table[4] = 0x7fffffff; /* after the table: not a code address */
	assert_true(RODATA - (uint64_t)gp + 0x10000 < 0x8000);
	{
		const struct mkelf_sym syms[] = { { "sw", TEXT, 4 * 17, true } };

		assert_int_equal(
			mkelf_write(path, TEXT, w, 17, (const uint8_t *)table, 20, RODATA, syms, 1),
			0);
	}
	fixture_open(&im, path);
	cfg = cfg_of(&im, "sw");
	assert_int_equal(cfg->njtabs, 1);
	assert_true(cfg->jtab[0].resolved);
	assert_false(cfg->jtab[0].scanned);
	assert_int_equal(cfg->jtab[0].n, 4);
	assert_true(cfg->jtab[0].table == RODATA);
	assert_true(cfg->jtab[0].base == (uint64_t)gp);
	for (uint32_t e = 0; e < cfg->nedges; e++)
		jtab += cfg->edge[e].kind == AN_EDGE_JTAB;
	assert_int_equal(jtab, 3); /* distinct targets */
	assert_false(cfg->flags & AN_CFG_MISSING_EDGES);
	an_cfg_free(cfg);
	fixture_close(&im);

	/* no compare: and a0,7,a0 limits the index; the scan stops at the bad entry */
	w[2] = enc_oprl(0x11, 0x00, A0, 7, A0); /* and a0,7,a0 */
	w[3] = W_NOP;
	{
		const struct mkelf_sym syms[] = { { "sw", TEXT, 4 * 17, true } };

		assert_int_equal(
			mkelf_write(path, TEXT, w, 17, (const uint8_t *)table, 20, RODATA, syms, 1),
			0);
	}
	fixture_open(&im, path);
	cfg = cfg_of(&im, "sw");
	assert_true(cfg->jtab[0].resolved);
	assert_true(cfg->jtab[0].scanned);
	assert_int_equal(cfg->jtab[0].n, 4);
	an_cfg_free(cfg);
	fixture_close(&im);

	/* a table entry outside the procedure: unresolved, missing edges */
	table[1] = (int32_t)((int64_t)(TEXT + 0x1000) - gp);
	w[2] = enc_oprl(0x10, 0x3d, A0, 3, T0);
	w[3] = enc_bra(0x39, T0, 3, 16);
	{
		const struct mkelf_sym syms[] = { { "sw", TEXT, 4 * 17, true } };

		assert_int_equal(
			mkelf_write(path, TEXT, w, 17, (const uint8_t *)table, 20, RODATA, syms, 1),
			0);
	}
	fixture_open(&im, path);
	cfg = cfg_of(&im, "sw");
	assert_false(cfg->jtab[0].resolved);
	assert_true(cfg->flags & AN_CFG_MISSING_EDGES);
	an_cfg_free(cfg);
	fixture_close(&im);
}

/*
 * A computed goto as GCC compiles Lua's luaV_execute: the table of 8-byte label addresses is
 * in s1, set by an ldah/lda chain at the start and read in another straight-line run.
 *  0 ldah gp,2(pv) ; 1 lda gp,-0x8000(gp)
 *  2 ldah s1,-1(gp) ; 3 lda s1,lo(s1)       s1 = RODATA
 *  4 br 5                                   (the dispatch is in another run)
 *  5 and a0,3,t0 ; 6 s8addq t0,s1,t0 ; 7 ldq t0,0(t0) ; 8 nop or addq gp,t0,t0 ; 9 jmp (t0)
 * 10 ret (l0) ; 11 ret (l1) ; 12 addq a0,1,a0 (l2) ; 13 br 5 ; 14 ret (l3)
 */
static void write_goto(const uint32_t *w, const uint64_t *table, size_t ntab)
{
	const struct mkelf_sym syms[] = { { "vm", TEXT, 4 * 15, true } };

	assert_int_equal(
		mkelf_write(path, TEXT, w, 15, (const uint8_t *)table, 8 * ntab, RODATA, syms, 1),
		0);
}

static void test_an_cfg_computed_goto(void **state)
{
	const int64_t gp = (int64_t)TEXT + 0x18000;
	const uint64_t label[4] = { TEXT + 40, TEXT + 44, TEXT + 48, TEXT + 56 };
	enum { S1 = 10 };
	uint32_t w[15];
	uint64_t table[5];
	struct fixture im;
	struct an_cfg *cfg;
	uint32_t jtab = 0;

	(void)state;
	w[0] = enc_mem(0x09, GP, PV, 2);
	w[1] = enc_mem(0x08, GP, GP, -0x8000);
	w[2] = enc_mem(0x09, S1, GP, -1);
	w[3] = enc_mem(0x08, S1, S1, (int)(RODATA - (uint64_t)gp + 0x10000));
	w[4] = enc_bra(0x30, ZERO, 4, 5); /* br 5 */
	w[5] = enc_oprl(0x11, 0x00, A0, 3, T0); /* and a0,3,t0 */
	w[6] = enc_opr(0x10, 0x32, T0, S1, T0); /* s8addq t0,s1,t0 */
	w[7] = enc_mem(0x29, T0, T0, 0); /* ldq t0,0(t0) */
	w[8] = W_NOP;
	w[9] = enc_jmp(0, ZERO, T0); /* jmp (t0) */
	w[10] = W_RET;
	w[11] = W_RET;
	w[12] = enc_oprl(0x10, 0x20, A0, 1, A0); /* addq a0,1,a0 */
	w[13] = enc_bra(0x30, ZERO, 13, 5); /* br 5: back to the dispatch */
	w[14] = W_RET;
	for (int k = 0; k < 4; k++)
		table[k] = label[k];
	table[4] = 0; /* after the table: not a code address */

	/* absolute entries */
	write_goto(w, table, 5);
	fixture_open(&im, path);
	cfg = cfg_of(&im, "vm");
	assert_int_equal(cfg->njtabs, 1);
	assert_true(cfg->jtab[0].resolved);
	assert_true(cfg->jtab[0].scanned); /* bounded by the mask and the bad entry */
	assert_int_equal(cfg->jtab[0].n, 4);
	assert_int_equal(cfg->jtab[0].esize, 8);
	assert_true(cfg->jtab[0].table == RODATA);
	assert_true(cfg->jtab[0].base == 0);
	for (uint32_t e = 0; e < cfg->nedges; e++)
		jtab += cfg->edge[e].kind == AN_EDGE_JTAB;
	assert_int_equal(jtab, 4);
	assert_int_equal(cfg->nunreachable, 0); /* every handler is reached */
	assert_false(cfg->flags & AN_CFG_MISSING_EDGES);
	an_cfg_free(cfg);
	fixture_close(&im);

	/* entries relative to gp: ldq then addq gp,t0,t0 */
	for (int k = 0; k < 4; k++)
		table[k] = label[k] - (uint64_t)gp;
	table[4] = 0x7fffffffffffffffull;
	w[8] = enc_opr(0x10, 0x20, GP, T0, T0);
	write_goto(w, table, 5);
	fixture_open(&im, path);
	cfg = cfg_of(&im, "vm");
	assert_true(cfg->jtab[0].resolved);
	assert_int_equal(cfg->jtab[0].n, 4);
	assert_true(cfg->jtab[0].base == (uint64_t)gp);
	assert_int_equal(cfg->nunreachable, 0);
	an_cfg_free(cfg);
	fixture_close(&im);

	/*
	 * Absolute entries again, with l0 restoring s1 for the caller before its RET (an
	 * epilogue: not a second definition), and a divide routine called between the load and
	 * the jmp (`jsr t9,(t12)` changes only t9-t12 and at: t0 survives it)
	 */
	for (int k = 0; k < 4; k++)
		table[k] = label[k];
	table[4] = 0;
	w[8] = enc_jmp(1, 23, PV); /* jsr t9,(t12) */
	w[10] = enc_mem(0x29, S1, SP, 0); /* ldq s1,0(sp), then l1's ret */
	write_goto(w, table, 5);
	fixture_open(&im, path);
	cfg = cfg_of(&im, "vm");
	assert_true(cfg->jtab[0].resolved);
	assert_int_equal(cfg->jtab[0].n, 4);
	an_cfg_free(cfg);
	fixture_close(&im);

	/*
	 * an ordinary call (jsr ra,(pv)) may change t0: no table, but the four labels are stored
	 * in .rodata (address taken): the fallback's targets, plus a possible tail call
	 */
	w[8] = enc_jmp(1, RA, PV);
	write_goto(w, table, 5);
	fixture_open(&im, path);
	cfg = cfg_of(&im, "vm");
	assert_true(cfg->jtab[0].resolved);
	assert_true(cfg->jtab[0].fallback);
	assert_int_equal(cfg->jtab[0].n, 4);
	assert_true(cfg->flags & AN_CFG_FALLBACK_EDGES);
	assert_false(cfg->flags & AN_CFG_MISSING_EDGES);
	assert_true(cfg->block[cfg->blk_of[11]].flags & AN_BLK_GUESSED);
	assert_false(cfg->block[cfg->blk_of[5]].flags & AN_BLK_GUESSED);
	an_cfg_free(cfg);
	fixture_close(&im);
	w[8] = W_NOP;

	/* s1 changed again in a handler: its value at the dispatch is unknown; with the labels
	 * gone from .rodata no block's address is taken, so the edges are missing */
	w[12] = enc_mem(0x08, S1, S1, 8); /* lda s1,8(s1) */
	memset(table, 0, sizeof(table));
	write_goto(w, table, 5);
	fixture_open(&im, path);
	cfg = cfg_of(&im, "vm");
	assert_false(cfg->jtab[0].resolved);
	assert_false(cfg->jtab[0].fallback);
	assert_true(cfg->flags & AN_CFG_MISSING_EDGES);
	an_cfg_free(cfg);
	fixture_close(&im);
}

/*
 * The same computed goto in a shared object: .rodata (standing for .data.rel.ro) holds zeros
 * and R_ALPHA_RELATIVE relocations of .rela.dyn fill the four entries (addend = label).
 */
static void test_an_cfg_reloc_table(void **state)
{
	const int64_t gp = (int64_t)TEXT + 0x18000;
	enum { S1 = 10 };
	const struct mkelf_sym syms[] = { { "vm", TEXT, 4 * 15, true } };
	struct mkelf_rela rela[4];
	uint64_t table[5] = { 0 };
	uint32_t w[15];
	struct fixture im;
	struct an_cfg *cfg;

	(void)state;
	w[0] = enc_mem(0x09, GP, PV, 2);
	w[1] = enc_mem(0x08, GP, GP, -0x8000);
	w[2] = enc_mem(0x09, S1, GP, -1);
	w[3] = enc_mem(0x08, S1, S1, (int)(RODATA - (uint64_t)gp + 0x10000));
	w[4] = enc_bra(0x30, ZERO, 4, 5);
	w[5] = enc_oprl(0x11, 0x00, A0, 3, T0); /* and a0,3,t0 */
	w[6] = enc_opr(0x10, 0x32, T0, S1, T0); /* s8addq t0,s1,t0 */
	w[7] = enc_mem(0x29, T0, T0, 0); /* ldq t0,0(t0) */
	w[8] = W_NOP;
	w[9] = enc_jmp(0, ZERO, T0);
	w[10] = W_RET;
	w[11] = W_RET;
	w[12] = enc_oprl(0x10, 0x20, A0, 1, A0);
	w[13] = enc_bra(0x30, ZERO, 13, 5);
	w[14] = W_RET;
	for (int k = 0; k < 4; k++)
		rela[k] = (struct mkelf_rela){ RODATA + 8 * (uint64_t)k,
					       TEXT + 4 * (uint64_t)(k < 3 ? 10 + k : 14),
					       R_ALPHA_RELATIVE };
	assert_int_equal(mkelf_write_rela(path, TEXT, w, 15, (const uint8_t *)table, sizeof(table),
					  RODATA, syms, 1, rela, 4),
			 0);
	fixture_open(&im, path);
	cfg = cfg_of(&im, "vm");
	assert_true(cfg->jtab[0].resolved);
	assert_false(cfg->jtab[0].fallback);
	assert_int_equal(cfg->jtab[0].n, 4); /* the fifth entry has no relocation: zero */
	assert_true(cfg->jtab[0].tmin == TEXT + 40 && cfg->jtab[0].tmax == TEXT + 56);
	assert_int_equal(cfg->nunreachable, 0);
	an_cfg_free(cfg);
	fixture_close(&im);

	/* another relocation type at an entry is not a value: the scan stops before it */
	rela[2].type = R_ALPHA_NONE;
	assert_int_equal(mkelf_write_rela(path, TEXT, w, 15, (const uint8_t *)table, sizeof(table),
					  RODATA, syms, 1, rela, 4),
			 0);
	fixture_open(&im, path);
	cfg = cfg_of(&im, "vm");
	assert_true(cfg->jtab[0].resolved);
	assert_int_equal(cfg->jtab[0].n, 2);
	an_cfg_free(cfg);
	fixture_close(&im);
}

/*
 * glibc vfprintf's shared dispatch: each path sets t3 to a label (GP-relative literal) and
 * branches to one `jmp (t3)` in another straight-line run.
 *  0 ldah gp,2(pv) ; 1 lda gp,-0x8000(gp)
 *  2 ldah t3,-1(gp) ; 3 lda t3,lo(t3)    t3 = L11
 *  4 beq a0,9
 *  5 ldah t3,-1(gp) ; 6 lda t3,lo(t3)    t3 = L12
 *  7 bne a1,9 ; 8 ret
 *  9 lda t7,1 ; 10 jmp (t3)
 * 11 ret (L11) ; 12 ret (L12)
 */
static void test_an_cfg_flow_dispatch(void **state)
{
	enum { T3 = 4, T7 = 8, A2 = 18 };
	const struct mkelf_sym syms[] = { { "df", TEXT, 4 * 13, true } };
	uint32_t w[13];
	struct fixture im;
	struct an_cfg *cfg;
	uint32_t jmpb;

	(void)state;
	w[0] = enc_mem(0x09, GP, PV, 2);
	w[1] = enc_mem(0x08, GP, GP, -0x8000);
	w[2] = enc_mem(0x09, T3, GP, -1); /* gp - 0x10000 = TEXT + 0x8000 */
	w[3] = enc_mem(0x08, T3, T3, 44 - 0x8000);
	w[4] = enc_bra(0x39, A0, 4, 9); /* beq a0,9 */
	w[5] = enc_mem(0x09, T3, GP, -1);
	w[6] = enc_mem(0x08, T3, T3, 48 - 0x8000);
	w[7] = enc_bra(0x3d, A1, 7, 9); /* bne a1,9 */
	w[8] = W_RET;
	w[9] = enc_mem(0x08, T7, ZERO, 1);
	w[10] = enc_jmp(0, ZERO, T3);
	w[11] = W_RET;
	w[12] = W_RET;
	assert_int_equal(mkelf_write(path, TEXT, w, 13, NULL, 0, RODATA, syms, 1), 0);
	fixture_open(&im, path);
	cfg = cfg_of(&im, "df");
	jmpb = cfg->blk_of[10];
	assert_true(cfg->jtab[0].resolved);
	assert_true(cfg->jtab[0].flow);
	assert_int_equal(cfg->jtab[0].n, 2);
	assert_int_equal(cfg->block[jmpb].nsucc, 2);
	assert_int_equal(cfg->edge[cfg->block[jmpb].succ].to, cfg->blk_of[11]);
	assert_int_equal(cfg->edge[cfg->block[jmpb].succ + 1].to, cfg->blk_of[12]);
	assert_int_equal(cfg->nunreachable, 0);
	assert_false(cfg->flags & (AN_CFG_MISSING_EDGES | AN_CFG_FALLBACK_EDGES));
	an_cfg_free(cfg);
	fixture_close(&im);

	/*
	 * t3 loaded from memory on the second path: not a constant there. The literal of the
	 * first path still takes L11's address: the fallback goes there (and may leave).
	 */
	w[6] = enc_mem(0x29, T3, A2, 0); /* ldq t3,0(a2) */
	assert_int_equal(mkelf_write(path, TEXT, w, 13, NULL, 0, RODATA, syms, 1), 0);
	fixture_open(&im, path);
	cfg = cfg_of(&im, "df");
	jmpb = cfg->blk_of[10];
	assert_false(cfg->jtab[0].flow);
	assert_true(cfg->jtab[0].fallback);
	assert_int_equal(cfg->jtab[0].n, 1);
	assert_int_equal(cfg->block[jmpb].nsucc, 2);
	assert_int_equal(cfg->edge[cfg->block[jmpb].succ].to, cfg->blk_of[11]);
	assert_int_equal(cfg->edge[cfg->block[jmpb].succ + 1].to, AN_NODE_EXIT);
	assert_true(cfg->block[cfg->blk_of[11]].flags & AN_BLK_GUESSED);
	assert_true(cfg->block[cfg->blk_of[12]].flags & AN_BLK_UNREACHABLE);
	assert_true(cfg->flags & AN_CFG_FALLBACK_EDGES);
	assert_false(cfg->flags & AN_CFG_MISSING_EDGES);
	an_cfg_free(cfg);
	fixture_close(&im);

	/* no literal left: no block's address is taken, the edges are missing */
	w[3] = enc_mem(0x29, T3, A2, 8); /* ldq t3,8(a2) */
	assert_int_equal(mkelf_write(path, TEXT, w, 13, NULL, 0, RODATA, syms, 1), 0);
	fixture_open(&im, path);
	cfg = cfg_of(&im, "df");
	assert_false(cfg->jtab[0].resolved);
	assert_true(cfg->flags & AN_CFG_MISSING_EDGES);
	an_cfg_free(cfg);
	fixture_close(&im);

	/* the constant spilled to the stack and reloaded before the branch still counts */
	w[3] = enc_mem(0x08, T3, T3, 44 - 0x8000);
	w[5] = enc_mem(0x2d, T3, SP, 16); /* stq t3,16(sp) */
	w[6] = enc_mem(0x29, T3, SP, 16); /* ldq t3,16(sp) */
	assert_int_equal(mkelf_write(path, TEXT, w, 13, NULL, 0, RODATA, syms, 1), 0);
	fixture_open(&im, path);
	cfg = cfg_of(&im, "df");
	assert_true(cfg->jtab[0].flow);
	assert_int_equal(cfg->jtab[0].n, 1);
	an_cfg_free(cfg);
	fixture_close(&im);
}

/* A real switch compiled by alpha-linux-gnu-gcc -O2 (tests/analysis/fixtures/cfgtest.c). */
static void test_an_cfg_jump_table_compiled(void **state)
{
	struct fixture im;
	struct an_cfg *cfg;
	uint32_t jmpb = UINT32_MAX, njtab = 0;

	(void)state;
	fixture_open(&im, FIXTURES "cfgtest.so");
	cfg = cfg_of(&im, "sw");
	assert_int_equal(cfg->njtabs, 1);
	assert_true(cfg->jtab[0].resolved);
	assert_int_equal(cfg->jtab[0].n, 8); /* cases 0..7: cmpule a0,7 */
	assert_true(cfg->jtab[0].base == an_procs_lookup(im.ps, "sw")->gp);
	for (uint32_t b = 0; b < cfg->nblocks; b++)
		if (cfg->block[b].flags & AN_BLK_JMP)
			jmpb = b;
	assert_true(jmpb != UINT32_MAX);
	for (uint32_t e = cfg->block[jmpb].succ; e < cfg->block[jmpb].succ + cfg->block[jmpb].nsucc;
	     e++) {
		const struct an_edge *ed = &cfg->edge[e];
		const struct an_block *t = &cfg->block[ed->to];

		assert_int_equal(ed->kind, AN_EDGE_JTAB);
		uint32_t live = 0;

		/* each case block returns; it runs as often as its jump-table edge when that is
		 * its only way in (padding falling into it never runs) */
		assert_int_equal(cfg->insn[t->first + t->n - 1].op, AXP_OP_RET);
		for (uint32_t k = t->pred; k < t->pred + t->npred; k++)
			live += !(cfg->block[cfg->edge[cfg->pred[k]].from].flags &
				  AN_BLK_UNREACHABLE);
		if (live == 1)
			assert_int_equal(ed->cls, t->cls);
		else
			assert_int_not_equal(ed->cls, t->cls);
		njtab++;
	}
	assert_int_equal(njtab, 8); /* 7 cases and the default (case 6) */
	assert_false(cfg->flags & AN_CFG_MISSING_EDGES);
	an_cfg_free(cfg);
	fixture_close(&im);
}

/*
 * Calls that never return or return twice, by the callee's name (an_callee.h):
 *   f:      0 beq a0,3; 1 bsr ra,longjmp; 2 addq a0,1,a0 (reached by nothing); 3 ret
 *   g:      4 bsr ra,_setjmp; 5 bne v0,8; 6 bsr ra,h; 7 addq a0,1,a0; 8 ret
 *   k:      9 bsr ra,dies; 10 ret
 *   dies:  11 bsr ra,longjmp; 12 nop (padding)      no way back: never returns
 *   h: 13 ret; longjmp: 14 ret; _setjmp: 15 ret      (names, not bodies, decide)
 *   m:     16 bsr ra,fatal; 17 ret
 *   fatal: 18 bsr ra,abort; 19 nop                   ends the process
 *   abort: 20 ret
 */
static void test_an_cfg_noreturn_and_setjmp(void **state)
{
	uint32_t w[21] = {
		enc_bra(0x39, A0, 0, 3),
		enc_bra(0x34, RA, 1, 14),
		enc_oprl(0x10, 0x20, A0, 1, A0),
		W_RET,
		enc_bra(0x34, RA, 4, 15),
		enc_bra(0x3d, V0, 5, 8),
		enc_bra(0x34, RA, 6, 13),
		enc_oprl(0x10, 0x20, A0, 1, A0),
		W_RET,
		enc_bra(0x34, RA, 9, 11),
		W_RET,
		enc_bra(0x34, RA, 11, 14),
		W_NOP,
		W_RET,
		W_RET,
		W_RET,
		enc_bra(0x34, RA, 16, 18),
		W_RET,
		enc_bra(0x34, RA, 18, 20),
		W_NOP,
		W_RET,
	};
	const struct mkelf_sym syms[] = {
		{ "f", TEXT, 16, true },	   { "g", TEXT + 16, 20, true },
		{ "k", TEXT + 36, 8, true },	   { "dies", TEXT + 44, 8, true },
		{ "h", TEXT + 52, 4, true },	   { "longjmp", TEXT + 56, 4, true },
		{ "_setjmp", TEXT + 60, 4, true }, { "m", TEXT + 64, 8, true },
		{ "fatal", TEXT + 72, 8, true },   { "abort", TEXT + 80, 4, true },
	};
	struct fixture im;
	struct an_cfg *cfg;
	const struct an_edge *e;

	(void)state;
	assert_int_equal(mkelf_write(path, TEXT, w, 21, NULL, 0, 0, syms, 10), 0);
	fixture_open(&im, path);
	/* f: the call of longjmp leaves the procedure; the block after it is not reached */
	cfg = cfg_of(&im, "f");
	assert_int_equal(cfg->nblocks, 4);
	assert_null(edge(cfg, 1, AN_EDGE_CALLRET));
	assert_non_null(e = edge(cfg, 1, AN_EDGE_EXIT));
	assert_int_equal(e->why, AN_EXIT_NORETCALL);
	assert_true(cfg->block[1].flags & AN_BLK_CALL);
	assert_true(cfg->block[2].flags & AN_BLK_UNREACHABLE);
	assert_int_not_equal(cfg->block[1].cls, cfg->block[3].cls);
	an_cfg_free(cfg);
	/* g: the call of h may end in a longjmp back to the block after _setjmp */
	cfg = cfg_of(&im, "g");
	assert_int_equal(cfg->nblocks, 5);
	assert_int_equal(edge(cfg, 0, AN_EDGE_CALLRET)->to, 1);
	assert_null(edge(cfg, 0, AN_EDGE_LONGJMP));
	assert_int_equal(edge(cfg, 2, AN_EDGE_CALLRET)->to, 3);
	assert_non_null(e = edge(cfg, 2, AN_EDGE_LONGJMP));
	assert_int_equal(e->to, 1);
	/* _setjmp returns more often than it is called; h's call returns less often */
	assert_int_not_equal(cfg->block[0].cls, cfg->block[1].cls);
	assert_int_not_equal(cfg->block[2].cls, cfg->block[3].cls);
	assert_int_equal(cfg->block[0].cls, cfg->block[4].cls);
	an_cfg_free(cfg);
	/* k: dies has no way back (its only exit is the call of longjmp) */
	cfg = cfg_of(&im, "k");
	assert_non_null(e = edge(cfg, 0, AN_EDGE_EXIT));
	assert_int_equal(e->why, AN_EXIT_NORETCALL);
	an_cfg_free(cfg);
	/* m: fatal ends the process (it calls abort): the call keeps its return edge, marked */
	cfg = cfg_of(&im, "m");
	assert_int_equal(cfg->nblocks, 2);
	assert_non_null(e = edge(cfg, 0, AN_EDGE_CALLRET));
	assert_int_equal(e->to, 1);
	assert_true(cfg->block[0].flags & AN_BLK_CALL_EXITS);
	assert_int_equal(cfg->block[0].cls, cfg->block[1].cls);
	an_cfg_free(cfg);
	cfg = cfg_of(&im, "fatal");
	assert_true(cfg->block[0].flags & AN_BLK_CALL_EXITS);
	assert_null(edge(cfg, 0, AN_EDGE_EXIT));
	an_cfg_free(cfg);
	fixture_close(&im);
}

/* GCC calls the static helper with bsr past its GP prologue: a second entry. */
static void test_an_cfg_second_entry(void **state)
{
	struct fixture im;
	struct an_cfg *cfg;

	(void)state;
	fixture_open(&im, FIXTURES "cfgtest.so");
	cfg = cfg_of(&im, "helper.constprop.0");
	assert_int_equal(cfg->nentry_edges, 2);
	assert_true(cfg->block[0].flags & AN_BLK_ENTRY);
	assert_true(cfg->block[1].flags & AN_BLK_ENTRY);
	assert_true(cfg->block[1].addr == cfg->block[0].addr + 8);
	/* the prologue block runs once per call through pv, the rest once per call either way */
	assert_int_not_equal(cfg->block[0].cls, cfg->block[1].cls);
	an_cfg_free(cfg);
	fixture_close(&im);
}

/* An exit-less loop gets an artificial NORETURN edge and classes still work. */
static void test_an_cfg_infinite_loop(void **state)
{
	struct fixture im;
	struct an_cfg *cfg;
	uint32_t nr = 0;

	(void)state;
	fixture_open(&im, FIXTURES "cfgtest.so");
	cfg = cfg_of(&im, "spin");
	for (uint32_t e = 0; e < cfg->nedges; e++)
		if (cfg->edge[e].kind == AN_EDGE_NORETURN) {
			nr++;
			assert_int_equal(cfg->edge[e].to, AN_NODE_EXIT);
		}
	assert_int_equal(nr, 1);
	assert_int_equal(cfg->nexit_preds, 1);
	assert_true(cfg->flags & AN_CFG_CLASSES);
	an_cfg_free(cfg);
	fixture_close(&im);
}

/* An indirect jump through an argument: missing edges, every block and edge its own class. */
static void test_an_cfg_unresolvable_jmp(void **state)
{
	struct fixture im;
	struct an_cfg *cfg;

	(void)state;
	fixture_open(&im, FIXTURES "cfgtest.so");
	cfg = cfg_of(&im, "unresolved");
	assert_true(cfg->flags & AN_CFG_MISSING_EDGES);
	assert_int_equal(cfg->njtabs, 1);
	assert_false(cfg->jtab[0].resolved);
	assert_int_equal(cfg->nclasses, cfg->nblocks + cfg->nedges);
	for (uint32_t b = 0; b < cfg->nblocks; b++)
		if (cfg->block[b].flags & AN_BLK_JMP)
			assert_true(cfg->block[b].flags & AN_BLK_UNRESOLVED);
	an_cfg_free(cfg);
	fixture_close(&im);
}

/* The stripped fixture analyses like the full one (same blocks and classes per procedure). */
static void test_an_cfg_stripped_same_graphs(void **state)
{
	struct fixture full, str;

	(void)state;
	fixture_open(&full, FIXTURES "cfgtest.so");
	fixture_open(&str, FIXTURES "cfgtest-stripped.so");
	assert_int_equal(full.ps->n, str.ps->n);
	for (size_t i = 0; i < full.ps->n; i++) {
		struct an_cfg *a, *b;
		struct ax_error err;

		assert_int_equal(an_cfg_build(full.ps, &full.ps->v[i], &a, &err), 0);
		assert_int_equal(an_cfg_build(str.ps, &str.ps->v[i], &b, &err), 0);
		assert_int_equal(an_cfg_classes(a), 0);
		assert_int_equal(an_cfg_classes(b), 0);
		assert_int_equal(a->nblocks, b->nblocks);
		assert_int_equal(a->nedges, b->nedges);
		assert_int_equal(a->nclasses, b->nclasses);
		an_cfg_free(a);
		an_cfg_free(b);
	}
	fixture_close(&full);
	fixture_close(&str);
}

/* The checker finds a damaged CFG. */
static void test_an_cfg_check_detects_damage(void **state)
{
	struct fixture im;
	struct an_cfg *cfg;
	struct ax_error msg;
	uint32_t saved;

	(void)state;
	fixture_open(&im, FIXTURES "cfgtest.so");
	cfg = cfg_of(&im, "loops");
	assert_int_equal(an_cfg_check(cfg, &msg), 0);
	/* a fall-through edge that skips a block */
	for (uint32_t e = 0; e < cfg->nedges; e++) {
		if (cfg->edge[e].kind != AN_EDGE_FALL || cfg->edge[e].to + 1 >= cfg->nblocks)
			continue;
		saved = cfg->edge[e].to;
		cfg->edge[e].to++;
		assert_int_equal(an_cfg_check(cfg, &msg), -EBADMSG);
		cfg->edge[e].to = saved;
		break;
	}
	/* a class shared across a missing-edges CFG */
	cfg->flags |= AN_CFG_MISSING_EDGES;
	assert_int_equal(an_cfg_check(cfg, &msg), -EBADMSG);
	cfg->flags &= ~AN_CFG_MISSING_EDGES;
	/* a wrong reachability flag */
	cfg->block[0].flags |= AN_BLK_UNREACHABLE;
	assert_int_equal(an_cfg_check(cfg, &msg), -EBADMSG);
	assert_non_null(strstr(msg.msg, "reachab"));
	an_cfg_free(cfg);
	fixture_close(&im);
}

/* Schedules of whole CFGs: a single-predecessor block continues its predecessor's schedule. */
static void test_an_cfg_schedule_continues(void **state)
{
	/* b0: ldq t0; beq a0,x   b1 (fall, same INT16): addq t0,1,t1 waits for the load */
	uint32_t w[8] = {
		enc_mem(0x29, T0, A1, 0),
		enc_bra(0x39, A0, 1, 4),
		enc_oprl(0x10, 0x20, T0, 1, T1),
		W_RET,
		W_RET,
		W_NOP,
		W_NOP,
		W_NOP,
	};
	const struct mkelf_sym syms[] = { { "f", TEXT, 20, true } };
	struct an_sched_model *m;
	struct an_sched_insn s[5];
	struct fixture im;
	struct an_cfg *cfg;

	(void)state;
	assert_int_equal(mkelf_write(path, TEXT, w, 8, NULL, 0, 0, syms, 1), 0);
	fixture_open(&im, path);
	cfg = cfg_of(&im, "f");
	assert_int_equal(an_sched_model_new(&m), 0);
	assert_int_equal(an_sched_cfg(m, cfg, s), 0);
	assert_int_equal(cfg->nblocks, 3);
	/* ldq c0, beq c0; addq: the load's result at c2, M = 2 after the beq */
	assert_int_equal(s[2].m, 2);
	assert_int_equal(s[2].reason, AN_STALL_DEP);
	assert_true(s[2].culprit_pc == TEXT);
	assert_int_equal(s[2].culprit, -1);
	/* the taken target's only predecessor is the beq: a new fetch, one cycle later */
	assert_int_equal(s[4].m, 1);
	{
		uint32_t pred = 99;

		assert_false(an_sched_continues(cfg, 0, &pred)); /* ENTRY */
		assert_true(an_sched_continues(cfg, 1, &pred));
		assert_int_equal(pred, 0);
		assert_true(an_sched_continues(cfg, 2, &pred));
		assert_int_equal(pred, 0);
	}
	an_sched_model_free(m);
	an_cfg_free(cfg);
	fixture_close(&im);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_an_cfg_block_splitting),
		cmocka_unit_test(test_an_cfg_jump_table_synthetic),
		cmocka_unit_test(test_an_cfg_jump_table_compiled),
		cmocka_unit_test(test_an_cfg_computed_goto),
		cmocka_unit_test(test_an_cfg_reloc_table),
		cmocka_unit_test(test_an_cfg_flow_dispatch),
		cmocka_unit_test(test_an_cfg_second_entry),
		cmocka_unit_test(test_an_cfg_noreturn_and_setjmp),
		cmocka_unit_test(test_an_cfg_infinite_loop),
		cmocka_unit_test(test_an_cfg_unresolvable_jmp),
		cmocka_unit_test(test_an_cfg_stripped_same_graphs),
		cmocka_unit_test(test_an_cfg_check_detects_damage),
		cmocka_unit_test(test_an_cfg_schedule_continues),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
