/* kmod/sampler/vs_core.h - sampler internals: PRNG, overflow buffers, hash, policy, observers. */
#ifndef VS_CORE_H
#define VS_CORE_H

#include "axp_base.h"
#include "axp.h"
#include "hotlist.h"
#include "vs_abi.h"

/*
 * The units of one CPU's sampler (vs_sampler.h puts them together). Everything is a pure function
 * of the state handed in; nothing allocates, prints, locks or uses floating point; the caller
 * provides all memory. Nothing here is safe against a second CPU: each CPU has its own copy.
 */

/* A compiler barrier: orders this CPU's accesses against its own interrupt handlers. */
static inline void vs_barrier(void)
{
	__asm__ __volatile__("" : : : "memory");
}

/* ---- vs_prng.c: Park-Miller minimal standard generator, Carta's division-free form ---- */

struct vs_prng {
	uint32_t x; /* 1 .. 2^31 - 2 */
};

void vs_prng_seed(struct vs_prng *p, uint64_t seed);

/*
 * The draws are inline: the profiling interrupt makes one per sample, and a call through the
 * module's GOT cost more than the arithmetic (issue 18: vs_cpu_period was 59 instructions with
 * two calls, EV5 code). Carta's form (vs_prng.c): with M = 2^31 - 1 and p = 16807 x < 2^46,
 * p = hi * 2^31 + lo, so p mod M = hi + lo, less M once if that reaches M.
 */
#define VS_PRNG_M 0x7fffffffu
#define VS_PRNG_A 16807u

/* Next value, uniform on 1 .. 2^31 - 2. */
static inline uint32_t vs_prng_next(struct vs_prng *p)
{
	uint64_t prod = (uint64_t)p->x * VS_PRNG_A;
	uint32_t x = (uint32_t)(prod & VS_PRNG_M) + (uint32_t)(prod >> 31);

	if (x >= VS_PRNG_M)
		x -= VS_PRNG_M;
	p->x = x;
	return x;
}

/* Uniform on 0 .. n - 1 (1 <= n <= 2^31); bias at most n / 2^31 per outcome. */
static inline uint32_t vs_prng_below(struct vs_prng *p, uint32_t n)
{
	/* x < 2^31: (x * n) >> 31 < n, each outcome hit by floor or ceil of 2^31 / n values. */
	return (uint32_t)(((uint64_t)vs_prng_next(p) * n) >> 31);
}

/* The next sampling period, uniform on lo .. hi inclusive (DCPI §4.1.1). Needs lo <= hi. */
static inline uint32_t vs_period_next(struct vs_prng *p, uint32_t lo, uint32_t hi)
{
	uint64_t range = (uint64_t)hi - lo + 1;

	/* The spread is capped (VS_PERIOD_SPREAD_MAX) far below 2^31: one draw covers it. */
	return lo + (uint32_t)(((uint64_t)vs_prng_next(p) * range) >> 31);
}

/*
 * What an instruction does to the call stack (Alpha Architecture Handbook §4.3: BSR and JSR
 * write the return address to Ra and call; with Ra = r31 they are a branch and a jump, which
 * call nothing; RET returns; JSR_COROUTINE is neither). The procedure observer (vs_observe.c),
 * the machine's procedure truth and its shadow call stacks (machine/) all decide with this.
 */
enum vs_call_kind {
	VS_CALL_NONE,
	VS_CALL_CALL,
	VS_CALL_RET,
};

static inline enum vs_call_kind vs_call_kind_of(const struct axp_insn *d)
{
	if ((d->op == AXP_OP_BSR || d->op == AXP_OP_JSR) && d->ra != 31)
		return VS_CALL_CALL;
	return d->op == AXP_OP_RET ? VS_CALL_RET : VS_CALL_NONE;
}

/* ---- vs_prime.c: prime-valued periods (SpeedShop; VS_CONFIG period_prime) ---- */

/* Rejection draws before vs_prime_next() falls back to the next prime (see vs_prime.c). */
#define VS_PRIME_TRIES 1024
/* n is prime (deterministic for every 32-bit n). */
bool vs_is_prime(uint32_t n);
/*
 * The first prime at or after `from` in lo .. hi, wrapping from hi to lo; 0 when the range has
 * none or from is outside it. Below 2^32 primes are at most 336 apart, so this tests at most
 * a few hundred numbers.
 */
