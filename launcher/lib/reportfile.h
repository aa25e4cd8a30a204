/*
 * reportfile.h - where the --report document goes (see sbx_cli.h):
 * report.c builds the JSON, reportfile.c puts it at the path.
 */
#ifndef SBX_REPORTFILE_H
#define SBX_REPORTFILE_H

#include <stddef.h>

#include "sbx_cli.h"

/* The warning a report carries when its path was replaced in the run. */
#define SBX_REPORT_REPLACED                                                 \
	"the report's path was replaced during the run (the command could " \
	"write there): this report was written in its place"

/* Does the path no longer name the file opened at the start? */
int sbx_report_replaced(const struct sbx_cli_report *rp);
/* s at the path: 0, or -1 with why filled. */
int sbx_report_put(struct sbx_cli_report *rp, const char *s, char *why,
		   size_t whysz);

#endif
