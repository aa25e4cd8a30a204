/*
 * mounts.c - the mount view of full mode (DESIGN §7, layer 1): what is
 * mounted where (mountview.h names the files that do the rest).
 *
 * Called in the sandbox's pid 1, after it entered new user, mount, pid and
 * ipc namespaces and before anything of the command runs.  Host paths stay
 * where they are (no pivot_root): we change what is mounted on top of them.
 *
 *   1. Every mount becomes private, so nothing we do propagates to the host
 *      and nothing the host mounts later appears in here (a host mount that
 *      arrived after step 2 would be writable).
 *   2. Every path rule root, and the few extra paths we bind back, is pinned
 *      with an O_PATH descriptor *before* anything covers it, so a project in
 *      /tmp or the run directory under /run can still be bound back after the
 *      private /tmp and the /run tmpfs hid the host's copies.
 *   3. The whole tree is made read-only, nosuid and nodev in one recursive
 *      mount_setattr(2) (older kernels: one bind remount per mountinfo line).
 *   4. Items, sorted by root length, shortest first, so the innermost rule is
 *      mounted last and wins; at equal length rw < ro < hide, as in the
 *      policy engine's tie-break.
 *   5. A minimal /dev, a fresh /proc for the new pid namespace, and finally
 *      the hiding tmpfs mounts that hold mount points are made read-only
 *      (the others were mounted read-only in step 4).
 *
 * Mount points are only ever created inside tmpfs mounts made here, never on
 * a host filesystem: a rule whose mount point is missing on the host is
 * skipped.  Paths are resolved without following symlinks (openat2
 * RESOLVE_NO_SYMLINKS, or O_NOFOLLOW plus a readlink check): rule roots
 * arrive canonical, so a symlink here means the tree changed since the
 * policy was built, and we refuse rather than bind the wrong thing.  Every
 * mount targets a /proc/self/fd/N path of such a descriptor.
 *
 * What keeps the view in place afterwards.  Mounts copied from the host's
 * namespace into ours are MNT_LOCKED (they came from a more privileged
 * namespace), but the mounts created here, in our own user namespace, are
 * not: a process holding CAP_SYS_ADMIN in this user namespace could unmount
 * them and see what they cover.  Three independent things prevent that: the
 * command runs with every capability dropped and no_new_privs (child.c),
 * the seccomp filter answers mount/umount2/the new mount API with an error,
 * and a Landlock domain forbids any change of mount topology.  A nested user
 * namespace would get a copy in which all of these mounts are locked.
 *
 * One cleanup idiom in this file: goto out.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/sysinfo.h>
#include <unistd.h>

#include "mountview.h"
#include "watch.h"

#define HIDE_TMPFS_OPTS "mode=0755,size=64k,nr_inodes=256"

static uint64_t path_hash(const char *s, size_t n)
{
	uint64_t h = 0xcbf29ce484222325ULL; /* FNV-1a */

	while (n--)
		h = (h ^ (unsigned char)*s++) * 0x100000001b3ULL;
	return h;
}

/* The slot of path[0..n) in the index: its entry, or the empty slot
 * where it would go. */
static uint32_t *dix_slot(const struct mctx *c, const char *path, size_t n)
{
	size_t mask = c->dixcap - 1, i = path_hash(path, n) & mask;

	for (; c->dix[i]; i = (i + 1) & mask) {
		const struct mdone *d = &c->done[c->dix[i] - 1];

		if (d->len == n && memcmp(d->path, path, n) == 0)
			break;
	}
	return &c->dix[i];
}

/* Index done[i]; grows (rebuilding) at half load.  On failure the index
 * goes away and lookups scan. */
