/* tests/analysis/test_an_freq_image.c - image-level analysis (an_freq_image): real CFGs, bad input. */
#define _GNU_SOURCE
#include <elf.h>
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "an_freq_image.h"
#include "fixtures/mkelf.h"
#include "tl_prof.h"

#define TEXT 0x120000000ull

/*
 * f: a counted loop.                     g: a jump through a loaded pointer (unresolvable).
 *   00 lda   t0,100(zero)                  20 ldq  t0,0(a0)
 *   04 bis   zero,zero,v0                  24 jmp  zero,(t0)
 *   08 addq  v0,t0,v0      <- loop         28 addq v0,0x1,v0
 *   0c subq  t0,0x1,t0                     2c ret
 *   10 addq  v0,0x3,v0
 *   14 bne   t0,08
 *   18 ret
 *   1c nop
 */
static const uint32_t text[] = {
	0x203f0064, 0x47ff0400, 0x40010400, 0x40203521, 0x40007400, 0xf43ffffc,
	0x6bfa8001, 0x47ff041f, 0xa4300000, 0x6be10000, 0x40003400, 0x6bfa8001,
};

struct file {
	char path[64];
};

/* Write an ELF64 Alpha ET_EXEC with .text (and, unless stripped, .symtab with f and g). */
static void write_elf(struct file *f, bool stripped, uint16_t machine)
{
	static const char strtab[] = "\0f\0g";
	static const char shstr[] = "\0.text\0.symtab\0.strtab\0.shstrtab";
	uint8_t b[4096] = { 0 };
	Elf64_Ehdr eh = { 0 };
	Elf64_Sym syms[3] = { 0 };
	Elf64_Shdr sh[5] = { 0 };
	size_t off = 64, text_off, sym_off, str_off, shstr_off, shoff, nsh = stripped ? 3 : 5;
	int fd;

	text_off = off;
	memcpy(b + text_off, text, sizeof(text)); /* little-endian host, as the file wants */
	off += sizeof(text);
	sym_off = (off + 7) & ~7ul;
	syms[1] = (Elf64_Sym){ .st_name = 1,
			       .st_info = ELF64_ST_INFO(STB_GLOBAL, STT_FUNC),
			       .st_shndx = 1,
			       .st_value = TEXT,
			       .st_size = 0x20 };
	syms[2] = (Elf64_Sym){ .st_name = 3,
			       .st_info = ELF64_ST_INFO(STB_GLOBAL, STT_FUNC),
			       .st_shndx = 1,
			       .st_value = TEXT + 0x20,
			       .st_size = 0x10 };
	memcpy(b + sym_off, syms, sizeof(syms));
	off = sym_off + sizeof(syms);
	str_off = off;
	memcpy(b + str_off, strtab, sizeof(strtab));
	off += sizeof(strtab);
	shstr_off = off;
	memcpy(b + shstr_off, shstr, sizeof(shstr));
	off += sizeof(shstr);
	shoff = (off + 7) & ~7ul;

	sh[1] = (Elf64_Shdr){ .sh_name = 1,
			      .sh_type = SHT_PROGBITS,
			      .sh_flags = SHF_ALLOC | SHF_EXECINSTR,
			      .sh_addr = TEXT,
			      .sh_offset = text_off,
			      .sh_size = sizeof(text),
			      .sh_addralign = 16 };
	if (stripped) {
		sh[2] = (Elf64_Shdr){ .sh_name = 23,
				      .sh_type = SHT_STRTAB,
				      .sh_offset = shstr_off,
				      .sh_size = sizeof(shstr),
				      .sh_addralign = 1 };
	} else {
		sh[2] = (Elf64_Shdr){ .sh_name = 7,
				      .sh_type = SHT_SYMTAB,
				      .sh_offset = sym_off,
				      .sh_size = sizeof(syms),
				      .sh_link = 3,
				      .sh_info = 1,
				      .sh_addralign = 8,
				      .sh_entsize = sizeof(Elf64_Sym) };
		sh[3] = (Elf64_Shdr){ .sh_name = 15,
				      .sh_type = SHT_STRTAB,
				      .sh_offset = str_off,
				      .sh_size = sizeof(strtab),
				      .sh_addralign = 1 };
		sh[4] = (Elf64_Shdr){ .sh_name = 23,
				      .sh_type = SHT_STRTAB,
				      .sh_offset = shstr_off,
				      .sh_size = sizeof(shstr),
				      .sh_addralign = 1 };
	}
	memcpy(b + shoff, sh, nsh * sizeof(Elf64_Shdr));
	memcpy(eh.e_ident, ELFMAG, SELFMAG);
	eh.e_ident[EI_CLASS] = ELFCLASS64;
	eh.e_ident[EI_DATA] = ELFDATA2LSB;
	eh.e_ident[EI_VERSION] = EV_CURRENT;
	eh.e_type = ET_EXEC;
	eh.e_machine = machine;
	eh.e_version = EV_CURRENT;
	eh.e_entry = TEXT;
	eh.e_ehsize = sizeof(eh);
	eh.e_shoff = shoff;
	eh.e_shentsize = sizeof(Elf64_Shdr);
	eh.e_shnum = (uint16_t)nsh;
	eh.e_shstrndx = (uint16_t)(nsh - 1);
	memcpy(b, &eh, sizeof(eh));

	strcpy(f->path, "/tmp/test_an_freq_image.XXXXXX");
	fd = mkstemp(f->path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, b, shoff + nsh * sizeof(Elf64_Shdr)),
			 (ssize_t)(shoff + nsh * sizeof(Elf64_Shdr)));
	close(fd);
}

