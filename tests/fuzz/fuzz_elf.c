/* tests/fuzz/fuzz_elf.c - fuzz target: the image reader (img_*) and the machine's ELF loader. */
#include "fuzz_common.h"

#include <stdlib.h>
#include <string.h>

#include "img.h"
#include "mach.h"

/*
 * Input: one file. It is opened with img_open() as an Alpha image and as any machine's, and
 * every accessor is walked (segments, interpreter, build-id, sections and their contents,
 * both symbol tables with versions, functions, word reads); then mach_load() maps it into a
 * hosted machine without running it. The machine is confined to an empty directory
 * (mach_opts.confine) with no sysroot, so a PT_INTERP the fuzzer writes names nothing on the
 * host. Oracles: the sanitizers, and a defined symbol found by its own name.
 */

static char empty_dir[64];

static void rm_empty_dir(void)
{
	rmdir(empty_dir);
}

static unsigned int walk(const struct img *im)
{
	unsigned int h = img_type(im) + img_machine(im);
	const uint8_t *id;
	size_t n, i, len;
	uint64_t va;
	uint32_t w;

	h += (unsigned int)img_file_size(im) + (unsigned int)img_entry(im);
	for (i = 0, n = img_nsegments(im); i < n; i++)
		h += img_segment(im, i)->flags;
	if (img_interp(im))
		h += (unsigned int)strlen(img_interp(im));
	if (img_dynamic_vaddr(im, &va))
		h += (unsigned int)va;
	id = img_build_id(im, &len);
	for (i = 0; id && i < len; i++)
		h += id[i];
	for (i = 0, n = img_nsections(im); i < n; i++) {
		const struct img_section *s = img_section(im, i);

		h += (unsigned int)strlen(s->name);
		if (s->data && s->size)
			h += s->data[0] + s->data[s->size - 1];
		if (img_section_by_index(im, s->index) != s)
			abort();
		h += img_section_is_code(s);
		if (!img_read32(im, s->addr, &w))
			h += w;
		if (img_section_at(im, s->addr))
			h++;
	}
	h += (unsigned int)img_ncode_sections(im) + (unsigned int)img_text_size(im);
	if (img_section_by_name(im, ".text"))
		h++;
	for (int t = 0; t < 2; t++)
		for (i = 0, n = img_nsyms(im, (enum img_symtab)t); i < n; i++) {
			const struct img_symbol *s = img_sym(im, (enum img_symtab)t, i);

			h += (unsigned int)strlen(s->name) + (unsigned int)strlen(s->versioned);
			if (s->version)
				h += (unsigned int)strlen(s->version);
		}
	for (i = 0, n = img_nsymbols(im); i < n; i++) {
		const struct img_symbol *s = img_symbol(im, i), *f;

		if (!s->name[0] || s->shndx == IMG_SHN_UNDEF)
			continue;
		f = img_symbol_by_name(im, s->name);
		if (!f || strcmp(f->name, s->name))
			abort(); /* a listed symbol is found by its own name */
	}
	for (i = 0, n = img_nfunctions(im); i < n; i++) {
		const struct img_symbol *f = img_function(im, i);

		h += img_function_at(im, f->value) != NULL;
	}
	if (!img_read32(im, img_entry(im), &w))
		h += w;
	return h;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const unsigned int flags[] = { 0, IMG_ANY_MACHINE };
	struct mach_opts mo = { .sysroot = "", .cpu = "none", .prog = "fuzz" };
	char path[64], *argv[] = { (char *)"fuzz", NULL }, *envp[] = { NULL };
	volatile unsigned int sink = 0;
	struct mach_load_info li;
	struct ax_error err;
	struct mach *m;
	struct img *im;
	int fd;

	if (!empty_dir[0]) {
		fuzz_quiet();
		snprintf(empty_dir, sizeof(empty_dir), "/tmp/axprof-fuzz-elf.XXXXXX");
		if (!mkdtemp(empty_dir))
			abort();
		atexit(rm_empty_dir);
	}
	fd = fuzz_memfd(data, size, path, sizeof(path));
	if (fd < 0)
		return 0;
	for (size_t i = 0; i < sizeof(flags) / sizeof(flags[0]); i++)
		if (!img_open(path, flags[i], &im, &err)) {
			sink += walk(im);
			img_close(im);
		}
	mo.confine = empty_dir;
	if (!mach_new(&m, &mo)) {
		if (!mach_load(m, path, argv, envp, &li, &err))
			sink += (unsigned int)li.entry;
		mach_free(m);
	}
	close(fd);
	(void)sink;
	return 0;
}
