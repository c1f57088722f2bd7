/* machine/mach_mem.c - the hosted machine's Alpha address space (see mach_mem.h for the layout). */
#define _GNU_SOURCE
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "mach_mem.h"

#define HOST_PAGE 4096ull

static inline uint64_t page_down(uint64_t v)
{
	return v & ~MACH_PAGE_MASK;
}

static inline uint64_t page_up(uint64_t v)
{
	return (v + MACH_PAGE_MASK) & ~MACH_PAGE_MASK;
}

/* Guest protections as stored: PROT_WRITE implies read (Linux/Alpha protection_map). */
static inline uint8_t pg_bits(unsigned int prot)
{
	uint8_t b = prot & (MACH_PROT_R | MACH_PROT_W | MACH_PROT_X);

	if (b & MACH_PROT_W)
		b |= MACH_PROT_R;
	return b | MACH_PG_MAPPED;
}

static void dtlb_flush(struct mach_mem *m);
static void decode_drop(struct mach_mem *m, uint64_t va, uint64_t len);

/* Give n pages from `first` the pg[] byte `bits` (non-zero) and note their chunks used. */
static void set_pages(struct mach_mem *m, uint64_t first, uint64_t n, uint8_t bits)
{
	memset(m->pg + first, bits, n);
	for (uint64_t c = first >> MACH_CHUNK_SHIFT; n && c <= (first + n - 1) >> MACH_CHUNK_SHIFT;
	     c++)
		m->used[c] = 1;
}

static inline bool range_valid(uint64_t va, uint64_t len)
{
	return len && va < MACH_TASK_SIZE && len <= MACH_TASK_SIZE - va;
}

