/* kmod/interp/axp.h - Alpha AXP instruction set core: decode, context, and the interpreter API. */
#ifndef AXP_H
#define AXP_H

#include "axp_base.h"

/*
 * Instruction formats (Alpha Architecture Handbook v4, ch. 3.3; binutils alpha-opc.c formats).
 *
 *   31      26 25   21 20   16 15                                  0
 *  +----------+-------+-------+-------------------------------------+
 *  |  opcode  |                   PALcode function                  |  PAL  (0x00)
 *  +----------+-------+-------+-------------------------------------+
 *  |  opcode  |  Ra   |  Rb   |         displacement (signed)       |  MEM  (LDx/STx/LDA/LDAH)
 *  +----------+-------+-------+-------------------------------------+
 *  |  opcode  |  Ra   |  Rb   |            function                 |  MSC  (0x18)
 *  +----------+-------+-------+--+----------------------------------+
 *  |  opcode  |  Ra   |  Rb   |fn|            hint                  |  JMP  (0x1a, fn = [15:14])
 *  +----------+-------+-------+--+----------------------------------+
 *  |  opcode  |  Ra   |           displacement (signed, words)      |  BRA  (0x30-0x3f)
 *  +----------+-------+-------+-----+-+-------------+---------------+
 *  |  opcode  |  Ra   |  Rb   | SBZ |0|   fn7       |      Rc       |  OPR  (register form)
 *  |  opcode  |  Ra   |    literal  |1|   fn7       |      Rc       |  OPR  (literal form)
 *  +----------+-------+-------+-----+-+-------------+---------------+
 *  |  opcode  |  Fa   |  Fb   |        fn11           |      Fc      |  FPO  (0x14-0x17)
 *  +----------+-------+-------+-----------------------+-------------+
 *
 * ITF (ITOFx, 0x14) is FPO with an integer Ra; FTI (FTOIx, 0x1c) is OPR with an FP Ra.
 * PCD is a PALcode-reserved opcode (0x19, 0x1b, 0x1d-0x1f) printed with its 26-bit function.
 */
enum axp_fmt {
	AXP_FMT_PAL,
	AXP_FMT_MEM,
	AXP_FMT_MSC,
	AXP_FMT_JMP,
	AXP_FMT_BRA,
	AXP_FMT_OPR,
	AXP_FMT_FPO,
	AXP_FMT_ITF,
	AXP_FMT_FTI,
	AXP_FMT_PCD,
};

/* EV5 issue classes (gcc config/alpha/ev5.md; 21164 HRM ch. 2). */
enum axp_unit {
	AXP_U_PAL,
	AXP_U_ILD,
	AXP_U_FLD,
	AXP_U_IST,
	AXP_U_FST,
	AXP_U_IADD,
	AXP_U_ILOG,
	AXP_U_ICMP,
	AXP_U_SHIFT,
	AXP_U_CMOV,
	AXP_U_IMULL,
	AXP_U_IMULQ,
	AXP_U_IMULH,
	AXP_U_IBR,
	AXP_U_FBR,
	AXP_U_JSR,
	AXP_U_MISC,
	AXP_U_MVI,
	AXP_U_FADD,
	AXP_U_FMUL,
	AXP_U_FDIVS,
	AXP_U_FDIVT,
	AXP_U_FCPYS,
	AXP_U_FCMOV,
	AXP_U_NR,
};

