/* pdb/pdb_name.c - profile database names: events, image keys, table file names. */
#include <stdio.h>
#include <stdlib.h>

#include "pdb_int.h"

/* Stable ids (pdb.h): never renumber, only add names for reserved ids. */
static const char *const event_names[PDB_EV_MAX] = {
	[PDB_EV_CYCLES] = "CYCLES",
	[PDB_EV_RETIRED] = "RETIRED",
	[PDB_EV_IMISS] = "IMISS",
	[PDB_EV_DMISS] = "DMISS",
	[PDB_EV_DTBMISS] = "DTBMISS",
	[PDB_EV_ITBMISS] = "ITBMISS",
	[PDB_EV_BRANCHMP] = "BRANCHMP",
	[PDB_EV_REPLAY] = "REPLAY",
	[PDB_EV_INVAL] = "INVAL",
	[PDB_EV_INTERV] = "INTERV",
	[10] = "EV10",
	[11] = "EV11",
	[12] = "EV12",
	[13] = "EV13",
	[14] = "EV14",
	[15] = "EV15",
	[16] = "EV16",
	[17] = "EV17",
	[18] = "EV18",
	[19] = "EV19",
	[20] = "EV20",
	[21] = "EV21",
	[22] = "EV22",
	[23] = "EV23",
	[24] = "EV24",
	[25] = "EV25",
	[26] = "EV26",
	[27] = "EV27",
	[28] = "EV28",
	[29] = "EV29",
	[30] = "EV30",
	[31] = "EV31",
};

const char *pdb_event_name(unsigned int event)
{
	return event < PDB_EV_MAX ? event_names[event] : NULL;
}

int pdb_event_id(const char *name)
{
	unsigned int e;

	for (e = 0; e < PDB_EV_MAX; e++)
		if (!strcmp(name, event_names[e]))
			return (int)e;
	return -EINVAL;
}

static bool key_char(char c, bool first)
{
	if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'))
		return true;
	return !first && (c == '.' || c == '_' || c == '-');
}

bool pdb_key_is_valid(const char *key)
{
	size_t i;

	if (!key || !key[0] || !strcmp(key, PDB_KEY_UNKNOWN))
		return false;
	for (i = 0; key[i]; i++)
		if (i >= PDB_KEY_MAX || !key_char(key[i], i == 0))
			return false;
	return true;
}

uint64_t pdb_fnv64(uint64_t h, const void *buf, size_t len)
{
	const uint8_t *p = buf;
	size_t i;

	for (i = 0; i < len; i++)
		h = (h ^ p[i]) * 0x100000001b3ull;
	return h;
}

int pdb_image_key(char *key, const uint8_t *build_id, size_t build_id_len, const char *path,
		  uint64_t size, int64_t mtime_ns)
{
	static const char hex[] = "0123456789abcdef";
	uint8_t le[8];
	int64_t sec;
	uint64_t h;
	size_t i;

	if (build_id && build_id_len >= 1 && build_id_len <= PDB_BUILD_ID_MAX) {
		key[0] = 'b';
		key[1] = '-';
		for (i = 0; i < build_id_len; i++) {
			key[2 + 2 * i] = hex[build_id[i] >> 4];
			key[3 + 2 * i] = hex[build_id[i] & 15];
		}
		key[2 + 2 * build_id_len] = 0;
		return 0;
	}
	if (!path)
		return -EINVAL;
	/* Whole seconds: file systems keep different sub-second precision. */
	sec = mtime_ns / 1000000000;
	if (mtime_ns % 1000000000 < 0)
		sec--;
	h = pdb_fnv64(PDB_FNV64_INIT, path, strlen(path) + 1);
	pdb_put_le(le, size, 8);
	h = pdb_fnv64(h, le, 8);
	pdb_put_le(le, (uint64_t)sec, 8);
	h = pdb_fnv64(h, le, 8);
	snprintf(key, PDB_KEY_MAX + 1, "h-%016llx", (unsigned long long)h);
	return 0;
}

/* --- tables --- */

static const char *const table_names[] = {
	[PDB_T_VALUES - PDB_EV_MAX] = "values.prof",
	[PDB_T_LATENCY - PDB_EV_MAX] = "latency.prof",
	[PDB_T_CONFLICTS - PDB_EV_MAX] = "conflicts.prof",
	[PDB_T_VCOUNT - PDB_EV_MAX] = "vcount.prof",
	[PDB_T_UNKNOWN - PDB_EV_MAX] = "unknown.prof",
	[PDB_T_PROFILEME - PDB_EV_MAX] = "profileme.prof",
	[PDB_T_PROCS - PDB_EV_MAX] = "procs.prof",
	[PDB_T_PMPATHS - PDB_EV_MAX] = "pmpaths.prof",
	[PDB_T_ADDRS - PDB_EV_MAX] = "addrs.prof",
	[PDB_T_TASKS - PDB_EV_MAX] = "tasks.prof",
	[PDB_T_STACKS - PDB_EV_MAX] = "stacks.prof",
	[PDB_T_THREADS - PDB_EV_MAX] = "threads.prof",
};

const char *pdb_table_file(unsigned int t, char *buf)
{
	if (t < PDB_EV_MAX) {
		snprintf(buf, 32, "%s.prof", event_names[t]);
		return buf;
	}
	if (t >= PDB_T_NR)
		return NULL;
	return table_names[t - PDB_EV_MAX];
}

int pdb_table_of_file(const char *name)
{
	size_t len = strlen(name);
	char ev[32];
	unsigned int t;
	int e;

	for (t = PDB_EV_MAX; t < PDB_T_NR; t++)
		if (table_names[t - PDB_EV_MAX] && !strcmp(name, table_names[t - PDB_EV_MAX]))
			return (int)t;
	if (len < 6 || len - 5 >= sizeof(ev) || strcmp(name + len - 5, ".prof"))
		return -1;
	memcpy(ev, name, len - 5);
	ev[len - 5] = 0;
	e = pdb_event_id(ev);
	return e < 0 ? -1 : e;
}

unsigned int pdb_table_type(unsigned int t, unsigned int *event)
{
	*event = 0;
	if (t < PDB_EV_MAX) {
		*event = t;
		return PDB_FT_SAMPLES;
	}
	switch (t) {
	case PDB_T_VALUES:
		return PDB_FT_VALUES;
	case PDB_T_LATENCY:
		return PDB_FT_LATENCY;
	case PDB_T_CONFLICTS:
		return PDB_FT_CONFLICTS;
	case PDB_T_VCOUNT:
		return PDB_FT_VCOUNT;
	case PDB_T_PROFILEME:
		return PDB_FT_PROFILEME;
	case PDB_T_PROCS:
		return PDB_FT_PROCS;
	case PDB_T_PMPATHS:
		return PDB_FT_PMPATHS;
	case PDB_T_ADDRS:
		return PDB_FT_ADDRS;
	case PDB_T_TASKS:
		return PDB_FT_TASKS;
	case PDB_T_STACKS:
		return PDB_FT_STACKS;
	case PDB_T_THREADS:
		return PDB_FT_THREADS;
	default:
		return PDB_FT_UNKNOWN;
	}
}
