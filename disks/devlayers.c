// SPDX-License-Identifier: GPL-2.0
/* How block devices are stacked, from sysfs (devlayers.h). */
#define _GNU_SOURCE
#include <dirent.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>
#include "devlayers.h"
#include "devname.h"
#include "path.h"

static bool exists(const char *path)
{
	return access(path, F_OK) == 0;
}

/* The name of the whole disk a sysfs block device path (or a link to one)
 * belongs to: itself, or a partition's disk.  false if the name would not
 * fit out. */
static bool disk_of_path(const char *block_path, char *out, size_t size)
{
	char dir[PATH_MAX];
	const char *slash, *base;
	bool partition;

	if (devname_disk_dir(block_path, dir, &partition))
		return false;
	slash = strrchr(dir, '/');
	base = slash ? slash + 1 : dir;
	return base[0] && snprintf(out, size, "%s", base) < (int)size;
}

/* The whole disk of a block device sysfs lists by name (in slaves/). */
static bool disk_of_name(const char *sysfs_root, const char *name, char *out, size_t size)
{
	char path[PATH_MAX];

	if (devlayers_is_disk(sysfs_root, name))
		return snprintf(out, size, "%s", name) < (int)size;
	return build_path(path, "%s/class/block/%s", sysfs_root, name) &&
	       disk_of_path(path, out, size);
}

/* Appends name to the comma-separated list, unless it is there already or
 * would not fit whole. */
static void list_add(char *list, size_t size, const char *name)
{
	size_t len = strlen(list), add = strlen(name);

	for (const char *p = list; *p;) {
		size_t n = strcspn(p, ",");

		if (n == add && !strncmp(p, name, n))
			return;
		p += n + (p[n] == ',');
	}
	if (len + (len != 0) + add + 1 > size)
		return;
	if (len)
		list[len++] = ',';
	memcpy(list + len, name, add + 1);
}

/* dm and md list the devices below in slaves/. */
static void slaves_below(const char *sysfs_root, const char *name, struct devlayers *out)
{
	char path[PATH_MAX], disk[DEVLAYERS_NAME_MAX];
	struct dirent *entry;
	DIR *slaves;

	if (!build_path(path, "%s/block/%s/slaves", sysfs_root, name))
		return;
	slaves = opendir(path);
	if (!slaves)
		return;
	while ((entry = readdir(slaves)))
		if (entry->d_name[0] != '.' &&
		    disk_of_name(sysfs_root, entry->d_name, disk, sizeof(disk)))
			list_add(out->below, sizeof(out->below), disk);
	closedir(slaves);
}

/* A loop device's backing file lies on the disk of its st_dev. */
static void loop_below(const char *sysfs_root, const char *name, struct devlayers *out)
{
	char path[PATH_MAX], file[PATH_MAX], disk[DEVLAYERS_NAME_MAX];
	struct stat st;

	if (!build_path(path, "%s/block/%s/loop/backing_file", sysfs_root, name) ||
	    !read_first_line(path, file, sizeof(file)) || stat(file, &st) || major(st.st_dev) == 0)
		return;
	if (!build_path(path, "%s/dev/block/%u:%u", sysfs_root, major(st.st_dev),
			minor(st.st_dev)) ||
	    !disk_of_path(path, disk, sizeof(disk)))
		return;
	list_add(out->below, sizeof(out->below), disk);
}

bool devlayers_is_disk(const char *sysfs_root, const char *name)
{
	char path[PATH_MAX];

	return name[0] && !strchr(name, '/') && strcmp(name, ".") && strcmp(name, "..") &&
	       build_path(path, "%s/block/%s", sysfs_root, name) && exists(path);
}

void devlayers_read(const char *sysfs_root, const char *name, struct devlayers *out)
{
	char path[PATH_MAX];

	out->below[0] = '\0';
	out->dm_name[0] = '\0';
	if (!devlayers_is_disk(sysfs_root, name))
		return;
	if (build_path(path, "%s/block/%s/dm/name", sysfs_root, name))
		read_first_line(path, out->dm_name, sizeof(out->dm_name));
	slaves_below(sysfs_root, name, out);
	loop_below(sysfs_root, name, out);
}
