/*
 * sbx.h - libsbx: run commands in the sbxrun sandbox and ask its policy
 * questions.  The sbxrun command-line tool is built on this API.
 *
 * Conventions
 *  - Every function returns an enum sbx_status (0 = SBX_OK) unless it says
 *    otherwise; on failure a message is written to the caller's errbuf.
 *  - The library never prints: errors go to errbuf, warnings to
 *    sbx_warning() (loading) and the result's warnings (running).
 *  - No global state: everything lives in an sbx_t.  One sbx_t may be used
 *    from several threads at once for queries and sbx_run(); sbx_close()
 *    must not race with other calls on the same handle.  Launches are
 *    serialized inside the library (one sandboxed command at a time per
 *    process): sbx_run() from several threads is safe, but the commands
 *    run one after another, not in parallel.
 *  - Ownership: buffers returned through pointer-to-pointer arguments
 *    belong to the caller and are released with the matching *_free()
 *    function (sbx_result_free, sbx_list_free) or free() where stated.
 */
#ifndef SBX_H
#define SBX_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define SBX_API __attribute__((visibility("default")))

enum sbx_status {
	SBX_OK = 0,
	SBX_E_CONF = 1, /* a conf file or override is invalid */
	SBX_E_KERNEL = 2, /* a required kernel feature is missing */
	SBX_E_ARG = 3, /* bad argument */
	SBX_E_NOMEM = 4,
	SBX_E_IO = 5, /* reading/writing a file failed */
	SBX_E_DENIED = 6, /* the policy refuses the operation */
	SBX_E_RUN = 7, /* could not start the command */
};

/* Kernel mode. */
enum sbx_mode_req {
	SBX_MODE_AUTO = 0,
	SBX_MODE_FULL = 1,
	SBX_MODE_LANDLOCK_ONLY = 2,
};

#define SBX_OPT_NO_SYSTEM_CONF 0x1u /* skip /etc/sbxrun/config */
#define SBX_OPT_NO_USER_CONF 0x2u /* skip user and project confs */
#define SBX_OPT_UNSAFE_PROJECT 0x4u /* allow / or $HOME as project */
#define SBX_OPT_QUIET 0x8u /* shim prints no explanations */

struct sbx_opts {
	const char *profile; /* NULL: from the confs, else "default" */
	const char *project_dir; /* NULL: the current directory */
	const char *home; /* NULL: $HOME */
	const char *config_home; /* NULL: $XDG_CONFIG_HOME or ~/.config */
	const char *system_conf; /* NULL: /etc/sbxrun/config */
	const char *profile_dir; /* NULL: next to the installed binary */
	enum sbx_mode_req mode;
	unsigned flags; /* SBX_OPT_* */
	/* Command-line style overrides, applied last, e.g.
	 * "allow-read=/data", "allow-write=~/notes", "hide=~/.kube",
	 * "net=off|loopback|on|allow:host,host", "timeout=30",
	 * "env-keep=NAME".  NULL-terminated; may be NULL. */
	const char *const *overrides;
};

typedef struct sbx sbx_t;

/* Load and merge the policy exactly as sbxrun does.  On failure *out is
 * NULL and errbuf says which file, line and problem. */
SBX_API int sbx_open(sbx_t **out, const struct sbx_opts *opts, char *errbuf,
		     size_t errlen);
SBX_API void sbx_close(sbx_t *s);

/* A child policy derived from parent, never wider than it: overrides in
 * the syntax of sbx_opts.overrides, limited to "allow-read=",
 * "allow-write=", "hide=", "net=" and "timeout=".  A child may hide
 * more, make less writable, turn the network off or make it loopback,
 * keep fewer allowed hosts, shorten the timeout.  Anything the parent
 * does not grant (reading a path it hides, writing where it is
 * read-only, a more open network, a longer timeout) is refused:
 * SBX_E_DENIED, *child NULL, errbuf naming it.  Works inside a sandbox
 * too (sbx_open there loads the same confs; sbx_run of a policy wider
 * than the sandbox it runs in is refused as well).  Free with
 * sbx_close(). */
SBX_API int sbx_derive(sbx_t *parent, const char *const *overrides,
		       sbx_t **child, char *errbuf, size_t errlen);

/* Warnings produced while loading (ignored rules, untrusted in-repo conf),
 * one per index; NULL past the end.  Owned by s. */
SBX_API const char *sbx_warning(const sbx_t *s, size_t i);

/* ---------------------------------------------------------------- queries */

enum sbx_access {
	SBX_ACCESS_READ = 1,
	SBX_ACCESS_WRITE = 2,
	SBX_ACCESS_EXEC = 3,
};

struct sbx_answer {
	int allowed; /* 1 or 0 */
	char verdict[32]; /* "allowed", "hidden", "read-only", "suffix",
				 * "size", "not-covered", "exec-denied" */
	char path[4096]; /* the resolved path */
	char rule[4096]; /* root of the deciding rule (or program) */
	char mode[8]; /* "rw", "ro", "hide" */
	char source[512]; /* "file:line" of the deciding rule */
	char reason[1024]; /* one sentence, as the shim would print */
};

/* Can this path be read / written / executed?  size < 0: unknown (the
 * file's size is looked up when it exists). */
SBX_API int sbx_check(sbx_t *s, const char *path, enum sbx_access acc,
		      int64_t size, struct sbx_answer *ans);
/* Would this command be refused by an exec rule? */
SBX_API int sbx_check_exec(sbx_t *s, char *const argv[],
			   struct sbx_answer *ans);
/* Normalise a path as the policy sees it (~, relative, .., symlinks). */
SBX_API int sbx_resolve(sbx_t *s, const char *path, char *out, size_t outsz);

