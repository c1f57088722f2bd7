/* machine/mach_truth.h - ground-truth file of the hosted machine: format and reader. */
#ifndef MACH_TRUTH_H
#define MACH_TRUTH_H

#include <stddef.h>
#include <stdint.h>

#include "ax_err.h"

/*
 * The hosted machine's CPU models (EV5: mach_ev5.c, EV6: mach_ev6.c) know exactly what each
 * instruction did: how often it executed, how many cycles it spent at the head of the issue
 * stage (EV5) or of the retire stage (EV6) and why, which events it caused and where control
 * went; the EV6 model also what was fetched and aborted, its replay traps with their causes and
 * its per-stage latencies. The model's truth_write op stores that in one file; the analysis
 * reads it back with mach_truth_read() to grade its estimates.
 *
 * FILE FORMAT (version 2; version 1 is version 2 without the EV6 sections and with bytes 208..255
 * of the summary zero, so both read alike). All integers are little-endian, fixed width. Offsets are from the start
 * of the file. The file is: a 64-byte header, a section table, then the sections' data.
 *
 * Header:
 *   OFFSET  SIZE  DESCRIPTION
 *        0     8  magic "AXPTRUTH"
 *        8     4  format version (MACH_TRUTH_VERSION); a reader rejects versions newer than its own
 *       12     4  byte-order mark 0x01020304, written little-endian (bytes 04 03 02 01)
 *       16     4  header size in bytes (64)
 *       20     4  number of sections N (1..MACH_TRUTH_MAX_SECTIONS)
 *       24     8  total file size in bytes
 *       32     4  CRC-32 (zlib crc32()) of the whole file, computed with these 4 bytes as zero
 *       36    28  reserved, zero
 *
 * Section table, at offset 64: N entries of 32 bytes:
 *   OFFSET  SIZE  DESCRIPTION
 *        0     4  section type (MACH_TRUTH_SEC_*); readers skip types they do not know
 *        4     4  record size in bytes (at least the size this version defines; readers ignore
 *                 trailing bytes of longer records, so fields can be appended compatibly)
 *        8     8  offset of the first record (a multiple of 8, inside the file)
 *       16     8  number of records
 *       24     8  reserved, zero
 *
 * With --cpus N > 1 the file covers every CPU: each per-PC section (2, 3, 5, 6, 7, 10) adds the
 * CPUs' counts up (what one CPU running all their instructions would count), the summary's
 * counters and cycles are the sums over the CPUs (CPU cycles, not elapsed), its parameters the
 * first CPU's (all are alike), section 8 lists the CPUs' path records CPU by CPU.
 *
 * Section MACH_TRUTH_SEC_SUMMARY (1), exactly one record of at least 256 bytes:
 *        0     8  cycles: issue cycle of the last instruction
 *        8     8  instructions retired
 *       16    72  stall cycles by cause, MACH_STALL_NR (9) counters in enum mach_stall order
 *       88    56  event counts, 7 counters in enum mach_event order (CYCLES, RETIRED, IMISS, DMISS,
 *                 DTBMISS, ITBMISS, BRANCHMP)
 *      144    64  model parameters, 16 x u32 in enum mach_truth_param order (0 = unused; EV6 fills
 *                 DCACHE_LAT, BCACHE_LAT, MEM_LAT, BCACHE_KB, MISPREDICT, ITB_MISS, DTB_MISS and
 *                 REPLAY = its order-trap penalty)
 *      208    48  version 2, MACH_TRUTH_NEXT u64 (zero from EV5): B-cache misses (BCMISS),
 *                 replay traps (REPLAY), instructions fetched, instructions aborted (every
 *                 reason, bad-path ones included), bad-path instructions, CPU model
 *                 (0 or 5: EV5, 6: EV6)
 *
 * Section MACH_TRUTH_SEC_PCS (2): one record of at least 136 bytes per executed PC, sorted by PC,
 * PCs strictly increasing:
 *        0     8  pc
 *        8     8  execution count
 *       16     8  head-of-issue cycles: the sum over executions of (this instruction's issue cycle
 *                 minus the previous instruction's issue cycle); CYCLES samples are proportional.
 *                 EV6: the same with retire cycles (head of the retire stage), all of them STATIC
 *                 below (the EV6 model does not split them by cause yet)
 *       24    72  head-of-issue cycles split by cause, MACH_STALL_NR counters (they sum to the
 *                 head-of-issue cycles; STATIC holds the cycles the static schedule explains)
 *       96    40  events this instruction caused: IMISS, DMISS, DTBMISS, ITBMISS, BRANCHMP
 *
 * Section MACH_TRUTH_SEC_EDGES (3): one record of 24 bytes per control-flow edge, sorted by
 * (from, to), strictly increasing:
 *        0     8  from: PC of the instruction
 *        8     8  to: the PC executed next
 *       16     8  count
 *   An edge is recorded whenever control did not fall through (to != from + 4) and, for
 *   conditional branches, also when it did (to == from + 4: the fall-through count).
 *
 * Section type 4 is reserved for per-PC value histograms (a later version).
 *
 * Section MACH_TRUTH_SEC_EV6PCS (5, EV6 only): one record of at least 168 bytes per PC fetched,
 * sorted by PC, strictly increasing; 20 u64 after the pc, in enum mach_truth_ev6 order:
 *        0     8  pc
 *        8   160  FETCH (times fetched on the correct path), RETIRE, AB_REPLAY (aborted as the
 *                 target of a replay trap), AB_YOUNGER (aborted because an older instruction
 *                 trapped), BADPATH (bad-path instructions fetched and aborted after this
 *                 branch mispredicted; their PCs are not decoded), RP_STLD, RP_LDLD, RP_MBOX
 *                 (replay traps this instruction took, by kind), MISPREDICT, IMISS, ITBMISS,
 *                 DMISS (load served below the D-cache), BCMISS (served by memory), DTBMISS,
 *                 FWD (load data forwarded from the store queue), STWAIT (load held by its
 *                 stWait bit), FETCH_MAP, MAP_ISSUE, ISSUE_READY, READY_RETIRE (sums over the
 *                 retired executions of the cycles between the stages).
 *   Invariant: FETCH == RETIRE + AB_REPLAY + AB_YOUNGER.
 *
 * Section MACH_TRUTH_SEC_REPLAYS (6, EV6 only): one record of 32 bytes per (pc, cause, kind),
 * sorted by (pc, cause, kind), strictly increasing:
 *        0     8  pc of the instruction that took the replay trap (the younger load)
 *        8     8  cause: pc of the older store (STLD) or load (LDLD) it conflicted with; for
 *                 MBOX the older store of a partial forward, else 0
 *       16     4  kind: 0 STLD, 1 LDLD, 2 MBOX
 *       20     4  zero
 *       24     8  count
 *
 * Section MACH_TRUTH_SEC_WASTED (7, EV6 only): issue slots wasted while each instruction was in
 * progress [PM §5.2.3] (the definition: machine/mach_ev6_waste.c); one record of at least 40
 * bytes per PC of which a copy was timed (bad-path PCs included), sorted by PC, strictly
 * increasing:
 *        0     8  pc
 *        8     8  windows: copies counted (retired executions, replayed attempts, bad-path
 *                 copies; never 0)
 *       16     8  cycles: their in-progress cycles summed (fetch to retire-ready, or to abort)
 *       24     8  slots: C x cycles, C the model's issue slots a cycle (4)
 *       32     8  useful: other retired instructions that issued in those windows, counted per
 *                 window (a retired copy's own issue is not counted)
 *   Wasted issue slots = slots - useful (may be negative where more than C issued).
 * Section MACH_TRUTH_SEC_PATHS (8, EV6 with ProfileMe pairs only): one record of at least 536
 * bytes per retired second-of-a-pair ProfileMe sample, in sampling order: the path the machine
 * really took to it ([PM] §5.3's experiment, graded by eval/run-paths.sh):
 *        0     8  pc of the sampled instruction
 *        8     8  partner: pc of the first of the pair if it retired, else 0
 *       16     2  history: the global path history at its fetch (12 bits, as in the record)
 *       18     2  dist: the pair's fetch distance (1 .. W)
 *       20     2  ndec: decisions that follow, 0 .. MACH_TRUTH_PATH_DECS
 *       22     2  zero
 *       24   512  MACH_TRUTH_PATH_DECS x (from u64, to u64), the most recent first: the control
 *                 transfers retired before the sample, every conditional branch (taken or not)
 *                 and every instruction whose successor was not pc + 4 (calls, returns, jumps)
 *
 * Section MACH_TRUTH_SEC_COHERENCE (9, --cpus N > 1 only, either model): the coherence traffic
 * each instruction caused (machine/mach_coh.h), over all CPUs; one record of at least 32 bytes
 * per PC that caused any, sorted by PC, strictly increasing:
 *        0     8  pc (a load or a store)
 *        8     8  inval: copies of its block it invalidated in other CPUs' caches (MACH_EV_INVAL)
 *       16     8  interv: its misses another CPU's Modified copy supplied (MACH_EV_INTERV)
 *       24     8  shstores: its stores that found the block Shared here and invalidated others
 *
 * Section MACH_TRUTH_SEC_SYSCALLS (10): the kernel time of the emulated system calls
 * (machine/mach_kern.h; DCPI SOSP'97 §4.3: kernel samples belong to the kernel): one record of
 * at least 48 bytes per system call number that ran, sorted by number, strictly increasing:
 *        0     4  system call number (its pseudo-pc: mach_kern_pc(nr))
 *        4     4  zero
 *        8     8  calls
 *       16     8  cycles the kernel spent in them (in the summary's cycles; in no PC's head
 *                 cycles: head cycles + these = cycles)
 *       24    24  its procedure name, "sys_write", NUL-padded
 *   Files of models that book no kernel time have no section 10.
 *
 * The reader validates everything before it trusts it and reports the first problem as -EBADMSG
 * with the byte offset where it was found; it never reads outside the buffer.
 */

