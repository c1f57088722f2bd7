/* pdb/pdb.h - the profile database: its on-disk format and the pdb_ library for it. */
#ifndef PDB_H
#define PDB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ax_err.h"
#include "hotlist.h"

/*
 * PROFILE DATABASE (DCPI SOSP'97 §4.3: epochs, one file per image and event, compact binary).
 *
 * LAYOUT. A database is a directory:
 *
 *   DIR/lock                    empty; writers hold flock(LOCK_EX) on it for each transaction,
 *                               readers flock(LOCK_SH) from pdb_open to pdb_close (LOCKS)
 *   DIR/format                  text "3\n": the format version that made the database (absent in
 *                               databases made before it; then manifests are optional, MANIFEST)
 *   DIR/journal                 PDB_FT_JOURNAL: a committed transaction not yet applied (UPDATES)
 *   DIR/id                      text: 16 lower-case hex digits and "\n", the database's random
 *                               identity (MERGES), made at creation (or at the first merge of a
 *                               database older than version 2)
 *   DIR/current                 text "N\n": the current epoch (absent: the highest epoch-N)
 *   DIR/epoch-N/                one epoch (N = 1, 2, ...; decimal, no leading zeros)
 *   DIR/quarantine/             damaged files pdb_fsck(PDB_FSCK_REPAIR) moved aside, each with a
 *                               NAME.reason text file (CHECKING); readers never look there
 *   DIR/kernel/KEY/FILE         symbol-only ELF files the daemon writes for kernel images it
 *                               knows by their symbols only (daemon/dmn_lib.h KERNEL IMAGES):
 *                               FILE is vmlinux or MODULE.ko; index entries name them as paths
 *                               (absolute); pdb_merge_db copies those of the source's index
 *                               into the destination's DIR/kernel and indexes the copies
 *   DIR/epoch-N/index           PDB_FT_INDEX: every image of the epoch (key, path, build-id, ...)
 *   DIR/epoch-N/unknown.prof    PDB_FT_UNKNOWN: samples no image claimed, (pid, tid, pc, event)
 *                               -> count
 *   DIR/epoch-N/threads.prof    PDB_FT_THREADS: the threads the samples came from, (pid, tid) ->
 *                               the command names each had (issue 17: report --tid, --comm)
 *   DIR/epoch-N/merged          PDB_FT_ORIGINS: the (database identity, epoch) pairs whose samples
 *                               were merged into this epoch (MERGES)
 *   DIR/epoch-N/manifest        PDB_FT_MANIFEST (version >= 3): the table files each image (and
 *                               "unknown") has in this epoch (MANIFEST)
 *   DIR/epoch-N/<key>/          one image, named by its key (below)
 *       <EVENT>.prof            PDB_FT_SAMPLES: offset -> samples of one event (CYCLES.prof, ...)
 *       values.prof             PDB_FT_VALUES: offset -> destination register + value hotlist
 *       latency.prof            PDB_FT_LATENCY: offset -> loads by level D/S/B/M, latency histogram
 *       conflicts.prof          PDB_FT_CONFLICTS: (load offset, prior image key, prior offset,
 *                               kind) -> count, smallest distance
 *       vcount.prof             PDB_FT_VCOUNT: offset -> times interpreted
 *       profileme.prof          PDB_FT_PROFILEME: offset -> ProfileMe aggregates
 *       tasks.prof              PDB_FT_TASKS: (pid, tid, offset, event) -> samples: the image's
 *                               samples per process and thread (issue 17: report --pid, --tid)
 *       procs.prof              PDB_FT_PROCS: (offset, kind, register) -> hotlist: procedure
 *                               arguments, return values and callers
 *       pmpaths.prof            PDB_FT_PMPATHS: offset -> ProfileMe path-history hotlist and
 *                               paired-partner hotlist
 *       addrs.prof              PDB_FT_ADDRS: (load offset, kind) -> hotlist: effective addresses
 *                               or strides
 *       stacks.prof             PDB_FT_STACKS: (event, stack) -> samples: the call stacks of the
 *                               samples whose pc lies in this image (`record -g`)
 *   Names beginning with '.' are temporary files of a writer (".NAME.tmp.XXXXXX"); readers ignore
 *   them and pdb_open(create) removes the ones a crashed writer left. Readers skip file names they
 *   do not know (a later version's tables). A file exists only when its table is not empty.
 *
 * IMAGE KEYS name an image's directory and stay the same across runs of the same binary:
 *   "b-" + the ELF build-id in lower-case hex (1..PDB_BUILD_ID_MAX bytes), when the image has one:
 *        the same bits give the same key wherever the file lives;
 *   "h-" + 16 hex digits of FNV-1a-64 over path, NUL, size (8 bytes LE), mtime in whole seconds
 *        (8 bytes LE), otherwise: a rebuilt or touched binary gets a new key, as it should, since
 *        its offsets may mean different instructions.
 *   Any key matching [A-Za-z0-9][A-Za-z0-9._-]{0,PDB_KEY_MAX-1} is accepted (pdb_key_is_valid),
 *   except "unknown" (PDB_KEY_UNKNOWN), which names the epoch's unknown profile in pdb_load/store.
 *
 * FILES. Every file is a 48-byte header followed by the stored payload. All integers are
 * little-endian.
 *
 *   OFFSET  SIZE  DESCRIPTION
 *   0       4     magic: the bytes 'A' 'X' 'P' 'D'
 *   4       2     format version: PDB_FORMAT_VERSION (3) when written; readers take
 *                 PDB_FORMAT_OLDEST (1) .. PDB_FORMAT_VERSION (version 1 had no period record
 *                 in PDB_FT_SAMPLES files and no PDB_FT_ORIGINS; versions 1 and 2 had no
 *                 PDB_FL_IDENT and no PDB_FT_MANIFEST; everything else is the same)
 *   6       2     file type: PDB_FT_* (must match the file's name)
 *   8       4     flags: PDB_FL_*; readers refuse unknown bits (and PDB_FL_IDENT before
 *                 version 3, PDB_FL_TID but in PDB_FT_TASKS and PDB_FT_UNKNOWN files)
 *   12      4     event: PDB_EV_* id for PDB_FT_SAMPLES (must match the name), 0 otherwise
 *   16      8     record count, n >= 1
 *   24      8     payload length after decompression, 1 .. PDB_PAYLOAD_MAX (a file with no record
 *                 is not written); equal to the stored length when PDB_FL_ZLIB is clear, and
 *                 never below it (a payload that does not shrink is stored uncompressed)
 *   32      8     stored payload length: exactly the file size - 48
 *   40      4     CRC-32 (zlib crc32()) of the stored payload
 *   44      4     CRC-32 of header bytes 0 .. 43
 *   48      ...   stored payload: a zlib stream (RFC 1950) when PDB_FL_ZLIB is set, else the
 *                 payload itself
 *
 * A reader checks, in this order, and names the file and the offset of the first failure: size
 * >= 48, magic, version, header CRC, type, flags, event, stored length == file size - 48,
 * stored length <= decompressed length <= PDB_PAYLOAD_MAX and <= 1032 x stored length (zlib's
 * best ratio), 1 <= record count <= decompressed length (every record takes at least one byte
 * per column), payload CRC, decompression to exactly the announced length (the buffer grows with
 * the bytes the stream really yields), the identity record (IDENTITY), then every record.
 * Memory stays proportional to what the file really holds.
 *
 * IDENTITY (version >= 3). With PDB_FL_IDENT the payload starts with what the file belongs to:
 * varint epoch (1..PDB_EPOCH_MAX), varint key length (0..PDB_KEY_MAX), the key's bytes (no NUL):
 * the image key for an image's tables, "unknown" for unknown.prof, the empty key for the epoch's
 * own files (index, merged, manifest). The file type and event, checked against the file name,
 * say which table it is. Every file the database writes has one, and every reader of a database
 * checks it against the file's place (epoch-N directory, key directory): a file swapped between
 * two images, or copied from another epoch, is damage ("FILE: ...: the file claims image A,
 * epoch 1, but lies in image B, epoch 1"). Files without one (versions 1 and 2, and those
 * pdb_encode() writes for tools) have nothing to check. The record count excludes it.
 *
 * PAYLOADS. A varint is unsigned LEB128 (7 bits a byte, low group first, at most 10 bytes, the
 * value fitting 64 bits). "Column" means n varints, one per record, stored one after another:
 * the payload is column-major, which zlib compresses best. Records are sorted by their key and
 * keys are unique. An offset column is coded as the first offset, then (offset[i] - offset[i-1]
 * - 1) for strictly increasing columns ("delta1") or (offset[i] - offset[i-1]) for
 * non-decreasing ones ("delta"). With PDB_FL_ALIGN4 every offset/pc column holds values divided
 * by 4 (the writer sets it when all are multiples of 4, as Alpha instruction addresses are).
 * Counts are >= 1 (0 is never stored).
 *
 *   PDB_FT_SAMPLES: columns  offset (delta1, scaled), count; then (version >= 2) the period
 *        record: two varints, samples_p and events2 (PERIODS).
 *   PDB_FT_VCOUNT: columns  offset (delta1, scaled), count.
 *   PDB_FT_PROFILEME: columns  offset (delta1, scaled), then the fields of struct
 *        pdb_profileme in order, one column each (PDB_PME_COLS - 1): status[0..5] (retired;
 *        aborted on a mispredicted path, by a store-load, load-load or other Mbox replay, as
 *        younger than an older trap), events[0..7] (samples with an I-cache miss, ITB miss,
 *        D-cache miss, B-cache miss, DTB miss, taken conditional branch, mispredict, load-store
 *        order replay), lat_sum[0..4] (retired: cycles fetch->map, map->data ready, data
 *        ready->issue, issue->retire ready, retire ready->retire), retire_delay_sum,
 *        hist[0..15] (retired samples by fetch->retire-ready cycles, buckets as latency.prof),
 *        pair_samples, useful, inprog_sum, wsum, samples_p, events2 (the meaning of each at
 *        struct pdb_profileme). Rules (else damage): the status counts sum to >= 1 (the
 *        samples); each event count <= the samples; B-cache misses <= D-cache misses; the
 *        histogram sums to the retired count; useful <= pair_samples <= samples; wsum >=
 *        pair_samples; samples_p <= the samples, samples_p and events2 both 0 or both not, their
 *        mean interval events2 / (2 samples_p) >= 1. Merges add every column.
 *   PDB_FT_LATENCY: columns  offset (delta1, scaled), level[0..4] (loads satisfied in the unknown
 *        level, D-cache, S-cache, B-cache, memory), latency_sum (cycles), hist[0..15] (loads by
 *        latency: bucket 0 = 0 cycles, b = 2^(b-1) .. 2^b - 1, 15 = 2^14 or more; the sampler's
 *        vs_lat_bucket()). The level counts and the histogram sum to the same number >= 1.
 *   PDB_FT_VALUES: columns  offset (delta1, scaled), dest (0..63: 0-31 integer, 32-63 FP
 *        register); then n hotlists, one per record in order, each in hotlist_pack()'s
 *        serialized form (hotlist/hotlist.h, self-delimiting, with its own checksum; version 1 or 2).
 *   PDB_FT_PROCS: the procedure observer's hotlists (vs_abi.h VS_REC_PROC; value-sampling
 *        slides 2 and 12, DCPI's dcpivarg). A key table as in PDB_FT_CONFLICTS (varint k, then k
 *        keys strictly increasing in byte order, length 0 allowed), then columns  offset (delta,
 *        scaled), kind (PDB_PROC_*), reg; then n hotlists, one per record in order, in
 *        hotlist_pack()'s serialized form (version 1 or 2). Records are sorted by (offset, kind,
 *        reg), strictly.
 *        kind ARG: offset is a procedure entry (a call's target), reg 16-21 (a0-a5) or 48-53
 *        (f16-f21), the hotlist of the register's values at entry; RET: offset is a ret
 *        instruction, reg 0 (v0) or 32 (f0), the values it returned (a reader maps the ret to
 *        its procedure); CALLER: offset is a procedure entry, reg 26, the hotlist of the calling
 *        instructions, each value (i + 1) << 48 | caller offset, i (< k) indexing the key table:
 *        the image holding the call and its offset there (the empty key: not attributed to an
 *        image, the offset is the raw pc), offset < 2^48, not scaled. A hotlist's n counts the
 *        entries (calls, rets) interpreted: a procedure's entry count is the n of its CALLER or
 *        of any ARG hotlist. Merges merge the hotlists (hotlist_merge: tau compensation).
 *   PDB_FT_PMPATHS: what ProfileMe's path profiles need (MICRO'97 §5.3; vs_abi.h
 *        VS_REC_PROFILEME `path`, `pair`, `pair_dist`, `pair_lat`). Columns  offset (delta1,
 *        scaled), other; then 2n hotlists in hotlist_pack()'s serialized form (version 1 or 2),
 *        two per record in order: hist, then partners (struct pdb_pmpath). hist holds the global
 *        branch history at fetch of the instruction's samples, values < 2^PDB_PMP_HIST_BITS, its
 *        n the samples (>= 1). partners holds the other instruction of each pair the sample was
 *        in, when it lay in the same image: value PDB_PMP_LATER (bit 63: it was fetched after
 *        this one) | PDB_PMP_CYCLES (bit 62: the distance is the intra-pair fetch latency in
 *        cycles, else in fetched instructions) | distance << 48 (bits 48-61, 0 ..
 *        PDB_PMP_DIST_MAX, >= 1 in instructions) | its offset (bits 0-47, not scaled). other
 *        counts the pairs whose partner lay in another image or none. partners' n + other <=
 *        hist's n. Merges merge the hotlists (hotlist_merge) and add other.
 *   PDB_FT_ADDRS: the address observer's hotlists (vs_abi.h VS_REC_ADDR; issue 20: prefetch
 *        candidates). Columns  offset (delta, scaled), kind (PDB_ADDR_*); then n hotlists, one
 *        per record in order, in hotlist_pack()'s serialized form (version 1 or 2). Records are
 *        sorted by (offset, kind), strictly. offset is a load instruction; kind EA: the hotlist
 *        of the effective addresses it read (raw virtual addresses of the process, not offsets);
 *        STRIDE: of its strides, each the address minus the same load's previous address in the
 *        same interpretation, mod 2^64 (a load's first execution in an interpretation has none,
 *        so the STRIDE n is at most the EA n). Merges merge the hotlists (hotlist_merge).
 *   PDB_FT_STACKS: the sampled call stacks (vs_abi.h VS_REC_STACK; issue 16 item 4, `record
 *        -g`): each distinct (event, flags, stack) with the samples taken with it. A key table as
 *        in PDB_FT_CONFLICTS; then columns  event (< PDB_EV_MAX), flags (0 or PDB_STK_TRUNCATED:
 *        the outermost frames were dropped), depth (0 .. PDB_STK_DEPTH_MAX), count (>= 1); then,
 *        record by record, its depth frames innermost first, each two varints: key index (< k)
 *        and offset (scaled). Frame 0 is the sampled pc (in this image: the stack is stored with
 *        the image of its sample, and counted in that image's <EVENT>.prof too); frame i >= 1 is
 *        the call instruction (bsr, jsr) of the i-th innermost active call, in whatever image
 *        holds it (the empty key: no image of the process held it, the offset is the raw pc).
 *        Offsets are < 2^48. Records are sorted strictly by (event, flags, depth, frames
 *        compared in order by (key index, offset)). A record of depth 0 (flags 0) holds the
 *        event's samples whose stack was not kept because the table was full: a stack new to a
 *        table that holds PDB_STK_MAX stacks of depth >= 1 (all events) adds its count to that
 *        record instead (in the daemon, a merge or a read; a file read back keeps all it has). So the
 *        counts of an event always add up to its stacked samples, merges add counts exactly,
 *        and the stacks kept are exact while the distinct stacks fit the bound; past it, which
 *        ones are kept depends on the order they came in (the first ones). Full stacks are
 *        kept, not caller->callee arcs: arcs would lose the path (exports need whole stacks),
 *        and callers, callees and inclusive counts of any procedure are computed from stacks.
 *   PDB_FT_CONFLICTS: a key table, then columns. Key table: varint k (<= n), then k entries
 *        (varint length 0 .. PDB_KEY_MAX, that many bytes), strictly increasing in byte order;
 *        length 0 is the empty key, meaning the prior access was not attributed to an image and
 *        its offset is the raw pc. Columns  load offset (delta, scaled), key index (< k), prior
 *        offset (scaled), kind (PDB_CNF_*), count, dist_min (>= 1). Records are sorted by
 *        (load offset, key, prior offset, kind), strictly.
 *   PDB_FT_UNKNOWN: columns  pid (delta), [tid,] pc (scaled), event (< PDB_EV_MAX), count;
 *        sorted by (pid, tid, pc, event), strictly. The tid column is there when the header has
 *        PDB_FL_TID (the writer sets it when some row's tid differs from its pid); without it
 *        every row's tid is its pid (files written before threads were kept, ABI 4 streams).
 *   PDB_FT_TASKS (version >= 3): the same columns as PDB_FT_UNKNOWN with the image offset for
 *        the pc: pid (delta), [tid (with PDB_FL_TID),] offset (scaled), event (< PDB_EV_MAX),
 *        count (>= 1); sorted by (pid, tid, offset, event), strictly. Each sample of the image's
 *        <EVENT>.prof files is also counted here under the process and thread that took it
 *        (the sampler's; on the hosted machine the virtual pid and tid, machine/mach_vpid.c),
 *        so a pid's rows add up to its share of them, and its threads' rows to the pid's.
 *        Both tables hold rows of at most PDB_THR_MAX threads with tid != 0: a row of a thread
 *        new to a table that has that many is counted under tid 0 of its process instead (in
 *        the daemon, a merge or a read), so a process's counts stay exact. Tid 0 is no user
 *        thread (Linux's idle task is pid 0, tid 0).
 *   PDB_FT_THREADS (version >= 3; issue 17 item 5): the threads of the epoch's samples and
 *        their command names (vs_abi.h VS_REC_TASK), stored with the unknown profile in the
 *        epoch directory (identity key "unknown"). Columns  pid (delta), tid, flags (0 or
 *        PDB_THR_FORGOT: older names were dropped), names (1 .. PDB_THR_NAMES); then, record by
 *        record, its names oldest first, each a varint length (1 .. PDB_COMM_MAX) and its bytes
 *        (no NUL), distinct within the record: the last is the thread's current name (after an
 *        execve the new program's basename); then one varint, lost: the threads not kept
 *        because the table held PDB_THR_MAX (n <= PDB_THR_MAX, else damage). Records are
 *        sorted by (pid, tid), strictly. A name given to a thread is appended, or moved to the
 *        end when the thread had it before; past PDB_THR_NAMES names the oldest is dropped
 *        (PDB_THR_FORGOT). Merges give each thread of the source its names in order that way
 *        (so the source's current name becomes the current one), OR the flags and add lost
 *        (plus the source's threads that did not fit).
 *   PDB_FT_INDEX: n rows sorted by key, strictly; each row: key (varint length 1..PDB_KEY_MAX,
 *        bytes, a valid key), path (varint length 0..PDB_PATH_MAX, bytes, no NUL), build-id
 *        (varint length 0..PDB_BUILD_ID_MAX, bytes), size, mtime_ns (zigzag: (v << 1) ^ (v >> 63)),
 *        text_size, flags (varint, 0 in versions 1 and 2).
 *   PDB_FT_ORIGINS (version >= 2): columns  identity (delta), epoch (1..PDB_EPOCH_MAX); records
 *        sorted by (identity, epoch), strictly.
 *   PDB_FT_MANIFEST (version >= 3): n rows sorted by key, strictly; each row: key (varint length
 *        1..PDB_KEY_MAX, bytes: a valid key or "unknown"), tables (varint, not 0: bit e for
 *        <EVENT>.prof of event e (e < PDB_EV_MAX), then bits 32 values.prof, 33 latency.prof,
 *        34 conflicts.prof, 35 vcount.prof, 37 profileme.prof, 38 procs.prof, 39 pmpaths.prof,
 *        40 addrs.prof, 41 tasks.prof, 42 stacks.prof, for "unknown" bit 36 unknown.prof and
 *        43 threads.prof, and only those).
 *   Trailing bytes after the last column are damage.
 *
 * PERIODS. A sample stands for "period" events, the period being drawn uniformly from the
 * sampler's [lo, hi] for its event (vs_abi.h), so for lo + hi over 2 events on average. A
 * PDB_FT_SAMPLES file ends with its event's period record: samples_p, how many of its samples
 * came with a known period (<= the file's total of counts), and events2, twice the events they
 * stand for (the sum over those samples of lo + hi; twice, so that it stays an integer). The
 * daemon library adds both with every sample it merges (dmn_lib.h); merges add them up like the
 * counts. Readers take the mean period of the image's samples of that event as
 * events2 / (2 x samples_p): exact when every merged run used one period, and, when runs with
 * different periods were merged, exact for the image's total (samples x mean = the events all
 * runs represent) but a weighted mean for each instruction (each instruction's estimate is its
 * samples x that mean, which is right to the extent that the runs sampled the same program
 * behaviour). samples_p = events2 = 0 means "no stored period" (a version-1 file, or samples
 * added without one, e.g. by a version-1 writer); samples_p < the total means some merged samples
 * came without a period and the mean is that of the others. A record is damage when samples_p
 * exceeds the total, when exactly one of the two is 0, or when the mean is below 1 or above
 * 2^32 - 1. The unknown profile keeps no periods.
 *
 * MERGES. pdb_merge_db() adds one epoch of a source database into an epoch of a destination (or
 * of itself). To refuse a repeated merge, which would count the source's samples twice, every
 * database has a random 64-bit identity (DIR/id) and every epoch a merge record (epoch-N/merged):
 * the (identity, epoch) pairs of every epoch merged into it, directly or through the merge
 * records of what was merged. A merge of S epoch s into D epoch d is refused (-EALREADY) when
 * (S, s) is already in d's record, when (D, d) is in s's record (d was merged into s: merging
 * back counts d's own samples twice), or when the two records share a pair (both already hold
 * the samples of a third epoch); PDB_MERGE_FORCE merges anyway. Then d's record becomes its
 * record + (S, s) + s's record. The new record, every image's tables, the index and the unknown
 * profile are one transaction (UPDATES): a merge that fails or is killed part way leaves d
 * exactly as before (a rerun merges) or exactly as after (a rerun is refused), never half, so a
 * retry never counts samples twice. Samples stored into an epoch after it was merged elsewhere
 * are not told apart: merging it again (forced) adds the old ones twice.
 *
 * MANIFEST (version >= 3). epoch-N/manifest lists, for every key with files in the epoch, which
 * table files it has, so that a reader notices a missing file instead of reading it as no
 * samples: pdb_load() of a key the manifest lists reports each listed file that is not there
 * as damage ("FILE: offset 0: missing: image K: CYCLES.prof listed in epoch-N/manifest but not
 * there"), a listed image whose directory is gone included (pdb_image_list() lists it, so readers
 * ask for it), and pdb_merge_db() checks the source's before it writes anything. Files present
 * but not listed are read (a version-2 writer may have left them so). Every store updates the
 * manifest when the key's set of files changes, in the same transaction as the table files
 * (UPDATES), so it never lists a file that is not there; it is removed when it would be empty.
 * An epoch without one (a database written before version 3) is read without the check and gets
 * one, made from the files present, at its next store. A database made with DIR/format
 * requires them: there an epoch that has table files but no manifest is damage
 * ("epoch-N/manifest: missing: epoch N has profile files but no manifest ..."), so a manifest
 * deleted by hand is noticed; databases made before DIR/format existed (versions 1 and 2, and
 * early version-3 ones) still read without one.
 *
 * UPDATES (TRANSACTIONS). Every update is a transaction, all or nothing for the database: a
 * flush of the daemon library (every image, its index entry and the unknown profile), a
 * pdb_merge_db (MERGES), each one-call pdb_store, pdb_merge_store and pdb_image_add. A
 * transaction (pdb_tx_begin .. pdb_tx_commit) holds DIR/lock exclusively throughout. Each
 * operation writes the new version of each file it changes to ".NAME.tmp.XXXXXX" beside it and
 * fsyncs it, without renaming (directories it needs are made at once; an abort removes the
 * ones it made, and pdb_open(create) removes empty image directories a crash left); reads in
 * the transaction see the staged versions. pdb_tx_commit then:
 *   1. with one file changed: renames it over NAME and fsyncs its directory (that rename is the
 *      commit point; no journal);
 *   2. else writes DIR/journal (below) as ".journal.tmp.XXXXXX", fsyncs it, renames it to
 *      DIR/journal and fsyncs DIR: THE COMMIT POINT;
 *   3. applies the journal: renames each temporary file over its destination, removes the files
 *      to remove, fsyncs every directory touched;
 *   4. removes DIR/journal and fsyncs DIR.
 * A crash or kill -9 before the commit point leaves the old files and some temporary files
 * (removed by the next pdb_open(create)); after it, the journal. RECOVERY: whoever takes the
 * lock next (every writer at the start of a transaction, pdb_open(create), and pdb_open of a
 * reader, which upgrades its lock for this) finds DIR/journal and applies it again, idempotently:
 * a rename whose temporary file is there is done, one whose temporary file is gone while the
 * destination is there was done, and both gone is an error (the journal stays); removals of
 * missing files are done. Then it removes the journal (pdb_recover() does just this). A reader
 * that cannot finish it (no write permission) fails with a message naming the journal and
 * `axprof fsck --repair`. The journal is renamed into place whole, so a damaged one is never
 * the product of a crash: it is reported (-EBADMSG, "... the journal of an interrupted update
 * is damaged, nothing was applied; run `axprof fsck -d DIR --repair`") and nothing is guessed.
 * A new epoch (pdb_epoch_new) is one rename of DIR/current after the mkdir of its directory; an
 * empty epoch directory above the current one that a crash left is reused by the next one.
 *
 * THE JOURNAL (PDB_FT_JOURNAL, version >= 3, no identity record): a file with the common
 * header; record count n >= 1 = operations; the payload is n rows, each:
 *
 *   OFFSET  SIZE  DESCRIPTION
 *   0       v     kind: 1 = rename TMP over PATH, 2 = remove PATH
 *   .       v     PATH length, 1 .. PATH_MAX - 256
 *   .       ...   PATH, relative to DIR ("epoch-3/b-1a2b/CYCLES.prof"): no NUL, no empty, "."
 *                 or ".." component, no leading '/'
 *   .       v     (kind 1) TMP length, as above
 *   .       ...   (kind 1) TMP: a temporary file name (".NAME.tmp.XXXXXX") in PATH's directory
 *
 * (v: a varint.) Each PATH appears once (a later change of a file in one transaction replaces
 * the earlier). Trailing bytes are damage.
 *
 * LOCKS. Writers serialise through DIR/lock, so a daemon and `axprof merge` may update one
 * database together. Readers (pdb_open without create) hold it shared from pdb_open to
 * pdb_close, so they never see part of a transaction, and a transaction waits for them (a
 * long-lived reader delays writers; none of the tools is one) -- until their first update:
 * a handle that writes is a writer from then on and holds the lock only for its transactions. In one process, a handle's
 * exclusive lock releases the shared locks of the process's other handles on the same
 * database for its duration (one thread: they cannot read meanwhile) instead of waiting for
 * them; a reader opened while the process holds the exclusive lock gets its shared lock when
 * that ends. pdb_merge_db of one database's epoch into another of the same database works
 * through this (the list of a process's handles is global: open, use and close handles in one
 * thread). Two processes merging A into B and B into A at once can deadlock (each reader of
 * its source waits for the other's); do not.
 *
 * ERRORS. Functions return 0 or -Exxx (-EBADMSG for a damaged file, -ENOENT for a missing
 * epoch or image, -EINVAL for a bad argument, -ENOMEM, or the errno of a failed system call).
 * A struct pdb_db keeps a message for the last failure: "FILE: offset N: what (pdb_x.c:LINE)"
 * for damage ("decompressed payload offset N" inside a compressed payload), "FILE: operation:
 * strerror" for I/O. The library never prints. One pdb_db or
 * pdb_prof must not be used by two threads at once.
 *
 * USE. The daemon keeps one struct pdb_prof per image it has seen since its last flush, adds
 * what it drains (pdb_prof_add_sample(p, PDB_EV_CYCLES, pc - load_base, count), ...; samples it
 * cannot attribute go to a profile stored under PDB_KEY_UNKNOWN), and at every flush, in one
 * transaction (pdb_tx_begin), registers each image new to the epoch (pdb_image_describe +
 * pdb_image_add) and calls pdb_merge_store(db, epoch, key, p) for each; after pdb_tx_commit it
 * calls pdb_prof_clear(p) (after a failure nothing was stored and the profiles stay). Tools pdb_image_list an epoch, pdb_load an image and walk it
 * with pdb_prof_samples() and friends (arrays sorted by offset).
 */

