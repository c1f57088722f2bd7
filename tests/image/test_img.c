/* tests/image/test_img.c - the ELF image reader (img_*), and the objdump listing built on it. */
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

#include "img.h"
#include "an_listing.h"

#define FIXTURES "tests/analysis/fixtures/"

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
	strcpy(tmpdir, "/tmp/test_img.XXXXXX");
	return mkdtemp(tmpdir) ? 0 : -1;
}

static int teardown(void **state)
{
	char cmd[128];

	(void)state;
	if (getenv("IMG_TEST_KEEP")) { /* keep the images, e.g. to run objdump on them */
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

static uint8_t *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	uint8_t *b;

	assert_non_null(f);
	assert_int_equal(fseek(f, 0, SEEK_END), 0);
	*len = (size_t)ftell(f);
	rewind(f);
	b = malloc(*len);
	assert_non_null(b);
	assert_int_equal(fread(b, 1, *len, f), *len);
	fclose(f);
	return b;
}

static struct img *open_image(const struct image *im, const char *name)
{
	struct img *e = NULL;
	struct ax_error err;
	int ret = img_open(write_file(name, im->b, im->len), 0, &e, &err);

	if (ret)
		fail_msg("img_open: %d %s", ret, err.msg);
	return e;
}

static void test_img_open_reads_sections_and_symbols(void **state)
{
	struct image im;
	struct img *e;
	const struct img_section *t;

	(void)state;
	build(&im, ET_DYN, 0x10000);
	e = open_image(&im, "dyn.so");
	assert_int_equal(img_type(e), ET_DYN);
	assert_int_equal(img_nsections(e), 5);
	t = img_section_by_name(e, ".text");
	assert_non_null(t);
	assert_int_equal(t->addr, 0x10000);
	assert_int_equal(t->size, 16);
	assert_true(img_section_is_code(t));
	assert_false(img_section_is_code(img_section_by_name(e, ".data")));
	assert_int_equal(img_ncode_sections(e), 1);
	assert_ptr_equal(img_section_at(e, 0x1000c), t);
	assert_null(img_section_at(e, 0x20000));
	assert_true(img_has_symtab(e));
	assert_int_equal(img_nsymbols(e), 3);
	assert_string_equal(img_symbol(e, 0)->name, "g");
	assert_int_equal(img_symbol(e, 0)->bind, STB_LOCAL);
	assert_null(img_symbol(e, 0)->version);
	assert_string_equal(img_symbol(e, 2)->name, "obj");
	assert_int_equal(img_symbol(e, 2)->value, 0x10100);
	img_close(e);
}

static void test_img_functions_sorted_and_found(void **state)
{
	struct image im;
	struct img *e;
	uint32_t w = 0;

	(void)state;
	build(&im, ET_DYN, 0x10000);
	e = open_image(&im, "funcs.so");
	assert_int_equal(img_nfunctions(e), 2);
	assert_string_equal(img_function(e, 0)->name, "f");
	assert_string_equal(img_function(e, 1)->name, "g");
	assert_string_equal(img_function_at(e, 0x10004)->name, "f");
	assert_string_equal(img_function_at(e, 0x10008)->name, "g");
	assert_string_equal(img_function_at(e, 0x1000c)->name, "g");
	assert_null(img_function_at(e, 0x10010)); /* past g's size */
	assert_null(img_function_at(e, 0xfffc));
	assert_int_equal(img_read32(e, 0x10004, &w), 0);
	assert_int_equal(w, 0xd35ffffe);
	assert_int_equal(img_read32(e, 0x1000e, &w), -EFAULT); /* runs off the section */
	assert_int_equal(img_read32(e, 0x30000, &w), -EFAULT);
	img_close(e);
}

/* In a relocatable object a symbol's address is its section's address plus st_value. */
static void test_img_rel_symbols_are_section_relative(void **state)
{
	struct image im;
	struct img *e;

	(void)state;
	build(&im, ET_REL, 0);
	e = open_image(&im, "rel.o");
	assert_int_equal(img_type(e), ET_REL);
	assert_int_equal(img_symbol(e, 0)->value, 8);
	assert_int_equal(img_symbol(e, 0)->shndx, 1);
	img_close(e);
}

static int open_err(const void *p, size_t n, const char *name, struct ax_error *err)
{
	struct img *e = (struct img *)1;
	int ret = img_open(write_file(name, p, n), 0, &e, err);

	assert_null(e);
	assert_int_equal(err->code, ret);
	assert_non_null(strstr(err->msg, name)); /* the message names the file */
	return ret;
}

static void test_img_rejects_bad_files(void **state)
{
	struct image im;
	struct ax_error err;
	struct img *e;

	(void)state;
	assert_int_equal(img_open("/nonexistent/x.o", 0, &e, &err), -ENOENT);
	assert_non_null(strstr(err.msg, "/nonexistent/x.o: cannot open"));
	assert_int_equal(open_err("hello", 5, "text", &err), -ENOEXEC);
	assert_non_null(strstr(err.msg, "not an ELF file"));
	assert_int_equal(open_err("", 0, "empty", &err), -ENOEXEC);

	build(&im, ET_DYN, 0x10000);
	im.b[18] = EM_X86_64; /* e_machine */
	im.b[19] = 0;
	assert_int_equal(open_err(im.b, im.len, "x86", &err), -ENOEXEC);
	assert_non_null(strstr(err.msg, "not an Alpha file: machine 0x3e is x86-64"));

	build(&im, ET_DYN, 0x10000);
	im.b[EI_CLASS] = ELFCLASS32;
	assert_int_equal(open_err(im.b, im.len, "elf32", &err), -ENOEXEC);

	build(&im, ET_DYN, 0x10000);
	assert_int_equal(open_err(im.b, 50, "cut-header", &err), -EBADMSG);
	assert_non_null(strstr(err.msg, "truncated ELF header"));
	assert_int_equal(open_err(im.b, im.shoff + 10, "cut-shdrs", &err), -EBADMSG);
	assert_non_null(strstr(err.msg, "truncated"));

	/* .text's contents claimed past the end of the file */
	build(&im, ET_DYN, 0x10000);
	{
		Elf64_Shdr sh;
		size_t at = im.shoff + sizeof(Elf64_Shdr);

		memcpy(&sh, im.b + at, sizeof(sh));
		sh.sh_offset = im.len - 8;
		memcpy(im.b + at, &sh, sizeof(sh));
	}
	assert_int_equal(open_err(im.b, im.len, "cut-text", &err), -EBADMSG);
	assert_non_null(strstr(err.msg, "section .text"));

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
	assert_int_equal(open_err(im.b, im.len, "bad-symtab", &err), -EBADMSG);
}

static char *listing(const struct img *e, const struct an_listing_opts *o, int *ret)
{
	struct ax_error err;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	*ret = an_listing_print(e, o, f, NULL, &err);
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
	struct seen_insns seen = { .n = 0 };
	struct image im;
	struct img *e;
	char *out, *want;
	int ret;

	(void)state;
	build(&im, ET_DYN, 0x10000);
	e = open_image(&im, "list.so");
	out = listing(e, &o, &ret);
	assert_int_equal(ret, 0);
	want = malloc(strlen(img_path(e)) + sizeof(body) + 2);
	assert_non_null(want);
	sprintf(want, "\n%s%s", img_path(e), body);
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
	img_close(e);
}

/* Damaged copies of the image: every byte of the headers changed, and every length cut. */
static void test_img_damaged_images_never_crash(void **state)
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
		struct img *e = NULL;
		struct ax_error err;
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
		if (img_open(write_file("fuzz", bad.b, len), 0, &e, &err) == 0) {
			opened++;
			an_listing_print(e, &o, null, NULL, NULL);
			for (size_t s = 0; s < img_nsymbols(e); s++)
				assert_non_null(img_symbol(e, s)->name);
			img_close(e);
		} else {
			rejected++;
			assert_non_null(strstr(err.msg, "fuzz"));
		}
	}
	fclose(null);
	print_message("damaged images: %d opened, %d rejected\n", opened, rejected);
	assert_true(opened > 0 && rejected > 0);
}

