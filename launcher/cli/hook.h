/*
 * hook.h - agent pre-tool-use hook mode (sbxrun --hook claude-code).
 *
 * The hook reads the agent's PreToolUse JSON on stdin and answers on
 * stdout.  For the shell tool it allows the call with the command
 * rewritten to run under this sbxrun binary with the project's policy, or
 * denies it (a program the exec rules refuse, a policy that cannot be
 * loaded, malformed input).  Other tools pass through untouched.
 */
#ifndef SBX_HOOK_H
#define SBX_HOOK_H

#include <stddef.h>

#include "sbx.h"

/* Read the hook JSON on stdin, answer on stdout.  Returns the exit code. */
int sbx_hook_main(const char *agent, const struct sbx_opts *opts);

/* Hook input larger than this is refused (deny) without being parsed. */
#define SBX_HOOK_MAX_INPUT (8u << 20)
/* Seconds before the hook denies whatever holds it up (CONF-03); the
 * agent's own timeout (install-hook.sh) is longer. */
#define SBX_HOOK_DEADLINE 5
/* The rewritten command must fit in one argument of execve(2)
 * (MAX_ARG_STRLEN, 128 KiB) with room for the agent's own wrapping;
 * a command whose rewritten form is longer is denied. */
#define SBX_HOOK_MAX_REWRITTEN (120u * 1024u)

/*
 * The whole decision, without I/O: json[0..len) is the hook input (need
 * not be NUL-terminated).  Returns the exit code; *out is the text to
 * print (malloc'ed; NULL: print nothing): on stdout when the exit code is
 * 0, on stderr when it is 2 (a blocking error: an unknown hook event, or
 * no memory to build an answer).  Never runs anything.  The rewritten
 * command names this process's binary (/proc/self/exe).
 */
int sbx_hook_answer(const char *json, size_t len, const struct sbx_opts *opts,
		    char **out);
/* The same with the sbxrun binary to name in the rewritten command. */
int sbx_hook_answer_exe(const char *json, size_t len,
			const struct sbx_opts *opts, const char *sbxrun,
			char **out);

/*
 * The rewritten shell command (malloc'ed, NULL when out of memory):
 *   'SBXRUN' [policy options] --workdir 'CWD' \
 *       --command-base64 'BASE64'   (decoded by sbxrun itself)
 * The command travels base64-encoded: nothing in it is ever parsed by
 * the agent's shell, whatever bytes it holds.  Policy options are those
 * of opts that the command line can express (--profile, --mode, --quiet,
 * --unsafe-project and the overrides), single-quoted.
 */
char *sbx_hook_rewrite(const char *sbxrun, const char *cwd, const char *cmd,
		       size_t len, const struct sbx_opts *opts);

/*
 * Best-effort split of a shell command into its simple commands (on ; & |
 * newlines ( ) $( ` <( >(, respecting quotes, skipping comments and
 * here-document bodies, dropping redirections).  fn gets each one's words
 * with quotes removed, NULL-terminated; a non-zero return stops the walk
 * and is returned.  Returns 0 when every command was seen, -1 when out of
 * memory.  Words are at most what the command holds; nothing is expanded.
 */
typedef int (*sbx_hook_cmd_fn)(void *ctx, char *const argv[]);
int sbx_hook_commands(const char *cmd, size_t len, sbx_hook_cmd_fn fn,
		      void *ctx);

/*
 * The program a simple command runs, skipping assignments, reserved words
 * (if, then, do, !, { ...) and wrappers that run their arguments (exec,
 * command, env, nohup, time, nice, ...).  Returns the index into argv, or
 * -1 when the command runs no program the policy could name (for, case,
 * function definitions, command -v, an empty command).
 */
int sbx_hook_program(char *const argv[]);

/* Quote s for a POSIX shell: '...' with each ' written as '\''. */
char *sbx_sh_quote(const char *s);

/* Strict base64 decoding (sbxrun --command-base64); NULL if invalid. */
char *sbx_base64_decode(const char *s, size_t *outlen);
/* Standard base64 (RFC 4648, with padding, no line breaks); malloc'ed. */
char *sbx_base64(const void *data, size_t len);

#endif
