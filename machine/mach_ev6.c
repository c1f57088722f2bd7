/* machine/mach_ev6.c - EV6 (21264) out-of-order timing model: fetch, map, issue, memory, retire. */
/*
 * A trace-driven cycle model. The functional machine executes every instruction in program order
 * and hands it to mach_ev6_retire(); the model computes, for that instruction, the cycle of each
 * pipeline stage from the state the older instructions left: fetch, map, issue, retire-ready and
 * retire. Older instructions are processed first, so they claim issue pipes first: that is the
 * 21264's oldest-ready-first issue. Unlike sim-alpha (execution driven) the model never executes
 * a wrong path: bad-path instructions after a mispredict are counted (fetched and aborted), not
 * decoded, and a replay trap is resolved when its younger target is processed (the older store or
 * load it conflicts with has its issue cycle by then). machine/EV6-MODEL.md gives the source of
 * every rule and number; [HRM x] is the 21264/EV67 Hardware Reference Manual, [U] our choice.
 *
 * Stages of one instruction (cycle numbers; FRONT = 3 cycles from fetch to issue, HRM 2.2 Fig.
 * 2-5: fetch 0, slot 1, map 2, issue 3):
 *   fetch   an aligned quadpack (4 instructions, 16 bytes) a cycle from the 64 KB 2-way I-cache,
 *           while the fetch queue (`fetch_queue`: fetch and slot stages) has room;
 *           a taken branch ends the group (the next one the next cycle: line prediction assumed
 *           right); a redirect (mispredict, trap, PAL) starts the next group no earlier than it
 *           says; I-cache misses refill from the B-cache/memory; ITB miss adds `itb_miss`.
 *   map     fetch + 2, in order, `map_width` a cycle, only when an inum is free (`window` in
 *           flight, freed at retire), a physical register is free (`int_rename`/`fp_rename`
 *           writers in flight) and the issue queue (`iq` integer, `fq` FP) has an entry (an entry
 *           is freed when its instruction issues).
 *   issue   >= map + 1, when the operands are ready in the cluster of the chosen pipe (a result
 *           reaches the other cluster one cycle later [HRM 2.3]), on a free pipe of the op's class
 *           (U0/U1/L0/L1, FA/FM: HRM Table 2-2); latencies HRM Table 2-4.
 *   memory  loads and stores at issue: DTB, store queue forwarding, order traps, LQ/SQ/MAF full,
 *           D-cache (64 KB 2-way, 64-byte blocks, write-back, write-allocate), B-cache, memory.
 *   retire  in order, `retire_width` a cycle, the cycle after the result is ready.
 * Replay traps [HRM 2.11]: the target (the younger load) and everything younger are aborted and
 * refetched; the target issues again no earlier than the penalty (Table 2-1) after the trap.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "isa_ev5.h"
#include "mach_ev6_model.h"

#define FRONT 3u /* fetch to issue, minimum */
#define NOREG 65u /* sink: r31, f31, no destination */

static inline uint64_t max64(uint64_t a, uint64_t b)
{
	return a > b ? a : b;
}

void mach_ev6_params_default(struct mach_ev6_params *p)
{
	memset(p, 0, sizeof(*p));
	p->fetch_width = 4; /* [HRM 2.1.1] four instructions a cycle */
	/* [HRM 2.2 Fig. 2-5] fetch (stage 0) and slot (stage 1) hold a quadpack each before map
	 * (stage 2); a map stall holds them, so fetch stops [U: no further buffering, 2 x 4] */
	p->fetch_queue = 8;
	p->map_width = 4; /* [HRM 2.1.3] */
	p->retire_width = 8; /* [HRM 2.1.8] 11 peak, 8 sustained [U: 8] */
	p->window = 80; /* [HRM 6.10.3.3.2] 80 inums */
	p->iq = 20; /* [HRM Fig. 2-1] */
	p->fq = 15; /* [HRM Fig. 2-1] */
	p->int_rename = 41; /* [U] 80 physical - 31 architectural - 8 PAL shadow */
	p->fp_rename = 41; /* [U] 72 physical - 31 architectural */
	p->lq = 32; /* [EV68A HRM 2.1.6] */
	p->sq = 32;
	p->maf = 8;
	p->dcache_lat = 3; /* [Table 2-4] ild */
	p->fdcache_lat = 4; /* [Table 2-4] fld */
	p->bcache_lat = 13; /* [Table 2-4] ild D-cache miss with a 6-cycle B-cache */
	p->mem_lat = 80; /* [U] */
	p->mem_occupancy = 30; /* [U] ~2 bytes/cycle: about 1 GB/s at 466 MHz (DS10L class) */
	p->bcache_kb = 2048; /* [U] 2 MB (DS10L-class systems) */
	p->mispredict = 7; /* [Table 2-1] */
	p->jsr_mispredict = 8; /* [Table 2-1] */
	p->order_trap = 14; /* [Table 2-1] Mbox order trap */
	p->mbox_replay = 13; /* [Table 2-1] other Mbox replay */
	p->dtb_miss = 13 + 20; /* [Table 2-1] 13 plus the PALcode fill [U: 20] */
	p->itb_miss = 7 + 20; /* [Table 2-1] 7 plus the PALcode fill [U: 20] */
	p->stwait_clear = 16384; /* [U] commonly quoted interval */
	p->ras_n = 32; /* [U] */
	p->pal_cycles = 30; /* [U] as the EV5 model */
	p->irq_delay = 6; /* [U] as the 21164's (DCPI SOSP'97 §4) */
	p->issue_slots = 4; /* [PM §5.2.3] the 21264's sustainable issue rate */
}

/* ------------------------------------------------------------------------------------------ */
/* Per-op facts: operands from isa_ev5 (the ISA), pipes and latencies of the 21264. */

