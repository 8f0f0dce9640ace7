// SPDX-License-Identifier: GPL-2.0
/*
 * Core integration tests of diskio, run as root against the real kernel:
 * exact byte and I/O counts of known O_DIRECT I/O on a zram disk (bio-based)
 * and a loop device over /dev/shm (blk-mq), per-device totals against
 * /proc/diskstats, the filters, batch output, clean exits and bad usage.
 */
#include "harness.h"

#define BS		4096U
#define MiB		(1024U * 1024U)
#define DEV_SIZE	(64ULL * MiB)
#define INTERVAL	"0.5"

TestSuite(core, .init = h_setup, .fini = h_teardown, .timeout = 60);

/* The workload: 1 MiB written as 256 x 4 KiB, 512 KiB read as 128 x 4 KiB. */
static const struct h_io rw_ops[] = {
	{ 'w', 0, BS, 256 },
	{ 'r', 0, BS, 128 },
};
static const struct h_counters rw_expected = {
	.read_bytes = 524288, .write_bytes = 1048576, .discard_bytes = 0,
	.read_ios = 128, .write_ios = 256, .discard_ios = 0, .flushes = 0,
};

/* 1 MiB discarded with one BLKDISCARD, away from the written range. */
static const struct h_io discard_ops[] = {
	{ 'd', 8ULL * MiB, MiB, 1 },
};

static void expect_counters(const char *what, const struct h_counters *got,
			    const struct h_counters *want)
{
	char g[256], w[256];

	h_counters_str(got, g, sizeof(g));
	h_counters_str(want, w, sizeof(w));
	cr_expect(!memcmp(got, want, sizeof(*got)), "%s:\n  got      %s\n  expected %s", what, g, w);
}

/* Per-device totals of diskio == /proc/diskstats deltas (bytes = sectors x 512). */
static void expect_device_equals_diskstats(const char *dev, const struct h_counters *sum,
					   const struct h_diskstats *delta, bool with_discard)
{
	cr_expect_eq(sum->read_bytes, (int64_t)delta->read_sectors * 512,
		     "%s read_bytes: diskio %" PRId64 ", diskstats %" PRIu64 " sectors x 512",
		     dev, sum->read_bytes, delta->read_sectors);
	cr_expect_eq(sum->read_ios, (int64_t)delta->read_ios,
		     "%s read_ios: diskio %" PRId64 ", diskstats %" PRIu64, dev, sum->read_ios,
		     delta->read_ios);
	cr_expect_eq(sum->write_bytes, (int64_t)delta->write_sectors * 512,
		     "%s write_bytes: diskio %" PRId64 ", diskstats %" PRIu64 " sectors x 512",
		     dev, sum->write_bytes, delta->write_sectors);
	cr_expect_eq(sum->write_ios, (int64_t)delta->write_ios,
		     "%s write_ios: diskio %" PRId64 ", diskstats %" PRIu64, dev, sum->write_ios,
		     delta->write_ios);
	if (!with_discard)
		return;
	cr_expect_eq(sum->discard_bytes, (int64_t)delta->discard_sectors * 512,
		     "%s discard_bytes: diskio %" PRId64 ", diskstats %" PRIu64 " sectors x 512",
		     dev, sum->discard_bytes, delta->discard_sectors);
	cr_expect_eq(sum->discard_ios, (int64_t)delta->discard_ios,
		     "%s discard_ios: diskio %" PRId64 ", diskstats %" PRIu64, dev,
		     sum->discard_ios, delta->discard_ios);
}

/* Sum the rows of pid on device and check that each carries comm. */
static void sum_process(const struct h_diskio *d, pid_t pid, const char *device, const char *comm,
			struct h_counters *sum)
{
	struct h_counters named;
	int rows = h_json_sum_process(d->lines, d->nlines, pid, device, NULL, sum);
	int named_rows = h_json_sum_process(d->lines, d->nlines, pid, device, comm, &named);

	cr_expect_gt(rows, 0, "no row for pid %d on %s", (int)pid, device);
	cr_expect_eq(named_rows, rows, "%d of %d rows of pid %d on %s have comm \"%s\"", named_rows,
		     rows, (int)pid, device, comm);
}

/*
 * Tests 1-3: while `diskio --json -D DEV 0.5` runs (with env), a child named
 * comm does rw_ops on dev and, if discard, a second child "dio-ld" discards
 * 1 MiB.  The pids' rows must show the known answer, the device totals the
 * /proc/diskstats deltas from before diskio started to after it stopped.
 */
