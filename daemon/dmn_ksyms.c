/* daemon/dmn_ksyms.c - parse /proc/kallsyms, System.map and /proc/modules (dmn_kern.h). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dmn_kern.h"

/* DCPI SOSP'97 §4.3: the kernel and its loaded modules are images like any other. */

#define KS_NAME_MAX 512 /* longer names are damage (KSYM_NAME_LEN is 512 in Linux 6.1) */
#define KS_TEXT_MAX (64u << 20)

int dmn_read_text(const char *path, char **buf, size_t *len, struct ax_error *err)
{
	size_t cap = 65536, n = 0;
	char *b = malloc(cap);
	int fd;

	if (!b)
		return ax_fail(err, -ENOMEM, "%s: out of memory", path);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		free(b);
		return ax_syserr(err, -errno, path, "open");
	}
	for (;;) {
		ssize_t r;

		if (cap - n < 2) {
			char *nb = cap >= KS_TEXT_MAX ? NULL : realloc(b, cap * 2);

			if (!nb) {
				close(fd);
				free(b);
				return ax_fail(err, -EFBIG,
					       "%s: larger than %u bytes or out of memory", path,
					       KS_TEXT_MAX);
			}
			b = nb;
			cap *= 2;
		}
		r = read(fd, b + n, cap - n - 1);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			int e = -errno;

			close(fd);
			free(b);
			return ax_syserr(err, e, path, "read");
		}
		if (r == 0)
			break;
		n += (size_t)r;
	}
	close(fd);
	b[n] = 0;
	*buf = b;
	*len = n;
	return 0;
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* Hex digits at *p (1..16 of them) into *v; *p moves past them. */
static bool parse_hex(const char **p, const char *end, uint64_t *v)
{
	const char *s = *p;
	uint64_t x = 0;
	int n = 0;

	while (s < end && hexval(*s) >= 0) {
		if (++n > 16)
			return false;
		x = x << 4 | (uint64_t)hexval(*s++);
	}
	if (!n)
		return false;
	*p = s;
	*v = x;
	return true;
}

/* The next field of [*p, end) separated by blanks (spaces or tabs); false if none. */
static bool field(const char **p, const char *end, const char **f, size_t *flen)
{
	const char *s = *p;

	while (s < end && (*s == ' ' || *s == '\t'))
		s++;
	*f = s;
	while (s < end && *s != ' ' && *s != '\t')
		s++;
	*flen = (size_t)(s - *f);
	*p = s;
	return *flen > 0;
}

bool dmn_ksym_is_text(char t)
{
	return t == 'T' || t == 't' || t == 'W' || t == 'w';
}

static int sym_cmp(const void *a, const void *b)
{
	const struct dmn_ksym *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return x->name < y->name ? -1 : x->name > y->name; /* input order: names are in order */
}

void dmn_ksyms_free(struct dmn_ksyms *k)
{
	free(k->s);
	free(k->strings);
	memset(k, 0, sizeof(*k));
}

/* One kallsyms line [s, e) into *o; names copied to *sp. */
static bool ksym_line(const char *s, const char *e, bool modules, char **sp, struct dmn_ksym *o)
{
	const char *f;
	size_t fl;

	if (!parse_hex(&s, e, &o->addr) || s == e || (*s != ' ' && *s != '\t'))
		return false;
	if (!field(&s, e, &f, &fl) || fl != 1 ||
	    !((*f >= 'a' && *f <= 'z') || (*f >= 'A' && *f <= 'Z') || *f == '?'))
		return false;
	o->type = *f;
	if (!field(&s, e, &f, &fl) || fl > KS_NAME_MAX)
		return false;
	memcpy(*sp, f, fl);
	(*sp)[fl] = 0;
	o->name = *sp;
	*sp += fl + 1;
	o->module = NULL;
	if (field(&s, e, &f, &fl)) {
		if (!modules || fl < 3 || f[0] != '[' || f[fl - 1] != ']' || fl - 2 > KS_NAME_MAX)
			return false;
		memcpy(*sp, f + 1, fl - 2);
		(*sp)[fl - 2] = 0;
		o->module = *sp;
		*sp += fl - 1;
		if (field(&s, e, &f, &fl))
			return false;
	}
	return true;
}

