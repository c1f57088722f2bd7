/* machine/mach_stack.h - exact shadow call stacks per guest thread (`axprof record -g`). */
#ifndef MACH_STACK_H
#define MACH_STACK_H

#include <stdint.h>

#include "axp.h"
#include "vs_abi.h"

/*
 * The hosted machine sees every instruction its threads execute, so it keeps each thread's call
 * stack exactly, without unwinding (issue 16 item 4): a call (bsr, jsr with a link register,
 * vs_call_kind_of) that executes pushes its own pc and its return address; a ret that executes
 * pops to the innermost frame whose return address is where the ret went (a ret to no return
 * address on the stack, e.g. a signal handler's to the trampoline, changes nothing and is
 * counted; a longjmp (a jmp) leaves its frames until a ret below them). An instruction has
 * executed when the next fetch of its thread is of another pc, as in mach_ptruth.c.
 * A thread's stack holds up to MACH_STACK_FRAMES frames (deeper calls are counted, not kept, and
 * their rets match them blindly; a snapshot then starts at the innermost frame kept, flagged as
 * truncated). A forked child's stacks start empty at the fork. A snapshot keeps the innermost VS_STACK_MAX frames (the sampled
 * pc and VS_STACK_MAX - 1 call sites) and flags the record VS_STK_TRUNCATED when there were more.
 */
#define MACH_STACK_FRAMES (1u << 16)

struct mach_stacks;

struct mach_stacks_stats {
	uint64_t calls, rets; /* executed */
	uint64_t rets_unmatched; /* rets to no return address on the stack */
	uint64_t snapshots, truncated; /* stacks taken; of which deeper than VS_STACK_MAX */
	uint64_t max_depth; /* deepest stack seen (calls active) */
};

int mach_stacks_new(struct mach_stacks **out);
void mach_stacks_free(struct mach_stacks *st);
/* Forget every thread (a forked child starts from the parent's running thread only). */
void mach_stacks_keep_only(struct mach_stacks *st, int32_t tid);
/*
 * Thread tid fetches va (d: the decoded instruction there, NULL when it cannot be fetched):
 * its previous call or ret, if any, executed unless va is that same pc again. -ENOMEM when a
 * stack could not grow (the frame is dropped and counted as truncation later).
 */
int mach_stacks_fetch(struct mach_stacks *st, int32_t tid, uint64_t va, const struct axp_insn *d);
/*
 * The stack of thread tid interrupted at pc, whose next instruction is next_pc (a pending
 * call or ret settles the way the next fetch would settle it), into a VS_REC_STACK record at
 * rec (VS_REC_MAX bytes): header, pid, event, count 1, frames innermost first. Its length.
 */
size_t mach_stacks_record(struct mach_stacks *st, int32_t tid, uint64_t pc, uint64_t next_pc,
			  uint32_t pid, unsigned int event, void *rec);
void mach_stacks_get_stats(const struct mach_stacks *st, struct mach_stacks_stats *out);

#endif /* MACH_STACK_H */
