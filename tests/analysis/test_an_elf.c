/* tests/analysis/test_an_elf.c - Alpha ELF reading (an_elf) and the objdump listing (an_listing). */
#include <elf.h>
#include <errno.h>
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "an_elf.h"
#include "an_listing.h"

/*
 * A small Alpha ELF image built here, byte by byte, so the tests need no toolchain:
 *   [1] .text  AX   f (global function, 8 bytes), g (local function, 8 bytes)
 *   [2] .data  WA   obj (object)
 *   [3] .symtab [4] .strtab [5] .shstrtab
 */
static const uint32_t text_words[] = {
	0x23defff0, /* f:  lda sp,-16(sp) */
	0xd35ffffe, /*     bsr ra,f */
	0x6bfa8001, /* g:  ret */
	0x47ff041f, /*     nop */
};

struct image {
	uint8_t b[4096];
	size_t len;
	size_t shoff;
	size_t text_off;
	size_t symtab_off;
};

static void put(struct image *im, size_t off, const void *p, size_t n)
{
	memcpy(im->b + off, p, n);
	if (off + n > im->len)
		im->len = off + n;
}

static size_t align8(size_t v)
{
	return (v + 7) & ~(size_t)7;
}

static void build(struct image *im, uint16_t type, uint64_t text_addr)
{
	static const char strtab[] = "\0f\0g\0obj";
	static const char shstr[] = "\0.text\0.data\0.symtab\0.strtab\0.shstrtab";
	Elf64_Ehdr eh = { 0 };
	Elf64_Sym syms[4] = { 0 };
	Elf64_Shdr sh[6] = { 0 };
	size_t off = sizeof(eh), data_off, str_off, shstr_off;
	uint64_t data_word = 0x1122334455667788ull;

	memset(im, 0, sizeof(*im));
	im->text_off = off;
	for (size_t i = 0; i < 4; i++) {
		uint8_t w[4] = { (uint8_t)text_words[i], (uint8_t)(text_words[i] >> 8),
				 (uint8_t)(text_words[i] >> 16), (uint8_t)(text_words[i] >> 24) };

		put(im, off + 4 * i, w, 4);
	}
	off += sizeof(text_words);
	data_off = align8(off);
	put(im, data_off, &data_word, 8);
	off = data_off + 8;

	syms[1] = (Elf64_Sym){ .st_name = 3,
			       .st_info = ELF64_ST_INFO(STB_LOCAL, STT_FUNC),
			       .st_shndx = 1,
			       .st_value = text_addr + 8,
			       .st_size = 8 };
	syms[2] = (Elf64_Sym){ .st_name = 1,
			       .st_info = ELF64_ST_INFO(STB_GLOBAL, STT_FUNC),
			       .st_shndx = 1,
			       .st_value = text_addr,
			       .st_size = 8 };
	syms[3] = (Elf64_Sym){ .st_name = 5,
			       .st_info = ELF64_ST_INFO(STB_GLOBAL, STT_OBJECT),
			       .st_shndx = 2,
			       .st_value = text_addr + 0x100,
			       .st_size = 8 };
	im->symtab_off = align8(off);
	put(im, im->symtab_off, syms, sizeof(syms));
	off = im->symtab_off + sizeof(syms);
	str_off = off;
	put(im, str_off, strtab, sizeof(strtab));
	off += sizeof(strtab);
	shstr_off = off;
	put(im, shstr_off, shstr, sizeof(shstr));
	off += sizeof(shstr);
	im->shoff = align8(off);

	sh[1] = (Elf64_Shdr){ .sh_name = 1,
			      .sh_type = SHT_PROGBITS,
			      .sh_flags = SHF_ALLOC | SHF_EXECINSTR,
			      .sh_addr = text_addr,
			      .sh_offset = im->text_off,
			      .sh_size = sizeof(text_words),
			      .sh_addralign = 16 };
	sh[2] = (Elf64_Shdr){ .sh_name = 7,
			      .sh_type = SHT_PROGBITS,
			      .sh_flags = SHF_ALLOC | SHF_WRITE,
			      .sh_addr = text_addr + 0x100,
			      .sh_offset = data_off,
			      .sh_size = 8,
			      .sh_addralign = 8 };
	sh[3] = (Elf64_Shdr){ .sh_name = 13,
			      .sh_type = SHT_SYMTAB,
			      .sh_offset = im->symtab_off,
			      .sh_size = sizeof(syms),
			      .sh_link = 4,
			      .sh_info = 2,
			      .sh_addralign = 8,
			      .sh_entsize = sizeof(Elf64_Sym) };
	sh[4] = (Elf64_Shdr){ .sh_name = 21,
			      .sh_type = SHT_STRTAB,
			      .sh_offset = str_off,
			      .sh_size = sizeof(strtab),
			      .sh_addralign = 1 };
	sh[5] = (Elf64_Shdr){ .sh_name = 29,
			      .sh_type = SHT_STRTAB,
			      .sh_offset = shstr_off,
			      .sh_size = sizeof(shstr),
			      .sh_addralign = 1 };
	if (type == ET_REL) {
		sh[1].sh_addr = 0;
		sh[2].sh_addr = 0;
		syms[1].st_value = 8;
		syms[2].st_value = 0;
		syms[3].st_value = 0;
		put(im, im->symtab_off, syms, sizeof(syms));
	}
	put(im, im->shoff, sh, sizeof(sh));

	memcpy(eh.e_ident, ELFMAG, SELFMAG);
	eh.e_ident[EI_CLASS] = ELFCLASS64;
	eh.e_ident[EI_DATA] = ELFDATA2LSB;
	eh.e_ident[EI_VERSION] = EV_CURRENT;
	eh.e_type = type;
	eh.e_machine = EM_ALPHA;
	eh.e_version = EV_CURRENT;
	eh.e_entry = type == ET_REL ? 0 : text_addr;
	eh.e_ehsize = sizeof(eh);
	eh.e_shoff = im->shoff;
	eh.e_shentsize = sizeof(Elf64_Shdr);
	eh.e_shnum = 6;
	eh.e_shstrndx = 5;
	put(im, 0, &eh, sizeof(eh));
}

