// SPDX-License-Identifier: GPL-2.0
/* harness.c: helpers for diskio's root integration tests; see harness.h. */
#define H__HARNESS_C	/* no CRITERION_JOBS constructor here: see harness.h */
#include "harness.h"

#include <math.h>
#include <pthread.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/sysmacros.h>

#include "json_reader.h"

/* ================================================================ time == */

int64_t h_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

void h_sleep_ms(int ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

/* ============================================================== children == */

#define H_MAX_CHILDREN 64

static pid_t h__children[H_MAX_CHILDREN];
static pid_t h__owner;		/* the test process; 0 before h_setup() */

void h_track_child(pid_t pid)
{
	for (int i = 0; i < H_MAX_CHILDREN; i++) {
		if (!h__children[i]) {
			h__children[i] = pid;
			return;
		}
	}
}

void h_untrack_child(pid_t pid)
{
	for (int i = 0; i < H_MAX_CHILDREN; i++)
		if (h__children[i] == pid)
			h__children[i] = 0;
}

int h_wait_pid(pid_t pid, int timeout_ms, int *status)
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

void h_kill_child(pid_t pid)
{
	if (pid <= 0)
		return;
	kill(pid, SIGKILL);
	h_wait_pid(pid, 5000, NULL);
}

const char *h_status_str(int status, char *buf, size_t size)
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

void h__child_prepare(int keep)
{
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() == 1)
		_exit(99);
	for (int fd = 3; fd < 1024; fd++)
		if (fd != keep)
			close(fd);
}

/* ================================================================ files == */

int h_write_file(const char *path, const char *text)
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

ssize_t h_read_file(const char *path, char *buf, size_t size)
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

char *h_read_text(const char *path)
{
	FILE *in = fopen(path, "r");
	char *text = NULL;
	size_t size = 0;

	if (!in)
		return NULL;
	if (getdelim(&text, &size, '\0', in) < 0) {
		free(text);
		text = strdup("");
	}
	fclose(in);
	return text;
}

static void h__remove_tree(const char *dir, int depth)
{
	struct dirent *entry;
	DIR *d = opendir(dir);

	if (!d)
		return;
	while ((entry = readdir(d))) {
		char path[PATH_MAX];

		if (!strcmp(entry->d_name, ".") || !strcmp(entry->d_name, ".."))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, entry->d_name);
		if (unlink(path) && errno == EISDIR && depth < 8)
			h__remove_tree(path, depth + 1);
	}
	closedir(d);
	rmdir(dir);
}

void h_remove_tree(const char *dir)
{
	h__remove_tree(dir, 0);
}

/* ============================================================= commands == */

void h_result_free(struct h_result *r)
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

/* In a freshly forked child about to exec: stdin from /dev/null, stdout and
 * stderr to the given pipe ends, every other descriptor closed, deathsig
 * when the test dies, env_add put in the environment. */
static void h__child_with_pipes(int out_fd, int err_fd, int deathsig,
				const char *const env_add[])
{
	int devnull = open("/dev/null", O_RDONLY);

	prctl(PR_SET_PDEATHSIG, deathsig);
	dup2(devnull, 0);
	dup2(out_fd, 1);
	dup2(err_fd, 2);
	for (int fd = 3; fd < 1024; fd++)
		close(fd);
	for (size_t i = 0; env_add && env_add[i]; i++)
		putenv((char *)env_add[i]);
}

int h_runx(const char *exe, const char *const argv[], const char *const env_add[],
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
		h__child_with_pipes(out[1], err[1], SIGKILL, env_add);
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

int h_run(const char *const argv[], const char *const env_add[], const struct h_creds *as,
	  int timeout_ms, struct h_result *r)
{
	return h_runx(argv[0], argv, env_add, as, timeout_ms, r);
}

void h_drop_notes(char *text)
{
	char *to = text;

	for (char *line = text; *line;) {
		char *next = strchr(line, '\n');
		size_t len = next ? (size_t)(next + 1 - line) : strlen(line);

		if (strncmp(line, "diskio: note: ", 14)) {
			memmove(to, line, len);
			to += len;
		}
		line += len;
	}
	*to = '\0';
}

bool h_have_program(const char *name)
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

void h_udev_settle(void)
{
	struct h_result r;

	if (!h_have_program("udevadm"))
		return;
	h_run(H_ARGS("udevadm", "settle", "--timeout=10"), NULL, NULL, 15000, &r);
	h_result_free(&r);
}

/* ================================================================ setup == */

static int h__lock_fd = -1;

const char *h_diskio_path(void)
{
	const char *path = getenv("DISKIO");

	return path && *path ? path : "./diskio";
}

void h_require_root(void)
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
static void h__remove_throttle_group(void);

void h_cleanup(void)
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
	h__remove_throttle_group();	/* after its tasks, before its disk */
	h__cleanup_devices();
	if (h__lock_fd >= 0) {
		close(h__lock_fd);
		h__lock_fd = -1;
	}
}

void h_setup(void)
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

void h_teardown(void)
{
	h_cleanup();
}

/* ============================================================== devices == */

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

