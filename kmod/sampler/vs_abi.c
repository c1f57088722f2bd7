/* kmod/sampler/vs_abi.c - configuration defaults and checks, record validation (vs_abi.h). */
#include "vs_core.h"

/* One exit for every failed check: say which (with the line), return -EBADMSG (STYLE.md rule 6). */
#define VS_STR2(x) #x
#define VS_STR(x) VS_STR2(x)
#define VS_CORRUPT(why, msg) ((*(why) = "vs_abi.c:" VS_STR(__LINE__) ": " msg), -EBADMSG)
#define VS_INVALID(why, msg) ((*(why) = "vs_abi.c:" VS_STR(__LINE__) ": " msg), -EINVAL)

const char *const vs_gather_name[VS_GATHER_NR] = {
	"values", "latency", "conflicts", "loadload", "vcount", "args", "callers", "addrs",
};

int vs_config_default(struct vs_config *cfg, unsigned int mode)
{
	unsigned int e;

	if (mode >= VS_MODE_NR)
		return -EINVAL;
	memset(cfg, 0, sizeof(*cfg));
	cfg->abi_version = VS_ABI_VERSION;
	cfg->size = sizeof(*cfg);
	cfg->mode = mode;
	cfg->events = 1u << VS_EV_CYCLES;
	cfg->interp_events = 1u << VS_EV_CYCLES;
	cfg->hotlist_m = 16;
	cfg->hash_buckets = 1024; /* 4096 entries, 64 KB */
	cfg->buf_bytes = 64 * 1024;
	cfg->seed = 0x6a09e667f3bcc909ULL;
	for (e = 0; e < VS_EVENT_NR; e++) {
		cfg->period[e].lo = VS_PERIOD_LO_DEFAULT;
		cfg->period[e].hi = VS_PERIOD_HI_DEFAULT;
	}
	cfg->period[VS_EV_REPLAYS].lo = VS_PERIOD_REPLAYS_LO_DEFAULT;
	cfg->period[VS_EV_REPLAYS].hi = VS_PERIOD_REPLAYS_HI_DEFAULT;
	cfg->pme_period.lo = VS_PERIOD_LO_DEFAULT;
	cfg->pme_period.hi = VS_PERIOD_HI_DEFAULT;
	cfg->pme_window = VS_PME_W_DEFAULT;
	switch (mode) {
	case VS_MODE_VPROF:
		/*
		 * 8 instructions on one 62K-mean sample in 32 (~2M cycles), not slide 21's 4 per
		 * ~124K. In the real kernel an interpretation of 4 cost ~7,900 guest instructions
		 * (~3,400 fixed: capture, write-back, task_work, the return path; ~870 per
		 * instruction; issue 18, RPCC under QEMU -icount, linux/vs_drv_work.c), +5.8 points
		 * of run time at the slides' rate. 5% total leaves ~400 guest instructions per
		 * interrupt for interpreting: fewer instructions, in runs twice as long so that the
		 * fixed part is paid half as often per instruction (kernel test: +9.9% -> +4.7%, +4.8%).
		 * The draw stays a fresh one per eligible sample (vs_policy.c), so the value shares
		 * stay unbiased; runs start at a sampled pc, as DCPI's. The hosted machine keeps
		 * the slides' 1/2 and 4 (tools/axprof/builtin-record.c).
		 */
		cfg->gather = VS_GATHER_VALUES | VS_GATHER_LATENCY | VS_GATHER_VCOUNT;
		cfg->interp_num = 1;
		cfg->interp_den = VS_VPROF_SHARE_DEN;
		cfg->interp_budget = VS_VPROF_BUDGET;
		cfg->hot_entries = 512;
		cfg->lat_entries = 512;
		cfg->vc_entries = 512;
		cfg->proc_entries = 512; /* args, callers: off unless selected */
		break;
	case VS_MODE_VREPLAY:
		/* Slide 21: 128 instructions per ~8M cycles = one sample in 8M / 62K ~ 129. */
		cfg->gather = VS_GATHER_CONFLICTS | VS_GATHER_LOADLOAD | VS_GATHER_VCOUNT;
		cfg->interp_num = 1;
		cfg->interp_den = 129;
		cfg->interp_budget = 128;
		cfg->cnf_entries = 1024;
		cfg->vc_entries = 1024;
		cfg->hot_entries = 512; /* values, addrs: off unless selected */
		cfg->proc_entries = 512;
		break;
	case VS_MODE_PROFILEME:
		cfg->events = 0; /* ProfileMe only; counters may be added */
		cfg->interp_events = 0;
		break;
	default:
		break;
	}
	return 0;
}

