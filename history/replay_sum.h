/* SPDX-License-Identifier: GPL-2.0 */
/*
 * --replay -a: the totals over the window, as the live run's -a keeps them
 * since its start: every row seen in the window (by its key) with its
 * counters and latency summed, every device with its counters, histograms
 * and /proc/diskstats changes summed (so its iostat figures are the
 * window's), every --files line summed (stacks are not); and the summary a
 * replay ends with (replay_totals).  Pure.
 */
#ifndef DISKIO_REPLAY_SUM_H
#define DISKIO_REPLAY_SUM_H

#include <stddef.h>
#include <stdint.h>
#include "frame.h"

struct replay_sum {
	struct pmem_metrics devices;
	struct proc_io *rows;		/* owning their command line and latency */
	size_t nrows, rows_cap;
	struct proc_io **shown;
	size_t shown_cap;
	uint32_t *index;		/* open addressing: row + 1, 0 empty */
	size_t index_size;
	double run_s;			/* the window's frames' length so far: what
					 * -a's IO> and SWAPIN are shares of */
	/* --files: every file line of the window (by its key), its path its
	 * own, its counts summed */
	struct file_row *files;
	size_t nfiles, files_cap;
	bool files_on;
};

int replay_sum_init(struct replay_sum *s);
void replay_sum_free(struct replay_sum *s);
/* Frame f (a replayed one: its memory the reader's) added to the sums and
 * turned into the window's totals: its devices' totals and iostat[1] the
 * window's, its rows every row of the window with something in it, sorted
 * by sort, its file lines every line of the window, grouped by row, most
 * bytes first.  A file line of a frame of totals (the run's -a) holds the
 * run's totals already: it replaces the line's sum.  Call it before f is
 * marked cumulative.  0, or -ENOMEM (f as it was or partly summed). */
int replay_sum_add(struct replay_sum *s, struct frame *f, enum sort_key sort);

/*
 * The summary a replay ends with (batch and JSON, as the live run's): of
 * the window's frames, their intervals' length, losses and devices'
 * changes summed, and the crash counts as the last frame showed them (the
 * run's running totals).
 */
struct replay_totals {
	size_t frames;
	struct timespec wall;		/* the last frame's */
	double duration_s;
	uint64_t lost[LOST_NR_CAUSES];
	struct pmem_metrics devices;	/* totals: the window's */
	struct crashfree crash;
};

void replay_totals_init(struct replay_totals *t);
void replay_totals_free(struct replay_totals *t);
/* Frame f (as recorded: before -a's sums) added.  0, or -ENOMEM. */
int replay_totals_add(struct replay_totals *t, const struct frame *f);
/* The summary of t (pointing into it).  false: no frame was added. */
bool replay_totals_summary(const struct replay_totals *t, struct summary *s);

#endif /* DISKIO_REPLAY_SUM_H */
