/* tools/vprof/vprof_addrs.c - vprof --addresses: loads with invariant or strided addresses. */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "img.h"
#include "vp_class.h"
#include "vprof.h"
#include "hotlist.h"

/*
 * Issue 20 item 2, from addrs.prof (pdb.h PDB_FT_ADDRS): the value-sampling slides' goal "find
 * semi-invariant values for prefetching" (slide 2) applied to load addresses. A load is a
 * prefetch candidate when its top address holds at least the --min-share X of its executions
 * (the address is invariant: the load can be hoisted or its value cached) or else its top
 * nonzero stride (this address minus the same load's previous one in an interpretation) holds
 * at least X of its strides (a fixed stride: prefetch that many bytes ahead). Each comes with its
 * D-cache share (loads satisfied in the D-cache, from latency.prof as --latency shows it) and
 * its potential: the share of its procedure's samples that it and its block's instructions
 * using its value hold (an_vclass's dependants, as the semi-invariant summary).
 */

struct acand {
	const struct tl_view_image *im;
	uint64_t off, samples, n, sn; /* n: addresses observed; sn: strides observed */
	uint64_t addr, stride;
	uint32_t addr_ppm, stride_ppm;
	double alo, ahi, slo, shi; /* 95% intervals (vp_share_ci) */
	bool strided; /* else invariant */
	uint64_t loads; /* latency.prof: loads, 0 when none */
	double dshare, avg_lat;
	double potential;
};

static int acand_cmp(const void *a, const void *b)
{
	const struct acand *x = a, *y = b;

	if (x->potential != y->potential)
		return x->potential > y->potential ? -1 : 1;
	if (x->n != y->n)
		return x->n > y->n ? -1 : 1;
	if (x->im != y->im)
		return tl_name_cmp(x->im->name, y->im->name);
	return x->off < y->off ? -1 : x->off > y->off;
}

static uint64_t count_at(const struct pdb_count *s, size_t n, uint64_t off)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (s[mid].offset < off)
			lo = mid + 1;
		else if (s[mid].offset > off)
			hi = mid;
		else
			return s[mid].count;
	}
	return 0;
}

static const struct pdb_lat *lat_at(const struct pdb_lat *l, size_t n, uint64_t off)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (l[mid].offset < off)
			lo = mid + 1;
		else if (l[mid].offset > off)
			hi = mid;
		else
			return &l[mid];
	}
	return NULL;
}

/*
 * The potential of the load at c->off (see the top): an_vclass's dependants' samples. Returns
 * its class (AN_VC_LITERAL: a literal load, its address invariant by construction).
 */
static unsigned int potential(struct vp_class *vc, const struct pdb_count *s, size_t ns,
			      struct acand *c)
{
	uint64_t deps[VP_DEP_MAX], ps, pe, dep = 0, total = 0;
	struct an_vinfo info;
	uint32_t nd = 0;
	const char *pn;

	if (vp_classify(vc, c->im, c->off, &info, deps, &nd) < 0)
		info.cls = AN_VC_DATA; /* not analysable: shown, never hidden */
	if (!nd) {
		deps[0] = c->off;
		nd = 1;
	}
	for (uint32_t k = 0; k < nd; k++)
		dep += count_at(s, ns, deps[k]);
	if (tl_view_proc_bounds(c->im, NULL, c->off, &pn, &ps, &pe))
		for (size_t i = 0; i < ns; i++)
			if (s[i].offset >= ps && s[i].offset < pe)
				total += s[i].count;
	c->potential = total ? (double)dep / (double)total : 0;
	return info.cls;
}

/* One load's two hotlists (ea, st: either may be NULL) into *c; false when it is no candidate. */
static bool judge(const struct vp_addr_opts *o, const struct hotlist *ea, const struct hotlist *st,
		  struct acand *c)
{
	uint32_t min_ppm = (uint32_t)(o->min_share * 1e6 + 0.5);
	struct hotlist_item it[2];
	unsigned int k;

	if (!ea || ea->n < o->min_n || !hotlist_top(ea, it, 1))
		return false;
	c->n = ea->n;
	c->addr = it[0].value;
	c->addr_ppm = it[0].share_ppm;
	vp_share_ci(ea, it[0].estimate, &c->alo, &c->ahi);
	if (st && st->n >= o->min_n && (k = hotlist_top(st, it, 2))) {
		unsigned int i = it[0].value == 0 && k > 1 ? 1 : 0; /* the top nonzero stride */

		c->sn = st->n;
		c->stride = it[i].value;
		c->stride_ppm = it[i].share_ppm;
		vp_share_ci(st, it[i].estimate, &c->slo, &c->shi);
	}
	if (c->addr_ppm >= min_ppm)
		return true;
	c->strided = c->sn && c->stride && c->stride_ppm >= min_ppm;
	return c->strided;
}

