/* daemon/dmn_int.h - internals shared by the daemon library's dmn_*.c files. */
#ifndef DMN_INT_H
#define DMN_INT_H

#include <sys/types.h>

#include "dmn_lib.h"

#define DMN_MAX_CPUS 256 /* STATS records of CPUs beyond this are added to the last slot */

/* One PT_LOAD segment of an image (ELF program header). */
struct dmn_seg {
	uint64_t vaddr, memsz; /* p_vaddr, p_memsz */
	uint64_t off, filesz; /* p_offset, p_filesz */
	uint32_t flags; /* p_flags: PF_X 1, PF_W 2, PF_R 4 */
};

/* One image file, shared by every process that maps it. */
struct dmn_image {
	char *path; /* host path (the first one seen) */
	struct pdb_image desc; /* index entry: key, build-id, size, mtime (desc.path = path) */
	struct dmn_seg *seg; /* PT_LOAD segments (none for a file that is not ELF) */
	size_t nseg;
	dev_t dev; /* identity of the file at `path` when described */
	ino_t ino;
	struct pdb_prof *prof; /* samples and observations since the last flush */
	/* Its samples per thread (tasks.prof) while they all come from one: 0 none yet, 1 all
	 * from thread sole_tid of sole_pid (the tasks rows are made from the samples rows when
	 * stored: the cost of a second table only once a second thread shows), 2 several (rows
	 * added as they come). */
	uint8_t pids;
	uint32_t sole_pid;
	uint32_t sole_tid;
	uint32_t indexed_epoch; /* the epoch whose index lists this image (0: none yet) */
};

/* One executable region of a process: pc in [start, end) has offset pc - bias in img. */
struct dmn_map {
	uint64_t start, end;
	uint64_t bias;
	struct dmn_image *img;
};

struct dmn_proc {
	uint32_t pid;
	bool from_proc; /* maps read from /proc/PID/maps */
	struct dmn_map *map; /* sorted by start, not overlapping */
	size_t n, cap;
	size_t hint; /* the last region dmn_maps_find() found: tried first (checked, as the
		      * regions may have changed since; at most one holds a pc) */
};

struct dmn {
	struct pdb_db *db;
	struct dmn_opts opts;
	char *proc_root;
	char *sysroot; /* "" when none */
	struct dmn_image **img;
	size_t nimg, capimg;
	struct dmn_proc **proc; /* sorted by pid */
	size_t nproc, capproc;
	struct dmn_proc *last; /* the last one looked up */
	struct pdb_prof *unknown;
	struct dmn_proc kmap; /* the kernel image and its modules (dmn_kern.c; pid unused) */
	char kern_note[AX_ERROR_MAX]; /* why kernel samples are not attributed ("" when they are) */
	bool kern_reread; /* the module list can be read again (dmn_kern_reread) */
	char *kern_ksyms_path,
		*kern_mods_path; /* from where (copies of the options; NULL: /proc) */
	uint64_t kern_reread_ns; /* CLOCK_MONOTONIC of the last re-read (0: none yet) */
	struct vs_period period[VS_EVENT_NR]; /* of opts.cfg; lo 0: not known */
	struct vs_period pme_period; /* ProfileMe interval (opts.cfg in PROFILEME mode; lo 0: not
				      * known) and pair window */
	uint32_t pme_window;
	struct vs_rec_profileme pme_first; /* the first of a pair, until its second arrives */
	bool pme_have_first;
	struct dmn_thread *thr; /* dmn_tasks.c: rows in the order the stream named them */
	size_t nthr, capthr, last_thr;
	struct dmn_stats st;
	struct vs_stats cpu[DMN_MAX_CPUS];
	bool has_cpu[DMN_MAX_CPUS];
	struct ax_error err; /* the last failure (dmn_last_error) */
};

