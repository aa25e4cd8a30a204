/*
 * linux.h - the Linux backend's own interface between its files; the
 * library sees none of it, only struct sbx_backend (backend.c).
 *
 *   features.c   what the kernel offers, and the mode that gives
 *   plan.c       the kernel plan for --dry-run and --status
 *   supervisor.c reaper.c child.c proctree.c (spawn.h)
 *                one command launched and supervised
 *   mounts.c mount_ops.c mount_dev.c (mountview.h)
 *                full mode's mount view
 *   landlock.c   Landlock rules from the policy, both modes
 *   seccomp.c    the precompiled seccomp filter (tools/gen_seccomp.c)
 *   compat.h     the kernel UAPI the system headers may lack
 *
 * Two modes: full (user, mount, pid and ipc namespaces, net where the
 * policy needs one, plus Landlock and seccomp) and landlock-only (no user
 * namespaces: Landlock, seccomp and a keeper process).
 */
#ifndef SBX_LINUX_H
#define SBX_LINUX_H

#include "kernel.h"

struct sbx_features {
	int landlock_abi; /* 0: not available */
	int userns; /* unprivileged user namespaces usable */
	int seccomp; /* seccomp filters available */
	int seccomp_notif; /* user notification (5.0): kernel refusals of
			    * static programs explained (notif.c) */
	int seccomp_filtered; /* already under a seccomp filter: a nested
			       * run may not get a listener */
	int seccomp_in_sbxrun; /* under a filter, with SBXRUN set: another
				* sbxrun's, which refuses a listener */
	int is_root; /* euid 0 */
	char landlock_why[256]; /* when landlock_abi == 0: why and the fix */
	char userns_why[512]; /* when !userns: why and the exact fix */
	int userns_assumed; /* userns = 1 was not tried (quick probe) */
	int landlock_capped; /* SBXRUN_TEST_LANDLOCK_ABI lowered the ABI */
	int nested; /* inside another sbxrun sandbox, under its filter */
	/* A fresh /proc for the pid namespace is refused: the host's /proc
	 * has parts covered by other mounts (a container's masked paths).
	 * Known after a full probe; a quick one leaves it to the launch. */
	int proc_masked;
};

/* The Landlock ABI from which every row of the plan is at its best. */
#define SBX_LL_ABI_BEST 6

/* Is a run in mode weaker than the strongest this backend has (full mode
 * with a fresh /proc, Landlock and seccomp)?  1 with why filled: one line
 * saying why, what is weaker and the fix.  asked: the mode the caller
 * named (SBX_KMODE_AUTO: none), which is not weaker than itself. */
int sbx_mode_weaker(const struct sbx_policy *p, enum sbx_kmode asked,
		    enum sbx_kmode mode, const struct sbx_features *f,
		    char *why, size_t n);

/* The fix for a /proc the kernel will not mount afresh (mount_dev.c). */
extern const char sbx_proc_masked_fix[];

/* Probe what the kernel offers.  quick skips the user namespace trial
 * (a fork) where nothing says it would fail: the launch itself is the
 * trial, and sbx_linux_launch() returns SBX_LAUNCH_RETRY before anything
 * ran when it does fail; the library then probes again in full. */
void sbx_features_probe(struct sbx_features *f, int quick);

/* Resolve --mode auto to what this machine can do; -1 + message when a
 * forced mode is unavailable or nothing usable exists (the caller decides
 * about fallback = warn). */
int sbx_mode_resolve(enum sbx_kmode want, const struct sbx_features *f,
		     enum sbx_kmode *out, struct sbx_err *err);

void sbx_linux_plan(const struct sbx_policy *p, enum sbx_kmode mode,
		    const struct sbx_features *f, struct sbx_plan *out);

/* Run one command in the sandbox and wait for the whole tree (see
 * struct sbx_backend's launch). */
int sbx_linux_launch(struct sbx_launch *l, struct sbx_exit *x,
		     struct sbx_err *err);
/* Wait for pid 1's exit after the tree is gone (struct sbx_backend's
 * settle). */
void sbx_linux_settle(struct sbx_exit *x);

/* The layers, each usable alone (called in the child, single-threaded,
 * before exec).  All return 0 or -1 with err. */
/* 0, or 1: set up with the host's /proc (weaker_ok, a fresh one was
 * refused); -1 with err; -2 with err: the kernel refused the first mount
 * in the new user namespace, nothing changed (the mode may be picked
 * again). */
int sbx_mounts_setup(const struct sbx_launch *l, struct sbx_err *err);
/* proxy_port: network = filtered in landlock-only mode, the one port
 * connect(2) may reach. */
int sbx_landlock_apply(const struct sbx_policy *p, enum sbx_kmode mode, int abi,
		       uint16_t proxy_port, struct sbx_err *err);
/* Full mode, pid 1, before the mount view: which hidden paths the command
 * could reach if the mounts did not cover them (landlock.c). */
void sbx_landlock_survey(const struct sbx_policy *p);
/* The size of full mode's private /tmp in bytes, 0: the kernel's
 * default (mounts.c). */
uint64_t sbx_tmp_size(const struct sbx_policy *p);
/* Does this kernel keep pid_max per pid namespace (6.14+)?  child.c */
int sbx_pidns_has_pid_max(void);
/* Load the filter.  With listener non-NULL, the notify variant if the
 * kernel gives us a listener (*listener: its fd, else -1 and the plain
 * variant). */
int sbx_seccomp_apply(const struct sbx_policy *p, enum sbx_kmode mode,
		      int *listener, struct sbx_err *err);
struct seccomp_data;
/* The errno the plain filter gives a call, never 0 (seccomp.c). */
int sbx_seccomp_errno(const struct sbx_policy *p, enum sbx_kmode mode,
		      const struct seccomp_data *d);
/* The name of a call the notify filter refuses, or NULL. */
const char *sbx_seccomp_name(int nr);

#endif
