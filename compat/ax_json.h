/* compat/ax_json.h - the one JSON writer of every axprof program (schema: docs/axprof-json.7). */
#ifndef AX_JSON_H
#define AX_JSON_H

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
 * A document is one top-level object that starts with "tool" (ax_json_doc_open) and ends with
 * a newline (ax_json_doc_close); JSON Lines outputs write one document per line.
 */

#define AX_JSON_DEPTH 16

struct ax_json {
	FILE *f;
	unsigned int depth; /* open objects and arrays */
	bool comma[AX_JSON_DEPTH + 1]; /* the next value at this depth needs a comma first */
	char closer[AX_JSON_DEPTH + 1]; /* '}' or ']': what closes the level at this depth */
};

void ax_json_init(struct ax_json *j, FILE *f);

/* A document: '{' then "tool":tool. ax_json_doc_close: '}' and a newline. */
void ax_json_doc_open(struct ax_json *j, FILE *f, const char *tool);
void ax_json_doc_close(struct ax_json *j);

void ax_json_obj_open(struct ax_json *j, const char *key);
void ax_json_obj_close(struct ax_json *j);
void ax_json_arr_open(struct ax_json *j, const char *key);
void ax_json_arr_close(struct ax_json *j);

void ax_json_str(struct ax_json *j, const char *key, const char *s);
void ax_json_u64(struct ax_json *j, const char *key, uint64_t v);
void ax_json_i64(struct ax_json *j, const char *key, int64_t v);
/* A number with `decimals` digits after the point (printf's %.*f); NaN and infinities: null. */
void ax_json_num(struct ax_json *j, const char *key, double v, int decimals);
void ax_json_bool(struct ax_json *j, const char *key, bool v);
void ax_json_null(struct ax_json *j, const char *key);
/* An address or a word: the string "0x" followed by lower-case hex digits. */
void ax_json_hex(struct ax_json *j, const char *key, uint64_t v);
/* A word as "0x%08x". */
void ax_json_word(struct ax_json *j, const char *key, uint32_t w);

/* A JSON string literal of s (quotes included) on f, with the rules above. */
void ax_json_write_str(FILE *f, const char *s);

/* The length of the valid UTF-8 sequence at s (1..4), or 0 if s[0] does not start one. */
unsigned int ax_utf8_len(const unsigned char *s);

#endif /* AX_JSON_H */
