/* analysis/an_elf.c - Alpha ELF images: sections, symbols and code lookups, read with libelf. */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "an_elf.h"

/*
 * The file is read whole into memory and handed to libelf with elf_memory(). Before libelf
 * sees it, the ELF header and the section header table are checked against the file size;
 * afterwards every section with contents and every table the reader walks (symbols, version
 * definitions and needs) is bounds-checked, so damaged or hostile files fail with -EBADMSG
 * and a message instead of reading outside the buffer. (ELF: System V gABI ch. 4; symbol
 * versions: the LSB "Symbol Versioning" section, as binutils' bfd/elf.c interprets it.)
 */

struct an_elf {
	char *path;
	uint8_t *image;
	size_t image_size;
	Elf *elf;
	unsigned int type;
	uint64_t entry;
	struct an_elf_section *secs; /* index i holds section header i + 1 */
	size_t nsecs;
	struct an_elf_symbol *syms;
	size_t nsyms;
	bool from_symtab;
	const struct an_elf_symbol **funcs;
	size_t nfuncs;
};

static int errmsg(char *err, size_t len, int ret, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static int errmsg(char *err, size_t len, int ret, const char *fmt, ...)
{
	va_list ap;

	if (err && len) {
		va_start(ap, fmt);
		vsnprintf(err, len, fmt, ap);
		va_end(ap);
	}
	return ret;
}

static const char *machine_name(unsigned int m)
{
	switch (m) {
	case EM_386:
		return "x86 (i386)";
	case EM_X86_64:
		return "x86-64";
	case EM_ARM:
		return "ARM";
	case EM_AARCH64:
		return "AArch64";
	case EM_PPC:
	case EM_PPC64:
		return "PowerPC";
	case EM_RISCV:
		return "RISC-V";
	case EM_SPARC:
	case EM_SPARCV9:
		return "SPARC";
	case EM_MIPS:
		return "MIPS";
	case EM_S390:
		return "s390";
	case EM_IA_64:
		return "IA-64";
	default:
		return "another architecture";
	}
}

static int read_file(const char *path, uint8_t **out, size_t *size, char *err, size_t len)
{
	struct stat st;
	uint8_t *buf;
	size_t got = 0;
	int fd, ret;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		ret = -errno;
		return errmsg(err, len, ret, "%s: cannot open: %s", path, strerror(-ret));
	}
	if (fstat(fd, &st) < 0) {
		ret = -errno;
		close(fd);
		return errmsg(err, len, ret, "%s: cannot stat: %s", path, strerror(-ret));
	}
	if (S_ISDIR(st.st_mode)) {
		close(fd);
		return errmsg(err, len, -EISDIR, "%s: is a directory, not an ELF file", path);
	}
	if (!S_ISREG(st.st_mode)) {
		close(fd);
		return errmsg(err, len, -ENOEXEC, "%s: not a regular file", path);
	}
	buf = malloc(st.st_size ? (size_t)st.st_size : 1);
	if (!buf) {
		close(fd);
		return errmsg(err, len, -ENOMEM, "%s: out of memory reading %lld bytes", path,
			      (long long)st.st_size);
	}
	while (got < (size_t)st.st_size) {
		ssize_t n = read(fd, buf + got, (size_t)st.st_size - got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			ret = -errno;
			free(buf);
			close(fd);
			return errmsg(err, len, ret, "%s: read failed: %s", path, strerror(-ret));
		}
		if (n == 0)
			break;
		got += (size_t)n;
	}
	close(fd);
	*out = buf;
	*size = got;
	return 0;
}

static bool range_ok(uint64_t off, uint64_t size, uint64_t limit)
{
	return off <= limit && size <= limit - off;
}

