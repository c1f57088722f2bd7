/* bench/bench_decode.c - all 2^32 words through axp_decode()/axp_decode_op() against the reference. */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "interp/decode_ref.h"

/*
 * Usage: bench_decode [FIRST LAST]   opcodes FIRST..LAST (0-63, default all: 2^32 words)
 * Compares every field (tests/interp/decode_ref.h, dref_check()) of every word of those opcodes,
 * prints the first differences, the count per opcode, the words/s, and exits 1 on any difference
 * (2 on a usage error).
 */
#define MAX_PRINT 20

static double cpu_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts); /* CPU time: a shared machine */
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static int parse_opc(const char *s, unsigned int *opc)
{
	char *end;
	unsigned long v = strtoul(s, &end, 0);

	if (*s == '\0' || *end != '\0' || v > 63)
		return -1;
	*opc = (unsigned int)v;
	return 0;
}

int main(int argc, char **argv)
{
	unsigned int first = 0, last = 63, opc;
	uint64_t bad[64] = { 0 }, nbad = 0, words = 0;
	double t0, t;
	char msg[160];

	if (argc == 2 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
		printf("usage: bench_decode [FIRST LAST]\n"
		       "  every word of opcodes FIRST..LAST (default 0 63: all 2^32) through\n"
		       "  axp_decode() and axp_decode_op(), against tests/interp/decode_ref.h\n");
		return 0;
	}
	if (argc != 1 && (argc != 3 || parse_opc(argv[1], &first) || parse_opc(argv[2], &last) ||
			  first > last)) {
		fprintf(stderr, "bench_decode: usage: bench_decode [FIRST LAST] (opcodes 0-63)\n");
		return 2;
	}
	if (dref_init()) {
		fprintf(stderr, "bench_decode: ops.def has more rows per opcode than decode_ref.h "
				"indexes\n");
		return 1;
	}
	t0 = cpu_now();
	for (opc = first; opc <= last; opc++) {
		uint32_t base = (uint32_t)opc << 26, low;

		for (low = 0; low < (1u << 26); low++) {
			if (dref_check(base | low, msg, sizeof(msg))) {
				if (nbad++ < MAX_PRINT)
					printf("  %s\n", msg);
				bad[opc]++;
			}
		}
		words += 1u << 26;
	}
	t = cpu_now() - t0;
	for (opc = first; opc <= last; opc++)
		if (bad[opc])
			printf("  opcode 0x%02x: %llu differ\n", opc, (unsigned long long)bad[opc]);
	printf("decode-sweep: %llu words (opcodes 0x%02x-0x%02x) in %.1f s CPU, %.1f M words/s; "
	       "mismatches %llu (tests/interp/decode_ref.h)\n",
	       (unsigned long long)words, first, last, t, t > 0 ? words / t * 1e-6 : 0.0,
	       (unsigned long long)nbad);
	if (fflush(stdout) || ferror(stdout)) {
		fprintf(stderr, "bench_decode: writing the results failed\n");
		return 1;
	}
	return nbad ? 1 : 0;
}
