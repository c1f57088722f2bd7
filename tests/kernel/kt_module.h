/* tests/kernel/kt_module.h - load a kernel module from a guest program (the kernel test's /init,
 * bench/kirq_guest.c). */
#ifndef KT_MODULE_H
#define KT_MODULE_H

#include <errno.h>
#include <fcntl.h>
#include <sys/syscall.h>
#include <unistd.h>

/* finit_module(2) on the file at path with the parameter string params: 0, or -errno. */
static inline int load_module(const char *path, const char *params)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), r;

	if (fd < 0)
		return -errno;
	r = (int)syscall(SYS_finit_module, fd, params, 0);
	r = r ? -errno : 0;
	close(fd);
	return r;
}

#endif /* KT_MODULE_H */
