// SPDX-License-Identifier: GPL-2.0
/*
 * Issue 45: `diskio --diagnose`, on disks of known trouble.
 *  - an idle zram disk: nothing in trouble, exit 0, a sentence;
 *  - a reader held to 100 reads/s by cgroup v1's blkio throttle on a zram
 *    disk: `throttled`, the reader a waiter at 80 % or more, the disk's
 *    utilization low, the limit named from the group's files;
 *  - fio's O_DIRECT random writes at full speed on a loop device: `busy` or
 *    `saturated`, fio the first driver with 95 % of the bytes or more and
 *    its whole command line;
 *  - a writer past the end of a loop device's backing file on a full 8 MiB
 *    tmpfs: `failing`, ENOSPC, the disk's errors the writer's own count of
 *    failed writes, the exit status 6; the same from `--replay --diagnose`
 *    over what the run recorded;
 *  - 64 MiB of buffered writes to ext4 on a loop device, then syncfs(): the
 *    writer, not a flusher thread, is the first driver, with its file.
 * diskio starts first; the workload starts once the "start" record says
 * that counting began.
 */
#include "harness.h"

#include <fcntl.h>
#include <inttypes.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>

#define EXIT_TROUBLE	6
#define ZRAM_BYTES	(64ULL << 20)
#define READER_IOPS	100

/* ---- what a test changes, put back by undo() ---- */

static char dir_made[PATH_MAX];

static void undo(void)
{
	if (dir_made[0])
		h_remove_tree(dir_made);
	dir_made[0] = '\0';
}

static void teardown(void)
{
	h_cleanup();	/* children first: a group with tasks cannot go */
	undo();
	h_teardown();
}

TestSuite(diagnose, .init = h_setup, .fini = teardown, .timeout = 120);

/* ---- running diskio --diagnose ---- */

/* diskio with args, once counting has begun: its "start" record. */
static void start(struct h_diskio *d, const char *const args[])
{
	struct h_jv root, type;
	const char *line;

	h_diskio_start(d, args, NULL);
	line = h_diskio_next_line(d, H_ATTACH_TIMEOUT_MS);
	if (!line)
		h_diskio_dump(d, "no start record");
	cr_assert_not_null(line, "diskio --diagnose printed no start record");
	cr_assert(h_json_parse(line, &root) && h_json_get(root, "type", &type) &&
		  h_json_str_eq(type, "start"), "the first record is not the start: %s", line);
}

/* Its exit status once it ended by itself, and the diagnosis record. */
static int diagnosis(struct h_diskio *d, struct h_jv *record)
{
	int status = h_diskio_stop(d, 0, 60000);
	struct h_jv type;

	cr_assert(WIFEXITED(status), "diskio did not exit by itself (status %d)", status);
	cr_assert_geq(d->nlines, 1, "no diagnosis; stderr: %s", d->err);
	cr_assert(h_json_parse(d->lines[d->nlines - 1], record) &&
		  h_json_get(*record, "type", &type) && h_json_str_eq(type, "diagnosis"),
		  "the last record is not a diagnosis: %s", d->lines[d->nlines - 1]);
	return WEXITSTATUS(status);
}

static bool get_str(struct h_jv obj, const char *key, char *buf, size_t size)
{
	struct h_jv v;

	return h_json_get(obj, key, &v) && h_json_str(v, buf, size) >= 0;
}

/* The disk named name in the record's "disks"; false when not listed. */
static bool find_disk(struct h_jv record, const char *name, struct h_jv *disk)
{
	struct h_jv disks, device;
	size_t pos = 0;

	cr_assert(h_json_get(record, "disks", &disks));
	while (h_json_next_elem(disks, &pos, disk))
		if (h_json_get(*disk, "device", &device) && h_json_str_eq(device, name))
			return true;
	return false;
}

/* The process pid in a disk's list ("drivers", "waiters"). */
static bool find_proc(struct h_jv disk, const char *list, int64_t pid, struct h_jv *proc,
		      size_t *index)
{
	struct h_jv procs;
	size_t pos = 0;
	int64_t n;

	cr_assert(h_json_get(disk, list, &procs), "no %s", list);
	for (*index = 0; h_json_next_elem(procs, &pos, proc); (*index)++)
		if (h_json_get_int(*proc, "pid", &n) && n == pid)
			return true;
	return false;
}

