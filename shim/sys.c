/*
 * sys.c - raw output for the shim's messages (see sys.h).
 */
#include <errno.h>

#include "sys.h"

void sys_write_all(int fd, const char *buf, size_t n)
{
	int tries = 8;

	while (n > 0 && tries-- > 0) {
		ssize_t w = syscall(SYS_write, fd, buf, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return;
		buf += w;
		n -= (size_t)w;
	}
}
