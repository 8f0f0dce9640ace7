// SPDX-License-Identifier: GPL-2.0
/* Files and directories only root can change (root_only.h). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "root_only.h"

enum who_else_can_change who_else_can_change(const struct stat *st, uid_t owner)
{
	if (st->st_uid != 0 && st->st_uid != owner)
		return ITS_OWNER;
	if (S_ISDIR(st->st_mode) && (st->st_mode & S_ISVTX))
		return NOBODY_ELSE;
	if (st->st_mode & S_IWOTH)
		return OTHERS;
	if (st->st_mode & S_IWGRP)
		return ITS_GROUP;
	return NOBODY_ELSE;
}

static bool dir_only_root_can_change(int fd, uid_t owner)
{
	struct stat st;

	return !fstat(fd, &st) && S_ISDIR(st.st_mode) &&
	       who_else_can_change(&st, owner) == NOBODY_ELSE;
}

int open_dirs_only_root_can_change(int dirfd, const char *path, uid_t owner, bool keep_last,
				   const char **rest)
{
	char component[NAME_MAX + 1];
	const char *s = path;
	int fd = dup(dirfd);

	if (fd < 0)
		return -1;
	if (!dir_only_root_can_change(fd, owner))
		goto fail;
	for (;;) {
		size_t len;
		int next;

		while (*s == '/')
			s++;
		len = strcspn(s, "/");
		if (!len && !keep_last)
			break;
		if (!len || len > NAME_MAX || (len == 2 && !memcmp(s, "..", 2)) ||
		    (len == 1 && *s == '.'))
			goto fail;
		if (keep_last && !s[len])
			break;
		memcpy(component, s, len);
		component[len] = '\0';
		next = openat(fd, component, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		close(fd);
		fd = next;
		if (fd < 0 || !dir_only_root_can_change(fd, owner))
			goto fail;
		s += len;
	}
	*rest = s;
	return fd;
fail:
	if (fd >= 0)
		close(fd);
	return -1;
}

bool directory_only_root_can_change(const char *dir, uid_t owner)
{
	const char *rest;
	int root, fd;

	if (!dir || dir[0] != '/')
		return false;
	root = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (root < 0)
		return false;
	fd = open_dirs_only_root_can_change(root, dir, owner, false, &rest);
	close(root);
	if (fd < 0)
		return false;
	close(fd);
	return true;
}

static int refuse(char why[REFUSAL_SIZE], int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int refuse(char why[REFUSAL_SIZE], int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, REFUSAL_SIZE, fmt, ap);
	va_end(ap);
	return err;
}

/* What open() or openat() said of an entry, as a refusal. */
static int refuse_open(char why[REFUSAL_SIZE], int err)
{
	if (err == -ELOOP)
		return refuse(why, err, "is a symlink");
	return refuse(why, err, "cannot be opened: %s", strerror(-err));
}

/* Whose st is and who else may write it, as a refusal; 0 when only root
 * and owner may. */
static int refuse_foreign(const struct stat *st, uid_t owner, bool sticky_ok,
			  char why[REFUSAL_SIZE])
{
	unsigned int mode = st->st_mode & 07777;

	switch (who_else_can_change(st, owner)) {
	case ITS_OWNER:
		return refuse(why, -EPERM, "belongs to uid %u, not root",
			      (unsigned int)st->st_uid);
	case OTHERS:
		return refuse(why, -EPERM, "is writable by others (mode %04o)", mode);
	case ITS_GROUP:
		return refuse(why, -EPERM, "is writable by its group (mode %04o)", mode);
	case NOBODY_ELSE:
		break;
	}
	if (!sticky_ok && (st->st_mode & (S_IWGRP | S_IWOTH)))
		return refuse(why, -EPERM, "is writable by others (mode %04o)", mode);
	return 0;
}

/* dir and its missing parents made, mode 0700: 0 or -errno. */
static int make_dirs(const char *dir)
{
	char path[PATH_MAX];
	size_t len = strlen(dir);

	if (len >= sizeof(path))
		return -ENAMETOOLONG;
	memcpy(path, dir, len + 1);
	for (char *p = path + 1;; p++) {
		bool end = !*p;

		if (*p != '/' && !end)
			continue;
		*p = '\0';
		if (mkdir(path, 0700) && errno != EEXIST)
			return -errno;
		if (end)
			return 0;
		*p = '/';
	}
}

int open_dir_to_write(const char *dir, uid_t owner, bool make, bool sticky_ok,
		      char why[REFUSAL_SIZE])
{
	char path[PATH_MAX];
	size_t len = strlen(dir);
	struct stat st;
	int fd, err;

	why[0] = '\0';
	/* "dir/" would follow a symlink dir: the slashes go. */
	while (len > 1 && dir[len - 1] == '/')
		len--;
	if (!len || len >= sizeof(path))
		return refuse(why, -ENAMETOOLONG, "is too long");
	memcpy(path, dir, len);
	path[len] = '\0';
	if (make && (err = make_dirs(path)))
		return refuse(why, err, "cannot be made: %s", strerror(-err));
	fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		err = -errno;
		/* a symlink to a directory is ENOTDIR with O_DIRECTORY */
		if (!lstat(path, &st) && S_ISLNK(st.st_mode))
			err = -ELOOP;
		else if (err == -ENOTDIR)
			return refuse(why, err, "is not a directory");
		return refuse_open(why, err);
	}
	if (fstat(fd, &st))
		err = refuse(why, -errno, "cannot be read: %s", strerror(errno));
	else
		err = refuse_foreign(&st, owner, sticky_ok, why);
	if (err) {
		close(fd);
		return err;
	}
	return fd;
}

int open_file_to_write(int dirfd, const char *name, int flags, mode_t mode, uid_t owner,
		       char why[REFUSAL_SIZE])
{
	struct stat st;
	int fd, err;

	why[0] = '\0';
	/* Said before an open: a FIFO without a reader opens as ENXIO. */
	if (!fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) && !S_ISREG(st.st_mode))
		return S_ISLNK(st.st_mode) ? refuse(why, -ELOOP, "is a symlink") :
		       refuse(why, -EINVAL, "is not a regular file");
	/* O_NONBLOCK: a FIFO put there since must not hold diskio up before
	 * it is found out; O_TRUNC never, before the file is checked. */
	fd = openat(dirfd, name, (flags & ~O_TRUNC) | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, mode);
	if (fd < 0)
		return refuse_open(why, -errno);
	if (fstat(fd, &st))
		err = refuse(why, -errno, "cannot be read: %s", strerror(errno));
	else if (!S_ISREG(st.st_mode))
		err = refuse(why, -EINVAL, "is not a regular file");
	else if (st.st_nlink != 1)
		err = refuse(why, -EMLINK, "is a hard link (%u links)", (unsigned int)st.st_nlink);
	else
		err = refuse_foreign(&st, owner, false, why);
	if (!err && (st.st_mode & 07777 & ~mode) && fchmod(fd, mode))
		err = refuse(why, -errno, "cannot be narrowed to mode %04o: %s",
			     (unsigned int)mode, strerror(errno));
	if (!err && fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK))
		err = refuse(why, -errno, "cannot be written: %s", strerror(errno));
	if (err) {
		close(fd);
		return err;
	}
	return fd;
}