void h_unmount(const char *dir)
{
	struct h_result r;
	bool done = false;

	for (int tries = 0; tries < 20 && !done; tries++) {
		h_run(H_ARGS("umount", dir), NULL, NULL, 20000, &r);
		done = r.status == 0;
		h_result_free(&r);
		if (!done)
			h_sleep_ms(100);
	}
	if (!done) {
		h_run(H_ARGS("umount", "-l", dir), NULL, NULL, 20000, &r);
		h_result_free(&r);
	}
	rmdir(dir);
}

void h_dev_remove(const struct h_dev *cdev)
{
	struct h_dev *dev = (struct h_dev *)cdev;

	if (!dev || !dev->used)
		return;
	if (dev->kind == H_ZRAM) {
		h__zram_remove_index(dev->index);
		if (dev->mark[0])
			unlink(dev->mark);
	} else if (dev->kind == H_MOUNT) {
		h_unmount(dev->path);
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

/* Newest first: a loop device goes before the filesystem its file is on,
 * which goes before its disk. */
static void h__cleanup_devices(void)
{
	for (int i = H_MAX_DEVS - 1; i >= 0; i--)
		if (h__devs[i].used)
			h_dev_remove(&h__devs[i]);
}

const struct h_dev *h_zram_create(uint64_t size)
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

const struct h_dev *h_loop_create(uint64_t size)
{
	static int seq;
	char path[256];

	snprintf(path, sizeof(path), H_STATE_DIR "/loop-%d-%d.img", (int)getpid(), seq++);
	return h_loop_attach(path, size, false);
}

const struct h_dev *h_loop_attach(const char *path, uint64_t size, bool direct_io)
{
	struct h_dev *dev = h__dev_slot();
	struct h_result r;
	char *nl, *base;
	int fd;

	dev->kind = H_LOOP;
	snprintf(dev->backing, sizeof(dev->backing), "%s", path);
	fd = open(dev->backing, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	cr_assert(fd >= 0, "harness: create %s: %s", dev->backing, strerror(errno));
	cr_assert(!ftruncate(fd, (off_t)size), "harness: ftruncate: %s", strerror(errno));
	close(fd);
	if (direct_io)
		h_run(H_ARGS("losetup", "-f", "--show", "--direct-io=on", dev->backing), NULL,
		      NULL, 20000, &r);
	else
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

/* A new directory to mount on, in a slot of its own, cleaned up as a mount. */
static struct h_dev *h__mount_slot(void)
{
	struct h_dev *dev = h__dev_slot();

	dev->kind = H_MOUNT;
	snprintf(dev->path, sizeof(dev->path), H_STATE_DIR "/mnt-%d.XXXXXX", (int)getpid());
	if (!mkdtemp(dev->path)) {
		dev->used = false;
		cr_assert_fail("harness: mkdtemp: %s", strerror(errno));
	}
	return dev;
}

const struct h_dev *h_tmpfs_mount(const char *size)
{
	struct h_dev *dev = h__mount_slot();
	struct h_result r;
	char options[64];

	snprintf(options, sizeof(options), "size=%s,mode=0700", size);
	h_run(H_ARGS("mount", "-t", "tmpfs", "-o", options, "tmpfs", dev->path), NULL, NULL,
	      30000, &r);
	cr_assert(r.status == 0, "harness: mount tmpfs: %s", r.err);
	h_result_free(&r);
	return dev;
}

const struct h_dev *h_xfs_mount(const struct h_dev *disk)
{
	struct h_dev *dev;
	struct h_result r;
	char why[64];

	if (!h_have_program("mkfs.xfs"))
		cr_skip_test("mkfs.xfs not installed (xfsprogs)");
	h_run(H_ARGS("mkfs.xfs", "-q", "-f", "-K", disk->path), NULL, NULL, 120000, &r);
	cr_assert(r.status == 0, "harness: mkfs.xfs %s: %s: %s", disk->path,
		  h_status_str(r.status, why, sizeof(why)), r.err);
	h_result_free(&r);
	h_udev_settle();
	dev = h__mount_slot();
	h_run(H_ARGS("mount", "-t", "xfs", disk->path, dev->path), NULL, NULL, 30000, &r);
	cr_assert(r.status == 0, "harness: mount %s: %s", disk->path, r.err);
	h_result_free(&r);
	h_run(H_ARGS("sync"), NULL, NULL, 60000, &r);
	h_result_free(&r);
	h_udev_settle();
	return dev;
}

const struct h_dev *h_ext4_mount(const struct h_dev *disk)
{
	struct h_dev *dev;
	struct h_result r;
	char why[64];

	if (!h_have_program("mkfs.ext4"))
		cr_skip_test("mkfs.ext4 not installed");
	h_run(H_ARGS("mkfs.ext4", "-q", "-F", "-E",
		     "lazy_itable_init=0,lazy_journal_init=0,nodiscard", disk->path),
	      NULL, NULL, 120000, &r);
	cr_assert(r.status == 0, "harness: mkfs.ext4 %s: %s: %s", disk->path,
		  h_status_str(r.status, why, sizeof(why)), r.err);
	h_result_free(&r);
	h_udev_settle();
	dev = h__mount_slot();
	/* No background reads of block bitmaps if the kernel knows the
	 * option (5.9+). */
	h_run(H_ARGS("mount", "-t", "ext4", "-o", "no_prefetch_block_bitmaps", disk->path,
		     dev->path), NULL, NULL, 30000, &r);
	h_result_free(&r);
	if (r.status != 0) {
		h_run(H_ARGS("mount", "-t", "ext4", disk->path, dev->path), NULL, NULL, 30000, &r);
		cr_assert(r.status == 0, "harness: mount %s: %s", disk->path, r.err);
		h_result_free(&r);
	}
	h_run(H_ARGS("sync"), NULL, NULL, 60000, &r);
	h_result_free(&r);
	h_udev_settle();
	return dev;
}

/* ============================================================ diskstats == */

bool h_diskstats_read(const char *name, struct h_diskstats *s)
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
		if (n >= 16)
			s->flush_ios = v[15];
		found = true;
	}
	fclose(f);
	return found;
}

struct h_diskstats h_diskstats_delta(const struct h_diskstats *before,
				     const struct h_diskstats *after)
{
	struct h_diskstats d = {
		.read_ios = after->read_ios - before->read_ios,
		.read_sectors = after->read_sectors - before->read_sectors,
		.write_ios = after->write_ios - before->write_ios,
		.write_sectors = after->write_sectors - before->write_sectors,
		.discard_ios = after->discard_ios - before->discard_ios,
		.discard_sectors = after->discard_sectors - before->discard_sectors,
		.flush_ios = after->flush_ios - before->flush_ios,
		.nfields = after->nfields,
	};
	return d;
}

/* ===================================================== I/O children == */

void h_gate_init(struct h_gate *g)
{
	int fds[2];

	cr_assert(!pipe2(fds, O_CLOEXEC), "pipe: %s", strerror(errno));
	g->rfd = fds[0];
	g->wfd = fds[1];
}

void h_gate_open(struct h_gate *g)
{
	if (g->wfd >= 0)
		close(g->wfd);
	g->wfd = -1;
}

void h_gate_close(struct h_gate *g)
{
	h_gate_open(g);
	if (g->rfd >= 0)
		close(g->rfd);
	g->rfd = -1;
}

pid_t h_start_fio(const char *path, const char *const args[])
{
	char filename[PATH_MAX + 16];
	const char *argv[64];
	size_t n = 0;
	pid_t pid;

	snprintf(filename, sizeof(filename), "--filename=%s", path);
	argv[n++] = "fio";
	for (size_t i = 0; args[i] && n < 61; i++)
		argv[n++] = args[i];
	argv[n++] = filename;
	argv[n++] = "--thread";
	argv[n] = NULL;
	fflush(NULL);
	pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		int null_fd;

		h__child_prepare(-1);
		null_fd = open("/dev/null", O_WRONLY);
		dup2(null_fd, STDOUT_FILENO);
		dup2(null_fd, STDERR_FILENO);
		execvp("fio", (char *const *)argv);
		_exit(127);
	}
	h_track_child(pid);
	return pid;
}

pid_t h_spawn_io(const char *comm, const char *path, const struct h_io *ops, size_t nops,
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

const char *h_io_error_str(int code)
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

void h_expect_child_ok(pid_t pid, int timeout_ms)
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

void h_diskio_start(struct h_diskio *d, const char *const args[], const char *const env_add[])
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
		/* A test killed by its timeout takes diskio with it, cleanly. */
		h__child_with_pipes(out[1], err[1], SIGTERM, env_add);
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

size_t h_diskio_pump(struct h_diskio *d, int timeout_ms)
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

const char *h_diskio_next_line(struct h_diskio *d, int timeout_ms)
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

bool h_line_marks_attached(const char *line)
{
	if (!strncmp(line, "# time", 6))
		return true;
	/* JSON's start record comes as counting begins: the tests that wait
	 * for it read it themselves (h_expect_json_output() checks it) */
	return line[0] == '{' && !h_json_is_summary(line) &&
	       strncmp(line, "{\"type\":\"start\",", 16);
}

bool h_line_is_interval(const char *line)
{
	if (!strncmp(line, "# time=", 7) || !strncmp(line, "# interval ", 11))
		return true;
	/* JSON records start with their type (trace mode's intervals have no
	 * "processes"). */
	return !strncmp(line, "{\"type\":\"interval\",", 19) &&
	       h_json_parse(line, &(struct h_jv){ 0 });
}

void h_diskio_dump(const struct h_diskio *d, const char *why)
{
	size_t from = d->nlines > 5 ? d->nlines - 5 : 0;

	cr_log_error("diskio (%s): pid %d, %zu stdout lines, stderr: %s", why, (int)d->pid,
		     d->nlines, d->err && d->err[0] ? d->err : "(empty)");
	for (size_t i = from; i < d->nlines; i++)
		cr_log_error("diskio stdout[%zu]: %.2000s", i, d->lines[i]);
}

void h_diskio_wait_attached(struct h_diskio *d, int timeout_ms)
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

void h_diskio_wait_new_intervals(struct h_diskio *d, int n, int timeout_ms)
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

int h_diskio_stop(struct h_diskio *d, int sig, int timeout_ms)
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

void h_diskio_close_stdout(struct h_diskio *d)
{
	if (d->out_fd >= 0)
		close(d->out_fd);
	d->out_fd = -1;
}

void h_diskio_finish(struct h_diskio *d, int n_intervals)
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
	cr_assert(h_json_is_summary(last) || !strncmp(last, "# crash ", 8),
		  "diskio's last line is not its summary: %.300s", last);
}

void h_diskio_free(struct h_diskio *d)
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
 * The views are read with the tests' strict parser (json_reader.c).  The
 * last text parsed is kept (where it was, a copy of it to tell whether it is
 * still there, and its tree, whose src pointers point into it), so that a view
 * inside it (a member, an element) is found in its tree rather than parsed
 * again: walking a line member by member stays linear.
 */
static struct {
	uintptr_t p;
	size_t len;
	char *copy;		/* NULL: nothing kept */
	bool ok;		/* root is the text's tree (else the text is not JSON) */
	struct jnode root;
} h__jlast;
static struct jnode h__jscratch;	/* a view inside the kept text that is not a node */

/* The node under node whose text is exactly [p, p + len); NULL if none. */
static const struct jnode *h__jfind(const struct jnode *node, const char *p, size_t len)
{
	while (node && !(node->src == p && node->srclen == len)) {
		const struct jnode *kid = NULL;
		size_t lo = 0, hi = node->nkids;

		/* Kids are in text order: the last one starting at or before p. */
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;

			if ((uintptr_t)node->kids[mid].src <= (uintptr_t)p) {
				kid = &node->kids[mid];
				lo = mid + 1;
			} else {
				hi = mid;
			}
		}
		if (kid && (uintptr_t)p + len > (uintptr_t)kid->src + kid->srclen)
			kid = NULL;
		node = kid;
	}
	return node;
}

