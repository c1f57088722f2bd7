/* machine/mach_ev5_bench.c - EV5 model benches: DCPI Figure 7 copy loop, retire speed. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "mach_ev5_bench.h"

/* Instruction encodings (Alpha Architecture Handbook ch. 3.3 formats). */
static uint32_t enc_mem(unsigned int op, unsigned int ra, unsigned int rb, int disp)
{
	return (op << 26) | (ra << 21) | (rb << 16) | ((uint32_t)disp & 0xffff);
}

static uint32_t enc_opr(unsigned int op, unsigned int fn, unsigned int ra, unsigned int rb,
			unsigned int rc)
{
	return (op << 26) | (ra << 21) | (rb << 16) | (fn << 5) | rc;
}

static uint32_t enc_lit(unsigned int op, unsigned int fn, unsigned int ra, unsigned int lit,
			unsigned int rc)
{
	return (op << 26) | (ra << 21) | (lit << 13) | (1u << 12) | (fn << 5) | rc;
}

static uint32_t enc_bra(unsigned int op, unsigned int ra, int disp)
{
	return (op << 26) | (ra << 21) | ((uint32_t)disp & 0x1fffff);
}

/* The copy loop of DCPI SOSP'97 Figures 2 and 7 (t0-t2 = r1-r3, t4-t6 = r5-r7, a0 = r16). */
#define COPY_BASE 0x9810u
#define COPY_N 13

static void copy_code(uint32_t *w)
{
	w[0] = enc_mem(0x29, 5, 2, 0); /* ldq    t4, 0(t1) */
	w[1] = enc_lit(0x10, 0x20, 1, 4, 1); /* addq   t0, 0x4, t0 */
	w[2] = enc_mem(0x29, 6, 2, 8); /* ldq    t5, 8(t1) */
	w[3] = enc_mem(0x29, 7, 2, 16); /* ldq    t6, 16(t1) */
	w[4] = enc_mem(0x29, 16, 2, 24); /* ldq    a0, 24(t1) */
	w[5] = enc_mem(0x08, 2, 2, 32); /* lda    t1, 32(t1) */
	w[6] = enc_mem(0x2d, 5, 3, 0); /* stq    t4, 0(t2) */
	w[7] = enc_opr(0x10, 0x1d, 1, 0, 5); /* cmpult t0, v0, t4 */
	w[8] = enc_mem(0x2d, 6, 3, 8); /* stq    t5, 8(t2) */
	w[9] = enc_mem(0x2d, 7, 3, 16); /* stq    t6, 16(t2) */
	w[10] = enc_mem(0x2d, 16, 3, 24); /* stq    a0, 24(t2) */
	w[11] = enc_mem(0x08, 3, 3, 32); /* lda    t2, 32(t2) */
	w[12] = enc_bra(0x3d, 5, -13); /* bne    t4, 0x9810 */
}

static const char *const copy_text[COPY_N] = {
	"ldq t4, 0(t1)",    "addq t0, 0x4, t0", "ldq t5, 8(t1)",  "ldq t6, 16(t1)",
	"ldq a0, 24(t1)",   "lda t1, 32(t1)",	"stq t4, 0(t2)",  "cmpult t0, v0, t4",
	"stq t5, 8(t2)",    "stq t6, 16(t2)",	"stq a0, 24(t2)", "lda t2, 32(t2)",
	"bne t4, 0x009810",
};

/* DCPI SOSP'97 Figure 7: samples S_i and static M_i, and the true frequency 1575.1. */
static const unsigned int paper_s[COPY_N] = { 3126, 0,	  1636,	  390,	1482, 0,   27766,
					      0,    1493, 174727, 1548, 0,    1586 };
static const unsigned int paper_m[COPY_N] = { 1, 0, 1, 0, 1, 0, 1, 0, 1, 1, 1, 0, 1 };
#define PAPER_FREQ 1575.1

static void set_event(struct axp_event *ev, const struct axp_insn *d, uint64_t pc, uint64_t npc,
		      uint64_t ea, bool taken)
{
	uint32_t f = axp_op_info[d->op].flags;

	memset(ev, 0, sizeof(*ev));
	ev->pc = pc;
	ev->next_pc = npc;
	ev->word = d->word;
	ev->op = d->op;
	ev->dest = AXP_NO_DEST;
	ev->size = (uint8_t)axp_mem_size(f);
	ev->ea = ea;
	ev->is_load = (f & AXP_F_LD) != 0;
	ev->is_store = (f & AXP_F_ST) != 0;
	ev->taken = taken;
}

