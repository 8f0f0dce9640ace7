// SPDX-License-Identifier: GPL-2.0
/* Unit tests of /proc/diskstats' parser and of iostat -x's formulas
 * (diskstats.c) on lines with known answers, worked by hand from sysstat's
 * definitions: rates per second, awaits per request, aqu-sz and %util per
 * millisecond of the interval, 32-bit time fields that wrap. */
#include <criterion/criterion.h>
#include <string.h>

#include "diskstats.h"

#define MS 1000000ULL	/* ns */

static void parse(struct diskstats *d, const char *text)
{
	FILE *in = fmemopen((void *)text, strlen(text), "r");

	cr_assert(in);
	cr_assert_eq(diskstats_parse(d, in), 0);
	fclose(in);
}

Test(diskstats, parses_every_generation_of_the_line)
{
	struct diskstats d = { 0 };
	const struct diskstats_entry *e;

	parse(&d,
	      /* Linux 5.5+: 17 fields */
	      " 254       0 vda 10 1 80 7 20 2 160 9 0 12 16 3 0 24 5 4 8\n"
	      /* 4.18: no flushes */
	      "   7       0 loop0 1 0 2 3 4 0 8 9 0 10 11 0 0 0 0\n"
	      /* 2.6: 11 fields */
	      "   8       0 sda 1 2 3 4 5 6 7 8 9 10 11\n"
	      /* not a device's line */
	      "   8       1 sda1 1 2 x\n"
	      "garbage\n"
	      "   8       2 sdb 1 2 3 4 5 6 7 8 9 10\n");
	cr_assert_eq(d.count, 3);
	e = diskstats_find(&d, "vda");
	cr_assert(e);
	cr_assert_eq(e->major, 254);
	cr_assert_eq(e->field[DS_READ_IOS], 10);
	cr_assert_eq(e->field[DS_TIME_IN_QUEUE], 16);
	cr_assert_eq(e->field[DS_DISCARD_SECTORS], 24);
	cr_assert_eq(e->field[DS_FLUSH_IOS], 4);
	cr_assert_eq(e->field[DS_FLUSH_TICKS], 8);
	e = diskstats_find(&d, "loop0");
	cr_assert(e);
	cr_assert_eq(e->field[DS_TIME_IN_QUEUE], 11);
	cr_assert_eq(e->field[DS_FLUSH_IOS], 0);
	e = diskstats_find(&d, "sda");
	cr_assert(e);
	cr_assert_eq(e->field[DS_IO_TICKS], 10);
	cr_assert_null(diskstats_find(&d, "sda1"));
	cr_assert_null(diskstats_find(&d, "sdb"));
	diskstats_free(&d);
}

static struct diskstats_entry entry(const uint64_t field[DS_NR_FIELDS])
{
	struct diskstats_entry e = { .name = "vda", .major = 254 };

	memcpy(e.field, field, sizeof(e.field));
	return e;
}

/* 2 s: 200 reads of 100 KiB each in 300 ms of their time, 50 writes
 * (10 merged) of 8 KiB in 1000 ms, 4 discards, 6 flushes in 3 ms, the
 * disk busy 1500 ms and 2400 ms of queue time. */
Test(diskstats, iostat_x_by_sysstats_rules)
{
	uint64_t a[DS_NR_FIELDS] = { 0 }, b[DS_NR_FIELDS] = { 0 };
	struct diskstats_entry prev, cur;
	struct iostat_x x;

	for (int i = 0; i < DS_NR_FIELDS; i++)
		a[i] = b[i] = 1000;
	b[DS_READ_IOS] += 200;
	b[DS_READ_SECTORS] += 200 * 200;
	b[DS_READ_TICKS] += 300;
	b[DS_WRITE_IOS] += 50;
	b[DS_WRITE_MERGES] += 10;
	b[DS_WRITE_SECTORS] += 50 * 16;
	b[DS_WRITE_TICKS] += 1000;
	b[DS_DISCARD_IOS] += 4;
	b[DS_DISCARD_SECTORS] += 4 * 2048;
	b[DS_FLUSH_IOS] += 6;
	b[DS_FLUSH_TICKS] += 3;
	b[DS_IO_TICKS] += 1500;
	b[DS_TIME_IN_QUEUE] += 2400;
	prev = entry(a);
	cur = entry(b);
	iostat_x_compute(&prev, &cur, 2000 * MS, &x);
	cr_assert_float_eq(x.r_s, 100.0, 1e-9);
	cr_assert_float_eq(x.w_s, 25.0, 1e-9);
	cr_assert_float_eq(x.d_s, 2.0, 1e-9);
	cr_assert_float_eq(x.f_s, 3.0, 1e-9);
	cr_assert_float_eq(x.rkB_s, 100.0 * 100, 1e-9);
	cr_assert_float_eq(x.wkB_s, 25.0 * 8, 1e-9);
	cr_assert_float_eq(x.dkB_s, 2.0 * 1024, 1e-9);
	cr_assert_float_eq(x.rrqm_s, 0.0, 1e-9);
	cr_assert_float_eq(x.wrqm_s, 5.0, 1e-9);
	cr_assert_float_eq(x.r_await, 1.5, 1e-9);
	cr_assert_float_eq(x.w_await, 20.0, 1e-9);
	cr_assert_float_eq(x.d_await, 0.0, 1e-9);
	cr_assert_float_eq(x.f_await, 0.5, 1e-9);
	cr_assert_float_eq(x.rareq_sz, 100.0, 1e-9);
	cr_assert_float_eq(x.wareq_sz, 8.0, 1e-9);
	cr_assert_float_eq(x.dareq_sz, 1024.0, 1e-9);
	cr_assert_float_eq(x.aqu_sz, 1.2, 1e-9);
	cr_assert_float_eq(x.util, 75.0, 1e-9);
}

