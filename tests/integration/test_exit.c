// SPDX-License-Identifier: GPL-2.0
/*
 * diskio's last words (issue 37).  Stopped in the middle of an interval, it
 * closes that interval early (a partial frame) before its summary, so that
 * the I/O of the minute that mattered is printed and summed: the interval
 * records and the summary both equal /proc/diskstats.
 */
#include "harness.h"

TestSuite(exit_path, .init = h_setup, .fini = h_teardown, .timeout = 60);

#define WRITE_SIZE	4096
#define INTERVAL	"2"

static const struct h_io three[] = { { 'w', 0, WRITE_SIZE, 3 } };
static const struct h_io five[] = { { 'w', 1 << 20, WRITE_SIZE, 5 } };

/*
 * 3 writes, printed in whole intervals; then 5 more and, 0.3 s later, the
 * signal, well inside the next 2 s interval.  Returns the disk's diskstats
 * change over the whole run.
 */
static struct h_diskstats three_then_five_then(struct h_diskio *d, const struct h_dev *zram,
					       const char *mode, int sig)
{
	struct h_diskstats before, after;
	char why[64];
	int status;

	cr_assert(h_diskstats_read(zram->name, &before));
	h_diskio_start(d, H_ARGS(mode, "-D", zram->name, INTERVAL), NULL);
	h_diskio_wait_attached(d, H_ATTACH_TIMEOUT_MS);
	h_expect_child_ok(h_spawn_io("dio-three", zram->path, three, 1, NULL), H_CHILD_TIMEOUT_MS);
	h_diskio_wait_new_intervals(d, 2, 10000);
	h_expect_child_ok(h_spawn_io("dio-five", zram->path, five, 1, NULL), H_CHILD_TIMEOUT_MS);
	h_sleep_ms(300);
	status = h_diskio_stop(d, sig, H_EXIT_TIMEOUT_MS);
	if (!(WIFEXITED(status) && WEXITSTATUS(status) == 0))
		h_diskio_dump(d, "bad exit");
	cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0, "diskio after signal %d: %s",
		  sig, h_status_str(status, why, sizeof(why)));
	cr_assert(h_diskstats_read(zram->name, &after));
	return h_diskstats_delta(&before, &after);
}

Test(exit_path, json_the_unfinished_interval_is_printed_and_summed)
{
	const struct h_dev *zram = h_zram_create(64 << 20);
	struct h_counters in_intervals = { 0 }, in_last = { 0 }, total = { 0 };
	struct h_diskstats delta;
	struct h_diskio d;
	const char *last_interval = NULL, *summary;
	struct h_jv root, v, obj;
	int partial_records = 0;

	delta = three_then_five_then(&d, zram, "--json", SIGTERM);
	cr_assert_eq(delta.write_ios, 8, "the kernel counted %" PRIu64 " writes", delta.write_ios);
	h_expect_json_output(&d, 1);
	h_json_sum_device(d.lines, d.nlines, zram->name, &in_intervals);
	for (size_t i = 0; i < d.nlines; i++) {
		bool partial;

		if (!h_json_is_interval(d.lines[i]))
			continue;
		cr_assert(h_json_parse(d.lines[i], &root));
		cr_assert(h_json_get(root, "partial", &v), "no partial key: %.200s", d.lines[i]);
		partial = v.len == 4 && !memcmp(v.p, "true", 4);
		cr_assert(partial || (v.len == 5 && !memcmp(v.p, "false", 5)));
		partial_records += partial;
		last_interval = d.lines[i];
	}
	cr_assert_eq(partial_records, 1, "one partial record, the last");
	cr_assert(h_json_parse(last_interval, &root) && h_json_get(root, "partial", &v) &&
		  v.len == 4, "the last interval record is the partial one: %.300s", last_interval);
	cr_assert(h_json_find_device(last_interval, zram->name, &obj) &&
		  h_json_counters(obj, &in_last));
	cr_expect_eq(in_last.write_ios, 5, "the partial interval's writes: %" PRId64,
		     in_last.write_ios);
	cr_assert(h_json_get(root, "interval_s", &v));
	cr_expect_lt(strtod(v.p, NULL), 2.0, "a partial interval ran less than INTERVAL");

	cr_assert_eq(in_intervals.write_ios, (int64_t)delta.write_ios,
		     "interval records: %" PRId64 " writes, diskstats %" PRIu64,
		     in_intervals.write_ios, delta.write_ios);
	cr_assert_eq(in_intervals.write_bytes, (int64_t)delta.write_sectors * 512);
	summary = d.lines[d.nlines - 1];
	cr_assert(h_json_is_summary(summary));
	cr_assert(h_json_parse(summary, &root) && h_json_get(root, "total", &obj) &&
		  h_json_counters(obj, &total), "%.300s", summary);
	cr_assert_eq(total.write_ios, 8, "the summary's total: %" PRId64 " writes", total.write_ios);
	cr_assert_eq(total.write_bytes, 8 * WRITE_SIZE);
	h_diskio_free(&d);
}

/* "key=N" of a '#' line. */
static int64_t field(const char *line, const char *key)
{
	char pattern[64];
	const char *at;

	snprintf(pattern, sizeof(pattern), " %s=", key);
	at = strstr(line, pattern);
	cr_assert_not_null(at, "no %s in: %.300s", key, line);
	return strtoll(at + strlen(pattern), NULL, 10);
}

Test(exit_path, batch_the_unfinished_interval_is_printed_and_summed)
{
	const struct h_dev *zram = h_zram_create(64 << 20);
	struct h_diskstats delta;
	struct h_diskio d;
	char device_line[64];
	int64_t writes = 0, bytes = 0, last_partial = -1, partials = 0;
	const char *summary = NULL;

	delta = three_then_five_then(&d, zram, "-b", SIGINT);
	cr_assert_eq(delta.write_ios, 8);
	snprintf(device_line, sizeof(device_line), "# device %s ", zram->name);
	for (size_t i = 0; i < d.nlines; i++) {
		const char *line = d.lines[i];

		if (!strncmp(line, "# time=", 7)) {
			last_partial = field(line, "partial");
			partials += last_partial;
		} else if (!strncmp(line, device_line, strlen(device_line))) {
			writes += field(line, "write_ios");
			bytes += field(line, "write_bytes");
		} else if (!strncmp(line, "# summary ", 10)) {
			summary = line;
		}
	}
	cr_assert_eq(last_partial, 1, "the last interval is partial=1");
	cr_assert_eq(partials, 1);
	cr_assert_eq(writes, (int64_t)delta.write_ios, "# device lines: %" PRId64 " writes", writes);
	cr_assert_eq(bytes, (int64_t)delta.write_sectors * 512);
	cr_assert_not_null(summary, "no # summary line");
	cr_assert_eq(field(summary, "write_ios"), 8, "%s", summary);
	cr_assert_eq(field(summary, "write_bytes"), 8 * WRITE_SIZE, "%s", summary);
	h_diskio_free(&d);
}
