// SPDX-License-Identifier: GPL-2.0
/*
 * diskio kernel side: who does how much block I/O to which disk, aggregated
 * in the kernel; per-I/O events for trace mode; crashes seen at process exit.
 *
 * Counting rules, chosen so that per-device sums equal /proc/diskstats:
 *  - bytes of every disk are counted when a bio is queued (block_bio_queue),
 *    in the submitting task's context, before any merge or split;
 *  - I/Os of a blk-mq disk are requests, counted when the block layer starts
 *    accounting one (block_io_start, or block_rq_issue before Linux 6.5);
 *  - I/Os of a bio-based disk (zram, pmem, dm, md, brd) are bios, counted at
 *    block_bio_queue; such disks never fire the request hooks, and requests
 *    of blk-mq disks are never counted at the bio hook, so nothing counts twice;
 *  - a disk's flushes are the flush requests it completed, counted per disk
 *    at block_rq_complete (count_device_flush()); a row's flushes are the
 *    bios its process queued that ask for a cache flush (REQ_PREFLUSH).
 */
#include <vmlinux.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "diskio.h"
#include "core_fixes.bpf.h"

#define EEXIST 17
#define BDI_CAP_WRITEBACK	(1 << 0)	/* include/linux/backing-dev.h, 5.10+ */
#define BDEVFS_MAGIC		0x62646576	/* the block devices' pseudo-fs */
#define FOLIO_MAPPING_FLAGS	0x3UL		/* PAGE_MAPPING_ANON | PAGE_MAPPING_MOVABLE */
#define S_IFMT			00170000
#define S_IFREG			0100000
#define PF_KTHREAD		0x00200000	/* include/linux/sched.h */
#define PF_WQ_WORKER		0x00000020

/* Keeps the compiler from moving memory accesses across it. */
#define barrier()		asm volatile("" ::: "memory")

/* Filters and modes, set by user space before load. */
const volatile __u32 filter_pids[MAX_FILTER_PIDS] = {};
const volatile __u32 nr_filter_pids = 0;
const volatile __u32 filter_devs[MAX_FILTER_DEVS] = {};
const volatile __u32 nr_filter_devs = 0;
const volatile char filter_comm[TASK_COMM_LEN] = {};
const volatile bool filter_by_comm = false;
/* --cgroup: a process passes if one of its ancestors at filter_cgroup_levels[i]
 * (the depth of the group) is filter_cgroups[i]. */
const volatile __u64 filter_cgroups[MAX_FILTER_CGROUPS] = {};
const volatile __u32 filter_cgroup_levels[MAX_FILTER_CGROUPS] = {};
const volatile __u32 nr_filter_cgroups = 0;
/* Charge writeback to the process that dirtied the pages (not --submitter). */
const volatile bool charge_owner = true;
/* PAGE_SHIFT is not in BTF. */
const volatile __u32 page_shift = 12;
/* Remember each I/O's submitter until completion (-L, -T, or a pid/comm
 * filter, which must also filter the per-device latency: it is then summed
 * from the selected processes' rows). */
const volatile bool track_inflight = false;
const volatile bool trace_events = false;		/* -T */
/* Per-process totals; trace mode (-T) shows events only and skips them. */
const volatile bool aggregate = true;
const volatile bool use_ringbuf = true;
/* Wake the reader once this many bytes wait in the ring buffer, not per event. */
const volatile __u64 ringbuf_wakeup_bytes = 0;
/* Before Linux 6.5 there is no block_io_start/done: block_rq_issue and
 * block_rq_complete stand in for them. */
const volatile bool rq_fallback_hooks = false;
/* With them, block_getrq (one argument, the bio) counts each request in its
 * submitter's context. */
const volatile bool getrq_hook = false;
/* A request ends at block_rq_complete (its last part), not block_io_done:
 * with the fallback hooks, and in the default mode, where the flushes keep
 * block_rq_complete attached anyway: one program a request fewer. */
const volatile bool done_at_rq_complete = false;

/* Default mode (--latency-sample): 1 in latency_sample_every bios of
 * bio-based disks has its latency measured, those whose hash is below
 * latency_sample_cutoff (diskio.h).  0 when I/Os are tracked: every one is. */
const volatile __u64 latency_sample_cutoff = 0;
const volatile __u32 latency_sample_every = 0;

/* --stacks: STACKS_KERNEL | STACKS_USER, 0 without.  Every stack path is
 * behind this constant, so the verifier drops it from the default mode. */
const volatile __u32 stacks_mode = 0;
/* -t, or the top view's t key: a row per thread (its id in
 * proc_dev_key.tgid, its own name), not per process (the thread group,
 * named by its leader).  Written by user space while the programs run. */
bool per_thread = false;

/* Set once a bio of a bio-based disk carries the kernel's own submission
 * stamp (recent kernels, 6.18, stamp none): block_bio_complete then times
 * those exactly instead of sampling them. */
bool bio_stamps_seen = false;

/* Stacked devices (dm, md) need block_bio_complete, to forget their bios:
 * user space sets this once it is attached (at start, unless -T). */
bool stacked_tracked = false;

/* Set by user space once every hook is attached.  An I/O that starts before
 * its completion hook is attached would hold its in-flight slot until the
 * address is used again, and be counted as a completion unseen (a latency
 * sample, its slot). */
bool inflight_armed = false;

/*
 * The rows' counters, per CPU: the hot path adds without locked
 * instructions; user space sums.  Block tracepoints run with preemption off
 * and a program is never re-entered on a CPU, so plain additions to this
 * CPU's copy are not torn.  A row's counters are a slot of the `rows` array
 * (struct row_slot), found by its key in `row_index` once, then through
 * this CPU's memo of its last row: an array lookup and a compare where a
 * per-CPU hash map costs a hash of the 32-byte key and a bucket walk per I/O.
 */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, STATS_MAX_ENTRIES);
	__type(key, __u32);
	__type(value, struct proc_dev_stats);
} rows SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, STATS_MAX_ENTRIES);
	__type(key, struct proc_dev_key);
	__type(value, struct row_slot);
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
 * mapsize.h): one copy shared by all CPUs, added to atomically. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, OVERFLOW_STATS_ENTRIES);
	__type(key, struct proc_dev_key);
	__type(value, struct proc_dev_stats);
} overflow_stats SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, DEVICE_LATENCY_ENTRIES);
	__type(key, __u32);
	__type(value, struct dev_latency);
} device_latency SEC(".maps");

