// SPDX-License-Identifier: GPL-2.0
/*
 * diskio kernel side: who does how much block I/O to which disk, aggregated
 * in the kernel; per-I/O events for trace mode; crashes seen at process exit.
 *
 * Counting rules, chosen so that per-device sums equal /proc/diskstats:
 *  - bytes of every disk are counted when a bio is queued (block_bio_queue),
 *    in the submitting task's context, before any merge or split;
 *  - I/Os of a blk-mq disk are requests, counted when the block layer starts
 *    accounting one (block_io_start, or block_rq_issue before Linux 6.5);
 *  - I/Os of a bio-based disk (zram, pmem, dm, md, brd) are bios, counted at
 *    block_bio_queue; such disks never fire the request hooks, and requests
 *    of blk-mq disks are never counted at the bio hook, so nothing counts twice;
 *  - a disk's flushes are the flush requests it completed, counted per disk
 *    at block_rq_complete (count_device_flush()); a row's flushes are the
 *    bios its process queued that ask for a cache flush (REQ_PREFLUSH).
 *
 * The programs, one per hook, are here, with the steps they share
 * (io_started(), request_done(), ...): a hook serves several concerns at
 * once (block_bio_queue counts the row, charges writeback to the dirtier,
 * takes the stack, samples or tracks the latency), and what runs for one I/O
 * should read in one place.  What they keep, and how, is in the headers of
 * kernel/, one concern each, with its maps:
 *  - settings.bpf.h: the filters and modes user space sets;
 *  - common.bpf.h: the current task, an I/O's number, losses, events;
 *  - submitter.bpf.h: who an I/O is charged to, and the filters;
 *  - procinfo.bpf.h: who a row's process is (user, I/O priority, start),
 *    read when its row is made, and its command line at exec;
 *  - rows.bpf.h: the per-CPU counters of a process on a disk;
 *  - task_rows.bpf.h: the submitter's row, remembered per task;
 *  - stacked.bpf.h: the bios dm and md send to the disks below;
 *  - bio_page.bpf.h: a bio's first page and the file it is of;
 *  - writeback.bpf.h: a file's dirtier, charged for its writeback;
 *  - relayed.bpf.h: the issuer of a bio a kernel thread submits for it;
 *  - latency.bpf.h: a disk's latency, sampled on bio-based disks;
 *  - inflight.bpf.h: I/Os tracked to their completion (-L, -T, filters);
 *  - stacks.bpf.h: --stacks;
 *  - crashes.bpf.h: processes ended by a signal that dumps core;
 *  - waits.bpf.h: who waits for I/O and swap-in (IO>, SWAPIN), per task;
 *  - files.bpf.h: --files, which file a read or write was for;
 *  - core_fixes.bpf.h: fields that moved between kernels.
 * A disk's flushes, counted by one hook only, stay here with it.  Still one
 * object and one skeleton: the headers are compiled only as part of this file.
 */
#include <vmlinux.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "abi.h"
#include "core_fixes.bpf.h"
#include "settings.bpf.h"
#include "common.bpf.h"
#include "submitter.bpf.h"
#include "procinfo.bpf.h"
#include "rows.bpf.h"
#include "task_rows.bpf.h"
#include "stacked.bpf.h"
#include "writeback.bpf.h"
#include "relayed.bpf.h"
#include "latency.bpf.h"
#include "inflight.bpf.h"
#include "stacks.bpf.h"
#include "crashes.bpf.h"
#include "waits.bpf.h"
#include "files.bpf.h"
#include "errors.bpf.h"

static __always_inline bool disk_is_bio_based(const struct gendisk *disk)
{
	return disk->queue->mq_ops == NULL;
}

