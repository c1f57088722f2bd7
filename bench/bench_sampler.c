/* bench/bench_sampler.c - sampler cost: ns per sample (hash hit, miss), ns per interpreted insn. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <errno.h>

#include "vs_sampler.h"

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static struct vs_cpu *cpu_new(const struct vs_config *cfg, void **mem)
{
	struct vs_platform plat = { .cpu = 0, .amask = 0x303, .implver = 1 };
	size_t size = vs_cpu_size(cfg);
	struct vs_cpu *cpu;

	*mem = aligned_alloc(64, (size + 63) & ~(size_t)63);
	if (!size || !*mem || vs_cpu_init(*mem, size, cfg, &plat, &cpu)) {
		fprintf(stderr, "bench_sampler: cannot set up a CPU\n");
		exit(1);
	}
	return cpu;
}

/* FNV-1a over every record byte drained (--count prints it: same records, same sum). */
static uint64_t rec_sum = 0xcbf29ce484222325ULL;

/* The consumer's side, untimed: hand the full buffers over and copy them out. */
static uint64_t drain(struct vs_cpu *cpu)
{
	static uint8_t out[1 << 16];
	uint64_t bytes = 0;
	size_t n, i;

	while (vs_cpu_swap(cpu))
		while ((n = vs_cpu_drain(cpu, out, sizeof(out), NULL))) {
			bytes += n;
			for (i = 0; i < n; i++)
				rec_sum = (rec_sum ^ out[i]) * 0x100000001b3ULL;
		}
	return bytes;
}

/*
 * ns per vs_sample() over n samples whose keys come from key(i). Timed in chunks smaller than one
 * buffer's worth of records so that the drain (the daemon's work) stays outside the timing.
 */
static double per_sample(struct vs_cpu *cpu, uint64_t n, uint64_t (*key)(uint64_t), bool user)
{
	const uint64_t chunk = 2000; /* < 65536 / 24 records: no drops within a chunk */
	struct vs_decision dec;
	double t = 0, t0;
	uint64_t i = 0, j, sink = 0;

	while (i < n) {
		t0 = now();
		for (j = 0; j < chunk; j++, i++) {
			vs_sample(cpu, 100 + (uint32_t)(i & 1), key(i), VS_EV_CYCLES, user, &dec);
			sink += dec.period;
		}
		t += now() - t0;
		drain(cpu);
	}
	if (cpu->st.drops[VS_DROP_SAMPLE_BUF] || !sink) {
		fprintf(stderr, "bench_sampler: samples were dropped\n");
		exit(1);
	}
	return t * 1e9 / (double)i;
}

static uint64_t key_hot(uint64_t i)
{
	return 0x120000000ULL + 4 * (i % 64); /* 64 pcs x 2 pids: always hits */
}

static uint64_t key_cold(uint64_t i)
{
	return 0x120000000ULL + 4 * (i * 2654435761ULL % (1u << 22)); /* 4M pcs: misses */
}

/* ---- interpretation: the integer loop of bench_interp ---- */
#include "axp_asm.h"

#define CODE FLAT_CODE
#define DATA FLAT_DATA
#define SZ FLAT_SZ

enum loop { INT_LOOP, CALL_LOOP, LOAD_LOOP, COLD_LOOP };

