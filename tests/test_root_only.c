// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of "only root can change this" (lib/root_only.c): the rule
 * on owners and modes as stat gives them, then directories walked in a
 * scratch tree, trusted as the test's own user is (the symbolizer's tests
 * do the same: root is not needed).
 */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "root_only.h"

static enum who_else_can_change who(mode_t type, mode_t mode, uid_t uid, uid_t owner)
{
	struct stat st = { .st_mode = type | mode, .st_uid = uid, .st_gid = 100 };

	return who_else_can_change(&st, owner);
}

Test(root_only, files_of_root_or_the_trusted_user_that_nobody_else_may_write)
{
	cr_assert_eq(who(S_IFREG, 0644, 0, 0), NOBODY_ELSE);
	cr_assert_eq(who(S_IFREG, 0755, 0, 1000), NOBODY_ELSE, "root's, trusted by anyone");
	cr_assert_eq(who(S_IFREG, 0600, 1000, 1000), NOBODY_ELSE);
	cr_assert_eq(who(S_IFREG, 0444, 1000, 0), ITS_OWNER, "a user's, though read-only");
	cr_assert_eq(who(S_IFREG, 0644, 1000, 1001), ITS_OWNER);
}

Test(root_only, writable_by_others_is_said_before_its_group)
{
	cr_assert_eq(who(S_IFREG, 0664, 0, 0), ITS_GROUP);
	cr_assert_eq(who(S_IFREG, 0646, 0, 0), OTHERS);
	cr_assert_eq(who(S_IFREG, 0666, 0, 0), OTHERS);
	cr_assert_eq(who(S_IFREG, 0622, 1000, 0), ITS_OWNER, "the owner before the mode");
	cr_assert_eq(who(S_IFREG, 01666, 0, 0), OTHERS, "the sticky bit means nothing on a file");
}

Test(root_only, a_sticky_directory_keeps_root_s_entries)
{
	cr_assert_eq(who(S_IFDIR, 01777, 0, 0), NOBODY_ELSE, "/tmp");
	cr_assert_eq(who(S_IFDIR, 01770, 0, 0), NOBODY_ELSE);
	cr_assert_eq(who(S_IFDIR, 0777, 0, 0), OTHERS);
	cr_assert_eq(who(S_IFDIR, 0775, 0, 0), ITS_GROUP);
	cr_assert_eq(who(S_IFDIR, 0755, 0, 0), NOBODY_ELSE);
	cr_assert_eq(who(S_IFDIR, 01777, 1000, 0), ITS_OWNER, "its owner may remove anything");
}

/* ---- walks, in a scratch tree ---- */

static char scratch[PATH_MAX];

