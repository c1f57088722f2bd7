/* tests/machine/test_mach_confine.c - unit tests of mach_opts.confine (machine/mach_confine.c). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "mach_int.h"

/*
 * A directory D holding f ("inside"), sub/, out -> /etc/passwd, up -> ../../../../etc/passwd,
 * sub/in -> /sub/../f, loop -> sub/../loop, and a file o beside D (outside). The machine is confined to D with no sysroot.
 */
struct fx {
	char top[64], dir[96];
	struct mach *m;
};

static int setup(void **state)
{
	struct mach_opts o = { .sysroot = "", .cpu = "none" };
	struct fx *x = calloc(1, sizeof(*x));
	char p[256];
	FILE *f;

	if (!x)
		return -1;
	snprintf(x->top, sizeof(x->top), "/tmp/axprof-confine.XXXXXX");
	if (!mkdtemp(x->top))
		return -1;
	snprintf(x->dir, sizeof(x->dir), "%s/D", x->top);
	snprintf(p, sizeof(p), "%s/sub", x->dir);
	if (mkdir(x->dir, 0755) || mkdir(p, 0755))
		return -1;
	snprintf(p, sizeof(p), "%s/f", x->dir);
	f = fopen(p, "w");
	if (!f || fputs("inside\n", f) < 0 || fclose(f))
		return -1;
	snprintf(p, sizeof(p), "%s/o", x->top);
	f = fopen(p, "w");
	if (!f || fclose(f))
		return -1;
	snprintf(p, sizeof(p), "%s/out", x->dir);
	if (symlink("/etc/passwd", p))
		return -1;
	snprintf(p, sizeof(p), "%s/up", x->dir);
	if (symlink("../../../../../../etc/passwd", p))
		return -1;
	snprintf(p, sizeof(p), "%s/sub/in", x->dir);
	if (symlink("/sub/../f", p)) /* absolute, inside */
		return -1;
	snprintf(p, sizeof(p), "%s/loop", x->dir);
	if (symlink("sub/../loop", p))
		return -1;
	o.confine = x->dir;
	if (mach_new(&x->m, &o))
		return -1;
	*state = x;
	return 0;
}

/* The same directory with the resolver of kernels without openat2 (mach_confine_walk.c). */
static int setup_walk(void **state)
{
	int ret = setup(state);

	if (!ret)
		((struct fx *)*state)->m->confine.walk = true;
	return ret;
}

static int teardown(void **state)
{
	struct fx *x = *state;
	char cmd[128];

	mach_free(x->m);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", x->top);
	if (system(cmd))
		return -1;
	free(x);
	return 0;
}

/* Resolve with `how`, stat the host name (lstat for NOFOLLOW), release: 0 or -errno. */
static int resolve_stat(struct mach *m, int dirfd, const char *path, unsigned int how,
			struct stat *st)
{
	char buf[PATH_MAX];
	const char *host;
	int ret = mach_confine_path(m, dirfd, path, how, buf, sizeof(buf), &host);

	if (!ret && ((how & MACH_CF_NOFOLLOW) ? lstat(host, st) : stat(host, st)))
		ret = -errno;
	mach_confine_release(m);
	return ret;
}

static void test_confine_names_resolve_inside_the_directory(void **state)
{
	struct fx *x = *state;
	struct stat st, in;
	char p[256];

	snprintf(p, sizeof(p), "%s/f", x->dir);
	assert_int_equal(stat(p, &in), 0);
	/* "/" is D; ".." stops at D */
	assert_int_equal(resolve_stat(x->m, AT_FDCWD, "/f", 0, &st), 0);
	assert_true(st.st_ino == in.st_ino && st.st_dev == in.st_dev);
	assert_int_equal(resolve_stat(x->m, AT_FDCWD, "../../../../f", 0, &st), 0);
	assert_true(st.st_ino == in.st_ino);
	assert_int_equal(resolve_stat(x->m, AT_FDCWD, "sub/../../../f", 0, &st), 0);
	assert_true(st.st_ino == in.st_ino);
	/* links are followed inside D, absolute ones from D; a loop ends */
	assert_int_equal(resolve_stat(x->m, AT_FDCWD, "/sub/in", 0, &st), 0);
	assert_true(st.st_ino == in.st_ino);
	assert_int_equal(resolve_stat(x->m, AT_FDCWD, "sub/in/", 0, &st), -ENOTDIR);
	assert_int_equal(resolve_stat(x->m, AT_FDCWD, "loop", 0, &st), -ELOOP);
	assert_int_equal(resolve_stat(x->m, AT_FDCWD, "loop", MACH_CF_NOFOLLOW, &st), 0);
	/* the host's files are not there, however named */
	assert_int_equal(resolve_stat(x->m, AT_FDCWD, "/etc/passwd", 0, &st), -ENOENT);
	assert_int_equal(resolve_stat(x->m, AT_FDCWD, "../o", 0, &st), -ENOENT);
	assert_int_equal(resolve_stat(x->m, AT_FDCWD, "out", 0, &st), -ENOENT);
	assert_int_equal(resolve_stat(x->m, AT_FDCWD, "up", 0, &st), -ENOENT);
	assert_int_equal(resolve_stat(x->m, AT_FDCWD, "/proc/self/root/etc/passwd", 0, &st),
			 -ENOENT);
}