static void write_raw(struct file *f, const void *p, size_t n)
{
	int fd;

	strcpy(f->path, "/tmp/test_an_freq_image.XXXXXX");
	fd = mkstemp(f->path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, p, n), (ssize_t)n);
	close(fd);
}

static struct an_fi_opts opts(void)
{
	struct an_fi_opts o = { 0 };

	o.period[AN_EV_CYCLES] = 1000;
	return o;
}

static const struct an_proc *proc(struct an_fi_image *im, uint64_t addr)
{
	const struct an_proc *p = an_procs_at(an_fi_procs(im), addr);

	assert_non_null(p);
	return p;
}

/*
 * The loop runs F = 50 times per sampling period: give every instruction F * M_i samples (M_i
 * from the scheduler itself) plus a stall on one issue point; F comes back, the CPI of a clean
 * instruction is M_i, and the stall is dynamic.
 */
static void test_an_freq_image_loop(void **state)
{
	struct an_fi_opts o = opts();
	struct an_fi_image *im;
	struct an_fi_proc *fp;
	struct an_count s[8];
	struct an_stall_summary sum;
	struct ax_error err;
	size_t n = 0;
	uint32_t loop_first = 2, stalled = AN_NONE;

	(void)state;
	struct file f;
	write_elf(&f, false, 0x9026);
	assert_int_equal(an_fi_open(f.path, &im, &err), 0);
	assert_int_equal(an_fi_analyze(im, proc(im, TEXT), &o, &fp, &err), 0);
	assert_true(fp->ninsns == 8);
	/* Samples from the schedule: F = 50 in the loop, one stall of 20 cycles per execution. */
	for (uint32_t i = loop_first; i < loop_first + 4; i++) {
		uint64_t c = 50ull * fp->insn[i].sched.m;

		/* The loop's first fetch group can issue with the block before (its M_i are
		 * unsure, AN_FG_M_UNSURE): stall that one, the later issue points vouch for F. */
		if (fp->insn[i].sched.m && stalled == AN_NONE) {
			stalled = i;
			c += 50 * 20;
		}
		if (c)
			s[n++] = (struct an_count){ fp->insn[i].pc, c };
	}
	an_fi_proc_free(fp);
	assert_true(stalled != AN_NONE);
	assert_int_equal(an_fi_set_samples(im, AN_EV_CYCLES, s, n), 0);
	assert_int_equal(an_fi_analyze(im, proc(im, TEXT), &o, &fp, &err), 0);
	assert_true(fabs(fp->insn[loop_first].cp.f - 50) < 1e-9);
	assert_true(fabs(fp->insn[stalled].cp.dyn - 1000) < 1e-6);
	assert_true(fabs(fp->insn[stalled].cp.cpi - (fp->insn[stalled].sched.m + 20)) < 1e-9);
	assert_true(fp->insn[stalled].cp.cand != 0 || fp->insn[stalled].cp.unexplained > 0);
	an_stall_summary(fp, &sum);
	assert_true(fabs(sum.samples - (sum.exec + sum.stat + sum.dyn)) < 1e-6);
	assert_true(fabs(sum.dyn - 1000) < 1e-6);
	an_fi_proc_free(fp);
	an_fi_close(im);
	unlink(f.path);
}