uint32_t vs_prime_at_or_after(uint32_t from, uint32_t lo, uint32_t hi);
/*
 * The next period, uniform over the primes in lo .. hi (vs_prime.c). Needs lo <= hi, a spread
 * below 2^31 and a prime in the range (vs_config_check ensures it).
 */
uint32_t vs_prime_next(struct vs_prng *p, uint32_t lo, uint32_t hi);
/*
 * A first period for glue that must arm a counter before any draw (the middle of event e's
 * range, or with its period_prime bit the range's first prime at or after the middle).
 */
uint32_t vs_period_first(const struct vs_config *cfg, unsigned int e);

/* ---- vs_buf.c: the pair of overflow buffers (DCPI §4.2.1, §4.2.3) ---- */

enum vs_buf_state {
	VS_BUF_EMPTY, /* drained: may become the active buffer */
	VS_BUF_ACTIVE, /* the producer appends here */
	VS_BUF_READY, /* full or swapped out: the consumer's until drained */
};
#define VS_BUF_NONE 0xff

/*
 * Single producer, single consumer, no locks, no memory barriers on the producer's side.
 *
 * Producer: the code that appends records (interrupt context for the sample pair, the
 * interpretation for the observer pair, and the on-CPU flush). It owns `active`, `fill[]`, the
 * `state[]` transitions EMPTY->ACTIVE and ACTIVE->READY, `wake` and the counters.
 * Consumer: the drain. vs_buf_swap() runs ON THE PRODUCER'S CPU, atomically with respect to the
 * producer (Linux glue: in an IPI / smp_call_function_single() handler or with local interrupts
 * disabled on that CPU, as DCPI's flush did; the IPI's own ordering is the only barrier). It
 * retires a fully drained READY buffer to EMPTY and picks the READY buffer to drain (swapping the
 * active one out if the other is EMPTY). vs_drain() may then run on any CPU with interrupts on:
 * it reads only data[draining] and fill[draining], which the producer never touches while that
 * buffer is READY, and writes only `cursor`.
 * Producer-side swap: when a record does not fit and the other buffer is EMPTY, the producer
 * marks its buffer READY, makes the other ACTIVE and sets `wake` (the glue wakes the reader).
 * When the other is still READY, the record does not fit: the caller counts the drop.
 */
struct vs_buf {
	uint8_t *data[2];
	uint32_t size; /* bytes in each buffer */
	uint32_t fill[2]; /* bytes of whole records in data[i] */
	uint8_t state[2]; /* enum vs_buf_state */
	uint8_t active; /* index the producer appends to */
	uint8_t draining; /* consumer: index being drained, or VS_BUF_NONE */
	uint8_t wake; /* producer: a buffer became READY since the flag was cleared */
	uint8_t which; /* index into vs_stats.buf_swaps */
	uint32_t cursor; /* consumer: bytes of data[draining] already copied out */
	struct vs_stats *st; /* buf_swaps[which] and records[type] are counted here */
};

/* Set up over two caller buffers of `size` bytes (a multiple of 8, >= VS_BUF_MIN). */
int vs_buf_init(struct vs_buf *b, void *mem0, void *mem1, uint32_t size, struct vs_stats *st,
		unsigned int which);
/*
 * Producer: room for one record of `len` bytes (a multiple of 8, <= VS_REC_MAX), header
 * written, counted in records[type]; NULL when neither buffer has room (nothing changed: the
 * caller counts its drop).
 */
void *vs_buf_reserve(struct vs_buf *b, unsigned int type, unsigned int len);
/* Consumer, on the producer's CPU (see above): bytes ready to drain after the swap. */
uint32_t vs_buf_swap(struct vs_buf *b);
/*
 * Consumer, anywhere: copy whole records of the buffer being drained into out[0..len); return
 * the bytes copied; *remaining (may be NULL) gets the bytes still to drain from it. Never splits
 * a record: with len >= VS_REC_MAX it always makes progress while anything remains.
 */
size_t vs_drain(struct vs_buf *b, void *out, size_t len, size_t *remaining);
/* Bytes appended to the active buffer and not yet handed to the consumer. */
static inline uint32_t vs_buf_pending(const struct vs_buf *b)
{
	return b->fill[b->active];
}

/* ---- vs_hash.c: the per-CPU hash of (pid, pc, event) -> count (DCPI §4.2.1) ---- */

