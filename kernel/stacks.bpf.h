/* SPDX-License-Identifier: GPL-2.0 */
/*
 * --stacks: bytes and I/Os per row and stack (stack_counts), the stacks by
 * id (stack_traces), and, for a user stack seen the first time, an event
 * with what names its frames once the process is gone (build ids and file
 * offsets, the executable's path, the registers for .eh_frame).  Every path
 * here is behind stacks_mode, a constant: without --stacks the verifier
 * drops them all, and the maps hold one entry each.
 */

#ifndef DISKIO_STACKS_BPF_H
#define DISKIO_STACKS_BPF_H

#include <vmlinux.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "abi.h"
#include "settings.bpf.h"
#include "common.bpf.h"
#include "rows.bpf.h"

/* --stacks (one entry each otherwise, see size_maps()): the stacks, by id;
 * entries are never deleted, so an id names one stack for the whole run. */
struct {
	__uint(type, BPF_MAP_TYPE_STACK_TRACE);
	__uint(max_entries, STACK_TRACES_ENTRIES);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, STACK_MAX_FRAMES * sizeof(__u64));
} stack_traces SEC(".maps");

/* Bytes and I/Os per (row, kernel stack, user stack), added to atomically. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, STACK_COUNTS_ENTRIES);
	__type(key, struct stack_key);
	__type(value, struct stack_counts);
} stack_counts SEC(".maps");

/* --stacks on blk-mq disks: the stack each bio was queued from, until its
 * request starts (block_io_start), whose I/O is counted there.  A bio that
 * was merged into another's request never starts one: LRU, so that such
 * entries make room. */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, BIO_STACKS_ENTRIES);
	__type(key, __u64);
	__type(value, struct stack_key);
} bio_stacks SEC(".maps");

/* Processes user space keeps mappings of (user stacks): their exit is told. */
struct stack_process {
	__u32 tgid;
	__u32 pad;
	__u64 start_ns;
};

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, STACK_PROCESSES_ENTRIES);
	__type(key, struct stack_process);
	__type(value, __u8);
} stack_processes SEC(".maps");

/* With the perf buffer, a user_stack_event is built here, in the entry of
 * the CPU (it is too big for the BPF stack); one entry without --stacks
 * (see size_maps()).  With the ring buffer it is built in the ring. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct user_stack_event);
} user_stack_scratch SEC(".maps");

/* The current task's stack ids; a failed capture is STACK_ID_UNAVAILABLE
 * and one loss of the I/O's stack (the I/O itself stays in its row). */
static __always_inline void current_stacks(void *ctx, struct stack_key *sk)
{
	bool failed = false;
	long id;

	sk->kernel_stack = STACK_ID_NONE;
	sk->user_stack = STACK_ID_NONE;
	if (stacks_mode & STACKS_KERNEL) {
		id = bpf_get_stackid(ctx, &stack_traces, 0);
		sk->kernel_stack = id >= 0 ? id : STACK_ID_UNAVAILABLE;
		failed |= id < 0;
	}
	/* A kernel thread has no user stack: none, not lost. */
	if ((stacks_mode & STACKS_USER) &&
	    !(current_task()->flags & PF_KTHREAD)) {
		id = bpf_get_stackid(ctx, &stack_traces, BPF_F_USER_STACK);
		sk->user_stack = id >= 0 ? id : STACK_ID_UNAVAILABLE;
		failed |= id < 0;
	}
	if (failed)
		count_lost(LOST_STACK_UNAVAILABLE);
}

/*
 * The current process's executable: identity, mount namespace, and the
 * names on its path up to the namespace's root, innermost first, crossing
 * mounts as d_path() does; a mount crossed takes an entry of its own, an
 * empty name.  exe_depth stays 0 when the path has more than
 * EXE_PATH_DEPTH entries.  Names go to entry i of loop turn i, so that the
 * verifier follows one state a turn.
 */
