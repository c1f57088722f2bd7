/* tests/compat/test_ax_json.c - the one JSON writer (ax_json): escaping, UTF-8, nesting. */
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

#include "ax_json.h"

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
	ax_json_write_str(f, s);
	return contents(f, &buf);
}

static void test_ax_json_strings_are_escaped_and_utf8(void **state)
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

static void test_ax_json_documents_nest_with_commas(void **state)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct ax_json j;

	(void)state;
	assert_non_null(f);
	ax_json_doc_open(&j, f, "report");
	ax_json_u64(&j, "epoch", 3);
	ax_json_hex(&j, "address", 0x120000ee0);
	ax_json_word(&j, "word", 0x27bb0002);
	ax_json_num(&j, "share", 0.5, 3);
	ax_json_num(&j, "bad", NAN, 3);
	ax_json_arr_open(&j, "images");
	ax_json_obj_open(&j, NULL);
	ax_json_str(&j, "image", "/a");
	ax_json_bool(&j, "ok", true);
	ax_json_obj_close(&j);
	ax_json_obj_open(&j, NULL);
	ax_json_i64(&j, "offset", -4);
	ax_json_arr_open(&j, "epochs");
	ax_json_u64(&j, NULL, 1);
	ax_json_u64(&j, NULL, 2);
	/* doc_close closes what is still open, each with its own bracket. */
	ax_json_doc_close(&j);
	ax_json_doc_open(&j, f, "dis");
	ax_json_null(&j, "target");
	ax_json_doc_close(&j);
	assert_string_equal(contents(f, &buf),
			    "{\"tool\":\"report\",\"epoch\":3,\"address\":\"0x120000ee0\","
			    "\"word\":\"0x27bb0002\",\"share\":0.500,\"bad\":null,\"images\":["
			    "{\"image\":\"/a\",\"ok\":true},{\"offset\":-4,\"epochs\":[1,2]}]}\n"
			    "{\"tool\":\"dis\",\"target\":null}\n");
	free(buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ax_json_strings_are_escaped_and_utf8),
		cmocka_unit_test(test_ax_json_documents_nest_with_commas),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
