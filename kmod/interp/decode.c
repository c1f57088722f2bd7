/* kmod/interp/decode.c - Alpha instruction decode: the operation table and field extraction. */
#include "axp.h"
#include "decode_int.h"

/* ops.def's short flag names, visible only while the table is expanded. */
#define SA AXP_F_SA
#define SB AXP_F_SB
#define SC AXP_F_SC
#define DA AXP_F_DA
#define DC AXP_F_DC
#define FA AXP_F_FA
#define FB AXP_F_FB
#define FC AXP_F_FC
#define LD AXP_F_LD
#define ST AXP_F_ST
#define M1 AXP_F_M1
#define M2 AXP_F_M2
#define M4 AXP_F_M4
#define M8 AXP_F_M8
#define LOCK AXP_F_LOCK
#define TRAPS AXP_F_TRAPS
#define BWX AXP_F_BWX
#define FIX AXP_F_FIX
#define CIX AXP_F_CIX
#define MVI AXP_F_MVI
#define VAX AXP_F_VAX

const struct axp_op_info axp_op_info[AXP_OP_NR] = {
#define AXP_OP(id, nm, opc, fn, fm, un, fl)    \
	[AXP_OP_##id] = { .name = nm,          \
			  .opcode = opc,       \
			  .fmt = AXP_FMT_##fm, \
			  .unit = AXP_U_##un,  \
			  .func = fn,          \
			  .flags = (fl) },
#include "ops.def"
#undef AXP_OP
	[AXP_OP_INVALID] = { .name = ".long", .opcode = 0, .fmt = AXP_FMT_PAL, .unit = AXP_U_PAL },
};

#undef SA
#undef SB
#undef SC
#undef DA
#undef DC
#undef FA
#undef FB
#undef FC
#undef LD
#undef ST
#undef M1
#undef M2
#undef M4
#undef M8
#undef LOCK
#undef TRAPS
#undef BWX
#undef FIX
#undef CIX
#undef MVI
#undef VAX

/*
 * (opcode, function) -> operation: a direct-indexed table generated from ops.def. SLOT() folds every
 * (opcode, function) pair the table holds into a small dense index; where it drops function bits
 * (0x17, 0x18) the decoder compares the full function with the table entry afterwards.
 */
#define SLOT_OPR 64 /* 0x10-0x13, 0x1c: fn7 */
#define SLOT_FPF (SLOT_OPR + 5 * 128) /* 0x14-0x16: fn11[5:0] */
#define SLOT_CVTST (SLOT_FPF + 3 * 64) /* 0x16 fn11 0x2ac */
#define SLOT_F17 (SLOT_CVTST + 1) /* 0x17: fn11[5:0] | fn11[10:8] << 6 */
#define SLOT_MSC (SLOT_F17 + 512) /* 0x18: insn[15:10] */
#define SLOT_JMP (SLOT_MSC + 64) /* 0x1a: insn[15:14] */
#define SLOT_MORE (SLOT_JMP + 4) /* 0x16-0x18: AXP_SLOT_MORE */
#define SLOT_NR (SLOT_MORE + 1)
_Static_assert(SLOT_NR == AXP_SLOT_NR, "decode_int.h sizes the slot table");

#define SLOT(opc, fn)                                                                       \
	((opc) >= 0x10 && (opc) <= 0x13 ? SLOT_OPR + ((opc)-0x10) * 128 + ((fn)&0x7f) :     \
	 (opc) == 0x1c			? SLOT_OPR + 4 * 128 + ((fn)&0x7f) :                \
	 (opc) >= 0x14 && (opc) <= 0x16 ?                                                   \
			 ((fn) > 0x3f ? SLOT_CVTST : SLOT_FPF + ((opc)-0x14) * 64 + (fn)) : \
	 (opc) == 0x17 ? SLOT_F17 + (((fn)&0x3f) | ((((fn) >> 8) & 7) << 6)) :              \
	 (opc) == 0x18 ? SLOT_MSC + (((fn) >> 10) & 63) :                                   \
	 (opc) == 0x1a ? SLOT_JMP + ((fn)&3) :                                              \
			 (opc))

