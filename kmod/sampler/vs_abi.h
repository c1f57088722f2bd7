/* kmod/sampler/vs_abi.h - the sampler's driver ABI: drained records, configuration, ioctls. */
#ifndef VS_ABI_H
#define VS_ABI_H

#include "axp_base.h"
#include "hotlist.h"

/*
 * One ABI for the Linux driver (/dev/axprof), the hosted machine's in-process channel and the
 * daemon. Version VS_ABI_VERSION. Every integer is little-endian and naturally aligned; every
 * struct below has exactly the layout of its table (no implicit padding: static asserts at the
 * end of this file). Reserved fields are written as zero and must read as zero.
 *
 * RECORD STREAM
 * A drain (read() on the device, vs_cpu_drain() on the machine) returns a whole number of
 * records, each starting at a multiple of 8 bytes from the start of the data. A record is never
 * split between two reads: a read buffer smaller than VS_REC_MAX may return nothing. Every record
 * starts with the same header, so a reader can skip a type it does not know:
 *
 *   OFFSET  SIZE  DESCRIPTION
 *   0       2     type: VS_REC_*
 *   2       2     length in bytes, this header included: a multiple of 8, 8 .. VS_REC_MAX
 *
 * VS_REC_SAMPLE (1), 24 bytes: one hash-table entry (pid, pc, event) and how many samples it
 * aggregated (DCPI §4.2.1). The same key may appear in many records; a reader adds the counts.
 *   4    4   pid: the interrupted thread, as the Linux kernel's task->pid (version 5: the
 *            thread id; the process's pid for its first thread, so a single-threaded process
 *            reads as before). A VS_REC_TASK earlier in the stream names the thread's process
 *            and command; a thread no TASK record named is taken for its own process (a
 *            version 4 stream). 0 for the idle task / kernel threads as the glue says.
 *   8    8   pc, a multiple of 4
 *   16   4   count, >= 1
 *   20   1   event: VS_EV_*, below VS_EVENT_NR
 *   21   1   flags: exactly one of VS_SF_USER, VS_SF_KERNEL (the mode the pc ran in)
 *   22   2   reserved
 *
 * VS_REC_HOTLIST (2), 24 + packed_len rounded up to 8: the values one instruction wrote to its
 * destination register while interpreted (value-sampling slides 14-15).
 *   4    4   pid
 *   8    8   pc, a multiple of 4
 *   16   4   packed_len: HOTLIST_PACKED_SIZE(0) .. HOTLIST_PACKED_MAX
 *   20   1   dest: 0-30 integer register, 32-62 FP register (AXP_NO_DEST never appears)
 *   21   3   reserved
 *   24   packed_len  a Gibbons-Matias hotlist in the serialized form of hotlist/hotlist.h
 *   ...  0-7 zero bytes of padding to the record length
 *
 * VS_REC_LATENCY (3), 112 bytes: the latencies of one load while interpreted (slides 16-17).
 *   4    4   pid
 *   8    8   pc of the load, a multiple of 4
 *   16   20  level[5]: loads satisfied in AXP_LVL_UNKNOWN, DCACHE, SCACHE, BCACHE, MEMORY order
 *            (the D/S/B/M shares of the slides)
 *   36   4   reserved
 *   40   8   latency_sum: cycles, summed over the loads (the memory operations' acc.latency)
 *   48   64  hist[16]: loads by latency: bucket 0 = 0 cycles, bucket b (1..14) = 2^(b-1) ..
 *            2^b - 1 cycles, bucket 15 = 2^14 cycles or more (vs_lat_bucket())
 *            The level counts and the histogram each sum to the number of loads, >= 1, and
 *            latency_sum lies within the bounds the histogram buckets imply.
 *
 * VS_REC_CONFLICT (4), 32 bytes: an interpreted load overlapped the bytes of an earlier access
 * of the same run (vreplay, slides 18-20): the candidates for a 21264 replay trap.
 *   4    4   pid
 *   8    8   pc of the (later) load, a multiple of 4
 *   16   8   prior_pc: the nearest earlier store (store-load) or load (load-load) whose bytes it
 *            overlapped, a multiple of 4
 *   24   4   count, >= 1
 *   28   1   kind: VS_CNF_STORE_LOAD or VS_CNF_LOAD_LOAD
 *   29   1   reserved
 *   30   2   dist_min: fewest instructions from the earlier access to the load, >= 1
 *
 * VS_REC_VCOUNT (5), 24 bytes: how many times an instruction was interpreted (vreplay's vcount).
 *   4    4   pid
 *   8    8   pc, a multiple of 4
 *   16   4   count, >= 1
 *   20   4   reserved
 *
 * VS_REC_PROFILEME (7), 80 bytes (version 2): one ProfileMe sample, raw (MICRO'97 §4; the EV6
 * machine's model: machine/EV6-MODEL.md, ProfileMe). Not aggregated by the sampler: the daemon
 * aggregates per pc. The two records of a pair are written one after the other, first then second.
 *   4    4   pid
 *   8    8   pc, a multiple of 4 (the fetched pc: bad-path instructions have one too)
 *   16   8   ea: effective address of a load or store, else 0
 *   24   8   target: where a retired branch or jump went, else 0
 *   32   20  lat[5]: cycles fetch->map, map->data ready, data ready->issue, issue->retire ready,
 *            retire ready->retire (VS_PME_L_*); all 0 unless retired
 *   52   4   span: cycles from fetch to retire (retired: the sum of lat[]) or to the abort
 *            (0: unknown)
 *   56   4   retire_delay: inum retire delay, cycles it was the oldest not retired (0 unless
 *            retired)
 *   60   4   pair_lat: second of a pair: its fetch cycle minus the first's (signed), else 0
 *   64   2   path: global branch history at fetch, 12 bits (bits 12-15 zero)
 *   66   2   events: VS_PME_E_* (no other bit)
 *   68   1   status: VS_PME_RETIRED or the abort reason VS_PME_AB_*
 *   69   1   pair: 0 single, 1 first of a pair, 2 second of a pair
 *   70   2   pair_dist: second of a pair: fetch distance from the first, 1 .. VS_PME_W_MAX; else 0
 *   72   1   flags: exactly one of VS_SF_USER, VS_SF_KERNEL
 *   73   7   reserved
 *
 * VS_REC_PROC (8), 24 + packed_len rounded up to 8 (version 3): a procedure-entry or return
 * observation (value-sampling slides 2 and 12: "a function is always evaluated at zero", "PC of
 * calling procedure"; DCPI's dcpivarg). Gathered when an interpretation executes a call (bsr, jsr:
 * the argument registers are the callee's at its first instruction, which the call does not
 * change) or a ret. The same layout as VS_REC_HOTLIST:
 *   4    4   pid
 *   8    8   pc: VS_PROC_ARG, VS_PROC_CALLER: the procedure's entry (the call's target);
 *            VS_PROC_RET: the pc of the ret (a reader maps it to its procedure with the symbols)
 *   16   4   packed_len: HOTLIST_PACKED_SIZE(0) .. HOTLIST_PACKED_MAX
 *   20   1   kind: VS_PROC_ARG, VS_PROC_RET or VS_PROC_CALLER
 *   21   1   reg: ARG: 16-21 (a0-a5) or 48-53 (f16-f21); RET: 0 (v0) or 32 (f0); CALLER: 26 (ra)
 *   22   2   reserved
 *   24   packed_len  the hotlist of the register's values (CALLER: of the call instruction's pc,
 *            i.e. ra - 4), in the serialized form of hotlist/hotlist.h
 *   ...  0-7 zero bytes of padding to the record length
 *
 * VS_REC_ADDR (9), 24 + packed_len rounded up to 8 (version 4): the effective addresses one load
 * read while interpreted, or the strides between them (issue 20: prefetch candidates; the
 * value-sampling slides' "find semi-invariant values for prefetching", slide 2). Gathered with
 * VS_GATHER_ADDRS. The stride of an execution is its address minus the address the same load
 * read last in the same interpretation (mod 2^64: a negative stride is its two's complement); a
 * load's first execution in an interpretation has no stride. The same layout as VS_REC_HOTLIST:
 *   4    4   pid
 *   8    8   pc of the load, a multiple of 4
 *   16   4   packed_len: HOTLIST_PACKED_SIZE(0) .. HOTLIST_PACKED_MAX
 *   20   1   kind: VS_ADDR_EA (the hotlist of addresses) or VS_ADDR_STRIDE (of strides)
 *   21   3   reserved
 *   24   packed_len  the hotlist, in the serialized form of hotlist/hotlist.h
 *   ...  0-7 zero bytes of padding to the record length
 *
 * VS_REC_STACK (10), 16 + 8 * depth bytes (version 4): the call stack of samples (`axprof record
 * -g`), produced by the hosted machine's glue only (it keeps an exact shadow call stack per
 * guest thread from the calls and rets it executes: machine/mach_stack.c); the Linux driver has
 * no stacks. The same (pid, event, stack) may appear in many records; a reader adds the counts.
 *   4    4   pid
 *   8    4   count, >= 1: samples taken with this stack
 *   12   1   event: VS_EV_*, below VS_EVENT_NR
 *   13   1   flags: VS_STK_TRUNCATED (more than VS_STACK_MAX frames: the outermost were dropped);
 *            no other bit
 *   14   2   depth: 1 .. VS_STACK_MAX frames follow
 *   16   8*depth  pc[depth]: pc[0] the sampled pc; pc[i] (i >= 1) the pc of the call instruction
 *            (bsr, jsr) of the i-th innermost call still active, each a multiple of 4
 *
 * VS_REC_TASK (11), 32 bytes (version 5): which process a thread id of the stream belongs to
 * and its command name (issue 17: report --tid / --comm). The glue calls vs_task() before each
 * vs_sample() of a user thread; the record is written into the sample buffers when this CPU
 * has not yet written this (pid, tid, comm) (a small per-CPU cache: VS_TASK_CACHE), so it
 * comes before every VS_REC_SAMPLE of the thread taken on this CPU, and again after execve or
 * prctl(PR_SET_NAME) change the command. Thread ids are unique within a stream.
 *   4    4   pid: the process (Linux's tgid), >= 1
 *   8    4   tid: the thread (Linux's task->pid, the pid of VS_REC_SAMPLE), >= 1
 *   12   4   reserved
 *   16   16  comm: the command name (Linux's task->comm: the basename of the executed file
 *            or the name the thread set), 1 .. 15 bytes, NUL-padded to 16 (no byte after
 *            the first NUL is set)
 *
 * VS_REC_STATS (6), 8 + sizeof(struct vs_stats) = 512 bytes: one CPU's counters, cumulative since
 * the sampler was configured (a reader takes differences). Produced on request
 * (vs_cpu_stats_record()), never stored in the overflow buffers.
 *   4    4   cpu
 *   8    504 struct vs_stats: 63 counters of 8 bytes, in the order of its declaration below
 *            (version 3: records[] has 16 slots)
 *
 * CONFIGURATION (struct vs_config, 160 bytes; VS_IOC_SET_CONFIG / VS_IOC_GET_CONFIG)
 *   0    4   abi_version: VS_ABI_VERSION
 *   4    4   size: sizeof(struct vs_config)
 *   8    4   mode: VS_MODE_*
 *   12   4   events: bit e set = arm event e (VS_EV_*); at least one (PROFILEME: may be none)
 *   16   4   gather: VS_GATHER_* (what an interpretation records)
 *   20   4   interp_events: samples of these events (a subset of events) may interpret
 *   24   4   interp_num   } a user-mode sample of an interp_event starts an interpretation
 *   28   4   interp_den   } with probability interp_num / interp_den (num <= den, den >= 1)
 *   32   4   interp_budget: instructions per interpretation, 1 .. VS_BUDGET_MAX
 *   36   4   hotlist_m: hotlist capacity, HOTLIST_MIN_M .. HOTLIST_MAX_M
 *   40   4   hash_buckets: a power of two, VS_HASH_MIN_BUCKETS .. VS_HASH_MAX_BUCKETS
 *   44   4   buf_bytes: bytes in each overflow buffer, a multiple of 8, VS_BUF_MIN .. VS_BUF_MAX
 *   48   4   hot_entries  } capacity of the per-CPU observer tables (hotlists, latencies,
 *                          (hot_entries also sizes the address table: version 4)
 *   52   4   lat_entries  } conflicts, vcounts): a power of two, VS_TAB_MIN .. VS_TAB_MAX;
 *   56   4   cnf_entries  } checked (and memory given) only when the matching gather flag is
 *   60   4   vc_entries   } set and the mode interprets
 *   64   8   seed: period / share / hotlist randomisation (each CPU mixes in its number)
 *   72   64  period[8]: { lo, hi } per event, 4 bytes each: the next period is uniform in
 *            [lo, hi] (in units of the event; 1 <= lo <= hi, hi - lo < VS_PERIOD_SPREAD_MAX)
 *   136  8   pme_period: { lo, hi } (version 2), PROFILEME mode: fetched instructions between
 *            samples (pairs), uniform in [lo, hi]; lo > pme_window + VS_PME_GAP (one pair in
 *            flight), hi - lo < VS_PERIOD_SPREAD_MAX. Not looked at in other modes.
 *   144  4   pme_window: W, the second of a pair at a fetch distance uniform in 1..W
 *            (MICRO'97 §5.2.2; 0: no pairs), <= VS_PME_W_MAX
 *   148  4   proc_entries: capacity of the procedure table (version 3; as hot_entries, checked
 *            when VS_GATHER_ARGS or VS_GATHER_CALLERS is set and the mode interprets)
 *   152  4   period_prime (version 4): bit e set = event e's periods are drawn uniformly from
 *            the PRIMES in [period[e].lo, period[e].hi] (SpeedShop's prime overflow intervals;
 *            kmod/sampler/vs_prime.c), which must hold one; bits VS_EVENT_NR.. are zero
 *   156  4   flags (version 5; reserved and zero before): VS_CFG_* below, no other bit.
 *            VS_CFG_KERNEL_VALUES (bit 0, needs a mode that interprets): kernel-mode samples
 *            of the interp_events may interpret too, at the same share and budget (issue 21:
 *            `--kernel-values`). The core only decides; the glue interprets the kernel
 *            WITHOUT side effects and only where it can prove it safe (Linux:
 *            kmod/sampler/linux/vs_drv_kvals.c). A version-4 driver refuses the bit (it
 *            checked the field was zero).
 * PROFILEME needs a platform that delivers ProfileMe records (struct vs_platform.caps,
 * VS_CAP_PROFILEME: the hosted EV6 machine); vs_cpu_init() refuses it elsewhere (-EOPNOTSUPP).
 *
 * INFO (struct vs_info, 16 bytes; VS_IOC_INFO)
 *   0    4   abi_version
 *   4    4   ncpus: CPUs that have sampler state
 *   8    4   rec_max: VS_REC_MAX (the smallest read buffer that always makes progress)
 *   12   4   reserved
 *
 * IOCTLS. The command numbers are built by each side with its own <linux/ioctl.h> (the encoding
 * differs between Alpha and x86): _IOR(VS_IOC_MAGIC, VS_IOC_NR_INFO, struct vs_info),
 * _IOW(.., VS_IOC_NR_SET_CONFIG, struct vs_config), _IOR(.., VS_IOC_NR_GET_CONFIG, struct
 * vs_config), _IO(.., VS_IOC_NR_START), _IO(.., VS_IOC_NR_STOP), _IO(.., VS_IOC_NR_FLUSH) (move
 * every CPU's hash and observer tables into the buffers: the next reads return everything).
 */

