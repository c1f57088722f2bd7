/* tests/diff/diffcheck.c - runs qemu-alpha's results through axp_step() and reports differences. */
/*
 * vecgen ... | qemu-alpha -L /usr/alpha-linux-gnu build/alpha/runner | diffcheck [options]
 *
 * Each struct dv_res (diffvec.h) carries a vector and the state qemu-alpha reached with it. The
 * vector is executed again by axp_step() on a simulated copy of the same address space, and every
 * integer and FP register, FPCR, the data window, the signal (or clean landing) and the next PC are
 * compared. Two self-consistency checks run on every vector too: each observer event must agree
 * with the context it reports on (word, op, next_pc, dest value, stored bytes, branch taken), and
 * axp_run() (its own loop, no observer) must end in the same state as the axp_step() loop. Options:
 *
 *   --policy full|interrupt  run policy (default full = AXP_POLICY_FULL). Under interrupt, a
 *                        vector may instead be declined with a named reason, the context unchanged
 *   --seed S             only printed, in the replay command of each mismatch
 *   --expect N           fail unless exactly N records arrive (catches a runner that died)
 *   --require-all-ops    fail unless every tested operation was the first instruction of a vector
 *                        and every IEEE op saw every qualifier combination (/D: every FPCR mode)
 *   --max-print N        print at most N mismatches in full (default 30); all are counted
 *   --per-op             print the per-operation table (default: only with mismatches or -v)
 *   -v                   per-op table always, plus the first unexplained fault-address differences
 *   --inject N           self-test: alter qemu's result of every N-th record in one place; pass
 *                        only if every altered (compared) record, and nothing else, is reported
 *
 * qemu's outcome is predicted from ours: completed -> SIGTRAP on the landing pad (sc_pc = pad + 4)
 * or SIGSEGV at a target outside the code page; ILLEGAL -> SIGILL (sc_pc = insn + 4, QEMU's
 * OPCDEC convention); LOAD/STORE/FETCH_FAULT -> SIGSEGV; UNALIGNED -> SIGBUS; ARITH -> SIGFPE
 * (sc_pc = insn + 4; under the full policy the instruction completed, so its state is compared).
 * Under the full policy only AXP_STOP_VAX_FP is an accepted decline (counted, not a mismatch).
 * RPCC's destination is not compared (the cycle counters differ). A vector that touched the
 * unmodelled part of the data page or the runner's own memory (diffvec.h) is skipped and counted.
 * Exit status: 0 when nothing differed (and --expect/--require-all-ops held), 1 otherwise.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "diffgen.h"

#define AMASK_QEMU \
	0x1307ull /* measured: AMASK under qemu-alpha 7.2 (BWX FIX CIX MVI TRAP PREFETCH) */
#define IMPLVER_QEMU 2ull /* measured: IMPLVER = EV6 */
#define UNIQUE_SENTINEL 0x5eed5eed5eed5eedull

enum reg_kind { RK_NONE, RK_TRAP, RK_ILL, RK_SEGV, RK_BUS, RK_FPE, RK_OTHER, RK_NR };

static const char *const rk_name[RK_NR] = { "-", "trap", "ill", "segv", "bus", "fpe", "other" };

/* ------------------------------------------------------------------------------------------ */
/* The simulated address space (diffvec.h's map). */

enum region { REG_NONE, REG_CODE, REG_WIN, REG_UNMOD, REG_RO };

struct sim {
	uint32_t code[DV_PAGE / 4];
	uint8_t win[DV_WIN_SIZE];
	bool touched_unmodelled; /* the unmodelled part of the data page */
	bool touched_host; /* the runner's own memory (dv_is_host_addr) */
	uint64_t rpcc;
};

static enum region region_of(uint64_t va)
{
	if (va >= DV_CODE_BASE && va < DV_CODE_BASE + DV_PAGE)
		return REG_CODE;
	if (va >= DV_WIN && va < DV_WIN + DV_WIN_SIZE)
		return REG_WIN;
	if (va >= DV_DATA_BASE && va < DV_WIN)
		return REG_UNMOD;
	if (va >= DV_RO_BASE && va < DV_RO_BASE + DV_PAGE)
		return REG_RO;
	return REG_NONE;
}

static uint8_t sim_byte(const struct sim *s, uint64_t va)
{
	switch (region_of(va)) {
	case REG_CODE:
		return (uint8_t)(s->code[(va - DV_CODE_BASE) / 4] >> (8 * (va & 3)));
	case REG_WIN:
		return s->win[va - DV_WIN];
	case REG_RO:
		return dv_ro_byte(va - DV_RO_BASE);
	default:
		return 0;
	}
}

static int sim_fetch(void *priv, uint64_t va, uint32_t *word)
{
	struct sim *s = priv;

	if (dv_is_host_addr(va))
		s->touched_host = true;
	if (region_of(va) != REG_CODE || (va & 3))
		return -EFAULT;
	*word = s->code[(va - DV_CODE_BASE) / 4];
	return 0;
}

