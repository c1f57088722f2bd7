/* workloads/semiinv.c - loops with planted semi-invariant values, to grade the value profiler. */
/*
 * Value profiling (value-sampling slides, "Goal: Value profiling"): find semi-invariant values, e.g.
 * "a load reads from 0x3c8 95% of the time", "a function is always evaluated at zero". This program
 * plants such values with exactly known shares. Each planted instruction sits in its own out-of-line
 * function (noipa: no inlining, no cloning, so the symbol names below are the real ones), on a source
 * line marked PLANT; workloads/semiinv.planted lists them in machine-readable form (function, line,
 * mnemonic and its occurrence in the function, value, share) and tests/workloads/check-planted.sh
 * checks that file against this source and the binary's line table.
 *
 * Every array has SI_N = 4000 entries; the rare entries sit at shuffled positions (fixed seed), so the
 * shares are exact per pass but the pattern is not periodic. Shares are of the dynamic executions of
 * the instruction. Values are 64-bit results, in hex.
 *
 *   id         function         instruction                   value            share
 *   flag_main  si_scan_flags    ldq flags[i], result          0x3c8            0.95  (3800/4000)
 *   flag_rare  si_scan_flags    ldq flags[i], result          0x1000           0.05  (200/4000)
 *   arg_zero   si_eval          a0 on entry                   0x0              0.98  (3920/4000)
 *   arg_seven  si_eval          a0 on entry                   0x7              0.02  (80/4000)
 *   eval_ret   si_eval          v0 on return                  0xb              0.98  (3920/4000)
 *   arg_load   si_call_eval     ldq args[i], result           0x0              0.98  (3920/4000)
 *   idx_five   si_table_lookup  ldl idx[i], result            0x5              0.80  (3200/4000)
 *   tab_hot    si_table_lookup  ldq table[idx[i]], result     0x55555500       0.80  (3200/4000)
 *   xor_const  si_const_calc    xor d[i] ^ k[i], result       0x2a             1.00  (4000/4000)
 *   ptr_hot    si_deref         1st ldq p[i], result          &si_hot_cell     0.95  (3800/4000)
 *   cell_addr  si_deref         2nd ldq *p[i], address        &si_hot_cell     0.95  (3800/4000)
 *   cell_hot   si_deref         2nd ldq *p[i], result         0x3c8            0.95  (3800/4000)
 *   noise      si_uniform       ldq z[i], result              none: 4000 distinct values, top
 *                                                             share 1/4000; a profiler should
 *                                                             report no value above 0.01
 *
 * The other table entries (idx_five's 800) are spread evenly over indices 0..63 except 5; table[k] =
 * 0x1000 + 0x10 * k for k != 5. si_eval(x) = x * x + 3 * x + 11, so its result is 11 with share 0.98.
 * si_deref's other 200 pointers point into si_cold_cells[0..7].
 *
 * Usage: semiinv [PASSES]   (default 120; a pass runs each function once over 4000 entries, about
 *                            190 K instructions: about 23 M in all)
 * Output: the composition of each array as counted at set-up, then the per-function results; exit 0.
 */
#include <inttypes.h>

#include "wl.h"

#define SI_N 4000
#define SI_TABLE 64
#define SI_NOIPA __attribute__((noipa))

uint64_t si_hot_cell = 0x3c8;
uint64_t si_cold_cells[8] = { 1, 2, 3, 4, 5, 6, 7, 8 };

static uint64_t flags[SI_N], args[SI_N], table[SI_TABLE], data[SI_N], key[SI_N], noise[SI_N];
static uint32_t idx[SI_N];
static uint64_t *ptrs[SI_N];

/* si_scan_flags - sum of @flags[0..@n): the load reads 0x3c8 95% of the time. */
SI_NOIPA uint64_t si_scan_flags(const uint64_t *f, long n);
SI_NOIPA uint64_t si_scan_flags(const uint64_t *f, long n)
{
	uint64_t s = 0;
	long i;

	for (i = 0; i < n; i++)
		s += f[i]; /* PLANT flag_main flag_rare */
	return s;
}

/* si_eval - a polynomial in @x; called with x == 0 98% of the time. */
SI_NOIPA uint64_t si_eval(uint64_t x);
SI_NOIPA uint64_t si_eval(uint64_t x) /* PLANT arg_zero arg_seven */
{
	return x * x + 3 * x + 11; /* PLANT eval_ret */
}

/* si_call_eval - sum of si_eval(@a[i]) over @n arguments. */
SI_NOIPA uint64_t si_call_eval(const uint64_t *a, long n);
SI_NOIPA uint64_t si_call_eval(const uint64_t *a, long n)
{
	uint64_t s = 0;
	long i;

	for (i = 0; i < n; i++)
		s += si_eval(a[i]); /* PLANT arg_load */
	return s;
}

/* si_table_lookup - sum of @t[@ix[i]]: index 5 (value 0x55555500) dominates. */
SI_NOIPA uint64_t si_table_lookup(const uint64_t *t, const uint32_t *ix, long n);
SI_NOIPA uint64_t si_table_lookup(const uint64_t *t, const uint32_t *ix, long n)
{
	uint64_t s = 0;
	long i;

	for (i = 0; i < n; i++)
		s += t[ix[i]]; /* PLANT idx_five tab_hot */
	return s;
}

