/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The in-flight table: with -L, -T or a process filter (track_inflight),
 * each I/O is remembered from its start to its completion with the row it
 * is charged to.  Its latency then goes to that row's histogram, and a
 * disk's latency is the sum of its rows', so that a process filter filters
 * it too; -T reports each I/O as one event at its completion.
 */

#ifndef DISKIO_INFLIGHT_BPF_H
#define DISKIO_INFLIGHT_BPF_H

#include <vmlinux.h>
#include <bpf/bpf_helpers.h>
#include "abi.h"
#include "core_fixes.bpf.h"
#include "settings.bpf.h"
#include "common.bpf.h"
#include "rows.bpf.h"
#include "latency.bpf.h"

/* Tracked I/Os (-L, -T, -p, -c, --cgroup): each row's latency, whose sums
 * are its disk's.  Not per CPU: 1 KiB a row. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, ROW_LATENCY_ENTRIES);
	__type(key, struct proc_dev_key);
	__type(value, struct dev_latency);
} row_latency SEC(".maps");

/*
 * I/Os in flight (-L, -T, -p, -c), keyed by the address of their struct
 * request or struct bio: a table of buckets in an array, each bucket the ids
 * of INFLIGHT_WAYS I/Os in one cache line (inflight_ids), claimed with
 * compare-and-exchange, and what is remembered of each I/O beside it
 * (inflight, at bucket * INFLIGHT_WAYS + way).  A hash map costs a locked
 * insert and a locked delete per I/O (~400 ns here); a way costs two atomic
 * instructions, and looking an id up reads one cache line.
 */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, INFLIGHT_BUCKETS);
	__type(key, __u32);
	__type(value, struct inflight_bucket);
} inflight_ids SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, INFLIGHT_SLOTS);
	__type(key, __u32);
	__type(value, struct inflight);
} inflight SEC(".maps");

/* An I/O in the in-flight table: its way in its bucket, and its record. */
struct inflight_ref {
	__u64 *id;		/* the way: the I/O's id while it is in flight, then 0 */
	struct inflight *io;
};

_Static_assert(INFLIGHT_BUCKETS == 1 << 11, "the hash takes 11 bits: one per bucket number bit");

static __always_inline __u32 io_flags(__u32 opf)
{
	__u32 flags = 0;

	if (opf & REQ_FLAG(PREFLUSH))
		flags |= IO_FLAG_PREFLUSH;
	if (opf & REQ_FLAG(FUA))
		flags |= IO_FLAG_FUA;
	if (opf & REQ_FLAG(RAHEAD))
		flags |= IO_FLAG_RAHEAD;
	if (opf & REQ_FLAG(SYNC))
		flags |= IO_FLAG_SYNC;
	if (opf & REQ_FLAG(META))
		flags |= IO_FLAG_META;
	return flags;
}

static __always_inline void emit_io_event(void *ctx, const struct inflight *io, __u32 dev,
					  __u64 now, __u64 latency_ns)
{
	struct block_io_event event = {
		.type = EVENT_IO,
		.tgid = io->who.tgid,
		.time_ns = now,
		.latency_ns = latency_ns,
		.sector = io->sector,
		.bytes = io->bytes,
		.dev = dev,
		.op = io->op,
		.flags = io->flags,
	};

	__builtin_memcpy(event.comm, io->who.comm, sizeof(event.comm));
	emit_event(ctx, &event, sizeof(event));
}

static __always_inline struct inflight_bucket *inflight_bucket_of(__u64 id, __u32 *index)
{
	/* Fibonacci hashing of the address; its low bits are alignment. */
	*index = (__u32)(((id >> 6) * 0x9E3779B97F4A7C15ULL) >> (64 - 11)) & (INFLIGHT_BUCKETS - 1);
	return bpf_map_lookup_elem(&inflight_ids, index);
}

/* ref to way of bucket number index; false if the map has no such slot. */
static __always_inline bool inflight_ref_to(struct inflight_bucket *bucket, __u32 index,
					    int way, struct inflight_ref *ref)
{
	__u32 slot;

	if (way < 0 || way >= INFLIGHT_WAYS)
		return false;
	slot = index * INFLIGHT_WAYS + way;
	ref->io = bpf_map_lookup_elem(&inflight, &slot);
	ref->id = &bucket->id[way];
	return ref->io != NULL;
}