static void exact_workload(const struct h_dev *dev, const char *comm, bool discard,
			   const char *const env[], bool exact_process_ios)
{
	struct h_diskstats before, after, delta;
	struct h_counters sum, dev_sum;
	struct h_diskio d;
	pid_t writer, discarder = 0;

	cr_assert(h_diskstats_read(dev->name, &before), "%s not in /proc/diskstats", dev->name);
	h_diskio_start(&d, H_ARGS("--json", "-D", dev->name, INTERVAL), env);
	h_diskio_wait_attached(&d, H_ATTACH_TIMEOUT_MS);
	writer = h_spawn_io(comm, dev->path, rw_ops, 2, NULL);
	h_expect_child_ok(writer, H_CHILD_TIMEOUT_MS);
	if (discard) {
		discarder = h_spawn_io("dio-ld", dev->path, discard_ops, 1, NULL);
		h_expect_child_ok(discarder, H_CHILD_TIMEOUT_MS);
	}
	h_diskio_finish(&d, 2);
	cr_assert(h_diskstats_read(dev->name, &after));
	delta = h_diskstats_delta(&before, &after);
	cr_log_info("%s diskstats delta: read %" PRIu64 " ios %" PRIu64 " sectors, write %" PRIu64
		    " ios %" PRIu64 " sectors, discard %" PRIu64 " ios %" PRIu64 " sectors",
		    dev->name, delta.read_ios, delta.read_sectors, delta.write_ios,
		    delta.write_sectors, delta.discard_ios, delta.discard_sectors);

	h_expect_json_output(&d, 3);
	cr_expect_eq(h_json_sum_lost(d.lines, d.nlines), 0, "diskio lost events");

	sum_process(&d, writer, dev->name, comm, &sum);
	if (exact_process_ios) {
		expect_counters("writer's row (summed over intervals)", &sum, &rw_expected);
	} else {
		/* Request hooks may run in a kworker: only the bytes (counted at
		 * bio submission) are the submitter's for sure. */
		char g[256];

		cr_log_info("writer's row: %s", h_counters_str(&sum, g, sizeof(g)));
		cr_expect_eq(sum.read_bytes, rw_expected.read_bytes, "writer read_bytes %" PRId64,
			     sum.read_bytes);
		cr_expect_eq(sum.write_bytes, rw_expected.write_bytes,
			     "writer write_bytes %" PRId64, sum.write_bytes);
		cr_expect_eq(sum.discard_bytes, 0, "writer discard_bytes %" PRId64,
			     sum.discard_bytes);
	}

	if (discard) {
		struct h_counters want = { .discard_bytes = MiB,
					   .discard_ios = (int64_t)delta.discard_ios };

		cr_expect_gt(delta.discard_ios, 0, "the discard did not reach %s's diskstats",
			     dev->name);
		sum_process(&d, discarder, dev->name, "dio-ld", &sum);
		if (exact_process_ios) {
			expect_counters("discarder's row: a discard is never a write", &sum, &want);
		} else {
			cr_expect_eq(sum.discard_bytes, (int64_t)MiB, "discarder discard_bytes %"
				     PRId64, sum.discard_bytes);
			cr_expect_eq(sum.write_bytes, 0, "discarder write_bytes %" PRId64
				     " (a discard is never a write)", sum.write_bytes);
			cr_expect_eq(sum.read_bytes, 0, "discarder read_bytes %" PRId64,
				     sum.read_bytes);
		}
	}

	cr_expect_gt(h_json_sum_device(d.lines, d.nlines, dev->name, &dev_sum), 0,
		     "no \"devices\" entry for %s", dev->name);
	expect_device_equals_diskstats(dev->name, &dev_sum, &delta, discard);
	/* Nothing else did I/O on the new device: the device is the sum of our rows. */
	cr_expect_eq(dev_sum.write_bytes, rw_expected.write_bytes, "%s write_bytes %" PRId64,
		     dev->name, dev_sum.write_bytes);
	cr_expect_eq(dev_sum.read_bytes, rw_expected.read_bytes, "%s read_bytes %" PRId64,
		     dev->name, dev_sum.read_bytes);
	cr_expect_eq(dev_sum.discard_bytes, discard ? (int64_t)MiB : 0, "%s discard_bytes %" PRId64,
		     dev->name, dev_sum.discard_bytes);
	h_diskio_free(&d);
}

/*
 * Issue 46, the readiness contract: a script starts its workload the moment
 * it reads the first line, the start record (JSON) or the column line
 * (batch), with no sleep, and the workload (a process that exits at once)
 * is counted whole: its rows are the known answer, which is the disk's
 * /proc/diskstats delta (a fresh zram disk, no other I/O on it).
 */
