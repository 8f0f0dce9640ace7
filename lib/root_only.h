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

#include <errno.h>
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

/*
 * Where diskio writes as root (--record, --prom, --folded, --state): one
 * rule for all, so that whoever else can change a directory cannot turn a
 * write into the overwriting of a file of their choice.  On a refusal the
 * functions below return -errno and fill why (a phrase that follows the
 * path: "is a symlink", "belongs to uid 1000", ...).
 */
#define REFUSAL_SIZE	96

/*
 * The directory dir opened to write in (O_DIRECTORY; O_PATH is not enough
 * for fsync): its last component not a symlink, owned by root or owner,
 * group and others unable to write it (with sticky_ok, a sticky directory
 * such as /tmp passes: they may add entries, not rename or remove root's).
 * make: dir and its missing parents are made first, mode 0700.  The
 * descriptor, or -errno: -ELOOP a symlink, -ENOTDIR, -EPERM another's or
 * writable by others, or what open or mkdir said.
 */
int open_dir_to_write(const char *dir, uid_t owner, bool make, bool sticky_ok,
		      char why[REFUSAL_SIZE]);

/*
 * name in the directory dirfd opened to write (flags: O_RDWR or O_WRONLY,
 * with O_CREAT made mode), never through a symlink, and checked before a
 * byte is written or cut: a regular file of root or owner with one link,
 * that group and others cannot write; one made before with a wider mode is
 * narrowed to mode.  Never truncates: that is the caller's, once it is
 * checked.  The descriptor, or -errno: -ELOOP a symlink, -EINVAL not a
 * regular file, -EMLINK a hard link, -EPERM another's or writable by
 * others, or what openat said.
 */
int open_file_to_write(int dirfd, const char *name, int flags, mode_t mode, uid_t owner,
		       char why[REFUSAL_SIZE]);

/* Whether err of the two above is a refusal by the rule (bad usage: the
 * user chose the place), not a failure of the system. */
static inline bool refused_to_write(int err)
{
	return err == -ELOOP || err == -EPERM || err == -EMLINK || err == -EINVAL ||
	       err == -ENOTDIR;
}

#endif /* DISKIO_ROOT_ONLY_H */
