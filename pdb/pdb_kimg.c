/* pdb/pdb_kimg.c - a merge copies the source's DIR/kernel symbol images it indexes (pdb.h). */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "pdb_int.h"

/*
 * DCPI SOSP'97 §4.3 files kernel samples under the kernel image and its modules. The daemon
 * writes the images it knows by their symbols only to DIR/kernel/KEY/FILE (pdb.h) and indexes
 * them by that absolute path: a merged destination whose index kept the source's path would
 * lose them with the source. So a merge copies each such file into the destination's
 * DIR/kernel/KEY/FILE, in the merge's transaction, and indexes the copy. KEY is the image's
 * key (its build-id), so a file already there holds the same symbols and is kept.
 */

/* The FILE of an index path ".../kernel/KEY/FILE" whose KEY is key, else NULL. */
static const char *kernel_file(const char *path, const char *key)
{
	const char *file = strrchr(path, '/'), *k;
	size_t klen = strlen(key);

	if (!file || !file[1] || strcmp(file + 1, ".") == 0 || strcmp(file + 1, "..") == 0 ||
	    (size_t)(file - path) < klen + 8)
		return NULL;
	k = file - klen;
	if (memcmp(k, key, klen) || memcmp(k - 8, "/kernel/", 8))
		return NULL;
	return file + 1;
}

/* Copy src's DIR/kernel/KEY/FILE into dst's (in dst's transaction); its absolute path to out. */
static int adopt_one(struct pdb_db *dst, struct pdb_db *src, const char *key, const char *file,
		     const char *dst_abs, char *out)
{
	char from[PATH_MAX], to[PATH_MAX];
	void *buf;
	size_t len;
	int err;

	if (snprintf(from, sizeof(from), "%s/kernel/%s/%s", src->dir, key, file) >=
		    (int)sizeof(from) ||
	    snprintf(to, sizeof(to), "%s/kernel/%s/%s", dst->dir, key, file) >= (int)sizeof(to) ||
	    snprintf(out, PATH_MAX, "%s/kernel/%s/%s", dst_abs, key, file) >= PATH_MAX)
		return ax_fail(&dst->err, -ENAMETOOLONG, "%s/kernel/%s/%s: path too long", src->dir,
			       key, file);
	if (pdb_db_exists(dst, to))
		return 0;
	err = pdb_read_file(from, &buf, &len, &dst->err);
	if (err)
		return err;
	snprintf(to, sizeof(to), "%s/kernel", dst->dir);
	err = pdb_tx_mkdir(dst, to);
	snprintf(to, sizeof(to), "%s/kernel/%s", dst->dir, key);
	if (!err)
		err = pdb_tx_mkdir(dst, to);
	snprintf(to, sizeof(to), "%s/kernel/%s/%s", dst->dir, key, file);
	if (!err)
		err = pdb_tx_stage(dst, to, buf, len);
	free(buf);
	return err;
}

int pdb_kimg_adopt(struct pdb_db *dst, struct pdb_db *src, struct pdb_image *list, size_t n)
{
	char *dst_abs = NULL, from[PATH_MAX], path[PATH_MAX];
	struct stat st;
	int err = 0;

	for (size_t i = 0; !err && i < n; i++) {
		const char *file = list[i].path ? kernel_file(list[i].path, list[i].key) : NULL;
		char *p;

		/* Only the source's own copy: a vmlinux the user named stays where it is. */
		if (!file ||
		    snprintf(from, sizeof(from), "%s/kernel/%s/%s", src->dir, list[i].key, file) >=
			    (int)sizeof(from) ||
		    stat(from, &st) || !S_ISREG(st.st_mode))
			continue;
		if (!dst_abs) {
			dst_abs = realpath(dst->dir, NULL);
			if (!dst_abs)
				return ax_syserr(&dst->err, -errno, dst->dir, "realpath");
		}
		err = adopt_one(dst, src, list[i].key, file, dst_abs, path);
		if (err)
			break;
		p = pdb_strdup(path);
		if (!p) {
			err = ax_fail(&dst->err, -ENOMEM, "%s: out of memory", dst->dir);
			break;
		}
		free((char *)list[i].path);
		list[i].path = p;
	}
	free(dst_abs);
	return err;
}
