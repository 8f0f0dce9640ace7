// SPDX-License-Identifier: GPL-2.0
/*
 * Who waits (iotop's IO> and SWAPIN), against known waits:
 *  - a reader held to 100 reads/s by cgroup v1's blkio throttle on a zram
 *    disk (bio-based: the throttle holds its bios all the same) spends
 *    nearly all its time waiting: IO> >= 80% in every full interval, with
 *    delay accounting off (diskio's sched_switch measure) and on (the
 *    kernel's), beside a reader of the same disk that never sleeps (zram
 *    completes its bios at once): 0%;
 *  - with delay accounting on, IO> times the interval, summed, is the
 *    kernel's own delayacct_blkio_ticks (/proc/PID/stat field 42) of a
 *    reader that exits before the end, within 10%;
 *  - a process blocked behind another's throttled read of a page (it waits
 *    for the page lock, issuing no I/O) shows on a row of no disk;
 *  - a process that pages its own memory out to a zram swap device
 *    (MADV_PAGEOUT) and touches it again, swapping in, shows SWAPIN > 1%
 *    with delay accounting on; null, and the note on stderr, with it off.
 * kernel.task_delayacct, the swap device and the cgroups are put back as
 * they were at the end, failed assertion or not.
 */
#include "harness.h"
#include <math.h>
#include <sched.h>
#include <sys/mman.h>

#define DELAYACCT_SYSCTL	"/proc/sys/kernel/task_delayacct"
#define NOTE_SWAPIN_OFF		"diskio: note: delay accounting is off: SWAPIN is not known"
#define ZRAM_BYTES		(64ULL << 20)
#define READER_IOPS		100

/* ---- what a test changes, put back by undo() ---- */

static pid_t children[8];
static int nchildren;
static int delayacct_before = -1;	/* -1: not changed */
static char swap_on[64];		/* the swap device a test turned on */

static void undo(void)
{
	for (int i = 0; i < nchildren; i++)
		h_kill_child(children[i]);
	nchildren = 0;
	if (swap_on[0]) {
		struct h_result r;

		h_run(H_ARGS("swapoff", swap_on), NULL, NULL, 60000, &r);
		h_result_free(&r);
		swap_on[0] = '\0';
	}
	if (delayacct_before >= 0)
		h_write_file(DELAYACCT_SYSCTL, delayacct_before ? "1" : "0");
	delayacct_before = -1;
}

static void teardown(void)
{
	undo();
	h_teardown();
}

TestSuite(iowait, .init = h_setup, .fini = teardown, .timeout = 120);

/* kernel.task_delayacct as it is; -1 when this kernel has none. */
static int delayacct_now(void)
{
	char buf[8];

	if (h_read_file(DELAYACCT_SYSCTL, buf, sizeof(buf)) <= 0)
		return -1;
	return buf[0] == '1';
}

/* Delay accounting on or off for this test, put back by undo(). */
static void set_delayacct(bool on)
{
	int now = delayacct_now();

	if (now < 0)
		cr_skip_test("no %s: this kernel has no delay accounting", DELAYACCT_SYSCTL);
	if (now == on)
		return;
	if (delayacct_before < 0)
		delayacct_before = now;
	cr_assert_eq(h_write_file(DELAYACCT_SYSCTL, on ? "1" : "0"), 0);
}

/* A blkio group whose tasks read dev at most iops I/Os a second: the
 * harness's, which h_cleanup() removes once undo() killed its tasks. */
static const char *throttled_cgroup(const struct h_dev *dev, int iops)
{
	static char group[PATH_MAX];

	h_throttle_group(dev, iops, group, sizeof(group));
	return group;
}

/* ---- children ---- */

/* A forked child: dies with the test, keeps only the descriptors asked
 * for, is named comm and joins cgroup (NULL: stays). */
