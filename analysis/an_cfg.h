/* analysis/an_cfg.h - control flow graph of one procedure: blocks, edges, jump tables, classes. */
#ifndef AN_CFG_H
#define AN_CFG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "axp.h"
#include "an_proc.h"

/*
 * DCPI SOSP'97 §6.1: "The CFG is built by extracting the code for a procedure from the
 * executable image. Basic block boundaries are identified from instructions that change control
 * flow, e.g., branches and jumps. For indirect jumps, we analyze the preceding instructions to
 * try to determine the possible targets of the jump. Sometimes this analysis fails, in which
 * case the CFG is noted as missing edges. The current analysis does not identify
 * interprocedural edges (e.g., from calls to longjmp), nor does it note their absence."
 *
 * Blocks end after: conditional branches, BR, BSR/JSR/JSR_COROUTINE (calls: control comes back
 * to the next instruction, a CALLRET edge), JMP, RET, CALL_PAL, and words that are not
 * instructions; a block starts at every branch target, jump-table target and entry.
 *
 * Every procedure has a virtual ENTRY node and a virtual EXIT node (not blocks):
 *   ENTRY -> the block at the procedure start and every extra entry (an_proc.h);
 *   block -> EXIT for RET (and `jmp (ra)`), a tail call (BR/BSR-with-zero or a branch to another
 *     procedure, a JMP through a GOT slot `ldq rX,d(gp)` or a procedure value loaded into pv, a
 *     JMP to a constant address in another procedure), a trap (privileged CALL_PAL, words that
 *     are not user instructions, bpt/bugchk/gentrap as below), falling off the end of the
 *     procedure, and an unresolved JMP (which also marks the CFG AN_CFG_MISSING_EDGES);
 *   block -> EXIT instead of the CALLRET edge for a call to a procedure known never to return
 *     with the program going on elsewhere (longjmp, pthread_exit: an_callee.h); a call that
 *     ends the process (abort, exit, __assert_fail) keeps its CALLRET edge;
 *   in a procedure that calls setjmp, block -> the block after each setjmp call (kind
 *     AN_EDGE_LONGJMP) for every other call: the callee may longjmp back (GCC's abnormal
 *     edges; an_callee.h);
 *   block -> EXIT, kind AN_EDGE_NORETURN: the artificial exit of an infinite loop (an_cyceq.h);
 *     it never runs (frequency 0) and exists only to make classes well defined.
 *
 * A JMP to a constant address inside the procedure (a computed goto's label kept in a
 * register) has that one target. Jump tables (GCC's Alpha switch code, also glibc's computed
 * gotos):
 *     cmpule  i,N,c          (or cmpult i,N+1,c; the compare may test zapnot(i,0xf))
 *     beq     c,default      (taken when out of range)
 *     ldah    t,hi(gp) ; lda t,lo(t)      table address, GP-relative
 *     s4addq  i,t,t
 *     ldl     t,d(t)         32-bit entries, relative to a base B
 *     addq    B,t,t          B = gp (switch) or a label address (computed goto)
 *     jmp     (t)
 * or, for GCC's computed gotos through `static void *tab[] = { &&l0, ... }` (Lua's
 * luaV_execute), 8-byte entries, absolute (base 0) or relative to B:
 *     s8addq  i,T,t ; ldq t,d(t) [; addq B,t,t] ; jmp (t)
 * where T often lives in a callee-saved register set once at the procedure's start.
 * The registers are followed backwards through the straight-line code before the JMP (at most
 * 64 instructions, through calls for callee-saved registers, stopping after an unconditional
 * transfer); constants come from LDA/LDAH/BIS/ADDQ chains from GP, PV (the procedure address
 * at its start) and RA after a call, or from the one definition of a callee-saved register
 * in the procedure (or its one straight-line chain of definitions). The bound is N+1 entries; the compare may test the index through ZAPNOT/AND
 * with a literal or SEXTL (the compiler knows the index fits). Without a compare the table is
 * scanned (at most 2^k entries after an AND with 2^k-1, 256 after EXTBL): entries are taken
 * while they are code addresses where the procedure may extend. Every real entry is one, so
 * the scan finds them all (perhaps a few more: a superset of the edges keeps the classes
 * sound). A table is accepted when every entry lands inside the procedure on a multiple of 4.
 * Anything else leaves the JMP unresolved.
 *
 * Entries of 8 bytes may be filled by the loader: in a shared object or PIE the table in
 * .data.rel.ro holds zeros and each entry is an R_ALPHA_RELATIVE relocation's addend
 * (an_reloc.h); read_entry takes the relocated value when there is one.
 *
 * Data flow into a JMP (issue 15 item 2): when a register has no definition in the
 * straight-line run before its use, its values are those the run's entries bring: the
 * fall-in, every direct branch into the run (the value before the branch), and every
 * jump-table edge into it (the target's own address when the JMP jumps through the same
 * register). A JMP whose register holds one of a few constants on every path (glibc's
 * vfprintf sets `t3 = &&do_form_unknown` and branches to a shared `jmp (t3)`) has those
 * constants as its targets (an_jtab.flow). The same data flow gives any constant operand
 * (a table base set before a loop), and a constant spilled to `d(sp)` and reloaded reads
 * as the value stored. Procedure entries and unresolved JMPs bring unknown values; the
 * jump-table edges found in one round feed the next (at most JT_ROUNDS rounds).
 *
 * Fallback (DCPI's "missing edges" made smaller): a JMP still unresolved jumps to a block
 * whose address is taken somewhere: a code address of this procedure stored in data or a
 * dynamic relocation (an_reloc.h), computed by a literal in this procedure (a GP- or
 * PV-relative LDA/LDAH chain), or the target of one of its resolved jump tables. Those
 * blocks are its targets (AN_EDGE_JTAB edges, an_jtab.fallback, AN_BLK_GUESSED on the targets,
 * AN_CFG_FALLBACK_EDGES): a superset of the real edges, so the classes stay sound, but the
 * estimates of the targets' classes carry at most medium confidence. With no such block the
 * JMP stays unresolved and the CFG is missing edges, as before.
 *
 * CALL_PAL bpt, bugchk and gentrap are traps (an EXIT edge) when padding or the procedure end
 * follows them, and return otherwise (GCC continues after `gentrap` for a handler that returns).
 */

