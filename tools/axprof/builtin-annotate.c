/* tools/axprof/builtin-annotate.c - `axprof annotate`: DCPI's dcpicalc view of a procedure. */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "axprof/builtin.h"
#include "isa_dis.h"
#include "an_freq_image.h"
#include "tl_sym.h"
#include "tl_json_an.h"
#include "tl_periods.h"
#include "tl_prof.h"
#include "tl_source.h"
#include "tl_view.h"

/*
 * DCPI SOSP'97 §3 (Figure 2, dcpicalc) and §6: every instruction of a procedure with its
 * samples, estimated execution count (F x P), CPI, static M_i, and the stalls before it as
 * "bubbles": the static stall with the schedule's reason and culprit instruction, the dynamic
 * stall with every cause that could not be ruled out (and the range each may explain), block
 * boundaries with the class's frequency and confidence, and the procedure's summary.
 *
 * When the image has ProfileMe samples (`axprof record --mode profileme --cpu ev6`), the
 * execution counts come from them, not from the CYCLES-based estimation: an instruction's
 * retired samples x S, S the mean interval each sample stands for ([PM] ProfileMe, MICRO'97
 * §5.1, as `axprof profileme`); a block's is the mean over its instructions. The CPI column is
 * then the mean inum retire delay (cycles the instruction was the oldest unretired, [PM] §4.1:
 * what CYCLES samples measure), and each instruction shows its mean cycles per pipeline stage.
 */

struct ann {
	struct tl_view v;
	struct an_fi_opts o; /* o.period: of the image analysed (tl_periods_for) */
	struct tl_periods per;
	enum tl_psrc psrc; /* where o.period[AN_EV_CYCLES] came from */
	const char *image, *proc, *csv_path;
	FILE *csv;
	struct tl_sources *src; /* source files by DWARF line (--source-dir) */
	bool all;
	struct tl_ropts ro; /* -d, --epoch, --json, -n: procedures when PROC is not given */
	struct pdb_pme *pme; /* the image's ProfileMe table, sorted by offset (NULL: none) */
	size_t npme;
};

/* ---- ProfileMe as the execution frequency ---- */

static const char *const pme_lat_name[PDB_PME_LATS] = { "fetch_map", "map_data", "data_issue",
							"issue_ready", "ready_retire" };

