/*
 * decide_table.h - the decision table, as data: scenarios (rules as
 * written in conf files, with the file and line they come from, protect
 * entries, command-line overrides) and rows {scenario, op, path, size,
 * expected verdict, expected deciding root, expected source}.
 *
 * One table drives every caller of the one decider (core/decide.h):
 *   - tests/unit/test_policy.c: the decider and the explainer in-process,
 *     against the in-memory reference (sbx_policy_match);
 *   - tests/shim/dtable.c + tests/shim/decide.bats: each scenario written
 *     as conf files and flags, each row asked of sbxrun --check, of libsbx
 *     (sbx_check) and of the shim in a real sandbox run, which must give
 *     the same verdict and the same text.
 *
 * The roots live under /sbxt, which does not exist, so symlink resolution
 * never changes them; "~" is /sbxt/home/u and the project is /sbxt/p.
 * Rule lines of one file are consecutive from 1 (dtable writes each rule
 * on its line).
 */
#ifndef SBX_TEST_DECIDE_TABLE_H
#define SBX_TEST_DECIDE_TABLE_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "conf.h"
#include "policy.h"

#define PROJ "/sbxt/p"
#define HOME "/sbxt/home/u"

/* ------------------------------------------------------------ scenarios */

struct rspec {
	const char *root;
	const char *mode;
	const char *file;
	int line;
	const char *sfx[4];
	uint64_t max;
};

struct scenario {
	const char *name;
	const struct rspec *rules; /* ends with root == NULL */
	const char *const *protect; /* NULL-terminated, or NULL */
	const char *const *overrides; /* "allow-read=..." etc., or NULL */
	int finish; /* run sbx_policy_finish() */
	size_t nwarn; /* warnings expected */
};

enum {
	S_BASIC,
	S_NOCOVER,
	S_SAMEFILE,
	S_LATER,
	S_HIDE_CONF,
	S_HIDE_FLAG,
	S_FINISH,
	NSCEN
};

static const struct rspec basic_rules[] = {
	{ "/", "ro", "base.conf", 1, { 0 }, 0 },
	{ PROJ, "rw", "base.conf", 2, { 0 }, 0 },
	{ PROJ "/.git/hooks", "ro", "base.conf", 3, { 0 }, 0 },
	{ "~/.ssh", "hide", "base.conf", 4, { 0 }, 0 },
	{ "notes",
	  "rw",
	  "base.conf",
	  5,
	  { ".md", ".txt" },
	  1000 }, /* relative: in the project */
	{ PROJ "/secret", "hide", "base.conf", 6, { 0 }, 0 },
	{ PROJ "/one", "rw", "base.conf", 7, { 0 }, 1 },
	{ PROJ "/exact/", "rw", "base.conf", 8, { ".tar.gz" }, 0 },
	{ NULL, NULL, NULL, 0, { 0 }, 0 }
};

static const struct rspec nocover_rules[] = {
	{ PROJ, "rw", "n.conf", 1, { 0 }, 0 },
	{ NULL, NULL, NULL, 0, { 0 }, 0 }
};

/* Within one file the stronger mode wins at the same root. */
static const struct rspec samefile_rules[] = {
	{ "/", "ro", "same.conf", 1, { 0 }, 0 },
	{ "/sbxt/d1", "rw", "same.conf", 2, { 0 }, 0 },
	{ "/sbxt/d1", "ro", "same.conf", 3, { 0 }, 0 },
	{ "/sbxt/d2", "ro", "same.conf", 4, { 0 }, 0 },
	{ "/sbxt/d2", "rw", "same.conf", 5, { 0 }, 0 },
	{ "/sbxt/d3", "hide", "same.conf", 6, { 0 }, 0 },
	{ "/sbxt/d3", "ro", "same.conf", 7, { 0 }, 0 }, /* warning */
	{ "/sbxt/d4", "rw", "same.conf", 8, { 0 }, 0 },
	{ "/sbxt/d4/", "hide", "same.conf", 9, { 0 }, 0 },
	{ "/sbxt/d5", "ro", "same.conf", 10, { 0 }, 0 },
	{ "/sbxt/./d5//", "rw", "same.conf", 11, { 0 }, 0 },
	{ NULL, NULL, NULL, 0, { 0 }, 0 }
};