static char tmpdir[64];

static int setup(void **state)
{
	(void)state;
	strcpy(tmpdir, "/tmp/test_an_elf.XXXXXX");
	return mkdtemp(tmpdir) ? 0 : -1;
}

static int teardown(void **state)
{
	char cmd[128];

	(void)state;
	if (getenv("AN_ELF_TEST_KEEP")) { /* keep the images, e.g. to run objdump on them */
		print_message("images kept in %s\n", tmpdir);
		return 0;
	}
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	return system(cmd) == 0 ? 0 : -1;
}

static const char *write_file(const char *name, const void *p, size_t n)
{
	static char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", tmpdir, name);
	f = fopen(path, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(p, 1, n, f), n);
	assert_int_equal(fclose(f), 0);
	return path;
}

static struct an_elf *open_image(const struct image *im, const char *name)
{
	struct an_elf *e = NULL;
	char err[256] = "";
	int ret = an_elf_open(write_file(name, im->b, im->len), &e, err, sizeof(err));

	if (ret)
		fail_msg("an_elf_open: %d %s", ret, err);
	return e;
}

static void test_an_elf_open_reads_sections_and_symbols(void **state)
{
	struct image im;
	struct an_elf *e;
	const struct an_elf_section *t;

	(void)state;
	build(&im, ET_DYN, 0x10000);
	e = open_image(&im, "dyn.so");
	assert_int_equal(an_elf_type(e), ET_DYN);
	assert_int_equal(an_elf_nsections(e), 5);
	t = an_elf_section_by_name(e, ".text");
	assert_non_null(t);
	assert_int_equal(t->addr, 0x10000);
	assert_int_equal(t->size, 16);
	assert_true(an_elf_section_is_code(t));
	assert_false(an_elf_section_is_code(an_elf_section_by_name(e, ".data")));
	assert_int_equal(an_elf_ncode_sections(e), 1);
	assert_ptr_equal(an_elf_section_at(e, 0x1000c), t);
	assert_null(an_elf_section_at(e, 0x20000));
	assert_true(an_elf_has_symtab(e));
	assert_int_equal(an_elf_nsymbols(e), 3);
	assert_string_equal(an_elf_symbol(e, 0)->name, "g");
	assert_int_equal(an_elf_symbol(e, 0)->bind, STB_LOCAL);
	assert_null(an_elf_symbol(e, 0)->version);
	assert_string_equal(an_elf_symbol(e, 2)->name, "obj");
	assert_int_equal(an_elf_symbol(e, 2)->value, 0x10100);
	an_elf_close(e);
}