int dmn_ksyms_parse(const char *text, size_t len, const char *what, bool modules,
		    struct dmn_ksyms *out, struct ax_error *err)
{
	const char *p = text, *end = text + len;
	size_t nl = 0, n = 0, line = 0;
	bool nonzero = false;
	char *sp;

	memset(out, 0, sizeof(*out));
	for (size_t i = 0; i < len; i++)
		nl += text[i] == '\n';
	out->s = calloc(nl + 1, sizeof(*out->s));
	out->strings = malloc(len + 2 * (nl + 1) + 1);
	if (!out->s || !out->strings) {
		dmn_ksyms_free(out);
		return ax_fail(err, -ENOMEM, "%s: out of memory", what);
	}
	sp = out->strings;
	while (p < end) {
		const char *e = memchr(p, '\n', (size_t)(end - p));

		line++;
		if (!e)
			e = end; /* a last line without its newline: parsed like the others */
		if (memchr(p, 0, (size_t)(e - p)) || !ksym_line(p, e, modules, &sp, &out->s[n])) {
			dmn_ksyms_free(out);
			return ax_fail(err, -EINVAL,
				       "%s:%zu: not a %s line (ADDR TYPE NAME%s): the symbols are "
				       "damaged or truncated",
				       what, line, modules ? "kallsyms" : "System.map",
				       modules ? " [MODULE]" : "");
		}
		nonzero |= out->s[n].addr != 0;
		n++;
		p = e + 1;
	}
	out->n = n;
	if (!n) {
		dmn_ksyms_free(out);
		return ax_fail(err, -EINVAL, "%s: no symbols", what);
	}
	if (!nonzero) {
		dmn_ksyms_free(out);
		return ax_fail(err, -EINVAL,
			       "%s: every address is 0: the kernel hides them (kptr_restrict); "
			       "read it as root or name a System.map",
			       what);
	}
	qsort(out->s, n, sizeof(*out->s), sym_cmp);
	return 0;
}

bool dmn_ksyms_find(const struct dmn_ksyms *k, const char *name, uint64_t *addr)
{
	for (size_t i = 0; i < k->n; i++)
		if (!k->s[i].module && !strcmp(k->s[i].name, name)) {
			*addr = k->s[i].addr;
			return true;
		}
	return false;
}

bool dmn_ksyms_text_range(const struct dmn_ksyms *k, uint64_t *lo, uint64_t *hi)
{
	uint64_t a, min = UINT64_MAX, max = 0;

	for (size_t i = 0; i < k->n; i++) {
		if (k->s[i].module || !dmn_ksym_is_text(k->s[i].type))
			continue;
		if (k->s[i].addr < min)
			min = k->s[i].addr;
		if (k->s[i].addr > max)
			max = k->s[i].addr;
	}
	if (min == UINT64_MAX)
		return false;
	*lo = dmn_ksyms_find(k, "_stext", &a) || dmn_ksyms_find(k, "_text", &a) ? a : min;
	*hi = dmn_ksyms_find(k, "_etext", &a) && a > *lo ? a : max + 4;
	if (*hi <= *lo)
		*hi = *lo + 4;
	return true;
}

/* ---- /proc/modules ---- */

void dmn_kmods_free(struct dmn_kmods *m)
{
	free(m->m);
	free(m->strings);
	memset(m, 0, sizeof(*m));
}

