/* daemon/axprofd.c - axprofd: drain /dev/axprof into the profile database (DCPI's daemon). */
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
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "ax_json.h"
#include "dmn_dev.h"
#include "dmn_lib.h"
#include "dmn_opts.h"

/*
 * DCPI SOSP'97 §4.3: "The main daemon loop waits until the driver signals a full overflow
 * buffer; it then copies the buffer to user space and processes each entry ... Periodically, the
 * daemon extracts all samples from the driver data structures, updates disk-based profiles and
 * discards data structures associated with terminated processes ... A complete flush can also be
 * initiated by a user-level command." Here: poll/read the device; every --flush-interval
 * seconds, on SIGUSR1 (`axprof flush`) and on SIGTERM/SIGINT (then stopping), VS_IOC_FLUSH, read
 * everything, STATS, store to the database, forget exited processes.
 */

static volatile sig_atomic_t want_flush, want_stop;

static void on_signal(int sig)
{
	if (sig == SIGUSR1 || sig == SIGHUP)
		want_flush = 1;
	else
		want_stop = 1;
}

struct axd {
	const char *dir;
	const char *db; /* DIR as given (JSON) */
	const char *pidfile;
	char status[PATH_MAX + 16];
	const char *device;
	const char *maps; /* image-map events to apply first */
	const char *proc_root, *sysroot;
	const char *kallsyms, *modules, *vmlinux, *system_map, *kernel_notes;
	bool no_kernel;
	struct vs_config cfg;
	unsigned int flush_interval;
	bool foreground, once, json, proc_maps, pid_written;
	struct dmn *d;
	struct dmn_dev dev;
	uint64_t flushes;
};

