/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The rows: the counters of a process (or thread) on a disk, in a cgroup,
 * under a name (struct proc_dev_key, abi.h), which kernel/maps.c copies
 * for user space.  A row is found, or made, here; whose row an I/O goes to
 * is the caller's choice (submitter.bpf.h, writeback.bpf.h, stacked.bpf.h).
 *
 * The rows' counters, per CPU: the hot path adds without locked
 * instructions; user space sums.  Block tracepoints run with preemption off
 * and a program is never re-entered on a CPU, so plain additions to this
 * CPU's copy are not torn.  A row's counters are a slot of the `rows` array
 * (struct row_slot), found by its key in `row_index` once, then through
 * this CPU's memo of its last row: an array lookup and a compare where a
 * per-CPU hash map costs a hash of the 32-byte key and a bucket walk per I/O.
 */

#ifndef DISKIO_ROWS_BPF_H
#define DISKIO_ROWS_BPF_H

#include <vmlinux.h>
#include <bpf/bpf_helpers.h>
#include "abi.h"
#include "settings.bpf.h"
#include "common.bpf.h"
#include "procinfo.bpf.h"

/* Keeps the compiler from moving memory accesses across it. */
#define barrier()		asm volatile("" ::: "memory")

/* The rows' counters, by slot, per CPU (struct row_counters): with --files
 * also as they were at the last cut; without, the value is only `now`, its
 * first member (user space sets the size, kernel/mapsize.h's
 * row_value_bytes(): no type, so that the BTF does not hold the other). */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, STATS_MAX_ENTRIES);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, sizeof(struct row_counters));
} rows SEC(".maps");

/* --files: the last cut of the rows (struct row_counters), moved by user
 * space at each snapshot; --files' counts of a cut go to the map of its
 * parity (files.bpf.h).  0 without --files. */
__u64 rows_cut = 0;

/* Each row's slot, and whose row it is (struct row_entry), by its key. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, STATS_MAX_ENTRIES);
	__type(key, struct proc_dev_key);
	__type(value, struct row_entry);
} row_index SEC(".maps");

/* Each slot's generation: raised when the slot is taken and when user
 * space takes it back. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, STATS_MAX_ENTRIES);
	__type(key, __u32);
	__type(value, __u64);
} row_gens SEC(".maps");

/* Slots given back by user space (zeroed), taken again before new ones. */
struct {
	__uint(type, BPF_MAP_TYPE_QUEUE);
	__uint(max_entries, STATS_MAX_ENTRIES);
	__type(value, __u32);
} free_rows SEC(".maps");

/* Each CPU's last rows, one per way: a key's way is a hash of its process
 * and disk, so that processes doing I/O in turn on one CPU keep theirs. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, ROW_MEMO_WAYS);
	__type(key, __u32);
	__type(value, struct row_memo);
} row_memo SEC(".maps");

/* Slots never taken yet: rows_taken of the rows_slots (the size of `rows`,
 * set by user space). */
const volatile __u32 rows_slots = STATS_MAX_ENTRIES;
__u64 rows_taken = 0;

/* Rows the per-CPU rows have no slot for (with many CPUs they hold few, see
 * mapsize.h): one copy shared by all CPUs, added to atomically, and whose
 * row it is.  Its entries are allocated as rows are made (mostly none):
 * preallocating 65,536 took 7 ms of every start. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, OVERFLOW_STATS_ENTRIES);
	__type(key, struct proc_dev_key);
	__type(value, struct overflow_row);
} overflow_stats SEC(".maps");

/* A new overflow_stats entry is made here: find_row()'s stack, with its
 * callers', must stay within 512 bytes (Linux 6.1 counts them together). */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct overflow_row);
} overflow_fresh SEC(".maps");

/* -t: the thread group of each thread that has a row, for user space
 * (written when the thread's row is made). */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, THREAD_GROUPS_ENTRIES);
	__type(key, __u32);
	__type(value, __u32);
} thread_groups SEC(".maps");

/* -t: a new row of the current thread: user space learns its process. */
static __always_inline void note_thread_group(__u32 id)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	__u32 tgid = pid_tgid >> 32;

	if (id == (__u32)pid_tgid)
		bpf_map_update_elem(&thread_groups, &id, &tgid, BPF_ANY);
}

/* comm is 16 bytes at offset 8: two aligned words. */
static __always_inline bool same_row(const struct proc_dev_key *a, const struct proc_dev_key *b)
{
	const __u64 *ca = (const __u64 *)a->comm, *cb = (const __u64 *)b->comm;

	return a->tgid == b->tgid && a->dev == b->dev && a->cgroup == b->cgroup &&
	       ca[0] == cb[0] && ca[1] == cb[1];
}

