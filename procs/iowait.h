/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Who waits (iotop's IO> and SWAPIN): the kernel's running totals of each
 * task's waits (struct task_waits, abi.h: read for every task once an
 * interval, and at a task's exit) as the change of each task in an interval,
 * and the share of the interval that change is.  Pure bookkeeping: no
 * libbpf; the tally (tally.c) puts the changes on rows.
 *
 * A task is known by its tid and start time.  Its first reading after
 * iowait_tasks_start() counts whole (it waited all of it since the last
 * reading, which did not list it: it had not waited, or did not exist);
 * its record at exit counts what it added since it was last listed, after
 * which it is not counted again (a zombie's totals stay in the kernel).
 */
#ifndef DISKIO_IOWAIT_H
#define DISKIO_IOWAIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "abi.h"

/* The dev of a row that holds only waits: a process that waited in an
 * interval without I/O of its own on any disk (shown as device "-", JSON
 * null).  No disk has this number (major 4095, minor 1048575). */
#define IOWAIT_NO_DEVICE	UINT32_MAX

/* A task that was not listed, and has not exited, is forgotten after this
 * many readings (its exit record was lost, or a filter no longer takes it). */
#define IOWAIT_UNSEEN_READINGS	10

/* Nanoseconds waited for block I/O (IO>) and spent swapping in (SWAPIN). */
struct iowait_ns {
	uint64_t blkio_ns;
	uint64_t swapin_ns;
};

/* What is kept of a task that waited: its totals as last read. */
struct iowait_task {
	struct task_id id;
	uint64_t blkio_seen, swapin_seen;
	uint32_t unseen;	/* readings in a row that did not list it */
	bool listed;		/* in the reading being counted */
	bool exited;		/* its last totals were counted */
};

struct iowait_tasks {
	struct iowait_task *tasks;	/* sorted by id */
	size_t count, capacity;
};

void iowait_tasks_init(struct iowait_tasks *t);
void iowait_tasks_free(struct iowait_tasks *t);

typedef void (*iowait_add_fn)(const struct task_waits *rec, const struct iowait_ns *change,
			      void *arg);

/*
 * One reading: recs[0..n), the iterator's records, then those of the tasks
 * that exited (TASK_WAITS_EXITED).  Each record's change since the task's
 * last reading goes to add(rec, change, arg) (add NULL: the reading at
 * start, whose totals are the past's).  A total below the one seen (a
 * reading at the instant a wait ended) changes nothing until it is passed.
 * Tasks not listed go as IOWAIT_UNSEEN_READINGS says, exited ones at once.
 * 0, or -ENOMEM: a new task is not kept (its change is still given).
 */
int iowait_tasks_read(struct iowait_tasks *t, const struct task_waits *recs, size_t n,
		      iowait_add_fn add, void *arg);

/* A task's change in an interval of interval_ns counts at most the interval
 * (a reading late against the interval's end, or a clock behind another:
 * a task cannot wait more than all of it). */
static inline uint64_t iowait_clamp(uint64_t ns, uint64_t interval_ns)
{
	return ns < interval_ns ? ns : interval_ns;
}

/* The share of seconds that ns waited, in percent; 0 for an interval of no
 * time.  A row of a process sums its threads: up to 100 times its threads. */
static inline double iowait_pct(uint64_t ns, double seconds)
{
	return seconds > 0 ? (double)ns / (seconds * 1e7) : 0;
}

#endif /* DISKIO_IOWAIT_H */
