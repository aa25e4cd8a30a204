/*
 * hook.c - sbxrun --hook claude-code: Claude Code's PreToolUse hook
 * protocol.
 *
 * Input (stdin): { "hook_event_name": "PreToolUse", "tool_name": "Bash",
 * "tool_input": { "command": "...", ... }, "cwd": "/abs", ... }.
 *
 * Output (stdout, exit 0), one of:
 *  - nothing: not the shell tool; no decision, the agent goes on as usual;
 *  - allow, with updatedInput = tool_input (every field kept) whose command
 *    is rewritten to run under this sbxrun binary with the project's
 *    policy (hook_shell.c: sbx_hook_rewrite);
 *  - deny, with the reason: a program the exec rules refuse (the shim's
 *    own sentence), a policy that does not load (a bad conf, $HOME as the
 *    project), a command too long to rewrite, or input that is not what
 *    the protocol promises (fail closed: never an unsandboxed command).
 *
 * Denials are JSON with exit 0, the protocol's structured form: the agent
 * shows permissionDecisionReason to the model.  Exit 2 (a blocking error,
 * reason on stderr) is kept for what cannot be answered in JSON: an unknown
 * agent or hook event (the answer would be in the wrong shape), and no
 * memory to build an answer.  Nothing here ever runs a command.
 */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "die.h"
#include "hook.h"
#include "sbx_cli.h"

#define EXIT_BLOCK 2

static const char nomem_msg[] =
	"sbxrun: hook: out of memory; blocking the call\n";

/* A JSON string from text that may hold bytes that are not UTF-8 (file
 * names from a conf, jansson's error text): those become '?'. */
static json_t *jstr(const char *s)
{
	json_t *j = json_string(s);
	char *c;

	if (j)
		return j;
	c = strdup(s);
	if (!c)
		return NULL;
	for (unsigned char *p = (unsigned char *)c; *p; p++)
		if (*p >= 0x80 || (*p < 0x20 && *p != '\n' && *p != '\t'))
			*p = '?';
	j = json_string(c);
	free(c);
	return j;
}

/* {"hookSpecificOutput": {"hookEventName": "PreToolUse",
 *  "permissionDecision": decision, "permissionDecisionReason": reason
 *  [, "updatedInput": input]}} + "\n".  Steals input. */
static char *decision(const char *dec, const char *reason, json_t *input)
{
	json_t *root = json_object(), *h = json_object();
	char *txt = NULL, *out = NULL;

	if (!root || !h ||
	    json_object_set_new(h, "hookEventName",
				json_string("PreToolUse")) ||
	    json_object_set_new(h, "permissionDecision", json_string(dec)) ||
	    json_object_set_new(h, "permissionDecisionReason", jstr(reason)) ||
	    (input && json_object_set(h, "updatedInput", input)) ||
	    json_object_set(root, "hookSpecificOutput", h))
		goto out;
	txt = json_dumps(root, JSON_COMPACT);
	if (txt && asprintf(&out, "%s\n", txt) < 0)
		out = NULL;
out:
	free(txt);
	json_decref(input);
	json_decref(h);
	json_decref(root);
	return out;
}

