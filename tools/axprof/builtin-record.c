/* tools/axprof/builtin-record.c - `axprof record`: profile one program into the profile database. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "axprof/builtin.h"
#include "dmn_dev.h"
#include "dmn_lib.h"
#include "dmn_opts.h"
#include "tl_view.h"
#include "mach.h"
#include "mach_cpu.h"
#include "mach_kern.h"
#include "mach_sampler.h"
#include "vs_sampler.h"

/*
 * Two substrates, one command (DESIGN.md): with a driver (/dev/axprof, a character device) the
 * program runs natively while the daemon library drains the driver (configure, start,
 * fork/exec, drain until the child exits, stop, flush); otherwise it runs on the hosted machine
 * with EV5 timing (the PMU needs it), the sampler plugged into the PMU interrupt
 * (machine/mach_sampler.h) and the records handed to the daemon library in process. Either way
 * the profiles go to the database with pdb_merge_store() (on a timer and at the end).
 */

extern char **environ;

#define FLUSH_INTERVAL_DEFAULT 600 /* seconds (DCPI merged to disk every 10 minutes) */
/*
 * Hosted: the records carry the machine's virtual pids (machine/mach_vpid.c: the program is
 * 1000, its children the next numbers), so a recording is reproducible (same seed, same
 * database) and a forked or execve'd child's samples keep their own pid.
 *
 * What the program's other processes recorded is added up in one page shared by every host
 * process of the run (a memfd, MAP_SHARED: inherited over fork, and over the execve of an Alpha
 * program, which re-executes `axprof record ... --exec-totals FD:ROLE -- PROG`, so the new
 * program is profiled under its image too). Each child stores its own samples in the database
 * and adds its counts here as it ends; a process about to execve stores and adds what it has
 * (the leave event); the first process's summary adds them to its own, so it counts every
 * process's samples (a child that outlives the first process is stored but not counted).
 */
#define REC_THREADS 64 /* threads a summary lists (the others are counted in threads_lost) */

struct proc_totals {
	uint64_t procs, insns, interp_insns, cycles;
	uint64_t records[VS_REC_SLOTS], samples, samples_unknown, damaged;
	struct vs_stats vs;
	/* The threads of the processes that ended or left (dmn_threads(): VS_REC_TASK, ABI 5) */
	uint32_t nthr; /* slots claimed (may exceed REC_THREADS: those are lost) */
	struct dmn_thread thr[REC_THREADS];
};

struct rec_opts {
	struct vs_config cfg;
	const char *db;
	const char *db_dir; /* db, absolute: where axprofd writes (the program may chdir) */
	const char *truth; /* machine ground truth */
	const char *value_truth; /* exact value histograms */
	const char *proc_truth; /* exact argument, return and caller histograms */
	const char *addr_truth; /* exact per-load address and stride histograms */
	const char *save; /* hosted: a copy of the drained record stream */
	const char *sysroot;
	const char *confine; /* hosted: --confine DIR (implies --hosted) */
	const char *device;
	const char *cpu; /* hosted: the timing model (NULL: ev5) */
	unsigned int cpus; /* hosted: virtual CPUs (0: 1) */
	uint32_t coh_c2c, coh_inval; /* hosted: coherence costs (0: mach_coh.h's defaults) */
	bool hosted; /* --hosted: never the driver */
	bool callgraph; /* -g: hosted shadow call stacks, a VS_REC_STACK per sample */
	bool events_given; /* --event was given */
	bool share_given; /* --share was given */
	bool budget_given; /* --budget was given */
	bool json;
	bool quiet;
	unsigned int flush_interval;
	/* Hosted, passed by the machine to an execve'd Alpha program (mach_opts.exec_cmd). */
	const char *argv0; /* the program's argv[0] */
	char **argv; /* the options as given (nopts of them): what an execve re-executes */
	int nopts;
	int pid_table_fd; /* the run's pid table (0: a new run) */
	bool trace_syscalls;
	int totals_fd; /* --exec-totals FD:ROLE: the run's totals page (0: a new run) */
	bool exec_child; /* ROLE child: this program replaced a child's (else the first process's) */
	char **owned; /* [6]: the absolute paths parse_opts() builds (tl_abs_path); cmd_record() frees */
};

struct rec {
	struct rec_opts o;
	struct dmn *d;
	struct mach *m;
	struct mach_sampler *s;
	uint32_t pid0; /* the pid in the records: the machine's (virtual), a forked child's */
	bool forked; /* this is a forked child of the program that took over its own profile */
	bool progress; /* stderr is a terminal */
	double t0, last_progress, last_flush;
	int sink_err; /* the first error merging records (out of memory) */
	int store_err; /* the final store's */
	int save; /* raw fds, no stdio buffers a forked child could flush twice; -1: none */
	int save_maps; /* the image-map events, for axprofd --maps */
	char exe[PATH_MAX]; /* the program (host path, from the exec event) */
	uint64_t text_lo, text_hi; /* its executable mappings (--value-truth) */
	bool in_child; /* the machine forked and this is the child (fork event) */
	struct dmn_stats at_fork; /* the child's daemon counters when it forked (the parent's) */
	struct proc_totals *totals; /* hosted: the other processes' counts (shared page) */
	int totals_fd; /* its memfd, -1: none */
	bool left; /* the leave event added this process's counts to the totals */
	char *exec_cmd[64]; /* mach_opts.exec_cmd: `record`, our options, --exec-totals */
	char exec_arg[32]; /* FD:root or FD:child */
	char exec_db[PATH_MAX]; /* the database's absolute path */
	bool exit_seen; /* the exit event: exit_pid's maps go after the last records */
	uint32_t exit_pid;
	uint64_t stop_kept; /* the stop signals caught (host-signal mask) */
};

