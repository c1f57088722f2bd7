/* tools/lib/tl_json.h - the one JSON writer of every axprof tool (schema: docs/axprof-json.7). */
#ifndef TL_JSON_H
#define TL_JSON_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

/*
 * A streaming writer: values go straight to the FILE in the order they are written, commas and
 * nesting are the writer's business. Inside an object every value takes a key; inside an array
 * (and at the top) the key is NULL. Keys are the ones docs/axprof-json.7 lists.
 *
 * Strings are always valid UTF-8 JSON: '"', '\\' and control characters are escaped, valid
 * UTF-8 sequences pass through, and every byte that is not part of a valid UTF-8 sequence
 * (a file name in another encoding, a cut-off sequence, an overlong form or a surrogate) is
 * REPLACED by U+FFFD (the replacement character), one per byte.
 *
 * A document is one top-level object that starts with "tool" (tl_json_doc_open) and ends with
 * a newline (tl_json_doc_close); JSON Lines outputs write one document per line.
 */

#define TL_JSON_DEPTH 16

struct tl_json {
	FILE *f;
	unsigned int depth; /* open objects and arrays */
	bool comma[TL_JSON_DEPTH + 1]; /* the next value at this depth needs a comma first */
	char closer[TL_JSON_DEPTH + 1]; /* '}' or ']': what closes the level at this depth */
};

void tl_json_init(struct tl_json *j, FILE *f);

/* A document: '{' then "tool":tool. tl_json_doc_close: '}' and a newline. */
void tl_json_doc_open(struct tl_json *j, FILE *f, const char *tool);
void tl_json_doc_close(struct tl_json *j);

void tl_json_obj_open(struct tl_json *j, const char *key);
void tl_json_obj_close(struct tl_json *j);
void tl_json_arr_open(struct tl_json *j, const char *key);
void tl_json_arr_close(struct tl_json *j);

void tl_json_str(struct tl_json *j, const char *key, const char *s);
void tl_json_u64(struct tl_json *j, const char *key, uint64_t v);
void tl_json_i64(struct tl_json *j, const char *key, int64_t v);
/* A number with `decimals` digits after the point (printf's %.*f); NaN and infinities: null. */
void tl_json_num(struct tl_json *j, const char *key, double v, int decimals);
void tl_json_bool(struct tl_json *j, const char *key, bool v);
void tl_json_null(struct tl_json *j, const char *key);
/* An address or a word: the string "0x" followed by lower-case hex digits. */
void tl_json_hex(struct tl_json *j, const char *key, uint64_t v);
/* A word as "0x%08x". */
void tl_json_word(struct tl_json *j, const char *key, uint32_t w);

/* A JSON string literal of s (quotes included) on f, with the rules above. */
void tl_json_write_str(FILE *f, const char *s);

/* The length of the valid UTF-8 sequence at s (1..4), or 0 if s[0] does not start one. */
unsigned int tl_utf8_len(const unsigned char *s);

#endif /* TL_JSON_H */
