/* kmod/sampler/vs_observe.c - interpretation observers: a registration table and its observers. */
#include "vs_core.h"

/*
 * Installed on axp_run() during an interpretation (vs_interpret), these see every executed
 * instruction (struct axp_event) and aggregate per (pid, pc) in fixed-capacity per-CPU tables:
 *
 *  values    every instruction that writes a register (ev->dest != AXP_NO_DEST) inserts the
 *            value written into the Gibbons-Matias hotlist of its pc (value-sampling slides
 *            14-15);
 *  latency   every load's acc.latency and acc.level (slides 16-17: D/S/B/M shares);
 *  conflicts every load is compared with this run's earlier accesses (slides 18-20): the nearest
 *            earlier store whose bytes it overlaps gives a (load pc, store pc) record, and with
 *            VS_GATHER_LOADLOAD the nearest earlier overlapping load that this load could have
 *            issued before (vs_order.c) and no store lies between, a load-load record — the pairs a
 *            21264 load-store or load-load order replay trap can come from (EV67 HRM §2.11).
 *            Only the nearest is kept: it is the access the load would catch in flight (a store
 *            nearer than the load feeds this load, so the two loads cannot trap on each other's
 *            order in the hosted model: machine/mach_ev6.c checks the store queue first);
 *  vcount    every executed instruction counts one for its pc (vreplay's vcount column);
 *  args      (version 3) every call (bsr, jsr with a link register) inserts a0-a5 and f16-f21 as
 *            the callee will see them at its first instruction (a call changes none of them) into
 *            hotlists keyed by the procedure entry (the call's target), and every ret inserts v0
 *            and f0 into hotlists keyed by the ret's pc (value-sampling slide 2: "a function is
 *            always evaluated at zero"; the tools map a ret to its procedure with the symbols);
 *  callers   (version 3) every call inserts its own pc into the hotlist of its target (slide
 *            12: "PC of calling procedure"), the call graph edges sampling can give, in the
 *            kernel too;
 *  addrs     (version 4) every load inserts its effective address into the address hotlist of
 *            its pc and, when the same load ran before in this interpretation, the stride (this
 *            address minus that one) into its stride hotlist: loads whose address is invariant
 *            or strided are prefetch candidates (issue 20 item 2; slide 2: "find semi-invariant
 *            values for prefetching").
 *
 * The observers are a registration table (observers[] below): each names the VS_GATHER_* bits
 * that select it and its table. vs_obs_init() sets the selected rows' bits in o->sel, and
 * vs_obs_insn() tests them in registration order and calls each selected observer directly: an
 * unselected observer costs one bit test, and the frequent ones (vcount, values, latency) are
 * inlined there with their filters, so an instruction that writes no register and loads nothing
 * costs vcount alone (issue 18 item 3: the per-instruction function-pointer calls cost about a
 * third of vprof's observer time). A new observer is one table row, one VS_OBS_* bit, one test in
 * vs_obs_insn(), one VS_GATHER_* bit and (if it keeps state) one table.
 *
 * Each table is 4-way set associative like the sample hash; a miss in a full set evicts a victim
 * chosen by a mod-4 counter into the observer buffer pair as a record. When the buffers have no
 * room the newest observation is dropped (counted in drops[]), never an aggregated entry.
 */

static const uint32_t tab_stride[VS_TAB_NR] = {
	sizeof(struct vs_hot_slot), sizeof(struct vs_lat_slot), sizeof(struct vs_cnf_slot),
	sizeof(struct vs_vc_slot),  sizeof(struct vs_hot_slot), sizeof(struct vs_hot_slot),
};

/* The gather bits that need each table (any of them). */
static const uint32_t tab_gather[VS_TAB_NR] = {
	VS_GATHER_VALUES,
	VS_GATHER_LATENCY,
	VS_GATHER_CONFLICTS,
	VS_GATHER_VCOUNT,
	VS_GATHER_ARGS | VS_GATHER_CALLERS,
	VS_GATHER_ADDRS,
};

static uint32_t tab_entries(const struct vs_config *cfg, unsigned int t)
{
	if (cfg->mode != VS_MODE_VPROF && cfg->mode != VS_MODE_VREPLAY)
		return 0;
	if (!(cfg->gather & tab_gather[t]))
		return 0;
	switch (t) {
	case VS_TAB_HOT:
		return cfg->hot_entries;
	case VS_TAB_LAT:
		return cfg->lat_entries;
	case VS_TAB_CNF:
		return cfg->cnf_entries;
	case VS_TAB_VC:
		return cfg->vc_entries;
	case VS_TAB_ADDR:
		return cfg->hot_entries;
	default:
		return cfg->proc_entries;
	}
}