static void test_an_elf_functions_sorted_and_found(void **state)
{
	struct image im;
	struct an_elf *e;
	uint32_t w = 0;

	(void)state;
	build(&im, ET_DYN, 0x10000);
	e = open_image(&im, "funcs.so");
	assert_int_equal(an_elf_nfunctions(e), 2);
	assert_string_equal(an_elf_function(e, 0)->name, "f");
	assert_string_equal(an_elf_function(e, 1)->name, "g");
	assert_string_equal(an_elf_function_at(e, 0x10004)->name, "f");
	assert_string_equal(an_elf_function_at(e, 0x10008)->name, "g");
	assert_string_equal(an_elf_function_at(e, 0x1000c)->name, "g");
	assert_null(an_elf_function_at(e, 0x10010)); /* past g's size */
	assert_null(an_elf_function_at(e, 0xfffc));
	assert_int_equal(an_elf_read32(e, 0x10004, &w), 0);
	assert_int_equal(w, 0xd35ffffe);
	assert_int_equal(an_elf_read32(e, 0x1000e, &w), -EFAULT); /* runs off the section */
	assert_int_equal(an_elf_read32(e, 0x30000, &w), -EFAULT);
	an_elf_close(e);
}

/* In a relocatable object a symbol's address is its section's address plus st_value. */
static void test_an_elf_rel_symbols_are_section_relative(void **state)
{
	struct image im;
	struct an_elf *e;

	(void)state;
	build(&im, ET_REL, 0);
	e = open_image(&im, "rel.o");
	assert_int_equal(an_elf_type(e), ET_REL);
	assert_int_equal(an_elf_symbol(e, 0)->value, 8);
	assert_int_equal(an_elf_symbol(e, 0)->shndx, 1);
	an_elf_close(e);
}

static int open_err(const void *p, size_t n, const char *name, char *err, size_t len)
{
	struct an_elf *e = (struct an_elf *)1;
	int ret = an_elf_open(write_file(name, p, n), &e, err, len);

	assert_null(e);
	return ret;
}

static void test_an_elf_rejects_bad_files(void **state)
{
	struct image im;
	char err[256];
	struct an_elf *e;

	(void)state;
	assert_int_equal(an_elf_open("/nonexistent/x.o", &e, err, sizeof(err)), -ENOENT);
	assert_non_null(strstr(err, "/nonexistent/x.o: cannot open"));
	assert_int_equal(open_err("hello", 5, "text", err, sizeof(err)), -ENOEXEC);
	assert_non_null(strstr(err, "not an ELF file"));
	assert_int_equal(open_err("", 0, "empty", err, sizeof(err)), -ENOEXEC);

	build(&im, ET_DYN, 0x10000);
	im.b[18] = EM_X86_64; /* e_machine */
	im.b[19] = 0;
	assert_int_equal(open_err(im.b, im.len, "x86", err, sizeof(err)), -ENOEXEC);
	assert_non_null(strstr(err, "not an Alpha file: machine 0x3e is x86-64"));

	build(&im, ET_DYN, 0x10000);
	im.b[EI_CLASS] = ELFCLASS32;
	assert_int_equal(open_err(im.b, im.len, "elf32", err, sizeof(err)), -ENOEXEC);

	build(&im, ET_DYN, 0x10000);
	assert_int_equal(open_err(im.b, 50, "cut-header", err, sizeof(err)), -EBADMSG);
	assert_non_null(strstr(err, "truncated ELF header"));
	assert_int_equal(open_err(im.b, im.shoff + 10, "cut-shdrs", err, sizeof(err)), -EBADMSG);
	assert_non_null(strstr(err, "truncated"));

	/* .text's contents claimed past the end of the file */
	build(&im, ET_DYN, 0x10000);
	{
		Elf64_Shdr sh;
		size_t at = im.shoff + sizeof(Elf64_Shdr);

		memcpy(&sh, im.b + at, sizeof(sh));
		sh.sh_offset = im.len - 8;
		memcpy(im.b + at, &sh, sizeof(sh));
	}
	assert_int_equal(open_err(im.b, im.len, "cut-text", err, sizeof(err)), -EBADMSG);
	assert_non_null(strstr(err, "section .text"));

	/* symbol table with a bad entry size */
	build(&im, ET_DYN, 0x10000);
	{
		Elf64_Shdr sh;
		size_t at = im.shoff + 3 * sizeof(Elf64_Shdr);

		memcpy(&sh, im.b + at, sizeof(sh));
		sh.sh_entsize = 7;
		sh.sh_size = 70;
		memcpy(im.b + at, &sh, sizeof(sh));
	}
	assert_int_equal(open_err(im.b, im.len, "bad-symtab", err, sizeof(err)), -EBADMSG);
}

