// SPDX-License-Identifier: GPL-2.0
/*
 * Issue 45: failed I/Os, counted where each completes, charged to the
 * process that issued it, by kind.  The known answer: a loop device over a
 * 64 MiB sparse file on an 8 MiB tmpfs fails the writes that find the
 * tmpfs full (ENOSPC; EIO for one that fits in part, which loop cuts
 * short), each 64 KiB O_DIRECT write one request, and the writer itself
 * counts the write() calls that failed: the row's errors, the disk's and
 * the total must be that count, in JSON, in batch and in --prom.
 */
#include "harness.h"

#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <sys/prctl.h>
#include <sys/wait.h>

TestSuite(errors, .init = h_setup, .fini = h_teardown, .timeout = 90);

#define WRITE_SIZE	65536
#define WRITES		256	/* 16 MiB at offsets 0.., on 8 MiB of tmpfs */
#define BACKING_SIZE	(64ULL << 20)

/* A loop device whose backing file's tmpfs holds 8 MiB. */
static const struct h_dev *failing_loop(void)
{
	const struct h_dev *tmp = h_tmpfs_mount("8m");
	char backing[512];

	snprintf(backing, sizeof(backing), "%s/backing", tmp->path);
	return h_loop_attach(backing, BACKING_SIZE, false);
}

/* The kinds of a JSON "errors" object: their sum, ENOSPC's in *enospc. */
static int64_t errors_sum(struct h_jv obj, int64_t *enospc)
{
	struct h_jv key, val;
	size_t pos = 0;
	int64_t sum = 0, n;

	while (h_json_next_member(obj, &pos, &key, &val)) {
		cr_assert(h_json_int(val, &n) && n > 0, "a kind with no count");
		sum += n;
		if (h_json_str_eq(key, "ENOSPC"))
			*enospc += n;
	}
	return sum;
}

/* Over the interval records: the writer's row's errors, the disk's, the
 * total's, the ENOSPC among the row's, and the losses of error_unattributed. */
struct error_sums {
	int64_t row, device, total, row_enospc, unattributed;
};

static void sum_json_errors(const struct h_diskio *d, uint32_t pid, const char *device,
			    struct error_sums *s)
{
	memset(s, 0, sizeof(*s));
	for (size_t i = 0; i < d->nlines; i++) {
		struct h_jv root, obj, errors, lost, by_cause;
		int64_t ignored = 0, n;

		if (!h_json_is_interval(d->lines[i]) || !h_json_parse(d->lines[i], &root))
			continue;
		if (h_json_find_process(d->lines[i], pid, device, &obj)) {
			cr_assert(h_json_get(obj, "errors", &errors), "%s", d->lines[i]);
			s->row += errors_sum(errors, &s->row_enospc);
		}
		if (h_json_find_device(d->lines[i], device, &obj)) {
			cr_assert(h_json_get(obj, "errors", &errors), "%s", d->lines[i]);
			s->device += errors_sum(errors, &ignored);
		}
		cr_assert(h_json_get(root, "total", &obj) && h_json_get(obj, "errors", &errors));
		s->total += errors_sum(errors, &ignored);
		cr_assert(h_json_get(root, "lost", &lost) && h_json_get(lost, "by_cause", &by_cause) &&
			  h_json_get_int(by_cause, "error_unattributed", &n), "%s", d->lines[i]);
		s->unattributed += n;
	}
}

Test(errors, writes_past_a_full_backing_file_are_the_writers_errors_in_json)
{
	const struct h_dev *loop = failing_loop();
	struct error_sums s;
	struct h_diskio d;
	uint32_t failed;
	pid_t writer;
	int count_fd;

	h_diskio_start(&d, H_ARGS("--json", "-D", loop->name, "0.5"), NULL);
	h_diskio_wait_attached(&d, H_ATTACH_TIMEOUT_MS);
	writer = h_spawn_failing_writer("errwriter", loop->path, WRITE_SIZE, WRITES, &count_fd);
	failed = h_failed_writes(count_fd);
	h_expect_child_ok(writer, H_CHILD_TIMEOUT_MS);
	h_diskio_finish(&d, 2);

	cr_assert_gt(failed, 0, "no write failed: the tmpfs did not fill");
	cr_assert_lt(failed, WRITES, "every write failed: nothing reached the disk");
	sum_json_errors(&d, (uint32_t)writer, loop->name, &s);
	cr_expect_eq(s.row, failed, "the writer's errors: %" PRId64 ", its failed writes %u",
		     s.row, failed);
	cr_expect_gt(s.row_enospc, 0, "no ENOSPC among %" PRId64, s.row);
	cr_expect_eq(s.device, s.row, "the disk's errors %" PRId64 ", its row's %" PRId64,
		     s.device, s.row);
	cr_expect_eq(s.total, s.row, "the total's errors %" PRId64, s.total);
	cr_expect_eq(s.unattributed, 0, "error_unattributed");
	h_diskio_free(&d);
}

/* The same in batch: field 23 of the writer's lines, the disk's errors=,
 * and error_kinds naming ENOSPC; and in --prom, the process's and the
 * disk's counters with kind labels. */
