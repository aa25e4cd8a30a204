/*
 * selfcheck.h - refuse a run in which a conf file, sbxrun's program or
 * its shim would be writable inside (THREATS CONF-02, CONF-04).
 */
#ifndef SBX_SELFCHECK_H
#define SBX_SELFCHECK_H

#include "cpol.h"
#include "policy.h"

/* 0, or -1 with err saying which file, under which rule, and the fix.
 * loaded: the policy as loaded (its conf_files); v: the run's compiled
 * policy; shim: the shim's path or NULL; config_dir: sbxrun's own conf
 * directory, checked whether or not it exists (E-19). */
int sbx_selfcheck(const struct sbx_policy *loaded, const struct sbx_cpol *v,
		  const char *shim, const char *config_dir,
		  struct sbx_err *err);

#endif
