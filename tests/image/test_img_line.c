/* tests/image/test_img_line.c - source lines and inline chains (img_line_*) against addr2line. */
#include <errno.h>
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "img.h"

/*
 * The workload build/workloads/hotspots (-O2 -g, by `make all`) is the -g binary: every
 * instruction address of its functions is looked up here and by binutils'
 * alpha-linux-gnu-addr2line, an independent DWARF reader, and the two must agree.
 */

static char bin[4096];

static int setup(void **state)
{
	const char *b = getenv("BUILD");

	(void)state;
	snprintf(bin, sizeof(bin), "%s/workloads/hotspots", b && *b ? b : "build");
	return access(bin, R_OK) ? -1 : 0;
}

static const char *base(const char *p)
{
	const char *s = strrchr(p, '/');

	return s ? s + 1 : p;
}

struct fixture {
	struct img *im;
	struct img_lines *l;
};

static void open_both(struct fixture *f)
{
	struct ax_error err;

	assert_int_equal(img_open(bin, 0, &f->im, &err), 0);
	assert_int_equal(img_lines_open(f->im, &f->l, &err), 0);
}

static void close_both(struct fixture *f)
{
	img_lines_close(f->l);
	img_close(f->im);
}

/* Every instruction of hotspots' own functions: file name and line equal addr2line's. */
static void test_lines_match_addr2line(void **state)
{
	char tmp[] = "/tmp/axprof-lines-XXXXXX", cmd[8300], got[4096];
	struct fixture f;
	uint64_t *addrs = NULL;
	struct img_line *lines = NULL;
	size_t n = 0, cap = 0, checked = 0, mismatched = 0;
	FILE *fp, *out;
	int fd;

	(void)state;
	open_both(&f);
	for (size_t i = 0; i < img_nfunctions(f.im); i++) {
		const struct img_symbol *s = img_function(f.im, i);

		for (uint64_t a = s->value; a < s->value + s->size; a += 4) {
			struct img_line ln;

			if (!img_line_at(f.l, a, &ln))
				continue;
			if (n == cap) {
				cap = cap ? 2 * cap : 1024;
				addrs = realloc(addrs, cap * sizeof(*addrs));
				lines = realloc(lines, cap * sizeof(*lines));
				assert_non_null(addrs);
				assert_non_null(lines);
			}
			addrs[n] = a;
			lines[n++] = ln;
		}
	}
	assert_true(n > 200); /* hotspots' code, with line info */
	fd = mkstemp(tmp);
	assert_true(fd >= 0);
	out = fdopen(fd, "w");
	assert_non_null(out);
	for (size_t i = 0; i < n; i++)
		fprintf(out, "%#" PRIx64 "\n", addrs[i]);
	assert_int_equal(fclose(out), 0);
	snprintf(cmd, sizeof(cmd), "alpha-linux-gnu-addr2line -e '%s' < %s", bin, tmp);
	fp = popen(cmd, "r");
	assert_non_null(fp);
	for (size_t i = 0; i < n && fgets(got, sizeof(got), fp); i++) {
		char want[4200], *sp = strchr(got, ' ');

		if (sp) /* " (discriminator N)" */
			*sp = '\0';
		got[strcspn(got, "\n")] = '\0';
		if (lines[i].line == 0 || !strncmp(got, "??", 2))
			continue;
		snprintf(want, sizeof(want), "%s:%u", base(lines[i].file), lines[i].line);
		checked++;
		if (strcmp(base(got), want)) {
			if (mismatched++ < 5)
				print_error("%#" PRIx64 ": addr2line %s, img_line_at %s\n",
					    addrs[i], got, want);
		}
	}
	assert_int_equal(pclose(fp), 0);
	unlink(tmp);
	assert_true(checked > 200);
	assert_int_equal(mismatched, 0);
	free(addrs);
	free(lines);
	close_both(&f);
}

/* The line of the first line of source containing needle in workloads/hotspots.c. */
static unsigned int source_line(const char *needle)
{
	char buf[512];
	unsigned int no = 0;
	FILE *fp = fopen("workloads/hotspots.c", "r");

	assert_non_null(fp);
	while (fgets(buf, sizeof(buf), fp)) {
		no++;
		if (strstr(buf, needle)) {
			fclose(fp);
			return no;
		}
	}
	fclose(fp);
	fail_msg("'%s' not in workloads/hotspots.c", needle);
	return 0;
}

/* hs_step is inlined into hs_mix: its instructions say so, with the call's file and line. */
static void test_inline_chain(void **state)
{
	const struct img_symbol *mix, *scan;
	struct fixture f;
	unsigned int call = source_line("x = hs_step(");
	size_t inlined = 0;

	(void)state;
	open_both(&f);
	mix = img_symbol_by_name(f.im, "hs_mix");
	scan = img_symbol_by_name(f.im, "hs_scan");
	assert_non_null(mix);
	assert_non_null(scan);
	for (uint64_t a = mix->value; a < mix->value + mix->size; a += 4) {
		struct img_inline ch[4];
		struct img_line ln;
		size_t k = img_line_inlines(f.l, a, ch, 4);

		if (!k)
			continue;
		inlined++;
		assert_string_equal(ch[0].func, "hs_step");
		assert_string_equal(base(ch[0].call_file), "hotspots.c");
		assert_int_equal(ch[0].call_line, call);
		/* The line of an inlined instruction is in hs_step's body, above the call. */
		assert_true(img_line_at(f.l, a, &ln));
		assert_true(ln.line < call);
	}
	assert_true(inlined >= 3);
	/* hs_scan inlines nothing. */
	for (uint64_t a = scan->value; a < scan->value + scan->size; a += 4)
		assert_int_equal(img_line_inlines(f.l, a, NULL, 0), 0);
	/* An address outside every compilation unit has no line. */
	struct img_line ln;

	assert_false(img_line_at(f.l, 0x10, &ln));
	close_both(&f);
}

/* Without DWARF (strip -g): -ENODATA and a message that says what to do. */
static void test_no_dwarf(void **state)
{
	char tmp[] = "/tmp/axprof-nodw-XXXXXX", cmd[8300];
	struct ax_error err;
	struct img_lines *l = (struct img_lines *)1;
	struct img *im;
	int fd = mkstemp(tmp);

	(void)state;
	assert_true(fd >= 0);
	close(fd);
	snprintf(cmd, sizeof(cmd), "alpha-linux-gnu-strip -g -o %s '%s'", tmp, bin);
	assert_int_equal(system(cmd), 0);
	assert_int_equal(img_open(tmp, 0, &im, &err), 0);
	assert_int_equal(img_lines_open(im, &l, &err), -ENODATA);
	assert_null(l);
	assert_non_null(strstr(err.msg, "no DWARF line information"));
	assert_non_null(strstr(err.msg, "-g"));
	img_close(im);
	unlink(tmp);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lines_match_addr2line),
		cmocka_unit_test(test_inline_chain),
		cmocka_unit_test(test_no_dwarf),
	};

	return cmocka_run_group_tests(tests, setup, NULL);
}
