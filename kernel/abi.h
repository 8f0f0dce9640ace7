/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The contract between diskio.bpf.c and user space: map keys and values,
 * event records, the dev_t encoding, the crash signal set and every cause of
 * a lost record.  __u32/__u64 only; self-contained on both sides.
 */
#ifndef DISKIO_ABI_H
#define DISKIO_ABI_H

#ifndef __VMLINUX_H__		/* user space; the BPF side has vmlinux.h */
#include <stdbool.h>
#include <linux/types.h>
#endif

#define TASK_COMM_LEN	16
#define MAX_FILTER_PIDS	16
#define MAX_FILTER_DEVS	16
#define MAX_FILTER_CGROUPS	16
#define MAX_FILTER_UIDS	16	/* -u */

/* Map sizes as compiled; the loader sizes them for the run (mapsize.h). */
#define STATS_MAX_ENTRIES	16384	/* per-CPU rows, fewer with many CPUs */
#define OVERFLOW_STATS_ENTRIES	65536	/* rows the per-CPU map has no room for */
#define ROW_MEMO_WAYS		8	/* each CPU's last rows (a power of two) */
#define OWNERS_ENTRIES		65536
#define DEVICE_LATENCY_ENTRIES	1024
#define DEVICE_FLUSHES_ENTRIES	1024	/* disks whose flush requests completed */
#define ROW_LATENCY_ENTRIES	8192	/* rows' histograms, tracked modes */
#define CRASH_COUNTS_ENTRIES	4096
#define CRASHED_GROUPS_ENTRIES	1024
#define INFLIGHT_SLOTS		16384	/* a power of two */
#define INFLIGHT_WAYS		8	/* slots a bucket: 64 bytes of ids */
#define INFLIGHT_BUCKETS	(INFLIGHT_SLOTS / INFLIGHT_WAYS)
/* --stacks only (1 entry each otherwise) */
#define STACK_TRACES_ENTRIES	16384	/* distinct stacks, kernel and user */
#define STACK_COUNTS_ENTRIES	16384	/* (row, kernel stack, user stack) */
#define STACK_PROCESSES_ENTRIES	4096	/* processes whose maps were asked for */
#define BIO_STACKS_ENTRIES	8192	/* blk-mq bios queued, their request not started */
#define STACKED_BIOS_ENTRIES	16384	/* bios dm or md sent to a disk below, in flight */
#define THREAD_GROUPS_ENTRIES	16384	/* -t: threads with rows, their thread group */
#define EXEC_CMDLINES_ENTRIES	4096	/* processes' command lines at exec (issue 33) */
/* Who issued each I/O in flight, for its error (issue 45): powers of two,
 * fewer (down to the least) where the maps' budget has no room */
#define IO_OWNER_SLOTS		65536
#define IO_OWNER_MIN_SLOTS	8192
/* Default mode: the sampled bios in flight (latency_samples), a power of two */
#define LATENCY_SAMPLE_SLOTS	4096
#define LATENCY_SAMPLE_SLOT_BITS	12

/* How the block layer accounts an operation (op_stat_group() in the kernel):
 * discard is its own group, secure erase and write-zeroes count as writes. */
enum io_class {
	IO_READ = 0,
	IO_WRITE = 1,
	IO_DISCARD = 2,
	IO_NR_CLASSES = 3,
	IO_FLUSH = 3,		/* an empty cache flush: counted, carries no bytes */
	IO_IGNORED = 4,		/* passthrough and driver-private operations */
};

/* The kernel's internal dev_t (include/linux/kdev_t.h), as BPF programs read
 * it from struct gendisk: not the glibc dev_t that makedev() builds. */
#define MINORBITS	20
#define MINORMASK	((1U << MINORBITS) - 1)
#define MKDEV(major, minor)	(((__u32)(major) << MINORBITS) | ((__u32)(minor) & MINORMASK))

/* Aggregation key: the process an I/O is charged to (its submitter, or for
 * writeback the process that dirtied the data) and the whole disk.  With -t
 * (per_thread) tgid holds the thread's id and comm the thread's name.
 *
 * comm's last byte, always NUL in a task's name, marks two other kinds of
 * row (KEY_MARK_*):
 * - WORKER: a workqueue worker (a kworker); comm holds the name of the work
 *   it was doing when it did the I/O or dirtied the data (the kernel's
 *   worker->desc: "flush-254:0", "loop0"), which `ps` shows after its own
 *   name ("kworker/u8:1-flush-254:0").
 * - STACKED: I/O a stacking driver (dm, md) sent to dev for the device whose
 *   dev_t is in `cgroup`; tgid 0 and comm empty.  It was counted once
 *   already, on that device, where its submitter addressed it.
 */
