/* SPDX-License-Identifier: GPL-2.0 */
/* Files replaced whole (--prom, --folded, --state): a reader sees the old
 * file or the new one, never a part. */
#ifndef DISKIO_ATOMIC_FILE_H
#define DISKIO_ATOMIC_FILE_H

#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <sys/types.h>
#include "root_only.h"

/*
 * Where a file is replaced: its directory, opened once by
 * open_dir_to_write()'s rule (root's or the user diskio runs as, not a
 * symlink, others may not rename in it but for a sticky /tmp), and the
 * file's name in it.  Every write goes to that directory, whatever is
 * renamed above it since: nobody else can steer a write elsewhere.
 */
struct atomic_target {
	int dirfd;
	char name[NAME_MAX + 1];
};

/*
 * path's directory opened as above; path may not name a directory.  0, or
 * -errno with why filled (-EPERM, -ELOOP: refused; -ENOENT: no such
 * directory; -EISDIR: path is a directory; -ENAMETOOLONG).
 */
int atomic_target_open(struct atomic_target *t, const char *path, char why[REFUSAL_SIZE]);
void atomic_target_close(struct atomic_target *t);

/*
 * t's file written atomically: render(out, arg) into a new file in its
 * directory (".NAME.XXXXXX", made O_EXCL, so never a file or symlink
 * already there; node_exporter's textfile collector reads only names
 * ending in ".prom"), given mode whatever the umask, flushed, then renamed
 * over the name.  On any failure the temporary file is removed and the
 * file is left as it was.  render returns 0 or -errno.  0 or -errno.
 * durable: the file is fsynced before the rename and the directory after
 * it, so that the new contents survive a crash of the machine; a directory
 * that cannot be fsynced (but for filesystems that cannot sync one:
 * EINVAL) is an error, though the file was replaced.  Not durable, a
 * reader still sees the old file or the new one, never a part, and the
 * disk gets no flush: for a file rewritten every interval.
 */
int atomic_target_write(const struct atomic_target *t, mode_t mode, bool durable,
			int (*render)(FILE *out, void *arg), void *arg);

/* render(out, arg) written to fd through a stream that keeps the errno of
 * the first failed write: 0, render's -errno, or the write's (-ENOSPC on
 * a full filesystem, though stdio itself says only "an error").  fd is
 * left open. */
int render_to_fd(int fd, int (*render)(FILE *out, void *arg), void *arg);

/* Whether a file can be written in t as atomic_target_write() would: 0,
 * or -errno (-EROFS, -EACCES, -ENOSPC).  Leaves nothing behind. */
int atomic_target_check(const struct atomic_target *t);

/* One atomic_target_write() to path, its directory opened for it:
 * atomic_target_open()'s errors (refused: -EPERM, -ELOOP) or the write's. */
int atomic_file_write_mode(const char *path, mode_t mode, bool durable,
			   int (*render)(FILE *out, void *arg), void *arg);

/* atomic_file_write_mode() of a file rewritten again and again (--folded
 * at exit; tests): mode 0644 (node_exporter reads it as another user), not
 * durable. */
int atomic_file_write(const char *path, int (*render)(FILE *out, void *arg), void *arg);

#endif /* DISKIO_ATOMIC_FILE_H */
