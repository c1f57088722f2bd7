/* workloads/strhash.c - a chained hash table of strings: hashing, strcmp, malloc'd keys. */
/*
 * Words are made from a PRNG (3 to 12 letters from a small alphabet, so many repeat); each is
 * hashed (FNV-1a over bytes: ldq_u/extbl sequences without BWX), looked up in a 1024-bucket
 * chained table (strcmp along the chain) and inserted with a strdup'd key when new, else counted.
 * Short loops over bytes, a data-dependent chain walk and libc string calls.
 *
 * Usage: strhash [WORDS]   (default 20000)
 * Output: words, distinct words, the longest chain and a checksum of the counts; exit status 0.
 */
#include <inttypes.h>
#include <string.h>

#include "wl.h"

#define SH_BUCKETS 1024

struct sh_entry {
	struct sh_entry *next;
	char *key;
	uint64_t count;
};

static struct sh_entry *sh_table[SH_BUCKETS];

static __attribute__((noipa)) uint64_t sh_hash(const char *s)
{
	uint64_t h = 14695981039346656037ULL;

	while (*s)
		h = (h ^ (unsigned char)*s++) * 1099511628211ULL;
	return h;
}

static __attribute__((noipa)) struct sh_entry *sh_lookup(const char *w, int insert)
{
	uint64_t b = sh_hash(w) % SH_BUCKETS;
	struct sh_entry *e;

	for (e = sh_table[b]; e; e = e->next)
		if (!strcmp(e->key, w))
			return e;
	if (!insert)
		return NULL;
	e = malloc(sizeof(*e));
	if (!e || !(e->key = strdup(w))) {
		fprintf(stderr, "strhash: out of memory\n");
		exit(1);
	}
	e->count = 0;
	e->next = sh_table[b];
	sh_table[b] = e;
	return e;
}

static __attribute__((noipa)) void sh_word(uint64_t *seed, char *buf)
{
	int n = 3 + (int)(wl_rand(seed) % 10);

	for (int i = 0; i < n; i++)
		buf[i] = "etaoinshrdlu"[wl_rand(seed) % 12 % (1 + (unsigned int)i % 12)];
	buf[n] = '\0';
}

int main(int argc, char **argv)
{
	long words = wl_arg(argc, argv, 20000);
	uint64_t seed = 7, sum = WL_SUM_INIT;
	long distinct = 0, longest = 0;
	char buf[16];

	for (long i = 0; i < words; i++) {
		struct sh_entry *e;

		sh_word(&seed, buf);
		e = sh_lookup(buf, 1);
		distinct += e->count == 0;
		e->count++;
	}
	for (int b = 0; b < SH_BUCKETS; b++) {
		long len = 0;

		for (struct sh_entry *e = sh_table[b]; e; e = e->next) {
			sum = wl_mix(sum, e->count * (uint64_t)strlen(e->key));
			len++;
		}
		longest = len > longest ? len : longest;
	}
	printf("strhash: words=%ld distinct=%ld longest=%ld sum=%016" PRIx64 "\n", words, distinct,
	       longest, sum);
	return 0;
}