static void counted_from_the_first_line(bool json)
{
	const struct h_dev *z = h_zram_create(DEV_SIZE);
	struct h_diskstats before, after, delta;
	struct h_counters sum = { 0 };
	struct h_diskio d;
	struct h_jv root, type;
	const char *line;
	pid_t pid;

	cr_assert(h_diskstats_read(z->name, &before), "%s not in /proc/diskstats", z->name);
	if (json)
		h_diskio_start(&d, H_ARGS("--json", "-D", z->name, INTERVAL), NULL);
	else
		h_diskio_start(&d, H_ARGS("-b", "-D", z->name, INTERVAL), NULL);
	line = h_diskio_next_line(&d, H_ATTACH_TIMEOUT_MS);
	if (!line)
		h_diskio_dump(&d, "no first line");
	cr_assert_not_null(line, "diskio printed nothing within %d ms", H_ATTACH_TIMEOUT_MS);
	if (json)
		cr_assert(h_json_parse(line, &root) && h_json_get(root, "type", &type) &&
			  h_json_str_eq(type, "start"), "the first record is not the start: %.300s",
			  line);
	else
		cr_assert(!strncmp(line, "# time pid comm device ", 23),
			  "the first line is not the column line: %.300s", line);
	pid = h_spawn_io("dio-ready", z->path, rw_ops, 2, NULL);
	h_expect_child_ok(pid, H_CHILD_TIMEOUT_MS);
	h_diskio_finish(&d, 2);
	cr_assert(h_diskstats_read(z->name, &after));
	delta = h_diskstats_delta(&before, &after);

	if (json) {
		h_expect_json_output(&d, 2);
		h_json_sum_process(d.lines, d.nlines, pid, z->name, NULL, &sum);
	} else {
		for (size_t i = 0; i < d.nlines; i++) {
			struct h_batch_row row;

			if (d.lines[i][0] != '#' && h_batch_parse_row(d.lines[i], &row) &&
			    row.pid == (uint32_t)pid)
				h_counters_add(&sum, &row.c);
		}
	}
	expect_counters("the workload's rows", &sum, &rw_expected);
	cr_expect(delta.write_sectors * 512 == (uint64_t)rw_expected.write_bytes &&
		  delta.read_sectors * 512 == (uint64_t)rw_expected.read_bytes &&
		  delta.write_ios == (uint64_t)rw_expected.write_ios &&
		  delta.read_ios == (uint64_t)rw_expected.read_ios,
		  "%s's /proc/diskstats: read %" PRIu64 " ios %" PRIu64 " sectors, write %" PRIu64
		  " ios %" PRIu64 " sectors: not the workload alone", z->name, delta.read_ios,
		  delta.read_sectors, delta.write_ios, delta.write_sectors);
	h_diskio_free(&d);
}

Test(core, workload_begun_at_the_start_record_is_counted_whole)
{
	counted_from_the_first_line(true);
}

Test(core, workload_begun_at_the_column_line_is_counted_whole)
{
	counted_from_the_first_line(false);
}

/* 1. zram is bio-based: block_bio_queue/complete only. */
Test(core, zram_exact_counts_and_diskstats)
{
	exact_workload(h_zram_create(DEV_SIZE), "dio-zw", false, NULL, true);
}

/* 2. loop is blk-mq: block_io_start/done; a discard is never a write. */
Test(core, loop_exact_counts_discard_and_diskstats)
{
	exact_workload(h_loop_create(DEV_SIZE), "dio-lw", true, NULL, true);
}

/* 3. The pre-6.5 fallback hooks (block_rq_issue/complete). */
Test(core, loop_rq_fallback_hooks_match_diskstats)
{
	exact_workload(h_loop_create(DEV_SIZE), "dio-lrq", true,
		       H_ARGS("DISKIO_FORCE_RQ_HOOKS=1"), false);
}

/* ------------------------------------------------------------ filters -- */

static const struct h_io small_writes[] = { { 'w', 0, BS, 64 } };
static const struct h_counters small_expected = { .write_bytes = 64 * BS, .write_ios = 64 };
static const struct h_io other_ops[] = { { 'w', 4ULL * MiB, BS, 32 }, { 'r', 0, BS, 16 } };

/* Count process objects over all intervals that fail keep(obj). */
typedef bool (*row_pred)(struct h_jv obj, const void *arg);

static int count_rows_not(const struct h_diskio *d, row_pred keep, const void *arg,
			  int *total)
{
	int bad = 0;

	*total = 0;
	for (size_t i = 0; i < d->nlines; i++) {
		struct h_jv arr, obj;
		size_t pos = 0;

		if (!h_json_is_interval(d->lines[i]) || !h_json_processes(d->lines[i], &arr))
			continue;
		while (h_json_next_elem(arr, &pos, &obj)) {
			(*total)++;
			if (!keep(obj, arg)) {
				bad++;
				cr_log_error("unexpected row: %.*s", (int)obj.len, obj.p);
			}
		}
	}
	return bad;
}

static bool row_has_comm(struct h_jv obj, const void *comm)
{
	struct h_jv v;

	return h_json_get(obj, "comm", &v) && h_json_str_eq(v, comm);
}

static bool row_has_pid(struct h_jv obj, const void *pid)
{
	int64_t p;

	return h_json_get_int(obj, "pid", &p) && p == *(const pid_t *)pid;
}

static bool row_has_device(struct h_jv obj, const void *device)
{
	struct h_jv v;

	return h_json_get(obj, "device", &v) && h_json_str_eq(v, device);
}

/* Every "devices" key over all intervals is name, but for disks with
 * flushes alone: process filters do not apply to a disk's flush requests,
 * which serve no one process (doc/numbers.md, "Filters"), and the root
 * disk's journal may flush while the test runs. */
static int count_devices_not(const struct h_diskio *d, const char *name)
{
	int bad = 0;

	for (size_t i = 0; i < d->nlines; i++) {
		struct h_jv devices, key, val;
		size_t pos = 0;

		if (!h_json_is_interval(d->lines[i]) || !h_json_devices(d->lines[i], &devices))
			continue;
		while (h_json_next_member(devices, &pos, &key, &val)) {
			struct h_counters c;

			if (!h_json_str_eq(key, name) &&
			    (!h_json_counters(val, &c) || c.read_bytes || c.write_bytes ||
			     c.discard_bytes || c.read_ios || c.write_ios || c.discard_ios)) {
				bad++;
				cr_log_error("unexpected device: %.*s", (int)key.len, key.p);
			}
		}
	}
	return bad;
}

