/* tests/interp/decode_ref.h - a reference Alpha decoder from the ISA's rules, to check decode.c against. */
#ifndef DECODE_REF_H
#define DECODE_REF_H

/*
 * The reference knows ops.def (the operations and their function codes) and the ISA's rules for
 * finding an operation in a word, and nothing of decode.c's tables (axp_key_op, the slot table,
 * axp_op_req, axp_opc_dec, AXP_REQ_OPS): for each word it scans ops.def's entries of the word's
 * opcode for the one whose function the word holds, as the format defines the function, then
 * applies the operand rules of the table below, then extracts the fields. Plain, not fast: used by
 * tests/interp/test_decode_ref.c (every key with many fillings) and bench/bench_decode.c (all 2^32
 * words).
 *
 * Sources: Alpha Architecture Handbook v4 (EC-QD2KC-TE) ch. 3.3 (formats) and ch. 4 (instruction
 * descriptions); ../shared/refs/algorithms-isa-microarch-linux.md §3 (decode structure, opcode
 * map). Where the Handbook leaves an encoding UNPREDICTABLE, axprof's contract (axp.h, decode.c's
 * comments) takes QEMU's choice (target/alpha/translate.c, translate_one()): the rules below say
 * which.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "axp.h"
#include "decode_int.h"

/* ops.def's rows: operation, its ID as written there, opcode, function. */
struct dref_op {
	uint16_t op;
	const char *id;
	uint8_t opc;
	uint16_t fn;
};

static const struct dref_op dref_ops[] = {
#define AXP_OP(id, nm, opc, fn, fm, un, fl) { AXP_OP_##id, #id, opc, fn },
#include "ops.def"
#undef AXP_OP
};

#define DREF_NOPS (sizeof(dref_ops) / sizeof(dref_ops[0]))

/*
 * How a word's opcode says where its function is (Handbook 3.3; refs §3's format table):
 *   DREF_OPC   the opcode alone: PALcode format 0x00 (3.3.5), memory format 0x08-0x0f and
 *              0x20-0x2f (3.3.1), branch format 0x30-0x3f (3.3.2), and the opcodes reserved to
 *              PALcode 0x19, 0x1b, 0x1d-0x1f (Handbook C, "opcodes reserved to PALcode")
 *   DREF_FN7   operate format 0x10-0x13, 0x1c: insn[11:5] (3.3.3)
 *   DREF_FN6   FP operate 0x14-0x16: fn11[5:0] selects, fn11[10:6] are the qualifiers (rounding
 *              [7:6], /U(/V) [8], /I [9], /S [10]: Handbook 4.7.9, axp.h AXP_FN11_*). Bit 6 is a
 *              rounding bit, so it does not select either. The Handbook makes the unused
 *              qualifier combinations of 0x14 illegal and those of 0x15/0x16 UNPREDICTABLE
 *              (3.3.4); the contract takes QEMU's decode, which switches on fn11 & 0x3f
 *              (decode.c's first-look comment). One exception, 0x16 fn11 0x2ac and 0x6ac: CVTST
 *              and CVTST/S rather than CVTTS (ops.def: "CVTST is fn11 0x2ac/0x6ac"; refs §3),
 *              written in ops.def as the function 0x2ac, matched on fn11 without /S.
 *   DREF_FN11  FP operate 0x17: the whole fn11 (refs §3: CVTQL 030, CVTQL/V 130, CVTQL/SV 530)
 *   DREF_MSC   memory format with a function code, 0x18: insn[15:0] (3.3.1.1)
 *   DREF_JMP   memory format jump, 0x1a: insn[15:14] (3.3.1.2)
 *   DREF_NONE  opcodes 0x01-0x07, reserved to Digital: no operation (3.3.4: an illegal
 *              instruction trap)
 */
enum dref_sel { DREF_OPC, DREF_FN7, DREF_FN6, DREF_FN11, DREF_MSC, DREF_JMP, DREF_NONE };

