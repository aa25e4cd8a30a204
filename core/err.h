/*
 * err.h - the one error idiom of libsbx and the engine: a function that
 * fails fills a caller-supplied struct sbx_err and returns -1.  Nothing
 * below the CLI prints; the CLI (launcher/cli/die.h) says it.
 */
#ifndef SBX_ERR_H
#define SBX_ERR_H

/* Error carrier.  msg is always NUL-terminated. */
struct sbx_err {
	char msg[1024];
};

/* Fill err (may be NULL) with a formatted message, plus
 * ": strerror(errnum)" when errnum is not 0.  errno is preserved, so
 * "%m" and a caller's later look at errno both still see the failure.
 * Returns -1, for "return sbx_errf(...)". */
int sbx_errf(struct sbx_err *err, int errnum, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* The same for a problem in a conf file: "file:line: message" ("file:
 * message" when line < 0). */
int sbx_errf_at(struct sbx_err *err, const char *file, int line,
		const char *fmt, ...) __attribute__((format(printf, 4, 5)));

#endif
