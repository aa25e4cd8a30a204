/*
 * die.c - the CLI's messages on stderr (die.h).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "die.h"

/* Colour for sbxrun's own lines, on a terminal only, and never when
 * NO_COLOR is set to anything (no-color.org) or TERM is dumb. */
static int use_colour(void)
{
	static int c = -1;
	const char *nc = getenv("NO_COLOR"), *term = getenv("TERM");

	if (c < 0)
		c = isatty(STDERR_FILENO) && !(nc && *nc) &&
		    !(term && !strcmp(term, "dumb"));
	return c;
}

/* colour: an SGR code for the prefix ("1;31" red, "1;33" yellow), or
 * NULL for the name alone in bold. */
static void say_c(const char *prefix, const char *colour, int errnum,
		  const char *fmt, va_list ap)
{
	if (use_colour())
		fprintf(stderr, "\033[1msbxrun:\033[0m %s%s%s%s",
			*prefix ? "\033[" : "", *prefix ? colour : "",
			*prefix ? "m" : "", prefix);
	else
		fprintf(stderr, "sbxrun: %s", prefix);
	if (use_colour() && *prefix)
		fputs("\033[0m", stderr);
	vfprintf(stderr, fmt, ap);
	if (errnum)
		fprintf(stderr, ": %s", strerror(errnum));
	fputc('\n', stderr);
}

static void say(const char *prefix, int errnum, const char *fmt, va_list ap)
{
	say_c(prefix, "1;33", errnum, fmt, ap);
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
