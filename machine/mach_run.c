/* machine/mach_run.c - the hosted machine's run loop: executor, CALL_PAL, faults, signals, exit. */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <unistd.h>

#include "isa_dis.h"
#include "mach_coh.h"
#include "mach_int.h"
#include "mach_kern.h"
#include "vs_core.h"

/*
 * The program runs under axp_run() with the full policy (the executor completes every
 * instruction it can, including unaligned ordinary loads/stores as Linux's fixup would) in
 * chunks of CHUNK instructions, so signals from the host are noticed. Whenever the executor
 * stops, the machine does what the Alpha PALcode and Linux would:
 *
 *   CALL_PAL callsys 0x83  system call (mach_sys.c)      bpt 0x80    SIGTRAP TRAP_BRKPT
 *            rduniq 0x9e   v0 = unique                   bugchk 0x81 SIGTRAP
 *            wruniq 0x9f   unique = a0                   gentrap 0xaa SIGFPE/SIGTRAP by a0
 *            imb 0x86      instruction-stream barrier     other       SIGILL ILL_ILLOPC
 *   fetch/load/store fault  SIGSEGV (SEGV_MAPERR unmapped, SEGV_ACCERR protection); SIGBUS
 *                           BUS_ADRERR on a file page wholly past the end of the file
 *   unaligned LDx_L/STx_C   SIGBUS BUS_ADRALN
 *   illegal instruction     SIGILL ILL_ILLOPC
 *   arithmetic trap         SIGFPE FPE_FLTINV (traps.c do_entArith), after the instruction
 *
 * Every CALL_PAL passes through PALcode's rei, which clears the lock flag (as qemu does).
 * CALL_PAL completes: pc is past it when the handler (or the signal) runs, as on Linux, and
 * counts as an executed instruction.
 *
 * Timing mode (--cpu ev5, or another CPU model: mach_cpu.h) runs with an observer: each
 * completed instruction (CALL_PALs included, with a synthesised event) is retired into the
 * model through its ops table; when a PMU interrupt is due the observer stops the run after
 * that instruction, and the interrupt goes to m->hooks.pmu_irq (the sampler) or to the
 * built-in handler, which counts samples per PC and re-arms the CYCLES counter.
 */

#define CHUNK (1ull << 22)

#define PAL_BPT 0x80
#define PAL_BUGCHK 0x81
#define PAL_CALLSYS 0x83
#define PAL_IMB 0x86
#define PAL_RDUNIQ 0x9e
#define PAL_WRUNIQ 0x9f
#define PAL_GENTRAP 0xaa

/* asm/gentrap.h */
#define GEN_INTOVF (-1)
#define GEN_INTDIV (-2)
#define GEN_FLTOVF (-3)
#define GEN_FLTDIV (-4)
#define GEN_FLTUND (-5)
#define GEN_FLTINV (-6)
#define GEN_FLTINE (-7)
#define GEN_ROPRAND (-11)

static void samples_free(struct mach_samples *s);

/* The CPU model of opts->cpu ("none" or NULL: none), one instance per virtual CPU. */
static int cpu_create(struct mach *m)
{
	struct mach_cpu_cfg cfg = { .truth = m->opts.truth, .kernel_time = true };
	const char *name = m->opts.cpu;
	int ret;

	m->ncpus = m->opts.cpus ? m->opts.cpus : 1;
	if (m->ncpus > MACH_MAX_CPUS)
		return -EINVAL;
	if (!name || !strcmp(name, "none"))
		return 0;
	m->cpu = mach_cpu_find(name);
	if (!m->cpu)
		return -EINVAL;
	if (m->ncpus > 1) { /* the CPUs' caches kept coherent (mach_coh.h) */
		ret = mach_coh_new(&m->coh, m->ncpus, m->opts.coh_c2c, m->opts.coh_inval,
				   m->opts.truth);
		if (ret)
			return ret;
		cfg.coh = m->coh;
	}
	for (unsigned int c = 0; c < m->ncpus; c++) {
		cfg.cpu = c;
		ret = m->cpu->create(&m->models[c], &cfg);
		if (ret)
			return ret;
	}
	m->model = m->models[0];
	return 0;
}

