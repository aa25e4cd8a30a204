/*
 * backend.c - the Linux backend as the library sees it (kernel.h): the
 * small decisions that depend on the mode, and the table of entry points.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include "cpol.h"
#include "inside.h"
#include "linux.h"
#include "proxy.h"

static struct sbx_features *linux_probe(int quick)
{
	struct sbx_features *f = malloc(sizeof(*f));

	if (f)
		sbx_features_probe(f, quick);
	return f;
}

/* The quick probe assumed user namespaces and the kernel refused them:
 * find out why, and pick the mode again.  If the trial works after all,
 * the launch's own error stands: no silent change of mode for a failure
 * we cannot explain. */
static int linux_reprobe(struct sbx_features *f)
{
	if (!f->userns_assumed)
		return 0;
	sbx_features_probe(f, 0);
	return !f->userns;
}

/* Even with fallback = warn: dropping Landlock to let the network
 * through would drop the filesystem boundary too. */
static int linux_check(const struct sbx_policy *p, enum sbx_kmode mode,
		       struct sbx_err *err)
{
	if (mode == SBX_KMODE_FULL || p->net != SBX_NET_LOOPBACK)
		return 0;
	return sbx_errf(err, 0,
			"--net loopback needs a private network namespace, "
			"which needs user namespaces (see sbxrun --status)");
}

static enum sbx_kmode linux_fallback(const struct sbx_features *f)
{
	return f->userns ? SBX_KMODE_FULL : SBX_KMODE_LANDLOCK;
}

static const char *linux_mode_name(enum sbx_kmode mode)
{
	return mode == SBX_KMODE_FULL ? "full" : "landlock-only";
}

/*
 * Landlock-only mode has no private /dev: the user's other terminals
 * (/dev/pts/N: keystrokes), the host's POSIX shared memory (/dev/shm) and,
 * for a root caller, consoles (/dev/tty1, /dev/console), disks and loop
 * devices would be reachable through "/" (DEV-01).  /dev is hidden;
 * Landlock grants what programs need (null, zero, full, random, urandom,
 * tty: landlock.c's basics), as full mode's minimal /dev has, and the
 * terminal the command was given on fds 0-2.  Those are not rules of the
 * policy: they would read as writable roots in every refusal message.
 */
#define LL_DEV(path, m)                                             \
	{                                                           \
		.root = (path), .mode = (m), .flags = SBX_RF_KMODE, \
		.src = { "landlock-only mode (no private /dev)",    \
			 0 }                                        \
	}
static const struct sbx_rule ll_hidden[] = {
	LL_DEV("/dev", SBX_HIDE),
};

static size_t linux_mode_rules(enum sbx_kmode mode, const struct sbx_rule **v)
{
	*v = ll_hidden;
	return mode == SBX_KMODE_LANDLOCK
		       ? sizeof ll_hidden / sizeof ll_hidden[0]
		       : 0;
}

/* Landlock cannot make a read-only hole in a writable tree: in
 * landlock-only mode the shim keeps protected paths read-only. */
static unsigned linux_cpol_flags(enum sbx_kmode mode)
{
	return mode == SBX_KMODE_LANDLOCK ? SBX_CPOL_F_SHIM_PROTECT : 0;
}

/*
 * network = filtered.  Full mode: the sandbox has a network namespace of
 * its own, where pid 1 makes the listening socket on its loopback at a
 * fixed port (nothing else of the host is there to take it) and hands it
 * out.  Landlock-only: no namespace of its own, so the socket listens on
 * the host's loopback at a port of the kernel's choosing, which every
 * local user can reach: clients must present a per-run secret.
 */
static int linux_proxy_open(enum sbx_kmode mode, struct sbx_proxy_ep *ep,
			    struct sbx_err *err)
{
	memset(ep, 0, sizeof *ep);
	snprintf(ep->addr, sizeof ep->addr, "127.0.0.1");
	ep->fd = -1;
	if (mode == SBX_KMODE_FULL) {
		ep->port = SBX_PROXY_PORT;
		return 0;
	}
	if (sbx_proxy_secret(ep->secret, sizeof ep->secret, err) < 0)
		return -1;
	ep->fd = sbx_proxy_listen(ep->addr, 0, &ep->port, err);
	return ep->fd < 0 ? -1 : 0;
}