/* The tree of view v; NULL if v is not exactly one valid JSON value.  Valid
 * until the next call: callers use jnode helpers only, then views. */
static const struct jnode *h__jparse(struct h_jv v)
{
	uintptr_t at = (uintptr_t)v.p;
	const struct jnode *node;
	const char *error;
	size_t where;
	bool inside;

	if (!v.p)
		return NULL;
	inside = h__jlast.copy && at >= h__jlast.p && at + v.len <= h__jlast.p + h__jlast.len &&
		 !memcmp(h__jlast.copy + (at - h__jlast.p), v.p, v.len);
	if (inside && at == h__jlast.p && v.len == h__jlast.len)
		return h__jlast.ok ? &h__jlast.root : NULL;
	if (inside && h__jlast.ok && (node = h__jfind(&h__jlast.root, v.p, v.len)))
		return node;
	if (inside) {
		/* A member name, say: parsed apart, the kept tree stays. */
		j_free(&h__jscratch);
		return json_parse_flags(v.p, v.len, JSON_LATIN1_ESCAPES, &h__jscratch, &error,
					&where) ? &h__jscratch : NULL;
	}
	j_free(&h__jlast.root);
	free(h__jlast.copy);
	h__jlast.ok = false;
	h__jlast.copy = malloc(v.len + 1);
	cr_assert(h__jlast.copy, "out of memory");
	memcpy(h__jlast.copy, v.p, v.len);
	h__jlast.p = at;
	h__jlast.len = v.len;
	h__jlast.ok = json_parse_flags(v.p, v.len, JSON_LATIN1_ESCAPES, &h__jlast.root, &error,
				       &where);
	return h__jlast.ok ? &h__jlast.root : NULL;
}

