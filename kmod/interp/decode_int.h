/* kmod/interp/decode_int.h - the decode tables and axp_decode()'s body, inlined by the executor. */
#ifndef AXP_DECODE_INT_H
#define AXP_DECODE_INT_H

#include "axp.h"

/*
 * decode.c's first look: AXP_KEY(word) = insn[31:26] << 7 | insn[11:5] indexes a byte that holds
 * the operation, or AXP_KEY_MORE where these bits do not settle it. Computed as one multiply: of
 * the two fields kept, w + (w << 14) moves insn[11:5] to bits 25:19, under insn[31:26], without
 * carries (the bits do not overlap) and, in 32 bits, drops the copy of insn[31:26]; bits 31:19
 * are the key (checked against the shifts on all 2^32 words).
 */
#define AXP_KEY_NR (64 << 7)
#define AXP_KEY_MORE 0xff
#define AXP_KEY(word) ((uint32_t)(((uint32_t)(word)&0xfc000fe0u) * 0x4001u) >> 19)
extern const uint8_t axp_key_op[AXP_KEY_NR];

/* Per opcode: disp = (int32)(word << dsh) >> dsh, masked with dmask (all ones for the
 * sign-extended fields). */
struct axp_opc_dec {
	uint8_t dsh;
	uint32_t dmask;
};

extern const struct axp_opc_dec axp_opc_dec[64];

/*
 * Per first-look value (an operation, or AXP_KEY_MORE), what makes it need a second look
 * (decode.c): operand constraints that make an encoding invalid, or an opcode decoded by
 * axp_decode_more(). Zero for most operations.
 */
enum { AXP_REQ_RA31 = 1, AXP_REQ_RB31 = 2, AXP_REQ_NOLIT = 4, AXP_REQ_MORE = 16 };
extern const uint8_t axp_op_req[256];

/*
 * The operations with operand constraints that make an encoding invalid (OPCDEC on hardware):
 * fields that must be 31 (QEMU's REQUIRE_REG_31) and, for CIX and the unary MVI forms, no literal
 * (REQUIRE_NO_LIT). X(id, req) per operation: axp_op_req's entries, and the operations a loop
 * that dispatches on the first look alone (exec_plain.h) must not run before the second.
 */
#define AXP_REQ_RA31_NOLIT (AXP_REQ_RA31 | AXP_REQ_NOLIT)
#define AXP_REQ_OPS(X)                \
	X(AMASK, AXP_REQ_RA31)        \
	X(IMPLVER, AXP_REQ_RA31)      \
	X(SEXTB, AXP_REQ_RA31)        \
	X(SEXTW, AXP_REQ_RA31)        \
	X(CTPOP, AXP_REQ_RA31_NOLIT)  \
	X(CTLZ, AXP_REQ_RA31_NOLIT)   \
	X(CTTZ, AXP_REQ_RA31_NOLIT)   \
	X(UNPKBW, AXP_REQ_RA31_NOLIT) \
	X(UNPKBL, AXP_REQ_RA31_NOLIT) \
	X(PKWB, AXP_REQ_RA31_NOLIT)   \
	X(PKLB, AXP_REQ_RA31_NOLIT)   \
	X(PERR, AXP_REQ_NOLIT)        \
	X(SQRTF, AXP_REQ_RA31)        \
	X(SQRTS, AXP_REQ_RA31)        \
	X(SQRTG, AXP_REQ_RA31)        \
	X(SQRTT, AXP_REQ_RA31)        \
	X(CVTTS, AXP_REQ_RA31)        \
	X(CVTST, AXP_REQ_RA31)        \
	X(CVTTQ, AXP_REQ_RA31)        \
	X(CVTQS, AXP_REQ_RA31)        \
	X(CVTQT, AXP_REQ_RA31)        \
	X(CVTLQ, AXP_REQ_RA31)        \
	X(CVTQL, AXP_REQ_RA31)        \
	X(CVTQLV, AXP_REQ_RA31)       \
	X(CVTQLSV, AXP_REQ_RA31)      \
	X(CVTDG, AXP_REQ_RA31)        \
	X(CVTGD, AXP_REQ_RA31)        \
	X(CVTGF, AXP_REQ_RA31)        \
	X(CVTGQ, AXP_REQ_RA31)        \
	X(CVTQF, AXP_REQ_RA31)        \
	X(CVTQG, AXP_REQ_RA31)        \
	X(ITOFS, AXP_REQ_RB31)        \
	X(ITOFF, AXP_REQ_RB31)        \
	X(ITOFT, AXP_REQ_RB31)        \
	X(FTOIT, AXP_REQ_RB31)        \
	X(FTOIS, AXP_REQ_RB31)

uint8_t axp_decode_more(uint32_t word, unsigned int req);

/* The operation of `word` alone: one look, one test (decode.c documents the tables). */
static inline __attribute__((__always_inline__)) uint8_t axp_decode_op(uint32_t word)
{
	unsigned int op = axp_key_op[AXP_KEY(word)];
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
