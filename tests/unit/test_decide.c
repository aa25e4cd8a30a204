/*
 * test_decide.c - the parts of the one decider (core/decide.h) and the
 * one explainer (core/explain.h) the decision table does not reach: who
 * enforces a refusal (kernel or shim, per mode), the tree check for
 * removes and moves, the facts a caller supplies, the kernel-refusal
 * interpretation of an errno, network decisions (the proxy's steps and
 * the view from inside) and the exact text of each explanation shape.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <arpa/inet.h>
#include <netinet/in.h>

#include "cpol.h"
#include "decide.h"
#include "explain.h"
#include "policy.h"

#define PROJ "/sbxt/p"
#define HOME "/sbxt/home/u"

struct built {
	void *buf;
	size_t len;
	struct sbx_cpol v;
};

static void add(struct sbx_policy *p, const char *root, enum sbx_pmode m,
		int line)
{
	const struct sbx_rule r = { .root = root,
				    .mode = m,
				    .src = { "t.conf", line } };
	struct sbx_err err;

	assert_int_equal(sbx_policy_add_rule(p, &r, &err), 0);
}

/* A project with a protect entry, a read-only rule right below it
 * (vendor), one further down (vendor/ro2 under a rw vendor/w), a
 * read-only tree outside (/sbxt/opt), a hidden secret and a note
 * directory with suffixes and a size limit. */
static void build(struct built *b, enum sbx_kmode mode, unsigned flags)
{
	static const char *const md[] = { ".md" };
	const struct sbx_rule notes = { .root = "notes",
					.mode = SBX_RW,
					.suffixes = md,
					.nsuffixes = 1,
					.max_file_bytes = 100,
					.src = { "t.conf", 5 } };
	struct sbx_policy p;
	struct sbx_err err;
	const char *why;

	sbx_policy_init(&p);
	p.project = strdup(PROJ);
	p.home = strdup(HOME);
	add(&p, "/", SBX_RO, 1);
	add(&p, "~/.ssh", SBX_HIDE, 2);
	add(&p, "vendor", SBX_RO, 3);
	add(&p, "/sbxt/opt", SBX_RO, 4);
	assert_int_equal(sbx_policy_add_rule(&p, &notes, &err), 0);
	assert_int_equal(sbx_strv_add(&p, &p.protect, ".git/hooks",
				      (struct sbx_src){ "t.conf", 6 }),
			 0);
	assert_int_equal(sbx_policy_add_allow(&p, "*.github.com:443",
					      (struct sbx_src){ "t.conf", 7 },
					      &err),
			 0);
	assert_int_equal(sbx_policy_add_allow(&p, "10.0.0.0/8",
					      (struct sbx_src){ "t.conf", 8 },
					      &err),
			 0);
	p.net = SBX_NET_FILTERED;
	p.net_src = (struct sbx_src){ sbx_policy_intern(&p, "t.conf"), 9 };
	assert_int_equal(sbx_policy_finish(&p, &err), 0);
	assert_int_equal(
		sbx_cpol_build(&p, mode, flags, &b->buf, &b->len, &err), 0);
	assert_int_equal(sbx_cpol_view(b->buf, b->len, &b->v, &why), 0);
	sbx_policy_free(&p);
}

static struct built full, llonly;

static int setup(void **state)
{
	(void)state;
	build(&full, SBX_KMODE_FULL, 0);
	build(&llonly, SBX_KMODE_LANDLOCK, SBX_CPOL_F_SHIM_PROTECT);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	free(full.buf);
	free(llonly.buf);
	return 0;
}

static const char *root_of(const struct built *b,
			   const struct sbx_path_decision *d)
{
	return d->rule ? sbx_cpol_str(&b->v, d->rule->root) : "(none)";
}

/* ------------------------------------------------------------ who holds it */