static void op_class(struct ev6_op *o, unsigned int op, const struct mach_ev6_params *p)
{
	unsigned int unit = axp_op_info[op].unit, fmt = axp_op_info[op].fmt;

	o->pipes = EV6_P_INT;
	o->lat = 1;
	switch (unit) {
	case AXP_U_ILD:
		o->pipes = EV6_P_L0 | EV6_P_L1;
		o->lat = (uint8_t)p->dcache_lat;
		break;
	case AXP_U_FLD:
		o->pipes = EV6_P_L0 | EV6_P_L1;
		o->lat = (uint8_t)p->fdcache_lat;
		break;
	case AXP_U_IST:
	case AXP_U_FST:
		o->pipes = EV6_P_L0 | EV6_P_L1;
		o->lat = (uint8_t)p->dcache_lat; /* STx_C's status */
		break;
	case AXP_U_SHIFT:
		o->pipes = EV6_P_U0 | EV6_P_U1; /* ishf */
		break;
	case AXP_U_IMULL:
	case AXP_U_IMULQ:
	case AXP_U_IMULH:
		o->pipes = EV6_P_U1;
		o->lat = 7;
		break;
	case AXP_U_IBR:
		o->pipes = EV6_P_U0 | EV6_P_U1;
		o->lat = 3; /* BR writes Ra: ubr 3 */
		break;
	case AXP_U_JSR:
		o->pipes = op == AXP_OP_BSR ? (EV6_P_U0 | EV6_P_U1) : EV6_P_L0;
		o->lat = 3;
		break;
	case AXP_U_MISC:
		o->pipes = EV6_P_L1; /* rpcc, mem_misc */
		break;
	case AXP_U_MVI:
		o->pipes = EV6_P_U0; /* imisc */
		o->lat = 3;
		break;
	case AXP_U_FBR:
	case AXP_U_FADD:
	case AXP_U_FCMOV:
		o->pipes = EV6_P_FA;
		o->lat = 4;
		o->kind |= EV6_K_FPQ;
		break;
	case AXP_U_FMUL:
		o->pipes = EV6_P_FM;
		o->lat = 4;
		o->kind |= EV6_K_FPQ;
		break;
	case AXP_U_FDIVS:
	case AXP_U_FDIVT:
		o->pipes = EV6_P_FA;
		o->kind |= EV6_K_FPQ | EV6_K_FDIV;
		if (op == AXP_OP_SQRTS || op == AXP_OP_SQRTF)
			o->lat = 18;
		else if (op == AXP_OP_SQRTT || op == AXP_OP_SQRTG)
			o->lat = 33;
		else
			o->lat = unit == AXP_U_FDIVS ? 12 : 15;
		break;
	case AXP_U_FCPYS:
		if (fmt == AXP_FMT_ITF) { /* itof */
			o->pipes = EV6_P_L0 | EV6_P_L1;
			o->lat = 4;
		} else if (fmt == AXP_FMT_FTI) { /* ftoi */
			o->pipes = EV6_P_L0 | EV6_P_L1;
			o->lat = 3;
		} else { /* cpys: the FP add pipe [U] */
			o->pipes = EV6_P_FA;
			o->lat = 4;
			o->kind |= EV6_K_FPQ;
		}
		break;
	default: /* iadd, ilog, icmp, cmov, PAL */
		break;
	}
}

static void build_ops(struct mach_ev6 *m)
{
	for (unsigned int op = 0; op < AXP_OP_NR; op++) {
		struct ev6_op *o = &m->ops[op];
		struct isa_ev5_op f;

		isa_ev5_op(op, 1, &f);
		memset(o, 0, sizeof(*o));
		o->sa = f.sa;
		o->sb = f.sb;
		o->sc = f.sc;
		o->da = f.da;
		o->dc = f.dc;
		if (f.kind & ISA_EV5_K_CBR)
			o->kind |= EV6_K_CBR;
		if (f.kind & ISA_EV5_K_UBR)
			o->kind |= EV6_K_UBR;
		if (f.kind & ISA_EV5_K_IND)
			o->kind |= (f.kind & ISA_EV5_K_POP) ? EV6_K_RET : EV6_K_JMP;
		if (f.kind & ISA_EV5_K_PUSH)
			o->kind |= EV6_K_PUSH;
		if (f.kind & ISA_EV5_K_PAL)
			o->kind |= EV6_K_PAL;
		else if (f.kind & ISA_EV5_K_BARRIER)
			o->kind |= EV6_K_BARRIER;
		op_class(o, op, &m->p);
	}
}

/* ------------------------------------------------------------------------------------------ */
/* Lifecycle. */

int mach_ev6_new_params(struct mach_ev6 **out, const struct mach_ev6_params *p)
{
	struct mach_ev6 *m;
	size_t nbc;

	*out = NULL;
	if (!p->bcache_kb || (p->bcache_kb & (p->bcache_kb - 1)) || p->bcache_kb > (1u << 20) ||
	    !p->fetch_width || !p->fetch_queue || p->fetch_queue >= EV6_RING || !p->map_width ||
	    !p->retire_width || !p->window || p->window >= EV6_RING || !p->iq || p->iq > 32 ||
	    !p->fq || p->fq > 32 || !p->int_rename || p->int_rename >= EV6_RING || !p->fp_rename ||
	    p->fp_rename >= EV6_RING || !p->lq || p->lq > EV6_MEMQ || !p->sq || p->sq > EV6_MEMQ ||
	    !p->maf || p->maf > EV6_MAF_MAX || !p->ras_n || p->ras_n > EV6_RAS_MAX ||
	    p->dcache_lat > 255 || p->fdcache_lat > 255 || !p->stwait_clear)
		return -EINVAL;
	m = calloc(1, sizeof(*m));
	if (!m)
		return -ENOMEM;
	m->p = *p;
	nbc = (size_t)p->bcache_kb * 1024 >> 6;
	m->bc_tag = calloc(nbc, sizeof(*m->bc_tag));
	if (!m->bc_tag) {
		free(m);
		return -ENOMEM;
	}
	m->bc_mask = nbc - 1;
	build_ops(m);
	m->f_new = true;
	m->f_line = m->f_page = m->d_page = UINT64_MAX;
	memset(m->itb.vpn, 0xff, sizeof(m->itb.vpn));
	memset(m->dtb.vpn, 0xff, sizeof(m->dtb.vpn));
	memset(m->lpred, 3, sizeof(m->lpred)); /* weakly not taken [U] */
	memset(m->gpred, 1, sizeof(m->gpred));
	memset(m->choice, 1, sizeof(m->choice));
	memset(m->cyc_tag, 0xff, sizeof(m->cyc_tag));
	ev6_pmu_init(m);
	mach_ev6_pme_config(m, NULL);
	if (p->truth && ev6_truth_new(m)) {
		mach_ev6_free(m);
		return -ENOMEM;
	}
	*out = m;
	return 0;
}

