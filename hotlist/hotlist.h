/* hotlist/hotlist.h - Gibbons–Matias counting-sample hotlists: per-PC value summaries. */
#ifndef HOTLIST_H
#define HOTLIST_H

#include "axp_base.h"

/*
 * A hotlist summarises the stream of values one instruction's destination register received
 * (value-sampling slides, slide 14): a Gibbons–Matias counting sample (Gibbons and Matias, "New
 * sampling-based summary statistics...", SIGMOD 1998, §3) with a fixed footprint of m entries <value, count>
 * and an integer threshold tau, starting at 1.
 *
 *  - Insert v: if v is in the list, count++ (every later occurrence is counted exactly);
 *    otherwise admit <v, 1> with probability 1/tau.
 *  - When an admitted value finds the list full, tau is raised to tau' = tau + max(1, tau / 8)
 *    (HOTLIST_RAISE_SHIFT; G&M's own choice of tau' was not retrieved, see refs §1) and every
 *    entry, the new one included, goes through the coin-flip rule: with probability tau/tau' it
 *    is kept unchanged; otherwise its count drops by one and then by one more for every tails of
 *    a coin with P(heads) = 1/tau'; an entry reaching 0 is evicted. This repeats until the new
 *    entry fits or is itself evicted.
 *  - Invariant: for a fixed sequence of thresholds the list is distributed exactly as a direct
 *    counting sample at the current tau: v is present with probability 1 - (1 - 1/tau)^f_v and
 *    its missed count f_v - c_v is geometric (tests/hotlist/test_hotlist.c checks both). Raises
 *    driven by the data make the final tau the smallest level on the tau' ladder whose sample
 *    fits in m, so read against its own final tau a list is slightly small: at m = 16 rare values
 *    are present about 6% less often than the formula says.
 *  - Estimate for an entry with count c: the f with f - E[X | X < f] = c, X the geometric run of
 *    occurrences missed before the value's first heads (hotlist_solve; c + tau - 1 for
 *    f >> tau): E[c | present] = f - E[X | X < f], so it is the method-of-moments estimate, and
 *    unbiased for the frequent values whose shares vprof reports. G&M's ĉ = round(0.418 tau) - 1
 *    ((e - 2)/(e - 1), refs §1) is the compensation for *deciding* which values are hot near the
 *    threshold; as an estimate of a frequent value's count it read low by 0.58 tau (issue 15: a
 *    50% share 2.1 points low at n = 250, z = -38 over 4000 trials).
 *    n, the number of insertions, is exact; shares are estimate / n.
 *
 * All randomness comes from a caller-owned struct hotlist_rng (splitmix64) and all arithmetic is
 * integer: "heads with probability a/b" is below(b) < a, below(b) being the high 64 bits of a
 * 64-bit uniform draw times b (multiply-shift); each outcome's probability is within 2^-64 of 1/b.
 * The long run of 1/tau' coins in a raise is drawn at once, as a geometric variate by inversion in
 * 0.64 fixed point (probabilities within 1e-9 of exact), when it could be longer than
 * HOTLIST_LOOP_MAX flips. No floating point, no allocation, no locks: the kernel sampler calls
 * hotlist_insert() from its interrupt path. Two CPUs must not touch one hotlist at once.
 *
 * Serialized form (hotlist_pack/hotlist_unpack), all integers little-endian, version 2:
 *
 *   OFFSET     SIZE  DESCRIPTION
 *   0          4     magic: the bytes 'A' 'X' 'H' 'L'
 *   4          1     format version, HOTLIST_FORMAT_VERSION (2; 1 is read too)
 *   5          1     m: capacity, HOTLIST_MIN_M .. HOTLIST_MAX_M
 *   6          1     used: number of entries that follow, 0 .. m
 *   7          1     reserved, 0
 *   8          8     tau: threshold, 1 .. HOTLIST_TAU_MAX
 *   16         8     n: insertions summarised (exact)
 *   24         12*u  entries, u = used, in no particular order; each:
 *                      +0  8  value
 *                      +8  4  count, 1 .. n; values distinct; the counts sum to at most n
 *   24+12*u    4     checksum of bytes [0, 24 + 12*u) (hotlist_checksum): version 2 takes
 *                    them as 32-bit little-endian words w, x = (x ^ w) * 0x100000001b3 from
 *                    x = 0xcbf29ce484222325 (64-bit FNV-1a's constants, a word a step), then
 *                    folds x ^ (x >> 32) to 32 bits; version 1 took 32-bit FNV-1a byte by byte
 *                    (hotlist_checksum_v1), four times the dependent multiplies: the daemon's
 *                    merge spent a fifth of its time there
 *
 * Total size HOTLIST_PACKED_SIZE(used) = 28 + 12*used bytes, at most HOTLIST_PACKED_MAX.
 * hotlist_unpack() checks every field, never reads past len, and reads only that many bytes:
 * trailing bytes belong to the caller.
 */

