/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Who a row's process is (issue 33: iotop's USER, PRIO and COMMAND): its
 * user, I/O priority, nice, policy and start, read from the task into a
 * struct row_owner (abi.h) once, when its row is made (rows.bpf.h) or when
 * it becomes a file's dirtier (writeback.bpf.h), never per I/O; and its
 * command line at exec, kept for the rows of processes that are gone
 * before user space could read /proc/PID/cmdline.  User space turns the
 * raw priority into iotop's text by the kernel's rule (ioprio.c).
 */

#ifndef DISKIO_PROCINFO_BPF_H
#define DISKIO_PROCINFO_BPF_H

#include <vmlinux.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include "abi.h"
#include "settings.bpf.h"
#include "common.bpf.h"
#include "submitter.bpf.h"

#define NICE_TO_STATIC_PRIO	120	/* MAX_RT_PRIO + NICE_WIDTH / 2: nice 0 */

/*
 * A task's I/O priority as ioprio_set(2) left it: task->io_context->ioprio,
 * 0 (IOPRIO_CLASS_NONE) without an io_context, which the kernel makes only
 * when a priority is set or the task does I/O.  Both have been there since
 * Linux 2.6, but only with CONFIG_BLOCK: read where BTF has them.
 */
static __always_inline __u16 task_ioprio(const struct task_struct *task)
{
	struct io_context *ioc;

	if (!bpf_core_field_exists(task->io_context))
		return 0;
	ioc = BPF_CORE_READ(task, io_context);
	if (!ioc || !bpf_core_field_exists(ioc->ioprio))
		return 0;
	return BPF_CORE_READ(ioc, ioprio);
}

/* When task's process started, in ns since boot (what /proc/PID/stat's
 * starttime counts in clock ticks): its leader's start_boottime, Linux
 * 5.5+ (before, real_start_time; here the monotonic start_time, which
 * /proc does not show: such a row's command line comes from the exec map). */
static __always_inline __u64 process_start_ns(const struct task_struct *task)
{
	struct task_struct *leader = BPF_CORE_READ(task, group_leader);

	if (bpf_core_field_exists(leader->start_boottime))
		return BPF_CORE_READ(leader, start_boottime);
	return BPF_CORE_READ(leader, start_time);
}

/* task's identity for a row charged to it, read once when the row is made
 * (probe reads: the task may be one a bio's completion names, relayed.bpf.h,
 * not a typed pointer).  The effective uid of its objective credentials (real_cred, as /proc and
 * ps show them): the subjective ones (cred) may be borrowed for the I/O at
 * hand (overlayfs writes with its mounter's). */
static __always_inline void task_owner(const struct task_struct *task, struct row_owner *owner)
{
	__u32 flags = BPF_CORE_READ(task, flags);

	owner->start_ns = process_start_ns(task);
	owner->uid = BPF_CORE_READ(task, real_cred, euid.val);
	owner->ioprio = task_ioprio(task);
	owner->nice = BPF_CORE_READ(task, static_prio) - NICE_TO_STATIC_PRIO;
	owner->flags = ROW_OWNER_KNOWN | (flags & PF_KTHREAD ? ROW_OWNER_KTHREAD : 0) |
		       (BPF_CORE_READ(task, policy) & ROW_OWNER_POLICY);
}

/*
 * Whose a new row is (struct row_owner, abi.h), given by the caller that
 * chose the key, for rows.bpf.h's row_of(): the task it is charged to,
 * read only when the row is made; or an owner remembered already (a
 * writeback's dirtier, as it was when it dirtied the file); neither for a
 * row of no process (what a stacked device sent below).  Nothing of it is
 * read for a row that exists.
 */
struct row_who {
	const struct task_struct *task;	/* the current task, or NULL */
	const struct row_owner *known;
};

/* The owner of a row made for a row_who: known, else (of_task) the current
 * task, which is the only task a row_who names. */
static __always_inline void row_owner_from(const struct row_owner *known, bool of_task,
					   struct row_owner *owner)
{
	if (known)
		__builtin_memcpy(owner, known, sizeof(*owner));
	else if (of_task)
		task_owner(bpf_get_current_task_btf(), owner);
	else
		__builtin_memset(owner, 0, sizeof(*owner));
}

/* The command line at each exec, by thread group (abi.h, struct exec_cmdline). */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, EXEC_CMDLINES_ENTRIES);
	__type(key, __u32);
	__type(value, struct exec_cmdline);
} exec_cmdlines SEC(".maps");

/* One record a CPU, built here: too big for the program's stack. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct exec_cmdline);
} exec_scratch SEC(".maps");

/*
 * task (the current task, which has just exec'd: its leader, after
 * de_thread()) as its command line now is: the new program's argv, which
 * exec has just copied to the top of its stack, so its pages are there to
 * read.  Only processes the filters could give a row (-p, -u, -c,
 * --cgroup): the others' command lines would only push wanted ones out of
 * the map.
 */
static __always_inline void remember_cmdline(const struct task_struct *task)
{
	struct exec_cmdline *record;
	char comm[TASK_COMM_LEN];
	struct mm_struct *mm = untrusted(task, struct task_struct)->mm;
	__u32 zero = 0, tgid = task->tgid, id, kept;
	unsigned long start, end;

	if (!mm || !task_row_id(task, &id) || !task_uid_selected(task) ||
	    !current_cgroup_selected())
		return;
	task_comm(task, comm);
	if (!comm_selected(comm))
		return;
	record = bpf_map_lookup_elem(&exec_scratch, &zero);
	start = mm->arg_start;
	end = mm->arg_end;
	if (!record || end <= start)
		return;
	record->len = end - start > 0xffffffffUL ? 0xffffffffU : (__u32)(end - start);
	kept = record->len;
	if (kept > EXEC_CMDLINE_BYTES)
		kept = EXEC_CMDLINE_BYTES;
	if (bpf_probe_read_user(record->args, kept, (const void *)start))
		return;
	record->kept = kept;
	record->start_ns = process_start_ns(task);
	bpf_map_update_elem(&exec_cmdlines, &tgid, record, BPF_ANY);
}

#endif /* DISKIO_PROCINFO_BPF_H */
