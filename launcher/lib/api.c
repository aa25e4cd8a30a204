/*
 * api.c - libsbx: loading the policy and answering questions about it
 * (include/sbx.h).  sbx_run() lives in run.c.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "api.h"
#include "confcache.h"
#include "safeopen.h"
#include "startfail.h"
#include "decide.h"
#include "explain.h"
#include "kernel.h"

void sbx_err_out(const struct sbx_err *e, char *buf, size_t len)
{
	if (buf && len)
		snprintf(buf, len, "%s", e->msg);
}

/* The policy of o: conf tiers, overrides, finish.  cache_off: every
 * conf parsed, no kept tree taken (confcache.h). */
static int load_policy(sbx_t *s, const struct sbx_opts *o, int cache_off,
		       struct sbx_err *err)
{
	sbx_policy_init(&s->pol);
	s->pol.kmode = s->mode;
	if (sbx_locs_init(&s->locs, o, err) < 0)
		return -1;
	sbx_confcache_begin(s->locs.home, cache_off);
	if (sbx_conf_load(&s->pol, &s->locs, o, err) < 0)
		return -1;
	for (size_t i = 0; o && o->overrides && o->overrides[i]; i++)
		if (sbx_conf_override(&s->pol, o->overrides[i], err) < 0)
			return -1;
	s->pol.allow_unsafe_project = o && (o->flags & SBX_OPT_UNSAFE_PROJECT);
	s->pol.quiet = o && (o->flags & SBX_OPT_QUIET);
	return sbx_policy_finish(&s->pol, err);
}

/* Every account's hidden names asked about from one listing of each
 * directory they live in, for this load only (dircache.c). */
static int load(sbx_t *s, const struct sbx_opts *o, int cache_off,
		struct sbx_err *err)
{
	int dc = sbx_dircache_begin();
	int r = load_policy(s, o, cache_off, err);

	sbx_dircache_end(dc);
	return r;
}

/* Kept conf trees are trusted as the state directory is (rundir.c): not
 * from one this policy lets the sandbox write. */
static int cache_writable(const sbx_t *s)
{
	const char *dir = sbx_confcache_used();
	const struct sbx_path_rule *r =
		dir ? sbx_policy_decider(&s->pol, dir, SBX_RF_PROTECT) : NULL;

	return r && r->mode == SBX_RW;
}

int sbx_open(sbx_t **out, const struct sbx_opts *o, char *errbuf, size_t errlen)
{
	struct sbx_err err = { "" };
	sbx_t *s = calloc(1, sizeof(*s));
	int rc = SBX_E_CONF;

	*out = NULL;
	if (!s) {
		sbx_errf(&err, 0, "out of memory");
		sbx_err_out(&err, errbuf, errlen);
		return SBX_E_NOMEM;
	}
	pthread_mutex_init(&s->qlock, NULL);
	s->mode = o ? (enum sbx_kmode)o->mode : SBX_KMODE_AUTO;
	if (load(s, o, 0, &err) < 0)
		goto fail;
	if (cache_writable(s)) {
		sbx_policy_free(&s->pol);
		if (load(s, o, 1, &err) < 0)
			goto fail;
	}
	*out = s;
	return SBX_OK;
fail:
	sbx_err_out(&err, errbuf, errlen);
	sbx_close(s);
	return rc;
}

void sbx_close(sbx_t *s)
{
	if (!s)
		return;
	sbx_policy_free(&s->pol);
	free(s->qbuf);
	pthread_mutex_destroy(&s->qlock);
	free(s);
}

const char *sbx_warning(const sbx_t *s, size_t i)
{
	return s && i < s->pol.warnings.n ? s->pol.warnings.v[i] : NULL;
}

int sbx_resolve(sbx_t *s, const char *path, char *out, size_t outsz)
{
	if (!s || !path || !out)
		return SBX_E_ARG;
	if (sbx_path_norm(path, s->pol.project, s->pol.home, 1, out, outsz) < 0)
		return SBX_E_ARG;
	return SBX_OK;
}

/* ------------------------------------------------------------ queries */

