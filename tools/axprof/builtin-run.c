/* tools/axprof/builtin-run.c - `axprof run`: run an Alpha Linux program on the hosted machine. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "axprof/builtin.h"
#include "mach.h"
#include "ax_json.h"
#include "tl_opts.h"
#include "tl_pcname.h"
#include "tl_sym.h"

extern char **environ;

static void usage(FILE *f)
{
	fprintf(f,
		"usage: axprof run [OPTIONS] [--] PROG [ARGS...]\n\n"
		"Run the Alpha Linux ELF program PROG (static or dynamic) on axprof's hosted Alpha\n"
		"machine. Standard input and output, arguments, environment and exit status pass\n"
		"through; a program killed by a signal kills axprof with the same signal.\n\n"
		"Options:\n"
		"  --cpu none|ev5|ev6 functional only (default), or timed by the EV5 (21164, in order)\n"
		"                     or EV6 (21264, out of order) model\n"
		"  --stats            print instructions, time, MIPS (and cycles, CPI, events, and the\n"
		"                     PCs with most CYCLES samples, named sym+0xoff) to stderr, per process\n"
		"  --truth FILE       write the ground-truth file (needs --cpu ev5 or ev6)\n"
		"  --samples FILE     write the built-in PMU handler's CYCLES samples per PC (needs --cpu ev5 or ev6)\n"
		"  --sysroot DIR      where the interpreter and libraries live (default\n"
		"                     /usr/alpha-linux-gnu); absolute paths the program opens are\n"
		"                     looked up there first, like qemu-alpha -L\n"
		"  --confine DIR      resolve every file name the program uses inside DIR (\"/\" is\n"
		"                     DIR; \"..\" and symbolic links cannot leave it; the sysroot is\n"
		"                     read-only) and refuse to execute anything but Alpha programs.\n"
		"                     Without it the program has all your rights, as under qemu-alpha\n"
		"  --max-insns N      stop after N instructions (exit status 0)\n"
		"  --cpus N           N virtual CPUs (1-8, default 1): threads bound to CPUs in\n"
		"                     turn, interleaved deterministically; each CPU its own\n"
		"                     timing model, caches kept coherent (MESI, mach_coh.h)\n"
		"  --quantum N        instructions a thread runs before the next one's turn\n"
		"                     (default 20000)\n" TL_COH_HELP
		"  --trace-syscalls   print every system call to stderr\n"
		"  --argv0 NAME       the program's argv[0] (default PROG)\n"
		"  --pid-table FD     the pid table of the run an execve'd program belongs to\n"
		"                     (the machine passes it; its pids stay the run's)\n"
		"  --json             at exit, a summary of the run as one JSON document on standard\n"
		"                     error (docs/axprof-json.7; standard output is the program's)\n"
		"  --help             this text\n\n"
		"Exit status: the program's; 127 if PROG does not exist, 1 if it cannot be loaded,\n"
		"2 for bad options.\n");
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static double cpu_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* The program's executable mappings, to name the top PCs of --stats and --json by symbol. */
static void on_mmap(void *priv, int32_t pid, const struct mach_map_event *map)
{
	(void)pid;
	tl_pcname_map(priv, map->start, map->len, map->off, map->path, map->prot & MACH_MAP_PROT_X);
}

static void on_munmap(void *priv, int32_t pid, uint64_t start, uint64_t len)
{
	(void)pid;
	tl_pcname_unmap(priv, start, len);
}

/* The last component of a path. */
static const char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');

	return s ? s + 1 : path;
}

/* A top PC as "sym+0xoff", or "IMAGE:0xADDR" (its ELF address) in an image without a symbol
 * there; false (the PC alone) outside every file mapping. */
static bool name_pc(void *priv, uint64_t pc, char *buf, size_t size)
{
	const char *image;
	uint64_t addr;

	if (tl_pcname_name(priv, pc, buf, size, &image, &addr))
		return true;
	if (!image)
		return false;
	snprintf(buf, size, "%s:0x%" PRIx64, base_name(image), addr);
	return true;
}

