/* SPDX-License-Identifier: GPL-2.0 */
/*
 * --diagnose (issue 45): one frame, the window's, read by the USE method:
 * each disk's state (utilization, saturation, errors), who drives it (its
 * processes by share of its bytes), who waits on it (IO>), who saw
 * errors.  Plain data that owns its strings, so that it outlives the frame
 * it was made of; views/diagnose.c shows it.
 */
#ifndef DISKIO_DIAGNOSIS_H
#define DISKIO_DIAGNOSIS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>
#include "counters.h"
#include "frame.h"
#include "diagnose_rules.h"

/* A disk's state, the worst last: disks are listed worst first. */
enum disk_state {
	DISK_IDLE,		/* no I/O in the window */
	DISK_OK,
	DISK_BUSY,		/* %util >= busy_util, a short queue */
	DISK_SATURATED,		/* busy, and aqu-sz >= saturated_queue */
	DISK_THROTTLED,		/* %util < throttled_util while a process waits on it */
	DISK_FAILING,		/* failed I/Os >= failing_errors */
	DISK_NR_STATES
};

extern const char *const disk_state_names[DISK_NR_STATES];

/* Whether a state is trouble: the exit status says so. */
static inline bool disk_state_trouble(enum disk_state s)
{
	return s >= DISK_SATURATED;
}

struct diag_file {
	char *path;		/* as --files names it, " (deleted)" added */
	uint64_t bytes;
};

/* A process row, as a driver or a waiter of a disk. */
struct diag_proc {
	bool has_pid;		/* false: a row of no process (--by cgroup) */
	uint32_t pid;
	char *comm, *user, *cmdline, *cgroup;	/* NULL: not known */
	uint64_t read_bytes, write_bytes, discard_bytes;
	double share_pct;	/* of the disk's bytes */
	uint64_t errors[IO_ERROR_KINDS], nerrors;
	bool iowait_known;
	double iowait_pct;
	/* its cgroup's io.pressure over the window (live: read at the start
	 * for every group), as the row has it */
	struct pressure_share cgroup_pressure;
	struct diag_file *files;
	size_t nfiles;
};

struct diag_disk {
	char name[64];
	uint32_t dev;		/* MKDEV of the disk, from its rows; 0: none */
	enum disk_state state;
	bool has_iostat;
	double util, aqu_sz, r_await, w_await;
	uint64_t read_bytes, write_bytes, discard_bytes, ios;
	uint64_t errors[IO_ERROR_KINDS], nerrors;
	struct diag_proc *drivers, *waiters;
	size_t ndrivers, nwaiters;
	char *limit;		/* a cgroup's I/O limit on it (set by the run), NULL */
};

struct diagnosis {
	struct timespec wall;	/* the window's end */
	double duration_s;
	bool partial;		/* the run stopped within the window */
	bool pressure_known;
	double pressure_some_pct, pressure_full_pct;
	bool iowait_known;	/* IO> was measured: waiters and throttled known */
	bool files_on;
	struct diag_disk *disks;	/* worst state first, then by bytes */
	size_t ndisks;
	/* processes that waited with no I/O of their own in the window */
	struct diag_proc *waiters;
	size_t nwaiters;
};

/* d := the diagnosis of f by rules, what d held freed first.  0 or
 * -ENOMEM (d then empty). */
int diagnose_frame(struct diagnosis *d, const struct frame *f, const struct diagnose_rules *rules);
void diagnosis_free(struct diagnosis *d);

/* Whether a disk of d is in trouble (saturated, throttled or failing). */
bool diagnosis_trouble(const struct diagnosis *d);

#endif /* DISKIO_DIAGNOSIS_H */