static pid_t fork_child(const char *comm, const char *cgroup, const int *keep, int nkeep)
{
	pid_t pid;

	fflush(NULL);
	pid = fork();
	cr_assert_geq(pid, 0, "fork: %s", strerror(errno));
	if (pid) {
		cr_assert_lt(nchildren, 8);
		children[nchildren++] = pid;
		return pid;
	}
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	for (int fd = 3; fd < 1024; fd++) {
		bool kept = false;

		for (int i = 0; i < nkeep; i++)
			kept |= keep[i] == fd;
		if (!kept)
			close(fd);
	}
	prctl(PR_SET_NAME, comm, 0, 0, 0);
	if (cgroup) {
		char file[PATH_MAX + 32], me[16];

		snprintf(file, sizeof(file), "%s/cgroup.procs", cgroup);
		snprintf(me, sizeof(me), "%d", (int)getpid());
		if (h_write_file(file, me))
			_exit(20);
	}
	return 0;
}

/* pid has not exited (a child that failed to set up exits at once). */
static void expect_running(pid_t pid)
{
	siginfo_t info;

	memset(&info, 0, sizeof(info));
	cr_assert_eq(waitid(P_PID, (id_t)pid, &info, WEXITED | WNOHANG | WNOWAIT), 0);
	cr_assert_eq(info.si_pid, 0, "child %d exited: code %d, status %d", (int)pid,
		     info.si_code, info.si_status);
}

/* Reaped, no longer killed by undo(). */
static void forget_child(pid_t pid)
{
	for (int i = 0; i < nchildren; i++)
		if (children[i] == pid)
			children[i] = children[--nchildren];
}

static void wait_gate(int fd)
{
	char c;

	if (fd < 0)
		return;
	while (read(fd, &c, 1) < 0 && errno == EINTR)
		;
	close(fd);
}

/* A reader of path with O_DIRECT, 4 KiB at a time, after gate (fd, -1:
 * none) opens, for seconds (0: until killed); with fifo, a real-time task
 * (SCHED_FIFO). */
static pid_t spawn_reader(const char *comm, const char *path, const char *cgroup, int gate,
			  double seconds, bool fifo)
{
	pid_t pid = fork_child(comm, cgroup, &gate, gate >= 0);
	struct sched_param rt = { .sched_priority = 1 };
	void *buf;
	int fd;

	if (pid)
		return pid;
	if (fifo && sched_setscheduler(0, SCHED_FIFO, &rt))
		_exit(29);
	wait_gate(gate);
	fd = open(path, O_RDONLY | O_DIRECT);
	if (fd < 0 || posix_memalign(&buf, 4096, 4096))
		_exit(21);
	for (int64_t end = h_now_ms() + (int64_t)(seconds * 1000), i = 0;
	     !seconds || h_now_ms() < end; i++)
		if (pread(fd, buf, 4096, (off_t)(i % 1024) * 4096) != 4096)
			_exit(22);
	_exit(0);
}

/* ---- diskio's JSON ---- */

static bool jv_null(struct h_jv v)
{
	return v.len == 4 && !memcmp(v.p, "null", 4);
}

/* A number's value; false for null or anything else. */
static bool jv_number(struct h_jv v, double *out)
{
	char text[64], *end;

	if (!v.len || v.len >= sizeof(text) || jv_null(v))
		return false;
	memcpy(text, v.p, v.len);
	text[v.len] = '\0';
	*out = strtod(text, &end);
	return *end == '\0';
}

/* What one interval record says of one process. */
struct seen {
	double interval_s;
	bool partial;
	char source[16];	/* iowait_source: "", "sched", "delayacct", "null" */
	int rows;		/* its rows */
	int rows_without_device;	/* ... of device null, with no I/O */
	int rows_without_device_named;	/* ... with its uid, user, ioprio, cmdline */
	int rows_with_io;	/* ... with bytes */
	double iowait_pct;	/* summed over its rows */
	int iowait_nulls;
	double swapin_pct;
	int swapin_nulls;
};

static struct seen seen_in(const char *line, uint32_t pid)
{
	struct seen s = { .interval_s = 0 };
	struct h_jv root, v, procs, p;
	size_t pos = 0;