/* "top_pcs": the PCs with most of the built-in handler's CYCLES samples, named (timed runs). */
static void json_top_pcs(struct ax_json *j, const struct mach *m, struct tl_pcname *pcs)
{
	struct mach_pc_count top[MACH_TOP_PCS];
	uint64_t total;
	size_t n = mach_top_pcs(m, top, MACH_TOP_PCS, &total);

	ax_json_u64(j, "samples", total);
	ax_json_arr_open(j, "top_pcs");
	for (size_t k = 0; k < n; k++) {
		const char *image;
		char name[256];
		uint64_t addr;
		bool named = tl_pcname_name(pcs, top[k].pc, name, sizeof(name), &image, &addr);

		ax_json_obj_open(j, NULL);
		ax_json_hex(j, "pc", top[k].pc);
		ax_json_u64(j, "samples", top[k].samples);
		ax_json_num(j, "percent", 100.0 * (double)top[k].samples / (double)total, 2);
		if (image) {
			ax_json_str(j, "image", base_name(image));
			ax_json_hex(j, "address", addr);
		}
		if (named)
			tl_sym_json(j, "symbol", name);
		ax_json_obj_close(j);
	}
	ax_json_arr_close(j);
}

/* The run's summary as one JSON document on stderr (docs/axprof-json.7, "run"). */
static void json_summary(const struct mach *m, const char *prog, const char *cpu, double seconds,
			 double cpu_seconds, struct tl_pcname *pcs)
{
	struct mach_result r;
	struct ax_json j;

	mach_get_result(m, &r);
	ax_json_doc_open(&j, stderr, "run");
	ax_json_str(&j, "program", prog);
	ax_json_str(&j, "cpu", cpu);
	ax_json_u64(&j, "insns", r.insns);
	ax_json_i64(&j, "pid", r.pid);
	if (r.timed)
		ax_json_u64(&j, "cycles", r.cycles);
	ax_json_num(&j, "seconds", seconds, 3);
	ax_json_num(&j, "cpu_seconds", cpu_seconds, 3);
	ax_json_u64(&j, "syscalls", r.syscalls);
	ax_json_u64(&j, "signals", r.signals);
	ax_json_bool(&j, "max_insns_reached", r.stopped_at_max);
	if (r.exit_signal)
		ax_json_i64(&j, "exit_signal", r.exit_signal);
	else
		ax_json_i64(&j, "exit_code", r.exit_code);
	if (r.timed)
		json_top_pcs(&j, m, pcs);
	ax_json_doc_close(&j);
}