/* dmn_maps.c */
struct dmn_proc *dmn_proc_find(struct dmn *d, uint32_t pid, bool create);
/* The image of pc in pid (reading /proc when allowed), with its offset; NULL if none. */
struct dmn_image *dmn_lookup(struct dmn *d, uint32_t pid, uint64_t pc, uint64_t *offset);

/*
 * dmn_lookup() for the merge's every record: when pid is the last process looked up and pc lies
 * in the region it last found (the common case: records come in runs of one process and image),
 * the answer without a call; else dmn_lookup().
 */
static inline struct dmn_image *dmn_lookup_hot(struct dmn *d, uint32_t pid, uint64_t pc,
					       uint64_t *offset)
{
	const struct dmn_proc *p = d->last;

	if (p && p->pid == pid && p->hint < p->n && p->map[p->hint].start <= pc &&
	    pc < p->map[p->hint].end) {
		*offset = pc - p->map[p->hint].bias;
		return p->map[p->hint].img;
	}
	return dmn_lookup(d, pid, pc, offset);
}
void dmn_maps_free(struct dmn *d);
/* The image of a file (one per file and per key), described on first use. 0 or -Exxx. */
int dmn_image_get(struct dmn *d, const char *path, struct dmn_image **out);
/* Map [start, end) of p to img with bias (cutting what was there). 0 or -Exxx. */
int dmn_maps_add(struct dmn_proc *p, uint64_t start, uint64_t end, uint64_t bias,
		 struct dmn_image *img);
/* The region of p holding pc, or NULL; the last one found is tried first (p->hint). */
const struct dmn_map *dmn_maps_find(struct dmn_proc *p, uint64_t pc);
/* dmn_kern.c: the kernel map from d->opts (DMN_KERNEL, kallsyms, modules, vmlinux...). */
int dmn_kern_load(struct dmn *d);
/*
 * A kernel pc no image claims: re-read the module list (at most once in kernel_reread_ms) and
 * map the modules not mapped yet (loaded since). True when one was mapped (look up again).
 */
bool dmn_kern_reread(struct dmn *d);
/* The kernel image or module of a kernel pc, with its offset; NULL if none. */
struct dmn_image *dmn_kern_lookup(struct dmn *d, uint64_t pc, uint64_t *offset);
/* An observation's image: the process's, else the kernel's or a module's (--kernel-values:
 * observer records carry no mode flag; a kernel pc lies where no process maps anything). */
struct dmn_image *dmn_lookup_any(struct dmn *d, uint32_t pid, uint64_t pc, uint64_t *offset);
/* dmn_tasks.c: a VS_REC_TASK (checked); the process of thread tid (tid itself when no record
 * named it), adding count to the thread's samples; free the table. */
void dmn_do_task(struct dmn *d, const struct vs_rec_task *r);
uint32_t dmn_task_sample(struct dmn *d, uint32_t tid, uint64_t count);
void dmn_tasks_reset(struct dmn *d);
/* dmn_pme.c: one VS_REC_PROFILEME (checked) into the image's ProfileMe table. */
void dmn_do_profileme(struct dmn *d, const struct vs_rec_profileme *r);
/* dmn_calls.c: one VS_REC_PROC (checked) into the image's procs table; h: its hotlist, as the
 * check unpacked it (its values may be renamed in place). */
void dmn_do_proc(struct dmn *d, const uint8_t *p, struct hotlist *h);
/* dmn_addrs.c: one VS_REC_ADDR (checked) into the image's addrs table; h: its hotlist, as the
 * check unpacked it. */
void dmn_do_addr(struct dmn *d, const uint8_t *p, const struct hotlist *h);
/* dmn_stack.c: one VS_REC_STACK (checked) into the stacks table of its sample's image. */
void dmn_do_stack(struct dmn *d, const uint8_t *p);
/* Record a failure as d's last (ax_err.h); return code. dmn_fail_with() copies e's report. */
int dmn_fail(struct dmn *d, int code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
int dmn_fail_with(struct dmn *d, int code, const struct ax_error *e);

#endif /* DMN_INT_H */