/* The checks made on raw bytes, before libelf parses anything. */
static int check_headers(const char *path, const uint8_t *img, size_t size, char *err, size_t len)
{
	Elf64_Ehdr eh;
	uint64_t shnum;

	if (size >= 8 && !memcmp(img, "!<arch>\n", 8))
		return errmsg(err, len, -ENOEXEC,
			      "%s: an ar archive, not an ELF file (extract its members with ar x)",
			      path);
	if (size < 4 || memcmp(img, ELFMAG, SELFMAG) != 0)
		return errmsg(err, len, -ENOEXEC, "%s: not an ELF file%s", path,
			      size ? "" : " (empty)");
	if (size < EI_NIDENT)
		return errmsg(err, len, -EBADMSG, "%s: truncated ELF file (%zu bytes)", path, size);
	if (img[EI_CLASS] != ELFCLASS64)
		return errmsg(err, len, -ENOEXEC,
			      "%s: not an Alpha file: %s ELF, Alpha files are ELF64", path,
			      img[EI_CLASS] == ELFCLASS32 ? "32-bit" : "unknown-class");
	if (img[EI_DATA] != ELFDATA2LSB)
		return errmsg(
			err, len, -ENOEXEC,
			"%s: not an Alpha file: big-endian ELF, Alpha files are little-endian",
			path);
	if (size < sizeof(eh))
		return errmsg(err, len, -EBADMSG, "%s: truncated ELF header (%zu of %zu bytes)",
			      path, size, sizeof(eh));
	memcpy(&eh, img, sizeof(eh)); /* both little-endian: the host is (x86-64 or Alpha) */
	if (eh.e_machine != EM_ALPHA)
		return errmsg(err, len, -ENOEXEC,
			      "%s: not an Alpha file: machine %#x is %s (Alpha is 0x9026)", path,
			      eh.e_machine, machine_name(eh.e_machine));
	if (eh.e_type != ET_EXEC && eh.e_type != ET_DYN && eh.e_type != ET_REL)
		return errmsg(err, len, -ENOEXEC,
			      "%s: ELF type %u is not an executable, shared object or object file",
			      path, eh.e_type);
	if (eh.e_shoff == 0)
		return 0; /* no section headers: accepted, but nothing to disassemble */
	if (eh.e_shentsize != sizeof(Elf64_Shdr))
		return errmsg(err, len, -EBADMSG, "%s: damaged ELF header: section header size %u",
			      path, eh.e_shentsize);
	shnum = eh.e_shnum;
	if (!range_ok(eh.e_shoff, sizeof(Elf64_Shdr), size))
		return errmsg(err, len, -EBADMSG,
			      "%s: truncated: section headers at offset %#llx, file is %zu bytes",
			      path, (unsigned long long)eh.e_shoff, size);
	if (shnum == 0) {
		Elf64_Shdr sh0;

		memcpy(&sh0, img + eh.e_shoff, sizeof(sh0));
		shnum = sh0.sh_size; /* extended numbering */
	}
	if (shnum > size / sizeof(Elf64_Shdr) ||
	    !range_ok(eh.e_shoff, shnum * sizeof(Elf64_Shdr), size))
		return errmsg(
			err, len, -EBADMSG,
			"%s: truncated: %llu section headers at offset %#llx do not fit in %zu "
			"bytes",
			path, (unsigned long long)shnum, (unsigned long long)eh.e_shoff, size);
	return 0;
}

static const char *str_at(Elf *elf, size_t strndx, size_t off)
{
	const char *s = elf_strptr(elf, strndx, off);

	return s ? s : "";
}

static int load_sections(struct an_elf *e, char *err, size_t len)
{
	size_t shnum, shstrndx;

	if (elf_getshdrnum(e->elf, &shnum) != 0 || elf_getshdrstrndx(e->elf, &shstrndx) != 0)
		return errmsg(err, len, -EBADMSG, "%s: damaged section header table: %s", e->path,
			      elf_errmsg(-1));
	if (shnum <= 1)
		return 0;
	e->secs = calloc(shnum - 1, sizeof(*e->secs));
	if (!e->secs)
		return errmsg(err, len, -ENOMEM, "%s: out of memory", e->path);
	for (size_t i = 1; i < shnum; i++) {
		struct an_elf_section *s = &e->secs[i - 1];
		Elf_Scn *scn = elf_getscn(e->elf, i);
		GElf_Shdr sh;

		if (!scn || !gelf_getshdr(scn, &sh))
			return errmsg(err, len, -EBADMSG, "%s: damaged section header %zu: %s",
				      e->path, i, elf_errmsg(-1));
		s->name = shstrndx < shnum ? str_at(e->elf, shstrndx, sh.sh_name) : "";
		s->addr = sh.sh_addr;
		s->size = sh.sh_size;
		s->offset = sh.sh_offset;
		s->flags = sh.sh_flags;
		s->type = sh.sh_type;
		s->link = sh.sh_link;
		s->info = sh.sh_info;
		s->entsize = sh.sh_entsize;
		s->index = (unsigned int)i;
		if (sh.sh_type != SHT_NOBITS && sh.sh_type != SHT_NULL && sh.sh_size) {
			if (!range_ok(sh.sh_offset, sh.sh_size, e->image_size))
				return errmsg(
					err, len, -EBADMSG,
					"%s: truncated: section %s (%#llx bytes at offset %#llx) "
					"extends past the end of the file (%zu bytes)",
					e->path, *s->name ? s->name : "(unnamed)",
					(unsigned long long)sh.sh_size,
					(unsigned long long)sh.sh_offset, e->image_size);
			s->data = e->image + sh.sh_offset;
		}
	}
	e->nsecs = shnum - 1;
	return 0;
}