Test(diskstats, no_requests_no_await_and_no_interval_no_rates)
{
	uint64_t a[DS_NR_FIELDS] = { 0 };
	struct diskstats_entry e = entry(a);
	struct iostat_x x;

	iostat_x_compute(&e, &e, 1000 * MS, &x);
	cr_assert_float_eq(x.r_await, 0.0, 1e-9);
	cr_assert_float_eq(x.w_await, 0.0, 1e-9);
	cr_assert_float_eq(x.rareq_sz, 0.0, 1e-9);
	cr_assert_float_eq(x.util, 0.0, 1e-9);
	a[DS_READ_IOS] = 5;
	e = entry(a);
	iostat_x_compute(NULL, &e, 0, &x);
	cr_assert_float_eq(x.r_s, 0.0, 1e-9);
}

/* io_ticks and the other times are 32-bit milliseconds in the file: 100 ms
 * of a 1 s interval across the wrap is 10%, not 4e8%. */
Test(diskstats, util_across_a_32_bit_wrap)
{
	uint64_t a[DS_NR_FIELDS] = { 0 }, b[DS_NR_FIELDS] = { 0 };
	struct diskstats_entry prev, cur;
	struct iostat_x x;

	a[DS_IO_TICKS] = UINT32_MAX - 49;
	b[DS_IO_TICKS] = 50;
	a[DS_TIME_IN_QUEUE] = UINT32_MAX;
	b[DS_TIME_IN_QUEUE] = 299;
	a[DS_READ_IOS] = 7;
	b[DS_READ_IOS] = 17;
	a[DS_READ_TICKS] = UINT32_MAX - 9;
	b[DS_READ_TICKS] = 10;
	prev = entry(a);
	cur = entry(b);
	iostat_x_compute(&prev, &cur, 1000 * MS, &x);
	cr_assert_float_eq(x.util, 10.0, 1e-9);
	cr_assert_float_eq(x.aqu_sz, 0.3, 1e-9);
	cr_assert_float_eq(x.r_await, 2.0, 1e-9);
	cr_assert_float_eq(x.r_s, 10.0, 1e-9);
}

/* A device new since the last read: its counters started at 0. */
Test(diskstats, a_new_device_counts_from_zero)
{
	uint64_t b[DS_NR_FIELDS] = { 0 };
	struct diskstats_entry cur;
	struct iostat_x x;

	b[DS_WRITE_IOS] = 40;
	b[DS_WRITE_SECTORS] = 40 * 8;
	cur = entry(b);
	iostat_x_compute(NULL, &cur, 4000 * MS, &x);
	cr_assert_float_eq(x.w_s, 10.0, 1e-9);
	cr_assert_float_eq(x.wareq_sz, 4.0, 1e-9);
}

Test(diskstats, names_are_iostats_json_keys_in_order)
{
	struct iostat_x x = { .r_s = 1, .util = 19 };
	double values[IOSTAT_X_NR];

	iostat_x_values(&x, values);
	cr_assert_str_eq(iostat_x_names[0], "r/s");
	cr_assert_float_eq(values[0], 1.0, 1e-9);
	cr_assert_str_eq(iostat_x_names[IOSTAT_X_NR - 1], "util");
	cr_assert_float_eq(values[IOSTAT_X_NR - 1], 19.0, 1e-9);
	cr_assert_str_eq(iostat_x_names[17], "aqu-sz");
}
