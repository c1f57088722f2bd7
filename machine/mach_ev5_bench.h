/* machine/mach_ev5_bench.h - EV5 model benches (copy loop of DCPI Figure 7, retire throughput). */
#ifndef MACH_EV5_BENCH_H
#define MACH_EV5_BENCH_H

#include <stdio.h>

#include "mach_ev5_model.h"

/* Per-instruction results of the copy loop (13 instructions), measured over one warm pass. */
struct mach_ev5_copyloop {
	uint64_t iters;
	double cpi, cycles_per_iter;
	double head[13]; /* head-of-issue cycles per execution */
	double stall[13][MACH_STALL_NR]; /* ... by cause */
};

/* Replay the copy loop over two arrays of `bytes` each with parameters `p`. */
int mach_ev5_bench_copyloop(const struct mach_ev5_params *p, uint64_t bytes,
			    struct mach_ev5_copyloop *out);
/* Print the model's figures next to the paper's Figure 7. */
void mach_ev5_bench_copyloop_print(FILE *f, const struct mach_ev5_copyloop *c, uint64_t bytes);
/* Time mach_ev5_retire() on pre-built streams, truth off and on; prints to `f`. */
int mach_ev5_bench_speed(FILE *f);

#endif /* MACH_EV5_BENCH_H */
