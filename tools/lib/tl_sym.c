/* tools/lib/tl_sym.c - symbol names as the tools print them: C++ names demangled. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tl_sym.h"

/*
 * The demangler is libstdc++'s __cxa_demangle, the Itanium C++ ABI's own entry point (ABI
 * section 3.4): it is maintained with GCC, whose mangling the Alpha cross compiler uses, and
 * its runtime (libstdc++6) is on every Debian system, so the tools link it as
 * -l:libstdc++.so.6 without a -dev package. libiberty's cplus_demangle is the same code but
 * comes only as a static archive in libiberty-dev. Declared here because <cxxabi.h> is C++.
 */
extern char *__cxa_demangle(const char *mangled, char *buf, size_t *len, int *status);

struct entry {
	char *raw; /* NULL: free slot */
	char *shown; /* demangled name, NULL when it prints as raw */
};

static struct entry *tab; /* open addressing, keyed by raw's text */
static size_t cap, used;
static const char **rev; /* open addressing, keyed by the shown text: its entry's raw */
static const char **rev_shown;
static size_t rev_cap, rev_used;
static bool demangle_on = true;

void tl_sym_set_demangle(bool on)
{
	demangle_on = on;
}

bool tl_sym_demangling(void)
{
	return demangle_on;
}

static uint64_t hash_str(const char *s)
{
	uint64_t h = 1469598103934665603ull; /* FNV-1a */

	while (*s)
		h = (h ^ (unsigned char)*s++) * 1099511628211ull;
	return h;
}

static bool rev_add(const char *shown, const char *raw)
{
	if (2 * (rev_used + 1) > rev_cap) {
		size_t nc = rev_cap ? 2 * rev_cap : 64;
		const char **nr = calloc(nc, sizeof(*nr)), **ns = calloc(nc, sizeof(*ns));

		if (!nr || !ns) {
			free(nr);
			free(ns);
			return false;
		}
		for (size_t i = 0; i < rev_cap; i++) {
			size_t k;

			if (!rev_shown[i])
				continue;
			for (k = hash_str(rev_shown[i]) & (nc - 1); ns[k]; k = (k + 1) & (nc - 1))
				;
			ns[k] = rev_shown[i];
			nr[k] = rev[i];
		}
		free(rev);
		free(rev_shown);
		rev = nr;
		rev_shown = ns;
		rev_cap = nc;
	}
	size_t k;

	for (k = hash_str(shown) & (rev_cap - 1); rev_shown[k]; k = (k + 1) & (rev_cap - 1))
		;
	rev_shown[k] = shown;
	rev[k] = raw;
	rev_used++;
	return true;
}

const char *tl_sym_mangled(const char *shown)
{
	if (!shown || !rev_cap)
		return NULL;
	for (size_t k = hash_str(shown) & (rev_cap - 1); rev_shown[k]; k = (k + 1) & (rev_cap - 1))
		if (!strcmp(rev_shown[k], shown))
			return rev[k];
	return NULL;
}

/* raw demangled, with what follows its first '@' kept after it; NULL when it does not demangle. */
static char *demangle(const char *raw)
{
	const char *at = strchr(raw, '@');
	size_t n = at ? (size_t)(at - raw) : strlen(raw);
	char *base, *d, *out;
	int status = -1;

	if (n < 3 || raw[0] != '_' || raw[1] != 'Z')
		return NULL;
	base = strndup(raw, n);
	if (!base)
		return NULL;
	d = __cxa_demangle(base, NULL, NULL, &status);
	free(base);
	if (!d || status)
		return free(d), NULL;
	if (!at)
		return d;
	out = malloc(strlen(d) + strlen(at) + 1);
	if (out) {
		strcpy(out, d);
		strcat(out, at);
	}
	free(d);
	return out;
}

static bool grow(void)
{
	size_t nc = cap ? 2 * cap : 256;
	struct entry *nt = calloc(nc, sizeof(*nt));

	if (!nt)
		return false;
	for (size_t i = 0; i < cap; i++) {
		size_t k;

		if (!tab[i].raw)
			continue;
		for (k = hash_str(tab[i].raw) & (nc - 1); nt[k].raw; k = (k + 1) & (nc - 1))
			;
		nt[k] = tab[i];
	}
	free(tab);
	tab = nt;
	cap = nc;
	return true;
}

const char *tl_sym_name(const char *raw)
{
	struct entry *e;
	size_t k;

	if (!raw || !demangle_on || raw[0] != '_' || raw[1] != 'Z')
		return raw;
	if (2 * (used + 1) > cap && !grow())
		return raw; /* out of memory: the raw name is still right */
	for (k = hash_str(raw) & (cap - 1); tab[k].raw; k = (k + 1) & (cap - 1))
		if (!strcmp(tab[k].raw, raw))
			return tab[k].shown ? tab[k].shown : raw;
	e = &tab[k];
	e->raw = strdup(raw);
	if (!e->raw)
		return raw;
	e->shown = demangle(raw);
	used++;
	if (e->shown && !rev_add(e->shown, e->raw)) {
		free(e->shown);
		e->shown = NULL;
	}
	return e->shown ? e->shown : e->raw;
}

bool tl_sym_matches(const char *raw, const char *name)
{
	return !strcmp(raw, name) || !strcmp(tl_sym_name(raw), name);
}

bool tl_sym_shown_is(const char *shown, const char *name)
{
	const char *raw;

	if (!strcmp(shown, name))
		return true;
	raw = tl_sym_mangled(shown);
	return raw && !strcmp(raw, name);
}

const struct an_proc *tl_sym_proc_lookup(const struct an_procs *ps, const char *name)
{
	const struct an_proc *p = an_procs_lookup(ps, name);

	for (size_t i = 0; !p && i < ps->n; i++)
		if (ps->v[i].name && tl_sym_matches(ps->v[i].name, name))
			p = &ps->v[i];
	return p;
}

void tl_sym_json(struct ax_json *j, const char *key, const char *shown)
{
	const char *raw = tl_sym_mangled(shown);
	char k[64];

	ax_json_str(j, key, shown);
	if (!raw)
		return;
	snprintf(k, sizeof(k), "%s_mangled", key);
	ax_json_str(j, k, raw);
}