size_t vs_obs_tab_size(const struct vs_config *cfg, unsigned int t)
{
	return (size_t)tab_entries(cfg, t) * tab_stride[t];
}

size_t vs_obs_log_size(const struct vs_config *cfg)
{
	if (!tab_entries(cfg, VS_TAB_CNF))
		return 0;
	return (size_t)cfg->interp_budget * sizeof(struct vs_access);
}

/* The registration table, in the order vs_obs_insn() runs them on each instruction. */
enum vs_obs_row { OBS_VCOUNT, OBS_VALUES, OBS_LATENCY, OBS_CONFLICTS, OBS_PROC, OBS_ADDRS };

static const struct {
	uint32_t gather; /* selected when cfg->gather has any of these */
	uint8_t tab; /* the table it needs */
} observers[] = {
	[OBS_VCOUNT] = { VS_GATHER_VCOUNT, VS_TAB_VC },
	[OBS_VALUES] = { VS_GATHER_VALUES, VS_TAB_HOT },
	[OBS_LATENCY] = { VS_GATHER_LATENCY, VS_TAB_LAT },
	[OBS_CONFLICTS] = { VS_GATHER_CONFLICTS, VS_TAB_CNF },
	[OBS_PROC] = { VS_GATHER_ARGS | VS_GATHER_CALLERS, VS_TAB_PROC },
	[OBS_ADDRS] = { VS_GATHER_ADDRS, VS_TAB_ADDR },
};

int vs_obs_init(struct vs_obs *o, const struct vs_config *cfg, void *const mem[VS_TAB_NR],
		void *log, struct vs_buf *buf, struct vs_stats *st, uint64_t seed)
{
	unsigned int t;

	memset(o, 0, sizeof(*o));
	for (t = 0; t < VS_TAB_NR; t++) {
		struct vs_tab *tab = &o->tab[t];
		uint32_t n = tab_entries(cfg, t), log2 = 0;

		if (!n)
			continue;
		if (!mem[t] || n < VS_TAB_MIN || (n & (n - 1)))
			return -EINVAL;
		while ((1u << log2) < n / 4)
			log2++;
		memset(mem[t], 0, (size_t)n * tab_stride[t]);
		tab->slot = mem[t];
		tab->nslots = n;
		tab->shift = 64 - log2;
		tab->nfree = n;
	}
	if (o->tab[VS_TAB_CNF].nslots) {
		if (!log)
			return -EINVAL;
		o->log = log;
		o->log_cap = cfg->interp_budget;
	}
	o->buf = buf;
	o->st = st;
	o->gather = cfg->gather;
	o->hotlist_m = cfg->hotlist_m;
	hotlist_rng_seed(&o->rng, seed);
	for (t = 0; t < sizeof(observers) / sizeof(observers[0]); t++)
		if (o->tab[observers[t].tab].nslots)
			o->sel |= 1u << t;
	return 0;
}

/* Slot i of table t (tab = &o->tab[t]); the stride is a constant where t is. */
static __attribute__((__always_inline__)) inline struct vs_key *slot_at(const struct vs_tab *tab,
									unsigned int t, uint32_t i)
{
	return (struct vs_key *)(tab->slot + (size_t)i * tab_stride[t]);
}

/* ---- records ---- */

static bool emit_hot(struct vs_obs *o, const struct vs_hot_slot *s)
{
	uint32_t plen = HOTLIST_PACKED_SIZE(s->h.used);
	uint32_t len = VS_REC_HOTLIST_SIZE(plen);
	struct vs_rec_hotlist *r = vs_buf_reserve(o->buf, VS_REC_HOTLIST, len);

	if (!r)
		return false;
	r->pid = s->k.pid;
	r->pc = s->k.pc;
	r->packed_len = plen;
	r->dest = s->k.kind;
	r->reserved[0] = r->reserved[1] = r->reserved[2] = 0;
	hotlist_pack(&s->h, r->packed, plen);
	memset(r->packed + plen, 0, len - sizeof(*r) - plen);
	return true;
}

