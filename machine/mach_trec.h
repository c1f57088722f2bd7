/* machine/mach_trec.h - per-PC truth records and the truth file writer both CPU models share. */
#ifndef MACH_TREC_H
#define MACH_TREC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mach_cpu.h"
#include "mach_kern.h"
#include "mach_truth.h"

/*
 * Private to the machine's CPU models (mach_ev5*, mach_ev6*) and mach_truth.c: the in-memory
 * per-PC records (exec, head cycles and causes, events, edges) of the file's PCS and EDGES
 * sections, and the writer, which a model feeds with its summary and any extra sections.
 */

struct ev5_trec {
	uint64_t pc;
	uint64_t exec, head;
	uint64_t stall[MACH_STALL_NR];
	uint64_t ev[MACH_TEV_NR];
	uint64_t e_to, e_n; /* first non-fall-through successor and its count */
	uint64_t f_n; /* conditional branch fall-through count */
};

struct ev5_slot {
	uint64_t key; /* pc + 1 (0 = empty) or for edges: from + 1 */
	uint64_t aux; /* edges: to */
	uint64_t val; /* record index or edge count */
};

struct ev5_truth {
	struct ev5_slot *tab; /* open addressing, pc -> record index */
	size_t tab_mask, tab_used;
	struct ev5_trec *recs;
	size_t nrecs, cap;
	struct ev5_slot *etab; /* extra edges: (from, to) -> count */
	size_t etab_mask, etab_used;
	uint64_t kcalls[MACH_KERN_NR], kcycles[MACH_KERN_NR]; /* kernel time per system call */
	uint64_t last_pc; /* cache of the last looked-up record */
	size_t last_idx;
	bool failed; /* an allocation failed: the truth is incomplete */
};

/* mach_truth.c */
int ev5_truth_new(struct ev5_truth **out);
void ev5_truth_free(struct ev5_truth *t);
struct ev5_trec *ev5_truth_rec_slow(struct ev5_truth *t, uint64_t pc);
void ev5_truth_edge(struct ev5_truth *t, struct ev5_trec *r, uint64_t from, uint64_t to, bool cond);
/*
 * Add src's records, edges and system-call times into t (the CPUs of a --cpus N run into one
 * truth: what one CPU running all their instructions would have counted). 0 or -ENOMEM.
 */
int ev5_truth_absorb(struct ev5_truth *t, const struct ev5_truth *src);

/* One system call's kernel time (section MACH_TRUTH_SEC_SYSCALLS). */
static inline void mach_trec_kernel(struct ev5_truth *t, unsigned int nr, uint64_t cycles)
{
	if (nr < MACH_KERN_NR) {
		t->kcalls[nr]++;
		t->kcycles[nr] += cycles;
	}
}

static inline struct ev5_trec *ev5_truth_rec(struct ev5_truth *t, uint64_t pc)
{
	if (t->last_pc == pc)
		return &t->recs[t->last_idx];
	return ev5_truth_rec_slow(t, pc);
}

/* What the writer puts in a truth file besides the records (format: mach_truth.h). */
struct mach_truth_xsec { /* an extra section, already encoded */
	uint32_t type, rsz;
	uint64_t n;
	const uint8_t *data;
};

/* Extra sections a writer may add (EV6: pcs, replays, wasted slots, paths; coherence). */
#define MACH_TREC_XSEC_MAX 5

struct mach_truth_out {
	const struct ev5_truth *t;
	uint64_t cycles, insns;
	const uint64_t *stall; /* MACH_STALL_NR */
	const uint64_t *events; /* MACH_EV_NR */
	uint32_t param[MACH_TP_NR];
	uint64_t ext[MACH_TRUTH_NEXT]; /* summary bytes 208.. (version 2) */
	struct mach_truth_xsec xsec[MACH_TREC_XSEC_MAX];
	unsigned int nxsec;
};

/* Write the file atomically (temporary file, fsync, rename): 0 or -errno/-ENOMEM. */
int mach_truth_out_write(const struct mach_truth_out *o, const char *path);
void mach_put32(uint8_t *p, uint32_t v);
void mach_put64(uint8_t *p, uint64_t v);

#endif /* MACH_TREC_H */
