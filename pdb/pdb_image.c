/* pdb/pdb_image.c - describe an executable image for the index: size, mtime, build-id, key. */
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pdb_int.h"

#define NT_GNU_BUILD_ID_TYPE 3 /* <elf.h> NT_GNU_BUILD_ID, in the "GNU" note namespace */

/* The build-id note of one SHT_NOTE section, if it has one. */
static void find_build_id(Elf_Data *data, struct pdb_image *img)
{
	size_t off = 0, name_off, desc_off;
	GElf_Nhdr nh;

	while ((off = gelf_getnote(data, off, &nh, &name_off, &desc_off)) > 0) {
		if (nh.n_type != NT_GNU_BUILD_ID_TYPE || nh.n_namesz != 4 ||
		    memcmp((const char *)data->d_buf + name_off, "GNU", 4))
			continue;
		if (nh.n_descsz == 0 || nh.n_descsz > PDB_BUILD_ID_MAX)
			continue;
		memcpy(img->build_id, (const uint8_t *)data->d_buf + desc_off, nh.n_descsz);
		img->build_id_len = nh.n_descsz;
		return;
	}
}

/* Executable-section bytes and the build-id of an ELF file (nothing for other files). */
static void read_elf(int fd, struct pdb_image *img)
{
	Elf_Scn *scn = NULL;
	Elf *elf;

	if (elf_version(EV_CURRENT) == EV_NONE)
		return;
	elf = elf_begin(fd, ELF_C_READ, NULL);
	if (!elf)
		return;
	if (elf_kind(elf) != ELF_K_ELF)
		goto out_end;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *data;

		if (!gelf_getshdr(scn, &sh))
			break;
		if ((sh.sh_flags & SHF_EXECINSTR) && sh.sh_type != SHT_NOBITS)
			img->text_size += sh.sh_size;
		if (sh.sh_type == SHT_NOTE && !img->build_id_len) {
			data = elf_getdata(scn, NULL);
			if (data && data->d_buf)
				find_build_id(data, img);
		}
	}
out_end:
	elf_end(elf);
}

int pdb_image_describe(const char *path, struct pdb_image *img, struct ax_error *err)
{
	struct stat st;
	int fd;

	memset(img, 0, sizeof(*img));
	if (strlen(path) > PDB_PATH_MAX)
		return ax_fail(err, -ENAMETOOLONG, "%s: path too long", path);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return ax_syserr(err, -errno, path, "open");
	if (fstat(fd, &st)) {
		int e = -errno;

		close(fd);
		return ax_syserr(err, e, path, "stat");
	}
	img->path = path;
	img->size = (uint64_t)st.st_size;
	img->mtime_ns = (int64_t)st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec;
	if (S_ISREG(st.st_mode))
		read_elf(fd, img);
	close(fd);
	return pdb_image_key(img->key, img->build_id, img->build_id_len, path, img->size,
			     img->mtime_ns);
}
