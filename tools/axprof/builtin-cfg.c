/* tools/axprof/builtin-cfg.c - `axprof cfg`: procedures, CFGs, frequency classes, EV5 schedule. */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "an_cfg.h"
#include "isa_dis.h"
#include "img.h"
#include "an_proc.h"
#include "an_sched.h"
#include "axprof/builtin.h"
#include "mach_truth.h"

static const char cfg_usage[] =
	"usage: axprof cfg [--help] [--json | --dot] IMAGE [PROC]\n"
	"       axprof cfg --check [--truth FILE [--base ADDR]] IMAGE\n"
	"\n"
	"Analyse the code of the Alpha ELF file IMAGE as DCPI's analysis does before it looks at\n"
	"samples: procedures (from symbols, or found from the code when there are none), the\n"
	"control flow graph of each, its frequency equivalence classes (cycle equivalence), and\n"
	"the static EV5 (21164) schedule of every basic block.\n"
	"\n"
	"Without PROC, one line per procedure: address range, blocks, edges, classes, and\n"
	"'guessed' (boundaries found from code) or 'missing' (an indirect jump whose targets were\n"
	"not found: every block and edge is then its own class). With PROC (a symbol name, a\n"
	"proc_<hex> name, or a 0x address inside it), its blocks with their instructions, each\n"
	"with its issue cycle, M (cycles at the head of the issue stage without dynamic stalls;\n"
	"'*' marks an issue point, M > 0) and the static stall's reason and culprit, then its\n"
	"edges with their kinds and classes, and its jump tables.\n"
	"\n"
	"  --json   JSON: one object per procedure per line (summary), or one object (PROC)\n"
	"  --dot    Graphviz digraph of PROC's CFG (blocks labelled with their classes)\n"
	"  --check  check the invariants of every procedure's CFG and print counts; exit 1 on a\n"
	"           violation (used by make check over libc and libm)\n"
	"  --truth FILE  with --check: also check the classes against the execution counts in\n"
	"           a ground-truth file of the hosted machine (axprof run --cpu ev5 --truth\n"
	"           FILE): the blocks and edges of a class must have run equally often (within 2:\n"
	"           calls still running at exit), every instruction of a block as often as it\n"
	"  --base ADDR   where IMAGE was loaded in that run (shared objects; default 0)\n"
	"  --help   this text\n"
	"\n"
	"Exit status: 0 ok, 1 the file could not be analysed (or --check failed), 2 usage.\n";

static int __attribute__((format(printf, 1, 2))) usage_error(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "axprof cfg: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\n(see 'axprof cfg --help')\n");
	return 2;
}

static const char *hint_for(int err)
{
	switch (err) {
	case -ENOENT:
		return "check the file name";
	case -EACCES:
	case -EPERM:
		return "check the file's permissions";
	case -ENOEXEC:
		return "axprof cfg reads Alpha ELF files (alpha-linux-gnu-gcc output, Alpha libraries)";
	case -EBADMSG:
		return "the file is damaged or was cut short; rebuild or copy it again";
	default:
		return NULL;
	}
}

/* A JSON string (names come from the file: escape everything). */
static void json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20 || c >= 0x7f)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

/* Instruction text with objdump's tab turned into padding. */
static void insn_text(uint32_t word, uint64_t pc, char *buf, size_t size)
{
	char raw[ISA_DIS_TEXT_MAX];
	char *tab;

	if (isa_dis_format(word, pc, NULL, raw, sizeof(raw)) < 0)
		snprintf(raw, sizeof(raw), ".long 0x%08x", word);
	tab = strchr(raw, '\t');
	if (tab) {
		*tab = '\0';
		snprintf(buf, size, "%-8s%s", raw, tab + 1);
	} else {
		snprintf(buf, size, "%s", raw);
	}
	/* drop objdump's trailing padding of nop/unop */
	for (size_t n = strlen(buf); n && buf[n - 1] == ' '; n--)
		buf[n - 1] = '\0';
}

static const char *node_name(uint32_t n, char *buf, size_t size)
{
	if (n == AN_NODE_ENTRY)
		return "ENTRY";
	if (n == AN_NODE_EXIT)
		return "EXIT";
	snprintf(buf, size, "b%u", n);
	return buf;
}

/* One procedure's analysis: CFG with classes and schedule. */
struct pa {
	struct an_cfg *cfg;
	struct an_sched_insn *sched;
};

