/* tests/machine/progs/fptest.c - Alpha test program: IEEE control (osf_setsysinfo), FP traps. */
#define _GNU_SOURCE
#include <fenv.h>
#include <math.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

static sigjmp_buf jb;
static volatile int got, code;

static void on_fpe(int sig, siginfo_t *si, void *uc)
{
	(void)uc;
	got = sig;
	code = si->si_code;
	siglongjmp(jb, 1);
}

int main(int argc, char **argv)
{
	volatile double zero = argc - 1, one = 1.0, r = 0;
	struct sigaction sa;

	(void)argv;
	/* Default (-mieee): division by zero gives infinity, no trap; the flag is raised. */
	feclearexcept(FE_ALL_EXCEPT);
	r = one / zero;
	printf("1/0 = %g, divbyzero flag %d\n", r, fetestexcept(FE_DIVBYZERO) != 0);
	r = sqrt(-one);
	printf("sqrt(-1) is nan %d, invalid flag %d\n", isnan(r), fetestexcept(FE_INVALID) != 0);
	printf("rounding %d\n", fegetround() == FE_TONEAREST);
	fesetround(FE_UPWARD);
	printf("1/3 up = %.20f\n", one / 3.0);
	fesetround(FE_TONEAREST);

	/* Enabling the trap makes the same division raise SIGFPE. */
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_fpe;
	sa.sa_flags = SA_SIGINFO;
	sigaction(SIGFPE, &sa, NULL);
	feenableexcept(FE_DIVBYZERO);
	printf("enabled traps 0x%x\n", fegetexcept());
	if (!sigsetjmp(jb, 1)) {
		r = one / zero;
		printf("no trap: %g\n", r);
	}
	printf("trap: signal %d code %d\n", got, code);
	return 0;
}
