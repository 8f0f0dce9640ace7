// SPDX-License-Identifier: GPL-2.0
/*
 * Integration tests of diskio's charging of buffered writes, run as root
 * against the real kernel: a process that dirties page cache on an ext4 file
 * system (on a loop device over /dev/shm) and exits without syncing is
 * charged the writeback that `sync` and the flusher kworkers submit for it
 * ("dirtied_bytes", "writeback_bytes"); --submitter keeps the old charging;
 * per-device totals stay equal to /proc/diskstats; and the cgroup v2 view:
 * the "cgroup" of a row, the 15th batch field, --cgroup PATH (filtered in the
 * kernel), --by cgroup, and a --cgroup that does not exist.
 */
#include "harness.h"

#define MiB		(1024LL * 1024LL)
#define FS_SIZE		(256ULL << 20)
#define DEV_SIZE	(64ULL << 20)
#define INTERVAL	"0.5"
#define SYNC_TIMEOUT_MS	60000
#define MNT_PREFIX	"/tmp/diskio-wb."	/* + owner pid + ".XXXXXX" */
#define CG_PREFIX	"diskio-test-"		/* + owner pid, under the cgroup2 mount */

/* ============================================ what this file must undo == */

/*
 * The test mounts a file system on its loop device and creates a cgroup:
 * both must go before the harness detaches the device (h_cleanup()).  Undone
 * by wb_cleanup(), from the suite's .fini and from an atexit() handler
 * registered after the harness's own (so it runs first).
 */
static pid_t s_owner;
static char s_mnt[256];		/* the mount point we made ("" if none) */
static bool s_mounted;
static char s_cg[PATH_MAX];		/* the cgroup directory we made ("" if none) */
static pid_t s_kids[32];		/* children forked here (writers, dio-cg) */

static void remember_kid(pid_t pid)
{
	for (size_t i = 0; i < sizeof(s_kids) / sizeof(s_kids[0]); i++) {
		if (!s_kids[i]) {
			s_kids[i] = pid;
			return;
		}
	}
}

static bool pid_alive(pid_t pid)
{
	return pid > 0 && (kill(pid, 0) == 0 || errno != ESRCH);
}

/* rmdir a cgroup, retrying while it is still populated. */
static int undo_cgroup(const char *dir)
{
	for (int tries = 0; tries < 50; tries++) {
		if (!rmdir(dir) || errno == ENOENT)
			return 0;
		h_sleep_ms(50);
	}
	return -errno;
}

static void wb_cleanup(void)
{
	if (!s_owner || getpid() != s_owner)
		return;
	for (size_t i = 0; i < sizeof(s_kids) / sizeof(s_kids[0]); i++) {
		if (s_kids[i] && !waitpid(s_kids[i], NULL, WNOHANG))
			h_kill_child(s_kids[i]);
		s_kids[i] = 0;
	}
	if (s_mounted)
		h_unmount(s_mnt);
	else if (s_mnt[0])
		rmdir(s_mnt);
	s_mounted = false;
	s_mnt[0] = '\0';
	if (s_cg[0])
		undo_cgroup(s_cg);
	s_cg[0] = '\0';
}

/* Mounts and cgroups left by runs killed before their cleanup (a Criterion
 * timeout): each name carries its owner's pid. */
static void sweep_stale(void)
{
	char cgmnt[PATH_MAX], line[4096];
	FILE *f = fopen("/proc/mounts", "re");
	DIR *dir;
	struct dirent *e;

	while (f && fgets(line, sizeof(line), f)) {
		char dev[256], mnt[PATH_MAX];
		int owner;

		if (sscanf(line, "%255s %4095s", dev, mnt) == 2 &&
		    !strncmp(mnt, MNT_PREFIX, strlen(MNT_PREFIX)) &&
		    sscanf(mnt + strlen(MNT_PREFIX), "%d.", &owner) == 1 && !pid_alive(owner)) {
			cr_log_info("removing the stale mount %s", mnt);
			h_unmount(mnt);
		}
	}
	if (f)
		fclose(f);
	if (!h_cgroup2_mount(cgmnt, sizeof(cgmnt)) || !(dir = opendir(cgmnt)))
		return;
	while ((e = readdir(dir))) {
		char path[PATH_MAX + 300];
		int owner;

		if (sscanf(e->d_name, CG_PREFIX "%d", &owner) == 1 && !pid_alive(owner)) {
			snprintf(path, sizeof(path), "%s/%s", cgmnt, e->d_name);
			cr_log_info("removing the stale cgroup %s", path);
			rmdir(path);
		}
	}
	closedir(dir);
}

static void wb_init(void)
{
	h_setup();
	if (!s_owner) {
		s_owner = getpid();
		atexit(wb_cleanup);	/* runs before the harness's h_cleanup */
	}
	sweep_stale();
}

static void wb_fini(void)
{
	wb_cleanup();
	h_teardown();
}

TestSuite(writeback, .init = wb_init, .fini = wb_fini, .timeout = 150);

/* ============================================================ commands == */

