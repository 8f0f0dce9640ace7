// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the events channel's records (event_records.c): records as
 * the ring or perf buffer hands them over (unaligned, cut short), given to
 * a real tally and a view that notes what it was shown.  No root.
 */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "event_records.h"

#define SECOND UINT64_C(1000000000)
#define T0 (100 * SECOND)

static uint64_t clock_now = T0;

static uint64_t fake_clock(void)
{
	return clock_now;
}

/* What the view was shown. */
static struct {
	int io_events, crash_events;
	struct block_io_event io;
	char device[64];
	struct event_time io_when;
	struct crash_event crash;
} shown;

static void note_io(struct view *v, const struct block_io_event *e, const char *device,
		    const struct event_time *when)
{
	(void)v;
	shown.io_events++;
	shown.io = *e;
	snprintf(shown.device, sizeof(shown.device), "%s", device);
	shown.io_when = *when;
}

static void note_crash(struct view *v, const struct crash_event *e, const struct event_time *when)
{
	(void)v;
	(void)when;
	shown.crash_events++;
	shown.crash = *e;
}

static bool always_alive(uint32_t tgid)
{
	(void)tgid;
	return true;
}

static struct tally tally;
static struct view view;
static struct event_router router;

static void setup(void)
{
	struct tally_config config = {
		.crash_interval_ns = 3600 * SECOND,
		.sysfs_root = "/nonexistent/diskio-test-event-records",
		.process_alive = always_alive,
		.trace = true,
	};

	memset(&shown, 0, sizeof(shown));
	clock_now = T0;
	cr_assert_eq(tally_init(&tally, &config, T0), 0);
	view = (struct view){ .io_event = note_io, .crash_event = note_crash };
	event_router_init(&router, &tally, &view, fake_clock);
}

static void teardown(void)
{
	tally_free(&tally);
}

TestSuite(event_records, .init = setup, .fini = teardown);

/* A record at an odd address, as a perf buffer sample may be. */
static void deliver(const void *record, size_t size)
{
	char *buf = malloc(size + 1);

	cr_assert_not_null(buf);
	memcpy(buf + 1, record, size);
	event_record(&router, buf + 1, size);
	free(buf);
}

Test(event_records, an_io_reaches_the_view_with_its_disk_and_times)
{
	struct block_io_event e = {
		.type = EVENT_IO, .tgid = 42, .time_ns = T0 + SECOND / 2, .latency_ns = 1500,
		.sector = 8, .bytes = 4096, .dev = (8u << 20) | 16, .op = 1,
	};

	memcpy(e.comm, "dd", 3);
	deliver(&e, sizeof(e));
	cr_assert_eq(shown.io_events, 1);
	cr_assert_eq(shown.io.tgid, 42);
	cr_assert_eq(shown.io.bytes, 4096);
	cr_assert_str_eq(shown.device, "8:16", "a disk without sysfs is named MAJ:MIN");
	cr_assert_float_eq(shown.io_when.since_start_s, 0.5, 1e-9);
	/* The wall clock: the kernel's time plus the offset taken at the start. */
	cr_assert_eq((int64_t)shown.io_when.wall.tv_sec * (int64_t)SECOND +
		     shown.io_when.wall.tv_nsec,
		     (int64_t)(T0 + SECOND / 2) + router.realtime_offset_ns);
	cr_assert_eq(tally.io_events, 1, "the tally counts it");
}

Test(event_records, records_cut_short_are_ignored)
{
	struct block_io_event io = { .type = EVENT_IO };
	struct crash_event crash = { .type = EVENT_CRASH, .signal = 11 };
	uint32_t unknown = 99;

	deliver(&io, sizeof(io) - 1);
	deliver(&crash, sizeof(crash) - 1);
	deliver(&unknown, sizeof(unknown));
	deliver(&unknown, 2);
	cr_assert_eq(shown.io_events, 0);
	cr_assert_eq(shown.crash_events, 0);
	cr_assert_eq(tally.io_events, 0);
	cr_assert_eq(tally.ncrash_events, 0);
}

Test(event_records, a_crash_is_counted_and_shown)
{
	struct crash_event e = { .type = EVENT_CRASH, .tgid = 7, .time_ns = T0 + SECOND,
				 .signal = 11, .core_dumped = 1 };

	memcpy(e.comm, "segv", 5);
	clock_now = T0 + 2 * SECOND;
	deliver(&e, sizeof(e));
	cr_assert_eq(shown.crash_events, 1);
	cr_assert_eq(shown.crash.tgid, 7);
	cr_assert_eq(tally.ncrash_events, 0, "trace mode shows it as it comes, not in a frame");
	cr_assert_eq(tally_crash(&tally)->crashes, 1);
}

/* A user stack record carries only the frames the kernel gave: a count
 * larger than what came is cut to what came. */
Test(event_records, a_user_stack_claims_no_more_frames_than_it_carries)
{
	size_t head = offsetof(struct user_stack_event, frames);
	size_t size = head + 3 * sizeof(router.user_stack.frames[0]);
	struct user_stack_event *e = calloc(1, sizeof(*e));

	cr_assert_not_null(e);
	e->type = EVENT_USER_STACK;
	e->nframes = 50;
	deliver(e, size);
	cr_assert_eq(router.user_stack.nframes, 3);
	free(e);
}
