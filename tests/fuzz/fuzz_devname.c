// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for the sysfs parsers of devname.c: the uevent file
 * (DEVNAME=), the "dev" file (MAJ:MIN) and the -D argument, read through a
 * fake sysfs tree laid out like the kernel's:
 *
 *   ROOT/devices/virtual/block/block0/{uevent,dev}           the disk
 *   ROOT/devices/virtual/block/block0/block0p1/partition      its partition
 *   ROOT/dev/block/254:0, ROOT/class/block/vda    -> block0
 *   ROOT/dev/block/254:1, ROOT/class/block/vda1   -> block0p1
 *
 * The input is up to three parts separated by lines "%%": the disk's uevent
 * file, its dev file (an empty part: no such file) and the argument given to
 * devname_resolve() (one trailing newline dropped):
 *
 *   DEVNAME=vda
 *   %%
 *   254:0
 *   %%
 *   vda1
 *
 * Checked: devname_lookup() of the disk and of its partition gives the name
 * devname.h promises (the first DEVNAME= line when it is a usable name, else
 * the directory's name), the same pointer on a second lookup; and a name that
 * devname_resolve() accepts gives the dev file's MAJ:MIN.
 */
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "devname.h"
#include "fuzz_util.h"

#define DISK_DIR "devices/virtual/block/block0"
#define DISK_DEV kdev_make(254, 0)
#define PARTITION_DEV kdev_make(254, 1)
/* devname.c reads at most this much of a sysfs file. */
#define SYSFS_READ_MAX 4096

static char root[PATH_MAX], uevent_path[PATH_MAX], dev_path[PATH_MAX];
static FILE *devnull;

static void make_path(char *out, const char *relative)
{
	snprintf(out, PATH_MAX, "%s/%s", root, relative);
}

static void make_dir(const char *relative)
{
	char path[PATH_MAX];

	make_path(path, relative);
	FUZZ_CHECK(mkdir(path, 0755) == 0, "mkdir %s: %s", path, strerror(errno));
}

static void make_link(const char *target, const char *relative)
{
	char path[PATH_MAX];

	make_path(path, relative);
	FUZZ_CHECK(symlink(target, path) == 0, "symlink %s: %s", path, strerror(errno));
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	char path[PATH_MAX];

	(void)argc;
	(void)argv;
	snprintf(root, sizeof(root), "%s", fuzz_scratch_dir());
	make_dir("devices");
	make_dir("devices/virtual");
	make_dir("devices/virtual/block");
	make_dir(DISK_DIR);
	make_dir(DISK_DIR "/block0p1");
	make_path(path, DISK_DIR "/block0p1/partition");
	fuzz_write_file(path, (const uint8_t *)"1\n", 2);
	make_dir("dev");
	make_dir("dev/block");
	make_dir("class");
	make_dir("class/block");
	make_link("../../" DISK_DIR, "dev/block/254:0");
	make_link("../../" DISK_DIR "/block0p1", "dev/block/254:1");
	make_link("../../" DISK_DIR, "class/block/vda");
	make_link("../../" DISK_DIR "/block0p1", "class/block/vda1");
	make_path(uevent_path, DISK_DIR "/uevent");
	make_path(dev_path, DISK_DIR "/dev");
	devnull = fopen("/dev/null", "w");
	FUZZ_CHECK(devnull != NULL, "/dev/null: %s", strerror(errno));
	return 0;
}

/* Splits off the part before the next "%%" line. */
static const uint8_t *next_part(const uint8_t **data, size_t *size, size_t *part_len)
{
	const uint8_t *part = *data;
	size_t i;

	for (i = 0; i + 3 <= *size; i++) {
		if ((i == 0 || part[i - 1] == '\n') && !memcmp(part + i, "%%\n", 3)) {
			*part_len = i;
			*data += i + 3;
			*size -= i + 3;
			return part;
		}
	}
	*part_len = *size;
	*data += *size;
	*size = 0;
	return part;
}

static void write_or_remove(const char *path, const uint8_t *data, size_t len)
{
	if (len)
		fuzz_write_file(path, data, len);
	else
		unlink(path);
}

static bool is_display_name(const uint8_t *name, size_t len)
{
	if (len == 0 || len >= DEVNAME_MAX)
		return false;
	if ((len == 1 && name[0] == '.') || (len == 2 && !memcmp(name, "..", 2)))
		return false;
	for (size_t i = 0; i < len; i++) {
		if (name[i] <= ' ' || name[i] >= 0x7f || name[i] == '/')
			return false;
	}
	return true;
}

/* What devname.h says the disk is called, given its uevent file. */
static void expected_name(const uint8_t *uevent, size_t len, char out[DEVNAME_MAX])
{
	const uint8_t *line = uevent, *end;

	if (len > SYSFS_READ_MAX - 1)
		len = SYSFS_READ_MAX - 1;
	end = uevent + len;
	while (line < end) {
		const uint8_t *newline = memchr(line, '\n', end - line);
		const uint8_t *line_end = newline ? newline : end;

		if (line_end - line >= 8 && !memcmp(line, "DEVNAME=", 8)) {
			if (!is_display_name(line + 8, line_end - line - 8))
				break;
			memcpy(out, line + 8, line_end - line - 8);
			out[line_end - line - 8] = '\0';
			return;
		}
		line = line_end + 1;
	}
	strcpy(out, "block0");
}

/* The dev file as devname.h reads it: decimal MAJ:MIN, one optional newline. */
static bool expected_dev(const uint8_t *text, size_t len, uint32_t *dev)
{
	uint64_t parts[2] = { 0, 0 };
	const uint64_t limits[2] = { KDEV_MAJOR_MAX, MINORMASK };
	size_t digits = 0;
	int part = 0;

	if (len > SYSFS_READ_MAX - 1)
		return false;
	if (len && text[len - 1] == '\n')
		len--;
	for (size_t i = 0; i < len; i++) {
		if (text[i] == ':' && part == 0 && digits) {
			part = 1;
			digits = 0;
		} else if (text[i] >= '0' && text[i] <= '9') {
			parts[part] = parts[part] * 10 + (text[i] - '0');
			if (parts[part] > limits[part])
				return false;
			digits++;
		} else {
			return false;
		}
	}
	if (part != 1 || !digits)
		return false;
	*dev = kdev_make(parts[0], parts[1]);
	return true;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *uevent, *dev_text, *arg_bytes;
	size_t uevent_len, dev_len, arg_len;
	char want[DEVNAME_MAX], arg[DEVNAME_MAX * 2];
	struct devname_cache cache;
	const char *disk_name, *args[1];
	uint32_t dev = 0, file_dev = 0;
	int is_partition = 0, status;

	uevent = next_part(&data, &size, &uevent_len);
	dev_text = next_part(&data, &size, &dev_len);
	arg_bytes = next_part(&data, &size, &arg_len);
	if (arg_len && arg_bytes[arg_len - 1] == '\n')
		arg_len--;
	if (arg_len >= sizeof(arg))
		arg_len = sizeof(arg) - 1;
	memcpy(arg, arg_bytes, arg_len);
	arg[arg_len] = '\0';
	write_or_remove(uevent_path, uevent, uevent_len);
	write_or_remove(dev_path, dev_text, dev_len);

	devname_init(&cache, root);
	expected_name(uevent, uevent_len, want);
	disk_name = devname_lookup(&cache, DISK_DEV);
	FUZZ_CHECK(!strcmp(disk_name, want), "disk named '%s', expected '%s'", disk_name, want);
	FUZZ_CHECK(devname_lookup(&cache, DISK_DEV) == disk_name, "second lookup differs");
	FUZZ_CHECK(!strcmp(devname_lookup(&cache, PARTITION_DEV), want),
		   "partition not named after its disk '%s'", want);
	devname_refresh(&cache);
	FUZZ_CHECK(devname_lookup(&cache, DISK_DEV) == disk_name, "lookup after refresh differs");
	devname_free(&cache);

	status = devname_resolve(root, arg, &dev, &is_partition);
	FUZZ_CHECK(status == 0 || status == -EINVAL || status == -ENOENT,
		   "resolve '%s': %d", arg, status);
	if (status == 0 && (!strcmp(arg, "vda") || !strcmp(arg, "vda1"))) {
		FUZZ_CHECK(expected_dev(dev_text, dev_len, &file_dev),
			   "resolve '%s' accepted a bad dev file", arg);
		FUZZ_CHECK(dev == file_dev, "resolve '%s': %u, dev file says %u", arg, dev,
			   file_dev);
		FUZZ_CHECK(is_partition == !strcmp(arg, "vda1"), "'%s' partition flag %d", arg,
			   is_partition);
	} else if (status == 0) {
		/* Anything else resolves only as MAJ:MIN, to itself or its disk. */
		FUZZ_CHECK(strchr(arg, ':') != NULL, "resolve '%s' without ':' or a known name", arg);
		FUZZ_CHECK(kdev_major(dev) <= KDEV_MAJOR_MAX, "major of %u", dev);
	}
	args[0] = arg;
	devname_resolve_args(root, args, 1, &dev, devnull);
	return 0;
}
