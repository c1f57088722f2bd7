/* tests/tools/test_tl_view.c - the tools' database view (tl_view): opening, and its errors. */
#define _GNU_SOURCE
#include <errno.h>
#include <ftw.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "tl_view.h"

static int rm_one(const char *p, const struct stat *st, int type, struct FTW *ftw)
{
	(void)st;
	(void)type;
	(void)ftw;
	return remove(p);
}

static int setup(void **state)
{
	static char dir[64];
	struct pdb_db *db;

	snprintf(dir, sizeof(dir), "/tmp/test_tl_view.XXXXXX");
	if (!mkdtemp(dir) || pdb_open(dir, true, &db, NULL))
		return -1;
	pdb_close(db);
	*state = dir;
	return 0;
}

static int teardown(void **state)
{
	return nftw(*state, rm_one, 8, FTW_DEPTH | FTW_PHYS);
}

/* A database that is not there: -ENOENT and a message naming the directory. */
static void test_tl_view_missing_database_is_named(void **state)
{
	static const char dir[] = "/nonexistent/axprof-test-db";
	struct tl_view v;
	struct ax_error err;

	(void)state;
	memset(&err, 0x5a, sizeof(err));
	assert_int_equal(tl_view_open(&v, dir, 0, &err), -ENOENT);
	assert_int_equal(err.code, -ENOENT);
	assert_non_null(strstr(err.msg, dir));
	assert_int_equal(tl_view_open(&v, dir, 0, NULL), -ENOENT); /* err may be NULL */
}

/* An empty database opens (no images); an epoch it does not have is refused with a message. */
static void test_tl_view_missing_epoch_is_named(void **state)
{
	const char *dir = *state;
	struct tl_view v;
	struct ax_error err;
	int ret;

	assert_int_equal(tl_view_open(&v, dir, 0, &err), 0);
	assert_int_equal(v.epoch, 1);
	assert_int_equal(v.n, 0);
	tl_view_close(&v);

	ret = tl_view_open(&v, dir, 7, &err);
	assert_true(ret < 0);
	assert_int_equal(err.code, ret);
	assert_non_null(strstr(err.msg, dir));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tl_view_missing_database_is_named),
		cmocka_unit_test_setup_teardown(test_tl_view_missing_epoch_is_named, setup,
						teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
