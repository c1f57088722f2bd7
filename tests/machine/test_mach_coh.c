/* tests/machine/test_mach_coh.c - the MESI snooping protocol between virtual CPUs (mach_coh.c). */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "mach.h"
#include "mach_coh.h"

/* A fake CPU: the blocks its caches hold (a few), and what the protocol told it. */
struct fake {
	uint64_t held[8];
	unsigned int n;
	unsigned int invals; /* inval() calls that found the block */
};

static bool fake_holds(void *model, uint64_t blk)
{
	struct fake *f = model;

	for (unsigned int i = 0; i < f->n; i++)
		if (f->held[i] == blk)
			return true;
	return false;
}

static void fake_inval(void *model, uint64_t blk)
{
	struct fake *f = model;

	for (unsigned int i = 0; i < f->n; i++)
		if (f->held[i] == blk) {
			f->held[i] = f->held[--f->n];
			f->invals++;
			return;
		}
}

static void fake_fill(struct fake *f, uint64_t ea)
{
	if (!fake_holds(f, ea >> MACH_COH_SHIFT))
		f->held[f->n++] = ea >> MACH_COH_SHIFT;
}

static struct fake cpu[4];

static struct mach_coh *setup(unsigned int n, bool truth)
{
	struct mach_coh *c;

	memset(cpu, 0, sizeof(cpu));
	assert_int_equal(mach_coh_new(&c, n, 0, 0, truth), 0);
	for (unsigned int i = 0; i < n; i++) {
		const struct mach_coh_cpu ops = { &cpu[i], fake_holds, fake_inval };

		mach_coh_attach(c, i, &ops);
	}
	return c;
}

/* A load then a store, each followed by the model filling its cache as the models do. */
static void load(struct mach_coh *c, unsigned int k, uint64_t ea, uint64_t pc,
		 struct mach_coh_res *r)
{
	mach_coh_load(c, k, ea, pc, r);
	fake_fill(&cpu[k], ea);
}

static void store(struct mach_coh *c, unsigned int k, uint64_t ea, uint64_t pc,
		  struct mach_coh_res *r)
{
	mach_coh_store(c, k, ea, pc, r);
	fake_fill(&cpu[k], ea);
}

static void test_mach_coh_bad_cpu_count(void **state)
{
	struct mach_coh *c = (void *)1;

	(void)state;
	assert_int_equal(mach_coh_new(&c, 1, 0, 0, false), -EINVAL);
	assert_null(c);
	assert_int_equal(mach_coh_new(&c, MACH_MAX_CPUS + 1, 0, 0, false), -EINVAL);
	assert_int_equal(mach_coh_new(&c, 2, 7, 3, false), 0);
	assert_int_equal(mach_coh_param(c, true), 7);
	assert_int_equal(mach_coh_param(c, false), 3);
	mach_coh_free(c);
}

/* Exclusive on the first read: the same CPU's store is silent (E -> M). */
static void test_mach_coh_exclusive_store_is_silent(void **state)
{
	struct mach_coh *c = setup(2, false);
	struct mach_coh_res r;
	uint64_t i, v, s;

	(void)state;
	load(c, 0, 0x1000, 0x10, &r);
	assert_false(r.interv);
	assert_int_equal(r.lat, 0);
	store(c, 0, 0x1008, 0x14, &r);
	assert_int_equal(r.inval, 0);
	assert_false(r.interv);
	store(c, 0, 0x1038, 0x14, &r); /* same 64-byte block */
	assert_int_equal(r.inval, 0);
	mach_coh_totals(c, &i, &v, &s);
	assert_int_equal(i + v + s, 0);
	mach_coh_free(c);
}

/* False sharing between two CPUs: every change of writer is one intervention and one
 * invalidation; the store that found the block Shared counts as a store to a shared block. */
