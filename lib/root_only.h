/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Files and directories only root can change: what diskio, running as
 * root, may believe of a file it did not write (a state file, a debug
 * file, another process's executable), since anyone else who could write
 * it could have forged it.  By owner and mode: owned by root (or by the
 * one other user the caller trusts: the user diskio runs as, a test's own
 * user), writable by neither its group nor others.  A path also needs
 * every directory above it to be so, walked without following a symlink:
 * whoever can rename an entry of a directory can put another file there.
 */
#ifndef DISKIO_ROOT_ONLY_H
#define DISKIO_ROOT_ONLY_H

#include <stdbool.h>
#include <sys/stat.h>
#include <sys/types.h>

/* Who besides root and the trusted user could change an entry, as its
 * owner and mode say; the first that applies, in this order. */
enum who_else_can_change {
	NOBODY_ELSE = 0,
	ITS_OWNER,	/* another user owns it */
	OTHERS,		/* others may write it */
	ITS_GROUP,	/* its group may write it */
};

/*
 * Who besides root and owner (0: root alone) could change the entry st
 * describes.  A directory others or its group may write whose sticky bit
 * is set (/tmp) counts as NOBODY_ELSE: they can add entries to it, but not
 * rename or remove those of root and owner.  The type is the caller's to
 * check: a regular file, a directory, never a symlink.
 */
enum who_else_can_change who_else_can_change(const struct stat *st, uid_t owner);

/*
 * Walks path (relative to dirfd: no "." or ".." components, at most
 * NAME_MAX bytes each) from the directory dirfd, itself included, each
 * directory opened O_PATH without following a symlink and checked to be
 * one NOBODY_ELSE can change: all of path, or with keep_last all but its
 * last component, which *rest then points to.  An O_PATH descriptor of the
 * last directory walked (the caller's to close), or -1.
 */
int open_dirs_only_root_can_change(int dirfd, const char *path, uid_t owner, bool keep_last,
				   const char **rest);

/* Whether dir (absolute) and every directory above it are ones only root
 * and owner can change, reached without a symlink. */
bool directory_only_root_can_change(const char *dir, uid_t owner);

#endif /* DISKIO_ROOT_ONLY_H */
