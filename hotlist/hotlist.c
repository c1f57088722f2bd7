/* hotlist/hotlist.c - Gibbons–Matias counting-sample hotlists: insert, raise, merge, estimate. */
#include "axp_base.h"
#include "hotlist.h"

/*
 * The algorithm is G&M's counting sample (Gibbons and Matias, SIGMOD 1998, §3: insertion with
 * probability 1/tau, threshold raise by coin tosses); hotlist.h states the rules and the format.
 */

_Static_assert(HOTLIST_MAX_M <= 255, "m and used are one byte in the serialized form");
_Static_assert(HOTLIST_MIN_M >= 1 && HOTLIST_MIN_M <= HOTLIST_MAX_M, "capacity bounds");
_Static_assert(HOTLIST_LOOP_MAX >= 1, "the geometric path needs a count of at least 2");

/* Powers q^(2^k) of q = 1 - 1/tau2 in 0.64 fixed point, filled as the geometric path needs them. */
struct geo {
	uint64_t tau2; /* the threshold the table is for; 0 = empty */
	unsigned int levels; /* pw[0..levels) are valid */
	uint64_t pw[32]; /* pw[k] = q^(2^k) * 2^64, truncated */
};

/* Empty the table without clearing pw[] (no memset on the interrupt path). */
static inline void geo_init(struct geo *g)
{
	g->tau2 = 0;
	g->levels = 0;
}

static inline uint64_t mulhi(uint64_t a, uint64_t b)
{
	return (uint64_t)(((unsigned __int128)a * b) >> 64);
}

static unsigned int bit_length(uint32_t x)
{
	unsigned int k = 0;

	while (x) {
		k++;
		x >>= 1;
	}
	return k;
}

/*
 * min(G, cap) for G ~ Geometric(1/tau2), the number of tails before the first heads of a coin with
 * P(heads) = 1/tau2, by inversion: P(G >= g) = q^g, so G is the largest g with u < q^g for a
 * uniform u, found bit by bit from the top (binary lifting on the q^(2^k) table). Each
 * probability is a product of at most 32 truncated 0.64 fixed-point factors, the largest
 * power amplifying q's rounding 2^31 times: every P(G >= g) is within 1e-9 of q^g.
 */
static uint32_t geometric_capped(struct geo *g, uint64_t tau2, struct hotlist_rng *rng,
				 uint32_t cap)
{
	unsigned int levels = bit_length(cap), k;
	uint64_t u, acc = UINT64_MAX;
	uint32_t skip = 0;

	if (g->tau2 != tau2) {
		g->tau2 = tau2;
		g->pw[0] = UINT64_MAX - UINT64_MAX / tau2;
		g->levels = 1;
	}
	while (g->levels < levels) {
		g->pw[g->levels] = mulhi(g->pw[g->levels - 1], g->pw[g->levels - 1]);
		g->levels++;
	}
	u = hotlist_rng_next(rng);
	for (k = levels; k-- > 0;) {
		uint64_t t = mulhi(acc, g->pw[k]);

		if (u < t) {
			acc = t;
			skip += (uint32_t)1 << k;
		}
	}
	return skip < cap ? skip : cap;
}

/*
 * The coin-flip rule for raising tau to tau2 (refs §1, after Cheung's counting-sample notes):
 * the first coin has P(heads) = tau/tau2 and heads keeps c; on tails c drops by one and then by
 * one more per tails of a coin with P(heads) = 1/tau2, stopping at the first heads or at 0.
 * Returns the new count; 0 means evict.
 */
static uint32_t thin(uint32_t c, uint64_t tau, uint64_t tau2, struct hotlist_rng *rng,
		     struct geo *g)
{
	if (hotlist_rng_below(rng, tau2) < tau)
		return c;
	c--;
	if (c <= HOTLIST_LOOP_MAX || tau2 <= HOTLIST_LOOP_MAX) {
		/* Expected flips at most min(c, tau2): cheap enough one by one. */
		while (c > 0 && hotlist_rng_below(rng, tau2) != 0)
			c--;
		return c;
	}
	return c - geometric_capped(g, tau2, rng, c);
}

