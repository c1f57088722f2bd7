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
 * In JSON mode it writes one JSON object per instruction, one per line (JSON Lines):
 *   {"section":".text","addr":"0x2caf0","word":"0x27bb001e","mnemonic":"ldah",
 *    "operands":"gp,30(t12)","symbol":"abort@@GLIBC_2.0","offset":-28,"target":"0x..."}
 * "symbol"/"offset" name the block's symbol as objdump's header does (absent without one);
 * "target" is present for branches and hinted jumps.
 */

#define AN_LISTING_NOADDR UINT64_MAX

struct an_listing_opts {
	const char *section; /* only this section (objdump -j); NULL: every code section */
	uint64_t start; /* objdump --start-address, or AN_LISTING_NOADDR */
	uint64_t stop; /* objdump --stop-address, or AN_LISTING_NOADDR */
	bool json;
};

struct an_listing_stats {
	uint64_t insns; /* instruction lines written */
	uint64_t sections; /* sections listed */
};

/*
 * Write the listing of e to out. Returns 0, or -ENOEXEC with a message in err when there is
 * nothing to disassemble (no code section, or --section names no section with contents),
 * -ENOMEM, or -EIO when writing failed. stats may be NULL.
 */
int an_listing_print(const struct img *e, const struct an_listing_opts *opts, FILE *out,
		     struct an_listing_stats *stats, char *err, size_t errlen);

#endif /* AN_LISTING_H */
