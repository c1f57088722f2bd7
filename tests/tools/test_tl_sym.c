/* tests/tools/test_tl_sym.c - symbol names as printed (tl_sym: C++ demangling) and --sort. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "tl_opts.h"
#include "tl_sym.h"

static int demangle_on(void **state)
{
	(void)state;
	tl_sym_set_demangle(true);
	return 0;
}

static void test_tl_sym_demangles_cxx(void **state)
{
	(void)state;
	assert_string_equal(tl_sym_name("_ZNK3geo6Square4areaEl"), "geo::Square::area(long) const");
	assert_string_equal(tl_sym_name("_ZN3geo5MixerImE3addEm"),
			    "geo::Mixer<unsigned long>::add(unsigned long)");
	assert_string_equal(tl_sym_name("_ZTVN3geo6SquareE"), "vtable for geo::Square");
	/* a static function (internal linkage, _ZL) prints as the plain signature */
	assert_string_equal(tl_sym_name("_ZL5scaled"), "scale(double)");
}

static void test_tl_sym_keeps_plain_and_bad_names(void **state)
{
	const char *c = "main";

	(void)state;
	assert_ptr_equal(tl_sym_name(c), c); /* not _Z: the same string */
	assert_string_equal(tl_sym_name("_Zzz_not_a_name"), "_Zzz_not_a_name");
	assert_string_equal(tl_sym_name("_Z"), "_Z");
	assert_string_equal(tl_sym_name(""), "");
	assert_null(tl_sym_name(NULL));
	assert_null(tl_sym_mangled("main"));
	assert_null(tl_sym_mangled("_Zzz_not_a_name"));
}

static void test_tl_sym_suffixes(void **state)
{
	(void)state;
	assert_string_equal(tl_sym_name("_Z5scalel@plt"), "scale(long)@plt");
	assert_string_equal(tl_sym_name("_Z5scalel@@V_1.0"), "scale(long)@@V_1.0");
	assert_string_equal(tl_sym_name("_Z5scalel.constprop.0"),
			    "scale(long) [clone .constprop.0]");
}

static void test_tl_sym_mangled_and_matches(void **state)
{
	char copy[128];

	(void)state;
	snprintf(copy, sizeof(copy), "%s", tl_sym_name("_ZNK3geo8Triangle4areaEl"));
	/* by text: a copy of the shown name finds its raw name */
	assert_string_equal(tl_sym_mangled(copy), "_ZNK3geo8Triangle4areaEl");
	assert_true(tl_sym_matches("_ZNK3geo8Triangle4areaEl", "geo::Triangle::area(long) const"));
	assert_true(tl_sym_matches("_ZNK3geo8Triangle4areaEl", "_ZNK3geo8Triangle4areaEl"));
	assert_false(tl_sym_matches("_ZNK3geo8Triangle4areaEl", "geo::Square::area(long) const"));
	assert_false(tl_sym_matches("_ZNK3geo8Triangle4areaEl", "area"));
}

static void test_tl_sym_no_demangle(void **state)
{
	(void)state;
	tl_sym_set_demangle(false);
	assert_false(tl_sym_demangling());
	assert_string_equal(tl_sym_name("_ZNK3geo6Square4areaEl"), "_ZNK3geo6Square4areaEl");
	/* a typed demangled name still finds the procedure */
	assert_true(tl_sym_matches("_ZNK3geo6Square4areaEl", "_ZNK3geo6Square4areaEl"));
	tl_sym_set_demangle(true);
	assert_true(tl_sym_demangling());
}

static void test_tl_sym_no_demangle_option(void **state)
{
	struct tl_ropts o;

	(void)state;
	tl_ropts_init(&o, "test", 10);
	assert_int_equal(tl_ropts_parse(&o, TL_OPT_NO_DEMANGLE, NULL), 1);
	assert_true(o.seen & TL_SEEN_NO_DEMANGLE);
	assert_false(tl_sym_demangling());
	tl_sym_set_demangle(true);
}

static void test_tl_sort_pick(void **state)
{
	static const char *const f[] = { "samples", "name", "address" };
	struct tl_ropts o;

	(void)state;
	tl_ropts_init(&o, "test", 10);
	assert_int_equal(tl_sort_pick(&o, "view", f, 3), 0); /* not given: the default */
	assert_int_equal(tl_ropts_parse(&o, TL_OPT_SORT, "address"), 1);
	assert_int_equal(tl_sort_pick(&o, "view", f, 3), 2);
	assert_int_equal(tl_ropts_parse(&o, TL_OPT_SORT, "Name"), 1);
	assert_int_equal(tl_sort_pick(&o, "view", f, 3), -1); /* exact, case and all */
	assert_int_equal(tl_sort_check("test", NULL, "", f, 3), -1);
	assert_int_equal(tl_sort_check("test", NULL, "samples", f, 3), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_tl_sym_demangles_cxx, demangle_on),
		cmocka_unit_test_setup(test_tl_sym_keeps_plain_and_bad_names, demangle_on),
		cmocka_unit_test_setup(test_tl_sym_suffixes, demangle_on),
		cmocka_unit_test_setup(test_tl_sym_mangled_and_matches, demangle_on),
		cmocka_unit_test_setup(test_tl_sym_no_demangle, demangle_on),
		cmocka_unit_test_setup(test_tl_sym_no_demangle_option, demangle_on),
		cmocka_unit_test_setup(test_tl_sort_pick, demangle_on),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