/*
 * Entry, 16 bytes; four to a 64-byte bucket (one cache line):
 *   0   8  pc
 *   8   4  pid
 *   12  4  word: bits 0-23 count (0 = free entry), bits 24-30 event, bit 31 set = kernel mode
 * A count reaching count_max (2^24 - 1) is evicted at once, so counts never wrap.
 */
struct vs_hash_entry {
	uint64_t pc;
	uint32_t pid;
	uint32_t word;
};

#define VS_HASH_WAYS 4
#define VS_HASH_COUNT_BITS 24
#define VS_HASH_COUNT_MASK ((1u << VS_HASH_COUNT_BITS) - 1)
#define VS_HASH_KERNEL (1u << 31)

struct vs_hash_bucket {
	struct vs_hash_entry e[VS_HASH_WAYS];
} __attribute__((aligned(64)));

struct vs_hash {
	struct vs_hash_bucket *bucket;
	uint32_t shift; /* 64 - log2(buckets): multiplicative hashing keeps the top bits */
	uint32_t nbuckets;
	uint32_t victim; /* the mod-4 eviction counter, incremented on each eviction */
	uint32_t count_max; /* VS_HASH_COUNT_MASK (tests may lower it) */
	uint32_t cursor; /* next bucket vs_hash_flush() visits */
	struct vs_buf *buf;
	struct vs_stats *st;
};

enum vs_hash_result {
	VS_HASH_HIT, /* an entry's count went up */
	VS_HASH_NEW, /* a free entry took the sample */
	VS_HASH_EVICT, /* an entry was evicted to the buffer to make room */
	VS_HASH_SATURATED, /* the count reached count_max: the entry went to the buffer */
};

static inline size_t vs_hash_mem_size(uint32_t nbuckets)
{
	return (size_t)nbuckets * sizeof(struct vs_hash_bucket);
}

/* Over caller memory of vs_hash_mem_size() bytes, 64-byte aligned; nbuckets a power of two. */
int vs_hash_init(struct vs_hash *h, void *mem, uint32_t nbuckets, struct vs_buf *buf,
		 struct vs_stats *st);
/*
 * Count one sample. Returns a vs_hash_result, or -ENOSPC when an eviction found no room in the
 * buffers: then the new sample is the one dropped (drops[VS_DROP_SAMPLE_BUF]) and the table is
 * unchanged, so nothing aggregated is ever lost.
 */
int vs_hash_sample(struct vs_hash *h, uint32_t pid, uint64_t pc, unsigned int event, bool user);

/* The entry word's bits above the count: the event and the mode. */
static inline uint32_t vs_hash_tag(unsigned int event, bool user)
{
	return (uint32_t)event << VS_HASH_COUNT_BITS | (user ? 0 : VS_HASH_KERNEL);
}

static inline struct vs_hash_bucket *vs_hash_bucket_of(const struct vs_hash *h, uint32_t pid,
						       uint64_t pc, uint32_t tag)
{
	/* Fibonacci hashing: the multiply folds every key bit into the top `log2(n)` bits. */
	uint64_t k = pc ^ ((uint64_t)pid << 32 | pid) ^ ((uint64_t)tag << 7);

	return &h->bucket[(k * 0x9e3779b97f4a7c15ULL) >> h->shift];
}

/*
 * vs_hash_sample()'s common case, inline for the profiling interrupt (DCPI §4.2.1: "a hash
 * lookup and count"): when an entry of (pid, pc, event, mode) is in its bucket and one more
 * sample keeps its count below count_max, count it (a hit) and return true. Otherwise return
 * false with nothing changed: vs_hash_sample() then does the rest (new entry, eviction,
 * saturation).
 */
static inline bool vs_hash_hit(struct vs_hash *h, uint32_t pid, uint64_t pc, unsigned int event,
			       bool user)
{
	uint32_t tag = vs_hash_tag(event, user);
	struct vs_hash_entry *e = vs_hash_bucket_of(h, pid, pc, tag)->e;

	for (unsigned int i = 0; i < VS_HASH_WAYS; i++, e++) {
		uint32_t n = e->word & VS_HASH_COUNT_MASK;

		if (e->pc == pc && e->pid == pid && (e->word & ~VS_HASH_COUNT_MASK) == tag && n) {
			if (n + 1 >= h->count_max)
				return false; /* saturates: vs_hash_sample() emits it */
			e->word++;
			h->st->hash_hits++;
			return true;
		}
	}
	return false;
}