/* Flush requests completed, per disk (the kernel's dev_t): what
 * /proc/diskstats counts, see count_device_flush(). */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, DEVICE_FLUSHES_ENTRIES);
	__type(key, __u32);
	__type(value, __u64);
} device_flushes SEC(".maps");

/* Tracked I/Os (-L, -T, -p, -c, --cgroup): each row's latency, whose sums
 * are its disk's.  Not per CPU: 1 KiB a row. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, ROW_LATENCY_ENTRIES);
	__type(key, struct proc_dev_key);
	__type(value, struct dev_latency);
} row_latency SEC(".maps");

/*
 * I/Os in flight (-L, -T, -p, -c), keyed by the address of their struct
 * request or struct bio: a table of buckets in an array, each bucket the ids
 * of INFLIGHT_WAYS I/Os in one cache line (inflight_ids), claimed with
 * compare-and-exchange, and what is remembered of each I/O beside it
 * (inflight, at bucket * INFLIGHT_WAYS + way).  A hash map costs a locked
 * insert and a locked delete per I/O (~400 ns here); a way costs two atomic
 * instructions, and looking an id up reads one cache line.
 */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, INFLIGHT_BUCKETS);
	__type(key, __u32);
	__type(value, struct inflight_bucket);
} inflight_ids SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, INFLIGHT_SLOTS);
	__type(key, __u32);
	__type(value, struct inflight);
} inflight SEC(".maps");

/* The sampled bios of bio-based disks in flight (sample_bio_start()), each
 * in the slot its number hashes to: one entry without sampling. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, LATENCY_SAMPLE_SLOTS);
	__type(key, __u32);
	__type(value, struct latency_sample);
} latency_samples SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, LOST_NR_CAUSES);
	__type(key, __u32);
	__type(value, __u64);
} lost SEC(".maps");

/* The last dirtier of each regular file whose pages are dirty; entries not
 * dirtied for a while are deleted by user space. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, OWNERS_ENTRIES);
	__type(key, struct inode_key);
	__type(value, struct write_owner);
} owners SEC(".maps");

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

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 1 << 20);
} events SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERF_EVENT_ARRAY);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, sizeof(__u32));
} perf_events SEC(".maps");

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

/* A bio a stacking driver (dm, md) made from an upper device's I/O and sent
 * to a disk below: from its remap (block_bio_remap) until it completes.  Its
 * I/O is counted on the lower disk on a row of its own (KEY_MARK_STACKED),
 * not again as its submitter's. */
struct stacked_bio {
	__u32 upper;		/* the device it serves */
	__u32 lower;		/* the disk it was sent to */
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, STACKED_BIOS_ENTRIES);
	__type(key, __u64);
	__type(value, struct stacked_bio);
} stacked_bios SEC(".maps");

/* -t: the thread group of each thread that has a row, for user space
 * (written when the thread's row is made). */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, THREAD_GROUPS_ENTRIES);
	__type(key, __u32);
	__type(value, __u32);
} thread_groups SEC(".maps");

/* Entries in stacked_bios: while 0, the I/O hooks do not look there. */
__u64 stacked_in_flight = 0;

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

static __always_inline void count_lost(__u32 cause)
{
	__u64 *counter = bpf_map_lookup_elem(&lost, &cause);

	if (counter)
		*counter += 1;	/* per-CPU: no other writer */
}

_Static_assert(MAX_FILTER_PIDS == MAX_FILTER_DEVS, "one loop bound for both filters");

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

/*
 * The task a program runs in, fetched once per program run and passed down:
 * its ids, name and cgroup are then loads from it, where helpers
 * (bpf_get_current_pid_tgid(), _comm(), _cgroup_id()) would each be a call.
 */
static __always_inline struct task_struct *current_task(void)
{
	return bpf_get_current_task_btf();
}

/* The id task's row is keyed by: its thread group's, with -t its own. */
static __always_inline __u32 row_id(const struct task_struct *task)
{
	return per_thread ? task->pid : task->tgid;
}

/* task's row id; false if -p selects neither its process nor, with -t,
 * its TID. */
static __always_inline bool task_row_id(const struct task_struct *task, __u32 *id)
{
	*id = row_id(task);
	return pid_selected(task->tgid) || (per_thread && pid_selected(task->pid));
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
	const __u64 *name = (const __u64 *)(per_thread ? task->comm : task->group_leader->comm);
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
 * in comm with KEY_MARK_WORKER (diskio.h); user space prefixes the worker's
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
 * current task: four loads instead of a helper call on every I/O. */
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
	if (!task_row_id(task, &key->tgid))
		return false;
	key->dev = dev;
	worker = task_comm(task, key->comm);
	if (!comm_selected(key->comm) || !current_cgroup_selected())
		return false;
	key->cgroup = task_cgroup_id(task);
	if (worker)
		name_worker(task, key->comm);
	return true;
}

/* Filters that select processes: the I/O dm and md send to the disks below
 * belongs to none. */
static __always_inline bool process_filters(void)
{
	return nr_filter_pids || filter_by_comm || nr_filter_cgroups;
}

/*
 * If bio_id is a bio a stacking driver sent to dev, the row of the I/O it
 * carries for the device above (*counted false if -D does not select dev,
 * or a process filter is on).  The entry stays until the bio completes: a
 * blk-mq disk counts the I/O when its request starts.
 */
static __always_inline bool stacked_row(__u64 bio_id, __u32 dev, struct proc_dev_key *key,
					bool *counted)
{
	struct stacked_bio *stacked;

	if (!*(volatile __u64 *)&stacked_in_flight)
		return false;
	stacked = bpf_map_lookup_elem(&stacked_bios, &bio_id);
	if (!stacked || stacked->lower != dev)
		return false;
	*counted = dev_selected(dev) && !process_filters();
	key->tgid = 0;
	key->dev = dev;
	key->cgroup = stacked->upper;
	key->comm[TASK_COMM_LEN - 1] = KEY_MARK_STACKED;
	return true;
}

/*
 * The process that last dirtied the file a write bio's data belongs to: the
 * bio's first page -> its folio -> the folio's mapping -> a regular file.
 * NULL for anything else (journal, metadata, swap, direct I/O buffers).
 */
