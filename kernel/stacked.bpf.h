/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Stacked devices (dm, md) send the I/O of their device to the disks below
 * as bios of their own.  Those bios are remembered here, so that the disk
 * below counts their I/O on a row that names the device above, not again as
 * some process's.  The I/O hooks look here only while stacked_in_flight
 * says there are entries: without dm or md it costs them one load.
 */

#ifndef DISKIO_STACKED_BPF_H
#define DISKIO_STACKED_BPF_H

#include <vmlinux.h>
#include <bpf/bpf_helpers.h>
#include "abi.h"
#include "submitter.bpf.h"

/* A bio a stacking driver (dm, md) made from an upper device's I/O and sent
 * to a disk below: from its remap (block_bio_remap) until it completes.  Its
 * I/O is counted on the lower disk on a row of its own (KEY_MARK_STACKED),
 * not again as its submitter's. */
struct stacked_bio {
	__u32 upper;		/* the device it serves */
	__u32 lower;		/* the disk it was sent to */
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, STACKED_BIOS_ENTRIES);
	__type(key, __u64);
	__type(value, struct stacked_bio);
} stacked_bios SEC(".maps");

/* Entries in stacked_bios: while 0, the I/O hooks do not look there. */
__u64 stacked_in_flight = 0;

/*
 * If bio_id is a bio a stacking driver sent to dev, the row of the I/O it
 * carries for the device above (*counted false if -D does not select dev,
 * or a process filter is on).  The entry stays until the bio completes: a
 * blk-mq disk counts the I/O when its request starts.
 */
static __always_inline bool stacked_row(__u64 bio_id, __u32 dev, struct proc_dev_key *key,
					bool *counted)
{
	struct stacked_bio *stacked;

	if (!*(volatile __u64 *)&stacked_in_flight)
		return false;
	stacked = bpf_map_lookup_elem(&stacked_bios, &bio_id);
	if (!stacked || stacked->lower != dev)
		return false;
	*counted = dev_selected(dev) && !process_filters();
	key->tgid = 0;
	key->dev = dev;
	key->cgroup = stacked->upper;
	key->comm[TASK_COMM_LEN - 1] = KEY_MARK_STACKED;
	return true;
}

/* A bio of stacked_bios completed: its address may name another bio next. */
static __noinline void forget_stacked_bio(__u64 bio_id)
{
	if (!bpf_map_delete_elem(&stacked_bios, &bio_id))
		__sync_fetch_and_add(&stacked_in_flight, -1);
}

#endif /* DISKIO_STACKED_BPF_H */
