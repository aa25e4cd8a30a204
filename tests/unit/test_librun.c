/*
 * test_librun.c - libsbx's sbx_run() as an embedder uses it (include/sbx.h):
 * captured stdout and stderr, exit status, argv and shell forms, a command
 * that is not found, the timeout (timed_out, 124), stdin fed from memory,
 * output caps, the refusal list for a hidden canary (which must never
 * show), the JSON report, and several threads running sbx_run() at once
 * on one sbx_t (which sbx.h promises is safe).  Each check runs in both
 * kernel modes.
 *
 * Needs the kernel layers: when sbx_run() says the kernel cannot sandbox,
 * the test is skipped (a failure with SBX_MUST_WORK=1).  The shim is found
 * through $SBXRUN_SHIM, set here to the build's libsbxshim.so: a test
 * binary linked with libsbx.a sits in build/tests/, where libsbx would not
 * look for it.  Scratch HOME and project live under /var/tmp, not /tmp
 * (the sandbox has a private /tmp).  Under AddressSanitizer the project
 * conf lifts the address-space limit, which ASan cannot live with.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "conf.h"
#include "sbx.h"
#include "testutil.h"

#if defined(__SANITIZE_ADDRESS__)
#define UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define UNDER_ASAN 1
#endif
#endif

#define NTHREADS 4
#define RUNS_PER_THREAD 3

static struct {
	char top[PATH_MAX];
	char home[PATH_MAX + 16];
	char xdg[PATH_MAX + 16];
	char proj[PATH_MAX + 16];
	char canary[64];
	struct sbx_opts o;
} fx;

struct mode_fx {
	enum sbx_mode_req mode;
	sbx_t *s;
};

static struct mode_fx modes[] = {
	{ SBX_MODE_FULL, NULL },
	{ SBX_MODE_LANDLOCK_ONLY, NULL },
};

/* ------------------------------------------------------------ fixture */

static int find_shim(void)
{
	const char *b = getenv("SBX_BUILD");
	char exe[PATH_MAX], cand[3][PATH_MAX + 64], *sl;
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	exe[n > 0 ? n : 0] = '\0';
	sl = strrchr(exe, '/');
	if (sl)
		*sl = '\0';
	snprintf(cand[0], sizeof(cand[0]), "%s/libsbxshim.so",
		 b ? b : "/nonexistent");
	snprintf(cand[1], sizeof(cand[1]), "%s/../libsbxshim.so", exe);
	snprintf(cand[2], sizeof(cand[2]), "%s/build/libsbxshim.so", tu_top());
	for (int i = 0; i < 3; i++) {
		char real[PATH_MAX];

		if (realpath(cand[i], real) && access(real, R_OK) == 0)
			return setenv("SBXRUN_SHIM", real, 1);
	}
	fprintf(stderr, "test_librun: no libsbxshim.so found (make builds "
			"it); refusals cannot be recorded\n");
	return 0;
}

static int setup(void **state)
{
	char tmpl[] = "/var/tmp/sbx-librun-XXXXXX", path[PATH_MAX + 64];
	char err[1200];

	(void)state;
	if (!mkdtemp(tmpl) || !realpath(tmpl, fx.top))
		return -1;
	chmod(fx.top, 0755);
	snprintf(fx.home, sizeof(fx.home), "%s/home", fx.top);
	snprintf(fx.xdg, sizeof(fx.xdg), "%s/xdg", fx.top);
	snprintf(fx.proj, sizeof(fx.proj), "%s/proj", fx.top);
	snprintf(fx.canary, sizeof(fx.canary), "sbx-librun-canary-%d",
		 (int)getpid());
	snprintf(path, sizeof(path), "%s/.ssh/id_rsa", fx.home);
	if (mkdir(fx.home, 0755) || mkdir(fx.xdg, 0700) ||
	    mkdir(fx.proj, 0755) || tu_write_p(path, fx.canary) < 0)
		return -1;
	/* The sandboxed shell expands ~ from $HOME. */
	setenv("HOME", fx.home, 1);
	unsetenv("XDG_RUNTIME_DIR");
	if (find_shim() < 0)
		return -1;
	fx.o.home = fx.home;
	fx.o.config_home = fx.xdg;
	fx.o.project_dir = fx.proj;
	fx.o.system_conf = "/nonexistent/sbxrun/config";
	fx.o.profile_dir = tu_profile_dir();
#ifdef UNDER_ASAN
	/* The sandboxed child runs instrumented code between setrlimit()
	 * and exec: under an address-space limit ASan's allocator cannot
	 * map its memory ("Failed to mmap") and the child aborts. */
	{
		struct sbx_locs l;
		struct sbx_err e;

		if (sbx_locs_init(&l, &fx.o, &e) < 0 ||
		    tu_write_p(l.project_conf, "limits = { memory = 0; };\n") <
			    0)
			return -1;
	}
#endif
	for (size_t i = 0; i < sizeof(modes) / sizeof(modes[0]); i++) {
		struct sbx_opts o = fx.o;

		o.mode = modes[i].mode;
		if (sbx_open(&modes[i].s, &o, err, sizeof(err)) != SBX_OK) {
			fprintf(stderr, "sbx_open: %s\n", err);
			return -1;
		}
	}
	return 0;
}