static char *listing(const struct an_elf *e, const struct an_listing_opts *o, int *ret)
{
	char *buf = NULL, err[256] = "";
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	*ret = an_listing_print(e, o, f, NULL, err, sizeof(err));
	assert_int_equal(fclose(f), 0);
	return buf;
}

/* The listing of the built image, as alpha-linux-gnu-objdump -d prints it (checked once by hand). */
/* The instructions an insn callback got, one line each. */
struct seen_insns {
	char line[8][160];
	size_t n;
};

static void record_insn(void *priv, const struct an_listing_insn *in)
{
	struct seen_insns *s = priv;

	if (s->n < 8)
		snprintf(s->line[s->n++], sizeof(s->line[0]),
			 "%s 0x%" PRIx64 " 0x%08" PRIx32 " %s %s %s+%" PRId64 " ->0x%" PRIx64,
			 in->section, in->addr, in->word, in->mnemonic, in->operands,
			 in->symbol ? in->symbol : "-", in->offset,
			 in->has_target ? in->target : 0);
}

static void test_an_listing_matches_objdump_layout(void **state)
{
	struct an_listing_opts o = { .start = AN_LISTING_NOADDR, .stop = AN_LISTING_NOADDR };
	static const char body[] = ":     file format elf64-alpha\n"
				   "\n"
				   "\n"
				   "Disassembly of section .text:\n"
				   "\n"
				   "0000000000010000 <f>:\n"
				   "   10000:\tf0 ff de 23 \tlda\tsp,-16(sp)\n"
				   "   10004:\tfe ff 5f d3 \tbsr\tra,10000 <f>\n"
				   "\n"
				   "0000000000010008 <g>:\n"
				   "   10008:\t01 80 fa 6b \tret\n"
				   "   1000c:\t1f 04 ff 47 \tnop\t\n";
	struct image im;
	struct seen_insns seen = { .n = 0 };
	struct an_elf *e;
	char *out, *want;
	int ret;

	(void)state;
	build(&im, ET_DYN, 0x10000);
	e = open_image(&im, "list.so");
	out = listing(e, &o, &ret);
	assert_int_equal(ret, 0);
	want = malloc(strlen(an_elf_path(e)) + sizeof(body) + 2);
	assert_non_null(want);
	sprintf(want, "\n%s%s", an_elf_path(e), body);
	assert_string_equal(out, want);
	free(out);
	free(want);

	o.insn = record_insn;
	o.priv = &seen;
	out = listing(e, &o, &ret);
	assert_int_equal(ret, 0);
	assert_string_equal(out, ""); /* the callback gets the instructions, out nothing */
	assert_true(seen.n >= 2);
	assert_string_equal(seen.line[1],
			    ".text 0x10004 0xd35ffffe bsr ra,10000 <f> f+4 ->0x10000");
	free(out);

	o.insn = NULL;
	o.start = 0x10008;
	out = listing(e, &o, &ret);
	assert_int_equal(ret, 0);
	assert_null(strstr(out, "<f>:"));
	assert_non_null(strstr(out, "0000000000010008 <g>:\n   10008:"));
	free(out);

	o.start = AN_LISTING_NOADDR;
	o.section = ".nothing";
	out = listing(e, &o, &ret);
	assert_int_equal(ret, -ENOEXEC);
	free(out);
	an_elf_close(e);
}

