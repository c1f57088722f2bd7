/* daemon/dmn_lib.h - the daemon library: image maps, attribution, merging records, flushing. */
#ifndef DMN_LIB_H
#define DMN_LIB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pdb.h"
#include "vs_abi.h"

/*
 * What DCPI's daemon does (SOSP'97 §4.3), as a library that axprofd (a /dev/axprof reader) and
 * `axprof record` (the hosted machine's in-process channel) share:
 *
 *  IMAGE MAPS. Per process, the executable regions and the image (file) each maps, from events:
 *    dmn_exec()    the process replaced its image (its old maps are dropped)
 *    dmn_mmap()    a file mapped with PROT_EXEC at [start, start + len) from file offset off
 *    dmn_map_image() an image loaded with load bias `bias` (its executable PT_LOAD segments are
 *                  mapped; what a dynamic loader's link map says)
 *    dmn_munmap()  a range unmapped
 *    dmn_fork()    a process forked: the child starts with the parent's maps
 *    dmn_exit()    the process is gone
 *  With DMN_PROC_MAPS, a pid first seen in a record is looked up in /proc/PID/maps (a real
 *  kernel; DCPI scanned active processes at start-up the same way), and dmn_proc_refresh()
 *  re-reads it.
 *
 *  ATTRIBUTION. (pid, pc) -> (image, offset). The OFFSET of an instruction is its address in the
 *  image's own ELF program headers: what objdump and the symbol table show (for a program linked
 *  at a fixed address, the pc itself; for a shared object, pc minus its load bias). An image is
 *  named by its pdb key (pdb.h IMAGE KEYS: build-id, else path+size+mtime).
 *
 *  MERGING. dmn_feed() takes the vs_abi.h record stream: every record is checked with
 *  vs_abi_check_record() first. SAMPLE records add to the image's <EVENT> profile, with the
 *  sampling period of their event when the configuration is known (dmn_opts.cfg: the profile's
 *  period record, pdb.h PERIODS, so that the database keeps the periods), or to the
 *  epoch's unknown profile (pid, pc, event) when no image claims the pc (kernel-mode samples
 *  go to the kernel map below, or there when it does not claim them); HOTLIST, LATENCY, CONFLICT and VCOUNT records add to
 *  the image's values/latency/conflicts/vcount tables (a conflict's earlier access is attributed
 *  on its own, to any image, or kept as a raw pc); observer records no image claims are counted
 *  and dropped; STATS records are kept (the latest per CPU). A damaged record is rejected and
 *  counted, never trusted: the stream resynchronises at the next 8-byte boundary.
 *
 *  KERNEL IMAGES. Kernel-mode samples go to one map shared by every process: the kernel image
 *  and each loaded module (dmn_kern.h; SOSP'97 §4.3), read at dmn_new(); a kernel sample no image claims
 *  re-reads the module list (rate-limited: kernel_reread_ms) and maps the modules loaded since. The kernel is its
 *  vmlinux when one is named (offsets are kernel addresses; annotate reads its code), after its
 *  build-id is checked against the running kernel's (/sys/kernel/notes) and its _stext against
 *  kallsyms: dmn_new() refuses a vmlinux that does not match, or that nothing can check.
 *  Otherwise, and for every module, the daemon writes the symbols it knows (kallsyms) as a
 *  symbol-only ELF file DIR/kernel/KEY/vmlinux or .../KEY/MODULE.ko (dmn_kelf_write: no code bytes) and that file is the
 *  image: the kernel's key is its build-id's (the running kernel's, when readable), a module's
 *  the "build-id" of FNV-1a-64 over its name, size and symbols; a module's offsets count from
 *  its load address, so its profile adds up across boots. A System.map is used only when its
 *  _stext equals kallsyms'.
 *
 *  FLUSHING. dmn_flush() adds the in-memory profiles to the database's current epoch (re-read at
 *  every flush, so `axprof epoch` takes effect at the next one) with pdb_merge_store(), writes
 *  the index entry of every image with data, and empties the in-memory profiles. A profile whose
 *  store failed stays in memory for the next flush.
 */

