/*
 * fuzz_seatbelt.c - libFuzzer target: bytes -> conf text -> policy ->
 * Seatbelt profile.  Whatever the conf holds (libconfig strings carry any
 * byte but NUL), the profile must be generated, must parse with the
 * strict reader of the unit tests (tests/unit/sbpl.h), must start with
 * (version 1) (deny default), must name every rule root, and its path
 * rules must not overlap: each root, and a path below it, gets the same
 * answer whichever matching rule wins.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conf.h"
#include "policy.h"
#include "macos/seatbelt.h"
#include "../unit/sbpl.h"

static int agree(struct sx *top, const char *path)
{
	static const char *const ops[] = { "file-read-data",
					   "file-write-data" };
	int d[3];

	if (sbx_path_within(path, "/dev", 4))
		return 1;
	for (size_t i = 0; i < 2; i++) {
		sb_decide_all(top, ops[i], path, d);
		if (d[SB_LAST] != d[SB_FIRST] || d[SB_LAST] != d[SB_DENY_WINS])
			return 0;
	}
	return 1;
}

static int named(const char *text, const char *root)
{
	char *lit = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&lit, &len);
	int ok;

	if (!f)
		return 1;
	sbx_sbpl_string(f, root, strlen(root));
	fclose(f);
	ok = strstr(text, lit) != NULL;
	free(lit);
	return ok;
}

static void check(const struct sbx_policy *p)
{
	struct sbx_seatbelt_opts o = { .tmpdir = "/sbxt/fuzz/t",
				       .proxy_port = 8 };
	struct sbx_err err;
	char *text, path[8192], msg[256];
	size_t len;
	struct sx *top;

	if (sbx_seatbelt_profile(p, &o, &text, &len, &err) < 0)
		abort(); /* a finished policy always has a profile */
	top = sx_parse(text, len, msg, sizeof(msg));
	if (!top || top->n < 2 || !sx_is(top->kid[1]->kid[0], "deny") ||
	    !sx_is(top->kid[1]->kid[1], "default"))
		abort();
	for (size_t i = 0; i < p->nrules; i++) {
		const char *r = p->rules[i].root;

		if (!named(text, r))
			abort();
		snprintf(path, sizeof(path), "%s/x", strcmp(r, "/") ? r : "");
		if (!agree(top, r) || !agree(top, path))
			abort();
	}
	sx_free(top);
	free(text);
}

const char *__lsan_default_suppressions(void);
const char *__lsan_default_suppressions(void)
{
	return "leak:libconfig.so\n"; /* see fuzz_conf.c */
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
		check(&p);
	sbx_policy_free(&p);
	free(text);
	return 0;
}