static int sim_check(struct sim *s, uint64_t va, unsigned int size, bool write)
{
	unsigned int i;

	if (va + size < va)
		return -EFAULT;
	for (i = 0; i < size; i++) {
		enum region r = region_of(va + i);

		if (r == REG_UNMOD) {
			s->touched_unmodelled = true;
			return -EFAULT;
		}
		if (dv_is_host_addr(va + i)) {
			s->touched_host = true;
			return -EFAULT;
		}
		if (r == REG_NONE || (write && r != REG_WIN))
			return -EFAULT;
	}
	return 0;
}

static int sim_load(void *priv, uint64_t va, unsigned int size, uint64_t *val,
		    struct axp_access *acc)
{
	struct sim *s = priv;
	uint64_t x = 0;
	unsigned int i;
	int err = sim_check(s, va, size, false);

	(void)acc;
	if (err)
		return err;
	for (i = 0; i < size; i++)
		x |= (uint64_t)sim_byte(s, va + i) << (8 * i);
	*val = x;
	return 0;
}

static int sim_store(void *priv, uint64_t va, unsigned int size, uint64_t val,
		     struct axp_access *acc)
{
	struct sim *s = priv;
	unsigned int i;
	int err = sim_check(s, va, size, true);

	(void)acc;
	if (err)
		return err;
	for (i = 0; i < size; i++)
		s->win[va + i - DV_WIN] = (uint8_t)(val >> (8 * i));
	return 0;
}

static uint64_t sim_rpcc(void *priv)
{
	struct sim *s = priv;

	return s->rpcc += 1000;
}

static const struct axp_mem_ops sim_ops = {
	.fetch = sim_fetch,
	.load = sim_load,
	.store = sim_store,
	.rpcc = sim_rpcc,
};

/* ------------------------------------------------------------------------------------------ */
/* Running one vector through the interpreter. */

struct ours {
	struct axp_ctx ctx;
	struct sim sim;
	bool stopped; /* axp_step returned -EAGAIN */
	struct axp_stop_info info;
	bool unchanged; /* for a stop: context and memory equal to before that instruction */
	int exp_sig; /* the signal qemu should report */
	uint64_t exp_pc; /* and its sc_pc */
	bool decline; /* a handback: no comparison with qemu */
	bool mask_rpcc[32]; /* destinations of RPCC (value not compared) */
	unsigned int steps;
	const char *obs_err; /* first observer event inconsistent with the context, or NULL */
	const char *run_err; /* first difference between axp_run() and the axp_step() loop */
};

/*
 * The observer contract (axp.h struct axp_event), checked against the context the instruction
 * has just committed: called after the commit, so o->ctx and o->sim hold the new state.
 */
static void obs_insn(void *priv, const struct axp_event *ev)
{
	struct ours *o = priv;
	struct axp_insn d;
	uint32_t word = 0;
	const char *err = NULL;

	if (ev->op == AXP_OP_RPCC && ev->dest < 32)
		o->mask_rpcc[ev->dest] = true;
	if (o->obs_err)
		return;
	if (ev->pc >= DV_CODE_BASE && ev->pc < DV_CODE_BASE + DV_PAGE)
		word = o->sim.code[(ev->pc - DV_CODE_BASE) / 4];
	axp_decode(word, &d);
	if (ev->word != word)
		err = "event word";
	else if (ev->op != d.op)
		err = "event op";
	else if (ev->next_pc != o->ctx.pc)
		err = "event next_pc";
	else if (ev->dest < 31 && o->ctx.r[ev->dest] != ev->value)
		err = "event value (integer dest)";
	else if (ev->dest >= 32 && ev->dest < 63 && o->ctx.f[ev->dest - 32] != ev->value)
		err = "event value (FP dest)";
	else if (ev->dest != AXP_NO_DEST && ev->dest > 63)
		err = "event dest";
	else if ((ev->is_load || ev->is_store) && ev->size != 1 && ev->size != 2 && ev->size != 4 &&
		 ev->size != 8)
		err = "event size";
	else if (ev->is_store && ev->ea >= DV_WIN && ev->ea - DV_WIN <= DV_WIN_SIZE - ev->size) {
		uint64_t m = 0;

		memcpy(&m, o->sim.win + (ev->ea - DV_WIN), ev->size);
		if (ev->size < 8 && (m ^ ev->store_value) & ((1ull << (8 * ev->size)) - 1))
			err = "event store_value";
		else if (ev->size == 8 && m != ev->store_value)
			err = "event store_value";
	} else if (axp_op_info[d.op].fmt == AXP_FMT_BRA && ev->next_pc != ev->pc + 4 && !ev->taken)
		err = "event taken";
	o->obs_err = err;
}

static bool is_slot(const struct dv_vec *v, uint64_t pc)
{
	return pc >= DV_SLOT && pc < DV_SLOT + 4 * v->ninsn;
}

static void init_ours(const struct dv_vec *v, struct axp_ctx *ctx, struct sim *sim)
{
	unsigned int i;

	memset(sim, 0, sizeof(*sim));
	memset(ctx, 0, sizeof(*ctx));
	for (i = 0; i < DV_PAGE / 4; i++)
		sim->code[i] = DV_PAD;
	for (i = 0; i < v->ninsn && i < DV_MAX_INSN; i++)
		sim->code[(DV_SLOT - DV_CODE_BASE) / 4 + i] = v->insn[i];
	memcpy(sim->win, v->mem, DV_WIN_SIZE);
	memcpy(ctx->r, v->r, sizeof(ctx->r));
	memcpy(ctx->f, v->f, sizeof(ctx->f));
	ctx->r[31] = 0;
	ctx->f[31] = 0;
	ctx->pc = DV_SLOT;
	ctx->fpcr = v->fpcr;
	ctx->unique = UNIQUE_SENTINEL;
	ctx->lock_addr = AXP_NO_LOCK;
}

