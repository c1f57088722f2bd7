/* tools/axprof/builtin-stat.c - `axprof stat`: count PMU events of a program run (perfex). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "axprof/builtin.h"
#include "ax_json.h"
#include "mach.h"
#include "mach_pmu_ctr.h"
#include "tl_opts.h"
#include "tl_stat.h"

extern char **environ;

/*
 * How it runs (perfex, seeds/r10000-counters-perfex-speedshop.txt §2-3 and appendix B): the
 * program runs on the hosted machine with a CPU model; a CYCLES tick every --mux-cycles cycles
 * (the clock tick of the kernel that multiplexed the R10000's counters) closes a quantum: the
 * events of the group on the counters take the counts of that quantum and the next group goes
 * on (tools/lib/tl_stat.h). The machine knows every count exactly, so --exact prints them too.
 *
 * Processes: a guest fork forks the host process; the child's virtual counters start at zero
 * (perfex: "Counter values for the child are zeroed at the fork") and, when it ends, it writes
 * them as one record (atomic: shorter than PIPE_BUF) to a pipe all processes of the run
 * inherit. The first process reads the records after its own end and adds them to its counts
 * (a parent that waits holds the counts of all its descendants).
 */

#define MUX_CYCLES_DEFAULT 20000 /* [U]: more quanta, smaller projection error on short runs */
#define RUNS_MAX 100

struct proc_rec {
	int32_t pid, parent;
	char comm[16]; /* its command name at its end (mach_result.comm) */
	int32_t exit_code, exit_signal;
	struct tl_evcount ev[MACH_EV_NR];
};

struct st {
	const struct mach_pmu_desc *d;
	struct mach *m;
	struct mach_tick tick;
	struct tl_mux mx;
	struct tl_mux_state mux;
	uint32_t events;
	int pipe_w;
	bool in_child;
	int32_t pid, parent;
	/* results of the runs */
	struct proc_rec *procs;
	size_t nprocs, cap;
};

static void usage(FILE *f)
{
	fprintf(f,
		"usage: axprof stat [OPTIONS] [--] PROG [ARGS...]\n\n"
		"Count PMU events of PROG on the hosted machine as perfex counted the R10000's:\n"
		"through the modelled counters, multiplexed when they do not all fit (see\n"
		"axprof-stat(1)). The program's standard input, output and exit status pass\n"
		"through; the report goes to standard error (or -o FILE).\n\n"
		"Options:\n"
		"  --cpu ev5|ev6      the CPU model and its counters (default ev5)\n"
		"  --cpus N           N virtual CPUs (1-8, default 1), each with its own model and\n"
		"                     counters, caches kept coherent (INVAL, INTERV: 0 on one\n"
		"                     CPU, and -a counts them only with 2 or more); counts are\n"
		"                     added over the CPUs\n"
		"  --quantum N        instructions a thread runs before the next one's turn\n" TL_COH_HELP
		"  -e, --events E,... the events to count (default CYCLES,RETIRED); an impossible\n"
		"                     set is an error naming the counters it needs\n"
		"  -a, --all          every event the model counts, multiplexed on the counters\n"
		"  --exact            the machine's exact counts beside the projections\n"
		"  --mux-cycles N     cycles each event group stays on the counters (default %d)\n"
		"  -r, --repeat N     run N times (1..%d): mean and standard deviation\n"
		"  --per-process      each process's counts (a child's are added to the parent's)\n"
		"  -o, --output FILE  the report into FILE\n"
		"  --json             the report as one JSON document (docs/axprof-json.7)\n"
		"  --sysroot DIR      as axprof run\n"
		"  --help             this text\n\n"
		"Events: CYCLES RETIRED IMISS DMISS DTBMISS ITBMISS BRANCHMP LOADS FPOPS (ev5),\n"
		"BCMISS REPLAY (ev6), INVAL INTERV (both; coherence, --cpus). Exit status: the program's; 2 for bad options, 1 if it cannot run.\n",
		MUX_CYCLES_DEFAULT, RUNS_MAX);
}

static int event_by_name(const char *s, size_t n)
{
	for (unsigned int e = 0; e < MACH_EV_NR; e++)
		if (strlen(mach_event_name[e]) == n && !strncasecmp(s, mach_event_name[e], n))
			return (int)e;
	return -1;
}

