/*
 * fuzz_cpol.c - libFuzzer target for the compiled-policy reader, which
 * runs inside every sandboxed process.
 *
 * Input byte 0 picks the mode:
 *   even: the rest is a buffer handed to sbx_cpol_view as is;
 *   odd:  the rest is a list of (offset, byte) edits applied to a valid
 *         buffer built once (no checksum stands before the structural
 *         checks: every edit reaches them).
 * When the view is accepted, the one decider (paths, programs, network)
 * and the one explainer run on it; ASan catches any read outside the
 * buffer.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cpol.h"
#include "decide.h"
#include "explain.h"
#include "policy.h"

static void *valid;
static size_t valid_len;

static void build_valid(void)
{
	static const char *const rmargs[] = { "-*[rR]*", "/" };
	struct sbx_policy p;
	static const char *const md[] = { ".md" };
	const struct sbx_rule notes = { .root = "notes",
					.mode = SBX_RW,
					.suffixes = md,
					.nsuffixes = 1,
					.max_file_bytes = 100,
					.src = { "a", 3 } };
	struct sbx_err err;

	sbx_policy_init(&p);
	p.project = strdup("/sbxt/p");
	p.home = strdup("/sbxt/h");
	p.profile = strdup("default");
	sbx_policy_add_path(&p, "/", SBX_RO, 0, (struct sbx_src){ "a", 1 },
			    &err);
	sbx_policy_add_path(&p, "~/.ssh", SBX_HIDE, 0,
			    (struct sbx_src){ "a", 2 }, &err);
	sbx_policy_add_rule(&p, &notes, &err);
	sbx_policy_add_exec(&p, "sudo", NULL, 0, "no",
			    (struct sbx_src){ "a", 4 }, &err);
	sbx_policy_add_exec(&p, "rm", rmargs, 2, "no",
			    (struct sbx_src){ "a", 5 }, &err);
	sbx_policy_add_allow(&p, "*.github.com:443", (struct sbx_src){ "a", 6 },
			     &err);
	sbx_strv_add(&p, &p.unix_sockets, "/run/x.sock", (struct sbx_src){ 0 });
	sbx_strv_add(&p, &p.protect, ".git/hooks", (struct sbx_src){ "a", 7 });
	p.net = SBX_NET_FILTERED;
	p.net_src = (struct sbx_src){ "a", 8 };
	sbx_policy_finish(&p, &err);
	if (sbx_cpol_build(&p, SBX_KMODE_LANDLOCK, SBX_CPOL_F_SHIM_PROTECT,
			   &valid, &valid_len, &err) < 0)
		abort();
	sbx_policy_free(&p);
}

static int64_t fact_size(const struct sbx_path_q *q)
{
	(void)q;
	return 101;
}

static int fact_file(const struct sbx_path_q *q)
{
	(void)q;
	return 1;
}

static const struct sbx_path_facts facts = { fact_file, fact_size, NULL };

/* Every path decision, explained (the explainer reads every field of the
 * deciding rule and walks the rules for the writable list). */
static void query_paths(const struct sbx_cpol *v)
{
	static const char *const paths[] = {
		"/",
		"/etc/passwd",
		"/sbxt/p/notes/a.md",
		"/sbxt/p/notes/a.c",
		"/sbxt/h/.ssh/id",
		"/sbxt/p/.git",
		"/tmp/x",
		"relative",
	};

	for (size_t i = 0; i < sizeof(paths) / sizeof(paths[0]); i++)
		for (int op = SBX_OP_READ; op <= SBX_OP_EXEC; op++) {
			struct sbx_path_q q = {
				paths[i], (enum sbx_op)op, 0xf, -1, &facts, NULL
			};
			struct sbx_path_decision d = sbx_decide_path(v, &q);
			struct sbx_expl e;
			char buf[256];

			if (d.rule && (const unsigned char *)d.rule < v->base)
				abort();
			if (d.verdict != SBX_ALLOW)
				sbx_explain_path(v, paths[i], paths[i],
						 (enum sbx_op)op, &d, 0, &e);
			else
				sbx_explain_allowed(v, paths[i],
						    (enum sbx_op)op, &d, buf,
						    sizeof(buf));
			d = sbx_decide_failure(v, paths[i], (enum sbx_op)op,
					       13 /* EACCES */);
		}
}

