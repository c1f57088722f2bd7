/* tests/fuzz/fuzz_ksyms.c - fuzz target: kallsyms, System.map, /proc/modules, notes (dmn_kern.h). */
#include "fuzz_common.h"

#include <string.h>

#include "dmn_kern.h"

/*
 * Input: byte 0 picks the parser, the rest is its text: 0 kallsyms, 1 System.map, 2
 * /proc/modules, 3 a notes blob. Oracles (beyond the sanitizers): what is accepted is sorted,
 * every name is non-empty and has no blank, modules do not overlap and each address finds its
 * module, a build-id is 1..20 bytes.
 */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *t = (const char *)data + 1;
	size_t len = size ? size - 1 : 0;
	struct dmn_ksyms k;
	struct dmn_kmods m;
	struct ax_error err;
	uint8_t id[20];
	size_t n;

	if (!size)
		return 0;
	switch (data[0] & 3) {
	case 0:
	case 1:
		if (dmn_ksyms_parse(t, len, "fuzz", !(data[0] & 1), &k, &err))
			break;
		for (size_t i = 0; i < k.n; i++) {
			if (!k.s[i].name[0] || strpbrk(k.s[i].name, " \t\n") ||
			    (i && k.s[i - 1].addr > k.s[i].addr) ||
			    ((data[0] & 1) && k.s[i].module))
				abort();
		}
		dmn_ksyms_free(&k);
		break;
	case 2:
		if (dmn_kmods_parse(t, len, "fuzz", &m, &err))
			break;
		for (size_t i = 0; i < m.n; i++) {
			if (!m.m[i].size ||
			    (i && m.m[i - 1].addr + m.m[i - 1].size > m.m[i].addr) ||
			    dmn_kmods_find(&m, m.m[i].addr) != &m.m[i] ||
			    dmn_kmods_find(&m, m.m[i].addr + m.m[i].size - 1) != &m.m[i])
				abort();
		}
		dmn_kmods_free(&m);
		break;
	default:
		if (dmn_notes_build_id(data + 1, len, id, &n) && (n < 1 || n > 20))
			abort();
		break;
	}
	return 0;
}
