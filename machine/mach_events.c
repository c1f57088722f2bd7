/* machine/mach_events.c - the machine's process events (exec, mmap, munmap, fork, exit). */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mach_int.h"

/*
 * The events of mach.h, emitted where the kernel would learn them: the loader, the memory
 * system calls, fork and the end of the run. To report the file behind a range that mprotect(2)
 * makes executable, the machine keeps its own table of file-backed mappings (start, end, file
 * offset, host path), kept sorted and cut like the kernel's VMAs; anonymous memory is not kept.
 */

struct mach_file_map {
	uint64_t start, end, off;
	char *path;
};

struct mach_files {
	struct mach_file_map *map;
	size_t n, cap;
};

void mach_set_events(struct mach *m, const struct mach_events *ev)
{
	if (ev)
		m->events = *ev;
	else
		memset(&m->events, 0, sizeof(m->events));
}

void mach_files_free(struct mach_files *f)
{
	if (!f)
		return;
	for (size_t i = 0; i < f->n; i++)
		free(f->map[i].path);
	free(f->map);
	free(f);
}

static int files_room(struct mach_files *f, size_t more)
{
	size_t ncap;
	struct mach_file_map *n;

	if (f->n + more <= f->cap)
		return 0;
	ncap = f->cap ? 2 * f->cap : 16;
	while (ncap < f->n + more)
		ncap *= 2;
	n = realloc(f->map, ncap * sizeof(*n));
	if (!n)
		return -ENOMEM;
	f->map = n;
	f->cap = ncap;
	return 0;
}

/* Split the entry straddling `at` in two (a no-op when none does). */
static int files_split(struct mach_files *f, uint64_t at)
{
	for (size_t i = 0; i < f->n; i++) {
		struct mach_file_map *e = &f->map[i], tail;

		if (e->start >= at || e->end <= at)
			continue;
		tail = *e;
		tail.path = strdup(e->path);
		if (!tail.path || files_room(f, 1)) {
			free(tail.path);
			return -ENOMEM;
		}
		e = &f->map[i];
		tail.start = at;
		tail.off = e->off + (at - e->start);
		e->end = at;
		memmove(f->map + i + 2, f->map + i + 1, (f->n - i - 1) * sizeof(*f->map));
		f->map[i + 1] = tail;
		f->n++;
		return 0;
	}
	return 0;
}

/* Forget [start, end). */
static void files_cut(struct mach_files *f, uint64_t start, uint64_t end)
{
	size_t i = 0;

	if (files_split(f, start) || files_split(f, end)) {
		/* Out of memory: drop every entry the range touches (events lose files only). */
	}
	while (i < f->n) {
		if (f->map[i].end <= start || f->map[i].start >= end) {
			i++;
			continue;
		}
		free(f->map[i].path);
		memmove(f->map + i, f->map + i + 1, (f->n - i - 1) * sizeof(*f->map));
		f->n--;
	}
}

static void files_add(struct mach *m, uint64_t start, uint64_t end, uint64_t off, const char *path)
{
	struct mach_files *f = m->files;
	size_t i;
	char *p;

	if (!f) {
		f = m->files = calloc(1, sizeof(*f));
		if (!f)
			return;
	}
	files_cut(f, start, end);
	p = strdup(path);
	if (!p || files_room(f, 1)) {
		free(p);
		return;
	}
	for (i = 0; i < f->n && f->map[i].start < start; i++)
		;
	memmove(f->map + i + 1, f->map + i, (f->n - i) * sizeof(*f->map));
	f->map[i] = (struct mach_file_map){ start, end, off, p };
	f->n++;
}

bool mach_files_at(const struct mach *m, uint64_t va, struct mach_file_span *fs, uint64_t *next)
{
	const struct mach_files *f = m->files;

	*next = UINT64_MAX;
	for (size_t i = 0; f && i < f->n; i++) {
		const struct mach_file_map *e = &f->map[i];

		if (e->start <= va && va < e->end) {
			*fs = (struct mach_file_span){ e->start, e->end, e->off, e->path };
			return true;
		}
		if (e->start > va) {
			*next = e->start;
			break;
		}
	}
	return false;
}

/* ---- emitting ---- */

void mach_ev_exec(struct mach *m, const char *path, uint64_t bias)
{
	mach_files_free(m->files);
	m->files = NULL;
	if (m->events.exec)
		m->events.exec(m->events.priv, m->pid, path, bias);
}