static struct h_jv h__line(const char *line)
{
	return (struct h_jv){ line, strlen(line) };
}

static struct h_jv h__view(const struct jnode *node)
{
	return (struct h_jv){ node->src, node->srclen };
}

/* A whole number (no fraction, no exponent) that fits int64_t. */
static bool h__node_int(const struct jnode *node, int64_t *out)
{
	char *end;
	long long x;

	if (!node || node->type != J_NUM)
		return false;
	errno = 0;
	x = strtoll(node->str, &end, 10);
	if (errno || *end)
		return false;
	*out = x;
	return true;
}

static bool h__node_str_eq(const struct jnode *node, const char *s)
{
	return node && node->type == J_STR && node->len == strlen(s) &&
	       !memcmp(node->str, s, node->len);
}

static bool h__node_counters(const struct jnode *obj, struct h_counters *c)
{
	return h__node_int(jget(obj, "read_bytes"), &c->read_bytes) &&
	       h__node_int(jget(obj, "write_bytes"), &c->write_bytes) &&
	       h__node_int(jget(obj, "discard_bytes"), &c->discard_bytes) &&
	       h__node_int(jget(obj, "read_ios"), &c->read_ios) &&
	       h__node_int(jget(obj, "write_ios"), &c->write_ios) &&
	       h__node_int(jget(obj, "discard_ios"), &c->discard_ios) &&
	       h__node_int(jget(obj, "flushes"), &c->flushes);
}

/* The tree of line if it is an interval object (see h_json_is_interval). */
static const struct jnode *h__interval(const char *line)
{
	const struct jnode *root = h__jparse(h__line(line));
	const struct jnode *type = jget(root, "type"), *processes = jget(root, "processes");

	return type && type->type == J_STR && jstr_is(type, "interval", 8) && processes &&
	       processes->type == J_ARR ? root : NULL;
}