static void print_set(FILE *f, uint32_t set, const char *sep)
{
	const char *s = "";

	for (unsigned int e = 0; e < MACH_EV_NR; e++)
		if (set & (1u << e)) {
			fprintf(f, "%s%s", s, mach_event_name[e]);
			s = sep;
		}
}

static void print_ctrs(FILE *f, const struct mach_pmu_desc *d, uint32_t set)
{
	const char *s = "";

	for (unsigned int c = 0; c < d->ncounters; c++)
		if (set & (1u << c)) {
			fprintf(f, "%s%s", s, d->counter[c].name);
			s = " and ";
		}
}

/* -e list into a mask; 2 after a message for an unknown name. */
static int parse_events(const char *arg, uint32_t *mask)
{
	const char *p = arg;

	*mask = 0;
	while (*p) {
		size_t n = strcspn(p, ",");
		int e = event_by_name(p, n);

		if (!n) { /* "a,,b", a trailing comma */
			p++;
			continue;
		}
		if (e < 0) {
			fprintf(stderr,
				"axprof stat: unknown event '%.*s' in -e %s (events: CYCLES RETIRED "
				"IMISS DMISS DTBMISS ITBMISS BRANCHMP BCMISS REPLAY LOADS FPOPS INVAL "
				"INTERV)\n",
				(int)n, p, arg);
			return 2;
		}
		*mask |= 1u << e;
		p += n;
		if (*p)
			p++;
	}
	if (!*mask) {
		fprintf(stderr, "axprof stat: -e needs at least one event\n");
		return 2;
	}
	return 0;
}

static void read_counts(struct mach *m, uint64_t now[MACH_EV_NR])
{
	struct mach_result r;

	mach_get_result(m, &r);
	memcpy(now, r.events, sizeof(r.events));
	now[MACH_EV_CYCLES] = r.cycles;
}

static void on_tick(void *priv)
{
	struct st *s = priv;
	uint64_t now[MACH_EV_NR];

	read_counts(s->m, now);
	tl_mux_tick(&s->mux, now, 1);
}

/* This is a forked child: its counters start at zero, its own group order goes on. */
static void on_fork(void *priv, int32_t parent, int32_t child)
{
	struct st *s = priv;
	uint64_t now[MACH_EV_NR];
	unsigned int cur = s->mux.cur;

	read_counts(s->m, now);
	tl_mux_start(&s->mux, &s->mx, s->events, cur, now);
	s->in_child = true;
	s->pid = child;
	s->parent = parent;
}

static int add_proc(struct st *s, const struct proc_rec *p)
{
	if (s->nprocs == s->cap) {
		size_t ncap = s->cap ? 2 * s->cap : 8;
		struct proc_rec *np = realloc(s->procs, ncap * sizeof(*np));

		if (!np)
			return -ENOMEM;
		s->procs = np;
		s->cap = ncap;
	}
	s->procs[s->nprocs++] = *p;
	return 0;
}

static void own_record(struct st *s, struct proc_rec *p)
{
	struct mach_result r;
	uint64_t now[MACH_EV_NR];

	read_counts(s->m, now);
	tl_mux_tick(&s->mux, now, 0);
	mach_get_result(s->m, &r);
	memset(p, 0, sizeof(*p));
	p->pid = s->pid;
	p->parent = s->parent;
	p->exit_code = r.exit_code;
	p->exit_signal = r.exit_signal;
	memcpy(p->comm, r.comm, sizeof(p->comm));
	memcpy(p->ev, s->mux.ev, sizeof(p->ev));
}

/* The pipe the processes of a run send their counts through, out of the program's way. */
static int open_pipe(int fds[2])
{
	if (pipe2(fds, O_CLOEXEC))
		return -errno;
	for (int i = 0; i < 2; i++) {
		int hi = fcntl(fds[i], F_DUPFD_CLOEXEC, 800);

		if (hi >= 0) {
			close(fds[i]);
			fds[i] = hi;
		}
	}
	return 0;
}

/* One run of the program; the processes' records into s->procs (the first is the program's).
 * Returns its exit status; in a forked child it does not return. */
