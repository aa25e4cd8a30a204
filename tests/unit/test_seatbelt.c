/*
 * test_seatbelt.c - the Seatbelt profile generator
 * (launcher/kernel/macos/seatbelt*.c), on Linux.
 *
 *  - escaping: every byte through the string escaper and the test's
 *    reader (sbpl.h) comes back; path regexes match the path, what is
 *    below it and its case variants, never a sibling; exec globs become
 *    regexes that agree with sbx_glob();
 *  - every generated profile parses, starts with (version 1) and (deny
 *    default), never says (allow default) nor allows file-ioctl without
 *    a path (MAC-01);
 *  - decisions: for the shipped profiles and 10,000 generated hostile
 *    paths, the profile's decision (the evaluator in sbpl.h) equals the
 *    policy's for reads, writes and exec, under "last match wins" and
 *    "deny wins" alike, and every path round-trips as a string;
 *  - renames above protected paths, traversal of hidden directories;
 *  - golden profiles: tests/golden/seatbelt/NAME.sb, byte for byte;
 *    SBX_GOLDEN_UPDATE=1 (make golden) writes them instead;
 *  - sbx_profile() through the public API.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "conf.h"
#include "policy.h"
#include "sbx.h"
#include "macos/seatbelt.h"
#include "testutil.h"
#include "sbpl.h"
#include "seatbelt_expect.h"

#define HOME "/Users/ada"
#define PROJ "/Users/ada/proj"
#define TMPDIR "/private/var/folders/zz/a1b2c3/T/sbxrun.Xy12"

/* ------------------------------------------------------------ loading */

static void load(struct sbx_policy *p, const char *profile,
		 const char *const *overrides)
{
	struct sbx_locs l;
	struct sbx_opts o = { 0 };
	struct sbx_err err = { "" };
	char path[PATH_MAX];

	memset(&l, 0, sizeof(l));
	snprintf(l.home, sizeof(l.home), HOME);
	snprintf(l.project, sizeof(l.project), PROJ);
	snprintf(l.config_dir, sizeof(l.config_dir), HOME "/.config/sbxrun");
	snprintf(l.inrepo_conf, sizeof(l.inrepo_conf), PROJ "/.sbxrun.conf");
	snprintf(l.cache_dir, sizeof(l.cache_dir),
		 HOME "/.cache/sbxrun/build/0123456789abcdef");
	snprintf(l.profile_dir, sizeof(l.profile_dir), "%s/profiles", tu_top());
	if (strstr(profile, ".conf")) {
		snprintf(path, sizeof(path), "%s/tests/golden/seatbelt/conf/%s",
			 tu_top(), profile);
		profile = path;
	}
	o.profile = profile;
	o.flags = SBX_OPT_NO_SYSTEM_CONF | SBX_OPT_NO_USER_CONF;
	sbx_policy_init(p);
	if (sbx_conf_load(p, &l, &o, &err) < 0)
		fail_msg("%s: %s", profile, err.msg);
	for (size_t i = 0; overrides && overrides[i]; i++)
		if (sbx_conf_override(p, overrides[i], &err) < 0)
			fail_msg("%s: %s", overrides[i], err.msg);
	if (sbx_policy_finish(p, &err) < 0)
		fail_msg("%s: %s", profile, err.msg);
}

/* ------------------------------------------------------------ escaping */

static void test_string_escape(void **state)
{
	static const struct {
		const char *in, *out;
	} t[] = {
		{ "/a b", "\"/a b\"" },
		{ "q\"uote", "\"q\\\"uote\"" },
		{ "back\\slash", "\"back\\\\slash\"" },
		{ "new\nline\ttab\rcr", "\"new\\nline\\ttab\\rcr\"" },
		{ "\x01\x1f\x7f", "\"\\x01\\x1F\\x7F\"" },
		{ "caf\xc3\xa9", "\"caf\xc3\xa9\"" }, /* UTF-8 stays */
		{ "\xff\xfe", "\"\\xFF\\xFE\"" },
		{ "\xc3", "\"\\xC3\"" }, /* truncated sequence */
		{ "\xc0\xaf", "\"\\xC0\\xAF\"" }, /* overlong '/' */
		{ "\xed\xa0\x80", "\"\\xED\\xA0\\x80\"" }, /* surrogate */
		{ "\xf4\x90\x80\x80",
		  "\"\\xF4\\x90\\x80\\x80\"" }, /* > U+10FFFF */
		{ "(allow default)", "\"(allow default)\"" },
		{ "; x", "\"; x\"" },
	};
	unsigned char all[255];

	(void)state;
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		char *s = esc(t[i].in, strlen(t[i].in));

		assert_string_equal(s, t[i].out);
		free(s);
		round_trip(t[i].in, strlen(t[i].in));
	}
	for (int c = 1; c < 256; c++) {
		char one = (char)c;

		all[c - 1] = (unsigned char)c;
		round_trip(&one, 1);
	}
	round_trip((const char *)all, sizeof(all));
}