static const struct an_elf_section *first_of_type(const struct an_elf *e, uint32_t type)
{
	for (size_t i = 0; i < e->nsecs; i++)
		if (e->secs[i].type == type)
			return &e->secs[i];
	return NULL;
}

static Elf_Data *section_data(const struct an_elf *e, const struct an_elf_section *s)
{
	Elf_Scn *scn = elf_getscn(e->elf, s->index);

	return scn ? elf_getdata(scn, NULL) : NULL;
}

/* Version names by version index (.gnu.version_d, then .gnu.version_r). */
struct vertab {
	const char **name; /* [index] */
	bool *need; /* [index]: from a version need (objdump prints one '@') */
	size_t n; /* entries (max index + 1) */
	size_t ndefs; /* highest definition index (binutils' cverdefs) */
	bool base_is_file; /* definition 1 carries VER_FLG_BASE */
};

static int vertab_grow(struct vertab *vt, size_t idx)
{
	const char **nn;
	bool *nd;
	size_t n = idx + 1;

	if (idx < vt->n)
		return 0;
	nn = realloc(vt->name, n * sizeof(*nn));
	if (!nn)
		return -ENOMEM;
	vt->name = nn;
	nd = realloc(vt->need, n * sizeof(*nd));
	if (!nd)
		return -ENOMEM;
	vt->need = nd;
	for (size_t i = vt->n; i < n; i++) {
		vt->name[i] = NULL;
		vt->need[i] = false;
	}
	vt->n = n;
	return 0;
}

static void vertab_free(struct vertab *vt)
{
	free(vt->name);
	free(vt->need);
}

/* Walk the version definitions; damaged chains end the walk (names stay unknown). */
static int load_verdefs(const struct an_elf *e, const struct an_elf_section *s, struct vertab *vt)
{
	Elf_Data *d = section_data(e, s);
	size_t off = 0;

	if (!d)
		return 0;
	for (unsigned int n = 0; n < 0x8000 && off < d->d_size; n++) {
		GElf_Verdef vd;
		GElf_Verdaux va;
		unsigned int ndx;

		if (!gelf_getverdef(d, (int)off, &vd))
			break;
		ndx = vd.vd_ndx & 0x7fff;
		if (vertab_grow(vt, ndx))
			return -ENOMEM;
		if (ndx > vt->ndefs)
			vt->ndefs = ndx;
		if (ndx == 1)
			vt->base_is_file = (vd.vd_flags & VER_FLG_BASE) != 0;
		if (vd.vd_cnt && vd.vd_aux < d->d_size - off &&
		    gelf_getverdaux(d, (int)(off + vd.vd_aux), &va))
			vt->name[ndx] = elf_strptr(e->elf, s->link, va.vda_name);
		if (vd.vd_next == 0 || vd.vd_next >= d->d_size - off)
			break;
		off += vd.vd_next;
	}
	return 0;
}

