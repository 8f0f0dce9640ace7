/* SPDX-License-Identifier: GPL-2.0 */
/* Files replaced whole (--prom, --folded): a reader sees the old file or
 * the new one, never a part. */
#ifndef DISKIO_ATOMIC_FILE_H
#define DISKIO_ATOMIC_FILE_H

#include <stdio.h>

/*
 * Write path atomically: render(out, arg) into a new file in path's
 * directory (".NAME.XXXXXX": node_exporter's textfile collector reads only
 * names ending in ".prom"), mode 0644 (node_exporter reads it as another
 * user), flushed and fsynced, then renamed over path and the
 * directory fsynced.  On any failure the temporary file is removed and path
 * is left as it was.  render returns 0 or -errno.  0 or -errno.
 */
int atomic_file_write(const char *path, int (*render)(FILE *out, void *arg), void *arg);

/* Whether a file can be written at path as atomic_file_write() would:
 * 0, or -errno (-ENOENT: no such directory, -ENOTDIR, -EROFS, -EACCES,
 * -EISDIR: path is a directory).  Leaves nothing behind. */
int atomic_file_check(const char *path);

#endif /* DISKIO_ATOMIC_FILE_H */