static int deny(char **out, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static int deny(char **out, const char *fmt, ...)
{
	char reason[2048];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(reason, sizeof(reason), fmt, ap);
	va_end(ap);
	*out = decision("deny", reason, NULL);
	if (*out)
		return 0;
	*out = strdup(nomem_msg);
	return EXIT_BLOCK;
}

static int block(char **out, const char *msg)
{
	*out = strdup(msg);
	return EXIT_BLOCK;
}

/* ------------------------------------------------------------ pre-check */

struct precheck {
	sbx_t *s;
	struct sbx_answer ans;
};

static int check_one(void *ctx, char *const argv[])
{
	struct precheck *pc = ctx;
	int i = sbx_hook_program(argv);

	if (i < 0)
		return 0;
	if (sbx_check_exec(pc->s, argv + i, &pc->ans) != SBX_OK)
		return 0;
	return pc->ans.allowed ? 0 : 1;
}

/* ------------------------------------------------------------ the answer */

static const char *str_field(json_t *o, const char *key)
{
	return json_string_value(json_object_get(o, key));
}

/* The agent works in $HOME, which is never the writable project (every
 * dotfile would be writable): every command is denied, so say what to do.
 * A "cd" in the command does not help (the project is the hook's cwd). */
static const char home_hint[] =
	". The agent is working in your home directory, so every shell "
	"command is denied: start the agent from a project directory "
	"(cd ~/src/app && claude), or give the hook a project in its "
	"settings (sbxrun --workdir DIR --hook claude-code)";

static int is_home(const char *dir)
{
	const char *h = getenv("HOME");
	char a[PATH_MAX], b[PATH_MAX];

	return h && *h && realpath(dir, a) && realpath(h, b) &&
	       strcmp(a, b) == 0;
}

/* The policy of the project the agent works in, or a denial (*out set,
 * the exit code returned through *r). */
static sbx_t *hook_policy(json_t *in, struct sbx_opts *o, const char *sbxrun,
			  char **out, int *r)
{
	const char *cwd = str_field(in, "cwd");
	char err[1200];
	sbx_t *s;

	if (!o->project_dir) {
		if (!cwd || cwd[0] != '/') {
			*r = deny(out, "sbxrun hook: the PreToolUse input "
				       "has no absolute cwd, so the project is "
				       "unknown; refusing to run the command "
				       "unsandboxed");
			return NULL;
		}
		o->project_dir = cwd;
	}
	if (!sbxrun || sbxrun[0] != '/' || access(sbxrun, X_OK) != 0) {
		*r = deny(out,
			  "sbxrun hook: cannot find the sbxrun binary "
			  "to run the command with (%s)",
			  sbxrun ? sbxrun : "unknown");
		return NULL;
	}
	if (sbx_open(&s, o, err, sizeof(err)) != SBX_OK) {
		*r = deny(out,
			  "sbxrun: cannot load the sandbox policy for "
			  "%s: %s%s",
			  o->project_dir, err,
			  is_home(o->project_dir) ? home_hint : "");
		return NULL;
	}
	return s;
}

/* Allow, with tool_input's command replaced by rew; the reason says where
 * it runs and what the policy warned about. */
static int allow_rewritten(json_t *ti, sbx_t *s, char *rew, char **out)
{
	struct sbx_cli_info info;
	char reason[1400];
	const char *w;
	json_t *upd;

	sbx_cli_info(s, &info);
	snprintf(reason, sizeof(reason),
		 "sbxrun: the command runs in the "
		 "sandbox (profile %s, project %s); refusals are explained "
		 "on stderr",
		 info.profile, info.project);
	for (size_t i = 0; (w = sbx_warning(s, i)); i++) {
		size_t n = strlen(reason);

		snprintf(reason + n, sizeof(reason) - n, "; warning: %s", w);
	}
	upd = json_deep_copy(ti);
	if (!upd || json_object_set_new(upd, "command", json_string(rew))) {
		json_decref(upd);
		return block(out, nomem_msg);
	}
	*out = decision("allow", reason, upd);
	return *out ? 0 : block(out, nomem_msg);
}

/* The shell tool: allow with the rewritten command, or deny. */
static int answer_bash(json_t *in, const struct sbx_opts *opts,
		       const char *sbxrun, char **out)
{
	json_t *ti = json_object_get(in, "tool_input"), *cmdj;
	struct sbx_opts o = opts ? *opts : (struct sbx_opts){ 0 };
	struct precheck pc = { 0 };
	const char *cmd;
	char *rew;
	size_t len;
	int r = EXIT_BLOCK; /* hook_policy() sets it on a denial */

	if (!json_is_object(ti))
		return deny(out,
			    "sbxrun hook: the PreToolUse input has no "
			    "tool_input object; refusing to run the command "
			    "unsandboxed");
	cmdj = json_object_get(ti, "command");
	if (!json_is_string(cmdj))
		return deny(out,
			    "sbxrun hook: tool_input.command is missing "
			    "or not a string; refusing to run it unsandboxed");
	cmd = json_string_value(cmdj);
	len = json_string_length(cmdj);
	if (!(pc.s = hook_policy(in, &o, sbxrun, out, &r)))
		return r;
	r = sbx_hook_commands(cmd, len, check_one, &pc);
	rew = r ? NULL : sbx_hook_rewrite(sbxrun, o.project_dir, cmd, len, &o);
	if (r > 0)
		r = deny(out, "%s", pc.ans.reason);
	else if (!rew)
		r = block(out, nomem_msg);
	else if (strlen(rew) > SBX_HOOK_MAX_REWRITTEN)
		r = deny(out,
			 "sbxrun hook: the command is %zu bytes; run "
			 "in the sandbox it would be %zu bytes, over the "
			 "%u-byte limit of one shell argument. Write long "
			 "scripts to a file in the project and run the "
			 "file",
			 len, strlen(rew), SBX_HOOK_MAX_REWRITTEN);
	else
		r = allow_rewritten(ti, pc.s, rew, out);
	free(rew);
	sbx_close(pc.s);
	return r;
}

int sbx_hook_answer_exe(const char *json, size_t len,
			const struct sbx_opts *opts, const char *sbxrun,
			char **out)
{
	json_error_t jerr;
	json_t *in;
	const char *ev, *tool;
	int r;

	*out = NULL;
	if (len > SBX_HOOK_MAX_INPUT)
		return deny(out,
			    "sbxrun hook: the hook input is over %u "
			    "bytes; refusing to run the command unsandboxed",
			    SBX_HOOK_MAX_INPUT);
	in = json_loadb(json, len, JSON_REJECT_DUPLICATES, &jerr);
	if (!in)
		return deny(out,
			    "sbxrun hook: the hook input is not valid "
			    "JSON (line %d, column %d: %s); refusing to run "
			    "the command unsandboxed",
			    jerr.line, jerr.column, jerr.text);
	if (!json_is_object(in)) {
		json_decref(in);
		return deny(out,
			    "sbxrun hook: the hook input is not a JSON "
			    "object; refusing to run the command unsandboxed");
	}
	ev = str_field(in, "hook_event_name");
	tool = str_field(in, "tool_name");
	if (!ev || !tool) {
		json_decref(in);
		return deny(out,
			    "sbxrun hook: the hook input has no %s; "
			    "refusing to run the command unsandboxed",
			    !ev ? "hook_event_name" : "tool_name");
	}
	if (strcmp(ev, "PreToolUse") != 0) {
		char msg[512];

		snprintf(msg, sizeof(msg),
			 "sbxrun --hook claude-code answers "
			 "PreToolUse only, not '%.200s'; install it with "
			 "scripts/install-hook.sh\n",
			 ev);
		json_decref(in);
		return block(out, msg);
	}
	if (strcmp(tool, "Bash") != 0) { /* no decision */
		json_decref(in);
		return 0;
	}
	r = answer_bash(in, opts, sbxrun, out);
	json_decref(in);
	return r;
}

static int self_exe(char *buf, size_t sz)
{
	ssize_t n = readlink("/proc/self/exe", buf, sz - 1);

	if (n <= 0 || (size_t)n >= sz - 1)
		return -1;
	buf[n] = '\0';
	return 0;
}

int sbx_hook_answer(const char *json, size_t len, const struct sbx_opts *opts,
		    char **out)
{
	char exe[PATH_MAX];

	return sbx_hook_answer_exe(json, len, opts,
				   self_exe(exe, sizeof(exe)) == 0 ? exe : NULL,
				   out);
}

/* ------------------------------------------------------------ main */

/* All of stdin, up to limit + 1 bytes (so that "too large" shows). */
static char *read_all(int fd, size_t limit, size_t *len, int *err)
{
	size_t cap = 65536, n = 0;
	char *buf = malloc(cap);

	*err = 0;
	while (buf) {
		ssize_t r;

		if (n == cap) {
			char *nb;

			if (cap > limit)
				break;
			cap *= 2;
			nb = realloc(buf, cap);
			if (!nb) {
				free(buf);
				return NULL;
			}
			buf = nb;
		}
		r = read(fd, buf + n, cap - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			*err = errno;
			break;
		}
		if (r == 0)
			break;
		n += (size_t)r;
	}
	*len = n;
	return buf;
}

static int write_all(int fd, const char *s)
{
	size_t n = strlen(s);

	while (n > 0) {
		ssize_t w = write(fd, s, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		s += w;
		n -= (size_t)w;
	}
	return 0;
}

/* The hard deadline (THREATS CONF-03): an agent lets a hook that times
 * out through, and the command then runs with no sandbox at all.  Whatever
 * holds the hook up (stdin never closed, a conf that cannot be read, a
 * slow disk), after SBX_HOOK_DEADLINE seconds it denies with the reason,
 * well before the timeout install-hook.sh gives the agent. */
static char *deadline_answer;

static void deadline_hit(int sig)
{
	const char *s = deadline_answer;
	size_t n = s ? strlen(s) : 0;

	(void)sig;
	while (n > 0) {
		ssize_t w = write(STDOUT_FILENO, s, n);

		if (w <= 0)
			break;
		s += w;
		n -= (size_t)w;
	}
	_exit(s && n == 0 ? 0 : EXIT_BLOCK);
}

static void arm_deadline(void)
{
	struct sigaction sa;

	deny(&deadline_answer,
	     "sbxrun hook: no answer within %d seconds (the hook input "
	     "or the project's conf could not be read in time); refusing "
	     "to run the command unsandboxed",
	     SBX_HOOK_DEADLINE);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = deadline_hit;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGALRM, &sa, NULL);
	alarm(SBX_HOOK_DEADLINE);
}

/* The answer is ready: the deadline can no longer write a second one. */
static void disarm_deadline(void)
{
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGALRM);
	sigprocmask(SIG_BLOCK, &set, NULL);
	alarm(0);
}

