/* image/img_elf.c - open an ELF image: read the file, check its identity and header, load it. */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "img_int.h"

/*
 * The file is read whole into memory. The raw checks below run before libelf sees a byte: the
 * identity (ELF64, little-endian, the machine, the type) and the section header table against
 * the file size. The host is little-endian (x86-64 or Alpha), so headers are read with memcpy.
 * (ELF: System V gABI ch. 4.)
 */

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

static int read_all(int fd, uint8_t *buf, size_t size, size_t *got)
{
	*got = 0;
	while (*got < size) {
		ssize_t n = read(fd, buf + *got, size - *got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			break;
		*got += (size_t)n;
	}
	return 0;
}

/* ELF64, little-endian: the identity bytes, before the header can be read. */
static int check_ident(const char *path, const uint8_t *b, size_t size, unsigned int flags,
		       struct ax_error *err)
{
	const char *what =
		flags & IMG_ANY_MACHINE ? "not an ELF64 little-endian file" : "not an Alpha file";

	if (size >= 8 && !memcmp(b, "!<arch>\n", 8))
		return ax_fail(err, -ENOEXEC,
			       "%s: an ar archive, not an ELF file (extract its members with ar x)",
			       path);
	if (size < SELFMAG || memcmp(b, ELFMAG, SELFMAG) != 0)
		return ax_fail(err, -ENOEXEC, "%s: not an ELF file%s", path,
			       size ? "" : " (empty)");
	if (size < EI_NIDENT)
		return AX_CORRUPT(err, path, size, "truncated ELF file (%zu bytes)", size);
	if (b[EI_CLASS] != ELFCLASS64)
		return ax_fail(err, -ENOEXEC, "%s: %s: %s ELF, Alpha files are ELF64", path, what,
			       b[EI_CLASS] == ELFCLASS32 ? "32-bit" : "unknown-class");
	if (b[EI_DATA] != ELFDATA2LSB)
		return ax_fail(err, -ENOEXEC,
			       "%s: %s: big-endian ELF, Alpha files are little-endian", path, what);
	if (size < sizeof(Elf64_Ehdr))
		return AX_CORRUPT(err, path, size, "truncated ELF header (%zu of %zu bytes)", size,
				  sizeof(Elf64_Ehdr));
	return 0;
}

/*
 * Read the file whole into im->image, once its first bytes pass check_ident (so a large file
 * that is not ELF64 is not read at all).
 */
static int read_file(struct img *im, unsigned int flags, struct ax_error *err)
{
	uint8_t head[sizeof(Elf64_Ehdr)];
	size_t nhead;
	struct stat st;
	int fd, ret;

	fd = open(im->path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return ax_syserr(err, -errno, im->path, "cannot open");
	if (fstat(fd, &st) < 0) {
		ret = ax_syserr(err, -errno, im->path, "cannot stat");
		goto out_close;
	}
	ret = -EISDIR;
	if (S_ISDIR(st.st_mode)) {
		ax_fail(err, ret, "%s: is a directory, not an ELF file", im->path);
		goto out_close;
	}
	ret = -ENOEXEC;
	if (!S_ISREG(st.st_mode)) {
		ax_fail(err, ret, "%s: not a regular file", im->path);
		goto out_close;
	}
	im->mtime_ns = (int64_t)st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec;
	ret = read_all(fd, head, sizeof(head), &nhead);
	if (ret) {
		ax_syserr(err, ret, im->path, "read failed");
		goto out_close;
	}
	ret = check_ident(im->path, head, nhead, flags, err);
	if (ret)
		goto out_close;
	if (lseek(fd, 0, SEEK_SET) < 0) {
		ret = ax_syserr(err, -errno, im->path, "cannot seek");
		goto out_close;
	}
	im->image = malloc(st.st_size ? (size_t)st.st_size : 1);
	if (!im->image) {
		ret = ax_fail(err, -ENOMEM, "%s: out of memory reading %lld bytes", im->path,
			      (long long)st.st_size);
		goto out_close;
	}
	ret = read_all(fd, im->image, (size_t)st.st_size, &im->image_size);
	if (ret)
		ax_syserr(err, ret, im->path, "read failed");
out_close:
	close(fd);
	return ret;
}

/* The section header table lies in the file (extended numbering included). */
static int check_shdrs(const char *path, const Elf64_Ehdr *eh, const uint8_t *b, size_t size,
		       struct ax_error *err)
{
	uint64_t shnum = eh->e_shnum;

	if (eh->e_shoff == 0)
		return 0; /* no section headers: accepted, but nothing to disassemble */
	if (eh->e_shentsize != sizeof(Elf64_Shdr))
		return AX_CORRUPT(err, path, offsetof(Elf64_Ehdr, e_shentsize),
				  "damaged ELF header: section header size %u", eh->e_shentsize);
	if (!img_range_ok(eh->e_shoff, sizeof(Elf64_Shdr), size))
		return AX_CORRUPT(err, path, eh->e_shoff,
				  "truncated: section headers at offset %#llx, file is %zu bytes",
				  (unsigned long long)eh->e_shoff, size);
	if (shnum == 0) {
		Elf64_Shdr sh0;

		memcpy(&sh0, b + eh->e_shoff, sizeof(sh0));
		shnum = sh0.sh_size; /* extended numbering */
	}
	if (shnum > size / sizeof(Elf64_Shdr) ||
	    !img_range_ok(eh->e_shoff, shnum * sizeof(Elf64_Shdr), size))
		return AX_CORRUPT(err, path, eh->e_shoff,
				  "truncated: %llu section headers at offset %#llx do not fit in "
				  "%zu bytes",
				  (unsigned long long)shnum, (unsigned long long)eh->e_shoff, size);
	return 0;
}

/* The checks made on raw bytes, before libelf parses anything. */
static int check_headers(struct img *im, unsigned int flags, struct ax_error *err)
{
	const char *path = im->path;
	Elf64_Ehdr eh;
	int ret;

	ret = check_ident(path, im->image, im->image_size, flags, err);
	if (ret)
		return ret;
	memcpy(&eh, im->image, sizeof(eh));
	if (eh.e_machine != EM_ALPHA && !(flags & IMG_ANY_MACHINE))
		return ax_fail(err, -ENOEXEC,
			       "%s: not an Alpha file: machine %#x is %s (Alpha is 0x9026)", path,
			       eh.e_machine, machine_name(eh.e_machine));
	if (eh.e_type != ET_EXEC && eh.e_type != ET_DYN && eh.e_type != ET_REL)
		return ax_fail(err, -ENOEXEC,
			       "%s: ELF type %u is not an executable, shared object or object file",
			       path, eh.e_type);
	im->type = eh.e_type;
	im->machine = eh.e_machine;
	im->entry = eh.e_entry;
	return check_shdrs(path, &eh, im->image, im->image_size, err);
}

static int start_libelf(struct img *im, struct ax_error *err)
{
	if (elf_version(EV_CURRENT) == EV_NONE)
		return ax_fail(err, -ENOSYS, "%s: libelf is unusable: %s", im->path,
			       elf_errmsg(-1));
	im->elf = elf_memory((char *)im->image, im->image_size);
	if (!im->elf || elf_kind(im->elf) != ELF_K_ELF)
		return AX_CORRUPT(err, im->path, 0, "damaged ELF file: %s", elf_errmsg(-1));
	return 0;
}

static int load(struct img *im, unsigned int flags, struct ax_error *err)
{
	int ret;

	ret = read_file(im, flags, err);
	if (!ret)
		ret = check_headers(im, flags, err);
	if (!ret)
		ret = start_libelf(im, err);
	if (!ret)
		ret = img_load_phdrs(im, err);
	if (!ret)
		ret = img_load_sections(im, err);
	if (!ret)
		ret = img_load_build_id(im);
	if (!ret)
		ret = img_load_symbols(im, err);
	if (!ret)
		ret = img_load_functions(im, err);
	if (!ret)
		ret = img_load_plt(im, err);
	return ret;
}

int img_open(const char *path, unsigned int flags, struct img **out, struct ax_error *err)
{
	struct img *im;
	int ret;

	if (!path || !out)
		return ax_fail(err, -EINVAL, "img_open: no file given");
	*out = NULL;
	im = calloc(1, sizeof(*im));
	if (!im)
		return ax_fail(err, -ENOMEM, "%s: out of memory", path);
	im->path = strdup(path);
	if (!im->path) {
		ret = ax_fail(err, -ENOMEM, "%s: out of memory", path);
		goto out_close;
	}
	ret = load(im, flags, err);
	if (ret)
		goto out_close;
	*out = im;
	return 0;

out_close:
	img_close(im);
	return ret;
}

void img_close(struct img *im)
{
	if (!im)
		return;
	if (im->elf)
		elf_end(im->elf);
	free(im->funcs);
	free(im->plt);
	free(im->plt_names);
	img_free_symbols(im);
	free(im->secs);
	free(im->interp);
	free(im->segs);
	free(im->image);
	free(im->path);
	free(im);
}

const char *img_path(const struct img *im)
{
	return im->path;
}

uint64_t img_file_size(const struct img *im)
{
	return im->image_size;
}

int64_t img_mtime_ns(const struct img *im)
{
	return im->mtime_ns;
}

unsigned int img_type(const struct img *im)
{
	return im->type;
}

unsigned int img_machine(const struct img *im)
{
	return im->machine;
}

uint64_t img_entry(const struct img *im)
{
	return im->entry;
}