static const struct pdb_profileme *pme_at(const struct ann *a, uint64_t pc)
{
	size_t lo = 0, hi = a->npme;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (a->pme[mid].offset < pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < a->npme && a->pme[lo].offset == pc ? &a->pme[lo].pme : NULL;
}

static uint64_t pme_samples(const struct pdb_profileme *p)
{
	uint64_t n = 0;

	for (unsigned int i = 0; i < PDB_PME_STATUS; i++)
		n += p->status[i];
	return n;
}

/* Estimated executions: retired samples x the mean interval each stands for (0 if unknown). */
static double pme_exec(const struct pdb_profileme *p)
{
	if (!p || !p->samples_p)
		return 0;
	return (double)p->status[0] * (double)p->events2 / (2.0 * (double)p->samples_p);
}

/* ProfileMe samples in [start, end). */
static uint64_t pme_samples_in(const struct ann *a, uint64_t start, uint64_t end)
{
	uint64_t n = 0;

	for (size_t i = 0; i < a->npme; i++)
		if (a->pme[i].offset >= start && a->pme[i].offset < end)
			n += pme_samples(&a->pme[i].pme);
	return n;
}

/* A block's executions: the mean of its instructions' estimates. */
static double pme_block_exec(const struct ann *a, const struct an_fi_proc *fp, uint32_t b)
{
	double sum = 0;
	uint32_t n = 0;

	for (uint32_t i = 0; i < fp->ninsns; i++)
		if (fp->insn[i].block == b) {
			sum += pme_exec(pme_at(a, fp->insn[i].pc));
			n++;
		}
	return n ? sum / n : 0;
}

/* An instruction's executions: ProfileMe's when the image has them, else F x P. */
static double insn_exec(const struct ann *a, const struct an_fi_insn *in, double P)
{
	return a->pme ? pme_exec(pme_at(a, in->pc)) : in->cp.f * P;
}

static void pme_print_insn(const struct ann *a, const struct an_fi_insn *in)
{
	const struct pdb_profileme *p = pme_at(a, in->pc);

	if (!p || !p->status[0]) {
		printf(" %7s", "-");
		return;
	}
	printf(" %7.2f", (double)p->retire_delay_sum / (double)p->status[0]);
}

static void pme_print_stages(const struct ann *a, const struct an_fi_insn *in)
{
	const struct pdb_profileme *p = pme_at(a, in->pc);
	double r;

	if (!p || !p->status[0])
		return;
	r = (double)p->status[0];
	printf("%22s ProfileMe %" PRIu64 " samples, %.1f%% retired; stage cycles: fetch-map %.1f"
	       ", map-data %.1f, data-issue %.1f, issue-ready %.1f, ready-retire %.1f\n",
	       "", pme_samples(p), 100.0 * r / (double)pme_samples(p), p->lat_sum[0] / r,
	       p->lat_sum[1] / r, p->lat_sum[2] / r, p->lat_sum[3] / r, p->lat_sum[4] / r);
}

static void pme_json_insn(struct ax_json *j, const struct ann *a, const struct an_fi_insn *in)
{
	const struct pdb_profileme *p = pme_at(a, in->pc);
	double r;

	if (!p)
		return;
	r = p->status[0] ? (double)p->status[0] : 1;
	ax_json_obj_open(j, "profileme");
	ax_json_u64(j, "samples", pme_samples(p));
	ax_json_u64(j, "retired", p->status[0]);
	ax_json_num(j, "retire_delay", (double)p->retire_delay_sum / r, 2);
	ax_json_obj_open(j, "latency");
	for (unsigned int i = 0; i < PDB_PME_LATS; i++)
		ax_json_num(j, pme_lat_name[i], (double)p->lat_sum[i] / r, 2);
	ax_json_obj_close(j);
	ax_json_obj_close(j);
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: axprof annotate [-d DIR] [--epoch N] [--period P] [--event-period E=P]\n"
		"                       [--json] [--freq-csv FILE] [--source-dir DIR] [-n N]\n"
		"                       [--percent-limit P] [--min-samples N]\n"
		"                       IMAGE [PROC]\n\n"
		"DCPI's dcpicalc view: each instruction of PROC (default: the procedures of IMAGE\n"
		"with the most CYCLES samples) with its samples, estimated execution count, CPI,\n"
		"static and dynamic stall cycles, and bubbles naming each stall's possible causes\n"
		"and culprit instructions (SOSP'97 §6). IMAGE is an image key, path or file name in\n"
		"the database; PROC a function name, proc_<hex> or an address inside it.\n"
		"When the image has DWARF line information (built with -g), each run of\n"
		"instructions from one source line is headed by file:line and the line's text, and\n"
		"code inlined from another function by its inline chain.\n"
		"When the image has ProfileMe samples (record --mode profileme --cpu ev6), the\n"
		"executions come from their retire counts instead, with each instruction's mean\n"
		"cycles per pipeline stage (the header says so).\n\n"
		"Options:\n"
		"  -d, --db DIR          the database (default $AXPROF_DB, else ./axprof-db)\n"
		"  --epoch N             that epoch (default the current one)\n"
		"  --period P            mean CYCLES sampling period, P or LO-HI (default: the one the\n"
		"                        database stored, else 62000, the recorder's default)\n"
		"  --event-period E=P    mean period of event E (imiss, dmiss, dtbmiss, itbmiss,\n"
		"                        branchmp; default the stored one); events without one do not\n"
		"                        bound stalls\n"
		"  -n, --top N           without PROC: the N procedures with most samples (default 5;\n"
		"                        0: all)\n"
		"  --sort FIELD          without PROC: samples (default), name or address: the\n"
		"                        order of the -n procedures with most samples\n"
		"  --percent-limit P     without PROC: only procedures with at least P percent of\n"
		"                        the image's CYCLES samples\n"
		"  --min-samples N       without PROC: only procedures with at least N samples\n"
		"  --no-demangle         print C++ symbols as the file has them (mangled)\n"
		"  --json                one JSON document per procedure (JSON Lines;\n"
		"                        docs/axprof-json.7)\n"
		"  --skip-damaged        leave out damaged database files, naming them on stderr and\n"
		"                        in the output (axprof-fsck(1) lists and repairs them)\n"
		"  --freq-csv FILE       also write every instruction's estimated frequency as CSV\n"
		"  --source-dir DIR      look for source files in DIR (default: where DWARF says\n"
		"                        they were compiled)\n"
		"  --help                this text\n\n"
		"Exit status: 0, 1 when the database, image or procedure cannot be read, 2 for bad\n"
		"options.\n");
}

