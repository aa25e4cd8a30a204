/* probe built with _FILE_OFFSET_BITS=64: open, fopen, truncate ... are
 * redirected to their 64 names (open64, fopen64, truncate64 ...). */
#define _FILE_OFFSET_BITS 64
#include "probe.c"