static void usage(FILE *f)
{
	fprintf(f,
		"usage: axprof record [OPTIONS] -- PROG [ARGS...]\n\n"
		"Run PROG and profile it into the profile database (DCPI-style sampling; with\n"
		"--mode vprof or vreplay also interpreting a share of the samples to collect values,\n"
		"load latencies and store-load conflicts). With /dev/axprof present the program runs\n"
		"natively under the kernel driver; otherwise on the hosted Alpha machine with EV5\n"
		"(or, with --cpu ev6, EV6) timing. The program's input, output and exit status pass\n"
		"through.\n\n"
		"Options:\n"
		"  -d, --db DIR          the database (default $AXPROF_DB, else ./axprof-db)\n" DMN_SAMPLING_HELP
		"  --cpus N              hosted: N virtual CPUs (1-8), each with its own timing model\n"
		"                        and sampler buffers (axprof-run(1) --cpus)\n"
		"  --c2c-latency N, --inval-latency N\n"
		"                        hosted, --cpus 2 or more: the coherence costs in cycles\n"
		"                        (axprof-run(1))\n"
		"  --cpu MODEL           the hosted machine's timing model: ev5 (default) or ev6 (the\n"
		"                        PMU needs one); REPLAY samples (--event cycles,replays) need\n"
		"                        a CPU with replay traps (ev6, the 21264); INVAL and INTERV\n"
		"                        samples (--event inval,interv: coherence) need --cpus 2 or\n"
		"                        more and a short period (--period inval=5-15)\n"
		"  --truth FILE          hosted: write the machine's ground-truth file\n"
		"  --value-truth FILE    hosted: write exact per-pc value histograms of PROG's own code\n"
		"  --proc-truth FILE     hosted: write exact argument, return and caller histograms of\n"
		"                        the calls and rets in PROG's own code\n"
		"  --addr-truth FILE     hosted: write exact address and stride histograms of the\n"
		"                        loads in PROG's own code\n"
		"  -g, --call-graph      hosted: record each sample's call stack (an exact shadow stack\n"
		"                        per thread from the calls and rets executed; at most 62\n"
		"                        frames, deeper stacks keep their innermost and are counted)\n"
		"  --save-records FILE   hosted: also write the drained driver records to FILE, the\n"
		"                        image-map events to FILE.maps and the system calls' kernel\n"
		"                        symbols to FILE.kallsyms (axprofd --device FILE --maps\n"
		"                        FILE.maps --kallsyms FILE.kallsyms replays them)\n"
		"  --sysroot DIR         hosted: where the Alpha libraries live (/usr/alpha-linux-gnu)\n"
		"  --confine DIR         hosted: resolve the program's file names inside DIR, execute\n"
		"                        only Alpha programs (axprof-run(1)); implies --hosted\n"
		"  --hosted              use the hosted machine even when /dev/axprof exists\n"
		"  --device PATH         the driver (default /dev/axprof)\n"
		"  --flush-interval S    store to the database every S seconds too (default 600; 0: only\n"
		"                        at the end)\n"
		"  --json                print the summary as JSON (on standard error)\n"
		"  --trace-syscalls      hosted: print every system call to stderr\n"
		"  --argv0 NAME, --pid-table FD, --exec-totals FD:ROLE\n"
		"                        hosted: passed by the machine when the program execve's\n"
		"                        another Alpha program, which is then recorded too\n"
		"  -q, --quiet           no summary\n"
		"  --help                this text\n\n"
		"SIGINT, SIGTERM or SIGHUP stop the program and store what was collected; the\n"
		"recorder then dies by the signal (a second one: at once, storing nothing more).\n\n"
		"Exit status: the program's; 1 if recording failed, 2 for bad options.\n");
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* ---- SIGINT, SIGTERM, SIGHUP: stop the program, store, summarize, die by the signal ---- */

static const int stop_sigs[] = { SIGINT, SIGTERM, SIGHUP };
static volatile sig_atomic_t stop_sig; /* the first stop signal; 0: none */
static struct mach *volatile stop_mach; /* hosted: the machine to stop */

/* The first signal stops the program (the machine, or the loop of record_kernel); the stop
 * signals then take their default action, so a second one ends the recorder at once. */
static void on_stop_signal(int sig)
{
	struct sigaction dfl = { .sa_handler = SIG_DFL };

	stop_sig = sig;
	for (unsigned int i = 0; i < sizeof(stop_sigs) / sizeof(stop_sigs[0]); i++)
		sigaction(stop_sigs[i], &dfl, NULL);
	if (stop_mach)
		mach_interrupt(stop_mach);
}

/* Catch the stop signals, except those ignored (nohup stays nohup); returns them as a
 * host-signal mask (mach_opts.host_signals_kept). */
static uint64_t catch_stop_signals(void)
{
	struct sigaction sa = { .sa_handler = on_stop_signal }, old;
	uint64_t kept = 0;

	sigemptyset(&sa.sa_mask);
	for (unsigned int i = 0; i < sizeof(stop_sigs) / sizeof(stop_sigs[0]); i++)
		sigaddset(&sa.sa_mask, stop_sigs[i]);
	for (unsigned int i = 0; i < sizeof(stop_sigs) / sizeof(stop_sigs[0]); i++) {
		if (sigaction(stop_sigs[i], NULL, &old) || old.sa_handler == SIG_IGN)
			continue;
		sigaction(stop_sigs[i], &sa, NULL); /* no SA_RESTART: a blocking call returns */
		kept |= 1ull << (stop_sigs[i] - 1);
	}
	return kept;
}

/* After the store: end by the stop signal, as a shell expects of an interrupted program. */
static int die_by_stop_signal(void)
{
	int sig = stop_sig;
	sigset_t set;

	fflush(stdout);
	fflush(stderr);
	signal(sig, SIG_DFL);
	sigemptyset(&set);
	sigaddset(&set, sig);
	sigprocmask(SIG_UNBLOCK, &set, NULL);
	raise(sig);
	return 128 + sig;
}

/* ---- options ---- */

static int parse_u32(const char *s, uint32_t *out)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || end == s || *end || v > UINT32_MAX)
		return -EINVAL;
	*out = (uint32_t)v;
	return 0;
}

enum {
	O_CPU = 256,
	O_TRUTH,
	O_VTRUTH,
	O_PTRUTH,
	O_SAVE,
	O_SYSROOT,
	O_CONFINE,
	O_HOSTED,
	O_DEVICE,
	O_FLUSH,
	O_JSON,
	O_CPUS,
	O_ARGV0,
	O_PIDTAB,
	O_TRACE,
	O_EXECTOT,
	O_HELP,
	O_ATRUTH,
	O_C2C,
	O_INVAL,
};

/* The record-only options; the sampling options are daemon/dmn_opts.h's, shared with axprofd. */
static int record_opt(struct rec_opts *o, int c, const char *arg)
{
	uint32_t v;

	switch (c) {
	case 'd':
		o->db = arg;
		return 0;
	case O_CPU:
		if (!strcmp(arg, "none") || !mach_cpu_find(arg)) {
			fprintf(stderr,
				"axprof record: --cpu must name a timing model of the hosted machine "
				"(ev5 or ev6; sampling needs its PMU), not '%s'\n",
				arg);
			return -1;
		}
		o->cpu = arg;
		return 0;
	case O_CPUS:
		if (parse_u32(arg, &v) || v < 1 || v > MACH_MAX_CPUS) {
			fprintf(stderr,
				"axprof record: --cpus needs a number of CPUs from 1 to %d, not '%s'\n",
				MACH_MAX_CPUS, arg);
			return -1;
		}
		o->cpus = v;
		return 0;
	case O_C2C:
		return tl_parse_coh_latency("axprof record", "--c2c-latency", arg, &o->coh_c2c) ?
			       -1 :
			       0;
	case O_INVAL:
		return tl_parse_coh_latency("axprof record", "--inval-latency", arg,
					    &o->coh_inval) ?
			       -1 :
			       0;
	case O_TRUTH:
		o->truth = arg;
		return 0;
	case O_VTRUTH:
		o->value_truth = arg;
		return 0;
	case O_PTRUTH:
		o->proc_truth = arg;
		return 0;
	case O_ATRUTH:
		o->addr_truth = arg;
		return 0;
	case O_SAVE:
		o->save = arg;
		return 0;
	case O_SYSROOT:
		o->sysroot = arg;
		return 0;
	case O_CONFINE:
		o->confine = arg;
		o->hosted = true;
		return 0;
	case O_HOSTED:
		o->hosted = true;
		return 0;
	case 'g':
		o->callgraph = true;
		return 0;
	case O_DEVICE:
		o->device = arg;
		return 0;
	case O_FLUSH:
		if (parse_u32(arg, &v)) {
			fprintf(stderr, "axprof record: --flush-interval needs seconds, not '%s'\n",
				arg);
			return -1;
		}
		o->flush_interval = v;
		return 0;
	case O_JSON:
		o->json = true;
		return 0;
	case 'q':
		o->quiet = true;
		return 0;
	case O_ARGV0:
		o->argv0 = arg;
		return 0;
	case O_TRACE:
		o->trace_syscalls = true;
		return 0;
	case O_PIDTAB:
		if (parse_u32(arg, &v) || v < 3 || v > INT_MAX) {
			fprintf(stderr,
				"axprof record: --pid-table needs a file descriptor (3 or more), not "
				"'%s'\n",
				arg);
			return -1;
		}
		o->pid_table_fd = (int)v;
		o->hosted = true;
		return 0;
	case O_EXECTOT: {
		char fd[16];
		const char *role = strchr(arg, ':');

		if (!role || (size_t)(role - arg) >= sizeof(fd) ||
		    (strcmp(role, ":root") && strcmp(role, ":child"))) {
			fprintf(stderr,
				"axprof record: --exec-totals needs FD:root or FD:child, not '%s'\n",
				arg);
			return -1;
		}
		memcpy(fd, arg, (size_t)(role - arg));
		fd[role - arg] = 0;
		if (parse_u32(fd, &v) || v < 3 || v > INT_MAX) {
			fprintf(stderr, "axprof record: --exec-totals: bad descriptor in '%s'\n",
				arg);
			return -1;
		}
		o->totals_fd = (int)v;
		o->exec_child = !strcmp(role, ":child");
		o->hosted = true;
		return 0;
	}
	case O_HELP:
		return -2;
	default:
		return -1;
	}
}

