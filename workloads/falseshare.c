/* workloads/falseshare.c - four pthreads each counting in its own word of one cache line. */
/*
 * The false-sharing lesson of the R10000 perfex paper (seeds/r10000-counters-perfex-speedshop.txt:
 * the weather code whose coherence misses grew with the processor count until each processor's
 * data got its own cache line): NTHREADS threads each add to their own counter ITER times, and
 * the counters are adjacent 8-byte words of one 64-byte line, so on a multiprocessor every store
 * invalidates the other processors' copies. falsepad.c is the fix: each counter padded to a line
 * of its own (FS_PAD). The counting loop stores through a volatile pointer so each iteration
 * really loads and stores the line.
 *
 * Usage: falseshare [ITER [THREADS]]   (default 200000 per thread, 4 threads; 1..8 threads,
 * whose eight counters fill one 64-byte line: run one thread per CPU as the seed's weather code
 * ran one per processor)
 * Output: each thread's count and the total (deterministic: no thread reads another's word);
 * exit status 0, 1 if a pthread call fails, 2 for a bad argument.
 */
#include <pthread.h>
#include <string.h>

#include "wl.h"

#define NTHREADS 4 /* default */
#define MAXTHREADS 8
#ifndef FS_PAD
#define FS_PAD 0 /* bytes of padding after each counter */
#endif

struct slot {
	long count;
#if FS_PAD
	char pad[FS_PAD];
#endif
};

static struct slot slots[MAXTHREADS] __attribute__((aligned(64)));
static long iters;

static void *count(void *arg)
{
	volatile long *c = &slots[(long)arg].count;

	for (long i = 0; i < iters; i++)
		*c += 1 + (i & 1);
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t t[MAXTHREADS];
	long total = 0, nthreads = NTHREADS;
	char *end;

	iters = wl_arg(argc, argv, 200000);
	if (argc > 2) {
		nthreads = strtol(argv[2], &end, 10);
		if (*argv[2] == '\0' || *end || nthreads < 1 || nthreads > MAXTHREADS) {
			fprintf(stderr, "%s: bad thread count '%s' (1 to %d)\n", argv[0], argv[2],
				MAXTHREADS);
			return 2;
		}
	}
	for (long i = 0; i < nthreads; i++)
		if (pthread_create(&t[i], NULL, count, (void *)i)) {
			fprintf(stderr, "%s: pthread_create failed\n", argv[0]);
			return 1;
		}
	for (long i = 0; i < nthreads; i++)
		if (pthread_join(t[i], NULL)) {
			fprintf(stderr, "%s: pthread_join failed\n", argv[0]);
			return 1;
		}
	printf("slot size %zu bytes, %ld threads x %ld iterations\n", sizeof(struct slot), nthreads,
	       iters);
	for (int i = 0; i < nthreads; i++) {
		printf("thread %d: %ld\n", i, slots[i].count);
		total += slots[i].count;
	}
	printf("total %ld\n", total);
	return 0;
}