#define MACH_TRUTH_MAGIC "AXPTRUTH"
#define MACH_TRUTH_VERSION 2u
#define MACH_TRUTH_BOM 0x01020304u
#define MACH_TRUTH_HDR_SIZE 64u
#define MACH_TRUTH_SECENT_SIZE 32u
#define MACH_TRUTH_MAX_SECTIONS 64u

enum mach_truth_sec {
	MACH_TRUTH_SEC_SUMMARY = 1,
	MACH_TRUTH_SEC_PCS = 2,
	MACH_TRUTH_SEC_EDGES = 3,
	MACH_TRUTH_SEC_VALUES = 4, /* reserved: value histograms */
	MACH_TRUTH_SEC_EV6PCS = 5,
	MACH_TRUTH_SEC_REPLAYS = 6,
	MACH_TRUTH_SEC_WASTED = 7,
	MACH_TRUTH_SEC_PATHS = 8,
	MACH_TRUTH_SEC_COHERENCE = 9,
	MACH_TRUTH_SEC_SYSCALLS = 10,
};

#define MACH_TRUTH_SUMMARY_SIZE 256u
#define MACH_TRUTH_PC_SIZE 136u
#define MACH_TRUTH_EDGE_SIZE 24u
#define MACH_TRUTH_EV6PC_SIZE 168u
#define MACH_TRUTH_REPLAY_SIZE 32u
#define MACH_TRUTH_WASTE_SIZE 40u
#define MACH_TRUTH_COH_SIZE 32u
#define MACH_TRUTH_PATH_DECS 32u
#define MACH_TRUTH_PATH_SIZE (24u + 16u * MACH_TRUTH_PATH_DECS)
#define MACH_TRUTH_SYSCALL_SIZE 48u
#define MACH_TRUTH_SYSCALL_NAME 24u

