/* machine/mach_stack.c - exact shadow call stacks per guest thread (`axprof record -g`). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "mach_stack.h"
#include "vs_core.h"

struct frame {
	uint64_t call_pc; /* the call instruction */
	uint64_t ret_to; /* where its callee returns: call_pc + 4 */
};

struct thread_stack {
	int32_t tid;
	uint8_t pending; /* VS_CALL_CALL or VS_CALL_RET fetched, not yet seen to execute */
	uint64_t pending_pc;
	struct frame *f;
	uint32_t n, cap; /* frames kept */
	uint64_t lost; /* calls deeper than MACH_STACK_FRAMES: counted, not kept */
};

struct mach_stacks {
	struct thread_stack *t;
	size_t nt, capt;
	size_t last; /* index of the thread looked up last */
	struct mach_stacks_stats st;
};

int mach_stacks_new(struct mach_stacks **out)
{
	*out = calloc(1, sizeof(**out));
	return *out ? 0 : -ENOMEM;
}

void mach_stacks_free(struct mach_stacks *st)
{
	if (!st)
		return;
	for (size_t i = 0; i < st->nt; i++)
		free(st->t[i].f);
	free(st->t);
	free(st);
}

void mach_stacks_keep_only(struct mach_stacks *st, int32_t tid)
{
	size_t k = 0;

	for (size_t i = 0; i < st->nt; i++) {
		if (st->t[i].tid == tid)
			st->t[k++] = st->t[i];
		else
			free(st->t[i].f);
	}
	st->nt = k;
	st->last = 0;
}

/* The stack of thread tid, made when first seen; NULL without memory. */
static struct thread_stack *thread_of(struct mach_stacks *st, int32_t tid)
{
	if (st->last < st->nt && st->t[st->last].tid == tid)
		return &st->t[st->last];
	for (size_t i = 0; i < st->nt; i++)
		if (st->t[i].tid == tid) {
			st->last = i;
			return &st->t[i];
		}
	if (st->nt == st->capt) {
		size_t cap = st->capt ? 2 * st->capt : 4;
		struct thread_stack *t = realloc(st->t, cap * sizeof(*t));

		if (!t)
			return NULL;
		st->t = t;
		st->capt = cap;
	}
	memset(&st->t[st->nt], 0, sizeof(st->t[0]));
	st->t[st->nt].tid = tid;
	st->last = st->nt;
	return &st->t[st->nt++];
}

static int push(struct mach_stacks *st, struct thread_stack *t, uint64_t call_pc)
{
	st->st.calls++;
	if (t->lost || t->n == MACH_STACK_FRAMES) {
		t->lost++;
		return 0;
	}
	if (t->n == t->cap) {
		uint32_t cap = t->cap ? 2 * t->cap : 64;
		struct frame *f = realloc(t->f, cap * sizeof(*f));

		if (!f) {
			t->lost++;
			return -ENOMEM;
		}
		t->f = f;
		t->cap = cap;
	}
	t->f[t->n++] = (struct frame){ call_pc, call_pc + 4 };
	if (t->n + t->lost > st->st.max_depth)
		st->st.max_depth = t->n + t->lost;
	return 0;
}

/* A ret went to `to`: pop to the innermost frame that returns there. */
static void pop(struct mach_stacks *st, struct thread_stack *t, uint64_t to)
{
	st->st.rets++;
	if (t->lost) {
		t->lost--;
		return;
	}
	for (uint32_t i = t->n; i > 0; i--)
		if (t->f[i - 1].ret_to == to) {
			t->n = i - 1;
			return;
		}
	st->st.rets_unmatched++;
}

/* The pending call or ret of t executed if the thread's next instruction is at next_pc. */
static int settle(struct mach_stacks *st, struct thread_stack *t, uint64_t next_pc)
{
	uint8_t k = t->pending;

	t->pending = VS_CALL_NONE;
	if (k == VS_CALL_NONE || next_pc == t->pending_pc)
		return 0;
	if (k == VS_CALL_CALL)
		return push(st, t, t->pending_pc);
	pop(st, t, next_pc);
	return 0;
}

int mach_stacks_fetch(struct mach_stacks *st, int32_t tid, uint64_t va, const struct axp_insn *d)
{
	struct thread_stack *t = thread_of(st, tid);
	int ret;

	if (!t)
		return -ENOMEM;
	ret = settle(st, t, va);
	if (d) {
		t->pending = (uint8_t)vs_call_kind_of(d);
		t->pending_pc = va;
	}
	return ret;
}

size_t mach_stacks_record(struct mach_stacks *st, int32_t tid, uint64_t pc, uint64_t next_pc,
			  uint32_t pid, unsigned int event, void *rec)
{
	struct thread_stack *t = thread_of(st, tid);
	struct vs_rec_stack r = { .h = { VS_REC_STACK, 0 }, .pid = pid, .count = 1 };
	uint8_t *out = rec;
	uint32_t depth = 1;

	r.event = (uint8_t)event;
	memcpy(out + sizeof(r), &pc, 8);
	if (t) {
		uint8_t k = t->pending;
		uint64_t at = t->pending_pc;

		/* Settle a call or ret already executed, but keep it pending if not (the next
		 * fetch decides again, the same way). */
		settle(st, t, next_pc);
		if (next_pc == at) {
			t->pending = k;
			t->pending_pc = at;
		}
		for (uint32_t i = t->n; i > 0 && depth < VS_STACK_MAX; i--, depth++)
			memcpy(out + sizeof(r) + 8 * depth, &t->f[i - 1].call_pc, 8);
		if (t->n + t->lost + 1 > VS_STACK_MAX) {
			r.flags = VS_STK_TRUNCATED;
			st->st.truncated++;
		}
	}
	r.depth = (uint16_t)depth;
	r.h.len = (uint16_t)VS_REC_STACK_SIZE(depth);
	memcpy(out, &r, sizeof(r));
	st->st.snapshots++;
	return r.h.len;
}

void mach_stacks_get_stats(const struct mach_stacks *st, struct mach_stacks_stats *out)
{
	*out = st->st;
}
