/* machine/mach_sys_fs.c - Linux/Alpha system calls on files and descriptors, with struct layouts. */
#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdlib.h>
#include <sys/file.h>
#include <sys/ioctl.h>
#include <sys/select.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/uio.h>
#include <termios.h>
#include <unistd.h>

#include "mach_sys.h"

/* Guest descriptors are host descriptors (as in qemu-alpha). */

/* ---------------------------------------------------------------------------------------- */
/* Open flags (asm/fcntl.h: Alpha's values are OSF/1's). */

static const struct {
	uint32_t alpha;
	int host;
} oflags[] = {
	{ 00004, O_NONBLOCK },	  { 00010, O_APPEND },
	{ 01000, O_CREAT },	  { 02000, O_TRUNC },
	{ 04000, O_EXCL },	  { 010000, O_NOCTTY },
	{ 020000, O_ASYNC },	  { 040000, O_DSYNC },
	{ 0100000, O_DIRECTORY }, { 0200000, O_NOFOLLOW },
	{ 02000000, O_DIRECT },	  { 04000000, O_NOATIME },
	{ 010000000, O_CLOEXEC }, { 020000000, O_SYNC & ~O_DSYNC },
	{ 040000000, O_PATH },	  { 0100000000, O_TMPFILE & ~O_DIRECTORY },
};

int mach_oflags_to_host(uint64_t a)
{
	int h = (int)(a & 3);

	for (size_t i = 0; i < sizeof(oflags) / sizeof(oflags[0]); i++)
		if (a & oflags[i].alpha)
			h |= oflags[i].host;
	return h;
}

uint64_t mach_oflags_to_alpha(int h)
{
	uint64_t a = (uint64_t)(h & 3);

	for (size_t i = 0; i < sizeof(oflags) / sizeof(oflags[0]); i++)
		if ((h & oflags[i].host) == oflags[i].host)
			a |= oflags[i].alpha;
	/* the kernel reports O_LARGEFILE on every 64-bit open file */
	return a | 0400000;
}

/* ---------------------------------------------------------------------------------------- */
/* struct stat conversions. */

/* struct stat64 of asm/stat.h (136 bytes). */
struct alpha_stat64 {
	uint64_t st_dev, st_ino, st_rdev;
	int64_t st_size;
	uint64_t st_blocks;
	uint32_t st_mode, st_uid, st_gid, st_blksize, st_nlink, pad0;
	uint64_t st_atime_, st_atime_nsec, st_mtime_, st_mtime_nsec, st_ctime_, st_ctime_nsec;
	int64_t unused[3];
};

/* struct stat of asm/stat.h (80 bytes): the old calls stat/lstat/fstat. */
struct alpha_stat {
	uint32_t st_dev, st_ino, st_mode, st_nlink, st_uid, st_gid, st_rdev;
	int64_t st_size;
	uint64_t st_atime_, st_mtime_, st_ctime_;
	uint32_t st_blksize, st_blocks, st_flags, st_gen;
};

_Static_assert(sizeof(struct alpha_stat64) == 136, "stat64 layout");
_Static_assert(sizeof(struct alpha_stat) == 80, "stat layout");

static int put_stat64(struct mach *m, uint64_t va, const struct stat *st)
{
	struct alpha_stat64 a = {
		.st_dev = st->st_dev,
		.st_ino = st->st_ino,
		.st_rdev = st->st_rdev,
		.st_size = st->st_size,
		.st_blocks = (uint64_t)st->st_blocks,
		.st_mode = st->st_mode,
		.st_uid = st->st_uid,
		.st_gid = st->st_gid,
		.st_blksize = (uint32_t)st->st_blksize,
		.st_nlink = (uint32_t)st->st_nlink,
		.st_atime_ = (uint64_t)st->st_atim.tv_sec,
		.st_atime_nsec = (uint64_t)st->st_atim.tv_nsec,
		.st_mtime_ = (uint64_t)st->st_mtim.tv_sec,
		.st_mtime_nsec = (uint64_t)st->st_mtim.tv_nsec,
		.st_ctime_ = (uint64_t)st->st_ctim.tv_sec,
		.st_ctime_nsec = (uint64_t)st->st_ctim.tv_nsec,
	};
	return mach_mem_write(m->mem, va, &a, sizeof(a));
}

static int put_stat(struct mach *m, uint64_t va, const struct stat *st)
{
	struct alpha_stat a = {
		.st_dev = (uint32_t)st->st_dev,
		.st_ino = (uint32_t)st->st_ino,
		.st_mode = st->st_mode,
		.st_nlink = (uint32_t)st->st_nlink,
		.st_uid = st->st_uid,
		.st_gid = st->st_gid,
		.st_rdev = (uint32_t)st->st_rdev,
		.st_size = st->st_size,
		.st_atime_ = (uint64_t)st->st_atim.tv_sec,
		.st_mtime_ = (uint64_t)st->st_mtim.tv_sec,
		.st_ctime_ = (uint64_t)st->st_ctim.tv_sec,
		.st_blksize = (uint32_t)st->st_blksize,
		.st_blocks = (uint32_t)st->st_blocks,
	};
	if (st->st_ino > UINT32_MAX)
		return -EOVERFLOW;
	return mach_mem_write(m->mem, va, &a, sizeof(a));
}

/* AT_* flags are the generic ones on Alpha; AT_FDCWD is -100. */
static int dirfd_of(uint64_t a)
{
	return (int)(int32_t)a;
}

static int64_t do_fstatat(struct mach *m, int dirfd, uint64_t pathva, uint64_t bufva, int flags,
			  bool is64)
{
	char buf[PATH_MAX];
	const char *path;
	struct stat st;
	int ret = sys_path(m, dirfd, pathva,
			   (flags & AT_SYMLINK_NOFOLLOW) ? MACH_CF_NOFOLLOW : MACH_CF_FOLLOW, buf,
			   sizeof(buf), &path);

	if (ret)
		return ret;
	if (fstatat(dirfd, path, &st, flags))
		return -errno;
	return is64 ? put_stat64(m, bufva, &st) : put_stat(m, bufva, &st);
}

static int64_t sys_stat64(struct mach *m, const uint64_t *a)
{
	return do_fstatat(m, AT_FDCWD, a[0], a[1], 0, true);
}

static int64_t sys_lstat64(struct mach *m, const uint64_t *a)
{
	return do_fstatat(m, AT_FDCWD, a[0], a[1], AT_SYMLINK_NOFOLLOW, true);
}

static int64_t sys_fstatat64(struct mach *m, const uint64_t *a)
{
	return do_fstatat(m, dirfd_of(a[0]), a[1], a[2], (int)a[3], true);
}

static int64_t sys_fstat64(struct mach *m, const uint64_t *a)
{
	struct stat st;

	if (fstat((int)a[0], &st))
		return -errno;
	return put_stat64(m, a[1], &st);
}

