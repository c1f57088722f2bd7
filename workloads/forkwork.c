/* workloads/forkwork.c - a parent that forks children doing measured work and waits for each. */
/*
 * For counting tools that add a child's counts to its parent's at wait (perfex's rule, `axprof
 * stat`): each child sums a table of its own size with a data-dependent walk (loads, cache misses,
 * branches) and exits with status 0; the parent waits for it before forking the next, then does
 * the same work itself. Output is deterministic (one line per process, in order).
 *
 * Usage: forkwork [N]   (default 200000: the parent's table has N words, child k's N * k / 2)
 * Output: "forkwork: child K sum=HEX" for K = 1, 2, 3, then "forkwork: parent sum=HEX children=3".
 * Exit status 0; 1 if a child failed.
 */
#include <sys/wait.h>
#include <unistd.h>

#include "wl.h"

static uint64_t work(long n, uint64_t seed)
{
	uint64_t *t = malloc((size_t)n * sizeof(*t)), sum = 0, s = seed;
	long i, j = 0;

	if (!t) {
		fprintf(stderr, "forkwork: out of memory\n");
		exit(1);
	}
	for (i = 0; i < n; i++)
		t[i] = wl_rand(&s);
	for (i = 0; i < n; i++) {
		j = (long)((t[j] + (uint64_t)i) % (uint64_t)n);
		sum = wl_mix(sum, t[j]);
		if (t[j] & 1)
			sum += (uint64_t)i;
	}
	free(t);
	return sum;
}

int main(int argc, char **argv)
{
	long n = wl_arg(argc, argv, 200000);
	int bad = 0;

	for (int k = 1; k <= 3; k++) {
		pid_t pid;
		int st;

		fflush(stdout);
		pid = fork();
		if (pid < 0) {
			perror("forkwork: fork");
			return 1;
		}
		if (pid == 0) {
			printf("forkwork: child %d sum=%016llx\n", k,
			       (unsigned long long)work(n * k / 2, (uint64_t)k));
			fflush(stdout);
			_exit(0);
		}
		if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st))
			bad = 1;
	}
	printf("forkwork: parent sum=%016llx children=3\n", (unsigned long long)work(n, 7));
	return bad;
}
