/* machine/mach_ev6_model.h - EV6 (21264) out-of-order model: parameters, state, test access. */
#ifndef MACH_EV6_MODEL_H
#define MACH_EV6_MODEL_H

#include <stdbool.h>
#include <stdint.h>

#include "axp.h"
#include "mach_cpu.h"
#include "mach_trec.h"

#include "vs_core.h"

/*
 * Private to the EV6 model (mach_ev6*.c) and its tests; the machine knows it only through
 * mach_ev6_cpu_ops (mach_cpu.h). The model and the source of every number: machine/EV6-MODEL.md
 * and the top of mach_ev6.c. A parameter marked [U] is our choice where the HRM is silent.
 */

struct mach_ev6_params {
	uint32_t fetch_width; /* instructions fetched a cycle, one aligned quadpack [HRM 2.1.1] */
	uint32_t fetch_queue; /* fetched, not yet mapped: fetch stalls when full [HRM 2.2; U: 8] */
	uint32_t map_width; /* instructions mapped a cycle [HRM 2.1.3] */
	uint32_t
		retire_width; /* instructions retired a cycle (sustained) [HRM 2.1.8; U: 8 of 11] */
	uint32_t window; /* inums in flight [HRM 6.10.3.3.2: 80] */
	uint32_t iq, fq; /* integer / FP issue queue entries [HRM Fig. 2-1: 20, 15] */
	uint32_t int_rename, fp_rename; /* physical registers beyond the architectural [U: 41] */
	uint32_t lq, sq, maf; /* load queue, store queue, miss address file [EV68A HRM 2.1.6] */
	uint32_t dcache_lat, fdcache_lat; /* integer / FP load-use on a D-cache hit [Table 2-4] */
	uint32_t bcache_lat; /* load-use from the B-cache [Table 2-4: 13 with a 6-cycle B-cache] */
	uint32_t mem_lat; /* load-use from memory [U] */
	uint32_t
		mem_occupancy; /* cycles the memory bus is busy per 64-byte block (0: no limit) [U] */
	uint32_t bcache_kb; /* B-cache size, direct mapped, 64-byte blocks [U: 2 MB] */
	uint32_t mispredict, jsr_mispredict; /* [Table 2-1: 7, 8] */
	uint32_t order_trap; /* load-load / store-load order trap [Table 2-1: 14] */
	uint32_t mbox_replay; /* other Mbox replays (LQ/SQ/MAF full, partial forward) [Table 2-1] */
	uint32_t dtb_miss, itb_miss; /* [Table 2-1: 13, 7] plus the PALcode refill [U] */
	uint32_t stwait_clear; /* cycles between clearings of the stWait table [U: 16384] */
	uint32_t ras_n; /* return-address stack entries [U: 32] */
	uint32_t pal_cycles; /* CALL_PAL: cycles after the older instructions retired [U] */
	uint32_t irq_delay; /* PMU overflow to interrupt delivery [U: 6] */
	uint32_t issue_slots; /* C of the wasted-slot truth: slots a cycle [PM §5.2.3: 4] */
	bool truth;
	bool kernel_time; /* a CALL_PAL callsys costs no pal_cycles: the machine books the call's
			   * kernel time with mach_ev6_kernel() (mach_kern.h) */
};

void mach_ev6_params_default(struct mach_ev6_params *p);

/* Issue pipes (HRM Fig. 2-1, Table 2-2): cluster 0 = U0 + L0, cluster 1 = U1 + L1. */
#define EV6_P_U0 0x01u
#define EV6_P_L0 0x02u
#define EV6_P_U1 0x04u
#define EV6_P_L1 0x08u
#define EV6_P_FA 0x10u
#define EV6_P_FM 0x20u
#define EV6_P_INT (EV6_P_U0 | EV6_P_L0 | EV6_P_U1 | EV6_P_L1)

