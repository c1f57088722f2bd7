/* machine/mach_atruth.h - exact per-load address and stride histograms (truth). */
#ifndef MACH_ATRUTH_H
#define MACH_ATRUTH_H

#include <stdint.h>

#include "mach_vhist.h"

/*
 * Ground truth for the address observer (vs_abi.h VS_REC_ADDR; `axprof record --addr-truth`):
 * every load whose pc lies in [lo, hi), executed natively or interpreted, adds its effective
 * address to the exact address histogram of its pc and, from its second execution on, its
 * stride (this address minus the address of the same pc's previous execution, mod 2^64) to the
 * stride histogram. (The observer takes strides within one interpretation only; over a loop the
 * two agree, except for the stride from one interpretation's run of the loop to the next.) The
 * first MACH_AT_VALUES distinct values of each histogram are counted exactly, later new ones
 * together as "other". One process: the recorder's own (its pcs).
 */
#define MACH_AT_VALUES MACH_VHIST_VALUES

struct mach_atruth;

int mach_atruth_new(struct mach_atruth **out, uint64_t lo, uint64_t hi);
void mach_atruth_free(struct mach_atruth *t);
/* A load at pc (a multiple of 4) read address ea (pcs outside [lo, hi) are ignored). */
void mach_atruth_load(struct mach_atruth *t, uint64_t pc, uint64_t ea);
/*
 * Write the truth (text; one block per load in increasing pc order):
 *   # axprof addr truth 1
 *   load 0x120000a40 n 200000 distinct 1 other 0 strides 199999 sdistinct 1 sother 0
 *    ea 0x140010000 200000
 *    stride 0 199999
 * each block's ea lines, then its stride lines (strides signed decimal), each sorted by count
 * (descending, ties by value). -errno from the file system.
 */
int mach_atruth_write(const struct mach_atruth *t, const char *path);

#endif /* MACH_ATRUTH_H */
