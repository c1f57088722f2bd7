/* tests/pdb/fuzz_pdb_read.c - fuzz target for the profile database readers (libFuzzer). */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "pdb.h"

/*
 * Input: the first byte picks what the rest is.
 *   0-63    a whole file, read as a profile table (pdb_parse)
 *   64-127  a whole file, read as an index (pdb_parse_index)
 *   128-255 a payload: wrapped in a valid header (type 1 + byte % 7, ALIGN4 from bit 3, zlib
 *           from bit 4, record count from the next two bytes) with right checksums, so that the
 *           record parsers see everything the fuzzer makes
 * Whatever is accepted must re-encode and read back (else abort()).
 *
 * make fuzz  builds build/fuzz/fuzz_pdb_read with clang -fsanitize=fuzzer,address,undefined;
 * run it with seeds from `build/tests/pdb/pdb_stress corpus DIR`:
 *   build/fuzz/fuzz_pdb_read -max_total_time=60 DIR
 * Without libFuzzer (make tests) the same file has a main() that reads the files it is given.
 */

static void le(uint8_t *p, uint64_t x, unsigned int size)
{
	unsigned int i;

	for (i = 0; i < size; i++)
		p[i] = (uint8_t)(x >> (8 * i));
}

/* Check that p survives encode + parse unchanged in size (every table re-reads). */
static void reencode(const struct pdb_prof *p)
{
	struct ax_error err;
	unsigned int type, ev;

	for (type = PDB_FT_SAMPLES; type <= PDB_FT_THREADS; type++)
		for (ev = 0;
		     (type <= PDB_FT_UNKNOWN || type == PDB_FT_PROFILEME || type == PDB_FT_PROCS ||
		      type == PDB_FT_PMPATHS || type == PDB_FT_ADDRS || type == PDB_FT_TASKS ||
		      type == PDB_FT_STACKS || type == PDB_FT_THREADS) &&
		     ev < (type == PDB_FT_SAMPLES ? PDB_EV_MAX : 1u);
		     ev++) {
			struct pdb_prof *q;
			size_t len, len2;
			void *buf, *buf2;
			int r = pdb_encode(p, type, ev, &buf, &len);

			if (r == -ENODATA || r == -ENOMEM)
				continue;
			if (r)
				abort();
			q = pdb_prof_new();
			if (!q || pdb_parse(buf, len, "re-encoded", q, &err))
				abort();
			/* The re-read table encodes to the same bytes. */
			if (pdb_encode(q, type, ev, &buf2, &len2) || len2 != len ||
			    memcmp(buf, buf2, len))
				abort();
			free(buf2);
			free(buf);
			pdb_prof_free(q);
		}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ax_error err;
	uint8_t *file = NULL;
	size_t len = 0;

	if (size < 1)
		return 0;
	if (data[0] >= 128 && size >= 3) {
		unsigned int type = 1 + data[0] % 7;
		size_t plen = size - 3;
		uLongf slen = compressBound((uLong)plen);
		bool zlib = true;

		file = malloc(48 + slen + plen + 1);
		if (!file)
			return 0;
		/* Compressed when asked and when it shrinks, as the writer does. */
		if (!(data[0] & 16) || compress(file + 48, &slen, data + 3, (uLong)plen) != Z_OK ||
		    slen >= plen) {
			memcpy(file + 48, data + 3, plen);
			slen = plen;
			zlib = false;
		}
		memcpy(file, "AXPD", 4);
		le(file + 4, PDB_FORMAT_VERSION, 2);
		le(file + 6, type, 2);
		le(file + 8, ((data[0] & 8) ? PDB_FL_ALIGN4 : 0) | (zlib ? PDB_FL_ZLIB : 0), 4);
		le(file + 12, type == PDB_FT_SAMPLES ? data[1] % PDB_EV_MAX : 0, 4);
		le(file + 16, (uint64_t)data[1] | (uint64_t)data[2] << 8, 8);
		le(file + 24, plen, 8);
		le(file + 32, slen, 8);
		le(file + 40, crc32(0, file + 48, (uInt)slen), 4);
		le(file + 44, crc32(0, file, 44), 4);
		len = 48 + slen;
		data = file;
		size = len;
		if (type == PDB_FT_INDEX)
			goto index;
	} else if (data[0] >= 64) {
		data++;
		size--;
		goto index;
	} else {
		data++;
		size--;
	}
	{
		struct pdb_prof *p = pdb_prof_new();

		if (p && pdb_parse(data, size, "fuzz", p, &err) == 0)
			reencode(p);
		pdb_prof_free(p);
		free(file);
		return 0;
	}
index : {
	struct pdb_image *list;
	size_t n;

	if (pdb_parse_index(data, size, "fuzz", &list, &n, &err) == 0) {
		void *buf;
		size_t blen;

		if (pdb_encode_index(list, n, &buf, &blen))
			abort();
		free(buf);
		pdb_image_list_free(list, n);
	}
	free(file);
	return 0;
}
}

#ifndef PDB_FUZZ_LIBFUZZER
/* Replay inputs (files named on the command line) without libFuzzer. */
int main(int argc, char **argv)
{
	int i;

	for (i = 1; i < argc; i++) {
		FILE *f = fopen(argv[i], "rb");
		uint8_t *buf;
		long n;

		if (!f) {
			perror(argv[i]);
			return 1;
		}
		fseek(f, 0, SEEK_END);
		n = ftell(f);
		fseek(f, 0, SEEK_SET);
		buf = malloc(n > 0 ? (size_t)n : 1);
		if (!buf || fread(buf, 1, (size_t)n, f) != (size_t)n) {
			fprintf(stderr, "%s: cannot read\n", argv[i]);
			return 1;
		}
		fclose(f);
		LLVMFuzzerTestOneInput(buf, (size_t)n);
		free(buf);
	}
	return 0;
}
#endif