enum an_edge_kind {
	AN_EDGE_FALL, /* to the next block (no control transfer, or a not-taken branch) */
	AN_EDGE_TAKEN, /* a taken direct branch */
	AN_EDGE_CALLRET, /* a call (BSR, JSR) or CALL_PAL returning to the next block */
	AN_EDGE_JTAB, /* a jump-table target of a JMP */
	AN_EDGE_ENTRY, /* ENTRY -> an entry block */
	AN_EDGE_EXIT, /* block -> EXIT (why: enum an_exit_why) */
	AN_EDGE_NORETURN, /* block -> EXIT, artificial (infinite loop; never runs) */
	AN_EDGE_LONGJMP, /* a call -> the block after a setjmp of the procedure (an_callee.h) */
	AN_EDGE_KIND_NR,
};

enum an_exit_why {
	AN_EXIT_NONE,
	AN_EXIT_RETURN, /* RET (or JMP through RA) */
	AN_EXIT_TAILCALL, /* BR or branch to another procedure, JMP through a GOT slot */
	AN_EXIT_TRAP, /* CALL_PAL that does not return, illegal or privileged instruction */
	AN_EXIT_FALLOUT, /* runs off the end of the procedure */
	AN_EXIT_UNKNOWN, /* JMP whose targets were not found (AN_CFG_MISSING_EDGES) */
	AN_EXIT_NORETCALL, /* a call to a procedure that never returns (an_callee.h) */
	AN_EXIT_NR,
};

extern const char *const an_edge_kind_name[AN_EDGE_KIND_NR];
extern const char *const an_exit_why_name[AN_EXIT_NR];

#define AN_NODE_ENTRY UINT32_MAX /* an_edge.from of ENTRY edges */
#define AN_NODE_EXIT (UINT32_MAX - 1) /* an_edge.to of EXIT and NORETURN edges */

struct an_edge {
	uint32_t from, to; /* block indices, or AN_NODE_ENTRY / AN_NODE_EXIT */
	uint8_t kind; /* enum an_edge_kind */
	uint8_t why; /* enum an_exit_why for EXIT edges, else AN_EXIT_NONE */
	uint32_t cls; /* frequency equivalence class (after an_cfg_classes) */
};

#define AN_BLK_ENTRY (1u << 0) /* has an edge from ENTRY */
#define AN_BLK_UNREACHABLE (1u << 1) /* not reachable from ENTRY */
#define AN_BLK_PAD (1u << 2) /* only padding (nop/unop/fnop/zero words); unreachable */
#define AN_BLK_JMP (1u << 3) /* ends in a JMP */
#define AN_BLK_UNRESOLVED (1u << 4) /* ends in a JMP whose targets are unknown */
#define AN_BLK_CALL (1u << 5) /* ends in a call */
#define AN_BLK_GUESSED (1u << 6) /* a fallback target of an unresolved JMP (address taken) */
#define AN_BLK_CALL_EXITS (1u << 7) /* ends in a call that ends the process (an_callee.h) */

