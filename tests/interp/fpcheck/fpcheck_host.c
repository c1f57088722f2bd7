/* tests/interp/fpcheck/fpcheck_host.c - FP vector generator, and checker against qemu-alpha. */
/*
 * fpcheck-host gen N SEED     print N random and edge-case vectors (WORD FA FB FC FPCR, hex) for
 *                             every FP operate instruction and qualifier combination
 * fpcheck-host eval           read vectors on stdin, print what kmod/interp/fp_ops.c computes, in
 *                             the format of fpcheck-alpha (TRAP F3 F1 FPCR R3)
 * fpcheck-host bench VEC       time axp_fp_eval on the vectors of VEC, per operation
 * fpcheck-host compare VEC REF
 *                             evaluate VEC and compare with REF (fpcheck-alpha's output under
 *                             qemu-alpha); print mismatches and a summary; exit 1 on any mismatch
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "axp.h"
#include "fp.h"

struct vec {
	uint32_t word;
	uint64_t fa, fb, fc, fpcr;
};

struct outcome {
	int trap;
	uint64_t f3, f1, fpcr, r3;
};

/* ---- random numbers (splitmix64) ---- */

static uint64_t rng_state;

static uint64_t rnd(void)
{
	uint64_t z = (rng_state += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static unsigned int below(unsigned int n)
{
	return (unsigned int)(rnd() % n);
}

/* A random value of `bits` bits with a few runs of ones and zeros (edge-prone patterns). */
static uint64_t pattern(unsigned int bits)
{
	uint64_t v;

	switch (below(4)) {
	case 0:
		v = rnd();
		break;
	case 1: /* few bits set */
		v = (1ull << below(64)) | (below(2) ? 1ull << below(64) : 0);
		break;
	case 2: /* all ones except a few */
		v = ~((1ull << below(64)) | (1ull << below(64)));
		break;
	default: /* a run of ones */
		v = (~0ull >> below(64)) << below(8);
		break;
	}
	return bits >= 64 ? v : v & ((1ull << bits) - 1);
}

/* A binary64 or binary32 bit pattern with a biased choice of class and exponent. */
static uint64_t rand_float(unsigned int mant, unsigned int ebits)
{
	uint64_t emax = (1ull << ebits) - 1, bias = emax >> 1, e;
	uint64_t sign = (uint64_t)below(2) << (mant + ebits);
	uint64_t frac = pattern(mant);

	switch (below(16)) {
	case 0:
		return sign; /* zero */
	case 1:
		return sign | (frac ? frac : 1); /* denormal */
	case 2:
		return sign | (emax << mant); /* infinity */
	case 3: /* quiet NaN */
		return sign | (emax << mant) | (1ull << (mant - 1)) | pattern(mant - 1);
	case 4: /* signalling NaN */
		frac = pattern(mant - 1);
		return sign | (emax << mant) | (frac ? frac : 1);
	case 5: /* near overflow */
		e = emax - 1 - below(4);
		break;
	case 6: /* near underflow */
		e = 1 + below(ebits == 11 ? 60 : 30);
		break;
	case 7: /* smallest normal, largest denormal, ones */
		e = below(3);
		frac = below(2) ? (1ull << mant) - 1 : 0;
		if (e == 0 && frac == 0)
			frac = 1;
		break;
	case 8:
	case 9:
	case 10: /* around 1 */
		e = bias - 8 + below(17);
		break;
	default:
		e = 1 + rnd() % (emax - 1);
		break;
	}
	return sign | (e << mant) | frac;
}

static uint64_t rand_t(void)
{
	return below(20) == 0 ? rnd() : rand_float(52, 11);
}

static uint64_t rand_s(void)
{
	uint64_t r = axp_s_from_mem((uint32_t)rand_float(23, 8));

	switch (below(20)) {
	case 0:
		return r | pattern(29); /* low bits set */
	case 1:
		return rnd();
	case 2:
		return r ^ ((uint64_t)below(8) << 59); /* odd exponent bits 61:59 */
	default:
		return r;
	}
}

static uint64_t rand_int(void)
{
	static const uint64_t edge[] = {
		0,
		1,
		~0ull,
		0x7fffffffffffffffull,
		0x8000000000000000ull,
		0x7fffffffull,
		0x80000000ull,
		0xffffffff80000000ull,
		0xffffffff7fffffffull,
		0x100000000ull,
		(1ull << 53) + 1,
		(1ull << 24) + 1,
		(1ull << 54) + 2,
		(1ull << 25) + 2,
	};
	uint64_t v;

	if (below(8) == 0)
		return edge[below(sizeof(edge) / sizeof(edge[0]))];
	v = pattern(64) >> below(64);
	return below(2) ? -v : v;
}

/* Operands for CVTTQ: around 2^63/2^64, halves, tiny values, and the usual. */
static uint64_t rand_cvttq(void)
{
	uint64_t sign = (uint64_t)below(2) << 63;

	switch (below(6)) {
	case 0: /* 2^62 .. 2^66 */
		return sign | ((uint64_t)(1023 + 62 + below(5)) << 52) | pattern(52);
	case 1: /* k + 1/2 and neighbours */
	{
		unsigned int e = below(52);

		return sign | ((uint64_t)(1023 + e) << 52) | (pattern(52) | (1ull << (51 - e)));
	}
	case 2: /* below one */
		return sign | ((uint64_t)(1023 - 1 - below(70)) << 52) | pattern(52);
	default:
		return rand_t();
	}
}

/* A second operand related to the first: equal, negated, nearby, or ulps apart. */
static uint64_t related(uint64_t a, bool s_format)
{
	unsigned int shift = s_format ? 29 : 0;

	switch (below(6)) {
	case 0:
		return a;
	case 1:
		return a ^ (1ull << 63);
	case 2:
		return a + ((uint64_t)below(3) << shift);
	case 3:
		return (a - ((uint64_t)below(3) << shift)) ^ (1ull << 63);
	case 4: /* exponent a little away, few significant bits */
		return (a & (0xfffull << 52)) + ((uint64_t)(below(130) - 65) << 52) +
		       ((pattern(52) >> shift) << shift);
	default:
		return (a & (0xfffull << 52)) - ((uint64_t)below(60) << 52);
	}
}

static uint64_t rand_fpcr(void)
{
	uint64_t f = (uint64_t)below(4) << AXP_FPCR_DYN_SHIFT;
	const uint64_t disables[] = { AXP_FPCR_INVD, AXP_FPCR_DZED, AXP_FPCR_OVFD, AXP_FPCR_UNFD,
				      AXP_FPCR_INED };
	unsigned int i;

	if (below(4) == 0)
		return AXP_FPCR_DEFAULT;
	for (i = 0; i < 5; i++)
		if (below(3))
			f |= disables[i];
	if (below(4) == 0)
		f |= AXP_FPCR_DNZ;
	if (below(3) == 0)
		f |= AXP_FPCR_UNDZ;
	if (below(2))
		f |= AXP_FPCR_DNOD;
	if (below(3) == 0)
		f |= rnd() & (0x3full << 52); /* status bits already set */
	if (below(8) == 0)
		f |= rnd() & 0x80007fff00000000ull; /* SUM and reserved bits */
	return f;
}

/* Operand pairs whose product or quotient lands next to the smallest normal (the test may use
 * host floating point; the code under test does not). */
static void near_min_pair(bool s_format, bool divide, uint64_t *a, uint64_t *b)
{
	double k = (double)((int)below(9) - 4), x, t, y;
	uint64_t xb;
	float xf, tf, yf;
	uint32_t u;

	xb = 0x3ff0000000000000ull | pattern(52);
	memcpy(&x, &xb, 8);
	if (below(2))
		x = -x;
	if (!s_format) {
		t = 0x1p-1022 * (1.0 + k * 0x1p-53);
		y = divide ? x / t : t / x;
		memcpy(a, &x, 8);
		memcpy(b, &y, 8);
		return;
	}
	xf = (float)x;
	tf = 0x1p-126f * (1.0f + (float)k * 0x1p-24f);
	yf = divide ? xf / tf : tf / xf;
	memcpy(&u, &xf, 4);
	*a = axp_s_from_mem(u);
	memcpy(&u, &yf, 4);
	*b = axp_s_from_mem(u);
}

/* ---- instruction table ---- */

enum gk {
	G_S2, /* S binary arithmetic */
	G_T2, /* T binary arithmetic */
	G_CMP,
	G_S1, /* SQRTS */
	G_T1, /* SQRTT */
	G_CVTTS,
	G_CVTST,
	G_CVTTQ,
	G_CVTQ, /* CVTQS, CVTQT */
	G_CVTQL,
	G_CVTLQ,
	G_CPY,
	G_FCMOV,
	G_MTFPCR,
	G_MFFPCR,
	G_ITOF,
	G_FTOI,
};

struct opgen {
	uint8_t opc;
	uint16_t fn; /* fn11 (or fn7 for FTOI) without qualifiers */
	uint8_t kind;
	bool quals; /* take random rounding/U/I/S qualifiers */
};

static const struct opgen ops[] = {
	{ 0x16, 0x000, G_S2, true },	  { 0x16, 0x001, G_S2, true },
	{ 0x16, 0x002, G_S2, true },	  { 0x16, 0x003, G_S2, true },
	{ 0x16, 0x020, G_T2, true },	  { 0x16, 0x021, G_T2, true },
	{ 0x16, 0x022, G_T2, true },	  { 0x16, 0x023, G_T2, true },
	{ 0x16, 0x024, G_CMP, true },	  { 0x16, 0x025, G_CMP, true },
	{ 0x16, 0x026, G_CMP, true },	  { 0x16, 0x027, G_CMP, true },
	{ 0x16, 0x02c, G_CVTTS, true },	  { 0x16, 0x2ac, G_CVTST, false },
	{ 0x16, 0x6ac, G_CVTST, false },  { 0x16, 0x02f, G_CVTTQ, true },
	{ 0x16, 0x03c, G_CVTQ, true },	  { 0x16, 0x03e, G_CVTQ, true },
	{ 0x14, 0x00b, G_S1, true },	  { 0x14, 0x02b, G_T1, true },
	{ 0x17, 0x010, G_CVTLQ, false },  { 0x17, 0x020, G_CPY, false },
	{ 0x17, 0x021, G_CPY, false },	  { 0x17, 0x022, G_CPY, false },
	{ 0x17, 0x024, G_MTFPCR, false }, { 0x17, 0x025, G_MFFPCR, false },
	{ 0x17, 0x02a, G_FCMOV, false },  { 0x17, 0x02b, G_FCMOV, false },
	{ 0x17, 0x02c, G_FCMOV, false },  { 0x17, 0x02d, G_FCMOV, false },
	{ 0x17, 0x02e, G_FCMOV, false },  { 0x17, 0x02f, G_FCMOV, false },
	{ 0x17, 0x030, G_CVTQL, false },  { 0x17, 0x130, G_CVTQL, false },
	{ 0x17, 0x530, G_CVTQL, false },  { 0x14, 0x004, G_ITOF, false },
	{ 0x14, 0x024, G_ITOF, false },	  { 0x1c, 0x070, G_FTOI, false },
	{ 0x1c, 0x078, G_FTOI, false },
};

#define NOPS (sizeof(ops) / sizeof(ops[0]))

static uint32_t encode(const struct opgen *g, uint16_t fn, unsigned int fa, unsigned int fb,
		       unsigned int fc)
{
	if (g->kind == G_FTOI)
		return (0x1cu << 26) | (1u << 21) | (31u << 16) | ((uint32_t)fn << 5) | fc;
	if (g->kind == G_ITOF)
		return (0x14u << 26) | (1u << 21) | (31u << 16) | ((uint32_t)fn << 5) | fc;
	return ((uint32_t)g->opc << 26) | (fa << 21) | (fb << 16) | ((uint32_t)(fn & 0x7ff) << 5) |
	       fc;
}

static void gen_one(const struct opgen *g, struct vec *v)
{
	uint16_t fn = g->fn;
	unsigned int fa = 1, fb = 2;

	if (g->quals)
		fn |= (uint16_t)(rnd() & 0x7c0);
	v->fa = rand_t();
	v->fb = rand_t();
	v->fc = rand_t();
	v->fpcr = rand_fpcr();
	switch (g->kind) {
	case G_S2:
		v->fa = rand_s();
		v->fb = below(3) ? rand_s() : related(v->fa, true);
		if ((g->fn & 2) && below(6) == 0)
			near_min_pair(true, g->fn & 1, &v->fa, &v->fb);
		break;
	case G_T2:
		if ((g->fn & 2) && below(6) == 0) {
			near_min_pair(false, g->fn & 1, &v->fa, &v->fb);
			break;
		}
		/* fall through */
	case G_CMP:
		if (!below(3))
			v->fb = related(v->fa, false);
		break;
	case G_S1:
	case G_CVTST:
		fa = 31;
		v->fb = rand_s();
		break;
	case G_CVTTS:
		/* sometimes just around the binary32 smallest normal (0x3810000000000000) */
		if (below(4) == 0)
			v->fb = ((uint64_t)below(2) << 63) |
				(0x3810000000000000ull + (uint64_t)(int64_t)(int32_t)rnd() / 4);
		/* fall through */
	case G_T1:
		fa = 31;
		break;
	case G_CVTTQ:
		fa = 31;
		v->fb = rand_cvttq();
		break;
	case G_CVTQ:
	case G_CVTQL:
		fa = 31;
		v->fb = rand_int();
		break;
	case G_CVTLQ:
		fa = 31;
		v->fb = rnd();
		break;
	case G_MTFPCR:
		fb = 31;
		v->fa = below(2) ? rand_fpcr() : rnd();
		break;
	case G_MFFPCR:
		fb = 31;
		break;
	case G_ITOF:
		v->fa = below(2) ? rnd() : (uint64_t)(int64_t)(int32_t)rand_float(23, 8);
		break;
	default:
		break;
	}
	/* Sometimes read F31 (as zero) instead of a register. */
	if (fa == 1 && g->kind != G_MTFPCR && g->kind != G_MFFPCR && g->kind != G_ITOF &&
	    g->kind != G_FTOI && below(40) == 0)
		fa = 31;
	if (fb == 2 && g->kind != G_MTFPCR && g->kind != G_MFFPCR && below(40) == 0)
		fb = 31;
	/* ... and sometimes write F31 (or R31): nothing is written, FPCR and traps still happen. */
	v->word = encode(g, fn, fa, fb, below(40) == 0 ? 31 : 3);
}

/* ---- evaluation with the project's code ---- */

static void eval(const struct vec *v, struct outcome *o)
{
	struct axp_ctx ctx;
	struct axp_insn d;
	struct axp_fp_out out;

	memset(&ctx, 0, sizeof(ctx));
	ctx.f[1] = v->fa;
	ctx.f[2] = v->fb;
	ctx.f[3] = v->fc;
	ctx.r[1] = v->fa;
	ctx.fpcr = v->fpcr & AXP_FPCR_IMPL; /* the stub's MT_FPCR */
	axp_decode(v->word, &d);
	memset(o, 0, sizeof(*o));
	o->f1 = v->fa;
	o->f3 = v->fc;
	if (d.op == AXP_OP_FTOIT || d.op == AXP_OP_FTOIS) {
		o->fpcr = ctx.fpcr;
		if (d.rc != 3)
			return;
		o->r3 = d.op == AXP_OP_FTOIT ?
				ctx.f[d.ra] :
				(uint64_t)(int64_t)(int32_t)axp_s_to_mem(ctx.f[d.ra]);
		return;
	}
	if (axp_fp_eval(&ctx, &d, &out)) {
		o->trap = 9; /* not handled: always a mismatch */
		return;
	}
	o->trap = out.trap;
	o->fpcr = out.fpcr;
	if (out.dest == 1)
		o->f1 = out.value;
	else if (out.dest == 3)
		o->f3 = out.value;
}

static int read_vec(FILE *f, struct vec *v)
{
	char line[256];
	unsigned long w;
	unsigned long long a, b, c, p;

	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%lx %llx %llx %llx %llx", &w, &a, &b, &c, &p) == 5) {
			*v = (struct vec){ (uint32_t)w, a, b, c, p };
			return 1;
		}
	}
	return 0;
}

