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
 * mount point in our own namespace fails with EBUSY, so a protected name
 * that existed at launch loses its bind only by a change from outside.
 * The detach changes our namespace's mount table, and a poll(2) on
 * /proc/self/mountinfo wakes on every such change (POLLPRI): pid 1 waits
 * for it next to its signals and then looks at every protected path it
 * bound.  One that is no longer read-only in our view gets the new file
 * bound read-only onto itself; then pid 1 looks through every process of
 * the sandbox for a descriptor or a shared mapping that can write the new
 * file and kills its holder, and says what happened on the channel (the
 * run's warnings).  Nothing else changes our mount table during the run
 * (the command can neither mount nor unmount, and the host's mounts do
 * not propagate into a private tree), so the wake-ups are rare.  inotify
 * would say more (which name) but costs every run 5-15 ms at exit, when
 * the kernel waits for a grace period to tear its watches down.
 *
 * What cannot be held, and is said (--dry-run, and the warning names the
 * file): between the host's rename and the new bind (the time for pid 1
 * to be woken and mount, well under a millisecond when the machine is not
 * starved) a sandboxed process can open the new file and write it and
 * close it again, and it can write the host's lock file before the host
 * renames it.  Paths missing at launch are not watched: whoever creates
 * them, the run names them at exit (run.c).
 *
 * pid 1 keeps CAP_SYS_ADMIN (to mount) and CAP_SYS_PTRACE (to read the
 * descriptors of processes that made themselves non-dumpable) in the
 * sandbox's user namespace, and nothing else; it opens the protected
 * paths without following symlinks.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <poll.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "mountview.h"
#include "spawn.h"
#include "watch.h"

struct witem {
	char *path; /* canonical, as in the policy */
	int lost; /* could not be protected again: said once */
};

static struct {
	int fd; /* /proc/self/mountinfo, or -1 */
	int chan; /* the channel to the supervisor */
	struct witem *v;
	size_t n, cap;
} W = { .fd = -1 };

int sbx_watch_add(const char *path)
{
	struct witem *it;
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
	it->lost = 0;
	W.n++;
	return 0;
}

int sbx_watch_start(int chan, struct sbx_err *err)
{
	struct pollfd pf;

	if (!W.n)
		return 0;
	W.chan = chan;
	/* Our fresh /proc: pid 1's own namespace.  The first poll takes the
	 * changes made so far (the mount view itself). */
	W.fd = open("/proc/self/mountinfo", O_RDONLY | O_CLOEXEC);
	if (W.fd < 0)
		return sbx_errf(err, errno, "/proc/self/mountinfo");
	pf = (struct pollfd){ .fd = W.fd, .events = POLLPRI };
	(void)poll(&pf, 1, 0);
	return 1;
}

int sbx_watch_fd(void)
{
	return W.fd;
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

/*
 * Make it read-only in our view again if it is not: 1 bound again (st:
 * the new file), 0 nothing to do (still ours, or gone), -1 error.  The
 * mount table changes when the host's rename detaches our bind, which is
 * before the rename has put the new file in place: for a moment the name
 * still shows the old, unlinked file, which cannot take a mount (ENOENT).
 * So pid 1 looks again at once, yielding the CPU in between (the rename
 * ends within microseconds, and every one of them is the window a waiting
 * command has), then with pauses, for up to about 20 ms.
 */
#define REBIND_SPINS 2000
#define REBIND_TRIES (REBIND_SPINS + 400)
#define REBIND_PAUSE_NS 50000

static int rebind(const struct witem *it, struct stat *st)
{
	const struct timespec pause = { 0, REBIND_PAUSE_NS };
	struct statvfs sv;
	int fd, r;

	for (int i = 0; i < REBIND_TRIES; i++) {
		if (i && i < REBIND_SPINS)
			sched_yield();
		else if (i)
			nanosleep(&pause, NULL);
		fd = sbx_mnt_pin(it->path);
		if (fd < 0 && errno == ENOENT)
			continue;
		if (fd < 0)
			return -1;
		if (fstatvfs(fd, &sv) == 0 && (sv.f_flag & ST_RDONLY)) {
			close(fd);
			return 0;
		}
		r = fstat(fd, st) < 0	? -1
		    : st->st_nlink == 0 ? (errno = ENOENT, -1)
					: sbx_mnt_ro_onto(fd, fd, it->path);
		sbx_mnt_close(fd);
		if (r == 0)
			return 1;
		if (errno != ENOENT)
			return -1;
	}
	return 0; /* removed by the host; a new one comes with the next
		   * change of the mount table, or is named at exit */
}

static void verify(struct witem *it)
{
	struct stat st;
	int r = rebind(it, &st), k;

	if (r == 0)
		return;
	if (r < 0) {
		if (it->lost)
			return;
		it->lost = 1;
		sbx_chan_say(W.chan, MSG_WARN,
			     "'%s' was replaced by a program outside the "
			     "sandbox during the run and could not be made "
			     "read-only again inside (%s): review it before "
			     "using it outside the sandbox",
			     it->path,
			     errno == ELOOP ? "it is a symbolic link now"
					    : strerror(errno));
		return;
	}
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

void sbx_watch_events(void)
{
	for (size_t i = 0; i < W.n; i++)
		verify(&W.v[i]);
}