static const char *const ev_names[AN_EV_NR] = { "cycles",  "imiss",   "dmiss",
						"dtbmiss", "itbmiss", "branchmp" };

static const char *reason_text(unsigned int r)
{
	switch (r) {
	case AN_STALL_DEP:
		return "waits for an operand of";
	case AN_STALL_SLOT:
		return "issue slot or pipe taken";
	case AN_STALL_LDST:
		return "load two cycles after the store";
	case AN_STALL_UNIT:
		return "unit busy with";
	case AN_STALL_BARRIER:
		return "barrier waits for earlier results";
	default:
		return "static";
	}
}

static void insn_text(const struct an_fi_insn *in, char *buf, size_t size)
{
	char *p;

	if (isa_dis_format(in->word, in->pc, NULL, buf, size) < 0 && size)
		buf[size - 1] = 0;
	for (p = buf; *p; p++)
		if (*p == '\t')
			*p = ' ';
	/* objdump keeps a trailing tab after nop/unop: drop it */
	while (p > buf && p[-1] == ' ')
		*--p = 0;
}

/* ---- text ---- */

static void print_dynamic(const struct an_fi_proc *fp, const struct an_fi_insn *in)
{
	const struct an_cp_result *r = &in->cp;
	double per = r->f > 0 ? r->dyn / r->f : 0;
	char t[ISA_DIS_TEXT_MAX];

	if (r->dyn <= 0 || in->samples[AN_EV_CYCLES] == 0)
		return;
	if (r->f > 0)
		printf("%22s dynamic stall %.1f cycles per execution (%.0f samples):", "", per,
		       r->dyn);
	else
		printf("%22s %.0f samples while the block's frequency is 0:", "", r->dyn);
	if (!r->cand) {
		printf(" unexplained\n");
		return;
	}
	printf("\n");
	for (unsigned int c = 0; c < AN_CAUSE_NR; c++) {
		if (!(r->cand & (1u << c)) || r->hi[c] <= 0)
			continue;
		printf("%24s %-20s %5.1f%% to %5.1f%%", "", an_cause_label(c),
		       100 * r->lo[c] / r->dyn, 100 * r->hi[c] / r->dyn);
		if (r->culprit[c] != AN_NONE) {
			insn_text(&fp->insn[r->culprit[c]], t, sizeof(t));
			printf("  <- 0x%" PRIx64 " %s", fp->insn[r->culprit[c]].pc, t);
		}
		printf("\n");
	}
	if (r->unexplained > 0)
		printf("%24s %-20s %5.1f%%\n", "", "unexplained", 100 * r->unexplained / r->dyn);
}

static void print_static(const struct an_fi_proc *fp, const struct an_fi_insn *in)
{
	char t[ISA_DIS_TEXT_MAX];

	if (!in->sched.stall)
		return;
	printf("%22s static stall %u cycle%s: %s", "", in->sched.stall,
	       in->sched.stall == 1 ? "" : "s", reason_text(in->sched.reason));
	if (in->static_culprit >= 0) {
		insn_text(&fp->insn[in->static_culprit], t, sizeof(t));
		printf(" 0x%" PRIx64 " %s", fp->insn[in->static_culprit].pc, t);
		if (in->sched.reason == AN_STALL_DEP)
			printf(" (latency %u)", in->sched.lat);
	}
	printf("\n");
}

/* The source line heading a run of instructions, the file's whereabouts once, the inline chain. */
static void print_source(const struct ann *a, const struct tl_view_image *vi, uint64_t pc,
			 struct img_line *prev)
{
	struct img_inline ch[8];
	struct img_line ln;
	const char *text, *where, *b;
	bool first;
	size_t nch;