/* Why an instruction spent its head-of-issue cycles (DCPI SOSP'97 §6.3 stall causes). */
enum mach_stall {
	MACH_STALL_STATIC, /* the static schedule: issue slot, pipe conflicts, producer latencies */
	MACH_STALL_IMISS, /* waiting for its I-cache block */
	MACH_STALL_DMISS, /* waiting for an operand a D-cache-missing load brings (or a MAF slot) */
	MACH_STALL_ITBMISS, /* instruction TLB miss */
	MACH_STALL_DTBMISS, /* data TLB miss (its own load/store) */
	MACH_STALL_BRANCHMP, /* the instruction after a mispredicted branch or jump */
	MACH_STALL_WBFULL, /* a store finding the write buffer full; MB waiting for it to drain */
	MACH_STALL_UNIT, /* integer multiplier or FP divider busy */
	MACH_STALL_OTHER, /* replay traps (load right after a store to it), PALcode calls */
	MACH_STALL_NR,
};

extern const char *const mach_stall_name[MACH_STALL_NR];

/* Per-PC event counters stored in the file (subset of enum mach_event). */
enum mach_truth_ev {
	MACH_TEV_IMISS,
	MACH_TEV_DMISS,
	MACH_TEV_DTBMISS,
	MACH_TEV_ITBMISS,
	MACH_TEV_BRANCHMP,
	MACH_TEV_NR,
};

