// SPDX-License-Identifier: GPL-2.0
/*
 * Integration tests of diskio's behaviour at the edges (root): exit codes for
 * broken output and signals, no hidden options, every dropped I/O counted
 * once, nothing spurious counted at attach, and no loss under process churn.
 * The oracle is /proc/diskstats of devices the tests create.
 */
#include "harness.h"

TestSuite(hardening, .init = h_setup, .fini = h_teardown, .timeout = 120);

#define DEV_SIZE	(64ULL << 20)
#define BLOCK		4096

/* Run diskio with args, its stdout set up by how (in the child). */
enum stdout_setup { STDOUT_CLOSED, STDOUT_DEV_FULL };

static int run_with_stdout(enum stdout_setup how, const char *const args[], char *err,
			   size_t err_size)
{
	int errpipe[2], status = -1;
	const char *argv[16] = { "diskio" };
	ssize_t got, len = 0;
	pid_t pid;

	for (int i = 0; args[i] && i < 14; i++)
		argv[i + 1] = args[i];
	cr_assert_eq(pipe(errpipe), 0);
	pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		h__child_prepare(errpipe[1]);
		dup2(errpipe[1], STDERR_FILENO);
		close(errpipe[1]);
		if (how == STDOUT_CLOSED) {
			close(STDOUT_FILENO);
		} else {
			int fd = open("/dev/full", O_WRONLY);

			dup2(fd, STDOUT_FILENO);
			close(fd);
		}
		execv(h_diskio_path(), (char *const *)argv);
		_exit(127);
	}
	h_track_child(pid);
	close(errpipe[1]);
	while (len + 1 < (ssize_t)err_size &&
	       (got = read(errpipe[0], err + len, err_size - 1 - len)) > 0)
		len += got;
	err[len] = '\0';
	h_drop_notes(err);
	close(errpipe[0]);
	cr_assert_eq(h_wait_pid(pid, 20000, &status), 0, "diskio did not exit");
	h_untrack_child(pid);
	return status;
}

/* stdout closed at start: fd 1 is /dev/null, not the next descriptor opened
 * (the epoll fd took it before), and the run ends normally. */
Test(hardening, stdout_closed_at_start_exits_0)
{
	char err[4096], why[64];
	int status = run_with_stdout(STDOUT_CLOSED, H_ARGS("-b", "0.2", "2"), err, sizeof(err));

	cr_expect(WIFEXITED(status) && WEXITSTATUS(status) == 0, "%s, stderr: %s",
		  h_status_str(status, why, sizeof(why)), err);
	cr_expect_str_empty(err, "stderr: %s", err);
}

/* A write error on stdout that is not a closed pipe: exit 1, one line. */
Test(hardening, stdout_dev_full_exits_1)
{
	char err[4096], why[64];
	int status = run_with_stdout(STDOUT_DEV_FULL, H_ARGS("-b", "0.2", "2"), err, sizeof(err));

	cr_expect(WIFEXITED(status) && WEXITSTATUS(status) == 1, "%s, stderr: %s",
		  h_status_str(status, why, sizeof(why)), err);
	cr_expect(!strncmp(err, "diskio: writing output failed", 29), "stderr: %s", err);
	cr_expect_eq(strchr(err, '\n'), err + strlen(err) - 1, "one line: %s", err);
}

/* SIGHUP (the terminal went away) ends diskio like SIGTERM: exit 0, the
 * summary printed, the crash state saved. */
Test(hardening, sighup_exits_0_with_summary_and_state)
{
	char dir[] = "/dev/shm/diskio-hup-XXXXXX", state[128], text[4096], why[64];
	struct h_diskio d;
	int status;

	cr_assert(mkdtemp(dir));
	snprintf(state, sizeof(state), "%s/crash.state", dir);
	h_diskio_start(&d, H_ARGS("--json", "--state", state, "0.3"), NULL);
	h_diskio_wait_attached(&d, H_ATTACH_TIMEOUT_MS);
	status = h_diskio_stop(&d, SIGHUP, H_EXIT_TIMEOUT_MS);
	cr_expect(status >= 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0, "%s, stderr: %s",
		  h_status_str(status, why, sizeof(why)), d.err);
	cr_assert_gt(d.nlines, 0);
	cr_expect(h_json_is_summary(d.lines[d.nlines - 1]), "last line: %.300s",
		  d.lines[d.nlines - 1]);
	cr_expect_gt(h_read_file(state, text, sizeof(text)), 0, "no state file %s", state);
	cr_expect(!strncmp(text, "diskio-crashfree ", 17), "state file: %.100s", text);
	h_diskio_free(&d);
	unlink(state);
	rmdir(dir);
}

