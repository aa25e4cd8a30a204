/*
 * decide.c - the one decision over the compiled policy (see decide.h).
 * Runs inside every sandboxed process: no allocation, no system calls,
 * nothing but the validated policy and what the caller passes in.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <limits.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>

#include "decide.h"

/* ------------------------------------------------------------ paths */

unsigned sbx_q_plain(enum sbx_op op)
{
	return op == SBX_OP_WRITE
		       ? SBX_Q_NAME | SBX_Q_MODIFY | SBX_Q_SIZE | SBX_Q_LINKS
		       : SBX_Q_SIZE;
}

static const char *str(const struct sbx_cpol *v, uint32_t off)
{
	return sbx_cpol_str(v, off);
}

/* The rule that decides just above r: the longest shorter root that
 * contains r's (the rules are sorted longest first). */
static const struct sbx_cpol_rule *parent_rule(const struct sbx_cpol *v,
					       const struct sbx_cpol_rule *r)
{
	for (uint32_t i = (uint32_t)(r - v->rules) + 1; i < v->hdr->nrules;
	     i++) {
		const struct sbx_cpol_rule *o = &v->rules[i];

		if (o->rootlen < r->rootlen &&
		    sbx_path_within(str(v, r->root), str(v, o->root),
				    o->rootlen))
			return o;
	}
	return NULL;
}

/* A read-only hole in a writable tree: a protect entry, or a read-only
 * rule right below a writable root.  A protected path missing at launch
 * is not held by anyone (SBX_RF_ABSENT: reported after the run). */
static int ro_hole(const struct sbx_cpol *v, const struct sbx_cpol_rule *r)
{
	const struct sbx_cpol_rule *o;

	if (r->mode != SBX_RO || (r->flags & SBX_RF_ABSENT))
		return 0;
	if (r->flags & SBX_RF_PROTECT)
		return 1;
	o = parent_rule(v, r);
	return o && o->mode == SBX_RW;
}

int sbx_rule_app_readonly(const struct sbx_cpol *v,
			  const struct sbx_cpol_rule *r)
{
	return (v->hdr->flags & SBX_CPOL_F_SHIM_PROTECT) && ro_hole(v, r);
}

/* A read-only hole at or below path: removing or moving path would take
 * it along (mv .git g). */
static const struct sbx_cpol_rule *hole_inside(const struct sbx_cpol *v,
					       const char *path)
{
	size_t n = strlen(path);

	for (uint32_t i = 0; v->hdr && i < v->hdr->nrules; i++) {
		const struct sbx_cpol_rule *r = &v->rules[i];

		if (r->mode == SBX_RO &&
		    sbx_path_within(str(v, r->root), path, n) && ro_hole(v, r))
			return r;
	}
	return NULL;
}

static int suffix_ok(const struct sbx_cpol *v, const struct sbx_cpol_rule *r,
		     const char *path)
{
	const char *sfx[SBX_MAX_SUFFIXES];

	for (uint32_t i = 0; i < r->nsuffixes; i++)
		sfx[i] = sbx_cpol_suffix(v, r, i);
	return sbx_suffix_ok(path, (char *const *)sfx, r->nsuffixes);
}

/* The object is a file for the suffix rule; unknown counts as one. */
static int names_file(const struct sbx_path_q *q)
{
	return !q->facts || !q->facts->is_file || q->facts->is_file(q);
}

/* The size the limit applies to: the call's, else the existing file's. */
static int64_t size_of(const struct sbx_path_q *q)
{
	if (q->size >= 0)
		return q->size;
	if ((q->chk & SBX_Q_SIZE) && q->facts && q->facts->file_size)
		return q->facts->file_size(q);
	return -1;
}

static struct sbx_path_decision
refuse(enum sbx_verdict v, const struct sbx_cpol_rule *r, int64_t size, int app)
{
	return (struct sbx_path_decision){ v, r, size, app };
}