#define KEY_MARK_WORKER		1
#define KEY_MARK_STACKED	2

struct proc_dev_key {
	__u32 tgid;
	__u32 dev;		/* kernel dev_t of the whole disk (MKDEV) */
	char comm[TASK_COMM_LEN];
	__u64 cgroup;		/* cgroup v2 id of the process (its directory's inode) */
};

/*
 * Where a row's per-CPU counters are: slot of the `rows` array, taken for
 * the row's key at its first I/O (the `row_index` map holds key -> slot)
 * and given back by user space once the row is forgotten.  gen is the
 * slot's generation (`row_gens`) when it was taken: it changes when user
 * space takes the slot back, so that a CPU's memo of the key's slot
 * (struct row_memo) no longer matches.
 */
struct row_slot {
	__u32 slot;
	__u32 pad;
	__u64 gen;
};

/* A CPU's last row: its key and slot, so that the next I/O of the same
 * row finds its counters without a hash map lookup.  seq is odd while a
 * program writes it, and changes with each write: a program that
 * interrupts another on the CPU (a completion in an interrupt) never takes
 * a half-written memo, nor one written between its own reads. */
struct row_memo {
	struct proc_dev_key key;
	struct row_slot at;
	__u64 seq;
};

/*
 * Issue 45: the kind of a failed I/O, from the block layer's status at its
 * completion (blk_status_t, include/linux/blk_types.h), named by the errno
 * blk_status_to_errno() gives it.  The statuses' numbers have not changed
 * from Linux 4.13 to 6.18: 1 NOTSUPP, 2 TIMEOUT, 3 NOSPC, 4 TRANSPORT,
 * 5 TARGET, 7 MEDIUM, 10 IOERR; the others (6 NEXUS or RESV_CONFLICT,
 * 8 PROTECTION, 9 RESOURCE, 12 AGAIN, 13 DEV_RESOURCE, 16 OFFLINE, ...)
 * are IO_ERR_OTHER.
 */
enum io_error_kind {
	IO_ERR_EIO = 0,		/* BLK_STS_IOERR: the device failed it */
	IO_ERR_ENOSPC = 1,	/* BLK_STS_NOSPC: thin pool or file backing full */
	IO_ERR_ETIMEDOUT = 2,	/* BLK_STS_TIMEOUT */
	IO_ERR_EOPNOTSUPP = 3,	/* BLK_STS_NOTSUPP */
	IO_ERR_ENODATA = 4,	/* BLK_STS_MEDIUM: a medium error */
	IO_ERR_ENOLINK = 5,	/* BLK_STS_TRANSPORT */
	IO_ERR_EREMOTEIO = 6,	/* BLK_STS_TARGET */
	IO_ERR_OTHER = 7,
	IO_ERROR_KINDS = 8,
};

struct proc_dev_stats {
	__u64 bytes[IO_NR_CLASSES];
	__u64 ios[IO_NR_CLASSES];
	__u64 flushes;
	__u64 latency_ns;	/* tracked I/Os whose row_latency had no room: */
	__u64 latency_ios;	/* their latency summed, and their count */
	__u64 dirtied_bytes;	/* page cache dirtied, as /proc/PID/io write_bytes */
	__u64 writeback_bytes;	/* of bytes[IO_WRITE]: submitted by another task */
};

/*
 * A slot of `rows` on one CPU (issue 47): the row's counters now, and as
 * they were at the last cut.  With --files, each snapshot moves the cut
 * (rows_cut, rows.bpf.h) and waits for the programs that ran before it;
 * the first program to add to a slot after the cut copies now into at_cut
 * and notes the cut.  User space reads a slot noted at the new cut as its
 * at_cut, any other as now: every row as it stood at one instant, the
 * instant --files' counts of the interval end (files.bpf.h).
 */
struct row_counters {
	struct proc_dev_stats now;
	struct proc_dev_stats at_cut;
	__u64 cut;		/* the cut at_cut was copied at; 0: none */
};

/* A row's failed I/Os, by kind: the row_errors entry of its slot, one copy
 * for all CPUs (errors are rare: the per-CPU rows stay as small as they
 * were), zeroed with the slot when user space gives it back. */
struct row_errors {
	__u64 errors[IO_ERROR_KINDS];
};

/* The row an I/O in flight was counted in (io_owners, by a hash of its
 * number): where its error is counted if it fails. */
struct io_owner {
	__u64 io;		/* the I/O's number (io_number()); 0: none */
	struct row_slot at;
};

