/* kmod/interp/exec_plain.h - axp_run() without a decode cache, an observer or direct access. */
#ifndef AXP_EXEC_PLAIN_H
#define AXP_EXEC_PLAIN_H

#include "exec_loop.h"

/*
 * The opcode and function of each operation (ops.def), for run_plain()'s dispatch table:
 * PLAIN_OPC_<id> and PLAIN_FN_<id>.
 */
enum {
#define AXP_OP(id, nm, opc, fn, fm, un, fl) PLAIN_OPC_##id = (opc), PLAIN_FN_##id = (fn),
#include "ops.def"
#undef AXP_OP
};

/*
 * run_plain()'s dispatch table, PLAIN_TBL_NR entries:
 *
 *   ENTRIES      INDEX                           HOLDS
 *   0-255        insn[31:24]                     the first jump: the opcode, insn[31:26], with
 *                                                Ra's top bits, four entries per opcode
 *   256-1279     PLAIN_OROW(opc) + insn[12:5]    the second jump of the integer operate
 *                                                opcodes 0x10-0x13: a row of 256 per opcode, by
 *                                                the literal bit and fn7 (axp.h draws the format)
 *   1280-1535    PLAIN_OROW(other opcode) + ...  a row nothing reads: where the operations of
 *                                                other opcodes that the table's initialiser names
 *                                                land
 *
 * PLAIN_TOP is the byte of a 32-bit word in memory that holds its bits 31:24 (the first jump
 * reads the fetched word's byte: one load, where the word's opcode would take two more
 * instructions).
 */
#define PLAIN_OROW(opc) (256 + 256 * ((opc) >= 0x10 && (opc) <= 0x13 ? (opc)-0x10 : 4))
#define PLAIN_OKEY(word) (((word) >> 5) & 0xff)
#define PLAIN_TBL_NR (256 + 5 * 256)
#define PLAIN_TOP (__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ ? 3 : 0)

/*
 * The loop the kernel's memory operations give when nothing observes the run (issue 18 item 4):
 * each instruction fetched through mem->fetch() (get_user in the kernel glue) and dispatched
 * with threaded dispatch: each of the common operations (AXP_FAST_OPS, the list exec_insn()'s
 * fast path and run_threaded() expand) is a handler that takes its fields from the word and ends
 * in the next fetch, so the host's branch predictor sees one indirect jump per handler.
 *
 * The dispatch goes straight to the handler, in one jump on the opcode (Handbook 3.3): every
 * common operation outside the integer operate opcodes owns its opcode (the four of 0x1a, JMP,
 * JSR, RET and JSR_COROUTINE, share one handler: they differ only in the hint bits, Handbook
 * 4.3), and the operate opcodes 0x10-0x13 jump again, on insn[12:5], to the operation's handler
 * for the register or the literal form (each operate handler comes twice, so neither tests
 * insn[12]). The table is built from ops.def's opcodes and functions, the facts decode.c's
 * tables are built from, and leads to a handler exactly where axp_decode_op() gives that
 * handler's operation (tests/interp/test_exec.c runs every opcode and every operate function
 * through this loop and through axp_step()).
 *
 * A load or store calls mem->load()/store() itself when it is naturally aligned and Ra is not
 * R31 for a load; anything else (every operation not in the list, the operations with operand
 * constraints, AXP_REQ_OPS, unaligned accesses, loads to R31) goes to `slow`, which decodes the
 * instruction and runs it through exec_insn() from scratch (nothing has changed by then). Stops,
 * ctx->pc and info are those of run_loop() without the decode cache: ctx->pc is written before
 * each fetch and holds pc while the instruction runs, so the memory operations see it.
 *
 * What keeps the host instructions per instruction down (callgrind, bench_interp int: 54.6 ->
 * 44.6 with the table and the following): the word is fetched into `fetched` and copied to
 * `word`, which the handlers read and need not keep (what follows a handler reads `fetched`); a
 * jump's target goes through `tgt`, not `next`, whose address exec_insn() takes; `quota` is one
 * more than the instructions the budget still allows (arithmetic modulo 2^64), so its test is
 * the decrement's; the stop info and the budget stay in memory (`rare`) rather than in two of
 * the registers the handlers use; a load's fault works out its address again rather than keep
 * it across the call. noinline: GCC inlines no function with computed gotos.
 */