	if (!tl_view_line(vi, pc, &ln)) {
		if (prev->file)
			printf("  (no line information)\n");
		prev->file = NULL;
		return;
	}
	if (prev->file && prev->line == ln.line && !strcmp(prev->file, ln.file))
		return;
	*prev = ln;
	text = tl_source_line(a->src, &ln, &first, &where);
	if (first && text)
		printf("  source %s: %s\n", ln.file, where);
	else if (first)
		printf("  source %s: not found (tried %s; --source-dir DIR names another place)\n",
		       ln.file, where);
	b = strrchr(ln.file, '/');
	printf("  %s:%u%s%s\n", b ? b + 1 : ln.file, ln.line, text ? "  " : "", text ? text : "");
	nch = img_line_inlines(tl_view_lines(vi, NULL), pc, ch, 8);
	for (size_t k = 0; k < nch && k < 8; k++) {
		b = strrchr(ch[k].call_file, '/');
		printf("    inlined %s, called at %s:%u\n",
		       ch[k].func[0] ? tl_sym_name(ch[k].func) : "?", b ? b + 1 : ch[k].call_file,
		       ch[k].call_line);
	}
}

static void print_text(const struct ann *a, const struct tl_view_image *vi,
		       const struct an_fi_proc *fp)
{
	struct img_line prev = { 0 };
	const char *why;
	const struct an_cfg *cfg = fp->cfg;
	struct an_stall_summary s;
	double P = fp->period[AN_EV_CYCLES];
	uint32_t prev_block = UINT32_MAX;
	char t[ISA_DIS_TEXT_MAX];

	an_stall_summary(fp, &s);
	printf("image %s, procedure %s [0x%" PRIx64 ", 0x%" PRIx64 ")%s\n", vi->name,
	       tl_sym_name(fp->name), fp->proc->start, fp->proc->end,
	       (cfg->flags & AN_CFG_MISSING_EDGES) ? ", CFG missing edges" : "");
	if (!a->pme || fp->samples[AN_EV_CYCLES]) {
		printf("mean CYCLES period %.0f%s", P, tl_psrc_note(a->psrc));
		for (unsigned int e = 1; e < AN_EV_NR; e++)
			if (fp->period[e] > 0)
				printf(", %s period %.4g", ev_names[e], fp->period[e]);
		printf("\n");
	}
	if (a->pme)
		printf("execution frequency from ProfileMe (%" PRIu64 " samples in the procedure): "
		       "retired samples x mean interval, not estimated from CYCLES samples; samples: "
		       "ProfileMe samples; CPI: mean inum retire delay\n",
		       pme_samples_in(a, fp->proc->start, fp->proc->end));
	if (!a->pme || fp->samples[AN_EV_CYCLES])
		an_stall_summary_print(stdout, NULL, &s);
	if (!tl_view_lines(vi, &why))
		printf("no source lines: %s\n", why);
	printf("\n%-18s %8s %12s %7s %2s %-6s  %s\n", "address", "samples", "executions", "CPI",
	       "M", "conf", "instruction");
	for (uint32_t i = 0; i < fp->ninsns; i++) {
		const struct an_fi_insn *in = &fp->insn[i];

		if (in->block != prev_block) {
			const struct an_block *bl = &cfg->block[in->block];
			const struct an_fest *c = &fp->cls[bl->cls];

			if (a->pme)
				printf("  --- block %u: %.4g executions (ProfileMe)%s%s\n",
				       in->block, pme_block_exec(a, fp, in->block),
				       (bl->flags & AN_BLK_UNREACHABLE) ? ", unreachable" : "",
				       (bl->flags & AN_BLK_ENTRY) ? ", entry" : "");
			else
				printf("  --- block %u, class %u: %.4g executions (%s, %s confidence)%s%s\n",
				       in->block, bl->cls, c->f * P, an_fhow_name(c->how),
				       an_conf_name(c->conf),
				       (bl->flags & AN_BLK_UNREACHABLE) ? ", unreachable" : "",
				       (bl->flags & AN_BLK_ENTRY) ? ", entry" : "");
			prev_block = in->block;
		}
		if (tl_view_lines(vi, NULL))
			print_source(a, vi, in->pc, &prev);
		print_static(fp, in);
		print_dynamic(fp, in);
		if (a->pme)
			pme_print_stages(a, in);
		insn_text(in, t, sizeof(t));
		printf("0x%016" PRIx64 " %8" PRIu64 " %12.4g", in->pc,
		       a->pme ? (pme_at(a, in->pc) ? pme_samples(pme_at(a, in->pc)) : 0) :
				in->samples[AN_EV_CYCLES],
		       insn_exec(a, in, P));
		if (a->pme)
			pme_print_insn(a, in);
		else if (in->cp.f > 0)
			printf(" %7.2f", in->cp.cpi);
		else
			printf(" %7s", "-");
		printf(" %2u %-6s  %s\n", in->sched.m, an_conf_name(in->conf), t);
	}
	printf("\n");
}

