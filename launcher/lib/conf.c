/*
 * conf.c - profiles and conf files (libconfig syntax, DESIGN 6).
 *
 * Precedence, lowest first: profile, system conf, user conf, per-project
 * conf (stored outside the project, found by the XXH3-64 of its realpath),
 * the in-repo .sbxrun.conf once trusted, then command-line overrides.
 * Later tiers override scalars and add to lists.  Every key is checked:
 * an unknown key or a wrong type is "file:line: problem" and nothing runs.
 */
#include <errno.h>
#include <fcntl.h>
#include <libconfig.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "conf.h"
#include "confcache.h"
#include "gitrepo.h"
#include "netallow.h"

#define MAX_PROFILE_DEPTH 4
#define MAX_PRESET_ENTRIES 64

/* The tree's accessors, named after libconfig's (conftree.h). */
#define ct_type(s) ((s)->type)
#define ct_len(s) ((s)->n)
#define ct_str(s) ((s)->str)
#define ct_name(s) ((s)->name)
#define ct_parent(s) ((s)->parent)
#define ct_line(s) ((s)->line)
#define ct_int(s) ((s)->ival)
#define ct_bool(s) ((int)(s)->ival)

static const char *file_of(const struct sbx_ctn *s)
{
	return s && s->file ? s->file : "<conf>";
}

/* A problem at setting s: "file:line: ...", through the one setter. */
#define cfail(err, s, ...) \
	sbx_errf_at((err), file_of(s), (s) ? ct_line(s) : 0, __VA_ARGS__)

static struct sbx_src src_of(const struct sbx_ctn *s)
{
	return (struct sbx_src){ file_of(s), (int)ct_line(s) };
}

static const char *type_name(int t)
{
	switch (t) {
	case CONFIG_TYPE_GROUP: return "a group { ... }";
	case CONFIG_TYPE_INT:
	case CONFIG_TYPE_INT64: return "an integer";
	case CONFIG_TYPE_FLOAT: return "a number";
	case CONFIG_TYPE_STRING: return "a string";
	case CONFIG_TYPE_BOOL: return "true or false";
	case CONFIG_TYPE_ARRAY: return "an array [ ... ]";
	case CONFIG_TYPE_LIST: return "a list ( ... )";
	}
	return "?";
}

static int want(const struct sbx_ctn *s, int type, struct sbx_err *err)
{
	int t = ct_type(s);

	if (t == type || (type == CONFIG_TYPE_INT && t == CONFIG_TYPE_INT64))
		return 0;
	/* An empty [] and () are interchangeable for lists of scalars. */
	if ((type == CONFIG_TYPE_ARRAY || type == CONFIG_TYPE_LIST) &&
	    (t == CONFIG_TYPE_ARRAY || t == CONFIG_TYPE_LIST) && ct_len(s) == 0)
		return 0;
	return cfail(err, s, "'%s' must be %s, not %s",
		     ct_name(s) ? ct_name(s) : "entry", type_name(type),
		     type_name(t));
}

/* Each element of an array of strings, through fn. */
static int each_string(struct sbx_policy *p, const struct sbx_ctn *s,
		       int (*fn)(struct sbx_policy *, const char *,
				 const struct sbx_ctn *, void *,
				 struct sbx_err *),
		       void *ctx, struct sbx_err *err)
{
	if (want(s, CONFIG_TYPE_ARRAY, err) < 0)
		return -1;
	for (int i = 0; i < ct_len(s); i++) {
		const struct sbx_ctn *e = sbx_ct_elem(s, (unsigned)i);

		if (want(e, CONFIG_TYPE_STRING, err) < 0)
			return -1;
		if (fn(p, ct_str(e), e, ctx, err) < 0)
			return -1;
	}
	return 0;
}

