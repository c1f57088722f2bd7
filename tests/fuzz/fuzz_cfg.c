/* tests/fuzz/fuzz_cfg.c - fuzz target: procedures and CFGs (an_procs_find, an_cfg_*) of any code. */
#include "fuzz_common.h"

#include <stdlib.h>
#include <string.h>

#include "an_cfg.h"
#include "analysis/fixtures/mkelf.h"
#include "img.h"

/*
 * Input: three bytes of layout, then code words (little-endian), then the .rodata bytes:
 *   byte 0  symbols: 0 none (procedures guessed from the code), 1 one function over all the
 *           code, 2 two functions split at word byte 1, 3 a size-0 function then one at byte 1
 *   byte 2  .rodata length in 8-byte units, taken from the end (jump tables live there)
 * written as an ET_EXEC Alpha image (tests/analysis/fixtures/mkelf.h) into a memfd, opened with
 * img_open(), its procedures found, and every procedure's CFG built, given classes and checked:
 * an_cfg_check() failing on a CFG an_cfg_build() returned is a bug (abort).
 */
#define TEXT 0x120001000ull
#define RODATA 0x120100000ull
#define MAX_WORDS 4096

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct mkelf_sym syms[2] = { { "f", TEXT, 0, true }, { "g", TEXT, 0, true } };
	size_t nwords, rolen, nsyms = 0, split;
	struct an_procs *ps = NULL;
	struct ax_error err;
	struct img *im = NULL;
	uint32_t *words;
	char path[64];
	int fd;

	if (size < 7)
		return 0;
	rolen = (size_t)data[2] * 8;
	if (rolen > size - 3)
		rolen = (size - 3) & ~(size_t)7;
	nwords = (size - 3 - rolen) / 4;
	if (!nwords || nwords > MAX_WORDS)
		return 0;
	split = data[1] % nwords;
	switch (data[0] & 3) {
	case 1:
		syms[0].size = nwords * 4;
		nsyms = 1;
		break;
	case 2:
		syms[0].size = split * 4;
		syms[1].value = TEXT + split * 4;
		syms[1].size = (nwords - split) * 4;
		nsyms = 2;
		break;
	case 3:
		syms[1].value = TEXT + split * 4;
		syms[1].size = 4;
		nsyms = 2;
		break;
	}
	words = malloc(nwords * 4);
	if (!words)
		return 0;
	for (size_t i = 0; i < nwords; i++) {
		const uint8_t *b = data + 3 + 4 * i;

		words[i] = (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 |
			   (uint32_t)b[3] << 24;
	}
	fd = fuzz_memfd(NULL, 0, path, sizeof(path));
	if (fd < 0 ||
	    mkelf_write(path, TEXT, words, nwords, data + size - rolen, rolen, RODATA, syms, nsyms))
		goto out;
	if (img_open(path, 0, &im, &err))
		abort(); /* mkelf writes a valid image */
	if (an_procs_find(im, &ps, &err))
		goto out;
	for (size_t i = 0; i < ps->n; i++) {
		struct an_cfg *cfg;

		if (an_cfg_build(ps, &ps->v[i], &cfg, &err))
			continue;
		if (an_cfg_classes(cfg) == 0 && an_cfg_check(cfg, &err)) {
			fprintf(stdout, "an_cfg_check: %s\n", err.msg);
			abort();
		}
		an_cfg_free(cfg);
	}
out:
	an_procs_free(ps);
	img_close(im);
	if (fd >= 0)
		close(fd);
	free(words);
	return 0;
}
