/*
 * confread.c - a conf file read once (THREATS CONF-01, CONF-03).
 *
 * The bytes trusted are the bytes parsed: a conf is opened once, without
 * following a final symbolic link and without blocking on a FIFO, checked
 * with fstat (a regular file of ours or root's that nobody else can
 * write), read into memory, and everything after that (the trust hash,
 * the "@include" check, libconfig) works on those bytes.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <xxhash.h>

#include "conf.h"

#define CONF_MAX_BYTES (1u << 20)

static const char *kind_of(mode_t m)
{
	if (S_ISFIFO(m))
		return "a FIFO";
	if (S_ISSOCK(m))
		return "a socket";
	if (S_ISCHR(m) || S_ISBLK(m))
		return "a device";
	if (S_ISDIR(m))
		return "a directory";
	return "not a regular file";
}

/* A number from a small /proc file; -1 if unreadable. */
static long proc_number(const char *path)
{
	char buf[64] = "";
	FILE *f = fopen(path, "re");

	if (!f)
		return -1;
	if (!fgets(buf, sizeof(buf), f))
		buf[0] = '\0';
	fclose(f);
	return buf[0] ? strtol(buf, NULL, 10) : -1;
}

/*
 * In a user namespace that does not map root (another sbxrun's full-mode
 * sandbox, bwrap --unshare-user, Flatpak), root's files, the shipped
 * profiles and /etc/sbxrun among them, show as the overflow uid: trusted
 * like root's there.  Never in the initial namespace, where that uid is
 * a real user (nobody).
 */
static int unmapped_owner(uid_t uid)
{
	unsigned long in, out, n;
	FILE *f;
	int init;

	if (getuid() == 0 ||
	    (long)uid != proc_number("/proc/sys/kernel/overflowuid"))
		return 0;
	f = fopen("/proc/self/uid_map", "re");
	if (!f)
		return 0;
	init = fscanf(f, "%lu %lu %lu", &in, &out, &n) == 3 && in == 0 &&
	       out == 0 && n == 4294967295ul;
	fclose(f);
	return !init;
}

static int check_stat(const char *path, const struct stat *st,
		      struct sbx_err *err)
{
	if (!S_ISREG(st->st_mode))
		return sbx_errf(err, 0,
				"%s: refusing a conf file that is %s "
				"(only regular files are read)",
				path, kind_of(st->st_mode));
	if ((st->st_uid != getuid() && st->st_uid != 0 &&
	     !unmapped_owner(st->st_uid)) ||
	    (st->st_mode & (S_IWGRP | S_IWOTH)))
		return sbx_errf(
			err, 0,
			"%s: refusing a conf file "
			"that others can write (owner uid %u, mode %03o); "
			"fix with: chmod go-w '%s'",
			path, (unsigned)st->st_uid,
			(unsigned)(st->st_mode & 0777), path);
	if (st->st_size > CONF_MAX_BYTES)
		return sbx_errf(err, 0,
				"%s: refusing a conf file of %lld bytes "
				"(the limit is %u)",
				path, (long long)st->st_size, CONF_MAX_BYTES);
	return 0;
}

static int read_all(int fd, const char *path, char **text, struct sbx_err *err)
{
	size_t cap = 4096, len = 0;
	char *buf = malloc(cap);
	ssize_t n;

	if (!buf)
		return sbx_errf(err, ENOMEM, "%s", path);
	for (;;) {
		if (len + 1 >= cap) {
			char *nb = cap > CONF_MAX_BYTES ? NULL
							: realloc(buf, cap * 2);
			if (!nb) {
				free(buf);
				return sbx_errf(err, 0, "%s: too large", path);
			}
			buf = nb;
			cap *= 2;
		}
		n = read(fd, buf + len, cap - len - 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			int e = errno;
			free(buf);
			return sbx_errf(err, e, "%s: cannot read", path);
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	buf[len] = '\0';
	if (strlen(buf) != len) {
		free(buf);
		return sbx_errf(err, 0,
				"%s: a conf file cannot contain NUL bytes",
				path);
	}
	*text = buf;
	return 0;
}

int sbx_conf_read(const char *path, char **text, struct sbx_err *err)
{
	struct stat st;
	int fd, r;

	*text = NULL;
	fd = open(path,
		  O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY);
	if (fd < 0 && errno == ENOENT)
		return 1;
	if (fd < 0 && errno == ELOOP)
		return sbx_errf(err, 0,
				"%s: refusing a conf file that is a symbolic "
				"link (name the file it points to instead)",
				path);
	if (fd < 0)
		return sbx_errf(err, errno, "%s: cannot open", path);
	if (fstat(fd, &st) < 0) {
		r = sbx_errf(err, errno, "%s", path);
	} else if ((r = check_stat(path, &st, err)) == 0) {
		/* a regular file: reads do not block, O_NONBLOCK is moot */
		r = read_all(fd, path, text, err);
	}
	close(fd);
	return r;
}

void sbx_hash128_hex(const void *buf, size_t len, char out[33])
{
	XXH128_hash_t h = XXH3_128bits(buf, len);

	snprintf(out, 33, "%016llx%016llx", (unsigned long long)h.high64,
		 (unsigned long long)h.low64);
}