/* Entries hold op + 1 so that 0 means "no instruction here". */
const uint8_t axp_slot_op[AXP_SLOT_NR] = {
#define AXP_OP(id, nm, opc, fn, fm, un, fl) [SLOT(opc, fn)] = AXP_OP_##id + 1,
#include "ops.def"
#undef AXP_OP
	[SLOT_MORE] = AXP_SLOT_MORE,
};

_Static_assert(AXP_OP_NR < AXP_SLOT_MORE - 1, "slot_op holds operations and its marks in a byte");

/*
 * Per opcode, how axp_decode() finds the operation and the displacement, so the common path is two
 * table loads and no branch on the format: op = slot_op[base + ((word >> sh) & mask)] - 1 and
 * disp = word << dsh >> dsh (arithmetic when dsigned). Which function bits select the operation
 * follows QEMU's decode (target/alpha/translate.c, translate_one): 0x10-0x13 and 0x1c by fn7;
 * 0x14-0x15 by fn11[5:0] (qualifiers are separate); 0x16 by fn11[5:0] except CVTST, 0x17 by the
 * whole fn11 and 0x18 by insn[15:0]: these three reach SLOT_MORE, and axp_decode_more() does
 * them. The displacement is as axp_insn documents: MEM and operate formats sext 16, BRA sext 21,
 * MSC insn[15:0], JMP the hint insn[13:0], PAL and the PALcode-reserved opcodes insn[25:0].
 */
#define DMASK(d, s) ((s) ? 0xffffffffu : 0xffffffffu >> (d))
#define DEC_DIRECT(opc, d, s)                                   \
	{                                                       \
		.base = (opc), .dsh = (d), .dmask = DMASK(d, s) \
	}
#define DEC_FN(b, shift, m)                                                               \
	{                                                                                 \
		.base = (b), .sh = (shift), .mask = (m), .dsh = 16, .dmask = DMASK(16, 1) \
	}