#define PDB_FORMAT_VERSION 3
#define PDB_FORMAT_OLDEST 1 /* the oldest version readers take */
#define PDB_HEADER_SIZE 48
#define PDB_PAYLOAD_MAX (1ull << 30) /* decompressed payload, bytes */
#define PDB_ZLIB_RATIO_MAX 1032 /* deflate's best ratio (zlib FAQ): no stream inflates more */

#define PDB_KEY_MAX 80 /* characters in an image key, NUL not counted */
#define PDB_PATH_MAX 4095 /* bytes in an image path */
#define PDB_BUILD_ID_MAX 32 /* bytes of a build-id (SHA-1 ones are 20) */
#define PDB_KEY_UNKNOWN "unknown" /* pdb_load/store key of the epoch's unknown profile */
#define PDB_EPOCH_MAX 999999999u

/* File types (header offset 6). */
enum pdb_ftype {
	PDB_FT_SAMPLES = 1,
	PDB_FT_VALUES = 2,
	PDB_FT_LATENCY = 3,
	PDB_FT_CONFLICTS = 4,
	PDB_FT_VCOUNT = 5,
	PDB_FT_UNKNOWN = 6,
	PDB_FT_INDEX = 7,
	PDB_FT_ORIGINS = 8, /* version >= 2 */
	PDB_FT_MANIFEST = 9, /* version >= 3 */
	PDB_FT_JOURNAL = 10, /* version >= 3: DIR/journal (TRANSACTIONS) */
	PDB_FT_PROFILEME = 11, /* version >= 3: profileme.prof */
	PDB_FT_PROCS = 12, /* version >= 3: procs.prof */
	PDB_FT_PMPATHS = 13, /* version >= 3: pmpaths.prof */
	PDB_FT_ADDRS = 14, /* version >= 3: addrs.prof */
	PDB_FT_TASKS = 15, /* version >= 3: tasks.prof */
	PDB_FT_STACKS = 16, /* version >= 3: stacks.prof */
	PDB_FT_THREADS = 17, /* version >= 3: epoch-N/threads.prof */
	PDB_FT_NR,
};