/*
 * The same loop, entered by falling through from a block that (nearly) never runs: its head
 * starts mid fetch block, so its first group's M_i would depend on that block (M_UNSURE), but
 * the back edge carries every execution, so they are the fresh schedule's. The other issue
 * points all stall 30% (a uniform stall no cluster can see): the first group's clean point
 * joins the estimate once the first one shows the fall-in edge is rare (two points, one
 * stalled by 30%: the cluster takes both).
 */
static void test_an_freq_image_rare_fall_in(void **state)
{
	struct an_fi_opts o = opts();
	struct an_fi_image *im;
	struct an_fi_proc *fp;
	struct an_count s[8];
	struct ax_error err;
	size_t n = 0;
	uint32_t loop_first = 2, head = 0, rest = 0;
	uint64_t head_addr;
	struct file f;

	(void)state;
	write_elf(&f, false, 0x9026);
	assert_int_equal(an_fi_open(f.path, &im, &err), 0);
	assert_int_equal(an_fi_analyze(im, proc(im, TEXT), &o, &fp, &err), 0);
	head_addr = fp->insn[loop_first].pc;
	assert_true(head_addr % 16 != 0); /* the case this test is about */
	for (uint32_t i = loop_first; i < loop_first + 4; i++) {
		uint64_t c = 50ull * fp->insn[i].sched.m;

		if (!fp->insn[i].sched.m)
			continue;
		if (fp->insn[i].pc / 16 == head_addr / 16) {
			head++;
		} else {
			c = 65ull * fp->insn[i].sched.m;
			rest++;
		}
		s[n++] = (struct an_count){ fp->insn[i].pc, c };
	}
	an_fi_proc_free(fp);
	assert_true(head >= 1 && rest >= 1);
	assert_int_equal(an_fi_set_samples(im, AN_EV_CYCLES, s, n), 0);
	assert_int_equal(an_fi_analyze(im, proc(im, TEXT), &o, &fp, &err), 0);
	assert_true(fp->insn[0].cp.f == 0);
	/* the head's point now counts: with it left out, F would be the stalled points' 65 */
	assert_true(fp->insn[loop_first].cp.f >= 50 - 1e-9 && fp->insn[loop_first].cp.f < 60);
	an_fi_proc_free(fp);
	an_fi_close(im);
	unlink(f.path);
}

/*
 * Issue 15 item 3 end to end: h: lda t0,100; L: addt f1,f2,f1; lda t0,-1(t0); bne t0,L; ret.
 * An iteration takes 4 cycles, 3 of them the addt waiting for the last iteration's (FP add
 * latency 4): at F = 50 per period the addt has 150 samples, the bne 50. The loop head has two
 * predecessors; when the back edge carries nearly all of its executions (the entry block has no
 * samples) the analysis schedules it from the back edge: M = 3 for the addt, a static DEP
 * stall on the addt itself, no dynamic stall, F = 50. When the entry edge carries 40% (entry
 * block at F = 20) the fresh schedule stands and the wait is a dynamic stall.
 */