static inline enum dref_sel dref_sel_of(unsigned int opc)
{
	if (opc >= 0x01 && opc <= 0x07)
		return DREF_NONE;
	if ((opc >= 0x10 && opc <= 0x13) || opc == 0x1c)
		return DREF_FN7;
	if (opc >= 0x14 && opc <= 0x16)
		return DREF_FN6;
	if (opc == 0x17)
		return DREF_FN11;
	if (opc == 0x18)
		return DREF_MSC;
	if (opc == 0x1a)
		return DREF_JMP;
	return DREF_OPC;
}

/*
 * Operand rules that make an encoding invalid. The Handbook says "Ra (Fa) must be R31 (F31)" or
 * "the unused source field must be 31", and writes "Rb.rq" (no #b.ib literal form) in the format
 * line; what a word that breaks the rule does is UNPREDICTABLE there, and the contract makes it
 * invalid, as QEMU does (REQUIRE_REG_31, REQUIRE_NO_LIT).
 */
#define DREF_RA31 1u /* Ra (Fa) must be 31 */
#define DREF_RB31 2u /* Rb (Fb) must be 31 */
#define DREF_NOLIT 4u /* no literal form: insn[12] clear */

struct dref_rule {
	uint16_t op;
	uint8_t req;
};

static const struct dref_rule dref_rules[] = {
	/* Handbook 4.11 (AMASK, IMPLVER: Rc only, or Rb and Rc): Ra must be R31 (QEMU). */
	{ AXP_OP_AMASK, DREF_RA31 },
	{ AXP_OP_IMPLVER, DREF_RA31 },
	/* Handbook 4.6.5 Sign Extend: "Ra must be R31"; a literal form exists. */
	{ AXP_OP_SEXTB, DREF_RA31 },
	{ AXP_OP_SEXTW, DREF_RA31 },
	/* Handbook 4.4.7-4.4.9 (CTLZ, CTPOP, CTTZ "Rb.rq,Rc.wq"): "Ra must be R31", no literal. */
	{ AXP_OP_CTPOP, DREF_RA31 | DREF_NOLIT },
	{ AXP_OP_CTLZ, DREF_RA31 | DREF_NOLIT },
	{ AXP_OP_CTTZ, DREF_RA31 | DREF_NOLIT },
	/* Handbook 4.13 (MVI): the unary pack/unpack forms "Rb.rq,Rc.wq" with Ra R31, no literal;
	 * PERR "Ra.rq,Rb.rq,Rc.wq" (4.13.2), no literal. MINxxx/MAXxxx: none (QEMU). */
	{ AXP_OP_UNPKBW, DREF_RA31 | DREF_NOLIT },
	{ AXP_OP_UNPKBL, DREF_RA31 | DREF_NOLIT },
	{ AXP_OP_PKWB, DREF_RA31 | DREF_NOLIT },
	{ AXP_OP_PKLB, DREF_RA31 | DREF_NOLIT },
	{ AXP_OP_PERR, DREF_NOLIT },
	/* Handbook 3.3.4.1 (FP convert: "the Fa field must be F31") and the one-operand square
	 * roots (4.10, SQRTx Fb,Fc). */
	{ AXP_OP_SQRTF, DREF_RA31 },
	{ AXP_OP_SQRTS, DREF_RA31 },
	{ AXP_OP_SQRTG, DREF_RA31 },
	{ AXP_OP_SQRTT, DREF_RA31 },
	{ AXP_OP_CVTTS, DREF_RA31 },
	{ AXP_OP_CVTST, DREF_RA31 },
	{ AXP_OP_CVTTQ, DREF_RA31 },
	{ AXP_OP_CVTQS, DREF_RA31 },
	{ AXP_OP_CVTQT, DREF_RA31 },
	/* Handbook 4.10.2 (CVTLQ, CVTQL): "Register Fa must be F31". */
	{ AXP_OP_CVTLQ, DREF_RA31 },
	{ AXP_OP_CVTQL, DREF_RA31 },
	{ AXP_OP_CVTQLV, DREF_RA31 },
	{ AXP_OP_CVTQLSV, DREF_RA31 },
	/* Handbook 4.10.11 (CVTDG, CVTGD, CVTGF: "Register Fa must be F31") and the VAX integer
	 * conversions CVTGQ, CVTQF, CVTQG (3.3.4.1). */
	{ AXP_OP_CVTDG, DREF_RA31 },
	{ AXP_OP_CVTGD, DREF_RA31 },
	{ AXP_OP_CVTGF, DREF_RA31 },
	{ AXP_OP_CVTGQ, DREF_RA31 },
	{ AXP_OP_CVTQF, DREF_RA31 },
	{ AXP_OP_CVTQG, DREF_RA31 },
	/* Handbook 3.3.4.2 (FP/integer register moves: "the unused source field must be 31"),
	 * 4.10.18 (FTOIx: "The Fb field must be F31") and ITOFx. */
	{ AXP_OP_ITOFS, DREF_RB31 },
	{ AXP_OP_ITOFF, DREF_RB31 },
	{ AXP_OP_ITOFT, DREF_RB31 },
	{ AXP_OP_FTOIT, DREF_RB31 },
	{ AXP_OP_FTOIS, DREF_RB31 },
};

