/* analysis/an_proc.h - procedures of an Alpha image: from symbols, or found from the code. */
#ifndef AN_PROC_H
#define AN_PROC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "img.h"
#include "an_reloc.h"

/*
 * The procedures of an image are the unit of DCPI's analysis (SOSP'97 §6: "The analysis
 * estimates the Fi values by examining one procedure at a time").
 *
 * Where they come from, in order:
 *  1. Function symbols (STT_FUNC, STT_GNU_IFUNC in code sections; .symtab, else .dynsym, as
 *     img_function() lists them). A procedure runs from its symbol to start + st_size; a size
 *     of 0, or a size running into the next function symbol, ends at the next function symbol
 *     (so a symbol inside another one splits it). The section end clips every procedure.
 *  2. Code not covered by any function symbol (stripped images, static functions of a .so that
 *     keeps only .dynsym, .plt) is split into procedures found from the code, marked
 *     AN_PROC_GUESSED. Padding (nop, unop, fnop, zero words) between procedures belongs to none.
 *     A guessed procedure starts at the first non-padding word, at a call target (a BSR from
 *     anywhere in the image, or the GOT slot of `ldq pv,d(gp); jsr ra,(pv)` when it holds a
 *     code address; a target 8 bytes past an `ldah gp,..(pv); lda gp,..(gp)` pair is an entry
 *     past that GP prologue, not a start), at the ELF entry point, or at a GP prologue
 *     `ldah gp,..(pv)`. It ends at an unconditional transfer (ret, br, jmp) that no branch of
 *     the procedure jumps past, at the next start, or at the end of the gap. A jump table whose
 *     targets run past the end then merges the guessed procedures it reaches (an_proc.c).
 *
 * Relocatable objects (ET_REL) put every section at address 0: procedures are found per section
 * (an_procs_at() and address lookups are then ambiguous), and branch displacements and GP
 * values that relocations would fill in are not applied, so their jump tables stay unresolved.
 *
 * Each procedure records its GP: from its own prologue (`ldah gp,hi(pv); lda gp,lo(gp)` at the
 * start, where pv holds the procedure's address), else from a GP reload after a call
 * (`ldah gp,hi(ra); lda gp,lo(gp)` right after a BSR/JSR, ra = the return address), else the
 * GP of the nearest earlier procedure of the same section (AN_PROC_GP_INHERITED).
 *
 * Extra entries: a direct branch (BSR, BR or a conditional branch) from one procedure into
 * another at an address that is not its start makes that address an entry of the target
 * procedure (GCC calls local functions with `bsr ra,f+8`, skipping the GP prologue). The CFG
 * gives each entry an edge from the procedure's virtual entry node.
 */

#define AN_PROC_GUESSED (1u << 0) /* boundaries found from the code, not from a symbol */
#define AN_PROC_GP (1u << 1) /* gp is known (from this procedure's code) */
#define AN_PROC_GP_INHERITED (1u << 2) /* gp is the nearest earlier procedure's */
#define AN_PROC_CLIPPED (1u << 3) /* symbol size cut at the next symbol or section end */

struct an_proc {
	uint64_t start, end; /* [start, end), both multiples of 4 */
	const char *name; /* the symbol's name; NULL for a guessed procedure */
	uint64_t gp; /* valid with AN_PROC_GP or AN_PROC_GP_INHERITED */
	uint32_t flags; /* AN_PROC_* */
	uint32_t xentry, nxentries; /* extra entries: an_procs.xentries[xentry .. +nxentries) */
	const struct img_section *sec; /* the code section holding it */
};

struct an_procs_stats {
	size_t symbol; /* procedures from symbols */
	size_t guessed; /* procedures found from code */
	uint64_t pad_bytes; /* padding between procedures */
	uint64_t code_bytes; /* all code section bytes */
};

struct an_procs {
	const struct img *elf;
	struct an_proc *v; /* sorted by start, not overlapping */
	size_t n;
	uint64_t *xentries; /* extra entry addresses, sorted; grouped by procedure */
	size_t nxentries;
	struct an_procs_stats stats;
	struct an_relocs rel; /* relocated words and address-taken code (an_reloc.h) */
	uint8_t *noret; /* per procedure: does it return? an_callee.c's cache */
	uint32_t noret_depth; /* an_callee.c: CFGs being built for it */
};

/*
 * Find the procedures of e. Returns 0 and *out, -ENOEXEC with a message in err (may be NULL) when e has no
 * code section with contents, or -ENOMEM.
 */
int an_procs_find(const struct img *e, struct an_procs **out, struct ax_error *err);
void an_procs_free(struct an_procs *ps);

/* The procedure containing addr, or NULL. */
const struct an_proc *an_procs_at(const struct an_procs *ps, uint64_t addr);

/*
 * The procedure named `name` (a symbol name with or without "@version", or "proc_<hex>" for a
 * guessed one, or a hex address "0x..." inside it), or NULL. A name no procedure carries may
 * still be any symbol in a code section (a .symtab local, a NOTYPE routine such as libc's
 * __remqu): the procedure holding its address.
 */
const struct an_proc *an_procs_lookup(const struct an_procs *ps, const char *name);

/* Writes the procedure's display name: its symbol, or "proc_<start in hex>". */
void an_proc_name(const struct an_proc *p, char *buf, size_t size);

/* The instruction word at addr inside p (addr in [p->start, p->end)). */
static inline uint32_t an_proc_word(const struct an_proc *p, uint64_t addr)
{
	const uint8_t *b = p->sec->data + (addr - p->sec->addr);

	return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
}

/* Padding between procedures: nop, unop, fnop or a zero word. */
bool an_word_is_pad(uint32_t word);

#endif /* AN_PROC_H */
