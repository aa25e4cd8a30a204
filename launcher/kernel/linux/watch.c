/*
 * watch.c - full mode: protected paths stay read-only for the whole run
 * (TIME-03), kept by pid 1.
 *
 * A protected file inside a writable root is a read-only bind of the file
 * onto itself, and a mount sits on a dentry.  When a program outside the
 * sandbox replaces the file by rename (git config, git remote add, an
 * IDE's git panel: config.lock renamed over .git/config; an editor saving
 * .envrc), the host's dentry is unlinked and the kernel detaches every
 * mount on it in every namespace: inside, the new file shows through the
 * writable project, and a sandboxed process waiting for it could plant
 * core.fsmonitor for the next git run outside.
 *
 * Nothing inside the sandbox can cause that: a rename or unlink over a
 * mount point in our own namespace fails with EBUSY, so a change of a
 * protected name that existed at launch always comes from outside.  pid 1
 * watches the directories holding protected paths with inotify (which
 * sees every change to the directory, whichever namespace made it) and,
 * when a watched name changes, looks at what is there now: if the path
 * is no longer read-only in our view it binds the new file read-only
 * onto itself, then looks through every process of the sandbox for a
 * descriptor or a shared mapping that can write the new file and kills
 * its holder, and says what happened on the channel (the run's warnings).
 *
 * What cannot be held, and is said (--dry-run, and the warning names the
 * file): between the host's rename and the new bind (the time for pid 1
 * to be woken and mount, well under a millisecond when the machine is not
 * starved) a sandboxed process can open the new file and write it and
 * close it again, and it can write the host's lock file before the host
 * renames it.  Paths missing at launch are not watched: whoever creates
 * them, the run names them at exit (run.c).
 *
 * Events reach pid 1 as SIGIO (O_ASYNC on the inotify descriptor), so its
 * loop stays one sigwaitinfo() over the signals it already waits for.
 * pid 1 keeps CAP_SYS_ADMIN (to mount) and CAP_SYS_PTRACE (to read the
 * descriptors of processes that made themselves non-dumpable) in the
 * sandbox's user namespace, and nothing else; it acts only on the names it
 * watches and opens them without following symlinks.
 *
 * One cleanup idiom in this file: early returns, no allocation after
 * sbx_watch_start().
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "mountview.h"
#include "spawn.h"
#include "watch.h"

#define WATCH_MASK                                                     \
	(IN_CREATE | IN_MOVED_TO | IN_MOVED_FROM | IN_DELETE |         \
	 IN_DELETE_SELF | IN_MOVE_SELF | IN_ONLYDIR | IN_DONT_FOLLOW | \
	 IN_EXCL_UNLINK)

struct witem {
	char *path; /* canonical, as in the policy */
	const char *name; /* its last component, inside path */
	int wd; /* inotify watch of its directory */
	int lost; /* could not be protected again: said once */
};

static struct {
	int fd; /* inotify, or -1 */
	int chan; /* the channel to the supervisor */
	struct witem *v;
	size_t n, cap;
} W = { .fd = -1 };

int sbx_watch_add(const char *path)
{
	struct witem *it;
	const char *slash = strrchr(path, '/');

	if (!slash || slash == path)
		return 0;
	if (W.n == W.cap) {
		size_t cap = W.cap ? 2 * W.cap : 16;

		it = realloc(W.v, cap * sizeof *it);
		if (!it)
			return -1;
		W.v = it;
		W.cap = cap;
	}
	it = &W.v[W.n];
	it->path = strdup(path);
	if (!it->path)
		return -1;
	it->name = it->path + (slash - path) + 1;
	it->wd = -1;
	it->lost = 0;
	W.n++;
	return 0;
}

int sbx_watch_start(int chan, struct sbx_err *err)
{
	sigset_t io;

	if (!W.n)
		return 0;
	W.chan = chan;
	W.fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	if (W.fd < 0)
		return sbx_errf(err, errno, "inotify");
	for (size_t i = 0; i < W.n; i++) {
		char dir[PATH_MAX];
		size_t n = (size_t)(W.v[i].name - 1 - W.v[i].path);

		memcpy(dir, W.v[i].path, n);
		dir[n] = '\0';
		W.v[i].wd = inotify_add_watch(W.fd, dir, WATCH_MASK);
		if (W.v[i].wd < 0)
			return sbx_errf(err, errno, "inotify: watch '%s'", dir);
	}
	/* SIGIO must be blocked before it can be raised: its default
	 * action ends the process. */
	sigemptyset(&io);
	sigaddset(&io, SIGIO);
	if (sigprocmask(SIG_BLOCK, &io, NULL) < 0 ||
	    fcntl(W.fd, F_SETOWN, getpid()) < 0 ||
	    fcntl(W.fd, F_SETFL, O_NONBLOCK | O_ASYNC) < 0)
		return sbx_errf(err, errno, "inotify: SIGIO");
	return 1;
}

int sbx_watching(void)
{
	return W.fd >= 0;
}