static bool emit_lat(struct vs_obs *o, const struct vs_lat_slot *s)
{
	struct vs_rec_latency *r = vs_buf_reserve(o->buf, VS_REC_LATENCY, sizeof(*r));

	if (!r)
		return false;
	r->pid = s->k.pid;
	r->pc = s->k.pc;
	memcpy(r->level, s->level, sizeof(r->level));
	r->reserved = 0;
	r->latency_sum = s->sum;
	memcpy(r->hist, s->hist, sizeof(r->hist));
	return true;
}

static bool emit_cnf(struct vs_obs *o, const struct vs_cnf_slot *s)
{
	struct vs_rec_conflict *r = vs_buf_reserve(o->buf, VS_REC_CONFLICT, sizeof(*r));

	if (!r)
		return false;
	r->pid = s->k.pid;
	r->pc = s->k.pc;
	r->prior_pc = s->k.pc2;
	r->count = s->count;
	r->kind = s->k.kind;
	r->reserved = 0;
	r->dist_min = (uint16_t)s->dist_min;
	return true;
}

static bool emit_vc(struct vs_obs *o, const struct vs_vc_slot *s)
{
	struct vs_rec_vcount *r = vs_buf_reserve(o->buf, VS_REC_VCOUNT, sizeof(*r));

	if (!r)
		return false;
	r->pid = s->k.pid;
	r->pc = s->k.pc;
	r->count = s->count;
	r->reserved = 0;
	return true;
}

/* Proc slots: key kind = what << 6 | register (what: VS_PROC_*, register 0-63). */
#define PROC_KIND(what, reg) ((uint8_t)((what) << 6 | (reg)))

static bool emit_proc(struct vs_obs *o, const struct vs_hot_slot *s)
{
	uint32_t plen = HOTLIST_PACKED_SIZE(s->h.used);
	uint32_t len = VS_REC_HOTLIST_SIZE(plen);
	struct vs_rec_proc *r = vs_buf_reserve(o->buf, VS_REC_PROC, len);

	if (!r)
		return false;
	r->pid = s->k.pid;
	r->pc = s->k.pc;
	r->packed_len = plen;
	r->kind = s->k.kind >> 6;
	r->reg = s->k.kind & 63;
	r->reserved[0] = r->reserved[1] = 0;
	hotlist_pack(&s->h, r->packed, plen);
	memset(r->packed + plen, 0, len - sizeof(*r) - plen);
	return true;
}

static bool emit_addr(struct vs_obs *o, const struct vs_hot_slot *s)
{
	uint32_t plen = HOTLIST_PACKED_SIZE(s->h.used);
	uint32_t len = VS_REC_HOTLIST_SIZE(plen);
	struct vs_rec_addr *r = vs_buf_reserve(o->buf, VS_REC_ADDR, len);

	if (!r)
		return false;
	r->pid = s->k.pid;
	r->pc = s->k.pc;
	r->packed_len = plen;
	r->kind = s->k.kind;
	r->reserved[0] = r->reserved[1] = r->reserved[2] = 0;
	hotlist_pack(&s->h, r->packed, plen);
	memset(r->packed + plen, 0, len - sizeof(*r) - plen);
	return true;
}

static __attribute__((__always_inline__)) inline bool emit_slot(struct vs_obs *o, unsigned int t,
								const struct vs_key *k)
{
	switch (t) {
	case VS_TAB_HOT:
		return emit_hot(o, (const struct vs_hot_slot *)k);
	case VS_TAB_LAT:
		return emit_lat(o, (const struct vs_lat_slot *)k);
	case VS_TAB_CNF:
		return emit_cnf(o, (const struct vs_cnf_slot *)k);
	case VS_TAB_VC:
		return emit_vc(o, (const struct vs_vc_slot *)k);
	case VS_TAB_ADDR:
		return emit_addr(o, (const struct vs_hot_slot *)k);
	default:
		return emit_proc(o, (const struct vs_hot_slot *)k);
	}
}

/*
 * A key's last eight bytes (pid, live, kind, pad) as one word: a live slot's pad is 0 (claim()
 * copies a key built with it 0), so one compare checks pid, liveness and kind.
 */
_Static_assert(__builtin_offsetof(struct vs_key, pid) == 16 && sizeof(struct vs_key) == 24,
	       "vs_key ends in one 8-byte tag word");

static __attribute__((__always_inline__)) inline uint64_t key_tag(const struct vs_key *k)
{
	uint64_t w;

	__builtin_memcpy(&w, &k->pid, sizeof(w));
	return w;
}

