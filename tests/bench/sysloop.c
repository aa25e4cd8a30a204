/*
 * sysloop - what an allowed system call costs under sbxrun's seccomp
 * filter, plain and with user notification (the supervisor's listener,
 * launcher/kernel/linux/notif.c), against no filter: the listener must
 * cost allowed calls nothing (issue 13).
 *
 *   sysloop N
 *
 * Loads the very filters sbxrun loads (BUILD/gen/seccomp_bpf.h, full
 * mode, network off), each in a child of its own, and times N getppid
 * calls in chunks of 1000, keeping the fastest chunk.  Prints
 *   bare=NS plain=NS notif=NS notif_delta=NS
 * per call (notif_delta = notif - plain).
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <linux/filter.h>
#include <linux/seccomp.h>

struct sbx_sc_name {
	int nr;
	const char *name;
};

#include "seccomp_bpf.h"

#define CHUNK 1000

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* The fastest chunk, per call, in ns. */
static double loop(long n)
{
	double best = 1e30;

	for (long done = 0; done < n; done += CHUNK) {
		uint64_t t = now_ns();

		for (int i = 0; i < CHUNK; i++)
			syscall(SYS_getppid);
		t = now_ns() - t;
		if ((double)t / CHUNK < best)
			best = (double)t / CHUNK;
	}
	return best;
}

/* variant: -1 none, 0 plain, 1 notify. */
static double measure(int variant, long n)
{
	int p[2];
	double r = -1;
	pid_t pid;

	if (pipe(p) < 0)
		return -1;
	pid = fork();
	if (pid == 0) {
		const struct sock_fprog *f = &sbx_bpf[variant > 0][1][1];

		close(p[0]);
		if (variant >= 0 &&
		    (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 ||
		     syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER,
			     variant ? SECCOMP_FILTER_FLAG_NEW_LISTENER : 0,
			     f) < 0)) {
			perror("sysloop: seccomp");
			_exit(1);
		}
		r = loop(n);
		if (write(p[1], &r, sizeof r) != sizeof r)
			_exit(1);
		_exit(0);
	}
	close(p[1]);
	if (pid < 0 || read(p[0], &r, sizeof r) != sizeof r)
		r = -1;
	close(p[0]);
	if (pid > 0)
		waitpid(pid, NULL, 0);
	return r;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1000000;
	double bare = measure(-1, n), plain = measure(0, n),
	       notif = measure(1, n);

	if (bare < 0 || plain < 0 || notif < 0)
		return 1;
	printf("bare=%.1f plain=%.1f notif=%.1f notif_delta=%.1f\n", bare,
	       plain, notif, notif - plain);
	return 0;
}
