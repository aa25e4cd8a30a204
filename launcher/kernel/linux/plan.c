/*
 * plan.c - the kernel plan of the Linux backend: which protection holds in
 * a mode, and by what (kernel, launcher, shim only, not at all), with the
 * gaps said.  --dry-run and --status show it; tests/cli checks it.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "linux.h"

struct plan {
	const struct sbx_policy *p;
	int full; /* full mode, else landlock-only */
	int abi; /* Landlock ABI in use, 0 if none */
	int sc; /* seccomp available */
	int notif; /* seccomp user notification: the listener */
	int nested; /* already under a seccomp filter */
	int in_sbxrun; /* under another sbxrun's filter */
	int pidmax; /* pid_max per pid namespace (Linux 6.14) */
	int hostproc; /* full mode with the host's /proc (masked /proc) */
};

struct cell {
	enum sbx_enf e;
	const char *how;
};

#define CELL(e, how) ((struct cell){ (e), (how) })

static struct cell row_hidden(const struct plan *c)
{
	if (c->full && !c->abi)
		return CELL(SBX_ENF_PARTIAL,
			    "mount namespace: empty tmpfs or /dev/null over "
			    "each; without Landlock a secret created, or "
			    "replaced by rename, during the run is readable");
	if (c->full)
		return CELL(SBX_ENF_KERNEL,
			    "mount namespace: empty tmpfs or /dev/null over "
			    "each, and Landlock grants nothing along the way: "
			    "one created or replaced during the run stays "
			    "unreadable");
	return CELL(SBX_ENF_KERNEL,
		    "Landlock: nothing granted there, whether it exists "
		    "at launch or appears later; the directories above them "
		    "cannot be listed");
}

static struct cell row_hidden_meta(const struct plan *c)
{
	/* W-18: a hidden path that exists is a mount point, listed by
	 * /proc/self/mountinfo; masking that file breaks findmnt and df. */
	if (c->full)
		return CELL(SBX_ENF_PARTIAL,
			    "mount namespace; which hidden paths exist is "
			    "listed in /proc/self/mountinfo (mount points), "
			    "not their contents, size or times");
	return CELL(SBX_ENF_NONE,
		    "Landlock cannot hide existence, size or times "
		    "from stat(2)");
}

static struct cell row_readonly(const struct plan *c)
{
	if (c->full)
		return CELL(SBX_ENF_KERNEL,
			    c->abi ? "read-only bind mounts + Landlock"
				   : "read-only bind mounts");
	if (c->abi < 3)
		return CELL(SBX_ENF_KERNEL,
			    "Landlock; truncate(2) is not covered "
			    "before ABI 3");
	return CELL(SBX_ENF_KERNEL,
		    "Landlock: no write rights outside writable roots");
}

static struct cell row_attrs(const struct plan *c)
{
	if (c->full)
		return CELL(SBX_ENF_KERNEL, "read-only mounts: EROFS");
	/* Landlock has no attribute rights: seccomp sends the calls to the
	 * supervisor, which does them only in writable paths (attr.c). */
	if (!c->sc)
		return CELL(SBX_ENF_ADVISORY,
			    "shim only: Landlock has no attribute rights and "
			    "there is no seccomp");
	if (!c->notif || c->in_sbxrun)
		return CELL(SBX_ENF_KERNEL,
			    "seccomp: refused everywhere (EPERM), in writable "
			    "paths too: no seccomp listener here to do them "
			    "for the command");
	return CELL(SBX_ENF_KERNEL,
		    "seccomp: the supervisor does them for the command, "
		    "only in writable paths (EACCES elsewhere), by "
		    "descriptor; unless the filter sbxrun runs under refuses "
		    "a listener: then refused everywhere");
}

static struct cell row_writable(const struct plan *c)
{
	if (c->full)
		return CELL(SBX_ENF_KERNEL,
			    c->abi ? "read-write bind mounts + Landlock"
				   : "read-write bind mounts");
	if (c->abi < 2)
		return CELL(SBX_ENF_KERNEL,
			    "Landlock; ABI 1 refuses every rename or "
			    "link across directories with EXDEV");
	return CELL(SBX_ENF_KERNEL, "Landlock write rights");
}

