/* tests/kernel/kt_procs.h - kt_check's procedure-observer checks (kt_procs.c). */
#ifndef KT_PROCS_H
#define KT_PROCS_H

/* Check callargs' planted values and callers in RESULTS_DIR; prints CHECK lines, returns the
 * number that failed (0 when callargs was not run). */
int kt_check_procs(const char *dir);

#endif /* KT_PROCS_H */