/* Operation flags (ops.def). */
#define AXP_F_SA (1u << 0) /* reads Ra */
#define AXP_F_SB (1u << 1) /* reads Rb (or the literal) */
#define AXP_F_SC (1u << 2) /* reads Rc (conditional moves keep the old value) */
#define AXP_F_DA (1u << 3) /* writes Ra */
#define AXP_F_DC (1u << 4) /* writes Rc */
#define AXP_F_FA (1u << 5) /* Ra names an FP register */
#define AXP_F_FB (1u << 6) /* Rb names an FP register */
#define AXP_F_FC (1u << 7) /* Rc names an FP register */
#define AXP_F_LD (1u << 8) /* memory load */
#define AXP_F_ST (1u << 9) /* memory store */
#define AXP_F_M1 (1u << 10) /* access size 1, 2, 4, 8 bytes */
#define AXP_F_M2 (1u << 11)
#define AXP_F_M4 (1u << 12)
#define AXP_F_M8 (1u << 13)
#define AXP_F_LOCK (1u << 14) /* load-locked / store-conditional */
#define AXP_F_TRAPS (1u << 15) /* integer or FP overflow trap possible (/V) */
#define AXP_F_BWX (1u << 16) /* ISA extensions (AMASK bits) */
#define AXP_F_FIX (1u << 17)
#define AXP_F_CIX (1u << 18)
#define AXP_F_MVI (1u << 19)
#define AXP_F_VAX (1u << 20) /* VAX floating point: never executed */

enum axp_op {
#define AXP_OP(id, name, opc, fn, fmt, unit, flags) AXP_OP_##id,
#include "ops.def"
#undef AXP_OP
	AXP_OP_INVALID, /* not an instruction: every bad encoding decodes to this */
	AXP_OP_NR,
};

struct axp_op_info {
	const char *name; /* base mnemonic (binutils spelling) */
	uint8_t opcode;
	uint8_t fmt; /* enum axp_fmt */
	uint8_t unit; /* enum axp_unit */
	uint16_t func;
	uint32_t flags; /* AXP_F_* */
};

extern const struct axp_op_info axp_op_info[AXP_OP_NR];

/* FP qualifier bits in fn11 (Handbook 4.7.9; QEMU QUAL_*). */
#define AXP_FN11_RM_MASK 0x0c0 /* [7:6] rounding: */
#define AXP_FN11_RM_C 0x000 /*   chopped */
#define AXP_FN11_RM_M 0x040 /*   minus infinity */
#define AXP_FN11_RM_N 0x080 /*   normal (nearest even) */
#define AXP_FN11_RM_D 0x0c0 /*   dynamic: FPCR[59:58] */
#define AXP_FN11_U 0x100 /* underflow enable (/V for integer results) */
#define AXP_FN11_I 0x200 /* inexact enable */
#define AXP_FN11_S 0x400 /* software completion */

/* A decoded instruction: every field extracted once. */
struct axp_insn {
	uint32_t word;
	uint16_t op; /* enum axp_op */
	uint8_t ra, rb, rc; /* register numbers as encoded */
	bool islit; /* OPR literal form */
	uint8_t lit; /* OPR literal */
	uint16_t fn11; /* FPO function including qualifiers */
	int32_t disp; /* MEM: sext 16; BRA: sext 21 (words); MSC: insn[15:0]; JMP: hint; PAL: func */
};

void axp_decode(uint32_t word, struct axp_insn *d);

static inline const struct axp_op_info *axp_info(const struct axp_insn *d)
{
	return &axp_op_info[d->op];
}

/* Size in bytes of a memory access (0 if the op does not access memory). */
static inline unsigned int axp_mem_size(uint32_t flags)
{
	return (flags & AXP_F_M1) ? 1 :
	       (flags & AXP_F_M2) ? 2 :
	       (flags & AXP_F_M4) ? 4 :
	       (flags & AXP_F_M8) ? 8 :
				    0;
}

/* ------------------------------------------------------------------------------------------ */
/* Interpreter. */

/*
 * The user-visible state of one Alpha thread. Integer register 31 and FP register 31 always read
 * as zero (the executor never stores to them). `lock_*` is the LDx_L/STx_C reservation, used only
 * when the run policy executes LL/SC (the hosted machine).
 */
