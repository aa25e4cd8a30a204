/*
 * record.h - one refusal record, as the shim sends it to the launcher over
 * the report socket (one datagram per record).  Fields are NUL-separated
 * strings in a fixed order, so paths with tabs, newlines or non-UTF-8
 * bytes need no escaping.  The sender's pid is not a field: the launcher
 * takes it from SCM_CREDENTIALS, which the kernel fills in.
 */
#ifndef SBX_RECORD_H
#define SBX_RECORD_H

#include <stddef.h>

enum sbx_rec_field {
	SBX_REC_OP, /* "read", "write", "exec", "connect", "bind", ... */
	SBX_REC_TARGET, /* path, or host:port */
	SBX_REC_KIND, /* "hidden", "read-only", "suffix", "size",
			 * "exec-denied", "network-off", "not-covered",
			 * "kernel" (the kernel refused, policy explains) */
	SBX_REC_RULE, /* root of the deciding rule, or the exec program */
	SBX_REC_SRC, /* "file:line" of the deciding rule */
	SBX_REC_COMM, /* short name of the process */
	SBX_REC_MSG, /* the one-line explanation as printed */
	SBX_REC_NFIELDS
};

#define SBX_REC_MAX 4096

/* Encode into buf; returns the length, or 0 if it does not fit.  NULL
 * fields encode as "".  No allocation. */
size_t sbx_rec_encode(char *buf, size_t sz,
		      const char *const f[SBX_REC_NFIELDS]);
/* Decode a datagram in place (buf must have room for one more byte at
 * buf[len]); fills f with pointers into buf.  Returns 0 or -1. */
int sbx_rec_decode(char *buf, size_t len, const char *f[SBX_REC_NFIELDS]);

#endif
