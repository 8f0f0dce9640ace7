/* SPDX-License-Identifier: GPL-2.0 */
/*
 * --prom FILE: the metrics in Prometheus' text exposition format, for
 * node_exporter's textfile collector.  Three parts, each testable without
 * root: the bookkeeping (struct prom_totals, fed one frame per interval:
 * totals since diskio started per (device, comm[, cgroup]) series, a cap on
 * series per device, idle series dropped), and the rendering to a FILE,
 * which atomic_file.h writes.
 * doc/prometheus.md lists the metrics.
 */
#ifndef DISKIO_PROM_H
#define DISKIO_PROM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "crashfree.h"
#include "frame.h"
#include "pmem_metrics.h"

#define PROM_DEFAULT_ROWS	50	/* series per device, --prom-rows */
#define PROM_DEFAULT_IDLE_S	3600	/* --prom-idle */
/* The label value of the series that takes what the cap leaves out. */
#define PROM_OTHER		"other"
/* --prom-label: how many, and how long a name and a value may be. */
#define PROM_MAX_LABELS		16
#define PROM_LABEL_NAME_MAX	128
#define PROM_LABEL_VALUE_MAX	1024

/* What a series counts: bytes and I/Os per operation, flushes, dirtied,
 * failed I/Os by kind (PROM_ERRORS + enum io_error_kind, issue 45). */
enum prom_count {
	PROM_READ_BYTES,
	PROM_WRITE_BYTES,
	PROM_DISCARD_BYTES,
	PROM_READ_IOS,
	PROM_WRITE_IOS,
	PROM_DISCARD_IOS,
	PROM_FLUSHES,
	PROM_DIRTIED_BYTES,
	PROM_ERRORS,
	PROM_NR_COUNTS = PROM_ERRORS + IO_ERROR_KINDS
};

struct prom_config {
	uint32_t max_rows;	/* series per device before "other"; 0: the default */
	uint64_t idle_ns;	/* a series unchanged this long is dropped; 0: never */
	bool by_cgroup;		/* rows are per (cgroup, device): no comm label */
	bool dirtied;		/* the kernel reports dirtied bytes */
	const char *version;	/* of diskio_build_info */
	/* --prom-label KEY=VALUE, each passed by prom_label_problem(): added
	 * to every series of the file, after the file's own labels. */
	const char *const *labels;
	uint32_t nlabels;
};

/* One series: its labels as the file shows them (escaped, quoted), e.g.
 * device="vda",comm="dd",cgroup="/user.slice", and its totals. */
struct prom_series {
	char *labels;
	char *device;		/* the device label's value, escaped */
	bool folded;		/* the "other" series of its device */
	uint64_t count[PROM_NR_COUNTS];
	uint64_t iowait_ns;	/* IO>: waited for block I/O (iowait.h) */
	uint64_t changed_ns;	/* when a count last grew */
};

struct prom_totals {
	struct prom_config config;
	struct prom_series *series;	/* in the order they were made */
	size_t nseries, capacity;
	uint64_t lost[LOST_NR_CAUSES];	/* since diskio started */
	uint64_t alloc_failed;		/* rows not counted: no memory for a series */
	bool finished;			/* diskio is exiting: diskio_up 0 */
	bool iowait_measured;		/* a frame knew IO>: its family is written */
	char *user_labels;		/* config.labels as the file writes them, NULL: none */
};

/* 0, or -ENOMEM (p is then as after prom_free()). */
int prom_init(struct prom_totals *p, const struct prom_config *config);
void prom_free(struct prom_totals *p);

/* An interval's frame (its rows' per-interval changes, its losses) joins
 * the totals at now_ns (CLOCK_MONOTONIC); series idle for config.idle_ns
 * are dropped after.  Rows' deltas are used, so -a changes nothing. */
void prom_add_frame(struct prom_totals *p, const struct frame *f, uint64_t now_ns);

/* At exit: the run's losses, counted to the end (struct summary's), and
 * "diskio_up 0" in every file rendered after. */
void prom_finish(struct prom_totals *p, const uint64_t lost[LOST_NR_CAUSES]);

/*
 * The whole file: every family with its HELP and TYPE lines, the series,
 * the devices' counters and latency histograms (devices may be NULL: none),
 * losses, crash-free counts (crash may be NULL: none yet), and last
 * "diskio_up 1" ("diskio_up 0" after prom_finish()), so a reader that sees
 * that line has seen it all.
 * 0, -ENOMEM, or -EIO when the stream has its error flag set.
 */
int prom_render(FILE *out, const struct prom_totals *p, const struct pmem_metrics *devices,
		const struct crashfree *crash);

/*
 * A label value as the file holds it, into buf[size] (NUL-terminated, cut
 * if it does not fit): bytes below 0x20, 0x7f, 0x80 and above and the
 * backslash become the text \xHH (so any comm becomes valid UTF-8 and two
 * names never look the same), then the exposition format's escapes apply:
 * that backslash is written \\ and a double quote \".  Returns the length
 * the whole value needs (at most 5 * len).
 */
size_t prom_escape_label(char *buf, size_t size, const char *value, size_t len);

/*
 * One --prom-label KEY=VALUE, given after given[0..ngiven): NULL when it
 * may be added to every series, else what is wrong, as a phrase for the
 * error message.  KEY must be a Prometheus label name ([a-zA-Z_][a-zA-Z0-9_]*,
 * at most PROM_LABEL_NAME_MAX bytes), not reserved (starting with "__"), not
 * one of the file's own (device, comm, cgroup, op, le, cause, version) nor
 * one Prometheus sets on every series it scrapes (instance, job), and not
 * given before; VALUE must be valid UTF-8, 1 to PROM_LABEL_VALUE_MAX bytes
 * (an empty value is no label at all to Prometheus).
 */
const char *prom_label_problem(const char *arg, const char *const *given, size_t ngiven);

/*
 * KEY=VALUE (checked) as the file writes it, into buf[size] as
 * prom_escape_label() does: KEY="VALUE" with the exposition format's three
 * escapes, a backslash as \\, a double quote as \" and a line feed as \n;
 * the value's other bytes are kept as they are (it is the user's, and
 * valid UTF-8).  Returns the length the whole text needs.
 */
size_t prom_format_user_label(char *buf, size_t size, const char *arg);

/*
 * 2^(k+1) ns, the upper bound of latency slot k, as seconds in decimal
 * ("0.000001024"): exact, as the le label of a bucket.
 */
void prom_format_ns_as_seconds(char *buf, size_t size, uint64_t ns);


#endif /* DISKIO_PROM_H */