SEC("tp_btf/block_bio_queue")
int BPF_PROG(handle_bio_queue, struct bio *bio)
{
	struct gendisk *disk = bio_disk(bio);
	__u32 opf = bio->bi_opf;
	__u32 class = io_classify(opf);
	__u32 bytes = bio->bi_iter.bi_size;
	struct proc_dev_key key = {};
	struct row_owner issuer;
	struct row_who who = {};
	struct row row = {};	/* row.at read by note_io_owner(): set on every path */
	__u64 stamp_mask;
	bool bio_based, on_behalf = false, stacked, counted, own = false, relayed = false;
	int relay;

	if (class == IO_IGNORED)
		return 0;
	bio_based = disk_is_bio_based(disk);
	stacked = stacked_row(io_number(bio), disk_dev(disk), &key, &counted);
	if (stacked) {
		if (!counted)
			return 0;
	} else if ((relay = relayed_submitter(bio, disk_dev(disk), &key, &issuer))) {
		if (relay == RELAY_DROPPED)
			return 0;
		who.known = &issuer;
		relayed = true;
	} else if (class == IO_WRITE) {
		if (!write_charged_to(current_task(), bio, disk_dev(disk), &key, &on_behalf, &who))
			return 0;
	} else if (!submitter_row(disk_dev(disk), bio_based, &key, &row)) {
		return 0;
	} else {
		own = true;
	}
	if (aggregate && (own ? row.stats != NULL : row_of(&key, bio_based, who, &row))) {
		if (class == IO_FLUSH || (opf & REQ_FLAG(PREFLUSH)))
			row_add(&row, &row.stats->flushes, 1);
		if (class < IO_NR_CLASSES) {
			row_add(&row, &row.stats->bytes[class], bytes);
			if (bio_based)
				row_add(&row, &row.stats->ios[class], 1);
		}
		if (on_behalf)
			row_add(&row, &row.stats->writeback_bytes, bytes);
		/* A bio-based disk's I/O is the bio: its error is the bio's. */
		if (bio_based)
			note_io_owner(io_number(bio), &row);
		note_firing_cut(bio, FIRING_BIO_QUEUE, row.cut);
	}
	/* Not writeback charged to a dirtier, nor I/O a kernel thread submits
	 * for its issuer: the stack would be the flusher's or the thread's;
	 * not a stacked device's: its stack is on the device above. */
	if (stacks_mode && aggregate && !on_behalf && !relayed && !stacked &&
	    class < IO_NR_CLASSES)
		add_stack_bio(ctx, &key, class, bytes, bio_based, io_number(bio));
	if (bio_based && !track_inflight && !bio_stamps_seen && bio_issue_ns(bio, &stamp_mask))
		bio_stamps_seen = true;
	if (bio_based && !track_inflight)
		sample_bio_start(bio, key.dev, class);
	if (bio_based && track_inflight && class < IO_NR_CLASSES)
		remember_inflight(io_number(bio), &key, bpf_ktime_get_ns(),
				  bio->bi_iter.bi_sector, bytes, opf);
	return 0;
}

/*
 * dm and md send the I/O of their device to the disks below as bios of their
 * own, remapped from the device above; a partition's bio is remapped onto
 * its own disk, which is not a device below.
 */
SEC("tp_btf/block_bio_remap")
int BPF_PROG(handle_bio_remap, struct bio *bio, dev_t dev, sector_t from)
{
	struct stacked_bio stacked = { .upper = dev };
	struct block_device *bdev;
	__u64 bio_id = io_number(bio);
	long err;

	/* Not before block_bio_complete, which forgets them, is attached;
	 * never with -T (no rows). */
	if (!stacked_tracked || !bpf_core_field_exists(bio->bi_bdev))
		return 0;
	bdev = untrusted(bio, struct bio)->bi_bdev;
	if (!bdev || bdev->bd_dev == dev)
		return 0;
	stacked.lower = disk_dev(bdev->bd_disk);
	err = bpf_map_update_elem(&stacked_bios, &bio_id, &stacked, BPF_NOEXIST);
	if (!err)
		__sync_fetch_and_add(&stacked_in_flight, 1);
	else if (map_errno(err) == -EEXIST)
		bpf_map_update_elem(&stacked_bios, &bio_id, &stacked, BPF_EXIST);
	else
		count_lost(LOST_STACKED_MAP_FULL);
	return 0;
}

SEC("tp_btf/block_bio_complete")
int BPF_PROG(handle_bio_complete, struct request_queue *q, struct bio *bio)
{
	__u64 start_ns, stamp_mask;
	struct gendisk *disk;
	__u32 dev;

	if (*(volatile __u64 *)&stacked_in_flight)
		forget_stacked_bio(io_number(bio));
	/* A failed bio: its status first, one load for the bios that did
	 * not fail; a blk-mq disk's errors are its requests' (rq_complete). */
	if (aggregate && bio->bi_status) {
		disk = bio_disk(bio);
		if (disk_is_bio_based(disk))
			count_io_error(io_number(bio), disk_dev(disk), bio->bi_status);
	}
	if (sample_bio_done(bio))
		return 0;
	disk = bio_disk(bio);
	if (!disk_is_bio_based(disk))
		return 0;
	dev = disk_dev(disk);
	if (track_inflight) {
		complete_tracked(ctx, io_number(bio), dev, bpf_ktime_get_ns(), 0);
		return 0;
	}
	/* Without -L the exact latency of a bio-based disk needs the kernel's
	 * own stamp, which most queues do not keep: check it first, it is cheap. */
	start_ns = bio_issue_ns(bio, &stamp_mask);
	if (!start_ns || !dev_selected(dev))
		return 0;
	add_latency(&device_latency, &dev, io_classify(bio->bi_opf),
		    elapsed_since(bpf_ktime_get_ns(), start_ns, stamp_mask));
	return 0;
}

