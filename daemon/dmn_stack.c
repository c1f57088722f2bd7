/* daemon/dmn_stack.c - call stack records (VS_REC_STACK, `record -g`) into each image's stacks. */
/*
 * Issue 16 item 4. A VS_REC_STACK record is the stack of count samples of one process: pc[0] the
 * sampled pc, pc[i] the call instruction of the i-th innermost active call. It goes to the image
 * holding pc[0] (pdb.h PDB_FT_STACKS), each frame named, as samples are, by the image of the
 * process that holds it and its offset there; a frame no image holds is kept with the empty key
 * and its raw pc, and counted (stack_frames_unknown). A stack whose sampled pc no image holds is
 * dropped and counted (stacks_unknown): its sample went to unknown.prof.
 */
#include <string.h>

#include "dmn_int.h"

void dmn_do_stack(struct dmn *d, const uint8_t *p)
{
	struct pdb_frame f[PDB_STK_DEPTH_MAX];
	struct vs_rec_stack r;
	struct dmn_image *leaf = NULL;
	unsigned int i;

	memcpy(&r, p, sizeof(r));
	if (r.depth > PDB_STK_DEPTH_MAX) { /* dmn_feed checked it against VS_STACK_MAX */
		d->st.merge_errors++;
		return;
	}
	for (i = 0; i < r.depth; i++) {
		struct dmn_image *im;
		uint64_t pc, off;

		memcpy(&pc, p + sizeof(r) + 8 * (size_t)i, 8);
		im = dmn_lookup(d, r.pid, pc, &off);
		if (i == 0 && !im) {
			d->st.stacks_unknown += r.count;
			return;
		}
		if (i == 0)
			leaf = im;
		if (!im)
			d->st.stack_frames_unknown++;
		f[i].key = im ? im->desc.key : "";
		f[i].offset = im ? off : pc;
	}
	d->st.stacks += r.count;
	if (pdb_prof_add_stack(leaf->prof, dmn_pdb_event(r.event),
			       r.flags & VS_STK_TRUNCATED ? PDB_STK_TRUNCATED : 0, f, r.depth,
			       r.count))
		d->st.merge_errors++;
}
