/* kmod/sampler/linux/vs_drv_kvals.c - kernel values: shadow interpretation of kernel code. */
#include <linux/mm.h>
#include <linux/preempt.h>
#include <linux/sched.h>
#include <linux/sched/task_stack.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>
#include <asm/ptrace.h>

#include "vs_drv.h"

/*
 * `--kernel-values` (VS_CFG_KERNEL_VALUES; issue 21 item 2). The value-sampling slides want the
 * kernel value-profiled (slide 11) but "can't interpret when interrupts are disabled, can't
 * interpret through an OS trap" (slide 13). Advancing the kernel's own state from its interrupt,
 * as the user path does at the return to user, is not something we can prove safe: the
 * interrupted code may hold locks, be half way through a sequence PALcode or another CPU relies
 * on, and its callee-saved registers are nowhere we can write. So a kernel-mode sample the
 * policy chose is interpreted in the sampling interrupt itself as a SHADOW: from a copy of the
 * interrupted registers, committing nothing. The interrupt returns, the kernel executes those
 * same instructions itself, and the values recorded are the ones it computes from the same
 * registers and (up to other CPUs' and this interrupt's own writes in between) the same memory.
 *
 * THE SAFETY ARGUMENT, one condition at a time (a refused sample is counted by reason,
 * AXPROF_G_K_*):
 *  1. Interrupted context (AXPROF_G_K_NOT_TASK, _K_IRQS_OFF, _K_PREEMPT). The sampling interrupt
 *     knows how much it adds to preempt_count() itself (the hrtimer runs inside handle_irq()'s
 *     irq_enter(): HARDIRQ_OFFSET; perf_irq is called from do_entInt without it: 0), so the
 *     interrupted context's count is the difference. NMI, hard-irq or softirq-serving bits there:
 *     not process context (in_task() was false), refused. Interrupts disabled there: the PS that
 *     PALcode saved (regs->ps, bits 2:0 the IPL; Linux runs with IPL 0 when enabled, 7 when
 *     disabled: asm/irqflags.h) is not 0, refused (slide 13). Any other count (preemption or
 *     bottom halves disabled), refused. Alpha selects ARCH_NO_PREEMPT and the test kernel has no
 *     PREEMPT_COUNT, so spin locks do not show in the count there; we do not rely on it: nothing
 *     below takes a lock or writes memory, so a lock the interrupted code holds cannot deadlock
 *     or be corrupted by us.
 *  2. Registers (AXPROF_G_K_STOP_UNKNOWN). An interrupt taken in kernel mode saves r0-r8,
 *     r16-r29 and the pc in struct pt_regs (PALcode's frame: ps, pc, gp, r16-r18; entInt's
 *     SAVE_ALL: r0-r8, r19-r28). s0-s6 (r9-r15) are live in the CPU, preserved only by the C
 *     calling convention of the handler, and the FP registers and FPCR are not saved at all. They
 *     are UNKNOWN: the interpretation stops before the first instruction that reads one (or
 *     names an FP register at all), and a register becomes known once an interpreted
 *     instruction writes it. The interrupted sp is not saved either: PALcode built its frame on
 *     the same stack, aligned to 64 bytes, with the alignment it added in PS<61:56> (Alpha
 *     Architecture Reference Manual, OSF/1 PALcode, the PS register's SP_ALIGN field), so sp =
 *     (regs + 1) + SP_ALIGN; when that is not 8-aligned inside current's kernel stack, r30 is
 *     unknown too.
 *  3. Memory (AXPROF_G_K_STOP_ADDR, _K_STOP_FAULT, _K_STOP_SBUF). Only ORDINARY kernel memory is
 *     read: a KSEG (direct-mapped) address whose page frame is RAM (pfn_valid(): below
 *     max_mapnr; Alpha's I/O and PCI spaces are KSEG addresses with physical addresses far above
 *     memory), or a vmalloc/module address whose page-table entry maps a RAM frame
 *     (vmalloc_to_pfn(): a lock-free walk of the kernel page tables; ioremap() of the Alpha
 *     chipsets that map I/O there maps non-RAM frames, refused). User addresses (get_user and
 *     friends), KSEG I/O, unmapped or any other address: the run stops before the instruction.
 *     Loads go through copy_from_kernel_nofault() (a fault is caught by the exception table and
 *     stops the run). Stores are never written: they go to a private store buffer of
 *     KVALS_SBUF entries that later loads of the run read through (so the run sees its own
 *     stores); a full buffer stops the run. Instruction words are fetched the same way, so code
 *     outside ordinary memory is never read either.
 *  4. Instructions (AXPROF_G_K_STOP_PAL, _K_STOP_OTHER). The core's AXP_POLICY_INTERRUPT
 *     handback stops before CALL_PAL (rti, retsys, swpipl, wtint: an OS trap, slide 13), the
 *     PALcode-reserved HW_* opcodes, LL/SC, unaligned accesses, arithmetic traps and RPCC (no
 *     clock is given). Nothing the run does reaches a device, a lock or the kernel's registers.
 *  5. Budget. At most KVALS_BUDGET instructions (and never more than the configured budget): the
 *     cost is paid inside the interrupt.
 *  6. Re-entry. The core's guard refuses a kernel interpretation while the task-work one of a
 *     user sample runs on this CPU (the user path runs at IPL 0 in kernel process context and can
 *     be sampled); the hard-irq handler runs with interrupts off, so the per-CPU scratch below
 *     has one user at a time.
 * Lockdep: Alpha has no LOCKDEP_SUPPORT (scripts/kernel-tree); nothing here takes a lock.
 */