/* Header flags (offset 8). */
#define PDB_FL_ZLIB (1u << 0) /* the stored payload is a zlib stream */
#define PDB_FL_ALIGN4 (1u << 1) /* offset and pc columns hold the values divided by 4 */
#define PDB_FL_IDENT (1u << 2) /* the payload starts with an identity record (version >= 3) */
#define PDB_FL_TID (1u << 3) /* PDB_FT_TASKS, PDB_FT_UNKNOWN: a tid column follows the pid */
#define PDB_FL_KNOWN (PDB_FL_ZLIB | PDB_FL_ALIGN4 | PDB_FL_IDENT | PDB_FL_TID)

/*
 * Events: stable on-disk ids (the header's event field and unknown.prof's event column). Ids
 * PDB_EV_NAMED .. PDB_EV_MAX - 1 are reserved for later events; until named, their files are
 * "EV<id>.prof". The daemon maps the sampler's VS_EV_* onto these.
 */
enum pdb_event {
	PDB_EV_CYCLES = 0, /* processor cycles */
	PDB_EV_RETIRED = 1, /* instructions retired */
	PDB_EV_IMISS = 2, /* instruction-cache misses */
	PDB_EV_DMISS = 3, /* data-cache misses */
	PDB_EV_DTBMISS = 4, /* data TLB misses */
	PDB_EV_ITBMISS = 5, /* instruction TLB misses */
	PDB_EV_BRANCHMP = 6, /* branch mispredictions */
	PDB_EV_REPLAY = 7, /* replay traps (21264) */
	PDB_EV_INVAL = 8, /* coherence: other CPUs' copies a store invalidated (hosted --cpus) */
	PDB_EV_INTERV = 9, /* coherence: misses another CPU's Modified copy supplied */
	PDB_EV_NAMED, /* ids below this have names */
};
#define PDB_EV_MAX 32

