/*
 * policy.h - the sbxrun policy engine: one in-memory policy, built by the
 * conf loader and the command line, read by the kernel backends, the query
 * API and (after compilation, see cpol.h) by the shim.
 *
 * The engine is pure: no printing, no exit(), no environment reads except
 * where a function says so.  Errors come back as -1 with a message in a
 * caller-supplied buffer (struct sbx_err).
 */
#ifndef SBX_POLICY_H
#define SBX_POLICY_H

#include <stddef.h>
#include <stdint.h>

#include "err.h"
#include "match.h"

/* Path rule modes.  The numeric order is the tie-break order at equal root
 * length: a larger value wins (hide > ro > rw). */
enum sbx_pmode {
	SBX_RW = 1,
	SBX_RO = 2,
	SBX_HIDE = 3,
};

/* Where a rule came from: the conf file (or "--flag"/"built-in") and line. */
struct sbx_src {
	const char *file; /* interned in the policy's string pool */
	int line;
};

/* Rule flags. */
#define SBX_RF_PROTECT 0x1u /* came from a protect entry */
#define SBX_RF_PROJECT 0x2u /* the project directory itself */
#define SBX_RF_FLAG 0x4u /* set on the command line */
#define SBX_RF_TMP 0x8u /* the private /tmp */
#define SBX_RF_SECRET 0x10u /* a hidden secret (for messages) */
#define SBX_RF_ABSENT \
	0x20u /* protected path missing at launch: nothing
				 * can be mounted there; reported if created */
#define SBX_RF_KMODE \
	0x40u /* added for the kernel mode (landlock-only's
				 * /dev/pts and /dev/shm): not a secret */
#define SBX_RF_MKDIR \
	0x100u /* --allow-write PATH/: made as a directory
				 * when missing at launch */
#define SBX_RF_GONE \
	0x80u /* hidden path missing at launch: a refusal
				 * there is of nothing, and not explained */
#define SBX_RF_HOMEREL 0x200u /* written under the home: "~/..." */
#define SBX_RF_CACHE \
	0x400u /* the project's sandbox cache (redirect_caches):
				 * the tools' own, not listed as "writable" */

#define SBX_MAX_SUFFIXES 16

struct sbx_path_rule {
	char *root; /* absolute, normalised, no trailing slash
				 * except for "/" itself */
	size_t rootlen;
	enum sbx_pmode mode;
	unsigned flags;
	char *suffixes[SBX_MAX_SUFFIXES]; /* allowed endings, e.g. ".md" */
	size_t nsuffixes;
	uint64_t max_file_bytes; /* 0: no limit */
	struct sbx_src src;
};

/* An exec deny rule: program is an fnmatch(3) pattern matched against the
 * basename of argv[0] and of the resolved path, or against the full path
 * when it contains a '/'.  Every pattern in args must match at least one
 * of argv[1..].  With no args the program alone decides. */
#define SBX_MAX_EXEC_ARGS 8
struct sbx_exec_rule {
	char *program;
	char *args[SBX_MAX_EXEC_ARGS];
	size_t nargs;
	char *reason;
	struct sbx_src src;
};

enum sbx_net {
	SBX_NET_OFF = 0,
	SBX_NET_LOOPBACK = 1,
	SBX_NET_ON = 2,
	SBX_NET_FILTERED = 3, /* allow-list, through the supervisor's proxy */
};

/* One parsed network allow-list entry. */
struct sbx_net_allow {
	char *text; /* as written */
	char *host; /* "example.com", "*.github.com", or an address */
	int is_cidr;
	int prefix; /* CIDR prefix length when is_cidr */
	uint16_t port; /* 0: any */
	struct sbx_src src; /* for a preset's entry: where "@name" was used */
	const char *preset; /* "npm" when it came from "@npm", else NULL
			     * (interned) */
};

