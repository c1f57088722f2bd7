/* bench/bench_hotlist.c - ns per hotlist_insert on a Zipf stream and on an all-distinct stream. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "hotlist.h"

/*
 * Prints figures only (never asserts on time). The streams are generated before the clock starts;
 * each list is re-initialised every 100000 inserts, so tau keeps climbing through its raises as it
 * does on a fresh per-PC list, rather than settling at one huge value.
 */

enum { N = 1 << 22, RUN = 100000 };

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static uint64_t *make_zipf(double s, unsigned int k, struct hotlist_rng *r)
{
	uint64_t *v = malloc(N * sizeof(*v));
	double *cdf = malloc(k * sizeof(*cdf)), z = 0;
	unsigned int i;

	if (!v || !cdf) {
		fprintf(stderr, "bench_hotlist: out of memory\n");
		exit(1);
	}
	for (i = 0; i < k; i++)
		cdf[i] = (z += pow(i + 1, -s));
	for (i = 0; i < N; i++) {
		double u = (double)(hotlist_rng_next(r) >> 11) * 0x1.0p-53 * z;
		unsigned int lo = 0, hi = k - 1;

		while (lo < hi) {
			unsigned int mid = (lo + hi) / 2;

			if (cdf[mid] > u)
				hi = mid;
			else
				lo = mid + 1;
		}
		v[i] = lo * 0x9e3779b97f4a7c15ULL;
	}
	free(cdf);
	return v;
}

static uint64_t *make_distinct(void)
{
	uint64_t *v = malloc(N * sizeof(*v));
	unsigned int i;

	if (!v) {
		fprintf(stderr, "bench_hotlist: out of memory\n");
		exit(1);
	}
	for (i = 0; i < N; i++)
		v[i] = (i + 1) * 0x9e3779b97f4a7c15ULL;
	return v;
}

static void run(const char *name, const uint64_t *v, unsigned int m)
{
	struct hotlist h;
	struct hotlist_rng r;
	double best = 1e9, t0;
	uint64_t tau_sum = 0, lists = 0;
	int rep;
	unsigned int i;

	for (rep = 0; rep < 5; rep++) {
		hotlist_rng_seed(&r, 1);
		t0 = now();
		for (i = 0; i < N; i++) {
			if (i % RUN == 0) {
				if (i) {
					tau_sum += h.tau;
					lists++;
				}
				hotlist_init(&h, m);
			}
			hotlist_insert(&h, v[i], &r);
		}
		t0 = now() - t0;
		if (t0 < best)
			best = t0;
	}
	printf("bench_hotlist: %-28s m=%-2u %6.1f ns/insert  (mean final tau %.0f per %u inserts)\n",
	       name, m, best * 1e9 / N, lists ? (double)tau_sum / lists : 0, RUN);
}

int main(void)
{
	struct hotlist_rng r;
	uint64_t *z10, *z15, *d;

	hotlist_rng_seed(&r, 7);
	z10 = make_zipf(1.0, 1000, &r);
	z15 = make_zipf(1.5, 1000, &r);
	d = make_distinct();
	run("zipf s=1.0 over 1000", z10, 16);
	run("zipf s=1.5 over 1000", z15, 16);
	run("all distinct", d, 16);
	run("zipf s=1.0 over 1000", z10, 32);
	run("all distinct", d, 32);
	if (fflush(stdout) || ferror(stdout)) {
		perror("bench_hotlist: stdout");
		return 1;
	}
	free(z10);
	free(z15);
	free(d);
	return 0;
}