static int teardown(void **state)
{
	char cmd[PATH_MAX + 32];

	(void)state;
	for (size_t i = 0; i < sizeof(modes) / sizeof(modes[0]); i++)
		sbx_close(modes[i].s);
	if (strncmp(fx.top, "/var/tmp/sbx-librun-", 20) == 0 &&
	    !strchr(fx.top, '\'')) {
		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", fx.top);
		return system(cmd) == 0 ? 0 : -1;
	}
	return 0;
}

/* sbx_run, or skip when the kernel cannot sandbox in this mode. */
static struct sbx_result *run(struct mode_fx *m, const struct sbx_run_req *req)
{
	struct sbx_result *res = NULL;
	char err[1200] = "";
	int rc = sbx_run(m->s, req, &res, err, sizeof(err));

	if (rc == SBX_E_KERNEL) {
		const char *must = getenv("SBX_MUST_WORK");

		if (must && !strcmp(must, "1"))
			fail_msg("mode %d cannot sandbox here: %s", m->mode,
				 err);
		fprintf(stderr, "test_librun: mode %d unavailable: %s\n",
			m->mode, err);
		skip();
	}
	if (rc != SBX_OK)
		fail_msg("sbx_run: %s: %s", sbx_strerror(rc), err);
	assert_non_null(res);
	return res;
}

#define EACH_MODE(m)                    \
	for (struct mode_fx *m = modes; \
	     m < modes + sizeof(modes) / sizeof(modes[0]); m++)

/* ------------------------------------------------------------ checks */

static void test_capture_and_status(void **state)
{
	(void)state;
	EACH_MODE(m)
	{
		struct sbx_run_req req = { .shell =
						   "echo hello; echo oops >&2; "
						   "exit 3",
					   .capture = 1 };
		struct sbx_result *r = run(m, &req);

		assert_int_equal(r->exit_code, 3);
		assert_int_equal(r->status, 3);
		assert_int_equal(r->signal, 0);
		assert_int_equal(r->timed_out, 0);
		assert_int_equal(r->out_len, 6);
		assert_string_equal(r->out, "hello\n");
		assert_string_equal(r->err, "oops\n");
		assert_int_equal(r->nrefusals, 0);
		assert_true(r->duration >= 0 && r->duration < 30);
		assert_string_equal(r->mode, m->mode == SBX_MODE_FULL
						     ? "full"
						     : "landlock-only");
		assert_non_null(strstr(r->layers, "seccomp"));
		sbx_result_free(r);
	}
}

static void test_argv_and_workdir(void **state)
{
	(void)state;
	EACH_MODE(m)
	{
		char *const argv[] = { (char *)"/bin/sh",
				       (char *)"-c",
				       (char *)"pwd; printf '%s|' \"$@\"",
				       (char *)"sh",
				       (char *)"a b",
				       (char *)"",
				       (char *)"c'd",
				       NULL };
		struct sbx_run_req req = { .argv = argv, .capture = 1 };
		struct sbx_result *r = run(m, &req);
		char want[PATH_MAX + 64];

		snprintf(want, sizeof(want), "%s\na b||c'd|", fx.proj);
		assert_int_equal(r->exit_code, 0);
		assert_string_equal(r->out, want);
		sbx_result_free(r);
	}
}

static void test_not_found(void **state)
{
	(void)state;
	EACH_MODE(m)
	{
		char *const argv[] = { (char *)"/nonexistent/prog", NULL };
		struct sbx_run_req req = { .argv = argv, .capture = 1 };
		struct sbx_result *r = run(m, &req);

		assert_int_equal(r->exit_code, 127);
		assert_int_equal(r->exec_errno, ENOENT);
		sbx_result_free(r);
	}
}

