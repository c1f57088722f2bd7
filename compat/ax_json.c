/* compat/ax_json.c - the one JSON writer of every axprof program (schema: docs/axprof-json.7). */
#include <inttypes.h>
#include <math.h>

#include "ax_json.h"

unsigned int ax_utf8_len(const unsigned char *s)
{
	unsigned int n, i;
	uint32_t cp;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf) {
		n = 2;
		cp = s[0] & 0x1f;
	} else if (s[0] >= 0xe0 && s[0] <= 0xef) {
		n = 3;
		cp = s[0] & 0x0f;
	} else if (s[0] >= 0xf0 && s[0] <= 0xf4) {
		n = 4;
		cp = s[0] & 0x07;
	} else {
		return 0;
	}
	for (i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80) /* also stops at the terminating NUL */
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if ((n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
	    (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return n;
}

void ax_json_write_str(FILE *f, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	fputc('"', f);
	while (*p) {
		unsigned int n = ax_utf8_len(p);

		if (!n) {
			fputs("\xef\xbf\xbd", f); /* U+FFFD for a byte that is not UTF-8 */
			p++;
		} else if (*p == '"' || *p == '\\') {
			fprintf(f, "\\%c", *p++);
		} else if (*p == '\n') {
			fputs("\\n", f);
			p++;
		} else if (*p == '\t') {
			fputs("\\t", f);
			p++;
		} else if (*p < 0x20) {
			fprintf(f, "\\u%04x", *p++);
		} else {
			fwrite(p, 1, n, f);
			p += n;
		}
	}
	fputc('"', f);
}

void ax_json_init(struct ax_json *j, FILE *f)
{
	j->f = f;
	j->depth = 0;
	for (unsigned int i = 0; i <= AX_JSON_DEPTH; i++) {
		j->comma[i] = false;
		j->closer[i] = 0;
	}
}

/* Before any value: the comma and the key. */
static void lead(struct ax_json *j, const char *key)
{
	if (j->comma[j->depth])
		fputc(',', j->f);
	j->comma[j->depth] = true;
	if (key) {
		ax_json_write_str(j->f, key);
		fputc(':', j->f);
	}
}

static void nest_open(struct ax_json *j, const char *key, char c)
{
	lead(j, key);
	fputc(c, j->f);
	if (j->depth < AX_JSON_DEPTH)
		j->depth++;
	j->comma[j->depth] = false;
	j->closer[j->depth] = c == '{' ? '}' : ']';
}

static void nest_close(struct ax_json *j, char c)
{
	fputc(c, j->f);
	if (j->depth)
		j->depth--;
}

void ax_json_obj_open(struct ax_json *j, const char *key)
{
	nest_open(j, key, '{');
}

void ax_json_obj_close(struct ax_json *j)
{
	nest_close(j, '}');
}

void ax_json_arr_open(struct ax_json *j, const char *key)
{
	nest_open(j, key, '[');
}

void ax_json_arr_close(struct ax_json *j)
{
	nest_close(j, ']');
}

void ax_json_doc_open(struct ax_json *j, FILE *f, const char *tool)
{
	ax_json_init(j, f);
	ax_json_obj_open(j, NULL);
	ax_json_str(j, "tool", tool);
}

void ax_json_doc_close(struct ax_json *j)
{
	while (j->depth)
		nest_close(j, j->closer[j->depth]);
	fputc('\n', j->f);
	j->comma[0] = false;
}

void ax_json_str(struct ax_json *j, const char *key, const char *s)
{
	lead(j, key);
	ax_json_write_str(j->f, s ? s : "");
}

void ax_json_u64(struct ax_json *j, const char *key, uint64_t v)
{
	lead(j, key);
	fprintf(j->f, "%" PRIu64, v);
}

void ax_json_i64(struct ax_json *j, const char *key, int64_t v)
{
	lead(j, key);
	fprintf(j->f, "%" PRId64, v);
}

void ax_json_num(struct ax_json *j, const char *key, double v, int decimals)
{
	lead(j, key);
	if (isfinite(v))
		fprintf(j->f, "%.*f", decimals, v);
	else
		fputs("null", j->f);
}

void ax_json_bool(struct ax_json *j, const char *key, bool v)
{
	lead(j, key);
	fputs(v ? "true" : "false", j->f);
}

void ax_json_null(struct ax_json *j, const char *key)
{
	lead(j, key);
	fputs("null", j->f);
}

void ax_json_hex(struct ax_json *j, const char *key, uint64_t v)
{
	lead(j, key);
	fprintf(j->f, "\"0x%" PRIx64 "\"", v);
}

void ax_json_word(struct ax_json *j, const char *key, uint32_t w)
{
	lead(j, key);
	fprintf(j->f, "\"0x%08" PRIx32 "\"", w);
}
