/* probe built with -D_FORTIFY_SOURCE=2: open/openat without a mode reach
 * the shim as __open_2 / __openat_2. */
#undef _FORTIFY_SOURCE
#define _FORTIFY_SOURCE 2
#include "probe.c"
