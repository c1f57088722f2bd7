/* analysis/an_listing.c - an objdump -d listing of an Alpha ELF file, byte for byte. */
#include <elf.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "isa_dis.h"
#include "an_listing.h"

/*
 * This file re-creates the parts of binutils/objdump.c (2.40) that shape a -d listing, as
 * facts about its output: which symbols it keeps and how it orders them, which symbol names a
 * block and annotates an address, where it skips zeros, and the column layout. Each function
 * names the objdump function whose behaviour it reproduces.
 */

/* BFD symbol flags that matter to objdump's ordering (bfd/elfcode.h maps ELF types to them). */
#define OS_FUNCTION (1u << 0) /* STT_FUNC */
#define OS_OBJECT (1u << 1) /* STT_OBJECT, STT_COMMON */
#define OS_LOCAL (1u << 2) /* STB_LOCAL */
#define OS_GLOBAL (1u << 3) /* STB_GLOBAL (defined) */
#define OS_DEBUGGING (1u << 4) /* STT_SECTION, STT_FILE */
#define OS_SECTION (1u << 5) /* STT_SECTION */
#define OS_FILE (1u << 6) /* STT_FILE */

struct osym {
	const struct img_symbol *s;
	const char *secname; /* its section's name; "*ABS*" outside any section */
	unsigned int shndx; /* its section's index; 0 outside any section */
	uint64_t value;
	uint32_t flags;
	bool junk_name; /* contains gnu_compiled / gcc2_compiled */
};

struct lst {
	const struct img *e;
	const struct an_listing_opts *opts;
	FILE *out;
	struct osym *syms;
	struct osym **sorted;
	struct osym **tmp;
	long n;
	bool has_reloc; /* binutils' HAS_RELOC: a relocatable object with relocations */
	const struct img_section *sec; /* section being listed */
	const struct osym *blocksym; /* the symbol heading the current block (JSON) */
	struct an_listing_stats st;
};

/* binutils/objdump.c sanitize_string(): control characters become ^X. */
static void put_sane(FILE *out, const char *s)
{
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c < 0x20 || c == 0x7f) {
			putc('^', out);
			putc((c + 0x40) & 0xff, out);
		} else {
			putc(c, out);
		}
	}
}

static size_t sane_len(const char *s, char *buf, size_t size)
{
	size_t n = 0;

	for (; *s && n + 2 < size; s++) {
		unsigned char c = (unsigned char)*s;

		if (c < 0x20 || c == 0x7f) {
			buf[n++] = '^';
			buf[n++] = (char)((c + 0x40) & 0xff);
		} else {
			buf[n++] = (char)c;
		}
	}
	buf[n] = '\0';
	return n;
}

/* objdump_print_symname(): name, then @version or @@version for dynamic symbols. */
static void symname(const struct osym *o, char *buf, size_t size)
{
	size_t n = sane_len(o->s->name, buf, size);

	if (!(o->flags & OS_SECTION) && o->s->version && *o->s->version && n < size)
		snprintf(buf + n, size - n, "%s%s", o->s->version_hidden ? "@" : "@@",
			 o->s->version);
}

/* remove_useless_symbols(), plus the flags compare_symbols() looks at. */
static int build_syms(struct lst *l)
{
	const struct img *e = l->e;
	size_t n = img_nsymbols(e);

	l->syms = calloc(n ? n : 1, sizeof(*l->syms));
	l->sorted = calloc(n ? n : 1, sizeof(*l->sorted));
	l->tmp = calloc(n ? n : 1, sizeof(*l->tmp));
	if (!l->syms || !l->sorted || !l->tmp)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		const struct img_symbol *s = img_symbol(e, i);
		struct osym *o = &l->syms[l->n];

		if (!s->name[0])
			continue;
		if ((s->type == STT_SECTION || s->type == STT_FILE) &&
		    strncmp(s->name, ".plt", 4) != 0 && strncmp(s->name, ".got", 4) != 0)
			continue;
		if (s->shndx == IMG_SHN_UNDEF || s->shndx == IMG_SHN_COMMON)
			continue;
		o->s = s;
		o->value = s->value;
		if (s->shndx == IMG_SHN_ABS) {
			o->secname = "*ABS*";
			o->shndx = 0;
		} else {
			o->secname = img_section_by_index(e, s->shndx)->name;
			o->shndx = s->shndx;
		}
		switch (s->type) {
		case STT_SECTION:
			o->flags |= OS_SECTION | OS_DEBUGGING;
			break;
		case STT_FILE:
			o->flags |= OS_FILE | OS_DEBUGGING;
			break;
		case STT_FUNC:
			o->flags |= OS_FUNCTION;
			break;
		case STT_OBJECT:
		case STT_COMMON:
			o->flags |= OS_OBJECT;
			break;
		default:
			break;
		}
		if (s->bind == STB_LOCAL)
			o->flags |= OS_LOCAL;
		else if (s->bind == STB_GLOBAL)
			o->flags |= OS_GLOBAL;
		o->junk_name = strstr(s->name, "gnu_compiled") || strstr(s->name, "gcc2_compiled");
		l->sorted[l->n] = o;
		l->n++;
	}
	return 0;
}