/* A named list of allow entries, used as "@name" (netallow.h). */
struct sbx_net_preset {
	char *name; /* without the '@' */
	char **entries;
	size_t n;
	struct sbx_src src; /* where it was defined */
};

enum sbx_fallback {
	SBX_FALLBACK_DENY = 0,
	SBX_FALLBACK_WARN = 1,
};

enum sbx_kmode {
	SBX_KMODE_AUTO = 0,
	SBX_KMODE_FULL = 1,
	SBX_KMODE_LANDLOCK = 2, /* landlock-only */
};

/* inject = "each" (a sandbox per shell a tool starts), "tool" (only the
 * whole tool in one: sbxrun-sh outside a sandbox refuses), "shim-only"
 * (sbxrun-sh runs as sbxrun --shim-only: advisory). */
#define SBX_INJECT_EACH 0
#define SBX_INJECT_TOOL 1
#define SBX_INJECT_SHIM 2

struct sbx_limits {
	uint64_t timeout; /* seconds, 0 = none */
	uint64_t cpu; /* seconds, 0 = none */
	uint64_t memory; /* bytes of address space, 0 = none */
	uint64_t nofile;
	uint64_t nproc;
	uint64_t fsize; /* bytes, 0 = none */
};

/* A growable array of strings with a source per entry. */
struct sbx_strv {
	char **v;
	struct sbx_src *src;
	size_t n, cap;
};

struct sbx_policy {
	struct sbx_path_rule *rules;
	size_t nrules, caprules;

	struct sbx_strv protect; /* as written; resolved into rules by
					 * sbx_policy_finish() */
	struct sbx_exec_rule *exec;
	size_t nexec, capexec;

	enum sbx_net net;
	struct sbx_src net_src;
	struct sbx_net_allow *allow;
	size_t nallow, capallow;
	struct sbx_strv unix_sockets; /* allowed pathname sockets */
	struct sbx_net_preset *presets; /* "@name" lists (netallow.h) */
	size_t npresets;

	struct sbx_strv env_keep, env_drop; /* fnmatch patterns */
	struct sbx_limits limits;
	enum sbx_fallback fallback;
	/* inject: what sbxrun-sh does outside a sandbox (SBX_INJECT_*) */
	int inject;
	struct sbx_src inject_src;
	enum sbx_kmode kmode;
	char *profile; /* name of the profile in force */

	char *project; /* realpath of the project directory */
	char *home; /* $HOME, normalised */
	char *home_pw; /* the account's home (/etc/passwd) when it is not
			* home, or NULL: "~" hides and read-only rules hold
			* under both (SEC-11) */
	char *cache_dir; /* the project's sandbox cache dir, or NULL */
	int redirect_caches; /* point tools' cache vars at cache_dir */
	int allow_unsafe_project; /* --force: / or $HOME as project */
	struct sbx_strv warnings; /* "file:line: text" */
	/* every conf and profile file the policy was read from but the
	 * trusted in-repo conf (whose bytes trust binds): none may be
	 * writable inside the sandbox (CONF-02, launcher/lib/selfcheck.c) */
	struct sbx_strv conf_files;
	int quiet; /* no explanations on stderr */
	int explain_to_report_only;

	/* interned strings (file names) live here */
	char **pool;
	size_t npool, cappool;

	/* Private to policy.c: rules by root (open addressing, slot = rule
	 * index + 1), so that adding n rules costs n lookups rather than n²
	 * string compares.  rules[0..rixn) are indexed; rixn = 0 after a
	 * removal means "rebuild on next use". */
	uint32_t *rix;
	size_t rixcap, rixn;
};

/* Decision for one path and operation. */
enum sbx_op {
	SBX_OP_READ = 1,
	SBX_OP_WRITE = 2, /* includes create, remove, rename into */
	SBX_OP_EXEC = 3,
};