/* Conflict kinds (the sampler's VS_CNF_* values). */
enum pdb_cnf_kind {
	PDB_CNF_STORE_LOAD = 1, /* a load overlapped an earlier store */
	PDB_CNF_LOAD_LOAD = 2, /* a load overlapped an earlier load */
};

#define PDB_LAT_LEVELS 5 /* unknown, D-cache, S-cache, B-cache, memory */
#define PDB_LAT_BUCKETS 16

/* Latency summary of one load instruction (the sampler's VS_REC_LATENCY, widened). */
struct pdb_latency {
	uint64_t level[PDB_LAT_LEVELS]; /* loads satisfied at each level */
	uint64_t latency_sum; /* cycles summed over the loads */
	uint64_t hist[PDB_LAT_BUCKETS]; /* loads by latency bucket; sums to the level total */
};

/* ProfileMe aggregates of one instruction (PDB_FT_PROFILEME; vs_abi.h VS_REC_PROFILEME). */
#define PDB_PME_STATUS 6 /* retired, aborted: mispredict, STLD, LDLD, Mbox replay, older trap */
#define PDB_PME_EVENTS 8 /* imiss, itbmiss, dmiss, bcmiss, dtbmiss, taken, mispredict, lso */
#define PDB_PME_LATS 5 /* fetch-map, map-data, data-issue, issue-ready, ready-retire */
#define PDB_PME_BUCKETS 16 /* as PDB_LAT_BUCKETS */
#define PDB_PME_COLS (1 + PDB_PME_STATUS + PDB_PME_EVENTS + PDB_PME_LATS + 1 + PDB_PME_BUCKETS + 6)
struct pdb_profileme {
	uint64_t status[PDB_PME_STATUS]; /* samples by status; they sum to the samples, >= 1 */
	uint64_t events[PDB_PME_EVENTS]; /* samples with each event, each <= the samples */
	uint64_t lat_sum[PDB_PME_LATS]; /* retired samples: cycles in each stage, summed */
	uint64_t retire_delay_sum; /* retired samples: inum retire delay cycles, summed */
	uint64_t hist[PDB_PME_BUCKETS]; /* retired samples by fetch->retire-ready cycles
					 * (vs_lat_bucket); sums to status[0] */
	uint64_t pair_samples; /* samples in a pair (either role), <= the samples */
	uint64_t useful; /* of those, the partner issued while this one was in progress (fetch to
			  * retire ready) and retired: U_I [PM §5.2.3], <= pair_samples */
	uint64_t inprog_sum; /* pair samples: fetch->retire-ready (aborted: fetch->abort) cycles,
			      * summed: L_I */
	uint64_t wsum; /* pair samples: the pair window W each was drawn with, summed */
	uint64_t samples_p, events2; /* as PERIODS: samples with a known interval, and twice the
				      * fetched instructions they stand for (lo + hi each; half
				      * that, rounded up, in a run with pairs: two samples an
				      * interval) */
};

