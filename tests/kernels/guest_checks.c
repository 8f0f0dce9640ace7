// SPDX-License-Identifier: GPL-2.0
/*
 * guest_checks: diskio's checks inside a kernel booted under QEMU by
 * scripts/test_kernels.sh (make test-kernels).  Built static, it runs from
 * the initramfs's /init with nothing else installed but busybox: it drives
 * the static diskio binary against a virtio disk (vda, backed by a file on
 * the host) and a zram disk, and against a dm-linear device and an md RAID1
 * it stacks on three more virtio disks, and compares what diskio prints with
 * known answers and with this kernel's /proc/diskstats.
 *
 * Output, on the serial console: one line per check,
 *	diskio-guest: PASS|FAIL <name>: <details>
 * a few "diskio-guest: info ..." lines, and last
 *	diskio-guest: N passed, M failed
 * The host fails the kernel unless that last line says 0 failed.
 *
 *	guest_checks [DISKIO]		(default /bin/diskio)
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <linux/dm-ioctl.h>
#include <linux/major.h>	/* MD_MAJOR, for md_u.h's ioctl numbers */
#include <linux/raid/md_p.h>
#include <linux/raid/md_u.h>

#define PREFIX		"diskio-guest: "
#define INTERVAL	"0.3"
#define ATTACH_MS	60000	/* BPF load and attach under TCG on a busy host */
#define INTERVALS_MS	20000	/* two more intervals */
#define EXIT_MS		20000	/* diskio's exit after SIGINT */
#define CHILD_MS	120000	/* an I/O child's whole run */
#define SECTOR		512
#define VDA_SERIAL	"diskio-vda"	/* the known-answer disk's serial, set by the host */

static const char *diskio = "/bin/diskio";
static int passed, failed;

/* ------------------------------------------------------------ reporting -- */

/* Details of the check being run, reported on its PASS/FAIL line. */
static char details[2048];
static bool check_failed;

static void note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void note(const char *fmt, ...)
{
	size_t len = strlen(details);
	va_list ap;

	if (len >= sizeof(details) - 1)
		return;
	if (len)
		details[len++] = ';', details[len++] = ' ', details[len] = '\0';
	va_start(ap, fmt);
	vsnprintf(details + len, sizeof(details) - len, fmt, ap);
	va_end(ap);
}

/* A failed expectation: noted, and the check fails. */
#define expect(cond, ...)					\
	do {							\
		if (!(cond)) {					\
			check_failed = true;			\
			note(__VA_ARGS__);			\
		}						\
	} while (0)

static void begin_check(void)
{
	details[0] = '\0';
	check_failed = false;
}

static void end_check(const char *name)
{
	if (check_failed)
		failed++;
	else
		passed++;
	printf(PREFIX "%s %s: %s\n", check_failed ? "FAIL" : "PASS", name,
	       details[0] ? details : "ok");
	fflush(stdout);
}

static void info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void info(const char *fmt, ...)
{
	va_list ap;

	fputs(PREFIX "info ", stdout);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	fputc('\n', stdout);
	fflush(stdout);
}

/* ---------------------------------------------------------------- util -- */

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

static int write_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY), err = 0;

	if (fd < 0)
		return -errno;
	if (write(fd, text, strlen(text)) < 0)
		err = -errno;
	close(fd);
	return err;
}

/* The first line of a small file, without its newline. */
static bool read_line(const char *path, char *buf, size_t size)
{
	FILE *f = fopen(path, "r");
	bool ok;

	if (!f)
		return false;
	ok = fgets(buf, (int)size, f) != NULL;
	fclose(f);
	if (ok)
		buf[strcspn(buf, "\n")] = '\0';
	return ok;
}

/* Whether the file contains the bytes needle (read in one piece). */
static bool file_contains(const char *path, const char *needle)
{
	size_t cap = 1 << 20, len = 0;
	char *buf = malloc(cap);
	bool found = false;
	int fd = open(path, O_RDONLY);
	ssize_t n;

	if (fd < 0 || !buf) {
		free(buf);
		if (fd >= 0)
			close(fd);
		return false;
	}
	for (;;) {
		if (len == cap) {
			char *bigger = realloc(buf, cap * 2);

			if (!bigger)
				break;
			buf = bigger;
			cap *= 2;
		}
		n = read(fd, buf + len, cap - len);
		if (n <= 0)
			break;
		len += n;
	}
	close(fd);
	found = memmem(buf, len, needle, strlen(needle) + 1) != NULL;
	free(buf);
	return found;
}

/* Wait up to ms for pid; its wait status, or -1 after killing it. */
static int wait_child(pid_t pid, int ms)
{
	int64_t deadline = now_ms() + ms;
	int status;

	for (;;) {
		pid_t r = waitpid(pid, &status, WNOHANG);

		if (r == pid)
			return status;
		if (r < 0 && errno != EINTR)
			return -1;
		if (now_ms() >= deadline) {
			kill(pid, SIGKILL);
			waitpid(pid, &status, 0);
			return -1;
		}
		usleep(5000);
	}
}

static const char *status_str(int status, char *buf, size_t size)
{
	if (status == -1)
		snprintf(buf, size, "timed out");
	else if (WIFEXITED(status))
		snprintf(buf, size, "exit %d", WEXITSTATUS(status));
	else if (WIFSIGNALED(status))
		snprintf(buf, size, "killed by signal %d", WTERMSIG(status));
	else
		snprintf(buf, size, "status 0x%x", status);
	return buf;
}

/* ----------------------------------------------------------- diskstats -- */

struct diskstats {
	uint64_t read_ios, read_sectors, write_ios, write_sectors, discard_ios;
	uint64_t flush_ios;	/* the 19th column, Linux 5.5+ */
};

static bool diskstats_read(const char *dev, struct diskstats *s)
{
	FILE *f = fopen("/proc/diskstats", "r");
	char line[512], name[64];
	bool found = false;

	if (!f)
		return false;
	memset(s, 0, sizeof(*s));
	while (fgets(line, sizeof(line), f)) {
		unsigned major, minor;
		uint64_t v[16] = {};
		int n = sscanf(line, " %u %u %63s %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64
			       " %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64
			       " %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64
			       " %" SCNu64 " %" SCNu64, &major, &minor, name, &v[0], &v[1], &v[2],
			       &v[3], &v[4], &v[5], &v[6], &v[7], &v[8], &v[9], &v[10], &v[11],
			       &v[12], &v[13], &v[14], &v[15]);

		if (n < 14 || strcmp(name, dev))
			continue;
		s->read_ios = v[0];
		s->read_sectors = v[2];
		s->write_ios = v[4];
		s->write_sectors = v[6];
		s->discard_ios = n >= 15 ? v[11] : 0;
		s->flush_ios = n >= 19 ? v[15] : 0;
		found = true;
		break;
	}
	fclose(f);
	return found;
}

/* ------------------------------------------------------ running diskio -- */

struct run {
	pid_t pid;
	int out;		/* diskio's stdout */
	char *text;		/* everything it printed */
	size_t len, cap;
	int status;		/* wait status once it exited, -1 if killed */
	char err[1024];		/* the start of its stderr */
};

static const char *const no_env[] = { NULL };

static bool start_diskio(struct run *r, const char *const args[], const char *const env[])
{
	int out[2], errfd;
	const char *argv[32];
	int n = 0;

	memset(r, 0, sizeof(*r));
	r->status = -1;
	argv[n++] = diskio;
	for (int i = 0; args[i] && n < 31; i++)
		argv[n++] = args[i];
	argv[n] = NULL;
	errfd = open("/tmp/diskio.err", O_RDWR | O_CREAT | O_TRUNC, 0600);
	if (errfd < 0 || pipe2(out, O_CLOEXEC))
		return false;
	r->pid = fork();
	if (r->pid < 0)
		return false;
	if (!r->pid) {
		dup2(out[1], STDOUT_FILENO);
		dup2(errfd, STDERR_FILENO);
		for (int i = 0; env[i]; i++)
			putenv((char *)env[i]);
		execv(diskio, (char *const *)argv);
		fprintf(stderr, "exec %s: %s\n", diskio, strerror(errno));
		_exit(127);
	}
	close(out[1]);
	close(errfd);
	r->out = out[0];
	return true;
}

/* Read what diskio printed within ms; false at EOF. */
static bool pump(struct run *r, int ms)
{
	struct pollfd p = { .fd = r->out, .events = POLLIN };
	ssize_t n;

	if (r->out < 0)
		return false;
	if (poll(&p, 1, ms) <= 0)
		return true;
	if (r->cap - r->len < 65536) {
		size_t cap = r->cap ? r->cap * 2 : 1 << 20;
		char *bigger = realloc(r->text, cap);

		if (!bigger)
			return false;
		r->text = bigger;
		r->cap = cap;
		/* Text even if nothing comes: a new buffer may hold an old run's. */
		r->text[r->len] = '\0';
	}
	n = read(r->out, r->text + r->len, r->cap - r->len - 1);
	if (n <= 0) {
		close(r->out);
		r->out = -1;
		return false;
	}
	r->len += n;
	r->text[r->len] = '\0';
	return true;
}

/* Complete lines starting with prefix. */
static int count_lines(const struct run *r, const char *prefix)
{
	size_t plen = strlen(prefix);
	int n = 0;

	for (const char *p = r->text; p && *p;) {
		const char *eol = strchr(p, '\n');

		if (!eol)
			break;
		if (!strncmp(p, prefix, plen))
			n++;
		p = eol + 1;
	}
	return n;
}

/* Wait until at least n lines start with prefix; false on timeout or EOF. */
static bool wait_lines(struct run *r, const char *prefix, int n, int ms)
{
	int64_t deadline = now_ms() + ms;

	while (count_lines(r, prefix) < n) {
		int64_t left = deadline - now_ms();

		if (left <= 0 || !pump(r, left > 200 ? 200 : (int)left))
			return count_lines(r, prefix) >= n;
	}
	return true;
}

/* The number after text on the last line of the last run's stderr (all of
 * it, not just r->err's start) that holds text, or -1. */
static int64_t stderr_number(const char *text)
{
	FILE *f = fopen("/tmp/diskio.err", "r");
	int64_t value = -1;
	size_t cap = 0;
	char *line = NULL;

	if (!f)
		return -1;
	while (getline(&line, &cap, f) > 0) {
		const char *at = strstr(line, text);

		if (at)
			value = strtoll(at + strlen(text), NULL, 10);
	}
	free(line);
	fclose(f);
	return value;
}

static void read_stderr(struct run *r)
{
	int fd = open("/tmp/diskio.err", O_RDONLY);
	ssize_t n = fd < 0 ? 0 : read(fd, r->err, sizeof(r->err) - 1);

	r->err[n > 0 ? n : 0] = '\0';
	for (char *c = r->err; *c; c++)
		if (*c == '\n')
			*c = '|';
	if (fd >= 0)
		close(fd);
}

