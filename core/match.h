/*
 * match.h - allocation-free pattern matching shared by engine and shim.
 */
#ifndef SBX_MATCH_H
#define SBX_MATCH_H

#include <stddef.h>

/* Shell-style glob: '*', '?', '[a-z]', '[!x]'.  '*' also matches '/'. */
int sbx_glob(const char *pat, const char *s);
const char *sbx_basename(const char *path);
int sbx_suffix_ok(const char *path, char *const *suffixes, size_t n);
/* Exec deny rule match (see HACKING.md). */
int sbx_exec_match(const char *prog, const char *const *args, size_t nargs,
		   const char *path, char *const argv[]);

#endif