/* ---- JSON ---- */

static void json_blocks(struct ax_json *j, const struct ann *a, const struct an_fi_proc *fp,
			double P)
{
	const struct an_cfg *cfg = fp->cfg;

	ax_json_arr_open(j, "blocks");
	for (uint32_t b = 0; b < cfg->nblocks; b++) {
		const struct an_block *bl = &cfg->block[b];
		const struct an_fest *c = &fp->cls[bl->cls];

		ax_json_obj_open(j, NULL);
		ax_json_hex(j, "address", bl->addr);
		ax_json_u64(j, "insns", bl->n);
		ax_json_u64(j, "class", bl->cls);
		ax_json_num(j, "executions", a->pme ? pme_block_exec(a, fp, b) : c->f * P, 3);
		ax_json_str(j, "how", a->pme ? "profileme" : an_fhow_name(c->how));
		ax_json_str(j, "confidence", an_conf_name(c->conf));
		ax_json_u64(j, "issue_points", c->points);
		ax_json_u64(j, "used", c->used);
		ax_json_obj_close(j);
	}
	ax_json_arr_close(j);
}

static void json_edges(struct ax_json *j, const struct an_fi_proc *fp, double P)
{
	const struct an_cfg *cfg = fp->cfg;

	ax_json_arr_open(j, "edges");
	for (uint32_t e = 0; e < cfg->nedges; e++) {
		const struct an_edge *ed = &cfg->edge[e];

		if (ed->from >= cfg->nblocks || ed->to >= cfg->nblocks)
			continue;
		ax_json_obj_open(j, NULL);
		ax_json_u64(j, "from", ed->from);
		ax_json_u64(j, "to", ed->to);
		ax_json_str(j, "kind", an_edge_kind_name[ed->kind]);
		ax_json_num(j, "executions", fp->edge_f[e] >= 0 ? fp->edge_f[e] * P : -1.0, 3);
		ax_json_obj_close(j);
	}
	ax_json_arr_close(j);
}

static void json_dynamic(struct ax_json *j, const struct an_fi_proc *fp,
			 const struct an_cp_result *r)
{
	ax_json_obj_open(j, "dynamic_stall");
	ax_json_num(j, "samples", r->dyn, 3);
	ax_json_num(j, "cycles", r->f > 0 ? r->dyn / r->f : 0.0, 4);
	ax_json_obj_open(j, "causes");
	for (unsigned int c = 0; c < AN_CAUSE_NR; c++) {
		if (!(r->cand & (1u << c)))
			continue;
		ax_json_obj_open(j, an_cause_name(c));
		ax_json_num(j, "lo", r->lo[c], 3);
		ax_json_num(j, "hi", r->hi[c], 3);
		if (r->culprit[c] != AN_NONE)
			ax_json_hex(j, "culprit", fp->insn[r->culprit[c]].pc);
		ax_json_obj_close(j);
	}
	ax_json_obj_close(j);
	ax_json_num(j, "unexplained", r->unexplained, 3);
	ax_json_obj_close(j);
}

/* "inlined": the inline chain at pc, innermost first (nothing when none). */
static void json_inlined(struct ax_json *j, const struct tl_view_image *vi, uint64_t pc)
{
	struct img_inline ch[8];
	size_t n = img_line_inlines(tl_view_lines(vi, NULL), pc, ch, 8);

	if (!n)
		return;
	ax_json_arr_open(j, "inlined");
	for (size_t k = 0; k < n && k < 8; k++) {
		ax_json_obj_open(j, NULL);
		tl_sym_json(j, "procedure", tl_sym_name(ch[k].func));
		ax_json_str(j, "file", ch[k].call_file);
		ax_json_u64(j, "line", ch[k].call_line);
		ax_json_obj_close(j);
	}
	ax_json_arr_close(j);
}

