/* kmod/interp/fp.h - Alpha IEEE S/T floating point in integer code, bit-exact with qemu-alpha. */
#ifndef AXP_FP_H
#define AXP_FP_H

#include "axp.h"

/*
 * The reference is qemu-alpha (QEMU 7.2 linux-user): its target/alpha/fpu_helper.c, helper.c
 * (cpu_alpha_load/store_fpcr), translate.c (gen_ieee_*, gen_fp_exc_raise) and softfloat, as
 * established by running tests/interp/fpcheck/ against it. Nothing here uses float or double.
 *
 * Reference behaviour of qemu-alpha. [E] = established by experiment (fpcheck-alpha under
 * qemu-alpha 7.2.22, and 3 million random vectors agree with this code); [S] = read in QEMU's
 * source only (not observable from a linux-user program).
 *
 *  FPCR
 *   1. [E] MT_FPCR stores bits 63:32 of Fa unchanged (every bit: SUM, DNOD, the reserved bits
 *      46:32) and drops bits 31:0; MF_FPCR returns exactly that. SUM is never computed, and no
 *      operation sets it. A new process starts with 0x680e800000000000 (INVD DZED OVFD UNFD
 *      INED DNOD, dynamic rounding normal). DNOD has no effect.
 *   2. [E] /D takes the rounding mode from FPCR[59:58]: 0 chopped, 1 minus, 2 normal, 3 plus.
 *   3. [E] FPCR.DNZ (bit 48) reads every denormal operand as a zero of the same sign, no flag.
 *      A tiny result is flushed to a signed zero with NO flag at all (neither UNF nor INE) when
 *      the instruction has no /U, or has /U and FPCR has both UNFD and UNDZ. The flush test is
 *      made before rounding (a result that would round up to the smallest normal is flushed).
 *      Otherwise tininess is detected after rounding, and UNF is raised only for a tiny result
 *      that is also inexact (an exact denormal raises nothing).
 *
 *  Operands
 *   4. [E] Without /S an operand register (not F31) whose T-format view is denormal traps
 *      before the operation: FPCR and Fc unchanged. One whose T view is an infinity or a NaN
 *      sets FPCR.INV and traps, Fc unchanged. Compares trap on NaNs and denormals but accept
 *      infinities. Fa is checked before Fb. The check is made on the 64-bit register also for
 *      S operations, and for CVTTQ and CVTST (fn11 0x2ac), not for CVTQS, CVTQT, CVTQL, CVTLQ.
 *   5. [E] With /S no operand is checked: denormals are computed with (or read as zero under
 *      DNZ), infinities and NaNs follow IEEE 754.
 *   6. [E] S operations read a binary32 made of register bits 63:62 and 58:29 (bits 61:59 and
 *      28:0 are ignored) and write register format: the 8-bit exponent widened to 11 bits
 *      (0xff -> 0x7ff, 0 -> 0, else bit 7 copied to bit 10 and its complement to bits 9:7).
 *      LDS and ITOFS use the same widening, STS and FTOIS the same narrowing.
 *
 *  NaNs
 *   7. [E] Invalid operations (inf-inf, 0*inf, 0/0, inf/inf, sqrt(x<0)) give the default NaN
 *      0x7ff8000000000000 (S too). A NaN operand propagates, quieted. With two NaN operands the
 *      x87 rule picks: a quiet NaN over a signalling one; of two of the same kind the larger
 *      fraction, then the positive one. A signalling NaN operand raises INV. SUBx keeps Fb's
 *      own sign when it returns Fb's NaN.
 *   8. [E] CMPTEQ and CMPTUN raise INV only for signalling NaNs, CMPTLT and CMPTLE for any NaN.
 *      True is 0x4000000000000000 (2.0), false 0; -0 equals +0.
 *
 *  Exceptions and traps
 *   9. [E] Status bits INV DZE OVF UNF INE IOV are FPCR bits 52..57. "Ignored": UNF and IOV
 *      unless /U (/V), INE unless /I.
 *  10. [E] Without /S every raised status bit is ORed into FPCR, even the ignored ones (a plain
 *      inexact ADDT sets FPCR.INE), and the instruction traps if a raised bit is not ignored,
 *      whatever the FPCR disable bits say.
 *  11. [E] With /S only the raised, not ignored bits are ORed into FPCR, and the instruction
 *      traps only if one of them is enabled: INV unless INVD, DZE unless DZED, OVF unless
 *      OVFD, UNF unless UNFD, INE unless INED. IOV never traps under /S (QEMU master's source
 *      would trap; the 7.2 binary does not).
 *  12. [E] A trap is SIGFPE with si_code FPE_FLTINV (7) and sc_pc = the next instruction,
 *      delivered AFTER Fc was written and FPCR updated (except the operand traps of item 4).
 *      [S] sc_traparg_a0 is 0 in linux-user; exc_sum below is QEMU's arith_excp summary:
 *      without /S the not-ignored bits, with /S SWC plus the enabled bits, INV for item 4.
 *  13. [E] CVTQS/CVTQT without /I never touch FPCR (not even INE); with /I as in 10/11.
 *
 *  Conversions and moves
 *  14. [E] CVTTQ: NaN and infinity give 0 and INV. |x| >= 2^63, except exactly -2^63, gives
 *      IOV and INE and the low 64 bits of the two's-complement integer. Otherwise the value
 *      rounded per the qualifier (/C, /M, normal, /D), INE when inexact. A denormal under /S
 *      (without DNZ) counts as a tiny non-zero value: 0 or +-1 by the rounding mode, INE.
 *  15. [E] CVTQL: Fc = Fb[31:30] << 62 | Fb[29:0] << 29, raising IOV and INE when Fb is not a
 *      32-bit signed value: CVTQL sets both in FPCR without trapping, CVTQL/V traps, CVTQL/SV
 *      sets IOV only and never traps. CVTLQ: Fc = sign-extended Fb[63:62]:Fb[58:29].
 *  16. [E] CVTTS rounds per qualifier and can overflow and underflow; CVTST (fn11 0x2ac or
 *      0x6ac only) is exact and raises INV only for a signalling NaN.
 *  17. [E] Zero signs: x - x and (-0) + (+0) are +0, or -0 when rounding to minus; sqrt(-0) is
 *      -0; overflow gives infinity or the largest finite by rounding mode and sign.
 *  18. [E] FCMOVxx test Fa as a signed integer in which -0 is +0; CPYS, CPYSN, CPYSE are
 *      plain bit operations (no operand checks, no FPCR change).
 *
 *  Not modelled: QEMU caches the /U flush setting per translation block, so a /U instruction
 *  after an MT_FPCR in the same block may see the old UNDZ [S]; linux-user's swcr bits
 *  (osf_setsysinfo SSI_IEEE_FP_CONTROL: MAP_DMZ/MAP_UMZ force DNZ/flush even if a later MT_FPCR
 *  clears them) beyond the FPCR image they produce [S].
 */