/* Returns the index of PROG in argv, or -1 after a message (usage error), or -2 for --help. */
static int parse_opts(int argc, char **argv, struct rec_opts *o)
{
	static const struct option longopts[] = {
		{ "db", required_argument, NULL, 'd' },
		DMN_SAMPLING_LONGOPTS,
		{ "cpu", required_argument, NULL, O_CPU },
		{ "cpus", required_argument, NULL, O_CPUS },
		{ "c2c-latency", required_argument, NULL, O_C2C },
		{ "inval-latency", required_argument, NULL, O_INVAL },
		{ "truth", required_argument, NULL, O_TRUTH },
		{ "value-truth", required_argument, NULL, O_VTRUTH },
		{ "proc-truth", required_argument, NULL, O_PTRUTH },
		{ "addr-truth", required_argument, NULL, O_ATRUTH },
		{ "save-records", required_argument, NULL, O_SAVE },
		{ "sysroot", required_argument, NULL, O_SYSROOT },
		{ "confine", required_argument, NULL, O_CONFINE },
		{ "hosted", no_argument, NULL, O_HOSTED },
		{ "call-graph", no_argument, NULL, 'g' },
		{ "device", required_argument, NULL, O_DEVICE },
		{ "flush-interval", required_argument, NULL, O_FLUSH },
		{ "json", no_argument, NULL, O_JSON },
		{ "quiet", no_argument, NULL, 'q' },
		{ "argv0", required_argument, NULL, O_ARGV0 },
		{ "pid-table", required_argument, NULL, O_PIDTAB },
		{ "trace-syscalls", no_argument, NULL, O_TRACE },
		{ "exec-totals", required_argument, NULL, O_EXECTOT },
		{ "help", no_argument, NULL, O_HELP },
		{ NULL, 0, NULL, 0 },
	};
	struct dmn_sampling smp = { 0 };
	struct ax_error err;
	char **owned = o->owned;
	int c, ret;

	memset(o, 0, sizeof(*o));
	o->owned = owned;
	o->device = "/dev/axprof";
	o->flush_interval = FLUSH_INTERVAL_DEFAULT;
	optind = 1;
	while ((c = getopt_long(argc, argv, "+d:gq", longopts, NULL)) != -1) {
		ret = dmn_sampling_opt(&smp, c, optarg, &err);
		if (ret < 0) {
			fprintf(stderr, "axprof record: %s\n", err.msg);
			return -1;
		}
		if (!ret && (ret = record_opt(o, c, optarg)) < 0)
			return ret;
	}
	if (optind >= argc) {
		fprintf(stderr, "axprof record: no program to run (see 'axprof record --help')\n");
		return -1;
	}
	if (tl_check_sysroot("axprof record", o->sysroot) ||
	    tl_check_dir("axprof record", "--confine", o->confine))
		return -1;
	if (dmn_sampling_config(&smp, &o->cfg, &err)) {
		fprintf(stderr, "axprof record: %s\n", err.msg);
		return -1;
	}
	o->events_given = smp.events != NULL;
	o->share_given = smp.share != NULL;
	o->budget_given = smp.budget != NULL;
	o->db = tl_default_db(o->db);
	o->db_dir = o->db;
	/* Written during and after the run: the hosted program may chdir (tl_abs_path). */
	if (tl_abs_path("axprof record", &o->db_dir, &o->owned[0]) ||
	    tl_abs_path("axprof record", &o->truth, &o->owned[1]) ||
	    tl_abs_path("axprof record", &o->value_truth, &o->owned[2]) ||
	    tl_abs_path("axprof record", &o->proc_truth, &o->owned[3]) ||
	    tl_abs_path("axprof record", &o->addr_truth, &o->owned[4]) ||
	    tl_abs_path("axprof record", &o->save, &o->owned[5]))
		return -1;
	o->argv = argv + 1;
	o->nopts = optind - 1;
	return optind;
}

/* ---- progress and summary ---- */

static void progress_clear(struct rec *r)
{
	if (r->progress)
		fprintf(stderr, "\r\033[K");
}

static void progress(struct rec *r, uint64_t insns, uint64_t samples)
{
	double t = now();

	if (!r->progress || t - r->last_progress < 1.0)
		return;
	r->last_progress = t;
	if (insns)
		fprintf(stderr, "\raxprof record: %.1f M instructions, %" PRIu64 " samples, %.0f s",
			(double)insns / 1e6, samples, t - r->t0);
	else
		fprintf(stderr, "\raxprof record: %" PRIu64 " samples, %.0f s", samples, t - r->t0);
}

static uint64_t sum_drops(const struct vs_stats *vs)
{
	uint64_t n = 0;

	for (unsigned int i = 0; i < VS_DROP_SLOTS; i++)
		n += vs->drops[i];
	return n;
}

struct summary {
	uint64_t insns, interp_insns, cycles; /* 0: not known (driver) */
	struct dmn_thread thr[2 * REC_THREADS]; /* every process's threads, by (pid, tid) */
	size_t nthr;
	uint64_t threads_lost; /* threads beyond the table's room */
	uint64_t procs; /* processes counted (hosted: 1 + forked children that ended) */
	double seconds;
	uint32_t epoch;
	bool hosted;
};

/* The summary as one JSON document on stderr (docs/axprof-json.7, "record"). */
/* The records drained that carry data: every type but STATS (a counters snapshot per CPU). */
static uint64_t data_records(const struct dmn_stats *ds)
{
	uint64_t n = 0;

	for (unsigned int t = 1; t < VS_REC_NR; t++)
		if (t != VS_REC_STATS)
			n += ds->records[t];
	return n;
}

static void json_summary(const struct rec *r, const struct summary *sm, const struct dmn_stats *ds)
{
	const struct vs_stats *vs = &ds->vs;
	uint64_t srec = ds->records[VS_REC_SAMPLE];
	struct ax_json j;
	char evn[32], sn[24];

	ax_json_doc_open(&j, stderr, "record");
	ax_json_str(&j, "database", r->o.db);
	ax_json_u64(&j, "epoch", sm->epoch);
	ax_json_str(&j, "substrate", sm->hosted ? "hosted" : "kernel");
	ax_json_u64(&j, "insns", sm->insns);
	ax_json_u64(&j, "interpreted_insns", sm->interp_insns);
	ax_json_u64(&j, "cycles", sm->cycles);
	if (sm->hosted)
		ax_json_u64(&j, "processes_counted", sm->procs);
	ax_json_num(&j, "seconds", sm->seconds, 3);
	ax_json_u64(&j, "samples", vs->samples);
	ax_json_obj_open(&j, "samples_by_event");
	for (unsigned int e = 0; e < VS_EVENT_NR; e++)
		if (vs->samples_event[e])
			ax_json_u64(&j, tl_event_lower(dmn_pdb_event(e), evn, sizeof(evn)),
				    vs->samples_event[e]);
	ax_json_obj_close(&j);
	ax_json_u64(&j, "interpretations", vs->interp_started);
	ax_json_obj_open(&j, "stops");
	for (unsigned int i = 0; i < AXP_STOP_NR; i++)
		if (vs->stops[i])
			ax_json_u64(&j, axp_stop_name[i], vs->stops[i]);
	ax_json_obj_close(&j);
	if (ds->has_kvals) {
		ax_json_obj_open(&j, "kernel_values");
		for (unsigned int i = 0; i < DMN_KV_NR; i++)
			ax_json_u64(&j, dmn_kv_name[i], ds->kvals[i]);
		ax_json_obj_close(&j);
	}
	ax_json_u64(&j, "dropped", sum_drops(vs));
	ax_json_u64(&j, "sample_records", srec);
	ax_json_num(&j, "reduction", srec ? (double)vs->samples / (double)srec : 0, 2);
	ax_json_u64(&j, "records", data_records(ds));
	if (r->o.cfg.gather & (VS_GATHER_ARGS | VS_GATHER_CALLERS))
		ax_json_u64(&j, "proc_records", ds->records[VS_REC_PROC]);
	if (r->o.cfg.gather & VS_GATHER_ADDRS)
		ax_json_u64(&j, "addr_records", ds->records[VS_REC_ADDR]);
	if (r->o.cfg.mode == VS_MODE_PROFILEME)
		ax_json_u64(&j, "profileme_records", ds->records[VS_REC_PROFILEME]);
	if (r->o.callgraph)
		ax_json_u64(&j, "stack_records", ds->records[VS_REC_STACK]);
	ax_json_u64(&j, "damaged", ds->damaged);
	if (sm->nthr) {
		ax_json_arr_open(&j, "threads");
		for (size_t i = 0; i < sm->nthr; i++) {
			ax_json_obj_open(&j, NULL);
			ax_json_u64(&j, "pid", sm->thr[i].pid);
			ax_json_u64(&j, "tid", sm->thr[i].tid);
			ax_json_str(&j, "comm", sm->thr[i].comm);
			ax_json_u64(&j, "samples", sm->thr[i].samples);
			ax_json_obj_close(&j);
		}
		ax_json_arr_close(&j);
		ax_json_u64(&j, "threads_lost", sm->threads_lost);
	}
	if (stop_sig) {
		snprintf(sn, sizeof(sn), "SIG%s", sigabbrev_np(stop_sig));
		ax_json_str(&j, "interrupted", sn);
	}
	ax_json_u64(&j, "unknown_samples", ds->samples_unknown);
	ax_json_num(&j, "unknown_percent",
		    ds->samples ? 100.0 * (double)ds->samples_unknown / (double)ds->samples : 0, 3);
	ax_json_doc_close(&j);
}