/* A real Debian library, when installed: dynamic symbols carry their versions. */
static void test_img_real_library_versions(void **state)
{
	const char *lib = "/usr/alpha-linux-gnu/lib/libm.so.6.1";
	struct img *e;
	bool found = false;

	(void)state;
	if (access(lib, R_OK) != 0) {
		print_message("%s not installed: skipped\n", lib);
		skip();
	}
	assert_int_equal(img_open(lib, 0, &e, NULL), 0);
	assert_int_equal(img_type(e), ET_DYN);
	assert_false(img_has_symtab(e));
	for (size_t i = 0; i < img_nsymbols(e); i++) {
		const struct img_symbol *s = img_symbol(e, i);

		if (!strcmp(s->name, "sin") && s->shndx != IMG_SHN_UNDEF) {
			found = true;
			assert_true(s->dynamic);
			assert_non_null(s->version);
			assert_string_equal(s->version, "GLIBC_2.0");
		}
	}
	assert_true(found);
	assert_true(img_nfunctions(e) > 100);
	img_close(e);
}

static uint64_t get64(const uint8_t *p)
{
	uint64_t v = 0;

	for (int k = 7; k >= 0; k--)
		v = v << 8 | p[k];
	return v;
}

/*
 * PLT slots of a real library: every R_ALPHA_JMP_SLOT of .rela.plt, found here by another
 * route than img_plt.c's (the GOT word it patches holds, before lazy binding, the address of
 * its PLT entry), must be named sym@plt at that address, and nothing else is a slot.
 */
