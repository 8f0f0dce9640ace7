// SPDX-License-Identifier: GPL-2.0
/*
 * Block device naming from sysfs, after memfaultd's disk_io.rs:
 * SYSFS/dev/block/MAJ:MIN links to the device directory, a partition's
 * directory sits inside its disk's and holds a "partition" file, and the
 * name udev gives the device node is DEVNAME= in "uevent".
 */
/* realpath() and strnlen() also under -std=c11. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "array.h"
#include "devname.h"
#include "path.h"
#include "sorted.h"

/* sysfs attributes are at most a page; anything longer is not what we want. */
#define SYSFS_READ_MAX 4096

static const char devname_out_of_memory[] = "?";


/*
 * Reads at most SYSFS_READ_MAX - 1 bytes and NUL-terminates them; *len is the
 * byte count, which can be larger than strlen() if the file holds NUL bytes.
 * Only regular files are read: opening a FIFO planted in a fake tree must not
 * hang the tool.
 */
static int read_small_file(const char *path, char buf[SYSFS_READ_MAX], size_t *len)
{
	struct stat st;
	size_t used = 0;
	int fd, err = 0;

	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0) {
		err = -errno;
		goto out;
	}
	if (!S_ISREG(st.st_mode)) {
		err = -EINVAL;
		goto out;
	}
	while (used < SYSFS_READ_MAX - 1) {
		ssize_t got = read(fd, buf + used, SYSFS_READ_MAX - 1 - used);

		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			err = -errno;
			goto out;
		}
		if (got == 0)
			break;
		used += got;
	}
out:
	close(fd);
	buf[used] = '\0';
	*len = used;
	return err;
}

static bool path_exists(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0;
}

/*
 * A name we hand to renderers: printable ASCII without space or '/', so it
 * is one awk field, valid UTF-8 in JSON, and never mistaken for a path.
 */
static bool is_display_name(const char *name, size_t len)
{
	size_t i;

	if (len == 0 || len >= DEVNAME_MAX)
		return false;
	if ((len == 1 && name[0] == '.') ||
	    (len == 2 && name[0] == '.' && name[1] == '.'))
		return false;
	for (i = 0; i < len; i++) {
		unsigned char ch = name[i];

		if (ch <= ' ' || ch >= 0x7f || ch == '/')
			return false;
	}
	return true;
}

static void copy_name(char out[DEVNAME_MAX], const char *name, size_t len)
{
	memcpy(out, name, len);
	out[len] = '\0';
}

/* Finds the first "DEVNAME=" line; the buffer may hold NUL bytes and lack a final newline. */
static bool devname_from_uevent(const char *dir, char out[DEVNAME_MAX])
{
	static const char key[] = "DEVNAME=";
	const size_t key_len = sizeof(key) - 1;
	char path[PATH_MAX], buf[SYSFS_READ_MAX];
	const char *line, *end;
	size_t len;

	if (!build_path(path, "%s/uevent", dir))
		return false;
	if (read_small_file(path, buf, &len))
		return false;
	end = buf + len;
	for (line = buf; line < end;) {
		const char *newline = memchr(line, '\n', end - line);
		const char *line_end = newline ? newline : end;

		if ((size_t)(line_end - line) >= key_len &&
		    memcmp(line, key, key_len) == 0) {
			const char *value = line + key_len;
			size_t value_len = line_end - value;

			if (!is_display_name(value, value_len))
				return false;
			copy_name(out, value, value_len);
			return true;
		}
		line = line_end + 1;
	}
	return false;
}

/* The sysfs name of a whole disk, or false if sysfs has no usable answer. */
static bool name_from_sysfs(const char *sysfs_root, uint32_t dev, char out[DEVNAME_MAX])
{
	char path[PATH_MAX], device_dir[PATH_MAX];
	const char *base;
	char *last_slash;

	if (!sysfs_root[0])
		return false;
	if (!build_path(path, "%s/dev/block/%u:%u", sysfs_root,
			kdev_major(dev), kdev_minor(dev)))
		return false;
	if (!realpath(path, device_dir))
		return false;

	if (!build_path(path, "%s/partition", device_dir))
		return false;
	if (path_exists(path)) {
		last_slash = strrchr(device_dir, '/');
		if (!last_slash || last_slash == device_dir)
			return false;
		*last_slash = '\0';
	}

	if (devname_from_uevent(device_dir, out))
		return true;

	last_slash = strrchr(device_dir, '/');
	base = last_slash ? last_slash + 1 : device_dir;
	if (!is_display_name(base, strlen(base)))
		return false;
	copy_name(out, base, strlen(base));
	return true;
}