struct sbx_path_decision sbx_decide_path(const struct sbx_cpol *v,
					 const struct sbx_path_q *q)
{
	const struct sbx_cpol_rule *r, *p;
	/* Landlock has no attribute rights: without mounts (landlock-only)
	 * a chmod, chown or utimes anywhere is the shim's to refuse. */
	int attr = (q->chk & SBX_Q_ATTR) && v->hdr &&
		   (v->hdr->flags & SBX_CPOL_F_SHIM_PROTECT);
	int64_t size;

	if ((q->chk & SBX_Q_TREE) && (p = hole_inside(v, q->path)))
		return refuse(SBX_DENY_READONLY, p, -1,
			      sbx_rule_app_readonly(v, p));
	r = sbx_cpol_match(v, q->path);
	if (!r)
		return refuse(SBX_DENY_NOTCOVERED, NULL, -1, attr);
	if (r->mode == SBX_HIDE)
		return refuse(SBX_DENY_HIDDEN, r, -1, attr);
	if (q->op == SBX_OP_WRITE && r->mode == SBX_RO)
		return refuse(SBX_DENY_READONLY, r, -1,
			      attr || sbx_rule_app_readonly(v, r));
	if (q->op == SBX_OP_WRITE && (q->chk & SBX_Q_NAME) && r->nsuffixes &&
	    !suffix_ok(v, r, q->path) && names_file(q))
		return refuse(SBX_DENY_SUFFIX, r, -1, 1);
	if (r->max_file_bytes && (size = size_of(q)) >= 0 &&
	    (uint64_t)size > r->max_file_bytes)
		return refuse(SBX_DENY_SIZE, r, size, 1);
	/* PERS-02: the other names of a hard-linked file may lie outside
	 * (uv's and pnpm's stores); only the shim can tell, from a stat */
	if (q->op == SBX_OP_WRITE && (q->chk & SBX_Q_LINKS) && q->facts &&
	    q->facts->links && (size = q->facts->links(q)) > 1)
		return refuse(SBX_DENY_SHARED, r, size, 1);
	return refuse(SBX_ALLOW, r, -1, 0);
}

struct sbx_path_decision sbx_decide(const struct sbx_cpol *v, const char *path,
				    enum sbx_op op, int64_t size)
{
	struct sbx_path_q q = { path, op, sbx_q_plain(op), size, NULL, NULL };

	return sbx_decide_path(v, &q);
}

struct sbx_path_decision sbx_decide_failure(const struct sbx_cpol *v,
					    const char *path, enum sbx_op op,
					    int err)
{
	struct sbx_path_q q = { path, op, 0, -1, NULL, NULL };
	struct sbx_path_decision d;

	int mnt = err == EBUSY || err == EXDEV;

	if (err != EACCES && err != EPERM && err != EROFS && err != ENOENT &&
	    !mnt)
		return refuse(SBX_ALLOW, NULL, -1, 0);
	/* EBUSY, EXDEV: full mode's mounts -- the protected path itself, or
	 * a directory self-bound because it holds one (mv .git g). */
	if (mnt)
		q.chk = SBX_Q_TREE;
	d = sbx_decide_path(v, &q); /* no suffix, no size */
	if (d.verdict == SBX_DENY_READONLY && err == ENOENT)
		d.verdict = SBX_ALLOW;
	/* hidden, but missing at launch: nothing was kept from anyone */
	if (d.verdict == SBX_DENY_HIDDEN && (d.rule->flags & SBX_RF_GONE))
		d.verdict = SBX_ALLOW;
	/* A write refused so, or a hidden file linked (ln ~/.netrc n: its
	 * /dev/null is on another mount); the source of a link that is only
	 * read-only fails on its own (ln .git/config x). */
	if (mnt &&
	    !(q.op == SBX_OP_WRITE && (d.verdict == SBX_DENY_HIDDEN ||
				       d.verdict == SBX_DENY_READONLY)) &&
	    !(err == EXDEV && d.verdict == SBX_DENY_HIDDEN))
		d.verdict = SBX_ALLOW;
	d.app = 0;
	return d;
}

/* ------------------------------------------------------------ programs */

static const struct sbx_cpol_exec *
exec_rule(const struct sbx_cpol *v, const char *path, char *const argv[])
{
	for (uint32_t i = 0; v->hdr && i < v->hdr->nexec; i++) {
		const struct sbx_cpol_exec *e = &v->exec[i];
		const char *args[SBX_MAX_EXEC_ARGS];

		for (uint32_t j = 0; j < e->nargs; j++)
			args[j] = str(v, e->args[j]);
		if (sbx_exec_match(str(v, e->program), args, e->nargs, path,
				   argv))
			return e;
	}
	return NULL;
}

/* Is either name that of program (a glob over the basename)? */
static int named(const char *path, const char *argv0, const char *glob)
{
	return (path && sbx_glob(glob, sbx_basename(path))) ||
	       (argv0 && sbx_glob(glob, sbx_basename(argv0)));
}