/* A later file replaces the rule for the same root -- except a hide. */
static const struct rspec later_rules[] = {
	{ "/", "ro", "a.conf", 1, { 0 }, 0 },
	{ "/sbxt/d1", "ro", "a.conf", 2, { 0 }, 0 },
	{ "/sbxt/d2", "rw", "a.conf", 3, { 0 }, 0 },
	{ "/sbxt/d3", "hide", "a.conf", 4, { 0 }, 0 },
	{ "/sbxt/d4", "ro", "a.conf", 5, { 0 }, 0 },
	{ "/sbxt/d5", "rw", "a.conf", 6, { ".md" }, 10 },
	{ "/sbxt/d1", "rw", "b.conf", 1, { 0 }, 0 },
	{ "/sbxt/d2", "ro", "b.conf", 2, { 0 }, 0 },
	{ "/sbxt/d3", "rw", "b.conf", 3, { 0 }, 0 }, /* warning */
	{ "/sbxt/d4", "hide", "b.conf", 4, { 0 }, 0 },
	{ "/sbxt/d5", "rw", "b.conf", 5, { 0 }, 0 }, /* drops .md and 10 */
	{ NULL, NULL, NULL, 0, { 0 }, 0 }
};

/* A conf rule cannot lift a hide, at the same root or below it. */
static const struct rspec hideconf_rules[] = {
	{ "/", "ro", "profile.conf", 1, { 0 }, 0 },
	{ "~/.ssh", "hide", "profile.conf", 2, { 0 }, 0 },
	{ "/sbxt/h", "hide", "profile.conf", 3, { 0 }, 0 },
	{ "~/.ssh/known_hosts", "ro", "user.conf", 1, { 0 }, 0 }, /* warning */
	{ "/sbxt/h/pub", "rw", "user.conf", 2, { 0 }, 0 }, /* warning */
	{ "/sbxt/h", "rw", "user.conf", 3, { 0 }, 0 }, /* warning */
	{ "~/.sshx", "rw", "user.conf", 4, { 0 }, 0 },
	{ NULL, NULL, NULL, 0, { 0 }, 0 }
};

/* ... but a command-line flag can. */
static const struct rspec hideflag_rules[] = {
	{ "/", "ro", "profile.conf", 1, { 0 }, 0 },
	{ "~/.ssh", "hide", "profile.conf", 2, { 0 }, 0 },
	{ "/sbxt/h", "hide", "profile.conf", 3, { 0 }, 0 },
	{ "/sbxt/k", "hide", "profile.conf", 4, { 0 }, 0 },
	{ NULL, NULL, NULL, 0, { 0 }, 0 }
};
static const char *const hideflag_ov[] = { "allow-read=~/.ssh/known_hosts",
					   "allow-write=/sbxt/h",
					   "allow-read=/sbxt/k/pub",
					   "hide=" PROJ "/private", NULL };

/* sbx_policy_finish: project, /tmp and protect entries. */
static const struct rspec finish_rules[] = {
	{ "/", "ro", "default.conf", 1, { 0 }, 0 },
	{ PROJ "/hidden", "hide", "default.conf", 2, { 0 }, 0 },
	{ NULL, NULL, NULL, 0, { 0 }, 0 }
};
/* Where the protect entries of S_FINISH come from. */
#define DT_PROTECT_FILE "default.conf"
#define DT_PROTECT_LINE 20
static const char *const finish_protect[] = {
	".git/hooks", ".git/config", ".sbxrun.conf", "/sbxt/elsewhere",
	"hidden/x", /* inside a hide: dropped, quietly (U-05) */
	NULL
};

static const struct scenario scen[NSCEN] = {
	[S_BASIC] = { "basic", basic_rules, NULL, NULL, 0, 0 },
	[S_NOCOVER] = { "nocover", nocover_rules, NULL, NULL, 0, 0 },
	[S_SAMEFILE] = { "samefile", samefile_rules, NULL, NULL, 0, 1 },
	[S_LATER] = { "later", later_rules, NULL, NULL, 0, 1 },
	[S_HIDE_CONF] = { "hide-conf", hideconf_rules, NULL, NULL, 1, 3 },
	[S_HIDE_FLAG] = { "hide-flag", hideflag_rules, NULL, hideflag_ov, 1,
			  0 },
	[S_FINISH] = { "finish", finish_rules, finish_protect, NULL, 1, 0 },
};

/* ------------------------------------------------------------ decisions */