static uint64_t next_tau(uint64_t tau)
{
	uint64_t step = tau >> HOTLIST_RAISE_SHIFT;
	uint64_t t = tau + (step ? step : 1);

	return t < HOTLIST_TAU_MAX ? t : HOTLIST_TAU_MAX;
}

/* Apply the coin-flip rule to every entry, evict zeros (keeping the order), set tau = tau2. */
static void raise_entries(struct hotlist *h, uint64_t tau2, struct hotlist_rng *rng, struct geo *g)
{
	unsigned int i, j = 0;

	for (i = 0; i < h->used; i++) {
		uint32_t c = thin(h->count[i], h->tau, tau2, rng, g);

		if (c == 0)
			continue;
		h->value[j] = h->value[i];
		h->count[j] = c;
		j++;
	}
	h->used = j;
	h->tau = tau2;
}

/* The first index holding value, or -1. Four entries a step (one branch for the four): an
 * absent value scans the whole list, the insertion path's commonest case once tau > 1. */
static inline __attribute__((__always_inline__)) int find_inline(const struct hotlist *h,
								 uint64_t value)
{
	unsigned int i = 0, used = h->used;
	const uint64_t *v = h->value;

	for (; i + 4 <= used; i += 4)
		if ((v[i] == value) | (v[i + 1] == value) | (v[i + 2] == value) |
		    (v[i + 3] == value))
			break;
	for (; i < used; i++)
		if (v[i] == value)
			return (int)i;
	return -1;
}

static int find(const struct hotlist *h, uint64_t value)
{
	return find_inline(h, value);
}

static uint32_t add_sat(uint32_t a, uint32_t b)
{
	return a > UINT32_MAX - b ? UINT32_MAX : a + b;
}

/*
 * Admit <value, c> (already in the sample at the current tau). While the list is full the pending
 * entry is the (m+1)-th entry of G&M's footprint rule: raise tau, thinning the pending count along
 * with the others, until it fits or is itself evicted. At HOTLIST_TAU_MAX tau cannot rise and the
 * value is dropped (admission probability 2^-40: it does not happen).
 */
static void admit(struct hotlist *h, uint64_t value, uint32_t c, struct hotlist_rng *rng)
{
	struct geo g;

	geo_init(&g);
	while (h->used >= h->m) {
		uint64_t tau2;

		if (h->tau >= HOTLIST_TAU_MAX)
			return;
		tau2 = next_tau(h->tau);
		c = thin(c, h->tau, tau2, rng, &g);
		raise_entries(h, tau2, rng, &g);
		if (c == 0)
			return;
	}
	h->value[h->used] = value;
	h->count[h->used] = c;
	h->used++;
}

int hotlist_init(struct hotlist *h, unsigned int m)
{
	if (m < HOTLIST_MIN_M || m > HOTLIST_MAX_M)
		return -EINVAL;
	memset(h, 0, sizeof(*h));
	return hotlist_reset(h, m);
}

int hotlist_reset(struct hotlist *h, unsigned int m)
{
	if (m < HOTLIST_MIN_M || m > HOTLIST_MAX_M)
		return -EINVAL;
	h->tau = 1;
	h->n = 0;
	h->m = m;
	h->used = 0;
	return 0;
}

void hotlist_insert(struct hotlist *h, uint64_t value, struct hotlist_rng *rng)
{
	int i = find(h, value);
	uint32_t c;

	if (i < 0) {
		hotlist_insert_absent(h, value, rng);
		return;
	}
	h->n++;
	c = h->count[i];
	if (c < UINT32_MAX)
		h->count[i] = ++c;
	/* Transpose heuristic: frequent values drift to the front of the scan. */
	if (i > 0 && c > h->count[i - 1]) {
		h->count[i] = h->count[i - 1];
		h->count[i - 1] = c;
		h->value[i] = h->value[i - 1];
		h->value[i - 1] = value;
	}
}

void hotlist_insert_absent(struct hotlist *h, uint64_t value, struct hotlist_rng *rng)
{
	h->n++;
	if (h->tau > 1 && hotlist_rng_below(rng, h->tau) != 0)
		return;
	admit(h, value, 1, rng);
}