/* Model parameters recorded in the summary. */
enum mach_truth_param {
	MACH_TP_DCACHE_LAT,
	MACH_TP_SCACHE_LAT,
	MACH_TP_BCACHE_LAT,
	MACH_TP_MEM_LAT,
	MACH_TP_MEM_OCCUPANCY,
	MACH_TP_BCACHE_KB,
	MACH_TP_MISPREDICT,
	MACH_TP_ITB_MISS,
	MACH_TP_DTB_MISS,
	MACH_TP_WB_SCACHE,
	MACH_TP_WB_TIMEOUT,
	MACH_TP_PAL_CYCLES,
	MACH_TP_REPLAY,
	MACH_TP_NR = 16,
};

#define MACH_TRUTH_NEVENTS 7 /* the EV5 events stored at summary offset 88 */

/* Version 2 summary words at offset 208. */
enum mach_truth_ext {
	MACH_TX_BCMISS,
	MACH_TX_REPLAY,
	MACH_TX_FETCHED,
	MACH_TX_ABORTED,
	MACH_TX_BADPATH,
	MACH_TX_CPU,
	MACH_TRUTH_NEXT,
};

/* EV6 per-PC counters (section 5), in file order. */
enum mach_truth_ev6 {
	MACH_T6_FETCH,
	MACH_T6_RETIRE,
	MACH_T6_AB_REPLAY,
	MACH_T6_AB_YOUNGER,
	MACH_T6_BADPATH,
	MACH_T6_RP_STLD,
	MACH_T6_RP_LDLD,
	MACH_T6_RP_MBOX,
	MACH_T6_MISPREDICT,
	MACH_T6_IMISS,
	MACH_T6_ITBMISS,
	MACH_T6_DMISS,
	MACH_T6_BCMISS,
	MACH_T6_DTBMISS,
	MACH_T6_FWD,
	MACH_T6_STWAIT,
	MACH_T6_FETCH_MAP,
	MACH_T6_MAP_ISSUE,
	MACH_T6_ISSUE_READY,
	MACH_T6_READY_RETIRE,
	MACH_T6_NR,
};

struct mach_truth_ev6pc {
	uint64_t pc;
	uint64_t c[MACH_T6_NR];
};

struct mach_truth_replay {
	uint64_t pc, cause, count;
	uint32_t kind;
};