/* Once diskio is attached, two children (a on dev_a, b on dev_b) are forked
 * behind a gate and released together; then two more intervals and SIGINT. */
static void run_two(struct h_diskio *d, pid_t *a, pid_t *b,
		    const char *comm_a, const struct h_dev *dev_a, const struct h_io *ops_a,
		    size_t nops_a, const char *comm_b, const struct h_dev *dev_b,
		    const struct h_io *ops_b, size_t nops_b)
{
	struct h_gate gate;

	h_gate_init(&gate);
	h_diskio_wait_attached(d, H_ATTACH_TIMEOUT_MS);
	*a = h_spawn_io(comm_a, dev_a->path, ops_a, nops_a, &gate);
	*b = h_spawn_io(comm_b, dev_b->path, ops_b, nops_b, &gate);
	h_gate_open(&gate);
	h_expect_child_ok(*a, H_CHILD_TIMEOUT_MS);
	h_expect_child_ok(*b, H_CHILD_TIMEOUT_MS);
	h_gate_close(&gate);
	h_diskio_finish(d, 2);
}

/* 4a. -c COMM shows only processes with that name. */
Test(core, filter_comm)
{
	const struct h_dev *z = h_zram_create(DEV_SIZE);
	struct h_counters sum, dev_sum;
	struct h_diskio d;
	pid_t a, b;
	int total;

	h_diskio_start(&d, H_ARGS("--json", "-c", "dio-ca", INTERVAL), NULL);
	run_two(&d, &a, &b, "dio-ca", z, small_writes, 1, "dio-cb", z, other_ops, 2);
	h_expect_json_output(&d, 3);
	cr_expect_eq(count_rows_not(&d, row_has_comm, "dio-ca", &total), 0,
		     "rows of other comms shown with -c dio-ca");
	cr_expect_eq(h_json_sum_process(d.lines, d.nlines, b, NULL, NULL, &sum), 0,
		     "rows of pid %d (dio-cb) shown with -c dio-ca", (int)b);
	sum_process(&d, a, z->name, "dio-ca", &sum);
	expect_counters("dio-ca's row", &sum, &small_expected);
	cr_expect_eq(count_devices_not(&d, z->name), 0, "devices other than %s shown", z->name);
	h_json_sum_device(d.lines, d.nlines, z->name, &dev_sum);
	expect_counters("device totals under -c (only dio-ca's I/O)", &dev_sum, &small_expected);
	h_diskio_free(&d);
}

/* 4b. -p PID shows only that process (both children have the same name). */
Test(core, filter_pid)
{
	const struct h_dev *z = h_zram_create(DEV_SIZE);
	struct h_counters sum, dev_sum;
	struct h_gate gate;
	struct h_diskio d;
	char pid_arg[16];
	pid_t a, b;
	int total;

	h_gate_init(&gate);
	a = h_spawn_io("dio-p", z->path, small_writes, 1, &gate);
	b = h_spawn_io("dio-p", z->path, other_ops, 2, &gate);
	snprintf(pid_arg, sizeof(pid_arg), "%d", (int)a);
	h_diskio_start(&d, H_ARGS("--json", "-p", pid_arg, INTERVAL), NULL);
	h_diskio_wait_attached(&d, H_ATTACH_TIMEOUT_MS);
	h_gate_open(&gate);
	h_expect_child_ok(a, H_CHILD_TIMEOUT_MS);
	h_expect_child_ok(b, H_CHILD_TIMEOUT_MS);
	h_gate_close(&gate);
	h_diskio_finish(&d, 2);

	h_expect_json_output(&d, 3);
	cr_expect_eq(count_rows_not(&d, row_has_pid, &a, &total), 0,
		     "rows of other pids shown with -p %d", (int)a);
	cr_expect_eq(h_json_sum_process(d.lines, d.nlines, b, NULL, NULL, &sum), 0,
		     "rows of pid %d shown with -p %d", (int)b, (int)a);
	sum_process(&d, a, z->name, "dio-p", &sum);
	expect_counters("the selected pid's row", &sum, &small_expected);
	cr_expect_eq(count_devices_not(&d, z->name), 0, "devices other than %s shown", z->name);
	h_json_sum_device(d.lines, d.nlines, z->name, &dev_sum);
	expect_counters("device totals under -p (only the selected pid's I/O)", &dev_sum,
			&small_expected);
	h_diskio_free(&d);
}

/*
 * A child named comm that opens path O_DIRECT as root, then, if uid is not
 * 0, becomes that user (the descriptor stays open: nobody could not open a
 * root-owned disk), waits at gate and writes blocks x 4 KiB at offset.
 */