int mach_new(struct mach **out, const struct mach_opts *opts)
{
	struct mach *m = calloc(1, sizeof(*m));
	const char *root;
	int ret;

	*out = NULL;
	if (!m)
		return -ENOMEM;
	m->vpid_fd = -1;
	ret = mach_mem_new(&m->mem);
	if (ret) {
		free(m);
		return ret;
	}
	if (opts)
		m->opts = *opts;
	root = m->opts.sysroot ? m->opts.sysroot : "/usr/alpha-linux-gnu";
	snprintf(m->sysroot, sizeof(m->sysroot), "%s", root);
	while (strlen(m->sysroot) > 1 && m->sysroot[strlen(m->sysroot) - 1] == '/')
		m->sysroot[strlen(m->sysroot) - 1] = 0;
	if (!strcmp(m->sysroot, "/"))
		m->sysroot[0] = 0;
	if (m->opts.confine) {
		ret = mach_confine_init(m, m->opts.confine);
		if (ret) {
			mach_free(m);
			return ret;
		}
	}
	m->prog = m->opts.prog ? m->opts.prog : "program";
	m->err = stderr;
	ret = mach_vpid_init(m, m->opts.pid_table_fd);
	if (ret) {
		mach_free(m);
		return ret;
	}
	m->tid = m->pid;
	m->cfg.mem = &mach_mem_ops;
	m->cfg.mem_priv = m->mem;
	m->cfg.obs = NULL;
	m->cfg.handback = AXP_POLICY_FULL;
	/* The ISA the program sees is qemu-alpha's default CPU, an EV67 (IMPLVER 2; AMASK BWX
	 * FIX CIX MVI, precise traps, prefetch-modify), in both modes: the same program path
	 * runs functionally and timed; the timing model is an EV5's. */
	m->cfg.implver = AXP_IMPLVER_EV6;
	m->cfg.amask = AXP_AMASK_EV67;
	m->ctx.lock_addr = AXP_NO_LOCK;
	ret = cpu_create(m);
	if (ret) {
		mach_free(m);
		return ret;
	}
	*out = m;
	return 0;
}

void mach_free(struct mach *m)
{
	if (!m)
		return;
	for (unsigned int c = 0; c < MACH_MAX_CPUS; c++)
		if (m->models[c])
			m->cpu->free(m->models[c]);
	mach_coh_free(m->coh);
	samples_free(m->samples);
	mach_files_free(m->files);
	mach_threads_free(m->thr);
	mach_mem_free(m->mem);
	mach_vpid_exit(m);
	free(m);
}

/* ---------------------------------------------------------------------------------------- */

static void fault(struct mach *m, int sig, int code, uint64_t pc, uint64_t addr, const char *cause)
{
	struct mach_siginfo si = { .signo = sig, .code = code, .addr = addr, .fault = true };
	uint32_t w = 0;

	if (sig == MACH_SIGSEGV || sig == MACH_SIGBUS) {
		si.trap_a0 = addr;
		si.trap_a1 =
			sig == MACH_SIGSEGV && code == MACH_SEGV_ACCERR; /* MMCSR: ACV or TNV */
	}
	m->fault_pc = pc;
	mach_mem_read(m->mem, pc, &w, 4);
	m->fault_word = w;
	snprintf(m->fault_cause, sizeof(m->fault_cause), "%s", cause);
	mach_signal_raise(m, &si);
}

/* A fetch, load or store (needing `need`) that failed: SIGBUS BUS_ADRERR for a page past the
 * end of its file that allows the access (do_page_fault's VM_FAULT_SIGBUS), else SIGSEGV. */
