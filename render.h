/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The three views of an interval: top (terminal), batch (awk) and JSON.
 * Rendering only: everything comes in a struct frame, output goes to a FILE.
 */
#ifndef DISKIO_RENDER_H
#define DISKIO_RENDER_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>
#include "crashfree.h"
#include "iostats.h"
#include "pmem_metrics.h"
#include "resources.h"

/* Why records were lost: the kernel's causes first (enum lost_cause), then
 * what user space counts. */
enum lost_reason {
	LOST_REASON_STATS_MAP = LOST_STATS_MAP_FULL,
	LOST_REASON_INFLIGHT = LOST_INFLIGHT_FULL,
	LOST_REASON_RINGBUF = LOST_RINGBUF_RESERVE,
	LOST_REASON_CRASH_MAP = LOST_CRASH_MAP_FULL,
	LOST_REASON_PERF_BUFFER = LOST_PERF_OUTPUT,
	LOST_REASON_COMPLETION_UNSEEN = LOST_COMPLETION_UNSEEN,
	LOST_REASON_NAMES_TABLE = LOST_NR_KERNEL_CAUSES,
	LOST_NR_REASONS,
};

extern const char *const lost_reason_names[LOST_NR_REASONS];

struct frame {
	struct timespec wall;		/* end of the interval, CLOCK_REALTIME */
	double interval_s;
	bool cumulative;		/* -a: totals since start */
	bool per_process_latency;	/* -L */
	struct proc_io *const *rows;	/* sorted; only rows with something to show */
	size_t nrows;
	const struct res_table *names;
	const struct pmem_metrics *devices;
	uint64_t lost[LOST_NR_REASONS];	/* this interval (or the run, in a summary) */
	const struct crashfree *crash;
	const struct crash_event *crash_events;	/* crashes seen in this interval */
	size_t ncrash_events;
};

struct screen {
	unsigned int rows, cols;	/* of the terminal */
	unsigned int max_rows;		/* -r, 0: no limit but the terminal */
	bool clear;			/* redraw in place */
};

uint64_t lost_total(const uint64_t lost[LOST_NR_REASONS]);

/* A name as one awk field: bytes <= 0x20 (space, tab, newline...), 0x7f,
 * >= 0x80 and backslash become \xHH; an empty name is "-". */
void batch_write_name(FILE *out, const char *name, size_t len);

/* " lost=N lost_<cause>=N ..." and "\"lost\":{\"events\":N,\"by_cause\":{...}}" */
void batch_write_lost(FILE *out, const uint64_t lost[LOST_NR_REASONS]);
void json_write_lost(FILE *out, const uint64_t lost[LOST_NR_REASONS]);

void render_batch_columns(FILE *out);
void render_batch(FILE *out, const struct frame *frame);
void render_json(FILE *out, const struct frame *frame);
void render_top(FILE *out, const struct frame *frame, const struct screen *screen);

/* At exit: the run's totals of lost records and crash-free intervals
 * (trace_received: events received in trace mode, NULL otherwise). */
void render_summary(FILE *out, bool json, const struct timespec *wall, double duration_s,
		    const uint64_t lost[LOST_NR_REASONS], const uint64_t *trace_received,
		    const struct crashfree *crash);

/* "SIGSEGV" for the signals that make a crash, "SIG<n>" otherwise. */
const char *signal_name(uint32_t sig, char *buf, size_t size);

/* "1h", "30m", "90s": an interval for people. */
void format_duration(char *buf, size_t size, uint64_t seconds);
/* "1.5 MiB": bytes for people. */
void format_bytes(char *buf, size_t size, double bytes);
/* "2026-11-22T08:00:01Z" */
void format_utc(char *buf, size_t size, const struct timespec *when);

#endif /* DISKIO_RENDER_H */
