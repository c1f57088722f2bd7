/* tests/tools/test_tl_json.c - stall summaries as JSON (tl_json_an), report options (tl_opts). */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "ax_json.h"
#include "tl_json_an.h"
#include "tl_opts.h"

/* What f holds, as a string (f is closed). */
static char *contents(FILE *f, char **buf)
{
	fclose(f);
	return *buf;
}

/* A summary of a procedure without samples: zeros, never NaN (no division by zero). */
static void test_tl_json_stall_summary_of_nothing(void **state)
{
	struct an_stall_summary sum = { .period = 62000 };
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct ax_json j;

	(void)state;
	assert_non_null(f);
	ax_json_doc_open(&j, f, "report");
	tl_json_stall_summary(&j, "summary", &sum);
	ax_json_doc_close(&j);
	contents(f, &buf);
	assert_null(strstr(buf, "nan"));
	assert_null(strstr(buf, "null"));
	assert_non_null(strstr(buf, "\"summary\":{\"samples\":0,\"cycles\":0,\"insns\":0,"
				    "\"cpi\":0.0000,"));
	assert_non_null(strstr(buf, "\"icache\":{\"lo\":0.00,\"hi\":0.00,\"split\":0.00}"));
	free(buf);
}

/* Every report tool's -d/--epoch/--image/--json/-n through one parser, one set of messages. */
static void test_tl_ropts_parse_takes_the_shared_options(void **state)
{
	struct tl_ropts o;

	(void)state;
	setenv("AXPROF_DB", "/env/db", 1);
	tl_ropts_init(&o, "axprof x", 5);
	assert_string_equal(o.db, "/env/db");
	assert_int_equal(o.top, 5);
	assert_int_equal(tl_ropts_parse(&o, 'd', "/my/db"), 1);
	assert_int_equal(tl_ropts_parse(&o, TL_OPT_EPOCH, "7"), 1);
	assert_int_equal(tl_ropts_parse(&o, TL_OPT_IMAGE, "libc.so.6.1"), 1);
	assert_int_equal(tl_ropts_parse(&o, TL_OPT_JSON, NULL), 1);
	assert_int_equal(tl_ropts_parse(&o, 'n', "0"), 1);
	assert_int_equal(tl_ropts_parse(&o, 'x', "0"), 0);
	assert_string_equal(o.db, "/my/db");
	assert_int_equal(o.epoch, 7);
	assert_string_equal(o.image, "libc.so.6.1");
	assert_true(o.json);
	assert_int_equal(o.top, 0);
	assert_int_equal(o.seen,
			 TL_SEEN_DB | TL_SEEN_EPOCH | TL_SEEN_IMAGE | TL_SEEN_JSON | TL_SEEN_TOP);
	unsetenv("AXPROF_DB");
	tl_ropts_init(&o, "axprof x", 20);
	assert_string_equal(o.db, "axprof-db");
}

static void test_tl_ropts_parse_rejects_bad_numbers(void **state)
{
	static const struct {
		int opt;
		const char *arg;
	} bad[] = {
		{ TL_OPT_EPOCH, "0" },
		{ TL_OPT_EPOCH, "x" },
		{ TL_OPT_EPOCH, "-1" },
		{ TL_OPT_EPOCH, "1000000000" },
		{ TL_OPT_EPOCH, "3 " },
		{ TL_OPT_EPOCH, "" },
		{ 'n', "-1" },
		{ 'n', "ten" },
		{ 'n', "" },
		{ 'n', "100000001" },
	};
	struct tl_ropts o;

	(void)state;
	tl_ropts_init(&o, "axprof x", 5);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_int_equal(tl_ropts_parse(&o, bad[i].opt, bad[i].arg), 2);
	assert_int_equal(o.epoch, 0);
	assert_int_equal(o.top, 5);
	assert_int_equal(o.seen, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tl_json_stall_summary_of_nothing),
		cmocka_unit_test(test_tl_ropts_parse_takes_the_shared_options),
		cmocka_unit_test(test_tl_ropts_parse_rejects_bad_numbers),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