static void make_scratch(void)
{
	snprintf(scratch, sizeof(scratch), "%s/diskio-root-only.XXXXXX",
		 getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	cr_assert_not_null(mkdtemp(scratch), "mkdtemp: %s", strerror(errno));
}

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

static void remove_scratch(void)
{
	nftw(scratch, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

static const char *in_scratch(const char *relative)
{
	static char path[PATH_MAX + 64];

	snprintf(path, sizeof(path), "%s/%s", scratch, relative);
	return path;
}

TestSuite(root_only_walk, .init = make_scratch, .fini = remove_scratch);

Test(root_only_walk, directories_the_user_alone_can_change)
{
	uid_t me = geteuid();

	cr_assert_eq(mkdir(in_scratch("a"), 0755), 0);
	cr_assert_eq(mkdir(in_scratch("a/b"), 0700), 0);
	if (!directory_only_root_can_change(scratch, me))
		cr_skip_test("%s lies under a directory others can change", scratch);
	cr_assert(directory_only_root_can_change(in_scratch("a/b"), me));
	cr_assert(directory_only_root_can_change(in_scratch("a/b/"), me), "a trailing /");
	cr_assert(directory_only_root_can_change("/", me));
	cr_assert_not(directory_only_root_can_change("a/b", me), "relative");
	cr_assert_not(directory_only_root_can_change(in_scratch("a/../a/b"), me), "..");
	cr_assert_not(directory_only_root_can_change(in_scratch("a/./b"), me), ".");
	cr_assert_not(directory_only_root_can_change(in_scratch("a/none"), me), "missing");
	cr_assert_not(directory_only_root_can_change(NULL, me));
	if (me != 0)
		cr_assert_not(directory_only_root_can_change(in_scratch("a/b"), 0),
			      "the user's own, for root alone");
}

Test(root_only_walk, a_writable_directory_or_a_symlink_on_the_way_is_refused)
{
	uid_t me = geteuid();

	cr_assert_eq(mkdir(in_scratch("open"), 0755), 0);
	cr_assert_eq(chmod(in_scratch("open"), 0775), 0);
	cr_assert_eq(mkdir(in_scratch("open/inner"), 0755), 0);
	cr_assert_eq(mkdir(in_scratch("sticky"), 0755), 0);
	cr_assert_eq(chmod(in_scratch("sticky"), 01777), 0);
	cr_assert_eq(mkdir(in_scratch("sticky/inner"), 0755), 0);
	cr_assert_eq(mkdir(in_scratch("real"), 0755), 0);
	cr_assert_eq(symlink("real", in_scratch("link")), 0);
	if (!directory_only_root_can_change(scratch, me))
		cr_skip_test("%s lies under a directory others can change", scratch);
	cr_assert_not(directory_only_root_can_change(in_scratch("open/inner"), me),
		      "its group may rename inner");
	cr_assert(directory_only_root_can_change(in_scratch("sticky/inner"), me));
	cr_assert_not(directory_only_root_can_change(in_scratch("link"), me), "a symlink");
	cr_assert(directory_only_root_can_change(in_scratch("real"), me));
}

/* keep_last leaves the last component to the caller, to look at or open. */
Test(root_only_walk, the_last_component_is_left_to_the_caller)
{
	const char *rest = NULL;
	struct stat st;
	int root, fd;

	cr_assert_eq(mkdir(in_scratch("d"), 0755), 0);
	cr_assert_eq(close(open(in_scratch("d/file"), O_CREAT | O_WRONLY, 0644)), 0);
	if (!directory_only_root_can_change(scratch, geteuid()))
		cr_skip_test("%s lies under a directory others can change", scratch);
	root = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
	cr_assert_geq(root, 0);
	fd = open_dirs_only_root_can_change(root, in_scratch("d/file"), geteuid(), true, &rest);
	cr_assert_geq(fd, 0);
	cr_assert_str_eq(rest, "file");
	cr_assert_eq(fstatat(fd, rest, &st, AT_SYMLINK_NOFOLLOW), 0);
	cr_assert(S_ISREG(st.st_mode));
	close(fd);
	cr_assert_lt(open_dirs_only_root_can_change(root, in_scratch("d/file"), geteuid(),
						     false, &rest), 0,
		     "without keep_last a file is no directory");
	cr_assert_lt(open_dirs_only_root_can_change(root, in_scratch("d/"), geteuid(), true,
						     &rest), 0,
		     "with keep_last the path must end in a name");
	close(root);
}

/* ---- where diskio writes: open_dir_to_write(), open_file_to_write() ---- */

TestSuite(write_rule, .init = make_scratch, .fini = remove_scratch);

static int dir_fd(const char *relative, bool make, bool sticky_ok, char why[REFUSAL_SIZE])
{
	return open_dir_to_write(in_scratch(relative), geteuid(), make, sticky_ok, why);
}

Test(write_rule, a_missing_directory_is_made_with_its_parents_0700)
{
	char why[REFUSAL_SIZE];
	struct stat st;
	int fd = dir_fd("x/y/rec/", true, false, why);

	cr_assert_geq(fd, 0, "%s", why);
	close(fd);
	cr_assert_eq(stat(in_scratch("x"), &st), 0);
	cr_assert_eq(st.st_mode & 07777, 0700);
	cr_assert_eq(stat(in_scratch("x/y/rec"), &st), 0);
	cr_assert_eq(st.st_mode & 07777, 0700);
	cr_assert_eq(dir_fd("none", false, false, why), -ENOENT, "not made: %s", why);
}

Test(write_rule, directories_others_could_change_are_refused)
{
	char why[REFUSAL_SIZE];

	cr_assert_eq(mkdir(in_scratch("open"), 0700), 0);
	cr_assert_eq(chmod(in_scratch("open"), 0777), 0);
	cr_assert_eq(dir_fd("open", true, false, why), -EPERM);
	cr_assert_str_eq(why, "is writable by others (mode 0777)");
	cr_assert_eq(chmod(in_scratch("open"), 0770), 0);
	cr_assert_eq(dir_fd("open", false, false, why), -EPERM);
	cr_assert_str_eq(why, "is writable by its group (mode 0770)");
	cr_assert_eq(chmod(in_scratch("open"), 01777), 0);
	cr_assert_eq(dir_fd("open", false, false, why), -EPERM, "a sticky one, for --record");
	cr_assert_str_eq(why, "is writable by others (mode 1777)");
	{
		int fd = dir_fd("open", false, true, why);

		cr_assert_geq(fd, 0, "a sticky one, where sticky is allowed: %s", why);
		close(fd);
	}
	cr_assert_eq(symlink("open", in_scratch("link")), 0);
	cr_assert_eq(dir_fd("link", true, true, why), -ELOOP);
	cr_assert_str_eq(why, "is a symlink");
	cr_assert_eq(dir_fd("link/", true, true, why), -ELOOP, "a trailing / follows no link");
	cr_assert_eq(close(open(in_scratch("file"), O_CREAT | O_WRONLY, 0600)), 0);
	cr_assert_eq(dir_fd("file", true, false, why), -ENOTDIR);
	cr_assert_str_eq(why, "is not a directory");
	if (geteuid() == 0) {
		cr_assert_eq(mkdir(in_scratch("theirs"), 0700), 0);
		cr_assert_eq(chown(in_scratch("theirs"), 65534, 65534), 0);
		cr_assert_eq(dir_fd("theirs", false, false, why), -EPERM);
		cr_assert_str_eq(why, "belongs to uid 65534, not root");
	}
	cr_assert(refused_to_write(-EPERM) && refused_to_write(-ELOOP) &&
		  refused_to_write(-ENOTDIR) && !refused_to_write(-ENOENT));
}

/* What a file holds after a refusal: the same bytes. */
static void expect_text(const char *path, const char *text)
{
	char buf[64] = "";
	int fd = open(path, O_RDONLY);

	cr_assert_geq(fd, 0);
	cr_assert_geq(read(fd, buf, sizeof(buf) - 1), 0);
	close(fd);
	cr_assert_str_eq(buf, text, "%s", path);
}

Test(write_rule, only_a_regular_file_of_its_own_with_one_link_is_written)
{
	char why[REFUSAL_SIZE], victim[PATH_MAX + 64];
	int dir, fd;
	struct stat st;

	cr_assert_eq(mkdir(in_scratch("rec"), 0700), 0);
	dir = dir_fd("rec", false, false, why);
	cr_assert_geq(dir, 0, "%s", why);
	snprintf(victim, sizeof(victim), "%s", in_scratch("victim"));
	fd = open(victim, O_CREAT | O_WRONLY, 0600);
	cr_assert_eq(write(fd, "precious", 8), 8);
	close(fd);

	cr_assert_eq(symlink(victim, in_scratch("rec/sym")), 0);
	cr_assert_eq(open_file_to_write(dir, "sym", O_RDWR | O_CREAT | O_TRUNC, 0600, geteuid(),
					why), -ELOOP);
	cr_assert_str_eq(why, "is a symlink");
	cr_assert_eq(link(victim, in_scratch("rec/hard")), 0);
	cr_assert_eq(open_file_to_write(dir, "hard", O_WRONLY | O_CREAT | O_TRUNC, 0600, geteuid(),
					why), -EMLINK);
	cr_assert_str_eq(why, "is a hard link (2 links)");
	expect_text(victim, "precious");
	cr_assert_eq(mkfifo(in_scratch("rec/fifo"), 0600), 0);
	cr_assert_eq(open_file_to_write(dir, "fifo", O_WRONLY | O_CREAT, 0600, geteuid(), why),
		     -EINVAL, "a FIFO, found without blocking");
	cr_assert_str_eq(why, "is not a regular file");
	fd = open(in_scratch("rec/open"), O_CREAT | O_WRONLY, 0600);
	cr_assert_eq(fchmod(fd, 0666), 0);
	close(fd);
	cr_assert_eq(open_file_to_write(dir, "open", O_WRONLY, 0600, geteuid(), why), -EPERM);
	cr_assert_str_eq(why, "is writable by others (mode 0666)");
	if (geteuid() == 0) {
		fd = open(in_scratch("rec/theirs"), O_CREAT | O_WRONLY, 0600);
		cr_assert_eq(fchown(fd, 65534, 65534), 0);
		close(fd);
		cr_assert_eq(open_file_to_write(dir, "theirs", O_WRONLY, 0600, 0, why), -EPERM);
		cr_assert_str_eq(why, "belongs to uid 65534, not root");
	}

	/* A file of an older run, 0640, is narrowed; a new one is 0600. */
	fd = open(in_scratch("rec/old"), O_CREAT | O_WRONLY, 0640);
	cr_assert_eq(fchmod(fd, 0640), 0);
	close(fd);
	fd = open_file_to_write(dir, "old", O_RDWR, 0600, geteuid(), why);
	cr_assert_geq(fd, 0, "%s", why);
	cr_assert_eq(fstat(fd, &st), 0);
	cr_assert_eq(st.st_mode & 07777, 0600);
	cr_assert_eq(write(fd, "x", 1), 1, "blocking again, and writable");
	close(fd);
	fd = open_file_to_write(dir, "new", O_RDWR | O_CREAT, 0600, geteuid(), why);
	cr_assert_geq(fd, 0, "%s", why);
	cr_assert_eq(fstat(fd, &st), 0);
	cr_assert_eq(st.st_mode & 07777, 0600);
	close(fd);
	close(dir);
}