static void test_an_freq_image_loop_carried_latency(void **state)
{
	const uint32_t w[8] = { enc_mem(0x08, 1, 31, 100),
				enc_fpo(0x16, 0x0a0, 1, 2, 1),
				enc_mem(0x08, 1, 1, -1),
				enc_bra(0x3d, 1, 3, 1),
				W_RET,
				W_NOP,
				W_NOP,
				W_NOP };
	const struct mkelf_sym sym = { "h", TEXT, 20, true };
	struct an_fi_opts o = opts();
	struct an_fi_image *im;
	struct an_fi_proc *fp;
	struct ax_error err;
	struct file f;
	int fd;

	(void)state;
	strcpy(f.path, "/tmp/test_an_freq_image.XXXXXX");
	fd = mkstemp(f.path);
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(mkelf_write(f.path, TEXT, w, 8, NULL, 0, 0, &sym, 1), 0);
	assert_int_equal(an_fi_open(f.path, &im, &err), 0);
	for (int hot_entry = 0; hot_entry < 2; hot_entry++) {
		const struct an_count s[3] = { { TEXT, hot_entry ? 20 : 0 },
					       { TEXT + 4, 150 },
					       { TEXT + 12, 50 } };

		assert_int_equal(
			an_fi_set_samples(im, AN_EV_CYCLES, s + !hot_entry, 3 - (size_t)!hot_entry),
			0);
		assert_int_equal(an_fi_analyze(im, proc(im, TEXT), &o, &fp, &err), 0);
		assert_int_equal(fp->cfg->nblocks, 3);
		assert_true(fabs(fp->insn[3].cp.f - 50) < 1e-6);
		if (!hot_entry) {
			assert_int_equal(fp->insn[1].sched.m, 3);
			assert_int_equal(fp->insn[1].sched.reason, AN_STALL_DEP);
			assert_true(fp->insn[1].sched.culprit_pc == TEXT + 4);
			assert_true(fabs(fp->insn[1].cp.f - 50) < 1e-6);
			assert_true(fp->insn[1].cp.dyn < 1e-6);
		} else {
			assert_int_equal(fp->insn[1].sched.m, 1);
			assert_true(fabs(fp->insn[1].cp.dyn - 100) < 1e-6);
		}
		an_fi_proc_free(fp);
	}
	an_fi_close(im);
	unlink(f.path);
}

/*
 * The callee's result (an_culprit.h, AN_CAUSE_CALLEE) when a BSR's callee is a straight-line
 * leaf: c calls l1 (mulq a0,a1,v0 and two dependent adds: 12 cycles less the one cycle to the
 * RET; its sources come from before the call, so no multiply input delay) and l2 (addq a0,a1,v0; ret: 1 cycle). The reader of l1's v0 keeps the cause, the
 * reader of l2's does not (it issues at least a cycle after the return); l3 branches, so the
 * generic bound stays.
 */
