/* daemon/dmn_dev.h - the daemon's side of /dev/axprof (or a file of records standing in for it). */
#ifndef DMN_DEV_H
#define DMN_DEV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dmn_lib.h"
#include "vs_abi.h"

/*
 * A character device is the driver (kmod/sampler/linux/axprof_ioctl.h): configured, started,
 * stopped and flushed by ioctl, drained by read() of whole records, polled for readiness. Any
 * other file (a regular file, a pipe) is a FAKE device: a stream of records as the driver would
 * return them (what tests/kernel's records-<mode>.bin hold); the ioctls succeed without doing
 * anything and the end of the file is the end of the data. A fake device's reads may split a
 * record: the part read stays in the carry buffer until the rest arrives.
 */

struct dmn_dev {
	int fd;
	bool fake;
	bool eof; /* fake: end of file reached */
	struct vs_info info; /* driver: VS_IOC_INFO; fake: made up */
	uint8_t *buf;
	size_t cap;
	size_t fill; /* carried bytes at the start of buf */
	uint64_t reads, bytes; /* statistics */
	uint64_t kv0[DMN_KV_NR]; /* driver: the kernel-values counters at dmn_dev_start() */
};

/* Open path (read-only). -errno; for the driver also the INFO ioctl's error. */
int dmn_dev_open(struct dmn_dev *dev, const char *path);
void dmn_dev_close(struct dmn_dev *dev);

int dmn_dev_configure(struct dmn_dev *dev, const struct vs_config *cfg);
int dmn_dev_start(struct dmn_dev *dev);
int dmn_dev_stop(struct dmn_dev *dev);
/* VS_IOC_FLUSH: the hash and observer tables go to the buffers; the next reads return them. */
int dmn_dev_flush(struct dmn_dev *dev);

/*
 * Wait up to timeout_ms (-1: forever, 0: not at all) for data, read what is ready and feed it to
 * d. Returns the bytes read (> 0), 0 at the end of the data (the driver stopped and drained, or
 * the end of a fake file), -EAGAIN when nothing came in time, -EINTR when a signal came, or
 * another -errno.
 */
long dmn_dev_pump(struct dmn_dev *dev, struct dmn *d, int timeout_ms);

/* Driver: one VS_REC_STATS record per CPU (AXPROF_IOC_STATS) fed to d, and the kernel-values
 * counters since dmn_dev_start() (AXPROF_IOC_GLUE, dmn_set_kernel_values). Fake: 0, nothing. */
int dmn_dev_stats(struct dmn_dev *dev, struct dmn *d);

#endif /* DMN_DEV_H */
