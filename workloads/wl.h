/* workloads/wl.h - small helpers shared by the Alpha test workloads (argument, PRNG, checksum). */
#ifndef WL_H
#define WL_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

/*
 * wl_arg - the optional first argument: a positive count (iterations or size), else @def.
 * A bad argument is a usage error: message on stderr, exit status 2.
 */
static inline long wl_arg(int argc, char **argv, long def)
{
	char *end;
	long v;

	if (argc < 2)
		return def;
	v = strtol(argv[1], &end, 0);
	if (*argv[1] == '\0' || *end != '\0' || v <= 0) {
		fprintf(stderr, "%s: bad count '%s' (want a positive integer; default %ld)\n",
			argv[0], argv[1], def);
		exit(2);
	}
	return v;
}

/* wl_rand - a 64-bit linear congruential generator (Knuth's MMIX constants); top bits used. */
static inline uint64_t wl_rand(uint64_t *state)
{
	*state = *state * 6364136223846793005ULL + 1442695040888963407ULL;
	return *state >> 17;
}

/* wl_mix - fold one 64-bit word into a running checksum (FNV-1a style, word at a time). */
static inline uint64_t wl_mix(uint64_t sum, uint64_t word)
{
	return (sum ^ word) * 1099511628211ULL;
}

#define WL_SUM_INIT 14695981039346656037ULL

#endif /* WL_H */