static bool is_pow2_in(uint32_t v, uint32_t lo, uint32_t hi)
{
	return v >= lo && v <= hi && (v & (v - 1)) == 0;
}

int vs_config_check(const struct vs_config *cfg, const char **why)
{
	const char *dummy;
	bool interp;
	unsigned int e;

	if (!why)
		why = &dummy;
	if (cfg->abi_version != VS_ABI_VERSION)
		return VS_INVALID(why, "abi_version is not VS_ABI_VERSION");
	if (cfg->size != sizeof(*cfg))
		return VS_INVALID(why, "size is not sizeof(struct vs_config)");
	if (cfg->mode >= VS_MODE_NR)
		return VS_INVALID(why, "unknown mode");
	if ((!cfg->events && cfg->mode != VS_MODE_PROFILEME) || cfg->events >> VS_EVENT_NR)
		return VS_INVALID(why, "events: none, or an unknown event");
	if (cfg->mode == VS_MODE_PROFILEME) {
		const struct vs_period *p = &cfg->pme_period;

		if (cfg->pme_window > VS_PME_W_MAX)
			return VS_INVALID(why, "pme_window: at most VS_PME_W_MAX");
		if (p->lo <= cfg->pme_window + VS_PME_GAP || p->lo > p->hi ||
		    p->hi - p->lo >= VS_PERIOD_SPREAD_MAX)
			return VS_INVALID(why,
					  "pme_period: need pme_window + VS_PME_GAP < lo <= hi "
					  "< lo + 2^20");
	}
	for (e = 0; e < VS_EVENT_NR; e++) {
		const struct vs_period *p = &cfg->period[e];

		if (p->lo < 1 || p->lo > p->hi || p->hi - p->lo >= VS_PERIOD_SPREAD_MAX)
			return VS_INVALID(why, "period: need 1 <= lo <= hi < lo + 2^20");
		if ((cfg->period_prime & (1u << e)) && !vs_prime_at_or_after(p->lo, p->lo, p->hi))
			return VS_INVALID(why, "period_prime: no prime in the event's [lo, hi]");
	}
	if (cfg->period_prime >> VS_EVENT_NR)
		return VS_INVALID(why, "period_prime: a bit of an unknown event");
	if (cfg->flags & ~VS_CFG_FLAGS)
		return VS_INVALID(why, "flags: an unknown VS_CFG_* bit");
	if ((cfg->flags & VS_CFG_KERNEL_VALUES) && cfg->mode != VS_MODE_VPROF &&
	    cfg->mode != VS_MODE_VREPLAY)
		return VS_INVALID(why, "flags: KERNEL_VALUES needs a mode that interprets");
	if (!is_pow2_in(cfg->hash_buckets, VS_HASH_MIN_BUCKETS, VS_HASH_MAX_BUCKETS))
		return VS_INVALID(why, "hash_buckets: a power of two in range");
	if (cfg->buf_bytes < VS_BUF_MIN || cfg->buf_bytes > VS_BUF_MAX || cfg->buf_bytes % 8)
		return VS_INVALID(why, "buf_bytes: a multiple of 8 in range");
	if (cfg->gather & ~VS_GATHER_ALL)
		return VS_INVALID(why, "gather: unknown flag");
	interp = cfg->mode == VS_MODE_VPROF || cfg->mode == VS_MODE_VREPLAY;
	if (!interp)
		return 0;
	if ((cfg->gather & VS_GATHER_LOADLOAD) && !(cfg->gather & VS_GATHER_CONFLICTS))
		return VS_INVALID(why, "gather: LOADLOAD needs CONFLICTS");
	if (cfg->interp_events & ~cfg->events)
		return VS_INVALID(why, "interp_events: not a subset of events");
	if (cfg->interp_den < 1 || cfg->interp_num > cfg->interp_den)
		return VS_INVALID(why, "interp share: need den >= 1 and num <= den");
	if (cfg->interp_budget < 1 || cfg->interp_budget > VS_BUDGET_MAX)
		return VS_INVALID(why, "interp_budget: 1 .. VS_BUDGET_MAX");
	if ((cfg->gather & (VS_GATHER_VALUES | VS_GATHER_ADDRS)) &&
	    (cfg->hotlist_m < HOTLIST_MIN_M || cfg->hotlist_m > HOTLIST_MAX_M))
		return VS_INVALID(why, "hotlist_m: HOTLIST_MIN_M .. HOTLIST_MAX_M");
	if ((cfg->gather & (VS_GATHER_VALUES | VS_GATHER_ADDRS)) &&
	    !is_pow2_in(cfg->hot_entries, VS_TAB_MIN, VS_TAB_MAX))
		return VS_INVALID(why, "hot_entries: a power of two in range");
	if ((cfg->gather & VS_GATHER_LATENCY) &&
	    !is_pow2_in(cfg->lat_entries, VS_TAB_MIN, VS_TAB_MAX))
		return VS_INVALID(why, "lat_entries: a power of two in range");
	if ((cfg->gather & VS_GATHER_CONFLICTS) &&
	    !is_pow2_in(cfg->cnf_entries, VS_TAB_MIN, VS_TAB_MAX))
		return VS_INVALID(why, "cnf_entries: a power of two in range");
	if ((cfg->gather & VS_GATHER_VCOUNT) &&
	    !is_pow2_in(cfg->vc_entries, VS_TAB_MIN, VS_TAB_MAX))
		return VS_INVALID(why, "vc_entries: a power of two in range");
	if ((cfg->gather & (VS_GATHER_ARGS | VS_GATHER_CALLERS)) &&
	    (cfg->hotlist_m < HOTLIST_MIN_M || cfg->hotlist_m > HOTLIST_MAX_M))
		return VS_INVALID(why, "hotlist_m: HOTLIST_MIN_M .. HOTLIST_MAX_M");
	if ((cfg->gather & (VS_GATHER_ARGS | VS_GATHER_CALLERS)) &&
	    !is_pow2_in(cfg->proc_entries, VS_TAB_MIN, VS_TAB_MAX))
		return VS_INVALID(why, "proc_entries: a power of two in range");
	return 0;
}