static void test_an_freq_image_leaf_callee(void **state)
{
	const uint32_t w[20] = {
		enc_mem(0x08, 30, 30, -16), /* 0 c: lda sp,-16(sp) */
		enc_mem(0x2d, 26, 30, 0), /* 1 stq ra,0(sp) */
		enc_bra(0x34, 26, 2, 8), /* 2 bsr ra,l1 */
		enc_opr(0x10, 0x20, 0, 0, 1), /* 3 addq v0,v0,t0 */
		enc_bra(0x34, 26, 4, 12), /* 4 bsr ra,l2 */
		enc_opr(0x10, 0x20, 0, 0, 2), /* 5 addq v0,v0,t1 */
		enc_bra(0x34, 26, 6, 16), /* 6 bsr ra,l3 */
		enc_opr(0x10, 0x20, 0, 0, 3), /* 7 addq v0,v0,t2 */
		enc_opr(0x13, 0x20, 16, 17, 0), /* 8 l1: mulq a0,a1,v0 (cycle 0) */
		enc_opr(0x10, 0x20, 16, 17, 1), /* 9 addq a0,a1,t0 (cycle 0) */
		enc_opr(0x10, 0x20, 1, 1, 1), /* 10 addq t0,t0,t0 (cycle 1) */
		W_RET, /* 11 (cycle 1) */
		enc_opr(0x10, 0x20, 16, 17, 0), /* 12 l2: addq a0,a1,v0 */
		W_RET, /* 13 */
		W_NOP,
		W_NOP,
		enc_bra(0x39, 16, 16, 18), /* 16 l3: beq a0,18 */
		enc_opr(0x10, 0x20, 16, 17, 0), /* 17 addq a0,a1,v0 */
		W_RET, /* 18 */
		W_NOP,
	};
	const struct mkelf_sym sym[4] = { { "c", TEXT, 32, true },
					  { "l1", TEXT + 32, 16, true },
					  { "l2", TEXT + 48, 16, true },
					  { "l3", TEXT + 64, 16, true } };
	const struct an_count smp[8] = { { TEXT, 100 },	     { TEXT + 4, 100 },	 { TEXT + 8, 100 },
					 { TEXT + 12, 100 }, { TEXT + 16, 100 }, { TEXT + 20, 100 },
					 { TEXT + 24, 100 }, { TEXT + 28, 100 } };
	struct an_fi_opts o = opts();
	struct an_fi_image *im;
	struct an_fi_proc *fp;
	struct ax_error err;
	struct file f;
	int fd;

	(void)state;
	strcpy(f.path, "/tmp/test_an_freq_image.XXXXXX");
	fd = mkstemp(f.path);
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(mkelf_write(f.path, TEXT, w, 20, NULL, 0, 0, sym, 4), 0);
	assert_int_equal(an_fi_open(f.path, &im, &err), 0);
	assert_int_equal(an_fi_set_samples(im, AN_EV_CYCLES, smp, 8), 0);
	assert_int_equal(an_fi_analyze(im, proc(im, TEXT), &o, &fp, &err), 0);
	assert_non_null(fp->callee);
	assert_true(fp->callee[2].known);
	assert_true(fp->callee[2].written == (1ull << 0 | 1ull << 1));
	assert_int_equal(fp->callee[2].wait[0], 11);
	assert_int_equal(fp->callee[2].wait[1], 0);
	assert_true(fp->callee[4].known);
	assert_int_equal(fp->callee[4].wait[0], 1);
	assert_false(fp->callee[6].known);
	assert_false(fp->callee[3].known); /* not a call */
	assert_true(fp->insn[3].cp.cand & (1u << AN_CAUSE_CALLEE));
	assert_int_equal(fp->insn[3].cp.culprit[AN_CAUSE_CALLEE], 2);
	assert_false(fp->insn[5].cp.cand & (1u << AN_CAUSE_CALLEE));
	assert_true(fp->insn[7].cp.cand & (1u << AN_CAUSE_CALLEE));
	an_fi_proc_free(fp);
	an_fi_close(im);
	unlink(f.path);
}

/* An unresolvable JMP: the CFG misses edges, every block and edge its own class; no crash. */
static void test_an_freq_image_unresolved_jump(void **state)
{
	struct an_fi_opts o = opts();
	struct an_fi_image *im;
	struct an_fi_proc *fp;
	struct an_count s[] = { { TEXT + 0x20, 40 }, { TEXT + 0x24, 3 }, { TEXT + 0x28, 9 } };
	struct ax_error err;
	struct file f;

	(void)state;
	write_elf(&f, false, 0x9026);
	assert_int_equal(an_fi_open(f.path, &im, &err), 0);
	assert_int_equal(an_fi_set_samples(im, AN_EV_CYCLES, s, 3), 0);
	assert_int_equal(an_fi_analyze(im, proc(im, TEXT + 0x20), &o, &fp, &err), 0);
	assert_true(fp->cfg->flags & AN_CFG_MISSING_EDGES);
	for (uint32_t i = 0; i < fp->ninsns; i++) {
		assert_true(isfinite(fp->insn[i].cp.f) && fp->insn[i].cp.f >= 0);
		assert_true(isfinite(fp->insn[i].cp.dyn));
	}
	/* The block after the jump can be reached only through it: unknown predecessors. */
	assert_true(fp->insn[2].cp.cand & (1u << AN_CAUSE_BRANCH));
	an_fi_proc_free(fp);
	an_fi_close(im);
	unlink(f.path);
}

/* A stripped image: procedures are found from the code and analysed the same way. */
static void test_an_freq_image_stripped(void **state)
{
	struct an_fi_opts o = opts();
	struct an_fi_image *im;
	struct an_fi_proc *fp;
	struct ax_error err;
	struct file f;

	(void)state;
	write_elf(&f, true, 0x9026);
	assert_int_equal(an_fi_open(f.path, &im, &err), 0);
	assert_true(an_fi_procs(im)->n >= 1);
	for (size_t k = 0; k < an_fi_procs(im)->n; k++) {
		assert_true(an_fi_procs(im)->v[k].flags & AN_PROC_GUESSED);
		assert_int_equal(an_fi_analyze(im, &an_fi_procs(im)->v[k], &o, &fp, &err), 0);
		assert_true(strncmp(fp->name, "proc_", 5) == 0);
		an_fi_proc_free(fp);
	}
	an_fi_close(im);
	unlink(f.path);
}