struct axp_ctx {
	uint64_t r[32];
	uint64_t f[32];
	uint64_t pc;
	uint64_t fpcr;
	uint64_t unique; /* PAL "process unique" value: rduniq/wruniq (TLS pointer) */
	uint64_t lock_addr; /* reservation address, or AXP_NO_LOCK */
	uint64_t lock_value; /* value loaded by LDx_L (QEMU-compatible cmpxchg semantics) */
	uint64_t intr_flag; /* the RC/RS flag */
};

#define AXP_NO_LOCK UINT64_MAX

/* Per-access facts the memory operations may report back (for observers). */
struct axp_access {
	uint32_t latency; /* cycles this access took, if the memory system knows (0 otherwise) */
	uint32_t level; /* where it was satisfied: AXP_LVL_* */
};

enum axp_level {
	AXP_LVL_UNKNOWN,
	AXP_LVL_DCACHE,
	AXP_LVL_SCACHE,
	AXP_LVL_BCACHE,
	AXP_LVL_MEMORY,
};

/*
 * Memory operations. Each returns 0 or -Exxx (-EFAULT: unmapped/protection; -EAGAIN: the caller
 * wants the instruction handed back). `va` is an Alpha virtual address; `size` is 1, 2, 4 or 8;
 * values are little-endian, zero-extended. An access that fails leaves nothing changed.
 * `fetch` reads one instruction word. `rpcc` may be NULL (RPCC then stops the run).
 */
struct axp_mem_ops {
	int (*fetch)(void *priv, uint64_t va, uint32_t *word);
	int (*load)(void *priv, uint64_t va, unsigned int size, uint64_t *val,
		    struct axp_access *acc);
	int (*store)(void *priv, uint64_t va, unsigned int size, uint64_t val,
		     struct axp_access *acc);
	uint64_t (*rpcc)(void *priv);
	/*
	 * Optional fast path: the decoded instruction at `va` (e.g. from a per-page decode cache the
	 * memory system keeps coherent with stores, unmaps and IMB), or NULL with *err set (a fetch
	 * fault). When present, the executor uses it instead of fetch() + axp_decode().
	 */
	const struct axp_insn *(*fetch_insn)(void *priv, uint64_t va, int *err);
	/*
	 * Optional, with fetch_insn: the decoded-instruction array of the page that holds `va`
	 * (*first_va: the address of its entry 0; *n entries, followed by a sentinel entry whose op
	 * is AXP_OP_NR and stays so), or NULL. axp_run() asks for it after
	 * fetch_insn(va) succeeded and then reads the following instructions of that page straight
	 * from it until it returns, so the array must stay allocated, its page executable, and its
	 * entries either valid or marked op == AXP_OP_NR (which sends that fetch back to
	 * fetch_insn) for as long as the run lasts. Loads and stores may happen then; anything that
	 * frees or unmaps code (system calls, IMB) cannot, since CALL_PAL ends the run.
	 */
	const struct axp_insn *(*insn_page)(void *priv, uint64_t va, uint64_t *first_va,
					    uint64_t *n);
	/*
	 * Optional: guest memory the executor may read and write itself instead of calling
	 * load()/store() (struct axp_direct), asked once per axp_run(); NULL: always call them.
	 */
	const struct axp_direct *(*direct)(void *priv);
	/*
	 * Optional: the memory barriers MB (kind AXP_BARRIER_MB: every access before it before every
	 * access after it) and WMB (AXP_BARRIER_WMB: stores before it before stores after it), as
	 * other processors see them (Alpha Architecture Reference Manual: the MB and WMB
	 * instructions, and chapter 5 on the ordering of shared data between processors). Called
	 * where the instruction sits in the run. Memory other processors use while the run lasts (a
	 * kernel interpreting one thread of a process whose other threads run on other CPUs) must
	 * execute them; NULL where nothing else observes the order (one processor: the hosted
	 * machine, the tests). (Not called barrier: Linux defines barrier() as a macro.)
	 */
	void (*fence)(void *priv, unsigned int kind);
};

