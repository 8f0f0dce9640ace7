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
#include <bpf/bpf_core_read.h>
#include "abi.h"
#include "submitter.bpf.h"

/* A bio a stacking driver (dm, md) made from an upper device's I/O and sent
 * to a disk below: from its remap (block_bio_remap) until it completes.  Its
 * I/O is counted on the lower disk on a row of its own (KEY_MARK_STACKED),
 * not again as its submitter's.  It completes at block_bio_complete on a
 * bio-based disk; on a blk-mq disk that tracepoint does not fire for the
 * bios of a request (blk_update_request() and the batched completion clear
 * BIO_TRACE_COMPLETION: block_rq_complete traced them), so they are
 * forgotten with their request, at block_rq_complete. */
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

/* The bios of a request still to forget, from one to the next (bi_next). */
struct request_bios_walk {
	struct bio *bio;	/* the next one, NULL at the end */
};

static long forget_next_request_bio(__u32 index, void *ctx)
{
	struct request_bios_walk *walk = ctx;
	struct bio *bio = walk->bio;

	if (!bio)
		return 1;
	forget_stacked_bio(io_number(bio));
	walk->bio = bio->bi_next;
	return 0;
}

/* A blk-mq disk's request completes (in full or a part): its bios, all
 * counted by now, as it started, are forgotten, those a later part
 * completes too.  A request holds at most max_sectors of bios, a few
 * thousand at 512 bytes each. */
#define REQUEST_BIOS_MAX	65536

static __always_inline void forget_request_bios(struct request *rq)
{
	struct request_bios_walk walk = { .bio = untrusted(rq, struct request)->bio };

	bpf_loop(REQUEST_BIOS_MAX, forget_next_request_bio, &walk, 0);
}

#endif /* DISKIO_STACKED_BPF_H */
