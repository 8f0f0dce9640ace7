/* SPDX-License-Identifier: GPL-2.0 */
/*
 * --begin and --end of --replay: a time as people type it (issue 43).
 *   2026-11-26T03:00:01.250Z  ISO 8601: Z (or z) or an offset (+01:00,
 *                             +0100, +01, -05:00) after the time, T (t) or
 *                             a space between date and time, seconds and
 *                             their fractions optional
 *   2026-11-26 03:00          without a zone: local time (TZ), as
 *                             journalctl --since reads it
 *   2026-11-26                that day's local midnight
 *   03:00, 03:00:30           a time of today (local; with a zone, today
 *                             there)
 *   @1795690800.5             seconds since the epoch
 *   -2h30m, -90s, -1d         before now: numbers with s, m, h, d, each
 *                             unit at most once
 *   now, today, yesterday,    now; the local midnights (journalctl's words)
 *   tomorrow
 * A local time the clock shows twice (the hour a summer time ends) is the
 * first of the two, so a window from it misses neither; one the clock
 * skipped (the hour it begins) is read with the offset before the skip, as
 * if the clock had not jumped.  Frames are chosen by the millisecond the
 * records print: begin <= time <= end.
 * Pure but for the time zone: now is the caller's, the zone is TZ's (the
 * C library's localtime_r()).
 */
#ifndef DISKIO_REPLAY_WINDOW_H
#define DISKIO_REPLAY_WINDOW_H

#include <stdbool.h>
#include <stdint.h>
#include <time.h>

struct replay_window {
	int64_t begin_ms, end_ms;	/* since the epoch, both included */
};

/* The forms above, for messages that refuse a time. */
#define REPLAY_TIME_FORMS \
	"2026-11-26T03:00:00Z (or +01:00; no zone: local time), 2026-11-26, 03:00 " \
	"(today), @1795690800, -2h30m (s, m, h, d before now), now, today or yesterday"

/* text as milliseconds since the epoch into *ms: NULL, or why it is none
 * of the forms above ("no day 31 in 2026-02"). */
const char *replay_parse_time(const char *text, int64_t now_ms, int64_t *ms);

/* The window of --begin and --end (NULL: unbounded): NULL, or why there is
 * none, with *bad the text that is no time, or NULL when both are times
 * but --end is before --begin. */
const char *replay_window_of(const char *begin, const char *end, int64_t now_ms,
			     struct replay_window *w, const char **bad);

static inline bool replay_window_holds(const struct replay_window *w, const struct timespec *t)
{
	int64_t ms = (int64_t)t->tv_sec * 1000 + t->tv_nsec / 1000000;

	return ms >= w->begin_ms && ms <= w->end_ms;
}

#endif /* DISKIO_REPLAY_WINDOW_H */