int hotlist_raise(struct hotlist *h, uint64_t tau2, struct hotlist_rng *rng)
{
	struct geo g;

	if (tau2 < h->tau || tau2 > HOTLIST_TAU_MAX)
		return -EINVAL;
	geo_init(&g);
	if (tau2 > h->tau)
		raise_entries(h, tau2, rng, &g);
	return 0;
}

/*
 * Merge. Raising the lower-tau list to the higher tau* makes both counting samples at tau* of
 * their own streams (raising composes: tau -> tau* in one step has the same law as any chain of
 * raises, which tests/hotlist checks for 3 -> 7). For the union:
 *  - presence is exact: v is absent iff every one of its f_A + f_B coins at tau* came up tails,
 *    probability (1 - 1/tau*)^(f_A + f_B), as for a counting sample of the whole stream;
 *  - counts: a counting sample of the concatenated stream would count all of B's occurrences
 *    once v was admitted in A, but c_B misses B's occurrences before B's own first heads, a
 *    geometric run cut off at f_B. So a value present in both gets c_A + c_B + E[X | X < f_B],
 *    f_B estimated from c_B (hotlist_solve): its expected missed count is then one run, as for a
 *    single list. Uncompensated, a value present in k merged parts read low by about
 *    (k - 1)(tau* - 1): over 5 merged parts a 50% value's share read 5.9 points low, 4000
 *    trials, z = -73 (issue 15); tests/hotlist/test_hotlist_bias.c checks the compensated merge.
 *    The run is added only as far as the counts stay within n (the serialized form's
 *    invariant), which only a list of a few insertions can reach;
 *  - further raises when the union overflows dst's capacity are the ordinary rule.
 * src's entries are thinned one at a time from src->tau straight to dst's current tau, which may
 * have risen meanwhile (again by composition). src == dst is allowed (a snapshot is read).
 */
/*
 * Each value of both[] still in h gets the run its src part missed: E[X | X < f_B] at the
 * threshold the two counts were summed at, with f_B estimated from its src count
 * (hotlist_solve), added only while the counts stay within n. A raise after the sum grows one
 * missed run, the one the summed count already carries, not this one: so not the final tau.
 */
static void add_missed_runs(struct hotlist *h, const uint64_t *both, const uint32_t *both_c,
			    const uint64_t *both_tau, unsigned int nboth)
{
	uint64_t sum = 0, slack;
	unsigned int i;

	for (i = 0; i < h->used; i++)
		sum += h->count[i];
	slack = h->n > sum ? h->n - sum : 0;
	for (i = 0; i < nboth && slack; i++) {
		int j = find(h, both[i]);
		uint64_t t = both_tau[i];
		uint64_t add = hotlist_missed_mean(t, hotlist_solve(t, both_c[i]));

		if (j < 0)
			continue; /* evicted by a raise after it was added */
		if (add > slack)
			add = slack;
		if (add > UINT32_MAX - h->count[j])
			add = UINT32_MAX - h->count[j];
		h->count[j] += (uint32_t)add;
		slack -= add;
	}
}

void hotlist_merge(struct hotlist *dst, const struct hotlist *src, struct hotlist_rng *rng)
{
	uint64_t both[HOTLIST_MAX_M]; /* values present in dst and in src */
	uint32_t both_c[HOTLIST_MAX_M]; /* their (thinned) counts in src */
	uint64_t both_tau[HOTLIST_MAX_M]; /* the threshold they were summed at */
	unsigned int i, nboth = 0;
	struct hotlist copy;
	struct geo g;

	if (src == dst) { /* merging a list with itself: read from a snapshot */
		copy = *src;
		src = &copy;
	}
	geo_init(&g);
	if (src->tau > dst->tau)
		raise_entries(dst, src->tau < HOTLIST_TAU_MAX ? src->tau : HOTLIST_TAU_MAX, rng,
			      &g);
	for (i = 0; i < src->used; i++) {
		uint32_t c = src->count[i];
		int j;

		if (src->tau < dst->tau)
			c = thin(c, src->tau, dst->tau, rng, &g);
		if (c == 0)
			continue;
		j = find_inline(dst, src->value[i]); /* the merge's commonest step: no call */
		if (j >= 0) {
			dst->count[j] = add_sat(dst->count[j], c);
			both_c[nboth] = c;
			both_tau[nboth] = dst->tau;
			both[nboth++] = src->value[i];
		} else {
			admit(dst, src->value[i], c, rng);
		}
	}
	dst->n = dst->n > UINT64_MAX - src->n ? UINT64_MAX : dst->n + src->n;
	add_missed_runs(dst, both, both_c, both_tau, nboth);
}