/* cmd_run()'s work; owned[2]: the absolute paths it built (tl_abs_path), freed by cmd_run(). */
static int run_cmd(int argc, char **argv, char **owned)
{
	static const struct option longopts[] = {
		{ "cpu", required_argument, NULL, 'c' },
		{ "stats", no_argument, NULL, 's' },
		{ "truth", required_argument, NULL, 't' },
		{ "samples", required_argument, NULL, 'S' },
		{ "sysroot", required_argument, NULL, 'r' },
		{ "confine", required_argument, NULL, 'C' },
		{ "max-insns", required_argument, NULL, 'm' },
		{ "trace-syscalls", no_argument, NULL, 'T' },
		{ "argv0", required_argument, NULL, 'a' },
		{ "json", no_argument, NULL, 'j' },
		{ "cpus", required_argument, NULL, 'P' },
		{ "quantum", required_argument, NULL, 'Q' },
		{ "c2c-latency", required_argument, NULL, TL_OPT_C2C },
		{ "inval-latency", required_argument, NULL, TL_OPT_INVAL },
		{ "pid-table", required_argument, NULL, 'I' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct mach_opts opts = { .cpu = "none" };
	struct tl_pcname pcs;
	struct mach_events ev = { .mmap = on_mmap, .munmap = on_munmap, .priv = &pcs };
	struct mach_load_info li;
	const char *truth = NULL, *samples = NULL, *prog, *argv0 = NULL;
	bool stats = false, json = false;
	struct mach *m;
	struct ax_error err;
	char *end;
	double t0, c0;
	int c, ret, status;
	pid_t pid0;

	optind = 1;
	while ((c = getopt_long(argc, argv, "+h", longopts, NULL)) != -1) {
		switch (c) {
		case 'c':
			if (strcmp(optarg, "none") && strcmp(optarg, "ev5") &&
			    strcmp(optarg, "ev6")) {
				fprintf(stderr,
					"axprof run: --cpu must be none, ev5 or ev6, not '%s'\n",
					optarg);
				return 2;
			}
			opts.cpu = optarg;
			break;
		case 's':
			stats = true;
			break;
		case 't':
			truth = optarg;
			break;
		case 'S':
			samples = optarg;
			break;
		case 'r':
			opts.sysroot = optarg;
			break;
		case 'C':
			opts.confine = optarg;
			break;
		case 'm':
			errno = 0;
			opts.max_insns = strtoull(optarg, &end, 0);
			/* strtoull takes "-1" as 2^64 - 1: a digit first */
			if (errno || *optarg < '0' || *optarg > '9' || *end) {
				fprintf(stderr,
					"axprof run: --max-insns needs a number of instructions (0 "
					"or more), not '%s'\n",
					optarg);
				return 2;
			}
			break;
		case 'T':
			opts.trace_syscalls = true;
			break;
		case 'a':
			argv0 = optarg;
			break;
		case 'j':
			json = true;
			break;
		case 'P':
			if (tl_parse_cpus("axprof run", optarg, MACH_MAX_CPUS, &opts.cpus))
				return 2;
			break;
		case 'Q':
			if (tl_parse_quantum("axprof run", optarg, &opts.quantum))
				return 2;
			break;
		case TL_OPT_C2C:
			if (tl_parse_coh_latency("axprof run", "--c2c-latency", optarg,
						 &opts.coh_c2c))
				return 2;
			break;
		case TL_OPT_INVAL:
			if (tl_parse_coh_latency("axprof run", "--inval-latency", optarg,
						 &opts.coh_inval))
				return 2;
			break;
		case 'I':
			errno = 0;
			opts.pid_table_fd = (int)strtol(optarg, &end, 10);
			if (errno || *optarg < '1' || *optarg > '9' || *end ||
			    opts.pid_table_fd < 3) {
				fprintf(stderr,
					"axprof run: --pid-table needs a file descriptor (3 or "
					"more), not '%s'\n",
					optarg);
				return 2;
			}
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
		fprintf(stderr, "axprof run: no program to run (see 'axprof run --help')\n");
		return 2;
	}
	if (tl_check_sysroot("axprof run", opts.sysroot) ||
	    tl_check_dir("axprof run", "--confine", opts.confine))
		return 2;
	if ((truth || samples) && !strcmp(opts.cpu, "none")) {
		fprintf(stderr, "axprof run: --%s needs --cpu ev5 or ev6\n",
			truth ? "truth" : "samples");
		return 2;
	}
	/* Written after the run: the program may chdir (tl_abs_path). */
	if (tl_abs_path("axprof run", &truth, &owned[0]) ||
	    tl_abs_path("axprof run", &samples, &owned[1]))
		return 1;
	prog = argv[optind];
	opts.prog = prog;
	opts.truth = truth != NULL;

	ret = mach_new(&m, &opts);
	if (ret) {
		if (opts.confine)
			fprintf(stderr,
				"axprof run: cannot create the machine (--confine %s): %s\n",
				opts.confine, strerror(-ret));
		else
			fprintf(stderr, "axprof run: cannot create the machine (%s model): %s\n",
				opts.cpu, strerror(-ret));
		return 1;
	}
	tl_pcname_init(&pcs);
	if (stats || json) {
		mach_set_events(m, &ev);
		mach_set_pc_namer(m, name_pc, &pcs);
	}
	if (argv0)
		argv[optind] = (char *)argv0; /* the file stays `prog` */
	ret = mach_load(m, prog, argv + optind, environ, &li, &err);
	if (ret) {
		fprintf(stderr, "axprof run: %s\n", err.msg);
		mach_free(m);
		tl_pcname_exit(&pcs);
		return ret == -ENOENT ? 127 : 1;
	}
	pid0 = getpid();
	t0 = now();
	c0 = cpu_now();
	status = mach_run(m);
	if (getpid() != pid0)
		c0 = 0; /* a forked child's CPU clock started at 0 at its fork */
	if (stats)
		mach_print_stats(m, stderr, now() - t0, cpu_now() - c0);
	if (json)
		json_summary(m, prog, opts.cpu, now() - t0, cpu_now() - c0, &pcs);
	/* The files are the program's: a forked child of it (a host fork of this process) ends
	 * here too, and must not overwrite them with its own. */
	if (getpid() != pid0)
		truth = samples = NULL;
	if (truth) {
		ret = mach_truth_write(m, truth);
		if (ret) {
			fprintf(stderr, "axprof run: cannot write %s: %s\n", truth, strerror(-ret));
			if (!status)
				status = 1;
		}
	}
	if (samples) {
		ret = mach_samples_write(m, samples);
		if (ret) {
			fprintf(stderr, "axprof run: cannot write %s: %s\n", samples,
				strerror(-ret));
			if (!status)
				status = 1;
		}
	}
	if (fflush(stdout) || ferror(stdout))
		fprintf(stderr, "axprof run: error writing standard output\n");
	mach_die(m);
	mach_free(m);
	tl_pcname_exit(&pcs);
	return status;
}

int cmd_run(int argc, char **argv)
{
	char *owned[2] = { NULL, NULL };
	int ret = run_cmd(argc, argv, owned);

	free(owned[0]);
	free(owned[1]);
	return ret;
}
