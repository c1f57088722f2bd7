/* kmod/interp/linux/axp_interp_main.c - axp_interp.ko: the Alpha interpreter core as a Linux module. */
#include <linux/module.h>
#include <linux/uaccess.h>
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

const struct axp_mem_ops axp_user_mem_ops = {
	.fetch = user_fetch,
	.load = user_load,
	.store = user_store,
	.rpcc = user_rpcc,
};
EXPORT_SYMBOL_GPL(axp_user_mem_ops);
EXPORT_SYMBOL_GPL(axp_run);
EXPORT_SYMBOL_GPL(axp_step);
EXPORT_SYMBOL_GPL(axp_decode);
EXPORT_SYMBOL_GPL(axp_op_info);
EXPORT_SYMBOL_GPL(axp_stop_name);

static int __init axp_interp_init(void)
{
	pr_info("axp_interp: Alpha interpreter core loaded (%d operations)\n", AXP_OP_NR - 1);
	return 0;
}

static void __exit axp_interp_exit(void)
{
}

module_init(axp_interp_init);
module_exit(axp_interp_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("axprof: side-effecting Alpha interpreter core");
