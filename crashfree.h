/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Crash-free interval bookkeeping for diskio, as memfaultd counts it: whole
 * operational and crash-free intervals, crashes in total and per comm, on a
 * monotonic clock the caller passes in (readings within 2^63 ns of the marks).
 * doc/design.md, "How the numbers are kept", explains.  Not thread-safe.
 * Saving and loading it across runs: outputs/crashfree_state.h.
 */
#ifndef DISKIO_CRASHFREE_H
#define DISKIO_CRASHFREE_H

#include <stddef.h>
#include <stdint.h>

#define CRASHFREE_COMM_LEN 16
#define CRASHFREE_DEFAULT_INTERVAL_NS (UINT64_C(3600) * UINT64_C(1000000000))

struct crashfree_process {
	char comm[CRASHFREE_COMM_LEN];
	uint64_t crashes;
};

struct crashfree {
	uint64_t interval_ns;
	uint64_t operational_mark_ns, crashfree_mark_ns;   /* on the injected clock */
	uint64_t operational_intervals, crashfree_intervals; /* cumulative counts */
	uint64_t crashes;
	struct crashfree_process *by_process; size_t nprocesses, capacity; /* sorted by comm */
};

/* What one update counted. */
struct crashfree_counted {
	uint64_t operational, crashfree;
};

/*
 * Start a fresh tracker whose intervals begin at now_ns. An interval_ns of 0
 * would make every instant a whole interval, so it is replaced with
 * CRASHFREE_DEFAULT_INTERVAL_NS; one of 2^63 or more is cut to 2^63 - 1.
 */
void crashfree_init(struct crashfree *cf, uint64_t interval_ns, uint64_t now_ns);

/* Release the per-process table; cf may be initialised again afterwards. */
void crashfree_free(struct crashfree *cf);

/*
 * Count the whole operational and crash-free intervals elapsed up to now_ns,
 * add them to the cumulative counts and return them. Call it at least once
 * per interval: as in memfaultd, a crash between two updates further apart
 * than one interval also cancels crash-free time before the crash that has
 * not been counted yet.
 */
struct crashfree_counted crashfree_update(struct crashfree *cf, uint64_t now_ns);

/*
 * A crash of process `comm` at time at_ns (may be earlier than the last
 * update). comm is cut to CRASHFREE_COMM_LEN - 1 bytes like the kernel's
 * task comm; NULL counts as the empty name. Returns 0 or -ENOMEM. On -ENOMEM
 * the crash-free mark has still moved (that needs no memory) but the crash
 * is not counted, so that crashes always equals the sum of the per-process
 * counts.
 */
int crashfree_record_crash(struct crashfree *cf, const char *comm, uint64_t at_ns);

/*
 * Put back a process as a saved state lists it: comm, cut as
 * crashfree_record_crash() cuts it, with `crashes` crashes. Only the table
 * changes, not cf->crashes nor the marks: the reader restores the total
 * itself and checks that it is the sum. Returns 0, -EEXIST if comm is listed
 * already (cf unchanged) or -ENOMEM.
 */
int crashfree_restore_process(struct crashfree *cf, const char *comm, uint64_t crashes);

#endif /* DISKIO_CRASHFREE_H */