static void test_img_plt_slots_named(void **state)
{
	const char *lib = "/usr/alpha-linux-gnu/lib/libm.so.6.1";
	const struct img_section *rel, *got, *plt;
	struct ax_error err;
	struct img *e;
	size_t checked = 0;

	(void)state;
	if (access(lib, R_OK) != 0) {
		print_message("%s not installed: skipped\n", lib);
		skip();
	}
	assert_int_equal(img_open(lib, 0, &e, &err), 0);
	rel = img_section_by_name(e, ".rela.plt");
	got = img_section_by_name(e, ".got");
	plt = img_section_by_name(e, ".plt");
	assert_non_null(rel);
	assert_non_null(got);
	assert_non_null(plt);
	for (uint64_t off = 0; off + 24 <= rel->size; off += 24) {
		uint64_t slot = get64(rel->data + off), info = get64(rel->data + off + 8), entry;
		const struct img_symbol *s = img_sym(e, IMG_DYNSYM, (size_t)(info >> 32) - 1);
		const struct img_symbol *p;
		char want[256];

		assert_true(slot >= got->addr && slot + 8 <= got->addr + got->size);
		entry = get64(got->data + (slot - got->addr));
		assert_true(entry >= plt->addr && entry < plt->addr + plt->size);
		p = img_plt_at(e, entry);
		assert_non_null(p);
		snprintf(want, sizeof(want), "%s@plt", s->name);
		assert_string_equal(p->name, want);
		assert_int_equal(p->value, entry);
		assert_true(img_plt_at(e, entry + p->size - 1) == p);
		checked++;
	}
	assert_int_equal(img_nplt(e), checked);
	assert_true(checked > 10);
	assert_null(img_plt_at(e, plt->addr)); /* the header is no slot */
	assert_null(img_plt_at(e, plt->addr + plt->size));
	img_close(e);
}

/* ---- section of an address, local symbols, both symbol tables ---- */

static void test_img_section_at_finds_allocated_sections(void **state)
{
	struct image im;
	struct img *e;

	(void)state;
	build(&im, ET_EXEC, 0x10000);
	e = open_image(&im, "secat");
	assert_string_equal(img_section_at(e, 0x10000)->name, ".text");
	assert_string_equal(img_section_at(e, 0x1000f)->name, ".text");
	assert_null(img_section_at(e, 0x10010)); /* between .text and .data */
	assert_string_equal(img_section_at(e, 0x10100)->name, ".data");
	assert_string_equal(img_section_at(e, 0x10107)->name, ".data");
	assert_null(img_section_at(e, 0x10108));
	assert_null(img_section_at(e, 0)); /* .symtab is at 0 but not allocated */
	assert_ptr_equal(img_section_by_index(e, 2), img_section_by_name(e, ".data"));
	assert_null(img_section_by_index(e, 0));
	assert_null(img_section_by_index(e, 6));
	assert_int_equal(img_text_size(e), 16);
	assert_int_equal(img_nsegments(e), 0); /* no program headers in this image */
	assert_null(img_interp(e));
	img_close(e);
}

