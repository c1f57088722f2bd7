/* workloads/libcheavy.c - a program that spends most of its time in libc routines. */
/*
 * Records are formatted with snprintf, parsed back with strtoul and strchr, sorted with qsort
 * (a comparator called through a pointer), copied with memcpy/memmove, measured with strlen,
 * and bucketed by an unsigned modulo by a variable (no integer divide on Alpha: a call to
 * libc's __remqu, a NOTYPE assembler routine, and its cmpult/bne loop). Most samples land in
 * a shared object the program does not own, in procedures with few samples per block.
 *
 * Usage: libcheavy [ROUNDS]   (default 4; a round handles 2000 records)
 * Output: rounds and checksums; exit status 0.
 */
#include <inttypes.h>
#include <string.h>

#include "wl.h"

#define LH_N 2000

struct lh_rec {
	uint64_t key;
	char text[40];
};

static struct lh_rec lh_v[LH_N];

static int lh_cmp(const void *pa, const void *pb)
{
	const struct lh_rec *a = pa, *b = pb;

	return a->key < b->key ? -1 : a->key > b->key;
}

int main(int argc, char **argv)
{
	long rounds = wl_arg(argc, argv, 4);
	uint64_t seed = 555, sum = WL_SUM_INIT, div = 7;
	uint64_t bucket[13] = { 0 };

	for (long r = 0; r < rounds; r++) {
		for (long i = 0; i < LH_N; i++) {
			uint64_t k = wl_rand(&seed) % 1000003;

			lh_v[i].key = k;
			snprintf(lh_v[i].text, sizeof(lh_v[i].text), "rec %lu:%lx;",
				 (unsigned long)k, (unsigned long)(k * 2654435761u));
		}
		qsort(lh_v, LH_N, sizeof(lh_v[0]), lh_cmp);
		for (long i = 0; i < LH_N; i++) {
			const char *colon = strchr(lh_v[i].text, ':');
			uint64_t k = strtoul(lh_v[i].text + 4, NULL, 10);
			uint64_t h = colon ? strtoul(colon + 1, NULL, 16) : 0;
			char tmp[40];

			memcpy(tmp, lh_v[i].text, sizeof(tmp));
			memmove(tmp + 1, tmp, strlen(tmp) / 2);
			bucket[(k ^ h) % (div + (uint64_t)(i & 3) + 3)]++;
			sum = wl_mix(sum, k + strlen(tmp) + (h % div));
		}
		div = div % 5 + 6;
	}
	for (int b = 0; b < 13; b++)
		sum = wl_mix(sum, bucket[b]);
	printf("libcheavy: rounds=%ld n=%d sum=%016" PRIx64 "\n", rounds, LH_N, sum);
	return 0;
}