/* Rounding modes, numbered as FPCR[59:58]. */
#define AXP_RM_CHOPPED 0
#define AXP_RM_MINUS 1
#define AXP_RM_NORMAL 2
#define AXP_RM_PLUS 3

/* IEEE status flags, in FPCR order: flag << AXP_FPF_FPCR_SHIFT is the FPCR status bit. */
#define AXP_FPF_INV (1u << 0)
#define AXP_FPF_DZE (1u << 1)
#define AXP_FPF_OVF (1u << 2)
#define AXP_FPF_UNF (1u << 3)
#define AXP_FPF_INE (1u << 4)
#define AXP_FPF_IOV (1u << 5)
#define AXP_FPF_STATUS 0x3fu
/* Not an FPCR flag: a denormal operand was used (or read as zero), or a tiny result flushed. */
#define AXP_FPF_DENORM (1u << 6)
#define AXP_FPF_FPCR_SHIFT 52

/* FPCR bits (asm/fpu.h names). */
#define AXP_FPCR_DNOD (1ull << 47)
#define AXP_FPCR_DNZ (1ull << 48)
#define AXP_FPCR_INVD (1ull << 49)
#define AXP_FPCR_DZED (1ull << 50)
#define AXP_FPCR_OVFD (1ull << 51)
#define AXP_FPCR_INV (1ull << 52)
#define AXP_FPCR_DZE (1ull << 53)
#define AXP_FPCR_OVF (1ull << 54)
#define AXP_FPCR_UNF (1ull << 55)
#define AXP_FPCR_INE (1ull << 56)
#define AXP_FPCR_IOV (1ull << 57)
#define AXP_FPCR_DYN_SHIFT 58
#define AXP_FPCR_DYN_MASK (3ull << 58)
#define AXP_FPCR_UNDZ (1ull << 60)
#define AXP_FPCR_UNFD (1ull << 61)
#define AXP_FPCR_INED (1ull << 62)
#define AXP_FPCR_SUM (1ull << 63)
#define AXP_FPCR_IMPL 0xffffffff00000000ull /* the bits MT_FPCR keeps */
#define AXP_FPCR_DEFAULT 0x680e800000000000ull /* a new qemu-alpha process */

/* Arithmetic-trap summary (entArith a0, QEMU target/alpha/cpu.h EXC_M_*). */
#define AXP_EXC_M_SWC (1u << 0)
#define AXP_EXC_M_INV (1u << 1)
#define AXP_EXC_M_DZE (1u << 2)
#define AXP_EXC_M_FOV (1u << 3)
#define AXP_EXC_M_UNF (1u << 4)
#define AXP_EXC_M_INE (1u << 5)
#define AXP_EXC_M_IOV (1u << 6)

/* The Alpha "true" of the FP compares (2.0). */
#define AXP_FP_TRUE 0x4000000000000000ull

/* ------------------------------------------------------------------------------------------ */
/* IEEE 754 binary32/binary64 core (fp_ieee.c). */

/* Environment and result flags of one operation (QEMU's float_status, reduced). */
struct axp_fpst {
	uint8_t rm; /* AXP_RM_* */
	bool ftz; /* flush tiny results to zero, without flags (tested before rounding) */
	bool daz; /* read denormal operands as zero (FPCR.DNZ) */
	uint8_t flags; /* AXP_FPF_* raised (ORed in) */
};

