/* machine/mach_ptruth.h - exact per-procedure argument, return and caller histograms (truth). */
#ifndef MACH_PTRUTH_H
#define MACH_PTRUTH_H

#include <stdint.h>

#include "axp.h"
#include "mach_vhist.h"

/*
 * Ground truth for the procedure observer (vs_abi.h VS_REC_PROC; `axprof record --proc-truth`):
 * every call (bsr, jsr with a link register: Alpha Architecture Handbook §4.3) whose pc lies in
 * [lo, hi) and every ret there, executed natively or interpreted, adds to exact histograms keyed
 * as the observer keys its hotlists: (entry, ARG, r) for a0-a5 (16-21) and f16-f21 (48-53) as
 * the callee sees them at its first instruction, (entry, CALLER, 26) for the call's own pc, and
 * (ret pc, RET, 0 / 32) for v0 and f0 after the ret. The first MACH_PT_VALUES distinct values of
 * a key are counted exactly, later new ones together as "other". Fed from the sampler glue's
 * fetch hook (machine/mach_sampler.c): an instruction has executed when the next fetch is of
 * another pc.
 */
#define MACH_PT_VALUES MACH_VHIST_VALUES

struct mach_ptruth;

int mach_ptruth_new(struct mach_ptruth **out, uint64_t lo, uint64_t hi);
void mach_ptruth_free(struct mach_ptruth *t);
/* The fetch of va, ctx the registers now (after the previous instruction executed); d is the
 * decoded instruction at va (NULL when it cannot be fetched). */
void mach_ptruth_fetch(struct mach_ptruth *t, const struct axp_ctx *ctx, uint64_t va,
		       const struct axp_insn *d);
/*
 * Write the truth (text; one block per key in increasing (pc, kind, reg) order):
 *   # axprof proc truth 1
 *   proc 0x1200009c0 kind 1 reg 16 n 200000 distinct 1 other 0
 *    0x0 200000
 * kind: 1 argument, 2 return, 3 caller (values: the calling instruction's pc); the values of a
 * block sorted by count (descending, ties by value). -errno from the file system.
 */
int mach_ptruth_write(const struct mach_ptruth *t, const char *path);

#endif /* MACH_PTRUTH_H */
