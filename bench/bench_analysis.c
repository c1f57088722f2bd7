/* bench/bench_analysis.c - static analysis speed: procedures, CFGs, classes, schedule of an image. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "an_cfg.h"
#include "img.h"
#include "an_proc.h"
#include "an_sched.h"

/*
 * Prints the seconds to analyse every procedure of IMAGE the way DCPI's analysis starts
 * (SOSP'97 §6: "It takes approximately 3 minutes to analyze the suite of 17 programs, which
 * total roughly 26MB of executables"): open the ELF file, find the procedures, build each CFG,
 * compute its frequency equivalence classes and the static EV5 schedule of its blocks. The
 * best of ROUNDS runs (wall clock), and the code bytes per second.
 */

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

struct totals {
	size_t procs, blocks, edges, insns, missing;
	uint64_t code_bytes;
};

static int analyse(const char *path, const struct an_sched_model *m, struct totals *t)
{
	struct an_sched_insn *s = NULL;
	struct an_procs *ps = NULL;
	struct img *elf;
	struct ax_error ierr;
	struct ax_error err;
	size_t cap = 0;
	int ret;

	memset(t, 0, sizeof(*t));
	ret = img_open(path, 0, &elf, &ierr);
	if (ret) {
		fprintf(stderr, "bench_analysis: %s\n", ierr.msg);
		return ret;
	}
	ret = an_procs_find(elf, &ps, &err);
	if (ret) {
		fprintf(stderr, "bench_analysis: %s\n", err.msg);
		goto out;
	}
	t->code_bytes = ps->stats.code_bytes;
	for (size_t i = 0; i < ps->n; i++) {
		struct an_cfg *cfg;

		ret = an_cfg_build(ps, &ps->v[i], &cfg, &err);
		if (ret) {
			fprintf(stderr, "bench_analysis: %s\n", err.msg);
			goto out;
		}
		if (cfg->ninsns > cap) {
			struct an_sched_insn *v = realloc(s, (size_t)cfg->ninsns * sizeof(*s));

			if (!v) {
				an_cfg_free(cfg);
				ret = -ENOMEM;
				goto out;
			}
			s = v;
			cap = cfg->ninsns;
		}
		ret = an_cfg_classes(cfg);
		if (!ret)
			ret = an_sched_cfg(m, cfg, s);
		t->procs++;
		t->blocks += cfg->nblocks;
		t->edges += cfg->nedges;
		t->insns += cfg->ninsns;
		t->missing += !!(cfg->flags & AN_CFG_MISSING_EDGES);
		an_cfg_free(cfg);
		if (ret)
			goto out;
	}
out:
	free(s);
	an_procs_free(ps);
	img_close(elf);
	return ret;
}

int main(int argc, char **argv)
{
	const char *path = argc > 1 ? argv[1] : "/usr/alpha-linux-gnu/lib/libc.so.6.1";
	int rounds = argc > 2 ? atoi(argv[2]) : 5;
	struct an_sched_model *m;
	struct totals t;
	double best = 1e30;

	if (argc > 3 || rounds < 1) {
		fprintf(stderr, "usage: bench_analysis [IMAGE [ROUNDS]]\n");
		return 2;
	}
	if (an_sched_model_new(&m)) {
		fprintf(stderr, "bench_analysis: out of memory\n");
		return 1;
	}
	for (int r = 0; r < rounds; r++) {
		double t0 = now(), dt;

		if (analyse(path, m, &t)) {
			an_sched_model_free(m);
			return 1;
		}
		dt = now() - t0;
		if (dt < best)
			best = dt;
	}
	an_sched_model_free(m);
	printf("analysis of %s: %.3f s (best of %d): %zu procedures (%zu missing edges, %.1f%%), "
	       "%zu instructions, %zu blocks, %zu edges, %.1f MB/s of code\n",
	       path, best, rounds, t.procs, t.missing,
	       t.procs ? 100.0 * (double)t.missing / (double)t.procs : 0.0, t.insns, t.blocks,
	       t.edges, (double)t.code_bytes / best / 1e6);
	return 0;
}
