/* SPDX-License-Identifier: GPL-2.0 */
/*
 * harness.h: helpers for diskio's root integration tests (Criterion).
 *
 * Every helper is a static function in this header, so that each test file is
 * one translation unit: include this header FIRST (it defines _GNU_SOURCE),
 * then write Criterion tests.  The tests run the real binary named by the
 * environment variable DISKIO (`make integration` sets it; default ./diskio)
 * against block devices they create, with child processes doing known I/O.
 *
 * Typical test:
 *
 *	TestSuite(core, .init = h_setup, .fini = h_teardown, .timeout = 40);
 *
 *	Test(core, example)
 *	{
 *		const struct h_dev *zram = h_zram_create(64 << 20);
 *		struct h_diskstats before, after;
 *		struct h_diskio d;
 *		static const struct h_io ops[] = { { 'w', 0, 4096, 256 } };
 *
 *		h_diskstats_read(zram->name, &before);
 *		h_diskio_start(&d, H_ARGS("--json", "-D", zram->name, "0.5"), NULL);
 *		h_diskio_wait_attached(&d, H_ATTACH_TIMEOUT_MS);
 *		h_expect_child_ok(h_spawn_io("dio-x", zram->path, ops, 1, NULL), 10000);
 *		h_diskio_finish(&d, 2);		// two more intervals, SIGINT, exit 0
 *		h_diskstats_read(zram->name, &after);
 *		... h_json_sum_process(d.lines, d.nlines, pid, zram->name, NULL, &sum) ...
 *		h_diskio_free(&d);
 *	}
 *
 * Sections:
 *   setup:      h_setup / h_teardown / h_require_root / h_cleanup, serialization
 *   time:       h_now_ms, h_sleep_ms
 *   commands:   h_run (fork/exec with captured stdout/stderr, timeout, other uid)
 *   devices:    h_zram_create, h_loop_create, h_dev_remove (removed at cleanup
 *               even when an assertion fails; leftovers of killed runs are swept)
 *   diskio:     h_diskio_start, h_diskio_next_line, h_diskio_wait_attached,
 *               h_diskio_wait_new_intervals, h_diskio_stop, h_diskio_finish, ...
 *   children:   h_spawn_io (named child doing O_DIRECT reads/writes, discards),
 *               h_gate_* (release children at once), h_wait_pid, h_expect_child_ok
 *   diskstats:  h_diskstats_read, h_diskstats_delta
 *   JSON:       a small validating reader for diskio's one-object-per-line output
 *   batch:      h_split_fields, h_batch_parse_row
 *   BPF:        h_bpftool_progs, h_pid_bpf_prog_ids, h_is_diskio_prog_name
 *
 * Tests must not run in parallel (they count I/O on the machine and load BPF
 * programs): a constructor below sets CRITERION_JOBS=1 unless it is already
 * set (define H_ALLOW_PARALLEL before including to opt out), and h_setup()
 * takes a lock shared by every test binary that uses this harness.
 *
 * Every child forked here gets PR_SET_PDEATHSIG, so that a test killed by
 * Criterion's timeout does not leave diskio or I/O children behind.
 */
#ifndef DISKIO_TEST_HARNESS_H
#define DISKIO_TEST_HARNESS_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <criterion/criterion.h>
#include <criterion/logging.h>
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <inttypes.h>
#include <limits.h>
#include <linux/fs.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define H_API static __attribute__((unused))

/* Where the harness keeps its lock, loop backing files and ownership marks. */
#define H_STATE_DIR		"/dev/shm/diskio-itest"
#define H_LOCK_WAIT_MS		30000
/* Timeouts that fit a loaded 2-CPU VM. */
#define H_ATTACH_TIMEOUT_MS	15000	/* BPF load + attach + first output */
#define H_EXIT_TIMEOUT_MS	5000	/* diskio's exit after SIGINT */
#define H_CHILD_TIMEOUT_MS	15000	/* an I/O child's whole run */

/* A NULL-terminated argument list for h_diskio_start()/h_run(). */
#define H_ARGS(...)	((const char *const[]){ __VA_ARGS__, NULL })

#ifndef H_ALLOW_PARALLEL
/* Criterion reads CRITERION_JOBS when it parses its options, after constructors. */
__attribute__((constructor)) static void h__serial_jobs(void)
{
	setenv("CRITERION_JOBS", "1", 0);
}
#endif

/* ================================================================ time == */

/* CLOCK_MONOTONIC in milliseconds. */
H_API int64_t h_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

H_API void h_sleep_ms(int ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

/* ============================================================== children == */

#define H_MAX_CHILDREN 64

static pid_t h__children[H_MAX_CHILDREN];
static pid_t h__owner;		/* the test process; 0 before h_setup() */

/* Remember a child so that h_cleanup() kills and reaps it. */
H_API void h_track_child(pid_t pid)
{
	for (int i = 0; i < H_MAX_CHILDREN; i++) {
		if (!h__children[i]) {
			h__children[i] = pid;
			return;
		}
	}
}

H_API void h_untrack_child(pid_t pid)
{
	for (int i = 0; i < H_MAX_CHILDREN; i++)
		if (h__children[i] == pid)
			h__children[i] = 0;
}

/* Wait up to timeout_ms for pid to exit (polling waitpid).  0 and *status
 * when it did, -1 on timeout (the child is left running). */
H_API int h_wait_pid(pid_t pid, int timeout_ms, int *status)
{
	int64_t deadline = h_now_ms() + timeout_ms;
	int st;

	for (;;) {
		pid_t r = waitpid(pid, &st, WNOHANG);

		if (r == pid) {
			h_untrack_child(pid);
			if (status)
				*status = st;
			return 0;
		}
		if (r < 0 && errno != EINTR) {
			h_untrack_child(pid);
			if (status)
				*status = -1;
			return 0;
		}
		if (h_now_ms() >= deadline)
			return -1;
		h_sleep_ms(5);
	}
}

/* Kill a child (SIGKILL) and reap it. */
H_API void h_kill_child(pid_t pid)
{
	if (pid <= 0)
		return;
	kill(pid, SIGKILL);
	h_wait_pid(pid, 5000, NULL);
}

/* "exit 0", "killed by signal 9", ... for assertion messages. */
H_API const char *h_status_str(int status, char *buf, size_t size)
{
	if (status == -1)
		snprintf(buf, size, "not a child");
	else if (WIFEXITED(status))
		snprintf(buf, size, "exit %d", WEXITSTATUS(status));
	else if (WIFSIGNALED(status))
		snprintf(buf, size, "killed by signal %d (%s)", WTERMSIG(status),
			 strsignal(WTERMSIG(status)));
	else
		snprintf(buf, size, "status 0x%x", status);
	return buf;
}

/* In a freshly forked child: die with the test, close every inherited
 * descriptor from 3 up except keep (-1: none). */
H_API void h__child_prepare(int keep)
{
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() == 1)
		_exit(99);
	for (int fd = 3; fd < 1024; fd++)
		if (fd != keep)
			close(fd);
}

/* ================================================================ files == */

/* Write text to a file (sysfs); 0 or -errno. */
H_API int h_write_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	ssize_t n, len = strlen(text);
	int err = 0;

	if (fd < 0)
		return -errno;
	n = write(fd, text, len);
	if (n < 0)
		err = -errno;
	else if (n != len)
		err = -EIO;
	close(fd);
	return err;
}

/* Read a whole small file into buf (NUL-terminated); length or -errno. */
H_API ssize_t h_read_file(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	size_t len = 0;

	if (fd < 0)
		return -errno;
	while (len + 1 < size) {
		ssize_t n = read(fd, buf + len, size - 1 - len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			int err = -errno;

			close(fd);
			return err;
		}
		if (!n)
			break;
		len += n;
	}
	buf[len] = '\0';
	close(fd);
	return len;
}

/* ============================================================= commands == */

/* Run as another user: h_run()'s `as` argument. */
struct h_creds {
	uid_t uid;
	gid_t gid;
};

/* What h_run() saw.  out and err are NUL-terminated (never NULL after h_run). */
struct h_result {
	int status;		/* wait status; -1 if it had to be killed */
	bool timed_out;
	char *out;
	size_t out_len;
	char *err;
	size_t err_len;
};

