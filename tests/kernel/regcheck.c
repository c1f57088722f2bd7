/* tests/kernel/regcheck.c - run regloop (every register, many iterations) and print the final state. */
/*
 * Usage: regcheck [ITERATIONS [sig]]   (default 100000 iterations, about 34 M instructions)
 * With "sig", a 500 us ITIMER_REAL delivers SIGALRM throughout the loop to a handler that does
 * integer and FP work of its own: the signal frames must save and restore exactly what the loop
 * (and any interpretation of it) left in the registers.
 * Output: one line per register, "rNN <hex>" / "fNN <hex>", then "fpcr <hex>": a pure function of
 * the iteration count (the same with and without "sig"). The kernel test runs it with and
 * without axprof.ko interpreting it and requires identical output (tests/kernel/init.c);
 * qemu-alpha gives the same bytes (tests/kernel/kernel-test.sh).
 */
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>

void regloop(long iters, uint64_t state[64], uint64_t scratch[12]);

static uint64_t scratch[12];
static volatile double sink;
static volatile uint64_t isink;

static void on_alarm(int sig)
{
	double d = 1.0 + sig;
	uint64_t x = (uint64_t)sig;
	int i;

	for (i = 0; i < 50; i++) {
		d = d * 1.000001 + 0.5;
		x = x * 6364136223846793005ULL + 1;
	}
	sink = d;
	isink = x;
}

int main(int argc, char **argv)
{
	long iters = argc > 1 ? atol(argv[1]) : 100000;
	uint64_t state[64], x = 0x9e3779b97f4a7c15ULL;
	struct itimerval it = { { 0, 500 }, { 0, 500 } };
	unsigned int i;
	union {
		double d;
		uint64_t u;
	} v;

	for (i = 0; i < 32; i++) {
		x = x * 6364136223846793005ULL + 1442695040888963407ULL;
		state[i] = x;
	}
	for (i = 0; i < 32; i++) {
		v.d = 1.5 + i;
		state[32 + i] = v.u;
	}
	/* Linux's initial FPCR (traps disabled, dynamic rounding normal) and the same with dynamic
	 * rounding to plus infinity (FPCR[59:58] = 3). */
	scratch[9] = 0x680e800000000000ULL;
	scratch[10] = 0x6c0e800000000000ULL;
	if (argc > 2 && !strcmp(argv[2], "sig")) {
		signal(SIGALRM, on_alarm);
		setitimer(ITIMER_REAL, &it, NULL);
	}
	regloop(iters, state, scratch);
	it.it_value.tv_usec = it.it_interval.tv_usec = 0;
	setitimer(ITIMER_REAL, &it, NULL);
	for (i = 0; i < 30; i++) {
		if (i != 17) /* r17 held the scratch address */
			printf("r%02u %016" PRIx64 "\n", i, state[i]);
	}
	for (i = 0; i < 31; i++)
		printf("f%02u %016" PRIx64 "\n", i, state[32 + i]);
	printf("fpcr %016" PRIx64 "\n", state[63]);
	return 0;
}