int mach_mem_new(struct mach_mem **out)
{
	struct mach_mem *m = calloc(1, sizeof(*m));
	void *p;

	if (!m)
		return -ENOMEM;
	p = mmap(NULL, MACH_TASK_SIZE, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1,
		 0);
	if (p == MAP_FAILED)
		goto out_free;
	m->host = p;
	p = mmap(NULL, MACH_NPAGES, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (p == MAP_FAILED)
		goto out_unmap;
	m->pg = p;
	/* The executor's own loads and stores: exactly mem_load's and mem_store's fast paths. */
	m->direct = (struct axp_direct){ .host = m->host,
					 .perm = m->pg,
					 .npages = MACH_NPAGES,
					 .page_shift = MACH_PAGE_SHIFT,
					 .load_mask = MACH_PROT_R,
					 .load_ok = MACH_PROT_R,
					 .store_mask = MACH_PROT_W | MACH_PG_DECODED,
					 .store_ok = MACH_PROT_W };
	dtlb_flush(m);
	*out = m;
	return 0;

out_unmap:
	munmap(m->host, MACH_TASK_SIZE);
out_free:
	free(m);
	return -ENOMEM;
}

void mach_mem_free(struct mach_mem *m)
{
	if (!m)
		return;
	decode_drop(m, 0, MACH_TASK_SIZE);
	munmap(m->pg, MACH_NPAGES);
	if (m->eofprot)
		munmap(m->eofprot, MACH_NPAGES);
	munmap(m->host, MACH_TASK_SIZE);
	free(m);
}

/* ---------------------------------------------------------------------------------------- */
/* Decode cache (see mach_mem.h). */

static inline unsigned int dhash_of(uint64_t pn)
{
	return (unsigned int)((pn ^ (pn >> 10)) & (MACH_DHASH - 1));
}

static struct mach_dpage *dpage_find(const struct mach_mem *m, uint64_t pn)
{
	struct mach_dpage *p;

	for (p = m->dhash[dhash_of(pn)]; p; p = p->next)
		if (p->pn == pn)
			return p;
	return NULL;
}

static void dtlb_flush(struct mach_mem *m)
{
	for (unsigned int i = 0; i < MACH_DTLB; i++) {
		m->dtlb[i].pn = UINT64_MAX;
		m->dtlb[i].page = NULL;
	}
}

/* Drop the decoded pages of [va, va+len). */
static void decode_drop(struct mach_mem *m, uint64_t va, uint64_t len)
{
	uint64_t first = va >> MACH_PAGE_SHIFT,
		 end = (va + len + MACH_PAGE_MASK) >> MACH_PAGE_SHIFT;
	bool any = false;

	if (!m->decoded_pages || !len)
		return;
	if (end > MACH_NPAGES)
		end = MACH_NPAGES;
	if (end - first > 4 * m->decoded_pages) {
		/* A large range: walk the hash table instead of the pages. */
		for (unsigned int h = 0; h < MACH_DHASH; h++) {
			struct mach_dpage **pp = &m->dhash[h];

			while (*pp) {
				struct mach_dpage *p = *pp;

				if (p->pn >= first && p->pn < end) {
					*pp = p->next;
					m->pg[p->pn] &= ~MACH_PG_DECODED;
					m->decoded_pages--;
					m->decode_drops++;
					free(p);
					any = true;
				} else {
					pp = &p->next;
				}
			}
		}
	} else {
		for (uint64_t pn = first; pn < end; pn++) {
			struct mach_dpage **pp;

			if (!(m->pg[pn] & MACH_PG_DECODED))
				continue;
			for (pp = &m->dhash[dhash_of(pn)]; *pp; pp = &(*pp)->next) {
				if ((*pp)->pn == pn) {
					struct mach_dpage *p = *pp;

					*pp = p->next;
					free(p);
					break;
				}
			}
			m->pg[pn] &= ~MACH_PG_DECODED;
			m->decoded_pages--;
			m->decode_drops++;
			any = true;
		}
	}
	if (any)
		dtlb_flush(m);
}

/* A store wrote [va, va+len): its words are decoded again on their next fetch. */
static void decode_forget_words(struct mach_mem *m, uint64_t va, uint64_t len)
{
	for (uint64_t w = va & ~3ull; w < va + len; w += 4) {
		struct mach_dpage *p;

		if (!(m->pg[w >> MACH_PAGE_SHIFT] & MACH_PG_DECODED))
			continue;
		p = dpage_find(m, w >> MACH_PAGE_SHIFT);
		if (p)
			p->insn[(w & MACH_PAGE_MASK) >> 2].op = AXP_OP_NR;
	}
}

void mach_mem_code_changed(struct mach_mem *m, uint64_t va, uint64_t len)
{
	if (va >= MACH_TASK_SIZE)
		return;
	if (len > MACH_TASK_SIZE - va)
		len = MACH_TASK_SIZE - va;
	decode_drop(m, va, len);
}

static const struct axp_insn *fetch_insn_slow(struct mach_mem *m, uint64_t va, int *err)
{
	uint64_t pn = va >> MACH_PAGE_SHIFT;
	struct mach_dpage *p;
	struct axp_insn *d;

	if (pn >= MACH_NPAGES || !(m->pg[pn] & MACH_PROT_X) || (va & 3)) {
		*err = -EFAULT;
		return NULL;
	}
	p = (m->pg[pn] & MACH_PG_DECODED) ? dpage_find(m, pn) : NULL;
	if (!p) {
		p = malloc(sizeof(*p));
		if (!p) {
			*err = -ENOMEM;
			return NULL;
		}
		p->pn = pn;
		for (unsigned int i = 0; i <= MACH_DPAGE_INSNS; i++)
			p->insn[i].op = AXP_OP_NR;
		p->next = m->dhash[dhash_of(pn)];
		m->dhash[dhash_of(pn)] = p;
		m->pg[pn] |= MACH_PG_DECODED;
		m->decoded_pages++;
	}
	m->dtlb[pn & (MACH_DTLB - 1)].pn = pn;
	m->dtlb[pn & (MACH_DTLB - 1)].page = p;
	d = &p->insn[(va & MACH_PAGE_MASK) >> 2];
	if (d->op == AXP_OP_NR) {
		uint32_t w;

		memcpy(&w, m->host + va, 4);
		axp_decode(w, d);
	}
	return d;
}

const struct axp_insn *mach_mem_fetch_insn(void *priv, uint64_t va, int *err)
{
	struct mach_mem *m = priv;
	uint64_t pn = va >> MACH_PAGE_SHIFT;
	struct mach_dpage *p;
	struct axp_insn *d;

	if (__builtin_expect(m->dtlb[pn & (MACH_DTLB - 1)].pn == pn, 1)) {
		p = m->dtlb[pn & (MACH_DTLB - 1)].page;
		d = &p->insn[(va & MACH_PAGE_MASK) >> 2];
		if (__builtin_expect(d->op != AXP_OP_NR, 1))
			return d;
	}
	return fetch_insn_slow(m, va, err);
}

static bool range_has_code(const struct mach_mem *m, uint64_t va, uint64_t len)
{
	for (uint64_t p = va >> MACH_PAGE_SHIFT, e = (va + len) >> MACH_PAGE_SHIFT; p < e; p++)
		if (m->pg[p] & MACH_PG_DECODED)
			return true;
	return false;
}

/* Give pages back to the host: the range becomes part of the PROT_NONE reservation again. */
static void release(struct mach_mem *m, uint64_t va, uint64_t len)
{
	uint64_t first = va >> MACH_PAGE_SHIFT, n = len >> MACH_PAGE_SHIFT;

	decode_drop(m, va, len);
	for (uint64_t i = 0; i < n; i++)
		if (m->pg[first + i] & MACH_PG_MAPPED)
			m->mapped_pages--;
	mmap(m->host + va, len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED,
	     -1, 0);
	memset(m->pg + first, 0, n);
}

bool mach_mem_range_ok(const struct mach_mem *m, uint64_t va, uint64_t len, unsigned int prot)
{
	uint64_t p, e;

	if (!len)
		return true;
	if (va >= MACH_TASK_SIZE || len > MACH_TASK_SIZE - va)
		return false;
	prot |= MACH_PG_MAPPED;
	for (p = va >> MACH_PAGE_SHIFT, e = (va + len - 1) >> MACH_PAGE_SHIFT; p <= e; p++)
		if ((m->pg[p] & prot) != prot)
			return false;
	return true;
}

static bool range_free(const struct mach_mem *m, uint64_t va, uint64_t len)
{
	if (!range_valid(va, len))
		return false;
	for (uint64_t p = va >> MACH_PAGE_SHIFT, e = (va + len) >> MACH_PAGE_SHIFT; p < e; p++)
		if (m->pg[p])
			return false;
	return true;
}

/* First fit at or above `from` (arch_get_unmapped_area_1: bottom-up, below TASK_SIZE). */
static uint64_t first_fit(const struct mach_mem *m, uint64_t from, uint64_t len)
{
	uint64_t need = len >> MACH_PAGE_SHIFT, run = 0;

	for (uint64_t p = from >> MACH_PAGE_SHIFT; p < MACH_NPAGES; p++) {
		if (m->pg[p]) {
			run = 0;
			continue;
		}
		if (++run == need)
			return (p + 1 - need) << MACH_PAGE_SHIFT;
	}
	return 0;
}

uint64_t mach_mem_find_free(const struct mach_mem *m, uint64_t hint, uint64_t len)
{
	uint64_t va;

	len = page_up(len);
	if (!len || len > MACH_TASK_SIZE)
		return 0;
	hint = page_up(hint);
	if (hint && range_free(m, hint, len))
		return hint;
	va = first_fit(m, MACH_UNMAPPED_BASE, len);
	if (!va)
		va = first_fit(m, MACH_PAGE_SIZE, len);
	return va;
}

/* Host-map file pages into [va, va+len); bytes past the end of a regular file are anonymous
 * zero pages (the host would raise SIGBUS on whole host pages past EOF). *eof gets the offset
 * in the mapping of its first guest page wholly past the end of the file (len if none): those
 * pages fault SIGBUS, the rest of the last file page reads zeros, as on Linux. */
static int map_file(struct mach_mem *m, uint64_t va, uint64_t len, int fd, uint64_t off,
		    bool shared, unsigned int prot, uint64_t *eof)
{
	struct stat st;
	uint64_t filebytes = len;
	int hprot = PROT_READ | PROT_WRITE;
	void *p;

	if (fstat(fd, &st))
		return -errno;
	if (S_ISDIR(st.st_mode))
		return -ENODEV;
	if (shared)
		hprot = PROT_READ | ((prot & MACH_PROT_W) ? PROT_WRITE : 0);
	*eof = len;
	if (S_ISREG(st.st_mode)) {
		uint64_t size = (uint64_t)st.st_size;

		filebytes = off >= size ? 0 : size - off;
		if (filebytes > len)
			filebytes = len;
		*eof = page_up(filebytes);
		filebytes = (filebytes + HOST_PAGE - 1) & ~(HOST_PAGE - 1);
	}
	if (filebytes) {
		p = mmap(m->host + va, filebytes, hprot,
			 (shared ? MAP_SHARED : MAP_PRIVATE) | MAP_FIXED, fd, (off_t)off);
		if (p == MAP_FAILED)
			return -errno;
	}
	if (filebytes < len) {
		p = mmap(m->host + va + filebytes, len - filebytes, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED | MAP_NORESERVE, -1, 0);
		if (p == MAP_FAILED)
			return -errno;
	}
	return 0;
}

static int alloc_eofprot(struct mach_mem *m)
{
	void *p;

	if (m->eofprot)
		return 0;
	p = mmap(NULL, MACH_NPAGES, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (p == MAP_FAILED)
		return -ENOMEM;
	m->eofprot = p;
	return 0;
}

/* n pages past the end of their file, with the pg[] bits `bits` kept in eofprot[]. */
static void set_eof_pages(struct mach_mem *m, uint64_t first, uint64_t n, uint8_t bits)
{
	set_pages(m, first, n, MACH_PG_MAPPED | MACH_PG_EOF | (bits & MACH_PG_SHARED));
	memset(m->eofprot + first, bits, n);
}

int mach_mem_map(struct mach_mem *m, uint64_t va, uint64_t len, unsigned int prot,
		 unsigned int flags, int fd, uint64_t off, uint64_t *out)
{
	bool fixed = flags & (MACH_MAP_FIXED | MACH_MAP_NOREPLACE);
	bool shared = (flags & MACH_MAP_SHARED) && fd >= 0;
	uint64_t n, first, eof;
	uint8_t bits;
	int err;
	void *p;

	if (!len)
		return -EINVAL;
	if (off & MACH_PAGE_MASK)
		return -EINVAL;
	len = page_up(len);
	if (!len || len > MACH_TASK_SIZE)
		return -ENOMEM;
	if (fixed) {
		if (va & MACH_PAGE_MASK)
			return -EINVAL;
		if (!range_valid(va, len))
			return -ENOMEM;
		if ((flags & MACH_MAP_NOREPLACE) && !range_free(m, va, len))
			return -EEXIST;
	} else {
		va = mach_mem_find_free(m, va, len);
		if (!va)
			return -ENOMEM;
	}
	first = va >> MACH_PAGE_SHIFT;
	n = len >> MACH_PAGE_SHIFT;
	eof = len;
	if (fixed && !range_free(m, va, len))
		release(m, va, len);
	if (fd >= 0) {
		err = map_file(m, va, len, fd, off, shared, prot, &eof);
		if (!err && eof < len)
			err = alloc_eofprot(m);
		if (err) {
			release(m, va, len);
			return err;
		}
	} else {
		p = mmap(m->host + va, len, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED | MAP_NORESERVE, -1, 0);
		if (p == MAP_FAILED)
			return -ENOMEM;
	}
	bits = pg_bits(prot) | (shared ? MACH_PG_SHARED : 0);
	set_pages(m, first, eof >> MACH_PAGE_SHIFT, bits);
	if (eof < len)
		set_eof_pages(m, first + (eof >> MACH_PAGE_SHIFT), n - (eof >> MACH_PAGE_SHIFT),
			      bits);
	m->mapped_pages += n;
	*out = va;
	return 0;
}

int mach_mem_unmap(struct mach_mem *m, uint64_t va, uint64_t len)
{
	if (va & MACH_PAGE_MASK)
		return -EINVAL;
	len = page_up(len);
	if (!range_valid(va, len))
		return -EINVAL;
	release(m, va, len);
	return 0;
}

int mach_mem_protect(struct mach_mem *m, uint64_t va, uint64_t len, unsigned int prot)
{
	uint64_t p, e;

	if (va & MACH_PAGE_MASK)
		return -EINVAL;
	len = page_up(len);
	if (!len)
		return 0;
	if (!range_valid(va, len))
		return -ENOMEM;
	e = (va + len) >> MACH_PAGE_SHIFT;
	for (p = va >> MACH_PAGE_SHIFT; p < e; p++)
		if (!(m->pg[p] & MACH_PG_MAPPED))
			return -ENOMEM;
	decode_drop(m, va, len);
	for (p = va >> MACH_PAGE_SHIFT; p < e; p++) {
		uint8_t shared = m->pg[p] & MACH_PG_SHARED;

		if (shared) {
			int hprot = PROT_READ | ((prot & MACH_PROT_W) ? PROT_WRITE : 0);

			if (mprotect(m->host + (p << MACH_PAGE_SHIFT), MACH_PAGE_SIZE, hprot))
				return -EACCES;
		}
		if (m->pg[p] & MACH_PG_EOF) {
			m->eofprot[p] = pg_bits(prot) | shared;
			continue;
		}
		m->pg[p] = pg_bits(prot) | shared;
	}
	return 0;
}

int mach_mem_remap(struct mach_mem *m, uint64_t old, uint64_t old_len, uint64_t new_len,
		   unsigned int flags, uint64_t new_va, uint64_t *out)
{
	uint64_t dst, first, n;
	uint8_t bits;
	void *p;

	if (old & MACH_PAGE_MASK)
		return -EINVAL;
	if ((flags & MACH_REMAP_FIXED) && !(flags & MACH_REMAP_MAYMOVE))
		return -EINVAL;
	old_len = page_up(old_len);
	new_len = page_up(new_len);
	if (!new_len || !old_len)
		return -EINVAL;
	if (!mach_mem_range_ok(m, old, old_len, 0))
		return -EFAULT;
	bits = m->pg[old >> MACH_PAGE_SHIFT] & ~MACH_PG_DECODED;
	for (uint64_t pn = old >> MACH_PAGE_SHIFT; pn < (old + old_len) >> MACH_PAGE_SHIFT; pn++)
		if (m->pg[pn] & MACH_PG_EOF)
			return -EFAULT; /* XXX: moving pages past EOF is not done (Linux does) */
	if (bits & MACH_PG_SHARED)
		return -EINVAL; /* XXX: moving host MAP_SHARED pages is not done */
	if (!(flags & MACH_REMAP_FIXED)) {
		if (new_len <= old_len) {
			if (new_len < old_len)
				release(m, old + new_len, old_len - new_len);
			*out = old;
			return 0;
		}
		/* Grow in place when the pages after the mapping are free. */
		if (range_free(m, old + old_len, new_len - old_len)) {
			p = mmap(m->host + old + old_len, new_len - old_len, PROT_READ | PROT_WRITE,
				 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED | MAP_NORESERVE, -1, 0);
			if (p == MAP_FAILED)
				return -ENOMEM;
			first = (old + old_len) >> MACH_PAGE_SHIFT;
			n = (new_len - old_len) >> MACH_PAGE_SHIFT;
			set_pages(m, first, n, bits);
			m->mapped_pages += n;
			*out = old;
			return 0;
		}
		if (!(flags & MACH_REMAP_MAYMOVE))
			return -ENOMEM;
		dst = mach_mem_find_free(m, 0, new_len);
		if (!dst)
			return -ENOMEM;
	} else {
		dst = new_va;
		if (dst & MACH_PAGE_MASK)
			return -EINVAL;
		if (!range_valid(dst, new_len))
			return -EINVAL;
		if (dst < old + old_len && old < dst + new_len)
			return -EINVAL;
		release(m, dst, new_len);
	}
	/* Move: fresh pages at dst, copy, release the old range. */
	p = mmap(m->host + dst, new_len, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED | MAP_NORESERVE, -1, 0);
	if (p == MAP_FAILED)
		return -ENOMEM;
	memcpy(m->host + dst, m->host + old, old_len < new_len ? old_len : new_len);
	first = dst >> MACH_PAGE_SHIFT;
	n = new_len >> MACH_PAGE_SHIFT;
	set_pages(m, first, n, bits);
	m->mapped_pages += n;
	release(m, old, old_len);
	*out = dst;
	return 0;
}

unsigned int mach_mem_prot(const struct mach_mem *m, uint64_t va)
{
	unsigned int b = mach_mem_page(m, va);

	if (b & MACH_PG_EOF)
		b = m->eofprot[va >> MACH_PAGE_SHIFT];
	return b & (MACH_PROT_R | MACH_PROT_W | MACH_PROT_X);
}

/* What makes two mapped pages one run for mach_mem_next_run(). */
static unsigned int run_flags(const struct mach_mem *m, uint64_t pn)
{
	uint8_t b = m->pg[pn];

	return mach_mem_prot(m, pn << MACH_PAGE_SHIFT) | (b & MACH_PG_SHARED);
}

bool mach_mem_next_run(const struct mach_mem *m, uint64_t from, uint64_t *start, uint64_t *end,
		       unsigned int *flags)
{
	uint64_t pn = from >> MACH_PAGE_SHIFT, q;
	unsigned int f;

	while (pn < MACH_NPAGES && !m->pg[pn]) {
		if (!m->used[pn >> MACH_CHUNK_SHIFT])
			pn = ((pn >> MACH_CHUNK_SHIFT) + 1) << MACH_CHUNK_SHIFT;
		else
			pn++;
	}
	if (pn >= MACH_NPAGES)
		return false;
	f = run_flags(m, pn);
	for (q = pn + 1; q < MACH_NPAGES && m->pg[q] && run_flags(m, q) == f; q++)
		;
	*start = pn << MACH_PAGE_SHIFT;
	*end = q << MACH_PAGE_SHIFT;
	*flags = f;
	return true;
}

void mach_mem_brk_init(struct mach_mem *m, uint64_t start)
{
	m->start_brk = m->brk = page_up(start);
}

/* brk(2) as mm/mmap.c does it: below start_brk or into another mapping -> unchanged. */
uint64_t mach_mem_brk(struct mach_mem *m, uint64_t newbrk)
{
	uint64_t oldend = page_up(m->brk), newend = page_up(newbrk), va;

	if (newbrk < m->start_brk || newbrk > MACH_TASK_SIZE)
		return m->brk;
	if (newend == oldend) {
		m->brk = newbrk;
		return m->brk;
	}
	if (newend < oldend) {
		release(m, newend, oldend - newend);
		m->brk = newbrk;
		return m->brk;
	}
	/* Growing: the new pages and a guard page after them must be free. */
	if (!range_free(m, oldend, newend - oldend + MACH_PAGE_SIZE))
		return m->brk;
	if (mach_mem_map(m, oldend, newend - oldend, MACH_PROT_R | MACH_PROT_W, MACH_MAP_FIXED, -1,
			 0, &va))
		return m->brk;
	m->brk = newbrk;
	return m->brk;
}

int mach_mem_read(const struct mach_mem *m, uint64_t va, void *dst, uint64_t len)
{
	if (!mach_mem_range_ok(m, va, len, MACH_PROT_R))
		return -EFAULT;
	if (len)
		memcpy(dst, m->host + va, len);
	return 0;
}

int mach_mem_write(struct mach_mem *m, uint64_t va, const void *src, uint64_t len)
{
	if (!mach_mem_range_ok(m, va, len, MACH_PROT_W))
		return -EFAULT;
	if (len) {
		if (range_has_code(m, page_down(va), page_up(va + len) - page_down(va)))
			decode_forget_words(m, va, len);
		memcpy(m->host + va, src, len);
	}
	return 0;
}

int mach_mem_poke(struct mach_mem *m, uint64_t va, const void *src, uint64_t len)
{
	if (!mach_mem_range_ok(m, va, len, 0))
		return -EFAULT;
	for (uint64_t p = va >> MACH_PAGE_SHIFT, e = (va + len - 1) >> MACH_PAGE_SHIFT;
	     len && p <= e; p++)
		if (m->pg[p] & MACH_PG_SHARED)
			return -EFAULT; /* host page may be read-only */
	if (len) {
		if (range_has_code(m, page_down(va), page_up(va + len) - page_down(va)))
			decode_forget_words(m, va, len);
		memcpy(m->host + va, src, len);
	}
	return 0;
}

int mach_mem_str(const struct mach_mem *m, uint64_t va, uint64_t max, const char **out)
{
	uint64_t n = 0;

	while (n < max) {
		uint64_t pgend = page_down(va + n) + MACH_PAGE_SIZE, chunk;
		const char *p, *z;

		if (!(mach_mem_page(m, va + n) & MACH_PROT_R))
			return -EFAULT;
		chunk = pgend - (va + n);
		if (chunk > max - n)
			chunk = max - n;
		p = (const char *)m->host + va + n;
		z = memchr(p, 0, chunk);
		if (z) {
			*out = (const char *)m->host + va;
			return 0;
		}
		n += chunk;
	}
	return -ENAMETOOLONG;
}

/* ---------------------------------------------------------------------------------------- */
/* The executor's memory operations. The fast path is an aligned (or in-page) access to a page
 * with the right permission; anything else (page crossing, fault) goes to the slow path. */

static inline uint64_t host_load(const uint8_t *p, unsigned int size)
{
	uint64_t v;
	uint32_t w;
	uint16_t h;

	switch (size) {
	case 1:
		return *p;
	case 2:
		memcpy(&h, p, 2);
		return h;
	case 4:
		memcpy(&w, p, 4);
		return w;
	default:
		memcpy(&v, p, 8);
		return v;
	}
}

static inline void host_store(uint8_t *p, unsigned int size, uint64_t v)
{
	uint32_t w = (uint32_t)v;
	uint16_t h = (uint16_t)v;

	switch (size) {
	case 1:
		*p = (uint8_t)v;
		break;
	case 2:
		memcpy(p, &h, 2);
		break;
	case 4:
		memcpy(p, &w, 4);
		break;
	default:
		memcpy(p, &v, 8);
		break;
	}
}

static int load_slow(struct mach_mem *m, uint64_t va, unsigned int size, uint64_t *val)
{
	uint8_t buf[8];

	if (!mach_mem_range_ok(m, va, size, MACH_PROT_R))
		return -EFAULT;
	memcpy(buf, m->host + va, size);
	*val = host_load(buf, size);
	return 0;
}

static int store_slow(struct mach_mem *m, uint64_t va, unsigned int size, uint64_t v)
{
	uint8_t buf[8];

	host_store(buf, size, v);
	return mach_mem_write(m, va, buf, size);
}

static int mem_fetch(void *priv, uint64_t va, uint32_t *word)
{
	struct mach_mem *m = priv;
	uint64_t pn = va >> MACH_PAGE_SHIFT;

	if (__builtin_expect(pn < MACH_NPAGES && (m->pg[pn] & MACH_PROT_X) && !(va & 3), 1)) {
		memcpy(word, m->host + va, 4);
		return 0;
	}
	return -EFAULT;
}

static int mem_load(void *priv, uint64_t va, unsigned int size, uint64_t *val,
		    struct axp_access *acc)
{
	struct mach_mem *m = priv;
	uint64_t pn = va >> MACH_PAGE_SHIFT;

	(void)acc;
	if (__builtin_expect(pn < MACH_NPAGES && (m->pg[pn] & MACH_PROT_R) &&
				     (va & MACH_PAGE_MASK) <= MACH_PAGE_SIZE - size,
			     1)) {
		*val = host_load(m->host + va, size);
		return 0;
	}
	return load_slow(m, va, size, val);
}

static int mem_store(void *priv, uint64_t va, unsigned int size, uint64_t val,
		     struct axp_access *acc)
{
	struct mach_mem *m = priv;
	uint64_t pn = va >> MACH_PAGE_SHIFT;
	uint8_t b;

	(void)acc;
	if (__builtin_expect(pn < MACH_NPAGES, 1)) {
		b = m->pg[pn];
		/* Writable, not decoded code (the slow path tells the decode cache), in the page. */
		if (__builtin_expect((b & (MACH_PROT_W | MACH_PG_DECODED)) == MACH_PROT_W &&
					     (va & MACH_PAGE_MASK) <= MACH_PAGE_SIZE - size,
				     1)) {
			host_store(m->host + va, size, val);
			return 0;
		}
	}
	return store_slow(m, va, size, val);
}

/* RPCC: PCC[31:0] counts cycles, PCC[63:32] is the operating system's offset, 0 here. */
static uint64_t mem_rpcc(void *priv)
{
	struct mach_mem *m = priv;
	struct timespec ts;

	if (m->cycles)
		return m->cycles(m->cycles_priv) & 0xffffffffull;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (((uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec) >> 2) & 0xffffffffull;
}

/* The decode cache's page of va for axp_run()'s window (axp.h): its pages are freed only by
 * munmap, mprotect, exec and IMB, all of which end a run first (they are system calls or PAL
 * calls); stores in between mark the words they change AXP_OP_NR. */
static const struct axp_insn *mem_insn_page(void *priv, uint64_t va, uint64_t *first_va,
					    uint64_t *n)
{
	struct mach_mem *m = priv;
	uint64_t pn = va >> MACH_PAGE_SHIFT;
	struct mach_dpage *p;

	if (pn >= MACH_NPAGES || !(m->pg[pn] & MACH_PG_DECODED))
		return NULL;
	p = dpage_find(m, pn);
	if (!p)
		return NULL;
	*first_va = pn << MACH_PAGE_SHIFT;
	*n = MACH_DPAGE_INSNS;
	return p->insn;
}

static const struct axp_direct *mem_direct(void *priv)
{
	const struct mach_mem *m = priv;

	return &m->direct;
}

const struct axp_mem_ops mach_mem_ops = {
	.fetch = mem_fetch,
	.load = mem_load,
	.store = mem_store,
	.rpcc = mem_rpcc,
	.fetch_insn = mach_mem_fetch_insn,
	.insn_page = mem_insn_page,
	.direct = mem_direct,
};
