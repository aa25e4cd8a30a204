/*
 * test_cpol.c - the compiled policy (core/cpol_write.c, core/cpol_read.c):
 * what the launcher hands to the shim in every sandboxed process.
 *
 *  - round trip: build -> view -> every rule, exec rule, allow entry and
 *    socket is there and equal, header fields included;
 *  - corruption: every byte of a built buffer flipped (three ways) and
 *    random damage -> rejected, or accepted with a valid structure that
 *    every query walks without a read out of bounds (ASan); damage to the
 *    header's fixed fields and the table's end always rejected; every
 *    truncation, an extra byte, a misaligned copy -> rejected;
 *  - structural lies (a hostile or buggy writer): counts, offsets, string
 *    offsets, enums, modes, ordering -> rejected, never a crash;
 *  - limits: too many entries and too many bytes are refused by the writer
 *    and by the reader;
 *  - a rejected view answers nothing (the shim loses explanations, never
 *    widens access).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpol.h"
#include "decide.h"
#include "policy.h"
#include "testutil.h"

#include "decide_ref.h"

#define PROJ "/sbxt/p"
#define HOME "/sbxt/home/u"

static struct sbx_policy pol;
static void *built;
static size_t built_len;

static void add(struct sbx_policy *p, const char *root, enum sbx_pmode m,
		int line, const char *const *sfx, uint64_t max)
{
	struct sbx_err err;
	struct sbx_rule r = { .root = root,
			      .mode = m,
			      .suffixes = sfx,
			      .max_file_bytes = max,
			      .src = { "c.conf", line } };

	while (sfx && sfx[r.nsuffixes])
		r.nsuffixes++;
	if (sbx_policy_add_rule(p, &r, &err) < 0)
		fail_msg("add %s: %s", root, err.msg);
}

/* A policy that uses every part of the format. */
static void build_rich(struct sbx_policy *p)
{
	static const char *const sfx[] = { ".md", ".txt", ".rst", NULL };
	static const char *const rmargs[] = { "-*[rR]*", "/" };
	static const char *const ddargs[] = { "of=/dev/*" };
	static const char *const allow[] = {
		"registry.npmjs.org", "*.github.com:443", "10.0.0.0/8:8080",
		"[2001:db8::/32]:443", "192.168.1.10"
	};
	struct sbx_err err;

	sbx_policy_init(p);
	p->project = strdup(PROJ);
	p->home = strdup(HOME);
	p->profile = strdup("default");
	p->net = SBX_NET_FILTERED;
	p->net_src = (struct sbx_src){ sbx_policy_intern(p, "n.conf"), 9 };
	p->limits.fsize = 16ull << 30;
	p->quiet = 1;
	p->explain_to_report_only = 1;
	add(p, "/", SBX_RO, 1, NULL, 0);
	add(p, "~/.ssh", SBX_HIDE, 2, NULL, 0);
	add(p, "notes", SBX_RW, 3, sfx, 1000000);
	add(p, "/sbxt/one", SBX_RW, 4, NULL, 1);
	add(p, "/sbxt/a", SBX_RO, 5, NULL, 0); /* equal lengths, */
	add(p, "/sbxt/b", SBX_HIDE, 6, NULL, 0); /* different roots */
	add(p, "/sbxt/c", SBX_RW, 7, NULL, 0);
	add(p, "/sbxt/spa ce/new\nline/\xff", SBX_RW, 8, NULL, 0);
	assert_int_equal(sbx_policy_add_exec(p, "sudo", NULL, 0, "no sudo",
					     (struct sbx_src){ "c.conf", 20 },
					     &err),
			 0);
	assert_int_equal(sbx_policy_add_exec(p, "rm", rmargs, 2, "no rm -rf /",
					     (struct sbx_src){ "c.conf", 21 },
					     &err),
			 0);
	assert_int_equal(sbx_policy_add_exec(p, "dd", ddargs, 1, NULL,
					     (struct sbx_src){ NULL, 0 }, &err),
			 0);
	for (size_t i = 0; i < sizeof(allow) / sizeof(allow[0]); i++)
		assert_int_equal(
			sbx_policy_add_allow(p, allow[i],
					     (struct sbx_src){ "c.conf",
							       30 + (int)i },
					     &err),
			0);
	assert_int_equal(sbx_strv_add(p, &p->unix_sockets, "/run/user/1/bus",
				      (struct sbx_src){ 0 }),
			 0);
	assert_int_equal(sbx_strv_add(p, &p->unix_sockets, "/tmp/.X11-unix/X0",
				      (struct sbx_src){ 0 }),
			 0);
	assert_int_equal(sbx_policy_finish(p, &err), 0);
}

static int setup(void **state)
{
	struct sbx_err err;

	(void)state;
	build_rich(&pol);
	if (sbx_cpol_build(&pol, SBX_KMODE_LANDLOCK, SBX_CPOL_F_SHIM_PROTECT,
			   &built, &built_len, &err) < 0) {
		fprintf(stderr, "build: %s\n", err.msg);
		return -1;
	}
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	free(built);
	sbx_policy_free(&pol);
	return 0;
}

/* An 8-aligned private copy (malloc gives 16). */
static unsigned char *copy_of(const void *b, size_t len)
{
	unsigned char *c = malloc(len ? len : 1);

	assert_non_null(c);
	memcpy(c, b, len);
	return c;
}

/*
 * An accepted view must be safe to use whole: touch every string, rule,
 * suffix, exec rule, allow entry and socket, and ask the decider, so that
 * ASan sees any read a corrupted but accepted buffer could lead to.
 */