static int add_to_strv(struct sbx_policy *p, const char *v,
		       const struct sbx_ctn *e, void *ctx, struct sbx_err *err)
{
	if (!*v)
		return cfail(err, e, "empty string");
	if (sbx_strv_add(p, ctx, v, src_of(e)) < 0)
		return cfail(err, e, "out of memory");
	return 0;
}

/* What a number counts, for the message when it is not one. */
static const char *const unit_want[] = {
	"a number of bytes or a size such as \"512M\" or \"8G\"",
	"a number of seconds, such as 30",
	"a whole number, such as 1024",
};

/* A size: an integer, or a string such as "8G"; unit indexes unit_want. */
static int get_size(const struct sbx_ctn *s, uint64_t *out, int unit,
		    struct sbx_err *err)
{
	int t = ct_type(s);

	if (t == CONFIG_TYPE_INT || t == CONFIG_TYPE_INT64) {
		long long v = ct_int(s);

		if (v < 0)
			return cfail(err, s, "'%s' must not be negative",
				     ct_name(s));
		*out = (uint64_t)v;
		return 0;
	}
	if (t == CONFIG_TYPE_STRING && sbx_parse_size(ct_str(s), out) == 0)
		return 0;
	return cfail(err, s, "'%s' must be %s, not %s%s%s%s", ct_name(s),
		     unit_want[unit], type_name(t),
		     t == CONFIG_TYPE_STRING ? " \"" : "",
		     t == CONFIG_TYPE_STRING ? ct_str(s) : "",
		     t == CONFIG_TYPE_STRING ? "\"" : "");
}

/* Member lookup that rejects unknown keys in a group. */
static int check_keys(const struct sbx_ctn *g, const char *const *keys,
		      struct sbx_err *err)
{
	for (int i = 0; i < ct_len(g); i++) {
		const struct sbx_ctn *m = sbx_ct_elem(g, (unsigned)i);
		const char *name = ct_name(m);
		int ok = 0;

		for (size_t k = 0; keys[k] && !ok; k++)
			ok = name && strcmp(name, keys[k]) == 0;
		if (!ok)
			return cfail(
				err, m, "unknown key '%s'%s%s",
				name ? name : "?", ct_parent(g) ? " in " : "",
				ct_parent(g) && ct_name(g) ? ct_name(g) : "");
	}
	return 0;
}

/* ------------------------------------------------------------ sections */

/* suffixes = [ ".md", ... ]: checked here, so an error names the line of
 * the entry. */
static int get_suffixes(const struct sbx_ctn *s, const char **v, size_t *n,
			struct sbx_err *err)
{
	*n = 0;
	if (!s)
		return 0;
	if (want(s, CONFIG_TYPE_ARRAY, err) < 0)
		return -1;
	for (int i = 0; i < ct_len(s); i++) {
		const struct sbx_ctn *e = sbx_ct_elem(s, (unsigned)i);
		const char *x;

		if (want(e, CONFIG_TYPE_STRING, err) < 0)
			return -1;
		if (*n >= SBX_MAX_SUFFIXES)
			return cfail(err, e, "at most %d suffixes per path",
				     SBX_MAX_SUFFIXES);
		x = ct_str(e);
		if (!*x || strchr(x, '/'))
			return cfail(err, e, "bad suffix '%s'", x);
		v[(*n)++] = x;
	}
	return 0;
}

/* { root = ...; mode = ...; suffixes = [...]; max_file_bytes = N; }: read
 * whole, then handed to the engine as one rule. */
static int apply_path(struct sbx_policy *p, const struct sbx_ctn *g,
		      struct sbx_err *err)
{
	static const char *const keys[] = { "root", "mode", "suffixes",
					    "max_file_bytes", NULL };
	const char *sfx[SBX_MAX_SUFFIXES];
	char res[PATH_MAX];
	struct sbx_rule r = { .suffixes = sfx };
	const struct sbx_ctn *root, *mode, *s;
	struct sbx_err e2;