static void test_app_per_mode(void **state)
{
	static const struct {
		const char *path;
		unsigned chk;
		enum sbx_verdict want;
		const char *root;
		int app_full, app_ll;
	} rows[] = {
		/* protect entry: the mounts hold it, else the shim */
		{ PROJ "/.git/hooks/pre-commit", SBX_Q_MODIFY,
		  SBX_DENY_READONLY, PROJ "/.git/hooks", 0, 1 },
		/* a plain read-only rule right below the writable project:
		 * the same (landlock.c cannot carve it) */
		{ PROJ "/vendor/lib.c", SBX_Q_MODIFY, SBX_DENY_READONLY,
		  PROJ "/vendor", 0, 1 },
		/* read-only outside every writable root: the kernel's */
		{ "/sbxt/opt/x", SBX_Q_MODIFY, SBX_DENY_READONLY, "/sbxt/opt",
		  0, 0 },
		{ "/etc/passwd", SBX_Q_MODIFY, SBX_DENY_READONLY, "/", 0, 0 },
		/* hidden and uncovered: always the kernel's */
		{ HOME "/.ssh/id", SBX_Q_MODIFY, SBX_DENY_HIDDEN, HOME "/.ssh",
		  0, 0 },
		/* application rules: always the shim's */
		{ PROJ "/notes/x.exe", SBX_Q_NAME, SBX_DENY_SUFFIX,
		  PROJ "/notes", 1, 1 },
		/* the tree check: moving .git moves .git/hooks along */
		{ PROJ "/.git", SBX_Q_MODIFY | SBX_Q_TREE, SBX_DENY_READONLY,
		  PROJ "/.git/hooks", 0, 1 },
		{ PROJ, SBX_Q_MODIFY | SBX_Q_TREE, SBX_DENY_READONLY,
		  NULL /* a hole below */, 0, 1 },
		{ PROJ "/src", SBX_Q_MODIFY | SBX_Q_TREE, SBX_ALLOW, PROJ, 0,
		  0 },
		/* without the tree bit, only the path itself counts */
		{ PROJ "/.git", SBX_Q_MODIFY, SBX_ALLOW, PROJ, 0, 0 },
		/* Landlock has no attribute rights: chmod, chown, utimes
		 * outside writable roots are the shim's in landlock-only */
		{ "/etc/passwd", SBX_Q_MODIFY | SBX_Q_ATTR, SBX_DENY_READONLY,
		  "/", 0, 1 },
		{ HOME "/.ssh/id", SBX_Q_MODIFY | SBX_Q_ATTR, SBX_DENY_HIDDEN,
		  HOME "/.ssh", 0, 1 },
		{ PROJ "/src/a.c", SBX_Q_MODIFY | SBX_Q_ATTR, SBX_ALLOW, PROJ,
		  0, 0 },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		const struct built *bs[2] = { &full, &llonly };

		for (int m = 0; m < 2; m++) {
			struct sbx_path_q q = { rows[i].path, SBX_OP_WRITE,
						rows[i].chk,  -1,
						NULL,	      NULL };
			struct sbx_path_decision d =
				sbx_decide_path(&bs[m]->v, &q);
			int app = m ? rows[i].app_ll : rows[i].app_full;

			if (d.verdict != rows[i].want || d.app != app ||
			    (rows[i].root &&
			     strcmp(root_of(bs[m], &d), rows[i].root) != 0))
				fail_msg("row %zu %s (%s): verdict %d app %d "
					 "root %s",
					 i, rows[i].path, m ? "ll" : "full",
					 d.verdict, d.app, root_of(bs[m], &d));
		}
	}
}

/* ------------------------------------------------------------ facts */

static int calls_file, calls_size;

static int f_dir(const struct sbx_path_q *q)
{
	(void)q;
	calls_file++;
	return 0;
}

static int f_file(const struct sbx_path_q *q)
{
	(void)q;
	calls_file++;
	return 1;
}

static int64_t f_size(const struct sbx_path_q *q)
{
	calls_size++;
	return *(const int64_t *)q->ctx;
}