#define DREF_NRULES (sizeof(dref_rules) / sizeof(dref_rules[0]))

/* ops.def's rows by opcode (filled from a scan of dref_ops by dref_init()). */
struct dref_index {
	uint8_t n[64];
	uint8_t row[64][32];
	uint8_t req[AXP_OP_NR]; /* DREF_* per operation, from dref_rules */
	bool ready;
};

static struct dref_index dref_idx;

/* 0, or -1 when ops.def has more rows for one opcode than the index holds. */
static inline int dref_init(void)
{
	unsigned int i;

	if (dref_idx.ready)
		return 0;
	for (i = 0; i < DREF_NOPS; i++) {
		unsigned int opc = dref_ops[i].opc;

		if (dref_idx.n[opc] >= 32)
			return -1;
		dref_idx.row[opc][dref_idx.n[opc]++] = (uint8_t)i;
	}
	for (i = 0; i < DREF_NRULES; i++)
		dref_idx.req[dref_rules[i].op] |= dref_rules[i].req;
	dref_idx.ready = true;
	return 0;
}

/* The operation of `word` by the rules above (dref_init() first); AXP_OP_NR when two rows of
 * ops.def claim it. */
static inline unsigned int dref_op_of(uint32_t word)
{
	unsigned int opc = word >> 26, fn7 = (word >> 5) & 0x7f, fn11 = (word >> 5) & 0x7ff;
	unsigned int i, op = AXP_OP_INVALID, req;
	enum dref_sel sel = dref_sel_of(opc);

	if (sel == DREF_NONE)
		return AXP_OP_INVALID;
	for (i = 0; i < dref_idx.n[opc]; i++) {
		const struct dref_op *e = &dref_ops[dref_idx.row[opc][i]];
		bool hit = false;

		switch (sel) {
		case DREF_OPC:
			hit = true;
			break;
		case DREF_FN7:
			hit = e->fn == fn7;
			break;
		case DREF_FN6:
			if (e->fn > 0x3f) { /* CVTST: the whole fn11 but /S, before fn11[5:0] */
				if ((fn11 & ~AXP_FN11_S) == e->fn) {
					op = e->op;
					goto found;
				}
			} else {
				hit = e->fn == (fn11 & 0x3f);
			}
			break;
		case DREF_FN11:
			hit = e->fn == fn11;
			break;
		case DREF_MSC:
			hit = e->fn == (word & 0xffff);
			break;
		case DREF_JMP:
			hit = e->fn == ((word >> 14) & 3);
			break;
		case DREF_NONE:
			break;
		}
		if (hit && op != AXP_OP_INVALID)
			return AXP_OP_NR; /* two rows claim the word: ops.def is wrong */
		if (hit)
			op = e->op;
	}
	if (op == AXP_OP_INVALID)
		return op;
found:
	req = dref_idx.req[op];
	if ((req & DREF_RA31) && ((word >> 21) & 31) != 31)
		return AXP_OP_INVALID;
	if ((req & DREF_RB31) && ((word >> 16) & 31) != 31)
		return AXP_OP_INVALID;
	if ((req & DREF_NOLIT) && ((word >> 12) & 1))
		return AXP_OP_INVALID;
	return op;
}

