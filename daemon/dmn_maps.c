/* daemon/dmn_maps.c - the daemon's image maps: processes, their executable regions, images. */
#define _GNU_SOURCE
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dmn_int.h"
#include "img.h"

/*
 * DCPI SOSP'97 §4.3.1: the daemon keeps an image map per active process and turns (pid, pc)
 * into (image, offset). Images are described once (pdb_image_describe: key, size, mtime,
 * build-id) and their PT_LOAD program headers read through image/ (img.h), so a mapping given
 * as a file offset (mmap, /proc/PID/maps) or as a load bias (a loader's link map) gives ELF
 * addresses.
 */

int dmn_fail(struct dmn *d, int code, const char *fmt, ...)
{
	va_list ap;

	memset(&d->err, 0, sizeof(d->err));
	d->err.code = code;
	va_start(ap, fmt);
	vsnprintf(d->err.msg, sizeof(d->err.msg), fmt, ap);
	va_end(ap);
	return code;
}

int dmn_fail_with(struct dmn *d, int code, const struct ax_error *e)
{
	d->err = *e;
	d->err.code = code;
	return code;
}

/* ---- images ---- */

#define DMN_MAX_SEGS 64

/*
 * The PT_LOAD segments of an image (at most DMN_MAX_SEGS). A file image/ does not take as
 * ELF64 (not ELF, damaged) has none: its offsets are file offsets. 0 or a -Exxx (I/O, memory).
 */
static int read_segs(struct dmn_image *im)
{
	struct img *elf;
	size_t n;
	int ret;

	ret = img_open(im->path, IMG_ANY_MACHINE, &elf, NULL);
	if (ret == -ENOEXEC || ret == -EBADMSG)
		return 0;
	if (ret)
		return ret;
	n = img_nsegments(elf);
	if (n > DMN_MAX_SEGS)
		n = DMN_MAX_SEGS;
	im->seg = calloc(n ? n : 1, sizeof(*im->seg));
	if (!im->seg) {
		ret = -ENOMEM;
		goto out_close;
	}
	for (size_t i = 0; i < n; i++) {
		const struct img_segment *sg = img_segment(elf, i);

		im->seg[im->nseg++] = (struct dmn_seg){
			.vaddr = sg->vaddr,
			.memsz = sg->memsz,
			.off = sg->offset,
			.filesz = sg->filesz,
			.flags = sg->flags,
		};
	}
out_close:
	img_close(elf);
	return ret;
}

static void image_free(struct dmn_image *im)
{
	if (!im)
		return;
	pdb_prof_free(im->prof);
	free(im->seg);
	free(im->path);
	free(im);
}

/* The image at path: an existing one for the same file (or the same key), else a new one. */
int dmn_image_get(struct dmn *d, const char *path, struct dmn_image **out)
{
	struct ax_error perr;
	struct dmn_image *im;
	struct stat st;
	char rooted[4200];
	size_t i;
	int ret;

	/* Under the sysroot first, like qemu-alpha -L. */
	if (d->sysroot[0] && path[0] == '/') {
		snprintf(rooted, sizeof(rooted), "%s%s", d->sysroot, path);
		if (!stat(rooted, &st))
			path = rooted;
	}
	if (stat(path, &st))
		return dmn_fail(d, -errno, "%s: stat: %s", path, strerror(errno));
	for (i = 0; i < d->nimg; i++) {
		im = d->img[i];
		if (im->dev == st.st_dev && im->ino == st.st_ino &&
		    im->desc.size == (uint64_t)st.st_size &&
		    im->desc.mtime_ns ==
			    (int64_t)st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec) {
			*out = im;
			return 0;
		}
	}
	im = calloc(1, sizeof(*im));
	if (!im)
		return -ENOMEM;
	im->path = strdup(path);
	im->prof = pdb_prof_new();
	if (!im->path || !im->prof) {
		image_free(im);
		return -ENOMEM;
	}
	ret = pdb_image_describe(im->path, &im->desc, &perr);
	if (ret) {
		dmn_fail_with(d, ret, &perr);
		image_free(im);
		return ret;
	}
	im->desc.path = im->path;
	im->dev = st.st_dev;
	im->ino = st.st_ino;
	/* Another path to the same bits (a link, a copy with the same build-id): one profile. */
	for (i = 0; i < d->nimg; i++) {
		if (!strcmp(d->img[i]->desc.key, im->desc.key)) {
			image_free(im);
			*out = d->img[i];
			return 0;
		}
	}
	ret = read_segs(im);
	if (ret) {
		image_free(im);
		return dmn_fail(d, ret, "%s: cannot read program headers: %s", path,
				strerror(-ret));
	}
	if (d->nimg == d->capimg) {
		size_t ncap = d->capimg ? 2 * d->capimg : 16;
		struct dmn_image **n = realloc(d->img, ncap * sizeof(*n));

		if (!n) {
			image_free(im);
			return -ENOMEM;
		}
		d->img = n;
		d->capimg = ncap;
	}
	d->img[d->nimg++] = im;
	d->st.images = d->nimg;
	*out = im;
	return 0;
}