/* ------------------------------------------------------------ hostile */

static unsigned long long rng = 0x9E3779B97F4A7C15ull;

static unsigned rnd(unsigned n)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (unsigned)(rng % n);
}

/* One path component made of the bytes that break things. */
static void hostile_name(char *out, size_t outsz)
{
	static const char *const bits[] = {
		"\"",
		"\\",
		"\n",
		"\t",
		"\r",
		";",
		"(",
		")",
		"#",
		"|",
		".",
		"^",
		"$",
		"*",
		"+",
		"?",
		"{",
		"}",
		"[",
		"]",
		" ",
		"'",
		"`",
		"~",
		"-",
		":",
		"\xc3\xa9",
		"\xe2\x82\xac",
		"\xf0\x9f\x98\x80",
		"\xc4\xb0",
		"\xce\xa3",
		"\\x41",
		"\\\"",
		"(allow default)",
		"a",
		"B",
		"z",
		"Q",
		"0",
		"9",
		"_",
	};
	size_t n = 0, want = 1 + rnd(10);

	while (n < want && n + 16 < outsz) {
		unsigned k = rnd(10);
		const char *b = bits[rnd(sizeof(bits) / sizeof(bits[0]))];
		char one[2] = { 0, 0 };

		if (k == 0) { /* a control byte */
			one[0] = (char)(1 + rnd(31));
			b = one;
		} else if (k == 1) { /* a byte above 0x7f */
			one[0] = (char)(0x80 + rnd(128));
			b = one;
		} else if (k == 2) {
			one[0] = 0x7f;
			b = one;
		}
		memcpy(out + n, b, strlen(b));
		n += strlen(b);
	}
	out[n] = '\0';
	if (strcmp(out, ".") == 0 || strcmp(out, "..") == 0)
		snprintf(out, outsz, "dot");
}

static void hostile_path(char *out, size_t outsz, const char *base)
{
	size_t depth = 1 + rnd(3), n;
	char name[128];

	n = (size_t)snprintf(out, outsz, "%s", base);
	for (size_t i = 0; i < depth && n + sizeof(name) + 2 < outsz; i++) {
		hostile_name(name, sizeof(name));
		n += (size_t)snprintf(out + n, outsz - n, "/%s", name);
	}
}

/* Ten hostile rules of every kind, nested in every way. */
static int hostile_policy(struct sbx_policy *p)
{
	struct sbx_src src = { "hostile.conf", 1 }, flag = { "--flag", 0 };
	struct sbx_err err = { "" };
	char proj[256], path[1024], deep[2048];

	sbx_policy_init(p);
	hostile_name(path, 64);
	snprintf(proj, sizeof(proj), "/sbxh/p%s", path);
	p->project = strdup(proj);
	p->home = strdup("/sbxh/h\"o\\me");
	if (sbx_policy_add_path(p, "/", SBX_RO, 0, src, &err) < 0)
		return -1;
	for (int i = 0; i < 10; i++) {
		unsigned kind = rnd(5);
		const char *base = kind == 0   ? p->home
				   : kind == 4 ? "/sbxh/elsewhere"
					       : proj;
		enum sbx_pmode m = kind == 1 ? SBX_RO : SBX_HIDE;

		hostile_path(path, sizeof(path), base);
		if (kind == 3)
			m = SBX_RW;
		if (sbx_policy_add_path(p, path, m, 0, src, &err) < 0)
			continue; /* too long after normalising: fine */
		if (kind >= 3) { /* something inside it, deciding otherwise */
			hostile_path(deep, sizeof(deep), path);
			sbx_policy_add_path(p, deep,
					    m == SBX_RW ? SBX_HIDE : SBX_RW,
					    m == SBX_RW ? 0 : SBX_RF_FLAG,
					    m == SBX_RW ? src : flag, &err);
		}
	}
	if (sbx_policy_finish(p, &err) < 0)
		fail_msg("hostile policy: %s", err.msg);
	return 0;
}