/* glibc argp's hidden options are not options of diskio. */
Test(hardening, argp_hidden_options_exit_2_at_once)
{
	static const char *const cases[] = { "--HANG", "--HANG=1", "--program-name=EVIL" };

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct h_result r;
		char why[64];
		int64_t start = h_now_ms();

		h_run(H_ARGS(h_diskio_path(), cases[i], "1", "1"), NULL, NULL, 5000, &r);
		cr_expect(!r.timed_out && WIFEXITED(r.status) && WEXITSTATUS(r.status) == 2,
			  "%s: %s", cases[i], h_status_str(r.status, why, sizeof(why)));
		cr_expect_lt(h_now_ms() - start, 2000, "%s took %" PRId64 " ms", cases[i],
			     h_now_ms() - start);
		cr_expect(!strncmp(r.err, "diskio: ", 8), "%s: stderr %s", cases[i], r.err);
		cr_expect_null(strstr(r.err, "Try `EVIL"), "%s: stderr %s", cases[i], r.err);
		h_result_free(&r);
	}
}

/* ------------------------------------------------------------ losses -- */

/* The lost object of a JSON interval line: the total and one cause. */
static void lost_of(const char *line, int64_t *events, int64_t *stats_map_full)
{
	struct h_jv root, lost, by_cause;

	*events = *stats_map_full = -1;
	if (!h_json_parse(line, &root) || !h_json_get(root, "lost", &lost))
		return;
	h_json_get_int(lost, "events", events);
	if (h_json_get(lost, "by_cause", &by_cause))
		h_json_get_int(by_cause, "stats_map_full", stats_map_full);
}

/*
 * With room for two rows only, n readers of known I/O: each I/O is either in
 * a row or lost once as stats_map_full, so rows + lost == /proc/diskstats.
 */
static void tiny_stats_map(const struct h_dev *dev, bool latency)
{
	static const char *const env[] = { "DISKIO_STATS_MAP_ENTRIES=2", NULL };
	enum { READERS = 12, READS = 50 };
	static const struct h_io ops[] = { { 'r', 0, BLOCK, READS } };
	struct h_diskstats before, after, delta;
	struct h_counters rows = { 0 };
	int64_t lost = 0, by_cause = 0;
	struct h_gate gate;
	pid_t pids[READERS];
	struct h_diskio d;

	h_gate_init(&gate);
	for (int i = 0; i < READERS; i++) {
		char comm[16];

		snprintf(comm, sizeof(comm), "tiny-%d", i);
		pids[i] = h_spawn_io(comm, dev->path, ops, 1, &gate);
	}
	cr_assert(h_diskstats_read(dev->name, &before));
	if (latency)
		h_diskio_start(&d, H_ARGS("--json", "-L", "-D", dev->name, "0.5"), env);
	else
		h_diskio_start(&d, H_ARGS("--json", "-D", dev->name, "0.5"), env);
	h_diskio_wait_attached(&d, H_ATTACH_TIMEOUT_MS);
	h_gate_open(&gate);
	for (int i = 0; i < READERS; i++)
		h_expect_child_ok(pids[i], H_CHILD_TIMEOUT_MS);
	h_diskio_finish(&d, 2);
	cr_assert(h_diskstats_read(dev->name, &after));
	delta = h_diskstats_delta(&before, &after);

	h_json_sum_process(d.lines, d.nlines, 0, dev->name, NULL, &rows);
	for (size_t i = 0; i < d.nlines; i++) {
		int64_t events, full;

		if (!h_json_is_interval(d.lines[i]))
			continue;
		lost_of(d.lines[i], &events, &full);
		cr_assert_geq(events, 0, "no lost.events: %.300s", d.lines[i]);
		lost += events;
		by_cause += full;
	}
	cr_log_info("%s%s: rows %" PRId64 " reads, lost %" PRId64 ", diskstats %" PRIu64,
		    dev->name, latency ? " -L" : "", rows.read_ios, lost, delta.read_ios);
	cr_expect_eq(delta.read_ios, (uint64_t)READERS * READS, "diskstats read I/Os");
	cr_expect_gt(lost, 0, "two rows cannot hold %d readers", READERS);
	cr_expect_eq(by_cause, lost, "every loss is stats_map_full");
	cr_expect_eq(rows.read_ios + lost, (int64_t)delta.read_ios,
		     "rows %" PRId64 " + lost %" PRId64 " != diskstats %" PRIu64, rows.read_ios,
		     lost, delta.read_ios);
	cr_expect_eq(rows.read_bytes, rows.read_ios * BLOCK, "bytes of the rows' I/Os");
	h_gate_close(&gate);
	h_diskio_free(&d);
}

Test(hardening, tiny_stats_map_zram_each_drop_counted_once)
{
	tiny_stats_map(h_zram_create(DEV_SIZE), false);
}

