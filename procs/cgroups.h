/* SPDX-License-Identifier: GPL-2.0 */
/* cgroup v2 groups by id (the inode number of the group's directory) and by
 * path relative to the cgroup2 mount, e.g. /system.slice/nginx.service.
 * The mount point is a parameter so that tests can use a directory tree. */
#ifndef DISKIO_CGROUPS_H
#define DISKIO_CGROUPS_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Where cgroup2 is mounted, from a mounts file (/proc/mounts): 0, or
 * -ENOENT when no cgroup2 hierarchy is mounted. */
int cgroup2_mount(const char *mounts_file, char *mount, size_t size);
/* The mount point of the hierarchy of type ("cgroup2", or v1's "cgroup"
 * whose options name controller, e.g. "blkio"; NULL: any): 0 or -ENOENT.
 * Octal escapes (\040 for a space) are not undone: such mount points are
 * not supported. */
int cgroup_hierarchy_mount(const char *mounts_file, const char *type, const char *controller,
			   char *mount, size_t size);

/* A group's id and level (depth below the root: "/" is 0, "/a/b" is 2) from
 * its path relative to the mount.  0, -ENOENT (no such group), -EINVAL (not
 * an absolute path, or ".." in it), -ENOTDIR. */
int cgroup_resolve(const char *mount, const char *path, uint64_t *id, uint32_t *level);

/* cgroup_resolve() for each of the n --cgroup paths; mount "" means no
 * cgroup2.  0, or -1 after one "diskio: ..." line on err. */
int cgroup_resolve_args(const char *mount, const char *const *paths, uint32_t n, uint64_t *ids,
			uint32_t *levels, FILE *err);

struct cgroup_entry {
	uint64_t id;
	char *path;
};

/* Names of groups by id, read from the tree at most once per refresh. */
struct cgroup_names {
	char mount[PATH_MAX];		/* "" when no cgroup2 is mounted */
	struct cgroup_entry *entries;	/* sorted by id */
	size_t count, capacity;
	bool scanned;			/* since the last refresh */
};

void cgroup_names_init(struct cgroup_names *c, const char *mount);
void cgroup_names_free(struct cgroup_names *c);
/* The path of group id, NULL if it is not (or no longer) in the tree. */
const char *cgroup_names_lookup(struct cgroup_names *c, uint64_t id);
/* Lets the next unknown id rescan the tree (call once per interval). */
void cgroup_names_refresh(struct cgroup_names *c);

#endif /* DISKIO_CGROUPS_H */
