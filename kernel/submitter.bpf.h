/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Who an I/O is charged to, as a row's key (struct proc_dev_key, abi.h):
 * the submitting process (or thread, with -t), the disk, the cgroup and the
 * name, a workqueue worker being named by the work it does; and the filters
 * (-p, -u, -D, -c, --cgroup) that select it.  The key is read from the task
 * through BTF, not through helpers: the submission hooks run on every I/O.
 * Two kinds of I/O are charged to someone else: writeback, to the file's
 * dirtier (writeback.bpf.h), and what dm and md send to the disks below, to
 * the device above (stacked.bpf.h).
 */

#ifndef DISKIO_SUBMITTER_BPF_H
#define DISKIO_SUBMITTER_BPF_H

#include <vmlinux.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include "abi.h"
#include "settings.bpf.h"
#include "common.bpf.h"

_Static_assert(MAX_FILTER_PIDS == MAX_FILTER_DEVS && MAX_FILTER_PIDS == MAX_FILTER_UIDS,
	       "one loop bound for the filters");

/* value is one of set[0..n), or n is 0 (no filter). */
static __always_inline bool selected_by(const volatile __u32 *set, __u32 n, __u32 value)
{
	if (!n)
		return true;
	for (int i = 0; i < MAX_FILTER_PIDS; i++) {
		if (i >= n)
			break;
		if (set[i] == value)
			return true;
	}
	return false;
}

static __always_inline bool pid_selected(__u32 tgid)
{
	return selected_by(filter_pids, nr_filter_pids, tgid);
}

/* The id task's row is keyed by: its thread group's, with -t its own. */
static __always_inline __u32 row_id(const struct task_struct *task)
{
	return per_thread ? task->pid : task->tgid;
}

/* task's row id; false if -p selects neither its process nor its thread.
 * iotop's -p takes a thread's id too: a worker thread's I/O is then counted,
 * on its process's row (its own with -t). */
static __always_inline bool task_row_id(const struct task_struct *task, __u32 *id)
{
	*id = row_id(task);
	return pid_selected(task->tgid) || pid_selected(task->pid);
}

/* -u: uid is a row's user (procinfo.bpf.h's task_owner(): the effective
 * uid of the objective credentials). */
static __always_inline bool uid_selected(__u32 uid)
{
	return selected_by(filter_uids, nr_filter_uids, uid);
}

/* task passes -u; its credentials are read only when -u is given. */
static __always_inline bool task_uid_selected(const struct task_struct *task)
{
	return !nr_filter_uids ||
	       uid_selected(untrusted(task, struct task_struct)->real_cred->euid.val);
}

static __always_inline bool dev_selected(__u32 dev)
{
	return selected_by(filter_devs, nr_filter_devs, dev);
}

static __always_inline bool comm_selected(const char *comm)
{
	if (!filter_by_comm)
		return true;
	for (int i = 0; i < TASK_COMM_LEN; i++) {
		if (comm[i] != filter_comm[i])
			return false;
		if (!comm[i])
			break;
	}
	return true;
}

/*
 * The current task's name, NUL-padded so that it can be part of a map key.
 * bpf_get_current_comm() costs a third of the submission hook; reading the
 * task through BTF (Linux 5.11+) is two loads.  The padding is redone here
 * because older kernels did not pad comm when a task renamed itself.
 */
/* A word of a name with every byte from its first NUL on cleared (a
 * little-endian word: its first byte in memory is its lowest); *ended once a
 * NUL was seen.  Two words instead of sixteen byte tests. */
static __always_inline __u64 name_word(__u64 word, bool *ended)
{
	__u64 zero_bytes;

	if (*ended)
		return 0;
	/* The lowest flagged byte is the first NUL (flags above it may be false). */
	zero_bytes = (word - 0x0101010101010101ULL) & ~word & 0x8080808080808080ULL;
	if (!zero_bytes)
		return word;
	*ended = true;
	return word & (((zero_bytes & -zero_bytes) >> 7) - 1);
}

/* task's name into comm; true if it is a workqueue worker (name_worker()
 * may name it by its work once the filters took it). */