static void dix_add(struct mctx *c, size_t i)
{
	if (2 * (c->ndone + 1) > c->dixcap) {
		size_t cap = c->dixcap ? c->dixcap * 2 : 64;

		free(c->dix);
		c->dix = calloc(cap, sizeof(*c->dix));
		c->dixcap = c->dix ? cap : 0;
		if (!c->dix)
			return;
		for (size_t k = 0; k < c->ndone; k++)
			*dix_slot(c, c->done[k].path, c->done[k].len) =
				(uint32_t)k + 1;
		return; /* i < ndone was among them */
	}
	if (c->dixcap)
		*dix_slot(c, c->done[i].path, c->done[i].len) = (uint32_t)i + 1;
}

int sbx_mnt_record(struct mctx *c, const char *path, enum dkind kind)
{
	struct mdone *d;

	if (c->ndone == c->capdone) {
		size_t n = c->capdone ? c->capdone * 2 : 16;

		d = realloc(c->done, n * sizeof *d);
		if (!d)
			return sbx_errf(c->err, 0, "mount view: out of memory");
		c->done = d;
		c->capdone = n;
	}
	d = &c->done[c->ndone];
	d->path = strdup(path);
	if (!d->path)
		return sbx_errf(c->err, 0, "mount view: out of memory");
	d->len = strlen(path);
	d->kind = kind;
	d->sealed = 0;
	c->ndone++;
	dix_add(c, c->ndone - 1);
	return 0;
}

/* The innermost mount we made at or above path, or NULL: the latest one
 * on the longest of path and its ancestors that has any. */
static const struct mdone *deepest(const struct mctx *c, const char *path)
{
	const struct mdone *best = NULL;
	size_t i, n = strlen(path);

	if (!c->dixcap) {
		for (i = 0; i < c->ndone; i++)
			if (sbx_mnt_under(path, c->done[i].path,
					  c->done[i].len) &&
			    (!best || c->done[i].len >= best->len))
				best = &c->done[i];
		return best;
	}
	for (;;) {
		uint32_t k = *dix_slot(c, path, n);

		if (k)
			return &c->done[k - 1];
		if (n <= 1)
			return NULL;
		while (n > 1 && path[n - 1] != '/')
			n--;
		if (n > 1)
			n--; /* the slash, unless it is the root */
	}
}

static int is_done(const struct mctx *c, const char *path)
{
	size_t i;

	if (c->dixcap)
		return *dix_slot(c, path, strlen(path)) != 0;
	for (i = 0; i < c->ndone; i++)
		if (strcmp(c->done[i].path, path) == 0)
			return 1;
	return 0;
}

/* Create the missing mount point for path inside the tmpfs at anc (ours,
 * fresh, written by nobody else), working from a descriptor of that tmpfs
 * so nothing can ever be created on a host filesystem. */
static int make_in_tmpfs(const struct mdone *anc, const char *path, int isdir)
{
	char rel[PATH_MAX];
	int dfd, fd, rc = -1;
	char *p;

	snprintf(rel, sizeof rel, "%s", path + anc->len + (anc->len > 1));
	dfd = sbx_mnt_pin(anc->path);
	if (dfd < 0)
		return -1;
	for (p = strchr(rel, '/'); p; p = strchr(p + 1, '/')) {
		*p = '\0';
		if (mkdirat(dfd, rel, 0755) < 0 && errno != EEXIST)
			goto out;
		*p = '/';
	}
	if (isdir) {
		if (mkdirat(dfd, rel, 0755) < 0)
			goto out;
	} else {
		fd = openat(dfd, rel,
			    O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW |
				    O_CLOEXEC,
			    0644);
		if (fd < 0)
			goto out;
		close(fd);
	}
	rc = 0;
out:
	sbx_mnt_close(dfd);
	return rc;
}

/* The mount target for path in the current view.  With create, a missing
 * one is made when (and only when) it would lie inside one of our tmpfs. */
