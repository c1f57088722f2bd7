/* machine/mach_ev5.c - EV5 (21164) timing model: issue, latencies, caches, TLBs, prediction. */
/*
 * The functional machine executes each instruction and then calls mach_ev5_retire() in program
 * order. This model decides the cycle in which the instruction issues. The cycles between the
 * previous instruction's issue and this one's are "head of issue" cycles charged to this
 * instruction (it sat at the head of the issue stage; DCPI SOSP'97 §4 and §6: on the 21164
 * instructions stall only there, and CYCLES samples are proportional to that time). They are
 * split by cause (enum mach_stall in mach_truth.h).
 *
 * Sources (see machine/EV5-MODEL.md for the full list, and which numbers are verified):
 *   [ev5.md]  gcc config/alpha/ev5.md: pipes E0/E1/FA/FM, classes, latencies, IMUL occupancy,
 *             the ICMP/ILOG -> IBR/CMOV 0-cycle bypass, multiplier input penalty.
 *   [HRM]     21164(PC) Hardware Reference Manual ch. 2: INT16 slotting, in-order issue, write
 *             buffer (6 entries, merging within a 32-byte block), MAF, multiplier repeat rate.
 *   [DCPI]    Anderson et al., SOSP'97 §4 (PMU interrupt delivery), §6 (Figure 7: a load cannot
 *             issue two cycles after a store; static vs dynamic stalls).
 *   [brief]   defaults the project chose where the above are silent (marked [U] in the .md).
 *
 * Issue (per instruction, in program order):
 *   - Instructions issue in order, up to four a cycle, all from one naturally aligned 16-byte
 *     fetch block (INT16); a new block or a redirected fetch starts a new cycle [HRM].
 *   - Pipes: E0 only (shifts, MVI, stores, misc, IMUL, LDx_L), E1 only (branches, JSR class,
 *     CALL_PAL), E0 or E1 (loads, IADD, ILOG/ICMP, CMOV), FA (FADD, FCMOV, FBR, FDIV), FM (FMUL),
 *     FA or FM (CPYS, ITOF/FTOI). A cycle holds at most 2 integer and 2 FP instructions; an
 *     E0/E1 instruction takes whichever pipe is left (the slotter's look-ahead) [ev5.md].
 *   - Stores do not issue in the same cycle as loads [ev5.md]; a load does not issue exactly two
 *     cycles after a store [DCPI §6.1.3]; a load issued the cycle after a store to the same
 *     quadword replays (cost `replay`) [HRM 2-33].
 *   - Operands: a consumer issues when its sources are ready (latencies from [ev5.md]; stores
 *     need their data); ICMP/ILOG feed a same-cycle IBR/CMOV through a 0-cycle bypass; a
 *     multiply's latency grows by up to 2 when a source was produced just before it; no
 *     instruction issues to E0 two cycles before a multiply completes [ev5.md].
 *   - The integer multiplier accepts a new multiply 4 (MULL) or 8 (MULQ, UMULH) cycles after the
 *     last [HRM p. 2-25]; the FP divider is busy for the whole divide (15 S, 22 T) [ev5.md].
 *   - TRAPB, EXCB, MB and CALL_PAL wait until every earlier result is ready; MB also waits for
 *     the write buffer to drain.
 * Memory:
 *   - I-cache and D-cache: 8 KB, direct mapped, 32-byte blocks. D-cache write-through, no
 *     allocate on store; load hit latency 2. A load miss does not stall issue: its consumers
 *     wait. Up to 6 outstanding misses (MAF); loads to a block already being filled merge.
 *   - S-cache 96 KB 3-way LRU, 64-byte blocks, write-back, write-allocate; B-cache direct
 *     mapped (default 2 MB), 64-byte blocks, write-back; memory. Latencies (load-use): S 8,
 *     B `bcache_latency` (20), memory `mem_latency` (80); every 64-byte memory transfer
 *     occupies the bus `mem_occupancy` cycles (demand reads first, writes and writebacks after).
 *   - I-cache misses refill from the S-cache/B-cache/memory through a 4-block I-stream buffer
 *     that prefetches the next sequential blocks (two cycles apart) after every miss.
 *   - ITB 48 and DTB 64 entries, fully associative, round-robin, 8 KB pages, miss penalties
 *     `itb_miss` (fetch delayed) and `dtb_miss` (the load/store re-issues).
 *   - Write buffer: 6 entries of one 32-byte block each. A store merges into the youngest entry
 *     if it is still open (same block, not yet draining) and otherwise takes a new entry; when
 *     all 6 are busy the store waits (WBFULL) for the oldest to finish. An entry closes when the
 *     next entry is allocated, after `wb_timeout` cycles, or on MB/WMB; closed entries drain one
 *     at a time: `wb_scache` cycles if the block is in the S-cache, else the S-cache fill latency
 *     (write-allocate from B-cache or memory).
 * Control:
 *   - Conditional branches: one 2-bit counter per I-cache instruction slot (2048), reset to the
 *     static prediction (backward taken) when the block is refilled. JMP/JSR predict the target
 *     from the hint field; RET and JSR_COROUTINE from a 12-entry return stack. A misprediction
 *     delays the next instruction by `mispredict` (5) cycles (charged to it, BRANCHMP).
 *     A correctly predicted taken branch costs only the new fetch block (next cycle).
 *
 * Cause split: static constraints (issue block, slotting, pipes, producer latencies as if every
 * load hit) give the earliest cycle the static schedule explains; dynamic constraints (I-cache,
 * ITB, the previous branch's misprediction, a missing load's data, MAF, DTB, write buffer,
 * multiplier/divider busy, replay, PAL) each add the cycles by which they exceed everything
 * before them; the rest of the head-of-issue cycles are STATIC.
 *
 * Not modelled: S-cache bank conflicts, B-cache/memory queuing beyond the bus occupancy, loads
 * checking the write buffer, FDIV's late FA reservation, the FP divider's data-dependent
 * latency, IMUL/FDIV traps, PALcode and kernel time beyond `pal_cycles`.
 */
#include <stdlib.h>

#include "exec_loop.h"
#include "mach_ev5_model.h"

void mach_ev5_params_default(struct mach_ev5_params *p)
{
	memset(p, 0, sizeof(*p));
	p->dcache_lat = ISA_EV5_DCACHE_LAT; /* [ev5.md] "loads from L0 complete in two cycles" */
	p->scache_lat = 8; /* [brief] S-cache ~8 */
	p->bcache_lat = 20; /* [brief] B-cache ~20 */
	p->mem_lat = 80; /* [brief] memory ~80 */
	p->mem_occupancy = 80; /* [U] calibrated: DCPI Figure 7's copy loop is bandwidth bound */
	p->bcache_kb = 2048; /* [U] 2 MB, as on AlphaStation 500/600 class systems */
	p->mispredict = 5; /* [brief]/[U] 21164 HRM ch. 2 */
	p->itb_miss = 20; /* [U] PALcode ITB fill */
	p->dtb_miss = 25; /* [U] PALcode DTB fill incl. the PTE load */
	p->wb_scache = 4; /* [U] one write-buffer entry into the S-cache */
	p->wb_timeout = 64; /* [U] */
	p->pal_cycles = 30; /* [U] */
	p->replay = 7; /* [HRM 2-33 via refs §4] */
}

/* ------------------------------------------------------------------------------------------ */
/* Per-op table. */

static uint64_t use_vector(const struct ev5_op *o);
static void pd_init(struct mach_ev5 *m);
static inline uint64_t bias_at(const struct mach_ev5 *m, uint64_t t);

/* Operand `s` of isa_ev5_op (0: unused, else 1 + register-file offset) as mask and offset. */
static void reg_field(unsigned int s, unsigned int none, uint8_t *mask, uint8_t *off)
{
	*mask = s ? 31 : 0;
	*off = (uint8_t)(s ? s - 1u : none);
}

/* The per-op table: the ISA facts (isa/isa_ev5.h) with this model's D-cache hit latency. */
static void build_ops(struct mach_ev5 *m)
{
	for (unsigned int op = 0; op < AXP_OP_NR; op++) {
		struct ev5_op *o = &m->ops[op];
		struct isa_ev5_op f;

		isa_ev5_op(op, m->p.dcache_lat, &f);
		*o = (struct ev5_op){
			.pipe = f.pipe,
			.lat = f.lat,
			.repeat = f.repeat,
			.sa = f.sa,
			.sb = f.sb,
			.sc = f.sc,
			.da = f.da,
			.dc = f.dc,
			.kind = f.kind,
		};
		o->use = use_vector(o);
		reg_field(o->sa, EV5_REG_NONE, &o->ma, &o->oa);
		reg_field(o->sb, EV5_REG_NONE, &o->mb, &o->ob);
		reg_field(o->sc, EV5_REG_NONE, &o->mc, &o->oc);
		o->d_ra = o->da != 0;
		reg_field(o->da ? o->da : o->dc, EV5_REG_SINK, &o->md, &o->od);
	}
}