static int is_loader(const char *path, const char *argv0)
{
	return named(path, argv0, "ld-linux*.so*") ||
	       named(path, argv0, "ld64.so*") ||
	       named(path, argv0, "ld-musl-*.so*") ||
	       named(path, argv0, "ld.so") ||
	       named(path, argv0, "ld-[0-9]*.so");
}

/* glibc's ld.so options that take the next argument, and those that
 * make it run nothing (ldd's --verify, --list). */
static int loader_opt(const char *a)
{
	static const char *const witharg[] = {
		"--library-path",
		"--inhibit-rpath",
		"--audit",
		"--preload",
		"--argv0",
		"--glibc-hwcaps-prefix",
		"--glibc-hwcaps-mask",
	};

	for (size_t i = 0; i < sizeof(witharg) / sizeof(witharg[0]); i++)
		if (!strcmp(a, witharg[i]))
			return 1;
	return strchr(a, '=') || !strcmp(a, "--inhibit-cache") ? 0 : -1;
}

size_t sbx_exec_runs(const char *path, char *const argv[])
{
	if (!argv || !argv[0])
		return 0;
	if (is_loader(path, argv[0])) {
		for (size_t i = 1; argv[i]; i++) {
			int o;

			if (!strcmp(argv[i], "--"))
				return argv[i + 1] ? i + 1 : 0;
			if (argv[i][0] != '-')
				return i;
			if ((o = loader_opt(argv[i])) < 0)
				return 0;
			if (o && !argv[++i])
				return 0;
		}
		return 0;
	}
	if ((named(path, argv[0], "busybox*") ||
	     named(path, argv[0], "toybox*")) &&
	    argv[1] && argv[1][0] && argv[1][0] != '-')
		return 1;
	return 0;
}

/* The first recursive option of rm ("-r", "-fR", "--recursive") before
 * "--", or NULL. */
static const char *rm_recursive(char *const argv[])
{
	for (size_t i = 1; argv[i] && strcmp(argv[i], "--"); i++) {
		const char *a = argv[i];

		if (!strcmp(a, "--recursive") ||
		    (a[0] == '-' && a[1] != '-' && strpbrk(a + 1, "rR")))
			return a;
	}
	return NULL;
}

#define ROOT_DIRS_MAX 4096

/* Is name (a directory directly below "/") an operand of rm?  ops holds
 * the operands' normalised names, each after its '/', NUL-ended. */
static int rm_names(const char *ops, size_t n, const char *name)
{
	for (size_t o = 0; o < n; o += strlen(ops + o) + 1)
		if (!strcmp(ops + o, name))
			return 1;
	return 0;
}

/* A recursive rm whose operands cover every directory directly below
 * "/" (the shell expanded the glob of "rm -rf /"), and at least two: 1. */
static int rm_covers_root(const struct sbx_exec_q *q, const char *path,
			  char *const argv[])
{
	char ops[ROOT_DIRS_MAX], dirs[ROOT_DIRS_MAX], abs[PATH_MAX];
	size_t nops = 0, ndirs, nop = 0, i = 1;
	int dashdash = 0;

	if (!q->root_dirs || !argv || !argv[0] || !named(path, argv[0], "rm") ||
	    !rm_recursive(argv))
		return 0;
	for (; argv[i]; i++) {
		size_t l;

		if (!dashdash && !strcmp(argv[i], "--")) {
			dashdash = 1;
			continue;
		}
		if (!dashdash && argv[i][0] == '-' && argv[i][1])
			continue;
		if (sbx_path_lex(argv[i], q->cwd, abs, sizeof(abs)) < 0 ||
		    strchr(abs + 1, '/') || !abs[1])
			return 0; /* not directly below "/" */
		l = strlen(abs + 1) + 1;
		if (nops + l > sizeof(ops))
			return 0;
		memcpy(ops + nops, abs + 1, l);
		nops += l;
		nop++;
	}
	if (nop < 2 || !(ndirs = q->root_dirs(dirs, sizeof(dirs))))
		return 0;
	for (i = 0; i < ndirs && i < sizeof(dirs); i += strlen(dirs + i) + 1)
		if (dirs[i] != '.' && !rm_names(ops, nops, dirs + i))
			return 0;
	return 1;
}