static void print_summary(const struct rec *r, const struct summary *sm, const struct dmn_stats *ds)
{
	const struct vs_stats *vs = &ds->vs;
	uint64_t srec = ds->records[VS_REC_SAMPLE];
	double unknown =
		ds->samples ? 100.0 * (double)ds->samples_unknown / (double)ds->samples : 0;
	double reduction = srec ? (double)vs->samples / (double)srec : 0;
	char evn[32];
	bool first = true;

	if (r->o.json) {
		json_summary(r, sm, ds);
		return;
	}
	if (stop_sig)
		fprintf(stderr,
			"axprof record: interrupted by SIG%s: the program was stopped, the samples "
			"collected so far are stored\n",
			sigabbrev_np(stop_sig));
	if (sm->insns)
		fprintf(stderr,
			"axprof record: %" PRIu64 " instructions (%" PRIu64
			" of them interpreted), %" PRIu64 " cycles, %.2f s%s",
			sm->insns + sm->interp_insns, sm->interp_insns, sm->cycles, sm->seconds,
			sm->procs > 1 ? "" : "\n");
	if (sm->insns && sm->procs > 1)
		fprintf(stderr, "; %" PRIu64 " processes (forked children included)\n", sm->procs);
	else if (!sm->insns)
		fprintf(stderr, "axprof record: %.2f s\n", sm->seconds);
	fprintf(stderr, "axprof record: %" PRIu64 " samples (", vs->samples);
	for (unsigned int e = 0; e < VS_EVENT_NR; e++) {
		if (!vs->samples_event[e])
			continue;
		fprintf(stderr, "%s%s %" PRIu64, first ? "" : ", ",
			tl_event_lower(dmn_pdb_event(e), evn, sizeof(evn)), vs->samples_event[e]);
		first = false;
	}
	fprintf(stderr,
		"%s), %" PRIu64 " dropped; %" PRIu64 " sample records drained (%.1fx reduction)\n",
		first ? "none" : "", sum_drops(vs), srec, reduction);
	if (r->o.cfg.mode == VS_MODE_PROFILEME)
		fprintf(stderr,
			"axprof record: %" PRIu64 " ProfileMe records (instruction samples)\n",
			ds->records[VS_REC_PROFILEME]);
	if (vs->interp_started) {
		fprintf(stderr,
			"axprof record: %" PRIu64 " interpretations, %" PRIu64
			" instructions; stops:",
			vs->interp_started, vs->interp_insns);
		for (unsigned int i = 0; i < AXP_STOP_NR; i++)
			if (vs->stops[i])
				fprintf(stderr, " %s %" PRIu64, axp_stop_name[i], vs->stops[i]);
		fprintf(stderr, "\n");
	}
	if (ds->has_kvals && ds->kvals[0]) {
		fprintf(stderr, "axprof record: kernel values:");
		for (unsigned int i = 0; i < DMN_KV_NR; i++)
			fprintf(stderr, " %s %" PRIu64, dmn_kv_name[i], ds->kvals[i]);
		fprintf(stderr, "\n");
	}
	fprintf(stderr,
		"axprof record: %" PRIu64 " unknown samples (%.2f%%), %" PRIu64
		" damaged records; database %s, epoch %u\n",
		ds->samples_unknown, unknown, ds->damaged, r->o.db, sm->epoch);
	for (size_t i = 0; i < sm->nthr; i++)
		fprintf(stderr,
			"axprof record: pid %" PRIu32 " tid %" PRIu32 " %s: %" PRIu64 " samples\n",
			sm->thr[i].pid, sm->thr[i].tid, sm->thr[i].comm, sm->thr[i].samples);
	if (sm->threads_lost)
		fprintf(stderr, "axprof record: %" PRIu64 " more threads not listed\n",
			sm->threads_lost);
}

static int thr_cmp(const void *a, const void *b)
{
	const struct dmn_thread *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	return 0; /* stable order not needed: qsort of distinct (pid, tid, comm) rows */
}

/* The summary's thread list: this process's (d) and the others' (t, NULL: none). */
static void summary_threads(struct summary *sm, const struct dmn *d, const struct proc_totals *t)
{
	size_t n, nt = 0;
	const struct dmn_thread *own = dmn_threads(d, &n);

	sm->nthr = 0;
	sm->threads_lost = 0;
	if (t) {
		nt = __atomic_load_n(&t->nthr, __ATOMIC_ACQUIRE);
		if (nt > REC_THREADS) {
			sm->threads_lost += nt - REC_THREADS;
			nt = REC_THREADS;
		}
		memcpy(sm->thr, t->thr, nt * sizeof(*t->thr));
		sm->nthr = nt;
	}
	for (size_t i = 0; i < n; i++) {
		if (sm->nthr == sizeof(sm->thr) / sizeof(sm->thr[0])) {
			sm->threads_lost += n - i;
			break;
		}
		sm->thr[sm->nthr++] = own[i];
	}
	qsort(sm->thr, sm->nthr, sizeof(sm->thr[0]), thr_cmp);
}

/* ---- the hosted machine: its process events, as axprofd takes the kernel's ---- */

/* The pid the records carry for a pid of the machine: its own (virtual) one. */
static uint32_t rec_pid(const struct rec *r, int32_t pid)
{
	(void)r;
	return (uint32_t)pid;
}

static void map_warn(struct rec *r, int ret, const char *path)
{
	if (!ret)
		return;
	progress_clear(r);
	fprintf(stderr, "axprof record: warning: %s: %s\n", path, dmn_errmsg(r->d));
}

static void ev_exec(void *priv, int32_t pid, const char *path, uint64_t bias)
{
	struct rec *r = priv;
	uint32_t p = rec_pid(r, pid);

	snprintf(r->exe, sizeof(r->exe), "%s", path);
	map_warn(r, dmn_exec(r->d, p, path, bias), path);
	if (r->save_maps >= 0)
		dprintf(r->save_maps, "exec %u 0x%" PRIx64 " %s\n", p, bias, path);
}

static void ev_munmap(void *priv, int32_t pid, uint64_t start, uint64_t len)
{
	struct rec *r = priv;
	uint32_t p = rec_pid(r, pid);

	dmn_munmap(r->d, p, start, len);
	if (r->save_maps >= 0)
		dprintf(r->save_maps, "munmap %u 0x%" PRIx64 " 0x%" PRIx64 "\n", p, start, len);
}

/* The program's own code, for --value-truth: its executable mappings while it is loaded. */
static void note_prog_text(struct rec *r, const struct mach_map_event *mp)
{
	if (r->s || strcmp(mp->path, r->exe))
		return;
	if (mp->start < r->text_lo)
		r->text_lo = mp->start;
	if (mp->start + mp->len > r->text_hi)
		r->text_hi = mp->start + mp->len;
}

/* An executable file mapping is an image map; any other mapping replaces what was there. */
static void ev_mmap(void *priv, int32_t pid, const struct mach_map_event *mp)
{
	struct rec *r = priv;
	uint32_t p = rec_pid(r, pid);

	if (!(mp->prot & MACH_MAP_PROT_X) || !mp->path) {
		ev_munmap(priv, pid, mp->start, mp->len);
		return;
	}
	note_prog_text(r, mp);
	map_warn(r, dmn_mmap(r->d, p, mp->start, mp->len, mp->off, mp->path), mp->path);
	if (r->save_maps >= 0)
		dprintf(r->save_maps, "mmap %u 0x%" PRIx64 " 0x%" PRIx64 " 0x%" PRIx64 " %s\n", p,
			mp->start, mp->len, mp->off, mp->path);
}