/* ---- issue 33: who a row is (USER, PRIO, COMMAND) ---- */

/*
 * The process a row is charged to, as it was when the row was made (the
 * kernel's row_index or overflow_stats entry was created), so that a process
 * that exits at once keeps its user and priority.  For writeback it is the
 * dirtier, as remembered when it dirtied the file (struct write_owner), not
 * the flusher that submits it.  Taken once per row, never per I/O.
 */
enum row_owner_flag {
	/* the task's sched policy (SCHED_NORMAL 0, FIFO 1, RR 2, BATCH 3,
	 * IDLE 5, DEADLINE 6, EXT 7): the I/O class of a task without one */
	ROW_OWNER_POLICY = 0x07,
	ROW_OWNER_KTHREAD = 0x40,	/* a kernel thread: no command line of its own */
	ROW_OWNER_KNOWN = 0x80,		/* the fields are a task's (0: a row of no
					 * process, I/O a stacked device sent below) */
};

/* 16 bytes: the overflow rows hold one each, 65536 of them (mapsize.h). */
struct row_owner {
	/* The process's start (its leader's start_boottime, ns since boot):
	 * /proc/PID/stat's starttime in clock ticks.  Tells the process from
	 * another that has its pid since (struct exec_cmdline, /proc). */
	__u64 start_ns;
	__u32 uid;		/* the effective uid of its objective credentials
				 * (real_cred->euid): what `ps -o user` shows */
	__u16 ioprio;		/* io_context->ioprio as set (ioprio_set(2), ionice);
				 * 0 (IOPRIO_CLASS_NONE) when none is set */
	__s8 nice;		/* static_prio - 120: the level of a task without one */
	__u8 flags;		/* ROW_OWNER_*, the policy in its low bits */
};

/* A row_index entry: the row's slot, and whose row it is. */
struct row_entry {
	struct row_slot at;
	struct row_owner owner;
};

/* An overflow_stats entry: a row's counters, shared by all CPUs, and whose
 * row it is. */
struct overflow_row {
	struct proc_dev_stats stats;
	struct row_owner owner;
};

/*
 * A process's command line as it was at its last exec (sched_process_exec):
 * mm->arg_start..arg_end, its first EXEC_CMDLINE_BYTES bytes (argv, each
 * argument NUL-terminated).  Kept in an LRU map by thread-group id for the
 * rows of processes that are gone before user space could read
 * /proc/PID/cmdline; start_ns tells them from a process that has the pid
 * since (struct row_owner).
 */
#define EXEC_CMDLINE_BYTES	256

struct exec_cmdline {
	__u64 start_ns;		/* as struct row_owner's */
	__u32 len;		/* the whole command line's bytes, maybe more than kept */
	__u32 kept;		/* the bytes in args */
	char args[EXEC_CMDLINE_BYTES];
};

/* ---- end of issue 33's block ---- */

/* A regular file: the address of its struct inode.  An address freed and
 * used again names the new file only once that file is dirtied, which
 * rewrites its owner: writeback always follows dirtying. */
struct inode_key {
	__u64 inode;
};

/* The process that last dirtied a file's pages: its writeback is charged
 * to it. */
struct write_owner {
	__u32 tgid;
	__u32 cgroup_selected;	/* passed the --cgroup filter when it dirtied */
	__u64 cgroup;
	__u64 dirtied_ns;	/* CLOCK_MONOTONIC of the last dirtying */
	__u64 ino;		/* the file's inode number: its address alone may be reused */
	char comm[TASK_COMM_LEN];
	/* issue 33: the dirtier as it was when it became the owner, for the
	 * rows its writeback makes (USER, PRIO, COMMAND) */
	struct row_owner who;
};

/* User space forgets a file's owner this long after it last dirtied the
 * file (dirty data is written back within dirty_expire_centisecs, 30 s by
 * default): its later writeback goes to the submitter. */
#define OWNER_TTL_NS	(120ULL * 1000000000ULL)

/* Latency histograms: slot k counts completions of [2^k, 2^(k+1)) ns (slot
 * 0 also 0 and 1 ns; the last slot, from 2^39 ns = 9 minutes, all longer). */
#define LATENCY_SLOTS	40

#ifndef __always_inline
#define __always_inline inline __attribute__((always_inline))
#endif

/* The slot of a latency of ns nanoseconds: floor(log2(ns)), at most
 * LATENCY_SLOTS - 1.  One definition for the BPF program, which counts with
 * it, and user space, which reads the slots (a binary search by shifts: BPF
 * has no count-leading-zeros). */
