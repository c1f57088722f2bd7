/* tools/lib/tl_stack.c - the sampled call stacks of a view (stacks.prof), frames resolved. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tl_stack.h"

static const struct tl_view_image *image_of(const struct tl_view *v, const char *key)
{
	if (!*key)
		return NULL;
	for (size_t i = 0; i < v->n; i++)
		if (!strcmp(v->im[i].img.key, key))
			return &v->im[i];
	return NULL;
}

static int add_stacks(const struct tl_view *v, const struct pdb_prof *prof, unsigned int event,
		      struct tl_stacks *out, size_t *cap)
{
	struct pdb_stack *ps;
	size_t n;
	int err = pdb_prof_stacks(prof, &ps, &n);

	if (err)
		return err;
	if (n)
		out->any = true;
	for (size_t i = 0; i < n; i++) {
		struct tl_stack *s;

		if (ps[i].event != event)
			continue;
		out->samples += ps[i].count;
		if (!ps[i].depth) {
			out->dropped += ps[i].count;
			continue;
		}
		if (out->n == *cap) {
			size_t ncap = *cap ? 2 * *cap : 64;
			struct tl_stack *ns = realloc(out->s, ncap * sizeof(*ns));

			if (!ns) {
				free(ps);
				return -ENOMEM;
			}
			out->s = ns;
			*cap = ncap;
		}
		s = &out->s[out->n++];
		s->flags = ps[i].flags;
		s->depth = ps[i].depth;
		s->count = ps[i].count;
		for (unsigned int j = 0; j < ps[i].depth; j++) {
			struct tl_frame *f = &s->f[j];

			f->im = image_of(v, ps[i].frame[j].key);
			f->offset = ps[i].frame[j].offset;
			f->start = 0;
			f->proc = f->im ? tl_view_proc(f->im, f->offset, &f->start) : NULL;
		}
	}
	free(ps);
	return 0;
}

int tl_stacks_load(const struct tl_view *v, unsigned int event, struct tl_stacks *out)
{
	size_t cap = 0;

	memset(out, 0, sizeof(*out));
	for (size_t i = 0; i < v->n; i++) {
		int err;

		if (!v->im[i].prof)
			continue;
		err = add_stacks(v, v->im[i].prof, event, out, &cap);
		if (err) {
			tl_stacks_free(out);
			return err;
		}
	}
	return 0;
}

void tl_stacks_free(struct tl_stacks *s)
{
	free(s->s);
	memset(s, 0, sizeof(*s));
}

const char *tl_frame_name(const struct tl_frame *f, char *buf, size_t size)
{
	if (!f->proc)
		snprintf(buf, size, "0x%" PRIx64, f->offset);
	else if (f->offset == f->start)
		snprintf(buf, size, "%s", f->proc);
	else
		snprintf(buf, size, "%s+0x%" PRIx64, f->proc, f->offset - f->start);
	return buf;
}

const char *tl_frame_image(const struct tl_frame *f)
{
	return f->im ? f->im->name : "";
}
