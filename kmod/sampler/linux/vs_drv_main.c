/* kmod/sampler/linux/vs_drv_main.c - axprof.ko: /dev/axprof, configuration, drains, ioctls. */
#include <linux/capability.h>
#include <linux/cpumask.h>
#include <linux/cred.h>
#include <linux/delay.h>
#include <linux/fs.h>
#include <linux/irq_work.h>
#include <linux/miscdevice.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/poll.h>
#include <linux/slab.h>
#include <linux/smp.h>
#include <linux/uaccess.h>
#include <linux/uidgid.h>
#include <linux/vmalloc.h>
#include <linux/wait.h>
#include <asm/special_insns.h>

#include "vs_drv.h"

/*
 * Concurrency (vs_sampler.h, "CONTEXTS AND WHAT THE GLUE MUST DO"):
 *  - vs_sample(): the sampling interrupt of the CPU (vs_drv_source.c);
 *  - vs_interpret(): the task work on the CPU it runs on, preemption off, interrupts on
 *    (vs_drv_work.c);
 *  - vs_cpu_flush(), vs_cpu_swap(), vs_cpu_stats_record(): in an IPI on the CPU
 *    (smp_call_function_single(), interrupts off there), here;
 *  - vs_cpu_drain(): here, in read(), under vs_drv_lock: one drainer for all CPUs.
 * vs_drv_lock (a mutex) serialises every ioctl and read; the state is replaced only under it
 * and only while stopped.
 */

DEFINE_PER_CPU(struct vs_drv_cpu, vs_drv_cpu);
struct vs_drv_state __rcu *vs_drv_state;
bool vs_drv_running;
u32 vs_drv_flags;
atomic64_t vs_drv_glue[AXPROF_G_NR];

static DEFINE_MUTEX(vs_drv_lock);
static DECLARE_WAIT_QUEUE_HEAD(read_wq);
static bool data_ready; /* set by producers, cleared by read() */

static int group = -1;
module_param(group, int, 0444);
MODULE_PARM_DESC(group, "gid that may open /dev/axprof besides CAP_SYS_ADMIN (-1: none)");

static unsigned int max_cpu_kb = 65536;
module_param(max_cpu_kb, uint, 0644);
MODULE_PARM_DESC(max_cpu_kb, "largest sampler memory per CPU, KiB (default 65536)");

#define BOUNCE_MAX (64 * 1024) /* read() copies out through a kernel buffer of at most this */
#define FLUSH_TRIES 200 /* FLUSH: retries of a flush that met a running interpretation (1 ms) */

/* ---- waking readers: producers run in interrupts, so through an irq_work ---- */

static void wake_fn(struct irq_work *w)
{
	wake_up_interruptible(&read_wq);
}

static struct irq_work wake_work = IRQ_WORK_INIT(wake_fn);

void vs_drv_wake_reader(void)
{
	WRITE_ONCE(data_ready, true);
	irq_work_queue(&wake_work);
}

/* ---- the configured state ---- */

static struct vs_drv_state *state_locked(void)
{
	return rcu_dereference_protected(vs_drv_state, lockdep_is_held(&vs_drv_lock));
}

static void state_free(struct vs_drv_state *st)
{
	unsigned int cpu;

	if (!st)
		return;
	for (cpu = 0; cpu < st->nr; cpu++)
		vfree(st->cpu[cpu].mem);
	kfree(st);
}

/* The features the hardware implements, for the interpreter's AMASK (axp.h). */
static u64 amask_present(void)
{
	u64 known = AXP_AMASK_EV67;

	return known & ~amask(known);
}

static int state_new(const struct vs_config *cfg, struct vs_drv_state **out)
{
	struct vs_platform plat = { .amask = amask_present(), .implver = implver() };
	size_t size = vs_cpu_size(cfg);
	struct vs_drv_state *st;
	unsigned int cpu;
	int err;

	if (!size)
		return -EINVAL;
	if (size > (size_t)max_cpu_kb * 1024)
		return -ENOMEM;
	st = kzalloc(struct_size(st, cpu, nr_cpu_ids), GFP_KERNEL);
	if (!st)
		return -ENOMEM;
	st->cfg = *cfg;
	st->nr = nr_cpu_ids;
	for (cpu = 0; cpu < nr_cpu_ids; cpu++) {
		struct vs_drv_slot *s = &st->cpu[cpu];

		if (!cpu_online(cpu))
			continue;
		s->mem = vzalloc(size); /* page aligned: vs_cpu_init() wants 64 */
		if (!s->mem) {
			err = -ENOMEM;
			goto out_free;
		}
		plat.cpu = cpu;
		err = vs_cpu_init(s->mem, size, cfg, &plat, &s->vs);
		if (err)
			goto out_free;
		st->ncpus++;
	}
	*out = st;
	return 0;
out_free:
	state_free(st);
	return err;
}

