// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdbool.h>
#include <linux/perf_event.h>
#include <string.h>
#include <time.h>
#include <bpf/libbpf.h>
#include "events.h"
#include "msg.h"

static bool past_deadline(struct events *ev)
{
	struct timespec ts;

	if (!ev->deadline_ns || ++ev->since_check < EVENTS_DEADLINE_EVERY)
		return false;
	ev->since_check = 0;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec >= ev->deadline_ns;
}

/* libbpf stops reading the ring at a negative return, the record read. */
#define STOP_READING (-EAGAIN)

static int on_ringbuf_record(void *ctx, void *data, size_t size)
{
	struct events *ev = ctx;

	ev->on_event(ev->ctx, data, size);
	return past_deadline(ev) ? STOP_READING : 0;
}

int events_open_ringbuf(struct events *ev, int map_fd)
{
	ev->ringbuf = ring_buffer__new(map_fd, on_ringbuf_record, ev, NULL);
	if (!ev->ringbuf) {
		fail("cannot open the ring buffer: %s", strerror(errno));
		return -1;
	}
	return 0;
}

/* perf buffer records, read raw so that wakeups can be batched. */
struct perf_sample {
	struct perf_event_header header;
	uint32_t size;
	char data[];
};

struct perf_lost_record {
	struct perf_event_header header;
	uint64_t id;
	uint64_t lost;
};

static enum bpf_perf_event_ret on_perf_record(void *ctx, int cpu, struct perf_event_header *header)
{
	struct events *ev = ctx;

	(void)cpu;
	if (header->type == PERF_RECORD_SAMPLE) {
		struct perf_sample *sample = (struct perf_sample *)header;

		ev->on_event(ev->ctx, sample->data, sample->size);
	} else if (header->type == PERF_RECORD_LOST) {
		struct perf_lost_record lost;

		memcpy(&lost, header, sizeof(lost));
		ev->perf_lost_records += lost.lost;
	}
	return past_deadline(ev) ? LIBBPF_PERF_EVENT_DONE : LIBBPF_PERF_EVENT_CONT;
}

int events_open_perfbuf(struct events *ev, int map_fd, uint32_t pages, uint32_t wakeup_bytes)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_SOFTWARE,
		.config = PERF_COUNT_SW_BPF_OUTPUT,
		.sample_type = PERF_SAMPLE_RAW,
		.sample_period = 1,
		.watermark = 1,
		.wakeup_watermark = wakeup_bytes,
	};

	ev->perfbuf = perf_buffer__new_raw(map_fd, pages, &attr, on_perf_record, ev, NULL);
	if (!ev->perfbuf) {
		fail("cannot open the perf buffer: %s", strerror(errno));
		return -1;
	}
	return 0;
}

int events_fd(const struct events *ev)
{
	return ev->ringbuf ? ring_buffer__epoll_fd(ev->ringbuf) : perf_buffer__epoll_fd(ev->perfbuf);
}

int events_drain(struct events *ev)
{
	int err = ev->ringbuf ? ring_buffer__consume(ev->ringbuf) :
				perf_buffer__consume(ev->perfbuf);

	return err == STOP_READING ? 0 : err;
}

void events_free(struct events *ev)
{
	ring_buffer__free(ev->ringbuf);
	perf_buffer__free(ev->perfbuf);
	ev->ringbuf = NULL;
	ev->perfbuf = NULL;
}
