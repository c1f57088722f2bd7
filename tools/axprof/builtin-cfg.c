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
#include "ax_json.h"
#include "tl_opts.h"
#include "tl_sym.h"

static const char cfg_usage[] =
	"usage: axprof cfg [--help] [--json] [-n N] [--sort FIELD] IMAGE\n"
	"       axprof cfg [--help] [--json | --dot] IMAGE PROC\n"
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
	"  --no-demangle  C++ symbols as the file has them (default: demangled, and PROC may\n"
	"           be either)\n"
	"  -n, --top N    the summary's first N procedures (0: all, the default)\n"
	"  --sort FIELD   the summary's order: address (default), name, or largest first\n"
	"           insns, blocks, edges, classes; with -n, a count field chooses the N\n"
	"           largest, address and name order the first N by address\n"
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

/* The procedure's name as printed: an_proc_name(), C++ names demangled (tl_sym.h). */
static void show_name(const struct an_proc *p, char *buf, size_t size)
{
	const char *shown;

	an_proc_name(p, buf, size);
	shown = tl_sym_name(buf);
	if (shown != buf)
		snprintf(buf, size, "%s", shown);
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
		   const struct an_sched_model *m, struct pa *a, struct ax_error *err)
{
	int ret = an_cfg_build(ps, p, &a->cfg, err);

	if (ret)
		return ret;
	ret = an_cfg_classes(a->cfg);
	if (!ret) {
		a->sched = malloc((size_t)a->cfg->ninsns * sizeof(*a->sched));
		ret = a->sched ? an_sched_cfg(m, a->cfg, a->sched) : -ENOMEM;
	}
	if (ret) {
		ax_fail(err, ret, "analysing 0x%" PRIx64 ": %s", p->start, strerror(-ret));
		pa_free(a);
	}
	return ret;
}

/* ------------------------------------------------------------------------------------------ */
/* Output. */

/* Open a procedure's document with the keys every cfg document starts with. */
static void json_proc_open(struct ax_json *j, FILE *f, const char *file, const struct an_proc *p,
			   const struct an_cfg *cfg)
{
	char name[512];

	show_name(p, name, sizeof(name));
	ax_json_doc_open(j, f, "cfg");
	ax_json_str(j, "image", file);
	tl_sym_json(j, "procedure", name);
	ax_json_hex(j, "start", p->start);
	ax_json_hex(j, "end", p->end);
	ax_json_u64(j, "insns", cfg->ninsns);
}

/* One procedure's summary line: what its analysis found (kept for -n and --sort). */
struct sum_row {
	const struct an_proc *p;
	uint32_t insns, blocks, edges, classes, unreachable;
	bool missing; /* AN_CFG_MISSING_EDGES */
};

static void sum_row_of(struct sum_row *r, const struct an_proc *p, const struct an_cfg *cfg)
{
	*r = (struct sum_row){ .p = p,
			       .insns = cfg->ninsns,
			       .blocks = cfg->nblocks,
			       .edges = cfg->nedges,
			       .classes = cfg->nclasses,
			       .unreachable = cfg->nunreachable,
			       .missing = cfg->flags & AN_CFG_MISSING_EDGES };
}

/* One procedure's summary: one document per line (JSON Lines). */
static void json_summary(FILE *f, const char *file, const struct sum_row *r)
{
	char name[512];
	struct ax_json j;

	show_name(r->p, name, sizeof(name));
	ax_json_doc_open(&j, f, "cfg");
	ax_json_str(&j, "image", file);
	tl_sym_json(&j, "procedure", name);
	ax_json_hex(&j, "start", r->p->start);
	ax_json_hex(&j, "end", r->p->end);
	ax_json_u64(&j, "insns", r->insns);
	ax_json_u64(&j, "block_count", r->blocks);
	ax_json_u64(&j, "edge_count", r->edges);
	ax_json_u64(&j, "classes", r->classes);
	ax_json_u64(&j, "unreachable", r->unreachable);
	ax_json_bool(&j, "guessed", r->p->flags & AN_PROC_GUESSED);
	ax_json_bool(&j, "missing_edges", r->missing);
	ax_json_doc_close(&j);
}