/* ------------------------------------------------------------------------------------------ */
/* Lifecycle. */

int mach_ev5_new_params(struct mach_ev5 **out, const struct mach_ev5_params *p)
{
	struct mach_ev5 *m;
	size_t nbc;
	int err;

	*out = NULL;
	if (!p->bcache_kb || (p->bcache_kb & (p->bcache_kb - 1)) || p->bcache_kb > (1u << 20))
		return -EINVAL;
	m = calloc(1, sizeof(*m));
	if (!m)
		return -ENOMEM;
	m->p = *p;
	nbc = (size_t)p->bcache_kb * 1024 >> EV5_SC_SHIFT;
	m->bc_tag = calloc(nbc, sizeof(*m->bc_tag));
	if (!m->bc_tag) {
		err = -ENOMEM;
		goto out_free;
	}
	m->bc_mask = nbc - 1;
	build_ops(m);
	pd_init(m);

	m->blk = UINT64_MAX;
	m->iline = UINT64_MAX;
	m->ipage = UINT64_MAX;
	m->last_store_t = (uint64_t)-16;
	m->last_store_q = UINT64_MAX;
	m->e0_block = UINT64_MAX;
	m->ub = bias_at(m, 0);
	m->dpage[0] = m->dpage[1] = UINT64_MAX;
	memset(m->ic_tag, 0xff, sizeof(m->ic_tag));
	memset(m->dc_tag, 0xff, sizeof(m->dc_tag));
	memset(m->is_line, 0xff, sizeof(m->is_line));
	memset(m->bht, 0xff, sizeof(m->bht));
	memset(m->itb.vpn, 0xff, sizeof(m->itb.vpn));
	memset(m->dtb.vpn, 0xff, sizeof(m->dtb.vpn));
	for (unsigned int set = 0; set < EV5_SC_SETS; set++)
		for (unsigned int w = 0; w < EV5_SC_WAYS; w++)
			m->sc_lru[set][w] = (uint8_t)w; /* ages stay a permutation of 0..2 */
	m->itb.n = EV5_ITB_N;
	m->dtb.n = EV5_DTB_N;
	m->redirect = true;
	ev5_pmu_init(m);

	if (p->truth) {
		err = ev5_truth_new(&m->truth);
		if (err)
			goto out_free_bc;
	}
	*out = m;
	return 0;

out_free_bc:
	free(m->bc_tag);
out_free:
	free(m);
	return err;
}

int mach_ev5_new(struct mach_ev5 **out, const struct mach_ev5_cfg *cfg)
{
	struct mach_ev5_params p;

	mach_ev5_params_default(&p);
	if (cfg) {
		if (cfg->mem_latency)
			p.mem_lat = cfg->mem_latency;
		if (cfg->bcache_latency)
			p.bcache_lat = cfg->bcache_latency;
		p.truth = cfg->truth;
	}
	return mach_ev5_new_params(out, &p);
}

void mach_ev5_free(struct mach_ev5 *m)
{
	if (!m)
		return;
	if (EV5_STUDY)
		ev5_study_report(m);
	ev5_truth_free(m->truth);
	free(m->bc_tag);
	free(m);
}

uint64_t mach_ev5_cycles(const struct mach_ev5 *m)
{
	return m->cur;
}

uint64_t mach_ev5_count(const struct mach_ev5 *m, enum mach_event event)
{
	if ((unsigned int)event >= MACH_EV_NR)
		return 0;
	return m->count[event];
}

/* The STATIC head cycles: every head cycle not in a dynamic cause (the retire books only the
 * dynamic ones; the head cycles of all instructions are the cycles outside the kernel). */
static uint64_t stall_static(const struct mach_ev5 *m)
{
	uint64_t st = m->cur - m->kcycles;

	for (unsigned int c = 0; c < MACH_STALL_NR; c++)
		if (c != MACH_STALL_STATIC)
			st -= m->stall[c];
	return st;
}

void ev5_stall_sync(struct mach_ev5 *m)
{
	m->stall[MACH_STALL_STATIC] = stall_static(m);
}

uint64_t mach_ev5_stall_total(const struct mach_ev5 *m, enum mach_stall cause)
{
	if ((unsigned int)cause >= MACH_STALL_NR)
		return 0;
	return cause == MACH_STALL_STATIC ? stall_static(m) : m->stall[cause];
}

int mach_ev5_truth_write(struct mach_ev5 *m, const char *path)
{
	if (!m->truth)
		return -EINVAL;
	ev5_stall_sync(m);
	return ev5_truth_write(m, path);
}

/* ------------------------------------------------------------------------------------------ */
/* Memory hierarchy below the first-level caches. */

static inline uint64_t max64(uint64_t a, uint64_t b)
{
	return a > b ? a : b;
}

/*
 * Memory bus: every 64-byte transfer occupies it for `mem_occupancy` cycles. Demand reads (load
 * and instruction-fetch misses) are served first: they queue only behind earlier demand reads.
 * Write-buffer fills and writebacks use the bandwidth left, queueing behind everything reserved
 * before them. Returns the cycles from `t` until the data is back.
 */
static uint64_t mem_transfer(struct mach_ev5 *m, uint64_t t, bool demand)
{
	uint64_t occ = m->p.mem_occupancy, start;

	if (!occ)
		return m->p.mem_lat;
	if (demand) {
		start = max64(t, m->rd_free);
		m->rd_free = start + occ;
		m->mem_free = max64(m->mem_free, start) + occ;
	} else {
		start = max64(t, m->mem_free);
		m->mem_free = start + occ;
	}
	return start - t + m->p.mem_lat;
}

static void mem_writeback(struct mach_ev5 *m, uint64_t t)
{
	if (m->p.mem_occupancy)
		m->mem_free = max64(t, m->mem_free) + m->p.mem_occupancy;
}

#define BC_DIRTY (1ull << 63)

/* Write a dirty S-cache victim into the B-cache. */
static void bc_victim(struct mach_ev5 *m, uint64_t blk, uint64_t t)
{
	uint64_t *e = &m->bc_tag[blk & m->bc_mask];

	if ((*e & ~BC_DIRTY) != blk + 1 && (*e & BC_DIRTY))
		mem_writeback(m, t);
	*e = (blk + 1) | BC_DIRTY;
}

static void sc_touch(struct mach_ev5 *m, unsigned int set, unsigned int w)
{
	uint8_t *age = m->sc_lru[set];

	if (!age[w]) /* already the most recent: nothing is younger */
		return;
	for (unsigned int i = 0; i < EV5_SC_WAYS; i++)
		if (age[i] < age[w])
			age[i]++;
	age[w] = 0;
}

/* lower_access() of block blk (set `set`) missing the S-cache: fill it from the B-cache or memory,
 * writing back a dirty victim. */
static __attribute__((__noinline__)) uint32_t lower_fill(struct mach_ev5 *m, uint64_t blk,
							 unsigned int set, uint64_t t, bool write,
							 uint32_t *level)
{
	uint64_t *tag = m->sc_tag[set], *bc;
	unsigned int w, victim = 0;
	uint32_t lat;

	for (w = 0; w < EV5_SC_WAYS; w++) {
		if (!tag[w]) {
			victim = w;
			break;
		}
		if (m->sc_lru[set][w] > m->sc_lru[set][victim])
			victim = w;
	}
	if (tag[victim] && m->sc_dirty[set][victim])
		bc_victim(m, tag[victim] - 1, t);

	bc = &m->bc_tag[blk & m->bc_mask];
	if ((*bc & ~BC_DIRTY) == blk + 1) {
		lat = m->p.bcache_lat;
		*level = AXP_LVL_BCACHE;
	} else {
		if (*bc & BC_DIRTY)
			mem_writeback(m, t);
		lat = (uint32_t)mem_transfer(m, t, !write);
		*bc = blk + 1;
		*level = AXP_LVL_MEMORY;
	}
	tag[victim] = blk + 1;
	m->sc_dirty[set][victim] = write;
	sc_touch(m, set, victim);
	return lat;
}

