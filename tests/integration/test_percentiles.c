// SPDX-License-Identifier: GPL-2.0
/*
 * Integration tests of the per-disk latency histograms (root): known numbers
 * of O_DIRECT reads and writes on a loop device the test creates; every
 * completion lands in its operation's histogram exactly once and the
 * percentiles are ordered.  /proc/diskstats is the oracle for the counts.
 * On a zram disk (bio-based), the default mode's sample of 1 in 16 bios
 * against -L's every I/O, watching the same fio job.
 * (That batch and JSON show the same percentiles of one interval is a unit
 * test, tests/test_render.c: two diskio instances time the same I/O a few
 * microseconds apart.)
 */
#include "harness.h"
#include <math.h>

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

/* ---- bio-based disks: a sample of bios by default ---- */

#define ZRAM_SIZE	(64ULL << 20)
#define SAMPLED_READS	20000

/* One fio job, run to its end: SAMPLED_READS random 4 KiB reads with
 * O_DIRECT from one thread (psync: the bio is on the reader's stack, the
 * same address every time), the same sectors every run (randrepeat). */
static void run_fio(const struct h_dev *dev, const char *rw, const char *bs, const char *ios)
{
	char filename[128];
	struct h_result r;

	snprintf(filename, sizeof(filename), "--filename=%s", dev->path);
	h_run(H_ARGS("fio", "--name=pct", filename, rw, bs, "--direct=1", "--ioengine=psync",
		     "--size=64M", "--randrepeat=1", "--norandommap", ios, "--output=/dev/null"),
	      NULL, NULL, 120000, &r);
	cr_assert(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0, "fio %s: %s", rw, r.err);
	h_result_free(&r);
}

/* Device dev's run totals in the summary record: the read latency object
 * and the latency_sample key. */
static void summary_reads(const struct h_diskio *d, const char *dev, struct h_jv *reads,
			  int64_t *sample)
{
	struct h_jv device;

	for (size_t i = d->nlines; i-- > 0;) {
		if (!h_json_is_summary(d->lines[i]))
			continue;
		cr_assert(op_latency(d->lines[i], dev, "read", reads), "%.400s", d->lines[i]);
		cr_assert(h_json_find_device(d->lines[i], dev, &device));
		cr_assert(h_json_get_int(device, "latency_sample", sample),
			  "no latency_sample: %.600s", d->lines[i]);
		return;
	}
	h_diskio_dump(d, "no summary");
	cr_assert_fail("no summary record");
}

/* The log2 slot (latency_slot()) of a latency in microseconds. */
static int slot_of_us(double us)
{
	return (int)floor(log2(us * 1000.0));
}

/* The log2 slot of the bucket of device dev's op histogram (the summary's,
 * with --histogram) in which a fraction q of its completions is reached;
 * -1 if there is none. */
static int histogram_quantile_slot(const struct h_diskio *d, const char *dev, const char *op,
				   double q)
{
	struct h_jv device, histogram, slots, slot;
	int64_t total, seen = 0, count;
	size_t pos = 0;

	for (size_t i = d->nlines; i-- > 0;) {
		if (!h_json_is_summary(d->lines[i]))
			continue;
		total = histogram_count(d->lines[i], dev, op);
		if (total <= 0 || !h_json_find_device(d->lines[i], dev, &device) ||
		    !h_json_get(device, "histogram", &histogram) ||
		    !h_json_get(histogram, op, &slots))
			return -1;
		while (h_json_next_elem(slots, &pos, &slot)) {
			if (!h_json_get_int(slot, "count", &count))
				continue;
			seen += count;
			/* le_us is the bucket's upper bound, 2^(slot + 1) ns */
			if (seen >= q * (double)total)
				return (int)floor(log2(h_json_get_number(slot, "le_us") * 1000.0) -
						  1e-9);
		}
		return -1;
	}
	return -1;
}

/* Two diskio instances (args1, args2) watching one run of the read job on
 * dev; asserts that the kernel counted exactly SAMPLED_READS reads. */
static void watch_reads(const struct h_dev *dev, struct h_diskio *d1, const char *const args1[],
			struct h_diskio *d2, const char *const args2[])
{
	struct h_diskstats before, after, delta;
	char io_size[32];

	h_diskio_start(d1, args1, NULL);
	h_diskio_start(d2, args2, NULL);
	h_diskio_wait_attached(d1, H_ATTACH_TIMEOUT_MS);
	h_diskio_wait_attached(d2, H_ATTACH_TIMEOUT_MS);
	cr_assert(h_diskstats_read(dev->name, &before));
	snprintf(io_size, sizeof(io_size), "--io_size=%d", SAMPLED_READS * 4096);
	run_fio(dev, "--rw=randread", "--bs=4k", io_size);
	cr_assert(h_diskstats_read(dev->name, &after));
	delta = h_diskstats_delta(&before, &after);
	h_diskio_finish(d1, 2);
	h_diskio_finish(d2, 2);
	cr_assert_eq(delta.read_ios, SAMPLED_READS, "fio's reads, as the kernel counts them: %"
		     PRIu64, delta.read_ios);
}