static void memory_fault(struct mach *m, const struct axp_stop_info *info, const char *what,
			 unsigned int need)
{
	unsigned int pg = mach_mem_page(m->mem, info->addr);
	int code = (pg & MACH_PG_MAPPED) ? MACH_SEGV_ACCERR : MACH_SEGV_MAPERR;
	char cause[96];

	if ((pg & MACH_PG_EOF) && (mach_mem_prot(m->mem, info->addr) & need) == need) {
		snprintf(cause, sizeof(cause),
			 "%s at address 0x%" PRIx64 " (past the end of the file)", what,
			 info->addr);
		fault(m, MACH_SIGBUS, MACH_BUS_ADRERR, info->pc, info->addr, cause);
		return;
	}
	snprintf(cause, sizeof(cause), "%s at address 0x%" PRIx64 " (%s)", what, info->addr,
		 code == MACH_SEGV_ACCERR ? "permission" : "not mapped");
	fault(m, MACH_SIGSEGV, code, info->pc, info->addr, cause);
}

static void gentrap(struct mach *m)
{
	int64_t a0 = (int64_t)m->ctx.r[16];
	int sig = MACH_SIGFPE, code;

	/* arch/alpha/kernel/traps.c do_entIF, case 2 (gentrap). */
	switch (a0) {
	case GEN_INTOVF:
		code = MACH_FPE_INTOVF;
		break;
	case GEN_INTDIV:
		code = MACH_FPE_INTDIV;
		break;
	case GEN_FLTOVF:
		code = MACH_FPE_FLTOVF;
		break;
	case GEN_FLTDIV:
		code = MACH_FPE_FLTDIV;
		break;
	case GEN_FLTUND:
		code = MACH_FPE_FLTUND;
		break;
	case GEN_FLTINV:
		code = MACH_FPE_FLTINV;
		break;
	case GEN_FLTINE:
		code = MACH_FPE_FLTRES;
		break;
	case GEN_ROPRAND:
		code = MACH_FPE_FLTUNK;
		break;
	default:
		sig = MACH_SIGTRAP;
		code = MACH_TRAP_UNK;
		break;
	}
	fault(m, sig, code, m->ctx.pc - 4, m->ctx.pc, "gentrap");
	m->siginfo[sig].trapno = (int32_t)a0;
}

static void call_pal(struct mach *m)
{
	uint32_t fn = 0;

	mach_mem_read(m->mem, m->ctx.pc, &fn, 4);
	fn &= 0x3ffffff;
	m->ctx.pc += 4;
	m->ctx.lock_addr = AXP_NO_LOCK;
	switch (fn) {
	case PAL_CALLSYS:
		mach_syscall(m);
		break;
	case PAL_RDUNIQ:
		m->ctx.r[0] = m->ctx.unique;
		break;
	case PAL_WRUNIQ:
		m->ctx.unique = m->ctx.r[16];
		break;
	case PAL_IMB:
		mach_mem_code_changed(m->mem, 0, MACH_TASK_SIZE);
		break;
	case PAL_BPT:
		fault(m, MACH_SIGTRAP, MACH_TRAP_BRKPT, m->ctx.pc - 4, m->ctx.pc,
		      "breakpoint (bpt)");
		break;
	case PAL_BUGCHK:
		fault(m, MACH_SIGTRAP, 0, m->ctx.pc - 4, m->ctx.pc, "bugchk");
		break;
	case PAL_GENTRAP:
		gentrap(m);
		break;
	default:
		/* Privileged or unknown PALcode function: OPCDEC at the CALL_PAL. */
		m->ctx.pc -= 4;
		fault(m, MACH_SIGILL, MACH_ILL_ILLOPC, m->ctx.pc, m->ctx.pc,
		      "privileged or unknown CALL_PAL function");
		break;
	}
}

