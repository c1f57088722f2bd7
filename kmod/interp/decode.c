/* kmod/interp/decode.c - Alpha instruction decode: the operation table and field extraction. */
#include "axp.h"

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
#define SLOT_NR (SLOT_JMP + 4)

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
static const uint8_t slot_op[SLOT_NR] = {
#define AXP_OP(id, nm, opc, fn, fm, un, fl) [SLOT(opc, fn)] = AXP_OP_##id + 1,
#include "ops.def"
#undef AXP_OP
};

_Static_assert(AXP_OP_NR < 256, "slot_op holds operations in a byte");

static inline unsigned int lookup(unsigned int opc, unsigned int fn)
{
	unsigned int op = slot_op[SLOT(opc, fn)];

	if (!op)
		return AXP_OP_INVALID;
	op--;
	if (axp_op_info[op].func != fn)
		return AXP_OP_INVALID;
	return op;
}

static inline int32_t sext(uint32_t v, unsigned int bits)
{
	return (int32_t)(v << (32 - bits)) >> (32 - bits);
}

/*
 * Which function bits select the operation follows QEMU's decode (target/alpha/translate.c,
 * translate_one): 0x10-0x13 and 0x1c by fn7; 0x14-0x16 by fn11[5:0] (qualifiers are separate,
 * except CVTST); 0x17 by the whole fn11; 0x18 by insn[15:0]. Operand fields that must be 31
 * (QEMU's REQUIRE_REG_31) make the encoding invalid otherwise, as OPCDEC on hardware.
 */
void axp_decode(uint32_t word, struct axp_insn *d)
{
	unsigned int opc = word >> 26;
	unsigned int op = AXP_OP_INVALID;

	d->word = word;
	d->ra = (word >> 21) & 31;
	d->rb = (word >> 16) & 31;
	d->rc = word & 31;
	d->islit = (word >> 12) & 1;
	d->lit = (word >> 13) & 0xff;
	d->fn11 = (word >> 5) & 0x7ff;
	d->disp = sext(word & 0xffff, 16);

	switch (opc) {
	case 0x00:
		op = AXP_OP_CALL_PAL;
		d->disp = word & 0x3ffffff;
		break;
	case 0x08 ... 0x0f:
	case 0x20 ... 0x2f:
		op = lookup(opc, 0);
		break;
	case 0x10 ... 0x13:
	case 0x1c:
		op = lookup(opc, (word >> 5) & 0x7f);
		break;
	case 0x14:
	case 0x15:
		op = lookup(opc, d->fn11 & 0x3f);
		break;
	case 0x16:
		if (d->fn11 == 0x2ac || d->fn11 == 0x6ac) /* CVTST, CVTST/S */
			op = AXP_OP_CVTST;
		else
			op = lookup(opc, d->fn11 & 0x3f);
		break;
	case 0x17:
		op = lookup(opc, d->fn11);
		break;
	case 0x18:
		d->disp = word & 0xffff;
		op = lookup(opc, word & 0xffff);
		break;
	case 0x1a:
		d->disp = word & 0x3fff;
		op = lookup(opc, (word >> 14) & 3);
		break;
	case 0x19:
	case 0x1b:
	case 0x1d ... 0x1f:
		d->disp = word & 0x3ffffff;
		op = lookup(opc, 0);
		break;
	case 0x30 ... 0x3f:
		d->disp = sext(word & 0x1fffff, 21);
		op = lookup(opc, 0);
		break;
	default:
		break;
	}

	switch (op) {
	case AXP_OP_AMASK:
	case AXP_OP_IMPLVER:
	case AXP_OP_SEXTB:
	case AXP_OP_SEXTW:
	case AXP_OP_CTPOP:
	case AXP_OP_CTLZ:
	case AXP_OP_CTTZ:
	case AXP_OP_UNPKBW:
	case AXP_OP_UNPKBL:
	case AXP_OP_PKWB:
	case AXP_OP_PKLB:
	case AXP_OP_SQRTF:
	case AXP_OP_SQRTS:
	case AXP_OP_SQRTG:
	case AXP_OP_SQRTT:
	case AXP_OP_CVTTS:
	case AXP_OP_CVTST:
	case AXP_OP_CVTTQ:
	case AXP_OP_CVTQS:
	case AXP_OP_CVTQT:
	case AXP_OP_CVTLQ:
	case AXP_OP_CVTQL:
	case AXP_OP_CVTQLV:
	case AXP_OP_CVTQLSV:
	case AXP_OP_CVTGF:
	case AXP_OP_CVTGQ:
	case AXP_OP_CVTQF:
	case AXP_OP_CVTQG:
		if (d->ra != 31)
			op = AXP_OP_INVALID;
		break;
	case AXP_OP_ITOFS:
	case AXP_OP_ITOFF:
	case AXP_OP_ITOFT:
	case AXP_OP_FTOIT:
	case AXP_OP_FTOIS:
		if (d->rb != 31)
			op = AXP_OP_INVALID;
		break;
	default:
		break;
	}
	/* CIX and the unary MVI forms have no literal form (QEMU REQUIRE_NO_LIT). */
	switch (op) {
	case AXP_OP_CTPOP:
	case AXP_OP_CTLZ:
	case AXP_OP_CTTZ:
	case AXP_OP_PERR:
	case AXP_OP_UNPKBW:
	case AXP_OP_UNPKBL:
	case AXP_OP_PKWB:
	case AXP_OP_PKLB:
		if (d->islit)
			op = AXP_OP_INVALID;
		break;
	default:
		break;
	}
	d->op = op;
}