static void test_facts(void **state)
{
	const struct sbx_path_facts dir = { f_dir, f_size, NULL },
				    file = { f_file, f_size, NULL };
	int64_t sz = 500;
	struct sbx_path_q q = { PROJ "/notes/sub",
				SBX_OP_WRITE,
				SBX_Q_NAME | SBX_Q_MODIFY,
				-1,
				&dir,
				&sz };
	struct sbx_path_decision d;

	(void)state;
	/* a directory has no suffix; asked once, only because the name
	 * failed */
	d = sbx_decide_path(&full.v, &q);
	assert_int_equal(d.verdict, SBX_ALLOW);
	assert_int_equal(calls_file, 1);
	q.facts = &file;
	assert_int_equal(sbx_decide_path(&full.v, &q).verdict, SBX_DENY_SUFFIX);
	/* a good name: the object is never looked at */
	calls_file = 0;
	q.path = PROJ "/notes/a.md";
	assert_int_equal(sbx_decide_path(&full.v, &q).verdict, SBX_ALLOW);
	assert_int_equal(calls_file, 0);
	/* the existing file's size, only with SBX_Q_SIZE */
	assert_int_equal(calls_size, 0);
	q.chk |= SBX_Q_SIZE;
	d = sbx_decide_path(&full.v, &q);
	assert_int_equal(d.verdict, SBX_DENY_SIZE);
	assert_int_equal(d.size, 500);
	assert_int_equal(d.app, 1);
	assert_int_equal(calls_size, 1);
	/* the call's own size wins, the file is not asked */
	q.size = 50;
	assert_int_equal(sbx_decide_path(&full.v, &q).verdict, SBX_ALLOW);
	assert_int_equal(calls_size, 1);
	/* no facts: a plain query assumes a file, knows no size */
	assert_int_equal(
		sbx_decide(&full.v, PROJ "/notes/sub", SBX_OP_WRITE, -1).verdict,
		SBX_DENY_SUFFIX);
}

/* ------------------------------------------------------------ errno */

static void test_failure(void **state)
{
	static const struct {
		const char *path;
		enum sbx_op op;
		int err;
		enum sbx_verdict want;
	} rows[] = {
		{ HOME "/.ssh/id", SBX_OP_READ, ENOENT, SBX_DENY_HIDDEN },
		{ HOME "/.ssh/id", SBX_OP_EXEC, EACCES, SBX_DENY_HIDDEN },
		{ "/etc/x", SBX_OP_WRITE, EROFS, SBX_DENY_READONLY },
		{ "/etc/x", SBX_OP_WRITE, EACCES, SBX_DENY_READONLY },
		/* a missing file under a read-only rule is just missing */
		{ "/etc/x", SBX_OP_WRITE, ENOENT, SBX_ALLOW },
		{ "/etc/x", SBX_OP_READ, EACCES, SBX_ALLOW },
		/* other errors are never the policy's */
		{ HOME "/.ssh/id", SBX_OP_READ, EIO, SBX_ALLOW },
		{ HOME "/.ssh/id", SBX_OP_READ, EBUSY, SBX_ALLOW },
		/* full mode's mounts: a protected path, or a directory
		 * holding one, renamed, removed or linked (issue 13) */
		{ PROJ "/.git/hooks/pre-commit", SBX_OP_WRITE, EBUSY,
		  SBX_DENY_READONLY },
		{ PROJ "/.git", SBX_OP_WRITE, EBUSY, SBX_DENY_READONLY },
		{ "/etc/x", SBX_OP_WRITE, EXDEV, SBX_DENY_READONLY },
		/* the source of a link is only read; a writable path's
		 * EXDEV is an ordinary cross-device link */
		{ PROJ "/.git/hooks/pre-commit", SBX_OP_READ, EXDEV,
		  SBX_ALLOW },
		{ PROJ "/src/a.c", SBX_OP_WRITE, EXDEV, SBX_ALLOW },
		{ PROJ "/src/a.c", SBX_OP_WRITE, EBUSY, SBX_ALLOW },
		/* a hidden file (a /dev/null bind) linked elsewhere */
		{ HOME "/.ssh/id", SBX_OP_READ, EXDEV, SBX_DENY_HIDDEN },
		/* the application rules are not the kernel's to refuse */
		{ PROJ "/notes/x.exe", SBX_OP_WRITE, EACCES, SBX_ALLOW },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		struct sbx_path_decision d = sbx_decide_failure(
			&llonly.v, rows[i].path, rows[i].op, rows[i].err);

		if (d.verdict != rows[i].want || d.app)
			fail_msg("row %zu: %s errno %d -> %d", i, rows[i].path,
				 rows[i].err, d.verdict);
	}
}

