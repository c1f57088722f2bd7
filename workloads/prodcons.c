/* workloads/prodcons.c - producers and consumers over a bounded buffer (mutex, condition variables). */
/*
 * Two producer threads put numbered items into an 8-slot ring; two consumer threads take them
 * out. A full ring makes producers wait on `not_full`, an empty one consumers on `not_empty`
 * (pthread_cond_wait: futex waits and wakes under glibc), so the threads block and wake each
 * other all the time. Each item is folded into a per-producer checksum by whichever consumer
 * takes it; since addition commutes, the sums do not depend on the interleaving.
 *
 * Usage: prodcons [ITEMS]   (default 5000 per producer)
 * Output: items produced and consumed, the checksums per producer; exit status 0, or 1 if a
 * pthread call fails or an item is lost.
 */
#include <pthread.h>

#include "wl.h"

#define NPROD 2
#define NCONS 2
#define RING 8

static struct {
	pthread_mutex_t lock;
	pthread_cond_t not_full, not_empty;
	uint64_t item[RING];
	unsigned int head, tail, used;
	int producers_left;
} q = {
	.lock = PTHREAD_MUTEX_INITIALIZER,
	.not_full = PTHREAD_COND_INITIALIZER,
	.not_empty = PTHREAD_COND_INITIALIZER,
};

static long items;
static uint64_t sum[NPROD]; /* under q.lock */
static long consumed[NCONS];

static void *produce(void *arg)
{
	uint64_t p = (uint64_t)(long)arg, seed = 12345 + p;

	for (long i = 0; i < items; i++) {
		uint64_t v = (wl_rand(&seed) << 1 >> 1 & ~(uint64_t)1) | p; /* low bit: producer */

		pthread_mutex_lock(&q.lock);
		while (q.used == RING)
			pthread_cond_wait(&q.not_full, &q.lock);
		q.item[q.tail] = v;
		q.tail = (q.tail + 1) % RING;
		q.used++;
		pthread_cond_signal(&q.not_empty);
		pthread_mutex_unlock(&q.lock);
	}
	pthread_mutex_lock(&q.lock);
	q.producers_left--;
	pthread_cond_broadcast(&q.not_empty);
	pthread_mutex_unlock(&q.lock);
	return NULL;
}

static void *consume(void *arg)
{
	long c = (long)arg;

	for (;;) {
		uint64_t v;

		pthread_mutex_lock(&q.lock);
		while (!q.used && q.producers_left)
			pthread_cond_wait(&q.not_empty, &q.lock);
		if (!q.used) {
			pthread_mutex_unlock(&q.lock);
			return NULL;
		}
		v = q.item[q.head];
		q.head = (q.head + 1) % RING;
		q.used--;
		sum[v & 1] += v >> 1;
		consumed[c]++;
		pthread_cond_signal(&q.not_full);
		pthread_mutex_unlock(&q.lock);
	}
}

int main(int argc, char **argv)
{
	pthread_t t[NPROD + NCONS];
	long total = 0;

	items = wl_arg(argc, argv, 5000);
	q.producers_left = NPROD;
	for (long i = 0; i < NPROD + NCONS; i++)
		if (pthread_create(&t[i], NULL, i < NPROD ? produce : consume,
				   (void *)(i < NPROD ? i : i - NPROD))) {
			fprintf(stderr, "%s: pthread_create failed\n", argv[0]);
			return 1;
		}
	for (int i = 0; i < NPROD + NCONS; i++)
		if (pthread_join(t[i], NULL)) {
			fprintf(stderr, "%s: pthread_join failed\n", argv[0]);
			return 1;
		}
	for (int i = 0; i < NCONS; i++)
		total += consumed[i];
	printf("produced %ld items, consumed %ld\n", NPROD * items, total);
	for (int i = 0; i < NPROD; i++)
		printf("producer %d checksum %016llx\n", i, (unsigned long long)sum[i]);
	return total == NPROD * items ? 0 : 1;
}
