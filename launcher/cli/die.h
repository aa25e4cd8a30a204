/*
 * die.h - how the sbxrun CLI speaks on stderr (STYLE 10): every line reads
 * "sbxrun: <what>[: <why>]".  die() and die_errno() end the program with
 * 125 (DESIGN §9: sbxrun itself failed); warning() and note() go on.
 * The CLI only: libsbx never prints, it hands errors and warnings back.
 */
#ifndef SBX_DIE_H
#define SBX_DIE_H

/* "sbxrun: <message>", exit 125. */
void die(const char *fmt, ...) __attribute__((noreturn, format(printf, 1, 2)));
/* "sbxrun: <message>: <strerror(errno)>", exit 125. */
void die_errno(const char *fmt, ...)
	__attribute__((noreturn, format(printf, 1, 2)));
/* "sbxrun: warning: <message>" */
void warning(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* "sbxrun: <message>" */
void note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
