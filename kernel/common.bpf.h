/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What every concern of the BPF object uses: the task a program runs in, a
 * number for an I/O, the losses counted by cause (`lost`, which user space
 * reports), a map entry made on first use, and the events channel (a ring
 * buffer, or per-CPU perf buffers where the kernel has no ring buffer); and
 * the kernel's constants that BTF does not carry.
 */

#ifndef DISKIO_COMMON_BPF_H
#define DISKIO_COMMON_BPF_H

#include <vmlinux.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include "abi.h"
#include "settings.bpf.h"
#include "core_fixes.bpf.h"

#define EEXIST 17
#define PF_KTHREAD		0x00200000	/* include/linux/sched.h */
#define PF_WQ_WORKER		0x00000020

/* What was lost, by cause (LOST_*, abi.h): per CPU, summed by user space. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, LOST_NR_CAUSES);
	__type(key, __u32);
	__type(value, __u64);
} lost SEC(".maps");

/* Events for user space (-T's I/Os, crashes, new user stacks): the ring
 * buffer, or the perf buffers when use_ringbuf is false. */
struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 1 << 20);
} events SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERF_EVENT_ARRAY);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, sizeof(__u32));
} perf_events SEC(".maps");

static __always_inline void count_lost(__u32 cause)
{
	__u64 *counter = bpf_map_lookup_elem(&lost, &cause);

	if (counter)
		*counter += 1;	/* per-CPU: no other writer */
}

/*
 * A map helper's result (bpf_map_update_elem(), _delete_elem(), ...) as the
 * errno it carries.  Before Linux 6.4 the verifier turns those helpers into
 * direct calls of the map's operation, which returned an int: the upper half
 * of the 64-bit result is then zero, and -EEXIST reads as 4294967279 in a
 * long.  Every compare with an errno goes through this.
 */
static __always_inline int map_errno(long ret)
{
	return (int)ret;
}

/*
 * The entry of key in map, created from init if there is none.  NULL when the
 * map is full: the caller counts the loss.  -EEXIST: another CPU created the
 * entry first.
 */
static __always_inline void *lookup_or_try_init(void *map, const void *key, const void *init)
{
	void *entry = bpf_map_lookup_elem(map, key);
	long err;

	if (entry)
		return entry;
	err = bpf_map_update_elem(map, key, init, BPF_NOEXIST);
	if (err && map_errno(err) != -EEXIST)
		return NULL;
	return bpf_map_lookup_elem(map, key);
}

/*
 * The task a program runs in, fetched once per program run and passed down:
 * its ids, name and cgroup are then loads from it, where helpers
 * (bpf_get_current_pid_tgid(), _comm(), _cgroup_id()) would each be a call.
 */
static __always_inline struct task_struct *current_task(void)
{
	return bpf_get_current_task_btf();
}

static char io_origin;

/*
 * A number for a struct bio or struct request, the same in every program
 * and unique while the I/O is in flight: its distance from a variable of
 * this object.  The verifier lets a program loaded with CAP_PERFMON
 * subtract one pointer from another, and forbids any other arithmetic on
 * them; this is one instruction where reading the address back as a number
 * took a helper call or a store and a load.  The keys of the in-flight
 * table, the latency sample's slots and the stacked bios.
 */
static __always_inline __u64 io_number(const void *io)
{
	return (__u64)io - (__u64)&io_origin;
}

static __always_inline void emit_event(void *ctx, void *event, __u64 size)
{
	if (use_ringbuf) {
		__u64 wake = BPF_RB_NO_WAKEUP;

		if (bpf_ringbuf_query(&events, BPF_RB_AVAIL_DATA) >= ringbuf_wakeup_bytes)
			wake = BPF_RB_FORCE_WAKEUP;
		if (bpf_ringbuf_output(&events, event, size, wake))
			count_lost(LOST_RINGBUF_FULL);
	} else if (bpf_perf_event_output(ctx, &perf_events, BPF_F_CURRENT_CPU, event, size)) {
		/* The kernel reports the same drop as PERF_RECORD_LOST, but only
		 * once the buffer has room again; user space takes the larger. */
		count_lost(LOST_PERF_BUFFER);
	}
}

#endif /* DISKIO_COMMON_BPF_H */
