/* workloads/forkexec.c - three processes, three images: fork + execve + pipes (issue 17). */
/*
 * The parent forks two children and reads each one's output through a pipe:
 *   1. fork + execve of execworker (found beside this program) with stdout into a pipe: its
 *      loop runs in its own image, as execworker; if the execve cannot run an Alpha program
 *      (qemu-alpha without binfmt_misc: ENOEXEC) the child does the same work in place;
 *   2. fork only: fe_child's loop, the checksum written into a pipe, exit status 5.
 * Then the parent runs fe_parent's loop, reaps both children and prints what it got. Nothing
 * printed depends on pids or timing. Each process's loop is its own procedure, so a profile
 * can tell the processes apart.
 *
 * Usage: forkexec [N]   (default 200000)
 * Output: the children's results and exit statuses; exit status 0, or 1 if a call fails.
 */
#include <errno.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define EXECWORKER_NO_MAIN
#include "execworker.c"

static int fail(const char *what)
{
	fprintf(stderr, "forkexec: %s: %s\n", what, strerror(errno));
	return 1;
}

static __attribute__((noinline)) uint64_t fe_child(long n)
{
	uint64_t seed = (uint64_t)n, sum = WL_SUM_INIT;

	for (long i = 0; i < n; i++)
		sum = wl_mix(sum, wl_rand(&seed));
	return sum;
}

static __attribute__((noinline)) uint64_t fe_parent(long n)
{
	uint64_t seed = 3 * (uint64_t)n, sum = WL_SUM_INIT;

	for (long i = 0; i < n; i++)
		sum = wl_mix(sum, wl_rand(&seed) ^ (uint64_t)i);
	return sum;
}

/* Read fd to its end into buf (NUL-terminated). */
static void read_all(int fd, char *buf, size_t len)
{
	size_t got = 0;
	ssize_t r;

	while (got + 1 < len && (r = read(fd, buf + got, len - 1 - got)) != 0) {
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			break;
		got += (size_t)r;
	}
	buf[got] = 0;
	close(fd);
}

static int reap(pid_t c, const char *who)
{
	int st;

	if (waitpid(c, &st, 0) != c)
		return fail("waitpid");
	if (WIFEXITED(st))
		printf("%s exited with %d\n", who, WEXITSTATUS(st));
	else
		printf("%s: status 0x%x\n", who, st);
	return 0;
}

int main(int argc, char **argv)
{
	char nbuf[32], path[4096], buf[256];
	int p1[2], p2[2];
	pid_t c1, c2;
	const char *slash = strrchr(argv[0], '/');
	long n = wl_arg(argc, argv, 200000);

	snprintf(nbuf, sizeof(nbuf), "%ld", n);
	snprintf(path, sizeof(path), "%.*sexecworker", slash ? (int)(slash - argv[0] + 1) : 0,
		 argv[0]);
	fflush(stdout);
	if (pipe(p1) || pipe(p2))
		return fail("pipe");
	c1 = fork();
	if (c1 < 0)
		return fail("fork");
	if (c1 == 0) {
		dup2(p1[1], 1);
		close(p1[0]);
		close(p1[1]);
		close(p2[0]);
		close(p2[1]);
		execl(path, "execworker", nbuf, (char *)NULL);
		printf("execworker: %ld words, checksum %016llx\n", n,
		       (unsigned long long)ew_work(n));
		fflush(stdout);
		_exit(6);
	}
	close(p1[1]);
	c2 = fork();
	if (c2 < 0)
		return fail("fork");
	if (c2 == 0) {
		close(p1[0]);
		close(p2[0]);
		snprintf(buf, sizeof(buf), "fe_child: %ld words, checksum %016llx\n", n,
			 (unsigned long long)fe_child(n));
		if (write(p2[1], buf, strlen(buf)) < 0)
			_exit(1);
		_exit(5);
	}
	close(p2[1]);
	printf("fe_parent: %ld words, checksum %016llx\n", n, (unsigned long long)fe_parent(n));
	read_all(p1[0], buf, sizeof(buf));
	printf("child 1 (exec) wrote: %s", buf);
	if (reap(c1, "child 1"))
		return 1;
	read_all(p2[0], buf, sizeof(buf));
	printf("child 2 (fork) wrote: %s", buf);
	if (reap(c2, "child 2"))
		return 1;
	return 0;
}