void mach_ev6_free(struct mach_ev6 *m)
{
	if (!m)
		return;
	ev6_truth_free(m);
	free(m->bc_tag);
	free(m);
}

uint64_t mach_ev6_cycles(const struct mach_ev6 *m)
{
	return m->r_t;
}

uint64_t mach_ev6_count(const struct mach_ev6 *m, enum mach_event event)
{
	return (unsigned int)event < MACH_EV_NR ? m->count[event] : 0;
}

/* ------------------------------------------------------------------------------------------ */
/* Caches and TLBs. */

/* Below the first-level caches at cycle t: the B-cache (direct mapped) or memory, whose bus
 * carries one demand fill (a load's or an instruction fetch's) every `mem_occupancy` cycles [U];
 * a store's write-allocate fill uses the bandwidth left (not modelled: stores never wait for it,
 * so they must not reserve it either). Returns the latency; *lvl the level. */
static uint32_t lower(struct mach_ev6 *m, uint64_t addr, uint64_t t, bool demand, uint32_t *lvl)
{
	uint64_t blk = addr >> 6, *e = &m->bc_tag[blk & m->bc_mask], start;

	if (*e == blk + 1) {
		*lvl = AXP_LVL_BCACHE;
		return m->p.bcache_lat;
	}
	*e = blk + 1;
	*lvl = AXP_LVL_MEMORY;
	if (!demand)
		return m->p.mem_lat;
	start = max64(t, m->mem_free);
	m->mem_free = start + m->p.mem_occupancy;
	return (uint32_t)(start - t) + m->p.mem_lat;
}

/* Fully associative, round-robin [EV68A HRM 2.1.6]; a hint table avoids most searches. */
static bool tlb_lookup(struct ev6_tlb *tlb, uint64_t vpn)
{
	unsigned int h = (unsigned int)((vpn * 0x9e3779b97f4a7c15ull) >> 56), s = tlb->hint[h];

	if (s < EV6_TLB_N && tlb->vpn[s] == vpn)
		return true;
	for (unsigned int i = 0; i < EV6_TLB_N; i++) {
		if (tlb->vpn[i] == vpn) {
			tlb->hint[h] = (uint8_t)i;
			return true;
		}
	}
	s = tlb->next;
	tlb->next = (s + 1) % EV6_TLB_N;
	tlb->vpn[s] = vpn;
	tlb->hint[h] = (uint8_t)s;
	return false;
}

/* A 2-way set with one LRU bit: the way holding blk (or -1). */
static inline int way_of(const uint64_t tag[2], uint64_t blk)
{
	return tag[0] == blk + 1 ? 0 : tag[1] == blk + 1 ? 1 : -1;
}

/* ------------------------------------------------------------------------------------------ */
/* One instruction's trip. */

struct ev6_step {
	uint64_t f, mt, t, done, rt; /* fetch, map, issue, ready, retire */
	uint64_t dr; /* operands ready in the cluster it issued in (ProfileMe's data ready) */
	struct ev6_trec *tr;
	unsigned int evb; /* events to count */
	unsigned int cl; /* cluster it issued in */
	uint64_t trap_at; /* a replay trap was detected at this cycle ... */
	uint64_t reissue; /* ... and the target may not issue before this */
	uint64_t cause_pc;
	int trap; /* enum ev6_replay or -1 */
	uint32_t coh; /* a store: cycles it stays in the store queue for invalidations */
};

#define EVB_IMISS 0x01u
#define EVB_ITBMISS 0x02u
#define EVB_DMISS 0x04u
#define EVB_DTBMISS 0x08u
#define EVB_BRANCHMP 0x10u
#define EVB_BCMISS 0x20u

static inline void tc(struct ev6_step *s, enum ev6_tc c, uint64_t n)
{
	if (s->tr)
		s->tr->c[c] += n;
}

/* Fetch: the cycle the instruction at pc is fetched. Back-pressure [HRM 2.2]: it enters the
 * fetch queue (stages fetch and slot) only when the instruction `fetch_queue` older has left it
 * for map, so fetch runs at most the window plus the queue ahead of retire (map waits for a
 * free inum, HRM 6.10.3.3.2). */
static uint64_t fetch(struct mach_ev6 *m, uint64_t pc, struct ev6_step *s)
{
	uint64_t room = m->seq >= m->p.fetch_queue ?
				m->map_ring[(m->seq - m->p.fetch_queue) & (EV6_RING - 1)] :
				0;

	if (m->f_new || (pc >> 4) != m->f_blk || m->f_n >= m->p.fetch_width || room > m->f_t) {
		uint64_t t = max64(max64(m->f_t + 1, m->f_redirect), room), line = pc >> 6;

		if (line != m->f_line) {
			unsigned int set = line & (EV6_IC_SETS - 1);
			int w;

			m->f_line = line;
			if ((pc >> 13) != m->f_page) {
				m->f_page = pc >> 13;
				if (!tlb_lookup(&m->itb, pc >> 13)) {
					t += m->p.itb_miss;
					s->evb |= EVB_ITBMISS;
				}
			}
			w = way_of(m->ic_tag[set], line);
			if (w < 0) {
				uint32_t lvl;

				w = !m->ic_lru[set];
				m->ic_tag[set][w] = line + 1;
				t += lower(m, pc, t, true, &lvl);
				s->evb |= EVB_IMISS;
			}
			m->ic_lru[set] = (uint8_t)w;
		}
		m->f_t = t;
		m->f_blk = pc >> 4;
		m->f_n = 0;
		m->f_new = false;
	}
	m->f_n++;
	return m->f_t;
}

/* Younger instructions already fetched by cycle `at` are aborted: the next ones (in program
 * order) are refetched no earlier than `refetch`. */
static void flush_younger(struct mach_ev6 *m, uint64_t from, uint64_t at, uint64_t refetch)
{
	uint64_t n = at > from ? (at - from) * m->p.fetch_width : 0;

	if (n > m->p.window - 1)
		n = m->p.window - 1;
	if (n > m->ab_pending)
		m->ab_pending = (unsigned int)n;
	m->f_redirect = max64(m->f_redirect, refetch);
	m->f_new = true;
}