static void pa_free(struct pa *a)
{
	an_cfg_free(a->cfg);
	free(a->sched);
	a->cfg = NULL;
	a->sched = NULL;
}

static int analyse(const struct an_procs *ps, const struct an_proc *p,
		   const struct an_sched_model *m, struct pa *a, char *err, size_t errlen)
{
	int ret = an_cfg_build(ps, p, &a->cfg, err, errlen);

	if (ret)
		return ret;
	ret = an_cfg_classes(a->cfg);
	if (!ret) {
		a->sched = malloc((size_t)a->cfg->ninsns * sizeof(*a->sched));
		ret = a->sched ? an_sched_cfg(m, a->cfg, a->sched) : -ENOMEM;
	}
	if (ret) {
		snprintf(err, errlen, "analysing 0x%" PRIx64 ": %s", p->start, strerror(-ret));
		pa_free(a);
	}
	return ret;
}

/* ------------------------------------------------------------------------------------------ */
/* Output. */

static void print_summary(FILE *f, const struct an_proc *p, const struct an_cfg *cfg, bool json)
{
	char name[512];

	an_proc_name(p, name, sizeof(name));
	if (json) {
		fprintf(f, "{\"proc\":");
		json_str(f, name);
		fprintf(f,
			",\"start\":\"0x%" PRIx64 "\",\"end\":\"0x%" PRIx64 "\",\"insns\":%u,"
			"\"blocks\":%u,\"edges\":%u,\"classes\":%u,\"unreachable\":%u,"
			"\"guessed\":%s,\"missing_edges\":%s}\n",
			p->start, p->end, cfg->ninsns, cfg->nblocks, cfg->nedges, cfg->nclasses,
			cfg->nunreachable, (p->flags & AN_PROC_GUESSED) ? "true" : "false",
			(cfg->flags & AN_CFG_MISSING_EDGES) ? "true" : "false");
		return;
	}
	fprintf(f,
		"0x%016" PRIx64 " 0x%016" PRIx64
		" %-7s %-7s blocks %5u edges %5u classes %5u  %s\n",
		p->start, p->end, (p->flags & AN_PROC_GUESSED) ? "guessed" : "symbol",
		(cfg->flags & AN_CFG_MISSING_EDGES) ? "missing" : "-", cfg->nblocks, cfg->nedges,
		cfg->nclasses, name);
}

static void block_flags(FILE *f, uint32_t fl, bool json)
{
	static const struct {
		uint32_t bit;
		const char *name;
	} names[] = {
		{ AN_BLK_ENTRY, "entry" },
		{ AN_BLK_UNREACHABLE, "unreachable" },
		{ AN_BLK_PAD, "pad" },
		{ AN_BLK_JMP, "jmp" },
		{ AN_BLK_UNRESOLVED, "unresolved" },
		{ AN_BLK_CALL, "call" },
	};
	bool first = true;

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		if (!(fl & names[i].bit))
			continue;
		if (json)
			fprintf(f, "%s\"%s\"", first ? "" : ",", names[i].name);
		else
			fprintf(f, " [%s]", names[i].name);
		first = false;
	}
}

static void print_edge_text(FILE *f, const struct an_cfg *cfg, uint32_t e)
{
	const struct an_edge *ed = &cfg->edge[e];
	char a[32], b[32];

	fprintf(f, "%s -> %s %s%s%s class %u", node_name(ed->from, a, sizeof(a)),
		node_name(ed->to, b, sizeof(b)), an_edge_kind_name[ed->kind], ed->why ? "/" : "",
		an_exit_why_name[ed->why], ed->cls);
}

