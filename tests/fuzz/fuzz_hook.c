/*
 * fuzz_hook.c - libFuzzer target for hook mode (launcher/hook.c,
 * launcher/hook_shell.c): the PreToolUse JSON parser and the decision,
 * and the shell lexer of the exec pre-check.
 *
 * Each input is used three ways:
 *  1. as the hook input itself (any bytes);
 *  2. as tool_input.command of a well-formed PreToolUse input for a
 *     scratch project (when the bytes are UTF-8 without NUL, which is all
 *     JSON can carry);
 *  3. as a shell command for sbx_hook_commands / sbx_hook_program.
 * Invariants (abort on violation): the exit code is 0 or 2; exit 0 prints
 * nothing or one JSON object in the protocol's shape; exit 2 prints a
 * reason; an allow carries updatedInput with every tool_input field, and
 * its command is the fixed sbxrun prefix around the base64 of exactly the
 * original command, and fits the length limit; a deny has a reason that
 * starts with "sbxrun".  Leaks and crashes anywhere are bugs.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <jansson.h>

#include "hook.h"

#define EXE "/usr/bin/sbxrun"

static struct sbx_opts opts;
static char profdir[4096];
static const char proj[] = "/tmp/sbxrun-fuzz-hook-proj";

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	const char *top = getenv("SBX_TOP");

	snprintf(profdir, sizeof(profdir), "%s/profiles",
		 top && *top ? top : ".");
	if (mkdir(proj, 0700) < 0 && errno != EEXIST)
		abort();
	opts.profile_dir = profdir;
	opts.system_conf = "/nonexistent/sbxrun/config";
	opts.flags = SBX_OPT_NO_SYSTEM_CONF | SBX_OPT_NO_USER_CONF;
	return 0;
}

/* The answer's shape; returns the decision's updatedInput.command or
 * NULL, and sets *allow. */
static void check_answer(int rc, const char *out, json_t *tool_input,
			 const char *cmd, size_t cmdlen)
{
	json_t *a, *h, *upd;
	const char *dec, *why;

	if (rc == 2) {
		if (!out || !*out)
			abort();
		return;
	}
	if (rc != 0)
		abort();
	if (!out)
		return;
	a = json_loads(out, 0, NULL);
	if (!json_is_object(a))
		abort();
	h = json_object_get(a, "hookSpecificOutput");
	dec = json_string_value(json_object_get(h, "permissionDecision"));
	why = json_string_value(json_object_get(h, "permissionDecisionReason"));
	if (!dec || !why ||
	    strcmp(json_string_value(json_object_get(h, "hookEventName")) ?: "",
		   "PreToolUse"))
		abort();
	upd = json_object_get(h, "updatedInput");
	if (!strcmp(dec, "deny")) {
		if (upd || strncmp(why, "sbxrun", 6))
			abort();
	} else if (!strcmp(dec, "allow")) {
		const char *rw =
			json_string_value(json_object_get(upd, "command"));
		static const char pre[] = "'" EXE "' --workdir '";

		if (!json_is_object(upd) || !rw || !tool_input ||
		    json_object_size(upd) != json_object_size(tool_input) ||
		    strncmp(rw, pre, sizeof(pre) - 1) ||
		    strlen(rw) > SBX_HOOK_MAX_REWRITTEN)
			abort();
		if (cmd) {
			char *b64 = sbx_base64(cmd, cmdlen), *want;

			if (!b64 || asprintf(&want,
					     " -c \"$(printf %%s '%s' | "
					     "base64 -d || echo exit 125)\"",
					     b64) < 0)
				abort();
			if (strlen(rw) < strlen(want) ||
			    strcmp(rw + strlen(rw) - strlen(want), want))
				abort();
			free(want);
			free(b64);
		}
	} else {
		abort();
	}
	json_decref(a);
}

static void as_input(const uint8_t *data, size_t size)
{
	json_t *in = json_loadb((const char *)data, size,
				JSON_REJECT_DUPLICATES, NULL);
	json_t *ti = json_object_get(in, "tool_input");
	json_t *c = json_object_get(ti, "command");
	char *out = NULL;
	int rc =
		sbx_hook_answer_exe((const char *)data, size, &opts, EXE, &out);

	check_answer(rc, out, json_is_object(ti) ? ti : NULL,
		     json_string_value(c), json_string_length(c));
	free(out);
	json_decref(in);
}

static void as_command(const uint8_t *data, size_t size)
{
	json_t *cmd = json_stringn((const char *)data, size), *in, *ti;
	char *txt, *out = NULL;
	int rc;

	if (!cmd)
		return; /* not UTF-8, or holds a NUL */
	ti = json_pack("{s:o, s:s}", "command", cmd, "description", "fuzz");
	in = json_pack("{s:s, s:s, s:s, s:s, s:O}", "session_id", "f",
		       "hook_event_name", "PreToolUse", "tool_name", "Bash",
		       "cwd", proj, "tool_input", ti);
	txt = in ? json_dumps(in, JSON_COMPACT) : NULL;
	if (!txt)
		abort();
	rc = sbx_hook_answer_exe(txt, strlen(txt), &opts, EXE, &out);
	check_answer(rc, out, ti, (const char *)data, size);
	free(out);
	free(txt);
	json_decref(in);
	json_decref(ti);
}

static int each(void *ctx, char *const argv[])
{
	size_t *n = ctx;
	int i = sbx_hook_program(argv);

	if (!argv[0])
		abort();
	if (i >= 0 && !argv[i])
		abort();
	(*n)++;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t n = 0;

	as_input(data, size);
	as_command(data, size);
	if (sbx_hook_commands((const char *)data, size, each, &n) != 0)
		abort();
	return 0;
}