/* ---- work on each CPU (interrupts off there) ---- */

struct on_cpu {
	struct vs_drv_state *st;
	unsigned int cpu;
	int err; /* flush result */
	size_t ready; /* swap result */
	void *out; /* stats record */
	size_t len;
};

static void flush_here(void *p)
{
	struct on_cpu *a = p;
	struct vs_drv_slot *s = &a->st->cpu[a->cpu];

	a->err = vs_cpu_flush(s->vs);
	if (!a->err)
		s->flush_pending = false;
}

static void swap_here(void *p)
{
	struct on_cpu *a = p;
	struct vs_drv_slot *s = &a->st->cpu[a->cpu];

	a->err = 0;
	if (s->flush_pending)
		flush_here(p);
	a->ready = vs_cpu_swap(s->vs);
}

static void stats_here(void *p)
{
	struct on_cpu *a = p;

	a->err = vs_cpu_stats_record(a->st->cpu[a->cpu].vs, a->out, a->len);
}

/* Run fn on cpu; a CPU gone offline has no producer left: run it here, interrupts off. */
static void run_on(unsigned int cpu, smp_call_func_t fn, struct on_cpu *a)
{
	unsigned long flags;

	if (smp_call_function_single(cpu, fn, a, 1)) {
		local_irq_save(flags);
		fn(a);
		local_irq_restore(flags);
	}
}

/* ---- read: whole records from every CPU ---- */

static ssize_t drain_locked(struct vs_drv_state *st, char __user *ubuf, size_t count, void *bounce,
			    size_t bsize)
{
	struct on_cpu a = { .st = st };
	size_t total = 0, room, rem, n;

	for (a.cpu = 0; a.cpu < st->nr; a.cpu++) {
		struct vs_cpu *vs = st->cpu[a.cpu].vs;

		if (!vs)
			continue;
		for (;;) {
			room = min(count - total, bsize);
			if (room < VS_REC_MAX)
				return total;
			n = vs_cpu_drain(vs, bounce, room, &rem);
			if (n) {
				if (copy_to_user(ubuf + total, bounce, n))
					return total ? total : -EFAULT;
				total += n;
			}
			if (rem) {
				if (WARN_ON_ONCE(!n))
					break;
				continue;
			}
			run_on(a.cpu, swap_here, &a);
			if (!a.ready)
				break;
		}
	}
	return total;
}

static bool read_ready(void)
{
	return READ_ONCE(data_ready) || !READ_ONCE(vs_drv_running);
}

/* A fault copying out loses the records of that read (they were taken from the buffers). */
static ssize_t vs_drv_read(struct file *f, char __user *ubuf, size_t count, loff_t *ppos)
{
	size_t bsize = min_t(size_t, count, BOUNCE_MAX);
	struct vs_drv_state *st;
	void *bounce;
	ssize_t n;
	bool running;

	if (count < VS_REC_MAX)
		return -EINVAL;
	bounce = kvmalloc(bsize, GFP_KERNEL);
	if (!bounce)
		return -ENOMEM;
	for (;;) {
		if (mutex_lock_interruptible(&vs_drv_lock)) {
			n = -ERESTARTSYS;
			break;
		}
		WRITE_ONCE(data_ready, false);
		st = state_locked();
		n = st ? drain_locked(st, ubuf, count, bounce, bsize) : 0;
		running = READ_ONCE(vs_drv_running);
		mutex_unlock(&vs_drv_lock);
		if (n || !running)
			break;
		if (f->f_flags & O_NONBLOCK) {
			n = -EAGAIN;
			break;
		}
		/* Nothing recorded: wait for a wake-up (a buffer filled, a flush, a stop), and look
		 * again every 100 ms, as samples trickling into a buffer wake nobody. */
		if (wait_event_interruptible_timeout(read_wq, read_ready(), HZ / 10) < 0) {
			n = -ERESTARTSYS;
			break;
		}
	}
	kvfree(bounce);
	return n;
}

