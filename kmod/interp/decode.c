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
 * The second look (axp_decode_more(), for AXP_KEY_MORE): (opcode, function) -> operation for the
 * opcodes whose operation insn[11:5] does not settle, a direct-indexed table generated from
 * ops.def. SLOT() folds each (opcode, function) pair of those opcodes into a small dense index;
 * where it drops function bits (0x17, 0x18) the decoder compares the full function with the
 * table entry afterwards. Every other operation lands in SLOT_OTHER, which nothing reads.
 */
#define SLOT_F16 0 /* 0x16: fn11[5:0] */
#define SLOT_CVTST (SLOT_F16 + 64) /* 0x16 fn11 0x2ac */
#define SLOT_F17 (SLOT_CVTST + 1) /* 0x17: fn11[5:0] | fn11[10:8] << 6 */
#define SLOT_MSC (SLOT_F17 + 512) /* 0x18: insn[15:10] */
#define SLOT_JMP (SLOT_MSC + 64) /* 0x1a: insn[15:14] */
#define SLOT_OTHER (SLOT_JMP + 4)
#define SLOT_NR (SLOT_OTHER + 1)

#define SLOT(opc, fn)                                                          \
	((opc) == 0x16 ? ((fn) > 0x3f ? SLOT_CVTST : SLOT_F16 + (fn)) :        \
	 (opc) == 0x17 ? SLOT_F17 + (((fn)&0x3f) | ((((fn) >> 8) & 7) << 6)) : \
	 (opc) == 0x18 ? SLOT_MSC + (((fn) >> 10) & 63) :                      \
	 (opc) == 0x1a ? SLOT_JMP + ((fn)&3) :                                 \
			 SLOT_OTHER)

/* Entries hold op + 1 so that 0 means "no instruction here". */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Woverride-init"
static const uint8_t slot_op[SLOT_NR] = {
#define AXP_OP(id, nm, opc, fn, fm, un, fl) [SLOT(opc, fn)] = AXP_OP_##id + 1,
#include "ops.def"
#undef AXP_OP
};
#pragma GCC diagnostic pop

_Static_assert(AXP_OP_NR < 255, "slot_op holds operations + 1 in a byte");

/*
 * The first look (axp_decode_op()): one byte per (insn[31:26], insn[11:5]), 8 KB, indexed by
 * AXP_KEY(word). It holds the operation wherever those bits settle it: for the memory, branch and
 * PALcode formats the whole row (insn[11:5] lie in the displacement); 0x10-0x13 and 0x1c by fn7;
 * 0x14-0x16 by fn11[5:0], so each operation twice, fn11 bit 6 clear and set (a rounding-mode
 * bit). It holds AXP_KEY_MORE where they do not: 0x16's fn11[5:0] 0x2c (CVTTS, or CVTST at fn11
 * 0x2ac/0x6ac), 0x17 (the whole fn11), 0x18 (insn[15:0]) and 0x1a (insn[15:14]); and
 * AXP_OP_INVALID where no operation is. Which function bits select the operation follows QEMU's
 * decode (target/alpha/translate.c, translate_one).
 */
#define KEY_ROW(opc) ((opc) << 7)
#define KEY_BY_FN(opc) (((opc) >= 0x10 && (opc) <= 0x16) || (opc) == 0x1c)
#define KEY_FN(opc, fn) ((opc) >= 0x14 && (opc) <= 0x16 ? (fn)&0x3f : (fn)&0x7f)
#define KEY_LO(opc, fn) (KEY_ROW(opc) | (KEY_BY_FN(opc) ? KEY_FN(opc, fn) : 0))
#define KEY_HI(opc, fn) (KEY_BY_FN(opc) ? KEY_LO(opc, fn) : KEY_ROW(opc) | 0x7f)
#define KEY_FP(opc) ((opc) >= 0x14 && (opc) <= 0x16 ? 0x40 : 0)

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Woverride-init"
const uint8_t axp_key_op[AXP_KEY_NR] = {
	[0 ... AXP_KEY_NR - 1] = AXP_OP_INVALID,
#define AXP_OP(id, nm, opc, fn, fm, un, fl)                                                 \
	[KEY_LO(opc, fn)... KEY_HI(opc, fn)] = AXP_OP_##id,                                 \
					[KEY_LO(opc, fn) | KEY_FP(opc)... KEY_HI(opc, fn) | \
						KEY_FP(opc)] = AXP_OP_##id,
#include "ops.def"
#undef AXP_OP
	[KEY_ROW(0x16) | 0x2c] = AXP_KEY_MORE,
	[KEY_ROW(0x16) | 0x6c] = AXP_KEY_MORE,
	[KEY_ROW(0x17)... KEY_ROW(0x18) | 0x7f] = AXP_KEY_MORE,
	[KEY_ROW(0x1a)... KEY_ROW(0x1a) | 0x7f] = AXP_KEY_MORE,
};
#pragma GCC diagnostic pop

_Static_assert(AXP_OP_NR < AXP_KEY_MORE, "key_op holds operations and its mark in a byte");