static int run_once(struct st *s, const struct mach_opts *opts, char **argv, unsigned int first,
		    uint64_t mux_cycles, int *fatal)
{
	struct mach_events ev = { .fork = on_fork, .priv = s };
	struct mach_load_info li;
	struct ax_error err;
	struct proc_rec p;
	struct mach_result r0;
	uint64_t now[MACH_EV_NR];
	int fds[2], ret, status;
	ssize_t n;

	*fatal = 0;
	ret = mach_new(&s->m, opts);
	if (ret) {
		fprintf(stderr, "axprof stat: cannot create the machine (%s model): %s\n",
			opts->cpu, strerror(-ret));
		*fatal = 1;
		return 1;
	}
	mach_set_events(s->m, &ev);
	ret = mach_load(s->m, argv[0], argv, environ, &li, &err);
	if (ret) {
		fprintf(stderr, "axprof stat: %s\n", err.msg);
		mach_free(s->m);
		*fatal = 1;
		return ret == -ENOENT ? 127 : 1;
	}
	ret = open_pipe(fds);
	if (!ret) {
		ret = mach_set_tick(s->m, &s->tick, mux_cycles, on_tick, s);
		if (ret) {
			close(fds[0]);
			close(fds[1]);
		}
	}
	if (ret) {
		fprintf(stderr, "axprof stat: cannot set up counting: %s\n", strerror(-ret));
		mach_free(s->m);
		*fatal = 1;
		return 1;
	}
	s->pipe_w = fds[1];
	s->in_child = false;
	mach_get_result(s->m, &r0);
	s->pid = r0.pid; /* virtual (axprof-run(1)), as the fork events' */
	s->parent = 0;
	read_counts(s->m, now);
	tl_mux_start(&s->mux, &s->mx, s->events, first, now);
	status = mach_run(s->m);
	own_record(s, &p);
	if (s->in_child) {
		/* one write: atomic on a pipe (sizeof(p) < PIPE_BUF) */
		if (write(s->pipe_w, &p, sizeof(p)) != (ssize_t)sizeof(p))
			fprintf(stderr, "axprof stat: process %d: its counts were lost\n",
				(int)s->pid);
		mach_die(s->m);
		_exit(status);
	}
	close(s->pipe_w);
	s->nprocs = 0;
	if (add_proc(s, &p))
		*fatal = 1;
	while ((n = read(fds[0], &p, sizeof(p))) == (ssize_t)sizeof(p))
		if (add_proc(s, &p))
			*fatal = 1;
	close(fds[0]);
	return status;
}

/* The totals of a run: every process's projections added (perfex: the parent holds its
 * descendants' counts after wait). */
struct totals {
	double proj[MACH_EV_NR], se[MACH_EV_NR];
	uint64_t exact[MACH_EV_NR], running[MACH_EV_NR], enabled[MACH_EV_NR];
};

static void add_totals(const struct proc_rec *p, size_t n, struct totals *t)
{
	memset(t, 0, sizeof(*t));
	for (size_t i = 0; i < n; i++)
		for (unsigned int e = 0; e < MACH_EV_NR; e++) {
			double se;

			t->proj[e] += tl_mux_project(&p[i].ev[e], &se);
			t->se[e] = sqrt(t->se[e] * t->se[e] + se * se);
			t->exact[e] += p[i].ev[e].exact;
			t->running[e] += p[i].ev[e].running;
			t->enabled[e] += p[i].ev[e].enabled;
		}
}

struct report {
	const struct mach_pmu_desc *d;
	uint32_t events;
	bool exact, per_process, json, all;
	unsigned int runs, mx_groups;
	uint64_t mux_cycles;
	double mean[MACH_EV_NR], sd[MACH_EV_NR];
	const struct totals *last; /* the last run's */
	const struct proc_rec *procs;
	size_t nprocs;
	int status;
	char *const *argv;
	uint32_t c2c, inval; /* --c2c-latency, --inval-latency (0: the model's defaults) */
};

/* An event's cost: the model's, or the coherence cost the run was given. */
static struct mach_pmu_cost cost_of(const struct report *r, enum mach_event e)
{
	struct mach_pmu_cost c = r->d->cost[e];

