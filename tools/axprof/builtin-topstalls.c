/* tools/axprof/builtin-topstalls.c - `axprof topstalls`: the largest stalls across images. */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "axprof/builtin.h"
#include "isa_dis.h"
#include "an_freq_image.h"
#include "tl_periods.h"
#include "tl_prof.h"
#include "tl_view.h"

/*
 * DCPI SOSP'97 §6.2 at the scale of a whole profile: every procedure with CYCLES samples in every
 * image is analysed (frequency, static schedule, culprits) and the instructions whose stalls
 * (static + dynamic) took the most samples are listed with the causes that could not be ruled
 * out and the culprit instructions.
 */

struct stall {
	char image[128];
	char proc[256];
	uint64_t pc;
	char text[ISA_DIS_TEXT_MAX];
	double samples; /* all samples of the instruction */
	double stat, dyn; /* stall samples */
	double per_exec; /* stall cycles per execution */
	uint8_t conf;
	uint32_t cand;
	double hi[AN_CAUSE_NR];
	uint64_t culprit[AN_CAUSE_NR]; /* pc, 0 when none */
	uint8_t reason;
	double unexplained;
};

struct top {
	struct stall *v;
	size_t n, cap;
	double total; /* all CYCLES samples analysed */
	double cycles; /* their samples x their image's CYCLES period */
	bool assumed; /* an image's CYCLES period was assumed */
};

static void usage(FILE *f)
{
	fprintf(f,
		"usage: axprof topstalls [-d DIR] [--epoch N] [-n N] [--image I] [--period P]\n"
		"                        [--event-period E=P] [--json]\n\n"
		"Analyse every procedure with CYCLES samples (DCPI SOSP'97 §6: frequency estimates,\n"
		"static schedule, dynamic stall culprits) and list the N instructions whose stalls\n"
		"took the most cycles, with the static reason and the dynamic causes that could not\n"
		"be ruled out.\n\n"
		"Options:\n"
		"  -d, --db DIR          the database (default $AXPROF_DB, else ./axprof-db)\n"
		"  --epoch N             that epoch (default the current one)\n"
		"  -n N                  how many (default 20)\n"
		"  --image I             only images whose key, path or file name is I\n"
		"  --period P            mean CYCLES sampling period, P or LO-HI (default: the one the\n"
		"                        database stored for each image, else 62000)\n"
		"  --event-period E=P    mean period of event E (imiss, dmiss, dtbmiss, itbmiss,\n"
		"                        branchmp; default the stored one)\n"
		"  --json                JSON output\n"
		"  --help                this text\n");
}

static const char *base_name(const char *p)
{
	const char *s = strrchr(p, '/');

	return s ? s + 1 : p;
}

static void insn_text(uint32_t word, uint64_t pc, char *buf, size_t size)
{
	char *p;

	if (isa_dis_format(word, pc, NULL, buf, size) < 0 && size)
		buf[size - 1] = 0;
	for (p = buf; *p; p++)
		if (*p == '\t')
			*p = ' ';
	while (p > buf && p[-1] == ' ')
		*--p = 0;
}

static int add_proc(struct top *t, const struct tl_view_image *vi, const struct an_fi_proc *fp)
{
	for (uint32_t i = 0; i < fp->ninsns; i++) {
		const struct an_fi_insn *in = &fp->insn[i];
		double s = (double)in->samples[AN_EV_CYCLES], st, f = in->cp.f;
		struct stall *x;

		t->total += s;
		t->cycles += s * fp->period[AN_EV_CYCLES];
		if (!s)
			continue;
		st = f * in->sched.stall;
		if (st > s)
			st = s;
		if (st + in->cp.dyn <= 0)
			continue;
		if (t->n == t->cap) {
			struct stall *nv;

			t->cap = t->cap ? 2 * t->cap : 256;
			nv = realloc(t->v, t->cap * sizeof(*nv));
			if (!nv)
				return -ENOMEM;
			t->v = nv;
		}
		x = &t->v[t->n++];
		memset(x, 0, sizeof(*x));
		snprintf(x->image, sizeof(x->image), "%s", base_name(vi->name));
		snprintf(x->proc, sizeof(x->proc), "%s", fp->name);
		x->pc = in->pc;
		insn_text(in->word, in->pc, x->text, sizeof(x->text));
		x->samples = s;
		x->stat = st;
		x->dyn = in->cp.dyn;
		x->per_exec = f > 0 ? (st + in->cp.dyn) / f : 0;
		x->conf = in->conf;
		x->cand = in->cp.cand;
		x->reason = in->sched.stall ? in->sched.reason : AN_STALL_NONE;
		x->unexplained = in->cp.unexplained;
		for (unsigned int c = 0; c < AN_CAUSE_NR; c++) {
			x->hi[c] = in->cp.hi[c];
			if (in->cp.culprit[c] != AN_NONE)
				x->culprit[c] = fp->insn[in->cp.culprit[c]].pc;
		}
	}
	return 0;
}