/* This is a forked child of the program: its maps are the parent's, under its own pid. */
static void ev_fork(void *priv, int32_t parent, int32_t child)
{
	struct rec *r = priv;
	uint32_t from = rec_pid(r, parent);

	dmn_fork(r->d, from, (uint32_t)child);
	dmn_exit(r->d, from);
	r->in_child = true;
	dmn_get_stats(r->d, &r->at_fork);
	if (r->totals_fd >= 0) /* an execve of this child's is a child's */
		snprintf(r->exec_arg, sizeof(r->exec_arg), "%d:child", r->totals_fd);
	/* The saved streams are the parent's. */
	if (r->save >= 0)
		close(r->save);
	if (r->save_maps >= 0)
		close(r->save_maps);
	r->save = r->save_maps = -1;
	r->progress = false;
}

/* The process is gone: its maps go once its last records are merged (hosted_store). */
static void ev_exit(void *priv, int32_t pid, int exit_code, int exit_signal)
{
	struct rec *r = priv;

	(void)exit_code;
	(void)exit_signal;
	r->exit_pid = rec_pid(r, pid);
	r->exit_seen = true;
}

static int sink(void *priv, const void *recs, size_t len)
{
	struct rec *r = priv;
	long n;

	if (r->save >= 0 && write(r->save, recs, len) != (ssize_t)len)
		r->sink_err = -EIO;
	n = dmn_feed(r->d, recs, len, true);
	return n < 0 ? (int)n : 0;
}

static void flush_db(struct rec *r, bool final)
{
	uint8_t st[MACH_MAX_CPUS * sizeof(struct vs_rec_stats)];
	int ret;

	ret = mach_sampler_flush(r->s);
	if (ret && !r->sink_err)
		r->sink_err = ret;
	ret = mach_sampler_stats_record(r->s, st, sizeof(st));
	if (ret > 0 && final && r->save >= 0 && write(r->save, st, (size_t)ret) != ret)
		r->sink_err = -EIO;
	if (ret > 0)
		dmn_feed(r->d, st, (size_t)ret, true);
	ret = dmn_flush(r->d);
	if (ret) {
		progress_clear(r);
		fprintf(stderr, "axprof record: cannot store the profiles%s: %s\n",
			final ? "" : " (will retry)", dmn_errmsg(r->d));
	}
	if (final)
		r->store_err = ret;
	r->last_flush = now();
}

static void tick(void *priv)
{
	struct rec *r = priv;

	progress(r, mach_insns(r->m), mach_sampler_vs_stats(r->s)->samples);
	if (r->o.flush_interval && now() - r->last_flush >= r->o.flush_interval)
		flush_db(r, false);
}

/* The sampler noticed it is a forked child's: what was recorded so far is the parent's. */
static void on_fork(void *priv, uint32_t pid)
{
	struct rec *r = priv;

	dmn_discard(r->d);
	r->pid0 = pid;
	r->forked = true;
}

