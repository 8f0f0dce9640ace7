// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of iotop's USER (users.c): names from a passwd file of the
 * test's own, the first line of a uid winning as getpwuid() has it, lines
 * that are no entry skipped, a uid without a name shown as its number, and
 * the file read again when it changes, not before.
 */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "users.h"

static char dir[64], passwd[PATH_MAX];

static void make_dir(void)
{
	snprintf(dir, sizeof(dir), "/tmp/diskio-test-users-XXXXXX");
	cr_assert_not_null(mkdtemp(dir));
	snprintf(passwd, sizeof(passwd), "%s/passwd", dir);
}

static void remove_dir(void)
{
	unlink(passwd);
	rmdir(dir);
}

TestSuite(users, .init = make_dir, .fini = remove_dir);

static void write_passwd(const char *text)
{
	char tmp[PATH_MAX];
	FILE *f;

	/* replaced whole, as useradd and vipw do */
	snprintf(tmp, sizeof(tmp), "%s/passwd.new", dir);
	f = fopen(tmp, "w");
	cr_assert_not_null(f);
	fputs(text, f);
	cr_assert_eq(fclose(f), 0);
	cr_assert_eq(rename(tmp, passwd), 0);
}

static const char *name_of(const struct users *u, uint32_t uid)
{
	static char buf[USER_NAME_SIZE];

	return users_name(u, uid, buf, sizeof(buf));
}

static const char debian[] =
	"root:x:0:0:root:/root:/bin/bash\n"
	"daemon:x:1:1:daemon:/usr/sbin:/usr/sbin/nologin\n"
	"nobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\n"
	"postgres:x:105:111:PostgreSQL administrator,,,:/var/lib/postgresql:/bin/bash\n";

Test(users, names_by_uid_and_numbers_without_one)
{
	struct users u;

	write_passwd(debian);
	users_init(&u, passwd);
	cr_assert_str_eq(name_of(&u, 0), "0", "nothing read before the first refresh");
	cr_assert(users_refresh(&u));
	cr_assert_str_eq(name_of(&u, 0), "root");
	cr_assert_str_eq(name_of(&u, 65534), "nobody");
	cr_assert_str_eq(name_of(&u, 105), "postgres");
	cr_assert_str_eq(name_of(&u, 1000), "1000", "no name: its number, as ps");
	cr_assert_str_eq(name_of(&u, UINT32_MAX - 1), "4294967294");
	users_free(&u);
}

Test(users, the_first_line_of_a_uid_wins_and_others_are_skipped)
{
	static const char text[] =
		"# a comment\n"
		"\n"
		"+nisuser:x:2000:2000::/:/bin/sh\n"
		"-excluded::3000:3000::/:/bin/sh\n"
		":x:4000:4000::/:/bin/sh\n"		/* no name */
		"toor:x:0:0:second root:/root:/bin/sh\n"
		"root:x:0:0:root:/root:/bin/bash\n"
		"short:x:5000\n"			/* three fields are enough */
		"signed:x:-1:0::/:\n"
		"big:x:4294967295:0::/:\n"		/* (uid_t)-1 is no uid */
		"huge:x:99999999999:0::/:\n"
		"spaced:x: 7:0::/:\n"
		"nopass:7000\n"
		"alice:x:1000:1000::/home/alice:/bin/bash";	/* no newline at the end */
	struct users u;

	write_passwd(text);
	users_init(&u, passwd);
	cr_assert(users_refresh(&u));
	cr_assert_str_eq(name_of(&u, 0), "toor", "the first line of uid 0, as getpwuid()");
	cr_assert_str_eq(name_of(&u, 2000), "2000", "NIS entries are not names here");
	cr_assert_str_eq(name_of(&u, 3000), "3000");
	cr_assert_str_eq(name_of(&u, 4000), "4000");
	cr_assert_str_eq(name_of(&u, 5000), "short");
	cr_assert_str_eq(name_of(&u, 7), "7");
	cr_assert_str_eq(name_of(&u, 7000), "7000");
	cr_assert_str_eq(name_of(&u, 1000), "alice");
	cr_assert_eq(u.count, 3, "toor, short, alice");
	users_free(&u);
}