/* An I/O of a blk-mq disk starts being accounted: one I/O, charged to the
 * current task; tracked under id (-L, -T). */
static __always_inline void io_started(void *ctx, __u64 id, __u32 opf, __u32 dev,
				       struct bio *bio, __u64 sector, __u32 bytes)
{
	__u32 class = io_classify(opf);
	__u64 bio_id = bio ? io_number(bio) : 0;
	struct proc_dev_key key = {};
	struct row_owner issuer;
	struct row_who who = {};
	struct row row = {};	/* row.at read by note_io_owner(): set on every path */
	bool on_behalf = false, stacked, counted, own = false, relayed = false;
	int relay;

	if (class >= IO_NR_CLASSES)
		return;
	stacked = stacked_row(bio_id, dev, &key, &counted);
	if (stacked) {
		if (!counted)
			return;
	} else if ((relay = relayed_submitter(bio, dev, &key, &issuer))) {
		if (relay == RELAY_DROPPED)
			return;
		who.known = &issuer;
		relayed = true;
	} else if (class == IO_WRITE) {
		if (!write_charged_to(current_task(), bio, dev, &key, &on_behalf, &who))
			return;
	} else if (!submitter_row(dev, true, &key, &row)) {
		return;
	} else {
		own = true;
	}
	if (aggregate && (own ? row.stats != NULL : row_of(&key, true, who, &row))) {
		row_add(&row, &row.stats->ios[class], 1);
		note_io_owner(id, &row);
		note_firing_cut(bio, FIRING_REQUEST, row.cut);
	}
	/* The request's bytes went to the stack at block_bio_queue. */
	if (stacks_mode && aggregate && !on_behalf && !relayed && !stacked)
		add_stack_request(ctx, &key, class, bio_id);
	if (track_inflight)
		remember_inflight(id, &key, 0, sector, bytes, opf);
}

static __always_inline void request_started(void *ctx, struct request *rq)
{
	io_started(ctx, io_number(rq), rq->cmd_flags, request_dev(rq),
		   untrusted(rq, struct request)->bio, rq->__sector,
		   rq->__data_len);
}

/*
 * With block_getrq, a request reaching block_rq_issue was counted and its
 * submitter remembered under its first bio; from here on it is tracked under
 * the request.  A request whose first bio was not seen there (a front merge
 * replaced it) is tracked with the dispatching task as its submitter.
 */
static __always_inline void request_tracked_from_bio(void *ctx, struct request *rq)
{
	struct bio *first = untrusted(rq, struct request)->bio;
	__u64 id = io_number(rq), bio_id = first ? io_number(first) : 0;
	struct inflight_ref ref;
	struct proc_dev_key who = {};
	__u32 dev = request_dev(rq);

	/* Not counted at block_getrq either; requeued: already tracked. */
	if (io_classify(rq->cmd_flags) >= IO_NR_CLASSES || inflight_find(id, &ref))
		return;
	if (bio_id && inflight_find(bio_id, &ref)) {
		who = ref.io->who;
		__sync_val_compare_and_swap(ref.id, bio_id, 0);
	} else if (!current_submitter(current_task(), &who, dev)) {
		return;
	}
	remember_inflight(id, &who, 0, rq->__sector, rq->__data_len, rq->cmd_flags);
}

/* Dispatch to the driver: merges are over, so sector and size are final. */
static __always_inline void request_issued(void *ctx, struct request *rq)
{
	struct inflight_ref ref;

	if (!trace_events || !inflight_find(io_number(rq), &ref))
		return;
	ref.io->sector = rq->__sector;
	ref.io->bytes = rq->__data_len;
	ref.io->flags = io_flags(rq->cmd_flags);
}