static int cmp_stall(const void *a, const void *b)
{
	const struct stall *x = a, *y = b;
	double sx = x->stat + x->dyn, sy = y->stat + y->dyn;

	if (sx != sy)
		return sx < sy ? 1 : -1;
	return (x->pc > y->pc) - (x->pc < y->pc);
}

static int scan_image(struct top *t, const struct tl_view_image *vi, const struct tl_periods *per)
{
	struct an_fi_opts o = { 0 };
	struct an_fi_image *im;
	char err[512];
	int ret;

	if (!vi->prof || !vi->total[PDB_EV_CYCLES])
		return 0;
	if (!vi->img.path || !*vi->img.path) {
		fprintf(stderr, "axprof topstalls: %s: file unknown, skipped\n", vi->name);
		return 0;
	}
	ret = tl_fi_open(vi->img.path, vi->prof, &im, err, sizeof(err));
	if (ret == -ENOMEM)
		return ret;
	if (ret) {
		fprintf(stderr, "axprof topstalls: %s (skipped)\n", err);
		return 0;
	}
	if (tl_periods_for(per, vi->prof, o.period) == TL_PSRC_ASSUMED)
		t->assumed = true;
	for (size_t k = 0; !ret && k < an_fi_procs(im)->n; k++) {
		const struct an_proc *p = &an_fi_procs(im)->v[k];
		struct an_fi_proc *fp;

		if (!an_fi_samples_in(im, AN_EV_CYCLES, p->start, p->end))
			continue;
		if (an_fi_analyze(im, p, &o, &fp, err, sizeof(err))) {
			fprintf(stderr, "axprof topstalls: %s: %s (skipped)\n", vi->name, err);
			continue;
		}
		ret = add_proc(t, vi, fp);
		an_fi_proc_free(fp);
	}
	an_fi_close(im);
	return ret;
}

static void print_causes(const struct stall *x, bool json)
{
	bool first = true;

	for (unsigned int c = 0; c < AN_CAUSE_NR; c++) {
		if (!(x->cand & (1u << c)) || x->hi[c] <= 0)
			continue;
		if (json) {
			printf("%s{\"cause\":\"%s\",\"hi\":%.3f", first ? "" : ",",
			       an_cause_name(c), x->hi[c]);
			if (x->culprit[c])
				printf(",\"culprit\":\"0x%" PRIx64 "\"", x->culprit[c]);
			printf("}");
		} else {
			printf("%s%s", first ? "" : ", ", an_cause_name(c));
			if (x->culprit[c])
				printf("<-0x%" PRIx64, x->culprit[c]);
		}
		first = false;
	}
	if (!json && x->dyn > 0 && !x->cand)
		printf("unexplained");
	else if (!json && !(x->dyn > 0))
		printf("none");
}

