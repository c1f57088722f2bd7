/* machine/mach_ev5_study.c - measurement for a block-level timing memo (a study, not a model). */
/*
 * EV5-MODEL.md "Speed", "Study: a block-level timing memo". A memo would replay a basic block's
 * issue cycles when the block is entered with an equivalent timing state (the entry key) and
 * every per-execution hit condition holds. This file measures how often that would happen: the
 * retire calls ev5_study_pre() and ev5_study_post() around each instruction only in a build with
 * -DEV5_STUDY=1 (mach_ev5.c; the default build compiles the calls out), and mach_ev5_free()
 * prints the figures to stderr. It keeps a memo of the last K keys of every block (K = 4, most
 * recent first, so hits at K = 1, 2 and 4 come from one table) and checks that every hit that
 * passes the conditions saw the same issue cycles and stall pieces as the memo's first run: a
 * mismatch would mean the key misses a piece of state. Variants, by environment variable:
 * AXPROF_EV5_STUDY_SOFT (a D-cache miss fails only when the block touches the load's register
 * after it), AXPROF_EV5_STUDY_LAT (a miss with MAF room never fails; the key takes each miss's
 * position and latency). One model per process (the study's state is global, ~100 MB of memo):
 * run it with one CPU. The guest inherits the variables, so its instruction count moves a little.
 */
#include <stdio.h>
#include <stdlib.h>

#include "mach_ev5_model.h"

#define ST_MAXN 64 /* longest block (a straight line longer than this is cut) */
#define ST_K 4
#define ST_TAB (1u << 17)
#define ST_GRP 6 /* key groups: fetch/slot, pend, store, units, operands, late */

/* (F_SOFT and F_IPAGE are not failures: a memo would handle them; see ev5_study_pre()) */
enum st_fail { F_IFETCH, F_DTB, F_DMISS, F_REPLAY, F_WB, F_MB, F_BROKEN, F_SOFT, F_IPAGE, F_NR };
static const char *const fail_name[F_NR] = { "ifetch", "dtb",	 "dmiss",	 "replay", "wbfull",
					     "mb",     "broken", "(soft-dmiss)", "(ipage)" };
static const char *const grp_name[ST_GRP] = {
	"slot", "pend", "store", "units", "operands", "late"
};

struct st_insn {
	uint64_t pc;
	uint32_t word;
	uint16_t kind;
	uint8_t a, b, c, dst;
};

struct st_ent {
	uint64_t sig;
	uint8_t nk;
	uint64_t key[ST_K], out[ST_K], grp[ST_K][ST_GRP];
	uint16_t trel[ST_K][ST_MAXN]; /* issue cycles of each key's outcome (a mismatch's report) */
};

/* Virtual CYCLES thresholds at a random period in [lo, hi] (the recorder's), 6-cycle delay. */
struct st_pmu {
	uint64_t lo, hi, thr, due, blocks, insns, hit_insns;
};

static struct {
	bool init, open,
		soft; /* soft (AXPROF_EV5_STUDY_SOFT set): a D-cache miss is a condition only
			  * when the block uses its register after it or the MAF may be full */
	bool lat; /* lat (AXPROF_EV5_STUDY_LAT set): a D-cache miss with MAF room is no condition;
		   * the key takes the misses' latencies (a memo would branch on them) */
	uint64_t last_t, pend_late; /* registers of this block's missing loads */
	uint64_t ext; /* lat: the block's miss latencies */
	bool maf_room;
	/* entry snapshot */
	uint64_t cur, ub, blk, pend_at, last_store_t, e0_block, mul_free, fdiv_free, max_rdy,
		max_rdy_st, late;
	bool redirect;
	uint8_t pend_cause;
	uint64_t rdy[66], stt[66], b0[66];
	/* the block so far */
	unsigned int n, fail, loads, stores, cbr, mp;
	struct st_insn in[ST_MAXN];
	uint16_t trel[ST_MAXN], mlat[ST_MAXN];
	uint64_t out, t_end;
	/* memo and statistics */
	struct st_ent *tab;
	uint64_t tab_full, rng;
	uint64_t insns, blocks, pass, hitk[ST_K], passhit[ST_K], mism, failn[F_NR];
	uint64_t len_blocks[8], len_insns[8], grpdiff[ST_GRP], missnew;
	uint64_t h_blocks, h_live, h_keyw, h_dst, h_loads, h_stores, h_cbr, h_mp;
	struct st_pmu pmu[2];
} S;