/* ------------------------------------------------------------ network */

/* The proxy's steps over the table's policy (*.github.com:443,
 * 10.0.0.0/8, filtered); test_netallow.c has the whole table. */
static void test_net(void **state)
{
	static const struct {
		const char *host;
		uint16_t port;
		enum sbx_net_why want;
		const char *entry;
	} rows[] = {
		{ "api.github.com", 443, SBX_NETW_ALLOW, "*.github.com:443" },
		{ "API.GitHub.com", 443, SBX_NETW_ALLOW, "*.github.com:443" },
		{ "github.com", 443, SBX_NETW_NOT_LISTED, NULL },
		{ "api.github.com", 80, SBX_NETW_PORT, "*.github.com:443" },
		{ "10.1.2.3", 22, SBX_NETW_ALLOW, "10.0.0.0/8" },
		{ "11.1.2.3", 22, SBX_NETW_ADDR, NULL },
		{ "[::ffff:10.9.9.9]", 5, SBX_NETW_ALLOW, "10.0.0.0/8" },
		/* the host's loopback, seen from the proxy outside */
		{ "127.0.0.1", 8080, SBX_NETW_CLASS, NULL },
		{ "[::1]", 8080, SBX_NETW_CLASS, NULL },
		{ "169.254.169.254", 80, SBX_NETW_NEVER, NULL },
		{ "::ffff:169.254.169.254", 80, SBX_NETW_NEVER, NULL },
		{ "fe80::1", 80, SBX_NETW_NEVER, NULL },
		{ "example.com", 0, SBX_NETW_BADHOST, NULL },
		{ "::1:80", 80, SBX_NETW_CLASS, NULL }, /* it is an address */
		{ "", 80, SBX_NETW_BADHOST, NULL },
		{ "a..b", 80, SBX_NETW_BADHOST, NULL },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		struct sbx_net_decision d =
			sbx_decide_host(&full.v, rows[i].host, rows[i].port);
		const char *e = d.rule ? sbx_cpol_str(&full.v, d.rule->text)
				       : NULL;

		if (d.why != rows[i].want ||
		    (e == NULL) != (rows[i].entry == NULL) ||
		    (e && strcmp(e, rows[i].entry) != 0))
			fail_msg("%s:%u: %s entry %s", rows[i].host,
				 rows[i].port, sbx_net_why_kind(d.why),
				 e ? e : "(none)");
	}
}

/* From inside: the mode first; the sandbox's own loopback in full mode;
 * name lookups (no address, port 0: any). */
static void test_net_modes(void **state)
{
	struct sbx_ip a = { 0 };
	struct sockaddr_in in = { .sin_family = AF_INET,
				  .sin_port = htons(443) };
	struct sbx_cpol v = full.v; /* a view of a copy of the header */
	struct sbx_cpol_hdr h;
	uint16_t port;

	(void)state;
	assert_int_equal(sbx_decide_net(&v, "x.github.com", NULL, 0).why,
			 SBX_NETW_ALLOW);
	assert_int_equal(sbx_decide_net(&v, "example.com", NULL, 0).why,
			 SBX_NETW_NOT_LISTED);
	inet_pton(AF_INET, "127.0.0.2", &in.sin_addr);
	assert_int_equal(sbx_ip_from_sockaddr((void *)&in, sizeof(in) - 1, &a,
					      &port),
			 -1);
	assert_int_equal(
		sbx_ip_from_sockaddr((void *)&in, sizeof(in), &a, &port), 0);
	assert_int_equal(port, 443);
	/* filtered: full mode has a loopback of its own, landlock-only
	 * would reach the host's */
	assert_int_equal(sbx_decide_net(&v, NULL, &a, port).why,
			 SBX_NETW_ALLOW);
	assert_int_equal(sbx_decide_net(&llonly.v, NULL, &a, port).why,
			 SBX_NETW_CLASS);
	/* a name that resolved to the (host's) loopback */
	assert_int_equal(sbx_decide_net(&llonly.v, "x.github.com", &a, 443).why,
			 SBX_NETW_CLASS);
	memcpy(&h, v.hdr, sizeof(h));
	v.hdr = &h;
	h.net = SBX_NET_OFF;
	assert_int_equal(sbx_decide_net(&v, NULL, &a, port).why, SBX_NETW_MODE);
	assert_int_equal(sbx_decide_net(&v, NULL, &a, port).cls,
			 SBX_AC_LOOPBACK);
	h.net = SBX_NET_LOOPBACK;
	assert_int_equal(sbx_decide_net(&v, NULL, &a, port).why,
			 SBX_NETW_ALLOW);
	assert_int_equal(sbx_decide_net(&v, "example.com", NULL, 0).why,
			 SBX_NETW_MODE);
	/* the proxy decides for filtered only */
	assert_int_equal(sbx_decide_host(&v, "x.github.com", 443).why,
			 SBX_NETW_MODE);
	h.net = SBX_NET_ON;
	assert_int_equal(sbx_decide_net(&v, "example.com", NULL, 0).why,
			 SBX_NETW_ALLOW);
}