static int64_t sys_stat(struct mach *m, const uint64_t *a)
{
	return do_fstatat(m, AT_FDCWD, a[0], a[1], 0, false);
}

static int64_t sys_lstat(struct mach *m, const uint64_t *a)
{
	return do_fstatat(m, AT_FDCWD, a[0], a[1], AT_SYMLINK_NOFOLLOW, false);
}

static int64_t sys_fstat(struct mach *m, const uint64_t *a)
{
	struct stat st;

	if (fstat((int)a[0], &st))
		return -errno;
	return put_stat(m, a[1], &st);
}

/* struct statx is the same on every architecture. */
static int64_t sys_statx(struct mach *m, const uint64_t *a)
{
	char buf[PATH_MAX];
	const char *path;
	void *p;
	int ret = sys_path(m, dirfd_of(a[0]), a[1],
			   ((int)a[2] & AT_SYMLINK_NOFOLLOW) ? MACH_CF_NOFOLLOW : MACH_CF_FOLLOW,
			   buf, sizeof(buf), &path);

	if (ret)
		return ret;
	if (sys_buf(m, a[4], 256, MACH_PROT_W, &p))
		return -EFAULT;
	return sys_ret(syscall(SYS_statx, dirfd_of(a[0]), path, (int)a[2], (unsigned int)a[3], p));
}

/* struct statfs64 of asm-generic/statfs.h with Alpha's 32-bit __statfs_word (88 bytes). */
struct alpha_statfs64 {
	uint32_t f_type, f_bsize;
	uint64_t f_blocks, f_bfree, f_bavail, f_files, f_ffree;
	int32_t f_fsid[2];
	uint32_t f_namelen, f_frsize, f_flags, f_spare[4];
};

/* struct statfs (all 32-bit words, 64 bytes). */
struct alpha_statfs {
	uint32_t f_type, f_bsize, f_blocks, f_bfree, f_bavail, f_files, f_ffree;
	int32_t f_fsid[2];
	uint32_t f_namelen, f_frsize, f_flags, f_spare[4];
};

static int put_statfs(struct mach *m, uint64_t va, const struct statfs *s, bool is64)
{
	struct alpha_statfs64 a = {
		.f_type = (uint32_t)s->f_type,
		.f_bsize = (uint32_t)s->f_bsize,
		.f_blocks = s->f_blocks,
		.f_bfree = s->f_bfree,
		.f_bavail = s->f_bavail,
		.f_files = s->f_files,
		.f_ffree = s->f_ffree,
		.f_namelen = (uint32_t)s->f_namelen,
		.f_frsize = (uint32_t)s->f_frsize,
		.f_flags = (uint32_t)s->f_flags,
	};
	struct alpha_statfs o;

	memcpy(a.f_fsid, &s->f_fsid, sizeof(a.f_fsid));
	if (is64)
		return mach_mem_write(m->mem, va, &a, sizeof(a));
	memset(&o, 0, sizeof(o));
	o.f_type = a.f_type;
	o.f_bsize = a.f_bsize;
	o.f_blocks = (uint32_t)a.f_blocks;
	o.f_bfree = (uint32_t)a.f_bfree;
	o.f_bavail = (uint32_t)a.f_bavail;
	o.f_files = (uint32_t)a.f_files;
	o.f_ffree = (uint32_t)a.f_ffree;
	memcpy(o.f_fsid, a.f_fsid, sizeof(o.f_fsid));
	o.f_namelen = a.f_namelen;
	o.f_frsize = a.f_frsize;
	o.f_flags = a.f_flags;
	return mach_mem_write(m->mem, va, &o, sizeof(o));
}

static int64_t sys_statfs64(struct mach *m, const uint64_t *a)
{
	char buf[PATH_MAX];
	const char *path;
	struct statfs s;
	int ret = sys_path(m, AT_FDCWD, a[0], MACH_CF_FOLLOW, buf, sizeof(buf), &path);

	if (ret)
		return ret;
	if (a[1] != sizeof(struct alpha_statfs64))
		return -EINVAL;
	if (statfs(path, &s))
		return -errno;
	return put_statfs(m, a[2], &s, true);
}

static int64_t sys_fstatfs64(struct mach *m, const uint64_t *a)
{
	struct statfs s;

	if (a[1] != sizeof(struct alpha_statfs64))
		return -EINVAL;
	if (fstatfs((int)a[0], &s))
		return -errno;
	return put_statfs(m, a[2], &s, true);
}

static int64_t sys_statfs(struct mach *m, const uint64_t *a)
{
	char buf[PATH_MAX];
	const char *path;
	struct statfs s;
	int ret = sys_path(m, AT_FDCWD, a[0], MACH_CF_FOLLOW, buf, sizeof(buf), &path);

	if (ret)
		return ret;
	if (statfs(path, &s))
		return -errno;
	return put_statfs(m, a[1], &s, false);
}

static int64_t sys_fstatfs(struct mach *m, const uint64_t *a)
{
	struct statfs s;

	if (fstatfs((int)a[0], &s))
		return -errno;
	return put_statfs(m, a[1], &s, false);
}

/* ---------------------------------------------------------------------------------------- */
/* Opening, reading, writing. */

static int64_t do_openat(struct mach *m, int dirfd, uint64_t pathva, uint64_t flags, uint64_t mode)
{
	char buf[PATH_MAX];
	const char *path;
	int ret = mach_mem_str(m->mem, pathva, PATH_MAX, &path);

	if (ret)
		return ret;
	if (mach_procfs_open(m, path, mach_oflags_to_host(flags), &ret))
		return ret;
	if (m->confine.on && strcmp(path, "/proc/self/exe"))
		return mach_confine_open(m, dirfd, path, mach_oflags_to_host(flags), (mode_t)mode);
	ret = sys_path(m, dirfd, pathva, MACH_CF_FOLLOW, buf, sizeof(buf), &path);
	if (ret)
		return ret;
	return sys_ret(openat(dirfd, path, mach_oflags_to_host(flags), (mode_t)mode));
}

static int64_t sys_open(struct mach *m, const uint64_t *a)
{
	return do_openat(m, AT_FDCWD, a[0], a[1], a[2]);
}

static int64_t sys_openat(struct mach *m, const uint64_t *a)
{
	return do_openat(m, dirfd_of(a[0]), a[1], a[2], a[3]);
}

static int64_t sys_close(struct mach *m, const uint64_t *a)
{
	(void)m;
	return sys_ret(close((int)a[0]));
}

static int64_t sys_close_range(struct mach *m, const uint64_t *a)
{
	(void)m;
	return sys_ret(syscall(SYS_close_range, (unsigned int)a[0], (unsigned int)a[1],
			       (unsigned int)a[2]));
}

