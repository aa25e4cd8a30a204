/*
 * ctorlib.so - calls hooked functions from a library constructor, which
 * may run before the shim's own constructor (tests/shim/shim.bats loads
 * it before and after the shim in LD_PRELOAD).  CTORLIB_OPEN names a file
 * to create; the constructor prints "ctor rc errno" on stdout.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

__attribute__((constructor)) static void early(void)
{
	const char *p = getenv("CTORLIB_OPEN");
	int fd, err;

	if (!p)
		return;
	errno = 0;
	fd = open(p, O_WRONLY | O_CREAT, 0644);
	err = errno;
	printf("ctor %d %d\n", fd < 0 ? -1 : 0, fd < 0 ? err : 0);
	fflush(stdout);
	if (fd >= 0)
		close(fd);
}
