/* machine/mach_mem.h - the hosted machine's Alpha address space: pages, mappings, brk, access. */
#ifndef MACH_MEM_H
#define MACH_MEM_H

#include "axp.h"

/*
 * Layout. The whole Linux/Alpha user address space, 0 .. TASK_SIZE (4 TB, arch/alpha
 * include/asm/processor.h), is one PROT_NONE, MAP_NORESERVE host reservation: Alpha address va
 * lives at host address `host + va`. A mapped Alpha page is host memory mapped (MAP_FIXED) into
 * that reservation; an unmapped one is PROT_NONE again. Permissions are kept in one byte per
 * 8 KB page (`pg[va >> 13]`), so an access is: shift, one byte load, test, host load/store.
 *
 *   pg[] byte:  bit 0 R  bit 1 W  bit 2 X  bit 3 MAPPED  bit 4 SHARED (host MAP_SHARED file)
 *               bit 5 DECODED (the page has a decode-cache page)
 *               bit 6 EOF (a file page wholly past the end of its file: bits 0-2 are clear so
 *               every access faults, and the fault is SIGBUS as on Linux when the protection
 *               kept in eofprot[] allows the access)
 *
 * Decode cache: an executed page gets an array of 2048 decoded instructions, each decoded on
 * first fetch (op AXP_OP_NR marks "not yet"). A store that hits a DECODED page (the store fast
 * path checks the bit) marks the words it wrote undecoded again, so self-modifying code is
 * exact word by word; unmap, mprotect and remap of decoded pages and CALL_PAL imb drop them.
 * A small direct-mapped table (dtlb) maps a page number to its decoded page; its hits do not
 * re-check permissions, so every change of an X page goes through decode_drop().
 *
 * As on Linux/Alpha (protection_map: write pages have no fault-on-read bit), PROT_WRITE implies
 * read. Host pages stay read-write whatever the guest protection (the guest's is enforced in
 * software) except for MAP_SHARED file mappings, whose host protection follows the guest's.
 */
#define MACH_PAGE_SHIFT 13
#define MACH_PAGE_SIZE (1ull << MACH_PAGE_SHIFT)
#define MACH_PAGE_MASK (MACH_PAGE_SIZE - 1)
/* TASK_SIZE: 42-bit user space. A profiling build may shrink it (valgrind cannot reserve 4 TB):
 * build with CFLAGS="-O2 -g -DMACH_TASK_SIZE=0x400000000ull" into a BUILD directory of its own. */
#ifndef MACH_TASK_SIZE
#define MACH_TASK_SIZE 0x40000000000ull
#endif
#define MACH_NPAGES (MACH_TASK_SIZE >> MACH_PAGE_SHIFT)

#define MACH_STACK_TOP 0x120000000ull /* STACK_TOP (processor.h) */
#define MACH_UNMAPPED_BASE (MACH_TASK_SIZE / 2) /* TASK_UNMAPPED_BASE */
#define MACH_ET_DYN_BASE (MACH_UNMAPPED_BASE + 0x1000000) /* ELF_ET_DYN_BASE (asm/elf.h) */
#define MACH_STACK_SIZE (8ull << 20) /* RLIMIT_STACK default: the stack is mapped whole */

#define MACH_PROT_R 0x01u
#define MACH_PROT_W 0x02u
#define MACH_PROT_X 0x04u
#define MACH_PG_MAPPED 0x08u
#define MACH_PG_SHARED 0x10u
#define MACH_PG_DECODED 0x20u
#define MACH_PG_EOF 0x40u

/* Chunks of pages whose pg[] bytes may be non-zero (mach_mem_next_run()'s scan). */
#define MACH_CHUNK_SHIFT 16
#define MACH_NCHUNKS (MACH_NPAGES >> MACH_CHUNK_SHIFT)

/* mach_mem_map() flags (the system-call layer translates Alpha's MAP_* to these). */
#define MACH_MAP_FIXED 0x1u
#define MACH_MAP_NOREPLACE 0x2u /* MAP_FIXED_NOREPLACE */
#define MACH_MAP_SHARED 0x4u

/* mach_mem_remap() flags (MREMAP_*). */
#define MACH_REMAP_MAYMOVE 0x1u
#define MACH_REMAP_FIXED 0x2u

#define MACH_DPAGE_INSNS (MACH_PAGE_SIZE / 4)
#define MACH_DHASH 1024
#define MACH_DTLB 64

struct mach_dpage {
	uint64_t pn; /* page number (va >> 13) */
	struct mach_dpage *next; /* hash chain */
	struct axp_insn insn[MACH_DPAGE_INSNS + 1]; /* the last: insn_page's sentinel (axp.h) */
};

