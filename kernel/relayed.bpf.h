/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Issue 45 item 4: I/O that a kernel thread submits for a task is that
 * task's.  blk-throttle holds a bio over its group's limit, and its worker
 * (kthrotld) submits it later: the bio's block_bio_queue, and a blk-mq
 * disk's request, happen in the worker, which iotop (task I/O accounting
 * at submit_bio()) never charges.  No tracepoint fires between submit_bio()
 * and the throttle's queue, but a direct I/O's bio names its issuer:
 *  - submit_bio_wait() (a block device's small synchronous direct I/O, and
 *    more): its bi_private is a struct completion, on whose wait queue the
 *    submitter sleeps once the bio is queued (so on 6.1 as on 6.18: the
 *    guests check it);
 *  - a block device's direct I/O (block/fops.c): a struct blkdev_dio,
 *    whose waiter is the submitter when it is synchronous, and whose iocb
 *    is the request when it is not (bi_private, or around the bio);
 *  - iomap's direct I/O (ext4, XFS, btrfs): a struct iomap_dio, whose
 *    submit.waiter is the submitter while it waits for completion, and
 *    whose iocb is the request when it does not wait;
 *  - an asynchronous request's iocb is io_uring's when its completion is
 *    (io_complete_rw*): the kiocb opens the request (struct io_kiocb, as
 *    the kernel keeps it, so that the file is its first word), which names
 *    its task (req->tctx->task, req->task before Linux 6.13);
 * and a part split off such a bio, through the bio it completes into.
 * They are known by their completion functions, whose addresses a syscall
 * program finds once after the load (find_relay_symbols(): no
 * /proc/kallsyms scan).  Other I/O a kernel thread submits names no issuer
 * and stays the thread's, as before: buffered reads (the readahead's pages
 * name no reader) and libaio's requests (struct aio_kiocb names none).
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

/* Set once by find_relay_symbols(), before the attach (abi.h). */
struct relay_symbols relay_symbols;

static const char chain_name[] = "bio_chain_endio";
static const char submit_wait_name[] = "submit_bio_wait_endio";
static const char blkdev_dio_name[] = "blkdev_bio_end_io";
static const char blkdev_dio_async_name[] = "blkdev_bio_end_io_async";
static const char iomap_dio_name[] = "iomap_dio_bio_end_io";
static const char uring_rw_name[] = "io_complete_rw";
static const char uring_rw_iopoll_name[] = "io_complete_rw_iopoll";

#define FIND_SYMBOL(name, into) \
	bpf_kallsyms_lookup_name(name, sizeof(name), 0, &relay_symbols.into)

/* Run once by user space (BPF_PROG_RUN) after the load, before the attach. */
SEC("syscall")
int find_relay_symbols(void *ctx)
{
	FIND_SYMBOL(chain_name, chain);
	FIND_SYMBOL(submit_wait_name, submit_wait);
	FIND_SYMBOL(blkdev_dio_name, blkdev_dio);
	FIND_SYMBOL(blkdev_dio_async_name, blkdev_dio_async);
	FIND_SYMBOL(iomap_dio_name, iomap_dio);
	FIND_SYMBOL(uring_rw_name, uring_rw);
	FIND_SYMBOL(uring_rw_iopoll_name, uring_rw_iopoll);
	return 0;
}

/* How many bios up a split's chain an issuer is looked for. */
#define CHAIN_DEPTH	4

/* struct io_kiocb before Linux 6.13: its task in the request itself. */
struct io_kiocb___own_task {
	struct task_struct *task;
} __attribute__((preserve_access_index));

/* The task that issued iocb through io_uring, or NULL (a request of
 * another kind: libaio's, or none). */
static __always_inline struct task_struct *uring_issuer(struct kiocb *iocb)
{
	__u64 complete = (__u64)BPF_CORE_READ(iocb, ki_complete);
	void *req = iocb;

	if (!iocb || !complete ||
	    (complete != relay_symbols.uring_rw && complete != relay_symbols.uring_rw_iopoll))
		return NULL;
	if (bpf_core_field_exists(struct io_kiocb, tctx))
		return BPF_CORE_READ((struct io_kiocb *)req, tctx, task);
	if (bpf_core_field_exists(struct io_kiocb___own_task, task))
		return BPF_CORE_READ((struct io_kiocb___own_task *)req, task);
	return NULL;
}

/*
 * The task bio is for, as its completion names it, or NULL: the task
 * sleeping until it completes, or the one that issued it through io_uring.
 * A part split off a bio (a blk-mq disk's request of a large read)
 * completes into the bio it was split from, its bi_private: that one's
 * completion names the task.  Read with probes: bi_private is not typed.
 * Each field is checked to be there: a kernel whose struct changed would
 * otherwise fail to load the program (a field not found is a poisoned
 * instruction), not only to name the task.
 */