	cr_assert(h_json_parse(line, &root));
	cr_assert(h_json_get(root, "interval_s", &v) && jv_number(v, &s.interval_s));
	cr_assert(h_json_get(root, "partial", &v));
	s.partial = v.len == 4 && !memcmp(v.p, "true", 4);
	cr_assert(h_json_get(root, "iowait_source", &v), "no iowait_source: %s", line);
	if (jv_null(v))
		snprintf(s.source, sizeof(s.source), "null");
	else
		cr_assert_geq(h_json_str(v, s.source, sizeof(s.source)), 0);
	cr_assert(h_json_processes(line, &procs));
	while (h_json_next_elem(procs, &pos, &p)) {
		struct h_counters c;
		int64_t got;
		double pct;

		if (!h_json_get_int(p, "pid", &got) || got != pid)
			continue;
		s.rows++;
		cr_assert(h_json_counters(p, &c));
		cr_assert(h_json_get(p, "device", &v));
		if (jv_null(v) && !c.read_bytes && !c.write_bytes && !c.discard_bytes) {
			char user[16], ioprio[16], cmdline[512];
			int64_t uid;

			s.rows_without_device++;
			/* issue 33: a row made for waits is whose its I/O's would be */
			if (h_json_get_int(p, "uid", &uid) && uid == (int64_t)geteuid() &&
			    h_json_get(p, "user", &v) && h_json_str(v, user, sizeof(user)) > 0 &&
			    !strcmp(user, "root") && h_json_get(p, "ioprio", &v) &&
			    h_json_str(v, ioprio, sizeof(ioprio)) > 0 && !strcmp(ioprio, "be/4") &&
			    h_json_get(p, "cmdline", &v) && !jv_null(v) &&
			    h_json_str(v, cmdline, sizeof(cmdline)) > 0)
				s.rows_without_device_named++;
		}
		if (c.read_bytes || c.write_bytes || c.discard_bytes)
			s.rows_with_io++;
		cr_assert(h_json_get(p, "iowait_pct", &v));
		if (jv_number(v, &pct))
			s.iowait_pct += pct;
		else
			s.iowait_nulls++;
		cr_assert(h_json_get(p, "swapin_pct", &v));
		if (jv_number(v, &pct))
			s.swapin_pct += pct;
		else
			s.swapin_nulls++;
	}
	return s;
}

/* The interval records of d, in order, as they saw pid. */
static size_t seen_all(const struct h_diskio *d, uint32_t pid, struct seen *out, size_t max)
{
	size_t n = 0;

	for (size_t i = 0; i < d->nlines && n < max; i++)
		if (h_json_is_interval(d->lines[i]))
			out[n++] = seen_in(d->lines[i], pid);
	return n;
}

/* ---- IO> of a throttled reader ---- */

/*
 * Both readers run before diskio starts and after it stops: every interval
 * but the last, partial one is a full one of theirs.
 */
static void check_throttled_reader(bool delayacct)
{
	const struct h_dev *zram;
	const char *cg;
	pid_t slow, busy;
	struct h_diskio d;
	struct seen s[32];
	size_t n, full = 0;

	set_delayacct(delayacct);
	zram = h_zram_create(ZRAM_BYTES);
	cg = throttled_cgroup(zram, READER_IOPS);
	slow = spawn_reader("iow-throttled", zram->path, cg, -1, 0, false);
	busy = spawn_reader("iow-busy", zram->path, NULL, -1, 0, false);
	h_sleep_ms(300);
	h_diskio_start(&d, H_ARGS("--json", "1"), NULL);
	h_diskio_wait_attached(&d, H_ATTACH_TIMEOUT_MS);
	h_diskio_finish(&d, 4);
	expect_running(slow);
	expect_running(busy);
	n = seen_all(&d, slow, s, 32);
	for (size_t i = 0; i < n; i++) {
		cr_assert_str_eq(s[i].source, delayacct ? "delayacct" : "sched");
		if (s[i].partial)
			continue;
		full++;
		cr_log_info("interval %zu: the throttled reader waited %.2f%%", i, s[i].iowait_pct);
		cr_assert_geq(s[i].iowait_pct, 80.0,
			      "interval %zu: the throttled reader waited %.2f%% (%s)", i,
			      s[i].iowait_pct, s[i].source);
		cr_assert_eq(s[i].iowait_nulls, 0);
	}
	cr_assert_geq(full, 3, "%zu full intervals", full);
	/* The busy reader never sleeps on I/O: zram completes its reads as
	 * they are submitted. */
	n = 0;
	for (size_t i = 0; i < d.nlines; i++) {
		struct seen b;

		if (!h_json_is_interval(d.lines[i]))
			continue;
		b = seen_in(d.lines[i], busy);
		if (b.partial)
			continue;
		cr_log_info("the busy reader waited %.2f%%", b.iowait_pct);
		cr_assert_gt(b.rows_with_io, 0, "the busy reader read in every interval");
		cr_assert_leq(b.iowait_pct, 1.0, "the busy reader waited %.2f%%", b.iowait_pct);
		if (delayacct) {
			cr_assert_eq(b.swapin_nulls, 0, "SWAPIN is known with delay accounting");
		} else {
			cr_assert_eq(b.swapin_nulls, b.rows, "SWAPIN is null without it");
			cr_assert_eq(b.swapin_pct, 0.0);
		}
		n++;
	}
	cr_assert_geq(n, 3);
	if (delayacct)
		cr_assert_null(strstr(d.err, NOTE_SWAPIN_OFF), "%s", d.err);
	else
		cr_assert_not_null(strstr(d.err, NOTE_SWAPIN_OFF), "stderr: %s", d.err);
	h_diskio_free(&d);
}

