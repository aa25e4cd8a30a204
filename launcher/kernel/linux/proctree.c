/*
 * proctree.c - the sandbox's process tree where no pid namespace ends it
 * (landlock-only mode): found through /proc by parent and start time, and
 * killed whole (spawn.h).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "spawn.h"

int sbx_proc_stat(pid_t pid, pid_t *ppid, unsigned long long *start)
{
	char path[64], buf[1024], *p;
	int fd, f;
	ssize_t n;

	snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof buf - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	p = strrchr(buf, ')'); /* the name may contain anything */
	if (!p)
		return -1;
	for (f = 2; p && f < 22; f++) {
		p = strchr(p + 1, ' ');
		if (p && f == 3)
			*ppid = (pid_t)strtol(p + 1, NULL, 10);
	}
	if (!p)
		return -1;
	*start = strtoull(p + 1, NULL, 10);
	return 0;
}

struct proc {
	pid_t pid, ppid;
	unsigned long long start;
	int mark;
};

static int proc_cmp(const void *a, const void *b)
{
	const struct proc *x = a, *y = b;

	return (x->pid > y->pid) - (x->pid < y->pid);
}

static int read_procs(struct proc **out, size_t *n)
{
	DIR *d = opendir("/proc");
	struct dirent *de;
	struct proc *v = NULL, *t;
	size_t cap = 0;

	*n = 0;
	if (!d)
		return -1;
	while ((de = readdir(d)) != NULL) {
		pid_t pid = (pid_t)strtol(de->d_name, NULL, 10);

		if (pid <= 0)
			continue;
		if (*n == cap) {
			cap = cap ? cap * 2 : 256;
			t = realloc(v, cap * sizeof *v);
			if (!t)
				break;
			v = t;
		}
		v[*n].pid = pid;
		v[*n].mark = 0;
		if (sbx_proc_stat(pid, &v[*n].ppid, &v[*n].start) == 0)
			(*n)++;
	}
	closedir(d);
	*out = v;
	return 0;
}

/* Every descendant of root that belongs to the sandbox: root's children
 * started no earlier than min_start (the supervisor's caller may have
 * children of its own, which are not ours to kill), and theirs,
 * transitively.  Marked in place. */
static size_t mark_tree(pid_t root, unsigned long long min_start,
			struct proc *v, size_t n)
{
	size_t i, count = 0;
	int changed = 1;
	struct proc key, *par;

	qsort(v, n, sizeof *v, proc_cmp);
	while (changed) {
		changed = 0;
		for (i = 0; i < n; i++) {
			if (v[i].mark)
				continue;
			key.pid = v[i].ppid;
			par = bsearch(&key, v, n, sizeof *v, proc_cmp);
			if ((v[i].ppid == root && v[i].start >= min_start) ||
			    (par && par->mark)) {
				v[i].mark = 1;
				changed = 1;
				count++;
			}
		}
	}
	return count;
}

/* Does root (us) still have a child?  Reaps the dead ones on the way. */
static int children_left(void)
{
	int st;

	while (waitpid(-1, &st, WNOHANG | __WALL) > 0)
		;
	return errno != ECHILD;
}

/* Has root (us) any child at all?  Reaps none.  Every descendant of the
 * sandbox has an ancestor among our children (we are a subreaper, and
 * the sandbox cannot make a pid namespace), so without one there is no
 * tree to scan /proc for -- the common case, and a scan costs about a
 * millisecond on a busy machine. */
static int has_children(void)
{
	siginfo_t si;

	memset(&si, 0, sizeof si);
	return waitid(P_ALL, 0, &si,
		      WEXITED | WSTOPPED | WCONTINUED | WNOHANG | WNOWAIT |
			      __WALL) == 0 ||
	       errno != ECHILD;
}

/* Nothing the command started may outlive it (PRC-03): daemons, double
 * forks, setsid, nohup.  root (us) is a child subreaper, so every orphan
 * of the tree reparents to it.  SIGKILL every marked process at once,
 * reap root's own children, which reparents their orphans to root, and go
 * round until none is left.  A process that forks and exits while /proc
 * is being read can slip through one scan; when every child of root is
 * the sandbox's (the keeper: all_ours), "root has no child left" is the
 * exact end condition, since every descendant has an ancestor among
 * root's children.  reaped() (may be NULL) hears about each child. */
void sbx_kill_tree(pid_t root, unsigned long long min_start, int all_ours,
		   void (*reaped)(struct sup *, pid_t, int), struct sup *s)
{
	struct proc *v = NULL;
	size_t n, i, marked;
	int st;

	for (;;) {
		free(v);
		v = NULL;
		if (!has_children() || read_procs(&v, &n) < 0)
			break;
		marked = mark_tree(root, min_start, v, n);
		if (marked == 0 && (!all_ours || !children_left()))
			break;
		for (i = 0; i < n; i++)
			if (v[i].mark)
				kill(v[i].pid, SIGKILL);
		for (i = 0; i < n; i++)
			if (v[i].mark && v[i].ppid == root &&
			    waitpid(v[i].pid, &st, __WALL) == v[i].pid &&
			    reaped)
				reaped(s, v[i].pid, st);
	}
	free(v);
}