static int64_t sys_read(struct mach *m, const uint64_t *a)
{
	void *p;

	if (sys_buf(m, a[1], a[2], MACH_PROT_W, &p))
		return -EFAULT;
	return sys_ret(read((int)a[0], p, a[2]));
}

static int64_t sys_write(struct mach *m, const uint64_t *a)
{
	void *p;

	if (sys_buf(m, a[1], a[2], MACH_PROT_R, &p))
		return -EFAULT;
	return sys_ret(write((int)a[0], p, a[2]));
}

static int64_t sys_pread64(struct mach *m, const uint64_t *a)
{
	void *p;

	if (sys_buf(m, a[1], a[2], MACH_PROT_W, &p))
		return -EFAULT;
	return sys_ret(pread((int)a[0], p, a[2], (off_t)a[3]));
}

static int64_t sys_pwrite64(struct mach *m, const uint64_t *a)
{
	void *p;

	if (sys_buf(m, a[1], a[2], MACH_PROT_R, &p))
		return -EFAULT;
	return sys_ret(pwrite((int)a[0], p, a[2], (off_t)a[3]));
}

#define MAX_IOV 1024 /* UIO_MAXIOV */

/* Build a host iovec array from the guest's (struct iovec is the same layout). */
static int get_iov(struct mach *m, uint64_t va, uint64_t n, unsigned int prot, struct iovec **out)
{
	struct iovec *iov;
	uint64_t g[2];

	if (n > MAX_IOV)
		return -EINVAL;
	iov = calloc(n ? n : 1, sizeof(*iov));
	if (!iov)
		return -ENOMEM;
	for (uint64_t i = 0; i < n; i++) {
		void *p;

		if (mach_mem_read(m->mem, va + 16 * i, g, 16) || sys_buf(m, g[0], g[1], prot, &p)) {
			free(iov);
			return -EFAULT;
		}
		iov[i].iov_base = p;
		iov[i].iov_len = g[1];
	}
	*out = iov;
	return 0;
}

static int64_t do_iov(struct mach *m, const uint64_t *a, bool write, bool positioned)
{
	struct iovec *iov;
	int64_t r;
	int ret = get_iov(m, a[1], a[2], write ? MACH_PROT_R : MACH_PROT_W, &iov);

	if (ret)
		return ret;
	if (positioned)
		r = write ? pwritev((int)a[0], iov, (int)a[2], (off_t)a[3]) :
			    preadv((int)a[0], iov, (int)a[2], (off_t)a[3]);
	else
		r = write ? writev((int)a[0], iov, (int)a[2]) : readv((int)a[0], iov, (int)a[2]);
	r = sys_ret(r);
	free(iov);
	return r;
}

static int64_t sys_readv(struct mach *m, const uint64_t *a)
{
	return do_iov(m, a, false, false);
}

static int64_t sys_writev(struct mach *m, const uint64_t *a)
{
	return do_iov(m, a, true, false);
}

static int64_t sys_preadv(struct mach *m, const uint64_t *a)
{
	return do_iov(m, a, false, true);
}

static int64_t sys_pwritev(struct mach *m, const uint64_t *a)
{
	return do_iov(m, a, true, true);
}

static int64_t sys_lseek(struct mach *m, const uint64_t *a)
{
	off_t r = lseek((int)a[0], (off_t)a[1], (int)a[2]);

	/* lseek forces success (offsets may exceed 2^63 - 4096 on some files). */
	if (r < 0)
		return -errno;
	return sys_force(m, (uint64_t)r);
}

static int64_t sys_sendfile(struct mach *m, const uint64_t *a)
{
	off_t off;
	ssize_t r;

	if (a[2] && mach_mem_read(m->mem, a[2], &off, 8))
		return -EFAULT;
	r = sendfile((int)a[0], (int)a[1], a[2] ? &off : NULL, a[3]);
	if (r >= 0 && a[2])
		mach_mem_write(m->mem, a[2], &off, 8);
	return sys_ret(r);
}

static int64_t sys_copy_file_range(struct mach *m, const uint64_t *a)
{
	(void)m, (void)a;
	return -ENOSYS; /* callers fall back to read/write */
}

/* ---------------------------------------------------------------------------------------- */
/* Descriptors. */

static int64_t sys_dup(struct mach *m, const uint64_t *a)
{
	(void)m;
	return sys_ret(dup((int)a[0]));
}

static int64_t sys_dup2(struct mach *m, const uint64_t *a)
{
	(void)m;
	return sys_ret(dup2((int)a[0], (int)a[1]));
}

static int64_t sys_dup3(struct mach *m, const uint64_t *a)
{
	(void)m;
	if (a[2] & ~(uint64_t)010000000)
		return -EINVAL;
	return sys_ret(dup3((int)a[0], (int)a[1], mach_oflags_to_host(a[2])));
}

static int64_t sys_pipe(struct mach *m, const uint64_t *a)
{
	int fd[2];

	(void)a;
	if (pipe(fd))
		return -errno;
	m->ctx.r[20] = (uint64_t)fd[1];
	return fd[0];
}

static int64_t sys_pipe2(struct mach *m, const uint64_t *a)
{
	int fd[2];
	int32_t v[2];

	if (pipe2(fd, mach_oflags_to_host(a[1])))
		return -errno;
	v[0] = fd[0];
	v[1] = fd[1];
	if (mach_mem_write(m->mem, a[0], v, sizeof(v))) {
		close(fd[0]);
		close(fd[1]);
		return -EFAULT;
	}
	return 0;
}

/* fcntl commands that differ on Alpha (asm/fcntl.h), and struct flock's lock types. */
#define A_F_GETLK 7
#define A_F_SETLK 8
#define A_F_SETLKW 9
#define A_F_SETOWN 5
#define A_F_GETOWN 6
#define A_F_SETSIG 10
#define A_F_GETSIG 11
#define A_F_RDLCK 1
#define A_F_WRLCK 2
#define A_F_UNLCK 8

/* struct flock: short l_type, l_whence; off_t l_start, l_len; pid_t l_pid (as the host's). */
static int64_t do_lock(struct mach *m, int fd, int cmd, uint64_t va)
{
	struct flock fl;
	int ret;

	if (mach_mem_read(m->mem, va, &fl, sizeof(fl)))
		return -EFAULT;
	switch (fl.l_type) {
	case A_F_RDLCK:
		fl.l_type = F_RDLCK;
		break;
	case A_F_WRLCK:
		fl.l_type = F_WRLCK;
		break;
	case A_F_UNLCK:
		fl.l_type = F_UNLCK;
		break;
	default:
		return -EINVAL;
	}
	ret = fcntl(fd, cmd, &fl);
	if (ret)
		return -errno;
	if (cmd == F_GETLK) {
		fl.l_type = fl.l_type == F_RDLCK ? A_F_RDLCK :
			    fl.l_type == F_WRLCK ? A_F_WRLCK :
						   A_F_UNLCK;
		if (mach_mem_write(m->mem, va, &fl, sizeof(fl)))
			return -EFAULT;
	}
	return 0;
}