/*
 * floor((hi:lo) / d) for hi < d (so the quotient fits in 64 bits): schoolbook division of the
 * two 64-bit digits in base 2^32 after normalising d (Knuth, TAOCP vol. 2, 4.3.1 Algorithm D with
 * n = 2). Only 64-bit divisions by a 32-bit divisor (on Alpha the kernel's __divqu; no
 * __int128 division, which would need a libgcc call the core must not make).
 */
static uint64_t div128(uint64_t hi, uint64_t lo, uint64_t d)
{
	const uint64_t b = 1ull << 32;
	uint64_t d1, d0, l1, l0, q1, q0, rhat, un;
	unsigned int s = 0;

	for (unsigned int k = 32; k; k >>= 1) { /* s = leading zeros of d, by halving */
		if (!(d >> (64 - k))) {
			d <<= k;
			s += k;
		}
	}
	if (s) {
		hi = (hi << s) | (lo >> (64 - s));
		lo <<= s;
	}
	d1 = d >> 32;
	d0 = d & 0xffffffffu;
	l1 = lo >> 32;
	l0 = lo & 0xffffffffu;

	q1 = hi / d1; /* first digit: estimate from the top digits, then correct (at most twice) */
	rhat = hi - q1 * d1;
	while (q1 >= b || q1 * d0 > ((rhat << 32) | l1)) {
		q1--;
		rhat += d1;
		if (rhat >= b)
			break;
	}
	un = ((hi << 32) | l1) - q1 * d; /* the partial remainder, < d */

	q0 = un / d1; /* second digit, likewise */
	rhat = un - q0 * d1;
	while (q0 >= b || q0 * d0 > ((rhat << 32) | l0)) {
		q0--;
		rhat += d1;
		if (rhat >= b)
			break;
	}
	return (q1 << 32) | q0;
}

/* floor(a * b / d) for d > 0, saturating at UINT64_MAX: a 128-bit product, then div128. */
static uint64_t muldiv(uint64_t a, uint64_t b, uint64_t d)
{
	unsigned __int128 n = (unsigned __int128)a * b;
	uint64_t hi = (uint64_t)(n >> 64), lo = (uint64_t)n;

	if (hi >= d)
		return UINT64_MAX; /* the quotient needs more than 64 bits */
	return div128(hi, lo, d);
}

/* q^f in 0.64 fixed point, q = 1 - 1/tau (tau >= 2), by squaring. */
static uint64_t pow_q(uint64_t tau, uint64_t f)
{
	uint64_t base = UINT64_MAX - UINT64_MAX / tau, r = UINT64_MAX;

	while (f && r) {
		if (f & 1)
			r = mulhi(r, base);
		base = mulhi(base, base);
		f >>= 1;
	}
	return r;
}

/*
 * E[X | X < f] for X geometric (tails before the first heads, P(heads) = 1/tau): the mean run a
 * value with f occurrences missed, given that it is present, (tau - 1) - f q^f / (1 - q^f). For
 * f >= 48 tau, q^f < e^-48: tau - 1 to within one count.
 */
uint64_t hotlist_missed_mean(uint64_t tau, uint64_t f)
{
	uint64_t qf, cut;

	if (tau <= 1 || f <= 1)
		return 0;
	if (f / 48 >= tau)
		return tau - 1;
	qf = pow_q(tau, f);
	if (qf == UINT64_MAX)
		return 0; /* q^f rounds to 1: f << tau, and the run is at most f - 1 */
	cut = (muldiv(2 * f, qf, UINT64_MAX - qf) + 1) / 2; /* f q^f / (1 - q^f), rounded */
	return cut >= tau - 1 ? 0 : tau - 1 - cut;
}

