/*
 * kernel.h - the Linux kernel boundary: feature probe, the layers
 * (namespaces + mount view, Landlock, seccomp, process hygiene) and the
 * supervisor that spawns and reaps the sandboxed process tree.
 *
 * The launcher never depends on the shim for security: everything in this
 * header is enforced by the kernel.
 */
#ifndef SBX_KERNEL_H
#define SBX_KERNEL_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "policy.h"

struct sbx_features {
	int landlock_abi; /* 0: not available */
	int userns; /* unprivileged user namespaces usable */
	int seccomp; /* seccomp filters available */
	int is_root; /* euid 0 */
	char landlock_why[256]; /* when landlock_abi == 0: why and the fix */
	char userns_why[512]; /* when !userns: why and the exact fix */
	int userns_assumed; /* userns = 1 was not tried (quick probe) */
};

/* Probe what the kernel offers.  quick skips the user namespace trial
 * (a fork) where nothing says it would fail: the launch itself is the
 * trial, and sbx_launch() returns SBX_LAUNCH_NO_USERNS before anything
 * ran when it does fail; the caller probes again in full. */
void sbx_features_probe(struct sbx_features *f, int quick);

/* Which protections hold in a mode: for --dry-run and --status. */
enum sbx_enf {
	SBX_ENF_KERNEL = 0, /* enforced by the kernel */
	SBX_ENF_ADVISORY = 1, /* only the shim (dynamic programs) */
	SBX_ENF_NONE = 2, /* not enforced at all */
};

/* Resolve --mode auto to what this machine can do; -1 + message when a
 * forced mode is unavailable or nothing usable exists (the caller decides
 * about fallback = warn). */
int sbx_mode_resolve(enum sbx_kmode want, const struct sbx_features *f,
		     enum sbx_kmode *out, struct sbx_err *err);

/* Everything the supervisor needs to start one command. */
struct sbx_launch {
	const struct sbx_policy *pol;
	enum sbx_kmode mode; /* FULL or LANDLOCK, already resolved */
	const struct sbx_features *feat;
	int warn_missing; /* fallback = warn: run with what exists */
	char *const *argv; /* argv[0] looked up in envp's PATH */
	char *const *envp; /* the final, scrubbed environment */
	const char *workdir; /* absolute; inside the sandbox */
	const char *policy_file; /* compiled policy on the host, or NULL */
	const char *shim_path; /* libsbxshim.so, or NULL */
	int fd_in, fd_out, fd_err; /* become 0,1,2; -1 = keep ours */
	int keep_tty; /* interactive shell: keep the terminal,
					 * block TIOCSTI instead of setsid */
	int report_fd; /* out: -1, or set by sbx_launch to the
					 * receiving end of the report socket
					 * before the command runs (see
					 * on_report) */
	/* Called by the supervisor loop for each datagram a shim sent; pid is
	 * the kernel-attested sender. May be NULL. */
	void (*on_report)(void *ctx, pid_t pid, const char *rec, size_t len);
	void *report_ctx;
	/* Called for captured output when fd_out/fd_err are -2 (capture);
	 * which is 1 or 2.  May be NULL. */
	void (*on_output)(void *ctx, int which, const char *buf, size_t len);
	void *output_ctx;
	const char *stdin_data; /* with fd_in == -2: fed to stdin */
	size_t stdin_len;
};

struct sbx_exit {
	int code; /* what sbxrun should exit with (DESIGN 9) */
	int status; /* the command's exit status, when it exited */
	int sig; /* the signal that killed it, or 0 */
	int timed_out;
	int exec_errno; /* exec failed in the child: 126/127 */
	uint64_t duration_ns;
};

/* Run one command in the sandbox and wait for the whole tree.
 * Returns 0 with *x filled, or -1 with err set (then nothing ran). */
int sbx_launch(struct sbx_launch *l, struct sbx_exit *x, struct sbx_err *err);
/* sbx_launch() in full mode when the user namespace could not be made
 * (clone or the id maps failed): nothing ran, err says what failed. */
#define SBX_LAUNCH_NO_USERNS (-2)

/* The layers, each usable alone (called in the child, single-threaded,
 * before exec).  All return 0 or -1 with err. */
int sbx_mounts_setup(const struct sbx_launch *l, struct sbx_err *err);
int sbx_landlock_apply(const struct sbx_policy *p, enum sbx_kmode mode, int abi,
		       struct sbx_err *err);
int sbx_seccomp_apply(const struct sbx_policy *p, enum sbx_kmode mode,
		      struct sbx_err *err);

/* Human-readable plan for --dry-run / --status (writes to fp). */
struct _IO_FILE;
void sbx_plan_print(struct _IO_FILE *fp, const struct sbx_policy *p,
		    enum sbx_kmode mode, const struct sbx_features *f);

#endif