static bool is_file_sym(const struct osym *o)
{
	size_t len = strlen(o->s->name);

	return (o->flags & OS_FILE) || (len > 2 && o->s->name[len - 2] == '.' &&
					(o->s->name[len - 1] == 'o' || o->s->name[len - 1] == 'a'));
}

/* compare_symbols(): by value, then the section being listed first, then a long tiebreak. */
static int cmp_syms(const struct osym *a, const struct osym *b, const char *cursec)
{
	bool as, bs, af, bf;
	uint32_t d;

	if (a->value != b->value)
		return a->value > b->value ? 1 : -1;
	as = !strcmp(cursec, a->secname);
	bs = !strcmp(cursec, b->secname);
	if (as != bs)
		return as ? -1 : 1;
	if (a->junk_name != b->junk_name)
		return a->junk_name ? 1 : -1;
	af = is_file_sym(a);
	bf = is_file_sym(b);
	if (af != bf)
		return af ? 1 : -1;
	d = a->flags ^ b->flags;
	if (d & OS_DEBUGGING)
		return (a->flags & OS_DEBUGGING) ? 1 : -1;
	if (d & OS_SECTION)
		return (a->flags & OS_SECTION) ? 1 : -1;
	if (d & OS_FUNCTION)
		return (a->flags & OS_FUNCTION) ? -1 : 1;
	if (d & OS_OBJECT)
		return (a->flags & OS_OBJECT) ? -1 : 1;
	if (d & OS_LOCAL)
		return (a->flags & OS_LOCAL) ? 1 : -1;
	if (d & OS_GLOBAL)
		return (a->flags & OS_GLOBAL) ? -1 : 1;
	{
		uint64_t asz = (a->flags & OS_SECTION) ? 0 : a->s->size;
		uint64_t bsz = (b->flags & OS_SECTION) ? 0 : b->s->size;

		if (asz != bsz)
			return asz > bsz ? -1 : 1;
	}
	if (a->s->name[0] == '.' && b->s->name[0] != '.')
		return 1;
	if (a->s->name[0] != '.' && b->s->name[0] == '.')
		return -1;
	return strcmp(a->s->name, b->s->name);
}

/* objdump re-sorts the same array for every section; a stable merge sort gives its order. */
static void sort_syms(struct lst *l, const char *cursec)
{
	struct osym **a = l->sorted, **t = l->tmp;

	for (long w = 1; w < l->n; w *= 2) {
		for (long lo = 0; lo < l->n; lo += 2 * w) {
			long mid = lo + w < l->n ? lo + w : l->n;
			long hi = lo + 2 * w < l->n ? lo + 2 * w : l->n;
			long i = lo, j = mid, k = lo;

			while (i < mid && j < hi)
				t[k++] = cmp_syms(a[j], a[i], cursec) < 0 ? a[j++] : a[i++];
			while (i < mid)
				t[k++] = a[i++];
			while (j < hi)
				t[k++] = a[j++];
		}
		if (l->n) /* memcpy() from NULL is undefined even for 0 bytes */
			memcpy(a, t, (size_t)l->n * sizeof(*a));
	}
}

/* sym_ok(): with want_section, only symbols of the section being listed. */
static bool sym_ok(const struct lst *l, bool want_section, long place)
{
	return !want_section || l->sorted[place]->shndx == l->sec->index;
}