/* Damaged copies of the image: every byte of the headers changed, and every length cut. */
static void test_an_elf_damaged_images_never_crash(void **state)
{
	struct an_listing_opts o = { .start = AN_LISTING_NOADDR, .stop = AN_LISTING_NOADDR };
	struct image im, bad;
	uint64_t x = 0x243f6a8885a308d3ull;
	FILE *null = fopen("/dev/null", "w");
	int opened = 0, rejected = 0;

	(void)state;
	assert_non_null(null);
	build(&im, ET_DYN, 0x10000);
	for (int i = 0; i < 3000; i++) {
		struct an_elf *e = NULL;
		char err[256];
		size_t len = im.len;

		bad = im;
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		if (i < 1000) {
			/* one byte of the ELF header, section headers or symbol table */
			size_t region = x % 3, off;

			off = region == 0 ? (x >> 8) % 64 :
			      region == 1 ? im.shoff + (x >> 8) % (6 * sizeof(Elf64_Shdr)) :
					    im.symtab_off + (x >> 8) % (4 * sizeof(Elf64_Sym));
			bad.b[off] = (uint8_t)(x >> 40);
		} else if (i < 2000) {
			for (int k = 0; k < 4; k++)
				bad.b[(x >> (k * 12)) % im.len] = (uint8_t)(x >> (k * 8 + 3));
		} else {
			len = (x >> 8) % im.len;
		}
		if (an_elf_open(write_file("fuzz", bad.b, len), &e, err, sizeof(err)) == 0) {
			char lerr[256];

			opened++;
			an_listing_print(e, &o, null, NULL, lerr, sizeof(lerr));
			for (size_t s = 0; s < an_elf_nsymbols(e); s++)
				assert_non_null(an_elf_symbol(e, s)->name);
			an_elf_close(e);
		} else {
			rejected++;
			assert_true(strlen(err) > 0);
		}
	}
	fclose(null);
	print_message("damaged images: %d opened, %d rejected\n", opened, rejected);
	assert_true(opened > 0 && rejected > 0);
}

/* A real Debian library, when installed: dynamic symbols carry their versions. */
static void test_an_elf_real_library_versions(void **state)
{
	const char *lib = "/usr/alpha-linux-gnu/lib/libm.so.6.1";
	struct an_elf *e;
	char err[256];
	bool found = false;

	(void)state;
	if (access(lib, R_OK) != 0) {
		print_message("%s not installed: skipped\n", lib);
		skip();
	}
	assert_int_equal(an_elf_open(lib, &e, err, sizeof(err)), 0);
	assert_int_equal(an_elf_type(e), ET_DYN);
	assert_false(an_elf_has_symtab(e));
	for (size_t i = 0; i < an_elf_nsymbols(e); i++) {
		const struct an_elf_symbol *s = an_elf_symbol(e, i);

		if (!strcmp(s->name, "sin") && s->shndx != AN_ELF_SHN_UNDEF) {
			found = true;
			assert_true(s->dynamic);
			assert_non_null(s->version);
			assert_string_equal(s->version, "GLIBC_2.0");
		}
	}
	assert_true(found);
	assert_true(an_elf_nfunctions(e) > 100);
	an_elf_close(e);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_an_elf_open_reads_sections_and_symbols),
		cmocka_unit_test(test_an_elf_functions_sorted_and_found),
		cmocka_unit_test(test_an_elf_rel_symbols_are_section_relative),
		cmocka_unit_test(test_an_elf_rejects_bad_files),
		cmocka_unit_test(test_an_listing_matches_objdump_layout),
		cmocka_unit_test(test_an_elf_damaged_images_never_crash),
		cmocka_unit_test(test_an_elf_real_library_versions),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
