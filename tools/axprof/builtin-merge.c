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
		"usage: axprof merge -d DST [--into N] [--epoch N] [--force] [--skip-damaged] [--json]\n"
		"                    SRC...\n\n"
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
		"  --json         print what was merged as JSON (docs/axprof-json.7)\n"
		"  --skip-damaged merge what reads of a damaged SRC, naming each damaged file left\n"
		"                 out (stderr, output). The merge is recorded all the same: those\n"
		"                 samples cannot be merged later (after axprof fsck --repair, say)\n"
		"                 without --force, which adds again everything else too\n"
		"  --help         this text\n\n"
		"Each source epoch is merged in one transaction: a merge interrupted by a crash leaves\n"
		"DST as it was before or after, never half; run again it merges or is refused.\n\n"
		"Exit status: 0, 1 when a source could not be merged (or was merged before), 2 for\n"
		"bad options.\n");
}

int cmd_merge(int argc, char **argv)
{
	static const struct option longopts[] = {
		TL_LONGOPT_DB,
		TL_LONGOPT_EPOCH,
		TL_LONGOPT_JSON,
		TL_LONGOPT_SKIP_DAMAGED,
		{ "into", required_argument, NULL, 'i' },
		{ "force", no_argument, NULL, 'f' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct tl_ropts ro;
	struct ax_json j;
	const char *dst_dir;
	uint32_t into = 0, only;
	bool json, force = false, into_given;
	char dst_real[PATH_MAX];
	struct ax_error perr;
	struct pdb_skips sk = { 0 };
	struct pdb_db *dst;
	unsigned int flags;
	int c, ret, status = 0;

	tl_ropts_init(&ro, "axprof merge", 0);
	optind = 1;
	while ((c = getopt_long(argc, argv, "d:", longopts, NULL)) != -1) {
		ret = tl_ropts_parse(&ro, c, optarg);
		if (ret == 2)
			return 2;
		if (ret)
			continue;
		switch (c) {
		case 'i':
			if (tl_parse_epoch("axprof merge", "--into", optarg, &into))
				return 2;
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
	dst_dir = ro.db;
	only = ro.epoch;
	into_given = into != 0;
	json = ro.json;
	flags = (force ? PDB_MERGE_FORCE : 0) | (ro.skip_damaged ? PDB_MERGE_SKIP_DAMAGED : 0);
	if (!(ro.seen & TL_SEEN_DB)) {
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
	if (json) {
		ax_json_doc_open(&j, stdout, "merge");
		ax_json_str(&j, "database", dst_dir);
		ax_json_u64(&j, "epoch", into);
		ax_json_arr_open(&j, "merged");
	}
	for (int a = optind; a < argc; a++) {
		char real[PATH_MAX];
		struct pdb_db *src;
		uint32_t *ep = NULL;
		size_t n = 0;
		bool same;

		same = realpath(argv[a], real) && !strcmp(real, dst_real);
		if (same && !only && !into_given) {
			fprintf(stderr,
				"axprof merge: %s is the database %s itself: not merged (to merge one "
				"of its epochs into another, name them: --epoch N and/or --into M)\n",
				argv[a], dst_dir);
			status = 1;
			continue;
		}
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
			pdb_skips_free(&sk);
			ret = pdb_merge_db_opt(dst, into, src, ep[i], flags, &sk);
			tl_skips_warn(&sk, "axprof merge");
			if (ret) {
				fprintf(stderr, "axprof merge: %s epoch %u: %s%s\n", argv[a], ep[i],
					pdb_errmsg(dst),
					ret == -EALREADY ? "; not merged (--force merges anyway)" :
							   "");
				status = 1;
				continue;
			}
			if (json) {
				ax_json_obj_open(&j, NULL);
				ax_json_str(&j, "source", argv[a]);
				ax_json_u64(&j, "source_epoch", ep[i]);
				if (ro.skip_damaged)
					tl_skips_json(&j, &sk);
				ax_json_obj_close(&j);
			} else {
				printf("merged %s epoch %u into %s epoch %u\n", argv[a], ep[i],
				       dst_dir, into);
				if (sk.n)
					printf("  not merged: %zu damaged file(s) (skipped; the merge is "
					       "recorded: merging them later needs --force)\n",
					       sk.n);
				for (size_t s = 0; s < sk.n; s++)
					printf("  skipped damaged %s\n", sk.v[s].file);
			}
		}
		free(ep);
		if (!same)
			pdb_close(src);
	}
	if (json)
		ax_json_doc_close(&j);
	pdb_skips_free(&sk);
	pdb_close(dst);
	return status;
}