/* The candidates of one image into *cs (grown). */
static int image_cands(const struct vp_addr_opts *o, const struct tl_view_image *im,
		       struct acand **cs, size_t *n, size_t *cap, size_t *hidden)
{
	struct pdb_addr *a = NULL;
	struct pdb_count *s = NULL;
	struct pdb_lat *l = NULL;
	struct vp_class vc = { 0 };
	size_t na = 0, ns = 0, nl = 0;
	int ret = -ENOMEM;

	if (!im->prof)
		return 0;
	if (pdb_prof_addrs(im->prof, &a, &na) || pdb_prof_samples(im->prof, o->event, &s, &ns) ||
	    pdb_prof_latencies(im->prof, &l, &nl))
		goto out_free;
	for (size_t i = 0; i < na;) {
		const struct hotlist *ea = NULL, *st = NULL;
		uint64_t off = a[i].offset, ps, pe;
		const struct pdb_lat *pl;
		struct acand c = { .im = im, .off = off };
		const char *pn;

		for (; i < na && a[i].offset == off; i++)
			*(a[i].kind == PDB_ADDR_EA ? &ea : &st) = &a[i].h;
		if (o->proc &&
		    (!tl_view_proc_bounds(im, NULL, off, &pn, &ps, &pe) || strcmp(pn, o->proc)))
			continue;
		if (!judge(o, ea, st, &c))
			continue;
		c.samples = count_at(s, ns, off);
		pl = lat_at(l, nl, off);
		for (unsigned int k = 0; pl && k < PDB_LAT_LEVELS; k++)
			c.loads += pl->lat.level[k];
		if (c.loads) {
			c.dshare =
				(double)pl->lat.level[1] / (double)c.loads; /* level 1: D-cache */
			c.avg_lat = (double)pl->lat.latency_sum / (double)c.loads;
		}
		if (potential(&vc, s, ns, &c) == AN_VC_LITERAL && !o->all) {
			(*hidden)++;
			continue;
		}
		if (*n == *cap) {
			size_t ncap = *cap ? 2 * *cap : 32;
			struct acand *nc = realloc(*cs, ncap * sizeof(*nc));

			if (!nc)
				goto out_free;
			*cs = nc;
			*cap = ncap;
		}
		(*cs)[(*n)++] = c;
	}
	ret = 0;
out_free:
	vp_class_done(&vc);
	free(a);
	free(s);
	free(l);
	return ret;
}

/* sym+off of a data address in one of the images (ELF addresses: the images' own), or "". */
static const char *addr_name(const struct tl_view_image **sel, size_t nsel, uint64_t addr,
			     char *buf, size_t size)
{
	buf[0] = 0;
	for (size_t i = 0; i < nsel; i++) {
		const struct img *elf = sel[i]->elf;
		size_t ns = elf ? img_nsymbols(elf) : 0;

		for (size_t k = 0; k < ns; k++) {
			const struct img_symbol *y = img_symbol(elf, k);

			if (y->name && *y->name && y->shndx != IMG_SHN_UNDEF && y->size &&
			    addr >= y->value && addr - y->value < y->size) {
				snprintf(buf, size, "%s+0x%" PRIx64, y->name, addr - y->value);
				return buf;
			}
		}
	}
	return buf;
}

static const char *advice(const struct acand *c, const char *sym, char *buf, size_t size)
{
	if (c->strided)
		snprintf(buf, size, "prefetch stride %" PRId64 " ahead (the next %s)",
			 (int64_t)c->stride,
			 (int64_t)c->stride < 0 ? "lower addresses" : "addresses");
	else
		snprintf(buf, size,
			 "address invariant (0x%" PRIx64
			 "%s%s%s): hoist the load or cache its value",
			 c->addr, *sym ? " " : "", sym, "");
	return buf;
}

int vp_addrs_report(const struct vp_addr_opts *o, const struct tl_view_image **sel, size_t nsel,
		    struct ax_json *j)
{
	struct acand *cs = NULL;
	size_t n = 0, cap = 0, hidden = 0;
	char sym[200], adv[300], text[160], where[400], evn[32];

