/* tools/lib/tl_opts.c - the options every report tool shares (-d, --epoch, --image, --json, -n). */
#include <errno.h>
#include <limits.h>
#include <sys/stat.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pdb.h"
#include "tl_opts.h"
#include "tl_sym.h"

const char *tl_default_db(const char *opt)
{
	const char *env = getenv("AXPROF_DB");

	if (opt && *opt)
		return opt;
	return env && *env ? env : "axprof-db";
}

int tl_abs_path(const char *cmd, const char **path, char **owned)
{
	char cwd[PATH_MAX], *abs;
	size_t n;

	*owned = NULL;
	if (!*path || (*path)[0] == '/')
		return 0;
	if (!getcwd(cwd, sizeof(cwd))) {
		fprintf(stderr, "%s: cannot name the current directory for %s: %s\n", cmd, *path,
			strerror(errno));
		return 1;
	}
	n = strlen(cwd) + strlen(*path) + 2;
	abs = malloc(n);
	if (!abs) {
		fprintf(stderr, "%s: out of memory\n", cmd);
		return 1;
	}
	snprintf(abs, n, "%s/%s", cwd, *path);
	*path = abs;
	*owned = abs;
	return 0;
}

void tl_ropts_init(struct tl_ropts *o, const char *cmd, long top_default)
{
	memset(o, 0, sizeof(*o));
	o->cmd = cmd;
	o->db = tl_default_db(NULL);
	o->top = top_default;
}

/* A decimal number lo..hi with nothing after it. */
static int parse_range(const char *s, long lo, long hi, long *out)
{
	char *end;
	long v;

	if (*s < '0' || *s > '9')
		return -EINVAL;
	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || *end || v < lo || v > hi)
		return -EINVAL;
	*out = v;
	return 0;
}

int tl_parse_epoch(const char *cmd, const char *opt, const char *arg, uint32_t *epoch)
{
	long v;

	if (parse_range(arg, 1, PDB_EPOCH_MAX, &v)) {
		fprintf(stderr, "%s: %s needs an epoch number 1..%u, not '%s'\n", cmd, opt,
			PDB_EPOCH_MAX, arg);
		return 2;
	}
	*epoch = (uint32_t)v;
	return 0;
}

int tl_parse_cpus(const char *cmd, const char *arg, unsigned int max_cpus, unsigned int *cpus)
{
	long v;

	if (parse_range(arg, 1, (long)max_cpus, &v)) {
		fprintf(stderr, "%s: --cpus needs a number of CPUs from 1 to %u, not '%s'\n", cmd,
			max_cpus, arg);
		return 2;
	}
	*cpus = (unsigned int)v;
	return 0;
}

int tl_parse_quantum(const char *cmd, const char *arg, uint64_t *quantum)
{
	long v;

	if (parse_range(arg, 1, LONG_MAX, &v)) {
		fprintf(stderr,
			"%s: --quantum needs a number of instructions (1 or more), not '%s'\n", cmd,
			arg);
		return 2;
	}
	*quantum = (uint64_t)v;
	return 0;
}

int tl_parse_coh_latency(const char *cmd, const char *opt, const char *arg, uint32_t *cycles)
{
	long v;

	if (parse_range(arg, 1, 1000000, &v)) {
		fprintf(stderr, "%s: %s needs a number of cycles from 1 to 1000000, not '%s'\n",
			cmd, opt, arg);
		return 2;
	}
	*cycles = (uint32_t)v;
	return 0;
}

