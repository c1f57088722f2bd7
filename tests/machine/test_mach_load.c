/* tests/machine/test_mach_load.c - unit tests of the ELF loader and initial stack (mach_load.c). */
#include <elf.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include <cmocka.h>

#include "mach_int.h"

#define SYSROOT "/usr/alpha-linux-gnu"

struct fixture {
	struct mach *m;
	char path[64];
	struct ax_error err;
};

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));
	struct mach_opts o = { .sysroot = SYSROOT };

	if (!f || mach_new(&f->m, &o))
		return -1;
	snprintf(f->path, sizeof(f->path), "/tmp/test_mach_load.%d", (int)getpid());
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	mach_free(f->m);
	unlink(f->path);
	free(f);
	return 0;
}

/*
 * A minimal Alpha ELF: headers and 64 bytes of "code" in one R+X PT_LOAD at `vaddr`, a RW
 * PT_LOAD with 16 file bytes and a 20000-byte bss one page later, and optionally PT_INTERP.
 */
static void write_elf(const char *path, uint16_t type, uint16_t machine, uint64_t vaddr,
		      const char *interp)
{
	unsigned char buf[3 * 8192];
	Elf64_Ehdr *eh = (Elf64_Ehdr *)buf;
	Elf64_Phdr *ph = (Elf64_Phdr *)(buf + sizeof(*eh));
	unsigned int n = 0;
	FILE *fp;

	memset(buf, 0, sizeof(buf));
	memcpy(eh->e_ident, ELFMAG, SELFMAG);
	eh->e_ident[EI_CLASS] = ELFCLASS64;
	eh->e_ident[EI_DATA] = ELFDATA2LSB;
	eh->e_ident[EI_VERSION] = EV_CURRENT;
	eh->e_type = type;
	eh->e_machine = machine;
	eh->e_version = EV_CURRENT;
	eh->e_entry = vaddr + 0x200;
	eh->e_phoff = sizeof(*eh);
	eh->e_ehsize = sizeof(*eh);
	eh->e_phentsize = sizeof(*ph);
	if (interp) {
		ph[n].p_type = PT_INTERP;
		ph[n].p_offset = 0x300;
		ph[n].p_vaddr = vaddr + 0x300;
		ph[n].p_filesz = ph[n].p_memsz = strlen(interp) + 1;
		ph[n].p_flags = PF_R;
		memcpy(buf + 0x300, interp, strlen(interp) + 1);
		n++;
	}
	ph[n].p_type = PT_LOAD;
	ph[n].p_offset = 0;
	ph[n].p_vaddr = vaddr;
	ph[n].p_filesz = ph[n].p_memsz = 0x400;
	ph[n].p_flags = PF_R | PF_X;
	ph[n].p_align = 0x10000;
	n++;
	ph[n].p_type = PT_LOAD;
	ph[n].p_offset = 0x2010;
	ph[n].p_vaddr = vaddr + 0x10000 + 0x2010;
	ph[n].p_filesz = 16;
	ph[n].p_memsz = 20000;
	ph[n].p_flags = PF_R | PF_W;
	ph[n].p_align = 0x10000;
	n++;
	eh->e_phnum = (uint16_t)n;
	memset(buf + 0x2010, 0x5a, 16);
	memset(buf + 0x2020, 0x77, 64); /* file bytes after filesz: must read as zero (padzero) */
	fp = fopen(path, "wb");
	assert_non_null(fp);
	assert_int_equal(fwrite(buf, 1, sizeof(buf), fp), sizeof(buf));
	fclose(fp);
}

static uint64_t rd64(struct mach *m, uint64_t va)
{
	uint64_t v = 0;

	assert_int_equal(mach_mem_read(m->mem, va, &v, 8), 0);
	return v;
}

static const char *rdstr(struct mach *m, uint64_t va)
{
	const char *s = NULL;

	assert_int_equal(mach_mem_str(m->mem, va, 4096, &s), 0);
	return s;
}