static __always_inline void note_exe(struct user_stack_event *event, struct task_struct *task)
{
	__u64 mount_offset = bpf_core_field_offset(struct mount, mnt);
	struct file *exe = BPF_CORE_READ(task, mm, exe_file);
	struct dentry *dentry, *parent;
	struct mount *mnt, *mnt_parent;

	event->exe_depth = 0;
	event->exe_ino = 0;
	if (!exe)
		return;
	event->exe_ino = BPF_CORE_READ(exe, f_inode, i_ino);
	event->exe_dev = BPF_CORE_READ(exe, f_inode, i_sb, s_dev);
	event->mnt_ns = BPF_CORE_READ(task, nsproxy, mnt_ns, ns.inum);
	event->parent_tgid = BPF_CORE_READ(task, real_parent, tgid);
	dentry = BPF_CORE_READ(exe, f_path.dentry);
	mnt = (void *)BPF_CORE_READ(exe, f_path.mnt) - mount_offset;
	for (__u32 i = 0; i < EXE_PATH_DEPTH; i++) {
		parent = BPF_CORE_READ(dentry, d_parent);
		if (dentry == BPF_CORE_READ(mnt, mnt.mnt_root) || dentry == parent) {
			mnt_parent = BPF_CORE_READ(mnt, mnt_parent);
			if (mnt_parent == mnt) {
				event->exe_depth = i;
				return;
			}
			event->exe_names[i][0] = '\0';
			dentry = BPF_CORE_READ(mnt, mnt_mountpoint);
			mnt = mnt_parent;
			continue;
		}
		bpf_probe_read_kernel_str(event->exe_names[i], EXE_NAME_LEN,
					  BPF_CORE_READ(dentry, d_name.name));
		dentry = parent;
	}
}

/* The user stack pointer where the kernel was entered, the word at the
 * frame pointer + 8 and the first bytes of the stack: what user space needs
 * to find the caller of a frameless function by its .eh_frame rule. */
static __always_inline void note_user_regs(struct user_stack_event *event,
					   struct task_struct *task)
{
	struct pt_regs *regs = (struct pt_regs *)bpf_task_pt_regs(task);
	__u64 sp, bp;

	event->user_sp = 0;
	event->user_ret = 0;
	event->stack_len = 0;
	if (!regs)
		return;
	sp = PT_REGS_SP_CORE(regs);
	bp = PT_REGS_FP_CORE(regs);
	if (bp && bpf_probe_read_user(&event->user_ret, sizeof(event->user_ret),
				      (void *)(bp + 8)))
		event->user_ret = 0;
	if (!sp || bpf_probe_read_user(event->stack_bytes, sizeof(event->stack_bytes),
				       (void *)sp))
		return;
	event->user_sp = sp;
	event->stack_len = sizeof(event->stack_bytes);
}

/*
 * A new user stack of a row: user space gets it at once as build ids and
 * file offsets, which name its frames even after the process is gone, and
 * reads the process's mappings while it lives.  Only on a new stack_counts
 * entry, so the build-id walk stays off the path of stacks seen before.
 */
static __always_inline long fill_user_stack(void *ctx, struct user_stack_event *event,
					    const struct stack_key *sk, struct task_struct *task,
					    __u64 start_ns)
{
	long size = bpf_get_stack(ctx, event->frames, sizeof(event->frames),
				  BPF_F_USER_STACK | BPF_F_USER_BUILD_ID);

	if (size < 0)
		size = 0;
	if (size > sizeof(event->frames))
		size = sizeof(event->frames);
	event->type = EVENT_USER_STACK;
	event->tgid = sk->who.tgid;
	event->start_ns = start_ns;
	event->exec_id = task->self_exec_id;
	event->user_stack = sk->user_stack;
	event->nframes = size / sizeof(event->frames[0]);
	note_exe(event, task);
	note_user_regs(event, task);
	return size;
}