static void walk_view(const struct sbx_cpol *v)
{
	static const char *const paths[] = { "/", "/etc/passwd", PROJ "/x",
					     HOME "/.ssh/id_rsa",
					     "/usr/bin/sudo" };
	const struct sbx_cpol_hdr *h = v->hdr;
	char *argv[] = { "sudo", "-i", NULL };
	size_t sum = strlen(sbx_cpol_str(v, h->project)) +
		     strlen(sbx_cpol_str(v, h->home)) +
		     strlen(sbx_cpol_str(v, h->profile)) +
		     strlen(sbx_cpol_str(v, h->net_src_file));

	for (uint32_t i = 0; i < h->nrules; i++) {
		const struct sbx_cpol_rule *r = &v->rules[i];

		sum += strlen(sbx_cpol_str(v, r->root)) +
		       strlen(sbx_cpol_str(v, r->src_file));
		for (uint32_t k = 0; k < r->nsuffixes; k++)
			sum += strlen(sbx_cpol_suffix(v, r, k));
	}
	for (uint32_t i = 0; i < h->nexec; i++) {
		sum += strlen(sbx_cpol_str(v, v->exec[i].program)) +
		       strlen(sbx_cpol_str(v, v->exec[i].reason));
		for (uint32_t k = 0; k < v->exec[i].nargs; k++)
			sum += strlen(sbx_cpol_str(v, v->exec[i].args[k]));
	}
	for (uint32_t i = 0; i < h->nallow; i++)
		sum += strlen(sbx_cpol_str(v, v->allow[i].host)) +
		       strlen(sbx_cpol_str(v, v->allow[i].text));
	for (uint32_t i = 0; i < h->nsock; i++)
		sum += strlen(sbx_cpol_str(v, v->sock[i]));
	for (size_t i = 0; i < sizeof(paths) / sizeof(paths[0]); i++) {
		(void)sbx_cpol_match(v, paths[i]);
		(void)sbx_decide(v, paths[i], SBX_OP_WRITE, -1);
		(void)sbx_decide(v, paths[i], SBX_OP_READ, -1);
	}
	(void)sbx_decide_exec(v, "/usr/bin/sudo", argv);
	assert_true(sum < h->size * (size_t)(h->nrules + 64));
}

/* Bytes no damage may get past: magic, version, size, the reserved
 * fields (their exact values are checked). */
static int fixed_header_byte(size_t i)
{
	return i < offsetof(struct sbx_cpol_hdr, reserved2) + 8;
}

static const char *str_or_empty(const char *s)
{
	return s ? s : "";
}

/* ------------------------------------------------------------ round trip */

static void test_roundtrip_header(void **state)
{
	struct sbx_cpol v;
	const char *why = "";

	(void)state;
	assert_int_equal(sbx_cpol_view(built, built_len, &v, &why), 0);
	assert_memory_equal(v.hdr->magic, SBX_CPOL_MAGIC, 8);
	assert_int_equal(v.hdr->version, SBX_CPOL_VERSION);
	assert_int_equal(v.hdr->size, built_len);
	assert_int_equal(v.hdr->nrules, pol.nrules);
	assert_int_equal(v.hdr->nexec, pol.nexec);
	assert_int_equal(v.hdr->nallow, pol.nallow);
	assert_int_equal(v.hdr->nsock, pol.unix_sockets.n);
	assert_int_equal(v.hdr->net, SBX_NET_FILTERED);
	assert_string_equal(sbx_cpol_str(&v, v.hdr->net_src_file), "n.conf");
	assert_int_equal(v.hdr->net_src_line, 9);
	assert_int_equal(v.hdr->kmode, SBX_KMODE_LANDLOCK);
	assert_int_equal(v.hdr->fsize_limit, 16ull << 30);
	assert_int_equal(v.hdr->flags,
			 SBX_CPOL_F_QUIET | SBX_CPOL_F_REPORT_ONLY |
				 SBX_CPOL_F_APPRULES | SBX_CPOL_F_SHIM_PROTECT);
	assert_string_equal(sbx_cpol_str(&v, v.hdr->project), PROJ);
	assert_string_equal(sbx_cpol_str(&v, v.hdr->home), HOME);
	assert_string_equal(sbx_cpol_str(&v, v.hdr->profile), "default");
	assert_true(v.base == built);
}

static void test_roundtrip_rules(void **state)
{
	struct sbx_cpol v;
	const char *why;
	size_t seen = 0;

	(void)state;
	assert_int_equal(sbx_cpol_view(built, built_len, &v, &why), 0);
	for (uint32_t i = 0; i < v.hdr->nrules; i++) {
		const struct sbx_cpol_rule *c = &v.rules[i];

		/* sorted longest first, then strongest mode */
		if (i)
			assert_true(c->rootlen < v.rules[i - 1].rootlen ||
				    (c->rootlen == v.rules[i - 1].rootlen &&
				     c->mode <= v.rules[i - 1].mode));
		for (size_t j = 0; j < pol.nrules; j++) {
			const struct sbx_path_rule *r = &pol.rules[j];

			if (strcmp(r->root, sbx_cpol_str(&v, c->root)) != 0)
				continue;
			seen++;
			assert_int_equal(c->rootlen, r->rootlen);
			assert_int_equal(c->mode, r->mode);
			assert_int_equal(c->flags, r->flags);
			assert_int_equal(c->nsuffixes, r->nsuffixes);
			for (size_t k = 0; k < r->nsuffixes; k++)
				assert_string_equal(
					sbx_cpol_suffix(&v, c, (uint32_t)k),
					r->suffixes[k]);
			assert_int_equal(c->max_file_bytes, r->max_file_bytes);
			assert_string_equal(sbx_cpol_str(&v, c->src_file),
					    str_or_empty(r->src.file));
			assert_int_equal(c->src_line, r->src.line);
		}
	}
	assert_int_equal(seen, pol.nrules); /* each once: roots are unique */
	/* each string stored once: every rule of c.conf names one offset */
	for (uint32_t i = 0, first = 0; i < v.hdr->nrules; i++) {
		if (strcmp(sbx_cpol_str(&v, v.rules[i].src_file), "c.conf"))
			continue;
		if (!first)
			first = v.rules[i].src_file;
		assert_int_equal(v.rules[i].src_file, first);
		seen++;
	}
	assert_true(seen > pol.nrules + 1);
	/* the hide filter has every hidden name's bits */
	for (uint32_t i = 0; i < v.hdr->nrules; i++) {
		const char *root = sbx_cpol_str(&v, v.rules[i].root);
		const char *base = strrchr(root, '/') + 1;

		if (v.rules[i].mode == SBX_HIDE && *base)
			assert_true(sbx_cpol_bloom_has(
				v.bloom,
				sbx_cpol_name_hash(base, strlen(base))));
	}
	assert_false(sbx_cpol_bloom_has(v.bloom, sbx_cpol_name_hash("src", 3)));
}