/* The bounds of gitrepo.c's walks (E-18, N-38). */
#define PROTECT_BELOW                                                      \
	"; below the project root, nested repositories and per-directory " \
	"names (.cargo, .npmrc, .yarnrc, .envrc, mise.toml, .bazelrc, "    \
	".vscode...) existing at launch are protected only 3 directory "   \
	"levels down (2 for directories without subdirectories) and in "   \
	"the first 1,000 directories (deeper ones are "                    \
	"NOT protected); ones created during the run are moved aside "     \
	"(names) or reported (repositories) at exit, 5,000 directories "   \
	"searched"

static struct cell row_protect(const struct plan *c)
{
	if (c->full)
		return CELL(
			SBX_ENF_PARTIAL,
			"read-only bind mounts for the ones that exist at "
			"launch (git's commondir, worktrees, submodules and "
			"include files too), kept for the whole run: one a "
			"program outside replaces is made read-only again "
			"by pid 1 and named in the run's warnings, but a "
			"sandboxed process may write it in the moment "
			"between, or write the lock file the host renames "
			"over it; created later: not enforced, moved "
			"aside at exit (a program outside may read one "
			"before; if sbxrun is killed, the next run in the "
			"project does it, and one may be read until then); "
			"in repositories created during the run: "
			"reported at exit" PROTECT_BELOW);
	return CELL(SBX_ENF_ADVISORY,
		    "shim only: Landlock cannot make a read-only "
		    "hole in a writable tree; what a program that bypasses "
		    "the shim changes is put back at exit (a program "
		    "outside may read it before); created later: moved "
		    "aside at exit (if sbxrun is killed, by the next run "
		    "in the project: read until then; a change to an "
		    "existing one is then not put back); in "
		    "repositories created during the run: reported at "
		    "exit" PROTECT_BELOW);
}

static struct cell row_devices(const struct plan *c)
{
	if (c->full)
		return CELL(SBX_ENF_KERNEL,
			    "minimal /dev with a private devpts and "
			    "/dev/shm; ipc namespace for SysV IPC");
	return CELL(SBX_ENF_KERNEL,
		    "Landlock: /dev hidden but null, zero, full, random, "
		    "urandom, tty and the command's own terminal; seccomp "
		    "refuses SysV IPC");
}

static struct cell row_nproc(const struct plan *c)
{
	if (c->p->limits.nproc == 0)
		return CELL(SBX_ENF_NONE, "limits.nproc is 0");
	if (c->full && c->pidmax && !c->hostproc)
		return CELL(SBX_ENF_KERNEL,
			    "the pid namespace's own pid_max: at most "
			    "limits.nproc processes and threads, for root "
			    "too; and RLIMIT_NPROC");
	return CELL(SBX_ENF_PARTIAL,
		    "RLIMIT_NPROC (every process of the uid counts); the "
		    "kernel exempts a caller running as root (uid 0): the "
		    "timeout still ends a fork bomb");
}

static struct cell row_memory(const struct plan *c)
{
	if (c->p->limits.memory == 0)
		return CELL(SBX_ENF_NONE, "limits.memory is 0");
	if (c->full)
		return CELL(SBX_ENF_KERNEL,
			    "RLIMIT_AS per process, not a cgroup (sbxrun "
			    "makes no cgroup leaf); the private /tmp is a "
			    "tmpfs of at most limits.memory");
	return CELL(SBX_ENF_PARTIAL,
		    "RLIMIT_AS per process, not a cgroup (sbxrun makes no "
		    "cgroup leaf); the host's /tmp and /dev/shm are not "
		    "counted");
}

static struct cell row_tmp(const struct plan *c)
{
	if (c->full)
		return CELL(SBX_ENF_KERNEL,
			    "tmpfs in the mount namespace, at most "
			    "limits.memory (or half the RAM)");
	return CELL(SBX_ENF_NONE,
		    "the host's /tmp is shared, with its sockets");
}

static struct cell row_net_closed(const struct plan *c)
{
	if (!c->sc)
		return c->abi >= 4
			       ? CELL(SBX_ENF_NONE,
				      "only TCP is refused (Landlock); UDP, ICMP "
				      "and raw sockets need seccomp")
			       : CELL(SBX_ENF_NONE,
				      "no seccomp and no Landlock TCP rules");
	if (c->abi >= 4)
		return CELL(SBX_ENF_KERNEL,
			    "seccomp: only AF_UNIX sockets; Landlock "
			    "refuses TCP bind and connect");
	return CELL(SBX_ENF_KERNEL,
		    "seccomp: only AF_UNIX sockets; Landlock TCP "
		    "rules need ABI 4");
}

