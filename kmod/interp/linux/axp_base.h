/* kmod/interp/linux/axp_base.h - base types and error numbers for the core, Linux kernel build. */
#ifndef AXP_BASE_H
#define AXP_BASE_H

#include <linux/types.h>
#include <linux/stddef.h>
#include <linux/errno.h>
#include <linux/string.h>
#include <linux/limits.h>

/* The core spells the C99 limits; the kernel has them as U32_MAX/U64_MAX. */
#ifndef UINT32_MAX
#define UINT32_MAX U32_MAX
#endif
#ifndef UINT64_MAX
#define UINT64_MAX U64_MAX
#endif

#endif /* AXP_BASE_H */