static void test_roundtrip_exec_allow_sock(void **state)
{
	struct sbx_cpol v;
	const char *why;

	(void)state;
	assert_int_equal(sbx_cpol_view(built, built_len, &v, &why), 0);
	for (size_t i = 0; i < pol.nexec; i++) {
		const struct sbx_exec_rule *e = &pol.exec[i];
		const struct sbx_cpol_exec *c = &v.exec[i];

		assert_string_equal(sbx_cpol_str(&v, c->program), e->program);
		assert_int_equal(c->nargs, e->nargs);
		for (size_t k = 0; k < e->nargs; k++)
			assert_string_equal(sbx_cpol_str(&v, c->args[k]),
					    e->args[k]);
		assert_string_equal(sbx_cpol_str(&v, c->reason), e->reason);
		assert_string_equal(sbx_cpol_str(&v, c->src_file),
				    str_or_empty(e->src.file));
		assert_int_equal(c->src_line, e->src.line);
	}
	for (size_t i = 0; i < pol.nallow; i++) {
		const struct sbx_net_allow *a = &pol.allow[i];
		const struct sbx_cpol_allow *c = &v.allow[i];

		assert_string_equal(sbx_cpol_str(&v, c->text), a->text);
		assert_string_equal(sbx_cpol_str(&v, c->host), a->host);
		assert_int_equal(c->is_cidr, a->is_cidr);
		assert_int_equal(c->prefix, a->prefix);
		assert_int_equal(c->port, a->port);
		assert_string_equal(sbx_cpol_str(&v, c->src_file), a->src.file);
		assert_int_equal(c->src_line, a->src.line);
	}
	for (size_t i = 0; i < pol.unix_sockets.n; i++)
		assert_string_equal(sbx_cpol_str(&v, v.sock[i]),
				    pol.unix_sockets.v[i]);
}

/* The compiled policy answers like the in-memory one, for every root and
 * a few paths around each. */
static void test_roundtrip_decisions(void **state)
{
	static const char *const tails[] = { "", "/x", "/a.md", "/a.c", "x" };
	struct sbx_cpol v;
	const char *why;
	char path[PATH_MAX];
	char *argv_sudo[] = { "sudo", "ls", NULL };
	char *argv_rm[] = { "rm", "-rf", "/", NULL };
	char *argv_rm2[] = { "rm", "-rf", "build", NULL };
	char *argv_dd[] = { "dd", "of=/dev/sda", NULL };

	(void)state;
	assert_int_equal(sbx_cpol_view(built, built_len, &v, &why), 0);
	for (size_t j = 0; j < pol.nrules; j++) {
		for (size_t t = 0; t < sizeof(tails) / sizeof(tails[0]); t++) {
			snprintf(path, sizeof(path), "%s%s",
				 strcmp(pol.rules[j].root, "/")
					 ? pol.rules[j].root
					 : "",
				 tails[t]);
			if (!path[0])
				continue;
			for (int op = SBX_OP_READ; op <= SBX_OP_EXEC; op++) {
				static const int64_t sizes[] = {
					-1, 0, 1, 2, 1000000, 1000001
				};

				for (size_t s = 0; s < 6; s++) {
					const struct sbx_path_rule *mr;
					enum sbx_verdict mv = ref_decide(
						&pol, path, (enum sbx_op)op,
						sizes[s], &mr);
					struct sbx_path_decision d = sbx_decide(
						&v, path, (enum sbx_op)op,
						sizes[s]);
					const struct sbx_cpol_rule *cr = d.rule;

					if (d.verdict != mv || !cr != !mr ||
					    (cr &&
					     strcmp(sbx_cpol_str(&v, cr->root),
						    mr->root) != 0))
						fail_msg(
							"'%s' op %d size %lld: decide %d, "
							"reference %d",
							path, op,
							(long long)sizes[s],
							d.verdict, mv);
				}
			}
		}
	}
	assert_non_null(sbx_decide_exec(&v, "/usr/bin/sudo", argv_sudo));
	assert_non_null(sbx_decide_exec(&v, NULL, argv_rm));
	assert_null(sbx_decide_exec(&v, NULL, argv_rm2));
	assert_string_equal(
		sbx_cpol_str(&v, sbx_decide_exec(&v, NULL, argv_dd)->reason),
		"denied by the sandbox policy");
}

/* The directories directly below "/" of a made-up machine. */
static size_t fake_root(char *buf, size_t sz)
{
	static const char d[] = "bin\0etc\0home\0usr\0.snapshots\0";

	assert_true(sz >= sizeof(d));
	memcpy(buf, d, sizeof(d) - 1);
	return sizeof(d) - 1;
}

/* A program is judged by what it runs: the loader's program, a
 * multi-call program's applet, "rm -r" of every directory below "/". */