static __always_inline struct task_struct *bio_issuer(struct bio *bio)
{
	__u64 end_io = (__u64)bio->bi_end_io;
	void *private = bio->bi_private;

	/* unrolled: Linux 6.1 takes no back-edge on a fall-through */
#pragma unroll
	for (int i = 0; i < CHAIN_DEPTH; i++) {
		if (!end_io || end_io != relay_symbols.chain || !private)
			break;
		bio = private;
		end_io = (__u64)BPF_CORE_READ(bio, bi_end_io);
		private = BPF_CORE_READ(bio, bi_private);
	}
	if (!end_io)
		return NULL;
	if (end_io == relay_symbols.submit_wait && private &&
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
	if (end_io == relay_symbols.blkdev_dio && private &&
	    bpf_core_field_exists(struct blkdev_dio, flags) &&
	    bpf_core_field_exists(struct blkdev_dio, waiter)) {
		struct blkdev_dio *dio = private;

		if (BPF_CORE_READ(dio, flags) & BLKDEV_DIO_IS_SYNC)
			return BPF_CORE_READ(dio, waiter);
		return uring_issuer(BPF_CORE_READ(dio, iocb));
	}
	/* the bio is the one its struct blkdev_dio holds */
	if (end_io == relay_symbols.blkdev_dio_async && bpf_core_field_exists(struct blkdev_dio, bio)) {
		struct blkdev_dio *dio = (void *)bio - bpf_core_field_offset(struct blkdev_dio, bio);

		return uring_issuer(BPF_CORE_READ(dio, iocb));
	}
	if (end_io == relay_symbols.iomap_dio && private &&
	    bpf_core_field_exists(struct iomap_dio, wait_for_completion) &&
	    bpf_core_field_exists(struct iomap_dio, submit.waiter)) {
		struct iomap_dio *dio = private;

		/* a submitter that does not wait may be gone: not read */
		if (BPF_CORE_READ(dio, wait_for_completion))
			return BPF_CORE_READ(dio, submit.waiter);
		return uring_issuer(BPF_CORE_READ(dio, iocb));
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
#define RELAY_TAKEN	1	/* the issuer's: its key and owner filled in */
#define RELAY_DROPPED	2	/* the issuer's, which the filters drop */

/*
 * Whose bio to dev is when the current task is a kernel thread that submits
 * it for another task (RELAY_TAKEN: that task's key, and its owner for the
 * row should it be made), else RELAY_NONE.  An issuer that is itself a
 * workqueue worker is left to the submitter: it would be named by its work
 * (name_worker()), which is not read here.
 */
static __always_inline int relayed_submitter(struct bio *bio, __u32 dev, struct proc_dev_key *key,
					     struct row_owner *owner)
{
	struct task_struct *issuer, *named;
	struct cgroup *cgrp;
	__u32 tgid, pid;
	__u64 name[2];
	bool ended = false;

	if (!bio || !(current_task()->flags & PF_KTHREAD))
		return RELAY_NONE;
	issuer = bio_issuer(bio);
	if (!issuer || (BPF_CORE_READ(issuer, flags) & PF_WQ_WORKER))
		return RELAY_NONE;
	tgid = BPF_CORE_READ(issuer, tgid);
	pid = BPF_CORE_READ(issuer, pid);
	if (!dev_selected(dev) || !(pid_selected(tgid) || pid_selected(pid)))
		return RELAY_DROPPED;
	task_owner(issuer, owner);
	if (nr_filter_uids && !uid_selected(owner->uid))
		return RELAY_DROPPED;
	named = per_thread ? issuer : BPF_CORE_READ(issuer, group_leader);
	if (BPF_CORE_READ_INTO(&name, named, comm))
		return RELAY_NONE;
	name[0] = name_word(name[0], &ended);
	name[1] = name_word(name[1], &ended);
	__builtin_memcpy(key->comm, name, TASK_COMM_LEN);
	cgrp = BPF_CORE_READ(issuer, cgroups, dfl_cgrp);
	if (!comm_selected(key->comm) || !cgroup_selected(cgrp))
		return RELAY_DROPPED;
	key->tgid = per_thread ? pid : tgid;
	key->dev = dev;
	key->cgroup = BPF_CORE_READ(cgrp, kn, id);
	return RELAY_TAKEN;
}

#endif /* DISKIO_RELAYED_BPF_H */
