/* pdb/pdb_io.c - profile database I/O: whole-file reads, temp + fsync + rename replacement. */
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "pdb_int.h"

/* The largest file a reader accepts: a header and an incompressible largest payload. */
#define FILE_MAX (PDB_HEADER_SIZE + PDB_PAYLOAD_MAX)

int pdb_read_file(const char *path, void **buf, size_t *len, struct ax_error *err)
{
	struct stat st;
	size_t size, got = 0;
	uint8_t *b = NULL;
	int fd, ret;

	*buf = NULL;
	*len = 0;
	ret = pdb_fault(PDB_OP_OPEN, path);
	if (ret)
		return ax_syserr(err, ret, path, "open");
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return ax_syserr(err, -errno, path, "open");
	if (fstat(fd, &st)) {
		ret = ax_syserr(err, -errno, path, "stat");
		goto out_close;
	}
	if (!S_ISREG(st.st_mode)) {
		ret = AX_CORRUPT(err, path, 0, "not a regular file");
		goto out_close;
	}
	if ((uint64_t)st.st_size > FILE_MAX) {
		ret = AX_CORRUPT(err, path, FILE_MAX, "file larger than any valid one (%llu bytes)",
				 (unsigned long long)st.st_size);
		goto out_close;
	}
	size = (size_t)st.st_size;
	b = pdb_malloc(size);
	if (!b) {
		ret = ax_fail(err, -ENOMEM, "%s: out of memory for %zu bytes", path, size);
		goto out_close;
	}
	while (got < size) {
		ssize_t r;

		ret = pdb_fault(PDB_OP_READ, path);
		if (ret) {
			ax_syserr(err, ret, path, "read");
			goto out_free;
		}
		r = read(fd, b + got, size - got);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			ret = ax_syserr(err, -errno, path, "read");
			goto out_free;
		}
		if (r == 0)
			break; /* shorter than fstat said: the parser reports the truncation */
		got += (size_t)r;
	}
	*buf = b;
	*len = got;
	close(fd);
	return 0;
out_free:
	free(b);
out_close:
	close(fd);
	return ret;
}

bool pdb_is_temp_name(const char *name)
{
	return name[0] == '.' && strstr(name, ".tmp.") != NULL;
}

/* Split path into its directory (into dir[PATH_MAX]) and its last component. */
static const char *split_path(const char *path, char *dir)
{
	const char *slash = strrchr(path, '/');

	if (!slash) {
		strcpy(dir, ".");
		return path;
	}
	if (slash == path) {
		strcpy(dir, "/");
	} else {
		memcpy(dir, path, (size_t)(slash - path));
		dir[slash - path] = 0;
	}
	return slash + 1;
}

static int write_all(int fd, const void *buf, size_t len, const char *path, struct ax_error *err)
{
	const uint8_t *p = buf;
	int ret;

	while (len) {
		ssize_t w;

		ret = pdb_fault(PDB_OP_WRITE, path);
		if (ret)
			return ax_syserr(err, ret, path, "write");
		w = write(fd, p, len);
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			return ax_syserr(err, -errno, path, "write");
		p += w;
		len -= (size_t)w;
	}
	return 0;
}

int pdb_write_temp(const char *path, const void *buf, size_t len, char *tmp, struct ax_error *err)
{
	static unsigned int seq;
	char dir[PATH_MAX];
	const char *base;
	int fd = -1, ret, tries;

	if (strlen(path) >= PATH_MAX - 32)
		return ax_fail(err, -ENAMETOOLONG, "%s: path too long", path);
	base = split_path(path, dir);
	for (tries = 0; tries < 100; tries++) {
		struct timespec ts;

		unsigned int r;

		clock_gettime(CLOCK_MONOTONIC, &ts);
		r = ((unsigned int)getpid() * 2654435761u) ^ (seq++ * 40503u) ^
		    (unsigned int)ts.tv_nsec;
		if (snprintf(tmp, PATH_MAX, "%s/.%s.tmp.%06x", dir, base, r & 0xffffff) >= PATH_MAX)
			return ax_fail(err, -ENAMETOOLONG, "%s: path too long", path);
		ret = pdb_fault(PDB_OP_OPEN, tmp);
		if (ret)
			return ax_syserr(err, ret, tmp, "create");
		fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
		if (fd >= 0 || errno != EEXIST)
			break;
	}
	if (fd < 0)
		return ax_syserr(err, -errno, tmp, "create");
	ret = write_all(fd, buf, len, tmp, err);
	if (ret)
		goto out_unlink;
	ret = pdb_fault(PDB_OP_FSYNC, tmp);
	if (!ret && fsync(fd))
		ret = -errno;
	if (ret) {
		ax_syserr(err, ret, tmp, "fsync");
		goto out_unlink;
	}
	ret = close(fd) ? -errno : 0;
	fd = -1;
	if (ret) {
		ax_syserr(err, ret, tmp, "close");
		goto out_unlink;
	}
	return 0;
out_unlink:
	if (fd >= 0)
		close(fd);
	unlink(tmp);
	return ret;
}

int pdb_rename(const char *from, const char *to, struct ax_error *err)
{
	int ret = pdb_fault(PDB_OP_RENAME, to);

	if (!ret && rename(from, to))
		ret = -errno;
	return ret ? ax_fail(err, ret, "%s: rename from %s: %s", to, from, strerror(-ret)) : 0;
}

int pdb_unlink(const char *path, struct ax_error *err)
{
	int ret = pdb_fault(PDB_OP_UNLINK, path);

	if (!ret && unlink(path) && errno != ENOENT)
		ret = -errno;
	return ret ? ax_syserr(err, ret, path, "unlink") : 0;
}

int pdb_fsync_dir(const char *path, struct ax_error *err)
{
	int fd, ret;

	ret = pdb_fault(PDB_OP_FSYNC, path);
	if (ret)
		return ax_syserr(err, ret, path, "fsync");
	fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return ax_syserr(err, -errno, path, "open");
	ret = fsync(fd) ? -errno : 0;
	close(fd);
	/* Some file systems cannot fsync a directory; the rename is done all the same. */
	if (ret == -EINVAL)
		ret = 0;
	return ret ? ax_syserr(err, ret, path, "fsync") : 0;
}

int pdb_mkdir(const char *path, struct ax_error *err)
{
	char parent[PATH_MAX];
	struct stat st;
	int ret;

	if (strlen(path) >= PATH_MAX)
		return ax_fail(err, -ENAMETOOLONG, "%s: path too long", path);
	ret = pdb_fault(PDB_OP_MKDIR, path);
	if (ret)
		return ax_syserr(err, ret, path, "mkdir");
	if (mkdir(path, 0755)) {
		ret = -errno;
		if (ret == -EEXIST && !stat(path, &st) && S_ISDIR(st.st_mode))
			return 0;
		return ax_syserr(err, ret, path, "mkdir");
	}
	split_path(path, parent);
	return pdb_fsync_dir(parent, err);
}

int pdb_replace_file(const char *path, const void *buf, size_t len, struct ax_error *err)
{
	char tmp[PATH_MAX], dir[PATH_MAX];
	int ret;

	ret = pdb_write_temp(path, buf, len, tmp, err);
	if (ret)
		return ret;
	ret = pdb_rename(tmp, path, err);
	if (ret) {
		unlink(tmp);
		return ret;
	}
	split_path(path, dir);
	return pdb_fsync_dir(dir, err);
}