#define HOTLIST_MAX_M 32 /* compile-time maximum capacity */
#define HOTLIST_MIN_M 4 /* smallest capacity hotlist_init() accepts */
#define HOTLIST_RAISE_SHIFT 3 /* tau' = tau + max(1, tau >> HOTLIST_RAISE_SHIFT) */
#define HOTLIST_TAU_MAX (1ULL << 40) /* tau saturates here (never reached in practice) */
#define HOTLIST_LOOP_MAX 32 /* longest run of 1/tau' coin flips done one by one */

#define HOTLIST_FORMAT_VERSION 2
#define HOTLIST_HEADER_SIZE 24
#define HOTLIST_ENTRY_SIZE 12
#define HOTLIST_PACKED_SIZE(used) (HOTLIST_HEADER_SIZE + HOTLIST_ENTRY_SIZE * (used) + 4)
#define HOTLIST_PACKED_MAX HOTLIST_PACKED_SIZE(HOTLIST_MAX_M)

/* The caller-provided PRNG: splitmix64 (Steele, Lea, Flood, OOPSLA 2014). Any seed is good. */
struct hotlist_rng {
	uint64_t s; /* state; advances by the golden-ratio increment each draw */
};

struct hotlist {
	uint64_t tau; /* threshold: an absent value is admitted with probability 1/tau */
	uint64_t n; /* insertions summarised, exact (merges add) */
	uint32_t m; /* capacity of this instance, HOTLIST_MIN_M .. HOTLIST_MAX_M */
	uint32_t used; /* entries in use, value[0..used) and count[0..used) */
	uint64_t value[HOTLIST_MAX_M]; /* distinct values; kept apart from the counts so the */
	uint32_t count[HOTLIST_MAX_M]; /* lookup scans one dense array; counts >= 1, saturating */
};

/* One reported entry (hotlist_top). */
struct hotlist_item {
	uint64_t value;
	uint64_t estimate; /* hotlist_estimate: count and its missed run, at most n */
	uint32_t count; /* occurrences counted since the value was admitted */
	uint32_t share_ppm; /* estimate / n in parts per million */
};

static inline void hotlist_rng_seed(struct hotlist_rng *r, uint64_t seed)
{
	r->s = seed;
}