	if (want(g, CONFIG_TYPE_GROUP, err) < 0 || check_keys(g, keys, err) < 0)
		return -1;
	root = sbx_ct_member(g, "root");
	mode = sbx_ct_member(g, "mode");
	if (!root || !mode)
		return cfail(err, g, "a path entry needs root and mode");
	if (want(root, CONFIG_TYPE_STRING, err) < 0 ||
	    want(mode, CONFIG_TYPE_STRING, err) < 0)
		return -1;
	if (sbx_parse_pmode(ct_str(mode), &r.mode) < 0)
		return cfail(err, mode,
			     "mode must be \"rw\", \"ro\" or "
			     "\"hide\", not \"%s\"",
			     ct_str(mode));
	if (get_suffixes(sbx_ct_member(g, "suffixes"), sfx, &r.nsuffixes, err) <
	    0)
		return -1;
	s = sbx_ct_member(g, "max_file_bytes");
	if (s && get_size(s, &r.max_file_bytes, 0, err) < 0)
		return -1;
	r.root = ct_str(root);
	r.src = src_of(root);
	if (sbx_conf_check_root_link(p, &r, res, &e2) < 0 ||
	    sbx_policy_add_rule_norm(p, &r, res[0] ? res : NULL, &e2) < 0)
		return cfail(err, root, "%s", e2.msg);
	return 0;
}

static int sec_paths(struct sbx_policy *p, const struct sbx_ctn *s,
		     struct sbx_err *err)
{
	if (want(s, CONFIG_TYPE_LIST, err) < 0)
		return -1;
	for (int i = 0; i < ct_len(s); i++)
		if (apply_path(p, sbx_ct_elem(s, (unsigned)i), err) < 0)
			return -1;
	return 0;
}

static int sec_protect(struct sbx_policy *p, const struct sbx_ctn *s,
		       struct sbx_err *err)
{
	return each_string(p, s, add_to_strv, &p->protect, err);
}

static int add_allow(struct sbx_policy *p, const char *v,
		     const struct sbx_ctn *e, void *ctx, struct sbx_err *err)
{
	struct sbx_err e2;

	if (sbx_policy_add_allow(p, v, src_of(e), &e2) < 0)
		return cfail(err, e, "%s", e2.msg);
	return 0;
}

static int check_preset_entry(struct sbx_policy *p, const char *v,
			      const struct sbx_ctn *e, void *ctx,
			      struct sbx_err *err)
{
	struct sbx_err e2;

	if (v[0] == '@')
		return cfail(err, e,
			     "network preset '%s': '%s': a preset cannot use "
			     "another preset",
			     (const char *)ctx, v);
	if (sbx_net_entry_check(p, v, &e2) < 0)
		return cfail(err, e, "network preset '%s': %s",
			     (const char *)ctx, e2.msg);
	return 0;
}

/* presets = { npm = [ "registry.npmjs.org:443" ]; ... }: every entry is
 * checked where it stands (file:line), then the preset is defined. */
static int apply_preset(struct sbx_policy *p, const struct sbx_ctn *ps,
			struct sbx_err *err)
{
	const char *name = ct_name(ps), *v[MAX_PRESET_ENTRIES];
	int n = ct_len(ps);
	struct sbx_err e2;

	if (!sbx_net_preset_name_ok(name))
		return cfail(err, ps,
			     "bad network preset name '%s': 1-32 of a-z, 0-9, "
			     "- and _",
			     name);
	if (each_string(p, ps, check_preset_entry, (void *)name, err) < 0)
		return -1;
	if (n < 1 || n > MAX_PRESET_ENTRIES)
		return cfail(err, ps,
			     "network preset '%s' needs 1 to %d entries", name,
			     MAX_PRESET_ENTRIES);
	for (int i = 0; i < n; i++)
		v[i] = ct_str(sbx_ct_elem(ps, (unsigned)i));
	if (sbx_net_preset_define(p, name, v, (size_t)n, src_of(ps), &e2) < 0)
		return cfail(err, ps, "%s", e2.msg);
	return 0;
}