/* Replay `passes` passes of the copy loop over `bytes`; the last pass is measured. */
static void copy_run(struct mach_ev5 *m, uint64_t bytes, unsigned int passes, uint64_t *cyc,
		     uint64_t *insns)
{
	struct axp_insn d[COPY_N];
	uint32_t w[COPY_N];
	uint64_t src = 0x10000000, dst = src + bytes + 0x5000, iters = bytes / 32;
	static const uint8_t off[COPY_N] = { 0, 0, 8, 16, 24, 0, 0, 0, 8, 16, 24, 0, 0 };
	struct axp_event ev;

	copy_code(w);
	for (unsigned int k = 0; k < COPY_N; k++)
		axp_decode(w[k], &d[k]);
	for (unsigned int p = 0; p < passes; p++) {
		uint64_t c0 = mach_ev5_cycles(m), n = 0;

		for (uint64_t it = 0; it < iters; it++) {
			for (unsigned int k = 0; k < COPY_N; k++) {
				uint64_t pc = COPY_BASE + 4 * k, ea = 0, npc = pc + 4;
				bool taken = false;

				if (k == 0 || (k >= 2 && k <= 4))
					ea = src + it * 32 + off[k];
				else if (k == 6 || (k >= 8 && k <= 10))
					ea = dst + it * 32 + off[k];
				if (k == COPY_N - 1 && it + 1 < iters) {
					taken = true;
					npc = COPY_BASE;
				}
				set_event(&ev, &d[k], pc, npc, ea, taken);
				mach_ev5_retire(m, &d[k], &ev);
				n++;
			}
		}
		*cyc = mach_ev5_cycles(m) - c0;
		*insns = n;
	}
}

int mach_ev5_bench_copyloop(const struct mach_ev5_params *p, uint64_t bytes,
			    struct mach_ev5_copyloop *out)
{
	struct mach_ev5_params q = *p;
	struct mach_ev5 *m;
	uint64_t cyc, n;
	int err;

	memset(out, 0, sizeof(*out));
	q.truth = true;
	err = mach_ev5_new_params(&m, &q);
	if (err)
		return err;
	/* pass 1 warms the TLBs and predictors; the truth is taken over both passes' last */
	copy_run(m, bytes, 1, &cyc, &n);
	{
		struct mach_truth_pc before[COPY_N];

		for (unsigned int k = 0; k < COPY_N; k++)
			if (!mach_ev5_truth_get(m, COPY_BASE + 4 * k, &before[k]))
				memset(&before[k], 0, sizeof(before[k]));
		copy_run(m, bytes, 1, &cyc, &n);
		for (unsigned int k = 0; k < COPY_N; k++) {
			struct mach_truth_pc now;
			uint64_t ex;

			if (!mach_ev5_truth_get(m, COPY_BASE + 4 * k, &now))
				continue;
			ex = now.exec - before[k].exec;
			if (!ex)
				continue;
			out->head[k] = (double)(now.head - before[k].head) / (double)ex;
			for (unsigned int c = 0; c < MACH_STALL_NR; c++)
				out->stall[k][c] =
					(double)(now.stall[c] - before[k].stall[c]) / (double)ex;
		}
	}
	out->iters = bytes / 32;
	out->cycles_per_iter = (double)cyc / (double)out->iters;
	out->cpi = (double)cyc / (double)n;
	mach_ev5_free(m);
	return 0;
}

void mach_ev5_bench_copyloop_print(FILE *f, const struct mach_ev5_copyloop *c, uint64_t bytes)
{
	double paper_total = 0;

	for (unsigned int k = 0; k < COPY_N; k++)
		paper_total += paper_s[k] / PAPER_FREQ;
	fprintf(f, "DCPI Figure 7 copy loop, two arrays of %llu KB each (model vs paper)\n",
		(unsigned long long)(bytes >> 10));
	fprintf(f, "%-6s %-20s %8s %8s %9s %9s  %s\n", "addr", "instruction", "paperMi", "paperC",
		"modelC", "static", "model dynamic stall cycles/exec");
	for (unsigned int k = 0; k < COPY_N; k++) {
		fprintf(f, "%06x %-20s %8u %8.2f %9.2f %9.2f ", COPY_BASE + 4 * k, copy_text[k],
			paper_m[k], paper_s[k] / PAPER_FREQ, c->head[k],
			c->stall[k][MACH_STALL_STATIC]);
		for (unsigned int s = 1; s < MACH_STALL_NR; s++)
			if (c->stall[k][s] >= 0.005)
				fprintf(f, " %s=%.2f", mach_stall_name[s], c->stall[k][s]);
		fprintf(f, "\n");
	}
	fprintf(f, "cycles/iteration: model %.1f, paper %.1f (S_i / true frequency)\n",
		c->cycles_per_iter, paper_total);
	fprintf(f, "CPI: model %.2f, paper %.2f\n", c->cpi, paper_total / COPY_N);
}

/* A mixed integer loop (16 instructions, loads hitting, one store, two branches). */
#define MIX_BASE 0x120000000ull
#define MIX_N 16