bool h_json_parse(const char *line, struct h_jv *root)
{
	const struct jnode *node = h__jparse(h__line(line));

	if (node)
		*root = h__view(node);
	return node != NULL;
}

bool h_json_next_member(struct h_jv obj, size_t *pos, struct h_jv *key, struct h_jv *val)
{
	const struct jnode *node = h__jparse(obj), *kid;

	if (!node || node->type != J_OBJ || *pos >= node->nkids)
		return false;
	kid = &node->kids[(*pos)++];
	*key = (struct h_jv){ kid->keysrc, kid->keysrclen };
	*val = h__view(kid);
	return true;
}

bool h_json_next_elem(struct h_jv arr, size_t *pos, struct h_jv *val)
{
	const struct jnode *node = h__jparse(arr);

	if (!node || node->type != J_ARR || *pos >= node->nkids)
		return false;
	*val = h__view(&node->kids[(*pos)++]);
	return true;
}

ssize_t h_json_str(struct h_jv v, char *buf, size_t size)
{
	const struct jnode *node = h__jparse(v);

	if (!node || node->type != J_STR || node->len + 1 > size)
		return -1;
	memcpy(buf, node->str, node->len);
	buf[node->len] = '\0';
	return node->len;
}

bool h_json_str_eq(struct h_jv v, const char *s)
{
	return h__node_str_eq(h__jparse(v), s);
}

bool h_json_get(struct h_jv obj, const char *key, struct h_jv *val)
{
	const struct jnode *node = jget(h__jparse(obj), key);

	if (node)
		*val = h__view(node);
	return node != NULL;
}

bool h_json_int(struct h_jv v, int64_t *out)
{
	return h__node_int(h__jparse(v), out);
}

double h_json_number(struct h_jv v)
{
	char text[64], *end;
	double value;

	if (!v.len || v.len >= sizeof(text))
		return NAN;
	memcpy(text, v.p, v.len);
	text[v.len] = '\0';
	value = strtod(text, &end);
	return end == text + v.len ? value : NAN;
}

double h_json_get_number(struct h_jv obj, const char *key)
{
	struct h_jv v = { 0 };

	cr_assert(h_json_get(obj, key, &v), "no %s", key);
	return h_json_number(v);
}

bool h_json_get_int(struct h_jv obj, const char *key, int64_t *out)
{
	return h__node_int(jget(h__jparse(obj), key), out);
}

bool h_json_counters(struct h_jv obj, struct h_counters *c)
{
	return h__node_counters(h__jparse(obj), c);
}

void h_counters_add(struct h_counters *sum, const struct h_counters *c)
{
	sum->read_bytes += c->read_bytes;
	sum->write_bytes += c->write_bytes;
	sum->discard_bytes += c->discard_bytes;
	sum->read_ios += c->read_ios;
	sum->write_ios += c->write_ios;
	sum->discard_ios += c->discard_ios;
	sum->flushes += c->flushes;
}

const char *h_counters_str(const struct h_counters *c, char *buf, size_t size)
{
	snprintf(buf, size, "read_bytes=%" PRId64 " write_bytes=%" PRId64 " discard_bytes=%"
		 PRId64 " read_ios=%" PRId64 " write_ios=%" PRId64 " discard_ios=%" PRId64
		 " flushes=%" PRId64, c->read_bytes, c->write_bytes, c->discard_bytes,
		 c->read_ios, c->write_ios, c->discard_ios, c->flushes);
	return buf;
}

bool h_json_is_interval(const char *line)
{
	return h__interval(line) != NULL;
}

bool h_json_is_summary(const char *line)
{
	const struct jnode *type = jget(h__jparse(h__line(line)), "type");

	return type && type->type == J_STR && jstr_is(type, "summary", 7);
}

bool h_json_processes(const char *line, struct h_jv *arr)
{
	const struct jnode *node = jget(h__jparse(h__line(line)), "processes");

	if (!node || node->type != J_ARR)
		return false;
	*arr = h__view(node);
	return true;
}

bool h_json_devices(const char *line, struct h_jv *obj)
{
	const struct jnode *node = jget(h__jparse(h__line(line)), "devices");

	if (!node || node->type != J_OBJ)
		return false;
	*obj = h__view(node);
	return true;
}

bool h_json_find_process(const char *line, uint32_t pid, const char *device, struct h_jv *obj)
{
	const struct jnode *processes = jget(h__jparse(h__line(line)), "processes");

	if (!processes || processes->type != J_ARR)
		return false;
	for (size_t i = 0; i < processes->nkids; i++) {
		const struct jnode *row = &processes->kids[i];
		int64_t p;

		if (h__node_int(jget(row, "pid"), &p) && p == pid &&
		    h__node_str_eq(jget(row, "device"), device)) {
			*obj = h__view(row);
			return true;
		}
	}
	return false;
}

bool h_json_find_device(const char *line, const char *name, struct h_jv *obj)
{
	const struct jnode *devices = jget(h__jparse(h__line(line)), "devices");
	const struct jnode *node = devices && devices->type == J_OBJ ? jget(devices, name) : NULL;

	if (node)
		*obj = h__view(node);
	return node != NULL;
}