/* Op kinds the model tells apart (beyond the pipes). */
#define EV6_K_LOAD 0x0001u
#define EV6_K_STORE 0x0002u
#define EV6_K_CBR 0x0004u
#define EV6_K_UBR 0x0008u
#define EV6_K_JMP 0x0010u /* JMP, JSR: target from the predictor's last target [U] */
#define EV6_K_RET 0x0020u /* RET, JSR_COROUTINE: target from the return stack */
#define EV6_K_PUSH 0x0040u
#define EV6_K_FPQ 0x0080u /* goes to the FP queue */
#define EV6_K_BARRIER 0x0100u /* MB, WMB, TRAPB, EXCB: wait for the older to retire [U] */
#define EV6_K_PAL 0x0200u
#define EV6_K_FDIV 0x0400u /* FP divide / square root: the unit is not pipelined */

struct ev6_op {
	uint8_t pipes; /* EV6_P_* the op may issue to */
	uint8_t lat; /* result latency (loads: the hit latency) */
	uint8_t sa, sb, sc; /* 0: unused; else 1 + register-file offset (0 or 32) */
	uint8_t da, dc;
	uint16_t kind; /* EV6_K_* */
};

/* Why an instruction was aborted (truth, enum order = file order). */
enum ev6_abort {
	EV6_AB_REPLAY, /* it was the target of a replay trap and was refetched */
	EV6_AB_YOUNGER, /* younger than a trap target or a mispredicted branch's redirect */
	EV6_AB_NR,
};

/* Replay trap kinds (HRM 2.11). */
enum ev6_replay {
	EV6_RP_STLD, /* store-load order: an older store issued after this load, bytes overlap */
	EV6_RP_LDLD, /* load-load order: an older load to the same bytes issued after this one */
	EV6_RP_MBOX, /* other Mbox replay: LQ, SQ or MAF full, partial store forward */
	EV6_RP_NR,
};

/* Per-PC truth counters (file order: mach_truth.h MACH_TRUTH_SEC_EV6PCS). */
enum ev6_tc {
	EV6_TC_FETCH,
	EV6_TC_RETIRE,
	EV6_TC_AB_REPLAY,
	EV6_TC_AB_YOUNGER,
	EV6_TC_BADPATH,
	EV6_TC_RP_STLD,
	EV6_TC_RP_LDLD,
	EV6_TC_RP_MBOX,
	EV6_TC_MISPREDICT,
	EV6_TC_IMISS,
	EV6_TC_ITBMISS,
	EV6_TC_DMISS,
	EV6_TC_BCMISS,
	EV6_TC_DTBMISS,
	EV6_TC_FWD,
	EV6_TC_STWAIT,
	EV6_TC_FETCH_MAP,
	EV6_TC_MAP_ISSUE,
	EV6_TC_ISSUE_READY,
	EV6_TC_READY_RETIRE,
	EV6_TC_NR,
};

#define EV6_RING 256 /* in-flight instruction history (>= window, power of two) */
#define EV6_MEMQ 64 /* recent loads and stores kept for the order checks (>= lq, sq) */
#define EV6_CYC 4096 /* per-cycle pipe occupancy ring */
#define EV6_DC_SETS 512 /* 64 KB 2-way, 64-byte blocks [HRM 2.1.5] */
#define EV6_IC_SETS 512
#define EV6_TLB_N 128 /* ITB and DTB [HRM 2.1.6] */
#define EV6_STWAIT_N 1024 /* [HRM 2.11] */
#define EV6_LHIST_N 1024 /* local history table, 10 bits each [HRM Fig. 2-3] */
#define EV6_LPRED_N 1024 /* local 3-bit counters */
#define EV6_GPRED_N 4096 /* global 2-bit counters, 12-bit path history [HRM Fig. 2-4] */
#define EV6_RAS_MAX 64
#define EV6_MAF_MAX 32
#define EV6_IRQ_Q 16
#define EV6_HIST 8
#define EV6_JTGT_N 1024
#define EV6_PME_Q 8 /* complete ProfileMe records not yet taken */
#define EV6_PME_GAP 256 /* lo must exceed W + this: one pair in flight at a time */
#define EV6_PME_W_MAX 1024

struct ev6_mem_rec { /* a recent load or store */
	uint64_t pc, ea, issue, retire;
	uint8_t size;
};

struct ev6_tlb {
	uint64_t vpn[EV6_TLB_N];
	uint8_t hint[256];
	unsigned int next;
};

