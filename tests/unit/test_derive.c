/*
 * test_derive.c - sbx_derive(): a child policy is never wider than its
 * parent.  Each narrowing is accepted and shows in the child's answers;
 * each widening is refused with SBX_E_DENIED and a message naming it, and
 * leaves no child.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sbx.h"
#include "testutil.h"

static char top[PATH_MAX], home[PATH_MAX], proj[PATH_MAX], xdg[PATH_MAX];
static sbx_t *parent;

static int setup(void **state)
{
	char tmpl[] = "/var/tmp/sbxderive.XXXXXX", path[PATH_MAX + 32];
	const char *ov[] = { "net=loopback", "timeout=60", NULL };
	struct sbx_opts o = { 0 };
	char err[1024];

	(void)state;
	if (!mkdtemp(tmpl) || !realpath(tmpl, top))
		return -1;
	snprintf(home, sizeof(home), "%s/home", top);
	snprintf(proj, sizeof(proj), "%s/proj", top);
	snprintf(xdg, sizeof(xdg), "%s/xdg", top);
	snprintf(path, sizeof(path), "%s/.ssh/id_rsa", home);
	if (mkdir(home, 0755) || mkdir(proj, 0755) || mkdir(xdg, 0700) ||
	    tu_write_p(path, "secret") < 0)
		return -1;
	o.home = home;
	o.config_home = xdg;
	o.project_dir = proj;
	o.system_conf = "/nonexistent/sbxrun/config";
	o.profile_dir = tu_profile_dir();
	o.overrides = ov;
	if (sbx_open(&parent, &o, err, sizeof(err)) != SBX_OK) {
		fprintf(stderr, "sbx_open: %s\n", err);
		return -1;
	}
	return 0;
}

static int teardown(void **state)
{
	char cmd[PATH_MAX + 16];

	(void)state;
	sbx_close(parent);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", top);
	return system(cmd) == 0 ? 0 : -1;
}

static int allowed(sbx_t *s, const char *path, enum sbx_access a)
{
	struct sbx_answer ans;

	assert_int_equal(sbx_check(s, path, a, -1, &ans) == SBX_OK ||
				 sbx_check(s, path, a, -1, &ans) ==
					 SBX_E_DENIED,
			 1);
	return ans.allowed;
}

static void narrowing_is_accepted(void **state)
{
	char sub[PATH_MAX + 8], ro[PATH_MAX + 8], err[1024];
	const char *ov[] = { sub, ro, "net=off", "timeout=10", NULL };
	sbx_t *child = NULL;
	char f[PATH_MAX + 16], g[PATH_MAX + 16];

	(void)state;
	snprintf(sub, sizeof(sub), "hide=%s/private", proj);
	snprintf(ro, sizeof(ro), "allow-read=%s/docs", proj);
	snprintf(f, sizeof(f), "%s/private/k", proj);
	snprintf(g, sizeof(g), "%s/docs/x", proj);
	assert_int_equal(sbx_derive(parent, ov, &child, err, sizeof(err)),
			 SBX_OK);
	assert_non_null(child);
	assert_int_equal(allowed(parent, f, SBX_ACCESS_READ), 1);
	assert_int_equal(allowed(child, f, SBX_ACCESS_READ), 0);
	assert_int_equal(allowed(parent, g, SBX_ACCESS_WRITE), 1);
	assert_int_equal(allowed(child, g, SBX_ACCESS_WRITE), 0);
	sbx_close(child);
}

static void widening_is_refused(void **state)
{
	char ssh[PATH_MAX + 32], etc[] = "allow-write=/etc", err[1024];
	struct {
		const char *ov, *msg;
	} cases[] = {
		{ ssh, "hides" },
		{ etc, "does not allow writing '/etc'" },
		{ "net=on", "cannot make it on" },
		{ "timeout=600", "cannot make it longer" },
		{ "env-keep=AWS_SECRET_ACCESS_KEY", "cannot be used" },
	};

	(void)state;
	snprintf(ssh, sizeof(ssh), "allow-read=%s/.ssh", home);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *ov[] = { cases[i].ov, NULL };
		sbx_t *child = (sbx_t *)1;

		err[0] = '\0';
		assert_int_equal(
			sbx_derive(parent, ov, &child, err, sizeof(err)),
			strstr(cases[i].ov, "env-keep") ? SBX_E_ARG
							: SBX_E_DENIED);
		assert_null(child);
		if (!strstr(err, cases[i].msg))
			fail_msg("%s: '%s' lacks '%s'", cases[i].ov, err,
				 cases[i].msg);
	}
}

static void a_child_of_a_child_stays_narrow(void **state)
{
	const char *off[] = { "net=off", NULL },
		   *lo[] = { "net=loopback", NULL };
	sbx_t *child = NULL, *grandchild = (sbx_t *)1;
	char err[1024];

	(void)state;
	assert_int_equal(sbx_derive(parent, off, &child, err, sizeof(err)),
			 SBX_OK);
	assert_int_equal(sbx_derive(child, lo, &grandchild, err, sizeof(err)),
			 SBX_E_DENIED);
	assert_null(grandchild);
	assert_non_null(strstr(err, "network is off"));
	sbx_close(child);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(narrowing_is_accepted),
		cmocka_unit_test(widening_is_refused),
		cmocka_unit_test(a_child_of_a_child_stays_narrow),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