/* find_symbol_for_address(), without the dynamic-relocation refinement (see the report). */
static const struct osym *find_sym(const struct lst *l, uint64_t vma, bool require_sec, long *place)
{
	struct osym **s = l->sorted;
	long min = 0, max = l->n, this;
	bool want;

	if (l->n < 1)
		return NULL;
	while (min + 1 < max) {
		this = (max + min) / 2;
		if (s[this]->value > vma) {
			max = this;
		} else if (s[this]->value < vma) {
			min = this;
		} else {
			min = this;
			break;
		}
	}
	this = min;
	while (this > 0 && s[this]->value == s[this - 1]->value)
		--this;
	min = this;
	while (min < max && s[min]->value == s[this]->value) {
		if (sym_ok(l, true, min)) {
			if (place)
				*place = min;
			return s[min];
		}
		++min;
	}
	want = require_sec ||
	       (l->has_reloc && vma >= l->sec->addr && vma - l->sec->addr < l->sec->size);
	if (!sym_ok(l, want, this)) {
		long i, newplace = l->n;

		for (i = min - 1; i >= 0; i--) {
			if (sym_ok(l, want, i)) {
				if (newplace == l->n)
					newplace = i;
				if (s[i]->value != s[newplace]->value)
					break;
				newplace = i;
			}
		}
		if (newplace != l->n) {
			this = newplace;
		} else {
			for (i = this + 1; i < l->n; i++) {
				if (sym_ok(l, want, i)) {
					this = i;
					break;
				}
			}
		}
		if (!sym_ok(l, want, this))
			return NULL;
	}
	if (place)
		*place = this;
	return s[this];
}

/* objdump_print_addr_with_sym(): "ADDR <sym+0x..>" (ADDR all 16 digits unless skip_zeroes). */
static void addr_with_sym(const struct lst *l, const struct osym *sym, uint64_t vma,
			  bool skip_zeroes, char *buf, size_t size)
{
	char name[ISA_DIS_ADDR_MAX];
	size_t n;

	n = (size_t)snprintf(buf, size, skip_zeroes ? "%" PRIx64 " <" : "%016" PRIx64 " <", vma);
	if (n >= size)
		return;
	if (!sym) {
		uint64_t secaddr = l->sec->addr;

		sane_len(l->sec->name, name, sizeof(name));
		if (vma < secaddr)
			snprintf(buf + n, size - n, "%s-0x%" PRIx64 ">", name, secaddr - vma);
		else if (vma > secaddr)
			snprintf(buf + n, size - n, "%s+0x%" PRIx64 ">", name, vma - secaddr);
		else
			snprintf(buf + n, size - n, "%s>", name);
		return;
	}
	symname(sym, name, sizeof(name));
	if (sym->value == vma)
		snprintf(buf + n, size - n, "%s>", name);
	else if (sym->value > vma)
		snprintf(buf + n, size - n, "%s-0x%" PRIx64 ">", name, sym->value - vma);
	else
		snprintf(buf + n, size - n, "%s+0x%" PRIx64 ">", name, vma - sym->value);
}

/* objdump_print_addr(), the printer isa_dis_format() calls for code address operands. */
static void print_operand_addr(void *priv, uint64_t addr, char *buf, size_t size)
{
	const struct lst *l = priv;

	if (l->n < 1) {
		snprintf(buf, size, "0x%" PRIx64, addr);
		return;
	}
	addr_with_sym(l, find_sym(l, addr, false, NULL), addr, true, buf, size);
}

static uint8_t byte_at(const struct img_section *s, uint64_t off)
{
	return s->data ? s->data[off] : 0; /* sections without contents read as zeros */
}

/* One instruction to the caller's callback. */
static void call_insn(struct lst *l, uint64_t addr, uint32_t word, const char *text)
{
	const char *tab = strchr(text, '\t');
	char mnem[64], name[ISA_DIS_ADDR_MAX];
	size_t mlen = tab ? (size_t)(tab - text) : strlen(text);
	struct an_listing_insn in = {
		.section = l->sec->name,
		.addr = addr,
		.word = word,
		.mnemonic = mnem,
		.operands = tab ? tab + 1 : "",
	};

	if (mlen >= sizeof(mnem))
		mlen = sizeof(mnem) - 1;
	memcpy(mnem, text, mlen);
	mnem[mlen] = '\0';
	if (l->blocksym) {
		symname(l->blocksym, name, sizeof(name));
		in.symbol = name;
		in.offset = (int64_t)(addr - l->blocksym->value);
	}
	in.has_target = isa_dis_code_target(word, addr, &in.target);
	l->opts->insn(l->opts->priv, &in);
}