static void print_text(FILE *f, const struct an_proc *p, const struct pa *a)
{
	const struct an_cfg *cfg = a->cfg;
	char name[512], text[128];

	an_proc_name(p, name, sizeof(name));
	fprintf(f, "proc %s 0x%" PRIx64 "-0x%" PRIx64 " insns %u blocks %u edges %u classes %u",
		name, p->start, p->end, cfg->ninsns, cfg->nblocks, cfg->nedges, cfg->nclasses);
	if (p->flags & (AN_PROC_GP | AN_PROC_GP_INHERITED))
		fprintf(f, " gp 0x%" PRIx64 "%s", p->gp,
			(p->flags & AN_PROC_GP_INHERITED) ? " (inherited)" : "");
	fprintf(f, "%s%s\n", (p->flags & AN_PROC_GUESSED) ? " [guessed]" : "",
		(cfg->flags & AN_CFG_MISSING_EDGES) ? " [missing-edges]" : "");
	for (uint32_t j = 0; j < cfg->njtabs; j++) {
		const struct an_jtab *jt = &cfg->jtab[j];

		fprintf(f, "jmp 0x%" PRIx64 ": ", jt->jmp);
		if (jt->resolved)
			fprintf(f, "table 0x%" PRIx64 " base 0x%" PRIx64 " entries %u\n", jt->table,
				jt->base, jt->n);
		else if (jt->n)
			fprintf(f,
				"table 0x%" PRIx64 " base 0x%" PRIx64 " entries %u, targets "
				"0x%" PRIx64 "-0x%" PRIx64 " not all inside\n",
				jt->table, jt->base, jt->n, jt->tmin, jt->tmax);
		else if (jt->table)
			fprintf(f, "table 0x%" PRIx64 " (bound not found)\n", jt->table);
		else
			fprintf(f, "no jump table\n");
	}
	for (uint32_t b = 0; b < cfg->nblocks; b++) {
		const struct an_block *bl = &cfg->block[b];

		fprintf(f, "\nblock b%u 0x%" PRIx64 " insns %u class %u", b, bl->addr, bl->n,
			bl->cls);
		block_flags(f, bl->flags, false);
		fputc('\n', f);
		for (uint32_t k = bl->pred; k < bl->pred + bl->npred; k++) {
			fputs("  in  ", f);
			print_edge_text(f, cfg, cfg->pred[k]);
			fputc('\n', f);
		}
		for (uint32_t i = bl->first; i < bl->first + bl->n; i++) {
			const struct an_sched_insn *s = &a->sched[i];
			uint64_t pc = an_cfg_addr(cfg, i);

			insn_text(cfg->insn[i].word, pc, text, sizeof(text));
			fprintf(f, "  %8" PRIx64 ":  %08x  %-32s cyc %3u  M %2u %c %-3s", pc,
				cfg->insn[i].word, text, s->cycle, s->m, s->m ? '*' : ' ',
				an_sched_pipe_name(s->pipe));
			if (s->stall) {
				fprintf(f, "  stall %u %s", s->stall, an_stall_name[s->reason]);
				if (s->culprit_pc != UINT64_MAX)
					fprintf(f, " on %" PRIx64, s->culprit_pc);
				if (s->reason == AN_STALL_DEP)
					fprintf(f, " lat %u", s->lat);
			}
			fputc('\n', f);
		}
		for (uint32_t e = bl->succ; e < bl->succ + bl->nsucc; e++) {
			fputs("  out ", f);
			print_edge_text(f, cfg, e);
			fputc('\n', f);
		}
	}
}

static void json_node(FILE *f, uint32_t n)
{
	if (n == AN_NODE_ENTRY)
		fputs("\"entry\"", f);
	else if (n == AN_NODE_EXIT)
		fputs("\"exit\"", f);
	else
		fprintf(f, "%u", n);
}

