/*
 * landlock.c - Landlock rules from the policy, in both kernel modes.
 *
 * Landlock is an allow-list whose grants are inherited by a whole
 * hierarchy: a rule on a directory covers everything beneath it, and the
 * rights on a path are the union of the rules on all its ancestors.  The
 * policy, though, says "the longest root wins", so a hidden path below a
 * readable root cannot be expressed by granting the root.  Instead the
 * root is "carved": every entry along the way down to the hidden path is
 * granted on its own, except the one that leads to it.  Only the
 * directories named by the policy are read (one readdir per ancestor of a
 * hidden path), never the project tree.
 *
 * Carving has a price: the carved directories themselves get no rights of
 * their own, so they accept no new entries, and entries that appear in
 * them later get nothing (a file the host creates in ~ during the run is
 * unreadable until the next run).  That second half is the point: a
 * secret created after launch (`aws configure`, `gh auth login`) or
 * replaced by rename (git's credential store, npm writing ~/.npmrc,
 * passwd(1) on /etc/shadow) is a new inode that no rule grants (TIME-01,
 * TIME-02).  Full mode carves too: its mounts hide what exists at launch,
 * but a bind over a file that the host renames something onto is detached
 * and the new file shows through; Landlock is the second layer.  In full
 * mode the carved directories keep READ_DIR (listing shows mount points
 * and names, no contents), which landlock-only mode cannot afford.
 *
 * Only hidden paths the command could otherwise reach are carved around:
 * one that exists and whose own permissions already refuse the caller
 * (/etc/shadow for anyone but root) needs nothing, and /etc is then not
 * read at all.  A missing one is always carved around: it may appear.
 *
 * Read-only rules below writable roots (protect entries) are not carved:
 * doing so would forbid creating files anywhere on the way down.  In full
 * mode read-only bind mounts enforce them; in landlock-only mode they are
 * advisory (the shim).
 *
 * Called in the launcher's child, single-threaded, after the mount view
 * and stdio are in place and before seccomp and exec.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "compat.h"
#include "linux.h"

/* Every filesystem right we know (ABI 7 adds none after IOCTL_DEV). */
#define LL_FS_ALL ((LANDLOCK_ACCESS_FS_IOCTL_DEV << 1) - 1)
/* The only rights a rule on a non-directory may carry. */
#define LL_FS_FILE                                                    \
	(LANDLOCK_ACCESS_FS_EXECUTE | LANDLOCK_ACCESS_FS_WRITE_FILE | \
	 LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_TRUNCATE | \
	 LANDLOCK_ACCESS_FS_IOCTL_DEV)
#define LL_FS_READ                                                   \
	(LANDLOCK_ACCESS_FS_EXECUTE | LANDLOCK_ACCESS_FS_READ_FILE | \
	 LANDLOCK_ACCESS_FS_READ_DIR)
/* Device nodes every process expects to open, and the terminal. */
#define LL_FS_DEV                                                       \
	(LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_WRITE_FILE | \
	 LANDLOCK_ACCESS_FS_TRUNCATE | LANDLOCK_ACCESS_FS_IOCTL_DEV)

/* A rule we added on a canonical path, by that path. */
struct ll_grant {
	char *path; /* NULL: free slot */
	uint64_t access;
};

struct ll {
	const struct sbx_policy *p;
	int full; /* full mode: mounts hide and protect too */
	int fd; /* the ruleset */
	uint64_t fs; /* handled filesystem rights */
	uint64_t net; /* handled network rights */
	uint64_t scoped;
	uint32_t restrict_flags;
	struct sbx_err *err;
	char path[PATH_MAX]; /* the directory being carved */
	const char **hide; /* hidden roots, tree order (sbx_path_cmp) */
	size_t nhide;
	struct ll_grant *grants; /* see ll_covered() */
	size_t ngrants, capgrants;
	uint16_t proxy_port; /* filtered, landlock-only: connect here only */
};

