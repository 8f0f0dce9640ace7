/* SPDX-License-Identifier: GPL-2.0 */
/* Per-process I/O rows: the kernel's running counters per (process, comm,
 * disk) as per-interval changes and totals since diskio started. */
#ifndef DISKIO_IOSTATS_H
#define DISKIO_IOSTATS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/types.h>
#include "abi.h"
#include "iowait.h"
#include "counters.h"
#include "latency_hist.h"
#include "pressure.h"
#include "resources.h"

/* What rows are sorted by (-s, the top view's sort).  The values are kept
 * (a zeroed config sorts by bytes): a key added later takes the next one. */
enum sort_key {
	SORT_BYTES,		/* read + write + discard bytes */
	SORT_READ,
	SORT_WRITE,
	SORT_IOS,		/* read + write + discard I/Os */
	SORT_LATENCY,		/* average, with -L */
	SORT_PID,
	SORT_COMM,
	SORT_DIRTY,		/* dirtied bytes */
	SORT_DISCARD,
	SORT_READ_IOS,
	SORT_WRITE_IOS,
	SORT_DISCARD_IOS,
	SORT_DEVICE,
	SORT_CGROUP,
	SORT_IOWAIT,		/* IO>: waited for block I/O */
	SORT_SWAPIN,		/* SWAPIN: swapping in */
	SORT_ERRORS,		/* issue 45: failed I/Os, all kinds */
};
#define SORT_NR_KEYS (SORT_ERRORS + 1)

struct sort_key_info {
	enum sort_key key;
	const char *name;	/* as -s takes it and the top view's header shows it */
	bool ascending;		/* names sort ascending, numbers descending */
};

/* Every sort key, in the order of the top view's columns (which its left
 * and right arrows move through).  The one list: -s parses it, --help and
 * the error of -s list it, the top view cycles through it, and the tests
 * check the man page and the bash completion against it. */
extern const struct sort_key_info sort_keys[SORT_NR_KEYS];

/* "bytes", "r_iops", ...: the key as -s takes it. */
const char *sort_key_name(enum sort_key key);
/* Whether key sorts ascending (names) rather than descending (numbers). */
bool sort_key_ascending(enum sort_key key);

/* One row: counters indexed by enum pmem_counter_id. */
/* A kernel latency entry's counts (struct dev_latency) as user space keeps
 * them: as last read, or their change since. */
struct latency_counts {
	uint64_t latency_ns[IO_NR_CLASSES], ios[IO_NR_CLASSES];
	uint64_t slots[IO_NR_CLASSES][LATENCY_SLOTS];
	uint64_t sample_every;		/* a disk's: as the kernel has it, not a count */
	uint64_t samples_dropped;
};

/* A row's latency when I/Os are tracked: the kernel's running counts per
 * operation as last read, and the row's histogram of all operations, of this
 * interval and since start. */
struct row_stack;

struct row_latency {
	struct latency_counts seen;
	struct latency_hist delta, total;
	/* a completion missed its histogram (the kernel's map was full): no
	 * percentiles for this row from then on */
	bool incomplete;
};

struct proc_io {
	struct proc_dev_key key;
	res_key comm_name;
	res_key device_name;
	res_key cgroup_name;			/* its path; 0: no cgroup2 */
	/* The device above whose I/O this row carried out on a disk below
	 * (a loop device's worker, dm or md): counted on its disk, not again
	 * in the totals.  0: the row's own I/O. */
	res_key serves_name;
	/* The process: key.tgid, or with -t the thread's (0: not known). */
	uint32_t tgid;
	uint64_t seen[PMEM_NR_COUNTERS];	/* last values read from the kernel */
	uint64_t delta[PMEM_NR_COUNTERS];	/* change in the current interval */
	uint64_t total[PMEM_NR_COUNTERS];	/* since diskio started */
	uint32_t idle_intervals;		/* intervals in a row without change */
	bool updated;				/* read from the kernel this interval */
	bool forgetting;			/* its kernel entries are being deleted */
	bool dropped;				/* in iostats.retired: gone from rows */
	struct row_latency *latency;		/* tracked I/Os only, else NULL */
	/* --stacks: the row's top stacks in the current frame, heaviest first
	 * (the tally's, valid until its next step); else NULL and 0 */
	struct row_stack *const *stacks;
	uint32_t nstacks;
	/* issue 33: whose row it is, as the kernel noted it when it made the
	 * row (abi.h; flags 0: a row of no process), its user's name (0:
	 * none) and its process's command line (cmdline.h, NULL: none; the
	 * row's own memory, freed with it). */
	struct row_owner owner;
	res_key user_name;
	char *cmdline;
	bool idle;				/* listed from /proc: no I/O, no disk */
	/* IO> and SWAPIN (iowait.h): what the process (with -t, the thread)
	 * waited in the interval and since start, on the one of its rows the
	 * tally gave it to (a row of key.dev IOWAIT_NO_DEVICE when it had no
	 * I/O in the interval). */
	struct iowait_ns wait_delta, wait_total;
	/* issue 45: its cgroup's io.pressure over the interval (-a: the run),
	 * as the step found it for a shown row (step/cgroup_pressure.h) */
	struct pressure_share cgroup_pressure;
};