static __always_inline void request_done(void *ctx, struct request *rq)
{
	__u64 start_ns = rq->start_time_ns;
	__u32 dev = request_dev(rq);
	__u64 now = bpf_ktime_get_ns();

	if (track_inflight) {
		complete_tracked(ctx, io_number(rq), dev, now, start_ns);
		return;
	}
	if (!start_ns || !dev_selected(dev))
		return;
	add_latency(&device_latency, &dev, io_classify(rq->cmd_flags),
		    elapsed_since(now, start_ns, ~0ULL));
}

SEC("tp_btf/block_io_start")
int BPF_PROG(handle_io_start, struct request *rq)
{
	request_started(ctx, rq);
	return 0;
}

SEC("tp_btf/block_io_done")
int BPF_PROG(handle_io_done, struct request *rq)
{
	request_done(ctx, rq);
	return 0;
}

SEC("tp_btf/block_rq_issue")
int BPF_PROG(handle_rq_issue, struct request *rq)
{
	if (rq_fallback_hooks && !getrq_hook)
		request_started(ctx, rq);
	else if (rq_fallback_hooks && track_inflight)
		request_tracked_from_bio(ctx, rq);
	request_issued(ctx, rq);
	return 0;
}

/*
 * Before Linux 6.5, block_getrq fires where block_io_start does since: in
 * blk_mq_submit_bio(), as a new request is set up for a bio, in the
 * submitter's context.  block_rq_issue may run in a kblockd worker instead
 * (a plug flushed when its task sleeps: every O_DIRECT write to a virtio
 * disk on Linux 6.1), so the I/O is counted here, and tracked under its bio
 * until block_rq_issue.
 */
SEC("tp_btf/block_getrq")
int BPF_PROG(handle_getrq, struct bio *bio)
{
	struct gendisk *disk = bio_disk(bio);

	io_started(ctx, io_number(bio), bio->bi_opf, disk_dev(disk), bio,
		   bio->bi_iter.bi_sector, bio->bi_iter.bi_size);
	return 0;
}

/* Flush requests completed, per disk (the kernel's dev_t): what
 * /proc/diskstats counts, see count_device_flush(). */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, DEVICE_FLUSHES_ENTRIES);
	__type(key, __u32);
	__type(value, __u64);
} device_flushes SEC(".maps");

/*
 * A disk's flushes, as /proc/diskstats counts them (its 19th column, "flush
 * requests completed").  Only the flush machinery of blk-mq disks
 * (block/blk-flush.c, alike from Linux 5.5 to 6.18) counts them, as its own
 * REQ_OP_FLUSH request completes (flush_end_io(), blk_account_io_flush()).
 * It issues that request on a disk with a volatile write cache, one per
 * pre-flush or post-flush step, shared by all the requests waiting at that
 * step: a PREFLUSH|FUA write to a disk without FUA (a loop device) becomes a
 * pre-flush, the data and a post-flush.  Bio-based disks (zram, dm, md)
 * count none: a driver that accounts a flush bio counts a write.
 * block_rq_complete fires for the flush request on every kernel (it never
 * completes in a batch); block_io_done fires for it only when the queue
 * keeps blk-stat statistics.  Which process a flush served is not known
 * (several may share one): the count is the disk's.  Every other request's
 * completion costs the hook's call, a load and a compare.
 */
static __always_inline void count_device_flush(struct request *rq)
{
	static const __u64 zero;
	__u64 *flushes;
	__u32 dev;

	if ((rq->cmd_flags & DISKIO_REQ_OP_MASK) != DISKIO_REQ_OP_FLUSH)
		return;
	dev = request_dev(rq);
	if (!dev_selected(dev))
		return;
	flushes = lookup_or_try_init(&device_flushes, &dev, &zero);
	if (flushes)
		__sync_fetch_and_add(flushes, 1);
	else
		count_lost(LOST_STATS_MAP_FULL);
}

/* Every request's completion: flushes and the bios dm or md sent to the
 * disk (not in trace mode); and where block_io_done is not used
 * (done_at_rq_complete), the end of a request, which may complete in parts:
 * it is done when the last part completes. */
SEC("tp_btf/block_rq_complete")
int BPF_PROG(handle_rq_complete, struct request *rq, blk_status_t error, unsigned int nr_bytes)
{
	if (*(volatile __u64 *)&stacked_in_flight)
		forget_request_bios(rq);
	if (aggregate)
		count_device_flush(rq);
	/* A failed request: counted once, as it ends (a request that fails
	 * ends at once, all its bytes with the error).  The flush machinery's
	 * own requests were counted in no row: the disk's flushes. */
	if (aggregate && error && nr_bytes >= rq->__data_len &&
	    io_classify(rq->cmd_flags) < IO_NR_CLASSES)
		count_io_error(io_number(rq), request_dev(rq), error);
	if (done_at_rq_complete && nr_bytes >= rq->__data_len)
		request_done(ctx, rq);
	return 0;
}

