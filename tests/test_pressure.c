// SPDX-License-Identifier: GPL-2.0
/* procs/pressure.c: /proc/pressure/io parsed, and an interval's share. */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <unistd.h>

#include "pressure.h"

static const char sample[] =
	"some avg10=1.50 avg60=0.20 avg300=1.39 total=362976302\n"
	"full avg10=0.01 avg60=0.11 avg300=0.83 total=211227571\n";

Test(pressure, parses_some_and_full_totals)
{
	struct io_pressure p;

	cr_assert_eq(pressure_parse(sample, &p), 0);
	cr_assert(p.known);
	cr_assert_eq(p.some_us, 362976302);
	cr_assert_eq(p.full_us, 211227571);
}

Test(pressure, a_kernel_without_full_has_some_only)
{
	struct io_pressure p;

	cr_assert_eq(pressure_parse("some avg10=0.00 avg60=0.00 avg300=0.00 total=77\n", &p), 0);
	cr_assert(p.known);
	cr_assert_eq(p.some_us, 77);
	cr_assert_eq(p.full_us, 0);
}

Test(pressure, bad_text_is_unknown)
{
	static const char *const bad[] = {
		"", "full avg10=0 total=5\n", "some avg10=0.00\n", "some total=\n",
		"some total=12x\n", "somewhere total=5\n", "some total=99999999999999999999999\n",
	};
	struct io_pressure p;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		cr_assert_eq(pressure_parse(bad[i], &p), -EINVAL, "%s", bad[i]);
		cr_assert(!p.known);
	}
}

Test(pressure, an_interval_share_is_the_totals_change)
{
	struct io_pressure a = { true, 1000, 500 }, b = { true, 251000, 100500 }, unknown = { 0 };
	double some, full;

	/* 250 ms and 100 ms stalled in one second */
	cr_assert(pressure_pct(&a, &b, 1000000000, &some, &full));
	cr_assert_float_eq(some, 25.0, 1e-9);
	cr_assert_float_eq(full, 10.0, 1e-9);
	/* never above 100, never below 0 (a total that went back) */
	cr_assert(pressure_pct(&a, &b, 1000000, &some, &full));
	cr_assert_float_eq(some, 100.0, 1e-9);
	cr_assert(pressure_pct(&b, &a, 1000000000, &some, &full));
	cr_assert_float_eq(some, 0.0, 1e-9);
	cr_assert(!pressure_pct(&unknown, &b, 1000000000, &some, &full));
	cr_assert(!pressure_pct(&a, &b, 0, &some, &full));
}

Test(pressure, a_missing_file_is_an_error)
{
	struct io_pressure p;
	char path[] = "/tmp/diskio-pressure-XXXXXX";
	int fd = mkstemp(path);

	cr_assert_eq(pressure_read("/nonexistent/pressure/io", &p), -ENOENT);
	cr_assert(!p.known);
	cr_assert_geq(fd, 0);
	cr_assert_eq(write(fd, sample, sizeof(sample) - 1), (ssize_t)sizeof(sample) - 1);
	close(fd);
	cr_assert_eq(pressure_read(path, &p), 0);
	cr_assert_eq(p.full_us, 211227571);
	unlink(path);
}