/*
 * An access that missed the first-level cache, at cycle `t`: probe the S-cache (inline: most
 * such accesses hit it), else lower_fill(). Returns the load-use latency and the level that
 * supplied the block.
 */
static inline uint32_t lower_access(struct mach_ev5 *m, uint64_t addr, uint64_t t, bool write,
				    uint32_t *level)
{
	const uint64_t blk = addr >> EV5_SC_SHIFT;
	const unsigned int set = blk & (EV5_SC_SETS - 1);
	const uint64_t *tag = m->sc_tag[set];

	for (unsigned int w = 0; w < EV5_SC_WAYS; w++) {
		if (tag[w] == blk + 1) {
			sc_touch(m, set, w);
			if (write)
				m->sc_dirty[set][w] = 1;
			*level = AXP_LVL_SCACHE;
			return m->p.scache_lat;
		}
	}
	return lower_fill(m, blk, set, t, write, level);
}

/* The TLB's hint slot for vpn. */
static inline unsigned int tlb_hint(uint64_t vpn)
{
	return (unsigned int)((vpn * 0x9e3779b97f4a7c15ull) >> 56);
}

/* tlb_lookup()'s first test: vpn is where its hint says (a hit that changes nothing). */
static inline bool tlb_hint_hit(const struct ev5_tlb *tlb, uint64_t vpn)
{
	const unsigned int s = tlb->hint[tlb_hint(vpn)];

	return s < tlb->n && tlb->vpn[s] == vpn;
}

/* Fully associative TLB with round-robin replacement; a hint table avoids the search. */
static bool tlb_lookup(struct ev5_tlb *tlb, uint64_t vpn)
{
	unsigned int h = tlb_hint(vpn);
	unsigned int s;

	if (tlb_hint_hit(tlb, vpn))
		return true;
	for (unsigned int i = 0; i < tlb->n; i++) {
		if (tlb->vpn[i] == vpn) {
			tlb->hint[h] = (uint8_t)i;
			return true;
		}
	}
	s = tlb->next;
	tlb->next = (s + 1) % tlb->n;
	tlb->vpn[s] = vpn;
	tlb->hint[h] = (uint8_t)s;
	return false;
}

/* ------------------------------------------------------------------------------------------ */
/* Write buffer. */

/* Entry i (0: the oldest); i <= EV5_WB_N. */
static struct ev5_wb_entry *wb_at(struct mach_ev5 *m, unsigned int i)
{
	return &m->wb[(m->wb_head + i) & (EV5_WB_SLOTS - 1)];
}

/* Free the oldest entry. */
static void wb_pop(struct mach_ev5 *m)
{
	m->wb_head = (m->wb_head + 1) & (EV5_WB_SLOTS - 1);
	m->wb_n--;
}

/*
 * Close entry `e` for merging at cycle `at` and schedule its write after every write scheduled
 * before (they drain one at a time). wb_done is the latest completion of any write scheduled so
 * far: a write already freed completed by the wb_update() that freed it, which (cycles only
 * grow) is no later than `at`, so it cannot delay this one, and the buffer need not be searched.
 */
static void wb_close(struct mach_ev5 *m, struct ev5_wb_entry *e, uint64_t at)
{
	uint64_t start = max64(at, m->wb_done);
	uint32_t lvl, lat;

	lat = lower_access(m, e->blk << EV5_LINE_SHIFT, start, true, &lvl);
	e->done = start + (lvl == AXP_LVL_SCACHE ? m->p.wb_scache : lat) + e->coh;
	e->sched = true;
	m->wb_done = max64(m->wb_done, e->done);
}

/*
 * The first cycle at which wb_update() must run wb_advance(): the open entry's timeout (only the
 * newest entry may be open: wb_store() closes it before allocating another, wb_drain() closes
 * every entry) or, when the buffer is full, the oldest entry's completion. A finished entry of a
 * buffer that is not full may stay until then: nothing reads it but a count that stays below
 * EV5_WB_N either way (wb_room(), wb_store()), wb_drain()'s maximum (its completion is no later
 * than the drain's cycle) and a full buffer's oldest completion (no later than the cycle asking);
 * wb_done is kept apart. Before wb_due, wb_advance() would free only such entries.
 */
static inline void wb_due_set(struct mach_ev5 *m)
{
	uint64_t due = UINT64_MAX;

	if (m->wb_n) {
		const struct ev5_wb_entry *y = wb_at(m, m->wb_n - 1), *h = wb_at(m, 0);

		if (!y->sched)
			due = y->create + m->p.wb_timeout;
		if (m->wb_n == EV5_WB_N && h->sched && h->done < due)
			due = h->done;
	}
	m->wb_due = due;
}

/* Bring the write buffer up to cycle `t`: time out the open entry, free finished entries. */
static __attribute__((__noinline__)) void wb_advance(struct mach_ev5 *m, uint64_t t)
{
	m->wb_t = t;
	if (m->wb_n) {
		struct ev5_wb_entry *y = wb_at(m, m->wb_n - 1);

		if (!y->sched && y->create + m->p.wb_timeout <= t)
			wb_close(m, y, y->create + m->p.wb_timeout);
	}
	while (m->wb_n) {
		struct ev5_wb_entry *h = wb_at(m, 0);

		if (!h->sched || h->done > t)
			break;
		wb_pop(m);
	}
	wb_due_set(m);
}

/* wb_advance() unless the buffer is already at t (a store's second look, in wb_store()); before
 * wb_due nothing is due, and only the cycle is noted. */
static inline void wb_update(struct mach_ev5 *m, uint64_t t)
{
	if (t != m->wb_t) {
		if (t >= m->wb_due)
			wb_advance(m, t);
		else
			m->wb_t = t;
	}
}

/* Earliest cycle >= t at which a store to block `blk` finds room. */
static inline uint64_t wb_room(struct mach_ev5 *m, uint64_t blk, uint64_t t)
{
	struct ev5_wb_entry *y;

	wb_update(m, t);
	if (!m->wb_n)
		return t;
	y = wb_at(m, m->wb_n - 1);
	if (!y->sched && y->blk == blk)
		return t;
	if (m->wb_n < EV5_WB_N)
		return t;
	return max64(t, wb_at(m, 0)->done);
}

static inline void wb_store(struct mach_ev5 *m, uint64_t blk, uint64_t t, uint32_t coh)
{
	struct ev5_wb_entry *y, *e;

	wb_update(m, t);
	if (m->wb_n) {
		y = wb_at(m, m->wb_n - 1);
		if (!y->sched) {
			if (y->blk == blk) {
				y->coh += coh;
				return;
			}
			wb_close(m, y, t);
		}
	}
	if (m->wb_n == EV5_WB_N) {
		/* wb_room() made the caller wait for the oldest, or (a second store in the same
		 * cycle) the oldest finished and wb_due_set() kept it: drop it (and forget its
		 * completion, which may be later than t) */
		wb_pop(m);
		m->wb_done = 0;
		for (unsigned int i = 0; i < m->wb_n; i++)
			if (wb_at(m, i)->sched)
				m->wb_done = max64(m->wb_done, wb_at(m, i)->done);
	}
	e = wb_at(m, m->wb_n);
	e->blk = blk;
	e->coh = coh;
	e->create = t;
	e->done = 0;
	e->sched = false;
	m->wb_n++;
	wb_due_set(m);
}

/* Close the open entry (MB, WMB) at `t`; return the cycle the buffer is empty. */
static uint64_t wb_drain(struct mach_ev5 *m, uint64_t t)
{
	uint64_t last = t;

	wb_update(m, t);
	for (unsigned int i = 0; i < m->wb_n; i++) {
		struct ev5_wb_entry *e = wb_at(m, i);

		if (!e->sched)
			wb_close(m, e, t);
		last = max64(last, e->done);
	}
	wb_due_set(m);
	return last;
}

/* ------------------------------------------------------------------------------------------ */
/* Instruction fetch. */

/* The event's fields control() and account() read, built where they are called (the other
 * helpers take the ones they read: the run loop's event itself stays in registers). */
struct ev5_ev {
	uint64_t pc, next_pc, ea;
	bool taken;
};

/* Dynamic constraints of one instruction: "may not issue before `at` because of `cause`". */
struct ev5_dyn {
	unsigned int n;
	uint64_t at[8];
	uint8_t cause[8];
};

