/* tools/axprof/builtin-flush.c - `axprof flush`: make the running axprofd store its profiles now. */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "axprof/builtin.h"
#include "tl_view.h"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: axprof flush [-d DIR] [--pid-file F] [--timeout S] [--no-wait] [--json]\n\n"
		"Ask the running axprofd to drain the driver and store every profile it holds\n"
		"(DCPI: \"a complete flush can also be initiated by a user-level command\"), by\n"
		"sending it SIGUSR1, and wait until it has done so (its status file F.status counts\n"
		"flushes).\n\n"
		"Options:\n"
		"  -d, --db DIR    the daemon's database (default $AXPROF_DB, else ./axprof-db)\n"
		"  --pid-file F    the daemon's pid file (default DIR/axprofd.pid)\n"
		"  --timeout S     give up waiting after S seconds (default 30)\n"
		"  --no-wait       only send the request\n"
		"  --json          JSON output (docs/axprof-json.7)\n"
		"  --help          this text\n\n"
		"Exit status: 0 flushed, 1 no daemon or it did not answer in time, 2 bad options.\n");
}

/* `key value` lines of the status file: the value of key, or -1. */
static long long status_value(const char *path, const char *key)
{
	char line[256], k[64];
	long long v, found = -1;
	FILE *f = fopen(path, "re");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%63s %lld", k, &v) == 2 && !strcmp(k, key))
			found = v;
	fclose(f);
	return found;
}

int cmd_flush(int argc, char **argv)
{
	static const struct option longopts[] = {
		TL_LONGOPT_DB,
		TL_LONGOPT_JSON,
		{ "pid-file", required_argument, NULL, 'p' },
		{ "timeout", required_argument, NULL, 't' },
		{ "no-wait", no_argument, NULL, 'W' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct tl_ropts ro;
	const char *pidfile = NULL;
	char pbuf[4096], sbuf[4200];
	bool wait = true;
	double timeout = 30;
	long long pid, before, after = -1;
	char *end;
	FILE *f;
	int c;

	tl_ropts_init(&ro, "axprof flush", 0);
	optind = 1;
	while ((c = getopt_long(argc, argv, "d:", longopts, NULL)) != -1) {
		int r = tl_ropts_parse(&ro, c, optarg);

		if (r == 2)
			return 2;
		if (r)
			continue;
		switch (c) {
		case 'p':
			pidfile = optarg;
			break;
		case 't':
			timeout = strtod(optarg, &end);
			if (end == optarg || *end || timeout < 0) {
				fprintf(stderr, "axprof flush: --timeout needs seconds, not '%s'\n",
					optarg);
				return 2;
			}
			break;
		case 'W':
			wait = false;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind != argc) {
		fprintf(stderr, "axprof flush: unexpected argument '%s'\n", argv[optind]);
		return 2;
	}
	if (!pidfile) {
		snprintf(pbuf, sizeof(pbuf), "%s/axprofd.pid", ro.db);
		pidfile = pbuf;
	}
	snprintf(sbuf, sizeof(sbuf), "%s.status", pidfile);
	f = fopen(pidfile, "re");
	if (!f || fscanf(f, "%lld", &pid) != 1 || pid <= 1) {
		fprintf(stderr, "axprof flush: no daemon: cannot read a pid from %s%s%s\n", pidfile,
			f ? "" : ": ", f ? "" : strerror(errno));
		if (f)
			fclose(f);
		return 1;
	}
	fclose(f);
	before = status_value(sbuf, "flushes");
	if (kill((pid_t)pid, SIGUSR1)) {
		fprintf(stderr, "axprof flush: cannot signal axprofd (pid %lld): %s\n", pid,
			strerror(errno));
		return 1;
	}
	if (wait) {
		struct timespec ts = { 0, 20 * 1000 * 1000 };
		double waited = 0;

		while (waited < timeout) {
			after = status_value(sbuf, "flushes");
			if (after > before)
				break;
			nanosleep(&ts, NULL);
			waited += 0.02;
		}
		if (after <= before) {
			fprintf(stderr,
				"axprof flush: axprofd (pid %lld) did not report a flush within %g s (%s)\n",
				pid, timeout, sbuf);
			return 1;
		}
	}
	if (ro.json) {
		struct ax_json j;

		ax_json_doc_open(&j, stdout, "flush");
		ax_json_str(&j, "database", ro.db);
		ax_json_i64(&j, "pid", pid);
		ax_json_bool(&j, "waited", wait);
		if (wait)
			ax_json_i64(&j, "flushes", after);
		ax_json_doc_close(&j);
	} else if (wait)
		printf("axprofd (pid %lld) flushed (flush %lld)\n", pid, after);
	else
		printf("flush requested from axprofd (pid %lld)\n", pid);
	return 0;
}
