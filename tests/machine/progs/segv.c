/* tests/machine/progs/segv.c - Alpha test program: an uncaught fault kills the program. */
#include <stdio.h>

int main(int argc, char **argv)
{
	volatile long *p = (volatile long *)(long)(argc - 1 + 16);

	(void)argv;
	printf("before the fault\n");
	fflush(stdout);
	return (int)*p; /* load from address 16: SIGSEGV, SEGV_MAPERR */
}