#define KVALS_BUDGET 32 /* [U] instructions per shadow interpretation at most */
#define KVALS_SBUF 16 /* [U] stores a run may buffer */
#define PS_IPL_MASK 7ul
#define PS_SP_ALIGN_SHIFT 56 /* PS<61:56>: bytes PALcode added to align the frame */
#define PS_SP_ALIGN_MASK 0x3ful

/* Why a run stopped (mem ops tell the caller through struct shadow.why). */
enum why {
	WHY_NONE,
	WHY_UNKNOWN, /* reads a register the interrupt did not save */
	WHY_ADDR, /* an address outside ordinary kernel memory */
	WHY_FAULT, /* copy_from_kernel_nofault failed */
	WHY_SBUF, /* the store buffer is full */
};

struct sbuf_ent {
	u64 va;
	u64 val;
	unsigned int size;
};

/* One CPU's shadow state (the sampling interrupt's only, interrupts off). */
struct shadow {
	struct axp_ctx ctx;
	struct axp_insn insn;
	u64 known; /* bit r: integer register r holds the interrupted value or a computed one */
	unsigned int nst;
	enum why why;
	struct sbuf_ent st[KVALS_SBUF];
};

static DEFINE_PER_CPU(struct shadow, shadow_pc);

/* KSEG RAM or vmalloc-mapped RAM: memory whose reading has no side effect. */
static bool is_ordinary(u64 va, unsigned int size)
{
	u64 end = va + size - 1;

	if (end < va || (va >> PAGE_SHIFT) != (end >> PAGE_SHIFT))
		return false;
	if (va >= PAGE_OFFSET && va < VMALLOC_START)
		return pfn_valid((va - PAGE_OFFSET) >> PAGE_SHIFT);
	if (is_vmalloc_addr((const void *)va))
		return pfn_valid(vmalloc_to_pfn((const void *)va));
	return false;
}

static int read_mem(struct shadow *s, u64 va, unsigned int size, u64 *val)
{
	u64 v = 0;

	if (!is_ordinary(va, size)) {
		s->why = WHY_ADDR;
		return -EFAULT;
	}
	if (copy_from_kernel_nofault(&v, (const void *)va, size)) {
		s->why = WHY_FAULT;
		return -EFAULT;
	}
	*val = v; /* little-endian: the low `size` bytes */
	return 0;
}