Test(iowait, throttled_reader_waits_measured_by_diskio)
{
	check_throttled_reader(false);
}

Test(iowait, throttled_reader_waits_by_delay_accounting)
{
	check_throttled_reader(true);
}

/* field (1-based, as proc(5) numbers them) of /proc/pid/stat. */
static uint64_t proc_stat_field(pid_t pid, int field)
{
	char path[64], buf[1024], *p;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	cr_assert_gt(h_read_file(path, buf, sizeof(buf)), 0, "%s", path);
	p = strrchr(buf, ')');
	cr_assert_not_null(p);
	p += 2;		/* field 3, the state */
	for (int f = 3; f < field; f++) {
		p = strchr(p, ' ');
		cr_assert_not_null(p);
		p++;
	}
	return strtoull(p, NULL, 10);
}

static char proc_state(pid_t pid)
{
	char path[64], buf[1024], *p;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	if (h_read_file(path, buf, sizeof(buf)) <= 0 || !(p = strrchr(buf, ')')))
		return '?';
	return p[2];
}

/*
 * A reader that starts after diskio's first reading and exits before its
 * last: the kernel's delayacct_blkio_ticks of it, read from its zombie, is
 * all its waits; diskio's IO> x interval, summed, must be it within 10%
 * (the exit's record carries the last part).
 *
 * The reader is a real-time task: from Linux 6.12 a CFS task going to
 * sleep may stay queued ("delayed dequeue") until another task's
 * __schedule() picks and blocks it, and __block_task() then stamps the
 * wait's start with delayacct_blkio_start(), on current, that other task:
 * the sleeper's blkio_start stays as it was (0 for a new task), and its
 * blkio_delay gains the time since then, up to the uptime, at the wakeup
 * (seen here: 4964 s of ticks for 3 s of waits).  An RT task is dequeued
 * by its own __schedule().  diskio caps each task at the interval, so its
 * figure stays right for CFS tasks; the kernel's ticks do not.
 */
Test(iowait, iowait_sums_to_the_kernels_blkio_ticks)
{
	const struct h_dev *zram;
	struct h_gate gate;
	struct h_diskio d;
	struct seen s[32];
	const char *cg;
	double waited_s = 0, kernel_s;
	uint64_t ticks;
	size_t n;
	pid_t pid;
	siginfo_t info;

	set_delayacct(true);
	zram = h_zram_create(ZRAM_BYTES);
	cg = throttled_cgroup(zram, READER_IOPS);
	h_gate_init(&gate);
	pid = spawn_reader("iow-ticks", zram->path, cg, gate.rfd, 3.0, true);
	h_diskio_start(&d, H_ARGS("--json", "0.5"), NULL);
	h_diskio_wait_attached(&d, H_ATTACH_TIMEOUT_MS);
	h_diskio_wait_new_intervals(&d, 1, 10000);
	h_gate_close(&gate);
	/* its zombie: waited for, not reaped */
	memset(&info, 0, sizeof(info));
	cr_assert_eq(waitid(P_PID, (id_t)pid, &info, WEXITED | WNOWAIT), 0);
	cr_assert_eq(info.si_code, CLD_EXITED);
	cr_assert_eq(info.si_status, 0, "the reader failed: %d", info.si_status);
	cr_assert_eq(proc_state(pid), 'Z');
	ticks = proc_stat_field(pid, 42);
	h_diskio_finish(&d, 2);
	h_kill_child(pid);
	forget_child(pid);
	n = seen_all(&d, pid, s, 32);
	for (size_t i = 0; i < n; i++) {
		cr_assert_str_eq(s[i].source, "delayacct");
		waited_s += s[i].iowait_pct / 100 * s[i].interval_s;
	}
	kernel_s = (double)ticks / (double)sysconf(_SC_CLK_TCK);
	cr_log_info("IO> x interval summed: %.3f s; delayacct_blkio_ticks: %" PRIu64 " (%.3f s)",
		    waited_s, ticks, kernel_s);
	cr_assert_gt(kernel_s, 2.0, "the reader waited %.3f s of its 3", kernel_s);
	cr_assert_leq(fabs(waited_s - kernel_s), 0.10 * kernel_s,
		      "diskio %.3f s, the kernel %.3f s", waited_s, kernel_s);
	h_diskio_free(&d);
}