/* 2: PROFILEME mode and record, vs_config 152 bytes; 3: VS_REC_PROC, VS_GATHER_ARGS/CALLERS,
 * proc_entries, 16 record slots in vs_stats; 4: VS_REC_ADDR, VS_GATHER_ADDRS (the address table
 * takes hot_entries slots), period_prime (vs_config 160 bytes), VS_REC_STACK; 5: VS_REC_TASK,
 * VS_REC_SAMPLE's pid is the thread's, vs_config's flags (VS_CFG_KERNEL_VALUES) */
#define VS_ABI_VERSION 5

/* Record types. */
enum vs_rec_type {
	VS_REC_SAMPLE = 1,
	VS_REC_HOTLIST = 2,
	VS_REC_LATENCY = 3,
	VS_REC_CONFLICT = 4,
	VS_REC_VCOUNT = 5,
	VS_REC_STATS = 6,
	VS_REC_PROFILEME = 7,
	VS_REC_PROC = 8,
	VS_REC_ADDR = 9,
	VS_REC_STACK = 10,
	VS_REC_TASK = 11,
	VS_REC_NR, /* types below this are known to this version */
};
#define VS_REC_SLOTS 16 /* per-type counters in struct vs_stats */

/* VS_REC_PROC kinds. */
enum vs_proc_kind {
	VS_PROC_ARG = 1, /* an argument register at procedure entry */
	VS_PROC_RET = 2, /* the return value register at a ret */
	VS_PROC_CALLER = 3, /* the calling instruction's pc */
};

