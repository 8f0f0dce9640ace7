/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What a disk and a row count, shared by the per-device metrics
 * (pmem_metrics.h, at the root) and the per-process rows (iostats.h): the
 * counters' ids, the one way a running total becomes a per-interval change,
 * and a latency's summary.  Below both, so that neither includes the other.
 */
#ifndef DISKIO_COUNTERS_H
#define DISKIO_COUNTERS_H

#include <stdint.h>
#include "abi.h"		/* IO_ERROR_KINDS */

enum pmem_counter_id {
	PMEM_READ_BYTES,
	PMEM_WRITE_BYTES,
	PMEM_DISCARD_BYTES,
	PMEM_READ_IOS,
	PMEM_WRITE_IOS,
	PMEM_DISCARD_IOS,
	PMEM_FLUSHES,
	PMEM_LATENCY_NS,	/* sum of completion latencies */
	PMEM_LATENCY_IOS,	/* completions that contributed to PMEM_LATENCY_NS */
	PMEM_DIRTIED_BYTES,	/* page cache dirtied (rows only) */
	PMEM_WRITEBACK_BYTES,	/* of PMEM_WRITE_BYTES: submitted by another task (rows only) */
	/* issue 45: failed I/Os, PMEM_ERRORS + enum io_error_kind (abi.h) */
	PMEM_ERRORS,
	PMEM_NR_COUNTERS = PMEM_ERRORS + IO_ERROR_KINDS
};

/*
 * The change of a running total since it was last seen (*seen), which then
 * becomes now: diskio's one way of turning a running total into a
 * per-interval change.  Modulo 2^64, so a total that wraps stays right; a
 * total that starts anew (its kernel entry was made again) is the caller's
 * to detect, by setting *seen to 0 first.
 */
static inline uint64_t counter_delta(uint64_t *seen, uint64_t now)
{
	uint64_t change = now - *seen;

	*seen = now;
	return change;
}

/* One operation's latency on a device or a row, for people. */
struct latency_summary {
	uint64_t ios;			/* completions; 0: nothing below is known */
	double avg_us, p50_us, p95_us, p99_us;
};

#endif /* DISKIO_COUNTERS_H */
