/*
 * err.c - filling a struct sbx_err (err.h).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "err.h"

static void put(struct sbx_err *err, size_t off, int errnum, const char *fmt,
		va_list ap)
{
	int n = vsnprintf(err->msg + off, sizeof err->msg - off, fmt, ap);

	if (errnum && n >= 0 && off + (size_t)n < sizeof err->msg)
		snprintf(err->msg + off + (size_t)n,
			 sizeof err->msg - off - (size_t)n, ": %s",
			 strerror(errnum));
}

int sbx_errf(struct sbx_err *err, int errnum, const char *fmt, ...)
{
	int saved = errno;
	va_list ap;

	if (err) {
		va_start(ap, fmt);
		put(err, 0, errnum, fmt, ap);
		va_end(ap);
	}
	errno = saved;
	return -1;
}

int sbx_errf_at(struct sbx_err *err, const char *file, int line,
		const char *fmt, ...)
{
	int saved = errno, n;
	va_list ap;

	if (!err)
		return -1;
	if (line >= 0)
		n = snprintf(err->msg, sizeof err->msg, "%s:%d: ", file, line);
	else
		n = snprintf(err->msg, sizeof err->msg, "%s: ", file);
	if (n < 0 || (size_t)n >= sizeof err->msg)
		n = 0;
	va_start(ap, fmt);
	put(err, (size_t)n, 0, fmt, ap);
	va_end(ap);
	errno = saved;
	return -1;
}