/* Procedure observations (PDB_FT_PROCS; the sampler's VS_PROC_* values). */
enum pdb_proc_kind {
	PDB_PROC_ARG = 1, /* an argument register at entry; reg 16-21, 48-53 */
	PDB_PROC_RET = 2, /* the return register at a ret; reg 0, 32 */
	PDB_PROC_CALLER = 3, /* the calling instruction; reg 26 */
};
#define PDB_PROC_KEY_SHIFT 48 /* caller values: (key id + 1) << 48 | offset */
#define PDB_PROC_OFF_MAX ((1ull << PDB_PROC_KEY_SHIFT) - 1)

/*
 * ProfileMe path history and pair partners of one instruction (PDB_FT_PMPATHS). Partner values
 * (pdb_pmp_partner): LATER | CYCLES | distance << 48 | offset.
 */
#define PDB_PMP_HIST_BITS 12 /* the EV6's global path history (vs_abi.h `path`) */
#define PDB_PMP_M 32 /* capacity of the hotlists the daemon makes [U]: HOTLIST_MAX_M */
#define PDB_PMP_LATER (1ull << 63) /* the partner was fetched after this instruction */
#define PDB_PMP_CYCLES (1ull << 62) /* distance in cycles (fetch latency), not instructions */
#define PDB_PMP_DIST_SHIFT 48
#define PDB_PMP_DIST_MAX 0x3fffu /* distances saturate here */
#define PDB_PMP_OFF_MAX ((1ull << PDB_PMP_DIST_SHIFT) - 1)
struct pdb_pmpath {
	uint64_t other; /* paired samples whose partner lay in another image or none */
	struct hotlist hist; /* history at fetch (< 2^PDB_PMP_HIST_BITS); n = samples, >= 1 */
	struct hotlist partners; /* partner values; n + other <= hist.n */
};
/* One partner: offset in the same image (<= PDB_PMP_OFF_MAX), fetch distance. */
struct pdb_partner {
	uint64_t offset;
	uint32_t dist; /* fetched instructions (>= 1), or cycles when `cycles` */
	bool cycles;
	bool later; /* fetched after the instruction, else before */
};
/* Encode (-EINVAL: offset too large, or distance 0 in instructions; dist saturates). */
int pdb_pmp_partner(const struct pdb_partner *pt, uint64_t *v);
/* Decode a value; -EINVAL when it is not one pdb_pmp_partner() makes. */
int pdb_pmp_partner_decode(uint64_t v, struct pdb_partner *pt);
/* 0 when pp keeps the rules of PDB_FT_PMPATHS, else -EINVAL with *why. */
int pdb_pmpath_check(const struct pdb_pmpath *pp, const char **why);
/* Load address observations (PDB_FT_ADDRS; the sampler's VS_ADDR_* values). */
enum pdb_addr_kind {
	PDB_ADDR_EA = 1, /* effective addresses */
	PDB_ADDR_STRIDE = 2, /* address minus the previous one of the same load */
};

/* Sampled call stacks (PDB_FT_STACKS; vs_abi.h VS_REC_STACK). */
#define PDB_STK_DEPTH_MAX 62 /* frames of a stack: VS_STACK_MAX */
#define PDB_STK_MAX 16384 /* stacks (depth >= 1) a table keeps [U]: ~512 bytes each */
#define PDB_STK_TRUNCATED (1u << 0) /* the outermost frames were dropped (VS_STK_TRUNCATED) */
#define PDB_STK_OFF_MAX ((1ull << 48) - 1)
struct pdb_frame {
	const char *key; /* image key; "" when no image held the pc (offset is the raw pc) */
	uint64_t offset; /* <= PDB_STK_OFF_MAX */
};
struct pdb_stack {
	uint32_t event; /* PDB_EV_* */
	uint32_t flags; /* PDB_STK_* */
	uint32_t depth; /* frames; 0: the event's samples whose stack the full table did not keep */
	uint64_t count;
	struct pdb_frame frame[PDB_STK_DEPTH_MAX]; /* innermost first: frame 0 the sampled pc */
};

/* Threads and their command names (PDB_FT_THREADS; vs_abi.h VS_REC_TASK). */
#define PDB_COMM_MAX 15 /* bytes of a command name: VS_COMM_LEN - 1 (Linux's TASK_COMM_LEN - 1) */
#define PDB_THR_NAMES 8 /* names a thread keeps, its last ones [U]: execve chains are short */
#define PDB_THR_MAX 65536 /* threads a table keeps [U]: ~150 bytes each in memory */
#define PDB_THR_FORGOT (1u << 0) /* the thread had more names than PDB_THR_NAMES: oldest dropped */
struct pdb_thread {
	uint32_t pid;
	uint32_t tid;
	uint32_t flags; /* PDB_THR_* */
	uint32_t nnames; /* 1 .. PDB_THR_NAMES */
	char name[PDB_THR_NAMES][PDB_COMM_MAX + 1]; /* oldest first; name[nnames - 1] the current */
};

/* One image of an epoch's index. */
struct pdb_image {
	char key[PDB_KEY_MAX + 1]; /* directory name, NUL-terminated */
	const char *path; /* absolute path ("" when not known); owned by whoever filled this */
	uint8_t build_id[PDB_BUILD_ID_MAX];
	uint32_t build_id_len; /* 0: none */
	uint32_t flags; /* PDB_IMG_* (not stored: set by pdb_image_list) */
	uint64_t size; /* file size, bytes */
	int64_t mtime_ns; /* modification time, ns since 1970 */
	uint64_t text_size; /* bytes in executable sections */
};
#define PDB_IMG_INDEXED (1u << 0) /* listed in the index */
#define PDB_IMG_HAS_DIR (1u << 1) /* has a profile directory */