static inline void dyn_add(struct ev5_dyn *dy, uint64_t at, unsigned int cause)
{
	if (dy->n < 8) {
		dy->at[dy->n] = at;
		dy->cause[dy->n++] = (uint8_t)cause;
	}
}

/* Event bits gathered during one retire. */
#define EVB_IMISS (1u << 0)
#define EVB_ITBMISS (1u << 1)
#define EVB_DMISS (1u << 2)
#define EVB_DTBMISS (1u << 3)
#define EVB_BRANCHMP (1u << 4)

/* I-cache refill of block `line` requested at `t`: cycle the block arrives. */
static uint64_t istream_fill(struct mach_ev5 *m, uint64_t line, uint64_t t)
{
	unsigned int s = line & (EV5_ISTREAM_N - 1);
	uint64_t ready;
	uint32_t lvl;

	if (m->is_line[s] == line)
		ready = max64(t, m->is_ready[s]);
	else
		ready = t + lower_access(m, line << EV5_LINE_SHIFT, t, false, &lvl);
	/* Keep the stream buffer EV5_ISTREAM_N blocks ahead, one request every 2 cycles. */
	for (unsigned int k = 1; k <= EV5_ISTREAM_N; k++) {
		uint64_t l = line + k;
		unsigned int j = l & (EV5_ISTREAM_N - 1);
		uint64_t req = t + 2 * k;

		if (m->is_line[j] == l)
			continue;
		m->is_line[j] = l;
		m->is_ready[j] = req + lower_access(m, l << EV5_LINE_SHIFT, req, false, &lvl);
	}
	return ready;
}

/* The first instruction of a new I-cache block: ITB and I-cache. Returns the fetch cycle. */
static __attribute__((__noinline__)) uint64_t fetch_block(struct mach_ev5 *m, uint64_t pc,
							  struct ev5_dyn *dy, unsigned int *evb)
{
	uint64_t line = pc >> EV5_LINE_SHIFT;
	uint64_t start = m->redirect ? m->fetch_redirect : m->line_first;
	uint64_t ready = start;
	unsigned int i = line & (EV5_L1_LINES - 1);

	m->iline = line;
	if ((pc >> EV5_PAGE_SHIFT) != m->ipage) {
		m->ipage = pc >> EV5_PAGE_SHIFT;
		if (!tlb_lookup(&m->itb, m->ipage)) {
			ready += m->p.itb_miss;
			dyn_add(dy, ready + 1, MACH_STALL_ITBMISS);
			*evb |= EVB_ITBMISS;
		}
	}
	if (m->ic_tag[i] != line) {
		ready = istream_fill(m, line, ready);
		m->ic_tag[i] = line;
		/* the block's branch history starts over (history lives with the I-cache block) */
		memset(&m->bht[(line * 8) & (EV5_BHT_N - 1)], 0xff, 8);
		dyn_add(dy, ready + 1, MACH_STALL_IMISS);
		*evb |= EVB_IMISS;
	}
	return start;
}

/* ------------------------------------------------------------------------------------------ */
/* Issue. */

/*
 * Per-cycle issue resources as eight 8-bit counters in one word (SWAR): instructions (at most 4),
 * integer pipes (2), E0 (1), E1 (1), FP pipes (2), FA (1), FM (1) and memory (2: a load counts 1,
 * a store 2, so two loads or one store fit but not a store with a load). Each op adds its
 * vector (ev5_op.use); a field over its limit sets its top bit once the bias is added. In the
 * cycle in which E0 is reserved by a finishing multiply, E0's limit is 0 and the integer limit 1.
 */
#define EV5_U_N (1ull << 0)
#define EV5_U_INT (1ull << 8)
#define EV5_U_E0 (1ull << 16)
#define EV5_U_E1 (1ull << 24)
#define EV5_U_FP (1ull << 32)
#define EV5_U_FA (1ull << 40)
#define EV5_U_FM (1ull << 48)
#define EV5_U_MEM (1ull << 56)
#define EV5_U_TOP 0x8080808080808080ull
/* bias = 0x80 - (limit + 1) per field */
#define EV5_BIAS(n, i, e0, e1, f, fa, fm, mem)                                           \
	(((0x7full - (n)) << 0) | ((0x7full - (i)) << 8) | ((0x7full - (e0)) << 16) |    \
	 ((0x7full - (e1)) << 24) | ((0x7full - (f)) << 32) | ((0x7full - (fa)) << 40) | \
	 ((0x7full - (fm)) << 48) | ((0x7full - (mem)) << 56))
#define EV5_BIAS_NORMAL EV5_BIAS(4, 2, 1, 1, 2, 1, 1, 2)
#define EV5_BIAS_E0BLOCK EV5_BIAS(4, 1, 0, 1, 2, 1, 1, 2)

static uint64_t use_vector(const struct ev5_op *o)
{
	uint64_t u = EV5_U_N;

	switch (o->pipe) {
	case ISA_EV5_P_E0:
		u += EV5_U_INT + EV5_U_E0;
		break;
	case ISA_EV5_P_E1:
		u += EV5_U_INT + EV5_U_E1;
		break;
	case ISA_EV5_P_E01:
		u += EV5_U_INT;
		break;
	case ISA_EV5_P_FA:
		u += EV5_U_FP + EV5_U_FA;
		break;
	case ISA_EV5_P_FM:
		u += EV5_U_FP + EV5_U_FM;
		break;
	case ISA_EV5_P_FAM:
		u += EV5_U_FP;
		break;
	default:
		break;
	}
	if (o->kind & ISA_EV5_K_LOAD)
		u += EV5_U_MEM;
	if (o->kind & ISA_EV5_K_STORE)
		u += 2 * EV5_U_MEM;
	return u;
}

/* The limits of cycle t as a bias. */
static inline uint64_t bias_at(const struct mach_ev5 *m, uint64_t t)
{
	return t == m->e0_block ? EV5_BIAS_E0BLOCK : EV5_BIAS_NORMAL;
}

/* Can an instruction of `p` issue in cycle `t` (pipes, per-cycle limits)? (The current cycle's
 * resources and bias are kept summed in mach_ev5.ub.) */
static inline bool fits(const struct mach_ev5 *m, const struct ev5_pd *p, uint64_t t)
{
	return !((p->use + (t == m->cur ? m->ub : bias_at(m, t))) & EV5_U_TOP);
}

/* The earliest cycle >= t satisfying the per-cycle issue rules. */
static inline uint64_t place(const struct mach_ev5 *m, const struct ev5_pd *p, uint64_t t)
{
	while (!fits(m, p, t) || ((p->kind & ISA_EV5_K_LOAD) && t == m->last_store_t + 2))
		t++;
	return t;
}

/* Quick test whether place() has anything to do at t (a cycle other than the current one fits
 * unless E0 is reserved in it; false positives only cost a place() call). */
static inline bool needs_place(const struct mach_ev5 *m, const struct ev5_pd *p, uint64_t t)
{
	if (t == m->cur)
		return !fits(m, p, t) || ((p->kind & ISA_EV5_K_LOAD) && t == m->last_store_t + 2);
	return t == m->e0_block || ((p->kind & ISA_EV5_K_LOAD) && t == m->last_store_t + 2);
}

static inline void take_slot(struct mach_ev5 *m, const struct ev5_pd *p, uint64_t t)
{
	if (t != m->cur) {
		m->cur = t;
		m->ub = bias_at(m, t);
	}
	m->ub += p->use;
}

/* Scoreboard index i's bit in mach_ev5.late (EV5_REG_NONE and EV5_REG_SINK have none). */
static inline uint64_t late_bit(unsigned int i)
{
	return i < 64 ? 1ull << i : 0;
}

/* Operands that wait for a missing load: DMISS constraints, Ra, Rb, Rc in this order. */
static __attribute__((__noinline__)) void
sources_late(const struct mach_ev5 *m, const struct ev5_pd *p, bool a_late, struct ev5_dyn *dy)
{
	if (a_late)
		dyn_add(dy, m->rdy[p->a], MACH_STALL_DMISS);
	if (m->rdy[p->b] != m->st[p->b])
		dyn_add(dy, m->rdy[p->b], MACH_STALL_DMISS);
	if (m->rdy[p->c] != m->st[p->c])
		dyn_add(dy, m->rdy[p->c], MACH_STALL_DMISS);
}