/* landlock-only mode has no network namespace of its own. */
static struct cell row_net_filtered(const struct plan *c)
{
	if (c->abi < 4 || !c->sc)
		return CELL(SBX_ENF_NONE,
			    "needs Landlock TCP rules (ABI 4) and seccomp "
			    "without a network namespace; sbxrun refuses "
			    "to run so");
	return CELL(SBX_ENF_PARTIAL,
		    "no network namespace: Landlock lets TCP connect "
		    "reach only the proxy's port, on ANY address; seccomp "
		    "refuses UDP and TCP Fast Open; the proxy listens on "
		    "the host's loopback, which every local user reaches, "
		    "and asks for a per-run secret");
}

static struct cell row_net(const struct plan *c)
{
	switch (c->p->net) {
	case SBX_NET_OFF:
		if (c->full)
			return CELL(SBX_ENF_KERNEL,
				    c->sc ? "private network namespace with "
					    "no interface up; seccomp: only "
					    "AF_UNIX sockets"
					  : "private network namespace with "
					    "no interface up");
		return row_net_closed(c);
	case SBX_NET_LOOPBACK:
		if (c->full)
			return CELL(SBX_ENF_KERNEL,
				    "private network namespace with "
				    "loopback only");
		return CELL(SBX_ENF_NONE,
			    "needs a network namespace: host loopback "
			    "and internet reachable; sbxrun refuses to run so");
	case SBX_NET_FILTERED:
		if (c->full)
			return CELL(SBX_ENF_KERNEL,
				    "network namespace with only a loopback, "
				    "where sbxrun's proxy listens and decides "
				    "each connection by host and port");
		return row_net_filtered(c);
	case SBX_NET_ON: break;
	}
	if (c->sc)
		return CELL(SBX_ENF_KERNEL,
			    "network on; seccomp refuses packet, raw, "
			    "MPTCP and SCTP sockets");
	return CELL(SBX_ENF_NONE, "network on");
}

static struct cell row_unix_path(const struct plan *c)
{
	/* Only sockets under /run, /tmp and hidden directories leave the
	 * view; a socket elsewhere in a readable tree stays connectable
	 * until Landlock ABI 9 checks connect(2). */
	if (c->full)
		return CELL(SBX_ENF_PARTIAL,
			    "mount namespace hides /run (docker, "
			    "D-Bus, agents), /tmp and hidden dirs (the "
			    "default profile hides ~/.rd, ~/.colima, ~/.lima, "
			    "LXD and Incus); sockets elsewhere in readable "
			    "trees stay reachable before Landlock ABI 9");
	return CELL(SBX_ENF_NONE,
		    "Landlock before ABI 9 does not check connect(), even "
		    "under hidden dirs: docker.sock, tmux and screen in the "
		    "host's /tmp, agents and D-Bus are reachable: "
		    "use full mode");
}

static struct cell row_unix_abstract(const struct plan *c)
{
	int netns = c->full && c->p->net != SBX_NET_ON;

	if (netns)
		return CELL(SBX_ENF_KERNEL,
			    c->abi >= 6 ? "private network namespace + "
					  "Landlock abstract-socket scope"
					: "private network namespace");
	if (c->abi >= 6)
		return CELL(SBX_ENF_PARTIAL,
			    "Landlock abstract-socket scope: the "
			    "sandbox cannot connect out; without a network "
			    "namespace a name it binds is visible outside");
	return CELL(SBX_ENF_NONE,
		    "X11 and D-Bus abstract sockets are reachable; "
		    "needs Landlock ABI 6");
}

static struct cell row_proc_net(const struct plan *c)
{
	if (c->p->net == SBX_NET_ON)
		return CELL(SBX_ENF_NONE,
			    "network on: the host's network namespace, "
			    "its sockets listed in /proc/net");
	if (c->full && c->hostproc)
		return CELL(SBX_ENF_PARTIAL,
			    "private network namespace: /proc/net lists only "
			    "the sandbox's own, but with the host's /proc, "
			    "/proc/PID/net of an outside process lists the "
			    "host's");
	if (c->full)
		return CELL(SBX_ENF_KERNEL,
			    "private network namespace: /proc/net lists "
			    "only the sandbox's own");
	return CELL(SBX_ENF_NONE,
		    "no network namespace: /proc/net/unix and /proc/net/tcp "
		    "list the host's sockets and connections");
}

