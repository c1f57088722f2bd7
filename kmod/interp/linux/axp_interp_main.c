/* kmod/interp/linux/axp_interp_main.c - axp_interp.ko: the Alpha interpreter core as a Linux module. */
#include <linux/module.h>
#include <linux/percpu.h>
#include <linux/uaccess.h>
#include <asm/barrier.h>
#include <asm/timex.h>

#include "axp.h"
#include "axp_user.h"

/*
 * Memory operations on the current task's user address space, for interpretation at return to user
 * (process context: a fault may sleep to page in, and a bad address returns -EFAULT, which stops the
 * interpretation so the program takes the fault itself when it resumes). Each access is one load or
 * store of exactly `size` bytes (get_user/put_user), so a store is as atomic as the program's own.
 * Latency is the cycle counter's difference around the access (seeds/value-sampling-slides.txt,
 * "Load latencies: measured using CPU's cycle counter").
 */
static int user_fetch(void *priv, uint64_t va, uint32_t *word)
{
	u32 w;

	if (get_user(w, (u32 __user *)va))
		return -EFAULT;
	*word = w;
	return 0;
}

/*
 * The decode cache (fetch_insn, axp.h): per CPU, direct-mapped, keyed by the instruction word
 * itself. axp_decode() is a pure function of the word (struct axp_insn holds only fields of the
 * word: branch displacements, not targets), so an entry can never be stale: stores to code,
 * munmap, exec, IMB and other processes' code need no invalidation, and the word is still
 * fetched from the program's memory for every instruction. Every entry starts as word 0
 * decoded, which is a valid entry for word 0 wherever it sits. The caller (the interpretation at
 * the return to user) runs with preemption disabled and copies the entry at once (exec_loop.h), and
 * interrupts never interpret (vs_policy.c's guard): nothing else touches this CPU's cache then.
 */
#define DC_BITS 9 /* 512 entries of 20 bytes: 10 KB per CPU */
struct axp_dc {
	struct axp_insn e[1 << DC_BITS];
};
/* Allocated at load (alloc_percpu): on SMP a module's static per-CPU data must fit the 8 KB
 * reserved chunk (PERCPU_MODULE_RESERVE), shared by every module, and this alone does not. */
static struct axp_dc __percpu *axp_dcache;

static const struct axp_insn *user_fetch_insn(void *priv, uint64_t va, int *err)
{
	struct axp_insn *c;
	u32 w;

	if (get_user(w, (u32 __user *)va)) {
		*err = -EFAULT;
		return NULL;
	}
	/* Fibonacci hashing of the word: opcode, registers and displacement all reach the index. */
	c = &raw_cpu_ptr(axp_dcache)->e[(u32)(w * 0x9e3779b1u) >> (32 - DC_BITS)];
	if (c->word != w)
		axp_decode(w, c);
	return c;
}

static int dcache_init(void)
{
	struct axp_insn zero;
	unsigned int cpu, i;

	axp_dcache = alloc_percpu(struct axp_dc);
	if (!axp_dcache)
		return -ENOMEM;
	axp_decode(0, &zero);
	for_each_possible_cpu(cpu) for (i = 0; i < (1u << DC_BITS); i++)
		per_cpu_ptr(axp_dcache, cpu)
			->e[i] = zero;
	return 0;
}

static int user_load(void *priv, uint64_t va, unsigned int size, uint64_t *val,
		     struct axp_access *acc)
{
	cycles_t t0 = get_cycles();
	int err;

	switch (size) {
	case 1: {
		u8 v;

		err = get_user(v, (u8 __user *)va);
		*val = v;
		break;
	}
	case 2: {
		u16 v;

		err = get_user(v, (u16 __user *)va);
		*val = v;
		break;
	}
	case 4: {
		u32 v;

		err = get_user(v, (u32 __user *)va);
		*val = v;
		break;
	}
	case 8: {
		u64 v;

		err = get_user(v, (u64 __user *)va);
		*val = v;
		break;
	}
	default:
		return -EINVAL;
	}
	if (err)
		return -EFAULT;
	acc->latency = (u32)(get_cycles() - t0);
	acc->level = AXP_LVL_UNKNOWN;
	return 0;
}

static int user_store(void *priv, uint64_t va, unsigned int size, uint64_t val,
		      struct axp_access *acc)
{
	int err;

	switch (size) {
	case 1:
		err = put_user((u8)val, (u8 __user *)va);
		break;
	case 2:
		err = put_user((u16)val, (u16 __user *)va);
		break;
	case 4:
		err = put_user((u32)val, (u32 __user *)va);
		break;
	case 8:
		err = put_user((u64)val, (u64 __user *)va);
		break;
	default:
		return -EINVAL;
	}
	return err ? -EFAULT : 0;
}

/* RPCC in the interrupted task's kernel context reads the same process cycle counter (PCC with the
 * task's offset, swapped by PALcode on context switch) that the program would. */
static uint64_t user_rpcc(void *priv)
{
	unsigned long v;

	__asm__ __volatile__("rpcc %0" : "=r"(v));
	return v;
}

/*
 * MB and WMB of the interpreted program. On a multiprocessor the program's other threads run on
 * other CPUs while one of its threads is interpreted here, and get_user/put_user are plain loads
 * and stores: without the barrier they may become visible in another order than the program
 * asked for (a flag store overtaking the data it publishes).
 */
static void user_fence(void *priv, unsigned int kind)
{
	if (kind == AXP_BARRIER_WMB)
		smp_wmb();
	else
		smp_mb();
}

const struct axp_mem_ops axp_user_mem_ops = {
	.fetch = user_fetch,
	.fetch_insn = user_fetch_insn,
	.load = user_load,
	.store = user_store,
	.rpcc = user_rpcc,
	.fence = user_fence,
};
EXPORT_SYMBOL_GPL(axp_user_mem_ops);
EXPORT_SYMBOL_GPL(axp_run);
EXPORT_SYMBOL_GPL(axp_step);
EXPORT_SYMBOL_GPL(axp_decode);
EXPORT_SYMBOL_GPL(axp_op_info);
EXPORT_SYMBOL_GPL(axp_stop_name);

static int __init axp_interp_init(void)
{
	int err = dcache_init();

	if (err)
		return err;
	pr_info("axp_interp: Alpha interpreter core loaded (%d operations)\n", AXP_OP_NR - 1);
	return 0;
}

static void __exit axp_interp_exit(void)
{
	free_percpu(axp_dcache);
}

module_init(axp_interp_init);
module_exit(axp_interp_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("axprof: side-effecting Alpha interpreter core");
