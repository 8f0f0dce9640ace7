// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of --begin and --end (history/replay_window.c): each form with
 * the millisecond it names, at a fixed now, in Berlin (CET +01:00 in
 * November, CEST +02:00 in summer), and each nonsense refused.
 */
#include <stdlib.h>
#include <unistd.h>
#include <criterion/criterion.h>
#include "replay_window.h"

#define NOW		1795690800LL	/* 2026-11-26T11:00:00Z, 12:00 in Berlin */
#define NOW_MS		(NOW * 1000 + 678)
#define HOUR		3600LL
#define BERLIN_POSIX	"CET-1CEST,M3.5.0,M10.5.0/3"

static void in_zone(const char *tz)
{
	cr_assert_eq(setenv("TZ", tz, 1), 0);
	tzset();
}

/* Berlin from the zone database when it is installed, else the same rules
 * as a POSIX TZ string (the same answers for 2026). */
static void in_berlin(void)
{
	in_zone(access("/usr/share/zoneinfo/Europe/Berlin", R_OK) ? BERLIN_POSIX :
		"Europe/Berlin");
}

static int64_t at_now(const char *text, int64_t now_ms)
{
	int64_t ms = -1;
	const char *why = replay_parse_time(text, now_ms, &ms);

	cr_assert_null(why, "'%s': %s", text, why);
	return ms;
}

static int64_t at(const char *text)
{
	return at_now(text, NOW_MS);
}

static int64_t ms_of(int64_t seconds)
{
	return seconds * 1000;
}

TestSuite(replay_window, .init = in_berlin);

Test(replay_window, iso_8601_with_a_zone)
{
	int64_t three_utc = ms_of(NOW - 8 * HOUR);

	cr_assert_eq(at("2026-11-26T03:00:01.250Z"), three_utc + 1250);
	cr_assert_eq(at("2026-11-26t03:00:01.250z"), three_utc + 1250, "lower case t and z");
	cr_assert_eq(at("2026-11-26 03:00:01Z"), three_utc + 1000);
	cr_assert_eq(at("2026-11-26T03:00Z"), three_utc);
	cr_assert_eq(at("2026-11-26T03:00:01.2Z"), three_utc + 1200);
	cr_assert_eq(at("2026-11-26T03:00:01.2509Z"), three_utc + 1250, "ms as records print");
	cr_assert_eq(at("2026-11-26T03:00+01:00"), three_utc - ms_of(HOUR));
	cr_assert_eq(at("2026-11-26T03:00+0100"), three_utc - ms_of(HOUR));
	cr_assert_eq(at("2026-11-26T03:00+01"), three_utc - ms_of(HOUR));
	cr_assert_eq(at("2026-11-26T03:00:00.5-05:00"), three_utc + ms_of(5 * HOUR) + 500);
	cr_assert_eq(at("2026-11-26T03:00+05:30"), three_utc - ms_of(5 * HOUR + 1800));
	cr_assert_eq(at("2026-11-26T24:00Z"), ms_of(NOW + 13 * HOUR), "the day's end");
	cr_assert_eq(at("2028-02-29T00:00Z"), ms_of(1835395200), "a leap day");
}

Test(replay_window, without_a_zone_local_time)
{
	/* 03:00 in Berlin in November is 02:00Z */
	int64_t three_local = ms_of(NOW - 9 * HOUR);

	cr_assert_eq(at("2026-11-26 03:00"), three_local);
	cr_assert_eq(at("2026-11-26T03:00:01.123456"), three_local + 1123);
	cr_assert_eq(at("2026-11-26"), ms_of(NOW - 12 * HOUR), "a date: its local midnight");
	cr_assert_eq(at("03:00"), three_local, "today, local");
	cr_assert_eq(at("3:00"), three_local);
	cr_assert_eq(at("03:00:30"), three_local + 30000);
	cr_assert_eq(at("03:00Z"), ms_of(NOW - 8 * HOUR), "today in UTC");
	cr_assert_eq(at("03:00-05:00"), ms_of(NOW - 8 * HOUR + 5 * HOUR), "today in New York");
	in_zone("UTC");
	cr_assert_eq(at("2026-11-26 03:00"), ms_of(NOW - 8 * HOUR), "TZ decides");
	in_zone("America/New_York");
	cr_assert_eq(at("2026-11-26 03:00"), ms_of(NOW - 3 * HOUR));
}

Test(replay_window, today_is_the_local_day)
{
	/* 2026-11-26T23:30Z is already the 27th in Berlin */
	int64_t late = ms_of(1795735800);

	cr_assert_eq(at_now("03:00", late), ms_of(NOW + 15 * HOUR), "the 27th's 03:00 CET");
	cr_assert_eq(at_now("03:00Z", late), ms_of(NOW - 8 * HOUR), "the 26th in UTC");
	cr_assert_eq(at_now("today", late), ms_of(NOW + 12 * HOUR));
	cr_assert_eq(at_now("yesterday", late), ms_of(NOW - 12 * HOUR));
}