struct ev6_irq {
	uint8_t event;
	uint64_t due;
};

struct ev6_trec { /* per-PC truth */
	uint64_t c[EV6_TC_NR];
};

struct ev6_stages { /* the cycles of one instruction's stages (tests) */
	uint64_t fetch, map, issue, ready, retire;
	unsigned int cluster;
};

struct mach_ev6 {
	struct mach_ev6_params p;
	struct ev6_stages last; /* of the last instruction retired */
	struct ev6_op ops[AXP_OP_NR];
	uint64_t seq; /* instructions processed (retired) */

	/* fetch */
	uint64_t f_t; /* cycle of the current fetch group */
	uint64_t f_blk; /* its aligned quadpack (pc >> 4) */
	unsigned int f_n; /* instructions fetched in it */
	bool f_new; /* the next instruction starts a new group (taken branch, redirect) */
	uint64_t f_redirect; /* earliest cycle of the next group */
	uint64_t f_line, f_page;
	uint64_t ic_tag[EV6_IC_SETS][2];
	uint8_t ic_lru[EV6_IC_SETS];
	struct ev6_tlb itb, dtb;
	uint64_t d_page;
	unsigned int ab_pending; /* younger instructions already fetched by an aborted path */

	/* branch prediction [HRM 2.1.1.x] */
	uint16_t lhist[EV6_LHIST_N];
	uint8_t lpred[EV6_LPRED_N], gpred[EV6_GPRED_N], choice[EV6_GPRED_N];
	uint16_t path; /* 12-bit global path history */
	uint64_t ras[EV6_RAS_MAX];
	unsigned int ras_top;
	uint64_t jtgt[EV6_JTGT_N]; /* last target of JMP/JSR by pc */

	/* map */
	uint64_t m_t; /* cycle of the last map group */
	unsigned int m_n;
	uint64_t ret_ring[EV6_RING]; /* retire cycle by seq */
	uint64_t map_ring[EV6_RING]; /* map cycle by seq (fetch back-pressure) */
	uint64_t idest_ret[EV6_RING], fdest_ret[EV6_RING]; /* by writer count */
	uint64_t nidest, nfdest;
	uint64_t iq_heap[32], fq_heap[32]; /* min-heaps of the latest issue cycles */
	unsigned int iq_n, fq_n;

	/* issue */
	uint64_t rdy[66][2]; /* register ready cycle per cluster (64, 65: sinks) */
	uint64_t cyc_tag[EV6_CYC];
	uint8_t cyc_use[EV6_CYC];
	uint64_t fdiv_free;

	/* memory */
	uint64_t dc_tag[EV6_DC_SETS][2]; /* block + 1 */
	uint64_t dc_ready[EV6_DC_SETS][2];
	uint8_t dc_lru[EV6_DC_SETS];
	uint64_t *bc_tag;
	uint64_t bc_mask;
	uint64_t maf[EV6_MAF_MAX];
	uint64_t mem_free; /* the memory bus is busy until */
	struct mach_coh *coh; /* --cpus N > 1: coherence (mach_coh.h) as CPU coh_cpu; else NULL */
	unsigned int coh_cpu;
	struct ev6_mem_rec ldq[EV6_MEMQ], stq[EV6_MEMQ];
	uint64_t nld, nst;
	uint64_t st_max_issue; /* latest issue cycle of any store so far */
	uint8_t stwait[EV6_STWAIT_N];
	uint64_t stwait_epoch;

	/* retire */
	uint64_t r_t; /* retire cycle of the last instruction */
	unsigned int r_n;

	/* PMU */
	uint64_t count[MACH_EV_NR];
	uint64_t next_ov[MACH_EV_NR];
	bool ovpend[MACH_EV_NR];
	uint64_t ov_at[MACH_EV_NR];
	struct ev6_irq irq[EV6_IRQ_Q];
	unsigned int nirq, nready;
	uint64_t irq_pc[EV6_IRQ_Q];
	uint64_t min_due;
	uint64_t irq_dropped;
	uint64_t hist_pc[EV6_HIST], hist_t[EV6_HIST]; /* the last retired (and kernel stretches):
						       * pc, retire cycle, by hist_n */
	uint64_t hist_n;
	uint64_t kcycles; /* kernel time booked by mach_ev6_kernel() (in r_t) */