static void print_summary(FILE *f, const struct sum_row *r)
{
	char name[512];

	show_name(r->p, name, sizeof(name));
	fprintf(f,
		"0x%016" PRIx64 " 0x%016" PRIx64
		" %-7s %-7s blocks %5u edges %5u classes %5u  %s\n",
		r->p->start, r->p->end, (r->p->flags & AN_PROC_GUESSED) ? "guessed" : "symbol",
		r->missing ? "missing" : "-", r->blocks, r->edges, r->classes, name);
}

/* --sort's fields: the first is the default; address and name only order (tl_rows_sort). */
static const char *const sort_fields[] = {
	"address", "name", "insns", "blocks", "edges", "classes"
};
enum { SORT_ADDRESS, SORT_NAME, SORT_INSNS, SORT_BLOCKS, SORT_EDGES, SORT_CLASSES };
static int sort_key; /* qsort has no context argument */

static int cmp_u32_desc(uint32_t a, uint32_t b)
{
	return a > b ? -1 : a < b;
}

static int cmp_rows(const void *a, const void *b)
{
	const struct sum_row *x = a, *y = b;
	char nx[512], ny[512];
	int c = 0;

	switch (sort_key) {
	case SORT_NAME:
		show_name(x->p, nx, sizeof(nx));
		show_name(y->p, ny, sizeof(ny));
		c = strcmp(nx, ny);
		break;
	case SORT_INSNS:
		c = cmp_u32_desc(x->insns, y->insns);
		break;
	case SORT_BLOCKS:
		c = cmp_u32_desc(x->blocks, y->blocks);
		break;
	case SORT_EDGES:
		c = cmp_u32_desc(x->edges, y->edges);
		break;
	case SORT_CLASSES:
		c = cmp_u32_desc(x->classes, y->classes);
		break;
	}
	if (c)
		return c;
	return x->p->start < y->p->start ? -1 : x->p->start > y->p->start;
}

/* Rows have no samples: only -n applies (the limits are refused in check_args). */
static uint64_t row_samples(const void *row)
{
	(void)row;
	return 0;
}

static const struct {
	uint32_t bit;
	const char *name;
} blk_flag_names[] = {
	{ AN_BLK_ENTRY, "entry" },
	{ AN_BLK_UNREACHABLE, "unreachable" },
	{ AN_BLK_PAD, "pad" },
	{ AN_BLK_JMP, "jmp" },
	{ AN_BLK_UNRESOLVED, "unresolved" },
	{ AN_BLK_CALL, "call" },
	{ AN_BLK_GUESSED, "guessed" },
	{ AN_BLK_CALL_EXITS, "exits" },
};
#define NBLK_FLAGS (sizeof(blk_flag_names) / sizeof(blk_flag_names[0]))

static void block_flags(FILE *f, uint32_t fl)
{
	for (size_t i = 0; i < NBLK_FLAGS; i++)
		if (fl & blk_flag_names[i].bit)
			fprintf(f, " [%s]", blk_flag_names[i].name);
}

