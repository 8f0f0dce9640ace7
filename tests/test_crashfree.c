// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of crashfree.c, the tracker. The first group ports the
 * scenarios of memfaultd's crashfree_interval.rs with the same numbers.
 * Its state file is tested in test_crashfree_state.c.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "crashfree.h"
#include "crashfree_check.h"

/* ---- memfaultd's scenarios ---- */

TestSuite(memfaultd_scenarios);

Test(memfaultd_scenarios, whole_intervals_and_the_mark_they_leave)
{
	/* memfaultd test_counting_intervals: 10-s interval, since now, now-10s, now-25s */
	const uint64_t now = HOUR;
	const uint64_t since[] = { now, now - 10 * SECOND, now - 25 * SECOND };
	const uint64_t intervals[] = { 0, 1, 2 };
	const uint64_t marks[] = { now, now, now - 5 * SECOND };
	struct crashfree cf;

	for (size_t i = 0; i < 3; i++) {
		crashfree_init(&cf, 10 * SECOND, since[i]);
		expect_counted(&cf, now, intervals[i], intervals[i]);
		cr_assert_eq(cf.operational_mark_ns, marks[i]);
		cr_assert_eq(cf.crashfree_mark_ns, marks[i]);
		crashfree_free(&cf);
	}
}

Test(memfaultd_scenarios, two_hours_elapsed)
{
	struct crashfree cf;

	crashfree_init(&cf, HOUR, 0);
	expect_counted(&cf, 2 * HOUR, 2, 2);
	cr_assert_eq(cf.operational_intervals, 2);
	cr_assert_eq(cf.crashfree_intervals, 2);
	crashfree_free(&cf);
}

Test(memfaultd_scenarios, counting_minutes)
{
	struct crashfree cf;

	crashfree_init(&cf, MINUTE, 0);
	cr_assert_eq(crashfree_record_crash(&cf, "memfaultd", 60 * MINUTE), 0);
	expect_counted(&cf, 120 * MINUTE, 120, 60);
	cr_assert_eq(cf.crashes, 1);
	crashfree_free(&cf);
}

Test(memfaultd_scenarios, thirty_minute_heartbeat)
{
	struct crashfree cf;

	crashfree_init(&cf, HOUR, 0);
	expect_counted(&cf, 30 * MINUTE, 0, 0);
	expect_counted(&cf, 60 * MINUTE, 1, 1);
	crashfree_free(&cf);
}

Test(memfaultd_scenarios, thirty_minute_heartbeat_with_crash)
{
	struct crashfree cf;

	crashfree_init(&cf, HOUR, 0);
	expect_counted(&cf, 30 * MINUTE, 0, 0);
	/* memfaultd captures the crash at t0 + 30' right after that update */
	cr_assert_eq(crashfree_record_crash(&cf, "memfaultd", 30 * MINUTE), 0);
	expect_counted(&cf, 60 * MINUTE, 1, 0);
	expect_counted(&cf, 90 * MINUTE, 0, 1);
	expect_counted(&cf, 120 * MINUTE, 1, 0);
	cr_assert_eq(cf.operational_intervals, 2);
	cr_assert_eq(cf.crashfree_intervals, 1);
	cr_assert_eq(cf.crashes, 1);
	crashfree_free(&cf);
}

Test(memfaultd_scenarios, hundred_eighty_minute_heartbeat_with_one_crash)
{
	struct crashfree cf;

	crashfree_init(&cf, HOUR, 0);
	expect_counted(&cf, 180 * MINUTE, 3, 3);

	/* crash 170' into the next period, update 10' later */
	cr_assert_eq(crashfree_record_crash(&cf, "memfaultd", 350 * MINUTE), 0);
	expect_counted(&cf, 360 * MINUTE, 3, 0);

	/* crash 10' into the next period, update 170' later */
	cr_assert_eq(crashfree_record_crash(&cf, "memfaultd", 370 * MINUTE), 0);
	expect_counted(&cf, 540 * MINUTE, 3, 2);

	cr_assert_eq(cf.operational_intervals, 9);
	cr_assert_eq(cf.crashfree_intervals, 5);
	cr_assert_eq(cf.crashes, 2);
	crashfree_free(&cf);
}

Test(memfaultd_scenarios, crashes_per_process)
{
	struct crashfree cf;

	crashfree_init(&cf, HOUR, 0);
	for (int i = 0; i < 3; i++)
		cr_assert_eq(crashfree_record_crash(&cf, "memfaultd", 0), 0);
	cr_assert_eq(crashfree_record_crash(&cf, "collectd", 0), 0);
	expect_counted(&cf, HOUR, 1, 1);

	cr_assert_eq(cf.crashes, 4);
	cr_assert_eq(cf.nprocesses, 2);
	/* sorted by name, as memfaultd's snapshot lists them */
	cr_assert_str_eq(cf.by_process[0].comm, "collectd");
	cr_assert_eq(cf.by_process[0].crashes, 1);
	cr_assert_str_eq(cf.by_process[1].comm, "memfaultd");
	cr_assert_eq(cf.by_process[1].crashes, 3);
	cr_assert_eq(process_crashes(&cf, "memfaultd"), 3);
	cr_assert_eq(process_crashes(&cf, "collectd"), 1);
	cr_assert_eq(process_crashes(&cf, "systemd"), 0);
	crashfree_free(&cf);
}