/* The tag word's kind byte alone (a constant's bytes: folded at compile time). */
static __attribute__((__always_inline__)) inline uint64_t kind_tag(unsigned int kind)
{
	const struct vs_key one = { .kind = 1 };

	return key_tag(&one) * (uint8_t)kind;
}

/* The tag word of a live slot of pid with kind 0 (vs_obs.tag, set once per run). */
static uint64_t pid_tag(uint32_t pid)
{
	const struct vs_key k = { .pid = pid, .live = 1 };

	return key_tag(&k);
}

/*
 * A fresh slot for key (pc, pc2, tag): the payload zeroed, or a hotlist emptied (hotlist_reset: its
 * arrays are read only below used, so the slot's ~400 bytes need not be cleared on every claim).
 * The key goes in as three words (tag: key_tag() of pid, live 1, kind): an Alpha without BWX
 * writes a byte field by reading and rewriting its quadword.
 */
static __attribute__((__always_inline__)) inline void
claim(struct vs_obs *o, unsigned int t, struct vs_key *s, uint64_t pc, uint64_t pc2, uint64_t tag)
{
	if (t == VS_TAB_HOT || t == VS_TAB_PROC || t == VS_TAB_ADDR) {
		hotlist_reset(&((struct vs_hot_slot *)s)->h, o->hotlist_m);
		((struct vs_hot_slot *)s)->vbits = 0;
	} else {
		memset(s, 0, tab_stride[t]);
	}
	s->pc = pc;
	s->pc2 = pc2;
	__builtin_memcpy(&s->pid, &tag, sizeof(tag));
}

/* The hash of (pc, pid): vs_obs_insn mixes it once per instruction, in o->hkey. */
static inline uint64_t hash_pc_pid(uint64_t pc, uint32_t pid)
{
	return pc ^ ((uint64_t)pid << 32 | pid);
}

/* The miss path of tab_get: claim a free way of the set, else evict the mod-4 victim. */
static __attribute__((__always_inline__)) inline struct vs_key *
tab_miss(struct vs_obs *o, unsigned int t, uint64_t pc, uint64_t pc2, unsigned int kind,
	 uint32_t set)
{
	struct vs_tab *tab = &o->tab[t];
	struct vs_key *s, *free = NULL;
	unsigned int i;

	/* A full table (the steady state) has no free way in any set: straight to the victim. */
	for (i = 0; i < 4 && !free && tab->nfree; i++) {
		s = slot_at(tab, t, set + i);
		if (!s->live)
			free = s;
	}
	if (!free) {
		free = slot_at(tab, t, set + (tab->victim & 3));
		if (!emit_slot(o, t, free))
			return NULL;
		tab->victim++;
	} else {
		tab->nfree--;
	}
	claim(o, t, free, pc, pc2, o->tag | kind_tag(kind));
	return free;
}

/*
 * The slot of key k in table t: found, or claimed (a free way, else the mod-4 victim evicted to
 * the buffer); key (pc, pc2, o->pid, kind). NULL when the victim found no room: the caller drops
 * its observation. hpp is hash_pc_pid(pc, o->pid). Inlined into each observer so that t and the
 * stride are constants and the hit path (the common case) is a hash and at most four compares of
 * pc, pc2 and the tag word; a slot that is not live never matches, and tab_miss claims the first
 * free way as before.
 */
static __attribute__((__always_inline__)) inline struct vs_key *
tab_get(struct vs_obs *o, unsigned int t, uint64_t pc, uint64_t pc2, unsigned int kind,
	uint64_t hpp)
{
	struct vs_tab *tab = &o->tab[t];
	uint64_t h = hpp ^ (pc2 * 0xff51afd7ed558ccdULL) ^ kind;
	uint32_t set = (uint32_t)((h * 0x9e3779b97f4a7c15ULL) >> tab->shift) * 4;
	uint64_t tag = o->tag | kind_tag(kind);
	struct vs_key *s = slot_at(tab, t, set);
	unsigned int i;

	for (i = 0; i < 4; i++, s = (struct vs_key *)((uint8_t *)s + tab_stride[t]))
		if (s->pc == pc && key_tag(s) == tag && s->pc2 == pc2)
			return s;
	return tab_miss(o, t, pc, pc2, kind, set);
}

