/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A snapshot: what the loader copies out of the BPF maps each interval,
 * as plain arrays of running totals, for the tally to turn into a frame;
 * and the keys the tally forgot, for the loader to delete.  The loader
 * (kernel/) and the tally meet here, so that neither includes the other.
 */
#ifndef DISKIO_SNAPSHOT_H
#define DISKIO_SNAPSHOT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "abi.h"

struct snapshot_row {
	struct proc_dev_key key;
	struct proc_dev_stats stats;	/* summed over CPUs */
	struct row_errors errors;	/* its failed I/Os (issue 45) */
	struct row_owner owner;		/* whose row it is (issue 33); flags 0: not known */
};

struct snapshot_latency {
	__u32 dev;
	struct dev_latency latency;
};

/* A disk's flush requests completed, as /proc/diskstats counts them. */
struct snapshot_flushes {
	__u32 dev;
	__u64 flushes;
};

/* A row's latency per operation (tracked I/Os). */
struct snapshot_row_latency {
	struct proc_dev_key key;
	struct dev_latency latency;
};

struct snapshot_crashes {
	char comm[TASK_COMM_LEN];
	__u64 count;
};

/* --stacks: an entry of the kernel's stack_counts. */
struct snapshot_stack {
	struct stack_key key;
	struct stack_counts counts;
};

/* --stacks: the frames of a stack id not given before (ids name one stack
 * for the whole run), innermost first. */
struct snapshot_trace {
	uint32_t id;
	uint32_t nframes;
	uint64_t frames[STACK_MAX_FRAMES];
};

/* --files: a (row, file)'s counts since the last snapshot (the kernel's
 * map of the interval, drained: files.bpf.h). */
struct snapshot_file {
	struct file_key key;
	struct file_counts counts;
};

/* IO> and SWAPIN: every task's waits as one reading found them (iowait.h):
 * the task iterator's records, then those of tasks that exited since the
 * reading before (TASK_WAITS_EXITED). */
struct waits_reading {
	struct task_waits *tasks;
	size_t n, capacity;
	bool delayacct_on;		/* kernel.task_delayacct when they were read */
	bool taken;			/* read at all */
};

/* Every number is a running total since the programs were loaded. */
struct snapshot {
	struct snapshot_row *rows;
	size_t nrows, rows_capacity;
	struct snapshot_latency *latency;
	size_t nlatency, latency_capacity;
	struct snapshot_flushes *flushes;	/* per disk */
	size_t nflushes, flushes_capacity;
	struct snapshot_row_latency *row_latency;	/* read after rows */
	size_t nrow_latency, row_latency_capacity;
	struct snapshot_crashes *crashes;
	size_t ncrashes, crashes_capacity;
	struct snapshot_stack *stacks;		/* --stacks */
	size_t nstacks, stacks_capacity;
	struct snapshot_trace *traces;		/* --stacks: ids new in this snapshot */
	size_t ntraces, traces_capacity;
	struct snapshot_file *files;		/* --files */
	size_t nfiles, files_capacity;
	uint64_t lost[LOST_NR_CAUSES];	/* summed over CPUs */
	uint64_t perf_lost_records;	/* sum of the perf buffer's PERF_RECORD_LOST */
	uint64_t unfinished;		/* tracked I/Os still in flight (read at exit) */
	/* Kernel entries of forgotten rows (tally_close_interval()'s
	 * t->forget), as they were when the loader deleted them: what they
	 * gained after the last snapshot is counted in the next frame. */
	struct snapshot_row *final_rows;
	size_t nfinal_rows, final_rows_capacity;
	struct snapshot_row_latency *final_row_latency;
	size_t nfinal_row_latency, final_row_latency_capacity;
	struct snapshot_stack *final_stacks;	/* of tally_close_interval()'s forget_stacks */
	size_t nfinal_stacks, final_stacks_capacity;
	/* IO> and SWAPIN: how blkio waits are measured (WAITS_NONE: not), the
	 * reading with this snapshot and, in the first snapshot only, the one
	 * taken as the programs were attached (the totals before diskio). */
	enum waits_source waits_source;
	struct waits_reading waits, start_waits;
};

void snapshot_free(struct snapshot *s);

/* The kernel entries of rows and stacks the tally forgot, for the loader to
 * delete (tally_forgotten_keys()). */
struct forgotten_keys {
	const struct proc_dev_key *rows;
	size_t nrows;
	const struct stack_key *stacks;
	size_t nstacks;
};

#endif /* DISKIO_SNAPSHOT_H */
