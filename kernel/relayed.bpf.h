/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Issue 45 item 4: synchronous I/O that a kernel thread submits for a task
 * that waits for it is that task's.  blk-throttle holds a bio over its
 * group's limit, and its worker (kthrotld) submits it later: the bio's
 * block_bio_queue, and a blk-mq disk's request, happen in the worker, which
 * iotop (task I/O accounting at submit_bio()) never charges.  No tracepoint
 * fires between submit_bio() and the throttle's queue, but a bio whose
 * submitter sleeps until it completes names that task:
 *  - submit_bio_wait() (a block device's small direct I/O, and more): its
 *    bi_private is a struct completion, on whose wait queue the submitter
 *    sleeps once the bio is queued;
 *  - a block device's larger direct I/O (block/fops.c): a struct
 *    blkdev_dio, whose waiter is the submitter when it is synchronous;
 *  - iomap's direct I/O (ext4, XFS, btrfs): a struct iomap_dio, whose
 *    submit.waiter is the submitter while it waits for completion;
 * and a part split off such a bio, through the bio it completes into.
 * They are known by their bi_end_io, whose address a syscall program finds
 * once after the load (find_sync_end_ios(): no /proc/kallsyms scan).  Other
 * I/O a kernel thread submits (buffered reads, asynchronous direct I/O)
 * names no waiter and stays the thread's, as before.
 */

#ifndef DISKIO_RELAYED_BPF_H
#define DISKIO_RELAYED_BPF_H

#include <vmlinux.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include "abi.h"
#include "settings.bpf.h"
#include "common.bpf.h"
#include "submitter.bpf.h"
#include "procinfo.bpf.h"

/* block/fops.c's flag of a synchronous struct blkdev_dio (an enum without
 * a name to relocate by; 2 since Linux 5.16) */
#define BLKDEV_DIO_IS_SYNC	2

/* Set once by find_sync_end_ios(), before the attach (abi.h). */
struct sync_end_ios sync_end_io;

static const char chain_name[] = "bio_chain_endio";
static const char submit_wait_name[] = "submit_bio_wait_endio";
static const char blkdev_dio_name[] = "blkdev_bio_end_io";
static const char iomap_dio_name[] = "iomap_dio_bio_end_io";

/* Run once by user space (BPF_PROG_RUN) after the load, before the attach. */
SEC("syscall")
int find_sync_end_ios(void *ctx)
{
	bpf_kallsyms_lookup_name(chain_name, sizeof(chain_name), 0, &sync_end_io.chain);
	bpf_kallsyms_lookup_name(submit_wait_name, sizeof(submit_wait_name), 0,
				 &sync_end_io.submit_wait);
	bpf_kallsyms_lookup_name(blkdev_dio_name, sizeof(blkdev_dio_name), 0,
				 &sync_end_io.blkdev_dio);
	bpf_kallsyms_lookup_name(iomap_dio_name, sizeof(iomap_dio_name), 0,
				 &sync_end_io.iomap_dio);
	return 0;
}

/* How many bios up a split's chain a waiter is looked for. */
#define CHAIN_DEPTH	4

/* The task sleeping until bio completes, as its completion names it, or
 * NULL.  A part split off a bio (a blk-mq disk's request of a large read)
 * completes into the bio it was split from, its bi_private: that one's
 * completion names the waiter.  Read with probes: bi_private is not typed. */
static __always_inline struct task_struct *sync_waiter(struct bio *bio)
{
	__u64 end_io = (__u64)bio->bi_end_io;
	void *private = bio->bi_private;

	for (int i = 0; i < CHAIN_DEPTH && end_io && end_io == sync_end_io.chain && private; i++) {
		struct bio *whole = private;

		end_io = (__u64)BPF_CORE_READ(whole, bi_end_io);
		private = BPF_CORE_READ(whole, bi_private);
	}
	if (!end_io || !private)
		return NULL;
	/* Each field checked to be there: a kernel whose struct changed
	 * would otherwise fail to load the program, not only to name the
	 * waiter (a field not found is a poisoned instruction). */
	if (end_io == sync_end_io.submit_wait &&
	    bpf_core_field_exists(struct completion, wait.task_list) &&
	    bpf_core_field_exists(struct swait_queue, task)) {
		struct completion *done = private;
		struct list_head *first = BPF_CORE_READ(done, wait.task_list.next);
		void *head = private + bpf_core_field_offset(struct completion, wait.task_list);

		/* none sleeps on it yet: its submitter is still submitting */
		if (!first || (void *)first == head)
			return NULL;
		return BPF_CORE_READ((struct swait_queue *)((void *)first -
				     bpf_core_field_offset(struct swait_queue, task_list)), task);
	}
	if (end_io == sync_end_io.blkdev_dio && bpf_core_field_exists(struct blkdev_dio, flags) &&
	    bpf_core_field_exists(struct blkdev_dio, waiter)) {
		struct blkdev_dio *dio = private;

		if (!(BPF_CORE_READ(dio, flags) & BLKDEV_DIO_IS_SYNC))
			return NULL;
		return BPF_CORE_READ(dio, waiter);
	}
	if (end_io == sync_end_io.iomap_dio &&
	    bpf_core_field_exists(struct iomap_dio, wait_for_completion) &&
	    bpf_core_field_exists(struct iomap_dio, submit.waiter)) {
		struct iomap_dio *dio = private;

		/* an asynchronous one's submitter may be gone */
		if (!BPF_CORE_READ(dio, wait_for_completion))
			return NULL;
		return BPF_CORE_READ(dio, submit.waiter);
	}
	return NULL;
}

/* --cgroup for a task that is not the current one: cgrp (its cgroup v2
 * group) or an ancestor is one named, as current_cgroup_selected() asks. */
static __always_inline bool cgroup_selected(const struct cgroup *cgrp)
{
	int level;

	if (!nr_filter_cgroups)
		return true;
	if (!bpf_core_field_exists(struct cgroup, ancestors))
		return false;
	level = BPF_CORE_READ(cgrp, level);
	for (int i = 0; i < MAX_FILTER_CGROUPS; i++) {
		struct cgroup *ancestor = NULL;
		__u32 at;

		if (i >= nr_filter_cgroups)
			break;
		at = filter_cgroup_levels[i];
		if (at > level)
			continue;
		bpf_probe_read_kernel(&ancestor, sizeof(ancestor),
				      (void *)cgrp + bpf_core_field_offset(struct cgroup, ancestors) +
				      at * sizeof(ancestor));
		if (ancestor && BPF_CORE_READ(ancestor, kn, id) == filter_cgroups[i])
			return true;
	}
	return false;
}

/* relayed_submitter()'s answers */
#define RELAY_NONE	0	/* not relayed: the current task's, as before */
#define RELAY_TAKEN	1	/* the waiter's: its key and owner filled in */
#define RELAY_DROPPED	2	/* the waiter's, which the filters drop */

/*
 * Whose bio to dev is when the current task is a kernel thread that submits
 * it for a task waiting on it (RELAY_TAKEN: that task's key, and its owner
 * for the row should it be made), else RELAY_NONE.  A waiter that is itself
 * a workqueue worker is left to the submitter: it would be named by its
 * work (name_worker()), which is not read here.
 */
static __always_inline int relayed_submitter(struct bio *bio, __u32 dev, struct proc_dev_key *key,
					     struct row_owner *owner)
{
	struct task_struct *waiter, *named;
	struct cgroup *cgrp;
	__u32 tgid, pid;
	__u64 name[2];
	bool ended = false;

	if (!bio || !(current_task()->flags & PF_KTHREAD))
		return RELAY_NONE;
	waiter = sync_waiter(bio);
	if (!waiter || (BPF_CORE_READ(waiter, flags) & PF_WQ_WORKER))
		return RELAY_NONE;
	tgid = BPF_CORE_READ(waiter, tgid);
	pid = BPF_CORE_READ(waiter, pid);
	if (!dev_selected(dev) || !(pid_selected(tgid) || pid_selected(pid)))
		return RELAY_DROPPED;
	task_owner(waiter, owner);
	if (nr_filter_uids && !uid_selected(owner->uid))
		return RELAY_DROPPED;
	named = per_thread ? waiter : BPF_CORE_READ(waiter, group_leader);
	if (BPF_CORE_READ_INTO(&name, named, comm))
		return RELAY_NONE;
	name[0] = name_word(name[0], &ended);
	name[1] = name_word(name[1], &ended);
	__builtin_memcpy(key->comm, name, TASK_COMM_LEN);
	cgrp = BPF_CORE_READ(waiter, cgroups, dfl_cgrp);
	if (!comm_selected(key->comm) || !cgroup_selected(cgrp))
		return RELAY_DROPPED;
	key->tgid = per_thread ? pid : tgid;
	key->dev = dev;
	key->cgroup = BPF_CORE_READ(cgrp, kn, id);
	return RELAY_TAKEN;
}

#endif /* DISKIO_RELAYED_BPF_H */