/*
 * Start from everything we know and drop what the running ABI lacks, the
 * way samples/landlock/sandboxer.c does.  An ABI newer than ours keeps
 * our full set: rights we do not know stay unhandled, i.e. allowed, which
 * is how every Landlock user behaves on a newer kernel.
 */
static void ll_set_abi(struct ll *l, int abi)
{
	l->fs = LL_FS_ALL;
	l->net = LANDLOCK_ACCESS_NET_BIND_TCP | LANDLOCK_ACCESS_NET_CONNECT_TCP;
	l->scoped = LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET | LANDLOCK_SCOPE_SIGNAL;
	/*
	 * ABI 7 logging: keep the kernel's defaults.  Denials of the launcher
	 * itself (up to exec) are logged; those of the sandboxed command are
	 * not, because untrusted code could flood the audit log, and an
	 * unprivileged supervisor cannot read audit records anyway.  Muting
	 * nested domains is a runtime choice per the kernel docs, not ours.
	 */
	l->restrict_flags = 0;

	switch (abi) {
	case 1:
		l->fs &= ~LANDLOCK_ACCESS_FS_REFER;
		__attribute__((fallthrough));
	case 2:
		l->fs &= ~LANDLOCK_ACCESS_FS_TRUNCATE;
		__attribute__((fallthrough));
	case 3: l->net = 0; __attribute__((fallthrough));
	case 4:
		l->fs &= ~LANDLOCK_ACCESS_FS_IOCTL_DEV;
		__attribute__((fallthrough));
	case 5: l->scoped = 0; __attribute__((fallthrough));
	case 6:
		l->restrict_flags = 0; /* no flags exist before ABI 7 */
		break;
	default: break;
	}
}

/*
 * Which network rights to handle.  Handling a right with no port rule
 * denies it everywhere, which is what "off" means.  With "loopback" the
 * network namespace is private, so there is nothing for Landlock to add;
 * "on" restricts nothing.  "filtered": in full mode the private namespace
 * has no route but to the proxy on its loopback; in landlock-only mode
 * connect(2) may reach the proxy's port alone (ll_proxy_port) and bind
 * nothing.  Landlock's port rules know no address: the same port on any
 * other host is reachable too (--dry-run says so).
 */
static int ll_handles_net(const struct ll *l)
{
	enum sbx_net n = l->p->net;

	return n == SBX_NET_OFF || (n == SBX_NET_FILTERED && !l->full);
}

/*
 * Network policies Landlock cannot carry in landlock-only mode.  Nothing
 * has been applied when this fails.  seccomp still refuses every socket
 * but AF_UNIX with network = off, so a caller under fallback = warn can
 * run the same ruleset by passing a copy of the policy with net = on:
 * below ABI 4 no network right is handled either way.
 */
static int ll_check_net(const struct sbx_policy *p, int full, int abi,
			struct sbx_err *err)
{
	if (full)
		return 0;
	if (p->net == SBX_NET_LOOPBACK)
		return sbx_errf(
			err, 0,
			"landlock: network = loopback needs a "
			"private network namespace (full mode); without "
			"one the host's loopback and the internet are "
			"reachable");
	if ((p->net == SBX_NET_OFF || p->net == SBX_NET_FILTERED) && abi < 4)
		return sbx_errf(
			err, 0,
			"landlock: network = %s cannot be "
			"enforced by Landlock ABI %d (TCP rules need "
			"ABI 4, Linux 6.7) without a network namespace; "
			"only the seccomp socket filter would hold",
			sbx_net_name(p->net), abi);
	return 0;
}

/*
 * Rules we need not add.  Landlock grants a path the union of the rules
 * on it and on all its ancestors, so a rule whose rights an ancestor's
 * rule (or an earlier one on the same path) already grants changes no
 * decision: not for opens, and not for the REFER comparison of renames
 * and links either, since a right granted at an ancestor of both sides
 * is granted on both.  Such rules are common: every protect entry and
 * read-only island inside the writable project, and /proc below "/".
 * Skipping them saves an open, an fstat, the rule and a close each, and
 * keeps the ruleset small.  Only paths that are canonical by
 * construction are recorded and tested (rule roots, carved entries); a
 * grant we skip could only ever remove access, never add it.
 *
 * The record is a small open-addressing table keyed by path; a lookup
 * walks the path's ancestors.  Without memory nothing is recorded and
 * every rule is added, as before.
 */
