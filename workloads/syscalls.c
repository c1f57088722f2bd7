/* workloads/syscalls.c - exercise the system calls ordinary programs make; deterministic output. */
/*
 * Files (mkdir, open, write, writev, close, stat, fstat, lseek, read, pread, mmap of a file, unlink,
 * rmdir, chdir, getcwd, umask), memory (mmap, mprotect, munmap, brk through malloc of small blocks,
 * mmap through malloc of a large one), processes and time (getpid, getppid, getuid, geteuid, uname,
 * gettimeofday, clock_gettime, nanosleep, time), signals (rt_sigaction, rt_sigprocmask,
 * rt_sigpending, raise = getpid + tgkill), and pipe, dup2, fcntl (FD_CLOEXEC, O_NONBLOCK), with
 * Alpha errno values checked by name (EAGAIN, ENOENT, EBADF). Only facts that do not depend on the
 * time, the process or the emulator are printed: no pids, times, addresses, paths or kernel release.
 *
 * Usage: syscalls [DIR]   (a scratch directory is made in DIR, else $TMPDIR, else /tmp, and removed)
 * Output: one line per check, "name: value"; then exit status 3 ON PURPOSE, so runners see a
 * nonzero status passed through. A failing call prints "FAIL: what: strerror" and exits 1.
 * Not instruction-heavy: about 1 M instructions, most in glibc.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/uio.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "wl.h"

#define SC_EXIT_STATUS 3

static volatile sig_atomic_t usr1_count, usr2_count;

static void on_usr1(int sig)
{
	(void)sig;
	usr1_count++;
}

static void on_usr2(int sig)
{
	(void)sig;
	usr2_count++;
}

static void fail(const char *what)
{
	printf("FAIL: %s: %s\n", what, strerror(errno));
	exit(1);
}

static const char *yes(int cond)
{
	return cond ? "yes" : "no";
}

static const char sc_text[] = "The quick brown fox jumps over the lazy dog.\n";

/* check_files - create, write, stat, read, seek and map a file in @dir. */
static void check_files(const char *dir)
{
	char path[4096 + 16], buf[256];
	struct iovec iov[2];
	struct stat st;
	size_t len = strlen(sc_text);
	ssize_t n;
	off_t off;
	char *map;
	int fd;

	snprintf(path, sizeof(path), "%s/data.txt", dir);
	fd = open(path, O_CREAT | O_WRONLY | O_TRUNC, 0644);
	if (fd < 0)
		fail("open for writing");
	if (write(fd, sc_text, len) != (ssize_t)len)
		fail("write");
	iov[0].iov_base = (void *)sc_text;
	iov[0].iov_len = 4;
	iov[1].iov_base = (void *)"#end\n";
	iov[1].iov_len = 5;
	if (writev(fd, iov, 2) != 9)
		fail("writev");
	if (close(fd) != 0)
		fail("close");

	if (stat(path, &st) != 0)
		fail("stat");
	printf("stat: regular=%s size=%lld mode=%04o\n", yes(S_ISREG(st.st_mode)),
	       (long long)st.st_size, (unsigned)(st.st_mode & 07777));

	fd = open(path, O_RDONLY);
	if (fd < 0)
		fail("open for reading");
	if (fstat(fd, &st) != 0)
		fail("fstat");
	printf("fstat: size=%lld regular=%s\n", (long long)st.st_size, yes(S_ISREG(st.st_mode)));
	n = read(fd, buf, sizeof(buf) - 1);
	if (n < 0)
		fail("read");
	buf[n] = '\0';
	printf("read: bytes=%zd same=%s tail=%s", n,
	       yes((size_t)n == len + 9 && memcmp(buf, sc_text, len) == 0), buf + len);
	off = lseek(fd, 10, SEEK_SET);
	n = read(fd, buf, 5);
	buf[n > 0 ? n : 0] = '\0';
	printf("lseek: set=%lld read5=\"%s\"", (long long)off, buf);
	printf(" cur=%lld", (long long)lseek(fd, 0, SEEK_CUR));
	printf(" end=%lld\n", (long long)lseek(fd, 0, SEEK_END));
	n = pread(fd, buf, 3, 4);
	buf[n > 0 ? n : 0] = '\0';
	printf("pread: \"%s\" offset-after=%lld\n", buf, (long long)lseek(fd, 0, SEEK_CUR));
	map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (map == MAP_FAILED)
		fail("mmap of the file");
	printf("mmap file: first=\"%.9s\" last=%d\n", map, map[st.st_size - 1]);
	if (munmap(map, (size_t)st.st_size) != 0)
		fail("munmap of the file");
	if (close(fd) != 0)
		fail("close");
	errno = 0;
	printf("close twice: fails=%s EBADF=%s\n", yes(close(fd) == -1), yes(errno == EBADF));
	errno = 0;
	printf("open missing: fails=%s ENOENT=%s\n", yes(open("/nonexistent/x", O_RDONLY) == -1),
	       yes(errno == ENOENT));
	if (unlink(path) != 0)
		fail("unlink");
	printf("unlink: gone=%s\n", yes(stat(path, &st) == -1 && errno == ENOENT));
}