static void mix_code(uint32_t *w)
{
	w[0] = enc_mem(0x29, 1, 16, 0); /* ldq    t0, 0(a0) */
	w[1] = enc_lit(0x10, 0x20, 2, 1, 2); /* addq   t1, 1, t1 */
	w[2] = enc_opr(0x10, 0x1d, 2, 17, 3); /* cmpult t1, a1, t2 */
	w[3] = enc_lit(0x12, 0x39, 1, 3, 4); /* sll    t0, 3, t3 */
	w[4] = enc_mem(0x28, 5, 16, 8); /* ldl    t4, 8(a0) */
	w[5] = enc_opr(0x11, 0x00, 4, 5, 6); /* and    t3, t4, t5 */
	w[6] = enc_opr(0x11, 0x20, 6, 1, 7); /* bis    t5, t0, t6 */
	w[7] = enc_mem(0x2d, 7, 18, 0); /* stq    t6, 0(a2) */
	w[8] = enc_bra(0x39, 6, 2); /* beq    t5, +2 (forward) */
	w[9] = enc_opr(0x10, 0x29, 7, 1, 8); /* subq   t6, t0, t7 */
	w[10] = enc_opr(0x11, 0x24, 6, 8, 9); /* cmoveq t5, t7, t8 */
	w[11] = enc_opr(0x10, 0x00, 9, 2, 10); /* addl   t8, t1, t9 */
	w[12] = enc_lit(0x12, 0x34, 10, 2, 11); /* srl    t9, 2, t10 */
	w[13] = enc_mem(0x08, 16, 16, 16); /* lda    a0, 16(a0) */
	w[14] = enc_mem(0x08, 18, 18, 8); /* lda    a2, 8(a2) */
	w[15] = enc_bra(0x3d, 3, -16); /* bne    t2, loop */
}

/* Build a stream of `n` retire events of the mixed loop (walking 4 KB arrays). */
static int mix_stream(size_t n, struct axp_insn **dout, struct axp_event **eout)
{
	struct axp_insn *d = malloc(n * sizeof(*d)), code[MIX_N];
	struct axp_event *e = malloc(n * sizeof(*e));
	uint32_t w[MIX_N];
	size_t i = 0;
	uint64_t it = 0;

	if (!d || !e) {
		free(d);
		free(e);
		return -ENOMEM;
	}
	mix_code(w);
	for (unsigned int k = 0; k < MIX_N; k++)
		axp_decode(w[k], &code[k]);
	while (i < n) {
		uint64_t a0 = 0x200000000ull + (it * 16) % 4096,
			 a2 = 0x200100000ull + (it * 8) % 4096;
		bool skip = (it % 3) == 0; /* beq taken one time in three */

		for (unsigned int k = 0; k < MIX_N && i < n; k++) {
			uint64_t pc = MIX_BASE + 4 * k, npc = pc + 4, ea = 0;
			bool taken = false;

			if (skip && (k == 9 || k == 10))
				continue;
			if (k == 0)
				ea = a0;
			else if (k == 4)
				ea = a0 + 8;
			else if (k == 7)
				ea = a2;
			if (k == 8 && skip) {
				taken = true;
				npc = pc + 12;
			}
			if (k == MIX_N - 1) {
				taken = true;
				npc = MIX_BASE;
			}
			d[i] = code[k];
			set_event(&e[i], &code[k], pc, npc, ea, taken);
			i++;
		}
		it++;
	}
	*dout = d;
	*eout = e;
	return 0;
}

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

int mach_ev5_bench_speed(FILE *f)
{
	const size_t n = 1u << 12; /* small enough to stay in the host's L1/L2, as in the machine */
	const int loops = 256;
	struct axp_insn *d;
	struct axp_event *e;
	int err;

	err = mix_stream(n, &d, &e);
	if (err)
		return err;
	for (int truth = 0; truth <= 1; truth++) {
		struct mach_ev5_params p;
		struct mach_ev5 *m;
		double best = 1e30;

		mach_ev5_params_default(&p);
		p.truth = truth;
		err = mach_ev5_new_params(&m, &p);
		if (err)
			goto out_free;
		for (int rep = 0; rep < 5; rep++) {
			double t0 = now_ns(), dt;

			for (int l = 0; l < loops; l++)
				for (size_t i = 0; i < n; i++)
					mach_ev5_retire(m, &d[i], &e[i]);
			dt = (now_ns() - t0) / (double)n / loops;
			if (dt < best)
				best = dt;
		}
		fprintf(f,
			"ev5 retire, mixed integer loop, truth %s: %.1f ns/insn, %.1f M insns/s (CPI %.2f)\n",
			truth ? "on " : "off", best, 1e3 / best,
			(double)mach_ev5_cycles(m) / (double)m->insns);
		mach_ev5_free(m);
	}
	for (int truth = 0; truth <= 1; truth++) {
		struct mach_ev5_params p;
		struct mach_ev5 *m;
		uint64_t cyc, cnt;
		double t0, dt;

		mach_ev5_params_default(&p);
		p.truth = truth;
		err = mach_ev5_new_params(&m, &p);
		if (err)
			goto out_free;
		t0 = now_ns();
		copy_run(m, 4u << 20, 1, &cyc, &cnt);
		dt = (now_ns() - t0) / (double)cnt;
		fprintf(f,
			"ev5 retire, copy loop (4 MB, event built per insn), truth %s: %.1f ns/insn, %.1f M insns/s\n",
			truth ? "on " : "off", dt, 1e3 / dt);
		mach_ev5_free(m);
	}
out_free:
	free(d);
	free(e);
	return err;
}