/* ---- a process that only waits ---- */

/*
 * The victim reads, through the page cache, the page a throttled reader
 * is reading: it finds the page locked and sleeps until the reader's read
 * completes, issuing no I/O of its own.  The two take turns through pipes,
 * so that the page is always there, locked, when the victim reads it (the
 * reader evicts it only after the victim's read returned).
 */
static pid_t spawn_page_reader(const char *path, const char *cg, int token_out, int ack_in)
{
	int keep[2] = { token_out, ack_in };
	pid_t pid = fork_child("iow-holder", cg, keep, 2);
	char buf[4096], c = 't';
	int fd;

	if (pid)
		return pid;
	fd = open(path, O_RDONLY);
	if (fd < 0 || posix_fadvise(fd, 0, 0, POSIX_FADV_RANDOM))
		_exit(23);
	for (;;) {
		posix_fadvise(fd, 0, 4096, POSIX_FADV_DONTNEED);
		if (write(token_out, &c, 1) != 1 || pread(fd, buf, 4096, 0) != 4096 ||
		    read(ack_in, &c, 1) != 1)
			_exit(24);
	}
}

static pid_t spawn_victim(const char *path, int token_in, int ack_out)
{
	int keep[2] = { token_in, ack_out };
	pid_t pid = fork_child("iow-victim", NULL, keep, 2);
	char buf[4096], c;
	int fd;

	if (pid)
		return pid;
	fd = open(path, O_RDONLY);
	if (fd < 0 || posix_fadvise(fd, 0, 0, POSIX_FADV_RANDOM))
		_exit(25);
	for (;;) {
		if (read(token_in, &c, 1) != 1)
			_exit(26);
		h_sleep_ms(60);		/* the reader's read is in flight, throttled */
		if (pread(fd, buf, 4096, 0) != 4096 || write(ack_out, &c, 1) != 1)
			_exit(27);
	}
}

Test(iowait, a_process_that_only_waits_has_a_row_of_no_disk)
{
	const struct h_dev *zram = h_zram_create(ZRAM_BYTES);
	const char *cg = throttled_cgroup(zram, 2);
	int token[2], ack[2];
	struct h_diskio d;
	struct seen s[32];
	size_t n, waiting = 0;
	pid_t holder, victim;

	cr_assert_eq(pipe(token), 0);
	cr_assert_eq(pipe(ack), 0);
	holder = spawn_page_reader(zram->path, cg, token[1], ack[0]);
	victim = spawn_victim(zram->path, token[0], ack[1]);
	h_sleep_ms(300);
	h_diskio_start(&d, H_ARGS("--json", "1"), NULL);
	h_diskio_wait_attached(&d, H_ATTACH_TIMEOUT_MS);
	h_diskio_finish(&d, 4);
	expect_running(holder);
	expect_running(victim);
	n = seen_all(&d, victim, s, 32);
	for (size_t i = 0; i < n; i++) {
		if (s[i].partial)
			continue;
		cr_log_info("interval %zu: victim rows %d (no disk %d, named %d, with I/O %d), IO> "
			    "%.2f%%", i, s[i].rows, s[i].rows_without_device,
			    s[i].rows_without_device_named, s[i].rows_with_io, s[i].iowait_pct);
		if (s[i].rows == 1 && s[i].rows_without_device == 1 && s[i].iowait_pct >= 50) {
			cr_assert_eq(s[i].rows_without_device_named, 1,
				     "the row of no disk has its uid, user, ioprio and cmdline");
			waiting++;
		}
	}
	cr_assert_geq(waiting, 2, "intervals with the victim on a row of no disk: %zu", waiting);
	h_diskio_free(&d);
}