/* Min-heap of the latest issue cycles of the instructions that entered a queue of `cap`. */
static void heap_push(uint64_t *h, unsigned int *n, unsigned int cap, uint64_t v)
{
	unsigned int i;

	if (*n < cap) {
		i = (*n)++;
		while (i && h[(i - 1) / 2] > v) {
			h[i] = h[(i - 1) / 2];
			i = (i - 1) / 2;
		}
		h[i] = v;
		return;
	}
	if (v <= h[0])
		return;
	i = 0;
	for (;;) { /* replace the minimum, sift down */
		unsigned int c = 2 * i + 1;

		if (c >= *n)
			break;
		if (c + 1 < *n && h[c + 1] < h[c])
			c++;
		if (h[c] >= v)
			break;
		h[i] = h[c];
		i = c;
	}
	h[i] = v;
}

/* Map: in order, map_width a cycle, inum, physical register and queue entry free. */
static uint64_t map(struct mach_ev6 *m, const struct ev6_op *o, unsigned int dst, uint64_t f)
{
	uint64_t mt = max64(f + 2, m->m_t);
	const struct mach_ev6_params *p = &m->p;

	if (mt == m->m_t && m->m_n >= p->map_width)
		mt++;
	if (m->seq >= p->window)
		mt = max64(mt, m->ret_ring[(m->seq - p->window) & (EV6_RING - 1)] + 1);
	if (dst < 32 && m->nidest >= p->int_rename)
		mt = max64(mt, m->idest_ret[(m->nidest - p->int_rename) & (EV6_RING - 1)] + 1);
	else if (dst >= 32 && dst < 64 && m->nfdest >= p->fp_rename)
		mt = max64(mt, m->fdest_ret[(m->nfdest - p->fp_rename) & (EV6_RING - 1)] + 1);
	if (o->kind & EV6_K_FPQ) {
		if (m->fq_n >= p->fq)
			mt = max64(mt, m->fq_heap[0] + 1);
	} else if (m->iq_n >= p->iq) {
		mt = max64(mt, m->iq_heap[0] + 1);
	}
	if (mt != m->m_t) {
		m->m_t = mt;
		m->m_n = 0;
	}
	m->m_n++;
	return mt;
}

/* Issue: the first cycle >= the operands' readiness in a cluster with a free pipe of the class. */
static uint64_t pick(struct mach_ev6 *m, unsigned int pipes, uint64_t r0, uint64_t r1,
		     unsigned int *cl)
{
	for (uint64_t t = r0 < r1 ? r0 : r1;; t++) {
		unsigned int i = t & (EV6_CYC - 1);
		unsigned int used = m->cyc_tag[i] == t ? m->cyc_use[i] : 0, free = pipes & ~used;
		unsigned int c0 = free & (EV6_P_U0 | EV6_P_L0 | EV6_P_FA | EV6_P_FM);
		unsigned int c1 = free & (EV6_P_U1 | EV6_P_L1), pipe = 0;

		if (t >= r0 && c0) {
			pipe = c0 & -c0;
			*cl = 0;
		} else if (t >= r1 && c1) {
			pipe = c1 & -c1;
			*cl = 1;
		}
		if (pipe) {
			if (m->cyc_tag[i] != t) {
				m->cyc_tag[i] = t;
				m->cyc_use[i] = 0;
			}
			m->cyc_use[i] |= (uint8_t)pipe;
			return t;
		}
	}
}

static inline bool overlap(uint64_t a, unsigned int an, uint64_t b, unsigned int bn)
{
	return a < b + bn && b < a + an;
}

/* A replay trap detected at `at`: the target issues again no earlier than `reissue`. */
static inline void trap(struct ev6_step *s, enum ev6_replay kind, uint64_t at, uint64_t reissue,
			uint64_t cause)
{
	s->trap = (int)kind;
	s->trap_at = at;
	s->reissue = reissue;
	s->cause_pc = cause;
}

/* A load at issue cycle s->t: order checks, forwarding, LQ, MAF, D-cache. Sets s->done, or a
 * trap. */
static void load(struct mach_ev6 *m, const struct ev6_op *o, const struct axp_event *ev,
		 struct ev6_step *s)
{
	const uint64_t t = s->t, ea = ev->ea;
	const unsigned int sz = ev->size ? ev->size : 1;
	uint64_t blk = ea >> 6;
	unsigned int set = blk & (EV6_DC_SETS - 1);
	int w;

	/* store queue: forwarding, store-load order [HRM 2.11] */
	for (uint64_t k = m->nst; k > 0 && m->nst - k < m->p.sq; k--) {
		const struct ev6_mem_rec *st = &m->stq[(k - 1) & (EV6_MEMQ - 1)];

		if (st->retire <= t)
			break; /* it and every older store have left the queue */
		if (!overlap(st->ea, st->size, ea, sz))
			continue;
		if (st->issue >= t) { /* same cycle: the load missed the store's data [U] */
			trap(s, EV6_RP_STLD, st->issue, st->issue + m->p.order_trap, st->pc);
			return;
		}
		if (st->ea <= ea && ea + sz <= st->ea + st->size) {
			s->done = t + o->lat; /* forwarded from the store queue */
			tc(s, EV6_TC_FWD, 1);
			return;
		}
		trap(s, EV6_RP_MBOX, t, max64(t + m->p.mbox_replay, st->retire + 1), st->pc);
		return;
	}
	/* load queue: load-load order [HRM 2.11], full */
	for (uint64_t k = m->nld; k > 0 && m->nld - k < m->p.lq; k--) {
		const struct ev6_mem_rec *ld = &m->ldq[(k - 1) & (EV6_MEMQ - 1)];

		if (ld->retire <= t)
			break;
		if (ld->issue > t && overlap(ld->ea, ld->size, ea, sz)) {
			trap(s, EV6_RP_LDLD, ld->issue, ld->issue + m->p.order_trap, ld->pc);
			return;
		}
	}
	if (m->nld >= m->p.lq) {
		uint64_t r = m->ldq[(m->nld - m->p.lq) & (EV6_MEMQ - 1)].retire;

		if (r > t) {
			trap(s, EV6_RP_MBOX, t, max64(t + m->p.mbox_replay, r + 1), 0);
			return;
		}
	}
	/* D-cache */
	w = way_of(m->dc_tag[set], blk);
	if (w >= 0) {
		s->done = max64(t + o->lat, m->dc_ready[set][w]);
		if (m->dc_ready[set][w] > t + o->lat)
			s->evb |= EVB_DMISS; /* merged with the outstanding fill (MAF) */
	} else {
		uint64_t free_at = UINT64_MAX;
		unsigned int busy = 0, slot = 0;
		uint32_t lvl;

		for (unsigned int i = 0; i < m->p.maf; i++) {
			if (m->maf[i] > t)
				busy++;
			if (m->maf[i] < free_at) {
				free_at = m->maf[i];
				slot = i;
			}
		}
		if (busy == m->p.maf) {
			trap(s, EV6_RP_MBOX, t, max64(t + m->p.mbox_replay, free_at), 0);
			return;
		}
		uint32_t c2c = m->coh ? ev6_coh_load(m, ev) : 0, lat = lower(m, ea, t, true, &lvl);

		if (c2c) /* another CPU's Modified copy supplies it (mach_coh.h) */
			lvl = AXP_LVL_BCACHE, lat = c2c;
		s->done = t + lat + (o->lat - m->p.dcache_lat);
		s->evb |= EVB_DMISS | (lvl == AXP_LVL_MEMORY ? EVB_BCMISS : 0);
		m->maf[slot] = s->done;
		w = !m->dc_lru[set];
		m->dc_tag[set][w] = blk + 1;
		m->dc_ready[set][w] = s->done;
	}
	m->dc_lru[set] = (uint8_t)w;
}

