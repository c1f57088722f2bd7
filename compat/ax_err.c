/* compat/ax_err.c - the user-space libraries' error reports (ax_err.h). */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "ax_err.h"

void ax_error_clear(struct ax_error *err)
{
	if (err)
		memset(err, 0, sizeof(*err));
}

static const char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');

	return s ? s + 1 : path;
}

int ax_corrupt(struct ax_error *err, const char *name, const char *src, int line, uint64_t off,
	       bool in_payload, const char *fmt, ...)
{
	char what[256];
	int n;
	va_list ap;

	if (!err)
		return -EBADMSG;
	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	err->code = -EBADMSG;
	err->line = line;
	err->offset = off;
	err->in_payload = in_payload;
	/* A message cut short (very long paths) still names the offset first. */
	n = snprintf(err->msg, sizeof(err->msg), "%s: %s %llu: %s (%s:%d)", name,
		     in_payload ? "decompressed payload offset" : "offset", (unsigned long long)off,
		     what, base_name(src), line);
	if (n < 0)
		err->msg[0] = 0;
	return -EBADMSG;
}

int ax_fail(struct ax_error *err, int code, const char *fmt, ...)
{
	va_list ap;

	if (!err)
		return code;
	memset(err, 0, sizeof(*err));
	err->code = code;
	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	va_end(ap);
	return code;
}

int ax_syserr(struct ax_error *err, int code, const char *path, const char *op)
{
	return ax_fail(err, code, "%s: %s: %s", path, op, strerror(-code));
}