/* ---- SWAPIN ---- */

/* A zram swap device, turned off by undo() (before the disk goes). */
static void zram_swap(uint64_t bytes)
{
	const struct h_dev *zram = h_zram_create(bytes);
	struct h_result r;

	if (!h_have_program("mkswap") || !h_have_program("swapon"))
		cr_skip_test("mkswap or swapon missing (util-linux)");
	cr_assert_eq(h_run(H_ARGS("mkswap", zram->path), NULL, NULL, 10000, &r), 0, "%s", r.err);
	h_result_free(&r);
	cr_assert_eq(h_run(H_ARGS("swapon", "-p", "32000", zram->path), NULL, NULL, 10000, &r), 0,
		     "%s", r.err);
	h_result_free(&r);
	snprintf(swap_on, sizeof(swap_on), "%s", zram->path);
}

/*
 * Pages its own region of bytes out to swap (MADV_PAGEOUT) and touches
 * every page again, swapping it in, for ever.  Its own reclaim, not a
 * memory group's: a group smaller than the working set swapped too, but
 * its OOM killer now and then took the swapper when reclaim fell behind,
 * which made this test depend on the kernel's timing.
 */
static pid_t spawn_swapper(size_t bytes)
{
	pid_t pid = fork_child("iow-swapper", NULL, NULL, 0);
	unsigned char *mem;

	if (pid)
		return pid;
	mem = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (mem == MAP_FAILED)
		_exit(28);
	for (size_t i = 0; i < bytes; i++)	/* not zero: zram keeps zero pages apart */
		mem[i] = (unsigned char)(i * 131 + (i >> 12));
	for (unsigned char round = 0;; round++) {
		if (madvise(mem, bytes, MADV_PAGEOUT))
			_exit(errno == EINVAL ? 30 : 31);	/* 30: before Linux 5.4 */
		for (size_t i = 0; i < bytes; i += 4096)
			mem[i + round] += 1;
	}
}

static void check_swapin(bool delayacct)
{
	struct h_diskio d;
	struct seen s[32];
	size_t n, full = 0, over = 0;
	pid_t pid;

	set_delayacct(delayacct);
	zram_swap(256ULL << 20);
	pid = spawn_swapper(32ULL << 20);
	h_sleep_ms(1000);	/* filled, swapping */
	expect_running(pid);
	h_diskio_start(&d, H_ARGS("--json", "1"), NULL);
	h_diskio_wait_attached(&d, H_ATTACH_TIMEOUT_MS);
	h_diskio_finish(&d, 4);
	expect_running(pid);
	n = seen_all(&d, pid, s, 32);
	for (size_t i = 0; i < n; i++) {
		if (s[i].partial)
			continue;
		full++;
		cr_assert_gt(s[i].rows, 0, "interval %zu: no row of the swapper", i);
		cr_log_info("interval %zu: swapper rows %d, SWAPIN %.2f%% (%d null), IO> %.2f%%", i,
			    s[i].rows, s[i].swapin_pct, s[i].swapin_nulls, s[i].iowait_pct);
		if (delayacct) {
			cr_assert_eq(s[i].swapin_nulls, 0);
			over += s[i].swapin_pct > 1.0;
		} else {
			cr_assert_eq(s[i].swapin_nulls, s[i].rows, "SWAPIN is null, never 0");
		}
	}
	cr_assert_geq(full, 3);
	if (delayacct) {
		cr_assert_eq(over, full, "SWAPIN > 1%% in %zu of %zu full intervals", over, full);
	} else {
		cr_assert_not_null(strstr(d.err, NOTE_SWAPIN_OFF), "stderr: %s", d.err);
	}
	h_diskio_free(&d);
}

Test(iowait, swapin_of_a_process_swapping_on_zram)
{
	check_swapin(true);
}

Test(iowait, swapin_is_null_without_delay_accounting)
{
	check_swapin(false);
}