static int sec_presets(struct sbx_policy *p, const struct sbx_ctn *g,
		       struct sbx_err *err)
{
	if (want(g, CONFIG_TYPE_GROUP, err) < 0)
		return -1;
	for (int i = 0; i < ct_len(g); i++)
		if (apply_preset(p, sbx_ct_elem(g, (unsigned)i), err) < 0)
			return -1;
	return 0;
}

/* Presets first, wherever they stand in the group: "allow" may use them. */
static int sec_network(struct sbx_policy *p, const struct sbx_ctn *s,
		       struct sbx_err *err)
{
	static const char *const keys[] = { "mode", "allow", "unix_sockets",
					    "presets", NULL };
	const struct sbx_ctn *m;

	if (want(s, CONFIG_TYPE_GROUP, err) < 0 || check_keys(s, keys, err) < 0)
		return -1;
	m = sbx_ct_member(s, "presets");
	if (m && sec_presets(p, m, err) < 0)
		return -1;
	m = sbx_ct_member(s, "mode");
	if (m) {
		if (want(m, CONFIG_TYPE_STRING, err) < 0)
			return -1;
		if (sbx_parse_net(ct_str(m), &p->net) < 0)
			return cfail(err, m,
				     "network mode must be \"off\", "
				     "\"loopback\", \"on\" or \"filtered\"");
		p->net_src = src_of(m);
		p->net_src.file = sbx_policy_intern(p, p->net_src.file);
	}
	m = sbx_ct_member(s, "allow");
	if (m && each_string(p, m, add_allow, NULL, err) < 0)
		return -1;
	m = sbx_ct_member(s, "unix_sockets");
	if (m && each_string(p, m, add_to_strv, &p->unix_sockets, err) < 0)
		return -1;
	return 0;
}

static int collect_args(const struct sbx_ctn *a, const char **args, size_t *n,
			struct sbx_err *err)
{
	*n = 0;
	if (!a)
		return 0;
	if (want(a, CONFIG_TYPE_ARRAY, err) < 0)
		return -1;
	if (ct_len(a) > SBX_MAX_EXEC_ARGS)
		return cfail(err, a, "at most %d args patterns",
			     SBX_MAX_EXEC_ARGS);
	for (int i = 0; i < ct_len(a); i++) {
		const struct sbx_ctn *e = sbx_ct_elem(a, (unsigned)i);

		if (want(e, CONFIG_TYPE_STRING, err) < 0)
			return -1;
		args[(*n)++] = ct_str(e);
	}
	return 0;
}

static int apply_exec(struct sbx_policy *p, const struct sbx_ctn *g,
		      struct sbx_err *err)
{
	static const char *const keys[] = { "program", "args", "reason", NULL };
	const struct sbx_ctn *prog, *reason;
	const char *args[SBX_MAX_EXEC_ARGS];
	size_t nargs;
	struct sbx_err e2;

	if (want(g, CONFIG_TYPE_GROUP, err) < 0 || check_keys(g, keys, err) < 0)
		return -1;
	prog = sbx_ct_member(g, "program");
	reason = sbx_ct_member(g, "reason");
	if (!prog || !reason)
		return cfail(err, g,
			     "an exec deny entry needs program and "
			     "reason");
	if (want(prog, CONFIG_TYPE_STRING, err) < 0 ||
	    want(reason, CONFIG_TYPE_STRING, err) < 0 ||
	    collect_args(sbx_ct_member(g, "args"), args, &nargs, err) < 0)
		return -1;
	if (!*ct_str(prog))
		return cfail(err, prog, "empty program");
	if (sbx_policy_add_exec(p, ct_str(prog), args, nargs, ct_str(reason),
				src_of(prog), &e2) < 0)
		return cfail(err, g, "%s", e2.msg);
	return 0;
}

static int sec_exec(struct sbx_policy *p, const struct sbx_ctn *s,
		    struct sbx_err *err)
{
	static const char *const keys[] = { "deny", NULL };
	const struct sbx_ctn *d;

