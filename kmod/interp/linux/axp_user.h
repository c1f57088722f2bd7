/* kmod/interp/linux/axp_user.h - axp_interp.ko's exports for other modules. */
#ifndef AXP_USER_H
#define AXP_USER_H

#include "axp.h"

/* Memory operations on `current`'s user address space (process context only). */
extern const struct axp_mem_ops axp_user_mem_ops;

#endif /* AXP_USER_H */
