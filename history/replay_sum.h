/* SPDX-License-Identifier: GPL-2.0 */
/*
 * --replay -a: the totals over the window, as the live run's -a keeps them
 * since its start: every row seen in the window (by its key) with its
 * counters and latency summed, every device with its counters, histograms
 * and /proc/diskstats changes summed (so its iostat figures are the
 * window's).  Pure.
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

#endif /* DISKIO_REPLAY_SUM_H */
