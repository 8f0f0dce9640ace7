/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The records of the BPF program's events channel (abi.h's EVENT_*), as
 * events.h's on_event hands them over: checked by size, copied out (perf
 * buffer samples are only 4-byte aligned), their kernel times made wall-
 * clock times, and given to the tally and the view.  No libbpf: the clock
 * comes in.
 */
#ifndef DISKIO_EVENT_RECORDS_H
#define DISKIO_EVENT_RECORDS_H

#include <stddef.h>
#include <stdint.h>
#include "abi.h"
#include "tally.h"
#include "view.h"

struct event_router {
	struct tally *tally;
	struct view *view;
	uint64_t (*monotonic_ns)(void);
	/* CLOCK_REALTIME - CLOCK_MONOTONIC when the router was made: kernel
	 * times (bpf_ktime_get_ns()) plus this are wall-clock times. */
	int64_t realtime_offset_ns;
	struct user_stack_event user_stack;	/* too big for the stack */
};

/* Records from now on go to tally and view; monotonic_ns is the clock the
 * kernel's times are on (CLOCK_MONOTONIC). */
void event_router_init(struct event_router *r, struct tally *tally, struct view *view,
		       uint64_t (*monotonic_ns)(void));

/* One record of size bytes (events.h's on_event, ctx a struct
 * event_router).  A record too short for its type is ignored. */
void event_record(void *router, const void *data, size_t size);

#endif /* DISKIO_EVENT_RECORDS_H */
