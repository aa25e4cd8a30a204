/*
 * nest.c - see nest.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cpol.h"
#include "decide.h"
#include "explain.h"
#include "nest.h"

/* The outer sandbox's compiled policy, read whole; NULL when there is
 * none (not inside a sandbox) or it cannot be read. */
static void *outer_policy(size_t *len)
{
	const char *path = getenv("SBXRUN_POLICY");
	struct stat st;
	void *buf;
	ssize_t n;
	int fd;

	if (!path || path[0] != '/')
		return NULL;
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return NULL;
	buf = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0 &&
			      st.st_size < (64 << 20)
		      ? malloc((size_t)st.st_size)
		      : NULL;
	n = buf ? read(fd, buf, (size_t)st.st_size) : -1;
	close(fd);
	if (n != (ssize_t)st.st_size) {
		free(buf);
		return NULL;
	}
	*len = (size_t)n;
	return buf;
}

int sbx_nest_within(const struct sbx_cpol *v, const struct sbx_policy *p,
		    const char *outer, const char *fix, struct sbx_err *err)
{
	for (size_t i = 0; i < p->nrules; i++) {
		const struct sbx_path_rule *r = &p->rules[i];
		enum sbx_op op = r->mode == SBX_RW ? SBX_OP_WRITE : SBX_OP_READ;
		struct sbx_path_decision d;
		char src[600];

		/* hides and protected paths only narrow */
		if (r->mode == SBX_HIDE || (r->flags & SBX_RF_PROTECT))
			continue;
		d = sbx_decide(v, r->root, op, -1);
		if (d.verdict == SBX_ALLOW || d.verdict == SBX_DENY_SIZE ||
		    d.verdict == SBX_DENY_SUFFIX)
			continue;
		sbx_src_format(src, sizeof(src), r->src);
		return sbx_errf(err, 0,
				"%s %s '%s' (asked by %s): a sandbox inside "
				"another is never wider than it; to allow: "
				"%s --allow-%s %s",
				outer,
				d.verdict == SBX_DENY_HIDDEN ? "hides"
				: op == SBX_OP_WRITE ? "does not allow writing"
						     : "does not allow reading",
				r->root, src, fix,
				op == SBX_OP_WRITE ? "write" : "read", r->root);
	}
	return 0;
}

int sbx_nest_check(const struct sbx_policy *p, struct sbx_err *err)
{
	struct sbx_cpol v;
	const char *why;
	size_t len = 0;
	void *buf = outer_policy(&len);
	int rc = 0;

	if (!buf)
		return 0;
	if (sbx_cpol_view(buf, len, &v, &why) == 0)
		rc = sbx_nest_within(&v, p,
				     "this sbxrun runs inside another sandbox, "
				     "which",
				     "run the outer sbxrun with", err);
	free(buf);
	return rc; /* unreadable: the kernel layers still stack */
}