/* Read to EOF and reap; r->status is its wait status. */
static void finish_diskio(struct run *r)
{
	int64_t deadline = now_ms() + EXIT_MS;

	while (now_ms() < deadline && pump(r, 200))
		;
	r->status = wait_child(r->pid, (int)(deadline - now_ms() > 0 ? deadline - now_ms() : 0));
	while (pump(r, 0))
		;
	read_stderr(r);
}

/* SIGINT, then the rest of its output. */
static void stop_diskio(struct run *r)
{
	kill(r->pid, SIGINT);
	finish_diskio(r);
}

static void free_run(struct run *r)
{
	if (r->out >= 0)
		close(r->out);
	free(r->text);
	r->text = NULL;
}

static void expect_exit_0(const struct run *r)
{
	char buf[64];

	expect(r->status != -1 && WIFEXITED(r->status) && WEXITSTATUS(r->status) == 0,
	       "diskio: %s, stderr: %s", status_str(r->status, buf, sizeof(buf)),
	       r->err[0] ? r->err : "(empty)");
}

/* The value of " key=" in line, or -1. */
static int64_t field(const char *line, const char *eol, const char *key)
{
	char pattern[64];
	const char *p;
	size_t plen;

	plen = (size_t)snprintf(pattern, sizeof(pattern), " %s=", key);
	for (p = line; p && p < eol; p++) {
		p = memmem(p, eol - p, pattern, plen);
		if (!p)
			break;
		return strtoll(p + plen, NULL, 10);
	}
	return -1;
}

/* ------------------------------------------------------------- load and attach -- */

static void check_starts(const char *name, const char *const args[], const char *const env[],
			 const char *must_print)
{
	struct run r;

	begin_check();
	if (!start_diskio(&r, args, env)) {
		expect(false, "cannot start %s: %s", diskio, strerror(errno));
		end_check(name);
		return;
	}
	finish_diskio(&r);
	expect_exit_0(&r);
	expect(r.text && strstr(r.text, must_print), "no '%s' in its output (%zu bytes)",
	       must_print, r.len);
	if (!check_failed)
		note("exit 0, %zu bytes of output", r.len);
	free_run(&r);
	end_check(name);
}

/* ------------------------------------------------------ known-answer I/O -- */

#define W_COUNT		37
#define W_SIZE		8192
#define R_COUNT		23
#define R_SIZE		4096
#define R_OFFSET	(4 << 20)

static void set_comm(const char *comm)
{
	prctl(PR_SET_NAME, comm);
}

/* W_COUNT writes of W_SIZE from buf at the start of fd (O_DIRECT), one at
 * a time: 0, or 3 (a child's exit code) if one failed. */
static int known_writes(int fd, const void *buf)
{
	for (int i = 0; i < W_COUNT; i++)
		if (pwrite(fd, buf, W_SIZE, (off_t)i * W_SIZE) != W_SIZE)
			return 3;
	return 0;
}

/* In a child: W_COUNT writes of W_SIZE, then R_COUNT reads of R_SIZE,
 * O_DIRECT, one at a time, so every one is one I/O on the disk. */
static int known_io(const char *path)
{
	void *buf;
	int fd = open(path, O_RDWR | O_DIRECT);

	if (fd < 0 || posix_memalign(&buf, 4096, W_SIZE))
		return 2;
	memset(buf, 0x5a, W_SIZE);
	if (known_writes(fd, buf))
		return 3;
	for (int i = 0; i < R_COUNT; i++)
		if (pread(fd, buf, R_SIZE, R_OFFSET + (off_t)i * 2 * R_SIZE) != R_SIZE)
			return 4;
	return close(fd) ? 5 : 0;
}

/* The known I/O at ionice -c2 -n7: the rows show it (issue 33), read from
 * io_context->ioprio, which the BPF program reads only where BTF has it. */
#define KNOWN_IOPRIO		"be/7"
#define KNOWN_IOPRIO_VALUE	(2 << 13 | 7)	/* IOPRIO_CLASS_BE, level 7 */

/* Sums over a batch run's intervals. */
struct batch_sums {
	int64_t p_read_bytes, p_write_bytes, p_read_ios, p_write_ios;	/* the child's rows */
	int64_t d_read_bytes, d_write_bytes, d_read_ios, d_write_ios;	/* "# device" lines */
	int other_rows;			/* rows of other processes on the disk */
	char others[128];		/* their pid/comm, for the report */
	bool latency_seen;		/* a numeric avg_latency_us in the child's rows */
	/* issue 33: the child's rows' ioprio (the field before cmdline, the
	 * last), all the one it set */
	int prio_rows, prio_set_rows;
	char prio[16];			/* the last one seen */
	/* issue 35, --files: the child's "# file" lines on the disk */
	int64_t f_read_bytes, f_write_bytes, f_read_ios, f_write_ios;
	int f_lines;
};

/* Field 21 of the data line p..eol (whitespace-separated): ioprio, whose
 * number stays as fields are only ever appended (issue 45 appended two
 * after the command line). */
#define IOPRIO_FIELD 21

static bool ioprio_field(const char *p, const char *eol, char *out, size_t size)
{
	for (int field = 1; p < eol; field++) {
		size_t n;

		p += strspn(p, " \t");
		n = strcspn(p, " \t\n");
		if (p + n > eol)
			n = (size_t)(eol - p);
		if (!n)
			break;
		if (field == IOPRIO_FIELD) {
			snprintf(out, size, "%.*s", (int)n, p);
			return true;
		}
		p += n;
	}
	return false;
}

static void sum_batch(const struct run *r, pid_t pid, const char *dev, struct batch_sums *s)
{
	char device_prefix[80];

	memset(s, 0, sizeof(*s));
	snprintf(device_prefix, sizeof(device_prefix), "# device %s ", dev);
	for (const char *p = r->text; p && *p;) {
		const char *eol = strchr(p, '\n');

		if (!eol)
			break;
		if (!strncmp(p, "# file ", 7)) {
			char on[80];

			snprintf(on, sizeof(on), " device=%s ", dev);
			if (field(p, eol, "pid") == pid && memmem(p, eol - p, on, strlen(on))) {
				s->f_lines++;
				s->f_read_bytes += field(p, eol, "read_bytes");
				s->f_write_bytes += field(p, eol, "write_bytes");
				s->f_read_ios += field(p, eol, "read_ios");
				s->f_write_ios += field(p, eol, "write_ios");
			}
		} else if (!strncmp(p, device_prefix, strlen(device_prefix))) {
			s->d_read_bytes += field(p, eol, "read_bytes");
			s->d_write_bytes += field(p, eol, "write_bytes");
			s->d_read_ios += field(p, eol, "read_ios");
			s->d_write_ios += field(p, eol, "write_ios");
		} else if (*p != '#') {
			/* time pid comm device read_bytes write_bytes discard_bytes
			 * read_ios write_ios discard_ios flushes avg_latency_us ... */
			char comm[64], device[64], lat[32];
			unsigned long row_pid;
			int64_t rb, wb, db, ri, wi;

			if (sscanf(p, "%*s %lu %63s %63s %" SCNd64 " %" SCNd64 " %" SCNd64 " %" SCNd64
				   " %" SCNd64 " %*d %*d %31s", &row_pid, comm, device, &rb, &wb,
				   &db, &ri, &wi, lat) == 9 && !strcmp(device, dev)) {
				if ((pid_t)row_pid == pid) {
					s->prio_rows++;
					if (ioprio_field(p, eol, s->prio, sizeof(s->prio)) &&
					    !strcmp(s->prio, KNOWN_IOPRIO))
						s->prio_set_rows++;
					s->p_read_bytes += rb;
					s->p_write_bytes += wb;
					s->p_read_ios += ri;
					s->p_write_ios += wi;
					if (strcmp(lat, "-") && (ri || wi))
						s->latency_seen = true;
				} else if (rb || wb || ri || wi) {
					size_t len = strlen(s->others);

					s->other_rows++;
					snprintf(s->others + len, sizeof(s->others) - len, "%s%lu/%s",
						 len ? "," : "", row_pid, comm);
				}
			}
		}
		p = eol + 1;
	}
}

/* The known I/O in a child named comm; in cgroup v2 group group first,
 * unless NULL. */
static pid_t spawn_known_io_in(const char *comm, const char *path, const char *group)
{
	pid_t pid = fork();

	if (!pid) {
		char procs[256], me[16];

		set_comm(comm);
		if (group) {
			snprintf(procs, sizeof(procs), "%s/cgroup.procs", group);
			snprintf(me, sizeof(me), "%d", (int)getpid());
			if (write_file(procs, me))
				_exit(7);
		}
		if (syscall(SYS_ioprio_set, 1 /* IOPRIO_WHO_PROCESS */, 0, KNOWN_IOPRIO_VALUE))
			_exit(6);
		_exit(known_io(path));
	}
	return pid;
}

static pid_t spawn_known_io(const char *comm, const char *path)
{
	return spawn_known_io_in(comm, path, NULL);
}

/*
 * issue 45: a cgroup v2 group whose io.max holds dev to a few I/Os a
 * second, so that blk-throttle queues the known I/O and its worker
 * (kthrotld) submits it: the rows must still be the child's.  The io
 * controller enabled under the root first.  false if it cannot be made.
 */
#define THROTTLE_GROUP	"/sys/fs/cgroup/diskio-throttled"
#define THROTTLE_IOPS	"riops=40 wiops=40"

static bool make_throttle_group(const char *dev)
{
	char path[128], majmin[32], rule[96];

	snprintf(path, sizeof(path), "/sys/block/%s/dev", dev);
	if (!read_line(path, majmin, sizeof(majmin)))
		return false;
	write_file("/sys/fs/cgroup/cgroup.subtree_control", "+io");
	if (mkdir(THROTTLE_GROUP, 0755) && errno != EEXIST)
		return false;
	snprintf(rule, sizeof(rule), "%s " THROTTLE_IOPS, majmin);
	return !write_file(THROTTLE_GROUP "/io.max", rule);
}

/* diskio's first interval line came within ATTACH_MS; else diskio is
 * killed, the failure reported and the run freed. */
static bool wait_attached(struct run *r)
{
	if (wait_lines(r, "# time ", 1, ATTACH_MS))
		return true;
	kill(r->pid, SIGKILL);
	finish_diskio(r);
	expect(false, "diskio did not attach within %d ms: %s", ATTACH_MS, r->err);
	free_run(r);
	return false;
}

/*
 * diskio -b -D dev (plus extra) while a child does known O_DIRECT I/O: the
 * child's row has exactly its bytes and I/Os, the disk's lines sum to the
 * /proc/diskstats deltas, and those are the known answer too (nothing else
 * used the disk).
 */
