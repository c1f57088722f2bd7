/* machine/mach_procfs.c - the Alpha process's own /proc files: maps, cmdline, exe (as qemu-alpha). */
#define _GNU_SOURCE
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "mach_int.h"

/*
 * The host's /proc/self describes axprof (x86-64 mappings, "axprof run -- prog"). A program
 * that opens its own maps or cmdline, or reads its exe link, gets the Alpha process's instead,
 * built when opened into an anonymous file (as Linux builds them at read time):
 *   cmdline  the argument strings on the initial stack, NUL-terminated, read from guest memory
 *            (proc_pid_cmdline_read: [arg_start, arg_end));
 *   maps     one line per run of mapped pages with the same protection and the same file (or
 *            none), in show_map_vma()'s format: range, rwxp/s, offset, dev, inode, then the path
 *            at column 73, or [heap] (the brk area) or [stack] (anonymous lines keep the
 *            trailing space of Linux 6.1);
 *   exe      the program's host path.
 * "Own" is /proc/self/, /proc/thread-self/ and /proc/<pid>/ with the process's pid.
 */

#define MAPS_NAME_COL 72 /* seq_setwidth(m, 25 + sizeof(void *) * 6 - 1) */

/* The file name under the process's own /proc directory that path names, or NULL. */
static const char *own_proc_file(const struct mach *m, const char *path)
{
	char pid[32];
	size_t n;

	if (strncmp(path, "/proc/", 6))
		return NULL;
	path += 6;
	snprintf(pid, sizeof(pid), "%d/", (int)m->pid);
	if (!strncmp(path, "self/", 5))
		return path + 5;
	if (!strncmp(path, "thread-self/", 12))
		return path + 12;
	n = strlen(pid);
	if (!strncmp(path, pid, n))
		return path + n;
	return NULL;
}

/* A host file descriptor on an anonymous file holding buf[0..len), at offset 0. */
static int anon_file(const char *name, const char *buf, size_t len, int hostflags)
{
	int fd = memfd_create(name, (hostflags & O_CLOEXEC) ? MFD_CLOEXEC : 0), ret;
	size_t done = 0;

	if (fd < 0)
		return -errno;
	while (done < len) {
		ssize_t n = write(fd, buf + done, len - done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			ret = n < 0 ? -errno : -EIO;
			close(fd);
			return ret;
		}
		done += (size_t)n;
	}
	lseek(fd, 0, SEEK_SET);
	return fd;
}

static int open_cmdline(const struct mach *m, int hostflags)
{
	uint64_t len = m->arg_end - m->arg_start;
	char *buf;
	int fd;

	if (m->arg_end < m->arg_start || len > MACH_STACK_SIZE)
		return -EIO;
	buf = malloc(len + 1);
	if (!buf)
		return -ENOMEM;
	if (mach_mem_read(m->mem, m->arg_start, buf, len))
		len = 0; /* the program unmapped its stack: Linux reads nothing too */
	fd = anon_file("cmdline", buf, (size_t)len, hostflags);
	free(buf);
	return fd;
}

/* A growing text buffer. */
struct text {
	char *p;
	size_t len, cap;
	int err;
};

static void text_add(struct text *t, const char *s, size_t n)
{
	if (t->err)
		return;
	if (t->len + n + 1 > t->cap) {
		size_t cap = t->cap ? 2 * t->cap : 8192;
		char *p;

		while (cap < t->len + n + 1)
			cap *= 2;
		p = realloc(t->p, cap);
		if (!p) {
			t->err = -ENOMEM;
			return;
		}
		t->p = p;
		t->cap = cap;
	}
	memcpy(t->p + t->len, s, n);
	t->len += n;
	t->p[t->len] = 0;
}