/* Failures are reported in a struct ax_error (ax_err.h); struct pdb_db keeps the last one. */

struct pdb_db;
struct pdb_prof;

/* --- events and keys (pdb_name.c) --- */

/* "CYCLES", ...; "EV<id>" for a reserved id; NULL for id >= PDB_EV_MAX. */
const char *pdb_event_name(unsigned int event);
/* The id of a name pdb_event_name() returns (exact match), or -EINVAL. */
int pdb_event_id(const char *name);

bool pdb_key_is_valid(const char *key);

/*
 * The image key (see KEYS above) into key[PDB_KEY_MAX + 1]: from the build-id when build_id_len
 * is 1..PDB_BUILD_ID_MAX, else from path, size and mtime. 0 or -EINVAL.
 */
int pdb_image_key(char *key, const uint8_t *build_id, size_t build_id_len, const char *path,
		  uint64_t size, int64_t mtime_ns);

/*
 * Describe the file at path for the index: size, mtime, ELF build-id and executable-section size
 * (0 and no build-id when the file is not ELF), and its key. img->path = path (not copied).
 */
int pdb_image_describe(const char *path, struct pdb_image *img, struct ax_error *err);

/* --- in-memory profiles (pdb_prof.c): hash maps from offset, counts in u64, saturating --- */

struct pdb_prof *pdb_prof_new(void); /* NULL when out of memory */
void pdb_prof_free(struct pdb_prof *p);
void pdb_prof_clear(struct pdb_prof *p); /* empty every table, keep the memory */
bool pdb_prof_is_empty(const struct pdb_prof *p);

/* count 0 is a no-op. -EINVAL for event >= PDB_EV_MAX. */
int pdb_prof_add_sample(struct pdb_prof *p, unsigned int event, uint64_t offset, uint64_t count);
/* Merge h (validated) into offset's hotlist (a copy when there is none). dest: 0..63. */
int pdb_prof_add_hotlist(struct pdb_prof *p, uint64_t offset, unsigned int dest,
			 const struct hotlist *h);
/*
 * pdb_prof_add_hotlist() of a list already validated: hotlist_unpack() gave it or
 * hotlist_validate() accepted it, unchanged since (the daemon: the record check unpacked it).
 * The same result without validating it again.
 */
int pdb_prof_add_hotlist_valid(struct pdb_prof *p, uint64_t offset, unsigned int dest,
			       const struct hotlist *h);
/* Add lat (level and hist sums equal and >= 1, else -EINVAL; -EOVERFLOW past 2^64). */
int pdb_prof_add_latency(struct pdb_prof *p, uint64_t offset, const struct pdb_latency *lat);
/* Add ProfileMe aggregates: -EINVAL when pme breaks the rules of PDB_FT_PROFILEME, -EOVERFLOW. */
int pdb_prof_add_profileme(struct pdb_prof *p, uint64_t offset, const struct pdb_profileme *pme);
/* 0 when pme keeps the rules of PDB_FT_PROFILEME (*samples: its samples), else -EINVAL with
 * *why. */
int pdb_profileme_check(const struct pdb_profileme *pme, uint64_t *samples, const char **why);
/* True when addrs.prof may hold kind (PDB_FT_ADDRS). */
bool pdb_addr_kind_ok(unsigned int kind);
/* Merge h (validated) into the hotlist (offset, kind) (a copy when there is none); -EINVAL for
 * a bad kind or hotlist, -ENOMEM. */
int pdb_prof_add_addr(struct pdb_prof *p, uint64_t offset, unsigned int kind,
		      const struct hotlist *h);
/* True when procs.prof may hold (kind, reg) (PDB_FT_PROCS). */
bool pdb_proc_reg_ok(unsigned int kind, unsigned int reg);
/*
 * Merge h (validated) into the hotlist (offset, kind, reg) (a copy when there is none). For
 * PDB_PROC_CALLER each value must be one pdb_prof_caller_value() gave for p, else -EINVAL.
 */
int pdb_prof_add_proc(struct pdb_prof *p, uint64_t offset, unsigned int kind, unsigned int reg,
		      const struct hotlist *h);
/* Merge pp (checked) into offset's path record (a copy when there is none). */
int pdb_prof_add_pmpath(struct pdb_prof *p, uint64_t offset, const struct pdb_pmpath *pp);
/*
 * One ProfileMe sample of offset (the daemon): history into its history hotlist and, when
 * paired, the partner (NULL: in another image or none, counted in `other`). Lists are made with
 * capacity PDB_PMP_M. 0, -EINVAL (history >= 2^12, bad partner) or -ENOMEM.
 */
int pdb_prof_pmp_sample(struct pdb_prof *p, uint64_t offset, uint32_t history, bool paired,
			const struct pdb_partner *partner);
/* The CALLER hotlist value of a call at off in image key ("": off is a raw pc): 0, -ERANGE
 * (off >= 2^48), -EINVAL (bad key) or -ENOMEM. */
int pdb_prof_caller_value(struct pdb_prof *p, const char *key, uint64_t off, uint64_t *v);
/* The image key ("" when not attributed) and offset of a CALLER value of p; -EINVAL if bad. */
int pdb_prof_caller_decode(const struct pdb_prof *p, uint64_t v, const char **key, uint64_t *off);
/*
 * prior_key: the image key of the earlier access ("" when unattributed: prior_offset is its pc).
 * kind: PDB_CNF_*. count 0 is a no-op. dist_min >= 1; the smaller is kept.
 */
int pdb_prof_add_conflict(struct pdb_prof *p, uint64_t load_offset, const char *prior_key,
			  uint64_t prior_offset, unsigned int kind, uint64_t count,
			  uint32_t dist_min);
int pdb_prof_add_vcount(struct pdb_prof *p, uint64_t offset, uint64_t count);
/* A sample no image claimed (pdb_store it under PDB_KEY_UNKNOWN). */
int pdb_prof_add_unknown(struct pdb_prof *p, uint32_t pid, uint64_t pc, unsigned int event,
			 uint64_t count);
/* dst += src, table by table. On failure dst holds part of src. */
int pdb_prof_merge(struct pdb_prof *dst, const struct pdb_prof *src);

/*
 * PERIODS (see the top of this file): samples of event taken with a sampling period uniform in
 * [lo, hi] (1 <= lo <= hi). The profile keeps, per event, how many samples came with a known
 * period and twice the events they stand for (sum of samples x (lo + hi)); both add up in
 * merges and are stored with the event's samples. -EINVAL for a bad event or period.
 */
struct pdb_period {
	uint64_t samples; /* samples whose period is known */
	uint64_t events2; /* twice the events they represent: sum of samples x (lo + hi) */
};
int pdb_prof_add_period(struct pdb_prof *p, unsigned int event, uint64_t samples, uint32_t lo,
			uint32_t hi);
void pdb_prof_period(const struct pdb_prof *p, unsigned int event, struct pdb_period *out);
/* The mean period of event's samples (events2 / 2 / samples); false when none is stored. */
bool pdb_prof_mean_period(const struct pdb_prof *p, unsigned int event, double *mean);

/* Lookups. */
uint64_t pdb_prof_count(const struct pdb_prof *p, unsigned int event, uint64_t offset);
uint64_t pdb_prof_total(const struct pdb_prof *p, unsigned int event);
uint32_t pdb_prof_events(const struct pdb_prof *p); /* bit e: event e has samples */
size_t pdb_prof_distinct(const struct pdb_prof *p, unsigned int event); /* offsets with samples */

/*
 * Iteration for the tools: each call returns a malloc'd array sorted by offset (*n records; NULL
 * when 0) that the caller free()s. Pointers inside (prior_key) live as long as the profile.
 */
struct pdb_count {
	uint64_t offset;
	uint64_t count;
};
struct pdb_value {
	uint64_t offset;
	uint32_t dest;
	struct hotlist h;
};
struct pdb_lat {
	uint64_t offset;
	struct pdb_latency lat;
};
struct pdb_conflict {
	uint64_t load_offset;
	const char *prior_key;
	uint64_t prior_offset;
	uint64_t count;
	uint32_t kind;
	uint32_t dist_min;
};
struct pdb_unknown {
	uint32_t pid;
	uint32_t tid; /* = pid when the file did not say (no PDB_FL_TID) */
	uint32_t event;
	uint64_t pc;
	uint64_t count;
};
int pdb_prof_samples(const struct pdb_prof *p, unsigned int event, struct pdb_count **out,
		     size_t *n);