static void test_exec_runs(void **state)
{
	struct sbx_cpol v;
	const char *why;
	size_t at = 9;
	char *ld[] = { "/lib64/ld-linux-x86-64.so.2",
		       "--library-path",
		       "/x",
		       "/usr/bin/sudo",
		       "ls",
		       NULL };
	char *ld_list[] = { "/lib64/ld-linux-x86-64.so.2", "--list",
			    "/usr/bin/sudo", NULL };
	char *bb[] = { "busybox", "sudo", "ls", NULL };
	char *ldbb[] = { "/lib/ld-musl-x86_64.so.1", "/bin/busybox", "sudo",
			 NULL };
	char *bbls[] = { "busybox", "ls", NULL };
	char *all[] = { "rm", "-rf", "/bin", "//etc/", "/home", "/usr", NULL };
	char *some[] = { "rm", "-rf", "/bin", "/etc", "/home", NULL };
	char *rel[] = { "rm", "-r", "--", "bin", "etc", "home", "usr", NULL };
	char *norec[] = { "rm", "/bin", "/etc", "/home", "/usr", NULL };
	struct sbx_exec_q q = { NULL, ld, NULL, fake_root };

	(void)state;
	assert_int_equal(sbx_cpol_view(built, built_len, &v, &why), 0);
	assert_int_equal(sbx_exec_runs(ld[0], ld), 3);
	assert_int_equal(sbx_exec_runs(ld_list[0], ld_list), 0);
	assert_int_equal(sbx_exec_runs(NULL, bb), 1);
	assert_int_equal(sbx_exec_runs(NULL, bbls), 1);
	assert_int_equal(sbx_exec_runs(NULL, all), 0);
	assert_non_null(sbx_decide_exec_q(&v, &q, &at));
	assert_int_equal(at, 3);
	assert_null(sbx_decide_exec(&v, ld_list[0], ld_list));
	assert_non_null(sbx_decide_exec(&v, NULL, bb));
	q.argv = ldbb;
	assert_non_null(sbx_decide_exec_q(&v, &q, &at));
	assert_int_equal(at, 2);
	assert_null(sbx_decide_exec(&v, NULL, bbls));
	q.argv = all;
	assert_string_equal(
		sbx_cpol_str(&v, sbx_decide_exec_q(&v, &q, &at)->reason),
		"no rm -rf /");
	assert_int_equal(at, 0);
	assert_null(sbx_decide_exec(&v, NULL, all)); /* no root_dirs */
	q.argv = some;
	assert_null(sbx_decide_exec_q(&v, &q, NULL));
	q.argv = norec;
	assert_null(sbx_decide_exec_q(&v, &q, NULL));
	q.argv = rel;
	assert_null(sbx_decide_exec_q(&v, &q, NULL)); /* cwd unknown */
	q.cwd = "/";
	assert_non_null(sbx_decide_exec_q(&v, &q, NULL));
	q.cwd = "/home";
	assert_null(sbx_decide_exec_q(&v, &q, NULL));
}

/* An empty policy compiles and answers "not covered" / "not denied". */
static void test_empty_policy(void **state)
{
	struct sbx_policy p;
	struct sbx_cpol v;
	struct sbx_err err;
	const char *why;
	char *argv[] = { "sudo", NULL };
	void *b;
	size_t len;

	(void)state;
	sbx_policy_init(&p);
	assert_int_equal(sbx_cpol_build(&p, 0, 0, &b, &len, &err), 0);
	assert_int_equal(sbx_cpol_view(b, len, &v, &why), 0);
	assert_int_equal(v.hdr->nrules, 0);
	assert_string_equal(sbx_cpol_str(&v, v.hdr->project), "");
	assert_int_equal(sbx_decide(&v, "/x", SBX_OP_READ, -1).verdict,
			 SBX_DENY_NOTCOVERED);
	assert_null(sbx_decide_exec(&v, "/usr/bin/sudo", argv));
	free(b);
	sbx_policy_free(&p);
}

/* Building the same policy twice gives the same bytes. */
static void test_deterministic(void **state)
{
	struct sbx_err err;
	void *b;
	size_t len;

	(void)state;
	assert_int_equal(sbx_cpol_build(&pol, SBX_KMODE_LANDLOCK,
					SBX_CPOL_F_SHIM_PROTECT, &b, &len,
					&err),
			 0);
	assert_int_equal(len, built_len);
	assert_memory_equal(b, built, len);
	free(b);
}

/* ------------------------------------------------------------ corruption */

static void test_flip_every_byte(void **state)
{
	static const unsigned char masks[] = { 0x01, 0x80, 0xff };
	unsigned char *b = copy_of(built, built_len);
	struct sbx_cpol v;
	const char *why;
	size_t accepted = 0;

	(void)state;
	for (size_t i = 0; i < built_len; i++) {
		for (size_t m = 0; m < sizeof(masks); m++) {
			b[i] ^= masks[m];
			why = NULL;
			if (sbx_cpol_view(b, built_len, &v, &why) == 0) {
				/* no checksum: a flip that keeps the
				 * structure valid is accepted, and safe */
				if (fixed_header_byte(i) || i == built_len - 1)
					fail_msg("flip at %zu ^ 0x%02x "
						 "accepted",
						 i, masks[m]);
				walk_view(&v);
				accepted++;
			} else {
				assert_non_null(why);
				assert_null(v.hdr); /* nothing left to use */
			}
			b[i] ^= masks[m];
		}
	}
	assert_int_equal(sbx_cpol_view(b, built_len, &v, &why), 0);
	free(b);
	print_message("flips accepted with a valid structure: %zu of %zu\n",
		      accepted, built_len * sizeof(masks));
}

