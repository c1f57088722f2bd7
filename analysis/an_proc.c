/* analysis/an_proc.c - procedures of an Alpha image: from symbols, or found from the code. */
#include <elf.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "axp.h"
#include "an_cfg.h"
#include "an_proc.h"

/* Encodings used below (Alpha Architecture Handbook v4, ch. 4; binutils alpha-opc.c). */
#define W_NOP 0x47ff041fu /* bis zero,zero,zero */
#define W_UNOP 0x2ffe0000u /* ldq_u zero,0(sp) */
#define W_FNOP 0x5fff041fu /* cpys $f31,$f31,$f31 */
#define OPC(w) ((w) >> 26)
#define RA(w) (((w) >> 21) & 31u)
#define RB(w) (((w) >> 16) & 31u)
#define R_RA 26u
#define R_PV 27u
#define R_GP 29u
#define OPC_LDA 0x08u
#define OPC_LDAH 0x09u
#define OPC_JMP 0x1au
#define OPC_BR 0x30u
#define OPC_BSR 0x34u

bool an_word_is_pad(uint32_t word)
{
	return word == W_NOP || word == W_UNOP || word == W_FNOP || word == 0;
}

static int64_t sext(uint64_t v, unsigned int bits)
{
	uint64_t m = 1ull << (bits - 1);

	v &= (m << 1) - 1;
	return (int64_t)((v ^ m) - m);
}

/* Branch-format target: pc + 4 + 4 * disp21. */
static uint64_t bra_target(uint32_t w, uint64_t pc)
{
	return pc + 4 + (uint64_t)(sext(w, 21) * 4);
}

static bool is_bra(uint32_t w)
{
	return OPC(w) >= 0x30;
}

/* A BSR that links (a call); `bsr zero,x` is a plain branch. */
static bool is_call(uint32_t w)
{
	return OPC(w) == OPC_BSR && RA(w) != 31;
}

/* ldah gp,hi(rb) */
static bool is_ldah_gp(uint32_t w, unsigned int rb)
{
	return OPC(w) == OPC_LDAH && RA(w) == R_GP && RB(w) == rb;
}

static bool is_lda_gp(uint32_t w)
{
	return OPC(w) == OPC_LDA && RA(w) == R_GP && RB(w) == R_GP;
}

static int64_t mem_disp(uint32_t w)
{
	return sext(w & 0xffff, 16);
}

/* ------------------------------------------------------------------------------------------ */

struct u64vec {
	uint64_t *v;
	size_t n, cap;
};