/* Act on why the executor stopped. */
static void handle_stop(struct mach *m, const struct axp_stop_info *info)
{
	switch (info->reason) {
	case AXP_STOP_BUDGET:
		break;
	case AXP_STOP_CALL_PAL:
		call_pal(m);
		break;
	case AXP_STOP_FETCH_FAULT:
		memory_fault(m, info, "instruction fetch", MACH_PROT_X);
		break;
	case AXP_STOP_LOAD_FAULT:
		memory_fault(m, info, "load", MACH_PROT_R);
		break;
	case AXP_STOP_STORE_FAULT:
		memory_fault(m, info, "store", MACH_PROT_W);
		break;
	case AXP_STOP_UNALIGNED:
		fault(m, MACH_SIGBUS, MACH_BUS_ADRALN, info->pc, info->addr,
		      "unaligned load-locked/store-conditional");
		break;
	case AXP_STOP_ARITH:
		/* The instruction completed (full policy); sc_pc and si_addr are the next pc. */
		fault(m, MACH_SIGFPE, MACH_FPE_FLTINV, info->pc, m->ctx.pc, "arithmetic trap");
		break;
	case AXP_STOP_ILLEGAL:
	case AXP_STOP_VAX_FP:
	case AXP_STOP_UNSUPPORTED:
	case AXP_STOP_LLSC:
	case AXP_STOP_FP_HANDBACK:
	default:
		fault(m, MACH_SIGILL, MACH_ILL_ILLOPC, info->pc, info->pc,
		      info->reason == AXP_STOP_ILLEGAL ? "illegal instruction" :
		      info->reason < AXP_STOP_NR       ? axp_stop_name[info->reason] :
							 "unknown stop");
		break;
	}
}

static void print_death(struct mach *m)
{
	int sig = m->exit_signal;
	const struct mach_siginfo *si = &m->siginfo[sig];
	char text[ISA_DIS_TEXT_MAX];

	if (si->fault) {
		if (isa_dis_format(m->fault_word, m->fault_pc, NULL, text, sizeof(text)) < 0)
			snprintf(text, sizeof(text), ".long 0x%08x", m->fault_word);
		for (char *t = text; *t; t++)
			if (*t == '\t')
				*t = ' ';
		fprintf(m->err, "axprof run: %s: %s at pc 0x%" PRIx64 ": %s: %s\n", m->prog,
			mach_signame(sig), m->fault_pc, text, m->fault_cause);
	}
	/* Other signals kill silently, as under qemu-alpha (the shell reports them). */
}

/* ---------------------------------------------------------------------------------------- */
/* Built-in PMU handler: samples per PC (open addressing). */

/* Cycles between CYCLES samples: uniform in [LO, HI], re-drawn at each interrupt as DCPI does
 * (seeds/dcpi-sosp97-sec4-data-collection.txt §4.1: "the default sampling period is distributed
 * uniformly between 60K and 64K"), so samples do not alias with loops. */
#define SAMPLE_PERIOD_LO 60000
#define SAMPLE_PERIOD_HI 64000

struct mach_samples {
	uint64_t *pc, *count;
	size_t cap, used;
	uint64_t total;
	struct vs_prng rng; /* period randomisation (the sampler core's generator) */
};

static struct mach_samples *samples_get(struct mach *m)
{
	if (!m->samples) {
		m->samples = calloc(1, sizeof(*m->samples));
		if (m->samples)
			vs_prng_seed(&m->samples->rng, 1);
	}
	return m->samples;
}

static uint64_t sample_period(struct mach *m)
{
	struct mach_samples *s = samples_get(m);

	if (!s)
		return (SAMPLE_PERIOD_LO + SAMPLE_PERIOD_HI) / 2;
	return vs_period_next(&s->rng, SAMPLE_PERIOD_LO, SAMPLE_PERIOD_HI);
}

static void samples_add(struct mach_samples *s, uint64_t pc)
{
	size_t i;

	if (s->used * 2 >= s->cap) {
		size_t ncap = s->cap ? 2 * s->cap : 1024;
		uint64_t *npc = calloc(ncap, sizeof(*npc)), *ncount = calloc(ncap, sizeof(*ncount));

		if (!npc || !ncount) {
			free(npc);
			free(ncount);
			return;
		}
		for (size_t j = 0; j < s->cap; j++) {
			if (!s->count[j])
				continue;
			for (i = (s->pc[j] >> 2) & (ncap - 1); ncount[i]; i = (i + 1) & (ncap - 1))
				;
			npc[i] = s->pc[j];
			ncount[i] = s->count[j];
		}
		free(s->pc);
		free(s->count);
		s->pc = npc;
		s->count = ncount;
		s->cap = ncap;
	}
	for (i = (pc >> 2) & (s->cap - 1); s->count[i] && s->pc[i] != pc;
	     i = (i + 1) & (s->cap - 1))
		;
	if (!s->count[i]) {
		s->pc[i] = pc;
		s->used++;
	}
	s->count[i]++;
	s->total++;
}