static void json_insn(struct ax_json *j, const struct ann *a, const struct tl_view_image *vi,
		      const struct an_fi_proc *fp, const struct an_fi_insn *in, double P)
{
	const struct an_cp_result *r = &in->cp;
	char t[ISA_DIS_TEXT_MAX];

	insn_text(in, t, sizeof(t));
	ax_json_obj_open(j, NULL);
	ax_json_hex(j, "address", in->pc);
	ax_json_str(j, "text", t);
	tl_view_line_json(j, vi, in->pc);
	json_inlined(j, vi, in->pc);
	ax_json_u64(j, "block", in->block);
	ax_json_u64(j, "samples", in->samples[AN_EV_CYCLES]);
	ax_json_num(j, "executions", insn_exec(a, in, P), 3);
	ax_json_num(j, "cpi", r->cpi, 4);
	pme_json_insn(j, a, in);
	ax_json_u64(j, "m", in->sched.m);
	ax_json_str(j, "confidence", an_conf_name(in->conf));
	ax_json_obj_open(j, "static_stall");
	ax_json_u64(j, "cycles", in->sched.stall);
	ax_json_str(j, "reason", an_stall_name[in->sched.reason]);
	if (in->static_culprit >= 0)
		ax_json_hex(j, "culprit", fp->insn[in->static_culprit].pc);
	ax_json_obj_close(j);
	json_dynamic(j, fp, r);
	ax_json_obj_open(j, "samples_by_event");
	for (unsigned int e = 1; e < AN_EV_NR; e++)
		if (in->samples[e])
			ax_json_u64(j, ev_names[e], in->samples[e]);
	ax_json_obj_close(j);
	ax_json_obj_close(j);
}

/* One procedure: one document (JSON Lines). */
static void print_json(const struct ann *a, const struct tl_view_image *vi,
		       const struct an_fi_proc *fp)
{
	const struct an_cfg *cfg = fp->cfg;
	struct an_stall_summary s;
	double P = fp->period[AN_EV_CYCLES];
	struct ax_json j;

	an_stall_summary(fp, &s);
	ax_json_doc_open(&j, stdout, "annotate");
	ax_json_str(&j, "database", pdb_dir(a->v.db));
	ax_json_u64(&j, "epoch", a->v.epoch);
	tl_view_json_skipped(&j, &a->v);
	ax_json_str(&j, "image", vi->name);
	ax_json_str(&j, "key", vi->img.key);
	tl_sym_json(&j, "procedure", tl_sym_name(fp->name));
	ax_json_hex(&j, "start", fp->proc->start);
	ax_json_hex(&j, "end", fp->proc->end);
	ax_json_num(&j, "period", P, 3);
	ax_json_bool(&j, "period_assumed", a->psrc == TL_PSRC_ASSUMED);
	ax_json_bool(&j, "missing_edges", cfg->flags & AN_CFG_MISSING_EDGES);
	tl_json_stall_summary(&j, "summary", &s);
	ax_json_str(&j, "frequency", a->pme ? "profileme" : "cycles");
	json_blocks(&j, a, fp, P);
	json_edges(&j, fp, P);
	ax_json_arr_open(&j, "instructions");
	for (uint32_t i = 0; i < fp->ninsns; i++)
		json_insn(&j, a, vi, fp, &fp->insn[i], P);
	ax_json_arr_close(&j);
	ax_json_doc_close(&j);
}

static void write_csv(struct ann *a, const struct tl_view_image *vi, const struct an_fi_proc *fp)
{
	double P = fp->period[AN_EV_CYCLES];

	for (uint32_t i = 0; i < fp->ninsns; i++) {
		const struct an_fi_insn *in = &fp->insn[i];

		fprintf(a->csv, "%s,%s,0x%" PRIx64 ",%u,%u,%" PRIu64 ",%u,%.6f,%.3f,%.4f,%s,%s\n",
			vi->img.key, fp->name, in->pc, in->block, fp->cfg->block[in->block].cls,
			in->samples[AN_EV_CYCLES], in->sched.m, in->cp.f, insn_exec(a, in, P),
			in->cp.cpi, an_conf_name(in->conf), an_fhow_name(in->how));
	}
}

/* ---- driver ---- */

struct pick {
	const struct an_proc *p;
	uint64_t samples;
};

/* --sort of the procedures without PROC: samples (default), name, address (of the -n chosen). */
static const char *const sort_fields[] = { "samples", "name", "address" };
enum { SORT_SAMPLES, SORT_NAME, SORT_ADDRESS };
static int sort_key;

