/* SPDX-License-Identifier: GPL-2.0 */
/* Trace mode (-T): one record per completed I/O, the biosnoop view. */
#ifndef DISKIO_TRACE_H
#define DISKIO_TRACE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>
#include <linux/types.h>
#include "diskio.h"
#include "render.h"

#define RWBS_LEN 8

/* The kernel's rwbs letters (blk_fill_rwbs()): F for a preflush, then
 * R, W, D, DE (secure erase), F (flush) or N, then F (FUA), A (readahead),
 * S (sync), M (metadata). */
void format_rwbs(char buf[RWBS_LEN], uint32_t op, uint32_t flags);

void trace_print_columns(FILE *out, bool json);
/* time_s: seconds since diskio started; device: its name. */
void trace_print_io(FILE *out, bool json, const struct block_io_event *event, const char *device,
		    double time_s);
void trace_print_crash(FILE *out, bool json, const struct crash_event *event, double time_s);
/* End of an interval: events received and lost in it. */
void trace_print_interval(FILE *out, bool json, const struct timespec *wall, double interval_s,
			  uint64_t received, const uint64_t lost[LOST_NR_REASONS]);

#endif /* DISKIO_TRACE_H */