static void builtin_pmu_irq(void *priv, struct axp_ctx *ctx, const struct mach_irq *irq)
{
	struct mach *m = priv;

	(void)ctx;
	if (samples_get(m))
		samples_add(m->samples, irq->pc);
	m->cpu->pmu_arm(m->model, irq->event, sample_period(m));
}

int mach_samples_write(struct mach *m, const char *path)
{
	const struct mach_samples *s = m->samples;
	FILE *f = fopen(path, "w");
	int err = 0;

	if (!f)
		return -errno;
	fprintf(f, "# axprof run: built-in CYCLES samples per PC, period uniform in [%d, %d]\n",
		SAMPLE_PERIOD_LO, SAMPLE_PERIOD_HI);
	for (size_t j = 0; s && j < s->cap; j++)
		if (s->count[j])
			fprintf(f, "0x%" PRIx64 " %" PRIu64 "\n", s->pc[j], s->count[j]);
	if (ferror(f))
		err = -EIO;
	if (fclose(f) && !err)
		err = -errno;
	return err;
}

static void samples_free(struct mach_samples *s)
{
	if (!s)
		return;
	free(s->pc);
	free(s->count);
	free(s);
}

/* The max slots of s with most samples, most first (ties: the table's order); how many. */
static size_t samples_top(const struct mach_samples *s, size_t *best, size_t max)
{
	size_t n = 0;

	for (size_t j = 0; s && max && j < s->cap; j++) {
		size_t k;

		if (!s->count[j])
			continue;
		if (n < max)
			n++;
		else if (s->count[j] <= s->count[best[n - 1]])
			continue;
		for (k = n - 1; k > 0 && s->count[best[k - 1]] < s->count[j]; k--)
			best[k] = best[k - 1];
		best[k] = j;
	}
	return n;
}

size_t mach_top_pcs(const struct mach *m, struct mach_pc_count *out, size_t max, uint64_t *total)
{
	size_t best[MACH_TOP_PCS], n;

	if (max > MACH_TOP_PCS)
		max = MACH_TOP_PCS;
	n = samples_top(m->samples, best, max);
	for (size_t k = 0; k < n; k++)
		out[k] = (struct mach_pc_count){ m->samples->pc[best[k]],
						 m->samples->count[best[k]] };
	if (total)
		*total = m->samples ? m->samples->total : 0;
	return n;
}

void mach_set_pc_namer(struct mach *m, mach_pc_namer_fn fn, void *priv)
{
	m->name_pc = fn;
	m->name_pc_priv = priv;
}

/* The top PCs, each named by the embedder's namer when it knows the PC (mach_set_pc_namer). */
static void samples_print(const struct mach *m, FILE *f)
{
	const struct mach_samples *s = m->samples;
	size_t best[MACH_TOP_PCS], n;

	if (!s || !s->total)
		return;
	n = samples_top(s, best, MACH_TOP_PCS);
	fprintf(f,
		"axprof run: pid %" PRId32 ": %" PRIu64
		" CYCLES samples (period %d-%d), top PCs:\n",
		m->pid, s->total, SAMPLE_PERIOD_LO, SAMPLE_PERIOD_HI);
	for (size_t k = 0; k < n; k++) {
		char name[256];

		fprintf(f, "  0x%016" PRIx64 " %8" PRIu64 " %5.1f%%", s->pc[best[k]],
			s->count[best[k]], 100.0 * (double)s->count[best[k]] / (double)s->total);
		if (m->name_pc && m->name_pc(m->name_pc_priv, s->pc[best[k]], name, sizeof(name)))
			fprintf(f, "  %s", name);
		fputc('\n', f);
	}
}

/* ---------------------------------------------------------------------------------------- */
/* Timing mode: axp_run with an observer that retires each instruction into the model and asks
 * the executor to stop when a PMU interrupt is due. */