static void test_hostile_paths(void **state)
{
	size_t paths = 0;

	(void)state;
	while (paths < 10000) {
		struct sbx_policy p;
		struct sbx_seatbelt_opts o = { 0 };

		assert_int_equal(hostile_policy(&p), 0);
		if (rnd(2))
			o.tmpdir = "/sbxh/t\"mp\n";
		check_policy(&p, &o);
		for (size_t i = 0; i < p.nrules; i++)
			if (strncmp(p.rules[i].root, "/sbxh/", 6) == 0) {
				check_path_regex(p.rules[i].root);
				paths++;
			}
		sbx_policy_free(&p);
	}
}

/* ------------------------------------------------------------ globs */

static void test_glob_regex(void **state)
{
	static const char *const pats[] = {
		"sudo",	     "mkfs*", "python3.[0-9]*",
		"[!a-z]x",   "[]a]",  "a?c",
		"x[a-c-]y",  "[^.]*", "we\"ird\\name",
		"a.b(c)|d$", "*",     "/opt/bin/t?",
		"/usr/*/x",  "[%-/]", "[!]]x",
		"[!-]",	     "[!\\]", "[!^]",
		"[![]",
	};
	static const char *const names[] = {
		"sudo",
		"SUDO",
		"mkfs",
		"mkfs.ext4",
		"python3.12",
		"python3x",
		"ax",
		"Ax",
		"1x",
		"]",
		"a",
		"abc",
		"aXc",
		"x-y",
		"xby",
		".x",
		"we\"ird\\name",
		"a.b(c)|d$",
		"",
		"t1",
		"/",
		"%",
		"-",
		"]x",
		"\\",
		"^",
		"[",
		"\n",
		"\xff",
		"-x",
	};
	char full[256];
	int never;

	(void)state;
	for (size_t i = 0; i < sizeof(pats) / sizeof(pats[0]); i++) {
		char *re = sbx_sbpl_glob_regex(pats[i], &never);
		regex_t r;

		assert_non_null(re);
		assert_int_equal(regcomp(&r, re, REG_EXTENDED | REG_NOSUB), 0);
		for (size_t j = 0; j < sizeof(names) / sizeof(names[0]); j++) {
			int base = !strchr(pats[i], '/');

			if (base && strchr(names[j], '/'))
				continue;
			snprintf(full, sizeof(full), "%s%s",
				 base ? "/usr/bin/" : "", names[j]);
			/* never narrower than sbx_glob() */
			if (sbx_glob(pats[i], base ? names[j] : full))
				assert_true(rx_match(&r, full));
			/* and exact for names without letters */
			if (!strpbrk(names[j], "abcdefghijklmnopqrstuvwxyz"
					       "ABCDEFGHIJKLMNOPQRSTUVWXYZ"))
				assert_int_equal(rx_match(&r, full),
						 sbx_glob(pats[i],
							  base ? names[j]
							       : full));
		}
		regfree(&r);
		free(re);
	}
	assert_null(sbx_sbpl_glob_regex("abc[", &never));
	assert_int_equal(never, 1);
	assert_null(sbx_sbpl_glob_regex("[!", &never));
	assert_int_equal(never, 1);
}

/* ------------------------------------------------------------ shipped */

static void test_shipped_profiles(void **state)
{
	static const char *const names[] = { "default", "strict", "build" };

	(void)state;
	for (size_t i = 0; i < 3; i++) {
		struct sbx_policy p;
		struct sbx_seatbelt_opts o = { 0 };

		load(&p, names[i], NULL);
		check_policy(&p, NULL);
		o.tmpdir = TMPDIR;
		check_policy(&p, &o);
		sbx_policy_free(&p);
	}
}

static void test_fixture_policies(void **state)
{
	static const char *const names[] = {
		"hostile.conf",
		"nested.conf",
		"net-on.conf",
		"exec.conf",
	};
	static const char *const ov[] = { "allow-read=~/.ssh/known_hosts",
					  "hide=~/work/tmp-cred", NULL };

	(void)state;
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		struct sbx_policy p;

		load(&p, names[i], i == 1 ? ov : NULL);
		check_policy(&p, NULL);
		sbx_policy_free(&p);
	}
}

/* ------------------------------------------------------------ details */

/* strict hides the home directory and shows the project inside it: the
 * way there can be stat'ed, not listed. */