static __always_inline __u32 latency_slot(__u64 ns)
{
	__u32 slot = 0;

	if (ns >> 32) {
		ns >>= 32;
		slot += 32;
	}
	if (ns >> 16) {
		ns >>= 16;
		slot += 16;
	}
	if (ns >> 8) {
		ns >>= 8;
		slot += 8;
	}
	if (ns >> 4) {
		ns >>= 4;
		slot += 4;
	}
	if (ns >> 2) {
		ns >>= 2;
		slot += 2;
	}
	if (ns >> 1)
		slot += 1;
	return slot < LATENCY_SLOTS ? slot : LATENCY_SLOTS - 1;
}

/* Completions per operation (IO_READ..IO_DISCARD): their latency summed,
 * their count, and per latency slot.  Per disk (device_latency) by default;
 * per row (row_latency) when I/Os are tracked (-L, -T, -p, -c, --cgroup),
 * and then a disk's are its rows'. */
struct dev_latency {
	__u64 latency_ns[IO_NR_CLASSES];
	__u64 ios[IO_NR_CLASSES];
	__u64 slots[IO_NR_CLASSES][LATENCY_SLOTS];
	/* A bio-based disk's entry in the default mode: 1 in how many of its
	 * bios were measured (0: every I/O), and how many chosen bios were not,
	 * for want of a free slot in latency_samples. */
	__u64 sample_every;
	__u64 samples_dropped;
};

/*
 * Default mode, bio-based disks (no request, so no start time of the
 * kernel's): the latency of 1 in N bios.  A bio is chosen by a hash of its
 * number (its address, or any number that stays the same while it is in
 * flight) and of its first sector at submission, so that a bio used again
 * for the next I/O (a synchronous direct read builds its bio on the
 * submitter's stack: the same address every time) is not always chosen or
 * always passed over.  Its submission time waits in the slot of
 * latency_samples that its number alone hashes to, which is how the
 * completion knows it was chosen: an unchosen bio costs a hash and one load
 * at each hook, no helper call and no hash map operation.
 */
#define DISKIO_GOLDEN_RATIO_64	0x9E3779B97F4A7C15ULL	/* 2^64 / phi: Fibonacci hashing */

/* Chosen when the hash is below this: ceil(2^32 / every), every >= 1. */
static inline __u64 latency_sample_threshold(__u32 every)
{
	return every ? ((1ULL << 32) + every - 1) / every : 0;
}

/* 32 bits of (bio, sector) spread evenly: consecutive or strided bios and
 * sectors land far apart. */
static __always_inline __u32 latency_sample_hash(__u64 bio, __u64 sector)
{
	return (__u32)(((bio ^ (sector * DISKIO_GOLDEN_RATIO_64)) * DISKIO_GOLDEN_RATIO_64) >> 32);
}

static __always_inline bool latency_sampled(__u64 bio, __u64 sector, __u64 threshold)
{
	return latency_sample_hash(bio, sector) < threshold;
}

/* The slot of latency_samples a bio's start waits in: its number alone,
 * the one thing the completion hook knows of it as it was at submission. */
static __always_inline __u32 latency_sample_slot(__u64 bio)
{
	return (__u32)((bio * DISKIO_GOLDEN_RATIO_64) >> (64 - LATENCY_SAMPLE_SLOT_BITS)) &
	       (LATENCY_SAMPLE_SLOTS - 1);
}

/* A chosen bio in flight: its number (0: the slot is free) and when it
 * was submitted. */
struct latency_sample {
	__u64 bio;
	__u64 start_ns;
};

/* What is remembered about an I/O between submission and completion, keyed by
 * the address of its struct request or struct bio (-L and -T only). */
struct inflight {
	struct proc_dev_key who;
	__u64 start_ns;		/* bio-based: submission time; blk-mq: unused */
	__u64 sector;
	__u32 bytes;
	__u32 op;
	__u32 flags;		/* IO_FLAG_* */
	__u32 pad;
};

/* A bucket of the in-flight table: the ids of up to INFLIGHT_WAYS I/Os (the
 * address of their struct request or struct bio), 0 for a free way.  Way w
 * of bucket b holds the I/O whose struct inflight is slot b * INFLIGHT_WAYS + w. */
struct inflight_bucket {
	__u64 id[INFLIGHT_WAYS];
};

/* Request flags that the kernel's rwbs letters show, in a layout of diskio's
 * own so that user space need not know this kernel's REQ_* bit positions. */
enum io_flag {
	IO_FLAG_PREFLUSH = 1 << 0,
	IO_FLAG_FUA = 1 << 1,
	IO_FLAG_RAHEAD = 1 << 2,
	IO_FLAG_SYNC = 1 << 3,
	IO_FLAG_META = 1 << 4,
};