/* One maps line; name NULL for anonymous memory without a label. */
static void maps_line(struct text *t, uint64_t start, uint64_t end, unsigned int flags,
		      uint64_t off, const char *name)
{
	char line[PATH_MAX + 160], real[PATH_MAX];
	unsigned int maj = 0, min = 0;
	unsigned long ino = 0;
	struct stat st;
	int n;

	if (name && name[0] == '/') {
		if (realpath(name, real))
			name = real;
		if (!stat(name, &st)) {
			maj = major(st.st_dev);
			min = minor(st.st_dev);
			ino = (unsigned long)st.st_ino;
		}
	}
	n = snprintf(line, sizeof(line), "%08llx-%08llx %c%c%c%c %08llx %02x:%02x %lu ",
		     (unsigned long long)start, (unsigned long long)end,
		     (flags & MACH_PROT_R) ? 'r' : '-', (flags & MACH_PROT_W) ? 'w' : '-',
		     (flags & MACH_PROT_X) ? 'x' : '-', (flags & MACH_PG_SHARED) ? 's' : 'p',
		     (unsigned long long)off, maj, min, ino);
	if (n < 0 || (size_t)n >= sizeof(line))
		return;
	text_add(t, line, (size_t)n);
	if (name) {
		/* seq_pad(): spaces up to the name column, then one more. */
		for (; n < MAPS_NAME_COL; n++)
			text_add(t, " ", 1);
		text_add(t, " ", 1);
		text_add(t, name, strlen(name));
	}
	text_add(t, "\n", 1);
}

/* The lines of one run of pages [start, end) with the same flags: cut where the file behind
 * it changes, and at the start of the brk area. */
static void maps_run(const struct mach *m, struct text *t, uint64_t start, uint64_t end,
		     unsigned int flags)
{
	uint64_t heap = m->mem->start_brk,
		 brk_end = (m->mem->brk + MACH_PAGE_MASK) & ~MACH_PAGE_MASK;

	while (start < end) {
		struct mach_file_span fs;
		uint64_t next, stop;

		if (mach_files_at(m, start, &fs, &next)) {
			stop = fs.end < end ? fs.end : end;
			maps_line(t, start, stop, flags, fs.off + (start - fs.start), fs.path);
			start = stop;
			continue;
		}
		stop = next < end ? next : end;
		if (start < heap && stop > heap)
			stop = heap;
		if (start >= heap && start < brk_end && stop > brk_end)
			stop = brk_end;
		maps_line(t, start, stop, flags, 0,
			  start >= heap && start < brk_end			? "[heap]" :
			  start <= MACH_STACK_TOP - 1 && stop >= MACH_STACK_TOP ? "[stack]" :
										  NULL);
		start = stop;
	}
}

static int open_maps(const struct mach *m, int hostflags)
{
	struct text t = { 0 };
	uint64_t start, end = 0;
	unsigned int flags;
	int fd;

	while (mach_mem_next_run(m->mem, end, &start, &end, &flags))
		maps_run(m, &t, start, end, flags);
	if (t.err) {
		free(t.p);
		return t.err;
	}
	fd = anon_file("maps", t.p ? t.p : "", t.len, hostflags);
	free(t.p);
	return fd;
}

int mach_procfs_open(struct mach *m, const char *path, int hostflags, int *fd)
{
	const char *file = own_proc_file(m, path);
	int ret;

	if (!file)
		return 0;
	if (!strcmp(file, "exe")) {
		ret = open(m->exe, hostflags, 0);
		*fd = ret < 0 ? -errno : ret;
		return 1;
	}
	if (strcmp(file, "maps") && strcmp(file, "cmdline"))
		return 0;
	if ((hostflags & O_ACCMODE) != O_RDONLY) {
		*fd = -EACCES;
		return 1;
	}
	*fd = file[0] == 'm' ? open_maps(m, hostflags) : open_cmdline(m, hostflags);
	return 1;
}

const char *mach_procfs_link(const struct mach *m, const char *path)
{
	const char *file = own_proc_file(m, path);

	return file && !strcmp(file, "exe") ? m->exe : NULL;
}
