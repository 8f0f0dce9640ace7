/* SPDX-License-Identifier: GPL-2.0 */
/*
 * --files (issue 35): a file's path as a process would see it, from what
 * the kernel sent when it first saw the file (struct file_name_event: the
 * names up to its filesystem's root) and the mount table (the lines of
 * /proc/self/mountinfo: which directory of the filesystem is mounted
 * where).  Pure: the mount table comes in as text.
 */
#ifndef DISKIO_FILEPATH_H
#define DISKIO_FILEPATH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "abi.h"

/* Longest path kept: every name of a full event, and a mount point. */
#define FILEPATH_MAX	(FILE_NAMES_BYTES + 4096)

/*
 * The path inside its filesystem ("/dir/b") of the name event of size
 * bytes (as it came: perhaps cut short, perhaps hostile) into out.
 * false, out empty, when the event is not a whole walk to the root (too
 * deep, a name that is empty or holds '/', names past its bytes) or out
 * is too small.
 */
bool filepath_inside(const struct file_name_event *event, size_t size, char *out, size_t outsize);

/*
 * The path of inside (filepath_inside()'s) on the filesystem dev
 * ("MAJ:MIN" of the kernel's s_dev) as the mount table text (len bytes)
 * mounts it: the mount whose root holds it, the longest such root, the
 * first in the table of those; its mount point and the rest of the path.
 * Octal escapes of mountinfo (\040) undone.  false if no mount holds it.
 */
bool filepath_mounted(const char *mountinfo, size_t len, uint32_t major, uint32_t minor,
		      const char *inside, char *out, size_t outsize);

#endif /* DISKIO_FILEPATH_H */