/* disassemble_bytes(): one block, from start to stop (section offsets). */
static void list_bytes(struct lst *l, bool insns, uint64_t start, uint64_t stop)
{
	const struct img_section *s = l->sec;
	const struct isa_dis_opts dopts = { .addr = print_operand_addr, .priv = l };
	bool quiet = l->opts->insn != NULL;
	/* Code sections stop reads at the next symbol; others only at the section's end. */
	uint64_t limit = img_section_is_code(s) ? stop : s->size;
	unsigned int skip = 0;
	char buf[32];
	uint64_t off = start;

	/* Leading zeros of the address column are dropped in fours, keeping at least one. */
	snprintf(buf, sizeof(buf), "%016" PRIx64, s->addr + s->size);
	while (buf[skip] == '0')
		skip++;
	if (buf[skip] == '\0' && s->addr != 0)
		skip = 0;
	if (skip)
		skip = (skip - 1) & ~3u;

	while (off < stop) {
		uint64_t z = 0;
		char *p;

		while (off + z < stop && byte_at(s, off + z) == 0)
			z++;
		if (z >= 8 || (off + z == stop && z < 3)) {
			if (off + z != stop)
				z &= ~(uint64_t)3;
			if (!quiet)
				fputs("\t...\n", l->out);
			off += z;
			continue;
		}
		if (!quiet) {
			snprintf(buf, sizeof(buf), "%016" PRIx64, s->addr + off);
			for (p = buf + skip; *p == '0'; p++)
				*p = ' ';
			if (*p == '\0')
				*--p = '0';
			fprintf(l->out, "%s:\t", buf + skip);
		}
		if (insns) {
			char text[ISA_DIS_ADDR_MAX + ISA_DIS_TEXT_MAX];
			uint32_t word;

			if (limit - off < 4 || s->size - off < 4) {
				if (!quiet)
					fprintf(l->out,
						"Address 0x%" PRIx64 " is out of bounds.\n\n",
						s->addr + off);
				break;
			}
			word = (uint32_t)byte_at(s, off) | (uint32_t)byte_at(s, off + 1) << 8 |
			       (uint32_t)byte_at(s, off + 2) << 16 |
			       (uint32_t)byte_at(s, off + 3) << 24;
			isa_dis_format(word, s->addr + off, &dopts, text, sizeof(text));
			if (quiet)
				call_insn(l, s->addr + off, word, text);
			else
				fprintf(l->out, "%02x %02x %02x %02x \t%s\n", word & 0xff,
					(word >> 8) & 0xff, (word >> 16) & 0xff, word >> 24, text);
			l->st.insns++;
			off += 4;
		} else {
			uint64_t n = stop - off < 16 ? stop - off : 16;
			char ascii[17];

			for (uint64_t j = 0; j < n; j++) {
				uint8_t c = byte_at(s, off + j);

				if (!quiet)
					fprintf(l->out, "%02x ", c);
				ascii[j] = (c >= 0x20 && c < 0x7f) ? (char)c : '.';
			}
			ascii[n] = '\0';
			if (!quiet) {
				for (uint64_t j = n; j < 16; j++)
					fputs("   ", l->out);
				fprintf(l->out, "    %s\n", ascii);
			}
			off += n;
		}
	}
}

static bool is_valid_next(const struct lst *l, const struct osym *o, const struct osym *sym)
{
	return !strcmp(o->secname, l->sec->name) && o->value > sym->value;
}

