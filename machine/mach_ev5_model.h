/* machine/mach_ev5_model.h - EV5 model internals shared by its files and tests. */
#ifndef MACH_EV5_MODEL_H
#define MACH_EV5_MODEL_H

#include "isa_ev5.h"
#include "mach_ev5.h"
#include "mach_trec.h"

/*
 * Everything here is private to the EV5 model and its tests; the machine uses mach_ev5.h only.
 * The model itself is described at the top of mach_ev5.c and in machine/EV5-MODEL.md.
 */

/* Tunable parameters (defaults: mach_ev5_params_default(), documented in mach_ev5.c). */
struct mach_ev5_params {
	uint32_t dcache_lat; /* load-use latency of a D-cache hit */
	uint32_t scache_lat; /* load-use latency of an S-cache hit (also the I-cache refill) */
	uint32_t bcache_lat; /* ... of a B-cache hit (cfg.bcache_latency) */
	uint32_t mem_lat; /* ... of a memory access (cfg.mem_latency) */
	uint32_t
		mem_occupancy; /* cycles the memory bus is busy per 64-byte transfer (0: no limit) */
	uint32_t bcache_kb; /* B-cache size in KB (direct mapped, 64-byte blocks; power of two) */
	uint32_t mispredict; /* extra cycles before the correct path issues */
	uint32_t itb_miss, dtb_miss; /* TLB miss penalties (PALcode refill) */
	uint32_t wb_scache; /* cycles to write one write-buffer entry into the S-cache (hit) */
	uint32_t wb_timeout; /* an open write-buffer entry closes for merging after this long */
	uint32_t pal_cycles; /* cost of a CALL_PAL, charged to the next instruction */
	uint32_t replay; /* load issued the cycle after a store to the same quadword */
	bool truth;
};

void mach_ev5_params_default(struct mach_ev5_params *p);
/* mach_ev5_new() with explicit parameters (tests, benches). */
int mach_ev5_new_params(struct mach_ev5 **out, const struct mach_ev5_params *p);

/* ---- per-op facts: isa_ev5_op() (isa/isa_ev5.h) with the model's D-cache latency ---- */

/* The facts of isa/isa_ev5.h (fields in the same order), plus the issue resources. */
struct ev5_op {
	uint8_t pipe; /* enum isa_ev5_pipe */
	uint8_t lat; /* result latency (loads: the D-cache hit latency) */
	uint8_t repeat; /* IMUL/FDIV: cycles the unit stays busy */
	uint8_t sa, sb, sc; /* 0: operand unused; else 1 + register-file offset (0 or 32) */
	uint8_t da, dc; /* same for the destination Ra / Rc */
	uint16_t kind; /* ISA_EV5_K_* */
	uint64_t use; /* issue resources it takes (packed counters, see mach_ev5.c) */
	/* Scoreboard indices without branches (ev5_regs() in mach_ev5.c): a field's register is
	 * (field & mask) + off; an unused source gives EV5_REG_NONE, no destination EV5_REG_SINK. */
	uint8_t ma, oa, mb, ob, mc, oc; /* sources Ra, Rb, Rc */
	uint8_t md, od; /* destination ... */
	bool d_ra; /* ... from Ra (else Rc) */
};

#define EV5_REG_NONE 64 /* scoreboard entry never written: ready at cycle 0 */
#define EV5_REG_SINK 65 /* R31/F31 and no destination: never written either */

/*
 * One instruction word's timing facts, worked out once (pd_fill() in mach_ev5.c) and tagged with
 * the word alone: they depend on nothing else (the op's facts and the register fields), so the
 * cache needs no invalidation and any entry may hold any word. The retire reads one entry
 * instead of the op table and the instruction's fields.
 */
struct ev5_pd {
	uint32_t word; /* tag: the instruction word */
	uint16_t op; /* enum axp_op (m->ops[op] for the rare paths) */
	uint16_t kind; /* ISA_EV5_K_* */
	uint8_t a, b, c; /* scoreboard indices of the sources (EV5_REG_NONE: unused, literal) */
	uint8_t dst; /* ... of the destination (EV5_REG_SINK: none, R31, F31) */
	uint8_t lat; /* ev5_op.lat */
	bool fpop; /* an FP operate (PMU event FPOPS) */
	bool back; /* a negative displacement (a conditional branch's static prediction) */
	uint64_t use; /* ev5_op.use */
	uint64_t late; /* bits of a, b, c, dst below 64, to test against mach_ev5.late */
	uint64_t dbit; /* dst's bit (0: EV5_REG_SINK) */
};

