/* SPDX-License-Identifier: GPL-2.0 */
/*
 * /proc/diskstats, and what iostat -x computes from it: each device's
 * requests, merges, sectors and times as the kernel accounts them, read in
 * user space (no cost in the kernel), and sysstat's own formulas for r/s,
 * rkB/s, r_await, aqu-sz, areq-sz and %util over an interval.  Pure: the
 * file comes in as a stream; unit-tested without root.
 */
#ifndef DISKIO_DISKSTATS_H
#define DISKIO_DISKSTATS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* The fields after a line's major, minor and name, in the kernel's order
 * (Documentation/admin-guide/iostats.rst).  Older kernels print fewer:
 * discards from Linux 4.18, flushes from 5.5; missing fields read as 0. */
enum diskstats_field {
	DS_READ_IOS, DS_READ_MERGES, DS_READ_SECTORS, DS_READ_TICKS,
	DS_WRITE_IOS, DS_WRITE_MERGES, DS_WRITE_SECTORS, DS_WRITE_TICKS,
	DS_IN_FLIGHT, DS_IO_TICKS, DS_TIME_IN_QUEUE,
	DS_DISCARD_IOS, DS_DISCARD_MERGES, DS_DISCARD_SECTORS, DS_DISCARD_TICKS,
	DS_FLUSH_IOS, DS_FLUSH_TICKS,
	DS_NR_FIELDS
};

#define DISKSTATS_NAME_MAX 64

struct diskstats_entry {
	char name[DISKSTATS_NAME_MAX];
	uint32_t major, minor;
	uint64_t field[DS_NR_FIELDS];
};

struct diskstats {
	struct diskstats_entry *entries;	/* in the file's order */
	size_t count, capacity;
};

void diskstats_free(struct diskstats *d);

/* d := the lines of in (d's array is reused).  Lines that are not a
 * device's (too few fields, a number that is not one) are skipped.  0, or
 * -errno of a read error or -ENOMEM (d then holds what was read). */
int diskstats_parse(struct diskstats *d, FILE *in);

/* diskstats_parse() of the file at path.  0 or -errno. */
int diskstats_read(struct diskstats *d, const char *path);

/* The line of the device called name, or NULL. */
const struct diskstats_entry *diskstats_find(const struct diskstats *d, const char *name);

/* One device's extended statistics over an interval, as sysstat's iostat -x
 * and its JSON output (iostat -o JSON) name and compute them. */
struct iostat_x {
	double r_s, w_s, d_s, f_s;		/* completed requests per second */
	double rkB_s, wkB_s, dkB_s;		/* KiB per second */
	double rrqm_s, wrqm_s, drqm_s;		/* requests merged per second */
	double r_await, w_await, d_await, f_await;	/* ms per request, 0 without any */
	double rareq_sz, wareq_sz, dareq_sz;	/* KiB per request, 0 without any */
	double aqu_sz;				/* requests in the queue, on average */
	double util;				/* % of the time with I/O in flight */
};

/*
 * x := the change from prev to cur over interval_ns, by sysstat's rules;
 * prev NULL: the device is new since then (its counters started at 0).
 * The kernel prints times (ticks, io_ticks, time_in_queue) as 32-bit
 * milliseconds, which wrap after 49.7 days: their changes are taken modulo
 * 2^32, the counts' modulo 2^64.  A zero interval gives zeros.
 */
/* What iostat_x_compute() reads of an interval: each field's change (a
 * time field's modulo 2^32, as the kernel keeps it) and the interval, so
 * that the figures can be computed again from them (a record keeps them,
 * history/history_format.h). */
struct diskstats_change {
	uint64_t field[DS_NR_FIELDS];
	uint64_t ns;
};

void diskstats_change_of(const struct diskstats_entry *prev, const struct diskstats_entry *cur,
			 uint64_t interval_ns, struct diskstats_change *c);
/* iostat_x_compute() of a change alone. */
void iostat_x_of_change(const struct diskstats_change *c, struct iostat_x *x);

void iostat_x_compute(const struct diskstats_entry *prev, const struct diskstats_entry *cur,
		      uint64_t interval_ns, struct iostat_x *x);

/* The names iostat -o JSON gives the figures, in its order, and the
 * figures in the same order. */
#define IOSTAT_X_NR 19
extern const char *const iostat_x_names[IOSTAT_X_NR];
void iostat_x_values(const struct iostat_x *x, double values[IOSTAT_X_NR]);

#endif /* DISKIO_DISKSTATS_H */
