/* tests/tools/add-samples.c - add synthetic samples of one event to an image's profile (tests). */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pdb.h"

/*
 * usage: add-samples DIR IMAGE EVENT OFFSET=COUNT...
 *        add-samples DIR IMAGE CONFLICT LOAD=OTHER,PRIOR,COUNT...
 *        add-samples DIR IMAGE PROFILEME OFFSET=RETIRED,BADPATH,REPLAYED,DMISS,MISPREDICT...
 * Adds COUNT samples of EVENT (a pdb event name: REPLAY, CYCLES, ...) at each OFFSET (an image
 * address, hex with 0x) to the profile of IMAGE (a path ending in "/IMAGE", or a key) in the
 * current epoch of the database DIR, through pdb_merge_store: what a CPU with that event would
 * have recorded. Lets a test show vreplay a database with REPLAY samples before any hosted CPU
 * model takes replay traps. The CONFLICT form adds store-load conflicts of IMAGE's load at LOAD
 * with an earlier store at PRIOR of image OTHER (named like IMAGE): vreplay's pairs across
 * images, which no workload makes yet. The PROFILEME form adds ProfileMe aggregates at OFFSET:
 * RETIRED retired samples, BADPATH aborted on a mispredicted path, REPLAYED aborted by a
 * store-load replay, DMISS and MISPREDICT samples with those events (decimal), at a mean interval
 * of 100 fetched instructions a sample: the view's estimator on known counts. Exit 0, 1 on
 * failure (message on stderr), 2 for bad usage.
 */

static int image_key(struct pdb_db *db, uint32_t epoch, const char *name, char *key)
{
	struct pdb_image *list;
	size_t n, ln = strlen(name);
	int found = -ENOENT;

	if (pdb_image_list(db, epoch, &list, &n))
		return -EIO;
	for (size_t i = 0; i < n && found; i++) {
		size_t lp = strlen(list[i].path);

		if (!strcmp(list[i].key, name) || (lp > ln && list[i].path[lp - ln - 1] == '/' &&
						   !strcmp(list[i].path + lp - ln, name))) {
			strcpy(key, list[i].key);
			found = 0;
		}
	}
	pdb_image_list_free(list, n);
	return found;
}

static int add_all(struct pdb_prof *p, int ev, char **args, int n)
{
	for (int i = 0; i < n; i++) {
		char *end;
		uint64_t off = strtoull(args[i], &end, 16), cnt;

		if (*end != '=')
			return -EINVAL;
		cnt = strtoull(end + 1, &end, 10);
		if (*end || pdb_prof_add_sample(p, (unsigned int)ev, off, cnt))
			return -EINVAL;
	}
	return 0;
}

/* OFFSET=RETIRED,BADPATH,REPLAYED,DMISS,MISPREDICT (hex, then decimal counts). */
static int add_profileme(struct pdb_prof *p, char **args, int n)
{
	for (int i = 0; i < n; i++) {
		struct pdb_profileme m;
		uint64_t off, v[5];
		char *end;

		memset(&m, 0, sizeof(m));
		off = strtoull(args[i], &end, 16);
		for (unsigned int k = 0; k < 5; k++) {
			if (*end != (k ? ',' : '='))
				return -EINVAL;
			v[k] = strtoull(end + 1, &end, 10);
		}
		if (*end)
			return -EINVAL;
		m.status[0] = m.hist[0] = v[0];
		m.status[1] = v[1];
		m.status[2] = v[2];
		m.events[2] = v[3];
		m.events[6] = v[4];
		m.samples_p = v[0] + v[1] + v[2];
		m.events2 = 200 * m.samples_p;
		if (pdb_prof_add_profileme(p, off, &m))
			return -EINVAL;
	}
	return 0;
}

/* LOAD=OTHER,PRIOR,COUNT (hex, name, hex, decimal): OTHER's key from db. */
static int add_conflicts(struct pdb_db *db, uint32_t epoch, struct pdb_prof *p, char **args, int n)
{
	for (int i = 0; i < n; i++) {
		char key[PDB_KEY_MAX + 1], *end, *name, *comma;
		uint64_t load = strtoull(args[i], &end, 16), prior, cnt;

		if (*end != '=')
			return -EINVAL;
		name = end + 1;
		comma = strchr(name, ',');
		if (!comma)
			return -EINVAL;
		*comma = 0;
		if (image_key(db, epoch, name, key))
			return -ENOENT;
		prior = strtoull(comma + 1, &end, 16);
		if (*end != ',')
			return -EINVAL;
		cnt = strtoull(end + 1, &end, 10);
		if (*end || pdb_prof_add_conflict(p, load, key, prior, PDB_CNF_STORE_LOAD, cnt, 1))
			return -EINVAL;
	}
	return 0;
}

int main(int argc, char **argv)
{
	char key[PDB_KEY_MAX + 1];
	struct pdb_prof *p;
	struct pdb_db *db;
	struct ax_error err;
	uint32_t epoch;
	int ev, ret;

	bool cnf = argc >= 5 && !strcmp(argv[3], "CONFLICT");
	bool pme = argc >= 5 && !strcmp(argv[3], "PROFILEME");

	if (argc < 5 || (!cnf && !pme && (ev = pdb_event_id(argv[3])) < 0)) {
		fprintf(stderr, "usage: add-samples DIR IMAGE EVENT OFFSET=COUNT...\n");
		return 2;
	}
	p = pdb_prof_new();
	if (!p || (pme && add_profileme(p, argv + 4, argc - 4)) ||
	    (!cnf && !pme && add_all(p, ev, argv + 4, argc - 4))) {
		fprintf(stderr, "add-samples: bad OFFSET=COUNT (hex offset, decimal count)\n");
		pdb_prof_free(p);
		return 2;
	}
	if (pdb_open(argv[1], false, &db, &err)) {
		fprintf(stderr, "add-samples: %s\n", err.msg);
		pdb_prof_free(p);
		return 1;
	}
	ret = pdb_epoch_current(db, &epoch);
	if (!ret && cnf)
		ret = add_conflicts(db, epoch, p, argv + 4, argc - 4);
	if (!ret)
		ret = image_key(db, epoch, argv[2], key);
	if (!ret)
		ret = pdb_merge_store(db, epoch, key, p);
	if (ret)
		fprintf(stderr, "add-samples: cannot add to image '%s' of %s: %s\n", argv[2],
			argv[1], *pdb_errmsg(db) ? pdb_errmsg(db) : strerror(-ret));
	pdb_close(db);
	pdb_prof_free(p);
	return ret ? 1 : 0;
}