/*
 * The source operands: returns the cycle >= ts in which their values are ready as the static
 * schedule sees them (every load hits); a missing load's lateness becomes a DMISS constraint.
 * An IBR/CMOV whose Ra comes from a same-cycle ICMP/ILOG uses the 0-cycle bypass (b0). Unused
 * operands (and a literal Rb) read EV5_REG_NONE, which is always ready: no branches per operand.
 * Then the destination: an instruction writing a register a missing load will write waits (WAW).
 * The common case, no operand or destination waiting for a missing load (m->late), is inline
 * in the retire; this is the other.
 */
static __attribute__((__noinline__)) uint64_t
operands_late(const struct mach_ev5 *m, const struct ev5_pd *p, uint64_t ts, struct ev5_dyn *dy)
{
	const unsigned int a = p->a, b = p->b, c = p->c, w = p->dst;
	const bool w_late = p->dbit && m->rdy[w] != m->st[w]; /* (the sink: written, never late) */
	const bool bypass = (p->kind & ISA_EV5_K_BYPC) && m->b0[a] < m->st[a];
	const bool a_late = !bypass && m->rdy[a] != m->st[a];

	ts = max64(ts, bypass ? m->b0[a] : m->st[a]);
	ts = max64(ts, max64(m->st[b], m->st[c]));
	if (a_late | (m->rdy[b] != m->st[b]) | (m->rdy[c] != m->st[c]))
		sources_late(m, p, a_late, dy);
	if (w_late && m->rdy[w] > ts + 1)
		dyn_add(dy, m->rdy[w] - 1, MACH_STALL_DMISS); /* WAW on a missing load */
	return ts;
}

/* operands_late() when no register involved waits for a missing load (no constraint to add). */
static inline uint64_t operands(const struct mach_ev5 *m, const struct ev5_pd *p, uint64_t ts,
				struct ev5_dyn *dy)
{
	const uint64_t bt = (p->kind & ISA_EV5_K_BYPC) ? m->b0[p->a] : UINT64_MAX;
	const uint64_t at = bt < m->st[p->a] ? bt : m->st[p->a];

	if (m->late & p->late)
		return operands_late(m, p, ts, dy);
	return max64(max64(ts, at), max64(m->st[p->b], m->st[p->c]));
}

/* Dynamic stall cycles of one instruction, by cause. */
struct ev5_pieces {
	unsigned int n;
	uint8_t cause[12];
	uint64_t amt[12];
};

static inline void piece_add(struct ev5_pieces *pc, unsigned int cause, uint64_t amt)
{
	if (pc->n < 12) {
		pc->cause[pc->n] = (uint8_t)cause;
		pc->amt[pc->n++] = amt;
	}
}

/* Sort the dynamic constraints and turn them into per-cause cycles above `t`. */
static __attribute__((__noinline__)) uint64_t dyn_apply(struct ev5_dyn *dy, uint64_t t,
							struct ev5_pieces *piece)
{
	for (unsigned int i = 1; i < dy->n; i++) {
		uint64_t a = dy->at[i];
		uint8_t c = dy->cause[i];
		unsigned int j = i;

		for (; j > 0 && dy->at[j - 1] > a; j--) {
			dy->at[j] = dy->at[j - 1];
			dy->cause[j] = dy->cause[j - 1];
		}
		dy->at[j] = a;
		dy->cause[j] = c;
	}
	for (unsigned int i = 0; i < dy->n; i++) {
		if (dy->at[i] > t) {
			piece_add(piece, dy->cause[i], dy->at[i] - t);
			t = dy->at[i];
		}
	}
	return t;
}

/* A post-issue constraint (the instruction would issue at t but must wait until `at`). */
static inline uint64_t post(uint64_t t, uint64_t at, unsigned int cause, struct ev5_pieces *piece)
{
	if (at > t) {
		piece_add(piece, cause, at - t);
		return at;
	}
	return t;
}

static void account(struct mach_ev5 *m, const struct ev5_ev *ev, uint64_t h,
		    const struct ev5_pieces *piece, unsigned int evb, bool cond)
{
	struct ev5_trec *r = NULL;
	uint64_t st = h;

	for (unsigned int i = 0; i < piece->n; i++) {
		st -= piece->amt[i];
		m->stall[piece->cause[i]] += piece->amt[i];
	}
	if (!m->truth)
		return;
	r = ev5_truth_rec(m->truth, ev->pc);
	if (!r)
		return;
	r->exec++;
	r->head += h;
	r->stall[MACH_STALL_STATIC] += st;
	for (unsigned int i = 0; i < piece->n; i++)
		r->stall[piece->cause[i]] += piece->amt[i];
	if (evb) {
		if (evb & EVB_IMISS)
			r->ev[MACH_TEV_IMISS]++;
		if (evb & EVB_ITBMISS)
			r->ev[MACH_TEV_ITBMISS]++;
		if (evb & EVB_DMISS)
			r->ev[MACH_TEV_DMISS]++;
		if (evb & EVB_DTBMISS)
			r->ev[MACH_TEV_DTBMISS]++;
		if (evb & EVB_BRANCHMP)
			r->ev[MACH_TEV_BRANCHMP]++;
	}
	if (ev->next_pc != ev->pc + 4 || cond)
		ev5_truth_edge(m->truth, r, ev->pc, ev->next_pc, cond);
}

/* Branch prediction at issue cycle t; returns true on a misprediction. */
static bool predict(struct mach_ev5 *m, const struct ev5_op *o, const struct axp_insn *d,
		    const struct ev5_ev *ev)
{
	unsigned int kind = o->kind;
	bool mp = false;

	if (kind & ISA_EV5_K_CBR) {
		unsigned int bi = (ev->pc >> 2) & (EV5_BHT_N - 1);
		unsigned int c = m->bht[bi];

		if (c == 0xff)
			c = d->disp < 0 ? 2 : 1; /* static: backward taken, forward not taken */
		mp = (c >= 2) != ev->taken;
		if (ev->taken)
			c = c < 3 ? c + 1 : 3;
		else
			c = c ? c - 1 : 0;
		m->bht[bi] = (uint8_t)c;
	} else if (kind & ISA_EV5_K_IND) {
		uint64_t pred;

		if (kind & ISA_EV5_K_POP) {
			m->ras_top = (m->ras_top + EV5_RAS_N - 1) % EV5_RAS_N;
			pred = m->ras[m->ras_top];
		} else {
			pred = ((ev->pc + 4) & ~0xffffull) | ((uint64_t)(d->disp & 0x3fff) << 2);
		}
		mp = pred != ev->next_pc;
	}
	if (kind & ISA_EV5_K_PUSH) {
		m->ras[m->ras_top] = ev->pc + 4;
		m->ras_top = (m->ras_top + 1) % EV5_RAS_N;
	}
	return mp;
}

/* The destination's scoreboard index (EV5_REG_SINK: none, R31 or F31). */
static inline unsigned int dest_reg(const struct ev5_op *o, const struct axp_insn *d)
{
	unsigned int r = ((o->d_ra ? d->ra : d->rc) & o->md) + o->od;

	return (r & 31) == 31 ? EV5_REG_SINK : r;
}

/* The timing facts of d (decoded from d->word: operation op) into cache entry e. */
static __attribute__((__noinline__)) const struct ev5_pd *
pd_fill(struct mach_ev5 *m, const struct axp_insn *d, unsigned int op, struct ev5_pd *e)
{
	const struct ev5_op *o = &m->ops[op];

	e->word = d->word;
	e->op = (uint16_t)op;
	e->kind = o->kind;
	e->lat = o->lat;
	e->fpop = mach_is_fp_operate(d->word);
	e->back = d->disp < 0;
	e->a = (uint8_t)((d->ra & o->ma) + o->oa);
	e->b = (uint8_t)(d->islit ? EV5_REG_NONE : (d->rb & o->mb) + o->ob);
	e->c = (uint8_t)((d->rc & o->mc) + o->oc);
	e->dst = (uint8_t)dest_reg(o, d);
	e->use = o->use;
	e->dbit = late_bit(e->dst);
	e->late = late_bit(e->a) | late_bit(e->b) | late_bit(e->c) | e->dbit;
	return e;
}

/* The timing facts of d (operation op) at pc, from the cache (tagged by the word alone). */
static inline const struct ev5_pd *pd_get(struct mach_ev5 *m, const struct axp_insn *d,
					  unsigned int op, uint64_t pc)
{
	struct ev5_pd *e = &m->pd[ev5_pd_slot(pc)];

	if (__builtin_expect(e->word == d->word, 1))
		return e;
	return pd_fill(m, d, op, e);
}