static uint64_t ll_hash(const char *s, size_t n)
{
	uint64_t h = 0xcbf29ce484222325ULL; /* FNV-1a */

	while (n--)
		h = (h ^ (unsigned char)*s++) * 0x100000001b3ULL;
	return h;
}

static struct ll_grant *ll_slot(const struct ll *l, const char *path, size_t n)
{
	size_t mask = l->capgrants - 1, i = ll_hash(path, n) & mask;

	while (l->grants[i].path && (strncmp(l->grants[i].path, path, n) != 0 ||
				     l->grants[i].path[n] != '\0'))
		i = (i + 1) & mask;
	return &l->grants[i];
}

static void ll_note(struct ll *l, const char *path, uint64_t access)
{
	size_t n = strlen(path);
	struct ll_grant *g;

	if (2 * (l->ngrants + 1) > l->capgrants) {
		struct ll_grant *old = l->grants;
		size_t oldcap = l->capgrants;
		size_t cap = oldcap ? oldcap * 2 : 256;

		l->grants = calloc(cap, sizeof(*l->grants));
		if (!l->grants) {
			l->grants = old; /* keep what we have */
			return;
		}
		l->capgrants = cap;
		for (size_t i = 0; i < oldcap; i++)
			if (old[i].path)
				*ll_slot(l, old[i].path, strlen(old[i].path)) =
					old[i];
		free(old);
	}
	g = ll_slot(l, path, n);
	if (!g->path) {
		g->path = strdup(path);
		if (!g->path)
			return;
		l->ngrants++;
	}
	g->access |= access;
}

/* Do the rules added so far on path and its ancestors grant access? */
static int ll_covered(const struct ll *l, const char *path, uint64_t access)
{
	uint64_t have = 0;
	size_t n = strlen(path);

	if (!l->ngrants || path[0] != '/')
		return 0;
	for (;;) {
		const struct ll_grant *g = ll_slot(l, path, n ? n : 1);

		if (g->path)
			have |= g->access;
		if ((access & ~have) == 0)
			return 1;
		if (n <= 1)
			return 0;
		while (n > 1 && path[n - 1] != '/')
			n--;
		if (n > 1)
			n--; /* the slash, unless it is the root */
	}
}

static void ll_grants_free(struct ll *l)
{
	for (size_t i = 0; i < l->capgrants; i++)
		free(l->grants[i].path);
	free(l->grants);
}

/* Add one rule for an open fd.  Non-directories keep only file rights,
 * symlinks get nothing: following them is not an access, and granting
 * their target by its name could widen a hidden hierarchy.  dtype is the
 * entry's type from readdir (DT_UNKNOWN: ask fstat).  With note, the
 * path is canonical and the grant is recorded for ll_covered(). */
static int ll_grant_fd(struct ll *l, int fd, uint64_t access, const char *what,
		       unsigned char dtype, int note)
{
	struct ll_path_beneath_attr pb;
	struct stat st;
	uint64_t want = access;

	if (dtype == DT_UNKNOWN) {
		if (fstat(fd, &st) < 0 || S_ISLNK(st.st_mode))
			return 0;
		dtype = S_ISDIR(st.st_mode) ? DT_DIR : DT_REG;
	}
	if (dtype == DT_LNK)
		return 0;
	if (dtype != DT_DIR)
		access &= LL_FS_FILE;
	access &= l->fs;
	if (!access)
		return 0;
	pb.allowed_access = access;
	pb.parent_fd = fd;
	if (syscall(__NR_landlock_add_rule, l->fd, LL_RULE_PATH_BENEATH, &pb,
		    0) == 0) {
		if (note)
			ll_note(l, what, access);
		return 0;
	}
	/* readdir's type went stale (the entry was replaced since): ask
	 * the descriptor itself. */
	if (errno == EINVAL && dtype == DT_DIR && (access & ~LL_FS_FILE))
		return ll_grant_fd(l, fd, want, what, DT_UNKNOWN, note);
	return sbx_errf(l->err, errno, "landlock: cannot add a rule for %s",
			what);
}

