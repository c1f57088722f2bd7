/* tests/pdb/failopen.c - LD_PRELOAD shim: make the Nth creation of a matching file fail. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/*
 * FAILOPEN_MATCH=S FAILOPEN_NTH=N: the Nth open(O_CREAT) of a path containing S fails with
 * EACCES, as a read-only directory would (tests run as root, where chmod stops nothing).
 * pdb_tx_crash.sh uses it to fail one image's file in the middle of a database flush.
 */
static int seen;

static int should_fail(const char *path, int flags)
{
	const char *m = getenv("FAILOPEN_MATCH"), *n = getenv("FAILOPEN_NTH");

	if (!m || !n || !(flags & O_CREAT) || !strstr(path, m))
		return 0;
	return ++seen == atoi(n);
}

static int call(const char *sym, const char *path, int flags, mode_t mode)
{
	int (*real)(const char *, int, ...) =
		(int (*)(const char *, int, ...))dlsym(RTLD_NEXT, sym);

	if (should_fail(path, flags)) {
		errno = EACCES;
		return -1;
	}
	return real(path, flags, mode);
}

int open(const char *path, int flags, ...)
{
	mode_t mode = 0;
	va_list ap;

	if (flags & O_CREAT) {
		va_start(ap, flags);
		mode = (mode_t)va_arg(ap, int);
		va_end(ap);
	}
	return call("open", path, flags, mode);
}

int open64(const char *path, int flags, ...)
{
	mode_t mode = 0;
	va_list ap;

	if (flags & O_CREAT) {
		va_start(ap, flags);
		mode = (mode_t)va_arg(ap, int);
		va_end(ap);
	}
	return call("open64", path, flags, mode);
}