static void test_timeout(void **state)
{
	(void)state;
	EACH_MODE(m)
	{
		struct sbx_run_req req = { .shell = "echo started; sleep 30; "
						    "echo never",
					   .capture = 1,
					   .timeout = 1 };
		struct sbx_result *r = run(m, &req);

		assert_int_equal(r->timed_out, 1);
		assert_int_equal(r->exit_code, 124);
		assert_true(r->duration >= 0.9 && r->duration < 10);
		assert_string_equal(r->out, "started\n");
		sbx_result_free(r);
	}
}

static void test_stdin(void **state)
{
	static const char data[] = "line one\n\0binary\xff\n";

	(void)state;
	EACH_MODE(m)
	{
		struct sbx_run_req req = { .shell = "cat; echo; wc -c",
					   .stdin_data = data,
					   .stdin_len = sizeof(data) - 1,
					   .capture = 1 };
		struct sbx_result *r = run(m, &req);

		assert_int_equal(r->exit_code, 0);
		assert_true(r->out_len >= sizeof(data));
		assert_memory_equal(r->out, data, sizeof(data) - 1);
		assert_string_equal(r->out + sizeof(data) - 1, "\n0\n");
		sbx_result_free(r);
	}
}

static void test_big_stdin_and_cap(void **state)
{
	size_t n = 1u << 20;
	char *big = malloc(n);

	(void)state;
	assert_non_null(big);
	memset(big, 'x', n);
	EACH_MODE(m)
	{
		struct sbx_run_req req = { .shell = "cat",
					   .stdin_data = big,
					   .stdin_len = n,
					   .capture = 1,
					   .max_output = 1000 };
		struct sbx_result *r = run(m, &req);

		assert_int_equal(r->exit_code, 0);
		assert_int_equal(r->out_len, 1000);
		assert_int_equal(r->out_truncated, 1);
		assert_int_equal(r->err_truncated, 0);
		sbx_result_free(r);
	}
	free(big);
}

static void test_refusal_canary(void **state)
{
	(void)state;
	EACH_MODE(m)
	{
		struct sbx_run_req req = { .shell = "cat ~/.ssh/id_rsa; "
						    "cat \"$HOME/.ssh/id_rsa\"",
					   .capture = 1 };
		struct sbx_result *r = run(m, &req);
		char target[PATH_MAX + 64];
		char *const argv[] = { (char *)"/bin/sh", (char *)"-c",
				       (char *)req.shell, NULL };
		char *json;
		int seen = 0;

		snprintf(target, sizeof(target), "%s/.ssh/id_rsa", fx.home);
		assert_int_not_equal(r->exit_code, 0);
		assert_null(r->out && strstr(r->out, fx.canary) ? r->out
								: NULL);
		assert_null(r->err && strstr(r->err, fx.canary) ? r->err
								: NULL);
		assert_true(r->nrefusals > 0);
		for (size_t i = 0; i < r->nrefusals; i++) {
			const struct sbx_refusal *x = &r->refusals[i];

			if (strcmp(x->target, target) != 0)
				continue;
			seen = 1;
			assert_string_equal(x->op, "read");
			assert_string_equal(x->kind, "hidden");
			assert_non_null(strstr(x->message, "hidden by the "
							   "sandbox policy"));
			assert_true(x->count >= 1);
		}
		assert_true(seen);
		json = sbx_result_json(r, argv);
		assert_non_null(json);
		assert_non_null(strstr(json, "\"refusals\""));
		assert_non_null(strstr(json, "\"hidden\""));
		assert_null(strstr(json, fx.canary));
		free(json);
		sbx_result_free(r);
	}
}

/* A static program's raw mount(2), refused by seccomp: the supervisor's
 * listener says it in the captured stderr, once, and records it (issue
 * 13).  The probe is the build's (BUILD/probes, next to BUILD/tests). */
static void test_syscall_refusal(void **state)
{
	char probe[PATH_MAX], *slash;
	ssize_t n = readlink("/proc/self/exe", probe, sizeof(probe) - 64);

	(void)state;
	if (n <= 0)
		skip();
	probe[n] = '\0';
	slash = strrchr(probe, '/');
	if (!slash)
		skip();
	strcpy(slash, "/../probes/atk_syscall.static");
	if (access(probe, X_OK) != 0) {
		fprintf(stderr, "test_librun: %s not built\n", probe);
		skip();
	}
	EACH_MODE(m)
	{
		char *const argv[] = { probe, (char *)"mount", (char *)"/tmp",
				       NULL };
		struct sbx_run_req req = { .argv = argv, .capture = 1 };
		struct sbx_result *r = run(m, &req);
		const char *line = "sbxrun: blocked mount by atk_syscall.sta";
		const char *at;

		assert_non_null(r->out);
		assert_non_null(strstr(r->out, "RESULT -1 EPERM"));
		assert_non_null(r->err);
		at = strstr(r->err, line);
		assert_non_null(at);
		assert_null(strstr(at + 1, line));
		assert_int_equal(r->nrefusals, 1);
		assert_string_equal(r->refusals[0].op, "syscall");
		assert_string_equal(r->refusals[0].target, "mount");
		assert_string_equal(r->refusals[0].kind, "syscall");
		assert_string_equal(r->refusals[0].process, "atk_syscall.sta");
		assert_int_equal(r->refusals[0].count, 1);
		sbx_result_free(r);
	}
}