/* No samples at all: estimates are 0, nothing is NaN, the summary prints zeros. */
static void test_an_freq_image_no_samples(void **state)
{
	struct an_fi_opts o = opts();
	struct an_fi_image *im;
	struct an_fi_proc *fp;
	struct an_stall_summary sum;
	struct ax_error err;
	char *buf = NULL;
	size_t len = 0;
	struct file f;
	FILE *out;

	(void)state;
	write_elf(&f, false, 0x9026);
	assert_int_equal(an_fi_open(f.path, &im, &err), 0);
	assert_int_equal(an_fi_analyze(im, proc(im, TEXT), &o, &fp, &err), 0);
	for (uint32_t i = 0; i < fp->ninsns; i++)
		assert_true(fp->insn[i].cp.f == 0 && fp->insn[i].cp.cpi == 0);
	an_stall_summary(fp, &sum);
	assert_true(sum.samples == 0);
	out = open_memstream(&buf, &len);
	assert_non_null(out);
	an_stall_summary_print(out, "f", &sum);
	fclose(out);
	assert_null(strstr(buf, "nan"));
	assert_non_null(strstr(buf, "f: 0 samples"));
	free(buf);
	an_fi_proc_free(fp);

	/* No CYCLES period: refused with a message. */
	o.period[AN_EV_CYCLES] = 0;
	assert_int_equal(an_fi_analyze(im, proc(im, TEXT), &o, &fp, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "period"));
	an_fi_close(im);
	unlink(f.path);
}

/* Files that are not Alpha images: clear errors naming the file. */
static void test_an_freq_image_bad_files(void **state)
{
	static const char not_elf[] = "this is not an ELF file\n";
	struct an_fi_image *im;
	struct file f;
	struct ax_error err;
	uint8_t junk[80];
	int ret;

	(void)state;
	assert_int_equal(an_fi_open("/nonexistent/axprof-test", &im, &err), -ENOENT);
	assert_null(im);

	write_raw(&f, not_elf, sizeof(not_elf));
	ret = an_fi_open(f.path, &im, &err);
	assert_int_equal(ret, -ENOEXEC);
	assert_non_null(strstr(err.msg, f.path));
	unlink(f.path);

	write_elf(&f, false, EM_X86_64); /* an x86-64 ELF: img_open's message, naming the file */
	ret = an_fi_open(f.path, &im, &err);
	assert_int_equal(ret, -ENOEXEC);
	assert_int_equal(err.code, -ENOEXEC);
	assert_non_null(strstr(err.msg, f.path));
	assert_non_null(strstr(err.msg, "not an Alpha file"));
	unlink(f.path);

	memset(junk, 0, sizeof(junk)); /* truncated: an ELF header and nothing after */
	memcpy(junk, ELFMAG, SELFMAG);
	junk[EI_CLASS] = ELFCLASS64;
	junk[EI_DATA] = ELFDATA2LSB;
	junk[EI_VERSION] = EV_CURRENT;
	junk[16] = ET_EXEC;
	junk[18] = 0x26;
	junk[19] = 0x90;
	junk[0x3c] = 9; /* e_shnum far beyond the file */
	write_raw(&f, junk, 64);
	ret = an_fi_open(f.path, &im, &err);
	assert_true(ret == -EBADMSG || ret == -ENOEXEC);
	assert_int_equal(err.code, ret);
	assert_non_null(strstr(err.msg, f.path));
	if (ret == -EBADMSG)
		assert_true(err.line > 0); /* AX_CORRUPT: the line of the failed check */
	unlink(f.path);
}