Test(users, read_again_only_when_the_file_changes)
{
	struct users u;

	write_passwd(debian);
	users_init(&u, passwd);
	cr_assert(users_refresh(&u));
	cr_assert_not(users_refresh(&u), "unchanged: not read again");
	cr_assert_str_eq(name_of(&u, 1001), "1001");
	/* useradd: a new file in its place */
	write_passwd("root:x:0:0::/:\nbob:x:1001:1001::/home/bob:/bin/sh\n");
	cr_assert(users_refresh(&u));
	cr_assert_str_eq(name_of(&u, 1001), "bob");
	cr_assert_str_eq(name_of(&u, 65534), "65534", "nobody is gone from it");
	/* changed in place, same size: its times tell */
	{
		struct timespec times[2] = { { 0, UTIME_OMIT }, { 1000000000, 0 } };
		FILE *f = fopen(passwd, "r+");

		cr_assert_not_null(f);
		cr_assert_eq(fseek(f, 15, SEEK_SET), 0);	/* bob's name */
		fputs("ann", f);
		cr_assert_eq(fclose(f), 0);
		cr_assert_eq(utimensat(AT_FDCWD, passwd, times, 0), 0);
	}
	cr_assert(users_refresh(&u));
	cr_assert_str_eq(name_of(&u, 1001), "ann");
	/* gone: numbers only */
	cr_assert_eq(unlink(passwd), 0);
	cr_assert(users_refresh(&u));
	cr_assert_str_eq(name_of(&u, 0), "0");
	cr_assert_not(users_refresh(&u));
	users_free(&u);
}

Test(users, no_file_no_names)
{
	struct users u;

	users_init(&u, NULL);
	cr_assert_not(users_refresh(&u));
	cr_assert_str_eq(name_of(&u, 0), "0");
	users_free(&u);
	users_init(&u, "/nonexistent/diskio/passwd");
	cr_assert_not(users_refresh(&u));
	cr_assert_str_eq(name_of(&u, 0), "0");
	users_free(&u);
	/* a directory in its place */
	users_init(&u, "/tmp");
	cr_assert_not(users_refresh(&u));
	users_free(&u);
}

Test(users, parse_replaces_the_names)
{
	struct users u;

	users_init(&u, NULL);
	cr_assert_eq(users_parse(&u, "a:x:1:1::/:\nb:x:2:2::/:\n", 24), 0);
	cr_assert_str_eq(name_of(&u, 2), "b");
	cr_assert_eq(users_parse(&u, "c:x:2:2::/:\n", 12), 0);
	cr_assert_str_eq(name_of(&u, 2), "c");
	cr_assert_str_eq(name_of(&u, 1), "1");
	cr_assert_eq(users_parse(&u, "", 0), 0);
	cr_assert_eq(u.count, 0);
	/* a NUL in a name: not a name */
	cr_assert_eq(users_parse(&u, "d\0e:x:3:3::/:\n", 14), 0);
	cr_assert_str_eq(name_of(&u, 3), "3");
	users_free(&u);
}

/* -u (issue 48): a name from the file, a number as it is (iotop's order). */
Test(users, u_takes_a_name_or_a_number)
{
	struct users u;
	uint32_t uid = 7;

	write_passwd(debian);
	users_init(&u, passwd);
	users_refresh(&u);
	cr_assert_eq(users_uid(&u, "nobody", &uid), 0);
	cr_assert_eq(uid, 65534);
	cr_assert_eq(users_uid(&u, "postgres", &uid), 0);
	cr_assert_eq(uid, 105);
	cr_assert_eq(users_uid(&u, "1000", &uid), 0, "a uid without a name");
	cr_assert_eq(uid, 1000);
	uid = 7;
	cr_assert_eq(users_uid(&u, "alice", &uid), -ENOENT);
	cr_assert_eq(users_uid(&u, "", &uid), -ENOENT);
	cr_assert_eq(users_uid(&u, "4294967295", &uid), -ENOENT, "(uid_t)-1 is no uid");
	cr_assert_eq(users_uid(&u, "nob", &uid), -ENOENT, "a whole name, not a prefix");
	cr_assert_eq(uid, 7, "left as it was");
	users_free(&u);
}

Test(users, resolve_args_says_which_user_is_unknown)
{
	const char *const given[] = { "root", "65534", "alice" };
	uint32_t uids[3] = { 9, 9, 9 };
	char *text = NULL;
	size_t size = 0;
	FILE *err = open_memstream(&text, &size);

	write_passwd(debian);
	cr_assert_eq(users_resolve_args(passwd, given, 2, uids, err), 0);
	cr_assert_eq(uids[0], 0);
	cr_assert_eq(uids[1], 65534);
	cr_assert_eq(users_resolve_args(passwd, given, 3, uids, err), -1);
	fclose(err);
	cr_assert_not_null(strstr(text, "diskio: no user 'alice' in "), "%s", text);
	cr_assert_eq(strchr(text, '\n'), text + strlen(text) - 1, "one line: %s", text);
	free(text);
}
