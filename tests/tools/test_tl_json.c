/* tests/tools/test_tl_json.c - the tools' JSON writer (tl_json) and report options (tl_opts). */
#define _GNU_SOURCE
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "tl_json.h"
#include "tl_json_an.h"
#include "tl_opts.h"

/* What f holds, as a string (f is closed). */
static char *contents(FILE *f, char **buf)
{
	fclose(f);
	return *buf;
}

static char *str_json(const char *s)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	tl_json_write_str(f, s);
	return contents(f, &buf);
}

static void test_tl_json_strings_are_escaped_and_utf8(void **state)
{
	static const struct {
		const char *in, *out;
	} v[] = {
		{ "plain", "\"plain\"" },
		{ "a\"b\\c", "\"a\\\"b\\\\c\"" },
		{ "t\tn\nx\x01", "\"t\\tn\\nx\\u0001\"" },
		{ "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80",
		  "\"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80\"" },
		/* Not UTF-8: each bad byte becomes U+FFFD. */
		{ "semi\xffinv", "\"semi\xef\xbf\xbdinv\"" },
		{ "\xc3", "\"\xef\xbf\xbd\"" }, /* cut short */
		{ "\xc0\xaf", "\"\xef\xbf\xbd\xef\xbf\xbd\"" }, /* overlong */
		{ "\xed\xa0\x80", "\"\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\"" }, /* surrogate */
		{ "\xf4\x90\x80\x80", "\"\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\"" },
		{ "\xe2\x82x", "\"\xef\xbf\xbd\xef\xbf\xbdx\"" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		char *out = str_json(v[i].in);

		assert_string_equal(out, v[i].out);
		free(out);
	}
}

static void test_tl_json_documents_nest_with_commas(void **state)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct tl_json j;

	(void)state;
	assert_non_null(f);
	tl_json_doc_open(&j, f, "report");
	tl_json_u64(&j, "epoch", 3);
	tl_json_hex(&j, "address", 0x120000ee0);
	tl_json_word(&j, "word", 0x27bb0002);
	tl_json_num(&j, "share", 0.5, 3);
	tl_json_num(&j, "bad", NAN, 3);
	tl_json_arr_open(&j, "images");
	tl_json_obj_open(&j, NULL);
	tl_json_str(&j, "image", "/a");
	tl_json_bool(&j, "ok", true);
	tl_json_obj_close(&j);
	tl_json_obj_open(&j, NULL);
	tl_json_i64(&j, "offset", -4);
	tl_json_arr_open(&j, "epochs");
	tl_json_u64(&j, NULL, 1);
	tl_json_u64(&j, NULL, 2);
	/* doc_close closes what is still open, each with its own bracket. */
	tl_json_doc_close(&j);
	tl_json_doc_open(&j, f, "dis");
	tl_json_null(&j, "target");
	tl_json_doc_close(&j);
	assert_string_equal(contents(f, &buf),
			    "{\"tool\":\"report\",\"epoch\":3,\"address\":\"0x120000ee0\","
			    "\"word\":\"0x27bb0002\",\"share\":0.500,\"bad\":null,\"images\":["
			    "{\"image\":\"/a\",\"ok\":true},{\"offset\":-4,\"epochs\":[1,2]}]}\n"
			    "{\"tool\":\"dis\",\"target\":null}\n");
	free(buf);
}

/* A summary of a procedure without samples: zeros, never NaN (no division by zero). */
static void test_tl_json_stall_summary_of_nothing(void **state)
{
	struct an_stall_summary sum = { .period = 62000 };
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct tl_json j;

	(void)state;
	assert_non_null(f);
	tl_json_doc_open(&j, f, "report");
	tl_json_stall_summary(&j, "summary", &sum);
	tl_json_doc_close(&j);
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
		cmocka_unit_test(test_tl_json_strings_are_escaped_and_utf8),
		cmocka_unit_test(test_tl_json_documents_nest_with_commas),
		cmocka_unit_test(test_tl_json_stall_summary_of_nothing),
		cmocka_unit_test(test_tl_ropts_parse_takes_the_shared_options),
		cmocka_unit_test(test_tl_ropts_parse_rejects_bad_numbers),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