/* Relations returned by axp_f64_compare. */
#define AXP_CMP_LT (-1)
#define AXP_CMP_EQ 0
#define AXP_CMP_GT 1
#define AXP_CMP_UN 2

uint64_t axp_f64_add(uint64_t a, uint64_t b, struct axp_fpst *st);
uint64_t axp_f64_sub(uint64_t a, uint64_t b, struct axp_fpst *st);
uint64_t axp_f64_mul(uint64_t a, uint64_t b, struct axp_fpst *st);
uint64_t axp_f64_div(uint64_t a, uint64_t b, struct axp_fpst *st);
uint64_t axp_f64_sqrt(uint64_t a, struct axp_fpst *st);
uint32_t axp_f32_add(uint32_t a, uint32_t b, struct axp_fpst *st);
uint32_t axp_f32_sub(uint32_t a, uint32_t b, struct axp_fpst *st);
uint32_t axp_f32_mul(uint32_t a, uint32_t b, struct axp_fpst *st);
uint32_t axp_f32_div(uint32_t a, uint32_t b, struct axp_fpst *st);
uint32_t axp_f32_sqrt(uint32_t a, struct axp_fpst *st);
uint32_t axp_f64_to_f32(uint64_t a, struct axp_fpst *st);
uint64_t axp_f32_to_f64(uint32_t a, struct axp_fpst *st);
uint64_t axp_i64_to_f64(int64_t a, struct axp_fpst *st);
uint32_t axp_i64_to_f32(int64_t a, struct axp_fpst *st);
/* quiet: INV only for signalling NaNs (EQ, UN); otherwise INV for any NaN (LT, LE). */
int axp_f64_compare(uint64_t a, uint64_t b, bool quiet, struct axp_fpst *st);

/* Alpha-specific conversions (fp_ieee.c). */
/* CVTTQ: T -> quadword, reference item 14; uses st->rm and st->daz. */
uint64_t axp_cvttq(uint64_t a, struct axp_fpst *st);
/* CVTQL: quadword -> longword in FP register format, IOV|INE when out of range. */
uint64_t axp_cvtql(uint64_t a, struct axp_fpst *st);
/* CVTLQ: longword in FP register format -> quadword. */
uint64_t axp_cvtlq(uint64_t a);
/* LDS/ITOFS: binary32 memory image -> S register format (exact, no exceptions). */
uint64_t axp_s_from_mem(uint32_t m);
/* STS/FTOIS: S register format -> binary32 memory image (bits 63:62, 58:29). FTOIS
 * sign-extends this to 64 bits in the integer register. */
uint32_t axp_s_to_mem(uint64_t r);

/* ------------------------------------------------------------------------------------------ */
/* Instruction level (fp_ops.c). */

/*
 * What one FP instruction does, computed without changing the context. `dest` is the FP
 * register written (AXP_NO_DEST when none: Fc = F31, MT_FPCR, an input trap); `value` its new
 * value; `fpcr` FPCR afterwards. When `trap` is set, qemu-alpha raises SIGFPE after these
 * changes, with the PC at the next instruction; `exc_sum` is the EXC_M_* summary. `special` says
 * an operand or result was a NaN, infinity or denormal, a tiny result was flushed, or a status
 * other than INE was raised: the cases the in-kernel policy hands back to the hardware.
 */
struct axp_fp_out {
	uint64_t value;
	uint64_t fpcr;
	uint64_t exc_sum;
	uint8_t dest;
	bool trap;
	bool special;
};

/* True for the operations axp_fp_eval/axp_fp_exec implement. */
bool axp_fp_is_handled(unsigned int op);

/*
 * Compute the effect of the FP instruction `d` on `ctx` (read only). Handles all of opcode
 * 0x16, SQRTS/SQRTT/ITOFS/ITOFT of 0x14, and all of 0x17 (CVTLQ, CPYS*, MT_FPCR, MF_FPCR,
 * FCMOVxx, CVTQL*). Returns 0, or -EINVAL for any other operation.
 */
int axp_fp_eval(const struct axp_ctx *ctx, const struct axp_insn *d, struct axp_fp_out *out);

/*
 * The executor's entry point for the operations above. Returns 0 when the instruction was
 * executed (ctx->f[dest] and ctx->fpcr updated; ctx->pc is the caller's business), or -EAGAIN
 * with the context unchanged and info->reason (and info->word) set:
 *   AXP_STOP_FP_HANDBACK  (handback & AXP_HB_FP_SPECIAL) and the case is special or would trap,
 *                         or (handback & AXP_HB_FPCR) and FPCR would change;
 *   AXP_STOP_ARITH        qemu-alpha would raise SIGFPE; info->exc_sum = out.exc_sum. A machine
 *                         that delivers the signal applies axp_fp_eval's dest/value/fpcr first.
 * Returns -EINVAL (nothing changed) for an operation it does not handle.
 */
int axp_fp_exec(struct axp_ctx *ctx, const struct axp_insn *d, unsigned int handback,
		struct axp_stop_info *info);

#endif /* AXP_FP_H */