static void test_img_symtab_keeps_local_symbols(void **state)
{
	struct image im;
	const struct img_symbol *g;
	struct img *e;

	(void)state;
	build(&im, ET_EXEC, 0x10000);
	e = open_image(&im, "locals");
	assert_int_equal(img_nsyms(e, IMG_SYMTAB), 3);
	assert_int_equal(img_nsyms(e, IMG_DYNSYM), 0);
	assert_null(img_sym(e, IMG_SYMTAB, 3));
	g = img_symbol_by_name(e, "g");
	assert_non_null(g);
	assert_ptr_equal(g, img_sym(e, IMG_SYMTAB, 0));
	assert_int_equal(g->bind, STB_LOCAL);
	assert_int_equal(g->type, STT_FUNC);
	assert_int_equal(g->value, 0x10008);
	assert_false(g->dynamic);
	assert_string_equal(g->versioned, "g"); /* no version: the plain name */
	assert_null(img_symbol_by_name(e, "nothing"));
	img_close(e);
}

/* An unstripped shared object has both tables: .symtab (with locals) is the primary one. */
static void test_img_reads_symtab_and_dynsym(void **state)
{
	struct ax_error err;
	struct img *full, *stripped;
	size_t locals = 0;

	(void)state;
	assert_int_equal(img_open(FIXTURES "cfgtest.so", 0, &full, &err), 0);
	assert_int_equal(img_open(FIXTURES "cfgtest-stripped.so", 0, &stripped, &err), 0);
	assert_true(img_has_symtab(full));
	assert_true(img_nsyms(full, IMG_DYNSYM) > 0);
	assert_int_equal(img_nsymbols(full), img_nsyms(full, IMG_SYMTAB));
	for (size_t i = 0; i < img_nsyms(full, IMG_SYMTAB); i++)
		locals += img_sym(full, IMG_SYMTAB, i)->bind == STB_LOCAL;
	assert_true(locals > 0);
	/* every defined dynamic function is also in .symtab, at the same address */
	for (size_t i = 0; i < img_nsyms(full, IMG_DYNSYM); i++) {
		const struct img_symbol *d = img_sym(full, IMG_DYNSYM, i), *s;

		assert_true(d->dynamic);
		if (d->type != STT_FUNC || d->shndx == IMG_SHN_UNDEF)
			continue;
		s = img_symbol_by_name(full, d->name);
		assert_non_null(s);
		assert_false(s->dynamic);
		assert_int_equal(s->value, d->value);
	}
	assert_false(img_has_symtab(stripped));
	assert_int_equal(img_nsyms(stripped, IMG_SYMTAB), 0);
	assert_int_equal(img_nsymbols(stripped), img_nsyms(stripped, IMG_DYNSYM));
	assert_true(img_nfunctions(stripped) > 0);
	img_close(full);
	img_close(stripped);
}

/* ---- real Alpha files against binutils ---- */

#define LIBC "/usr/alpha-linux-gnu/lib/libc.so.6.1"

static void need(const char *path)
{
	if (access(path, R_OK) != 0) {
		print_message("%s not installed: skipped\n", path);
		skip();
	}
}

/* The first line of `cmd`'s output holding `key`, or skip when the tool is missing. */
static bool run_line(const char *cmd, const char *key, char *line, size_t len)
{
	FILE *p = popen(cmd, "r");
	bool found = false;

	assert_non_null(p);
	while (!found && fgets(line, (int)len, p))
		found = strstr(line, key) != NULL;
	pclose(p);
	return found;
}

static void check_build_id(const struct img *e, const char *hex)
{
	const uint8_t *id;
	size_t len;

	id = img_build_id(e, &len);
	assert_non_null(id);
	assert_int_equal(2 * len, strlen(hex));
	for (size_t i = 0; i < len; i++) {
		char b[3];

		snprintf(b, sizeof(b), "%02x", id[i]);
		assert_memory_equal(b, hex + 2 * i, 2);
	}
}

static void test_img_build_id_matches_readelf(void **state)
{
	char line[512], hex[128] = "", *h;
	struct img *e;

	(void)state;
	need(LIBC);
	if (!run_line("alpha-linux-gnu-readelf -n " LIBC " 2>/dev/null", "Build ID:", line,
		      sizeof(line))) {
		print_message("alpha-linux-gnu-readelf not installed: skipped\n");
		skip();
	}
	h = strstr(line, "Build ID:") + 9;
	assert_int_equal(sscanf(h, "%127s", hex), 1);
	assert_int_equal(img_open(LIBC, 0, &e, NULL), 0);
	check_build_id(e, hex);
	img_close(e);
}

