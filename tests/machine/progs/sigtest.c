/* tests/machine/progs/sigtest.c - Alpha test program: signal handlers, masks, faults, sigaltstack. */
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static volatile sig_atomic_t got;
static volatile int last_code;
static sigjmp_buf jb;

static void on_usr1(int sig)
{
	got = sig;
}

static void on_info(int sig, siginfo_t *si, void *uc)
{
	(void)uc;
	got = sig;
	last_code = si->si_code;
}

static void on_fault(int sig, siginfo_t *si, void *uc)
{
	(void)uc;
	got = sig;
	last_code = si->si_code;
	siglongjmp(jb, 1);
}

static long divide(long a, long b)
{
	return a / b;
}

int main(void)
{
	struct sigaction sa;
	sigset_t set, old;
	stack_t ss;
	char *p;

	/* 1. A plain handler via signal(), raised synchronously. */
	signal(SIGUSR1, on_usr1);
	raise(SIGUSR1);
	printf("usr1 handler got %d\n", (int)got);

	/* 2. SA_SIGINFO handler; si_code of raise() (tgkill) is SI_TKILL. */
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_info;
	sa.sa_flags = SA_SIGINFO;
	sigaction(SIGUSR2, &sa, NULL);
	got = 0;
	raise(SIGUSR2);
	printf("usr2 siginfo handler got %d code %d\n", (int)got, last_code);

	/* 3. Blocked signals stay pending until unblocked. */
	got = 0;
	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	sigprocmask(SIG_BLOCK, &set, &old);
	raise(SIGUSR1);
	printf("while blocked: got %d\n", (int)got);
	sigpending(&set);
	printf("pending usr1: %d\n", sigismember(&set, SIGUSR1));
	sigprocmask(SIG_SETMASK, &old, NULL);
	printf("after unblock: got %d\n", (int)got);

	/* 4. SIGSEGV from a store to a read-only page, caught and escaped with siglongjmp. */
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_fault;
	sa.sa_flags = SA_SIGINFO | SA_NODEFER;
	sigaction(SIGSEGV, &sa, NULL);
	sigaction(SIGFPE, &sa, NULL);
	p = mmap(NULL, 8192, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	got = 0;
	if (!sigsetjmp(jb, 1))
		p[10] = 1;
	printf("segv (accerr): got %d code %d\n", (int)got, last_code);
	munmap(p, 8192);
	got = 0;
	if (!sigsetjmp(jb, 1))
		p[10] = 1;
	printf("segv (maperr): got %d code %d\n", (int)got, last_code);

	/* 5. Integer division by zero: libgcc's divide calls gentrap GEN_INTDIV. */
	got = 0;
	if (!sigsetjmp(jb, 1))
		printf("quotient %ld\n", divide(7, (long)got));
	printf("divide by zero: got %d code %d\n", (int)got, last_code);

	/* 6. A handler on an alternate stack. */
	ss.ss_sp = malloc(SIGSTKSZ);
	ss.ss_size = SIGSTKSZ;
	ss.ss_flags = 0;
	sigaltstack(&ss, NULL);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_usr1;
	sa.sa_flags = SA_ONSTACK;
	sigaction(SIGUSR1, &sa, NULL);
	got = 0;
	raise(SIGUSR1);
	printf("altstack handler got %d\n", (int)got);

	/* 7. SIG_IGN discards. */
	signal(SIGUSR2, SIG_IGN);
	raise(SIGUSR2);
	printf("ignored usr2, still here\n");
	fflush(stdout);

	/* 8. Default action: abort() kills with SIGABRT. */
	abort();
}