/*
 * The displacement field axp_insn.disp holds, by opcode (axp.h's struct axp_insn and decode.c's
 * axp_opc_dec comment): memory and operate formats insn[15:0] sign-extended (Handbook 3.3.1:
 * "sign-extended 16-bit displacement"), branch insn[20:0] sign-extended (3.3.2), 0x18 its function
 * insn[15:0], 0x1a the hint insn[13:0] (3.3.1.2), PALcode and the PALcode-reserved opcodes the
 * 26-bit function insn[25:0] (3.3.5). The contract says nothing for 0x01-0x07: not compared.
 */
static inline bool dref_disp_of(uint32_t word, int32_t *disp)
{
	unsigned int opc = word >> 26;

	if (opc >= 0x01 && opc <= 0x07)
		return false;
	if (opc == 0x00 || opc == 0x19 || opc == 0x1b || (opc >= 0x1d && opc <= 0x1f))
		*disp = (int32_t)(word & 0x3ffffff);
	else if (opc == 0x18)
		*disp = (int32_t)(word & 0xffff);
	else if (opc == 0x1a)
		*disp = (int32_t)(word & 0x3fff);
	else if (opc >= 0x30)
		*disp = (word & 0x100000) ? (int32_t)(word & 0x1fffff) - 0x200000 :
					    (int32_t)(word & 0x1fffff);
	else
		*disp = (int32_t)(int16_t)(uint16_t)(word & 0xffff);
	return true;
}

/* An operation's ops.def ID, or "INVALID". */
static inline const char *dref_name(unsigned int op)
{
	unsigned int i;

	for (i = 0; i < DREF_NOPS; i++)
		if (dref_ops[i].op == op)
			return dref_ops[i].id;
	return op == AXP_OP_INVALID ? "INVALID" : op == AXP_OP_NR ? "AMBIGUOUS (ops.def)" : "?";
}

/* One field: count a difference, and describe the first one in msg. */
static inline void dref_field(uint32_t word, const char *name, long long got, long long want,
			      bool is_op, int *bad, char *msg, size_t len)
{
	if (got == want || (*bad)++)
		return;
	if (is_op)
		snprintf(msg, len, "word 0x%08x: %s: decode %s (%lld), reference %s (%lld)", word,
			 name, dref_name((unsigned int)got), got, dref_name((unsigned int)want),
			 want);
	else
		snprintf(msg, len, "word 0x%08x: %s: decode %lld, reference %lld", word, name, got,
			 want);
}

/*
 * Compare axp_decode() (every field of struct axp_insn) and axp_decode_op() with the reference on
 * `word`. Returns 0 when they agree; otherwise the number of fields that differ, with the first
 * one described in msg ("word 0x...: FIELD: decode X, reference Y"). (Stop 33's full sweep found
 * CVTDG and CVTGD decoded with Fa != F31, which Handbook 4.10.11 makes invalid as it does CVTGF;
 * fixed in decode_int.h.)
 */
static inline int dref_check(uint32_t word, char *msg, size_t len)
{
	struct axp_insn d;
	unsigned int op = dref_op_of(word), fast = axp_decode_op(word);
	int32_t disp;
	int bad = 0;

	axp_decode(word, &d);
	dref_field(word, "op", d.op, op, true, &bad, msg, len);
	dref_field(word, "axp_decode_op", fast, op, true, &bad, msg, len);
	dref_field(word, "word", d.word, word, false, &bad, msg, len);
	dref_field(word, "ra", d.ra, (word >> 21) & 31, false, &bad, msg, len);
	dref_field(word, "rb", d.rb, (word >> 16) & 31, false, &bad, msg, len);
	dref_field(word, "rc", d.rc, word & 31, false, &bad, msg, len);
	dref_field(word, "islit", d.islit, (word >> 12) & 1, false, &bad, msg, len);
	dref_field(word, "lit", d.lit, (word >> 13) & 0xff, false, &bad, msg, len);
	dref_field(word, "fn11", d.fn11, (word >> 5) & 0x7ff, false, &bad, msg, len);
	if (dref_disp_of(word, &disp))
		dref_field(word, "disp", d.disp, disp, false, &bad, msg, len);
	return bad;
}

#endif /* DECODE_REF_H */