#define EV5_PD_BITS 12
#define EV5_PD_N (1u << EV5_PD_BITS)

/* The cache slot of the instruction at pc: direct mapped by address, so a loop's instructions
 * sit in consecutive entries (few host cache lines) rather than scattered by a hash of the
 * word. */
static inline unsigned int ev5_pd_slot(uint64_t pc)
{
	return (unsigned int)(pc >> 2) & (EV5_PD_N - 1);
}

/* ---- caches and TLBs ---- */

#define EV5_LINE_SHIFT 5 /* I/D-cache blocks: 32 bytes */
#define EV5_L1_LINES 256 /* 8 KB direct mapped */
#define EV5_SC_SHIFT 6 /* S-cache and B-cache blocks: 64 bytes */
#define EV5_SC_SETS 512 /* 96 KB = 512 sets x 3 ways x 64 bytes */
#define EV5_SC_WAYS 3
#define EV5_PAGE_SHIFT 13 /* 8 KB pages */
#define EV5_ITB_N 48
#define EV5_DTB_N 64
#define EV5_TLB_HINTS 256
#define EV5_BHT_N 2048 /* one 2-bit counter per I-cache instruction slot */
#define EV5_RAS_N 12
#define EV5_MAF_N 6
#define EV5_WB_N 6
#define EV5_WB_SLOTS 8 /* the write buffer's ring (a power of two >= EV5_WB_N) */
#define EV5_ISTREAM_N 4 /* I-stream prefetch (refill) buffer lines */

struct ev5_tlb {
	uint64_t vpn[EV5_DTB_N];
	uint8_t hint[EV5_TLB_HINTS]; /* vpn hash -> slot that last held it */
	unsigned int n, next; /* entries, round-robin victim */
};

struct ev5_wb_entry {
	uint64_t blk; /* 32-byte block address >> 5 */
	uint64_t coh; /* cycles its write waits for invalidations (mach_coh.h; 0: one CPU) */
	uint64_t create; /* cycle the entry was allocated */
	uint64_t done; /* cycle its write completes (valid once scheduled) */
	bool sched; /* closed for merging and scheduled to drain */
};

/* ---- PMU ---- */

#define EV5_IRQ_DELAY 6 /* DCPI SOSP'97 §4: delivered six cycles after the overflow */
#define EV5_IRQ_Q 16
#define EV5_EVLOG 16
#define EV5_HIST 8

struct ev5_irq {
	uint8_t event;
	bool assigned; /* pc known: the instruction at the head of issue at `due` */
	uint64_t ov; /* event count (CYCLES: the cycle) at which the counter overflowed */
	uint64_t due; /* delivery cycle */
	uint64_t pc;
};

/* ---- the model ---- */

struct mach_ev5 {
	struct mach_ev5_params p;
	struct ev5_op ops[AXP_OP_NR];
	struct ev5_pd pd[EV5_PD_N]; /* timing facts by instruction word (struct ev5_pd) */

	/* issue state */
	uint64_t cur; /* issue cycle of the last instruction */
	uint64_t blk; /* its INT16 fetch block (pc >> 4) */
	bool redirect; /* the next instruction starts a new fetch (taken branch, mispredict, PAL) */
	uint64_t pend_at; /* the next instruction may not issue before this cycle... */
	uint8_t pend_cause; /* ...because of this (BRANCHMP, OTHER) */
	uint64_t fetch_redirect; /* cycle a redirected fetch starts */
	uint64_t ub; /* issue resources used in `cur` plus `cur`'s bias (packed counters and
		      * EV5_BIAS_*, see mach_ev5.c) */
	uint64_t last_store_t, last_store_q; /* cycle and quadword of the last store */
	uint64_t mul_free, fdiv_free, e0_block;
	/* scoreboard, when register r's value can be used (r: 0-31 int, 32-63 FP, 64 unused, 65
	 * sink), one array per field so that an index addresses each */
	uint64_t rdy[66]; /* actual */
	uint64_t st[66]; /* as the static schedule sees it (every load hits) */
	uint64_t b0[66]; /* for a same-cycle IBR/CMOV test operand (ICMP/ILOG bypass); else st */
	uint64_t late; /* bit r set: rdy[r] != st[r] (r waits for a missing load) */
	uint64_t max_rdy, max_rdy_st;

