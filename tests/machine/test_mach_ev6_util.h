/* tests/machine/test_mach_ev6_util.h - EV6 test helpers: a synthetic instruction feed. */
#ifndef TEST_MACH_EV6_UTIL_H
#define TEST_MACH_EV6_UTIL_H

#include <string.h>

#include "mach_ev6_model.h"
#include "test_mach_ev5_util.h" /* the encodings (e_mem, ADDQ, LDQ, ...) */

#define CTPOP(b, c) e_opr(0x1c, 0x30, 31, b, c)
#define STL(a, d, b) e_mem(0x2c, a, b, d)

/* Retire one instruction (executed functionally at pc, going to next_pc; ea for memory). */
static inline struct ev6_stages feed6(struct mach_ev6 *m, uint32_t word, uint64_t pc,
				      uint64_t next_pc, uint64_t ea)
{
	struct axp_insn d;
	struct axp_event ev;
	uint32_t f;

	axp_decode(word, &d);
	f = axp_op_info[d.op].flags;
	memset(&ev, 0, sizeof(ev));
	ev.pc = pc;
	ev.next_pc = next_pc;
	ev.word = word;
	ev.op = d.op;
	ev.dest = AXP_NO_DEST;
	ev.size = (uint8_t)axp_mem_size(f);
	ev.ea = ea;
	ev.is_load = (f & AXP_F_LD) != 0;
	ev.is_store = (f & AXP_F_ST) != 0;
	ev.taken = next_pc != pc + 4;
	mach_ev6_retire(m, &d, &ev);
	return m->last;
}

static inline struct ev6_stages feed6s(struct mach_ev6 *m, uint32_t word, uint64_t pc, uint64_t ea)
{
	return feed6(m, word, pc, pc + 4, ea);
}

/* A model with default parameters (changed by `tweak` when not NULL) and truth on. */
static inline struct mach_ev6 *new_ev6(void (*tweak)(struct mach_ev6_params *p))
{
	struct mach_ev6_params p;
	struct mach_ev6 *m = NULL;

	mach_ev6_params_default(&p);
	p.truth = true;
	if (tweak)
		tweak(&p);
	if (mach_ev6_new_params(&m, &p))
		return NULL;
	return m;
}

static inline struct ev6_trec trec6(const struct mach_ev6 *m, uint64_t pc)
{
	struct ev6_trec r;

	if (!mach_ev6_truth_get(m, pc, &r))
		memset(&r, 0, sizeof(r));
	return r;
}

#endif /* TEST_MACH_EV6_UTIL_H */