/*
 * Move every entry to the buffer (periodic and on-request drains), resuming where the last call
 * stopped. 0 when the table is empty, -ENOSPC when the buffers filled first (what remains stays
 * in the table: drain and call again). Runs atomically with respect to vs_hash_sample().
 */
int vs_hash_flush(struct vs_hash *h);
/* Live entries (a scan; for tests and statistics). */
uint32_t vs_hash_used(const struct vs_hash *h);

/* ---- vs_policy.c: when to interpret (value-sampling slides 10-13, 19, 21) ---- */

struct vs_policy {
	uint32_t mode; /* VS_MODE_* */
	uint32_t interp_events; /* bit per event */
	uint32_t num, den; /* share of eligible samples interpreted */
	uint32_t budget;
	bool kernel; /* VS_CFG_KERNEL_VALUES: kernel samples are eligible too */
};

enum vs_verdict {
	VS_NO_MODE, /* the mode does not interpret */
	VS_NO_KERNEL, /* kernel-mode sample without VS_CFG_KERNEL_VALUES */
	VS_NO_GUARD, /* an interpretation is running on this CPU: no re-entry */
	VS_NO_EVENT, /* the event is not an interpretation event */
	VS_NO_SHARE, /* lost the draw */
	VS_INTERPRET,
};

void vs_policy_init(struct vs_policy *pol, const struct vs_config *cfg);
/*
 * A pure function of (policy, per-CPU PRNG, guard, interrupt info); draws only when eligible.
 * Inline: every sample asks (vs_policy.c has the policies' reasons).
 */
static inline enum vs_verdict vs_policy_decide(const struct vs_policy *pol, struct vs_prng *rng,
					       bool guard, unsigned int event, bool user)
{
	if (pol->mode != VS_MODE_VPROF && pol->mode != VS_MODE_VREPLAY)
		return VS_NO_MODE;
	if (!user && !pol->kernel)
		return VS_NO_KERNEL;
	if (guard)
		return VS_NO_GUARD;
	if (event >= 32 || !(pol->interp_events & (1u << event)))
		return VS_NO_EVENT;
	/* num == den: always; num == 0: never (the draw is then always >= num). */
	if (pol->num < pol->den && vs_prng_below(rng, pol->den) >= pol->num)
		return VS_NO_SHARE;
	return VS_INTERPRET;
}

/* ---- vs_observe.c: what an interpretation records (slides 14-20) ---- */

/* Common head of an observer table slot. */
struct vs_key {
	uint64_t pc;
	uint64_t pc2; /* conflicts: prior_pc */
	uint32_t pid;
	uint8_t live;
	uint8_t kind; /* conflicts: VS_CNF_*; hotlists: dest register */
	uint16_t pad; /* 0: a slot's lookup compares pid, live, kind and pad as one word */
};

enum vs_tab_id {
	VS_TAB_HOT,
	VS_TAB_LAT,
	VS_TAB_CNF,
	VS_TAB_VC,
	VS_TAB_PROC, /* procedure arguments, return values, callers (VS_REC_PROC) */
	VS_TAB_ADDR, /* load addresses and strides (VS_REC_ADDR; version 4) */
	VS_TAB_NR,
};

/* A 4-way set-associative table of fixed-size slots, each starting with a struct vs_key. */
struct vs_tab {
	uint8_t *slot;
	uint32_t nslots; /* 0: table unused */
	uint32_t shift; /* 64 - log2(nslots / 4) */
	uint32_t victim; /* mod-4 eviction counter, as the hash */
	uint32_t cursor; /* flush position */
	uint32_t nfree; /* slots not live: 0 once the table has filled, until a flush */
};

struct vs_hot_slot {
	struct vs_key k;
	struct hotlist h;
	uint64_t vbits; /* values table: a bit for every value in h, maybe more (vs_observe.c) */
};

struct vs_lat_slot {
	struct vs_key k;
	uint32_t n;
	uint32_t level[VS_LAT_LEVELS];
	uint64_t sum;
	uint32_t hist[VS_LAT_BUCKETS];
};

struct vs_cnf_slot {
	struct vs_key k;
	uint32_t count;
	uint32_t dist_min;
};

struct vs_vc_slot {
	struct vs_key k;
	uint32_t count;
	uint32_t pad;
};