const struct axp_opc_dec axp_opc_dec[64] = {
	[0x00] = DEC_DIRECT(0x00, 6, 0),
	[0x01] = DEC_DIRECT(0x01, 16, 1),
	[0x02] = DEC_DIRECT(0x02, 16, 1),
	[0x03] = DEC_DIRECT(0x03, 16, 1),
	[0x04] = DEC_DIRECT(0x04, 16, 1),
	[0x05] = DEC_DIRECT(0x05, 16, 1),
	[0x06] = DEC_DIRECT(0x06, 16, 1),
	[0x07] = DEC_DIRECT(0x07, 16, 1),
	[0x08] = DEC_DIRECT(0x08, 16, 1),
	[0x09] = DEC_DIRECT(0x09, 16, 1),
	[0x0a] = DEC_DIRECT(0x0a, 16, 1),
	[0x0b] = DEC_DIRECT(0x0b, 16, 1),
	[0x0c] = DEC_DIRECT(0x0c, 16, 1),
	[0x0d] = DEC_DIRECT(0x0d, 16, 1),
	[0x0e] = DEC_DIRECT(0x0e, 16, 1),
	[0x0f] = DEC_DIRECT(0x0f, 16, 1),
	[0x10] = DEC_FN(SLOT_OPR + 0 * 128, 5, 0x7f),
	[0x11] = DEC_FN(SLOT_OPR + 1 * 128, 5, 0x7f),
	[0x12] = DEC_FN(SLOT_OPR + 2 * 128, 5, 0x7f),
	[0x13] = DEC_FN(SLOT_OPR + 3 * 128, 5, 0x7f),
	[0x14] = DEC_FN(SLOT_FPF + 0 * 64, 5, 0x3f),
	[0x15] = DEC_FN(SLOT_FPF + 1 * 64, 5, 0x3f),
	[0x16] = { .base = SLOT_MORE, .dsh = 16, .dmask = DMASK(16, 1) },
	[0x17] = { .base = SLOT_MORE, .dsh = 16, .dmask = DMASK(16, 1) },
	[0x18] = { .base = SLOT_MORE, .dsh = 16, .dmask = DMASK(16, 0) },
	[0x19] = DEC_DIRECT(0x19, 6, 0),
	[0x1a] = { .base = SLOT_JMP, .sh = 14, .mask = 3, .dsh = 18, .dmask = DMASK(18, 0) },
	[0x1b] = DEC_DIRECT(0x1b, 6, 0),
	[0x1c] = DEC_FN(SLOT_OPR + 4 * 128, 5, 0x7f),
	[0x1d] = DEC_DIRECT(0x1d, 6, 0),
	[0x1e] = DEC_DIRECT(0x1e, 6, 0),
	[0x1f] = DEC_DIRECT(0x1f, 6, 0),
	[0x20] = DEC_DIRECT(0x20, 16, 1),
	[0x21] = DEC_DIRECT(0x21, 16, 1),
	[0x22] = DEC_DIRECT(0x22, 16, 1),
	[0x23] = DEC_DIRECT(0x23, 16, 1),
	[0x24] = DEC_DIRECT(0x24, 16, 1),
	[0x25] = DEC_DIRECT(0x25, 16, 1),
	[0x26] = DEC_DIRECT(0x26, 16, 1),
	[0x27] = DEC_DIRECT(0x27, 16, 1),
	[0x28] = DEC_DIRECT(0x28, 16, 1),
	[0x29] = DEC_DIRECT(0x29, 16, 1),
	[0x2a] = DEC_DIRECT(0x2a, 16, 1),
	[0x2b] = DEC_DIRECT(0x2b, 16, 1),
	[0x2c] = DEC_DIRECT(0x2c, 16, 1),
	[0x2d] = DEC_DIRECT(0x2d, 16, 1),
	[0x2e] = DEC_DIRECT(0x2e, 16, 1),
	[0x2f] = DEC_DIRECT(0x2f, 16, 1),
	[0x30] = DEC_DIRECT(0x30, 11, 1),
	[0x31] = DEC_DIRECT(0x31, 11, 1),
	[0x32] = DEC_DIRECT(0x32, 11, 1),
	[0x33] = DEC_DIRECT(0x33, 11, 1),
	[0x34] = DEC_DIRECT(0x34, 11, 1),
	[0x35] = DEC_DIRECT(0x35, 11, 1),
	[0x36] = DEC_DIRECT(0x36, 11, 1),
	[0x37] = DEC_DIRECT(0x37, 11, 1),
	[0x38] = DEC_DIRECT(0x38, 11, 1),
	[0x39] = DEC_DIRECT(0x39, 11, 1),
	[0x3a] = DEC_DIRECT(0x3a, 11, 1),
	[0x3b] = DEC_DIRECT(0x3b, 11, 1),
	[0x3c] = DEC_DIRECT(0x3c, 11, 1),
	[0x3d] = DEC_DIRECT(0x3d, 11, 1),
	[0x3e] = DEC_DIRECT(0x3e, 11, 1),
	[0x3f] = DEC_DIRECT(0x3f, 11, 1),
};

/*
 * Operand constraints that make an encoding invalid (OPCDEC on hardware): fields that must be 31
 * (QEMU's REQUIRE_REG_31) and, for CIX and the unary MVI forms, no literal (REQUIRE_NO_LIT); and
 * the two slot values that are not operations.
 */
