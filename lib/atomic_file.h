/* SPDX-License-Identifier: GPL-2.0 */
/* Files replaced whole (--prom, --folded): a reader sees the old file or
 * the new one, never a part. */
#ifndef DISKIO_ATOMIC_FILE_H
#define DISKIO_ATOMIC_FILE_H

#include <stdbool.h>
#include <stdio.h>
#include <sys/types.h>

/*
 * Write path atomically: render(out, arg) into a new file in path's
 * directory (".NAME.XXXXXX", made by mkostemp(): O_EXCL, so never a file
 * or symlink already there; node_exporter's textfile collector reads only
 * names ending in ".prom"), given mode whatever the umask, flushed, then
 * renamed over path.  On any failure the temporary file is removed and
 * path is left as it was.  render returns 0 or -errno.  0 or -errno.
 * durable: the file is fsynced before the rename and the directory after
 * it, so that the new contents survive a crash of the machine; a directory
 * that cannot be fsynced (but for filesystems that cannot sync one:
 * EINVAL) is an error, though path was replaced.  Not durable, a reader
 * still sees the old file or the new one, never a part, and the disk gets
 * no flush: for a file rewritten every interval.
 */
int atomic_file_write_mode(const char *path, mode_t mode, bool durable,
			   int (*render)(FILE *out, void *arg), void *arg);

/* atomic_file_write_mode() of a file rewritten again and again (--prom,
 * --folded): mode 0644 (node_exporter reads it as another user), not
 * durable. */
int atomic_file_write(const char *path, int (*render)(FILE *out, void *arg), void *arg);

/* Whether a file can be written at path as atomic_file_write() would:
 * 0, or -errno (-ENOENT: no such directory, -ENOTDIR, -EROFS, -EACCES,
 * -EISDIR: path is a directory).  Leaves nothing behind. */
int atomic_file_check(const char *path);

#endif /* DISKIO_ATOMIC_FILE_H */