static void test_truncation(void **state)
{
	struct sbx_cpol v;
	const char *why;

	(void)state;
	for (size_t len = 0; len < built_len; len++) {
		/* exact-size heap copy: ASan catches any read past len */
		unsigned char *b = copy_of(built, len);

		if (sbx_cpol_view(b, len, &v, &why) == 0)
			fail_msg("truncated to %zu bytes: accepted", len);
		free(b);
	}
	{
		unsigned char *b = malloc(built_len + 8);

		assert_non_null(b);
		memcpy(b, built, built_len);
		memset(b + built_len, 0, 8);
		assert_int_equal(sbx_cpol_view(b, built_len + 1, &v, &why), -1);
		assert_string_equal(why, "size mismatch");
		assert_int_equal(sbx_cpol_view(b, built_len + 8, &v, &why), -1);
		free(b);
	}
	assert_int_equal(sbx_cpol_view(built, SBX_CPOL_MAX_BYTES + 1, &v, &why),
			 -1);
	assert_string_equal(why, "bad size");
	assert_int_equal(sbx_cpol_view(built, (size_t)-1, &v, &why), -1);
}

static void test_misaligned(void **state)
{
	unsigned char *raw = malloc(built_len + 16);
	struct sbx_cpol v;
	const char *why;

	(void)state;
	assert_non_null(raw);
	for (size_t off = 1; off < 8; off++) {
		memcpy(raw + off, built, built_len);
		assert_int_equal(sbx_cpol_view(raw + off, built_len, &v, &why),
				 -1);
		assert_string_equal(why, "misaligned buffer");
	}
	memcpy(raw + 8, built, built_len);
	assert_int_equal(sbx_cpol_view(raw + 8, built_len, &v, &why), 0);
	assert_int_equal(sbx_cpol_view(NULL, built_len, &v, &why), -1);
	free(raw);
}

/* A rejected view answers nothing: no rule, no exec denial. */
static void test_rejected_view_is_inert(void **state)
{
	unsigned char *b = copy_of(built, built_len);
	struct sbx_cpol v;
	const char *why;
	char *argv[] = { "sudo", NULL };

	(void)state;
	b[built_len - 1] ^= 1;
	assert_int_equal(sbx_cpol_view(b, built_len, &v, &why), -1);
	assert_null(sbx_cpol_match(&v, "/etc/passwd"));
	assert_int_equal(
		sbx_decide(&v, "/etc/passwd", SBX_OP_WRITE, -1).verdict,
		SBX_DENY_NOTCOVERED);
	assert_null(sbx_decide_exec(&v, "/usr/bin/sudo", argv));
	free(b);
}

/* Random multi-byte damage at a few hundred positions. */
static void test_random_damage(void **state)
{
	unsigned char *b = copy_of(built, built_len);
	unsigned seed = 4242;
	struct sbx_cpol v;
	const char *why;

	(void)state;
	for (int iter = 0; iter < 500; iter++) {
		size_t n = 1 + (size_t)rand_r(&seed) % 8;
		size_t pos[8];
		unsigned char old[8];

		for (size_t k = 0; k < n; k++) {
			pos[k] = (size_t)rand_r(&seed) % built_len;
			old[k] = b[pos[k]];
			b[pos[k]] = (unsigned char)rand_r(&seed);
		}
		if (sbx_cpol_view(b, built_len, &v, &why) == 0)
			walk_view(&v); /* valid structure: safe to use */
		else
			assert_null(v.hdr);
		for (size_t k = n; k-- > 0;)
			b[pos[k]] = old[k];
	}
	free(b);
}

/* ------------------------------------------------------------ structural lies */

/* Edit a header or entry field, expect a rejection with why containing
 * want (NULL: any reason). */
typedef void (*edit_fn)(unsigned char *b, struct sbx_cpol_hdr *h);

static void expect_rejected(edit_fn fn, const char *want, const char *label)
{
	unsigned char *b = copy_of(built, built_len);
	struct sbx_cpol_hdr h;
	struct sbx_cpol v;
	const char *why = NULL;

	memcpy(&h, b, sizeof(h));
	fn(b, &h);
	memcpy(b, &h, sizeof(h));
	if (sbx_cpol_view(b, built_len, &v, &why) == 0)
		fail_msg("%s: accepted", label);
	if (want && (!why || !strstr(why, want)))
		fail_msg("%s: rejected with '%s', want '%s'", label,
			 why ? why : "(null)", want);
	free(b);
}

static struct sbx_cpol_rule *rule0(unsigned char *b, struct sbx_cpol_hdr *h)
{
	return (struct sbx_cpol_rule *)(void *)(b + h->off_rules);
}

static struct sbx_cpol_exec *exec0(unsigned char *b, struct sbx_cpol_hdr *h)
{
	return (struct sbx_cpol_exec *)(void *)(b + h->off_exec);
}