/* One program, not what it runs: its rules, then an expanded "rm -r /GLOB" as
 * "rm -r /". */
static const struct sbx_cpol_exec *exec_one(const struct sbx_cpol *v,
					    const struct sbx_exec_q *q,
					    const char *path,
					    char *const argv[])
{
	const struct sbx_cpol_exec *x = exec_rule(v, path, argv);
	char *as_root[4];

	if (x || !rm_covers_root(q, path, argv))
		return x;
	as_root[0] = argv[0];
	as_root[1] = (char *)rm_recursive(argv);
	as_root[2] = (char *)"/";
	as_root[3] = NULL;
	return exec_rule(v, path, as_root);
}

const struct sbx_cpol_exec *sbx_decide_exec_q(const struct sbx_cpol *v,
					      const struct sbx_exec_q *q,
					      size_t *at)
{
	const char *path = q->path;
	char *const *argv = q->argv;
	size_t off = 0, k;

	/* a loader running busybox running an applet: a few levels */
	for (int depth = 0; depth < 4; depth++) {
		const struct sbx_cpol_exec *x = exec_one(v, q, path, argv);

		if (x) {
			if (at)
				*at = off;
			return x;
		}
		if (!(k = sbx_exec_runs(path, argv)))
			break;
		off += k;
		argv += k;
		path = argv[0];
	}
	return NULL;
}

const struct sbx_cpol_exec *
sbx_decide_exec(const struct sbx_cpol *v, const char *path, char *const argv[])
{
	struct sbx_exec_q q = { path, argv, NULL, NULL };

	return sbx_decide_exec_q(v, &q, NULL);
}

/* ------------------------------------------------------------ network */

#define HOST_MAX 320

/* "*.github.com" matches any name below github.com, not github.com. */
static int name_match(const char *pat, const char *name)
{
	size_t nl = strlen(name), pl = strlen(pat);

	if (pat[0] == '*' && pat[1] == '.')
		return nl > pl - 1 &&
		       strcasecmp(name + nl - (pl - 1), pat + 1) == 0;
	return strcasecmp(name, pat) == 0;
}

/* Port 0 on either side: any port (an entry without one; a lookup). */
static int port_ok(const struct sbx_cpol_allow *r, uint16_t port)
{
	return r->port == 0 || port == 0 || r->port == port;
}

/* Does an address entry contain ip?  *eff is its prefix length in ip's
 * family (an IPv4-mapped entry "::ffff:10.0.0.0/104" is 10.0.0.0/8; an
 * IPv6 entry shorter than /96 covers the mapped IPv4 space with a
 * negative effective prefix, which lists no special address). */
static int rule_has(const struct sbx_cpol *v, const struct sbx_cpol_allow *r,
		    const struct sbx_ip *ip, int *eff)
{
	static const unsigned char mapped[12] = { [10] = 0xff, [11] = 0xff };
	const char *host = str(v, r->host);
	struct sbx_ip net = { 0 }, m;
	int prefix = (int)r->prefix;

	net.af = strchr(host, ':') ? AF_INET6 : AF_INET;
	if (!r->is_cidr || inet_pton(net.af, host, net.a) != 1)
		return 0;
	if (net.af == AF_INET6 && ip->af == AF_INET) {
		m.af = AF_INET6;
		memcpy(m.a, mapped, 12);
		memcpy(m.a + 12, ip->a, 4);
		*eff = prefix - 96;
		return sbx_ip_in(&m, &net, prefix);
	}
	*eff = prefix;
	return sbx_ip_in(ip, &net, prefix);
}

static struct sbx_net_decision nd(enum sbx_net_why why, enum sbx_addr_class cls,
				  const struct sbx_cpol_allow *rule)
{
	return (struct sbx_net_decision){ why, cls, rule };
}

/* An address, listed by an address entry?  Special classes need an entry
 * at least as specific as their range; link-local and metadata never.
 * resolved: the address of a name that step 1 allowed. */