	/* ProfileMe (mach_ev6_pme.c); pme_due UINT64_MAX: off */
	uint64_t pme_n; /* fetched instructions so far (= fetched while on) */
	uint64_t pme_due; /* the fetch index of the next selection: min(next, next2) */
	uint64_t pme_next, pme_next2, pme_first; /* next first, next second, last first chosen */
	uint64_t pme_dist; /* the fetch distance of the last second chosen */
	struct mach_pme_cfg pme_cfg;
	struct vs_prng pme_rng;
	struct mach_pme pme_pend[2]; /* the pair (or single) being followed */
	unsigned int pme_have, pme_want; /* bits: 1 first, 2 second */
	struct mach_pme pme_q[EV6_PME_Q];
	unsigned int pme_qh, pme_qn;
	uint64_t pme_taken, pme_dropped;

	/* statistics */
	uint64_t aborted, badpath, fetched;
	uint64_t replays[EV6_RP_NR];

	/* truth */
	struct ev5_truth *truth; /* the part both models share (exec, head, edges) */
	struct ev6_trec *tx; /* parallel to truth's records */
	size_t tx_cap;
	struct ev6_rp_slot *rp; /* (pc, cause, kind) -> count */
	size_t rp_mask, rp_used;
	bool tx_failed;
	struct ev6_waste *waste; /* wasted issue slots (mach_ev6_waste.c), with the truth */
	/* truth of [PM] §5.3's paths: the last control transfers retired (a ring, from/to), and
	 * the encoded MACH_TRUTH_SEC_PATHS records of the retired seconds of pairs */
	uint64_t pt_from[MACH_TRUTH_PATH_DECS], pt_to[MACH_TRUTH_PATH_DECS];
	uint64_t pt_n;
	uint8_t *pt_rec;
	size_t pt_nrec, pt_cap;
};

struct ev6_rp_slot {
	uint64_t pc, cause, count;
	uint32_t kind;
};

int mach_ev6_new_params(struct mach_ev6 **out, const struct mach_ev6_params *p);
void mach_ev6_free(struct mach_ev6 *m);
/* One instruction the executor completed, in program order. */
void mach_ev6_retire(struct mach_ev6 *m, const struct axp_insn *d, const struct axp_event *ev);
void mach_ev6_pmu_arm(struct mach_ev6 *m, enum mach_event event, uint64_t period);
bool mach_ev6_irq_take(struct mach_ev6 *m, struct mach_irq *irq);
uint64_t mach_ev6_cycles(const struct mach_ev6 *m);
uint64_t mach_ev6_count(const struct mach_ev6 *m, enum mach_event event);
/* The kernel ran `cycles` for system call nr after the CALL_PAL just retired; interrupts due
 * in that time report pc. True when an interrupt may be due (mach_cpu.h kernel). */
bool mach_ev6_kernel(struct mach_ev6 *m, unsigned int nr, uint64_t pc, uint64_t cycles);
void mach_ev6_access(struct mach_ev6 *m, uint64_t va, unsigned int size, bool store,
		     struct axp_access *acc);

/* mach_ev6_truth.c */
int ev6_truth_new(struct mach_ev6 *m);
void ev6_truth_free(struct mach_ev6 *m);
struct ev6_trec *ev6_truth_rec(struct mach_ev6 *m, uint64_t pc);
void ev6_truth_replay(struct mach_ev6 *m, uint64_t pc, uint64_t cause, enum ev6_replay kind);
/* A retired control transfer (truth only), and the path record of a retired second of a pair
 * whose first is `first` (NULL: not followed). */
void ev6_truth_transfer(struct mach_ev6 *m, uint64_t from, uint64_t to);
void ev6_truth_path(struct mach_ev6 *m, uint64_t pc, uint16_t history, uint64_t dist,
		    const struct mach_pme *first);
int mach_ev6_truth_write(struct mach_ev6 *m, const char *path);
/*
 * The truth of the n CPUs of a --cpus N run (v[0..n)) in one file: per-PC records, edges,
 * replays, wasted slots and system calls added up over the CPUs (what one CPU running all
 * their instructions would count), the summary's counts and cycles their sums, the path
 * records CPU by CPU. n == 1: mach_ev6_truth_write(v[0]).
 */
