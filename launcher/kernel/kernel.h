/*
 * kernel.h - the kernel backend interface.
 *
 * libsbx (launcher/lib) reaches the kernel only through struct
 * sbx_backend: probing what the machine offers, picking the mode, the
 * kernel mode's own rules, launching one command and supervising it, and
 * the plan that --dry-run and --status show.  Each backend lives in a
 * folder of its own under launcher/kernel/ (linux/ today: namespaces,
 * mounts, Landlock, seccomp, the supervisor) and defines sbx_backend();
 * GNUmakefile builds the folder of the target system.  A second backend
 * (macOS Seatbelt) is a new folder, not a change to the library or the
 * CLI.  A backend may use core/ and nothing of the library.
 *
 * The launcher never depends on the shim for security: what a backend
 * enforces, the kernel enforces.
 */
#ifndef SBX_KERNEL_H
#define SBX_KERNEL_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "policy.h"

/* What the machine offers.  The backend's own; the library only holds
 * it (probe() allocates it, free() releases it). */
struct sbx_features;

/* Which protections hold in a mode, and by what: --dry-run, --status. */
enum sbx_enf {
	SBX_ENF_KERNEL = 0, /* enforced by the kernel */
	SBX_ENF_ADVISORY = 1, /* only the shim (dynamic programs) */
	SBX_ENF_NONE = 2, /* not enforced at all */
	SBX_ENF_LAUNCHER = 3, /* by the launcher from outside (before
				 * exec, or the supervisor): not the kernel,
				 * not bypassable from inside either */
	SBX_ENF_PARTIAL = 4, /* kernel-enforced, with a stated gap */
};

#define SBX_PLAN_MAX_ROWS 32
#define SBX_PLAN_MAX_NOTES 8

struct sbx_plan_row {
	const char *what; /* "hidden paths (contents)" */
	enum sbx_enf enf;
	const char *how; /* "mount namespace: empty tmpfs ..." */
};

struct sbx_plan {
	char head[256]; /* "mode full; Landlock ABI 7; ..." */
	struct sbx_plan_row rows[SBX_PLAN_MAX_ROWS];
	size_t nrows;
	char notes[SBX_PLAN_MAX_NOTES][512];
	size_t nnotes;
};

/* One line of --status: a kernel feature, whether it is there, and its
 * detail ("ABI 7") or, when missing, why and the exact fix. */
struct sbx_feature_line {
	const char *name; /* "landlock", "user namespaces", ... */
	int have;
	char detail[512];
};

#define SBX_MAX_FEATURE_LINES 8

/* network = filtered: where the command finds the filtering proxy the
 * supervisor runs (proxy_open()).  The library puts it in the command's
 * environment (env.c) and hands it back to launch(). */
struct sbx_proxy_ep {
	char addr[48]; /* "127.0.0.1", as the command reaches it */
	uint16_t port;
	char secret[48]; /* "user:password" clients present, or "" */
	int fd; /* a listening socket made before the launch, or -1
		 * (full mode: pid 1 makes it inside the sandbox) */
};

/* Everything the backend needs to start one command. */
struct sbx_launch {
	const struct sbx_policy *pol; /* sbx_policy_for_run()'s */
	enum sbx_kmode mode; /* resolved */
	const struct sbx_features *feat;
	int warn_missing; /* fallback = warn: run with what exists */
	int weaker_ok; /* fallback = warn: a weaker sandbox found only at
			* launch (Linux: the host's /proc) runs, said */
	char *const *argv; /* argv[0] looked up in envp's PATH */
	char *const *envp; /* the final environment, as the command
				 * sees it (launcher/lib/env.c) */
	const char *workdir; /* absolute; inside the sandbox */
	const char *policy_file; /* compiled policy on the host, or NULL */
	const char *shim_path; /* libsbxshim.so, or NULL */
	const char *report_addr; /* report_addr()'s, also in envp */
	int fd_in, fd_out, fd_err; /* become 0,1,2; -1 = keep ours;
					 * -2 = a pipe to or from us */
	int keep_tty; /* interactive shell: keep the terminal,
					 * block TIOCSTI instead of setsid */
	int report_fd; /* out: -1, or the receiving end of the
					 * report channel while the command
					 * runs (see on_report) */
	/* Called by the supervisor for each datagram a shim sent; pid is
	 * the kernel-attested sender.  May be NULL. */
	void (*on_report)(void *ctx, pid_t pid, const char *rec, size_t len);
	void *report_ctx;
	/* Called for captured output when fd_out/fd_err are -2; which is 1
	 * or 2.  May be NULL. */
	void (*on_output)(void *ctx, int which, const char *buf, size_t len);
	void *output_ctx;
	/* Called as soon as something is known to run with less protection
	 * than asked (fallback = warn: a layer that could not be applied).
	 * May be NULL. */
	void (*on_warning)(void *ctx, const char *msg);
	void *warning_ctx;
	const char *stdin_data; /* with fd_in == -2: fed to stdin */
	size_t stdin_len;
	/* network = filtered: the proxy's endpoint (launch() takes over
	 * its fd) and the compiled policy it decides over; else NULL. */
	struct sbx_proxy_ep *proxy;
	const void *cpol;
	size_t cpol_len;
};

