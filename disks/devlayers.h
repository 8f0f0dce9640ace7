/* SPDX-License-Identifier: GPL-2.0 */
/*
 * How block devices are stacked, from sysfs, as lsblk learns it: the disks
 * below a device (dm and md list them in slaves/; a loop device's backing
 * file lies on one) and a dm device's own name (dm/name: "vg0-root").  The
 * sysfs root is a parameter so tests can use a fake tree.
 */
#ifndef DISKIO_DEVLAYERS_H
#define DISKIO_DEVLAYERS_H

#include <stdbool.h>
#include <stddef.h>

#define DEVLAYERS_BELOW_MAX	256	/* "vda,vdb,...": longer lists are cut at a name */
#define DEVLAYERS_NAME_MAX	128

struct devlayers {
	/* The whole disks below, by their kernel names, comma-separated in
	 * sysfs' order, each once; "" when none (a disk, a loop device whose
	 * file is on tmpfs). */
	char below[DEVLAYERS_BELOW_MAX];
	char dm_name[DEVLAYERS_NAME_MAX];	/* "" unless a dm device */
};

/* Whether name is a disk of SYSFS/block (a plain name: no '/', not "." or
 * ".."). */
bool devlayers_is_disk(const char *sysfs_root, const char *name);

/*
 * The layers of the device sysfs names `name` (a whole disk's directory
 * under SYSFS/block).  A loop device's backing file is looked up with
 * stat(2): its st_dev names the disk it lies on (a partition names its
 * disk; a file on tmpfs or another device-less filesystem has none).
 * Anything unreadable leaves its part empty: never fails.
 */
void devlayers_read(const char *sysfs_root, const char *name, struct devlayers *out);

#endif /* DISKIO_DEVLAYERS_H */