static void e_magic(unsigned char *b, struct sbx_cpol_hdr *h)
{
	(void)b;
	h->magic[0] = 'X';
}
/* a file of the format before (launcher and shim of different builds) */
static void e_version_old(unsigned char *b, struct sbx_cpol_hdr *h)
{
	(void)b;
	h->version = SBX_CPOL_VERSION - 1;
}
static void e_version(unsigned char *b, struct sbx_cpol_hdr *h)
{
	(void)b;
	h->version = SBX_CPOL_VERSION + 1;
}
static void e_size(unsigned char *b, struct sbx_cpol_hdr *h)
{
	(void)b;
	h->size--;
}
static void e_nrules_max(unsigned char *b, struct sbx_cpol_hdr *h)
{
	(void)b;
	h->nrules = SBX_CPOL_MAX_RULES + 1;
}
static void e_nexec_max(unsigned char *b, struct sbx_cpol_hdr *h)
{
	(void)b;
	h->nexec = SBX_CPOL_MAX_EXEC + 1;
}
static void e_nallow_max(unsigned char *b, struct sbx_cpol_hdr *h)
{
	(void)b;
	h->nallow = SBX_CPOL_MAX_ALLOW + 1;
}
static void e_nsock_max(unsigned char *b, struct sbx_cpol_hdr *h)
{
	(void)b;
	h->nsock = SBX_CPOL_MAX_SOCK + 1;
}
static void e_nrules_past(unsigned char *b, struct sbx_cpol_hdr *h)
{
	(void)b;
	h->nrules = 8000;
}
static void e_off_rules_odd(unsigned char *b, struct sbx_cpol_hdr *h)
{
	(void)b;
	h->off_rules += 4;
}
static void e_off_rules_hdr(unsigned char *b, struct sbx_cpol_hdr *h)
{
	(void)b;
	h->off_rules = 0;
}
static void e_off_rules_far(unsigned char *b, struct sbx_cpol_hdr *h)
{
	(void)b;
	h->off_rules = 0xfffffff8u;
}
static void e_off_exec_far(unsigned char *b, struct sbx_cpol_hdr *h)
{
	(void)b;
	h->off_exec = h->size;
}
static void e_off_sock_wrap(unsigned char *b, struct sbx_cpol_hdr *h)
{
	(void)b;
	h->nsock = 2;
	h->off_sock = 0xfffffff8u;
}
static void e_strings_far(unsigned char *b, struct sbx_cpol_hdr *h)
{
	(void)b;
	h->len_strings += 8;
}
static void e_strings_zero(unsigned char *b, struct sbx_cpol_hdr *h)
{
	(void)b;
	h->len_strings = 0;
}
static void e_strings_unterminated(unsigned char *b, struct sbx_cpol_hdr *h)
{
	b[h->off_strings + h->len_strings - 1] = 'x';
}
static void e_project_off(unsigned char *b, struct sbx_cpol_hdr *h)
{
	(void)b;
	h->project = h->len_strings;
}
static void e_home_off(unsigned char *b, struct sbx_cpol_hdr *h)
{
	(void)b;
	h->home = 0xffffffffu;
}
static void e_profile_off(unsigned char *b, struct sbx_cpol_hdr *h)
{
	(void)b;
	h->profile = h->len_strings + 100;
}
static void e_net_src_off(unsigned char *b, struct sbx_cpol_hdr *h)
{
	(void)b;
	h->net_src_file = h->len_strings;
}
static void e_rule_root_off(unsigned char *b, struct sbx_cpol_hdr *h)
{
	rule0(b, h)->root = h->len_strings;
}
static void e_rule_root_rel(unsigned char *b, struct sbx_cpol_hdr *h)
{
	rule0(b, h)->root = 0;
} /* "" */
static void e_rule_rootlen(unsigned char *b, struct sbx_cpol_hdr *h)
{
	rule0(b, h)->rootlen++;
}
static void e_rule_rootlen_big(unsigned char *b, struct sbx_cpol_hdr *h)
{
	rule0(b, h)->rootlen = 0xffffu;
}
static void e_rule_mode0(unsigned char *b, struct sbx_cpol_hdr *h)
{
	rule0(b, h)->mode = 0;
}
static void e_rule_mode4(unsigned char *b, struct sbx_cpol_hdr *h)
{
	rule0(b, h)->mode = 4;
}
static void e_rule_nsfx(unsigned char *b, struct sbx_cpol_hdr *h)
{
	rule0(b, h)->nsuffixes = SBX_MAX_SUFFIXES + 1;
}
static void e_rule_sfx_off(unsigned char *b, struct sbx_cpol_hdr *h)
{
	struct sbx_cpol_rule *r = rule0(b, h);

	/* a suffix list entry that names no string */
	r->nsuffixes = 1;
	r->suffixes = 0;
	assert_true(h->nsfx > 0);
	((uint32_t *)(void *)(b + h->off_sfx))[0] = h->len_strings + 3;
}
static void e_bloom_section(unsigned char *b, struct sbx_cpol_hdr *h)
{
	(void)b;
	h->off_bloom = h->size - 8;
}
static void e_reserved(unsigned char *b, struct sbx_cpol_hdr *h)
{
	(void)b;
	h->reserved = 1;
}
static void e_reserved2(unsigned char *b, struct sbx_cpol_hdr *h)
{
	(void)b;
	h->reserved2 = 1; /* v4's checksum field */
}
static void e_flags(unsigned char *b, struct sbx_cpol_hdr *h)
{
	(void)b;
	h->flags |= SBX_CPOL_F_ALL + 1;
}
static void e_net(unsigned char *b, struct sbx_cpol_hdr *h)
{
	(void)b;
	h->net = SBX_NET_FILTERED + 1;
}
static void e_kmode(unsigned char *b, struct sbx_cpol_hdr *h)
{
	(void)b;
	h->kmode = SBX_KMODE_LANDLOCK + 1;
}
static void e_rule_sfx_index(unsigned char *b, struct sbx_cpol_hdr *h)
{
	struct sbx_cpol_rule *r = rule0(b, h);

	/* a rule's suffixes past the end of the list */
	r->nsuffixes = 2;
	r->suffixes = h->nsfx - 1;
}
static void e_rule_sfx_index_wrap(unsigned char *b, struct sbx_cpol_hdr *h)
{
	struct sbx_cpol_rule *r = rule0(b, h);

	(void)h;
	r->nsuffixes = 2;
	r->suffixes = 0xffffffffu;
}
static void e_nsfx(unsigned char *b, struct sbx_cpol_hdr *h)
{
	(void)b;
	h->nsfx = SBX_CPOL_MAX_SFX + 1;
}
static void e_sfx_section(unsigned char *b, struct sbx_cpol_hdr *h)
{
	(void)b;
	h->off_sfx = h->size - 4;
	h->nsfx = 2;
}
static void e_rule_src(unsigned char *b, struct sbx_cpol_hdr *h)
{
	rule0(b, h)->src_file = 0x7fffffffu;
}
static void e_rule_unsorted(unsigned char *b, struct sbx_cpol_hdr *h)
{
	struct sbx_cpol_rule *r = rule0(b, h), t;
	uint32_t n = h->nrules;

	t = r[0]; /* longest goes last */
	r[0] = r[n - 1];
	r[n - 1] = t;
}
static void e_rule_mode_order(unsigned char *b, struct sbx_cpol_hdr *h)
{
	struct sbx_cpol_rule *r = rule0(b, h);

	/* find two adjacent rules of equal length, make the later stronger */
	for (uint32_t i = 1; i < h->nrules; i++)
		if (r[i].rootlen == r[i - 1].rootlen) {
			r[i].mode = SBX_HIDE;
			r[i - 1].mode = SBX_RW;
			return;
		}
	fail_msg("no equal-length rules in the rich policy");
}
static void e_exec_nargs(unsigned char *b, struct sbx_cpol_hdr *h)
{
	exec0(b, h)->nargs = SBX_MAX_EXEC_ARGS + 1;
}
static void e_exec_prog(unsigned char *b, struct sbx_cpol_hdr *h)
{
	exec0(b, h)->program = h->len_strings;
}
static void e_exec_reason(unsigned char *b, struct sbx_cpol_hdr *h)
{
	exec0(b, h)->reason = 0x80000000u;
}
static void e_exec_arg(unsigned char *b, struct sbx_cpol_hdr *h)
{
	struct sbx_cpol_exec *e = exec0(b, h);

	e->nargs = 1;
	e->args[0] = h->len_strings;
}
static void e_allow_host(unsigned char *b, struct sbx_cpol_hdr *h)
{
	((struct sbx_cpol_allow *)(void *)(b + h->off_allow))->host =
		h->len_strings;
}
static void e_allow_src(unsigned char *b, struct sbx_cpol_hdr *h)
{
	((struct sbx_cpol_allow *)(void *)(b + h->off_allow))->src_file =
		h->len_strings;
}
static void e_allow_cidr(unsigned char *b, struct sbx_cpol_hdr *h)
{
	((struct sbx_cpol_allow *)(void *)(b + h->off_allow))->is_cidr = 2;
}
static void e_sock(unsigned char *b, struct sbx_cpol_hdr *h)
{
	((uint32_t *)(void *)(b + h->off_sock))[1] = h->len_strings;
}

