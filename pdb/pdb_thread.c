/* pdb/pdb_thread.c - the threads table: (pid, tid) -> command names (PDB_FT_THREADS). */
/*
 * Issue 17 item 5: the database keeps which threads the samples came from and what they were
 * called (vs_abi.h VS_REC_TASK), so that `report --tid` and `report --comm` can select them
 * after the run. A thread's names are kept oldest first, the last being its current name; a
 * name it had before moves to the end (prctl back to an old name), so applying a source's
 * names in order in a merge makes the source's current name the current one. The format and
 * its bounds are at the top of pdb.h.
 */
#include <stdlib.h>

#include "pdb_int.h"

int pdb_cmp_thr(const void *a, const void *b)
{
	const struct pdb_e_thr *x = *(const struct pdb_e_thr *const *)a;
	const struct pdb_e_thr *y = *(const struct pdb_e_thr *const *)b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return x->tid < y->tid ? -1 : x->tid > y->tid;
}

/* Make nm[0..len) the last name of e (moved there, or appended; the oldest dropped if full). */
static void set_name(struct pdb_e_thr *e, const char *nm, size_t len)
{
	uint32_t i, at = e->nnames;
	char buf[PDB_COMM_MAX + 1];

	memset(buf, 0, sizeof(buf));
	memcpy(buf, nm, len);
	for (i = 0; i < e->nnames; i++)
		if (!strcmp(e->name[i], buf))
			at = i;
	if (at == e->nnames && e->nnames == PDB_THR_NAMES) {
		at = 0; /* drop the oldest */
		e->flags |= PDB_THR_FORGOT;
	} else if (at == e->nnames) {
		e->nnames++;
	}
	memmove(e->name[at], e->name[at + 1], (size_t)(e->nnames - 1 - at) * sizeof(e->name[0]));
	memcpy(e->name[e->nnames - 1], buf, sizeof(buf));
}

int pdb_thr_name(struct pdb_prof *p, uint32_t pid, uint32_t tid, uint32_t flags, const char *nm,
		 size_t len)
{
	struct pdb_map *m = &p->t[PDB_T_THREADS];
	struct pdb_e_thr key, *e;
	int err;

	if (!len || len > PDB_COMM_MAX || memchr(nm, 0, len) || flags & ~PDB_THR_FORGOT)
		return -EINVAL;
	memset(&key, 0, sizeof(key));
	key.pid = pid;
	key.tid = tid;
	e = pdb_map_find(m, &key);
	if (!e && m->n >= PDB_THR_MAX) {
		p->thr_lost = pdb_add_sat(p->thr_lost, 1);
		return 0;
	}
	if (!e) {
		err = pdb_map_get(m, &key, (void **)&e);
		if (err < 0)
			return err;
	}
	e->flags |= flags;
	set_name(e, nm, len);
	return 0;
}

int pdb_prof_add_thread(struct pdb_prof *p, uint32_t pid, uint32_t tid, const char *comm,
			size_t len)
{
	return pdb_thr_name(p, pid, tid, 0, comm, len);
}

/* dst += src's thread e: its names in order (pdb.h PDB_FT_THREADS). */
int pdb_thr_merge(struct pdb_prof *dst, const struct pdb_e_thr *e)
{
	uint64_t lost = dst->thr_lost;
	int err = 0;

	for (uint32_t i = 0; i < e->nnames && !err; i++)
		err = pdb_thr_name(dst, e->pid, e->tid, e->flags, e->name[i], strlen(e->name[i]));
	if (!err && dst->thr_lost != lost)
		dst->thr_lost = pdb_add_sat(lost, 1); /* one thread, however many names */
	return err;
}

static void fill_thread(void *dst, const void *src)
{
	const struct pdb_e_thr *e = src;
	struct pdb_thread *a = dst;

	a->pid = e->pid;
	a->tid = e->tid;
	a->flags = e->flags;
	a->nnames = e->nnames;
	memcpy(a->name, e->name, sizeof(a->name));
}

int pdb_prof_threads(const struct pdb_prof *p, struct pdb_thread **out, size_t *n)
{
	return pdb_map_copy_sorted(&p->t[PDB_T_THREADS], sizeof(**out), pdb_cmp_thr, fill_thread,
				   (void **)out, n);
}

uint64_t pdb_prof_threads_lost(const struct pdb_prof *p)
{
	return p->thr_lost;
}