/*
 * The same vector through axp_run() (its own loop, and without an observer): it must stop
 * where the axp_step() loop stopped, or on the landing pad (CALL_PAL) or the fetch fault that
 * follows, with the same context and memory.
 */
static const char *cross_check_run(const struct dv_vec *v, unsigned int policy,
				   const struct ours *o)
{
	static struct sim sim;
	struct axp_ctx ctx;
	struct axp_stop_info info;
	struct axp_run_cfg cfg = {
		.mem = &sim_ops,
		.mem_priv = &sim,
		.obs = NULL,
		.handback = policy,
		.amask = AMASK_QEMU,
		.implver = IMPLVER_QEMU,
	};
	enum axp_stop want;
	uint64_t executed = o->steps;
	uint32_t w;

	init_ours(v, &ctx, &sim);
	axp_run(&ctx, &cfg, 64, &info);
	if (o->stopped) {
		want = o->info.reason;
		if (want == AXP_STOP_ARITH && !(policy & AXP_HB_ARITH))
			executed++;
	} else {
		want = sim_fetch(&sim, o->ctx.pc, &w) == 0 ? AXP_STOP_CALL_PAL :
							     AXP_STOP_FETCH_FAULT;
	}
	if (info.reason != want)
		return "axp_run stop reason";
	if (info.executed != executed)
		return "axp_run executed count";
	if (info.pc != ctx.pc && !(want == AXP_STOP_ARITH && !(policy & AXP_HB_ARITH)))
		return "axp_run info.pc";
	if (memcmp(&ctx, &o->ctx, sizeof(ctx))) {
		unsigned int i;

		for (i = 0; i < 32; i++)
			if (o->mask_rpcc[i])
				ctx.r[i] = o->ctx.r[i];
		if (memcmp(&ctx, &o->ctx, sizeof(ctx)))
			return "axp_run context";
	}
	if (memcmp(sim.win, o->sim.win, DV_WIN_SIZE))
		return "axp_run memory";
	return NULL;
}

static void run_ours(const struct dv_vec *v, unsigned int policy, struct ours *o)
{
	struct axp_observer obs = { .insn = obs_insn, .priv = o };
	struct axp_run_cfg cfg = {
		.mem = &sim_ops,
		.mem_priv = &o->sim,
		.obs = &obs,
		.handback = policy,
		.amask = AMASK_QEMU,
		.implver = IMPLVER_QEMU,
	};

	memset(o, 0, sizeof(*o));
	init_ours(v, &o->ctx, &o->sim);

	while (is_slot(v, o->ctx.pc) && o->steps < 2 * DV_MAX_INSN) {
		struct axp_ctx before = o->ctx;
		uint8_t win_before[DV_WIN_SIZE];
		int rc;

		memcpy(win_before, o->sim.win, DV_WIN_SIZE);
		rc = axp_step(&o->ctx, &cfg, &o->info);
		if (rc == 0) {
			o->steps++;
			continue;
		}
		o->stopped = true;
		o->unchanged = !memcmp(&before, &o->ctx, sizeof(before)) &&
			       !memcmp(win_before, o->sim.win, DV_WIN_SIZE);
		break;
	}

	if (!o->stopped) {
		uint32_t w;

		if (sim_fetch(&o->sim, o->ctx.pc, &w) == 0) {
			o->exp_sig = DV_SIGTRAP;
			o->exp_pc = o->ctx.pc + 4;
		} else {
			o->exp_sig = DV_SIGSEGV;
			o->exp_pc = o->ctx.pc;
		}
		return;
	}
	o->exp_pc = o->ctx.pc;
	switch (o->info.reason) {
	case AXP_STOP_ILLEGAL:
		o->exp_sig = DV_SIGILL;
		o->exp_pc = o->ctx.pc + 4; /* qemu-alpha reports OPCDEC with pc = insn + 4 */
		break;
	case AXP_STOP_FETCH_FAULT:
	case AXP_STOP_LOAD_FAULT:
	case AXP_STOP_STORE_FAULT:
		o->exp_sig = DV_SIGSEGV;
		break;
	case AXP_STOP_UNALIGNED:
		o->exp_sig = (policy & AXP_HB_UNALIGNED) ? 0 : DV_SIGBUS;
		break;
	case AXP_STOP_ARITH:
		o->exp_sig = DV_SIGFPE;
		if (policy & AXP_HB_ARITH)
			o->exp_pc = o->ctx.pc + 4; /* not executed; qemu completes it then traps */
		break;
	default:
		o->exp_sig = 0;
		break;
	}
	if (o->exp_sig == 0)
		o->decline = true;
}

static void run_all(const struct dv_vec *v, unsigned int policy, struct ours *o)
{
	run_ours(v, policy, o);
	if (o->steps < 2 * DV_MAX_INSN)
		o->run_err = cross_check_run(v, policy, o);
}