/* The sum of an "errors" object's kinds, ENOSPC's in *enospc. */
static int64_t errors_of(struct h_jv obj, int64_t *enospc)
{
	struct h_jv errors, key, val;
	size_t pos = 0;
	int64_t sum = 0, n;

	*enospc = 0;
	cr_assert(h_json_get(obj, "errors", &errors));
	while (h_json_next_member(errors, &pos, &key, &val)) {
		cr_assert(h_json_int(val, &n) && n > 0, "a kind with no count");
		sum += n;
		if (h_json_str_eq(key, "ENOSPC"))
			*enospc = n;
	}
	return sum;
}

static void expect_state(struct h_jv disk, const char *a, const char *b, const char *line)
{
	char state[32] = "";

	get_str(disk, "state", state, sizeof(state));
	cr_assert(!strcmp(state, a) || (b && !strcmp(state, b)), "state %s, not %s%s%s: %s",
		  state, a, b ? " or " : "", b ? b : "", line);
}

/* ---- an idle disk ---- */

Test(diagnose, an_idle_disk_is_no_trouble)
{
	const struct h_dev *zram = h_zram_create(ZRAM_BYTES);
	struct h_diskio d;
	struct h_jv record, disk, v;
	char verdict[1024];

	start(&d, H_ARGS("--diagnose=1", "--json", "-D", zram->name));
	cr_assert_eq(diagnosis(&d, &record), 0, "exit status; stderr: %s", d.err);
	cr_assert(get_str(record, "verdict", verdict, sizeof(verdict)));
	cr_assert(!strncmp(verdict, "No disk is in trouble", 21), "%s", verdict);
	cr_assert_not(find_disk(record, zram->name, &disk), "an idle disk is listed");
	cr_assert(h_json_get(record, "trouble", &v) && v.len == 5, "trouble is not false");
	cr_assert_float_eq(h_json_get_number(record, "duration_s"), 1.0, 0.2);
	h_diskio_free(&d);

	/* the text: the sentence first */
	h_diskio_start(&d, H_ARGS("--diagnose=0.5", "-D", zram->name), NULL);
	cr_assert_eq(h_diskio_stop(&d, 0, 30000), 0, "stderr: %s", d.err);
	cr_assert_geq(d.nlines, 1);
	cr_assert(!strncmp(d.lines[0], "No disk is in trouble: no disk did I/O", 38), "%s",
		  d.lines[0]);
	h_diskio_free(&d);
}

/* ---- a throttled reader ---- */

/* A reader of dev in a new blkio group held to iops reads a second. */
static pid_t throttled_reader(const struct h_dev *dev, int iops, char *group, size_t size)
{
	const struct h_throttled_read r = {
		.dev = dev, .span = 4 << 20, .block = 4096, .iops = iops, .threads = 1,
		.comm = "diag-throttled",
	};

	return h_throttled_reader(&r, group, size);
}

Test(diagnose, a_throttled_reader_makes_its_disk_throttled)
{
	const struct h_dev *zram = h_zram_create(ZRAM_BYTES);
	struct h_jv record, disk, waiter;
	char group[PATH_MAX], limit[PATH_MAX + 128], want[PATH_MAX + 64], verdict[1024];
	struct h_diskio d;
	size_t index;
	pid_t reader;

	reader = throttled_reader(zram, READER_IOPS, group, sizeof(group));
	h_sleep_ms(300);
	start(&d, H_ARGS("--diagnose=3", "--json", "-D", zram->name));
	cr_assert_eq(diagnosis(&d, &record), EXIT_TROUBLE, "stderr: %s", d.err);
	cr_assert(find_disk(record, zram->name, &disk), "%s", d.lines[d.nlines - 1]);
	expect_state(disk, "throttled", NULL, d.lines[d.nlines - 1]);
	cr_assert_lt(h_json_get_number(disk, "util_pct"), 30.0);
	cr_assert(find_proc(disk, "waiters", reader, &waiter, &index), "the reader is no waiter: %s",
		  d.lines[d.nlines - 1]);
	cr_assert_eq(index, 0, "the reader is not the first waiter");
	cr_assert_geq(h_json_get_number(waiter, "iowait_pct"), 80.0, "%s", d.lines[d.nlines - 1]);
	cr_assert(get_str(disk, "limit", limit, sizeof(limit)), "no limit named: %s",
		  d.lines[d.nlines - 1]);
	snprintf(want, sizeof(want), "read_iops=%d (blkio.throttle of %s)", READER_IOPS, group);
	cr_assert_str_eq(limit, want);
	cr_assert(get_str(record, "verdict", verdict, sizeof(verdict)));
	cr_assert(strstr(verdict, " is throttled: diag-throttled (pid "), "%s", verdict);
	h_diskio_free(&d);
}

