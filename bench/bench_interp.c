/* bench/bench_interp.c - interpreter speed: million Alpha instructions/s on integer and FP loops. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "axp.h"

#include "axp_asm.h"

#define CODE FLAT_CODE
#define DATA FLAT_DATA
#define SZ FLAT_SZ

static const struct axp_mem_ops ops = { .fetch = flat_fetch,
					.load = flat_load,
					.store = flat_store };

/* The hosted machine's path: instructions pre-decoded once (machine/mach_mem.c keeps such a cache). */
static struct axp_insn decoded[SZ / 4 + 1]; /* + insn_page's sentinel (axp.h) */

static const struct axp_insn *b_fetch_insn(void *priv, uint64_t va, int *err)
{
	(void)priv;
	if (va - CODE > SZ - 4) {
		*err = -EFAULT;
		return NULL;
	}
	return &decoded[(va - CODE) / 4];
}

/* ... and hands the executor the decoded page to read from between fetches, as the machine does. */
static const struct axp_insn *b_insn_page(void *priv, uint64_t va, uint64_t *first_va, uint64_t *n)
{
	(void)priv;
	(void)va;
	*first_va = CODE;
	*n = SZ / 4;
	return decoded;
}

static const struct axp_mem_ops cached_ops = { .fetch = flat_fetch,
					       .load = flat_load,
					       .store = flat_store,
					       .fetch_insn = b_fetch_insn,
					       .insn_page = b_insn_page };

/* The kernel glue's configuration (kmod/interp/linux/axp_interp_main.c): fetch_insn() from its
 * decode cache for every instruction, no decoded page to read from. */
static const struct axp_mem_ops kernel_ops = { .fetch = flat_fetch,
					       .load = flat_load,
					       .store = flat_store,
					       .fetch_insn = b_fetch_insn };

static uint64_t observed;

static void count_obs(void *priv, const struct axp_event *ev)
{
	(void)priv;
	observed += ev->value;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts); /* CPU time: shared machines */
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* Run `prog` (n words, a loop ending in bne r2) for about `insns` instructions; return M insn/s. */
static double run(const uint32_t *prog, unsigned int n, unsigned int per_iter, uint64_t insns,
		  bool observe, const struct axp_mem_ops *mem)
{
	static struct flatmem m;
	struct axp_ctx ctx;
	struct axp_observer obs = { .insn = count_obs };
	struct axp_run_cfg cfg = { .mem = mem, .mem_priv = &m, .obs = observe ? &obs : NULL };
	struct axp_stop_info info;
	double t0, t1;
	uint64_t one = 0x3ff0000000000001ull; /* 1.0 + ulp */

	memset(&m, 0, sizeof(m));
	memcpy(m.code, prog, n * 4);
	for (unsigned int i = 0; i < SZ / 4; i++) {
		uint32_t w;

		memcpy(&w, m.code + 4 * i, 4);
		axp_decode(w, &decoded[i]);
	}
	decoded[SZ / 4].op = AXP_OP_NR;
	for (unsigned int i = 0; i < SZ / 8; i++)
		memcpy(m.data + 8 * i, &one, 8);
	memset(&ctx, 0, sizeof(ctx));
	ctx.pc = CODE;
	ctx.lock_addr = AXP_NO_LOCK;
	ctx.r[2] = insns / per_iter;
	ctx.r[8] = DATA;
	ctx.f[2] = 0x3fe0000000000000ull; /* 0.5 */
	t0 = now();
	axp_run(&ctx, &cfg, insns + 16, &info);
	t1 = now();
	if (info.reason != AXP_STOP_CALL_PAL) { /* the loop falls through to a zero word */
		fprintf(stderr, "bench_interp: loop stopped early: %s at %#llx\n",
			axp_stop_name[info.reason], (unsigned long long)info.pc);
		exit(1);
	}
	return info.executed / (t1 - t0) / 1e6;
}