/* Page cache dirtied, where the kernel charges it to the task's
 * /proc/PID/io write_bytes (folio_account_dirtied()). */
SEC("tp_btf/writeback_dirty_folio")
int BPF_PROG(handle_dirty_folio, struct folio *folio, struct address_space *mapping)
{
	struct task_struct *task = current_task();
	struct proc_dev_key key = {};
	struct row row;
	struct inode *host;
	bool selected;
	__u32 dev;

	/* The event class allows a NULL mapping (the verifier says so). */
	if (!mapping)
		return 0;
	host = untrusted(mapping, struct address_space)->host;
	if (!host || !inode_charged(host, &dev))
		return 0;
	/* A process writing a file dirties folio after folio: its row is
	 * remembered (task_rows.bpf.h). */
	selected = submitter_row(dev, true, &key, &row);
	if (!selected) {
		/* Not counted, but it may become the file's owner: its key. */
		task_row_id(task, &key.tgid);
		key.dev = dev;
		key.cgroup = task_cgroup_id(untrusted(task, struct task_struct));
		if (task_comm(task, key.comm))
			name_worker(task, key.comm);
	} else {
		__u64 bytes = folio_nr_pages(folio) << page_shift;

		if (row.stats)
			row_add(&row, &row.stats->dirtied_bytes, bytes);
		/* The write() caller's stack: its writeback's is the flusher's. */
		if (stacks_mode) {
			struct stack_key sk = {};
			struct stack_counts *counts = current_stack_counts(ctx, &key, &sk);

			if (counts)
				__sync_fetch_and_add(&counts->dirtied_bytes, bytes);
		}
	}
	if (charge_owner && (host->i_mode & S_IFMT) == S_IFREG && may_own(task, &key))
		remember_owner(host, task, &key, selected || current_cgroup_selected());
	return 0;
}

/*
 * --files (issue 35): programs of their own, loaded only with --files, so
 * that the default mode's programs stay what they were, instruction for
 * instruction.  Each finds again whose row an I/O goes to, as the counting
 * programs above do, and counts it for its file (files.bpf.h): bytes at
 * block_bio_queue, and the I/O where the rows count it (a bio-based disk's
 * bio there, a blk-mq disk's request where it starts).
 */
static __always_inline bool files_row(struct bio *bio, __u32 dev, __u32 class,
				      struct proc_dev_key *key)
{
	struct row_owner issuer;
	struct row_who who = {};
	bool on_behalf, counted;
	int relay;

	/* a stacked device's bio: its files are counted on the device above */
	if (stacked_row(io_number(bio), dev, key, &counted))
		return false;
	relay = relayed_submitter(bio, dev, key, &issuer);
	if (relay)
		return relay == RELAY_TAKEN;
	if (class == IO_WRITE)
		return write_charged_to(current_task(), bio, dev, key, &on_behalf, &who);
	return current_submitter(current_task(), key, dev);
}

SEC("tp_btf/block_bio_queue")
int BPF_PROG(files_bio_queue, struct bio *bio)
{
	struct gendisk *disk = bio_disk(bio);
	__u32 class = io_classify(bio->bi_opf);
	struct proc_dev_key key = {};

	if (class >= IO_DISCARD || !files_row(bio, disk_dev(disk), class, &key))
		return 0;
	count_file(ctx, bio, &key, cut_of_firing(bio, FIRING_BIO_QUEUE), class,
		   bio->bi_iter.bi_size, disk_is_bio_based(disk));
	return 0;
}

/* A blk-mq disk's request: one I/O, for the file of its first bio. */
static __always_inline void files_request(void *ctx, struct bio *bio, __u32 opf, __u32 dev)
{
	__u32 class = io_classify(opf);
	struct proc_dev_key key = {};

	if (!bio || class >= IO_DISCARD || !files_row(bio, dev, class, &key))
		return;
	count_file(ctx, bio, &key, cut_of_firing(bio, FIRING_REQUEST), class, 0, 1);
}

SEC("tp_btf/block_io_start")
int BPF_PROG(files_io_start, struct request *rq)
{
	files_request(ctx, untrusted(rq, struct request)->bio, rq->cmd_flags, request_dev(rq));
	return 0;
}