/* ---- fio at full speed ---- */

Test(diagnose, fio_at_full_speed_drives_a_busy_disk)
{
	const struct h_dev *loop = h_loop_create(256ULL << 20);
	struct h_jv record, disk, driver;
	char cmdline[4096], comm[32];
	struct h_diskio d;
	size_t index;
	pid_t fio;

	fio = h_start_fio(loop->path, H_ARGS("--name=diagnose", "--rw=randwrite", "--direct=1",
					     "--bs=4k", "--ioengine=libaio", "--iodepth=16",
					     "--time_based", "--runtime=60"));
	h_sleep_ms(500);
	start(&d, H_ARGS("--diagnose=3", "--json", "-D", loop->name));
	diagnosis(&d, &record);
	cr_assert(find_disk(record, loop->name, &disk), "%s", d.lines[d.nlines - 1]);
	expect_state(disk, "busy", "saturated", d.lines[d.nlines - 1]);
	cr_assert(find_proc(disk, "drivers", fio, &driver, &index), "fio is no driver: %s",
		  d.lines[d.nlines - 1]);
	cr_assert_eq(index, 0, "fio is not the first driver");
	cr_assert_geq(h_json_get_number(driver, "share_pct"), 95.0);
	cr_assert(get_str(driver, "comm", comm, sizeof(comm)) && !strcmp(comm, "fio"), "%s", comm);
	cr_assert(get_str(driver, "cmdline", cmdline, sizeof(cmdline)));
	cr_assert(strstr(cmdline, "fio --name=diagnose --rw=randwrite --direct=1") &&
		  strstr(cmdline, "--thread"), "not the whole command line: %s", cmdline);
	h_kill_child(fio);
	h_diskio_free(&d);
}

/* ---- a failing disk, live and replayed ---- */

#define WRITE_SIZE	65536
#define WRITES		256	/* 16 MiB at offsets 0.., on 8 MiB of tmpfs */

/* What a failing disk's record says: its errors, ENOSPC among them, the
 * writer's errors, and the writer's place among the drivers. */
static void expect_failing(struct h_jv record, const char *name, pid_t writer, uint32_t failed,
			   const char *line)
{
	struct h_jv disk, driver;
	int64_t disk_errors, disk_enospc, writer_errors, writer_enospc;
	char verdict[1024];
	size_t index;

	cr_assert(find_disk(record, name, &disk), "%s", line);
	expect_state(disk, "failing", NULL, line);
	disk_errors = errors_of(disk, &disk_enospc);
	cr_assert_eq(disk_errors, failed, "the disk's errors %" PRId64 ", the writer's failed "
		     "writes %u: %s", disk_errors, failed, line);
	cr_assert_gt(disk_enospc, 0, "%s", line);
	cr_assert(find_proc(disk, "drivers", writer, &driver, &index), "%s", line);
	writer_errors = errors_of(driver, &writer_enospc);
	cr_assert_eq(writer_errors, disk_errors, "%s", line);
	cr_assert_eq(writer_enospc, disk_enospc, "%s", line);
	cr_assert(get_str(record, "verdict", verdict, sizeof(verdict)));
	cr_assert(strstr(verdict, " is failing: ") && strstr(verdict, "ENOSPC") &&
		  strstr(verdict, "diag-writer (pid "), "%s", verdict);
}