/* ------------------------------------------------------------------------------------------ */
/* Statistics and reporting. */

struct op_stat {
	uint64_t vectors;
	uint64_t outcome[RK_NR];
	uint64_t declined;
	uint64_t mismatches;
};

struct mclass {
	char key[96];
	uint64_t count;
	uint64_t first_seq;
};

static struct op_stat op_stats[AXP_OP_NR];
static uint32_t qual_seen[AXP_OP_NR]; /* fn11[10:6] combinations seen (IEEE ops) */
static uint8_t dyn_seen[AXP_OP_NR]; /* FPCR[59:58] modes seen with /D */
static uint64_t decline_count[AXP_STOP_NR];
static struct mclass classes[512];
static unsigned int n_classes;
static bool last_compared; /* check_one compared the last record with qemu's state */
static uint64_t n_skip_why[3]; /* dirty page, unmodelled page, runner memory */
static uint64_t n_vec, n_mis, n_decl, n_skip, n_addr_diff, n_tag[DV_TAG_NR];
static unsigned int max_print = 30;
static unsigned int printed;
static const char *seed_text;
static int verbose;

static enum reg_kind kind_of(int sig)
{
	switch (sig) {
	case 0:
		return RK_NONE;
	case DV_SIGTRAP:
		return RK_TRAP;
	case DV_SIGILL:
		return RK_ILL;
	case DV_SIGSEGV:
		return RK_SEGV;
	case DV_SIGBUS:
		return RK_BUS;
	case DV_SIGFPE:
		return RK_FPE;
	default:
		return RK_OTHER;
	}
}

static const char *sig_name(int sig)
{
	switch (sig) {
	case 0:
		return "none";
	case DV_SIGTRAP:
		return "SIGTRAP(landed)";
	case DV_SIGILL:
		return "SIGILL";
	case DV_SIGSEGV:
		return "SIGSEGV";
	case DV_SIGBUS:
		return "SIGBUS";
	case DV_SIGFPE:
		return "SIGFPE";
	default:
		return "other";
	}
}

static void add_class(const char *key, uint64_t seq)
{
	unsigned int i;

	for (i = 0; i < n_classes; i++)
		if (!strcmp(classes[i].key, key)) {
			classes[i].count++;
			return;
		}
	if (n_classes == sizeof(classes) / sizeof(classes[0]))
		return;
	snprintf(classes[n_classes].key, sizeof(classes[0].key), "%s", key);
	classes[n_classes].count = 1;
	classes[n_classes].first_seq = seq;
	n_classes++;
}

static const char *op_name_of(uint32_t word)
{
	struct axp_insn d;

	axp_decode(word, &d);
	return axp_op_info[d.op].name;
}

/* The vector's slot holding pc (0 when pc is not a slot). */
static unsigned int slot_of(const struct dv_vec *v, uint64_t pc)
{
	return is_slot(v, pc) ? (unsigned int)((pc - DV_SLOT) / 4) : 0;
}

/* "op" or "op0+op1+...": a vector's operations, for naming mismatch classes. */
static void seq_name(const struct dv_vec *v, char *buf, size_t size)
{
	unsigned int i;
	size_t n = 0;

	buf[0] = 0;
	for (i = 0; i < v->ninsn && i < DV_MAX_INSN && n < size; i++)
		n += (size_t)snprintf(buf + n, size - n, "%s%s", i ? "+" : "",
				      op_name_of(v->insn[i]));
}

static void print_insns(const struct dv_vec *v)
{
	unsigned int i;
	char text[96];

	for (i = 0; i < v->ninsn; i++) {
		dg_format(v->insn[i], DV_SLOT + 4 * i, text, sizeof(text));
		printf("  insn %#llx: %08x  %s\n", (unsigned long long)(DV_SLOT + 4 * i),
		       v->insn[i], text);
	}
}

/* Registers an instruction word names (for printing inputs). */
static void mark_operands(uint32_t w, bool *ir, bool *fr)
{
	struct axp_insn d;
	const struct axp_op_info *in;

	axp_decode(w, &d);
	in = axp_info(&d);
	if (d.op == AXP_OP_INVALID) {
		ir[d.ra] = ir[d.rb] = ir[d.rc] = true;
		return;
	}
	if (in->fmt == AXP_FMT_FPO || in->fmt == AXP_FMT_ITF || in->fmt == AXP_FMT_FTI ||
	    (in->flags & (AXP_F_FA | AXP_F_FB | AXP_F_FC))) {
		((in->flags & AXP_F_FA) ? fr : ir)[d.ra] = true;
		((in->flags & AXP_F_FB) ? fr : ir)[d.rb] = true;
		((in->flags & AXP_F_FC) ? fr : ir)[d.rc] = true;
		if (in->fmt == AXP_FMT_MEM)
			ir[d.rb] = true;
		return;
	}
	ir[d.ra] = true;
	if (in->fmt != AXP_FMT_BRA)
		ir[d.rb] = true;
	if (in->fmt == AXP_FMT_OPR)
		ir[d.rc] = true;
}

