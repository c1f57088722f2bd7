/* tests/fuzz/fuzz_dmn_stream.c - fuzz target: the daemon's parser of the drained record stream. */
#include "fuzz_common.h"

#include <stdlib.h>
#include <string.h>

#include "dmn_lib.h"

/*
 * Input: byte 0 picks where the stream is cut in two reads (as a drain loop gets it: the
 * records dmn_feed() leaves unconsumed are fed again with the next bytes); the rest is the
 * record stream (kmod/sampler/vs_abi.h) as the driver or the hosted sampler emits it. One
 * daemon lives for the whole run, with a database in a temporary directory that is never
 * flushed (dmn_discard after each input), and process 1 mapping this program's own file at
 * 0x120000000 so that samples and observer records are attributed to an image. Oracles: the
 * sanitizers; every call consumes what it was given at eof; the damage counters only grow.
 */

static struct dmn *d;
static char db_dir[64];

static void cleanup(void)
{
	char cmd[96];

	dmn_free(d);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", db_dir);
	if (system(cmd))
		return;
}

static void setup(void)
{
	struct dmn_opts o = { 0 };
	struct ax_error err;

	fuzz_quiet();
	snprintf(db_dir, sizeof(db_dir), "/tmp/axprof-fuzz-dmn.XXXXXX");
	if (!mkdtemp(db_dir))
		abort();
	strcat(db_dir, "/db");
	o.db_dir = db_dir;
	if (dmn_new(&d, &o, &err) ||
	    dmn_mmap(d, 1, 0x120000000ull, 0x100000, 0, "/proc/self/exe") ||
	    dmn_mmap(d, 2, 0x20000000000ull, 0x40000, 0, "/proc/self/exe"))
		abort();
	db_dir[strlen(db_dir) - 3] = 0;
	atexit(cleanup);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct dmn_stats before, after;
	size_t cut, rest;
	uint8_t *buf;
	long n;

	if (!d)
		setup();
	if (size < 1)
		return 0;
	cut = size > 1 ? (size_t)data[0] * (size - 1) / 255 : 0;
	data++;
	size--;
	buf = malloc(size ? size : 1);
	if (!buf)
		return 0;
	memcpy(buf, data, size);
	dmn_get_stats(d, &before);
	n = dmn_feed(d, buf, cut, false);
	if (n < 0 || (size_t)n > cut)
		abort();
	/* the unconsumed tail is fed again, followed by the rest */
	rest = size - (size_t)n;
	n = dmn_feed(d, buf + n, rest, true);
	if (n != (long)rest)
		abort(); /* at eof everything is consumed (a partial record as damage) */
	dmn_get_stats(d, &after);
	if (after.damaged < before.damaged || after.bytes < before.bytes)
		abort();
	dmn_discard(d);
	free(buf);
	return 0;
}
