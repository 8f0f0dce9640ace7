// SPDX-License-Identifier: GPL-2.0
/*
 * The tally's names (tally_private.h): the table every row's, device's and
 * file's names are kept in, and a new row's names, read from the kernel's
 * key, /proc and sysfs.  Below tally.c and the files that do a part of its
 * step, which all name rows.
 */
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include "path.h"
#include "tally.h"
#include "tally_private.h"

res_key tally_intern_name(struct tally *t, const char *name, size_t len)
{
	res_key key;

	if (res_intern(&t->names, name, len, &key) == RES_OK)
		return key;
	t->lost[LOST_NAMES_TABLE_FULL]++;
	return t->unknown_name;
}

/* A row's cgroup path; 0 without a cgroup2 hierarchy. */
static res_key cgroup_name(struct tally *t, uint64_t id)
{
	const char *path;

	if (!t->config.cgroup_mount)
		return 0;
	path = cgroup_names_lookup(&t->cgroups, id);
	return path ? tally_intern_name(t, path, strlen(path)) : t->unknown_name;
}

void worker_row_name(const char *proc_comm, const char *desc, char *out, size_t size)
{
	size_t own = 0;

	/* "kworker/u8:1+flush-254:0": the work follows the id's ':'. */
	if (proc_comm && strchr(proc_comm, ':')) {
		const char *id = strchr(proc_comm, ':');

		own = strcspn(id, "+-") + (size_t)(id - proc_comm);
	}
	if (own)
		snprintf(out, size, "%.*s-%s", (int)own, proc_comm, desc);
	else
		snprintf(out, size, "kworker-%s", desc);
}

/* A worker's name as /proc/PID/comm gives it; false if it is gone. */
static bool read_task_comm(const struct tally *t, uint32_t tgid, char *buf, size_t size)
{
	char path[PATH_MAX];

	return t->config.proc_root &&
	       build_path(path, "%s/%" PRIu32 "/comm", t->config.proc_root, tgid) &&
	       read_first_line(path, buf, size);
}

const char *tally_sysfs_root(const struct tally *t)
{
	return t->config.sysfs_root ? t->config.sysfs_root : "/sys";
}

/*
 * A new row's names (abi.h, struct proc_dev_key): a worker's is the
 * name `ps` shows, with its work; the I/O dm and md sent to a disk below is
 * named after the device above, which it serves, as does a worker whose
 * work is a block device's own (a loop device's).
 */
void tally_name_row(struct tally *t, struct proc_io *row)
{
	const struct proc_dev_key *key = &row->key;
	const char *device = iostats_has_device(row) ? devname_lookup(&t->devnames, key->dev) : "-";
	char name[TASK_COMM_LEN + 64], comm[64];

	row->device_name = tally_intern_name(t, device, strlen(device));
	row->tgid = key->tgid;
	if (t->config.per_thread && key->tgid)
		row->tgid = t->config.thread_group ?
			    t->config.thread_group(key->tgid, t->config.thread_group_arg) : 0;
	switch (key->comm[TASK_COMM_LEN - 1]) {
	case KEY_MARK_STACKED: {
		const char *above = devname_lookup(&t->devnames, (uint32_t)key->cgroup);

		row->comm_name = tally_intern_name(t, above, strlen(above));
		row->serves_name = row->comm_name;
		return;
	}
	case KEY_MARK_WORKER: {
		char desc[TASK_COMM_LEN];

		memcpy(desc, key->comm, TASK_COMM_LEN - 1);
		desc[TASK_COMM_LEN - 1] = '\0';
		worker_row_name(read_task_comm(t, key->tgid, comm, sizeof(comm)) ? comm : NULL,
				desc, name, sizeof(name));
		row->comm_name = tally_intern_name(t, name, strlen(name));
		/* a worker whose work is named after a disk (a loop device's
		 * "loop0") does that disk's I/O */
		if (devlayers_is_disk(tally_sysfs_root(t), desc))
			row->serves_name = tally_intern_name(t, desc, strlen(desc));
		break;
	}
	default:
		row->comm_name = tally_intern_name(t, key->comm, strnlen(key->comm, TASK_COMM_LEN));
	}
	row->cgroup_name = cgroup_name(t, key->cgroup);
}
