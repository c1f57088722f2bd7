/* tests/fuzz/fuzz_common.h - what the fuzz targets share: a memfd of the input, the replay main. */
#ifndef FUZZ_COMMON_H
#define FUZZ_COMMON_H

#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

/*
 * Each tests/fuzz/fuzz_<target>.c defines LLVMFuzzerTestOneInput() and includes this file.
 * Built twice (tests/fuzz/module.mk): with clang -fsanitize=fuzzer (FUZZ_LIBFUZZER defined) by
 * `make fuzz`, and with gcc and ASan/UBSan as a replay program (the main() below: every file
 * named on the command line is one input) that `make check` runs on the seed corpus.
 */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* An anonymous file holding data[0..size): its fd (path "/proc/self/fd/N" into path), or -1. */
static inline int fuzz_memfd(const uint8_t *data, size_t size, char *path, size_t len)
{
	int fd = memfd_create("fuzz", MFD_CLOEXEC);
	size_t done = 0;

	if (fd < 0)
		return -1;
	while (done < size) {
		ssize_t n = write(fd, data + done, size - done);

		if (n <= 0) {
			close(fd);
			return -1;
		}
		done += (size_t)n;
	}
	snprintf(path, len, "/proc/self/fd/%d", fd);
	return fd;
}

/* The tools print their messages on stderr: silence them (sanitizers write to fd 2 directly).
 * Once per process: every call after the first changes nothing. */
static inline void fuzz_quiet(void)
{
	static FILE *null;

	if (!null)
		null = fopen("/dev/null", "w");
	if (null)
		stderr = null;
}

#ifndef FUZZ_LIBFUZZER
int main(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		FILE *f = fopen(argv[i], "rb");
		uint8_t *buf;
		long n;

		if (!f) {
			perror(argv[i]);
			return 1;
		}
		if (fseek(f, 0, SEEK_END) || (n = ftell(f)) < 0 || fseek(f, 0, SEEK_SET)) {
			fprintf(stderr, "%s: cannot read\n", argv[i]);
			return 1;
		}
		buf = malloc(n > 0 ? (size_t)n : 1);
		if (!buf || fread(buf, 1, (size_t)n, f) != (size_t)n) {
			fprintf(stderr, "%s: cannot read\n", argv[i]);
			return 1;
		}
		fclose(f);
		LLVMFuzzerTestOneInput(buf, (size_t)n);
		free(buf);
	}
	return 0;
}
#endif

#endif /* FUZZ_COMMON_H */
