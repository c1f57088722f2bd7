/* pdb/pdb_util.c - profile database: allocation, fault injection, error messages, buffers. */
#include <stdio.h>
#include <stdlib.h>

#include "pdb_int.h"

static pdb_fault_fn fault_fn;
static void *fault_arg;

void pdb_set_fault_hook(pdb_fault_fn fn, void *arg)
{
	fault_fn = fn;
	fault_arg = arg;
}

int pdb_fault(enum pdb_op op, const char *what)
{
	int e;

	if (!fault_fn)
		return 0;
	e = fault_fn(fault_arg, op, what);
	return e > 0 ? -e : 0;
}

void *pdb_malloc(size_t n)
{
	if (pdb_fault(PDB_OP_ALLOC, "malloc"))
		return NULL;
	return malloc(n ? n : 1);
}

void *pdb_calloc(size_t n, size_t size)
{
	if (pdb_fault(PDB_OP_ALLOC, "calloc"))
		return NULL;
	return calloc(n ? n : 1, size ? size : 1);
}

void *pdb_realloc(void *p, size_t n)
{
	if (pdb_fault(PDB_OP_ALLOC, "realloc"))
		return NULL;
	return realloc(p, n ? n : 1);
}

char *pdb_strdup(const char *s)
{
	size_t n = strlen(s) + 1;
	char *d = pdb_malloc(n);

	if (d)
		memcpy(d, s, n);
	return d;
}

int pdb_wbuf_grow(struct pdb_wbuf *b, size_t more)
{
	size_t cap = b->cap ? b->cap : 256;
	uint8_t *p;

	if (b->err)
		return b->err;
	if (more > SIZE_MAX / 2 - b->len) {
		b->err = -ENOMEM;
		return b->err;
	}
	while (cap - b->len < more)
		cap *= 2;
	p = pdb_realloc(b->p, cap);
	if (!p) {
		b->err = -ENOMEM;
		return b->err;
	}
	b->p = p;
	b->cap = cap;
	return 0;
}
