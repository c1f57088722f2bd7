/* machine/mach_ev5.h - EV5 (21164) timing model, PMU and ground truth of the hosted machine. */
#ifndef MACH_EV5_H
#define MACH_EV5_H

#include "axp.h"
#include "mach_cpu.h"

/*
 * The functional machine calls mach_ev5_retire() once per completed instruction, in program
 * order. The model decides the cycle each instruction issues (in-order, up to four a cycle, 21164
 * slotting and pipes, latencies, caches, TLBs, branch prediction, write buffer); the cycles between
 * the previous instruction's issue and this one's are "head of issue" cycles charged to this
 * instruction. The PMU counts events and raises overflow interrupts with the 21164's delivery
 * semantics (DCPI SOSP'97 §4: 6 cycles after overflow, PC of the instruction at the head of the
 * issue stage). Model and sources: machine/mach_ev5.c and machine/EV5-MODEL.md.
 *
 * Defaults for a zero field of struct mach_ev5_cfg:
 *   mem_latency     80 cycles  (load-use latency of an access satisfied by memory)
 *   bcache_latency  20 cycles  (load-use latency of an access satisfied by the board cache)
 * Fixed: D-cache hit 2, S-cache hit 8 (21164 HRM ch. 2/4; gcc ev5.md).
 */

struct mach_ev5_cfg { /* zero = defaults documented above */
	uint32_t mem_latency, bcache_latency; /* cycles */
	bool truth; /* record ground truth */
};

struct mach_ev5;
int mach_ev5_new(struct mach_ev5 **out, const struct mach_ev5_cfg *cfg);
void mach_ev5_free(struct mach_ev5 *m);
/* Account one instruction the executor completed, in program order. `ev` is the executor's event
 * (pc, next_pc, ea, is_load/is_store, taken...), `d` its decoded form. */
void mach_ev5_retire(struct mach_ev5 *m, const struct axp_insn *d, const struct axp_event *ev);
/* Memory-system latency for an access the interpreter makes on the sampler's behalf (load-latency
 * observer): probes and updates the cache model like a real access; returns cycles + level. */
/* The kernel ran `cycles` for system call nr after the CALL_PAL just retired; interrupts in
 * that time report pc. True when an interrupt may be due (mach_cpu.h kernel). */
bool mach_ev5_kernel(struct mach_ev5 *m, unsigned int nr, uint64_t pc, uint64_t cycles);
void mach_ev5_access(struct mach_ev5 *m, uint64_t va, unsigned int size, bool store,
		     struct axp_access *acc);
/* PMU: arm counter `event` to overflow after `period` more events (the sampler re-arms each irq);
 * period 0 disables it. */
void mach_ev5_pmu_arm(struct mach_ev5 *m, enum mach_event event, uint64_t period);
/* After each retire: true (and *irq filled, pending cleared) if an interrupt is due now. */
bool mach_ev5_irq_take(struct mach_ev5 *m, struct mach_irq *irq);
uint64_t mach_ev5_cycles(const struct mach_ev5 *m);
uint64_t mach_ev5_count(const struct mach_ev5 *m, enum mach_event event);
/* Ground truth (cfg.truth): write the truth file (format documented in mach_truth.h). */
int mach_ev5_truth_write(struct mach_ev5 *m, const char *path);

#endif /* MACH_EV5_H */
