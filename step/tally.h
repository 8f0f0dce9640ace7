/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The run's bookkeeping, one pure step per interval: a snapshot of the
 * kernel's maps (plain arrays of running totals, copied by the loader) and
 * the events received become a frame of per-interval changes: rows, devices,
 * losses and crash counts.  No libbpf, no clock, no output of its own: the
 * time, sysfs root and liveness check come in; tests drive it without root.
 */
#ifndef DISKIO_TALLY_H
#define DISKIO_TALLY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>
#include "cgroup_pressure.h"
#include "cgroups.h"
#include "cmdline.h"
#include "crashfree.h"
#include "devname.h"
#include "diskstats.h"
#include "files.h"
#include "abi.h"
#include "frame.h"
#include "iostats.h"
#include "iowait.h"
#include "pmem_metrics.h"
#include "pressure.h"
#include "procfs.h"
#include "resources.h"
#include "row_stacks.h"
#include "snapshot.h"
#include "stacks.h"
#include "symbolize.h"
#include "users.h"

/* ---- the tally ---- */

struct tally_config {
	bool cumulative;		/* -a */
	bool per_process_latency;	/* -L */
	bool trace;			/* -T: events, no rows */
	enum sort_key sort;
	/* I/Os are tracked to completion (-L, -T, -p, -c, --cgroup): a disk's
	 * latency is the sum of its rows', which the kernel keeps instead. */
	bool latency_from_rows;
	bool by_cgroup;			/* --by cgroup: rows per (cgroup, disk) */
	uint64_t crash_interval_ns;
	const char *sysfs_root;		/* "/sys" */
	const char *proc_root;		/* "/proc": workers' names; NULL: none read */
	/* -t: rows are threads (proc_dev_key.tgid a TID); the process of a
	 * thread, 0 if not known. */
	bool per_thread;
	uint32_t (*thread_group)(uint32_t tid, void *arg);
	void *thread_group_arg;
	const char *cgroup_mount;	/* the cgroup2 mount, NULL when none */
	/* Whether a process still exists (its rows may be forgotten if not). */
	bool (*process_alive)(uint32_t tgid);
	FILE *warn;			/* "diskio: warning: ..." lines */
	/* --stacks: the bytes of the stacks' table (--stacks-mem), 0 without
	 * --stacks; how many stacks a row shows (--stacks-top). */
	uint64_t stacks_mem;
	uint32_t stacks_top;
	/* --stacks: how frames are named (NULL: not named), and where the
	 * symbolizer's warnings go. */
	const struct symbolizer_options *symbols;
	void (*symbols_warn)(const char *fmt, ...);
	/* "/proc/diskstats": read at the start and at each step, for each
	 * device's iostat -x figures; NULL: none. */
	const char *diskstats_path;
	/* "/proc/pressure/io" (issue 45); NULL: no pressure */
	const char *pressure_path;
	/* Every cgroup's io.pressure read as the tally starts (--diagnose,
	 * -a), so that a row's cgroup pressure is known over the window even
	 * for a group first seen later; else a group first seen has none in
	 * that interval (cgroup_pressure.h).  The groups are cgroup_mount's. */
	bool cgroup_pressure_from_start;

	/* ---- issue 33: USER, PRIO, COMMAND ---- */
	/* "/etc/passwd": the users' names (users.h); NULL: their numbers */
	const char *passwd_path;
	/* sysconf(_SC_CLK_TCK): the unit of /proc/PID/stat's starttime, by
	 * which a row's process is told from another that has its pid
	 * since; 0: not told apart */
	long clock_ticks;
	/* process tgid's command line at its last exec, as the kernel kept it
	 * (struct exec_cmdline), for rows whose process is gone: false when
	 * it kept none; NULL: none kept */
	bool (*exec_cmdline)(uint32_t tgid, struct exec_cmdline *out, void *arg);
	void *exec_cmdline_arg;
	/* The top view's `o` off: frames also list, idle, the processes that
	 * have no row (tally_set_all_processes()), read from proc_root, each
	 * I/O priority by ioprio_of (ioprio_get(2); NULL: none set); held to
	 * the process filters as the kernel holds rows (-p, -u, -c, --cgroup:
	 * these, living as long as the tally), and none with -D (an idle
	 * process is on no disk). */
	bool all_processes;
	int (*ioprio_of)(uint32_t tid, void *arg);
	void *ioprio_arg;
	const uint32_t *filter_pids;
	uint32_t nr_filter_pids;
	uint32_t filter_uids[MAX_FILTER_UIDS];	/* -u, effective uids */
	uint32_t nr_filter_uids;
	const char *filter_comm;		/* NULL: none */
	uint64_t filter_cgroups[MAX_FILTER_CGROUPS];	/* ids (cgroup_resolve()) */
	uint32_t nr_filter_cgroups;
	/* -D: disks chosen.  Then no idle processes (on no disk), and no rows
	 * of no disk for a process that only waited (IO>, SWAPIN). */
	bool filter_devices;
	/* --files (issue 35): the mount table files are named against (NULL:
	 * no files), and --files-top (0: all) */
	const char *files_mountinfo;
	/* where the mount table of another namespace a name was read in is
	 * found ("/proc"; NULL: names joined with files_mountinfo only) */
	const char *files_proc;
	uint32_t files_top;
};