static void print_json(FILE *f, const struct an_proc *p, const struct pa *a)
{
	const struct an_cfg *cfg = a->cfg;
	char name[512], text[128];

	an_proc_name(p, name, sizeof(name));
	fputs("{\"proc\":", f);
	json_str(f, name);
	fprintf(f,
		",\"start\":\"0x%" PRIx64 "\",\"end\":\"0x%" PRIx64 "\",\"insns\":%u,"
		"\"classes\":%u,\"guessed\":%s,\"missing_edges\":%s",
		p->start, p->end, cfg->ninsns, cfg->nclasses,
		(p->flags & AN_PROC_GUESSED) ? "true" : "false",
		(cfg->flags & AN_CFG_MISSING_EDGES) ? "true" : "false");
	if (p->flags & (AN_PROC_GP | AN_PROC_GP_INHERITED))
		fprintf(f, ",\"gp\":\"0x%" PRIx64 "\"", p->gp);
	fputs(",\"blocks\":[", f);
	for (uint32_t b = 0; b < cfg->nblocks; b++) {
		const struct an_block *bl = &cfg->block[b];

		fprintf(f, "%s{\"index\":%u,\"addr\":\"0x%" PRIx64 "\",\"class\":%u,\"flags\":[",
			b ? "," : "", b, bl->addr, bl->cls);
		block_flags(f, bl->flags, true);
		fputs("],\"insns\":[", f);
		for (uint32_t i = bl->first; i < bl->first + bl->n; i++) {
			const struct an_sched_insn *s = &a->sched[i];
			uint64_t pc = an_cfg_addr(cfg, i);

			insn_text(cfg->insn[i].word, pc, text, sizeof(text));
			fprintf(f, "%s{\"addr\":\"0x%" PRIx64 "\",\"word\":\"0x%08x\",\"text\":",
				i == bl->first ? "" : ",", pc, cfg->insn[i].word);
			json_str(f, text);
			fprintf(f,
				",\"cycle\":%u,\"m\":%u,\"issue_point\":%s,\"pipe\":\"%s\","
				"\"stall\":%u,\"reason\":\"%s\"",
				s->cycle, s->m, s->m ? "true" : "false",
				an_sched_pipe_name(s->pipe), s->stall, an_stall_name[s->reason]);
			if (s->culprit_pc != UINT64_MAX)
				fprintf(f, ",\"culprit\":\"0x%" PRIx64 "\"", s->culprit_pc);
			if (s->reason == AN_STALL_DEP)
				fprintf(f, ",\"lat\":%u", s->lat);
			fputc('}', f);
		}
		fputs("]}", f);
	}
	fputs("],\"edges\":[", f);
	for (uint32_t e = 0; e < cfg->nedges; e++) {
		const struct an_edge *ed = &cfg->edge[e];

		fprintf(f, "%s{\"from\":", e ? "," : "");
		json_node(f, ed->from);
		fputs(",\"to\":", f);
		json_node(f, ed->to);
		fprintf(f, ",\"kind\":\"%s\"", an_edge_kind_name[ed->kind]);
		if (ed->why)
			fprintf(f, ",\"why\":\"%s\"", an_exit_why_name[ed->why]);
		fprintf(f, ",\"class\":%u}", ed->cls);
	}
	fputs("],\"jump_tables\":[", f);
	for (uint32_t j = 0; j < cfg->njtabs; j++) {
		const struct an_jtab *jt = &cfg->jtab[j];

		fprintf(f, "%s{\"jmp\":\"0x%" PRIx64 "\",\"resolved\":%s", j ? "," : "", jt->jmp,
			jt->resolved ? "true" : "false");
		if (jt->table)
			fprintf(f, ",\"table\":\"0x%" PRIx64 "\"", jt->table);
		if (jt->resolved)
			fprintf(f, ",\"base\":\"0x%" PRIx64 "\",\"entries\":%u", jt->base, jt->n);
		fputc('}', f);
	}
	fputs("]}\n", f);
}

static void print_dot(FILE *f, const struct an_proc *p, const struct pa *a)
{
	const struct an_cfg *cfg = a->cfg;
	char name[512], x[32], y[32];

	an_proc_name(p, name, sizeof(name));
	fputs("digraph ", f);
	json_str(f, name);
	fputs(" {\n  node [shape=box, fontname=\"monospace\"];\n"
	      "  ENTRY [shape=oval]; EXIT [shape=oval];\n",
	      f);
	for (uint32_t b = 0; b < cfg->nblocks; b++) {
		const struct an_block *bl = &cfg->block[b];

		fprintf(f, "  b%u [label=\"b%u 0x%" PRIx64 " (%u)\\nclass %u\"%s];\n", b, b,
			bl->addr, bl->n, bl->cls,
			(bl->flags & AN_BLK_UNREACHABLE) ? ", style=dashed" : "");
	}
	for (uint32_t e = 0; e < cfg->nedges; e++) {
		const struct an_edge *ed = &cfg->edge[e];

		fprintf(f, "  %s -> %s [label=\"%s c%u\"%s];\n", node_name(ed->from, x, sizeof(x)),
			node_name(ed->to, y, sizeof(y)), an_edge_kind_name[ed->kind], ed->cls,
			ed->kind == AN_EDGE_NORETURN ? ", style=dashed" : "");
	}
	fputs("}\n", f);
}

/* ------------------------------------------------------------------------------------------ */

struct counts {
	size_t procs, guessed, missing, blocks, edges, classes, unreachable, pad;
	size_t jtabs, jtabs_resolved, insns, issue_points;
	size_t t_procs, t_classes, t_bad_classes, t_bad_blocks; /* --truth */
};