int sbx_mnt_target(struct mctx *c, const char *path, int isdir, int create)
{
	const struct mdone *anc;
	int fd = sbx_mnt_pin(path);

	if (fd >= 0 || errno != ENOENT || !create)
		return fd;
	anc = deepest(c, path);
	if (!anc || (anc->kind != D_TMPFS && anc->kind != D_TMPFS_RO)) {
		errno = ENOENT;
		return -1;
	}
	if (make_in_tmpfs(anc, path, isdir) < 0)
		return -1;
	return sbx_mnt_pin(path);
}

static int src_is_dir(int src)
{
	struct stat st;

	return fstat(src, &st) == 0 && S_ISDIR(st.st_mode);
}

/* Asked once per item, not at every step that needs it. */
static int item_is_dir(struct mitem *it)
{
	if (it->isdir < 0)
		it->isdir = src_is_dir(it->src);
	return it->isdir;
}

/* sbx_mnt_target() for an item: the type of its source is only asked when a
 * mount point has to be made. */
static int item_target(struct mctx *c, struct mitem *it)
{
	int fd = sbx_mnt_pin(it->path);

	if (fd >= 0 || errno != ENOENT)
		return fd;
	return sbx_mnt_target(c, it->path, item_is_dir(it), 1);
}

/* Bind an item's pinned source onto its path, creating the mount point in
 * one of our tmpfs if needed.  Returns 1 when bound, 0 when skipped. */
static int bind_item(struct mctx *c, struct mitem *it)
{
	int tgt = item_target(c, it), rc;

	if (tgt < 0) {
		if (errno == ENOENT || errno == ENOTDIR)
			return 0;
		return sbx_errf(c->err, errno,
				"mount view: cannot resolve '%s'", it->path);
	}
	rc = sbx_mnt_bind(it->src, tgt);
	sbx_mnt_close(tgt);
	if (rc < 0)
		return sbx_errf(c->err, errno, "mount view: bind '%s'",
				it->path);
	return 1;
}

/* A writable root.  The recursive clear fails with EPERM when a host mount
 * below is locked read-only; that one then simply stays read-only. */
static int apply_rw(struct mctx *c, struct mitem *it)
{
	int r;

	if (strcmp(it->path, "/") != 0) {
		r = bind_item(c, it);
		if (r <= 0)
			return r;
	}
	if (sbx_mnt_set_attr(it->path, 1, ATTR_SECURE, MOUNT_ATTR_RDONLY) < 0 &&
	    (errno != EPERM ||
	     sbx_mnt_set_attr(it->path, 0, ATTR_SECURE, MOUNT_ATTR_RDONLY) < 0))
		return sbx_errf(c->err, errno, "mount view: make '%s' writable",
				it->path);
	return sbx_mnt_record(c, it->path, D_RW);
}

/* FS-05: a read-only bind moves with its parent when the parent is
 * renamed, so `mv .git g; mkdir -p .git/hooks` would undo it.  Making every
 * directory between the writable root (exclusive) and the protected path's
 * parent (inclusive) a mount point of its own makes those renames fail with
 * EBUSY.  The self-binds are copies of the writable mount: still writable.
 * Hidden paths get the same (TIME-04): `mv config config.moved; mkdir
 * config` would otherwise carry a hidden config/master.key out of its rule
 * for the next run.  A directory missing on the way ends the walk: nothing
 * below it exists to be moved. */
static int pin_parents(struct mctx *c, size_t from, const struct mitem *it)
{
	char dir[PATH_MAX];
	size_t i;
	int fd, rc;

	for (i = from + 1; i < it->len; i++) {
		if (it->path[i] != '/')
			continue;
		memcpy(dir, it->path, i);
		dir[i] = '\0';
		if (is_done(c, dir))
			continue;
		fd = sbx_mnt_pin(dir);
		if (fd < 0 && (errno == ENOENT || errno == ENOTDIR))
			return 0; /* nothing further down to move */
		if (fd < 0)
			return sbx_errf(c->err, errno,
					"mount view: cannot resolve '%s'", dir);
		rc = sbx_mnt_bind(fd, fd);
		sbx_mnt_close(fd);
		if (rc < 0)
			return sbx_errf(c->err, errno, "mount view: bind '%s'",
					dir);
		if (sbx_mnt_record(c, dir, D_MID) < 0)
			return -1;
	}
	return 0;
}

