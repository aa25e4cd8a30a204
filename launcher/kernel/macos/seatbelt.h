/*
 * seatbelt.h - the macOS kernel boundary as data: a Seatbelt (SBPL)
 * profile generated from the same policy the Linux backend enforces.
 *
 * The generator is plain C with no macOS dependency, so it is built and
 * tested on Linux (tests/unit/test_seatbelt.c, the golden profiles in
 * tests/golden/seatbelt/).  Nothing here calls sandbox_init(): the
 * profile is text, applied by `sandbox-exec -f FILE` today and by the
 * macOS launcher once it exists (HACKING.md, "macOS backend").
 *
 * How the policy becomes rules is explained at the top of seatbelt.c;
 * where the result differs from what srt and the Codex CLI generate, and
 * why, is in launcher/kernel/macos/README.md.
 */
#ifndef SBX_SEATBELT_H
#define SBX_SEATBELT_H

#include <stddef.h>
#include <stdio.h>

#include "policy.h"

struct sbx_seatbelt_opts {
	/* Where the command starts; NULL: the project directory.  It must
	 * be readable under the policy (a hidden working directory is an
	 * error). */
	const char *workdir;
	/* The run's private temporary directory (absolute; TMPDIR inside),
	 * made writable in place of the policy's /tmp rule.  NULL: Seatbelt
	 * cannot make a private /tmp, so the policy's /tmp rule stands for
	 * the host's /tmp, shared, and the profile says so. */
	const char *tmpdir;
	/* Network allow-list (SBX_NET_FILTERED): the filtering proxy's TCP
	 * port on the loopback address, the only destination allowed.  0:
	 * no proxy, so no network at all, and the profile says so. */
	unsigned proxy_port;
};

/*
 * Generate the profile.  On success returns 0 and *out is a malloc'd,
 * NUL-terminated SBPL text of *len bytes (the caller frees it).  On
 * failure returns -1 with err filled and *out NULL.  p must be finished
 * (sbx_policy_finish); it is not changed.
 */
int sbx_seatbelt_profile(const struct sbx_policy *p,
			 const struct sbx_seatbelt_opts *o, char **out,
			 size_t *len, struct sbx_err *err);

/*
 * Home-relative macOS secrets the generator hides in addition to the
 * policy's own (keychains, browser and mail data), NULL-terminated.  They
 * belong in the shipped profile once a macOS launcher makes --check see
 * them; until then the generator adds them where the policy has no rule
 * for the same root.
 */
extern const char *const sbx_seatbelt_home_hides[];

/* ------------------------------------------------------------ escaping
 * Exposed for the tests.  Each writes to f; the caller checks ferror(f).
 */

/* s (n bytes) as an SBPL string literal: "..." where '"' and '\' are
 * escaped, newline/tab/CR as \n \t \r, every other control byte, DEL and
 * every byte that is not part of well-formed UTF-8 as \xHH.  The output
 * is printable ASCII plus well-formed UTF-8, never a raw newline: safe in
 * a comment too. */
void sbx_sbpl_string(FILE *f, const char *s, size_t n);

/* A POSIX extended regular expression (as text, not yet a literal) that
 * matches path and everything below it (subtree) or path alone, with
 * every ASCII letter matching either case.  A malloc'd string, NULL when
 * out of memory. */
char *sbx_sbpl_path_regex(const char *path, int subtree);

/* The regular expression for an exec rule's program pattern (the glob of
 * match.c): against the basename when the pattern has no '/', against
 * the whole path otherwise; ASCII letters match either case.  Returns a
 * malloc'd string, or NULL with *never = 1 when the pattern matches
 * nothing, or NULL with *never = 0 when out of memory. */
char *sbx_sbpl_glob_regex(const char *glob, int *never);

#endif
