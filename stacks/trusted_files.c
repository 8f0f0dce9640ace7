// SPDX-License-Identifier: GPL-2.0
/*
 * Opening files for the symbolizer, as root (trusted_files.h).
 *
 * Each file is reached in two steps: first without reading (O_PATH, which
 * opens no FIFO or device and cannot block), checked to be the regular
 * file expected, then reopened for reading through /proc/self/fd/N, the
 * descriptor itself: a path looked up twice could name another file the
 * second time.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "path.h"
#include "root_only.h"
#include "trusted_files.h"

int open_mapped_file(const char *pid_dir, uint64_t start, uint64_t end)
{
	char path[PATH_MAX];

	if (!build_path(path, "%s/map_files/%" PRIx64 "-%" PRIx64, pid_dir, start, end))
		return -1;
	return open(path, O_PATH | O_CLOEXEC);
}

bool is_mapped_file(const struct stat *st, uint64_t inode, uint32_t dev_major,
		    uint32_t dev_minor)
{
	if (!S_ISREG(st->st_mode) || (uint64_t)st->st_ino != inode)
		return false;
	if (major(st->st_dev) == dev_major && minor(st->st_dev) == dev_minor)
		return true;
	return major(st->st_dev) == 0 && dev_major == 0;
}

/* A regular file only root can change (root_only.h). */
static bool is_trusted_file(const struct stat *st, uid_t trusted_uid)
{
	return S_ISREG(st->st_mode) && who_else_can_change(st, trusted_uid) == NOBODY_ELSE;
}

/*
 * open_dirs_only_root_can_change() up to path's last component, which is
 * looked at (not opened) with fstatat and must be a file only root can
 * change.  0 and *parent (the last directory, for the caller to close),
 * *last and *st, or -1.
 */
static int walk_trusted(int dirfd, const char *path, uid_t trusted_uid, int *parent,
			const char **last, struct stat *st)
{
	int fd = open_dirs_only_root_can_change(dirfd, path, trusted_uid, true, last);

	if (fd < 0)
		return -1;
	if (fstatat(fd, *last, st, AT_SYMLINK_NOFOLLOW) || !is_trusted_file(st, trusted_uid)) {
		close(fd);
		return -1;
	}
	*parent = fd;
	return 0;
}

/* Through /proc/self/fd: the descriptor, not a path that could have
 * changed since. */
int reopen_for_reading(int path_fd, const struct stat *expected)
{
	char path[64];
	struct stat st;

	/* What it holds now: a regular file, the one expected (no FIFO, device
	 * or symlink swapped in since it was looked at). */
	if (fstat(path_fd, &st) || !S_ISREG(st.st_mode) || st.st_dev != expected->st_dev ||
	    st.st_ino != expected->st_ino)
		return -1;
	/* The descriptor holds that file: reopening it reaches no other. */
	snprintf(path, sizeof(path), "/proc/self/fd/%d", path_fd);
	return open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
}

int open_trusted_file(const char *root_dir, const char *path, uid_t trusted_uid,
		      const struct stat *expected, struct stat *st)
{
	const char *last;
	int root, parent, file, fd = -1;

	if (path[0] != '/')
		return -1;
	root = open(root_dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (root < 0)
		return -1;
	if (walk_trusted(root, path, trusted_uid, &parent, &last, st)) {
		close(root);
		return -1;
	}
	close(root);
	if (!expected || (st->st_dev == expected->st_dev && st->st_ino == expected->st_ino)) {
		file = openat(parent, last, O_PATH | O_NOFOLLOW | O_CLOEXEC);
		if (file >= 0) {
			fd = reopen_for_reading(file, st);
			close(file);
		}
	}
	close(parent);
	return fd;
}

bool trusted_in_process(const char *pid_dir, const char *path, const struct stat *st,
			uid_t trusted_uid)
{
	char root_path[PATH_MAX];
	struct stat found;
	const char *last;
	int root, parent;
	bool trusted = false;

	if (!is_trusted_file(st, trusted_uid) || path[0] != '/' ||
	    !build_path(root_path, "%s/root", pid_dir))
		return false;
	root = open(root_path, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (root < 0)
		return false;
	if (!walk_trusted(root, path, trusted_uid, &parent, &last, &found)) {
		trusted = found.st_dev == st->st_dev && found.st_ino == st->st_ino;
		close(parent);
	}
	close(root);
	return trusted;
}