int pdb_prof_vcounts(const struct pdb_prof *p, struct pdb_count **out, size_t *n);
int pdb_prof_values(const struct pdb_prof *p, struct pdb_value **out, size_t *n);
int pdb_prof_latencies(const struct pdb_prof *p, struct pdb_lat **out, size_t *n);
struct pdb_pme {
	uint64_t offset;
	struct pdb_profileme pme;
};
/* The ProfileMe table sorted by offset (malloc'd; NULL, 0 when empty). 0 or -ENOMEM. */
int pdb_prof_profileme(const struct pdb_prof *p, struct pdb_pme **out, size_t *n);
int pdb_prof_conflicts(const struct pdb_prof *p, struct pdb_conflict **out, size_t *n);
struct pdb_proc {
	uint64_t offset;
	uint32_t kind; /* PDB_PROC_* */
	uint32_t reg;
	struct hotlist h; /* CALLER: values for pdb_prof_caller_decode() */
};
/* The procs table sorted by (offset, kind, reg) (malloc'd; NULL, 0 when empty). */
int pdb_prof_procs(const struct pdb_prof *p, struct pdb_proc **out, size_t *n);
struct pdb_pmp {
	uint64_t offset;
	struct pdb_pmpath pp;
};
/* The pmpaths table sorted by offset (malloc'd; NULL, 0 when empty). 0 or -ENOMEM. */
int pdb_prof_pmpaths(const struct pdb_prof *p, struct pdb_pmp **out, size_t *n);
struct pdb_addr {
	uint64_t offset; /* of the load */
	uint32_t kind; /* PDB_ADDR_* */
	struct hotlist h;
};
/* The addrs table sorted by (offset, kind) (malloc'd; NULL, 0 when empty). 0 or -ENOMEM. */
int pdb_prof_addrs(const struct pdb_prof *p, struct pdb_addr **out, size_t *n);
int pdb_prof_unknowns(const struct pdb_prof *p, struct pdb_unknown **out, size_t *n);
/* Samples per process and thread (PDB_FT_TASKS): `count` samples of `event` at image `offset`
 * taken in thread `tid` of process `pid` (_add_task: tid = pid). Add: -EINVAL for an event >=
 * PDB_EV_MAX, -ENOMEM. */
struct pdb_task {
	uint32_t pid;
	uint32_t tid;
	uint32_t event;
	uint64_t offset;
	uint64_t count;
};
int pdb_prof_add_task(struct pdb_prof *p, uint32_t pid, uint64_t offset, unsigned int event,
		      uint64_t count);
int pdb_prof_add_task_tid(struct pdb_prof *p, uint32_t pid, uint32_t tid, uint64_t offset,
			  unsigned int event, uint64_t count);
/* The tasks table sorted by (pid, tid, offset, event) (malloc'd; NULL, 0 when empty). */
int pdb_prof_tasks(const struct pdb_prof *p, struct pdb_task **out, size_t *n);
/* A sample no image claimed, with its thread (pdb_prof_add_unknown: tid = pid). */
int pdb_prof_add_unknown_tid(struct pdb_prof *p, uint32_t pid, uint32_t tid, uint64_t pc,
			     unsigned int event, uint64_t count);
/*
 * Thread tid of process pid was named comm[0..len) (PDB_FT_THREADS; store it under
 * PDB_KEY_UNKNOWN): appended to its names, or moved to their end when it had it. A thread new to
 * a table of PDB_THR_MAX threads is not kept (counted: pdb_prof_threads_lost). 0, -EINVAL (len
 * 0 or above PDB_COMM_MAX, a NUL in it) or -ENOMEM.
 */
int pdb_prof_add_thread(struct pdb_prof *p, uint32_t pid, uint32_t tid, const char *comm,
			size_t len);
/* The threads table sorted by (pid, tid) (malloc'd; NULL, 0 when empty). */
int pdb_prof_threads(const struct pdb_prof *p, struct pdb_thread **out, size_t *n);
/* Threads not kept because the table was full. */
uint64_t pdb_prof_threads_lost(const struct pdb_prof *p);
/*
 * Add count samples of event taken with the stack f[0..depth) (PDB_FT_STACKS; depth 0: samples
 * whose stack is not known). A new stack when the table holds PDB_STK_MAX goes to the event's
 * depth-0 record. count 0 is a no-op. 0, -EINVAL (bad event, flags, depth or key), -ERANGE (an
 * offset past PDB_STK_OFF_MAX) or -ENOMEM.
 */
int pdb_prof_add_stack(struct pdb_prof *p, unsigned int event, unsigned int flags,
		       const struct pdb_frame *f, unsigned int depth, uint64_t count);
/* The stacks table in file order (malloc'd; NULL, 0 when empty); keys live with the profile. */
int pdb_prof_stacks(const struct pdb_prof *p, struct pdb_stack **out, size_t *n);

/* --- the database (pdb_db.c) --- */

/*
 * Open the database in dir. create: make dir (one level) and epoch 1 when there is no epoch, and
 * remove temporary files left by crashed writers. On failure *dbp = NULL and err (may be NULL)
 * says why.
 */
int pdb_open(const char *dir, bool create, struct pdb_db **dbp, struct ax_error *err);
void pdb_close(struct pdb_db *db);
const char *pdb_errmsg(const struct pdb_db *db); /* the last failure's message ("" if none) */
const struct ax_error *pdb_last_error(const struct pdb_db *db);
const char *pdb_dir(const struct pdb_db *db);

int pdb_epoch_current(struct pdb_db *db, uint32_t *epoch);
int pdb_epoch_new(struct pdb_db *db, uint32_t *epoch); /* make epoch max+1 the current one */
int pdb_epoch_list(struct pdb_db *db, uint32_t **epochs, size_t *n); /* ascending; free() */

/* The database's identity (DIR/id; made, under the lock, when missing). */
int pdb_identity(struct pdb_db *db, uint64_t *id);

/* One epoch whose samples an epoch holds through merges (MERGES). */
struct pdb_origin {
	uint64_t id; /* identity of its database */
	uint32_t epoch;
};
/* The epoch's merge record, sorted (free()); none (NULL, 0) when nothing was merged into it. */
int pdb_origins(struct pdb_db *db, uint32_t epoch, struct pdb_origin **list, size_t *n);

/* Add or replace key's index entry (no write when it is already there, identical). */
int pdb_image_add(struct pdb_db *db, uint32_t epoch, const struct pdb_image *img);
/*
 * The epoch's images sorted by key: the index entries plus any profile directory the index lacks
 * (path "" then). Free with pdb_image_list_free().
 */
int pdb_image_list(struct pdb_db *db, uint32_t epoch, struct pdb_image **list, size_t *n);
void pdb_image_list_free(struct pdb_image *list, size_t n);

/*
 * Load key's profile (PDB_KEY_UNKNOWN: the unknown profile). -ENOENT for a missing epoch or image
 * directory; the unknown profile of an existing epoch without unknown.prof loads empty.
 */
int pdb_load(struct pdb_db *db, uint32_t epoch, const char *key, struct pdb_prof **profp);
/*
 * Replace key's profile by prof (files of empty tables are removed). This, pdb_merge_store and
 * pdb_image_add are each a transaction of their own, or join the one in progress on db.
 */
int pdb_store(struct pdb_db *db, uint32_t epoch, const char *key, const struct pdb_prof *prof);
/* Add prof to key's profile: rewrites only the files of prof's non-empty tables. */
int pdb_merge_store(struct pdb_db *db, uint32_t epoch, const char *key,
		    const struct pdb_prof *prof);
/*
 * Add every profile, index entry and the unknown profile of src's src_epoch into dst's dst_epoch
 * (created if missing), and record the merge (MERGES), all in one transaction (UPDATES).
 * Merging an epoch into itself is -EINVAL; a repeated merge -EALREADY (the message names what
 * was merged before) unless flags has PDB_MERGE_FORCE. Errors are reported on dst (messages for
 * src's files too).
 */
#define PDB_MERGE_FORCE (1u << 0)
int pdb_merge_db(struct pdb_db *dst, uint32_t dst_epoch, struct pdb_db *src, uint32_t src_epoch,
		 unsigned int flags);

