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

/* Path rules are collected first and added whole at the end
 * (sbx_policy_add_rule), so --suffix and --max can name a root given
 * before them. */
struct spec {
	const char *root;
	enum sbx_pmode mode;
	unsigned flags;
	const char *file; /* --src at the time */
	int line;
	const char *sfx[SBX_MAX_SUFFIXES];
	size_t nsfx;
	uint64_t max;
};

static struct sbx_policy pol;
static struct sbx_err err;
static struct spec specs[256];
static size_t nspecs;
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
	if (nspecs == sizeof(specs) / sizeof(specs[0]))
		die("too many rules");
	specs[nspecs++] =
		(struct spec){ root, m, fl, src_file, line, { 0 }, 0, 0 };
}

/* The latest rule given for root (as written). */
static struct spec *find_spec(const char *root)
{
	for (size_t i = nspecs; i-- > 0;)
		if (strcmp(specs[i].root, root) == 0)
			return &specs[i];
	die("no rule for that root (add --rw ROOT first)");
	return NULL;
}

static void set_suffixes(const char *root, const char *list)
{
	struct spec *s = find_spec(root);
	char *copy = strdup(list), *tok, *save = NULL;

	for (tok = strtok_r(copy, ",", &save);
	     tok && s->nsfx < SBX_MAX_SUFFIXES;
	     tok = strtok_r(NULL, ",", &save))
		s->sfx[s->nsfx++] = tok; /* copy lives until exit */
}

static void add_rules(void)
{
	for (size_t i = 0; i < nspecs; i++) {
		const struct spec *s = &specs[i];
		const struct sbx_rule r = {
			.root = s->root,
			.mode = s->mode,
			.flags = s->flags,
			.suffixes = s->sfx,
			.nsuffixes = s->nsfx,
			.max_file_bytes = s->max,
			.src = { s->file, s->line },
		};

		if (sbx_policy_add_rule(&pol, &r, &err) < 0)
			die(err.msg);
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
		set_suffixes(a, b);
		return 3;
	} else if (!strcmp(o, "--max")) {
		find_spec(a)->max = strtoull(b, NULL, 10);
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
	add_rules();
	if (sbx_policy_finish(&pol, &err) < 0)
		die(err.msg);
	if (sbx_cpol_build(&pol, SBX_KMODE_FULL, cflags, &buf, &len, &err) < 0)
		die(err.msg);
	f = fopen(argv[1], "wb");
	if (!f || fwrite(buf, 1, len, f) != len || fclose(f) != 0)
		die("cannot write the output");
	free(buf);
	sbx_policy_free(&pol);
	return 0;
}
