/* image/img.h - executable images: one ELF reader for analysis, pdb, the daemon and the tools. */
#ifndef IMG_H
#define IMG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ax_err.h"

/*
 * A struct img is one ELF file read whole into memory and checked once, so every accessor
 * below is a plain lookup that never reads outside the file, whatever its bytes.
 *
 * What is accepted (img_open):
 *   - ELF64, little-endian, EM_ALPHA (0x9026), of type ET_EXEC, ET_DYN or ET_REL;
 *   - with IMG_ANY_MACHINE, an ELF64 little-endian file of any machine (the daemon and the
 *     profile database describe and map whatever was executed; nothing disassembles it).
 * Everything else is -ENOEXEC with a message naming the file and saying what it is instead
 * (not ELF, an ar archive, 32-bit, big-endian, another machine, a core file).
 *
 * What is checked (the file may be truncated or hostile; no length in it is trusted):
 *   - the ELF header, the program header table and the section header table lie in the file;
 *   - every PT_LOAD and PT_INTERP segment's file bytes (p_offset, p_filesz) lie in the file,
 *     and p_filesz <= p_memsz for PT_LOAD (a PT_NOTE outside the file is skipped);
 *   - every section with contents (not SHT_NOBITS) lies in the file;
 *   - symbol tables have Elf64_Sym entries and a string table; names, version chains and
 *     notes are walked with bounds checks (a bad name reads as "", a bad version as
 *     "<corrupt>", a bad note ends its walk).
 * A failed check is -EBADMSG through AX_CORRUPT (file, byte offset, what is wrong).
 *
 * Addresses: a segment's is p_vaddr, a section's sh_addr, a symbol's st_value. For ET_REL
 * (sections usually all at address 0) a symbol's address is st_value plus its section's
 * sh_addr, as binutils computes it.
 *
 * Symbols: both tables are read, .symtab (local symbols included) and .dynsym. A .dynsym
 * symbol carries its version from .gnu.version, .gnu.version_d and .gnu.version_r, as
 * binutils prints it: `versioned` is "memcpy@@GLIBC_2.0" (the default version), or
 * "memcpy@GLIBC_2.0" (a hidden version, or a version needed from another file), while
 * `name` stays "memcpy" for lookups; as in nm -D, the file's own base version ("Base" in
 * objdump -T) is not appended. The "primary" table is objdump's choice: .symtab when
 * it has a symbol, else .dynsym; img_symbol() and the function list use it.
 *
 * The struct and its strings live until img_close(); img_* never print.
 */

struct img;

/* img_open flags */
#define IMG_ANY_MACHINE 0x1u /* accept any ELF64 little-endian machine, not only Alpha */

struct img_segment { /* one PT_LOAD program header */
	uint64_t vaddr; /* p_vaddr */
	uint64_t memsz; /* p_memsz */
	uint64_t offset; /* p_offset */
	uint64_t filesz; /* p_filesz (<= memsz) */
	uint32_t flags; /* p_flags (PF_R, PF_W, PF_X) */
};

struct img_section {
	const char *name; /* "" when the name is missing or damaged */
	uint64_t addr; /* sh_addr */
	uint64_t size; /* sh_size */
	uint64_t offset; /* sh_offset */
	uint64_t flags; /* sh_flags (SHF_*) */
	uint32_t type; /* sh_type (SHT_*) */
	uint32_t link; /* sh_link */
	uint32_t info; /* sh_info */
	uint64_t entsize; /* sh_entsize */
	uint64_t addralign; /* sh_addralign */
	unsigned int index; /* section header index */
	const uint8_t *data; /* the size bytes of contents, or NULL (SHT_NOBITS, empty) */
};

/* Section index values for symbols outside any section (as in ELF). */
#define IMG_SHN_UNDEF 0u
#define IMG_SHN_ABS 0xfff1u
#define IMG_SHN_COMMON 0xfff2u

struct img_symbol {
	const char *name; /* plain name; for an unnamed STT_SECTION symbol, its section's name */
	const char
		*versioned; /* "name@@VER" / "name@VER" for a versioned dynamic symbol, else name */
	const char *version; /* dynamic symbols: version name ("GLIBC_2.0", "Base"), or NULL */
	bool version_hidden; /* objdump prints name@version (true) or name@@version */
	bool version_base; /* version is "Base", the file itself: not part of versioned */
	bool dynamic; /* from .dynsym (false: from .symtab) */
	uint8_t type; /* STT_* */
	uint8_t bind; /* STB_* */
	uint32_t shndx; /* section index, or IMG_SHN_UNDEF / _ABS / _COMMON */
	uint64_t value; /* address (see above) */
	uint64_t size; /* st_size */
};

/* Which symbol table (img_nsyms, img_sym). */
enum img_symtab {
	IMG_SYMTAB, /* .symtab */
	IMG_DYNSYM, /* .dynsym */
};

/*
 * Open path. Returns 0 and *out, or a -Exxx with a message in err (may be NULL):
 * -ENOENT/-EACCES/-EISDIR/... the file cannot be read; -ENOEXEC not a file this reader
 * accepts (see above); -EBADMSG truncated or damaged; -ENOMEM.
 */
int img_open(const char *path, unsigned int flags, struct img **out, struct ax_error *err);
void img_close(struct img *im);

/* The file. */
const char *img_path(const struct img *im);
uint64_t img_file_size(const struct img *im);
int64_t img_mtime_ns(const struct img *im); /* st_mtim in nanoseconds since the epoch */
unsigned int img_type(const struct img *im); /* ET_EXEC, ET_DYN or ET_REL */
unsigned int img_machine(const struct img *im); /* e_machine: EM_ALPHA unless IMG_ANY_MACHINE */
uint64_t img_entry(const struct img *im);

