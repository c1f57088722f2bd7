/* workloads/sysloop.c - a system-call-heavy loop: checksum a buffer, write it to /dev/null. */
/*
 * The hosted machine books each emulated system call's kernel time to the pseudo-image
 * [kernel] (machine/mach_kern.h); this program spends a known share of its time there. Each
 * iteration refills and checksums a 2 KB buffer in user code (a few thousand cycles), writes
 * 16 KB to /dev/null (sys_write, by far the hottest kernel procedure) and calls getppid
 * (sys_getppid, a cheap call).
 *
 * Usage: sysloop [ITERATIONS]   (default 2000)
 * Output: the iteration count, the bytes written and a checksum; exit status 0.
 */
#include <fcntl.h>
#include <inttypes.h>
#include <unistd.h>

#include "wl.h"

#define SL_WORDS 256 /* 2 KB checksummed per iteration */
#define SL_WRITE 16384 /* bytes written per iteration */

static uint64_t sl_buf[SL_WRITE / 8];

/* sl_fill - refill the first SL_WORDS words from the PRNG and return their checksum. */
static __attribute__((noipa)) uint64_t sl_fill(uint64_t *state)
{
	uint64_t sum = 0;

	for (int i = 0; i < SL_WORDS; i++) {
		sl_buf[i] = wl_rand(state);
		sum = (sum ^ sl_buf[i]) * 0x100000001b3ull;
	}
	return sum;
}

int main(int argc, char **argv)
{
	long n = wl_arg(argc, argv, 2000);
	uint64_t state = 1, sum = 0, bytes = 0;
	int fd = open("/dev/null", O_WRONLY);

	if (fd < 0) {
		perror("sysloop: /dev/null");
		return 1;
	}
	for (long i = 0; i < n; i++) {
		ssize_t w;

		sum += sl_fill(&state);
		w = write(fd, sl_buf, SL_WRITE);
		if (w != SL_WRITE) {
			perror("sysloop: write");
			return 1;
		}
		bytes += (uint64_t)w;
		sum += (uint64_t)getppid() != 0;
	}
	close(fd);
	printf("sysloop: %ld iterations, %" PRIu64 " bytes written, checksum %016" PRIx64 "\n", n,
	       bytes, sum);
	return 0;
}