/* The I/O id, if it is in the table. */
static __always_inline bool inflight_find(__u64 id, struct inflight_ref *ref)
{
	__u32 index;
	struct inflight_bucket *bucket = inflight_bucket_of(id, &index);
	int way = -1;

	if (!bucket)
		return false;
#pragma unroll
	for (int w = 0; w < INFLIGHT_WAYS; w++) {
		if (bucket->id[w] == id) {
			way = w;
			break;
		}
	}
	return inflight_ref_to(bucket, index, way, ref);
}

/* A free way of id's bucket, now owned by id; false when all are taken. */
static __always_inline bool inflight_claim(__u64 id, struct inflight_ref *ref)
{
	__u32 index;
	struct inflight_bucket *bucket = inflight_bucket_of(id, &index);
	int way = -1;

	if (!bucket)
		return false;
#pragma unroll
	for (int w = 0; w < INFLIGHT_WAYS; w++) {
		if (!bucket->id[w] && __sync_val_compare_and_swap(&bucket->id[w], 0, id) == 0) {
			way = w;
			break;
		}
	}
	if (inflight_ref_to(bucket, index, way, ref))
		return true;
	if (way >= 0)		/* never: the two maps have the same number of slots */
		__sync_val_compare_and_swap(&bucket->id[way & (INFLIGHT_WAYS - 1)], id, 0);
	return false;
}

/* A tracked I/O finished: latency of its row, and the trace event (-T). */
static __always_inline void complete_tracked(void *ctx, __u64 id, __u32 dev, __u64 now,
					     __u64 start_ns)
{
	struct inflight_ref ref;
	struct row row;
	struct inflight *io;
	__u64 latency_ns;

	if (!inflight_find(id, &ref))
		return;
	io = ref.io;
	if (!start_ns)
		start_ns = io->start_ns;
	latency_ns = elapsed_since(now, start_ns, ~0ULL);
	/* Every tracked I/O belongs to a row: its latency goes to the row's
	 * histogram, and user space sums the rows of a disk for the disk's.
	 * Only when the histograms' map is full does it go to the row's own
	 * sums (a loss counts at submission).  The row was made at submission
	 * (whose it is, with it); one forgotten since is made again here, in
	 * whatever task completes it: it says whose it is no more. */
	if (aggregate && !add_latency(&row_latency, &io->who, io_classify(io->op), latency_ns) &&
	    row_of(&io->who, false, (struct row_who){}, &row)) {
		row_add(&row, &row.stats->latency_ns, latency_ns);
		row_add(&row, &row.stats->latency_ios, 1);
	}
	if (trace_events)
		emit_io_event(ctx, io, dev, now, latency_ns);
	/* Free the way only after reading the record (a full barrier). */
	__sync_val_compare_and_swap(ref.id, id, 0);
}

/*
 * An entry still there when its request or bio is used again means that I/O
 * completed while the completion hook did not run: under load the kernel
 * occasionally skips BPF programs at block_io_done (seen on loop devices on
 * 6.18, for bpftrace too, with no recursion miss reported).  Count it, so
 * that events received plus lost still equal the I/Os completed.  A request
 * that block_rq_issue sees again was requeued, not lost.
 */
static __always_inline void remember_inflight(__u64 id, const struct proc_dev_key *who,
					      __u64 start_ns, __u64 sector, __u32 bytes,
					      __u32 opf)
{
	struct inflight_ref ref;

	if (!inflight_armed)
		return;
	if (inflight_find(id, &ref)) {
		if (!rq_fallback_hooks)
			count_lost(LOST_COMPLETION_UNSEEN);
	} else if (!inflight_claim(id, &ref)) {
		count_lost(LOST_INFLIGHT_FULL);
		return;
	}
	ref.io->who = *who;
	ref.io->start_ns = start_ns;
	ref.io->sector = sector;
	ref.io->bytes = bytes;
	ref.io->op = opf & DISKIO_REQ_OP_MASK;
	ref.io->flags = io_flags(opf);
}

#endif /* DISKIO_INFLIGHT_BPF_H */
