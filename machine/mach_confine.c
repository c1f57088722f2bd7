/* machine/mach_confine.c - mach_opts.confine: the program's file names resolved inside one directory. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <limits.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "mach_int.h"

/*
 * Without confinement the program has the rights of the user running axprof, as under
 * qemu-user. With mach_opts.confine = DIR, every file name the program gives a system call is
 * looked up with openat2(2) RESOLVE_IN_ROOT on DIR: "/" is DIR, ".." stops at DIR, and symbolic
 * links, absolute or relative, are followed inside DIR (openat2(2), RESOLVE_IN_ROOT: "as though
 * the calling process had used chroot(2) to set dirfd as its root directory"). Magic links
 * (/proc/PID/fd/N, /proc/PID/root) are refused (RESOLVE_NO_MAGICLINKS). A kernel without
 * openat2 (ENOSYS) gets the same walk done one component at a time (mach_confine_walk.c).
 * An absolute name that exists under the sysroot is taken from there, as without confinement
 * (qemu-alpha -L), but only by calls that cannot change the file system, and resolved inside
 * the sysroot the same way.
 *
 * The host call then gets "/proc/self/fd/N" (the object, for calls that follow the last
 * component) or "/proc/self/fd/N/LAST" (its directory, for calls that act on LAST itself: unlink,
 * mkdir, rename, lstat, ...), so no directory is looked up by name twice. The descriptors are
 * held until the system call returns (mach_confine_release). The program's current directory
 * is a name inside DIR (getcwd shows it); the host process does not move. The directory and
 * sysroot are opened again for each call, so the program cannot close or replace a descriptor
 * the confinement depends on.
 */

/* name opened inside root, as though root were "/": a host descriptor or -errno. openat2(2)
 * where the kernel has it (Linux 5.6), else mach_confine_walk() (c->walk). */
static int in_root(const struct mach_confine *c, int root, const char *name, int flags, mode_t mode)
{
	struct open_how how = {
		.flags = (uint64_t)(unsigned int)flags,
		.mode = ((flags & O_CREAT) || (flags & O_TMPFILE) == O_TMPFILE) ? mode : 0,
		.resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS,
	};
	long r;

	if (c->walk)
		return mach_confine_walk(root, name, flags, mode);
	r = syscall(SYS_openat2, root, name, &how, sizeof(how));
	return r < 0 ? -errno : (int)r;
}

