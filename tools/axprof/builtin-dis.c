/* tools/axprof/builtin-dis.c - `axprof dis`: disassemble an Alpha ELF file in objdump -d format. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "img.h"
#include "an_listing.h"
#include "axprof/builtin.h"
#include "ax_json.h"

static const char dis_usage[] =
	"usage: axprof dis [--help] [--json] [--section NAME] [--start ADDR] [--stop ADDR] FILE\n"
	"\n"
	"Disassemble every executable section of the Alpha ELF file FILE (executable, shared\n"
	"object or object file) in the format of `alpha-linux-gnu-objdump -d FILE`, so that\n"
	"the two outputs diff clean.\n"
	"\n"
	"  --json          one JSON document per instruction, one per line (docs/axprof-json.7)\n"
	"  --section NAME  only section NAME (like objdump -j NAME)\n"
	"  --start ADDR    start at address ADDR (like objdump --start-address)\n"
	"  --stop ADDR     stop before address ADDR (like objdump --stop-address)\n"
	"  --help          this text\n"
	"\n"
	"ADDR is decimal or 0x-prefixed hex. Exit status: 0 ok, 1 the file could not be\n"
	"disassembled, 2 usage error.\n";

static int __attribute__((format(printf, 1, 2))) usage_error(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "axprof dis: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\n(see 'axprof dis --help')\n");
	return 2;
}

/* --json: one document per instruction (JSON Lines). */
static void json_insn(void *priv, const struct an_listing_insn *in)
{
	struct ax_json j;

	ax_json_doc_open(&j, stdout, "dis");
	ax_json_str(&j, "image", priv);
	ax_json_str(&j, "section", in->section);
	ax_json_hex(&j, "address", in->addr);
	ax_json_word(&j, "word", in->word);
	ax_json_str(&j, "mnemonic", in->mnemonic);
	ax_json_str(&j, "operands", in->operands);
	if (in->symbol) {
		ax_json_str(&j, "symbol", in->symbol);
		ax_json_i64(&j, "offset", in->offset);
	}
	if (in->has_target)
		ax_json_hex(&j, "target", in->target);
	ax_json_doc_close(&j);
}

static int parse_addr(const char *s, uint64_t *out)
{
	char *end;
	unsigned long long v;

	if (!s || !*s || *s == '-')
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || *end)
		return -EINVAL;
	*out = v;
	return 0;
}

/* "--opt VALUE" or "--opt=VALUE": returns the value and advances *i, or NULL. */
static const char *opt_value(int argc, char **argv, int *i, const char *name, bool *matched)
{
	size_t n = strlen(name);
	const char *a = argv[*i];

	*matched = false;
	if (strncmp(a, name, n) != 0)
		return NULL;
	if (a[n] == '=') {
		*matched = true;
		return a + n + 1;
	}
	if (a[n] != '\0')
		return NULL;
	*matched = true;
	if (*i + 1 >= argc)
		return NULL;
	return argv[++*i];
}

static const char *hint_for(int err)
{
	switch (err) {
	case -ENOENT:
		return "check the file name";
	case -EACCES:
	case -EPERM:
		return "check the file's permissions";
	case -ENOEXEC:
		return "axprof dis reads Alpha ELF files (alpha-linux-gnu-gcc output, Alpha libraries)";
	case -EBADMSG:
		return "the file is damaged or was cut short; rebuild or copy it again";
	default:
		return NULL;
	}
}

int cmd_dis(int argc, char **argv)
{
	struct an_listing_opts opts = {
		.start = AN_LISTING_NOADDR,
		.stop = AN_LISTING_NOADDR,
	};
	const char *file = NULL;
	struct ax_error ierr;
	struct img *elf;
	struct ax_error err;
	int ret;

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v;
		bool m;

		if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			fputs(dis_usage, stdout);
			return 0;
		}
		if (!strcmp(a, "--json")) {
			opts.insn = json_insn;
			continue;
		}
		v = opt_value(argc, argv, &i, "--section", &m);
		if (m) {
			if (!v || !*v)
				return usage_error("%s needs a section name", "--section");
			opts.section = v;
			continue;
		}
		v = opt_value(argc, argv, &i, "--start", &m);
		if (m) {
			if (parse_addr(v, &opts.start))
				return usage_error("--start needs an address, got '%s'",
						   v ? v : "");
			continue;
		}
		v = opt_value(argc, argv, &i, "--stop", &m);
		if (m) {
			if (parse_addr(v, &opts.stop))
				return usage_error("--stop needs an address, got '%s'", v ? v : "");
			continue;
		}
		if (!strcmp(a, "--")) {
			if (i + 1 < argc && !file)
				file = argv[++i];
			if (i + 1 < argc)
				return usage_error("one FILE only, extra argument '%s'",
						   argv[i + 1]);
			break;
		}
		if (a[0] == '-' && a[1] != '\0')
			return usage_error("unknown option '%s'", a);
		if (file)
			return usage_error("one FILE only, extra argument '%s'", a);
		file = a;
	}
	if (!file)
		return usage_error("%s", "no FILE given");
	if (opts.insn)
		opts.priv = (void *)file;

	ret = img_open(file, 0, &elf, &ierr);
	if (ret) {
		const char *hint = hint_for(ret);

		fprintf(stderr, "axprof dis: %s\n", ierr.msg);
		if (hint)
			fprintf(stderr, "axprof dis: %s\n", hint);
		return 1;
	}
	ret = an_listing_print(elf, &opts, stdout, NULL, &err);
	img_close(elf);
	if (ret) {
		fprintf(stderr, "axprof dis: %s\n", err.msg);
		if (ret == -ENOEXEC && !opts.section)
			fprintf(stderr,
				"axprof dis: the file holds no code (try 'axprof dis --section "
				"NAME' for a data section)\n");
		return 1;
	}
	return 0;
}