/* The counters of the row at (slot, generation), and in *cut the cut they
 * are added under; NULL if the slot was taken back meanwhile.  The first
 * call after a cut keeps the counters as they were at it. */
static __always_inline struct proc_dev_stats *slot_counters(const struct row_slot *at,
							    __u64 *cut)
{
	__u32 slot = at->slot;
	__u64 *gen = bpf_map_lookup_elem(&row_gens, &slot);
	struct row_counters *counters;
	__u64 now_cut;

	if (!gen || *(volatile __u64 *)gen != at->gen)
		return NULL;
	counters = bpf_map_lookup_elem(&rows, &slot);
	if (!counters)
		return NULL;
	*cut = 0;
	if (!files_counted)	/* a value of `now` only: no cut */
		return &counters->now;
	now_cut = *(volatile __u64 *)&rows_cut;
	if (counters->cut != now_cut) {
		/* In this order, for user space's reading (kernel/maps.c's
		 * slot_at_cut()): at_cut, then the cut, then any addition. */
		counters->at_cut = counters->now;
		barrier();
		*(volatile __u64 *)&counters->cut = now_cut;
		barrier();
	}
	*cut = now_cut;
	return &counters->now;
}

/* A slot for a new row: one given back, else one never taken.  false when
 * every slot is in use. */
static __always_inline bool take_slot(__u32 *slot)
{
	__u64 next;

	if (!bpf_map_pop_elem(&free_rows, slot))
		return true;
	if (*(volatile __u64 *)&rows_taken >= rows_slots)
		return false;
	next = __sync_fetch_and_add(&rows_taken, 1);
	if (next >= rows_slots)
		return false;
	*slot = next;
	return true;
}

/* find_row()'s answers. */
#define ROW_FOUND_NONE		0	/* no room: a loss counted if asked */
#define ROW_FOUND_SLOT		1	/* its per-CPU slot, in found->at */
#define ROW_FOUND_SHARED	2	/* its entry of the shared overflow_stats */

/* find_row()'s flags. */
#define FIND_COUNT_LOSS		1	/* no room: count a loss (see row_of()) */
#define FIND_OWNER_TASK		2	/* a row made is the current task's */

/* Where find_row() found a row: its slot, and the cut its counters are
 * added under (slot_counters()). */
struct row_found {
	struct row_slot at;
	__u64 cut;
};

/*
 * The memo of key's way on this CPU: its slot, if it is still key's row's.
 */
static __always_inline bool memo_slot(struct row_memo *memo, const struct proc_dev_key *key,
				      struct row_slot *found)
{
	__u64 seq = *(volatile __u64 *)&memo->seq;

	barrier();
	if ((seq & 1) || !same_row(&memo->key, key))
		return false;
	*found = memo->at;
	barrier();
	return *(volatile __u64 *)&memo->seq == seq;
}

/*
 * key's slot in `rows`: this CPU's last row of its way, else the slot
 * row_index gives, else a slot taken for it (its entry saying whose row it
 * is: known, else the current task with FIND_OWNER_TASK, else no one).
 * false when no slot is free.
 */
static __always_inline bool slot_row(const struct proc_dev_key *key,
				     const struct row_owner *known, __u32 flags,
				     struct row_found *where)
{
	struct row_entry *at;
	struct row_slot found = {};
	__u32 way = (key->tgid ^ key->dev) & (ROW_MEMO_WAYS - 1);
	struct row_memo *memo;
	__u64 *gen, seq;
	long err;

	memo = bpf_map_lookup_elem(&row_memo, &way);
	if (!memo)
		return false;
	if (memo_slot(memo, key, &found) && slot_counters(&found, &where->cut)) {
		where->at = found;
		return true;
	}
	at = bpf_map_lookup_elem(&row_index, key);
	if (at) {
		found.slot = at->at.slot;
		found.gen = at->at.gen;
	} else {
		/* Only here: the hot path above stays as it was. */
		struct row_entry made = {};

		if (!take_slot(&found.slot))
			return false;
		gen = bpf_map_lookup_elem(&row_gens, &found.slot);
		if (!gen)
			return false;
		found.gen = __sync_add_and_fetch(gen, 1);
		made.at = found;
		row_owner_from(known, flags & FIND_OWNER_TASK, &made.owner);
		err = bpf_map_update_elem(&row_index, key, &made, BPF_NOEXIST);
		if (err) {
			/* Another CPU took a slot for the key first. */
			bpf_map_push_elem(&free_rows, &found.slot, 0);
			at = map_errno(err) == -EEXIST ? bpf_map_lookup_elem(&row_index, key) : NULL;
			if (!at)
				return false;
			found.slot = at->at.slot;
			found.gen = at->at.gen;
		} else if (per_thread) {
			note_thread_group(key->tgid);
		}
	}
	if (!slot_counters(&found, &where->cut))
		return false;
	where->at = found;
	/* Not while an interrupted program is writing it. */
	seq = *(volatile __u64 *)&memo->seq;
	if (!(seq & 1)) {
		*(volatile __u64 *)&memo->seq = seq + 1;
		barrier();
		memo->at = found;
		__builtin_memcpy(&memo->key, key, sizeof(*key));
		barrier();
		*(volatile __u64 *)&memo->seq = seq + 2;
	}
	return true;
}