static void check_known_io_in(const char *name, const char *dev, const char *extra,
			      const char *const env[], const char *group)
{
	const char *args[] = { "-b", "-D", dev, extra ? extra : INTERVAL, extra ? INTERVAL : NULL,
			       NULL };
	struct diskstats before, after;
	struct batch_sums s;
	char path[64], buf[64];
	struct run r;
	pid_t child;
	int status;
	int64_t dr_bytes, dw_bytes, dr_ios, dw_ios;

	begin_check();
	snprintf(path, sizeof(path), "/dev/%s", dev);
	if (!diskstats_read(dev, &before)) {
		expect(false, "%s not in /proc/diskstats", dev);
		end_check(name);
		return;
	}
	if (!start_diskio(&r, args, env)) {
		expect(false, "cannot start diskio");
		end_check(name);
		return;
	}
	if (!wait_attached(&r)) {
		end_check(name);
		return;
	}
	child = spawn_known_io_in("kio-known", path, group);
	status = wait_child(child, CHILD_MS);
	expect(status != -1 && WIFEXITED(status) && WEXITSTATUS(status) == 0,
	       "the I/O child: %s", status_str(status, buf, sizeof(buf)));
	wait_lines(&r, "# time=", count_lines(&r, "# time=") + 2, INTERVALS_MS);
	stop_diskio(&r);
	expect_exit_0(&r);
	expect(diskstats_read(dev, &after), "%s gone from /proc/diskstats", dev);

	sum_batch(&r, child, dev, &s);
	dr_bytes = (int64_t)(after.read_sectors - before.read_sectors) * SECTOR;
	dw_bytes = (int64_t)(after.write_sectors - before.write_sectors) * SECTOR;
	dr_ios = (int64_t)(after.read_ios - before.read_ios);
	dw_ios = (int64_t)(after.write_ios - before.write_ios);
	note("process: read %" PRId64 " B/%" PRId64 " I/Os, written %" PRId64 " B/%" PRId64
	     " I/Os; disk: read %" PRId64 " B/%" PRId64 ", written %" PRId64 " B/%" PRId64
	     "; /proc/diskstats: read %" PRId64 " B/%" PRId64 ", written %" PRId64 " B/%" PRId64,
	     s.p_read_bytes, s.p_read_ios, s.p_write_bytes, s.p_write_ios, s.d_read_bytes,
	     s.d_read_ios, s.d_write_bytes, s.d_write_ios, dr_bytes, dr_ios, dw_bytes, dw_ios);
	expect(s.p_write_bytes == W_COUNT * W_SIZE, "process written bytes %" PRId64 " != %d",
	       s.p_write_bytes, W_COUNT * W_SIZE);
	expect(s.p_read_bytes == R_COUNT * R_SIZE, "process read bytes %" PRId64 " != %d",
	       s.p_read_bytes, R_COUNT * R_SIZE);
	expect(s.p_write_ios == W_COUNT, "process write I/Os %" PRId64 " != %d", s.p_write_ios,
	       W_COUNT);
	expect(s.p_read_ios == R_COUNT, "process read I/Os %" PRId64 " != %d", s.p_read_ios,
	       R_COUNT);
	expect(s.d_read_bytes == dr_bytes && s.d_write_bytes == dw_bytes &&
	       s.d_read_ios == dr_ios && s.d_write_ios == dw_ios,
	       "the disk's lines differ from /proc/diskstats");
	expect(dw_bytes == W_COUNT * W_SIZE && dr_bytes == R_COUNT * R_SIZE &&
	       dw_ios == W_COUNT && dr_ios == R_COUNT,
	       "/proc/diskstats differs from the known answer: something else used %s", dev);
	expect(s.other_rows == 0, "%d rows of other processes on %s (%s)", s.other_rows, dev,
	       s.others);
	if (extra && !strcmp(extra, "-L"))
		expect(s.latency_seen, "no per-process latency with -L");
	/* issue 35: direct I/O to the disk itself is no file's: [unknown],
	 * every byte and I/O of the child's rows */
	if (extra && !strcmp(extra, "--files"))
		expect(s.f_lines && s.f_read_bytes == s.p_read_bytes &&
		       s.f_write_bytes == s.p_write_bytes && s.f_read_ios == s.p_read_ios &&
		       s.f_write_ios == s.p_write_ios,
		       "--files: %d lines, read %" PRId64 " B/%" PRId64 ", written %" PRId64
		       " B/%" PRId64 ", not the rows'", s.f_lines, s.f_read_bytes, s.f_read_ios,
		       s.f_write_bytes, s.f_write_ios);
	expect(s.prio_rows && s.prio_set_rows == s.prio_rows,
	       "the child's rows' ioprio: %d of %d " KNOWN_IOPRIO " (last %s)", s.prio_set_rows,
	       s.prio_rows, s.prio);
	free_run(&r);
	end_check(name);
}

static void check_known_io(const char *name, const char *dev, const char *extra,
			   const char *const env[])
{
	check_known_io_in(name, dev, extra, env, NULL);
}

/* The known I/O held by io.max: its worker's submissions are the child's
 * (no other row on the disk, the child's rows exact). */
static void check_known_io_throttled(const char *name, const char *dev)
{
	if (!make_throttle_group(dev)) {
		begin_check();
		expect(false, "cannot make %s with io.max on %s", THROTTLE_GROUP, dev);
		end_check(name);
		return;
	}
	check_known_io_in(name, dev, NULL, no_env, THROTTLE_GROUP);
	rmdir(THROTTLE_GROUP);
}

/* ---------------------------------------------------------- IO> and SWAPIN -- */

#define DELAYACCT	"/proc/sys/kernel/task_delayacct"

/*
 * IO> and SWAPIN's programs load and count on this kernel: diskio -b while
 * the known-I/O child does its O_DIRECT I/O on the virtio disk, where every
 * I/O sleeps until the host completes it.  The child's rows (any disk, or
 * "-") have an IO> above 0 (batch field 17); SWAPIN (field 18) is "-" with
 * delay accounting off, a number with it on; the interval's source says
 * which measured it.
 */
static void check_iowait(const char *name, bool delayacct)
{
	const char *args[] = { "--json", INTERVAL, NULL };
	const char *source = delayacct ? "\"iowait_source\":\"delayacct\"" :
					 "\"iowait_source\":\"sched\"";
	char buf[64], pid_key[32];
	double iowait = 0;
	int rows = 0, swapin_null = 0;
	struct run r;
	pid_t child;
	int status;

	begin_check();
	if (write_file(DELAYACCT, delayacct ? "1" : "0")) {
		expect(false, "cannot write %s", DELAYACCT);
		end_check(name);
		return;
	}
	if (!start_diskio(&r, args, no_env)) {
		expect(false, "cannot start diskio");
		goto out;
	}
	if (!wait_lines(&r, "{\"type\":\"interval\"", 1, ATTACH_MS)) {
		kill(r.pid, SIGKILL);
		finish_diskio(&r);
		expect(false, "diskio did not attach: %s", r.err);
		free_run(&r);
		goto out;
	}
	child = spawn_known_io("kio-waits", "/dev/vda");
	status = wait_child(child, CHILD_MS);
	expect(status != -1 && WIFEXITED(status) && WEXITSTATUS(status) == 0,
	       "the I/O child: %s", status_str(status, buf, sizeof(buf)));
	wait_lines(&r, "{\"type\":\"interval\"", count_lines(&r, "{\"type\":\"interval\"") + 2,
		   INTERVALS_MS);
	stop_diskio(&r);
	expect_exit_0(&r);
	expect(r.text && strstr(r.text, source), "no %s in the intervals", source);
	/* {"pid":N,...,"latency_us":{...},"iowait_pct":X,"swapin_pct":Y}: the
	 * child's rows, each up to the next row or the end of its line */
	snprintf(pid_key, sizeof(pid_key), "{\"pid\":%d,", (int)child);
	for (const char *p = r.text; p && (p = strstr(p, pid_key)); p++) {
		const char *end = strstr(p + 1, "{\"pid\":"), *eol = strchr(p, '\n');
		const char *io = strstr(p, "\"iowait_pct\":"), *sw = strstr(p, "\"swapin_pct\":");

		if (!end || (eol && eol < end))
			end = eol;
		if (!end || !io || !sw || io > end || sw > end)
			continue;
		rows++;
		iowait += strtod(io + strlen("\"iowait_pct\":"), NULL);
		swapin_null += !strncmp(sw + strlen("\"swapin_pct\":"), "null", 4);
	}
	note("%s: the child's rows %d, IO> summed %.2f%%, SWAPIN null in %d",
	     delayacct ? "delay accounting" : "sched_switch", rows, iowait, swapin_null);
	expect(rows > 0, "no row of the child");
	expect(iowait > 0, "the child's IO> is 0");
	expect(delayacct ? swapin_null == 0 : swapin_null == rows,
	       "SWAPIN null in %d of %d rows", swapin_null, rows);
	if (!delayacct)
		expect(strstr(r.err, "delay accounting is off"), "no note on stderr: %s", r.err);
	free_run(&r);
out:
	write_file(DELAYACCT, "0");
	end_check(name);
}

/*
 * diskio -T -b -D dev while a child does the known I/O: one event per I/O,
 * each naming the child (on Linux 6.1 a kblockd worker dispatches its
 * writes: the event must still name the submitter), with its bytes.
 */
static void check_known_trace(const char *name, const char *dev, const char *const env[])
{
	const char *args[] = { "-T", "-b", "-D", dev, INTERVAL, NULL };
	int64_t child_events = 0, child_bytes = 0, other_events = 0;
	char path[64], buf[64];
	struct run r;
	pid_t child;
	int status;

	begin_check();
	snprintf(path, sizeof(path), "/dev/%s", dev);
	if (!start_diskio(&r, args, env) || !wait_lines(&r, "# time_s ", 1, ATTACH_MS)) {
		if (r.pid > 0) {
			kill(r.pid, SIGKILL);
			finish_diskio(&r);
		}
		expect(false, "diskio did not attach: %s", r.err);
		free_run(&r);
		end_check(name);
		return;
	}
	child = spawn_known_io("kio-known", path);
	status = wait_child(child, CHILD_MS);
	expect(status != -1 && WIFEXITED(status) && WEXITSTATUS(status) == 0,
	       "the I/O child: %s", status_str(status, buf, sizeof(buf)));
	wait_lines(&r, "# interval ", count_lines(&r, "# interval ") + 2, INTERVALS_MS);
	stop_diskio(&r);
	expect_exit_0(&r);
	/* time_s pid comm device op sector bytes latency_us */
	for (const char *p = r.text; p && *p;) {
		const char *eol = strchr(p, '\n');
		unsigned long pid;
		char comm[64], device[64];
		int64_t bytes;

		if (!eol)
			break;
		if (*p != '#' && sscanf(p, "%*s %lu %63s %63s %*s %*s %" SCNd64, &pid, comm, device,
					&bytes) == 4) {
			if ((pid_t)pid == child && !strcmp(comm, "kio-known") && !strcmp(device, dev)) {
				child_events++;
				child_bytes += bytes;
			} else {
				other_events++;
			}
		}
		p = eol + 1;
	}
	note("%" PRId64 " events of the child (%" PRId64 " bytes), %" PRId64 " others",
	     child_events, child_bytes, other_events);
	expect(child_events == W_COUNT + R_COUNT, "expected %d events of the child",
	       W_COUNT + R_COUNT);
	expect(child_bytes == W_COUNT * W_SIZE + R_COUNT * R_SIZE, "expected %d bytes",
	       W_COUNT * W_SIZE + R_COUNT * R_SIZE);
	expect(other_events == 0, "events not of the child");
	free_run(&r);
	end_check(name);
}

