// SPDX-License-Identifier: GPL-2.0
/* Files replaced whole, never seen half-written (atomic_file.h). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "atomic_file.h"

int atomic_target_open(struct atomic_target *t, const char *path, char why[REFUSAL_SIZE])
{
	char dir[PATH_MAX];
	const char *slash = strrchr(path, '/');
	const char *base = slash ? slash + 1 : path;
	size_t dir_len = slash ? (size_t)(slash - path) : 1;
	int fd;

	t->dirfd = -1;
	why[0] = '\0';
	if (!*base)
		return -EISDIR;
	if (strlen(base) >= sizeof(t->name) || dir_len >= sizeof(dir))
		return -ENAMETOOLONG;
	if (!slash)
		memcpy(dir, ".", 2);
	else if (!dir_len)
		memcpy(dir, "/", 2);
	else
		memcpy(dir, path, dir_len), dir[dir_len] = '\0';
	fd = open_dir_to_write(dir, geteuid(), false, true, why);
	if (fd < 0)
		return fd;
	{
		struct stat st;

		if (!fstatat(fd, base, &st, AT_SYMLINK_NOFOLLOW) && S_ISDIR(st.st_mode)) {
			close(fd);
			return -EISDIR;
		}
	}
	t->dirfd = fd;
	strcpy(t->name, base);
	return 0;
}

void atomic_target_close(struct atomic_target *t)
{
	if (t->dirfd >= 0)
		close(t->dirfd);
	t->dirfd = -1;
}

/* A new temporary file ".NAME.XXXXXX" in t's directory, its name in temp:
 * a descriptor or -errno.  O_EXCL and O_NOFOLLOW: never an entry already
 * there. */
static int make_temp(const struct atomic_target *t, char *temp, size_t size)
{
	static unsigned int serial;

	for (int tries = 0; tries < 100; tries++) {
		unsigned int tag = (unsigned int)getpid() * 2654435761U ^ ++serial * 40503U ^
				   (unsigned int)tries;
		int fd;

		if ((size_t)snprintf(temp, size, ".%s.%06x", t->name, tag & 0xffffff) >= size)
			return -ENAMETOOLONG;
		fd = openat(t->dirfd, temp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
			    0600);
		if (fd >= 0 || errno != EEXIST)
			return fd >= 0 ? fd : -errno;
	}
	return -EEXIST;
}

/* A stdio stream over fd that keeps the errno of its first failed write:
 * stdio's own flag says only that a write failed, and errno is long gone
 * (or overwritten) by the time the renderer is done. */
struct fd_sink {
	int fd;
	int error;
};

static ssize_t sink_write(void *cookie, const char *buf, size_t size)
{
	struct fd_sink *s = cookie;
	size_t done = 0;

	while (done < size) {
		ssize_t n = write(s->fd, buf + done, size - done);

		if (n > 0) {
			done += (size_t)n;
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (!s->error)
			s->error = n < 0 ? errno : ENOSPC;	/* 0 bytes: no room */
		return done ? (ssize_t)done : -1;
	}
	return (ssize_t)done;
}

int render_to_fd(int fd, int (*render)(FILE *out, void *arg), void *arg)
{
	struct fd_sink sink = { .fd = fd };
	FILE *out = fopencookie(&sink, "w", (cookie_io_functions_t){ .write = sink_write });
	int err;

	if (!out)
		return -errno;
	err = render(out, arg);
	if (fflush(out) == EOF && !sink.error)
		sink.error = EIO;
	fclose(out);
	/* The write's own errno before the renderer's reading of it. */
	if (sink.error)
		return -sink.error;
	return err;
}

/* render into the open temporary file fd (closed here), then, when
 * durable, fsync it. */
static int fill_temp(int fd, mode_t mode, bool durable, int (*render)(FILE *out, void *arg),
		     void *arg)
{
	int err;

	/* The mode must not depend on the umask, which masked mkostemp()'s 0600. */
	if (fchmod(fd, mode))
		err = -errno;
	else
		err = render_to_fd(fd, render, arg);
	if (!err && durable && fsync(fd))
		err = -errno;
	if (close(fd) && !err)
		err = -errno;
	return err;
}

int atomic_target_write(const struct atomic_target *t, mode_t mode, bool durable,
			int (*render)(FILE *out, void *arg), void *arg)
{
	char temp[NAME_MAX + 16];
	int fd = make_temp(t, temp, sizeof(temp)), err;

	if (fd < 0)
		return fd;
	err = fill_temp(fd, mode, durable, render, arg);
	if (!err && renameat(t->dirfd, temp, t->dirfd, t->name))
		err = -errno;
	if (err) {
		unlinkat(t->dirfd, temp, 0);
		return err;
	}
	/* The directory's entry of the rename on disk.  Some filesystems
	 * cannot sync a directory; nothing more to do then. */
	if (durable && fsync(t->dirfd) && errno != EINVAL)
		return -errno;
	return 0;
}

int atomic_target_check(const struct atomic_target *t)
{
	char temp[NAME_MAX + 16];
	int fd = make_temp(t, temp, sizeof(temp));

	if (fd < 0)
		return fd;
	close(fd);
	unlinkat(t->dirfd, temp, 0);
	return 0;
}

int atomic_file_write_mode(const char *path, mode_t mode, bool durable,
			   int (*render)(FILE *out, void *arg), void *arg)
{
	char why[REFUSAL_SIZE];
	struct atomic_target t;
	int err = atomic_target_open(&t, path, why);

	if (err)
		return err;
	err = atomic_target_write(&t, mode, durable, render, arg);
	atomic_target_close(&t);
	return err;
}

int atomic_file_write(const char *path, int (*render)(FILE *out, void *arg), void *arg)
{
	return atomic_file_write_mode(path, 0644, false, render, arg);
}