static uint64_t mix(uint64_t h, uint64_t v)
{
	h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
	return h * 0xff51afd7ed558ccdull;
}

static uint64_t rel0(uint64_t x, uint64_t cur) /* x - cur, 0 if x <= cur */
{
	return x > cur ? x - cur : 0;
}

static uint64_t rng_period(const struct st_pmu *p)
{
	S.rng = S.rng * 6364136223846793005ull + 1442695040888963407ull;
	return p->lo + (S.rng >> 33) % (p->hi - p->lo + 1);
}

static void study_init(void)
{
	S.init = true;
	S.tab = calloc(ST_TAB, sizeof(*S.tab));
	S.pmu[0] = (struct st_pmu){ .lo = 60000, .hi = 64000 };
	S.pmu[1] = (struct st_pmu){ .lo = 200, .hi = 300 };
	S.rng = 1;
	S.soft = getenv("AXPROF_EV5_STUDY_SOFT") != NULL;
	S.lat = getenv("AXPROF_EV5_STUDY_LAT") != NULL;
	for (unsigned int i = 0; i < 2; i++)
		S.pmu[i].thr = rng_period(&S.pmu[i]);
}

static void snapshot(const struct mach_ev5 *m)
{
	S.open = true;
	S.n = S.fail = S.loads = S.stores = S.cbr = S.mp = 0;
	S.out = 0;
	S.pend_late = 0;
	S.ext = 0;
	S.cur = m->cur;
	S.ub = m->ub;
	S.blk = m->blk;
	S.redirect = m->redirect;
	S.pend_at = m->pend_at;
	S.pend_cause = m->pend_cause;
	S.last_store_t = m->last_store_t;
	S.e0_block = m->e0_block;
	S.mul_free = m->mul_free;
	S.fdiv_free = m->fdiv_free;
	S.max_rdy = m->max_rdy;
	S.max_rdy_st = m->max_rdy_st;
	S.late = m->late;
	memcpy(S.rdy, m->rdy, sizeof(S.rdy));
	memcpy(S.stt, m->st, sizeof(S.stt));
	memcpy(S.b0, m->b0, sizeof(S.b0));
}

/*
 * The entry key of the block just run, as group hashes (grp) and their combination (returned);
 * *words: the key's length in 64-bit words, *live: live-in registers, *dsts: registers written.
 */