/* ---------------------------------------------------------------- file ops
 * Policy-checked file operations for tools that need no shell.  A refusal
 * returns SBX_E_DENIED with ans filled (ans may be NULL). */
SBX_API int sbx_read_file(sbx_t *s, const char *path, size_t max_bytes,
			  char **data, size_t *len, struct sbx_answer *ans);
SBX_API int sbx_write_file(sbx_t *s, const char *path, const void *data,
			   size_t len, struct sbx_answer *ans);
/* The path decided on is opened through no symbolic link (one a sandboxed
 * process swaps in after the check makes the call fail, SBX_E_IO);
 * sbx_read_file refuses a FIFO or socket, sbx_write_file anything but a
 * regular file with one name (a hard link shares it with a place the
 * policy did not decide on).
 * Files under dir (recursively, hidden paths skipped) whose name matches
 * the glob pattern (NULL: all).  *list is NULL-terminated; free it with
 * sbx_list_free(). */
SBX_API int sbx_list_files(sbx_t *s, const char *dir, const char *pattern,
			   char ***list, size_t *n);
SBX_API void sbx_list_free(char **list);

/* ---------------------------------------------------------------- running */

struct sbx_run_req {
	char *const *argv; /* either argv ... */
	const char *shell; /* ... or a shell command string (sh -c) */
	const char *workdir; /* NULL: the project directory */
	double timeout; /* seconds; 0: the policy's timeout */
	const char *stdin_data; /* NULL: /dev/null (capture) or inherited */
	size_t stdin_len;
	int capture; /* 1: capture stdout/stderr into the result;
				 * 0: the command uses the caller's 0/1/2 */
	size_t max_output; /* cap per stream when capturing (0: 1 MiB) */
	int interactive; /* keep the caller's terminal (a shell):
				 * TIOCSTI is blocked instead of setsid() */
	/* Called in the calling thread for each warning as soon as it is
	 * known: before the command starts for what weakens the sandbox
	 * (no shim found, fallback = warn), while it runs for a layer the
	 * kernel could not apply, after it for protected paths that
	 * appeared.  msg has no prefix and no newline.  Every warning is
	 * also in the result's warnings.  May be NULL. */
	void (*on_warning)(void *ctx, const char *msg);
	void *warning_ctx;
};

struct sbx_refusal {
	char *op; /* "read", "write", "exec", "connect", ... */
	char *target; /* path or host:port */
	char *kind; /* "hidden", "read-only", "network-off", ... */
	char *rule; /* deciding rule root or program */
	char *source; /* "file:line" */
	char *process; /* process name */
	char *message; /* the explanation line */
	int pid; /* kernel-attested sender pid */
	unsigned count;
};

struct sbx_result {
	int exit_code; /* what sbxrun exits with (124 timeout, 126,
				 * 127, 128+sig, or the command's status) */
	int status; /* the command's own exit status, or -1 */
	int signal; /* signal that killed it, or 0 */
	int timed_out;
	int exec_errno; /* the command could not be executed (126,
				 * 127): the errno of execve, else 0 */
	double duration; /* seconds */
	char *out, *err; /* captured output (NUL-terminated) or NULL */
	size_t out_len, err_len;
	int out_truncated, err_truncated;
	struct sbx_refusal *refusals;
	size_t nrefusals;
	char **warnings; /* NULL-terminated (may be NULL): things the
				 * caller must hear, e.g. "libsbxshim.so not
				 * found ... NOT enforced", a fallback to
				 * less protection, a protected path created
				 * during the run (see on_warning) */
	char mode[32]; /* "full" or "landlock-only" */
	char layers[256]; /* kernel layers that were active */
	char **env_withheld; /* NULL-terminated (may be NULL): names of
				 * the caller's environment variables the
				 * command did not get, by name (env.drop)
				 * or because the value holds a credential
				 * (never the values) */
};

/* Run a command in the sandbox and wait for it and everything it
 * started.  Returns SBX_OK when the command ran (whatever its status);
 * *res is then owned by the caller (sbx_result_free). */
SBX_API int sbx_run(sbx_t *s, const struct sbx_run_req *req,
		    struct sbx_result **res, char *errbuf, size_t errlen);
SBX_API void sbx_result_free(struct sbx_result *r);

/* The JSON report (schema in the README) of a result; caller frees. */
SBX_API char *sbx_result_json(const struct sbx_result *r, char *const argv[]);

/* ---------------------------------------------------------------- profiles */

/*
 * The policy as a profile for another sandbox, to apply yourself.
 * format "seatbelt": a macOS Seatbelt (SBPL) profile for
 * `sandbox-exec -f FILE COMMAND` (README, "macOS (preview)").  workdir is
 * where the command will start (NULL: the project directory); it must be
 * readable under the policy.  The profile has no private /tmp and no
 * network proxy (those come with a run) and says so in its header.  On
 * SBX_OK *out is a NUL-terminated text of *len bytes (len may be NULL),
 * freed with free().  SBX_E_ARG for an unknown format or a working
 * directory the policy hides.
 */
SBX_API int sbx_profile(sbx_t *s, const char *format, const char *workdir,
			char **out, size_t *len, char *errbuf, size_t errlen);

/*
 * 1 when the calling process already runs inside an sbxrun sandbox, by
 * the kernel's word (the sandbox's seccomp filter answers a question
 * only it knows), never by an environment variable, which anything that
 * spawned the caller could have set: a tool that would wrap a command
 * can run it as it is instead of nesting.  0 outside, or where the
 * sandbox could not load its seccomp layer (fallback = warn).
 */
SBX_API int sbx_inside(void);

SBX_API const char *sbx_strerror(int status);
SBX_API const char *sbx_version(void);

#ifdef __cplusplus
}
#endif

#endif
