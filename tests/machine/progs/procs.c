/* tests/machine/progs/procs.c - Alpha test program: fork, wait, pipes, exec, system, popen. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	int fd[2], st = 0;
	char buf[64];
	pid_t pid;
	ssize_t n;
	FILE *p;

	if (argc > 1 && !strcmp(argv[1], "child")) {
		printf("exec'd child: argc %d argv[2] %s\n", argc, argc > 2 ? argv[2] : "-");
		return 5;
	}
	fflush(stdout);
	if (pipe(fd))
		return 1;
	pid = fork();
	if (pid == 0) {
		close(fd[0]);
		if (write(fd[1], "from child", 10) != 10)
			_exit(1);
		_exit(42);
	}
	close(fd[1]);
	n = read(fd[0], buf, sizeof(buf) - 1);
	buf[n > 0 ? n : 0] = 0;
	waitpid(pid, &st, 0);
	printf("pipe: '%s'; child exit %d\n", buf, WIFEXITED(st) ? WEXITSTATUS(st) : -1);

	/* A child killed by a signal: the status carries the Alpha signal number. */
	pid = fork();
	if (pid == 0) {
		raise(SIGUSR1);
		_exit(0);
	}
	waitpid(pid, &st, 0);
	printf("signalled %d sig %d (SIGUSR1 %d)\n", WIFSIGNALED(st), WTERMSIG(st), SIGUSR1);

	/* execv of ourselves, an Alpha program (only with argument "exec": qemu-alpha cannot
	 * exec Alpha programs without binfmt_misc), and system() of a host shell command. */
	if (argc > 1 && !strcmp(argv[1], "exec")) {
		fflush(stdout);
		pid = fork();
		if (pid == 0) {
			execl("/proc/self/exe", "procs", "child", "two", (char *)NULL);
			_exit(99);
		}
		waitpid(pid, &st, 0);
		printf("exec child exit %d\n", WIFEXITED(st) ? WEXITSTATUS(st) : -1);
	}
	fflush(stdout);
	st = system("echo system says hi; exit 3");
	printf("system: %d\n", WIFEXITED(st) ? WEXITSTATUS(st) : -1);
	p = popen("echo popen line", "r");
	if (p && fgets(buf, sizeof(buf), p))
		printf("popen: %s", buf);
	if (p)
		printf("pclose: %d\n", WEXITSTATUS(pclose(p)));
	return 0;
}
