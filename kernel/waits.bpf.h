/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Who waits: iotop's IO> and SWAPIN, as running totals per task (struct
 * task_waits, abi.h).  Nothing here runs per I/O.
 *
 * - WAITS_DELAYACCT (kernel.task_delayacct=1 at start): the kernel's own
 *   figures, task->delays->blkio_delay (time from going to sleep in
 *   io_schedule() to the wakeup) and swapin_delay (time in swap_read_folio()).
 *   The kernel adds a wait to blkio_delay when it ends; the part of a wait
 *   still going on is added here from its start (blkio_start, stamped on
 *   local_clock(): this CPU's runqueue clock is read for "now", which lags it
 *   by at most a tick, sched_clock_now()), so that a task blocked for seconds shows while it is.
 * - WAITS_SCHED (delay accounting off): measured by handle_switch: a task that
 *   goes to sleep with in_iowait set starts a wait, which ends when it next
 *   runs; both stamps and the sum are in its task storage.  No swap-in time.
 *
 * read_waits (diskio.bpf.c), a task iterator, gives every task's totals once
 * an interval; a task that exits leaves its last ones in exited_waits
 * (note_exit_waits()), which user space drains.  Tasks whose exit was
 * noted (exit_state set) are not iterated again, so a zombie's waits are
 * counted once.  The filters (-p, -c, --cgroup) apply here as to I/O.
 */

#ifndef DISKIO_WAITS_BPF_H
#define DISKIO_WAITS_BPF_H

#include <vmlinux.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include "abi.h"
#include "core_fixes.bpf.h"
#include "settings.bpf.h"
#include "common.bpf.h"
#include "submitter.bpf.h"

/* WAITS_SCHED: a task's waits so far and the one it is in. */
struct sched_wait {
	__u64 since_ns;		/* bpf_ktime_get_ns() when it went to sleep; 0: running */
	__u64 waited_ns;	/* its waits that ended, summed */
};

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct sched_wait);
} sched_waits SEC(".maps");

/* The last totals of tasks that exited since user space last drained it. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, EXITED_WAITS_ENTRIES);
	__type(key, struct task_id);
	__type(value, struct task_waits);
} exited_waits SEC(".maps");

#define TASK_ZOMBIE_OR_DEAD	0x30	/* EXIT_ZOMBIE | EXIT_DEAD, task->exit_state */

/*
 * "Now" on delay accounting's clock (local_clock()): the clock of the
 * runqueue of this CPU, reached through the current task's CFS runqueue
 * (with CONFIG_FAIR_GROUP_SCHED; the per-CPU runqueues symbol is not in
 * kallsyms without CONFIG_KALLSYMS_ALL).  The scheduler updates it at every
 * switch and tick.  0 when it cannot be read.
 */
static __always_inline __u64 sched_clock_now(void)
{
	struct task_struct *current = bpf_get_current_task_btf();
	struct cfs_rq *cfs_rq;

	if (!bpf_core_field_exists(struct sched_entity, cfs_rq) ||
	    !bpf_core_field_exists(struct cfs_rq, rq))
		return 0;
	cfs_rq = untrusted(current, struct task_struct)->se.cfs_rq;
	return cfs_rq && cfs_rq->rq ? cfs_rq->rq->clock : 0;
}

/* task's blkio wait in progress, by delay accounting's clock; 0 if none.
 * A task asleep (off its runqueue) with in_iowait set is in one since
 * blkio_start. */
static __always_inline __u64 delayacct_wait_in_progress(struct task_struct *task,
							struct task_delay_info *delays)
{
	__u64 start, now;

	if (!bpf_core_field_exists(delays->blkio_start))
		return 0;
	if (!BPF_CORE_READ_BITFIELD(task, in_iowait) || task->on_rq)
		return 0;
	start = delays->blkio_start;
	now = sched_clock_now();
	return start && now > start ? now - start : 0;
}

/* task's running totals now.  The sum is read before the wait in progress,
 * as the kernel ends a wait (the sum grows, then the task is running): a
 * reading at that instant may miss the ending wait, which the next one
 * counts, rather than count it twice.  trusted: the same task, as the
 * verifier trusts it, for its task storage (task may be untrusted()). */
static __always_inline void task_wait_totals(struct task_struct *task, struct task_struct *trusted,
					     struct task_waits *w)
{
	struct task_delay_info *delays = NULL;