static pid_t spawn_writer_as(const char *comm, const char *path, uid_t uid, uint64_t offset,
			     int blocks, struct h_gate *gate)
{
	pid_t pid = fork();

	cr_assert_geq(pid, 0);
	if (pid == 0) {
		void *buf;
		char byte;
		int fd;

		close(gate->wfd);
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		prctl(PR_SET_NAME, comm);
		fd = open(path, O_RDWR | O_DIRECT | O_CLOEXEC);
		if (fd < 0)
			_exit(H_IO_ERR_OPEN);
		if (uid && (setgroups(0, NULL) || setresgid(uid, uid, uid) ||
			    setresuid(uid, uid, uid)))
			_exit(H_IO_ERR_OP);
		if (read(gate->rfd, &byte, 1) != 0)
			_exit(H_IO_ERR_GATE);
		if (posix_memalign(&buf, BS, BS))
			_exit(H_IO_ERR_ALLOC);
		memset(buf, 0x6b, BS);
		for (int i = 0; i < blocks; i++)
			if (pwrite(fd, buf, BS, (off_t)(offset + (uint64_t)i * BS)) != BS)
				_exit(H_IO_ERR_WRITE);
		_exit(H_IO_OK);
	}
	h_track_child(pid);
	return pid;
}

static bool row_has_uid(struct h_jv obj, const void *uid)
{
	int64_t u;

	return h_json_get_int(obj, "uid", &u) && u == *(const int64_t *)uid;
}

/* 4b'. -u USER (issue 48): nobody's writes are counted, root's beside them
 * (the same name, the same disk) left out, from the rows and the disk. */
Test(core, filter_user)
{
	const struct h_dev *z = h_zram_create(DEV_SIZE);
	const struct h_counters want = { .write_bytes = 3 * BS, .write_ios = 3 };
	const int64_t nobody_uid = 65534;
	struct h_counters sum, dev_sum;
	struct h_gate gate;
	struct h_diskio d;
	pid_t as_nobody, as_root;
	int total;

	h_gate_init(&gate);
	as_nobody = spawn_writer_as("dio-u", z->path, 65534, 0, 3, &gate);
	as_root = spawn_writer_as("dio-u", z->path, 0, MiB, 5, &gate);
	h_diskio_start(&d, H_ARGS("--json", "-u", "nobody", INTERVAL), NULL);
	h_diskio_wait_attached(&d, H_ATTACH_TIMEOUT_MS);
	h_gate_open(&gate);
	h_expect_child_ok(as_nobody, H_CHILD_TIMEOUT_MS);
	h_expect_child_ok(as_root, H_CHILD_TIMEOUT_MS);
	h_gate_close(&gate);
	h_diskio_finish(&d, 2);

	h_expect_json_output(&d, 3);
	cr_expect_eq(count_rows_not(&d, row_has_uid, &nobody_uid, &total), 0,
		     "rows of other users shown with -u nobody");
	cr_expect_eq(h_json_sum_process(d.lines, d.nlines, as_root, NULL, NULL, &sum), 0,
		     "rows of root's pid %d shown with -u nobody", (int)as_root);
	sum_process(&d, as_nobody, z->name, "dio-u", &sum);
	expect_counters("nobody's row", &sum, &want);
	h_json_sum_device(d.lines, d.nlines, z->name, &dev_sum);
	expect_counters("device totals under -u (only nobody's I/O)", &dev_sum, &want);
	h_diskio_free(&d);
}

/* 4c. -D DEVICE shows only that device (I/O on zram and on a loop device). */
Test(core, filter_device)
{
	const struct h_dev *z = h_zram_create(DEV_SIZE);
	const struct h_dev *l = h_loop_create(DEV_SIZE);
	struct h_counters sum, dev_sum;
	struct h_diskio d;
	pid_t a, b;
	int total;

	h_diskio_start(&d, H_ARGS("--json", "-D", z->name, INTERVAL), NULL);
	run_two(&d, &a, &b, "dio-dz", z, small_writes, 1, "dio-dl", l, other_ops, 2);
	h_expect_json_output(&d, 3);
	cr_expect_eq(count_rows_not(&d, row_has_device, z->name, &total), 0,
		     "rows of devices other than %s shown with -D %s", z->name, z->name);
	cr_expect_eq(h_json_sum_process(d.lines, d.nlines, 0, l->name, NULL, &sum), 0,
		     "rows on %s shown with -D %s", l->name, z->name);
	cr_expect_eq(h_json_sum_device(d.lines, d.nlines, l->name, &sum), 0,
		     "a \"devices\" entry for %s shown with -D %s", l->name, z->name);
	cr_expect_eq(count_devices_not(&d, z->name), 0, "devices other than %s shown", z->name);
	sum_process(&d, a, z->name, "dio-dz", &sum);
	expect_counters("the zram writer's row", &sum, &small_expected);
	h_json_sum_device(d.lines, d.nlines, z->name, &dev_sum);
	expect_counters("zram totals", &dev_sum, &small_expected);
	h_diskio_free(&d);
}

/* --------------------------------------------------------------- batch -- */

/*
 * A process that renames itself (prctl), takes its first name back, then
 * execs another program: each of its I/Os goes to the row of the name it had
 * when it submitted it.  The row a task submits to is remembered per task
 * (kernel/task_rows.bpf.h): a new name must never find the old row.
 */
