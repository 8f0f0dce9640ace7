// SPDX-License-Identifier: GPL-2.0
/*
 * Issue 45: a row's cgroup I/O pressure, against the group's own io.pressure.
 * A reader held to 100 reads/s by cgroup v1's blkio throttle on a zram disk
 * it reads with O_DIRECT, in a cgroup v2 group of its own (under the cgroup2
 * mount /proc/mounts names): the kernel counts its stalls in that v2 group's
 * PSI (the v1 group only holds it back).  The oracle is the test's own
 * readings of the group's io.pressure around diskio's:
 *  - interval records: the reader's row has "cgroup_pressure" null in the
 *    first interval (its group had no reading before), then in each later
 *    interval some and full, in percent of the interval, equal to the change
 *    the test reads between the records, within the stall that can fall
 *    between diskio's reading (after the record's time) and the test's
 *    (after the record came), and the rounding;
 *  - --diagnose: the reader (a waiter and the driver) has its group's
 *    pressure over the window, though its group is first seen in it: diskio
 *    read every group as counting began; bounded by the test's readings
 *    before diskio started, after its start record and after it exited.
 * The groups are removed at the end, failed assertion or not.
 */
#include "harness.h"

#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>

#define ZRAM_BYTES	(64ULL << 20)
#define READER_IOPS	100
#define INTERVALS	5

/* ---- what a test changes, put back by undo() ---- */

static char v2_group[PATH_MAX + 64];

static void undo(void)
{
	if (v2_group[0])
		rmdir(v2_group);
	v2_group[0] = '\0';
}

static void teardown(void)
{
	h_cleanup();	/* children first: a group with tasks cannot go */
	undo();
	h_teardown();
}

TestSuite(cgroup_pressure, .init = h_setup, .fini = teardown, .timeout = 120);

/* ---- the reader and its groups ---- */

struct totals {
	uint64_t some_us, full_us;
	int64_t at_us;		/* CLOCK_REALTIME when read */
};

static int64_t realtime_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

/* The reader's v2 group's io.pressure totals, now. */
static struct totals read_totals(void)
{
	char path[PATH_MAX + 96], text[512];
	struct totals t = { 0 };
	const char *full;

	snprintf(path, sizeof(path), "%s/io.pressure", v2_group);
	cr_assert_gt(h_read_file(path, text, sizeof(text)), 0, "%s", path);
	t.at_us = realtime_us();
	full = strstr(text, "\nfull ");
	cr_assert(!strncmp(text, "some ", 5) && full, "%s: %s", path, text);
	cr_assert_eq(sscanf(strstr(text, "total="), "total=%" SCNu64, &t.some_us), 1, "%s", text);
	cr_assert_eq(sscanf(strstr(full, "total="), "total=%" SCNu64, &t.full_us), 1, "%s", text);
	return t;
}

/* A reader of dev held to iops reads a second by a new v1 blkio group, in a
 * new v2 group of its own; *rel is that group's path under the mount. */
static pid_t throttled_reader(const struct h_dev *dev, int iops, char *rel, size_t size)
{
	char v1_group[PATH_MAX], v2_root[PATH_MAX], file[PATH_MAX + 128];
	struct h_throttled_read r = {
		.dev = dev, .span = 4 << 20, .block = 4096, .iops = iops, .threads = 1,
		.comm = "psi-reader", .v2_group = v2_group,
	};

	if (!h_cgroup2_mount(v2_root, sizeof(v2_root)))
		cr_skip_test("no cgroup2 hierarchy mounted (/proc/mounts)");
	snprintf(rel, size, "/diskio-itest-psi-%d", (int)getpid());
	snprintf(v2_group, sizeof(v2_group), "%s%s", v2_root, rel);
	cr_assert(!mkdir(v2_group, 0755), "mkdir %s: %s", v2_group, strerror(errno));
	snprintf(file, sizeof(file), "%s/io.pressure", v2_group);
	if (access(file, R_OK))
		cr_skip_test("no io.pressure in a cgroup2 group: a kernel without PSI");
	return h_throttled_reader(&r, v1_group, sizeof(v1_group));
}