	if (e == MACH_EV_INTERV && r->c2c) {
		c.typical = c.max = r->c2c;
		c.source = "cache-to-cache fill (--c2c-latency)";
	} else if (e == MACH_EV_INVAL && r->inval) {
		c.typical = c.max = r->inval;
		c.source =
			"invalidation (--inval-latency; hidden by the write buffer unless it fills)";
	}
	return c;
}

static double val(const struct report *r, enum mach_event e)
{
	return (r->events & (1u << e)) ? r->mean[e] : NAN;
}

/* Derived metrics: name, value (NaN when an event is missing). */
#define NDERIVED 10
static void derived(const struct report *r, const char *name[NDERIVED], double v[NDERIVED])
{
	double cyc = val(r, MACH_EV_CYCLES), ins = val(r, MACH_EV_RETIRED);
	double k = ins / 1000.0;

	name[0] = "cpi", v[0] = cyc / ins;
	name[1] = "ipc", v[1] = ins / cyc;
	name[2] = "imiss_per_kinsn", v[2] = val(r, MACH_EV_IMISS) / k;
	name[3] = "dmiss_per_kinsn", v[3] = val(r, MACH_EV_DMISS) / k;
	name[4] = "bcmiss_per_kinsn", v[4] = val(r, MACH_EV_BCMISS) / k;
	name[5] = "bcache_miss_ratio",
	v[5] = val(r, MACH_EV_BCMISS) / (val(r, MACH_EV_DMISS) + val(r, MACH_EV_IMISS));
	name[6] = "mispredicts_per_kinsn", v[6] = val(r, MACH_EV_BRANCHMP) / k;
	name[7] = "tbmiss_per_kinsn",
	v[7] = (val(r, MACH_EV_DTBMISS) + val(r, MACH_EV_ITBMISS)) / k;
	name[8] = "replays_per_kinsn", v[8] = val(r, MACH_EV_REPLAY) / k;
	/* perfex's loads per FP operation: counted on the 21164 (PCTR1); the 21264 has no such
	 * events, so there only the model's exact counts give it, and only with --exact */
	name[9] = "loads_per_fpop", v[9] = val(r, MACH_EV_LOADS) / val(r, MACH_EV_FPOPS);
	if (isnan(v[9]) && r->exact && r->last && r->last->exact[MACH_EV_FPOPS])
		v[9] = (double)r->last->exact[MACH_EV_LOADS] /
		       (double)r->last->exact[MACH_EV_FPOPS];
}

/* Is loads_per_fpop from the exact counts (the events were not counted)? */
static bool fpop_exact(const struct report *r)
{
	return isnan(val(r, MACH_EV_LOADS) / val(r, MACH_EV_FPOPS));
}

/* perfex -y: each event's count x its cost, and the share of the cycles that explains. */
static void cost_table(FILE *f, const struct report *r, double cyc)
{
	double tt = 0, tm = 0;
	bool any = false;

	for (unsigned int e = 0; e < MACH_EV_NR; e++) {
		const struct mach_pmu_cost cc = cost_of(r, (enum mach_event)e), *c = &cc;
		double n = val(r, (enum mach_event)e);

		if (!c->typical || isnan(n))
			continue;
		if (!any)
			fprintf(f,
				"\n  cost estimates (perfex -y: count x cycles per event, no overlap "
				"assumed):\n  %-9s %8s %8s %16s %7s %16s %7s  source\n",
				"event", "typical", "max", "cycles typical", "share", "cycles max",
				"share");
		any = true;
		tt += n * c->typical;
		tm += n * c->max;
		fprintf(f, "  %-9s %8.0f %8.0f %16.0f %6.1f%% %16.0f %6.1f%%  %s\n",
			mach_event_name[e], c->typical, c->max, n * c->typical,
			100.0 * n * c->typical / cyc, n * c->max, 100.0 * n * c->max / cyc,
			c->source);
	}
	if (any)
		fprintf(f, "  %-9s %8s %8s %16.0f %6.1f%% %16.0f %6.1f%%  of %.0f cycles\n",
			"explained", "", "", tt, 100.0 * tt / cyc, tm, 100.0 * tm / cyc, cyc);
}

