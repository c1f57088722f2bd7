/* tools/axprof/builtin.h - the axprof hub's commands: each is cmd_<name>(argc, argv). */
#ifndef AXPROF_BUILTIN_H
#define AXPROF_BUILTIN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pdb.h"

#define AXPROF_VERSION "0.1"

/* argv[0] is the command's own name; return the process exit code (0 ok, 1 failed, 2 usage). */
int cmd_dis(int argc, char **argv);
int cmd_run(int argc, char **argv);
int cmd_cfg(int argc, char **argv);
int cmd_record(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_flush(int argc, char **argv);
int cmd_epoch(int argc, char **argv);
int cmd_merge(int argc, char **argv);
int cmd_fsck(int argc, char **argv);
int cmd_diff(int argc, char **argv);
int cmd_export(int argc, char **argv);
int cmd_stat(int argc, char **argv);

int cmd_annotate(int argc, char **argv);
int cmd_topstalls(int argc, char **argv);
int cmd_profileme(int argc, char **argv);
int cmd_paths(int argc, char **argv);

/* builtin-report-cg.c: report --callers/--callees SYM from the view's call stacks. */
struct tl_view;
struct tl_ropts;
int report_callgraph(const struct tl_view *v, const struct tl_ropts *ro, unsigned int event,
		     const char *sym, bool callers, bool callees);

/*
 * builtin-report-tasks.c: the samples of some processes, threads or commands (report --pid,
 * --tid, --comm; tasks.prof, unknown.prof, threads.prof) and the --tasks view.
 */
#define REPORT_MAX_COLS 8 /* events shown */
struct report_filter {
	bool pid_given, tid_given;
	uint32_t pid, tid;
	const char *comm; /* NULL: any */
	struct pdb_thread *thr; /* the epoch's threads (report_filter_load), sorted */
	size_t nthr;
};
int report_filter_load(struct report_filter *f, const struct tl_view *v);
void report_filter_free(struct report_filter *f);
bool report_filter_is_on(const struct report_filter *f);
/* Does thread tid of process pid pass (the thread had the name, with --comm)? */
bool report_filter_match(const struct report_filter *f, uint32_t pid, uint32_t tid);
void report_filter_describe(const struct report_filter *f, char *buf, size_t size);
const struct pdb_thread *report_thread(const struct report_filter *f, uint32_t pid, uint32_t tid);
struct tl_view_image;
struct report_tasks_args {
	const struct tl_view *v;
	const struct tl_ropts *ro;
	const struct tl_view_image *const *sel; /* the images selected (--image) */
	size_t nsel;
	bool with_unknown; /* count the unknown samples too (no --image) */
	const unsigned int *ev; /* the events shown, ev[0] sorts */
	unsigned int ncol;
	const uint64_t *total; /* per event: the totals shares are of */
	const struct report_filter *f;
};
int report_tasks(const struct report_tasks_args *a);

#endif /* AXPROF_BUILTIN_H */