H_API void h_result_free(struct h_result *r)
{
	free(r->out);
	free(r->err);
	r->out = r->err = NULL;
}

static void h__append(char **buf, size_t *len, size_t *cap, const char *data, size_t n)
{
	if (*len + n + 1 > *cap) {
		size_t want = *cap ? *cap : 4096;

		while (*len + n + 1 > want)
			want *= 2;
		*buf = realloc(*buf, want);
		cr_assert(*buf, "out of memory");
		*cap = want;
	}
	memcpy(*buf + *len, data, n);
	*len += n;
	(*buf)[*len] = '\0';
}

/* fork + exec the program exe (searched in PATH if it has no '/') with argv
 * (argv[0] may differ from exe, as with a shell's PATH lookup), stdin from
 * /dev/null, stdout and stderr captured; env_add: NULL-terminated
 * "NAME=VALUE" strings added to the environment (or NULL); as: drop to that
 * uid/gid (no supplementary groups) before exec (or NULL).  Waits up to
 * timeout_ms, then SIGKILLs it.  Returns r->status.  A failed exec exits 127
 * with a message on stderr. */
H_API int h_runx(const char *exe, const char *const argv[], const char *const env_add[],
		 const struct h_creds *as, int timeout_ms, struct h_result *r)
{
	int out[2], err[2];
	size_t out_cap = 0, err_cap = 0;
	int64_t deadline = h_now_ms() + timeout_ms;
	bool out_open = true, err_open = true;
	pid_t pid;

	memset(r, 0, sizeof(*r));
	h__append(&r->out, &r->out_len, &out_cap, "", 0);
	h__append(&r->err, &r->err_len, &err_cap, "", 0);
	cr_assert(!pipe2(out, O_CLOEXEC) && !pipe2(err, O_CLOEXEC), "pipe: %s", strerror(errno));
	fflush(NULL);
	pid = fork();
	cr_assert(pid >= 0, "fork: %s", strerror(errno));
	if (!pid) {
		int devnull = open("/dev/null", O_RDONLY);

		prctl(PR_SET_PDEATHSIG, SIGKILL);
		dup2(devnull, 0);
		dup2(out[1], 1);
		dup2(err[1], 2);
		for (int fd = 3; fd < 1024; fd++)
			close(fd);
		for (size_t i = 0; env_add && env_add[i]; i++)
			putenv((char *)env_add[i]);
		if (as && (setgroups(0, NULL) || setgid(as->gid) || setuid(as->uid))) {
			dprintf(2, "h_run: cannot become %u:%u: %s\n", as->uid, as->gid,
				strerror(errno));
			_exit(126);
		}
		execvp(exe, (char *const *)argv);
		dprintf(2, "h_run: cannot run %s: %s\n", exe, strerror(errno));
		_exit(127);
	}
	h_track_child(pid);
	close(out[1]);
	close(err[1]);
	while (out_open || err_open) {
		struct pollfd fds[2] = { { out_open ? out[0] : -1, POLLIN, 0 },
					 { err_open ? err[0] : -1, POLLIN, 0 } };
		int64_t left = deadline - h_now_ms();
		char buf[4096];

		if (left <= 0) {
			r->timed_out = true;
			break;
		}
		if (poll(fds, 2, (int)left) < 0 && errno != EINTR)
			break;
		for (int i = 0; i < 2; i++) {
			ssize_t n;

			if (!(fds[i].revents & (POLLIN | POLLHUP | POLLERR)))
				continue;
			n = read(fds[i].fd, buf, sizeof(buf));
			if (n > 0 && i == 0)
				h__append(&r->out, &r->out_len, &out_cap, buf, n);
			else if (n > 0)
				h__append(&r->err, &r->err_len, &err_cap, buf, n);
			else if (n == 0 || errno != EINTR)
				*(i == 0 ? &out_open : &err_open) = false;
		}
	}
	close(out[0]);
	close(err[0]);
	if (r->timed_out || h_wait_pid(pid, (int)(deadline - h_now_ms() > 0 ?
						  deadline - h_now_ms() : 0), &r->status)) {
		r->timed_out = true;
		h_kill_child(pid);
		r->status = -1;
	}
	return r->status;
}

/* h_runx() with exe = argv[0]. */
H_API int h_run(const char *const argv[], const char *const env_add[], const struct h_creds *as,
		int timeout_ms, struct h_result *r)
{
	return h_runx(argv[0], argv, env_add, as, timeout_ms, r);
}

/* Whether a program is found in PATH. */
H_API bool h_have_program(const char *name)
{
	const char *path = getenv("PATH");
	char buf[PATH_MAX];

	if (!path || !*path)
		path = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";
	while (*path) {
		const char *colon = strchr(path, ':');
		size_t len = colon ? (size_t)(colon - path) : strlen(path);

		snprintf(buf, sizeof(buf), "%.*s/%s", (int)len, path, name);
		if (!access(buf, X_OK))
			return true;
		path += len + (colon ? 1 : 0);
	}
	return false;
}

/* `udevadm settle`, if udev is there: lets udev's probes of a new device
 * (blkid reads) finish before a test starts counting. */
H_API void h_udev_settle(void)
{
	struct h_result r;

	if (!h_have_program("udevadm"))
		return;
	h_run(H_ARGS("udevadm", "settle", "--timeout=10"), NULL, NULL, 15000, &r);
	h_result_free(&r);
}

/* ================================================================ setup == */

static int h__lock_fd = -1;

/* The absolute path of the diskio binary under test: $DISKIO, else ./diskio. */
H_API const char *h_diskio_path(void)
{
	const char *path = getenv("DISKIO");

	return path && *path ? path : "./diskio";
}

/* Skip the current test unless it runs as root. */
H_API void h_require_root(void)
{
	if (geteuid() != 0)
		cr_skip_test("integration tests need root (BPF, block devices)");
}

static bool h__pid_alive(pid_t pid)
{
	return pid > 0 && (kill(pid, 0) == 0 || errno != ESRCH);
}

static void h__zram_remove_index(int index)
{
	char path[128], num[16];

	snprintf(path, sizeof(path), "/sys/block/zram%d/reset", index);
	snprintf(num, sizeof(num), "%d", index);
	/* reset fails with EBUSY while someone still has the disk open. */
	for (int tries = 0; tries < 100; tries++) {
		if (!h_write_file(path, "1") || access(path, F_OK))
			break;
		h_sleep_ms(20);
	}
	for (int tries = 0; tries < 100; tries++) {
		int err = h_write_file("/sys/class/zram-control/hot_remove", num);

		if (!err || err == -ENODEV || err == -ENOENT)
			break;
		h_sleep_ms(20);
	}
}