#define DMN_PROC_MAPS (1u << 0) /* read /proc/PID/maps for unknown pids */
/* Attribute kernel samples: read /proc/kallsyms, /proc/modules and /sys/kernel/notes when
 * readable (KERNEL IMAGES); without it only the files named in dmn_opts are used. */
#define DMN_KERNEL (1u << 1)

struct dmn_opts {
	const char *db_dir; /* the profile database (created if missing) */
	unsigned int flags; /* DMN_* */
	/* DMN_PROC_MAPS: where /proc is (NULL: "/proc"). Another directory holding PID/maps
	 * files saved elsewhere (an Alpha guest) works as well. */
	const char *proc_root;
	/* NULL, or a directory where the absolute paths of mapped files are looked up first
	 * (an Alpha root file system on the host, e.g. /usr/alpha-linux-gnu), as qemu-alpha -L. */
	const char *sysroot;
	/* NULL, or the sampler's configuration: its per-event periods are stored with every
	 * sample (pdb.h PERIODS); without it the samples are stored without a period. */
	const struct vs_config *cfg;
	/* KERNEL IMAGES: files saved elsewhere or named by the user (NULL: none; with DMN_KERNEL
	 * the running kernel's /proc and /sys files stand in for kallsyms, modules and notes). */
	const char *kallsyms; /* /proc/kallsyms text */
	const char *modules; /* /proc/modules text */
	const char *vmlinux; /* the kernel's ELF file (symbols, code for annotate) */
	const char *system_map; /* System.map (symbols without modules) */
	const char *kernel_notes; /* /sys/kernel/notes (the running kernel's build-id) */
	/* The hosted machine's pseudo-kernel (machine/mach_kern.h): kallsyms text in memory
	 * (instead of a kallsyms file) and the file name of its image ("[kernel]"; NULL:
	 * "vmlinux"). */
	const char *kallsyms_text;
	const char *kernel_name;
	/* A kernel sample outside every known range re-reads the module list (a module loaded
	 * since) at most once in this many ms (0: 1000); never for kallsyms_text. */
	uint32_t kernel_reread_ms;
};

/* Counters since dmn_new() (dmn_get_stats). */
#define DMN_KV_NR 15 /* kernel-values counters (below) */

struct dmn_stats {
	uint64_t bytes; /* record bytes fed */
	uint64_t records[VS_REC_SLOTS]; /* accepted records by type (unknown types in [0]) */
	uint64_t damaged; /* records rejected by vs_abi_check_record() */
	uint64_t damaged_bytes; /* bytes skipped with them (and truncated tails) */
	uint64_t samples; /* SAMPLE counts added up */
	uint64_t samples_unknown; /* ... of which no image claimed (user and kernel) */
	uint64_t samples_kernel; /* ... of which were kernel-mode */
	uint64_t samples_kernel_unknown; /* ... kernel-mode ones no kernel image claimed */
	uint64_t kernel_images; /* the kernel and modules in the kernel map */
	uint64_t obs_unknown; /* observer records no image claimed (dropped) */
	uint64_t merge_errors; /* records a profile could not take (-ENOMEM, -EOVERFLOW) */
	uint64_t flushes; /* dmn_flush() calls that succeeded */
	uint64_t flush_errors;
	uint64_t images_flushed; /* profiles stored */
	uint64_t map_events; /* exec/mmap/map_image/munmap/fork/exit */
	uint64_t proc_reads; /* /proc/PID/maps files read */
	uint64_t images; /* distinct images known */
	uint64_t procs; /* processes with maps now */
	uint64_t stacks; /* samples whose stack (VS_REC_STACK) was stored */
	uint64_t stacks_unknown; /* ... dropped: no image held the sampled pc */
	uint64_t stack_frames_unknown; /* frames of stored stacks no image held (raw pcs kept) */
	uint64_t threads; /* (thread, command) rows VS_REC_TASK records gave (dmn_threads) */
	uint32_t last_epoch; /* epoch of the last flush */
	uint32_t stats_cpus; /* CPUs with a STATS record */
	struct vs_stats vs; /* the latest STATS record of every CPU, added up */
	bool has_kvals; /* kvals[] came from a driver (dmn_set_kernel_values) */
	uint64_t kvals[DMN_KV_NR]; /* --kernel-values: refusals and stops by reason (dmn_kv_name) */
};

