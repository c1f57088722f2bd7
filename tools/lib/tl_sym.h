/* tools/lib/tl_sym.h - symbol names as the tools print them: C++ names demangled. */
#ifndef TL_SYM_H
#define TL_SYM_H

#include <stdbool.h>

#include "an_proc.h"
#include "ax_json.h"

/*
 * Every tool prints a symbol through tl_sym_name() (tl_view_proc_bounds() does it for the
 * procedure names it returns), so C++ names are demangled in one place (issue 16 item 7):
 * "_ZN2ns5Shape4areaEv" prints "ns::Shape::area()". A suffix after '@' ("@plt", "@@GLIBC_2.0")
 * is kept after the demangled name; GCC's clone suffixes (".constprop.0") are demangled as
 * "[clone .constprop.0]". Names that are not Itanium C++ ABI names ("_Z...") or do not demangle
 * are printed as they are. With --no-demangle (tl_sym_set_demangle(false)) every name is raw.
 * Returned strings live until the process exits.
 */
const char *tl_sym_name(const char *raw);
/*
 * The raw (mangled) name behind a name tl_sym_name() returned (or a copy of it), or NULL when
 * no name demangled to it. Two raw names that demangle alike (a static and a global function
 * of one signature) give either.
 */
const char *tl_sym_mangled(const char *shown);
/* Does name (a procedure name the user typed) name raw: raw itself or its demangled form? */
bool tl_sym_matches(const char *raw, const char *name);
/* Is shown (a name tl_sym_name() returned) the one the user typed, demangled or raw? */
bool tl_sym_shown_is(const char *shown, const char *name);
/* an_procs_lookup(), then a procedure whose demangled name is name (annotate, cfg). */
const struct an_proc *tl_sym_proc_lookup(const struct an_procs *ps, const char *name);
void tl_sym_set_demangle(bool on);
bool tl_sym_demangling(void);

/*
 * JSON: key (e.g. "procedure") with the shown name and, when it was demangled, key + "_mangled"
 * with the raw one (docs/axprof-json.7). shown is what tl_sym_name() returned (or any string).
 */
void tl_sym_json(struct ax_json *j, const char *key, const char *shown);

#endif /* TL_SYM_H */