/* ------------------------------------------------------------- flushes -- */

#define SYNC_WRITES	12

/* In a child: SYNC_WRITES writes of 4 KiB opened with flags (O_DSYNC:
 * each followed by an empty pre-flush; with O_DIRECT, a FUA write too,
 * which a disk without FUA, like QEMU's virtio disk, completes with a
 * post-flush). */
static int sync_writes(const char *path, int flags)
{
	void *buf;
	int fd = open(path, O_RDWR | flags);

	if (fd < 0 || posix_memalign(&buf, 4096, 4096))
		return 2;
	memset(buf, 0xa5, 4096);
	for (int i = 0; i < SYNC_WRITES; i++)
		if (pwrite(fd, buf, 4096, (off_t)i * 4096) != 4096)
			return 3;
	return close(fd) ? 5 : 0;
}

/*
 * diskio -b -D dev while a child does O_DSYNC writes, buffered then direct:
 * the disk's "# device" lines sum to /proc/diskstats' flush change, which
 * only the flush machinery counts (a request of its own per pre-flush and
 * post-flush step); the child's rows count the pre-flushes it asked for.
 */
static void check_flushes(const char *name, const char *dev, const char *const env[])
{
	const char *args[] = { "-b", "-D", dev, INTERVAL, NULL };
	char device_prefix[80], path[64], buf[64];
	struct diskstats before, after;
	int64_t disk = 0, rows = 0, diskstats;
	struct run r;
	pid_t child;
	int status;

	begin_check();
	snprintf(path, sizeof(path), "/dev/%s", dev);
	snprintf(device_prefix, sizeof(device_prefix), "# device %s ", dev);
	if (!diskstats_read(dev, &before) || !start_diskio(&r, args, env)) {
		expect(false, "%s not in /proc/diskstats, or diskio did not start", dev);
		end_check(name);
		return;
	}
	if (!wait_attached(&r)) {
		end_check(name);
		return;
	}
	child = fork();
	if (!child) {
		set_comm("kio-flush");
		_exit(sync_writes(path, O_DSYNC) ?: sync_writes(path, O_DSYNC | O_DIRECT));
	}
	status = wait_child(child, CHILD_MS);
	expect(status != -1 && WIFEXITED(status) && WEXITSTATUS(status) == 0,
	       "the I/O child: %s", status_str(status, buf, sizeof(buf)));
	wait_lines(&r, "# time=", count_lines(&r, "# time=") + 2, INTERVALS_MS);
	stop_diskio(&r);
	expect_exit_0(&r);
	expect(diskstats_read(dev, &after), "%s gone from /proc/diskstats", dev);
	for (const char *p = r.text; p && *p;) {
		const char *eol = strchr(p, '\n');
		char comm[64], device[64];
		int64_t flushes;

		if (!eol)
			break;
		if (!strncmp(p, device_prefix, strlen(device_prefix)))
			disk += field(p, eol, "flushes");
		else if (*p != '#' && sscanf(p, "%*s %*s %63s %63s %*d %*d %*d %*d %*d %*d %" SCNd64,
					     comm, device, &flushes) == 3 &&
			 !strcmp(comm, "kio-flush") && !strcmp(device, dev))
			rows += flushes;
		p = eol + 1;
	}
	diskstats = (int64_t)(after.flush_ios - before.flush_ios);
	note("/proc/diskstats: %" PRId64 " flushes; the disk's lines %" PRId64 ", the child's "
	     "rows %" PRId64, diskstats, disk, rows);
	expect(disk == diskstats, "the disk's flushes differ from /proc/diskstats");
	expect(diskstats >= 2 * SYNC_WRITES, "/proc/diskstats: fewer flushes than O_DSYNC writes "
	       "(%d): %s has no write cache?", 2 * SYNC_WRITES, dev);
	expect(rows == 2 * SYNC_WRITES, "the child asked for %d pre-flushes", 2 * SYNC_WRITES);
	free_run(&r);
	end_check(name);
}

/* -------------------------------------------------------------- crashes -- */

enum death { DIE_SEGV, DIE_ABORT, DIE_THREAD_SEGV, DIE_KILL, DIE_TERM, DIE_EXIT };

static const struct {
	enum death how;
	const char *comm;
	bool crash;
} deaths[] = {
	{ DIE_SEGV, "kc-segv", true },
	{ DIE_ABORT, "kc-abort", true },
	{ DIE_THREAD_SEGV, "kc-thrsegv", true },
	{ DIE_KILL, "kc-kill", false },
	{ DIE_TERM, "kc-term", false },
	{ DIE_EXIT, "kc-exit", false },
};

#define NR_DEATHS	(sizeof(deaths) / sizeof(deaths[0]))
#define CRASH_THREADS	4

static pthread_barrier_t all_running;

static void *fault_thread(void *arg)
{
	(void)arg;
	pthread_barrier_wait(&all_running);
	*(volatile int *)0 = 1;	/* every thread faults: still one crash */
	return NULL;
}

static void die(enum death how, int ready_fd)
{
	struct rlimit no_core = { 0, 0 };
	pthread_t threads[CRASH_THREADS];
	char ready = 1;

	setrlimit(RLIMIT_CORE, &no_core);
	switch (how) {
	case DIE_SEGV:
		*(volatile int *)0 = 1;
		break;
	case DIE_ABORT:
		abort();
	case DIE_THREAD_SEGV:
		pthread_barrier_init(&all_running, NULL, CRASH_THREADS);
		for (int i = 0; i < CRASH_THREADS; i++)
			pthread_create(&threads[i], NULL, fault_thread, NULL);
		pthread_join(threads[0], NULL);
		break;
	case DIE_KILL:
	case DIE_TERM:
		if (write(ready_fd, &ready, 1) != 1)
			_exit(6);
		for (;;)
			pause();
	case DIE_EXIT:
		_exit(3);
	}
	_exit(7);
}

static void check_crashes(void)
{
	const char *args[] = { "-b", INTERVAL, NULL };
	pid_t pids[NR_DEATHS];
	char line[256];
	const char *last;
	struct run r;
	int crashes = 0, events = 0;

	begin_check();
	if (!start_diskio(&r, args, no_env) || !wait_lines(&r, "# time ", 1, ATTACH_MS)) {
		if (r.pid > 0) {
			kill(r.pid, SIGKILL);
			finish_diskio(&r);
		}
		expect(false, "diskio did not attach: %s", r.err);
		free_run(&r);
		end_check("crashes");
		return;
	}
	for (size_t i = 0; i < NR_DEATHS; i++) {
		int ready[2];
		char c;

		if (pipe(ready))
			ready[0] = ready[1] = -1;
		pids[i] = fork();
		if (!pids[i]) {
			set_comm(deaths[i].comm);
			die(deaths[i].how, ready[1]);
		}
		if (deaths[i].how == DIE_KILL || deaths[i].how == DIE_TERM) {
			expect(read(ready[0], &c, 1) == 1, "%s did not start", deaths[i].comm);
			kill(pids[i], deaths[i].how == DIE_KILL ? SIGKILL : SIGTERM);
		}
		close(ready[0]);
		close(ready[1]);
		wait_child(pids[i], CHILD_MS);
	}
	wait_lines(&r, "# time=", count_lines(&r, "# time=") + 2, INTERVALS_MS);
	stop_diskio(&r);
	expect_exit_0(&r);

	/* The summary's crash line comes last: the run's totals. */
	last = NULL;
	for (const char *p = r.text; p && (p = strstr(p, "# crash ")); p++)
		last = p;
	if (last) {
		const char *eol = strchr(last, '\n');

		snprintf(line, sizeof(line), "%.*s", eol ? (int)(eol - last) : 200, last);
		crashes = (int)field(line, line + strlen(line), "crashes");
	} else {
		line[0] = '\0';
	}
	note("%s", line[0] ? line : "no '# crash' line");
	expect(crashes == 3, "crashes=%d, expected 3 (segv, abort, threaded segv)", crashes);
	for (size_t i = 0; i < NR_DEATHS; i++) {
		char entry[40];
		const char *by = strstr(line, "by_process=");
		bool listed;

		snprintf(entry, sizeof(entry), "%s:1", deaths[i].comm);
		listed = by && strstr(by, entry);
		expect(listed == deaths[i].crash, "%s %s in by_process", deaths[i].comm,
		       listed ? "listed" : "missing");
		snprintf(entry, sizeof(entry), " comm=%s ", deaths[i].comm);
		if (deaths[i].crash && r.text && strstr(r.text, entry))
			events++;
		else
			expect(!(r.text && strstr(r.text, entry)), "a crash event for %s",
			       deaths[i].comm);
	}
	expect(count_lines(&r, "# crash-event ") == 3 && events == 3,
	       "%d crash-event lines, %d of the crashed children", count_lines(&r, "# crash-event "),
	       events);
	free_run(&r);
	end_check("crashes");
}

/* ---------------------------------------------------- lost exactness -- */

/* In a child: n reads of 4 KiB, O_DIRECT, over the first 16 MiB. */
static int read_load(const char *path, int n)
{
	void *buf;
	int fd = open(path, O_RDONLY | O_DIRECT);

	if (fd < 0 || posix_memalign(&buf, 4096, 4096))
		return 2;
	for (int i = 0; i < n; i++)
		if (pread(fd, buf, 4096, (off_t)((i * 7919) % 4096) * 4096) != 4096)
			return 3;
	return 0;
}

/*
 * diskio -T -b -D dev --buffer-kb 4 during n reads: the events printed plus
 * the events counted lost equal the I/Os /proc/diskstats completed.
 */