Test(core, renamed_and_execed_process_rows)
{
	static const char *const names[] = { "dio-rn-a", "dio-rn-b", "dio-rn-a" };
	static const int reads[] = { 8, 24, 4 };
	const struct h_dev *z = h_zram_create(DEV_SIZE);
	struct h_counters a, b, dd;
	struct h_diskio d;
	char if_arg[PATH_MAX + 4];
	pid_t pid;

	snprintf(if_arg, sizeof(if_arg), "if=%s", z->path);
	h_diskio_start(&d, H_ARGS("--json", "-D", z->name, INTERVAL), NULL);
	h_diskio_wait_attached(&d, H_ATTACH_TIMEOUT_MS);
	fflush(NULL);
	pid = fork();
	cr_assert(pid >= 0, "fork: %s", strerror(errno));
	if (!pid) {
		void *buf;
		int fd = open(z->path, O_RDONLY | O_DIRECT);

		if (fd < 0 || posix_memalign(&buf, BS, BS))
			_exit(2);
		for (int n = 0; n < 3; n++) {
			if (prctl(PR_SET_NAME, names[n], 0, 0, 0))
				_exit(3);
			for (int i = 0; i < reads[n]; i++)
				if (pread(fd, buf, BS, (off_t)i * BS) != (ssize_t)BS)
					_exit(4);
		}
		close(fd);
		execlp("dd", "dd", if_arg, "of=/dev/null", "bs=4096", "count=16", "iflag=direct",
		       "status=none", (char *)NULL);
		_exit(5);
	}
	h_track_child(pid);
	h_expect_child_ok(pid, H_CHILD_TIMEOUT_MS);
	h_diskio_finish(&d, 2);
	h_expect_json_output(&d, 3);
	cr_expect_gt(h_json_sum_process(d.lines, d.nlines, pid, z->name, "dio-rn-a", &a), 0);
	cr_expect_gt(h_json_sum_process(d.lines, d.nlines, pid, z->name, "dio-rn-b", &b), 0);
	cr_expect_gt(h_json_sum_process(d.lines, d.nlines, pid, z->name, "dd", &dd), 0);
	cr_expect_eq(a.read_ios, 12, "dio-rn-a read_ios %" PRId64 ", expected 8 + 4", a.read_ios);
	cr_expect_eq(a.read_bytes, 12 * BS, "dio-rn-a read_bytes %" PRId64, a.read_bytes);
	cr_expect_eq(b.read_ios, 24, "dio-rn-b read_ios %" PRId64, b.read_ios);
	cr_expect_eq(b.read_bytes, 24 * BS, "dio-rn-b read_bytes %" PRId64, b.read_bytes);
	cr_expect_eq(dd.read_ios, 16, "dd read_ios %" PRId64, dd.read_ios);
	cr_expect_eq(dd.read_bytes, 16 * BS, "dd read_bytes %" PRId64, dd.read_bytes);
	h_diskio_free(&d);
}

/* 5. Batch lines keep 12 fields whatever the comm; names are escaped. */
Test(core, batch_fields_and_escaped_comm)
{
	static const char comm[] = "dio a\tb";
	static const char escaped[] = "dio\\x20a\\x09b";
	static const struct h_io ops[] = { { 'w', 0, BS, 64 }, { 'r', 0, BS, 32 } };
	const struct h_counters want = { .write_bytes = 64 * BS, .write_ios = 64,
					 .read_bytes = 32 * BS, .read_ios = 32 };
	const struct h_dev *z = h_zram_create(DEV_SIZE);
	struct h_counters sum = { 0 };
	struct h_diskio d;
	int data = 0, mine = 0, intervals = 0;
	pid_t pid;

	h_diskio_start(&d, H_ARGS("-b", INTERVAL), NULL);
	h_diskio_wait_attached(&d, H_ATTACH_TIMEOUT_MS);
	cr_expect(!strncmp(d.lines[0], "# time pid comm device ", 23),
		  "first batch line is not the column line: %.200s", d.lines[0]);
	pid = h_spawn_io(comm, z->path, ops, 2, NULL);
	h_expect_child_ok(pid, H_CHILD_TIMEOUT_MS);
	h_diskio_finish(&d, 2);

	for (size_t i = 0; i < d.nlines; i++) {
		const char *line = d.lines[i];
		char *f[H_BATCH_FIELDS + 1];
		struct h_batch_row row;
		int n;

		if (!strncmp(line, "# time=", 7))
			intervals++;
		if (line[0] == '#')
			continue;
		data++;
		n = h_split_fields(line, f, H_BATCH_FIELDS + 1);
		h_free_fields(f, n, H_BATCH_FIELDS + 1);
		cr_expect_eq(n, H_BATCH_FIELDS, "line %zu has %d fields, not %d: %s", i, n,
			     H_BATCH_FIELDS, line);
		if (n != H_BATCH_FIELDS)
			continue;
		cr_expect(h_batch_parse_row(line, &row), "line %zu: a counter is not an integer: %s",
			  i, line);
		cr_expect(strchr(line, '\t') == NULL, "line %zu has a raw tab: %s", i, line);
		if (row.pid != (uint32_t)pid)
			continue;
		mine++;
		cr_expect_str_eq(row.comm, escaped, "pid %d's comm printed as %s, expected %s",
				 (int)pid, row.comm, escaped);
		cr_expect_str_eq(row.device, z->name, "pid %d's device %s", (int)pid, row.device);
		h_counters_add(&sum, &row.c);
	}
	/* The column line marks attachment: the I/O may all fall in the first interval. */
	cr_expect_geq(intervals, 2, "only %d '# time=' interval lines", intervals);
	cr_expect_gt(data, 0, "no data lines at all");
	cr_expect_gt(mine, 0, "no line for pid %d", (int)pid);
	expect_counters("batch rows of the child (summed)", &sum, &want);
	h_diskio_free(&d);
}