static void print_mismatch(const struct dv_res *q, const struct ours *o, const char *what,
			   const uint8_t *diff_r, const uint8_t *diff_f, bool diff_fpcr,
			   bool diff_mem)
{
	const struct dv_vec *v = &q->vec;
	bool ir[32] = { 0 }, fr[32] = { 0 };
	unsigned int i;

	printf("MISMATCH seq=%llu (%s)\n", (unsigned long long)v->seq, what);
	print_insns(v);
	for (i = 0; i < v->ninsn; i++)
		mark_operands(v->insn[i], ir, fr);
	printf("  in:   fpcr=%016llx", (unsigned long long)v->fpcr);
	for (i = 0; i < 31; i++)
		if (ir[i])
			printf(" r%u=%016llx", i, (unsigned long long)v->r[i]);
	for (i = 0; i < 31; i++)
		if (fr[i])
			printf(" f%u=%016llx", i, (unsigned long long)v->f[i]);
	printf("\n");
	printf("  qemu: %s pc=%#llx addr=%#llx fpcr=%016llx\n", sig_name(q->signo),
	       (unsigned long long)q->pc, (unsigned long long)q->addr, (unsigned long long)q->fpcr);
	if (o->stopped)
		printf("  ours: stop %s at pc=%#llx addr=%#llx exc_sum=%#llx%s (expects %s pc=%#llx) "
		       "fpcr=%016llx\n",
		       axp_stop_name[o->info.reason], (unsigned long long)o->info.pc,
		       (unsigned long long)o->info.addr, (unsigned long long)o->info.exc_sum,
		       o->unchanged ? ", context unchanged" : ", context CHANGED",
		       sig_name(o->exp_sig), (unsigned long long)o->exp_pc,
		       (unsigned long long)o->ctx.fpcr);
	else
		printf("  ours: completed %u insn, pc=%#llx (expects %s pc=%#llx) fpcr=%016llx\n",
		       o->steps, (unsigned long long)o->ctx.pc, sig_name(o->exp_sig),
		       (unsigned long long)o->exp_pc, (unsigned long long)o->ctx.fpcr);
	for (i = 0; i < 31; i++)
		if (diff_r[i])
			printf("  r%-2u in=%016llx qemu=%016llx ours=%016llx\n", i,
			       (unsigned long long)v->r[i], (unsigned long long)q->r[i],
			       (unsigned long long)o->ctx.r[i]);
	for (i = 0; i < 31; i++)
		if (diff_f[i])
			printf("  f%-2u in=%016llx qemu=%016llx ours=%016llx\n", i,
			       (unsigned long long)v->f[i], (unsigned long long)q->f[i],
			       (unsigned long long)o->ctx.f[i]);
	if (diff_fpcr)
		printf("  fpcr in=%016llx qemu=%016llx ours=%016llx\n", (unsigned long long)v->fpcr,
		       (unsigned long long)q->fpcr, (unsigned long long)o->ctx.fpcr);
	if (diff_mem) {
		for (i = 0; i < DV_WIN_SIZE; i += 8) {
			uint64_t a, b, c;

			memcpy(&a, v->mem + i, 8);
			memcpy(&b, q->mem + i, 8);
			memcpy(&c, o->sim.win + i, 8);
			if (b != c)
				printf("  mem[%#llx] in=%016llx qemu=%016llx ours=%016llx\n",
				       (unsigned long long)(DV_WIN + i), (unsigned long long)a,
				       (unsigned long long)b, (unsigned long long)c);
		}
	}
	printf("  replay: vecgen --seed %s --first %llu -n 1 | qemu-alpha -L /usr/alpha-linux-gnu "
	       "build/alpha/runner | diffcheck\n",
	       seed_text ? seed_text : "S", (unsigned long long)v->seq);
}

/*
 * qemu-alpha's si_addr differs from the access address in two known ways: 0 for an address
 * outside the guest address space, and the second page's first byte for an access that
 * straddles into a page it may not touch. Neither is a difference in the instruction's effect.
 */
static bool addr_explained(uint64_t qemu, uint64_t ours)
{
	if (qemu == 0 && ours >= DV_PAGE)
		return true;
	return (qemu & (DV_PAGE - 1)) == 0 && ours < qemu && qemu - ours < 8;
}

/* IEEE operations whose qualifiers (fn11[10:6]) select behaviour; CVTST has only its two. */
static bool has_quals(unsigned int op)
{
	return (axp_op_info[op].opcode == 0x16 && op != AXP_OP_CVTST) || op == AXP_OP_SQRTS ||
	       op == AXP_OP_SQRTT;
}

/* Every qualifier combination (CVTTS: all but CVTST's two) and /D with every FPCR mode. */
static bool quals_complete(unsigned int op)
{
	uint32_t want = op == AXP_OP_CVTTS ? ~((1u << 0xa) | (1u << 0x1a)) : ~0u;

	return (qual_seen[op] & want) == want && dyn_seen[op] == 0xf;
}

/*
 * A handback must name a reason that fits the instruction handed back: LL/SC for LDx_L/STx_C,
 * unaligned for a memory access at a misaligned address, FP for an FP instruction, VAX for VAX.
 */
