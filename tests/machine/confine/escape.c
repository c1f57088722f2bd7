/* tests/machine/confine/escape.c - Alpha guest that tries to leave `axprof run --confine DIR`. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/*
 * Run from DIR/sub, with DIR/inside.txt, DIR/sub/rel-out -> ../../../(...)/etc/passwd,
 * DIR/sub/abs-out -> /etc/passwd, DIR/sub/plant -> a host file outside DIR (absent),
 * DIR/sub/hostprog (a copy of the host's sh) and DIR/escape (this program).
 * Prints "what: ok" or "what: ERRNO" per attempt (tests/machine/confine.sh checks them).
 */

static const char *ename(int e)
{
	static char buf[32];

	switch (e) {
	case ENOENT:
		return "ENOENT";
	case EACCES:
		return "EACCES";
	case EXDEV:
		return "EXDEV";
	case ELOOP:
		return "ELOOP";
	case EPERM:
		return "EPERM";
	case ENOTDIR:
		return "ENOTDIR";
	}
	snprintf(buf, sizeof(buf), "errno %d", e);
	return buf;
}

static void report(const char *what, int r)
{
	printf("%s: %s\n", what, r >= 0 ? "ok" : ename(errno));
	fflush(stdout);
}

static void try_open(const char *what, int dirfd, const char *path)
{
	int fd = openat(dirfd, path, O_RDONLY);

	report(what, fd);
	if (fd >= 0)
		close(fd);
}

static void try_exec(const char *what, const char *path, char *const argv[])
{
	pid_t pid;
	int st;

	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		execv(path, argv);
		report(what, -1);
		_exit(0);
	}
	waitpid(pid, &st, 0);
}

int main(int argc, char **argv)
{
	char cwd[4096], buf[64];
	struct stat st;
	int fd, dfd;
	ssize_t n;

	if (argc > 1 && !strcmp(argv[1], "child")) {
		try_open("child /etc/passwd", AT_FDCWD, "/etc/passwd");
		report("child getcwd", getcwd(cwd, sizeof(cwd)) ? 0 : -1);
		printf("child cwd is sub: %s\n", strstr(cwd, "/sub") ? "yes" : "no");
		return 3;
	}
	fd = open("../inside.txt", O_RDONLY);
	n = fd >= 0 ? read(fd, buf, sizeof(buf) - 1) : -1;
	buf[n > 0 ? n : 0] = 0;
	printf("inside: %s\n", n > 0 && !strcmp(buf, "inside\n") ? "ok" : ename(errno));
	if (fd >= 0)
		close(fd);
	try_open("/etc/shadow", AT_FDCWD, "/etc/shadow");
	try_open("/etc/passwd", AT_FDCWD, "/etc/passwd");
	try_open("dotdot", AT_FDCWD, "../../../../../../../../../../etc/passwd");
	try_open("rel-symlink", AT_FDCWD, "rel-out");
	try_open("abs-symlink", AT_FDCWD, "abs-out");
	report("stat abs-symlink", stat("abs-out", &st));
	report("access /etc/passwd", access("/etc/passwd", R_OK));
	dfd = open(".", O_RDONLY | O_DIRECTORY);
	try_open("openat dirfd dotdot", dfd, "../../../../../../../../../../etc/passwd");
	report("chdir up", chdir("../../../../../../../../../.."));
	printf("getcwd after chdir up: %s\n", getcwd(cwd, sizeof(cwd)) ? cwd : ename(errno));
	try_open("etc/passwd from /", AT_FDCWD, "etc/passwd");
	report("fchdir back", fchdir(dfd));
	fd = open("plant", O_WRONLY | O_CREAT, 0644);
	report("create through symlink", fd);
	if (fd >= 0)
		close(fd);
	report("mkdir inside", mkdir("made", 0755));
	report("rename inside", rename("made", "made2"));
	report("rmdir inside", rmdir("made2"));
	report("unlink outside", unlink("../../../../../../../../../../etc/passwd-nonexistent"));
	/* The sysroot is readable (absolute names), never writable. */
	try_open("sysroot read", AT_FDCWD, "/lib/probe");
	if (argc > 1 && !strcmp(argv[1], "confined")) {
		fd = open("/lib/axprof-confine-probe", O_WRONLY | O_CREAT, 0644);
		report("sysroot create", fd);
		report("sysroot unlink", unlink("/lib/probe"));
	}
	fd = open("/proc/self/maps", O_RDONLY);
	n = fd >= 0 ? read(fd, buf, sizeof(buf) - 1) : -1;
	printf("/proc/self/maps: %s\n", n > 0 ? "ok" : ename(errno));
	if (fd >= 0)
		close(fd);
	{
		char *sh[] = { "sh", "-c", "echo host shell ran", NULL };
		char *me[] = { "escape", "child", NULL };

		try_exec("execve /bin/sh", "/bin/sh", sh);
		try_exec("execve host program inside", "hostprog", sh);
		try_exec("execve alpha", "../escape", me);
	}
	return 0;
}
