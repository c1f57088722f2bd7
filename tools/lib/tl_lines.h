/* tools/lib/tl_lines.h - samples per source line (report --lines, diff, export). */
#ifndef TL_LINES_H
#define TL_LINES_H

#include <stddef.h>
#include <stdint.h>

#include "tl_view.h"

#define TL_LINE_COLS 8

/*
 * SpeedShop's per-line view (seed r10000-counters-perfex-speedshop, Figure 3): the samples of
 * each event in ev[0..nev) of the images sel[0..nsel), summed per (image, file, line) through the
 * image's DWARF line table. Samples at addresses without a line (no -g, no file, line 0) are
 * summed per image in a row whose file is NULL, so the rows add up to the images' totals.
 */
struct tl_line_row {
	const struct tl_view_image *im;
	const char *file; /* as DWARF names it (libdw's string, lives as long as the view); NULL */
	unsigned int line;
	uint64_t c[TL_LINE_COLS]; /* samples of ev[k] */
};

/* 0 and *out (free() it), *n rows in (image, file, line) order; -ENOMEM, -EINVAL (nev). */
int tl_line_rows(const struct tl_view_image *const *sel, size_t nsel, const unsigned int *ev,
		 unsigned int nev, struct tl_line_row **out, size_t *n);

#endif /* TL_LINES_H */
