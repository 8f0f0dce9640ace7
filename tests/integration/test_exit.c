// SPDX-License-Identifier: GPL-2.0
/*
 * diskio's last words (issue 37).  Stopped in the middle of an interval, it
 * closes that interval early (a partial frame) before its summary, so that
 * the I/O of the minute that mattered is printed and summed: the interval
 * records and the summary both equal /proc/diskstats.  And a reader that
 * stopped reading never holds a signal: diskio is gone within a second and
 * says, in one true line, how much it could not write.
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

/*
 * diskio -T -b 0.5 | (sleep 15; cat) under 6,000 writes: its stdout fills
 * and nobody reads.  SIGTERM: gone within 1 s, exit 1, and one line on
 * stderr that says how many lines were not written, with no errno of
 * another call ("Interrupted system call", "No such file or directory").
 */
Test(exit_path, a_pipe_nobody_reads_never_holds_sigterm)
{
	static const struct h_io many[] = { { 'w', 0, WRITE_SIZE, 6000 } };
	const struct h_dev *zram = h_zram_create(64 << 20);
	int out[2], err[2], status;
	char first[256] = "", stderr_text[4096] = "", why[64];
	int64_t signalled, elapsed;
	unsigned long long dropped = 0;
	ssize_t n, got = 0;
	pid_t pid;

	cr_assert_eq(pipe(out), 0);
	cr_assert_eq(pipe(err), 0);
	pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		dup2(out[1], STDOUT_FILENO);
		dup2(err[1], STDERR_FILENO);
		h__child_prepare(-1);
		execl(h_diskio_path(), "diskio", "-T", "-b", "-D", zram->name, "0.5", (char *)NULL);
		_exit(127);
	}
	h_track_child(pid);
	close(out[1]);
	close(err[1]);
	/* The column line says it is attached; after it, nobody reads. */
	while (got < (ssize_t)sizeof(first) - 1 && !strchr(first, '\n')) {
		struct pollfd p = { .fd = out[0], .events = POLLIN };

		cr_assert_gt(poll(&p, 1, H_ATTACH_TIMEOUT_MS), 0, "diskio printed nothing");
		n = read(out[0], first + got, 1);
		cr_assert_gt(n, 0);
		got += n;
	}
	cr_assert(!strncmp(first, "# time_s ", 9), "first line: %s", first);
	h_expect_child_ok(h_spawn_io("dio-many", zram->path, many, 1, NULL), 60000);
	/* Two intervals for diskio to be blocked writing its trace lines. */
	h_sleep_ms(1500);
	cr_assert_eq(h_wait_pid(pid, 0, &status), -1, "diskio exited before the signal");

	cr_assert_eq(kill(pid, SIGTERM), 0);
	signalled = h_now_ms();
	cr_assert_eq(h_wait_pid(pid, 5000, &status), 0, "diskio still runs 5 s after SIGTERM");
	elapsed = h_now_ms() - signalled;
	h_untrack_child(pid);
	cr_expect_leq(elapsed, 1000, "diskio took %" PRId64 " ms to exit after SIGTERM", elapsed);
	cr_expect(WIFEXITED(status) && WEXITSTATUS(status) == 1, "exit: %s",
		  h_status_str(status, why, sizeof(why)));

	got = 0;
	while ((n = read(err[0], stderr_text + got, sizeof(stderr_text) - 1 - got)) > 0)
		got += n;
	stderr_text[got] = '\0';
	cr_assert(sscanf(stderr_text, "diskio: stdout was not read; the last %llu lines were not "
			 "written\n", &dropped) == 1, "stderr: %s", stderr_text);
	cr_assert_gt(dropped, 0);
	cr_assert_eq(strchr(stderr_text, '\n') + 1, stderr_text + got, "one line: %s",
		     stderr_text);
	close(out[0]);
	close(err[0]);
}