#define TALLY_CRASH_EVENTS 16		/* crash events listed per interval */

struct tally_latency_seen {
	uint32_t dev;
	struct latency_counts seen;
};

struct tally_flushes_seen {
	uint32_t dev;
	uint64_t flushes;
};

/* A process that dirtied page cache: writeback may still be charged to it
 * after it exits, for as long as the kernel remembers it as an owner. */
struct tally_dirtier {
	uint32_t tgid;
	uint64_t dirtied_ns;
};

/* IO> and SWAPIN: a row's waits in the interval being counted, and the row
 * they go to (tally.c, count_waits()). */
struct tally_wait_sum {
	struct proc_dev_key key;	/* dev IOWAIT_NO_DEVICE */
	uint32_t tgid;			/* the process of the tasks summed */
	struct row_owner owner;		/* the first task's (issue 33) */
	struct iowait_ns ns;
	size_t row;			/* index in procs.rows, when has_row */
	bool has_row;
	unsigned __int128 row_bytes;	/* that row's bytes in the interval */
};

struct tally_crash_seen {
	char comm[TASK_COMM_LEN];
	uint64_t received;	/* events received, plus crashes recovered from the map */
	uint64_t short_before;	/* shortfall at the previous step */
};

struct tally {
	struct tally_config config;
	struct devname_cache devnames;
	struct cgroup_names cgroups;
	struct res_table names;		/* comm, device and cgroup names of rows */
	void *names_buf;
	res_key unknown_name;
	struct iostats procs;
	struct pmem_metrics devices;
	struct crashfree crash;
	uint64_t start_ns;

	/* what was seen of the kernel's running totals */
	struct tally_latency_seen *latency_seen;
	size_t nlatency_seen, latency_seen_capacity;
	struct tally_crash_seen *crash_seen;
	size_t ncrash_seen, crash_seen_capacity;
	struct tally_flushes_seen *flushes_seen;
	size_t nflushes_seen, flushes_seen_capacity;
	struct tally_dirtier *dirtiers;
	size_t ndirtiers, dirtiers_capacity;
	uint64_t now_ns;		/* of the last step */
	uint64_t interval_end_ns;	/* of the last frame, start_ns before */
	uint64_t lost_seen[LOST_NR_CAUSES];
	uint64_t perf_lost_reported;

	/* this interval, and the run */
	uint64_t lost[LOST_NR_CAUSES], lost_run[LOST_NR_CAUSES];
	uint64_t io_events, io_events_run;
	struct crash_event crash_events[TALLY_CRASH_EVENTS];
	size_t ncrash_events;
	/* the frame's list: events arriving after it do not change it */
	struct crash_event frame_crash_events[TALLY_CRASH_EVENTS];

	struct proc_io **shown;		/* the frame's sorted rows */
	size_t shown_capacity;
	struct proc_io *folded;		/* --by cgroup: rows per (cgroup, disk) */
	size_t folded_capacity;
	/* Kernel entries of exited processes' rows, for the loader to delete
	 * after tally_close_interval(), handing what they held then to the
	 * next tally_frame() (struct snapshot's final_rows). */
	struct proc_dev_key *forget;
	size_t nforget, forget_capacity;

	/* IO> and SWAPIN: each task's totals as last read, the interval's sums
	 * per row, how waits are measured and whether delay accounting was on
	 * at the last reading (one warning when it goes off). */
	struct iowait_tasks waits;
	struct tally_wait_sum *wait_sums;
	size_t nwait_sums, wait_sums_capacity;
	enum waits_source waits_source;
	bool delayacct_was_on;
	bool delayacct_off_warned;

	struct row_stacks stacks;	/* --stacks */
	struct symbolizer *symbolizer;	/* config.symbols: names of frames */
	/* config.diskstats_path as read at the start, at the last step and now */
	struct diskstats diskstats_start, diskstats_last, diskstats_now;
	uint64_t diskstats_last_ns;	/* when diskstats_last was read */
	bool diskstats_failed;		/* warned once: no iostat figures */
	/* config.pressure_path as read at the start and at the last step */
	struct io_pressure pressure_start, pressure_last;
	uint64_t pressure_last_ns;
	struct cgroup_pressures cgroup_pressure;	/* the rows' groups' */

