/*
 * profile.c - sbx_profile(): the policy as another sandbox's profile, for
 * callers that apply it themselves (`sandbox-exec -f FILE` on macOS).
 * The generator is the macOS backend's (launcher/kernel/macos/).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api.h"
#include "macos/seatbelt.h"

int sbx_profile(sbx_t *s, const char *format, const char *workdir, char **out,
		size_t *len, char *errbuf, size_t errlen)
{
	struct sbx_seatbelt_opts o = { .workdir = workdir };
	struct sbx_err err = { "" };
	size_t n = 0;

	if (out)
		*out = NULL;
	if (len)
		*len = 0;
	if (!s || !format || !out) {
		if (errbuf && errlen)
			snprintf(errbuf, errlen, "sbx_profile: bad argument");
		return SBX_E_ARG;
	}
	if (strcmp(format, "seatbelt") != 0) {
		if (errbuf && errlen)
			snprintf(
				errbuf, errlen,
				"unknown profile format '%s' (known: seatbelt)",
				format);
		return SBX_E_ARG;
	}
	/* No private temporary directory and no proxy here: those belong
	 * to a run, and nothing runs.  The profile says what that means. */
	if (sbx_seatbelt_profile(&s->pol, &o, out, &n, &err) < 0) {
		if (errbuf && errlen)
			snprintf(errbuf, errlen, "%s", err.msg);
		return SBX_E_ARG;
	}
	if (len)
		*len = n;
	return SBX_OK;
}