#define R SBX_OP_READ
#define W SBX_OP_WRITE
#define X SBX_OP_EXEC
#define OK SBX_ALLOW
#define HID SBX_DENY_HIDDEN
#define RO SBX_DENY_READONLY
#define SFX SBX_DENY_SUFFIX
#define SIZE SBX_DENY_SIZE
#define NOC SBX_DENY_NOTCOVERED

struct row {
	int s; /* scenario */
	enum sbx_op op;
	const char *path;
	int64_t size; /* -1: unknown */
	enum sbx_verdict want;
	const char *root; /* deciding root, NULL: none */
	const char *src; /* "file:line" of the deciding rule, NULL: any */
};

static const struct row rows[] = {
	/* -------- basic: longest root wins */
	{ S_BASIC, R, "/etc/passwd", -1, OK, "/", "base.conf:1" },
	{ S_BASIC, W, "/etc/passwd", -1, RO, "/", "base.conf:1" },
	{ S_BASIC, X, "/usr/bin/ls", -1, OK, "/", NULL },
	{ S_BASIC, R, "/", -1, OK, "/", NULL },
	{ S_BASIC, W, PROJ, -1, OK, PROJ, "base.conf:2" },
	{ S_BASIC, W, PROJ "/src/main.c", -1, OK, PROJ, NULL },
	{ S_BASIC, W, "/sbxt/px/file", -1, RO, "/",
	  NULL }, /* a prefix is not a parent */
	{ S_BASIC, W, "/sbxt", -1, RO, "/", NULL },
	{ S_BASIC, W, PROJ "/.git/hooks", -1, RO, PROJ "/.git/hooks",
	  "base.conf:3" },
	{ S_BASIC, W, PROJ "/.git/hooks/pre-commit", -1, RO, PROJ "/.git/hooks",
	  NULL },
	{ S_BASIC, R, PROJ "/.git/hooks/pre-commit", -1, OK, PROJ "/.git/hooks",
	  NULL },
	{ S_BASIC, X, PROJ "/.git/hooks/pre-commit", -1, OK, PROJ "/.git/hooks",
	  NULL },
	{ S_BASIC, W, PROJ "/.git/hooksx", -1, OK, PROJ, NULL },
	{ S_BASIC, W, PROJ "/.git/config", -1, OK, PROJ, NULL },
	{ S_BASIC, R, HOME "/.ssh", -1, HID, HOME "/.ssh", "base.conf:4" },
	{ S_BASIC, R, HOME "/.ssh/id_ed25519", -1, HID, HOME "/.ssh", NULL },
	{ S_BASIC, W, HOME "/.ssh/authorized_keys", 10, HID, HOME "/.ssh",
	  NULL },
	{ S_BASIC, X, HOME "/.ssh/x", -1, HID, HOME "/.ssh", NULL },
	{ S_BASIC, R, HOME "/.sshx", -1, OK, "/", NULL },
	{ S_BASIC, R, HOME, -1, OK, "/", NULL },
	{ S_BASIC, W, PROJ "/secret/x", -1, HID, PROJ "/secret",
	  "base.conf:6" },
	{ S_BASIC, R, PROJ "/secret", -1, HID, PROJ "/secret", NULL },
	/* -------- basic: suffixes and max_file_bytes (1000) */
	{ S_BASIC, W, PROJ "/notes/a.md", 1000, OK, PROJ "/notes",
	  "base.conf:5" },
	{ S_BASIC, W, PROJ "/notes/a.md", 1001, SIZE, PROJ "/notes", NULL },
	{ S_BASIC, W, PROJ "/notes/a.md", 0, OK, PROJ "/notes", NULL },
	{ S_BASIC, W, PROJ "/notes/a.md", -1, OK, PROJ "/notes",
	  NULL }, /* unknown size */
	{ S_BASIC, W, PROJ "/notes/a.md", INT64_MAX, SIZE, PROJ "/notes",
	  NULL },
	{ S_BASIC, W, PROJ "/notes/A.MD", 10, OK, PROJ "/notes",
	  NULL }, /* case-insensitive */
	{ S_BASIC, W, PROJ "/notes/sub/deep.txt", 10, OK, PROJ "/notes", NULL },
	{ S_BASIC, W, PROJ "/notes/a.c", 10, SFX, PROJ "/notes", NULL },
	{ S_BASIC, W, PROJ "/notes/a.c", 5000, SFX, PROJ "/notes",
	  NULL }, /* suffix before size */
	{ S_BASIC, W, PROJ "/notes/a.md.c", -1, SFX, PROJ "/notes", NULL },
	{ S_BASIC, W, PROJ "/notes/a.c.md", -1, OK, PROJ "/notes", NULL },
	{ S_BASIC, W, PROJ "/notes/.md", -1, OK, PROJ "/notes",
	  NULL }, /* the whole name may be the suffix */
	{ S_BASIC, W, PROJ "/notes/md", -1, SFX, PROJ "/notes", NULL },
	/* A directory has no suffix: creating notes/sub (or writing the root
	 * itself) is refused under a suffix rule.  Documented, see report. */
	{ S_BASIC, W, PROJ "/notes/sub", -1, SFX, PROJ "/notes", NULL },
	{ S_BASIC, W, PROJ "/notes", -1, SFX, PROJ "/notes", NULL },
	{ S_BASIC, R, PROJ "/notes/a.c", 10, OK, PROJ "/notes",
	  NULL }, /* suffixes restrict writes only */
	/* max_file_bytes is checked for every op with a known size, reads
	 * included.  Documented, see report. */
	{ S_BASIC, R, PROJ "/notes/big.md", 5000, SIZE, PROJ "/notes", NULL },
	{ S_BASIC, R, PROJ "/notes/big.md", -1, OK, PROJ "/notes", NULL },
	{ S_BASIC, W, PROJ "/one/x", 1, OK, PROJ "/one", "base.conf:7" },
	{ S_BASIC, W, PROJ "/one/x", 2, SIZE, PROJ "/one", NULL },
	{ S_BASIC, W, PROJ "/exact/a.tar.gz", -1, OK, PROJ "/exact",
	  "base.conf:8" },
	{ S_BASIC, W, PROJ "/exact/a.gz", -1, SFX, PROJ "/exact", NULL },
	/* -------- nothing covers it */
	{ S_NOCOVER, R, "/etc/passwd", -1, NOC, NULL, NULL },
	{ S_NOCOVER, X, "/bin/sh", -1, NOC, NULL, NULL },
	{ S_NOCOVER, R, "/", -1, NOC, NULL, NULL },
	{ S_NOCOVER, R, "/sbxt", -1, NOC, NULL, NULL },
	{ S_NOCOVER, W, PROJ "/x", -1, OK, PROJ, "n.conf:1" },
	/* -------- same file: stronger mode wins, whatever the order */
	{ S_SAMEFILE, W, "/sbxt/d1/x", -1, RO, "/sbxt/d1", "same.conf:3" },
	{ S_SAMEFILE, W, "/sbxt/d2/x", -1, RO, "/sbxt/d2", "same.conf:4" },
	{ S_SAMEFILE, R, "/sbxt/d3/x", -1, HID, "/sbxt/d3", "same.conf:6" },
	{ S_SAMEFILE, R, "/sbxt/d4/x", -1, HID, "/sbxt/d4", "same.conf:9" },
	{ S_SAMEFILE, W, "/sbxt/d5", -1, RO, "/sbxt/d5", "same.conf:10" },
	/* -------- a later file overrides the same root, except a hide */
	{ S_LATER, W, "/sbxt/d1/x", -1, OK, "/sbxt/d1", "b.conf:1" },
	{ S_LATER, W, "/sbxt/d2/x", -1, RO, "/sbxt/d2", "b.conf:2" },
	{ S_LATER, W, "/sbxt/d3/x", -1, HID, "/sbxt/d3", "a.conf:4" },
	{ S_LATER, R, "/sbxt/d4/x", -1, HID, "/sbxt/d4", "b.conf:4" },
	{ S_LATER, W, "/sbxt/d5/x.c", 100, OK, "/sbxt/d5", "b.conf:5" },
	/* -------- a conf rule cannot lift a hide (finish drops it) */
	{ S_HIDE_CONF, R, HOME "/.ssh/known_hosts", -1, HID, HOME "/.ssh",
	  "profile.conf:2" },
	{ S_HIDE_CONF, W, "/sbxt/h/pub/x", -1, HID, "/sbxt/h",
	  "profile.conf:3" },
	{ S_HIDE_CONF, R, "/sbxt/h", -1, HID, "/sbxt/h", "profile.conf:3" },
	{ S_HIDE_CONF, W, HOME "/.sshx/y", -1, OK, HOME "/.sshx",
	  "user.conf:4" },
	{ S_HIDE_CONF, W, "/tmp/x", -1, OK, "/tmp", "built-in" },
	{ S_HIDE_CONF, W, PROJ "/f", -1, OK, PROJ, "built-in" },
	/* -------- ... a command-line flag can */
	{ S_HIDE_FLAG, R, HOME "/.ssh/known_hosts", -1, OK,
	  HOME "/.ssh/known_hosts", "--allow-read" },
	{ S_HIDE_FLAG, W, HOME "/.ssh/known_hosts", -1, RO,
	  HOME "/.ssh/known_hosts", "--allow-read" },
	{ S_HIDE_FLAG, R, HOME "/.ssh/id_rsa", -1, HID, HOME "/.ssh",
	  "profile.conf:2" },
	{ S_HIDE_FLAG, W, "/sbxt/h/x", -1, OK, "/sbxt/h", "--allow-write" },
	{ S_HIDE_FLAG, R, "/sbxt/k/pub/x", -1, OK, "/sbxt/k/pub",
	  "--allow-read" },
	{ S_HIDE_FLAG, R, "/sbxt/k/other", -1, HID, "/sbxt/k",
	  "profile.conf:4" },
	{ S_HIDE_FLAG, W, PROJ "/private/x", -1, HID, PROJ "/private",
	  "--hide" },
	{ S_HIDE_FLAG, W, PROJ "/x", -1, OK, PROJ, "built-in" },
	/* -------- finish: project, /tmp, protect */
	{ S_FINISH, W, PROJ "/x", -1, OK, PROJ, "built-in" },
	{ S_FINISH, W, PROJ "/.git/hooks/pre-commit", -1, RO,
	  PROJ "/.git/hooks", NULL },
	{ S_FINISH, W, PROJ "/.git/config", -1, RO, PROJ "/.git/config", NULL },
	{ S_FINISH, W, PROJ "/.git/objects/ab/cdef", -1, OK, PROJ, NULL },
	{ S_FINISH, W, PROJ "/.git/index", -1, OK, PROJ, NULL },
	{ S_FINISH, W, PROJ "/.sbxrun.conf", -1, RO, PROJ "/.sbxrun.conf",
	  NULL },
	{ S_FINISH, R, PROJ "/.sbxrun.conf", -1, OK, PROJ "/.sbxrun.conf",
	  NULL },
	{ S_FINISH, W, "/tmp/scratch", -1, OK, "/tmp", "built-in" },
	{ S_FINISH, W, "/sbxt/elsewhere/x", -1, RO, "/sbxt/elsewhere", NULL },
	{ S_FINISH, W, PROJ "/hidden/x/y", -1, HID, PROJ "/hidden",
	  "default.conf:2" },
	{ S_FINISH, W, "/etc/x", -1, RO, "/", "default.conf:1" },
};

