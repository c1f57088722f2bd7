/* kmod/interp/exec_plain.h - axp_run() without a decode cache, an observer or direct access. */
#ifndef AXP_EXEC_PLAIN_H
#define AXP_EXEC_PLAIN_H

#include "exec_loop.h"

/*
 * The loop the kernel's memory operations give when nothing observes the run (issue 18 item 4):
 * each instruction fetched through mem->fetch() (get_user in the kernel glue), dispatched on
 * decode.c's first look (one load, axp_key_op) with threaded dispatch: each of the common
 * operations (AXP_FAST_OPS, the list exec_insn()'s fast path and run_threaded() expand) is a
 * handler that takes its fields from the word and ends in the next fetch, so the host's branch
 * predictor sees one indirect jump per handler. A load or store calls mem->load()/store() itself
 * when it is naturally aligned and Ra is not R31 for a load; anything else (every operation not
 * in the list, unaligned accesses, loads to R31) goes to `slow`, which runs the instruction
 * through exec_insn() from scratch (nothing has changed by then). Stops, ctx->pc and info are
 * those of run_loop() without the decode cache: ctx->pc is written before each fetch and holds
 * pc while the instruction runs, so the memory operations see it. noinline: GCC inlines no
 * function with computed gotos.
 */
static __attribute__((__noinline__)) enum axp_stop run_plain(struct axp_ctx *ctx,
							     const struct axp_run_cfg *cfg,
							     uint64_t budget,
							     struct axp_stop_info *info)
{
	const struct axp_mem_ops *const mem = cfg->mem;
	void *const priv = cfg->mem_priv;
	struct axp_insn full;
	struct axp_access acc;
	uint64_t left = budget, pc = ctx->pc, next = 0, val, ea, loaded;
	const uint8_t *key_op = axp_key_op;
	uint32_t word = 0;
	unsigned int op;
	int ret, err;

#define F_RA ((word >> 21) & 31)
#define F_RB ((word >> 16) & 31)
#define F_RC (word & 31)
#define F_ISLIT ((word >> 12) & 1)
#define F_LIT ((word >> 13) & 0xff)
#define F_MDISP ((int32_t)(int16_t)word)
#define F_BDISP ((int32_t)(word << 11) >> 11)
/* the instruction fell through; control went to `next` */
/* fetch the instruction at pc and go to its handler (each handler ends in its own copy) */
#define P_RUN                                             \
	do {                                              \
		if (__builtin_expect(!left, 0))           \
			goto budget;                      \
		ctx->pc = pc;                             \
		err = mem->fetch(priv, pc, &word);        \
		if (__builtin_expect(err != 0, 0))        \
			goto fetch_fault;                 \
		left--;                                   \
		goto *tbl[(size_t)key_op[AXP_KEY(word)]]; \
	} while (0)
/* the instruction fell through; control went to `next` */
#define P_NEXT           \
	do {             \
		pc += 4; \
		P_RUN;   \
	} while (0)
#define P_JUMP             \
	do {               \
		pc = next; \
		P_RUN;     \
	} while (0)
/* the table: every operation's handler, `slow` for the others, for the first look's
 * AXP_KEY_MORE and for the operations with operand constraints (AXP_REQ_OPS) */
#define P_ENTRY(kind, id, ...) [AXP_OP_##id] = &&P_##id,
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Woverride-init"
#define REQ(id, req) [AXP_OP_##id] = &&slow,
	static const void *const tbl[256] = { [0 ... 255] = &&slow,
					      AXP_FAST_OPS(P_ENTRY) AXP_REQ_OPS(REQ) };
#undef REQ
#pragma GCC diagnostic pop
#undef P_ENTRY
/* the handlers */
#define OPR(id, expr)          \
	P_##id : val = (expr); \
	ctx->r[F_RC] = val;    \
	ctx->r[31] = 0;        \
	P_NEXT;
#define BCOND(id, cond)              \
	P_##id : if (cond)           \
	{                            \
		next = BDISP_TARGET; \
		P_JUMP;              \
	}                            \
	P_NEXT;
#define ADDR(id, ea_expr, val_expr) \
	P_##id : val = (val_expr);  \
	ctx->r[F_RA] = val;         \
	ctx->r[31] = 0;             \
	P_NEXT;
#define LINK(id, target)          \
	P_##id : next = (target); \
	ctx->r[F_RA] = pc + 4;    \
	ctx->r[31] = 0;           \
	P_JUMP;
/* dst: F_RA (integer, then R31 zeroed again) or 32 + F_RA (LDT) */
#define LOAD_(id, sz, mask, conv, dst, to)                        \
	P_##id : ea = (ctx->r[F_RB] + (int64_t)F_MDISP) & (mask); \
	if (F_RA == 31 || is_misaligned(ea, sz))                  \
		goto slow;                                        \
	err = mem->load(priv, ea, sz, &loaded, &acc);             \
	if (__builtin_expect(err != 0, 0)) {                      \
		stop(info, AXP_STOP_LOAD_FAULT, ea, err);         \
		goto stopped;                                     \
	}                                                         \
	val = loaded;                                             \
	val = conv;                                               \
	if ((dst) < 32)                                           \
		ctx->r[(dst)&31] = val;                           \
	else                                                      \
		ctx->f[(dst)&31] = val;                           \
	P_NEXT;
#define STORE_(id, sz, mask, src)                                 \
	P_##id : ea = (ctx->r[F_RB] + (int64_t)F_MDISP) & (mask); \
	if (is_misaligned(ea, sz))                                \
		goto slow;                                        \
	err = mem->store(priv, ea, sz, src, &acc);                \
	if (__builtin_expect(err != 0, 0)) {                      \
		stop(info, AXP_STOP_STORE_FAULT, ea, err);        \
		goto stopped;                                     \
	}                                                         \
	P_NEXT;