	/* issue 33: users' names; the frame's idle processes (config.
	 * all_processes), their pointers, and the ids of the frame's rows,
	 * sorted, which are not listed among them */
	struct users users;
	struct proc_io *idle;
	size_t nidle, idle_capacity;
	struct proc_io **idle_ptrs;
	size_t idle_ptrs_capacity;
	uint32_t *shown_ids;
	size_t nshown_ids, shown_ids_capacity;
	res_key no_device_name;		/* "-": an idle row's disk */
	struct files files;		/* --files (issue 35) */
};

/* The name `ps` gives a workqueue worker doing work desc ("flush-254:0"):
 * its own name as proc_comm (its /proc/PID/comm, NULL if gone) gives it,
 * without the work it does now, then '-' and desc:
 * "kworker/u8:1-flush-254:0". */
void worker_row_name(const char *proc_comm, const char *desc, char *out, size_t size);

/* 0, or -ENOMEM.  The crash-free tracker starts fresh at start_ns; a state
 * file may be loaded into t->crash afterwards. */
int tally_init(struct tally *t, const struct tally_config *config, uint64_t start_ns);
void tally_free(struct tally *t);

/* An I/O event arrived (trace mode). */
void tally_io_event(struct tally *t);

/* A crash event arrived (a copy the tally may keep; its comm is cut to a C
 * string here).  It is counted at once and listed in the next frame. */
void tally_crash_event(struct tally *t, struct crash_event *event, uint64_t now_ns);

/*
 * The step: the interval ending at now_ns (wall: the same instant on
 * CLOCK_REALTIME).  final: no later step will come to confirm crashes
 * missing from the events.  The frame points into t: what it reaches stays
 * valid and unchanged through tally_close_interval() and the loader's
 * deletions, until the next tally_frame() or tally_summary() (frame.h), so
 * a view may draw it again between intervals.
 */
void tally_frame(struct tally *t, const struct snapshot *s, uint64_t now_ns,
		 const struct timespec *wall, bool final, struct frame *frame);

/* After the frame is shown: the interval's counts join the run's, rows of
 * exited processes are forgotten (their kernel keys listed in t->forget).
 * Rows it drops stay readable, as the frame showed them, until the next
 * step frees them. */
void tally_close_interval(struct tally *t);

/* At exit, from the snapshot of the last tally_frame() (so that the run's
 * totals are the sum of the frames shown): the run's totals, losses and
 * crashes.  A later snapshot would add its losses but not its I/O.  It
 * ends the last frame's life, as a step does (its stacks change). */
void tally_summary(struct tally *t, const struct snapshot *s, uint64_t now_ns,
		   const struct timespec *wall, struct summary *summary);

/* The kernel entries of the rows and stacks tally_close_interval() forgot,
 * for the loader to delete (valid until the next step). */
void tally_forgotten_keys(const struct tally *t, struct forgotten_keys *gone);

/* A crash-free state read (crashfree_load()) at read_ns becomes the tally's,
 * its progress resuming at the tally's start: loading the programs is not
 * counted as running.  saved is left empty. */
void tally_adopt_crash(struct tally *t, struct crashfree *saved, uint64_t read_ns);

/* -a switched (the top view's key): what the next frames keep. */
void tally_set_cumulative(struct tally *t, bool cumulative);
/* Rows made from now on are threads (or processes again): the top view's t
 * key.  Rows of the other kind stop growing and go after two idle
 * intervals; the next frame may show both once. */
void tally_set_threads(struct tally *t, bool threads);
/* issue 33: the next frames list the idle processes too (frame.h's
 * idle_rows), or only the rows: the top view's o key. */
void tally_set_all_processes(struct tally *t, bool all);
/* What the three above last set (or the config began with), so that the
 * run asks the tally instead of reading its fields. */
bool tally_cumulative(const struct tally *t);
bool tally_per_thread(const struct tally *t);
bool tally_all_processes(const struct tally *t);

uint64_t tally_start_ns(const struct tally *t);
/* A device's name, as rows show it (devname.h). */
const char *tally_device_name(struct tally *t, uint32_t dev);
/* The run's devices (totals since start) and crash-free state. */
const struct pmem_metrics *tally_devices(const struct tally *t);
const struct crashfree *tally_crash(const struct tally *t);

/* --stacks: every stack of the run, sorted by key, and how views name their
 * frames (NULL without config.symbols). */
const struct row_stack *tally_stacks(const struct tally *t, size_t *n);
const struct stack_namer *tally_stack_namer(const struct tally *t);
/* --stacks' events (EVENT_USER_STACK, EVENT_STACK_PROCESS_EXIT), for the
 * names of user frames; nothing without config.symbols. */
void tally_user_stack(struct tally *t, const struct user_stack_event *event);

/* --files: a file's name as the kernel sent it (size bytes, unchecked). */
void tally_file_name(struct tally *t, const void *data, size_t size);

void tally_stack_process_exit(struct tally *t, uint32_t tgid, uint64_t start_ns);

#endif /* DISKIO_TALLY_H */
