/* isa/isa_ev5.h - the EV5 (21164) per-instruction facts: issue pipes, classes, latencies. */
#ifndef ISA_EV5_H
#define ISA_EV5_H

#include <stdint.h>

/*
 * Pure data about how an Alpha 21164 issues and executes each instruction, shared by the
 * hosted machine's EV5 timing model (machine/mach_ev5.c) and analysis' static scheduler
 * (analysis/an_sched.c), so the two agree by construction. Sources:
 *   [ev5.md]  gcc config/alpha/ev5.md: pipes E0/E1/FA/FM, instruction classes, latencies,
 *             the IMUL occupancy, the ICMP/ILOG -> IBR/CMOV 0-cycle bypass;
 *   [HRM]     Alpha 21164 Microprocessor Hardware Reference Manual, ch. 2 (issue rules,
 *             multiplier repeat rate p. 2-25).
 * The facts of an op come from its execution-unit class in the decode table (axp_op_info[op]
 * .unit, kmod/interp/axp.h) and, for branches, jumps and barriers, the op itself.
 */

enum isa_ev5_pipe {
	ISA_EV5_P_NONE, /* issues without an execution pipe (never: every op has one) */
	ISA_EV5_P_E0, /* shifts, MVI, stores, misc, IMUL, LDx_L */
	ISA_EV5_P_E1, /* integer branches, JSR class, CALL_PAL */
	ISA_EV5_P_E01, /* loads, IADD, ILOG, ICMP, CMOV */
	ISA_EV5_P_FA, /* FADD, FCMOV, FBR, FDIV */
	ISA_EV5_P_FM, /* FMUL */
	ISA_EV5_P_FAM, /* CPYS, ITOF/FTOI */
	ISA_EV5_P_NR,
};

#define ISA_EV5_K_LOAD (1u << 0)
#define ISA_EV5_K_STORE (1u << 1)
#define ISA_EV5_K_CBR (1u << 2) /* conditional branch (integer or FP) */
#define ISA_EV5_K_UBR (1u << 3) /* BR, BSR: target known from the displacement */
#define ISA_EV5_K_IND (1u << 4) /* JMP, JSR, RET, JSR_COROUTINE */
#define ISA_EV5_K_PUSH (1u << 5) /* pushes the return stack (BSR, JSR, JSR_CO) */
#define ISA_EV5_K_POP (1u << 6) /* predicted from the return stack (RET, JSR_CO) */
#define ISA_EV5_K_IMUL (1u << 7)
#define ISA_EV5_K_FDIV (1u << 8)
#define ISA_EV5_K_BYPP (1u << 9) /* ICMP/ILOG: 0-cycle bypass to a same-cycle IBR/CMOV */
#define ISA_EV5_K_BYPC (1u << 10) /* IBR/CMOV: may use that bypass on Ra */
#define ISA_EV5_K_MB (1u << 11) /* MB, WMB: wait for the write buffer */
#define ISA_EV5_K_BARRIER (1u << 12) /* TRAPB, EXCB, MB, CALL_PAL: wait for all results */
#define ISA_EV5_K_PAL (1u << 13)
#define ISA_EV5_K_CTRL (ISA_EV5_K_CBR | ISA_EV5_K_UBR | ISA_EV5_K_IND)

/* Load-use latency of a D-cache hit [ev5.md: "loads from L0 complete in two cycles"]. */
#define ISA_EV5_DCACHE_LAT 2

struct isa_ev5_op {
	uint8_t pipe; /* enum isa_ev5_pipe */
	uint8_t lat; /* result latency (loads and STx_C: the D-cache hit latency asked for) */
	uint8_t repeat; /* IMUL/FDIV: cycles the unit stays busy */
	uint8_t sa, sb, sc; /* 0: operand unused; else 1 + register-file offset (0 or 32) */
	uint8_t da, dc; /* same for the destination Ra / Rc */
	uint16_t kind; /* ISA_EV5_K_* */
};

/*
 * The facts of Alpha op `op` (enum axp_op; out of range: AXP_OP_INVALID's) with a D-cache hit
 * latency of `dcache_lat` cycles for loads (a model parameter; ISA_EV5_DCACHE_LAT on a 21164).
 */
void isa_ev5_op(unsigned int op, unsigned int dcache_lat, struct isa_ev5_op *out);

/* The name of a pipe ("-", "E0", "E1", "E01", "FA", "FM", "FAM"; "?" out of range). */
const char *isa_ev5_pipe_name(unsigned int pipe);

#endif /* ISA_EV5_H */
