/*
 * report.h - what sbxrun says about a run after it ends: the stderr
 * summary of refusals and the JSON report (schema in the README).
 */
#ifndef SBX_REPORT_H
#define SBX_REPORT_H

#include <stdio.h>

#include "sbx.h"

void sbx_report_summary(FILE *fp, const struct sbx_result *r);
/* Open the report file ("-" = a dup of stdout) before the run. */
int sbx_report_open(const char *path);
/* Write the JSON report to fd.  0 or -1 with errno. */
int sbx_report_write(int fd, const struct sbx_result *r, char *const argv[]);

#endif
