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
#include <fcntl.h>
#include <unistd.h>

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
	struct sbx_env_vars x = { 0 };
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
	struct sbx_env_vars x = { .shim = "/lib/sbx/libsbxshim.so",
				  .policy_file = "/run/pol",
				  .report_addr = "@sbxrun-1-2" };
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
/* SEC-12: values that carry a credential, and look-alikes that do not. */
static void test_secret_values(void **state)
{
	static const struct {
		const char *v;
		int secret;
	} rows[] = {
		{ "postgres://app:pw@db:5432/x", 1 },
		{ "http://user:p%40ss@proxy:3128", 1 },
		{ "redis://:pw@cache/0", 1 },
		{ "a,https://u:p@h,b", 1 },
		{ "https://0123456789abcdef0123@o1.ingest.sentry.io/1", 1 },
		{ "ghp_0123456789abcdefghijKLMN", 1 },
		{ "Bearer github_pat_11ABCDEFG0123456789_xyz", 1 },
		{ "glpat-0123456789abcdefgh", 1 },
		{ "sk-ant-api03-0123456789abcdef", 1 },
		{ "xoxb-1234-5678-abcdefghij", 1 },
		{ "AKIAABCDEFGHIJKLMNOP", 1 },
		{ "id=ASIAABCDEFGHIJKLMNOP", 1 },
		{ "https://example.com/a@b", 0 },
		{ "ssh://git@github.com/a/b.git", 0 },
		{ "https://user@host/", 0 },
		{ "http://user:@host/", 0 },
		{ "desk-top", 0 },
		{ "task-0123456789abcdefghij", 0 },
		{ "ghp_short", 0 },
		{ "AKIA_not_a_key", 0 },
		{ "/usr/bin:/bin", 0 },
		{ "", 0 },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		if (sbx_env_secret_value(rows[i].v) != rows[i].secret)
			fail_msg("'%s': want %d", rows[i].v, rows[i].secret);
	}
}

