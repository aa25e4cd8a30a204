/*
 * derive.c - sbx_derive(): a child policy narrower than its parent, for
 * a sandboxed program (an agent starting a sub-agent, a build tool) that
 * starts a sandbox of its own: it may hide more, make less writable, turn
 * the network off, shorten the timeout; it may never widen.  The check
 * decides over the parent's compiled policy with the one decider, as
 * sbxrun inside sbxrun does (nest.c).
 */
#include <stdlib.h>
#include <string.h>

#include "api.h"
#include "conf.h"
#include "nest.h"

/* How open each network mode is, for "never wider". */
static int net_rank(enum sbx_net n)
{
	switch (n) {
	case SBX_NET_OFF: return 0;
	case SBX_NET_LOOPBACK: return 1;
	case SBX_NET_FILTERED: return 2;
	case SBX_NET_ON: return 3;
	}
	return 3;
}

static int has_allow(const struct sbx_policy *p, const char *text)
{
	for (size_t i = 0; i < p->nallow; i++)
		if (!strcmp(p->allow[i].text, text))
			return 1;
	return 0;
}

static int net_within(const struct sbx_policy *parent,
		      const struct sbx_policy *child, struct sbx_err *err)
{
	if (net_rank(child->net) > net_rank(parent->net) ||
	    (child->net == SBX_NET_LOOPBACK && parent->net == SBX_NET_FILTERED))
		return sbx_errf(err, 0,
				"the parent policy's network is %s: a child "
				"policy cannot make it %s",
				sbx_net_name(parent->net),
				sbx_net_name(child->net));
	if (child->net == SBX_NET_FILTERED && parent->net == SBX_NET_FILTERED)
		for (size_t i = 0; i < child->nallow; i++)
			if (!has_allow(parent, child->allow[i].text))
				return sbx_errf(err, 0,
						"the parent policy does not "
						"allow the host '%s': a child "
						"policy cannot add it",
						child->allow[i].text);
	return 0;
}

static int limits_within(const struct sbx_policy *parent,
			 const struct sbx_policy *child, struct sbx_err *err)
{
	uint64_t pt = parent->limits.timeout, ct = child->limits.timeout;

	if (pt && (!ct || ct > pt))
		return sbx_errf(err, 0,
				"the parent policy's timeout is %llus: a "
				"child policy cannot make it longer",
				(unsigned long long)pt);
	return 0;
}

/* Overrides that can only narrow, or be checked: paths, net, timeout. */
static int narrowing_override(const char *ov, struct sbx_err *err)
{
	static const char *const ok[] = { "allow-read=", "allow-write=",
					  "hide=", "net=", "timeout=" };

	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++)
		if (!strncmp(ov, ok[i], strlen(ok[i])))
			return 0;
	return sbx_errf(err, 0,
			"override '%s' cannot be used for a child policy "
			"(allow-read, allow-write, hide, net, timeout)",
			ov);
}

int sbx_derive(sbx_t *parent, const char *const *overrides, sbx_t **out,
	       char *errbuf, size_t errlen)
{
	struct sbx_err err = { "" };
	const struct sbx_cpol *pv;
	sbx_t *c;
	int rc = SBX_E_ARG;

	if (out)
		*out = NULL;
	if (!parent || !out) {
		sbx_errf(&err, 0, "no parent policy");
		goto fail_early;
	}
	c = calloc(1, sizeof(*c));
	if (!c) {
		sbx_errf(&err, 0, "out of memory");
		rc = SBX_E_NOMEM;
		goto fail_early;
	}
	pthread_mutex_init(&c->qlock, NULL);
	c->locs = parent->locs;
	c->mode = parent->mode;
	if (sbx_policy_copy(&c->pol, &parent->pol, &err) < 0) {
		free(c);
		rc = SBX_E_NOMEM;
		goto fail_early;
	}
	for (size_t i = 0; overrides && overrides[i]; i++)
		if (narrowing_override(overrides[i], &err) < 0 ||
		    sbx_conf_override(&c->pol, overrides[i], &err) < 0)
			goto fail;
	rc = SBX_E_NOMEM;
	pv = sbx_query_policy(parent);
	if (!pv) {
		sbx_errf(&err, 0, "out of memory");
		goto fail;
	}
	rc = SBX_E_DENIED;
	if (sbx_nest_within(pv, &c->pol, "the parent policy",
			    "derive from a parent opened with", &err) < 0 ||
	    net_within(&parent->pol, &c->pol, &err) < 0 ||
	    limits_within(&parent->pol, &c->pol, &err) < 0)
		goto fail;
	*out = c;
	return SBX_OK;
fail:
	sbx_close(c);
fail_early:
	sbx_err_out(&err, errbuf, errlen);
	return rc;
}