static int load_verneeds(const struct an_elf *e, const struct an_elf_section *s, struct vertab *vt)
{
	Elf_Data *d = section_data(e, s);
	size_t off = 0;
	unsigned int budget = 0x10000;

	if (!d)
		return 0;
	while (off < d->d_size && budget) {
		GElf_Verneed vn;
		size_t aoff;

		if (!gelf_getverneed(d, (int)off, &vn))
			break;
		aoff = off + vn.vn_aux;
		for (unsigned int j = 0; j < vn.vn_cnt && budget; j++, budget--) {
			GElf_Vernaux va;
			unsigned int ndx;

			if (aoff >= d->d_size || !gelf_getvernaux(d, (int)aoff, &va))
				break;
			ndx = va.vna_other & 0x7fff;
			if (vertab_grow(vt, ndx))
				return -ENOMEM;
			if (ndx > vt->ndefs && !vt->name[ndx]) {
				vt->name[ndx] = elf_strptr(e->elf, s->link, va.vna_name);
				vt->need[ndx] = true;
			}
			if (va.vna_next == 0)
				break;
			aoff += va.vna_next;
		}
		if (vn.vn_next == 0 || vn.vn_next >= d->d_size - off)
			break;
		off += vn.vn_next;
		budget--;
	}
	return 0;
}

/*
 * The version binutils prints after a dynamic symbol's name (bfd/elf.c,
 * _bfd_elf_get_symbol_version_string with base_p, as objdump calls it): none for index 0,
 * "Base" for index 1 when that is the file's own base definition, a definition's name, or a
 * need's name (then always "@").
 */
static void set_version(struct an_elf_symbol *sym, unsigned int versym, const struct vertab *vt)
{
	unsigned int v = versym & 0x7fff;

	sym->version_hidden = (versym & 0x8000) != 0;
	if (v == 0)
		return;
	if (v == 1 && (v > vt->ndefs || vt->base_is_file)) {
		sym->version = "Base";
		return;
	}
	if (v < vt->n && vt->name[v]) {
		sym->version = vt->name[v];
		if (vt->need[v])
			sym->version_hidden = true;
		return;
	}
	sym->version = "<corrupt>";
}

static int load_symbols(struct an_elf *e, char *err, size_t len)
{
	const struct an_elf_section *tab = first_of_type(e, SHT_SYMTAB);
	const struct an_elf_section *versym = NULL;
	struct vertab vt = { 0 };
	Elf_Data *d, *vd = NULL;
	size_t n;
	int ret = 0;

	if (!tab || tab->size <= sizeof(Elf64_Sym)) { /* none, or only the null symbol */
		tab = first_of_type(e, SHT_DYNSYM);
		e->from_symtab = false;
	} else {
		e->from_symtab = true;
	}
	if (!tab)
		return 0;
	if (tab->entsize != sizeof(Elf64_Sym) || tab->size % sizeof(Elf64_Sym))
		return errmsg(err, len, -EBADMSG, "%s: damaged symbol table %s (entry size %llu)",
			      e->path, tab->name, (unsigned long long)tab->entsize);
	if (tab->link >= e->nsecs + 1)
		return errmsg(err, len, -EBADMSG, "%s: damaged symbol table %s (string table %u)",
			      e->path, tab->name, tab->link);
	d = section_data(e, tab);
	if (!d || d->d_size < tab->size)
		return errmsg(err, len, -EBADMSG, "%s: cannot read symbol table %s: %s", e->path,
			      tab->name, elf_errmsg(-1));
	n = tab->size / sizeof(Elf64_Sym);
	if (n <= 1)
		return 0;

	if (tab->type == SHT_DYNSYM) {
		const struct an_elf_section *vdef = first_of_type(e, SHT_GNU_verdef);
		const struct an_elf_section *vneed = first_of_type(e, SHT_GNU_verneed);

		versym = first_of_type(e, SHT_GNU_versym);
		if (versym && (vdef || vneed)) {
			vd = section_data(e, versym);
			if (vd && vd->d_size / 2 < n)
				vd = NULL; /* damaged: print no versions */
			if (vd && vdef)
				ret = load_verdefs(e, vdef, &vt);
			if (vd && vneed && !ret)
				ret = load_verneeds(e, vneed, &vt);
			if (ret) {
				vertab_free(&vt);
				return errmsg(err, len, ret, "%s: out of memory", e->path);
			}
		}
	}

	e->syms = calloc(n - 1, sizeof(*e->syms));
	if (!e->syms) {
		vertab_free(&vt);
		return errmsg(err, len, -ENOMEM, "%s: out of memory", e->path);
	}
	for (size_t i = 1; i < n; i++) {
		struct an_elf_symbol *sym = &e->syms[e->nsyms];
		const struct an_elf_section *sec = NULL;
		GElf_Sym gs;

		if (!gelf_getsym(d, (int)i, &gs))
			continue;
		sym->name = str_at(e->elf, tab->link, gs.st_name);
		sym->type = GELF_ST_TYPE(gs.st_info);
		sym->bind = GELF_ST_BIND(gs.st_info);
		sym->size = gs.st_size;
		sym->value = gs.st_value;
		sym->dynamic = tab->type == SHT_DYNSYM;
		if (gs.st_shndx == SHN_UNDEF || gs.st_shndx == SHN_ABS ||
		    gs.st_shndx == SHN_COMMON) {
			sym->shndx = gs.st_shndx;
		} else {
			sec = an_elf_section_by_index(e, gs.st_shndx);
			/* binutils puts symbols of unknown sections in the absolute section */
			sym->shndx = sec ? gs.st_shndx : AN_ELF_SHN_ABS;
		}
		if (sec && e->type == ET_REL)
			sym->value += sec->addr;
		if (sym->type == STT_SECTION && !*sym->name && sec)
			sym->name = sec->name;
		if (vd) {
			GElf_Versym vs;

			if (gelf_getversym(vd, (int)i, &vs))
				set_version(sym, vs, &vt);
		}
		e->nsyms++;
	}
	/* Version names point into the file's string table; the table itself can go. */
	vertab_free(&vt);
	return 0;
}