/* Without PT_NOTE segments, the build-id comes from the .note.gnu.build-id section. */
static void test_img_build_id_from_note_section(void **state)
{
	const uint8_t *id, *want;
	size_t len, idlen, wantlen, nnotes = 0;
	struct img *e, *ref;
	uint8_t *b;
	Elf64_Ehdr eh;

	(void)state;
	need(LIBC);
	b = slurp(LIBC, &len);
	memcpy(&eh, b, sizeof(eh));
	for (size_t i = 0; i < eh.e_phnum; i++) {
		Elf64_Phdr ph;
		size_t at = eh.e_phoff + i * sizeof(ph);

		memcpy(&ph, b + at, sizeof(ph));
		if (ph.p_type != PT_NOTE)
			continue;
		ph.p_type = PT_NULL;
		memcpy(b + at, &ph, sizeof(ph));
		nnotes++;
	}
	assert_true(nnotes > 0);
	assert_int_equal(img_open(write_file("nonotes.so", b, len), 0, &e, NULL), 0);
	assert_int_equal(img_open(LIBC, 0, &ref, NULL), 0);
	id = img_build_id(e, &idlen);
	want = img_build_id(ref, &wantlen);
	assert_non_null(id);
	assert_non_null(want);
	assert_int_equal(idlen, wantlen);
	assert_memory_equal(id, want, idlen);
	assert_non_null(img_section_by_name(e, ".note.gnu.build-id"));
	img_close(ref);
	img_close(e);
	free(b);
}

/* PT_LOAD, PT_INTERP and PT_DYNAMIC as `readelf -lW` lists them. */
static void test_img_program_headers_match_readelf(void **state)
{
	FILE *p;
	char line[512];
	size_t nload = 0, nexec = 0;
	uint64_t dyn = 0;
	struct img *e;

	(void)state;
	need(LIBC);
	assert_int_equal(img_open(LIBC, 0, &e, NULL), 0);
	assert_non_null(img_interp(e));
	assert_string_equal(img_interp(e), "/lib/ld-linux.so.2");
	assert_true(img_dynamic_vaddr(e, &dyn));
	p = popen("alpha-linux-gnu-readelf -lW " LIBC " 2>/dev/null", "r");
	assert_non_null(p);
	while (fgets(line, sizeof(line), p)) {
		unsigned long long off, va, pa, fsz, msz;
		char type[32];

		if (sscanf(line, "%31s %llx %llx %llx %llx %llx", type, &off, &va, &pa, &fsz,
			   &msz) != 6)
			continue;
		if (!strcmp(type, "DYNAMIC"))
			assert_int_equal(dyn, va);
		if (strcmp(type, "LOAD"))
			continue;
		assert_true(nload < img_nsegments(e));
		assert_int_equal(img_segment(e, nload)->offset, off);
		assert_int_equal(img_segment(e, nload)->vaddr, va);
		assert_int_equal(img_segment(e, nload)->filesz, fsz);
		assert_int_equal(img_segment(e, nload)->memsz, msz);
		nexec += (img_segment(e, nload)->flags & PF_X) != 0;
		assert_int_equal((img_segment(e, nload)->flags & PF_X) != 0,
				 strstr(line, " E ") != NULL);
		nload++;
	}
	pclose(p);
	if (nload == 0) {
		print_message("alpha-linux-gnu-readelf not installed: skipped\n");
		img_close(e);
		skip();
	}
	assert_int_equal(nload, img_nsegments(e));
	assert_int_equal(nexec, 1);
	assert_null(img_segment(e, nload));
	img_close(e);
}

struct named {
	const char *name;
	uint64_t value;
};

static int cmp_named(const void *a, const void *b)
{
	const struct named *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	return c ? c : (x->value > y->value) - (x->value < y->value);
}