/*
 * Where key's row is (struct row_found, ROW_FOUND_*): in the per-CPU rows,
 * else in the shared overflow map, made if it is not there.  A global
 * function (issue 46): the verifier checks it once for each program, not
 * once for each path into each of its calls, which was most of the time
 * it took to load the programs.  It can only give numbers back, not the
 * counters: the caller looks them up by the slot (row_of()).
 */
__noinline int find_row(const struct proc_dev_key *key_arg, const struct row_owner *known,
			__u32 flags, struct row_found *found)
{
	struct overflow_row *shared;
	struct proc_dev_key key;

	if (!key_arg || !found)
		return ROW_FOUND_NONE;
	/* on the stack: a map's key is nothing else before Linux 6.x */
	__builtin_memcpy(&key, key_arg, sizeof(key));
	if (slot_row(&key, known, flags, found))
		return ROW_FOUND_SLOT;
	shared = bpf_map_lookup_elem(&overflow_stats, &key);
	if (!shared) {
		__u32 zero = 0;
		struct overflow_row *fresh = bpf_map_lookup_elem(&overflow_fresh, &zero);

		if (fresh) {
			__builtin_memset(fresh, 0, sizeof(*fresh));
			if (per_thread)
				note_thread_group(key.tgid);
			row_owner_from(known, flags & FIND_OWNER_TASK, &fresh->owner);
			shared = lookup_or_try_init(&overflow_stats, &key, fresh);
		}
	}
	if (shared)
		return ROW_FOUND_SHARED;
	if (flags & FIND_COUNT_LOSS)
		count_lost(LOST_STATS_MAP_FULL);
	return ROW_FOUND_NONE;
}

/* A row's counters, and whether other CPUs add to them too. */
struct row {
	struct proc_dev_stats *stats;
	bool shared;
	struct row_slot at;	/* the slot of a row not shared */
	__u64 cut;		/* the cut it is added under (a shared row: rows_cut
				 * as it was read, which no snapshot cuts at) */
};

/*
 * The row of key: in the per-CPU rows, else in the shared overflow map; a
 * new one says whose row it is (who).  False when both are full.  An I/O is
 * lost once, where it is counted as one I/O: at submission for bio-based
 * disks, at the request's start for blk-mq ones.  Other hooks (a blk-mq
 * disk's bios, completions) pass count_loss false.
 */
/* *row, of key, as find_row() found it (where, found). */
static __always_inline bool row_found(const struct proc_dev_key *key, int where,
				      const struct row_found *found, struct row *row)
{
	struct row_counters *counters;
	struct overflow_row *shared;
	__u32 slot;

	row->stats = NULL;
	row->shared = where == ROW_FOUND_SHARED;
	row->cut = found->cut;
	if (where == ROW_FOUND_SLOT) {
		/* a slot user space takes back is not used again before its
		 * next snapshot (kernel/maps.c): adding to it meanwhile is
		 * as adding just before it was taken */
		slot = found->at.slot;
		counters = bpf_map_lookup_elem(&rows, &slot);
		row->at = found->at;
		row->stats = counters ? &counters->now : NULL;
	} else if (where == ROW_FOUND_SHARED) {
		row->cut = *(volatile __u64 *)&rows_cut;
		shared = bpf_map_lookup_elem(&overflow_stats, key);
		/* taken by user space meanwhile: as if taken just after */
		row->stats = shared ? &shared->stats : NULL;
	}
	return row->stats != NULL;
}

static __always_inline bool row_of(const struct proc_dev_key *key, bool count_loss,
				   struct row_who who, struct row *row)
{
	struct row_found found = {};
	int where = find_row(key, who.known,
			     (count_loss ? FIND_COUNT_LOSS : 0) | (who.task ? FIND_OWNER_TASK : 0),
			     &found);

	return row_found(key, where, &found, row);
}

static __always_inline void row_add(const struct row *row, __u64 *counter, __u64 value)
{
	if (row->shared)
		__sync_fetch_and_add(counter, value);
	else
		*counter += value;
}

#endif /* DISKIO_ROWS_BPF_H */