/*
 * The estimate of a present value's occurrences from its count c: the f with
 * f - E[X | X < f] = c (the method of moments: E[c | present] = f - E[X | X < f]). For f >> tau
 * it is c + tau - 1; for a value a few tau frequent, less. f - E[X | X < f] grows with f, so the
 * iteration f <- c + E[X | X < f] from c + tau - 1 comes down to it (a few steps).
 */
uint64_t hotlist_solve(uint64_t tau, uint64_t c)
{
	uint64_t f = tau > 1 ? c + tau - 1 : c, g;

	for (int i = 0; i < 64 && tau > 1; i++) {
		g = c + hotlist_missed_mean(tau, f);
		if (g == f)
			break;
		f = g;
	}
	return f;
}

uint64_t hotlist_estimate(const struct hotlist *h, unsigned int i)
{
	uint64_t e;

	if (i >= h->used)
		return 0;
	e = hotlist_solve(h->tau, h->count[i]);
	return e < h->n ? e : h->n;
}

uint32_t hotlist_share_ppm(const struct hotlist *h, uint64_t estimate)
{
	if (h->n == 0)
		return 0;
	if (estimate >= h->n)
		return 1000000;
	if (estimate <= UINT64_MAX / 1000000)
		return (uint32_t)(estimate * 1000000 / h->n);
	return (uint32_t)(estimate / (h->n / 1000000));
}

static bool ranks_before(const struct hotlist *h, unsigned int a, unsigned int b)
{
	if (h->count[a] != h->count[b])
		return h->count[a] > h->count[b];
	return h->value[a] < h->value[b];
}

unsigned int hotlist_top(const struct hotlist *h, struct hotlist_item *out, unsigned int k)
{
	uint8_t idx[HOTLIST_MAX_M];
	unsigned int i, j, used = h->used <= HOTLIST_MAX_M ? h->used : HOTLIST_MAX_M;

	/* Insertion sort of at most 32 indices; the estimate grows with the count, so counts order estimates. */
	for (i = 0; i < used; i++) {
		for (j = i; j > 0 && ranks_before(h, i, idx[j - 1]); j--)
			idx[j] = idx[j - 1];
		idx[j] = (uint8_t)i;
	}
	if (k > used)
		k = used;
	for (i = 0; i < k; i++) {
		out[i].value = h->value[idx[i]];
		out[i].count = h->count[idx[i]];
		out[i].estimate = hotlist_estimate(h, idx[i]);
		out[i].share_ppm = hotlist_share_ppm(h, out[i].estimate);
	}
	return k;
}

/* Corrupt or inconsistent input: say which check failed (with its line) and return -EBADMSG. */
#define STR_(x) #x
#define STR(x) STR_(x)
#define HOTLIST_CORRUPT(why, text) (*(why) = "hotlist.c:" STR(__LINE__) ": " text, -EBADMSG)

uint32_t hotlist_checksum_v1(const void *buf, size_t len)
{
	const uint8_t *p = buf;
	uint32_t x = 2166136261u;
	size_t i;

	for (i = 0; i < len; i++)
		x = (x ^ p[i]) * 16777619u;
	return x;
}

static void put_le(uint8_t *p, uint64_t x, unsigned int size)
{
	unsigned int i;

	for (i = 0; i < size; i++)
		p[i] = (uint8_t)(x >> (8 * i));
}

/*
 * put_le() of 8 and 4 bytes: on a little-endian host one unaligned store (the byte loop cost
 * hotlist_pack() ~290 host instructions per evicted list, more on an Alpha without BWX, where
 * each byte store is a read-modify-write of its quadword). The test is a constant.
 */
static inline __attribute__((__always_inline__)) void put_le64(uint8_t *p, uint64_t x)
{
	if (__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__)
		__builtin_memcpy(p, &x, 8);
	else
		put_le(p, x, 8);
}

static inline __attribute__((__always_inline__)) void put_le32(uint8_t *p, uint32_t x)
{
	if (__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__)
		__builtin_memcpy(p, &x, 4);
	else
		put_le(p, x, 4);
}

/* Little-endian loads written out, which compilers turn into one load on a little-endian host. */
static inline uint32_t get_le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static inline uint64_t get_le64(const uint8_t *p)
{
	return (uint64_t)get_le32(p) | (uint64_t)get_le32(p + 4) << 32;
}