/* Build scenario s into p (initialised here); -1 with err on failure. */
static inline int dt_build(struct sbx_policy *p, const struct scenario *s,
			   struct sbx_err *err)
{
	sbx_policy_init(p);
	p->project = strdup(PROJ);
	p->home = strdup(HOME);
	for (const struct rspec *r = s->rules; r->root; r++) {
		struct sbx_rule rule = { .root = r->root,
					 .suffixes = r->sfx,
					 .max_file_bytes = r->max,
					 .src = { r->file, r->line } };

		if (sbx_parse_pmode(r->mode, &rule.mode) < 0)
			return sbx_errf(err, 0, "%s: bad mode", r->root);
		while (rule.nsuffixes < 4 && r->sfx[rule.nsuffixes])
			rule.nsuffixes++;
		if (sbx_policy_add_rule(p, &rule, err) < 0)
			return -1;
	}
	for (size_t i = 0; s->protect && s->protect[i]; i++)
		if (sbx_strv_add(p, &p->protect, s->protect[i],
				 (struct sbx_src){ DT_PROTECT_FILE,
						   DT_PROTECT_LINE }) < 0)
			return sbx_errf(err, 0, "out of memory");
	for (size_t i = 0; s->overrides && s->overrides[i]; i++)
		if (sbx_conf_override(p, s->overrides[i], err) < 0)
			return -1;
	if (s->finish && sbx_policy_finish(p, err) < 0)
		return -1;
	return 0;
}

#define DT_NROWS (sizeof(rows) / sizeof(rows[0]))

#endif
