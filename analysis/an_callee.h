/* analysis/an_callee.h - calls that never return, or return twice, known by the callee's name. */
#ifndef AN_CALLEE_H
#define AN_CALLEE_H

#include <stdint.h>

#include "an_proc.h"

/*
 * DCPI SOSP'97 §6.1 notes that its CFG "does not identify interprocedural edges (e.g., from
 * calls to longjmp), nor does it note their absence". A call is taken to return once to the
 * next instruction (a CALLRET edge), which puts the block of the call and the block after it
 * in one frequency class. Three kinds of callee break that (issue 15, item (c) of stop 30):
 *   AN_CALLEE_NORETURN: never returns, and the program goes on elsewhere (C11 7.13.2 longjmp,
 *     POSIX siglongjmp and pthread_exit, the C++ ABI's __cxa_throw and _Unwind_Resume). The
 *     call block leaves the procedure (an EXIT edge, AN_EXIT_NORETCALL), and the code after
 *     it is not reached from it.
 *   AN_CALLEE_EXITS: never returns because the process ends (C11 7.22.4 abort, exit, _Exit,
 *     quick_exit; POSIX _exit; glibc's fatal-error entries such as __stack_chk_fail and
 *     __assert_fail). The call keeps its CALLRET edge (AN_BLK_CALL_EXITS marks it): the
 *     classes it joins differ by at most the one execution that ends the process, while an
 *     EXIT edge would split, on every assertion of a procedure, classes whose counts are
 *     equal in every run (measured: vfprintf's in libcheavy, -0.5 point within 5%).
 *   AN_CALLEE_TWICE: returns again on every longjmp to its buffer (C11 7.13.1 setjmp, POSIX
 *     sigsetjmp). The longjmp happens while the procedure is active, inside one of its other
 *     calls, so each of those may end at the block after the setjmp call instead of its own
 *     return point (an AN_EDGE_LONGJMP edge, GCC's abnormal edges): Lua's
 *     luaD_rawrunprotected calls _setjmp 6,013 times, returns from it 12,013 times, and its
 *     call of the protected function returns 13 times.
 * A procedure of the image whose CFG has no way back to its caller (it leaves only through such
 * calls or traps) never returns either: NORETURN when it may reach a NORETURN call (Lua's
 * luaD_throw, which ends in longjmp or abort), EXITS otherwise.
 * Calls that only sometimes do not return (an indirect call into code that may longjmp: Lua's
 * yields across luaD_precall) are not known statically and keep their CALLRET edge.
 */
enum an_callee_kind {
	AN_CALLEE_RETURNS, /* returns once (or unknown) */
	AN_CALLEE_NORETURN,
	AN_CALLEE_EXITS,
	AN_CALLEE_TWICE,
};

/* The kind of a callee by its symbol name ("abort", "abort@plt", "_setjmp@GLIBC_2.0"). */
enum an_callee_kind an_callee_kind_name(const char *name);

/*
 * The kind of a call to addr in ps's image: a procedure (by its name) or a PLT entry (by its
 * slot's symbol). AN_CALLEE_RETURNS when addr names nothing known.
 */
enum an_callee_kind an_callee_kind_at(const struct an_procs *ps, uint64_t addr);

/*
 * The kind of a call through the GOT word at slot (`ldq pv,d(gp); jsr ra,(pv)`): the word's
 * link-time value, a PLT entry under lazy binding (img_plt.c) or, relocated, a procedure of
 * the image (an_reloc.h); or, in the old PLT layout, the slot itself is the PLT entry.
 */
enum an_callee_kind an_callee_kind_slot(const struct an_procs *ps, uint64_t slot);

#endif /* AN_CALLEE_H */