/* ---- reading records ---- */

/* The record's "ts" in µs (three decimals: its time truncated to ms). */
static int64_t record_us(struct h_jv record)
{
	return (int64_t)llround(h_json_get_number(record, "ts") * 1e6);
}

/* "cgroup_pressure" of obj into *some and *full; false when it is null. */
static bool cgroup_pressure(struct h_jv obj, double *some, double *full, const char *line)
{
	struct h_jv v;

	cr_assert(h_json_get(obj, "cgroup_pressure", &v), "no cgroup_pressure: %s", line);
	if (v.len == 4 && !memcmp(v.p, "null", 4))
		return false;
	*some = h_json_get_number(v, "some");
	*full = h_json_get_number(v, "full");
	return true;
}

/*
 * diskio's stall (pct of seconds, in µs) against the test's readings.
 * diskio read the file at each end of its span, at or after the record's
 * time and before the test's reading after it: its stall is the test's
 * change less at most the stall of those lags (stall grows by at most the
 * time that passes), or more the same; rounding: pct has two decimals
 * (0.005% of the span) and the span three (0.5 ms), the times' ms.
 */
static void expect_within(const char *what, double pct, double seconds, double test_us,
			  double below_us, double above_us, const char *line)
{
	double diskio_us = pct / 100.0 * seconds * 1e6;
	double rounding_us = 0.005 / 100.0 * seconds * 1e6 + 500 + 2000;

	cr_assert(diskio_us >= test_us - below_us - rounding_us &&
		  diskio_us <= test_us + above_us + rounding_us,
		  "%s: diskio %.0f us (%.2f%% of %.3f s), the group's file %.0f us, -%.0f/+%.0f "
		  "us of lag: %s", what, diskio_us, pct, seconds, test_us, below_us, above_us, line);
}

Test(cgroup_pressure, a_rows_group_pressure_is_its_io_pressure_over_the_interval)
{
	const struct h_dev *zram = h_zram_create(ZRAM_BYTES);
	struct totals before = { 0 }, now;
	int64_t before_lag_us = 0;
	char rel[64], cgroup[128];
	int intervals = 0, known = 0;
	struct h_diskio d;
	pid_t reader;

	reader = throttled_reader(zram, READER_IOPS, rel, sizeof(rel));
	h_sleep_ms(300);
	h_diskio_start(&d, H_ARGS("--json", "-D", zram->name, "1", "5"), NULL);
	while (intervals < INTERVALS) {
		const char *line = h_diskio_next_line(&d, 10000);
		struct h_jv record, row, v;
		double some, full, seconds;

		if (!line)
			h_diskio_dump(&d, "no interval record");
		cr_assert_not_null(line, "an interval record is missing");
		if (!h_json_is_interval(line))
			continue;
		now = read_totals();	/* at once: the lag is small */
		intervals++;
		cr_assert(h_json_parse(line, &record));
		cr_assert(h_json_find_process(line, (uint32_t)reader, zram->name, &row),
			  "the reader has no row: %s", line);
		cr_assert(h_json_get(row, "cgroup", &v) && h_json_str(v, cgroup, sizeof(cgroup)) > 0);
		cr_assert_str_eq(cgroup, rel);
		if (intervals == 1) {
			cr_assert_not(cgroup_pressure(row, &some, &full, line),
				      "its group's first interval has no figure: %s", line);
		} else {
			int64_t lag_us = now.at_us - record_us(record);

			cr_assert(cgroup_pressure(row, &some, &full, line), "not known: %s", line);
			cr_assert_gt(some, 0.0, "a throttled reader stalls: %s", line);
			cr_assert_leq(some, 100.0);
			cr_assert_leq(full, some, "full is at most some: %s", line);
			seconds = h_json_get_number(record, "interval_s");
			/* diskio's span begins and ends lag earlier than the test's */
			expect_within("some", some, seconds, (double)(now.some_us - before.some_us),
				      (double)lag_us, (double)before_lag_us, line);
			expect_within("full", full, seconds, (double)(now.full_us - before.full_us),
				      (double)lag_us, (double)before_lag_us, line);
			known++;
			before_lag_us = lag_us;
		}
		if (intervals == 1)
			before_lag_us = now.at_us - record_us(record);
		before = now;
	}
	cr_assert_eq(known, INTERVALS - 1);
	cr_assert_eq(h_diskio_stop(&d, 0, 30000), 0, "stderr: %s", d.err);
	h_diskio_free(&d);
}