int h_json_sum_process(char *const *lines, size_t n, uint32_t pid, const char *device,
		       const char *comm, struct h_counters *sum)
{
	int matched = 0;

	memset(sum, 0, sizeof(*sum));
	for (size_t i = 0; i < n; i++) {
		const struct jnode *processes = jget(h__interval(lines[i]), "processes");

		for (size_t k = 0; processes && k < processes->nkids; k++) {
			const struct jnode *row = &processes->kids[k];
			struct h_counters c;
			int64_t p;

			if (pid && !(h__node_int(jget(row, "pid"), &p) && p == pid))
				continue;
			if (device && !h__node_str_eq(jget(row, "device"), device))
				continue;
			if (comm && !h__node_str_eq(jget(row, "comm"), comm))
				continue;
			if (h__node_counters(row, &c)) {
				h_counters_add(sum, &c);
				matched++;
			}
		}
	}
	return matched;
}

int h_json_sum_device(char *const *lines, size_t n, const char *name, struct h_counters *sum)
{
	int matched = 0;

	memset(sum, 0, sizeof(*sum));
	for (size_t i = 0; i < n; i++) {
		const struct jnode *devices = jget(h__interval(lines[i]), "devices");
		struct h_counters c;

		if (devices && devices->type == J_OBJ && h__node_counters(jget(devices, name), &c)) {
			h_counters_add(sum, &c);
			matched++;
		}
	}
	return matched;
}

void h_expect_json_output(const struct h_diskio *d, int min_intervals)
{
	int intervals = 0, summaries = 0;

	for (size_t i = 0; i < d->nlines; i++) {
		struct h_jv root, type;

		cr_expect(h_json_parse(d->lines[i], &root), "line %zu is not valid JSON: %.300s", i,
			  d->lines[i]);
		/* issue 46: a live run's first record, and only its first */
		if (h_json_get(root, "type", &type) && h_json_str_eq(type, "start"))
			cr_expect(i == 0 && h_json_get(root, "interval_s", &type),
				  "line %zu is a start record: %.300s", i, d->lines[i]);
		else if (!i)
			cr_expect_fail("the first line is not the start record: %.300s",
				       d->lines[i]);
		else if (h_json_is_interval(d->lines[i]))
			intervals++;
		else if (h_json_is_summary(d->lines[i]))
			summaries++;
		else
			cr_expect_fail("line %zu is neither an interval nor the summary: %.300s", i,
				       d->lines[i]);
	}
	cr_expect_geq(intervals, min_intervals, "only %d interval lines", intervals);
	cr_expect_eq(summaries, 1, "%d summary lines", summaries);
}

int64_t h_json_sum_lost(char *const *lines, size_t n)
{
	int64_t sum = 0;

	for (size_t i = 0; i < n; i++) {
		int64_t events;

		if (h__node_int(jget(jget(h__interval(lines[i]), "lost"), "events"), &events))
			sum += events;
	}
	return sum;
}

/* ================================================================ batch == */

int h_split_view(const char *line, const char **fields, size_t *lens, int max)
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
		if (n < max) {
			fields[n] = start;
			lens[n] = line - start;
		}
		n++;
	}
	return n;
}

int h_split_fields(const char *line, char **fields, int max)
{
	const char *views[max > 0 ? max : 1];
	size_t lens[max > 0 ? max : 1];
	int n = h_split_view(line, views, lens, max);

	for (int i = 0; i < n && i < max; i++)
		fields[i] = strndup(views[i], lens[i]);
	return n;
}

void h_free_fields(char **fields, int n, int max)
{
	for (int i = 0; i < n && i < max; i++)
		free(fields[i]);
}

static bool h__parse_u64_field(const char *s, int64_t *out)
{
	char *end;

	if (!isdigit((unsigned char)*s))
		return false;
	errno = 0;
	*out = (int64_t)strtoull(s, &end, 10);
	return !errno && !*end;
}

bool h_batch_parse_row(const char *line, struct h_batch_row *row)
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
		snprintf(row->serves, sizeof(row->serves), "%s", f[15]);
		snprintf(row->iowait, sizeof(row->iowait), "%s", f[16]);
		snprintf(row->swapin, sizeof(row->swapin), "%s", f[17]);
	}
	h_free_fields(f, n, H_BATCH_FIELDS + 1);
	return ok;
}

/* ================================================================== BPF == */

/* Names of diskio's BPF programs (diskio.bpf.c).  bpftool shows the full name
 * (from BTF) or the kernel's 15-byte truncation ("handle_bio_queu"). */
static const char *const h__diskio_prog_names[] = {
	"handle_bio_queue", "handle_bio_complete", "handle_io_start", "handle_io_done",
	"handle_rq_issue", "handle_rq_complete", "handle_rq_issue_raw",
	"handle_rq_complete_raw", "handle_exit", "handle_exit_legacy", "handle_dirty_folio",
	"handle_bio_remap", "handle_getrq", "read_waits", "handle_switch",
	"handle_exec",		/* issue 33: command lines at exec */
	"find_relay_symbols",	/* issue 45: run once after the load, never attached */
	NULL,
};