/* Every defined dynamic symbol nm -D prints (name@@VER, name@VER) is one of ours. */
static void test_img_dynsym_versioned_names_match_nm(void **state)
{
	struct named *tab, key;
	const struct img_symbol *s;
	size_t n = 0, checked = 0;
	char line[512], name[400];
	struct img *e;
	FILE *p;

	(void)state;
	need(LIBC);
	assert_int_equal(img_open(LIBC, 0, &e, NULL), 0);
	assert_false(img_has_symtab(e));
	tab = calloc(img_nsyms(e, IMG_DYNSYM), sizeof(*tab));
	assert_non_null(tab);
	for (size_t i = 0; i < img_nsyms(e, IMG_DYNSYM); i++) {
		s = img_sym(e, IMG_DYNSYM, i);
		if (s->shndx != IMG_SHN_UNDEF)
			tab[n++] = (struct named){ s->versioned, s->value };
	}
	qsort(tab, n, sizeof(*tab), cmp_named);
	p = popen("alpha-linux-gnu-nm -D --defined-only " LIBC " 2>/dev/null", "r");
	assert_non_null(p);
	while (fgets(line, sizeof(line), p)) {
		unsigned long long v;
		char t;

		if (sscanf(line, "%llx %c %399s", &v, &t, name) != 3)
			continue;
		if (t == 'A') { /* a version's own symbol: nm prints "GLIBC_2.0", not "@@" */
			assert_non_null(img_symbol_by_name(e, name));
			continue;
		}
		key = (struct named){ name, v };
		if (!bsearch(&key, tab, n, sizeof(*tab), cmp_named))
			fail_msg("nm -D: %s at %#llx is not a dynamic symbol of img", name, v);
		checked++;
	}
	pclose(p);
	/* Undefined ones carry the version needed from another file: always one '@'. */
	n = 0;
	for (size_t i = 0; i < img_nsyms(e, IMG_DYNSYM); i++) {
		s = img_sym(e, IMG_DYNSYM, i);
		if (s->shndx == IMG_SHN_UNDEF)
			tab[n++] = (struct named){ s->versioned, 0 };
	}
	qsort(tab, n, sizeof(*tab), cmp_named);
	p = popen("alpha-linux-gnu-nm -D --undefined-only " LIBC " 2>/dev/null", "r");
	assert_non_null(p);
	while (fgets(line, sizeof(line), p)) {
		char t;

		if (sscanf(line, " %c %399s", &t, name) != 2)
			continue;
		key = (struct named){ name, 0 };
		if (!bsearch(&key, tab, n, sizeof(*tab), cmp_named))
			fail_msg("nm -D: undefined %s is not a dynamic symbol of img", name);
		if (strchr(name, '@'))
			assert_null(strstr(name, "@@"));
		checked++;
	}
	pclose(p);
	free(tab);
	print_message("%zu versioned dynamic symbols checked against nm -D\n", checked);

	s = img_symbol_by_name(e, "memcpy"); /* the plain name finds it */
	assert_non_null(s);
	assert_string_equal(s->versioned, "memcpy@@GLIBC_2.0");
	assert_string_equal(s->version, "GLIBC_2.0");
	assert_false(s->version_hidden);
	for (size_t i = 0; i < img_nsyms(e, IMG_DYNSYM); i++) {
		s = img_sym(e, IMG_DYNSYM, i);
		if (!strcmp(s->name, "_IO_fclose") && s->version_hidden)
			assert_string_equal(s->versioned, "_IO_fclose@GLIBC_2.0");
		if (!strcmp(s->name, "_IO_stdin_used")) { /* objdump -T: "Base"; nm -D: nothing */
			assert_string_equal(s->version, "Base");
			assert_true(s->version_base);
			assert_string_equal(s->versioned, "_IO_stdin_used");
		}
	}
	img_close(e);
	if (checked == 0) {
		print_message("alpha-linux-gnu-nm not installed: compared nothing\n");
		skip();
	}
	assert_true(checked > 1000);
}

/* ---- files that are not for us, and damaged ones ---- */

