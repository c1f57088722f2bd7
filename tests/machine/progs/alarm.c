/* tests/machine/progs/alarm.c - Alpha test program: asynchronous signals from the host (timers). */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>

static volatile sig_atomic_t ticks;

static int wfd = -1;

static void on_alarm(int sig)
{
	(void)sig;
	ticks++;
	if (wfd >= 0 && write(wfd, "x", 1) != 1)
		ticks = -100;
}

int main(void)
{
	struct itimerval it = { { 0, 20000 }, { 0, 20000 } };
	struct sigaction sa;
	volatile unsigned long spin = 0;
	char buf[16];
	int fd[2];

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_alarm;
	sigaction(SIGALRM, &sa, NULL);
	/* pause() wakes up for the handler. */
	alarm(1);
	pause();
	printf("pause returned after %d alarm\n", (int)ticks);
	/* A busy loop is interrupted by a periodic timer. */
	setitimer(ITIMER_REAL, &it, NULL);
	while (ticks < 4)
		spin++;
	it.it_value.tv_usec = it.it_interval.tv_usec = 0;
	setitimer(ITIMER_REAL, &it, NULL);
	printf("busy loop saw %d ticks\n", ticks >= 4);
	/* A blocking read interrupted by a handler without SA_RESTART fails with EINTR. */
	if (pipe(fd))
		return 1;
	alarm(1);
	printf("read: %zd\n", read(fd[0], buf, sizeof(buf)));
	/* With SA_RESTART the read is restarted after the handler, which writes to the pipe. */
	sa.sa_flags = SA_RESTART;
	sigaction(SIGALRM, &sa, NULL);
	wfd = fd[1];
	alarm(1);
	printf("restarted read: %zd\n", read(fd[0], buf, sizeof(buf)));
	return 0;
}