static int mod_cmp(const void *a, const void *b)
{
	const struct dmn_kmod *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* One /proc/modules line [s, e) into *o. */
static bool kmod_line(const char *s, const char *e, char **sp, struct dmn_kmod *o)
{
	const char *f, *q;
	size_t fl;
	uint64_t size = 0;

	if (!field(&s, e, &f, &fl) || fl > KS_NAME_MAX)
		return false;
	memcpy(*sp, f, fl);
	(*sp)[fl] = 0;
	o->name = *sp;
	*sp += fl + 1;
	if (!field(&s, e, &f, &fl) || fl > 19)
		return false;
	for (q = f; q < f + fl; q++) {
		if (*q < '0' || *q > '9')
			return false;
		size = size * 10 + (uint64_t)(*q - '0');
	}
	o->size = size;
	for (int i = 0; i < 3; i++) /* refs, deps, state */
		if (!field(&s, e, &f, &fl))
			return false;
	if (!field(&s, e, &f, &fl) || fl < 3 || f[0] != '0' || f[1] != 'x')
		return false;
	q = f + 2;
	if (!parse_hex(&q, f + fl, &o->addr) || q != f + fl)
		return false;
	if (field(&s, e, &f, &fl) && (f[0] != '(' || f[fl - 1] != ')'))
		return false;
	return !field(&s, e, &f, &fl);
}

int dmn_kmods_parse(const char *text, size_t len, const char *what, struct dmn_kmods *out,
		    struct ax_error *err)
{
	const char *p = text, *end = text + len;
	size_t nl = 0, n = 0, line = 0;
	char *sp;

	memset(out, 0, sizeof(*out));
	for (size_t i = 0; i < len; i++)
		nl += text[i] == '\n';
	out->m = calloc(nl + 1, sizeof(*out->m));
	out->strings = malloc(len + nl + 2);
	if (!out->m || !out->strings) {
		dmn_kmods_free(out);
		return ax_fail(err, -ENOMEM, "%s: out of memory", what);
	}
	sp = out->strings;
	while (p < end) {
		const char *e = memchr(p, '\n', (size_t)(end - p));
		struct dmn_kmod *o = &out->m[n];

		line++;
		if (!e)
			e = end;
		if (memchr(p, 0, (size_t)(e - p)) || !kmod_line(p, e, &sp, o)) {
			dmn_kmods_free(out);
			return ax_fail(
				err, -EINVAL,
				"%s:%zu: not a /proc/modules line (NAME SIZE REFS DEPS STATE "
				"0xADDR): damaged or truncated",
				what, line);
		}
		if (!o->addr || !o->size || o->addr + o->size < o->addr) {
			int l = (int)line;

			dmn_kmods_free(out);
			return ax_fail(
				err, -EINVAL,
				"%s:%d: a module at address 0 or of size 0 (the kernel hides "
				"module addresses: read it as root)",
				what, l);
		}
		for (size_t i = 0; i < n; i++)
			if (!strcmp(out->m[i].name, o->name)) {
				char nm[KS_NAME_MAX + 1];

				snprintf(nm, sizeof(nm), "%s", o->name);
				dmn_kmods_free(out);
				return ax_fail(err, -EINVAL, "%s:%zu: module %s listed twice", what,
					       line, nm);
			}
		n++;
		p = e + 1;
	}
	out->n = n;
	if (n > 1)
		qsort(out->m, n, sizeof(*out->m), mod_cmp);
	for (size_t i = 1; i < n; i++)
		if (out->m[i].addr < out->m[i - 1].addr + out->m[i - 1].size) {
			char a[KS_NAME_MAX + 1], b[KS_NAME_MAX + 1];

			snprintf(a, sizeof(a), "%s", out->m[i - 1].name);
			snprintf(b, sizeof(b), "%s", out->m[i].name);
			dmn_kmods_free(out);
			return ax_fail(err, -EINVAL,
				       "%s: modules %s and %s overlap: the list is damaged", what,
				       a, b);
		}
	return 0;
}

const struct dmn_kmod *dmn_kmods_find(const struct dmn_kmods *m, uint64_t addr)
{
	size_t lo = 0, hi = m->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (m->m[mid].addr + m->m[mid].size <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < m->n && m->m[lo].addr <= addr)
		return &m->m[lo];
	return NULL;
}

bool dmn_notes_build_id(const uint8_t *notes, size_t len, uint8_t *id, size_t *n)
{
	size_t off = 0;

	while (len - off >= 12) {
		uint32_t namesz, descsz, type;
		size_t name_off, desc_off;

		memcpy(&namesz, notes + off, 4);
		memcpy(&descsz, notes + off + 4, 4);
		memcpy(&type, notes + off + 8, 4);
		name_off = off + 12;
		if (namesz > len - name_off)
			return false;
		desc_off = name_off + (((size_t)namesz + 3) & ~(size_t)3);
		if (desc_off > len || descsz > len - desc_off)
			return false;
		if (type == 3 && namesz == 4 && !memcmp(notes + name_off, "GNU", 4) && descsz &&
		    descsz <= 20) {
			memcpy(id, notes + desc_off, descsz);
			*n = descsz;
			return true;
		}
		off = desc_off + (((size_t)descsz + 3) & ~(size_t)3);
		if (off > len)
			return false;
	}
	return false;
}