static void check_lost_exact(const char *name, const char *dev, int n, const char *const env[])
{
	const char *args[] = { "-T", "-b", "-D", dev, "--buffer-kb", "4", INTERVAL, NULL };
	struct diskstats before, after;
	int64_t received = 0, lost = -1, summary_events = -1, interval_events = 0, completed;
	int other_dev = 0;
	char path[64], buf[64];
	struct run r;
	pid_t child;
	int status;

	begin_check();
	snprintf(path, sizeof(path), "/dev/%s", dev);
	if (!diskstats_read(dev, &before) || !start_diskio(&r, args, env) ||
	    !wait_lines(&r, "# time_s ", 1, ATTACH_MS)) {
		if (r.pid > 0) {
			kill(r.pid, SIGKILL);
			finish_diskio(&r);
		}
		expect(false, "diskio did not attach: %s", r.err);
		free_run(&r);
		end_check(name);
		return;
	}
	child = fork();
	if (!child) {
		set_comm("kio-load");
		_exit(read_load(path, n));
	}
	/* Read diskio's output meanwhile: a reader that keeps up is part of
	 * what is tested; a full pipe would only add losses. */
	for (int64_t deadline = now_ms() + CHILD_MS; now_ms() < deadline;) {
		pump(&r, 20);
		if (waitpid(child, &status, WNOHANG) == child)
			break;
	}
	if (waitpid(child, &status, WNOHANG) == 0)
		status = wait_child(child, 0);
	expect(status != -1 && WIFEXITED(status) && WEXITSTATUS(status) == 0,
	       "the load: %s", status_str(status, buf, sizeof(buf)));
	wait_lines(&r, "# interval ", count_lines(&r, "# interval ") + 2, INTERVALS_MS);
	stop_diskio(&r);
	expect_exit_0(&r);
	expect(diskstats_read(dev, &after), "%s gone", dev);
	completed = (int64_t)(after.read_ios - before.read_ios + after.write_ios - before.write_ios);

	for (const char *p = r.text; p && *p;) {
		const char *eol = strchr(p, '\n');
		char device[64];

		if (!eol)
			break;
		if (!strncmp(p, "# interval ", 11)) {
			interval_events += field(p, eol, "events");
		} else if (!strncmp(p, "# summary ", 10)) {
			summary_events = field(p, eol, "events");
			lost = field(p, eol, "lost");
		} else if (*p != '#') {
			if (sscanf(p, "%*s %*s %*s %63s", device) == 1 && !strcmp(device, dev))
				received++;
			else
				other_dev++;
		}
		p = eol + 1;
	}
	note("%d reads, /proc/diskstats completed %" PRId64 ", events printed %" PRId64
	     ", lost %" PRId64, n, completed, received, lost);
	expect(completed == n, "/proc/diskstats: %" PRId64 " I/Os, the load did %d", completed, n);
	expect(lost >= 0, "no summary line with lost=");
	expect(received + lost == completed, "received + lost = %" PRId64 " != %" PRId64,
	       received + lost, completed);
	expect(summary_events == received && interval_events == received,
	       "summary events=%" PRId64 ", intervals' events sum %" PRId64 ", printed %" PRId64,
	       summary_events, interval_events, received);
	expect(other_dev == 0, "%d records not of %s", other_dev, dev);
	free_run(&r);
	end_check(name);
}

/* ------------------------------------------------------ stacked devices -- */

/*
 * A dm-linear device over one virtio disk and an md RAID1 over two, made
 * with the kernel's own ioctls (the initramfs has no dmsetup or mdadm).  The
 * host names those disks by their serials (scripts/test_kernels.sh), so that
 * the guest finds them whatever names virtio_blk handed out.
 */
#define DM_SERIAL	"diskio-dm"
#define MD_SERIAL_1	"diskio-md1"
#define MD_SERIAL_2	"diskio-md2"
#define DM_LINEAR_NAME	"diskio-lin"
#define MD_NAME		"md0"
#define MAX_LOWER	2
#define SYNC_MS		30000	/* md's resync, should it run after all */

struct stack {
	const char *check;		/* the checks' names begin with it */
	char upper[32];			/* the device the writer addresses: dm-0, md0 */
	const char *dm_name;		/* its dm name; NULL for md */
	char lower[MAX_LOWER][32];	/* the disks below it */
	int nlower;
	bool made;			/* to be torn down at the end */
	bool ready;			/* made, and sysfs shows the layers the checks expect */
};

/* The virtio disk (vdX) whose serial is serial. */
static bool find_disk_by_serial(const char *serial, char *name, size_t size)
{
	DIR *dir = opendir("/sys/block");
	struct dirent *d;
	char path[300], value[64];
	bool found = false;

	while (dir && !found && (d = readdir(dir))) {
		if (strncmp(d->d_name, "vd", 2))
			continue;
		snprintf(path, sizeof(path), "/sys/block/%s/serial", d->d_name);
		if (read_line(path, value, sizeof(value)) && !strcmp(value, serial) &&
		    strlen(d->d_name) < size) {
			memcpy(name, d->d_name, strlen(d->d_name) + 1);
			found = true;
		}
	}
	if (dir)
		closedir(dir);
	return found;
}

static bool disk_devno(const char *disk, unsigned int *maj, unsigned int *min)
{
	char path[96], value[32];

	snprintf(path, sizeof(path), "/sys/block/%s/dev", disk);
	return read_line(path, value, sizeof(value)) && sscanf(value, "%u:%u", maj, min) == 2;
}

/* The disk's size in 512-byte sectors; 0 if unknown. */
static uint64_t disk_sectors(const char *disk)
{
	char path[96], value[32];

	snprintf(path, sizeof(path), "/sys/block/%s/size", disk);
	return read_line(path, value, sizeof(value)) ? strtoull(value, NULL, 10) : 0;
}

static bool wait_for_path(const char *path, int ms)
{
	for (int64_t deadline = now_ms() + ms; access(path, F_OK); usleep(20000))
		if (now_ms() >= deadline)
			return false;
	return true;
}

/* The ioctls' buffer: the header, then (DM_TABLE_LOAD) one target and its
 * parameters. */
union dm_buffer {
	struct dm_ioctl io;
	char bytes[16384];
};

static void dm_begin(union dm_buffer *b, const char *name)
{
	memset(b, 0, sizeof(*b));
	/* Minor 0: every kernel of interface 4 accepts it. */
	b->io.version[0] = DM_VERSION_MAJOR;
	b->io.data_size = sizeof(*b);
	b->io.data_start = sizeof(struct dm_ioctl);
	snprintf(b->io.name, sizeof(b->io.name), "%s", name);
}

/* DM_DEV_CREATE, DM_TABLE_LOAD of "linear MAJ:MIN 0" over the whole of
 * lower, and DM_DEV_SUSPEND without DM_SUSPEND_FLAG, which resumes the new
 * device with the table just loaded. */
static bool create_dm_linear(struct stack *st, const char *lower)
{
	union dm_buffer *b = malloc(sizeof(*b));
	struct dm_target_spec *target;
	unsigned int maj, min;
	uint64_t sectors = disk_sectors(lower), dev;
	char path[96], link[256], *params, *base;
	int control = -1;
	ssize_t n;
	bool ok = false;

	if (!b || !sectors || !disk_devno(lower, &maj, &min)) {
		expect(false, "%s: no size or dev in /sys/block", lower);
		goto out;
	}
	control = open("/dev/mapper/control", O_RDWR | O_CLOEXEC);
	if (control < 0) {
		expect(false, "/dev/mapper/control: %s (dm_mod not loaded?)", strerror(errno));
		goto out;
	}
	dm_begin(b, DM_LINEAR_NAME);
	if (ioctl(control, DM_DEV_CREATE, b)) {
		expect(false, "DM_DEV_CREATE %s: %s", DM_LINEAR_NAME, strerror(errno));
		goto out;
	}
	st->made = true;
	dev = b->io.dev;

	dm_begin(b, DM_LINEAR_NAME);
	b->io.target_count = 1;
	target = (struct dm_target_spec *)(b->bytes + b->io.data_start);
	target->sector_start = 0;
	target->length = sectors;
	snprintf(target->target_type, sizeof(target->target_type), "linear");
	params = (char *)(target + 1);
	snprintf(params, 64, "%u:%u 0", maj, min);
	target->next = (uint32_t)((sizeof(*target) + strlen(params) + 1 + 7) & ~(size_t)7);
	if (ioctl(control, DM_TABLE_LOAD, b)) {
		expect(false, "DM_TABLE_LOAD linear %s: %s", params, strerror(errno));
		goto out;
	}
	dm_begin(b, DM_LINEAR_NAME);
	if (ioctl(control, DM_DEV_SUSPEND, b)) {
		expect(false, "DM_DEV_SUSPEND (resume) %s: %s", DM_LINEAR_NAME, strerror(errno));
		goto out;
	}
	/* The device's name, dm-N, is the kernel's, from its dev_t; the disk
	 * appears once it has a table (Linux 5.16 and later). */
	snprintf(path, sizeof(path), "/sys/dev/block/%u:%u", major(dev), minor(dev));
	n = readlink(path, link, sizeof(link) - 1);
	link[n > 0 ? n : 0] = '\0';
	base = strrchr(link, '/');
	if (!base) {
		expect(false, "%s: no link to the new dm device", path);
		goto out;
	}
	snprintf(st->upper, sizeof(st->upper), "%s", base + 1);
	snprintf(path, sizeof(path), "/dev/%s", st->upper);
	expect(wait_for_path(path, 5000), "no %s after the resume", path);
	ok = !check_failed;
out:
	if (control >= 0)
		close(control);
	free(b);
	return ok;
}

static void remove_dm(const char *name)
{
	union dm_buffer *b = malloc(sizeof(*b));
	int control = open("/dev/mapper/control", O_RDWR | O_CLOEXEC);

	if (b && control >= 0) {
		dm_begin(b, name);
		if (ioctl(control, DM_DEV_REMOVE, b))
			info("DM_DEV_REMOVE %s: %s", name, strerror(errno));
	}
	if (control >= 0)
		close(control);
	free(b);
}

/*
 * An md RAID1 of two legs: SET_ARRAY_INFO, ADD_NEW_DISK per leg, RUN_ARRAY.
 * Without a superblock (not_persistent), md writes nothing of its own to the
 * legs; declared clean, with both legs in sync, it does not resync them.
 * Either would add bytes to the legs that no process wrote.
 */
static bool create_md_raid1(struct stack *st)
{
	mdu_array_info_t array = {
		.level = 1, .raid_disks = 2, .nr_disks = 2, .active_disks = 2,
		.working_disks = 2, .not_persistent = 1, .state = 1 << MD_SB_CLEAN,
	};
	char path[96], action[32] = "";
	uint64_t sectors = UINT64_MAX;
	int fd, err;
	bool ok = false;

	snprintf(st->upper, sizeof(st->upper), MD_NAME);
	for (int i = 0; i < st->nlower; i++) {
		uint64_t s = disk_sectors(st->lower[i]);

		sectors = s < sectors ? s : sectors;
	}
	array.size = (int)(sectors / 2);	/* KiB */
	err = write_file("/sys/module/md_mod/parameters/new_array", MD_NAME);
	if (err && err != -EEXIST) {
		expect(false, "new_array %s: %s (md_mod not loaded?)", MD_NAME, strerror(-err));
		return false;
	}
	if (!wait_for_path("/dev/" MD_NAME, 5000)) {
		expect(false, "no /dev/%s", MD_NAME);
		return false;
	}
	fd = open("/dev/" MD_NAME, O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		expect(false, "/dev/%s: %s", MD_NAME, strerror(errno));
		return false;
	}
	if (ioctl(fd, SET_ARRAY_INFO, &array)) {
		expect(false, "SET_ARRAY_INFO: %s", strerror(errno));
		goto out;
	}
	st->made = true;
	for (int i = 0; i < st->nlower; i++) {
		mdu_disk_info_t leg = {
			.number = i, .raid_disk = i,
			.state = (1 << MD_DISK_ACTIVE) | (1 << MD_DISK_SYNC),
		};
		unsigned int maj, min;

		if (!disk_devno(st->lower[i], &maj, &min)) {
			expect(false, "%s: no dev", st->lower[i]);
			goto out;
		}
		leg.major = (int)maj;
		leg.minor = (int)min;
		if (ioctl(fd, ADD_NEW_DISK, &leg)) {
			expect(false, "ADD_NEW_DISK %s: %s", st->lower[i], strerror(errno));
			goto out;
		}
	}
	if (ioctl(fd, RUN_ARRAY, NULL)) {
		expect(false, "RUN_ARRAY: %s", strerror(errno));
		goto out;
	}
	/* Should md resync after all, the measured window starts after it. */
	snprintf(path, sizeof(path), "/sys/block/%s/md/sync_action", MD_NAME);
	for (int64_t deadline = now_ms() + SYNC_MS; now_ms() < deadline; usleep(50000))
		if (read_line(path, action, sizeof(action)) && !strcmp(action, "idle"))
			break;
	expect(!strcmp(action, "idle"), "%s: sync_action '%s' after %d ms", MD_NAME, action,
	       SYNC_MS);
	/* md reports a media change at the first open after RUN_ARRAY, and the
	 * kernel then reads the partition table: here, not in a check's window. */
	close(open("/dev/" MD_NAME, O_RDONLY | O_CLOEXEC));
	ok = !check_failed;
out:
	close(fd);
	return ok;
}