static int64_t sys_fcntl(struct mach *m, const uint64_t *a)
{
	int fd = (int)a[0];
	int r;

	switch (a[1]) {
	case F_DUPFD:
	case F_DUPFD_CLOEXEC:
		return sys_ret(fcntl(fd, (int)a[1], (int)a[2]));
	case F_GETFD:
		return sys_ret(fcntl(fd, F_GETFD));
	case F_SETFD:
		return sys_ret(fcntl(fd, F_SETFD, (int)a[2]));
	case F_GETFL:
		r = fcntl(fd, F_GETFL);
		return r < 0 ? -errno : (int64_t)mach_oflags_to_alpha(r);
	case F_SETFL:
		return sys_ret(fcntl(fd, F_SETFL, mach_oflags_to_host(a[2])));
	case A_F_GETLK:
		return do_lock(m, fd, F_GETLK, a[2]);
	case A_F_SETLK:
		return do_lock(m, fd, F_SETLK, a[2]);
	case A_F_SETLKW:
		return do_lock(m, fd, F_SETLKW, a[2]);
	case A_F_GETOWN:
		return sys_ret(fcntl(fd, F_GETOWN));
	case A_F_SETOWN:
		return sys_ret(fcntl(fd, F_SETOWN, (int)a[2]));
	case A_F_GETSIG:
	case A_F_SETSIG:
		return -EINVAL;
	case F_GETPIPE_SZ:
	case F_SETPIPE_SZ:
		return sys_ret(fcntl(fd, (int)a[1], (int)a[2]));
	default:
		return -EINVAL;
	}
}

static int64_t sys_flock(struct mach *m, const uint64_t *a)
{
	(void)m;
	return sys_ret(flock((int)a[0], (int)a[1]));
}

/* ---------------------------------------------------------------------------------------- */
/* ioctl: terminals (asm/ioctls.h numbers, asm/termbits.h struct termios). */

#define A_TCGETS 0x402c7413u
#define A_TCSETS 0x802c7414u
#define A_TCSETSW 0x802c7415u
#define A_TCSETSF 0x802c7416u
#define A_TIOCGWINSZ 0x40087468u
#define A_TIOCSWINSZ 0x80087467u
#define A_TIOCGPGRP 0x40047477u
#define A_TIOCSPGRP 0x80047476u
#define A_FIONREAD 0x4004667fu
#define A_FIONBIO 0x8004667eu
#define A_FIOCLEX 0x20006601u
#define A_FIONCLEX 0x20006602u
#define A_TCFLSH 0x2000741fu
#define A_TIOCGSID 0x5429u

/* The kernel's struct termios on Alpha: 4 flag words, c_cc[19], c_line, two speeds. */
struct alpha_termios {
	uint32_t iflag, oflag, cflag, lflag;
	uint8_t cc[19];
	uint8_t line;
	uint32_t ispeed, ospeed;
};

_Static_assert(sizeof(struct alpha_termios) == 44, "termios layout");

struct bitmap {
	uint32_t alpha, host;
};

static const struct bitmap iflag_map[] = {
	{ 0x1, IGNBRK },   { 0x2, BRKINT },	{ 0x4, IGNPAR },   { 0x8, PARMRK },
	{ 0x10, INPCK },   { 0x20, ISTRIP },	{ 0x40, INLCR },   { 0x80, IGNCR },
	{ 0x100, ICRNL },  { 0x200, IXON },	{ 0x400, IXOFF },  { 0x800, IXANY },
	{ 0x1000, IUCLC }, { 0x2000, IMAXBEL }, { 0x4000, IUTF8 },
};
static const struct bitmap oflag_map[] = {
	{ 0x1, OPOST }, { 0x2, ONLCR },	 { 0x4, OLCUC },
	{ 0x8, OCRNL }, { 0x10, ONOCR }, { 0x20, ONLRET },
};
static const struct bitmap cflag_map[] = {
	{ 0x100, CS6 & ~CS5 }, { 0x200, CS7 & ~CS6 }, { 0x400, CSTOPB }, { 0x800, CREAD },
	{ 0x1000, PARENB },    { 0x2000, PARODD },    { 0x4000, HUPCL }, { 0x8000, CLOCAL },
};
static const struct bitmap lflag_map[] = {
	{ 0x1, ECHOKE },      { 0x2, ECHOE },	      { 0x4, ECHOK },	      { 0x8, ECHO },
	{ 0x10, ECHONL },     { 0x20, ECHOPRT },      { 0x40, ECHOCTL },      { 0x80, ISIG },
	{ 0x100, ICANON },    { 0x400, IEXTEN },      { 0x4000, XCASE },      { 0x400000, TOSTOP },
	{ 0x800000, FLUSHO }, { 0x20000000, PENDIN }, { 0x80000000, NOFLSH },
};
/* c_cc indices: Alpha's index -> the host's (asm/termbits.h V*). */
static const struct {
	uint8_t alpha, host;
} cc_map[] = {
	{ 0, VEOF },	{ 1, VEOL },	  { 2, VEOL2 },	   { 3, VERASE },
	{ 4, VWERASE }, { 5, VKILL },	  { 6, VREPRINT }, { 8, VINTR },
	{ 9, VQUIT },	{ 10, VSUSP },	  { 12, VSTART },  { 13, VSTOP },
	{ 14, VLNEXT }, { 15, VDISCARD }, { 16, VMIN },	   { 17, VTIME },
};

static uint32_t map_bits(uint32_t v, const struct bitmap *t, size_t n, bool to_alpha)
{
	uint32_t r = 0;

	for (size_t i = 0; i < n; i++)
		if (v & (to_alpha ? t[i].host : t[i].alpha))
			r |= to_alpha ? t[i].alpha : t[i].host;
	return r;
}

#define NMAP(t) (sizeof(t) / sizeof((t)[0]))

static int64_t tc_get(struct mach *m, int fd, uint64_t va)
{
	struct termios t;
	struct alpha_termios a;

	if (tcgetattr(fd, &t))
		return -errno;
	memset(&a, 0, sizeof(a));
	a.iflag = map_bits(t.c_iflag, iflag_map, NMAP(iflag_map), true);
	a.oflag = map_bits(t.c_oflag, oflag_map, NMAP(oflag_map), true);
	a.cflag = map_bits(t.c_cflag, cflag_map, NMAP(cflag_map), true) | (t.c_cflag & 0xf);
	a.lflag = map_bits(t.c_lflag, lflag_map, NMAP(lflag_map), true);
	for (size_t i = 0; i < NMAP(cc_map); i++)
		a.cc[cc_map[i].alpha] = t.c_cc[cc_map[i].host];
	a.line = t.c_line;
	a.ispeed = (uint32_t)cfgetispeed(&t);
	a.ospeed = (uint32_t)cfgetospeed(&t);
	return mach_mem_write(m->mem, va, &a, sizeof(a));
}