bool h_is_diskio_prog_name(const char *name)
{
	for (int i = 0; h__diskio_prog_names[i]; i++) {
		const char *full = h__diskio_prog_names[i];

		if (!strcmp(name, full) ||
		    (strlen(name) == 15 && strlen(full) > 15 && !strncmp(name, full, 15)))
			return true;
	}
	return false;
}

int h_bpftool_progs(struct h_prog *progs, int max)
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

int h_pid_bpf_prog_ids(pid_t pid, uint32_t *ids, int max)
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

/* =========================================================== Prometheus == */

int h_free_port(void)
{
	struct sockaddr_in addr = {
		.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK),
	};
	socklen_t len = sizeof(addr);
	int fd = socket(AF_INET, SOCK_STREAM, 0), port;

	cr_assert_geq(fd, 0);
	cr_assert_eq(bind(fd, (struct sockaddr *)&addr, sizeof(addr)), 0, "bind: %s",
		     strerror(errno));
	cr_assert_eq(getsockname(fd, (struct sockaddr *)&addr, &len), 0);
	port = ntohs(addr.sin_port);
	close(fd);
	return port;
}

char *h_http_get(const char *url)
{
	struct h_result r;
	char *body = NULL;

	h_run(H_ARGS("curl", "-sf", "--max-time", "5", url), NULL, NULL, 8000, &r);
	if (WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0)
		body = strdup(r.out);
	h_result_free(&r);
	return body;
}

char *h_scrape(int port)
{
	char url[64];

	snprintf(url, sizeof(url), "http://127.0.0.1:%d/metrics", port);
	return h_http_get(url);
}

pid_t h_spawn_daemon(const char *const argv[], const char *log_path)
{
	pid_t pid;

	fflush(NULL);
	pid = fork();
	cr_assert_geq(pid, 0, "fork: %s", strerror(errno));
	if (!pid) {
		int in = open("/dev/null", O_RDONLY);
		int out = log_path ? open(log_path, O_WRONLY | O_CREAT | O_APPEND, 0644) :
				     open("/dev/null", O_WRONLY);

		dup2(in, 0);
		dup2(out, 1);
		dup2(out, 2);
		h__child_prepare(-1);
		execvp(argv[0], (char *const *)argv);
		_exit(127);
	}
	h_track_child(pid);
	return pid;
}

pid_t h_start_node_exporter(const char *dir, int *port)
{
	char listen[64], textdir[PATH_MAX + 64];
	int64_t deadline = h_now_ms() + 20000;
	pid_t pid;

	if (!h_have_program("prometheus-node-exporter"))
		cr_assert_fail("prometheus-node-exporter is not installed (scripts/deps.sh test)");
	*port = h_free_port();
	snprintf(listen, sizeof(listen), "--web.listen-address=127.0.0.1:%d", *port);
	snprintf(textdir, sizeof(textdir), "--collector.textfile.directory=%s", dir);
	pid = h_spawn_daemon(H_ARGS("prometheus-node-exporter", listen,
				    "--collector.disable-defaults", "--collector.textfile", textdir),
			     NULL);
	while (h_now_ms() < deadline) {
		char *body = h_scrape(*port);

		if (body) {
			free(body);
			return pid;
		}
		h_sleep_ms(100);
	}
	cr_assert_fail("node_exporter did not answer on port %d", *port);
	return -1;
}

double h_prom_sum(const char *text, const char *metric, const char *const need[], int *n)
{
	size_t len = strlen(metric);
	double sum = 0;

	*n = 0;
	for (const char *p = text; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL) {
		const char *end = strchr(p, '\n') ? strchr(p, '\n') : p + strlen(p);
		const char *value;
		bool all = true;

		if (strncmp(p, metric, len) || (p[len] != '{' && p[len] != ' '))
			continue;
		value = memrchr(p, ' ', end - p);
		for (size_t i = 0; need && need[i]; i++)
			all &= memmem(p, value - p, need[i], strlen(need[i])) != NULL;
		if (all) {
			sum += strtod(value + 1, NULL);
			(*n)++;
		}
	}
	return sum;
}

/* ===================================================== failing writes, v1 == */

pid_t h_spawn_failing_writer(const char *comm, const char *path, uint32_t size, int writes,
			     int *count_fd)
{
	int fds[2];
	pid_t pid;

	cr_assert_eq(pipe(fds), 0);
	fflush(NULL);
	pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		uint32_t failed = 0;
		void *buf;
		int fd;

		h__child_prepare(fds[1]);
		prctl(PR_SET_NAME, comm);
		fd = open(path, O_WRONLY | O_DIRECT);
		if (fd < 0 || posix_memalign(&buf, 4096, size))
			_exit(2);
		memset(buf, 'e', size);
		for (int i = 0; i < writes; i++)
			if (pwrite(fd, buf, size, (off_t)i * size) != (ssize_t)size)
				failed++;
		if (write(fds[1], &failed, sizeof(failed)) != sizeof(failed))
			_exit(3);
		_exit(0);
	}
	close(fds[1]);
	h_track_child(pid);
	*count_fd = fds[0];
	return pid;
}

uint32_t h_failed_writes(int count_fd)
{
	uint32_t failed = 0;

	cr_assert_eq(read(count_fd, &failed, sizeof(failed)), (ssize_t)sizeof(failed),
		     "the writer sent no count");
	close(count_fd);
	return failed;
}

