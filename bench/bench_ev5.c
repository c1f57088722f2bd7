/* bench/bench_ev5.c - the EV5 timing model: DCPI's copy loop against Figure 7, and retire speed. */
#include <stdio.h>

#include "mach_ev5_bench.h"

int main(void)
{
	struct mach_ev5_params p;
	struct mach_ev5_copyloop c;
	const uint64_t bytes = 4u << 20; /* two 4 MB arrays, larger than every cache */

	mach_ev5_params_default(&p);
	if (mach_ev5_bench_copyloop(&p, bytes, &c)) {
		fprintf(stderr, "bench_ev5: the copy-loop replay failed\n");
		return 1;
	}
	mach_ev5_bench_copyloop_print(stdout, &c, bytes);
	return mach_ev5_bench_speed(stdout) ? 1 : 0;
}
