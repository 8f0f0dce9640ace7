// SPDX-License-Identifier: GPL-2.0
/* Files and directories only root can change (root_only.h). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <fcntl.h>
#include <limits.h>
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
