// SPDX-License-Identifier: GPL-2.0
/* Files replaced whole, never seen half-written (atomic_file.h). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "atomic_file.h"

/* The directory of path and the temporary file's template in it. */
static int temp_template(const char *path, char *dir, size_t dir_size, char *temp,
			 size_t temp_size)
{
	char copy[PATH_MAX];
	const char *base;

	if (!*path || strlen(path) >= sizeof(copy))
		return -ENAMETOOLONG;
	strcpy(copy, path);
	base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	if (!*base)
		return -EISDIR;
	if ((size_t)snprintf(dir, dir_size, "%s", dirname(copy)) >= dir_size ||
	    (size_t)snprintf(temp, temp_size, "%s/.%s.XXXXXX", dir, base) >= temp_size)
		return -ENAMETOOLONG;
	return 0;
}

/* The directory's entry of the rename on disk: 0 or -errno.  Some
 * filesystems cannot sync a directory; nothing more to do then. */
static int sync_directory(const char *dir)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	int err = 0;

	if (fd < 0)
		return -errno;
	if (fsync(fd) && errno != EINVAL)
		err = -errno;
	close(fd);
	return err;
}

/* render into the open temporary file fd (closed here), then flush it and,
 * when durable, fsync it. */
static int fill_temp(int fd, mode_t mode, bool durable, int (*render)(FILE *out, void *arg),
		     void *arg)
{
	FILE *out;
	int err;

	/* The mode must not depend on the umask, which masked mkostemp()'s 0600. */
	if (fchmod(fd, mode) || !(out = fdopen(fd, "w"))) {
		err = -errno;
		close(fd);
		return err;
	}
	err = render(out, arg);
	if (!err && (fflush(out) == EOF || ferror(out)))
		err = errno ? -errno : -EIO;
	if (!err && durable && fsync(fileno(out)))
		err = -errno;
	if (fclose(out) && !err)
		err = errno ? -errno : -EIO;
	return err;
}

int atomic_file_write_mode(const char *path, mode_t mode, bool durable,
			   int (*render)(FILE *out, void *arg), void *arg)
{
	char dir[PATH_MAX], temp[PATH_MAX];
	int fd, err = temp_template(path, dir, sizeof(dir), temp, sizeof(temp));

	if (err)
		return err;
	fd = mkostemp(temp, O_CLOEXEC);
	if (fd < 0)
		return -errno;
	errno = 0;
	err = fill_temp(fd, mode, durable, render, arg);
	if (!err && rename(temp, path))
		err = -errno;
	if (err) {
		unlink(temp);
		return err;
	}
	return durable ? sync_directory(dir) : 0;
}

int atomic_file_write(const char *path, int (*render)(FILE *out, void *arg), void *arg)
{
	return atomic_file_write_mode(path, 0644, false, render, arg);
}

int atomic_file_check(const char *path)
{
	char dir[PATH_MAX], temp[PATH_MAX];
	struct stat st;
	int fd, err = temp_template(path, dir, sizeof(dir), temp, sizeof(temp));

	if (err)
		return err;
	if (!stat(path, &st) && S_ISDIR(st.st_mode))
		return -EISDIR;
	fd = mkostemp(temp, O_CLOEXEC);
	if (fd < 0)
		return -errno;
	close(fd);
	unlink(temp);
	return 0;
}