int main(int argc, char **argv)
{
	uint64_t insns = argc > 1 ? strtoull(argv[1], NULL, 0) : 100000000ull;
	const uint32_t intloop[] = {
		asm_opri(0x11, 6, 0xff, 0x00, 7), /* and   r6, 0xff, r7 */
		asm_opr(0x10, 7, 8, 0x32, 7), /* s8addq r7, r8, r7 */
		asm_mem(0x29, 3, 7, 0), /* ldq   r3, 0(r7) */
		asm_opr(0x10, 4, 3, 0x20, 4), /* addq  r4, r3, r4 */
		asm_opri(0x10, 6, 1, 0x20, 6), /* addq  r6, 1, r6 */
		asm_opri(0x10, 2, 1, 0x29, 2), /* subq  r2, 1, r2 */
		asm_bra(0x3d, 2, -7), /* bne   r2, loop */
	};
	const uint32_t fploop[] = {
		asm_opri(0x11, 6, 0xff, 0x00, 7), /* and   r6, 0xff, r7 */
		asm_opr(0x10, 7, 8, 0x32, 7), /* s8addq r7, r8, r7 */
		asm_mem(0x23, 1, 7, 0), /* ldt   f1, 0(r7) */
		asm_opr(0x16, 1, 2, 0x0a2, 3), /* mult  f1, f2, f3 */
		asm_opr(0x16, 4, 3, 0x0a0, 4), /* addt  f4, f3, f4 */
		asm_opri(0x10, 6, 1, 0x20, 6), /* addq  r6, 1, r6 */
		asm_opri(0x10, 2, 1, 0x29, 2), /* subq  r2, 1, r2 */
		asm_bra(0x3d, 2, -8), /* bne   r2, loop */
	};
	const char *only = argc > 2 ? argv[2] : NULL;
	double ia, io, ic, fa, fo, fc;

	/* `bench_interp N CASE` runs one case (int, int-obs, int-cached, int-kernel, and the same
	 * four of fp), for counting host instructions per interpreted one (valgrind
	 * --tool=callgrind) or guest instructions (built for Alpha, under `axprof run --stats`).
	 * -kernel: with the observer and fetch_insn per instruction, as the kernel's loop runs. */
	if (only) {
		static const char *const names[] = { "int", "int-obs", "int-cached", "int-kernel",
						     "fp",  "fp-obs",  "fp-cached",  "fp-kernel" };
		static const struct axp_mem_ops *const mems[] = { &ops, &ops, &cached_ops,
								  &kernel_ops };
		unsigned int k;

		for (k = 0; k < 8 && strcmp(only, names[k]); k++)
			;
		if (k == 8) {
			fprintf(stderr,
				"bench_interp: unknown case '%s' (int, int-obs, int-cached, "
				"int-kernel, fp, fp-obs, fp-cached, fp-kernel)\n",
				only);
			return 2;
		}
		ia = k < 4 ? run(intloop, 7, 7, insns, k == 1 || k == 3, mems[k]) :
			     run(fploop, 8, 8, insns, k == 5 || k == 7, mems[k - 4]);
		printf("interp: %s %.1f M insn/s\n", only, ia);
		return observed == 0xdead;
	}
	ia = run(intloop, 7, 7, insns, false, &ops);
	io = run(intloop, 7, 7, insns, true, &ops);
	ic = run(intloop, 7, 7, insns, false, &cached_ops);
	fa = run(fploop, 8, 8, insns / 2, false, &ops);
	fo = run(fploop, 8, 8, insns / 2, true, &ops);
	fc = run(fploop, 8, 8, insns / 2, false, &cached_ops);

	printf("interp: integer loop %.1f M insn/s (no observer), %.1f (observer), %.1f (decode cache)"
	       "  [target: uncached >= 150]\n",
	       ia, io, ic);
	printf("interp: FP loop      %.1f M insn/s (no observer), %.1f (observer), %.1f (decode cache)\n",
	       fa, fo, fc);
	printf("interp: ns/insn: integer %.2f, FP %.2f (no observer; CPU time)\n", 1e3 / ia,
	       1e3 / fa);
	return observed == 0xdead; /* keep the observer's work alive */
}