struct iostats {
	struct proc_io *rows;
	size_t count, capacity;
	uint32_t *index;		/* open addressing: row number + 1, 0 empty */
	size_t index_size;		/* power of two, > 2 * capacity */
	/* The rows as they were when iostats_end_interval() last dropped
	 * some (kept ones moved to a new array): pointers to them, a shown
	 * frame's, stay valid and unchanged until iostats_begin_interval(). */
	struct proc_io *retired;
	size_t nretired;
};

void iostats_init(struct iostats *t);
void iostats_free(struct iostats *t);

/* Start an interval: the rows iostats_end_interval() dropped are freed,
 * every row's delta goes to zero. */
void iostats_begin_interval(struct iostats *t);

/* The kernel's struct proc_dev_stats as a counter array. */
void iostats_counters_from_kernel(const struct proc_dev_stats *stats,
				  uint64_t counters[PMEM_NR_COUNTERS]);

/* Record the kernel's current cumulative counters of key.  A counter below
 * what was seen means the kernel entry was removed and began anew: all of it
 * is new.  *created tells whether the row is new (its names are then unset).
 * NULL on allocation failure.  Row pointers stay valid until the next
 * iostats_record(), and through iostats_end_interval() (as they were) until
 * iostats_begin_interval(). */
struct proc_io *iostats_record(struct iostats *t, const struct proc_dev_key *key,
			       const uint64_t counters[PMEM_NR_COUNTERS], bool *created);

/* End of an interval: rows not updated or without change grow idle.  Rows
 * idle for at least min_idle intervals whose process is gone (is_alive says
 * so) are handed to forget(), to delete their kernel entries, and kept until
 * the next interval counts what those held when deleted
 * (iostats_restart_forgotten()); then, still idle and gone, they are
 * dropped, unless keep_totals: rows with their totals stay.  Dropping moves
 * the rows kept to a new array; until iostats_begin_interval(), pointers to
 * rows (kept or dropped) still reach them as they were (t->retired).
 * Returns the number of kernel entries forgotten. */
/* The row of key, or NULL. */
struct proc_io *iostats_find(struct iostats *t, const struct proc_dev_key *key);

/* The row of key that holds only waits (key->dev IOWAIT_NO_DEVICE): found,
 * or made with no counters (*created; its names are then unset).  Such a
 * row has no kernel entry.  NULL on allocation failure; pointers as for
 * iostats_record(). */
struct proc_io *iostats_wait_row(struct iostats *t, const struct proc_dev_key *key,
				 bool *created);

/* After the forgotten rows' kernel entries as they were deleted are
 * recorded: their next entries count from zero. */
void iostats_restart_forgotten(struct iostats *t);

/*
 * Latency percentiles of a row's completions (all operations): this
 * interval's or since start.  false without them: no tracked I/O, no
 * completion, or a completion that missed the row's histogram.
 */
bool iostats_latency_summary(const struct proc_io *row, bool cumulative,
			     struct latency_summary *summary);

size_t iostats_end_interval(struct iostats *t, uint32_t min_idle, bool keep_totals,
			    bool (*is_alive)(uint32_t tgid, void *arg),
			    void (*forget)(const struct proc_dev_key *key, void *arg), void *arg);

/* What rows are compared by: read + write + discard bytes or I/Os, average
 * latency, failed I/Os of every kind, or one counter (ROW_COUNTER + an enum
 * pmem_counter_id). */
enum row_counter {
	ROW_BYTES,
	ROW_IOS,
	ROW_LATENCY,
	ROW_ERRORS,
	ROW_COUNTER,
};

/* The one comparison of rows by their counters, for the views' sort and
 * the top view's: ascending (a < b: negative), without overflow; a row
 * without latency is below every row with one. */
int row_counter_compare(const uint64_t *a, const uint64_t *b, enum row_counter by);

/* Order of rows for display; numbers compare without overflow. */
int iostats_compare(const struct proc_io *a, const struct proc_io *b, enum sort_key key,
		    bool cumulative, const struct res_table *names);

/* Sort rows[0..n) for display. */
void iostats_sort(struct proc_io **rows, size_t n, enum sort_key key, bool cumulative,
		  const struct res_table *names);

/* The values a row shows: delta or total. */
static inline const uint64_t *iostats_values(const struct proc_io *row, bool cumulative)
{
	return cumulative ? row->total : row->delta;
}

/* The waits a row shows: of the interval or since start. */
static inline const struct iowait_ns *iostats_waits(const struct proc_io *row, bool cumulative)
{
	return cumulative ? &row->wait_total : &row->wait_delta;
}

/* Whether counters (a row's delta or totals) hold I/O or dirtying. */
static inline bool iostats_has_io(const uint64_t *v)
{
	for (int c = PMEM_READ_BYTES; c <= PMEM_FLUSHES; c++)
		if (v[c])
			return true;
	return v[PMEM_DIRTIED_BYTES] != 0;
}

/* Whether a row holds I/O of a disk (not only waits). */
static inline bool iostats_has_device(const struct proc_io *row)
{
	return row->key.dev != IOWAIT_NO_DEVICE;
}

#endif /* DISKIO_IOSTATS_H */