static void per_process(FILE *f, const struct report *r)
{
	if (!r->per_process)
		return;
	fprintf(f, "\n  per process (each child's counts are also in its parent's total):\n");
	for (size_t i = 0; i < r->nprocs; i++) {
		const struct proc_rec *p = &r->procs[i];

		fprintf(f, "  pid %d %.16s (parent %d) exit %d%s:", (int)p->pid, p->comm,
			(int)p->parent, p->exit_signal ? 128 + p->exit_signal : p->exit_code,
			p->exit_signal ? " (signal)" : "");
		for (unsigned int e = 0; e < MACH_EV_NR; e++) {
			double se;

			if (r->events & (1u << e))
				fprintf(f, " %s %.0f", mach_event_name[e],
					tl_mux_project(&p->ev[e], &se));
		}
		fprintf(f, "\n");
	}
}

static void text_report(FILE *f, const struct report *r)
{
	const char *dn[NDERIVED];
	double dv[NDERIVED], cyc = val(r, MACH_EV_CYCLES);

	fprintf(f, "\n Performance counter stats for '");
	for (char *const *a = r->argv; *a; a++)
		fprintf(f, "%s%s", a == r->argv ? "" : " ", *a);
	fprintf(f, "' (%s model, %s: %u counters", r->d->cpu, r->d->chip, r->d->ncounters);
	if (r->runs > 1)
		fprintf(f, ", %u runs", r->runs);
	fprintf(f, "):\n\n");
	fprintf(f, "  %18s %8s %8s", "count", "error", "counted");
	if (r->runs > 1)
		fprintf(f, " %10s", "stddev");
	if (r->exact)
		fprintf(f, " %18s %8s", "exact", "diff");
	fprintf(f, "  event\n");
	for (unsigned int e = 0; e < MACH_EV_NR; e++) {
		const struct totals *t = r->last;

		if (!(r->events & (1u << e)))
			continue;
		fprintf(f, "  %18.0f", r->mean[e]);
		if (isnan(t->se[e]))
			fprintf(f, " %8s", "?");
		else
			fprintf(f, " %7.2f%%",
				r->mean[e] > 0 ? 100.0 * t->se[e] / r->mean[e] : 0.0);
		fprintf(f, " %7.1f%%",
			t->enabled[e] ? 100.0 * (double)t->running[e] / (double)t->enabled[e] :
					0.0);
		if (r->runs > 1)
			fprintf(f, " %9.2f%%",
				r->mean[e] > 0 ? 100.0 * r->sd[e] / r->mean[e] : 0.0);
		if (r->exact)
			fprintf(f, " %18" PRIu64 " %+7.2f%%", t->exact[e],
				t->exact[e] ? 100.0 * (r->mean[e] - (double)t->exact[e]) /
						      (double)t->exact[e] :
					      0.0);
		fprintf(f, "  %s\n", mach_event_name[e]);
	}
	if (r->all)
		fprintf(f,
			"\n  multiplexed: %u groups on the counters, %" PRIu64
			" cycles each in turn; counts are projected (count x enabled / counted)\n",
			r->mx_groups, r->mux_cycles);
	derived(r, dn, dv);
	for (unsigned int i = 0, any = 0; i < NDERIVED; i++)
		if (isfinite(dv[i]))
			fprintf(f, "%s  %18.3f  %s%s\n", any++ ? "" : "\n  derived:\n", dv[i],
				dn[i],
				i == 9 && fpop_exact(r) ?
					" (exact counts: no counter of the chip counts loads or FP "
					"operates)" :
					"");
	if (!isnan(cyc))
		cost_table(f, r, cyc);
	per_process(f, r);
	fprintf(f, "\n");
}

