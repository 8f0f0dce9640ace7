// SPDX-License-Identifier: GPL-2.0
/*
 * --begin and --end (replay_window.h).  Digits are read one by one, not with
 * scanf, whose %d takes a sign and spaces: it read "+1:00" as 01:00.  Days
 * are checked against their month, not left to timegm(), which turns
 * 2026-02-31 into March 3.
 */
#define _GNU_SOURCE
#include <string.h>
#include "replay_window.h"

#define S_PER_DAY	86400
#define FIRST_YEAR	1970	/* no record is older */
#define LAST_EPOCH_S	253402300799LL	/* 9999-12-31T23:59:59Z: four-digit years */
#define MAX_AGO_S	(100LL * 366 * S_PER_DAY)

static const char clock_form[] = "a time of day is HH:MM, HH:MM:SS or HH:MM:SS.fff";

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* Rounds towards minus infinity, as days before 1970 need. */
static int64_t floor_div(int64_t a, int64_t b)
{
	return a / b - (a % b != 0 && (a < 0) != (b < 0));
}

/* Exactly count digits at *p as a number: *p moves past them; else false
 * and *p stays. */
static bool take_digits(const char **p, int count, int *value)
{
	int v = 0;

	for (int i = 0; i < count; i++) {
		if (!is_digit((*p)[i]))
			return false;
		v = v * 10 + (*p)[i] - '0';
	}
	*p += count;
	*value = v;
	return true;
}

static bool is_leap_year(int year)
{
	return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
}

static int days_in_month(int year, int month)
{
	static const int days[] = { 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };

	return month == 2 && is_leap_year(year) ? 29 : days[month - 1];
}

/* Leap years from year 1 up to and including year. */
static int64_t leap_years_through(int year)
{
	return year / 4 - year / 100 + year / 400;
}

/* Days from 1970-01-01 to a checked date (year >= 1970). */
static int64_t days_since_epoch(int year, int month, int day)
{
	static const int days_before_month[] = {
		0, 31, 59, 90, 120, 151, 181, 212, 243, 273, 304, 334,
	};
	int64_t days = (int64_t)(year - 1970) * 365 + leap_years_through(year - 1) -
		       leap_years_through(1969) + days_before_month[month - 1] + day - 1;

	return days + (month > 2 && is_leap_year(year));
}

/* The local zone's offset from UTC at an instant, in seconds (east positive). */
static int64_t local_offset_s(int64_t utc_s)
{
	time_t t = utc_s;
	struct tm tm;

	return localtime_r(&t, &tm) ? tm.tm_gmtoff : 0;
}

/*
 * The instant a local clock reading names; local_s is the reading counted
 * as if the zone were UTC.  The offsets a day before and after are the
 * only ones the reading can have (zones change at most once a day): a
 * reading shown with both offsets (the repeated hour) is the earlier
 * instant, one shown with neither (the skipped hour) keeps the offset
 * before the skip.
 */
static int64_t local_to_utc(int64_t local_s)
{
	int64_t before = local_offset_s(local_s - S_PER_DAY);
	int64_t after = local_offset_s(local_s + S_PER_DAY);
	int64_t with_before = local_s - before, with_after = local_s - after;
	bool before_shown = local_offset_s(with_before) == before;
	bool after_shown = local_offset_s(with_after) == after;

	if (before_shown && after_shown)
		return with_before < with_after ? with_before : with_after;
	return after_shown ? with_after : with_before;
}

/* The local day of an instant, as days since 1970-01-01. */
static int64_t local_day(int64_t utc_s)
{
	return floor_div(utc_s + local_offset_s(utc_s), S_PER_DAY);
}

/* "HH:MM[:SS[.fff...]]" at *p (H may be one digit): its second of the day
 * (86400 for 24:00, the day's end) and milliseconds (further digits
 * dropped, as records print milliseconds); *p moves past it.  NULL, or why
 * it is no time of day. */
