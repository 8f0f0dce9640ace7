// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests for devname.c against a fake sysfs tree laid out like the real
 * one: devices/.../block/DISK[/PART], dev/block/MAJ:MIN and class/block/NAME
 * symlinks into it, "dev", "uevent" and "partition" files.
 */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <errno.h>
#include <ftw.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "devname.h"

static char sysfs_root[PATH_MAX];

static void fmt_path(char path[PATH_MAX], const char *fmt, ...)
{
	va_list ap;
	int len;

	va_start(ap, fmt);
	len = vsnprintf(path, PATH_MAX, fmt, ap);
	va_end(ap);
	cr_assert(len > 0 && len < PATH_MAX, "path too long");
}

/* mkdir -p for a path relative to the fake sysfs root. */
static void make_dirs(const char *relative)
{
	char path[PATH_MAX];
	char *slash;

	fmt_path(path, "%s/%s", sysfs_root, relative);
	for (slash = path + strlen(sysfs_root) + 1; (slash = strchr(slash, '/')); slash++) {
		*slash = '\0';
		cr_assert(mkdir(path, 0755) == 0 || errno == EEXIST, "mkdir %s: %s",
			  path, strerror(errno));
		*slash = '/';
	}
	cr_assert(mkdir(path, 0755) == 0 || errno == EEXIST, "mkdir %s: %s", path,
		  strerror(errno));
}

static void write_bytes(const char *relative, const void *data, size_t len)
{
	char path[PATH_MAX];
	FILE *file;

	fmt_path(path, "%s/%s", sysfs_root, relative);
	file = fopen(path, "w");
	cr_assert(file, "fopen %s: %s", path, strerror(errno));
	cr_assert_eq(fwrite(data, 1, len, file), len);
	cr_assert_eq(fclose(file), 0);
}

static void write_text(const char *relative, const char *text)
{
	write_bytes(relative, text, strlen(text));
}

static void remove_relative(const char *relative)
{
	char path[PATH_MAX];

	fmt_path(path, "%s/%s", sysfs_root, relative);
	cr_assert(unlink(path) == 0, "unlink %s: %s", path, strerror(errno));
}

/* link_relative lives two levels below the root (dev/block, class/block). */
static void link_two_levels_up(const char *link_relative, const char *target_relative)
{
	char link_path[PATH_MAX], target[PATH_MAX];

	fmt_path(link_path, "%s/%s", sysfs_root, link_relative);
	fmt_path(target, "../../%s", target_relative);
	cr_assert(symlink(target, link_path) == 0, "symlink %s: %s", link_path,
		  strerror(errno));
}

/*
 * A block device directory with its "dev" file and both symlinks, as the
 * kernel creates them. uevent is written only when non-NULL.
 */
static void add_block_device(const char *device_dir, unsigned int major, unsigned int minor,
			     const char *uevent)
{
	char relative[PATH_MAX], text[64];
	const char *base = strrchr(device_dir, '/') + 1;

	make_dirs(device_dir);
	fmt_path(relative, "%s/dev", device_dir);
	snprintf(text, sizeof(text), "%u:%u\n", major, minor);
	write_text(relative, text);
	if (uevent) {
		fmt_path(relative, "%s/uevent", device_dir);
		write_text(relative, uevent);
	}
	fmt_path(relative, "dev/block/%u:%u", major, minor);
	link_two_levels_up(relative, device_dir);
	fmt_path(relative, "class/block/%s", base);
	link_two_levels_up(relative, device_dir);
}

static void add_partition(const char *partition_dir, unsigned int major, unsigned int minor,
			  unsigned int number, const char *uevent)
{
	char relative[PATH_MAX], text[16];

	add_block_device(partition_dir, major, minor, uevent);
	fmt_path(relative, "%s/partition", partition_dir);
	snprintf(text, sizeof(text), "%u\n", number);
	write_text(relative, text);
}

static void add_vda_with_partition(void)
{
	add_block_device("devices/pci0000:00/virtio1/block/vda", 254, 0,
			 "MAJOR=254\nMINOR=0\nDEVNAME=vda\nDEVTYPE=disk\n");
	add_partition("devices/pci0000:00/virtio1/block/vda/vda1", 254, 1, 1,
		      "MAJOR=254\nMINOR=1\nDEVNAME=vda1\nDEVTYPE=partition\n");
}

