/* analysis/an_vclass.h - why an instruction's value is invariant: by construction, or in the data. */
#ifndef AN_VCLASS_H
#define AN_VCLASS_H

#include <stdint.h>

#include "an_cfg.h"

/*
 * The value-sampling slides' goal (slide 2) is to "find semi-invariant values for prefetching,
 * specialization, speculation". Many instructions are invariant by construction and teach
 * nothing; an_vclass() tells them from data invariants by looking at the code alone:
 *
 *   AN_VC_CONST    every input is a literal, r31/f31, the procedure's GP, PV at the procedure's
 *                  start, SP (a frame address: `lda t4,64(sp)` is one value per call depth),
 *                  or the result of such an instruction earlier in the block (LDA/LDAH
 *                  chains, `mov 7,t3`); and every write of GP (its set-up after entry or a call);
 *                  never a read of machine state (mf_fpcr, rpcc, rc/rs);
 *   AN_VC_LITERAL  a load whose address is known from such a chain (GP-relative, as GCC reads
 *                  the GOT) and lies in a section that is read-only, the GOT (.got*) or
 *                  relocated read-only data (.data.rel.ro*): the value is fixed once the image is
 *                  loaded; its result counts as constant for the instructions after it;
 *   AN_VC_LINK     the return address a BSR/JSR/BR/JMP writes (pc + 4: one value per pc);
 *   AN_VC_LOOP     a compare whose result the block's conditional branch tests, where that
 *                  branch controls a loop: one of its successors is at or before the branch's
 *                  block in the address order (a back edge, the loop's latch) or exactly one of
 *                  its successors can come back to the block (the loop's exit test): 0 on every
 *                  iteration but the last;
 *   AN_VC_DATA     everything else: a load from writable memory, arithmetic on values not known
 *                  from the code. These are the findings worth acting on.
 *
 * The rules look within one block for operand definitions (DCPI's analysis is per block too):
 * an input defined in another block counts as data, so a constant computed in a predecessor
 * shows up as data — the classification errs towards showing an instruction, never hiding one.
 */
enum an_vclass {
	AN_VC_DATA,
	AN_VC_CONST,
	AN_VC_LITERAL,
	AN_VC_LINK,
	AN_VC_LOOP,
	AN_VC_NR,
};

extern const char *const an_vclass_name[AN_VC_NR];

/* What a data finding suggests (slide 2's three uses, and hoisting a loaded value). */
enum an_vsuggest {
	AN_VS_NONE, /* not a data invariant */
	AN_VS_HOIST, /* a load: hoist the load or cache the value it returns */
	AN_VS_SPECIALISE, /* computed from a procedure argument: specialise the procedure */
	AN_VS_SPECULATE, /* anything else: speculate on the value (value prediction) */
	AN_VS_NR,
};

extern const char *const an_vsuggest_name[AN_VS_NR];

struct an_vinfo {
	uint8_t cls; /* enum an_vclass */
	uint8_t suggest; /* enum an_vsuggest (AN_VS_NONE unless cls is AN_VC_DATA) */
	uint8_t arg; /* with AN_VS_SPECIALISE: the argument register read (16..21, 48..53) */
	/* The instruction and the instructions of its block that use its result, directly or
	 * through each other, before it is overwritten (its dependants), as indices into
	 * cfg->insn: dep[0 .. ndep). Bounded by the block. */
	uint32_t ndep;
};

/*
 * Classify the instruction at address addr of cfg (inside the procedure, a multiple of 4).
 * elf: the image, for the sections of literal loads (may be NULL: no load is then literal).
 * dep (may be NULL) receives up to maxdep indices of the instruction and its dependants; the
 * count found (not limited by maxdep) is in out->ndep. Returns 0, or -EINVAL for an address
 * outside the procedure.
 */
int an_vclass(const struct an_cfg *cfg, const struct img *elf, uint64_t addr, struct an_vinfo *out,
	      uint32_t *dep, uint32_t maxdep);

#endif
