/* isa/isa_dis.h - Alpha instruction text, spelled exactly as alpha-linux-gnu-objdump -d prints it. */
#ifndef ISA_DIS_H
#define ISA_DIS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * The text of one instruction is "mnemonic" or "mnemonic\toperands", byte for byte what GNU
 * objdump 2.40 (opcodes/alpha-dis.c, default machine: no PALcode-specific HW_* forms; BWX, CIX,
 * FIX and MAX/MVI all known) prints after the raw bytes on a -d line. Some forms keep objdump's
 * trailing tab ("nop\t", "unop\t", "fnop\t"). A word that is not an instruction for objdump is
 * ".long 0x...". The decode itself is kmod/interp's axp_decode(); which encodings objdump
 * accepts, and how it names them, are this module's own rules (see isa_dis.c).
 */

/*
 * Writes the text objdump prints for a code address operand (a branch target or a JMP/JSR
 * hint target) into buf, NUL-terminated, at most `size` bytes. Without one, isa_dis_format()
 * prints the address the way objdump does for a file with no symbols: "0x" and hex digits.
 */
typedef void (*isa_dis_addr_fn)(void *priv, uint64_t addr, char *buf, size_t size);

struct isa_dis_opts {
	isa_dis_addr_fn addr; /* may be NULL */
	void *priv; /* passed to addr */
};

/* Enough for every text isa_dis_format() writes with the default address printer. */
#define ISA_DIS_TEXT_MAX 64

/* The longest address text isa_dis_format() takes from an address printer (longer is cut). */
#define ISA_DIS_ADDR_MAX 4096

/*
 * Format the instruction `word` located at `pc`. Returns the length of the text, or -ENOSPC
 * when it did not fit (buf then holds a truncated, NUL-terminated text), or -EINVAL when
 * buf is NULL or size is 0. opts may be NULL.
 */
int isa_dis_format(uint32_t word, uint64_t pc, const struct isa_dis_opts *opts, char *buf,
		   size_t size);

/* True when objdump prints `word` as an instruction, false when it prints ".long". */
bool isa_dis_is_insn(uint32_t word);

/*
 * The code address an instruction names (branch displacement target, or JMP/JSR hint target),
 * as objdump computes it. Returns true and sets *target for branch-format words and for
 * JMP/JSR words that objdump prints with a hint target; false otherwise.
 */
bool isa_dis_code_target(uint32_t word, uint64_t pc, uint64_t *target);

/* objdump's name for integer register r (0-31): v0, t0..t11, s0..s5, fp, a0..a5, ra, t12, at, gp, sp, zero. */
const char *isa_dis_ireg_name(unsigned int r);

#endif /* ISA_DIS_H */
