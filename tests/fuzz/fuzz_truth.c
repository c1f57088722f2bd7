/* tests/fuzz/fuzz_truth.c - fuzz target: the ground-truth file reader (mach_truth_parse). */
#include "fuzz_common.h"

#include <stdlib.h>

#include "mach_truth.h"

/*
 * Input: one truth file (machine/mach_truth.h format). Whatever mach_truth_parse() accepts
 * must be searchable: every pc record is found by mach_truth_find() (the arrays are sorted, as
 * the reader checks) and every edge by mach_truth_edge_count().
 */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct mach_truth *t;
	struct ax_error err;

	if (mach_truth_parse(data, size, "fuzz", &t, &err))
		return 0;
	for (size_t i = 0; i < t->npcs; i++)
		if (mach_truth_find(t, t->pcs[i].pc) != &t->pcs[i])
			abort();
	for (size_t i = 0; i < t->nedges; i++)
		if (mach_truth_edge_count(t, t->edges[i].from, t->edges[i].to) != t->edges[i].count)
			abort();
	mach_truth_free(t);
	return 0;
}
