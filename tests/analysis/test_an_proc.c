/* tests/analysis/test_an_proc.c - procedures from symbols and from code (stripped images). */
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

#include "img.h"
#include "an_proc.h"
#include "fixtures/mkelf.h"

#define TEXT 0x120000000ull
#define FIXTURES "tests/analysis/fixtures/"

enum { V0 = 0, T0, T1, T2, A0 = 16, A1, RA = 26, PV = 27, GP = 29, SP = 30, ZERO = 31 };

static char path[64];

static int setup(void **state)
{
	(void)state;
	snprintf(path, sizeof(path), "/tmp/test_an_proc.%d.elf", (int)getpid());
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	unlink(path);
	return 0;
}

static struct an_procs *open_procs(struct img **elf, const char *file)
{
	struct an_procs *ps = NULL;
	struct ax_error err;

	assert_int_equal(img_open(file, 0, elf, NULL), 0);
	assert_int_equal(an_procs_find(*elf, &ps, &err), 0);
	return ps;
}

/*
 * Three procedures: f (GP prologue, a forward branch past a RET, so the RET does not end it),
 * padding, g (called with bsr g+8 from f: past its GP prologue), padding, h (no prologue).
 */
#define F 0
#define G 12
#define H 20
static void code(uint32_t *w)
{
	for (int i = 0; i < 24; i++)
		w[i] = W_NOP;
	w[F + 0] = enc_mem(0x09, GP, PV, 2); /* ldah gp,2(pv) */
	w[F + 1] = enc_mem(0x08, GP, GP, -32); /* lda gp,-32(gp) */
	w[F + 2] = enc_bra(0x39, A0, F + 2, F + 5); /* beq a0,f+5 */
	w[F + 3] = W_RET;
	w[F + 4] = W_UNOP; /* padding inside f */
	w[F + 5] = enc_bra(0x34, RA, F + 5, G + 2); /* bsr ra,g+8 */
	w[F + 6] = W_RET;
	/* 7..11 padding */
	w[G + 0] = enc_mem(0x09, GP, PV, 2);
	w[G + 1] = enc_mem(0x08, GP, GP, -80);
	w[G + 2] = enc_opr(0x10, 0x20, A0, A1, V0); /* addq a0,a1,v0 */
	w[G + 3] = W_RET;
	/* 16..19 padding */
	w[H + 0] = enc_opr(0x10, 0x20, A0, A0, V0);
	w[H + 1] = W_RET;
	w[H + 2] = 0; /* zero padding */
	w[H + 3] = 0;
}

static void test_an_proc_from_symbols(void **state)
{
	uint32_t w[24];
	const struct mkelf_sym syms[] = {
		{ "f", TEXT + 4 * F, 4 * 7, true },
		{ "g", TEXT + 4 * G, 4 * 4, true },
		{ "h", TEXT + 4 * H, 0, true }, /* size 0: runs to the section end */
	};
	struct img *elf;
	struct an_procs *ps;
	char name[64];

	(void)state;
	code(w);
	assert_int_equal(mkelf_write(path, TEXT, w, 24, NULL, 0, 0, syms, 3), 0);
	ps = open_procs(&elf, path);
	assert_int_equal(ps->n, 3);
	assert_int_equal(ps->stats.guessed, 0);
	assert_string_equal(ps->v[0].name, "f");
	assert_true(ps->v[0].start == TEXT && ps->v[0].end == TEXT + 28);
	assert_true(ps->v[1].start == TEXT + 48 && ps->v[1].end == TEXT + 64);
	assert_true(ps->v[2].start == TEXT + 80 && ps->v[2].end == TEXT + 96);
	/* GP from the prologues; h inherits g's */
	assert_true(ps->v[0].flags & AN_PROC_GP);
	assert_true(ps->v[0].gp == TEXT + 2 * 65536 - 32);
	assert_true(ps->v[1].gp == TEXT + 48 + 2 * 65536 - 80);
	assert_true(ps->v[2].flags & AN_PROC_GP_INHERITED);
	assert_true(ps->v[2].gp == ps->v[1].gp);
	/* bsr ra,g+8 makes g+8 an extra entry of g */
	assert_int_equal(ps->v[1].nxentries, 1);
	assert_true(ps->xentries[ps->v[1].xentry] == TEXT + 4 * G + 8);
	assert_int_equal(ps->v[0].nxentries, 0);
	/* lookups */
	assert_ptr_equal(an_procs_lookup(ps, "g"), &ps->v[1]);
	assert_ptr_equal(an_procs_lookup(ps, "g@GLIBC_2.0"), &ps->v[1]);
	assert_ptr_equal(an_procs_lookup(ps, "0x120000054"), &ps->v[2]);
	assert_null(an_procs_lookup(ps, "nosuch"));
	assert_null(an_procs_lookup(ps, "0x1"));
	assert_ptr_equal(an_procs_at(ps, TEXT + 4), &ps->v[0]);
	assert_null(an_procs_at(ps, TEXT + 40)); /* padding between f and g */
	an_proc_name(&ps->v[2], name, sizeof(name));
	assert_string_equal(name, "h");
	an_procs_free(ps);
	img_close(elf);
}