/* A slot whose 32-bit count is full goes out and starts again; false when there is no room. */
static bool renew(struct vs_obs *o, unsigned int t, struct vs_key *s)
{
	uint64_t pc = s->pc, pc2 = s->pc2, tag = key_tag(s);

	if (!emit_slot(o, t, s))
		return false;
	claim(o, t, s, pc, pc2, tag);
	return true;
}

/* ---- observers ---- */

/*
 * The values table's filter (issue 18 item 3): vbits has bit value_bit(v) set for every value v
 * in the slot's list, and maybe for values that left it, so a value whose bit is clear is not in
 * the list and its insertion skips the scan (hotlist_insert_absent: the same result). A value
 * enters the list only by admission, which appends it; entries leave only when tau rises, and
 * then the filter is rebuilt from the list. Lists of 16 distinct values leave about 78% of the
 * bits clear.
 */
static inline uint64_t value_bit(uint64_t v)
{
	return 1ULL << ((v * 0x9e3779b97f4a7c15ULL) >> 58);
}

static void value_insert(struct vs_obs *o, struct vs_hot_slot *s, uint64_t v)
{
	struct hotlist *h = &s->h;
	uint64_t tau = h->tau, b = value_bit(v);
	uint32_t used = h->used, i;

	if (s->vbits & b)
		hotlist_insert(h, v, &o->rng);
	else
		hotlist_insert_absent(h, v, &o->rng);
	if (h->tau != tau || h->used < used) {
		for (b = 0, i = 0; i < h->used; i++)
			b |= value_bit(h->value[i]);
		s->vbits = b;
	} else if (h->used > used) {
		s->vbits |= b; /* v was admitted */
	}
}

static __attribute__((__always_inline__)) inline void
see_value(struct vs_obs *o, const struct axp_event *ev, uint64_t hk)
{
	struct vs_hot_slot *s =
		(struct vs_hot_slot *)tab_get(o, VS_TAB_HOT, ev->pc, 0, ev->dest, hk);

	if (!s) {
		o->st->drops[VS_DROP_VALUE_BUF]++;
		return;
	}
	if (!hotlist_count_head(&s->h, ev->value))
		value_insert(o, s, ev->value);
}

static __attribute__((__always_inline__)) inline void
see_latency(struct vs_obs *o, const struct axp_event *ev, uint64_t hk)
{
	struct vs_lat_slot *s = (struct vs_lat_slot *)tab_get(o, VS_TAB_LAT, ev->pc, 0, 0, hk);
	uint32_t level = ev->acc.level < VS_LAT_LEVELS ? ev->acc.level : AXP_LVL_UNKNOWN;

	if (s && s->n == UINT32_MAX && !renew(o, VS_TAB_LAT, &s->k))
		s = NULL;
	if (!s) {
		o->st->drops[VS_DROP_LATENCY_BUF]++;
		return;
	}
	s->n++;
	s->level[level]++;
	s->sum += ev->acc.latency;
	s->hist[vs_lat_bucket(ev->acc.latency)]++;
}

static void add_conflict(struct vs_obs *o, const struct axp_event *ev, const struct vs_access *a,
			 unsigned int kind)
{
	struct vs_cnf_slot *s =
		(struct vs_cnf_slot *)tab_get(o, VS_TAB_CNF, ev->pc, a->pc, kind, o->hkey);
	uint32_t dist = o->seq - a->seq;

	if (s && s->count == UINT32_MAX && !renew(o, VS_TAB_CNF, &s->k))
		s = NULL;
	if (!s) {
		o->st->drops[VS_DROP_CONFLICT_BUF]++;
		return;
	}
	if (!s->count || dist < s->dist_min)
		s->dist_min = dist;
	s->count++;
}

static inline bool overlaps(const struct vs_access *a, uint64_t ea, unsigned int size)
{
	return a->ea < ea + size && ea < a->ea + a->size;
}

static inline unsigned int log_bucket(uint64_t ea)
{
	return (unsigned int)(ea >> 3) & (VS_LOG_BUCKETS - 1);
}

static inline bool spans_quadwords(uint64_t ea, unsigned int size)
{
	return (ea & 7) + size > 8;
}

/*
 * The nearest earlier store a load overlaps, and (want_ld) the nearest earlier overlapping load
 * before any such store that this load could issue first: the log walked newest first. Walking
 * only the load's bucket chain visits the same overlapping accesses in the same order (an access
 * within one quadword overlaps only accesses in that quadword, so in its bucket) and gives the
 * same answer as the whole log; an access spanning two quadwords (an unaligned one) falls back to
 * the whole log, as does every later load of the run.
 */
