/*
 * test_mkpath.c - sbx_mkpath_nofollow (confmgmt.c), how --allow-write
 * makes a missing path (review N-11):
 *
 *  - missing directories and the last component are made, a directory or
 *    an empty file;
 *  - a symlink anywhere on the way (a link a run planted, to a directory
 *    outside) fails the walk, and nothing is made behind it;
 *  - a last component that exists (a file, a link) is an error, the link's
 *    target untouched.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "conf.h"

static char top[PATH_MAX];

static const char *at(const char *rel)
{
	static char buf[4][PATH_MAX];
	static int k;

	k = (k + 1) % 4;
	snprintf(buf[k], sizeof buf[k], "%s/%s", top, rel);
	return buf[k];
}

static void test_makes(void **state)
{
	struct stat st;

	(void)state;
	assert_int_equal(sbx_mkpath_nofollow(at("x/y/z"), 1), 0);
	assert_int_equal(stat(at("x/y/z"), &st), 0);
	assert_true(S_ISDIR(st.st_mode));
	assert_int_equal(sbx_mkpath_nofollow(at("x/f"), 0), 0);
	assert_int_equal(stat(at("x/f"), &st), 0);
	assert_true(S_ISREG(st.st_mode) && st.st_size == 0);
	/* existing: an error, as O_EXCL and mkdir say */
	assert_int_equal(sbx_mkpath_nofollow(at("x/f"), 0), -1);
	assert_int_equal(sbx_mkpath_nofollow(at("x/y/z"), 1), -1);
	assert_int_equal(sbx_mkpath_nofollow("relative/path", 1), -1);
}

static void test_never_through_a_link(void **state)
{
	struct stat st;

	(void)state;
	assert_int_equal(mkdir(at("outside"), 0755), 0);
	assert_int_equal(mkdir(at("proj"), 0755), 0);
	assert_int_equal(symlink(at("outside"), at("proj/cfg")), 0);
	/* a link in the middle */
	assert_int_equal(sbx_mkpath_nofollow(at("proj/cfg/systemd/user"), 1),
			 -1);
	assert_int_equal(lstat(at("outside/systemd"), &st), -1);
	assert_int_equal(sbx_mkpath_nofollow(at("proj/cfg/evil"), 0), -1);
	assert_int_equal(lstat(at("outside/evil"), &st), -1);
	/* the link as the last component */
	assert_int_equal(sbx_mkpath_nofollow(at("proj/cfg"), 1), -1);
	assert_int_equal(sbx_mkpath_nofollow(at("proj/cfg"), 0), -1);
	assert_int_equal(lstat(at("proj/cfg"), &st), 0);
	assert_true(S_ISLNK(st.st_mode));
	/* a link to a file in the middle */
	assert_int_equal(symlink(at("proj/nowhere"), at("proj/dangling")), 0);
	assert_int_equal(sbx_mkpath_nofollow(at("proj/dangling/x"), 1), -1);
	assert_int_equal(lstat(at("proj/nowhere"), &st), -1);
}

static int setup(void **state)
{
	(void)state;
	snprintf(top, sizeof top, "/tmp/sbx-mkpath.XXXXXX");
	return mkdtemp(top) ? 0 : -1;
}

static int teardown(void **state)
{
	char cmd[PATH_MAX + 16];

	(void)state;
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", top);
	return system(cmd) == 0 ? 0 : -1;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_makes),
		cmocka_unit_test(test_never_through_a_link),
	};

	return cmocka_run_group_tests_name("mkpath", tests, setup, teardown);
}
