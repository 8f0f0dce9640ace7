/* SPDX-License-Identifier: GPL-2.0 */
/*
 * How the symbolizer opens a file it did not write, as root: another
 * process's mapped file only through /proc/PID/map_files/ (what the
 * process has mapped, wherever it is and whatever replaced its path), any
 * other file only if root alone can change it and every directory above
 * it (lib/root_only.h), walked without following a symlink.  Each is
 * first opened O_PATH, which opens no device or FIFO, checked to be the
 * regular file expected (device and inode), and only then reopened for
 * reading through the descriptor, so nothing swapped in at a path since
 * it was checked is ever read (doc/stacks.md: what root may trust).
 */
#ifndef DISKIO_TRUSTED_FILES_H
#define DISKIO_TRUSTED_FILES_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>

/*
 * The file the mapping [start, end) of the process PID_DIR ("/proc/123")
 * maps, opened O_PATH through PID_DIR/map_files/ (a descriptor that
 * outlives the process), never by the path in its maps line: its owner
 * may have swapped it.  -1 when it cannot be.
 */
int open_mapped_file(const char *pid_dir, uint64_t start, uint64_t end);

/*
 * Whether the file st describes is the regular file a maps line names by
 * inode and device.  Anonymous devices (major 0: btrfs subvolumes,
 * overlayfs) can show another number in maps than stat gives: the inode
 * decides there.
 */
bool is_mapped_file(const struct stat *st, uint64_t inode, uint32_t dev_major,
		    uint32_t dev_minor);

/* Opens for reading, non-blocking, the file an O_PATH descriptor holds if
 * it is still the regular file expected (device and inode); -1 if not. */
int reopen_for_reading(int path_fd, const struct stat *expected);

/*
 * Opens path (absolute) under root_dir ("/", or a process's root) if it
 * is a regular file that only root and trusted_uid can change, in
 * directories only they can change, and the file expected (when expected
 * is not NULL: same device and inode); its stat in *st.  -1 otherwise.
 */
int open_trusted_file(const char *root_dir, const char *path, uid_t trusted_uid,
		      const struct stat *expected, struct stat *st);

/* Whether path, in the mount namespace of the process PID_DIR (through
 * PID_DIR/root), is the file st describes and one only root and
 * trusted_uid can change, in directories only they can change. */
bool trusted_in_process(const char *pid_dir, const char *path, const struct stat *st,
			uid_t trusted_uid);

#endif /* DISKIO_TRUSTED_FILES_H */