struct an_block {
	uint64_t addr; /* address of its first instruction */
	uint32_t first, n; /* instructions an_cfg.insn[first .. first + n) */
	uint32_t flags; /* AN_BLK_* */
	uint32_t cls; /* frequency equivalence class */
	uint32_t succ, nsucc; /* out edges: an_cfg.edge[succ .. succ + nsucc) */
	uint32_t pred, npred; /* in edges: an_cfg.pred[pred .. pred + npred) are edge indices */
};

struct an_jtab {
	uint64_t jmp; /* address of the JMP */
	uint64_t table; /* address of the table (0 if not found) */
	uint64_t base; /* entries are relative to this (gp, or a label address) */
	uint64_t tmin, tmax; /* lowest and highest target (valid when n > 0) */
	uint32_t n; /* entries (0 when the table or its bound was not found) */
	uint8_t esize; /* bytes per entry: 4 (ldl, relative) or 8 (ldq, absolute or relative) */
	bool scanned; /* no range check found: n counts the entries read until one was not a
		       * code address of this procedure (or of the guessed ones next to it) */
	bool resolved; /* n > 0 and every target is inside the procedure */
	bool flow; /* no table: the n targets are the constants the data flow brings to the JMP */
	bool fallback; /* no table, no constant: the n address-taken blocks of the procedure */
};

#define AN_CFG_MISSING_EDGES (1u << 0) /* DCPI: "the CFG is noted as missing edges" */
#define AN_CFG_CLASSES (1u << 1) /* an_cfg_classes() has run */
#define AN_CFG_ODD_WORDS (1u << 2) /* holds words that are not user-mode instructions */
#define AN_CFG_FALLBACK_EDGES (1u << 3) /* a JMP's edges go to every address-taken block */

struct an_cfg {
	const struct an_proc *proc;
	uint64_t start; /* == proc->start; instruction i is at start + 4 i */
	uint32_t ninsns;
	struct axp_insn *insn; /* decoded, ninsns */
	uint32_t *blk_of; /* block index of each instruction */
	struct an_block *block;
	uint32_t nblocks;
	struct an_edge *edge; /* sorted by from (ENTRY edges first), then by creation */
	uint32_t nedges;
	uint32_t *pred; /* edge indices by destination block (EXIT edges not listed) */
	uint32_t entry_edges, nentry_edges; /* edge[entry_edges .. +nentry_edges): from ENTRY */
	uint32_t exit_preds, nexit_preds; /* pred[exit_preds .. +nexit_preds): edges into EXIT */
	struct an_jtab *jtab;
	uint32_t njtabs;
	uint32_t flags; /* AN_CFG_* */
	uint32_t nclasses; /* valid with AN_CFG_CLASSES */
	uint32_t nunreachable; /* blocks with AN_BLK_UNREACHABLE (padding included) */
};

/*
 * Build the CFG of procedure p of ps. Returns 0 and *out, or -ENOMEM, or -EINVAL (an empty or
 * misaligned procedure) with a message in err (may be NULL). An unresolvable JMP is not an error: the CFG is
 * marked AN_CFG_MISSING_EDGES.
 */
int an_cfg_build(const struct an_procs *ps, const struct an_proc *p, struct an_cfg **out,
		 struct ax_error *err);
void an_cfg_free(struct an_cfg *cfg);

/*
 * Frequency equivalence classes of blocks and edges (cycle equivalence, an_cyceq.h). With
 * AN_CFG_MISSING_EDGES every block and edge gets its own class (DCPI's rule). Infinite loops get
 * their artificial AN_EDGE_NORETURN edges first. Returns 0 or -ENOMEM.
 */
int an_cfg_classes(struct an_cfg *cfg);

/*
 * Check the CFG's invariants: blocks tile the procedure; block flags match reachability from
 * ENTRY; every reachable block reaches EXIT; edges agree with the last instruction of their block
 * (fall-through and call-return edges go to the next block, taken edges to the branch target);
 * successor ranges and predecessor lists hold every edge once; with classes: every class is
 * below nclasses <= blocks + edges, all distinct when edges are missing, and otherwise a block
 * with a single edge in (or out) shares that edge's class. Returns 0, or -EBADMSG with the first
 * violation in err (may be NULL).
 */
int an_cfg_check(const struct an_cfg *cfg, struct ax_error *err);

/* The block holding address addr, or UINT32_MAX. */
uint32_t an_cfg_block_at(const struct an_cfg *cfg, uint64_t addr);

static inline uint64_t an_cfg_addr(const struct an_cfg *cfg, uint32_t i)
{
	return cfg->start + 4 * (uint64_t)i;
}

#endif /* AN_CFG_H */