enum sbx_verdict {
	SBX_ALLOW = 0,
	SBX_DENY_HIDDEN = 1, /* path is hidden */
	SBX_DENY_READONLY = 2, /* write to a read-only path */
	SBX_DENY_SUFFIX = 3, /* suffix not allowed under its root */
	SBX_DENY_SIZE = 4, /* over max_file_bytes */
	SBX_DENY_NOTCOVERED = 5, /* no rule covers it (strict profiles) */
	SBX_DENY_SHARED = 6, /* a write to a file with other hard links */
};

/* Lifecycle */
void sbx_policy_init(struct sbx_policy *p);
void sbx_policy_free(struct sbx_policy *p);
const char *sbx_policy_intern(struct sbx_policy *p, const char *s);

/* Path normalisation (path.c).  Returns 0 and writes a NUL-terminated
 * absolute path into out (size outsz), or -1 with errno (ENAMETOOLONG,
 * EINVAL).  '~' and '~/' expand to home; a relative path is taken
 * relative to base.  "." and ".." are applied lexically, repeated slashes
 * collapse.  With resolve != 0 symlinks are resolved for the longest
 * existing prefix and the non-existent tail is kept lexically. */
int sbx_path_norm(const char *in, const char *base, const char *home,
		  int resolve, char *out, size_t outsz);
/* Lexical only, no allocation, no syscalls; for the shim.  out must not
 * overlap in or base. */
int sbx_path_lex(const char *in, const char *base, char *out, size_t outsz);

/* dircache.c: missing paths answered from one listing of their parent
 * (one getdents64 for ~80 hidden names under a home).  Between begin
 * (returns 1 when it made the cache; pass that to end) and end, on this
 * thread: ENOENT or ENOTDIR when the canonical path is known missing,
 * EACCES when a directory on its way cannot be searched (the errno of
 * its lookup; no symlink on the way in all three), 0 when it may exist:
 * look it up. */
int sbx_dircache_begin(void);
/* The same, for names that mostly exist: no directory is listed, only
 * one missing or out of search reach answers for what is below it. */
int sbx_dircache_begin_nolist(void);
void sbx_dircache_end(int began);
int sbx_dircache_absent(const char *path);
/* Is path equal to root or below it?  Both normalised. */
int sbx_path_within(const char *path, const char *root, size_t rootlen);
/* Tree order of normalised paths (path.c): strcmp, except that '/' sorts
 * before every other byte, so a path is followed directly by everything
 * below it ("/a", "/a/b", "/a/c", "/a-b").  Sorting by it turns "which
 * roots lie below this one" into a contiguous run. */
int sbx_path_cmp(const char *a, const char *b);

/* Building */

/* One path rule as a conf file, a flag or a backend states it. */
struct sbx_rule {
	const char *root; /* as written: "~/x", relative to the project,
				 * with "..", through symlinks */
	enum sbx_pmode mode;
	unsigned flags; /* SBX_RF_* */
	const char *const *suffixes; /* allowed endings, or NULL */
	size_t nsuffixes; /* at most SBX_MAX_SUFFIXES */
	uint64_t max_file_bytes; /* 0: no limit */
	struct sbx_src src;
};

/* Add a whole rule (rules.c).  A rule for a root that has one already
 * replaces it when it comes from a later tier (another file); within one
 * file the stronger mode wins (hide > ro > rw); a hidden root is lifted
 * only by a command-line flag (SBX_RF_FLAG), else the rule is dropped
 * with a warning.  0 (added or dropped as just said), or -1 with err
 * (bad path or suffix, no memory).  Everything is copied. */
int sbx_policy_add_rule(struct sbx_policy *p, const struct sbx_rule *r,
			struct sbx_err *err);
/* The same with r->root already resolved into norm (sbx_path_norm of
 * it against the project and home, resolving links), as the caller's
 * check of that very resolution found it; NULL: resolve here. */
int sbx_policy_add_rule_norm(struct sbx_policy *p, const struct sbx_rule *r,
			     const char *norm, struct sbx_err *err);
