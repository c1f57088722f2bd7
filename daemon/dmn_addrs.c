/* daemon/dmn_addrs.c - load address observer records (VS_REC_ADDR) into each image's addrs table. */
/*
 * Issue 20 item 2 (prefetch candidates). A VS_REC_ADDR record is one hotlist of one load of one
 * process: its effective addresses or its strides. It goes to the image holding the load's pc, at
 * its offset (pdb.h PDB_FT_ADDRS). The values stay raw (virtual addresses of the process and
 * 64-bit differences): a data address need not lie in any image, and a reader names it with the
 * image's symbols when the image is loaded at its link address.
 */
#include <string.h>

#include "dmn_int.h"

void dmn_do_addr(struct dmn *d, const uint8_t *p, const struct hotlist *h)
{
	struct vs_rec_addr r;
	struct dmn_image *im;
	uint64_t off;

	memcpy(&r, p, sizeof(r));
	im = dmn_lookup_any(d, r.pid, r.pc, &off);
	if (!im) {
		d->st.obs_unknown++;
		return;
	}
	if (pdb_prof_add_addr(im->prof, off, r.kind, h))
		d->st.merge_errors++;
}