static int64_t tc_set(struct mach *m, int fd, uint64_t va, int when)
{
	struct termios t;
	struct alpha_termios a;

	if (mach_mem_read(m->mem, va, &a, sizeof(a)))
		return -EFAULT;
	if (tcgetattr(fd, &t))
		return -errno;
	t.c_iflag = map_bits(a.iflag, iflag_map, NMAP(iflag_map), false);
	t.c_oflag = map_bits(a.oflag, oflag_map, NMAP(oflag_map), false);
	t.c_cflag = map_bits(a.cflag, cflag_map, NMAP(cflag_map), false) | (a.cflag & 0xf);
	t.c_lflag = map_bits(a.lflag, lflag_map, NMAP(lflag_map), false);
	for (size_t i = 0; i < NMAP(cc_map); i++)
		t.c_cc[cc_map[i].host] = a.cc[cc_map[i].alpha];
	return sys_ret(tcsetattr(fd, when, &t));
}

static int64_t sys_ioctl(struct mach *m, const uint64_t *a)
{
	int fd = (int)a[0];
	uint32_t req = (uint32_t)a[1];
	void *p;
	int v;

	switch (req) {
	case A_TCGETS:
		return tc_get(m, fd, a[2]);
	case A_TCSETS:
		return tc_set(m, fd, a[2], TCSANOW);
	case A_TCSETSW:
		return tc_set(m, fd, a[2], TCSADRAIN);
	case A_TCSETSF:
		return tc_set(m, fd, a[2], TCSAFLUSH);
	case A_TIOCGWINSZ:
		if (sys_buf(m, a[2], sizeof(struct winsize), MACH_PROT_W, &p))
			return -EFAULT;
		return sys_ret(ioctl(fd, TIOCGWINSZ, p));
	case A_TIOCSWINSZ:
		if (sys_buf(m, a[2], sizeof(struct winsize), MACH_PROT_R, &p))
			return -EFAULT;
		return sys_ret(ioctl(fd, TIOCSWINSZ, p));
	case A_TIOCGPGRP:
		if (sys_buf(m, a[2], 4, MACH_PROT_W, &p))
			return -EFAULT;
		return sys_ret(ioctl(fd, TIOCGPGRP, p));
	case A_TIOCSPGRP:
		if (sys_buf(m, a[2], 4, MACH_PROT_R, &p))
			return -EFAULT;
		return sys_ret(ioctl(fd, TIOCSPGRP, p));
	case A_TIOCGSID:
		if (sys_buf(m, a[2], 4, MACH_PROT_W, &p))
			return -EFAULT;
		return sys_ret(ioctl(fd, TIOCGSID, p));
	case A_FIONREAD:
		if (sys_buf(m, a[2], 4, MACH_PROT_W, &p))
			return -EFAULT;
		return sys_ret(ioctl(fd, FIONREAD, p));
	case A_FIONBIO:
		if (mach_mem_read(m->mem, a[2], &v, 4))
			return -EFAULT;
		return sys_ret(ioctl(fd, FIONBIO, &v));
	case A_FIOCLEX:
		return sys_ret(ioctl(fd, FIOCLEX));
	case A_FIONCLEX:
		return sys_ret(ioctl(fd, FIONCLEX));
	case A_TCFLSH:
		return sys_ret(tcflush(fd, (int)a[2]));
	default:
		/* Unknown requests: what a non-terminal answers (after checking the fd). */
		if (fcntl(fd, F_GETFD) < 0)
			return -EBADF;
		return -ENOTTY;
	}
}

/* ---------------------------------------------------------------------------------------- */
/* Names in the file system. */

static int64_t sys_access(struct mach *m, const uint64_t *a)
{
	char buf[PATH_MAX];
	const char *path;
	int ret = sys_path(m, AT_FDCWD, a[0], MACH_CF_FOLLOW, buf, sizeof(buf), &path);

	return ret ? ret : sys_ret(access(path, (int)a[1]));
}

static int64_t sys_faccessat(struct mach *m, const uint64_t *a)
{
	char buf[PATH_MAX];
	const char *path;
	int ret = sys_path(m, dirfd_of(a[0]), a[1], MACH_CF_FOLLOW, buf, sizeof(buf), &path);

	return ret ? ret : sys_ret(faccessat(dirfd_of(a[0]), path, (int)a[2], 0));
}

static int64_t sys_faccessat2(struct mach *m, const uint64_t *a)
{
	char buf[PATH_MAX];
	const char *path;
	int ret = sys_path(m, dirfd_of(a[0]), a[1],
			   ((int)a[3] & AT_SYMLINK_NOFOLLOW) ? MACH_CF_NOFOLLOW : MACH_CF_FOLLOW,
			   buf, sizeof(buf), &path);

	return ret ? ret : sys_ret(faccessat(dirfd_of(a[0]), path, (int)a[2], (int)a[3]));
}

static int64_t sys_getcwd(struct mach *m, const uint64_t *a)
{
	char buf[PATH_MAX];
	size_t n;

	if (m->confine.on)
		snprintf(buf, sizeof(buf), "%s", m->confine.cwd);
	else if (!getcwd(buf, sizeof(buf)))
		return -errno;
	n = strlen(buf) + 1;
	if (n > a[1])
		return -ERANGE;
	if (mach_mem_write(m->mem, a[0], buf, n))
		return -EFAULT;
	return (int64_t)n;
}

static int64_t sys_chdir(struct mach *m, const uint64_t *a)
{
	char buf[PATH_MAX];
	const char *path;
	int ret;

	if (m->confine.on) {
		ret = mach_mem_str(m->mem, a[0], PATH_MAX, &path);
		return ret ? ret : mach_confine_chdir_path(m, path);
	}
	ret = sys_path(m, AT_FDCWD, a[0], MACH_CF_FOLLOW, buf, sizeof(buf), &path);
	return ret ? ret : sys_ret(chdir(path));
}

static int64_t sys_fchdir(struct mach *m, const uint64_t *a)
{
	if (m->confine.on)
		return mach_confine_chdir(m, (int)a[0]);
	return sys_ret(fchdir((int)a[0]));
}

/* Calls taking one or two paths, resolved relative to AT_FDCWD or a directory descriptor. */
static int64_t sys_unlinkat(struct mach *m, const uint64_t *a)
{
	char buf[PATH_MAX];
	const char *path;
	int ret = sys_path(m, dirfd_of(a[0]), a[1], MACH_CF_NOFOLLOW | MACH_CF_WRITE, buf,
			   sizeof(buf), &path);

	return ret ? ret : sys_ret(unlinkat(dirfd_of(a[0]), path, (int)a[2]));
}