static __poll_t vs_drv_poll(struct file *f, poll_table *pt)
{
	poll_wait(f, &read_wq, pt);
	if (read_ready())
		return EPOLLIN | EPOLLRDNORM;
	return 0;
}

/* ---- ioctls (vs_drv_lock held) ---- */

static int do_info(void __user *up)
{
	struct vs_drv_state *st = state_locked();
	struct vs_info info = {
		.abi_version = VS_ABI_VERSION,
		.ncpus = st ? st->ncpus : num_online_cpus(),
		.rec_max = VS_REC_MAX,
	};

	return copy_to_user(up, &info, sizeof(info)) ? -EFAULT : 0;
}

static int do_set_config(void __user *up)
{
	struct vs_drv_state *st, *old;
	struct vs_config cfg;
	const char *why = NULL;
	int err;

	if (copy_from_user(&cfg, up, sizeof(cfg)))
		return -EFAULT;
	err = vs_config_check(&cfg, &why);
	if (err) {
		pr_debug("axprof: configuration refused: %s\n", why);
		return err;
	}
	if (READ_ONCE(vs_drv_running))
		return -EBUSY;
	err = state_new(&cfg, &st);
	if (err)
		return err;
	old = state_locked();
	rcu_assign_pointer(vs_drv_state, st);
	synchronize_rcu();
	state_free(old);
	return 0;
}

static int do_get_config(void __user *up)
{
	struct vs_drv_state *st = state_locked();

	if (!st)
		return -ENODATA;
	return copy_to_user(up, &st->cfg, sizeof(st->cfg)) ? -EFAULT : 0;
}

static void glue_print(void)
{
	pr_info("axprof: glue: ticks %lld floor_ticks %lld tick_cycles %lld work_cycles %lld queued %lld ran %lld interp %lld refused %lld dup %lld no_slot %lld skip_exit %lld skip_pc %lld skip_stopped %lld migrated %lld regs_written %lld (s0-s6 %lld, fp %lld) clamped %lld\n",
		atomic64_read(&vs_drv_glue[AXPROF_G_TICKS]),
		atomic64_read(&vs_drv_glue[AXPROF_G_FLOOR_TICKS]),
		atomic64_read(&vs_drv_glue[AXPROF_G_TICK_CYCLES]),
		atomic64_read(&vs_drv_glue[AXPROF_G_WORK_CYCLES]),
		atomic64_read(&vs_drv_glue[AXPROF_G_QUEUED]),
		atomic64_read(&vs_drv_glue[AXPROF_G_RAN]),
		atomic64_read(&vs_drv_glue[AXPROF_G_INTERP]),
		atomic64_read(&vs_drv_glue[AXPROF_G_INTERP_REFUSED]),
		atomic64_read(&vs_drv_glue[AXPROF_G_DUP]),
		atomic64_read(&vs_drv_glue[AXPROF_G_NO_SLOT]),
		atomic64_read(&vs_drv_glue[AXPROF_G_SKIP_EXIT]),
		atomic64_read(&vs_drv_glue[AXPROF_G_SKIP_PC]),
		atomic64_read(&vs_drv_glue[AXPROF_G_SKIP_STOPPED]),
		atomic64_read(&vs_drv_glue[AXPROF_G_MIGRATED]),
		atomic64_read(&vs_drv_glue[AXPROF_G_REGS_WRITTEN]),
		atomic64_read(&vs_drv_glue[AXPROF_G_SW_WRITTEN]),
		atomic64_read(&vs_drv_glue[AXPROF_G_FP_WRITTEN]),
		atomic64_read(&vs_drv_glue[AXPROF_G_CLAMPED]));
	if (atomic64_read(&vs_drv_glue[AXPROF_G_K_CHOSEN]))
		pr_info("axprof: kernel values: chosen %lld refused: not_task %lld irqs_off %lld preempt %lld bad_pc %lld busy %lld; ran %lld stops: budget %lld unknown_reg %lld pal %lld addr %lld fault %lld store_buf %lld other %lld; cycles %lld\n",
			atomic64_read(&vs_drv_glue[AXPROF_G_K_CHOSEN]),
			atomic64_read(&vs_drv_glue[AXPROF_G_K_NOT_TASK]),
			atomic64_read(&vs_drv_glue[AXPROF_G_K_IRQS_OFF]),
			atomic64_read(&vs_drv_glue[AXPROF_G_K_PREEMPT]),
			atomic64_read(&vs_drv_glue[AXPROF_G_K_BAD_PC]),
			atomic64_read(&vs_drv_glue[AXPROF_G_K_BUSY]),
			atomic64_read(&vs_drv_glue[AXPROF_G_K_RAN]),
			atomic64_read(&vs_drv_glue[AXPROF_G_K_STOP_BUDGET]),
			atomic64_read(&vs_drv_glue[AXPROF_G_K_STOP_UNKNOWN]),
			atomic64_read(&vs_drv_glue[AXPROF_G_K_STOP_PAL]),
			atomic64_read(&vs_drv_glue[AXPROF_G_K_STOP_ADDR]),
			atomic64_read(&vs_drv_glue[AXPROF_G_K_STOP_FAULT]),
			atomic64_read(&vs_drv_glue[AXPROF_G_K_STOP_SBUF]),
			atomic64_read(&vs_drv_glue[AXPROF_G_K_STOP_OTHER]),
			atomic64_read(&vs_drv_glue[AXPROF_G_K_CYCLES]));
}