/* VS_REC_ADDR kinds. */
enum vs_addr_kind {
	VS_ADDR_EA = 1, /* effective addresses */
	VS_ADDR_STRIDE = 2, /* address minus the same load's previous one in the interpretation */
};

/* Events (DCPI §4.1: CYCLES and IMISS by default in DCPI, others on request). */
enum vs_event {
	VS_EV_CYCLES,
	VS_EV_IMISS,
	VS_EV_DMISS,
	VS_EV_BRANCHMP,
	VS_EV_REPLAYS, /* 21264 replay traps */
	VS_EV_INSNS, /* instructions retired */
	VS_EV_USER6, /* platform-defined (hosted machine: INVAL, coherence invalidations) */
	VS_EV_USER7, /* platform-defined (hosted machine: INTERV, coherence interventions) */
	VS_EVENT_NR,
};

#define VS_SF_USER (1u << 0)
#define VS_SF_KERNEL (1u << 1)

enum vs_cnf_kind {
	VS_CNF_STORE_LOAD = 1,
	VS_CNF_LOAD_LOAD = 2,
};

enum vs_mode {
	VS_MODE_CYCLES, /* sample only */
	VS_MODE_VPROF, /* also interpret a few instructions on a share of user samples */
	VS_MODE_VREPLAY, /* also interpret ~a hundred, comparing load/store addresses */
	VS_MODE_PROFILEME, /* ProfileMe records (version 2; needs VS_CAP_PROFILEME) */
	VS_MODE_NR,
};