/*
 * The invariants hotlist_validate() checks, over a list's fields: m, used, tau, n and its entries,
 * either a struct hotlist's arrays (packed false: value i at values[i], count i at counts[i]) or
 * a serialized list's entries (packed true: value i little-endian at values + 12 i, count i at
 * counts + 12 i), so that hotlist_unpack() checks the bytes before decoding them once, and both
 * check alike. Inlined with packed a constant.
 */
static inline __attribute__((__always_inline__)) int
check_fields(uint32_t m, uint32_t used, uint64_t tau, uint64_t n, const void *values,
	     const void *counts, bool packed, const char **why)
{
	const uint8_t *vb = values, *cb = counts;
	uint64_t sum = 0, seen = 0, bit, v;
	unsigned int i, j;
	uint32_t c;

	if (m < HOTLIST_MIN_M || m > HOTLIST_MAX_M)
		return HOTLIST_CORRUPT(why, "capacity m out of range");
	if (used > m)
		return HOTLIST_CORRUPT(why, "more entries than the capacity");
	if (tau < 1 || tau > HOTLIST_TAU_MAX)
		return HOTLIST_CORRUPT(why, "threshold tau out of range");
	for (i = 0; i < used; i++) {
		v = packed ? get_le64(vb + HOTLIST_ENTRY_SIZE * i) : ((const uint64_t *)values)[i];
		c = packed ? get_le32(cb + HOTLIST_ENTRY_SIZE * i) : ((const uint32_t *)counts)[i];
		if (c == 0)
			return HOTLIST_CORRUPT(why, "entry with count 0");
		if (c > n)
			return HOTLIST_CORRUPT(why, "count larger than n");
		sum += c;
		/* A bit per value (6 bits of its product with the golden ratio): a value whose bit
		 * no earlier value set cannot be a duplicate, and skips the scan. */
		bit = 1ull << ((v * 0x9e3779b97f4a7c15ull) >> 58);
		if (seen & bit)
			for (j = 0; j < i; j++)
				if ((packed ? get_le64(vb + HOTLIST_ENTRY_SIZE * j) :
					      ((const uint64_t *)values)[j]) == v)
					return HOTLIST_CORRUPT(why, "duplicate value");
		seen |= bit;
	}
	if (sum > n)
		return HOTLIST_CORRUPT(why, "counts sum to more than n");
	return 0;
}

int hotlist_validate(const struct hotlist *h, const char **why)
{
	const char *dummy;

	return check_fields(h->m, h->used, h->tau, h->n, h->value, h->count, false,
			    why ? why : &dummy);
}

uint32_t hotlist_checksum(const void *buf, size_t len)
{
	const uint8_t *p = buf;
	uint64_t x = 0xcbf29ce484222325ull;
	size_t i;

	/* four words a step (the loop's own work a quarter; the multiplies stay one chain) */
	for (i = 0; i + 16 <= len; i += 16) {
		x = (x ^ get_le32(p + i)) * 0x100000001b3ull;
		x = (x ^ get_le32(p + i + 4)) * 0x100000001b3ull;
		x = (x ^ get_le32(p + i + 8)) * 0x100000001b3ull;
		x = (x ^ get_le32(p + i + 12)) * 0x100000001b3ull;
	}
	for (; i + 4 <= len; i += 4)
		x = (x ^ get_le32(p + i)) * 0x100000001b3ull;
	return (uint32_t)(x ^ (x >> 32));
}

int hotlist_pack(const struct hotlist *h, void *buf, size_t len)
{
	size_t size = HOTLIST_PACKED_SIZE(h->used);
	uint8_t *p = buf;
	unsigned int i;

	if (h->used > HOTLIST_MAX_M || len < size)
		return -ENOSPC;
	/* Bytes 0-7: "AXHL", version, m, used, 0. */
	put_le64(p, (uint64_t)'A' | (uint64_t)'X' << 8 | (uint64_t)'H' << 16 | (uint64_t)'L' << 24 |
			    (uint64_t)HOTLIST_FORMAT_VERSION << 32 | (uint64_t)(uint8_t)h->m << 40 |
			    (uint64_t)(uint8_t)h->used << 48);
	put_le64(p + 8, h->tau);
	put_le64(p + 16, h->n);
	for (i = 0; i < h->used; i++) {
		uint8_t *e = p + HOTLIST_HEADER_SIZE + HOTLIST_ENTRY_SIZE * i;

		put_le64(e, h->value[i]);
		put_le32(e + 8, h->count[i]);
	}
	put_le32(p + size - 4, hotlist_checksum(p, size - 4));
	return (int)size;
}