static inline uint64_t hotlist_rng_next(struct hotlist_rng *r)
{
	uint64_t z = (r->s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* Uniform in [0, b) for b >= 1 by multiply-shift (Lemire 2019); bias below 2^-64 per outcome. */
static inline uint64_t hotlist_rng_below(struct hotlist_rng *r, uint64_t b)
{
	return (uint64_t)(((unsigned __int128)hotlist_rng_next(r) * b) >> 64);
}

/* Make h empty with capacity m (HOTLIST_MIN_M..HOTLIST_MAX_M) and tau = 1; -EINVAL otherwise. */
int hotlist_init(struct hotlist *h, unsigned int m);

/*
 * The same empty list without clearing the arrays: nothing reads value[] or count[] at or
 * beyond used, so a list whose memory is reused (an evicted observer slot) needs only its
 * header set. hotlist_init() also zeroes the arrays (~400 bytes) for callers that copy or
 * compare the whole struct.
 */
int hotlist_reset(struct hotlist *h, unsigned int m);

/* Count one occurrence of value (the interrupt path: no allocation, bounded work). */
void hotlist_insert(struct hotlist *h, uint64_t value, struct hotlist_rng *rng);

/*
 * The insertion's commonest case inline: when value is the list's head (the transpose heuristic
 * moves the most frequent value there) count it, as hotlist_insert() would, and return true;
 * otherwise change nothing and return false (the caller then calls hotlist_insert()).
 */
static inline __attribute__((__always_inline__)) bool hotlist_count_head(struct hotlist *h,
									 uint64_t value)
{
	if (!h->used || h->value[0] != value)
		return false;
	h->n++;
	if (h->count[0] < UINT32_MAX)
		h->count[0]++;
	return true;
}

/* hotlist_insert() of a value the caller knows is not in the list: the same, without the scan. */
void hotlist_insert_absent(struct hotlist *h, uint64_t value, struct hotlist_rng *rng);

/*
 * Raise tau to tau2 (tau <= tau2 <= HOTLIST_TAU_MAX) by the coin-flip rule, evicting entries that
 * reach 0. 0, or -EINVAL (h unchanged) when tau2 is out of range.
 */
int hotlist_raise(struct hotlist *h, uint64_t tau2, struct hotlist_rng *rng);

/*
 * Add src into dst (another CPU or epoch of the same value stream): the list with the lower tau is
 * raised to the higher by the coin-flip rule, equal values add their counts, n adds, and tau rises
 * further while the union does not fit dst's capacity. src is not modified. See hotlist.c for what
 * this preserves of the counting-sample property.
 */
void hotlist_merge(struct hotlist *dst, const struct hotlist *src, struct hotlist_rng *rng);

/* E[X | X < f]: the mean run of occurrences a present value with f occurrences missed before it
 * was admitted at threshold tau (X geometric with P(heads) = 1/tau); 0 for tau <= 1. */
uint64_t hotlist_missed_mean(uint64_t tau, uint64_t f);

/* The f whose expected count when present is c: f - hotlist_missed_mean(tau, f) = c. */
uint64_t hotlist_solve(uint64_t tau, uint64_t c);

/* Estimated occurrences of entry i: hotlist_solve(tau, count[i]), capped at n; 0 for i >= used. */
uint64_t hotlist_estimate(const struct hotlist *h, unsigned int i);

/* estimate / n in parts per million (0 when n is 0), at most 1000000. */
uint32_t hotlist_share_ppm(const struct hotlist *h, uint64_t estimate);

/*
 * Write the k entries with the largest estimates to out[], descending (ties: smaller value
 * first). Returns how many were written: min(k, used).
 */
unsigned int hotlist_top(const struct hotlist *h, struct hotlist_item *out, unsigned int k);

/* 0 if h satisfies every invariant the serialized form checks, else -EBADMSG (*why says which). */
int hotlist_validate(const struct hotlist *h, const char **why);

/* The serialized form's checksum (version 2, above) of len bytes, len a multiple of 4. */
uint32_t hotlist_checksum(const void *buf, size_t len);

/* Version 1's checksum, FNV-1a 32 bits byte by byte (read for databases written before). */
uint32_t hotlist_checksum_v1(const void *buf, size_t len);

/* Serialize h into buf: returns the bytes written, or -ENOSPC if len is too small. */
int hotlist_pack(const struct hotlist *h, void *buf, size_t len);

/*
 * Parse a serialized hotlist from buf[0..len): returns the bytes consumed, or -EBADMSG (h left
 * unchanged) on any damage. hotlist_unpack_why() also names the failed check (may be NULL).
 */
int hotlist_unpack(struct hotlist *h, const void *buf, size_t len);
int hotlist_unpack_why(struct hotlist *h, const void *buf, size_t len, const char **why);

/*
 * Decode bytes that hotlist_unpack() has already accepted and that have not changed since (e.g.
 * a record the reader checked whole before using it): the same result without the second
 * checksum and validation. Never for bytes that were not checked.
 */
void hotlist_unpack_checked(struct hotlist *h, const void *buf);

#endif /* HOTLIST_H */
