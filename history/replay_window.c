// SPDX-License-Identifier: GPL-2.0
/* --begin and --end (replay_window.h). */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>
#include "replay_window.h"

/* "-2h": n units before now. */
static bool parse_ago(const char *text, int64_t now_s, int64_t *ms)
{
	static const struct { char unit; int64_t s; } units[] = {
		{ 's', 1 }, { 'm', 60 }, { 'h', 3600 }, { 'd', 86400 },
	};
	unsigned long long n;
	char unit, extra;

	if (sscanf(text, "-%llu%c%c", &n, &unit, &extra) != 2 || text[1] < '0' ||
	    text[1] > '9' || n > 100ULL * 365 * 86400)
		return false;
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (unit == units[i].unit) {
			*ms = (now_s - (int64_t)n * units[i].s) * 1000;
			return true;
		}
	return false;
}

/* "HH:MM[:SS[.mmm]]" into seconds and milliseconds of a day; *used the
 * characters taken. */
static bool parse_clock(const char *text, int *seconds, int *millis, int *used)
{
	int h, m, s = 0, n = 0, frac_start = 0, frac_end = 0;

	*millis = 0;
	if (sscanf(text, "%2d:%2d%n", &h, &m, &n) != 2 || n != 5)
		return false;
	if (text[n] == ':') {
		int k = 0;

		if (sscanf(text + n + 1, "%2d%n", &s, &k) != 1 || k != 2)
			return false;
		n += 3;
		if (text[n] == '.') {
			frac_start = n + 1;
			for (frac_end = frac_start; text[frac_end] >= '0' && text[frac_end] <= '9';
			     frac_end++)
				;
			if (frac_end == frac_start)
				return false;
			for (int i = 0; i < 3; i++)
				*millis = *millis * 10 +
					  (frac_start + i < frac_end ? text[frac_start + i] - '0' : 0);
			n = frac_end;
		}
	}
	if (h > 23 || m > 59 || s > 60)
		return false;
	*seconds = h * 3600 + m * 60 + s;
	*used = n;
	return true;
}

bool replay_parse_time(const char *text, int64_t now_s, int64_t *ms)
{
	int year, month, day, n = 0, seconds, millis, used;
	struct tm tm = { 0 };
	const char *rest;
	int64_t day_s;

	if (text[0] == '-')
		return parse_ago(text, now_s, ms);
	if (sscanf(text, "%4d-%2d-%2d%n", &year, &month, &day, &n) == 3 && n == 10) {
		if ((text[10] != 'T' && text[10] != ' ') || month < 1 || month > 12 || day < 1 ||
		    day > 31)
			return false;
		tm.tm_year = year - 1900;
		tm.tm_mon = month - 1;
		tm.tm_mday = day;
		day_s = timegm(&tm);
		rest = text + 11;
	} else {
		day_s = now_s - ((now_s % 86400) + 86400) % 86400;	/* today, UTC */
		rest = text;
	}
	if (!parse_clock(rest, &seconds, &millis, &used))
		return false;
	rest += used;
	if (*rest == 'Z')
		rest++;
	if (*rest)
		return false;
	*ms = (day_s + seconds) * 1000 + millis;
	return true;
}

int replay_window_of(const char *begin, const char *end, int64_t now_s,
		     struct replay_window *w, const char **bad)
{
	w->begin_ms = INT64_MIN;
	w->end_ms = INT64_MAX;
	if (begin && !replay_parse_time(begin, now_s, &w->begin_ms)) {
		*bad = begin;
		return -1;
	}
	if (end && !replay_parse_time(end, now_s, &w->end_ms)) {
		*bad = end;
		return -1;
	}
	return 0;
}
