/* kmod/interp/linux/axp_base.h - base types and error numbers for the core, Linux kernel build. */
#ifndef AXP_BASE_H
#define AXP_BASE_H

#include <linux/types.h>
#include <linux/stddef.h>
#include <linux/errno.h>
#include <linux/string.h>

#endif /* AXP_BASE_H */