/* si_const_calc - sum of @d[i] ^ @k[i]; the xor is 0x2a every time (k[i] = d[i] ^ 0x2a). */
SI_NOIPA uint64_t si_const_calc(const uint64_t *d, const uint64_t *k, long n);
SI_NOIPA uint64_t si_const_calc(const uint64_t *d, const uint64_t *k, long n)
{
	uint64_t s = 0;
	long i;

	for (i = 0; i < n; i++)
		s += d[i] ^ k[i]; /* PLANT xor_const */
	return s;
}

/* si_deref - sum of *@p[i]: the pointer load yields &si_hot_cell 95% of the time. */
SI_NOIPA uint64_t si_deref(uint64_t *const *p, long n);
SI_NOIPA uint64_t si_deref(uint64_t *const *p, long n)
{
	uint64_t s = 0;
	long i;

	for (i = 0; i < n; i++)
		s += *p[i]; /* PLANT ptr_hot cell_addr cell_hot */
	return s;
}

/* si_uniform - xor of @z[0..@n): a load with no dominant value (the negative control). */
SI_NOIPA uint64_t si_uniform(const uint64_t *z, long n);
SI_NOIPA uint64_t si_uniform(const uint64_t *z, long n)
{
	uint64_t s = 0;
	long i;

	for (i = 0; i < n; i++)
		s ^= z[i]; /* PLANT noise */
	return s;
}

/* shuffled_mask - mark exactly @rare of @n positions, chosen by a seeded Fisher-Yates shuffle. */
static void shuffled_mask(uint8_t *mark, long n, long rare, uint64_t *seed)
{
	static uint32_t perm[SI_N];
	long i;

	for (i = 0; i < n; i++) {
		perm[i] = (uint32_t)i;
		mark[i] = 0;
	}
	for (i = n - 1; i > 0; i--) {
		long j = (long)(wl_rand(seed) % (uint64_t)(i + 1));
		uint32_t t = perm[i];

		perm[i] = perm[j];
		perm[j] = t;
	}
	for (i = 0; i < rare; i++)
		mark[perm[i]] = 1;
}

static long count_eq(const uint64_t *a, long n, uint64_t v)
{
	long i, c = 0;

	for (i = 0; i < n; i++)
		c += a[i] == v;
	return c;
}

int main(int argc, char **argv)
{
	long passes = wl_arg(argc, argv, 120);
	static uint8_t mark[SI_N];
	uint64_t seed = 2024, r_flags = 0, r_eval = 0, r_table = 0, r_const = 0, r_deref = 0;
	uint64_t r_noise = 0;
	long i, p, k, n5 = 0, nhot = 0, rare = 0;

	shuffled_mask(mark, SI_N, 200, &seed);
	for (i = 0; i < SI_N; i++)
		flags[i] = mark[i] ? 0x1000 : 0x3c8;
	shuffled_mask(mark, SI_N, 80, &seed);
	for (i = 0; i < SI_N; i++)
		args[i] = mark[i] ? 7 : 0;
	for (k = 0; k < SI_TABLE; k++)
		table[k] = k == 5 ? 0x55555500 : 0x1000 + 0x10 * (uint64_t)k;
	shuffled_mask(mark, SI_N, 800, &seed);
	for (i = 0; i < SI_N; i++) {
		if (mark[i]) {
			/* The rare entries cycle through 0..63 skipping 5. */
			k = rare++ % (SI_TABLE - 1);
			idx[i] = (uint32_t)(k < 5 ? k : k + 1);
		} else {
			idx[i] = 5;
		}
		n5 += idx[i] == 5;
	}
	for (i = 0; i < SI_N; i++) {
		data[i] = wl_rand(&seed);
		key[i] = data[i] ^ 0x2a;
		noise[i] = wl_rand(&seed) | ((uint64_t)i << 48); /* distinct */
	}
	shuffled_mask(mark, SI_N, 200, &seed);
	for (i = 0; i < SI_N; i++) {
		ptrs[i] = mark[i] ? &si_cold_cells[i % 8] : &si_hot_cell;
		nhot += ptrs[i] == &si_hot_cell;
	}
	printf("semiinv: n=%d passes=%ld\n", SI_N, passes);
	printf("flags: 0x3c8 x%ld, 0x1000 x%ld\n", count_eq(flags, SI_N, 0x3c8),
	       count_eq(flags, SI_N, 0x1000));
	printf("args: 0 x%ld, 7 x%ld\n", count_eq(args, SI_N, 0), count_eq(args, SI_N, 7));
	printf("idx: 5 x%ld, other x%ld\n", n5, SI_N - n5);
	printf("ptrs: &si_hot_cell x%ld, cold x%ld\n", nhot, SI_N - nhot);

	for (p = 0; p < passes; p++) {
		r_flags += si_scan_flags(flags, SI_N);
		r_eval += si_call_eval(args, SI_N);
		r_table += si_table_lookup(table, idx, SI_N);
		r_const += si_const_calc(data, key, SI_N);
		r_deref += si_deref(ptrs, SI_N);
		r_noise ^= si_uniform(noise, SI_N) + (uint64_t)p;
	}
	printf("si_scan_flags=%" PRIu64 " si_call_eval=%" PRIu64 " si_table_lookup=%" PRIu64 "\n",
	       r_flags, r_eval, r_table);
	printf("si_const_calc=%" PRIu64 " si_deref=%" PRIu64 " si_uniform=%016" PRIx64 "\n",
	       r_const, r_deref, r_noise);
	return 0;
}