int tl_ropts_parse(struct tl_ropts *o, int c, const char *arg)
{
	switch (c) {
	case 'd':
		o->db = tl_default_db(arg);
		o->seen |= TL_SEEN_DB;
		return 1;
	case TL_OPT_EPOCH:
		if (tl_parse_epoch(o->cmd, "--epoch", arg, &o->epoch))
			return 2;
		o->seen |= TL_SEEN_EPOCH;
		return 1;
	case TL_OPT_IMAGE:
		o->image = arg;
		o->seen |= TL_SEEN_IMAGE;
		return 1;
	case TL_OPT_JSON:
		o->json = true;
		o->seen |= TL_SEEN_JSON;
		return 1;
	case TL_OPT_SKIP_DAMAGED:
		o->skip_damaged = true;
		o->seen |= TL_SEEN_SKIP_DAMAGED;
		return 1;
	case TL_OPT_PERCENT_LIMIT: {
		char *end;
		double v;

		errno = 0;
		v = strtod(arg, &end);
		if (errno || end == arg || *end || !(v >= 0.0 && v <= 100.0)) {
			fprintf(stderr,
				"%s: --percent-limit needs a percentage 0..100 (e.g. 0.5), not '%s'\n",
				o->cmd, arg);
			return 2;
		}
		o->percent_limit = v;
		o->seen |= TL_SEEN_PERCENT_LIMIT;
		return 1;
	}
	case TL_OPT_MIN_SAMPLES: {
		long v;

		if (parse_range(arg, 0, LONG_MAX, &v)) {
			fprintf(stderr,
				"%s: --min-samples needs a sample count (0: all), not '%s'\n",
				o->cmd, arg);
			return 2;
		}
		o->min_samples = (uint64_t)v;
		o->seen |= TL_SEEN_MIN_SAMPLES;
		return 1;
	}
	case TL_OPT_NO_DEMANGLE:
		tl_sym_set_demangle(false);
		o->seen |= TL_SEEN_NO_DEMANGLE;
		return 1;
	case TL_OPT_SORT:
		o->sort = arg;
		o->seen |= TL_SEEN_SORT;
		return 1;
	case 'n':
		if (parse_range(arg, 0, TL_TOP_MAX, &o->top)) {
			fprintf(stderr, "%s: -n/--top needs a count 0..%ld (0: all), not '%s'\n",
				o->cmd, TL_TOP_MAX, arg);
			return 2;
		}
		o->seen |= TL_SEEN_TOP;
		return 1;
	default:
		return 0;
	}
}

int tl_sort_check(const char *cmd, const char *view, const char *arg, const char *const *fields,
		  size_t n)
{
	if (!arg)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (!strcmp(arg, fields[i]))
			return (int)i;
	fprintf(stderr, "%s: --sort takes ", cmd);
	for (size_t i = 0; i < n; i++)
		fprintf(stderr, "%s%s", i ? (i + 1 == n ? " or " : ", ") : "", fields[i]);
	if (view)
		fprintf(stderr, " (%s)", view);
	fprintf(stderr, ", not '%s'\n", arg);
	return -1;
}

int tl_sort_pick(const struct tl_ropts *o, const char *view, const char *const *fields, size_t n)
{
	return tl_sort_check(o->cmd, view, o->sort, fields, n);
}

size_t tl_rows_sort(const struct tl_ropts *o, void *rows, size_t n, size_t size,
		    int (*cmp)(const void *, const void *), int *key, bool ordering,
		    uint64_t (*samples)(const void *row), uint64_t total)
{
	int k = *key;

	if (ordering)
		*key = 0;
	if (n > 1) /* qsort(NULL, 0, ...) is undefined */
		qsort(rows, n, size, cmp);
	n = tl_rows_keep(o, rows, n, size, samples, total);
	*key = k;
	if (ordering && n > 1)
		qsort(rows, n, size, cmp);
	return n;
}

bool tl_row_shown(const struct tl_ropts *o, uint64_t samples, uint64_t total)
{
	if (samples < o->min_samples)
		return false;
	/* perf report --percent-limit: the row's share of the whole, in percent */
	return !(o->percent_limit > 0.0 && total &&
		 100.0 * (double)samples / (double)total < o->percent_limit);
}

size_t tl_rows_keep(const struct tl_ropts *o, void *rows, size_t n, size_t size,
		    uint64_t (*samples)(const void *row), uint64_t total)
{
	char *r = rows;
	size_t k = 0;

	for (size_t i = 0; i < n; i++) {
		if (!tl_row_shown(o, samples(r + i * size), total))
			continue;
		if (k != i)
			memmove(r + k * size, r + i * size, size);
		k++;
	}
	if (o->top > 0 && (size_t)o->top < k)
		k = (size_t)o->top;
	return k;
}

int tl_finish_stdout(const char *tool)
{
	if (fflush(stdout) || ferror(stdout)) {
		fprintf(stderr, "%s: error writing standard output: %s\n", tool,
			strerror(errno ? errno : EIO));
		return 1;
	}
	return 0;
}

int tl_check_dir(const char *cmd, const char *opt, const char *dir)
{
	struct stat st;

	if (!dir || !*dir)
		return 0;
	if (stat(dir, &st)) {
		fprintf(stderr, "%s: %s %s: %s\n", cmd, opt, dir, strerror(errno));
		return 2;
	}
	if (!S_ISDIR(st.st_mode)) {
		fprintf(stderr, "%s: %s %s: not a directory\n", cmd, opt, dir);
		return 2;
	}
	return 0;
}

int tl_check_sysroot(const char *cmd, const char *sysroot)
{
	return tl_check_dir(cmd, "--sysroot", sysroot);
}