/* A store at issue cycle s->t: SQ full, D-cache allocate (no timing: the fill happens after
 * retire, while the store waits in the queue [U]). */
static void store(struct mach_ev6 *m, const struct axp_event *ev, struct ev6_step *s)
{
	uint64_t blk = ev->ea >> 6;
	unsigned int set = blk & (EV6_DC_SETS - 1);
	int w;

	if (m->nst >= m->p.sq) {
		uint64_t r = m->stq[(m->nst - m->p.sq) & (EV6_MEMQ - 1)].retire;

		if (r > s->t) {
			trap(s, EV6_RP_MBOX, s->t, max64(s->t + m->p.mbox_replay, r + 1), 0);
			return;
		}
	}
	if (m->coh)
		s->coh = ev6_coh_store(m, ev);
	w = way_of(m->dc_tag[set], blk);
	if (w < 0) {
		uint32_t lvl;

		w = !m->dc_lru[set];
		m->dc_tag[set][w] = blk + 1;
		m->dc_ready[set][w] = s->t + lower(m, ev->ea, s->t, false, &lvl);
	}
	m->dc_lru[set] = (uint8_t)w;
	s->done = s->t + 1;
}

/* Tournament prediction [HRM 2.1.1.4-2.1.1.6, Figs. 2-2..2-4]; true on a misprediction. */
static bool predict_cond(struct mach_ev6 *m, uint64_t pc, bool taken)
{
	unsigned int li = (pc >> 2) & (EV6_LHIST_N - 1), h = m->lhist[li] & (EV6_LPRED_N - 1);
	unsigned int g = m->path & (EV6_GPRED_N - 1);
	bool lp = m->lpred[h] >= 4, gp = m->gpred[g] >= 2, pred = m->choice[g] >= 2 ? gp : lp;

	if (lp != gp) { /* the choice learns which one was right */
		if (gp == taken && m->choice[g] < 3)
			m->choice[g]++;
		else if (lp == taken && m->choice[g] > 0)
			m->choice[g]--;
	}
	if (taken) {
		if (m->lpred[h] < 7)
			m->lpred[h]++;
		if (m->gpred[g] < 3)
			m->gpred[g]++;
	} else {
		if (m->lpred[h])
			m->lpred[h]--;
		if (m->gpred[g])
			m->gpred[g]--;
	}
	m->lhist[li] = (uint16_t)(((m->lhist[li] << 1) | taken) & (EV6_LPRED_N - 1));
	m->path = (uint16_t)(((m->path << 1) | taken) & (EV6_GPRED_N - 1));
	return pred != taken;
}

/* At most n bad-path instructions fetched before `redirect`, less what back-pressure allows
 * [HRM 2.2, 6.10.3.3.2]: they hold inums (never retiring) and the fetch queue, beside the
 * branch and the older instructions still unretired at the redirect. */
static uint64_t badpath_room(const struct mach_ev6 *m, uint64_t n, uint64_t redirect)
{
	uint64_t busy = 1, room; /* the branch */

	for (uint64_t k = 1; k < m->p.window && k <= m->seq; k++)
		if (m->ret_ring[(m->seq - k) & (EV6_RING - 1)] > redirect)
			busy++;
	room = busy < m->p.window ? m->p.window - busy : 0;
	room += m->p.fetch_queue;
	return n < room ? n : room;
}

/* Branches and jumps resolved at issue s->t: prediction, redirect, bad-path fetch. */
static void control(struct mach_ev6 *m, const struct ev6_op *o, const struct axp_insn *d,
		    const struct axp_event *ev, struct ev6_step *s)
{
	uint64_t pc = ev->pc, wrong = 0; /* where the bad path starts */
	uint16_t path = m->path;
	bool mp = false;
	uint32_t pen = m->p.mispredict;

	if (o->kind & EV6_K_CBR) {
		mp = predict_cond(m, pc, ev->taken);
		wrong = ev->taken ? pc + 4 : pc + 4 + 4 * (uint64_t)(int64_t)d->disp;
		path = m->path ^ 1u; /* the bad path was fetched under the predicted direction */
	} else if (o->kind & EV6_K_RET) {
		m->ras_top = (m->ras_top + m->p.ras_n - 1) % m->p.ras_n;
		mp = m->ras[m->ras_top] != ev->next_pc;
		wrong = m->ras[m->ras_top];
		pen = m->p.jsr_mispredict;
	} else if (o->kind & EV6_K_JMP) {
		uint64_t *tg = &m->jtgt[(pc >> 2) & (EV6_JTGT_N - 1)];

		mp = *tg != ev->next_pc;
		wrong = *tg;
		*tg = ev->next_pc;
		pen = m->p.jsr_mispredict;
	}
	if (o->kind & EV6_K_PUSH) {
		m->ras[m->ras_top] = pc + 4;
		m->ras_top = (m->ras_top + 1) % m->p.ras_n;
	}
	if (mp) {
		uint64_t redirect = s->t + pen - FRONT, n = 0;

		if (redirect > s->f + 1)
			n = (redirect - s->f - 1) * m->p.fetch_width;
		n = badpath_room(m, n, redirect);
		m->badpath += n;
		m->aborted += n;
		m->fetched += n;
		tc(s, EV6_TC_BADPATH, n);
		tc(s, EV6_TC_MISPREDICT, 1);
		ev6_pme_badpath(m, wrong & ~3ull, n, s->f, redirect, path);
		for (uint64_t k = 0; m->waste && k < n; k++) /* as ev6_pme_badpath times them */
			ev6_waste_window(m, (wrong & ~3ull) + 4 * k,
					 s->f + 1 + k / m->p.fetch_width, redirect, false);
		s->evb |= EVB_BRANCHMP;
		m->f_redirect = max64(m->f_redirect, redirect);
		m->f_new = true;
	}
}