static void json_report(FILE *f, const struct report *r)
{
	const char *dn[NDERIVED];
	double dv[NDERIVED], cyc = val(r, MACH_EV_CYCLES);
	struct ax_json j;

	ax_json_doc_open(&j, f, "stat");
	ax_json_str(&j, "program", r->argv[0]);
	ax_json_str(&j, "cpu", r->d->cpu);
	ax_json_u64(&j, "runs", r->runs);
	ax_json_bool(&j, "multiplexed", r->mx_groups > 1);
	if (r->mx_groups > 1) {
		ax_json_u64(&j, "groups", r->mx_groups);
		ax_json_u64(&j, "mux_cycles", r->mux_cycles);
	}
	ax_json_arr_open(&j, "counts");
	for (unsigned int e = 0; e < MACH_EV_NR; e++) {
		const struct totals *t = r->last;

		if (!(r->events & (1u << e)))
			continue;
		ax_json_obj_open(&j, NULL);
		ax_json_str(&j, "event", mach_event_name[e]);
		ax_json_num(&j, "estimate", r->mean[e], 0);
		ax_json_num(&j, "error", t->se[e], 0);
		ax_json_num(&j, "running_share",
			    t->enabled[e] ? (double)t->running[e] / (double)t->enabled[e] : 0, 4);
		if (r->runs > 1)
			ax_json_num(&j, "stddev", r->sd[e], 1);
		if (r->exact)
			ax_json_u64(&j, "exact", t->exact[e]);
		ax_json_obj_close(&j);
	}
	ax_json_arr_close(&j);
	derived(r, dn, dv);
	ax_json_obj_open(&j, "derived");
	for (unsigned int i = 0; i < NDERIVED; i++)
		if (isfinite(dv[i]))
			ax_json_num(&j, dn[i], dv[i], 4);
	ax_json_obj_close(&j);
	if (!isnan(cyc)) {
		ax_json_arr_open(&j, "costs");
		for (unsigned int e = 0; e < MACH_EV_NR; e++) {
			const struct mach_pmu_cost cc = cost_of(r, (enum mach_event)e), *c = &cc;
			double n = val(r, (enum mach_event)e);

			if (!c->typical || isnan(n))
				continue;
			ax_json_obj_open(&j, NULL);
			ax_json_str(&j, "event", mach_event_name[e]);
			ax_json_num(&j, "typical", c->typical, 0);
			ax_json_num(&j, "max", c->max, 0);
			ax_json_num(&j, "cycles_typical", n * c->typical, 0);
			ax_json_num(&j, "cycles_max", n * c->max, 0);
			ax_json_num(&j, "share", n * c->typical / cyc, 4);
			ax_json_str(&j, "source", c->source);
			ax_json_obj_close(&j);
		}
		ax_json_arr_close(&j);
	}
	if (r->per_process) {
		ax_json_arr_open(&j, "processes");
		for (size_t i = 0; i < r->nprocs; i++) {
			const struct proc_rec *p = &r->procs[i];

			ax_json_obj_open(&j, NULL);
			ax_json_i64(&j, "pid", p->pid);
			ax_json_str(&j, "comm", p->comm);
			ax_json_i64(&j, "parent", p->parent);
			if (p->exit_signal)
				ax_json_i64(&j, "exit_signal", p->exit_signal);
			else
				ax_json_i64(&j, "exit_code", p->exit_code);
			ax_json_arr_open(&j, "counts");
			for (unsigned int e = 0; e < MACH_EV_NR; e++) {
				double se;

				if (!(r->events & (1u << e)))
					continue;
				ax_json_obj_open(&j, NULL);
				ax_json_str(&j, "event", mach_event_name[e]);
				ax_json_num(&j, "estimate", tl_mux_project(&p->ev[e], &se), 0);
				if (r->exact)
					ax_json_u64(&j, "exact", p->ev[e].exact);
				ax_json_obj_close(&j);
			}
			ax_json_arr_close(&j);
			ax_json_obj_close(&j);
		}
		ax_json_arr_close(&j);
	}
	if (r->status > 128)
		ax_json_i64(&j, "exit_signal", r->status - 128);
	else
		ax_json_i64(&j, "exit_code", r->status);
	ax_json_doc_close(&j);
}