/* The read-only bind itself, on a resolved target. */
static int bind_ro(struct mctx *c, struct mitem *it, int tgt)
{
	int r = sbx_mnt_bind_ro(it->src, tgt);

	if (r == 0) /* older kernel: bind, then remount read-only */
		r = sbx_mnt_bind(it->src, tgt) < 0 ? -1
		    : sbx_mnt_set_attr(it->path, 1,
				       MOUNT_ATTR_RDONLY | ATTR_SECURE, 0) < 0
			    ? -2
			    : 1;
	if (r == -1)
		return sbx_errf(c->err, errno, "mount view: bind '%s'",
				it->path);
	if (r == -2)
		return sbx_errf(c->err, errno,
				"mount view: make '%s' read-only", it->path);
	return sbx_mnt_record(c, it->path, D_RO);
}

/* Read-only: nothing to do where the host tree shows through (step 3 made
 * it read-only already) or under one of our read-only binds.  Below
 * something writable (a writable root, or the private /tmp where the
 * mount point may have to be created first) the directories above are
 * pinned before the bind, so the bind is not copied into each of them.
 * The target is resolved once, and again only when pinning the parents
 * mounted something over the way to it. */
static int apply_ro(struct mctx *c, struct mitem *it)
{
	const struct mdone *anc = deepest(c, it->path);
	enum dkind kind = anc ? anc->kind : D_RO;
	int tgt, rc;

	if (!anc || anc->kind == D_RO || anc->kind == D_FILE)
		return 0;
	tgt = item_target(c, it);
	if (tgt >= 0 &&
	    (anc->kind == D_RW || anc->kind == D_MID || anc->kind == D_TMPFS)) {
		size_t from = anc->len; /* sbx_mnt_record() may move c->done */
		size_t before = c->ndone;

		if (pin_parents(c, from, it) < 0) {
			close(tgt);
			return -1;
		}
		if (c->ndone != before) {
			close(tgt);
			tgt = item_target(c, it);
		}
	}
	if (tgt < 0)
		return errno == ENOENT || errno == ENOTDIR
			       ? 0
			       : sbx_errf(c->err, errno,
					  "mount view: cannot resolve '%s'",
					  it->path);
	rc = bind_ro(c, it, tgt);
	sbx_mnt_close(tgt);
	/* Inside a writable host tree the host may replace it by rename,
	 * which detaches the bind: pid 1 keeps it (watch.c). */
	if (rc == 0 && (kind == D_RW || kind == D_MID) &&
	    sbx_watch_add(it->path) < 0)
		return sbx_errf(c->err, ENOMEM, "mount view");
	return rc;
}

/* A hidden file gets the host's /dev/null bound over it: that mount is
 * nodev since step 3, so every open fails with EACCES rather than reading
 * as empty.  The bind also makes the file impossible to rename or unlink. */
static int hide_file(struct mctx *c, struct mitem *it, int tgt)
{
	int rc;

	if (c->null < 0 && (c->null = sbx_mnt_pin("/dev/null")) < 0)
		return sbx_errf(c->err, errno, "mount view: /dev/null");
	rc = sbx_mnt_bind(c->null, tgt);
	if (rc < 0 || sbx_mnt_set_attr(it->path, 0, ATTR_SEALED, 0) < 0)
		return sbx_errf(c->err, errno, "mount view: hide '%s'",
				it->path);
	return sbx_mnt_record(c, it->path, D_FILE);
}

/* Does an item after it lie at or below its path (a mount point to make
 * in its tmpfs)?  Items are sorted by length: only later ones can. */