/* How ll_grant_path() treats a path. */
#define LLG_CHECK \
	0x1 /* skip it when ll_covered(): the name is
				 * where the rule lands (not a magic link) */
#define LLG_NOTE 0x2 /* canonical (a rule root): record it */

/* A path that does not exist (or cannot be opened) gets no rule: that
 * only ever takes access away. */
static int ll_grant_path(struct ll *l, const char *path, uint64_t access,
			 unsigned how)
{
	int fd, rc;

	if ((how & LLG_CHECK) && ll_covered(l, path, access & l->fs))
		return 0;
	fd = open(path, O_PATH | O_CLOEXEC);
	if (fd < 0)
		return 0;
	rc = ll_grant_fd(l, fd, access, path, DT_UNKNOWN, !!(how & LLG_NOTE));
	close(fd);
	return rc;
}

/* Index of the first hidden root after path in tree order. */
static size_t ll_hide_after(const struct ll *l, const char *path)
{
	size_t lo = 0, hi = l->nhide;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (sbx_path_cmp(l->hide[mid], path) <= 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Is a hidden rule rooted exactly at path?  A hide rule always wins at
 * its own root (hide > ro > rw), so no tie-break is needed. */
static int ll_hidden_at(const struct ll *l, const char *path)
{
	size_t i = ll_hide_after(l, path);

	return i > 0 && strcmp(l->hide[i - 1], path) == 0;
}

/* Is a hidden rule rooted strictly below path?  Everything below a path
 * follows it directly in tree order, so the first hidden root after it
 * answers. */
static int ll_hidden_below(const struct ll *l, const char *path, size_t len)
{
	size_t i = ll_hide_after(l, path);

	return i < l->nhide && strlen(l->hide[i]) > len &&
	       sbx_path_within(l->hide[i], path, len);
}

/*
 * Can the command reach what lies at a hidden root, now or later?
 *
 *  - A missing path may appear during the run: yes.
 *  - A file: if its own permissions let the command read or write it.  A
 *    host tool replacing /etc/shadow keeps its mode, so for anyone but
 *    root it needs no carving, and /etc is then not read at all.
 *  - A directory the command cannot search: no.  In full mode also no
 *    when it belongs to someone else: the empty tmpfs over it holds for
 *    the whole run, since only its owner could replace the directory
 *    itself (files replaced inside it stay under the tmpfs).
 *
 * Asked with the command's own permissions: in landlock-only mode by the
 * command after its capabilities are gone; in full mode by pid 1 before
 * the mounts cover the paths (sbx_landlock_survey), where the user
 * namespace's capabilities reach only the caller's own files, which the
 * command can reach anyway.
 */
static int ll_reachable(const char *root, int full)
{
	struct stat st;

	/* lstat would fail: told by a directory on the way that is
	 * missing or that the caller cannot search, e.g. another
	 * account's home (dircache.c: no listing, the roots left here
	 * mostly exist) */
	if (sbx_dircache_absent(root) || lstat(root, &st) < 0)
		return 1;
	if (S_ISDIR(st.st_mode))
		return faccessat(AT_FDCWD, root, X_OK, AT_EACCESS) == 0 &&
		       (!full || st.st_uid == geteuid());
	return faccessat(AT_FDCWD, root, R_OK, AT_EACCESS) == 0 ||
	       faccessat(AT_FDCWD, root, W_OK, AT_EACCESS) == 0;
}

/* A hidden root the launcher found missing (SBX_RF_GONE, lstat in
 * sbx_policy_for_run) is carved around without a second lstat: missing,
 * ll_reachable() says yes, and one that appeared since is carved around
 * just the same as a missing one (never less hidden). */
static int ll_rule_reachable(const struct sbx_path_rule *r, int full)
{
	return (r->flags & SBX_RF_GONE) || ll_reachable(r->root, full);
}

/* Full mode: ll_reachable() of every rule, by index, as pid 1 saw it
 * before the mounts; the command process inherits it across fork.  NULL:
 * ask now. */
static unsigned char *ll_reach;

void sbx_landlock_survey(const struct sbx_policy *p)
{
	int dc = sbx_dircache_begin_nolist();

	free(ll_reach);
	ll_reach = calloc(p->nrules + 1, 1);
	for (size_t i = 0; ll_reach && i < p->nrules; i++)
		ll_reach[i] = p->rules[i].mode == SBX_HIDE &&
			      ll_rule_reachable(&p->rules[i], 1);
	sbx_dircache_end(dc);
}

static int ll_hide_reachable(const struct ll *l, const struct sbx_path_rule *r)
{
	if (l->full && ll_reach)
		return ll_reach[r - l->p->rules];
	return ll_rule_reachable(r, l->full);
}

/* The hidden roots to carve around, sorted, from the rules in tree
 * order. */
static int ll_index_hides(struct ll *l, const struct sbx_path_rule **v)
{
	size_t n = 0;
	int dc;

	for (size_t i = 0; i < l->p->nrules; i++)
		n += v[i]->mode == SBX_HIDE;
	l->hide = malloc((n + 1) * sizeof(*l->hide));
	if (!l->hide)
		return sbx_errf(l->err, ENOMEM, "landlock");
	dc = sbx_dircache_begin_nolist();
	for (size_t i = 0; i < l->p->nrules; i++)
		if (v[i]->mode == SBX_HIDE && ll_hide_reachable(l, v[i]))
			l->hide[l->nhide++] = v[i]->root;
	sbx_dircache_end(dc);
	return 0;
}

static int ll_carve_dir(struct ll *l, int dfd, uint64_t access, size_t len);

/*
 * Is h out of reach already: unreadable here (EACCES: another sandbox's
 * Landlock, sbxrun inside sbxrun), or missing below a directory that
 * cannot be listed either, where nothing can create it?  Checked only
 * for a directory the outer sandbox lets us reach but not list.
 */
static int ll_unreadable(const char *h, size_t stop)
{
	char up[PATH_MAX];
	char *slash;
	int fd = open(h, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);

	if (fd >= 0) {
		close(fd);
		return 0;
	}
	if (errno == EACCES || errno == EPERM)
		return 1;
	if (errno != ENOENT || strlen(h) >= sizeof up)
		return 0;
	strcpy(up, h);
	while ((slash = strrchr(up, '/')) && (size_t)(slash - up) > stop) {
		*slash = '\0';
		fd = open(up, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (fd >= 0) {
			close(fd);
			return 0;
		}
		if (errno == EACCES || errno == EPERM)
			return 1;
		if (errno != ENOENT)
			return 0;
	}
	return 1;
}

/*
 * path (l->path, len bytes) is a directory to carve that cannot be
 * listed: sbxrun runs inside another sandbox whose Landlock carved it
 * around its own hidden paths.  Granted whole when every path this
 * policy hides below it is out of reach already, since the outer layer
 * stays in force; otherwise it could not be kept hidden: refuse.
 */
static int ll_grant_unlistable(struct ll *l, uint64_t access, size_t len)
{
	const char *in = getenv("SBXRUN");

	/* Not inside a sandbox: a directory its permissions close to us
	 * gets nothing, as before (nothing below it is reachable by us). */
	if (!in || strcmp(in, "1"))
		return 0;
	for (size_t i = 0; i < l->nhide; i++) {
		const char *h = l->hide[i];

		if (strlen(h) <= len || !sbx_path_within(h, l->path, len))
			continue;
		if (!ll_unreadable(h, len))
			return sbx_errf(l->err, 0,
					"cannot keep '%s' hidden: "
					"the sandbox sbxrun runs in lets it "
					"read that but not list '%s'; hide it "
					"in the outer sandbox too",
					h, l->path);
	}
	return ll_grant_path(l, l->path, access, LLG_CHECK | LLG_NOTE);
}

/*
 * One entry of a carved directory (its full path is built in l->path
 * after len bytes): skip it if hidden, carve it if a hidden path lies
 * below, grant it otherwise.  dtype comes from readdir: a symlink gets
 * nothing whatever it points to, so it is not even opened, and a known
 * type saves the fstat.
 */
static int ll_carve_entry(struct ll *l, int dfd, const char *name,
			  unsigned char dtype, uint64_t access, size_t len)
{
	size_t nlen = strlen(name), sep = l->path[len - 1] != '/';
	size_t clen = len + sep + nlen;
	int fd, rc;

	if (clen >= sizeof l->path || dtype == DT_LNK)
		return 0; /* unreachable by name anyway: grant nothing */
	if (sep)
		l->path[len] = '/';
	memcpy(l->path + len + sep, name, nlen + 1);
	if (ll_hidden_at(l, l->path))
		rc = 0;
	else if (ll_hidden_below(l, l->path, clen)) {
		/* O_NOFOLLOW: a symlink on the way is not descended into;
		 * roots are resolved by the engine, so that only happens if
		 * the tree changed, and then the entry simply gets nothing. */
		fd = openat(dfd, name,
			    O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0 && errno == EACCES)
			rc = ll_grant_unlistable(l, access, clen);
		else
			rc = fd < 0 ? 0 : ll_carve_dir(l, fd, access, clen);
	} else if (ll_covered(l, l->path, access & l->fs)) {
		rc = 0;
	} else {
		fd = openat(dfd, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
		rc = fd < 0 ? 0 : ll_grant_fd(l, fd, access, l->path, dtype, 1);
		if (fd >= 0)
			close(fd);
	}
	l->path[len] = '\0';
	return rc;
}

/*
 * Grant access to every entry of the directory dfd (path l->path, len
 * bytes) except the way to hidden paths.  Takes ownership of dfd.
 *
 * In full mode the directory itself also gets READ_DIR so `ls /` and
 * `ls ~` keep working: hidden directories there are empty tmpfs mounts,
 * so listing below reveals nothing.  Landlock-only mode cannot afford it.
 */
static int ll_carve_dir(struct ll *l, int dfd, uint64_t access, size_t len)
{
	struct dirent *e;
	DIR *d;
	int rc = 0;

	if (l->full && (access & LANDLOCK_ACCESS_FS_READ_DIR))
		rc = ll_grant_fd(l, dfd, LANDLOCK_ACCESS_FS_READ_DIR, l->path,
				 DT_DIR, 0);
	d = fdopendir(dfd);
	if (!d) {
		close(dfd);
		return sbx_errf(l->err, errno, "landlock: cannot list %s",
				l->path);
	}
	while (rc == 0 && (e = readdir(d)) != NULL) {
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		rc = ll_carve_entry(l, dirfd(d), e->d_name, e->d_type, access,
				    len);
	}
	closedir(d);
	return rc;
}

/* Rights for a rule mode; masked to the ABI when granted. */
static uint64_t ll_mode_access(enum sbx_pmode mode)
{
	switch (mode) {
	case SBX_RW: return LL_FS_ALL;
	case SBX_RO: return LL_FS_READ;
	case SBX_HIDE: break;
	}
	return 0;
}

/* Must this rule be carved around hidden paths below it?  In both
 * modes: see the top of the file. */
static int ll_needs_carving(const struct ll *l, const struct sbx_path_rule *r)
{
	return ll_hidden_below(l, r->root, r->rootlen);
}

/* Rule r decides at its root (the caller picks the first of each root in
 * sbx_policy_sorted() order). */
static int ll_apply_rule(struct ll *l, const struct sbx_path_rule *r)
{
	uint64_t access = ll_mode_access(r->mode);
	int dfd;

	if (!access)
		return 0;
	if (!ll_needs_carving(l, r))
		return ll_grant_path(l, r->root, access, LLG_CHECK | LLG_NOTE);
	if (r->rootlen >= sizeof l->path)
		return 0;
	dfd = open(r->root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	memcpy(l->path, r->root, r->rootlen + 1);
	if (dfd < 0 && errno == EACCES)
		return ll_grant_unlistable(l, access, r->rootlen);
	if (dfd < 0) /* missing, or a file: nothing can hide below it */
		return errno == ENOTDIR ? ll_grant_path(l, r->root, access,
							LLG_CHECK | LLG_NOTE)
					: 0;
	return ll_carve_dir(l, dfd, access, r->rootlen);
}

/*
 * Every rule that decides at its root, in tree order: a rule is then
 * applied after the rules (and carved entries) above it, which is what
 * lets ll_covered() skip it.  The order of landlock_add_rule calls does
 * not matter to the kernel.  At equal roots the first one decides (the
 * larger mode, then the earlier rule, as in the engine).
 */
static int ll_apply_rules(struct ll *l)
{
	const struct sbx_path_rule **v;
	int rc = 0;

	if (!l->p->nrules)
		return 0;
	v = sbx_policy_sorted(l->p);
	if (!v)
		return sbx_errf(l->err, ENOMEM, "landlock");
	rc = ll_index_hides(l, v);
	for (size_t i = 0; i < l->p->nrules && rc == 0; i++)
		if (i == 0 || strcmp(v[i]->root, v[i - 1]->root) != 0)
			rc = ll_apply_rule(l, v[i]);
	free(v);
	return rc;
}

/*
 * The inherited terminal (or any character device on 0-2) may be
 * reopened through /dev/stderr or /proc/self/fd/N, which Landlock checks
 * again (FS-12).  Grant that one device file, with no more rights than
 * the open fd already has, instead of all of /dev/pts, where the user's
 * other terminals live (TTY-05).
 */
static int ll_grant_stdio(struct ll *l)
{
	char proc[32];
	struct stat st;
	uint64_t a;
	int fd, fl, rc = 0;

	for (fd = 0; fd <= 2 && rc == 0; fd++) {
		fl = fcntl(fd, F_GETFL);
		if (fl < 0 || (fl & O_PATH) || fstat(fd, &st) < 0 ||
		    !S_ISCHR(st.st_mode))
			continue;
		a = LANDLOCK_ACCESS_FS_IOCTL_DEV;
		if ((fl & O_ACCMODE) != O_WRONLY)
			a |= LANDLOCK_ACCESS_FS_READ_FILE;
		if ((fl & O_ACCMODE) != O_RDONLY)
			a |= LANDLOCK_ACCESS_FS_WRITE_FILE |
			     LANDLOCK_ACCESS_FS_TRUNCATE;
		snprintf(proc, sizeof proc, "/proc/self/fd/%d", fd);
		rc = ll_grant_path(l, proc, a, 0);
	}
	return rc;
}

/*
 * What any process needs whatever the policy says.  TRUNCATE matters:
 * `> /dev/null` opens with O_TRUNC.  /proc is read-only: writes there
 * (/proc/sys, other tasks' comm, oom_score_adj) are not worth the surface.
 * Ptys and /dev/shm are granted only in full mode, where /dev/pts is the
 * sandbox's own devpts instance and /dev/shm its own tmpfs; in
 * landlock-only mode they are the host's.
 */
static int ll_grant_basics(struct ll *l)
{
	static const char *const dev[] = {
		"/dev/null",   "/dev/zero",    "/dev/full",
		"/dev/random", "/dev/urandom", "/dev/tty",
	};
	int rc = 0;

	for (size_t i = 0; i < sizeof dev / sizeof dev[0] && rc == 0; i++)
		rc = ll_grant_path(l, dev[i], LL_FS_DEV, LLG_CHECK);
	if (rc == 0)
		rc = ll_grant_path(l, "/proc",
				   LANDLOCK_ACCESS_FS_READ_FILE |
					   LANDLOCK_ACCESS_FS_READ_DIR,
				   LLG_CHECK);
	if (rc == 0 && l->full)
		rc = ll_grant_path(l, "/dev/pts",
				   LL_FS_DEV | LANDLOCK_ACCESS_FS_READ_DIR,
				   LLG_CHECK);
	if (rc == 0 && l->full)
		rc = ll_grant_path(l, "/dev/ptmx", LL_FS_DEV, LLG_CHECK);
	/* full mode's /dev/shm is a private tmpfs (mount_dev.c, nosuid,
	 * nodev, noexec): POSIX shared memory and semaphores (Python's
	 * multiprocessing) make and remove files there (review U-04).  In
	 * landlock-only mode it is the host's, shared with every process of
	 * the user: hidden. */
	if (rc == 0 && l->full)
		rc = ll_grant_path(l, "/dev/shm",
				   LL_FS_ALL & ~(LANDLOCK_ACCESS_FS_EXECUTE |
						 LANDLOCK_ACCESS_FS_MAKE_CHAR |
						 LANDLOCK_ACCESS_FS_MAKE_BLOCK |
						 LANDLOCK_ACCESS_FS_MAKE_SOCK |
						 LANDLOCK_ACCESS_FS_MAKE_SYM),
				   LLG_CHECK);
	if (rc == 0)
		rc = ll_grant_stdio(l);
	return rc;
}

static int ll_proxy_port(struct ll *l)
{
	struct ll_net_port_attr np = {
		.allowed_access = LANDLOCK_ACCESS_NET_CONNECT_TCP,
		.port = l->proxy_port,
	};

	if (!ll_handles_net(l) || l->p->net != SBX_NET_FILTERED)
		return 0;
	if (!l->proxy_port)
		return sbx_errf(l->err, 0,
				"landlock: network = filtered without the "
				"proxy's port");
	if (syscall(__NR_landlock_add_rule, l->fd, LL_RULE_NET_PORT, &np, 0))
		return sbx_errf(l->err, errno,
				"landlock: cannot allow the proxy's port %u",
				l->proxy_port);
	return 0;
}

static int ll_create(struct ll *l)
{
	struct ll_ruleset_attr attr;

	memset(&attr, 0, sizeof attr);
	attr.handled_access_fs = l->fs;
	attr.handled_access_net = ll_handles_net(l) ? l->net : 0;
	attr.scoped = l->scoped;
	/* The full struct is fine on older kernels: they accept a larger
	 * size as long as the fields they do not know are zero, and the
	 * ABI switch zeroed them. */
	l->fd = (int)syscall(__NR_landlock_create_ruleset, &attr, sizeof attr,
			     0);
	if (l->fd < 0)
		return sbx_errf(l->err, errno,
				"landlock: cannot create the ruleset");
	return 0;
}

static int ll_restrict(struct ll *l)
{
	/* Required unless we hold CAP_SYS_ADMIN, and wanted anyway: set-uid
	 * binaries must not run with the policy's blind spots. */
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		return sbx_errf(l->err, errno,
				"landlock: cannot set no_new_privs");
	if (syscall(__NR_landlock_restrict_self, l->fd, l->restrict_flags) < 0)
		return sbx_errf(l->err, errno,
				"landlock: cannot enforce the ruleset");
	return 0;
}

int sbx_landlock_apply(const struct sbx_policy *p, enum sbx_kmode mode, int abi,
		       uint16_t proxy_port, struct sbx_err *err)
{
	struct ll l;
	int rc = 0;

	if (abi < 1)
		return sbx_errf(err, 0,
				"landlock: not available on this kernel");
	memset(&l, 0, sizeof l);
	l.p = p;
	l.full = mode == SBX_KMODE_FULL;
	l.err = err;
	l.proxy_port = proxy_port;
	if (ll_check_net(p, l.full, abi, err) < 0)
		return -1;
	ll_set_abi(&l, abi);
	if (ll_create(&l) < 0)
		return -1;
	rc = ll_apply_rules(&l);
	if (rc == 0)
		rc = ll_grant_basics(&l);
	if (rc == 0)
		rc = ll_proxy_port(&l);
	if (rc == 0)
		rc = ll_restrict(&l);
	close(l.fd);
	free(l.hide);
	ll_grants_free(&l);
	return rc;
}