/* Which events, on which counters: 0, or 2 after a message naming the conflict. */
static int choose_events(struct st *s, const char *list, bool all, unsigned int cpus)
{
	const uint32_t coh = 1u << MACH_EV_INVAL | 1u << MACH_EV_INTERV;
	uint32_t conflict, ctrs, model = mach_cpu_events(mach_cpu_find(s->d->cpu));
	int slot[MACH_EV_NR], ret;

	if (all && cpus <= 1) /* no coherence on one CPU: -a leaves its events out (0 if named) */
		model &= ~coh;

	if (all) {
		s->events = model;
		ret = tl_stat_groups(s->d, s->events, &s->mx, &conflict);
		if (ret) {
			fprintf(stderr, "axprof stat: no %s counter counts ", s->d->chip);
			print_set(stderr, conflict, ", ");
			fprintf(stderr, "\n");
			return 2;
		}
		return 0;
	}
	if (list) {
		ret = parse_events(list, &s->events);
		if (ret)
			return ret;
	} else {
		s->events = 1u << MACH_EV_CYCLES | 1u << MACH_EV_RETIRED;
	}
	ret = tl_stat_place(s->d, s->events, slot, &conflict, &ctrs);
	if (ret == -EOPNOTSUPP || (s->events & ~model)) {
		fprintf(stderr, "axprof stat: the %s (%s model) cannot count ", s->d->chip,
			s->d->cpu);
		print_set(stderr, ret == -EOPNOTSUPP ? conflict : s->events & ~model, ", ");
		fprintf(stderr, " (see axprof-stat(1) for each model's events)\n");
		return 2;
	}
	if (ret) {
		fprintf(stderr, "axprof stat: ");
		print_set(stderr, conflict, ", ");
		fprintf(stderr, " cannot be counted together: of the %s's %u counters only ",
			s->d->chip, s->d->ncounters);
		print_ctrs(stderr, s->d, ctrs);
		fprintf(stderr, " may count them (%d events, %d counter%s); use -a to multiplex\n",
			__builtin_popcount(conflict), __builtin_popcount(ctrs),
			__builtin_popcount(ctrs) == 1 ? "" : "s");
		return 2;
	}
	s->mx.ngroups = 1;
	s->mx.group[0] = s->events;
	return 0;
}