static uint64_t entry_key(uint64_t *grp, unsigned int *words, unsigned int *live,
			  unsigned int *dsts)
{
	const uint64_t cur = S.cur;
	uint64_t seen = 0, wrote = 0, k = 0;
	unsigned int has = 0, w = 0;

	for (unsigned int g = 0; g < ST_GRP; g++)
		grp[g] = g + 1;
	*live = *dsts = 0;
	/* Slot and fetch: the first instruction may share the current cycle only when it
	 * continues the current fetch block; then the cycle's resources (ub) matter. */
	if (!S.redirect && (S.in[0].pc >> 4) == S.blk) {
		grp[0] = mix(grp[0], S.ub);
		w += 2;
	}
	/* A mispredict's or CALL_PAL's wait (set only with redirect). */
	if (S.redirect && S.pend_at) {
		grp[1] = mix(mix(grp[1], S.pend_at - cur), S.pend_cause);
		w++;
	}
	for (unsigned int i = 0; i < S.n; i++)
		has |= S.in[i].kind;
	/* A load may not issue 2 cycles after a store (placement; the replay is a condition). */
	if (has & ISA_EV5_K_LOAD) {
		grp[2] = mix(grp[2], S.last_store_t + 2 >= cur ? S.last_store_t + 2 - cur : 99);
		w++;
	}
	/* Units: E0 reserved by a finishing multiply, multiplier and divider, barriers. */
	grp[3] = mix(grp[3], rel0(S.e0_block, cur));
	w++;
	if (has & ISA_EV5_K_IMUL) {
		grp[3] = mix(grp[3], rel0(S.mul_free, cur));
		w++;
	}
	if (has & ISA_EV5_K_FDIV) {
		grp[3] = mix(grp[3], rel0(S.fdiv_free, cur));
		w++;
	}
	if (has & ISA_EV5_K_BARRIER) {
		grp[3] = mix(mix(grp[3], rel0(S.max_rdy, cur)), rel0(S.max_rdy_st, cur));
		w += 2;
	}
	/* Operands read before the block writes them (the static schedule's st; b0 for an
	 * IBR/CMOV's Ra; a multiply's sources' rdy up to 2 cycles back), and the lateness of every
	 * register touched before it is written (a missing load's data: rdy; WAW). */
	for (unsigned int i = 0; i < S.n; i++) {
		const struct st_insn *x = &S.in[i];
		const uint8_t src[3] = { x->a, x->b, x->c };

		for (unsigned int s = 0; s < 3; s++) {
			const unsigned int r = src[s];
			const uint64_t bit = 1ull << r;

			if (r >= 64 || (wrote & bit))
				continue;
			if (!(seen & bit)) {
				seen |= bit;
				(*live)++;
				grp[4] = mix(mix(grp[4], r), rel0(S.stt[r], cur));
				w++;
				if (S.late & bit) {
					grp[5] = mix(mix(grp[5], r), rel0(S.rdy[r], cur));
					w++;
				}
			}
			if (s == 0 && (x->kind & ISA_EV5_K_BYPC)) {
				grp[4] = mix(grp[4], rel0(S.b0[r], cur));
				w++;
			}
			if (x->kind & ISA_EV5_K_IMUL) {
				grp[4] = mix(grp[4], rel0(S.rdy[r] + 2, cur));
				w++;
			}
		}
		if (x->dst < 64 && !(wrote & (1ull << x->dst))) {
			const uint64_t bit = 1ull << x->dst;

			wrote |= bit;
			(*dsts)++;
			if (!(seen & bit) && (S.late & bit)) {
				grp[5] = mix(mix(grp[5], 100 + x->dst), rel0(S.rdy[x->dst], cur));
				w++;
			}
		}
	}
	for (unsigned int g = 0; g < ST_GRP; g++)
		k = mix(k, grp[g]);
	*words = w;
	return k;
}

static struct st_ent *lookup(uint64_t sig)
{
	uint64_t h = mix(sig, 7);

	if (!S.tab) { /* (calloc failed: the figures say so) */
		S.tab_full++;
		return NULL;
	}
	for (unsigned int i = 0; i < 64; i++) {
		struct st_ent *e = &S.tab[(h + i) & (ST_TAB - 1)];

		if (e->sig == sig || !e->sig) {
			e->sig = sig;
			return e;
		}
	}
	S.tab_full++;
	return NULL;
}

static unsigned int len_bucket(unsigned int n)
{
	unsigned int b = 0;

	while (b < 7 && (2u << b) <= n)
		b++;
	return b; /* 1, 2-3, 4-7, 8-15, 16-31, 32-63, 64 */
}

static void pmu_block(struct st_pmu *p, bool hitpass)
{
	bool touched = false;

	while (p->thr <= S.cur) { /* passed outside any block (kernel time) */
		p->due = p->thr + EV5_IRQ_DELAY;
		p->thr += rng_period(p);
	}
	while (p->thr <= S.t_end) {
		touched = true;
		p->due = p->thr + EV5_IRQ_DELAY;
		p->thr += rng_period(p);
	}
	if (p->due && p->due <= S.t_end) {
		touched = true;
		p->due = 0;
	}
	if (touched) {
		p->blocks++;
		p->insns += S.n;
		if (hitpass)
			p->hit_insns += S.n;
	}
}