static int read_outcome(FILE *f, struct outcome *o)
{
	char line[256];
	unsigned long long a, b, c, e;
	int t;

	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%d %llx %llx %llx %llx", &t, &a, &b, &c, &e) == 5) {
			*o = (struct outcome){ t, a, b, c, e };
			return 1;
		}
	}
	return 0;
}

static void print_outcome(FILE *f, const struct outcome *o)
{
	fprintf(f, "%d %016" PRIx64 " %016" PRIx64 " %016" PRIx64 " %016" PRIx64, o->trap, o->f3,
		o->f1, o->fpcr, o->r3);
}

static const char *op_name(uint32_t word, char *buf, size_t len)
{
	struct axp_insn d;

	axp_decode(word, &d);
	snprintf(buf, len, "%s/%03x", axp_op_info[d.op].name, d.fn11);
	return buf;
}

static int cmd_compare(const char *vpath, const char *rpath)
{
	FILE *vf = fopen(vpath, "r"), *rf = fopen(rpath, "r");
	unsigned long n = 0, bad = 0, traps = 0;
	unsigned long per_op[AXP_OP_NR] = { 0 }, per_op_bad[AXP_OP_NR] = { 0 };
	unsigned long newbit[6] = { 0 }, denorm_out = 0;
	static const char *const bitname[6] = { "INV", "DZE", "OVF", "UNF", "INE", "IOV" };
	struct vec v;
	struct outcome ref, got;
	unsigned int i;

	if (!vf || !rf) {
		fprintf(stderr, "fpcheck-host: cannot open %s or %s\n", vpath, rpath);
		return 2;
	}
	while (read_vec(vf, &v)) {
		struct axp_insn d;

		if (!read_outcome(rf, &ref)) {
			fprintf(stderr,
				"fpcheck-host: %s ends after %lu outcomes (qemu-alpha failed?)\n",
				rpath, n);
			return 1;
		}
		axp_decode(v.word, &d);
		eval(&v, &got);
		n++;
		per_op[d.op]++;
		traps += ref.trap != 0;
		for (i = 0; i < 6; i++)
			newbit[i] += ((ref.fpcr & ~v.fpcr) >> (AXP_FPF_FPCR_SHIFT + i)) & 1;
		denorm_out += (d.op <= AXP_OP_CVTQT && d.op >= AXP_OP_ADDS && ref.f3 >> 52 == 0 &&
			       (ref.f3 << 12) != 0) ||
			      (ref.f3 >> 52 == 0x800 && (ref.f3 << 12) != 0);
		if (ref.trap != got.trap || ref.f3 != got.f3 || ref.f1 != got.f1 ||
		    ref.fpcr != got.fpcr || ref.r3 != got.r3) {
			char name[48];

			bad++;
			per_op_bad[d.op]++;
			if (bad <= 40) {
				printf("MISMATCH %-16s %08x fa=%016" PRIx64 " fb=%016" PRIx64
				       " fc=%016" PRIx64 " fpcr=%016" PRIx64 "\n  qemu ",
				       op_name(v.word, name, sizeof(name)), v.word, v.fa, v.fb,
				       v.fc, v.fpcr);
				print_outcome(stdout, &ref);
				printf("\n  ours ");
				print_outcome(stdout, &got);
				printf("\n");
			}
		}
	}
	for (i = 0; i < AXP_OP_NR; i++)
		if (per_op_bad[i])
			printf("  %-10s %lu of %lu mismatched\n", axp_op_info[i].name,
			       per_op_bad[i], per_op[i]);
	printf("fpcheck: qemu-alpha set FPCR status bits:");
	for (i = 0; i < 6; i++)
		printf(" %s %lu", bitname[i], newbit[i]);
	printf("; denormal Fc results %lu\n", denorm_out);
	printf("fpcheck: %lu vectors (%lu trapped under qemu-alpha), %lu mismatches\n", n, traps,
	       bad);
	return bad ? 1 : 0;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* ns per axp_fp_eval call for each operation, over up to BENCH_PER_OP of its vectors. */
#define BENCH_PER_OP 2048
#define BENCH_EVALS 200000

static int cmd_bench(const char *vpath)
{
	static struct vec sel[AXP_OP_NR][BENCH_PER_OP];
	static struct axp_insn dec[AXP_OP_NR][BENCH_PER_OP];
	static unsigned int cnt[AXP_OP_NR];
	FILE *vf = fopen(vpath, "r");
	struct axp_ctx ctx;
	struct vec v;
	unsigned int op;
	double total_ns = 0;
	unsigned long total = 0;
	volatile uint64_t sink = 0;

	if (!vf) {
		fprintf(stderr, "fpcheck-host: cannot open %s\n", vpath);
		return 2;
	}
	while (read_vec(vf, &v)) {
		struct axp_insn d;

		axp_decode(v.word, &d);
		if (cnt[d.op] < BENCH_PER_OP && axp_fp_is_handled(d.op)) {
			sel[d.op][cnt[d.op]] = v;
			dec[d.op][cnt[d.op]++] = d;
		}
	}
	fclose(vf);
	memset(&ctx, 0, sizeof(ctx));
	printf("fpcheck: axp_fp_eval, ns per instruction (random operands and qualifiers):\n");
	for (op = 0; op < AXP_OP_NR; op++) {
		unsigned long k, evals = 0;
		double t0, t1;

		if (!cnt[op])
			continue;
		t0 = now();
		for (k = 0; k < BENCH_EVALS; k++) {
			const struct vec *p = &sel[op][k % cnt[op]];
			struct axp_fp_out out;

			ctx.f[1] = p->fa;
			ctx.f[2] = p->fb;
			ctx.f[3] = p->fc;
			ctx.fpcr = p->fpcr & AXP_FPCR_IMPL;
			if (axp_fp_eval(&ctx, &dec[op][k % cnt[op]], &out) == 0)
				sink += out.value;
			evals++;
		}
		t1 = now();
		total_ns += (t1 - t0) * 1e9;
		total += evals;
		printf("  %-10s %6.1f\n", axp_op_info[op].name, (t1 - t0) * 1e9 / (double)evals);
	}
	printf("fpcheck: axp_fp_eval average %.1f ns per instruction\n",
	       total ? total_ns / (double)total : 0.0);
	return 0;
}

int main(int argc, char **argv)
{
	struct vec v;
	struct outcome o;

	if (argc == 4 && strcmp(argv[1], "gen") == 0) {
		unsigned long n = strtoul(argv[2], NULL, 0), i;

		rng_state = strtoull(argv[3], NULL, 0);
		for (i = 0; i < n; i++) {
			gen_one(&ops[i < NOPS ? i : below(NOPS)], &v);
			printf("%08x %016" PRIx64 " %016" PRIx64 " %016" PRIx64 " %016" PRIx64 "\n",
			       v.word, v.fa, v.fb, v.fc, v.fpcr);
		}
		return 0;
	}
	if (argc == 2 && strcmp(argv[1], "eval") == 0) {
		while (read_vec(stdin, &v)) {
			eval(&v, &o);
			print_outcome(stdout, &o);
			printf("\n");
		}
		return 0;
	}
	if (argc == 3 && strcmp(argv[1], "bench") == 0)
		return cmd_bench(argv[2]);
	if (argc == 4 && strcmp(argv[1], "compare") == 0)
		return cmd_compare(argv[2], argv[3]);
	fprintf(stderr,
		"usage: fpcheck-host gen N SEED | eval | bench VECTORS | compare VECTORS REFERENCE\n");
	return 2;
}