/* ------------------------------------------------------------ texts */

static void test_texts(void **state)
{
	struct sbx_path_decision d;
	struct sbx_expl e;

	(void)state;
	d = sbx_decide(&full.v, HOME "/.ssh/id_rsa", SBX_OP_READ, -1);
	sbx_explain_path(&full.v, HOME "/.ssh/id_rsa", HOME "/.ssh/id_rsa",
			 SBX_OP_READ, &d, 0, &e);
	assert_string_equal(e.msg,
			    "sbxrun: cannot read '" HOME
			    "/.ssh/id_rsa': hidden "
			    "by the sandbox policy (secrets; rule ~/.ssh from "
			    "t.conf:2); to allow: sbxrun --allow-read " HOME
			    "/.ssh/id_rsa");
	assert_string_equal(e.kind, "hidden");
	assert_string_equal(e.rule, HOME "/.ssh");
	assert_string_equal(e.src, "t.conf:2");
	/* the fix is optional */
	sbx_explain_path(&full.v, "x", HOME "/.ssh/id_rsa", SBX_OP_WRITE, &d,
			 SBX_EXPL_NO_FIX, &e);
	assert_string_equal(e.msg, "sbxrun: cannot write 'x': hidden by the "
				   "sandbox policy (secrets; rule ~/.ssh from "
				   "t.conf:2)");
	d = sbx_decide(&full.v, "/etc/x", SBX_OP_WRITE, -1);
	sbx_explain_path(&full.v, "/etc/x", "/etc/x", SBX_OP_WRITE, &d, 0, &e);
	assert_string_equal(e.msg, "sbxrun: cannot write '/etc/x': read-only "
				   "in this sandbox (writable: " PROJ ", /tmp; "
				   "rule / from t.conf:1); to "
				   "allow: sbxrun --allow-write /etc/x");
	d = sbx_decide(&full.v, PROJ "/.git/hooks/x", SBX_OP_WRITE, -1);
	sbx_explain_path(&full.v, ".git/hooks/x", PROJ "/.git/hooks/x",
			 SBX_OP_WRITE, &d, 0, &e);
	assert_string_equal(
		e.msg, "sbxrun: cannot write '.git/hooks/x': protected, "
		       "read-only even inside a writable path: it can "
		       "make programs run outside the sandbox later (rule " PROJ
		       "/.git/hooks from t.conf:6); no flag lifts that: to "
		       "change it, use a profile of your own without it in "
		       "'protect' (--profile FILE)");
	d = sbx_decide(&full.v, PROJ "/notes/Makefile", SBX_OP_WRITE, -1);
	sbx_explain_path(&full.v, "notes/Makefile", PROJ "/notes/Makefile",
			 SBX_OP_WRITE, &d, 0, &e);
	assert_string_equal(e.msg,
			    "sbxrun: cannot write 'notes/Makefile': no allowed "
			    "suffix in 'Makefile' (allowed: .md; rule " PROJ
			    "/notes from t.conf:5)");
	d = sbx_decide(&full.v, PROJ "/notes/a.md", SBX_OP_READ, 1234);
	sbx_explain_path(&full.v, "notes/a.md", PROJ "/notes/a.md", SBX_OP_READ,
			 &d, 0, &e);
	assert_string_equal(e.msg, "sbxrun: cannot read 'notes/a.md': 1234 "
				   "bytes, over the 100-byte limit (rule " PROJ
				   "/notes from t.conf:5)");
	/* control bytes from the program never break the line */
	sbx_explain_path(&full.v, "a\nb", PROJ "/notes/a.md", SBX_OP_READ, &d,
			 0, &e);
	assert_null(strchr(e.msg, '\n'));
}