/* ns per interpreted instruction: vs_interpret() runs of the configured budget over a loop. */
static double per_insn(const struct vs_config *cfg, uint64_t insns, enum loop which)
{
	static struct flatmem m;
	/* The integer loop: no calls. */
	const uint32_t int_loop[] = {
		asm_opri(0x11, 6, 0xff, 0x00, 7), /* and    r6, 0xff, r7 */
		asm_opr(0x10, 7, 8, 0x32, 7), /* s8addq r7, r8, r7 */
		asm_mem(0x29, 3, 7, 0), /* ldq    r3, 0(r7) */
		asm_opr(0x10, 4, 3, 0x20, 4), /* addq   r4, r3, r4 */
		asm_mem(0x2d, 4, 7, 8), /* stq    r4, 8(r7) */
		asm_opri(0x10, 6, 1, 0x20, 6), /* addq   r6, 1, r6 */
		asm_opri(0x10, 2, 1, 0x29, 2), /* subq   r2, 1, r2 */
		asm_bra(0x3d, 2, -8), /* bne    r2, loop */
	};
	/*
	 * Two loads per iteration and no store: no conflict to find, so each load looks at every
	 * earlier access that could overlap it (the access log's worst case).
	 */
	const uint32_t load_loop[] = {
		asm_opri(0x11, 6, 0xff, 0x00, 7), /* and    r6, 0xff, r7 */
		asm_opr(0x10, 7, 8, 0x32, 7), /* s8addq r7, r8, r7 */
		asm_mem(0x29, 3, 7, 0), /* ldq    r3, 0(r7) */
		asm_opr(0x10, 4, 3, 0x20, 4), /* addq   r4, r3, r4 */
		asm_mem(0x29, 5, 7, 2048), /* ldq    r5, 2048(r7) */
		asm_opri(0x10, 6, 1, 0x20, 6), /* addq   r6, 1, r6 */
		asm_opri(0x10, 2, 1, 0x29, 2), /* subq   r2, 1, r2 */
		asm_bra(0x3d, 2, -8), /* bne    r2, loop */
	};
	/* A call per iteration (the procedure observer's worst case: a call or a ret in 2 of 6). */
	const uint32_t call_loop[] = {
		asm_opri(0x10, 6, 1, 0x20, 6), /* loop: addq r6, 1, r6 */
		asm_bra(0x34, 26, 2), /* bsr    ra, sub */
		asm_opri(0x10, 2, 1, 0x29, 2), /* subq   r2, 1, r2 */
		asm_bra(0x3d, 2, -4), /* bne    r2, loop */
		asm_opri(0x10, 16, 1, 0x20, 16), /* sub: addq a0, 1, a0 */
		0x6bfa8001, /* ret    zero, (ra), 1 */
	};

	struct axp_ctx ctx;
	struct vs_cpu *cpu;
	void *cm;
	double t = 0, t0;
	uint64_t done = 0;
	int r;

	cpu = cpu_new(cfg, &cm);
	memset(&m, 0, sizeof(m));
	if (which == COLD_LOOP) {
		/*
		 * The integer loop's first seven instructions over the whole code page and a branch
		 * back: 2,048 pcs, each met again only after 2,047 others, so with tables of 512
		 * entries every lookup claims a slot and evicts one (the kernel's case, where one
		 * sample in 32 interprets and most pcs are new to the tables).
		 */
		uint32_t *w = (uint32_t *)(void *)m.code;
		size_t i, n = FLAT_SZ / 4;

		for (i = 0; i + 1 < n; i++)
			w[i] = int_loop[i % 7];
		w[n - 1] = asm_bra(0x30, 31, -(int32_t)n); /* br zero, start */
	} else if (which == CALL_LOOP)
		memcpy(m.code, call_loop, sizeof(call_loop));
	else if (which == LOAD_LOOP)
		memcpy(m.code, load_loop, sizeof(load_loop));
	else
		memcpy(m.code, int_loop, sizeof(int_loop));
	memset(&ctx, 0, sizeof(ctx));
	ctx.pc = CODE;
	ctx.lock_addr = AXP_NO_LOCK;
	ctx.r[2] = insns; /* never reaches zero within the run */
	ctx.r[8] = DATA;
	while (done < insns) {
		uint64_t before = cpu->st.interp_insns;

		t0 = now();
		r = vs_interpret(cpu, 100, &ctx, &flat_ops, &m);
		t += now() - t0;
		if (r != AXP_STOP_BUDGET) {
			fprintf(stderr, "bench_sampler: interpretation stopped: %s\n",
				r >= 0 ? axp_stop_name[r] : "error");
			exit(1);
		}
		done += cpu->st.interp_insns - before;
		if (vs_interp_take_wake(cpu))
			drain(cpu);
	}
	while (vs_cpu_flush(cpu) == -ENOSPC)
		drain(cpu);
	drain(cpu);
	free(cm);
	return t * 1e9 / (double)done;
}

/*
 * --count MODE N: only N interpreted instructions in one configuration, for
 * valgrind --tool=callgrind --toggle-collect=vs_interpret: Ir / N is host instructions per
 * interpreted instruction. MODE: none (no observers, vprof's runs of 8), vprof (its defaults:
 * runs of 8), vprof-cold (the same over 2,048 distinct pcs: every table lookup misses and evicts),
 * vreplay (its defaults: runs of 128), vreplay-loads (the same over a loop of loads and no
 * stores), all (every observer, runs of 128).
 */
static int count_mode(const char *mode, uint64_t n)
{
	enum loop which = INT_LOOP;
	struct vs_config cfg;

	if (!strcmp(mode, "none")) {
		vs_config_default(&cfg, VS_MODE_VPROF);
		cfg.gather = 0;
	} else if (!strcmp(mode, "vprof")) {
		vs_config_default(&cfg, VS_MODE_VPROF);
	} else if (!strcmp(mode, "vprof-cold")) {
		vs_config_default(&cfg, VS_MODE_VPROF);
		which = COLD_LOOP;
	} else if (!strcmp(mode, "vreplay")) {
		vs_config_default(&cfg, VS_MODE_VREPLAY);
	} else if (!strcmp(mode, "vreplay-loads")) {
		vs_config_default(&cfg, VS_MODE_VREPLAY);
		which = LOAD_LOOP;
	} else if (!strcmp(mode, "all")) {
		vs_config_default(&cfg, VS_MODE_VREPLAY);
		cfg.gather = VS_GATHER_ALL;
		cfg.hot_entries = cfg.lat_entries = 512;
	} else {
		fprintf(stderr,
			"bench_sampler: --count MODE N: MODE is none, vprof, vprof-cold, vreplay, "
			"vreplay-loads or all\n");
		return 2;
	}
	printf("sampler: --count %s: %.1f ns/insn over %llu instructions (runs of %u)\n", mode,
	       per_insn(&cfg, n, which), (unsigned long long)n, cfg.interp_budget);
	printf("sampler: --count %s: records FNV-1a %016llx\n", mode, (unsigned long long)rec_sum);
	return 0;
}