/* Operation numbers of enum req_op that diskio tells apart; they have been
 * stable since Linux 4.10. */
#define DISKIO_REQ_OP_MASK		0xffU
#define DISKIO_REQ_OP_READ		0
#define DISKIO_REQ_OP_WRITE		1
#define DISKIO_REQ_OP_FLUSH		2
#define DISKIO_REQ_OP_DISCARD		3
#define DISKIO_REQ_OP_SECURE_ERASE	5
#define DISKIO_REQ_OP_WRITE_ZEROES	9
#define DISKIO_REQ_OP_FIRST_PRIVATE	32	/* SCSI/driver passthrough from here on */

/* op_stat_group() of the kernel, plus the flushes and passthrough it leaves
 * out of /proc/diskstats' read/write/discard groups. */
static inline enum io_class io_classify(__u32 op)
{
	op &= DISKIO_REQ_OP_MASK;
	if (op == DISKIO_REQ_OP_FLUSH)
		return IO_FLUSH;
	if (op >= DISKIO_REQ_OP_FIRST_PRIVATE)
		return IO_IGNORED;
	if (op == DISKIO_REQ_OP_DISCARD)
		return IO_DISCARD;
	return (op & 1) ? IO_WRITE : IO_READ;
}

/* Causes of lost records, in the order the output lists them (a new one
 * goes last).  The `lost` map has a per-CPU counter for each; those marked
 * "user space" stay 0 there and are counted by the tally.  A record is lost
 * under one cause. */
enum lost_cause {
	LOST_STATS_MAP_FULL = 0,	/* aggregation map full */
	LOST_INFLIGHT_FULL = 1,		/* in-flight table full */
	LOST_RINGBUF_FULL = 2,		/* ring buffer reservation failed */
	LOST_CRASH_MAP_FULL = 3,	/* crash count map full */
	LOST_PERF_BUFFER = 4,		/* perf buffer full: the sample was dropped */
	LOST_COMPLETION_UNSEEN = 5,	/* an I/O completed without diskio's hook running */
	LOST_OWNER_MAP_FULL = 6,	/* a file's dirtier not kept: its writeback stays
					 * with the submitter */
	LOST_STACK_UNAVAILABLE = 7,	/* --stacks: bpf_get_stackid() failed (-EFAULT,
					 * -EEXIST: another stack in its bucket, -ENOMEM) */
	LOST_STACKS_MAP_FULL = 8,	/* --stacks: no room in stack_counts */
	LOST_NAMES_TABLE_FULL = 9,	/* user space: no room to keep a name */
	LOST_ROW_ALLOC = 10,		/* user space: no memory for a row: its counts
					 * are not shown */
	LOST_CRASH_EVENTS_FULL = 11,	/* user space: more crashes in an interval than
					 * it lists */
	LOST_STACKS_TABLE_FULL = 12,	/* user space, --stacks-mem full: a new stack is
					 * not kept (its bytes stay with its row) */
	LOST_STACKED_MAP_FULL = 13,	/* a bio dm or md sent to a disk below not
					 * remembered: counted as its submitter's own */
	LOST_EXITED_WAITS_FULL = 14,	/* IO>, SWAPIN: a task's waits at its exit not
					 * kept (exited_waits full): those since the
					 * last reading are not counted */
	LOST_FILES_MAP_FULL = 15,	/* --files: no room in file_counts: the I/O is
					 * in its process's row, in no file's */
	LOST_ERROR_UNATTRIBUTED = 16,	/* a failed I/O whose row was not known at its
					 * completion (another I/O took its io_owners
					 * slot, or its row was forgotten) */
	LOST_FILE_NAMES_UNMADE = 17,	/* user space, --files: a file whose name could
					 * not be made (no dentry, a path too deep, no
					 * mount of its filesystem in diskio's
					 * namespace): its lines are MAJ:MIN:INO */
	LOST_NR_CAUSES = 18,
};

/*
 * --stacks: the kernel and user stacks of I/O a process submits itself, and
 * of its page dirtying, as bytes per (row, kernel stack, user stack).  A
 * stack id is one of the stack_traces map; the ids below 0 are none.
 */
#define STACK_MAX_FRAMES 127	/* resources.h's: a stack_traces value */

enum stacks_mode {
	STACKS_KERNEL = 1 << 0,
	STACKS_USER = 1 << 1,
};

#define STACK_ID_NONE		(-1)	/* not asked for, or a kernel thread's user stack */
#define STACK_ID_UNAVAILABLE	(-2)	/* bpf_get_stackid() failed: lost_stack_unavailable */

