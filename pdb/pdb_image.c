/* pdb/pdb_image.c - describe an executable image for the index: size, mtime, build-id, key. */
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "img.h"
#include "pdb_int.h"

/*
 * Executable-section bytes and the build-id of an ELF file, through image/ (any machine: the
 * daemon describes whatever ran). Files image/ does not accept (not ELF64, damaged) are
 * described by path, size and mtime only, as any other file.
 */
static void read_elf(const char *path, struct pdb_image *img)
{
	const uint8_t *id;
	struct img *im;
	size_t len;

	if (img_open(path, IMG_ANY_MACHINE, &im, NULL))
		return;
	img->text_size = img_text_size(im);
	id = img_build_id(im, &len);
	if (id && len <= PDB_BUILD_ID_MAX) {
		memcpy(img->build_id, id, len);
		img->build_id_len = (uint32_t)len;
	}
	img_close(im);
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
	close(fd);
	if (S_ISREG(st.st_mode))
		read_elf(path, img);
	return pdb_image_key(img->key, img->build_id, img->build_id_len, path, img->size,
			     img->mtime_ns);
}