static void emit_mmap(struct mach *m, uint64_t start, uint64_t len, unsigned int prot,
		      const char *path, uint64_t off)
{
	struct mach_map_event ev = { start, len, off, prot, path };

	if (m->events.mmap)
		m->events.mmap(m->events.priv, m->pid, &ev);
}

void mach_ev_mmap(struct mach *m, uint64_t start, uint64_t len, unsigned int prot, int fd,
		  const char *path, uint64_t off)
{
	char link[64], buf[PATH_MAX];
	ssize_t n;

	len = (len + MACH_PAGE_MASK) & ~MACH_PAGE_MASK;
	if (!path && fd >= 0) {
		snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
		n = readlink(link, buf, sizeof(buf) - 1);
		if (n > 0) {
			buf[n] = 0;
			path = buf;
		}
	}
	if (path)
		files_add(m, start, start + len, off, path);
	else if (m->files)
		files_cut(m->files, start, start + len);
	emit_mmap(m, start, len, prot & (MACH_PROT_R | MACH_PROT_W | MACH_PROT_X), path, off);
}

void mach_ev_munmap(struct mach *m, uint64_t start, uint64_t len)
{
	len = (len + MACH_PAGE_MASK) & ~MACH_PAGE_MASK;
	if (m->files)
		files_cut(m->files, start, start + len);
	if (m->events.munmap)
		m->events.munmap(m->events.priv, m->pid, start, len);
}

bool mach_ev_range_exec(const struct mach *m, uint64_t start, uint64_t len)
{
	for (uint64_t va = start & ~MACH_PAGE_MASK; va < start + len; va += MACH_PAGE_SIZE)
		if (mach_mem_page(m->mem, va) & MACH_PROT_X)
			return true;
	return false;
}

/* Called after a successful mprotect(2) of [start, start + len); was_x: some page of it was
 * executable before. */
void mach_ev_mprotect(struct mach *m, uint64_t start, uint64_t len, unsigned int prot, bool was_x)
{
	uint64_t end;

	len = (len + MACH_PAGE_MASK) & ~MACH_PAGE_MASK;
	end = start + len;
	if (!(prot & MACH_PROT_X)) {
		if (was_x && m->events.munmap)
			m->events.munmap(m->events.priv, m->pid, start, len);
		return;
	}
	for (size_t i = 0; m->files && i < m->files->n; i++) {
		const struct mach_file_map *e = &m->files->map[i];
		uint64_t s = e->start > start ? e->start : start;
		uint64_t t = e->end < end ? e->end : end;

		if (s < t)
			emit_mmap(m, s, t - s, prot, e->path, e->off + (s - e->start));
	}
}

/* After a successful mremap(2): what left [old, old + old_len) is now at [new_va, new_va +
 * new_len) (grown or shrunk in place, or moved), the file behind it with it. */
void mach_ev_mremap(struct mach *m, uint64_t old, uint64_t old_len, uint64_t new_va,
		    uint64_t new_len)
{
	const struct mach_file_map *e = NULL;
	unsigned int prot =
		mach_mem_page(m->mem, new_va) & (MACH_PROT_R | MACH_PROT_W | MACH_PROT_X);
	uint64_t off = 0;
	char *path = NULL;

	old_len = (old_len + MACH_PAGE_MASK) & ~MACH_PAGE_MASK;
	new_len = (new_len + MACH_PAGE_MASK) & ~MACH_PAGE_MASK;
	for (size_t i = 0; m->files && i < m->files->n; i++)
		if (m->files->map[i].start <= old && m->files->map[i].end > old)
			e = &m->files->map[i];
	if (e) {
		off = e->off + (old - e->start);
		path = strdup(e->path);
	}
	if (new_va != old) {
		mach_ev_munmap(m, old, old_len);
		mach_ev_mmap(m, new_va, new_len, prot, -1, path, off);
	} else if (new_len < old_len) {
		mach_ev_munmap(m, old + new_len, old_len - new_len);
	} else if (new_len > old_len) {
		mach_ev_mmap(m, old + old_len, new_len - old_len, prot, -1, path, off + old_len);
	}
	free(path);
}

void mach_ev_fork(struct mach *m, int32_t parent)
{
	if (m->events.fork)
		m->events.fork(m->events.priv, parent, m->pid);
}

void mach_ev_exit(struct mach *m)
{
	if (m->events.exit)
		m->events.exit(m->events.priv, m->pid, m->exit_code, m->exit_signal);
}

void mach_ev_leave(struct mach *m)
{
	if (m->events.leave)
		m->events.leave(m->events.priv, m->pid);
}