static int cmp_func(const void *pa, const void *pb)
{
	const struct an_elf_symbol *a = *(const struct an_elf_symbol *const *)pa;
	const struct an_elf_symbol *b = *(const struct an_elf_symbol *const *)pb;
	int la = a->bind == STB_LOCAL, lb = b->bind == STB_LOCAL;

	if (a->value != b->value)
		return a->value < b->value ? -1 : 1;
	if (la != lb)
		return la - lb;
	return a < b ? -1 : a > b;
}

static int load_functions(struct an_elf *e, char *err, size_t len)
{
	size_t n = 0;

	if (!e->nsyms)
		return 0;
	e->funcs = calloc(e->nsyms, sizeof(*e->funcs));
	if (!e->funcs)
		return errmsg(err, len, -ENOMEM, "%s: out of memory", e->path);
	for (size_t i = 0; i < e->nsyms; i++) {
		const struct an_elf_symbol *s = &e->syms[i];
		const struct an_elf_section *sec;

		if (s->type != STT_FUNC && s->type != STT_GNU_IFUNC)
			continue;
		sec = an_elf_section_by_index(e, s->shndx);
		if (!sec || !an_elf_section_is_code(sec))
			continue;
		e->funcs[n++] = s;
	}
	qsort(e->funcs, n, sizeof(*e->funcs), cmp_func);
	e->nfuncs = 0;
	for (size_t i = 0; i < n; i++)
		if (!e->nfuncs || e->funcs[e->nfuncs - 1]->value != e->funcs[i]->value)
			e->funcs[e->nfuncs++] = e->funcs[i];
	return 0;
}

int an_elf_open(const char *path, struct an_elf **out, char *err, size_t errlen)
{
	struct an_elf *e;
	GElf_Ehdr eh;
	int ret;

	if (!path || !out)
		return errmsg(err, errlen, -EINVAL, "an_elf_open: no file given");
	*out = NULL;
	e = calloc(1, sizeof(*e));
	if (!e)
		return errmsg(err, errlen, -ENOMEM, "%s: out of memory", path);
	e->path = strdup(path);
	if (!e->path) {
		ret = errmsg(err, errlen, -ENOMEM, "%s: out of memory", path);
		goto out_free;
	}
	ret = read_file(path, &e->image, &e->image_size, err, errlen);
	if (ret)
		goto out_free;
	ret = check_headers(path, e->image, e->image_size, err, errlen);
	if (ret)
		goto out_free;
	if (elf_version(EV_CURRENT) == EV_NONE) {
		ret = errmsg(err, errlen, -ENOSYS, "%s: libelf is unusable: %s", path,
			     elf_errmsg(-1));
		goto out_free;
	}
	e->elf = elf_memory((char *)e->image, e->image_size);
	if (!e->elf || elf_kind(e->elf) != ELF_K_ELF || !gelf_getehdr(e->elf, &eh)) {
		ret = errmsg(err, errlen, -EBADMSG, "%s: damaged ELF file: %s", path,
			     elf_errmsg(-1));
		goto out_free;
	}
	e->type = eh.e_type;
	e->entry = eh.e_entry;
	ret = load_sections(e, err, errlen);
	if (ret)
		goto out_free;
	ret = load_symbols(e, err, errlen);
	if (ret)
		goto out_free;
	ret = load_functions(e, err, errlen);
	if (ret)
		goto out_free;
	*out = e;
	return 0;

out_free:
	an_elf_close(e);
	return ret;
}