/* An empty cache: every entry holds word 0 with its facts. */
static void pd_init(struct mach_ev5 *m)
{
	struct axp_insn d0;

	memset(m->pd, 0, sizeof(m->pd));
	axp_decode(0, &d0);
	for (unsigned int i = 0; i < EV5_PD_N; i++)
		pd_fill(m, &d0, d0.op, &m->pd[i]);
}

/* What one retire gathers on its way (kept small: the common path lives in registers). */
struct ev5_step {
	uint64_t fetch_at; /* cycle the block's fetch started (IMISS/ITBMISS events) */
	unsigned int evb; /* EVB_* */
	bool dmiss; /* a load missing the D-cache tags */
	struct ev5_dyn dy;
	struct ev5_pieces piece;
};

/* fetch_block() unless the block is in the I-cache on the current page (nothing to do but
 * note it: no constraint, no event). Returns the fetch cycle when fetch_block() ran. */
static inline uint64_t fetch_line(struct mach_ev5 *m, uint64_t pc, struct ev5_step *st)
{
	const uint64_t line = pc >> EV5_LINE_SHIFT;

	if ((pc >> EV5_PAGE_SHIFT) == m->ipage && m->ic_tag[line & (EV5_L1_LINES - 1)] == line) {
		m->iline = line;
		return 0;
	}
	return fetch_block(m, pc, &st->dy, &st->evb);
}

/* A store issued at t enters the write buffer (mem_post(), store_quiet()). */
static inline void store_enter(struct mach_ev5 *m, uint64_t ea, uint64_t pc, uint64_t t)
{
	wb_store(m, ea >> EV5_LINE_SHIFT, t, m->coh ? ev5_coh_store(m, ea, pc, t) : 0);
	m->last_store_t = t;
	m->last_store_q = ea >> 3;
}

/* Page vpn is in the DTB memo (the last two data pages). */
static inline bool dpage_memo(const struct mach_ev5 *m, uint64_t vpn)
{
	return vpn == m->dpage[0] || vpn == m->dpage[1];
}

/* The DTB of an access to ea costs no lookup: its page is in the memo or where the DTB's hint
 * says (the block-memo study's condition, mach_ev5_study.c; dpage_quiet() without its update). */
static inline bool dtb_quiet(const struct mach_ev5 *m, uint64_t ea)
{
	const uint64_t vpn = ea >> EV5_PAGE_SHIFT;

	return dpage_memo(m, vpn) || tlb_hint_hit(&m->dtb, vpn);
}

/* The access to ea needs no DTB lookup: its page is in the memo, or where the DTB's hint says
 * (then the memo takes it, as mem_post() would; its lookup would hit and change nothing). */
static inline bool dpage_quiet(struct mach_ev5 *m, uint64_t ea)
{
	const uint64_t vpn = ea >> EV5_PAGE_SHIFT;

	if (dpage_memo(m, vpn))
		return true;
	if (!tlb_hint_hit(&m->dtb, vpn))
		return false;
	m->dpage[m->dpage_next] = vpn;
	m->dpage_next ^= 1;
	return true;
}

/* A store that mem_post() would leave at t, entered into the write buffer as it would: a plain
 * store on one CPU (no invalidations) whose page is in the DTB memo or at the DTB's hint and
 * whose block finds room in the buffer at t (wb_room(), which brings the buffer to t as
 * mem_post() would first). Most stores: mem_post() returns at once. */
static inline bool store_quiet(struct mach_ev5 *m, unsigned int kind, uint64_t ea, uint64_t pc,
			       uint64_t t)
{
	if ((kind & (ISA_EV5_K_LOAD | ISA_EV5_K_STORE | ISA_EV5_K_MB)) != ISA_EV5_K_STORE ||
	    m->coh || !dpage_quiet(m, ea) || wb_room(m, ea >> EV5_LINE_SHIFT, t) != t)
		return false;
	store_enter(m, ea, pc, t);
	return true;
}

/* mem_post() of the other accesses. */
static __attribute__((__noinline__)) uint64_t mem_slow(struct mach_ev5 *m, const struct ev5_pd *p,
						       uint64_t ea, uint64_t pc, uint64_t t,
						       struct ev5_step *st)
{
	const unsigned int kind = p->kind;
	uint64_t t0 = t;

	if (kind & (ISA_EV5_K_LOAD | ISA_EV5_K_STORE)) {
		uint64_t vpn = ea >> EV5_PAGE_SHIFT;

		if (!dpage_memo(m, vpn)) {
			m->dpage[m->dpage_next] = vpn;
			m->dpage_next ^= 1;
			if (!tlb_lookup(&m->dtb, vpn)) {
				st->evb |= EVB_DTBMISS;
				t += m->p.dtb_miss;
				piece_add(&st->piece, MACH_STALL_DTBMISS, m->p.dtb_miss);
			}
		}
	}
	if ((kind & ISA_EV5_K_LOAD) && st->dmiss) {
		uint64_t free_at = UINT64_MAX;
		unsigned int busy = 0;

		for (unsigned int i = 0; i < EV5_MAF_N; i++) {
			if (m->maf[i] > t)
				busy++;
			if (m->maf[i] < free_at)
				free_at = m->maf[i];
		}
		if (busy == EV5_MAF_N)
			t = post(t, free_at, MACH_STALL_DMISS, &st->piece);
	}
	if (kind & ISA_EV5_K_STORE)
		t = post(t, wb_room(m, ea >> EV5_LINE_SHIFT, t), MACH_STALL_WBFULL, &st->piece);
	if ((kind & ISA_EV5_K_MB) && (kind & ISA_EV5_K_BARRIER))
		t = post(t, wb_drain(m, t), MACH_STALL_WBFULL, &st->piece);
	if ((kind & ISA_EV5_K_LOAD) && t == m->last_store_t + 1 && (ea >> 3) == m->last_store_q) {
		t += m->p.replay;
		piece_add(&st->piece, MACH_STALL_OTHER, m->p.replay);
	}
	if (t != t0 && needs_place(m, p, t))
		t = place(m, p, t);
	if (kind & ISA_EV5_K_STORE)
		store_enter(m, ea, pc, t);
	return t;
}

/* Loads, stores, MB: DTB, MAF, write buffer, replay; returns the issue cycle. A store also
 * enters the write buffer at that cycle (nothing the retire does before its results touches
 * the buffer, so this is where the store's result work is done too). */
static __attribute__((__noinline__)) uint64_t mem_post(struct mach_ev5 *m, const struct ev5_pd *p,
						       uint64_t ea, uint64_t pc, uint64_t t,
						       struct ev5_step *st)
{
	if (store_quiet(m, p->kind, ea, pc, t))
		return t;
	return mem_slow(m, p, ea, pc, t, st);
}

/* A load that mem_post() would leave at t: it hits the D-cache tags, is no replay, and its page
 * is in the DTB memo (the last two pages) or where the DTB's hint says (then the memo takes it,
 * as mem_post() does). Most loads: they skip the call. */
static inline bool load_quiet(struct mach_ev5 *m, unsigned int kind, uint64_t ea, uint64_t t,
			      const struct ev5_step *st)
{
	if (!(kind & ISA_EV5_K_LOAD) || st->dmiss ||
	    (t == m->last_store_t + 1 && (ea >> 3) == m->last_store_q))
		return false;
	return dpage_quiet(m, ea);
}

/* A load issued at t: D-cache, fill, MAF; returns when its data is ready. */
static __attribute__((noinline)) uint64_t load_result(struct mach_ev5 *m, const struct ev5_pd *p,
						      uint64_t ea, uint64_t pc, uint64_t t,
						      struct ev5_step *st)
{
	uint64_t dline = ea >> EV5_LINE_SHIFT, ready = t + p->lat;
	unsigned int di = dline & (EV5_L1_LINES - 1);

	if (!st->dmiss) {
		if (m->dc_ready[di] > ready) {
			ready = m->dc_ready[di]; /* merged with an outstanding fill */
			st->evb |= EVB_DMISS;
		}
		m->level[AXP_LVL_DCACHE]++;
	} else {
		uint32_t lvl;
		unsigned int slot = 0;

		uint32_t lat, c2c = m->coh ? ev5_coh_load(m, ea, pc, t) : 0;

		lat = lower_access(m, ea, t, false, &lvl);
		ready = t + (c2c ? c2c : lat);
		m->level[lvl]++;
		for (unsigned int i = 1; i < EV5_MAF_N; i++)
			if (m->maf[i] < m->maf[slot])
				slot = i;
		m->maf[slot] = ready;
		m->dc_tag[di] = dline;
		m->dc_ready[di] = ready;
		st->evb |= EVB_DMISS;
	}
	if ((st->evb & EVB_DMISS) && m->truth) {
		struct ev5_trec *r = ev5_truth_rec(m->truth, pc);

		if (r)
			r->ev[MACH_TEV_DMISS]++;
	}
	return ready;
}