static __always_inline void note_user_stack(void *ctx, const struct stack_key *sk)
{
	struct task_struct *task = current_task();
	struct stack_process process = {
		.tgid = sk->who.tgid,
		.start_ns = untrusted(task, struct task_struct)->group_leader->start_time,
	};
	struct user_stack_event *event;
	__u8 seen = 1;
	long size;

	if (sk->user_stack < 0)
		return;
	bpf_map_update_elem(&stack_processes, &process, &seen, BPF_ANY);
	if (use_ringbuf) {
		event = bpf_ringbuf_reserve(&events, sizeof(*event), 0);
		if (!event) {
			count_lost(LOST_RINGBUF_FULL);
			return;
		}
		fill_user_stack(ctx, event, sk, task, process.start_ns);
		/* At once: the process may be about to exit. */
		bpf_ringbuf_submit(event, BPF_RB_FORCE_WAKEUP);
	} else {
		__u32 cpu = bpf_get_smp_processor_id();

		event = bpf_map_lookup_elem(&user_stack_scratch, &cpu);
		if (!event)
			return;
		size = fill_user_stack(ctx, event, sk, task, process.start_ns);
		if (bpf_perf_event_output(ctx, &perf_events, BPF_F_CURRENT_CPU, event,
					  offsetof(struct user_stack_event, frames) + size))
			count_lost(LOST_PERF_BUFFER);
	}
}

/* A process user space keeps mappings of has ended (the last thread). */
static __always_inline void note_stack_process_exit(void *ctx, struct task_struct *task)
{
	struct stack_process process = {
		.tgid = task->tgid,
		.start_ns = untrusted(task, struct task_struct)->group_leader->start_time,
	};
	struct stack_process_exit_event event = {
		.type = EVENT_STACK_PROCESS_EXIT,
		.tgid = process.tgid,
		.start_ns = process.start_ns,
	};

	if (!(stacks_mode & STACKS_USER) || bpf_map_delete_elem(&stack_processes, &process))
		return;
	emit_event(ctx, &event, sizeof(event));
}

/* The counts of who's current stacks (their key in *sk); NULL (one loss)
 * when the map is full. */
static __always_inline struct stack_counts *current_stack_counts(void *ctx,
								 const struct proc_dev_key *who,
								 struct stack_key *sk)
{
	static const struct stack_counts zero;
	struct stack_counts *counts;
	long err;

	sk->who = *who;
	current_stacks(ctx, sk);
	counts = bpf_map_lookup_elem(&stack_counts, sk);
	if (counts)
		return counts;
	err = bpf_map_update_elem(&stack_counts, sk, &zero, BPF_NOEXIST);
	if (!err)
		note_user_stack(ctx, sk);
	else if (map_errno(err) != -EEXIST)
		goto full;
	counts = bpf_map_lookup_elem(&stack_counts, sk);
	if (counts)
		return counts;
full:
	count_lost(LOST_STACKS_MAP_FULL);
	return NULL;
}

/* A bio the current task submits for itself: its bytes, and on a bio-based
 * disk its I/O.  On a blk-mq disk the I/O is the request's, counted when it
 * starts (add_stack_request()): the bio's stack is remembered for it. */
static __always_inline void add_stack_bio(void *ctx, const struct proc_dev_key *who,
					  __u32 class, __u64 bytes, bool bio_based, __u64 bio_id)
{
	struct stack_key sk = {};
	struct stack_counts *counts = current_stack_counts(ctx, who, &sk);

	if (!counts)
		return;
	__sync_fetch_and_add(&counts->bytes[class], bytes);
	if (bio_based)
		__sync_fetch_and_add(&counts->ios[class], 1);
	else
		bpf_map_update_elem(&bio_stacks, &bio_id, &sk, BPF_ANY);
}

/* A blk-mq request starts: one I/O, on the stack its first bio was queued
 * from when it is this row's (the stack at block_io_start is the block
 * layer's, not the submitter's); else on the current stack. */
static __always_inline void add_stack_request(void *ctx, const struct proc_dev_key *who,
					      __u32 class, __u64 bio_id)
{
	struct stack_key *queued = bio_id ? bpf_map_lookup_elem(&bio_stacks, &bio_id) : NULL;
	struct stack_counts *counts = NULL;
	struct stack_key sk = {};

	if (queued && same_row(&queued->who, who))
		counts = bpf_map_lookup_elem(&stack_counts, queued);
	if (queued)
		bpf_map_delete_elem(&bio_stacks, &bio_id);
	if (!counts)
		counts = current_stack_counts(ctx, who, &sk);
	if (counts)
		__sync_fetch_and_add(&counts->ios[class], 1);
}

#endif /* DISKIO_STACKS_BPF_H */