static void test_mach_load_static_exec_stack_layout(void **state)
{
	struct fixture *f = *state;
	char *argv[] = { f->path, (char *)"one", (char *)"two", NULL };
	char *envp[] = { (char *)"A=1", (char *)"BB=22", NULL };
	static const uint64_t want_types[] = {
		34,	   35,	      36,	   37,	     AT_HWCAP, AT_PAGESZ,
		AT_CLKTCK, AT_PHDR,   AT_PHENT,	   AT_PHNUM, AT_BASE,  AT_FLAGS,
		AT_ENTRY,  AT_UID,    AT_EUID,	   AT_GID,   AT_EGID,  AT_SECURE,
		AT_RANDOM, AT_EXECFN, AT_PLATFORM, AT_NULL,
	};
	struct mach_load_info li;
	struct mach *m = f->m;
	uint64_t sp, a, p, aux[64][2], v;
	size_t n = 0;

	write_elf(f->path, ET_EXEC, EM_ALPHA, 0x120000000ull, NULL);
	assert_int_equal(mach_load(m, f->path, argv, envp, &li, &f->err), 0);
	sp = li.sp;
	assert_int_equal(sp & 15, 0);
	assert_int_equal(m->ctx.r[30], sp);
	assert_int_equal(m->ctx.pc, 0x120000200ull);
	assert_int_equal(m->ctx.r[0], 0);
	assert_int_equal(m->ctx.fpcr, 0x680e800000000000ull); /* flush_thread(): swcr 0 */
	assert_int_equal(li.interp_base, 0);

	assert_int_equal(rd64(m, sp), 3);
	assert_string_equal(rdstr(m, rd64(m, sp + 8)), f->path);
	assert_string_equal(rdstr(m, rd64(m, sp + 16)), "one");
	assert_string_equal(rdstr(m, rd64(m, sp + 24)), "two");
	assert_int_equal(rd64(m, sp + 32), 0);
	assert_string_equal(rdstr(m, rd64(m, sp + 40)), "A=1");
	assert_string_equal(rdstr(m, rd64(m, sp + 48)), "BB=22");
	assert_int_equal(rd64(m, sp + 56), 0);
	/* Strings packed upwards in order: argv, envp, then the file name below the top word. */
	assert_int_equal(rd64(m, sp + 16), rd64(m, sp + 8) + strlen(f->path) + 1);
	assert_int_equal(rd64(m, sp + 40), rd64(m, sp + 24) + 4);
	assert_int_equal(rd64(m, sp + 48), rd64(m, sp + 40) + 4);
	assert_int_equal(li.execfn, MACH_STACK_TOP - 8 - (strlen(f->path) + 1));
	assert_int_equal(rd64(m, MACH_STACK_TOP - 8), 0);

	for (a = sp + 64;; a += 16) {
		aux[n][0] = rd64(m, a);
		aux[n][1] = rd64(m, a + 8);
		if (aux[n++][0] == AT_NULL)
			break;
		assert_true(n < 64);
	}
	assert_int_equal(n, sizeof(want_types) / sizeof(want_types[0]));
	for (size_t i = 0; i < n; i++) {
		uint64_t t = aux[i][0];

		assert_int_equal(t, want_types[i]);
		v = aux[i][1];
		if (t == AT_PAGESZ)
			assert_int_equal(v, 8192);
		if (t == AT_CLKTCK)
			assert_int_equal(v, 100);
		if (t == AT_PHDR)
			assert_int_equal(v, 0x120000000ull + sizeof(Elf64_Ehdr));
		if (t == AT_PHENT)
			assert_int_equal(v, sizeof(Elf64_Phdr));
		if (t == AT_PHNUM)
			assert_int_equal(v, 2);
		if (t == AT_ENTRY)
			assert_int_equal(v, 0x120000200ull);
		if (t == AT_UID)
			assert_int_equal(v, getuid());
		if (t == AT_EXECFN)
			assert_string_equal(rdstr(m, v), f->path);
		if (t == AT_PLATFORM) /* ELF_PLATFORM for IMPLVER 2 with CIX */
			assert_string_equal(rdstr(m, v), "ev67");
		if (t == AT_HWCAP) /* ~amask(-1): qemu-alpha's EV67 features */
			assert_int_equal(v, AXP_AMASK_EV67);
		if (t == AT_RANDOM) {
			assert_int_equal(v, li.random);
			assert_true(mach_mem_range_ok(m->mem, v, 16, MACH_PROT_R));
		}
		if (t == 34) /* 8 KB direct-mapped, 32-byte lines */
			assert_int_equal(v, 0x2051);
	}
	/* Segments: data bytes, padzero after filesz, bss, brk right after the bss. */
	p = 0x120012010ull;
	assert_int_equal(rd64(m, p), 0x5a5a5a5a5a5a5a5aull);
	assert_int_equal(rd64(m, p + 16), 0);
	assert_int_equal(rd64(m, p + 19992), 0);
	assert_int_equal(li.brk, (p + 20000 + 8191) & ~8191ull);
	assert_int_equal(mach_mem_brk(m->mem, 0), li.brk);
	assert_true(mach_mem_page(m->mem, 0x120000200ull) & MACH_PROT_X);
	assert_false(mach_mem_page(m->mem, p) & MACH_PROT_X);
	assert_true(mach_mem_page(m->mem, p) & MACH_PROT_W);
	/* The 8 MB stack below STACK_TOP. */
	assert_true(mach_mem_range_ok(m->mem, MACH_STACK_TOP - MACH_STACK_SIZE, MACH_STACK_SIZE,
				      MACH_PROT_R | MACH_PROT_W));
}