#define VS_GATHER_VALUES (1u << 0) /* per-PC hotlists of destination values */
#define VS_GATHER_LATENCY (1u << 1) /* per-load latency levels and histogram */
#define VS_GATHER_CONFLICTS (1u << 2) /* store -> later overlapping load pairs */
#define VS_GATHER_LOADLOAD (1u << 3) /* load -> later overlapping load pairs (needs CONFLICTS) */
#define VS_GATHER_VCOUNT (1u << 4) /* interpreted count per PC */
#define VS_GATHER_ARGS (1u << 5) /* per-procedure a0-a5, f16-f21 at entry; v0, f0 at ret (v3) */
#define VS_GATHER_CALLERS (1u << 6) /* per-procedure caller pcs (v3) */
#define VS_GATHER_ADDRS (1u << 7) /* per-load address and stride hotlists (v4) */
#define VS_GATHER_NR 8

/* struct vs_config.flags. */
#define VS_CFG_KERNEL_VALUES (1u << 0) /* kernel samples may interpret (shadow, in the glue) */
#define VS_CFG_FLAGS VS_CFG_KERNEL_VALUES /* every defined flag */
#define VS_GATHER_ALL 0xffu
/* The observers' names (vs_gather_name[bit]: "values", "latency", ...), for option parsers. */
extern const char *const vs_gather_name[VS_GATHER_NR];