static const char *take_clock(const char **p, int *seconds, int *millis)
{
	const char *s = *p;
	int hour, minute, second = 0, digits = 0;

	*millis = 0;
	if (!take_digits(&s, 2, &hour) && !take_digits(&s, 1, &hour))
		return clock_form;
	if (*s++ != ':' || !take_digits(&s, 2, &minute))
		return clock_form;
	if (*s == ':') {
		s++;
		if (!take_digits(&s, 2, &second))
			return clock_form;
		if (*s == '.') {
			if (!is_digit(*++s))
				return "a fraction of a second needs digits after the point";
			for (; is_digit(*s); s++, digits++)
				if (digits < 3)
					*millis = *millis * 10 + *s - '0';
			for (; digits < 3; digits++)
				*millis *= 10;
		}
	}
	if (hour == 24 && !minute && !second && !*millis)
		;	/* ISO 8601's end of a day */
	else if (hour > 23)
		return "hours are 00 to 23 (24:00 is the end of a day)";
	if (minute > 59)
		return "minutes are 00 to 59";
	if (second > 59)
		return "seconds are 00 to 59";
	*seconds = hour * 3600 + minute * 60 + second;
	*p = s;
	return NULL;
}

/* After a time: Z (z), +HH:MM, +HHMM, +HH (or -), into *offset_s with
 * *zoned true; nothing at all is local time (*zoned false).  The rest of
 * the text must be empty. */
static const char *take_zone(const char *p, bool *zoned, int64_t *offset_s)
{
	int hours, minutes = 0, sign;
	bool colon;

	*zoned = *p != '\0';
	*offset_s = 0;
	if (*p == 'Z' || *p == 'z') {
		p++;
	} else if (*p == '+' || *p == '-') {
		sign = *p++ == '-' ? -1 : 1;
		if (!take_digits(&p, 2, &hours))
			return "an offset is +HH:MM, +HHMM or +HH (or -)";
		colon = *p == ':';
		p += colon;
		if ((colon || is_digit(*p)) && !take_digits(&p, 2, &minutes))
			return "an offset is +HH:MM, +HHMM or +HH (or -)";
		if (hours > 23 || minutes > 59)
			return "an offset is at most 23:59";
		*offset_s = sign * (hours * 3600 + minutes * 60);
	}
	if (*p)
		return "something follows the time: only a zone may (Z, +01:00)";
	return NULL;
}

/* A day and a second of it, with its zone (local when not zoned). */
static int64_t instant_ms(int64_t day, int seconds, int millis, bool zoned, int64_t offset_s)
{
	int64_t clock_s = day * S_PER_DAY + seconds;
	int64_t utc_s = zoned ? clock_s - offset_s : local_to_utc(clock_s);

	return utc_s * 1000 + millis;
}

/* "2026-11-26", "2026-11-26T03:00[:SS[.fff]][zone]" (a space or t for T). */
static const char *parse_date_time(const char *p, int64_t *ms)
{
	int year, month, day, seconds, millis;
	int64_t days, offset_s;
	const char *why;
	bool zoned;

	if (!take_digits(&p, 4, &year) || *p++ != '-' || !take_digits(&p, 2, &month) ||
	    *p++ != '-' || !take_digits(&p, 2, &day))
		return "a date is YYYY-MM-DD";
	if (year < FIRST_YEAR)
		return "years are 1970 to 9999";
	if (month < 1 || month > 12)
		return "months are 01 to 12";
	if (day < 1 || day > days_in_month(year, month))
		return "that month has no such day";
	days = days_since_epoch(year, month, day);
	if (!*p) {
		*ms = instant_ms(days, 0, 0, false, 0);		/* its local midnight */
		return NULL;
	}
	if (*p != 'T' && *p != 't' && *p != ' ')
		return "a date and its time are joined by T or a space";
	p++;
	if ((why = take_clock(&p, &seconds, &millis)) || (why = take_zone(p, &zoned, &offset_s)))
		return why;
	*ms = instant_ms(days, seconds, millis, zoned, offset_s);
	return NULL;
}

/* "03:00[:SS[.fff]][zone]": today's, in that zone (local without one). */
static const char *parse_time_of_day(const char *p, int64_t now_s, int64_t *ms)
{
	int seconds, millis;
	int64_t offset_s, today;
	const char *why;
	bool zoned;

	if ((why = take_clock(&p, &seconds, &millis)) || (why = take_zone(p, &zoned, &offset_s)))
		return why;
	today = zoned ? floor_div(now_s + offset_s, S_PER_DAY) : local_day(now_s);
	*ms = instant_ms(today, seconds, millis, zoned, offset_s);
	return NULL;
}

