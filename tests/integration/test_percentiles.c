// SPDX-License-Identifier: GPL-2.0
/*
 * Integration tests of the per-disk latency histograms (root): known numbers
 * of O_DIRECT reads and writes on a loop device the test creates; every
 * completion lands in its operation's histogram exactly once and the
 * percentiles are ordered.  /proc/diskstats is the oracle for the counts.
 * (That batch and JSON show the same percentiles of one interval is a unit
 * test, tests/test_render.c: two diskio instances time the same I/O a few
 * microseconds apart.)
 */
#include "harness.h"

TestSuite(percentiles, .init = h_setup, .fini = h_teardown, .timeout = 90);

#define DEV_SIZE	(64ULL << 20)
#define BLOCK		4096
#define READS		500
#define WRITES		300

static const struct h_io workload[] = {
	{ 'w', 0, BLOCK, WRITES },
	{ 'r', 0, BLOCK, READS },
};

/* The object of operation op in device dev's "latency_us" of one line. */
static bool op_latency(const char *line, const char *dev, const char *op, struct h_jv *obj)
{
	struct h_jv device, latency;

	return h_json_find_device(line, dev, &device) &&
	       h_json_get(device, "latency_us", &latency) && h_json_get(latency, op, obj);
}

/* A number or null: false for null (or absent). */
static bool json_number(struct h_jv obj, const char *key, double *out)
{
	struct h_jv v;
	char text[64];

	if (!h_json_get(obj, key, &v) || v.len >= sizeof(text) || (v.len == 4 &&
								      !memcmp(v.p, "null", 4)))
		return false;
	memcpy(text, v.p, v.len);
	text[v.len] = '\0';
	*out = strtod(text, NULL);
	return true;
}

/* Sum of the "count"s of device dev's histogram of op in one line. */
static int64_t histogram_count(const char *line, const char *dev, const char *op)
{
	struct h_jv device, histogram, slots, slot;
	int64_t sum = 0, count;
	size_t pos = 0;

	if (!h_json_find_device(line, dev, &device) ||
	    !h_json_get(device, "histogram", &histogram) || !h_json_get(histogram, op, &slots))
		return -1;
	while (h_json_next_elem(slots, &pos, &slot))
		if (h_json_get_int(slot, "count", &count))
			sum += count;
	return sum;
}

/* Known reads and writes: per interval, the histogram of each operation
 * holds as many completions as the latency object's ios, the percentiles
 * are ordered; over the run, the reads and writes are all there, as in
 * /proc/diskstats. */
Test(percentiles, loop_histograms_hold_every_completion_once)
{
	const struct h_dev *dev = h_loop_create(DEV_SIZE);
	struct h_diskstats before, after, delta;
	int64_t ios_sum[2] = { 0 }, hist_sum[2] = { 0 };
	static const char *const ops[] = { "read", "write" };
	struct h_diskio d;

	cr_assert(h_diskstats_read(dev->name, &before));
	h_diskio_start(&d, H_ARGS("--json", "--histogram", "-D", dev->name, "0.5"), NULL);
	h_diskio_wait_attached(&d, H_ATTACH_TIMEOUT_MS);
	h_expect_child_ok(h_spawn_io("pct-rw", dev->path, workload, 2, NULL), H_CHILD_TIMEOUT_MS);
	h_diskio_finish(&d, 2);
	cr_assert(h_diskstats_read(dev->name, &after));
	delta = h_diskstats_delta(&before, &after);

	for (size_t i = 0; i < d.nlines; i++) {
		if (!h_json_is_interval(d.lines[i]))
			continue;
		for (int k = 0; k < 2; k++) {
			struct h_jv obj;
			int64_t ios, in_histogram;
			double p50, p95, p99, avg;

			if (!op_latency(d.lines[i], dev->name, ops[k], &obj))
				continue;
			cr_assert(h_json_get_int(obj, "ios", &ios), "%.300s", d.lines[i]);
			in_histogram = histogram_count(d.lines[i], dev->name, ops[k]);
			cr_expect_eq(in_histogram, ios, "line %zu %s: histogram %" PRId64
				     " != ios %" PRId64, i, ops[k], in_histogram, ios);
			ios_sum[k] += ios;
			hist_sum[k] += in_histogram;
			if (!ios) {
				cr_expect_not(json_number(obj, "p50", &p50), "no I/O, no p50");
				continue;
			}
			cr_assert(json_number(obj, "p50", &p50) && json_number(obj, "p95", &p95) &&
				  json_number(obj, "p99", &p99) && json_number(obj, "avg", &avg),
				  "%.400s", d.lines[i]);
			cr_expect(p50 > 0 && p50 <= p95 && p95 <= p99, "%s p50 %g p95 %g p99 %g",
				  ops[k], p50, p95, p99);
		}
	}
	cr_log_info("%s: reads %" PRId64 " (histograms %" PRId64 "), writes %" PRId64
		    " (histograms %" PRId64 "), diskstats %" PRIu64 "/%" PRIu64, dev->name,
		    ios_sum[0], hist_sum[0], ios_sum[1], hist_sum[1], delta.read_ios,
		    delta.write_ios);
	cr_expect_eq(ios_sum[0], READS);
	cr_expect_eq(hist_sum[0], READS);
	cr_expect_eq(ios_sum[1], WRITES);
	cr_expect_eq(hist_sum[1], WRITES);
	cr_expect_eq(delta.read_ios, READS);
	cr_expect_eq(delta.write_ios, WRITES);
	h_diskio_free(&d);
}
