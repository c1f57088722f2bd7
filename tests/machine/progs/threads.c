/* tests/machine/progs/threads.c - pthreads: TLS, tids, joins, pthread_kill, barriers, ENOSYS. */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#define N 3

static __thread long tls_value = 7;
static pthread_barrier_t bar;
static volatile sig_atomic_t got[N + 1];
static pthread_t th[N];

static void on_usr1(int sig)
{
	(void)sig;
	got[tls_value] = 1; /* the thread the signal was sent to */
}

static void *worker(void *arg)
{
	long i = (long)arg;
	long r = 0;

	tls_value = i;
	if (syscall(SYS_gettid) == getpid())
		r |= 1; /* a thread's tid must not be the pid */
	pthread_barrier_wait(&bar);
	pthread_barrier_wait(&bar); /* main sends SIGUSR1 to thread 2 in between */
	for (int k = 0; k < 1000 && !got[i] && i == 2; k++)
		sched_yield();
	if (tls_value != i)
		r |= 2;
	return (void *)(r + 10 * i);
}

static int pfd[2];
static char wname[16]; /* the writer thread's name after it renamed itself */

/* Computes, then writes into the pipe main is already reading; then forks a child that main
 * is already waiting for. A machine that let main's read or wait block the whole process
 * would hang here. */
static void *writer(void *arg)
{
	volatile long sum = 0;
	char msg[32];

	(void)arg;
	/* The thread's own name (Linux: 15 bytes kept); the profile's comm follows it. */
	prctl(PR_SET_NAME, "writer-thread-long-name");
	prctl(PR_GET_NAME, wname);
	for (long i = 0; i < 300000; i++)
		sum += i;
	snprintf(msg, sizeof(msg), "sum %ld", (long)sum);
	if (write(pfd[1], msg, strlen(msg) + 1) < 0)
		return (void *)1;
	for (long i = 0; i < 300000; i++)
		sum += i;
	if (fork() == 0)
		_exit(4);
	return NULL;
}

static void blocking_calls(void)
{
	pthread_t w;
	char buf[32] = "";
	int st = 0;

	if (pipe(pfd) || pthread_create(&w, NULL, writer, NULL))
		return;
	printf("read from the thread: %zd '%s'\n", read(pfd[0], buf, sizeof(buf)), buf);
	while (waitpid(-1, &st, 0) < 0 && errno == ECHILD)
		sched_yield(); /* the child may not exist yet */
	printf("child of the thread exited with %d\n", WEXITSTATUS(st));
	if (fork() == 0) {
		for (volatile long i = 0; i < 100000; i++)
			;
		kill(getpid(), SIGUSR2);
		_exit(0);
	} else {
		siginfo_t si;

		memset(&si, 0, sizeof(si));
		printf("waitid: %d", waitid(P_ALL, 0, &si, WEXITED));
		printf(" signo %d code %d status %d\n", si.si_signo == SIGCHLD, si.si_code,
		       si.si_status == SIGUSR2);
	}
	pthread_join(w, NULL);
	printf("the writer named itself '%s'\n", wname);
}

int main(void)
{
	void *res;

	signal(SIGUSR1, on_usr1);
	pthread_barrier_init(&bar, NULL, N + 1);
	for (long i = 0; i < N; i++)
		if (pthread_create(&th[i], NULL, worker, (void *)(i + 1)))
			return 1;
	pthread_barrier_wait(&bar);
	printf("main tls %ld, tid is pid: %d\n", tls_value, (int)syscall(SYS_gettid) == getpid());
	printf("pthread_kill: %d\n", pthread_kill(th[1], SIGUSR1));
	pthread_barrier_wait(&bar);
	for (int i = 0; i < N; i++) {
		pthread_join(th[i], &res);
		printf("thread %d returned %ld\n", i + 1, (long)res);
	}
	printf("SIGUSR1 seen by threads: %d %d %d (main %d)\n", got[1], got[2], got[3],
	       got[0] | (int)(tls_value != 7));
	blocking_calls();
	errno = 0;
	printf("syscall 1000: %ld %s\n", syscall(1000), strerror(errno));
	errno = 0;
	printf("syscall 1000 again: %ld %s\n", syscall(1000), strerror(errno));
	/* Flags no kernel accepts (CLONE_THREAD needs CLONE_SIGHAND needs CLONE_VM): EINVAL,
	 * named once (issue 17, bad input). */
	errno = 0;
	printf("clone THREAD|SIGHAND: %ld %s\n", syscall(SYS_clone, 0x10800ul, 0ul),
	       strerror(errno));
	errno = 0;
	printf("clone THREAD|SIGHAND again: %ld %s\n", syscall(SYS_clone, 0x10800ul, 0ul),
	       strerror(errno));
	errno = 0;
	printf("clone NEWNS|SIGCHLD: %ld %s\n", syscall(SYS_clone, 0x20011ul, 0ul),
	       strerror(errno));
	return 0;
}