/* ------------------------------------------------------------ lifecycle -- */

/* Whether a live process holds program id: one of another diskio (a
 * session's own, running beside the tests), not one ours left behind. */
static bool held_by_a_live_process(uint32_t id)
{
	DIR *proc = opendir("/proc");
	struct dirent *e;
	bool held = false;

	if (!proc)
		return false;
	while (!held && (e = readdir(proc))) {
		uint32_t ids[64];
		char *end;
		long pid = strtol(e->d_name, &end, 10);
		int n;

		if (*end || pid <= 0)
			continue;
		n = h_pid_bpf_prog_ids((pid_t)pid, ids, 64);
		for (int k = 0; k < n && !held; k++)
			held = ids[k] == id;
	}
	closedir(proc);
	return held;
}

/* 6. SIGINT: exit 0, and every BPF program diskio had is gone. */
Test(core, sigint_exits_0_and_unloads_programs)
{
	struct h_prog before[512], progs[512];
	uint32_t ids[64];
	int nbefore, nprogs, nids, named = 0, left = -1;
	struct h_diskio d;
	char why[64];
	int status;
	int64_t deadline;

	nbefore = h_bpftool_progs(before, 512);
	cr_assert_geq(nbefore, 0, "bpftool prog show failed");
	for (int i = 0; i < nbefore && i < 512; i++)
		if (h_is_diskio_prog_name(before[i].name))
			cr_log_info("before the test a program named %s (id %u) is loaded: "
				    "another diskio runs?", before[i].name, before[i].id);

	h_diskio_start(&d, H_ARGS("-b", INTERVAL), NULL);
	h_diskio_wait_attached(&d, H_ATTACH_TIMEOUT_MS);
	nids = h_pid_bpf_prog_ids(d.pid, ids, 64);
	cr_assert_gt(nids, 0, "diskio (pid %d) holds no BPF program descriptors", (int)d.pid);
	nprogs = h_bpftool_progs(progs, 512);
	for (int i = 0; i < nprogs && i < 512; i++)
		for (int k = 0; k < nids; k++)
			if (progs[i].id == ids[k]) {
				cr_expect(h_is_diskio_prog_name(progs[i].name),
					  "diskio holds program %u named '%s'", ids[k],
					  progs[i].name);
				named++;
			}
	cr_expect_eq(named, nids, "bpftool lists %d of diskio's %d programs", named, nids);

	status = h_diskio_stop(&d, SIGINT, H_EXIT_TIMEOUT_MS);
	if (!(status != -1 && WIFEXITED(status) && WEXITSTATUS(status) == 0))
		h_diskio_dump(&d, "SIGINT");
	cr_expect(status != -1 && WIFEXITED(status) && WEXITSTATUS(status) == 0,
		  "diskio after SIGINT: %s", h_status_str(status, why, sizeof(why)));

	/* Links and programs are freed after an RCU grace period: allow 3 s. */
	deadline = h_now_ms() + 3000;
	while (left) {
		left = 0;
		nprogs = h_bpftool_progs(progs, 512);
		cr_assert_geq(nprogs, 0, "bpftool prog show failed");
		for (int i = 0; i < nprogs && i < 512; i++) {
			bool old = false, ours = false;

			for (int k = 0; k < nids; k++)
				ours |= progs[i].id == ids[k];
			for (int k = 0; k < nbefore && k < 512; k++)
				old |= progs[i].id == before[k].id;
			if (ours || (h_is_diskio_prog_name(progs[i].name) && !old &&
				     !held_by_a_live_process(progs[i].id))) {
				left++;
				if (h_now_ms() >= deadline)
					cr_log_error("still loaded after diskio exited: id %u "
						     "name %s", progs[i].id, progs[i].name);
			}
		}
		if (!left || h_now_ms() >= deadline)
			break;
		h_sleep_ms(100);
	}
	cr_expect_eq(left, 0, "%d of diskio's BPF programs still loaded 3 s after it exited",
		     left);
	h_diskio_free(&d);
}

/* 7. A reader that goes away (diskio -b | head -1) ends diskio within 1 s, exit 0. */
Test(core, closed_stdout_ends_diskio)
{
	struct h_diskio d;
	const char *first;
	int64_t closed_at, elapsed;
	char why[64];

	h_diskio_start(&d, H_ARGS("-b", "0.2"), NULL);
	first = h_diskio_next_line(&d, H_ATTACH_TIMEOUT_MS);
	if (!first)
		h_diskio_dump(&d, "no first line");
	cr_assert(first, "diskio -b printed nothing");
	cr_expect(!strncmp(first, "# time pid comm ", 16), "first line: %.200s", first);
	h_diskio_close_stdout(&d);
	closed_at = h_now_ms();
	while (!d.exited && h_now_ms() - closed_at < 5000)
		h_diskio_pump(&d, 5);
	elapsed = h_now_ms() - closed_at;
	if (!d.exited)
		h_diskio_dump(&d, "still running");
	cr_assert(d.exited, "diskio still runs %" PRId64 " ms after its stdout was closed", elapsed);
	cr_expect_leq(elapsed, 1000, "diskio took %" PRId64 " ms to exit after the close", elapsed);
	cr_expect(WIFEXITED(d.status) && WEXITSTATUS(d.status) == 0,
		  "diskio after a closed stdout: %s", h_status_str(d.status, why, sizeof(why)));
	h_diskio_stop(&d, 0, 2000);	/* take in stderr */
	if (d.err[0])
		cr_log_info("diskio's stderr after the close: %s", d.err);
	h_diskio_free(&d);
}

