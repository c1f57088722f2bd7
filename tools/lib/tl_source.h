/* tools/lib/tl_source.h - source files for annotate: found by DWARF's names, read once, by line. */
#ifndef TL_SOURCE_H
#define TL_SOURCE_H

#include <stdbool.h>
#include <stddef.h>

#include "img.h"

/*
 * Where a line's file is looked for (dcpilist and perf annotate look the same way):
 *   with a source directory DIR: DIR/FILE (FILE as DWARF names it, when relative), then
 *   DIR/<FILE's last component>;
 *   without: FILE when it is absolute, else COMP_DIR/FILE (the compilation directory DWARF
 *   records), then FILE relative to the current directory.
 * Files are read once and kept; a file not found is remembered as such, with the paths tried.
 */
struct tl_sources;

struct tl_sources *tl_sources_new(const char *dir); /* dir may be NULL; NULL when out of memory */
void tl_sources_free(struct tl_sources *s);

/*
 * The text of ln's line (without its newline) or NULL when the file was not found or is
 * shorter. *first is true the first time ln's file is asked about (to say once where it was
 * read, or that it was not found); *where is the path read, or the paths tried.
 */
const char *tl_source_line(struct tl_sources *s, const struct img_line *ln, bool *first,
			   const char **where);

#endif /* TL_SOURCE_H */
