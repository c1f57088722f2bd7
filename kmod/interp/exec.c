/* kmod/interp/exec.c - the side-effecting Alpha executor: axp_step() and axp_run(). */
#include "exec_loop.h"

const char *const axp_stop_name[AXP_STOP_NR] = {
	[AXP_STOP_BUDGET] = "budget",
	[AXP_STOP_CALL_PAL] = "call_pal",
	[AXP_STOP_FETCH_FAULT] = "fetch-fault",
	[AXP_STOP_LOAD_FAULT] = "load-fault",
	[AXP_STOP_STORE_FAULT] = "store-fault",
	[AXP_STOP_UNALIGNED] = "unaligned",
	[AXP_STOP_ILLEGAL] = "illegal",
	[AXP_STOP_ARITH] = "arith-trap",
	[AXP_STOP_LLSC] = "ll-sc",
	[AXP_STOP_FP_HANDBACK] = "fp-handback",
	[AXP_STOP_VAX_FP] = "vax-fp",
	[AXP_STOP_UNSUPPORTED] = "unsupported",
	[AXP_STOP_OBSERVER] = "observer",
};

/*
 * Fetch and decode the instruction at ctx->pc into *d. With the memory system's decoded-instruction
 * fast path: straight from the window's page when pc lies there (aligned, entry not marked stale),
 * else fetch_insn(), after which the window (w may be NULL) moves to pc's page if the memory
 * system offers one; copied either way, so a store the instruction makes into its own word cannot
 * change it mid-execution. Without it: fetch() + axp_decode(), the window unused.
 */
static inline int fetch_decode(struct axp_ctx *ctx, const struct axp_run_cfg *cfg,
			       struct insn_window *w, struct axp_insn *d,
			       struct axp_stop_info *info)
{
	uint32_t word;
	int err;

	if (cfg->mem->fetch_insn) {
		const struct axp_insn *dp;
		uint64_t off = w ? ctx->pc - w->va : 0;

		if (w && off < 4 * w->n && !(off & 3) && w->insn[off >> 2].op != AXP_OP_NR) {
			dp = &w->insn[off >> 2];
		} else {
			dp = cfg->mem->fetch_insn(cfg->mem_priv, ctx->pc, &err);
			if (!dp) {
				info->word = 0;
				return stop(info, AXP_STOP_FETCH_FAULT, ctx->pc, err);
			}
			if (w && cfg->mem->insn_page) {
				w->insn =
					cfg->mem->insn_page(cfg->mem_priv, ctx->pc, &w->va, &w->n);
				if (!w->insn)
					w->n = 0;
			}
		}
		*d = *dp;
		info->word = d->word;
		return 0;
	}
	err = cfg->mem->fetch(cfg->mem_priv, ctx->pc, &word);
	if (err) {
		info->word = 0;
		return stop(info, AXP_STOP_FETCH_FAULT, ctx->pc, err);
	}
	axp_decode_inline(word, d);
	info->word = word;
	return 0;
}

int axp_step(struct axp_ctx *ctx, const struct axp_run_cfg *cfg, struct axp_stop_info *info)
{
	struct axp_insn d;
	struct axp_event ev;
	uint64_t next;
	int ret;

	info->executed = 0;
	info->exc_sum = 0;
	info->pc = ctx->pc;
	ret = fetch_decode(ctx, cfg, NULL, &d, info);
	if (ret)
		return ret;
	if (d.op >= AXP_OP_INVALID) /* (AXP_OP_NR: a stale entry, which fetch_insn never gives) */
		return stop(info, AXP_STOP_ILLEGAL, 0, 0);
	ret = exec_insn(ctx, &d, d.op, 0, NULL, ctx->pc, &next, cfg, NULL, cfg->obs ? &ev : NULL,
			info);
	if (ret < 0)
		return ret;
	ctx->pc = next;
	info->executed = 1;
	if (cfg->obs)
		cfg->obs->insn(cfg->obs->priv, &ev);
	return ret == AXP_EXEC_TRAP ? -EAGAIN : 0;
}

enum axp_stop axp_run(struct axp_ctx *ctx, const struct axp_run_cfg *cfg, uint64_t budget,
		      struct axp_stop_info *info)
{
	if (cfg->mem->fetch_insn)
		return cfg->obs ?
			       run_loop(ctx, cfg, budget, info, obs_call, cfg->obs, true, false) :
			       run_loop(ctx, cfg, budget, info, NULL, NULL, true, false);
	return cfg->obs ? run_loop(ctx, cfg, budget, info, obs_call, cfg->obs, false, false) :
			  run_loop(ctx, cfg, budget, info, NULL, NULL, false, false);
}
