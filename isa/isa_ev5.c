/* isa/isa_ev5.c - the EV5 (21164) per-instruction facts: issue pipes, classes, latencies. */
#include <string.h>

#include "axp.h"
#include "isa_ev5.h"

/* Per execution-unit class: pipe, latency, repeat rate, kind ([ev5.md]; IMUL [HRM p. 2-25]). */
static const struct {
	uint8_t pipe, lat, repeat;
	uint16_t kind;
} unit[AXP_U_NR] = {
	[AXP_U_PAL] = { ISA_EV5_P_E1, 1, 0, ISA_EV5_K_PAL | ISA_EV5_K_BARRIER },
	[AXP_U_ILD] = { ISA_EV5_P_E01, 1, 0, 0 },
	[AXP_U_FLD] = { ISA_EV5_P_E01, 1, 0, 0 },
	[AXP_U_IST] = { ISA_EV5_P_E0, 1, 0, ISA_EV5_K_STORE },
	[AXP_U_FST] = { ISA_EV5_P_E0, 1, 0, ISA_EV5_K_STORE },
	[AXP_U_IADD] = { ISA_EV5_P_E01, 1, 0, 0 },
	[AXP_U_ILOG] = { ISA_EV5_P_E01, 1, 0, ISA_EV5_K_BYPP },
	[AXP_U_ICMP] = { ISA_EV5_P_E01, 1, 0, ISA_EV5_K_BYPP },
	[AXP_U_SHIFT] = { ISA_EV5_P_E0, 1, 0, 0 },
	[AXP_U_CMOV] = { ISA_EV5_P_E01, 2, 0, ISA_EV5_K_BYPC },
	[AXP_U_IMULL] = { ISA_EV5_P_E0, 8, 4, ISA_EV5_K_IMUL },
	[AXP_U_IMULQ] = { ISA_EV5_P_E0, 12, 8, ISA_EV5_K_IMUL },
	[AXP_U_IMULH] = { ISA_EV5_P_E0, 14, 8, ISA_EV5_K_IMUL },
	[AXP_U_IBR] = { ISA_EV5_P_E1, 1, 0, 0 }, /* kind by op */
	[AXP_U_FBR] = { ISA_EV5_P_FA, 1, 0, ISA_EV5_K_CBR },
	[AXP_U_JSR] = { ISA_EV5_P_E1, 1, 0, 0 }, /* kind by op */
	[AXP_U_MISC] = { ISA_EV5_P_E0, 2, 0, 0 }, /* kind by op */
	[AXP_U_MVI] = { ISA_EV5_P_E0, 2, 0, 0 },
	[AXP_U_FADD] = { ISA_EV5_P_FA, 4, 0, 0 },
	[AXP_U_FMUL] = { ISA_EV5_P_FM, 4, 0, 0 },
	[AXP_U_FDIVS] = { ISA_EV5_P_FA, 15, 15, ISA_EV5_K_FDIV },
	[AXP_U_FDIVT] = { ISA_EV5_P_FA, 22, 22, ISA_EV5_K_FDIV },
	[AXP_U_FCPYS] = { ISA_EV5_P_FAM, 4, 0, 0 },
	[AXP_U_FCMOV] = { ISA_EV5_P_FA, 4, 0, 0 },
};

static uint8_t operand(uint32_t flags, uint32_t use, uint32_t fp)
{
	if (!(flags & use))
		return 0;
	return 1 + ((flags & fp) ? 32 : 0);
}

/* What the op itself adds to its class: branch and jump kinds, barriers, locked loads. */
static uint16_t op_kind(unsigned int op, unsigned int u)
{
	switch (u) {
	case AXP_U_IBR:
		return op == AXP_OP_BR ? ISA_EV5_K_UBR : (ISA_EV5_K_CBR | ISA_EV5_K_BYPC);
	case AXP_U_JSR:
		if (op == AXP_OP_BSR)
			return ISA_EV5_K_UBR | ISA_EV5_K_PUSH;
		if (op == AXP_OP_JSR)
			return ISA_EV5_K_IND | ISA_EV5_K_PUSH;
		if (op == AXP_OP_RET)
			return ISA_EV5_K_IND | ISA_EV5_K_POP;
		if (op == AXP_OP_JSR_CO)
			return ISA_EV5_K_IND | ISA_EV5_K_PUSH | ISA_EV5_K_POP;
		return ISA_EV5_K_IND;
	case AXP_U_MISC:
		if (op == AXP_OP_TRAPB || op == AXP_OP_EXCB)
			return ISA_EV5_K_BARRIER;
		if (op == AXP_OP_MB)
			return ISA_EV5_K_BARRIER | ISA_EV5_K_MB;
		if (op == AXP_OP_WMB)
			return ISA_EV5_K_MB;
		return 0;
	default:
		return 0;
	}
}

void isa_ev5_op(unsigned int op, unsigned int dcache_lat, struct isa_ev5_op *o)
{
	const struct axp_op_info *in = &axp_op_info[op < AXP_OP_NR ? op : AXP_OP_INVALID];
	uint32_t f = in->flags;
	unsigned int u = in->unit < AXP_U_NR ? in->unit : AXP_U_PAL;

	memset(o, 0, sizeof(*o));
	o->sa = operand(f, AXP_F_SA, AXP_F_FA);
	o->sb = operand(f, AXP_F_SB, AXP_F_FB);
	o->sc = operand(f, AXP_F_SC, AXP_F_FC);
	o->da = operand(f, AXP_F_DA, AXP_F_FA);
	o->dc = operand(f, AXP_F_DC, AXP_F_FC);
	o->pipe = unit[u].pipe;
	o->lat = unit[u].lat;
	o->repeat = unit[u].repeat;
	o->kind = unit[u].kind | op_kind(op, u);
	if (u == AXP_U_ILD || u == AXP_U_FLD) {
		if (f & AXP_F_LOCK)
			o->pipe = ISA_EV5_P_E0;
		if (f & AXP_F_LD) {
			o->kind |= ISA_EV5_K_LOAD;
			o->lat = (uint8_t)dcache_lat;
		}
	}
	if (u == AXP_U_IST || u == AXP_U_FST)
		o->lat = (uint8_t)dcache_lat; /* STx_C's success flag */
}

const char *isa_ev5_pipe_name(unsigned int pipe)
{
	static const char *const names[ISA_EV5_P_NR] = {
		[ISA_EV5_P_NONE] = "-",	 [ISA_EV5_P_E0] = "E0", [ISA_EV5_P_E1] = "E1",
		[ISA_EV5_P_E01] = "E01", [ISA_EV5_P_FA] = "FA", [ISA_EV5_P_FM] = "FM",
		[ISA_EV5_P_FAM] = "FAM",
	};

	return pipe < ISA_EV5_P_NR ? names[pipe] : "?";
}