static void test_sealed_lies(void **state)
{
	static const struct {
		edit_fn fn;
		const char *why;
		const char *label;
	} rows[] = {
		{ e_magic, "bad magic", "magic" },
		{ e_version, "unsupported version", "version" },
		{ e_version_old, "unsupported version", "older version" },
		{ e_size, "size mismatch", "size" },
		{ e_reserved2, "bad header field", "second reserved field" },
		{ e_flags, "bad header field", "unknown flag" },
		{ e_net, "bad header field", "network mode" },
		{ e_kmode, "bad header field", "kernel mode" },
		{ e_nrules_max, "too many entries", "nrules > max" },
		{ e_nexec_max, "too many entries", "nexec > max" },
		{ e_nallow_max, "too many entries", "nallow > max" },
		{ e_nsock_max, "too many entries", "nsock > max" },
		{ e_nrules_past, "out of bounds", "rules past the end" },
		{ e_off_rules_odd, "out of bounds", "rules misaligned" },
		{ e_off_rules_hdr, "out of bounds", "rules over the header" },
		{ e_off_rules_far, "out of bounds", "rules far away" },
		{ e_off_exec_far, "out of bounds", "exec at the end" },
		{ e_off_sock_wrap, "out of bounds", "sock offset wraps" },
		{ e_strings_far, "out of bounds", "strings past the end" },
		{ e_strings_zero, "out of bounds", "no strings" },
		{ e_strings_unterminated, "not terminated",
		  "strings unterminated" },
		{ e_project_off, "bad entry", "project offset" },
		{ e_home_off, "bad entry", "home offset" },
		{ e_profile_off, "bad entry", "profile offset" },
		{ e_net_src_off, "bad entry", "network source offset" },
		{ e_rule_root_off, "bad entry", "rule root offset" },
		{ e_rule_root_rel, "bad entry", "rule root not absolute" },
		{ e_rule_rootlen, "bad entry", "rule rootlen" },
		{ e_rule_rootlen_big, "bad entry", "rule rootlen huge" },
		{ e_rule_mode0, "bad entry", "rule mode 0" },
		{ e_rule_mode4, "bad entry", "rule mode 4" },
		{ e_rule_nsfx, "bad entry", "rule nsuffixes" },
		{ e_rule_sfx_off, "bad entry", "rule suffix offset" },
		{ e_rule_sfx_index, "bad entry", "rule suffix index" },
		{ e_rule_sfx_index_wrap, "bad entry",
		  "rule suffix index wraps" },
		{ e_nsfx, "too many entries", "suffix count" },
		{ e_bloom_section, "section out of bounds", "hide filter" },
		{ e_reserved, "section out of bounds", "reserved field" },
		{ e_sfx_section, "section out of bounds", "suffix section" },
		{ e_rule_src, "bad entry", "rule src offset" },
		{ e_rule_unsorted, "bad entry", "rules unsorted" },
		{ e_rule_mode_order, "bad entry",
		  "equal length, weaker first" },
		{ e_exec_nargs, "bad entry", "exec nargs" },
		{ e_exec_prog, "bad entry", "exec program offset" },
		{ e_exec_reason, "bad entry", "exec reason offset" },
		{ e_exec_arg, "bad entry", "exec arg offset" },
		{ e_allow_host, "bad entry", "allow host offset" },
		{ e_allow_src, "bad entry", "allow source offset" },
		{ e_allow_cidr, "bad entry", "allow is_cidr" },
		{ e_sock, "bad entry", "socket offset" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
		expect_rejected(rows[i].fn, rows[i].why, rows[i].label);
}

/* Edits that keep the structure valid are accepted: there is no
 * checksum (cpol.h says why), and the shim only ever loses explanations. */
static void test_sealed_benign(void **state)
{
	unsigned char *b = copy_of(built, built_len);
	struct sbx_cpol_hdr h;
	struct sbx_cpol v;
	const char *why;

	(void)state;
	memcpy(&h, b, sizeof(h));
	h.nrules = 0;
	h.flags = 0;
	memcpy(b, &h, sizeof(h));
	assert_int_equal(sbx_cpol_view(b, built_len, &v, &why), 0);
	assert_int_equal(sbx_decide(&v, "/etc/passwd", SBX_OP_READ, -1).verdict,
			 SBX_DENY_NOTCOVERED);
	free(b);
}

/* ------------------------------------------------------------ limits */

static void fill_rules(struct sbx_policy *p, size_t n, size_t rootlen)
{
	p->rules = calloc(n, sizeof(*p->rules));
	assert_non_null(p->rules);
	p->caprules = n;
	for (size_t i = 0; i < n; i++) {
		char *root = malloc(rootlen + 1);
		int w;

		assert_non_null(root);
		w = snprintf(root, rootlen + 1, "/%08zu", i); /* rootlen >= 9 */
		for (size_t k = (size_t)w; k < rootlen; k++)
			root[k] = 'r';
		root[rootlen] = '\0';
		p->rules[i].root = root;
		p->rules[i].rootlen = strlen(root);
		p->rules[i].mode = SBX_RO;
		p->nrules++;
	}
}

static void test_too_many_rules(void **state)
{
	struct sbx_policy p;
	struct sbx_cpol v;
	struct sbx_err err;
	const char *why;
	void *b;
	size_t len;

	(void)state;
	sbx_policy_init(&p);
	fill_rules(&p, SBX_CPOL_MAX_RULES, 9);
	assert_int_equal(sbx_cpol_build(&p, 0, 0, &b, &len, &err), 0);
	assert_int_equal(sbx_cpol_view(b, len, &v, &why), 0);
	assert_int_equal(v.hdr->nrules, SBX_CPOL_MAX_RULES);
	assert_non_null(sbx_cpol_match(&v, "/00004321/x"));
	free(b);
	sbx_policy_free(&p);

	sbx_policy_init(&p);
	fill_rules(&p, SBX_CPOL_MAX_RULES + 1, 9);
	err.msg[0] = '\0';
	assert_int_equal(sbx_cpol_build(&p, 0, 0, &b, &len, &err), -1);
	assert_non_null(strstr(err.msg, "too large"));
	sbx_policy_free(&p);
}

static void test_too_many_bytes(void **state)
{
	struct sbx_policy p;
	struct sbx_err err;
	void *b;
	size_t len;

	(void)state;
	/* 2000 rules with 2100-byte roots: over 4 MiB of strings */
	sbx_policy_init(&p);
	fill_rules(&p, 2000, 2100);
	err.msg[0] = '\0';
	assert_int_equal(sbx_cpol_build(&p, 0, 0, &b, &len, &err), -1);
	assert_non_null(strstr(err.msg, "too large"));
	sbx_policy_free(&p);
}

static void test_too_many_other(void **state)
{
	struct sbx_policy p;
	struct sbx_err err;
	void *b;
	size_t len;

	(void)state;
	sbx_policy_init(&p);
	for (size_t i = 0; i <= SBX_CPOL_MAX_EXEC; i++)
		assert_int_equal(sbx_policy_add_exec(&p, "x", NULL, 0, "r",
						     (struct sbx_src){ 0 },
						     &err),
				 0);
	assert_int_equal(sbx_cpol_build(&p, 0, 0, &b, &len, &err), -1);
	sbx_policy_free(&p);

	sbx_policy_init(&p);
	for (size_t i = 0; i <= SBX_CPOL_MAX_ALLOW; i++)
		assert_int_equal(sbx_policy_add_allow(&p, "a.com",
						      (struct sbx_src){ 0 },
						      &err),
				 0);
	assert_int_equal(sbx_cpol_build(&p, 0, 0, &b, &len, &err), -1);
	sbx_policy_free(&p);

	sbx_policy_init(&p);
	for (size_t i = 0; i <= SBX_CPOL_MAX_SOCK; i++)
		assert_int_equal(sbx_strv_add(&p, &p.unix_sockets, "/s",
					      (struct sbx_src){ 0 }),
				 0);
	assert_int_equal(sbx_cpol_build(&p, 0, 0, &b, &len, &err), -1);
	sbx_policy_free(&p);

	/* exactly at the limits: fine */
	sbx_policy_init(&p);
	for (size_t i = 0; i < SBX_CPOL_MAX_SOCK; i++)
		assert_int_equal(sbx_strv_add(&p, &p.unix_sockets, "/s",
					      (struct sbx_src){ 0 }),
				 0);
	for (size_t i = 0; i < SBX_CPOL_MAX_EXEC; i++)
		assert_int_equal(sbx_policy_add_exec(&p, "x", NULL, 0, "r",
						     (struct sbx_src){ 0 },
						     &err),
				 0);
	assert_int_equal(sbx_cpol_build(&p, 0, 0, &b, &len, &err), 0);
	free(b);
	sbx_policy_free(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_roundtrip_header),
		cmocka_unit_test(test_roundtrip_rules),
		cmocka_unit_test(test_roundtrip_exec_allow_sock),
		cmocka_unit_test(test_roundtrip_decisions),
		cmocka_unit_test(test_exec_runs),
		cmocka_unit_test(test_empty_policy),
		cmocka_unit_test(test_deterministic),
		cmocka_unit_test(test_flip_every_byte),
		cmocka_unit_test(test_truncation),
		cmocka_unit_test(test_misaligned),
		cmocka_unit_test(test_rejected_view_is_inert),
		cmocka_unit_test(test_random_damage),
		cmocka_unit_test(test_sealed_lies),
		cmocka_unit_test(test_sealed_benign),
		cmocka_unit_test(test_too_many_rules),
		cmocka_unit_test(test_too_many_bytes),
		cmocka_unit_test(test_too_many_other),
	};

	return cmocka_run_group_tests_name("cpol", tests, setup, teardown);
}