/* The same code without symbols: the same three procedures, found from the code. */
static void test_an_proc_stripped_guess(void **state)
{
	uint32_t w[24];
	struct img *elf;
	struct an_procs *ps;
	char name[64];

	(void)state;
	code(w);
	assert_int_equal(mkelf_write(path, TEXT, w, 24, NULL, 0, 0, NULL, 0), 0);
	ps = open_procs(&elf, path);
	assert_int_equal(ps->n, 3);
	assert_int_equal(ps->stats.guessed, 3);
	for (size_t i = 0; i < 3; i++)
		assert_true(ps->v[i].flags & AN_PROC_GUESSED);
	/* f runs past its first RET (the branch to f+5), its padding is trimmed at the end */
	assert_true(ps->v[0].start == TEXT && ps->v[0].end == TEXT + 28);
	/* g starts at its prologue, not at the bsr target g+8 */
	assert_true(ps->v[1].start == TEXT + 48 && ps->v[1].end == TEXT + 64);
	assert_true(ps->v[2].start == TEXT + 80 && ps->v[2].end == TEXT + 88);
	assert_null(ps->v[0].name);
	an_proc_name(&ps->v[1], name, sizeof(name));
	assert_string_equal(name, "proc_120000030");
	assert_ptr_equal(an_procs_lookup(ps, "proc_120000030"), &ps->v[1]);
	assert_true(ps->stats.pad_bytes == 96 - 28 - 16 - 8);
	an_procs_free(ps);
	img_close(elf);
}

/*
 * The same code with only NOTYPE symbols (as libc's assembler routines __remqu, __divqu, which
 * are not STT_FUNC): the procedures are guessed, yet each symbol's name finds the procedure
 * holding it, with or without a version.
 */
static void test_an_proc_lookup_notype(void **state)
{
	uint32_t w[24];
	const struct mkelf_sym syms[] = {
		{ "__remqu", TEXT + 48, 0, false },
		{ "inner_label", TEXT + 84, 0, false },
	};
	struct img *elf;
	struct an_procs *ps;

	(void)state;
	code(w);
	assert_int_equal(mkelf_write(path, TEXT, w, 24, NULL, 0, 0, syms, 2), 0);
	ps = open_procs(&elf, path);
	assert_int_equal(ps->n, 3);
	assert_true(ps->v[1].flags & AN_PROC_GUESSED);
	assert_ptr_equal(an_procs_lookup(ps, "__remqu"), &ps->v[1]);
	assert_ptr_equal(an_procs_lookup(ps, "__remqu@@GLIBC_2.0"), &ps->v[1]);
	assert_ptr_equal(an_procs_lookup(ps, "inner_label"), &ps->v[2]);
	assert_null(an_procs_lookup(ps, "__remq"));
	an_procs_free(ps);
	img_close(elf);
}

/* A symbol inside another one's range splits it; sizes past the section end are clipped. */
static void test_an_proc_nested_and_clipped(void **state)
{
	uint32_t w[24];
	const struct mkelf_sym syms[] = {
		{ "outer", TEXT, 4 * 20, true },
		{ "inner", TEXT + 4 * G, 4 * 4, true },
		{ "tail", TEXT + 4 * H, 4 * 100, true },
		{ "data", TEXT + 4 * 7, 4, false }, /* not a function: ignored */
	};
	struct img *elf;
	struct an_procs *ps;

	(void)state;
	code(w);
	assert_int_equal(mkelf_write(path, TEXT, w, 24, NULL, 0, 0, syms, 4), 0);
	ps = open_procs(&elf, path);
	assert_int_equal(ps->n, 3);
	assert_true(ps->v[0].end == TEXT + 4 * G);
	assert_true(ps->v[0].flags & AN_PROC_CLIPPED);
	assert_true(ps->v[1].start == TEXT + 4 * G && ps->v[1].end == TEXT + 64);
	assert_true(ps->v[2].end == TEXT + 96);
	assert_true(ps->v[2].flags & AN_PROC_CLIPPED);
	an_procs_free(ps);
	img_close(elf);
}

