/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The submitter's row, remembered per task (issue 34): a process reading a
 * disk submits I/O after I/O with the same key (its id, name and cgroup,
 * the disk), and current_submitter() and row_of() would normalize its name,
 * run the filters and compare the whole key with the row memo's at each.
 * Each CPU keeps, for the last tasks that submitted on it (one per way, by
 * the task's address), what the key was made from (the process and thread
 * ids, the name's two words as read, the cgroup id, the disk) beside the
 * key and its row's slot.  The key is a function of those alone, and so is
 * whether the filters take it (except --cgroup's, which asks the cgroup's
 * ancestors: not remembered then), so an I/O whose task reads the same is
 * the same row.  A name changed by exec or prctl, a cgroup move, another
 * task at the same address: each reads differently, and the I/O takes the
 * long way, which remembers it again.  A workqueue worker is named by the
 * work it does (name_worker()), not by what it reads here: never
 * remembered.  The slot's generation is checked as the row memo's is.
 */

#ifndef DISKIO_TASK_ROWS_BPF_H
#define DISKIO_TASK_ROWS_BPF_H

#include <vmlinux.h>
#include <bpf/bpf_helpers.h>
#include "abi.h"
#include "settings.bpf.h"
#include "common.bpf.h"
#include "submitter.bpf.h"
#include "rows.bpf.h"

#define TASK_ROW_WAYS	8

/* What a row's key was made from, the key's name and its slot.  seq is odd
 * while a program writes it, as in struct row_memo. */
struct task_row {
	__u64 name[2];		/* the name's words as task_comm() reads them */
	__u64 comm[2];		/* the key's name: name_word() of name */
	__u64 cgroup;
	__u32 tgid;
	__u32 pid;
	__u32 dev;
	__u32 pad;
	struct row_slot at;
	__u64 seq;
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, TASK_ROW_WAYS);
	__type(key, __u32);
	__type(value, struct task_row);
} task_rows SEC(".maps");

static __always_inline struct task_row *task_row_of(const struct task_struct *task)
{
	/* Fibonacci hashing of the address; its low bits are alignment. */
	__u32 way = ((io_number(task) >> 6) * 0x9E3779B97F4A7C15ULL) >> (64 - 3);

	return bpf_map_lookup_elem(&task_rows, &way);
}

/* The words task_comm() makes the key's name of. */
static __always_inline const __u64 *task_name_source(const struct task_struct *task)
{
	return (const __u64 *)(per_thread ? task->comm : task->group_leader->comm);
}

/* task's key and row's slot for an I/O to dev, if this CPU remembers them
 * and the task still reads as it did. */
static __always_inline bool remembered_row(const struct task_struct *task, __u32 dev,
					   struct proc_dev_key *key, struct row_found *found)
{
	/* Walked from the trusted task: their loads, at every I/O, are not
	 * guarded as an untrusted() pointer's are; this is the first thing
	 * submitter_find() does, so the verifier checks them on few paths. */
	const __u64 *name = task_name_source(task);
	struct task_row *memo = task_row_of(task);
	struct row_slot at;
	__u64 seq;

	if (!memo)
		return false;
	seq = *(volatile __u64 *)&memo->seq;
	barrier();
	/* seq 0: never written (its zeroes could match slot 0's generation). */
	if (!seq || (seq & 1) || memo->dev != dev ||
	    memo->tgid != task->tgid || memo->pid != task->pid ||
	    memo->name[0] != name[0] || memo->name[1] != name[1] ||
	    memo->cgroup != task_cgroup_id(task) || (task->flags & PF_WQ_WORKER))
		return false;
	key->tgid = per_thread ? memo->pid : memo->tgid;
	key->dev = dev;
	key->cgroup = memo->cgroup;
	((__u64 *)key->comm)[0] = memo->comm[0];
	((__u64 *)key->comm)[1] = memo->comm[1];
	at = memo->at;
	barrier();
	if (*(volatile __u64 *)&memo->seq != seq)
		return false;
	/* The slot too: an I/O's failure is charged to the row at it
	 * (errors.bpf.h), member by member, as note_io_owner() copies it. */
	found->at.slot = at.slot;
	found->at.gen = at.gen;
	return slot_counters(&at, &found->cut) != NULL;
}