struct stack_key {
	struct proc_dev_key who;	/* the row */
	__s32 kernel_stack;		/* stack id, or STACK_ID_* */
	__s32 user_stack;
};

struct stack_counts {
	__u64 bytes[IO_NR_CLASSES];
	__u64 ios[IO_NR_CLASSES];
	__u64 dirtied_bytes;
};

/* The signals whose default action dumps core (signal(7)): a process they
 * end has crashed.  SIGQUIT 3, SIGILL 4, SIGTRAP 5, SIGABRT 6, SIGBUS 7,
 * SIGFPE 8, SIGSEGV 11, SIGXCPU 24, SIGXFSZ 25, SIGSYS 31. */
#define CRASH_SIGNAL_MASK \
	((1U << 3) | (1U << 4) | (1U << 5) | (1U << 6) | (1U << 7) | (1U << 8) | \
	 (1U << 11) | (1U << 24) | (1U << 25) | (1U << 31))

static inline bool is_crash_signal(__u32 sig)
{
	return sig < 32 && ((CRASH_SIGNAL_MASK >> sig) & 1);
}

enum event_type {
	EVENT_IO = 1,
	EVENT_CRASH = 2,
	EVENT_USER_STACK = 3,
	EVENT_STACK_PROCESS_EXIT = 4,
	EVENT_FILE_NAME = 5,
};

struct block_io_event {
	__u32 type;		/* EVENT_IO */
	__u32 tgid;
	__u64 time_ns;		/* completion, CLOCK_MONOTONIC */
	__u64 latency_ns;
	__u64 sector;
	__u32 bytes;
	__u32 dev;
	__u32 op;		/* REQ_OP_* of the I/O */
	__u32 flags;		/* IO_FLAG_* */
	char comm[TASK_COMM_LEN];
};

struct crash_event {
	__u32 type;		/* EVENT_CRASH */
	__u32 tgid;
	__u64 time_ns;		/* CLOCK_MONOTONIC */
	__u32 signal;
	__u32 core_dumped;
	char comm[TASK_COMM_LEN];
};

/*
 * --stacks with user stacks: a new (row, kernel stack, user stack) entry,
 * with the user stack as the kernel saw it then: each frame as the build
 * id of the file it is in and its offset in that file, or as an address
 * where the kernel could not read the build id (the page holding it was
 * not in memory).  Taken at the I/O, so that a process that exits at once
 * can still be named; user space also reads the process's mappings now.
 * The layout of a frame is the kernel's struct bpf_stack_build_id.
 */
#define STACK_BUILD_ID_SIZE	20
#define EXE_PATH_DEPTH		16
#define EXE_NAME_LEN		64
#define USER_STACK_BYTES	256
enum stack_frame_status {
	STACK_FRAME_EMPTY = 0,		/* BPF_STACK_BUILD_ID_EMPTY: no frame */
	STACK_FRAME_BUILD_ID = 1,	/* BPF_STACK_BUILD_ID_VALID: build_id + offset */
	STACK_FRAME_IP = 2,		/* BPF_STACK_BUILD_ID_IP: only the address */
};

struct stack_frame_id {
	__s32 status;			/* enum stack_frame_status */
	unsigned char build_id[STACK_BUILD_ID_SIZE];
	__u64 offset;			/* in the file, or the address (STACK_FRAME_IP) */
};

struct user_stack_event {
	__u32 type;			/* EVENT_USER_STACK */
	__u32 tgid;
	__u64 start_ns;			/* when the process started (CLOCK_MONOTONIC): a
					 * pid used again is another process */
	__u64 exec_id;			/* how many exec()s it has done: another program */
	__s32 user_stack;		/* the stack id of stack_traces */
	__u32 nframes;
	/* The process's executable, to find it by path if the process is gone
	 * before its mappings are read: its identity, its mount namespace, and
	 * the names on its path from that namespace's root, innermost first
	 * (exe_depth of them, "" where a mount is crossed; 0: unknown, or
	 * more than EXE_PATH_DEPTH). */
	__u64 exe_ino;
	__u32 exe_dev;			/* the kernel's dev_t: major << 20 | minor */
	__u32 exe_depth;
	__u64 mnt_ns;			/* its inode number (/proc/PID/ns/mnt) */
	__u32 parent_tgid;		/* its parent: often alive, in the same namespace */
	__u32 pad;
	char exe_names[EXE_PATH_DEPTH][EXE_NAME_LEN];
	/* The caller of a function that set up no frame (libc's syscall
	 * wrappers) is not in the frame pointer walk: user space finds its
	 * return address in these bytes by the .eh_frame rule at frame 0.
	 * The user registers where the kernel was entered: the stack pointer,
	 * the word at the frame pointer + 8 (what the walk took for frame 1;
	 * 0: unread), and the first stack_len bytes at the stack pointer
	 * (USER_STACK_BYTES, or 0 when they could not be read). */
	__u64 user_sp;
	__u64 user_ret;
	__u32 stack_len;
	__u32 pad2;
	unsigned char stack_bytes[USER_STACK_BYTES];
	/* Last: the perf buffer sends only the frames taken. */
	struct stack_frame_id frames[STACK_MAX_FRAMES];
};