struct mach_truth_waste { /* section 7 */
	uint64_t pc, windows, cycles, slots, useful;
};

struct mach_truth_path {
	uint64_t pc, partner;
	uint16_t history, dist, ndec;
	uint64_t from[MACH_TRUTH_PATH_DECS], to[MACH_TRUTH_PATH_DECS]; /* most recent first */
};

struct mach_truth_coh { /* section 9 */
	uint64_t pc, inval, interv, shstores;
};

struct mach_truth_syscall { /* section 10 */
	uint32_t nr;
	uint64_t calls, cycles;
	char name[MACH_TRUTH_SYSCALL_NAME + 1];
};

struct mach_truth_pc {
	uint64_t pc;
	uint64_t exec; /* execution count */
	uint64_t head; /* head-of-issue cycles */
	uint64_t stall[MACH_STALL_NR]; /* head cycles by cause; sums to head */
	uint64_t ev[MACH_TEV_NR]; /* events this instruction caused */
};

struct mach_truth_edge {
	uint64_t from, to, count;
};

struct mach_truth_summary {
	uint64_t cycles, insns;
	uint64_t stall[MACH_STALL_NR];
	uint64_t events[MACH_TRUTH_NEVENTS];
	uint32_t param[MACH_TP_NR];
	uint64_t ext[MACH_TRUTH_NEXT]; /* version 2 (zero in version 1 files) */
};

/* A truth file in memory: arrays sorted as in the file. */
struct mach_truth {
	uint32_t version;
	struct mach_truth_summary sum;
	struct mach_truth_pc *pcs;
	size_t npcs;
	struct mach_truth_edge *edges;
	size_t nedges;
	struct mach_truth_ev6pc *ev6; /* EV6 files: section 5 (else NULL, 0) */
	size_t nev6;
	struct mach_truth_replay *replays; /* EV6 files: section 6 */
	size_t nreplays;
	struct mach_truth_waste *waste; /* EV6 files: section 7 */
	size_t nwaste;
	struct mach_truth_path *paths; /* EV6 files with pairs: section 8 */
	size_t npaths;
	struct mach_truth_coh *coh; /* --cpus N > 1: section 9 (else NULL, 0) */
	size_t ncoh;
	struct mach_truth_syscall *syscalls; /* section 10 (NULL, 0 without) */
	size_t nsyscalls;
	uint64_t kernel_cycles; /* their cycles added up */
};

/*
 * Read and validate a truth file. Returns 0 and *out (free with mach_truth_free), or -Exxx with
 * err (may be NULL) holding a message that names the file: -EBADMSG for a damaged, truncated or
 * newer-version file (AX_CORRUPT: err->offset is the offset of the first bad byte, the message
 * says what is wrong there); -ENOENT/-EIO... from the file system; -ENOMEM.
 */
int mach_truth_read(const char *path, struct mach_truth **out, struct ax_error *err);
/* The same from a buffer in memory (not kept); `name` names it in messages. */
int mach_truth_parse(const void *buf, size_t len, const char *name, struct mach_truth **out,
		     struct ax_error *err);
void mach_truth_free(struct mach_truth *t);
/* The record of `pc`, or NULL (binary search). */
const struct mach_truth_pc *mach_truth_find(const struct mach_truth *t, uint64_t pc);
/* The EV6 record of `pc`, or NULL (binary search; NULL too in EV5 files). */
const struct mach_truth_ev6pc *mach_truth_find_ev6(const struct mach_truth *t, uint64_t pc);
/* The wasted-slot record of `pc`, or NULL (binary search; NULL without section 7). */
const struct mach_truth_waste *mach_truth_find_waste(const struct mach_truth *t, uint64_t pc);
/* Count of the edge from -> to (0 if never taken). */
uint64_t mach_truth_edge_count(const struct mach_truth *t, uint64_t from, uint64_t to);

#endif /* MACH_TRUTH_H */