static int do_start(void)
{
	struct vs_drv_state *st = state_locked();
	int err, src = 0;

	if (!st)
		return -ENODATA;
	if (READ_ONCE(vs_drv_running))
		return -EBUSY;
	WRITE_ONCE(vs_drv_running, true);
	err = vs_drv_source_start(&st->cfg, 0, &src);
	if (err) {
		WRITE_ONCE(vs_drv_running, false);
		return err;
	}
	atomic64_set(&vs_drv_glue[AXPROF_G_SOURCE], src);
	return 0;
}

/* Stop sampling; when this returns nothing records any more. */
static void stop_locked(void)
{
	if (!READ_ONCE(vs_drv_running))
		return;
	WRITE_ONCE(vs_drv_running, false);
	vs_drv_source_stop();
	vs_drv_work_wait();
	wake_up_interruptible(&read_wq);
	glue_print();
}

static int do_flush(void)
{
	struct vs_drv_state *st = state_locked();
	struct on_cpu a = { .st = st };
	unsigned int tries;
	bool busy;

	if (!st)
		return -ENODATA;
	for (a.cpu = 0; a.cpu < st->nr; a.cpu++)
		st->cpu[a.cpu].flush_pending = st->cpu[a.cpu].vs != NULL;
	/* -EBUSY: the IPI interrupted an interpretation on that CPU; the core asks for a retry.
	 * -ENOSPC: the buffers are full; read() drains them and finishes the flush. */
	for (tries = 0; tries < FLUSH_TRIES; tries++) {
		busy = false;
		for (a.cpu = 0; a.cpu < st->nr; a.cpu++) {
			if (!st->cpu[a.cpu].flush_pending)
				continue;
			run_on(a.cpu, flush_here, &a);
			busy |= a.err == -EBUSY;
		}
		if (!busy)
			break;
		usleep_range(1000, 2000);
	}
	vs_drv_wake_reader();
	return 0;
}

