/* tests/isa/test_isa_ev5.c - unit tests of the EV5 per-instruction facts (isa/isa_ev5.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "axp.h"
#include "isa_ev5.h"

static struct isa_ev5_op facts(unsigned int op)
{
	struct isa_ev5_op o;

	isa_ev5_op(op, ISA_EV5_DCACHE_LAT, &o);
	return o;
}

static void test_isa_ev5_loads_take_the_dcache_latency(void **state)
{
	struct isa_ev5_op o = facts(AXP_OP_LDQ), l = facts(AXP_OP_LDQ_L), t;

	(void)state;
	assert_int_equal(o.pipe, ISA_EV5_P_E01);
	assert_true(o.kind & ISA_EV5_K_LOAD);
	assert_int_equal(o.lat, 2);
	assert_int_equal(o.da, 1); /* integer Ra */
	assert_int_equal(o.sb, 1);
	assert_int_equal(l.pipe, ISA_EV5_P_E0); /* LDx_L issues in E0 */
	isa_ev5_op(AXP_OP_LDT, 3, &t);
	assert_int_equal(t.lat, 3); /* the parameter, not a constant */
	assert_int_equal(t.da, 33); /* FP Ra */
}

static void test_isa_ev5_stores_and_multiplies(void **state)
{
	struct isa_ev5_op s = facts(AXP_OP_STQ), m = facts(AXP_OP_MULQ), d = facts(AXP_OP_DIVT);

	(void)state;
	assert_int_equal(s.pipe, ISA_EV5_P_E0);
	assert_true(s.kind & ISA_EV5_K_STORE);
	assert_false(s.kind & ISA_EV5_K_LOAD);
	assert_int_equal(m.pipe, ISA_EV5_P_E0);
	assert_int_equal(m.lat, 12);
	assert_int_equal(m.repeat, 8);
	assert_true(m.kind & ISA_EV5_K_IMUL);
	assert_int_equal(d.pipe, ISA_EV5_P_FA);
	assert_int_equal(d.lat, 22);
	assert_true(d.kind & ISA_EV5_K_FDIV);
	assert_int_equal(facts(AXP_OP_MULT).pipe, ISA_EV5_P_FM);
	assert_int_equal(facts(AXP_OP_CPYS).pipe, ISA_EV5_P_FAM);
}

static void test_isa_ev5_control_kinds_by_op(void **state)
{
	(void)state;
	assert_int_equal(facts(AXP_OP_BR).kind, ISA_EV5_K_UBR);
	assert_int_equal(facts(AXP_OP_BEQ).kind, ISA_EV5_K_CBR | ISA_EV5_K_BYPC);
	assert_int_equal(facts(AXP_OP_BSR).kind, ISA_EV5_K_UBR | ISA_EV5_K_PUSH);
	assert_int_equal(facts(AXP_OP_JSR).kind, ISA_EV5_K_IND | ISA_EV5_K_PUSH);
	assert_int_equal(facts(AXP_OP_RET).kind, ISA_EV5_K_IND | ISA_EV5_K_POP);
	assert_int_equal(facts(AXP_OP_FBEQ).pipe, ISA_EV5_P_FA);
	assert_true(facts(AXP_OP_CMPEQ).kind & ISA_EV5_K_BYPP);
	assert_int_equal(facts(AXP_OP_MB).kind, ISA_EV5_K_BARRIER | ISA_EV5_K_MB);
	assert_int_equal(facts(AXP_OP_TRAPB).kind, ISA_EV5_K_BARRIER);
	assert_int_equal(facts(AXP_OP_CALL_PAL).kind, ISA_EV5_K_PAL | ISA_EV5_K_BARRIER);
}

static void test_isa_ev5_out_of_range_is_the_invalid_op(void **state)
{
	struct isa_ev5_op a = facts(AXP_OP_NR + 7), b = facts(AXP_OP_INVALID);

	(void)state;
	assert_memory_equal(&a, &b, sizeof(a));
	assert_string_equal(isa_ev5_pipe_name(ISA_EV5_P_E01), "E01");
	assert_string_equal(isa_ev5_pipe_name(ISA_EV5_P_NR), "?");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_isa_ev5_loads_take_the_dcache_latency),
		cmocka_unit_test(test_isa_ev5_stores_and_multiplies),
		cmocka_unit_test(test_isa_ev5_control_kinds_by_op),
		cmocka_unit_test(test_isa_ev5_out_of_range_is_the_invalid_op),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