static int vec_push(struct u64vec *a, uint64_t x)
{
	if (a->n == a->cap) {
		size_t cap = a->cap ? a->cap * 2 : 256;
		uint64_t *v = realloc(a->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		a->v = v;
		a->cap = cap;
	}
	a->v[a->n++] = x;
	return 0;
}

static int cmp_u64(const void *pa, const void *pb)
{
	uint64_t a = *(const uint64_t *)pa, b = *(const uint64_t *)pb;

	return a < b ? -1 : a > b;
}

static void vec_sort_unique(struct u64vec *a)
{
	size_t k = 0;

	if (!a->n)
		return;
	qsort(a->v, a->n, sizeof(*a->v), cmp_u64);
	for (size_t i = 1; i < a->n; i++)
		if (a->v[i] != a->v[k])
			a->v[++k] = a->v[i];
	a->n = k + 1;
}

static bool vec_has(const struct u64vec *a, uint64_t x)
{
	size_t lo = 0, hi = a->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (a->v[mid] < x)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < a->n && a->v[lo] == x;
}

/* The building state. */
struct finder {
	const struct img *e;
	struct an_proc *v;
	size_t n, cap;
	struct u64vec calls; /* BSR targets anywhere in the image */
	uint64_t entry;
	struct an_procs_stats st;
};

static uint32_t sec_word(const struct img_section *s, uint64_t addr)
{
	const uint8_t *b = s->data + (addr - s->addr);

	return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
}

static int add_proc(struct finder *f, const struct img_section *s, uint64_t start, uint64_t end,
		    const char *name, uint32_t flags)
{
	struct an_proc *p;

	if (f->n == f->cap) {
		size_t cap = f->cap ? f->cap * 2 : 256;
		struct an_proc *v = realloc(f->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		f->v = v;
		f->cap = cap;
	}
	p = &f->v[f->n++];
	memset(p, 0, sizeof(*p));
	p->start = start;
	p->end = end;
	p->name = name;
	p->flags = flags;
	p->sec = s;
	if (flags & AN_PROC_GUESSED)
		f->st.guessed++;
	else
		f->st.symbol++;
	return 0;
}

/* The 64-bit little-endian value at addr in a section with contents. */
static bool read64(const struct img *e, uint64_t addr, uint64_t *v)
{
	uint32_t lo, hi;

	if (img_read32(e, addr, &lo) || img_read32(e, addr + 4, &hi))
		return false;
	*v = (uint64_t)hi << 32 | lo;
	return true;
}

static bool is_code_addr(const struct img *e, uint64_t a)
{
	const struct img_section *s = img_section_at(e, a);

	return !(a & 3) && s && img_section_is_code(s);
}

/*
 * Call targets in section s: BSR targets, and the procedure values of `ldq pv,d(gp); jsr
 * ra,(pv)` when the GOT slot holds a code address of the image (linked executables). GP is
 * followed linearly: set by each `ldah gp,hi(pv); lda gp,lo(gp)` prologue and by each reload
 * `ldah gp,hi(ra); lda gp,lo(gp)` after a call.
 */
static int scan_calls(struct finder *f, const struct img_section *s)
{
	uint64_t gp = 0, base = 0, pv = 0, end = s->addr + (s->size & ~3ull);
	bool have_gp = false, have_base = false, have_pv = false;
	int err;

	for (uint64_t a = s->addr; a < end; a += 4) {
		uint32_t w = sec_word(s, a);

		if (is_call(w)) {
			err = vec_push(&f->calls, bra_target(w, a));
			if (err)
				return err;
		}
		if (is_ldah_gp(w, R_PV)) {
			base = a + (uint64_t)(mem_disp(w) * 65536);
			have_base = true;
		} else if (is_ldah_gp(w, R_RA)) {
			/* ra = the return address: the instruction after the call before it */
			base = a + (uint64_t)(mem_disp(w) * 65536);
			have_base = a >= s->addr + 4 && (is_call(sec_word(s, a - 4)) ||
							 OPC(sec_word(s, a - 4)) == OPC_JMP);
		} else if (is_lda_gp(w) && have_base) {
			gp = base + (uint64_t)mem_disp(w);
			have_gp = true;
			have_base = false;
		} else if (OPC(w) == 0x29 && RA(w) == R_PV && RB(w) == R_GP && have_gp) {
			have_pv = read64(f->e, gp + (uint64_t)mem_disp(w), &pv) &&
				  is_code_addr(f->e, pv);
		} else if (OPC(w) == OPC_JMP && ((w >> 14) & 3) == 1 && RB(w) == R_PV && have_pv) {
			err = vec_push(&f->calls, pv);
			if (err)
				return err;
			have_pv = false;
		}
	}
	return 0;
}

/* A place where a guessed procedure must start. */
static bool strong_start(const struct finder *f, const struct img_section *s, uint64_t a,
			 uint64_t b)
{
	uint32_t w = sec_word(s, a);

	if (a == f->entry)
		return true;
	if (vec_has(&f->calls, a))
		/* not the entry past a GP prologue: `bsr ra,f+8` calls that */
		return !(a >= s->addr + 8 && is_ldah_gp(sec_word(s, a - 8), R_PV) &&
			 is_lda_gp(sec_word(s, a - 4)));
	if (is_ldah_gp(w, R_PV))
		return true;
	return a + 8 < b && vec_has(&f->calls, a + 8) && is_lda_gp(sec_word(s, a + 4)) &&
	       is_ldah_gp(w, R_PV);
}

/* An unconditional transfer after which a procedure may end. */
static bool ends_flow(uint32_t w, uint64_t pc)
{
	unsigned int opc = OPC(w);

	if (opc == OPC_JMP) /* jmp, jsr, ret, jsr_coroutine: jmp and ret end the flow */
		return ((w >> 14) & 3) == 0 || ((w >> 14) & 3) == 2;
	if (opc == OPC_BR || (opc == OPC_BSR && RA(w) == 31))
		return bra_target(w, pc) != pc + 4;
	return false;
}

static uint64_t skip_pad(const struct img_section *s, uint64_t a, uint64_t b)
{
	while (a < b && an_word_is_pad(sec_word(s, a)))
		a += 4;
	return a;
}

/* Split the code gap [a, b) of section s into guessed procedures. */
static int guess_gap(struct finder *f, const struct img_section *s, uint64_t a, uint64_t b)
{
	int err;

	a = (a + 3) & ~3ull;
	b &= ~3ull;
	a = skip_pad(s, a, b);
	while (a < b) {
		uint64_t start = a, maxt = a, i = a, end;

		for (;;) {
			uint32_t w = sec_word(s, i);
			uint64_t next = i + 4;

			if (is_bra(w) && !is_call(w)) {
				uint64_t t = bra_target(w, i);

				if (t > maxt && t < b && t > start)
					maxt = t;
			}
			if (next >= b) {
				end = b;
				a = b;
				break;
			}
			if (ends_flow(w, i) && next > maxt) {
				end = next;
				a = skip_pad(s, next, b);
				break;
			}
			if (strong_start(f, s, next, b)) {
				end = next;
				a = next;
				break;
			}
			i = next;
		}
		while (end > start + 4 && an_word_is_pad(sec_word(s, end - 4)))
			end -= 4;
		err = add_proc(f, s, start, end, NULL, AN_PROC_GUESSED);
		if (err)
			return err;
	}
	return 0;
}

static bool sym_in_section(const struct img_symbol *sym, const struct img_section *s)
{
	return sym->value >= s->addr && sym->value < s->addr + s->size &&
	       (sym->shndx == s->index || sym->shndx == IMG_SHN_ABS);
}

/* Function symbols by address; at one address a global name before a local, then table order. */
struct fsym {
	const struct img_symbol *sym;
	size_t order;
};

static int cmp_fsym(const void *pa, const void *pb)
{
	const struct fsym *a = pa, *b = pb;
	bool ga = a->sym->bind != STB_LOCAL, gb = b->sym->bind != STB_LOCAL;

	if (a->sym->value != b->sym->value)
		return a->sym->value < b->sym->value ? -1 : 1;
	if (ga != gb)
		return ga ? -1 : 1;
	return a->order < b->order ? -1 : a->order > b->order;
}

/*
 * The function symbols of section s, sorted, one per address. Executables and shared objects:
 * img_function()'s list. Relocatable objects put every section at address 0, so that list
 * (one symbol per address) would lose functions: take the symbol table's own.
 */
static int section_functions(const struct finder *f, const struct img_section *s, struct fsym **out,
			     size_t *n)
{
	bool rel = img_type(f->e) == ET_REL;
	size_t total = rel ? img_nsymbols(f->e) : img_nfunctions(f->e), k = 0;
	struct fsym *v = malloc((total + 1) * sizeof(*v));

	if (!v)
		return -ENOMEM;
	for (size_t i = 0; i < total; i++) {
		const struct img_symbol *sym = rel ? img_symbol(f->e, i) : img_function(f->e, i);

		if (rel && sym->type != STT_FUNC && sym->type != STT_GNU_IFUNC)
			continue;
		if (!sym_in_section(sym, s) || (sym->value & 3))
			continue;
		v[k].sym = sym;
		v[k].order = i;
		k++;
	}
	if (k > 1) /* qsort(NULL, 0, ...) is undefined */
		qsort(v, k, sizeof(*v), cmp_fsym);
	*n = 0;
	for (size_t i = 0; i < k; i++)
		if (!*n || v[*n - 1].sym->value != v[i].sym->value)
			v[(*n)++] = v[i];
	*out = v;
	return 0;
}

static int find_in_section(struct finder *f, const struct img_section *s)
{
	uint64_t send = s->addr + (s->size & ~3ull), cursor = s->addr;
	struct fsym *fs;
	size_t nf;
	int err = section_functions(f, s, &fs, &nf);

	if (err)
		return err;
	f->st.code_bytes += s->size;
	for (size_t i = 0; i < nf; i++) {
		const struct img_symbol *sym = fs[i].sym;
		uint64_t start = sym->value, end, next = i + 1 < nf ? fs[i + 1].sym->value : send;
		uint32_t flags = 0;

		if (start < cursor)
			continue;
		end = sym->size ? start + sym->size : next;
		if (end > next || end < start) {
			end = next;
			if (sym->size)
				flags |= AN_PROC_CLIPPED;
		}
		end &= ~3ull;
		if (end <= start)
			continue;
		if (start > cursor) {
			err = guess_gap(f, s, cursor, start);
			if (err)
				goto out;
		}
		err = add_proc(f, s, start, end, sym->name, flags);
		if (err)
			goto out;
		cursor = end;
	}
	if (cursor < send)
		err = guess_gap(f, s, cursor, send);
out:
	free(fs);
	return err;
}

static int cmp_proc(const void *pa, const void *pb)
{
	const struct an_proc *a = pa, *b = pb;

	return a->start < b->start ? -1 : a->start > b->start;
}

/* GP from the procedure's prologue, or from a reload after a call inside it. */
static bool proc_gp(const struct an_proc *p, uint64_t *gp)
{
	uint32_t w0, w1;

	if (p->end - p->start >= 8) {
		w0 = an_proc_word(p, p->start);
		w1 = an_proc_word(p, p->start + 4);
		if (is_ldah_gp(w0, R_PV) && is_lda_gp(w1)) {
			*gp = p->start + (uint64_t)(mem_disp(w0) * 65536 + mem_disp(w1));
			return true;
		}
	}
	for (uint64_t a = p->start; a + 8 <= p->end; a += 4) {
		uint32_t w = an_proc_word(p, a);
		bool call = is_call(w) || (OPC(w) == OPC_JMP && ((w >> 14) & 3) == 1);

		if (!call || RA(w) != R_RA || !is_ldah_gp(an_proc_word(p, a + 4), R_RA))
			continue;
		/* the matching lda may be scheduled a few instructions later */
		for (uint64_t b = a + 8; b < p->end && b <= a + 24; b += 4) {
			uint32_t x = an_proc_word(p, b);

			if (is_lda_gp(x)) {
				*gp = a + 4 +
				      (uint64_t)(mem_disp(an_proc_word(p, a + 4)) * 65536 +
						 mem_disp(x));
				return true;
			}
			if (RA(x) == R_GP || ends_flow(x, b))
				break;
		}
	}
	return false;
}

const struct an_proc *an_procs_at(const struct an_procs *ps, uint64_t addr)
{
	size_t lo = 0, hi = ps->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (ps->v[mid].end <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < ps->n && ps->v[lo].start <= addr && addr < ps->v[lo].end)
		return &ps->v[lo];
	return NULL;
}

/* Extra entries: (procedure index << 0, address) pairs gathered, then grouped. */
struct xent {
	size_t proc;
	uint64_t addr;
};

static int cmp_xent(const void *pa, const void *pb)
{
	const struct xent *a = pa, *b = pb;

	if (a->proc != b->proc)
		return a->proc < b->proc ? -1 : 1;
	return a->addr < b->addr ? -1 : a->addr > b->addr;
}

static int find_xentries(struct an_procs *ps)
{
	struct xent *x = NULL;
	size_t nx = 0, cap = 0;
	int err = 0;

	for (size_t i = 0; i < ps->n; i++) {
		const struct an_proc *p = &ps->v[i];

		for (uint64_t a = p->start; a < p->end; a += 4) {
			uint32_t w = an_proc_word(p, a);
			const struct an_proc *q;
			uint64_t t;

			if (!is_bra(w))
				continue;
			t = bra_target(w, a);
			if (t >= p->start && t < p->end && !is_call(w))
				continue;
			q = (t >= p->start && t < p->end) ? p : an_procs_at(ps, t);
			if (!q || t == q->start)
				continue;
			if (nx == cap) {
				size_t c = cap ? cap * 2 : 256;
				struct xent *v = realloc(x, c * sizeof(*v));

				if (!v) {
					err = -ENOMEM;
					goto out;
				}
				x = v;
				cap = c;
			}
			x[nx].proc = (size_t)(q - ps->v);
			x[nx++].addr = t;
		}
	}
	if (!nx)
		goto out;
	qsort(x, nx, sizeof(*x), cmp_xent);
	ps->xentries = malloc(nx * sizeof(*ps->xentries));
	if (!ps->xentries) {
		err = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < nx; i++) {
		struct an_proc *p = &ps->v[x[i].proc];

		if (i && x[i].proc == x[i - 1].proc && x[i].addr == x[i - 1].addr)
			continue;
		if (!p->nxentries)
			p->xentry = (uint32_t)ps->nxentries;
		p->nxentries++;
		ps->xentries[ps->nxentries++] = x[i].addr;
	}
out:
	free(x);
	return err;
}

static bool has_jmp(const struct an_proc *p)
{
	for (uint64_t a = p->start; a < p->end; a += 4) {
		uint32_t w = an_proc_word(p, a);

		if (OPC(w) == OPC_JMP && ((w >> 14) & 3) == 0)
			return true;
	}
	return false;
}

/*
 * A guessed procedure ends at a RET no branch jumps past, but jump-table targets are not known
 * then: when the CFG finds a table whose targets run past the end into the guessed procedures
 * that follow in the same gap, those are merged into it (and the CFG built again).
 */
static int merge_guessed(struct an_procs *ps)
{
	for (size_t i = 0; i < ps->n; i++) {
		struct an_proc *p = &ps->v[i];

		if (!(p->flags & AN_PROC_GUESSED) || !has_jmp(p))
			continue;
		for (int round = 0; round < 16; round++) {
			uint64_t want = p->end;
			struct an_cfg *cfg;
			size_t k;
			int ret = an_cfg_build(ps, p, &cfg, NULL);

			if (ret == -ENOMEM)
				return ret;
			if (ret)
				break;
			for (uint32_t j = 0; j < cfg->njtabs; j++) {
				const struct an_jtab *jt = &cfg->jtab[j];

				if (jt->n && !jt->resolved && jt->tmin >= p->start &&
				    !((jt->tmin | jt->tmax) & 3) && jt->tmax >= p->end &&
				    jt->tmax < p->sec->addr + p->sec->size && jt->tmax + 4 > want)
					want = jt->tmax + 4;
			}
			an_cfg_free(cfg);
			if (want == p->end)
				break;
			for (k = i + 1; k < ps->n && ps->v[k].start < want; k++)
				if (!(ps->v[k].flags & AN_PROC_GUESSED) || ps->v[k].sec != p->sec)
					break;
			if (k == i + 1 || (k < ps->n && ps->v[k].start < want))
				break; /* a symbol in the way, or nothing to merge */
			p->end = ps->v[k - 1].end;
			memmove(&ps->v[i + 1], &ps->v[k], (ps->n - k) * sizeof(*ps->v));
			ps->stats.guessed -= k - i - 1;
			ps->n -= k - i - 1;
		}
	}
	return 0;
}

int an_procs_find(const struct img *e, struct an_procs **out, struct ax_error *err)
{
	struct finder f = { .e = e, .entry = img_entry(e) };
	struct an_procs *ps = NULL;
	size_t ns = img_nsections(e), ncode = 0;
	int ret;

	*out = NULL;
	/* Every call target in the image: BSR with a link register, JSR through a GOT slot. */
	for (size_t i = 0; i < ns; i++) {
		const struct img_section *s = img_section(e, i);

		if (!img_section_is_code(s))
			continue;
		ncode++;
		ret = scan_calls(&f, s);
		if (ret)
			goto out_free;
	}
	if (!ncode) {
		ret = ax_fail(err, -ENOEXEC, "%s: no code section with contents to analyse",
			      img_path(e));
		goto out_free;
	}
	vec_sort_unique(&f.calls);
	for (size_t i = 0; i < ns; i++) {
		const struct img_section *s = img_section(e, i);

		if (!img_section_is_code(s) || (s->addr & 3))
			continue;
		ret = find_in_section(&f, s);
		if (ret)
			goto out_free;
	}
	if (f.n > 1) /* qsort(NULL, 0, ...) is undefined */
		qsort(f.v, f.n, sizeof(*f.v), cmp_proc);

	ps = calloc(1, sizeof(*ps));
	if (!ps) {
		ret = -ENOMEM;
		goto out_free;
	}
	ps->elf = e;
	ret = an_relocs_init(&ps->rel, e);
	if (ret)
		goto out_free;
	ps->v = f.v;
	ps->n = f.n;
	f.v = NULL;
	for (size_t i = 0; i < ps->n; i++) {
		struct an_proc *p = &ps->v[i];

		if (proc_gp(p, &p->gp)) {
			p->flags |= AN_PROC_GP;
		} else if (i && ps->v[i - 1].sec == p->sec &&
			   (ps->v[i - 1].flags & (AN_PROC_GP | AN_PROC_GP_INHERITED))) {
			p->gp = ps->v[i - 1].gp;
			p->flags |= AN_PROC_GP_INHERITED;
		}
	}
	ps->stats = f.st;
	ret = merge_guessed(ps);
	if (ret)
		goto out_free;
	f.st = ps->stats;
	ret = find_xentries(ps);
	if (ret)
		goto out_free;
	{
		uint64_t covered = 0;

		for (size_t i = 0; i < ps->n; i++)
			covered += ps->v[i].end - ps->v[i].start;
		f.st.pad_bytes = f.st.code_bytes - covered;
	}
	ps->stats = f.st;
	ps->noret = calloc(ps->n + 1, 1);
	if (!ps->noret) {
		ret = -ENOMEM;
		goto out_free;
	}
	free(f.calls.v);
	*out = ps;
	return 0;

out_free:
	if (ret == -ENOMEM)
		ax_fail(err, ret, "%s: out of memory finding procedures", img_path(e));
	an_procs_free(ps);
	free(f.v);
	free(f.calls.v);
	return ret;
}

void an_procs_free(struct an_procs *ps)
{
	if (!ps)
		return;
	free(ps->v);
	free(ps->xentries);
	free(ps->noret);
	an_relocs_exit(&ps->rel);
	free(ps);
}

void an_proc_name(const struct an_proc *p, char *buf, size_t size)
{
	if (p->name)
		snprintf(buf, size, "%s", p->name);
	else
		snprintf(buf, size, "proc_%" PRIx64, p->start);
}

/*
 * Any other symbol of the code called `name` (its first len bytes): a local of .symtab, or a
 * NOTYPE one such as libc's assembler routines (__remqu, __divqu: global in .dynsym but not
 * STT_FUNC, so their procedures are guessed ones): the procedure holding its address.
 */
static const struct an_proc *lookup_symbol(const struct an_procs *ps, const char *name, size_t len)
{
	const struct img_symbol *sym;
	const struct img_section *s;
	char plain[256];

	if (len >= sizeof(plain))
		return NULL;
	memcpy(plain, name, len);
	plain[len] = '\0';
	sym = img_symbol_by_name(ps->elf, plain);
	if (!sym || sym->shndx >= IMG_SHN_ABS)
		return NULL;
	s = img_section_by_index(ps->elf, sym->shndx);
	if (!s || !img_section_is_code(s))
		return NULL;
	return an_procs_at(ps, sym->value);
}

const struct an_proc *an_procs_lookup(const struct an_procs *ps, const char *name)
{
	char buf[256];
	size_t len;

	if (!strncmp(name, "0x", 2) || !strncmp(name, "0X", 2)) {
		char *endp;
		unsigned long long a = strtoull(name + 2, &endp, 16);

		if (*endp == '\0' && endp != name + 2)
			return an_procs_at(ps, a);
		return NULL;
	}
	len = strcspn(name, "@");
	for (size_t i = 0; i < ps->n; i++) {
		const struct an_proc *p = &ps->v[i];

		if (p->name) {
			if (strlen(p->name) == len && !strncmp(p->name, name, len))
				return p;
		} else {
			an_proc_name(p, buf, sizeof(buf));
			if (!strcmp(buf, name))
				return p;
		}
	}
	return lookup_symbol(ps, name, len);
}
