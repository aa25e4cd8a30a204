/*
 * test_env.c - the one environment builder (launcher/lib/env.c), as a
 * table: what the command sees for a caller's environment and a policy.
 * DESIGN §6: SBXRUN=1 and SBXRUN_NET=off|on|filtered; --net loopback is
 * "off" (no internet), as HACKING.md says.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "env.h"
#include "policy.h"

static const char *get(const struct sbx_env *e, const char *name)
{
	size_t n = strlen(name);

	for (size_t i = 0; e->v[i]; i++)
		if (strncmp(e->v[i], name, n) == 0 && e->v[i][n] == '=')
			return e->v[i] + n + 1;
	return NULL;
}

static size_t count(const struct sbx_env *e, const char *name)
{
	size_t n = strlen(name), k = 0;

	for (size_t i = 0; e->v[i]; i++)
		k += strncmp(e->v[i], name, n) == 0 && e->v[i][n] == '=';
	return k;
}

static void policy(struct sbx_policy *p)
{
	static const struct sbx_src s = { "test.conf", 1 };

	sbx_policy_init(p);
	sbx_strv_add(p, &p->env_keep, "PATH", s);
	sbx_strv_add(p, &p->env_keep, "SBXRUN_KEEPME", s);
	sbx_strv_add(p, &p->env_drop, "*_TOKEN", s);
	sbx_strv_add(p, &p->env_drop, "SBXRUN_*", s);
	sbx_strv_add(p, &p->env_drop, "LD_PRELOAD", s);
}

static void test_net_values(void **state)
{
	static const struct {
		enum sbx_net net;
		const char *want;
	} rows[] = {
		{ SBX_NET_OFF, "off" },
		{ SBX_NET_LOOPBACK, "off" },
		{ SBX_NET_ON, "on" },
		{ SBX_NET_FILTERED, "filtered" },
	};
	char *from[] = { "PATH=/bin", NULL };
	struct sbx_env_vars x = { NULL, NULL, NULL };
	struct sbx_policy p;
	struct sbx_err err;
	struct sbx_env e;

	(void)state;
	policy(&p);
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		p.net = rows[i].net;
		assert_int_equal(sbx_env_build(&e, &p, from, &x, &err), 0);
		assert_string_equal(get(&e, "SBXRUN"), "1");
		assert_string_equal(get(&e, "SBXRUN_NET"), rows[i].want);
		assert_string_equal(sbx_env_net(rows[i].net), rows[i].want);
		assert_null(get(&e, "SBXRUN_POLICY"));
		assert_null(get(&e, "LD_PRELOAD"));
		sbx_env_free(&e);
	}
	sbx_policy_free(&p);
}

/* The caller's variables pass through keep/drop; the sandbox's own
 * replace inherited ones, even ones the policy keeps, exactly once. */
static void test_scrub_and_ours(void **state)
{
	char *from[] = { "PATH=/bin",	  "GITHUB_TOKEN=secret",
			 "SBXRUN_NET=on", "SBXRUN_KEEPME=1",
			 "SBXRUN=0",	  "NOEQUALS",
			 "HOME=/home/u",  NULL };
	struct sbx_env_vars x = { "/lib/sbx/libsbxshim.so", "/run/pol",
				  "@sbxrun-1-2" };
	struct sbx_policy p;
	struct sbx_err err;
	struct sbx_env e;

	(void)state;
	policy(&p);
	sbx_strv_add(&p, &p.env_keep, "SBXRUN*", (struct sbx_src){ 0 });
	assert_int_equal(sbx_env_build(&e, &p, from, &x, &err), 0);
	assert_string_equal(get(&e, "PATH"), "/bin");
	assert_string_equal(get(&e, "HOME"), "/home/u");
	assert_null(get(&e, "GITHUB_TOKEN"));
	assert_null(get(&e, "NOEQUALS"));
	assert_string_equal(get(&e, "SBXRUN_KEEPME"), "1");
	assert_int_equal(count(&e, "SBXRUN"), 1);
	assert_string_equal(get(&e, "SBXRUN"), "1");
	assert_int_equal(count(&e, "SBXRUN_NET"), 1);
	assert_string_equal(get(&e, "SBXRUN_NET"), "off");
	assert_string_equal(get(&e, "SBXRUN_REPORT"), "@sbxrun-1-2");
	assert_string_equal(get(&e, "SBXRUN_POLICY"), "/run/pol");
	assert_string_equal(get(&e, "LD_PRELOAD"), "/lib/sbx/libsbxshim.so");
	sbx_env_free(&e);
	sbx_policy_free(&p);
}