static void test_mach_load_pie_goes_to_et_dyn_base(void **state)
{
	struct fixture *f = *state;
	char *argv[] = { f->path, NULL };
	struct mach_load_info li;

	write_elf(f->path, ET_DYN, EM_ALPHA, 0, NULL);
	assert_int_equal(mach_load(f->m, f->path, argv, NULL, &li, &f->err), 0);
	assert_int_equal(li.load_bias, MACH_ET_DYN_BASE);
	assert_int_equal(li.entry, MACH_ET_DYN_BASE + 0x200);
	assert_int_equal(li.phdr, MACH_ET_DYN_BASE + sizeof(Elf64_Ehdr));
}

static void test_mach_load_dynamic_maps_interpreter_from_sysroot(void **state)
{
	struct fixture *f = *state;
	char *argv[] = { f->path, NULL };
	struct mach_load_info li;
	Elf64_Ehdr eh;
	FILE *fp = fopen(SYSROOT "/lib/ld-linux.so.2", "rb");

	if (!fp)
		skip();
	assert_int_equal(fread(&eh, sizeof(eh), 1, fp), 1);
	fclose(fp);
	write_elf(f->path, ET_EXEC, EM_ALPHA, 0x120000000ull, "/lib/ld-linux.so.2");
	assert_int_equal(mach_load(f->m, f->path, argv, NULL, &li, &f->err), 0);
	assert_int_equal(li.interp_base, MACH_UNMAPPED_BASE);
	assert_int_equal(li.entry, MACH_UNMAPPED_BASE + eh.e_entry);
	assert_int_equal(f->m->ctx.pc, li.entry);
	assert_int_equal(li.prog_entry, 0x120000200ull);
}

static void test_mach_load_bad_inputs_are_named(void **state)
{
	struct fixture *f = *state;
	char *argv[] = { f->path, NULL };
	struct mach_load_info li;
	FILE *fp;

	assert_int_equal(mach_load(f->m, "/nonexistent/prog", argv, NULL, &li, &f->err), -ENOENT);
	assert_string_equal(f->err.msg, "/nonexistent/prog: No such file or directory");
	assert_int_equal(f->err.code, -ENOENT);
	assert_int_equal(mach_load(f->m, "/nonexistent/prog", argv, NULL, &li, NULL), -ENOENT);

	fp = fopen(f->path, "w");
	assert_non_null(fp);
	fputs("#!/bin/sh\necho not elf\n", fp);
	fclose(fp);
	assert_int_equal(mach_load(f->m, f->path, argv, NULL, &li, &f->err), -ENOEXEC);
	assert_non_null(strstr(f->err.msg, "not an ELF file"));
	assert_non_null(strstr(f->err.msg, f->path));
	assert_int_equal(f->err.code, -ENOEXEC);

	write_elf(f->path, ET_EXEC, EM_X86_64, 0x400000, NULL);
	assert_int_equal(mach_load(f->m, f->path, argv, NULL, &li, &f->err), -ENOEXEC);
	assert_non_null(strstr(f->err.msg, "not an Alpha program"));

	write_elf(f->path, ET_REL, EM_ALPHA, 0, NULL);
	assert_int_equal(mach_load(f->m, f->path, argv, NULL, &li, &f->err), -ENOEXEC);

	write_elf(f->path, ET_EXEC, EM_ALPHA, 0x120000000ull, "/lib/no-such-ld.so");
	assert_int_equal(mach_load(f->m, f->path, argv, NULL, &li, &f->err), -ENOENT);
	assert_non_null(strstr(f->err.msg, "interpreter /lib/no-such-ld.so not found"));
}