/* check_memory - anonymous mmap, mprotect, munmap; malloc through brk and through mmap. */
static void check_memory(void)
{
	const size_t sz = 1 << 20;
	uint64_t *m, sum = 0;
	void *brk0, *brk1, *small[64], *big;
	size_t i;

	m = mmap(NULL, sz, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED)
		fail("mmap anonymous");
	printf("mmap anon: zeroed=%s", yes(m[0] == 0 && m[sz / 8 - 1] == 0));
	for (i = 0; i < sz / 8; i++)
		m[i] = i * 3;
	if (mprotect(m, sz, PROT_READ) != 0)
		fail("mprotect");
	for (i = 0; i < sz / 8; i += 512)
		sum += m[i];
	printf(" sum=%" PRIu64 "\n", sum);
	if (munmap(m, sz) != 0)
		fail("munmap");

	brk0 = sbrk(0);
	for (i = 0; i < 64; i++) {
		small[i] = malloc(4096);
		if (!small[i])
			fail("malloc small");
		memset(small[i], (int)i, 4096);
	}
	brk1 = sbrk(0);
	big = malloc(8 << 20);
	if (!big)
		fail("malloc large");
	memset(big, 0x5a, 8 << 20);
	printf("malloc: brk-grew=%s large-ok=%s\n", yes((char *)brk1 > (char *)brk0),
	       yes(((unsigned char *)big)[(8 << 20) - 1] == 0x5a));
	free(big);
	for (i = 0; i < 64; i++)
		free(small[i]);
}

/* check_process - identity, uname and clocks, printed only as facts. */
static void check_process(void)
{
	struct timespec t1, t2, rt, nap = { 0, 2000000 };
	struct timeval tv;
	struct utsname u;
	time_t now;

	printf("ids: pid-positive=%s ppid-positive=%s uid-is-euid=%s\n", yes(getpid() > 0),
	       yes(getppid() > 0), yes(getuid() == geteuid()));
	if (uname(&u) != 0)
		fail("uname");
	printf("uname: sysname=%s machine=%s\n", u.sysname, u.machine);
	if (gettimeofday(&tv, NULL) != 0)
		fail("gettimeofday");
	if (clock_gettime(CLOCK_REALTIME, &rt) != 0)
		fail("clock_gettime realtime");
	now = time(NULL);
	if (clock_gettime(CLOCK_MONOTONIC, &t1) != 0)
		fail("clock_gettime monotonic");
	if (nanosleep(&nap, NULL) != 0)
		fail("nanosleep");
	if (clock_gettime(CLOCK_MONOTONIC, &t2) != 0)
		fail("clock_gettime monotonic");
	printf("time: after-2020=%s clocks-agree=%s usec-valid=%s\n", yes(tv.tv_sec > 1577836800),
	       /* time() reads the coarse clock: it may lag gettimeofday() by a tick */
	       yes(rt.tv_sec - tv.tv_sec < 100 && now - tv.tv_sec < 100 && now + 1 >= tv.tv_sec),
	       yes(tv.tv_usec >= 0 && tv.tv_usec < 1000000));
	printf("monotonic: slept-2ms=%s\n",
	       yes((t2.tv_sec - t1.tv_sec) * 1000000000L + (t2.tv_nsec - t1.tv_nsec) >= 2000000));
}

