/* tools/vprof/vp_class.h - vprof's classification of invariant instructions, per image (an_vclass). */
#ifndef VP_CLASS_H
#define VP_CLASS_H

#include "an_vclass.h"
#include "tl_view.h"

#define VP_DEP_MAX 64 /* dependants listed per instruction (the count is exact) */

/* One image's procedures and the CFG of the last procedure asked about. */
struct vp_class {
	const struct tl_view_image *im;
	struct an_procs *ps; /* NULL: not found (no ELF, or no code there) */
	struct an_cfg *cfg; /* the last procedure's */
	bool tried;
};

/*
 * Classify the instruction at off of image im (an_vclass.h). Keeps the image's procedures and
 * the last CFG in c between calls (call vp_class_done at the end). deps/ndeps: addresses of the
 * instruction and its dependants in its block (at most VP_DEP_MAX). Returns 0, or -ENOENT when
 * the code there cannot be analysed (no ELF, no procedure): then out says AN_VC_DATA, so the
 * instruction is shown, never hidden.
 */
int vp_classify(struct vp_class *c, const struct tl_view_image *im, uint64_t off,
		struct an_vinfo *out, uint64_t *deps, uint32_t *ndeps);
void vp_class_done(struct vp_class *c);

#endif
