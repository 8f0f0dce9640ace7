// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE
#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "array.h"
#include "cgroups.h"
#include "sorted.h"

int cgroup_hierarchy_mount(const char *mounts_file, const char *type, const char *controller,
			   char *mount, size_t size)
{
	char line[4096], source[256], point[PATH_MAX], fstype[64], options[1024];
	FILE *in = fopen(mounts_file, "re");
	int err = -ENOENT;

	if (!in)
		return -errno;
	/* "cgroup2 /sys/fs/cgroup cgroup2 rw,nosuid,... 0 0" */
	while (err && fgets(line, sizeof(line), in)) {
		char *opt, *save = NULL;

		if (sscanf(line, "%255s %4095s %63s %1023s", source, point, fstype, options) != 4 ||
		    strcmp(fstype, type) || strlen(point) >= size)
			continue;
		for (opt = strtok_r(options, ",", &save); opt && err;
		     opt = strtok_r(NULL, ",", &save))
			if (!controller || !strcmp(opt, controller))
				err = 0;
		if (!err)
			strcpy(mount, point);
	}
	fclose(in);
	return err;
}

int cgroup2_mount(const char *mounts_file, char *mount, size_t size)
{
	return cgroup_hierarchy_mount(mounts_file, "cgroup2", NULL, mount, size);
}

static bool has_parent_component(const char *path)
{
	for (const char *p = path; (p = strstr(p, "..")); p += 2)
		if ((p == path || p[-1] == '/') && (p[2] == '\0' || p[2] == '/'))
			return true;
	return false;
}

int cgroup_resolve(const char *mount, const char *path, uint64_t *id, uint32_t *level)
{
	char full[PATH_MAX];
	struct stat st;
	uint32_t depth = 0;

	if (path[0] != '/' || has_parent_component(path))
		return -EINVAL;
	if (snprintf(full, sizeof(full), "%s%s", mount, path) >= (int)sizeof(full))
		return -ENAMETOOLONG;
	if (stat(full, &st))
		return -errno;
	if (!S_ISDIR(st.st_mode))
		return -ENOTDIR;
	for (const char *p = path; *p; p++)
		if (p[0] == '/' && p[1] && p[1] != '/')
			depth++;
	*id = st.st_ino;
	*level = depth;
	return 0;
}

void cgroup_names_init(struct cgroup_names *c, const char *mount)
{
	memset(c, 0, sizeof(*c));
	if (mount && strlen(mount) < sizeof(c->mount))
		strcpy(c->mount, mount);
}

void cgroup_names_free(struct cgroup_names *c)
{
	for (size_t i = 0; i < c->count; i++)
		free(c->entries[i].path);
	free(c->entries);
	c->entries = NULL;
	c->count = c->capacity = 0;
}

static int compare_id(const void *id, const void *entry)
{
	uint64_t a = *(const uint64_t *)id, b = ((const struct cgroup_entry *)entry)->id;

	return (a > b) - (a < b);
}

static struct cgroup_entry *find(struct cgroup_names *c, uint64_t id, size_t *where)
{
	size_t index = sorted_find(&id, c->entries, c->count, sizeof(*c->entries), compare_id);

	if (index < c->count && c->entries[index].id == id)
		return &c->entries[index];
	*where = index;
	return NULL;
}

static void add(struct cgroup_names *c, uint64_t id, const char *path)
{
	struct cgroup_entry *entry;
	size_t where;
	char *copy;

	entry = find(c, id, &where);
	if (entry && !strcmp(entry->path, path))
		return;
	copy = strdup(path);
	if (!copy)
		return;
	if (entry) {		/* an id is never reused while the group lives */
		free(entry->path);
		entry->path = copy;
		return;
	}
	if (array_reserve((void **)&c->entries, &c->capacity, c->count + 1,
			  sizeof(*c->entries))) {
		free(copy);
		return;
	}
	memmove(&c->entries[where + 1], &c->entries[where],
		(c->count - where) * sizeof(*c->entries));
	c->entries[where].id = id;
	c->entries[where].path = copy;
	c->count++;
}

/* nftw() has no argument for its callback. */
static struct cgroup_names *scanning;

static int visit(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	size_t root_len = strlen(scanning->mount);

	(void)ftw;
	if (type == FTW_D)
		add(scanning, st->st_ino, path[root_len] ? path + root_len : "/");
	return 0;
}

const char *cgroup_names_lookup(struct cgroup_names *c, uint64_t id)
{
	struct cgroup_entry *entry;
	size_t where;

	if (!c->mount[0])
		return NULL;
	entry = find(c, id, &where);
	if (entry)
		return entry->path;
	if (c->scanned)
		return NULL;
	c->scanned = true;
	scanning = c;
	nftw(c->mount, visit, 16, FTW_PHYS | FTW_MOUNT);
	scanning = NULL;
	entry = find(c, id, &where);
	return entry ? entry->path : NULL;
}

void cgroup_names_refresh(struct cgroup_names *c)
{
	c->scanned = false;
}

int cgroup_resolve_args(const char *mount, const char *const *paths, uint32_t n, uint64_t *ids,
			uint32_t *levels, FILE *err)
{
	if (n && !mount[0]) {
		fprintf(err, "diskio: --cgroup needs a cgroup v2 hierarchy, and none is mounted\n");
		return -1;
	}
	for (uint32_t i = 0; i < n; i++) {
		int status = cgroup_resolve(mount, paths[i], &ids[i], &levels[i]);

		if (status) {
			fprintf(err, "diskio: no cgroup '%s' under %s: %s\n", paths[i], mount,
				strerror(-status));
			return -1;
		}
	}
	return 0;
}