bool h_cgroup_v1_mount(const char *controller, char *dir, size_t size)
{
	FILE *f = fopen("/proc/mounts", "r");
	char dev[256], mnt[1024], type[64], opts[512];
	bool found = false;

	if (!f)
		return false;
	while (!found && fscanf(f, "%255s %1023s %63s %511s %*d %*d", dev, mnt, type, opts) == 4) {
		char *save = NULL;

		if (strcmp(type, "cgroup"))
			continue;
		for (char *o = strtok_r(opts, ",", &save); o; o = strtok_r(NULL, ",", &save))
			found |= !strcmp(o, controller);
		if (found)
			snprintf(dir, size, "%s", mnt);
	}
	fclose(f);
	return found;
}

bool h_cgroup2_mount(char *dir, size_t size)
{
	char line[4096], point[PATH_MAX], type[64];
	FILE *in = fopen("/proc/mounts", "re");
	bool found = false;

	if (!in)
		return false;
	while (!found && fgets(line, sizeof(line), in))
		if (sscanf(line, "%*s %4095s %63s", point, type) == 2 && !strcmp(type, "cgroup2")) {
			snprintf(dir, size, "%s", point);
			found = true;
		}
	fclose(in);
	return found;
}

/* The v1 blkio group of h_throttled_reader(), removed by h_cleanup(). */
static char h__throttle_group[PATH_MAX];

static void h__remove_throttle_group(void)
{
	if (h__throttle_group[0])
		rmdir(h__throttle_group);
	h__throttle_group[0] = '\0';
}

struct h__read_job {
	int fd;
	const struct h_throttled_read *r;
	int index;
};

/* One thread's reads; NULL when every one read a whole block. */
static void *h__throttled_reads(void *arg)
{
	const struct h__read_job *job = arg;
	const struct h_throttled_read *r = job->r;
	uint64_t blocks = r->span / r->block;
	void *buf;

	if (posix_memalign(&buf, 4096, r->block))
		return (void *)1;
	for (int64_t i = 0; !r->reads || i < r->reads; i++) {
		off_t at = (off_t)(((uint64_t)i * r->threads + job->index) % blocks) * r->block;

		if (pread(job->fd, buf, r->block, at) != (ssize_t)r->block)
			return (void *)1;
	}
	free(buf);
	return NULL;
}

void h_throttle_group(const struct h_dev *dev, int iops, char *group, size_t size)
{
	char root[1024], file[PATH_MAX + 64], rule[64];
	struct stat st;

	if (!h_cgroup_v1_mount("blkio", root, sizeof(root)))
		cr_skip_test("no cgroup v1 blkio controller mounted (/proc/mounts)");
	cr_assert(!h__throttle_group[0], "one throttled group at a time");
	snprintf(h__throttle_group, sizeof(h__throttle_group), "%s/diskio-itest-throttle-%d", root,
		 (int)getpid());
	cr_assert(!mkdir(h__throttle_group, 0755), "mkdir %s: %s", h__throttle_group,
		  strerror(errno));
	snprintf(group, size, "%s", h__throttle_group);
	cr_assert_eq(stat(dev->path, &st), 0);
	snprintf(rule, sizeof(rule), "%u:%u %d", major(st.st_rdev), minor(st.st_rdev), iops);
	snprintf(file, sizeof(file), "%s/blkio.throttle.read_iops_device", h__throttle_group);
	cr_assert_eq(h_write_file(file, rule), 0, "%s: %s", file, rule);
}

pid_t h_throttled_reader(const struct h_throttled_read *r, char *group, size_t size)
{
	char file[PATH_MAX + 64];
	pid_t pid;

	cr_assert(r->threads >= 1 && r->threads <= 16 && r->block && r->span >= r->block);
	h_throttle_group(r->dev, r->iops, group, size);
	fflush(NULL);
	pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		struct h__read_job jobs[16];
		pthread_t threads[16];
		char me[16];
		int fd, failed = 0;

		h__child_prepare(-1);
		prctl(PR_SET_NAME, r->comm);
		snprintf(me, sizeof(me), "%d", (int)getpid());
		if (r->v2_group) {
			snprintf(file, sizeof(file), "%s/cgroup.procs", r->v2_group);
			if (h_write_file(file, me))
				_exit(20);
		}
		snprintf(file, sizeof(file), "%s/cgroup.procs", h__throttle_group);
		if (h_write_file(file, me))
			_exit(21);
		fd = open(r->path ? r->path : r->dev->path, O_RDONLY | O_DIRECT);
		if (fd < 0)
			_exit(22);
		for (int i = 0; i < r->threads; i++) {
			jobs[i] = (struct h__read_job){ .fd = fd, .r = r, .index = i };
			if (pthread_create(&threads[i], NULL, h__throttled_reads, &jobs[i]))
				_exit(23);
		}
		for (int i = 0; i < r->threads; i++) {
			void *res;

			pthread_join(threads[i], &res);
			failed |= res != NULL;
		}
		_exit(failed ? 24 : 0);
	}
	h_track_child(pid);
	return pid;
}
