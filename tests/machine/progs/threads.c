/* tests/machine/progs/threads.c - pthreads: TLS, tids, joins, pthread_kill, barriers, ENOSYS. */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
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
	printf("SIGUSR1 seen by threads: %d %d %d (main %d)\n", got[1], got[2], got[3], got[0] | (int)(tls_value != 7));
	errno = 0;
	printf("syscall 1000: %ld %s\n", syscall(1000), strerror(errno));
	errno = 0;
	printf("syscall 1000 again: %ld %s\n", syscall(1000), strerror(errno));
	return 0;
}