const struct sbx_cpol *sbx_query_policy(sbx_t *s)
{
	struct sbx_err err;
	const char *why;
	/* the mode as requested: only who enforces a refusal (the app
	 * field) depends on it, never the verdict */
	unsigned flags = sbx_backend()->cpol_flags(s->mode);
	const struct sbx_cpol *v = NULL;

	pthread_mutex_lock(&s->qlock);
	if (!s->qbuf && sbx_cpol_build(&s->pol, s->mode, flags, &s->qbuf,
				       &s->qlen, &err) < 0)
		s->qbuf = NULL;
	if (s->qbuf && !s->qpol.hdr &&
	    sbx_cpol_view(s->qbuf, s->qlen, &s->qpol, &why) < 0) {
		free(s->qbuf); /* cannot happen: the writer's output validates */
		s->qbuf = NULL;
	}
	if (s->qbuf)
		v = &s->qpol;
	pthread_mutex_unlock(&s->qlock);
	return v;
}

/* What a query knows of the object: a path that exists and is not a
 * regular file (a directory, a device) gets no suffix check, as in the
 * shim; a missing one may still become a file. */
static int q_is_file(const struct sbx_path_q *q)
{
	struct stat st;

	return stat(q->path, &st) < 0 || S_ISREG(st.st_mode);
}

static int64_t q_file_size(const struct sbx_path_q *q)
{
	struct stat st;

	return stat(q->path, &st) == 0 && S_ISREG(st.st_mode) ? st.st_size : -1;
}

static int64_t q_links(const struct sbx_path_q *q)
{
	struct stat st;

	return stat(q->path, &st) == 0 && S_ISREG(st.st_mode)
		       ? (int64_t)st.st_nlink
		       : 0;
}

static const struct sbx_path_facts q_facts = { q_is_file, q_file_size,
					       q_links };

/* Copy an explanation into an answer's fixed field; a cut ends in "...". */
static void set_text(char *dst, size_t sz, const char *src)
{
	size_t n = strlen(src);

	if (n < sz) {
		memcpy(dst, src, n + 1);
		return;
	}
	memcpy(dst, src, sz - 4);
	memcpy(dst + sz - 4, "...", 4);
}

static void fill_rule(struct sbx_answer *a, const struct sbx_cpol *v,
		      const struct sbx_cpol_rule *r)
{
	struct sb b;

	if (!r)
		return;
	set_text(a->rule, sizeof(a->rule), sbx_cpol_str(v, r->root));
	set_text(a->mode, sizeof(a->mode),
		 sbx_pmode_name((enum sbx_pmode)r->mode));
	sb_init(&b, a->source, sizeof(a->source));
	sbx_put_src(&b, sbx_cpol_str(v, r->src_file), r->src_line);
}

int sbx_check(sbx_t *s, const char *path, enum sbx_access acc, int64_t size,
	      struct sbx_answer *a)
{
	const struct sbx_cpol *v;
	struct sbx_path_decision d;
	struct sbx_path_q q = { .size = size, .facts = &q_facts };
	struct sbx_expl e;

	if (!s || !path || !a)
		return SBX_E_ARG;
	memset(a, 0, sizeof(*a));
	if (sbx_resolve(s, path, a->path, sizeof(a->path)) != SBX_OK)
		return SBX_E_ARG;
	if (!(v = sbx_query_policy(s)))
		return SBX_E_NOMEM;
	q.path = a->path;
	q.op = acc == SBX_ACCESS_WRITE	? SBX_OP_WRITE
	       : acc == SBX_ACCESS_EXEC ? SBX_OP_EXEC
					: SBX_OP_READ;
	q.chk = sbx_q_plain(q.op);
	d = sbx_decide_path(v, &q);
	a->allowed = d.verdict == SBX_ALLOW;
	set_text(a->verdict, sizeof(a->verdict),
		 a->allowed ? "allowed" : sbx_verdict_kind(d.verdict));
	fill_rule(a, v, d.rule);
	if (a->allowed) {
		sbx_explain_allowed(v, a->path, q.op, &d, a->reason,
				    sizeof(a->reason));
		return SBX_OK;
	}
	sbx_explain_path(v, path, a->path, q.op, &d, 0, &e);
	set_text(a->reason, sizeof(a->reason), e.msg);
	return SBX_OK;
}

