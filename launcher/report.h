/*
 * report.h - what sbxrun says about a run after it ends: the stderr
 * summary of refusals and the JSON report (schema in the README).
 */
#ifndef SBX_REPORT_H
#define SBX_REPORT_H

#include <stdio.h>

#include "sbx.h"

void sbx_report_summary(FILE *fp, const struct sbx_result *r);
/* Write the JSON report to path ("-" = stdout).  0 or -1 with errno. */
int sbx_report_write(const char *path, const struct sbx_result *r,
		     char *const argv[]);

#endif