static bool decline_plausible(const struct dv_vec *v, const struct ours *o)
{
	struct axp_insn d;
	const struct axp_op_info *in;
	unsigned int size;

	axp_decode(v->insn[slot_of(v, o->ctx.pc)], &d);
	in = axp_info(&d);
	size = axp_mem_size(in->flags);
	switch (o->info.reason) {
	case AXP_STOP_LLSC:
		return in->flags & AXP_F_LOCK;
	case AXP_STOP_UNALIGNED:
		return size > 1 && (o->info.addr & (size - 1)) != 0;
	case AXP_STOP_FP_HANDBACK:
		return in->fmt == AXP_FMT_FPO || in->fmt == AXP_FMT_ITF || in->fmt == AXP_FMT_FTI ||
		       (in->flags & (AXP_F_FA | AXP_F_FB | AXP_F_FC));
	case AXP_STOP_VAX_FP:
		return in->flags & AXP_F_VAX;
	default:
		return true;
	}
}

/* Compare one record; returns true on a mismatch. */
static bool check_one(const struct dv_res *q, unsigned int policy)
{
	const struct dv_vec *v = &q->vec;
	static struct ours o;
	uint8_t diff_r[32] = { 0 }, diff_f[32] = { 0 };
	bool diff_fpcr = false, diff_mem = false, bad = false;
	char what[160] = "", key[96];
	struct axp_insn d0;
	unsigned int i, op;

	axp_decode(v->insn[0], &d0);
	op = d0.op;
	n_vec++;
	if (v->tag < DV_TAG_NR)
		n_tag[v->tag]++;
	op_stats[op].vectors++;
	if (has_quals(op)) {
		qual_seen[op] |= 1u << ((d0.fn11 >> 6) & 31);
		if ((d0.fn11 & AXP_FN11_RM_MASK) == AXP_FN11_RM_D)
			dyn_seen[op] |= (uint8_t)(1u << ((v->fpcr >> 58) & 3));
	}
	op_stats[op].outcome[kind_of(q->signo)]++;

	run_all(v, policy, &o);
	last_compared = false;
	if (q->dirty || o.sim.touched_unmodelled || o.sim.touched_host) {
		n_skip++;
		n_skip_why[q->dirty ? 0 : o.sim.touched_unmodelled ? 1 : 2]++;
		return false;
	}
	last_compared = !o.decline;

	if (o.decline) {
		if (!o.unchanged) {
			snprintf(what, sizeof(what), "declined %s but changed the context",
				 axp_stop_name[o.info.reason]);
			snprintf(key, sizeof(key), "%s: decline changed context",
				 op_name_of(v->insn[slot_of(v, o.ctx.pc)]));
			bad = true;
		} else if (policy == AXP_POLICY_FULL && o.info.reason != AXP_STOP_VAX_FP) {
			snprintf(what, sizeof(what), "declined %s under the full policy",
				 axp_stop_name[o.info.reason]);
			snprintf(key, sizeof(key), "%s: declined %s",
				 op_name_of(v->insn[slot_of(v, o.ctx.pc)]),
				 axp_stop_name[o.info.reason]);
			bad = true;
		} else if (!decline_plausible(v, &o)) {
			snprintf(what, sizeof(what),
				 "declined %s, which does not fit the instruction",
				 axp_stop_name[o.info.reason]);
			snprintf(key, sizeof(key), "%s: implausible decline %s",
				 op_name_of(v->insn[slot_of(v, o.ctx.pc)]),
				 axp_stop_name[o.info.reason]);
			bad = true;
		} else if (!o.obs_err && !o.run_err) {
			decline_count[o.info.reason]++;
			op_stats[op].declined++;
			n_decl++;
			return false;
		}
	} else {
		bool cmp_state = true;

		if (o.stopped && !o.unchanged &&
		    !(o.info.reason == AXP_STOP_ARITH && !(policy & AXP_HB_ARITH))) {
			snprintf(what, sizeof(what), "stop %s changed the context; ",
				 axp_stop_name[o.info.reason]);
			bad = true;
		}
		if (q->signo != o.exp_sig) {
			snprintf(what + strlen(what), sizeof(what) - strlen(what),
				 "qemu %s, ours expects %s", sig_name(q->signo),
				 sig_name(o.exp_sig));
			bad = true;
			cmp_state = false;
		} else if (q->pc != o.exp_pc) {
			snprintf(what + strlen(what), sizeof(what) - strlen(what),
				 "next pc: qemu %#llx, ours %#llx", (unsigned long long)q->pc,
				 (unsigned long long)o.exp_pc);
			bad = true;
		}
		/* Under the interrupt policy an arithmetic trap is not executed: only the kind
		 * of outcome can be compared. */
		if (o.stopped && o.info.reason == AXP_STOP_ARITH && (policy & AXP_HB_ARITH))
			cmp_state = false;
		if (cmp_state) {
			bool any = false;

			for (i = 0; i < 31; i++) {
				if (q->r[i] != o.ctx.r[i] && !o.mask_rpcc[i])
					diff_r[i] = any = true;
				if (q->f[i] != o.ctx.f[i])
					diff_f[i] = any = true;
			}
			diff_fpcr = q->fpcr != o.ctx.fpcr;
			diff_mem = memcmp(q->mem, o.sim.win, DV_WIN_SIZE) != 0;
			if (any || diff_fpcr || diff_mem) {
				size_t n = strlen(what);

				snprintf(what + n, sizeof(what) - n, "%sstate differs:%s%s%s%s",
					 bad ? "; " : "", any ? " registers" : "",
					 diff_fpcr ? " fpcr" : "", diff_mem ? " memory" : "",
					 o.stopped ? "" : "");
				bad = true;
			}
			if (!bad && (q->signo == DV_SIGSEGV || q->signo == DV_SIGBUS) &&
			    o.stopped && q->addr != o.info.addr &&
			    !addr_explained(q->addr, o.info.addr)) {
				n_addr_diff++;
				if (verbose && n_addr_diff <= 10)
					printf("note: seq=%llu fault address qemu %#llx ours %#llx\n",
					       (unsigned long long)v->seq,
					       (unsigned long long)q->addr,
					       (unsigned long long)o.info.addr);
			}
		}
		if (bad) {
			const char *where;
			char name[48];

			where = q->signo != o.exp_sig ? "outcome" :
				q->pc != o.exp_pc     ? "pc" :
				diff_fpcr && !memchr(diff_r, 1, 32) && !memchr(diff_f, 1, 32) ?
						    "fpcr" :
				diff_mem ? "memory" :
					   "registers";
			seq_name(v, name, sizeof(name));
			if (q->signo != o.exp_sig)
				snprintf(key, sizeof(key), "%s: qemu %s / ours %s", name,
					 rk_name[kind_of(q->signo)],
					 o.stopped ? axp_stop_name[o.info.reason] : "completed");
			else
				snprintf(key, sizeof(key), "%s: %s", name, where);
		}
	}
	if (!bad && (o.obs_err || o.run_err)) {
		char name[48];

		snprintf(what, sizeof(what), "%s", o.obs_err ? o.obs_err : o.run_err);
		seq_name(v, name, sizeof(name));
		snprintf(key, sizeof(key), "%s: %s", name, o.obs_err ? o.obs_err : o.run_err);
		bad = true;
	}
	if (!bad)
		return false;
	n_mis++;
	op_stats[op].mismatches++;
	add_class(key, v->seq);
	if (printed < max_print) {
		printed++;
		print_mismatch(q, &o, what, diff_r, diff_f, diff_fpcr, diff_mem);
	}
	return true;
}