void devname_init(struct devname_cache *c, const char *sysfs_root)
{
	int len;

	memset(c, 0, sizeof(*c));
	if (!sysfs_root)
		sysfs_root = "/sys";
	len = snprintf(c->sysfs_root, sizeof(c->sysfs_root), "%s", sysfs_root);
	/* A truncated root would name some other directory's devices. */
	if (len < 0 || (size_t)len >= sizeof(c->sysfs_root))
		c->sysfs_root[0] = '\0';
}

void devname_free(struct devname_cache *c)
{
	struct devname_entry *entry = c->newest;

	while (entry) {
		struct devname_entry *older = entry->older;

		free(entry);
		entry = older;
	}
	free(c->entries);
	c->entries = NULL;
	c->newest = NULL;
	c->count = 0;
	c->capacity = 0;
}

static int compare_dev_to_entry(const void *key, const void *element)
{
	uint32_t dev = *(const uint32_t *)key;
	const struct devname_entry *entry = *(struct devname_entry *const *)element;

	return dev < entry->dev ? -1 : dev > entry->dev;
}

/* *pos is where dev is, or where it belongs. */
static struct devname_entry *find_entry(const struct devname_cache *c, uint32_t dev,
					size_t *pos)
{
	*pos = sorted_find(&dev, c->entries, c->count, sizeof(*c->entries), compare_dev_to_entry);
	if (*pos < c->count && c->entries[*pos]->dev == dev)
		return c->entries[*pos];
	return NULL;
}

/* The sysfs name, or "MAJ:MIN" (returns false then). */
static bool name_of(const struct devname_cache *c, uint32_t dev, char out[DEVNAME_MAX])
{
	if (name_from_sysfs(c->sysfs_root, dev, out))
		return true;
	snprintf(out, DEVNAME_MAX, "%u:%u", kdev_major(dev), kdev_minor(dev));
	return false;
}

static struct devname_entry *new_entry(struct devname_cache *c, uint32_t dev,
				       const char name[DEVNAME_MAX], bool is_fallback)
{
	struct devname_entry *entry = calloc(1, sizeof(*entry));

	if (!entry)
		return NULL;
	entry->dev = dev;
	memcpy(entry->name, name, strlen(name) + 1);
	entry->is_fallback = is_fallback;
	entry->older = c->newest;
	c->newest = entry;
	return entry;
}

static bool insert_entry(struct devname_cache *c, size_t pos, struct devname_entry *entry)
{
	if (array_reserve((void **)&c->entries, &c->capacity, c->count + 1, sizeof(*c->entries)))
		return false;
	memmove(&c->entries[pos + 1], &c->entries[pos],
		(c->count - pos) * sizeof(*c->entries));
	c->entries[pos] = entry;
	c->count++;
	return true;
}

const char *devname_lookup(struct devname_cache *c, uint32_t dev)
{
	struct devname_entry *entry, *resolved;
	char name[DEVNAME_MAX];
	bool found_in_sysfs;
	size_t pos;

	entry = find_entry(c, dev, &pos);
	if (entry) {
		if (!entry->is_fallback || !entry->retry_armed)
			return entry->name;
		entry->retry_armed = false;
		if (!name_of(c, dev, name))
			return entry->name;
		/*
		 * A new entry rather than rewriting the old name in place:
		 * callers may keep the old pointer as a key.
		 */
		resolved = new_entry(c, dev, name, false);
		if (!resolved)
			return entry->name;
		c->entries[pos] = resolved;
		return resolved->name;
	}

	found_in_sysfs = name_of(c, dev, name);
	entry = new_entry(c, dev, name, !found_in_sysfs);
	if (!entry)
		return devname_out_of_memory;
	/* Out of index space, the name is still valid; it is only looked up again. */
	insert_entry(c, pos, entry);
	return entry->name;
}

void devname_refresh(struct devname_cache *c)
{
	size_t i;

	for (i = 0; i < c->count; i++) {
		if (c->entries[i]->is_fallback)
			c->entries[i]->retry_armed = true;
	}
}

/*
 * Strict decimal "MAJ:MIN" with optional trailing newline (as sysfs "dev"
 * files end): no signs, spaces or empty parts, each part within the range
 * the kernel dev_t can hold.
 */
static int parse_major_minor(const char *text, size_t len, uint32_t *major, uint32_t *minor)
{
	uint32_t parts[2] = { 0, 0 };
	const uint32_t limits[2] = { KDEV_MAJOR_MAX, MINORMASK };
	size_t digits = 0, i;
	int part = 0;

	if (len > 0 && text[len - 1] == '\n')
		len--;
	for (i = 0; i < len; i++) {
		char ch = text[i];

		if (ch == ':' && part == 0 && digits > 0) {
			part = 1;
			digits = 0;
			continue;
		}
		if (ch < '0' || ch > '9')
			return -EINVAL;
		parts[part] = parts[part] * 10 + (ch - '0');
		if (parts[part] > limits[part])
			return -EINVAL;
		digits++;
	}
	if (part != 1 || digits == 0)
		return -EINVAL;
	*major = parts[0];
	*minor = parts[1];
	return 0;
}