/* The compiled fixture and its stripped copy give the same procedure ranges. */
static void test_an_proc_fixture_stripped_matches(void **state)
{
	struct img *e1, *e2;
	struct an_procs *full, *stripped;

	(void)state;
	full = open_procs(&e1, FIXTURES "cfgtest.so");
	stripped = open_procs(&e2, FIXTURES "cfgtest-stripped.so");
	assert_int_equal(full->n, stripped->n);
	assert_true(full->n >= 6);
	for (size_t i = 0; i < full->n; i++) {
		assert_true(full->v[i].start == stripped->v[i].start);
		assert_true(full->v[i].end == stripped->v[i].end);
	}
	/* the static helper has no dynamic symbol: guessed in the stripped copy */
	assert_true(stripped->stats.guessed >= 1);
	assert_int_equal(full->stats.guessed, 0);
	an_procs_free(full);
	an_procs_free(stripped);
	img_close(e1);
	img_close(e2);
}

/* A relocatable object with a section per function: every function found, none guessed. */
static void test_an_proc_relocatable_sections(void **state)
{
	struct img *elf;
	struct an_procs *ps;
	const char *names[] = { "sw", "loops", "calls_helper", "spin", "unresolved" };

	(void)state;
	ps = open_procs(&elf, FIXTURES "cfgtest-sections.o");
	assert_int_equal(ps->stats.guessed, 0);
	assert_true(ps->n >= 6);
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		assert_non_null(an_procs_lookup(ps, names[i]));
	an_procs_free(ps);
	img_close(elf);
}

/* No code: a clear error, no crash. */
static void test_an_proc_no_code(void **state)
{
	struct img *elf;
	struct an_procs *ps = (void *)1;
	struct ax_error err;
	char want[128];

	(void)state;
	assert_int_equal(mkelf_write(path, TEXT, NULL, 0, NULL, 0, 0, NULL, 0), 0);
	assert_int_equal(img_open(path, 0, &elf, NULL), 0);
	assert_int_equal(an_procs_find(elf, &ps, &err), -ENOEXEC);
	assert_null(ps);
	snprintf(want, sizeof(want), "%s: no code section with contents to analyse", path);
	assert_string_equal(err.msg, want); /* names the file */
	assert_int_equal(err.code, -ENOEXEC);
	ps = (void *)1;
	assert_int_equal(an_procs_find(elf, &ps, NULL), -ENOEXEC); /* err may be NULL */
	assert_null(ps);
	img_close(elf);
}

/* Not an Alpha file: img_open refuses it before any analysis. */
static void test_an_proc_not_alpha(void **state)
{
	struct ax_error err;
	struct img *elf;

	(void)state;
	assert_int_equal(img_open("/proc/self/exe", 0, &elf, &err), -ENOEXEC);
	assert_non_null(strstr(err.msg, "not an Alpha file"));
}

/* glibc: many procedures, most from .dynsym, the static ones guessed. */
static void test_an_proc_libc(void **state)
{
	const char *libc = "/usr/alpha-linux-gnu/lib/libc.so.6.1";
	struct img *elf;
	struct an_procs *ps;
	const struct an_proc *p;

	(void)state;
	if (access(libc, R_OK)) {
		skip();
		return;
	}
	ps = open_procs(&elf, libc);
	assert_true(ps->n > 3000);
	assert_true(ps->stats.guessed > 500);
	p = an_procs_lookup(ps, "memcpy");
	assert_non_null(p);
	assert_true(p->flags & (AN_PROC_GP | AN_PROC_GP_INHERITED));
	for (size_t i = 1; i < ps->n; i++)
		assert_true(ps->v[i - 1].end <= ps->v[i].start);
	an_procs_free(ps);
	img_close(elf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_an_proc_from_symbols),
		cmocka_unit_test(test_an_proc_stripped_guess),
		cmocka_unit_test(test_an_proc_lookup_notype),
		cmocka_unit_test(test_an_proc_nested_and_clipped),
		cmocka_unit_test(test_an_proc_fixture_stripped_matches),
		cmocka_unit_test(test_an_proc_relocatable_sections),
		cmocka_unit_test(test_an_proc_no_code),
		cmocka_unit_test(test_an_proc_not_alpha),
		cmocka_unit_test(test_an_proc_libc),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