/* cmd_stat()'s work; *owned: the absolute path it built (tl_abs_path), freed by cmd_stat(). */
static int stat_cmd(int argc, char **argv, char **owned)
{
	static const struct option longopts[] = {
		{ "cpu", required_argument, NULL, 'c' },
		{ "events", required_argument, NULL, 'e' },
		{ "all", no_argument, NULL, 'a' },
		{ "exact", no_argument, NULL, 'x' },
		{ "mux-cycles", required_argument, NULL, 'M' },
		{ "repeat", required_argument, NULL, 'r' },
		{ "per-process", no_argument, NULL, 'p' },
		{ "output", required_argument, NULL, 'o' },
		{ "json", no_argument, NULL, 'j' },
		{ "sysroot", required_argument, NULL, 'S' },
		{ "cpus", required_argument, NULL, 'P' },
		{ "quantum", required_argument, NULL, 'Q' },
		{ "c2c-latency", required_argument, NULL, TL_OPT_C2C },
		{ "inval-latency", required_argument, NULL, TL_OPT_INVAL },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct mach_opts opts = { .cpu = "ev5" };
	struct st s = { 0 };
	struct report r = { 0 };
	struct totals t;
	const char *list = NULL, *out = NULL;
	double *proj = NULL;
	uint64_t mux = MUX_CYCLES_DEFAULT;
	unsigned long runs = 1;
	char *end;
	FILE *f = stderr;
	int c, status = 0, fatal = 0;

	optind = 1;
	while ((c = getopt_long(argc, argv, "+he:ar:o:", longopts, NULL)) != -1) {
		switch (c) {
		case 'c':
			if (strcmp(optarg, "ev5") && strcmp(optarg, "ev6")) {
				fprintf(stderr, "axprof stat: --cpu must be ev5 or ev6, not '%s'\n",
					optarg);
				return 2;
			}
			opts.cpu = optarg;
			break;
		case 'e':
			list = optarg;
			break;
		case 'a':
			r.all = true;
			break;
		case 'x':
			r.exact = true;
			break;
		case 'M':
			errno = 0;
			mux = strtoull(optarg, &end, 10);
			if (errno || *optarg < '1' || *optarg > '9' || *end || mux < 1000) {
				fprintf(stderr,
					"axprof stat: --mux-cycles needs a number of cycles, 1000 or "
					"more, not '%s'\n",
					optarg);
				return 2;
			}
			break;
		case 'r':
			errno = 0;
			runs = strtoul(optarg, &end, 10);
			if (errno || *optarg < '1' || *optarg > '9' || *end || runs > RUNS_MAX) {
				fprintf(stderr,
					"axprof stat: -r needs a count of runs, 1 to %d, not '%s'\n",
					RUNS_MAX, optarg);
				return 2;
			}
			break;
		case 'p':
			r.per_process = true;
			break;
		case 'o':
			out = optarg;
			break;
		case 'j':
			r.json = true;
			break;
		case 'S':
			opts.sysroot = optarg;
			break;
		case 'P':
			if (tl_parse_cpus("axprof stat", optarg, MACH_MAX_CPUS, &opts.cpus))
				return 2;
			break;
		case 'Q':
			if (tl_parse_quantum("axprof stat", optarg, &opts.quantum))
				return 2;
			break;
		case TL_OPT_C2C:
			if (tl_parse_coh_latency("axprof stat", "--c2c-latency", optarg,
						 &opts.coh_c2c))
				return 2;
			break;
		case TL_OPT_INVAL:
			if (tl_parse_coh_latency("axprof stat", "--inval-latency", optarg,
						 &opts.coh_inval))
				return 2;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind >= argc) {
		fprintf(stderr, "axprof stat: no program to run (see 'axprof stat --help')\n");
		return 2;
	}
	if (r.all && list) {
		fprintf(stderr, "axprof stat: -a counts every event: give -e or -a, not both\n");
		return 2;
	}
	if (tl_check_sysroot("axprof stat", opts.sysroot))
		return 2;
	if (tl_abs_path("axprof stat", &out,
			owned)) /* written after the run: the program may chdir */
		return 1;
	s.d = mach_pmu_desc(opts.cpu);
	if (!s.d) {
		fprintf(stderr, "axprof stat: no counter description for the %s model\n", opts.cpu);
		return 1;
	}
	c = choose_events(&s, list, r.all, opts.cpus);
	if (c)
		return c;
	opts.prog = argv[optind];
	if (out) {
		f = fopen(out, "w");
		if (!f) {
			fprintf(stderr, "axprof stat: cannot create %s: %s\n", out,
				strerror(errno));
			return 1;
		}
	}
	proj = calloc(runs * MACH_EV_NR, sizeof(*proj));
	if (!proj) {
		fprintf(stderr, "axprof stat: out of memory\n");
		status = 1;
		goto out;
	}
	for (unsigned int i = 0; i < runs; i++) {
		/* each run starts the rotation at another group: -r shows the projection noise */
		status = run_once(&s, &opts, argv + optind, i, mux, &fatal);
		if (fatal)
			goto out;
		add_totals(s.procs, s.nprocs, &t);
		for (unsigned int e = 0; e < MACH_EV_NR; e++)
			proj[i * MACH_EV_NR + e] = t.proj[e];
		if (i + 1 < runs)
			mach_free(s.m);
	}
	for (unsigned int e = 0; e < MACH_EV_NR; e++) {
		double x[RUNS_MAX];

		for (unsigned int i = 0; i < runs; i++)
			x[i] = proj[i * MACH_EV_NR + e];
		tl_mean_sd(x, (unsigned int)runs, &r.mean[e], &r.sd[e]);
	}
	r.d = s.d;
	r.c2c = opts.coh_c2c;
	r.inval = opts.coh_inval;
	r.events = s.events;
	r.runs = (unsigned int)runs;
	r.mx_groups = s.mx.ngroups;
	r.mux_cycles = mux;
	r.last = &t;
	r.procs = s.procs;
	r.nprocs = s.nprocs;
	r.status = status;
	r.argv = argv + optind;
	if (fflush(stdout) || ferror(stdout))
		fprintf(stderr, "axprof stat: error writing standard output\n");
	if (r.json)
		json_report(f, &r);
	else
		text_report(f, &r);
out:
	if (f != stderr && fclose(f) && !status) {
		fprintf(stderr, "axprof stat: cannot write %s: %s\n", out, strerror(errno));
		status = 1;
	}
	free(proj);
	free(s.procs);
	if (s.m && !fatal) {
		mach_die(s.m);
		mach_free(s.m);
	}
	return status;
}

int cmd_stat(int argc, char **argv)
{
	char *owned = NULL;
	int ret = stat_cmd(argc, argv, &owned);

	free(owned);
	return ret;
}
