/* tests/fuzz/fuzz_opts.c - fuzz target: the option parsers (tools/lib/tl_*, daemon/dmn_opts.c). */
#include "fuzz_common.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "dmn_opts.h"
#include "tl_opts.h"
#include "tl_periods.h"

/*
 * Input: byte 0 picks the parser, the rest is split at NUL and newline bytes into arguments:
 *   0  a report tool's command line: getopt_long with TL_LONGOPT_* and "d:n:", every option
 *      to tl_ropts_parse()
 *   1  a recorder's command line: DMN_SAMPLING_LONGOPTS through dmn_sampling_opt(), then
 *      dmn_sampling_config() (which must leave a configuration vs_config_check() accepts)
 *   2  each argument to tl_period_parse() and tl_event_period_parse()
 *   3  each argument to dmn_parse_pair() (':' and '/'), dmn_parse_events(), dmn_parse_period()
 * Messages go to a silenced stderr; the oracles are the sanitizers and the results' ranges.
 */
#define MAX_ARGS 64

static void report_opts(int argc, char **argv)
{
	static const struct option lo[] = {
		TL_LONGOPT_DB,	 TL_LONGOPT_EPOCH, TL_LONGOPT_IMAGE,
		TL_LONGOPT_JSON, TL_LONGOPT_TOP,   { NULL, 0, NULL, 0 },
	};
	struct tl_ropts o;
	int c;

	tl_ropts_init(&o, "fuzz", 20);
	optind = 0; /* glibc: start over */
	opterr = 0;
	while ((c = getopt_long(argc, argv, "d:n:", lo, NULL)) != -1)
		if (tl_ropts_parse(&o, c, optarg) == 2)
			return;
	if (o.top < 0 || o.top > TL_TOP_MAX || !o.db)
		abort();
}

static void sampling_opts(int argc, char **argv)
{
	static const struct option lo[] = {
		DMN_SAMPLING_LONGOPTS,
		{ NULL, 0, NULL, 0 },
	};
	struct dmn_sampling s = { 0 };
	struct ax_error err;
	struct vs_config cfg;
	const char *why;
	int c;

	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "", lo, NULL)) != -1)
		if (dmn_sampling_opt(&s, c, optarg, &err) < 0)
			return;
	if (!dmn_sampling_config(&s, &cfg, &err) && vs_config_check(&cfg, &why))
		abort(); /* a configuration accepted must be valid */
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *buf, *argv[MAX_ARGS + 2];
	int argc = 1;
	size_t i;

	if (size < 1)
		return 0;
	fuzz_quiet();
	buf = malloc(size);
	if (!buf)
		return 0;
	memcpy(buf, data + 1, size - 1);
	buf[size - 1] = 0;
	argv[0] = (char *)"fuzz";
	argv[argc++] = buf;
	for (i = 0; i + 1 < size && argc <= MAX_ARGS; i++)
		if (buf[i] == '\n' || !buf[i]) {
			buf[i] = 0;
			argv[argc++] = buf + i + 1;
		}
	argv[argc] = NULL;
	switch (data[0] % 4) {
	case 0:
		report_opts(argc, argv);
		break;
	case 1:
		sampling_opts(argc, argv);
		break;
	case 2:
		for (int a = 1; a < argc; a++) {
			double given[AN_EV_NR] = { 0 };

			tl_period_parse("fuzz", argv[a], given);
			tl_event_period_parse("fuzz", argv[a], given);
		}
		break;
	default:
		for (int a = 1; a < argc; a++) {
			struct vs_config cfg;
			uint32_t x, y, mask;

			dmn_parse_pair(argv[a], ':', &x, &y);
			dmn_parse_pair(argv[a], '/', &x, &y);
			if (!dmn_parse_events(argv[a], &mask) && !mask)
				abort(); /* an accepted list names an event */
			vs_config_default(&cfg, VS_MODE_CYCLES);
			dmn_parse_period(argv[a], &cfg);
		}
		break;
	}
	free(buf);
	return 0;
}