/* Program headers: PT_LOAD segments in table order; the executable ones have PF_X. */
size_t img_nsegments(const struct img *im);
const struct img_segment *img_segment(const struct img *im, size_t i);
/* The PT_INTERP path ("/lib/ld-linux.so.2"), or NULL for a static program or a library. */
const char *img_interp(const struct img *im);
/* PT_DYNAMIC's p_vaddr in *va; false (and *va = 0) when there is none. */
bool img_dynamic_vaddr(const struct img *im, uint64_t *va);
/*
 * The GNU build-id (NT_GNU_BUILD_ID, from a PT_NOTE segment, else a SHT_NOTE section such as
 * .note.gnu.build-id): its bytes and *len, or NULL and *len = 0 when the file has none.
 */
const uint8_t *img_build_id(const struct img *im, size_t *len);

/* Sections, in section header order (index 0, the null section, is not listed). */
size_t img_nsections(const struct img *im);
const struct img_section *img_section(const struct img *im, size_t i);
const struct img_section *img_section_by_name(const struct img *im, const char *name);
const struct img_section *img_section_by_index(const struct img *im, unsigned int shndx);
/* The allocated (SHF_ALLOC) section holding addr, or NULL. */
const struct img_section *img_section_at(const struct img *im, uint64_t addr);
/* SHF_EXECINSTR with contents: what objdump -d disassembles. */
bool img_section_is_code(const struct img_section *s);
size_t img_ncode_sections(const struct img *im);
/* Total sh_size of the SHF_EXECINSTR sections that occupy file bytes (not SHT_NOBITS). */
uint64_t img_text_size(const struct img *im);

/* One symbol table, in table order, without the null symbol. */
size_t img_nsyms(const struct img *im, enum img_symtab t);
const struct img_symbol *img_sym(const struct img *im, enum img_symtab t, size_t i);
/* The primary table (.symtab if it has a symbol, else .dynsym); img_has_symtab tells which. */
size_t img_nsymbols(const struct img *im);
const struct img_symbol *img_symbol(const struct img *im, size_t i);
bool img_has_symtab(const struct img *im);
/* The first defined symbol whose plain name is name: .symtab first, then .dynsym; or NULL. */
const struct img_symbol *img_symbol_by_name(const struct img *im, const char *name);

/*
 * Functions: STT_FUNC and STT_GNU_IFUNC symbols of the primary table defined in code
 * sections, sorted by address, one per address (a global name preferred over a local, then
 * the first in the table).
 */
size_t img_nfunctions(const struct img *im);
const struct img_symbol *img_function(const struct img *im, size_t i);
/*
 * The function containing addr: the last one starting at or before addr, if addr is below
 * its end (start + size; a size-0 function extends to the next function). NULL otherwise.
 */
const struct img_symbol *img_function_at(const struct img *im, uint64_t addr);

/*
 * PLT slots (img_plt.c): one symbol "name@plt" per R_ALPHA_JMP_SLOT of .rela.plt, at its PLT
 * entry (size: the entry's), STT_FUNC, sorted by address. They are not in the function list
 * (the PLT has no function symbols); img_plt_at() names the slot holding addr, or NULL.
 */
size_t img_nplt(const struct img *im);
const struct img_symbol *img_plt(const struct img *im, size_t i);
const struct img_symbol *img_plt_at(const struct img *im, uint64_t addr);

/* Read a 32-bit little-endian word at addr from a section with contents; -EFAULT if none. */
int img_read32(const struct img *im, uint64_t addr, uint32_t *word);

/*
 * Source lines (img_line.c, elfutils' libdw): the DWARF line table and inline tree of an image
 * built with -g. A struct img_lines lives no longer than its img; its strings live until
 * img_lines_close(). Addresses are ELF addresses, as everywhere above (executables and shared
 * objects: libdw applies no relocations, so an ET_REL file's lines are not looked up).
 */
struct img_lines;

struct img_line {
	const char *file; /* the line table's file name: absolute when DWARF gives comp_dir */
	const char *comp_dir; /* DW_AT_comp_dir of its compilation unit, or NULL */
	unsigned int line; /* 1-based; 0: the compiler marked the address as no line */
	unsigned int column; /* 0 when not recorded */
};

/* One inlined call around an address, innermost first (img_line_inlines). */
struct img_inline {
	const char *func; /* the inlined function's name ("" when unnamed) */
	const char *call_file; /* where it was inlined: file and line of the call */
	unsigned int call_line;
};

/*
 * Read im's DWARF: 0 and *out; -ENODATA with "FILE has no DWARF line information" when the file
 * has none (not built with -g, or stripped); -EBADMSG for DWARF libdw rejects; -ENOMEM.
 */
int img_lines_open(const struct img *im, struct img_lines **out, struct ax_error *err);
void img_lines_close(struct img_lines *l);
/*
 * The line of addr as addr2line gives it (the line-table row with the greatest address <= addr
 * in addr's sequence): true and *out, false when no compilation unit covers addr.
 */
bool img_line_at(const struct img_lines *l, uint64_t addr, struct img_line *out);
/*
 * The inline chain at addr: up to max inlined calls, innermost first, into out; returns how many
 * there are in all (0: addr is in no inlined code).
 */
size_t img_line_inlines(const struct img_lines *l, uint64_t addr, struct img_inline *out,
			size_t max);

#endif /* IMG_H */