/* The supervisor's listener: a seccomp refusal (issue 13). */
static void test_texts_syscall(void **state)
{
	struct sbx_cpol v = full.v;
	struct sbx_cpol_hdr h = *full.v.hdr;
	struct sbx_expl e;

	(void)state;
	sbx_explain_syscall(&full.v, "mount", -1, "busybox", 42, 0, &e);
	assert_string_equal(e.msg,
			    "sbxrun: blocked mount by busybox (pid 42): "
			    "namespaces and mounts cannot be changed inside "
			    "the sandbox (rule seccomp from built-in)");
	assert_string_equal(e.op, "syscall");
	assert_string_equal(e.kind, "syscall");
	assert_string_equal(e.rule, "seccomp");
	assert_string_equal(e.src, "built-in");
	/* a name is matched whole, never by prefix: "mountx" is unknown */
	sbx_explain_syscall(&full.v, "mountx", -1, "a\nb", 7, 0, &e);
	assert_string_equal(e.msg,
			    "sbxrun: blocked mountx by a?b (pid 7): a kernel "
			    "interface closed to sandboxed programs (rule "
			    "seccomp from built-in)");
	sbx_explain_syscall(&full.v, "socket", AF_INET, "nc", 9, 0, &e);
	assert_string_equal(e.kind, "syscall");
	assert_non_null(strstr(e.msg, "): only TCP connections to the network "
				      "proxy are open in this sandbox (no "
				      "UDP, no raw sockets) (rule seccomp"));
	h.net = SBX_NET_OFF;
	v.hdr = &h;
	sbx_explain_syscall(&v, "socket", AF_INET6, "nc", 9, 0, &e);
	assert_string_equal(e.op, "socket");
	assert_string_equal(e.kind, "network-off");
	assert_string_equal(e.rule, "network off");
	assert_true(strncmp(e.msg,
			    "sbxrun: blocked socket by nc (pid 9): "
			    "network access is off in this sandbox "
			    "(rule network off from ",
			    99) == 0);
	assert_non_null(strstr(e.msg, "); to allow: sbxrun --net on"));
	sbx_explain_syscall(&v, "socket", AF_PACKET, "nc", 9, 0, &e);
	assert_string_equal(e.kind, "syscall");
	assert_non_null(strstr(e.msg, "raw and packet sockets"));
}

