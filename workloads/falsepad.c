/* workloads/falsepad.c - falseshare.c with each counter padded to a 64-byte line of its own. */
#define FS_PAD 56 /* 64 - sizeof(long) */
#include "falseshare.c"