static void close_block(void)
{
	uint64_t sig = mix(S.in[0].pc, S.n), grp[ST_GRP], key;
	unsigned int words, live, dsts, pos = ST_K;
	struct st_ent *e;
	const bool pass = !(S.fail & ~((1u << F_SOFT) | (1u << F_IPAGE)));

	S.open = false;
	for (unsigned int i = 0; i < S.n; i++)
		sig = mix(sig, S.in[i].word);
	S.insns += S.n;
	S.blocks++;
	S.len_blocks[len_bucket(S.n)]++;
	S.len_insns[len_bucket(S.n)] += S.n;
	for (unsigned int f = 0; f < F_NR; f++)
		if (S.fail & (1u << f))
			S.failn[f] += S.n;
	key = entry_key(grp, &words, &live, &dsts);
	if (S.lat)
		key = mix(key, S.ext);
	e = lookup(sig);
	if (!e)
		return;
	for (unsigned int j = 0; j < e->nk; j++)
		if (e->key[j] == key)
			pos = j;
	for (unsigned int k = pos; k < ST_K; k++)
		S.hitk[k] += S.n;
	if (pass) {
		S.pass += S.n;
		for (unsigned int k = pos; k < ST_K; k++)
			S.passhit[k] += S.n;
	}
	for (unsigned int i = 0; i < 2; i++)
		pmu_block(&S.pmu[i], pass && pos < ST_K);
	if (!pass)
		return;
	if (pos < ST_K) {
		const uint64_t out = e->out[pos];
		uint64_t g[ST_GRP];

		if (out != S.out && S.mism++ < 5) {
			fprintf(stderr, "ev5 study: outcome mismatch, block at %#llx (%u insns):",
				(unsigned long long)S.in[0].pc, S.n);
			for (unsigned int i = 0; i < S.n; i++)
				fprintf(stderr, " %u/%u[k%x %u,%u,%u>%u L%u]", e->trel[pos][i],
					S.trel[i], S.in[i].kind, S.in[i].a, S.in[i].b, S.in[i].c,
					S.in[i].dst, S.mlat[i]);
			fprintf(stderr, "\n");
		}
		memcpy(g, e->grp[pos], sizeof(g));
		memcpy(S.trel, e->trel[pos], sizeof(S.trel)); /* (the memo keeps its first run's) */
		for (unsigned int j = pos; j > 0; j--) {
			memcpy(e->trel[j], e->trel[j - 1], sizeof(S.trel));
			e->key[j] = e->key[j - 1];
			e->out[j] = e->out[j - 1];
			memcpy(e->grp[j], e->grp[j - 1], sizeof(g));
		}
		e->key[0] = key;
		e->out[0] = out;
		memcpy(e->grp[0], g, sizeof(g));
		memcpy(e->trel[0], S.trel, sizeof(S.trel));
		S.h_blocks++;
		S.h_live += live;
		S.h_keyw += words;
		S.h_dst += dsts;
		S.h_loads += S.loads;
		S.h_stores += S.stores;
		S.h_cbr += S.cbr;
		S.h_mp += S.mp;
		return;
	}
	/* a key miss: which groups differ from the most recent key */
	if (!e->nk)
		S.missnew += S.n;
	for (unsigned int g = 0; e->nk && g < ST_GRP; g++)
		if (e->grp[0][g] != grp[g])
			S.grpdiff[g] += S.n;
	for (unsigned int j = ST_K - 1; j > 0; j--) {
		memcpy(e->trel[j], e->trel[j - 1], sizeof(S.trel));
		e->key[j] = e->key[j - 1];
		e->out[j] = e->out[j - 1];
		memcpy(e->grp[j], e->grp[j - 1], sizeof(grp));
	}
	e->key[0] = key;
	e->out[0] = S.out;
	memcpy(e->grp[0], grp, sizeof(grp));
	memcpy(e->trel[0], S.trel, sizeof(S.trel));
	if (e->nk < ST_K)
		e->nk++;
}