/*
 * Self-test of the comparison (--inject N): put one deliberate difference into qemu's result of
 * every N-th record (a register bit, an FP register bit, an FPCR bit, a data byte, or the next
 * pc, in turn) and count whether check_one() notices it.
 */
static uint64_t n_injected, n_caught, n_false;

static void check_injected(const struct dv_res *q, unsigned int policy, unsigned int every)
{
	static struct dv_res m;
	unsigned int k, kind, i;
	bool rpcc = false, bad;

	if (!every || n_vec % every != every - 1) {
		if (check_one(q, policy))
			n_false++;
		return;
	}
	m = *q;
	k = (unsigned int)(n_vec / every);
	for (i = 0; i < m.vec.ninsn; i++)
		rpcc |= !strcmp(op_name_of(m.vec.insn[i]), "rpcc");
	kind = k % 5;
	if (kind == 0 && rpcc)
		kind = 1;
	switch (kind) {
	case 0:
		m.r[k % 31] ^= 1ull << (k % 64);
		break;
	case 1:
		m.f[k % 31] ^= 1ull << (k % 64);
		break;
	case 2:
		m.fpcr ^= 1ull << (32 + k % 32);
		break;
	case 3:
		m.mem[k % DV_WIN_SIZE] ^= (uint8_t)(1u << (k % 8));
		break;
	default:
		m.pc += 4;
		break;
	}
	bad = check_one(&m, policy);
	if (last_compared) {
		n_injected++;
		n_caught += bad;
	} else if (bad) {
		n_false++;
	}
}

static int cmp_class(const void *a, const void *b)
{
	const struct mclass *x = a, *y = b;

	return x->count < y->count ? 1 : x->count > y->count ? -1 : strcmp(x->key, y->key);
}

static void print_per_op(void)
{
	unsigned int op, k;

	printf("%-12s %7s %6s %6s %6s %6s %6s %6s %6s\n", "op", "vectors", "trap", "ill", "segv",
	       "bus", "fpe", "decl", "MISM");
	for (op = 0; op < AXP_OP_NR; op++) {
		const struct op_stat *s = &op_stats[op];

		if (!s->vectors)
			continue;
		printf("%-12s %7llu", axp_op_info[op].name, (unsigned long long)s->vectors);
		for (k = RK_TRAP; k <= RK_FPE; k++)
			printf(" %6llu", (unsigned long long)s->outcome[k]);
		printf(" %6llu %6llu\n", (unsigned long long)s->declined,
		       (unsigned long long)s->mismatches);
	}
}

static void usage(FILE *f)
{
	fprintf(f, "usage: diffcheck [--policy full|interrupt] [--seed S] [--expect N] "
		   "[--require-all-ops] [--max-print N] [--per-op] [--inject N] [-v] < results\n"
		   "Compares qemu-alpha results (tests/diff/runner) with axp_step().\n");
}

