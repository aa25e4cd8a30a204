/*
 * netallow.h - the network allow-list in the in-memory policy: entries
 * ("example.com", "*.github.com:443", "10.0.0.0/8", "[::1]:8080") are
 * parsed and validated by sbx_policy_add_allow (netallow.c), and named
 * presets ("@npm") expand into such entries (DESIGN 5).
 *
 * Whether a destination is allowed is the one decider's (decide.h,
 * sbx_decide_host/sbx_decide_addr for the filtering proxy, sbx_decide_net
 * inside the sandbox), over the compiled policy, with the address classes
 * of netaddr.h; its message is the one explainer's (explain.h).
 */
#ifndef SBX_NETALLOW_H
#define SBX_NETALLOW_H

#include <stddef.h>
#include <stdint.h>

#include "netaddr.h"
#include "policy.h"

/* Presets: named lists of allow entries, defined by "network.presets" in a
 * conf file (the shipped ones in profiles/default.conf) and used as
 * "@name" wherever an allow entry is accepted.  A later definition of the
 * same name replaces the earlier one for later uses.  Entries are
 * validated here; a preset cannot use another preset. */
int sbx_net_preset_define(struct sbx_policy *p, const char *name,
			  const char *const *entries, size_t n,
			  struct sbx_src src, struct sbx_err *err);
const struct sbx_net_preset *sbx_net_preset_find(const struct sbx_policy *p,
						 const char *name);
/* Validate one entry without adding it ("@name" is checked against the
 * presets defined so far).  Returns 0 or -1 with err. */
int sbx_net_entry_check(const struct sbx_policy *p, const char *entry,
			struct sbx_err *err);
/* Is name a valid preset name ([a-z0-9_-], 1-32 characters)? */
int sbx_net_preset_name_ok(const char *name);
void sbx_net_presets_free(struct sbx_policy *p);

#endif