int mach_ev6_truth_write_cpus(struct mach_ev6 *const *v, unsigned int n, const char *path);
/* Tests: the counters of `pc` so far (false: never fetched), the replay count of a pair. */
bool mach_ev6_truth_get(const struct mach_ev6 *m, uint64_t pc, struct ev6_trec *out);
uint64_t mach_ev6_replay_count(const struct mach_ev6 *m, uint64_t pc, uint64_t cause,
			       enum ev6_replay kind);

/* mach_ev6_waste.c: the wasted-issue-slot truth [PM §5.2.3] (no-ops without the truth) */
int ev6_waste_new(struct mach_ev6 *m);
void ev6_waste_free(struct mach_ev6 *m);
/* A copy of pc was in progress from cycle a to cycle b (retire ready, or its abort); retired:
 * it is the retired copy, whose own issue (then recorded by ev6_waste_issue) is not counted. */
void ev6_waste_window(struct mach_ev6 *m, uint64_t pc, uint64_t a, uint64_t b, bool retired);
/* A retired instruction issued at cycle t; cycles < final are final (no later issue there). */
void ev6_waste_issue(struct mach_ev6 *m, uint64_t t, uint64_t final);
/* Section 7 of the truth file, encoded (*n records); every cycle is final after it. */
int ev6_waste_encode(struct mach_ev6 *m, uint8_t **out, size_t *n);
/* Tests, after the run (it makes every cycle final): the record of pc (false: none). */
bool mach_ev6_waste_get(struct mach_ev6 *m, uint64_t pc, struct mach_truth_waste *out);
/* Windows clamped to the ring or issues outside it (0 in every run we know of). */
uint64_t mach_ev6_waste_clamped(const struct mach_ev6 *m);

/* mach_ev6_pme.c: ProfileMe */
int mach_ev6_pme_config(struct mach_ev6 *m, const struct mach_pme_cfg *cfg);
bool mach_ev6_pme_take(struct mach_ev6 *m, struct mach_pme *out);
unsigned int ev6_pme_select(struct mach_ev6 *m);
/* The instruction(s) chosen by `sel` (bits 1 first, 2 second) completed as *r. */
void ev6_pme_done(struct mach_ev6 *m, unsigned int sel, const struct mach_pme *r);
/* n bad-path instructions from pc `at` fetched from cycle f (fetch_width a cycle), aborted at
 * cycle `abort`, with global history `path`. */
void ev6_pme_badpath(struct mach_ev6 *m, uint64_t at, uint64_t n, uint64_t f, uint64_t abort,
		     uint16_t path);

/* One instruction fetched: which selections (bits 1 first, 2 second) chose it (0 mostly). */
static inline unsigned int ev6_pme_tick(struct mach_ev6 *m)
{
	if (m->pme_n++ != m->pme_due)
		return 0;
	return ev6_pme_select(m);
}

/* mach_ev6_pmu.c */
void ev6_pmu_init(struct mach_ev6 *m);
void ev6_pmu_overflow(struct mach_ev6 *m, enum mach_event e);
void ev6_pmu_deliver(struct mach_ev6 *m, uint64_t pc, uint64_t t);

static inline void ev6_pmu_event(struct mach_ev6 *m, enum mach_event e)
{
	if (++m->count[e] >= m->next_ov[e])
		ev6_pmu_overflow(m, e);
}

/* mach_ev6_coh.c: join the coherence protocol (mach_coh.h) as CPU `cpu`; a load's D-cache miss
 * (returns the cache-to-cache latency to use, 0: the hierarchy's) and a store (returns the
 * cycles its store-queue entry waits for invalidations). */
void ev6_coh_attach(struct mach_ev6 *m, struct mach_coh *coh, unsigned int cpu);
uint32_t ev6_coh_load(struct mach_ev6 *m, const struct axp_event *ev);
uint32_t ev6_coh_store(struct mach_ev6 *m, const struct axp_event *ev);

#endif /* MACH_EV6_MODEL_H */