/* disassemble_section(). */
static void list_section(struct lst *l)
{
	const struct img_section *s = l->sec;
	const struct an_listing_opts *opts = l->opts;
	uint64_t addr_off, stop_off;
	const struct osym *sym;
	long place = 0;

	if (opts->start == AN_LISTING_NOADDR || opts->start < s->addr)
		addr_off = 0;
	else
		addr_off = opts->start - s->addr;
	if (opts->stop == AN_LISTING_NOADDR) {
		stop_off = s->size;
	} else {
		stop_off = opts->stop < s->addr ? 0 : opts->stop - s->addr;
		if (stop_off > s->size)
			stop_off = s->size;
	}
	if (addr_off >= stop_off)
		return;
	l->st.sections++;
	sort_syms(l, s->name);
	if (!opts->insn) {
		fputs("\nDisassembly of section ", l->out);
		put_sane(l->out, s->name);
		fputs(":\n", l->out);
	}
	sym = find_sym(l, s->addr + addr_off, true, &place);
	while (addr_off < stop_off) {
		uint64_t addr = s->addr + addr_off, next_off;
		const struct osym *next;
		bool insns;

		if (!opts->insn) {
			char hdr[ISA_DIS_ADDR_MAX + 64];

			addr_with_sym(l, sym, addr, false, hdr, sizeof(hdr));
			fprintf(l->out, "\n%s:\n", hdr);
		}
		if (sym && sym->value > addr) {
			next = sym;
		} else if (!sym) {
			next = NULL;
		} else {
			while (place < l->n && !is_valid_next(l, l->sorted[place], sym))
				place++;
			next = place < l->n ? l->sorted[place] : NULL;
		}
		if (sym && sym->value > addr)
			next_off = sym->value - s->addr;
		else if (!next)
			next_off = stop_off;
		else
			next_off = next->value - s->addr;
		if (next_off > stop_off || next_off <= addr_off)
			next_off = stop_off;
		/* Objects (not functions) dump as bytes, as do gcc2_compiled-style markers. */
		insns = !sym || sym->shndx != s->index || sym->value > addr ||
			(!(sym->flags & OS_OBJECT) && !sym->junk_name) ||
			(sym->flags & OS_FUNCTION);
		l->blocksym = sym;
		list_bytes(l, insns, addr_off, next_off);
		addr_off = next_off;
		sym = next;
	}
}

/*
 * Sections binutils makes no BFD section of, so that objdump -j cannot name them: the section
 * name table, .symtab with its string table and index table, and in relocatable objects the
 * relocation sections that apply to another section (bfd/elf.c bfd_section_from_shdr).
 */
static bool is_bfd_section(const struct img *e, const struct img_section *s)
{
	if (s->type == SHT_NULL || s->type == SHT_SYMTAB || s->type == SHT_SYMTAB_SHNDX)
		return false;
	if (s->type == SHT_STRTAB || s->type == SHT_REL || s->type == SHT_RELA) {
		for (size_t i = 0; i < img_nsections(e); i++) {
			const struct img_section *t = img_section(e, i);

			if (t->type == SHT_SYMTAB && t->link == s->index && s->type == SHT_STRTAB)
				return false;
			if (t->type == SHT_SYMTAB && s->link == t->index && s->info != 0 &&
			    s->type != SHT_STRTAB)
				return false;
		}
	}
	if (s->type == SHT_STRTAB && s->flags == 0 && !strcmp(s->name, ".shstrtab"))
		return false;
	return true;
}

static bool wanted(const struct img *e, const struct an_listing_opts *opts,
		   const struct img_section *s)
{
	if (opts->section)
		return !strcmp(s->name, opts->section) && is_bfd_section(e, s);
	return img_section_is_code(s);
}

int an_listing_print(const struct img *e, const struct an_listing_opts *opts, FILE *out,
		     struct an_listing_stats *stats, struct ax_error *err)
{
	struct lst l = { .e = e, .opts = opts, .out = out };
	bool found = false;
	int ret = 0;

	for (size_t i = 0; i < img_nsections(e); i++) {
		const struct img_section *s = img_section(e, i);

		if (wanted(e, opts, s) && (opts->section || s->size))
			found = true;
	}
	if (!found) {
		if (opts->section)
			return ax_fail(err, -ENOEXEC, "%s: no section named '%s'", img_path(e),
				       opts->section);
		return ax_fail(err, -ENOEXEC,
			       "%s: no executable section with contents: nothing to disassemble",
			       img_path(e));
	}
	if (build_syms(&l)) {
		ret = ax_fail(err, -ENOMEM, "%s: out of memory", img_path(e));
		goto out_free;
	}
	if (img_type(e) == ET_REL)
		for (size_t i = 0; i < img_nsections(e); i++)
			if (img_section(e, i)->type == SHT_RELA ||
			    img_section(e, i)->type == SHT_REL)
				l.has_reloc = true;

	if (!opts->insn) {
		fputc('\n', out);
		put_sane(out, img_path(e));
		fputs(":     file format elf64-alpha\n\n", out);
	}
	for (size_t i = 0; i < img_nsections(e); i++) {
		const struct img_section *s = img_section(e, i);

		if (!s->size || !wanted(e, opts, s))
			continue;
		l.sec = s;
		list_section(&l);
	}
	if (ferror(out)) {
		ret = ax_fail(err, -EIO, "write error: %s", strerror(errno));
	}
	if (stats)
		*stats = l.st;
out_free:
	free(l.syms);
	free(l.sorted);
	free(l.tmp);
	return ret;
}