static void test_img_rejects_host_binary(void **state)
{
	struct ax_error err;
	struct img *e = (struct img *)1;
	size_t nexec = 0, len;

	(void)state;
	assert_int_equal(img_open("/bin/true", 0, &e, &err), -ENOEXEC);
	assert_null(e);
	assert_int_equal(err.code, -ENOEXEC);
	assert_non_null(strstr(err.msg, "/bin/true: not an Alpha file: machine"));
	assert_non_null(strstr(err.msg, "(Alpha is 0x9026)"));

	/* The daemon and the database take any ELF64 file for its segments and build-id. */
	assert_int_equal(img_open("/bin/true", IMG_ANY_MACHINE, &e, &err), 0);
	assert_int_not_equal(img_machine(e), EM_ALPHA);
	for (size_t i = 0; i < img_nsegments(e); i++)
		nexec += (img_segment(e, i)->flags & PF_X) != 0;
	assert_true(nexec >= 1);
	assert_true(img_text_size(e) > 0);
	assert_true(img_file_size(e) > img_text_size(e));
	assert_true(img_mtime_ns(e) > 0);
	img_build_id(e, &len);
	assert_true(len == 0 || len >= 8);
	img_close(e);
}

/* Open a patched copy; expect code and a message naming the copy and saying what. */
static void expect_bad(const uint8_t *b, size_t len, const char *name, int code, const char *what)
{
	struct ax_error err;

	assert_int_equal(open_err(b, len, name, &err), code);
	if (!strstr(err.msg, what))
		fail_msg("%s: message \"%s\" does not say \"%s\"", name, err.msg, what);
}

/* Program headers that lie about the file: each a clear -EBADMSG. */
static void test_img_damaged_program_headers(void **state)
{
	size_t len;
	uint8_t *orig = slurp(FIXTURES "cfgtest.so", &len), *b = malloc(len);
	Elf64_Ehdr eh;
	Elf64_Phdr ph;
	size_t at;

	(void)state;
	assert_non_null(b);
	memcpy(&eh, orig, sizeof(eh));
	assert_true(eh.e_phnum > 0);

	memcpy(b, orig, len);
	eh.e_phoff = len - 8;
	memcpy(b, &eh, sizeof(eh));
	expect_bad(b, len, "phoff", -EBADMSG, "program headers at offset");

	memcpy(b, orig, len);
	memcpy(&eh, orig, sizeof(eh));
	eh.e_phentsize = 12;
	memcpy(b, &eh, sizeof(eh));
	expect_bad(b, len, "phentsize", -EBADMSG, "program header size 12");

	memcpy(&eh, orig, sizeof(eh));
	for (at = eh.e_phoff;; at += sizeof(ph)) { /* the first PT_LOAD */
		memcpy(&ph, orig + at, sizeof(ph));
		if (ph.p_type == PT_LOAD)
			break;
	}
	memcpy(b, orig, len);
	ph.p_filesz = ph.p_memsz + 1;
	memcpy(b + at, &ph, sizeof(ph));
	expect_bad(b, len, "filesz", -EBADMSG, "above memory size");

	memcpy(b, orig, len);
	memcpy(&ph, orig + at, sizeof(ph));
	ph.p_offset = 0xffffffffffff0000ull;
	memcpy(b + at, &ph, sizeof(ph));
	expect_bad(b, len, "loadoff", -EBADMSG, "PT_LOAD");
	free(b);
	free(orig);
}

/* libc cut at many lengths, and ELF headers followed by garbage: an error or a file, no crash. */
static void test_img_truncated_and_garbage_files(void **state)
{
	uint64_t x = 0x9e3779b97f4a7c15ull;
	size_t len, cuts = 0;
	uint8_t *lib;

	(void)state;
	need(LIBC);
	lib = slurp(LIBC, &len);
	for (size_t cut = 1; cut < len; cut += len / 37 + 1, cuts++) {
		struct ax_error err;

		assert_int_equal(open_err(lib, cut, "cut", &err), cut < 4 ? -ENOEXEC : -EBADMSG);
		if (cut >= 4 && !strstr(err.msg, "truncated"))
			fail_msg("cut at %zu: \"%s\" does not say truncated", cut, err.msg);
	}
	assert_true(cuts > 30);
	for (int i = 0; i < 200; i++) {
		uint8_t b[4096];
		struct img *e = NULL;
		struct ax_error err;
		int ret;

		for (size_t k = 0; k < sizeof(b); k++) {
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			b[k] = (uint8_t)x;
		}
		memcpy(b, lib, i < 100 ? 24 : 64); /* a valid identity, then garbage */
		ret = img_open(write_file("garbage", b, sizeof(b)), 0, &e, &err);
		if (ret == 0) {
			img_close(e);
			continue;
		}
		assert_true(ret == -EBADMSG || ret == -ENOEXEC);
		assert_non_null(strstr(err.msg, "garbage"));
	}
	free(lib);
}

