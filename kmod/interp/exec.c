/* kmod/interp/exec.c - the side-effecting Alpha executor: axp_step() and axp_run(). */
#include "exec_loop.h"
#include "exec_plain.h"

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

/*
 * run_loop() with the decode cache and no observer (the hosted machine's functional path), with
 * threaded dispatch: each of the common operations (AXP_FAST_OPS, the same list exec_insn()'s fast
 * path expands) is a handler that ends in its own jump through `tbl` to the next instruction's
 * handler, so the host's branch predictor sees one indirect jump per handler rather than one for
 * all. A handler does only what needs no call: a load or store goes direct (struct direct_view,
 * naturally aligned, page permitted) or not at all; anything else, including every operation not
 * in the list and a stale entry, goes to `slow`, which runs the instruction through exec_insn()
 * from scratch (nothing has changed by then). Control flow, segments and accounting are those of
 * run_loop() (see there); noinline: GCC inlines no function with computed gotos.
 */
static __attribute__((__noinline__)) enum axp_stop run_threaded(struct axp_ctx *ctx,
								const struct axp_run_cfg *cfg,
								uint64_t budget,
								struct axp_stop_info *info)
{
	struct direct_view dv, *const dir = &dv;
	const struct axp_insn *d = NULL, *wbase = NULL;
	struct insn_window nw;
	uint64_t left = budget, seg = 0, pc = ctx->pc, next = pc, wva = 0, wlen = 0, off, val, ea;
	unsigned int dest;
	int ret;

#define F_RA d->ra
#define F_RB d->rb
#define F_RC d->rc
#define F_ISLIT d->islit
#define F_LIT d->lit
#define F_MDISP d->disp
#define F_BDISP d->disp
/* the instruction fell through: the next entry, while the segment lasts */
#define T_NEXT                                         \
	do {                                           \
		pc += 4;                               \
		if (__builtin_expect(--seg != 0, 1)) { \
			d++;                           \
			goto *tbl[(uint8_t)d->op];     \
		}                                      \
		goto lookup;                           \
	} while (0)
/* control went to `next`: the window lookup, repeated here so that each handler jumps itself */
#define T_JUMP                                                               \
	do {                                                                 \
		pc = next;                                                   \
		left += seg - 1;                                             \
		off = pc - wva;                                              \
		if (__builtin_expect(left && off < wlen && !(off & 3), 1)) { \
			d = wbase + (off >> 2);                              \
			seg = (wlen - off) >> 2;                             \
			if (seg > left)                                      \
				seg = left;                                  \
			left -= seg;                                         \
			goto *tbl[(uint8_t)d->op];                           \
		}                                                            \
		seg = 0;                                                     \
		goto lookup;                                                 \
	} while (0)
#define T_commit_int                \
	do {                        \
		ctx->r[dest] = val; \
		ctx->r[31] = 0;     \
		T_NEXT;             \
	} while (0)
/* LDT (the one other LOAD_ target): dest 32 + Ra, Ra not 31 */
#define T_commit                         \
	do {                             \
		ctx->f[dest - 32] = val; \
		T_NEXT;                  \
	} while (0)
/* the table: every operation's handler, `slow` for the others and for stale entries */
#define T_ENTRY(id, ...) [AXP_OP_##id] = &&T_##id,
#define OPR T_ENTRY
#define BCOND T_ENTRY
#define ADDR T_ENTRY
#define LINK T_ENTRY
#define LOAD_ T_ENTRY
#define STORE_ T_ENTRY
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Woverride-init"
	static const void *const tbl[256] = { [0 ... 255] = &&slow, AXP_FAST_OPS };
#pragma GCC diagnostic pop
#undef OPR
#undef BCOND
#undef ADDR
#undef LINK
#undef LOAD_
#undef STORE_
#undef T_ENTRY
/* the handlers */
#define OPR(id, expr)          \
	T_##id : val = (expr); \
	dest = F_RC;           \
	T_commit_int;
#define BCOND(id, cond)              \
	T_##id : if (cond)           \
	{                            \
		next = BDISP_TARGET; \
		T_JUMP;              \
	}                            \
	T_NEXT;
#define ADDR(id, ea_expr, val_expr) \
	T_##id : val = (val_expr);  \
	dest = F_RA;                \
	T_commit_int;
#define LINK(id, target)          \
	T_##id : next = (target); \
	ctx->r[F_RA] = pc + 4;    \
	ctx->r[31] = 0;           \
	T_JUMP;
#define LOAD_(id, sz, mask, conv, dst, to)                                              \
	T_##id : ea = (ctx->r[F_RB] + (int64_t)F_MDISP) & (mask);                       \
	if (F_RA == 31 || is_misaligned(ea, sz) ||                                      \
	    !direct_aligned_ok(dir, ea, &dir->load_page, dir->load_mask, dir->load_ok)) \
		goto slow;                                                              \
	val = direct_load(dir->host + ea, sz);                                          \
	val = conv;                                                                     \
	dest = dst;                                                                     \
	T_##to;
#define STORE_(id, sz, mask, src)                                                          \
	T_##id : ea = (ctx->r[F_RB] + (int64_t)F_MDISP) & (mask);                          \
	if (is_misaligned(ea, sz) ||                                                       \
	    !direct_aligned_ok(dir, ea, &dir->store_page, dir->store_mask, dir->store_ok)) \
		goto slow;                                                                 \
	direct_store(dir->host + ea, sz, src);                                             \
	T_NEXT;