/* ProfileMe (VS_REC_PROFILEME): status, events, latency registers, limits. */
enum vs_pme_status {
	VS_PME_RETIRED,
	VS_PME_AB_MISPREDICT, /* fetched on the bad path of a mispredict */
	VS_PME_AB_STLD, /* replay trap, store-load order */
	VS_PME_AB_LDLD, /* replay trap, load-load order */
	VS_PME_AB_MBOX, /* replay trap, other Mbox */
	VS_PME_AB_TRAP, /* younger than an older instruction's trap */
	VS_PME_NR,
};
#define VS_PME_E_IMISS 0x001u
#define VS_PME_E_ITBMISS 0x002u
#define VS_PME_E_DMISS 0x004u
#define VS_PME_E_BCMISS 0x008u /* D-cache miss served by memory (needs DMISS) */
#define VS_PME_E_DTBMISS 0x010u
#define VS_PME_E_TAKEN 0x020u
#define VS_PME_E_MISPREDICT 0x040u
#define VS_PME_E_LSO 0x080u /* load-store order replay trap */
#define VS_PME_E_ALL 0x0ffu
#define VS_PME_L_NR 5
#define VS_PME_W_MAX 1024
#define VS_PME_GAP 256
#define VS_PME_W_DEFAULT 50 /* MICRO'97 §5.3: 1..50 */

/* What the platform glue can deliver (struct vs_platform.caps). */
#define VS_CAP_PROFILEME (1u << 0)

/* Why something was not recorded (struct vs_stats.drops). Units in brackets. */
enum vs_drop {
	VS_DROP_SAMPLE_BUF, /* [samples] both overflow buffers full: the new sample was dropped */
	VS_DROP_SAMPLE_BAD, /* [samples] event >= VS_EVENT_NR or pc not a multiple of 4 */
	VS_DROP_VALUE_BUF, /* [values] a hotlist had to be evicted and there was no room (value,
			    * procedure and address hotlists) */
	VS_DROP_LATENCY_BUF, /* [loads] same for a latency entry */
	VS_DROP_CONFLICT_BUF, /* [conflicts] same for a conflict entry */
	VS_DROP_VCOUNT_BUF, /* [instructions] same for a vcount entry */
	VS_DROP_PME_BUF, /* [ProfileMe records] both sample buffers full */
	VS_DROP_PME_BAD, /* [ProfileMe records] the glue's record failed the record check */
	VS_DROP_NR,
};
#define VS_DROP_SLOTS 8
#define VS_STOP_SLOTS 16 /* per AXP_STOP_* reason */

/*
 * Per-CPU counters (the body of VS_REC_STATS). Each field is written by one side only: the
 * sample side (vs_sample, hash flush: interrupt context) or the interpretation side
 * (vs_interpret and the observer tables), so the two never race on a counter.
 */
