/* tools/axprof/builtin-epoch.c - `axprof epoch`: start a new epoch of the profile database. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "axprof/builtin.h"
#include "tl_view.h"
#include "pdb.h"

static void usage(FILE *f)
{
	fprintf(f, "usage: axprof epoch [-d DIR] [--list] [--json]\n\n"
		   "Start a new epoch in the profile database (DCPI SOSP'97 §4.3: epochs are\n"
		   "non-overlapping intervals, one subdirectory each). The daemon's and axprof\n"
		   "record's next store goes into it. Prints the new epoch's number.\n\n"
		   "Options:\n"
		   "  -d, --db DIR   the database (default $AXPROF_DB, else ./axprof-db)\n"
		   "  --list         only list the epochs (the current one marked with *)\n"
		   "  --json         JSON output\n"
		   "  --help         this text\n");
}

int cmd_epoch(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "db", required_argument, NULL, 'd' },
		{ "list", no_argument, NULL, 'l' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *dir = NULL;
	bool list = false, json = false;
	struct ax_error perr;
	struct pdb_db *db;
	uint32_t cur = 0, *ep = NULL;
	size_t n = 0;
	int c, ret;

	optind = 1;
	while ((c = getopt_long(argc, argv, "d:", longopts, NULL)) != -1) {
		switch (c) {
		case 'd':
			dir = optarg;
			break;
		case 'l':
			list = true;
			break;
		case 'j':
			json = true;
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
		fprintf(stderr, "axprof epoch: unexpected argument '%s'\n", argv[optind]);
		return 2;
	}
	dir = tl_default_db(dir);
	ret = pdb_open(dir, !list, &db, &perr);
	if (ret) {
		fprintf(stderr, "axprof epoch: %s\n", perr.msg);
		return 1;
	}
	if (list) {
		ret = pdb_epoch_list(db, &ep, &n);
		if (!ret)
			ret = pdb_epoch_current(db, &cur);
	} else {
		ret = pdb_epoch_new(db, &cur);
	}
	if (ret) {
		fprintf(stderr, "axprof epoch: %s\n", pdb_errmsg(db));
		pdb_close(db);
		return 1;
	}
	if (list && json) {
		printf("{\"current\":%u,\"epochs\":[", cur);
		for (size_t i = 0; i < n; i++)
			printf("%s%u", i ? "," : "", ep[i]);
		printf("]}\n");
	} else if (list) {
		for (size_t i = 0; i < n; i++)
			printf("%s%u\n", ep[i] == cur ? "*" : " ", ep[i]);
	} else if (json) {
		printf("{\"epoch\":%u}\n", cur);
	} else {
		printf("%u\n", cur);
	}
	free(ep);
	pdb_close(db);
	return tl_finish_stdout("axprof epoch");
}