struct truthck {
	const struct mach_truth *t;
	uint64_t base;
};

static uint64_t t_exec(const struct truthck *tc, uint64_t pc)
{
	const struct mach_truth_pc *r = mach_truth_find(tc->t, tc->base + pc);

	return r ? r->exec : 0;
}

#define TRUTH_SLACK 2 /* invocations still running when the program exits */

/*
 * Check the classes of one procedure against measured counts: a block's count is its first
 * instruction's; taken, jump-table and branch fall-through edges are measured; other
 * fall-throughs run as often as their block, returns as often as the RET. Call-return, entry
 * and other exit edges are not measured and not checked.
 */
static int truth_check(const struct truthck *tc, const struct an_proc *p, const struct an_cfg *cfg,
		       struct counts *c)
{
	uint32_t nb = cfg->nblocks, ne = cfg->nedges;
	uint64_t *bc = calloc(nb, sizeof(*bc)), *ec = calloc(ne + 1, sizeof(*ec));
	uint64_t *lo = malloc(((size_t)cfg->nclasses + 1) * sizeof(*lo));
	uint64_t *hi = calloc((size_t)cfg->nclasses + 1, sizeof(*hi));
	uint32_t *nm = calloc((size_t)cfg->nclasses + 1, sizeof(*nm));
	uint8_t *known = calloc(ne + 1, 1);
	char name[512];
	uint64_t any = 0;
	int ret = 0;

	if (!bc || !ec || !lo || !hi || !nm || !known) {
		ret = -ENOMEM;
		goto out;
	}
	an_proc_name(p, name, sizeof(name));
	for (uint32_t b = 0; b < nb; b++) {
		const struct an_block *bl = &cfg->block[b];

		bc[b] = t_exec(tc, bl->addr);
		any |= bc[b];
		for (uint32_t i = 1; i < bl->n; i++) {
			uint64_t x = t_exec(tc, an_cfg_addr(cfg, bl->first + i));

			if (x + TRUTH_SLACK < bc[b] || bc[b] + TRUTH_SLACK < x) {
				fprintf(stderr,
					"axprof cfg: truth: %s: block 0x%" PRIx64 " ran %" PRIu64
					" times but 0x%" PRIx64 " %" PRIu64 "\n",
					name, bl->addr, bc[b], an_cfg_addr(cfg, bl->first + i), x);
				c->t_bad_blocks++;
				break;
			}
		}
	}
	if (!any)
		goto out;
	c->t_procs++;
	for (uint32_t e = 0; e < ne; e++) {
		const struct an_edge *ed = &cfg->edge[e];
		const struct an_block *fb;
		uint64_t last;

		if (ed->from == AN_NODE_ENTRY)
			continue;
		fb = &cfg->block[ed->from];
		last = an_cfg_addr(cfg, fb->first + fb->n - 1);
		known[e] = 1;
		switch (ed->kind) {
		case AN_EDGE_TAKEN:
		case AN_EDGE_JTAB:
			ec[e] = mach_truth_edge_count(tc->t, tc->base + last,
						      tc->base + cfg->block[ed->to].addr);
			break;
		case AN_EDGE_FALL:
			if (axp_op_info[cfg->insn[fb->first + fb->n - 1].op].fmt == AXP_FMT_BRA)
				ec[e] = mach_truth_edge_count(tc->t, tc->base + last,
							      tc->base + last + 4);
			else
				ec[e] = bc[ed->from];
			break;
		case AN_EDGE_EXIT:
			if (ed->why == AN_EXIT_RETURN)
				ec[e] = t_exec(tc, last);
			else
				known[e] = 0;
			break;
		case AN_EDGE_NORETURN:
			ec[e] = 0;
			break;
		default:
			known[e] = 0;
			break;
		}
	}
	for (uint32_t k = 0; k < cfg->nclasses; k++)
		lo[k] = UINT64_MAX;
	for (uint32_t b = 0; b < nb; b++) {
		uint32_t k = cfg->block[b].cls;

		lo[k] = bc[b] < lo[k] ? bc[b] : lo[k];
		hi[k] = bc[b] > hi[k] ? bc[b] : hi[k];
		nm[k]++;
	}
	for (uint32_t e = 0; e < ne; e++) {
		uint32_t k = cfg->edge[e].cls;

		if (!known[e])
			continue;
		lo[k] = ec[e] < lo[k] ? ec[e] : lo[k];
		hi[k] = ec[e] > hi[k] ? ec[e] : hi[k];
		nm[k]++;
	}
	for (uint32_t k = 0; k < cfg->nclasses; k++) {
		if (nm[k] < 2)
			continue;
		c->t_classes++;
		if (hi[k] - lo[k] > TRUTH_SLACK) {
			fprintf(stderr,
				"axprof cfg: truth: %s: class %u of %u members ran %" PRIu64
				" to %" PRIu64 " times\n",
				name, k, nm[k], lo[k], hi[k]);
			c->t_bad_classes++;
		}
	}
out:
	free(bc);
	free(ec);
	free(lo);
	free(hi);
	free(nm);
	free(known);
	return ret;
}

