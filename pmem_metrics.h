/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Per-device I/O counters: one set per block device, sorted by name, plus an
 * aggregate that always equals their sum.  Each counter keeps a running total
 * and its change since the previous flush (doc/design.md, "How the numbers are
 * kept").  Pure bookkeeping: no libbpf, no globals.
 */
#ifndef DISKIO_PMEM_METRICS_H
#define DISKIO_PMEM_METRICS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "jsonw.h"
#include "counters.h"
#include "devlayers.h"
#include "diskstats.h"
#include "latency_hist.h"

/* The errno name of each kind of failed I/O: "EIO", "ENOSPC", ..., "other". */
extern const char *const io_error_names[IO_ERROR_KINDS];

/* The failed I/Os among counters (a row's or a device's values). */
uint64_t pmem_errors(const uint64_t values[PMEM_NR_COUNTERS]);

/* "errors":{"ENOSPC":3,...}: the kinds with failed I/Os ({} for none). */
void pmem_write_errors_json(struct jsonw *w, const uint64_t values[PMEM_NR_COUNTERS]);

/*
 * JSON key of each counter: "read_bytes", "write_bytes", "discard_bytes",
 * "read_ios", "write_ios", "discard_ios", "flushes", "latency_ns",
 * "latency_ios".
 */
extern const char *const pmem_counter_names[PMEM_NR_COUNTERS];
/* "read", "write", "discard": the operations of latency_summary. */
extern const char *const pmem_op_names[IO_NR_CLASSES];

/*
 * delta = total - at_flush as of the last flush. Arithmetic is modulo 2^64,
 * so a delta stays right even if a total ever wraps.
 */
struct pmem_counter {
	uint64_t total;
	uint64_t at_flush;
	uint64_t delta;
};

#define PMEM_NAME_MAX 64

struct pmem_device {
	char name[PMEM_NAME_MAX];
	struct pmem_counter counter[PMEM_NR_COUNTERS];
	/* per operation: completions, their latency summed, and per latency
	 * slot (latency_hist.h) */
	struct pmem_counter op_latency_ns[IO_NR_CLASSES], op_latency_ios[IO_NR_CLASSES];
	struct pmem_counter latency_slots[IO_NR_CLASSES][LATENCY_SLOTS];
	/* A bio-based disk's latency is that of 1 in latency_sample of its
	 * bios (0: of every I/O); chosen bios not measured, for want of room. */
	uint32_t latency_sample;
	struct pmem_counter latency_samples_dropped;
	/* /proc/diskstats' figures by iostat -x's rules (diskstats.h), over
	 * the interval [0] and since diskio started [1]; has_iostat false
	 * when the kernel lists no such device. */
	bool has_iostat;
	struct iostat_x iostat[2];
	struct diskstats_change iostat_change;	/* what iostat[0] came from */
	struct diskstats_change iostat_change_start;	/* and iostat[1] */
	struct devlayers layers;	/* the disks below it, its dm name */
};

struct pmem_metrics {
	struct pmem_device *devices;	/* sorted by strcmp() of name */
	size_t count, capacity;
	struct pmem_device aggregate;	/* named "total" */
};

void pmem_init(struct pmem_metrics *m);

/* Frees the device array and leaves @m empty and reusable (as after init). */
void pmem_free(struct pmem_metrics *m);

/*
 * Find or create the metric set of device @name (must not be NULL), kept in
 * strcmp() order of name (binary search + insert). Names longer than
 * PMEM_NAME_MAX - 1 bytes are truncated to that many bytes before lookup, so
 * two names that share their first 63 bytes are the same device.
 * Returns NULL only on allocation failure. A returned pointer stays valid
 * until the next pmem_device_get() that creates a device (or pmem_free()).
 */
struct pmem_device *pmem_device_get(struct pmem_metrics *m, const char *name);

/*
 * Add @n to @dev's counter @id AND to the aggregate's same counter. A NULL
 * @dev (a failed pmem_device_get()) or an out-of-range @id is ignored.
 */
void pmem_add(struct pmem_metrics *m, struct pmem_device *dev,
	      enum pmem_counter_id id, uint64_t n);

/*
 * Add @n to @dev's counter @id only: I/O a device below (a loop device's
 * backing disk, a dm or md leg) carried out for a device above, whose own
 * count is in the aggregate already.  The aggregate is the sum of the
 * devices less what pmem_add_below() added.
 */
void pmem_add_below(struct pmem_metrics *m, struct pmem_device *dev,
		    enum pmem_counter_id id, uint64_t n);

/*
 * End of an interval: for every device and the aggregate,
 * delta = total - at_flush, then at_flush = total. Totals never reset.
 */
/* ios completions of operation op taking ns in all, added to dev and the
 * aggregate (out-of-range op, or a NULL dev, are ignored). */
void pmem_add_op_latency(struct pmem_metrics *m, struct pmem_device *dev, unsigned int op,
			 uint64_t ns, uint64_t ios);

/* n completions of operation op (IO_READ..IO_DISCARD) in latency slot
 * slot, added to dev and the aggregate; out-of-range op or slot are
 * ignored, like a NULL dev. */
void pmem_add_latency(struct pmem_metrics *m, struct pmem_device *dev, unsigned int op,
		      unsigned int slot, uint64_t n);

/* The kernel measured dev's latency on 1 in every of its bios (0: on every
 * I/O, which leaves what was known) and could not measure dropped of those
 * it chose; dropped is added to the aggregate too. */
void pmem_note_latency_sample(struct pmem_metrics *m, struct pmem_device *dev, uint64_t every,
			      uint64_t dropped);

/* 1 in how many of dev's I/Os its latency figures come from (1: all). */
uint32_t pmem_latency_sample(const struct pmem_device *dev);

/* dev's latency histogram of operation op: this interval's, or since start. */
void pmem_latency_hist(const struct pmem_device *dev, unsigned int op, bool cumulative,
		       struct latency_hist *hist);

/* dev's latency of operation op: this interval's, or since start. */
void pmem_latency_summary(const struct pmem_device *dev, unsigned int op, bool cumulative,
			  struct latency_summary *summary);

void pmem_flush(struct pmem_metrics *m);

/* Value to show: delta (per interval) or total (cumulative, the -a option). */
uint64_t pmem_value(const struct pmem_counter *c, bool cumulative);

/*
 * The average latency of a counter array in tenths of a microsecond, rounded
 * half up: diskio's one rounding rule, shown as "52.1".  false when
 * LATENCY_IOS is 0 (no latency: "-" or null).
 */
bool pmem_avg_latency_tenths_us(const uint64_t values[PMEM_NR_COUNTERS], uint64_t *tenths);

/* The values a device shows, as a counter array: deltas, or totals (-a). */
void pmem_values(const struct pmem_device *dev, bool cumulative,
		 uint64_t values[PMEM_NR_COUNTERS]);

/*
 * Write the members
 *   "devices":{"vda":{"read_bytes":0,"write_bytes":0,"discard_bytes":0,
 *   "read_ios":0,"write_ios":0,"discard_ios":0,"flushes":0,
 *   "avg_latency_us":52.1},...},"total":{...same keys...}
 * into the object @w has open. Devices come in name order; avg_latency_us
 * is null when there are no latency samples. Shows deltas, so call
 * pmem_flush() first, or totals when @cumulative.
 * Returns 0, or a negative errno (-EIO if unknown) when the stream has its
 * error flag set after writing. Nothing is flushed: errors that only show up
 * when the caller flushes its stream are the caller's to check.
 */
int pmem_write_json(const struct pmem_metrics *m, struct jsonw *w, bool cumulative,
		    bool histograms);

#endif /* DISKIO_PMEM_METRICS_H */
