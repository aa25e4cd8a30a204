/*
 * report.c - what a run's result says: the refusal summary (text for the
 * CLI) and the JSON report.  JSON goes through jansson:
 * paths may hold any byte, and escaping is the library's job.
 */
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "reportfile.h"
#include "sb.h"
#include "sbx_cli.h"
#include "text.h"

#define SBX_REPORT_VERSION 1

/* jansson wants UTF-8; paths may not be.  Invalid bytes become U+FFFD so
 * the document stays valid and the rest of the path stays readable. */
static json_t *jstr(const char *s)
{
	json_t *j;
	char *fixed;
	size_t n;

	if (!s)
		return json_null();
	j = json_string(s);
	if (j)
		return j;
	n = strlen(s);
	fixed = malloc(n * 3 + 1);
	if (!fixed)
		return json_null();
	for (size_t i = 0, o = 0; i <= n; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c < 0x80) {
			fixed[o++] = (char)c;
		} else {
			fixed[o++] = (char)0xef;
			fixed[o++] = (char)0xbf;
			fixed[o++] = (char)0xbd;
		}
	}
	j = json_string(fixed);
	free(fixed);
	return j ? j : json_null();
}

static json_t *refusal_json(const struct sbx_refusal *x)
{
	json_t *o = json_object();

	json_object_set_new(o, "operation", jstr(x->op));
	json_object_set_new(o, "target", jstr(x->target));
	json_object_set_new(o, "reason", jstr(x->kind));
	json_object_set_new(o, "message", jstr(x->message));
	json_object_set_new(o, "rule", jstr(x->rule));
	json_object_set_new(o, "source", jstr(x->source));
	json_object_set_new(o, "process", jstr(x->process));
	json_object_set_new(o, "pid", json_integer(x->pid));
	json_object_set_new(o, "count", json_integer(x->count));
	return o;
}

static json_t *layers_json(const char *layers)
{
	json_t *a = json_array();
	char *copy = strdup(layers), *save = NULL;

	for (char *t = copy ? strtok_r(copy, ",", &save) : NULL; t;
	     t = strtok_r(NULL, ",", &save))
		json_array_append_new(a, jstr(t));
	free(copy);
	return a;
}

static json_t *result_json(const struct sbx_result *r, char *const argv[])
{
	json_t *o = json_object(), *cmd = json_array(), *ref = json_array();

	for (size_t i = 0; argv && argv[i]; i++)
		json_array_append_new(cmd, jstr(argv[i]));
	for (size_t i = 0; i < r->nrefusals; i++)
		json_array_append_new(ref, refusal_json(&r->refusals[i]));
	json_object_set_new(o, "version", json_integer(SBX_REPORT_VERSION));
	json_object_set_new(o, "command", cmd);
	json_object_set_new(o, "exit_code", json_integer(r->exit_code));
	/* exit_code 125 is also a command's own: these two tell them apart */
	json_object_set_new(o, "sbxrun_failed", json_false());
	json_object_set_new(o, "error", json_null());
	json_object_set_new(o, "status",
			    r->status >= 0 && !r->signal
				    ? json_integer(r->status)
				    : json_null());
	json_object_set_new(o, "signal",
			    r->signal ? json_integer(r->signal) : json_null());
	json_object_set_new(o, "timed_out", json_boolean(r->timed_out));
	json_object_set_new(o, "duration_s", json_real(r->duration));
	json_object_set_new(o, "mode", jstr(r->mode));
	json_object_set_new(o, "layers", layers_json(r->layers));
	json_object_set_new(o, "refusals", ref);
	{
		json_t *w = json_array();

		for (size_t i = 0; r->warnings && r->warnings[i]; i++)
			json_array_append_new(w, jstr(r->warnings[i]));
		json_object_set_new(o, "warnings", w);
	}
	{
		json_t *w = json_array();

		for (size_t i = 0; r->env_withheld && r->env_withheld[i]; i++)
			json_array_append_new(w, jstr(r->env_withheld[i]));
		json_object_set_new(o, "env_withheld", w);
	}
	return o;
}

char *sbx_result_json(const struct sbx_result *r, char *const argv[])
{
	json_t *o;
	char *s;

	if (!r)
		return NULL;
	o = result_json(r, argv);
	s = json_dumps(o, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	json_decref(o);
	return s;
}

/* The document at the report's path; a path the command replaced gets
 * the report anyway, which says so. */
static int put_doc(struct sbx_cli_report *rp, json_t *o, char *why,
		   size_t whysz)
{
	int replaced = sbx_report_replaced(rp), r;
	json_t *w = json_object_get(o, "warnings");
	char *s;

	if (replaced) {
		if (!w)
			json_object_set_new(o, "warnings", w = json_array());
		json_array_append_new(w, json_string(SBX_REPORT_REPLACED));
	}
	s = json_dumps(o, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	json_decref(o);
	if (!s)
		return snprintf(why, whysz, "out of memory"), -1;
	r = sbx_report_put(rp, s, why, whysz);
	free(s);
	return r < 0 ? -1 : replaced;
}

int sbx_cli_report_write(struct sbx_cli_report *rp, const struct sbx_result *r,
			 char *const argv[], char *why, size_t whysz)
{
	return put_doc(rp, result_json(r, argv), why, whysz);
}

/* sbxrun itself failed (exit 125) and the command never ran, or its run
 * could not be completed: the report says so, with the reason. */
int sbx_cli_report_failure(struct sbx_cli_report *rp, const char *error,
			   char *const argv[], char *why, size_t whysz)
{
	json_t *o = json_object(), *cmd = json_array();

	for (size_t i = 0; argv && argv[i]; i++)
		json_array_append_new(cmd, jstr(argv[i]));
	json_object_set_new(o, "version", json_integer(SBX_REPORT_VERSION));
	json_object_set_new(o, "command", cmd);
	json_object_set_new(o, "exit_code", json_integer(125));
	json_object_set_new(o, "sbxrun_failed", json_true());
	json_object_set_new(o, "error", jstr(error));
	json_object_set_new(o, "status", json_null());
	json_object_set_new(o, "signal", json_null());
	json_object_set_new(o, "refusals", json_array());
	return put_doc(rp, o, why, whysz);
}

char *sbx_cli_summary(const struct sbx_result *r)
{
	struct sbx_text t = { 0 };
	unsigned total = 0;

	if (!r->nrefusals)
		return sbx_text_take(&t);
	for (size_t i = 0; i < r->nrefusals; i++)
		total += r->refusals[i].count;
	sbx_text_add(&t, "sbxrun: %u refusal%s in this run:\n", total,
		     total == 1 ? "" : "s");
	for (size_t i = 0; i < r->nrefusals && i < 20; i++) {
		const struct sbx_refusal *x = &r->refusals[i];
		/* names the sandbox may have chosen, made printable (W-05) */
		char *tg = strdup(x->target), *ru = strdup(x->rule);

		sbx_text_add(&t, "  %-8s %s (%s%s%s)", x->op,
			     tg ? sb_clean(tg) : "?", x->kind,
			     x->rule[0] ? ", rule " : "",
			     ru ? sb_clean(ru) : "");
		free(tg);
		free(ru);
		if (x->count > 1)
			sbx_text_add(&t, " x%u", x->count);
		sbx_text_add(&t, "\n");
	}
	if (r->nrefusals > 20)
		sbx_text_add(&t,
			     "  ... and %zu more (use --report FILE for all)\n",
			     r->nrefusals - 20);
	return sbx_text_take(&t);
}
