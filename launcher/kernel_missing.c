/*
 * kernel_missing.c - stands in until the Linux kernel backend lands: every
 * attempt to run a command fails closed (exit 125), never unsandboxed.
 */
#include <stdio.h>
#include <string.h>

#include "kernel.h"

void sbx_features_probe(struct sbx_features *f)
{
	memset(f, 0, sizeof(*f));
	snprintf(f->landlock_why, sizeof(f->landlock_why),
		 "the kernel backend is not built yet");
	snprintf(f->userns_why, sizeof(f->userns_why),
		 "the kernel backend is not built yet");
}

int sbx_mode_resolve(enum sbx_kmode want, const struct sbx_features *f,
		     enum sbx_kmode *out, struct sbx_err *err)
{
	snprintf(err->msg, sizeof(err->msg), "the kernel backend is missing "
		 "in this build: refusing to run anything unsandboxed");
	return -1;
}

int sbx_launch(struct sbx_launch *l, struct sbx_exit *x, struct sbx_err *err)
{
	return sbx_mode_resolve(SBX_KMODE_AUTO, NULL, NULL, err);
}

void sbx_plan_print(FILE *fp, const struct sbx_policy *p, enum sbx_kmode mode,
		    const struct sbx_features *f)
{
	fprintf(fp, "  no kernel backend in this build: nothing can run\n");
}
