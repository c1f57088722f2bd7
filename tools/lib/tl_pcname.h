/* tools/lib/tl_pcname.h - naming a running program's PCs by symbol (axprof run --stats). */
#ifndef TL_PCNAME_H
#define TL_PCNAME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "img.h"

/*
 * The executable file mappings of one process on the hosted machine, kept from its mmap and
 * munmap events (mach.h EVENTS), so that a PC can be named "sym+0xoff" as the views name
 * instructions (issue 16 item 7: "top PCs in run --stats"): the PC's file offset in its mapping
 * gives the ELF address through the image's PT_LOAD headers (daemon/dmn_lib.h ATTRIBUTION), and
 * the PLT slot (name@plt) or function holding that address names it, demangled (tl_sym.h).
 * A mapping replaces what was there, as mmap(2) does. Images are opened on first use.
 */
struct tl_pcname_map {
	uint64_t start, end; /* [start, end) */
	uint64_t off; /* file offset of start */
	char *path;
	struct img *elf; /* NULL until opened, or when it cannot be */
	bool tried;
};

struct tl_pcname {
	struct tl_pcname_map *v;
	size_t n, cap;
};

void tl_pcname_init(struct tl_pcname *t);
void tl_pcname_exit(struct tl_pcname *t);
/* A mapping of path at file offset off (path NULL or !exec: it only removes what was there).
 * 0 or -ENOMEM (the table is then unchanged but for the removal). */
int tl_pcname_map(struct tl_pcname *t, uint64_t start, uint64_t len, uint64_t off, const char *path,
		  bool exec);
void tl_pcname_unmap(struct tl_pcname *t, uint64_t start, uint64_t len);
/*
 * pc as "sym+0xoff" (or "sym" at offset 0) into buf, its image's path in *image and its ELF
 * address in that image in *addr (either may be NULL): true when a symbol holds it, else false
 * and buf "" (*image the path when mapped, else NULL; *addr pc when the image is unreadable).
 */
bool tl_pcname_name(struct tl_pcname *t, uint64_t pc, char *buf, size_t size, const char **image,
		    uint64_t *addr);

#endif /* TL_PCNAME_H */