	if (want(s, CONFIG_TYPE_GROUP, err) < 0 || check_keys(s, keys, err) < 0)
		return -1;
	d = sbx_ct_member(s, "deny");
	if (!d)
		return 0;
	if (want(d, CONFIG_TYPE_LIST, err) < 0)
		return -1;
	for (int i = 0; i < ct_len(d); i++)
		if (apply_exec(p, sbx_ct_elem(d, (unsigned)i), err) < 0)
			return -1;
	return 0;
}

static int sec_env(struct sbx_policy *p, const struct sbx_ctn *s,
		   struct sbx_err *err)
{
	static const char *const keys[] = { "keep", "drop", NULL };
	const struct sbx_ctn *m;

	if (want(s, CONFIG_TYPE_GROUP, err) < 0 || check_keys(s, keys, err) < 0)
		return -1;
	m = sbx_ct_member(s, "keep");
	if (m && each_string(p, m, add_to_strv, &p->env_keep, err) < 0)
		return -1;
	m = sbx_ct_member(s, "drop");
	if (m && each_string(p, m, add_to_strv, &p->env_drop, err) < 0)
		return -1;
	return 0;
}

static int sec_limits(struct sbx_policy *p, const struct sbx_ctn *s,
		      struct sbx_err *err)
{
	static const char *const keys[] = { "timeout", "cpu",	"memory",
					    "nofile",  "nproc", "fsize",
					    NULL };
	uint64_t *dst[] = { &p->limits.timeout, &p->limits.cpu,
			    &p->limits.memory,	&p->limits.nofile,
			    &p->limits.nproc,	&p->limits.fsize };
	static const int unit[] = { 1, 1, 0, 2, 2, 0 };

	if (want(s, CONFIG_TYPE_GROUP, err) < 0 || check_keys(s, keys, err) < 0)
		return -1;
	for (size_t i = 0; keys[i]; i++) {
		const struct sbx_ctn *m = sbx_ct_member(s, keys[i]);

		if (m && get_size(m, dst[i], unit[i], err) < 0)
			return -1;
	}
	return 0;
}

static int sec_fallback(struct sbx_policy *p, const struct sbx_ctn *s,
			struct sbx_err *err)
{
	const char *v;

	if (want(s, CONFIG_TYPE_STRING, err) < 0)
		return -1;
	v = ct_str(s);
	if (strcmp(v, "deny") == 0)
		p->fallback = SBX_FALLBACK_DENY;
	else if (strcmp(v, "warn") == 0)
		p->fallback = SBX_FALLBACK_WARN;
	else
		return cfail(err, s, "fallback must be \"deny\" or \"warn\"");
	return 0;
}

/* inject: what sbxrun-sh does outside a sandbox (README, "Injecting
 * sbxrun"): "each" shell a tool spawns gets a sandbox of its own, the
 * "tool" must run whole in one (sbxrun-sh then refuses to start), or
 * "shim-only" where no sandbox can be made (advisory). */
static int sec_inject(struct sbx_policy *p, const struct sbx_ctn *s,
		      struct sbx_err *err)
{
	const char *v;

	if (want(s, CONFIG_TYPE_STRING, err) < 0)
		return -1;
	v = ct_str(s);
	if (!strcmp(v, "each"))
		p->inject = SBX_INJECT_EACH;
	else if (!strcmp(v, "tool"))
		p->inject = SBX_INJECT_TOOL;
	else if (!strcmp(v, "shim-only"))
		p->inject = SBX_INJECT_SHIM;
	else
		return cfail(err, s,
			     "inject must be \"each\", \"tool\" or "
			     "\"shim-only\"");
	p->inject_src = src_of(s);
	p->inject_src.file = sbx_policy_intern(p, p->inject_src.file);
	return 0;
}