static void test_mach_coh_ping_pong(void **state)
{
	struct mach_coh *c = setup(2, false);
	struct mach_coh_res r;
	uint64_t i, v, s;

	(void)state;
	load(c, 0, 0x2000, 0x10, &r);
	store(c, 0, 0x2000, 0x14, &r); /* CPU 0: M */
	load(c, 1, 0x2008, 0x10, &r); /* Modified in CPU 0: intervention, both S */
	assert_true(r.interv);
	assert_int_equal(r.lat, MACH_COH_C2C_LAT);
	assert_int_equal(cpu[0].invals, 0);
	assert_true(fake_holds(&cpu[0], 0x2000 >> MACH_COH_SHIFT));
	store(c, 1, 0x2008, 0x14, &r); /* upgrade: CPU 0's copy invalidated */
	assert_int_equal(r.inval, 1);
	assert_false(r.interv);
	assert_int_equal(r.lat, MACH_COH_INVAL_LAT);
	assert_int_equal(cpu[0].invals, 1);
	store(c, 0, 0x2000, 0x14, &r); /* write miss on M elsewhere: read-exclusive */
	assert_int_equal(r.inval, 1);
	assert_true(r.interv);
	assert_int_equal(r.lat, MACH_COH_INVAL_LAT + MACH_COH_C2C_LAT);
	assert_int_equal(cpu[1].invals, 1);
	mach_coh_totals(c, &i, &v, &s);
	assert_int_equal(i, 2);
	assert_int_equal(v, 2);
	assert_int_equal(s, 1);
	mach_coh_free(c);
}

/* A store invalidates every sharer; a copy its cache dropped silently is not counted. */
static void test_mach_coh_invalidates_every_sharer(void **state)
{
	struct mach_coh *c = setup(4, false);
	struct mach_coh_res r;

	(void)state;
	for (unsigned int k = 0; k < 3; k++) {
		load(c, k, 0x3000, 0x10, &r);
		assert_false(r.interv); /* clean: from memory */
	}
	fake_inval(&cpu[2], 0x3000 >> MACH_COH_SHIFT); /* evicted silently */
	cpu[2].invals = 0;
	store(c, 3, 0x3010, 0x20, &r);
	assert_int_equal(r.inval, 2);
	assert_int_equal(cpu[0].invals + cpu[1].invals + cpu[2].invals, 2);
	/* a stale copy of the requester's own (a write buffer refilled it) is dropped first */
	fake_fill(&cpu[0], 0x3000);
	cpu[0].invals = 0;
	load(c, 0, 0x3000, 0x24, &r);
	assert_int_equal(cpu[0].invals, 1);
	assert_true(r.interv);
	mach_coh_free(c);
}

/* The truth section: one record per PC, sorted, the counts of each. */
static void test_mach_coh_truth_section(void **state)
{
	struct mach_coh *c = setup(2, true);
	struct mach_coh_res r;
	struct mach_truth_xsec x;
	const uint8_t *p;
	uint64_t w[8];

	(void)state;
	for (int k = 0; k < 3; k++) {
		load(c, 0, 0x4000, 0x200, &r);
		store(c, 0, 0x4000, 0x204, &r);
		load(c, 1, 0x4008, 0x100, &r);
		store(c, 1, 0x4008, 0x104, &r);
	}
	assert_int_equal(mach_coh_truth_xsec(c, &x), 0);
	assert_int_equal(x.type, MACH_TRUTH_SEC_COHERENCE);
	assert_int_equal(x.rsz, MACH_TRUTH_COH_SIZE);
	assert_int_equal(x.n, 4); /* 0x100, 0x104, 0x200, 0x204 */
	p = x.data;
	for (unsigned int k = 0; k < 8; k++)
		memcpy(&w[k], p + 8 * k, 8); /* little-endian host (the tests run on x86-64) */
	assert_int_equal(w[0], 0x100);
	assert_int_equal(w[2], 3); /* CPU 1's loads: an intervention each time */
	assert_int_equal(w[4], 0x104);
	assert_int_equal(w[5], 3); /* its stores: an invalidation each */
	assert_int_equal(w[7], 3); /* ... of a block Shared here */
	memcpy(&w[0], p + 2 * MACH_TRUTH_COH_SIZE, 8);
	memcpy(&w[1], p + 2 * MACH_TRUTH_COH_SIZE + 16, 8);
	assert_int_equal(w[0], 0x200);
	assert_int_equal(w[1], 2); /* the first load of CPU 0 found the block nowhere */
	mach_coh_free(c);
	c = setup(2, false);
	assert_int_equal(mach_coh_truth_xsec(c, &x), -EINVAL);
	mach_coh_free(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mach_coh_bad_cpu_count),
		cmocka_unit_test(test_mach_coh_exclusive_store_is_silent),
		cmocka_unit_test(test_mach_coh_ping_pong),
		cmocka_unit_test(test_mach_coh_invalidates_every_sharer),
		cmocka_unit_test(test_mach_coh_truth_section),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