/* The same for a rule with no suffixes and no size limit. */
int sbx_policy_add_path(struct sbx_policy *p, const char *root,
			enum sbx_pmode mode, unsigned flags, struct sbx_src src,
			struct sbx_err *err);
int sbx_policy_remove_path(struct sbx_policy *p, const char *root);
int sbx_policy_add_exec(struct sbx_policy *p, const char *program,
			const char *const *args, size_t nargs,
			const char *reason, struct sbx_src src,
			struct sbx_err *err);
int sbx_policy_add_allow(struct sbx_policy *p, const char *entry,
			 struct sbx_src src, struct sbx_err *err);
int sbx_strv_add(struct sbx_policy *p, struct sbx_strv *v, const char *s,
		 struct sbx_src src);
int sbx_parse_size(const char *s, uint64_t *out);
int sbx_parse_pmode(const char *s, enum sbx_pmode *out);
int sbx_parse_net(const char *s, enum sbx_net *out);
const char *sbx_pmode_name(enum sbx_pmode m);
const char *sbx_net_name(enum sbx_net n);

/* After all tiers are merged (finish.c): resolve protect entries against
 * the project, add the project and /tmp rules, drop conf rules that would
 * lift a hide, validate.  Returns -1 on error. */
int sbx_policy_finish(struct sbx_policy *p, struct sbx_err *err);

/* A deep copy: dst shares nothing with src (free both).  A new pointer
 * field of struct sbx_policy must be copied here too. */
int sbx_policy_copy(struct sbx_policy *dst, const struct sbx_policy *src,
		    struct sbx_err *err);

/* What one run changes in a finished policy. */
struct sbx_run_adj {
	const struct sbx_rule *extra; /* the kernel mode's own rules */
	size_t nextra;
	uint64_t timeout; /* seconds; 0: the policy's */
};

/* The policy of one launch, made once and then only read: a copy of p
 * with adj applied and every protect rule whose root is missing now
 * marked SBX_RF_ABSENT.  out is freed with sbx_policy_free. */
int sbx_policy_for_run(struct sbx_policy *out, const struct sbx_policy *p,
		       const struct sbx_run_adj *adj, struct sbx_err *err);

/* The rules in tree order of their roots (sbx_path_cmp); at equal roots
 * the rule that decides there comes first (stronger mode, then the
 * earlier rule).  A malloc'd array of p->nrules pointers, NULL when out of
 * memory (or no rules); the caller frees it.  Read-only: p must not
 * change while the array is in use. */
const struct sbx_path_rule **sbx_policy_sorted(const struct sbx_policy *p);

/* The rule that decides for path (normalised, see sbx_path_norm): the
 * longest root that contains it, at equal length the strongest mode.
 * Decisions themselves are decide.h's, over the compiled policy: this
 * lookup is the in-memory reference the compiled one is tested against. */
const struct sbx_path_rule *sbx_policy_match(const struct sbx_policy *p,
					     const char *path);

/* The same rule by walking path's ancestors (path normalised, absolute):
 * each root looked up, rules with a flag in skip passed over.  Index the
 * rules first (sbx_policy_index, after the last change) and it costs the
 * path's depth in lookups instead of a scan of every rule; without the
 * index it is correct but slower.  sbx_policy_index: -1 out of memory. */
const struct sbx_path_rule *sbx_policy_decider(const struct sbx_policy *p,
					       const char *path, unsigned skip);
int sbx_policy_index(struct sbx_policy *p);

/* Environment: should this variable (NAME=value or NAME) be passed? */
int sbx_policy_env_pass(const struct sbx_policy *p, const char *name);
/* Does an env.keep pattern name it (then its value is not judged)? */
int sbx_policy_env_kept(const struct sbx_policy *p, const char *var);

/* Warnings collected while building (ignored rules and the like); the
 * caller prints them. */
void sbx_policy_warn(struct sbx_policy *p, struct sbx_src src, const char *fmt,
		     ...) __attribute__((format(printf, 3, 4)));

#endif