Test(hardening, tiny_stats_map_zram_latency_each_drop_counted_once)
{
	tiny_stats_map(h_zram_create(DEV_SIZE), true);
}

Test(hardening, tiny_stats_map_loop_each_drop_counted_once)
{
	tiny_stats_map(h_loop_create(DEV_SIZE), false);
}

Test(hardening, tiny_stats_map_loop_latency_each_drop_counted_once)
{
	tiny_stats_map(h_loop_create(DEV_SIZE), true);
}

/*
 * Room for two rows in the per-CPU rows and two in the shared map behind
 * them, and groups of three readers, each group gone before the next
 * starts: a forgotten row gives its room back (its slot of the per-CPU
 * rows, an interval after its key was deleted), so that nothing is lost
 * however many processes come and go, and each reader's row is exact.
 * Were the slots not given back, the second group would find two rows of
 * room for three readers.
 */
Test(hardening, forgotten_rows_give_their_room_back)
{
	static const char *const env[] = { "DISKIO_STATS_MAP_ENTRIES=2", NULL };
	enum { GROUPS = 4, GROUP = 3, READERS = GROUPS * GROUP, READS = 50 };
	static const struct h_io ops[] = { { 'r', 0, BLOCK, READS } };
	const struct h_dev *dev = h_zram_create(DEV_SIZE);
	pid_t pids[READERS];
	struct h_diskio d;

	h_diskio_start(&d, H_ARGS("--json", "-D", dev->name, "0.2"), env);
	h_diskio_wait_attached(&d, H_ATTACH_TIMEOUT_MS);
	for (int g = 0; g < GROUPS; g++) {
		for (int i = g * GROUP; i < (g + 1) * GROUP; i++) {
			char comm[16];

			snprintf(comm, sizeof(comm), "group%d-%d", g, i);
			pids[i] = h_spawn_io(comm, dev->path, ops, 1, NULL);
			h_expect_child_ok(pids[i], H_CHILD_TIMEOUT_MS);
		}
		/* Forgotten after two idle intervals, their slots back one later. */
		h_sleep_ms(1200);
	}
	h_diskio_finish(&d, 2);
	for (int i = 0; i < READERS; i++) {
		struct h_counters rows = { 0 };

		h_json_sum_process(d.lines, d.nlines, (uint32_t)pids[i], dev->name, NULL, &rows);
		cr_expect_eq(rows.read_ios, READS, "reader %d: %" PRId64 " reads", i, rows.read_ios);
		cr_expect_eq(rows.read_bytes, (int64_t)READS * BLOCK, "reader %d's bytes", i);
	}
	for (size_t i = 0; i < d.nlines; i++) {
		int64_t events, full;

		if (!h_json_is_interval(d.lines[i]))
			continue;
		lost_of(d.lines[i], &events, &full);
		cr_expect_eq(events, 0, "lost: %.300s", d.lines[i]);
		/* No I/O failed: a row of the shared map has no errors either
		 * (left unset they were garbage, and the row counted twice) */
		{
			struct h_jv procs, row, errors, key, val;
			size_t pos = 0, member;

			cr_assert(h_json_processes(d.lines[i], &procs));
			while (h_json_next_elem(procs, &pos, &row)) {
				member = 0;
				cr_assert(h_json_get(row, "errors", &errors));
				cr_expect_not(h_json_next_member(errors, &member, &key, &val),
					      "errors where none failed: %.300s", d.lines[i]);
			}
		}
	}
	h_diskio_free(&d);
}

/* fio keeps 32 reads in flight on dev until killed. */
static pid_t start_fio(const struct h_dev *dev)
{
	return h_start_fio(dev->path, H_ARGS("--name=load", "--rw=randread", "--bs=4k",
					     "--direct=1", "--ioengine=libaio", "--iodepth=32",
					     "--time_based", "--runtime=60"));
}

/*
 * I/Os in flight while diskio attaches are not losses: with -L under load,
 * nothing is lost in any interval, 5 runs in a row (diskio 0.1 lost 0 to
 * 1627 in the first interval here).  On zram: on loop devices under fio,
 * Linux 6.18 shows bursts of completion_unseen of a whole queue depth (32)
 * a few times a minute, with no BPF recursion miss reported; their cause
 * is not established, and they are counted, not hidden.
 */