#define AXP_BARRIER_MB 0
#define AXP_BARRIER_WMB 1

/*
 * Guest memory laid out flat in host memory (guest va at host + va) with one permission byte per
 * page of 1 << page_shift bytes (perm[va >> page_shift], npages of them; page_shift 1 to 63, else
 * the executor does no access itself). An ordinary integer or FP load (store) of `size` bytes that
 * stays inside its page is done by the executor directly, little-endian, when
 * (perm & load_mask) == load_ok ((perm & store_mask) == store_ok); any other access goes to
 * load()/store(). The memory system must keep `host`, `perm` and the meaning of the bits valid for
 * the whole run: a page whose stores need the memory system's attention (e.g. it holds decoded
 * instructions) must fail the store test from the moment that becomes true. The executor
 * remembers pages that passed the store test until it next calls one of the memory operations or
 * the observer, so the store test's outcome may change only inside those calls; it remembers
 * pages that passed the load test until axp_run() returns, so the load test's outcome must not
 * change while a run lasts (the hosted machine's changes with mmap, munmap, mprotect and brk:
 * system calls, which end the run).
 */
struct axp_direct {
	uint8_t *host;
	const uint8_t *perm;
	uint64_t npages;
	unsigned int page_shift;
	uint8_t load_mask, load_ok, store_mask, store_ok;
};

/* What one executed instruction did, as an observer sees it. */
struct axp_event {
	uint64_t pc;
	uint64_t next_pc;
	uint32_t word;
	uint16_t op; /* enum axp_op */
	uint8_t dest; /* 0-31 integer, 32-63 FP register, AXP_NO_DEST */
	uint8_t size; /* memory access size, 0 if none */
	uint64_t value; /* the value written to dest (loads: the loaded value as written) */
	uint64_t ea; /* effective address of a load or store */
	uint64_t store_value; /* value stored (stores) */
	struct axp_access acc; /* from the memory operations (loads and stores) */
	const struct axp_insn *insn; /* the decoded instruction (valid during the callback) */
	bool is_load, is_store, taken; /* taken: control left the fall-through path */
};

#define AXP_NO_DEST 0xff

struct axp_observer {
	void (*insn)(void *priv, const struct axp_event *ev);
	void *priv;
	/* Optional: when non-NULL and true after insn() returns, the run stops after that
	 * instruction with AXP_STOP_OBSERVER (e.g. a PMU interrupt became due). The caller clears it. */
	const volatile bool *stop;
};

/* Why a run stopped. The instruction at ctx->pc was not executed unless the reason says so. */
enum axp_stop {
	AXP_STOP_BUDGET, /* executed `budget` instructions */
	AXP_STOP_CALL_PAL, /* CALL_PAL at pc: the caller services it (or hands it back) */
	AXP_STOP_FETCH_FAULT, /* the instruction word could not be read */
	AXP_STOP_LOAD_FAULT, /* a load's memory operation failed (info->addr) */
	AXP_STOP_STORE_FAULT, /* a store's memory operation failed */
	AXP_STOP_UNALIGNED, /* a naturally aligned access was not (policy hands it back) */
	AXP_STOP_ILLEGAL, /* not an instruction, or reserved/privileged: OPCDEC */
	AXP_STOP_ARITH, /* arithmetic trap (/V overflow, FP trap): info->exc_sum. Under the full
			 * policy the instruction COMPLETED (result written, pc = next) as on the
			 * hardware, and info->pc is its address; under AXP_HB_ARITH it was not
			 * executed. */
	AXP_STOP_LLSC, /* LDx_L/STx_C: handed back by policy */
	AXP_STOP_FP_HANDBACK, /* FP case the integer code does not do exactly (policy) */
	AXP_STOP_VAX_FP, /* VAX floating point is not executed */
	AXP_STOP_UNSUPPORTED, /* an instruction the policy hands back (RPCC without clock, RC/RS…) */
	AXP_STOP_OBSERVER, /* the observer asked to stop; the last instruction completed */
	AXP_STOP_NR,
};