/*
 * The header fields and the used entries of a serialized hotlist whose header has been checked
 * (p[6] <= HOTLIST_MAX_M); the arrays past used are not written (decode() clears them).
 */
static void decode_used(struct hotlist *h, const uint8_t *p)
{
	unsigned int i, used = p[6];

	h->m = p[5];
	h->used = used;
	h->tau = get_le64(p + 8);
	h->n = get_le64(p + 16);
	for (i = 0; i < used; i++) {
		const uint8_t *e = p + HOTLIST_HEADER_SIZE + HOTLIST_ENTRY_SIZE * i;

		h->value[i] = get_le64(e);
		h->count[i] = get_le32(e + 8);
	}
}

/*
 * decode_used() with the arrays past used zeroed, as hotlist_init() leaves them: every byte of
 * h defined, for callers that copy or compare whole lists (the tails only: clearing all ~400
 * bytes first, and decoding into a copy that was then copied out, was a fifth of the daemon's
 * cost of a hotlist record).
 */
static void decode(struct hotlist *h, const uint8_t *p)
{
	unsigned int used = p[6];

	/* value[used..] and count[..] are adjacent (the struct has no padding): one memset, then
	 * count[0..used) over it */
	_Static_assert(__builtin_offsetof(struct hotlist, count) ==
				       __builtin_offsetof(struct hotlist, value) +
					       HOTLIST_MAX_M * sizeof(uint64_t) &&
			       sizeof(struct hotlist) == __builtin_offsetof(struct hotlist, count) +
								 HOTLIST_MAX_M * sizeof(uint32_t),
		       "value[] then count[], nothing after");
	memset(h->value + used, 0, (uint8_t *)(h + 1) - (uint8_t *)(h->value + used));
	decode_used(h, p);
}

int hotlist_unpack_why(struct hotlist *h, const void *buf, size_t len, const char **why)
{
	const uint8_t *p = buf;
	const char *dummy;
	unsigned int used;
	size_t size;
	int err;

	if (!why)
		why = &dummy;
	if (len < HOTLIST_PACKED_SIZE(0))
		return HOTLIST_CORRUPT(why, "shorter than the header");
	if (p[0] != 'A' || p[1] != 'X' || p[2] != 'H' || p[3] != 'L')
		return HOTLIST_CORRUPT(why, "bad magic");
	if (p[4] != HOTLIST_FORMAT_VERSION && p[4] != 1)
		return HOTLIST_CORRUPT(why, "unknown format version");
	used = p[6];
	if (used > HOTLIST_MAX_M)
		return HOTLIST_CORRUPT(why, "entry count above the maximum capacity");
	size = HOTLIST_PACKED_SIZE(used);
	if (len < size)
		return HOTLIST_CORRUPT(why, "truncated entries");
	if (get_le32(p + size - 4) !=
	    (p[4] == 1 ? hotlist_checksum_v1(p, size - 4) : hotlist_checksum(p, size - 4)))
		return HOTLIST_CORRUPT(why, "checksum mismatch");
	if (p[7] != 0)
		return HOTLIST_CORRUPT(why, "reserved byte not zero");
	/* The fields checked in the bytes, h written only then: unchanged on damage. */
	err = check_fields(p[5], used, get_le64(p + 8), get_le64(p + 16), p + HOTLIST_HEADER_SIZE,
			   p + HOTLIST_HEADER_SIZE + 8, true, why);
	if (err)
		return err;
	decode(h, p);
	return (int)size;
}

int hotlist_unpack(struct hotlist *h, const void *buf, size_t len)
{
	return hotlist_unpack_why(h, buf, len, NULL);
}

void hotlist_unpack_checked(struct hotlist *h, const void *buf)
{
	decode(h, buf);
}