/* Samples out of order are refused; an_stall_procs summarises each sampled procedure. */
static void test_an_freq_image_report(void **state)
{
	struct an_count bad[] = { { TEXT + 8, 5 }, { TEXT + 4, 5 } };
	struct an_fi_opts o = { .period = { 1000 } };
	struct an_stall_proc *v = (void *)1;
	struct an_fi_image *im;
	struct an_count good[4];
	size_t n = 9, skipped = 9;
	struct ax_error err;
	struct file f;
	const struct an_stall_summary *s;

	(void)state;
	write_elf(&f, false, 0x9026);
	assert_int_equal(an_fi_open(f.path, &im, &err), 0);
	assert_int_equal(an_fi_set_samples(im, AN_EV_CYCLES, bad, 2), -EINVAL);
	assert_int_equal(an_fi_set_samples(im, AN_EV_NR, bad, 1), -EINVAL);
	an_fi_close(im);

	for (unsigned int i = 0; i < 4; i++)
		good[i] = (struct an_count){ TEXT + 8 + 4 * i, 100 };
	assert_int_equal(an_fi_open(f.path, &im, &err), 0);
	assert_int_equal(an_fi_set_samples(im, AN_EV_CYCLES, good, 4), 0);
	assert_int_equal(an_stall_procs(im, &o, &v, &n, &skipped), 0);
	an_fi_close(im);
	assert_int_equal(n, 1);
	assert_int_equal(skipped, 0);
	assert_string_equal(v[0].name, "f");
	s = &v[0].s;
	assert_true(s->samples == 400);
	assert_true(s->period == 1000);
	/* The split adds up: execution + static + dynamic = samples, causes + unexplained = dynamic. */
	assert_true(fabs(s->exec + s->stat + s->dyn - s->samples) < 1e-6);
	{
		double split = s->unexplained;

		for (unsigned int c = 0; c < AN_CAUSE_NR; c++) {
			assert_true(s->lo[c] <= s->share[c] + 1e-9 &&
				    s->share[c] <= s->hi[c] + 1e-9);
			split += s->share[c];
		}
		assert_true(fabs(split - s->dyn) < 1e-6);
	}
	free(v);
	unlink(f.path);
}

/* The tools library's adapter: a database profile's samples reach the analysis; errors name. */
static void test_tl_prof_stall_procs(void **state)
{
	struct an_fi_opts o = { .period = { 1000 } };
	struct an_stall_proc *v = (void *)1;
	size_t n = 9, skipped = 9;
	struct pdb_prof *prof;
	struct ax_error err;
	struct file f;

	(void)state;
	write_elf(&f, false, 0x9026);
	prof = pdb_prof_new();
	assert_non_null(prof);
	for (uint64_t a = TEXT + 8; a < TEXT + 0x18; a += 4)
		assert_int_equal(pdb_prof_add_sample(prof, PDB_EV_CYCLES, a, 100), 0);
	assert_int_equal(pdb_prof_add_sample(prof, PDB_EV_IMISS, TEXT + 8, 7), 0);
	assert_int_equal(tl_stall_procs(f.path, prof, &o, &v, &n, &skipped, &err), 0);
	assert_int_equal(n, 1);
	assert_string_equal(v[0].name, "f");
	assert_true(v[0].s.samples == 400);
	free(v);
	assert_int_equal(tl_pdb_event(AN_EV_IMISS), PDB_EV_IMISS);
	assert_int_equal(tl_pdb_event(AN_EV_BRANCHMP), PDB_EV_BRANCHMP);
	assert_int_equal(tl_pdb_event(AN_EV_NR), PDB_EV_MAX);
	v = (void *)1;
	assert_int_equal(tl_stall_procs("/nonexistent/x", prof, &o, &v, &n, &skipped, &err),
			 -ENOENT);
	assert_null(v);
	assert_int_equal(n, 0);
	assert_non_null(strstr(err.msg, "/nonexistent/x"));
	pdb_prof_free(prof);
	unlink(f.path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_an_freq_image_loop),
		cmocka_unit_test(test_an_freq_image_loop_carried_latency),
		cmocka_unit_test(test_an_freq_image_rare_fall_in),
		cmocka_unit_test(test_an_freq_image_leaf_callee),
		cmocka_unit_test(test_an_freq_image_unresolved_jump),
		cmocka_unit_test(test_an_freq_image_stripped),
		cmocka_unit_test(test_an_freq_image_no_samples),
		cmocka_unit_test(test_an_freq_image_bad_files),
		cmocka_unit_test(test_an_freq_image_report),
		cmocka_unit_test(test_tl_prof_stall_procs),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