struct vs_stats {
	uint64_t samples; /* offered to vs_sample() */
	uint64_t samples_user;
	uint64_t samples_kernel;
	uint64_t samples_event[VS_EVENT_NR];
	uint64_t hash_hits;
	uint64_t hash_misses; /* new entries (free slot or eviction) */
	uint64_t hash_evictions; /* entries evicted by a miss in a full bucket */
	uint64_t hash_saturations; /* entries evicted because their count reached the maximum */
	uint64_t hash_flushed; /* entries moved out by vs_hash_flush() */
	uint64_t buf_swaps[2]; /* buffers handed to the reader: [0] samples, [1] observer records */
	uint64_t records[VS_REC_SLOTS]; /* records written into the buffers, by type */
	uint64_t drops[VS_DROP_SLOTS]; /* by cause, VS_DROP_* */
	uint64_t interp_decided; /* samples the policy chose to interpret */
	uint64_t interp_guarded; /* user samples refused because an interpretation was running */
	uint64_t interp_started; /* vs_interpret() runs */
	uint64_t interp_busy; /* vs_interpret() refused: already interpreting on this CPU */
	uint64_t interp_insns; /* instructions interpreted */
	uint64_t stops[VS_STOP_SLOTS]; /* runs by stop reason, AXP_STOP_* */
};

struct vs_rec_hdr {
	uint16_t type;
	uint16_t len;
};

struct vs_rec_sample {
	struct vs_rec_hdr h;
	uint32_t pid;
	uint64_t pc;
	uint32_t count;
	uint8_t event;
	uint8_t flags;
	uint16_t reserved;
};

struct vs_rec_hotlist {
	struct vs_rec_hdr h;
	uint32_t pid;
	uint64_t pc;
	uint32_t packed_len;
	uint8_t dest;
	uint8_t reserved[3];
	uint8_t packed[]; /* packed_len bytes, then zero padding */
};

#define VS_LAT_LEVELS 5
#define VS_LAT_BUCKETS 16

struct vs_rec_latency {
	struct vs_rec_hdr h;
	uint32_t pid;
	uint64_t pc;
	uint32_t level[VS_LAT_LEVELS];
	uint32_t reserved;
	uint64_t latency_sum;
	uint32_t hist[VS_LAT_BUCKETS];
};

struct vs_rec_conflict {
	struct vs_rec_hdr h;
	uint32_t pid;
	uint64_t pc;
	uint64_t prior_pc;
	uint32_t count;
	uint8_t kind;
	uint8_t reserved;
	uint16_t dist_min;
};

struct vs_rec_vcount {
	struct vs_rec_hdr h;
	uint32_t pid;
	uint64_t pc;
	uint32_t count;
	uint32_t reserved;
};

struct vs_rec_proc {
	struct vs_rec_hdr h;
	uint32_t pid;
	uint64_t pc;
	uint32_t packed_len;
	uint8_t kind;
	uint8_t reg;
	uint8_t reserved[2];
	uint8_t packed[]; /* packed_len bytes, then zero padding */
};

struct vs_rec_addr {
	struct vs_rec_hdr h;
	uint32_t pid;
	uint64_t pc;
	uint32_t packed_len;
	uint8_t kind;
	uint8_t reserved[3];
	uint8_t packed[]; /* packed_len bytes, then zero padding */
};

struct vs_rec_profileme {
	struct vs_rec_hdr h;
	uint32_t pid;
	uint64_t pc;
	uint64_t ea;
	uint64_t target;
	uint32_t lat[VS_PME_L_NR];
	uint32_t span;
	uint32_t retire_delay;
	int32_t pair_lat;
	uint16_t path;
	uint16_t events;
	uint8_t status;
	uint8_t pair;
	uint16_t pair_dist;
	uint8_t flags;
	uint8_t reserved[7];
};

#define VS_STK_TRUNCATED (1u << 0)
#define VS_STACK_MAX 62 /* frames in a VS_REC_STACK: 16 + 8 * 62 = VS_REC_MAX */

struct vs_rec_stack {
	struct vs_rec_hdr h;
	uint32_t pid;
	uint32_t count;
	uint8_t event;
	uint8_t flags;
	uint16_t depth;
	uint64_t pc[]; /* depth frames, innermost first */
};
#define VS_REC_STACK_SIZE(depth) (sizeof(struct vs_rec_stack) + 8 * (size_t)(depth))

#define VS_COMM_LEN 16 /* Linux's TASK_COMM_LEN */

struct vs_rec_task {
	struct vs_rec_hdr h;
	uint32_t pid;
	uint32_t tid;
	uint32_t reserved;
	char comm[VS_COMM_LEN]; /* NUL-padded, at most 15 bytes of name */
};

struct vs_rec_stats {
	struct vs_rec_hdr h;
	uint32_t cpu;
	struct vs_stats st;
};

struct vs_period {
	uint32_t lo;
	uint32_t hi;
};

