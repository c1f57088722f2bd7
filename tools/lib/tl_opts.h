/* tools/lib/tl_opts.h - the options every report tool shares (-d, --epoch, --image, --json, -n). */
#ifndef TL_OPTS_H
#define TL_OPTS_H

#include <getopt.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * The report tools (report, annotate, topstalls, vprof, vreplay, epoch, merge, flush) take these
 * with one meaning and one set of messages:
 *   -d, --db DIR    the database (default $AXPROF_DB, else ./axprof-db: tl_default_db)
 *   --epoch N       that epoch, 1..PDB_EPOCH_MAX (default the current one)
 *   --image NAME    only images whose key, path or file name is NAME
 *   --json          JSON output (docs/axprof-json.7)
 *   -n, --top N     the N first rows (0: all)
 *   --skip-damaged  go on past damaged database files, saying which were skipped (tl_view.h)
 *   --percent-limit P  leave out rows below P percent of the total (perf report's option)
 *   --min-samples N    leave out rows with fewer than N samples (annotate, vprof)
 *   --no-demangle   print C++ symbols as they are in the file (tl_sym.h demangles them)
 *   --sort FIELD    the row order; each view names its fields and checks FIELD with
 *                   tl_sort_pick() (one message for an unknown field, naming the valid ones)
 * A tool lists the TL_LONGOPT_* entries it takes in its getopt_long table (and "d:n:" among its
 * short options as they apply) and hands every option to tl_ropts_parse() first.
 */
enum {
	TL_OPT_EPOCH = 0x1000,
	TL_OPT_IMAGE,
	TL_OPT_JSON,
	TL_OPT_SKIP_DAMAGED,
	TL_OPT_PERCENT_LIMIT,
	TL_OPT_MIN_SAMPLES,
	TL_OPT_NO_DEMANGLE,
	TL_OPT_SORT,
};

#define TL_LONGOPT_DB                              \
	{                                          \
		"db", required_argument, NULL, 'd' \
	}
#define TL_LONGOPT_EPOCH                                       \
	{                                                      \
		"epoch", required_argument, NULL, TL_OPT_EPOCH \
	}
#define TL_LONGOPT_IMAGE                                       \
	{                                                      \
		"image", required_argument, NULL, TL_OPT_IMAGE \
	}
#define TL_LONGOPT_JSON                                \
	{                                              \
		"json", no_argument, NULL, TL_OPT_JSON \
	}
#define TL_LONGOPT_SKIP_DAMAGED                                        \
	{                                                              \
		"skip-damaged", no_argument, NULL, TL_OPT_SKIP_DAMAGED \
	}
#define TL_LONGOPT_PERCENT_LIMIT                                               \
	{                                                                      \
		"percent-limit", required_argument, NULL, TL_OPT_PERCENT_LIMIT \
	}
#define TL_LONGOPT_MIN_SAMPLES                                             \
	{                                                                  \
		"min-samples", required_argument, NULL, TL_OPT_MIN_SAMPLES \
	}
#define TL_LONGOPT_NO_DEMANGLE                                       \
	{                                                            \
		"no-demangle", no_argument, NULL, TL_OPT_NO_DEMANGLE \
	}
#define TL_LONGOPT_SORT                                      \
	{                                                    \
		"sort", required_argument, NULL, TL_OPT_SORT \
	}
#define TL_LONGOPT_TOP                              \
	{                                           \
		"top", required_argument, NULL, 'n' \
	}

/* Bits of tl_ropts.seen. */
#define TL_SEEN_DB (1u << 0)
#define TL_SEEN_EPOCH (1u << 1)
#define TL_SEEN_IMAGE (1u << 2)
#define TL_SEEN_JSON (1u << 3)
#define TL_SEEN_TOP (1u << 4)
#define TL_SEEN_SKIP_DAMAGED (1u << 5)
#define TL_SEEN_PERCENT_LIMIT (1u << 6)
#define TL_SEEN_MIN_SAMPLES (1u << 7)
#define TL_SEEN_NO_DEMANGLE (1u << 8)
#define TL_SEEN_SORT (1u << 9)

/* The largest -n/--top. */
#define TL_TOP_MAX 100000000L

struct tl_ropts {
	const char *cmd; /* for messages: "axprof report", "vprof" */
	const char *db; /* the database directory (tl_ropts_parse fills in the default) */
	uint32_t epoch; /* 0: the current one */
	const char *image; /* NULL: every image */
	bool json;
	bool skip_damaged; /* --skip-damaged */
	long top; /* -n/--top; the tool's default until given; 0: all */
	double percent_limit; /* --percent-limit P: rows below P% of the total left out; 0: none */
	uint64_t min_samples; /* --min-samples N: rows with fewer samples left out; 0: none */
	const char *sort; /* --sort FIELD as given; NULL: the view's default order */
	unsigned int seen; /* TL_SEEN_* of the options given */
};

/* Defaults: db from tl_default_db(NULL), epoch 0, no image, text output, top = top_default. */
void tl_ropts_init(struct tl_ropts *o, const char *cmd, long top_default);

/*
 * Take option c (getopt_long's return) with its argument if it is one of the above. Returns 1
 * when taken, 0 when c is not one of them (the tool's own option), 2 (the usage exit code) after
 * a message on stderr for a bad argument.
 */
int tl_ropts_parse(struct tl_ropts *o, int c, const char *arg);

/* --epoch's argument (1..PDB_EPOCH_MAX) into *epoch; 0, or 2 after a message naming opt. */
int tl_parse_epoch(const char *cmd, const char *opt, const char *arg, uint32_t *epoch);

/* The hosted machine's --cpus (1..max_cpus) and --quantum (1 or more instructions), shared by
 * run and stat: 0, or 2 after a message naming cmd. */
int tl_parse_cpus(const char *cmd, const char *arg, unsigned int max_cpus, unsigned int *cpus);
int tl_parse_quantum(const char *cmd, const char *arg, uint64_t *quantum);

/* The coherence costs --c2c-latency and --inval-latency (issue 17 item 4: cycles, 1 to
 * 1000000; machine/mach_coh.h's [U] defaults otherwise), shared by run, stat and record: 0, or
 * 2 after a message naming cmd and opt. */
#define TL_COH_HELP                                                                            \
	"  --c2c-latency N    cycles of a cache-to-cache fill (an intervention; default 50,\n" \
	"                     our assumption) with --cpus 2 or more\n"                         \
	"  --inval-latency N  cycles a store waits for its invalidations (default 20, our\n"   \
	"                     assumption) with --cpus 2 or more\n"
enum { TL_OPT_C2C = 0x300, TL_OPT_INVAL };
int tl_parse_coh_latency(const char *cmd, const char *opt, const char *arg, uint32_t *cycles);

/* The database directory: -d DIR, else $AXPROF_DB, else "axprof-db". */
const char *tl_default_db(const char *opt);

/*
 * *path (NULL: nothing to do) made absolute against the current directory, so that a file
 * written after a hosted program's chdir lands where the user named it (the machine's chdir is
 * the tool's: machine/mach_sys_fs.c). *owned receives the new string (NULL when *path was kept),
 * which the caller frees after its last use of *path. 0, or 1 after a message naming cmd (no
 * current directory, no memory).
 */
int tl_abs_path(const char *cmd, const char **path, char **owned);

/*
 * The row filters --percent-limit and --min-samples, then -n: is a row of `samples` out of
 * `total` shown (total 0: only --min-samples applies)? tl_rows_keep() keeps, in place and in
 * order, the rows of the array (n rows of size bytes) whose samples(row) pass, then at most
 * -n of them (0: all); it returns how many are left. The limits apply to each view's samples
 * column whatever its --sort, so a sorted view keeps its order.
 */
bool tl_row_shown(const struct tl_ropts *o, uint64_t samples, uint64_t total);
size_t tl_rows_keep(const struct tl_ropts *o, void *rows, size_t n, size_t size,
		    uint64_t (*samples)(const void *row), uint64_t total);

/*
 * --sort: the index in fields[0..n) of o->sort (0, the view's default, when not given), or -1
 * after "CMD: --sort takes a, b or c (VIEW), not 'x'" on stderr (view: e.g. "report
 * --procedures"; NULL leaves it out). tl_sort_check() is the same for a FIELD string.
 */
int tl_sort_pick(const struct tl_ropts *o, const char *view, const char *const *fields, size_t n);
int tl_sort_check(const char *cmd, const char *view, const char *arg, const char *const *fields,
		  size_t n);

/*
 * Sort the rows by cmp, which orders by the view's field *key (0: the default ranking), then
 * keep them as tl_rows_keep(). A field that ranks (a count or share: largest first) chooses the
 * rows: -n 5 --sort cpi gives the five of highest CPI. A field that only orders (ordering: a
 * name, an address, a line) does not: the rows are chosen by the default ranking (*key is 0
 * meanwhile), then put in its order: -n 5 --sort address gives the five with most samples, by
 * address. Returns how many rows are left.
 */
size_t tl_rows_sort(const struct tl_ropts *o, void *rows, size_t n, size_t size,
		    int (*cmp)(const void *, const void *), int *key, bool ordering,
		    uint64_t (*samples)(const void *row), uint64_t total);

/* Check stdout for write errors (perf's rule): 0, or 1 with a message on stderr. */
int tl_finish_stdout(const char *tool);

/* --sysroot DIR of run and record: DIR must be a directory (else the host's files would be
 * used silently). 0, or 2 after a message "CMD: --sysroot DIR: why"; NULL or "" is fine. */
int tl_check_sysroot(const char *cmd, const char *sysroot);
/* The same for any directory option OPT (--confine): 0, or 2 after "CMD: OPT DIR: why". */
int tl_check_dir(const char *cmd, const char *opt, const char *dir);

#endif /* TL_OPTS_H */