/*
 * zram (bio-based) by default: read p50 and p99 are known, from 1 in 16
 * bios (latency_sample 16 in JSON and batch, about SAMPLED_READS / 16 of
 * them), and the sampled p99 is where a p99 of that many draws from -L's
 * exact histogram can be, the two watching the same job at once (each
 * instance's programs add to the other's latency: two, not more).  Of
 * about 1,250 sampled reads, the p99 is the 13th slowest: below the exact
 * 97.5th percentile (31 expected above it) or above the 99.7th (3.75
 * expected) each happens less than once in 5,000 runs, and a busy machine's
 * heavy tail can put those two a few slots apart; so the sampled p99's slot
 * must be within one of that range (a slot's width: the percentiles are
 * interpolated in it).  Then, on the same job again,
 * --latency-sample 1 times every bio (exactly /proc/diskstats' reads),
 * and the batch # device line carries the rate.
 */
Test(percentiles, zram_sampled_by_default_near_the_exact_percentiles)
{
	const struct h_dev *dev = h_zram_create(ZRAM_SIZE);
	struct h_diskio sampled, exact, every, batch;
	struct h_jv reads;
	int64_t ios, sample, exact_ios, every_ios;
	double p50, p99, exact_p50, exact_p99;
	int low, high;
	char prefix[64];
	bool batch_rate = false;

	cr_assert(h_have_program("fio"), "fio is missing: make deps-test");
	run_fio(dev, "--rw=write", "--bs=1M", "--io_size=64M");	/* reads hit data */
	h_udev_settle();	/* udev reads the disk once its writer closes it */
	watch_reads(dev, &sampled, H_ARGS("--json", "-D", dev->name, "0.5"),
		    &exact, H_ARGS("--json", "-L", "--histogram", "-D", dev->name, "0.5"));

	summary_reads(&exact, dev->name, &reads, &sample);
	cr_assert(h_json_get_int(reads, "ios", &exact_ios));
	cr_assert(json_number(reads, "p50", &exact_p50) && json_number(reads, "p99", &exact_p99));
	cr_expect_eq(exact_ios, SAMPLED_READS, "-L times every read");
	cr_expect_eq(sample, 1, "-L: latency_sample 1");

	summary_reads(&sampled, dev->name, &reads, &sample);
	cr_assert(h_json_get_int(reads, "ios", &ios));
	cr_assert(json_number(reads, "p50", &p50) && json_number(reads, "p99", &p99),
		  "the default mode's read percentiles are null on zram");
	cr_expect_eq(sample, 16, "the default rate");
	cr_expect(ios > SAMPLED_READS / 16 * 3 / 4 && ios < SAMPLED_READS / 16 * 5 / 4,
		  "%" PRId64 " reads timed of %d: not about 1 in 16", ios, SAMPLED_READS);
	cr_log_info("%s reads: sampled %" PRId64 " p50 %.1f p99 %.1f us; -L %" PRId64
		    " p50 %.1f p99 %.1f us", dev->name, ios, p50, p99, exact_ios, exact_p50,
		    exact_p99);
	low = histogram_quantile_slot(&exact, dev->name, "read", 0.975);
	high = histogram_quantile_slot(&exact, dev->name, "read", 0.997);
	cr_assert(low >= 0 && high >= low, "-L --histogram: no read histogram");
	cr_log_info("sampled p99 in slot %d; exact p97.5 to p99.7 in slots %d to %d",
		    slot_of_us(p99), low, high);
	cr_expect(slot_of_us(p99) >= low - 1 && slot_of_us(p99) <= high + 1,
		  "sampled p99 %.1f us (slot %d), exact %.1f us (slot %d), exact p97.5 to p99.7 "
		  "in slots %d to %d", p99, slot_of_us(p99), exact_p99, slot_of_us(exact_p99), low,
		  high);
	cr_expect_leq(abs(slot_of_us(p50) - slot_of_us(exact_p50)), 1,
		      "sampled p50 %.1f us, exact %.1f us", p50, exact_p50);

	watch_reads(dev, &every, H_ARGS("--json", "--latency-sample", "1", "-D", dev->name, "0.5"),
		    &batch, H_ARGS("-b", "-D", dev->name, "0.5"));
	summary_reads(&every, dev->name, &reads, &sample);
	cr_assert(h_json_get_int(reads, "ios", &every_ios));
	cr_expect_eq(every_ios, SAMPLED_READS, "--latency-sample 1 times every bio");
	cr_expect_eq(sample, 1);
	/* Batch: each # device line of the disk ends with its rate. */
	snprintf(prefix, sizeof(prefix), "# device %s ", dev->name);
	for (size_t i = 0; i < batch.nlines; i++) {
		if (strncmp(batch.lines[i], prefix, strlen(prefix)))
			continue;
		cr_expect(strstr(batch.lines[i], " latency_sample=16 latency_samples_dropped=0"),
			  "%s", batch.lines[i]);
		batch_rate = true;
	}
	cr_expect(batch_rate, "no # device line of %s", dev->name);
	h_diskio_free(&sampled);
	h_diskio_free(&exact);
	h_diskio_free(&every);
	h_diskio_free(&batch);
}