int sbx_check_exec(sbx_t *s, char *const argv[], struct sbx_answer *a)
{
	const struct sbx_cpol *v;
	const struct sbx_cpol_exec *x;
	struct sbx_exec_q q = { NULL, NULL, NULL, sbx_root_dirs };
	char cwd[PATH_MAX];
	struct sbx_expl e;
	size_t at = 0;

	if (!s || !argv || !argv[0] || !a)
		return SBX_E_ARG;
	q.path = argv[0];
	q.argv = argv;
	q.cwd = getcwd(cwd, sizeof(cwd));
	memset(a, 0, sizeof(*a));
	set_text(a->path, sizeof(a->path), argv[0]);
	if (!(v = sbx_query_policy(s)))
		return SBX_E_NOMEM;
	/* the same decision as the shim's and the launcher's: what a
	 * loader or busybox runs, rm -r of everything below "/" */
	x = sbx_decide_exec_q(v, &q, &at);
	a->allowed = x == NULL;
	set_text(a->verdict, sizeof(a->verdict), x ? "exec-denied" : "allowed");
	if (x) {
		sbx_explain_exec(v, argv[at], x, 0, &e);
		set_text(a->rule, sizeof(a->rule), e.rule);
		set_text(a->source, sizeof(a->source), e.src);
		set_text(a->reason, sizeof(a->reason), e.msg);
	}
	return SBX_OK;
}

/* ------------------------------------------------------------ file ops */

int sbx_read_file(sbx_t *s, const char *path, size_t max, char **data,
		  size_t *len, struct sbx_answer *ans)
{
	struct sbx_answer tmp, *a = ans ? ans : &tmp;
	struct stat st;
	char *buf;
	ssize_t n;
	size_t got = 0;
	int fd, rc = sbx_check(s, path, SBX_ACCESS_READ, -1, a);

	if (rc != SBX_OK)
		return rc;
	if (!a->allowed)
		return SBX_E_DENIED;
	/* the path decided on, through no symlink a sandboxed process may
	 * have swapped in since (API-01); a FIFO planted there must not
	 * hang the caller */
	fd = sbx_open_nolinks(a->path, O_RDONLY | O_NONBLOCK | O_NOCTTY, 0);
	if (fd < 0)
		return SBX_E_IO;
	if (fstat(fd, &st) < 0 || S_ISFIFO(st.st_mode) ||
	    S_ISSOCK(st.st_mode)) {
		close(fd);
		return SBX_E_IO;
	}
	/* Never allocate more than the file holds (and never max + 1 when
	 * max is SIZE_MAX). */
	if (S_ISREG(st.st_mode) && (uint64_t)st.st_size < (uint64_t)max)
		max = (size_t)st.st_size;
	if (max >= SIZE_MAX / 2) {
		close(fd);
		return SBX_E_ARG;
	}
	buf = malloc(max + 1);
	while (buf && got < max && (n = read(fd, buf + got, max - got)) > 0)
		got += (size_t)n;
	close(fd);
	if (!buf)
		return SBX_E_NOMEM;
	buf[got] = '\0';
	*data = buf;
	*len = got;
	return SBX_OK;
}

int sbx_write_file(sbx_t *s, const char *path, const void *data, size_t len,
		   struct sbx_answer *ans)
{
	struct sbx_answer tmp, *a = ans ? ans : &tmp;
	int fd, rc = sbx_check(s, path, SBX_ACCESS_WRITE, (int64_t)len, a);
	const char *p = data;

	if (rc != SBX_OK)
		return rc;
	if (!a->allowed)
		return SBX_E_DENIED;
	/* No symlink anywhere on the path, planted before (FS-13) or
	 * swapped in since the decision (API-01).  Truncated only once it
	 * is known to be a regular file of one name: a hard link shares the
	 * inode with a place the policy did not decide on (PERS-02). */
	fd = sbx_open_nolinks(a->path,
			      O_WRONLY | O_CREAT | O_NONBLOCK | O_NOCTTY, 0666);
	if (fd < 0)
		return SBX_E_IO;
	{
		struct stat st;

		if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) ||
		    st.st_nlink > 1 || ftruncate(fd, 0) < 0) {
			close(fd);
			return SBX_E_IO;
		}
	}
	while (len > 0) {
		ssize_t n = write(fd, p, len);

		if (n < 0) {
			close(fd);
			return SBX_E_IO;
		}
		p += n;
		len -= (size_t)n;
	}
	return close(fd) < 0 ? SBX_E_IO : SBX_OK;
}

