/* tools/lib/tl_prof.c - a database profile handed to the analysis: samples per event, images. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tl_prof.h"

unsigned int tl_pdb_event(unsigned int an_ev)
{
	static const unsigned int map[AN_EV_NR] = {
		[AN_EV_CYCLES] = PDB_EV_CYCLES,	  [AN_EV_IMISS] = PDB_EV_IMISS,
		[AN_EV_DMISS] = PDB_EV_DMISS,	  [AN_EV_DTBMISS] = PDB_EV_DTBMISS,
		[AN_EV_ITBMISS] = PDB_EV_ITBMISS, [AN_EV_BRANCHMP] = PDB_EV_BRANCHMP,
	};

	return an_ev < AN_EV_NR ? map[an_ev] : PDB_EV_MAX;
}

/* The samples of one event as analysis' array (NULL when none). */
static int samples_of(const struct pdb_prof *prof, unsigned int an_ev, struct an_count **out,
		      size_t *n)
{
	struct pdb_count *v;
	struct an_count *c;
	int ret;

	*out = NULL;
	ret = pdb_prof_samples(prof, tl_pdb_event(an_ev), &v, n);
	if (ret || !*n)
		return ret;
	c = malloc(*n * sizeof(*c));
	if (!c) {
		free(v);
		return -ENOMEM;
	}
	for (size_t i = 0; i < *n; i++)
		c[i] = (struct an_count){ v[i].offset, v[i].count };
	free(v);
	*out = c;
	return 0;
}

int tl_fi_set_profile(struct an_fi_image *im, const struct pdb_prof *prof)
{
	for (unsigned int e = 0; e < AN_EV_NR; e++) {
		struct an_count *v;
		size_t n = 0;
		int ret;

		ret = samples_of(prof, e, &v, &n);
		if (!ret)
			ret = an_fi_set_samples(im, e, v, n);
		free(v);
		if (ret)
			return ret;
	}
	return 0;
}

int tl_fi_open(const char *path, const struct pdb_prof *prof, struct an_fi_image **out,
	       struct ax_error *err)
{
	int ret;

	ret = an_fi_open(path, out, err);
	if (ret || !prof)
		return ret;
	ret = tl_fi_set_profile(*out, prof);
	if (ret) {
		ax_fail(err, ret, "%s: cannot take its profile: %s", path, strerror(-ret));
		an_fi_close(*out);
		*out = NULL;
	}
	return ret;
}

int tl_stall_procs(const char *path, const struct pdb_prof *prof, const struct an_fi_opts *o,
		   struct an_stall_proc **out, size_t *n, size_t *skipped, struct ax_error *err)
{
	struct an_fi_image *im;
	int ret;

	*out = NULL;
	*n = 0;
	*skipped = 0;
	ret = tl_fi_open(path, prof, &im, err);
	if (ret)
		return ret;
	ret = an_stall_procs(im, o, out, n, skipped);
	if (ret)
		ax_fail(err, ret, "out of memory");
	an_fi_close(im);
	return ret;
}