/* Every accessor on an image that opened, to let the sanitizers see any read out of bounds. */
static void walk(const struct img *e)
{
	uint64_t va;
	size_t len;
	uint32_t w;

	for (size_t i = 0; i < img_nsegments(e); i++)
		assert_true(img_segment(e, i)->filesz <= img_segment(e, i)->memsz);
	if (img_interp(e))
		assert_true(strlen(img_interp(e)) > 0);
	img_dynamic_vaddr(e, &va);
	if (img_build_id(e, &len))
		assert_true(len > 0);
	for (size_t i = 0; i < img_nsections(e); i++) {
		const struct img_section *sec = img_section(e, i);

		if (sec->data && sec->size)
			assert_true(sec->data[sec->size - 1] == sec->data[sec->size - 1]);
		img_section_at(e, sec->addr);
		img_read32(e, sec->addr, &w);
	}
	for (int t = IMG_SYMTAB; t <= IMG_DYNSYM; t++)
		for (size_t i = 0; i < img_nsyms(e, t); i++) {
			const struct img_symbol *sym = img_sym(e, t, i);

			assert_true(strlen(sym->versioned) >= strlen(sym->name));
			img_function_at(e, sym->value);
		}
	img_text_size(e);
}

/* A real shared object with bytes changed anywhere, its program headers most often. */
static void test_img_damaged_shared_object_never_crashes(void **state)
{
	uint64_t x = 0x2545f4914f6cdd1dull;
	int opened = 0, rejected = 0;
	size_t len;
	uint8_t *orig = slurp(FIXTURES "cfgtest.so", &len), *b = malloc(len);
	Elf64_Ehdr eh;

	(void)state;
	assert_non_null(b);
	memcpy(&eh, orig, sizeof(eh));
	for (int i = 0; i < 2000; i++) {
		struct img *e = NULL;
		struct ax_error err;

		memcpy(b, orig, len);
		for (int k = 0; k < 1 + i % 4; k++) {
			size_t off;

			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			off = (i % 3) ? eh.e_phoff + (x >> 8) % (eh.e_phnum * sizeof(Elf64_Phdr)) :
					(x >> 8) % len;
			b[off] = (uint8_t)(x >> 48);
		}
		if (img_open(write_file("fuzz.so", b, len), i % 2 ? IMG_ANY_MACHINE : 0, &e,
			     &err) == 0) {
			opened++;
			walk(e);
			img_close(e);
		} else {
			rejected++;
			assert_non_null(strstr(err.msg, "fuzz.so"));
		}
	}
	free(b);
	free(orig);
	print_message("damaged shared objects: %d opened, %d rejected\n", opened, rejected);
	assert_true(opened > 0 && rejected > 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_img_open_reads_sections_and_symbols),
		cmocka_unit_test(test_img_functions_sorted_and_found),
		cmocka_unit_test(test_img_rel_symbols_are_section_relative),
		cmocka_unit_test(test_img_rejects_bad_files),
		cmocka_unit_test(test_an_listing_matches_objdump_layout),
		cmocka_unit_test(test_img_damaged_images_never_crash),
		cmocka_unit_test(test_img_real_library_versions),
		cmocka_unit_test(test_img_section_at_finds_allocated_sections),
		cmocka_unit_test(test_img_symtab_keeps_local_symbols),
		cmocka_unit_test(test_img_reads_symtab_and_dynsym),
		cmocka_unit_test(test_img_build_id_matches_readelf),
		cmocka_unit_test(test_img_build_id_from_note_section),
		cmocka_unit_test(test_img_program_headers_match_readelf),
		cmocka_unit_test(test_img_dynsym_versioned_names_match_nm),
		cmocka_unit_test(test_img_rejects_host_binary),
		cmocka_unit_test(test_img_damaged_program_headers),
		cmocka_unit_test(test_img_plt_slots_named),
		cmocka_unit_test(test_img_truncated_and_garbage_files),
		cmocka_unit_test(test_img_damaged_shared_object_never_crashes),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