static struct sbx_net_decision by_address(const struct sbx_cpol *v,
					  const struct sbx_ip *ip,
					  uint16_t port, int resolved)
{
	const struct sbx_cpol_allow *other_port = NULL;
	int cpfx, eff;
	enum sbx_addr_class cls = sbx_ip_class(ip, &cpfx);

	if (cls == SBX_AC_LINKLOCAL || cls == SBX_AC_METADATA)
		return nd(SBX_NETW_NEVER, cls, NULL);
	if (resolved && cls == SBX_AC_PUBLIC)
		return nd(SBX_NETW_ALLOW, cls, NULL);
	for (uint32_t i = 0; i < v->hdr->nallow; i++) {
		const struct sbx_cpol_allow *r = &v->allow[i];

		if (!rule_has(v, r, ip, &eff) ||
		    (cls != SBX_AC_PUBLIC && eff < cpfx))
			continue;
		if (port_ok(r, port))
			return nd(SBX_NETW_ALLOW, cls, r);
		other_port = r;
	}
	if (other_port && !resolved)
		return nd(SBX_NETW_PORT, cls, other_port);
	return nd(cls == SBX_AC_PUBLIC ? SBX_NETW_ADDR : SBX_NETW_CLASS, cls,
		  NULL);
}

/* A normalised name, listed by a name entry?  Never by an address entry:
 * a name the policy does not list is not looked up. */
static struct sbx_net_decision by_name(const struct sbx_cpol *v,
				       const char *name, uint16_t port)
{
	const struct sbx_cpol_allow *other_port = NULL;

	for (uint32_t i = 0; i < v->hdr->nallow; i++) {
		const struct sbx_cpol_allow *r = &v->allow[i];

		if (r->is_cidr || !name_match(str(v, r->host), name))
			continue;
		if (port_ok(r, port))
			return nd(SBX_NETW_ALLOW, SBX_AC_PUBLIC, r);
		other_port = r;
	}
	return nd(other_port ? SBX_NETW_PORT : SBX_NETW_NOT_LISTED,
		  SBX_AC_PUBLIC, other_port);
}

/* Step 1 for a host in any spelling; port 0 (inside only): any. */
static struct sbx_net_decision host_step(const struct sbx_cpol *v,
					 const char *host, uint16_t port,
					 int *literal)
{
	char h[HOST_MAX];
	struct sbx_ip ip;
	int kind = sbx_net_host_parse(host, h, sizeof(h), &ip);

	*literal = kind == 2;
	if (kind < 0)
		return nd(SBX_NETW_BADHOST, SBX_AC_PUBLIC, NULL);
	if (kind == 2)
		return by_address(v, &ip, port, 0);
	return by_name(v, h, port);
}

struct sbx_net_decision sbx_decide_host(const struct sbx_cpol *v,
					const char *host, uint16_t port)
{
	int literal;

	if (v->hdr->net != SBX_NET_FILTERED)
		return nd(SBX_NETW_MODE, SBX_AC_PUBLIC, NULL);
	if (port == 0)
		return nd(SBX_NETW_BADHOST, SBX_AC_PUBLIC, NULL);
	return host_step(v, host, port, &literal);
}

struct sbx_net_decision sbx_decide_addr(const struct sbx_cpol *v,
					const struct sbx_ip *ip, uint16_t port)
{
	if (v->hdr->net != SBX_NET_FILTERED)
		return nd(SBX_NETW_MODE, SBX_AC_PUBLIC, NULL);
	return by_address(v, ip, port, 1);
}

struct sbx_net_decision sbx_decide_net(const struct sbx_cpol *v,
				       const char *name,
				       const struct sbx_ip *ip, uint16_t port)
{
	enum sbx_addr_class cls = ip ? sbx_ip_class(ip, NULL) : SBX_AC_PUBLIC;
	int loop = cls == SBX_AC_LOOPBACK, literal = 0;
	struct sbx_net_decision d;

	switch (v->hdr->net) {
	case SBX_NET_OFF: return nd(SBX_NETW_MODE, cls, NULL);
	case SBX_NET_LOOPBACK:
		return nd(loop ? SBX_NETW_ALLOW : SBX_NETW_MODE, cls, NULL);
	case SBX_NET_FILTERED: break;
	default: return nd(SBX_NETW_ALLOW, cls, NULL);
	}
	/* full mode gives the sandbox a network namespace of its own */
	if (loop && v->hdr->kmode == SBX_KMODE_FULL)
		return nd(SBX_NETW_ALLOW, cls, NULL);
	if (!name || !*name)
		return ip ? by_address(v, ip, port, 0)
			  : nd(SBX_NETW_BADHOST, cls, NULL);
	d = host_step(v, name, port, &literal);
	if (d.why != SBX_NETW_ALLOW || !ip || literal)
		return d;
	return by_address(v, ip, port, 1);
}
