/* tools/axprof/builtin-report-tasks.c - `axprof report --tasks` and --pid/--tid/--comm filters. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "axprof/builtin.h"
#include "ax_json.h"
#include "tl_view.h"

/*
 * Issue 17 item 5. The database keeps each image's samples per (pid, tid) (tasks.prof), the
 * unknown samples per (pid, tid) (unknown.prof) and the names of the threads (threads.prof,
 * the epoch's). A filter selects samples by process, thread and command name; --tasks lists
 * the processes by samples, each followed by its threads.
 */

int report_filter_load(struct report_filter *f, const struct tl_view *v)
{
	f->thr = NULL;
	f->nthr = 0;
	if (!v->unknown)
		return 0;
	return pdb_prof_threads(v->unknown, &f->thr, &f->nthr);
}

void report_filter_free(struct report_filter *f)
{
	free(f->thr);
	f->thr = NULL;
	f->nthr = 0;
}

const struct pdb_thread *report_thread(const struct report_filter *f, uint32_t pid, uint32_t tid)
{
	size_t lo = 0, hi = f->nthr;

	while (lo < hi) { /* the table is sorted by (pid, tid) */
		size_t mid = lo + (hi - lo) / 2;
		const struct pdb_thread *t = &f->thr[mid];

		if (t->pid == pid && t->tid == tid)
			return t;
		if (t->pid < pid || (t->pid == pid && t->tid < tid))
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

bool report_filter_is_on(const struct report_filter *f)
{
	return f->pid_given || f->tid_given || f->comm;
}

bool report_filter_match(const struct report_filter *f, uint32_t pid, uint32_t tid)
{
	const struct pdb_thread *t;

	if ((f->pid_given && pid != f->pid) || (f->tid_given && tid != f->tid))
		return false;
	if (!f->comm)
		return true;
	t = report_thread(f, pid, tid);
	for (uint32_t i = 0; t && i < t->nnames; i++)
		if (!strcmp(t->name[i], f->comm))
			return true;
	return false;
}

/* "pid 5", "tid 7", "command 'x'", joined: what the filter selects (for messages). */
void report_filter_describe(const struct report_filter *f, char *buf, size_t size)
{
	int k = 0;

	buf[0] = 0;
	if (f->pid_given)
		k += snprintf(buf + k, size - (size_t)k, "pid %u", f->pid);
	if (f->tid_given && (size_t)k < size)
		k += snprintf(buf + k, size - (size_t)k, "%stid %u", k ? ", " : "", f->tid);
	if (f->comm && (size_t)k < size)
		snprintf(buf + k, size - (size_t)k, "%scommand '%s'", k ? ", " : "", f->comm);
}

/* ---- --tasks ---- */

struct trow {
	uint32_t pid, tid;
	uint64_t c[REPORT_MAX_COLS];
};

struct trows {
	struct trow *r;
	size_t n, cap;
};

static int cmp_trow(const void *a, const void *b)
{
	const struct trow *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return x->tid < y->tid ? -1 : x->tid > y->tid;
}

static int add_row(struct trows *rs, uint32_t pid, uint32_t tid, unsigned int col, uint64_t cnt)
{
	if (rs->n == rs->cap) {
		size_t cap = rs->cap ? 2 * rs->cap : 64;
		struct trow *n = realloc(rs->r, cap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		rs->r = n;
		rs->cap = cap;
	}
	memset(&rs->r[rs->n], 0, sizeof(rs->r[0]));
	rs->r[rs->n].pid = pid;
	rs->r[rs->n].tid = tid;
	rs->r[rs->n++].c[col] = cnt;
	return 0;
}

/* The rows of one profile's tasks (or, unknown, its unknown samples) that the filter takes. */
static int collect(const struct report_tasks_args *a, struct trows *rs, const struct pdb_prof *p,
		   bool unknown)
{
	struct pdb_task *t = NULL;
	struct pdb_unknown *u = NULL;
	size_t n = 0;
	int ret = unknown ? pdb_prof_unknowns(p, &u, &n) : pdb_prof_tasks(p, &t, &n);

	for (size_t i = 0; !ret && i < n; i++) {
		uint32_t pid = unknown ? u[i].pid : t[i].pid, tid = unknown ? u[i].tid : t[i].tid;
		uint32_t ev = unknown ? u[i].event : t[i].event;

		if (!report_filter_match(a->f, pid, tid))
			continue;
		for (unsigned int k = 0; k < a->ncol && !ret; k++)
			if (a->ev[k] == ev)
				ret = add_row(rs, pid, tid, k, unknown ? u[i].count : t[i].count);
	}
	free(t);
	free(u);
	return ret;
}

/* Sum rows of the same (pid, tid); drop those without a sample of a shown event. */
static void fold(struct trows *rs, unsigned int ncol)
{
	size_t k = 0;

	if (rs->n > 1)
		qsort(rs->r, rs->n, sizeof(rs->r[0]), cmp_trow);
	for (size_t i = 0; i < rs->n; i++) {
		if (k && !cmp_trow(&rs->r[k - 1], &rs->r[i])) {
			for (unsigned int c = 0; c < ncol; c++)
				rs->r[k - 1].c[c] += rs->r[i].c[c];
			continue;
		}
		rs->r[k++] = rs->r[i];
	}
	rs->n = k;
}

/* Most samples first (column by column), then by id. */
static int cmp_samples(const uint64_t *x, const uint64_t *y, uint32_t ix, uint32_t iy)
{
	for (unsigned int c = 0; c < REPORT_MAX_COLS; c++)
		if (x[c] != y[c])
			return x[c] > y[c] ? -1 : 1;
	return ix < iy ? -1 : ix > iy;
}

static int cmp_thread(const void *a, const void *b)
{
	const struct trow *x = a, *y = b;

	return cmp_samples(x->c, y->c, x->tid, y->tid);
}

/* A process: its threads rows [first, first + n) and their sums. */
struct prow {
	uint32_t pid;
	size_t first, n;
	uint64_t c[REPORT_MAX_COLS];
};

static int cmp_proc(const void *a, const void *b)
{
	const struct prow *x = a, *y = b;

	return cmp_samples(x->c, y->c, x->pid, y->pid);
}

/* The thread's current name, or the process's (its first thread's, else any thread's). */
static const char *comm_of(const struct report_filter *f, uint32_t pid, uint32_t tid)
{
	const struct pdb_thread *t = report_thread(f, pid, tid);

	if (!t && tid == UINT32_MAX) {
		t = report_thread(f, pid, pid);
		for (size_t i = 0; !t && i < f->nthr; i++)
			if (f->thr[i].pid == pid)
				t = &f->thr[i];
	}
	return t ? t->name[t->nnames - 1] : "";
}

static double pct(uint64_t a, uint64_t b)
{
	return b ? 100.0 * (double)a / (double)b : 0.0;
}

static void json_counts(struct ax_json *j, const struct report_tasks_args *a, const uint64_t *c)
{
	char evn[32];

	ax_json_obj_open(j, "samples_by_event");
	for (unsigned int k = 0; k < a->ncol; k++)
		ax_json_u64(j, tl_event_lower(a->ev[k], evn, sizeof(evn)), c[k]);
	ax_json_obj_close(j);
}

static void print_json(const struct report_tasks_args *a, const struct prow *ps, size_t np,
		       const struct trows *rs)
{
	struct ax_json j;
	char evn[32];

	ax_json_doc_open(&j, stdout, "report");
	ax_json_str(&j, "database", pdb_dir(a->v->db));
	ax_json_u64(&j, "epoch", a->v->epoch);
	tl_view_json_skipped(&j, a->v);
	ax_json_arr_open(&j, "events");
	for (unsigned int c = 0; c < a->ncol; c++)
		ax_json_str(&j, NULL, tl_event_lower(a->ev[c], evn, sizeof(evn)));
	ax_json_arr_close(&j);
	if (a->f->pid_given)
		ax_json_u64(&j, "pid", a->f->pid);
	if (a->f->tid_given)
		ax_json_u64(&j, "tid", a->f->tid);
	if (a->f->comm)
		ax_json_str(&j, "comm", a->f->comm);
	ax_json_obj_open(&j, "totals");
	for (unsigned int k = 0; k < a->ncol; k++)
		ax_json_u64(&j, tl_event_lower(a->ev[k], evn, sizeof(evn)), a->total[a->ev[k]]);
	ax_json_obj_close(&j);
	ax_json_arr_open(&j, "tasks");
	for (size_t i = 0; i < np; i++) {
		ax_json_obj_open(&j, NULL);
		ax_json_u64(&j, "pid", ps[i].pid);
		ax_json_str(&j, "comm", comm_of(a->f, ps[i].pid, UINT32_MAX));
		json_counts(&j, a, ps[i].c);
		ax_json_arr_open(&j, "threads");
		for (size_t k = ps[i].first; k < ps[i].first + ps[i].n; k++) {
			const struct trow *r = &rs->r[k];
			const struct pdb_thread *t = report_thread(a->f, r->pid, r->tid);

			ax_json_obj_open(&j, NULL);
			ax_json_u64(&j, "tid", r->tid);
			ax_json_str(&j, "comm", t ? t->name[t->nnames - 1] : "");
			ax_json_arr_open(&j, "names");
			for (uint32_t q = 0; t && q < t->nnames; q++)
				ax_json_str(&j, NULL, t->name[q]);
			ax_json_arr_close(&j);
			json_counts(&j, a, r->c);
			ax_json_obj_close(&j);
		}
		ax_json_arr_close(&j);
		ax_json_obj_close(&j);
	}
	ax_json_arr_close(&j);
	ax_json_doc_close(&j);
}

static void print_counts(const struct report_tasks_args *a, const uint64_t *c, const uint64_t *cum)
{
	for (unsigned int k = 0; k < a->ncol; k++) {
		printf("%9" PRIu64 " %6.2f%%", c[k], pct(c[k], a->total[a->ev[k]]));
		if (k == 0 && cum)
			printf(" %6.2f%%", pct(*cum, a->total[a->ev[0]]));
		else if (k == 0)
			printf(" %7s", "");
		printf(" ");
	}
}

static void print_text(const struct report_tasks_args *a, const struct prow *ps, size_t np,
		       const struct trows *rs)
{
	uint64_t cum = 0;
	char evn[32], what[128];

	printf("axprof report: database %s, epoch %u\n\n", pdb_dir(a->v->db), a->v->epoch);
	if (report_filter_is_on(a->f)) {
		report_filter_describe(a->f, what, sizeof(what));
		printf("Samples of %s only\n\n", what);
	}
	printf("Column          Total\n");
	for (unsigned int k = 0; k < a->ncol; k++)
		printf("%-10s %10" PRIu64 "\n", tl_event_lower(a->ev[k], evn, sizeof(evn)),
		       a->total[a->ev[k]]);
	printf("\nThe numbers given below are the number of samples for each listed event type;\n"
	       "%% is the share of that event's total, cum%% accumulates the first column over\n"
	       "the processes. Each process is followed by its threads (tid).\n");
	printf("==============================================================================\n");
	for (unsigned int k = 0; k < a->ncol; k++) {
		printf("%9s %7s", tl_event_lower(a->ev[k], evn, sizeof(evn)), "%");
		if (k == 0)
			printf(" %7s", "cum%");
		printf(" ");
	}
	printf(" %7s %10s  %s\n", "pid", "tid", "comm");
	for (size_t i = 0; i < np; i++) {
		cum += ps[i].c[0];
		print_counts(a, ps[i].c, &cum);
		printf(" %7u %10s  %s\n", ps[i].pid, "-", comm_of(a->f, ps[i].pid, UINT32_MAX));
		for (size_t k = ps[i].first; k < ps[i].first + ps[i].n; k++) {
			print_counts(a, rs->r[k].c, NULL);
			printf(" %7u %10u  %s\n", rs->r[k].pid, rs->r[k].tid,
			       comm_of(a->f, rs->r[k].pid, rs->r[k].tid));
		}
	}
}

int report_tasks(const struct report_tasks_args *a)
{
	struct trows rs = { 0 };
	struct prow *ps = NULL;
	size_t np = 0, keep;
	int ret = 0;

	for (size_t i = 0; i < a->nsel && !ret; i++)
		if (a->sel[i]->prof)
			ret = collect(a, &rs, a->sel[i]->prof, false);
	if (!ret && a->with_unknown && a->v->unknown)
		ret = collect(a, &rs, a->v->unknown, true);
	if (ret)
		goto out_free;
	fold(&rs, a->ncol);
	ps = calloc(rs.n ? rs.n : 1, sizeof(*ps));
	if (!ps) {
		ret = -ENOMEM;
		goto out_free;
	}
	for (size_t i = 0; i < rs.n; i++) {
		if (!np || ps[np - 1].pid != rs.r[i].pid)
			ps[np++] = (struct prow){ .pid = rs.r[i].pid, .first = i };
		ps[np - 1].n++;
		for (unsigned int c = 0; c < a->ncol; c++)
			ps[np - 1].c[c] += rs.r[i].c[c];
	}
	for (size_t i = 0; i < np; i++)
		qsort(rs.r + ps[i].first, ps[i].n, sizeof(rs.r[0]), cmp_thread);
	if (np > 1)
		qsort(ps, np, sizeof(*ps), cmp_proc);
	/* -n and --percent-limit choose processes (each with all its threads) */
	for (keep = 0; keep < np; keep++)
		if ((a->ro->top > 0 && keep >= (size_t)a->ro->top) ||
		    pct(ps[keep].c[0], a->total[a->ev[0]]) < a->ro->percent_limit ||
		    ps[keep].c[0] < a->ro->min_samples)
			break;
	if (a->ro->json)
		print_json(a, ps, keep, &rs);
	else
		print_text(a, ps, keep, &rs);
out_free:
	free(ps);
	free(rs.r);
	return ret;
}