	info->exc_sum = 0;
	/* key_op in a register: a position-independent build would form its address anew at each
	 * dispatch (the empty asm hides that it is a constant) */
	__asm__("" : "+r"(key_op));
	/* the first look only: AXP_KEY_MORE and the constrained operations go to `slow` */
	P_RUN;

	AXP_FAST_OPS(AXP_FAST_APPLY)

slow:
	/* (the empty asm: the first look is not kept in a register for this rare path) */
	__asm__("" : "+r"(word));
	op = axp_decode_op(word);
	full.word = word;
	ret = exec_insn(ctx, &full, op, word, &full, pc, &next, cfg, NULL, NULL, info);
	if (__builtin_expect(ret < 0, 0))
		goto stopped;
	if (ret == AXP_EXEC_TRAP) {
		ctx->pc = next; /* the trapping instruction completed */
		info->word = word;
		goto fault;
	}
	if (ret == AXP_EXEC_NEXT)
		P_NEXT;
	P_JUMP;

budget:
	ctx->pc = pc;
	info->reason = AXP_STOP_BUDGET;
	if (left != budget)
		info->word = word;
	info->pc = pc;
	goto out;
fetch_fault:
	info->word = 0;
	stop(info, AXP_STOP_FETCH_FAULT, pc, err);
	info->pc = pc;
	info->executed = budget - left;
	return info->reason;
stopped:
	/* not executed */
	left++;
	info->word = word;
	ctx->pc = pc;
fault:
	info->pc = pc;
out:
	info->executed = budget - left;
	return info->reason;
#undef F_RA
#undef F_RB
#undef F_RC
#undef F_ISLIT
#undef F_LIT
#undef F_MDISP
#undef F_BDISP
#undef P_NEXT
#undef P_JUMP
#undef P_RUN
#undef OPR
#undef BCOND
#undef ADDR
#undef LINK
#undef LOAD_
#undef STORE_
}

#endif /* AXP_EXEC_PLAIN_H */
