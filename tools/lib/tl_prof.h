/* tools/lib/tl_prof.h - a database profile handed to the analysis: samples per event, images. */
#ifndef TL_PROF_H
#define TL_PROF_H

#include <stddef.h>

#include "an_freq_image.h"
#include "pdb.h"

/*
 * analysis/ knows nothing of the profile database: it takes sorted arrays of struct an_count
 * per AN_EV_* event. These adapters read them out of a struct pdb_prof.
 */

/* The database event (PDB_EV_*) of an analysis event (AN_EV_*); PDB_EV_MAX for none. */
unsigned int tl_pdb_event(unsigned int an_ev);

/* Give im every event analysis knows from prof. 0, -ENOMEM. */
int tl_fi_set_profile(struct an_fi_image *im, const struct pdb_prof *prof);

/*
 * an_fi_open() the ELF file at path and give it prof's samples (prof may be NULL: none). 0 and
 * *out, or -Exxx with a one-line message in err (may be NULL).
 */
int tl_fi_open(const char *path, const struct pdb_prof *prof, struct an_fi_image **out,
	       struct ax_error *err);

/*
 * an_stall_procs() of the image at path with prof's samples: 0, or -Exxx with a message in err
 * (may be NULL; the image cannot be read, -ENOMEM).
 */
int tl_stall_procs(const char *path, const struct pdb_prof *prof, const struct an_fi_opts *o,
		   struct an_stall_proc **out, size_t *n, size_t *skipped, struct ax_error *err);

#endif /* TL_PROF_H */