/* One memory access of the current run (vreplay's address comparison). */
struct vs_access {
	uint64_t ea;
	uint64_t pc;
	uint32_t seq; /* instruction index in the run */
	uint32_t t; /* earliest issue cycle in the run's dataflow estimate (vs_order.c) */
	uint8_t size;
	uint8_t is_store;
	uint16_t prev; /* 1 + the log index of the previous access in this bucket; 0: none */
};

/*
 * The access log's index (vs_observe.c see_access): buckets by quadword address, each a chain
 * through vs_access.prev from the newest entry, so a load visits only the accesses that can
 * overlap it, newest first. VS_BUDGET_MAX < 65536 keeps 1 + an index in 16 bits.
 */
#define VS_LOG_BUCKETS 64

/*
 * The addrs observer's memory of the current run: the last address each load read, so the next
 * execution of the same load in the run gives a stride. Direct-mapped by pc, VS_ADDR_PREV ways
 * [U]: a load whose way another load took since has no stride for that execution (bounded, no
 * search). An entry belongs to the run whose number it holds (vs_obs.arun), so a new run forgets
 * every entry without touching them.
 */
#define VS_ADDR_PREV 16
struct vs_addr_prev {
	uint64_t pc;
	uint64_t ea;
	uint32_t run; /* vs_obs.arun when written; 0: never */
	uint32_t pad;
};

#define VS_ORDER_REGS 64 /* integer 0-31, FP 32-63 */

struct vs_obs {
	struct vs_tab tab[VS_TAB_NR];
	struct vs_buf *buf;
	struct vs_stats *st;
	struct hotlist_rng rng;
	uint32_t gather; /* VS_GATHER_* */
	uint32_t hotlist_m;
	uint32_t sel; /* the selected observers: bit i is vs_observe.c's registration row i */
	/* The current run (vs_obs_begin .. vs_obs_end). */
	const struct axp_ctx *ctx; /* the interpreted context (procedure observer), or NULL */
	uint32_t pid;
	uint32_t seq; /* instructions observed so far */
	struct vs_access *log;
	uint32_t nlog, log_cap;
	uint32_t log_cross; /* an access in the log spans two quadwords: the index is not used */
	uint16_t log_head[VS_LOG_BUCKETS]; /* 1 + the newest log index per bucket; 0: none */
	uint64_t hkey; /* this instruction's pc and pid, mixed once for every table lookup */
	uint64_t tag; /* a live slot's tag word for pid with kind 0 (vs_observe.c key_tag) */
	uint32_t rdy[VS_ORDER_REGS]; /* register ready cycles (vs_order.c; load-load gathering) */
	uint32_t flush_tab; /* flush position: table */
	uint32_t arun; /* the addrs observer's run number, >= 1 (vs_obs_begin) */
	struct vs_addr_prev aprev[VS_ADDR_PREV]; /* addrs: this run's last address per load */
};

/* Bytes of table memory table t needs under cfg (0 when not gathered). */
size_t vs_obs_tab_size(const struct vs_config *cfg, unsigned int t);
/* Bytes of access-log memory (budget entries when conflicts are gathered). */
size_t vs_obs_log_size(const struct vs_config *cfg);
/* mem[t] for each table (zeroed here), log memory; sizes from the functions above. */
int vs_obs_init(struct vs_obs *o, const struct vs_config *cfg, void *const mem[VS_TAB_NR],
		void *log, struct vs_buf *buf, struct vs_stats *st, uint64_t seed);
/* A run of process pid on ctx (read by the procedure observer after each call/ret; may be NULL). */
void vs_obs_begin(struct vs_obs *o, uint32_t pid, const struct axp_ctx *ctx);
/* The axp_observer callback: priv is the struct vs_obs. */
void vs_obs_insn(void *priv, const struct axp_event *ev);
void vs_obs_end(struct vs_obs *o);
/* Move every live slot to the buffer; 0, or -ENOSPC when the buffers filled first (resumable). */
int vs_obs_flush(struct vs_obs *o);
/* Live slots in table t (a scan; for tests). */
uint32_t vs_obs_used(const struct vs_obs *o, unsigned int t);

/* vs_order.c: the dataflow issue estimate. begin: every register ready at 0; insn: the earliest
 * cycle ev could issue (operands, fetch rate), and its destination's ready cycle recorded. */
void vs_order_begin(struct vs_obs *o);
uint32_t vs_order_insn(struct vs_obs *o, const struct axp_event *ev);

static inline uint32_t max_u32(uint32_t a, uint32_t b)
{
	return a > b ? a : b;
}

#endif /* VS_CORE_H */
