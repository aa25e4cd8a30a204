/*
 * nouserns - run a command the way a container runtime or AppArmor would
 * leave it, for tests/env: a seccomp filter, inherited by everything the
 * command starts, and nothing else changed on the host.
 *
 *   nouserns early CMD ARGS...   clone/unshare with CLONE_NEWUSER fail
 *                                with EPERM (clone3 with ENOSYS, so libc
 *                                falls back to clone): Docker's default
 *                                profile
 *   nouserns late CMD ARGS...    user namespaces are created, but every
 *                                mount in them fails with EPERM:
 *                                Ubuntu's AppArmor restriction
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>

#ifndef CLONE_NEWUSER
#define CLONE_NEWUSER 0x10000000
#endif

#if defined(__x86_64__)
#define ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define ARCH AUDIT_ARCH_AARCH64
#else
#error "nouserns: add this architecture's AUDIT_ARCH"
#endif

#define LD(off) BPF_STMT(BPF_LD | BPF_W | BPF_ABS, (off))
#define IS(nr, t, f) BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (nr), (t), (f))
#define RET(v) BPF_STMT(BPF_RET | BPF_K, (v))
#define ERR(e) RET(SECCOMP_RET_ERRNO | (e))
#define NR offsetof(struct seccomp_data, nr)
#define ARG0 offsetof(struct seccomp_data, args[0])

static struct sock_filter early[] = {
	LD(offsetof(struct seccomp_data, arch)),
	IS(ARCH, 1, 0),
	RET(SECCOMP_RET_ALLOW),
	LD(NR),
	IS(__NR_clone3, 0, 1),
	ERR(ENOSYS),
	IS(__NR_clone, 1, 0),
	IS(__NR_unshare, 0, 3),
	LD(ARG0),
	BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, CLONE_NEWUSER, 0, 1),
	ERR(EPERM),
	RET(SECCOMP_RET_ALLOW),
};

static struct sock_filter late[] = {
	LD(offsetof(struct seccomp_data, arch)),
	IS(ARCH, 1, 0),
	RET(SECCOMP_RET_ALLOW),
	LD(NR),
	IS(__NR_mount, 6, 0),
	IS(__NR_mount_setattr, 5, 0),
	IS(__NR_open_tree, 4, 0),
	IS(__NR_move_mount, 3, 0),
	IS(__NR_fsopen, 2, 0),
	IS(__NR_fsmount, 1, 0),
	RET(SECCOMP_RET_ALLOW),
	ERR(EPERM),
};

int main(int argc, char **argv)
{
	struct sock_fprog prog;

	if (argc < 3 || (strcmp(argv[1], "early") && strcmp(argv[1], "late"))) {
		fprintf(stderr, "usage: nouserns early|late CMD ARGS...\n");
		return 2;
	}
	if (!strcmp(argv[1], "early"))
		prog = (struct sock_fprog){ sizeof early / sizeof early[0],
					    early };
	else
		prog = (struct sock_fprog){ sizeof late / sizeof late[0],
					    late };
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 ||
	    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) < 0) {
		perror("nouserns: seccomp");
		return 2;
	}
	execvp(argv[2], argv + 2);
	perror(argv[2]);
	return 127;
}