/* ---- record validation: every length and field checked, nothing trusted ---- */

static uint16_t get16(const uint8_t *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

static bool all_zero(const void *p, size_t n)
{
	const uint8_t *b = p;

	while (n--)
		if (*b++)
			return false;
	return true;
}

static int check_sample(const void *buf, const char **why)
{
	struct vs_rec_sample r;

	memcpy(&r, buf, sizeof(r));
	if (r.pc & 3)
		return VS_CORRUPT(why, "sample: pc not a multiple of 4");
	if (!r.count)
		return VS_CORRUPT(why, "sample: zero count");
	if (r.event >= VS_EVENT_NR)
		return VS_CORRUPT(why, "sample: unknown event");
	if (r.flags != VS_SF_USER && r.flags != VS_SF_KERNEL)
		return VS_CORRUPT(why, "sample: flags not exactly one of USER, KERNEL");
	if (r.reserved)
		return VS_CORRUPT(why, "sample: reserved field not zero");
	return 0;
}

static int check_hotlist(const uint8_t *buf, size_t len, struct hotlist *h, const char **why)
{
	struct vs_rec_hotlist r;
	int used;

	memcpy(&r, buf, sizeof(r));
	if (r.pc & 3)
		return VS_CORRUPT(why, "hotlist: pc not a multiple of 4");
	if (r.dest > 62 || r.dest == 31)
		return VS_CORRUPT(why, "hotlist: dest not a writable register");
	if (r.reserved[0] || r.reserved[1] || r.reserved[2])
		return VS_CORRUPT(why, "hotlist: reserved field not zero");
	if (r.packed_len < HOTLIST_PACKED_SIZE(0) || r.packed_len > HOTLIST_PACKED_MAX)
		return VS_CORRUPT(why, "hotlist: packed_len out of range");
	if (VS_REC_HOTLIST_SIZE(r.packed_len) != len)
		return VS_CORRUPT(why, "hotlist: record length does not match packed_len");
	used = hotlist_unpack_why(h, buf + sizeof(r), r.packed_len, why);
	if (used < 0)
		return -EBADMSG;
	if ((uint32_t)used != r.packed_len)
		return VS_CORRUPT(why, "hotlist: packed_len is not the hotlist's size");
	if (!all_zero(buf + sizeof(r) + r.packed_len, len - sizeof(r) - r.packed_len))
		return VS_CORRUPT(why, "hotlist: padding not zero");
	return 0;
}

/* The cycles bucket b of a load's histogram stands for (vs_lat_bucket()): lowest, highest. */
_Static_assert(VS_LAT_BUCKETS == 16, "the bucket bounds below");
#define VS_LAT_P2(b) (1ULL << (b))
static const uint64_t lat_lo[VS_LAT_BUCKETS] = {
	0,
	VS_LAT_P2(0),
	VS_LAT_P2(1),
	VS_LAT_P2(2),
	VS_LAT_P2(3),
	VS_LAT_P2(4),
	VS_LAT_P2(5),
	VS_LAT_P2(6),
	VS_LAT_P2(7),
	VS_LAT_P2(8),
	VS_LAT_P2(9),
	VS_LAT_P2(10),
	VS_LAT_P2(11),
	VS_LAT_P2(12),
	VS_LAT_P2(13),
	VS_LAT_P2(14),
};
static const uint64_t lat_hi[VS_LAT_BUCKETS] = {
	0,
	VS_LAT_P2(1) - 1,
	VS_LAT_P2(2) - 1,
	VS_LAT_P2(3) - 1,
	VS_LAT_P2(4) - 1,
	VS_LAT_P2(5) - 1,
	VS_LAT_P2(6) - 1,
	VS_LAT_P2(7) - 1,
	VS_LAT_P2(8) - 1,
	VS_LAT_P2(9) - 1,
	VS_LAT_P2(10) - 1,
	VS_LAT_P2(11) - 1,
	VS_LAT_P2(12) - 1,
	VS_LAT_P2(13) - 1,
	VS_LAT_P2(14) - 1,
	UINT32_MAX,
};

static int check_latency(const void *buf, const char **why)
{
	struct vs_rec_latency r;
	uint64_t nl = 0, nh = 0, min = 0, max = 0;
	unsigned int i;

	memcpy(&r, buf, sizeof(r));
	if (r.pc & 3)
		return VS_CORRUPT(why, "latency: pc not a multiple of 4");
	if (r.reserved)
		return VS_CORRUPT(why, "latency: reserved field not zero");
	for (i = 0; i < VS_LAT_LEVELS; i++)
		nl += r.level[i];
	for (i = 0; i < VS_LAT_BUCKETS; i++) { /* bounds from tables: the daemon checks each */
		nh += r.hist[i];
		min += lat_lo[i] * r.hist[i];
		max += lat_hi[i] * r.hist[i];
	}
	if (!nl || nl != nh)
		return VS_CORRUPT(why,
				  "latency: level counts and histogram disagree (or are zero)");
	if (nl > UINT32_MAX)
		return VS_CORRUPT(why, "latency: more loads than a count holds");
	if (r.latency_sum < min || r.latency_sum > max)
		return VS_CORRUPT(why, "latency: latency_sum outside the histogram's bounds");
	return 0;
}

static int check_conflict(const void *buf, const char **why)
{
	struct vs_rec_conflict r;

	memcpy(&r, buf, sizeof(r));
	if ((r.pc | r.prior_pc) & 3)
		return VS_CORRUPT(why, "conflict: pc not a multiple of 4");
	if (!r.count)
		return VS_CORRUPT(why, "conflict: zero count");
	if (r.kind != VS_CNF_STORE_LOAD && r.kind != VS_CNF_LOAD_LOAD)
		return VS_CORRUPT(why, "conflict: unknown kind");
	if (r.reserved)
		return VS_CORRUPT(why, "conflict: reserved field not zero");
	if (!r.dist_min || r.dist_min >= VS_BUDGET_MAX)
		return VS_CORRUPT(why, "conflict: dist_min out of range");
	return 0;
}

static int check_vcount(const void *buf, const char **why)
{
	struct vs_rec_vcount r;

	memcpy(&r, buf, sizeof(r));
	if (r.pc & 3)
		return VS_CORRUPT(why, "vcount: pc not a multiple of 4");
	if (!r.count)
		return VS_CORRUPT(why, "vcount: zero count");
	if (r.reserved)
		return VS_CORRUPT(why, "vcount: reserved field not zero");
	return 0;
}

static int check_task(const uint8_t *p, const char **why)
{
	struct vs_rec_task r;
	unsigned int n = 0;

	memcpy(&r, p, sizeof(r));
	if (!r.pid || !r.tid)
		return VS_CORRUPT(why, "task: pid or tid zero");
	if (r.reserved)
		return VS_CORRUPT(why, "task: reserved field not zero");
	while (n < VS_COMM_LEN && r.comm[n])
		n++;
	if (n == 0 || n == VS_COMM_LEN)
		return VS_CORRUPT(why, "task: comm empty or not NUL-terminated in 16 bytes");
	for (unsigned int i = n; i < VS_COMM_LEN; i++)
		if (r.comm[i])
			return VS_CORRUPT(why, "task: comm byte set after its NUL");
	return 0;
}

static int check_stack(const uint8_t *p, unsigned int rlen, const char **why)
{
	struct vs_rec_stack r;
	uint64_t pc;

	memcpy(&r, p, sizeof(r));
	if (r.depth < 1 || r.depth > VS_STACK_MAX)
		return VS_CORRUPT(why, "stack: depth not in 1 .. VS_STACK_MAX");
	if (rlen != VS_REC_STACK_SIZE(r.depth))
		return VS_CORRUPT(why, "stack: length is not 16 + 8 * depth");
	if (!r.count)
		return VS_CORRUPT(why, "stack: zero count");
	if (r.event >= VS_EVENT_NR)
		return VS_CORRUPT(why, "stack: unknown event");
	if (r.flags & ~VS_STK_TRUNCATED)
		return VS_CORRUPT(why, "stack: unknown flag");
	for (unsigned int i = 0; i < r.depth; i++) {
		memcpy(&pc, p + sizeof(r) + 8 * i, 8);
		if (pc & 3)
			return VS_CORRUPT(why, "stack: a pc not a multiple of 4");
	}
	return 0;
}

static int check_profileme(const void *buf, const char **why)
{
	struct vs_rec_profileme r;
	uint64_t sum = 0;
	unsigned int i;

	memcpy(&r, buf, sizeof(r));
	if (r.pc & 3)
		return VS_CORRUPT(why, "profileme: pc not a multiple of 4");
	if (r.status >= VS_PME_NR)
		return VS_CORRUPT(why, "profileme: unknown status");
	if (r.events & ~VS_PME_E_ALL)
		return VS_CORRUPT(why, "profileme: unknown event bit");
	if ((r.events & VS_PME_E_BCMISS) && !(r.events & VS_PME_E_DMISS))
		return VS_CORRUPT(why, "profileme: B-cache miss without a D-cache miss");
	if (r.path >> 12)
		return VS_CORRUPT(why, "profileme: path history wider than 12 bits");
	if (r.flags != VS_SF_USER && r.flags != VS_SF_KERNEL)
		return VS_CORRUPT(why, "profileme: flags not exactly one of USER, KERNEL");
	if (!all_zero(r.reserved, sizeof(r.reserved)))
		return VS_CORRUPT(why, "profileme: reserved field not zero");
	if (r.pair > 2)
		return VS_CORRUPT(why, "profileme: pair not 0, 1 or 2");
	if (r.pair == 2 ? !r.pair_dist || r.pair_dist > VS_PME_W_MAX : r.pair_dist || r.pair_lat)
		return VS_CORRUPT(why,
				  "profileme: pair distance or latency wrong for its pair role");
	for (i = 0; i < VS_PME_L_NR; i++)
		sum += r.lat[i];
	if (r.status == VS_PME_RETIRED) {
		if (sum != r.span)
			return VS_CORRUPT(why, "profileme: latencies do not sum to the span");
	} else if (sum || r.retire_delay || r.target) {
		return VS_CORRUPT(why,
				  "profileme: an aborted instruction with latencies or target");
	}
	return 0;
}

static bool proc_reg_ok(unsigned int kind, unsigned int reg)
{
	switch (kind) {
	case VS_PROC_ARG:
		return (reg >= 16 && reg <= 21) || (reg >= 48 && reg <= 53);
	case VS_PROC_RET:
		return reg == 0 || reg == 32;
	case VS_PROC_CALLER:
		return reg == 26;
	default:
		return false;
	}
}

static int check_proc(const uint8_t *buf, size_t len, struct hotlist *h, const char **why)
{
	struct vs_rec_proc r;
	int used;

	memcpy(&r, buf, sizeof(r));
	if (r.pc & 3)
		return VS_CORRUPT(why, "proc: pc not a multiple of 4");
	if (!proc_reg_ok(r.kind, r.reg))
		return VS_CORRUPT(why, "proc: unknown kind, or a register that kind never has");
	if (r.reserved[0] || r.reserved[1])
		return VS_CORRUPT(why, "proc: reserved field not zero");
	if (r.packed_len < HOTLIST_PACKED_SIZE(0) || r.packed_len > HOTLIST_PACKED_MAX)
		return VS_CORRUPT(why, "proc: packed_len out of range");
	if (VS_REC_HOTLIST_SIZE(r.packed_len) != len)
		return VS_CORRUPT(why, "proc: record length does not match packed_len");
	used = hotlist_unpack_why(h, buf + sizeof(r), r.packed_len, why);
	if (used < 0)
		return -EBADMSG;
	if ((uint32_t)used != r.packed_len)
		return VS_CORRUPT(why, "proc: packed_len is not the hotlist's size");
	if (!all_zero(buf + sizeof(r) + r.packed_len, len - sizeof(r) - r.packed_len))
		return VS_CORRUPT(why, "proc: padding not zero");
	return 0;
}

static int check_addr(const uint8_t *buf, size_t len, struct hotlist *h, const char **why)
{
	struct vs_rec_addr r;
	int used;

	memcpy(&r, buf, sizeof(r));
	if (r.pc & 3)
		return VS_CORRUPT(why, "addr: pc not a multiple of 4");
	if (r.kind != VS_ADDR_EA && r.kind != VS_ADDR_STRIDE)
		return VS_CORRUPT(why, "addr: unknown kind");
	if (r.reserved[0] || r.reserved[1] || r.reserved[2])
		return VS_CORRUPT(why, "addr: reserved field not zero");
	if (r.packed_len < HOTLIST_PACKED_SIZE(0) || r.packed_len > HOTLIST_PACKED_MAX)
		return VS_CORRUPT(why, "addr: packed_len out of range");
	if (VS_REC_HOTLIST_SIZE(r.packed_len) != len)
		return VS_CORRUPT(why, "addr: record length does not match packed_len");
	used = hotlist_unpack_why(h, buf + sizeof(r), r.packed_len, why);
	if (used < 0)
		return -EBADMSG;
	if ((uint32_t)used != r.packed_len)
		return VS_CORRUPT(why, "addr: packed_len is not the hotlist's size");
	if (!all_zero(buf + sizeof(r) + r.packed_len, len - sizeof(r) - r.packed_len))
		return VS_CORRUPT(why, "addr: padding not zero");
	return 0;
}

static int check_stats(const void *buf, const char **why)
{
	struct vs_rec_stats r;
	uint64_t ev = 0, i;

	memcpy(&r, buf, sizeof(r));
	for (i = 0; i < VS_EVENT_NR; i++)
		ev += r.st.samples_event[i];
	if (r.st.samples_user + r.st.samples_kernel > r.st.samples || ev > r.st.samples)
		return VS_CORRUPT(why, "stats: per-mode or per-event samples exceed the total");
	for (i = VS_REC_NR; i < VS_REC_SLOTS; i++)
		if (r.st.records[i])
			return VS_CORRUPT(why, "stats: records counted for an unknown type");
	for (i = VS_DROP_NR; i < VS_DROP_SLOTS; i++)
		if (r.st.drops[i])
			return VS_CORRUPT(why, "stats: drops counted for an unknown cause");
	return 0;
}

/* vs_abi_check_record(), the hotlist of a record that carries one unpacked into *h. */
static int check_record(const void *buf, size_t len, struct hotlist *h, const char **why)
{
	const uint8_t *p = buf;
	const char *dummy;
	unsigned int type, rlen;
	size_t want = 0;
	int err;

	if (!why)
		why = &dummy;
	*why = NULL;
	if (!buf || len < sizeof(struct vs_rec_hdr))
		return VS_CORRUPT(why, "shorter than a record header");
	type = get16(p);
	rlen = get16(p + 2);
	if (rlen < 8 || rlen % VS_REC_ALIGN || rlen > VS_REC_MAX)
		return VS_CORRUPT(why, "record length not a multiple of 8 in 8 .. VS_REC_MAX");
	if (rlen > len)
		return VS_CORRUPT(why, "record runs past the end of the data");
	switch (type) {
	case VS_REC_SAMPLE:
		want = sizeof(struct vs_rec_sample);
		break;
	case VS_REC_HOTLIST:
	case VS_REC_PROC:
	case VS_REC_ADDR:
		if (rlen < sizeof(struct vs_rec_hotlist) + HOTLIST_PACKED_SIZE(0))
			return VS_CORRUPT(why, "hotlist: shorter than an empty hotlist");
		break;
	case VS_REC_LATENCY:
		want = sizeof(struct vs_rec_latency);
		break;
	case VS_REC_CONFLICT:
		want = sizeof(struct vs_rec_conflict);
		break;
	case VS_REC_VCOUNT:
		want = sizeof(struct vs_rec_vcount);
		break;
	case VS_REC_STATS:
		want = sizeof(struct vs_rec_stats);
		break;
	case VS_REC_PROFILEME:
		want = sizeof(struct vs_rec_profileme);
		break;
	case VS_REC_STACK:
		break; /* check_stack: the length follows from depth */
	case VS_REC_TASK:
		want = sizeof(struct vs_rec_task);
		break;
	case 0:
		return VS_CORRUPT(why, "record type 0");
	default:
		return (int)rlen; /* a later version's type: the reader skips it */
	}
	if (want && rlen != want)
		return VS_CORRUPT(why, "record length wrong for its type");
	switch (type) {
	case VS_REC_SAMPLE:
		err = check_sample(p, why);
		break;
	case VS_REC_HOTLIST:
		err = check_hotlist(p, rlen, h, why);
		break;
	case VS_REC_LATENCY:
		err = check_latency(p, why);
		break;
	case VS_REC_CONFLICT:
		err = check_conflict(p, why);
		break;
	case VS_REC_VCOUNT:
		err = check_vcount(p, why);
		break;
	case VS_REC_PROFILEME:
		err = check_profileme(p, why);
		break;
	case VS_REC_PROC:
		err = check_proc(p, rlen, h, why);
		break;
	case VS_REC_ADDR:
		err = check_addr(p, rlen, h, why);
		break;
	case VS_REC_STACK:
		err = check_stack(p, rlen, why);
		break;
	case VS_REC_TASK:
		err = check_task(p, why);
		break;
	default:
		err = check_stats(p, why);
		break;
	}
	return err ? err : (int)rlen;
}

int vs_abi_check_record(const void *buf, size_t len, const char **why)
{
	struct hotlist h; /* a hotlist-carrying record's, checked and dropped */

	return check_record(buf, len, &h, why);
}

int vs_abi_check_record_hotlist(const void *buf, size_t len, struct hotlist *h, const char **why)
{
	return check_record(buf, len, h, why);
}
