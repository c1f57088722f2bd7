/* analysis/an_elf.h - Alpha ELF images: sections, symbols and code lookups, read with libelf. */
#ifndef AN_ELF_H
#define AN_ELF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * An an_elf is one Alpha ELF file read into memory: ELF64, little-endian, EM_ALPHA (0x9026),
 * of type ET_EXEC, ET_DYN or ET_REL. Opening checks every header, section and symbol against
 * the file size, so the accessors below never read outside the file, whatever its bytes.
 *
 * Addresses: for ET_EXEC and ET_DYN a section's address is sh_addr and a symbol's is st_value.
 * For ET_REL (sections usually all at address 0) a symbol's address is st_value plus its
 * section's sh_addr, as binutils computes it.
 */

struct an_elf;

struct an_elf_section {
	const char *name; /* "" when the name is missing or damaged */
	uint64_t addr; /* sh_addr */
	uint64_t size; /* sh_size */
	uint64_t offset; /* sh_offset */
	uint64_t flags; /* sh_flags (SHF_*) */
	uint32_t type; /* sh_type (SHT_*) */
	uint32_t link; /* sh_link */
	uint32_t info; /* sh_info */
	uint64_t entsize; /* sh_entsize */
	unsigned int index; /* section header index */
	const uint8_t *data; /* the size bytes of contents, or NULL (SHT_NOBITS, empty) */
};

/* Section index values for symbols outside any section (as in ELF). */
#define AN_ELF_SHN_UNDEF 0u
#define AN_ELF_SHN_ABS 0xfff1u
#define AN_ELF_SHN_COMMON 0xfff2u

struct an_elf_symbol {
	const char *name; /* for an unnamed STT_SECTION symbol, its section's name */
	const char *version; /* dynamic symbols: version name ("GLIBC_2.0", "Base"), or NULL */
	bool version_hidden; /* objdump prints name@version (true) or name@@version */
	bool dynamic; /* from .dynsym (false: from .symtab) */
	uint8_t type; /* STT_* */
	uint8_t bind; /* STB_* */
	uint32_t shndx; /* section index, or AN_ELF_SHN_UNDEF / _ABS / _COMMON */
	uint64_t value; /* address (see above) */
	uint64_t size; /* st_size */
};

/*
 * Open `path`. Returns 0 and *out, or a negative errno with a one-line message in err:
 * -ENOENT/-EACCES/... the file cannot be read; -ENOEXEC not an ELF file, not ELF64
 * little-endian, not Alpha, or not an executable, shared object or relocatable object;
 * -EBADMSG truncated or damaged headers; -ENOMEM.
 */
int an_elf_open(const char *path, struct an_elf **out, char *err, size_t errlen);
void an_elf_close(struct an_elf *e);

const char *an_elf_path(const struct an_elf *e);
unsigned int an_elf_type(const struct an_elf *e); /* ET_EXEC, ET_DYN or ET_REL */
uint64_t an_elf_entry(const struct an_elf *e);

/* Sections, in section header order (index 0, the null section, is not listed). */
size_t an_elf_nsections(const struct an_elf *e);
const struct an_elf_section *an_elf_section(const struct an_elf *e, size_t i);
const struct an_elf_section *an_elf_section_by_name(const struct an_elf *e, const char *name);
const struct an_elf_section *an_elf_section_by_index(const struct an_elf *e, unsigned int shndx);
/* The allocated section holding addr, or NULL. */
const struct an_elf_section *an_elf_section_at(const struct an_elf *e, uint64_t addr);

/* SHF_EXECINSTR with contents: what objdump -d disassembles. */
bool an_elf_section_is_code(const struct an_elf_section *s);
size_t an_elf_ncode_sections(const struct an_elf *e);

/*
 * Symbols: .symtab when it has any symbol, else .dynsym (objdump's choice), in table order,
 * without the null symbol. an_elf_has_symtab() tells which table they came from.
 */
size_t an_elf_nsymbols(const struct an_elf *e);
const struct an_elf_symbol *an_elf_symbol(const struct an_elf *e, size_t i);
bool an_elf_has_symtab(const struct an_elf *e);

/*
 * Functions (STT_FUNC and STT_GNU_IFUNC symbols defined in code sections), sorted by address,
 * one per address (a global name preferred over a local, then the first in the table).
 */
size_t an_elf_nfunctions(const struct an_elf *e);
const struct an_elf_symbol *an_elf_function(const struct an_elf *e, size_t i);

/*
 * The function containing addr: the last one starting at or before addr, if addr is below
 * its end (start + size; a size-0 function extends to the next function). NULL otherwise.
 */
const struct an_elf_symbol *an_elf_function_at(const struct an_elf *e, uint64_t addr);

/* Read a 32-bit little-endian word at addr from a section with contents; -EFAULT if none. */
int an_elf_read32(const struct an_elf *e, uint64_t addr, uint32_t *word);

#endif /* AN_ELF_H */
