/*
 * confcache.c - conf trees kept between runs (issue 17).  See confcache.h.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <xxhash.h>

#include "confcache.h"
#include "rundir.h"

#define CC_MAX_BYTES (64u << 20)

/* Per thread: sbx_open() may run in several at once (libsbx). */
static __thread struct {
	int off; /* this load parses everything */
	int used; /* a kept tree was taken from dir */
	uint64_t build; /* who parses: part of every key */
	char dir[PATH_MAX];
} cc;

/* The identity of the file that holds sym (a shared library), or of the
 * running program (static: dladdr finds no file). */
static int file_id(const void *sym, uint64_t v[5])
{
	Dl_info info;
	struct stat st;
	const char *f = "/proc/self/exe";

	if (dladdr(sym, &info) && info.dli_fname && strchr(info.dli_fname, '/'))
		f = info.dli_fname;
	if (stat(f, &st) < 0)
		return -1;
	v[0] = (uint64_t)st.st_dev;
	v[1] = (uint64_t)st.st_ino;
	v[2] = (uint64_t)st.st_size;
	v[3] = (uint64_t)st.st_mtim.tv_sec;
	v[4] = (uint64_t)st.st_mtim.tv_nsec;
	return 0;
}

/* Who parses and who reads the tree: the file holding libconfig's parser
 * (libconfig.so, or the static sbxrun) and the one holding this code
 * (libsbx.so, or sbxrun; conftree.c's format is ours).  A new build of
 * either, or an upgraded libconfig, makes other keys, so no tree of
 * another parser or reader is ever taken. */
static uint64_t build_id(void)
{
	uint64_t v[10];

	if (file_id((const void *)config_read_string, v) < 0 ||
	    file_id((const void *)build_id, v + 5) < 0)
		return 0;
	return XXH3_64bits(v, sizeof(v));
}

void sbx_confcache_begin(const char *home, int off)
{
	memset(&cc, 0, sizeof(cc));
	cc.off = off;
	if (off || sbx_rundir_existing(home, cc.dir, sizeof(cc.dir)) < 0 ||
	    !(cc.build = build_id()))
		cc.dir[0] = '\0'; /* nothing kept, nothing taken */
}

const char *sbx_confcache_used(void)
{
	return cc.used ? cc.dir : NULL;
}

static void entry_path(char *out, size_t n, const unsigned char key[16])
{
	int k = snprintf(out, n, "%s/conf-", cc.dir);

	for (int i = 0; i < 16 && k > 0 && (size_t)k + 3 <= n; i++)
		k += snprintf(out + k, n - (size_t)k, "%02x", key[i]);
}

/* Read a kept blob, with the care of confread.c: no final symlink, no
 * blocking, a regular file of ours that only we could ever write. */
static char *read_entry(const char *path, size_t *len)
{
	struct stat st;
	char *buf = NULL;
	size_t got = 0;
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY |
				    O_CLOEXEC);

	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) &&
	    st.st_uid == geteuid() && !(st.st_mode & 0222) && st.st_size > 0 &&
	    (size_t)st.st_size <= CC_MAX_BYTES &&
	    (buf = malloc((size_t)st.st_size))) {
		while (got < (size_t)st.st_size) {
			ssize_t n =
				read(fd, buf + got, (size_t)st.st_size - got);

			if (n <= 0)
				break;
			got += (size_t)n;
		}
		/* used: no sweep takes it (rundir.c, a day unused) */
		if (got == (size_t)st.st_size &&
		    time(NULL) - st.st_mtime > 3600)
			futimens(fd, NULL);
	}
	close(fd);
	if (buf && got != (size_t)st.st_size) {
		free(buf);
		buf = NULL;
	}
	*len = got;
	return buf;
}

int sbx_confcache_get(const char *text, const char *file, struct sbx_ct *t,
		      unsigned char key[16])
{
	char path[PATH_MAX + 48];
	size_t len;
	char *blob;

	sbx_ct_key(text, cc.build, key);
	if (cc.off || !cc.dir[0])
		return -1;
	entry_path(path, sizeof(path), key);
	if (!(blob = read_entry(path, &len)) ||
	    sbx_ct_load(t, blob, len, key, file) < 0) /* frees blob */
		return -1;
	cc.used = 1;
	return 0;
}

/* Written whole under a temporary name and renamed into place, as the
 * compiled policies are (rundir.c); any failure leaves nothing. */
void sbx_confcache_put(const struct sbx_ct *t, const unsigned char key[16])
{
	char tmp[PATH_MAX + 48], path[PATH_MAX + 48];
	int fd, ok;

	if (cc.off || !cc.dir[0])
		return;
	snprintf(tmp, sizeof(tmp), "%s/.new-XXXXXX", cc.dir);
	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0)
		return;
	ok = write(fd, t->blob, t->blob_len) == (ssize_t)t->blob_len &&
	     fchmod(fd, 0444) == 0;
	close(fd);
	entry_path(path, sizeof(path), key);
	if (!ok || rename(tmp, path) < 0)
		unlink(tmp);
}