static int64_t sys_unlink(struct mach *m, const uint64_t *a)
{
	uint64_t b[3] = { (uint64_t)AT_FDCWD, a[0], 0 };

	return sys_unlinkat(m, b);
}

static int64_t sys_rmdir(struct mach *m, const uint64_t *a)
{
	uint64_t b[3] = { (uint64_t)AT_FDCWD, a[0], AT_REMOVEDIR };

	return sys_unlinkat(m, b);
}

static int64_t sys_mkdirat(struct mach *m, const uint64_t *a)
{
	char buf[PATH_MAX];
	const char *path;
	int ret = sys_path(m, dirfd_of(a[0]), a[1], MACH_CF_NOFOLLOW | MACH_CF_WRITE, buf,
			   sizeof(buf), &path);

	return ret ? ret : sys_ret(mkdirat(dirfd_of(a[0]), path, (mode_t)a[2]));
}

static int64_t sys_mkdir(struct mach *m, const uint64_t *a)
{
	uint64_t b[3] = { (uint64_t)AT_FDCWD, a[0], a[1] };

	return sys_mkdirat(m, b);
}

static int64_t sys_renameat2(struct mach *m, const uint64_t *a)
{
	char b1[PATH_MAX], b2[PATH_MAX];
	const char *p1, *p2;
	int ret = sys_path(m, dirfd_of(a[0]), a[1], MACH_CF_NOFOLLOW | MACH_CF_WRITE, b1,
			   sizeof(b1), &p1);

	if (!ret)
		ret = sys_path(m, dirfd_of(a[2]), a[3], MACH_CF_NOFOLLOW | MACH_CF_WRITE, b2,
			       sizeof(b2), &p2);
	if (ret)
		return ret;
	return sys_ret(renameat2(dirfd_of(a[0]), p1, dirfd_of(a[2]), p2, (unsigned int)a[4]));
}

static int64_t sys_renameat(struct mach *m, const uint64_t *a)
{
	uint64_t b[5] = { a[0], a[1], a[2], a[3], 0 };

	return sys_renameat2(m, b);
}

static int64_t sys_rename(struct mach *m, const uint64_t *a)
{
	uint64_t b[5] = { (uint64_t)AT_FDCWD, a[0], (uint64_t)AT_FDCWD, a[1], 0 };

	return sys_renameat2(m, b);
}

static int64_t sys_linkat(struct mach *m, const uint64_t *a)
{
	char b1[PATH_MAX], b2[PATH_MAX];
	const char *p1, *p2;
	int ret = sys_path(m, dirfd_of(a[0]), a[1],
			   (((int)a[4] & AT_SYMLINK_FOLLOW) ? MACH_CF_FOLLOW : MACH_CF_NOFOLLOW) |
				   MACH_CF_WRITE,
			   b1, sizeof(b1), &p1);

	if (!ret)
		ret = sys_path(m, dirfd_of(a[2]), a[3], MACH_CF_NOFOLLOW | MACH_CF_WRITE, b2,
			       sizeof(b2), &p2);
	if (ret)
		return ret;
	return sys_ret(linkat(dirfd_of(a[0]), p1, dirfd_of(a[2]), p2, (int)a[4]));
}

static int64_t sys_link(struct mach *m, const uint64_t *a)
{
	uint64_t b[5] = { (uint64_t)AT_FDCWD, a[0], (uint64_t)AT_FDCWD, a[1], 0 };

	return sys_linkat(m, b);
}

static int64_t sys_symlinkat(struct mach *m, const uint64_t *a)
{
	char b2[PATH_MAX];
	const char *target, *p2;
	int ret = mach_mem_str(m->mem, a[0], PATH_MAX, &target);

	if (!ret)
		ret = sys_path(m, dirfd_of(a[1]), a[2], MACH_CF_NOFOLLOW | MACH_CF_WRITE, b2,
			       sizeof(b2), &p2);
	if (ret)
		return ret;
	return sys_ret(symlinkat(target, dirfd_of(a[1]), p2));
}

static int64_t sys_symlink(struct mach *m, const uint64_t *a)
{
	uint64_t b[3] = { a[0], (uint64_t)AT_FDCWD, a[1] };

	return sys_symlinkat(m, b);
}

static int64_t sys_readlinkat(struct mach *m, const uint64_t *a)
{
	char buf[PATH_MAX], out[PATH_MAX];
	const char *path, *s;
	ssize_t n;
	int ret = mach_mem_str(m->mem, a[1], PATH_MAX, &s);

	if (ret)
		return ret;
	path = mach_procfs_link(m, s);
	if (path) {
		n = (ssize_t)strlen(path);
		memcpy(out, path, (size_t)n);
	} else {
		if (m->confine.on) {
			ret = mach_confine_path(m, dirfd_of(a[0]), s, MACH_CF_NOFOLLOW, buf,
						sizeof(buf), &path);
			if (ret)
				return ret;
		} else {
			path = mach_path(m, s, buf, sizeof(buf));
		}
		n = readlinkat(dirfd_of(a[0]), path, out, sizeof(out));
		if (n < 0)
			return -errno;
	}
	if ((int64_t)a[3] <= 0)
		return -EINVAL;
	if ((uint64_t)n > a[3])
		n = (ssize_t)a[3];
	if (mach_mem_write(m->mem, a[2], out, (uint64_t)n))
		return -EFAULT;
	return n;
}

static int64_t sys_readlink(struct mach *m, const uint64_t *a)
{
	uint64_t b[4] = { (uint64_t)AT_FDCWD, a[0], a[1], a[2] };

	return sys_readlinkat(m, b);
}

static int64_t sys_fchmodat(struct mach *m, const uint64_t *a)
{
	char buf[PATH_MAX];
	const char *path;
	int ret = sys_path(m, dirfd_of(a[0]), a[1], MACH_CF_WRITE, buf, sizeof(buf), &path);

	return ret ? ret : sys_ret(fchmodat(dirfd_of(a[0]), path, (mode_t)a[2], 0));
}

static int64_t sys_chmod(struct mach *m, const uint64_t *a)
{
	uint64_t b[3] = { (uint64_t)AT_FDCWD, a[0], a[1] };

	return sys_fchmodat(m, b);
}

static int64_t sys_fchmod(struct mach *m, const uint64_t *a)
{
	(void)m;
	return sys_ret(fchmod((int)a[0], (mode_t)a[1]));
}

static int64_t sys_fchownat(struct mach *m, const uint64_t *a)
{
	char buf[PATH_MAX];
	const char *path;
	int ret = sys_path(m, dirfd_of(a[0]), a[1],
			   (((int)a[4] & AT_SYMLINK_NOFOLLOW) ? MACH_CF_NOFOLLOW : MACH_CF_FOLLOW) |
				   MACH_CF_WRITE,
			   buf, sizeof(buf), &path);

	if (ret)
		return ret;
	return sys_ret(fchownat(dirfd_of(a[0]), path, (uid_t)a[2], (gid_t)a[3], (int)a[4]));
}

