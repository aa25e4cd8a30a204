/*
 * explain.c - explanation lines for decisions (DESIGN 8 shapes).
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "explain.h"

void sbx_src_format(char *buf, size_t sz, struct sbx_src src)
{
	if (!src.file)
		snprintf(buf, sz, "built-in");
	else if (src.line > 0)
		snprintf(buf, sz, "%s:%d", src.file, src.line);
	else
		snprintf(buf, sz, "%s", src.file);
}

void sbx_writable_list(char *buf, size_t sz, const struct sbx_policy *p)
{
	size_t len = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < p->nrules && len < sz; i++) {
		if (p->rules[i].mode != SBX_RW)
			continue;
		len += (size_t)snprintf(buf + len, sz - len, "%s%s",
					len ? ", " : "", p->rules[i].root);
	}
}

static const char *opword(enum sbx_op op)
{
	return op == SBX_OP_WRITE  ? "write"
	       : op == SBX_OP_EXEC ? "run"
				   : "read";
}

static void suffix_list(char *buf, size_t sz, const struct sbx_path_rule *r)
{
	size_t len = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < r->nsuffixes && len < sz; i++)
		len += (size_t)snprintf(buf + len, sz - len, "%s%s",
					i ? ", " : "", r->suffixes[i]);
}

static void explain_denied(char *buf, size_t sz, const struct sbx_policy *p,
			   const char *shown, const char *resolved,
			   enum sbx_op op, struct sbx_decision d, int64_t size,
			   const char *src)
{
	const struct sbx_path_rule *r = d.rule;
	char list[2048];
	const char *dot;

	switch (d.verdict) {
	case SBX_DENY_HIDDEN:
		snprintf(buf, sz,
			 "sbxrun: cannot %s '%s': hidden by the sandbox "
			 "policy (secrets; rule %s from %s); to allow: sbxrun "
			 "--allow-read %s",
			 opword(op), shown, r->root, src, resolved);
		break;
	case SBX_DENY_READONLY:
		sbx_writable_list(list, sizeof(list), p);
		snprintf(
			buf, sz,
			"sbxrun: cannot write '%s': %s (writable: %s; "
			"rule %s from %s); to allow: sbxrun --allow-write %s",
			shown,
			(r->flags & SBX_RF_PROTECT)
				? "protected, read-only even inside the project (it "
				  "could run code outside the sandbox later)"
				: "read-only in this sandbox",
			list, r->root, src, resolved);
		break;
	case SBX_DENY_SUFFIX:
		suffix_list(list, sizeof(list), r);
		dot = strrchr(shown, '.');
		snprintf(buf, sz,
			 "sbxrun: cannot write '%s': suffix '%s' not "
			 "allowed under %s (allowed: %s)",
			 shown, dot && !strchr(dot, '/') ? dot : "", r->root,
			 list);
		break;
	case SBX_DENY_SIZE:
		snprintf(buf, sz,
			 "sbxrun: cannot %s '%s': %" PRId64 " bytes, over "
			 "the %" PRIu64 "-byte limit for %s",
			 opword(op), shown, size, r->max_file_bytes, r->root);
		break;
	case SBX_DENY_NOTCOVERED:
		snprintf(buf, sz,
			 "sbxrun: cannot %s '%s': outside every path "
			 "the sandbox policy allows; to allow: sbxrun "
			 "--allow-%s %s",
			 opword(op), shown,
			 op == SBX_OP_WRITE ? "write" : "read", resolved);
		break;
	case SBX_ALLOW: break;
	}
}

void sbx_explain_path(char *buf, size_t sz, const struct sbx_policy *p,
		      const char *shown, const char *resolved, enum sbx_op op,
		      struct sbx_decision d, int64_t size)
{
	char src[600];

	sbx_src_format(src, sizeof(src),
		       d.rule ? d.rule->src : (struct sbx_src){ 0 });
	if (d.verdict != SBX_ALLOW) {
		explain_denied(buf, sz, p, shown, resolved, op, d, size, src);
		return;
	}
	snprintf(buf, sz, "'%s' can be %s: %s (rule %s %s from %s)", resolved,
		 op == SBX_OP_WRITE  ? "written"
		 : op == SBX_OP_EXEC ? "run"
				     : "read",
		 d.rule->mode == SBX_RW ? "writable" : "read-only",
		 d.rule->root, sbx_pmode_name(d.rule->mode), src);
}
