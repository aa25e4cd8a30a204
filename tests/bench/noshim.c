/*
 * noshim - run a command inside the sandbox without the shim, for make
 * bench's "without the shim" variants.
 *
 *   noshim PROG [ARG...]
 *
 * Built static, so the shim is not loaded into it and its exec wrapper
 * cannot put LD_PRELOAD back: it removes LD_PRELOAD from the environment
 * and execs PROG, which then runs with the kernel sandbox only.
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: noshim PROG [ARG...]\n");
		return 2;
	}
	unsetenv("LD_PRELOAD");
	execvp(argv[1], argv + 1);
	perror(argv[1]);
	return 127;
}
