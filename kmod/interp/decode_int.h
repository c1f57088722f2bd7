/* kmod/interp/decode_int.h - the decode tables and axp_decode()'s body, inlined by the executor. */
#ifndef AXP_DECODE_INT_H
#define AXP_DECODE_INT_H

#include "axp.h"

/* decode.c's (opcode, function) slot table: entries hold op + 1, 0 = no instruction, and
 * AXP_SLOT_MORE in the one slot the opcodes that need more than a slot (0x16-0x18) point to. */
#define AXP_SLOT_NR 1478
#define AXP_SLOT_MORE 0xff
extern const uint8_t axp_slot_op[AXP_SLOT_NR];

/* Per opcode: op = slot_op[base + ((word >> sh) & mask)] - 1; disp = (int32)(word << dsh) >> dsh,
 * masked with dmask (all ones for the sign-extended fields). */
struct axp_opc_dec {
	uint16_t base;
	uint8_t sh, mask;
	uint8_t dsh;
	uint32_t dmask;
};

extern const struct axp_opc_dec axp_opc_dec[64];

/*
 * Per slot value less one (a byte: 0xff an empty slot, 0xfe AXP_SLOT_MORE), what makes the
 * operation need a second look (decode.c): operand constraints that make an encoding invalid,
 * no instruction, or an opcode decoded by axp_decode_more(). Zero for most operations.
 */
enum { AXP_REQ_RA31 = 1, AXP_REQ_RB31 = 2, AXP_REQ_NOLIT = 4, AXP_REQ_NONE = 8, AXP_REQ_MORE = 16 };
extern const uint8_t axp_op_req[256];

uint8_t axp_decode_more(uint32_t word, unsigned int req);

/* The operation of `word` alone: one slot, one test (decode.c documents the tables). */
static inline __attribute__((__always_inline__)) uint8_t axp_decode_op(uint32_t word)
{
	const struct axp_opc_dec *e = &axp_opc_dec[word >> 26];
	unsigned int op = (uint8_t)(axp_slot_op[e->base + ((word >> e->sh) & e->mask)] - 1);
	unsigned int req = axp_op_req[op];

	if (__builtin_expect(req != 0, 0))
		op = axp_decode_more(word, req);
	return op;
}

/* axp_decode(): every field, then the operation. */
static inline __attribute__((__always_inline__)) void axp_decode_inline(uint32_t word,
									struct axp_insn *d)
{
	const struct axp_opc_dec *e = &axp_opc_dec[word >> 26];

	d->word = word;
	d->ra = (word >> 21) & 31;
	d->rb = (word >> 16) & 31;
	d->rc = word & 31;
	d->islit = (word >> 12) & 1;
	d->lit = (word >> 13) & 0xff;
	d->fn11 = (word >> 5) & 0x7ff;
	d->disp = (int32_t)(((uint32_t)((int32_t)(word << e->dsh) >> e->dsh)) & e->dmask);
	d->op = axp_decode_op(word);
}

#endif /* AXP_DECODE_INT_H */