int mach_confine_init(struct mach *m, const char *dir)
{
	struct mach_confine *c = &m->confine;
	int fd;
	long r;

	if (!realpath(dir, c->dir))
		return -errno;
	fd = open(c->dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	/* Without openat2 (before Linux 5.6, or filtered), names are walked by hand. */
	r = in_root(c, fd, ".", O_PATH | O_CLOEXEC, 0);
	if (r == -ENOSYS) {
		c->walk = true;
		r = in_root(c, fd, ".", O_PATH | O_CLOEXEC, 0);
	}
	close(fd);
	if (r < 0)
		return (int)r;
	close((int)r);
	if (!strcmp(c->dir, "/"))
		c->dir[0] = 0;
	c->dirlen = strlen(c->dir);
	/* The program starts where the host process is when that is inside DIR, else at "/". */
	snprintf(c->cwd, sizeof(c->cwd), "/");
	{
		char here[PATH_MAX];

		if (getcwd(here, sizeof(here)) && !strncmp(here, c->dir, c->dirlen) &&
		    (here[c->dirlen] == '/' || !here[c->dirlen]))
			snprintf(c->cwd, sizeof(c->cwd), "%s",
				 here[c->dirlen] ? here + c->dirlen : "/");
	}
	c->on = true;
	return 0;
}

void mach_confine_release(struct mach *m)
{
	struct mach_confine *c = &m->confine;

	while (c->nheld)
		close(c->held[--c->nheld]);
}

static int hold(struct mach *m, int fd)
{
	struct mach_confine *c = &m->confine;

	if (c->nheld >= (int)(sizeof(c->held) / sizeof(c->held[0]))) {
		close(fd);
		return -ENOMEM;
	}
	c->held[c->nheld++] = fd;
	return 0;
}

/* The name inside DIR of a host path, when it is inside DIR (out: "/" for DIR itself). */
static int inside_name(const struct mach *m, const char *host, char *out, size_t len)
{
	const struct mach_confine *c = &m->confine;
	int n;

	if (strncmp(host, c->dir, c->dirlen) || (host[c->dirlen] != '/' && host[c->dirlen]))
		return -EACCES;
	n = snprintf(out, len, "%s", host[c->dirlen] ? host + c->dirlen : "/");
	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

/* The host path of an open descriptor (/proc/self/fd/N). */
static int fd_host_path(int fd, char *out, size_t len)
{
	char link[64];
	ssize_t n;

	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	n = readlink(link, out, len - 1);
	if (n < 0)
		return errno == ENOENT ? -EBADF : -errno;
	out[n] = 0;
	return 0;
}

/* The absolute name inside DIR of `path` relative to dirfd (AT_FDCWD: the program's cwd). */
static int root_name(struct mach *m, int dirfd, const char *path, char *out, size_t len)
{
	char host[PATH_MAX], base[PATH_MAX];
	int n, ret;

	if (path[0] == '/') {
		n = snprintf(out, len, "%s", path);
	} else if (dirfd == AT_FDCWD) {
		n = snprintf(out, len, "%s/%s", m->confine.cwd, path);
	} else {
		ret = fd_host_path(dirfd, host, sizeof(host));
		if (!ret)
			ret = inside_name(m, host, base, sizeof(base));
		if (ret)
			return ret;
		n = snprintf(out, len, "%s/%s", base, path);
	}
	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

/* The root a name is looked up in: the sysroot when the call is read-only (from_sysroot) and
 * the absolute name `full` exists there, else DIR. An O_PATH descriptor or -errno. */
static int open_root(struct mach *m, const char *full, bool from_sysroot)
{
	int root, fd;

	if (from_sysroot && m->sysroot[0] && full[0] == '/' && full[1]) {
		root = open(m->sysroot, O_PATH | O_DIRECTORY | O_CLOEXEC);
		if (root >= 0) {
			fd = in_root(&m->confine, root, full, O_PATH | O_NOFOLLOW | O_CLOEXEC, 0);
			if (fd >= 0) {
				close(fd);
				return root;
			}
			close(root);
		}
	}
	root = open(m->confine.dir[0] ? m->confine.dir : "/", O_PATH | O_DIRECTORY | O_CLOEXEC);
	return root < 0 ? -errno : root;
}

/* Open `name` (absolute inside the root open_root() picks for `full`): a host fd or -errno. */
static int open_in_root(struct mach *m, const char *full, const char *name, bool from_sysroot,
			int flags, mode_t mode)
{
	int root = open_root(m, full, from_sysroot), fd;

	if (root < 0)
		return root;
	fd = in_root(&m->confine, root, name, flags, mode);
	close(root);
	return fd;
}

static bool is_dot(const char *s, size_t n)
{
	return (n == 1 && s[0] == '.') || (n == 2 && s[0] == '.' && s[1] == '.');
}

int mach_confine_path(struct mach *m, int dirfd, const char *path, unsigned int how, char *buf,
		      size_t len, const char **out)
{
	char full[PATH_MAX + 2], name[PATH_MAX + 2], last[NAME_MAX + 2];
	const char *l;
	size_t end, start;
	int fd, n, ret;

	/* "" (AT_EMPTY_PATH or ENOENT) names the descriptor itself: already inside */
	if (!path[0]) {
		*out = path;
		return 0;
	}
	ret = root_name(m, dirfd, path, full, sizeof(full));
	if (ret)
		return ret;
	memcpy(name, full, sizeof(name));
	last[0] = 0;
	if (how & MACH_CF_NOFOLLOW) {
		/* split off the last component (trailing slashes stay with it) */
		end = strlen(name);
		while (end > 1 && name[end - 1] == '/')
			end--;
		start = end;
		while (start > 0 && name[start - 1] != '/')
			start--;
		l = name + start;
		if (end > start && !is_dot(l, end - start)) {
			if (strlen(l) >= sizeof(last))
				return -ENAMETOOLONG;
			snprintf(last, sizeof(last), "%s", l);
			name[start] = 0;
		} else {
			snprintf(last, sizeof(last), ".");
		}
		if (!name[0])
			snprintf(name, sizeof(name), "/");
	}
	fd = open_in_root(m, full, name, !(how & MACH_CF_WRITE), O_PATH | O_CLOEXEC, 0);
	if (fd < 0)
		return fd;
	ret = hold(m, fd);
	if (ret)
		return ret;
	n = last[0] ? snprintf(buf, len, "/proc/self/fd/%d/%s", fd, last) :
		      snprintf(buf, len, "/proc/self/fd/%d", fd);
	if (n < 0 || (size_t)n >= len)
		return -ENAMETOOLONG;
	*out = buf;
	return 0;
}

int mach_confine_open(struct mach *m, int dirfd, const char *path, int hostflags, mode_t mode)
{
	char name[PATH_MAX + 2];
	int ret;
	bool ro = (hostflags & O_ACCMODE) == O_RDONLY && !(hostflags & (O_CREAT | O_TRUNC)) &&
		  (hostflags & O_TMPFILE) != O_TMPFILE;

	if (!path[0])
		return -ENOENT;
	ret = root_name(m, dirfd, path, name, sizeof(name));
	if (ret)
		return ret;
	return open_in_root(m, name, name, ro, hostflags, mode);
}

int mach_confine_chdir(struct mach *m, int fd)
{
	char host[PATH_MAX], name[PATH_MAX];
	struct stat st;
	int ret;

	if (fstat(fd, &st))
		return -errno;
	if (!S_ISDIR(st.st_mode))
		return -ENOTDIR;
	ret = fd_host_path(fd, host, sizeof(host));
	if (!ret)
		ret = inside_name(m, host, name, sizeof(name));
	if (ret)
		return ret;
	snprintf(m->confine.cwd, sizeof(m->confine.cwd), "%s", name);
	return 0;
}

int mach_confine_chdir_path(struct mach *m, const char *path)
{
	char name[PATH_MAX + 2];
	int fd, ret;

	if (!path[0])
		return -ENOENT;
	ret = root_name(m, AT_FDCWD, path, name, sizeof(name));
	if (ret)
		return ret;
	fd = open_in_root(m, name, name, false, O_PATH | O_DIRECTORY | O_CLOEXEC, 0);
	if (fd < 0)
		return fd;
	ret = mach_confine_chdir(m, fd);
	close(fd);
	return ret;
}

int mach_confine_enter_cwd(struct mach *m)
{
	int fd = open_in_root(m, m->confine.cwd, m->confine.cwd, false,
			      O_PATH | O_DIRECTORY | O_CLOEXEC, 0);
	int ret;

	if (fd < 0)
		return fd;
	ret = fchdir(fd) ? -errno : 0;
	close(fd);
	return ret;
}

int mach_confine_host_path(struct mach *m, const char *resolved, char *out, size_t len)
{
	int fd = open(resolved, O_PATH | O_CLOEXEC), ret;

	(void)m;
	if (fd < 0)
		return -errno;
	ret = fd_host_path(fd, out, len);
	close(fd);
	return ret;
}
