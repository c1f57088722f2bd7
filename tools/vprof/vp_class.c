/* tools/vprof/vp_class.c - vprof's classification of invariant instructions, per image (an_vclass). */
#include <errno.h>
#include <string.h>

#include "an_proc.h"
#include "vp_class.h"

void vp_class_done(struct vp_class *c)
{
	an_cfg_free(c->cfg);
	an_procs_free(c->ps);
	memset(c, 0, sizeof(*c));
}

int vp_classify(struct vp_class *c, const struct tl_view_image *im, uint64_t off,
		struct an_vinfo *out, uint64_t *deps, uint32_t *ndeps)
{
	uint32_t dep[VP_DEP_MAX];
	const struct an_proc *p;
	struct ax_error err;

	memset(out, 0, sizeof(*out));
	*ndeps = 0;
	if (c->im != im) {
		vp_class_done(c);
		c->im = im;
	}
	if (!c->tried) {
		c->tried = true;
		if (!im->elf || an_procs_find(im->elf, &c->ps, &err))
			c->ps = NULL;
	}
	if (!c->ps || !(p = an_procs_at(c->ps, off)))
		return -ENOENT;
	if (!c->cfg || c->cfg->proc != p) {
		an_cfg_free(c->cfg);
		c->cfg = NULL;
		if (an_cfg_build(c->ps, p, &c->cfg, &err))
			return -ENOENT;
	}
	if (an_vclass(c->cfg, im->elf, off, out, dep, VP_DEP_MAX))
		return -ENOENT;
	*ndeps = out->ndep < VP_DEP_MAX ? out->ndep : VP_DEP_MAX;
	for (uint32_t k = 0; k < *ndeps; k++)
		deps[k] = c->cfg->start + 4ull * dep[k];
	return 0;
}
