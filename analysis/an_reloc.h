/* analysis/an_reloc.h - code addresses an image keeps in data: dynamic relocations, GOT, tables. */
#ifndef AN_RELOC_H
#define AN_RELOC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "img.h"

/*
 * Two views of the words an image's data holds, for the CFG's indirect jumps (issue 15 item 2):
 *
 * 1. Relocated words. In a shared object or PIE, a table of code addresses (GCC's computed
 *    goto `static void *tab[] = { &&l0, ... }` in .data.rel.ro) holds zeros in the file: the
 *    loader writes each entry from an R_ALPHA_RELATIVE dynamic relocation of .rela.dyn
 *    (base + r_addend; Elf64_Rela, 24 bytes: r_offset, r_info = symbol << 32 | type,
 *    r_addend). With the load base 0, the ELF addresses the analysis uses, an entry's value is
 *    its addend. R_ALPHA_REFQUAD and R_ALPHA_GLOB_DAT to a symbol this image defines give the
 *    symbol's value plus the addend. an_relocs_value() answers "what does the 8-byte word at
 *    this address hold once loaded?".
 * 2. Address-taken code. Every code address the image stores in data: the values of the
 *    relocations above, and the aligned 8-byte words of the allocated data sections (.rodata,
 *    .data.rel.ro, .got, .data, ...) that point into a code section (what the linker filled in
 *    an executable). A label an indirect jump can reach has its address taken somewhere: here,
 *    or in the code (a GP-relative literal, an_cfg.c).
 * The section bytes come from the image layer, which checked that they lie in the file; a
 * damaged table is not an error (its entries are skipped).
 */
struct an_relocs {
	uint64_t *at, *val; /* relocated 8-byte words, sorted by address: where, and the value */
	size_t n;
	uint64_t *taken; /* code addresses stored in data or relocations, sorted, distinct */
	size_t ntaken;
};

/* Fill r from e. Returns 0 or -ENOMEM (r is then empty). */
int an_relocs_init(struct an_relocs *r, const struct img *e);
void an_relocs_exit(struct an_relocs *r);

/* The loaded value of the relocated 8-byte word at addr: true and *val, or false. */
bool an_relocs_value(const struct an_relocs *r, uint64_t addr, uint64_t *val);

/* Index of the first address-taken code address >= addr (ntaken if none). */
size_t an_relocs_taken_from(const struct an_relocs *r, uint64_t addr);

#endif /* AN_RELOC_H */