static int sh_load(void *priv, uint64_t va, unsigned int size, uint64_t *val,
		   struct axp_access *acc)
{
	struct shadow *s = priv;
	u8 b[8];
	u64 v;
	unsigned int i, k;
	int err;

	err = read_mem(s, va, size, &v);
	if (err)
		return err;
	memcpy(b, &v, 8);
	/* The run's own stores, oldest first, over the bytes they cover. */
	for (i = 0; i < s->nst; i++) {
		const struct sbuf_ent *e = &s->st[i];

		for (k = 0; k < e->size; k++) {
			u64 a = e->va + k;

			if (a >= va && a < va + size)
				b[a - va] = (u8)(e->val >> (8 * k));
		}
	}
	memcpy(&v, b, 8);
	if (size < 8)
		v &= (1ull << (8 * size)) - 1;
	*val = v;
	acc->latency = 0;
	acc->level = AXP_LVL_UNKNOWN;
	return 0;
}

static int sh_store(void *priv, uint64_t va, unsigned int size, uint64_t val,
		    struct axp_access *acc)
{
	struct shadow *s = priv;

	if (!is_ordinary(va, size)) {
		s->why = WHY_ADDR;
		return -EFAULT;
	}
	if (s->nst == KVALS_SBUF) {
		s->why = WHY_SBUF;
		return -EAGAIN;
	}
	s->st[s->nst].va = va;
	s->st[s->nst].val = val;
	s->st[s->nst].size = size;
	s->nst++;
	acc->latency = 0;
	acc->level = AXP_LVL_UNKNOWN;
	return 0;
}

/* Never used while fetch_insn is present (axp.h); refuses, so it cannot bypass the checks. */
static int sh_fetch(void *priv, uint64_t va, uint32_t *word)
{
	((struct shadow *)priv)->why = WHY_UNKNOWN;
	return -EAGAIN;
}

static bool reads_unknown(const struct shadow *s, const struct axp_insn *d, u32 f)
{
	if (f & (AXP_F_FA | AXP_F_FB | AXP_F_FC))
		return true; /* FP state is not saved by a kernel-mode interrupt */
	if ((f & AXP_F_SA) && !(s->known & (1ull << d->ra)))
		return true;
	if ((f & AXP_F_SB) && !d->islit && !(s->known & (1ull << d->rb)))
		return true;
	return (f & AXP_F_SC) && !(s->known & (1ull << d->rc));
}

/* Fetch, decode, and stop before an instruction that reads an unknown register. */
static const struct axp_insn *sh_fetch_insn(void *priv, uint64_t va, int *err)
{
	struct shadow *s = priv;
	struct axp_insn *d = &s->insn;
	u64 w;
	u32 f;

	*err = read_mem(s, va, 4, &w);
	if (*err)
		return NULL;
	axp_decode((u32)w, d);
	f = axp_info(d)->flags;
	if (reads_unknown(s, d, f)) {
		s->why = WHY_UNKNOWN;
		*err = -EAGAIN;
		return NULL;
	}
	/* Known from here on: the run either completes this instruction or stops before it. */
	if (f & AXP_F_DA)
		s->known |= 1ull << d->ra;
	if (f & AXP_F_DC)
		s->known |= 1ull << d->rc;
	return d;
}

static const struct axp_mem_ops shadow_ops = {
	.fetch = sh_fetch,
	.load = sh_load,
	.store = sh_store,
	.fetch_insn = sh_fetch_insn,
};