struct mach_mem {
	uint8_t *host; /* host address of Alpha address 0 */
	uint8_t *pg; /* per-page protection bytes, MACH_NPAGES of them */
	uint8_t *eofprot; /* protection of MACH_PG_EOF pages (allocated with the first one) */
	uint8_t used[MACH_NCHUNKS]; /* chunk of pg[] ever given a non-zero byte */
	uint64_t start_brk, brk; /* brk area: [start_brk, PAGE_ALIGN(brk)) */
	uint64_t mapped_pages; /* statistics */
	struct {
		uint64_t pn;
		struct mach_dpage *page;
	} dtlb[MACH_DTLB];
	struct mach_dpage *dhash[MACH_DHASH];
	uint64_t decoded_pages, decode_drops; /* statistics */
	struct axp_direct direct; /* for the executor: host, pg and the fast-path tests */
	/* RPCC's cycle count (NULL: host time at 250 MHz, as qemu-alpha counts). */
	uint64_t (*cycles)(void *priv);
	void *cycles_priv;
};

int mach_mem_new(struct mach_mem **out);
void mach_mem_free(struct mach_mem *m);

/*
 * mmap(): map `len` bytes at `va` (a hint unless MACH_MAP_FIXED) with MACH_PROT_* `prot`, from
 * host file descriptor `fd` at `off` (fd < 0: anonymous zero pages). Placement follows Linux/
 * Alpha's arch_get_unmapped_area (osf_sys.c): the hint if free, else first fit upward from
 * TASK_UNMAPPED_BASE, else first fit upward from the first page. *out gets the address.
 * Returns 0, -EINVAL (alignment, length), -ENOMEM (no room), -EEXIST (NOREPLACE) or a host error.
 */
int mach_mem_map(struct mach_mem *m, uint64_t va, uint64_t len, unsigned int prot,
		 unsigned int flags, int fd, uint64_t off, uint64_t *out);
int mach_mem_unmap(struct mach_mem *m, uint64_t va, uint64_t len);
/* mprotect(): -ENOMEM if any page of the range is unmapped (nothing changed then). */
int mach_mem_protect(struct mach_mem *m, uint64_t va, uint64_t len, unsigned int prot);
int mach_mem_remap(struct mach_mem *m, uint64_t old, uint64_t old_len, uint64_t new_len,
		   unsigned int flags, uint64_t new_va, uint64_t *out);
/* A free range of `len` bytes, searched as mach_mem_map() does; 0 if none. */
uint64_t mach_mem_find_free(const struct mach_mem *m, uint64_t hint, uint64_t len);

/* brk: set the initial break (page aligned end of the program's bss); brk(2) semantics. */
void mach_mem_brk_init(struct mach_mem *m, uint64_t start);
uint64_t mach_mem_brk(struct mach_mem *m, uint64_t newbrk);

/* Is every page of [va, va+len) mapped with all of `prot`? len 0 is true. */
bool mach_mem_range_ok(const struct mach_mem *m, uint64_t va, uint64_t len, unsigned int prot);

/* Host pointer to [va, va+len) if the range has `prot`, else NULL. */
static inline void *mach_mem_ptr(const struct mach_mem *m, uint64_t va, uint64_t len,
				 unsigned int prot)
{
	return mach_mem_range_ok(m, va, len, prot) ? m->host + va : NULL;
}

/* Copy to/from Alpha memory with permission checks (-EFAULT). */
int mach_mem_read(const struct mach_mem *m, uint64_t va, void *dst, uint64_t len);
int mach_mem_write(struct mach_mem *m, uint64_t va, const void *src, uint64_t len);
/* Like mach_mem_write() but needs only MAPPED pages (the loader, the kernel writing a frame). */
int mach_mem_poke(struct mach_mem *m, uint64_t va, const void *src, uint64_t len);
/* A NUL-terminated string of at most `max` bytes (with the NUL) in readable memory: host
 * pointer in *out, or -EFAULT (unreadable) / -ENAMETOOLONG. */
int mach_mem_str(const struct mach_mem *m, uint64_t va, uint64_t max, const char **out);

/* The decoded instruction at va (executable, 4-byte aligned), or NULL with *err = -EFAULT. */
const struct axp_insn *mach_mem_fetch_insn(void *priv, uint64_t va, int *err);
/* Forget decoded instructions in [va, va+len) (CALL_PAL imb: the whole space). */
void mach_mem_code_changed(struct mach_mem *m, uint64_t va, uint64_t len);

/* The guest protection (MACH_PROT_*) of the page holding va, as mmap/mprotect set it, also
 * for a page past the end of its file; 0 if unmapped. */
unsigned int mach_mem_prot(const struct mach_mem *m, uint64_t va);

/* The next run of mapped pages at or above `from` with the same protection, sharing and
 * past-EOF state: [*start, *end) and its MACH_PROT_* | MACH_PG_SHARED in *flags. False when
 * no page is mapped above `from`. */
bool mach_mem_next_run(const struct mach_mem *m, uint64_t from, uint64_t *start, uint64_t *end,
		       unsigned int *flags);

/* Protection byte of the page holding va (0 for addresses outside the space). */
static inline unsigned int mach_mem_page(const struct mach_mem *m, uint64_t va)
{
	return va < MACH_TASK_SIZE ? m->pg[va >> MACH_PAGE_SHIFT] : 0;
}

/* The executor's memory operations; priv is the struct mach_mem. */
extern const struct axp_mem_ops mach_mem_ops;

#endif /* MACH_MEM_H */
