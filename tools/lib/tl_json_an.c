/* tools/lib/tl_json_an.c - JSON of the analysis results several tools print (stall summaries). */
#include "tl_json_an.h"

void tl_json_stall_summary(struct ax_json *j, const char *key, const struct an_stall_summary *s)
{
	double cycles = s->samples * s->period;
	double cpi = s->insns_exec > 0 ? cycles / s->insns_exec : 0;

	ax_json_obj_open(j, key);
	ax_json_num(j, "samples", s->samples, 0);
	ax_json_num(j, "cycles", cycles, 0);
	ax_json_num(j, "insns", s->insns_exec, 0);
	ax_json_num(j, "cpi", cpi, 4);
	ax_json_num(j, "execution", s->exec, 2);
	ax_json_num(j, "static", s->stat, 2);
	ax_json_num(j, "dynamic", s->dyn, 2);
	ax_json_obj_open(j, "causes");
	for (unsigned int c = 0; c < AN_CAUSE_NR; c++) {
		ax_json_obj_open(j, an_cause_name(c));
		ax_json_num(j, "lo", s->lo[c], 2);
		ax_json_num(j, "hi", s->hi[c], 2);
		ax_json_num(j, "split", s->share[c], 2);
		ax_json_obj_close(j);
	}
	ax_json_obj_close(j);
	ax_json_num(j, "unexplained", s->unexplained, 2);
	ax_json_obj_close(j);
}