static int read_dev_file(const char *dir, uint32_t *dev)
{
	char path[PATH_MAX], buf[SYSFS_READ_MAX];
	uint32_t major, minor;
	size_t len;
	int err;

	if (!build_path(path, "%s/dev", dir))
		return -ENAMETOOLONG;
	err = read_small_file(path, buf, &len);
	if (err)
		return err;
	if (parse_major_minor(buf, len, &major, &minor))
		return -EINVAL;
	*dev = kdev_make(major, minor);
	return 0;
}

/*
 * Whether a sysfs block device directory is a partition, and its disk's
 * directory. Only the "partition" file is trusted: a disk's parent directory
 * can have a "dev" file of its own (nvme0n1 sits in the nvme0 character
 * device's directory), so "parent has dev" alone would call nvme0n1 a
 * partition.
 */
int devname_disk_dir(const char *block_dir, char disk_dir[PATH_MAX], bool *is_partition)
{
	char path[PATH_MAX];
	char *last_slash;

	if (!realpath(block_dir, disk_dir))
		return -errno;
	if (!build_path(path, "%s/partition", disk_dir))
		return -ENAMETOOLONG;
	*is_partition = path_exists(path);
	if (*is_partition) {
		last_slash = strrchr(disk_dir, '/');
		if (!last_slash || last_slash == disk_dir)
			return -ENOENT;
		*last_slash = '\0';
	}
	return 0;
}

/* A name as it appears in SYSFS/class/block, usable as one path component. */
static bool is_block_name_argument(const char *name)
{
	size_t len = strlen(name);

	if (!is_display_name(name, len) || name[0] == '.')
		return false;
	return strstr(name, "..") == NULL;
}

int devname_resolve(const char *sysfs_root, const char *arg, uint32_t *dev,
		    int *is_partition)
{
	char path[PATH_MAX], disk_dir[PATH_MAX];
	uint32_t major, minor, disk_dev;
	bool partition = false;
	size_t len;
	int err;

	if (is_partition)
		*is_partition = 0;
	if (!arg || !dev)
		return -EINVAL;
	if (!sysfs_root)
		sysfs_root = "/sys";
	len = strnlen(arg, DEVNAME_MAX);
	if (len == 0 || len >= DEVNAME_MAX)
		return -EINVAL;

	if (strchr(arg, ':')) {
		if (parse_major_minor(arg, len, &major, &minor) || arg[len - 1] == '\n')
			return -EINVAL;
		if (!build_path(path, "%s/dev/block/%u:%u", sysfs_root, major, minor))
			return -ENAMETOOLONG;
		/* A MAJ:MIN that sysfs does not list is no block device (the
		 * README promises exit 2 for it, as for an unknown name). */
		err = devname_disk_dir(path, disk_dir, &partition);
		if (err)
			return err == -ENAMETOOLONG ? err : -ENOENT;
		if (!partition) {
			*dev = kdev_make(major, minor);
			return 0;
		}
	} else {
		if (!is_block_name_argument(arg))
			return -EINVAL;
		if (!build_path(path, "%s/class/block/%s", sysfs_root, arg))
			return -ENAMETOOLONG;
		err = devname_disk_dir(path, disk_dir, &partition);
		if (err)
			return err == -ENAMETOOLONG ? err : -ENOENT;
	}

	err = read_dev_file(disk_dir, &disk_dev);
	if (err)
		return err == -ENAMETOOLONG ? err : -ENOENT;
	*dev = disk_dev;
	if (is_partition)
		*is_partition = partition;
	return 0;
}

int devname_resolve_args(const char *sysfs_root, const char *const *args, uint32_t n,
			 uint32_t *devs, FILE *err)
{
	for (uint32_t i = 0; i < n; i++) {
		const char *name = args[i];
		int is_partition = 0, status;

		if (!strncmp(name, "/dev/", 5))
			name += 5;	/* people type the device node's path */
		status = devname_resolve(sysfs_root, name, &devs[i], &is_partition);
		if (status == -ENOENT) {
			fprintf(err, "diskio: no such block device '%s' (see lsblk; give a name or "
				"MAJ:MIN)\n", args[i]);
			return -1;
		}
		if (status) {
			fprintf(err, "diskio: invalid device '%s': give a disk name (vda) or MAJ:MIN "
				"(254:0)\n", args[i]);
			return -1;
		}
		if (is_partition)
			fprintf(err, "diskio: %s is a partition: showing its whole disk %u:%u\n",
				args[i], kdev_major(devs[i]), kdev_minor(devs[i]));
	}
	return 0;
}