/* Detach every loop device backed by file (losetup -j). */
static void h__loop_detach_file(const char *file)
{
	struct h_result r;
	char *line, *save = NULL;

	h_run(H_ARGS("losetup", "-j", file), NULL, NULL, 10000, &r);
	for (line = strtok_r(r.out, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *colon = strchr(line, ':');
		struct h_result d;

		if (!colon)
			continue;
		*colon = '\0';
		h_run(H_ARGS("losetup", "-d", line), NULL, NULL, 10000, &d);
		h_result_free(&d);
	}
	h_result_free(&r);
}

/* Remove what runs killed before their cleanup (Criterion timeouts) left:
 * every mark in H_STATE_DIR names its owner's pid. */
static void h__sweep_stale(void)
{
	DIR *dir = opendir(H_STATE_DIR);
	struct dirent *e;

	if (!dir)
		return;
	while ((e = readdir(dir))) {
		char path[512];
		int index, owner;

		snprintf(path, sizeof(path), H_STATE_DIR "/%s", e->d_name);
		if (sscanf(e->d_name, "zram%d.%d", &index, &owner) == 2) {
			if (h__pid_alive(owner))
				continue;
			h__zram_remove_index(index);
			unlink(path);
		} else if (sscanf(e->d_name, "loop-%d-%d.img", &owner, &index) == 2) {
			if (h__pid_alive(owner))
				continue;
			h__loop_detach_file(path);
			unlink(path);
		}
	}
	closedir(dir);
}

/* Serialize tests of all binaries using this harness (other engineers may run
 * crash or trace tests at the same time).  Waits at most H_LOCK_WAIT_MS, then
 * goes on with a warning. */
static void h__lock(void)
{
	int64_t deadline = h_now_ms() + H_LOCK_WAIT_MS;

	if (h__lock_fd >= 0)
		return;
	h__lock_fd = open(H_STATE_DIR "/lock", O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	if (h__lock_fd < 0)
		return;
	while (flock(h__lock_fd, LOCK_EX | LOCK_NB)) {
		if (h_now_ms() >= deadline) {
			cr_log_info("harness: lock " H_STATE_DIR "/lock still held after %d ms; "
				    "going on", H_LOCK_WAIT_MS);
			return;
		}
		h_sleep_ms(50);
	}
}

static void h__cleanup_devices(void);

/* Kill and reap tracked children, remove created devices, drop the lock.
 * Idempotent; does nothing in a process other than the test's. */
H_API void h_cleanup(void)
{
	if (!h__owner || getpid() != h__owner)
		return;
	/* diskio first gets SIGTERM to detach cleanly; everything gets SIGKILL. */
	for (int i = 0; i < H_MAX_CHILDREN; i++)
		if (h__children[i])
			kill(h__children[i], SIGTERM);
	for (int i = 0; i < H_MAX_CHILDREN; i++) {
		pid_t pid = h__children[i];

		if (pid && h_wait_pid(pid, 2000, NULL))
			h_kill_child(pid);
	}
	h__cleanup_devices();
	if (h__lock_fd >= 0) {
		close(h__lock_fd);
		h__lock_fd = -1;
	}
}

/* Criterion .init of every integration suite: skip unless root, serialize
 * with other integration tests, sweep leftovers of killed runs, and make sure
 * h_cleanup() runs at exit even if the test fails. */
H_API void h_setup(void)
{
	h_require_root();
	if (!h__owner) {
		h__owner = getpid();
		atexit(h_cleanup);
	}
	mkdir(H_STATE_DIR, 0700);
	h__lock();
	h__sweep_stale();
}

/* Criterion .fini: same as h_cleanup(). */
H_API void h_teardown(void)
{
	h_cleanup();
}

/* ============================================================== devices == */

enum h_dev_kind { H_ZRAM, H_LOOP };

/* A block device created by a test. */
struct h_dev {
	bool used;
	enum h_dev_kind kind;
	int index;		/* N of zramN / loopN */
	char name[32];		/* "zram3": the name diskio and /proc/diskstats use */
	char path[64];		/* "/dev/zram3" */
	char backing[256];	/* loop: the backing file in /dev/shm */
	char mark[256];		/* ownership mark in H_STATE_DIR (zram) */
};

#define H_MAX_DEVS 8
static struct h_dev h__devs[H_MAX_DEVS];

static struct h_dev *h__dev_slot(void)
{
	for (int i = 0; i < H_MAX_DEVS; i++) {
		if (!h__devs[i].used) {
			memset(&h__devs[i], 0, sizeof(h__devs[i]));
			h__devs[i].used = true;
			return &h__devs[i];
		}
	}
	cr_assert_fail("harness: more than %d devices", H_MAX_DEVS);
	return NULL;
}

/* Wait for the device node, let udev settle, and open/close it once so that
 * whatever a first open triggers (a partition scan) is over before counting. */
static void h__dev_ready(struct h_dev *dev)
{
	int64_t deadline = h_now_ms() + 5000;
	int fd;

	while (access(dev->path, F_OK) && h_now_ms() < deadline)
		h_sleep_ms(10);
	cr_assert(!access(dev->path, F_OK), "harness: %s did not appear", dev->path);
	h_udev_settle();
	fd = open(dev->path, O_RDONLY | O_CLOEXEC);
	cr_assert(fd >= 0, "harness: open %s: %s", dev->path, strerror(errno));
	close(fd);
	h_udev_settle();
}

/* Remove one device created by h_zram_create()/h_loop_create() (no asserts:
 * also used at cleanup). */
H_API void h_dev_remove(const struct h_dev *cdev)
{
	struct h_dev *dev = (struct h_dev *)cdev;

	if (!dev || !dev->used)
		return;
	if (dev->kind == H_ZRAM) {
		h__zram_remove_index(dev->index);
		if (dev->mark[0])
			unlink(dev->mark);
	} else {
		struct h_result r;

		if (dev->path[0]) {
			for (int tries = 0; tries < 20; tries++) {
				h_run(H_ARGS("losetup", "-d", dev->path), NULL, NULL, 10000, &r);
				h_result_free(&r);
				if (r.status == 0)
					break;
				h_sleep_ms(50);
			}
		}
		h__loop_detach_file(dev->backing);
		unlink(dev->backing);
	}
	dev->used = false;
}

static void h__cleanup_devices(void)
{
	for (int i = 0; i < H_MAX_DEVS; i++)
		if (h__devs[i].used)
			h_dev_remove(&h__devs[i]);
}

/* A new zram disk of size bytes (hot_add; modprobe zram if needed), ready for
 * O_DIRECT I/O with 4 KiB blocks.  zram is bio-based: it fires block_bio_queue
 * and block_bio_complete, never the request hooks.  Asserts on failure. */
H_API const struct h_dev *h_zram_create(uint64_t size)
{
	struct h_dev *dev;
	char buf[64], path[128];
	int index, err, fd;

	if (access("/sys/class/zram-control/hot_add", F_OK)) {
		struct h_result r;

		h_run(H_ARGS("modprobe", "zram", "num_devices=0"), NULL, NULL, 20000, &r);
		h_result_free(&r);
	}
	cr_assert(h_read_file("/sys/class/zram-control/hot_add", buf, sizeof(buf)) > 0,
		  "harness: no zram (/sys/class/zram-control/hot_add; modprobe zram failed?)");
	index = atoi(buf);
	dev = h__dev_slot();
	dev->kind = H_ZRAM;
	dev->index = index;
	snprintf(dev->name, sizeof(dev->name), "zram%d", index);
	snprintf(dev->path, sizeof(dev->path), "/dev/zram%d", index);
	snprintf(dev->mark, sizeof(dev->mark), H_STATE_DIR "/zram%d.%d", index, (int)getpid());
	fd = open(dev->mark, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
	if (fd >= 0)
		close(fd);
	snprintf(path, sizeof(path), "/sys/block/zram%d/disksize", index);
	snprintf(buf, sizeof(buf), "%" PRIu64, size);
	err = h_write_file(path, buf);
	cr_assert(!err, "harness: writing %s to %s: %s", buf, path, strerror(-err));
	h__dev_ready(dev);
	return dev;
}

/* A new loop device over a size-byte sparse file in /dev/shm (losetup -f).
 * loop is blk-mq: it fires block_io_start/done (and block_rq_*).  Its backing
 * file is on tmpfs, so it supports discard (hole punching).  Asserts on failure. */
H_API const struct h_dev *h_loop_create(uint64_t size)
{
	static int seq;
	struct h_dev *dev = h__dev_slot();
	struct h_result r;
	char *nl, *base;
	int fd;

	dev->kind = H_LOOP;
	snprintf(dev->backing, sizeof(dev->backing), H_STATE_DIR "/loop-%d-%d.img",
		 (int)getpid(), seq++);
	fd = open(dev->backing, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	cr_assert(fd >= 0, "harness: create %s: %s", dev->backing, strerror(errno));
	cr_assert(!ftruncate(fd, (off_t)size), "harness: ftruncate: %s", strerror(errno));
	close(fd);
	h_run(H_ARGS("losetup", "-f", "--show", dev->backing), NULL, NULL, 20000, &r);
	nl = strchr(r.out, '\n');
	if (nl)
		*nl = '\0';
	if (r.status != 0 || strncmp(r.out, "/dev/loop", 9)) {
		char why[64];

		h_status_str(r.status, why, sizeof(why));
		cr_log_error("losetup: %s, stdout '%s', stderr '%s'", why, r.out, r.err);
		h_result_free(&r);
		cr_assert_fail("harness: losetup -f --show %s failed", dev->backing);
	}
	snprintf(dev->path, sizeof(dev->path), "%s", r.out);
	h_result_free(&r);
	base = strrchr(dev->path, '/') + 1;
	snprintf(dev->name, sizeof(dev->name), "%s", base);
	dev->index = atoi(base + 4);
	h__dev_ready(dev);
	return dev;
}

/* ============================================================ diskstats == */

/* One /proc/diskstats line (Documentation/admin-guide/iostats.rst); fields
 * a kernel does not have (discards before 4.18) read as 0. */
struct h_diskstats {
	uint64_t read_ios;		/* field 4: reads completed */
	uint64_t read_sectors;		/* field 6 */
	uint64_t write_ios;		/* field 8: writes completed */
	uint64_t write_sectors;		/* field 10 */
	uint64_t discard_ios;		/* field 15: discards completed */
	uint64_t discard_sectors;	/* field 17 */
	int nfields;			/* fields on the line, counting major, minor, name */
};

/* Read the counters of device name; false if it is not listed. */
H_API bool h_diskstats_read(const char *name, struct h_diskstats *s)
{
	FILE *f = fopen("/proc/diskstats", "re");
	char line[1024];
	bool found = false;

	memset(s, 0, sizeof(*s));
	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f)) {
		uint64_t v[20] = { 0 };
		char dev[64];
		int n = 0, off = 0, used;

		if (sscanf(line, "%*u %*u %63s%n", dev, &used) != 1 || strcmp(dev, name))
			continue;
		off = used;
		while (n < 20 && sscanf(line + off, "%" SCNu64 "%n", &v[n], &used) == 1) {
			off += used;
			n++;
		}
		/* v[0] is field 4. */
		s->nfields = 3 + n;
		s->read_ios = v[0];
		s->read_sectors = v[2];
		s->write_ios = v[4];
		s->write_sectors = v[6];
		if (n >= 14) {
			s->discard_ios = v[11];
			s->discard_sectors = v[13];
		}
		found = true;
	}
	fclose(f);
	return found;
}

/* after - before, field by field. */
H_API struct h_diskstats h_diskstats_delta(const struct h_diskstats *before,
					   const struct h_diskstats *after)
{
	struct h_diskstats d = {
		.read_ios = after->read_ios - before->read_ios,
		.read_sectors = after->read_sectors - before->read_sectors,
		.write_ios = after->write_ios - before->write_ios,
		.write_sectors = after->write_sectors - before->write_sectors,
		.discard_ios = after->discard_ios - before->discard_ios,
		.discard_sectors = after->discard_sectors - before->discard_sectors,
		.nfields = after->nfields,
	};
	return d;
}

/* ===================================================== I/O children == */

/* One step of an I/O child.  op: 'w' count pwrite()s of size bytes at
 * offset, offset+size, ...; 'r' the same with pread(); 'd' count
 * ioctl(BLKDISCARD)s of size bytes from offset on; 'f' one fsync(). */
struct h_io {
	char op;
	uint64_t offset;
	uint32_t size;
	uint32_t count;
};

/* Exit codes of an I/O child (anything but 0 is a failure of the child). */
enum {
	H_IO_OK = 0,
	H_IO_ERR_NAME = 10,	/* prctl(PR_SET_NAME) */
	H_IO_ERR_GATE = 11,	/* reading the gate */
	H_IO_ERR_OPEN = 12,
	H_IO_ERR_ALLOC = 13,
	H_IO_ERR_WRITE = 14,
	H_IO_ERR_READ = 15,
	H_IO_ERR_DISCARD = 16,
	H_IO_ERR_FSYNC = 17,
	H_IO_ERR_OP = 18,	/* unknown op */
};

/* A gate holds children back until the test opens it: they block reading its
 * pipe until every write end is closed. */
struct h_gate {
	int rfd, wfd;
};

H_API void h_gate_init(struct h_gate *g)
{
	int fds[2];

	cr_assert(!pipe2(fds, O_CLOEXEC), "pipe: %s", strerror(errno));
	g->rfd = fds[0];
	g->wfd = fds[1];
}

/* Release every child waiting on the gate (children close all descriptors
 * they inherit, so closing the test's write end is EOF for them). */
H_API void h_gate_open(struct h_gate *g)
{
	if (g->wfd >= 0)
		close(g->wfd);
	g->wfd = -1;
}

H_API void h_gate_close(struct h_gate *g)
{
	h_gate_open(g);
	if (g->rfd >= 0)
		close(g->rfd);
	g->rfd = -1;
}

/* Fork a child named comm (prctl PR_SET_NAME, at most 15 bytes kept) that
 * waits at gate (NULL: no wait), opens path O_RDWR|O_DIRECT, runs ops (4 KiB
 * aligned buffer of pseudo-random bytes) and exits 0.  Returns its pid;
 * reap it with h_expect_child_ok() or h_wait_pid(). */
H_API pid_t h_spawn_io(const char *comm, const char *path, const struct h_io *ops, size_t nops,
		       const struct h_gate *gate)
{
	pid_t pid;

	fflush(NULL);
	pid = fork();
	cr_assert(pid >= 0, "fork: %s", strerror(errno));
	if (!pid) {
		uint32_t max = 4096;
		unsigned char *buf;
		char c;
		int fd;

		h__child_prepare(gate ? gate->rfd : -1);
		if (prctl(PR_SET_NAME, comm, 0, 0, 0))
			_exit(H_IO_ERR_NAME);
		if (gate) {
			ssize_t n;

			while ((n = read(gate->rfd, &c, 1)) < 0 && errno == EINTR)
				;
			if (n < 0)
				_exit(H_IO_ERR_GATE);
			close(gate->rfd);
		}
		for (size_t i = 0; i < nops; i++)
			if (ops[i].op != 'd' && ops[i].size > max)
				max = ops[i].size;
		if (posix_memalign((void **)&buf, 4096, max))
			_exit(H_IO_ERR_ALLOC);
		for (uint32_t i = 0, x = 0x9e3779b9U ^ (uint32_t)getpid(); i < max; i++) {
			x ^= x << 13;
			x ^= x >> 17;
			x ^= x << 5;
			buf[i] = (unsigned char)x;
		}
		fd = open(path, O_RDWR | O_DIRECT);
		if (fd < 0)
			_exit(H_IO_ERR_OPEN);
		for (size_t i = 0; i < nops; i++) {
			const struct h_io *op = &ops[i];

			for (uint32_t k = 0; k < op->count; k++) {
				off_t at = (off_t)(op->offset + (uint64_t)k * op->size);
				uint64_t range[2] = { (uint64_t)at, op->size };

				switch (op->op) {
				case 'w':
					if (pwrite(fd, buf, op->size, at) != (ssize_t)op->size)
						_exit(H_IO_ERR_WRITE);
					break;
				case 'r':
					if (pread(fd, buf, op->size, at) != (ssize_t)op->size)
						_exit(H_IO_ERR_READ);
					break;
				case 'd':
					if (ioctl(fd, BLKDISCARD, range))
						_exit(H_IO_ERR_DISCARD);
					break;
				case 'f':
					if (fsync(fd))
						_exit(H_IO_ERR_FSYNC);
					break;
				default:
					_exit(H_IO_ERR_OP);
				}
			}
		}
		close(fd);
		_exit(H_IO_OK);
	}
	h_track_child(pid);
	return pid;
}

/* Text for an I/O child's exit code. */
H_API const char *h_io_error_str(int code)
{
	switch (code) {
	case H_IO_OK: return "ok";
	case H_IO_ERR_NAME: return "prctl(PR_SET_NAME) failed";
	case H_IO_ERR_GATE: return "reading the gate failed";
	case H_IO_ERR_OPEN: return "open(O_DIRECT) failed";
	case H_IO_ERR_ALLOC: return "posix_memalign failed";
	case H_IO_ERR_WRITE: return "pwrite failed or was short";
	case H_IO_ERR_READ: return "pread failed or was short";
	case H_IO_ERR_DISCARD: return "ioctl(BLKDISCARD) failed";
	case H_IO_ERR_FSYNC: return "fsync failed";
	case H_IO_ERR_OP: return "unknown op";
	}
	return "unexpected exit code";
}

/* Assert that child pid exits 0 within timeout_ms (reaps it). */
H_API void h_expect_child_ok(pid_t pid, int timeout_ms)
{
	char why[64];
	int status;

	if (h_wait_pid(pid, timeout_ms, &status)) {
		h_kill_child(pid);
		cr_assert_fail("child %d did not finish within %d ms", (int)pid, timeout_ms);
	}
	cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0, "child %d: %s: %s", (int)pid,
		  h_status_str(status, why, sizeof(why)),
		  WIFEXITED(status) ? h_io_error_str(WEXITSTATUS(status)) : "");
}

/* =============================================================== diskio == */

/* A running diskio: its stdout split into lines (all kept), stderr kept whole. */
struct h_diskio {
	pid_t pid;
	int out_fd, err_fd;	/* read ends; -1 once closed */
	char **lines;		/* every complete stdout line, without its '\n' */
	size_t nlines, lines_cap;
	size_t next;		/* first line h_diskio_next_line() has not returned */
	char *partial;		/* an incomplete last line */
	size_t partial_len, partial_cap;
	char *err;		/* all of stderr, NUL-terminated */
	size_t err_len, err_cap;
	bool exited;
	int status;		/* wait status once exited */
};

/* Start $DISKIO with args (NULL-terminated, without argv[0]); env_add as for
 * h_run().  stdin is /dev/null, stdout and stderr are pipes (so diskio is in
 * batch mode unless --json).  Asserts on failure. */
H_API void h_diskio_start(struct h_diskio *d, const char *const args[],
			  const char *const env_add[])
{
	const char *path = h_diskio_path();
	const char *argv[64];
	int out[2], err[2];
	size_t n = 0;

	memset(d, 0, sizeof(*d));
	d->out_fd = d->err_fd = -1;
	cr_assert(!access(path, X_OK), "diskio binary %s is not executable: set DISKIO=/abs/path",
		  path);
	argv[n++] = path;
	for (size_t i = 0; args && args[i] && n < 63; i++)
		argv[n++] = args[i];
	argv[n] = NULL;
	h__append(&d->err, &d->err_len, &d->err_cap, "", 0);
	cr_assert(!pipe2(out, O_CLOEXEC) && !pipe2(err, O_CLOEXEC), "pipe: %s", strerror(errno));
	fflush(NULL);
	d->pid = fork();
	cr_assert(d->pid >= 0, "fork: %s", strerror(errno));
	if (!d->pid) {
		int devnull = open("/dev/null", O_RDONLY);

		/* A test killed by its timeout takes diskio with it, cleanly. */
		prctl(PR_SET_PDEATHSIG, SIGTERM);
		dup2(devnull, 0);
		dup2(out[1], 1);
		dup2(err[1], 2);
		for (int fd = 3; fd < 1024; fd++)
			close(fd);
		for (size_t i = 0; env_add && env_add[i]; i++)
			putenv((char *)env_add[i]);
		execv(path, (char *const *)argv);
		dprintf(2, "h_diskio_start: cannot run %s: %s\n", path, strerror(errno));
		_exit(127);
	}
	h_track_child(d->pid);
	close(out[1]);
	close(err[1]);
	d->out_fd = out[0];
	d->err_fd = err[0];
}

static void h__diskio_add_output(struct h_diskio *d, const char *data, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (data[i] != '\n') {
			h__append(&d->partial, &d->partial_len, &d->partial_cap, &data[i], 1);
			continue;
		}
		if (d->nlines == d->lines_cap) {
			d->lines_cap = d->lines_cap ? d->lines_cap * 2 : 64;
			d->lines = realloc(d->lines, d->lines_cap * sizeof(*d->lines));
			cr_assert(d->lines, "out of memory");
		}
		d->lines[d->nlines++] = strdup(d->partial ? d->partial : "");
		d->partial_len = 0;
		if (d->partial)
			d->partial[0] = '\0';
	}
}

