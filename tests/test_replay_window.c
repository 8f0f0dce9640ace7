// SPDX-License-Identifier: GPL-2.0
/* Unit tests of --begin and --end (history/replay_window.c). */
#include <criterion/criterion.h>
#include "replay_window.h"

#define NOW	1795690800	/* 2026-11-26T11:00:00Z */

static int64_t at(const char *text)
{
	int64_t ms = -1;

	cr_assert(replay_parse_time(text, NOW, &ms), "%s", text);
	return ms;
}

Test(replay_window, the_forms_of_a_time)
{
	cr_assert_eq(at("2026-11-26T03:00:01.250Z"), (int64_t)(NOW - 8 * 3600 + 1) * 1000 + 250);
	cr_assert_eq(at("2026-11-26T03:00:01Z"), (int64_t)(NOW - 8 * 3600 + 1) * 1000);
	cr_assert_eq(at("2026-11-26 03:00"), (int64_t)(NOW - 8 * 3600) * 1000);
	cr_assert_eq(at("03:00"), (int64_t)(NOW - 8 * 3600) * 1000, "today, UTC");
	cr_assert_eq(at("03:00:30"), (int64_t)(NOW - 8 * 3600 + 30) * 1000);
	cr_assert_eq(at("-2h"), (int64_t)(NOW - 7200) * 1000);
	cr_assert_eq(at("-90s"), (int64_t)(NOW - 90) * 1000);
	cr_assert_eq(at("-1d"), (int64_t)(NOW - 86400) * 1000);
	cr_assert_eq(at("2026-11-26T03:00:01.2Z"), (int64_t)(NOW - 8 * 3600 + 1) * 1000 + 200);
}

Test(replay_window, what_is_no_time)
{
	static const char *const bad[] = {
		"", "3", "3:00", "25:00", "03:60", "-2", "-2y", "-h", "2026-13-01T00:00",
		"2026-11-26", "2026-11-26T03:00:01.Z", "03:00 ", "03:00ZZ", "yesterday",
	};
	int64_t ms;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		cr_assert_not(replay_parse_time(bad[i], NOW, &ms), "'%s'", bad[i]);
}

Test(replay_window, both_ends_are_included_to_the_millisecond)
{
	struct replay_window w;
	const char *bad = NULL;
	struct timespec t = { .tv_sec = NOW - 8 * 3600 + 1, .tv_nsec = 250999999 };

	cr_assert_eq(replay_window_of("2026-11-26T03:00:01.250Z", "2026-11-26T03:00:01.250Z",
				      NOW, &w, &bad), 0);
	cr_assert(replay_window_holds(&w, &t), "a frame printed as its begin and end");
	t.tv_nsec = 251000000;
	cr_assert_not(replay_window_holds(&w, &t));
	cr_assert_eq(replay_window_of("03:00", "nope", NOW, &w, &bad), -1);
	cr_assert_str_eq(bad, "nope");
	cr_assert_eq(replay_window_of(NULL, NULL, NOW, &w, &bad), 0);
	cr_assert(replay_window_holds(&w, &t));
}