static unsigned int dest_reg(const struct ev6_op *o, const struct axp_insn *d)
{
	unsigned int r;

	if (o->da)
		r = d->ra + o->da - 1u;
	else if (o->dc)
		r = d->rc + o->dc - 1u;
	else
		return NOREG;
	return (r & 31) == 31 ? NOREG : r;
}

static inline void src(const struct mach_ev6 *m, unsigned int r, uint64_t *r0, uint64_t *r1)
{
	*r0 = max64(*r0, m->rdy[r][0]);
	*r1 = max64(*r1, m->rdy[r][1]);
}

/* Fetch, map and issue once; then the memory system. Returns with s->trap set if it replayed. */
static void attempt(struct mach_ev6 *m, const struct ev6_op *o, const struct axp_insn *d,
		    const struct axp_event *ev, unsigned int dst, struct ev6_step *s)
{
	uint64_t r0, r1, dr0, dr1;

	s->trap = -1;
	s->f = fetch(m, ev->pc, s);
	s->mt = map(m, o, dst, s->f);
	r0 = r1 = s->mt + 1;
	if (o->sa)
		src(m, d->ra + o->sa - 1u, &r0, &r1);
	if (o->sb && !d->islit)
		src(m, d->rb + o->sb - 1u, &r0, &r1);
	if (o->sc)
		src(m, d->rc + o->sc - 1u, &r0, &r1);
	dr0 = r0;
	dr1 = r1;
	if (o->kind & (EV6_K_BARRIER | EV6_K_PAL)) { /* [U] wait until the older retired */
		r0 = max64(r0, m->r_t);
		r1 = max64(r1, m->r_t);
	}
	if (o->kind & EV6_K_FDIV) {
		r0 = max64(r0, m->fdiv_free);
		r1 = max64(r1, m->fdiv_free);
	}
	if (ev->is_load && m->stwait[(ev->pc >> 2) & (EV6_STWAIT_N - 1)] &&
	    m->st_max_issue >= (r0 < r1 ? r0 : r1)) {
		/* stWait [HRM 2.11]: wait until every older store has issued */
		r0 = max64(r0, m->st_max_issue + 1);
		r1 = max64(r1, m->st_max_issue + 1);
		tc(s, EV6_TC_STWAIT, 1);
	}
	if (s->reissue) {
		r0 = max64(r0, s->reissue);
		r1 = max64(r1, s->reissue);
	}
	s->t = pick(m, o->pipes, r0, r1, &s->cl);
	s->dr = s->cl ? dr1 : dr0;
	if (s->dr > s->t)
		s->dr = s->t;
	s->done = s->t + o->lat;
	if (ev->is_load || ev->is_store) {
		uint64_t vpn = ev->ea >> 13;

		if (vpn != m->d_page) {
			m->d_page = vpn;
			if (!tlb_lookup(&m->dtb, vpn)) {
				/* DTB miss: PALcode refills, the access issues again [Table 2-1] */
				s->evb |= EVB_DTBMISS;
				s->t += m->p.dtb_miss;
				flush_younger(m, s->f, s->t, s->t - FRONT + 1);
			}
		}
		if (ev->is_load)
			load(m, o, ev, s);
		else
			store(m, ev, s);
	}
}

/* Count the events of the instruction (retired at s->rt) and its truth. */
static void account(struct mach_ev6 *m, const struct axp_event *ev, struct ev6_step *s,
		    uint64_t prev_rt, bool cond)
{
	static const struct {
		unsigned int bit;
		enum mach_event ev;
		enum ev6_tc tc;
		int tev;
	} map[] = {
		{ EVB_IMISS, MACH_EV_IMISS, EV6_TC_IMISS, MACH_TEV_IMISS },
		{ EVB_ITBMISS, MACH_EV_ITBMISS, EV6_TC_ITBMISS, MACH_TEV_ITBMISS },
		{ EVB_DMISS, MACH_EV_DMISS, EV6_TC_DMISS, MACH_TEV_DMISS },
		{ EVB_DTBMISS, MACH_EV_DTBMISS, EV6_TC_DTBMISS, MACH_TEV_DTBMISS },
		{ EVB_BRANCHMP, MACH_EV_BRANCHMP, EV6_TC_MISPREDICT, MACH_TEV_BRANCHMP },
		{ EVB_BCMISS, MACH_EV_BCMISS, EV6_TC_BCMISS, -1 },
	};
	struct ev5_trec *r = NULL;

	if (m->truth) {
		r = ev5_truth_rec(m->truth, ev->pc);
		if (r) {
			r->exec++;
			r->head += s->rt - prev_rt;
			r->stall[MACH_STALL_STATIC] += s->rt - prev_rt;
			if (ev->next_pc != ev->pc + 4 || cond)
				ev5_truth_edge(m->truth, r, ev->pc, ev->next_pc, cond);
		}
	}
	if (s->tr) {
		s->tr->c[EV6_TC_RETIRE]++;
		s->tr->c[EV6_TC_FETCH_MAP] += s->mt - s->f;
		s->tr->c[EV6_TC_MAP_ISSUE] += s->t - s->mt;
		s->tr->c[EV6_TC_ISSUE_READY] += s->done - s->t;
		s->tr->c[EV6_TC_READY_RETIRE] += s->rt - s->done;
	}
	if (!s->evb)
		return;
	for (unsigned int i = 0; i < sizeof(map) / sizeof(map[0]); i++) {
		if (!(s->evb & map[i].bit))
			continue;
		ev6_pmu_event(m, map[i].ev);
		if (map[i].bit != EVB_BRANCHMP)
			tc(s, map[i].tc, 1); /* control() counted the mispredict */
		if (r && map[i].tev >= 0)
			r->ev[map[i].tev]++;
	}
}