static int items_below(const struct mctx *c, const struct mitem *it)
{
	for (const struct mitem *x = it + 1; x < c->items + c->nitems; x++)
		if (sbx_mnt_under(x->path, it->path, it->len))
			return 1;
	return 0;
}

/* Hidden: nonexistent paths are skipped (nothing to hide, and no mount
 * point may be created on the host).  A hidden directory gets an empty
 * tmpfs, read-only from the start when nothing is to be mounted inside
 * it, else sealed last (seal()). */
static int apply_hide(struct mctx *c, struct mitem *it)
{
	const struct mdone *anc = deepest(c, it->path);
	char buf[32];
	int tgt, rc, leaf;

	if (anc && (anc->kind == D_RW || anc->kind == D_MID) &&
	    pin_parents(c, anc->len, it) < 0)
		return -1;
	if (it->src < 0)
		return 0;
	tgt = sbx_mnt_target(c, it->path, 0, 0);
	if (tgt < 0)
		return errno == ENOENT || errno == ENOTDIR
			       ? 0
			       : sbx_errf(c->err, errno,
					  "mount view: cannot resolve '%s'",
					  it->path);
	if (!item_is_dir(it)) {
		rc = hide_file(c, it, tgt);
		close(tgt);
		return rc;
	}
	leaf = !items_below(c, it);
	rc = mount("tmpfs", sbx_mnt_fdpath(tgt, buf), "tmpfs",
		   MS_NOSUID | MS_NODEV | MS_NOEXEC | (leaf ? MS_RDONLY : 0),
		   HIDE_TMPFS_OPTS);
	sbx_mnt_close(tgt);
	if (rc < 0)
		return sbx_errf(c->err, errno, "mount view: hide '%s'",
				it->path);
	if (sbx_mnt_record(c, it->path, D_TMPFS_RO) < 0)
		return -1;
	c->done[c->ndone - 1].sealed = leaf;
	return 0;
}

/*
 * RES-01: pages of a tmpfs are not in anyone's address space, so
 * RLIMIT_AS does not see them, and the kernel's default size is half of
 * the RAM.  The private /tmp holds at most limits.memory (never more than
 * that default), so a command cannot fill the machine's memory through it.
 */
uint64_t sbx_tmp_size(const struct sbx_policy *p)
{
	struct sysinfo si;
	uint64_t half = 0;

	if (sysinfo(&si) == 0)
		half = (uint64_t)si.totalram * si.mem_unit / 2;
	if (!p->limits.memory || (half && p->limits.memory > half))
		return half;
	return p->limits.memory;
}

static int apply_tmp(struct mctx *c, const struct mitem *it)
{
	char buf[32], opts[64];
	int tgt = sbx_mnt_target(c, it->path, 1, 1), rc;
	uint64_t size = sbx_tmp_size(c->l->pol);

	if (tgt < 0)
		return sbx_errf(c->err, errno, "mount view: private '%s'",
				it->path);
	if (size)
		snprintf(opts, sizeof opts, "mode=1777,size=%llu",
			 (unsigned long long)size);
	else
		snprintf(opts, sizeof opts, "mode=1777");
	rc = mount("tmpfs", sbx_mnt_fdpath(tgt, buf), "tmpfs",
		   MS_NOSUID | MS_NODEV, opts);
	sbx_mnt_close(tgt);
	if (rc < 0)
		return sbx_errf(c->err, errno, "mount view: private '%s'",
				it->path);
	return sbx_mnt_record(c, it->path, D_TMPFS);
}

static int add_item(struct mctx *c, const char *path, enum mkind kind)
{
	struct mitem *it;

	if (c->nitems == c->capitems) {
		size_t n = c->capitems ? c->capitems * 2 : 32;

		it = realloc(c->items, n * sizeof *it);
		if (!it)
			return sbx_errf(c->err, 0, "mount view: out of memory");
		c->items = it;
		c->capitems = n;
	}
	it = &c->items[c->nitems];
	it->path = strdup(path);
	if (!it->path)
		return sbx_errf(c->err, 0, "mount view: out of memory");
	it->len = strlen(path);
	it->kind = kind;
	it->src = -1;
	it->isdir = -1;
	c->nitems++;
	return 0;
}