static void stop_md(const char *name)
{
	char path[64];
	int fd;

	snprintf(path, sizeof(path), "/dev/%s", name);
	fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd < 0 || ioctl(fd, STOP_ARRAY, NULL))
		info("STOP_ARRAY %s: %s", name, strerror(errno));
	if (fd >= 0)
		close(fd);
}

/* Whether the upper device's sysfs says what the setup made: the disks below
 * it (slaves/) and, for dm, its name. */
static void expect_layout(const struct stack *st)
{
	char path[128], value[160];

	for (int i = 0; i < st->nlower; i++) {
		snprintf(path, sizeof(path), "/sys/block/%s/slaves/%s", st->upper, st->lower[i]);
		expect(!access(path, F_OK), "no %s", path);
	}
	if (st->dm_name) {
		snprintf(path, sizeof(path), "/sys/block/%s/dm/name", st->upper);
		expect(read_line(path, value, sizeof(value)) && !strcmp(value, st->dm_name),
		       "%s is not %s", path, st->dm_name);
	} else {
		snprintf(path, sizeof(path), "/sys/block/%s/md/level", st->upper);
		expect(read_line(path, value, sizeof(value)) && !strcmp(value, "raid1"),
		       "%s is not raid1", path);
	}
}

static void setup_stacks(struct stack *dm, struct stack *md)
{
	bool any_failed;

	begin_check();
	if (!find_disk_by_serial(DM_SERIAL, dm->lower[0], sizeof(dm->lower[0])) ||
	    !find_disk_by_serial(MD_SERIAL_1, md->lower[0], sizeof(md->lower[0])) ||
	    !find_disk_by_serial(MD_SERIAL_2, md->lower[1], sizeof(md->lower[1]))) {
		expect(false, "no virtio disks with serials %s, %s, %s", DM_SERIAL, MD_SERIAL_1,
		       MD_SERIAL_2);
		end_check("stacked-setup");
		return;
	}
	dm->nlower = 1;
	md->nlower = 2;
	/* As on vda: no scheduler, the submitter dispatches its requests. */
	for (int i = 0; i < 3; i++) {
		const char *disk = i ? md->lower[i - 1] : dm->lower[0];
		char path[96];

		snprintf(path, sizeof(path), "/sys/block/%s/queue/scheduler", disk);
		expect(!write_file(path, "none"), "%s: cannot set scheduler", disk);
	}
	/* Each stack is ready if its own part of the check passed. */
	any_failed = check_failed;
	check_failed = false;
	if (create_dm_linear(dm, dm->lower[0]))
		expect_layout(dm);
	dm->ready = !check_failed;
	any_failed |= check_failed;
	check_failed = false;
	if (create_md_raid1(md))
		expect_layout(md);
	md->ready = !check_failed;
	check_failed |= any_failed;
	note("%s (dm name %s) over %s; %s (raid1) over %s and %s", dm->ready ? dm->upper : "no dm",
	     DM_LINEAR_NAME, dm->lower[0], md->ready ? md->upper : "no md", md->lower[0],
	     md->lower[1]);
	end_check("stacked-setup");
}

/* The value of " key=" in line as a string ("" when absent). */
static void string_field(const char *line, const char *eol, const char *key, char *buf,
			 size_t size)
{
	char pattern[64];
	const char *p;
	size_t plen, len;

	buf[0] = '\0';
	plen = (size_t)snprintf(pattern, sizeof(pattern), " %s=", key);
	p = memmem(line, eol - line, pattern, plen);
	if (!p)
		return;
	p += plen;
	len = strcspn(p, " \n");
	snprintf(buf, size, "%.*s", (int)(len < size ? len : size - 1), p);
}

/* The whitespace-separated fields of one line, in place. */
static int split_fields(char *line, char **fields, int max)
{
	int n = 0;

	for (char *tok = strtok(line, " \n"); tok && n < max; tok = strtok(NULL, " \n"))
		fields[n++] = tok;
	return n;
}

/* One device of a stack, as diskio printed it. */
struct layer_sums {
	int64_t line_bytes, line_ios;		/* its "# device" lines, written */
	int64_t line_read_bytes, line_read_ios;	/* and read */
	int64_t issued_bytes, issued_ios;	/* rows of the upper device's own I/O on it */
	int64_t writer_bytes;			/* the writer's rows on it, whatever "for" */
	char below[160], dm_name[160];		/* as its last "# device" line says */
	struct diskstats before, after;
};

struct stack_sums {
	struct layer_sums layer[1 + MAX_LOWER];	/* [0] the upper device */
	int64_t writer_bytes, writer_ios;	/* the writer's rows with for "-" */
	int64_t header_bytes;			/* "# time=" lines, written */
	int64_t lost, lost_stacked;		/* "# summary": lost, lost_stacked_map_full */
	int64_t remembered;			/* -v: stacked bios remembered at exit */
	bool has_for;				/* the rows have a "for" column */
	bool writer_latency;			/* a latency on the writer's rows */
};

static const char *layer_name(const struct stack *st, int i)
{
	return i ? st->lower[i - 1] : st->upper;
}

/*
 * Columns by the names on the "# time pid comm device ..." line: the "for"
 * column (the upper device a row's I/O was done for, "-" otherwise) is
 * diskio's newest, and the sums must not depend on where it lands.
 */
static void sum_stack(const struct run *r, const struct stack *st, pid_t writer,
		      struct stack_sums *s)
{
	enum { PID, COMM, DEVICE, WRITE_BYTES, WRITE_IOS, LATENCY, FOR, NR_COLUMNS };
	static const char *const names[NR_COLUMNS] = {
		"pid", "comm", "device", "write_bytes", "write_ios", "avg_latency_us", "for"
	};
	int col[NR_COLUMNS] = { -1, -1, -1, -1, -1, -1, -1 };
	int nlayers = 1 + st->nlower;
	char line[4096], *f[64];

	memset(s, 0, sizeof(*s));
	for (const char *p = r->text; p && *p;) {
		const char *eol = strchr(p, '\n');
		size_t len;
		int n;

		if (!eol)
			break;
		len = (size_t)(eol - p);
		if (!strncmp(p, "# time ", 7) && len < sizeof(line)) {
			memcpy(line, p + 2, len - 2);
			line[len - 2] = '\0';
			n = split_fields(line, f, 64);
			for (int c = 0; c < NR_COLUMNS; c++)
				for (int i = 0; i < n; i++)
					if (!strcmp(f[i], names[c]))
						col[c] = i;
			s->has_for = col[FOR] >= 0;
		} else if (!strncmp(p, "# time=", 7)) {
			s->header_bytes += field(p, eol, "write_bytes");
		} else if (!strncmp(p, "# summary ", 10)) {
			s->lost = field(p, eol, "lost");
			s->lost_stacked = field(p, eol, "lost_stacked_map_full");
		} else if (!strncmp(p, "# device ", 9)) {
			for (int i = 0; i < nlayers; i++) {
				struct layer_sums *l = &s->layer[i];
				const char *name = layer_name(st, i);
				size_t nlen = strlen(name);

				if (strncmp(p + 9, name, nlen) || p[9 + nlen] != ' ')
					continue;
				l->line_bytes += field(p, eol, "write_bytes");
				l->line_ios += field(p, eol, "write_ios");
				l->line_read_bytes += field(p, eol, "read_bytes");
				l->line_read_ios += field(p, eol, "read_ios");
				string_field(p, eol, "below", l->below, sizeof(l->below));
				string_field(p, eol, "dm_name", l->dm_name, sizeof(l->dm_name));
			}
		} else if (*p != '#' && len < sizeof(line) && col[WRITE_IOS] >= 0) {
			const char *row_for;
			int64_t bytes, ios;
			pid_t pid;

			memcpy(line, p, len);
			line[len] = '\0';
			n = split_fields(line, f, 64);
			if (n <= col[WRITE_IOS] || n <= col[DEVICE] || n <= col[LATENCY] ||
			    n <= col[FOR]) {
				p = eol + 1;
				continue;
			}
			pid = (pid_t)strtol(f[col[PID]], NULL, 10);
			bytes = strtoll(f[col[WRITE_BYTES]], NULL, 10);
			ios = strtoll(f[col[WRITE_IOS]], NULL, 10);
			row_for = col[FOR] >= 0 ? f[col[FOR]] : "-";
			if (pid == writer && !strcmp(row_for, "-")) {
				s->writer_bytes += bytes;
				s->writer_ios += ios;
				if (col[LATENCY] >= 0 && strcmp(f[col[LATENCY]], "-") && ios)
					s->writer_latency = true;
			}
			for (int i = 0; i < nlayers; i++) {
				struct layer_sums *l = &s->layer[i];

				if (strcmp(f[col[DEVICE]], layer_name(st, i)))
					continue;
				if (pid == writer)
					l->writer_bytes += bytes;
				if (pid == 0 && !strcmp(f[col[COMM]], st->upper) &&
				    !strcmp(row_for, st->upper)) {
					l->issued_bytes += bytes;
					l->issued_ios += ios;
				}
			}
		}
		p = eol + 1;
	}
}

/* In a child: W_COUNT writes of W_SIZE, O_DIRECT, at the device's start. */
static int stacked_writes(const char *path)
{
	void *buf;
	int fd = open(path, O_WRONLY | O_DIRECT);

	if (fd < 0 || posix_memalign(&buf, 4096, W_SIZE))
		return 2;
	memset(buf, 0xa5, W_SIZE);
	if (known_writes(fd, buf))
		return 3;
	return close(fd) ? 5 : 0;
}

static int64_t written_bytes(const struct layer_sums *l)
{
	return (int64_t)(l->after.write_sectors - l->before.write_sectors) * SECTOR;
}

static int64_t written_ios(const struct layer_sums *l)
{
	return (int64_t)(l->after.write_ios - l->before.write_ios);
}

static int64_t read_bytes(const struct layer_sums *l)
{
	return (int64_t)(l->after.read_sectors - l->before.read_sectors) * SECTOR;
}