/* --stacks with user stacks: a process user space read the mappings of has
 * exited; what it kept of it can go. */
struct stack_process_exit_event {
	__u32 type;			/* EVENT_STACK_PROCESS_EXIT */
	__u32 tgid;
	__u64 start_ns;
};

/* ---- IO> and SWAPIN: who waits (iotop's columns) ---- */

/*
 * How long a task waited for block I/O (it slept in io_schedule(): iotop's
 * IO>) and spent swapping in (SWAPIN), as running totals in nanoseconds.
 * The task iterator (read_waits) gives every task's once an interval; a task
 * that exits meanwhile leaves its last totals in exited_waits, so that its
 * waits since the last reading are still counted.  Nothing is kept per I/O.
 */
enum waits_source {
	WAITS_NONE = 0,		/* not measured: -T, or a kernel without the hooks */
	WAITS_DELAYACCT = 1,	/* the kernel's delay accounting (task->delays) */
	WAITS_SCHED = 2,	/* diskio's own, from sched_switch (delay accounting off) */
};

#define EXITED_WAITS_ENTRIES	8192	/* tasks that exited since the last reading */
#define TASK_WAITS_EXITED	1	/* task_waits.flags: its last totals, at exit */

/* A task: a thread id and when it started (a tid used again is another task). */
struct task_id {
	__u32 tid;
	__u32 pad;
	__u64 start_ns;		/* task->start_time: CLOCK_MONOTONIC */
};

struct task_waits {
	/* The row an I/O of the task would go to (its process, or with -t
	 * itself; its name and cgroup), dev 0: user space puts the waits on
	 * the row of the process's I/O in the interval, else on a row of no
	 * disk. */
	struct proc_dev_key row;
	struct task_id id;
	__u32 tgid;		/* its process */
	__u32 flags;		/* TASK_WAITS_* */
	/* WAITS_DELAYACCT: delays->blkio_delay, with the wait in progress;
	 * WAITS_SCHED: diskio's measure since it started. */
	__u64 blkio_ns;
	__u64 swapin_ns;	/* delays->swapin_delay (0 without delay accounting) */
	struct row_owner owner;	/* whose: a row of no disk made for the waits */
};

/* ---- issue 35: which file (--files) ---- */

#define FILE_COUNTS_ENTRIES	16384	/* (row, file) pairs */
#define FILE_NAMES_SENT_ENTRIES	16384	/* files whose name was sent (LRU) */

/* What a bio's bytes belong to.  Only reads and writes are counted. */
enum file_kind {
	FILE_KIND_FILE = 0,		/* a file of a filesystem: fs_dev, ino */
	FILE_KIND_METADATA = 1,		/* filesystem metadata and journal */
	FILE_KIND_UNKNOWN = 2,		/* none of the above (user buffers) */
	/* 3 is user space's: a row's files cut by --files-top (files.h) */
	FILE_KIND_SWAP = 4,		/* swap-out and swap-in (issue 47) */
};

/*
 * What the kernel side found out about a bio, as bits, for file_kind_of():
 * one rule for the BPF program, which classifies with it, and the unit tests.
 */
enum file_fact {
	/* its completion is iomap's direct I/O, whose iocb names a file */
	FILE_FACT_DIRECT = 1 << 0,
	FILE_FACT_META = 1 << 1,	/* REQ_META */
	FILE_FACT_PAGE = 1 << 2,	/* it has a first page */
	FILE_FACT_MAPPING = 1 << 3,	/* whose folio has a mapping */
	FILE_FACT_ANON = 1 << 4,	/* which is anonymous or movable (low bits) */
	FILE_FACT_HOST = 1 << 5,	/* with a host inode */
	FILE_FACT_BDEV = 1 << 6,	/* which is a block device's */
	FILE_FACT_REGULAR = 1 << 7,	/* which is a regular file */
	/* The folio is in the page cache's own I/O: a write's is under
	 * writeback, a read's locked and not up to date.  A direct I/O to or
	 * from a buffer that maps a file is neither: the file is not the one
	 * read or written. */
	FILE_FACT_CACHE_IO = 1 << 8,
	/* The folio is swap-backed and in the swap cache (PG_swapcache) or of
	 * no mapping yet: a page going out to swap or coming in from it, a
	 * swap file's or partition's */
	FILE_FACT_SWAP = 1 << 9,
};