/* Wait up to timeout_ms (0: just look) for output on stdout or stderr and
 * take in what is there.  Also notices diskio's exit.  Returns the number of
 * new complete stdout lines. */
H_API size_t h_diskio_pump(struct h_diskio *d, int timeout_ms)
{
	struct pollfd fds[2] = { { d->out_fd, POLLIN, 0 }, { d->err_fd, POLLIN, 0 } };
	size_t before = d->nlines;
	char buf[65536];

	if (d->out_fd >= 0 || d->err_fd >= 0) {
		if (poll(fds, 2, timeout_ms) > 0) {
			for (int i = 0; i < 2; i++) {
				ssize_t n;

				if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR)))
					continue;
				n = read(fds[i].fd, buf, sizeof(buf));
				if (n > 0 && i == 0) {
					h__diskio_add_output(d, buf, n);
				} else if (n > 0) {
					h__append(&d->err, &d->err_len, &d->err_cap, buf, n);
				} else if (n == 0 || errno != EINTR) {
					close(fds[i].fd);
					*(i == 0 ? &d->out_fd : &d->err_fd) = -1;
				}
			}
		}
	} else if (timeout_ms > 0) {
		h_sleep_ms(timeout_ms < 10 ? timeout_ms : 10);
	}
	if (!d->exited && waitpid(d->pid, &d->status, WNOHANG) == d->pid) {
		d->exited = true;
		h_untrack_child(d->pid);
	}
	return d->nlines - before;
}