/*
 * TRANSACTIONS (see the top of this file): several updates of one database, all or nothing.
 * pdb_tx_begin takes DIR/lock exclusively (finishing an interrupted transaction first) until
 * the commit or the abort. While it is in progress, pdb_store, pdb_merge_store and
 * pdb_image_add on db join it (their pdb_tx_ forms say so explicitly) and reads through db
 * (pdb_load, pdb_image_list, ...) see what it staged. A failed operation poisons it: commit then
 * aborts and returns that failure. pdb_tx_commit and pdb_tx_abort end it (and free tx); after
 * a failed commit the database holds the state before, or (when the message says the update
 * was committed) the state after, which the next writer or reader finishes.
 */
struct pdb_tx;
int pdb_tx_begin(struct pdb_db *db, struct pdb_tx **txp);
int pdb_tx_store(struct pdb_tx *tx, uint32_t epoch, const char *key, const struct pdb_prof *prof);
int pdb_tx_merge_store(struct pdb_tx *tx, uint32_t epoch, const char *key,
		       const struct pdb_prof *prof);
int pdb_tx_image_add(struct pdb_tx *tx, uint32_t epoch, const struct pdb_image *img);
int pdb_tx_commit(struct pdb_tx *tx);
void pdb_tx_abort(struct pdb_tx *tx);
/*
 * Did db's last transaction pass its commit point? False from pdb_tx_begin on (and after its
 * failure), true after a successful pdb_tx_commit and after a commit that failed later (an
 * fsync after the rename, applying the journal): the update is then in the database (the next
 * writer or reader finishes it) and must not be made again.
 */
bool pdb_tx_committed(const struct pdb_db *db);
/*
 * Finish an interrupted transaction: apply DIR/journal (idempotently) and remove it; 0 when
 * there is none. -EBADMSG (and nothing changed) when the journal is damaged.
 */
int pdb_recover(struct pdb_db *db);

/* --- reading around damage (pdb_skip.c) and checking a database (pdb_fsck.c) --- */

/* One damaged file a reader skipped: its path and the message that says why. */
struct pdb_skip {
	char *file;
	char *why; /* the library's message ("FILE: offset N: what (pdb_x.c:LINE)") */
};
struct pdb_skips {
	struct pdb_skip *v;
	size_t n;
};
void pdb_skips_free(struct pdb_skips *s); /* frees the entries; s itself may be reused */
/* Append (file, why) to s unless file is there already. 0 or -ENOMEM. */
int pdb_skips_add(struct pdb_skips *s, const char *file, const char *why);

/*
 * pdb_load() and pdb_image_list() that, with PDB_LOAD_SKIP_DAMAGED, go on past damage: a damaged
 * or unreadable (EIO, EACCES, EPERM) or, by the manifest, missing table file is left out and the image keeps its other tables; a
 * damaged index or manifest leaves the images found from the directories (and the manifest or
 * index that reads), their paths unknown. Each damaged file is appended once to *skipped with
 * the message pdb_load would have failed with. Without the flag they are pdb_load/pdb_image_list.
 * Errors other than damage (-ENOMEM, I/O) still fail.
 */
#define PDB_LOAD_SKIP_DAMAGED (1u << 0)
int pdb_load_opt(struct pdb_db *db, uint32_t epoch, const char *key, unsigned int flags,
		 struct pdb_prof **profp, struct pdb_skips *skipped);
int pdb_image_list_opt(struct pdb_db *db, uint32_t epoch, unsigned int flags,
		       struct pdb_image **listp, size_t *np, struct pdb_skips *skipped);
/*
 * pdb_merge_db() that, with PDB_MERGE_SKIP_DAMAGED, merges what reads of the source and appends
 * what it did not merge to *skipped. The merge is recorded all the same (MERGES): the skipped
 * samples cannot be merged later without PDB_MERGE_FORCE.
 */
#define PDB_MERGE_SKIP_DAMAGED (1u << 1)
int pdb_merge_db_opt(struct pdb_db *dst, uint32_t dst_epoch, struct pdb_db *src, uint32_t src_epoch,
		     unsigned int flags, struct pdb_skips *skipped);

/*
 * CHECKING (pdb_fsck.c). pdb_fsck() reads every file of the database (epoch 0) or of one epoch:
 * DIR/id and DIR/current, each epoch's index, merge record, manifest, unknown profile and every
 * image's table files (headers, CRCs, identity against their place, every record), the manifest
 * against the files, the image directories against the index, and lists each problem. With
 * PDB_FSCK_REPAIR, under the database lock, every damaged file and stray temporary file is moved
 * (renamed, never deleted) to DIR/quarantine/[epoch-N/[KEY/]]NAME with NAME.reason beside it
 * (the file's path and the problem), and an epoch's manifest is made again from the files then
 * present when it was damaged or disagreed with them: afterwards the database reads without
 * --skip-damaged. Each step is crash-safe (reason file by temp + rename, then the rename of the
 * file, directory fsyncs); a crash leaves what a second run finds and finishes.
 */
enum pdb_fsck_kind {
	PDB_FSCK_DAMAGED, /* a file that does not read (quarantined by repair) */
	PDB_FSCK_MISSING, /* listed in the manifest, not there (repair rewrites the manifest) */
	PDB_FSCK_STRAY, /* a writer's temporary file (quarantined by repair) */
	PDB_FSCK_NOTE, /* readers cope (unknown name, unlisted file, unindexed image): not damage */
};
struct pdb_problem {
	enum pdb_fsck_kind kind;
	uint32_t epoch; /* 0: the database's own files */
	char key[PDB_KEY_MAX + 1]; /* the image, "unknown", or "" */
	char *file;
	char *why; /* the library's message without the leading file name */
	bool repaired;
	char *moved_to; /* the quarantined copy (repair), else NULL */
};
struct pdb_fsck {
	struct pdb_problem *v;
	size_t n;
	size_t damaged; /* problems that are not PDB_FSCK_NOTE */
	size_t files; /* files read */
	uint32_t *epochs; /* the epochs checked */
	size_t nepochs;
	unsigned int manifests_rewritten;
};
#define PDB_FSCK_REPAIR (1u << 0)
int pdb_fsck(struct pdb_db *db, uint32_t epoch, unsigned int flags, struct pdb_fsck *r);
void pdb_fsck_free(struct pdb_fsck *r);

/* --- files in memory (pdb_file.c): for tools, the fuzzer and tests --- */

/*
 * Encode the table of p selected by type (and event for PDB_FT_SAMPLES) as a whole file into a
 * malloc'd buffer. -ENODATA when that table is empty.
 */
int pdb_encode(const struct pdb_prof *p, unsigned int type, unsigned int event, void **buf,
	       size_t *len);
int pdb_encode_index(const struct pdb_image *list, size_t n, void **buf, size_t *len);
/*
 * Parse a whole profile file (any type but PDB_FT_INDEX) from buf[0..len) and add its records to
 * p. name is used in messages. -EBADMSG (err filled; p may hold part of the file) on damage.
 */
int pdb_parse(const void *buf, size_t len, const char *name, struct pdb_prof *p,
	      struct ax_error *err);
/* Parse an index file into a sorted list (free with pdb_image_list_free). */
int pdb_parse_index(const void *buf, size_t len, const char *name, struct pdb_image **list,
		    size_t *n, struct ax_error *err);
/* A merge record (v sorted strictly, n >= 1) as a whole file; parse one (free() the list). */
int pdb_encode_origins(const struct pdb_origin *v, size_t n, void **buf, size_t *len);
int pdb_parse_origins(const void *buf, size_t len, const char *name, struct pdb_origin **list,
		      size_t *n, struct ax_error *err);

/* --- fault injection (tests only; global, not thread-safe) --- */

enum pdb_op {
	PDB_OP_ALLOC, /* every allocation of the library, zlib's included */
	PDB_OP_OPEN,
	PDB_OP_READ,
	PDB_OP_WRITE,
	PDB_OP_FSYNC,
	PDB_OP_RENAME,
	PDB_OP_MKDIR,
	PDB_OP_UNLINK,
	PDB_OP_NR,
};
/* Called before each operation; a positive errno return makes the operation fail with it. */
typedef int (*pdb_fault_fn)(void *arg, enum pdb_op op, const char *what);
void pdb_set_fault_hook(pdb_fault_fn fn, void *arg);

#endif /* PDB_H */