static struct cell row_signals(const struct plan *c)
{
	if (c->full)
		return CELL(SBX_ENF_KERNEL,
			    c->abi >= 6 ? "pid namespace + Landlock "
					  "signal scope"
					: "pid namespace");
	if (c->abi >= 6)
		return CELL(SBX_ENF_KERNEL, "Landlock signal scope");
	return CELL(SBX_ENF_NONE,
		    "same uid: kill(2) reaches the user's processes; "
		    "needs Landlock ABI 6");
}

static struct cell row_ptrace(const struct plan *c)
{
	if (c->sc)
		return CELL(
			SBX_ENF_KERNEL,
			c->full ? "seccomp: ptrace, process_vm_*, "
				  "pidfd_getfd denied; pid namespace"
				: "seccomp: ptrace, process_vm_*, pidfd_getfd "
				  "denied; Landlock ptrace scoping");
	if (c->full || c->abi)
		return CELL(SBX_ENF_KERNEL,
			    c->full ? "pid namespace"
				    : "Landlock ptrace scoping");
	return CELL(SBX_ENF_NONE, "no seccomp");
}

static struct cell row_proc(const struct plan *c)
{
	if (c->full && c->hostproc)
		return CELL(SBX_ENF_PARTIAL,
			    "the host's /proc, read-only with its masks (a "
			    "fresh one is refused): the process list and "
			    "cmdlines stay visible; Landlock ptrace scoping "
			    "hides environ, mem, fd and root");
	if (c->full)
		return CELL(SBX_ENF_KERNEL, "pid namespace with a fresh /proc");
	return CELL(SBX_ENF_KERNEL,
		    "Landlock ptrace scoping hides environ, mem, fd "
		    "and root; the process list and cmdlines stay visible");
}

static struct cell row_tiocsti(const struct plan *c)
{
	if (c->sc)
		return CELL(SBX_ENF_KERNEL,
			    "seccomp, comparing the low 32 bits");
	return CELL(SBX_ENF_NONE, "no seccomp");
}

static struct cell row_nested(const struct plan *c)
{
	if (c->sc)
		return CELL(SBX_ENF_KERNEL,
			    "seccomp: unshare, setns, mount, namespace "
			    "clone flags; clone3 and the new mount API get "
			    "ENOSYS");
	return CELL(SBX_ENF_NONE, "no seccomp");
}

static struct cell row_surface(const struct plan *c)
{
	if (c->sc)
		return CELL(SBX_ENF_KERNEL,
			    "seccomp deny list; syscalls newer than "
			    "the filter are allowed");
	return CELL(SBX_ENF_NONE, "no seccomp");
}

static struct cell row_outlive(const struct plan *c)
{
	if (c->full)
		return CELL(SBX_ENF_KERNEL,
			    "pid namespace: all die with its pid 1");
	if (c->abi >= 6)
		return CELL(SBX_ENF_LAUNCHER,
			    "child subreaper: the supervisor kills "
			    "what is left; Landlock signal scope shields it");
	return CELL(SBX_ENF_NONE,
		    "the sandbox can kill the supervisor first: same "
		    "uid, no signal scope before Landlock ABI 6");
}

static struct cell row_env(const struct plan *c)
{
	return CELL(SBX_ENF_LAUNCHER,
		    "built from env.keep and env.drop before exec");
}

static struct cell row_suffix(const struct plan *c)
{
	if (c->p->limits.fsize)
		return CELL(SBX_ENF_ADVISORY,
			    "shim only; RLIMIT_FSIZE caps every "
			    "file (kernel)");
	return CELL(SBX_ENF_ADVISORY,
		    "shim only: static programs and raw syscalls "
		    "bypass it");
}

/* PERS-02: no kernel layer can tell a hard link's other names. */
static struct cell row_hardlinks(const struct plan *c)
{
	(void)c;
	return CELL(SBX_ENF_ADVISORY,
		    "shim only: a write to a file with other hard links "
		    "(uv's or pnpm's store) is refused for programs that "
		    "load the shim; static programs and raw syscalls "
		    "write through the link");
}

static struct cell row_exec(const struct plan *c)
{
	return CELL(SBX_ENF_ADVISORY,
		    "shim only: static programs and raw execve(2) "
		    "bypass it");
}