/* ---- our own counting rules ---- */

TestSuite(counting);

Test(counting, remainder_carries_over)
{
	struct crashfree cf;

	crashfree_init(&cf, HOUR, 0);
	expect_counted(&cf, 90 * MINUTE, 1, 1);
	cr_assert_eq(cf.operational_mark_ns, 60 * MINUTE);
	cr_assert_eq(cf.crashfree_mark_ns, 60 * MINUTE);
	expect_counted(&cf, 120 * MINUTE, 1, 1);
	expect_counted(&cf, 179 * MINUTE, 0, 0);
	expect_counted(&cf, 180 * MINUTE, 1, 1);
	cr_assert_eq(cf.operational_intervals, 3);
	crashfree_free(&cf);
}

Test(counting, clock_going_backwards_resets_the_marks)
{
	struct crashfree cf;

	crashfree_init(&cf, HOUR, 10 * HOUR);
	expect_counted(&cf, 11 * HOUR + 30 * MINUTE, 1, 1);

	/* backwards by hours: nothing counted, no underflow into huge counts */
	expect_counted(&cf, 5 * HOUR, 0, 0);
	cr_assert_eq(cf.operational_mark_ns, 5 * HOUR);
	cr_assert_eq(cf.crashfree_mark_ns, 5 * HOUR);
	cr_assert_eq(cf.operational_intervals, 1);
	cr_assert_eq(cf.crashfree_intervals, 1);

	expect_counted(&cf, 5 * HOUR + 59 * MINUTE, 0, 0);
	expect_counted(&cf, 6 * HOUR, 1, 1);

	/* backwards to 0, the smallest reading */
	expect_counted(&cf, 0, 0, 0);
	expect_counted(&cf, HOUR, 1, 1);
	cr_assert_eq(cf.operational_intervals, 3);
	crashfree_free(&cf);
}

Test(counting, clock_going_backwards_between_the_marks)
{
	struct crashfree cf;

	/* only the mark ahead of the clock restarts; the other keeps its progress */
	crashfree_init(&cf, HOUR, 0);
	cr_assert_eq(crashfree_record_crash(&cf, "sh", 30 * MINUTE), 0);
	expect_counted(&cf, 60 * MINUTE, 1, 0);
	expect_counted(&cf, 45 * MINUTE, 0, 0);
	cr_assert_eq(cf.operational_mark_ns, 45 * MINUTE);
	cr_assert_eq(cf.crashfree_mark_ns, 30 * MINUTE);
	expect_counted(&cf, 90 * MINUTE, 0, 1);
	expect_counted(&cf, 105 * MINUTE, 1, 0);
	expect_counted(&cf, 104 * MINUTE, 0, 0);
	expect_counted(&cf, 164 * MINUTE, 1, 1);
	cr_assert_eq(cf.operational_intervals, 3);
	cr_assert_eq(cf.crashfree_intervals, 2);
	crashfree_free(&cf);
}

Test(counting, crash_stamped_after_the_update)
{
	struct crashfree cf;

	crashfree_init(&cf, HOUR, 0);
	cr_assert_eq(crashfree_record_crash(&cf, "sh", 2 * HOUR + SECOND), 0);
	expect_counted(&cf, 2 * HOUR, 2, 0);
	cr_assert_eq(cf.crashfree_mark_ns, 2 * HOUR);
	cr_assert_eq(cf.operational_mark_ns, 2 * HOUR);
	expect_counted(&cf, 3 * HOUR, 1, 1);
	crashfree_free(&cf);
}

Test(counting, interval_longer_than_the_run)
{
	struct crashfree cf;

	crashfree_init(&cf, 24 * HOUR, 7);
	for (uint64_t hour = 1; hour < 24; hour++)
		expect_counted(&cf, 7 + hour * HOUR, 0, 0);
	expect_counted(&cf, 7 + 24 * HOUR - 1, 0, 0);
	expect_counted(&cf, 7 + 24 * HOUR, 1, 1);
	crashfree_free(&cf);
}

Test(counting, early_crash_does_not_move_the_mark_back)
{
	struct crashfree cf;

	crashfree_init(&cf, HOUR, 0);
	expect_counted(&cf, 2 * HOUR, 2, 2);
	cr_assert_eq(crashfree_record_crash(&cf, "late-report", HOUR), 0);
	cr_assert_eq(cf.crashfree_mark_ns, 2 * HOUR);
	cr_assert_eq(cf.crashes, 1);
	expect_counted(&cf, 3 * HOUR, 1, 1);
	crashfree_free(&cf);
}

