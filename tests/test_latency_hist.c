// SPDX-License-Identifier: GPL-2.0
/* Unit tests of latency slots (abi.h's latency_slot(), the BPF
 * program's) and percentiles (latency_hist.c) on known
 * histograms: empty, one slot, the last slot, uniform, skewed. */
#include <criterion/criterion.h>
#include <string.h>

#include "latency_hist.h"

Test(latency_slot, is_floor_log2_of_nanoseconds)
{
	cr_assert_eq(latency_slot(0), 0);
	cr_assert_eq(latency_slot(1), 0);
	cr_assert_eq(latency_slot(2), 1);
	cr_assert_eq(latency_slot(3), 1);
	cr_assert_eq(latency_slot(4), 2);
	cr_assert_eq(latency_slot(1023), 9);
	cr_assert_eq(latency_slot(1024), 10);
	cr_assert_eq(latency_slot(UINT64_C(1) << 39), LATENCY_SLOTS - 1);
	cr_assert_eq(latency_slot(UINT64_MAX), LATENCY_SLOTS - 1);
	/* The shifts of the BPF program's search, at every power of 2 and
	 * beside it, against floor(log2) capped at the last slot. */
	for (unsigned int k = 1; k < 64; k++) {
		uint64_t power = UINT64_C(1) << k;
		unsigned int at = k < LATENCY_SLOTS ? k : LATENCY_SLOTS - 1;
		unsigned int below = k - 1 < LATENCY_SLOTS ? k - 1 : LATENCY_SLOTS - 1;

		cr_assert_eq(latency_slot(power), at, "2^%u", k);
		cr_assert_eq(latency_slot(power + 1), at, "2^%u + 1", k);
		cr_assert_eq(latency_slot(power - 1), below, "2^%u - 1", k);
	}
	for (unsigned int k = 1; k < LATENCY_SLOTS; k++) {
		cr_assert_eq(latency_slot(latency_slot_low_ns(k)), k);
		cr_assert_eq(latency_slot(latency_slot_high_ns(k) - 1), k);
		cr_assert_eq(latency_slot_high_ns(k - 1), latency_slot_low_ns(k));
	}
}

Test(latency_percentile, empty_has_none)
{
	struct latency_hist h;
	double us = -1;

	memset(&h, 0, sizeof(h));
	cr_assert_not(latency_percentile_us(&h, 0.5, &us));
	cr_assert_eq(us, -1);
	h.slots[3] = 1;
	cr_assert_not(latency_percentile_us(&h, 0, &us), "q must be above 0");
}

/* One completion of 3000 ns: slot 11, [2048, 4096): every percentile is the
 * slot's middle. */
Test(latency_percentile, one_completion_is_the_middle_of_its_slot)
{
	struct latency_hist h;
	double p50, p99;

	memset(&h, 0, sizeof(h));
	h.slots[latency_slot(3000)] = 1;
	cr_assert(latency_percentile_us(&h, 0.5, &p50));
	cr_assert(latency_percentile_us(&h, 0.99, &p99));
	cr_assert_float_eq(p50, 3.072, 1e-9);
	cr_assert_float_eq(p99, 3.072, 1e-9);
}

/* 100 completions in one slot [1024, 2048) ns: the i-th at the middle of
 * the i-th hundredth. */
Test(latency_percentile, one_slot_interpolates_linearly)
{
	struct latency_hist h;
	double p50, p95, p99, p100;

	memset(&h, 0, sizeof(h));
	h.slots[10] = 100;
	cr_assert(latency_percentile_us(&h, 0.50, &p50));
	cr_assert(latency_percentile_us(&h, 0.95, &p95));
	cr_assert(latency_percentile_us(&h, 0.99, &p99));
	cr_assert(latency_percentile_us(&h, 1.0, &p100));
	cr_assert_float_eq(p50, (1024 + 1024 * 49.5 / 100) / 1000, 1e-9);
	cr_assert_float_eq(p95, (1024 + 1024 * 94.5 / 100) / 1000, 1e-9);
	cr_assert_float_eq(p99, (1024 + 1024 * 98.5 / 100) / 1000, 1e-9);
	cr_assert_float_eq(p100, (1024 + 1024 * 99.5 / 100) / 1000, 1e-9);
	cr_assert_lt(p100 * 1000, 2048, "inside the slot");
}

/* Completions beyond 2^39 ns sit in the last slot: bounded by its bounds. */
Test(latency_percentile, last_slot)
{
	struct latency_hist h;
	double p99;

	memset(&h, 0, sizeof(h));
	h.slots[0] = 98;
	h.slots[LATENCY_SLOTS - 1] = 2;
	cr_assert(latency_percentile_us(&h, 0.99, &p99));
	cr_assert_float_eq(p99, ((double)(UINT64_C(1) << 39) * 1.25) / 1000, 1e-3);
	cr_assert(latency_percentile_us(&h, 0.98, &p99));
	cr_assert_lt(p99, 0.002, "the 98th of 98 in slot 0 ([0, 2) ns)");
}

/* One completion in each of slots 0..39: p50 is the 20th (slot 19), p95 the
 * 38th (slot 37), p99 the 40th (slot 39), each in its slot's middle. */
Test(latency_percentile, uniform_over_slots)
{
	struct latency_hist h;
	double p50, p95, p99;

	for (unsigned int k = 0; k < LATENCY_SLOTS; k++)
		h.slots[k] = 1;
	cr_assert(latency_percentile_us(&h, 0.5, &p50));
	cr_assert(latency_percentile_us(&h, 0.95, &p95));
	cr_assert(latency_percentile_us(&h, 0.99, &p99));
	cr_assert_float_eq(p50, (double)(UINT64_C(3) << 18) / 1000, 1e-9);	/* slot 19 */
	cr_assert_float_eq(p95, (double)(UINT64_C(3) << 36) / 1000, 1e-6);	/* rank 38 */
	cr_assert_float_eq(p99, (double)(UINT64_C(3) << 38) / 1000, 1e-6);	/* rank 40 */
}

/* Monotone in q whatever the shape. */
Test(latency_percentile, never_decreasing_in_q)
{
	struct latency_hist h;
	double last = 0;

	memset(&h, 0, sizeof(h));
	h.slots[5] = 1000;
	h.slots[12] = 7;
	h.slots[13] = 300;
	h.slots[30] = 1;
	for (int i = 1; i <= 1000; i++) {
		double us;

		cr_assert(latency_percentile_us(&h, i / 1000.0, &us));
		cr_assert_geq(us, last, "q=%g", i / 1000.0);
		last = us;
	}
}