	/* fetch */
	uint64_t iline; /* current I-cache block (pc >> 5) */
	uint64_t line_first; /* issue cycle of the first instruction of the current block */
	uint64_t ipage;
	uint64_t ic_tag[EV5_L1_LINES];
	uint64_t is_line[EV5_ISTREAM_N], is_ready[EV5_ISTREAM_N]; /* I-stream buffer */
	uint64_t is_next; /* next sequential line the stream would prefetch */
	uint8_t bht[EV5_BHT_N];
	uint64_t ras[EV5_RAS_N];
	unsigned int ras_top;

	/* data */
	uint64_t dc_tag[EV5_L1_LINES], dc_ready[EV5_L1_LINES];
	uint64_t maf[EV5_MAF_N]; /* completion cycles of outstanding misses */
	uint64_t dpage[2];
	unsigned int dpage_next;
	struct ev5_tlb itb, dtb;
	uint64_t sc_tag[EV5_SC_SETS][EV5_SC_WAYS]; /* block + 1 (0 empty) */
	uint8_t sc_lru[EV5_SC_SETS][EV5_SC_WAYS]; /* age: 0 most recent */
	uint8_t sc_dirty[EV5_SC_SETS][EV5_SC_WAYS];
	uint64_t *bc_tag; /* block + 1, bit 63 = dirty */
	uint64_t bc_mask;
	uint64_t mem_free; /* memory bus busy until (all transfers) */
	uint64_t rd_free; /* ... for demand reads */
	struct ev5_wb_entry wb[EV5_WB_SLOTS]; /* EV5_WB_N at most in use */
	unsigned int wb_head, wb_n;
	uint64_t wb_t; /* cycle of the last wb_update() */
	uint64_t
		wb_due; /* no earlier cycle makes wb_advance() change more than wb_t (wb_due_set()) */
	uint64_t wb_done; /* latest completion of a write scheduled so far (wb_close()) */

	/* statistics */
	uint64_t insns;
	uint64_t stall[MACH_STALL_NR]; /* head cycles by cause; STATIC set by ev5_stall_sync() */
	uint64_t kcycles; /* kernel time booked by mach_ev5_kernel() (in cur, in no stall) */
	uint64_t level[5]; /* load accesses by enum axp_level */

	/* PMU */
	uint64_t count[MACH_EV_NR];
	uint64_t next_ov[MACH_EV_NR]; /* overflow when count reaches this (UINT64_MAX: disarmed) */
	/* count[RETIRED] from which RETIRED, LOADS or FPOPS may reach its next_ov (each counts at
	 * most one per instruction): until then the retire tests nothing (ev5_pmu_issue_limit()) */
	uint64_t issue_check;
	uint64_t period[MACH_EV_NR];
	bool ovpend[MACH_EV_NR]; /* overflowed, waiting to be re-armed */
	uint64_t ov_at[MACH_EV_NR]; /* ...at this count */
	uint64_t evlog_cnt[MACH_EV_NR][EV5_EVLOG], evlog_cyc[MACH_EV_NR][EV5_EVLOG];
	unsigned int evlog_n[MACH_EV_NR]; /* events counted since the overflow, with cycles */
	struct ev5_irq irq[EV5_IRQ_Q];
	unsigned int nirq;
	uint64_t min_due; /* earliest due cycle of an unassigned irq (UINT64_MAX: none) */
	uint64_t hist_pc[EV5_HIST], hist_t[EV5_HIST]; /* last retired instructions and kernel
						       * stretches (by hist_n) */
	uint64_t hist_n;
	uint64_t irq_dropped;

	/* truth */
	struct ev5_truth *truth;

	/* coherence (--cpus N > 1; NULL: one CPU): this is CPU coh_cpu (mach_coh.h) */
	struct mach_coh *coh;
	unsigned int coh_cpu;
};

/* mach_ev5_coh.c: join the protocol as CPU `cpu` (coherence over the D-, S- and B-cache). */
void ev5_coh_attach(struct mach_ev5 *m, struct mach_coh *coh, unsigned int cpu);
/* A load of `ea` (by the instruction at pc) that missed the D-cache at cycle t: the protocol's
 * action; returns the latency to use instead of the memory hierarchy's (0: the hierarchy's). */
