/* tests/diff/diffvec.h - vector and result formats of the differential test against qemu-alpha. */
#ifndef DIFFVEC_H
#define DIFFVEC_H

#include <stdint.h>

/*
 * The differential test runs each vector twice: natively under qemu-alpha (runner.c, an Alpha
 * program) and through axp_step() on the host (diffcheck.c), then compares every register, FPCR,
 * the data window and the next PC.
 *
 *   vecgen --seed S -n N | qemu-alpha -L /usr/alpha-linux-gnu runner | diffcheck
 *
 * Both sides see the same address space (fixed addresses, 8 KB Alpha pages):
 *
 *   DV_CODE_BASE   8 KB  r-x  every word is CALL_PAL bpt (a landing pad) except the vector's
 *                             instructions at DV_SLOT, DV_SLOT + 4, ... (up to DV_MAX_INSN)
 *   DV_DATA_BASE   8 KB  rw-  zero; its last 256 bytes are the data window DV_WIN, loaded from
 *                             the vector. The rest of the page is "unmodelled": a vector that
 *                             touches it is skipped by diffcheck (the generator never aims there)
 *   DV_RO_BASE     8 KB  r--  constant pattern dv_ro_byte(offset): loads work, stores fault
 *   DV_DATA_BASE - 8 KB and DV_RO_BASE + 8 KB are unmapped (guards)
 *
 * qemu-alpha puts the runner's own image and heap near 0x120000000 and its stack, ld.so and libc
 * at 0x4000000000 and up (dv_is_host_addr()). A vector must never store to or jump there (it
 * could corrupt or hijack the runner): vecgen rejects such vectors, and diffcheck skips any
 * vector whose simulated accesses reach those ranges.
 *
 * Records are fixed-width, little-endian (both machines are). A stream is a sequence of records
 * with no header.
 *
 * struct dv_vec (816 bytes), vecgen -> runner:
 *   OFFSET SIZE  FIELD
 *        0    4  magic      DV_VEC_MAGIC
 *        4    4  ninsn      1..DV_MAX_INSN: instructions at DV_SLOT + 4 * i
 *        8    8  seq        vector number within its stream (replay: vecgen --seed S --first seq)
 *       16   16  insn[4]    instruction words (unused ones are DV_PAD)
 *       32    4  tag        generator's intent (enum dv_tag), statistics only
 *       36    4  op         generator's intended enum axp_op (AXP_OP_INVALID for random words)
 *       40  256  r[32]      integer registers on entry (r[31] ignored)
 *      296  256  f[32]      FP registers on entry (f[31] ignored)
 *      552    8  fpcr       FPCR on entry (low 32 bits must be zero: QEMU keeps only [63:32])
 *      560  256  mem[256]   data window contents on entry
 *
 * A control transfer in instruction i never targets slot j <= i (that could loop forever under
 * qemu); vecgen guarantees it.
 *
 * struct dv_res (1640 bytes), runner -> diffcheck: the state qemu-alpha reported in the first
 * signal after entering the vector, followed by the vector itself.
 *        0    4  magic      DV_RES_MAGIC
 *        4    4  signo      Linux/Alpha signal number (SIGTRAP 5 = landed on a pad)
 *        8    4  code       siginfo si_code
 *       12    4  pad        zero
 *       16    8  addr       siginfo si_addr
 *       24    8  pc         sigcontext sc_pc (for SIGTRAP: the pad's address + 4)
 *       32  256  r[32]      sc_regs (r[31] reported as 0)
 *      288  256  f[32]      sc_fpregs (f[31] reported as 0)
 *      544    8  fpcr       sc_fpcr
 *      552  256  mem[256]   data window after the vector
 *      808    8  dirty      nonzero when the unmodelled part of the data page was found changed
 *                           (the runner then zeroes it again)
 *      816  816  vec        the vector, echoed
 *     1632    8  reserved   zero
 */

#define DV_PAGE 8192ull
#define DV_CODE_BASE 0x0000000140000000ull
#define DV_SLOT (DV_CODE_BASE + 0x1000)
#define DV_DATA_BASE 0x0000000150000000ull
#define DV_WIN_SIZE 256u
#define DV_WIN (DV_DATA_BASE + DV_PAGE - DV_WIN_SIZE)
#define DV_RO_BASE (DV_DATA_BASE + DV_PAGE)

#define DV_MAX_INSN 4
#define DV_PAD 0x00000080u /* call_pal bpt: SIGTRAP, sc_pc = pad + 4 */

#define DV_VEC_MAGIC 0x31565644u /* "DVV1" */
#define DV_RES_MAGIC 0x31525644u /* "DVR1" */

/* What the generator meant a vector to exercise (for counting; the comparison ignores it). */
enum dv_tag {
	DV_TAG_OP, /* one operation from ops.def, chosen operands */
	DV_TAG_PAIR, /* 2-4 instructions (LL/SC, LL/ST/SC, RS/RC, MT_FPCR + FP op, ST + LD) */
	DV_TAG_RANDOM, /* a random word */
	DV_TAG_BADFN, /* a valid opcode with a bad function code or a bad fixed field */
	DV_TAG_NR,
};

struct dv_vec {
	uint32_t magic;
	uint32_t ninsn;
	uint64_t seq;
	uint32_t insn[DV_MAX_INSN];
	uint32_t tag;
	uint32_t op;
	uint64_t r[32];
	uint64_t f[32];
	uint64_t fpcr;
	uint8_t mem[DV_WIN_SIZE];
};

struct dv_res {
	uint32_t magic;
	int32_t signo;
	int32_t code;
	uint32_t pad;
	uint64_t addr;
	uint64_t pc;
	uint64_t r[32];
	uint64_t f[32];
	uint64_t fpcr;
	uint8_t mem[DV_WIN_SIZE];
	uint64_t dirty;
	struct dv_vec vec;
	uint64_t reserved;
};

_Static_assert(sizeof(struct dv_vec) == 816, "dv_vec layout");
_Static_assert(sizeof(struct dv_res) == 1640, "dv_res layout");

/* Linux/Alpha signal numbers (asm/signal.h), the same on both sides of the comparison. */
#define DV_SIGILL 4
#define DV_SIGTRAP 5
#define DV_SIGFPE 8
#define DV_SIGBUS 10
#define DV_SIGSEGV 11

/* Address ranges the runner process itself occupies under qemu-alpha (with margins). */
static inline int dv_is_host_addr(uint64_t va)
{
	return (va >= 0x0000000110000000ull && va < 0x0000000130000000ull) ||
	       (va >= 0x0000003f00000000ull && va < 0x0000004100000000ull);
}

/* The read-only page's contents: a fixed, non-repeating-looking byte pattern. */
static inline uint8_t dv_ro_byte(uint64_t off)
{
	return (uint8_t)(off * 0x9d + (off >> 8) * 0x3b + 0x5a);
}

#endif /* DIFFVEC_H */