/*
 * Per opcode, the displacement axp_decode() extracts: disp = word << dsh >> dsh (arithmetic when
 * dsigned), as axp_insn documents: MEM and operate formats sext 16, BRA sext 21, MSC insn[15:0],
 * JMP the hint insn[13:0], PAL and the PALcode-reserved opcodes insn[25:0].
 */
#define DMASK(d, s) ((s) ? 0xffffffffu : 0xffffffffu >> (d))
#define DISP(d, s)                               \
	{                                        \
		.dsh = (d), .dmask = DMASK(d, s) \
	}

const struct axp_opc_dec axp_opc_dec[64] = {
	[0x00] = DISP(6, 0),  [0x01] = DISP(16, 1), [0x02] = DISP(16, 1), [0x03] = DISP(16, 1),
	[0x04] = DISP(16, 1), [0x05] = DISP(16, 1), [0x06] = DISP(16, 1), [0x07] = DISP(16, 1),
	[0x08] = DISP(16, 1), [0x09] = DISP(16, 1), [0x0a] = DISP(16, 1), [0x0b] = DISP(16, 1),
	[0x0c] = DISP(16, 1), [0x0d] = DISP(16, 1), [0x0e] = DISP(16, 1), [0x0f] = DISP(16, 1),
	[0x10] = DISP(16, 1), [0x11] = DISP(16, 1), [0x12] = DISP(16, 1), [0x13] = DISP(16, 1),
	[0x14] = DISP(16, 1), [0x15] = DISP(16, 1), [0x16] = DISP(16, 1), [0x17] = DISP(16, 1),
	[0x18] = DISP(16, 0), [0x19] = DISP(6, 0),  [0x1a] = DISP(18, 0), [0x1b] = DISP(6, 0),
	[0x1c] = DISP(16, 1), [0x1d] = DISP(6, 0),  [0x1e] = DISP(6, 0),  [0x1f] = DISP(6, 0),
	[0x20] = DISP(16, 1), [0x21] = DISP(16, 1), [0x22] = DISP(16, 1), [0x23] = DISP(16, 1),
	[0x24] = DISP(16, 1), [0x25] = DISP(16, 1), [0x26] = DISP(16, 1), [0x27] = DISP(16, 1),
	[0x28] = DISP(16, 1), [0x29] = DISP(16, 1), [0x2a] = DISP(16, 1), [0x2b] = DISP(16, 1),
	[0x2c] = DISP(16, 1), [0x2d] = DISP(16, 1), [0x2e] = DISP(16, 1), [0x2f] = DISP(16, 1),
	[0x30] = DISP(11, 1), [0x31] = DISP(11, 1), [0x32] = DISP(11, 1), [0x33] = DISP(11, 1),
	[0x34] = DISP(11, 1), [0x35] = DISP(11, 1), [0x36] = DISP(11, 1), [0x37] = DISP(11, 1),
	[0x38] = DISP(11, 1), [0x39] = DISP(11, 1), [0x3a] = DISP(11, 1), [0x3b] = DISP(11, 1),
	[0x3c] = DISP(11, 1), [0x3d] = DISP(11, 1), [0x3e] = DISP(11, 1), [0x3f] = DISP(11, 1),
};

/*
 * Per first-look value: the operand constraints (AXP_REQ_OPS, decode_int.h), and AXP_KEY_MORE's
 * second look.
 */
const uint8_t axp_op_req[256] = { [AXP_KEY_MORE] = AXP_REQ_MORE,
#define REQ(id, req) [AXP_OP_##id] = (req),
				  AXP_REQ_OPS(REQ)
#undef REQ
};

/* The rare opcodes whose operation is not one slot away: CVTST and 0x17's scattered fn11. */
static unsigned int decode_special(unsigned int opc, unsigned int fn11)
{
	unsigned int op;

	if (opc == 0x16) {
		if (fn11 == 0x2ac || fn11 == 0x6ac) /* CVTST, CVTST/S */
			return AXP_OP_CVTST;
		op = slot_op[SLOT_F16 + (fn11 & 0x3f)];
		return op ? op - 1 : AXP_OP_INVALID;
	}
	op = slot_op[SLOT(0x17, fn11)];
	if (!op || axp_op_info[op - 1].func != fn11)
		return AXP_OP_INVALID;
	return op - 1;
}

/*
 * axp_decode_op()'s second look, with the first look's axp_op_req bits: one of 0x16-0x18 and 0x1a
 * (0x18 by insn[15:10] in the slot table, then the whole insn[15:0] compared); then the operand
 * constraints of the operation found.
 */
uint8_t axp_decode_more(uint32_t word, unsigned int req)
{
	unsigned int opc = word >> 26, op;

	if (req & AXP_REQ_MORE) {
		if (opc == 0x18) {
			op = slot_op[SLOT_MSC + ((word >> 10) & 63)];
			op = op && axp_op_info[op - 1].func == (word & 0xffff) ? op - 1 :
										 AXP_OP_INVALID;
		} else if (opc == 0x1a) {
			op = slot_op[SLOT_JMP + ((word >> 14) & 3)] - 1;
		} else {
			op = decode_special(opc, (word >> 5) & 0x7ff);
		}
		req = axp_op_req[op];
	} else {
		op = axp_key_op[AXP_KEY(word)];
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
