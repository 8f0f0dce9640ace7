// SPDX-License-Identifier: GPL-2.0
/* The events channel's records to the tally and the view (event_records.h). */
#include <string.h>
#include <time.h>
#include "event_records.h"

void event_router_init(struct event_router *r, struct tally *tally, struct view *view,
		       uint64_t (*monotonic_ns)(void))
{
	struct timespec wall;
	uint64_t mono = monotonic_ns();

	clock_gettime(CLOCK_REALTIME, &wall);
	r->tally = tally;
	r->view = view;
	r->monotonic_ns = monotonic_ns;
	r->realtime_offset_ns = (int64_t)((uint64_t)wall.tv_sec * 1000000000ULL +
					  (uint64_t)wall.tv_nsec - mono);
}

/* An event's CLOCK_MONOTONIC time as seconds since diskio started, and as
 * the wall clock. */
static void event_time(const struct event_router *r, uint64_t time_ns, struct event_time *when)
{
	uint64_t start_ns = tally_start_ns(r->tally);
	uint64_t wall_ns = time_ns + (uint64_t)r->realtime_offset_ns;

	when->since_start_s = time_ns > start_ns ? (double)(time_ns - start_ns) / 1e9 : 0.0;
	when->wall.tv_sec = wall_ns / 1000000000ULL;
	when->wall.tv_nsec = wall_ns % 1000000000ULL;
}

void event_record(void *router, const void *data, size_t size)
{
	struct event_router *r = router;
	uint32_t type;

	if (size < sizeof(type))
		return;
	memcpy(&type, data, sizeof(type));
	if (type == EVENT_IO && size >= sizeof(struct block_io_event)) {
		struct block_io_event event;
		struct event_time when;

		memcpy(&event, data, sizeof(event));
		tally_io_event(r->tally);
		event_time(r, event.time_ns, &when);
		r->view->io_event(r->view, &event, tally_device_name(r->tally, event.dev), &when);
	} else if (type == EVENT_USER_STACK &&
		   size >= offsetof(struct user_stack_event, frames)) {
		/* Only the frames the kernel gave are sent: copied up to size. */
		struct user_stack_event *event = &r->user_stack;
		size_t frames = (size - offsetof(struct user_stack_event, frames)) /
				sizeof(event->frames[0]);

		memcpy(event, data, size < sizeof(*event) ? size : sizeof(*event));
		if (event->nframes > frames)
			event->nframes = (uint32_t)frames;
		tally_user_stack(r->tally, event);
	} else if (type == EVENT_STACK_PROCESS_EXIT &&
		   size >= sizeof(struct stack_process_exit_event)) {
		struct stack_process_exit_event event;

		memcpy(&event, data, sizeof(event));
		tally_stack_process_exit(r->tally, event.tgid, event.start_ns);
	} else if (type == EVENT_FILE_NAME) {
		tally_file_name(r->tally, data, size);
	} else if (type == EVENT_CRASH && size >= sizeof(struct crash_event)) {
		struct crash_event event;
		struct event_time when;

		memcpy(&event, data, sizeof(event));
		tally_crash_event(r->tally, &event, r->monotonic_ns());
		event_time(r, event.time_ns, &when);
		if (r->view->crash_event)
			r->view->crash_event(r->view, &event, &when);
	}
}
