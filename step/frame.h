/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What an interval and a run show: built by the tally (tally.h), shown by a
 * view (view.h).  Plain data: pointers into the tally.
 *
 * A frame's lifetime: everything its pointers reach (rows, names, devices,
 * crash events, rows' stacks) stays valid and unchanged from tally_frame()
 * until the tally's next tally_frame() or tally_summary(): through
 * tally_close_interval() and the loader's deletion of forgotten entries, so
 * a view may keep the struct (a copy of it: the caller's goes out of scope)
 * and draw it again between intervals, after a key or a resize.  Two
 * exceptions: names are the tally's for as long as it lives (its table only
 * grows), and crash is the tracker itself, which a crash event changes as
 * it arrives: what a view shows of it, it reads when the frame comes.
 */
#ifndef DISKIO_FRAME_H
#define DISKIO_FRAME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>
#include "crashfree.h"
#include "abi.h"
#include "iostats.h"
#include "pmem_metrics.h"
#include "resources.h"
#include "files.h"

struct frame {
	struct timespec wall;		/* end of the interval, CLOCK_REALTIME */
	double interval_s;
	/* The run ended within this interval (a signal, q): interval_s is the
	 * part it ran.  Set by the run, not the tally. */
	bool partial;
	bool cumulative;		/* -a: totals since start */
	bool per_process_latency;	/* -L */
	bool by_cgroup;			/* rows are per (cgroup, disk): no pid, no comm */
	bool per_thread;		/* -t: rows are threads (key.tgid is a TID) */
	struct proc_io *const *rows;	/* sorted; only rows with something to show */
	size_t nrows;
	const struct res_table *names;	/* of the rows' comm, device and cgroup */
	const struct pmem_metrics *devices;
	uint64_t lost[LOST_NR_CAUSES];	/* in this interval */
	uint64_t io_events;		/* trace mode: events received in this interval */
	const struct crashfree *crash;		/* live: see above */
	const struct crash_event *crash_events;	/* crashes seen in this interval */
	size_t ncrash_events;
	/* issue 33: the top view's `o` off (tally_set_all_processes()): the
	 * processes (threads with -t) /proc lists that have no row in rows,
	 * idle (no counts, no disk; proc_io.idle), as iotop lists them
	 * without --only.  Not sorted; only the top view shows them. */
	struct proc_io *const *idle_rows;
	size_t nidle_rows;
	/* IO> and SWAPIN (iowait.h): how blkio waits were measured (WAITS_NONE:
	 * not), whether the rows' waits of this interval are known (delay
	 * accounting on through it, for both or for SWAPIN), and the run's
	 * length, what -a's shares are of. */
	enum waits_source waits_source;
	bool iowait_known, swapin_known;
	double run_s;
	/* --files (issue 35): the interval's file rows, grouped by process
	 * row (files.h); files_on: asked for (nfiles may be 0). */
	bool files_on;
	const struct file_row *files;
	size_t nfiles;
	/* issue 45: /proc/pressure/io over the interval (-a: since start), in
	 * percent of it: some task, every task stalled; known false without
	 * PSI. */
	bool pressure_known;
	double pressure_some_pct, pressure_full_pct;
};

/*
 * A frame kept past the tally's next step: its rows (their latency and
 * stacks), devices and crash events copied into memory of its own.  names
 * and crash still point into the tally, which keeps them for its life.
 * The top view keeps the frame drawn when `p` pauses it.
 */
struct kept_frame {
	struct frame frame;		/* pointing into the members below */
	struct proc_io *rows, **row_ptrs;	/* the rows, then the idle rows */
	size_t rows_capacity, row_ptrs_capacity;
	char *cmdlines;			/* the rows' command lines, one after another */
	size_t cmdlines_capacity;
	struct row_latency *latency;
	size_t latency_capacity;
	struct row_stack *stacks, **stack_ptrs;
	size_t stacks_capacity, stack_ptrs_capacity;
	struct pmem_metrics devices;
	struct crash_event *crash_events;
	size_t crash_events_capacity;
};

/* Copy f into k, reusing k's memory (f must not be k->frame).  0, or
 * -ENOMEM with k->frame unchanged. */
int frame_keep(struct kept_frame *k, const struct frame *f);
void frame_kept_free(struct kept_frame *k);

/* At exit: the run's totals. */
struct summary {
	struct timespec wall;
	double duration_s;
	uint64_t lost[LOST_NR_CAUSES];
	bool has_io_events;		/* trace mode */
	uint64_t io_events;
	const struct pmem_metrics *devices;	/* totals since start; NULL in trace mode */
	const struct crashfree *crash;
	/* --record: the gaps of frames the run could not write (a full
	 * disk), marked in the record */
	bool recording;
	uint64_t record_gaps;
};

/* Names of the causes, as the output shows them (lost_<name>, by_cause). */
extern const char *const lost_cause_names[LOST_NR_CAUSES];
/* The order causes are shown in: a cause added later comes last, so that
 * no field of the "#" lines moves. */
extern const enum lost_cause lost_shown[LOST_NR_CAUSES];

uint64_t lost_total(const uint64_t lost[LOST_NR_CAUSES]);

/* IO> (swapin false) or SWAPIN of a row, in percent of the interval, or
 * with cumulative of the run; false when the frame does not know it. */
bool frame_wait_pct(const struct frame *f, const struct proc_io *row, bool cumulative,
		    bool swapin, double *pct);

#endif /* DISKIO_FRAME_H */
