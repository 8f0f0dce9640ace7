/* SPDX-License-Identifier: GPL-2.0 */
/* The BPF maps copied into plain snapshots (snapshot.h). */
#ifndef DISKIO_MAPS_H
#define DISKIO_MAPS_H

#include <stdint.h>
#include "snapshot.h"

typedef int (*map_entry_fn)(const void *key, const void *value, void *arg);

/*
 * fn(key, value, arg) for every entry of the map fd, until fn returns
 * non-zero (which is returned): read in batches where the kernel can
 * (bpf_map_lookup_batch), else key by key.  value_size is what one lookup
 * returns (per-CPU maps: one value per possible CPU).  0 or -errno.
 */
int map_for_each(int fd, uint32_t key_size, uint32_t value_size, map_entry_fn fn, void *arg);

/* File descriptors of the maps a snapshot reads; -1: not read in this mode. */
/* Slots of the rows' counters (struct row_slot) taken back from forgotten
 * rows, given back to the kernel (zeroed) at the next snapshot_forget():
 * a program that found a slot just before it was taken back may still add
 * to it meanwhile.  The loader owns it. */
struct retired_slots {
	uint32_t *slots;
	size_t n, capacity;
};

/* --files' counts (files.bpf.h): file_counts (outer) holds counts[0] for
 * the rows' even cuts, counts[1] for the odd; cut points at the programs'
 * rows_cut (the skeleton's .bss, shared with them).  A snapshot moves the
 * cut, reads the rows as they were at it, and drains the old cut's map. */
struct file_count_maps {
	int outer, counts[2];
	volatile __u64 *cut;
};

struct snapshot_maps {
	int lost, crash_counts;
	/* The rows: key -> slot (row_index), the slots' per-CPU counters
	 * (rows), their generations (row_gens), the slots given back
	 * (free_rows); rows.bpf.h's slot_row(). */
	int row_index, rows, row_gens, free_rows;
	uint32_t row_value_bytes;	/* a slot's counters on a CPU (mapsize.h) */
	struct retired_slots *retired;
	int overflow_stats, device_latency, row_latency, inflight_ids;
	int device_flushes;
	int row_errors;		/* issue 45: with row_index; -1: none */
	int stack_counts, stack_traces;		/* --stacks */
	struct file_count_maps *files;		/* --files; NULL without */
	/* --stacks: ids whose frames were given in an earlier snapshot (one
	 * byte each, ids below nstack_ids); set here as they are read. */
	uint8_t *stack_ids_read;
	uint32_t nstack_ids;
};

/* s := the maps as they are now (s's arrays are reused): one row per key,
 * the per-CPU and the overflow map's counts added.  0 or -errno. */
int snapshot_read(struct snapshot *s, const struct snapshot_maps *maps, int nr_cpus);

/* Delete the kernel entries of keys[0..n) (tally_close_interval()'s
 * forgotten rows) from the rows' maps, keeping in s->final_rows and
 * s->final_row_latency what they held as they were deleted (s's other
 * arrays untouched), for the next tally_frame().  0 or -errno. */
int snapshot_forget(struct snapshot *s, const struct snapshot_maps *maps,
		    const struct proc_dev_key *keys, size_t n, int nr_cpus);

/* The same for --stacks' stack_counts entries of forgotten rows, into
 * s->final_stacks.  0 or -errno. */
int snapshot_forget_stacks(struct snapshot *s, const struct snapshot_maps *maps,
			   const struct stack_key *keys, size_t n);

/* IO> and SWAPIN: r := the records of a new task iterator of the link
 * link_fd, read to its end, then the entries of the exited_waits map
 * exited_fd, each deleted once read (r's array is reused).  0 or -errno. */
int waits_read(int link_fd, int exited_fd, struct waits_reading *r);

/* Delete the owners map's entries last dirtied before before_ns
 * (CLOCK_MONOTONIC).  0 or -errno. */
int owners_forget_older(int fd, uint64_t before_ns);

#endif /* DISKIO_MAPS_H */