/* Before Linux 6.5, where handle_getrq or handle_rq_issue count requests. */
SEC("tp_btf/block_getrq")
int BPF_PROG(files_getrq, struct bio *bio)
{
	files_request(ctx, bio, bio->bi_opf, disk_dev(bio_disk(bio)));
	return 0;
}

SEC("tp_btf/block_rq_issue")
int BPF_PROG(files_rq_issue, struct request *rq)
{
	files_request(ctx, untrusted(rq, struct request)->bio, rq->cmd_flags, request_dev(rq));
	return 0;
}

/*
 * issue 47: a file is named when it is first dirtied, while its writer has
 * it open and so its dentry is there; its writeback may come after the
 * kernel dropped the dentries of closed files (memory pressure), when its
 * name can no longer be made.  Written back, it is known by then.
 */
SEC("tp_btf/writeback_dirty_folio")
int BPF_PROG(files_dirty_folio, struct folio *folio, struct address_space *mapping)
{
	struct inode *host = mapping ? untrusted(mapping, struct address_space)->host : NULL;
	struct file_id id;
	__u32 dev;

	/* a file whose writeback is counted (handle_dirty_folio's rule), on
	 * a disk -D selects (0: a filesystem on no single disk) */
	if (!host || (host->i_mode & S_IFMT) != S_IFREG || !inode_charged(host, &dev) ||
	    (dev && !dev_selected(dev)))
		return 0;
	id.ino = host->i_ino;
	id.fs_dev = host->i_sb->s_dev;
	id.generation = host->i_generation;
	name_file(ctx, host, NULL, &id);
	return 0;
}

/* issue 33: a process's command line at each exec, for its rows should it
 * be gone before user space reads /proc/PID/cmdline (procinfo.bpf.h). */
SEC("tp_btf/sched_process_exec")
int BPF_PROG(handle_exec, struct task_struct *task, pid_t old_pid, struct linux_binprm *bprm)
{
	remember_cmdline(untrusted(task, struct task_struct));
	return 0;
}

SEC("tp_btf/sched_process_exit")
int BPF_PROG(handle_exit, struct task_struct *task_arg, bool group_dead)
{
	struct task_struct *task = untrusted(task_arg, struct task_struct);
	__u32 code;

	note_exit_waits(task, task_arg);
	if (!group_dead)
		return 0;
	note_stack_process_exit(ctx, task);
	code = group_exit_status(task);
	if (is_crash_signal(code & 0x7f))
		report_crash(ctx, task, code);
	return 0;
}

/* Without group_dead, two threads exiting at once may both see signal->live
 * at zero; the first to claim the group (tgid and leader start time, which
 * survive pid reuse) reports it. */
SEC("tp_btf/sched_process_exit")
int BPF_PROG(handle_exit_legacy, struct task_struct *task_arg)
{
	struct task_struct *task = untrusted(task_arg, struct task_struct);
	struct crashed_group group = {};
	__u8 claimed = 1;
	__u32 code;

	note_exit_waits(task, task_arg);
	if (task->signal->live.counter != 0)
		return 0;
	note_stack_process_exit(ctx, task);
	code = group_exit_status(task);
	if (!is_crash_signal(code & 0x7f))
		return 0;
	group.tgid = task->tgid;
	group.start_time = task->group_leader->start_time;
	if (bpf_map_update_elem(&crashed_groups, &group, &claimed, BPF_NOEXIST))
		return 0;
	report_crash(ctx, task, code);
	return 0;
}

/* ---- IO> and SWAPIN (waits.bpf.h) ---- */

/* Every task's waits, once an interval: user space reads the iterator's
 * records (bpf_iter_create(), read()). */
SEC("iter/task")
int read_waits(struct bpf_iter__task *ctx)
{
	struct task_struct *task = ctx->task;
	struct task_waits w = {};

	if (task && task_waits_readable(untrusted(task, struct task_struct), task, &w))
		bpf_seq_write(ctx->meta->seq, &w, sizeof(w));
	return 0;
}

/* Delay accounting off: diskio measures blkio waits itself (loaded only
 * then: it runs at every context switch). */
SEC("tp_btf/sched_switch")
int BPF_PROG(handle_switch, bool preempt, struct task_struct *prev, struct task_struct *next,
	     unsigned int prev_state)
{
	switch_waits(preempt, prev, next, prev_state);
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