/* Remember that task's I/O to key->dev went to key's row, at its slot:
 * only if key is what task reads now (the name read again and normalized
 * must be key's, so that what is remembered is what the key was made of). */
static __always_inline void remember_row(const struct task_struct *task,
					 const struct proc_dev_key *key, const struct row_slot *at)
{
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	const struct task_struct *walked = untrusted(task, struct task_struct);
	const __u64 *source = task_name_source(walked);
	const __u64 *comm = (const __u64 *)key->comm;
	__u64 name0 = source[0], name1 = source[1];
	__u32 tgid = task->tgid, pid = task->pid;
	struct task_row *memo;
	bool ended = false;
	__u64 seq;

	if (nr_filter_cgroups || (task->flags & PF_WQ_WORKER) ||
	    key->tgid != (per_thread ? pid : tgid) || key->cgroup != task_cgroup_id(walked))
		return;
	if (name_word(name0, &ended) != comm[0] || name_word(name1, &ended) != comm[1])
		return;
	memo = task_row_of(task);
	if (!memo)
		return;
	/* Not while an interrupted program is writing it. */
	seq = *(volatile __u64 *)&memo->seq;
	if (seq & 1)
		return;
	*(volatile __u64 *)&memo->seq = seq + 1;
	barrier();
	memo->name[0] = name0;
	memo->name[1] = name1;
	memo->comm[0] = comm[0];
	memo->comm[1] = comm[1];
	memo->cgroup = key->cgroup;
	memo->tgid = tgid;
	memo->pid = pid;
	memo->dev = key->dev;
	memo->at = *at;
	barrier();
	*(volatile __u64 *)&memo->seq = seq + 2;
#endif
}

/* submitter_find()'s answers: the filters drop the I/O, or take it (a
 * row's ROW_FOUND_*). */
#define SUBMITTER_DROPPED	-1

/*
 * An I/O to dev the current task submits for itself: its key and, with rows
 * kept (aggregate), where its row is (ROW_FOUND_*, a loss counted with
 * FIND_COUNT_LOSS in flags when there is none), or SUBMITTER_DROPPED.  A
 * global function, as find_row() is: checked once, not at each call.
 */
__noinline int submitter_find(__u32 dev, __u32 flags, struct proc_dev_key *key_out,
			      struct row_found *found)
{
	struct task_struct *task = bpf_get_current_task_btf();
	/* on the stack: a map's key is nothing else before Linux 6.x */
	struct proc_dev_key key = {};
	int where;

	if (!key_out || !found)
		return SUBMITTER_DROPPED;
	if (aggregate && remembered_row(task, dev, &key, found)) {
		where = ROW_FOUND_SLOT;
	} else if (!current_submitter(task, &key, dev)) {
		where = SUBMITTER_DROPPED;
	} else if (!aggregate) {
		where = ROW_FOUND_NONE;
	} else {
		where = find_row(&key, NULL, flags | FIND_OWNER_TASK, found);
		if (where == ROW_FOUND_SLOT)
			remember_row(task, &key, &found->at);
	}
	__builtin_memcpy(key_out, &key, sizeof(key));
	return where;
}

/*
 * An I/O to dev the current task submits for itself: its key and, with rows
 * kept (aggregate), its row (row->stats NULL if there is none: the maps are
 * full, a loss counted if count_loss, see row_of()).  false if the filters
 * drop it.
 */
static __always_inline bool submitter_row(__u32 dev, bool count_loss, struct proc_dev_key *key,
					  struct row *row)
{
	struct row_found found = {};
	int where = submitter_find(dev, count_loss ? FIND_COUNT_LOSS : 0, key, &found);

	row->stats = NULL;
	row->shared = false;
	if (where == SUBMITTER_DROPPED)
		return false;
	row_found(key, where, &found, row);
	return true;
}

#endif /* DISKIO_TASK_ROWS_BPF_H */