static int sec_caches(struct sbx_policy *p, const struct sbx_ctn *s,
		      struct sbx_err *err)
{
	if (want(s, CONFIG_TYPE_BOOL, err) < 0)
		return -1;
	p->redirect_caches = ct_bool(s);
	return 0;
}

/* "profile" is handled before the sections (it picks the base). */
static int sec_profile(struct sbx_policy *p, const struct sbx_ctn *s,
		       struct sbx_err *err)
{
	return want(s, CONFIG_TYPE_STRING, err);
}

static const struct section {
	const char *name;
	int (*apply)(struct sbx_policy *, const struct sbx_ctn *,
		     struct sbx_err *);
} sections[] = {
	{ "profile", sec_profile },
	{ "paths", sec_paths },
	{ "protect", sec_protect },
	{ "network", sec_network },
	{ "exec", sec_exec },
	{ "env", sec_env },
	{ "limits", sec_limits },
	{ "fallback", sec_fallback },
	{ "redirect_caches", sec_caches },
	{ "inject", sec_inject },
};

static int apply_config(struct sbx_policy *p, const struct sbx_ct *c,
			struct sbx_err *err)
{
	const struct sbx_ctn *root = sbx_ct_root(c);

	for (int i = 0; i < ct_len(root); i++) {
		const struct sbx_ctn *s = sbx_ct_elem(root, (unsigned)i);
		const char *name = ct_name(s);
		size_t k, n = sizeof(sections) / sizeof(sections[0]);

		for (k = 0; k < n; k++)
			if (strcmp(name, sections[k].name) == 0)
				break;
		if (k == n)
			return cfail(err, s,
				     "unknown key '%s' (known: profile, "
				     "paths, protect, network, exec, env, "
				     "limits, fallback, redirect_caches, "
				     "inject)",
				     name);
		if (sections[k].apply(p, s, err) < 0)
			return -1;
	}
	return 0;
}

/* ------------------------------------------------------------ files */

/* "@include" would pull in a file that neither trust (a hash of one file)
 * nor "every conf is read-only inside the sandbox" covers.  libconfig 1.5
 * has no switch for it, so refuse the directive before parsing. */
static int has_include(const char *path, const char *text, struct sbx_err *err)
{
	int n = 1;

	for (const char *l = text; l; l = strchr(l, '\n'), n++) {
		l += *l == '\n';
		l += strspn(l, " \t");
		if (strncmp(l, "@include", 8) == 0) {
			sbx_errf_at(err, path, n,
				    "@include is not supported in sbxrun conf "
				    "files");
			return 1;
		}
	}
	return 0;
}

/* Parse bytes already in memory (CONF-01: never the file again), or take
 * the tree kept for those very bytes (confcache.h).  name names the
 * source; it must outlive c (the policy interns it). */
static int read_config(struct sbx_ct *c, const char *name, const char *text,
		       struct sbx_err *err)
{
	unsigned char key[16];
	config_t lc;
	int r;

	if (has_include(name, text, err))
		return -1;
	if (sbx_confcache_get(text, name, c, key) == 0)
		return 0;
	config_init(&lc);
	config_set_options(&lc, CONFIG_OPTION_AUTOCONVERT);
	if (!config_read_string(&lc, text)) {
		sbx_errf_at(
			err,
			config_error_file(&lc) ? config_error_file(&lc) : name,
			config_error_line(&lc), "%s", config_error_text(&lc));
		config_destroy(&lc);
		return -1;
	}
	r = sbx_ct_from_config(c, &lc, key, name);
	config_destroy(&lc);
	if (r < 0)
		return sbx_errf(err, ENOMEM, "%s", name);
	sbx_confcache_put(c, key);
	return 0;
}

/* Read a file once and parse its bytes. */
static int read_config_file(struct sbx_ct *c, const char *path,
			    struct sbx_err *err)
{
	char *text = NULL;
	int r = sbx_conf_read(path, &text, err);