Test(counting, crash_moves_the_mark_forward)
{
	struct crashfree cf;

	crashfree_init(&cf, HOUR, 0);
	cr_assert_eq(crashfree_record_crash(&cf, "a", 10 * MINUTE), 0);
	cr_assert_eq(crashfree_record_crash(&cf, "b", 40 * MINUTE), 0);
	cr_assert_eq(crashfree_record_crash(&cf, "c", 20 * MINUTE), 0);
	cr_assert_eq(cf.crashfree_mark_ns, 40 * MINUTE);
	expect_counted(&cf, 99 * MINUTE, 1, 0);
	expect_counted(&cf, 100 * MINUTE, 0, 1);
	crashfree_free(&cf);
}

Test(counting, zero_interval_falls_back_to_an_hour)
{
	struct crashfree cf;

	crashfree_init(&cf, 0, 0);
	cr_assert_eq(cf.interval_ns, CRASHFREE_DEFAULT_INTERVAL_NS);
	expect_counted(&cf, HOUR, 1, 1);
	/* set by hand: must not divide by zero */
	cf.interval_ns = 0;
	expect_counted(&cf, 5 * HOUR, 0, 0);
	crashfree_free(&cf);
}

Test(counting, comm_is_cut_like_the_kernel_does)
{
	struct crashfree cf;

	crashfree_init(&cf, HOUR, 0);
	cr_assert_eq(crashfree_record_crash(&cf, "0123456789abcdefghij", 0), 0);
	cr_assert_eq(crashfree_record_crash(&cf, "0123456789abcdeXYZ", 0), 0);
	cr_assert_eq(crashfree_record_crash(&cf, NULL, 0), 0);
	cr_assert_eq(crashfree_record_crash(&cf, "", 0), 0);
	cr_assert_eq(cf.nprocesses, 2);
	cr_assert_str_eq(cf.by_process[0].comm, "");
	cr_assert_eq(cf.by_process[0].crashes, 2);
	cr_assert_str_eq(cf.by_process[1].comm, "0123456789abcde");
	cr_assert_eq(cf.by_process[1].crashes, 2);
	cr_assert_eq(cf.crashes, 4);
	crashfree_free(&cf);
}

Test(counting, many_names_stay_sorted)
{
	struct crashfree cf;
	char name[CRASHFREE_COMM_LEN];
	uint64_t total = 0;

	crashfree_init(&cf, HOUR, 0);
	/* 1000 names in a scrambled order, name k crashing (k % 7) + 1 times */
	for (unsigned int i = 0; i < 1000; i++) {
		unsigned int k = (i * 389) % 1000;

		snprintf(name, sizeof(name), "proc-%03u", k);
		for (unsigned int j = 0; j <= k % 7; j++) {
			cr_assert_eq(crashfree_record_crash(&cf, name, i), 0);
			total++;
		}
	}
	cr_assert_eq(cf.nprocesses, 1000);
	cr_assert_eq(cf.crashes, total);
	for (size_t i = 0; i < cf.nprocesses; i++) {
		snprintf(name, sizeof(name), "proc-%03u", (unsigned int)i);
		cr_assert_str_eq(cf.by_process[i].comm, name);
		cr_assert_eq(cf.by_process[i].crashes, i % 7 + 1);
	}
	crashfree_free(&cf);
	cr_assert_null(cf.by_process);
	cr_assert_eq(cf.nprocesses, 0);
}

/*
 * The invariant the state file relies on (see crashfree.h): after any mix of
 * updates, crashes stamped anywhere and clock jumps either way, crash-free
 * time never exceeds operational time and both marks are within one
 * interval before now.
 */
Test(counting, crashfree_time_never_exceeds_operational_time)
{
	const uint64_t interval = 10 * MINUTE;
	uint64_t random_state = 88172645463325252u, now = 0;
	struct crashfree cf;

	crashfree_init(&cf, interval, now);
	for (int step = 0; step < 200000; step++) {
		uint64_t choice, amount, operational_time, crashfree_time;

		random_state ^= random_state << 13;
		random_state ^= random_state >> 7;
		random_state ^= random_state << 17;
		choice = random_state % 100;
		amount = (random_state >> 8) % (3 * interval);

		if (choice < 45) {
			now += amount;
		} else if (choice < 60) {
			now -= amount;
		} else if (choice < 80) {
			/* stamped up to 1.5 intervals either side of now */
			uint64_t at = now - 3 * interval / 2 + amount;

			cr_assert_eq(crashfree_record_crash(&cf, "x", at), 0);
			continue;
		}
		crashfree_update(&cf, now);
		cr_assert_lt(now - cf.operational_mark_ns, interval, "step %d", step);
		cr_assert_lt(now - cf.crashfree_mark_ns, interval, "step %d", step);
		operational_time = cf.operational_intervals * interval +
				   (now - cf.operational_mark_ns);
		crashfree_time = cf.crashfree_intervals * interval +
				 (now - cf.crashfree_mark_ns);
		cr_assert_leq(crashfree_time, operational_time, "step %d", step);
	}
	cr_assert_gt(cf.crashfree_intervals, 100);
	cr_assert_lt(cf.crashfree_intervals, cf.operational_intervals);
	crashfree_free(&cf);
}