/* ProfileMe's events of the instruction so far [PM §4.1; HRM 6.10 I_STAT, PCTR_CTL]. */
static uint16_t pme_events(const struct ev6_step *s, const struct axp_event *ev, bool cond)
{
	uint16_t e = 0;

	e |= (s->evb & EVB_IMISS) ? MACH_PME_E_IMISS : 0;
	e |= (s->evb & EVB_ITBMISS) ? MACH_PME_E_ITBMISS : 0;
	e |= (s->evb & EVB_DMISS) ? MACH_PME_E_DMISS : 0;
	e |= (s->evb & EVB_BCMISS) ? MACH_PME_E_BCMISS : 0;
	e |= (s->evb & EVB_DTBMISS) ? MACH_PME_E_DTBMISS : 0;
	e |= (s->evb & EVB_BRANCHMP) ? MACH_PME_E_MISPREDICT : 0;
	e |= (cond && ev->taken) ? MACH_PME_E_TAKEN : 0;
	return e;
}

/* A sampled copy of the instruction at ev->pc aborted: fetched at f, aborted at `abort` (0:
 * unknown), with history `path`. */
static void pme_aborted(struct mach_ev6 *m, unsigned int sel, const struct axp_event *ev,
			enum mach_pme_status why, uint64_t f, uint64_t abort, uint16_t path,
			uint16_t events)
{
	struct mach_pme r;

	memset(&r, 0, sizeof(r));
	r.pc = ev->pc;
	r.ea = (ev->is_load || ev->is_store) ? ev->ea : 0;
	r.fetch = f;
	r.span = abort > f ? (uint32_t)(abort - f) : 0;
	r.path = path;
	r.events = events;
	r.status = (uint8_t)why;
	ev6_pme_done(m, sel, &r);
}

/* The sampled instruction retired at s->rt: the whole record, latency registers included. */
static void pme_retired(struct mach_ev6 *m, unsigned int sel, const struct ev6_op *o,
			const struct axp_event *ev, const struct ev6_step *s, uint64_t prev_rt,
			uint16_t path)
{
	struct mach_pme r;

	memset(&r, 0, sizeof(r));
	r.pc = ev->pc;
	r.ea = (ev->is_load || ev->is_store) ? ev->ea : 0;
	if (o->kind & (EV6_K_CBR | EV6_K_UBR | EV6_K_JMP | EV6_K_RET))
		r.target = ev->next_pc;
	r.fetch = s->f;
	r.lat[MACH_PME_L_FETCH_MAP] = (uint32_t)(s->mt - s->f);
	r.lat[MACH_PME_L_MAP_DATA] = (uint32_t)(s->dr - s->mt);
	r.lat[MACH_PME_L_DATA_ISSUE] = (uint32_t)(s->t - s->dr);
	r.lat[MACH_PME_L_ISSUE_READY] = (uint32_t)(s->done - s->t);
	r.lat[MACH_PME_L_READY_RETIRE] = (uint32_t)(s->rt - s->done);
	r.span = (uint32_t)(s->rt - s->f);
	r.retire_delay = (uint32_t)(s->rt - prev_rt);
	r.path = path;
	r.events = pme_events(s, ev, (o->kind & EV6_K_CBR) != 0);
	r.status = MACH_PME_RETIRED;
	if (m->tx && (sel & 2))
		ev6_truth_path(m, ev->pc, path, m->pme_dist,
			       (m->pme_have & 1) ? &m->pme_pend[0] : NULL);
	ev6_pme_done(m, sel, &r);
}