struct list {
	char **v;
	size_t n, cap;
};

static int list_add(struct list *l, const char *s)
{
	if (l->n + 2 > l->cap) {
		size_t nc = l->cap ? l->cap * 2 : 16;
		char **nv = realloc(l->v, nc * sizeof(*nv));

		if (!nv)
			return -1;
		l->v = nv;
		l->cap = nc;
	}
	l->v[l->n] = strdup(s);
	if (!l->v[l->n])
		return -1;
	l->v[++l->n] = NULL;
	return 0;
}

/* Each directory is opened from the one before, never through a
 * symlink (API-01): a directory swapped for a link mid-walk ends there. */
static int walk(sbx_t *s, const struct sbx_cpol *v, int dfd, const char *dir,
		const char *pat, struct list *l, int depth)
{
	DIR *d = depth < 64 && dfd >= 0 ? fdopendir(dfd) : NULL;
	struct dirent *e;
	char path[PATH_MAX];
	int rc = 0;

	if (!d) {
		if (dfd >= 0)
			close(dfd);
		return 0;
	}
	while (rc == 0 && (e = readdir(d))) {
		struct sbx_path_decision dec;

		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		if (snprintf(path, sizeof(path), "%s/%s",
			     strcmp(dir, "/") ? dir : "",
			     e->d_name) >= (int)sizeof(path))
			continue;
		dec = sbx_decide(v, path, SBX_OP_READ, -1);
		if (dec.verdict == SBX_DENY_HIDDEN ||
		    dec.verdict == SBX_DENY_NOTCOVERED)
			continue;
		if (e->d_type == DT_DIR)
			rc = walk(s, v,
				  openat(dirfd(d), e->d_name,
					 O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
						 O_CLOEXEC),
				  path, pat, l, depth + 1);
		else if (!pat || sbx_glob(pat, e->d_name))
			rc = list_add(l, path);
	}
	closedir(d);
	return rc;
}

int sbx_list_files(sbx_t *s, const char *dir, const char *pat, char ***list,
		   size_t *n)
{
	struct sbx_answer a;
	struct list l = { 0 };
	int rc = sbx_check(s, dir, SBX_ACCESS_READ, -1, &a);

	if (rc != SBX_OK)
		return rc;
	if (!a.allowed)
		return SBX_E_DENIED;
	if (list_add(&l, "") < 0) {
		sbx_list_free(l.v);
		return SBX_E_NOMEM;
	}
	free(l.v[0]);
	l.n = 0;
	l.v[0] = NULL;
	if (walk(s, &s->qpol,
		 sbx_open_nolinks(a.path, O_RDONLY | O_DIRECTORY, 0), a.path,
		 pat, &l, 0) < 0) {
		sbx_list_free(l.v);
		return SBX_E_NOMEM;
	}
	*list = l.v;
	if (n)
		*n = l.n;
	return SBX_OK;
}

void sbx_list_free(char **list)
{
	for (size_t i = 0; list && list[i]; i++)
		free(list[i]);
	free(list);
}

const char *sbx_strerror(int st)
{
	switch (st) {
	case SBX_OK: return "ok";
	case SBX_E_CONF: return "invalid configuration";
	case SBX_E_KERNEL: return "a required kernel feature is missing";
	case SBX_E_ARG: return "bad argument";
	case SBX_E_NOMEM: return "out of memory";
	case SBX_E_IO: return "input/output error";
	case SBX_E_DENIED: return "refused by the sandbox policy";
	case SBX_E_RUN: return "could not start the command";
	}
	return "unknown error";
}

int sbx_inside(void)
{
	return sbx_backend()->inside();
}

const char *sbx_version(void)
{
	return SBX_VERSION;
}
