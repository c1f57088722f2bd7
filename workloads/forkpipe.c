/* workloads/forkpipe.c - processes: fork, execve, pipes, wait, kill and process groups. */
/*
 * The parent makes three children and talks to them through pipes:
 *   1. fork + execve of /bin/sh (a host program under qemu-alpha and axprof run alike: an
 *      Alpha program could only be exec'd under qemu-alpha with binfmt_misc), stdout
 *      redirected into a pipe: the shell prints N and exits with 3;
 *   2. fork only: the child writes a checksum of N words into a pipe and exits with 5;
 *   3. fork into a process group of its own (setpgid) that waits in pause(); the parent kills
 *      the group with SIGTERM.
 * The parent reads the pipes to the end, reaps each child with waitpid and prints what it got:
 * output and statuses, nothing that depends on pids or timing.
 *
 * Usage: forkpipe [N]   (default 30000)
 * Output: the children's results and exit statuses; exit status 0, or 1 if a call fails.
 */
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "wl.h"

static int fail(const char *what)
{
	fprintf(stderr, "forkpipe: %s: %s\n", what, strerror(errno));
	return 1;
}

/* Read fd to its end into buf (NUL-terminated). */
static size_t read_all(int fd, char *buf, size_t len)
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
	return got;
}

static void report(const char *who, int st)
{
	if (WIFEXITED(st))
		printf("%s exited with %d\n", who, WEXITSTATUS(st));
	else if (WIFSIGNALED(st))
		printf("%s killed by signal %d (%s)\n", who, WTERMSIG(st),
		       WTERMSIG(st) == SIGTERM ? "SIGTERM" : "other");
	else
		printf("%s: status 0x%x\n", who, st);
}

int main(int argc, char **argv)
{
	char nbuf[32], buf[4096];
	int p1[2], p2[2], st;
	pid_t c1, c2, c3;
	long n;

	n = wl_arg(argc, argv, 30000);
	fflush(stdout);
	if (pipe(p1) || pipe(p2))
		return fail("pipe");

	c1 = fork();
	if (c1 < 0)
		return fail("fork");
	if (c1 == 0) {
		snprintf(nbuf, sizeof(nbuf), "%ld", n);
		dup2(p1[1], 1);
		close(p1[0]);
		close(p1[1]);
		execl("/bin/sh", "sh", "-c", "echo \"sh got $1 and exits with 3\"; exit 3", "sh",
		      nbuf, (char *)NULL);
		_exit(127);
	}
	close(p1[1]);

	c2 = fork();
	if (c2 < 0)
		return fail("fork");
	if (c2 == 0) {
		uint64_t seed = (uint64_t)n, sum = WL_SUM_INIT;

		close(p2[0]);
		for (long i = 0; i < n; i++)
			sum = wl_mix(sum, wl_rand(&seed));
		snprintf(buf, sizeof(buf), "checksum of %ld words: %016llx\n", n,
			 (unsigned long long)sum);
		if (write(p2[1], buf, strlen(buf)) < 0)
			_exit(1);
		_exit(5);
	}
	close(p2[1]);

	c3 = fork();
	if (c3 < 0)
		return fail("fork");
	if (c3 == 0) {
		setpgid(0, 0);
		for (;;)
			pause();
	}
	setpgid(c3, c3); /* both sides, as a shell does, so there is no race */

	read_all(p1[0], buf, sizeof(buf));
	printf("child 1 (exec) wrote: %s", buf);
	if (waitpid(c1, &st, 0) != c1)
		return fail("waitpid");
	report("child 1", st);

	read_all(p2[0], buf, sizeof(buf));
	printf("child 2 (fork) wrote: %s", buf);
	if (waitpid(c2, &st, 0) != c2)
		return fail("waitpid");
	report("child 2", st);

	if (getpgid(c3) != c3)
		return fail("getpgid");
	if (kill(-c3, SIGTERM))
		return fail("kill");
	if (waitpid(c3, &st, 0) != c3)
		return fail("waitpid");
	report("child 3 (process group)", st);
	if (waitpid(-1, &st, WNOHANG) != -1 || errno != ECHILD)
		return fail("waitpid of no child");
	printf("no children left\n");
	return 0;
}