/* Run a command, assert exit 0. */
static void run_ok(const char *const argv[], int timeout_ms)
{
	struct h_result r;
	char why[64], cmd[512] = "";

	for (size_t i = 0; argv[i]; i++) {
		strncat(cmd, argv[i], sizeof(cmd) - strlen(cmd) - 1);
		strncat(cmd, " ", sizeof(cmd) - strlen(cmd) - 1);
	}
	h_run(argv, NULL, NULL, timeout_ms, &r);
	if (r.timed_out || !WIFEXITED(r.status) || WEXITSTATUS(r.status) != 0) {
		cr_log_error("`%s`: %s%s, stdout: %s, stderr: %s", cmd,
			     h_status_str(r.status, why, sizeof(why)),
			     r.timed_out ? " (timed out)" : "", r.out, r.err);
		h_result_free(&r);
		cr_assert_fail("`%s` failed", cmd);
	}
	h_result_free(&r);
}

/*
 * A fresh ext4 on a new 256 MiB loop device, mounted on a fresh directory.
 * Inode tables and journal are zeroed by mkfs (no ext4lazyinit thread writing
 * in the background later), nothing is discarded, and everything is synced
 * before the test starts counting.
 */
static const struct h_dev *make_fs(void)
{
	const struct h_dev *dev;
	struct h_result r;

	if (!h_have_program("mkfs.ext4"))
		cr_skip_test("mkfs.ext4 not installed");
	dev = h_loop_create(FS_SIZE);
	run_ok(H_ARGS("mkfs.ext4", "-q", "-F", "-E",
		      "lazy_itable_init=0,lazy_journal_init=0,nodiscard", dev->path), 120000);
	h_udev_settle();
	snprintf(s_mnt, sizeof(s_mnt), MNT_PREFIX "%d.XXXXXX", (int)getpid());
	if (!mkdtemp(s_mnt)) {
		int err = errno;

		s_mnt[0] = '\0';
		cr_assert_fail("mkdtemp: %s", strerror(err));
	}
	/* No background reads of block bitmaps (ext4lazyinit) if the kernel
	 * knows the option (5.9+). */
	h_run(H_ARGS("mount", "-t", "ext4", "-o", "no_prefetch_block_bitmaps", dev->path, s_mnt),
	      NULL, NULL, 30000, &r);
	h_result_free(&r);
	if (r.status != 0)
		run_ok(H_ARGS("mount", "-t", "ext4", dev->path, s_mnt), 30000);
	s_mounted = true;
	run_ok(H_ARGS("sync"), SYNC_TIMEOUT_MS);
	h_udev_settle();
	cr_log_info("ext4 on %s mounted on %s", dev->path, s_mnt);
	return dev;
}

/* ===================================================== buffered writers == */

/* A child that writes bytes buffered (1 MiB write()s, no O_DIRECT, no sync)
 * to a new file, then reports its /proc/self/io write_bytes on a pipe. */
struct writer {
	const char *comm;
	char path[PATH_MAX];
	int64_t bytes;
	pid_t pid;
	int rfd;
	int64_t io_write_bytes;		/* what /proc/self/io said, after its writes */
};

static void writer_fail(int out_fd, const char *what)
{
	int err = errno;

	dprintf(out_fd, "error: %s: %s\n", what, strerror(err));
	_exit(1);
}

