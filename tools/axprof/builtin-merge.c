/* tools/axprof/builtin-merge.c - `axprof merge`: add databases' profiles into another one. */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "axprof/builtin.h"
#include "tl_view.h"
#include "pdb.h"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: axprof merge -d DST [--into N] [--epoch N] [--force] [--json] SRC...\n\n"
		"Add the profiles of each SRC database into DST (created if missing): samples and\n"
		"counts add up, value hotlists merge (pdb_merge_db). By default every epoch of each\n"
		"SRC goes into DST's current epoch. SRC may be DST itself when --epoch and --into\n"
		"name different epochs (merging epochs of one database). A repeated merge, which\n"
		"would count samples twice, is refused: each epoch records which epochs of which\n"
		"databases were merged into it.\n\n"
		"Options:\n"
		"  -d, --db DST   the database to add to\n"
		"  --into N       into DST's epoch N (created if missing) instead of the current one\n"
		"  --epoch N      only SRC's epoch N\n"
		"  --force        merge even an epoch already merged (its samples count twice)\n"
		"  --json         print what was merged as JSON\n"
		"  --help         this text\n\n"
		"Not atomic as a whole: each image is merged atomically, but a merge interrupted by a\n"
		"crash is recorded as done; run again with --force it adds twice what it had done.\n\n"
		"Exit status: 0, 1 when a source could not be merged (or was merged before), 2 for\n"
		"bad options.\n");
}

static int parse_epoch(const char *s, uint32_t *out)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || end == s || *end || v < 1 || v > PDB_EPOCH_MAX)
		return -EINVAL;
	*out = (uint32_t)v;
	return 0;
}

int cmd_merge(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "db", required_argument, NULL, 'd' },
		{ "into", required_argument, NULL, 'i' },
		{ "epoch", required_argument, NULL, 'e' },
		{ "json", no_argument, NULL, 'j' },
		{ "force", no_argument, NULL, 'f' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *dst_dir = NULL;
	uint32_t into = 0, only = 0;
	bool json = false, first = true, force = false;
	char dst_real[PATH_MAX];
	struct ax_error perr;
	struct pdb_db *dst;
	int c, ret, status = 0;

	optind = 1;
	while ((c = getopt_long(argc, argv, "d:", longopts, NULL)) != -1) {
		switch (c) {
		case 'd':
			dst_dir = optarg;
			break;
		case 'i':
		case 'e':
			if (parse_epoch(optarg, c == 'i' ? &into : &only)) {
				fprintf(stderr,
					"axprof merge: --%s needs an epoch 1..%u, not '%s'\n",
					c == 'i' ? "into" : "epoch", PDB_EPOCH_MAX, optarg);
				return 2;
			}
			break;
		case 'j':
			json = true;
			break;
		case 'f':
			force = true;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (!dst_dir) {
		fprintf(stderr, "axprof merge: -d DST is required (see 'axprof merge --help')\n");
		return 2;
	}
	if (optind >= argc) {
		fprintf(stderr, "axprof merge: no source database\n");
		return 2;
	}
	ret = pdb_open(dst_dir, true, &dst, &perr);
	if (ret) {
		fprintf(stderr, "axprof merge: %s\n", perr.msg);
		return 1;
	}
	if (!into && pdb_epoch_current(dst, &into)) {
		fprintf(stderr, "axprof merge: %s\n", pdb_errmsg(dst));
		pdb_close(dst);
		return 1;
	}
	if (!realpath(dst_dir, dst_real))
		snprintf(dst_real, sizeof(dst_real), "%s", dst_dir);
	if (json)
		printf("{\"database\":");
	if (json) {
		tl_json_str(stdout, dst_dir);
		printf(",\"epoch\":%u,\"merged\":[", into);
	}
	for (int a = optind; a < argc; a++) {
		char real[PATH_MAX];
		struct pdb_db *src;
		uint32_t *ep = NULL;
		size_t n = 0;
		bool same;

		same = realpath(argv[a], real) && !strcmp(real, dst_real);
		if (same) {
			src = dst;
		} else if (pdb_open(argv[a], false, &src, &perr)) {
			fprintf(stderr, "axprof merge: %s\n", perr.msg);
			status = 1;
			continue;
		}
		if (only) {
			ep = malloc(sizeof(*ep));
			if (ep) {
				ep[0] = only;
				n = 1;
			}
		} else if (pdb_epoch_list(src, &ep, &n)) {
			fprintf(stderr, "axprof merge: %s\n", pdb_errmsg(src));
			status = 1;
		}
		for (size_t i = 0; i < n; i++) {
			if (same && ep[i] == into) {
				if (only) {
					fprintf(stderr,
						"axprof merge: %s: epoch %u into itself (use --into)\n",
						argv[a], into);
					status = 1;
				}
				continue;
			}
			ret = pdb_merge_db(dst, into, src, ep[i], force ? PDB_MERGE_FORCE : 0);
			if (ret) {
				fprintf(stderr, "axprof merge: %s epoch %u: %s%s\n", argv[a], ep[i],
					pdb_errmsg(dst),
					ret == -EALREADY ? "; not merged (--force merges anyway)" :
							   "");
				status = 1;
				continue;
			}
			if (json) {
				printf("%s{\"source\":", first ? "" : ",");
				tl_json_str(stdout, argv[a]);
				printf(",\"epoch\":%u}", ep[i]);
				first = false;
			} else {
				printf("merged %s epoch %u into %s epoch %u\n", argv[a], ep[i],
				       dst_dir, into);
			}
		}
		free(ep);
		if (!same)
			pdb_close(src);
	}
	if (json)
		printf("]}\n");
	pdb_close(dst);
	return tl_finish_stdout("axprof merge") ? 1 : status;
}
