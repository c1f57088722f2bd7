/* tools/lib/tl_json_an.h - JSON of the analysis results several tools print (stall summaries). */
#ifndef TL_JSON_AN_H
#define TL_JSON_AN_H

#include "an_freq_image.h"
#include "ax_json.h"

/*
 * A procedure's (or a total's) stall summary as the object `key` (docs/axprof-json.7,
 * "summary"): samples, cycles, insns (estimated executions), cpi, execution, static, dynamic, causes (per cause
 * lo, hi, split) and unexplained; every quantity but cycles, insns and cpi is in CYCLES
 * samples.
 */
void tl_json_stall_summary(struct ax_json *j, const char *key, const struct an_stall_summary *s);

#endif /* TL_JSON_AN_H */