int main(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "policy", required_argument, NULL, 'p' },
		{ "seed", required_argument, NULL, 's' },
		{ "expect", required_argument, NULL, 'e' },
		{ "require-all-ops", no_argument, NULL, 'a' },
		{ "max-print", required_argument, NULL, 'm' },
		{ "per-op", no_argument, NULL, 'o' },
		{ "inject", required_argument, NULL, 'i' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	static struct dv_res res;
	unsigned int policy = AXP_POLICY_FULL, op, missing = 0, i, inject = 0;
	bool require_all = false, per_op = false;
	long long expect = -1;
	int c, rc = 0;

	while ((c = getopt_long(argc, argv, "vh", lo, NULL)) != -1) {
		switch (c) {
		case 'p':
			if (!strcmp(optarg, "full"))
				policy = AXP_POLICY_FULL;
			else if (!strcmp(optarg, "interrupt"))
				policy = AXP_POLICY_INTERRUPT;
			else {
				usage(stderr);
				return 2;
			}
			break;
		case 's':
			seed_text = optarg;
			break;
		case 'e':
			expect = strtoll(optarg, NULL, 0);
			break;
		case 'a':
			require_all = true;
			break;
		case 'm':
			max_print = (unsigned int)strtoul(optarg, NULL, 0);
			break;
		case 'o':
			per_op = true;
			break;
		case 'i':
			inject = (unsigned int)strtoul(optarg, NULL, 0);
			break;
		case 'v':
			verbose = 1;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind != argc) {
		usage(stderr);
		return 2;
	}

	for (;;) {
		size_t n = fread(&res, 1, sizeof(res), stdin);

		if (n == 0)
			break;
		if (n != sizeof(res) || res.magic != DV_RES_MAGIC ||
		    res.vec.magic != DV_VEC_MAGIC || res.vec.ninsn < 1 ||
		    res.vec.ninsn > DV_MAX_INSN) {
			fprintf(stderr, "diffcheck: malformed result record after %llu records\n",
				(unsigned long long)n_vec);
			return 1;
		}
		check_injected(&res, policy, inject);
	}
	if (ferror(stdin)) {
		fprintf(stderr, "diffcheck: read error: %s\n", strerror(errno));
		return 1;
	}

	if (per_op || verbose || (n_mis && !inject))
		print_per_op();
	if (n_classes && !inject) {
		qsort(classes, n_classes, sizeof(classes[0]), cmp_class);
		printf("mismatch classes (count, first seq):\n");
		for (i = 0; i < n_classes; i++)
			printf("  %6llu  %-60s seq=%llu\n", (unsigned long long)classes[i].count,
			       classes[i].key, (unsigned long long)classes[i].first_seq);
	}
	{
		unsigned int nq = 0, full = 0;

		for (op = 0; op < AXP_OP_INVALID; op++) {
			if (!has_quals(op))
				continue;
			nq++;
			if (quals_complete(op))
				full++;
			else if (require_all)
				printf("coverage: %s saw qualifiers %08x, /D with FPCR modes %x\n",
				       axp_op_info[op].name, qual_seen[op], dyn_seen[op]);
		}
		if (require_all || verbose)
			printf("qualifiers: %u of %u IEEE ops saw every qualifier combination and "
			       "/D with all 4 FPCR rounding modes\n",
			       full, nq);
		if (require_all && full != nq)
			missing++;
	}
	if (require_all) {
		for (op = 0; op < AXP_OP_INVALID; op++)
			if (dg_op_is_tested(op) && !op_stats[op].vectors) {
				printf("coverage: no vector for %s\n", axp_op_info[op].name);
				missing++;
			}
		if (missing)
			rc = 1;
	}
	if (expect >= 0 && (uint64_t)expect != n_vec) {
		printf("diffcheck: expected %lld records, got %llu (did the runner die?)\n", expect,
		       (unsigned long long)n_vec);
		rc = 1;
	}
	printf("diff: %llu vectors, %llu mismatches, %llu declined (", (unsigned long long)n_vec,
	       (unsigned long long)n_mis, (unsigned long long)n_decl);
	{
		const char *sep = "";

		for (i = 0; i < AXP_STOP_NR; i++)
			if (decline_count[i]) {
				printf("%s%s %llu", sep, axp_stop_name[i],
				       (unsigned long long)decline_count[i]);
				sep = ", ";
			}
		if (!*sep)
			printf("none");
	}
	printf("), %llu skipped (%llu+%llu+%llu); %llu op / %llu pair / %llu random / %llu badfn; policy %s; "
	       "%llu fault-address differences\n",
	       (unsigned long long)n_skip, (unsigned long long)n_skip_why[0],
	       (unsigned long long)n_skip_why[1], (unsigned long long)n_skip_why[2],
	       (unsigned long long)n_tag[DV_TAG_OP], (unsigned long long)n_tag[DV_TAG_PAIR],
	       (unsigned long long)n_tag[DV_TAG_RANDOM], (unsigned long long)n_tag[DV_TAG_BADFN],
	       policy == AXP_POLICY_FULL ? "full" : "interrupt", (unsigned long long)n_addr_diff);
	if (inject) {
		printf("self-test: %llu differences injected, %llu detected, %llu other mismatches\n",
		       (unsigned long long)n_injected, (unsigned long long)n_caught,
		       (unsigned long long)n_false);
		if (n_caught != n_injected || n_false || !n_injected)
			rc = 1;
	} else if (n_mis) {
		rc = 1;
	}
	if (fflush(stdout) || ferror(stdout))
		rc = 1;
	return rc;
}