static int64_t sys_chown(struct mach *m, const uint64_t *a)
{
	uint64_t b[5] = { (uint64_t)AT_FDCWD, a[0], a[1], a[2], 0 };

	return sys_fchownat(m, b);
}

static int64_t sys_lchown(struct mach *m, const uint64_t *a)
{
	uint64_t b[5] = { (uint64_t)AT_FDCWD, a[0], a[1], a[2], AT_SYMLINK_NOFOLLOW };

	return sys_fchownat(m, b);
}

static int64_t sys_fchown(struct mach *m, const uint64_t *a)
{
	(void)m;
	return sys_ret(fchown((int)a[0], (uid_t)a[1], (gid_t)a[2]));
}

static int64_t sys_truncate(struct mach *m, const uint64_t *a)
{
	char buf[PATH_MAX];
	const char *path;
	int ret = sys_path(m, AT_FDCWD, a[0], MACH_CF_WRITE, buf, sizeof(buf), &path);

	return ret ? ret : sys_ret(truncate(path, (off_t)a[1]));
}

static int64_t sys_ftruncate(struct mach *m, const uint64_t *a)
{
	(void)m;
	return sys_ret(ftruncate((int)a[0], (off_t)a[1]));
}

static int64_t sys_fsync(struct mach *m, const uint64_t *a)
{
	(void)m;
	return sys_ret(fsync((int)a[0]));
}

static int64_t sys_fdatasync(struct mach *m, const uint64_t *a)
{
	(void)m;
	return sys_ret(fdatasync((int)a[0]));
}

static int64_t sys_sync(struct mach *m, const uint64_t *a)
{
	(void)m, (void)a;
	sync();
	return 0;
}

static int64_t sys_fadvise64(struct mach *m, const uint64_t *a)
{
	(void)m, (void)a;
	return 0;
}

static int64_t sys_fallocate(struct mach *m, const uint64_t *a)
{
	(void)m;
	return sys_ret(fallocate((int)a[0], (int)a[1], (off_t)a[2], (off_t)a[3]));
}

static int64_t sys_utimensat(struct mach *m, const uint64_t *a)
{
	char buf[PATH_MAX];
	const char *path = NULL;
	struct timespec ts[2];
	int ret;

	if (a[1]) {
		ret = sys_path(
			m, dirfd_of(a[0]), a[1],
			(((int)a[3] & AT_SYMLINK_NOFOLLOW) ? MACH_CF_NOFOLLOW : MACH_CF_FOLLOW) |
				MACH_CF_WRITE,
			buf, sizeof(buf), &path);
		if (ret)
			return ret;
	}
	if (a[2] && mach_mem_read(m->mem, a[2], ts, sizeof(ts)))
		return -EFAULT;
	return sys_ret(syscall(SYS_utimensat, dirfd_of(a[0]), path, a[2] ? ts : NULL, (int)a[3]));
}

static int64_t sys_utimes(struct mach *m, const uint64_t *a)
{
	char buf[PATH_MAX];
	const char *path;
	struct timeval tv[2];
	int ret = sys_path(m, AT_FDCWD, a[0], MACH_CF_WRITE, buf, sizeof(buf), &path);

	if (ret)
		return ret;
	if (a[1] && mach_mem_read(m->mem, a[1], tv, sizeof(tv)))
		return -EFAULT;
	return sys_ret(utimes(path, a[1] ? tv : NULL));
}

/* struct linux_dirent64 and (64-bit) struct linux_dirent are the host's layouts. */
static int64_t sys_getdents64(struct mach *m, const uint64_t *a)
{
	void *p;

	if (sys_buf(m, a[1], a[2], MACH_PROT_W, &p))
		return -EFAULT;
	return sys_ret(syscall(SYS_getdents64, (int)a[0], p, (unsigned int)a[2]));
}

static int64_t sys_getdents(struct mach *m, const uint64_t *a)
{
	void *p;

	if (sys_buf(m, a[1], a[2], MACH_PROT_W, &p))
		return -EFAULT;
	return sys_ret(syscall(SYS_getdents, (int)a[0], p, (unsigned int)a[2]));
}

/* ---------------------------------------------------------------------------------------- */
/* Waiting for descriptors (struct pollfd, fd_set and timespec/timeval are the host's). */

static int64_t sys_poll(struct mach *m, const uint64_t *a)
{
	void *p;

	if (sys_buf(m, a[0], a[1] * sizeof(struct pollfd), MACH_PROT_W, &p))
		return -EFAULT;
	return sys_ret(poll(p, (nfds_t)a[1], (int)a[2]));
}

/* ppoll: the signal mask argument is not applied (signals are delivered after the call). */
static int64_t sys_ppoll(struct mach *m, const uint64_t *a)
{
	struct timespec ts;
	void *p;

	if (sys_buf(m, a[0], a[1] * sizeof(struct pollfd), MACH_PROT_W, &p))
		return -EFAULT;
	if (a[2] && mach_mem_read(m->mem, a[2], &ts, sizeof(ts)))
		return -EFAULT;
	return sys_ret(ppoll(p, (nfds_t)a[1], a[2] ? &ts : NULL, NULL));
}

static int get_fdset(struct mach *m, uint64_t va, int n, fd_set **out)
{
	void *p;

	*out = NULL;
	if (!va)
		return 0;
	if (n < 0 || n > FD_SETSIZE)
		return -EINVAL;
	if (sys_buf(m, va, (uint64_t)(n + 63) / 64 * 8, MACH_PROT_W, &p))
		return -EFAULT;
	*out = p; /* only the first n bits are looked at by the kernel */
	return 0;
}

static int64_t do_select(struct mach *m, const uint64_t *a, bool is_pselect)
{
	fd_set *r, *w, *e;
	int n = (int)a[0], ret;

	if ((ret = get_fdset(m, a[1], n, &r)) || (ret = get_fdset(m, a[2], n, &w)) ||
	    (ret = get_fdset(m, a[3], n, &e)))
		return ret;
	if (is_pselect) {
		struct timespec ts;

		if (a[4] && mach_mem_read(m->mem, a[4], &ts, sizeof(ts)))
			return -EFAULT;
		return sys_ret(pselect(n, r, w, e, a[4] ? &ts : NULL, NULL));
	} else {
		struct timeval tv;
		int64_t res;

		if (a[4] && mach_mem_read(m->mem, a[4], &tv, sizeof(tv)))
			return -EFAULT;
		res = sys_ret(select(n, r, w, e, a[4] ? &tv : NULL));
		if (a[4])
			mach_mem_write(m->mem, a[4], &tv, sizeof(tv));
		return res;
	}
}