	if (r == 1)
		return sbx_errf(err, ENOENT, "%s: cannot read", path);
	if (r == 0)
		r = read_config(c, path, text, err);
	free(text);
	return r;
}

/* libconfig remembers the file name of settings only for files; for
 * strings we name the source ourselves (the tree's file). */
int sbx_conf_load_string(struct sbx_policy *p, const char *text,
			 const char *name, struct sbx_err *err)
{
	struct sbx_ct c;
	int r;

	if (read_config(&c, name, text, err) < 0)
		return -1;
	r = apply_config(p, &c, err);
	sbx_ct_free(&c);
	return r;
}

int sbx_conf_load_file(struct sbx_policy *p, const char *path,
		       struct sbx_err *err)
{
	struct sbx_ct c;
	int r;

	if (read_config_file(&c, path, err) < 0)
		return -1;
	r = apply_config(p, &c, err);
	sbx_ct_free(&c);
	return r;
}

/* The profile named in a conf file, or NULL. */
static const char *profile_of(const struct sbx_ct *c)
{
	const struct sbx_ctn *v = sbx_ct_member(sbx_ct_root(c), "profile");

	return v && v->type == CONFIG_TYPE_STRING ? v->str : NULL;
}

static int profile_path(const struct sbx_locs *l, const char *name, char *out,
			size_t outsz, struct sbx_err *err)
{
	if (strchr(name, '/')) {
		snprintf(out, outsz, "%s", name);
		return 0;
	}
	for (const char *c = name; *c; c++)
		if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') ||
		      (*c >= '0' && *c <= '9') || *c == '-' || *c == '_'))
			goto bad;
	if (!*name)
		goto bad;
	snprintf(out, outsz, "%s/profiles/%s.conf", l->config_dir, name);
	if (access(out, R_OK) == 0)
		return 0;
	snprintf(out, outsz, "%s/%s.conf", l->profile_dir, name);
	if (access(out, R_OK) == 0)
		return 0;
	return sbx_errf(err, 0,
			"unknown profile '%s' (looked in "
			"%s/profiles and %s)",
			name, l->config_dir, l->profile_dir);
bad:
	return sbx_errf(err, 0, "bad profile name '%s'", name);
}

/* Load a profile, first the profile it extends (bounded depth). */
static int load_profile(struct sbx_policy *p, const struct sbx_locs *l,
			const char *name, int depth, struct sbx_err *err)
{
	char path[PATH_MAX];
	const char *base;
	struct sbx_ct c;
	int r = -1;

	if (depth > MAX_PROFILE_DEPTH) {
		return sbx_errf(err, 0,
				"profile '%s': profiles "
				"extend each other more than %d deep (a loop?)",
				name, MAX_PROFILE_DEPTH);
	}
	if (profile_path(l, name, path, sizeof(path), err) < 0 ||
	    read_config_file(&c, path, err) < 0)
		return -1;
	sbx_strv_add(p, &p->conf_files, path, (struct sbx_src){ path, 0 });
	base = profile_of(&c);
	if (base && strcmp(base, name) != 0 &&
	    load_profile(p, l, base, depth + 1, err) < 0)
		goto out;
	r = apply_config(p, &c, err);
out:
	sbx_ct_free(&c);
	return r;
}

struct tier {
	const char *path;
	int present;
	struct sbx_ct c;
	char *text; /* the bytes read, hashed and parsed */
	char buf[PATH_MAX];
};

static int read_tiers(struct sbx_policy *p, const struct sbx_locs *l,
		      const struct sbx_opts *o, struct tier *t,
		      struct sbx_err *err)
{
	unsigned fl = o ? o->flags : 0;