static void test_texts_net(void **state)
{
	struct sbx_path_decision d;
	struct sbx_net_decision nd;
	struct sbx_ip a = { AF_INET, { 192, 0, 2, 1 } };
	struct sbx_cpol v = full.v;
	struct sbx_cpol_hdr h;
	struct sbx_expl e;
	char allowed[512];

	(void)state;
	d = sbx_decide(&full.v, "/etc/hosts", SBX_OP_READ, -1);
	sbx_explain_allowed(&full.v, "/etc/hosts", SBX_OP_READ, &d, allowed,
			    sizeof(allowed));
	assert_string_equal(allowed, "'/etc/hosts' can be read: read-only "
				     "(rule / ro from t.conf:1)");
	nd = sbx_decide_net(&full.v, NULL, &a, 80);
	sbx_explain_net(&full.v, "connect to", "192.0.2.1", 80, NULL, &nd, 0,
			&e);
	assert_string_equal(e.msg,
			    "sbxrun: cannot connect to 192.0.2.1:80: "
			    "not in the network allow-list of this "
			    "sandbox (addresses must be listed by address; "
			    "allowed: *.github.com:443, 10.0.0.0/8; rule "
			    "network filtered from t.conf:9); to allow: "
			    "sbxrun --net allow:192.0.2.1:80");
	assert_string_equal(e.op, "connect");
	assert_string_equal(e.kind, "address");
	assert_string_equal(e.rule, "network filtered");
	assert_string_equal(e.src, "t.conf:9");
	nd = sbx_decide_net(&full.v, "example.com", NULL, 0);
	sbx_explain_net(&full.v, "resolve", "example.com", 0, NULL, &nd, 0, &e);
	assert_string_equal(e.msg,
			    "sbxrun: cannot resolve 'example.com': not "
			    "in the network allow-list of this sandbox "
			    "(allowed: *.github.com:443, 10.0.0.0/8; rule "
			    "network filtered from t.conf:9); to allow: "
			    "sbxrun --net allow:example.com");
	assert_string_equal(e.kind, "not-allowed");
	/* an allowed name the program resolved itself: only the proxy can */
	sbx_explain_proxy_only(&full.v, "api.github.com", &e);
	assert_string_equal(e.msg,
			    "sbxrun: cannot resolve 'api.github.com': in a "
			    "filtered network names are resolved by sbxrun's "
			    "proxy, not inside the sandbox: reach it through "
			    "HTTP_PROXY, HTTPS_PROXY or ALL_PROXY (rule "
			    "network filtered from t.conf:9)");
	assert_string_equal(e.op, "resolve");
	assert_string_equal(e.kind, "proxy-only");
	assert_string_equal(e.rule, "network filtered");
	assert_string_equal(e.src, "t.conf:9");
	/* a name listed for another port: the entry is the rule */
	nd = sbx_decide_net(&full.v, "api.github.com", &a, 80);
	sbx_explain_net(&full.v, "send to", "api.github.com", 80, &a, &nd, 0,
			&e);
	assert_string_equal(e.msg,
			    "sbxrun: cannot send to api.github.com:80: not in "
			    "the network allow-list of this sandbox (listed "
			    "for port 443 only; rule *.github.com:443 from "
			    "t.conf:7); to allow: sbxrun --net "
			    "allow:api.github.com:80");
	assert_string_equal(e.op, "send");
	assert_string_equal(e.rule, "*.github.com:443");
	assert_string_equal(e.src, "t.conf:7");
	/* network off, the DESIGN 8 line; the loopback's fix is loopback */
	memcpy(&h, v.hdr, sizeof(h));
	v.hdr = &h;
	h.net = SBX_NET_OFF;
	nd = sbx_decide_net(&v, "example.com", &a, 443);
	sbx_explain_net(&v, "connect to", "example.com", 443, &a, &nd, 0, &e);
	assert_string_equal(e.msg, "sbxrun: cannot connect to example.com:443: "
				   "network access is off in this sandbox "
				   "(rule network off from t.conf:9); to "
				   "allow: sbxrun --net allow:example.com");
	assert_string_equal(e.kind, "network-off");
	a.a[0] = 127;
	nd = sbx_decide_net(&v, NULL, &a, 8080);
	sbx_explain_net(&v, "connect to", "127.192.0.1", 8080, NULL, &nd, 0,
			&e);
	assert_non_null(strstr(e.msg, "; to allow: sbxrun --net loopback"));
}

/* A message that does not fit ends in "...", never overflows. */
static void test_long(void **state)
{
	char path[4000];
	struct sbx_path_decision d;
	struct sbx_expl e;

	(void)state;
	memset(path, 'a', sizeof(path) - 1);
	path[0] = '/';
	path[sizeof(path) - 1] = '\0';
	memcpy(path, "/etc/", 5);
	d = sbx_decide(&full.v, path, SBX_OP_WRITE, -1);
	assert_int_equal(d.verdict, SBX_DENY_READONLY);
	sbx_explain_path(&full.v, path, path, SBX_OP_WRITE, &d, 0, &e);
	assert_int_equal(strlen(e.msg), sizeof(e.msg) - 1);
	assert_string_equal(e.msg + sizeof(e.msg) - 4, "...");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_app_per_mode),
		cmocka_unit_test(test_facts),
		cmocka_unit_test(test_failure),
		cmocka_unit_test(test_net),
		cmocka_unit_test(test_net_modes),
		cmocka_unit_test(test_texts),
		cmocka_unit_test(test_texts_net),
		cmocka_unit_test(test_texts_syscall),
		cmocka_unit_test(test_long),
	};

	return cmocka_run_group_tests_name("decide", tests, setup, teardown);
}
