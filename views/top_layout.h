/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The top view's tables: their columns, in the order they are shown, and
 * which of them fit a terminal's width.  Columns are taken in priority order
 * while they fit and dropped from the least needed up (doc/outputs.md, "Top
 * view").  Pure: no terminal, no output.
 */
#ifndef DISKIO_TOP_LAYOUT_H
#define DISKIO_TOP_LAYOUT_H

#include <stdbool.h>
#include <stddef.h>

/* The process table, in the order it shows them: iotop's (TID PRIO USER
 * ... COMMAND), the command last, where it takes the rest of the line. */
enum top_proc_column {
	TOP_COL_PID,
	/* issue 33: USER and PRIO (COMMAND is last), who waits */
	TOP_COL_PRIO,
	TOP_COL_USER,
	TOP_COL_SWAPIN,		/* share of the interval swapping in (delay accounting) */
	TOP_COL_IOWAIT,		/* IO>: share of the interval waiting for block I/O */
	TOP_COL_DEVICE,
	TOP_COL_READ,
	TOP_COL_WRITE,
	TOP_COL_DISCARD,
	TOP_COL_ERRORS,		/* issue 45: failed I/Os, shown when a row has some */
	TOP_COL_READ_IOPS,
	TOP_COL_WRITE_IOPS,
	TOP_COL_DISCARD_IOPS,
	TOP_COL_LATENCY,	/* average, with -L */
	TOP_COL_DIRTY,
	TOP_COL_CGROUP,
	/* issue 33: the comm, or with c the whole command line (was COMM, second) */
	TOP_COL_COMMAND,
	TOP_NR_PROC_COLUMNS
};

/* The device table, in the order it shows them. */
enum top_dev_column {
	TOP_DEV_NAME,
	TOP_DEV_READ,
	TOP_DEV_WRITE,
	TOP_DEV_DISCARD,
	TOP_DEV_ERRORS,		/* issue 45: failed I/Os, shown when a disk has some */
	TOP_DEV_READ_IOPS,
	TOP_DEV_WRITE_IOPS,
	TOP_DEV_DISCARD_IOPS,
	TOP_DEV_AVG,
	TOP_DEV_P99,
	TOP_DEV_R_AWAIT,	/* iostat -x's, from /proc/diskstats */
	TOP_DEV_W_AWAIT,
	TOP_DEV_AQU_SZ,
	TOP_DEV_UTIL,
	TOP_NR_DEV_COLUMNS
};

/* The wider of the two tables. */
#define TOP_MAX_COLUMNS ((int)TOP_NR_PROC_COLUMNS > (int)TOP_NR_DEV_COLUMNS ? \
			 (int)TOP_NR_PROC_COLUMNS : (int)TOP_NR_DEV_COLUMNS)

struct top_column {
	const char *heading;		/* per-interval rates */
	const char *total_heading;	/* -a, a: totals since start */
	unsigned int width;		/* the least it takes */
	bool left;			/* left-aligned (names) */
	/* the last one shown takes the rest of the line: COMMAND, else (--by
	 * cgroup) CGROUP */
	bool stretch;
	bool wide_first;		/* taken first, at least a third of the line (a path) */
};

extern const struct top_column top_proc_columns[TOP_NR_PROC_COLUMNS];
extern const struct top_column top_dev_columns[TOP_NR_DEV_COLUMNS];

/* One step of a priority order: a column, or a read column and its write
 * twin, taken together or not at all, so that a narrow terminal never shows
 * the reads of something without its writes or the other way round. */
struct top_step {
	int column;
	int twin;		/* -1: the column alone */
};

/* Most needed first: what stays on a narrow terminal (doc/outputs.md,
 * "Columns by width"). */
#define TOP_PROC_STEPS 15
#define TOP_DEV_STEPS 11
extern const struct top_step top_proc_priority[TOP_PROC_STEPS];
extern const struct top_step top_dev_priority[TOP_DEV_STEPS];

struct top_layout {
	bool shown[TOP_MAX_COLUMNS];
	unsigned int width[TOP_MAX_COLUMNS];
	unsigned int line_width;	/* columns and the one space between two */
};

/*
 * Which of the n columns fit in cols terminal columns (0: no limit, every
 * wanted column at its width).  wanted[i] false: column i is not shown at
 * all.  Steps are taken in priority order (nsteps of them), the first
 * column always (cut to cols if need be), then keep (the sort column; -1:
 * none) with its twin if it has one, then the other steps for as long as each next one fits
 * whole: the first that does not fit and every one after it are dropped.
 * The last stretch column that is shown gets the rest of the line; a
 * wide_first one taken first, at least a third of it.
 */
void top_layout_fit(const struct top_column *columns, const struct top_step *priority,
		    size_t nsteps, size_t n, const bool *wanted, int keep, unsigned int cols,
		    struct top_layout *layout);

#endif /* DISKIO_TOP_LAYOUT_H */