extern const char *const axp_stop_name[AXP_STOP_NR];

/* Which instructions to hand back to the hardware instead of executing (struct axp_run_cfg). */
#define AXP_HB_LLSC (1u << 0) /* LDx_L / STx_C */
#define AXP_HB_FP_SPECIAL (1u << 1) /* NaN, infinity, denormal operands or results; any FP trap */
#define AXP_HB_UNALIGNED (1u << 2) /* unaligned accesses (the kernel would fix them up) */
#define AXP_HB_FPCR (1u << 3) /* FP ops that would change FPCR status bits */
#define AXP_HB_ARITH (1u << 4) /* arithmetic traps: hand back instead of completing + stopping */

#define AXP_POLICY_INTERRUPT \
	(AXP_HB_LLSC | AXP_HB_FP_SPECIAL | AXP_HB_UNALIGNED | AXP_HB_FPCR | AXP_HB_ARITH)
#define AXP_POLICY_FULL 0u

struct axp_run_cfg {
	const struct axp_mem_ops *mem;
	void *mem_priv;
	const struct axp_observer *obs; /* may be NULL */
	unsigned int handback; /* AXP_HB_* */
	uint64_t amask; /* features AMASK reports as present (AXP_AMASK_*) */
	uint64_t implver; /* IMPLVER result: 0 EV4, 1 EV5, 2 EV6 */
};

#define AXP_AMASK_BWX (1u << 0)
#define AXP_AMASK_FIX (1u << 1)
#define AXP_AMASK_CIX (1u << 2)
#define AXP_AMASK_MVI (1u << 8)
#define AXP_AMASK_PRECISE_TRAP (1u << 9)
#define AXP_AMASK_PREFETCH_MODIFY (1u << 12) /* prefetch with modify intent (EV67) */
/* What an EV67 (and qemu-alpha's default CPU) reports: IMPLVER 2. */
#define AXP_AMASK_EV67                                                                            \
	(AXP_AMASK_BWX | AXP_AMASK_FIX | AXP_AMASK_CIX | AXP_AMASK_MVI | AXP_AMASK_PRECISE_TRAP | \
	 AXP_AMASK_PREFETCH_MODIFY)
#define AXP_IMPLVER_EV6 2

/* Exception summary bits reported with AXP_STOP_ARITH (asm/fpu.h EXC_M_*). */
#define AXP_EXC_SWC (1u << 0) /* software completion requested (/S) */
#define AXP_EXC_INV (1u << 1)
#define AXP_EXC_DZE (1u << 2)
#define AXP_EXC_FOV (1u << 3)
#define AXP_EXC_UNF (1u << 4)
#define AXP_EXC_INE (1u << 5)
#define AXP_EXC_IOV (1u << 6)

struct axp_stop_info {
	enum axp_stop reason;
	uint64_t executed; /* instructions completed in this run */
	uint64_t pc; /* the instruction not executed (== ctx->pc) */
	uint32_t word;
	uint64_t addr; /* faulting address for fetch/load/store/unaligned */
	int err; /* the memory operation's error */
	uint64_t exc_sum; /* AXP_STOP_ARITH: exception summary bits (EXC_M_* of asm/fpu.h) */
};

/*
 * Execute one instruction at ctx->pc. Returns 0 when it completed (ctx advanced), or -EAGAIN with
 * `info` filled when it was not executed (ctx unchanged).
 */
int axp_step(struct axp_ctx *ctx, const struct axp_run_cfg *cfg, struct axp_stop_info *info);

/* Execute up to `budget` instructions. Always stops with a reason in `info`. */
enum axp_stop axp_run(struct axp_ctx *ctx, const struct axp_run_cfg *cfg, uint64_t budget,
		      struct axp_stop_info *info);

#endif /* AXP_H */
