/*
 * llfloor - landlock-only mode's floor for make bench: what the kernel's
 * two layers cost alone, with nothing of sbxrun around them.
 *
 *   llfloor PROG [ARG...]
 *
 * Built static (no loader, no libc relocations to speak of).  Makes one
 * Landlock ruleset handling every right the running ABI knows (files,
 * TCP, scopes), with three rules: "/" read and execute, the working
 * directory and /tmp everything; restricts itself; sets no_new_privs and
 * loads sbxrun's own precompiled seccomp filter (BUILD/gen/seccomp_bpf.h,
 * landlock-only variant, network off, plain); then execs PROG in place.
 * No fork, no supervisor, no shim, no policy: a sandbox cannot start
 * faster than this with the same kernel layers.
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/filter.h>
#include <linux/seccomp.h>

struct sbx_sc_name {
	int nr;
	const char *name;
};

#include "seccomp_bpf.h"

/* The UAPI, defined here: the build host's headers may predate it. */
struct ll_attr {
	uint64_t fs, net, scoped;
};
struct ll_path {
	uint64_t allowed;
	int32_t fd;
} __attribute__((packed));

#define LL_VERSION 1u
#define LL_RULE_PATH 1
#define LL_FS_EXEC (1ull << 0)
#define LL_FS_READ_FILE (1ull << 2)
#define LL_FS_READ_DIR (1ull << 3)

static int add_path(int rs, const char *path, uint64_t access)
{
	struct ll_path r = { .allowed = access };
	int rc;

	r.fd = open(path, O_PATH | O_CLOEXEC);
	if (r.fd < 0)
		return -1;
	rc = (int)syscall(SYS_landlock_add_rule, rs, LL_RULE_PATH, &r, 0);
	close(r.fd);
	return rc;
}

static int landlock(void)
{
	static const uint64_t fs_by_abi[] = { 0,      0x1fff, 0x3fff,
					      0x7fff, 0x7fff, 0xffff };
	struct ll_attr a = { 0 };
	size_t size = sizeof a;
	long abi = syscall(SYS_landlock_create_ruleset, NULL, 0, LL_VERSION);
	int rs;

	if (abi < 1)
		return -1;
	a.fs = fs_by_abi[abi < 5 ? abi : 5];
	if (abi >= 4)
		a.net = 3; /* bind and connect TCP */
	if (abi >= 6)
		a.scoped = 3; /* abstract unix sockets, signals */
	else
		size = abi >= 4 ? 16 : 8;
	rs = (int)syscall(SYS_landlock_create_ruleset, &a, size, 0);
	if (rs < 0)
		return -1;
	if (add_path(rs, "/", LL_FS_EXEC | LL_FS_READ_FILE | LL_FS_READ_DIR) <
		    0 ||
	    add_path(rs, ".", a.fs) < 0 || add_path(rs, "/tmp", a.fs) < 0 ||
	    prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 ||
	    syscall(SYS_landlock_restrict_self, rs, 0) < 0)
		return -1;
	close(rs);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: llfloor PROG [ARG...]\n");
		return 2;
	}
	if (landlock() < 0) {
		perror("llfloor: landlock");
		return 125;
	}
	/* landlock-only (index 0), network off (1), plain (0). */
	if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0,
		    &sbx_bpf[0][1][0]) < 0) {
		perror("llfloor: seccomp");
		return 125;
	}
	execv(argv[1], argv + 1);
	perror(argv[1]);
	return 127;
}
