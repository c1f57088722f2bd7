/* tools/axprof/builtin-fsck.c - `axprof fsck`: list, and on request quarantine, damaged files. */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "axprof/builtin.h"
#include "ax_json.h"
#include "pdb.h"
#include "tl_opts.h"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: axprof fsck [-d DIR] [--epoch N | --all] [--repair] [--json]\n\n"
		"Check every file of a profile database: DIR/id and DIR/current, and in each epoch\n"
		"the index, the merge record, the manifest, the unknown profile and every image's\n"
		"table files (header, checksums, the identity against the file's place, every\n"
		"record), the manifest against the files and the image directories against the\n"
		"index. Each problem is listed with its file and reason.\n\n"
		"Options:\n"
		"  -d, --db DIR   the database (default $AXPROF_DB, else ./axprof-db)\n"
		"  --epoch N      only epoch N (with DIR's own files)\n"
		"  --all          every epoch (the default)\n"
		"  --repair       move each damaged file and stray temporary file to\n"
		"                 DIR/quarantine/epoch-N/KEY/FILE (FILE.reason beside it says why) and\n"
		"                 make the manifest agree with the files left, under the database\n"
		"                 lock: afterwards the readers work without --skip-damaged. Nothing\n"
		"                 is deleted; the samples of a quarantined file are lost to reports\n"
		"  --json         JSON output (docs/axprof-json.7)\n"
		"  --help         this text\n\n"
		"Kinds: DAMAGED (does not read), MISSING (listed in the manifest, not there), STRAY\n"
		"(a crashed writer's temporary file), NOTE (readers cope: unknown names, a file the\n"
		"manifest does not list yet, an image directory the index lacks).\n\n"
		"Exit status: 0 clean (notes only), 1 damage found (also when repaired: the output\n"
		"says what was done), 2 for bad options.\n");
}

static const char *const kind_name[] = {
	[PDB_FSCK_DAMAGED] = "damaged",
	[PDB_FSCK_MISSING] = "missing",
	[PDB_FSCK_STRAY] = "stray",
	[PDB_FSCK_NOTE] = "note",
};

/* The problems, then (summary) the verdict. */
static void print_text(const struct pdb_fsck *r, bool repair, const char *dir, bool summary)
{
	char up[16];

	for (size_t i = 0; i < r->n; i++) {
		const struct pdb_problem *p = &r->v[i];

		snprintf(up, sizeof(up), "%s", kind_name[p->kind]);
		for (char *c = up; *c; c++)
			*c = (char)(*c - 'a' + 'A');
		printf("%-8s %s: %s\n", up, p->file, p->why);
		if (p->moved_to)
			printf("         quarantined as %s\n", p->moved_to);
		else if (p->repaired)
			printf("         repaired: the manifest no longer lists it\n");
	}
	if (!summary)
		return;
	printf("%s: %zu epoch(s), %zu file(s) checked: ", dir, r->nepochs, r->files);
	if (!r->damaged)
		printf("clean%s\n", r->n ? " (notes only)" : "");
	else if (!repair)
		printf("%zu problem(s); 'axprof fsck --repair' quarantines them\n", r->damaged);
	else
		printf("%zu problem(s) repaired (%u manifest(s) rewritten); the database reads "
		       "cleanly now\n",
		       r->damaged, r->manifests_rewritten);
}

static void print_json(const struct pdb_fsck *r, bool repair, const char *dir)
{
	struct ax_json j;

	ax_json_doc_open(&j, stdout, "fsck");
	ax_json_str(&j, "database", dir);
	ax_json_arr_open(&j, "epochs");
	for (size_t i = 0; i < r->nepochs; i++)
		ax_json_u64(&j, NULL, r->epochs[i]);
	ax_json_arr_close(&j);
	ax_json_u64(&j, "files", r->files);
	ax_json_bool(&j, "clean", r->damaged == 0);
	ax_json_bool(&j, "repaired", repair && r->damaged);
	ax_json_arr_open(&j, "problems");
	for (size_t i = 0; i < r->n; i++) {
		const struct pdb_problem *p = &r->v[i];

		ax_json_obj_open(&j, NULL);
		ax_json_str(&j, "file", p->file);
		ax_json_str(&j, "kind", kind_name[p->kind]);
		if (p->epoch)
			ax_json_u64(&j, "epoch", p->epoch);
		if (p->key[0])
			ax_json_str(&j, "key", p->key);
		ax_json_str(&j, "why", p->why);
		if (p->moved_to)
			ax_json_str(&j, "quarantined", p->moved_to);
		ax_json_obj_close(&j);
	}
	ax_json_arr_close(&j);
	ax_json_doc_close(&j);
}

int cmd_fsck(int argc, char **argv)
{
	enum { O_ALL = 256, O_REPAIR };
	static const struct option longopts[] = {
		TL_LONGOPT_DB,
		TL_LONGOPT_EPOCH,
		TL_LONGOPT_JSON,
		{ "all", no_argument, NULL, O_ALL },
		{ "repair", no_argument, NULL, O_REPAIR },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct ax_error perr;
	struct tl_ropts ro;
	struct pdb_fsck r;
	struct pdb_db *db;
	bool repair = false, all = false;
	int c, ret;

	tl_ropts_init(&ro, "axprof fsck", 0);
	optind = 1;
	while ((c = getopt_long(argc, argv, "d:", longopts, NULL)) != -1) {
		ret = tl_ropts_parse(&ro, c, optarg);
		if (ret == 2)
			return 2;
		if (ret)
			continue;
		switch (c) {
		case O_ALL:
			all = true;
			break;
		case O_REPAIR:
			repair = true;
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
		fprintf(stderr, "axprof fsck: unexpected argument '%s'\n", argv[optind]);
		return 2;
	}
	if (all && ro.epoch) {
		fprintf(stderr, "axprof fsck: --epoch N and --all exclude each other\n");
		return 2;
	}
	if (pdb_open(ro.db, false, &db, &perr)) {
		fprintf(stderr, "axprof fsck: %s\n", perr.msg);
		return 1;
	}
	ret = pdb_fsck(db, ro.epoch, repair ? PDB_FSCK_REPAIR : 0, &r);
	if (ret) {
		fprintf(stderr, "axprof fsck: %s%s\n", pdb_errmsg(db),
			repair ? " (repair stopped; run it again)" : "");
		if (!ro.json) /* what was found before the failure */
			print_text(&r, false, ro.db, false);
		pdb_fsck_free(&r);
		pdb_close(db);
		return 1;
	}
	if (ro.json)
		print_json(&r, repair, ro.db);
	else
		print_text(&r, repair, ro.db, true);
	ret = r.damaged ? 1 : 0;
	pdb_fsck_free(&r);
	pdb_close(db);
	return ret;
}