static int run_all(const struct an_procs *ps, const struct an_sched_model *m, bool json, bool check,
		   const struct truthck *tc, struct counts *c, char *err, size_t errlen)
{
	int bad = 0;

	for (size_t i = 0; i < ps->n; i++) {
		const struct an_proc *p = &ps->v[i];
		struct pa a = { 0 };
		char msg[256];
		int ret = analyse(ps, p, m, &a, err, errlen);

		if (ret)
			return ret;
		c->procs++;
		c->guessed += !!(p->flags & AN_PROC_GUESSED);
		c->missing += !!(a.cfg->flags & AN_CFG_MISSING_EDGES);
		c->blocks += a.cfg->nblocks;
		c->edges += a.cfg->nedges;
		c->classes += a.cfg->nclasses;
		c->unreachable += a.cfg->nunreachable;
		c->insns += a.cfg->ninsns;
		for (uint32_t b = 0; b < a.cfg->nblocks; b++)
			c->pad += !!(a.cfg->block[b].flags & AN_BLK_PAD);
		for (uint32_t j = 0; j < a.cfg->njtabs; j++) {
			c->jtabs++;
			c->jtabs_resolved += a.cfg->jtab[j].resolved;
		}
		for (uint32_t k = 0; k < a.cfg->ninsns; k++)
			c->issue_points += a.sched[k].m > 0;
		if (tc && truth_check(tc, p, a.cfg, c)) {
			snprintf(err, errlen, "out of memory checking against the truth");
			pa_free(&a);
			return -ENOMEM;
		}
		if (check) {
			if (an_cfg_check(a.cfg, msg, sizeof(msg))) {
				char name[512];

				an_proc_name(p, name, sizeof(name));
				fprintf(stderr,
					"axprof cfg: check failed in %s at 0x%" PRIx64 ": %s\n",
					name, p->start, msg);
				bad = 1;
			}
		} else {
			print_summary(stdout, p, a.cfg, json);
		}
		pa_free(&a);
	}
	return bad;
}