/* Which kernel refusals are explained, and by whom (issue 13).  The
 * errnos of Landlock and the mounts carry no more than the errno: only
 * the shim, which knows the path, can explain them. */
static struct cell row_explain(const struct plan *c)
{
	if (!c->sc)
		return CELL(SBX_ENF_NONE, "no seccomp");
	if (c->in_sbxrun)
		return CELL(SBX_ENF_ADVISORY,
			    "inside another sbxrun, whose filter refuses a "
			    "listener: only the shim explains refusals, static "
			    "programs and raw syscalls get the bare errno");
	if (!c->notif)
		return CELL(SBX_ENF_ADVISORY,
			    "the kernel has no seccomp user notification: "
			    "only the shim explains refusals, static programs "
			    "and raw syscalls get the bare errno");
	if (c->nested)
		return CELL(SBX_ENF_LAUNCHER,
			    "seccomp refusals: the supervisor's listener "
			    "answers the same errno and explains them, unless "
			    "the filter sbxrun runs under has a listener or "
			    "refuses one (a nested sandbox): then the bare "
			    "errno; file refusals (EACCES, EROFS, EBUSY, "
			    "EXDEV): the shim only, not for static programs");
	return CELL(SBX_ENF_LAUNCHER,
		    "seccomp refusals, of static programs and raw syscalls "
		    "too: the supervisor's listener answers the same errno "
		    "and explains them; file refusals of Landlock and the "
		    "mounts (EACCES, EROFS, EBUSY, EXDEV on protected and "
		    "hidden paths): the shim only, static programs get the "
		    "bare errno");
}

static const struct plan_row {
	const char *what;
	struct cell (*fn)(const struct plan *);
} plan_rows[] = {
	{ "hidden paths (contents)", row_hidden },
	{ "hidden paths (names, stat metadata)", row_hidden_meta },
	{ "read-only system", row_readonly },
	{ "chmod/chown/xattr/utimes outside rw roots", row_attrs },
	{ "writable roots", row_writable },
	{ "protected paths inside writable roots", row_protect },
	{ "private /tmp", row_tmp },
	{ "other terminals, shared memory, SysV IPC", row_devices },
	{ "process count (fork bombs)", row_nproc },
	{ "memory", row_memory },
	{ "network", row_net },
	{ "pathname unix sockets", row_unix_path },
	{ "abstract unix sockets", row_unix_abstract },
	{ "the host's sockets and connections (/proc/net)", row_proc_net },
	{ "signals to outside processes", row_signals },
	{ "ptrace/memory of outside processes", row_ptrace },
	{ "/proc of outside processes", row_proc },
	{ "terminal injection (TIOCSTI, TIOCLINUX)", row_tiocsti },
	{ "nested namespaces, mount", row_nested },
	{ "kernel attack surface (bpf, keyctl, ...)", row_surface },
	{ "processes outliving the command", row_outlive },
	{ "environment scrubbing", row_env },
	{ "suffix and size rules", row_suffix },
	{ "exec deny rules", row_exec },
	{ "writes through hard links (shared stores)", row_hardlinks },
	{ "kernel refusals explained", row_explain },
};

/* Is any hidden path below a writable root?  Landlock-only mode then
 * takes the right to create entries from the directories above it. */
static int plan_hide_in_rw(const struct sbx_policy *p)
{
	for (size_t i = 0; i < p->nrules; i++)
		for (size_t j = 0; j < p->nrules; j++)
			if (p->rules[i].mode == SBX_HIDE &&
			    p->rules[j].mode == SBX_RW &&
			    p->rules[i].rootlen > p->rules[j].rootlen &&
			    sbx_path_within(p->rules[i].root, p->rules[j].root,
					    p->rules[j].rootlen))
				return 1;
	return 0;
}

__attribute__((format(printf, 2, 3))) static void note(struct sbx_plan *out,
						       const char *fmt, ...)
{
	va_list ap;

	if (out->nnotes >= SBX_PLAN_MAX_NOTES)
		return;
	va_start(ap, fmt);
	vsnprintf(out->notes[out->nnotes++], sizeof out->notes[0], fmt, ap);
	va_end(ap);
}

static int plan_max_bytes(const struct sbx_policy *p)
{
	for (size_t i = 0; i < p->nrules; i++)
		if (p->rules[i].max_file_bytes)
			return 1;
	return 0;
}