static void test_exec_rule(void **state)
{
	(void)state;
	EACH_MODE(m)
	{
		/* a sudo of our own, so that the exec rule, not a missing
		 * binary, is what stops it */
		char sudo[PATH_MAX + 64], cmd[PATH_MAX + 128];
		struct sbx_run_req req = { .shell = cmd, .capture = 1 };
		struct sbx_result *r;
		int seen = 0;

		snprintf(sudo, sizeof(sudo), "%s/sudo", fx.proj);
		assert_int_equal(tu_write(sudo, "#!/bin/sh\necho RAN\n"), 0);
		chmod(sudo, 0755);
		snprintf(cmd, sizeof(cmd), "'%s' ls", sudo);
		r = run(m, &req);
		assert_null(r->out && strstr(r->out, "RAN") ? r->out : NULL);
		assert_int_not_equal(r->exit_code, 0);
		for (size_t i = 0; i < r->nrefusals; i++)
			if (!strcmp(r->refusals[i].kind, "exec-denied") &&
			    strstr(r->refusals[i].message, "refused to run"))
				seen = 1;
		assert_true(seen);
		sbx_result_free(r);
	}
}

/* ------------------------------------------------------------ threads */

struct job {
	struct mode_fx *m;
	int id;
	int rc[RUNS_PER_THREAD];
	int exit_code[RUNS_PER_THREAD];
	int timed_out[RUNS_PER_THREAD];
	double duration[RUNS_PER_THREAD];
	char out[RUNS_PER_THREAD][64];
	char err[RUNS_PER_THREAD][256];
};

static void *worker(void *arg)
{
	struct job *j = arg;

	for (int k = 0; k < RUNS_PER_THREAD; k++) {
		char cmd[128];
		struct sbx_run_req req = { .shell = cmd,
					   .capture = 1,
					   .timeout = 5 };
		struct sbx_result *r = NULL;

		snprintf(cmd, sizeof(cmd), "sleep 0.2; echo t%d-%d; exit %d",
			 j->id, k, j->id + 10);
		j->rc[k] = sbx_run(j->m->s, &req, &r, j->err[k],
				   sizeof(j->err[k]));
		if (j->rc[k] != SBX_OK)
			continue;
		j->exit_code[k] = r->exit_code;
		j->timed_out[k] = r->timed_out;
		j->duration[k] = r->duration;
		snprintf(j->out[k], sizeof(j->out[k]), "%s",
			 r->out ? r->out : "");
		sbx_result_free(r);
	}
	return NULL;
}

/* A run that does not return is not something a test can recover from
 * (its thread still uses the handle): say so and exit. */
static void joined_or_die(pthread_t *t, int n, const struct mode_fx *m,
			  const char *fails)
{
	struct timespec dl;

	clock_gettime(CLOCK_REALTIME, &dl);
	dl.tv_sec += 30;
	for (int i = 0; i < n; i++) {
		if (pthread_timedjoin_np(t[i], NULL, &dl) == 0)
			continue;
		fprintf(stderr,
			"test_threads: FAILED: mode %s: sbx_run() in "
			"thread %d did not return within 30s (each run takes "
			"0.2s, timeout 5s): concurrent sbx_run() on one sbx_t "
			"hangs\n",
			m->mode == SBX_MODE_FULL ? "full" : "landlock-only", i);
		if (fails[0])
			fprintf(stderr, "test_threads: before that:%s\n",
				fails);
		fflush(stderr);
		teardown(NULL);
		_exit(1);
	}
}

