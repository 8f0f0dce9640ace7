/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Issue 45: failed I/Os, counted where an I/O completes, in the row it was
 * counted in when it started: the process that issued it (the dirtier for
 * writeback), on its disk, by kind (enum io_error_kind).
 *
 * Where an I/O is counted (block_bio_queue for a bio-based disk's bio,
 * block_io_start for a blk-mq disk's request), its row's slot is written to
 * io_owners by the I/O's cache line in memory: one store, no lookup of a
 * hash map, so that the I/Os that succeed (nearly all) pay little; nothing
 * is cleared at their completion.  A failed I/O's completion finds its row
 * there if no later I/O took the slot meanwhile: one whose bio or request
 * lies a multiple of 4 MiB away in memory (65,536 slots of a cache line;
 * fewer where the maps' budget has no room, on hundreds of CPUs).  Else,
 * with no process filter on, its error is lost as error_unattributed,
 * never charged to another.
 * The errors go to row_errors, by the row's slot: the per-CPU rows do not
 * grow.  A disk's errors are the sum of its rows', as its bytes are.
 */

#ifndef DISKIO_ERRORS_BPF_H
#define DISKIO_ERRORS_BPF_H

#include <vmlinux.h>
#include <bpf/bpf_helpers.h>
#include "abi.h"
#include "settings.bpf.h"
#include "common.bpf.h"
#include "submitter.bpf.h"
#include "rows.bpf.h"

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, IO_OWNER_SLOTS);
	__type(key, __u32);
	__type(value, struct io_owner);
} io_owners SEC(".maps");

/* Each row slot's failed I/Os (as many entries as `rows`). */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, STATS_MAX_ENTRIES);
	__type(key, __u32);
	__type(value, struct row_errors);
} row_errors SEC(".maps");

/* io_owners' size less one (a power of two), set by the loader. */
const volatile __u32 io_owner_mask = IO_OWNER_SLOTS - 1;

/* An I/O's number is its bio's or request's place in memory: by its cache
 * line, the bios the slab hands out again and again, and a queue's
 * requests (allocated together), keep slots of their own, whose lines stay
 * in the cache (a multiplicative hash cost each I/O a miss: ~40 ns). */
static __always_inline __u32 io_owner_slot(__u64 io)
{
	return (__u32)(io >> 6) & io_owner_mask;
}

/* The I/O io was counted in row: where its error goes.  A shared row (no
 * slot of its own, the per-CPU rows being full) is not kept. */
static __always_inline void note_io_owner(__u64 io, const struct row *row)
{
	__u32 slot = io_owner_slot(io);
	struct io_owner *owner = bpf_map_lookup_elem(&io_owners, &slot);

	if (!owner)
		return;
	/* A shared row has no slot (row->at is not set: Linux 6.1's verifier
	 * refuses the read of it).  Member by member: a struct copy may be
	 * made of byte loads, which the verifier refuses from a spilled
	 * register. */
	if (row->shared) {
		owner->io = 0;
		owner->at.slot = 0;
		owner->at.gen = 0;
		return;
	}
	owner->io = io;
	owner->at.slot = row->at.slot;
	owner->at.gen = row->at.gen;
}

/* blk_status_t -> enum io_error_kind (see abi.h). */
static __always_inline __u32 io_error_kind(__u32 status)
{
	switch (status) {
	case 10: return IO_ERR_EIO;
	case 3: return IO_ERR_ENOSPC;
	case 2: return IO_ERR_ETIMEDOUT;
	case 1: return IO_ERR_EOPNOTSUPP;
	case 7: return IO_ERR_ENODATA;
	case 4: return IO_ERR_ENOLINK;
	case 5: return IO_ERR_EREMOTEIO;
	default: return IO_ERR_OTHER;
	}
}

/* The I/O io of disk dev failed with status: one error in the row it was
 * counted in, if its slot is still that row's (its generation). */
static __always_inline void count_io_error(__u64 io, __u32 dev, __u32 status)
{
	__u32 slot = io_owner_slot(io), kind = io_error_kind(status), row_slot;
	struct io_owner *owner;
	struct row_errors *errors;
	__u64 *gen, at_gen;

	if (!dev_selected(dev))
		return;
	owner = bpf_map_lookup_elem(&io_owners, &slot);
	if (!owner)
		return;
	row_slot = owner->at.slot;
	at_gen = owner->at.gen;
	gen = bpf_map_lookup_elem(&row_gens, &row_slot);
	errors = bpf_map_lookup_elem(&row_errors, &row_slot);
	if (owner->io == io && gen && *(volatile __u64 *)gen == at_gen && errors) {
		__sync_fetch_and_add(&errors->errors[kind & (IO_ERROR_KINDS - 1)], 1);
		return;
	}
	/* With a process filter on, an I/O no row counted is not ours. */
	if (!process_filters())
		count_lost(LOST_ERROR_UNATTRIBUTED);
}

#endif /* DISKIO_ERRORS_BPF_H */
