/* tools/axprof/axprof.c - the axprof hub: dispatches `axprof CMD ...` to cmd_<name>(). */
#include <stdio.h>
#include <string.h>

#include "axprof/builtin.h"
#include "tl_opts.h"

struct cmd {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *summary;
};

/* One line per command; the help text is generated from this table. */
static const struct cmd commands[] = {
	{ "record", cmd_record, "profile a program into the profile database" },
	{ "report", cmd_report, "samples by image and procedure (dcpiprof's view)" },
	{ "annotate", cmd_annotate,
	  "frequency, CPI and stall culprits per instruction (dcpicalc)" },
	{ "diff", cmd_diff, "compare two profiles or sets of runs (dcpidiff, dcpistats)" },
	{ "export", cmd_export, "write a profile as pprof, folded stacks or CSV" },
	{ "topstalls", cmd_topstalls, "the largest stalls across images, with their culprits" },
	{ "profileme", cmd_profileme,
	  "ProfileMe instruction samples: executions, aborts, latencies, wasted slots" },
	{ "paths", cmd_paths,
	  "the hottest paths reaching a procedure's hot instructions (ProfileMe)" },
	{ "cfg", cmd_cfg, "procedures, CFGs, frequency classes and EV5 schedule of an image" },
	{ "dis", cmd_dis, "disassemble an Alpha ELF file (objdump -d format)" },
	{ "stat", cmd_stat, "count PMU events of a program, multiplexed, with costs (perfex)" },
	{ "run", cmd_run, "run an Alpha Linux program on the hosted machine" },
	{ "flush", cmd_flush, "make the running axprofd store its profiles now" },
	{ "epoch", cmd_epoch, "start a new epoch of the profile database" },
	{ "merge", cmd_merge, "add databases' profiles into another one" },
	{ "fsck", cmd_fsck, "check a profile database; quarantine damaged files (--repair)" },
};

static void usage(FILE *f)
{
	fprintf(f, "usage: axprof [--help] [--version] COMMAND [ARGS...]\n\n"
		   "axprof is a continuous sampling profiler for Alpha Linux (DCPI lineage).\n\n"
		   "Commands:\n");
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(f, "  %-10s %s\n", commands[i].name, commands[i].summary);
	fprintf(f, "\nRun 'axprof COMMAND --help' for a command's options.\n");
}

/* The command, then perf's rule: output that could not be written is a failure. */
static int run(const struct cmd *c, int argc, char **argv)
{
	char tool[64];
	int ret;

	/* getopt's own messages ("unrecognized option") name argv[0]: "axprof CMD", not "CMD". */
	snprintf(tool, sizeof(tool), "axprof %s", c->name);
	argv[0] = tool;
	ret = c->fn(argc, argv);
	if (tl_finish_stdout(tool) && !ret)
		ret = 1;
	return ret;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
		usage(stdout);
		return 0;
	}
	if (!strcmp(argv[1], "--version")) {
		printf("axprof %s\n", AXPROF_VERSION);
		return 0;
	}
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (!strcmp(argv[1], commands[i].name))
			return run(&commands[i], argc - 1, argv + 1);
	fprintf(stderr, "axprof: '%s' is not a command (see 'axprof --help')\n", argv[1]);
	return 2;
}