/* Overwrite field `field` (a byte offset in Elf64_Phdr) of program header i of f->path. */
static void patch_phdr(struct fixture *f, unsigned int i, size_t field, uint64_t v)
{
	FILE *fp = fopen(f->path, "r+b");

	assert_non_null(fp);
	assert_int_equal(
		fseek(fp, (long)(sizeof(Elf64_Ehdr) + i * sizeof(Elf64_Phdr) + field), SEEK_SET),
		0);
	assert_int_equal(fwrite(&v, 8, 1, fp), 1);
	fclose(fp);
}

/* mach_load() of f->path fails with -ENOEXEC and a message naming the file and saying `what`. */
static void assert_rejected(struct fixture *f, const char *what)
{
	char *argv[] = { f->path, NULL };
	struct mach_load_info li;
	struct mach *m;
	struct mach_opts o = { .sysroot = SYSROOT };

	assert_int_equal(mach_new(&m, &o), 0);
	assert_int_equal(mach_load(m, f->path, argv, NULL, &li, &f->err), -ENOEXEC);
	assert_int_equal(f->err.code, -ENOEXEC);
	mach_free(m);
	if (!strstr(f->err.msg, f->path) || !strstr(f->err.msg, what))
		fail_msg("message \"%s\" lacks the file or \"%s\"", f->err.msg, what);
}

static void test_mach_load_segments_checked_against_the_file(void **state)
{
	struct fixture *f = *state;
	char *argv[] = { f->path, (char *)"one", NULL };
	struct mach_load_info li;
	char args[128];

	/* Cut inside the RW segment's 16 file bytes (0x2010..0x2020): rejected. */
	write_elf(f->path, ET_EXEC, EM_ALPHA, 0x120000000ull, NULL);
	assert_int_equal(truncate(f->path, 0x2010 + 15), 0);
	assert_rejected(f,
			"truncated or corrupt: PT_LOAD segment 1 needs file bytes 0x2010-0x2020");
	/* Cut in the text segment and inside the program headers. */
	assert_int_equal(truncate(f->path, 0x3ff), 0);
	assert_rejected(f, "PT_LOAD segment 0");
	assert_int_equal(truncate(f->path, sizeof(Elf64_Ehdr) + 60), 0);
	assert_rejected(f, "program headers past the end of the file");
	/* An offset that wraps around, more file than memory, an alignment that is not a power of
	 * two or that the address and offset disagree on. */
	write_elf(f->path, ET_EXEC, EM_ALPHA, 0x120000000ull, NULL);
	patch_phdr(f, 1, offsetof(Elf64_Phdr, p_offset), UINT64_MAX - 7);
	assert_rejected(f, "truncated or corrupt");
	write_elf(f->path, ET_EXEC, EM_ALPHA, 0x120000000ull, NULL);
	patch_phdr(f, 1, offsetof(Elf64_Phdr, p_memsz), 8);
	assert_rejected(f, "bad PT_LOAD segment 1");
	write_elf(f->path, ET_EXEC, EM_ALPHA, 0x120000000ull, NULL);
	patch_phdr(f, 1, offsetof(Elf64_Phdr, p_align), 0x3000);
	assert_rejected(f, "alignment 0x3000");
	write_elf(f->path, ET_EXEC, EM_ALPHA, 0x120000000ull, NULL);
	patch_phdr(f, 1, offsetof(Elf64_Phdr, p_vaddr), 0x120012010ull + 0x4000);
	assert_rejected(f, "do not agree");

	/* Cut right after the last segment's file bytes: loads, and the arguments are where
	 * /proc/self/cmdline reads them. */
	write_elf(f->path, ET_EXEC, EM_ALPHA, 0x120000000ull, NULL);
	assert_int_equal(truncate(f->path, 0x2020), 0);
	assert_int_equal(mach_load(f->m, f->path, argv, NULL, &li, &f->err), 0);
	assert_int_equal(f->m->arg_end - f->m->arg_start, strlen(f->path) + 5);
	assert_int_equal(
		mach_mem_read(f->m->mem, f->m->arg_start, args, f->m->arg_end - f->m->arg_start),
		0);
	assert_string_equal(args, f->path);
	assert_string_equal(args + strlen(f->path) + 1, "one");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_mach_load_static_exec_stack_layout, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_mach_load_pie_goes_to_et_dyn_base, setup,
						teardown),
		cmocka_unit_test_setup_teardown(
			test_mach_load_dynamic_maps_interpreter_from_sysroot, setup, teardown),
		cmocka_unit_test_setup_teardown(test_mach_load_bad_inputs_are_named, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_mach_load_segments_checked_against_the_file,
						setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