static int64_t sys_select(struct mach *m, const uint64_t *a)
{
	return do_select(m, a, false);
}

static int64_t sys_pselect6(struct mach *m, const uint64_t *a)
{
	return do_select(m, a, true);
}

static int64_t sys_mknodat(struct mach *m, const uint64_t *a)
{
	char buf[PATH_MAX];
	const char *path;
	int ret = sys_path(m, dirfd_of(a[0]), a[1], MACH_CF_NOFOLLOW | MACH_CF_WRITE, buf,
			   sizeof(buf), &path);

	return ret ? ret : sys_ret(mknodat(dirfd_of(a[0]), path, (mode_t)a[2], (dev_t)a[3]));
}

static int64_t sys_mknod(struct mach *m, const uint64_t *a)
{
	uint64_t b[4] = { (uint64_t)AT_FDCWD, a[0], a[1], a[2] };

	return sys_mknodat(m, b);
}

static int64_t sys_readahead(struct mach *m, const uint64_t *a)
{
	(void)m, (void)a;
	return 0;
}

/* eventfd2(count, flags): EFD_CLOEXEC and EFD_NONBLOCK are O_CLOEXEC and O_NONBLOCK. */
static int64_t sys_eventfd2(struct mach *m, const uint64_t *a)
{
	(void)m;
	return sys_ret(syscall(SYS_eventfd2, (unsigned int)a[0], mach_oflags_to_host(a[1])));
}

static int64_t sys_memfd_create(struct mach *m, const uint64_t *a)
{
	const char *name;
	int ret = mach_mem_str(m->mem, a[0], 250, &name);

	/* MFD_CLOEXEC 1, MFD_ALLOW_SEALING 2: the generic values. */
	return ret ? ret : sys_ret(syscall(SYS_memfd_create, name, (unsigned int)a[1] & 3));
}

void mach_sys_fs_table(mach_sys_fn *t)
{
	t[MACH_NR_mknod] = sys_mknod;
	t[MACH_NR_mknodat] = sys_mknodat;
	t[MACH_NR_readahead] = sys_readahead;
	t[MACH_NR_eventfd2] = sys_eventfd2;
	t[MACH_NR_memfd_create] = sys_memfd_create;
	t[MACH_NR_read] = sys_read;
	t[MACH_NR_write] = sys_write;
	t[MACH_NR_open] = sys_open;
	t[MACH_NR_openat] = sys_openat;
	t[MACH_NR_close] = sys_close;
	t[MACH_NR_close_range] = sys_close_range;
	t[MACH_NR_pread64] = sys_pread64;
	t[MACH_NR_pwrite64] = sys_pwrite64;
	t[MACH_NR_readv] = sys_readv;
	t[MACH_NR_writev] = sys_writev;
	t[MACH_NR_preadv] = sys_preadv;
	t[MACH_NR_pwritev] = sys_pwritev;
	t[MACH_NR_lseek] = sys_lseek;
	t[MACH_NR_sendfile] = sys_sendfile;
	t[MACH_NR_copy_file_range] = sys_copy_file_range;
	t[MACH_NR_dup] = sys_dup;
	t[MACH_NR_dup2] = sys_dup2;
	t[MACH_NR_dup3] = sys_dup3;
	t[MACH_NR_pipe] = sys_pipe;
	t[MACH_NR_pipe2] = sys_pipe2;
	t[MACH_NR_fcntl] = sys_fcntl;
	t[MACH_NR_flock] = sys_flock;
	t[MACH_NR_ioctl] = sys_ioctl;
	t[MACH_NR_stat] = sys_stat;
	t[MACH_NR_lstat] = sys_lstat;
	t[MACH_NR_fstat] = sys_fstat;
	t[MACH_NR_stat64] = sys_stat64;
	t[MACH_NR_lstat64] = sys_lstat64;
	t[MACH_NR_fstat64] = sys_fstat64;
	t[MACH_NR_fstatat64] = sys_fstatat64;
	t[MACH_NR_statx] = sys_statx;
	t[MACH_NR_statfs] = sys_statfs;
	t[MACH_NR_fstatfs] = sys_fstatfs;
	t[MACH_NR_statfs64] = sys_statfs64;
	t[MACH_NR_fstatfs64] = sys_fstatfs64;
	t[MACH_NR_access] = sys_access;
	t[MACH_NR_faccessat] = sys_faccessat;
	t[MACH_NR_faccessat2] = sys_faccessat2;
	t[MACH_NR_getcwd] = sys_getcwd;
	t[MACH_NR_chdir] = sys_chdir;
	t[MACH_NR_fchdir] = sys_fchdir;
	t[MACH_NR_unlink] = sys_unlink;
	t[MACH_NR_unlinkat] = sys_unlinkat;
	t[MACH_NR_rmdir] = sys_rmdir;
	t[MACH_NR_mkdir] = sys_mkdir;
	t[MACH_NR_mkdirat] = sys_mkdirat;
	t[MACH_NR_rename] = sys_rename;
	t[MACH_NR_renameat] = sys_renameat;
	t[MACH_NR_renameat2] = sys_renameat2;
	t[MACH_NR_link] = sys_link;
	t[MACH_NR_linkat] = sys_linkat;
	t[MACH_NR_symlink] = sys_symlink;
	t[MACH_NR_symlinkat] = sys_symlinkat;
	t[MACH_NR_readlink] = sys_readlink;
	t[MACH_NR_readlinkat] = sys_readlinkat;
	t[MACH_NR_chmod] = sys_chmod;
	t[MACH_NR_fchmod] = sys_fchmod;
	t[MACH_NR_fchmodat] = sys_fchmodat;
	t[MACH_NR_chown] = sys_chown;
	t[MACH_NR_lchown] = sys_lchown;
	t[MACH_NR_fchown] = sys_fchown;
	t[MACH_NR_fchownat] = sys_fchownat;
	t[MACH_NR_truncate] = sys_truncate;
	t[MACH_NR_ftruncate] = sys_ftruncate;
	t[MACH_NR_fsync] = sys_fsync;
	t[MACH_NR_fdatasync] = sys_fdatasync;
	t[MACH_NR_sync] = sys_sync;
	t[MACH_NR_fadvise64] = sys_fadvise64;
	t[MACH_NR_fallocate] = sys_fallocate;
	t[MACH_NR_utimensat] = sys_utimensat;
	t[MACH_NR_utimes] = sys_utimes;
	t[MACH_NR_getdents] = sys_getdents;
	t[MACH_NR_getdents64] = sys_getdents64;
	t[MACH_NR_poll] = sys_poll;
	t[MACH_NR_ppoll] = sys_ppoll;
	t[MACH_NR_select] = sys_select;
	t[MACH_NR_pselect6] = sys_pselect6;
}
