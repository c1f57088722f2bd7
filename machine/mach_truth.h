/* machine/mach_truth.h - ground-truth file of the hosted machine: format and reader. */
#ifndef MACH_TRUTH_H
#define MACH_TRUTH_H

#include <stddef.h>
#include <stdint.h>

#include "ax_err.h"

/*
 * The hosted machine's EV5 model (mach_ev5.c) knows exactly what each instruction did: how often
 * it executed, how many cycles it spent at the head of the issue stage and why, which events it
 * caused and where control went. mach_ev5_truth_write() stores that in one file; the analysis
 * reads it back with mach_truth_read() to grade its estimates.
 *
 * FILE FORMAT (version 1). All integers are little-endian, fixed width. Offsets are from the start
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
 * Section MACH_TRUTH_SEC_SUMMARY (1), exactly one record of at least 256 bytes:
 *        0     8  cycles: issue cycle of the last instruction
 *        8     8  instructions retired
 *       16    72  stall cycles by cause, MACH_STALL_NR (9) counters in enum mach_stall order
 *       88    56  event counts, 7 counters in enum mach_event order (CYCLES, RETIRED, IMISS, DMISS,
 *                 DTBMISS, ITBMISS, BRANCHMP)
 *      144    64  model parameters, 16 x u32 in enum mach_truth_param order (0 = unused)
 *      208    48  reserved, zero
 *
 * Section MACH_TRUTH_SEC_PCS (2): one record of at least 136 bytes per executed PC, sorted by PC,
 * PCs strictly increasing:
 *        0     8  pc
 *        8     8  execution count
 *       16     8  head-of-issue cycles: the sum over executions of (this instruction's issue cycle
 *                 minus the previous instruction's issue cycle); CYCLES samples are proportional
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
 * The reader validates everything before it trusts it and reports the first problem as -EBADMSG
 * with the byte offset where it was found; it never reads outside the buffer.
 */

#define MACH_TRUTH_MAGIC "AXPTRUTH"
#define MACH_TRUTH_VERSION 1u
#define MACH_TRUTH_BOM 0x01020304u
#define MACH_TRUTH_HDR_SIZE 64u
#define MACH_TRUTH_SECENT_SIZE 32u
#define MACH_TRUTH_MAX_SECTIONS 64u

enum mach_truth_sec {
	MACH_TRUTH_SEC_SUMMARY = 1,
	MACH_TRUTH_SEC_PCS = 2,
	MACH_TRUTH_SEC_EDGES = 3,
	MACH_TRUTH_SEC_VALUES = 4, /* reserved: value histograms */
};

#define MACH_TRUTH_SUMMARY_SIZE 256u
#define MACH_TRUTH_PC_SIZE 136u
#define MACH_TRUTH_EDGE_SIZE 24u

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

#define MACH_TRUTH_NEVENTS 7 /* MACH_EV_NR as stored in the summary */

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
};

/* A truth file in memory: arrays sorted as in the file. */
struct mach_truth {
	uint32_t version;
	struct mach_truth_summary sum;
	struct mach_truth_pc *pcs;
	size_t npcs;
	struct mach_truth_edge *edges;
	size_t nedges;
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
/* Count of the edge from -> to (0 if never taken). */
uint64_t mach_truth_edge_count(const struct mach_truth *t, uint64_t from, uint64_t to);

#endif /* MACH_TRUTH_H */