int main(int argc, char **argv)
{
	uint64_t n = argc > 1 ? strtoull(argv[1], NULL, 0) : 20000000ULL;
	struct vs_config cfg;
	struct vs_cpu *cpu;
	void *cm;
	double hit, miss, kern, vprof, base, vp, vr, vrl, vr_all, cbase, cvp, cproc, cnone;

	if (argc > 1 && !strcmp(argv[1], "--count")) {
		if (argc != 4 || !strtoull(argv[3], NULL, 0)) {
			fprintf(stderr, "usage: bench_sampler --count MODE N\n");
			return 2;
		}
		return count_mode(argv[2], strtoull(argv[3], NULL, 0));
	}

	vs_config_default(&cfg, VS_MODE_CYCLES);
	cpu = cpu_new(&cfg, &cm);
	hit = per_sample(cpu, n, key_hot, true);
	kern = per_sample(cpu, n, key_hot, false);
	miss = per_sample(cpu, n / 4, key_cold, true);
	printf("sampler: %.1f%% of the miss-path samples evicted an entry\n",
	       100.0 * (double)cpu->st.hash_evictions / (double)(n / 4));
	free(cm);
	vs_config_default(&cfg, VS_MODE_VPROF);
	cpu = cpu_new(&cfg, &cm);
	vprof = per_sample(cpu, n, key_hot, true);
	free(cm);

	cfg.gather = 0;
	cfg.interp_budget = 128;
	base = per_insn(&cfg, n, INT_LOOP);
	cbase = per_insn(&cfg, n, CALL_LOOP);
	vs_config_default(&cfg, VS_MODE_VPROF);
	cfg.interp_budget = 128; /* same runs as vreplay, to compare the observers */
	vp = per_insn(&cfg, n, INT_LOOP);
	cvp = per_insn(&cfg, n, CALL_LOOP);
	cfg.gather |= VS_GATHER_ARGS | VS_GATHER_CALLERS;
	cproc = per_insn(&cfg, n, CALL_LOOP);
	cfg.gather = VS_GATHER_ARGS | VS_GATHER_CALLERS;
	cnone = per_insn(&cfg, n, INT_LOOP); /* selected, but nothing to see */
	vs_config_default(&cfg, VS_MODE_VREPLAY);
	vr = per_insn(&cfg, n, INT_LOOP);
	vrl = per_insn(&cfg, n, LOAD_LOOP);
	cfg.gather = VS_GATHER_ALL;
	cfg.hot_entries = cfg.lat_entries = 512;
	vr_all = per_insn(&cfg, n, INT_LOOP);

	printf("sampler: vs_sample, hash hit (user)          %6.1f ns/sample\n", hit);
	printf("sampler: vs_sample, hash hit (kernel)        %6.1f ns/sample\n", kern);
	printf("sampler: vs_sample, hash miss + eviction     %6.1f ns/sample\n", miss);
	printf("sampler: vs_sample, hit, vprof policy draw   %6.1f ns/sample\n", vprof);
	printf("sampler: vs_interpret, no observers          %6.1f ns/insn (runs of 128)\n", base);
	printf("sampler: vs_interpret, vprof observers       %6.1f ns/insn (values, latency, vcount)\n",
	       vp);
	printf("sampler: vs_interpret, vreplay observers     %6.1f ns/insn (conflicts, vcount)\n",
	       vr);
	printf("sampler: vs_interpret, vreplay, loads only   %6.1f ns/insn (no store: the log's "
	       "worst case)\n",
	       vrl);
	printf("sampler: vs_interpret, every observer        %6.1f ns/insn (+ load-load, args, "
	       "callers)\n",
	       vr_all);
	printf("sampler: call loop, no observers             %6.1f ns/insn (a call or ret in 2 of 6)\n",
	       cbase);
	printf("sampler: call loop, vprof observers          %6.1f ns/insn\n", cvp);
	printf("sampler: call loop, vprof + args, callers    %6.1f ns/insn (--observe +args,callers)\n",
	       cproc);
	printf("sampler: no calls, args and callers only     %6.1f ns/insn (vs %.1f with none)\n",
	       cnone, base);
	if (fflush(stdout) || ferror(stdout)) {
		fprintf(stderr, "bench_sampler: cannot write the figures\n");
		return 1;
	}
	return 0;
}