static inline enum file_kind file_kind_of(__u32 facts)
{
	if (facts & FILE_FACT_DIRECT)
		return FILE_KIND_FILE;
	if (facts & FILE_FACT_META)
		return FILE_KIND_METADATA;
	if (facts & FILE_FACT_SWAP)
		return FILE_KIND_SWAP;
	if (!(facts & FILE_FACT_PAGE))
		return FILE_KIND_UNKNOWN;
	/* a filesystem's own buffers: journal blocks, log buffers */
	if (!(facts & FILE_FACT_MAPPING))
		return FILE_KIND_METADATA;
	if ((facts & FILE_FACT_ANON) || !(facts & FILE_FACT_HOST))
		return FILE_KIND_UNKNOWN;
	if (facts & FILE_FACT_BDEV)
		return FILE_KIND_METADATA;
	if (!(facts & FILE_FACT_REGULAR))
		return FILE_KIND_METADATA;	/* directories' and symlinks' own pages */
	return (facts & FILE_FACT_CACHE_IO) ? FILE_KIND_FILE : FILE_KIND_UNKNOWN;
}

/* A row's I/O to one file, or to its disk's metadata or unknown (ino and
 * fs_dev 0).  who is the row's key: the same charging rules. */
struct file_key {
	struct proc_dev_key who;
	__u64 ino;		/* the file's inode number */
	__u32 fs_dev;		/* its filesystem's s_dev (MKDEV) */
	__u32 kind;		/* enum file_kind */
	/* the inode's i_generation (issue 47): a number the filesystem gives
	 * again (ext4 and XFS do, once a file is deleted) is another file */
	__u32 generation;
	__u32 pad;
};

#define FILE_UNLINKED	1	/* file_counts.flags: i_nlink was 0 at an I/O */

struct file_counts {
	__u64 bytes[2];		/* IO_READ, IO_WRITE */
	__u64 ios[2];
	__u64 flags;		/* FILE_* */
};

/*
 * A file's name, sent the first time one of its I/Os is counted (the
 * first since its entry left the LRU of names sent): the names of the
 * dentries from the file up to its filesystem's root, innermost first, each
 * NUL-terminated, `bytes` of names in all, `depth` of them.  User space adds
 * the mount point.  FILE_NAME_ROOT: the walk reached the root (else the path
 * was deeper than FILE_PATH_DEPTH, or longer than FILE_NAMES_BYTES).
 * Only the header and the bytes of names are sent.
 */
#define FILE_PATH_DEPTH		32
#define FILE_NAME_MAX		256	/* NAME_MAX and its NUL */
#define FILE_NAMES_BYTES	4096
#define FILE_NAME_ROOT		1

struct file_name_event {
	__u32 type;		/* EVENT_FILE_NAME */
	__u32 fs_dev;
	__u64 ino;
	__u32 depth;
	__u32 flags;		/* FILE_NAME_* */
	__u32 bytes;
	__u32 generation;	/* the inode's i_generation (struct file_key) */
	__u32 tgid;		/* the process the names were read in: its */
	__u32 mnt_ns;		/* mount namespace (its inode number), whose
				 * mount table user space joins them with */
	/* room for one more name read at the last offset */
	char names[FILE_NAMES_BYTES + FILE_NAME_MAX];
};

/* ---- end of issue 35's block ---- */

/* The kernel's functions by which a bio names its issuer (relayed.bpf.h),
 * in the programs' .bss; 0: none (a kernel without the function, or
 * kptr_restrict hiding addresses: such I/O stays its submitter's). */
struct relay_symbols {
	__u64 chain;		/* bio_chain_endio(): a split part's */
	__u64 submit_wait;	/* submit_bio_wait_endio() */
	__u64 blkdev_dio;	/* blkdev_bio_end_io() */
	__u64 blkdev_dio_async;	/* blkdev_bio_end_io_async() */
	__u64 iomap_dio;	/* iomap_dio_bio_end_io(), also --files' (files.bpf.h) */
	__u64 uring_rw;		/* io_complete_rw(): an io_uring request's kiocb */
	__u64 uring_rw_iopoll;	/* io_complete_rw_iopoll() */
};

#endif /* DISKIO_ABI_H */
