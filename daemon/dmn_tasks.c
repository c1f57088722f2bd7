/* daemon/dmn_tasks.c - the threads of the record stream (VS_REC_TASK): process, command, samples. */
/*
 * Issue 17 item 5. From ABI 5 a VS_REC_SAMPLE carries the thread's id (vs_abi.h); the
 * VS_REC_TASK records before it say which process the thread belongs to and its command name.
 * The table keeps one row per (tid, comm) in the order the stream named them: a thread whose
 * command changed (execve, prctl(PR_SET_NAME)) gets a new row, and its samples from then on
 * are counted there. A tid no record named is its own process (an ABI 4 stream, or a process
 * whose first thread's id is its pid). Each name is also kept in the database (the unknown
 * profile's threads table, PDB_FT_THREADS: report --tid, --comm, --tasks).
 */
#include <stdlib.h>
#include <string.h>

#include "dmn_int.h"

/* The row of tid's current name (the last one the stream gave it), or NULL. */
static struct dmn_thread *current(const struct dmn *d, uint32_t tid)
{
	if (d->last_thr < d->nthr && d->thr[d->last_thr].tid == tid)
		return &d->thr[d->last_thr];
	for (size_t i = d->nthr; i-- > 0;)
		if (d->thr[i].tid == tid) {
			((struct dmn *)d)->last_thr = i;
			return &d->thr[i];
		}
	return NULL;
}

void dmn_do_task(struct dmn *d, const struct vs_rec_task *r)
{
	struct dmn_thread *t = current(d, r->tid);

	if (t && t->pid == r->pid && !memcmp(t->comm, r->comm, sizeof(t->comm)))
		return; /* another CPU named it again */
	if (d->nthr == d->capthr) {
		size_t cap = d->capthr ? 2 * d->capthr : 16;
		struct dmn_thread *n = realloc(d->thr, cap * sizeof(*n));

		if (!n) {
			d->st.merge_errors++;
			return;
		}
		d->thr = n;
		d->capthr = cap;
	}
	t = &d->thr[d->nthr];
	memset(t, 0, sizeof(*t));
	t->pid = r->pid;
	t->tid = r->tid;
	memcpy(t->comm, r->comm, sizeof(t->comm));
	d->last_thr = d->nthr++;
	if (pdb_prof_add_thread(d->unknown, r->pid, r->tid, r->comm,
				strnlen(r->comm, PDB_COMM_MAX)))
		d->st.merge_errors++;
	d->st.threads = d->nthr;
}

uint32_t dmn_task_sample(struct dmn *d, uint32_t tid, uint64_t count)
{
	struct dmn_thread *t = current(d, tid);

	if (!t)
		return tid;
	t->samples += count;
	return t->pid;
}

void dmn_tasks_reset(struct dmn *d)
{
	free(d->thr);
	d->thr = NULL;
	d->nthr = d->capthr = d->last_thr = 0;
	d->st.threads = 0;
}

const struct dmn_thread *dmn_threads(const struct dmn *d, size_t *n)
{
	*n = d->nthr;
	return d->thr;
}