int sbx_hook_main(const char *agent, const struct sbx_opts *opts)
{
	char *in, *out = NULL;
	size_t len = 0;
	int rerr, r;

	/* A hook that dies of a signal is a "non-blocking error" to the
	 * agent: the command would run unsandboxed.  Never die of EPIPE. */
	signal(SIGPIPE, SIG_IGN);
	if (!agent || strcmp(agent, "claude-code") != 0) {
		note("--hook %s: unknown agent; the hook protocol supported "
		     "is claude-code (blocking the call)",
		     agent ? agent : "");
		return EXIT_BLOCK;
	}
	arm_deadline();
	if (isatty(STDIN_FILENO))
		note("--hook claude-code: reading the PreToolUse JSON on "
		     "stdin");
	in = read_all(STDIN_FILENO, SBX_HOOK_MAX_INPUT, &len, &rerr);
	if (!in) {
		fputs(nomem_msg, stderr);
		return EXIT_BLOCK;
	}
	if (rerr)
		r = deny(&out,
			 "sbxrun hook: cannot read the hook input: %s; "
			 "refusing to run the command unsandboxed",
			 strerror(rerr));
	else
		r = sbx_hook_answer(in, len, opts, &out);
	free(in);
	disarm_deadline();
	if (!out && r != 0) {
		fputs(nomem_msg, stderr);
		return EXIT_BLOCK;
	}
	if (out && write_all(r == 0 ? STDOUT_FILENO : STDERR_FILENO, out) < 0) {
		note("hook: cannot write the answer: %s; blocking the call",
		     strerror(errno));
		r = EXIT_BLOCK;
	}
	free(out);
	return r;
}