/* A read-only extra, by its real path; silently absent when it does not
 * exist.  dir: bind the containing directory instead. */
static int add_real(struct mctx *c, const char *path, int dir, enum mkind kind)
{
	char real[PATH_MAX], *slash;

	if (!realpath(path, real))
		return 0;
	if (dir && (slash = strrchr(real, '/')) != NULL)
		slash[slash == real] = '\0';
	return add_item(c, real, kind);
}

/* /dev and /proc are rebuilt from scratch below; rules there (landlock-only
 * profiles name /dev/null, /proc/self…) have no meaning for the view. */
static int system_owned(const char *p)
{
	return sbx_mnt_under(p, "/dev", 4) || sbx_mnt_under(p, "/proc", 5);
}

static int collect_rules(struct mctx *c)
{
	const struct sbx_policy *p = c->l->pol;
	enum mkind k;
	size_t i;

	for (i = 0; i < p->nrules; i++) {
		const struct sbx_path_rule *r = &p->rules[i];

		if (system_owned(r->root))
			continue;
		if (r->flags & SBX_RF_TMP)
			k = MK_TMP;
		else
			k = r->mode == SBX_RW	? MK_RW
			    : r->mode == SBX_RO ? MK_RO
						: MK_HIDE;
		if (add_item(c, r->root, k) < 0)
			return -1;
	}
	return 0;
}

/* /run holds the sockets of D-Bus, systemd, docker, ssh and gpg agents
 * (IPC-01/02/04): it is hidden whole, and only what the policy allows comes
 * back: the run directory with the compiled policy (read-only, LCH-03),
 * allowed unix sockets, and the resolver when the network is on.  The
 * shim library comes back too, wherever it lives (a build tree in /tmp). */
static int collect_extras(struct mctx *c)
{
	const struct sbx_policy *p = c->l->pol;
	struct stat st;
	size_t i;

	if (add_item(c, "/run", MK_HIDE) < 0)
		return -1;
	if (lstat("/var/run", &st) == 0 && S_ISDIR(st.st_mode) &&
	    add_item(c, "/var/run", MK_HIDE) < 0)
		return -1;
	/* The store of compiled policies holds other projects' too: hide
	 * it, and bring back this run's file alone. */
	if (c->l->policy_file &&
	    (add_real(c, c->l->policy_file, 1, MK_HIDE) < 0 ||
	     add_real(c, c->l->policy_file, 0, MK_RO) < 0))
		return -1;
	if (c->l->shim_path && add_real(c, c->l->shim_path, 0, MK_RO) < 0)
		return -1;
	for (i = 0; i < p->unix_sockets.n; i++)
		if (add_real(c, p->unix_sockets.v[i], 0, MK_RO) < 0)
			return -1;
	if (p->net != SBX_NET_ON)
		return 0;
	if (add_real(c, "/run/systemd/resolve", 0, MK_RO) < 0)
		return -1;
	return add_real(c, "/etc/resolv.conf", 0, MK_RO);
}

static int item_cmp(const void *a, const void *b)
{
	const struct mitem *x = a, *y = b;

	if (x->len != y->len)
		return x->len < y->len ? -1 : 1;
	if (x->kind != y->kind)
		return x->kind < y->kind ? -1 : 1;
	return strcmp(x->path, y->path);
}

/* Step 2.  Unreachable roots (absent, or not searchable by us, hence not
 * by the command either) are skipped; a symlink is refused. */