Test(errors, writes_past_a_full_backing_file_in_batch_and_prom)
{
	const struct h_dev *loop = failing_loop();
	char prom[512], want[128], *line = NULL;
	int64_t row = 0, device = 0, prom_row = 0, prom_device = 0;
	bool enospc_named = false;
	struct h_diskio d;
	size_t cap = 0;
	uint32_t failed;
	pid_t writer;
	int count_fd;
	FILE *f;

	snprintf(prom, sizeof(prom), H_STATE_DIR "/errors-%d.prom", (int)getpid());
	h_diskio_start(&d, H_ARGS("-b", "--prom", prom, "-D", loop->name, "0.5"), NULL);
	h_diskio_wait_attached(&d, H_ATTACH_TIMEOUT_MS);
	writer = h_spawn_failing_writer("errwriter", loop->path, WRITE_SIZE, WRITES, &count_fd);
	failed = h_failed_writes(count_fd);
	h_expect_child_ok(writer, H_CHILD_TIMEOUT_MS);
	h_diskio_finish(&d, 2);

	snprintf(want, sizeof(want), "# device %s ", loop->name);
	for (size_t i = 0; i < d.nlines; i++) {
		const char *l = d.lines[i], *at;
		char *copy, *field[32], *save = NULL;
		int n = 0;

		if (!strncmp(l, want, strlen(want))) {
			at = strstr(l, " errors=");
			cr_assert_not_null(at, "%s", l);
			device += strtoll(at + 8, NULL, 10);
			cr_assert_not_null(strstr(l, " error_kinds="), "%s", l);
			continue;
		}
		if (l[0] == '#')
			continue;
		copy = strdup(l);
		for (char *t = strtok_r(copy, " ", &save); t && n < 32; t = strtok_r(NULL, " ", &save))
			field[n++] = t;
		cr_assert_eq(n, H_BATCH_FIELDS, "a data line of %d fields: %s", n, l);
		if (strtoul(field[1], NULL, 10) == (unsigned long)writer &&
		    !strcmp(field[3], loop->name)) {
			row += strtoll(field[22], NULL, 10);
			enospc_named |= strstr(field[23], "ENOSPC:") != NULL;
		}
		free(copy);
	}
	cr_expect_eq(row, failed, "field 23 of the writer: %" PRId64 ", failed writes %u", row,
		     failed);
	cr_expect(enospc_named, "field 24 names ENOSPC");
	cr_expect_eq(device, failed, "the disk's errors=: %" PRId64, device);

	f = fopen(prom, "r");
	cr_assert_not_null(f, "%s: %s", prom, strerror(errno));
	while (getline(&line, &cap, f) > 0) {
		char *space = strrchr(line, ' ');

		if (!space)
			continue;
		snprintf(want, sizeof(want), "device=\"%s\"", loop->name);
		if (!strncmp(line, "diskio_io_errors_total{", 23) && strstr(line, "comm=\"errwriter\"") &&
		    strstr(line, want))
			prom_row += strtoll(space + 1, NULL, 10);
		if (!strncmp(line, "diskio_device_io_errors_total{", 30) && strstr(line, want))
			prom_device += strtoll(space + 1, NULL, 10);
	}
	free(line);
	fclose(f);
	unlink(prom);
	cr_expect_eq(prom_row, failed, "diskio_io_errors_total of errwriter: %" PRId64, prom_row);
	cr_expect_eq(prom_device, failed, "diskio_device_io_errors_total: %" PRId64, prom_device);
	h_diskio_free(&d);
}

/* "some" total= of /proc/pressure/io, in microseconds (-1: no PSI). */
static int64_t pressure_some_us(void)
{
	char text[512];
	const char *at;
	ssize_t n;
	int fd = open("/proc/pressure/io", O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -1;
	n = read(fd, text, sizeof(text) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	text[n] = '\0';
	at = strstr(text, " total=");
	return at ? strtoll(at + 7, NULL, 10) : -1;
}

/* Issue 45's I/O pressure: each interval's "pressure" is /proc/pressure/io's
 * change over it; summed over the intervals (percent x length) it is at most
 * the change the test reads around the whole run, and some >= full. */
Test(errors, io_pressure_is_the_kernels_over_each_interval)
{
	const struct h_dev *zram = h_zram_create(64ULL << 20);
	static const struct h_io ops[] = { { 'r', 0, 4096, 4096 } };
	int64_t before = pressure_some_us(), after, shown_us = 0;
	int intervals = 0;
	struct h_diskio d;

	if (before < 0)
		cr_skip_test("no /proc/pressure/io (a kernel without PSI)");
	h_diskio_start(&d, H_ARGS("--json", "-D", zram->name, "0.5"), NULL);
	h_diskio_wait_attached(&d, H_ATTACH_TIMEOUT_MS);
	h_expect_child_ok(h_spawn_io("psi-reader", zram->path, ops, 1, NULL), H_CHILD_TIMEOUT_MS);
	h_diskio_finish(&d, 2);
	after = pressure_some_us();
	for (size_t i = 0; i < d.nlines; i++) {
		struct h_jv root, pressure, v;
		double some = NAN, full = NAN, interval_s = NAN;

		if (!h_json_is_interval(d.lines[i]) || !h_json_parse(d.lines[i], &root))
			continue;
		cr_assert(h_json_get(root, "pressure", &pressure), "%s", d.lines[i]);
		if (h_json_get(pressure, "some", &v))
			some = h_json_number(v);
		if (h_json_get(pressure, "full", &v))
			full = h_json_number(v);
		if (h_json_get(root, "interval_s", &v))
			interval_s = h_json_number(v);
		cr_assert(!isnan(some) && !isnan(full) && !isnan(interval_s), "%s", d.lines[i]);
		cr_expect(some >= 0 && some <= 100 && full >= 0 && full <= some + 0.01,
			  "some %.2f full %.2f: %s", some, full, d.lines[i]);
		shown_us += (int64_t)(some * interval_s * 1e4);
		intervals++;
	}
	cr_assert_geq(intervals, 2);
	/* each interval rounds to 0.01 % of its length (at most 50 us of 0.5 s) */
	cr_expect_leq(shown_us, after - before + 100 * intervals,
		      "the intervals' stall %" PRId64 " us, the kernel's over the run %" PRId64 " us",
		      shown_us, after - before);
	h_diskio_free(&d);
}
