/* daemon/dmn_kern.h - kernel symbols for the daemon: /proc/kallsyms, System.map, /proc/modules. */
#ifndef DMN_KERN_H
#define DMN_KERN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ax_err.h"

/*
 * DCPI SOSP'97 §4.3 attributes kernel samples to the kernel image and to each loaded module
 * like any other image. Where a Linux kernel says what it has loaded:
 *
 *   /proc/kallsyms (and System.map, the same lines without modules), one symbol a line:
 *       ADDR TYPE NAME            ADDR hex (16 digits on 64-bit), TYPE one letter (nm's)
 *       ADDR TYPE NAME\t[MODULE]  a module's symbol
 *     Order is not trusted (they are sorted here); the same address may carry several names.
 *     All-zero addresses mean the kernel hides them (kptr_restrict): refused, never used.
 *   /proc/modules, one module a line:
 *       NAME SIZE REFS DEPS STATE ADDR [TAINTS]   ADDR 0x-prefixed hex, SIZE decimal bytes
 *     A module occupies [ADDR, ADDR + SIZE). Modules whose ranges overlap, that repeat a name,
 *     or that have a zero address (hidden) are refused.
 * Any line that does not parse is refused with its file and line number: a profile must never
 * meet the wrong or half-read symbols.
 */

struct dmn_ksym {
	uint64_t addr;
	char type; /* nm's letter: T/t text, W/w weak, D/d data, ... */
	const char *name; /* in the table's string storage */
	const char *module; /* NULL: the kernel image itself */
};

struct dmn_ksyms {
	struct dmn_ksym *s; /* sorted by addr, then by input order */
	size_t n;
	char *strings; /* every name and module name */
};

struct dmn_kmod {
	const char *name; /* in the table's string storage */
	uint64_t addr, size;
};

struct dmn_kmods {
	struct dmn_kmod *m; /* sorted by addr */
	size_t n;
	char *strings;
};

/*
 * Parse kallsyms or System.map text text[0..len) (what: the file name for messages). 0, or
 * -EINVAL (a line that does not parse, addresses hidden, no symbol at all) / -ENOMEM with a
 * message in err. `modules` false: a [MODULE] column is refused (System.map).
 */
int dmn_ksyms_parse(const char *text, size_t len, const char *what, bool modules,
		    struct dmn_ksyms *out, struct ax_error *err);
void dmn_ksyms_free(struct dmn_ksyms *k);
/* Is t a text symbol (T, t, W, w)? */
bool dmn_ksym_is_text(char t);
/* The address of the kernel image's symbol name, or false. */
bool dmn_ksyms_find(const struct dmn_ksyms *k, const char *name, uint64_t *addr);
/*
 * The kernel image's text range [*lo, *hi): _stext (else _text, else its lowest text symbol)
 * to _etext (else its highest text symbol + 4). false when it has no text symbol.
 */
bool dmn_ksyms_text_range(const struct dmn_ksyms *k, uint64_t *lo, uint64_t *hi);

/* Parse /proc/modules text (as above). 0, or -EINVAL / -ENOMEM with a message in err. */
int dmn_kmods_parse(const char *text, size_t len, const char *what, struct dmn_kmods *out,
		    struct ax_error *err);
void dmn_kmods_free(struct dmn_kmods *m);
/* The module holding addr, or NULL. */
const struct dmn_kmod *dmn_kmods_find(const struct dmn_kmods *m, uint64_t addr);

/*
 * Read a whole (small, /proc) file into *buf (NUL-terminated, *len without the NUL). 0 or -Exxx
 * with a message in err. At most 64 MiB.
 */
int dmn_read_text(const char *path, char **buf, size_t *len, struct ax_error *err);

/*
 * The GNU build-id in a notes blob (/sys/kernel/notes: ELF notes, 4-aligned) into id[0..20),
 * its length in *n. false when there is none.
 */
bool dmn_notes_build_id(const uint8_t *notes, size_t len, uint8_t *id, size_t *n);

/*
 * A symbol-only ELF file (daemon's kernel images without an ELF of their own): ELF64 Alpha
 * ET_EXEC, one PT_LOAD (R+X, p_filesz 0) and one SHT_NOBITS .text section at [vaddr, vaddr +
 * size), a GNU build-id note holding id[0..idlen), and a .symtab of STT_FUNC symbols (names[i]
 * at addr[i], which must lie in the range). Written to path (through a temporary file and
 * rename). 0 or -Exxx with a message in err.
 */
int dmn_kelf_write(const char *path, uint64_t vaddr, uint64_t size, const uint8_t *id, size_t idlen,
		   const uint64_t *addr, const char *const *names, size_t n, struct ax_error *err);

#endif /* DMN_KERN_H */