static int do_stats(void __user *up)
{
	struct vs_drv_state *st = state_locked();
	struct axprof_stats_req req;
	struct on_cpu a = { .st = st };
	size_t need, off = 0;
	void *buf;
	int err = 0;

	if (copy_from_user(&req, up, sizeof(req)))
		return -EFAULT;
	if (req.reserved)
		return -EINVAL;
	if (!st)
		return -ENODATA;
	need = (size_t)st->ncpus * sizeof(struct vs_rec_stats);
	if (req.len < need)
		return -ENOSPC;
	buf = kmalloc(need, GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	for (a.cpu = 0; a.cpu < st->nr && off < need; a.cpu++) {
		if (!st->cpu[a.cpu].vs)
			continue;
		a.out = (char *)buf + off;
		a.len = need - off;
		run_on(a.cpu, stats_here, &a);
		if (a.err < 0) {
			err = a.err;
			goto out;
		}
		off += a.err;
	}
	if (copy_to_user(u64_to_user_ptr(req.buf), buf, off))
		err = -EFAULT;
out:
	kfree(buf);
	return err ? err : (int)off;
}

static int do_glue(void __user *up)
{
	struct axprof_glue g = {};
	unsigned int i;

	for (i = 0; i < AXPROF_G_NR; i++)
		g.c[i] = atomic64_read(&vs_drv_glue[i]);
	return copy_to_user(up, &g, sizeof(g)) ? -EFAULT : 0;
}

static int do_set_drv(void __user *up)
{
	struct axprof_drv d;

	if (copy_from_user(&d, up, sizeof(d)))
		return -EFAULT;
	if ((d.flags & ~AXPROF_DRV_FLAGS) || d.reserved[0] || d.reserved[1] || d.reserved[2])
		return -EINVAL;
	if (READ_ONCE(vs_drv_running))
		return -EBUSY;
	WRITE_ONCE(vs_drv_flags, d.flags);
	return 0;
}

static int do_get_drv(void __user *up)
{
	struct axprof_drv d = { .flags = READ_ONCE(vs_drv_flags) };

	return copy_to_user(up, &d, sizeof(d)) ? -EFAULT : 0;
}

static long vs_drv_ioctl(struct file *f, unsigned int cmd, unsigned long arg)
{
	void __user *up = (void __user *)arg;
	long err;

	/* Each command number encodes its argument's size and direction: an exact match is the
	 * size check. */
	switch (cmd) {
	case VS_IOC_INFO:
	case VS_IOC_SET_CONFIG:
	case VS_IOC_GET_CONFIG:
	case VS_IOC_START:
	case VS_IOC_STOP:
	case VS_IOC_FLUSH:
	case AXPROF_IOC_STATS:
	case AXPROF_IOC_GLUE:
	case AXPROF_IOC_SET_DRV:
	case AXPROF_IOC_GET_DRV:
		break;
	default:
		return -ENOTTY;
	}
	if (mutex_lock_interruptible(&vs_drv_lock))
		return -ERESTARTSYS;
	switch (cmd) {
	case VS_IOC_INFO:
		err = do_info(up);
		break;
	case VS_IOC_SET_CONFIG:
		err = do_set_config(up);
		break;
	case VS_IOC_GET_CONFIG:
		err = do_get_config(up);
		break;
	case VS_IOC_START:
		err = do_start();
		break;
	case VS_IOC_STOP:
		stop_locked();
		err = 0;
		break;
	case VS_IOC_FLUSH:
		err = do_flush();
		break;
	case AXPROF_IOC_STATS:
		err = do_stats(up);
		break;
	case AXPROF_IOC_SET_DRV:
		err = do_set_drv(up);
		break;
	case AXPROF_IOC_GET_DRV:
		err = do_get_drv(up);
		break;
	default:
		err = do_glue(up);
		break;
	}
	mutex_unlock(&vs_drv_lock);
	return err;
}

/* ---- open ---- */

static int vs_drv_open(struct inode *inode, struct file *f)
{
	if (!capable(CAP_SYS_ADMIN) &&
	    !(group >= 0 && in_group_p(make_kgid(&init_user_ns, (gid_t)group))))
		return -EPERM;
	return stream_open(inode, f);
}

static const struct file_operations vs_drv_fops = {
	.owner = THIS_MODULE,
	.open = vs_drv_open,
	.read = vs_drv_read,
	.poll = vs_drv_poll,
	.unlocked_ioctl = vs_drv_ioctl,
	.llseek = no_llseek,
};

static struct miscdevice vs_drv_misc = {
	.minor = MISC_DYNAMIC_MINOR,
	.name = "axprof",
	.fops = &vs_drv_fops,
	.mode = 0600,
};

/* ---- module ---- */

static int __init vs_drv_init(void)
{
	int err;

	if (group >= 0)
		vs_drv_misc.mode = 0660;
	vs_drv_work_init();
	vs_drv_source_init();
	err = misc_register(&vs_drv_misc);
	if (err)
		return err;
	pr_info("axprof: /dev/axprof ready (ABI %d, %u CPUs, amask 0x%llx implver %lu)\n",
		VS_ABI_VERSION, num_online_cpus(), amask_present(), (unsigned long)implver());
	return 0;
}

static void __exit vs_drv_exit(void)
{
	struct vs_drv_state *st;

	misc_deregister(&vs_drv_misc);
	mutex_lock(&vs_drv_lock);
	stop_locked();
	st = state_locked();
	RCU_INIT_POINTER(vs_drv_state, NULL);
	mutex_unlock(&vs_drv_lock);
	synchronize_rcu();
	state_free(st);
	irq_work_sync(&wake_work);
	pr_info("axprof: unloaded\n");
}

module_init(vs_drv_init);
module_exit(vs_drv_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("axprof: DCPI-style sampling with a side-effecting Alpha interpreter");
MODULE_SOFTDEP("pre: axp_interp");