/* load_result() for a load hitting the D-cache with no fill in flight (no event): inline. */
static inline uint64_t load_ready(struct mach_ev5 *m, const struct ev5_pd *p, uint64_t ea,
				  uint64_t pc, uint64_t t, struct ev5_step *st)
{
	const uint64_t dline = ea >> EV5_LINE_SHIFT;

	if (!st->dmiss && m->dc_ready[dline & (EV5_L1_LINES - 1)] <= t + p->lat) {
		m->level[AXP_LVL_DCACHE]++;
		return t + p->lat;
	}
	return load_result(m, p, ea, pc, t, st);
}

/* Multiplies, divides, WMB at t: units and write buffer; returns the result cycle. (Stores
 * enter the write buffer in mem_post().) */
static __attribute__((noinline)) uint64_t unit_result(struct mach_ev5 *m, const struct ev5_op *o,
						      const struct axp_insn *d, uint64_t t)
{
	const unsigned int kind = o->kind;
	uint64_t ready = t + o->lat;

	if (kind & ISA_EV5_K_IMUL) {
		uint64_t add = 0;

		if (o->sa && m->rdy[d->ra] + 2 > t)
			add = m->rdy[d->ra] + 2 - t;
		if (!d->islit && m->rdy[d->rb] + 2 > t)
			add = max64(add, m->rdy[d->rb] + 2 - t);
		ready += add;
		m->mul_free = t + o->repeat + add;
		uint64_t b = bias_at(m, m->cur); /* (the multiply's own cycle) */

		m->e0_block = ready - 2;
		m->ub += bias_at(m, m->cur) - b;
	} else if (kind & ISA_EV5_K_FDIV) {
		m->fdiv_free = t + o->repeat;
	} else if (kind & ISA_EV5_K_MB) {
		wb_drain(m, t); /* WMB: close the open entry */
	}
	return ready;
}

/* The control instruction at pc, issued at t, was mispredicted: the next fetch waits. */
static __attribute__((noinline)) void mispredict(struct mach_ev5 *m, uint64_t pc, uint64_t t,
						 struct ev5_step *st)
{
	st->evb |= EVB_BRANCHMP;
	m->pend_at = t + 1 + m->p.mispredict;
	m->pend_cause = MACH_STALL_BRANCHMP;
	m->fetch_redirect = t + m->p.mispredict;
	if (m->truth) {
		struct ev5_trec *r = ev5_truth_rec(m->truth, pc);

		if (r)
			r->ev[MACH_TEV_BRANCHMP]++;
	}
}

/* Branches, jumps, CALL_PAL issued at t: prediction and the next fetch. Returns mispredicted.
 * (The retire predicts conditional branches itself: predict_cbr().) */
static __attribute__((noinline)) bool control(struct mach_ev5 *m, const struct ev5_op *o,
					      const struct axp_insn *d, const struct ev5_ev *ev,
					      uint64_t t, struct ev5_step *st)
{
	bool mp;

	if (o->kind & ISA_EV5_K_PAL) {
		m->pend_at = t + 1 + m->p.pal_cycles;
		m->pend_cause = MACH_STALL_OTHER;
		m->fetch_redirect = t + m->p.pal_cycles;
		return true;
	}
	mp = predict(m, o, d, ev);
	m->fetch_redirect = t;
	if (mp)
		mispredict(m, ev->pc, t, st);
	return mp;
}

/* predict() for a conditional branch at pc (p->back: its displacement is negative); the 2-bit
 * counter's next value by [taken][counter]. */
static const uint8_t bht_next[2][4] = { { 0, 0, 1, 2 }, { 1, 2, 3, 3 } };

static inline bool predict_cbr(struct mach_ev5 *m, const struct ev5_pd *p, uint64_t pc, bool taken)
{
	const unsigned int bi = (pc >> 2) & (EV5_BHT_N - 1);
	unsigned int c = m->bht[bi];

	if (c == 0xff)
		c = p->back ? 2 : 1; /* static: backward taken, forward not taken */
	m->bht[bi] = bht_next[taken][c];
	return (c >= 2) != taken;
}

/* Rare pre-issue constraints: barriers, busy units, a load's D-cache tag check. */
static inline uint64_t pre_issue(struct mach_ev5 *m, const struct ev5_pd *p, uint64_t ea,
				 uint64_t ts, struct ev5_step *st)
{
	const unsigned int kind = p->kind;

	if (kind & ISA_EV5_K_LOAD) {
		uint64_t dline = ea >> EV5_LINE_SHIFT;

		st->dmiss = m->dc_tag[dline & (EV5_L1_LINES - 1)] != dline;
	}
	if (kind & ISA_EV5_K_BARRIER) {
		ts = max64(ts, m->max_rdy_st);
		if (m->max_rdy > m->max_rdy_st)
			dyn_add(&st->dy, m->max_rdy, MACH_STALL_DMISS);
	}
	if (kind & (ISA_EV5_K_IMUL | ISA_EV5_K_FDIV)) {
		uint64_t busy = (kind & ISA_EV5_K_IMUL) ? m->mul_free : m->fdiv_free;

		if (busy > ts)
			dyn_add(&st->dy, busy, MACH_STALL_UNIT);
	}
	return ts;
}

static __attribute__((noinline)) void pmu_events(struct mach_ev5 *m, const struct ev5_step *st,
						 uint64_t t)
{
	if (st->evb & EVB_ITBMISS)
		ev5_pmu_event(m, MACH_EV_ITBMISS, st->fetch_at);
	if (st->evb & EVB_IMISS)
		ev5_pmu_event(m, MACH_EV_IMISS, st->fetch_at);
	if (st->evb & EVB_DTBMISS)
		ev5_pmu_event(m, MACH_EV_DTBMISS, t);
	if (st->evb & EVB_DMISS)
		ev5_pmu_event(m, MACH_EV_DMISS, t);
	if (st->evb & EVB_BRANCHMP)
		ev5_pmu_event(m, MACH_EV_BRANCHMP, t);
}

#define ISA_EV5_K_PRE (ISA_EV5_K_LOAD | ISA_EV5_K_BARRIER | ISA_EV5_K_IMUL | ISA_EV5_K_FDIV)
#define ISA_EV5_K_UNIT (ISA_EV5_K_IMUL | ISA_EV5_K_FDIV | ISA_EV5_K_MB)

/* mach_ev5_retire() of d, operation op (d->op, unless a store into the instruction's own word
 * changed that since: the run loop's window entry), and whether an interrupt may be due (one is
 * queued); inline in the ops table's retire and observers. */
