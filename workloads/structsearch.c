/* workloads/structsearch.c - linear search over an array of structs: key compare, early exit. */
/*
 * A table of 2000 records, each 32 bytes (key, flags, payload, tag), filled with distinct keys in a
 * shuffled order. Each query walks the table from the start comparing keys and stops at the first
 * match (early exit); about 1 query in 8 asks for a key that is absent and scans the whole table. The
 * search loop is load, compare, branch: the branch is taken rarely and the exit point varies.
 *
 * Usage: structsearch [QUERIES]   (default 3000; about 8 instructions per record compared, 1100
 *                                  compared per query on average: about 28 M instructions in all)
 * Output: queries, hits, misses, the sum of payloads found and the total records examined; exit 0.
 */
#include <inttypes.h>

#include "wl.h"

#define SS_RECORDS 2000

struct ss_record {
	uint32_t key; /* unique, nonzero */
	uint32_t flags; /* low bit: record is live */
	uint64_t payload; /* returned on a hit */
	char tag[16]; /* filler, as real records carry */
};

/*
 * ss_find - index of the first live record in @tab[0..@n) whose key is @key, or -1. Counts the records
 * examined in *@examined.
 */
static __attribute__((noipa)) long ss_find(const struct ss_record *tab, long n, uint32_t key,
					   long *examined)
{
	long i;

	for (i = 0; i < n; i++) {
		if (tab[i].key == key && (tab[i].flags & 1)) {
			*examined += i + 1;
			return i;
		}
	}
	*examined += n;
	return -1;
}

int main(int argc, char **argv)
{
	long queries = wl_arg(argc, argv, 3000);
	static struct ss_record tab[SS_RECORDS];
	uint64_t seed = 12345, payload_sum = 0;
	long i, hits = 0, misses = 0, examined = 0;

	for (i = 0; i < SS_RECORDS; i++) {
		tab[i].key = (uint32_t)(i * 2 + 1); /* odd keys; even keys are never present */
		tab[i].flags = 1;
		tab[i].payload = wl_rand(&seed);
		snprintf(tab[i].tag, sizeof(tab[i].tag), "rec%ld", i);
	}
	/* Fisher-Yates shuffle so key order and position are unrelated. */
	for (i = SS_RECORDS - 1; i > 0; i--) {
		long j = (long)(wl_rand(&seed) % (uint64_t)(i + 1));
		struct ss_record t = tab[i];

		tab[i] = tab[j];
		tab[j] = t;
	}
	for (i = 0; i < queries; i++) {
		uint64_t r = wl_rand(&seed);
		uint32_t key = (uint32_t)((r >> 3) % SS_RECORDS) * 2 + 1;
		long at;

		if ((r & 7) == 0)
			key += 1; /* absent */
		at = ss_find(tab, SS_RECORDS, key, &examined);
		if (at >= 0) {
			hits++;
			payload_sum += tab[at].payload;
		} else {
			misses++;
		}
	}
	printf("structsearch: records=%d queries=%ld hits=%ld misses=%ld payload_sum=%016" PRIx64
	       " examined=%ld\n",
	       SS_RECORDS, queries, hits, misses, payload_sum, examined);
	return 0;
}