/* The network decision, both steps and from inside, explained: the
 * explainer reads every allow entry for the allowed list. */
static void query_net(const struct sbx_cpol *v)
{
	static const char *const hosts[] = { "api.github.com", "[::1]",
					     "169.254.169.254", "10.1.2.3",
					     "b a d" };
	struct sbx_ip ip = { 2 /* AF_INET */, { 10, 1, 2, 3 } };
	struct sbx_net_decision d;
	struct sbx_expl e;

	for (size_t i = 0; i < sizeof(hosts) / sizeof(hosts[0]); i++) {
		d = sbx_decide_host(v, hosts[i], 443);
		if (d.why == SBX_NETW_ALLOW)
			d = sbx_decide_addr(v, &ip, 443);
		if (d.rule && (const unsigned char *)d.rule < v->base)
			abort();
		if (d.why != SBX_NETW_ALLOW)
			sbx_explain_net(v, "connect to", hosts[i], 443, &ip, &d,
					0, &e);
	}
	d = sbx_decide_net(v, "x.github.com", &ip, 80);
	if (d.why != SBX_NETW_ALLOW)
		sbx_explain_net(v, "send to", "x.github.com", 80, &ip, &d, 0,
				&e);
	d = sbx_decide_net(v, "x.github.com", NULL, 0);
	if (d.why != SBX_NETW_ALLOW)
		sbx_explain_net(v, "resolve", "x.github.com", 0, NULL, &d, 0,
				&e);
	sbx_explain_socket(v, 2, 0, &e);
}

static void query(const void *b, size_t len)
{
	static char *const argv1[] = { "rm", "-rf", "/", NULL };
	static char *const argv2[] = { "sudo", NULL };
	static char *const argv3[] = { NULL };
	const struct sbx_cpol_exec *x;
	struct sbx_cpol v;
	struct sbx_expl e;
	const char *why;

	if (sbx_cpol_view(b, len, &v, &why) < 0) {
		if (v.hdr || !why)
			abort();
		return;
	}
	query_paths(&v);
	query_net(&v);
	if ((x = sbx_decide_exec(&v, "/usr/bin/rm", argv1)))
		sbx_explain_exec(&v, "rm", x, 0, &e);
	(void)sbx_decide_exec(&v, NULL, argv2);
	(void)sbx_decide_exec(&v, "/x", argv3);
	(void)strlen(sbx_cpol_str(&v, v.hdr->project));
	(void)strlen(sbx_cpol_str(&v, v.hdr->home));
	(void)strlen(sbx_cpol_str(&v, v.hdr->profile));
	for (uint32_t i = 0; i < v.hdr->nallow; i++)
		(void)strlen(sbx_cpol_str(&v, v.allow[i].host));
	for (uint32_t i = 0; i < v.hdr->nsock; i++)
		(void)strlen(sbx_cpol_str(&v, v.sock[i]));
	for (uint32_t i = 0; i < v.hdr->nrules; i++)
		for (uint32_t k = 0; k < v.rules[i].nsuffixes; k++)
			(void)strlen(sbx_cpol_suffix(&v, &v.rules[i], k));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	unsigned char *b;
	size_t len;

	if (!valid)
		build_valid();
	if (size == 0)
		return 0;
	if (!(data[0] & 1)) {
		len = size - 1;
		b = malloc(len ? len : 1); /* exact size, 16-aligned */
		if (!b)
			return 0;
		memcpy(b, data + 1, len);
	} else {
		len = valid_len;
		b = malloc(len);
		if (!b)
			return 0;
		memcpy(b, valid, len);
		for (size_t i = 1; i + 2 < size; i += 3) {
			size_t off =
				((size_t)data[i] | (size_t)data[i + 1] << 8) %
				len;

			b[off] = data[i + 2];
		}
	}
	query(b, len);
	free(b);
	return 0;
}