static __always_inline bool task_comm(const struct task_struct *task, char comm[TASK_COMM_LEN])
{
	/* A process is named by its leader, not by the thread at hand. */
	const __u64 *name = (const __u64 *)(per_thread ? task->comm :
					    untrusted(task, struct task_struct)->group_leader->comm);
	__u64 *words = (__u64 *)comm;
	bool ended = false;

	/* Two loads of a word each: a copy of the array would be a byte at a
	 * time (its alignment is not known to the compiler). */
	words[0] = name[0];
	words[1] = name[1];
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	words[0] = name_word(words[0], &ended);
	words[1] = name_word(words[1], &ended);
#else
#pragma unroll
	for (int i = 0; i < TASK_COMM_LEN; i++) {
		ended |= comm[i] == '\0';
		if (ended)
			comm[i] = '\0';
	}
#endif
	return task->flags & PF_WQ_WORKER;
}

/*
 * A workqueue worker's comm ("kworker/u8:1") says nothing of what it does:
 * its row is named by the work it is doing now (worker->desc, the name `ps`
 * adds: "flush-254:0" for writeback, "loop0" for a loop device's I/O), kept
 * in comm with KEY_MARK_WORKER (abi.h); user space prefixes the worker's
 * own name.  Linux 5.17+ (task->worker_private); before, the comm stays.
 */
static __always_inline void name_worker(const struct task_struct *task, char comm[TASK_COMM_LEN])
{
	__u64 desc[2] = {};
	bool ended = false;
	struct kthread *kthread;
	void *worker;

	if (!bpf_core_field_exists(task->worker_private))
		return;
	/* A kernel thread's worker_private is its struct kthread, whose data
	 * is a workqueue worker's struct worker (kthread_data()). */
	kthread = task->worker_private;
	worker = kthread ? BPF_CORE_READ(kthread, data) : NULL;
	if (!worker || bpf_probe_read_kernel(desc, sizeof(desc),
					     worker + bpf_core_field_offset(struct worker, desc)))
		return;
	desc[0] = name_word(desc[0], &ended);
	desc[1] = name_word(desc[1], &ended);
	if (!desc[0])
		return;
	__builtin_memcpy(comm, desc, TASK_COMM_LEN);
	comm[TASK_COMM_LEN - 1] = KEY_MARK_WORKER;
}

static __always_inline bool current_cgroup_selected(void)
{
	if (!nr_filter_cgroups)
		return true;
	for (int i = 0; i < MAX_FILTER_CGROUPS; i++) {
		if (i >= nr_filter_cgroups)
			break;
		if (bpf_get_current_ancestor_cgroup_id(filter_cgroup_levels[i]) == filter_cgroups[i])
			return true;
	}
	return false;
}

/* task's cgroup v2 id, as bpf_get_current_cgroup_id() returns it for the
 * current task: four loads instead of a helper call on every I/O.  Through
 * a trusted task they are not guarded (the remembered row's check, at every
 * I/O); elsewhere, walk an untrusted() one. */
static __always_inline __u64 task_cgroup_id(const struct task_struct *task)
{
	return task->cgroups->dfl_cgrp->kn->id;
}

/* Fill in the submitter of an I/O to dev, task (the current task); false if
 * the filters drop it. */
static __always_inline bool current_submitter(const struct task_struct *task,
					      struct proc_dev_key *key, __u32 dev)
{
	bool worker;

	if (!dev_selected(dev))
		return false;
	if (!task_row_id(task, &key->tgid) || !task_uid_selected(task))
		return false;
	key->dev = dev;
	worker = task_comm(task, key->comm);
	if (!comm_selected(key->comm) || !current_cgroup_selected())
		return false;
	key->cgroup = task_cgroup_id(untrusted(task, struct task_struct));
	if (worker)
		name_worker(task, key->comm);
	return true;
}

/* Filters that select processes: the I/O dm and md send to the disks below
 * belongs to none. */
static __always_inline bool process_filters(void)
{
	return nr_filter_pids || nr_filter_uids || filter_by_comm || nr_filter_cgroups;
}

#endif /* DISKIO_SUBMITTER_BPF_H */