int cmd_topstalls(int argc, char **argv)
{
	enum { O_EPOCH = 256, O_IMAGE, O_PERIOD, O_EVPERIOD, O_JSON, O_HELP };
	static const struct option longopts[] = {
		{ "db", required_argument, NULL, 'd' },
		{ "epoch", required_argument, NULL, O_EPOCH },
		{ "image", required_argument, NULL, O_IMAGE },
		{ "period", required_argument, NULL, O_PERIOD },
		{ "event-period", required_argument, NULL, O_EVPERIOD },
		{ "json", no_argument, NULL, O_JSON },
		{ "help", no_argument, NULL, O_HELP },
		{ NULL, 0, NULL, 0 },
	};
	struct tl_periods per = { 0 };
	struct tl_view v;
	struct top t = { 0 };
	const struct tl_view_image **sel = NULL;
	const char *dir = NULL, *image = NULL;
	unsigned long epoch = 0;
	long count = 20;
	bool json = false;
	char err[512], *end;
	size_t n, k;
	int c, ret = 0;

	optind = 1;
	while ((c = getopt_long(argc, argv, "d:n:", longopts, NULL)) != -1) {
		switch (c) {
		case 'd':
			dir = optarg;
			break;
		case 'n':
			count = strtol(optarg, &end, 10);
			if (*end || count <= 0) {
				fprintf(stderr,
					"axprof topstalls: -n needs a positive count, not '%s'\n",
					optarg);
				return 2;
			}
			break;
		case O_EPOCH:
			epoch = strtoul(optarg, &end, 10);
			if (*end || !epoch || epoch > PDB_EPOCH_MAX) {
				fprintf(stderr,
					"axprof topstalls: --epoch needs an epoch number, not '%s'\n",
					optarg);
				return 2;
			}
			break;
		case O_IMAGE:
			image = optarg;
			break;
		case O_PERIOD:
			if (cmd_period_parse("axprof topstalls", optarg, per.given))
				return 2;
			break;
		case O_EVPERIOD:
			if (cmd_event_period_parse("axprof topstalls", optarg, per.given))
				return 2;
			break;
		case O_JSON:
			json = true;
			break;
		case O_HELP:
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "axprof topstalls: unexpected argument '%s'\n", argv[optind]);
		return 2;
	}
	dir = tl_default_db(dir);
	ret = tl_view_open(&v, dir, (uint32_t)epoch, err, sizeof(err));
	if (ret) {
		fprintf(stderr, "axprof topstalls: %s\n", err);
		return 1;
	}
	sel = calloc(v.n + 1, sizeof(*sel));
	if (!sel) {
		fprintf(stderr, "axprof topstalls: out of memory\n");
		ret = 1;
		goto out;
	}
	n = tl_view_select(&v, image, PDB_EV_CYCLES, sel);
	for (k = 0; k < n && !ret; k++)
		ret = scan_image(&t, sel[k], &per);
	if (ret) {
		fprintf(stderr, "axprof topstalls: out of memory\n");
		ret = 1;
		goto out;
	}
	if (!t.total) {
		fprintf(stderr, "axprof topstalls: no CYCLES samples in %s epoch %u%s%s\n", dir,
			v.epoch, image ? " for image " : "", image ? image : "");
		ret = 1;
		goto out;
	}
	qsort(t.v, t.n, sizeof(*t.v), cmp_stall);
	if ((size_t)count > t.n)
		count = (long)t.n;
	if (json) {
		printf("{\"period\":%.3f,\"samples\":%.0f,\"stalls\":[", t.cycles / t.total,
		       t.total);
		for (long i = 0; i < count; i++) {
			const struct stall *x = &t.v[i];

			printf("%s{\"image\":", i ? "," : "");
			tl_json_str(stdout, x->image);
			printf(",\"procedure\":");
			tl_json_str(stdout, x->proc);
			printf(",\"addr\":\"0x%" PRIx64 "\",\"text\":", x->pc);
			tl_json_str(stdout, x->text);
			printf(",\"samples\":%.0f,\"static\":%.3f,\"static_reason\":\"%s\","
			       "\"dynamic\":%.3f,\"cycles_per_exec\":%.3f,\"confidence\":\"%s\","
			       "\"unexplained\":%.3f,\"causes\":[",
			       x->samples, x->stat, an_stall_name[x->reason], x->dyn, x->per_exec,
			       an_conf_name(x->conf), x->unexplained);
			print_causes(x, true);
			printf("]}");
		}
		printf("]}\n");
	} else {
		printf("mean CYCLES period %.0f%s; %.0f samples analysed\n", t.cycles / t.total,
		       tl_psrc_note(t.assumed ? TL_PSRC_ASSUMED : TL_PSRC_STORED), t.total);
		printf("%6s %6s %7s %-6s %-14s %-20s %-18s %s\n", "stall%", "static", "cyc/ex",
		       "conf", "image", "procedure", "address", "instruction / causes");
		for (long i = 0; i < count; i++) {
			const struct stall *x = &t.v[i];

			printf("%5.1f%% %5.0f%% %7.1f %-6s %-14.14s %-20.20s 0x%016" PRIx64 " %s\n",
			       100 * (x->stat + x->dyn) / t.total,
			       x->stat + x->dyn > 0 ? 100 * x->stat / (x->stat + x->dyn) : 0,
			       x->per_exec, an_conf_name(x->conf), x->image, x->proc, x->pc,
			       x->text);
			printf("%67s ", "");
			if (x->stat > 0)
				printf("static: %s; ", an_stall_name[x->reason]);
			printf("dynamic: ");
			print_causes(x, false);
			printf("\n");
		}
	}
out:
	free(t.v);
	free(sel);
	tl_view_close(&v);
	if (tl_finish_stdout("axprof topstalls"))
		ret = 1;
	return ret;
}