/* LD_PRELOAD: dropped by default; a preload the policy keeps stays, after
 * the shim; without a shim it passes as it is. */
static void test_preload(void **state)
{
	char *from[] = { "LD_PRELOAD=/usr/lib/libmine.so", NULL };
	char *again[] = { "LD_PRELOAD=/lib/sbx/libsbxshim.so /x.so", NULL };
	struct sbx_env_vars x = { "/lib/sbx/libsbxshim.so", "/run/pol", NULL };
	struct sbx_policy p;
	struct sbx_err err;
	struct sbx_env e;

	(void)state;
	policy(&p);
	assert_int_equal(sbx_env_build(&e, &p, from, &x, &err), 0);
	assert_string_equal(get(&e, "LD_PRELOAD"), "/lib/sbx/libsbxshim.so");
	sbx_env_free(&e);
	sbx_strv_add(&p, &p.env_keep, "LD_PRELOAD", (struct sbx_src){ 0 });
	assert_int_equal(sbx_env_build(&e, &p, from, &x, &err), 0);
	assert_int_equal(count(&e, "LD_PRELOAD"), 1);
	assert_string_equal(get(&e, "LD_PRELOAD"),
			    "/lib/sbx/libsbxshim.so /usr/lib/libmine.so");
	sbx_env_free(&e);
	assert_int_equal(sbx_env_build(&e, &p, again, &x, &err), 0);
	assert_string_equal(get(&e, "LD_PRELOAD"),
			    "/lib/sbx/libsbxshim.so /x.so");
	sbx_env_free(&e);
	x.shim = NULL;
	assert_int_equal(sbx_env_build(&e, &p, from, &x, &err), 0);
	assert_string_equal(get(&e, "LD_PRELOAD"), "/usr/lib/libmine.so");
	sbx_env_free(&e);
	sbx_policy_free(&p);
}

/* The build profile points every cache variable at the project's cache
 * directory, replacing the caller's. */
static void test_caches(void **state)
{
	char *from[] = { "GOCACHE=/home/u/.cache/go", "PATH=/bin", NULL };
	struct sbx_env_vars x = { NULL, NULL, NULL };
	struct sbx_policy p;
	struct sbx_err err;
	struct sbx_env e;

	(void)state;
	policy(&p);
	sbx_strv_add(&p, &p.env_keep, "GOCACHE", (struct sbx_src){ 0 });
	assert_int_equal(sbx_env_build(&e, &p, from, &x, &err), 0);
	assert_string_equal(get(&e, "GOCACHE"), "/home/u/.cache/go");
	assert_null(get(&e, "CARGO_HOME"));
	sbx_env_free(&e);
	p.redirect_caches = 1;
	p.cache_dir = strdup("/home/u/.cache/sbxrun/build/abc");
	assert_int_equal(sbx_env_build(&e, &p, from, &x, &err), 0);
	assert_int_equal(count(&e, "GOCACHE"), 1);
	assert_string_equal(get(&e, "GOCACHE"),
			    "/home/u/.cache/sbxrun/build/abc/go-build");
	assert_string_equal(get(&e, "CARGO_HOME"),
			    "/home/u/.cache/sbxrun/build/abc/cargo");
	assert_string_equal(get(&e, "XDG_CACHE_HOME"),
			    "/home/u/.cache/sbxrun/build/abc/xdg");
	sbx_env_free(&e);
	sbx_policy_free(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_net_values),
		cmocka_unit_test(test_scrub_and_ours),
		cmocka_unit_test(test_preload),
		cmocka_unit_test(test_caches),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