const uint8_t axp_op_req[256] = {
	[0xff] = AXP_REQ_NONE,
	[AXP_SLOT_MORE - 1] = AXP_REQ_MORE,
	[AXP_OP_AMASK] = AXP_REQ_RA31,
	[AXP_OP_IMPLVER] = AXP_REQ_RA31,
	[AXP_OP_SEXTB] = AXP_REQ_RA31,
	[AXP_OP_SEXTW] = AXP_REQ_RA31,
	[AXP_OP_CTPOP] = AXP_REQ_RA31 | AXP_REQ_NOLIT,
	[AXP_OP_CTLZ] = AXP_REQ_RA31 | AXP_REQ_NOLIT,
	[AXP_OP_CTTZ] = AXP_REQ_RA31 | AXP_REQ_NOLIT,
	[AXP_OP_UNPKBW] = AXP_REQ_RA31 | AXP_REQ_NOLIT,
	[AXP_OP_UNPKBL] = AXP_REQ_RA31 | AXP_REQ_NOLIT,
	[AXP_OP_PKWB] = AXP_REQ_RA31 | AXP_REQ_NOLIT,
	[AXP_OP_PKLB] = AXP_REQ_RA31 | AXP_REQ_NOLIT,
	[AXP_OP_PERR] = AXP_REQ_NOLIT,
	[AXP_OP_SQRTF] = AXP_REQ_RA31,
	[AXP_OP_SQRTS] = AXP_REQ_RA31,
	[AXP_OP_SQRTG] = AXP_REQ_RA31,
	[AXP_OP_SQRTT] = AXP_REQ_RA31,
	[AXP_OP_CVTTS] = AXP_REQ_RA31,
	[AXP_OP_CVTST] = AXP_REQ_RA31,
	[AXP_OP_CVTTQ] = AXP_REQ_RA31,
	[AXP_OP_CVTQS] = AXP_REQ_RA31,
	[AXP_OP_CVTQT] = AXP_REQ_RA31,
	[AXP_OP_CVTLQ] = AXP_REQ_RA31,
	[AXP_OP_CVTQL] = AXP_REQ_RA31,
	[AXP_OP_CVTQLV] = AXP_REQ_RA31,
	[AXP_OP_CVTQLSV] = AXP_REQ_RA31,
	[AXP_OP_CVTGF] = AXP_REQ_RA31,
	[AXP_OP_CVTGQ] = AXP_REQ_RA31,
	[AXP_OP_CVTQF] = AXP_REQ_RA31,
	[AXP_OP_CVTQG] = AXP_REQ_RA31,
	[AXP_OP_ITOFS] = AXP_REQ_RB31,
	[AXP_OP_ITOFF] = AXP_REQ_RB31,
	[AXP_OP_ITOFT] = AXP_REQ_RB31,
	[AXP_OP_FTOIT] = AXP_REQ_RB31,
	[AXP_OP_FTOIS] = AXP_REQ_RB31,
};

/* The rare opcodes whose operation is not one slot away: CVTST and 0x17's scattered fn11. */
static unsigned int decode_special(unsigned int opc, unsigned int fn11)
{
	unsigned int op;

	if (opc == 0x16) {
		if (fn11 == 0x2ac || fn11 == 0x6ac) /* CVTST, CVTST/S */
			return AXP_OP_CVTST;
		op = axp_slot_op[SLOT_FPF + 2 * 64 + (fn11 & 0x3f)];
		return op ? op - 1 : AXP_OP_INVALID;
	}
	op = axp_slot_op[SLOT(0x17, fn11)];
	if (!op || axp_op_info[op - 1].func != fn11)
		return AXP_OP_INVALID;
	return op - 1;
}

/*
 * axp_decode_op()'s second look, with the operation's axp_op_req bits: no instruction; one of
 * 0x16-0x18 (0x18 by insn[15:10] in the slot table, then the whole insn[15:0] compared); then the
 * operand constraints of the operation found.
 */
uint8_t axp_decode_more(uint32_t word, unsigned int req)
{
	unsigned int opc = word >> 26, op;

	if (req & AXP_REQ_NONE)
		return AXP_OP_INVALID;
	if (req & AXP_REQ_MORE) {
		if (opc == 0x18) {
			op = axp_slot_op[SLOT_MSC + ((word >> 10) & 63)];
			op = op && axp_op_info[op - 1].func == (word & 0xffff) ? op - 1 :
										 AXP_OP_INVALID;
		} else {
			op = decode_special(opc, (word >> 5) & 0x7ff);
		}
		req = axp_op_req[op];
	} else {
		op = (uint8_t)(axp_slot_op[axp_opc_dec[opc].base + ((word >> axp_opc_dec[opc].sh) &
								    axp_opc_dec[opc].mask)] -
			       1);
	}
	if (((req & AXP_REQ_RA31) && ((word >> 21) & 31) != 31) ||
	    ((req & AXP_REQ_RB31) && ((word >> 16) & 31) != 31) ||
	    ((req & AXP_REQ_NOLIT) && ((word >> 12) & 1)))
		return AXP_OP_INVALID;
	return op;
}

void axp_decode(uint32_t word, struct axp_insn *d)
{
	axp_decode_inline(word, d);
}
