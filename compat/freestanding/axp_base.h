/* compat/freestanding/axp_base.h - base types for the -ffreestanding -nostdinc core check. */
#ifndef AXP_BASE_H
#define AXP_BASE_H

/*
 * Nothing here comes from a C library: the types are the compiler's own, the error numbers the
 * Linux values the kernel build gets from <linux/errno.h>. `make check-core` compiles every core
 * file against this header alone.
 */
typedef __UINT8_TYPE__ uint8_t;
typedef __UINT16_TYPE__ uint16_t;
typedef __UINT32_TYPE__ uint32_t;
typedef __UINT64_TYPE__ uint64_t;
typedef __INT8_TYPE__ int8_t;
typedef __INT16_TYPE__ int16_t;
typedef __INT32_TYPE__ int32_t;
typedef __INT64_TYPE__ int64_t;
typedef __UINTPTR_TYPE__ uintptr_t;
typedef __SIZE_TYPE__ size_t;
typedef _Bool bool;
#define true 1
#define false 0
#define NULL ((void *)0)
#define UINT64_MAX 0xffffffffffffffffULL
#define UINT32_MAX 0xffffffffU

#define EPERM 1
#define ENOENT 2
#define EIO 5
#define E2BIG 7
#define EAGAIN 11
#define ENOMEM 12
#define EFAULT 14
#define EBUSY 16
#define EINVAL 22
#define ENOSPC 28
#define ERANGE 34
#define ENOSYS 38
#define EOVERFLOW 75
#define EBADMSG 74
#define EOPNOTSUPP 95

void *memcpy(void *dst, const void *src, size_t n);
void *memset(void *dst, int c, size_t n);

#endif /* AXP_BASE_H */