/* @sbxrun-<launcher pid>-<64 random bits>: an abstract socket name,
 * unguessable, so nothing outside can bind it first. */
static void linux_report_addr(char *buf, size_t n)
{
	struct timespec ts;
	uint64_t r;

	if (getrandom(&r, sizeof r, GRND_NONBLOCK) != (ssize_t)sizeof r) {
		clock_gettime(CLOCK_MONOTONIC, &ts);
		r = ((uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec) ^
		    ((uint64_t)getpid() << 40);
	}
	snprintf(buf, n, "@sbxrun-%d-%016llx", (int)getpid(),
		 (unsigned long long)r);
}

static void linux_layers(const struct sbx_policy *p, enum sbx_kmode mode,
			 const struct sbx_features *f, char *buf, size_t n)
{
	int full = mode == SBX_KMODE_FULL;

	snprintf(buf, n, "%s%s%s%s", full ? "userns,mntns,pidns,ipcns," : "",
		 full && p->net != SBX_NET_ON ? "netns," : "",
		 f->landlock_abi ? "landlock," : "", "seccomp,rlimits");
}

static size_t linux_feature_lines(const struct sbx_features *f,
				  struct sbx_feature_line *v, size_t max)
{
	if (max < 4)
		return 0;
	v[0] = (struct sbx_feature_line){ "landlock", f->landlock_abi > 0, "" };
	if (f->landlock_abi >= SBX_LL_ABI_BEST)
		snprintf(v[0].detail, sizeof v[0].detail, "ABI %d%s",
			 f->landlock_abi,
			 f->landlock_capped
				 ? ", capped by SBXRUN_TEST_LANDLOCK_ABI"
				 : "");
	else if (f->landlock_abi)
		snprintf(v[0].detail, sizeof v[0].detail,
			 "ABI %d%s; below %d some rows of --dry-run are "
			 "weaker; fix: a kernel with ABI %d (Linux 6.12 or "
			 "later)",
			 f->landlock_abi,
			 f->landlock_capped
				 ? ", capped by SBXRUN_TEST_LANDLOCK_ABI"
				 : "",
			 SBX_LL_ABI_BEST, SBX_LL_ABI_BEST);
	else
		snprintf(v[0].detail, sizeof v[0].detail, "%s",
			 f->landlock_why);
	v[1] = (struct sbx_feature_line){ "user namespaces", f->userns, "" };
	if (!f->userns)
		snprintf(v[1].detail, sizeof v[1].detail, "%s", f->userns_why);
	v[2] = (struct sbx_feature_line){ "seccomp", f->seccomp, "" };
	if (!f->seccomp)
		snprintf(v[2].detail, sizeof v[2].detail,
			 "fix: a kernel with CONFIG_SECCOMP_FILTER, or a "
			 "container runtime that allows seccomp(2)");
	if (!f->userns)
		return 3;
	v[3] = (struct sbx_feature_line){ "fresh /proc", !f->proc_masked, "" };
	if (f->proc_masked)
		snprintf(v[3].detail, sizeof v[3].detail, "%s",
			 sbx_proc_masked_fix);
	return 4;
}

/* The sandbox's seccomp filter answers its own prctl (inside.h). */
static int linux_inside(void)
{
	int e = errno, r;

	r = prctl(SBX_PRCTL_INSIDE, 0, 0, 0, 0) < 0 &&
	    errno == SBX_INSIDE_ERRNO;
	errno = e;
	return r;
}

static const struct sbx_backend linux_backend = {
	.name = "linux",
	.probe = linux_probe,
	.reprobe = linux_reprobe,
	.resolve = sbx_mode_resolve,
	.check = linux_check,
	.fallback = linux_fallback,
	.weaker = sbx_mode_weaker,
	.mode_name = linux_mode_name,
	.mode_rules = linux_mode_rules,
	.cpol_flags = linux_cpol_flags,
	.proxy_open = linux_proxy_open,
	.report_addr = linux_report_addr,
	.launch = sbx_linux_launch,
	.settle = sbx_linux_settle,
	.layers = linux_layers,
	.inside = linux_inside,
	.feature_lines = linux_feature_lines,
	.plan = sbx_linux_plan,
};

const struct sbx_backend *sbx_backend(void)
{
	return &linux_backend;
}