void ev5_study_pre(const struct mach_ev5 *m, const struct ev5_pd *p, uint64_t pc, uint64_t ea,
		   bool dtb_quiet)
{
	const uint64_t line = pc >> EV5_LINE_SHIFT;
	const bool fetch = m->redirect || (pc >> 4) != m->blk;

	if (!S.init)
		study_init();
	if (S.open && m->cur != S.last_t) { /* the model moved outside the retire */
		S.fail |= 1u << F_BROKEN;
		close_block();
	}
	if (!S.open)
		snapshot(m);
	/* a new I-cache block not in the I-cache (fetch_block(): IMISS), or in it but on another
	 * page than the last (fetch_block()'s ITB lookup: a memo would check the ITB's hint and
	 * fall back when that misses; ITBMISS events fail in ev5_study_post()) */
	if (fetch && (m->redirect || line != m->iline)) {
		if (m->ic_tag[line & (EV5_L1_LINES - 1)] != line)
			S.fail |= 1u << F_IFETCH;
		else if ((pc >> EV5_PAGE_SHIFT) != m->ipage)
			S.fail |= 1u << F_IPAGE;
	}
	if ((p->kind & (ISA_EV5_K_LOAD | ISA_EV5_K_STORE)) && !dtb_quiet)
		S.fail |= 1u << F_DTB;
	/* a load that may be the cycle after a store to its quadword (conservative) */
	if ((p->kind & ISA_EV5_K_LOAD) && m->last_store_t + 1 >= m->cur &&
	    (ea >> 3) == m->last_store_q)
		S.fail |= 1u << F_REPLAY;
	if (p->kind & ISA_EV5_K_MB)
		S.fail |= 1u << F_MB;
	/* soft: this instruction touches a register a missing load of the block writes */
	if (S.pend_late & (p->late | ((p->kind & ISA_EV5_K_BARRIER) ? ~0ull : 0)))
		S.fail |= 1u << F_DMISS;
	S.maf_room = false;
	for (unsigned int i = 0; i < EV5_MAF_N; i++)
		S.maf_room |= m->maf[i] <= m->cur;
}

void ev5_study_post(const struct mach_ev5 *m, const struct ev5_pd *p, uint64_t pc, uint64_t next_pc,
		    uint64_t t, unsigned int evb, unsigned int npiece, const uint8_t *cause,
		    const uint64_t *amt, bool mp)
{
	struct st_insn *x = &S.in[S.n++];

	x->pc = pc;
	x->word = p->word;
	x->kind = p->kind;
	x->a = p->a;
	x->b = p->b;
	x->c = p->c;
	x->dst = p->dst;
	if (evb & 3u) /* EVB_IMISS, EVB_ITBMISS */
		S.fail |= 1u << F_IFETCH;
	if (evb & 4u) { /* EVB_DMISS: a miss or a merge with a fill in flight */
		if (S.lat && S.maf_room) {
			S.ext = mix(mix(S.ext, S.n), m->rdy[p->dst] - t);
			S.mlat[S.n - 1] = (uint16_t)(m->rdy[p->dst] - t);
			S.fail |= 1u << F_SOFT;
		} else if (S.soft && S.maf_room) {
			S.pend_late |= p->dbit;
			S.fail |= 1u << F_SOFT;
		} else {
			S.fail |= 1u << F_DMISS;
		}
	}
	if (evb & 8u)
		S.fail |= 1u << F_DTB;
	S.out = mix(S.out, t - S.cur);
	S.trel[S.n - 1] = (uint16_t)(t - S.cur);
	if (!(evb & 4u))
		S.mlat[S.n - 1] = 0;
	for (unsigned int i = 0; i < npiece; i++) {
		S.out = mix(mix(S.out, cause[i]), amt[i]);
		if (cause[i] == MACH_STALL_WBFULL)
			S.fail |= 1u << F_WB;
	}
	S.loads += (p->kind & ISA_EV5_K_LOAD) != 0;
	S.stores += (p->kind & ISA_EV5_K_STORE) != 0;
	S.cbr += (p->kind & ISA_EV5_K_CBR) != 0;
	S.mp += mp;
	S.t_end = t;
	S.last_t = m->cur;
	if ((p->kind & (ISA_EV5_K_CTRL | ISA_EV5_K_PAL)) || next_pc != pc + 4 || S.n == ST_MAXN)
		close_block();
}