void mach_ev6_retire(struct mach_ev6 *m, const struct axp_insn *d, const struct axp_event *ev)
{
	const struct ev6_op *o = &m->ops[d->op];
	const unsigned int dst = dest_reg(o, d);
	struct ev6_step s;
	uint64_t prev_rt = m->r_t, rt;
	unsigned int tries = 0, sel;
	const uint16_t path = m->path; /* the global history this instruction was fetched with */

	s.evb = 0;
	s.reissue = 0;
	s.coh = 0;
	s.tr = m->tx ? ev6_truth_rec(m, ev->pc) : NULL;
	m->fetched++;
	tc(&s, EV6_TC_FETCH, 1);
	if (m->ab_pending) { /* fetched before by a path an older instruction's trap aborted */
		m->ab_pending--;
		m->aborted++;
		m->fetched++;
		tc(&s, EV6_TC_FETCH, 1);
		tc(&s, EV6_TC_AB_YOUNGER, 1);
		sel = ev6_pme_tick(m);
		if (sel)
			pme_aborted(m, sel, ev, MACH_PME_AB_TRAP, m->f_t, 0, path, 0);
	}
	for (;;) {
		sel = ev6_pme_tick(m);
		attempt(m, o, d, ev, dst, &s);
		if (s.trap < 0 || tries++ == 4) /* a bound on pathological chains */
			break;
		if (sel)
			pme_aborted(m, sel, ev, MACH_PME_AB_STLD + (unsigned int)s.trap, s.f,
				    s.trap_at, path,
				    (uint16_t)(pme_events(&s, ev, false) |
					       (s.trap != EV6_RP_MBOX ? MACH_PME_E_LSO : 0)));
		/* replay trap [HRM 2.11]: abort it and the younger, refetch */
		ev6_waste_window(m, ev->pc, s.f, s.trap_at, false);
		m->replays[s.trap]++;
		m->aborted++;
		m->fetched++;
		ev6_pmu_event(m, MACH_EV_REPLAY);
		tc(&s, EV6_TC_RP_STLD + (unsigned int)s.trap, 1);
		tc(&s, EV6_TC_AB_REPLAY, 1);
		tc(&s, EV6_TC_FETCH, 1);
		if (m->tx)
			ev6_truth_replay(m, ev->pc, s.cause_pc, (enum ev6_replay)s.trap);
		if (s.trap == EV6_RP_STLD)
			m->stwait[(ev->pc >> 2) & (EV6_STWAIT_N - 1)] = 1;
		flush_younger(m, s.f, s.trap_at, s.reissue - FRONT);
	}

	/* results: the other cluster sees an integer result one cycle later [HRM 2.3] */
	if (o->kind & EV6_K_FDIV)
		m->fdiv_free = s.done;
	if ((o->kind & EV6_K_PAL) && !(m->p.kernel_time && (ev->word & 0x3ffffffu) == 0x83u))
		s.done = s.t +
			 m->p.pal_cycles; /* callsys: its kernel time follows (mach_ev6_kernel) */
	if (dst != NOREG) {
		m->rdy[dst][s.cl] = s.done;
		m->rdy[dst][!s.cl] = dst < 32 ? s.done + 1 : s.done;
	}
	heap_push((o->kind & EV6_K_FPQ) ? m->fq_heap : m->iq_heap,
		  (o->kind & EV6_K_FPQ) ? &m->fq_n : &m->iq_n,
		  (o->kind & EV6_K_FPQ) ? m->p.fq : m->p.iq, s.t);

	/* control flow */
	if (o->kind & (EV6_K_CBR | EV6_K_UBR | EV6_K_JMP | EV6_K_RET))
		control(m, o, d, ev, &s);
	if (ev->next_pc != ev->pc + 4)
		m->f_new = true;
	if (o->kind & EV6_K_PAL) {
		m->f_redirect = max64(m->f_redirect, s.done);
		m->f_new = true;
	}

	/* retire, in order */
	rt = max64(s.done + 1, m->r_t);
	if (rt == m->r_t && m->r_n >= m->p.retire_width)
		rt++;
	if (rt != m->r_t) {
		m->r_t = rt;
		m->r_n = 0;
	}
	m->r_n++;
	s.rt = rt;
	m->last = (struct ev6_stages){ s.f, s.mt, s.t, s.done, rt, s.cl };
	m->ret_ring[m->seq & (EV6_RING - 1)] = rt;
	m->map_ring[m->seq & (EV6_RING - 1)] = s.mt;
	if (dst < 32)
		m->idest_ret[m->nidest++ & (EV6_RING - 1)] = rt;
	else if (dst < 64)
		m->fdest_ret[m->nfdest++ & (EV6_RING - 1)] = rt;
	if (ev->is_load || ev->is_store) {
		struct ev6_mem_rec *q = ev->is_load ? &m->ldq[m->nld++ & (EV6_MEMQ - 1)] :
						      &m->stq[m->nst++ & (EV6_MEMQ - 1)];

		*q = (struct ev6_mem_rec){ .pc = ev->pc,
					   .ea = ev->ea,
					   .issue = s.t,
					   .retire = rt + s.coh,
					   .size = (uint8_t)(ev->size ? ev->size : 1) };
		if (ev->is_store && s.t > m->st_max_issue)
			m->st_max_issue = s.t;
		if (ev->is_load && rt - m->stwait_epoch >= m->p.stwait_clear) {
			memset(m->stwait, 0, sizeof(m->stwait)); /* periodic clearing [U] */
			m->stwait_epoch = rt;
		}
	}
	m->hist_pc[m->hist_n % EV6_HIST] = ev->pc;
	m->hist_t[m->hist_n % EV6_HIST] = rt;
	m->hist_n++;
	m->seq++;

	/* PMU: cycles up to the retire, then this instruction's events */
	m->count[MACH_EV_CYCLES] = rt;
	if (rt >= m->next_ov[MACH_EV_CYCLES])
		ev6_pmu_overflow(m, MACH_EV_CYCLES);
	account(m, ev, &s, prev_rt, (o->kind & EV6_K_CBR) != 0);
	ev6_pmu_event(m, MACH_EV_RETIRED);
	/* exact counts only: the 21264 has no load or FP-operate event (HRM 6.10, Table 6-11) */
	if (ev->is_load)
		m->count[MACH_EV_LOADS]++;
	if (mach_is_fp_operate(ev->word))
		m->count[MACH_EV_FPOPS]++;
	if (sel)
		pme_retired(m, sel, o, ev, &s, prev_rt, path);
	if (m->waste) {
		ev6_waste_window(m, ev->pc, s.f, s.done, true);
		ev6_waste_issue(m, s.t, m->f_t);
	}
	/* after the sample: its path record holds the older transfers only */
	if (m->tx && ((o->kind & EV6_K_CBR) || ev->next_pc != ev->pc + 4))
		ev6_truth_transfer(m, ev->pc, ev->next_pc);
	if (m->min_due <= rt)
		ev6_pmu_deliver(m, ev->pc, rt);
}

/*
 * Kernel time (mach_kern.h): the CALL_PAL callsys just retired at r_t; the kernel runs for
 * `cycles` after it (PALcode entry and exit included) and nothing younger retires or fetches
 * before it is over. CYCLES keeps counting; interrupts due in that time report `pc`, the call's
 * pseudo-pc. Other events, the caches and the predictors are left as they were [U].
 */
bool mach_ev6_kernel(struct mach_ev6 *m, unsigned int nr, uint64_t pc, uint64_t cycles)
{
	uint64_t te = m->r_t + (cycles ? cycles : 1);

	m->kcycles += te - m->r_t;
	if (m->truth)
		mach_trec_kernel(m->truth, nr, te - m->r_t);
	m->r_t = te;
	m->r_n = m->p.retire_width; /* the next retire is in a later cycle */
	m->f_redirect = max64(m->f_redirect, te);
	m->f_new = true;
	m->hist_pc[m->hist_n % EV6_HIST] = pc;
	m->hist_t[m->hist_n % EV6_HIST] = te;
	m->hist_n++;
	m->count[MACH_EV_CYCLES] = te;
	if (te >= m->next_ov[MACH_EV_CYCLES])
		ev6_pmu_overflow(m, MACH_EV_CYCLES);
	if (m->min_due <= te)
		ev6_pmu_deliver(m, pc, te);
	return m->nready != 0;
}

void mach_ev6_access(struct mach_ev6 *m, uint64_t va, unsigned int size, bool store,
		     struct axp_access *acc)
{
	uint64_t blk = va >> 6;
	unsigned int set = blk & (EV6_DC_SETS - 1);
	int w = way_of(m->dc_tag[set], blk);
	uint32_t lvl;

	(void)size;
	if (w >= 0) {
		acc->level = AXP_LVL_DCACHE;
		acc->latency = store ? 1 : m->p.dcache_lat;
		m->dc_lru[set] = (uint8_t)w;
		return;
	}
	acc->latency = lower(m, va, m->r_t, !store, &lvl);
	acc->level = lvl;
	if (store)
		acc->latency = 1;
	w = !m->dc_lru[set];
	m->dc_tag[set][w] = blk + 1;
	m->dc_ready[set][w] = m->r_t + acc->latency;
	m->dc_lru[set] = (uint8_t)w;
}