/*
 * The driver's kernel-values counters (kmod/sampler/linux/axprof_ioctl.h, AXPROF_G_K_CHOSEN
 * onwards, in that order) since the recording started: a shadow interpretation chosen, refused
 * by reason, run, and its stop by reason; its cycles. dmn_kv_name[i] names kvals[i].
 */
extern const char *const dmn_kv_name[DMN_KV_NR];

struct dmn;

/* The driver's kernel-values counters (dmn_dev_stats) into the stats. */
void dmn_set_kernel_values(struct dmn *d, const uint64_t kv[DMN_KV_NR]);
/* A thread the record stream named (VS_REC_TASK, ABI 5) and the samples taken in it while it
 * had this command name, since the daemon started (dmn_discard() forgets them). */
struct dmn_thread {
	uint32_t pid, tid;
	char comm[VS_COMM_LEN]; /* NUL-padded */
	uint64_t samples;
};
/* The threads named so far, in the order the stream named them (n rows; valid until the next
 * dmn_feed or dmn_discard). */
const struct dmn_thread *dmn_threads(const struct dmn *d, size_t *n);

int dmn_new(struct dmn **out, const struct dmn_opts *opts, struct ax_error *err);
void dmn_free(struct dmn *d);
struct pdb_db *dmn_db(struct dmn *d);
/* The last failure (ax_err.h; its message "" if none), as pdb_last_error(). */
const char *dmn_errmsg(const struct dmn *d);
const struct ax_error *dmn_last_error(const struct dmn *d);

/* Image-map events. path is a host path readable by this process. 0 or -Exxx. */
int dmn_exec(struct dmn *d, uint32_t pid, const char *path, uint64_t bias);
int dmn_mmap(struct dmn *d, uint32_t pid, uint64_t start, uint64_t len, uint64_t off,
	     const char *path);
int dmn_map_image(struct dmn *d, uint32_t pid, const char *path, uint64_t bias);
int dmn_munmap(struct dmn *d, uint32_t pid, uint64_t start, uint64_t len);
int dmn_fork(struct dmn *d, uint32_t parent, uint32_t child);
int dmn_exit(struct dmn *d, uint32_t pid);
/*
 * Apply image-map events from a text file (records saved elsewhere, tests), one per line, '#'
 * starting a comment, numbers in C syntax:
 *   exec PID BIAS PATH | map PID BIAS PATH | mmap PID START LEN OFF PATH | munmap PID START LEN
 *   | exit PID
 * (map is dmn_map_image). 0, or the first error (the message names the line).
 */
int dmn_load_events(struct dmn *d, const char *path);

/* Why kernel samples are not attributed: "" when a kernel map is loaded. */
const char *dmn_kernel_note(const struct dmn *d);

/* Re-read /proc/PID/maps (DMN_PROC_MAPS): -ENOENT when the process is gone. */
int dmn_proc_refresh(struct dmn *d, uint32_t pid);
/* Is pc of pid attributed? Fills key[PDB_KEY_MAX + 1] (may be NULL) and *offset. */
bool dmn_attribute(struct dmn *d, uint32_t pid, uint64_t pc, char *key, uint64_t *offset);

/*
 * Merge the records in buf[0..len). Returns the bytes consumed (whole records; a record that
 * runs past len stays for the next call, with more bytes after it), or -ENOMEM. `eof`: nothing
 * more follows: a partial record at the end is counted as damage and consumed.
 */
long dmn_feed(struct dmn *d, const void *buf, size_t len, bool eof);

/* Flush in-memory profiles to the database (see FLUSHING). 0 or the first error. */
int dmn_flush(struct dmn *d);
/* Drop the in-memory profiles without storing them (a forked child of the recorded program). */
void dmn_discard(struct dmn *d);
/* Forget processes read from /proc whose /proc/PID is gone (after their records are merged). */
void dmn_reap(struct dmn *d);

void dmn_get_stats(const struct dmn *d, struct dmn_stats *st);

/* The pdb event id of a sampler event (VS_EV_*). */
unsigned int dmn_pdb_event(unsigned int vs_event);

#endif /* DMN_LIB_H */