static void see_access(struct vs_obs *o, const struct axp_event *ev, uint32_t t)
{
	const struct vs_access *st = NULL, *ld = NULL;
	bool want_ld = o->gather & VS_GATHER_LOADLOAD;
	bool cross = spans_quadwords(ev->ea, ev->size);
	unsigned int b = log_bucket(ev->ea);
	struct vs_access *a;
	uint32_t i;

	if (ev->is_load) {
		bool linear = cross || o->log_cross;

		for (i = linear ? o->nlog : o->log_head[b]; i > 0;
		     i = linear ? i - 1 : o->log[i - 1].prev) {
			a = &o->log[i - 1];
			if (!overlaps(a, ev->ea, ev->size))
				continue;
			if (a->is_store) {
				st = a;
				break;
			}
			if (want_ld && !ld && t < a->t)
				ld = a; /* nearer than any store, and this load could issue first */
		}
		if (st)
			add_conflict(o, ev, st, VS_CNF_STORE_LOAD);
		if (ld)
			add_conflict(o, ev, ld, VS_CNF_LOAD_LOAD);
	}
	/* One entry per instruction and log_cap = budget: the log cannot fill in one run. */
	if (o->nlog < o->log_cap) {
		a = &o->log[o->nlog++];
		a->ea = ev->ea;
		a->pc = ev->pc;
		a->seq = o->seq;
		a->t = t;
		a->size = ev->size;
		a->is_store = ev->is_store;
		a->prev = o->log_head[b];
		o->log_head[b] = (uint16_t)o->nlog;
		o->log_cross |= cross;
	}
}

static __attribute__((__always_inline__)) inline void
see_insn(struct vs_obs *o, const struct axp_event *ev, uint64_t hk)
{
	struct vs_vc_slot *s = (struct vs_vc_slot *)tab_get(o, VS_TAB_VC, ev->pc, 0, 0, hk);

	if (s && s->count == UINT32_MAX && !renew(o, VS_TAB_VC, &s->k))
		s = NULL;
	if (!s) {
		o->st->drops[VS_DROP_VCOUNT_BUF]++;
		return;
	}
	s->count++;
}

/* The values observer's filter: a register written, not r31 or f31. */
static inline bool has_value(const struct axp_event *ev)
{
	return ev->dest != AXP_NO_DEST && ev->dest != 31 && ev->dest != 63;
}

static __attribute__((__always_inline__)) inline void see_conflict_any(struct vs_obs *o,
								       const struct axp_event *ev)
{
	uint32_t t = (o->gather & VS_GATHER_LOADLOAD) ? vs_order_insn(o, ev) : 0;

	if ((ev->is_load || ev->is_store) && ev->size)
		see_access(o, ev, t);
}

/* Insert value v into the proc hotlist (pc, what, reg). */
static void proc_insert(struct vs_obs *o, uint64_t pc, unsigned int what, unsigned int reg,
			uint64_t v)
{
	struct vs_hot_slot *s = (struct vs_hot_slot *)tab_get(
		o, VS_TAB_PROC, pc, 0, PROC_KIND(what, reg), hash_pc_pid(pc, o->pid));

	if (!s) {
		o->st->drops[VS_DROP_VALUE_BUF]++;
		return;
	}
	hotlist_insert(&s->h, v, &o->rng);
}

/*
 * Calls: BSR, and JSR with a link register (Alpha Architecture Handbook §4.3: both write the
 * return address to Ra; with Ra = r31 they are a branch and a jump). Calling standard: a0-a5 =
 * r16-r21 and f16-f21 carry the first six arguments, v0 = r0 / f0 the result (Tru64/Linux Alpha
 * calling standard §2.2, "argument registers").
 */
static __attribute__((__noinline__)) void see_proc(struct vs_obs *o, const struct axp_event *ev)
{
	enum vs_call_kind k = vs_call_kind_of(ev->insn); /* ev->insn != NULL: vs_obs_insn */
	unsigned int r;

	if (k == VS_CALL_CALL) {
		if (o->gather & VS_GATHER_CALLERS)
			proc_insert(o, ev->next_pc, VS_PROC_CALLER, 26, ev->pc);
		if (!(o->gather & VS_GATHER_ARGS) || !o->ctx)
			return;
		for (r = 16; r <= 21; r++)
			proc_insert(o, ev->next_pc, VS_PROC_ARG, r, o->ctx->r[r]);
		for (r = 16; r <= 21; r++)
			proc_insert(o, ev->next_pc, VS_PROC_ARG, 32 + r, o->ctx->f[r]);
	} else if (k == VS_CALL_RET && (o->gather & VS_GATHER_ARGS) && o->ctx) {
		proc_insert(o, ev->pc, VS_PROC_RET, 0, o->ctx->r[0]);
		proc_insert(o, ev->pc, VS_PROC_RET, 32, o->ctx->f[0]);
	}
}

