/*
 * die.c - the CLI's messages on stderr (die.h).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "die.h"

static void say(const char *prefix, int errnum, const char *fmt, va_list ap)
{
	fprintf(stderr, "sbxrun: %s", prefix);
	vfprintf(stderr, fmt, ap);
	if (errnum)
		fprintf(stderr, ": %s", strerror(errnum));
	fputc('\n', stderr);
}

void die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	say("", 0, fmt, ap);
	va_end(ap);
	exit(SBX_EXIT_FAIL);
}

void die_errno(const char *fmt, ...)
{
	int e = errno;
	va_list ap;

	va_start(ap, fmt);
	say("", e, fmt, ap);
	va_end(ap);
	exit(SBX_EXIT_FAIL);
}

void warning(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	say("warning: ", 0, fmt, ap);
	va_end(ap);
}

void note(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	say("", 0, fmt, ap);
	va_end(ap);
}
