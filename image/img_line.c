/* image/img_line.c - source lines and inline chains of an image from its DWARF (elfutils' libdw). */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <errno.h>
#include <stdlib.h>

#include "img_int.h"

/*
 * DWARF 5 (dwarfstd.org, "DWARF Debugging Information Format Version 5"): §6.2 the line-number
 * program, whose rows map addresses to file, line and column; §3.3.8.2 inlined subroutines
 * (DW_TAG_inlined_subroutine with DW_AT_call_file and DW_AT_call_line). libdw decodes both; this
 * file only asks it and turns its answers into img_* terms.
 */

struct img_lines {
	Dwarf *dw;
	const struct img *im;
};

int img_lines_open(const struct img *im, struct img_lines **out, struct ax_error *err)
{
	struct img_lines *l;
	Dwarf *dw;

	*out = NULL;
	if (!img_section_by_name(im, ".debug_line") && !img_section_by_name(im, ".zdebug_line"))
		return ax_fail(
			err, -ENODATA,
			"%s has no DWARF line information (build it with -g, do not strip it)",
			im->path);
	dw = dwarf_begin_elf(im->elf, DWARF_C_READ, NULL);
	if (!dw)
		return AX_CORRUPT(err, im->path, 0, "DWARF that libdw rejects: %s",
				  dwarf_errmsg(-1));
	l = calloc(1, sizeof(*l));
	if (!l) {
		dwarf_end(dw);
		return ax_fail(err, -ENOMEM, "%s: out of memory", im->path);
	}
	l->dw = dw;
	l->im = im;
	*out = l;
	return 0;
}

void img_lines_close(struct img_lines *l)
{
	if (!l)
		return;
	dwarf_end(l->dw);
	free(l);
}

static const char *comp_dir(Dwarf_Die *cu)
{
	Dwarf_Attribute a;

	return dwarf_formstring(dwarf_attr(cu, DW_AT_comp_dir, &a));
}

bool img_line_at(const struct img_lines *l, uint64_t addr, struct img_line *out)
{
	Dwarf_Die cu;
	Dwarf_Line *ln;
	int line = 0, col = 0;
	const char *file;

	if (!l || !dwarf_addrdie(l->dw, addr, &cu))
		return false;
	ln = dwarf_getsrc_die(&cu, addr);
	if (!ln)
		return false;
	file = dwarf_linesrc(ln, NULL, NULL);
	if (!file || dwarf_lineno(ln, &line) || line < 0)
		return false;
	if (dwarf_linecol(ln, &col) || col < 0)
		col = 0;
	out->file = file;
	out->comp_dir = comp_dir(&cu);
	out->line = (unsigned int)line;
	out->column = (unsigned int)col;
	return true;
}

/* The file named by DW_AT_call_file of an inlined call in cu, or "" when it cannot be read. */
static const char *call_file(Dwarf_Die *cu, Dwarf_Die *die)
{
	Dwarf_Attribute a;
	Dwarf_Files *files;
	Dwarf_Word idx;
	size_t nfiles;
	const char *f;

	if (dwarf_formudata(dwarf_attr(die, DW_AT_call_file, &a), &idx) ||
	    dwarf_getsrcfiles(cu, &files, &nfiles) || idx >= nfiles)
		return "";
	f = dwarf_filesrc(files, idx, NULL, NULL);
	return f ? f : "";
}

size_t img_line_inlines(const struct img_lines *l, uint64_t addr, struct img_inline *out,
			size_t max)
{
	Dwarf_Die cu, *scopes = NULL;
	size_t n = 0;
	int ns;

	if (!l || !dwarf_addrdie(l->dw, addr, &cu))
		return 0;
	ns = dwarf_getscopes(&cu, addr, &scopes);
	for (int i = 0; i < ns; i++) {
		Dwarf_Attribute a;
		Dwarf_Word line = 0;
		const char *name;

		if (dwarf_tag(&scopes[i]) != DW_TAG_inlined_subroutine)
			continue;
		if (n < max) {
			name = dwarf_diename(&scopes[i]);
			if (dwarf_formudata(dwarf_attr(&scopes[i], DW_AT_call_line, &a), &line) ||
			    line > UINT32_MAX)
				line = 0;
			out[n] = (struct img_inline){ name ? name : "", call_file(&cu, &scopes[i]),
						      (unsigned int)line };
		}
		n++;
	}
	free(scopes);
	return n;
}
