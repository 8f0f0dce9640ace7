/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A disk's latency histogram (device_latency), and the default mode's
 * sampled latency of bio-based disks (abi.h, latency_sampled()).  A
 * blk-mq request carries its start time to its completion (request_done());
 * a bio of a bio-based disk does only where the kernel stamps it
 * (bio_issue_ns()).  Otherwise 1 in latency_sample_every of those bios is
 * timed here, in a slot of latency_samples from its submission to its
 * completion.  With -L, -T or a process filter every I/O is timed instead,
 * per row, through the in-flight table (inflight.bpf.h).
 */

#ifndef DISKIO_LATENCY_BPF_H
#define DISKIO_LATENCY_BPF_H

#include <vmlinux.h>
#include <bpf/bpf_helpers.h>
#include "abi.h"
#include "core_fixes.bpf.h"
#include "settings.bpf.h"
#include "common.bpf.h"

/* Each disk's latency: sums and histograms per class of I/O. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, DEVICE_LATENCY_ENTRIES);
	__type(key, __u32);
	__type(value, struct dev_latency);
} device_latency SEC(".maps");

/* The sampled bios of bio-based disks in flight (sample_bio_start()), each
 * in the slot its number hashes to: one entry without sampling. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, LATENCY_SAMPLE_SLOTS);
	__type(key, __u32);
	__type(value, struct latency_sample);
} latency_samples SEC(".maps");

/* A sample's slot is taken over when the bio in it was submitted this long
 * ago: its completion was not seen (the kernel skipped the hook), or it is
 * so slow that losing its sample does not matter. */
#define LATENCY_SAMPLE_STALE_NS	(30ULL * 1000000000ULL)

/* A completion of class: its latency summed and in the histogram of map's
 * entry key (a disk's or a row's), which is returned.  The I/O itself is
 * counted in its row: a full map (NULL) loses the sample only, which user
 * space sees as a histogram short of the row's or disk's completions (then
 * no percentiles). */
static __always_inline struct dev_latency *add_latency(void *map, const void *key, __u32 class,
						       __u64 latency_ns)
{
	static const struct dev_latency zero;
	struct dev_latency *entry;

	if (class >= IO_NR_CLASSES)
		return NULL;
	entry = lookup_or_try_init(map, key, &zero);
	if (!entry)
		return NULL;
	__sync_fetch_and_add(&entry->latency_ns[class], latency_ns);
	__sync_fetch_and_add(&entry->ios[class], 1);
	__sync_fetch_and_add(&entry->slots[class][latency_slot(latency_ns)], 1);
	return entry;
}

static __always_inline __u64 elapsed_since(__u64 now, __u64 start, __u64 mask)
{
	if (!start)
		return 0;
	now &= mask;
	return now > start ? now - start : 0;
}

/* A chosen bio had no free slot: the sample is smaller, the I/O itself was
 * counted.  Counted in the disk's latency entry (rare: not the hot path). */
static __always_inline void sample_dropped(__u32 dev)
{
	static const struct dev_latency zero;
	struct dev_latency *entry = lookup_or_try_init(&device_latency, &dev, &zero);

	if (entry)
		__sync_fetch_and_add(&entry->samples_dropped, 1);
}

/*
 * A bio of a bio-based disk is submitted (default mode): if it is one of
 * the 1 in latency_sample_every chosen, its submission time goes to its
 * slot.  A bio the kernel stamps itself is measured exactly at completion
 * instead.  An unchosen bio clears its slot if it holds this bio's number:
 * left there by an earlier I/O of the same bio whose completion was not
 * seen, it must not time this one.
 */
static __always_inline void sample_bio_start(struct bio *bio, __u32 dev, __u32 class)
{
	__u64 id, owner, now, stamp_mask;
	struct latency_sample *slot;
	__u32 index;

	if (!latency_sample_cutoff || class >= IO_NR_CLASSES)
		return;
	id = io_number(bio);
	index = latency_sample_slot(id);
	slot = bpf_map_lookup_elem(&latency_samples, &index);
	if (!slot)
		return;
	if (!latency_sampled(id, bio->bi_iter.bi_sector, latency_sample_cutoff) ||
	    !inflight_armed || bio_issue_ns(bio, &stamp_mask)) {
		if (slot->bio == id)
			__sync_val_compare_and_swap(&slot->bio, id, 0);
		return;
	}
	now = bpf_ktime_get_ns();
	owner = slot->bio;
	if ((owner && owner != id && now - slot->start_ns < LATENCY_SAMPLE_STALE_NS) ||
	    __sync_val_compare_and_swap(&slot->bio, owner, id) != owner) {
		sample_dropped(dev);
		return;
	}
	slot->start_ns = now;
}

/*
 * A bio completes (default mode): if its number is in its slot, it was
 * chosen, and its latency goes to its disk's histogram.  true when nothing
 * more is to be done with the bio: the kernel stamps no bio (the only other
 * use of the hook, I/Os not being tracked).  An unchosen bio costs a hash
 * and one load; its disk is not even looked at.
 */
static __always_inline bool sample_bio_done(struct bio *bio)
{
	struct latency_sample *slot;
	struct dev_latency *entry;
	__u64 id, start_ns;
	__u32 index, dev;

	if (!latency_sample_cutoff)
		return false;
	id = io_number(bio);
	index = latency_sample_slot(id);
	slot = bpf_map_lookup_elem(&latency_samples, &index);
	if (!slot || slot->bio != id)
		return !bio_stamps_seen;
	start_ns = slot->start_ns;
	/* Freed only after reading the start (a full barrier); lost to a
	 * submission that took the slot over meanwhile. */
	if (__sync_val_compare_and_swap(&slot->bio, id, 0) != id)
		return !bio_stamps_seen;
	/* Only bios of selected bio-based disks are chosen. */
	dev = disk_dev(bio_disk(bio));
	entry = add_latency(&device_latency, &dev, io_classify(bio->bi_opf),
			    elapsed_since(bpf_ktime_get_ns(), start_ns, ~0ULL));
	if (entry)
		entry->sample_every = latency_sample_every;
	return true;
}

#endif /* DISKIO_LATENCY_BPF_H */
