/* SPDX-License-Identifier: GPL-2.0 */
/* The events channel of diskio.bpf.c: a ring buffer, or per-CPU perf buffers
 * where the kernel has no ring buffer. */
#ifndef DISKIO_EVENTS_H
#define DISKIO_EVENTS_H

#include <stddef.h>
#include <stdint.h>

struct ring_buffer;
struct perf_buffer;

struct events {
	struct ring_buffer *ringbuf;
	struct perf_buffer *perfbuf;
	/* Each record as it is read; data may be unaligned: copy before use. */
	void (*on_event)(void *ctx, const void *data, size_t size);
	void *ctx;
	uint64_t perf_lost_records;	/* sum of the kernel's PERF_RECORD_LOST */
	/* Reading stops once CLOCK_MONOTONIC passes it (0: never), checked
	 * every EVENTS_DEADLINE_EVERY records: when the kernel writes faster
	 * than diskio reads, an interval still ends on time, and what is left
	 * is read next. */
	uint64_t deadline_ns;
	uint32_t since_check;
};

#define EVENTS_DEADLINE_EVERY 1024

/* Set on_event and ctx first.  0, or -1 after one "diskio: ..." line. */
int events_open_ringbuf(struct events *ev, int map_fd);
/* pages per CPU; the reader wakes once wakeup_bytes are waiting on a CPU. */
int events_open_perfbuf(struct events *ev, int map_fd, uint32_t pages, uint32_t wakeup_bytes);
/* A descriptor that polls readable when the kernel wakes the reader, to
 * wait on with other descriptors, then events_drain().  Records are
 * submitted without a wakeup until a batch has gathered: drain after every
 * wait, woken or not. */
int events_fd(const struct events *ev);
/* Read everything there (up to deadline_ns), without waiting.  >= 0 or -errno. */
int events_drain(struct events *ev);
void events_free(struct events *ev);

#endif /* DISKIO_EVENTS_H */
