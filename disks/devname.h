/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Block device names from sysfs, for the kernel dev_t values the BPF side
 * reports. The sysfs root is a parameter so tests can use a fake tree.
 *
 * Not thread-safe: one cache per thread, or a lock around it.
 */
#ifndef DISKIO_DEVNAME_H
#define DISKIO_DEVNAME_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "abi.h"

/* Whole-disk kernel dev_t values (MKDEV of abi.h), taken apart. */
#define KDEV_MAJOR_MAX ((1U << (32 - MINORBITS)) - 1)

static inline uint32_t kdev_make(uint32_t major, uint32_t minor)
{
	return MKDEV(major, minor);
}

static inline uint32_t kdev_major(uint32_t dev)
{
	return dev >> MINORBITS;
}

static inline uint32_t kdev_minor(uint32_t dev)
{
	return dev & MINORMASK;
}

#define DEVNAME_MAX 64

struct devname_entry {
	uint32_t dev;
	char name[DEVNAME_MAX];
	/* The fields below are private to devname.c. */
	bool is_fallback;	/* name is "MAJ:MIN": sysfs gave no usable name */
	bool retry_armed;	/* devname_refresh() allows one more sysfs attempt */
	struct devname_entry *older;	/* list of every entry, for devname_free() */
};

struct devname_cache {
	char sysfs_root[256];
	/*
	 * Sorted by dev, one current entry per dev. Entries are allocated one
	 * by one and never moved or rewritten, so the names handed out stay
	 * valid (and unchanged) while this array grows.
	 */
	struct devname_entry **entries;
	size_t count, capacity;
	struct devname_entry *newest;	/* head of the list of all entries */
};

/*
 * sysfs_root is normally "/sys"; NULL means "/sys". A root that does not fit
 * in sysfs_root makes every lookup fall back to "MAJ:MIN".
 */
void devname_init(struct devname_cache *c, const char *sysfs_root);
/* Frees every name handed out; the cache may be initialised again after. */
void devname_free(struct devname_cache *c);

/*
 * Name of a whole-disk kernel dev_t (a partition's dev_t names its disk):
 * DEVNAME= from the device's sysfs "uevent", else the sysfs directory's
 * basename, else "MAJ:MIN". Never NULL. Names are printable ASCII without
 * spaces or '/'. Looked up once per dev; a "MAJ:MIN" result is retried once
 * after each devname_refresh(). The pointer and the string it points to stay
 * valid and unchanged until devname_free(): a retry that finds a real name
 * returns a new pointer instead of rewriting the old one.
 */
const char *devname_lookup(struct devname_cache *c, uint32_t dev);

/* block_dir (a sysfs block device directory or a link to one) resolved,
 * and whether it is a partition; disk_dir is then its disk's directory.
 * 0 or -errno. */
int devname_disk_dir(const char *block_dir, char disk_dir[PATH_MAX], bool *is_partition);

/* Lets each "MAJ:MIN" name be retried once more (call once per interval). */
void devname_refresh(struct devname_cache *c);

/*
 * Resolves a user's device argument, "MAJ:MIN" (decimal) or a name as listed
 * in SYSFS/class/block ("vda", "nvme0n1p2"), to a whole-disk kernel dev_t.
 * A partition resolves to its disk and sets *is_partition (may be NULL).
 * A well-formed MAJ:MIN that sysfs does not list is no device (-ENOENT).
 * Returns 0, -EINVAL for a malformed argument (including paths such as
 * "/dev/vda"), -ENOENT for no such device or a partition whose disk cannot
 * be found, -ENAMETOOLONG if sysfs_root makes the path too long.
 */
int devname_resolve(const char *sysfs_root, const char *arg, uint32_t *dev,
		    int *is_partition);

/*
 * devname_resolve() for each of the n arguments of -D ("/dev/vda" is taken
 * as "vda"), into devs[].  0, or -1 after one "diskio: ..." line on err.
 * A partition gets a note on err and resolves to its whole disk.
 */
int devname_resolve_args(const char *sysfs_root, const char *const *args, uint32_t n,
			 uint32_t *devs, FILE *err);

#endif /* DISKIO_DEVNAME_H */