static void test_traversal(void **state)
{
	struct sbx_policy p;
	size_t len;
	char *text;
	struct sx *top;

	(void)state;
	load(&p, "strict", NULL);
	text = gen(&p, NULL, &len);
	top = parse_checked(text, len);
	for (int prec = SB_LAST; prec <= SB_DENY_WINS; prec++) {
		assert_int_equal(
			sb_decide(top, "file-read-metadata", HOME, prec), 1);
		assert_int_equal(sb_decide(top, "file-read-data", HOME, prec),
				 0);
		assert_int_equal(sb_decide(top, "file-read-metadata",
					   HOME "/.ssh", prec),
				 0);
		assert_int_equal(sb_decide(top, "file-read-data",
					   PROJ "/src/main.c", prec),
				 1);
		assert_int_equal(sb_decide(top, "file-write-data",
					   PROJ "/src/main.c", prec),
				 0);
	}
	sx_free(top);
	free(text);
	sbx_policy_free(&p);
}

/* Roots that are the same place on a case-insensitive volume: the deny
 * wins, whatever the order of the rules. */
static void test_case_variants(void **state)
{
	struct sbx_src src = { "case.conf", 1 };
	struct sbx_err err = { "" };
	struct sbx_policy p;
	size_t len;
	char *text;
	struct sx *top;

	(void)state;
	sbx_policy_init(&p);
	p.project = strdup("/c/proj");
	p.home = strdup("/c/home");
	assert_int_equal(sbx_policy_add_path(&p, "/", SBX_RO, 0, src, &err), 0);
	assert_int_equal(sbx_policy_add_path(&p, "/c/proj/SECRET", SBX_HIDE, 0,
					     src, &err),
			 0);
	assert_int_equal(sbx_policy_add_path(&p, "/c/proj/secret/pub", SBX_RW,
					     SBX_RF_FLAG, src, &err),
			 0);
	assert_int_equal(
		sbx_policy_add_path(&p, "/c/Other", SBX_RW, 0, src, &err), 0);
	assert_int_equal(sbx_policy_add_path(&p, "/c/other/keys", SBX_HIDE, 0,
					     src, &err),
			 0);
	/* a readable root inside a hidden one, and its case variant hidden */
	assert_int_equal(
		sbx_policy_add_path(&p, "/c/hid", SBX_HIDE, 0, src, &err), 0);
	assert_int_equal(sbx_policy_add_path(&p, "/c/hid/pub", SBX_RO,
					     SBX_RF_FLAG, src, &err),
			 0);
	assert_int_equal(sbx_policy_add_path(&p, "/c/hid/PUB", SBX_HIDE, 0, src,
					     &err),
			 0);
	assert_int_equal(sbx_policy_finish(&p, &err), 0);
	check_policy(&p, NULL);
	text = gen(&p, NULL, &len);
	top = parse_checked(text, len);
	for (int prec = SB_LAST; prec <= SB_DENY_WINS; prec++) {
		assert_int_equal(sb_decide(top, "file-read-data",
					   "/c/proj/secret/pub/f", prec),
				 0);
		assert_int_equal(sb_decide(top, "file-write-data",
					   "/c/proj/secret/pub/f", prec),
				 0);
		assert_int_equal(sb_decide(top, "file-read-data",
					   "/c/Other/keys/id", prec),
				 0);
		assert_int_equal(sb_decide(top, "file-write-data",
					   "/c/Other/src.c", prec),
				 1);
		assert_int_equal(sb_decide(top, "file-read-data",
					   "/c/hid/pub/f", prec),
				 0);
	}
	sx_free(top);
	free(text);
	sbx_policy_free(&p);
}

/* The launcher's private temporary directory replaces /tmp, which then
 * is the host's and read-only; without one the profile says /tmp is
 * shared. */
static void test_tmpdir(void **state)
{
	struct sbx_policy p;
	struct sbx_seatbelt_opts o = { .tmpdir = TMPDIR "/" };
	size_t len;
	char *text;
	struct sx *top;

	(void)state;
	load(&p, "default", NULL);
	text = gen(&p, &o, &len);
	top = parse_checked(text, len);
	assert_int_equal(
		sb_decide(top, "file-write-data", TMPDIR "/cc1.o", SB_LAST), 1);
	assert_int_equal(sb_decide(top, "file-write-data", "/tmp/x", SB_LAST),
			 0);
	assert_int_equal(sb_decide(top, "file-read-data", "/tmp/x", SB_LAST),
			 1);
	assert_null(strstr(text, "NOTE: no private /tmp"));
	sx_free(top);
	free(text);
	text = gen(&p, NULL, &len);
	assert_non_null(strstr(text, "NOTE: no private /tmp"));
	free(text);
	sbx_policy_free(&p);
}

