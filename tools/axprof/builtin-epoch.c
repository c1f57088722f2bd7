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
		   "  --json         JSON output (docs/axprof-json.7)\n"
		   "  --help         this text\n");
}

int cmd_epoch(int argc, char **argv)
{
	static const struct option longopts[] = {
		TL_LONGOPT_DB,
		TL_LONGOPT_JSON,
		{ "list", no_argument, NULL, 'l' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct tl_ropts ro;
	const char *dir;
	bool list = false, json;
	struct ax_error perr;
	struct pdb_db *db;
	uint32_t cur = 0, *ep = NULL;
	size_t n = 0;
	int c, ret;

	tl_ropts_init(&ro, "axprof epoch", 0);
	optind = 1;
	while ((c = getopt_long(argc, argv, "d:", longopts, NULL)) != -1) {
		ret = tl_ropts_parse(&ro, c, optarg);
		if (ret == 2)
			return 2;
		if (ret)
			continue;
		switch (c) {
		case 'l':
			list = true;
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
	dir = ro.db;
	json = ro.json;
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
		free(ep); /* the list, when only `current` failed */
		pdb_close(db);
		return 1;
	}
	if (json) {
		struct ax_json j;

		ax_json_doc_open(&j, stdout, "epoch");
		ax_json_str(&j, "database", dir);
		ax_json_u64(&j, "epoch", cur);
		if (list) {
			ax_json_arr_open(&j, "epochs");
			for (size_t i = 0; i < n; i++)
				ax_json_u64(&j, NULL, ep[i]);
			ax_json_arr_close(&j);
		}
		ax_json_doc_close(&j);
	} else if (list) {
		for (size_t i = 0; i < n; i++)
			printf("%s%u\n", ep[i] == cur ? "*" : " ", ep[i]);
	} else {
		printf("%u\n", cur);
	}
	free(ep);
	pdb_close(db);
	return 0;
}