/* The diagnosis record's disk name; its process pid in list into *proc. */
static bool find_in(struct h_jv record, const char *disk_name, const char *list, int64_t pid,
		    struct h_jv *proc)
{
	struct h_jv disks, disk, device, procs;
	size_t pos = 0, at = 0;
	int64_t n;

	cr_assert(h_json_get(record, "disks", &disks));
	while (h_json_next_elem(disks, &pos, &disk)) {
		if (!h_json_get(disk, "device", &device) || !h_json_str_eq(device, disk_name))
			continue;
		cr_assert(h_json_get(disk, list, &procs), "no %s", list);
		while (h_json_next_elem(procs, &at, proc))
			if (h_json_get_int(*proc, "pid", &n) && n == pid)
				return true;
	}
	return false;
}

Test(cgroup_pressure, diagnose_gives_a_group_first_seen_in_the_window_its_pressure)
{
	const struct h_dev *zram = h_zram_create(ZRAM_BYTES);
	struct totals launch, started, end;
	double some, full, driver_some, driver_full, seconds;
	struct h_jv record, type, waiter, driver;
	char rel[64];
	const char *line, *last;
	struct h_diskio d;
	int64_t lag_us;
	pid_t reader;
	int status;

	reader = throttled_reader(zram, READER_IOPS, rel, sizeof(rel));
	h_sleep_ms(300);
	launch = read_totals();
	h_diskio_start(&d, H_ARGS("--diagnose=2", "--json", "-D", zram->name), NULL);
	line = h_diskio_next_line(&d, H_ATTACH_TIMEOUT_MS);
	if (!line)
		h_diskio_dump(&d, "no start record");
	cr_assert(line && h_json_parse(line, &record) && h_json_get(record, "type", &type) &&
		  h_json_str_eq(type, "start"), "not a start record: %s", line ? line : "-");
	started = read_totals();
	status = h_diskio_stop(&d, 0, 60000);
	end = read_totals();
	cr_assert(WIFEXITED(status), "diskio did not exit by itself (status %d)", status);
	cr_assert_geq(d.nlines, 2, "no diagnosis; stderr: %s", d.err);
	last = d.lines[d.nlines - 1];
	cr_assert(h_json_parse(last, &record) && h_json_get(record, "type", &type) &&
		  h_json_str_eq(type, "diagnosis"), "not a diagnosis: %s", last);
	cr_assert(find_in(record, zram->name, "waiters", reader, &waiter), "no waiter: %s", last);
	cr_assert(find_in(record, zram->name, "drivers", reader, &driver), "no driver: %s", last);
	cr_assert(cgroup_pressure(waiter, &some, &full, last),
		  "the group, first seen in the window, has no figure: %s", last);
	cr_assert(cgroup_pressure(driver, &driver_some, &driver_full, last));
	cr_assert_float_eq(driver_some, some, 1e-9, "one group, one figure");
	cr_assert_float_eq(driver_full, full, 1e-9);
	cr_assert_gt(some, 0.0, "a throttled reader stalls: %s", last);
	cr_assert_leq(some, 100.0);
	cr_assert_leq(full, some);
	/* diskio read the group after the test's first reading and before its
	 * second (the start record follows the walk), and at the window's end
	 * after the record's time and before the test's last reading */
	seconds = h_json_get_number(record, "duration_s");
	lag_us = end.at_us - record_us(record);
	expect_within("some", some, seconds, (double)(end.some_us - started.some_us),
		      (double)lag_us, (double)(started.some_us - launch.some_us), last);
	expect_within("full", full, seconds, (double)(end.full_us - started.full_us),
		      (double)lag_us, (double)(started.full_us - launch.full_us), last);
	h_diskio_free(&d);
}
