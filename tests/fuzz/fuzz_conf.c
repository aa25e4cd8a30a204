/*
 * fuzz_conf.c - libFuzzer target: bytes -> conf text -> sbx_conf_load_string
 * on a fresh policy, then sbx_policy_finish (project and home set), a
 * compile/view round trip and a few decisions, then free.  Leaks and
 * crashes anywhere in the loader, the engine or the compiler are bugs.
 *
 * Inputs with "@include" are skipped: libconfig would read arbitrary
 * files (think /dev/zero) relative to the fuzzer's cwd.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "conf.h"
#include "cpol.h"
#include "decide.h"
#include "policy.h"

#include "../unit/decide_ref.h"

static void exercise(struct sbx_policy *p)
{
	static const char *const paths[] = {
		"/",
		"/etc/passwd",
		"/sbxt/fuzz/proj/a.md",
		"/sbxt/fuzz/home/.ssh/x",
		"/tmp/x",
		"/sbxt/fuzz/proj/.git/hooks/pre-commit",
	};
	static const char *const argv_rm[] = { "rm", "-rf", "/", NULL };
	static const char *const env[] = { "PATH=/bin", "GITHUB_TOKEN=x",
					   "AWS_SECRET", "" };
	struct sbx_cpol v;
	struct sbx_err err;
	const char *why;
	void *buf = NULL;
	size_t len = 0;

	for (size_t i = 0; i < sizeof(paths) / sizeof(paths[0]); i++)
		for (int op = SBX_OP_READ; op <= SBX_OP_EXEC; op++)
			(void)ref_decide(p, paths[i], (enum sbx_op)op, 1000,
					 NULL);
	(void)ref_exec(p, "/usr/bin/rm", argv_rm);
	for (size_t i = 0; i < sizeof(env) / sizeof(env[0]); i++)
		(void)sbx_policy_env_pass(p, env[i]);
	if (sbx_cpol_build(p, SBX_KMODE_AUTO, 0, &buf, &len, &err) < 0)
		return;
	if (sbx_cpol_view(buf, len, &v, &why) < 0)
		abort(); /* the writer's output must always validate */
	/* the one decider over the compiled policy agrees with the
	 * reference model over the in-memory one, for every op */
	for (size_t i = 0; i < sizeof(paths) / sizeof(paths[0]); i++)
		for (int op = SBX_OP_READ; op <= SBX_OP_EXEC; op++) {
			const struct sbx_path_rule *mr;
			enum sbx_verdict mv = ref_decide(
				p, paths[i], (enum sbx_op)op, 5, &mr);
			struct sbx_path_decision d =
				sbx_decide(&v, paths[i], (enum sbx_op)op, 5);

			if (d.verdict != mv || !d.rule != !mr ||
			    (mr && strcmp(sbx_cpol_str(&v, d.rule->root),
					  mr->root) != 0))
				abort();
		}
	if ((ref_exec(p, "/usr/bin/rm", argv_rm) == NULL) !=
	    (sbx_decide_exec(&v, "/usr/bin/rm", (char *const *)argv_rm) ==
	     NULL))
		abort();
	free(buf);
}

/* libconfig before 1.7.3 leaks a string token when a syntax error
 * discards it (hyperrealm/libconfig#142, fixed by #155).  Not ours: tell
 * LeakSanitizer, and keep looking for our own leaks. */
const char *__lsan_default_suppressions(void);
const char *__lsan_default_suppressions(void)
{
	return "leak:libconfig.so\n";
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sbx_policy p;
	struct sbx_err err;
	char *text = malloc(size + 1);

	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	if (strstr(text, "@include")) {
		free(text);
		return 0;
	}
	sbx_policy_init(&p);
	p.project = strdup("/sbxt/fuzz/proj");
	p.home = strdup("/sbxt/fuzz/home");
	if (sbx_conf_load_string(&p, text, "fuzz.conf", &err) == 0 &&
	    sbx_policy_finish(&p, &err) == 0)
		exercise(&p);
	sbx_policy_free(&p);
	free(text);
	return 0;
}
