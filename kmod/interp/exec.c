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
 * run_threaded() remembers the pages that passed the load test for the whole run (axp.h lets that
 * test change only between runs) and those that passed the store test until it next calls the
 * memory system, each kind in a direct-mapped table of page addresses indexed by
 * va >> DIRECT_TLB_SHIFT, DIRECT_NO_PAGE where empty: DIRECT_LTLB entries for loads,
 * DIRECT_STLB for stores (fewer: the table is emptied at every call). All three [U]: our choice
 * (bzip2 -9 loads from ~100 pages of 8 KB, the hosted machine's page); any values are exact.
 */
#define DIRECT_LTLB 32
#define DIRECT_STLB 8
#define DIRECT_TLB_SHIFT 13

/* The test for va's page (mask, ok: the load's or the store's), remembered in tlb (n entries,
 * a power of two) when passed. */
static inline bool direct_tlb_fill(const struct direct_view *dv, uint64_t *tlb, unsigned int n,
				   uint64_t va, uint8_t mask, uint8_t ok)
{
	uint64_t pn = va >> dv->page_shift;

	if (pn >= dv->npages || (dv->perm[pn] & mask) != ok)
		return false;
	tlb[(va >> DIRECT_TLB_SHIFT) & (n - 1)] = va & dv->page_base;
	return true;
}

static inline void direct_tlb_forget(uint64_t *tlb, unsigned int n)
{
	for (unsigned int i = 0; i < n; i++)
		tlb[i] = DIRECT_NO_PAGE;
}

/*
 * run_loop() with the decode cache and no observer (the hosted machine's functional path), with
 * threaded dispatch: each of the common operations (AXP_FAST_OPS, the same list exec_insn()'s fast
 * path expands) is a handler that ends in its own jump to the next instruction's handler, so the
 * host's branch predictor sees one indirect jump per handler rather than one for all. A handler
 * does only what needs no call: a load or store goes direct (struct direct_view, naturally
 * aligned, its page in the kind's table of remembered pages, else permitted) or not at all;
 * anything else, including every operation not in the list, goes to `slow`, which runs the
 * instruction through exec_insn() from scratch (nothing has changed by then); a stale entry is
 * decoded again by fetch_insn() (`slow` when that gives another entry). Control flow
 * and accounting are those of run_loop() (see there): a segment runs from d to the end of the
 * window or of the budget, `left` the budget beyond it; noinline: GCC inlines no function with
 * computed gotos.
 *
 * The handlers come twice. The counted ones (T_, table `tbl`) count `seg` down and keep `pc`.
 * The uncounted ones (U_, table `utbl`) run a segment that ends at the window's end, which the
 * budget covers: they stop at the window's sentinel (insn_page's entry n, axp.h) rather than
 * counting, the rest of the segment is wend - d and pc is wva + 4 * (d - wbase), both worked out
 * only where needed; a taken branch to an entry of the same window moves d and `left` by its
 * displacement (the budget already covers the new segment when left + disp >= 0: the segment
 * charged at d, wend - d, less the executed instruction, covers the new one, wend - d - 1 - disp).
 * An uncounted handler that leaves for `slow` first turns its state into the counted one's.
 */
static __attribute__((__noinline__)) enum axp_stop run_threaded(struct axp_ctx *ctx,
								const struct axp_run_cfg *cfg,
								uint64_t budget,
								struct axp_stop_info *info)
{
	struct direct_view dv, *const dir = &dv;
	const struct axp_insn *d = NULL, *wbase = NULL, *wend = NULL;
	struct insn_window nw;
	uint64_t left = budget, seg = 0, pc = ctx->pc, next = pc, wva = 0, wlen = 0, off, val, ea;
	/* the remembered pages (direct_second_ok()), here rather than in dv, which exec_insn()
	 * keeps for itself; host and page_base: dv's */
	uint64_t ltlb[DIRECT_LTLB], stlb[DIRECT_STLB], page_base, idx;
	uint8_t *host;
	/* the window before the current one (insn_page's arrays last the run: axp.h) */
	const struct axp_insn *wbase2 = NULL;
	uint64_t wva2 = 0, wlen2 = 0;
	uintptr_t nd;
	unsigned int dest;
	int ret;

#define F_RA d->ra
#define F_RB d->rb
#define F_RC d->rc
#define F_ISLIT d->islit
#define F_LIT d->lit
#define F_MDISP d->disp
#define F_BDISP d->disp
/* counted: the instruction fell through: the next entry, while the segment lasts */
#define T_NEXT                                         \
	do {                                           \
		pc += 4;                               \
		if (__builtin_expect(--seg != 0, 1)) { \
			d++;                           \
			goto *tbl[(uint8_t)d->op];     \
		}                                      \
		goto lookup;                           \
	} while (0)
/* counted: control went to `next`: the window lookup, repeated here so that each handler jumps
 * itself; uncounted when the budget covers the rest of the window */
#define T_JUMP                                                               \
	do {                                                                 \
		pc = next;                                                   \
		left += seg - 1;                                             \
		off = pc - wva;                                              \
		if (__builtin_expect(left && off < wlen && !(off & 3), 1)) { \
			d = wbase + (off >> 2);                              \
			seg = (wlen - off) >> 2;                             \
			if (__builtin_expect(seg <= left, 1)) {              \
				left -= seg;                                 \
				goto *utbl[(uint8_t)d->op];                  \
			}                                                    \
			seg = left;                                          \
			left = 0;                                            \
			goto *tbl[(uint8_t)d->op];                           \
		}                                                            \
		seg = 0;                                                     \
		goto lookup;                                                 \
	} while (0)
#define T_SETPC
#define T_SLOW goto slow
/* uncounted: the next entry (the sentinel at the window's end) */
#define U_NEXT                              \
	do {                                \
		d++;                        \
		goto *utbl[(uint8_t)d->op]; \
	} while (0)
/* uncounted: pc (idx: d's entry) */
#define U_SETPC                              \
	do {                                 \
		idx = (uint64_t)(d - wbase); \
		pc = wva + 4 * idx;          \
	} while (0)
/* uncounted, after U_SETPC: control went to `next` */
#define U_JUMP                           \
	do {                             \
		seg = (wlen >> 2) - idx; \
		T_JUMP;                  \
	} while (0)
#define U_SLOW                           \
	do {                             \
		U_SETPC;                 \
		seg = (wlen >> 2) - idx; \
		goto slow;               \
	} while (0)
#define T_commit_int                \
	do {                        \
		ctx->r[dest] = val; \
		ctx->r[31] = 0;     \
		T_NEXT;             \
	} while (0)
#define U_commit_int                \
	do {                        \
		ctx->r[dest] = val; \
		ctx->r[31] = 0;     \
		U_NEXT;             \
	} while (0)
/* LDT (the one other LOAD_ target): dest 32 + Ra, Ra not 31 */
#define T_commit                         \
	do {                             \
		ctx->f[dest - 32] = val; \
		T_NEXT;                  \
	} while (0)
#define U_commit                         \
	do {                             \
		ctx->f[dest - 32] = val; \
		U_NEXT;                  \
	} while (0)
/* a taken conditional branch */
#define T_BRANCH                     \
	do {                         \
		next = BDISP_TARGET; \
		T_JUMP;              \
	} while (0)
#define U_BRANCH                                                                                   \
	do {                                                                                       \
		nd = (uintptr_t)d + sizeof(*d) * (uint64_t)((int64_t)F_BDISP + 1);                 \
		if (__builtin_expect(nd - (uintptr_t)wbase < (uintptr_t)wend - (uintptr_t)wbase && \
					     (int64_t)(left + (uint64_t)(int64_t)F_BDISP) >= 0,    \
				     1)) {                                                         \
			left += (uint64_t)(int64_t)F_BDISP;                                        \
			d = (const struct axp_insn *)nd;                                           \
			goto *utbl[(uint8_t)d->op];                                                \
		}                                                                                  \
		U_SETPC;                                                                           \
		next = BDISP_TARGET;                                                               \
		U_JUMP;                                                                            \
	} while (0)
/* the tables: every operation's handler, `slow` for the others and for stale entries */
#define T_ENTRY(kind, id, ...) [AXP_OP_##id] = &&T_##id,
#define U_ENTRY(kind, id, ...) [AXP_OP_##id] = &&U_##id,
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Woverride-init"
	static const void *const tbl[256] = { [0 ... 255] = &&slow,
					      [AXP_OP_NR... 255] = &&t_stale,
					      AXP_FAST_OPS(T_ENTRY) };
	static const void *const utbl[256] = { [0 ... 255] = &&u_slow,
					       [AXP_OP_NR... 255] = &&u_stale,
					       AXP_FAST_OPS(U_ENTRY) };
#pragma GCC diagnostic pop
#undef T_ENTRY
#undef U_ENTRY
/* the handlers, in mode M (T or U) */
#define H_OPR(M, id, expr)       \
	M##_##id : val = (expr); \
	dest = F_RC;             \
	M##_commit_int;
#define H_BCOND(M, id, cond) \
	M##_##id : if (cond) \
	{                    \
		M##_BRANCH;  \
	}                    \
	M##_NEXT;
#define H_ADDR(M, id, ea_expr, val_expr) \
	M##_##id : val = (val_expr);     \
	dest = F_RA;                     \
	M##_commit_int;
#define H_LINK(M, id, target)  \
	M##_##id : M##_SETPC;  \
	next = (target);       \
	ctx->r[F_RA] = pc + 4; \
	ctx->r[31] = 0;        \
	M##_JUMP;
/* a load to R31 or F31 is not performed (exec_insn()); one to R31 that may go direct does no
 * harm, R31 zeroed after it, so only F31 needs the test */
#define RA31_commit_int 0
#define RA31_commit (F_RA == 31)
#define H_LOAD_(M, id, sz, mask, conv, dst, to)                                                    \
	M##_##id : ea = (ctx->r[F_RB] + (int64_t)F_MDISP) & (mask);                                \
	if (RA31_##to || is_misaligned(ea, sz) ||                                                  \
	    (__builtin_expect(                                                                     \
		     ltlb[(ea >> DIRECT_TLB_SHIFT) & (DIRECT_LTLB - 1)] != (ea & page_base), 0) && \
	     !direct_tlb_fill(dir, ltlb, DIRECT_LTLB, ea, dir->load_mask, dir->load_ok)))          \
		M##_SLOW;                                                                          \
	val = direct_load(host + ea, sz);                                                          \
	val = conv;                                                                                \
	dest = dst;                                                                                \
	M##_##to;
#define H_STORE_(M, id, sz, mask, src)                                                             \
	M##_##id : ea = (ctx->r[F_RB] + (int64_t)F_MDISP) & (mask);                                \
	if (is_misaligned(ea, sz) ||                                                               \
	    (__builtin_expect(                                                                     \
		     stlb[(ea >> DIRECT_TLB_SHIFT) & (DIRECT_STLB - 1)] != (ea & page_base), 0) && \
	     !direct_tlb_fill(dir, stlb, DIRECT_STLB, ea, dir->store_mask, dir->store_ok)))        \
		M##_SLOW;                                                                          \
	direct_store(host + ea, sz, src);                                                          \
	M##_NEXT;

	direct_view_init(dir, cfg->mem->direct ? cfg->mem->direct(cfg->mem_priv) : NULL);
	host = dir->host;
	page_base = dir->page_base;
	direct_tlb_forget(ltlb, DIRECT_LTLB);
	direct_tlb_forget(stlb, DIRECT_STLB);
	info->exc_sum = 0;
lookup:
	/* d: the instruction at pc, with `seg` instructions to run from it */
	if (!left)
		goto budget;
	off = pc - wva;
	if (__builtin_expect(off < wlen && !(off & 3), 1)) {
		d = wbase + (off >> 2);
		seg = (wlen - off) >> 2;
		if (__builtin_expect(seg <= left, 1)) {
			left -= seg;
			goto *utbl[(uint8_t)d->op];
		}
		seg = left;
		left = 0;
		goto *tbl[(uint8_t)d->op];
	}
	if (pc - wva2 < wlen2 && !(pc & 3)) {
		/* back to the previous window: the two swap (no memory operation called) */
		d = wbase2;
		wbase2 = wbase;
		wbase = d;
		off = wva2;
		wva2 = wva;
		wva = off;
		off = wlen2;
		wlen2 = wlen;
		wlen = off;
		wend = wbase + (wlen >> 2);
		goto lookup;
	}
miss:
	ctx->pc = pc;
	direct_forget(dir);
	direct_tlb_forget(stlb, DIRECT_STLB); /* (window_miss() calls the memory system) */
	d = window_miss(pc, cfg, &nw, info);
	if (!d)
		goto fault;
	if (nw.n && nw.insn != wbase) {
		wbase2 = wbase;
		wva2 = wva;
		wlen2 = wlen;
	}
	wbase = nw.insn;
	wva = nw.va;
	wlen = 4 * nw.n;
	wend = wbase + nw.n;
	/* the entry fetch_insn() gave: alone */
	seg = 1;
	left--;
	goto *tbl[(uint8_t)d->op];

	/* each kind's handler H_<kind>, in mode T, then U */
#define T_HANDLER(kind, ...) H_##kind(T, __VA_ARGS__)
#define U_HANDLER(kind, ...) H_##kind(U, __VA_ARGS__)
	AXP_FAST_OPS(T_HANDLER)
	AXP_FAST_OPS(U_HANDLER)

u_stale:
	if (d == wend) {
		/* the sentinel: the segment ran to the window's end (d: the instruction run last,
		 * whose word a budget stop reports) */
		d--;
		pc = wva + wlen;
		seg = 0;
		goto lookup;
	}
	/* a stale entry: fetch_insn() decodes it again, in place (else as any other miss) */
	U_SETPC;
	ctx->pc = pc;
	direct_tlb_forget(stlb, DIRECT_STLB);
	if (cfg->mem->fetch_insn(cfg->mem_priv, pc, &ret) == d && d->op < AXP_OP_NR)
		goto *utbl[(uint8_t)d->op];
	seg = (wlen >> 2) - idx;
	goto slow;
t_stale:
	ctx->pc = pc;
	direct_tlb_forget(stlb, DIRECT_STLB);
	if (cfg->mem->fetch_insn(cfg->mem_priv, pc, &ret) == d && d->op < AXP_OP_NR)
		goto *tbl[(uint8_t)d->op];
	goto slow;
u_slow:
	U_SLOW;
slow:
	ret = exec_insn(ctx, d, d->op, 0, NULL, pc, &next, cfg, dir, NULL, info);
	/* exec_insn() may have called the memory system */
	direct_tlb_forget(stlb, DIRECT_STLB);
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
#undef T_SETPC
#undef T_SLOW
#undef U_NEXT
#undef U_SETPC
#undef U_JUMP
#undef U_SLOW
#undef T_commit_int
#undef U_commit_int
#undef T_commit
#undef U_commit
#undef T_BRANCH
#undef U_BRANCH
#undef H_OPR
#undef H_BCOND
#undef H_ADDR
#undef H_LINK
#undef H_LOAD_
#undef H_STORE_
#undef RA31_commit_int
#undef RA31_commit
#undef T_HANDLER
#undef U_HANDLER
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