static double pct(uint64_t a, uint64_t b)
{
	return b ? 100.0 * (double)a / (double)b : 0.0;
}

static double per(uint64_t a, uint64_t b)
{
	return b ? (double)a / (double)b : 0.0;
}

void ev5_study_report(const struct mach_ev5 *m)
{
	(void)m;
	if (!S.init)
		return;
	if (S.open) {
		S.fail |= 1u << F_BROKEN;
		close_block();
	}
	fprintf(stderr, "ev5 study: %llu insns in %llu blocks (mean %.2f insns)\n",
		(unsigned long long)S.insns, (unsigned long long)S.blocks, per(S.insns, S.blocks));
	fprintf(stderr, "ev5 study: length   blocks%%  insns%%\n");
	for (unsigned int b = 0; b < 8; b++)
		if (S.len_blocks[b])
			fprintf(stderr, "ev5 study:  %4u+   %6.1f  %6.1f\n", 1u << b,
				pct(S.len_blocks[b], S.blocks), pct(S.len_insns[b], S.insns));
	fprintf(stderr, "ev5 study: conditions pass %.1f%% of insns; fail by cause (insns%%):",
		pct(S.pass, S.insns));
	for (unsigned int f = 0; f < F_NR; f++)
		fprintf(stderr, " %s %.1f", fail_name[f], pct(S.failn[f], S.insns));
	fprintf(stderr, "\nev5 study: key hit, K=1/2/4 (insns%%): %.1f %.1f %.1f\n",
		pct(S.hitk[0], S.insns), pct(S.hitk[1], S.insns), pct(S.hitk[3], S.insns));
	fprintf(stderr, "ev5 study: key hit and conditions pass, K=1/2/4: %.1f %.1f %.1f\n",
		pct(S.passhit[0], S.insns), pct(S.passhit[1], S.insns), pct(S.passhit[3], S.insns));
	fprintf(stderr, "ev5 study: outcome mismatches on a hit: %llu; memo table full: %llu\n",
		(unsigned long long)S.mism, (unsigned long long)S.tab_full);
	fprintf(stderr,
		"ev5 study: passing key misses (insns%%): first run %.1f; differing from the "
		"last key:",
		pct(S.missnew, S.insns));
	for (unsigned int g = 0; g < ST_GRP; g++)
		fprintf(stderr, " %s %.1f", grp_name[g], pct(S.grpdiff[g], S.insns));
	fprintf(stderr,
		"\nev5 study: per hit block: %.2f insns, %.2f live-ins, %.2f key words, %.2f dsts, "
		"%.2f loads, %.2f stores, %.2f cbr, %.3f mispredicts\n",
		per(S.passhit[3], S.h_blocks), per(S.h_live, S.h_blocks), per(S.h_keyw, S.h_blocks),
		per(S.h_dst, S.h_blocks), per(S.h_loads, S.h_blocks), per(S.h_stores, S.h_blocks),
		per(S.h_cbr, S.h_blocks), per(S.h_mp, S.h_blocks));
	for (unsigned int i = 0; i < 2; i++)
		fprintf(stderr,
			"ev5 study: CYCLES period %llu-%llu: a threshold or delivery inside %.2f%% "
			"of blocks, %.2f%% of insns (%.2f%% of insns in hit blocks)\n",
			(unsigned long long)S.pmu[i].lo, (unsigned long long)S.pmu[i].hi,
			pct(S.pmu[i].blocks, S.blocks), pct(S.pmu[i].insns, S.insns),
			pct(S.pmu[i].hit_insns, S.insns));
}