Test(replay_window, epoch_before_now_and_words)
{
	cr_assert_eq(at("@1795690800"), ms_of(NOW));
	cr_assert_eq(at("@1795690800.5"), ms_of(NOW) + 500);
	cr_assert_eq(at("@0"), 0);
	cr_assert_eq(at("-2h"), NOW_MS - ms_of(2 * HOUR));
	cr_assert_eq(at("-2h30m"), NOW_MS - ms_of(2 * HOUR + 1800));
	cr_assert_eq(at("-30m2h"), NOW_MS - ms_of(2 * HOUR + 1800), "in any order");
	cr_assert_eq(at("-90s"), NOW_MS - 90000);
	cr_assert_eq(at("-90m"), NOW_MS - ms_of(5400));
	cr_assert_eq(at("-1d"), NOW_MS - ms_of(24 * HOUR));
	cr_assert_eq(at("-1d2h3m4s"), NOW_MS - ms_of(26 * HOUR + 184));
	cr_assert_eq(at("-0s"), NOW_MS);
	cr_assert_eq(at("now"), NOW_MS, "now to the millisecond");
	cr_assert_eq(at("today"), ms_of(NOW - 12 * HOUR), "the local midnight");
	cr_assert_eq(at("yesterday"), ms_of(NOW - 36 * HOUR));
	cr_assert_eq(at("tomorrow"), ms_of(NOW + 12 * HOUR));
}

/* Berlin's summer time of 2026: from 2026-03-29T01:00Z (02:00 CET becomes
 * 03:00 CEST) to 2026-10-25T01:00Z (03:00 CEST becomes 02:00 CET). */
static void dst_edges(void)
{
	cr_assert_eq(at("2026-03-29 01:59"), ms_of(1774745940), "the last minute of CET");
	cr_assert_eq(at("2026-03-29 03:00"), ms_of(1774746000), "the first of CEST");
	cr_assert_eq(at("2026-03-29 02:30"), ms_of(1774747800),
		     "skipped: read with CET, as if the clock had not jumped (= 03:30 CEST)");
	cr_assert_eq(at("2026-03-29 03:30"), ms_of(1774747800));
	cr_assert_eq(at("2026-03-29"), ms_of(1774738800), "midnight, still CET");
	cr_assert_eq(at("2026-10-25 02:30"), ms_of(1792888200),
		     "shown twice: the first, in CEST");
	cr_assert_eq(at("2026-10-25 03:30"), ms_of(1792895400), "CET again");
	cr_assert_eq(at("2026-10-25 01:30"), ms_of(1792891800 - 2 * HOUR), "CEST");
	cr_assert_eq(at("2026-10-25T02:30+01:00"), ms_of(1792891800), "the second, by offset");
}

Test(replay_window, summer_time_edges_from_the_zone_database)
{
	dst_edges();
}

Test(replay_window, summer_time_edges_from_a_posix_tz_string)
{
	in_zone(BERLIN_POSIX);
	dst_edges();
}

Test(replay_window, what_is_no_time)
{
	static const char *const bad[] = {
		"", "+1:00", "+01:00", "+2h", "3", "123:00", "25:00", "24:00:01", "24:01",
		"03:60", "03:00:60", "03:00 ", "03:00ZZ", "03:00Zjunk", "03:00+25:00",
		"03:00+01:60", "03:00+1", "03:00+", "03:00:01.Z", "03:00.5",
		"2026-02-31", "2026-02-29T00:00Z", "2026-04-31", "2026-13-01", "2026-00-10",
		"2026-11-00", "2026-1-26", "1969-12-31", "2026-11-26Z", "2026-11-26T",
		"2026-11-26  03:00", "2026-11-26X03:00", "2026-11-26T03:00:01.Z",
		"-", "-2", "-2y", "-h", "-2h30", "-1h1h", "-2h 30m", "-1.5h", "-99999999999d",
		"@", "@-5", "@12abc", "@1.", "@99999999999999", "noon", "yesterday ", "Now",
	};
	int64_t ms;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		cr_assert_not_null(replay_parse_time(bad[i], NOW_MS, &ms), "'%s'", bad[i]);
}

Test(replay_window, a_refusal_says_why)
{
	int64_t ms;

	cr_assert_str_eq(replay_parse_time("2026-02-31", NOW_MS, &ms),
			 "that month has no such day");
	cr_assert_str_eq(replay_parse_time("24:00:01", NOW_MS, &ms),
			 "hours are 00 to 23 (24:00 is the end of a day)");
	cr_assert_str_eq(replay_parse_time("2026-13-01", NOW_MS, &ms), "months are 01 to 12");
	cr_assert_not_null(strstr(replay_parse_time("+1:00", NOW_MS, &ms), "-2h"));
	cr_assert_not_null(strstr(replay_parse_time("03:00ZZ", NOW_MS, &ms), "follows"));
}

Test(replay_window, both_ends_are_included_to_the_millisecond)
{
	struct replay_window w;
	const char *bad = NULL;
	struct timespec t = { .tv_sec = NOW - 8 * HOUR + 1, .tv_nsec = 250999999 };

	cr_assert_null(replay_window_of("2026-11-26T03:00:01.250Z", "2026-11-26T03:00:01.250Z",
					NOW_MS, &w, &bad));
	cr_assert(replay_window_holds(&w, &t), "a frame printed as its begin and end");
	t.tv_nsec = 251000000;
	cr_assert_not(replay_window_holds(&w, &t));
	cr_assert_not_null(replay_window_of("03:00", "nope", NOW_MS, &w, &bad));
	cr_assert_str_eq(bad, "nope");
	cr_assert_null(replay_window_of(NULL, NULL, NOW_MS, &w, &bad));
	cr_assert(replay_window_holds(&w, &t));
	cr_assert_null(bad);
}

Test(replay_window, a_reversed_window_is_refused)
{
	struct replay_window w;
	const char *bad = "unset";

	cr_assert_not_null(replay_window_of("04:00", "03:00", NOW_MS, &w, &bad));
	cr_assert_null(bad, "both are times");
	/* the same instant in two zones is a window of one millisecond */
	cr_assert_null(replay_window_of("2026-11-26 04:00", "2026-11-26T03:00Z", NOW_MS, &w,
					&bad));
	cr_assert_eq(w.begin_ms, w.end_ms);
}