static int remove_entry(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	(void)st;
	(void)type;
	(void)ftw;
	return remove(path);
}

static void make_fake_sysfs(void)
{
	snprintf(sysfs_root, sizeof(sysfs_root), "%s/devname-test-XXXXXX",
		 getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	cr_assert(mkdtemp(sysfs_root), "mkdtemp: %s", strerror(errno));
	make_dirs("dev/block");
	make_dirs("class/block");
	make_dirs("devices/virtual/block");
}

static void remove_fake_sysfs(void)
{
	nftw(sysfs_root, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

TestSuite(kdev);
TestSuite(lookup, .init = make_fake_sysfs, .fini = remove_fake_sysfs);
TestSuite(resolve, .init = make_fake_sysfs, .fini = remove_fake_sysfs);

Test(kdev, encodes_like_the_kernel)
{
	cr_assert_eq(kdev_make(254, 0), 254U << 20);
	cr_assert_eq(kdev_make(8, 1), (8U << 20) | 1);
	cr_assert_eq(kdev_make(4095, 0xfffff), 0xffffffffU);
	cr_assert_eq(kdev_make(0, 0), 0);
}

Test(kdev, round_trips_extremes)
{
	const unsigned int majors[] = { 0, 1, 7, 254, 259, 4095 };
	const unsigned int minors[] = { 0, 1, 255, 256, 0x7ffff, 0xfffff };
	size_t i, j;

	for (i = 0; i < sizeof(majors) / sizeof(majors[0]); i++) {
		for (j = 0; j < sizeof(minors) / sizeof(minors[0]); j++) {
			uint32_t dev = kdev_make(majors[i], minors[j]);

			cr_assert_eq(kdev_major(dev), majors[i]);
			cr_assert_eq(kdev_minor(dev), minors[j]);
		}
	}
}

Test(kdev, minor_overflow_does_not_leak_into_major)
{
	uint32_t dev = kdev_make(8, 0x100001);

	cr_assert_eq(kdev_major(dev), 8);
	cr_assert_eq(kdev_minor(dev), 1);
}

Test(lookup, disk_name_comes_from_uevent_not_directory)
{
	struct devname_cache cache;

	add_block_device("devices/virtual/block/vda", 254, 0,
			 "MAJOR=254\nMINOR=0\nDEVNAME=mapper-name\nDEVTYPE=disk\n");
	devname_init(&cache, sysfs_root);
	cr_assert_str_eq(devname_lookup(&cache, kdev_make(254, 0)), "mapper-name");
	devname_free(&cache);
}

Test(lookup, partition_is_named_after_its_disk)
{
	struct devname_cache cache;

	add_block_device("devices/pci0000:00/nvme/nvme0/nvme0n1", 259, 0,
			 "MAJOR=259\nMINOR=0\nDEVNAME=nvme0n1\nDEVTYPE=disk\n");
	add_partition("devices/pci0000:00/nvme/nvme0/nvme0n1/nvme0n1p2", 259, 2, 2,
		      "MAJOR=259\nMINOR=2\nDEVNAME=nvme0n1p2\nDEVTYPE=partition\n");
	devname_init(&cache, sysfs_root);
	cr_assert_str_eq(devname_lookup(&cache, kdev_make(259, 2)), "nvme0n1");
	cr_assert_str_eq(devname_lookup(&cache, kdev_make(259, 0)), "nvme0n1");
	devname_free(&cache);
}

Test(lookup, partition_uses_disk_uevent_name)
{
	struct devname_cache cache;

	add_block_device("devices/virtual/block/dm-0", 252, 0, "DEVNAME=dm-disk\n");
	add_partition("devices/virtual/block/dm-0/dm-0p1", 252, 1, 1, "DEVNAME=dm-part\n");
	devname_init(&cache, sysfs_root);
	cr_assert_str_eq(devname_lookup(&cache, kdev_make(252, 1)), "dm-disk");
	devname_free(&cache);
}

Test(lookup, missing_device_is_major_minor_until_refresh)
{
	struct devname_cache cache;
	const char *before, *still, *after;

	devname_init(&cache, sysfs_root);
	before = devname_lookup(&cache, kdev_make(8, 16));
	cr_assert_str_eq(before, "8:16");

	add_block_device("devices/virtual/block/sdb", 8, 16, "DEVNAME=sdb\n");
	still = devname_lookup(&cache, kdev_make(8, 16));
	cr_assert_eq(still, before, "looked up again without a refresh");

	devname_refresh(&cache);
	after = devname_lookup(&cache, kdev_make(8, 16));
	cr_assert_str_eq(after, "sdb");
	cr_assert_str_eq(before, "8:16", "old pointer must keep its old text");
	cr_assert_eq(devname_lookup(&cache, kdev_make(8, 16)), after);
	devname_free(&cache);
}

Test(lookup, failed_lookup_is_retried_once_per_refresh)
{
	struct devname_cache cache;

	devname_init(&cache, sysfs_root);
	cr_assert_str_eq(devname_lookup(&cache, kdev_make(7, 9)), "7:9");
	devname_refresh(&cache);
	cr_assert_str_eq(devname_lookup(&cache, kdev_make(7, 9)), "7:9");

	add_block_device("devices/virtual/block/loop9", 7, 9, "DEVNAME=loop9\n");
	cr_assert_str_eq(devname_lookup(&cache, kdev_make(7, 9)), "7:9",
			 "the refresh's one retry was already spent");
	devname_refresh(&cache);
	cr_assert_str_eq(devname_lookup(&cache, kdev_make(7, 9)), "loop9");
	devname_free(&cache);
}

Test(lookup, resolved_name_is_not_retried_after_refresh)
{
	struct devname_cache cache;
	const char *name;

	add_block_device("devices/virtual/block/zram0", 253, 0, "DEVNAME=zram0\n");
	devname_init(&cache, sysfs_root);
	name = devname_lookup(&cache, kdev_make(253, 0));
	remove_relative("devices/virtual/block/zram0/uevent");
	devname_refresh(&cache);
	cr_assert_eq(devname_lookup(&cache, kdev_make(253, 0)), name);
	cr_assert_str_eq(name, "zram0");
	devname_free(&cache);
}

struct odd_uevent {
	const char *content;
	size_t len;
	const char *why;
};

#define ODD_UEVENT(text, why) { text, sizeof(text) - 1, why }

Test(lookup, odd_uevent_falls_back_to_basename)
{
	const struct odd_uevent cases[] = {
		ODD_UEVENT("MAJOR=254\nMINOR=3\nDEVTYPE=disk\n", "no DEVNAME"),
		ODD_UEVENT("", "empty file"),
		ODD_UEVENT("DEVNAME=\n", "empty DEVNAME"),
		ODD_UEVENT("DEVNAME=", "empty DEVNAME at end of file"),
		ODD_UEVENT("DEVNAME=mapper/root\n", "slash in DEVNAME"),
		ODD_UEVENT("DEVNAME=../../etc\n", "path in DEVNAME"),
		ODD_UEVENT("DEVNAME=..\n", "dot-dot DEVNAME"),
		ODD_UEVENT("DEVNAME=bad\tname\n", "control byte in DEVNAME"),
		ODD_UEVENT("DEVNAME=bad name\n", "space in DEVNAME"),
		ODD_UEVENT("DEVNAME=vd\0a\n", "NUL byte in DEVNAME"),
		ODD_UEVENT("DEVNAME=\xc3\xa9t\xc3\xa9\n", "non-ASCII DEVNAME"),
		ODD_UEVENT("DEVNAME=crlf\r\n", "carriage return"),
		ODD_UEVENT("XDEVNAME=other\n", "key must start the line"),
		ODD_UEVENT("\x7f\x45\x4c\x46\x02\x01\x01\0\0\0\xff\xfe\n\n\0", "binary garbage"),
		ODD_UEVENT("DEVNAME=aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\n",
			   "DEVNAME longer than DEVNAME_MAX"),
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct devname_cache cache;
		char device_dir[64], uevent[80];

		snprintf(device_dir, sizeof(device_dir), "devices/virtual/block/odd%zu", i);
		add_block_device(device_dir, 240, i, NULL);
		snprintf(uevent, sizeof(uevent), "%s/uevent", device_dir);
		write_bytes(uevent, cases[i].content, cases[i].len);

		devname_init(&cache, sysfs_root);
		cr_assert_str_eq(devname_lookup(&cache, kdev_make(240, i)), device_dir + 22,
				 "case %zu: %s", i, cases[i].why);
		devname_free(&cache);
	}
}

Test(lookup, missing_uevent_falls_back_to_basename)
{
	struct devname_cache cache;

	add_block_device("devices/virtual/block/loop3", 7, 3, NULL);
	devname_init(&cache, sysfs_root);
	cr_assert_str_eq(devname_lookup(&cache, kdev_make(7, 3)), "loop3");
	devname_free(&cache);
}

Test(lookup, uevent_without_trailing_newline_is_used)
{
	struct devname_cache cache;

	add_block_device("devices/virtual/block/md0", 9, 0, "MAJOR=9\nDEVNAME=md-root");
	devname_init(&cache, sysfs_root);
	cr_assert_str_eq(devname_lookup(&cache, kdev_make(9, 0)), "md-root");
	devname_free(&cache);
}

Test(lookup, uevent_is_read_only_up_to_a_page)
{
	struct devname_cache cache;
	char uevent[8192];
	size_t len;

	memset(uevent, 'x', 5000);
	uevent[4999] = '\n';
	len = 5000 + sprintf(uevent + 5000, "DEVNAME=beyond-the-page\n");
	add_block_device("devices/virtual/block/big0", 11, 0, NULL);
	write_bytes("devices/virtual/block/big0/uevent", uevent, len);
	devname_init(&cache, sysfs_root);
	cr_assert_str_eq(devname_lookup(&cache, kdev_make(11, 0)), "big0");
	devname_free(&cache);
}

Test(lookup, uevent_that_is_a_fifo_does_not_hang)
{
	struct devname_cache cache;
	char path[PATH_MAX];

	add_block_device("devices/virtual/block/fifo0", 12, 0, NULL);
	fmt_path(path, "%s/devices/virtual/block/fifo0/uevent", sysfs_root);
	cr_assert_eq(mkfifo(path, 0644), 0);
	devname_init(&cache, sysfs_root);
	cr_assert_str_eq(devname_lookup(&cache, kdev_make(12, 0)), "fifo0");
	devname_free(&cache);
}

Test(lookup, unusable_basename_falls_back_to_major_minor)
{
	struct devname_cache cache;

	make_dirs("devices/virtual/block/bad name");
	link_two_levels_up("dev/block/13:0", "devices/virtual/block/bad name");
	devname_init(&cache, sysfs_root);
	cr_assert_str_eq(devname_lookup(&cache, kdev_make(13, 0)), "13:0");
	devname_free(&cache);
}

Test(lookup, dangling_symlink_is_major_minor)
{
	struct devname_cache cache;

	link_two_levels_up("dev/block/14:0", "devices/virtual/block/gone");
	devname_init(&cache, sysfs_root);
	cr_assert_str_eq(devname_lookup(&cache, kdev_make(14, 0)), "14:0");
	devname_free(&cache);
}

Test(lookup, extreme_dev_numbers_format_in_decimal)
{
	struct devname_cache cache;

	devname_init(&cache, sysfs_root);
	cr_assert_str_eq(devname_lookup(&cache, kdev_make(4095, 0xfffff)), "4095:1048575");
	cr_assert_str_eq(devname_lookup(&cache, 0), "0:0");
	devname_free(&cache);
}

Test(lookup, cached_name_survives_sysfs_removal)
{
	struct devname_cache cache;
	const char *first, *second;

	add_block_device("devices/virtual/block/vdb", 254, 16, "DEVNAME=vdb\n");
	devname_init(&cache, sysfs_root);
	first = devname_lookup(&cache, kdev_make(254, 16));
	second = devname_lookup(&cache, kdev_make(254, 16));
	cr_assert_eq(first, second);

	remove_relative("dev/block/254:16");
	remove_relative("devices/virtual/block/vdb/uevent");
	devname_refresh(&cache);
	cr_assert_eq(devname_lookup(&cache, kdev_make(254, 16)), first);
	cr_assert_str_eq(first, "vdb");
	devname_free(&cache);
}

Test(lookup, many_devices_keep_early_pointers_valid)
{
	enum { DEVICES = 100 };
	struct devname_cache cache;
	const char *names[DEVICES];
	char expected[32], device_dir[64], uevent[64];
	int i;

	for (i = 0; i < DEVICES; i++) {
		snprintf(device_dir, sizeof(device_dir), "devices/virtual/block/loop%d", i);
		snprintf(uevent, sizeof(uevent), "DEVNAME=disk%d\n", i);
		add_block_device(device_dir, 7, i, uevent);
	}
	devname_init(&cache, sysfs_root);
	/* Descending order makes every insert land at the front of the index. */
	for (i = DEVICES - 1; i >= 0; i--)
		names[i] = devname_lookup(&cache, kdev_make(7, i));
	for (i = 0; i < DEVICES; i++) {
		snprintf(expected, sizeof(expected), "disk%d", i);
		cr_assert_str_eq(names[i], expected);
		cr_assert_eq(devname_lookup(&cache, kdev_make(7, i)), names[i],
			     "dev 7:%d moved", i);
	}
	devname_free(&cache);
}

Test(lookup, real_sysfs_root_default)
{
	struct devname_cache cache;

	devname_init(&cache, NULL);
	cr_assert_str_eq(cache.sysfs_root, "/sys");
	devname_free(&cache);
}

Test(lookup, over_long_root_falls_back_without_crashing)
{
	struct devname_cache cache;
	char root[400];

	memset(root, 'r', sizeof(root) - 1);
	root[sizeof(root) - 1] = '\0';
	devname_init(&cache, root);
	cr_assert_str_eq(devname_lookup(&cache, kdev_make(254, 0)), "254:0");
	devname_free(&cache);
}

Test(lookup, free_then_init_again)
{
	struct devname_cache cache;

	add_block_device("devices/virtual/block/vdc", 254, 32, "DEVNAME=vdc\n");
	devname_init(&cache, sysfs_root);
	devname_lookup(&cache, kdev_make(254, 32));
	devname_free(&cache);
	devname_free(&cache);
	devname_init(&cache, sysfs_root);
	cr_assert_str_eq(devname_lookup(&cache, kdev_make(254, 32)), "vdc");
	devname_free(&cache);
}

Test(resolve, disk_by_name)
{
	uint32_t dev = 0;
	int is_partition = -1;

	add_vda_with_partition();
	cr_assert_eq(devname_resolve(sysfs_root, "vda", &dev, &is_partition), 0);
	cr_assert_eq(dev, kdev_make(254, 0));
	cr_assert_eq(is_partition, 0);
}

Test(resolve, disk_by_major_minor)
{
	uint32_t dev = 0;
	int is_partition = -1;

	add_vda_with_partition();
	cr_assert_eq(devname_resolve(sysfs_root, "254:0", &dev, &is_partition), 0);
	cr_assert_eq(dev, kdev_make(254, 0));
	cr_assert_eq(is_partition, 0);
}

Test(resolve, partition_name_gives_disk)
{
	uint32_t dev = 0;
	int is_partition = 0;

	add_vda_with_partition();
	cr_assert_eq(devname_resolve(sysfs_root, "vda1", &dev, &is_partition), 0);
	cr_assert_eq(dev, kdev_make(254, 0));
	cr_assert_eq(is_partition, 1);
}

Test(resolve, partition_major_minor_gives_disk)
{
	uint32_t dev = 0;
	int is_partition = 0;

	add_vda_with_partition();
	cr_assert_eq(devname_resolve(sysfs_root, "254:1", &dev, &is_partition), 0);
	cr_assert_eq(dev, kdev_make(254, 0));
	cr_assert_eq(is_partition, 1);
}

Test(resolve, is_partition_may_be_null)
{
	uint32_t dev = 0;

	add_vda_with_partition();
	cr_assert_eq(devname_resolve(sysfs_root, "vda1", &dev, NULL), 0);
	cr_assert_eq(dev, kdev_make(254, 0));
}

/* nvme0n1's parent is the nvme0 character device, which has a "dev" file. */
Test(resolve, disk_inside_a_char_device_is_not_a_partition)
{
	uint32_t dev = 0;
	int is_partition = -1;

	make_dirs("devices/pci0000:00/nvme/nvme0");
	write_text("devices/pci0000:00/nvme/nvme0/dev", "241:0\n");
	add_block_device("devices/pci0000:00/nvme/nvme0/nvme0n1", 259, 0, "DEVNAME=nvme0n1\n");
	cr_assert_eq(devname_resolve(sysfs_root, "nvme0n1", &dev, &is_partition), 0);
	cr_assert_eq(dev, kdev_make(259, 0));
	cr_assert_eq(is_partition, 0);
	cr_assert_eq(devname_resolve(sysfs_root, "259:0", &dev, &is_partition), 0);
	cr_assert_eq(dev, kdev_make(259, 0));
	cr_assert_eq(is_partition, 0);
}

Test(resolve, malformed_arguments_are_einval)
{
	const char *const malformed[] = {
		"", "8:", ":1", "8:1x", "a/b", "/dev/vda", "..", ".", "../vda", "vd..a",
		"8::1", "8:1:2", ":", "-1:0", "8:-1", "+8:0", "8:+0", " 8:0", "8:0 ",
		"8 :0", "8:0\n", "0x8:0", "4096:0", "0:1048576", "99999999999999999999:0",
		"0:99999999999999999999", "vd a", "vda\n", "vd\ta", "\xc3\xa9",
		"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
	};
	size_t i;

	add_vda_with_partition();
	for (i = 0; i < sizeof(malformed) / sizeof(malformed[0]); i++) {
		uint32_t dev = 0xdeadbeef;
		int is_partition = -1;

		cr_assert_eq(devname_resolve(sysfs_root, malformed[i], &dev, &is_partition),
			     -EINVAL, "argument \"%s\"", malformed[i]);
		cr_assert_eq(dev, 0xdeadbeef, "argument \"%s\" wrote *dev", malformed[i]);
		cr_assert_eq(is_partition, 0);
	}
	cr_assert_eq(devname_resolve(sysfs_root, NULL, &(uint32_t){ 0 }, NULL), -EINVAL);
}

Test(resolve, unknown_name_is_enoent)
{
	uint32_t dev = 0xdeadbeef;

	add_vda_with_partition();
	cr_assert_eq(devname_resolve(sysfs_root, "sdz", &dev, NULL), -ENOENT);
	cr_assert_eq(dev, 0xdeadbeef);
}

Test(resolve, name_without_dev_file_is_enoent)
{
	uint32_t dev = 0xdeadbeef;

	make_dirs("devices/virtual/block/nodev0");
	link_two_levels_up("class/block/nodev0", "devices/virtual/block/nodev0");
	cr_assert_eq(devname_resolve(sysfs_root, "nodev0", &dev, NULL), -ENOENT);
	cr_assert_eq(dev, 0xdeadbeef);
}

Test(resolve, garbage_dev_file_is_enoent)
{
	uint32_t dev = 0xdeadbeef;

	add_block_device("devices/virtual/block/junk0", 15, 0, NULL);
	write_text("devices/virtual/block/junk0/dev", "15:0:garbage\n");
	cr_assert_eq(devname_resolve(sysfs_root, "junk0", &dev, NULL), -ENOENT);
	cr_assert_eq(dev, 0xdeadbeef);
}

Test(resolve, well_formed_unknown_major_minor_is_enoent)
{
	uint32_t dev = 0xdeadbeef;
	int is_partition = -1;

	add_vda_with_partition();
	/* -D 99:99 of no block device is an error, as an unknown name is. */
	cr_assert_eq(devname_resolve(sysfs_root, "8:48", &dev, &is_partition), -ENOENT);
	cr_assert_eq(devname_resolve(sysfs_root, "4095:1048575", &dev, NULL), -ENOENT);
	cr_assert_eq(devname_resolve(sysfs_root, "99:99", &dev, NULL), -ENOENT);
	cr_assert_eq(dev, 0xdeadbeef, "dev written for a device that does not exist");
	/* Leading zeros still name an existing disk: vda is 254:0. */
	cr_assert_eq(devname_resolve(sysfs_root, "0254:000", &dev, NULL), 0);
	cr_assert_eq(dev, kdev_make(254, 0));
}