static int64_t read_ios(const struct layer_sums *l)
{
	return (int64_t)(l->after.read_ios - l->before.read_ios);
}

/* Whether the comma-separated list holds exactly the stack's lower disks. */
static bool below_is(const struct stack *st, const char *list)
{
	char copy[160], *save, *name;
	int found = 0;

	snprintf(copy, sizeof(copy), "%s", list);
	for (name = strtok_r(copy, ",", &save); name; name = strtok_r(NULL, ",", &save)) {
		bool known = false;

		for (int i = 0; i < st->nlower; i++)
			known |= !strcmp(name, st->lower[i]);
		if (!known)
			return false;
		found++;
	}
	return found == st->nlower;
}

/*
 * diskio -b (every device; plus extra, if given) while one process writes N
 * bytes with O_DIRECT to the upper device of a stack.  Three checks from the
 * one run, named after the stack, then suffix:
 *   NAME-devices: each device's lines equal its /proc/diskstats delta, and
 *     that delta is N on the upper device and on every disk below it;
 *   NAME-once: the writer's total (its rows with for "-") and the header's
 *     total are N, not N once per layer, and nothing was lost (with -L, the
 *     writer's rows have a latency);
 *   NAME-layers: the upper device's line says below= its disks (and, for dm,
 *     dm_name=), and on each disk below, rows of pid 0 named after the upper
 *     device, "for" it, carry that disk's delta; at exit no bio sent below is
 *     still remembered (-v says how many are): each was forgotten as it
 *     completed, on a blk-mq disk with its request.
 */
static void check_stacked(const struct stack *st, const char *extra, const char *suffix)
{
	const char *args[] = { "-b", "-v", extra ? extra : INTERVAL, extra ? INTERVAL : NULL,
			       NULL };
	const int64_t n_bytes = (int64_t)W_COUNT * W_SIZE;
	int nlayers = 1 + st->nlower;
	struct diskstats before[1 + MAX_LOWER];
	struct stack_sums s;
	char name[64], path[64], buf[64];
	struct run r;
	pid_t child = -1;
	int status;
	bool ran = false;

	memset(&s, 0, sizeof(s));
	snprintf(path, sizeof(path), "/dev/%s", st->upper);
	begin_check();
	if (!st->ready) {
		expect(false, "the stack was not set up (see stacked-setup)");
		goto report;
	}
	for (int i = 0; i < nlayers; i++)
		expect(diskstats_read(layer_name(st, i), &before[i]), "%s not in /proc/diskstats",
		       layer_name(st, i));
	if (check_failed)
		goto report;
	if (!start_diskio(&r, args, no_env) || !wait_lines(&r, "# time ", 1, ATTACH_MS)) {
		if (r.pid > 0) {
			kill(r.pid, SIGKILL);
			finish_diskio(&r);
		}
		expect(false, "diskio did not attach: %s", r.err);
		free_run(&r);
		goto report;
	}
	child = fork();
	if (!child) {
		set_comm("kio-stacked");
		_exit(stacked_writes(path));
	}
	status = wait_child(child, CHILD_MS);
	expect(status != -1 && WIFEXITED(status) && WEXITSTATUS(status) == 0,
	       "the writer: %s", status_str(status, buf, sizeof(buf)));
	wait_lines(&r, "# time=", count_lines(&r, "# time=") + 2, INTERVALS_MS);
	stop_diskio(&r);
	expect_exit_0(&r);
	sum_stack(&r, st, child, &s);
	s.remembered = stderr_number("remembered at exit: ");
	free_run(&r);
	for (int i = 0; i < nlayers; i++) {
		s.layer[i].before = before[i];
		expect(diskstats_read(layer_name(st, i), &s.layer[i].after), "%s gone",
		       layer_name(st, i));
	}
	ran = true;
report:
	/* NAME-devices */
	if (ran) {
		for (int i = 0; i < nlayers; i++) {
			const struct layer_sums *l = &s.layer[i];

			note("%s: lines %" PRId64 " B/%" PRId64 ", /proc/diskstats %" PRId64 " B/%"
			     PRId64, layer_name(st, i), l->line_bytes, l->line_ios, written_bytes(l),
			     written_ios(l));
			expect(l->line_bytes == written_bytes(l) && l->line_ios == written_ios(l),
			       "%s's lines differ from /proc/diskstats", layer_name(st, i));
			expect(l->line_read_bytes == read_bytes(l) && l->line_read_ios == read_ios(l),
			       "%s's lines read %" PRId64 " B/%" PRId64 ", /proc/diskstats %" PRId64
			       " B/%" PRId64, layer_name(st, i), l->line_read_bytes,
			       l->line_read_ios, read_bytes(l), read_ios(l));
			expect(written_bytes(l) == n_bytes && read_ios(l) == 0,
			       "%s: /proc/diskstats wrote %" PRId64 " B and read %" PRId64
			       " I/Os, not the %" PRId64 " B written and none read",
			       layer_name(st, i), written_bytes(l), read_ios(l), n_bytes);
		}
	}
	snprintf(name, sizeof(name), "%s%s-devices", st->check, suffix);
	end_check(name);

	/* NAME-once */
	begin_check();
	if (ran) {
		note("writer: %" PRId64 " B/%" PRId64 " I/Os on rows with for '-'%s; header %" PRId64
		     " B", s.writer_bytes, s.writer_ios, s.has_for ? "" : " (no for column: all)",
		     s.header_bytes);
		for (int i = 0; i < nlayers; i++)
			note("writer's rows on %s: %" PRId64 " B", layer_name(st, i),
			     s.layer[i].writer_bytes);
		note("lost %" PRId64 " (stacked map full %" PRId64 ")", s.lost, s.lost_stacked);
		expect(s.writer_bytes == n_bytes, "the writer's total is %" PRId64 " B, not %" PRId64,
		       s.writer_bytes, n_bytes);
		expect(s.writer_ios == W_COUNT, "the writer's total is %" PRId64 " I/Os, not %d",
		       s.writer_ios, W_COUNT);
		expect(s.layer[0].writer_bytes == n_bytes, "the writer's rows on %s: %" PRId64
		       " B, not %" PRId64, st->upper, s.layer[0].writer_bytes, n_bytes);
		expect(s.header_bytes == n_bytes, "the header's total is %" PRId64 " B, not %" PRId64,
		       s.header_bytes, n_bytes);
		expect(s.lost == 0, "%" PRId64 " lost", s.lost);
		if (extra && !strcmp(extra, "-L"))
			expect(s.writer_latency, "no latency on the writer's rows with -L");
	} else {
		expect(false, "not run");
	}
	snprintf(name, sizeof(name), "%s%s-once", st->check, suffix);
	end_check(name);

	/* NAME-layers */
	begin_check();
	if (ran) {
		const struct layer_sums *top = &s.layer[0];

		note("%s: below=%s dm_name=%s", st->upper, top->below[0] ? top->below : "(none)",
		     top->dm_name[0] ? top->dm_name : "(none)");
		expect(below_is(st, top->below), "%s's line does not say below= its disks",
		       st->upper);
		note("bios sent below still remembered at exit: %" PRId64, s.remembered);
		expect(s.remembered == 0, "%" PRId64 " bios sent below were never forgotten "
		       "(-1: no -v line)", s.remembered);
		if (st->dm_name)
			expect(!strcmp(top->dm_name, st->dm_name), "%s's line does not say dm_name=%s",
			       st->upper, st->dm_name);
		for (int i = 1; i < nlayers; i++) {
			const struct layer_sums *l = &s.layer[i];

			note("%s: rows of pid 0 %s for %s: %" PRId64 " B/%" PRId64 " I/Os, line below=%s",
			     layer_name(st, i), st->upper, st->upper, l->issued_bytes, l->issued_ios,
			     l->below[0] ? l->below : "(none)");
			expect(l->issued_bytes == written_bytes(l) && l->issued_ios == written_ios(l),
			       "%s's I/O on %s is not on rows of pid 0 for %s", st->upper,
			       layer_name(st, i), st->upper);
			expect(!strcmp(l->below, "-"), "%s's line does not say below=-",
			       layer_name(st, i));
		}
	} else {
		expect(false, "not run");
	}
	snprintf(name, sizeof(name), "%s%s-layers", st->check, suffix);
	end_check(name);
}

/* ------------------------------------------------------- failed I/Os -- */

/*
 * Issue 45: a dm "error" device fails every I/O with EIO.  A child writes
 * and reads it with O_DIRECT, one 4 KiB bio a call, and counts the calls
 * that failed; diskio must count each failed I/O once, charged to the
 * child, as the row's errors (batch field 23), the disk's (errors=) with
 * EIO named, and --diagnose must call the disk failing (exit 6).
 */
#define DM_ERROR_NAME	"diskio-err"
#define ERR_WRITES	8
#define ERR_READS	5

/* DM_DEV_CREATE, DM_TABLE_LOAD of one "error" target of sectors, resume:
 * the new device's name (dm-N) into name. */
static bool create_dm_error(char *name, size_t size)
{
	union dm_buffer *b = malloc(sizeof(*b));
	struct dm_target_spec *target;
	char path[96], link[256], *base;
	int control = open("/dev/mapper/control", O_RDWR | O_CLOEXEC);
	uint64_t dev;
	ssize_t n;
	bool ok = false;

	if (!b || control < 0) {
		expect(false, "/dev/mapper/control: %s", strerror(errno));
		goto out;
	}
	dm_begin(b, DM_ERROR_NAME);
	if (ioctl(control, DM_DEV_CREATE, b)) {
		expect(false, "DM_DEV_CREATE %s: %s", DM_ERROR_NAME, strerror(errno));
		goto out;
	}
	dev = b->io.dev;
	dm_begin(b, DM_ERROR_NAME);
	b->io.target_count = 1;
	target = (struct dm_target_spec *)(b->bytes + b->io.data_start);
	target->sector_start = 0;
	target->length = 2048;
	snprintf(target->target_type, sizeof(target->target_type), "error");
	*(char *)(target + 1) = '\0';
	target->next = (uint32_t)((sizeof(*target) + 1 + 7) & ~(size_t)7);
	if (ioctl(control, DM_TABLE_LOAD, b)) {
		expect(false, "DM_TABLE_LOAD error: %s", strerror(errno));
		goto out;
	}
	dm_begin(b, DM_ERROR_NAME);
	if (ioctl(control, DM_DEV_SUSPEND, b)) {
		expect(false, "DM_DEV_SUSPEND (resume) %s: %s", DM_ERROR_NAME, strerror(errno));
		goto out;
	}
	snprintf(path, sizeof(path), "/sys/dev/block/%u:%u", major(dev), minor(dev));
	n = readlink(path, link, sizeof(link) - 1);
	link[n > 0 ? n : 0] = '\0';
	base = strrchr(link, '/');
	if (!base || strlen(base + 1) >= size) {
		expect(false, "%s: no link to the new dm device", path);
		goto out;
	}
	snprintf(name, size, "%s", base + 1);
	snprintf(path, sizeof(path), "/dev/%s", name);
	ok = wait_for_path(path, 5000);
	expect(ok, "no %s after the resume", path);
out:
	if (control >= 0)
		close(control);
	free(b);
	return ok;
}

