/*
 * seccomp.c - the seccomp-bpf layer: load the precompiled filter.
 *
 * The rules and the reasons for each are in tools/gen_seccomp.c, which
 * builds the filters with libseccomp at build time (seccomp_bpf.h, in the
 * build directory).  Here we only pick the variant for the policy and
 * mode and hand it to the kernel: no filter is compiled per launch, and
 * libseccomp is not loaded into sbxrun at all.
 */
#include <errno.h>
#include <stddef.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/filter.h>
#include <linux/seccomp.h>

#include "linux.h"
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

int sbx_seccomp_apply(const struct sbx_policy *p, enum sbx_kmode mode,
		      struct sbx_err *err)
{
	const struct sock_fprog *prog =
		&sbx_bpf[sc_net(p, mode)][mode == SBX_KMODE_FULL];

	/* Without no_new_privs an unprivileged filter load fails, and
	 * set-uid programs must not run under a filter they did not ask
	 * for. */
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		return sbx_errf(err, errno, "seccomp: cannot set no_new_privs");
	if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, prog) < 0)
		return sbx_errf(err, errno, "seccomp: cannot load the filter");
	return 0;
}
