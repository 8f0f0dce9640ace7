/* SPDX-License-Identifier: GPL-2.0 */
/*
 * --begin and --end of --replay: a time as the records print it
 * (2026-11-26T03:00:01.250Z; the seconds, the milliseconds and the Z may
 * be left out, a space may stand for the T), a time of today (03:00,
 * 03:00:30; UTC, as the records print it), or a time before now (-2h,
 * -30m, -90s, -1d).  Frames are chosen by the millisecond the records
 * print: begin <= time <= end.  Pure: now is the caller's.
 */
#ifndef DISKIO_REPLAY_WINDOW_H
#define DISKIO_REPLAY_WINDOW_H

#include <stdbool.h>
#include <stdint.h>
#include <time.h>

struct replay_window {
	int64_t begin_ms, end_ms;	/* since the epoch, both included */
};

/* text as milliseconds since the epoch; false when it is none of the
 * forms above. */
bool replay_parse_time(const char *text, int64_t now_s, int64_t *ms);

/* The window of --begin and --end (NULL: unbounded).  0, or -1 with
 * *bad the text that is no time. */
int replay_window_of(const char *begin, const char *end, int64_t now_s,
		     struct replay_window *w, const char **bad);

static inline bool replay_window_holds(const struct replay_window *w, const struct timespec *t)
{
	int64_t ms = (int64_t)t->tv_sec * 1000 + t->tv_nsec / 1000000;

	return ms >= w->begin_ms && ms <= w->end_ms;
}

#endif /* DISKIO_REPLAY_WINDOW_H */