/* ---------------------------------------------------------------- usage -- */

/* Run each bad command line; expect exit 2, nothing on stdout and stderr
 * starting with "diskio: ".  argv0: what the process is called (a shell
 * passes "diskio" when found in PATH, the path as typed otherwise). */
static void expect_bad_usage(const char *argv0)
{
	static const char *const cases[][4] = {
		{ "--bogus" }, { "0" }, { "-1" }, { "abc" }, { "1", "0" }, { "-p", "x" },
		{ "-s", "nope" }, { "1", "2", "3" }, { "-D", "nosuchdisk" },
		/* a well-formed MAJ:MIN of no block device */
		{ "-D", "99:99" }, { "-D", "4095:1048575", "1", "1" },
		/* modes that exclude each other, options of no effect */
		{ "--json", "-b" }, { "-T", "-a" }, { "-T", "-r", "5" }, { "-s", "latency" },
		{ "-T", "--by", "cgroup" }, { "-u", "no-such-user-diskio" }, { "-u", "" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *argv[6] = { argv0 };
		char cmd[PATH_MAX + 64], why[64];
		struct h_result r;

		snprintf(cmd, sizeof(cmd), "%s", argv0);
		for (int k = 0; k < 4 && cases[i][k]; k++) {
			argv[k + 1] = cases[i][k];
			strncat(cmd, " ", sizeof(cmd) - strlen(cmd) - 1);
			strncat(cmd, cases[i][k], sizeof(cmd) - strlen(cmd) - 1);
		}
		h_runx(h_diskio_path(), argv, NULL, NULL, 10000, &r);
		cr_expect(!r.timed_out && WIFEXITED(r.status) && WEXITSTATUS(r.status) == 2,
			  "`%s`: %s, expected exit 2 (stderr: %s)", cmd,
			  h_status_str(r.status, why, sizeof(why)), r.err);
		cr_expect_eq(r.out_len, 0, "`%s` printed on stdout: %.300s", cmd, r.out);
		cr_expect(!strncmp(r.err, "diskio: ", 8), "`%s`: stderr does not start with "
			  "\"diskio: \": %.300s", cmd, r.err);
		h_result_free(&r);
	}
}

/* 8a. Bad usage, run as `diskio ARGS` from PATH. */
Test(core, bad_usage_exits_2)
{
	expect_bad_usage("diskio");
}

/* 8a'. The same run by path (./diskio, /usr/sbin/diskio): errors still say "diskio: ". */
Test(core, bad_usage_by_path_says_diskio)
{
	expect_bad_usage(h_diskio_path());
}

/* 8b. Not root: exit 1, nothing on stdout, one "diskio: ..." line about root. */
/*
 * A copy of the binary that another user can run: a checkout under a home
 * directory (0700 on Debian 12) cannot be entered by uid 65534.  The copy
 * goes to a fresh 0755 directory in /dev/shm; *dir gets that directory.
 */
static void copy_for_other_users(char dir[64], char path[96])
{
	char command[512];

	snprintf(dir, 64, "/dev/shm/diskio-nonroot.XXXXXX");
	cr_assert_not_null(mkdtemp(dir), "mkdtemp: %s", strerror(errno));
	cr_assert_eq(chmod(dir, 0755), 0, "chmod %s: %s", dir, strerror(errno));
	snprintf(path, 96, "%s/diskio", dir);
	snprintf(command, sizeof(command), "install -m 0755 '%s' '%s'", h_diskio_path(), path);
	cr_assert_eq(system(command), 0, "%s failed", command);
}

Test(core, non_root_exits_1)
{
	const struct h_creds nobody = { 65534, 65534 };
	struct h_result r;
	char why[64], dir[64], path[96];
	const char *nl;

	copy_for_other_users(dir, path);
	h_run(H_ARGS(path, "1", "1"), NULL, &nobody, 10000, &r);
	unlink(path);
	rmdir(dir);
	cr_expect(!r.timed_out && WIFEXITED(r.status) && WEXITSTATUS(r.status) == 1,
		  "`diskio 1 1` as uid 65534: %s, expected exit 1 (stderr: %s)",
		  h_status_str(r.status, why, sizeof(why)), r.err);
	cr_expect_eq(r.out_len, 0, "printed on stdout: %.300s", r.out);
	cr_expect(!strncmp(r.err, "diskio: ", 8), "stderr does not start with \"diskio: \": %s",
		  r.err);
	nl = strchr(r.err, '\n');
	cr_expect(nl && nl[1] == '\0', "stderr is not exactly one line: %s", r.err);
	cr_expect(strstr(r.err, "root") != NULL, "stderr does not mention root: %s", r.err);
	h_result_free(&r);
}