int cmd_cfg(int argc, char **argv)
{
	const char *file = NULL, *pname = NULL, *truth = NULL;
	bool json = false, dot = false, check = false;
	struct truthck tc = { .t = NULL, .base = 0 };
	bool have_base = false;
	struct an_sched_model *model = NULL;
	struct an_procs *ps = NULL;
	struct img *elf = NULL;
	struct ax_error ierr;
	char err[512] = "";
	int ret, status = 1;

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			fputs(cfg_usage, stdout);
			return 0;
		}
		if (!strcmp(a, "--json")) {
			json = true;
		} else if (!strcmp(a, "--dot")) {
			dot = true;
		} else if (!strcmp(a, "--check")) {
			check = true;
		} else if (!strcmp(a, "--truth")) {
			if (i + 1 >= argc)
				return usage_error("%s", "--truth needs a FILE");
			truth = argv[++i];
		} else if (!strcmp(a, "--base")) {
			char *end;

			if (i + 1 >= argc)
				return usage_error("%s", "--base needs an ADDR");
			errno = 0;
			tc.base = strtoull(argv[++i], &end, 0);
			if (errno || *end || !*argv[i] || argv[i][0] == '-')
				return usage_error("--base needs an address, got '%s'", argv[i]);
			have_base = true;
		} else if (a[0] == '-' && a[1] != '\0') {
			return usage_error("unknown option '%s'", a);
		} else if (!file) {
			file = a;
		} else if (!pname) {
			pname = a;
		} else {
			return usage_error("extra argument '%s'", a);
		}
	}
	if (!file)
		return usage_error("%s", "no IMAGE given");
	if (json && dot)
		return usage_error("%s", "--json and --dot exclude each other");
	if (dot && !pname)
		return usage_error("%s", "--dot needs a PROC");
	if (check && (pname || json || dot))
		return usage_error("%s", "--check takes only an IMAGE");
	if ((truth || have_base) && !check)
		return usage_error("%s", "--truth and --base go with --check");
	if (have_base && !truth)
		return usage_error("%s", "--base needs --truth");

	ret = img_open(file, 0, &elf, &ierr);
	if (ret) {
		const char *hint = hint_for(ret);

		fprintf(stderr, "axprof cfg: %s\n", ierr.msg);
		if (hint)
			fprintf(stderr, "axprof cfg: %s\n", hint);
		return 1;
	}
	if (truth) {
		struct mach_truth *t = NULL;
		uint64_t off = 0;

		ret = mach_truth_read(truth, &t, &off);
		if (ret) {
			if (ret == -EBADMSG)
				fprintf(stderr,
					"axprof cfg: %s: not a valid truth file (bad byte at offset "
					"%" PRIu64 ")\n",
					truth, off);
			else
				fprintf(stderr, "axprof cfg: %s: %s\n", truth, strerror(-ret));
			goto out;
		}
		tc.t = t;
	}
	ret = an_procs_find(elf, &ps, err, sizeof(err));
	if (!ret)
		ret = an_sched_model_new(&model);
	if (ret) {
		fprintf(stderr, "axprof cfg: %s\n", err[0] ? err : strerror(-ret));
		goto out;
	}
	if (pname) {
		const struct an_proc *p = an_procs_lookup(ps, pname);
		struct pa a = { 0 };

		if (!p) {
			fprintf(stderr,
				"axprof cfg: %s: no procedure '%s' (run 'axprof cfg %s' for the "
				"list)\n",
				file, pname, file);
			goto out;
		}
		ret = analyse(ps, p, model, &a, err, sizeof(err));
		if (ret) {
			fprintf(stderr, "axprof cfg: %s: %s\n", file, err);
			goto out;
		}
		if (json)
			print_json(stdout, p, &a);
		else if (dot)
			print_dot(stdout, p, &a);
		else
			print_text(stdout, p, &a);
		pa_free(&a);
	} else {
		struct counts c = { 0 };
		struct timespec t0, t1;

		clock_gettime(CLOCK_MONOTONIC, &t0);
		ret = run_all(ps, model, json, check, tc.t ? &tc : NULL, &c, err, sizeof(err));
		clock_gettime(CLOCK_MONOTONIC, &t1);
		if (ret < 0) {
			fprintf(stderr, "axprof cfg: %s: %s\n", file, err);
			goto out;
		}
		if (check) {
			double s = (double)(t1.tv_sec - t0.tv_sec) +
				   (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;

			printf("%s: procedures %zu (guessed %zu), missing-edge procedures %zu "
			       "(%.1f%%), instructions %zu, blocks %zu (unreachable %zu, padding "
			       "%zu), edges %zu, classes %zu, issue points %zu, jump tables %zu "
			       "(resolved %zu), %.3f s\n",
			       file, c.procs, c.guessed, c.missing,
			       c.procs ? 100.0 * (double)c.missing / (double)c.procs : 0.0, c.insns,
			       c.blocks, c.unreachable, c.pad, c.edges, c.classes, c.issue_points,
			       c.jtabs, c.jtabs_resolved, s);
			if (tc.t)
				printf("%s: truth: procedures run %zu, classes checked %zu, classes "
				       "with unequal counts %zu, blocks with unequal counts %zu\n",
				       file, c.t_procs, c.t_classes, c.t_bad_classes,
				       c.t_bad_blocks);
			if (ret > 0) {
				fprintf(stderr, "axprof cfg: %s: invariant violations (above)\n",
					file);
				goto out;
			}
			if (c.t_bad_classes || c.t_bad_blocks) {
				fprintf(stderr,
					"axprof cfg: %s: classes disagree with the truth (above)\n",
					file);
				goto out;
			}
		}
	}
	if (fflush(stdout) != 0 || ferror(stdout)) {
		fprintf(stderr, "axprof cfg: writing the output failed: %s\n", strerror(errno));
		goto out;
	}
	status = 0;
out:
	mach_truth_free((struct mach_truth *)tc.t);
	an_sched_model_free(model);
	an_procs_free(ps);
	img_close(elf);
	return status;
}