/* ---- processes ---- */

static size_t proc_index(const struct dmn *d, uint32_t pid)
{
	size_t lo = 0, hi = d->nproc;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (d->proc[mid]->pid < pid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static void proc_free(struct dmn_proc *p)
{
	if (p) {
		free(p->map);
		free(p);
	}
}

static int read_proc_maps(struct dmn *d, struct dmn_proc *p);

struct dmn_proc *dmn_proc_find(struct dmn *d, uint32_t pid, bool create)
{
	struct dmn_proc *p;
	size_t i;

	if (d->last && d->last->pid == pid)
		return d->last;
	i = proc_index(d, pid);
	if (i < d->nproc && d->proc[i]->pid == pid)
		return d->last = d->proc[i];
	if (!create)
		return NULL;
	if (d->nproc == d->capproc) {
		size_t ncap = d->capproc ? 2 * d->capproc : 16;
		struct dmn_proc **n = realloc(d->proc, ncap * sizeof(*n));

		if (!n)
			return NULL;
		d->proc = n;
		d->capproc = ncap;
	}
	p = calloc(1, sizeof(*p));
	if (!p)
		return NULL;
	p->pid = pid;
	memmove(d->proc + i + 1, d->proc + i, (d->nproc - i) * sizeof(*d->proc));
	d->proc[i] = p;
	d->nproc++;
	d->st.procs = d->nproc;
	return d->last = p;
}

static void proc_remove(struct dmn *d, uint32_t pid)
{
	size_t i = proc_index(d, pid);

	if (i >= d->nproc || d->proc[i]->pid != pid)
		return;
	if (d->last == d->proc[i])
		d->last = NULL;
	proc_free(d->proc[i]);
	memmove(d->proc + i, d->proc + i + 1, (d->nproc - i - 1) * sizeof(*d->proc));
	d->nproc--;
	d->st.procs = d->nproc;
}

/* Remove [start, end) from p's maps, splitting a region that straddles an end. */
static int maps_cut(struct dmn_proc *p, uint64_t start, uint64_t end)
{
	size_t i = 0;

	while (i < p->n) {
		struct dmn_map *m = &p->map[i];

		if (m->end <= start || m->start >= end) {
			i++;
			continue;
		}
		if (m->start < start && m->end > end) {
			/* Split in two. */
			struct dmn_map tail = *m;

			if (p->n == p->cap) {
				size_t ncap = p->cap ? 2 * p->cap : 8;
				struct dmn_map *n = realloc(p->map, ncap * sizeof(*n));

				if (!n)
					return -ENOMEM;
				p->map = n;
				p->cap = ncap;
				m = &p->map[i];
			}
			tail.start = end;
			m->end = start;
			memmove(p->map + i + 2, p->map + i + 1, (p->n - i - 1) * sizeof(*p->map));
			p->map[i + 1] = tail;
			p->n++;
			return 0;
		}
		if (m->start < start) {
			m->end = start;
			i++;
		} else if (m->end > end) {
			m->start = end;
			i++;
		} else {
			memmove(p->map + i, p->map + i + 1, (p->n - i - 1) * sizeof(*p->map));
			p->n--;
		}
	}
	return 0;
}

int dmn_maps_add(struct dmn_proc *p, uint64_t start, uint64_t end, uint64_t bias,
		 struct dmn_image *img)
{
	size_t i;
	int ret;

	if (end <= start)
		return -EINVAL;
	ret = maps_cut(p, start, end);
	if (ret)
		return ret;
	if (p->n == p->cap) {
		size_t ncap = p->cap ? 2 * p->cap : 8;
		struct dmn_map *n = realloc(p->map, ncap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		p->map = n;
		p->cap = ncap;
	}
	for (i = 0; i < p->n && p->map[i].start < start; i++)
		;
	memmove(p->map + i + 1, p->map + i, (p->n - i) * sizeof(*p->map));
	p->map[i] = (struct dmn_map){ start, end, bias, img };
	p->n++;
	return 0;
}

const struct dmn_map *dmn_maps_find(struct dmn_proc *p, uint64_t pc)
{
	size_t lo = 0, hi = p->n;

	/* Samples come in runs of one image (the hash table drains a process at a time): the
	 * last hit first, then the binary search. */
	if (p->hint < p->n && p->map[p->hint].start <= pc && pc < p->map[p->hint].end)
		return &p->map[p->hint];
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (p->map[mid].end <= pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < p->n && p->map[lo].start <= pc) {
		p->hint = lo;
		return &p->map[lo];
	}
	return NULL;
}

/* ---- events ---- */

static int map_image(struct dmn *d, struct dmn_proc *p, const char *path, uint64_t bias)
{
	struct dmn_image *im;
	bool any = false;
	int ret = dmn_image_get(d, path, &im);

	if (ret)
		return ret;
	for (size_t i = 0; i < im->nseg; i++) {
		const struct dmn_seg *s = &im->seg[i];

		if (!(s->flags & PF_X) || !s->memsz)
			continue;
		ret = dmn_maps_add(p, bias + s->vaddr, bias + s->vaddr + s->memsz, bias, im);
		if (ret)
			return ret;
		any = true;
	}
	return any ? 0 : dmn_fail(d, -ENOEXEC, "%s: no executable segment", path);
}

int dmn_exec(struct dmn *d, uint32_t pid, const char *path, uint64_t bias)
{
	struct dmn_proc *p = dmn_proc_find(d, pid, true);

	if (!p)
		return -ENOMEM;
	d->st.map_events++;
	p->n = 0;
	p->from_proc = false;
	return map_image(d, p, path, bias);
}

int dmn_map_image(struct dmn *d, uint32_t pid, const char *path, uint64_t bias)
{
	struct dmn_proc *p = dmn_proc_find(d, pid, true);

	if (!p)
		return -ENOMEM;
	d->st.map_events++;
	return map_image(d, p, path, bias);
}

static int do_mmap(struct dmn *d, struct dmn_proc *p, uint64_t start, uint64_t len, uint64_t off,
		   const char *path)
{
	struct dmn_image *im;
	const struct dmn_seg *best = NULL;
	uint64_t bias;
	int ret;

	if (!len || start + len < start)
		return -EINVAL;
	ret = dmn_image_get(d, path, &im);
	if (ret)
		return ret;
	/* The segment the mapping's file offset falls in, executable ones first. */
	for (size_t i = 0; i < im->nseg; i++) {
		const struct dmn_seg *s = &im->seg[i];

		if (off < (s->off & ~(uint64_t)0xffff) ||
		    off >= s->off + (s->filesz ? s->filesz : 1))
			continue;
		if (!best || ((s->flags & PF_X) && !(best->flags & PF_X)))
			best = s;
	}
	/* offset(pc) = vaddr + (pc - start + off - p_offset) = pc - bias */
	bias = best ? start - off + best->off - best->vaddr : start - off;
	return dmn_maps_add(p, start, start + len, bias, im);
}

int dmn_mmap(struct dmn *d, uint32_t pid, uint64_t start, uint64_t len, uint64_t off,
	     const char *path)
{
	struct dmn_proc *p = dmn_proc_find(d, pid, true);

	if (!p)
		return -ENOMEM;
	d->st.map_events++;
	return do_mmap(d, p, start, len, off, path);
}

int dmn_munmap(struct dmn *d, uint32_t pid, uint64_t start, uint64_t len)
{
	struct dmn_proc *p = dmn_proc_find(d, pid, false);

	d->st.map_events++;
	if (!p)
		return 0;
	return maps_cut(p, start, start + len < start ? UINT64_MAX : start + len);
}

int dmn_fork(struct dmn *d, uint32_t parent, uint32_t child)
{
	struct dmn_proc *p = dmn_proc_find(d, parent, false), *c;
	struct dmn_map *map;
	size_t n;

	d->st.map_events++;
	if (!p || parent == child)
		return 0;
	n = p->n;
	map = malloc((n ? n : 1) * sizeof(*map));
	if (!map)
		return -ENOMEM;
	if (n) /* memcpy() from NULL is undefined even for 0 bytes */
		memcpy(map, p->map, n * sizeof(*map)); /* p may move when the child is inserted */
	c = dmn_proc_find(d, child, true);
	if (!c) {
		free(map);
		return -ENOMEM;
	}
	free(c->map);
	c->map = map;
	c->cap = n ? n : 1;
	c->n = n;
	c->from_proc = false;
	return 0;
}

int dmn_exit(struct dmn *d, uint32_t pid)
{
	d->st.map_events++;
	proc_remove(d, pid);
	return 0;
}

/* ---- /proc/PID/maps ---- */

static int read_proc_maps(struct dmn *d, struct dmn_proc *p)
{
	char path[4200], line[4600];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%u/maps", d->proc_root, p->pid);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	d->st.proc_reads++;
	p->n = 0;
	while (fgets(line, sizeof(line), f)) {
		unsigned long long start, end, off;
		char perms[8], file[4096];
		int n = 0;

		file[0] = 0;
		/* start-end perms offset dev inode [path] (proc(5)) */
		if (sscanf(line, "%llx-%llx %7s %llx %*s %*s %n", &start, &end, perms, &off, &n) <
		    4)
			continue;
		if (!strchr(perms, 'x') || !n)
			continue;
		snprintf(file, sizeof(file), "%s", line + n);
		file[strcspn(file, "\n")] = 0;
		if (file[0] != '/')
			continue; /* anonymous, [vdso], [stack]... */
		do_mmap(d, p, start, end - start, off, file);
	}
	fclose(f);
	p->from_proc = true;
	return 0;
}

int dmn_proc_refresh(struct dmn *d, uint32_t pid)
{
	struct dmn_proc *p;
	int ret;

	if (!(d->opts.flags & DMN_PROC_MAPS))
		return -EOPNOTSUPP;
	p = dmn_proc_find(d, pid, true);
	if (!p)
		return -ENOMEM;
	ret = read_proc_maps(d, p);
	if (ret == -ENOENT && p->n == 0)
		p->from_proc = true; /* remember: nothing to learn about this pid */
	return ret;
}

void dmn_reap(struct dmn *d)
{
	size_t i = 0;

	while (i < d->nproc) {
		char path[4200];
		struct stat st;

		snprintf(path, sizeof(path), "%s/%u", d->proc_root, d->proc[i]->pid);
		if (d->proc[i]->from_proc && stat(path, &st)) {
			proc_remove(d, d->proc[i]->pid);
			continue;
		}
		i++;
	}
}

struct dmn_image *dmn_lookup(struct dmn *d, uint32_t pid, uint64_t pc, uint64_t *offset)
{
	struct dmn_proc *p =
		d->last && d->last->pid == pid ? d->last : dmn_proc_find(d, pid, false);
	const struct dmn_map *m;

	if (!p && (d->opts.flags & DMN_PROC_MAPS)) {
		p = dmn_proc_find(d, pid, true);
		if (p) {
			read_proc_maps(d, p);
			p->from_proc = true; /* also when unreadable: not tried again */
		}
	}
	if (p && p->hint < p->n && p->map[p->hint].start <= pc && pc < p->map[p->hint].end)
		m = &p->map[p->hint]; /* dmn_maps_find()'s first try, without the call */
	else
		m = p ? dmn_maps_find(p, pc) : NULL;
	if (!m) /* a kernel pc (observer records of kernel code) */
		m = dmn_maps_find(&d->kmap, pc);
	if (!m)
		return NULL;
	*offset = pc - m->bias;
	return m->img;
}

struct dmn_image *dmn_kern_lookup(struct dmn *d, uint64_t pc, uint64_t *offset)
{
	const struct dmn_map *m = dmn_maps_find(&d->kmap, pc);

	if (!m)
		return NULL;
	*offset = pc - m->bias;
	return m->img;
}

bool dmn_attribute(struct dmn *d, uint32_t pid, uint64_t pc, char *key, uint64_t *offset)
{
	uint64_t off = 0;
	struct dmn_image *im = dmn_lookup(d, pid, pc, &off);

	if (!im)
		return false;
	if (key)
		snprintf(key, PDB_KEY_MAX + 1, "%s", im->desc.key);
	if (offset)
		*offset = off;
	return true;
}

void dmn_maps_free(struct dmn *d)
{
	for (size_t i = 0; i < d->nproc; i++)
		proc_free(d->proc[i]);
	free(d->proc);
	free(d->kmap.map);
	d->kmap.map = NULL;
	d->kmap.n = d->kmap.cap = 0;
	for (size_t i = 0; i < d->nimg; i++)
		image_free(d->img[i]);
	free(d->img);
	d->proc = NULL;
	d->img = NULL;
	d->nproc = d->nimg = 0;
}

/* ---- events from a file ---- */

int dmn_load_events(struct dmn *d, const char *path)
{
	char line[4400];
	unsigned int no = 0;
	FILE *f = fopen(path, "re");
	int first = 0;

	if (!f)
		return dmn_fail(d, -errno, "%s: %s", path, strerror(errno));
	while (fgets(line, sizeof(line), f)) {
		unsigned long long a, b, c;
		unsigned int pid;
		int ret, n = 0;

		no++;
		line[strcspn(line, "\n")] = 0;
		if (!line[0] || line[0] == '#')
			continue;
		if (sscanf(line, "exec %u %lli %n", &pid, &a, &n) == 2 && n) {
			ret = dmn_exec(d, pid, line + n, a);
		} else if (sscanf(line, "map %u %lli %n", &pid, &a, &n) == 2 && n) {
			ret = dmn_map_image(d, pid, line + n, a);
		} else if (sscanf(line, "mmap %u %lli %lli %lli %n", &pid, &a, &b, &c, &n) == 4 &&
			   n) {
			ret = dmn_mmap(d, pid, a, b, c, line + n);
		} else if (sscanf(line, "munmap %u %lli %lli", &pid, &a, &b) == 3) {
			ret = dmn_munmap(d, pid, a, b);
		} else if (sscanf(line, "exit %u", &pid) == 1) {
			ret = dmn_exit(d, pid);
		} else {
			ret = dmn_fail(d, -EINVAL, "%s:%u: not an image-map event", path, no);
		}
		if (ret && !first) {
			char why[AX_ERROR_MAX];

			snprintf(why, sizeof(why), "%s", d->err.msg);
			first = dmn_fail(d, ret, "%s:%u: %s", path, no, why);
		}
	}
	fclose(f);
	return first;
}