static __always_inline struct write_owner *bio_owner(struct bio *bio)
{
	struct bio_vec *vecs = bio->bi_io_vec;
	unsigned long head, mapping;
	struct inode_key key = {};
	struct write_owner *owner;
	struct folio *folio;
	struct inode *host;
	struct page *page;

	/* A split-off part of a bio (a clone) has no bi_vcnt of its own but
	 * shares its parent's vector from bi_idx on. */
	if (!vecs || !bio->bi_iter.bi_size)
		return NULL;
	page = BPF_CORE_READ(vecs + bio->bi_iter.bi_idx, bv_page);
	if (!page)
		return NULL;
	head = BPF_CORE_READ(page, compound_head);	/* page_folio() */
	folio = (head & 1) ? (struct folio *)(head - 1) : (struct folio *)page;
	/* Writeback sets PG_writeback before submitting; a direct write from
	 * a buffer that maps a file does not, and stays with its submitter. */
	if (!folio_test(folio, bpf_core_enum_value(enum pageflags, PG_writeback)))
		return NULL;
	mapping = (unsigned long)BPF_CORE_READ(folio, mapping);
	if (!mapping || (mapping & FOLIO_MAPPING_FLAGS))
		return NULL;
	host = BPF_CORE_READ((struct address_space *)mapping, host);
	if (!host || (BPF_CORE_READ(host, i_mode) & S_IFMT) != S_IFREG)
		return NULL;
	key.inode = (__u64)host;
	owner = bpf_map_lookup_elem(&owners, &key);
	/* An inode freed and its memory used again for another file that
	 * only kernel threads dirtied: not the owner's file. */
	if (owner && owner->ino != BPF_CORE_READ(host, i_ino))
		return NULL;
	return owner;
}

/* Who a write is charged to: the file's dirtier when there is one (then
 * *on_behalf if another task submits it), else the submitter.  false if the
 * filters drop it. */
static __always_inline bool write_charged_to(const struct task_struct *task, struct bio *bio,
					     __u32 dev, struct proc_dev_key *key, bool *on_behalf)
{
	struct write_owner *owner = bio && charge_owner ? bio_owner(bio) : NULL;

	*on_behalf = false;
	if (!owner)
		return current_submitter(task, key, dev);
	if (!dev_selected(dev) || !owner->cgroup_selected || !pid_selected(owner->tgid))
		return false;
	key->tgid = owner->tgid;
	key->dev = dev;
	key->cgroup = owner->cgroup;
	__builtin_memcpy(key->comm, owner->comm, TASK_COMM_LEN);
	if (!comm_selected(key->comm))
		return false;
	*on_behalf = owner->tgid != row_id(task);
	return true;
}

/*
 * The entry of key in map, created from init if there is none.  NULL when the
 * map is full: the caller counts the loss.  bpf_map_update_elem() returns a
 * long; kept in a long so that -EEXIST (another CPU created the entry first)
 * compares right whatever the helper's sign extension.
 */
static __always_inline void *lookup_or_try_init(void *map, const void *key, const void *init)
{
	void *entry = bpf_map_lookup_elem(map, key);
	long err;

	if (entry)
		return entry;
	err = bpf_map_update_elem(map, key, init, BPF_NOEXIST);
	if (err && err != -EEXIST)
		return NULL;
	return bpf_map_lookup_elem(map, key);
}

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

/* The counters of the row at (slot, generation); NULL if the slot was
 * taken back meanwhile. */
