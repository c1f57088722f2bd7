/* tools/lib/tl_view.h - reading the profile database for the report tools (report, vprof, vreplay). */
#ifndef TL_VIEW_H
#define TL_VIEW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "img.h"
#include "pdb.h"
#include "ax_json.h"
#include "tl_opts.h"

/*
 * The report tools read one epoch of a database: its images (index), each image's profile, and
 * the image files themselves (symbols and instruction words through image/img.h, text
 * through isa_dis.h). Offsets are ELF addresses (daemon/dmn_lib.h, ATTRIBUTION), so symbol
 * lookups and disassembly take them directly.
 */

struct tl_view_image {
	struct pdb_image img; /* key, path ("" when unknown) ... */
	struct pdb_prof *prof; /* NULL when the image has no profile in the epoch */
	struct img *elf; /* NULL when the file cannot be read (then no symbols, no text) */
	struct ax_error elf_err; /* why elf is NULL */
	struct img_lines *lines; /* its DWARF source lines: read on first use (tl_view_lines) */
	struct ax_error lines_err; /* why lines is NULL (no -g, no file) */
	bool lines_tried;
	const struct img_symbol **addr_syms; /* data and text symbols by address (tl_addr.c) */
	size_t naddr_syms;
	bool addr_tried;
	const char *name; /* what to print: the path, else the key */
	uint64_t total[PDB_EV_MAX]; /* samples per event */
};

struct tl_view {
	struct pdb_db *db;
	uint32_t epoch;
	struct tl_view_image *im;
	size_t n;
	struct pdb_prof *unknown; /* NULL when none */
	uint64_t unknown_total[PDB_EV_MAX];
	uint64_t total[PDB_EV_MAX]; /* every image and unknown */
	uint32_t events; /* bit e: event e has samples somewhere */
	struct pdb_skips skipped; /* damaged files left out (TL_VIEW_SKIP_DAMAGED) */
	bool skip_damaged; /* opened with TL_VIEW_SKIP_DAMAGED */
};

/*
 * Open dir read-only and load epoch (0: the current one) with every image's profile and ELF.
 * On failure a message in err (may be NULL); -ENOENT for a missing database or epoch.
 */
int tl_view_open(struct tl_view *v, const char *dir, uint32_t epoch, struct ax_error *err);
/*
 * The same, with flags: TL_VIEW_SKIP_DAMAGED (--skip-damaged) loads what reads and lists each
 * damaged file left out in v->skipped (pdb_load_opt): the numbers are those of the rest.
 */
#define TL_VIEW_SKIP_DAMAGED (1u << 0)
int tl_view_open_opt(struct tl_view *v, const char *dir, uint32_t epoch, unsigned int flags,
		     struct ax_error *err);
void tl_view_close(struct tl_view *v);

/*
 * What was skipped, said everywhere it matters, so that partial numbers are never silent:
 * tl_skips_warn: "CMD: skipped damaged FILE: why" per file on stderr; tl_skips_text: the same
 * lines, without CMD, for a text header (nothing when none); tl_skips_json: a "skipped" array of
 * {file, why} (always written when skip_damaged, empty when nothing was skipped).
 */
void tl_skips_warn(const struct pdb_skips *s, const char *cmd);
void tl_skips_text(FILE *f, const struct pdb_skips *s);
void tl_skips_json(struct ax_json *j, const struct pdb_skips *s);

/*
 * tl_view_open_opt() with the report options o (db, epoch, --skip-damaged); then the skipped
 * files are warned about on stderr and, for text output (!o->json), listed at the top of stdout.
 */
int tl_view_open_ro(struct tl_view *v, const struct tl_ropts *o, struct ax_error *err);
/* The "skipped" key of a document about v (only with --skip-damaged). */
void tl_view_json_skipped(struct ax_json *j, const struct tl_view *v);

/*
 * The images matching `sel`: NULL or "" selects all; otherwise an image whose key equals sel,
 * whose path equals sel, or whose path's last component equals sel. Returns the count written
 * into out (an array of v->n pointers), sorted by samples of `event` (descending, then name).
 */
size_t tl_view_select(const struct tl_view *v, const char *sel, unsigned int event,
		      const struct tl_view_image **out);

/* Order of image names for ties in sorted output: by file name, then by the whole path, so the
 * order does not depend on where the files live. */
int tl_name_cmp(const char *a, const char *b);

/*
 * Procedure (function symbol) of offset in im, or NULL; *start gets its address. Here and in
 * tl_view_proc_bounds() the name is the one to print (tl_sym_name(): C++ names demangled,
 * tl_sym_mangled() gives the raw one); a name to look up may be either.
 */
const char *tl_view_proc(const struct tl_view_image *im, uint64_t offset, uint64_t *start);

/*
 * The procedure holding offset (or, with name != NULL, the procedure named name; offset is then
 * ignored): its name, first address and end (one past its last instruction). false if none.
 */
/* Has some image matching sel (as tl_view_select) a procedure called name? (--proc) */
bool tl_view_has_proc(const struct tl_view *v, const char *sel, const char *name);
bool tl_view_proc_bounds(const struct tl_view_image *im, const char *name, uint64_t offset,
			 const char **pname, uint64_t *start, uint64_t *end);

/*
 * The instruction at offset: its word (0 and false when unreadable) and objdump's text with
 * tabs turned into one space each (buf of size >= 128).
 */
bool tl_view_insn(const struct tl_view_image *im, uint64_t offset, uint32_t *word, char *buf,
		  size_t size);

/*
 * Source lines (DWARF, image/img.h img_line_at): the line of offset, true and *out when the
 * image has one (line 0, "no line", is false). tl_view_line_str: "file:line" with the file's
 * last component, "" when none. tl_view_line_json: the "file" (as DWARF names it) and "line"
 * keys, nothing when none.
 */
bool tl_view_line(const struct tl_view_image *im, uint64_t offset, struct img_line *out);
/* The image's line table, read on first use; NULL and *why (may be NULL) when it has none. */
const struct img_lines *tl_view_lines(const struct tl_view_image *im, const char **why);
const char *tl_view_line_str(const struct tl_view_image *im, uint64_t offset, char *buf,
			     size_t size);
void tl_view_line_json(struct ax_json *j, const struct tl_view_image *im, uint64_t offset);

/* Event name for printing in lower case ("cycles", "imiss", ...), into buf. */
const char *tl_event_lower(unsigned int event, char *buf, size_t size);
/* Parse an event name, any case ("cycles", "CYCLES", "replay"); -EINVAL. */
int tl_event_parse(const char *name);

/* Register name of a hotlist destination: 0-30 objdump's integer names, 32-62 "$fN". */
const char *tl_dest_name(unsigned int dest, char *buf, size_t size);

#endif /* TL_VIEW_H */
