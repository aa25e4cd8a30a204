/*
 * mkpol - write a compiled policy for shim tests, without the launcher.
 *
 *   mkpol OUT [option...]
 *
 *   --project DIR        the writable project (default: the cwd)
 *   --home DIR           home directory for '~' (default: $HOME)
 *   --src FILE           conf file name recorded for the following rules
 *   --rw|--ro ROOT       a path rule ("/" is read-only by default)
 *   --hide ROOT          a hidden path;  --secret ROOT: hidden secret
 *   --suffix ROOT LIST   allowed suffixes (".md,.pdf") on ROOT's rule
 *   --max ROOT BYTES     max_file_bytes on ROOT's rule
 *   --protect PATH       a protect entry (relative: inside the project)
 *   --deny PROG REASON   an exec deny rule; --deny-args PROG REASON A,B
 *   --net MODE           off|loopback|on|filtered
 *   --allow ENTRY        a network allow-list entry
 *   --sock PATH          an allowed unix socket
 *   --quiet --report-only --shim-protect
 *
 * Each rule records its position on the command line as its line, so
 * tests can check the "(rule ... from FILE:LINE)" part of messages.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cpol.h"

struct later { /* suffix / size settings, applied after finish */
	const char *root, *suffixes;
	uint64_t max;
};

static struct sbx_policy pol;
static struct sbx_err err;
static struct later later[64];
static size_t nlater;
static unsigned cflags;
static const char *src_file = "/etc/sbxrun/test.conf";

static void die(const char *what)
{
	fprintf(stderr, "mkpol: %s\n", what);
	exit(2);
}

static struct sbx_src src_at(int line)
{
	return (struct sbx_src){ src_file, line };
}

static void add_path(const char *root, enum sbx_pmode m, unsigned fl, int line)
{
	if (sbx_policy_add_path(&pol, root, m, fl, src_at(line), &err) < 0)
		die(err.msg);
}

static struct sbx_path_rule *find_rule(const char *root)
{
	char norm[PATH_MAX];

	if (sbx_path_norm(root, pol.project, pol.home, 1, norm, sizeof(norm)) <
	    0)
		die("bad root");
	for (size_t i = 0; i < pol.nrules; i++)
		if (strcmp(pol.rules[i].root, norm) == 0)
			return &pol.rules[i];
	die("no rule for that root (add --rw ROOT first)");
	return NULL;
}

static void apply_later(void)
{
	for (size_t i = 0; i < nlater; i++) {
		struct sbx_path_rule *r = find_rule(later[i].root);
		char *list, *tok, *save = NULL;

		if (later[i].max)
			r->max_file_bytes = later[i].max;
		if (!later[i].suffixes)
			continue;
		list = strdup(later[i].suffixes);
		for (tok = strtok_r(list, ",", &save);
		     tok && r->nsuffixes < SBX_MAX_SUFFIXES;
		     tok = strtok_r(NULL, ",", &save))
			r->suffixes[r->nsuffixes++] = strdup(tok);
		free(list);
	}
}

static void add_deny(const char *prog, const char *reason, const char *args,
		     int line)
{
	const char *v[SBX_MAX_EXEC_ARGS];
	char *list = args ? strdup(args) : NULL, *save = NULL, *tok;
	size_t n = 0;

	for (tok = list ? strtok_r(list, ",", &save) : NULL;
	     tok && n < SBX_MAX_EXEC_ARGS; tok = strtok_r(NULL, ",", &save))
		v[n++] = tok;
	if (sbx_policy_add_exec(&pol, prog, v, n, reason, src_at(line), &err) <
	    0)
		die(err.msg);
	free(list);
}

/* One option at argv[i]; returns how many arguments it used. */
static int option(char **argv, int i, int argc)
{
	const char *o = argv[i], *a = i + 1 < argc ? argv[i + 1] : NULL;
	const char *b = i + 2 < argc ? argv[i + 2] : NULL;

	if (!strcmp(o, "--quiet")) {
		cflags |= SBX_CPOL_F_QUIET;
		return 1;
	}
	if (!strcmp(o, "--report-only")) {
		cflags |= SBX_CPOL_F_REPORT_ONLY;
		return 1;
	}
	if (!strcmp(o, "--shim-protect")) {
		cflags |= SBX_CPOL_F_SHIM_PROTECT;
		return 1;
	}
	if (!a)
		die("option needs an argument");
	if (!strcmp(o, "--src"))
		src_file = a;
	else if (!strcmp(o, "--rw"))
		add_path(a, SBX_RW, 0, i);
	else if (!strcmp(o, "--ro"))
		add_path(a, SBX_RO, 0, i);
	else if (!strcmp(o, "--hide"))
		add_path(a, SBX_HIDE, 0, i);
	else if (!strcmp(o, "--secret"))
		add_path(a, SBX_HIDE, SBX_RF_SECRET, i);
	else if (!strcmp(o, "--protect"))
		sbx_strv_add(&pol, &pol.protect, a, src_at(i));
	else if (!strcmp(o, "--allow")) {
		if (sbx_policy_add_allow(&pol, a, src_at(i), &err) < 0)
			die(err.msg);
	} else if (!strcmp(o, "--sock"))
		sbx_strv_add(&pol, &pol.unix_sockets, a, src_at(i));
	else if (!strcmp(o, "--net")) {
		if (sbx_parse_net(a, &pol.net) < 0)
			die("bad --net");
	} else if (!b) {
		die("option needs two arguments");
	} else if (!strcmp(o, "--suffix")) {
		later[nlater++] = (struct later){ a, b, 0 };
		return 3;
	} else if (!strcmp(o, "--max")) {
		later[nlater++] =
			(struct later){ a, NULL, strtoull(b, NULL, 10) };
		return 3;
	} else if (!strcmp(o, "--deny")) {
		add_deny(a, b, NULL, i);
		return 3;
	} else if (!strcmp(o, "--deny-args") && i + 3 < argc) {
		add_deny(a, b, argv[i + 3], i);
		return 4;
	} else {
		die("unknown option");
	}
	return 2;
}

/* --project and --home first: rules are normalised against them. */
static void setup(int argc, char **argv)
{
	char cwd[PATH_MAX];
	const char *project = getcwd(cwd, sizeof(cwd)), *home = getenv("HOME");

	for (int i = 2; i + 1 < argc; i++) {
		if (!strcmp(argv[i], "--project"))
			project = argv[i + 1];
		if (!strcmp(argv[i], "--home"))
			home = argv[i + 1];
	}
	sbx_policy_init(&pol);
	pol.project = realpath(project, NULL);
	pol.home = strdup(home ? home : "/root");
	pol.profile = strdup("test");
	if (!pol.project)
		die("project does not exist");
	add_path("/", SBX_RO, 0, 1);
}

int main(int argc, char **argv)
{
	void *buf;
	size_t len;
	FILE *f;

	if (argc < 2)
		die("usage: mkpol OUT [option...]");
	setup(argc, argv);
	for (int i = 2; i < argc;) {
		if (!strcmp(argv[i], "--project") ||
		    !strcmp(argv[i], "--home")) {
			i += 2;
			continue;
		}
		i += option(argv, i, argc);
	}
	if (sbx_policy_finish(&pol, &err) < 0)
		die(err.msg);
	apply_later();
	if (sbx_cpol_build(&pol, SBX_KMODE_FULL, cflags, &buf, &len, &err) < 0)
		die(err.msg);
	f = fopen(argv[1], "wb");
	if (!f || fwrite(buf, 1, len, f) != len || fclose(f) != 0)
		die("cannot write the output");
	free(buf);
	sbx_policy_free(&pol);
	return 0;
}