/* The next stdout line not yet returned, waiting up to timeout_ms for it;
 * NULL on timeout or end of output.  The line belongs to d. */
H_API const char *h_diskio_next_line(struct h_diskio *d, int timeout_ms)
{
	int64_t deadline = h_now_ms() + timeout_ms;

	while (d->next >= d->nlines) {
		int64_t left = deadline - h_now_ms();

		if (left <= 0 || (d->out_fd < 0 && d->exited))
			return NULL;
		h_diskio_pump(d, (int)(left < 50 ? left : 50));
	}
	return d->lines[d->next++];
}

/* A line that shows diskio is attached: batch/trace column line ("# time pid
 * comm ...", "# time_s pid ..."), a batch interval ("# time=..."), or any JSON
 * object but the final summary. */
H_API bool h_line_marks_attached(const char *line)
{
	if (!strncmp(line, "# time", 6))
		return true;
	return line[0] == '{' && strncmp(line, "{\"summary\"", 10);
}

/* A line that ends an interval: a JSON interval object, or a batch "# time=" header. */
H_API bool h_line_is_interval(const char *line)
{
	if (!strncmp(line, "# time=", 7))
		return true;
	return !strncmp(line, "{\"time\":\"", 9) && strstr(line, "\"processes\":[") != NULL;
}

/* Log diskio's stderr and its last stdout lines (for a failing assertion). */
H_API void h_diskio_dump(const struct h_diskio *d, const char *why)
{
	size_t from = d->nlines > 5 ? d->nlines - 5 : 0;

	cr_log_error("diskio (%s): pid %d, %zu stdout lines, stderr: %s", why, (int)d->pid,
		     d->nlines, d->err && d->err[0] ? d->err : "(empty)");
	for (size_t i = from; i < d->nlines; i++)
		cr_log_error("diskio stdout[%zu]: %.2000s", i, d->lines[i]);
}

/* Assert that diskio attaches (h_line_marks_attached) within timeout_ms. */
H_API void h_diskio_wait_attached(struct h_diskio *d, int timeout_ms)
{
	int64_t deadline = h_now_ms() + timeout_ms;
	const char *line;

	for (;;) {
		int64_t left = deadline - h_now_ms();

		line = h_diskio_next_line(d, left > 0 ? (int)left : 0);
		if (!line)
			break;
		if (h_line_marks_attached(line))
			return;
	}
	h_diskio_dump(d, "not attached");
	cr_assert_fail("diskio did not attach within %d ms (%s)", timeout_ms,
		       d->exited ? "it exited" : "no output");
}