static void test_preload(void **state)
{
	char *from[] = { "LD_PRELOAD=/usr/lib/libmine.so", NULL };
	char *again[] = { "LD_PRELOAD=/lib/sbx/libsbxshim.so /x.so", NULL };
	struct sbx_env_vars x = { .shim = "/lib/sbx/libsbxshim.so",
				  .policy_file = "/run/pol" };
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

/* A CARGO_HOME with a config.toml is left as it is, and the caller's
 * CARGO_HOME passes. */
static void cargo_conf(struct sbx_policy *p, char **from,
		       const struct sbx_env_vars *x)
{
	char dir[] = "/tmp/sbx-test-env-XXXXXX", conf[64], var[64];
	char *with[] = { var, from[0], from[1], NULL };
	struct sbx_err err;
	struct sbx_env e;
	int fd;

	assert_non_null(mkdtemp(dir));
	snprintf(conf, sizeof(conf), "%s/config.toml", dir);
	snprintf(var, sizeof(var), "CARGO_HOME=%s", dir);
	sbx_strv_add(p, &p->env_keep, "CARGO_HOME", (struct sbx_src){ 0 });
	assert_int_equal(sbx_env_build(&e, p, with, x, &err), 0);
	assert_string_equal(get(&e, "CARGO_HOME"),
			    "/home/u/.cache/sbxrun/build/abc/cargo");
	sbx_env_free(&e);
	fd = open(conf, O_WRONLY | O_CREAT, 0600);
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(sbx_env_build(&e, p, with, x, &err), 0);
	assert_int_equal(count(&e, "CARGO_HOME"), 1);
	assert_string_equal(get(&e, "CARGO_HOME"), dir);
	assert_string_equal(get(&e, "GOCACHE"),
			    "/home/u/.cache/sbxrun/build/abc/go-build");
	sbx_env_free(&e);
	unlink(conf);
	rmdir(dir);
}

/* redirect_caches points every cache variable at the project's cache
 * directory, replacing the caller's; CARGO_HOME only while the host's
 * holds no config.toml (it would be ignored there). */
static void test_caches(void **state)
{
	char *from[] = { "GOCACHE=/home/u/.cache/go", "PATH=/bin", NULL };
	struct sbx_env_vars x = { 0 };
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
	p.home = strdup("/nonexistent-sbx-home");
	assert_int_equal(sbx_env_build(&e, &p, from, &x, &err), 0);
	assert_int_equal(count(&e, "GOCACHE"), 1);
	assert_string_equal(get(&e, "GOCACHE"),
			    "/home/u/.cache/sbxrun/build/abc/go-build");
	assert_string_equal(get(&e, "CARGO_HOME"),
			    "/home/u/.cache/sbxrun/build/abc/cargo");
	assert_string_equal(get(&e, "XDG_CACHE_HOME"),
			    "/home/u/.cache/sbxrun/build/abc/xdg");
	sbx_env_free(&e);
	cargo_conf(&p, from, &x);
	sbx_policy_free(&p);
}

/* network = filtered: the proxy variables, set once, replacing inherited
 * ones; the secret in the URLs; NO_PROXY for the sandbox's own loopback
 * only where it is its own (full mode). */
static void test_proxy(void **state)
{
	char *from[] = { "PATH=/bin", "HTTPS_PROXY=http://evil:1", "no_proxy=*",
			 "NODE_USE_ENV_PROXY=0", NULL };
	struct sbx_env_vars x = { .proxy_addr = "127.0.0.1",
				  .proxy_port = 3128,
				  .proxy_direct_loopback = 1 };
	static const char *const names[] = {
		"http_proxy",	   "HTTP_PROXY",       "https_proxy",
		"HTTPS_PROXY",	   "npm_config_proxy", "npm_config_https_proxy",
		"YARN_HTTP_PROXY", "YARN_HTTPS_PROXY", "CARGO_HTTP_PROXY",
		"PIP_PROXY",	   "SBXRUN_PROXY",
	};
	struct sbx_policy p;
	struct sbx_err err;
	struct sbx_env e;

	(void)state;
	policy(&p);
	sbx_strv_add(&p, &p.env_keep, "*", (struct sbx_src){ 0 });
	p.net = SBX_NET_FILTERED;
	assert_int_equal(sbx_env_build(&e, &p, from, &x, &err), 0);
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		assert_int_equal(count(&e, names[i]), 1);
		assert_string_equal(get(&e, names[i]), "http://127.0.0.1:3128");
	}
	assert_string_equal(get(&e, "ALL_PROXY"), "socks5h://127.0.0.1:3128");
	assert_string_equal(get(&e, "all_proxy"), "socks5h://127.0.0.1:3128");
	assert_string_equal(get(&e, "NO_PROXY"), "localhost,127.0.0.1,::1");
	assert_int_equal(count(&e, "no_proxy"), 1);
	assert_string_equal(get(&e, "no_proxy"), "localhost,127.0.0.1,::1");
	assert_string_equal(get(&e, "npm_config_noproxy"),
			    "localhost,127.0.0.1,::1");
	assert_string_equal(get(&e, "NODE_USE_ENV_PROXY"), "1");
	assert_int_equal(count(&e, "NODE_USE_ENV_PROXY"), 1);
	sbx_env_free(&e);
	/* landlock-only: the secret, and no loopback going direct */
	x.proxy_secret = "sbx:0123";
	x.proxy_direct_loopback = 0;
	x.proxy_port = 40000;
	assert_int_equal(sbx_env_build(&e, &p, from, &x, &err), 0);
	assert_string_equal(get(&e, "HTTPS_PROXY"),
			    "http://sbx:0123@127.0.0.1:40000");
	assert_string_equal(get(&e, "ALL_PROXY"),
			    "socks5h://sbx:0123@127.0.0.1:40000");
	assert_null(get(&e, "no_proxy"));
	assert_null(get(&e, "NO_PROXY"));
	sbx_env_free(&e);
	/* not filtered: nothing of it, inherited variables as the policy
	 * says */
	p.net = SBX_NET_ON;
	assert_int_equal(sbx_env_build(&e, &p, from, &x, &err), 0);
	assert_string_equal(get(&e, "HTTPS_PROXY"), "http://evil:1");
	assert_null(get(&e, "SBXRUN_PROXY"));
	sbx_env_free(&e);
	sbx_policy_free(&p);
}

/* No internet: package managers' retries off (npm waited 70 s before
 * its error), unless the caller set them; with a network, untouched. */
static void test_noretry(void **state)
{
	char *from[] = { "PATH=/bin", "PIP_RETRIES=3", NULL };
	static const enum sbx_net nets[] = { SBX_NET_OFF, SBX_NET_LOOPBACK,
					     SBX_NET_ON, SBX_NET_FILTERED };
	struct sbx_env_vars x = { 0 };
	struct sbx_policy p;
	struct sbx_err err;
	struct sbx_env e;

	(void)state;
	policy(&p);
	sbx_strv_add(&p, &p.env_keep, "PIP_RETRIES", (struct sbx_src){ 0 });
	for (size_t i = 0; i < sizeof(nets) / sizeof(nets[0]); i++) {
		int off = nets[i] == SBX_NET_OFF || nets[i] == SBX_NET_LOOPBACK;

		p.net = nets[i];
		assert_int_equal(sbx_env_build(&e, &p, from, &x, &err), 0);
		if (off) {
			assert_string_equal(get(&e, "npm_config_fetch_retries"),
					    "0");
			assert_string_equal(get(&e, "CARGO_NET_RETRY"), "0");
		} else {
			assert_null(get(&e, "npm_config_fetch_retries"));
			assert_null(get(&e, "CARGO_NET_RETRY"));
		}
		assert_int_equal(count(&e, "PIP_RETRIES"), 1);
		assert_string_equal(get(&e, "PIP_RETRIES"), "3");
		sbx_env_free(&e);
	}
	sbx_policy_free(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_net_values),
		cmocka_unit_test(test_scrub_and_ours),
		cmocka_unit_test(test_secret_values),
		cmocka_unit_test(test_preload),
		cmocka_unit_test(test_caches),
		cmocka_unit_test(test_proxy),
		cmocka_unit_test(test_noretry),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