/* "2h30m" of "-2h30m": numbers with units, each unit once, before now. */
static const char *parse_ago(const char *p, int64_t now_ms, int64_t *ms)
{
	static const struct {
		char unit;
		int64_t seconds;
	} units[] = { { 'd', S_PER_DAY }, { 'h', 3600 }, { 'm', 60 }, { 's', 1 } };
	unsigned int seen = 0;
	int64_t total_s = 0;

	if (!*p)
		return "a time before now is numbers with units: -2h30m, -90s, -1d";
	while (*p) {
		int64_t n = 0;
		size_t u;

		if (!is_digit(*p))
			return "a time before now is numbers with units: -2h30m, -90s, -1d";
		for (; is_digit(*p); p++)
			if ((n = n * 10 + *p - '0') > MAX_AGO_S)
				return "a time before now is at most 100 years before it";
		for (u = 0; u < sizeof(units) / sizeof(units[0]) && units[u].unit != *p; u++)
			;
		if (u == sizeof(units) / sizeof(units[0]))
			return *p ? "the units of a time before now are s, m, h and d" :
				    "a number needs its unit: s, m, h or d (-90s)";
		if (seen & 1U << u)
			return "each unit at most once (-2h30m)";
		seen |= 1U << u;
		if ((total_s += n * units[u].seconds) > MAX_AGO_S)
			return "a time before now is at most 100 years before it";
		p++;
	}
	*ms = now_ms - total_s * 1000;
	return NULL;
}

/* "1795690800[.fff]" of "@1795690800.250": seconds since the epoch. */
static const char *parse_epoch(const char *p, int64_t *ms)
{
	static const char form[] = "@ is followed by seconds since the epoch (@1795690800.250)";
	int64_t seconds = 0;
	int millis = 0, digits = 0;

	if (!is_digit(*p))
		return form;
	for (; is_digit(*p); p++)
		if ((seconds = seconds * 10 + *p - '0') > LAST_EPOCH_S)
			return "seconds since the epoch are at most 253402300799 (9999-12-31)";
	if (*p == '.') {
		if (!is_digit(*++p))
			return form;
		for (; is_digit(*p); p++, digits++)
			if (digits < 3)
				millis = millis * 10 + *p - '0';
		for (; digits < 3; digits++)
			millis *= 10;
	}
	if (*p)
		return form;
	*ms = seconds * 1000 + millis;
	return NULL;
}

const char *replay_parse_time(const char *text, int64_t now_ms, int64_t *ms)
{
	/* journalctl's words: the local midnights around now */
	static const struct {
		const char *word;
		int days_from_today;
	} midnights[] = { { "yesterday", -1 }, { "today", 0 }, { "tomorrow", 1 } };
	int64_t now_s = floor_div(now_ms, 1000);

	if (!*text)
		return "it is empty";
	if (text[0] == '+')
		return "a time does not start with '+': a time before now is -2h, a zone follows "
		       "its time (03:00+01:00)";
	if (text[0] == '-')
		return parse_ago(text + 1, now_ms, ms);
	if (text[0] == '@')
		return parse_epoch(text + 1, ms);
	if (!strcmp(text, "now")) {
		*ms = now_ms;
		return NULL;
	}
	for (size_t i = 0; i < sizeof(midnights) / sizeof(midnights[0]); i++)
		if (!strcmp(text, midnights[i].word)) {
			*ms = instant_ms(local_day(now_s) + midnights[i].days_from_today, 0, 0,
					 false, 0);
			return NULL;
		}
	if (strlen(text) >= 5 && is_digit(text[0]) && is_digit(text[1]) && is_digit(text[2]) &&
	    is_digit(text[3]) && text[4] == '-')
		return parse_date_time(text, ms);
	if (is_digit(text[0]))
		return parse_time_of_day(text, now_s, ms);
	return "it is none of the forms";
}

const char *replay_window_of(const char *begin, const char *end, int64_t now_ms,
			     struct replay_window *w, const char **bad)
{
	const char *why;

	w->begin_ms = INT64_MIN;
	w->end_ms = INT64_MAX;
	*bad = NULL;
	if (begin && (why = replay_parse_time(begin, now_ms, &w->begin_ms))) {
		*bad = begin;
		return why;
	}
	if (end && (why = replay_parse_time(end, now_ms, &w->end_ms))) {
		*bad = end;
		return why;
	}
	if (w->begin_ms > w->end_ms)
		return "--end is before --begin: the window holds no time";
	return NULL;
}
