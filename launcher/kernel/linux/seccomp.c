/*
 * seccomp.c - the seccomp-bpf layer: load the precompiled filter, and
 * read it back for the supervisor's listener.
 *
 * The rules and the reasons for each are in tools/gen_seccomp.c, which
 * builds the filters with libseccomp at build time (seccomp_bpf.h, in the
 * build directory).  Here we only pick the variant for the policy and
 * mode and hand it to the kernel: no filter is compiled per launch.
 *
 * Two variants of each filter: the plain one answers every refusal with
 * its errno in the kernel; the notify one sends the same refusals (not the
 * ENOSYS ones, which only steer libc) to a listener in the supervisor
 * (notif.c), which answers with that same errno -- computed here by
 * running the plain variant over the call -- and explains it.  Allowed
 * calls take the same path through both.  The notify variant is loaded
 * when the kernel has user notification (5.0) and may give us a listener:
 * not under a filter of ours that refuses SECCOMP_FILTER_FLAG_NEW_LISTENER
 * (a nested sbxrun), nor under another listener (EBUSY).  Else the plain
 * one, silently; --dry-run says which refusals are explained.
 */
#include <errno.h>
#include <stddef.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/filter.h>
#include <linux/seccomp.h>

#include "compat.h"
#include "linux.h"

struct sbx_sc_name {
	int nr;
	const char *name;
};

#include "seccomp_bpf.h"

/*
 * The network variant of the filter: no internet sockets with network =
 * off (1); TCP only with "filtered" outside a private network namespace
 * (2): Landlock lets connect(2) reach the proxy's port alone, and seccomp
 * refuses what Landlock cannot see (UDP, TCP Fast Open); otherwise (0)
 * the odd families and protocols only (in full mode a filtered network's
 * namespace has no route anyway).
 */
static int sc_net(const struct sbx_policy *p, enum sbx_kmode mode)
{
	if (p->net == SBX_NET_OFF)
		return 1;
	return p->net == SBX_NET_FILTERED && mode != SBX_KMODE_FULL ? 2 : 0;
}

static const struct sock_fprog *sc_prog(const struct sbx_policy *p,
					enum sbx_kmode mode, int notif)
{
	return &sbx_bpf[notif][sc_net(p, mode)][mode == SBX_KMODE_FULL];
}

int sbx_seccomp_apply(const struct sbx_policy *p, enum sbx_kmode mode,
		      int *listener, struct sbx_err *err)
{
	long fd;

	/* Without no_new_privs an unprivileged filter load fails, and
	 * set-uid programs must not run under a filter they did not ask
	 * for. */
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		return sbx_errf(err, errno, "seccomp: cannot set no_new_privs");
	if (listener) {
		*listener = -1;
		fd = syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER,
			     SECCOMP_FILTER_FLAG_NEW_LISTENER,
			     sc_prog(p, mode, 1));
		if (fd >= 0) {
			*listener = (int)fd;
			return 0;
		}
		/* EINVAL (no user notification), EBUSY (a listener
		 * above us), EPERM (an outer sbxrun's filter): plain. */
	}
	if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0,
		    sc_prog(p, mode, 0)) < 0)
		return sbx_errf(err, errno, "seccomp: cannot load the filter");
	return 0;
}

/* Classic BPF as libseccomp emits it: loads of seccomp_data words, jumps
 * on constants, AND with a constant, return.  Anything else: refuse. */
static uint32_t bpf_run(const struct sock_fprog *prog,
			const struct seccomp_data *d)
{
	const unsigned char *data = (const unsigned char *)d;
	uint32_t a = 0;

	for (unsigned pc = 0; pc < prog->len; pc++) {
		const struct sock_filter *f = &prog->filter[pc];

		switch (f->code) {
		case BPF_LD | BPF_W | BPF_ABS:
			if (f->k > sizeof *d - 4 || f->k % 4)
				return SECCOMP_RET_ERRNO | EPERM;
			memcpy(&a, data + f->k, 4);
			break;
		case BPF_ALU | BPF_AND | BPF_K: a &= f->k; break;
		case BPF_JMP | BPF_JA: pc += f->k; break;
		case BPF_JMP | BPF_JEQ | BPF_K:
			pc += a == f->k ? f->jt : f->jf;
			break;
		case BPF_JMP | BPF_JGT | BPF_K:
			pc += a > f->k ? f->jt : f->jf;
			break;
		case BPF_JMP | BPF_JGE | BPF_K:
			pc += a >= f->k ? f->jt : f->jf;
			break;
		case BPF_JMP | BPF_JSET | BPF_K:
			pc += a & f->k ? f->jt : f->jf;
			break;
		case BPF_RET | BPF_K: return f->k;
		default: return SECCOMP_RET_ERRNO | EPERM;
		}
	}
	return SECCOMP_RET_ERRNO | EPERM;
}

/*
 * The errno the plain filter gives the call the notify filter sent us.
 * Never 0: the listener only refuses (a call it cannot place, or that the
 * plain filter would allow, gets EPERM), so no race over the call's
 * arguments can widen what the sandbox allows.
 */
int sbx_seccomp_errno(const struct sbx_policy *p, enum sbx_kmode mode,
		      const struct seccomp_data *d)
{
	uint32_t r = bpf_run(sc_prog(p, mode, 0), d);
	int e = (int)(r & SECCOMP_RET_DATA);

	if ((r & SECCOMP_RET_ACTION_FULL) != SECCOMP_RET_ERRNO || e <= 0 ||
	    e > 4095)
		return EPERM;
	return e;
}

/* The name of a call the notify filter refuses, or NULL. */
const char *sbx_seccomp_name(int nr)
{
	for (size_t i = 0; i < sizeof sbx_sc_names / sizeof sbx_sc_names[0];
	     i++)
		if (sbx_sc_names[i].nr == nr)
			return sbx_sc_names[i].name;
	return NULL;
}
