// SPDX-License-Identifier: GPL-2.0
/* A process's cgroup I/O limit on a disk (io_limits.h). */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include "cgroups.h"
#include "io_limits.h"

/* The group of pid in the hierarchy whose /proc/PID/cgroup line has these
 * controllers (v2: "" on hierarchy 0; v1: one of a comma list). */
static int group_of(const char *proc_root, uint32_t pid, const char *controller, char *path,
		    size_t size)
{
	char name[PATH_MAX], line[PATH_MAX + 64];
	FILE *in;
	int err = -ENOENT;

	snprintf(name, sizeof(name), "%s/%" PRIu32 "/cgroup", proc_root, pid);
	if (!(in = fopen(name, "re")))
		return -errno;
	while (err && fgets(line, sizeof(line), in)) {
		char *first = strchr(line, ':'), *second = first ? strchr(first + 1, ':') : NULL;
		bool match = false;

		if (!second)
			continue;
		*second = '\0';
		line[strcspn(line, ":")] = '\0';
		if (!controller) {
			match = !strcmp(line, "0") && !first[1];
		} else {
			char *save = NULL;

			for (char *c = strtok_r(first + 1, ",", &save); c && !match;
			     c = strtok_r(NULL, ",", &save))
				match = !strcmp(c, controller);
		}
		second[1 + strcspn(second + 1, "\n")] = '\0';
		if (match && strlen(second + 1) < size) {
			strcpy(path, second + 1);
			err = 0;
		}
	}
	fclose(in);
	return err;
}

/* io.max's line of the disk in dir: its limits other than "max", appended
 * to text.  true when there are any. */
static bool v2_limits(const char *dir, const char *disk, char *text, size_t size)
{
	char name[PATH_MAX * 2 + 16], line[512];
	FILE *in;
	bool found = false;

	snprintf(name, sizeof(name), "%s/io.max", dir);
	if (!(in = fopen(name, "re")))
		return false;
	while (fgets(line, sizeof(line), in)) {
		char *save = NULL, *item = strtok_r(line, " \n", &save);

		if (!item || strcmp(item, disk))
			continue;
		while ((item = strtok_r(NULL, " \n", &save))) {
			const char *eq = strchr(item, '=');
			size_t used = strlen(text);

			if (!eq || !strcmp(eq + 1, "max"))
				continue;
			snprintf(text + used, size - used, "%s%s", found ? " " : "", item);
			found = true;
		}
	}
	fclose(in);
	return found;
}

/* blkio.throttle.*_device's lines of the disk in dir, appended to text. */
static bool v1_limits(const char *dir, const char *disk, char *text, size_t size)
{
	static const char *const files[] = { "read_bps", "write_bps", "read_iops", "write_iops" };
	bool found = false;

	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		char name[PATH_MAX * 2 + 64], line[256], dev[64];
		unsigned long long value;
		FILE *in;

		snprintf(name, sizeof(name), "%s/blkio.throttle.%s_device", dir, files[i]);
		if (!(in = fopen(name, "re")))
			continue;
		while (fgets(line, sizeof(line), in)) {
			size_t used = strlen(text);

			if (sscanf(line, "%63s %llu", dev, &value) != 2 || strcmp(dev, disk))
				continue;
			snprintf(text + used, size - used, "%s%s=%llu", found ? " " : "", files[i],
				 value);
			found = true;
		}
		fclose(in);
	}
	return found;
}

/* The deepest group from path up to the root of mount whose files set a
 * limit on disk: 1 with text, else 0. */
static int walk_up(const char *mount, char *path, const char *disk, bool v2, char *text,
		   size_t size)
{
	for (;;) {
		char dir[PATH_MAX * 2];
		char *slash;

		snprintf(dir, sizeof(dir), "%s%s", mount, strcmp(path, "/") ? path : "");
		text[0] = '\0';
		if (v2 ? v2_limits(dir, disk, text, size) : v1_limits(dir, disk, text, size)) {
			size_t used = strlen(text);

			snprintf(text + used, size - used, " (%s of %s)",
				 v2 ? "io.max" : "blkio.throttle", dir);
			return 1;
		}
		if (!strcmp(path, "/") || !(slash = strrchr(path, '/')))
			return 0;
		if (slash == path)
			slash[1] = '\0';
		else
			*slash = '\0';
	}
}

int io_limit_find(const char *proc_root, const char *mounts_file, uint32_t pid,
		  uint32_t major, uint32_t minor, char *text, size_t size)
{
	char mount[PATH_MAX], path[PATH_MAX], disk[32];

	if (!size)
		return -EINVAL;
	text[0] = '\0';
	snprintf(disk, sizeof(disk), "%" PRIu32 ":%" PRIu32, major, minor);
	if (!cgroup_hierarchy_mount(mounts_file, "cgroup2", NULL, mount, sizeof(mount)) &&
	    !group_of(proc_root, pid, NULL, path, sizeof(path)) &&
	    walk_up(mount, path, disk, true, text, size))
		return 1;
	if (!cgroup_hierarchy_mount(mounts_file, "cgroup", "blkio", mount, sizeof(mount)) &&
	    !group_of(proc_root, pid, "blkio", path, sizeof(path)) &&
	    walk_up(mount, path, disk, false, text, size))
		return 1;
	text[0] = '\0';
	return 0;
}