/* Open --save-records FILE and FILE.maps, write FILE.kallsyms. 0, or 1 after a message. */
static int open_saves(struct rec *r)
{
	char mp[PATH_MAX + 12];
	FILE *f;

	if (!r->o.save)
		return 0;
	/* the [kernel] pseudo-image's symbols (machine/mach_kern.h), for axprofd --kallsyms */
	snprintf(mp, sizeof(mp), "%s.kallsyms", r->o.save);
	f = fopen(mp, "w");
	if (!f || mach_kern_kallsyms(f) || fclose(f)) {
		fprintf(stderr, "axprof record: cannot write %s: %s\n", mp, strerror(errno));
		return 1;
	}
	snprintf(mp, sizeof(mp), "%s.maps", r->o.save);
	r->save = open(r->o.save, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
	r->save_maps = open(mp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
	if (r->save < 0 || r->save_maps < 0) {
		fprintf(stderr, "axprof record: cannot write %s: %s\n",
			r->save >= 0 ? mp : r->o.save, strerror(errno));
		return 1;
	}
	return 0;
}

static void ev_leave(void *priv, int32_t pid);

/* Create the machine (EV5 or EV6 timing), route its events here and load the program. 0, or the
 * exit status after a message. */
static int hosted_load(struct rec *r, char **argv)
{
	const char *cpu = r->o.cpu ? r->o.cpu : "ev5";
	struct mach_opts mo = {
		.sysroot = r->o.sysroot,
		.confine = r->o.confine,
		.cpu = cpu,
		.prog = argv[0],
		.cpus = r->o.cpus,
		.coh_c2c = r->o.coh_c2c,
		.coh_inval = r->o.coh_inval,
		.trace_syscalls = r->o.trace_syscalls,
		.pid_table_fd = r->o.pid_table_fd,
		.exec_cmd = r->totals_fd >= 0 ? r->exec_cmd : NULL,
	};
	struct mach_events ev = { .exec = ev_exec,
				  .mmap = ev_mmap,
				  .munmap = ev_munmap,
				  .fork = ev_fork,
				  .exit = ev_exit,
				  .leave = ev_leave,
				  .priv = r };
	struct mach_result res;
	struct mach_load_info li;
	struct ax_error err;
	const char *prog;
	int ret;

	mo.truth = r->o.truth != NULL;
	mo.host_signals_kept = r->stop_kept;
	ret = mach_new(&r->m, &mo);
	if (ret) {
		fprintf(stderr, "axprof record: cannot create the hosted machine (%s model): %s\n",
			cpu, strerror(-ret));
		return 1;
	}
	stop_mach = r->m;
	if (stop_sig)
		mach_interrupt(r->m); /* a signal before the machine existed */
	mach_get_result(r->m, &res);
	r->pid0 = (uint32_t)res.pid;
	r->text_lo = UINT64_MAX;
	if (open_saves(r))
		return 1;
	mach_set_events(r->m, &ev);
	prog = argv[0];
	if (r->o.argv0)
		argv[0] = (char *)r->o.argv0; /* the file stays `prog` */
	ret = mach_load(r->m, prog, argv, environ, &li, &err);
	if (ret) {
		fprintf(stderr, "axprof record: %s\n", err.msg);
		return ret == -ENOENT ? 127 : 1;
	}
	return 0;
}

/* Plug the sampler into the machine's PMU. 0, or 1 after a message. */
static int hosted_sampler(struct rec *r)
{
	const char *cpu = r->o.cpu ? r->o.cpu : "ev5";
	struct mach_sampler_opts so = { 0 };
	int ret;

	so.cfg = r->o.cfg;
	so.sink = sink;
	so.sink_priv = r;
	so.tick = tick;
	so.tick_priv = r;
	so.on_fork = on_fork;
	so.fork_priv = r;
	so.stacks = r->o.callgraph;
	if ((r->o.value_truth || r->o.proc_truth || r->o.addr_truth) && r->text_lo < r->text_hi) {
		so.truth_lo = r->text_lo;
		so.truth_hi = r->text_hi;
		so.truth = (r->o.value_truth ? MACH_TRUTH_VALUES : 0) |
			   (r->o.proc_truth ? MACH_TRUTH_PROCS : 0) |
			   (r->o.addr_truth ? MACH_TRUTH_ADDRS : 0);
	}
	ret = mach_sampler_new(&r->s, r->m, &so);
	if (ret == -EOPNOTSUPP && (so.cfg.events & (1u << VS_EV_REPLAYS))) {
		/* HRM 21264 §2.11: replay traps are the out-of-order machine's; the 21164 has none */
		fprintf(stderr,
			"axprof record: cannot sample replays: the %s has no replay traps (drop "
			"replays from --event, or record on a 21264 model)\n",
			cpu);
		return 1;
	}
	if (ret == -EOPNOTSUPP && (so.cfg.events & (1u << VS_EV_USER6 | 1u << VS_EV_USER7))) {
		fprintf(stderr, "axprof record: cannot sample inval or interv: coherence events "
				"need --cpus 2 or more\n");
		return 1;
	}
	if (ret) {
		fprintf(stderr, "axprof record: cannot start the sampler: %s\n",
			ret == -EOPNOTSUPP ? "an event the CPU model does not count" :
					     strerror(-ret));
		return 1;
	}
	return 0;
}

/* The last store; the saved streams closed (their errors count as store errors). */
static void hosted_store(struct rec *r)
{
	flush_db(r, true);
	if (r->exit_seen)
		dmn_exit(r->d, r->exit_pid);
	if (r->save >= 0 && close(r->save) && !r->store_err)
		r->store_err = -EIO;
	if (r->save_maps >= 0 && close(r->save_maps) && !r->store_err)
		r->store_err = -EIO;
	r->save = r->save_maps = -1;
}

/* Write --truth and --value-truth; a failure counts as a store error. */
static void hosted_truth(struct rec *r)
{
	int ret;

	if (r->o.truth) {
		ret = mach_truth_write(r->m, r->o.truth);
		if (ret) {
			fprintf(stderr, "axprof record: cannot write %s: %s\n", r->o.truth,
				strerror(-ret));
			r->store_err = ret;
		}
	}
	if (r->o.addr_truth) {
		ret = mach_sampler_addr_truth_write(r->s, r->o.addr_truth);
		if (ret) {
			fprintf(stderr, "axprof record: cannot write %s: %s\n", r->o.addr_truth,
				strerror(-ret));
			r->store_err = ret;
		}
	}
	if (r->o.proc_truth) {
		ret = mach_sampler_proc_truth_write(r->s, r->o.proc_truth);
		if (ret) {
			fprintf(stderr, "axprof record: cannot write %s: %s\n", r->o.proc_truth,
				strerror(-ret));
			r->store_err = ret;
		}
	}
	if (r->o.value_truth) {
		ret = mach_sampler_truth_write(r->s, r->o.value_truth);
		if (ret) {
			fprintf(stderr, "axprof record: cannot write %s: %s\n", r->o.value_truth,
				strerror(-ret));
			r->store_err = ret;
		}
	}
}

static void hosted_summary(struct rec *r, double seconds)
{
	struct summary sm = { .hosted = true, .seconds = seconds };
	struct mach_sampler_stats mss;
	struct mach_result res;
	struct dmn_stats ds;

	mach_get_result(r->m, &res);
	mach_sampler_get_stats(r->s, &mss);
	dmn_get_stats(r->d, &ds);
	sm.insns = res.insns;
	sm.interp_insns = mss.interp_insns;
	sm.cycles = res.cycles;
	sm.epoch = ds.last_epoch;
	sm.procs = 1;
	if (r->totals) {
		const struct proc_totals *t = r->totals;
		const uint64_t *src = (const uint64_t *)&t->vs;
		uint64_t *dst = (uint64_t *)&ds.vs;

		sm.procs += __atomic_load_n(&t->procs, __ATOMIC_ACQUIRE);
		sm.insns += t->insns;
		sm.interp_insns += t->interp_insns;
		sm.cycles += t->cycles;
		for (size_t k = 0; k < VS_REC_SLOTS; k++)
			ds.records[k] += t->records[k];
		ds.samples += t->samples;
		ds.samples_unknown += t->samples_unknown;
		ds.damaged += t->damaged;
		for (size_t k = 0; k < sizeof(ds.vs) / sizeof(uint64_t); k++)
			dst[k] += src[k];
	}
	summary_threads(&sm, r->d, r->totals);
	print_summary(r, &sm, &ds);
	if (r->o.callgraph && !r->o.quiet && !r->o.json)
		fprintf(stderr,
			"axprof record: %" PRIu64 " call stacks (%" PRIu64
			" deeper than %d frames, "
			"truncated; deepest %" PRIu64 "), %" PRIu64 " calls and %" PRIu64
			" rets executed (%" PRIu64 " rets to no frame)\n",
			mss.stacks, mss.stacks_truncated, VS_STACK_MAX, mss.stack_max_depth,
			mss.calls, mss.rets, mss.rets_unmatched);
}

static void add(uint64_t *to, uint64_t v)
{
	__atomic_fetch_add(to, v, __ATOMIC_RELAXED);
}

/* A forked child of the program ends (proc), or a process is about to execve (!proc): add what
 * it recorded (and only that: the daemon's counters minus those it inherited at the fork) to
 * the totals the first process's summary reads. */
static void add_totals(struct rec *r, bool proc)
{
	struct proc_totals *t = r->totals;
	const struct dmn_thread *thr;
	struct mach_sampler_stats mss;
	struct mach_result res;
	struct dmn_stats ds;
	size_t n;
	const uint64_t *src;
	uint64_t *dst;

	if (!t || r->left)
		return; /* r->left: an execve failed after the leave event counted us */
	mach_get_result(r->m, &res);
	mach_sampler_get_stats(r->s, &mss);
	dmn_get_stats(r->d, &ds);
	add(&t->insns, res.insns);
	add(&t->interp_insns, mss.interp_insns);
	add(&t->cycles, res.cycles);
	for (size_t k = 0; k < VS_REC_SLOTS; k++)
		add(&t->records[k], ds.records[k] - r->at_fork.records[k]);
	add(&t->samples, ds.samples - r->at_fork.samples);
	add(&t->samples_unknown, ds.samples_unknown - r->at_fork.samples_unknown);
	add(&t->damaged, ds.damaged - r->at_fork.damaged);
	/* The child's STATS record replaced the parent's: ds.vs is its own (a fresh vs_cpu); the
	 * first process's (leaving) is its own too. */
	if (r->forked || !r->in_child) {
		src = (const uint64_t *)&ds.vs;
		dst = (uint64_t *)&t->vs;
		for (size_t k = 0; k < sizeof(ds.vs) / sizeof(uint64_t); k++)
			add(&dst[k], src[k]);
	}
	thr = dmn_threads(r->d, &n);
	for (size_t i = 0; i < n; i++) {
		uint32_t k = __atomic_fetch_add(&t->nthr, 1, __ATOMIC_ACQ_REL);

		if (k < REC_THREADS)
			t->thr[k] = thr[i];
	}
	if (proc)
		__atomic_fetch_add(&t->procs, 1, __ATOMIC_RELEASE);
	else
		r->left = true;
}

static void child_totals(struct rec *r)
{
	add_totals(r, true);
}

/*
 * The program is about to execve another (mach.h leave event): the new one is recorded by a new
 * `axprof record` in this process (mach_opts.exec_cmd), so store what this image recorded and
 * add its counts to the totals now, and keep the totals page open over the execve. If the
 * execve fails, this process's later counts are stored but not counted in the summary.
 */
static void ev_leave(void *priv, int32_t pid)
{
	struct rec *r = priv;

	(void)pid;
	progress_clear(r);
	if (r->s && (!r->in_child || r->forked))
		hosted_store(r);
	if (r->s)
		add_totals(r, false);
	if (r->totals_fd >= 0)
		fcntl(r->totals_fd, F_SETFD, 0);
}

/* The program's own end: its output flushed (checked in the recording process), its death
 * signal re-raised. */
static int hosted_exit(struct rec *r, int status)
{
	if ((fflush(stdout) || ferror(stdout)) && !r->in_child)
		fprintf(stderr, "axprof record: error writing standard output\n");
	mach_die(r->m);
	return status;
}

/* Options not passed on to an execve'd program's recorder: those the machine adds, ours (the
 * database, made absolute, the totals) and "--" (*i moves past an option's argument). */
static bool is_machine_opt(const char *a, int *i)
{
	static const char *const with_arg[] = { "--sysroot", "--confine",     "--pid-table",
						"--argv0",   "--exec-totals", "--db",
						"-d" };

	if (!strcmp(a, "--") || !strcmp(a, "--trace-syscalls"))
		return true;
	for (size_t k = 0; k < sizeof(with_arg) / sizeof(with_arg[0]); k++) {
		size_t n = strlen(with_arg[k]);

		if (strncmp(a, with_arg[k], n))
			continue;
		if (!a[n]) {
			(*i)++; /* "--opt ARG" */
			return true;
		}
		if (a[n] == '=' || (n == 2 && a[n])) /* "--opt=ARG", "-dARG" */
			return true;
	}
	return false;
}

/* The run's totals page: a new one, or (--exec-totals) the one this execve'd program belongs
 * to; and the command an execve re-executes. 0, or 1 after a message. */
static int open_totals(struct rec *r)
{
	char abs[PATH_MAX];
	int fd = r->o.totals_fd;
	size_t k = 0;

	if (!fd) {
		int tmp = memfd_create("axprof-totals", MFD_CLOEXEC);

		fd = tmp < 0 ? -1 : fcntl(tmp, F_DUPFD_CLOEXEC, 3);
		if (tmp >= 0)
			close(tmp);
		if (fd >= 0 && ftruncate(fd, sizeof(*r->totals))) {
			close(fd);
			fd = -1;
		}
		if (fd < 0)
			return 0; /* the summary then counts the first process only */
	} else if (fcntl(fd, F_SETFD, FD_CLOEXEC)) {
		fprintf(stderr, "axprof record: --exec-totals %d: %s\n", fd, strerror(errno));
		return 1;
	}
	r->totals = mmap(NULL, sizeof(*r->totals), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (r->totals == MAP_FAILED) {
		r->totals = NULL;
		close(fd);
		if (!r->o.totals_fd)
			return 0;
		fprintf(stderr, "axprof record: --exec-totals: cannot map the totals page\n");
		return 1;
	}
	r->totals_fd = fd;
	if (!realpath(r->o.db_dir, abs)) /* the new program may run in another directory */
		snprintf(abs, sizeof(abs), "%s", r->o.db_dir);
	snprintf(r->exec_arg, sizeof(r->exec_arg), "%d:%s", fd, r->o.exec_child ? "child" : "root");
	r->exec_cmd[k++] = (char *)"record";
	for (int i = 0; i < r->o.nopts && k + 6 < 64; i++) {
		if (is_machine_opt(r->o.argv[i], &i))
			continue;
		r->exec_cmd[k++] = r->o.argv[i];
	}
	snprintf(r->exec_db, sizeof(r->exec_db), "%s", abs);
	r->exec_cmd[k++] = (char *)"--db";
	r->exec_cmd[k++] = r->exec_db;
	r->exec_cmd[k++] = (char *)"--exec-totals";
	r->exec_cmd[k++] = r->exec_arg;
	r->exec_cmd[k] = NULL;
	return 0;
}

static int record_hosted(struct rec *r, char **argv)
{
	double seconds;
	int status;

	status = open_totals(r);
	if (!status)
		status = hosted_load(r, argv);
	if (!status)
		status = hosted_sampler(r);
	if (status)
		return status;
	r->t0 = r->last_progress = r->last_flush = now();
	status = mach_run(r->m);
	seconds = now() - r->t0;
	progress_clear(r);
	if (r->in_child && !r->forked) {
		child_totals(r); /* a child that ended before its first interrupt */
		return hosted_exit(r, status);
	}
	hosted_store(r);
	if (r->forked) {
		child_totals(r);
		return hosted_exit(r, status);
	}
	if (!r->o.quiet)
		hosted_summary(r, seconds);
	hosted_truth(r);
	status = hosted_exit(r, status);
	if ((r->sink_err || r->store_err) && !status)
		status = 1;
	return status;
}

/* ---- the kernel driver ---- */

static volatile sig_atomic_t got_child;

static void on_sigchld(int sig)
{
	(void)sig;
	got_child = 1;
}

/* Stop the program (the recorder was interrupted, or reading the driver failed): SIGTERM,
 * SIGKILL if it is still there after 2 s. */
static void stop_child(pid_t child, int *wstatus)
{
	kill(child, SIGTERM);
	for (int i = 0; i < 20; i++) {
		struct timespec ts = { 0, 100 * 1000 * 1000 };

		if (waitpid(child, wstatus, WNOHANG) == child)
			return;
		nanosleep(&ts, NULL);
	}
	kill(child, SIGKILL);
	while (waitpid(child, wstatus, 0) < 0 && errno == EINTR)
		;
}

static int record_kernel(struct rec *r, char **argv)
{
	struct dmn_dev dev;
	struct summary sm = { .hosted = false };
	struct dmn_stats ds;
	struct sigaction sa = { 0 };
	int pipefd[2], ret, wstatus = 0, status;
	pid_t child;
	bool alive = true;
	char c;

	ret = dmn_dev_open(&dev, r->o.device);
	if (ret) {
		fprintf(stderr, "axprof record: %s: %s\n", r->o.device, strerror(-ret));
		return 1;
	}
	ret = dmn_dev_configure(&dev, &r->o.cfg);
	if (!ret)
		ret = dmn_dev_start(&dev);
	if (ret) {
		fprintf(stderr, "axprof record: %s: cannot %s sampling: %s\n", r->o.device,
			ret == -EBUSY ? "start (is axprofd running?)" : "configure or start",
			strerror(-ret));
		dmn_dev_close(&dev);
		return 1;
	}
	sa.sa_handler = on_sigchld;
	sigaction(SIGCHLD, &sa, NULL);
	if (pipe2(pipefd, O_CLOEXEC)) {
		ret = -errno;
		goto out_stop;
	}
	r->t0 = r->last_progress = r->last_flush = now();
	child = fork();
	if (child < 0) {
		ret = -errno;
		goto out_stop;
	}
	if (child == 0) {
		close(pipefd[0]);
		close(dev.fd);
		execvp(argv[0], argv);
		c = (char)errno;
		if (write(pipefd[1], &c, 1) < 0)
			_exit(127);
		_exit(127);
	}
	close(pipefd[1]);
	/* EOF on the pipe: the exec happened (or failed with a byte). Then its maps are real. */
	if (read(pipefd[0], &c, 1) == 1)
		fprintf(stderr, "axprof record: cannot run %s: %s\n", argv[0], strerror(c));
	close(pipefd[0]);
	r->pid0 = (uint32_t)child;
	dmn_proc_refresh(r->d, r->pid0);

	while (alive && !stop_sig) {
		long n = dmn_dev_pump(&dev, r->d, 100);

		if (n < 0 && n != -EAGAIN && n != -EINTR) {
			fprintf(stderr, "axprof record: reading %s: %s\n", r->o.device,
				strerror((int)-n));
			break;
		}
		if (n == 0) {
			/* Sampling was stopped by someone else: keep waiting for the child. */
			struct timespec ts = { 0, 100 * 1000 * 1000 };

			nanosleep(&ts, NULL);
		}
		if (waitpid(child, &wstatus, WNOHANG) == child) {
			alive = false;
			break;
		}
		dmn_proc_refresh(r->d, r->pid0);
		dmn_get_stats(r->d, &ds);
		progress(r, 0, ds.samples);
		if (r->o.flush_interval && now() - r->last_flush >= r->o.flush_interval) {
			dmn_dev_flush(&dev);
			if (dmn_flush(r->d))
				fprintf(stderr, "axprof record: cannot store the profiles: %s\n",
					dmn_errmsg(r->d));
			r->last_flush = now();
		}
	}
	if (alive)
		stop_child(child, &wstatus);
	sm.seconds = now() - r->t0;
	progress_clear(r);
	ret = 0;
out_stop:
	dmn_dev_stop(&dev);
	dmn_dev_flush(&dev);
	for (;;) {
		long n = dmn_dev_pump(&dev, r->d, 1000);

		if (n == 0 || (n < 0 && n != -EINTR))
			break;
	}
	dmn_dev_stats(&dev, r->d);
	dmn_dev_close(&dev);
	if (dmn_flush(r->d)) {
		fprintf(stderr, "axprof record: cannot store the profiles: %s\n", dmn_errmsg(r->d));
		if (!ret)
			ret = -EIO;
	}
	if (ret && ret != -EIO) {
		fprintf(stderr, "axprof record: cannot run %s: %s\n", argv[0], strerror(-ret));
		return 1;
	}
	dmn_get_stats(r->d, &ds);
	sm.epoch = ds.last_epoch;
	if (!r->o.quiet)
		print_summary(r, &sm, &ds);
	if (stop_sig) {
		status = ret ? 1 : 128 + stop_sig; /* cmd_record dies by it */
	} else if (WIFSIGNALED(wstatus)) {
		signal(WTERMSIG(wstatus), SIG_DFL);
		raise(WTERMSIG(wstatus));
		status = 128 + WTERMSIG(wstatus);
	} else {
		status = WEXITSTATUS(wstatus);
	}
	return ret && !status ? 1 : status;
}

/*
 * Can PROG be run? Checked before the database is made, so that a mistyped name leaves
 * nothing behind. The kernel path looks it up in $PATH (execvp); the hosted machine loads the
 * file as named. false with errno set when not.
 */
static bool prog_found(const char *prog, bool kernel)
{
	const char *path = getenv("PATH");
	char buf[PATH_MAX];

	if (!kernel || strchr(prog, '/'))
		return !access(prog, F_OK);
	for (const char *p = path && *path ? path : "/bin:/usr/bin"; *p;) {
		size_t n = strcspn(p, ":");

		if (snprintf(buf, sizeof(buf), "%.*s%s%s", (int)n, p, n ? "/" : "", prog) <
			    (int)sizeof(buf) &&
		    !access(buf, X_OK))
			return true;
		p += n + (p[n] == ':');
	}
	errno = ENOENT;
	return false;
}

/*
 * Hosted defaults for vreplay (issue 13 item 4, issue 15 item 7):
 *  - on a model with replay traps (the 21264) REPLAYS are sampled beside CYCLES unless --event
 *    says otherwise: "hardware counters say where the trap occurred" and vreplay's replays column
 *    combines them with the interpreter's conflicts (value-sampling slides 18-19); the
 *    interpretations still start from CYCLES samples only (interp_events is untouched);
 *  - one sample in 8 is interpreted unless --share says otherwise. The slides' 1/129 (slide 21)
 *    keeps a real kernel's overhead near 5%; on the hosted machine an interpretation costs about
 *    what executing its 128 instructions does, and at 1/129 a one-second program gives about 20
 *    interpretations of a conflicting pair (vreplay warns: rates +-15 points); at 1/8, about 200.
 *    Our choice [U], measured on workloads/storeload (tools/vreplay/check-ci.sh).
 */
#define HOSTED_VREPLAY_SHARE_DEN 8

/*
 * Hosted defaults for vprof (issue 18 item 3): the slides' 4 instructions on one sample in 2
 * (slide 21) unless --share or --budget says otherwise. The core's default (8 on one in 32,
 * kmod/sampler/vs_abi.c) is for a real kernel, where interpreting 4 instructions cost ~7,900
 * guest instructions; here an interpretation costs about what executing its instructions does,
 * and the slides' rate interprets 8 times the instructions.
 */
#define HOSTED_VPROF_SHARE_DEN 2
#define HOSTED_VPROF_BUDGET 4

static void hosted_defaults(struct rec_opts *o)
{
	const struct mach_cpu_ops *ops = mach_cpu_find(o->cpu ? o->cpu : "ev5");

	if (o->cfg.mode == VS_MODE_VPROF) {
		if (!o->share_given) {
			o->cfg.interp_num = 1;
			o->cfg.interp_den = HOSTED_VPROF_SHARE_DEN;
		}
		if (!o->budget_given)
			o->cfg.interp_budget = HOSTED_VPROF_BUDGET;
		return;
	}
	if (o->cfg.mode != VS_MODE_VREPLAY)
		return;
	if (!o->events_given && ops && (mach_cpu_events(ops) & (1u << MACH_EV_REPLAY)))
		o->cfg.events |= 1u << VS_EV_REPLAYS;
	if (!o->share_given) {
		o->cfg.interp_num = 1;
		o->cfg.interp_den = HOSTED_VREPLAY_SHARE_DEN;
	}
}

/* The hosted machine's system calls as kallsyms text (malloc'd), or NULL. */
static char *hosted_kallsyms(void)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	int err;

	if (!f)
		return NULL;
	err = mach_kern_kallsyms(f);
	if (fclose(f) || err) {
		free(text);
		return NULL;
	}
	return text;
}

/* cmd_record()'s work; owned[6]: the absolute paths it builds, freed by cmd_record(). */
static int record_cmd(int argc, char **argv, char **owned)
{
	struct dmn_opts dopts = { 0 };
	struct ax_error perr;
	struct rec r = { .save = -1, .save_maps = -1, .totals_fd = -1, .o.owned = owned };
	struct stat st;
	char *ksyms = NULL;
	bool kernel;
	int i, status;

	i = parse_opts(argc, argv, &r.o);
	if (i == -2) {
		usage(stdout);
		return 0;
	}
	if (i < 0)
		return 2;
	if (r.o.totals_fd) {
		/* An execve'd program of a run: the first recorder writes the truth and the saved
		 * streams; only the first process (root) prints the summary. */
		r.o.truth = r.o.value_truth = r.o.proc_truth = r.o.save = NULL;
		r.o.quiet = r.o.quiet || r.o.exec_child;
		r.in_child = r.forked = r.o.exec_child;
	}
	kernel = !r.o.hosted && !stat(r.o.device, &st) && S_ISCHR(st.st_mode);
	if (!kernel)
		hosted_defaults(&r.o);
	if (!kernel && (r.o.cfg.flags & VS_CFG_KERNEL_VALUES)) {
		fprintf(stderr,
			"axprof record: --kernel-values needs the kernel driver (%s): the hosted "
			"machine runs no kernel code to interpret (no database made)\n",
			r.o.device);
		return 2;
	}
	if (kernel && r.o.callgraph) {
		fprintf(stderr,
			"axprof record: -g: call stacks are not available with the kernel driver (%s "
			"samples a pc only; it keeps no call stack and does not unwind): record on the "
			"hosted machine with --hosted -g\n",
			r.o.device);
		return 2;
	}
	if (kernel &&
	    (r.o.truth || r.o.value_truth || r.o.proc_truth || r.o.addr_truth || r.o.save)) {
		fprintf(stderr,
			"axprof record: --truth, --value-truth, --proc-truth, --addr-truth and "
			"--save-records need the hosted machine (--hosted)\n");
		return 2;
	}
	if (r.o.cfg.mode == VS_MODE_PROFILEME) {
		/* [PM §4] instruction sampling: a model with ProfileMe hardware (the EV6 machine) */
		const char *cpu = r.o.cpu ? r.o.cpu : "ev5";
		const struct mach_cpu_ops *ops = mach_cpu_find(cpu);

		if (kernel) {
			fprintf(stderr,
				"axprof record: --mode profileme needs the hosted machine "
				"(--hosted --cpu ev6): the driver does not program the EV67's "
				"ProfileMe registers (no database made)\n");
			return 2;
		}
		if (!ops || !ops->pme_config) {
			fprintf(stderr,
				"axprof record: --mode profileme needs --cpu ev6: the %s model has no "
				"ProfileMe hardware (the 21164 only counts events; no database made)\n",
				cpu);
			return 2;
		}
	}
	if (!prog_found(argv[i], kernel)) {
		fprintf(stderr, "axprof record: cannot run %s: %s (no database made)\n", argv[i],
			strerror(errno));
		return 127;
	}
	dopts.db_dir = r.o.db_dir;
	dopts.flags = kernel ? DMN_PROC_MAPS | DMN_KERNEL : 0; /* the running kernel's symbols */
	dopts.cfg = &r.o.cfg; /* the database keeps the periods */
	if (!kernel) { /* system-call time: the pseudo-image [kernel] (machine/mach_kern.h) */
		ksyms = hosted_kallsyms();
		if (!ksyms) {
			fprintf(stderr, "axprof record: out of memory\n");
			return 1;
		}
		dopts.kallsyms_text = ksyms;
		dopts.kernel_name = MACH_KERN_IMAGE;
	}
	if (dmn_new(&r.d, &dopts, &perr)) {
		fprintf(stderr, "axprof record: cannot open the database: %s\n", perr.msg);
		free(ksyms);
		return 1;
	}
	free(ksyms);
	r.progress = isatty(STDERR_FILENO);
	r.stop_kept = catch_stop_signals();
	status = kernel ? record_kernel(&r, argv + i) : record_hosted(&r, argv + i);
	stop_mach = NULL; /* before it is freed */
	if (r.s)
		mach_sampler_free(r.s);
	if (r.m)
		mach_free(r.m);
	if (r.save >= 0)
		close(r.save);
	if (r.save_maps >= 0)
		close(r.save_maps);
	dmn_free(r.d);
	if (stop_sig && status != 1) /* 1: storing failed, which the status must say */
		status = die_by_stop_signal();
	return status;
}

int cmd_record(int argc, char **argv)
{
	char *owned[6] = { NULL };
	int ret = record_cmd(argc, argv, owned);

	for (unsigned int i = 0; i < 6; i++)
		free(owned[i]);
	return ret;
}