static void test_network(void **state)
{
	struct {
		const char *conf;
		unsigned port;
		const char *has, *hasnt;
	} t[] = {
		{ "default", 0, ";; No internet sockets", "(remote ip" },
		{ "net-loopback.conf", 0, "(remote ip \"localhost:*\")",
		  "(remote ip))" },
		{ "net-on.conf", 0, "(allow network-outbound (remote ip))",
		  "localhost:" },
		{ "net-allow.conf", 3128, "(remote ip \"localhost:3128\")",
		  "(remote ip))" },
		{ "net-allow.conf", 0, "NOTE: the network allow-list",
		  "(remote ip" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		struct sbx_policy p;
		struct sbx_seatbelt_opts o = { .proxy_port = t[i].port };
		char *text;

		load(&p, t[i].conf, NULL);
		text = gen(&p, &o, NULL);
		if (!strstr(text, t[i].has) || strstr(text, t[i].hasnt))
			fail_msg("%s: want '%s', not '%s'", t[i].conf, t[i].has,
				 t[i].hasnt);
		/* the keychain and LaunchServices never */
		assert_null(strstr(text, "com.apple.SecurityServer\")"));
		assert_null(strstr(text, "launchservicesd"));
		free(text);
		sbx_policy_free(&p);
	}
}

static void test_errors(void **state)
{
	struct sbx_policy p;
	struct sbx_err err = { "" };
	struct sbx_seatbelt_opts o = { 0 };
	char *out = (char *)1;
	size_t len = 1;

	(void)state;
	load(&p, "default", NULL);
	o.workdir = "~/.ssh";
	assert_int_equal(sbx_seatbelt_profile(&p, &o, &out, &len, &err), -1);
	assert_null(out);
	assert_non_null(strstr(err.msg, "not readable"));
	o.workdir = "src"; /* relative: inside the project */
	assert_int_equal(sbx_seatbelt_profile(&p, &o, &out, &len, &err), 0);
	assert_non_null(strstr(out, PROJ "/src\""));
	free(out);
	o.workdir = NULL;
	o.tmpdir = "tmp";
	assert_int_equal(sbx_seatbelt_profile(&p, &o, &out, &len, &err), -1);
	o.tmpdir = "/";
	assert_int_equal(sbx_seatbelt_profile(&p, &o, &out, &len, &err), -1);
	o.tmpdir = NULL;
	o.proxy_port = 70000;
	assert_int_equal(sbx_seatbelt_profile(&p, &o, &out, &len, &err), -1);
	assert_int_equal(sbx_seatbelt_profile(&p, NULL, &out, &len, &err), 0);
	free(out);
	sbx_policy_free(&p);
}

/* ------------------------------------------------------------ golden */

static const char *const nested_ov[] = { "allow-read=~/.ssh/known_hosts",
					 "hide=~/work/tmp-cred", NULL };

static const struct golden {
	const char *name, *profile;
	const char *const *ov;
	const char *tmpdir;
	unsigned port;
} goldens[] = {
	{ "default", "default", NULL, NULL, 0 },
	{ "strict", "strict", NULL, NULL, 0 },
	{ "build", "build", NULL, NULL, 0 },
	{ "default-launcher", "default", NULL, TMPDIR, 0 },
	{ "net-loopback", "net-loopback.conf", NULL, NULL, 0 },
	{ "net-on", "net-on.conf", NULL, NULL, 0 },
	{ "net-allow-proxy", "net-allow.conf", NULL, TMPDIR, 3128 },
	{ "net-allow-noproxy", "net-allow.conf", NULL, NULL, 0 },
	{ "nested", "nested.conf", nested_ov, NULL, 0 },
	{ "hostile", "hostile.conf", NULL, NULL, 0 },
	{ "exec", "exec.conf", NULL, NULL, 0 },
};

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	size_t cap = 0, n = 0, r;

	if (!f)
		return NULL;
	do {
		if (n + 4096 > cap) {
			cap = cap ? cap * 2 : 65536;
			buf = realloc(buf, cap + 1);
			assert_non_null(buf);
		}
		r = fread(buf + n, 1, cap - n, f);
		n += r;
	} while (r > 0);
	fclose(f);
	buf[n] = '\0';
	*len = n;
	return buf;
}