uint32_t ev5_coh_load(struct mach_ev5 *m, uint64_t ea, uint64_t pc, uint64_t t);
/* A store to `ea` (by the instruction at pc) at cycle t: its coherence delay for the write buffer
 * (0: none). */
uint32_t ev5_coh_store(struct mach_ev5 *m, uint64_t ea, uint64_t pc, uint64_t t);

/* mach_pmu.c */
void ev5_pmu_init(struct mach_ev5 *m);
void ev5_pmu_overflow(struct mach_ev5 *m, enum mach_event e, uint64_t cycle);
void ev5_pmu_cycles(struct mach_ev5 *m, uint64_t to);
void ev5_pmu_assign(struct mach_ev5 *m, uint64_t pc, uint64_t t);
void ev5_pmu_issue_limit(struct mach_ev5 *m);
void ev5_pmu_issue_check(struct mach_ev5 *m, uint64_t cycle);

/* Count one event at `cycle`; may raise an overflow. */
static inline void ev5_pmu_event(struct mach_ev5 *m, enum mach_event e, uint64_t cycle)
{
	if (++m->count[e] >= m->next_ov[e])
		ev5_pmu_overflow(m, e, cycle);
}

/* Count one instruction issued at `cycle`: RETIRED, LOADS if `load`, FPOPS if `fpop`. */
static inline void ev5_pmu_issue(struct mach_ev5 *m, bool load, bool fpop, uint64_t cycle)
{
	m->count[MACH_EV_RETIRED]++;
	m->count[MACH_EV_LOADS] += load;
	m->count[MACH_EV_FPOPS] += fpop;
	if (m->count[MACH_EV_RETIRED] >= m->issue_check)
		ev5_pmu_issue_check(m, cycle);
}

/* mach_truth.c: the EV5 model's truth file. */
int ev5_truth_write(const struct mach_ev5 *m, const char *path);
/* The truth of the n CPUs of a --cpus N run in one file (as mach_ev6_truth_write_cpus). */
int ev5_truth_write_cpus(struct mach_ev5 *const *v, unsigned int n, const char *path);

/* mach_ev5_retire() for the CPU-model ops table (mach_ev5_ops.c): also returns whether an
 * interrupt may be due (one is queued). */
bool ev5_retire_op(void *model, const struct axp_insn *d, const struct axp_event *ev);
/* The ops table's observer (mach_cpu_ops.observe): ev5_retire_op() and the interrupt check in
 * one call, priv a struct mach_cpu_obs. */
void ev5_observe(void *priv, const struct axp_event *ev);
/* The ops table's run loop (mach_cpu_ops.run): axp_run() with ev5_observe() inlined. */
enum axp_stop ev5_run(struct axp_ctx *ctx, const struct axp_run_cfg *cfg, uint64_t budget,
		      struct axp_stop_info *info);

/*
 * The block-memo study (mach_ev5_study.c; EV5-MODEL.md "Speed"): a build with -DEV5_STUDY=1
 * calls these around every retire and prints the figures when the model is freed. The default
 * build compiles the calls out.
 */
#ifndef EV5_STUDY
#define EV5_STUDY 0
#endif
void ev5_study_pre(const struct mach_ev5 *m, const struct ev5_pd *p, uint64_t pc, uint64_t ea,
		   bool dtb_quiet);
void ev5_study_post(const struct mach_ev5 *m, const struct ev5_pd *p, uint64_t pc, uint64_t next_pc,
		    uint64_t t, unsigned int evb, unsigned int npiece, const uint8_t *cause,
		    const uint64_t *amt, bool mp);
void ev5_study_report(const struct mach_ev5 *m);

/* Test access: the truth record of `pc` accumulated so far (false if none). */
bool mach_ev5_truth_get(const struct mach_ev5 *m, uint64_t pc, struct mach_truth_pc *out);
uint64_t mach_ev5_stall_total(const struct mach_ev5 *m, enum mach_stall cause);
/* Set stall[MACH_STALL_STATIC] (the retire books only the dynamic causes) before it is read. */
void ev5_stall_sync(struct mach_ev5 *m);

#endif /* MACH_EV5_MODEL_H */
