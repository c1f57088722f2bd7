/* compat/ax_err.h - the one error convention of axprof's user-space libraries. */
#ifndef AX_ERR_H
#define AX_ERR_H

#include <stdbool.h>
#include <stdint.h>

/*
 * Every user-space library function (pdb_*, img_*, mach_truth_*, ...) returns 0 or a -Exxx and,
 * when the caller passes a struct ax_error, leaves there a message that names the file or input
 * and says what failed (STYLE 5). Libraries never print; main() turns the message into output.
 *
 * Damage in a file is reported through one macro, AX_CORRUPT(), that records the byte offset and
 * the __LINE__ of the failed check and evaluates to -EBADMSG (STYLE 6):
 *
 *	if (len > size)
 *		return AX_CORRUPT(err, path, off, "length %u past the end", len);
 */
#define AX_ERROR_MAX 1024
struct ax_error {
	int code; /* the -Exxx returned */
	int line; /* line of the failed check in the library's source, 0 for I/O errors */
	uint64_t offset; /* byte offset of the damage (see in_payload) */
	bool in_payload; /* offset counts bytes of a decompressed payload, not of the file */
	char msg[AX_ERROR_MAX]; /* human-readable, names the file */
};

void ax_error_clear(struct ax_error *err);
/* Record damage in err (may be NULL): "name: offset N: what (file.c:LINE)"; returns -EBADMSG. */
int ax_corrupt(struct ax_error *err, const char *name, const char *src, int line, uint64_t off,
	       bool in_payload, const char *fmt, ...) __attribute__((format(printf, 7, 8)));
/* Record any other failure with a formatted message; returns code (a -Exxx). */
int ax_fail(struct ax_error *err, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* "path: op: strerror(-code)"; returns code. */
int ax_syserr(struct ax_error *err, int code, const char *path, const char *op);

/* The corruption report: evaluates to -EBADMSG, so `return AX_CORRUPT(...)`. off is a file offset. */
#define AX_CORRUPT(err, name, off, ...) \
	ax_corrupt((err), (name), __FILE__, __LINE__, (off), false, __VA_ARGS__)

#endif /* AX_ERR_H */