/* The first line where a and b differ, for the failure message. */
static size_t first_diff_line(const char *a, const char *b)
{
	size_t line = 1;

	for (; *a && *a == *b; a++, b++)
		line += *a == '\n';
	return line;
}

static void test_golden(void **state)
{
	int update = getenv("SBX_GOLDEN_UPDATE") &&
		     strcmp(getenv("SBX_GOLDEN_UPDATE"), "1") == 0;
	size_t bad = 0;

	(void)state;
	for (size_t i = 0; i < sizeof(goldens) / sizeof(goldens[0]); i++) {
		const struct golden *g = &goldens[i];
		struct sbx_seatbelt_opts o = { .tmpdir = g->tmpdir,
					       .proxy_port = g->port };
		struct sbx_policy p;
		char path[PATH_MAX], *text, *want;
		size_t len, wlen;

		load(&p, g->profile, g->ov);
		text = gen(&p, &o, &len);
		sx_free(parse_checked(text, len));
		snprintf(path, sizeof(path), "%s/tests/golden/seatbelt/%s.sb",
			 tu_top(), g->name);
		if (update) {
			FILE *f = fopen(path, "wb");

			assert_non_null(f);
			assert_int_equal(fwrite(text, 1, len, f), len);
			assert_int_equal(fclose(f), 0);
			printf("wrote %s\n", path);
		} else if (!(want = slurp(path, &wlen))) {
			fprintf(stderr, "%s: missing\n", path);
			bad++;
		} else {
			if (wlen != len || memcmp(want, text, len) != 0) {
				fprintf(stderr, "%s: differs from line %zu\n",
					path, first_diff_line(want, text));
				bad++;
			}
			free(want);
		}
		free(text);
		sbx_policy_free(&p);
	}
	if (bad)
		fail_msg("%zu golden profile(s) differ: review the change, "
			 "then `make golden` and review the diff",
			 bad);
}

/* ------------------------------------------------------------ libsbx */

static void test_public_api(void **state)
{
	char dir[PATH_MAX], errbuf[256], *out = NULL;
	struct sbx_opts o = { 0 };
	sbx_t *s = NULL;
	size_t len = 0;

	(void)state;
	assert_int_equal(tu_tmpdir("seatbelt", dir, sizeof(dir)), 0);
	o.project_dir = dir;
	o.home = "/sbxt-nohome/u";
	o.profile_dir = tu_profile_dir();
	o.flags = SBX_OPT_NO_SYSTEM_CONF | SBX_OPT_NO_USER_CONF;
	if (sbx_open(&s, &o, errbuf, sizeof(errbuf)) != SBX_OK)
		fail_msg("sbx_open: %s", errbuf);
	assert_int_equal(sbx_profile(s, "seatbelt", NULL, &out, &len, errbuf,
				     sizeof(errbuf)),
			 SBX_OK);
	assert_int_equal(strlen(out), len);
	assert_non_null(strstr(out, "(deny default)"));
	sx_free(parse_checked(out, len));
	free(out);
	assert_int_equal(sbx_profile(s, "apparmor", NULL, &out, NULL, errbuf,
				     sizeof(errbuf)),
			 SBX_E_ARG);
	assert_null(out);
	assert_non_null(strstr(errbuf, "seatbelt"));
	assert_int_equal(sbx_profile(s, "seatbelt", "/sbxt-nohome/u/.ssh", &out,
				     NULL, errbuf, sizeof(errbuf)),
			 SBX_E_ARG);
	assert_int_equal(sbx_profile(NULL, "seatbelt", NULL, &out, NULL, NULL,
				     0),
			 SBX_E_ARG);
	sbx_close(s);
	tu_rmrf(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_string_escape),
		cmocka_unit_test(test_glob_regex),
		cmocka_unit_test(test_shipped_profiles),
		cmocka_unit_test(test_fixture_policies),
		cmocka_unit_test(test_traversal),
		cmocka_unit_test(test_case_variants),
		cmocka_unit_test(test_tmpdir),
		cmocka_unit_test(test_network),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_golden),
		cmocka_unit_test(test_public_api),
		cmocka_unit_test(test_hostile_paths),
	};

	/* The goldens are the profiles' own: no hide added for a variable
	 * of this machine's environment (envhide.c). */
	for (size_t i = 0; sbx_env_hide_var(i); i++)
		unsetenv(sbx_env_hide_var(i));
	sbx_env_hide_passwd("/nonexistent"); /* nor this machine's accounts */
	return cmocka_run_group_tests(tests, NULL, NULL);
}