/* The interrupted sp, or 0 when it cannot be trusted (see 2. above). */
static u64 interrupted_sp(struct pt_regs *regs)
{
	u64 sp = (u64)(regs + 1) + ((regs->ps >> PS_SP_ALIGN_SHIFT) & PS_SP_ALIGN_MASK);
	u64 lo = (u64)task_stack_page(current);

	if ((sp & 7) || sp <= lo || sp > lo + THREAD_SIZE)
		return 0;
	return sp;
}

static void capture(struct shadow *s, struct pt_regs *regs)
{
	struct axp_ctx *c = &s->ctx;
	u64 sp = interrupted_sp(regs);

	memset(c, 0, sizeof(*c));
	memcpy(&c->r[0], &regs->r0, 9 * 8);
	memcpy(&c->r[16], &regs->r16, 3 * 8);
	memcpy(&c->r[19], &regs->r19, 10 * 8);
	c->r[29] = regs->gp;
	c->r[30] = sp;
	c->pc = regs->pc & ~3ul;
	c->lock_addr = AXP_NO_LOCK;
	/* r0-r8, r16-r29, r31; r30 when trusted; never r9-r15. */
	s->known = 0x1ffull | (0x3fffull << 16) | (1ull << 31) | (sp ? 1ull << 30 : 0);
	s->nst = 0;
	s->why = WHY_NONE;
}

static enum axprof_glue_counter stop_counter(int r, enum why why)
{
	switch (r) {
	case AXP_STOP_BUDGET:
		return AXPROF_G_K_STOP_BUDGET;
	case AXP_STOP_CALL_PAL:
		return AXPROF_G_K_STOP_PAL;
	case AXP_STOP_FETCH_FAULT:
	case AXP_STOP_LOAD_FAULT:
	case AXP_STOP_STORE_FAULT:
		if (why == WHY_UNKNOWN)
			return AXPROF_G_K_STOP_UNKNOWN;
		if (why == WHY_ADDR)
			return AXPROF_G_K_STOP_ADDR;
		if (why == WHY_SBUF)
			return AXPROF_G_K_STOP_SBUF;
		return AXPROF_G_K_STOP_FAULT;
	case AXP_STOP_ILLEGAL:
		return AXPROF_G_K_STOP_PAL; /* the PALcode-reserved HW_* opcodes among them */
	default:
		return AXPROF_G_K_STOP_OTHER;
	}
}

/* Which condition of 1. above refuses the interrupted context (0: none). */
static int refuse(struct pt_regs *regs, unsigned int own)
{
	unsigned int cnt = preempt_count() - own;

	if (cnt & (NMI_MASK | HARDIRQ_MASK | SOFTIRQ_OFFSET))
		return AXPROF_G_K_NOT_TASK;
	if (regs->ps & PS_IPL_MASK)
		return AXPROF_G_K_IRQS_OFF;
	if (cnt)
		return AXPROF_G_K_PREEMPT;
	if ((regs->pc & ~3ul) < PAGE_OFFSET)
		return AXPROF_G_K_BAD_PC;
	return 0;
}

void vs_drv_kvals(struct vs_cpu *vs, u32 pid, struct pt_regs *regs, unsigned int own)
{
	struct shadow *s = this_cpu_ptr(&shadow_pc);
	u32 t0 = vs_drv_cycles();
	int r;

	vs_drv_count(AXPROF_G_K_CHOSEN);
	r = refuse(regs, own);
	if (r) {
		vs_drv_count(r);
		return;
	}
	capture(s, regs);
	r = vs_interpret_n(vs, pid, &s->ctx, &shadow_ops, s, KVALS_BUDGET);
	if (r < 0) {
		vs_drv_count(AXPROF_G_K_BUSY);
		return;
	}
	vs_drv_count(AXPROF_G_K_RAN);
	vs_drv_count(stop_counter(r, s->why));
	/* Nothing is written back: the kernel executes these instructions itself. */
	if (vs_interp_take_wake(vs))
		vs_drv_wake_reader();
	vs_drv_count_since(AXPROF_G_K_CYCLES, t0);
}
