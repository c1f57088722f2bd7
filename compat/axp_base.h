/* compat/axp_base.h - base types and error numbers for the core, user-space build. */
#ifndef AXP_BASE_H
#define AXP_BASE_H

#include <stdint.h>
#include <stdbool.h>
#include <stddef.h>
#include <errno.h>
#include <string.h>

#endif /* AXP_BASE_H */