/* check_signals - a handled SIGUSR1 by raise; a blocked SIGUSR2 pending until unblocked. */
static void check_signals(void)
{
	struct sigaction sa, old;
	sigset_t set, pend;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_usr1;
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGUSR1, &sa, &old) != 0)
		fail("sigaction");
	printf("sigaction: old-default=%s\n", yes(old.sa_handler == SIG_DFL));
	if (raise(SIGUSR1) != 0)
		fail("raise");
	printf("raise SIGUSR1: handled=%d\n", (int)usr1_count);

	sa.sa_handler = on_usr2;
	if (sigaction(SIGUSR2, &sa, NULL) != 0)
		fail("sigaction");
	sigemptyset(&set);
	sigaddset(&set, SIGUSR2);
	if (sigprocmask(SIG_BLOCK, &set, NULL) != 0)
		fail("sigprocmask block");
	raise(SIGUSR2);
	sigemptyset(&pend);
	if (sigpending(&pend) != 0)
		fail("sigpending");
	printf("blocked SIGUSR2: pending=%s handled-while-blocked=%d",
	       yes(sigismember(&pend, SIGUSR2)), (int)usr2_count);
	if (sigprocmask(SIG_UNBLOCK, &set, NULL) != 0)
		fail("sigprocmask unblock");
	printf(" handled-after-unblock=%d\n", (int)usr2_count);
}

/* check_fds - pipe, dup2, fcntl flags, a non-blocking read of an empty pipe. */
static void check_fds(void)
{
	char buf[64];
	int fds[2], fl;
	ssize_t n;

	if (pipe(fds) != 0)
		fail("pipe");
	if (write(fds[1], "through the pipe", 16) != 16)
		fail("write to pipe");
	n = read(fds[0], buf, sizeof(buf) - 1);
	buf[n > 0 ? n : 0] = '\0';
	printf("pipe: read=\"%s\"\n", buf);
	if (dup2(fds[1], 10) != 10)
		fail("dup2");
	if (write(10, "via fd 10", 9) != 9)
		fail("write to dup");
	n = read(fds[0], buf, sizeof(buf) - 1);
	buf[n > 0 ? n : 0] = '\0';
	printf("dup2: read=\"%s\"\n", buf);
	if (fcntl(10, F_SETFD, FD_CLOEXEC) != 0)
		fail("fcntl F_SETFD");
	printf("fcntl: cloexec=%s original-cloexec=%s", yes(fcntl(10, F_GETFD) == FD_CLOEXEC),
	       yes(fcntl(fds[1], F_GETFD) == FD_CLOEXEC));
	fl = fcntl(fds[0], F_GETFL);
	if (fl < 0 || fcntl(fds[0], F_SETFL, fl | O_NONBLOCK) != 0)
		fail("fcntl F_SETFL");
	printf(" nonblock=%s\n", yes((fcntl(fds[0], F_GETFL) & O_NONBLOCK) != 0));
	errno = 0;
	n = read(fds[0], buf, sizeof(buf));
	printf("empty nonblocking read: fails=%s EAGAIN=%s\n", yes(n == -1), yes(errno == EAGAIN));
	close(10);
	close(fds[0]);
	close(fds[1]);
}

int main(int argc, char **argv)
{
	const char *base = argc > 1 ? argv[1] : getenv("TMPDIR");
	char dir[4096], cwd[4096], name[64];
	size_t nl, cl;

	if (!base || !*base)
		base = "/tmp";
	setvbuf(stdout, NULL, _IOLBF, 0);
	umask(022);
	printf("umask: set=022\n");
	snprintf(name, sizeof(name), "axprof-syscalls-%ld", (long)getpid());
	snprintf(dir, sizeof(dir), "%s/%s", base, name);
	if (mkdir(dir, 0700) != 0)
		fail("mkdir of the scratch directory");
	if (chdir(dir) != 0)
		fail("chdir");
	if (!getcwd(cwd, sizeof(cwd)))
		fail("getcwd");
	nl = strlen(name);
	cl = strlen(cwd);
	printf("getcwd: absolute=%s ends-with-dir=%s\n", yes(cwd[0] == '/'),
	       yes(cl > nl && cwd[cl - nl - 1] == '/' && strcmp(cwd + cl - nl, name) == 0));
	if (chdir("..") != 0)
		fail("chdir ..");
	check_files(dir);
	check_memory();
	check_process();
	check_signals();
	check_fds();
	if (rmdir(dir) != 0)
		fail("rmdir");
	printf("rmdir: done\nexit: %d on purpose\n", SC_EXIT_STATUS);
	return SC_EXIT_STATUS;
}
