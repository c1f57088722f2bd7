/* kmod/sampler/vs_order.c - could a later load issue first? A dataflow estimate for load-load pairs. */
#include "vs_core.h"

/*
 * A 21264 load-load order replay trap needs the *newer* of two loads to the same bytes to issue
 * before the older one (EV67 HRM §2.11): the newer one's operands were ready first. Every pair of
 * overlapping loads an interpretation sees is a candidate, but in a loop most of them are a load
 * and the previous iteration's instance of another (or the same) load, which issued long before:
 * naming those as causes is wrong (issue 13: 47% of the named load-load conflicts never trapped).
 *
 * So the observer keeps, per register, the cycle its value would be ready in an unconstrained
 * dataflow schedule of the interpreted instructions, and per instruction the earliest cycle it
 * could issue: no earlier than its operands, and no earlier than its fetch, at four instructions a
 * cycle (HRM §2.1.1: the 21264 fetches four instructions a cycle). A load-load pair is recorded
 * only when the newer load could issue strictly before the older (equal readiness: the issue
 * logic takes the older first, HRM §2.1.4). Queue, pipe and cache-port limits are ignored: the
 * estimate is a bound, not a timing model.
 *
 * Latencies: HRM Table 2-4 (integer 1, multiply 7, integer load 3, FP load 4, FP add/multiply 4,
 * FP divide single 12 / double 15, MVI and other integer "misc" 3); a load's measured latency
 * (acc.latency, when the platform gives one) replaces the table's. Registers start ready at 0:
 * values computed before the interpretation began are taken as available.
 */
static const uint8_t unit_lat[AXP_U_NR] = {
	[AXP_U_PAL] = 1,    [AXP_U_ILD] = 3,	[AXP_U_FLD] = 4,   [AXP_U_IST] = 1,
	[AXP_U_FST] = 1,    [AXP_U_IADD] = 1,	[AXP_U_ILOG] = 1,  [AXP_U_ICMP] = 1,
	[AXP_U_SHIFT] = 1,  [AXP_U_CMOV] = 1,	[AXP_U_IMULL] = 7, [AXP_U_IMULQ] = 7,
	[AXP_U_IMULH] = 7,  [AXP_U_IBR] = 1,	[AXP_U_FBR] = 1,   [AXP_U_JSR] = 3,
	[AXP_U_MISC] = 3,   [AXP_U_MVI] = 3,	[AXP_U_FADD] = 4,  [AXP_U_FMUL] = 4,
	[AXP_U_FDIVS] = 12, [AXP_U_FDIVT] = 15, [AXP_U_FCPYS] = 4, [AXP_U_FCMOV] = 4,
};

#define VS_FETCH_PER_CYCLE 4u /* HRM §2.1.1 */

void vs_order_begin(struct vs_obs *o)
{
	for (unsigned int r = 0; r < VS_ORDER_REGS; r++)
		o->rdy[r] = 0;
}

/* r31 and f31 read 0: their entries stay 0 (vs_order_begin; vs_order_insn never writes them). */
static inline uint32_t reg_rdy(const struct vs_obs *o, unsigned int r, bool fp)
{
	return o->rdy[(r & 31) + (fp ? 32 : 0)];
}

uint32_t vs_order_insn(struct vs_obs *o, const struct axp_event *ev)
{
	const struct axp_insn *d = ev->insn;
	const struct axp_op_info *info;
	uint32_t t = o->seq / VS_FETCH_PER_CYCLE, lat;

	if (!d)
		return t;
	info = axp_info(d);
	if (info->flags & AXP_F_SA)
		t = max_u32(t, reg_rdy(o, d->ra, info->flags & AXP_F_FA));
	if ((info->flags & AXP_F_SB) && !d->islit)
		t = max_u32(t, reg_rdy(o, d->rb, info->flags & AXP_F_FB));
	if (info->flags & AXP_F_SC)
		t = max_u32(t, reg_rdy(o, d->rc, info->flags & AXP_F_FC));
	if (ev->dest != AXP_NO_DEST && (ev->dest & 31) != 31 && ev->dest < VS_ORDER_REGS) {
		lat = info->unit < AXP_U_NR ? unit_lat[info->unit] : 1;
		if (ev->is_load && ev->acc.latency)
			lat = ev->acc.latency;
		o->rdy[ev->dest] = t + lat;
	}
	return t;
}
