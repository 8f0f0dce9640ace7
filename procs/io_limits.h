/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A process's cgroup I/O limit on a disk (issue 45, --diagnose's
 * `throttled`): cgroup v2's io.max, cgroup v1's blkio.throttle.* files, in
 * its group and the groups above it.  The /proc root and the mounts file
 * are parameters, so that tests use trees of their own.
 */
#ifndef DISKIO_IO_LIMITS_H
#define DISKIO_IO_LIMITS_H

#include <stddef.h>
#include <stdint.h>

/*
 * The limits on disk major:minor of the deepest group of pid's (v2, then
 * v1) that sets any, as text: "riops=100 (io.max of /sys/fs/cgroup/a)",
 * "read_iops=100 (blkio.throttle of /sys/fs/cgroup/blkio/a)".  1 when one
 * is found, 0 when none is (or pid is gone), -errno on other errors.
 */
int io_limit_find(const char *proc_root, const char *mounts_file, uint32_t pid,
		  uint32_t major, uint32_t minor, char *text, size_t size);

#endif /* DISKIO_IO_LIMITS_H */
