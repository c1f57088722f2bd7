/* machine/mach_ev6_waste.c - EV6 truth: issue slots each instruction's in-progress time wasted. */
/*
 * [PM] ProfileMe, MICRO'97 §5.2.3: an instruction I is "in progress" from its fetch until it is
 * ready to retire (an aborted copy: until its abort); the issue slots of that time not used by
 * instructions that issue in it and later retire ("useful" ones) are wasted. Per pc, over every
 * timed copy of it (retired executions: fetch -> retire-ready; replayed attempts: fetch -> the
 * trap; bad-path copies after a mispredict: their fetch -> the redirect), the model adds:
 *   windows  the copies counted;
 *   cycles   their in-progress cycles, b - a for the window [a, b];
 *   slots    C x cycles, C = issue_slots (4 a cycle: the 21264's sustainable rate, [PM §5.2.3]);
 *   useful   the other retired instructions whose (final) issue cycle t has a <= t <= b,
 *            counted exactly, whatever their fetch distance from I (the estimator sees only
 *            +-W). "Other": the paper's useful overlap is a property of a pair, I and another
 *            instruction; a retired I's own issue slot, always inside its window, is not
 *            counted (so a 1-instruction window wastes C x cycles - 0).
 * Wasted = slots - useful. Both ends are inclusive for `useful` and the length is b - a, which
 * is what the daemon's pair analysis measures (daemon/dmn_pme.c), so an unbiased estimator
 * converges to these numbers. Younger copies an older trap aborted are not timed by the model
 * (their span is 0 in ProfileMe records too) and are not counted.
 *
 * How it is exact in a trace-driven model (EV6-MODEL.md): instructions are processed in program
 * order and fetch cycles never decrease, and an instruction issues after its fetch; so once the
 * instruction fetched at cycle F is processed, no retired instruction will issue at a cycle < F
 * any more. Retired issues are counted per cycle in a ring (cnt) until their cycle is final,
 * then folded into prefix counts (pre); a window [a, b] waits in the bucket of b until b is
 * final and then takes pre[b] - pre[a - 1]. Windows longer than the ring are clamped to its
 * length and counted (mach_ev6_waste_clamped(); the tests check it stays 0).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "mach_ev6_model.h"

#define WR 131072u /* cycles the rings span (power of two) */

struct wwin { /* a window waiting for its end cycle to be final */
	uint64_t a, b;
	uint32_t rec; /* its pc's record */
	uint32_t next; /* next in its bucket (index + 1) or 0 */
	uint32_t self; /* 1: a retired copy, whose own issue is inside and not counted */
};

struct ev6_waste {
	uint64_t base; /* cycles < base are final */
	uint64_t total; /* retired issues at cycles < base */
	uint64_t top; /* one past the latest cycle any window or issue used */
	uint32_t *cnt; /* retired issues at cycle c, base <= c < base + WR */
	uint64_t *pre; /* retired issues at cycles <= c, base - WR <= c < base */
	uint32_t *head; /* windows by b % WR (index + 1) */
	struct wwin *win;
	uint32_t nwin, capwin, freewin; /* freewin: a free list through next (index + 1) */
	struct mach_truth_waste *rec; /* per pc, by hash */
	uint32_t mask, used;
	uint64_t clamped, lost;
};

static inline size_t pc_hash(uint64_t pc)
{
	return (size_t)(((pc >> 2) * 0x9e3779b97f4a7c15ull) >> 20);
}

int ev6_waste_new(struct mach_ev6 *m)
{
	struct ev6_waste *w = calloc(1, sizeof(*w));

	if (!w)
		return -ENOMEM;
	w->cnt = calloc(WR, sizeof(*w->cnt));
	w->pre = calloc(WR, sizeof(*w->pre));
	w->head = calloc(WR, sizeof(*w->head));
	w->capwin = 1024;
	w->win = malloc(w->capwin * sizeof(*w->win));
	w->mask = 1024 - 1;
	w->rec = calloc(w->mask + 1, sizeof(*w->rec));
	m->waste = w;
	if (!w->cnt || !w->pre || !w->head || !w->win || !w->rec) {
		ev6_waste_free(m);
		return -ENOMEM;
	}
	return 0;
}

void ev6_waste_free(struct mach_ev6 *m)
{
	struct ev6_waste *w = m->waste;

	if (!w)
		return;
	free(w->cnt);
	free(w->pre);
	free(w->head);
	free(w->win);
	free(w->rec);
	free(w);
	m->waste = NULL;
}

static int grow_rec(struct ev6_waste *w)
{
	uint32_t nmask = w->mask * 2 + 1;
	struct mach_truth_waste *n = calloc((size_t)nmask + 1, sizeof(*n));

	if (!n)
		return -ENOMEM;
	for (uint32_t i = 0; i <= w->mask; i++) {
		size_t h;

		if (!w->rec[i].windows)
			continue;
		for (h = pc_hash(w->rec[i].pc) & nmask; n[h].windows; h = (h + 1) & nmask)
			;
		n[h] = w->rec[i];
	}
	free(w->rec);
	w->rec = n;
	w->mask = nmask;
	return 0;
}

/* The record of pc (created with windows = 1 so that a slot in use is never empty), or -1. */
static int64_t rec_of(struct mach_ev6 *m, uint64_t pc)
{
	struct ev6_waste *w = m->waste;
	size_t h;

	if (2 * (w->used + 1) > w->mask + 1 && grow_rec(w)) {
		m->tx_failed = true;
		return -1;
	}
	for (h = pc_hash(pc) & w->mask; w->rec[h].windows; h = (h + 1) & w->mask)
		if (w->rec[h].pc == pc) {
			w->rec[h].windows++;
			return (int64_t)h;
		}
	w->rec[h] = (struct mach_truth_waste){ .pc = pc, .windows = 1 };
	w->used++;
	return (int64_t)h;
}

