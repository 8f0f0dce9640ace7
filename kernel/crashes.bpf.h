/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Crashes: a process whose last thread exits on a signal that dumps core
 * (is_crash_signal(), abi.h): counted by name and reported as an event.
 * The programs that see the exit are in diskio.bpf.c: handle_exit where
 * sched_process_exit says whether the thread group is gone,
 * handle_exit_legacy where it does not.
 */

#ifndef DISKIO_CRASHES_BPF_H
#define DISKIO_CRASHES_BPF_H

#include <vmlinux.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include "abi.h"
#include "common.bpf.h"

/* Crash counts by process name: exact even when crash events are lost. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, CRASH_COUNTS_ENTRIES);
	__type(key, char[TASK_COMM_LEN]);
	__type(value, __u64);
} crash_counts SEC(".maps");

/* Thread groups already reported as crashed, for the legacy exit hook. */
struct crashed_group {
	__u32 tgid;
	__u32 pad;
	__u64 start_time;
};

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, CRASHED_GROUPS_ENTRIES);
	__type(key, struct crashed_group);
	__type(value, __u8);
} crashed_groups SEC(".maps");

/* The wait(2) status of a dying thread group: low 7 bits the signal, 0x80
 * a core dump.  All threads of a dying group carry the group's exit code; the
 * one that dumped core adds 0x80 to it once the dump is written. */
static __always_inline __u32 group_exit_status(struct task_struct *task)
{
	__u32 code = untrusted(task, struct task_struct)->signal->group_exit_code;

	return code ? code : (__u32)task->exit_code;
}

static __always_inline void report_crash(void *ctx, struct task_struct *task, __u32 code)
{
	static const __u64 zero;
	struct crash_event event = { .type = EVENT_CRASH };
	__u64 *count;

	event.tgid = task->tgid;
	event.time_ns = bpf_ktime_get_ns();
	event.signal = code & 0x7f;
	event.core_dumped = !!(code & 0x80);
	/* The process's name, not the name of whichever thread went last. */
	BPF_CORE_READ_STR_INTO(&event.comm, task, group_leader, comm);

	count = lookup_or_try_init(&crash_counts, &event.comm, &zero);
	if (count)
		__sync_fetch_and_add(count, 1);
	else
		count_lost(LOST_CRASH_MAP_FULL);
	emit_event(ctx, &event, sizeof(event));
}

#endif /* DISKIO_CRASHES_BPF_H */