struct vs_config {
	uint32_t abi_version;
	uint32_t size;
	uint32_t mode;
	uint32_t events;
	uint32_t gather;
	uint32_t interp_events;
	uint32_t interp_num;
	uint32_t interp_den;
	uint32_t interp_budget;
	uint32_t hotlist_m;
	uint32_t hash_buckets;
	uint32_t buf_bytes;
	uint32_t hot_entries;
	uint32_t lat_entries;
	uint32_t cnf_entries;
	uint32_t vc_entries;
	uint64_t seed;
	struct vs_period period[VS_EVENT_NR];
	struct vs_period pme_period;
	uint32_t pme_window;
	uint32_t proc_entries;
	uint32_t period_prime;
	uint32_t flags; /* VS_CFG_* */
};

struct vs_info {
	uint32_t abi_version;
	uint32_t ncpus;
	uint32_t rec_max;
	uint32_t reserved;
};

#define VS_IOC_MAGIC 0xA7
#define VS_IOC_NR_INFO 1
#define VS_IOC_NR_SET_CONFIG 2
#define VS_IOC_NR_GET_CONFIG 3
#define VS_IOC_NR_START 4
#define VS_IOC_NR_STOP 5
#define VS_IOC_NR_FLUSH 6
#define VS_IOC_NR_STATS 7 /* one STATS record per CPU (kmod/sampler/linux/axprof_ioctl.h) */
#define VS_IOC_NR_GLUE 8 /* the driver's own counters (axprof_ioctl.h) */

/* Limits. */
#define VS_BUDGET_MAX 4096
#define VS_PERIOD_SPREAD_MAX (1u << 20) /* hi - lo below this: bias under 2^-11 (vs_prng.c) */
#define VS_HASH_MIN_BUCKETS 4
#define VS_HASH_MAX_BUCKETS (1u << 20)
#define VS_TAB_MIN 8 /* two sets of four */
#define VS_TAB_MAX (1u << 20)

/* Record sizes. */
#define VS_REC_ALIGN 8
#define VS_REC_ROUND(n) (((n) + VS_REC_ALIGN - 1) & ~(size_t)(VS_REC_ALIGN - 1))
#define VS_REC_HOTLIST_SIZE(packed_len) VS_REC_ROUND(sizeof(struct vs_rec_hotlist) + (packed_len))
#define VS_REC_HOTLIST_MAX VS_REC_HOTLIST_SIZE(HOTLIST_PACKED_MAX)
#define VS_REC_MAX                                                               \
	(VS_REC_HOTLIST_MAX > sizeof(struct vs_rec_stats) ? VS_REC_HOTLIST_MAX : \
							    sizeof(struct vs_rec_stats))
#define VS_BUF_MIN (2 * 512) /* two of the largest records, at least */
#define VS_BUF_MAX (1u << 26)

/* Default periods (DCPI §4.1.1: CYCLES uniform in 60K..64K; ProfileMe's interval in fetched
 * instructions takes the same numbers [U]). */
#define VS_PERIOD_LO_DEFAULT 60000
#define VS_PERIOD_HI_DEFAULT 64000
/*
 * REPLAYS: a 21264 replay trap costs at least 13-14 cycles (HRM Table 2-1), so at 4000-4250 even a
 * program that does nothing else is interrupted no more often than every ~56K cycles, as often as
 * CYCLES sampling at its default; the 20-bit PCTR1 (HRM §6.10) allows it. Our choice [U]: the
 * 64K CYCLES default would leave a replay loop of 50K traps without a single sample.
 */
#define VS_PERIOD_REPLAYS_LO_DEFAULT 4000
#define VS_PERIOD_REPLAYS_HI_DEFAULT 4250

/* Latency histogram bucket of `lat` cycles (see VS_REC_LATENCY). */
static inline unsigned int vs_lat_bucket(uint32_t lat)
{
	unsigned int b = 0;

	while (lat && b < VS_LAT_BUCKETS - 1) {
		lat >>= 1;
		b++;
	}
	return b;
}

/* vprof's default share (1 in VS_VPROF_SHARE_DEN samples) and budget: issue 18, vs_abi.c. */
#define VS_VPROF_SHARE_DEN 32
#define VS_VPROF_BUDGET 8

/*
 * Fill *cfg with the defaults of `mode` (VS_MODE_CYCLES, VPROF, VREPLAY or PROFILEME: no counter,
 * ProfileMe at 60K..64K fetched instructions, pairs with W = 50; vprof interprets 8 instructions
 * on one user CYCLES sample in 32, ~2M cycles at a 62K mean period (value-sampling slide 21 has 4
 * per ~124K: why fewer, vs_abi.c); vreplay 128 per ~8M, one in 129, as slide 21). 0, or -EINVAL
 * for an unknown mode.
 */
int vs_config_default(struct vs_config *cfg, unsigned int mode);

/* 0 if cfg is acceptable; -EINVAL (or -EOPNOTSUPP for a reserved mode) with *why set if not. */
int vs_config_check(const struct vs_config *cfg, const char **why);

