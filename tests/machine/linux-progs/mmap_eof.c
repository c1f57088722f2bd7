/* tests/machine/linux-progs/mmap_eof.c - Alpha test program: a file mapping past EOF faults SIGBUS. */
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static sigjmp_buf env;
static volatile int got_sig, got_code;
static void *volatile got_addr;

static void on_fault(int sig, siginfo_t *si, void *uc)
{
	(void)uc;
	got_sig = sig;
	got_code = si->si_code;
	got_addr = si->si_addr;
	siglongjmp(env, 1);
}

/* Touch the quadword at base + off (a load, or a store when write; quadwords, so that the store
 * is one stq and not the ldq_u/stq_u pair of a byte store without BWX): print what happened. */
static void touch(const char *what, volatile char *base, long off, int write)
{
	volatile long *p = (volatile long *)(base + off);

	got_sig = 0;
	if (!sigsetjmp(env, 1)) {
		if (write)
			*p = 1;
		else
			(void)*p;
		printf("%s +%ld: no fault\n", what, off);
		return;
	}
	if (got_sig == SIGBUS)
		printf("%s +%ld: SIGBUS %s", what, off,
		       got_code == BUS_ADRERR ? "BUS_ADRERR" : "?");
	else if (got_sig == SIGSEGV)
		printf("%s +%ld: SIGSEGV %s", what, off,
		       got_code == SEGV_ACCERR ? "SEGV_ACCERR" :
		       got_code == SEGV_MAPERR ? "SEGV_MAPERR" :
						 "?");
	else
		printf("%s +%ld: signal %d", what, off, got_sig);
	printf(" (si_code %d), si_addr %s\n", got_code, got_addr == (void *)p ? "ok" : "wrong");
}

int main(int argc, char **argv)
{
	long pg = sysconf(_SC_PAGESIZE), size = 100, zeros = 0;
	struct sigaction sa;
	char path[4096], data[100];
	volatile char *p;
	int fd;

	if (argc < 2)
		return 2;
	snprintf(path, sizeof(path), "%s/eof.dat", argv[1]);
	for (int i = 0; i < size; i++)
		data[i] = (char)('a' + i % 26);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (fd < 0 || write(fd, data, sizeof(data)) != (ssize_t)sizeof(data))
		return 3;
	if (argc > 2 && !strcmp(argv[2], "uncaught")) {
		/* No handler: the SIGBUS kills the program (status 135 from a shell). */
		p = mmap(NULL, 2 * pg, PROT_READ, MAP_PRIVATE, fd, 0);
		unlink(path);
		return p == MAP_FAILED ? 4 : (int)*(volatile long *)(p + pg);
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_fault;
	sa.sa_flags = SA_SIGINFO;
	sigaction(SIGBUS, &sa, NULL);
	sigaction(SIGSEGV, &sa, NULL);

	p = mmap(NULL, 3 * pg, PROT_READ, MAP_PRIVATE, fd, 0);
	if (p == MAP_FAILED)
		return 4;
	printf("page size %ld, byte 50 '%c'\n", pg, p[50]);
	for (long i = size; i < pg; i++)
		zeros += p[i] == 0;
	printf("bytes past EOF in the last page: %ld of %ld are zero\n", zeros, pg - size);
	touch("private read", p, pg, 0);
	touch("private read", p, 2 * pg + 8, 0);
	touch("private write (read-only)", p, pg, 1);
	printf("write(2) from past EOF: %s\n",
	       write(1, (const char *)p + pg, 1) < 0 ? "error" : "ok");
	munmap((void *)p, 3 * pg);

	p = mmap(NULL, 2 * pg, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED)
		return 5;
	p[size] = 'z'; /* within the last page: allowed, not written to the file */
	touch("shared write", p, pg + 16, 1);
	touch("shared read", p, pg, 0);
	munmap((void *)p, 2 * pg);
	printf("file size still %ld\n", (long)lseek(fd, 0, SEEK_END));

	/* A mapping wholly past EOF. */
	p = mmap(NULL, pg, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, pg);
	if (p == MAP_FAILED)
		return 6;
	touch("offset past EOF", p, 0, 0);
	munmap((void *)p, pg);
	close(fd);
	unlink(path);
	return 0;
}