/* Wait for n intervals that END after this call: first takes in all output
 * already there, then waits for n more interval lines.  At most one of them
 * can hold counts drained before the call (diskio drains, then writes), so
 * with n >= 2 everything done before the call is in the output.  Asserts
 * that they come within timeout_ms. */
H_API void h_diskio_wait_new_intervals(struct h_diskio *d, int n, int timeout_ms)
{
	int64_t deadline = h_now_ms() + timeout_ms;
	int seen = 0;

	while (h_diskio_pump(d, 0))
		;
	d->next = d->nlines;
	while (seen < n) {
		int64_t left = deadline - h_now_ms();
		const char *line = h_diskio_next_line(d, left > 0 ? (int)left : 0);

		if (!line) {
			h_diskio_dump(d, "intervals missing");
			cr_assert_fail("diskio printed %d of %d intervals within %d ms", seen, n,
				       timeout_ms);
		}
		if (h_line_is_interval(line))
			seen++;
	}
}

/* Send sig, take in the rest of the output until diskio exits and closes its
 * output, waiting up to timeout_ms; then SIGKILL.  Returns the wait status,
 * -1 if it had to be killed. */
H_API int h_diskio_stop(struct h_diskio *d, int sig, int timeout_ms)
{
	int64_t deadline = h_now_ms() + timeout_ms;

	if (!d->exited && sig)
		kill(d->pid, sig);
	while (!(d->exited && d->out_fd < 0 && d->err_fd < 0)) {
		int64_t left = deadline - h_now_ms();

		if (left <= 0) {
			if (!d->exited) {
				h_kill_child(d->pid);
				d->exited = true;
				d->status = -1;
			}
			break;
		}
		h_diskio_pump(d, (int)(left < 50 ? left : 50));
	}
	/* A last line without '\n' is kept too. */
	if (d->partial_len) {
		h__diskio_add_output(d, "\n", 1);
	}
	return d->status;
}

/* Close diskio's stdout read end (a reader that went away, like `| head -1`). */
H_API void h_diskio_close_stdout(struct h_diskio *d)
{
	if (d->out_fd >= 0)
		close(d->out_fd);
	d->out_fd = -1;
}

/* The usual end of a counting test: wait for n_intervals new intervals (see
 * h_diskio_wait_new_intervals; use 2), stop with SIGINT, assert exit 0 and
 * that the last line is the summary (JSON or batch). */
H_API void h_diskio_finish(struct h_diskio *d, int n_intervals)
{
	char why[64];
	int status;
	const char *last;

	h_diskio_wait_new_intervals(d, n_intervals, 5000 + n_intervals * 3000);
	status = h_diskio_stop(d, SIGINT, H_EXIT_TIMEOUT_MS);
	if (!(WIFEXITED(status) && WEXITSTATUS(status) == 0) || status == -1) {
		h_diskio_dump(d, "bad exit");
		cr_assert_fail("diskio after SIGINT: %s", h_status_str(status, why, sizeof(why)));
	}
	last = d->nlines ? d->lines[d->nlines - 1] : "";
	cr_assert(!strncmp(last, "{\"summary\":", 11) || !strncmp(last, "# crash ", 8),
		  "diskio's last line is not its summary: %.300s", last);
}

/* Kill diskio if it still runs, close its pipes, free its lines. */
H_API void h_diskio_free(struct h_diskio *d)
{
	if (d->pid > 0 && !d->exited) {
		h_kill_child(d->pid);
		d->exited = true;
	}
	if (d->out_fd >= 0)
		close(d->out_fd);
	if (d->err_fd >= 0)
		close(d->err_fd);
	for (size_t i = 0; i < d->nlines; i++)
		free(d->lines[i]);
	free(d->lines);
	free(d->partial);
	free(d->err);
	memset(d, 0, sizeof(*d));
	d->out_fd = d->err_fd = -1;
}

/* ================================================================= JSON == */
/*
 * A small validating JSON reader for diskio's NDJSON.  A struct h_jv is a view
 * of one value inside a line (no copies, no allocation).  Strings are compared
 * and extracted unescaped; diskio writes \u00XX for control bytes and for bytes
 * outside valid UTF-8 ("Latin-1"), which h_json_str turns back into that byte,
 * so the original comm bytes are recovered.
 */

struct h_jv {
	const char *p;
	size_t len;
};