static void test_threads(void **state)
{
	char fails[4096] = "";

	(void)state;
	/* landlock-only first: its failures come back as results */
	for (int mi = (int)(sizeof(modes) / sizeof(modes[0])) - 1; mi >= 0;
	     mi--) {
		struct mode_fx *m = &modes[mi];
		struct sbx_run_req probe = { .shell = "true", .capture = 1 };
		struct job jobs[NTHREADS];
		pthread_t t[NTHREADS];
		const char *mn = m->mode == SBX_MODE_FULL ? "full"
							  : "landlock-only";

		sbx_result_free(run(m, &probe)); /* skip if no kernel */
		memset(jobs, 0, sizeof(jobs));
		for (int i = 0; i < NTHREADS; i++) {
			jobs[i].m = m;
			jobs[i].id = i;
			assert_int_equal(pthread_create(&t[i], NULL, worker,
							&jobs[i]),
					 0);
		}
		joined_or_die(t, NTHREADS, m, fails);
		for (int i = 0; i < NTHREADS; i++)
			for (int k = 0; k < RUNS_PER_THREAD; k++) {
				char want[64];
				size_t n = strlen(fails);

				snprintf(want, sizeof(want), "t%d-%d\n", i, k);
				if (jobs[i].rc[k] != SBX_OK)
					snprintf(
						fails + n, sizeof(fails) - n,
						"\n  %s thread %d run %d: sbx_run:"
						" %s",
						mn, i, k, jobs[i].err[k]);
				else if (jobs[i].timed_out[k] ||
					 jobs[i].exit_code[k] != i + 10 ||
					 strcmp(jobs[i].out[k], want))
					snprintf(
						fails + n, sizeof(fails) - n,
						"\n  %s thread %d run %d: exit "
						"%d (want %d), timed out %d "
						"after %.1fs, stdout '%.*s'",
						mn, i, k, jobs[i].exit_code[k],
						i + 10, jobs[i].timed_out[k],
						jobs[i].duration[k],
						(int)strcspn(jobs[i].out[k],
							     "\n"),
						jobs[i].out[k]);
			}
	}
	if (fails[0])
		fail_msg("concurrent sbx_run() on one sbx_t:%s", fails);
}

/* Warnings reach the caller, never stderr: a run without the shim says
 * so through on_warning before the command starts, and the result holds
 * the same text. */
struct seen {
	char marker[PATH_MAX + 16];
	int n, before;
	char first[512];
};

static void seen_warning(void *ctx, const char *msg)
{
	struct seen *w = ctx;

	if (w->n++ == 0) {
		snprintf(w->first, sizeof(w->first), "%s", msg);
		w->before = access(w->marker, F_OK) != 0;
	}
}

static void test_warnings(void **state)
{
	char *shim = getenv("SBXRUN_SHIM") ? strdup(getenv("SBXRUN_SHIM"))
					   : NULL;
	char errf[] = "/var/tmp/sbx-librun-stderr-XXXXXX";

	(void)state;
	unsetenv("SBXRUN_SHIM");
	EACH_MODE(m)
	{
		struct seen w = { .n = 0 };
		char cmd[PATH_MAX + 64];
		struct sbx_run_req req = { .shell = cmd,
					   .capture = 1,
					   .on_warning = seen_warning,
					   .warning_ctx = &w };
		int fd = mkstemp(errf), saved = dup(2);
		struct sbx_result *r;
		struct stat st;

		snprintf(w.marker, sizeof(w.marker), "%s/ran-%d", fx.proj,
			 (int)m->mode);
		snprintf(cmd, sizeof(cmd), "touch '%s'", w.marker);
		assert_true(fd >= 0 && saved >= 0);
		dup2(fd, 2);
		r = run(m, &req);
		dup2(saved, 2);
		close(saved);
		assert_int_equal(fstat(fd, &st), 0);
		close(fd);
		unlink(errf);
		strcpy(errf + strlen(errf) - 6, "XXXXXX");
		assert_int_equal(st.st_size, 0);
		assert_int_equal(r->exit_code, 0);
		assert_int_equal(w.n, 1);
		assert_true(w.before);
		assert_non_null(strstr(w.first, "libsbxshim.so not found"));
		assert_non_null(strstr(w.first, "NOT enforced"));
		assert_non_null(r->warnings);
		assert_string_equal(r->warnings[0], w.first);
		assert_null(r->warnings[1]);
		unlink(w.marker);
		sbx_result_free(r);
	}
	if (shim)
		setenv("SBXRUN_SHIM", shim, 1);
	free(shim);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_capture_and_status),
		cmocka_unit_test(test_argv_and_workdir),
		cmocka_unit_test(test_not_found),
		cmocka_unit_test(test_timeout),
		cmocka_unit_test(test_stdin),
		cmocka_unit_test(test_big_stdin_and_cap),
		cmocka_unit_test(test_refusal_canary),
		cmocka_unit_test(test_exec_rule),
		cmocka_unit_test(test_syscall_refusal),
		cmocka_unit_test(test_threads),
		cmocka_unit_test(test_warnings),
	};

	/* A run that never ends must fail the test, not hang make check. */
	alarm(300);
	return cmocka_run_group_tests(tests, setup, teardown);
}
