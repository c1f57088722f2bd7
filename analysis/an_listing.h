/* analysis/an_listing.h - an objdump -d listing of an Alpha ELF file, byte for byte. */
#ifndef AN_LISTING_H
#define AN_LISTING_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "img.h"

/*
 * an_listing_print() writes what `alpha-linux-gnu-objdump -d FILE` (binutils 2.40) writes for
 * the same file: the file line, one "Disassembly of section" block per section with code,
 * a "<symbol>:" header before each symbol's code, one line per instruction with its four bytes
 * and text (isa_dis.h), "\t..." for runs of zero bytes, objects inside code dumped as bytes,
 * and branch targets annotated with <symbol+0x..>. The symbol choices follow objdump's rules
 * (binutils/objdump.c: remove_useless_symbols, compare_symbols, find_symbol_for_address), so a
 * plain diff of the two outputs is empty.
 *
 * With an insn callback it writes nothing and hands each instruction to the callback instead
 * (`axprof dis --json` writes them as JSON through the tools' JSON writer): its section,
 * address, word, mnemonic and operands, the block's symbol and the offset from it as objdump's
 * header names them (NULL without one), and the target of branches and hinted jumps.
 */

struct an_listing_insn {
	const char *section;
	uint64_t addr;
	uint32_t word;
	const char *mnemonic;
	const char *operands; /* "" when none */
	const char *symbol; /* the block's symbol, NULL when none */
	int64_t offset; /* addr - the symbol's value */
	bool has_target;
	uint64_t target; /* branches and hinted jumps */
};

#define AN_LISTING_NOADDR UINT64_MAX

struct an_listing_opts {
	const char *section; /* only this section (objdump -j); NULL: every code section */
	uint64_t start; /* objdump --start-address, or AN_LISTING_NOADDR */
	uint64_t stop; /* objdump --stop-address, or AN_LISTING_NOADDR */
	/* NULL: objdump's text on out. Else every instruction to insn(priv, ...), nothing on out. */
	void (*insn)(void *priv, const struct an_listing_insn *in);
	void *priv;
};

struct an_listing_stats {
	uint64_t insns; /* instruction lines written */
	uint64_t sections; /* sections listed */
};

/*
 * Write the listing of e to out. Returns 0, or -ENOEXEC with a message in err (may be NULL) when there is
 * nothing to disassemble (no code section, or --section names no section with contents),
 * -ENOMEM, or -EIO when writing failed. stats may be NULL.
 */
int an_listing_print(const struct img *e, const struct an_listing_opts *opts, FILE *out,
		     struct an_listing_stats *stats, struct ax_error *err);

#endif /* AN_LISTING_H */