	direct_view_init(dir, cfg->mem->direct ? cfg->mem->direct(cfg->mem_priv) : NULL);
	info->exc_sum = 0;
lookup:
	/* d: the instruction at pc, with `seg` instructions to run from it */
	if (!left)
		goto budget;
	off = pc - wva;
	if (__builtin_expect(off < wlen && !(off & 3), 1)) {
		d = wbase + (off >> 2);
		seg = (wlen - off) >> 2;
		if (seg > left)
			seg = left;
		left -= seg;
		goto *tbl[(uint8_t)d->op];
	}
miss:
	ctx->pc = pc;
	direct_forget(dir);
	d = window_miss(pc, cfg, &nw, info);
	if (!d)
		goto fault;
	wbase = nw.insn;
	wva = nw.va;
	wlen = 4 * nw.n;
	/* the entry fetch_insn() gave: alone */
	seg = 1;
	left--;
	goto *tbl[(uint8_t)d->op];

	AXP_FAST_OPS

slow:
	ret = exec_insn(ctx, d, d->op, 0, NULL, pc, &next, cfg, dir, NULL, info);
	if (__builtin_expect(ret < 0, 0))
		goto stopped;
	if (ret == AXP_EXEC_STALE) {
		left += seg;
		seg = 0;
		goto miss;
	}
	if (ret == AXP_EXEC_TRAP) {
		seg--;
		ctx->pc = next; /* the trapping instruction completed */
		goto stopped;
	}
	if (ret == AXP_EXEC_NEXT)
		T_NEXT;
	T_JUMP;

budget:
	ctx->pc = pc;
	info->reason = AXP_STOP_BUDGET;
	if (left + seg != budget)
		info->word = d->word;
	info->pc = pc;
	goto out;
stopped:
	info->word = d->word;
	if (ret < 0)
		ctx->pc = pc;
fault:
	info->pc = pc;
out:
	info->executed = budget - left - seg;
	return info->reason;
#undef F_RA
#undef F_RB
#undef F_RC
#undef F_ISLIT
#undef F_LIT
#undef F_MDISP
#undef F_BDISP
#undef T_NEXT
#undef T_JUMP
#undef T_commit_int
#undef T_commit
#undef OPR
#undef BCOND
#undef ADDR
#undef LINK
#undef LOAD_
#undef STORE_
}

enum axp_stop axp_run(struct axp_ctx *ctx, const struct axp_run_cfg *cfg, uint64_t budget,
		      struct axp_stop_info *info)
{
	if (cfg->mem->fetch_insn)
		return cfg->obs ?
			       run_loop(ctx, cfg, budget, info, obs_call, cfg->obs, true, false) :
			       run_threaded(ctx, cfg, budget, info);
	if (cfg->obs)
		return run_loop(ctx, cfg, budget, info, obs_call, cfg->obs, false, false);
	/* (run_plain() does no direct access: a memory system that offers it gets run_loop()) */
	return cfg->mem->direct ? run_loop(ctx, cfg, budget, info, NULL, NULL, false, false) :
				  run_plain(ctx, cfg, budget, info);
}
