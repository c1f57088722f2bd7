/* analysis/an_callee.c - calls that never return, or return twice, known by the callee's name. */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "an_callee.h"
#include "an_cfg.h"
#include "img.h"

/* an_callee.h cites where each comes from; glibc's internal names of the same entries too. */
static const char *const noreturn_names[] = {
	"longjmp",	     "_longjmp",      "siglongjmp",	 "__longjmp",	 "__libc_longjmp",
	"__libc_siglongjmp", "__longjmp_chk", "____longjmp_chk", "pthread_exit", "__pthread_exit",
	"__cxa_throw",	     "__cxa_rethrow", "_Unwind_Resume",
};

static const char *const exits_names[] = {
	"abort",
	"exit",
	"_exit",
	"_Exit",
	"quick_exit",
	"__stack_chk_fail",
	"__stack_chk_fail_local",
	"__assert_fail",
	"__assert_perror_fail",
	"__fortify_fail",
	"__chk_fail",
	"__libc_fatal",
};

static const char *const twice_names[] = {
	"setjmp",
	"_setjmp",
	"sigsetjmp",
	"__sigsetjmp",
};

/* name up to its first '@' (a version or "@plt") equals one of v */
static bool listed(const char *name, const char *const *v, size_t n)
{
	size_t len = strcspn(name, "@");

	for (size_t i = 0; i < n; i++)
		if (strlen(v[i]) == len && !strncmp(name, v[i], len))
			return true;
	return false;
}

enum an_callee_kind an_callee_kind_name(const char *name)
{
	if (!name)
		return AN_CALLEE_RETURNS;
	if (listed(name, noreturn_names, sizeof(noreturn_names) / sizeof(noreturn_names[0])))
		return AN_CALLEE_NORETURN;
	if (listed(name, exits_names, sizeof(exits_names) / sizeof(exits_names[0])))
		return AN_CALLEE_EXITS;
	if (listed(name, twice_names, sizeof(twice_names) / sizeof(twice_names[0])))
		return AN_CALLEE_TWICE;
	return AN_CALLEE_RETURNS;
}

/*
 * A procedure of the image that has no way back to its caller: in its CFG (complete: no missing
 * edges) no exit but traps and NORETURN calls is reachable from its entries without going
 * through a call that ends the process (AN_BLK_CALL_EXITS). It is NORETURN when a NORETURN
 * call (an AN_EXIT_NORETCALL edge) is reachable so, else EXITS. Cached in ps->noret; a procedure whose CFG is being built (recursion)
 * or deeper than NORET_DEPTH calls down counts as returning, and that answer is not cached.
 */
#define NORET_DEPTH 4 /* [U] callees followed from one CFG */

enum { NORET_UNKNOWN, NORET_RETURNS, NORET_NORETURN, NORET_EXITS, NORET_BUSY };

static int cfg_noret(const struct an_cfg *cfg)
{
	uint32_t *q = malloc(((size_t)cfg->nblocks + 1) * sizeof(*q)), nq = 0;
	uint8_t *seen = calloc((size_t)cfg->nblocks + 1, 1);
	int ret = NORET_EXITS;

	if (!q || !seen || (cfg->flags & AN_CFG_MISSING_EDGES)) {
		ret = NORET_RETURNS;
		goto out;
	}
	for (uint32_t e = 0; e < cfg->nedges; e++)
		if (cfg->edge[e].from == AN_NODE_ENTRY && cfg->edge[e].to < cfg->nblocks &&
		    !seen[cfg->edge[e].to]) {
			seen[cfg->edge[e].to] = 1;
			q[nq++] = cfg->edge[e].to;
		}
	while (nq && ret != NORET_RETURNS) {
		const struct an_block *b = &cfg->block[q[--nq]];

		if (b->flags & AN_BLK_CALL_EXITS)
			continue;
		for (uint32_t e = b->succ; e < b->succ + b->nsucc; e++) {
			const struct an_edge *ed = &cfg->edge[e];

			if (ed->kind == AN_EDGE_EXIT && ed->why == AN_EXIT_NORETCALL)
				ret = NORET_NORETURN;
			else if (ed->kind == AN_EDGE_EXIT && ed->why != AN_EXIT_TRAP)
				ret = NORET_RETURNS;
			else if (ed->to < cfg->nblocks && !seen[ed->to]) {
				seen[ed->to] = 1;
				q[nq++] = ed->to;
			}
		}
	}
out:
	free(q);
	free(seen);
	return ret;
}

static enum an_callee_kind proc_kind(const struct an_procs *ps, const struct an_proc *p)
{
	size_t i = (size_t)(p - ps->v);
	struct an_procs *mut = (struct an_procs *)ps; /* only the cache changes */
	struct an_cfg *cfg = NULL;

	if (!ps->noret || ps->noret[i] == NORET_BUSY)
		return AN_CALLEE_RETURNS;
	if (ps->noret[i] == NORET_UNKNOWN) {
		if (ps->noret_depth >= NORET_DEPTH)
			return AN_CALLEE_RETURNS;
		ps->noret[i] = NORET_BUSY;
		mut->noret_depth++;
		ps->noret[i] =
			an_cfg_build(ps, p, &cfg, NULL) ? NORET_RETURNS : (uint8_t)cfg_noret(cfg);
		mut->noret_depth--;
		an_cfg_free(cfg);
	}
	return ps->noret[i] == NORET_NORETURN ? AN_CALLEE_NORETURN :
	       ps->noret[i] == NORET_EXITS    ? AN_CALLEE_EXITS :
						AN_CALLEE_RETURNS;
}

enum an_callee_kind an_callee_kind_at(const struct an_procs *ps, uint64_t addr)
{
	const struct img_symbol *s = img_plt_at(ps->elf, addr);
	const struct an_proc *p;
	enum an_callee_kind k;

	if (s)
		return an_callee_kind_name(s->name);
	p = an_procs_at(ps, addr);
	if (!p)
		return AN_CALLEE_RETURNS;
	k = an_callee_kind_name(p->name);
	return k == AN_CALLEE_RETURNS ? proc_kind(ps, p) : k;
}

enum an_callee_kind an_callee_kind_slot(const struct an_procs *ps, uint64_t slot)
{
	uint32_t lo, hi;
	uint64_t v;

	if (img_plt_at(ps->elf, slot))
		return an_callee_kind_at(ps, slot); /* the old PLT: the slot is the entry */
	if (an_relocs_value(&ps->rel, slot, &v))
		return an_callee_kind_at(ps, v);
	if (slot & 7 || img_read32(ps->elf, slot, &lo) || img_read32(ps->elf, slot + 4, &hi))
		return AN_CALLEE_RETURNS;
	return an_callee_kind_at(ps, (uint64_t)hi << 32 | lo);
}