static void json_block_flags(struct ax_json *j, uint32_t fl)
{
	ax_json_arr_open(j, "flags");
	for (size_t i = 0; i < NBLK_FLAGS; i++)
		if (fl & blk_flag_names[i].bit)
			ax_json_str(j, NULL, blk_flag_names[i].name);
	ax_json_arr_close(j);
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

	show_name(p, name, sizeof(name));
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
		if (jt->flow || jt->fallback)
			fprintf(f, "%s: %u targets 0x%" PRIx64 "-0x%" PRIx64 "\n",
				jt->flow ? "data flow" : "fallback (address taken)", jt->n,
				jt->tmin, jt->tmax);
		else if (jt->resolved)
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
		block_flags(f, bl->flags);
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

static void json_node(struct ax_json *j, const char *key, uint32_t n)
{
	if (n == AN_NODE_ENTRY)
		ax_json_str(j, key, "entry");
	else if (n == AN_NODE_EXIT)
		ax_json_str(j, key, "exit");
	else
		ax_json_u64(j, key, n);
}

static void json_insn(struct ax_json *j, const struct an_cfg *cfg, const struct an_sched_insn *s,
		      uint32_t i)
{
	uint64_t pc = an_cfg_addr(cfg, i);
	char text[128];

	insn_text(cfg->insn[i].word, pc, text, sizeof(text));
	ax_json_obj_open(j, NULL);
	ax_json_hex(j, "address", pc);
	ax_json_word(j, "word", cfg->insn[i].word);
	ax_json_str(j, "text", text);
	ax_json_u64(j, "cycle", s->cycle);
	ax_json_u64(j, "m", s->m);
	ax_json_bool(j, "issue_point", s->m);
	ax_json_str(j, "pipe", an_sched_pipe_name(s->pipe));
	ax_json_u64(j, "stall", s->stall);
	ax_json_str(j, "reason", an_stall_name[s->reason]);
	if (s->culprit_pc != UINT64_MAX)
		ax_json_hex(j, "culprit", s->culprit_pc);
	if (s->reason == AN_STALL_DEP)
		ax_json_u64(j, "lat", s->lat);
	ax_json_obj_close(j);
}

static void json_blocks(struct ax_json *j, const struct pa *a)
{
	const struct an_cfg *cfg = a->cfg;

	ax_json_arr_open(j, "blocks");
	for (uint32_t b = 0; b < cfg->nblocks; b++) {
		const struct an_block *bl = &cfg->block[b];

		ax_json_obj_open(j, NULL);
		ax_json_u64(j, "index", b);
		ax_json_hex(j, "address", bl->addr);
		ax_json_u64(j, "class", bl->cls);
		json_block_flags(j, bl->flags);
		ax_json_arr_open(j, "instructions");
		for (uint32_t i = bl->first; i < bl->first + bl->n; i++)
			json_insn(j, cfg, &a->sched[i], i);
		ax_json_arr_close(j);
		ax_json_obj_close(j);
	}
	ax_json_arr_close(j);
}

static void json_edges(struct ax_json *j, const struct an_cfg *cfg)
{
	ax_json_arr_open(j, "edges");
	for (uint32_t e = 0; e < cfg->nedges; e++) {
		const struct an_edge *ed = &cfg->edge[e];

		ax_json_obj_open(j, NULL);
		json_node(j, "from", ed->from);
		json_node(j, "to", ed->to);
		ax_json_str(j, "kind", an_edge_kind_name[ed->kind]);
		if (ed->why)
			ax_json_str(j, "why", an_exit_why_name[ed->why]);
		ax_json_u64(j, "class", ed->cls);
		ax_json_obj_close(j);
	}
	ax_json_arr_close(j);
}

static void json_jump_tables(struct ax_json *j, const struct an_cfg *cfg)
{
	ax_json_arr_open(j, "jump_tables");
	for (uint32_t k = 0; k < cfg->njtabs; k++) {
		const struct an_jtab *jt = &cfg->jtab[k];

		ax_json_obj_open(j, NULL);
		ax_json_hex(j, "jmp", jt->jmp);
		ax_json_bool(j, "resolved", jt->resolved);
		ax_json_bool(j, "flow", jt->flow);
		ax_json_bool(j, "fallback", jt->fallback);
		if (jt->table)
			ax_json_hex(j, "table", jt->table);
		if (jt->resolved) {
			ax_json_hex(j, "base", jt->base);
			ax_json_u64(j, "entries", jt->n);
		}
		ax_json_obj_close(j);
	}
	ax_json_arr_close(j);
}

static void print_json(FILE *f, const char *file, const struct an_proc *p, const struct pa *a)
{
	const struct an_cfg *cfg = a->cfg;
	struct ax_json j;

	json_proc_open(&j, f, file, p, cfg);
	ax_json_u64(&j, "classes", cfg->nclasses);
	ax_json_bool(&j, "guessed", p->flags & AN_PROC_GUESSED);
	ax_json_bool(&j, "missing_edges", cfg->flags & AN_CFG_MISSING_EDGES);
	if (p->flags & (AN_PROC_GP | AN_PROC_GP_INHERITED))
		ax_json_hex(&j, "gp", p->gp);
	json_blocks(&j, a);
	json_edges(&j, cfg);
	json_jump_tables(&j, cfg);
	ax_json_doc_close(&j);
}

static void print_dot(FILE *f, const struct an_proc *p, const struct pa *a)
{
	const struct an_cfg *cfg = a->cfg;
	char name[512], x[32], y[32];

	show_name(p, name, sizeof(name));
	fputs("digraph ", f);
	ax_json_write_str(f, name);
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
	show_name(p, name, sizeof(name));
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

/* Add one analysed procedure to the --check counts. */
static void count_proc(struct counts *c, const struct an_proc *p, const struct pa *a)
{
	const struct an_cfg *cfg = a->cfg;

	c->procs++;
	c->guessed += !!(p->flags & AN_PROC_GUESSED);
	c->missing += !!(cfg->flags & AN_CFG_MISSING_EDGES);
	c->blocks += cfg->nblocks;
	c->edges += cfg->nedges;
	c->classes += cfg->nclasses;
	c->unreachable += cfg->nunreachable;
	c->insns += cfg->ninsns;
	for (uint32_t b = 0; b < cfg->nblocks; b++)
		c->pad += !!(cfg->block[b].flags & AN_BLK_PAD);
	for (uint32_t j = 0; j < cfg->njtabs; j++) {
		c->jtabs++;
		c->jtabs_resolved += cfg->jtab[j].resolved;
	}
	for (uint32_t k = 0; k < cfg->ninsns; k++)
		c->issue_points += a->sched[k].m > 0;
}

/* --check on one procedure: 0, or 1 after a message naming the violation. */
static int check_proc(const struct an_proc *p, const struct an_cfg *cfg)
{
	struct ax_error err;
	char name[512];

	if (!an_cfg_check(cfg, &err))
		return 0;
	show_name(p, name, sizeof(name));
	fprintf(stderr, "axprof cfg: check failed in %s at 0x%" PRIx64 ": %s\n", name, p->start,
		err.msg);
	return 1;
}

struct cfg_args {
	const char *file, *pname, *truth;
	bool json, dot, check, have_base;
	uint64_t base; /* --base */
	struct tl_ropts ro; /* -n/--top and --sort (the summary) */
};

/* The summary rows in the order and number -n and --sort ask for, printed. */
static void print_rows(const struct cfg_args *args, struct sum_row *rows, size_t n)
{
	n = tl_rows_sort(&args->ro, rows, n, sizeof(*rows), cmp_rows, &sort_key,
			 sort_key == SORT_ADDRESS || sort_key == SORT_NAME, row_samples, 0);
	for (size_t i = 0; i < n; i++) {
		if (args->json)
			json_summary(stdout, args->file, &rows[i]);
		else
			print_summary(stdout, &rows[i]);
	}
}

/*
 * Every procedure: its summary line (text or JSON), or with --check its invariants (and the
 * truth's counts). Returns 0, 1 when a check failed, or -Exxx with a message in err.
 */
static int run_all(const struct cfg_args *args, const struct an_procs *ps,
		   const struct an_sched_model *m, const struct truthck *tc, struct counts *c,
		   struct ax_error *err)
{
	struct sum_row *rows = NULL;
	int bad = 0;

	if (!args->check && ps->n) {
		rows = calloc(ps->n, sizeof(*rows));
		if (!rows)
			return ax_fail(err, -ENOMEM, "out of memory for %zu procedures", ps->n);
	}
	for (size_t i = 0; i < ps->n; i++) {
		const struct an_proc *p = &ps->v[i];
		struct pa a = { 0 };
		int ret = analyse(ps, p, m, &a, err);

		if (ret) {
			free(rows);
			return ret;
		}
		count_proc(c, p, &a);
		if (tc && truth_check(tc, p, a.cfg, c)) {
			pa_free(&a);
			free(rows);
			return ax_fail(err, -ENOMEM, "out of memory checking against the truth");
		}
		if (args->check)
			bad |= check_proc(p, a.cfg);
		else
			sum_row_of(&rows[i], p, a.cfg);
		pa_free(&a);
	}
	if (rows)
		print_rows(args, rows, ps->n);
	free(rows);
	return bad;
}

/* The command line into a: 0, -1 after --help, or 2 after a usage message. */
static int parse_args(int argc, char **argv, struct cfg_args *a)
{
	for (int i = 1; i < argc; i++) {
		const char *s = argv[i];

		if (!strcmp(s, "--help") || !strcmp(s, "-h")) {
			fputs(cfg_usage, stdout);
			return -1;
		}
		if (!strcmp(s, "-n") || !strcmp(s, "--top") || !strcmp(s, "--sort")) {
			if (i + 1 >= argc)
				return usage_error("%s needs an argument", s);
			if (tl_ropts_parse(&a->ro, strcmp(s, "--sort") ? 'n' : TL_OPT_SORT,
					   argv[++i]) != 1)
				return 2;
		} else if (!strncmp(s, "--top=", 6) || !strncmp(s, "--sort=", 7)) {
			if (tl_ropts_parse(&a->ro, s[2] == 't' ? 'n' : TL_OPT_SORT,
					   strchr(s, '=') + 1) != 1)
				return 2;
		} else if (!strcmp(s, "--percent-limit") || !strcmp(s, "--min-samples") ||
			   !strncmp(s, "--percent-limit=", 16) ||
			   !strncmp(s, "--min-samples=", 14)) {
			return usage_error("%s: cfg analyses a file, which has no samples (the "
					   "views of a database take it: report, annotate, ...)",
					   s);
		} else if (!strcmp(s, "--json")) {
			a->json = true;
		} else if (!strcmp(s, "--dot")) {
			a->dot = true;
		} else if (!strcmp(s, "--no-demangle")) {
			tl_sym_set_demangle(false);
		} else if (!strcmp(s, "--check")) {
			a->check = true;
		} else if (!strcmp(s, "--truth")) {
			if (i + 1 >= argc)
				return usage_error("%s", "--truth needs a FILE");
			a->truth = argv[++i];
		} else if (!strcmp(s, "--base")) {
			char *end;

			if (i + 1 >= argc)
				return usage_error("%s", "--base needs an ADDR");
			errno = 0;
			a->base = strtoull(argv[++i], &end, 0);
			if (errno || *end || !*argv[i] || argv[i][0] == '-')
				return usage_error("--base needs an address, got '%s'", argv[i]);
			a->have_base = true;
		} else if (s[0] == '-' && s[1] != '\0') {
			return usage_error("unknown option '%s'", s);
		} else if (!a->file) {
			a->file = s;
		} else if (!a->pname) {
			a->pname = s;
		} else {
			return usage_error("extra argument '%s'", s);
		}
	}
	return 0;
}

/* The options that exclude each other: 0, or 2 after a usage message. */
static int check_args(const struct cfg_args *a)
{
	if (!a->file)
		return usage_error("%s", "no IMAGE given");
	if (a->json && a->dot)
		return usage_error("%s", "--json and --dot exclude each other");
	if (a->dot && !a->pname)
		return usage_error("%s", "--dot needs a PROC");
	if (a->check && (a->pname || a->json || a->dot))
		return usage_error("%s", "--check takes only an IMAGE");
	if ((a->truth || a->have_base) && !a->check)
		return usage_error("%s", "--truth and --base go with --check");
	if (a->have_base && !a->truth)
		return usage_error("%s", "--base needs --truth");
	if ((a->ro.seen & (TL_SEEN_TOP | TL_SEEN_SORT)) && (a->pname || a->check))
		return usage_error("%s", "-n and --sort order the summary: no PROC, no --check");
	sort_key =
		tl_sort_pick(&a->ro, NULL, sort_fields, sizeof(sort_fields) / sizeof(*sort_fields));
	return sort_key < 0 ? 2 : 0;
}

static int open_image(const char *file, struct img **elf)
{
	struct ax_error err;
	int ret = img_open(file, 0, elf, &err);
	const char *hint = hint_for(ret);

	if (!ret)
		return 0;
	fprintf(stderr, "axprof cfg: %s\n", err.msg);
	if (hint)
		fprintf(stderr, "axprof cfg: %s\n", hint);
	return 1;
}

static int read_truth(const char *truth, struct mach_truth **t)
{
	struct ax_error err;
	int ret = mach_truth_read(truth, t, &err);

	if (ret)
		fprintf(stderr, "axprof cfg: not a usable truth file: %s\n", err.msg);
	return ret ? 1 : 0;
}

/* PROC's blocks, edges and schedule as text, JSON or dot. 0, or 1 after a message. */
static int show_proc(const struct cfg_args *args, const struct an_procs *ps,
		     const struct an_sched_model *m)
{
	const struct an_proc *p = tl_sym_proc_lookup(ps, args->pname);
	struct pa a = { 0 };
	struct ax_error err;

	if (!p) {
		fprintf(stderr,
			"axprof cfg: %s: no procedure '%s' (run 'axprof cfg %s' for the list)\n",
			args->file, args->pname, args->file);
		return 1;
	}
	if (analyse(ps, p, m, &a, &err)) {
		fprintf(stderr, "axprof cfg: %s: %s\n", args->file, err.msg);
		return 1;
	}
	if (args->json)
		print_json(stdout, args->file, p, &a);
	else if (args->dot)
		print_dot(stdout, p, &a);
	else
		print_text(stdout, p, &a);
	pa_free(&a);
	return 0;
}

static void print_counts(const char *file, const struct counts *c, double s, bool truth)
{
	printf("%s: procedures %zu (guessed %zu), missing-edge procedures %zu (%.1f%%), "
	       "instructions %zu, blocks %zu (unreachable %zu, padding %zu), edges %zu, classes "
	       "%zu, issue points %zu, jump tables %zu (resolved %zu), %.3f s\n",
	       file, c->procs, c->guessed, c->missing,
	       c->procs ? 100.0 * (double)c->missing / (double)c->procs : 0.0, c->insns, c->blocks,
	       c->unreachable, c->pad, c->edges, c->classes, c->issue_points, c->jtabs,
	       c->jtabs_resolved, s);
	if (truth)
		printf("%s: truth: procedures run %zu, classes checked %zu, classes with unequal "
		       "counts %zu, blocks with unequal counts %zu\n",
		       file, c->t_procs, c->t_classes, c->t_bad_classes, c->t_bad_blocks);
}

static double seconds_since(const struct timespec *t0)
{
	struct timespec t1;

	clock_gettime(CLOCK_MONOTONIC, &t1);
	return (double)(t1.tv_sec - t0->tv_sec) + (double)(t1.tv_nsec - t0->tv_nsec) / 1e9;
}

/* Every procedure (summary or --check). 0, or 1 after a message. */
static int all_procs(const struct cfg_args *args, const struct an_procs *ps,
		     const struct an_sched_model *m, const struct truthck *tc)
{
	struct counts c = { 0 };
	struct timespec t0;
	struct ax_error err;
	double s;
	int ret;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	ret = run_all(args, ps, m, tc, &c, &err);
	s = seconds_since(&t0);
	if (ret < 0) {
		fprintf(stderr, "axprof cfg: %s: %s\n", args->file, err.msg);
		return 1;
	}
	if (!args->check)
		return 0;
	print_counts(args->file, &c, s, tc != NULL);
	if (ret > 0) {
		fprintf(stderr, "axprof cfg: %s: invariant violations (above)\n", args->file);
		return 1;
	}
	if (c.t_bad_classes || c.t_bad_blocks) {
		fprintf(stderr, "axprof cfg: %s: classes disagree with the truth (above)\n",
			args->file);
		return 1;
	}
	return 0;
}

int cmd_cfg(int argc, char **argv)
{
	struct cfg_args args = { 0 };
	struct mach_truth *truth = NULL;
	struct truthck tc = { 0 };
	struct an_sched_model *model = NULL;
	struct an_procs *ps = NULL;
	struct img *elf = NULL;
	struct ax_error err = { 0 };
	int ret, status = 1;

	tl_ropts_init(&args.ro, "axprof cfg", 0);
	ret = parse_args(argc, argv, &args);
	if (!ret)
		ret = check_args(&args);
	if (ret)
		return ret < 0 ? 0 : ret;
	if (open_image(args.file, &elf))
		return 1;
	if (args.truth && read_truth(args.truth, &truth))
		goto out;
	tc = (struct truthck){ .t = truth, .base = args.base };
	ret = an_procs_find(elf, &ps, &err);
	if (!ret)
		ret = an_sched_model_new(&model);
	if (ret) {
		fprintf(stderr, "axprof cfg: %s\n", err.msg[0] ? err.msg : strerror(-ret));
		goto out;
	}
	if (args.pname)
		status = show_proc(&args, ps, model);
	else
		status = all_procs(&args, ps, model, truth ? &tc : NULL);
out:
	mach_truth_free(truth);
	an_sched_model_free(model);
	an_procs_free(ps);
	img_close(elf);
	return status;
}
