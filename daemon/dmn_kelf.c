/* daemon/dmn_kelf.c - write a symbol-only ELF file for a kernel image without one (dmn_kern.h). */
#define _GNU_SOURCE
#include <elf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dmn_kern.h"

/*
 * DCPI SOSP'97 §4.3: kernel samples go to the kernel image and loaded modules as to any image.
 * When the daemon knows an image only by its symbols (/proc/kallsyms), it writes them as an
 * ELF file whose code section is SHT_NOBITS (no instruction bytes: nothing can disassemble what
 * is not there), so that every reader finds procedures through image/ as for any other file.
 *
 * Layout: ELF header, 2 program headers (PT_LOAD, PT_NOTE), the note, .symtab, .strtab,
 * .shstrtab, then 6 section headers (null, .text, .note.gnu.build-id, .symtab, .strtab,
 * .shstrtab).
 */

static const char shstr[] = "\0.text\0.note.gnu.build-id\0.symtab\0.strtab\0.shstrtab";
enum { SH_TEXT = 1, SH_NOTE = 7, SH_SYMTAB = 26, SH_STRTAB = 34, SH_SHSTRTAB = 42 };

static size_t align8(size_t v)
{
	return (v + 7) & ~(size_t)7;
}

int dmn_kelf_write(const char *path, uint64_t vaddr, uint64_t size, const uint8_t *id, size_t idlen,
		   const uint64_t *addr, const char *const *names, size_t n, struct ax_error *err)
{
	size_t note_off = sizeof(Elf64_Ehdr) + 2 * sizeof(Elf64_Phdr);
	size_t note_len = 16 + ((idlen + 3) & ~(size_t)3);
	size_t sym_off = align8(note_off + note_len), strsz = 1, str_off, shstr_off, sh_off, total;
	char tmp[4200];
	uint8_t *b;
	FILE *f;
	int ret = 0;

	if (!idlen || idlen > 20 || !size || vaddr + size < vaddr)
		return ax_fail(err, -EINVAL, "%s: bad symbol image (range or build-id)", path);
	for (size_t i = 0; i < n; i++) {
		if (addr[i] < vaddr || addr[i] - vaddr >= size)
			return ax_fail(err, -EINVAL, "%s: symbol %s outside its image", path,
				       names[i]);
		strsz += strlen(names[i]) + 1;
	}
	str_off = sym_off + (n + 1) * sizeof(Elf64_Sym);
	shstr_off = str_off + strsz;
	sh_off = align8(shstr_off + sizeof(shstr));
	total = sh_off + 6 * sizeof(Elf64_Shdr);
	b = calloc(1, total);
	if (!b)
		return ax_fail(err, -ENOMEM, "%s: out of memory", path);

	Elf64_Ehdr eh = { .e_type = ET_EXEC,
			  .e_machine = 0x9026, /* EM_ALPHA */
			  .e_version = EV_CURRENT,
			  .e_phoff = sizeof(Elf64_Ehdr),
			  .e_shoff = sh_off,
			  .e_ehsize = sizeof(Elf64_Ehdr),
			  .e_phentsize = sizeof(Elf64_Phdr),
			  .e_phnum = 2,
			  .e_shentsize = sizeof(Elf64_Shdr),
			  .e_shnum = 6,
			  .e_shstrndx = 5 };
	memcpy(eh.e_ident, ELFMAG, SELFMAG);
	eh.e_ident[EI_CLASS] = ELFCLASS64;
	eh.e_ident[EI_DATA] = ELFDATA2LSB;
	eh.e_ident[EI_VERSION] = EV_CURRENT;
	memcpy(b, &eh, sizeof(eh));

	Elf64_Phdr ph[2] = {
		{ .p_type = PT_LOAD,
		  .p_flags = PF_R | PF_X,
		  .p_vaddr = vaddr,
		  .p_paddr = vaddr,
		  .p_memsz = size,
		  .p_align = 8 },
		{ .p_type = PT_NOTE,
		  .p_flags = PF_R,
		  .p_offset = note_off,
		  .p_filesz = note_len,
		  .p_align = 4 },
	};
	memcpy(b + sizeof(eh), ph, sizeof(ph));

	uint32_t nh[3] = { 4, (uint32_t)idlen, NT_GNU_BUILD_ID };
	memcpy(b + note_off, nh, sizeof(nh));
	memcpy(b + note_off + 12, "GNU", 4);
	memcpy(b + note_off + 16, id, idlen);

	size_t so = 1;
	for (size_t i = 0; i < n; i++) {
		Elf64_Sym s = { .st_name = (uint32_t)so,
				.st_info = ELF64_ST_INFO(STB_GLOBAL, STT_FUNC),
				.st_shndx = 1,
				.st_value = addr[i] };
		size_t l = strlen(names[i]) + 1;

		memcpy(b + sym_off + (i + 1) * sizeof(s), &s, sizeof(s));
		memcpy(b + str_off + so, names[i], l);
		so += l;
	}
	memcpy(b + shstr_off, shstr, sizeof(shstr));

	Elf64_Shdr sh[6] = {
		{ 0 },
		{ .sh_name = SH_TEXT,
		  .sh_type = SHT_NOBITS,
		  .sh_flags = SHF_ALLOC | SHF_EXECINSTR,
		  .sh_addr = vaddr,
		  .sh_offset = sym_off,
		  .sh_size = size,
		  .sh_addralign = 8 },
		{ .sh_name = SH_NOTE,
		  .sh_type = SHT_NOTE,
		  .sh_flags = SHF_ALLOC,
		  .sh_offset = note_off,
		  .sh_size = note_len,
		  .sh_addralign = 4 },
		{ .sh_name = SH_SYMTAB,
		  .sh_type = SHT_SYMTAB,
		  .sh_offset = sym_off,
		  .sh_size = (n + 1) * sizeof(Elf64_Sym),
		  .sh_link = 4,
		  .sh_info = 1,
		  .sh_addralign = 8,
		  .sh_entsize = sizeof(Elf64_Sym) },
		{ .sh_name = SH_STRTAB,
		  .sh_type = SHT_STRTAB,
		  .sh_offset = str_off,
		  .sh_size = strsz,
		  .sh_addralign = 1 },
		{ .sh_name = SH_SHSTRTAB,
		  .sh_type = SHT_STRTAB,
		  .sh_offset = shstr_off,
		  .sh_size = sizeof(shstr),
		  .sh_addralign = 1 },
	};
	memcpy(b + sh_off, sh, sizeof(sh));

	snprintf(tmp, sizeof(tmp), "%s.tmp.%d", path, (int)getpid());
	f = fopen(tmp, "we");
	if (!f) {
		ret = ax_syserr(err, -errno, tmp, "open");
	} else {
		bool ok = fwrite(b, 1, total, f) == total;

		if (fclose(f) || !ok)
			ret = ax_syserr(err, errno ? -errno : -EIO, tmp, "write");
		else if (rename(tmp, path))
			ret = ax_syserr(err, -errno, path, "rename");
		if (ret)
			unlink(tmp);
	}
	free(b);
	return ret;
}