static __attribute__((__noinline__)) enum axp_stop run_plain(struct axp_ctx *ctx,
							     const struct axp_run_cfg *cfg,
							     uint64_t budget_arg,
							     struct axp_stop_info *info_arg)
{
	/* what only the stops need, in memory (see above; the empty asm below) */
	struct {
		struct axp_stop_info *info;
		uint64_t budget;
	} rare = { info_arg, budget_arg };
	const struct axp_mem_ops *const mem = cfg->mem;
	void *const priv = cfg->mem_priv;
	struct axp_insn full;
	struct axp_access acc;
	uint64_t quota = budget_arg + 1, pc = ctx->pc, next = 0, tgt, val, ea, loaded;
	uint32_t word, fetched = 0;
	unsigned int op;
	int ret, err;

#define F_RA ((word >> 21) & 31)
#define F_RB ((word >> 16) & 31)
#define F_RC (word & 31)
#define F_LIT ((word >> 13) & 0xff)
#define F_MDISP ((int32_t)(int16_t)word)
#define F_BDISP ((int32_t)(word << 11) >> 11)
/* fetch the instruction at pc and go to its handler (each handler ends in its own copy) */
#define P_RUN                                                     \
	do {                                                      \
		if (__builtin_expect(--quota == 0, 0))            \
			goto over;                                \
		ctx->pc = pc;                                     \
		err = mem->fetch(priv, pc, &fetched);             \
		if (__builtin_expect(err != 0, 0))                \
			goto fetch_fault;                         \
		word = fetched;                                   \
		goto *ot[((const uint8_t *)&fetched)[PLAIN_TOP]]; \
	} while (0)
/* the instruction fell through; control went to `tgt` */
#define P_NEXT           \
	do {             \
		pc += 4; \
		P_RUN;   \
	} while (0)
#define P_JUMP            \
	do {              \
		pc = tgt; \
		P_RUN;    \
	} while (0)
/* the table: each common operation's handler (operates: its register and literal forms),
 * `slow` for the others and for the operations with operand constraints (AXP_REQ_OPS) */
#define P_OENTRY(kind, id, ...) P_OENTRY_##kind(id)
#define P_OENTRY_OPR(id)
#define P_OSLOTS(opc) [(opc) << 2 ...((opc) << 2) | 3]
#define P_OENTRY_BCOND(id) P_OSLOTS(PLAIN_OPC_##id) = &&P_##id,
#define P_OENTRY_ADDR(id) P_OSLOTS(PLAIN_OPC_##id) = &&P_##id,
#define P_OENTRY_LINK(id) P_OSLOTS(PLAIN_OPC_##id) = &&P_##id,
#define P_OENTRY_LOAD_(id) P_OSLOTS(PLAIN_OPC_##id) = &&P_##id,
#define P_OENTRY_STORE_(id) P_OSLOTS(PLAIN_OPC_##id) = &&P_##id,
#define P_XENTRY(kind, id, ...) P_XENTRY_##kind(id)
#define P_XENTRY_OPR(id)                                                                      \
	[PLAIN_OROW(PLAIN_OPC_##id) + PLAIN_FN_##id] = &&P_##id##_r,                          \
				      [PLAIN_OROW(PLAIN_OPC_##id) + (0x80 | PLAIN_FN_##id)] = \
					      &&P_##id##_l,
#define P_XENTRY_BCOND(id)
#define P_XENTRY_ADDR(id)
#define P_XENTRY_LINK(id)
#define P_XENTRY_LOAD_(id)
#define P_XENTRY_STORE_(id)
#define REQ(id, req)                                                                              \
	[PLAIN_OROW(PLAIN_OPC_##id) + (PLAIN_FN_##id & 0x7f)] = &&slow,                           \
						       [PLAIN_OROW(PLAIN_OPC_##id) +              \
							       (0x80 | (PLAIN_FN_##id & 0x7f))] = \
							       &&slow,
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Woverride-init"
	static const void *const tbl[PLAIN_TBL_NR] = {
		[0 ... PLAIN_TBL_NR - 1] = &&slow,
		P_OSLOTS(0x10) = &&operate10,
		P_OSLOTS(0x11) = &&operate11,
		P_OSLOTS(0x12) = &&operate12,
		P_OSLOTS(0x13) = &&operate13,
		AXP_FAST_OPS(P_OENTRY) AXP_FAST_OPS(P_XENTRY) AXP_REQ_OPS(REQ)
	};
	const void *const *ot = tbl;
#pragma GCC diagnostic pop
#undef REQ
/* the handlers; OPR's come twice, F_ISLIT 0 then 1 */
#define OPR_R(id, expr)            \
	P_##id##_r : val = (expr); \
	ctx->r[F_RC] = val;        \
	ctx->r[31] = 0;            \
	P_NEXT;
#define OPR_L(id, expr)            \
	P_##id##_l : val = (expr); \
	ctx->r[F_RC] = val;        \
	ctx->r[31] = 0;            \
	P_NEXT;
#define BCOND(id, cond)             \
	P_##id : if (cond)          \
	{                           \
		tgt = BDISP_TARGET; \
		P_JUMP;             \
	}                           \
	P_NEXT;
#define ADDR(id, ea_expr, val_expr) \
	P_##id : val = (val_expr);  \
	ctx->r[F_RA] = val;         \
	ctx->r[31] = 0;             \
	P_NEXT;
#define LINK(id, target)         \
	P_##id : tgt = (target); \
	ctx->r[F_RA] = pc + 4;   \
	ctx->r[31] = 0;          \
	P_JUMP;
/* dst: F_RA (integer, then R31 zeroed again) or 32 + F_RA (LDT) */
#define LOAD_(id, sz, mask, conv, dst, to)                        \
	P_##id : ea = (ctx->r[F_RB] + (int64_t)F_MDISP) & (mask); \
	if (F_RA == 31 || is_misaligned(ea, sz))                  \
		goto slow;                                        \
	err = mem->load(priv, ea, sz, &loaded, &acc);             \
	if (__builtin_expect(err != 0, 0)) {                      \
		word = fetched;                                   \
		ea = (ctx->r[F_RB] + (int64_t)F_MDISP) & (mask);  \
		stop(rare.info, AXP_STOP_LOAD_FAULT, ea, err);    \
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
		stop(rare.info, AXP_STOP_STORE_FAULT, ea, err);   \
		goto stopped;                                     \
	}                                                         \
	P_NEXT;

	/* `rare` in memory that the calls may change, as far as the compiler knows, so that it
	 * keeps no copy in a register (and at `over` loads nothing ahead into the handlers) */
	__asm__("" : : "r"(&rare) : "memory");
	rare.info->exc_sum = 0;
	/* the table in a register: a position-independent build would form its address anew at
	 * each dispatch (the empty asm hides that it is a constant) */
	__asm__("" : "+r"(ot));
	P_RUN;

operate10:
	goto *ot[PLAIN_OROW(0x10) + PLAIN_OKEY(word)];
operate11:
	goto *ot[PLAIN_OROW(0x11) + PLAIN_OKEY(word)];
operate12:
	goto *ot[PLAIN_OROW(0x12) + PLAIN_OKEY(word)];
operate13:
	goto *ot[PLAIN_OROW(0x13) + PLAIN_OKEY(word)];

#define F_ISLIT 0
#define OPR(...) OPR_R(__VA_ARGS__)
	AXP_FAST_OPS(AXP_FAST_APPLY)
#undef F_ISLIT
#undef OPR
#undef BCOND
#undef ADDR
#undef LINK
#undef LOAD_
#undef STORE_
#define F_ISLIT 1
#define OPR(...) OPR_L(__VA_ARGS__)
#define BCOND(...)
#define ADDR(...)
#define LINK(...)
#define LOAD_(...)
#define STORE_(...)
	AXP_FAST_OPS(AXP_FAST_APPLY)

slow:
	word = fetched;
	op = axp_decode_op(word);
	full.word = word;
	ret = exec_insn(ctx, &full, op, word, &full, pc, &next, cfg, NULL, NULL, rare.info);
	if (__builtin_expect(ret < 0, 0))
		goto stopped;
	if (ret == AXP_EXEC_TRAP) {
		ctx->pc = next; /* the trapping instruction completed */
		rare.info->word = fetched;
		goto fault;
	}
	if (ret == AXP_EXEC_NEXT)
		P_NEXT;
	tgt = next;
	P_JUMP;

over:
	__asm__("" : : "r"(&rare) : "memory");
	quota = 1;
	ctx->pc = pc;
	rare.info->reason = AXP_STOP_BUDGET;
	if (rare.budget) /* the last instruction's word */
		rare.info->word = fetched;
	rare.info->pc = pc;
	goto out;
fetch_fault:
	quota++;
	rare.info->word = 0;
	stop(rare.info, AXP_STOP_FETCH_FAULT, pc, err);
	rare.info->pc = pc;
	rare.info->executed = rare.budget + 1 - quota;
	return rare.info->reason;
stopped:
	/* not executed */
	quota++;
	rare.info->word = fetched;
	ctx->pc = pc;
fault:
	rare.info->pc = pc;
out:
	rare.info->executed = rare.budget + 1 - quota;
	return rare.info->reason;
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
#undef P_OENTRY
#undef P_OENTRY_OPR
#undef P_OENTRY_BCOND
#undef P_OENTRY_ADDR
#undef P_OENTRY_LINK
#undef P_OENTRY_LOAD_
#undef P_OENTRY_STORE_
#undef P_XENTRY
#undef P_XENTRY_OPR
#undef P_XENTRY_BCOND
#undef P_XENTRY_ADDR
#undef P_XENTRY_LINK
#undef P_XENTRY_LOAD_
#undef P_XENTRY_STORE_
#undef OPR_R
#undef OPR_L
#undef OPR
#undef BCOND
#undef ADDR
#undef LINK
#undef LOAD_
#undef STORE_
}

#endif /* AXP_EXEC_PLAIN_H */