/* Does a sandboxed process hold something that writes the file (dev,
 * ino)?  Every descriptor opened for writing, every shared writable
 * mapping.  Each holder is killed; returns how many were. */
static int proc_writes(pid_t pid, dev_t dev, ino_t ino)
{
	char path[64], link[64], line[512];
	struct stat st;
	struct dirent *e;
	unsigned long long flags;
	unsigned maj, min;
	unsigned long long lino;
	char perm[8];
	DIR *d;
	FILE *f;
	int hit = 0;

	snprintf(path, sizeof path, "/proc/%d/fd", (int)pid);
	d = opendir(path);
	while (d && !hit && (e = readdir(d)) != NULL) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(link, sizeof link, "/proc/%d/fd/%s", (int)pid,
			 e->d_name);
		if (stat(link, &st) < 0 || st.st_dev != dev || st.st_ino != ino)
			continue;
		snprintf(link, sizeof link, "/proc/%d/fdinfo/%s", (int)pid,
			 e->d_name);
		f = fopen(link, "re");
		while (f && fgets(line, sizeof line, f))
			if (sscanf(line, "flags: %llo", &flags) == 1 &&
			    (flags & O_ACCMODE) != O_RDONLY)
				hit = 1;
		if (f)
			fclose(f);
	}
	if (d)
		closedir(d);
	snprintf(path, sizeof path, "/proc/%d/maps", (int)pid);
	f = hit ? NULL : fopen(path, "re");
	while (f && !hit && fgets(line, sizeof line, f))
		if (sscanf(line, "%*x-%*x %7s %*x %x:%x %llu", perm, &maj, &min,
			   &lino) == 4 &&
		    perm[1] == 'w' && perm[3] == 's' && lino == ino &&
		    makedev(maj, min) == dev)
			hit = 1;
	if (f)
		fclose(f);
	return hit;
}

static int kill_writers(dev_t dev, ino_t ino)
{
	DIR *d = opendir("/proc");
	struct dirent *e;
	int killed = 0;

	while (d && (e = readdir(d)) != NULL) {
		pid_t pid = (pid_t)atoi(e->d_name);

		if (pid <= 1 || !proc_writes(pid, dev, ino))
			continue;
		if (kill(pid, SIGKILL) == 0)
			killed++;
	}
	if (d)
		closedir(d);
	return killed;
}

/* The watched path changed: make it read-only again if it is not. */
static void verify(struct witem *it)
{
	struct statvfs sv;
	struct stat st;
	int fd = sbx_mnt_pin(it->path), k;

	if (fd < 0) {
		if (errno == ENOENT || it->lost)
			return; /* removed; a new one comes with IN_CREATE */
		it->lost = 1;
		sbx_chan_say(W.chan, MSG_WARN,
			     "'%s' was replaced during the run by something "
			     "sbxrun cannot make read-only again (%s): review "
			     "it before using it outside the sandbox",
			     it->path,
			     errno == ELOOP ? "a symbolic link"
					    : strerror(errno));
		return;
	}
	if (fstatvfs(fd, &sv) == 0 && (sv.f_flag & ST_RDONLY)) {
		close(fd);
		return;
	}
	if (fstat(fd, &st) < 0 || sbx_mnt_ro_onto(fd, fd, it->path) < 0) {
		sbx_chan_say(W.chan, MSG_WARN,
			     "'%s' was replaced by a program outside the "
			     "sandbox during the run and could not be made "
			     "read-only again inside (%s): review it before "
			     "using it outside the sandbox",
			     it->path, strerror(errno));
		close(fd);
		return;
	}
	close(fd);
	k = kill_writers(st.st_dev, st.st_ino);
	sbx_chan_say(W.chan, MSG_WARN,
		     "'%s' was replaced by a program outside the sandbox "
		     "during the run; sbxrun made the new file read-only "
		     "inside again%s: a sandboxed process could have written "
		     "it in between, review it before using it outside",
		     it->path,
		     k ? ", and killed a sandboxed process that could still "
			 "write it"
		       : "");
}

static void verify_all(void)
{
	for (size_t i = 0; i < W.n; i++)
		verify(&W.v[i]);
}

void sbx_watch_events(void)
{
	char buf[4096]
		__attribute__((aligned(__alignof__(struct inotify_event))));
	const struct inotify_event *ev;
	ssize_t len;

	if (W.fd < 0)
		return;
	while ((len = read(W.fd, buf, sizeof buf)) > 0) {
		for (char *p = buf; p < buf + len; p += sizeof *ev + ev->len) {
			ev = (const struct inotify_event *)p;
			if (ev->mask & (IN_Q_OVERFLOW | IN_DELETE_SELF |
					IN_MOVE_SELF | IN_IGNORED)) {
				verify_all();
				continue;
			}
			for (size_t i = 0; i < W.n; i++)
				if (W.v[i].wd == ev->wd && ev->len &&
				    strcmp(W.v[i].name, ev->name) == 0)
					verify(&W.v[i]);
		}
	}
}