Test(hardening, latency_under_load_loses_nothing_at_attach)
{
	const struct h_dev *dev = h_zram_create(DEV_SIZE);
	pid_t fio;

	if (!h_have_program("fio"))
		cr_skip_test("fio is not installed");
	fio = start_fio(dev);
	h_sleep_ms(1000);
	for (int run = 0; run < 5; run++) {
		struct h_diskio d;
		int intervals = 0;

		h_diskio_start(&d, H_ARGS("--json", "-L", "-D", dev->name, "0.5"), NULL);
		h_diskio_wait_attached(&d, H_ATTACH_TIMEOUT_MS);
		h_diskio_finish(&d, 2);
		for (size_t i = 0; i < d.nlines; i++) {
			int64_t events, full;
			struct h_counters rows = { 0 };

			if (!h_json_is_interval(d.lines[i]))
				continue;
			lost_of(d.lines[i], &events, &full);
			h_json_sum_process(&d.lines[i], 1, 0, dev->name, NULL, &rows);
			cr_expect_eq(events, 0, "run %d interval %d: %" PRId64 " lost: %.400s", run,
				     intervals, events, d.lines[i]);
			/* The partial last one may end a moment after the one before. */
			if (!strstr(d.lines[i], "\"partial\":true"))
				cr_expect_gt(rows.read_ios, 0, "run %d interval %d: no load seen", run,
					     intervals);
			intervals++;
		}
		cr_expect_geq(intervals, 2, "run %d", run);
		h_diskio_free(&d);
	}
	h_kill_child(fio);
	h_untrack_child(fio);
}

/* ------------------------------------------------------------- churn -- */

/* A process that reads one block at offset and exits 0, or 1 if the read
 * fails.  vfork: a fork of the test process is 5 times slower, too slow for
 * the churn wanted; the child only reads and exits. */
static pid_t start_reader(int fd, void *buf, off_t offset)
{
	pid_t pid = vfork();

	if (pid == 0)
		_exit(pread(fd, buf, BLOCK, offset) == BLOCK ? 0 : 1);
	return pid;
}

/*
 * 40,000 processes, each reading one 4 KiB block with O_DIRECT and exiting,
 * within a few seconds: every read is in a row, none lost (the rows of
 * exited processes outnumber the per-CPU map; the overflow map takes them).
 */
Test(hardening, churn_of_40000_readers_loses_nothing)
{
	enum { READERS = 40000, UNREAPED = 64 };
	pid_t readers[UNREAPED];
	const struct h_dev *dev = h_zram_create(DEV_SIZE);
	struct h_diskstats before, after, delta;
	struct h_counters rows = { 0 }, device = { 0 };
	int64_t started, took;
	struct h_diskio d;
	void *buf;
	int fd;

	cr_assert_eq(posix_memalign(&buf, BLOCK, BLOCK), 0);
	fd = open(dev->path, O_RDONLY | O_DIRECT);
	cr_assert_geq(fd, 0, "open %s: %s", dev->path, strerror(errno));
	cr_assert(h_diskstats_read(dev->name, &before));
	h_diskio_start(&d, H_ARGS("--json", "-D", dev->name, "1"), NULL);
	h_diskio_wait_attached(&d, H_ATTACH_TIMEOUT_MS);
	started = h_now_ms();
	for (int i = 0; i < READERS + UNREAPED; i++) {
		pid_t *pid = &readers[i % UNREAPED];
		int status;

		if (i >= UNREAPED) {	/* reap the reader started UNREAPED ago */
			cr_assert_eq(waitpid(*pid, &status, 0), *pid);
			cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
		}
		if (i >= READERS)
			continue;
		*pid = start_reader(fd, buf, (off_t)(i % 1024) * BLOCK);
		cr_assert_geq(*pid, 0, "vfork %d: %s", i, strerror(errno));
		if (i % 256 == 0)
			h_diskio_pump(&d, 0);
	}
	took = h_now_ms() - started;
	close(fd);
	free(buf);
	h_diskio_finish(&d, 2);
	cr_assert(h_diskstats_read(dev->name, &after));
	delta = h_diskstats_delta(&before, &after);

	h_json_sum_process(d.lines, d.nlines, 0, dev->name, NULL, &rows);
	h_json_sum_device(d.lines, d.nlines, dev->name, &device);
	cr_log_info("%d readers in %" PRId64 " ms: rows %" PRId64 " reads, device %" PRId64
		    ", diskstats %" PRIu64 ", lost %" PRId64, READERS, took, rows.read_ios,
		    device.read_ios, delta.read_ios, h_json_sum_lost(d.lines, d.nlines));
	cr_expect_eq(delta.read_ios, READERS, "diskstats read I/Os");
	cr_expect_eq(h_json_sum_lost(d.lines, d.nlines), 0, "lost");
	cr_expect_eq(rows.read_ios, (int64_t)delta.read_ios, "rows' reads");
	cr_expect_eq(rows.read_bytes, (int64_t)delta.read_ios * BLOCK, "rows' read bytes");
	cr_expect_eq(device.read_ios, (int64_t)delta.read_ios, "device reads");
	h_diskio_free(&d);
}