static int pin_items(struct mctx *c)
{
	int dc = sbx_dircache_begin();
	size_t i;

	for (i = 0; i < c->nitems; i++) {
		struct mitem *it = &c->items[i];

		/* a missing one from one listing of its directory, made
		 * here and now (the launcher's view is not trusted) */
		if (sbx_dircache_absent(it->path)) {
			it->src = -1;
			continue;
		}
		it->src = sbx_mnt_pin(it->path);
		if (it->src >= 0 || errno == ENOENT || errno == ENOTDIR ||
		    errno == EACCES)
			continue;
		sbx_dircache_end(dc);
		if (errno == ELOOP)
			return sbx_errf(
				c->err, 0,
				"mount view: '%s' is or passes through "
				"a symlink (dangling, or changed after the "
				"policy was built): refusing to mount over "
				"it",
				it->path);
		return sbx_errf(c->err, errno, "mount view: cannot open '%s'",
				it->path);
	}
	sbx_dircache_end(dc);
	return 0;
}

static int apply_items(struct mctx *c)
{
	size_t i;
	int r = 0;

	for (i = 0; i < c->nitems && r >= 0; i++) {
		struct mitem *it = &c->items[i];

		switch (it->kind) {
		case MK_RW: r = it->src < 0 ? 0 : apply_rw(c, it); break;
		case MK_TMP: r = apply_tmp(c, it); break;
		case MK_RO: r = it->src < 0 ? 0 : apply_ro(c, it); break;
		case MK_HIDE: r = apply_hide(c, it); break;
		}
	}
	return r < 0 ? -1 : 0;
}

/* Last: the hiding tmpfs mounts and /dev become read-only now that every
 * mount point inside them exists. */
static int seal(struct mctx *c)
{
	size_t i;

	for (i = 0; i < c->ndone; i++)
		if (c->done[i].kind == D_TMPFS_RO && !c->done[i].sealed &&
		    sbx_mnt_set_attr(c->done[i].path, 0, ATTR_SEALED, 0) < 0)
			return sbx_errf(c->err, errno, "mount view: seal '%s'",
					c->done[i].path);
	return 0;
}

/* The first mount of the view.  Refused (EPERM, EACCES) it means the
 * kernel made the user namespace but grants nothing in it (AppArmor's
 * restriction, or a filter on mount(2)): -2, nothing was mounted. */
static int make_private(struct mctx *c)
{
	int e;

	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) == 0)
		return 0;
	e = errno;
	sbx_errf(c->err, e, "mount view: make mounts private");
	return e == EPERM || e == EACCES ? -2 : -1;
}

static int make_readonly(struct mctx *c)
{
	if (sbx_mnt_set_attr("/", 1, MOUNT_ATTR_RDONLY | ATTR_SECURE, 0) < 0)
		return sbx_errf(c->err, errno,
				"mount view: make the system read-only");
	return 0;
}

static void ctx_free(struct mctx *c)
{
	size_t i;

	for (i = 0; i < c->nitems; i++) {
		sbx_mnt_close(c->items[i].src);
		free(c->items[i].path);
	}
	for (i = 0; i < c->ndone; i++)
		free(c->done[i].path);
	sbx_mnt_close(c->null);
	free(c->items);
	free(c->done);
	free(c->dix);
}

int sbx_mounts_setup(const struct sbx_launch *l, struct sbx_err *err)
{
	struct mctx c = { .l = l, .err = err, .null = -1 };
	int rc = -1, proc;

	rc = make_private(&c);
	if (rc < 0)
		return rc;
	rc = -1;
	if (collect_rules(&c) < 0 || collect_extras(&c) < 0)
		goto out;
	qsort(c.items, c.nitems, sizeof *c.items, item_cmp);
	if (pin_items(&c) < 0 || make_readonly(&c) < 0 || apply_items(&c) < 0 ||
	    sbx_mnt_dev(&c) < 0 || (proc = sbx_mnt_proc(&c)) < 0 ||
	    seal(&c) < 0)
		goto out;
	rc = proc;
out:
	ctx_free(&c); /* the pinned host descriptors must not reach the
			 * command (LCH-02) */
	return rc;
}