static void usage(FILE *f)
{
	fprintf(f,
		"usage: axprofd -d DIR [-f] [--pid-file F] [--device PATH] [--mode MODE]\n"
		"               [--period [E=][prime:]LO-HI] [--event E[,E...]] [--share N/D] [--budget N]\n"
		"               [--hotlist-m M] [--seed N] [--flush-interval S] [--once]\n"
		"               [--no-proc-maps] [--vmlinux FILE] [--kallsyms FILE]\n"
		"               [--modules FILE] [--system-map FILE] [--kernel-notes FILE]\n"
		"               [--no-kernel] [--json]\n\n"
		"The axprof daemon: configures and starts the sampling driver (/dev/axprof), drains\n"
		"its records, attributes each sample to an executable image through the processes'\n"
		"/proc/PID/maps, and merges them into the profile database in DIR (DCPI's daemon).\n"
		"Profiles are stored every S seconds, on SIGUSR1 (`axprof flush`), and at SIGTERM or\n"
		"SIGINT, which also stop sampling. A PATH that is not a character device is read as a\n"
		"file of driver records (a fake device, for tests and for records saved elsewhere).\n\n"
		"Options:\n"
		"  -d, --db DIR          the profile database (created if missing)\n"
		"  -f, --foreground      do not detach\n"
		"  --pid-file F          write the pid here (default DIR/axprofd.pid); F.status gets\n"
		"                        the counters after every flush\n"
		"  --device PATH         the driver (default /dev/axprof)\n" DMN_SAMPLING_HELP
		"                        (the sampling options mean exactly what they mean to\n"
		"                        `axprof record`; their order does not matter)\n"
		"  --flush-interval S    seconds between stores (default 600)\n"
		"  --once                a fake device: exit at its end (after storing)\n"
		"  --no-proc-maps        do not read /proc/PID/maps\n"
		"  --maps FILE           image-map events to apply first (exec PID BIAS PATH, map,\n"
		"                        mmap, munmap, exit lines: see axprofd(8))\n"
		"  --proc-root DIR       read PID/maps files under DIR instead of /proc (maps saved\n"
		"                        on another machine, with --device FILE)\n"
		"  --sysroot DIR         look mapped files up under DIR first (e.g. the Alpha root\n"
		"                        file system /usr/alpha-linux-gnu)\n"
		"  --vmlinux FILE        the kernel's ELF file: kernel samples get its symbols and\n"
		"                        annotate its code; refused unless its build-id (or _stext)\n"
		"                        is the running kernel's\n"
		"  --kallsyms FILE       kernel symbols saved from /proc/kallsyms (default: the\n"
		"                        running kernel's, when --device is the driver)\n"
		"  --modules FILE        loaded modules saved from /proc/modules (same default)\n"
		"  --system-map FILE     the kernel's System.map (checked against kallsyms)\n"
		"  --kernel-notes FILE   /sys/kernel/notes saved from the kernel profiled (its\n"
		"                        build-id, to check --vmlinux)\n"
		"  --no-kernel           leave kernel samples unattributed (\"unknown\")\n"
		"  --json                at exit, print the counters as JSON on standard output\n"
		"  --help                this text\n\n"
		"Exit status: 0 after a clean stop, 1 on failure, 2 for bad options.\n");
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void write_status(struct axd *a)
{
	struct dmn_stats st;
	char tmp[PATH_MAX + 32];
	FILE *f;

	dmn_get_stats(a->d, &st);
	snprintf(tmp, sizeof(tmp), "%s.tmp", a->status);
	f = fopen(tmp, "we");
	if (!f)
		return;
	fprintf(f,
		"pid %d\nflushes %" PRIu64 "\nflush_errors %" PRIu64 "\nbytes %" PRIu64
		"\nsample_records %" PRIu64 "\nsamples %" PRIu64 "\nsamples_unknown %" PRIu64
		"\nobs_unknown %" PRIu64 "\ndamaged %" PRIu64 "\nepoch %u\nprocs %" PRIu64
		"\nimages %" PRIu64 "\nsamples_kernel %" PRIu64 "\nsamples_kernel_unknown %" PRIu64
		"\nkernel_images %" PRIu64 "\n",
		(int)getpid(), a->flushes, st.flush_errors, st.bytes, st.records[VS_REC_SAMPLE],
		st.samples, st.samples_unknown, st.obs_unknown, st.damaged, st.last_epoch, st.procs,
		st.images, st.samples_kernel, st.samples_kernel_unknown, st.kernel_images);
	if (fclose(f) == 0)
		rename(tmp, a->status);
	else
		unlink(tmp);
}

/* Read what the device has now, without waiting. */
static void drain_now(struct axd *a)
{
	for (int i = 0; i < 100000; i++) {
		long n = dmn_dev_pump(&a->dev, a->d, 0);

		if (n <= 0)
			break;
	}
}

static int do_flush(struct axd *a)
{
	int ret;

	dmn_dev_flush(&a->dev);
	drain_now(a);
	dmn_dev_stats(&a->dev, a->d);
	ret = dmn_flush(a->d);
	if (ret)
		fprintf(stderr, "axprofd: cannot store the profiles (will retry): %s\n",
			dmn_errmsg(a->d));
	else
		a->flushes++;
	dmn_reap(a->d);
	write_status(a);
	return ret;
}

static int write_pidfile(struct axd *a)
{
	char tmp[PATH_MAX + 32];
	FILE *f;

	snprintf(tmp, sizeof(tmp), "%s.tmp", a->pidfile);
	f = fopen(tmp, "we");
	if (!f)
		return -errno;
	fprintf(f, "%d\n", (int)getpid());
	if (fclose(f) || rename(tmp, a->pidfile)) {
		int e = -errno;

		unlink(tmp);
		return e;
	}
	a->pid_written = true;
	return 0;
}

/* Detach: the parent returns only when the child is ready (or failed), with its verdict. */
static int daemonize(void)
{
	int p[2];
	pid_t pid;
	char c = 1;

	if (pipe2(p, O_CLOEXEC))
		return -errno;
	pid = fork();
	if (pid < 0)
		return -errno;
	if (pid > 0) {
		close(p[1]);
		if (read(p[0], &c, 1) != 1)
			c = 1;
		_exit(c);
	}
	close(p[0]);
	setsid();
	if (freopen("/dev/null", "r", stdin) == NULL)
		return -errno;
	return p[1]; /* the caller writes its verdict here */
}

static void tell_parent(int fd, char verdict)
{
	if (fd >= 0) {
		if (write(fd, &verdict, 1) < 0)
			verdict = 1;
		close(fd);
	}
}

/* At exit, the counters as one document (docs/axprof-json.7, "axprofd"). */
static void print_json(const struct axd *a)
{
	static const char *const rec_name[VS_REC_SLOTS] = {
		[0] = "unknown", /* records of a type this daemon does not know */
		[VS_REC_SAMPLE] = "sample",
		[VS_REC_HOTLIST] = "hotlist",
		[VS_REC_LATENCY] = "latency",
		[VS_REC_CONFLICT] = "conflict",
		[VS_REC_VCOUNT] = "vcount",
		[VS_REC_STATS] = "stats",
		[VS_REC_PROFILEME] = "profileme",
		[VS_REC_PROC] = "proc",
		[VS_REC_ADDR] = "addr",
		[VS_REC_STACK] = "stack",
		[VS_REC_TASK] = "task",
	};
	struct dmn_stats st;
	struct ax_json j;

	dmn_get_stats(a->d, &st);
	ax_json_doc_open(&j, stdout, "axprofd");
	ax_json_str(&j, "database", a->db);
	ax_json_u64(&j, "epoch", st.last_epoch);
	ax_json_u64(&j, "flushes", a->flushes);
	ax_json_u64(&j, "flush_errors", st.flush_errors);
	ax_json_u64(&j, "bytes", st.bytes);
	ax_json_u64(&j, "sample_records", st.records[VS_REC_SAMPLE]);
	ax_json_obj_open(&j, "records_by_type");
	for (unsigned int t = 0; t < VS_REC_SLOTS; t++)
		if (rec_name[t])
			ax_json_u64(&j, rec_name[t], st.records[t]);
	ax_json_obj_close(&j);
	ax_json_u64(&j, "damaged", st.damaged);
	ax_json_u64(&j, "damaged_bytes", st.damaged_bytes);
	ax_json_u64(&j, "samples", st.samples);
	ax_json_u64(&j, "unknown_samples", st.samples_unknown);
	ax_json_u64(&j, "kernel_samples", st.samples_kernel);
	ax_json_u64(&j, "kernel_unknown_samples", st.samples_kernel_unknown);
	ax_json_u64(&j, "kernel_images", st.kernel_images);
	ax_json_str(&j, "kernel_note", dmn_kernel_note(a->d));
	ax_json_u64(&j, "unknown_observations", st.obs_unknown);
	ax_json_u64(&j, "stack_samples", st.stacks);
	ax_json_u64(&j, "unknown_stacks", st.stacks_unknown);
	ax_json_u64(&j, "unknown_stack_frames", st.stack_frames_unknown);
	ax_json_u64(&j, "stats_cpus", st.stats_cpus);
	ax_json_u64(&j, "sampler_samples", st.vs.samples);
	if (st.has_kvals) {
		ax_json_obj_open(&j, "kernel_values");
		for (unsigned int i = 0; i < DMN_KV_NR; i++)
			ax_json_u64(&j, dmn_kv_name[i], st.kvals[i]);
		ax_json_obj_close(&j);
	}
	ax_json_u64(&j, "threads_named", st.threads);
	ax_json_doc_close(&j);
}

static int parse(int argc, char **argv, struct axd *a)
{
	enum {
		O_PID = 256,
		O_DEV,
		O_FLUSH,
		O_ONCE,
		O_NOPROC,
		O_JSON,
		O_HELP,
		O_MAPS,
		O_PROCROOT,
		O_SYSROOT,
		O_KALLSYMS,
		O_MODULES,
		O_VMLINUX,
		O_SYSMAP,
		O_KNOTES,
		O_NOKERNEL,
	};
	static const struct option longopts[] = {
		{ "db", required_argument, NULL, 'd' },
		{ "foreground", no_argument, NULL, 'f' },
		{ "pid-file", required_argument, NULL, O_PID },
		{ "device", required_argument, NULL, O_DEV },
		DMN_SAMPLING_LONGOPTS,
		{ "flush-interval", required_argument, NULL, O_FLUSH },
		{ "once", no_argument, NULL, O_ONCE },
		{ "no-proc-maps", no_argument, NULL, O_NOPROC },
		{ "maps", required_argument, NULL, O_MAPS },
		{ "proc-root", required_argument, NULL, O_PROCROOT },
		{ "sysroot", required_argument, NULL, O_SYSROOT },
		{ "kallsyms", required_argument, NULL, O_KALLSYMS },
		{ "modules", required_argument, NULL, O_MODULES },
		{ "vmlinux", required_argument, NULL, O_VMLINUX },
		{ "system-map", required_argument, NULL, O_SYSMAP },
		{ "kernel-notes", required_argument, NULL, O_KNOTES },
		{ "no-kernel", no_argument, NULL, O_NOKERNEL },
		{ "json", no_argument, NULL, O_JSON },
		{ "help", no_argument, NULL, O_HELP },
		{ NULL, 0, NULL, 0 },
	};
	struct dmn_sampling smp = { 0 };
	struct ax_error err;
	char *end;
	unsigned long u;
	int c, ret;

	a->device = "/dev/axprof";
	a->flush_interval = 600;
	a->proc_maps = true;
	while ((c = getopt_long(argc, argv, "d:f", longopts, NULL)) != -1) {
		ret = dmn_sampling_opt(&smp, c, optarg, &err);
		if (ret < 0) {
			fprintf(stderr, "axprofd: %s\n", err.msg);
			return -1;
		}
		if (ret)
			continue;
		switch (c) {
		case 'd':
			a->dir = optarg;
			a->db = optarg;
			break;
		case 'f':
			a->foreground = true;
			break;
		case O_PID:
			a->pidfile = optarg;
			break;
		case O_DEV:
			a->device = optarg;
			break;
		case O_FLUSH:
			u = strtoul(optarg, &end, 10);
			if (end == optarg || *end || u > UINT32_MAX) {
				fprintf(stderr,
					"axprofd: --flush-interval needs seconds, not '%s'\n",
					optarg);
				return -1;
			}
			a->flush_interval = (unsigned int)u;
			break;
		case O_ONCE:
			a->once = true;
			break;
		case O_NOPROC:
			a->proc_maps = false;
			break;
		case O_MAPS:
			a->maps = optarg;
			break;
		case O_PROCROOT:
			a->proc_root = optarg;
			break;
		case O_SYSROOT:
			a->sysroot = optarg;
			break;
		case O_KALLSYMS:
			a->kallsyms = optarg;
			break;
		case O_MODULES:
			a->modules = optarg;
			break;
		case O_VMLINUX:
			a->vmlinux = optarg;
			break;
		case O_SYSMAP:
			a->system_map = optarg;
			break;
		case O_KNOTES:
			a->kernel_notes = optarg;
			break;
		case O_NOKERNEL:
			a->no_kernel = true;
			break;
		case O_JSON:
			a->json = true;
			break;
		case O_HELP:
			usage(stdout);
			return 1;
		default:
			usage(stderr);
			return -1;
		}
	}
	if (optind != argc) {
		fprintf(stderr, "axprofd: unexpected argument '%s'\n", argv[optind]);
		return -1;
	}
	if (!a->dir) {
		fprintf(stderr, "axprofd: -d DIR is required (see axprofd --help)\n");
		return -1;
	}
	if (a->no_kernel &&
	    (a->kallsyms || a->modules || a->vmlinux || a->system_map || a->kernel_notes)) {
		fprintf(stderr,
			"axprofd: --no-kernel does not go with the kernel symbol options\n");
		return -1;
	}
	if (dmn_sampling_config(&smp, &a->cfg, &err)) {
		fprintf(stderr, "axprofd: %s\n", err.msg);
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	static char pidbuf[PATH_MAX + 16], dirbuf[PATH_MAX];
	struct axd a = { 0 };
	struct dmn_opts dopts = { 0 };
	struct ax_error perr;
	struct sigaction sa = { 0 };
	struct stat dst;
	int ret, parent = -1, status = 0;
	double next_flush;

	ret = parse(argc, argv, &a);
	if (ret)
		return ret > 0 ? 0 : 2;
	/* Absolute paths: nothing below depends on the working directory. */
	if (mkdir(a.dir, 0777) && errno != EEXIST) {
		fprintf(stderr, "axprofd: cannot create %s: %s\n", a.dir, strerror(errno));
		return 1;
	}
	if (realpath(a.dir, dirbuf))
		a.dir = dirbuf;
	if (!a.pidfile) {
		snprintf(pidbuf, sizeof(pidbuf), "%s/axprofd.pid", a.dir);
		a.pidfile = pidbuf;
	}
	snprintf(a.status, sizeof(a.status), "%s.status", a.pidfile);

	dopts.db_dir = a.dir;
	dopts.flags = a.proc_maps ? DMN_PROC_MAPS : 0;
	dopts.proc_root = a.proc_root;
	dopts.sysroot = a.sysroot;
	dopts.cfg = &a.cfg; /* the database keeps the periods */
	/* The running kernel's symbols only for the running kernel's driver: records read from a
	 * file came from elsewhere, and get only the symbol files named. */
	if (!a.no_kernel && !stat(a.device, &dst) && S_ISCHR(dst.st_mode))
		dopts.flags |= DMN_KERNEL;
	dopts.kallsyms = a.kallsyms;
	dopts.modules = a.modules;
	dopts.vmlinux = a.vmlinux;
	dopts.system_map = a.system_map;
	dopts.kernel_notes = a.kernel_notes;
	if (dmn_new(&a.d, &dopts, &perr)) {
		fprintf(stderr, "axprofd: cannot open the database or the kernel symbols: %s\n",
			perr.msg);
		return 1;
	}
	if ((dopts.flags & DMN_KERNEL) && dmn_kernel_note(a.d)[0])
		fprintf(stderr, "axprofd: kernel samples will not be attributed: %s\n",
			dmn_kernel_note(a.d));
	if (a.maps && dmn_load_events(a.d, a.maps)) {
		fprintf(stderr, "axprofd: %s\n", dmn_errmsg(a.d));
		dmn_free(a.d);
		return 1;
	}
	ret = dmn_dev_open(&a.dev, a.device);
	if (ret) {
		fprintf(stderr, "axprofd: %s: %s\n", a.device, strerror(-ret));
		dmn_free(a.d);
		return 1;
	}
	ret = dmn_dev_configure(&a.dev, &a.cfg);
	if (!ret)
		ret = dmn_dev_start(&a.dev);
	if (ret) {
		fprintf(stderr, "axprofd: %s: cannot %s: %s\n", a.device,
			ret == -EBUSY ? "start (already running?)" : "configure and start sampling",
			strerror(-ret));
		status = 1;
		goto out_close;
	}
	if (!a.foreground) {
		parent = daemonize();
		if (parent < 0) {
			fprintf(stderr, "axprofd: cannot detach: %s\n", strerror(-parent));
			status = 1;
			goto out_stop;
		}
	}
	sa.sa_handler = on_signal; /* no SA_RESTART: poll() returns at once */
	sigemptyset(&sa.sa_mask);
	sigaction(SIGUSR1, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	ret = write_pidfile(&a);
	if (ret) {
		fprintf(stderr, "axprofd: cannot write %s: %s\n", a.pidfile, strerror(-ret));
		tell_parent(parent, 1);
		status = 1;
		goto out_stop;
	}
	write_status(&a);
	tell_parent(parent, 0);

	next_flush = now() + a.flush_interval;
	while (!want_stop) {
		long n;

		if (want_flush || (a.flush_interval && now() >= next_flush)) {
			want_flush = 0;
			do_flush(&a);
			next_flush = now() + a.flush_interval;
		}
		n = dmn_dev_pump(&a.dev, a.d, 1000);
		if (n == 0 && a.dev.fake && a.once) {
			break;
		} else if (n == 0) {
			/* The end of a fake device, or sampling stopped by someone else: wait
			 * for signals without spinning. */
			struct timespec ts = { 0, 200 * 1000 * 1000 };

			nanosleep(&ts, NULL);
		} else if (n < 0 && n != -EAGAIN && n != -EINTR) {
			fprintf(stderr, "axprofd: reading %s: %s\n", a.device, strerror((int)-n));
			status = 1;
			break;
		}
	}

out_stop:
	/* Stop, then everything the driver still holds, then the last store. */
	dmn_dev_stop(&a.dev);
	dmn_dev_flush(&a.dev);
	for (int i = 0; i < 1000000; i++) {
		long n = dmn_dev_pump(&a.dev, a.d, a.dev.fake ? 0 : 1000);

		if (n == 0 || (n < 0 && n != -EINTR))
			break;
	}
	dmn_dev_stats(&a.dev, a.d);
	if (dmn_flush(a.d)) {
		fprintf(stderr, "axprofd: cannot store the profiles: %s\n", dmn_errmsg(a.d));
		status = 1;
	} else {
		a.flushes++;
	}
	if (a.pid_written) {
		write_status(&a);
		unlink(a.pidfile);
	}
	if (a.json)
		print_json(&a);
out_close:
	dmn_dev_close(&a.dev);
	dmn_free(a.d);
	if (parent >= 0)
		tell_parent(parent, (char)status);
	if (fflush(stdout) || ferror(stdout))
		status = 1;
	return status;
}