static void test_confine_nofollow_names_the_link_itself(void **state)
{
	struct fx *x = *state;
	char buf[PATH_MAX], target[PATH_MAX];
	const char *host;
	struct stat st;
	ssize_t n;

	assert_int_equal(resolve_stat(x->m, AT_FDCWD, "/out", MACH_CF_NOFOLLOW, &st), 0);
	assert_true(S_ISLNK(st.st_mode));
	/* the host name is the directory's descriptor and the last component */
	assert_int_equal(mach_confine_path(x->m, AT_FDCWD, "sub/../out", MACH_CF_NOFOLLOW, buf,
					   sizeof(buf), &host),
			 0);
	assert_int_equal(strncmp(host, "/proc/self/fd/", 14), 0);
	assert_non_null(strstr(host, "/out"));
	n = readlink(host, target, sizeof(target) - 1);
	assert_true(n > 0);
	target[n] = 0;
	assert_string_equal(target, "/etc/passwd");
	mach_confine_release(x->m);
	/* "." and ".." as the last component resolve to the directory */
	assert_int_equal(resolve_stat(x->m, AT_FDCWD, "sub/..", MACH_CF_NOFOLLOW, &st), 0);
	assert_true(S_ISDIR(st.st_mode));
}

static void test_confine_cwd_and_dirfd(void **state)
{
	struct fx *x = *state;
	char p[256];
	struct stat st;
	int fd;

	assert_string_equal(x->m->confine.cwd, "/");
	assert_int_equal(mach_confine_chdir_path(x->m, "sub"), 0);
	assert_string_equal(x->m->confine.cwd, "/sub");
	assert_int_equal(resolve_stat(x->m, AT_FDCWD, "../f", 0, &st), 0);
	assert_int_equal(mach_confine_chdir_path(x->m, "../../.."), 0);
	assert_string_equal(x->m->confine.cwd, "/");
	assert_int_equal(mach_confine_chdir_path(x->m, "f"), -ENOTDIR);
	assert_int_equal(mach_confine_chdir_path(x->m, "/nosuch"), -ENOENT);
	/* a descriptor outside D is neither a base for names nor a directory to enter */
	fd = open(x->top, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	assert_true(fd >= 0);
	assert_int_equal(resolve_stat(x->m, fd, "o", 0, &st), -EACCES);
	assert_int_equal(mach_confine_chdir(x->m, fd), -EACCES);
	close(fd);
	snprintf(p, sizeof(p), "%s/sub", x->dir);
	fd = open(p, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	assert_true(fd >= 0);
	assert_int_equal(resolve_stat(x->m, fd, "../f", 0, &st), 0);
	assert_int_equal(resolve_stat(x->m, fd, "../../o", 0, &st), -ENOENT);
	assert_int_equal(mach_confine_chdir(x->m, fd), 0);
	assert_string_equal(x->m->confine.cwd, "/sub");
	close(fd);
}

static void test_confine_open_and_release(void **state)
{
	struct fx *x = *state;
	char buf[PATH_MAX], p[256];
	const char *host;
	int fd, probe, next;

	fd = mach_confine_open(x->m, AT_FDCWD, "/f", O_RDONLY | O_CLOEXEC, 0);
	assert_true(fd >= 0);
	assert_int_equal(read(fd, buf, 7), 7);
	assert_memory_equal(buf, "inside\n", 7);
	close(fd);
	/* O_CREAT through a link pointing out creates nothing outside */
	assert_int_equal(
		mach_confine_open(x->m, AT_FDCWD, "out", O_WRONLY | O_CREAT | O_CLOEXEC, 0644),
		-ENOENT);
	fd = mach_confine_open(x->m, AT_FDCWD, "/new", O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	assert_true(fd >= 0);
	close(fd);
	snprintf(p, sizeof(p), "%s/new", x->dir);
	assert_int_equal(access(p, F_OK), 0);
	/* every descriptor a call held is closed by the release */
	probe = open("/dev/null", O_RDONLY | O_CLOEXEC);
	close(probe);
	assert_int_equal(mach_confine_path(x->m, AT_FDCWD, "/f", 0, buf, sizeof(buf), &host), 0);
	assert_int_equal(
		mach_confine_path(x->m, AT_FDCWD, "/g", MACH_CF_NOFOLLOW, buf, sizeof(buf), &host),
		0);
	mach_confine_release(x->m);
	next = open("/dev/null", O_RDONLY | O_CLOEXEC);
	assert_int_equal(next, probe);
	close(next);
}

static void test_confine_missing_directory_is_an_error(void **state)
{
	struct mach_opts o = { .sysroot = "", .cpu = "none", .confine = "/nonexistent/axprof" };
	struct mach *m;

	(void)state;
	assert_int_equal(mach_new(&m, &o), -ENOENT);
	o.confine = "/etc/passwd";
	assert_int_equal(mach_new(&m, &o), -ENOTDIR);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_confine_names_resolve_inside_the_directory,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_confine_nofollow_names_the_link_itself, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_confine_cwd_and_dirfd, setup, teardown),
		cmocka_unit_test_setup_teardown(test_confine_open_and_release, setup, teardown),
		cmocka_unit_test_setup_teardown(test_confine_names_resolve_inside_the_directory,
						setup_walk, teardown),
		cmocka_unit_test_setup_teardown(test_confine_nofollow_names_the_link_itself,
						setup_walk, teardown),
		cmocka_unit_test_setup_teardown(test_confine_cwd_and_dirfd, setup_walk, teardown),
		cmocka_unit_test_setup_teardown(test_confine_open_and_release, setup_walk,
						teardown),
		cmocka_unit_test(test_confine_missing_directory_is_an_error),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