static int cmp_pick(const void *x, const void *y)
{
	const struct pick *a = x, *b = y;
	int k;

	if (sort_key == SORT_NAME && (k = strcmp(tl_sym_name(a->p->name ? a->p->name : ""),
						 tl_sym_name(b->p->name ? b->p->name : ""))))
		return k;
	if (sort_key == SORT_ADDRESS && a->p->start != b->p->start)
		return a->p->start < b->p->start ? -1 : 1;
	if (a->samples != b->samples)
		return a->samples < b->samples ? 1 : -1;
	return (a->p->start > b->p->start) - (a->p->start < b->p->start);
}

static uint64_t pick_samples(const void *p)
{
	return ((const struct pick *)p)->samples;
}

static int annotate_image(struct ann *a, const struct tl_view_image *vi)
{
	struct an_fi_image *im = NULL;
	struct pick *pk = NULL;
	size_t npk = 0, k;
	struct ax_error err;
	int ret;

	if (!vi->img.path || !*vi->img.path) {
		fprintf(stderr,
			"axprof annotate: %s: the database does not know the image's file\n",
			vi->name);
		return 1;
	}
	ret = tl_fi_open(vi->img.path, vi->prof, &im, &err);
	if (ret) {
		fprintf(stderr, "axprof annotate: %s\n", err.msg);
		return 1;
	}
	a->psrc = tl_periods_for(&a->per, vi->prof, a->o.period);
	free(a->pme);
	a->pme = NULL;
	a->npme = 0;
	if (vi->prof && pdb_prof_profileme(vi->prof, &a->pme, &a->npme))
		goto nomem;
	if (a->proc) {
		const struct an_proc *p = tl_sym_proc_lookup(an_fi_procs(im), a->proc);

		if (!p) {
			fprintf(stderr, "axprof annotate: %s: no procedure '%s'\n", vi->name,
				a->proc);
			goto fail;
		}
		pk = calloc(1, sizeof(*pk));
		if (!pk)
			goto nomem;
		pk[0].p = p;
		npk = 1;
	} else {
		const struct an_procs *ps = an_fi_procs(im);

		pk = calloc(ps->n + 1, sizeof(*pk));
		if (!pk)
			goto nomem;
		for (k = 0; k < ps->n; k++) {
			uint64_t s = a->pme ? pme_samples_in(a, ps->v[k].start, ps->v[k].end) :
					      an_fi_samples_in(im, AN_EV_CYCLES, ps->v[k].start,
							       ps->v[k].end);

			if (s)
				pk[npk++] = (struct pick){ &ps->v[k], s };
		}
		if (!npk) {
			fprintf(stderr, "axprof annotate: %s: no %s samples in any procedure\n",
				vi->name, a->pme ? "ProfileMe" : "CYCLES");
			goto fail;
		}
		npk = tl_rows_sort(&a->ro, pk, npk, sizeof(*pk), cmp_pick, &sort_key,
				   sort_key != SORT_SAMPLES, pick_samples,
				   a->pme ? pme_samples_in(a, 0, UINT64_MAX) :
					    vi->total[PDB_EV_CYCLES]);
		if (!npk)
			fprintf(stderr,
				"axprof annotate: %s: no procedure has --min-samples %" PRIu64
				" and --percent-limit %g%% of the image's CYCLES samples\n",
				vi->name, a->ro.min_samples, a->ro.percent_limit);
	}
	for (k = 0; k < npk; k++) {
		struct an_fi_proc *fp;

		ret = an_fi_analyze(im, pk[k].p, &a->o, &fp, &err);
		if (ret) {
			fprintf(stderr, "axprof annotate: %s: %s\n", vi->name, err.msg);
			goto fail;
		}
		if (!fp->samples[AN_EV_CYCLES] && a->proc && !a->pme)
			fprintf(stderr,
				"axprof annotate: %s: procedure %s has no CYCLES samples: nothing to estimate\n",
				vi->name, fp->name);
		if (a->ro.json)
			print_json(a, vi, fp);
		else
			print_text(a, vi, fp);
		if (a->csv)
			write_csv(a, vi, fp);
		an_fi_proc_free(fp);
	}
	free(pk);
	an_fi_close(im);
	return 0;
nomem:
	fprintf(stderr, "axprof annotate: out of memory\n");
fail:
	free(pk);
	an_fi_close(im);
	return 1;
}