static void plan_notes(struct sbx_plan *out, const struct plan *c,
		       const struct sbx_features *f)
{
	if (f && !f->landlock_abi)
		note(out, "Landlock: %s", f->landlock_why);
	if (f && !f->userns)
		note(out, "user namespaces: %s", f->userns_why);
	if (f && !f->seccomp)
		note(out, "seccomp filters are not available");
	if (!c->full && c->abi >= 4 && c->p->net == SBX_NET_FILTERED)
		note(out,
		     "network = filtered without a network namespace "
		     "(landlock-only) is weaker than in full mode: the "
		     "proxy's port is open on every address (Landlock port "
		     "rules know no address), the host's loopback services "
		     "on that port too; the proxy is on the host's "
		     "loopback, guarded by a per-run secret in the proxy URL "
		     "(readable by the command, in its environment)");
	if (c->hostproc)
		note(out, "/proc: %s", sbx_proc_masked_fix);
	if (f && f->landlock_abi && f->landlock_abi < SBX_LL_ABI_BEST)
		note(out,
		     "Landlock ABI %d%s: the rows that name ABI 2 to %d are "
		     "weaker; fix: a kernel with Landlock ABI %d (Linux 6.12 "
		     "or later)",
		     f->landlock_abi,
		     f->landlock_capped
			     ? " (capped by SBXRUN_TEST_LANDLOCK_ABI)"
			     : "",
		     SBX_LL_ABI_BEST, SBX_LL_ABI_BEST);
	if (!c->full && c->abi < 4 &&
	    (c->p->net == SBX_NET_OFF || c->p->net == SBX_NET_FILTERED))
		note(out,
		     "Landlock ABI %d has no TCP rules: "
		     "sbx_landlock_apply() refuses network = %s in "
		     "landlock-only mode; only the seccomp socket filter "
		     "would hold",
		     c->abi, sbx_net_name(c->p->net));
	if (c->abi && plan_hide_in_rw(c->p))
		note(out, "directories on the way to a hidden path "
			  "inside a writable root accept no new entries "
			  "(Landlock cannot grant new files there without "
			  "granting a secret that appears later)");
	if (plan_max_bytes(c->p))
		note(out,
		     "max_file_bytes: the shim holds it for dynamically "
		     "linked programs (opening, writing, truncating, "
		     "fallocate, copy_file_range, sendfile, renaming or "
		     "linking into the root); static programs, raw syscalls "
		     "and libc's own stdio writes get only RLIMIT_FSIZE "
		     "(limits.fsize = %llu bytes, 0: none), on every file",
		     (unsigned long long)c->p->limits.fsize);
	if (c->abi)
		note(out, "entries created during the run, by the host or "
			  "by the command, in a directory on the way to a "
			  "hidden path (your home) are not readable inside "
			  "until the next run");
}

void sbx_linux_plan(const struct sbx_policy *p, enum sbx_kmode mode,
		    const struct sbx_features *f, struct sbx_plan *out)
{
	struct plan c;

	memset(out, 0, sizeof *out);
	c.p = p;
	c.full = mode == SBX_KMODE_FULL;
	/* Without a probe assume the least the mode can run with. */
	c.abi = f ? f->landlock_abi : !c.full;
	c.sc = f ? f->seccomp : 1;
	c.notif = f ? f->seccomp_notif : 0;
	c.nested = f ? f->seccomp_filtered : 0;
	c.in_sbxrun = f ? f->seccomp_in_sbxrun : 0;
	c.pidmax = sbx_pidns_has_pid_max();
	c.hostproc = c.full && f && f->proc_masked;
	snprintf(out->head, sizeof out->head,
		 "mode %s; Landlock ABI %d; seccomp %s; user namespaces %s",
		 c.full ? "full" : "landlock-only", c.abi, c.sc ? "yes" : "no",
		 f ? (f->userns ? "yes" : "no") : "unknown");
	for (size_t i = 0; i < sizeof plan_rows / sizeof plan_rows[0] &&
			   out->nrows < SBX_PLAN_MAX_ROWS;
	     i++) {
		struct cell x = plan_rows[i].fn(&c);

		out->rows[out->nrows++] =
			(struct sbx_plan_row){ plan_rows[i].what, x.e, x.how };
	}
	plan_notes(out, &c, f);
}
