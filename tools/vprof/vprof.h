/* tools/vprof/vprof.h - what vprof.c shares with vprof_args.c (--args, --callers). */
#ifndef VPROF_H
#define VPROF_H

#include "tl_view.h"

/* The 95% confidence interval of a value's share in hotlist h (vprof.c). */
void vp_share_ci(const struct hotlist *h, uint64_t estimate, double *lo, double *hi);

/* --sort of the procedure lists (vprof.c parses it): samples (--args: entries), name, address. */
enum { VP_SORT_SAMPLES, VP_SORT_NAME, VP_SORT_ADDRESS };
extern int vp_sort_key;

struct vp_args_opts {
	const char *proc; /* --proc: only this procedure */
	bool callers; /* --callers, else --args */
	bool fp; /* --fp: also f16-f21 and f0 */
	unsigned int nvalues; /* --values */
	double invariant; /* --invariant: lowest 95% bound of the top share for the mark */
	uint64_t min_n; /* --min-n: procedures with fewer interpreted entries left out */
};

/* vprof --args / --callers over the images sel[0..n): text or JSON (j, opened by the caller). */
int vp_args_report(const struct vp_args_opts *o, const struct tl_view *v, const struct tl_ropts *ro,
		   const struct tl_view_image **sel, size_t n, struct ax_json *j);

struct vp_addr_opts {
	const char *proc; /* --proc: only loads of this procedure */
	double min_share; /* --min-share: the top address's or stride's share for a candidate */
	uint64_t min_n; /* --min-n: loads with fewer observed addresses left out */
	unsigned int event; /* the samples column */
	bool all; /* --all: literal loads (GOT, read-only data) too */
};

/*
 * vprof --addresses over the images sel[0..n): the prefetch candidates (vprof_addrs.c), as text,
 * or into j's open object as the "prefetch" array when j is not NULL. 0 or -ENOMEM.
 */
int vp_addrs_report(const struct vp_addr_opts *o, const struct tl_view_image **sel, size_t n,
		    struct ax_json *j);

#endif /* VPROF_H */