int cmd_annotate(int argc, char **argv)
{
	enum { O_PERIOD = 256, O_EVPERIOD, O_CSV, O_HELP, O_SRCDIR };
	static const struct option longopts[] = {
		TL_LONGOPT_DB,
		TL_LONGOPT_EPOCH,
		TL_LONGOPT_JSON,
		TL_LONGOPT_TOP,
		TL_LONGOPT_PERCENT_LIMIT,
		TL_LONGOPT_MIN_SAMPLES,
		TL_LONGOPT_SKIP_DAMAGED,
		TL_LONGOPT_NO_DEMANGLE,
		TL_LONGOPT_SORT,
		{ "period", required_argument, NULL, O_PERIOD },
		{ "event-period", required_argument, NULL, O_EVPERIOD },
		{ "freq-csv", required_argument, NULL, O_CSV },
		{ "source-dir", required_argument, NULL, O_SRCDIR },
		{ "help", no_argument, NULL, O_HELP },
		{ NULL, 0, NULL, 0 },
	};
	struct ann a = { 0 };
	const struct tl_view_image **sel = NULL;
	const char *srcdir = NULL;
	struct ax_error err;
	size_t n;
	int c, ret = 0;

	tl_ropts_init(&a.ro, "axprof annotate", 5);
	optind = 1;
	while ((c = getopt_long(argc, argv, "d:n:", longopts, NULL)) != -1) {
		ret = tl_ropts_parse(&a.ro, c, optarg);
		if (ret == 2)
			return 2;
		if (ret)
			continue;
		switch (c) {
		case O_PERIOD:
			if (tl_period_parse("axprof annotate", optarg, a.per.given))
				return 2;
			break;
		case O_EVPERIOD:
			if (tl_event_period_parse("axprof annotate", optarg, a.per.given))
				return 2;
			break;
		case O_CSV:
			a.csv_path = optarg;
			break;
		case O_SRCDIR:
			if (tl_check_dir("axprof annotate", "--source-dir", optarg))
				return 2;
			srcdir = optarg;
			break;
		case O_HELP:
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	ret = 0;
	if (optind >= argc || argc - optind > 2) {
		fprintf(stderr,
			"axprof annotate: need IMAGE [PROC] (see 'axprof annotate --help')\n");
		return 2;
	}
	a.image = argv[optind];
	a.proc = optind + 1 < argc ? argv[optind + 1] : NULL;
	sort_key =
		tl_sort_pick(&a.ro, NULL, sort_fields, sizeof(sort_fields) / sizeof(*sort_fields));
	if (sort_key < 0)
		return 2;
	a.src = tl_sources_new(srcdir);
	if (!a.src) {
		fprintf(stderr, "axprof annotate: out of memory\n");
		return 1;
	}
	ret = tl_view_open_ro(&a.v, &a.ro, &err);
	if (ret) {
		fprintf(stderr, "axprof annotate: %s\n", err.msg);
		tl_sources_free(a.src);
		return 1;
	}
	sel = calloc(a.v.n + 1, sizeof(*sel));
	if (!sel) {
		fprintf(stderr, "axprof annotate: out of memory\n");
		tl_view_close(&a.v);
		return 1;
	}
	n = tl_view_select(&a.v, a.image, PDB_EV_CYCLES, sel);
	if (!n) {
		fprintf(stderr,
			"axprof annotate: no image '%s' in %s epoch %u (see 'axprof report')\n",
			a.image, a.ro.db, a.v.epoch);
		ret = 1;
		goto out;
	}
	if (a.csv_path) {
		a.csv = fopen(a.csv_path, "w");
		if (!a.csv) {
			fprintf(stderr, "axprof annotate: cannot create %s: %s\n", a.csv_path,
				strerror(errno));
			ret = 1;
			goto out;
		}
		fprintf(a.csv, "image,procedure,addr,block,class,samples,m,f,executions,cpi,"
			       "confidence,how\n");
	}
	/* Several files with the same name: the one with the most samples. */
	ret = annotate_image(&a, sel[0]);
	if (a.csv && fclose(a.csv)) {
		fprintf(stderr, "axprof annotate: error writing %s\n", a.csv_path);
		ret = 1;
	}
out:
	free(a.pme);
	free(sel);
	tl_view_close(&a.v);
	tl_sources_free(a.src);
	return ret;
}