/*
 * Validate the record at buf[0..len) without trusting anything in it. Returns its length (> 0,
 * never more than len) when well-formed: a known type whose every field is valid, or an unknown
 * type (>= VS_REC_NR) with a valid length, which the reader skips. Returns -EBADMSG with *why
 * (may be NULL) naming the failed check otherwise.
 */
int vs_abi_check_record(const void *buf, size_t len, const char **why);

/*
 * vs_abi_check_record() that also gives what it unpacked to check a hotlist-carrying record
 * (VS_REC_HOTLIST, VS_REC_PROC, VS_REC_ADDR): when it returns a length for one of those, *h is
 * the record's hotlist, exactly as hotlist_unpack() reads it (a reader merging it decodes it
 * once: the daemon). For other types, or on failure, *h is unspecified.
 */
int vs_abi_check_record_hotlist(const void *buf, size_t len, struct hotlist *h, const char **why);

/* The byte layout above is the ABI: check the compiler agrees. */
#define VS_ABI_ASSERT(e) _Static_assert(e, #e)
VS_ABI_ASSERT(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__);
VS_ABI_ASSERT(sizeof(struct vs_rec_hdr) == 4);
VS_ABI_ASSERT(sizeof(struct vs_rec_sample) == 24);
VS_ABI_ASSERT(__builtin_offsetof(struct vs_rec_sample, count) == 16);
VS_ABI_ASSERT(__builtin_offsetof(struct vs_rec_sample, event) == 20);
VS_ABI_ASSERT(sizeof(struct vs_rec_hotlist) == 24);
VS_ABI_ASSERT(__builtin_offsetof(struct vs_rec_hotlist, dest) == 20);
VS_ABI_ASSERT(sizeof(struct vs_rec_latency) == 112);
VS_ABI_ASSERT(__builtin_offsetof(struct vs_rec_latency, latency_sum) == 40);
VS_ABI_ASSERT(__builtin_offsetof(struct vs_rec_latency, hist) == 48);
VS_ABI_ASSERT(sizeof(struct vs_rec_conflict) == 32);
VS_ABI_ASSERT(__builtin_offsetof(struct vs_rec_conflict, kind) == 28);
VS_ABI_ASSERT(sizeof(struct vs_rec_vcount) == 24);
VS_ABI_ASSERT(sizeof(struct vs_stats) == 63 * 8);
VS_ABI_ASSERT(sizeof(struct vs_rec_stats) == 512);
VS_ABI_ASSERT(sizeof(struct vs_rec_proc) == 24);
VS_ABI_ASSERT(__builtin_offsetof(struct vs_rec_proc, kind) == 20);
VS_ABI_ASSERT(sizeof(struct vs_rec_addr) == 24);
VS_ABI_ASSERT(__builtin_offsetof(struct vs_rec_addr, kind) == 20);
VS_ABI_ASSERT(sizeof(struct vs_config) == 160);
VS_ABI_ASSERT(__builtin_offsetof(struct vs_config, period_prime) == 152);
VS_ABI_ASSERT(__builtin_offsetof(struct vs_config, pme_period) == 136);
VS_ABI_ASSERT(sizeof(struct vs_rec_profileme) == 80);
VS_ABI_ASSERT(__builtin_offsetof(struct vs_rec_profileme, lat) == 32);
VS_ABI_ASSERT(__builtin_offsetof(struct vs_rec_profileme, path) == 64);
VS_ABI_ASSERT(__builtin_offsetof(struct vs_rec_profileme, flags) == 72);
VS_ABI_ASSERT(__builtin_offsetof(struct vs_config, seed) == 64);
VS_ABI_ASSERT(__builtin_offsetof(struct vs_config, period) == 72);
VS_ABI_ASSERT(sizeof(struct vs_info) == 16);
VS_ABI_ASSERT(sizeof(struct vs_rec_stack) == 16);
VS_ABI_ASSERT(__builtin_offsetof(struct vs_rec_stack, depth) == 14);
VS_ABI_ASSERT(VS_REC_STACK_SIZE(VS_STACK_MAX) <= VS_REC_MAX);
VS_ABI_ASSERT(sizeof(struct vs_rec_task) == 32);
VS_ABI_ASSERT(__builtin_offsetof(struct vs_rec_task, comm) == 16);
VS_ABI_ASSERT(VS_REC_MAX == 512);
VS_ABI_ASSERT(VS_BUF_MIN >= 2 * VS_REC_MAX);
VS_ABI_ASSERT(VS_REC_NR <= VS_REC_SLOTS && VS_DROP_NR <= VS_DROP_SLOTS);
VS_ABI_ASSERT(VS_BUDGET_MAX < 65536); /* dist_min fits 16 bits */

#endif /* VS_ABI_H */