struct timing {
	struct mach_cpu_obs o; /* first: the observer's priv (timing_insn() casts it back) */
	struct mach *m;
	/* m->cpu's retire and irq_take, one load closer */
	bool (*retire)(void *model, const struct axp_insn *d, const struct axp_event *ev);
	bool (*irq_take)(void *model, struct mach_irq *irq);
};

/* The observer of models without their own (mach_cpu_ops.observe). */
static void timing_insn(void *priv, const struct axp_event *ev)
{
	struct timing *t = priv;

	if (t->retire(t->o.model, ev->insn, ev) && !t->o.have_irq &&
	    t->irq_take(t->o.model, &t->o.irq)) {
		t->o.have_irq = true;
		t->o.stop = true;
	}
}

static uint64_t model_cycles(void *priv)
{
	const struct mach *m = priv;

	return m->cpu->cycles(m->model);
}

static void pmu_irq(struct mach *m, const struct mach_irq *irq)
{
	if (m->hooks.pmu_irq)
		m->hooks.pmu_irq(m->hooks.priv, &m->ctx, irq);
	else
		builtin_pmu_irq(m, &m->ctx, irq);
}

/* The CALL_PAL the executor stopped at completes in the machine: retire it too. */
static void retire_call_pal(struct timing *t, const struct axp_stop_info *info)
{
	struct axp_insn d;
	struct axp_event ev = {
		.pc = t->m->ctx.pc,
		.next_pc = t->m->ctx.pc + 4,
		.word = info->word,
		.op = AXP_OP_CALL_PAL,
		.dest = AXP_NO_DEST,
		.insn = &d,
		.taken = true,
	};

	axp_decode(info->word, &d);
	timing_insn(t, &ev);
}

static void take_irqs(struct timing *t);

/* The system call the CALL_PAL ran kept the kernel busy (mach_kern.h): book that time to the
 * model that retired the CALL_PAL, and deliver the interrupts due in it. */
static void kernel_time(struct timing *t)
{
	struct mach *m = t->m;

	if (!m->kern_pending)
		return;
	m->kern_pending = false;
	if (!m->cpu->kernel)
		return;
	if (m->cpu->kernel(t->o.model, m->kern_nr, mach_kern_pc(m->kern_nr), m->kern_cycles) &&
	    !t->o.have_irq && t->irq_take(t->o.model, &t->o.irq))
		t->o.have_irq = true;
	take_irqs(t);
}

/* Deliver the interrupts the model has due (the sampler sees the context they found). */
static void take_irqs(struct timing *t)
{
	while (t->o.have_irq) {
		struct mach_irq irq = t->o.irq;

		t->o.have_irq = false;
		t->o.stop = false;
		pmu_irq(t->m, &irq);
		if (t->irq_take(t->o.model, &t->o.irq))
			t->o.have_irq = true;
	}
}

/* The budget of the next chunk: at most CHUNK, the --max-insns left (0 when reached) and,
 * with several threads, what is left of the running thread's quantum. */
static uint64_t chunk_budget(struct mach *m)
{
	uint64_t b = CHUNK;

	if (m->opts.max_insns) {
		if (m->insns >= m->opts.max_insns) {
			m->stopped_at_max = true;
			return 0;
		}
		if (m->opts.max_insns - m->insns < b)
			b = m->opts.max_insns - m->insns;
	}
	if (m->thr && m->slice && m->slice < b)
		b = m->slice;
	return b;
}

/* After a chunk of `ran` instructions (and the stop it ended with): the next thread's turn
 * when the quantum is used up or the thread blocked, yielded or exited (mach_thread.c). */
static void sched_point(struct mach *m, uint64_t ran)
{
	if (!m->thr || m->exited)
		return;
	m->slice = ran >= m->slice ? 0 : m->slice - ran;
	if (!m->slice || m->resched)
		mach_sched(m);
}