/* A child "dm-erroring": ERR_WRITES writes then ERR_READS reads of 4 KiB,
 * O_DIRECT; its exit code is the number of calls that failed (100+: it
 * could not start). */
static pid_t spawn_failing_io(const char *path)
{
	pid_t pid = fork();

	if (!pid) {
		void *buf;
		int fd, failed = 0;

		set_comm("dm-erroring");
		fd = open(path, O_RDWR | O_DIRECT);
		if (fd < 0 || posix_memalign(&buf, 4096, 4096))
			_exit(100);
		memset(buf, 'e', 4096);
		for (int i = 0; i < ERR_WRITES; i++)
			failed += pwrite(fd, buf, 4096, (off_t)i * 4096) != 4096;
		for (int i = 0; i < ERR_READS; i++)
			failed += pread(fd, buf, 4096, (off_t)i * 4096) != 4096;
		_exit(failed);
	}
	return pid;
}

/* The child's errors (field 23 of its rows), the disk's errors= and
 * whether its error_kinds= named EIO. */
static void sum_errors(const struct run *r, pid_t pid, const char *dev, int64_t *row,
		       int64_t *disk, bool *eio)
{
	char want[64], line[4096], *f[64];

	*row = *disk = 0;
	*eio = false;
	snprintf(want, sizeof(want), "# device %s ", dev);
	for (const char *p = r->text; p && *p;) {
		const char *eol = strchr(p, '\n');
		size_t len;
		int n;

		if (!eol)
			break;
		len = (size_t)(eol - p) < sizeof(line) - 1 ? (size_t)(eol - p) : sizeof(line) - 1;
		if (!strncmp(p, want, strlen(want))) {
			char kinds[128];

			*disk += field(p, eol, "errors");
			string_field(p, eol, "error_kinds", kinds, sizeof(kinds));
			*eio |= strstr(kinds, "EIO:") != NULL;
		} else if (*p != '#') {
			memcpy(line, p, len);
			line[len] = '\0';
			n = split_fields(line, f, 64);
			if (n >= 24 && strtol(f[1], NULL, 10) == pid && !strcmp(f[3], dev))
				*row += strtoll(f[22], NULL, 10);
		}
		p = eol + 1;
	}
}

static void check_dm_errors(void)
{
	char dev[32] = "", path[48];
	struct run r;
	int64_t row, disk;
	bool eio;
	pid_t child;
	int status, failed;

	begin_check();
	if (!create_dm_error(dev, sizeof(dev))) {
		end_check("errors-dm-error");
		remove_dm(DM_ERROR_NAME);
		return;
	}
	snprintf(path, sizeof(path), "/dev/%s", dev);
	if (!start_diskio(&r, (const char *[]){ "-b", "-D", dev, INTERVAL, NULL }, no_env)) {
		expect(false, "cannot start %s", diskio);
	} else if (wait_attached(&r)) {
		child = spawn_failing_io(path);
		status = wait_child(child, 60000);
		failed = WIFEXITED(status) ? WEXITSTATUS(status) : 100;
		expect(failed == ERR_WRITES + ERR_READS, "%d of %d calls failed",
		       failed, ERR_WRITES + ERR_READS);
		wait_lines(&r, "# time=", count_lines(&r, "# time=") + 2, INTERVALS_MS);
		stop_diskio(&r);
		expect_exit_0(&r);
		sum_errors(&r, child, dev, &row, &disk, &eio);
		expect(row == failed, "the child's errors: %lld, its failed calls %d",
		       (long long)row, failed);
		expect(disk == failed, "the disk's errors=: %lld", (long long)disk);
		expect(eio, "error_kinds does not name EIO");
		if (!check_failed)
			note("%d failed I/Os of dm-error %s: the row's %lld, the disk's %lld, EIO",
			     failed, dev, (long long)row, (long long)disk);
		free_run(&r);
	}
	end_check("errors-dm-error");

	/* --diagnose: failing, the child's EIO, exit 6 */
	begin_check();
	if (dev[0] && start_diskio(&r, (const char *[]){ "--diagnose=3", "--json", "-D", dev,
							 NULL }, no_env)) {
		char want[64];

		if (wait_lines(&r, "{\"type\":\"start\"", 1, ATTACH_MS)) {
			child = spawn_failing_io(path);
			wait_child(child, 60000);
		}
		finish_diskio(&r);
		expect(r.status != -1 && WIFEXITED(r.status) && WEXITSTATUS(r.status) == 6,
		       "exit status %d, stderr: %s", r.status, r.err);
		snprintf(want, sizeof(want), "\"device\":\"%s\",\"state\":\"failing\"", dev);
		expect(r.text && strstr(r.text, want), "no %s: %.300s", want, r.text ? r.text : "");
		snprintf(want, sizeof(want), "\"errors\":{\"EIO\":%d}", ERR_WRITES + ERR_READS);
		expect(r.text && strstr(r.text, want), "no %s: %.600s", want, r.text ? r.text : "");
		if (!check_failed)
			note("--diagnose: %s failing, EIO %d, exit 6", dev, ERR_WRITES + ERR_READS);
		free_run(&r);
	}
	end_check("errors-dm-error-diagnose");
	remove_dm(DM_ERROR_NAME);
}

static void teardown_stacks(const struct stack *dm, const struct stack *md)
{
	if (dm->made)
		remove_dm(DM_LINEAR_NAME);
	if (md->made)
		stop_md(md->upper);
}

/* --------------------------------------------------------------- setup -- */

static bool setup_zram(void)
{
	struct stat st;

	if (write_file("/sys/block/zram0/disksize", "64M"))
		return false;
	for (int i = 0; i < 100; i++) {
		if (!stat("/dev/zram0", &st))
			return true;
		usleep(20000);
	}
	return false;
}

int main(int argc, char **argv)
{
	static const char *const rq_env[] = { "DISKIO_FORCE_RQ_HOOKS=1", NULL };
	static const char *const perf_env[] = { "DISKIO_FORCE_PERF_BUFFER=1", NULL };
	struct stack dm = { .check = "stacked-dm", .dm_name = DM_LINEAR_NAME };
	struct stack md = { .check = "stacked-md" };
	struct utsname u;
	char serial[64] = "";
	bool io_start;

	if (argc > 1)
		diskio = argv[1];
	setvbuf(stdout, NULL, _IOLBF, 0);
	signal(SIGPIPE, SIG_IGN);
	uname(&u);
	info("kernel %s %s", u.release, u.version);
	io_start = file_contains("/sys/kernel/btf/vmlinux", "btf_trace_block_io_start");
	info("block_io_start %s: diskio's request hooks here are %s", io_start ? "present" : "absent",
	     io_start ? "block_io_start/block_io_done" : "block_rq_issue/block_rq_complete");

	begin_check();
	expect(!access("/sys/kernel/btf/vmlinux", R_OK), "no /sys/kernel/btf/vmlinux");
	expect(!access("/dev/vda", R_OK), "no /dev/vda (virtio_blk)");
	/* The host lists vda's device first (scripts/test_kernels.sh): the
	 * known-answer checks must not run on a disk stacked on later. */
	expect(read_line("/sys/block/vda/serial", serial, sizeof(serial)) &&
	       !strcmp(serial, VDA_SERIAL), "vda's serial is '%s', not %s", serial, VDA_SERIAL);
	expect(setup_zram(), "no zram0 (zram module, disksize)");
	/* No I/O scheduler: a request is dispatched by its submitter, so the
	 * request hooks charge it (and count it) exactly. */
	expect(!write_file("/sys/block/vda/queue/scheduler", "none"), "vda: cannot set scheduler");
	end_check("devices");

	check_starts("start-default", (const char *[]){ "1", "1", NULL }, no_env, "# summary ");
	check_starts("start-json", (const char *[]){ "--json", INTERVAL, "1", NULL }, no_env,
		     "{\"type\":\"summary\",");
	check_starts("start-latency", (const char *[]){ "-L", INTERVAL, "1", NULL }, no_env,
		     "# summary ");
	check_starts("start-trace", (const char *[]){ "-T", INTERVAL, "1", NULL }, no_env,
		     "# interval ");
	check_starts("start-crash-state",
		     (const char *[]){ "--state", "/tmp/crash.state", "--crash-interval", "1",
				       INTERVAL, "4", NULL }, no_env, "operational_intervals=1");
	check_starts("start-perf-buffer", (const char *[]){ "-T", INTERVAL, "1", NULL }, perf_env,
		     "# interval ");
	check_starts("start-rq-hooks", (const char *[]){ "-L", INTERVAL, "1", NULL }, rq_env,
		     "# summary ");
	/* --stacks: the build-id stack and the executable's path walk load on
	 * this kernel, with either channel. */
	check_starts("start-stacks", (const char *[]){ "-b", "--stacks", INTERVAL, "1", NULL },
		     no_env, "# summary ");
	check_starts("start-stacks-perf-buffer",
		     (const char *[]){ "-b", "--stacks", INTERVAL, "1", NULL }, perf_env,
		     "# summary ");

	check_known_io("known-io-virtio", "vda", NULL, no_env);
	check_known_io("known-io-virtio-latency", "vda", "-L", no_env);
	check_known_io("known-io-virtio-rq-hooks", "vda", "-L", rq_env);
	check_known_trace("known-trace-virtio", "vda", no_env);
	check_known_io("known-io-zram", "zram0", NULL, no_env);
	check_known_io("known-io-zram-latency", "zram0", "-L", no_env);
	check_known_io("known-io-zram-stacks", "zram0", "--stacks", no_env);
	check_known_io("known-io-virtio-files", "vda", "--files", no_env);
	check_known_io("known-io-virtio-files-rq-hooks", "vda", "--files", rq_env);
	check_known_io("known-io-zram-files", "zram0", "--files", no_env);
	check_known_io_throttled("known-io-virtio-throttled", "vda");
	check_known_io_throttled("known-io-zram-throttled", "zram0");
	check_flushes("flushes-virtio", "vda", no_env);
	check_flushes("flushes-virtio-rq-hooks", "vda", rq_env);
	check_iowait("iowait-sched", false);
	check_iowait("iowait-delayacct", true);

	check_crashes();

	check_lost_exact("lost-exact-zram-ringbuf", "zram0", 20000, no_env);
	check_lost_exact("lost-exact-zram-perfbuf", "zram0", 20000, perf_env);
	check_lost_exact("lost-exact-virtio-ringbuf", "vda", 3000, no_env);

	setup_stacks(&dm, &md);
	check_stacked(&dm, NULL, "");
	check_stacked(&md, NULL, "");
	/* -L: every bio in flight is tracked, a path of its own for remapped bios. */
	check_stacked(&dm, "-L", "-latency");
	check_stacked(&md, "-L", "-latency");
	teardown_stacks(&dm, &md);
	check_dm_errors();

	printf(PREFIX "%d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