Test(diagnose, writes_past_a_full_backing_file_fail_the_disk_live_and_replayed)
{
	const struct h_dev *tmp = h_tmpfs_mount("8m"), *loop;
	char backing[512], record_dir[PATH_MAX + 8], *live;
	struct h_jv record;
	struct h_diskio d;
	uint32_t failed = 0;
	pid_t writer;
	int count_fd;

	snprintf(backing, sizeof(backing), "%s/backing", tmp->path);
	loop = h_loop_attach(backing, 64ULL << 20, false);
	snprintf(dir_made, sizeof(dir_made), "/tmp/diskio-itest-diagnose-XXXXXX");
	cr_assert_not_null(mkdtemp(dir_made));
	snprintf(record_dir, sizeof(record_dir), "%s/rec", dir_made);

	start(&d, H_ARGS("--diagnose=3", "--json", "-D", loop->name, "--record", record_dir));
	writer = h_spawn_failing_writer("diag-writer", loop->path, WRITE_SIZE, WRITES, &count_fd);
	failed = h_failed_writes(count_fd);
	h_expect_child_ok(writer, H_CHILD_TIMEOUT_MS);
	cr_assert_gt(failed, 0, "no write failed: the tmpfs did not fill");
	cr_assert_eq(diagnosis(&d, &record), EXIT_TROUBLE, "stderr: %s", d.err);
	live = strdup(d.lines[d.nlines - 1]);
	cr_assert(h_json_parse(live, &record));
	expect_failing(record, loop->name, writer, failed, live);
	h_diskio_free(&d);

	/* the same window from the record */
	h_diskio_start(&d, H_ARGS("--replay", record_dir, "--diagnose", "--json"), NULL);
	cr_assert_eq(diagnosis(&d, &record), EXIT_TROUBLE, "stderr: %s", d.err);
	cr_assert_eq(d.nlines, 1, "a replayed diagnosis is one record: %s", d.lines[0]);
	expect_failing(record, loop->name, writer, failed, d.lines[0]);
	h_diskio_free(&d);
	free(live);
}

/* ---- buffered writes, then sync ---- */