static inline __attribute__((__always_inline__)) bool
retire(struct mach_ev5 *m, const struct axp_insn *d, unsigned int op, const struct axp_event *event)
{
	const uint64_t ea = event->ea;
	const struct ev5_pd *p = pd_get(m, d, op, event->pc);
	const unsigned int kind = p->kind;
	const uint64_t pc = event->pc, prev = m->cur;
	uint64_t ts = prev, t, ready, rst;
	struct ev5_step st;
	unsigned int dst;
	bool newline = false, mp = false;

	st.evb = 0;
	st.dy.n = 0;
	st.piece.n = 0;
	if (EV5_STUDY)
		ev5_study_pre(m, p, pc, ea, dtb_quiet(m, ea));

	/* Fetch: a new INT16 block (or a redirected fetch) starts a new issue cycle. */
	if (m->redirect | ((pc >> 4) != m->blk)) {
		uint64_t line = pc >> EV5_LINE_SHIFT;

		ts = prev + 1;
		m->blk = pc >> 4;
		if (m->redirect || line != m->iline) {
			newline = true;
			if (line != m->iline || m->ic_tag[line & (EV5_L1_LINES - 1)] != line)
				st.fetch_at = fetch_line(m, pc, &st);
		}
		if (m->pend_at) { /* set only together with redirect */
			dyn_add(&st.dy, m->pend_at, m->pend_cause);
			m->pend_at = 0;
		}
	}

	/* Operands. */
	ts = operands(m, p, ts, &st.dy);
	dst = p->dst;
	if (kind & ISA_EV5_K_PRE)
		ts = pre_issue(m, p, ea, ts, &st);

	/* Static placement, then the dynamic constraints in order (without any: place() once, as
	 * placing a placed cycle changes nothing). */
	if (!st.dy.n) {
		t = needs_place(m, p, ts) ? place(m, p, ts) : ts;
	} else {
		if (ts == m->cur && !fits(m, p, ts))
			ts = place(m, p, ts);
		if (st.dy.n == 1) /* dyn_apply() of one constraint */
			t = post(ts, st.dy.at[0], st.dy.cause[0], &st.piece);
		else
			t = dyn_apply(&st.dy, ts, &st.piece);
		if (needs_place(m, p, t))
			t = place(m, p, t);
	}
	if ((kind & (ISA_EV5_K_LOAD | ISA_EV5_K_STORE | ISA_EV5_K_MB)) &&
	    !load_quiet(m, kind, ea, t, &st))
		t = mem_post(m, p, ea, pc, t, &st);

	/* Issue at t. */
	take_slot(m, p, t);
	m->line_first = newline ? t : m->line_first;
	m->hist_pc[m->hist_n % EV5_HIST] = pc;
	m->hist_t[m->hist_n % EV5_HIST] = t;
	m->hist_n++;
	m->insns++;
	if (st.piece.n || m->truth) /* (without either: STATIC, which stall_static() derives) */
		account(m, &(const struct ev5_ev){ pc, event->next_pc, ea, event->taken }, t - prev,
			&st.piece, st.evb, (kind & ISA_EV5_K_CBR) != 0);

	/* Results. */
	if (kind & ISA_EV5_K_LOAD) {
		ready = load_ready(m, p, ea, pc, t, &st);
		rst = t + p->lat;
		m->late = (m->late & ~p->dbit) | (ready != rst ? p->dbit : 0);
	} else { /* only a load's result may be late */
		ready = rst =
			(kind & ISA_EV5_K_UNIT) ? unit_result(m, &m->ops[p->op], d, t) : t + p->lat;
		m->late &= ~p->dbit;
	}
	/* (EV5_REG_SINK is written too, without a branch: nothing reads it) */
	m->rdy[dst] = ready;
	m->st[dst] = rst;
	m->b0[dst] = (kind & ISA_EV5_K_BYPP) ? t : rst;
	m->max_rdy = max64(m->max_rdy, ready);
	m->max_rdy_st = max64(m->max_rdy_st, rst);

	/* Control flow. */
	m->fetch_redirect = t;
	if (kind & ISA_EV5_K_CBR) {
		mp = predict_cbr(m, p, pc, event->taken);
		if (mp)
			mispredict(m, pc, t, &st);
	} else if (kind & (ISA_EV5_K_CTRL | ISA_EV5_K_PAL)) {
		mp = control(m, &m->ops[p->op], d,
			     &(const struct ev5_ev){ pc, event->next_pc, ea, event->taken }, t,
			     &st);
	}
	m->redirect = mp | (event->next_pc != pc + 4);

	/* PMU: cycles up to t, then this instruction's events. */
	m->count[MACH_EV_CYCLES] = t;
	if (t >= m->next_ov[MACH_EV_CYCLES])
		ev5_pmu_cycles(m, t);
	if (st.evb)
		pmu_events(m, &st, t);
	ev5_pmu_issue(m, event->is_load, p->fpop, t);
	if (m->min_due <= t)
		ev5_pmu_assign(m, pc, t);
	if (EV5_STUDY)
		ev5_study_post(m, p, pc, event->next_pc, t, st.evb, st.piece.n, st.piece.cause,
			       st.piece.amt, mp);
	return m->nirq != 0;
}

bool ev5_retire_op(void *model, const struct axp_insn *d, const struct axp_event *ev)
{
	return retire(model, d, d->op, ev);
}

/* The observer's work (o: its state, m its model): retire d (operation op), and when an
 * interrupt is due and none is held, take it and ask the run to stop (returns true then). */
static inline __attribute__((__always_inline__)) bool
observe_retire(struct mach_ev5 *m, struct mach_cpu_obs *o, const struct axp_insn *d,
	       unsigned int op, const struct axp_event *ev)
{
	if (retire(m, d, op, ev) && !o->have_irq && mach_ev5_irq_take(m, &o->irq)) {
		o->have_irq = true;
		o->stop = true;
		return true;
	}
	return false;
}

void ev5_observe(void *priv, const struct axp_event *ev)
{
	struct mach_cpu_obs *o = priv;

	observe_retire(o->model, o, ev->insn, ev->insn->op, ev);
}

/* What ev5_run()'s observer works on: fixed for the run, kept in registers. */
struct ev5_loop {
	struct mach_ev5 *m;
	struct mach_cpu_obs *o;
};

/* ev5_observe() as the run loop's inlined observer (exec_loop.h: ev->insn may be the window's
 * entry, ev->op its operation): returns the stop flag, which only it sets during the run (see
 * ev5_run()). */
static inline __attribute__((__always_inline__)) bool observe(const void *arg,
							      const struct axp_event *ev)
{
	const struct ev5_loop *l = arg;

	return observe_retire(l->m, l->o, ev->insn, ev->op, ev);
}

/* The flag is the machine's (struct mach_cpu_obs), which only the observer sets while a run is
 * under way; set already, the run stops after one instruction: axp_run() does that. */
enum axp_stop ev5_run(struct axp_ctx *ctx, const struct axp_run_cfg *cfg, uint64_t budget,
		      struct axp_stop_info *info)
{
	struct mach_cpu_obs *o = cfg->obs->priv;
	const struct ev5_loop l = { o->model, o };

	if (o->stop)
		return axp_run(ctx, cfg, budget, info);
	return axp_run_inline(ctx, cfg, budget, info, observe, &l);
}

void mach_ev5_retire(struct mach_ev5 *m, const struct axp_insn *d, const struct axp_event *ev)
{
	(void)ev5_retire_op(m, d, ev);
}

/*
 * Kernel time (mach_kern.h): the CALL_PAL callsys just issued at `cur`; the kernel runs for
 * `cycles` (its PALcode entry and exit included, so the CALL_PAL's own pal_cycles stall is
 * replaced) and the next instruction starts a new fetch after it. CYCLES keeps counting;
 * interrupts due in that time report `pc`, the call's pseudo-pc (DCPI SOSP'97 §4: on the
 * 21164 the sample names what was at the head of issue; here: the kernel). The other events
 * and the caches are left as the user code left them [U].
 */
bool mach_ev5_kernel(struct mach_ev5 *m, unsigned int nr, uint64_t pc, uint64_t cycles)
{
	uint64_t te = m->cur + (cycles ? cycles : 1);

	m->kcycles += te - m->cur;
	if (m->truth)
		mach_trec_kernel(m->truth, nr, te - m->cur);
	m->cur = te;
	m->ub = bias_at(m, te);
	m->pend_at = 0;
	m->redirect = true;
	m->fetch_redirect = te;
	m->hist_pc[m->hist_n % EV5_HIST] = pc;
	m->hist_t[m->hist_n % EV5_HIST] = te;
	m->hist_n++;
	m->count[MACH_EV_CYCLES] = te;
	if (te >= m->next_ov[MACH_EV_CYCLES])
		ev5_pmu_cycles(m, te);
	if (m->min_due <= te)
		ev5_pmu_assign(m, pc, te);
	return m->nirq != 0;
}

void mach_ev5_access(struct mach_ev5 *m, uint64_t va, unsigned int size, bool store,
		     struct axp_access *acc)
{
	uint64_t line = va >> EV5_LINE_SHIFT, t = m->cur;
	unsigned int i = line & (EV5_L1_LINES - 1);
	uint32_t lvl, lat;

	(void)size;
	if (store) {
		/* write-through: the block ends up in the S-cache; the write buffer takes the store */
		lower_access(m, va, t, true, &lvl);
		if (m->dc_tag[i] == line)
			lvl = AXP_LVL_DCACHE;
		acc->latency = 1;
		acc->level = lvl;
		return;
	}
	if (m->dc_tag[i] == line) {
		lvl = AXP_LVL_DCACHE;
		lat = m->p.dcache_lat;
		if (m->dc_ready[i] > t + lat)
			lat = (uint32_t)(m->dc_ready[i] - t);
	} else {
		lat = lower_access(m, va, t, false, &lvl);
		m->dc_tag[i] = line;
		m->dc_ready[i] = t + lat;
	}
	acc->latency = lat;
	acc->level = lvl;
}
