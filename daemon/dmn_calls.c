/* daemon/dmn_calls.c - procedure observer records (VS_REC_PROC) into each image's procs table. */
/*
 * Value-sampling slides 2 and 12, DCPI's dcpivarg. A VS_REC_PROC record is one hotlist of one
 * process: ARG and CALLER ones are keyed by a procedure entry (the call's target), RET ones by the
 * ret's pc; all go to the image holding that pc, at its offset (pdb.h PDB_FT_PROCS). A CALLER
 * hotlist's values are the calling instructions' pcs, each in whatever image of the process holds
 * it (a call from the program into libc): each value becomes that image's key and offset
 * (pdb_prof_caller_value), the empty key with the raw pc when no image holds it. The counts, tau
 * and n are kept, so the list stays the same counting sample over the re-named values.
 */
#include <string.h>

#include "dmn_int.h"

/* The caller hotlist h of process pid, its values re-named for prof; false when one cannot be. */
static bool name_callers(struct dmn *d, struct pdb_prof *prof, uint32_t pid, struct hotlist *h)
{
	for (uint32_t i = 0; i < h->used; i++) {
		uint64_t off = h->value[i], v;
		struct dmn_image *im = dmn_lookup_any(d, pid, h->value[i], &off);

		if (!im)
			off = h->value[i];
		if (pdb_prof_caller_value(prof, im ? im->desc.key : "", off, &v))
			return false;
		h->value[i] = v;
	}
	return true;
}

void dmn_do_proc(struct dmn *d, const uint8_t *p, struct hotlist *h)
{
	struct vs_rec_proc r;
	struct dmn_image *im;
	uint64_t off;

	memcpy(&r, p, sizeof(r));
	im = dmn_lookup_any(d, r.pid, r.pc, &off);
	if (!im) {
		d->st.obs_unknown++;
		return;
	}
	if (r.kind == VS_PROC_CALLER && !name_callers(d, im->prof, r.pid, h)) {
		d->st.merge_errors++;
		return;
	}
	if (pdb_prof_add_proc(im->prof, off, r.kind, r.reg, h))
		d->st.merge_errors++;
}
