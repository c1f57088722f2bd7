/* daemon/dmn_dev.c - the daemon's side of /dev/axprof (or a file of records standing in for it). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dmn_dev.h"
#include "linux/axprof_ioctl.h"

#define DEV_BUF (256u << 10) /* bytes per read */

int dmn_dev_open(struct dmn_dev *dev, const char *path)
{
	struct stat st;
	int ret;

	memset(dev, 0, sizeof(*dev));
	dev->fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (dev->fd < 0)
		return -errno;
	if (fstat(dev->fd, &st)) {
		ret = -errno;
		goto out_close;
	}
	dev->cap = DEV_BUF + VS_REC_MAX;
	dev->buf = malloc(dev->cap);
	if (!dev->buf) {
		ret = -ENOMEM;
		goto out_close;
	}
	if (!S_ISCHR(st.st_mode)) {
		dev->fake = true;
		dev->info = (struct vs_info){ VS_ABI_VERSION, 1, VS_REC_MAX, 0 };
		return 0;
	}
	if (ioctl(dev->fd, VS_IOC_INFO, &dev->info)) {
		ret = -errno;
		goto out_free;
	}
	if (dev->info.abi_version != VS_ABI_VERSION) {
		ret = -EPROTO;
		goto out_free;
	}
	return 0;

out_free:
	free(dev->buf);
	dev->buf = NULL;
out_close:
	close(dev->fd);
	dev->fd = -1;
	return ret;
}

void dmn_dev_close(struct dmn_dev *dev)
{
	if (dev->fd >= 0)
		close(dev->fd);
	dev->fd = -1;
	free(dev->buf);
	dev->buf = NULL;
}

static int dev_ioctl(struct dmn_dev *dev, unsigned long cmd, void *arg)
{
	if (dev->fake)
		return 0;
	return ioctl(dev->fd, cmd, arg) ? -errno : 0;
}

int dmn_dev_configure(struct dmn_dev *dev, const struct vs_config *cfg)
{
	struct vs_config c = *cfg;

	return dev_ioctl(dev, VS_IOC_SET_CONFIG, &c);
}

const char *const dmn_kv_name[DMN_KV_NR] = {
	"chosen",
	"refused_not_task",
	"refused_irqs_off",
	"refused_preempt",
	"refused_bad_pc",
	"refused_busy",
	"ran",
	"stop_budget",
	"stop_unknown_reg",
	"stop_call_pal",
	"stop_address",
	"stop_fault",
	"stop_store_buffer",
	"stop_other",
	"cycles",
};
_Static_assert(DMN_KV_NR == AXPROF_G_NR - AXPROF_G_K_CHOSEN, "every kernel-values counter named");

/* The driver's kernel-values counters now (cumulative since the module was loaded). */
static int kv_read(struct dmn_dev *dev, uint64_t kv[DMN_KV_NR])
{
	struct axprof_glue g;
	int ret = dev_ioctl(dev, AXPROF_IOC_GLUE, &g);

	if (!ret)
		memcpy(kv, &g.c[AXPROF_G_K_CHOSEN], DMN_KV_NR * sizeof(uint64_t));
	return ret;
}

int dmn_dev_start(struct dmn_dev *dev)
{
	if (!dev->fake && kv_read(dev, dev->kv0))
		memset(dev->kv0, 0, sizeof(dev->kv0));
	return dev_ioctl(dev, VS_IOC_START, NULL);
}

int dmn_dev_stop(struct dmn_dev *dev)
{
	return dev_ioctl(dev, VS_IOC_STOP, NULL);
}

int dmn_dev_flush(struct dmn_dev *dev)
{
	return dev_ioctl(dev, VS_IOC_FLUSH, NULL);
}

long dmn_dev_pump(struct dmn_dev *dev, struct dmn *d, int timeout_ms)
{
	struct pollfd pfd = { .fd = dev->fd, .events = POLLIN };
	ssize_t n;
	long used;

	if (dev->fake && dev->eof)
		return 0;
	if (!dev->fake && timeout_ms) {
		int r = poll(&pfd, 1, timeout_ms);

		if (r < 0)
			return -errno;
		if (r == 0)
			return -EAGAIN;
	}
	n = read(dev->fd, dev->buf + dev->fill, dev->cap - dev->fill);
	if (n < 0) {
		if (errno == EAGAIN && dev->fake && timeout_ms) {
			/* A pipe with nothing yet: wait as for the driver. */
			int r = poll(&pfd, 1, timeout_ms);

			if (r < 0)
				return -errno;
			return -EAGAIN;
		}
		return -errno;
	}
	dev->reads++;
	dev->bytes += (uint64_t)n;
	if (n == 0) {
		if (!dev->fake)
			return 0;
		dev->eof = true;
		if (dev->fill)
			dmn_feed(d, dev->buf, dev->fill, true);
		dev->fill = 0;
		return 0;
	}
	dev->fill += (size_t)n;
	used = dmn_feed(d, dev->buf, dev->fill, !dev->fake);
	if (used < 0)
		return used;
	memmove(dev->buf, dev->buf + used, dev->fill - (size_t)used);
	dev->fill -= (size_t)used;
	return (long)n;
}

int dmn_dev_stats(struct dmn_dev *dev, struct dmn *d)
{
	struct axprof_stats_req req = { 0 };
	size_t len = (size_t)(dev->info.ncpus ? dev->info.ncpus : 1) * sizeof(struct vs_rec_stats);
	uint8_t *buf;
	int n;

	if (dev->fake)
		return 0;
	buf = calloc(1, len);
	if (!buf)
		return -ENOMEM;
	req.buf = (uint64_t)(uintptr_t)buf;
	req.len = (uint32_t)len;
	n = ioctl(dev->fd, AXPROF_IOC_STATS, &req);
	if (n < 0) {
		n = -errno;
	} else {
		uint64_t kv[DMN_KV_NR];

		dmn_feed(d, buf, (size_t)n, true);
		n = 0;
		if (!kv_read(dev, kv)) {
			for (unsigned int i = 0; i < DMN_KV_NR; i++)
				kv[i] -= dev->kv0[i];
			dmn_set_kernel_values(d, kv);
		}
	}
	free(buf);
	return n;
}