Test(diagnose, a_buffered_writer_not_the_flusher_drives_the_disk)
{
	const struct h_dev *loop = h_loop_create(256ULL << 20), *fs = h_ext4_mount(loop);
	char path[PATH_MAX], file[PATH_MAX + 16];
	struct h_jv record, disk, driver, files, first;
	struct h_diskio d;
	size_t index, pos = 0;
	pid_t writer;

	snprintf(file, sizeof(file), "%s/big", fs->path);
	start(&d, H_ARGS("--diagnose=6", "--json", "--files", "-D", loop->name));
	fflush(NULL);
	writer = fork();
	cr_assert_geq(writer, 0);
	if (writer == 0) {
		static char buf[1 << 20];
		int fd;

		h__child_prepare(-1);
		prctl(PR_SET_NAME, "diag-buffered");
		memset(buf, 'b', sizeof(buf));
		fd = open(file, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		if (fd < 0)
			_exit(2);
		for (int i = 0; i < 64; i++)
			if (write(fd, buf, sizeof(buf)) != (ssize_t)sizeof(buf))
				_exit(3);
		if (syncfs(fd))
			_exit(4);
		_exit(0);
	}
	h_track_child(writer);
	h_expect_child_ok(writer, H_CHILD_TIMEOUT_MS);
	diagnosis(&d, &record);
	cr_assert(find_disk(record, loop->name, &disk), "%s", d.lines[d.nlines - 1]);
	cr_assert(find_proc(disk, "drivers", writer, &driver, &index), "the writer is no driver: %s",
		  d.lines[d.nlines - 1]);
	cr_assert_eq(index, 0, "the writer is not the first driver: %s", d.lines[d.nlines - 1]);
	cr_assert_geq(h_json_get_number(driver, "write_bytes"), 64 << 20);
	cr_assert(h_json_get(driver, "files", &files) && h_json_next_elem(files, &pos, &first),
		  "no files: %s", d.lines[d.nlines - 1]);
	cr_assert(get_str(first, "path", path, sizeof(path)));
	cr_assert_str_eq(path, file);
	cr_assert_geq(h_json_get_number(first, "bytes"), 64 << 20);
	h_diskio_free(&d);
}

/* ---- -- COMMAND ---- */

/* The write bytes of rows named comm on device over the interval records,
 * and the number of distinct pids among them. */
static int64_t written_by(const struct h_diskio *d, const char *comm, const char *device,
			  int *pids)
{
	int64_t sum = 0, seen[16];
	int nseen = 0;

	for (size_t i = 0; i < d->nlines; i++) {
		struct h_jv procs, row, v;
		size_t pos = 0;

		if (!h_json_is_interval(d->lines[i]) || !h_json_processes(d->lines[i], &procs))
			continue;
		while (h_json_next_elem(procs, &pos, &row)) {
			int64_t n, pid;
			bool known = false;

			if (!h_json_get(row, "comm", &v) || !h_json_str_eq(v, comm) ||
			    !h_json_get(row, "device", &v) || !h_json_str_eq(v, device))
				continue;
			cr_assert(h_json_get_int(row, "write_bytes", &n) &&
				  h_json_get_int(row, "pid", &pid));
			sum += n;
			for (int k = 0; k < nseen; k++)
				known |= seen[k] == pid;
			if (!known && nseen < 16)
				seen[nseen++] = pid;
		}
	}
	*pids = nseen;
	return sum;
}

/* The command's group is gone once diskio ended. */
static void expect_no_group(pid_t diskio)
{
	char mount[PATH_MAX], path[PATH_MAX + 64];

	if (!h_cgroup2_mount(mount, sizeof(mount)))
		return;
	snprintf(path, sizeof(path), "%s/diskio-command-%d", mount, (int)diskio);
	cr_assert_neq(access(path, F_OK), 0, "%s is left", path);
}

/* A writer of 64 KiB O_DIRECT to path, over and over until killed. */
static pid_t spawn_loop_writer(const char *comm, const char *path)
{
	pid_t pid;

	fflush(NULL);
	pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		void *buf;
		int fd;

		h__child_prepare(-1);
		prctl(PR_SET_NAME, comm);
		fd = open(path, O_WRONLY | O_DIRECT);
		if (fd < 0 || posix_memalign(&buf, 4096, 65536))
			_exit(2);
		memset(buf, 'w', 65536);
		for (;;) {
			if (pwrite(fd, buf, 65536, 48 << 20) != 65536)
				_exit(3);
			usleep(2000);
		}
	}
	h_track_child(pid);
	return pid;
}

Test(diagnose, a_command_and_its_children_are_counted_exactly_and_no_one_else)
{
	const struct h_dev *zram = h_zram_create(ZRAM_BYTES);
	char script[1024];
	struct h_diskio d;
	int64_t bytes;
	pid_t beside;
	int pids = 0;

	/* two dd's, children of the shell, 2 MiB each; and a writer beside them */
	snprintf(script, sizeof(script),
		 "dd if=/dev/zero of=%s bs=64k count=32 oflag=direct status=none && "
		 "dd if=/dev/zero of=%s bs=64k count=32 seek=64 oflag=direct status=none", zram->path,
		 zram->path);
	beside = spawn_loop_writer("diag-beside", zram->path);
	h_diskio_start(&d, H_ARGS("--json", "-D", zram->name, "--", "sh", "-c", script), NULL);
	cr_assert_eq(h_diskio_stop(&d, 0, 60000), 0, "stderr: %s", d.err);
	{
		siginfo_t info = { 0 };

		cr_assert_eq(waitid(P_PID, (id_t)beside, &info, WEXITED | WNOHANG | WNOWAIT), 0);
		cr_assert_eq(info.si_pid, 0, "the writer beside stopped writing (exit %d)",
			     info.si_status);
	}
	h_kill_child(beside);
	bytes = written_by(&d, "dd", zram->name, &pids);
	cr_assert_eq(bytes, 4 << 20, "dd wrote %" PRId64 " bytes", bytes);
	cr_assert_eq(pids, 2, "two dd processes");
	bytes = written_by(&d, "diag-beside", zram->name, &pids);
	cr_assert_eq(bytes, 0, "a process beside the command was counted: %" PRId64, bytes);
	cr_assert(h_json_is_summary(d.lines[d.nlines - 1]), "%s", d.lines[d.nlines - 1]);
	expect_no_group(d.pid);
	h_diskio_free(&d);
}