static void run_timing(struct mach *m)
{
	struct timing t = {
		.o.model = m->model, .m = m, .retire = m->cpu->retire, .irq_take = m->cpu->irq_take
	};
	struct axp_observer obs = { .insn = m->cpu->observe ? m->cpu->observe : timing_insn,
				    .priv = &t.o,
				    .stop = &t.o.stop };
	struct axp_run_cfg cfg = m->cfg;
	struct axp_stop_info info;
	uint64_t budget;

	cfg.obs = &obs;
	m->mem->cycles = model_cycles;
	m->mem->cycles_priv = m;
	if (!m->hooks.pmu_irq)
		for (unsigned int c = 0; c < m->ncpus; c++)
			m->cpu->pmu_arm(m->models[c], MACH_EV_CYCLES, sample_period(m));
	while (!m->exited) {
		budget = chunk_budget(m);
		if (!budget)
			return;
		if (m->cpu->run)
			m->cpu->run(&m->ctx, &cfg, budget, &info);
		else
			axp_run(&m->ctx, &cfg, budget, &info);
		m->insns += info.executed;
		if (info.reason == AXP_STOP_CALL_PAL) {
			m->insns++;
			retire_call_pal(&t, &info);
		}
		take_irqs(&t);
		if (info.reason != AXP_STOP_BUDGET && info.reason != AXP_STOP_OBSERVER)
			handle_stop(m, &info);
		kernel_time(&t);
		if (m->interrupted)
			return;
		sched_point(m, info.executed + (info.reason == AXP_STOP_CALL_PAL));
		if (t.o.model != m->model) {
			/* another virtual CPU: its model retires from now on */
			t.o.model = m->model;
			if (t.irq_take(t.o.model, &t.o.irq)) {
				t.o.have_irq = true;
				take_irqs(&t);
			}
		}
		if (m->sigpending || mach_host_signal_flag)
			while (!m->exited && mach_signal_deliver(m))
				;
	}
}

/* The functional loop. */
static void run_functional(struct mach *m)
{
	struct axp_stop_info info;
	uint64_t budget;

	while (!m->exited) {
		budget = chunk_budget(m);
		if (!budget)
			return;
		axp_run(&m->ctx, &m->cfg, budget, &info);
		m->insns += info.executed;
		if (info.reason == AXP_STOP_CALL_PAL)
			m->insns++;
		if (info.reason != AXP_STOP_BUDGET)
			handle_stop(m, &info);
		if (m->interrupted)
			return;
		sched_point(m, info.executed + (info.reason == AXP_STOP_CALL_PAL));
		if (m->sigpending || mach_host_signal_flag)
			while (!m->exited && mach_signal_deliver(m))
				;
	}
}

int mach_timing_init(struct mach *m, bool truth)
{
	struct mach_cpu_cfg cfg = { .truth = truth, .kernel_time = true };
	int ret;

	if (m->model)
		return -EBUSY;
	m->cpu = &mach_ev5_cpu_ops;
	m->opts.truth = truth;
	ret = m->cpu->create(&m->models[0], &cfg);
	if (!ret)
		m->model = m->models[0];
	return ret;
}

/* Signals the host ignored stay ignored across execve (as Linux's flush_signal_handlers). */
static void inherit_ignored(struct mach *m)
{
	for (int s = 1; s <= MACH_NSIG; s++) {
		struct sigaction old;
		int h = mach_signo_to_host(s);

		if (h && h != SIGKILL && h != SIGSTOP && !sigaction(h, NULL, &old) &&
		    old.sa_handler == SIG_IGN)
			m->sigact[s].handler = MACH_SIG_IGN;
	}
}

int mach_run(struct mach *m)
{
	inherit_ignored(m);
	if (m->model)
		run_timing(m);
	else
		run_functional(m);
	if (m->exited)
		mach_ev_exit(m);
	fflush(stdout);
	if (m->interrupted && !m->exited)
		return 0;
	if (m->stopped_at_max) {
		fprintf(m->err,
			"axprof run: %s: stopped after %" PRIu64 " instructions (--max-insns)\n",
			m->prog, m->insns);
		return 0;
	}
	if (!m->exit_signal)
		return m->exit_code;
	print_death(m);
	return 128 + m->exit_signal;
}