	if (bpf_core_field_exists(task->delays))
		delays = untrusted(task, struct task_struct)->delays;
	if (delays && bpf_core_field_exists(delays->swapin_delay))
		w->swapin_ns = delays->swapin_delay;
	if (waits_source == WAITS_DELAYACCT && delays &&
	    bpf_core_field_exists(delays->blkio_delay)) {
		w->blkio_ns = delays->blkio_delay;
		barrier_var(w->blkio_ns);
		w->blkio_ns += delayacct_wait_in_progress(task, delays);
	} else if (waits_source == WAITS_SCHED) {
		struct sched_wait *sw = bpf_task_storage_get(&sched_waits, trusted, 0, 0);
		__u64 since, now;

		if (!sw)
			return;
		w->blkio_ns = *(volatile __u64 *)&sw->waited_ns;
		since = *(volatile __u64 *)&sw->since_ns;
		now = bpf_ktime_get_ns();
		if (since && now > since)
			w->blkio_ns += now - since;
	}
}

/* --cgroup for any task (the current one's is current_cgroup_selected()). */
static __always_inline bool task_cgroup_selected(const struct task_struct *task)
{
	struct cgroup *cgrp;

	if (!nr_filter_cgroups)
		return true;
	cgrp = untrusted(task, struct task_struct)->cgroups->dfl_cgrp;
	for (int i = 0; i < MAX_FILTER_CGROUPS; i++) {
		__u64 id;

		if (i >= nr_filter_cgroups)
			break;
		if (cgroup_ancestor_id(cgrp, filter_cgroup_levels[i], &id) && id == filter_cgroups[i])
			return true;
	}
	return false;
}

/*
 * task's record, keyed as its I/O would be (current_submitter()); false
 * when the filters drop it or it never waited.
 */
static __always_inline bool task_waits_of(struct task_struct *task, struct task_struct *trusted,
					  struct task_waits *w)
{
	bool worker;

	if (!task_row_id(task, &w->row.tgid) || !task_uid_selected(task))
		return false;
	worker = task_comm(task, w->row.comm);
	if (!comm_selected(w->row.comm) || !task_cgroup_selected(task))
		return false;
	task_wait_totals(task, trusted, w);
	if (!w->blkio_ns && !w->swapin_ns)
		return false;
	if (worker)
		name_worker(task, w->row.comm);
	w->row.cgroup = task_cgroup_id(untrusted(task, struct task_struct));
	w->id.tid = task->pid;
	w->id.start_ns = task->start_time;
	w->tgid = task->tgid;
	task_owner(task, &w->owner);
	return true;
}

/* At sched_process_exit, each thread: its last totals, for user space. */
static __always_inline void note_exit_waits(struct task_struct *task, struct task_struct *trusted)
{
	struct task_waits w = { .flags = TASK_WAITS_EXITED };

	if (waits_source == WAITS_NONE || !task_waits_of(task, trusted, &w))
		return;
	if (bpf_map_update_elem(&exited_waits, &w.id, &w, BPF_ANY))
		count_lost(LOST_EXITED_WAITS_FULL);
}

/* The iterator's task: exited ones left their last totals at their exit. */
static __always_inline bool task_waits_readable(struct task_struct *task,
						struct task_struct *trusted, struct task_waits *w)
{
	if (task->exit_state & TASK_ZOMBIE_OR_DEAD)
		return false;
	return task_waits_of(task, trusted, w);
}

/*
 * WAITS_SCHED, at every context switch: next's wait ends (one task storage
 * lookup, which finds nothing for a task that never waited), and prev,
 * going to sleep (not preempted) with in_iowait set, starts one.
 */
static __always_inline void switch_waits(bool preempt, struct task_struct *prev,
					 struct task_struct *next, unsigned int prev_state)
{
	struct sched_wait *w = bpf_task_storage_get(&sched_waits, next, 0, 0);
	__u64 now = 0, since;

	if (w && w->since_ns) {
		now = bpf_ktime_get_ns();
		since = w->since_ns;
		/* The start goes first: a reading in between misses the wait
		 * rather than counts it twice (task_wait_totals()). */
		*(volatile __u64 *)&w->since_ns = 0;
		if (now > since)
			*(volatile __u64 *)&w->waited_ns = w->waited_ns + (now - since);
	}
	if (preempt || !prev_state || !BPF_CORE_READ_BITFIELD(prev, in_iowait))
		return;
	w = bpf_task_storage_get(&sched_waits, prev, 0, BPF_LOCAL_STORAGE_GET_F_CREATE);
	if (w)
		w->since_ns = now ? now : bpf_ktime_get_ns();
}

#endif /* DISKIO_WAITS_BPF_H */