static __always_inline struct proc_dev_stats *slot_counters(const struct row_slot *at)
{
	__u32 slot = at->slot;
	__u64 *gen = bpf_map_lookup_elem(&row_gens, &slot);

	if (!gen || *(volatile __u64 *)gen != at->gen)
		return NULL;
	return bpf_map_lookup_elem(&rows, &slot);
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

/*
 * key's counters in `rows`: this CPU's last row of its way, else the slot row_index
 * gives, else a slot taken for it.  NULL when no slot is free.
 */
static __always_inline struct proc_dev_stats *slot_row(const struct proc_dev_key *key)
{
	struct proc_dev_stats *counters;
	struct row_slot *at, found = {};
	__u32 way = (key->tgid ^ key->dev) & (ROW_MEMO_WAYS - 1);
	struct row_memo *memo;
	__u64 *gen, seq;
	long err;

	memo = bpf_map_lookup_elem(&row_memo, &way);
	if (!memo)
		return NULL;
	seq = *(volatile __u64 *)&memo->seq;
	barrier();
	if (!(seq & 1) && same_row(&memo->key, key)) {
		found = memo->at;
		barrier();
		if (*(volatile __u64 *)&memo->seq == seq) {
			counters = slot_counters(&found);
			if (counters)
				return counters;
		}
	}
	at = bpf_map_lookup_elem(&row_index, key);
	if (at) {
		found.slot = at->slot;
		found.gen = at->gen;
	} else {
		if (!take_slot(&found.slot))
			return NULL;
		gen = bpf_map_lookup_elem(&row_gens, &found.slot);
		if (!gen)
			return NULL;
		found.gen = __sync_add_and_fetch(gen, 1);
		err = bpf_map_update_elem(&row_index, key, &found, BPF_NOEXIST);
		if (err) {
			/* Another CPU took a slot for the key first. */
			bpf_map_push_elem(&free_rows, &found.slot, 0);
			at = err == -EEXIST ? bpf_map_lookup_elem(&row_index, key) : NULL;
			if (!at)
				return NULL;
			found.slot = at->slot;
			found.gen = at->gen;
		} else if (per_thread) {
			note_thread_group(key->tgid);
		}
	}
	counters = slot_counters(&found);
	if (!counters)
		return NULL;
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
	return counters;
}

/* A row's counters, and whether other CPUs add to them too. */
struct row {
	struct proc_dev_stats *stats;
	bool shared;
};

/*
 * The row of key: in the per-CPU rows, else in the shared overflow map.
 * False when both are full.  An I/O is lost once, where it is counted as one I/O:
 * at submission for bio-based disks, at the request's start for blk-mq ones.
 * Other hooks (a blk-mq disk's bios, completions) pass count_loss false.
 */
static __always_inline bool row_of(const struct proc_dev_key *key, bool count_loss,
				   struct row *row)
{
	static const struct proc_dev_stats zero;

	row->shared = false;
	row->stats = slot_row(key);
	if (row->stats)
		return true;
	row->shared = true;
	row->stats = bpf_map_lookup_elem(&overflow_stats, key);
	if (row->stats)
		return true;
	if (per_thread)
		note_thread_group(key->tgid);
	row->stats = lookup_or_try_init(&overflow_stats, key, &zero);
	if (row->stats)
		return true;
	if (count_loss)
		count_lost(LOST_STATS_MAP_FULL);
	return false;
}

static __always_inline void row_add(const struct row *row, __u64 *counter, __u64 value)
{
	if (row->shared)
		__sync_fetch_and_add(counter, value);
	else
		*counter += value;
}

/* A completion of class: its latency summed and in the histogram of map's
 * entry key (a disk's or a row's), which is returned.  The I/O itself is
 * counted in its row: a full map (NULL) loses the sample only, which user
 * space sees as a histogram short of the row's or disk's completions (then
 * no percentiles). */
static __always_inline struct dev_latency *add_latency(void *map, const void *key, __u32 class,
						       __u64 latency_ns)
{
	static const struct dev_latency zero;
	struct dev_latency *entry;

	if (class >= IO_NR_CLASSES)
		return NULL;
	entry = lookup_or_try_init(map, key, &zero);
	if (!entry)
		return NULL;
	__sync_fetch_and_add(&entry->latency_ns[class], latency_ns);
	__sync_fetch_and_add(&entry->ios[class], 1);
	__sync_fetch_and_add(&entry->slots[class][latency_slot(latency_ns)], 1);
	return entry;
}

static __always_inline __u32 io_flags(__u32 opf)
{
	__u32 flags = 0;

	if (opf & REQ_FLAG(PREFLUSH))
		flags |= IO_FLAG_PREFLUSH;
	if (opf & REQ_FLAG(FUA))
		flags |= IO_FLAG_FUA;
	if (opf & REQ_FLAG(RAHEAD))
		flags |= IO_FLAG_RAHEAD;
	if (opf & REQ_FLAG(SYNC))
		flags |= IO_FLAG_SYNC;
	if (opf & REQ_FLAG(META))
		flags |= IO_FLAG_META;
	return flags;
}

static __always_inline bool disk_is_bio_based(const struct gendisk *disk)
{
	return disk->queue->mq_ops == NULL;
}

static __always_inline __u64 elapsed_since(__u64 now, __u64 start, __u64 mask)
{
	if (!start)
		return 0;
	now &= mask;
	return now > start ? now - start : 0;
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

static __always_inline void emit_io_event(void *ctx, const struct inflight *io, __u32 dev,
					  __u64 now, __u64 latency_ns)
{
	struct block_io_event event = {
		.type = EVENT_IO,
		.tgid = io->who.tgid,
		.time_ns = now,
		.latency_ns = latency_ns,
		.sector = io->sector,
		.bytes = io->bytes,
		.dev = dev,
		.op = io->op,
		.flags = io->flags,
	};

	__builtin_memcpy(event.comm, io->who.comm, sizeof(event.comm));
	emit_event(ctx, &event, sizeof(event));
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

/* An I/O in the in-flight table: its way in its bucket, and its record. */
struct inflight_ref {
	__u64 *id;		/* the way: the I/O's id while it is in flight, then 0 */
	struct inflight *io;
};

_Static_assert(INFLIGHT_BUCKETS == 1 << 11, "the hash takes 11 bits: one per bucket number bit");

static __always_inline struct inflight_bucket *inflight_bucket_of(__u64 id, __u32 *index)
{
	/* Fibonacci hashing of the address; its low bits are alignment. */
	*index = (__u32)(((id >> 6) * 0x9E3779B97F4A7C15ULL) >> (64 - 11)) & (INFLIGHT_BUCKETS - 1);
	return bpf_map_lookup_elem(&inflight_ids, index);
}

/* ref to way of bucket number index; false if the map has no such slot. */
static __always_inline bool inflight_ref_to(struct inflight_bucket *bucket, __u32 index,
					    int way, struct inflight_ref *ref)
{
	__u32 slot;

	if (way < 0 || way >= INFLIGHT_WAYS)
		return false;
	slot = index * INFLIGHT_WAYS + way;
	ref->io = bpf_map_lookup_elem(&inflight, &slot);
	ref->id = &bucket->id[way];
	return ref->io != NULL;
}

/* The I/O id, if it is in the table. */
static __always_inline bool inflight_find(__u64 id, struct inflight_ref *ref)
{
	__u32 index;
	struct inflight_bucket *bucket = inflight_bucket_of(id, &index);
	int way = -1;

	if (!bucket)
		return false;
#pragma unroll
	for (int w = 0; w < INFLIGHT_WAYS; w++) {
		if (bucket->id[w] == id) {
			way = w;
			break;
		}
	}
	return inflight_ref_to(bucket, index, way, ref);
}

/* A free way of id's bucket, now owned by id; false when all are taken. */
static __always_inline bool inflight_claim(__u64 id, struct inflight_ref *ref)
{
	__u32 index;
	struct inflight_bucket *bucket = inflight_bucket_of(id, &index);
	int way = -1;

	if (!bucket)
		return false;
#pragma unroll
	for (int w = 0; w < INFLIGHT_WAYS; w++) {
		if (!bucket->id[w] && __sync_val_compare_and_swap(&bucket->id[w], 0, id) == 0) {
			way = w;
			break;
		}
	}
	if (inflight_ref_to(bucket, index, way, ref))
		return true;
	if (way >= 0)		/* never: the two maps have the same number of slots */
		__sync_val_compare_and_swap(&bucket->id[way & (INFLIGHT_WAYS - 1)], id, 0);
	return false;
}

/* A tracked I/O finished: latency of its row, and the trace event (-T). */
static __always_inline void complete_tracked(void *ctx, __u64 id, __u32 dev, __u64 now,
					     __u64 start_ns)
{
	struct inflight_ref ref;
	struct row row;
	struct inflight *io;
	__u64 latency_ns;

	if (!inflight_find(id, &ref))
		return;
	io = ref.io;
	if (!start_ns)
		start_ns = io->start_ns;
	latency_ns = elapsed_since(now, start_ns, ~0ULL);
	/* Every tracked I/O belongs to a row: its latency goes to the row's
	 * histogram, and user space sums the rows of a disk for the disk's.
	 * Only when the histograms' map is full does it go to the row's own
	 * sums (a loss counts at submission). */
	if (aggregate && !add_latency(&row_latency, &io->who, io_classify(io->op), latency_ns) &&
	    row_of(&io->who, false, &row)) {
		row_add(&row, &row.stats->latency_ns, latency_ns);
		row_add(&row, &row.stats->latency_ios, 1);
	}
	if (trace_events)
		emit_io_event(ctx, io, dev, now, latency_ns);
	/* Free the way only after reading the record (a full barrier). */
	__sync_val_compare_and_swap(ref.id, id, 0);
}

/*
 * An entry still there when its request or bio is used again means that I/O
 * completed while the completion hook did not run: under load the kernel
 * occasionally skips BPF programs at block_io_done (seen on loop devices on
 * 6.18, for bpftrace too, with no recursion miss reported).  Count it, so
 * that events received plus lost still equal the I/Os completed.  A request
 * that block_rq_issue sees again was requeued, not lost.
 */
static __always_inline void remember_inflight(__u64 id, const struct proc_dev_key *who,
					      __u64 start_ns, __u64 sector, __u32 bytes,
					      __u32 opf)
{
	struct inflight_ref ref;

	if (!inflight_armed)
		return;
	if (inflight_find(id, &ref)) {
		if (!rq_fallback_hooks)
			count_lost(LOST_COMPLETION_UNSEEN);
	} else if (!inflight_claim(id, &ref)) {
		count_lost(LOST_INFLIGHT_FULL);
		return;
	}
	ref.io->who = *who;
	ref.io->start_ns = start_ns;
	ref.io->sector = sector;
	ref.io->bytes = bytes;
	ref.io->op = opf & DISKIO_REQ_OP_MASK;
	ref.io->flags = io_flags(opf);
}

/* ---- --stacks ---- */

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
		.start_ns = task->group_leader->start_time,
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
		.start_ns = task->group_leader->start_time,
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
	else if (err != -EEXIST)
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

/* ---- sampled latency of bio-based disks (diskio.h, latency_sampled()) ---- */

/* A sample's slot is taken over when the bio in it was submitted this long
 * ago: its completion was not seen (the kernel skipped the hook), or it is
 * so slow that losing its sample does not matter. */
#define LATENCY_SAMPLE_STALE_NS	(30ULL * 1000000000ULL)

/* A chosen bio had no free slot: the sample is smaller, the I/O itself was
 * counted.  Counted in the disk's latency entry (rare: not the hot path). */
static __always_inline void sample_dropped(__u32 dev)
{
	static const struct dev_latency zero;
	struct dev_latency *entry = lookup_or_try_init(&device_latency, &dev, &zero);

	if (entry)
		__sync_fetch_and_add(&entry->samples_dropped, 1);
}

/*
 * A bio of a bio-based disk is submitted (default mode): if it is one of
 * the 1 in latency_sample_every chosen, its submission time goes to its
 * slot.  A bio the kernel stamps itself is measured exactly at completion
 * instead.  An unchosen bio clears its slot if it holds this bio's number:
 * left there by an earlier I/O of the same bio whose completion was not
 * seen, it must not time this one.
 */
static __always_inline void sample_bio_start(struct bio *bio, __u32 dev, __u32 class)
{
	__u64 id, owner, now, stamp_mask;
	struct latency_sample *slot;
	__u32 index;

	if (!latency_sample_cutoff || class >= IO_NR_CLASSES)
		return;
	id = io_number(bio);
	index = latency_sample_slot(id);
	slot = bpf_map_lookup_elem(&latency_samples, &index);
	if (!slot)
		return;
	if (!latency_sampled(id, bio->bi_iter.bi_sector, latency_sample_cutoff) ||
	    !inflight_armed || bio_issue_ns(bio, &stamp_mask)) {
		if (slot->bio == id)
			__sync_val_compare_and_swap(&slot->bio, id, 0);
		return;
	}
	now = bpf_ktime_get_ns();
	owner = slot->bio;
	if ((owner && owner != id && now - slot->start_ns < LATENCY_SAMPLE_STALE_NS) ||
	    __sync_val_compare_and_swap(&slot->bio, owner, id) != owner) {
		sample_dropped(dev);
		return;
	}
	slot->start_ns = now;
}

/*
 * A bio completes (default mode): if its number is in its slot, it was
 * chosen, and its latency goes to its disk's histogram.  true when nothing
 * more is to be done with the bio: the kernel stamps no bio (the only other
 * use of the hook, I/Os not being tracked).  An unchosen bio costs a hash
 * and one load; its disk is not even looked at.
 */
static __always_inline bool sample_bio_done(struct bio *bio)
{
	struct latency_sample *slot;
	struct dev_latency *entry;
	__u64 id, start_ns;
	__u32 index, dev;

	if (!latency_sample_cutoff)
		return false;
	id = io_number(bio);
	index = latency_sample_slot(id);
	slot = bpf_map_lookup_elem(&latency_samples, &index);
	if (!slot || slot->bio != id)
		return !bio_stamps_seen;
	start_ns = slot->start_ns;
	/* Freed only after reading the start (a full barrier); lost to a
	 * submission that took the slot over meanwhile. */
	if (__sync_val_compare_and_swap(&slot->bio, id, 0) != id)
		return !bio_stamps_seen;
	/* Only bios of selected bio-based disks are chosen. */
	dev = disk_dev(bio_disk(bio));
	entry = add_latency(&device_latency, &dev, io_classify(bio->bi_opf),
			    elapsed_since(bpf_ktime_get_ns(), start_ns, ~0ULL));
	if (entry)
		entry->sample_every = latency_sample_every;
	return true;
}

SEC("tp_btf/block_bio_queue")
int BPF_PROG(handle_bio_queue, struct bio *bio)
{
	struct gendisk *disk = bio_disk(bio);
	__u32 opf = bio->bi_opf;
	__u32 class = io_classify(opf);
	__u32 bytes = bio->bi_iter.bi_size;
	struct proc_dev_key key = {};
	struct row row;
	__u64 stamp_mask;
	bool bio_based, on_behalf = false, stacked, counted;

	if (class == IO_IGNORED)
		return 0;
	stacked = stacked_row(io_number(bio), disk_dev(disk), &key, &counted);
	if (stacked) {
		if (!counted)
			return 0;
	} else if (class == IO_WRITE) {
		if (!write_charged_to(current_task(), bio, disk_dev(disk), &key, &on_behalf))
			return 0;
	} else if (!current_submitter(current_task(), &key, disk_dev(disk))) {
		return 0;
	}
	bio_based = disk_is_bio_based(disk);
	if (aggregate && row_of(&key, bio_based, &row)) {
		if (class == IO_FLUSH || (opf & REQ_FLAG(PREFLUSH)))
			row_add(&row, &row.stats->flushes, 1);
		if (class < IO_NR_CLASSES) {
			row_add(&row, &row.stats->bytes[class], bytes);
			if (bio_based)
				row_add(&row, &row.stats->ios[class], 1);
		}
		if (on_behalf)
			row_add(&row, &row.stats->writeback_bytes, bytes);
	}
	/* Not writeback charged to a dirtier: the stack would be the flusher's;
	 * not a stacked device's: its stack is on the device above. */
	if (stacks_mode && aggregate && !on_behalf && !stacked && class < IO_NR_CLASSES)
		add_stack_bio(ctx, &key, class, bytes, bio_based, io_number(bio));
	if (bio_based && !track_inflight && !bio_stamps_seen && bio_issue_ns(bio, &stamp_mask))
		bio_stamps_seen = true;
	if (bio_based && !track_inflight)
		sample_bio_start(bio, key.dev, class);
	if (bio_based && track_inflight && class < IO_NR_CLASSES)
		remember_inflight(io_number(bio), &key, bpf_ktime_get_ns(),
				  bio->bi_iter.bi_sector, bytes, opf);
	return 0;
}

/* A bio of stacked_bios completed: its address may name another bio next. */
static __noinline void forget_stacked_bio(__u64 bio_id)
{
	if (!bpf_map_delete_elem(&stacked_bios, &bio_id))
		__sync_fetch_and_add(&stacked_in_flight, -1);
}

/*
 * dm and md send the I/O of their device to the disks below as bios of their
 * own, remapped from the device above; a partition's bio is remapped onto
 * its own disk, which is not a device below.
 */
SEC("tp_btf/block_bio_remap")
int BPF_PROG(handle_bio_remap, struct bio *bio, dev_t dev, sector_t from)
{
	struct stacked_bio stacked = { .upper = dev };
	struct block_device *bdev;
	__u64 bio_id = io_number(bio);
	long err;

	/* Not before block_bio_complete, which forgets them, is attached;
	 * never with -T (no rows). */
	if (!stacked_tracked || !bpf_core_field_exists(bio->bi_bdev))
		return 0;
	bdev = bio->bi_bdev;
	if (!bdev || bdev->bd_dev == dev)
		return 0;
	stacked.lower = disk_dev(bdev->bd_disk);
	err = bpf_map_update_elem(&stacked_bios, &bio_id, &stacked, BPF_NOEXIST);
	if (!err)
		__sync_fetch_and_add(&stacked_in_flight, 1);
	else if (err == -EEXIST)
		bpf_map_update_elem(&stacked_bios, &bio_id, &stacked, BPF_EXIST);
	else
		count_lost(LOST_STACKED_MAP_FULL);
	return 0;
}

SEC("tp_btf/block_bio_complete")
int BPF_PROG(handle_bio_complete, struct request_queue *q, struct bio *bio)
{
	__u64 start_ns, stamp_mask;
	struct gendisk *disk;
	__u32 dev;

	if (*(volatile __u64 *)&stacked_in_flight)
		forget_stacked_bio(io_number(bio));
	if (sample_bio_done(bio))
		return 0;
	disk = bio_disk(bio);
	if (!disk_is_bio_based(disk))
		return 0;
	dev = disk_dev(disk);
	if (track_inflight) {
		complete_tracked(ctx, io_number(bio), dev, bpf_ktime_get_ns(), 0);
		return 0;
	}
	/* Without -L the exact latency of a bio-based disk needs the kernel's
	 * own stamp, which most queues do not keep: check it first, it is cheap. */
	start_ns = bio_issue_ns(bio, &stamp_mask);
	if (!start_ns || !dev_selected(dev))
		return 0;
	add_latency(&device_latency, &dev, io_classify(bio->bi_opf),
		    elapsed_since(bpf_ktime_get_ns(), start_ns, stamp_mask));
	return 0;
}

/* An I/O of a blk-mq disk starts being accounted: one I/O, charged to the
 * current task; tracked under id (-L, -T). */
static __always_inline void io_started(void *ctx, __u64 id, __u32 opf, __u32 dev,
				       struct bio *bio, __u64 sector, __u32 bytes)
{
	__u32 class = io_classify(opf);
	__u64 bio_id = bio ? io_number(bio) : 0;
	struct proc_dev_key key = {};
	struct row row;
	bool on_behalf = false, stacked, counted;

	if (class >= IO_NR_CLASSES)
		return;
	stacked = stacked_row(bio_id, dev, &key, &counted);
	if (stacked) {
		if (!counted)
			return;
	} else if (class == IO_WRITE) {
		if (!write_charged_to(current_task(), bio, dev, &key, &on_behalf))
			return;
	} else if (!current_submitter(current_task(), &key, dev)) {
		return;
	}
	if (aggregate && row_of(&key, true, &row))
		row_add(&row, &row.stats->ios[class], 1);
	/* The request's bytes went to the stack at block_bio_queue. */
	if (stacks_mode && aggregate && !on_behalf && !stacked)
		add_stack_request(ctx, &key, class, bio_id);
	if (track_inflight)
		remember_inflight(id, &key, 0, sector, bytes, opf);
}

static __always_inline void request_started(void *ctx, struct request *rq)
{
	io_started(ctx, io_number(rq), rq->cmd_flags, request_dev(rq), rq->bio, rq->__sector,
		   rq->__data_len);
}

/*
 * With block_getrq, a request reaching block_rq_issue was counted and its
 * submitter remembered under its first bio; from here on it is tracked under
 * the request.  A request whose first bio was not seen there (a front merge
 * replaced it) is tracked with the dispatching task as its submitter.
 */
static __always_inline void request_tracked_from_bio(void *ctx, struct request *rq)
{
	__u64 id = io_number(rq), bio_id = rq->bio ? io_number(rq->bio) : 0;
	struct inflight_ref ref;
	struct proc_dev_key who = {};
	__u32 dev = request_dev(rq);

	/* Not counted at block_getrq either; requeued: already tracked. */
	if (io_classify(rq->cmd_flags) >= IO_NR_CLASSES || inflight_find(id, &ref))
		return;
	if (bio_id && inflight_find(bio_id, &ref)) {
		who = ref.io->who;
		__sync_val_compare_and_swap(ref.id, bio_id, 0);
	} else if (!current_submitter(current_task(), &who, dev)) {
		return;
	}
	remember_inflight(id, &who, 0, rq->__sector, rq->__data_len, rq->cmd_flags);
}

/* Dispatch to the driver: merges are over, so sector and size are final. */
static __always_inline void request_issued(void *ctx, struct request *rq)
{
	struct inflight_ref ref;

	if (!trace_events || !inflight_find(io_number(rq), &ref))
		return;
	ref.io->sector = rq->__sector;
	ref.io->bytes = rq->__data_len;
	ref.io->flags = io_flags(rq->cmd_flags);
}

static __always_inline void request_done(void *ctx, struct request *rq)
{
	__u64 start_ns = rq->start_time_ns;
	__u32 dev = request_dev(rq);
	__u64 now = bpf_ktime_get_ns();

	if (track_inflight) {
		complete_tracked(ctx, io_number(rq), dev, now, start_ns);
		return;
	}
	if (!start_ns || !dev_selected(dev))
		return;
	add_latency(&device_latency, &dev, io_classify(rq->cmd_flags),
		    elapsed_since(now, start_ns, ~0ULL));
}

SEC("tp_btf/block_io_start")
int BPF_PROG(handle_io_start, struct request *rq)
{
	request_started(ctx, rq);
	return 0;
}

SEC("tp_btf/block_io_done")
int BPF_PROG(handle_io_done, struct request *rq)
{
	request_done(ctx, rq);
	return 0;
}

SEC("tp_btf/block_rq_issue")
int BPF_PROG(handle_rq_issue, struct request *rq)
{
	if (rq_fallback_hooks && !getrq_hook)
		request_started(ctx, rq);
	else if (rq_fallback_hooks && track_inflight)
		request_tracked_from_bio(ctx, rq);
	request_issued(ctx, rq);
	return 0;
}

/*
 * Before Linux 6.5, block_getrq fires where block_io_start does since: in
 * blk_mq_submit_bio(), as a new request is set up for a bio, in the
 * submitter's context.  block_rq_issue may run in a kblockd worker instead
 * (a plug flushed when its task sleeps: every O_DIRECT write to a virtio
 * disk on Linux 6.1), so the I/O is counted here, and tracked under its bio
 * until block_rq_issue.
 */
SEC("tp_btf/block_getrq")
int BPF_PROG(handle_getrq, struct bio *bio)
{
	struct gendisk *disk = bio_disk(bio);

	io_started(ctx, io_number(bio), bio->bi_opf, disk_dev(disk), bio,
		   bio->bi_iter.bi_sector, bio->bi_iter.bi_size);
	return 0;
}

/*
 * A disk's flushes, as /proc/diskstats counts them (its 19th column, "flush
 * requests completed").  Only the flush machinery of blk-mq disks
 * (block/blk-flush.c, alike from Linux 5.5 to 6.18) counts them, as its own
 * REQ_OP_FLUSH request completes (flush_end_io(), blk_account_io_flush()).
 * It issues that request on a disk with a volatile write cache, one per
 * pre-flush or post-flush step, shared by all the requests waiting at that
 * step: a PREFLUSH|FUA write to a disk without FUA (a loop device) becomes a
 * pre-flush, the data and a post-flush.  Bio-based disks (zram, dm, md)
 * count none: a driver that accounts a flush bio counts a write.
 * block_rq_complete fires for the flush request on every kernel (it never
 * completes in a batch); block_io_done fires for it only when the queue
 * keeps blk-stat statistics.  Which process a flush served is not known
 * (several may share one): the count is the disk's.  Every other request's
 * completion costs the hook's call, a load and a compare.
 */
static __always_inline void count_device_flush(struct request *rq)
{
	static const __u64 zero;
	__u64 *flushes;
	__u32 dev;

	if ((rq->cmd_flags & DISKIO_REQ_OP_MASK) != DISKIO_REQ_OP_FLUSH)
		return;
	dev = request_dev(rq);
	if (!dev_selected(dev))
		return;
	flushes = lookup_or_try_init(&device_flushes, &dev, &zero);
	if (flushes)
		__sync_fetch_and_add(flushes, 1);
	else
		count_lost(LOST_STATS_MAP_FULL);
}

/* Every request's completion: flushes (not in trace mode); and where
 * block_io_done is not used (done_at_rq_complete), the end of a request,
 * which may complete in parts: it is done when the last part completes. */
SEC("tp_btf/block_rq_complete")
int BPF_PROG(handle_rq_complete, struct request *rq, blk_status_t error, unsigned int nr_bytes)
{
	if (aggregate)
		count_device_flush(rq);
	if (done_at_rq_complete && nr_bytes >= rq->__data_len)
		request_done(ctx, rq);
	return 0;
}

/*
 * The whole disk under an inode, and whether the kernel charges dirtying its
 * pages to the task: mapping_can_writeback(), i.e. BDI_CAP_WRITEBACK of
 * inode_to_bdi(), which is the disk's own for block-device inodes.
 */
static __always_inline bool inode_charged(struct inode *inode, __u32 *dev)
{
	struct super_block *sb = inode->i_sb;
	struct gendisk *disk;

	if (sb->s_magic == BDEVFS_MAGIC) {
		/* I_BDEV(): struct bdev_inode { struct block_device bdev; struct inode vfs_inode; } */
		struct block_device *bdev = (void *)inode -
					    bpf_core_field_offset(struct bdev_inode, vfs_inode);

		disk = BPF_CORE_READ(bdev, bd_disk);
		if (!disk || !(BPF_CORE_READ(disk, bdi, capabilities) & BDI_CAP_WRITEBACK))
			return false;
		*dev = MKDEV(BPF_CORE_READ(disk, major), BPF_CORE_READ(disk, first_minor));
		return true;
	}
	if (!(sb->s_bdi->capabilities & BDI_CAP_WRITEBACK))
		return false;
	/* A filesystem on no single disk (NFS, btrfs's anonymous device) has
	 * no s_bdev: its dirtying is counted on dev 0.  Direct loads through
	 * BTF pointers: a NULL s_bdev reads as a NULL disk. */
	disk = sb->s_bdev->bd_disk;
	*dev = disk ? disk_dev(disk) : 0;
	return true;
}

/* This CPU's last owner written to the owners map: a process writing a file
 * dirties folio after folio of it, and needs one map update a second. */
struct owner_memo {
	struct inode_key key;
	struct write_owner owner;
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct owner_memo);
} last_owner SEC(".maps");

#define OWNER_REFRESH_NS	1000000000ULL	/* user space forgets after 120 s */

static __always_inline bool same_owner(const struct write_owner *owner,
				       const struct proc_dev_key *who)
{
	/* comm compared as two words: both are 8-byte aligned */
	return owner->tgid == who->tgid && owner->cgroup == who->cgroup &&
	       ((const __u64 *)owner->comm)[0] == ((const __u64 *)who->comm)[0] &&
	       ((const __u64 *)owner->comm)[1] == ((const __u64 *)who->comm)[1];
}

/* The file's dirtier, so that its writeback is charged to it. */
static __always_inline void remember_owner(struct inode *host, const struct proc_dev_key *who,
					   bool cgroup_selected)
{
	struct inode_key key = { .inode = (__u64)host };
	__u32 zero = 0;
	struct owner_memo *memo = bpf_map_lookup_elem(&last_owner, &zero);
	struct write_owner *owner;
	__u64 now = bpf_ktime_get_ns();

	if (!memo)
		return;
	/* Also when the map had no room: one loss a second, not one a folio. */
	if (memo->key.inode == key.inode && same_owner(&memo->owner, who) &&
	    now - memo->owner.dirtied_ns < OWNER_REFRESH_NS)
		return;
	owner = bpf_map_lookup_elem(&owners, &key);
	if (owner && same_owner(owner, who) && owner->ino == host->i_ino) {
		owner->dirtied_ns = now;
	} else {
		struct write_owner fresh = {
			.tgid = who->tgid,
			.cgroup = who->cgroup,
			.cgroup_selected = cgroup_selected,
			.dirtied_ns = now,
			.ino = host->i_ino,
		};

		__builtin_memcpy(fresh.comm, who->comm, TASK_COMM_LEN);
		if (bpf_map_update_elem(&owners, &key, &fresh, BPF_ANY))
			count_lost(LOST_OWNER_MAP_FULL);
	}
	memo->key = key;
	memo->owner.tgid = who->tgid;
	memo->owner.cgroup = who->cgroup;
	memo->owner.dirtied_ns = now;
	__builtin_memcpy(memo->owner.comm, who->comm, TASK_COMM_LEN);
}

/*
 * Whether the current task becomes the owner of a file it dirties.  A
 * kernel thread does not, so that the flusher re-dirtying a page does not
 * take the file over from the process that wrote it; except a workqueue
 * worker doing other work than writeback: a loop device's worker writing
 * its backing file, whose writeback then serves the loop device.
 */
static __always_inline bool may_own(const struct task_struct *task, const struct proc_dev_key *who)
{
	const char *flush = "flush-";

	if (!(task->flags & PF_KTHREAD))
		return true;
	if (who->comm[TASK_COMM_LEN - 1] != KEY_MARK_WORKER)
		return false;
	for (int i = 0; i < 6; i++)
		if (who->comm[i] != flush[i])
			return true;
	return false;
}

/* Page cache dirtied, where the kernel charges it to the task's
 * /proc/PID/io write_bytes (folio_account_dirtied()). */
SEC("tp_btf/writeback_dirty_folio")
int BPF_PROG(handle_dirty_folio, struct folio *folio, struct address_space *mapping)
{
	struct task_struct *task = current_task();
	struct proc_dev_key key = {};
	struct row row;
	struct inode *host;
	bool selected, worker, comm_taken, pid_taken;
	__u32 dev;

	/* The event class allows a NULL mapping (the verifier says so). */
	if (!mapping)
		return 0;
	host = mapping->host;
	if (!host || !inode_charged(host, &dev))
		return 0;
	pid_taken = task_row_id(task, &key.tgid);
	key.dev = dev;
	key.cgroup = task_cgroup_id(task);
	worker = task_comm(task, key.comm);
	selected = current_cgroup_selected();
	comm_taken = comm_selected(key.comm);
	if (worker)
		name_worker(task, key.comm);
	if (selected && dev_selected(dev) && pid_taken && comm_taken) {
		__u64 bytes = folio_nr_pages(folio) << page_shift;

		if (row_of(&key, true, &row))
			row_add(&row, &row.stats->dirtied_bytes, bytes);
		/* The write() caller's stack: its writeback's is the flusher's. */
		if (stacks_mode) {
			struct stack_key sk = {};
			struct stack_counts *counts = current_stack_counts(ctx, &key, &sk);

			if (counts)
				__sync_fetch_and_add(&counts->dirtied_bytes, bytes);
		}
	}
	if (charge_owner && (host->i_mode & S_IFMT) == S_IFREG && may_own(task, &key))
		remember_owner(host, &key, selected);
	return 0;
}

/* The wait(2) status of a dying thread group: low 7 bits the signal, 0x80
 * a core dump.  All threads of a dying group carry the group's exit code; the
 * one that dumped core adds 0x80 to it once the dump is written. */
static __always_inline __u32 group_exit_status(struct task_struct *task)
{
	__u32 code = task->signal->group_exit_code;

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

SEC("tp_btf/sched_process_exit")
int BPF_PROG(handle_exit, struct task_struct *task, bool group_dead)
{
	__u32 code;

	if (!group_dead)
		return 0;
	note_stack_process_exit(ctx, task);
	code = group_exit_status(task);
	if (is_crash_signal(code & 0x7f))
		report_crash(ctx, task, code);
	return 0;
}

/* Without group_dead, two threads exiting at once may both see signal->live
 * at zero; the first to claim the group (tgid and leader start time, which
 * survive pid reuse) reports it. */
SEC("tp_btf/sched_process_exit")
int BPF_PROG(handle_exit_legacy, struct task_struct *task)
{
	struct crashed_group group = {};
	__u8 claimed = 1;
	__u32 code;

	if (task->signal->live.counter != 0)
		return 0;
	note_stack_process_exit(ctx, task);
	code = group_exit_status(task);
	if (!is_crash_signal(code & 0x7f))
		return 0;
	group.tgid = task->tgid;
	group.start_time = task->group_leader->start_time;
	if (bpf_map_update_elem(&crashed_groups, &group, &claimed, BPF_NOEXIST))
		return 0;
	report_crash(ctx, task, code);
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
