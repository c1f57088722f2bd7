/* kmod/interp/decode_int.h - the decode tables and axp_decode()'s body, inlined by the executor. */
#ifndef AXP_DECODE_INT_H
#define AXP_DECODE_INT_H

#include "axp.h"

/* decode.c's (opcode, function) slot table: entries hold op + 1, 0 = no instruction. */
#define AXP_SLOT_NR 1477
extern const uint8_t axp_slot_op[AXP_SLOT_NR];

enum { AXP_DEC_CHECK = 1, AXP_DEC_SPECIAL = 2 };

/* Per opcode: op = slot_op[base + ((word >> sh) & mask)]; disp = (int32)(word << dsh) >> dsh,
 * masked with dmask (all ones for the sign-extended fields); how: AXP_DEC_*. */
struct axp_opc_dec {
	uint16_t base;
	uint8_t sh, mask;
	uint8_t dsh, how;
	uint32_t dmask;
};

extern const struct axp_opc_dec axp_opc_dec[64];

/* Operand constraints that make an encoding invalid, per operation (decode.c). */
enum { AXP_REQ_RA31 = 1, AXP_REQ_RB31 = 2, AXP_REQ_NOLIT = 4 };
extern const uint8_t axp_op_req[AXP_OP_NR];

unsigned int axp_decode_special(unsigned int opc, unsigned int fn11);

/* The operation of `word` alone, from the tables (decode.c documents them). */
static inline __attribute__((__always_inline__)) unsigned int axp_decode_op(uint32_t word)
{
	const struct axp_opc_dec *e = &axp_opc_dec[word >> 26];
	unsigned int op, req;

	op = axp_slot_op[e->base + ((word >> e->sh) & e->mask)];
	if (__builtin_expect(e->how != 0, 0)) {
		if (e->how == AXP_DEC_CHECK)
			op = op && axp_op_info[op - 1].func == (word & 0xffff) ? op : 0;
		else
			op = axp_decode_special(word >> 26, (word >> 5) & 0x7ff) + 1;
	}
	op = op ? op - 1 : AXP_OP_INVALID;
	req = axp_op_req[op];
	if (__builtin_expect(req != 0, 0) && (((req & AXP_REQ_RA31) && ((word >> 21) & 31) != 31) ||
					      ((req & AXP_REQ_RB31) && ((word >> 16) & 31) != 31) ||
					      ((req & AXP_REQ_NOLIT) && ((word >> 12) & 1))))
		op = AXP_OP_INVALID;
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