	t[0].path = (fl & SBX_OPT_NO_SYSTEM_CONF) ? NULL : l->system_conf;
	snprintf(t[1].buf, sizeof(t[1].buf), "%s/config", l->config_dir);
	t[1].path = (fl & SBX_OPT_NO_USER_CONF) ? NULL : t[1].buf;
	t[2].path = (fl & SBX_OPT_NO_USER_CONF) ? NULL : l->project_conf;
	t[3].path = NULL;
	if (!(fl & SBX_OPT_NO_USER_CONF)) {
		if (sbx_conf_inrepo_trusted(p, l, &t[3].text, err) < 0)
			return -1;
		if (t[3].text)
			t[3].path = l->inrepo_conf;
	}
	for (int i = 0; i < 4; i++) {
		int r = 0;

		if (!t[i].path)
			continue;
		if (!t[i].text)
			r = sbx_conf_read(t[i].path, &t[i].text, err);
		if (r == 1)
			continue;
		if (r < 0 ||
		    read_config(&t[i].c, t[i].path, t[i].text, err) < 0)
			return -1;
		t[i].present = 1;
	}
	return 0;
}

static void builtin_protect(struct sbx_policy *p, const struct sbx_locs *l)
{
	struct sbx_src bi = { "built-in", 0 };

	/* Every conf file is read-only inside the sandbox (DESIGN 6). */
	sbx_strv_add(p, &p->protect, l->config_dir, bi);
	sbx_strv_add(p, &p->protect, l->inrepo_conf, bi);
	sbx_strv_add(p, &p->protect, "/etc/sbxrun", bi);
	/* A .git that is a file (worktree, submodule checkout):
	 * rewriting it as a gitfile would point the next git run outside at
	 * a planted repository with core.fsmonitor.  A .git directory keeps
	 * only hooks/config/... read-only (objects must stay writable). */
	{
		char g[PATH_MAX];
		struct stat st;

		snprintf(g, sizeof(g), "%s/.git", l->project);
		if (lstat(g, &st) == 0 && !S_ISDIR(st.st_mode))
			sbx_strv_add(p, &p->protect, g, bi);
	}
	/* git's indirections: commondir, worktrees, submodules, includes
	 * (GIT-01, gitrepo.c). */
	sbx_git_protect(p, l->project, l->home);
	/* The launcher's own state (run dirs with compiled policies). */
	{
		char st[PATH_MAX];

		snprintf(st, sizeof(st), "%s/.cache/sbxrun/run", l->home);
		sbx_strv_add(p, &p->protect, st, bi);
	}
}

int sbx_conf_load(struct sbx_policy *p, const struct sbx_locs *l,
		  const struct sbx_opts *o, struct sbx_err *err)
{
	struct tier *t = calloc(4, sizeof(*t));
	const char *profile = o && o->profile ? o->profile : NULL;
	int r = -1;

	if (!t) {
		return sbx_errf(err, 0, "out of memory");
	}
	p->project = strdup(l->project);
	p->home = strdup(l->home);
	p->home_pw = l->account_home[0] ? strdup(l->account_home) : NULL;
	/* Inside another sandbox the home is the outer run's to grant: the
	 * caches stay where the outer run pointed them (its variables). */
	p->cache_dir = sbx_inside() ? NULL : strdup(l->cache_dir);
	sbx_conf_project_memo(1);
	if (read_tiers(p, l, o, t, err) < 0)
		goto out;
	for (int i = 0; i < 4 && !profile; i++)
		if (t[3 - i].present)
			profile = profile_of(&t[3 - i].c);
	if (!profile)
		profile = "default";
	free(p->profile);
	p->profile = strdup(profile);
	if (load_profile(p, l, profile, 0, err) < 0)
		goto out;
	for (int i = 0; i < 4; i++)
		if (t[i].present && apply_config(p, &t[i].c, err) < 0)
			goto out;
	if (sbx_env_hides(p, err) < 0)
		goto out;
	builtin_protect(p, l);
	r = 0;
out:
	sbx_conf_project_memo(0);
	for (int i = 0; i < 4; i++) {
		if (t[i].present)
			sbx_ct_free(&t[i].c);
		free(t[i].text);
	}
	free(t);
	return r;
}
