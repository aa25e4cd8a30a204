/*
 * cliapi.c - the library entry points only the sbxrun CLI uses
 * (cli-api/sbx_cli.h): per-project conf management and what the CLI says
 * about a loaded policy, in the public API's error convention.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "api.h"
#include "sb.h"

_Static_assert(SBX_CLI_INJECT_EACH == SBX_INJECT_EACH &&
		       SBX_CLI_INJECT_TOOL == SBX_INJECT_TOOL &&
		       SBX_CLI_INJECT_SHIM == SBX_INJECT_SHIM,
	       "sbx_cli.h and policy.h agree on inject");

void sbx_cli_info(const sbx_t *s, struct sbx_cli_info *info)
{
	info->profile = s->pol.profile ? s->pol.profile : "default";
	info->project = s->pol.project;
	info->cache_dir = s->pol.redirect_caches ? s->pol.cache_dir : NULL;
	info->inject = s->pol.inject;
	info->inject_src[0] = '\0';
	if (s->pol.inject_src.file)
		snprintf(info->inject_src, sizeof info->inject_src, "%s:%d",
			 s->pol.inject_src.file, s->pol.inject_src.line);
}

int sbx_cli_locate(struct sbx_locs *l, const struct sbx_opts *o, char *eb,
		   size_t el)
{
	struct sbx_err err;

	if (sbx_locs_init(l, o, &err) == 0)
		return 0;
	sbx_err_out(&err, eb, el);
	return -1;
}

int sbx_cli_add_path(const struct sbx_locs *l, const char *root,
		     const char *mode, char *eb, size_t el)
{
	struct sbx_err err;

	if (sbx_conf_add_path(l, root, mode, &err) == 0)
		return 0;
	sbx_err_out(&err, eb, el);
	return -1;
}

int sbx_cli_remove_path(const struct sbx_locs *l, const char *root, char *eb,
			size_t el)
{
	struct sbx_err err;

	if (sbx_conf_remove_path(l, root, &err) == 0)
		return 0;
	sbx_err_out(&err, eb, el);
	return -1;
}

int sbx_cli_trust(const struct sbx_locs *l, char *eb, size_t el)
{
	struct sbx_err err;
	int r = sbx_conf_trust(l, &err);

	if (r >= 0)
		return r;
	sbx_err_out(&err, eb, el);
	return -1;
}

/* Created 0600 and never through a symlink: the file governs the
 * sandbox and lives outside it. */
int sbx_cli_conf_create(const struct sbx_locs *l, const char *text, char *eb,
			size_t el)
{
	struct sbx_err err;
	char dir[PATH_MAX + 16];
	size_t n = strlen(text);
	int fd;

	if (access(l->project_conf, F_OK) == 0)
		return 0;
	snprintf(dir, sizeof(dir), "%s/projects", l->config_dir);
	if (sbx_mkdirs(dir, 0700) < 0) {
		sbx_errf(&err, errno, "cannot create %s", dir);
		goto fail;
	}
	fd = open(l->project_conf,
		  O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0) {
		sbx_errf(&err, errno, "cannot create %s", l->project_conf);
		goto fail;
	}
	if (write(fd, text, n) != (ssize_t)n || close(fd) < 0) {
		sbx_errf(&err, errno, "cannot write %s", l->project_conf);
		unlink(l->project_conf);
		goto fail;
	}
	return 0;
fail:
	sbx_err_out(&err, eb, el);
	return -1;
}

int sbx_cli_sh_words(const char *const *args, size_t n, char *buf, size_t sz)
{
	struct sb b;

	sb_init(&b, buf, sz);
	for (size_t i = 0; i < n; i++) {
		if (i)
			sb_putc(&b, ' ');
		sb_putsh(&b, args[i]);
	}
	return b.full ? -1 : 0;
}