	for (size_t i = 0; i < nsel; i++)
		if (image_cands(o, sel[i], &cs, &n, &cap, &hidden)) {
			free(cs);
			return -ENOMEM;
		}
	if (n > 1) /* qsort(NULL, 0, ...) is undefined */
		qsort(cs, n, sizeof(*cs), acand_cmp);
	if (j) {
		ax_json_u64(j, "prefetch_hidden", hidden);
		ax_json_arr_open(j, "prefetch");
		for (size_t i = 0; i < n; i++) {
			const struct acand *c = &cs[i];
			const char *pn = NULL;
			uint64_t ps, pe;
			uint32_t w;

			tl_view_insn(c->im, c->off, &w, text, sizeof(text));
			addr_name(sel, nsel, c->addr, sym, sizeof(sym));
			ax_json_obj_open(j, NULL);
			ax_json_str(j, "image", c->im->name);
			ax_json_hex(j, "address", c->off);
			ax_json_u64(j, "samples", c->samples);
			ax_json_str(j, "text", text);
			if (tl_view_proc_bounds(c->im, NULL, c->off, &pn, &ps, &pe))
				ax_json_str(j, "procedure", pn);
			ax_json_str(j, "kind", c->strided ? "strided" : "invariant");
			ax_json_u64(j, "n", c->n);
			ax_json_hex(j, "ea", c->addr);
			if (*sym)
				ax_json_str(j, "ea_symbol", sym);
			ax_json_num(j, "ea_share", c->addr_ppm / 1e6, 6);
			ax_json_num(j, "ea_share_low", c->alo, 6);
			ax_json_num(j, "ea_share_high", c->ahi, 6);
			ax_json_u64(j, "stride_n", c->sn);
			if (c->sn) {
				ax_json_i64(j, "stride", (int64_t)c->stride);
				ax_json_num(j, "stride_share", c->stride_ppm / 1e6, 6);
				ax_json_num(j, "stride_share_low", c->slo, 6);
				ax_json_num(j, "stride_share_high", c->shi, 6);
			}
			ax_json_u64(j, "loads", c->loads);
			if (c->loads) {
				ax_json_num(j, "dcache_share", c->dshare, 6);
				ax_json_num(j, "latency_average", c->avg_lat, 3);
			}
			ax_json_num(j, "potential", c->potential, 6);
			ax_json_str(j, "suggestion", c->strided ? "prefetch" : "hoist");
			ax_json_str(j, "advice", advice(c, sym, adv, sizeof(adv)));
			ax_json_obj_close(j);
		}
		ax_json_arr_close(j);
		free(cs);
		return 0;
	}
	printf("Prefetch candidates: loads whose address is invariant (top address share >= %.2f%%)"
	       "\nor strided (top nonzero stride share >= %.2f%%), n >= %" PRIu64
	       ", by potential\n(n: addresses observed; D: loads satisfied in the D-cache;"
	       " interval: 95%% confidence)%s:\n",
	       o->min_share * 100, o->min_share * 100, o->min_n,
	       n ? "" : " (record with --mode vprof --observe +addrs)");
	printf("%8s %-9s %-26s %-26s %8s %7s %9s  %-26s %s\n",
	       tl_event_lower(o->event, evn, sizeof(evn)), "kind", "address (share interval)",
	       "stride (share interval)", "n", "D", "potential", "instruction", "where");
	for (size_t i = 0; i < n; i++) {
		const struct acand *c = &cs[i];
		const char *pn = NULL, *b = strrchr(c->im->name, '/');
		char a[64], st[64], d[16];
		uint64_t ps = 0, pe;
		uint32_t w;

		tl_view_insn(c->im, c->off, &w, text, sizeof(text));
		addr_name(sel, nsel, c->addr, sym, sizeof(sym));
		if (tl_view_proc_bounds(c->im, NULL, c->off, &pn, &ps, &pe))
			snprintf(where, sizeof(where), "%s+0x%" PRIx64 " %s", pn, c->off - ps,
				 b ? b + 1 : c->im->name);
		else
			snprintf(where, sizeof(where), "0x%" PRIx64 " %s", c->off,
				 b ? b + 1 : c->im->name);
		snprintf(a, sizeof(a), "0x%" PRIx64 " %.1f%% [%.1f,%.1f]", c->addr,
			 c->addr_ppm / 1e4, 100 * c->alo, 100 * c->ahi);
		if (c->sn)
			snprintf(st, sizeof(st), "%+" PRId64 " %.1f%% [%.1f,%.1f]",
				 (int64_t)c->stride, c->stride_ppm / 1e4, 100 * c->slo,
				 100 * c->shi);
		else
			snprintf(st, sizeof(st), "-");
		if (c->loads)
			snprintf(d, sizeof(d), "%.1f%%", 100 * c->dshare);
		else
			snprintf(d, sizeof(d), "-");
		printf("%8" PRIu64 " %-9s %-26s %-26s %8" PRIu64 " %7s %8.1f%%  %-26s %s\n",
		       c->samples, c->strided ? "strided" : "invariant", a, st, c->n, d,
		       100 * c->potential, text, where);
		if (*sym)
			printf("%8s address: %s\n", "", sym);
		printf("%8s suggestion: %s\n", "", advice(c, sym, adv, sizeof(adv)));
	}
	if (!n)
		printf("  (none)\n");
	if (hidden)
		printf("(%zu more: literal loads, their address invariant by construction; --all"
		       " lists them)\n",
		       hidden);
	free(cs);
	return 0;
}
