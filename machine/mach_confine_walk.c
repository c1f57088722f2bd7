/* machine/mach_confine_walk.c - openat2(RESOLVE_IN_ROOT) done by hand, for kernels before 5.6. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mach_int.h"

/*
 * The name is walked one component at a time from root, each directory opened with
 * O_PATH | O_DIRECTORY | O_NOFOLLOW relative to the one before and kept on a stack: ".." pops
 * it and never goes above root (path_resolution(7): "/.." is "/"). A symbolic link (every
 * component but a last one opened with O_NOFOLLOW, or O_CREAT | O_EXCL, which do not follow it,
 * as open(2) says) is read and its target put in front of what remains of the name; an
 * absolute target starts again at root. At most 40 links are followed (MAXSYMLINKS, as Linux's
 * ELOOP limit). Every step is opened with O_NOFOLLOW, so an entry replaced by a link between the
 * look and the open makes the call fail instead of following it. A trailing "/" requires a
 * directory, as in path_resolution(7).
 */
#define WALK_DEPTH 256
#define WALK_LINKS 40

struct walk {
	int root;
	int stack[WALK_DEPTH]; /* the directories entered below root */
	int depth;
};

static int cur(const struct walk *w)
{
	return w->depth ? w->stack[w->depth - 1] : w->root;
}

static void pop_all(struct walk *w)
{
	while (w->depth)
		close(w->stack[--w->depth]);
}

/* Replace rest (whose unread part starts at *p) with target + the unread part. */
static int put_in_front(char *rest, size_t size, const char **p, const char *target)
{
	char tmp[2 * PATH_MAX];
	int n = snprintf(tmp, sizeof(tmp), "%s%s", target, *p); /* *p: "" or "/..." */

	if (n < 0 || (size_t)n >= size)
		return -ENAMETOOLONG;
	memcpy(rest, tmp, (size_t)n + 1);
	*p = rest;
	return 0;
}

int mach_confine_walk(int root, const char *name, int flags, mode_t mode)
{
	char rest[2 * PATH_MAX], comp[NAME_MAX + 1], target[PATH_MAX];
	struct walk w = { .root = root };
	const char *p = rest, *end, *q;
	bool last, slash,
		follow_last = !(flags & O_NOFOLLOW) && !((flags & O_CREAT) && (flags & O_EXCL));
	int links = 0, ret, fd;
	struct stat st;
	ssize_t n;

	if (snprintf(rest, sizeof(rest), "%s", name) >= (int)sizeof(rest))
		return -ENAMETOOLONG;
	for (;;) {
		while (*p == '/')
			p++;
		if (!*p) { /* the name ends at a directory ("", "/", "a/", "a/.") */
			ret = openat(cur(&w), ".", flags & ~(O_CREAT | O_EXCL), mode);
			ret = ret < 0 ? -errno : ret;
			break;
		}
		end = strchrnul(p, '/');
		if ((size_t)(end - p) > NAME_MAX) {
			ret = -ENAMETOOLONG;
			break;
		}
		memcpy(comp, p, (size_t)(end - p));
		comp[end - p] = 0;
		for (q = end; *q == '/'; q++)
			;
		last = !*q;
		slash = *end == '/';
		p = end;
		if (!strcmp(comp, "."))
			continue;
		if (!strcmp(comp, "..")) {
			if (w.depth)
				close(w.stack[--w.depth]);
			continue;
		}
		if (!fstatat(cur(&w), comp, &st, AT_SYMLINK_NOFOLLOW) && S_ISLNK(st.st_mode) &&
		    (!last || slash || follow_last)) {
			n = readlinkat(cur(&w), comp, target, sizeof(target) - 1);
			if (n < 0 || ++links > WALK_LINKS) {
				ret = n < 0 ? -errno : -ELOOP;
				break;
			}
			target[n] = 0;
			if (target[0] == '/')
				pop_all(&w);
			ret = put_in_front(rest, sizeof(rest), &p, target);
			if (ret)
				break;
			continue;
		}
		if (last && !slash) {
			ret = openat(cur(&w), comp, flags | O_NOFOLLOW, mode);
			ret = ret < 0 ? -errno : ret;
			break;
		}
		if (w.depth == WALK_DEPTH) {
			ret = -ENAMETOOLONG;
			break;
		}
		fd = openat(cur(&w), comp, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0) {
			ret = -errno;
			break;
		}
		w.stack[w.depth++] = fd;
	}
	pop_all(&w);
	return ret;
}
