/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Issue 45: the I/O pressure of the rows' cgroups, each group's io.pressure
 * (procs/pressure.h) as percents of the interval, or with -a of the run.
 * The step asks for the groups of the frame's rows; each group's file is
 * read at most once a step, however many rows it has.
 *
 * A share needs two readings.  A group first asked for has none before:
 * its reading then is its baseline and its share unknown, never a guess.
 * Two exceptions, both exact: cgroup_pressure_baseline() reads every group
 * as the window starts (--diagnose, -a), so that a group first asked for
 * later has its baseline from the start; and when that walk kept every
 * group, one it did not see was made since, and PSI counts a new group's
 * stalls from zero.
 *
 * Bounded: a group no row had for CGROUP_PRESSURE_KEEP_STEPS steps is
 * dropped (with -a, one read at the start is kept: that reading is all
 * -a needs of it), and at most max groups are kept: a group beyond is
 * unknown.  Groups kept but not asked for in a step are read at its
 * end, so that a group whose rows skip an interval has a share again at
 * the next.  Pure but for reading the files under the names' mount.
 */
#ifndef DISKIO_CGROUP_PRESSURE_H
#define DISKIO_CGROUP_PRESSURE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "cgroups.h"
#include "pressure.h"

#define CGROUP_PRESSURE_GROUPS		4096	/* groups kept at most */
#define CGROUP_PRESSURE_KEEP_STEPS	10

struct cgroup_pressure {
	uint64_t id;
	struct io_pressure start;	/* at the window's start; zero for a group made since */
	struct io_pressure last;	/* as last read, at last_ns */
	uint64_t last_ns;
	uint64_t seen_step;		/* the last step it was asked for (0: never) */
	uint64_t read_step;		/* the step of last */
	bool from_walk;			/* start is the walk's reading */
	struct pressure_share share;	/* of read_step */
};

struct cgroup_pressures {
	struct cgroup_names *names;	/* the groups' paths, and their mount */
	struct cgroup_pressure *groups;	/* sorted by id */
	size_t count, capacity, max;
	uint64_t start_ns;
	uint64_t step;			/* steps begun */
	uint64_t step_ns, prev_step_ns;	/* of this step and the one before (start_ns) */
	/* cgroup_pressure_baseline() kept every group of the tree, and none
	 * of them was dropped since: a group not among them is new */
	bool have_every_start;
};

/* Groups under names' mount (none: an empty mount), max kept (0:
 * CGROUP_PRESSURE_GROUPS), the window starting at start_ns. */
void cgroup_pressure_init(struct cgroup_pressures *p, struct cgroup_names *names, size_t max,
			  uint64_t start_ns);
void cgroup_pressure_free(struct cgroup_pressures *p);

/* Every group's io.pressure read as the window starts (after the attach):
 * the baseline of a group first asked for later.  0, or -ENOMEM. */
int cgroup_pressure_baseline(struct cgroup_pressures *p);

/* A step at now_ns begins: its interval is since the last one. */
void cgroup_pressure_begin(struct cgroup_pressures *p, uint64_t now_ns);
/* Group id's share of the step's interval (cumulative: of the time since
 * the start), its file read if it was not in this step. */
struct pressure_share cgroup_pressure_of(struct cgroup_pressures *p, uint64_t id, bool cumulative);
/* The step ends: the groups kept and not asked for are read (not with
 * cumulative: the start is all it needs), those not asked for in
 * CGROUP_PRESSURE_KEEP_STEPS steps dropped (with cumulative, not the ones
 * read at the start). */
void cgroup_pressure_end(struct cgroup_pressures *p, bool cumulative);

#endif /* DISKIO_CGROUP_PRESSURE_H */
