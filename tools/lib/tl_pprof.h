/* tools/lib/tl_pprof.h - pprof's profile.proto, written by a small encoder and gzipped (zlib). */
#ifndef TL_PPROF_H
#define TL_PPROF_H

#include <stddef.h>
#include <stdint.h>

/*
 * pprof's format (github.com/google/pprof, proto/profile.proto, proto3): a Profile message of
 * sample types, samples, mappings, locations, functions and a string table, gzip-compressed on
 * disk. This is a writer of exactly the fields axprof fills, by their public field numbers
 * (TL_PB_* below), in protobuf's wire format (protobuf.dev, "Encoding": varints, tags
 * field << 3 | wire type, length-delimited messages, packed repeated scalars): no generated code
 * and no protobuf library, since a profile is written once, front to back, and never read back
 * by axprof (the unit test decodes it with its own reader).
 *
 * Ids start at 1 (0 means "none" in the format); strings are interned (string_table[0] is "").
 */
struct tl_pprof;

struct tl_pprof_line {
	uint64_t function; /* a tl_pprof_function id */
	int64_t line; /* 0: unknown */
};

/* Sample types: names[i] with unit (e.g. "cycles", "samples"). NULL when out of memory. */
struct tl_pprof *tl_pprof_new(const char *const *names, size_t ntypes, const char *unit);
void tl_pprof_free(struct tl_pprof *p);

/* A mapping; returns its id (0 when out of memory). */
uint64_t tl_pprof_mapping(struct tl_pprof *p, uint64_t start, uint64_t limit, uint64_t offset,
			  const char *file, const char *build_id, int has_lines);
/* A function, one per (name, file): its id (0 when out of memory). file may be NULL. */
uint64_t tl_pprof_function(struct tl_pprof *p, const char *name, const char *file);
/* A location: lines[0] the innermost (inlined) frame, lines[n-1] its caller. Its id or 0. */
uint64_t tl_pprof_location(struct tl_pprof *p, uint64_t mapping, uint64_t address,
			   const struct tl_pprof_line *lines, size_t n);
/* A sample: locs[0] the leaf; values[ntypes]. 0 or -ENOMEM. */
int tl_pprof_sample(struct tl_pprof *p, const uint64_t *locs, size_t nlocs, const int64_t *values);
/* A free comment (Profile.comment). 0 or -ENOMEM. */
int tl_pprof_comment(struct tl_pprof *p, const char *text);

/* The gzip-compressed Profile in *out (free() it), *len bytes. 0, -ENOMEM, -EIO (zlib). */
int tl_pprof_encode(struct tl_pprof *p, uint8_t **out, size_t *len);

/* Profile and message field numbers (profile.proto). */
enum {
	TL_PB_PROFILE_SAMPLE_TYPE = 1,
	TL_PB_PROFILE_SAMPLE = 2,
	TL_PB_PROFILE_MAPPING = 3,
	TL_PB_PROFILE_LOCATION = 4,
	TL_PB_PROFILE_FUNCTION = 5,
	TL_PB_PROFILE_STRING_TABLE = 6,
	TL_PB_PROFILE_COMMENT = 13,
	TL_PB_PROFILE_DEFAULT_SAMPLE_TYPE = 14,
	TL_PB_VALUETYPE_TYPE = 1,
	TL_PB_VALUETYPE_UNIT = 2,
	TL_PB_SAMPLE_LOCATION_ID = 1,
	TL_PB_SAMPLE_VALUE = 2,
	TL_PB_MAPPING_ID = 1,
	TL_PB_MAPPING_MEMORY_START = 2,
	TL_PB_MAPPING_MEMORY_LIMIT = 3,
	TL_PB_MAPPING_FILE_OFFSET = 4,
	TL_PB_MAPPING_FILENAME = 5,
	TL_PB_MAPPING_BUILD_ID = 6,
	TL_PB_MAPPING_HAS_FUNCTIONS = 7,
	TL_PB_MAPPING_HAS_FILENAMES = 8,
	TL_PB_MAPPING_HAS_LINE_NUMBERS = 9,
	TL_PB_MAPPING_HAS_INLINE_FRAMES = 10,
	TL_PB_LOCATION_ID = 1,
	TL_PB_LOCATION_MAPPING_ID = 2,
	TL_PB_LOCATION_ADDRESS = 3,
	TL_PB_LOCATION_LINE = 4,
	TL_PB_LINE_FUNCTION_ID = 1,
	TL_PB_LINE_LINE = 2,
	TL_PB_FUNCTION_ID = 1,
	TL_PB_FUNCTION_NAME = 2,
	TL_PB_FUNCTION_SYSTEM_NAME = 3,
	TL_PB_FUNCTION_FILENAME = 4,
};

#endif /* TL_PPROF_H */