struct sbx_exit {
	int code; /* what sbxrun should exit with (DESIGN 9) */
	int status; /* the command's exit status, when it exited */
	int sig; /* the signal that killed it, or 0 */
	int timed_out;
	int exec_errno; /* exec failed in the child: 126/127 */
	uint64_t duration_ns;
	/* Linux: the tree is gone but pid 1 may still be tearing its
	 * namespaces down; settle() waits for it.  -1: nothing to wait. */
	int settle_fd;
	pid_t settle_pid;
};

/* launch(): the sandbox could not be made and nothing ran, for a reason
 * a full probe may explain (Linux: the kernel refused the user
 * namespace the quick probe assumed).  The library asks reprobe(). */
#define SBX_LAUNCH_RETRY (-2)

struct sbx_backend {
	const char *name; /* "linux" */

	/* What the kernel offers; NULL without memory.  quick may assume
	 * what the launch itself will find out (see SBX_LAUNCH_RETRY). */
	struct sbx_features *(*probe)(int quick);
	/* After SBX_LAUNCH_RETRY: probe again in full.  1 when the mode
	 * should be picked again, 0 when the launch's error stands. */
	int (*reprobe)(struct sbx_features *f);

	/* The mode --mode asks for (SBX_KMODE_AUTO: the strongest), or -1
	 * with err when this machine cannot provide it. */
	int (*resolve)(enum sbx_kmode want, const struct sbx_features *f,
		       enum sbx_kmode *out, struct sbx_err *err);
	/* Can the mode carry this policy?  -1 with err when it cannot: the
	 * run is refused even under fallback = warn. */
	int (*check)(const struct sbx_policy *p, enum sbx_kmode mode,
		     struct sbx_err *err);
	/* fallback = warn and resolve() failed: the mode to run in anyway,
	 * with what exists. */
	enum sbx_kmode (*fallback)(const struct sbx_features *f);
	/* Is a run in mode weaker than the strongest sandbox this backend
	 * makes (asked: the mode the caller named, SBX_KMODE_AUTO if none)?
	 * 1 with why: one line, why, what is weaker, and the fix. */
	int (*weaker)(const struct sbx_policy *p, enum sbx_kmode asked,
		      enum sbx_kmode mode, const struct sbx_features *f,
		      char *why, size_t n);
	/* "full", "landlock-only". */
	const char *(*mode_name)(enum sbx_kmode mode);

	/* The rules a policy gets in this mode (sbx_policy_for_run). */
	size_t (*mode_rules)(enum sbx_kmode mode, const struct sbx_rule **v);
	/* The compiled-policy flags the shim needs in this mode. */
	unsigned (*cpol_flags)(enum sbx_kmode mode);
	/* network = filtered: where the command will reach the proxy in
	 * this mode, with anything that must exist before the environment
	 * is built (landlock-only: the listening socket, a secret).  0, or
	 * -1 with err. */
	int (*proxy_open)(enum sbx_kmode mode, struct sbx_proxy_ep *ep,
			  struct sbx_err *err);
	/* The address of a new report channel, as SBXRUN_REPORT names it. */
	void (*report_addr)(char *buf, size_t n);
	/* Run one command and wait for the whole tree: 0 with *x filled,
	 * -1 with err (nothing ran), or SBX_LAUNCH_RETRY. */
	int (*launch)(struct sbx_launch *l, struct sbx_exit *x,
		      struct sbx_err *err);
	/* After launch() returned 0 and the exit repair is done: wait for
	 * what is left of the run to end (no process of the sandbox runs
	 * any more; Linux: pid 1's own exit), so that nothing of the run
	 * outlives sbx_run().  Once, whatever launch() returned. */
	void (*settle)(struct sbx_exit *x);
	/* The kernel layers of a run in this mode, comma-separated. */
	void (*layers)(const struct sbx_policy *p, enum sbx_kmode mode,
		       const struct sbx_features *f, char *buf, size_t n);

	/* 1 when the calling process runs inside a sandbox this backend
	 * made, by the kernel's word (not the environment's), else 0. */
	int (*inside)(void);

	/* --status: one line per kernel feature; returns how many. */
	size_t (*feature_lines)(const struct sbx_features *f,
				struct sbx_feature_line *v, size_t max);
	/* --dry-run, --status: which protection holds in mode, by what. */
	void (*plan)(const struct sbx_policy *p, enum sbx_kmode mode,
		     const struct sbx_features *f, struct sbx_plan *out);
};

/* The backend of this build. */
const struct sbx_backend *sbx_backend(void);

#endif
