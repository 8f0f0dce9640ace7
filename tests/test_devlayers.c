// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the layering parser (devlayers.c) on a fake sysfs tree built
 * the way the kernel lays it out: a dm-linear device over a partition, an md
 * RAID1 over two whole disks, a loop device over a file (whose st_dev the
 * tree maps to a disk), a loop over a file on tmpfs, and odd contents.
 */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "devlayers.h"

static char root[64];

static void path_of(char *out, const char *rel)
{
	snprintf(out, PATH_MAX, "%s/%s", root, rel);
}

static void mkdirs(const char *rel)
{
	char path[PATH_MAX], *slash;

	path_of(path, rel);
	for (slash = path + strlen(root) + 1; (slash = strchr(slash, '/')); slash++) {
		*slash = '\0';
		mkdir(path, 0755);
		*slash = '/';
	}
	mkdir(path, 0755);
}

static void put(const char *rel, const char *text)
{
	char path[PATH_MAX];
	FILE *f;

	path_of(path, rel);
	f = fopen(path, "w");
	cr_assert_not_null(f, "%s", path);
	fputs(text, f);
	cr_assert_eq(fclose(f), 0);
}

static void link_to(const char *rel, const char *target)
{
	char path[PATH_MAX];

	path_of(path, rel);
	cr_assert_eq(symlink(target, path), 0, "%s", path);
}

/*
 * devices/vda (partition vda2), devices/vdb, devices/vdc, with block/ and
 * class/block/ links as sysfs has them; dm-0 over vda2, md0 over vdb and
 * vdc, loop0 over a file whose disk is vdb.
 */
static void setup(void)
{
	char file[PATH_MAX], text[PATH_MAX + 2], dev[64];
	struct stat st;

	snprintf(root, sizeof(root), "/tmp/diskio-test-devlayers-XXXXXX");
	cr_assert_not_null(mkdtemp(root));
	mkdirs("devices/vda/vda2");
	put("devices/vda/vda2/partition", "2\n");
	mkdirs("devices/vdb");
	mkdirs("devices/vdc");
	mkdirs("devices/dm-0/dm");
	put("devices/dm-0/dm/name", "vg0-root\n");
	mkdirs("devices/dm-0/slaves");
	mkdirs("devices/md0/md");
	mkdirs("devices/md0/slaves");
	mkdirs("devices/loop0/loop");
	mkdirs("devices/loop1/loop");
	mkdirs("block");
	mkdirs("class/block");
	mkdirs("dev/block");
	link_to("block/vda", "../devices/vda");
	link_to("block/vdb", "../devices/vdb");
	link_to("block/vdc", "../devices/vdc");
	link_to("block/dm-0", "../devices/dm-0");
	link_to("block/md0", "../devices/md0");
	link_to("block/loop0", "../devices/loop0");
	link_to("block/loop1", "../devices/loop1");
	link_to("class/block/vda2", "../../devices/vda/vda2");
	link_to("devices/dm-0/slaves/vda2", "../../vda/vda2");
	link_to("devices/md0/slaves/vdb", "../../vdb");
	link_to("devices/md0/slaves/vdc", "../../vdc");
	/* loop0's file: this test's own tree; its st_dev stands for vdb. */
	path_of(file, "image");
	put("image", "x");
	snprintf(text, sizeof(text), "%s\n", file);
	put("devices/loop0/loop/backing_file", text);
	cr_assert_eq(stat(file, &st), 0);
	cr_assert_neq(major(st.st_dev), 0, "the test's directory is on no device");
	snprintf(dev, sizeof(dev), "dev/block/%u:%u", major(st.st_dev), minor(st.st_dev));
	link_to(dev, "../../devices/vdb");
	/* loop1's file is on tmpfs (major 0): nothing below. */
	put("devices/loop1/loop/backing_file", "/dev/shm\n");
}

static void teardown(void)
{
	char cmd[PATH_MAX + 16];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	if (system(cmd))
		cr_log_info("could not remove %s", root);
}

TestSuite(devlayers, .init = setup, .fini = teardown);

Test(devlayers, dm_names_the_disk_of_its_partition_and_its_own_name)
{
	struct devlayers l;

	devlayers_read(root, "dm-0", &l);
	cr_expect_str_eq(l.below, "vda");
	cr_expect_str_eq(l.dm_name, "vg0-root");
}

Test(devlayers, md_names_both_legs)
{
	struct devlayers l;

	devlayers_read(root, "md0", &l);
	cr_expect(!strcmp(l.below, "vdb,vdc") || !strcmp(l.below, "vdc,vdb"), "%s", l.below);
	cr_expect_str_eq(l.dm_name, "");
}

Test(devlayers, a_loop_names_the_disk_its_file_is_on)
{
	struct devlayers l;

	devlayers_read(root, "loop0", &l);
	cr_expect_str_eq(l.below, "vdb");
}

Test(devlayers, a_loop_on_tmpfs_and_a_plain_disk_have_nothing_below)
{
	struct devlayers l;

	devlayers_read(root, "loop1", &l);
	cr_expect_str_eq(l.below, "");
	devlayers_read(root, "vdb", &l);
	cr_expect_str_eq(l.below, "");
	cr_expect_str_eq(l.dm_name, "");
}

Test(devlayers, names_that_are_not_a_device_read_nothing)
{
	static const char *const names[] = { "", ".", "..", "../devices/dm-0", "nosuch" };
	struct devlayers l;

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		memset(&l, 'x', sizeof(l));
		devlayers_read(root, names[i], &l);
		cr_expect_str_eq(l.below, "", "%s", names[i]);
		cr_expect_str_eq(l.dm_name, "", "%s", names[i]);
	}
}

/* Two slaves on the same disk (two partitions) name it once; a list that
 * would not fit stops at a whole name. */
Test(devlayers, each_disk_once_and_never_a_cut_name)
{
	char rel[128];
	struct devlayers l;

	mkdirs("devices/vda/vda3");
	put("devices/vda/vda3/partition", "3\n");
	link_to("class/block/vda3", "../../devices/vda/vda3");
	link_to("devices/dm-0/slaves/vda3", "../../vda/vda3");
	devlayers_read(root, "dm-0", &l);
	cr_expect_str_eq(l.below, "vda");

	for (int i = 0; i < 40; i++) {
		snprintf(rel, sizeof(rel), "devices/disk-with-a-long-name-%02d", i);
		mkdirs(rel);
		snprintf(rel, sizeof(rel), "block/disk-with-a-long-name-%02d", i);
		char target[128];

		snprintf(target, sizeof(target), "../devices/disk-with-a-long-name-%02d", i);
		link_to(rel, target);
		snprintf(rel, sizeof(rel), "devices/md0/slaves/disk-with-a-long-name-%02d", i);
		snprintf(target, sizeof(target), "../../disk-with-a-long-name-%02d", i);
		link_to(rel, target);
	}
	devlayers_read(root, "md0", &l);
	cr_expect_lt(strlen(l.below), sizeof(l.below));
	for (const char *p = l.below; *p;) {
		size_t n = strcspn(p, ",");

		cr_expect(n == 3 || n == strlen("disk-with-a-long-name-00"), "a cut name in %s",
			  l.below);
		p += n + (p[n] == ',');
	}
}