static void writer_main(const struct writer *w, int gate_fd, int out_fd)
{
	char io[4096], *at;
	long long io_write = -1;
	unsigned char *buf;
	int64_t done = 0;
	int fd;

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() == 1)
		_exit(99);
	for (int i = 3; i < 1024; i++)
		if (i != gate_fd && i != out_fd)
			close(i);
	if (prctl(PR_SET_NAME, w->comm, 0, 0, 0))
		writer_fail(out_fd, "prctl(PR_SET_NAME)");
	if (gate_fd >= 0) {
		char c;
		ssize_t n;

		while ((n = read(gate_fd, &c, 1)) < 0 && errno == EINTR)
			;
		if (n < 0)
			writer_fail(out_fd, "reading the gate");
		close(gate_fd);
	}
	buf = malloc(MiB);
	if (!buf)
		writer_fail(out_fd, "malloc");
	for (uint32_t i = 0, x = 0x9e3779b9U ^ (uint32_t)getpid(); i < MiB; i++) {
		x ^= x << 13;
		x ^= x >> 17;
		x ^= x << 5;
		buf[i] = (unsigned char)x;
	}
	fd = open(w->path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (fd < 0)
		writer_fail(out_fd, "open");
	while (done < w->bytes) {
		size_t off = (size_t)(done % MiB);
		size_t len = MiB - off;
		ssize_t n;

		if ((int64_t)len > w->bytes - done)
			len = (size_t)(w->bytes - done);
		n = write(fd, buf + off, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			writer_fail(out_fd, "write");
		done += n;
	}
	if (close(fd))
		writer_fail(out_fd, "close");
	/* No fsync, no sync: the page cache is written back by others. */
	if (h_read_file("/proc/self/io", io, sizeof(io)) <= 0)
		writer_fail(out_fd, "reading /proc/self/io");
	at = strstr(io, "\nwrite_bytes:");
	if (!at || sscanf(at + 13, "%lld", &io_write) != 1) {
		errno = EINVAL;
		writer_fail(out_fd, "no write_bytes in /proc/self/io");
	}
	dprintf(out_fd, "ok %lld\n", io_write);
	_exit(0);
}

static void spawn_writer(struct writer *w, const struct h_gate *gate)
{
	int fds[2];

	cr_assert(!pipe2(fds, O_CLOEXEC), "pipe: %s", strerror(errno));
	fflush(NULL);
	w->pid = fork();
	cr_assert(w->pid >= 0, "fork: %s", strerror(errno));
	if (!w->pid) {
		close(fds[0]);
		writer_main(w, gate ? gate->rfd : -1, fds[1]);
	}
	h_track_child(w->pid);
	remember_kid(w->pid);
	close(fds[1]);
	w->rfd = fds[0];
	w->io_write_bytes = -1;
}

/* Read the writer's report and reap it; assert that it went well. */
static void collect_writer(struct writer *w, int timeout_ms)
{
	int64_t deadline = h_now_ms() + timeout_ms;
	char buf[512], why[64];
	size_t len = 0;
	int status;
	long long v;

	while (len < sizeof(buf) - 1) {
		struct pollfd p = { w->rfd, POLLIN, 0 };
		int64_t left = deadline - h_now_ms();
		ssize_t n;

		if (left <= 0)
			break;
		if (poll(&p, 1, (int)left) <= 0)
			continue;
		n = read(w->rfd, buf + len, sizeof(buf) - 1 - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		len += n;
	}
	buf[len] = '\0';
	close(w->rfd);
	w->rfd = -1;
	if (h_wait_pid(w->pid, (int)(deadline - h_now_ms() > 0 ? deadline - h_now_ms() : 0),
		       &status)) {
		h_kill_child(w->pid);
		cr_assert_fail("writer %s (pid %d) did not finish within %d ms (it said: %s)",
			       w->comm, (int)w->pid, timeout_ms, buf);
	}
	cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0, "writer %s (pid %d): %s: %s",
		  w->comm, (int)w->pid, h_status_str(status, why, sizeof(why)), buf);
	cr_assert(sscanf(buf, "ok %lld", &v) == 1, "writer %s: unexpected report: %s", w->comm,
		  buf);
	w->io_write_bytes = v;
	cr_log_info("writer %s (pid %d) wrote %" PRId64 " bytes to %s; /proc/self/io "
		    "write_bytes %lld", w->comm, (int)w->pid, w->bytes, w->path, v);
}

/* ======================================================== JSON helpers == */

static bool jv_is_null(struct h_jv v)
{
	return v.len == 4 && !memcmp(v.p, "null", 4);
}

/* Every line is valid JSON: intervals, then one summary; nothing lost
 * unless a test fills the owners map on purpose. */
static void expect_json_output(const struct h_diskio *d)
{
	h_expect_json_output(d, 2);
	if (!getenv("DISKIO_OWNER_MAP_ENTRIES"))
		cr_expect_eq(h_json_sum_lost(d->lines, d->nlines), 0, "diskio lost events");
}

/* What a set of rows adds up to, over all interval lines. */
struct row_sum {
	int rows;
	int64_t write_bytes, dirtied_bytes, writeback_bytes;
	int missing;		/* rows without integer dirtied/writeback_bytes or a "cgroup" */
};

typedef bool (*row_pred)(struct h_jv row, const void *arg);

static void sum_rows(const struct h_diskio *d, row_pred pred, const void *arg,
		     struct row_sum *s)
{
	memset(s, 0, sizeof(*s));
	for (size_t i = 0; i < d->nlines; i++) {
		struct h_jv arr, row, cg;
		size_t pos = 0;

		if (!h_json_is_interval(d->lines[i]) || !h_json_processes(d->lines[i], &arr))
			continue;
		while (h_json_next_elem(arr, &pos, &row)) {
			int64_t wb = 0, dirtied = 0, writeback = 0;
			bool ok;

			if (!pred(row, arg))
				continue;
			s->rows++;
			h_json_get_int(row, "write_bytes", &wb);
			ok = h_json_get_int(row, "dirtied_bytes", &dirtied);
			ok &= h_json_get_int(row, "writeback_bytes", &writeback);
			ok &= h_json_get(row, "cgroup", &cg);
			if (!ok) {
				if (!s->missing)
					cr_log_error("row without dirtied_bytes, writeback_bytes or "
						     "cgroup: %.*s", (int)row.len, row.p);
				s->missing++;
			}
			s->write_bytes += wb;
			s->dirtied_bytes += dirtied;
			s->writeback_bytes += writeback;
		}
	}
}

/* Row selectors (NULL / -1: any). */
struct row_sel {
	int64_t pid;
	const char *device;
	const char *comm;
	const char *cgroup;	/* exactly this cgroup */
};

static bool row_str_is(struct h_jv row, const char *key, const char *want)
{
	struct h_jv v;

	return h_json_get(row, key, &v) && h_json_str_eq(v, want);
}

static bool row_matches(struct h_jv row, const void *arg)
{
	const struct row_sel *sel = arg;
	int64_t pid;

	if (sel->pid >= 0 && !(h_json_get_int(row, "pid", &pid) && pid == sel->pid))
		return false;
	if (sel->device && !row_str_is(row, "device", sel->device))
		return false;
	if (sel->comm && !row_str_is(row, "comm", sel->comm))
		return false;
	if (sel->cgroup && !row_str_is(row, "cgroup", sel->cgroup))
		return false;
	return true;
}

/* Rows of `sync` or a kworker on device arg. */
static bool row_is_sync_or_kworker(struct h_jv row, const void *device)
{
	struct h_jv v;
	char comm[64];

	if (!row_str_is(row, "device", device) || !h_json_get(row, "comm", &v) ||
	    h_json_str(v, comm, sizeof(comm)) < 0)
		return false;
	return !strcmp(comm, "sync") || !strncmp(comm, "kworker", 7);
}

static void log_rows(const struct h_diskio *d, const char *device)
{
	const struct row_sel sel = { .pid = -1, .device = device };

	for (size_t i = 0; i < d->nlines; i++) {
		struct h_jv arr, row;
		size_t pos = 0;

		if (!h_json_is_interval(d->lines[i]) || !h_json_processes(d->lines[i], &arr))
			continue;
		while (h_json_next_elem(arr, &pos, &row))
			if (row_matches(row, &sel))
				cr_log_info("row: %.*s", (int)row.len, row.p);
	}
}

/* The device's writes summed over the intervals == the diskstats delta. */
static void expect_device_write_equals_diskstats(const struct h_diskio *d, const char *dev,
						 const struct h_diskstats *delta)
{
	struct h_counters sum;

	cr_expect_gt(h_json_sum_device(d->lines, d->nlines, dev, &sum), 0,
		     "no \"devices\" entry for %s", dev);
	cr_expect_eq(sum.write_bytes, (int64_t)delta->write_sectors * 512,
		     "%s write_bytes: diskio %" PRId64 ", diskstats %" PRIu64 " sectors x 512 = %"
		     PRIu64, dev, sum.write_bytes, delta->write_sectors,
		     delta->write_sectors * 512);
	cr_expect_eq(sum.write_ios, (int64_t)delta->write_ios,
		     "%s write_ios: diskio %" PRId64 ", diskstats %" PRIu64, dev, sum.write_ios,
		     delta->write_ios);
}

/* ======================================================== the workload == */

/*
 * On the mounted ext4 of dev: /proc/diskstats, then `diskio --json
 * [--submitter] -D DEV 0.5`; once it is attached the writers are released
 * together, each writes its file and exits without syncing; then `sync`, two
 * more intervals, SIGINT, /proc/diskstats again.  (diskstats is read before
 * diskio starts: the file system is synced and idle then, so diskio sees every
 * I/O of the delta.)
 */
static void buffered_workload(const struct h_dev *dev, bool submitter, struct writer *ws,
			      int n, struct h_diskio *d, struct h_diskstats *delta)
{
	struct h_diskstats before, after;
	struct h_gate gate;

	for (int i = 0; i < n; i++)
		snprintf(ws[i].path, sizeof(ws[i].path), "%s/%s.dat", s_mnt, ws[i].comm);
	cr_assert(h_diskstats_read(dev->name, &before), "%s not in /proc/diskstats", dev->name);
	if (submitter)
		h_diskio_start(d, H_ARGS("--json", "--submitter", "-D", dev->name, INTERVAL), NULL);
	else
		h_diskio_start(d, H_ARGS("--json", "-D", dev->name, INTERVAL), NULL);
	h_diskio_wait_attached(d, H_ATTACH_TIMEOUT_MS);
	cr_log_info("diskio is pid %d", (int)d->pid);
	h_gate_init(&gate);
	for (int i = 0; i < n; i++)
		spawn_writer(&ws[i], &gate);
	h_gate_open(&gate);
	for (int i = 0; i < n; i++)
		collect_writer(&ws[i], H_CHILD_TIMEOUT_MS);
	h_gate_close(&gate);
	run_ok(H_ARGS("sync"), SYNC_TIMEOUT_MS);
	h_diskio_finish(d, 2);
	cr_assert(h_diskstats_read(dev->name, &after));
	*delta = h_diskstats_delta(&before, &after);
	cr_log_info("%s diskstats delta: write %" PRIu64 " ios %" PRIu64 " sectors (%" PRIu64
		    " bytes)", dev->name, delta->write_ios, delta->write_sectors,
		    delta->write_sectors * 512);
	log_rows(d, dev->name);
	expect_json_output(d);
}

/* The rows of writer w on dev, checked to carry w's comm and the new fields. */
static void writer_rows(const struct h_diskio *d, const struct writer *w, const char *dev,
			struct row_sum *s)
{
	const struct row_sel by_pid = { .pid = w->pid, .device = dev };
	const struct row_sel by_pid_comm = { .pid = w->pid, .device = dev, .comm = w->comm };
	struct row_sum named;

	sum_rows(d, row_matches, &by_pid, s);
	sum_rows(d, row_matches, &by_pid_comm, &named);
	cr_log_info("%s (pid %d) on %s: %d rows, write_bytes %" PRId64 ", dirtied_bytes %"
		    PRId64 ", writeback_bytes %" PRId64, w->comm, (int)w->pid, dev, s->rows,
		    s->write_bytes, s->dirtied_bytes, s->writeback_bytes);
	cr_expect_eq(s->missing, 0, "%d rows of %s lack \"dirtied_bytes\", \"writeback_bytes\" "
		     "or \"cgroup\"", s->missing, w->comm);
	cr_expect_eq(named.rows, s->rows, "%d of %d rows of pid %d on %s have comm \"%s\" "
		     "(writeback keeps the dirtier's comm)", named.rows, s->rows, (int)w->pid, dev,
		     w->comm);
}

/* ============================================================== tests == */

/* 1. One buffered writer, `sync` after it exited: the writeback is its. */
Test(writeback, buffered_writer_is_charged_its_writeback)
{
	const struct h_dev *dev = make_fs();
	struct writer w = { .comm = "bufwriter", .bytes = 40 * MiB };
	struct h_diskstats delta;
	struct row_sum s, others;
	struct h_diskio d;

	buffered_workload(dev, false, &w, 1, &d, &delta);
	writer_rows(&d, &w, dev->name, &s);
	cr_expect_gt(s.rows, 0, "no row for the writer (pid %d) on %s", (int)w.pid, dev->name);
	cr_expect_eq(s.dirtied_bytes, w.io_write_bytes, "writer's dirtied_bytes %" PRId64
		     ", its /proc/self/io write_bytes %" PRId64, s.dirtied_bytes, w.io_write_bytes);
	cr_expect(s.write_bytes >= 40 * MiB && s.write_bytes <= 41 * MiB,
		  "writer's write_bytes %" PRId64 ", expected 40 MiB (%lld) to 41 MiB (%lld)",
		  s.write_bytes, 40 * MiB, 41 * MiB);
	cr_expect_geq(s.writeback_bytes, 40 * MiB, "writer's writeback_bytes %" PRId64
		      ", expected at least 40 MiB (%lld): all of its data was written back by "
		      "others", s.writeback_bytes, 40 * MiB);
	cr_expect_leq(s.writeback_bytes, s.write_bytes, "writer's writeback_bytes %" PRId64
		      " > its write_bytes %" PRId64 " (writeback is part of write_bytes)",
		      s.writeback_bytes, s.write_bytes);

	sum_rows(&d, row_is_sync_or_kworker, dev->name, &others);
	cr_log_info("sync/kworker rows on %s: %d, write_bytes %" PRId64, dev->name, others.rows,
		    others.write_bytes);
	cr_expect_leq(others.write_bytes, 2 * MiB, "sync and kworker rows on %s keep %" PRId64
		      " bytes of writes (at most 2 MiB: only metadata stays theirs)", dev->name,
		      others.write_bytes);

	expect_device_write_equals_diskstats(&d, dev->name, &delta);
	h_diskio_free(&d);
}

/* 2. Two concurrent writers of different files: each gets its own writeback. */
Test(writeback, two_writers_each_get_their_own)
{
	const struct h_dev *dev = make_fs();
	struct writer ws[2] = {
		{ .comm = "writer_a", .bytes = 24 * MiB },
		{ .comm = "writer_b", .bytes = 16 * MiB },
	};
	struct h_diskstats delta;
	struct h_diskio d;

	buffered_workload(dev, false, ws, 2, &d, &delta);
	for (int i = 0; i < 2; i++) {
		struct row_sum s;
		int64_t diff;

		writer_rows(&d, &ws[i], dev->name, &s);
		cr_expect_gt(s.rows, 0, "no row for %s (pid %d) on %s", ws[i].comm,
			     (int)ws[i].pid, dev->name);
		diff = s.write_bytes - ws[i].bytes;
		cr_expect(diff >= -MiB && diff <= MiB, "%s's write_bytes %" PRId64 ", expected "
			  "within 1 MiB of the %" PRId64 " it wrote", ws[i].comm, s.write_bytes,
			  ws[i].bytes);
		cr_expect_eq(s.dirtied_bytes, ws[i].io_write_bytes, "%s's dirtied_bytes %" PRId64
			     ", its /proc/self/io write_bytes %" PRId64, ws[i].comm,
			     s.dirtied_bytes, ws[i].io_write_bytes);
	}
	expect_device_write_equals_diskstats(&d, dev->name, &delta);
	h_diskio_free(&d);
}

/* 3. --submitter: the same workload is charged to sync and the flushers. */
Test(writeback, submitter_view_keeps_the_old_charging)
{
	const struct h_dev *dev = make_fs();
	struct writer w = { .comm = "bufwriter", .bytes = 40 * MiB };
	struct row_sel by_pid = { .device = dev->name };
	struct h_diskstats delta;
	struct row_sum s, others;
	struct h_diskio d;

	buffered_workload(dev, true, &w, 1, &d, &delta);
	by_pid.pid = w.pid;
	sum_rows(&d, row_matches, &by_pid, &s);
	cr_log_info("writer (pid %d) under --submitter: %d rows, write_bytes %" PRId64,
		    (int)w.pid, s.rows, s.write_bytes);
	cr_expect_lt(s.write_bytes, MiB, "under --submitter the writer's write_bytes is %" PRId64
		     ", expected < 1 MiB (it submitted no writeback)", s.write_bytes);

	sum_rows(&d, row_is_sync_or_kworker, dev->name, &others);
	cr_log_info("sync/kworker rows on %s: %d, write_bytes %" PRId64, dev->name, others.rows,
		    others.write_bytes);
	cr_expect_geq(others.write_bytes, 40 * MiB, "under --submitter sync and kworker rows on "
		      "%s hold %" PRId64 " bytes of writes, expected at least 40 MiB (%lld)",
		      dev->name, others.write_bytes, 40 * MiB);

	expect_device_write_equals_diskstats(&d, dev->name, &delta);
	h_diskio_free(&d);
}

/* 3b. A full owner map: the second file's dirtier is not kept (counted as
 * owner_map_full), its writeback stays with the submitter, nothing is lost
 * from the disk's totals. */
Test(writeback, full_owner_map_leaves_writeback_with_the_submitter)
{
	const struct h_dev *dev = make_fs();
	struct writer ws[2] = {
		{ .comm = "writer_a", .bytes = 8 * MiB },
		{ .comm = "writer_b", .bytes = 8 * MiB },
	};
	struct h_diskstats delta;
	struct row_sum a, b, others;
	struct h_diskio d;
	int64_t lost;

	cr_assert_eq(setenv("DISKIO_OWNER_MAP_ENTRIES", "1", 1), 0);
	buffered_workload(dev, false, ws, 2, &d, &delta);
	unsetenv("DISKIO_OWNER_MAP_ENTRIES");
	writer_rows(&d, &ws[0], dev->name, &a);
	writer_rows(&d, &ws[1], dev->name, &b);
	sum_rows(&d, row_is_sync_or_kworker, dev->name, &others);
	lost = h_json_sum_lost(d.lines, d.nlines);
	cr_log_info("owner map of 1: writer_a %" PRId64 ", writer_b %" PRId64 ", sync/kworker %"
		    PRId64 " bytes written; lost %" PRId64, a.write_bytes, b.write_bytes,
		    others.write_bytes, lost);
	cr_expect_geq(lost, 1, "a full owner map must be counted as lost (owner_map_full)");
	for (size_t i = 0; i < d.nlines; i++) {
		struct h_jv root, v;
		int64_t full;

		if (h_json_is_interval(d.lines[i]) && h_json_parse(d.lines[i], &root) &&
		    h_json_get(root, "lost", &v) && h_json_get(v, "by_cause", &v) &&
		    h_json_get_int(v, "owner_map_full", &full))
			lost -= full;
	}
	cr_expect_eq(lost, 0, "every loss is owner_map_full (the rest: %" PRId64 ")", lost);
	cr_expect_eq(a.dirtied_bytes + b.dirtied_bytes,
		     ws[0].io_write_bytes + ws[1].io_write_bytes, "dirtied bytes are still exact");
	cr_expect(a.write_bytes < MiB || b.write_bytes < MiB, "one writer's writeback stays with "
		  "its submitter: writer_a %" PRId64 ", writer_b %" PRId64, a.write_bytes,
		  b.write_bytes);
	cr_expect_geq(a.write_bytes + b.write_bytes + others.write_bytes, 16 * MiB,
		      "the 16 MiB written are all charged to someone");
	expect_device_write_equals_diskstats(&d, dev->name, &delta);
	h_diskio_free(&d);
}

/* ------------------------------------------------------------- cgroups -- */

/*
 * Start diskio with args, wait until it is attached, fork "dio-cg" held at a
 * gate, move it into the test's cgroup (cg_dir, relative path cg_rel), check
 * that it is there, release it (1 MiB as 256 x 4 KiB O_DIRECT writes on dev),
 * reap it, two more intervals, SIGINT.  Returns the child's pid.
 */
static pid_t cgroup_run(struct h_diskio *d, const char *const args[], const struct h_dev *dev,
			const char *cg_dir, const char *cg_rel)
{
	static const struct h_io ops[] = { { 'w', 0, 4096, 256 } };
	char procs[PATH_MAX + 32], num[16], file[64], buf[4096], want[PATH_MAX + 8];
	struct h_gate gate;
	pid_t pid;
	int err;

	h_diskio_start(d, args, NULL);
	h_diskio_wait_attached(d, H_ATTACH_TIMEOUT_MS);
	h_gate_init(&gate);
	pid = h_spawn_io("dio-cg", dev->path, ops, 1, &gate);
	remember_kid(pid);
	snprintf(procs, sizeof(procs), "%s/cgroup.procs", cg_dir);
	snprintf(num, sizeof(num), "%d", (int)pid);
	err = h_write_file(procs, num);
	if (err) {
		h_kill_child(pid);
		h_gate_close(&gate);
		cr_assert_fail("writing %s to %s: %s", num, procs, strerror(-err));
	}
	snprintf(file, sizeof(file), "/proc/%d/cgroup", (int)pid);
	snprintf(want, sizeof(want), "0::%s\n", cg_rel);
	buf[0] = '\0';
	h_read_file(file, buf, sizeof(buf));
	if (!strstr(buf, want)) {
		h_kill_child(pid);
		h_gate_close(&gate);
		cr_assert_fail("the child is not in %s: %s says %s", cg_rel, file, buf);
	}
	h_gate_open(&gate);
	h_expect_child_ok(pid, H_CHILD_TIMEOUT_MS);
	h_gate_close(&gate);
	h_diskio_finish(d, 2);
	return pid;
}

/* Every row has cgroup prefix (a path) or a group below it. */
static bool row_in_cgroup_tree(struct h_jv row, const void *prefix)
{
	size_t len = strlen(prefix);
	char cg[PATH_MAX];
	struct h_jv v;

	return h_json_get(row, "cgroup", &v) && h_json_str(v, cg, sizeof(cg)) >= 0 &&
	       !strncmp(cg, prefix, len) && (cg[len] == '\0' || cg[len] == '/');
}

static bool row_pid_comm_null(struct h_jv row, const void *unused)
{
	struct h_jv pid, comm;

	(void)unused;
	return h_json_get(row, "pid", &pid) && jv_is_null(pid) && h_json_get(row, "comm", &comm) &&
	       jv_is_null(comm);
}

/* Log and count the rows that fail pred. */
static int count_rows_not(const struct h_diskio *d, row_pred pred, const void *arg,
			  int *total)
{
	int bad = 0;

	*total = 0;
	for (size_t i = 0; i < d->nlines; i++) {
		struct h_jv arr, row;
		size_t pos = 0;

		if (!h_json_is_interval(d->lines[i]) || !h_json_processes(d->lines[i], &arr))
			continue;
		while (h_json_next_elem(arr, &pos, &row)) {
			(*total)++;
			if (!pred(row, arg)) {
				if (bad < 10)
					cr_log_error("unexpected row: %.*s", (int)row.len, row.p);
				bad++;
			}
		}
	}
	return bad;
}

/* 4. A process in a new cgroup: its rows' "cgroup", the batch field,
 *    --cgroup and --by cgroup. */
Test(writeback, cgroup_rows_filter_and_fold)
{
	char mnt[1024], rel[64];
	const struct h_dev *dev;
	struct h_diskio d;
	struct row_sum s;
	pid_t pid;
	int total, bad, err;

	if (!h_cgroup2_mount(mnt, sizeof(mnt)))
		cr_skip_test("no cgroup2 hierarchy in /proc/mounts");
	snprintf(rel, sizeof(rel), "/" CG_PREFIX "%d", (int)getpid());
	snprintf(s_cg, sizeof(s_cg), "%s%s", mnt, rel);
	if (mkdir(s_cg, 0755) && errno != EEXIST) {
		err = errno;
		s_cg[0] = '\0';
		cr_assert_fail("mkdir %s%s: %s", mnt, rel, strerror(err));
	}
	cr_log_info("cgroup %s (%s under %s)", s_cg, rel, mnt);
	dev = h_loop_create(DEV_SIZE);

	/* a. --json: the child's rows name its cgroup. */
	{
		struct row_sel mine, mine_cg;
		struct row_sum in_cg;

		pid = cgroup_run(&d, H_ARGS("--json", "-D", dev->name, INTERVAL), dev, s_cg, rel);
		expect_json_output(&d);
		mine = (struct row_sel){ .pid = pid, .device = dev->name };
		mine_cg = (struct row_sel){ .pid = pid, .device = dev->name, .cgroup = rel };
		sum_rows(&d, row_matches, &mine, &s);
		sum_rows(&d, row_matches, &mine_cg, &in_cg);
		if (in_cg.rows != s.rows)
			log_rows(&d, dev->name);
		cr_expect_gt(s.rows, 0, "--json: no row for the child (pid %d) on %s", (int)pid,
			     dev->name);
		cr_expect_eq(s.missing, 0, "--json: %d rows lack the new fields", s.missing);
		cr_expect_eq(in_cg.rows, s.rows, "--json: %d of the child's %d rows have "
			     "\"cgroup\":\"%s\"", in_cg.rows, s.rows, rel);
		cr_expect_eq(s.write_bytes, MiB, "--json: the child's write_bytes %" PRId64
			     ", expected 1 MiB", s.write_bytes);
		h_diskio_free(&d);
	}

	/* b. -b: the 15th field of the child's lines is its cgroup. */
	{
		int data = 0, mine = 0, bad_fields = 0;
		int64_t written = 0;

		pid = cgroup_run(&d, H_ARGS("-b", "-D", dev->name, INTERVAL), dev, s_cg, rel);
		for (size_t i = 0; i < d.nlines; i++) {
			const char *line = d.lines[i];
			char *f[H_BATCH_FIELDS];
			int n;

			if (line[0] == '#')
				continue;
			data++;
			n = h_split_fields(line, f, H_BATCH_FIELDS);
			if (n != H_BATCH_FIELDS) {
				if (bad_fields++ < 5)
					cr_log_error("batch line %zu has %d fields, not %d: %s", i, n,
						     H_BATCH_FIELDS, line);
			} else if (atoi(f[1]) == (int)pid) {
				mine++;
				cr_expect_str_eq(f[14], rel, "-b: the child's line has cgroup %s, "
						 "expected %s: %s", f[14], rel, line);
				written += atoll(f[5]);
			}
			h_free_fields(f, n, H_BATCH_FIELDS);
		}
		cr_expect_eq(bad_fields, 0, "-b: %d of %d data lines do not have %d fields",
			     bad_fields, data, H_BATCH_FIELDS);
		cr_expect_gt(mine, 0, "-b: no line for the child (pid %d)", (int)pid);
		cr_expect_eq(written, MiB, "-b: the child's write_bytes (field 6) sum to %" PRId64
			     ", expected 1 MiB", written);
		h_diskio_free(&d);
	}

	/* c. --cgroup REL: only that group (and below) is shown. */
	{
		struct row_sel mine;

		pid = cgroup_run(&d, H_ARGS("--cgroup", rel, "--json", INTERVAL), dev, s_cg, rel);
		expect_json_output(&d);
		bad = count_rows_not(&d, row_in_cgroup_tree, rel, &total);
		cr_expect_eq(bad, 0, "--cgroup %s: %d of %d rows are of other cgroups", rel, bad,
			     total);
		mine = (struct row_sel){ .pid = pid };
		sum_rows(&d, row_matches, &mine, &s);
		cr_expect_gt(s.rows, 0, "--cgroup %s: no row for the child (pid %d)", rel, (int)pid);
		cr_expect_eq(s.write_bytes, MiB, "--cgroup %s: the child's write_bytes %" PRId64
			     ", expected 1 MiB", rel, s.write_bytes);
		h_diskio_free(&d);
	}

	/* d. --by cgroup: one row per (cgroup, device), pid and comm null. */
	{
		const struct row_sel cg_rows = { .pid = -1, .device = dev->name, .cgroup = rel };
		const struct row_sel dev_rows = { .pid = -1, .device = dev->name };
		struct row_sum all;
		struct h_counters dev_sum;

		cgroup_run(&d, H_ARGS("--by", "cgroup", "--json", "-D", dev->name, INTERVAL), dev,
			   s_cg, rel);
		expect_json_output(&d);
		bad = count_rows_not(&d, row_pid_comm_null, NULL, &total);
		cr_expect_eq(bad, 0, "--by cgroup: %d of %d rows do not have \"pid\":null and "
			     "\"comm\":null", bad, total);
		sum_rows(&d, row_matches, &cg_rows, &s);
		cr_expect_gt(s.rows, 0, "--by cgroup: no row with \"cgroup\":\"%s\" on %s", rel,
			     dev->name);
		cr_expect_eq(s.write_bytes, MiB, "--by cgroup: %s's write_bytes %" PRId64
			     ", expected 1 MiB (the child's per-process sum)", rel, s.write_bytes);
		/* Nothing else wrote the new device: the groups add up to its total. */
		sum_rows(&d, row_matches, &dev_rows, &all);
		h_json_sum_device(d.lines, d.nlines, dev->name, &dev_sum);
		cr_expect_eq(all.write_bytes, dev_sum.write_bytes, "--by cgroup: rows on %s sum to "
			     "%" PRId64 " write bytes, the device to %" PRId64, dev->name,
			     all.write_bytes, dev_sum.write_bytes);
		h_diskio_free(&d);
	}

	err = undo_cgroup(s_cg);
	cr_expect_eq(err, 0, "rmdir %s: %s", s_cg, strerror(-err));
	if (!err)
		s_cg[0] = '\0';
}

/* 5. A --cgroup that does not exist: usage error. */
Test(writeback, cgroup_that_does_not_exist_is_usage_error)
{
	const char *const argv[] = { "diskio", "--cgroup", "/no/such/group-xyz", "1", "1", NULL };
	struct h_result r;
	const char *nl;
	char why[64];

	h_runx(h_diskio_path(), argv, NULL, NULL, 20000, &r);
	cr_expect(!r.timed_out && WIFEXITED(r.status) && WEXITSTATUS(r.status) == 2,
		  "`diskio --cgroup /no/such/group-xyz 1 1`: %s, expected exit 2 (stderr: %s)",
		  h_status_str(r.status, why, sizeof(why)), r.err);
	cr_expect_eq(r.out_len, 0, "printed on stdout: %.300s", r.out);
	cr_expect(!strncmp(r.err, "diskio: ", 8), "stderr does not start with \"diskio: \": %s",
		  r.err);
	nl = strchr(r.err, '\n');
	cr_expect(nl && nl[1] == '\0', "stderr is not exactly one line: %s", r.err);
	h_result_free(&r);
}