/* Retired issues at cycles <= c, for a final c still in the ring (c = -1: none). */
static uint64_t pre_at(const struct ev6_waste *w, int64_t c)
{
	return c < 0 ? 0 : w->pre[(uint64_t)c & (WR - 1)];
}

static void resolve(struct mach_ev6 *m, const struct wwin *x)
{
	struct ev6_waste *w = m->waste;
	struct mach_truth_waste *r = &w->rec[x->rec];
	uint64_t a = x->a;

	if (x->b + 1 > a + WR - 1) { /* pre[a - 1] has left the ring */
		a = x->b + 2 - WR;
		w->clamped++;
	}
	r->useful += pre_at(w, (int64_t)x->b) - pre_at(w, (int64_t)a - 1) - x->self;
}

/* Cycles < to are final: fold their issues and close the windows ending in them. */
static void advance(struct mach_ev6 *m, uint64_t to)
{
	struct ev6_waste *w = m->waste;

	for (; w->base < to; w->base++) {
		uint32_t i = (uint32_t)(w->base & (WR - 1)), k, *link = &w->head[i];

		w->total += w->cnt[i];
		w->cnt[i] = 0;
		w->pre[i] = w->total;
		while ((k = *link)) {
			struct wwin *x = &w->win[k - 1];

			if (x->b !=
			    w->base) { /* a window of a later lap (cannot happen: clamped) */
				link = &x->next;
				continue;
			}
			*link = x->next;
			resolve(m, x);
			x->next = w->freewin;
			w->freewin = k;
		}
	}
}

void ev6_waste_window(struct mach_ev6 *m, uint64_t pc, uint64_t a, uint64_t b, bool retired)
{
	struct ev6_waste *w = m->waste;
	int64_t r;
	struct wwin *x;
	uint32_t k;

	if (!w)
		return;
	r = rec_of(m, pc);
	if (r < 0)
		return;
	if (b < a) /* no time in progress: nothing issued in it */
		return;
	w->rec[r].cycles += b - a;
	w->rec[r].slots += (b - a) * m->p.issue_slots;
	if (b >= w->base + WR) { /* beyond the ring: clamp its end */
		b = w->base + WR - 1;
		w->clamped++;
	}
	if (b < w->base) { /* already final */
		struct wwin t = { .a = a, .b = b, .rec = (uint32_t)r, .self = retired };

		resolve(m, &t);
		return;
	}
	if (w->freewin) {
		k = w->freewin;
		w->freewin = w->win[k - 1].next;
	} else {
		if (w->nwin == w->capwin) {
			struct wwin *n = realloc(w->win, 2 * (size_t)w->capwin * sizeof(*n));

			if (!n) {
				m->tx_failed = true;
				return;
			}
			w->win = n;
			w->capwin *= 2;
		}
		k = ++w->nwin;
	}
	x = &w->win[k - 1];
	*x = (struct wwin){
		.a = a, .b = b, .rec = (uint32_t)r, .next = w->head[b & (WR - 1)], .self = retired
	};
	w->head[b & (WR - 1)] = k;
	if (b + 1 > w->top)
		w->top = b + 1;
}

void ev6_waste_issue(struct mach_ev6 *m, uint64_t t, uint64_t final)
{
	struct ev6_waste *w = m->waste;

	if (!w)
		return;
	if (t < w->base || t >= w->base + WR)
		w->lost++; /* cannot happen: issue follows fetch, fetch never goes back */
	else
		w->cnt[t & (WR - 1)]++;
	if (t + 1 > w->top)
		w->top = t + 1;
	advance(m, final);
}

static int cmp_rec(const void *a, const void *b)
{
	const struct mach_truth_waste *x = a, *y = b;

	return x->pc < y->pc ? -1 : x->pc > y->pc;
}

int ev6_waste_encode(struct mach_ev6 *m, uint8_t **out, size_t *n)
{
	struct ev6_waste *w = m->waste;
	struct mach_truth_waste *v;
	size_t k = 0;

	*out = NULL;
	*n = 0;
	if (!w)
		return 0;
	advance(m, w->top); /* the run is over: every cycle is final */
	v = malloc((w->used ? w->used : 1) * sizeof(*v));
	*out = calloc(w->used ? w->used : 1, MACH_TRUTH_WASTE_SIZE);
	if (!v || !*out) {
		free(v);
		free(*out);
		*out = NULL;
		return -ENOMEM;
	}
	for (uint32_t i = 0; i <= w->mask; i++)
		if (w->rec[i].windows)
			v[k++] = w->rec[i];
	qsort(v, k, sizeof(*v), cmp_rec);
	for (size_t i = 0; i < k; i++) {
		uint8_t *p = *out + i * MACH_TRUTH_WASTE_SIZE;

		mach_put64(p, v[i].pc);
		mach_put64(p + 8, v[i].windows);
		mach_put64(p + 16, v[i].cycles);
		mach_put64(p + 24, v[i].slots);
		mach_put64(p + 32, v[i].useful);
	}
	*n = k;
	free(v);
	return 0;
}

bool mach_ev6_waste_get(struct mach_ev6 *m, uint64_t pc, struct mach_truth_waste *out)
{
	struct ev6_waste *w = m->waste;

	if (!w)
		return false;
	advance(m, w->top);
	for (size_t h = pc_hash(pc) & w->mask; w->rec[h].windows; h = (h + 1) & w->mask)
		if (w->rec[h].pc == pc) {
			*out = w->rec[h];
			return true;
		}
	return false;
}

uint64_t mach_ev6_waste_clamped(const struct mach_ev6 *m)
{
	return m->waste ? m->waste->clamped + m->waste->lost : 0;
}