/* Insert v into the address table's hotlist (ev->pc, kind). */
static void addr_insert(struct vs_obs *o, const struct axp_event *ev, unsigned int kind, uint64_t v)
{
	struct vs_hot_slot *s =
		(struct vs_hot_slot *)tab_get(o, VS_TAB_ADDR, ev->pc, 0, kind, o->hkey);

	if (!s) {
		o->st->drops[VS_DROP_VALUE_BUF]++;
		return;
	}
	hotlist_insert(&s->h, v, &o->rng);
}

/* Every load: its address, and its stride from this run's previous execution of the same pc. */
static __attribute__((__noinline__)) void see_addr(struct vs_obs *o, const struct axp_event *ev)
{
	struct vs_addr_prev *p;

	addr_insert(o, ev, VS_ADDR_EA, ev->ea);
	p = &o->aprev[(ev->pc >> 2) & (VS_ADDR_PREV - 1)];
	if (p->run == o->arun && p->pc == ev->pc)
		addr_insert(o, ev, VS_ADDR_STRIDE, ev->ea - p->ea);
	p->pc = ev->pc;
	p->ea = ev->ea;
	p->run = o->arun;
}

void vs_obs_begin(struct vs_obs *o, uint32_t pid, const struct axp_ctx *ctx)
{
	o->ctx = ctx;
	o->pid = pid;
	o->tag = pid_tag(pid);
	o->seq = 0;
	o->nlog = 0;
	o->log_cross = 0;
	if (o->log)
		memset(o->log_head, 0, sizeof(o->log_head));
	if (o->gather & VS_GATHER_LOADLOAD)
		vs_order_begin(o);
	if ((o->gather & VS_GATHER_ADDRS) && !++o->arun) {
		memset(o->aprev, 0, sizeof(o->aprev)); /* run numbers wrapped: forget them all */
		o->arun = 1;
	}
}

void vs_obs_insn(void *priv, const struct axp_event *ev)
{
	struct vs_obs *o = priv;
	uint32_t sel = o->sel;
	uint64_t hk = hash_pc_pid(ev->pc, o->pid);

	o->hkey = hk; /* for the observers not inlined here */
	if (sel & 1u << OBS_VCOUNT)
		see_insn(o, ev, hk);
	if ((sel & 1u << OBS_VALUES) && has_value(ev))
		see_value(o, ev, hk);
	if ((sel & 1u << OBS_LATENCY) && ev->is_load)
		see_latency(o, ev, hk);
	if (sel & 1u << OBS_CONFLICTS)
		see_conflict_any(o, ev);
	if ((sel & 1u << OBS_PROC) && ev->insn)
		see_proc(o, ev);
	if ((sel & 1u << OBS_ADDRS) && ev->is_load)
		see_addr(o, ev);
	o->seq++;
}

void vs_obs_end(struct vs_obs *o)
{
	o->nlog = 0;
	o->ctx = NULL;
}

int vs_obs_flush(struct vs_obs *o)
{
	for (; o->flush_tab < VS_TAB_NR; o->flush_tab++) {
		struct vs_tab *tab = &o->tab[o->flush_tab];

		for (; tab->cursor < tab->nslots; tab->cursor++) {
			struct vs_key *s = slot_at(tab, o->flush_tab, tab->cursor);

			if (!s->live)
				continue;
			if (!emit_slot(o, o->flush_tab, s))
				return -ENOSPC; /* resumes at this slot */
			s->live = 0;
			tab->nfree++;
		}
		tab->cursor = 0;
	}
	o->flush_tab = 0;
	return 0;
}

uint32_t vs_obs_used(const struct vs_obs *o, unsigned int t)
{
	const struct vs_tab *tab = &o->tab[t];
	uint32_t i, n = 0;

	for (i = 0; i < tab->nslots; i++)
		n += slot_at(tab, t, i)->live;
	return n;
}