static const char *h__ws(const char *p, const char *end)
{
	while (p < end && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r'))
		p++;
	return p;
}

static const char *h__skip_string(const char *p, const char *end)
{
	if (p >= end || *p != '"')
		return NULL;
	for (p++; p < end; p++) {
		unsigned char c = *p;

		if (c == '"')
			return p + 1;
		if (c < 0x20)
			return NULL;
		if (c != '\\')
			continue;
		if (++p >= end)
			return NULL;
		if (*p == 'u') {
			for (int i = 0; i < 4; i++)
				if (++p >= end || !isxdigit((unsigned char)*p))
					return NULL;
		} else if (!strchr("\"\\/bfnrt", *p)) {
			return NULL;
		}
	}
	return NULL;
}

static const char *h__skip_value(const char *p, const char *end, int depth)
{
	p = h__ws(p, end);
	if (p >= end || depth > 64)
		return NULL;
	if (*p == '"')
		return h__skip_string(p, end);
	if (*p == '{' || *p == '[') {
		char close = *p == '{' ? '}' : ']';

		p = h__ws(p + 1, end);
		if (p < end && *p == close)
			return p + 1;
		for (;;) {
			if (close == '}') {
				p = h__skip_string(h__ws(p, end), end);
				if (!p)
					return NULL;
				p = h__ws(p, end);
				if (p >= end || *p != ':')
					return NULL;
				p++;
			}
			p = h__skip_value(p, end, depth + 1);
			if (!p)
				return NULL;
			p = h__ws(p, end);
			if (p < end && *p == ',') {
				p++;
				continue;
			}
			if (p < end && *p == close)
				return p + 1;
			return NULL;
		}
	}
	if (!strncmp(p, "true", 4) && end - p >= 4)
		return p + 4;
	if (!strncmp(p, "false", 5) && end - p >= 5)
		return p + 5;
	if (!strncmp(p, "null", 4) && end - p >= 4)
		return p + 4;
	{
		const char *start = p;
		bool digit = false;

		if (p < end && *p == '-')
			p++;
		while (p < end && (isdigit((unsigned char)*p) || *p == '.' || *p == 'e' ||
				   *p == 'E' || *p == '+' || *p == '-')) {
			digit |= isdigit((unsigned char)*p) != 0;
			p++;
		}
		return digit && p > start ? p : NULL;
	}
}

/* Parse a whole line as one JSON value (validating it); false if malformed. */
H_API bool h_json_parse(const char *line, struct h_jv *root)
{
	const char *end = line + strlen(line), *p = h__ws(line, end), *after;

	after = h__skip_value(p, end, 0);
	if (!after || h__ws(after, end) != end)
		return false;
	root->p = p;
	root->len = after - p;
	return true;
}

/* Iterate an object: *pos starts at 0; each call gives the next key (a string
 * value, quotes included) and value.  false at the end (or not an object). */
H_API bool h_json_next_member(struct h_jv obj, size_t *pos, struct h_jv *key, struct h_jv *val)
{
	const char *end = obj.p + obj.len, *p = obj.p + *pos, *k, *v;

	if (!*pos) {
		p = h__ws(p, end);
		if (p >= end || *p != '{')
			return false;
		p++;
	}
	p = h__ws(p, end);
	if (p < end && *p == ',')
		p = h__ws(p + 1, end);
	if (p >= end || *p != '"')
		return false;
	k = p;
	p = h__skip_string(p, end);
	if (!p)
		return false;
	key->p = k;
	key->len = p - k;
	p = h__ws(p, end);
	if (p >= end || *p != ':')
		return false;
	v = h__ws(p + 1, end);
	p = h__skip_value(v, end, 0);
	if (!p)
		return false;
	val->p = v;
	val->len = p - v;
	*pos = p - obj.p;
	return true;
}

/* Iterate an array: *pos starts at 0; false at the end (or not an array). */
H_API bool h_json_next_elem(struct h_jv arr, size_t *pos, struct h_jv *val)
{
	const char *end = arr.p + arr.len, *p = arr.p + *pos, *v;

	if (!*pos) {
		p = h__ws(p, end);
		if (p >= end || *p != '[')
			return false;
		p++;
	}
	p = h__ws(p, end);
	if (p < end && *p == ',')
		p = h__ws(p + 1, end);
	if (p >= end || *p == ']')
		return false;
	v = p;
	p = h__skip_value(v, end, 0);
	if (!p)
		return false;
	val->p = v;
	val->len = p - v;
	*pos = p - arr.p;
	return true;
}

/* Unescape string value v into buf (NUL-terminated; \u0000-\u00ff become that
 * byte, higher code points UTF-8).  Length, or -1 if v is not a string or buf
 * is too small.  Embedded NULs are kept (length tells). */
H_API ssize_t h_json_str(struct h_jv v, char *buf, size_t size)
{
	const char *p = v.p, *end = v.p + v.len;
	size_t n = 0;

	if (v.len < 2 || *p != '"' || end[-1] != '"')
		return -1;
	for (p++, end--; p < end; p++) {
		char out[4];
		size_t k = 1;

		out[0] = *p;
		if (*p == '\\') {
			p++;
			switch (*p) {
			case 'b': out[0] = '\b'; break;
			case 'f': out[0] = '\f'; break;
			case 'n': out[0] = '\n'; break;
			case 'r': out[0] = '\r'; break;
			case 't': out[0] = '\t'; break;
			case 'u': {
				char hex[5] = { p[1], p[2], p[3], p[4], 0 };
				unsigned long cp = strtoul(hex, NULL, 16);

				p += 4;
				if (cp < 0x100) {
					out[0] = (char)cp;
				} else if (cp < 0x800) {
					out[0] = (char)(0xc0 | (cp >> 6));
					out[1] = (char)(0x80 | (cp & 0x3f));
					k = 2;
				} else {
					out[0] = (char)(0xe0 | (cp >> 12));
					out[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
					out[2] = (char)(0x80 | (cp & 0x3f));
					k = 3;
				}
				break;
			}
			default: out[0] = *p; break;	/* " \ / */
			}
		}
		if (n + k + 1 > size)
			return -1;
		memcpy(buf + n, out, k);
		n += k;
	}
	buf[n] = '\0';
	return n;
}

/* Whether string value v, unescaped, is exactly s. */
H_API bool h_json_str_eq(struct h_jv v, const char *s)
{
	char buf[512];
	ssize_t n = h_json_str(v, buf, sizeof(buf));

	return n >= 0 && (size_t)n == strlen(s) && !memcmp(buf, s, n);
}

/* Value of key in object obj (first match); false if absent. */
H_API bool h_json_get(struct h_jv obj, const char *key, struct h_jv *val)
{
	struct h_jv k;
	size_t pos = 0;

	while (h_json_next_member(obj, &pos, &k, val))
		if (h_json_str_eq(k, key))
			return true;
	return false;
}

/* A whole-number value (no fraction, no exponent) into *out. */
H_API bool h_json_int(struct h_jv v, int64_t *out)
{
	char buf[32];
	char *end;
	long long x;

	if (!v.len || v.len >= sizeof(buf))
		return false;
	memcpy(buf, v.p, v.len);
	buf[v.len] = '\0';
	if (!isdigit((unsigned char)buf[buf[0] == '-']))
		return false;
	errno = 0;
	x = strtoll(buf, &end, 10);
	if (errno || *end)
		return false;
	*out = x;
	return true;
}

/* Integer key of object obj; false if absent or not an integer. */
H_API bool h_json_get_int(struct h_jv obj, const char *key, int64_t *out)
{
	struct h_jv v;

	return h_json_get(obj, key, &v) && h_json_int(v, out);
}

/* The I/O counters diskio shows for a process or a device. */
struct h_counters {
	int64_t read_bytes, write_bytes, discard_bytes;
	int64_t read_ios, write_ios, discard_ios;
	int64_t flushes;
};

/* Read all seven counters of a process or device object; false if one is
 * missing or not an integer. */
H_API bool h_json_counters(struct h_jv obj, struct h_counters *c)
{
	return h_json_get_int(obj, "read_bytes", &c->read_bytes) &&
	       h_json_get_int(obj, "write_bytes", &c->write_bytes) &&
	       h_json_get_int(obj, "discard_bytes", &c->discard_bytes) &&
	       h_json_get_int(obj, "read_ios", &c->read_ios) &&
	       h_json_get_int(obj, "write_ios", &c->write_ios) &&
	       h_json_get_int(obj, "discard_ios", &c->discard_ios) &&
	       h_json_get_int(obj, "flushes", &c->flushes);
}

H_API void h_counters_add(struct h_counters *sum, const struct h_counters *c)
{
	sum->read_bytes += c->read_bytes;
	sum->write_bytes += c->write_bytes;
	sum->discard_bytes += c->discard_bytes;
	sum->read_ios += c->read_ios;
	sum->write_ios += c->write_ios;
	sum->discard_ios += c->discard_ios;
	sum->flushes += c->flushes;
}

/* "rb=.. wb=.. db=.. rio=.. wio=.. dio=.. fl=.." for messages. */
H_API const char *h_counters_str(const struct h_counters *c, char *buf, size_t size)
{
	snprintf(buf, size, "read_bytes=%" PRId64 " write_bytes=%" PRId64 " discard_bytes=%"
		 PRId64 " read_ios=%" PRId64 " write_ios=%" PRId64 " discard_ios=%" PRId64
		 " flushes=%" PRId64, c->read_bytes, c->write_bytes, c->discard_bytes,
		 c->read_ios, c->write_ios, c->discard_ios, c->flushes);
	return buf;
}

/* diskio's per-interval object: {"time":"...","interval_s":..,"processes":[..],...}. */
H_API bool h_json_is_interval(const char *line)
{
	return !strncmp(line, "{\"time\":\"", 9) && strstr(line, "\"processes\":[") != NULL;
}

/* diskio's final line: {"summary":{...}}. */
H_API bool h_json_is_summary(const char *line)
{
	return !strncmp(line, "{\"summary\":{", 12);
}

/* The "processes" array of an interval line; false if the line is not valid
 * JSON or has none. */
H_API bool h_json_processes(const char *line, struct h_jv *arr)
{
	struct h_jv root;

	return h_json_parse(line, &root) && h_json_get(root, "processes", arr) &&
	       arr->len && arr->p[0] == '[';
}

/* The "devices" object of an interval line. */
H_API bool h_json_devices(const char *line, struct h_jv *obj)
{
	struct h_jv root;

	return h_json_parse(line, &root) && h_json_get(root, "devices", obj) &&
	       obj->len && obj->p[0] == '{';
}

/* In an interval line, the process object with "pid":pid and "device":device
 * (the first one; diskio has one per pid, comm and device). */
H_API bool h_json_find_process(const char *line, uint32_t pid, const char *device,
			       struct h_jv *obj)
{
	struct h_jv arr;
	size_t pos = 0;

	if (!h_json_processes(line, &arr))
		return false;
	while (h_json_next_elem(arr, &pos, obj)) {
		struct h_jv dev;
		int64_t p;

		if (h_json_get_int(*obj, "pid", &p) && p == pid &&
		    h_json_get(*obj, "device", &dev) && h_json_str_eq(dev, device))
			return true;
	}
	return false;
}

/* In an interval line, the object of device name in "devices":{"NAME":{...}}. */
H_API bool h_json_find_device(const char *line, const char *name, struct h_jv *obj)
{
	struct h_jv devices, key;
	size_t pos = 0;

	if (!h_json_devices(line, &devices))
		return false;
	while (h_json_next_member(devices, &pos, &key, obj))
		if (h_json_str_eq(key, name))
			return true;
	return false;
}

/* Sum, over the interval lines among lines[0..n), the counters of process
 * objects with pid (0: any), device (NULL: any) and comm (NULL: any).  Returns
 * how many objects matched. */
H_API int h_json_sum_process(char *const *lines, size_t n, uint32_t pid, const char *device,
			     const char *comm, struct h_counters *sum)
{
	int matched = 0;

	memset(sum, 0, sizeof(*sum));
	for (size_t i = 0; i < n; i++) {
		struct h_jv arr, obj, v;
		size_t pos = 0;

		if (!h_json_is_interval(lines[i]) || !h_json_processes(lines[i], &arr))
			continue;
		while (h_json_next_elem(arr, &pos, &obj)) {
			struct h_counters c;
			int64_t p;

			if (pid && !(h_json_get_int(obj, "pid", &p) && p == pid))
				continue;
			if (device && !(h_json_get(obj, "device", &v) && h_json_str_eq(v, device)))
				continue;
			if (comm && !(h_json_get(obj, "comm", &v) && h_json_str_eq(v, comm)))
				continue;
			if (h_json_counters(obj, &c)) {
				h_counters_add(sum, &c);
				matched++;
			}
		}
	}
	return matched;
}

/* Sum the counters of device name over the interval lines among lines[0..n).
 * Returns in how many lines it appeared. */
H_API int h_json_sum_device(char *const *lines, size_t n, const char *name,
			    struct h_counters *sum)
{
	int matched = 0;

	memset(sum, 0, sizeof(*sum));
	for (size_t i = 0; i < n; i++) {
		struct h_counters c;
		struct h_jv obj;

		if (h_json_is_interval(lines[i]) && h_json_find_device(lines[i], name, &obj) &&
		    h_json_counters(obj, &c)) {
			h_counters_add(sum, &c);
			matched++;
		}
	}
	return matched;
}

/* Sum of "lost":{"events":N} over the interval lines. */
H_API int64_t h_json_sum_lost(char *const *lines, size_t n)
{
	int64_t sum = 0;

	for (size_t i = 0; i < n; i++) {
		struct h_jv root, lost;
		int64_t events;

		if (h_json_is_interval(lines[i]) && h_json_parse(lines[i], &root) &&
		    h_json_get(root, "lost", &lost) && h_json_get_int(lost, "events", &events))
			sum += events;
	}
	return sum;
}

/* ================================================================ batch == */

#define H_BATCH_FIELDS 12	/* time pid comm device 7 counters avg_latency_us */

/* Split line at runs of whitespace (isspace) into copies in fields[] (at most
 * max; the caller frees each).  Returns the number of fields found (which may
 * exceed max). */
H_API int h_split_fields(const char *line, char **fields, int max)
{
	int n = 0;

	while (*line) {
		const char *start;

		while (*line && isspace((unsigned char)*line))
			line++;
		if (!*line)
			break;
		start = line;
		while (*line && !isspace((unsigned char)*line))
			line++;
		if (n < max)
			fields[n] = strndup(start, line - start);
		n++;
	}
	return n;
}

H_API void h_free_fields(char **fields, int n, int max)
{
	for (int i = 0; i < n && i < max; i++)
		free(fields[i]);
}

/* A batch data line. */
struct h_batch_row {
	char time[40];
	uint32_t pid;
	char comm[128];		/* as printed: escaped (\xHH) */
	char device[64];
	struct h_counters c;
	char latency[32];	/* "-" or a number */
};

static bool h__parse_u64_field(const char *s, int64_t *out)
{
	char *end;

	if (!isdigit((unsigned char)*s))
		return false;
	errno = 0;
	*out = (int64_t)strtoull(s, &end, 10);
	return !errno && !*end;
}

/* Parse a batch data line: exactly H_BATCH_FIELDS fields, integers where
 * integers belong.  false otherwise. */
H_API bool h_batch_parse_row(const char *line, struct h_batch_row *row)
{
	char *f[H_BATCH_FIELDS + 1];
	int n = h_split_fields(line, f, H_BATCH_FIELDS + 1);
	int64_t pid, *counters[7] = { &row->c.read_bytes, &row->c.write_bytes,
				      &row->c.discard_bytes, &row->c.read_ios,
				      &row->c.write_ios, &row->c.discard_ios, &row->c.flushes };
	bool ok = n == H_BATCH_FIELDS;

	memset(row, 0, sizeof(*row));
	if (ok) {
		snprintf(row->time, sizeof(row->time), "%s", f[0]);
		ok = h__parse_u64_field(f[1], &pid);
		row->pid = (uint32_t)pid;
		snprintf(row->comm, sizeof(row->comm), "%s", f[2]);
		snprintf(row->device, sizeof(row->device), "%s", f[3]);
		for (int i = 0; ok && i < 7; i++)
			ok = h__parse_u64_field(f[4 + i], counters[i]);
		snprintf(row->latency, sizeof(row->latency), "%s", f[11]);
	}
	h_free_fields(f, n, H_BATCH_FIELDS + 1);
	return ok;
}

/* ================================================================== BPF == */

/* Names of diskio's BPF programs (diskio.bpf.c).  bpftool shows the full name
 * (from BTF) or the kernel's 15-byte truncation ("handle_bio_queu"). */
static const char *const h_diskio_prog_names[] = {
	"handle_bio_queue", "handle_bio_complete", "handle_io_start", "handle_io_done",
	"handle_rq_issue", "handle_rq_complete", "handle_rq_issue_raw",
	"handle_rq_complete_raw", "handle_exit", "handle_exit_legacy", NULL,
};

/* Whether name is (the 15-byte truncation of) one of diskio's program names. */
H_API bool h_is_diskio_prog_name(const char *name)
{
	for (int i = 0; h_diskio_prog_names[i]; i++) {
		const char *full = h_diskio_prog_names[i];

		if (!strcmp(name, full) ||
		    (strlen(name) == 15 && strlen(full) > 15 && !strncmp(name, full, 15)))
			return true;
	}
	return false;
}

struct h_prog {
	uint32_t id;
	char name[64];
	char type[32];
};

/* Programs loaded in the kernel (`bpftool prog show`, "ID: TYPE  name NAME").
 * Fills up to max, returns how many there are, -1 if bpftool failed. */
H_API int h_bpftool_progs(struct h_prog *progs, int max)
{
	struct h_result r;
	char *line, *save = NULL;
	int n = 0;

	h_run(H_ARGS("bpftool", "prog", "show"), NULL, NULL, 20000, &r);
	if (r.status != 0) {
		cr_log_error("bpftool prog show: status %d, stderr %s", r.status, r.err);
		h_result_free(&r);
		return -1;
	}
	for (line = strtok_r(r.out, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		struct h_prog p = { 0 };
		const char *name;

		if (!isdigit((unsigned char)line[0]) ||
		    sscanf(line, "%" SCNu32 ": %31s", &p.id, p.type) != 2)
			continue;
		name = strstr(line, " name ");
		if (name)
			sscanf(name + 6, "%63s", p.name);
		if (n < max)
			progs[n] = p;
		n++;
	}
	h_result_free(&r);
	return n;
}

/* IDs of the BPF programs process pid holds: "prog_id:" in the fdinfo of its
 * program and link descriptors (each ID once).  Returns how many (<= max). */
H_API int h_pid_bpf_prog_ids(pid_t pid, uint32_t *ids, int max)
{
	char path[64];
	DIR *dir;
	struct dirent *e;
	int n = 0;

	snprintf(path, sizeof(path), "/proc/%d/fdinfo", (int)pid);
	dir = opendir(path);
	if (!dir)
		return 0;
	while ((e = readdir(dir))) {
		char file[384], buf[4096], *at;
		uint32_t id;
		bool dup = false;

		if (e->d_name[0] == '.')
			continue;
		snprintf(file, sizeof(file), "%s/%s", path, e->d_name);
		if (h_read_file(file, buf, sizeof(buf)) <= 0)
			continue;
		at = strstr(buf, "prog_id:");
		if (!at || sscanf(at + 8, "%" SCNu32, &id) != 1)
			continue;
		for (int i = 0; i < n; i++)
			dup |= ids[i] == id;
		if (!dup && n < max)
			ids[n++] = id;
	}
	closedir(dir);
	return n;
}

#endif /* DISKIO_TEST_HARNESS_H */
