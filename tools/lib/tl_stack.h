/* tools/lib/tl_stack.h - the sampled call stacks of a view (stacks.prof), frames resolved. */
#ifndef TL_STACK_H
#define TL_STACK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tl_view.h"

/*
 * Issue 16 item 4: `record -g` stacks (pdb.h PDB_FT_STACKS) of every image of a view, one event,
 * each frame resolved to its image in the view and its procedure (ELF function symbol).
 */
struct tl_frame {
	const struct tl_view_image
		*im; /* NULL: no image of the view (raw pc, or not in the epoch) */
	uint64_t offset; /* in im, else the pc */
	const char *proc; /* procedure name, NULL when none */
	uint64_t start; /* its address */
};
struct tl_stack {
	uint32_t flags; /* PDB_STK_* */
	uint32_t depth; /* >= 1 */
	uint64_t count;
	struct tl_frame f[PDB_STK_DEPTH_MAX]; /* innermost first */
};
struct tl_stacks {
	struct tl_stack *s;
	size_t n;
	uint64_t samples; /* the event's samples with a stack, kept or not */
	uint64_t dropped; /* of which the full tables kept no stack (depth-0 records) */
	bool any; /* some image of the view has stacks.prof (of any event) */
};

/* The stacks of event in every image of v. 0 or -ENOMEM. */
int tl_stacks_load(const struct tl_view *v, unsigned int event, struct tl_stacks *out);
void tl_stacks_free(struct tl_stacks *s);
/* "proc+0xOFF", "proc" at its start, "0xOFF" without a symbol, into buf. */
const char *tl_frame_name(const struct tl_frame *f, char *buf, size_t size);
/* The image's name to print for f ("" when none). */
const char *tl_frame_image(const struct tl_frame *f);

#endif /* TL_STACK_H */