Test(diagnose, a_command_gives_diskio_its_exit_status)
{
	struct h_diskio d;
	int status;

	h_diskio_start(&d, H_ARGS("-b", "--", "sh", "-c", "exit 3"), NULL);
	status = h_diskio_stop(&d, 0, 30000);
	cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 3, "status %#x, stderr: %s", status,
		  d.err);
	h_diskio_free(&d);

	h_diskio_start(&d, H_ARGS("-b", "--", "sh", "-c", "kill -TERM $$"), NULL);
	status = h_diskio_stop(&d, 0, 30000);
	cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 128 + SIGTERM, "status %#x", status);
	h_diskio_free(&d);

	h_diskio_start(&d, H_ARGS("-b", "--", "/nonexistent/command"), NULL);
	status = h_diskio_stop(&d, 0, 30000);
	cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 127, "status %#x", status);
	cr_assert(strstr(d.err, "diskio: cannot run /nonexistent/command: No such file"), "%s",
		  d.err);
	cr_assert_eq(d.nlines, 0, "stdout: %s", d.nlines ? d.lines[0] : "");
	h_diskio_free(&d);
}

Test(diagnose, with_all_the_machine_is_counted_while_the_command_runs)
{
	const struct h_dev *zram = h_zram_create(ZRAM_BYTES);
	static const struct h_io ops[] = { { 'w', 0, 65536, 16 } };
	struct h_gate gate;
	struct h_diskio d;
	int64_t bytes;
	pid_t writer;
	int pids = 0;

	h_gate_init(&gate);
	writer = h_spawn_io("diag-machine", zram->path, ops, 1, &gate);
	/* frames every 0.5 s while the command sleeps: the first says that
	 * counting began; the writer beside it writes then */
	h_diskio_start(&d, H_ARGS("--json", "--all", "-D", zram->name, "0.5", "--", "sleep", "3"),
		       NULL);
	h_diskio_wait_attached(&d, H_ATTACH_TIMEOUT_MS);
	h_gate_open(&gate);
	h_expect_child_ok(writer, H_CHILD_TIMEOUT_MS);
	cr_assert_eq(h_diskio_stop(&d, 0, 60000), 0, "stderr: %s", d.err);
	bytes = written_by(&d, "diag-machine", zram->name, &pids);
	cr_assert_eq(bytes, 16 * 65536, "the writer beside the command: %" PRId64, bytes);
	h_diskio_free(&d);
}

Test(diagnose, a_diagnosis_of_a_command)
{
	const struct h_dev *zram = h_zram_create(ZRAM_BYTES);
	char of[256];
	struct h_jv record, disk, driver;
	struct h_diskio d;
	size_t index;

	snprintf(of, sizeof(of), "of=%s", zram->path);
	h_diskio_start(&d, H_ARGS("--diagnose", "--json", "-D", zram->name, "--", "dd",
				  "if=/dev/zero", of, "bs=64k", "count=64", "oflag=direct",
				  "status=none"), NULL);
	cr_assert_eq(diagnosis(&d, &record), 0, "dd's status; stderr: %s", d.err);
	cr_assert(find_disk(record, zram->name, &disk), "%s", d.lines[d.nlines - 1]);
	cr_assert(h_json_get(disk, "drivers", &driver));
	index = 0;
	cr_assert(h_json_next_elem(driver, &index, &driver), "no driver: %s", d.lines[d.nlines - 1]);
	{
		char comm[32];

		cr_assert(get_str(driver, "comm", comm, sizeof(comm)) && !strcmp(comm, "dd"), "%s",
			  comm);
	}
	cr_assert_eq(h_json_get_number(driver, "write_bytes"), 64 * 65536);
	cr_assert_eq(h_json_get_number(driver, "share_pct"), 100.0);
	h_diskio_free(&d);
}