void mach_interrupt(struct mach *m)
{
	m->interrupted = 1;
	mach_host_signal_flag = 1; /* the run loop looks at once */
}

void mach_die(struct mach *m)
{
	struct rlimit nocore = { 0, 0 };
	int h = mach_signo_to_host(m->exit_signal);
	sigset_t set;

	if (!h)
		return;
	fflush(stdout);
	fflush(stderr);
	setrlimit(RLIMIT_CORE, &nocore);
	signal(h, SIG_DFL);
	sigemptyset(&set);
	sigaddset(&set, h);
	sigprocmask(SIG_UNBLOCK, &set, NULL);
	raise(h);
}

void mach_print_stats(struct mach *m, FILE *f, double seconds, double cpu_seconds)
{
	fprintf(f,
		"axprof run: pid %" PRId32 ": %" PRIu64
		" instructions, %.3f s (%.3f s CPU), %.1f MIPS (%.1f per CPU "
		"second), %" PRIu64 " system calls, %" PRIu64 " signals\n",
		m->pid, m->insns, seconds, cpu_seconds,
		seconds > 0 ? (double)m->insns / seconds / 1e6 : 0.0,
		cpu_seconds > 0 ? (double)m->insns / cpu_seconds / 1e6 : 0.0, m->syscalls,
		m->signals);
	mach_thread_print_stats(m, f);
	if (!m->model)
		return;
	/* Each process of a run prints its own block: say whose (issue 17 item 5). */
	fprintf(f, "axprof run: pid %" PRId32 " (%s): timing and samples:\n", m->pid,
		mach_thread_leader_comm(m));
	for (unsigned int c = 0; c < m->ncpus && m->cpu->print_stats; c++) {
		if (m->ncpus > 1)
			fprintf(f, "axprof run: cpu %u:\n", c);
		m->cpu->print_stats(m->models[c], f,
				    m->ncpus > 1 ? m->cpu->count(m->models[c], MACH_EV_RETIRED) :
						   m->insns);
	}
	if (m->coh) {
		uint64_t inval, interv, shstores;

		mach_coh_totals(m->coh, &inval, &interv, &shstores);
		fprintf(f,
			"axprof run: coherence (MESI, %u CPUs): %" PRIu64 " invalidations, %" PRIu64
			" interventions, %" PRIu64 " stores to shared blocks (cache to cache %u "
			"cycles, invalidation %u)\n",
			m->ncpus, inval, interv, shstores, mach_coh_param(m->coh, true),
			mach_coh_param(m->coh, false));
	}
	samples_print(m, f);
}

void mach_get_result(const struct mach *m, struct mach_result *r)
{
	memset(r, 0, sizeof(*r));
	r->exited = m->exited;
	r->stopped_at_max = m->stopped_at_max;
	r->interrupted = m->interrupted && !m->exited;
	r->exit_code = m->exit_code;
	r->exit_signal = m->exit_signal;
	r->status = m->stopped_at_max || r->interrupted ? 0 :
		    m->exit_signal			? 128 + m->exit_signal :
							  m->exit_code;
	r->pid = m->pid;
	memcpy(r->comm, mach_thread_leader_comm(m), sizeof(r->comm));
	r->insns = m->insns;
	r->syscalls = m->syscalls;
	r->signals = m->signals;
	if (!m->model)
		return;
	r->timed = true;
	for (unsigned int c = 0; c < m->ncpus; c++) {
		uint64_t cy = m->cpu->cycles(m->models[c]);

		if (cy > r->cycles)
			r->cycles = cy;
		for (int e = 0; e < MACH_EV_NR; e++)
			r->events[e] += m->cpu->count(m->models[c], (enum mach_event)e);
	}
}

uint64_t mach_insns(const struct mach *m)
{
	return m->insns;
}

int mach_truth_write(struct mach *m, const char *path)
{
	if (!m->model || !m->opts.truth)
		return -EINVAL;
	if (!m->cpu->truth_write)
		return -EOPNOTSUPP;
	return m->cpu->truth_write(m->models, m->ncpus, path); /* every CPU's, added up */
}