void an_elf_close(struct an_elf *e)
{
	if (!e)
		return;
	if (e->elf)
		elf_end(e->elf);
	free(e->funcs);
	free(e->syms);
	free(e->secs);
	free(e->image);
	free(e->path);
	free(e);
}

const char *an_elf_path(const struct an_elf *e)
{
	return e->path;
}

unsigned int an_elf_type(const struct an_elf *e)
{
	return e->type;
}

uint64_t an_elf_entry(const struct an_elf *e)
{
	return e->entry;
}

size_t an_elf_nsections(const struct an_elf *e)
{
	return e->nsecs;
}

const struct an_elf_section *an_elf_section(const struct an_elf *e, size_t i)
{
	return i < e->nsecs ? &e->secs[i] : NULL;
}

const struct an_elf_section *an_elf_section_by_name(const struct an_elf *e, const char *name)
{
	for (size_t i = 0; i < e->nsecs; i++)
		if (!strcmp(e->secs[i].name, name))
			return &e->secs[i];
	return NULL;
}

const struct an_elf_section *an_elf_section_by_index(const struct an_elf *e, unsigned int shndx)
{
	if (shndx == 0 || shndx > e->nsecs)
		return NULL;
	return &e->secs[shndx - 1];
}

const struct an_elf_section *an_elf_section_at(const struct an_elf *e, uint64_t addr)
{
	for (size_t i = 0; i < e->nsecs; i++) {
		const struct an_elf_section *s = &e->secs[i];

		if ((s->flags & SHF_ALLOC) && addr >= s->addr && addr - s->addr < s->size)
			return s;
	}
	return NULL;
}

bool an_elf_section_is_code(const struct an_elf_section *s)
{
	return (s->flags & SHF_EXECINSTR) && s->type != SHT_NOBITS && s->type != SHT_NULL &&
	       s->data != NULL;
}

size_t an_elf_ncode_sections(const struct an_elf *e)
{
	size_t n = 0;

	for (size_t i = 0; i < e->nsecs; i++)
		n += an_elf_section_is_code(&e->secs[i]);
	return n;
}

size_t an_elf_nsymbols(const struct an_elf *e)
{
	return e->nsyms;
}

const struct an_elf_symbol *an_elf_symbol(const struct an_elf *e, size_t i)
{
	return i < e->nsyms ? &e->syms[i] : NULL;
}

bool an_elf_has_symtab(const struct an_elf *e)
{
	return e->from_symtab;
}

size_t an_elf_nfunctions(const struct an_elf *e)
{
	return e->nfuncs;
}

const struct an_elf_symbol *an_elf_function(const struct an_elf *e, size_t i)
{
	return i < e->nfuncs ? e->funcs[i] : NULL;
}

const struct an_elf_symbol *an_elf_function_at(const struct an_elf *e, uint64_t addr)
{
	size_t lo = 0, hi = e->nfuncs;
	const struct an_elf_symbol *f;
	uint64_t end;

	while (lo < hi) { /* first function starting after addr */
		size_t mid = lo + (hi - lo) / 2;

		if (e->funcs[mid]->value <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0)
		return NULL;
	f = e->funcs[lo - 1];
	if (f->size)
		end = f->value + f->size;
	else if (lo < e->nfuncs)
		end = e->funcs[lo]->value;
	else
		return an_elf_section_at(e, addr) ? f : NULL;
	return addr < end ? f : NULL;
}

int an_elf_read32(const struct an_elf *e, uint64_t addr, uint32_t *word)
{
	for (size_t i = 0; i < e->nsecs; i++) {
		const struct an_elf_section *s = &e->secs[i];

		if (s->data && addr >= s->addr && addr - s->addr < s->size &&
		    s->size - (addr - s->addr) >= 4) {
			const uint8_t *p = s->data + (addr - s->addr);

			*word = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
				(uint32_t)p[3] << 24;
			return 0;
		}
	}
	return -EFAULT;
}
