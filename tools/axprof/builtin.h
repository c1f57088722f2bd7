/* tools/axprof/builtin.h - the axprof hub's commands: each is cmd_<name>(argc, argv). */
#ifndef AXPROF_BUILTIN_H
#define AXPROF_BUILTIN_H

#include <stdbool.h>

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

#endif /* AXPROF_BUILTIN_H */
