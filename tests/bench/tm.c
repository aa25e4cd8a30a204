/*
 * tm - time commands precisely, alternating between them round by round
 * so that machine drift cancels out of the comparison (make bench).
 *
 *   tm [-n ROUNDS] [-w WARMUP] [-p PREP] [-q] [-c] -- CMD... [::: CMD...]...
 *
 * Each "::: "-separated command is a variant.  First every variant runs
 * WARMUP times (not reported as measurements), then ROUNDS rounds; a
 * round runs every variant once, in order on even rounds and in reverse
 * order on odd ones (A B C, C B A, ...), so neighbours in time are
 * compared and a linear drift affects every variant alike.
 *
 * -p PREP  runs "/bin/sh -c PREP" before every run, untimed (a clean
 *          build tree, say); a failing PREP aborts with status 2.
 * -q       the command's stdout and stderr go to /dev/null.
 * -c       capture the command's stdout (its first line is reported;
 *          programs that time themselves print their figures there).
 *
 * One line per run on stdout:
 *
 *   run VARIANT ROUND NS MAXRSS_KB STATUS [CAPTURED]
 *
 * ROUND is -1 for a warm-up run.  NS is the wall time from spawn to
 * reaping the command; MAXRSS_KB is wait4()'s ru_maxrss, the peak
 * resident set of the command process and the descendants it reaped;
 * STATUS is the exit status, or 128 + the signal number.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

#define MAXV 32

static char **variant[MAXV];
static int nvariants;
static const char *prep;
static int quiet, capture;

static void usage(void)
{
	fprintf(stderr, "usage: tm [-n ROUNDS] [-w WARMUP] [-p PREP] [-q] [-c] "
			"-- CMD... [::: CMD...]...\n");
	exit(2);
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int status_code(int st)
{
	if (WIFEXITED(st))
		return WEXITSTATUS(st);
	if (WIFSIGNALED(st))
		return 128 + WTERMSIG(st);
	return 255;
}

static void run_prep(void)
{
	pid_t pid;
	int st;
	char *argv[] = { "/bin/sh", "-c", (char *)prep, NULL };

	if (!prep)
		return;
	if (posix_spawn(&pid, "/bin/sh", NULL, NULL, argv, environ) != 0 ||
	    waitpid(pid, &st, 0) < 0 || status_code(st) != 0) {
		fprintf(stderr, "tm: preparation failed: %s\n", prep);
		exit(2);
	}
}

/* Read the child's stdout to EOF; keep the first line. */
static void drain(int fd, char *line, size_t sz)
{
	char buf[4096];
	size_t have = 0;
	int done = 0;
	ssize_t n;

	line[0] = '\0';
	while ((n = read(fd, buf, sizeof(buf))) != 0) {
		if (n < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		for (ssize_t i = 0; i < n && !done; i++) {
			if (buf[i] == '\n' || have + 1 >= sz) {
				done = 1;
				break;
			}
			line[have++] = buf[i];
		}
		line[have] = '\0';
	}
}

static void run_one(int v, int round)
{
	posix_spawn_file_actions_t fa;
	struct rusage ru;
	char line[1024] = "";
	int pfd[2] = { -1, -1 }, st = 0;
	uint64_t t0, t1;
	pid_t pid;
	int rc;

	run_prep();
	posix_spawn_file_actions_init(&fa);
	if (quiet) {
		posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY,
						 0);
		if (!capture)
			posix_spawn_file_actions_addopen(&fa, 1, "/dev/null",
							 O_WRONLY, 0);
	}
	if (capture) {
		if (pipe2(pfd, O_CLOEXEC) < 0) {
			perror("tm: pipe");
			exit(2);
		}
		posix_spawn_file_actions_adddup2(&fa, pfd[1], 1);
	}
	t0 = now_ns();
	rc = posix_spawnp(&pid, variant[v][0], &fa, NULL, variant[v], environ);
	if (rc != 0) {
		fprintf(stderr, "tm: cannot run %s: %s\n", variant[v][0],
			strerror(rc));
		exit(2);
	}
	if (capture) {
		close(pfd[1]);
		drain(pfd[0], line, sizeof(line));
		close(pfd[0]);
	}
	while (wait4(pid, &st, 0, &ru) < 0) {
		if (errno != EINTR) {
			perror("tm: wait4");
			exit(2);
		}
	}
	t1 = now_ns();
	posix_spawn_file_actions_destroy(&fa);
	printf("run %d %d %llu %ld %d%s%s\n", v, round,
	       (unsigned long long)(t1 - t0), ru.ru_maxrss, status_code(st),
	       capture ? " " : "", line);
	fflush(stdout);
}

int main(int argc, char **argv)
{
	int rounds = 10, warmup = 1, opt;

	while ((opt = getopt(argc, argv, "+n:w:p:qc")) != -1) {
		switch (opt) {
		case 'n': rounds = atoi(optarg); break;
		case 'w': warmup = atoi(optarg); break;
		case 'p': prep = optarg; break;
		case 'q': quiet = 1; break;
		case 'c': capture = 1; break;
		default: usage();
		}
	}
	if (optind >= argc)
		usage();
	variant[nvariants++] = &argv[optind];
	for (int i = optind; i < argc; i++) {
		if (strcmp(argv[i], ":::") != 0)
			continue;
		argv[i] = NULL;
		if (i + 1 >= argc || nvariants >= MAXV)
			usage();
		variant[nvariants++] = &argv[i + 1];
	}
	for (int v = 0; v < nvariants; v++)
		if (!variant[v][0])
			usage();
	signal(SIGPIPE, SIG_IGN);
	for (int w = 0; w < warmup; w++)
		for (int v = 0; v < nvariants; v++)
			run_one(v, -1);
	for (int r = 0; r < rounds; r++)
		for (int k = 0; k < nvariants; k++)
			run_one(r % 2 ? nvariants - 1 - k : k, r);
	return 0;
}
