// SPDX-License-Identifier: GPL-2.0
/*
 * Integration tests of --files (issue 35), run as root against the real
 * kernel on ext4 and on XFS on a new zram disk, with exact known answers:
 * - `dd bs=1M count=16 conv=fsync` to `a`: 16 MiB written to `a`, by dd;
 * - an 8 MiB O_DIRECT write to `dir/b` from a buffer that maps file `c`:
 *   `dir/b` 8 MiB, `c` nothing (the file is the I/O's, not the buffer's);
 * - a cold `cat` of the 16 MiB file `r`: 16 MiB read, by cat;
 * - a file written, unlinked while open and then synced: "(deleted)";
 * - on the disk, the files plus [metadata] plus [unknown] equal the device
 *   row and the /proc/diskstats change, reads and writes, bytes and I/Os.
 */
#include "harness.h"
#include <sched.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/wait.h>

#define MiB		(1024LL * 1024LL)
#define DEV_SIZE	(512ULL << 20)	/* XFS wants more than 300 MB */

static char swap_on[PATH_MAX];		/* the swap file a test turned on */

/* A swap file is turned off before its filesystem goes. */
static void teardown(void)
{
	if (swap_on[0]) {
		struct h_result r;

		/* before h_teardown() kills the swapper: its pages come back */
		h_run(H_ARGS("swapoff", swap_on), NULL, NULL, 60000, &r);
		h_result_free(&r);
		swap_on[0] = '\0';
	}
	h_teardown();
}

TestSuite(files, .init = h_setup, .fini = teardown, .timeout = 180);

static void run_ok(const char *const argv[])
{
	struct h_result r;
	char why[64];

	h_run(argv, NULL, NULL, 120000, &r);
	cr_assert(!r.timed_out && WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0,
		  "`%s %s`: %s: %s", argv[0], argv[1] ? argv[1] : "",
		  h_status_str(r.status, why, sizeof(why)), r.err);
	h_result_free(&r);
}

/* A file of size bytes of 0xa5, on disk, its pages kept (hot) or dropped. */
static void make_file(const char *path, size_t size, bool cold)
{
	static char chunk[1 << 20];
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);

	cr_assert(fd >= 0, "%s: %s", path, strerror(errno));
	memset(chunk, 0xa5, sizeof(chunk));
	for (size_t done = 0; done < size; done += sizeof(chunk))
		cr_assert(write(fd, chunk, sizeof(chunk)) == (ssize_t)sizeof(chunk));
	cr_assert(!fsync(fd));
	if (cold)
		cr_assert(!posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED));
	close(fd);
}

/* A child named comm: 8 MiB written with O_DIRECT to path from a buffer
 * that maps the file from (its pages in the page cache). */
static pid_t spawn_direct_from_mmap(const char *comm, const char *path, const char *from)
{
	pid_t pid;

	fflush(NULL);
	pid = fork();
	cr_assert(pid >= 0);
	if (!pid) {
		int in = open(from, O_RDONLY), out;
		char *buf;

		prctl(PR_SET_NAME, comm, 0, 0, 0);
		if (in < 0)
			_exit(H_IO_ERR_OPEN);
		buf = mmap(NULL, 8 * MiB, PROT_READ, MAP_SHARED, in, 0);
		if (buf == MAP_FAILED)
			_exit(H_IO_ERR_ALLOC);
		out = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_DIRECT, 0644);
		if (out < 0)
			_exit(H_IO_ERR_OPEN);
		for (int i = 0; i < 8; i++)
			if (write(out, buf + i * MiB, MiB) != MiB)
				_exit(H_IO_ERR_WRITE);
		if (fsync(out))
			_exit(H_IO_ERR_FSYNC);
		_exit(H_IO_OK);
	}
	h_track_child(pid);
	return pid;
}

/* A child named comm: 4 MiB written to path, which it unlinks while open,
 * then syncs: its writeback is of a file with no name left. */
static pid_t spawn_unlinked_writer(const char *comm, const char *path)
{
	pid_t pid;

	fflush(NULL);
	pid = fork();
	cr_assert(pid >= 0);
	if (!pid) {
		static char chunk[1 << 20];
		int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);

		prctl(PR_SET_NAME, comm, 0, 0, 0);
		if (fd < 0)
			_exit(H_IO_ERR_OPEN);
		memset(chunk, 0x5a, sizeof(chunk));
		for (int i = 0; i < 4; i++)
			if (write(fd, chunk, sizeof(chunk)) != (ssize_t)sizeof(chunk))
				_exit(H_IO_ERR_WRITE);
		if (unlink(path) || fsync(fd))
			_exit(H_IO_ERR_FSYNC);
		_exit(H_IO_OK);
	}
	h_track_child(pid);
	return pid;
}

struct file_sum {
	int64_t read_bytes, write_bytes, read_ios, write_ios;
	int lines;
	char comm[64];		/* the last line's */
	bool other_comm;	/* lines of more than one comm */
	bool deleted;
};

static void add_line(struct file_sum *s, struct h_jv e)
{
	struct h_jv v;
	int64_t n;
	char comm[64] = "";

	s->lines++;
	if (h_json_get(e, "comm", &v))
		h_json_str(v, comm, sizeof(comm));
	if (s->comm[0] && strcmp(s->comm, comm))
		s->other_comm = true;
	snprintf(s->comm, sizeof(s->comm), "%s", comm);
	cr_assert(h_json_get_int(e, "read_bytes", &n));
	s->read_bytes += n;
	cr_assert(h_json_get_int(e, "write_bytes", &n));
	s->write_bytes += n;
	cr_assert(h_json_get_int(e, "read_ios", &n));
	s->read_ios += n;
	cr_assert(h_json_get_int(e, "write_ios", &n));
	s->write_ios += n;
	if (h_json_get(e, "deleted", &v) && v.len == 4 && !memcmp(v.p, "true", 4))
		s->deleted = true;
}

/* The files lines of the interval records among lines[0..n), of process
 * pid (0: any), on device, whose path is path (NULL: any). */
static struct file_sum sum_files_in(char *const *lines, size_t n, pid_t pid, const char *device,
				    const char *path)
{
	struct file_sum s = { 0 };

	for (size_t i = 0; i < n; i++) {
		struct h_jv root, files, e, v;
		size_t pos = 0;
		char got[PATH_MAX + 32];
		int64_t line_pid;

		if (!h_json_is_interval(lines[i]) || !h_json_parse(lines[i], &root))
			continue;
		cr_assert(h_json_get(root, "files", &files), "no files: %s", lines[i]);
		while (h_json_next_elem(files, &pos, &e)) {
			if (pid && (!h_json_get_int(e, "pid", &line_pid) || line_pid != pid))
				continue;
			cr_assert(h_json_get(e, "device", &v));
			if (!h_json_str_eq(v, device))
				continue;
			cr_assert(h_json_get(e, "path", &v));
			h_json_str(v, got, sizeof(got));
			if (!path || !strcmp(got, path))
				add_line(&s, e);
		}
	}
	return s;
}

/* The same from d's line first on. */
static struct file_sum sum_files_of(const struct h_diskio *d, size_t first, pid_t pid,
				    const char *device, const char *path)
{
	return sum_files_in(d->lines + first, d->nlines - first, pid, device, path);
}

/* The same over every interval record, of any process. */
static struct file_sum sum_files(const struct h_diskio *d, const char *device, const char *path)
{
	return sum_files_of(d, 0, 0, device, path);
}

/* The acceptance list on the filesystem mounted at mnt, on disk. */
static void which_file(const struct h_dev *disk, const char *mnt)
{
	char a[PATH_MAX], b[PATH_MAX], c[PATH_MAX], r[PATH_MAX], u[PATH_MAX], dir[PATH_MAX];
	char want[PATH_MAX + 16], ddof[PATH_MAX + 8];
	struct h_diskstats before, after, delta;
	struct h_counters device = { 0 };
	struct file_sum s, all;
	struct h_diskio d;

	snprintf(a, sizeof(a), "%s/a", mnt);
	snprintf(dir, sizeof(dir), "%s/dir", mnt);
	snprintf(b, sizeof(b), "%s/dir/b", mnt);
	snprintf(c, sizeof(c), "%s/c", mnt);
	snprintf(r, sizeof(r), "%s/r", mnt);
	snprintf(u, sizeof(u), "%s/u", mnt);
	cr_assert(!mkdir(dir, 0755));
	make_file(c, 8 * MiB, false);
	make_file(r, 16 * MiB, true);
	run_ok(H_ARGS("sync"));

	h_diskio_start(&d, H_ARGS("--json", "--files", "-D", disk->name, "0.5"), NULL);
	h_diskio_wait_attached(&d, H_ATTACH_TIMEOUT_MS);
	cr_assert(h_diskstats_read(disk->name, &before));
	snprintf(ddof, sizeof(ddof), "of=%s", a);
	run_ok(H_ARGS("dd", "if=/dev/zero", ddof, "bs=1M", "count=16", "conv=fsync",
		      "status=none"));
	h_expect_child_ok(spawn_direct_from_mmap("dio-mmap", b, c), H_CHILD_TIMEOUT_MS);
	run_ok(H_ARGS("sh", "-c", "cat \"$0\" > /dev/null", r));
	h_expect_child_ok(spawn_unlinked_writer("unlinker", u), H_CHILD_TIMEOUT_MS);
	run_ok(H_ARGS("sync"));
	h_diskio_finish(&d, 3);
	cr_assert(h_diskstats_read(disk->name, &after));
	delta = h_diskstats_delta(&before, &after);

	s = sum_files(&d, disk->name, a);
	cr_assert_eq(s.write_bytes, 16 * MiB, "a: %" PRId64 " bytes written", s.write_bytes);
	cr_assert(!strcmp(s.comm, "dd") && !s.other_comm, "a is dd's, not %s", s.comm);
	s = sum_files(&d, disk->name, b);
	cr_assert_eq(s.write_bytes, 8 * MiB, "dir/b: %" PRId64 " bytes written", s.write_bytes);
	cr_assert(!strcmp(s.comm, "dio-mmap"), "dir/b is dio-mmap's, not %s", s.comm);
	/* c is b's buffer, mapped: b's direct writes are never c's.  Its
	 * pages, clean since the sync, may have been reclaimed before the
	 * child mapped them: then its faults read them again, c's own reads
	 * (1 MiB once in CI, b's 8 MiB all on b's line). */
	s = sum_files(&d, disk->name, c);
	cr_assert_eq(s.write_bytes, 0, "c: %" PRId64 " bytes written", s.write_bytes);
	cr_assert_leq(s.read_bytes, 8 * MiB, "c: %" PRId64 " bytes read", s.read_bytes);
	if (s.read_bytes) {
		cr_assert(!strcmp(s.comm, "dio-mmap") && !s.other_comm,
			  "c read by %s, not the process that maps it", s.comm);
		cr_log_info("c: %" PRId64 " bytes read again by its mapper", s.read_bytes);
	}
	s = sum_files(&d, disk->name, r);
	cr_assert_eq(s.read_bytes, 16 * MiB, "r: %" PRId64 " bytes read", s.read_bytes);
	cr_assert(!strcmp(s.comm, "cat") && !s.other_comm, "r is cat's, not %s", s.comm);
	snprintf(want, sizeof(want), "%s (deleted)", u);
	s = sum_files(&d, disk->name, want);
	cr_assert_eq(s.write_bytes, 4 * MiB, "%s: %" PRId64 " bytes written", want, s.write_bytes);
	cr_assert(s.deleted && !strcmp(s.comm, "unlinker"));

	/* every byte and I/O of the disk is in a file line, metadata or unknown */
	all = sum_files(&d, disk->name, NULL);
	h_json_sum_device(d.lines, d.nlines, disk->name, &device);
	cr_assert_eq(all.read_bytes, device.read_bytes, "files read %" PRId64 ", device %" PRId64,
		     all.read_bytes, device.read_bytes);
	cr_assert_eq(all.write_bytes, device.write_bytes, "files wrote %" PRId64 ", device %"
		     PRId64, all.write_bytes, device.write_bytes);
	cr_assert_eq(all.read_ios, device.read_ios);
	cr_assert_eq(all.write_ios, device.write_ios);
	cr_assert_eq(device.read_bytes, (int64_t)delta.read_sectors * 512);
	cr_assert_eq(device.write_bytes, (int64_t)delta.write_sectors * 512);
	cr_assert_eq(device.read_ios, (int64_t)delta.read_ios);
	cr_assert_eq(device.write_ios, (int64_t)delta.write_ios);
	h_diskio_free(&d);
}

Test(files, which_file_on_ext4)
{
	const struct h_dev *zram = h_zram_create(DEV_SIZE);

	which_file(zram, h_ext4_mount(zram)->path);
}

/* A blk-mq disk: I/Os are requests, counted for the file of their first bio. */
Test(files, which_file_on_ext4_on_loop)
{
	const struct h_dev *loop = h_loop_create(DEV_SIZE);

	which_file(loop, h_ext4_mount(loop)->path);
}

Test(files, which_file_on_xfs)
{
	const struct h_dev *zram = h_zram_create(DEV_SIZE);

	which_file(zram, h_xfs_mount(zram)->path);
}

/* The value of field key= of a "# file" line, into buf. */
static bool file_field(const char *line, const char *key, char *buf, size_t size)
{
	char want[64];
	const char *at, *end;

	snprintf(want, sizeof(want), " %s=", key);
	at = strstr(line, want);
	if (!at)
		return false;
	at += strlen(want);
	end = strchr(at, ' ');
	if (!end)
		end = at + strlen(at);
	snprintf(buf, size, "%.*s", (int)(end - at), at);
	return true;
}

/* Batch: "# file" lines, a path with a space escaped so that awk's fields
 * never shift; --files-top 1 sums a process's other files on one line (-a:
 * the last interval holds the run's totals). */
Test(files, batch_lines_escape_paths)
{
	const struct h_dev *zram = h_zram_create(DEV_SIZE);
	const char *mnt = h_ext4_mount(zram)->path;
	char script[4 * PATH_MAX], want[PATH_MAX + 16], value[PATH_MAX + 16];
	int64_t written = 0, others = 0;
	struct h_diskio d;
	size_t last = 0;

	snprintf(script, sizeof(script),
		 "dd if=/dev/zero of='%s/sp ace' bs=1M count=2 conv=fsync status=none && "
		 "cd '%s' && for f in x y z; do printf '%%65536s' > $f; done", mnt, mnt);
	h_diskio_start(&d, H_ARGS("-b", "-a", "--files", "--files-top", "1", "-D", zram->name,
				  "0.5"), NULL);
	h_diskio_wait_attached(&d, H_ATTACH_TIMEOUT_MS);
	run_ok(H_ARGS("sh", "-c", script));
	run_ok(H_ARGS("sync"));
	h_diskio_finish(&d, 2);
	snprintf(want, sizeof(want), "%s/sp\\x20ace", mnt);
	/* -a: the last interval's lines are the run's totals */
	for (size_t i = 0; i < d.nlines; i++)
		if (!strncmp(d.lines[i], "# time=", 7))
			last = i;
	for (size_t i = last; i < d.nlines; i++) {
		const char *line = d.lines[i];

		if (strncmp(line, "# file ", 7))
			continue;
		cr_assert(file_field(line, "path", value, sizeof(value)), "%s", line);
		if (!strcmp(value, want)) {
			cr_assert(file_field(line, "write_bytes", value, sizeof(value)));
			written += atoll(value);
			cr_assert(file_field(line, "comm", value, sizeof(value)));
			cr_assert_str_eq(value, "dd");
		} else if (!strcmp(value, "[other\\x20files]")) {
			cr_assert(file_field(line, "write_bytes", value, sizeof(value)));
			others += atoll(value);
			cr_assert(file_field(line, "file_count", value, sizeof(value)));
			cr_assert_str_eq(value, "2", "%s", line);
		}
	}
	if (written != 2 * MiB)
		h_diskio_dump(&d, "no 2 MiB to 'sp ace'");
	cr_assert_eq(written, 2 * MiB, "'sp ace': %" PRId64 " bytes", written);
	/* the shell wrote x, y and z itself (printf is a builtin): one is its
	 * top file, the other two 128 KiB on one line, written back for it */
	cr_assert_eq(others, 2 * 65536, "[other files]: %" PRId64 " bytes", others);
	h_diskio_free(&d);
}

/* ---- issue 47: a file map that never goes blind ---- */

#define BURST_FILES	20000	/* more than the kernel map's FILE_COUNTS_ENTRIES */

/* A child "burst" that writes 4 KiB to each of n new files in dir, then
 * syncs the filesystem. */
static pid_t spawn_burst(const char *dir, int n)
{
	pid_t pid;

	fflush(NULL);
	pid = fork();
	cr_assert(pid >= 0);
	if (!pid) {
		static char page[4096];
		char path[PATH_MAX + 16];
		int dfd;

		h__child_prepare(-1);
		prctl(PR_SET_NAME, "burst");
		memset(page, 'b', sizeof(page));
		for (int i = 0; i < n; i++) {
			int fd;

			snprintf(path, sizeof(path), "%s/f%05d", dir, i);
			fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
			if (fd < 0 || write(fd, page, sizeof(page)) != (ssize_t)sizeof(page))
				_exit(H_IO_ERR_WRITE);
			close(fd);
		}
		dfd = open(dir, O_RDONLY | O_DIRECTORY);
		if (dfd < 0 || syncfs(dfd))
			_exit(H_IO_ERR_FSYNC);
		_exit(H_IO_OK);
	}
	h_track_child(pid);
	return pid;
}

/* The interval's "lost"."by_cause"."files_map_full". */
static int64_t files_map_full(struct h_jv interval)
{
	struct h_jv lost, causes;
	int64_t n = -1;

	cr_assert(h_json_get(interval, "lost", &lost) && h_json_get(lost, "by_cause", &causes) &&
		  h_json_get_int(causes, "files_map_full", &n), "no lost.by_cause.files_map_full");
	return n;
}

/*
 * 20,000 small files written and synced (more distinct files than the
 * kernel's map holds), then, intervals later, 1 MiB written with O_DIRECT
 * to one file: its line has the 1 MiB, its writer's, and no interval it is
 * in lost a file count.  With a map of the run's files, full after the
 * burst, the file had no line at all.
 */
static void not_blind_after_a_burst(const struct h_dev *disk, const char *mnt)
{
	static const struct h_io one_mib[] = { { 'w', 0, 4096, 256 } };
	char dir[PATH_MAX], big[PATH_MAX];
	int64_t burst_lost = 0, written = 0, lines = 0;
	struct h_diskio d;

	snprintf(dir, sizeof(dir), "%s/burst", mnt);
	snprintf(big, sizeof(big), "%s/big", mnt);
	cr_assert(!mkdir(dir, 0755));
	make_file(big, MiB, false);
	run_ok(H_ARGS("sync"));

	h_diskio_start(&d, H_ARGS("--json", "--files", "-D", disk->name, "0.5"), NULL);
	h_diskio_wait_attached(&d, H_ATTACH_TIMEOUT_MS);
	h_expect_child_ok(spawn_burst(dir, BURST_FILES), 120000);
	h_diskio_wait_new_intervals(&d, 2, 10000);
	h_expect_child_ok(h_spawn_io("one-mib", big, one_mib, 1, NULL), H_CHILD_TIMEOUT_MS);
	h_diskio_finish(&d, 2);

	for (size_t i = 0; i < d.nlines; i++) {
		struct h_jv root, files, e, v;
		size_t pos = 0;
		char path[PATH_MAX + 32], comm[64];
		bool has_big = false;

		if (!h_json_is_interval(d.lines[i]) || !h_json_parse(d.lines[i], &root))
			continue;
		cr_assert(h_json_get(root, "files", &files), "no files: %.300s", d.lines[i]);
		while (h_json_next_elem(files, &pos, &e)) {
			int64_t n;

			cr_assert(h_json_get(e, "path", &v) && h_json_str(v, path, sizeof(path)) >= 0);
			if (strcmp(path, big))
				continue;
			has_big = true;
			lines++;
			cr_assert(h_json_get(e, "comm", &v) && h_json_str(v, comm, sizeof(comm)) >= 0);
			cr_expect_str_eq(comm, "one-mib", "%s written by %s", big, comm);
			cr_assert(h_json_get_int(e, "write_bytes", &n));
			written += n;
		}
		if (has_big)
			cr_expect_eq(files_map_full(root), 0, "the interval of %s lost %" PRId64
				     " file counts", big, files_map_full(root));
		else
			burst_lost += files_map_full(root);
	}
	cr_log_info("%s: the burst's intervals lost %" PRId64 " file counts (map full); %s: "
		    "%" PRId64 " lines", disk->name, burst_lost, big, lines);
	if (written != MiB)
		h_diskio_dump(&d, "the 1 MiB file's line");
	cr_assert_eq(written, MiB, "%s: %" PRId64 " bytes written on its lines", big, written);
	h_diskio_free(&d);
}

/* A child "churn" that n times creates a file in dir, writes 4 KiB to it
 * and fsyncs it, and unlinks the file it made 64 before. */
static pid_t spawn_churn(const char *dir, int n)
{
	pid_t pid;

	fflush(NULL);
	pid = fork();
	cr_assert(pid >= 0);
	if (!pid) {
		static char page[4096];
		char path[PATH_MAX + 16];

		h__child_prepare(-1);
		prctl(PR_SET_NAME, "churn");
		memset(page, 'c', sizeof(page));
		for (int i = 0; i < n; i++) {
			int fd;

			snprintf(path, sizeof(path), "%s/c%05d", dir, i);
			fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
			if (fd < 0 || write(fd, page, sizeof(page)) != (ssize_t)sizeof(page))
				_exit(H_IO_ERR_WRITE);
			if (fsync(fd))
				_exit(H_IO_ERR_FSYNC);
			close(fd);
			snprintf(path, sizeof(path), "%s/c%05d", dir, i - 64);
			if (i >= 64 && unlink(path))
				_exit(H_IO_ERR_WRITE);
		}
		_exit(H_IO_OK);
	}
	h_track_child(pid);
	return pid;
}

#define CHURN_FILES	20000

/*
 * Issue 47 item 5: 20,000 files created, written, synced and unlinked, with
 * diskio cutting intervals every 0.2 s in the middle of it: in every
 * interval, the disk's file lines (with [metadata] and the other buckets)
 * add up to its process rows and to its device row, bytes and I/Os; over
 * the run, the device row is /proc/diskstats.  Before the rows were read at
 * the cut the file counts end at, intervals of such a burst had more bytes
 * in files than in rows.
 */
static void files_add_up_in_every_interval(const struct h_dev *disk, const char *mnt)
{
	struct h_diskstats before, after, delta;
	struct h_counters total = { 0 };
	char dir[PATH_MAX];
	struct h_diskio d;
	int intervals = 0, busy = 0, status;
	pid_t churn;

	snprintf(dir, sizeof(dir), "%s/churn", mnt);
	cr_assert(!mkdir(dir, 0755));
	run_ok(H_ARGS("sync"));

	h_diskio_start(&d, H_ARGS("--json", "--files", "-D", disk->name, "0.05"), NULL);
	h_diskio_wait_attached(&d, H_ATTACH_TIMEOUT_MS);
	cr_assert(h_diskstats_read(disk->name, &before));
	/* diskio's lines read as they come: a full pipe would hold its
	 * intervals back, to a few long ones */
	churn = spawn_churn(dir, CHURN_FILES);
	for (int64_t until = h_now_ms() + 120000; h_wait_pid(churn, 0, &status);) {
		cr_assert(h_now_ms() < until, "the churn still runs after 120 s");
		h_diskio_pump(&d, 20);
	}
	cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == H_IO_OK, "churn: %s",
		  h_io_error_str(WIFEXITED(status) ? WEXITSTATUS(status) : -1));
	run_ok(H_ARGS("sync"));
	h_diskio_wait_new_intervals(&d, 2, 10000);
	cr_assert(h_diskstats_read(disk->name, &after));
	h_diskio_finish(&d, 2);
	delta = h_diskstats_delta(&before, &after);

	for (size_t i = 0; i < d.nlines; i++) {
		struct h_counters rows = { 0 }, device = { 0 };
		struct file_sum files;
		struct h_jv root;

		if (!h_json_is_interval(d.lines[i]))
			continue;
		intervals++;
		files = sum_files_in(d.lines + i, 1, 0, disk->name, NULL);
		cr_assert(h_json_parse(d.lines[i], &root));
		cr_expect_eq(files_map_full(root), 0, "interval %d lost %" PRId64 " file counts",
			     intervals, files_map_full(root));
		h_json_sum_process(d.lines + i, 1, 0, disk->name, NULL, &rows);
		h_json_sum_device(d.lines + i, 1, disk->name, &device);
		if (device.write_ios)
			busy++;
		cr_expect(files.read_bytes == rows.read_bytes && files.write_bytes == rows.write_bytes &&
			  files.read_ios == rows.read_ios && files.write_ios == rows.write_ios,
			  "interval %d: files read %" PRId64 " B %" PRId64 " I/Os, wrote %" PRId64
			  " B %" PRId64 " I/Os; rows read %" PRId64 " B %" PRId64 " I/Os, wrote %"
			  PRId64 " B %" PRId64 " I/Os", intervals, files.read_bytes, files.read_ios,
			  files.write_bytes, files.write_ios, rows.read_bytes, rows.read_ios,
			  rows.write_bytes, rows.write_ios);
		cr_expect(rows.read_bytes == device.read_bytes &&
			  rows.write_bytes == device.write_bytes &&
			  rows.read_ios == device.read_ios && rows.write_ios == device.write_ios,
			  "interval %d: rows wrote %" PRId64 " B %" PRId64 " I/Os, the device %"
			  PRId64 " B %" PRId64 " I/Os", intervals, rows.write_bytes, rows.write_ios,
			  device.write_bytes, device.write_ios);
		total.read_bytes += device.read_bytes;
		total.write_bytes += device.write_bytes;
		total.read_ios += device.read_ios;
		total.write_ios += device.write_ios;
	}
	cr_log_info("%s: %d intervals, %d with writes; %" PRId64 " bytes in %" PRId64
		    " writes", disk->name, intervals, busy, total.write_bytes, total.write_ios);
	cr_assert_geq(busy, 5, "the churn's writes fell in %d intervals", busy);
	cr_assert_eq(total.write_bytes, (int64_t)delta.write_sectors * 512);
	cr_assert_eq(total.write_ios, (int64_t)delta.write_ios);
	cr_assert_eq(total.read_bytes, (int64_t)delta.read_sectors * 512);
	cr_assert_eq(total.read_ios, (int64_t)delta.read_ios);
	h_diskio_free(&d);
}

Test(files, files_add_up_to_rows_in_every_interval_on_ext4)
{
	const struct h_dev *zram = h_zram_create(256 * MiB);

	files_add_up_in_every_interval(zram, h_ext4_mount(zram)->path);
}

/* A blk-mq disk: a request's I/O is counted where it starts, by other
 * programs than its bytes. */
Test(files, files_add_up_to_rows_in_every_interval_on_ext4_on_loop)
{
	const struct h_dev *loop = h_loop_create(256 * MiB);

	files_add_up_in_every_interval(loop, h_ext4_mount(loop)->path);
}

Test(files, files_add_up_to_rows_in_every_interval_on_xfs)
{
	const struct h_dev *zram = h_zram_create(512 * MiB);

	files_add_up_in_every_interval(zram, h_xfs_mount(zram)->path);
}

Test(files, a_later_file_is_counted_after_a_burst_on_ext4)
{
	const struct h_dev *zram = h_zram_create(DEV_SIZE);

	not_blind_after_a_burst(zram, h_ext4_mount(zram)->path);
}

Test(files, a_later_file_is_counted_after_a_burst_on_xfs)
{
	const struct h_dev *zram = h_zram_create(DEV_SIZE);

	not_blind_after_a_burst(zram, h_xfs_mount(zram)->path);
}

/* ---- issue 47: an inode number given again ---- */

#define REUSE_NOT_REUSED	77	/* the child's exit: b did not get a's number */

/* A child "reuser": 8 MiB to mnt/a, fsync, a deleted and the filesystem
 * synced, then 4 MiB to mnt/b, which must have had a's inode number. */
static pid_t spawn_reuser(const char *mnt, const char *a, const char *b)
{
	pid_t pid;

	fflush(NULL);
	pid = fork();
	cr_assert(pid >= 0);
	if (!pid) {
		static char chunk[1 << 20];
		struct stat st;
		ino_t ino_a;
		int fd, dfd;

		h__child_prepare(-1);
		prctl(PR_SET_NAME, "reuser");
		memset(chunk, 'r', sizeof(chunk));
		fd = open(a, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		for (int i = 0; fd >= 0 && i < 8; i++)
			if (write(fd, chunk, sizeof(chunk)) != (ssize_t)sizeof(chunk))
				_exit(H_IO_ERR_WRITE);
		if (fd < 0 || fsync(fd) || fstat(fd, &st) || close(fd) || unlink(a))
			_exit(H_IO_ERR_FSYNC);
		ino_a = st.st_ino;
		dfd = open(mnt, O_RDONLY | O_DIRECTORY);
		if (dfd < 0 || syncfs(dfd))
			_exit(H_IO_ERR_FSYNC);
		fd = open(b, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (fd < 0 || fstat(fd, &st))
			_exit(H_IO_ERR_OPEN);
		if (st.st_ino != ino_a)
			_exit(REUSE_NOT_REUSED);
		for (int i = 0; i < 4; i++)
			if (write(fd, chunk, sizeof(chunk)) != (ssize_t)sizeof(chunk))
				_exit(H_IO_ERR_WRITE);
		_exit(fsync(fd) ? H_IO_ERR_FSYNC : H_IO_OK);
	}
	h_track_child(pid);
	return pid;
}

/*
 * ext4 gives a deleted file's inode number to the next file made in its
 * group.  One process writes a, deletes it, writes b, which gets a's
 * number: with -a, the last interval has two lines, a's 8 MiB and b's
 * 4 MiB, each under its own name (one line "b" of 12 MiB before: a file
 * was its number).
 */
Test(files, an_inode_number_given_again_is_another_file_on_ext4)
{
	const struct h_dev *zram = h_zram_create(DEV_SIZE);
	const char *mnt = h_ext4_mount(zram)->path;
	char a[PATH_MAX], b[PATH_MAX];
	struct file_sum sa, sb;
	struct h_diskio d;
	size_t last = 0;
	int status;
	pid_t pid;

	snprintf(a, sizeof(a), "%s/a", mnt);
	snprintf(b, sizeof(b), "%s/b", mnt);
	h_diskio_start(&d, H_ARGS("--json", "-a", "--files", "-D", zram->name, "0.5"), NULL);
	h_diskio_wait_attached(&d, H_ATTACH_TIMEOUT_MS);
	pid = spawn_reuser(mnt, a, b);
	cr_assert_eq(h_wait_pid(pid, 60000, &status), 0, "the reuser did not end");
	if (WIFEXITED(status) && WEXITSTATUS(status) == REUSE_NOT_REUSED) {
		h_diskio_stop(&d, SIGINT, 5000);
		h_diskio_free(&d);
		cr_skip_test("ext4 gave b another inode number than a's");
	}
	cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == H_IO_OK, "the reuser: %s",
		  h_status_str(status, (char[64]){ 0 }, 64));
	h_diskio_finish(&d, 2);
	/* -a: the last interval's lines are the run's totals */
	for (size_t i = 0; i < d.nlines; i++)
		if (h_json_is_interval(d.lines[i]))
			last = i;
	sa = sum_files_of(&d, last, 0, zram->name, a);
	sb = sum_files_of(&d, last, 0, zram->name, b);
	cr_expect_eq(sa.lines, 1, "%d lines of %s", sa.lines, a);
	cr_expect_eq(sa.write_bytes, 8 * MiB, "%s: %" PRId64 " bytes written", a, sa.write_bytes);
	cr_expect_eq(sb.lines, 1, "%d lines of %s", sb.lines, b);
	cr_expect_eq(sb.write_bytes, 4 * MiB, "%s: %" PRId64 " bytes written", b, sb.write_bytes);
	if (sa.write_bytes != 8 * MiB || sb.write_bytes != 4 * MiB)
		h_diskio_dump(&d, "a and b");
	h_diskio_free(&d);
}

/* ---- issue 47: swap ---- */

#define SWAP_FILE_BYTES	(64 * MiB)
#define SWAPPED_BYTES	(16 * MiB)

/* A child "swapper": SWAPPED_BYTES of its memory paged out to swap
 * (MADV_PAGEOUT: its own reclaim) and touched again, swapped in. */
static pid_t spawn_swapper(void)
{
	pid_t pid;

	fflush(NULL);
	pid = fork();
	cr_assert(pid >= 0);
	if (!pid) {
		unsigned char *mem;

		h__child_prepare(-1);
		prctl(PR_SET_NAME, "swapper");
		mem = mmap(NULL, SWAPPED_BYTES, PROT_READ | PROT_WRITE,
			   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (mem == MAP_FAILED)
			_exit(28);
		for (size_t i = 0; i < SWAPPED_BYTES; i++)	/* not zero pages */
			mem[i] = (unsigned char)(i * 131 + (i >> 12));
		if (madvise(mem, SWAPPED_BYTES, MADV_PAGEOUT))
			_exit(errno == EINVAL ? 30 : 31);	/* 30: before Linux 5.4 */
		for (size_t i = 0; i < SWAPPED_BYTES; i += 4096)
			mem[i] += 1;
		_exit(H_IO_OK);
	}
	h_track_child(pid);
	return pid;
}

/* A /proc/vmstat counter. */
static int64_t vmstat(const char *name)
{
	FILE *f = fopen("/proc/vmstat", "r");
	char key[64];
	long long value;
	int64_t found = -1;

	cr_assert_not_null(f);
	while (fscanf(f, "%63s %lld", key, &value) == 2)
		if (!strcmp(key, name))
			found = value;
	fclose(f);
	return found;
}

/* Swap areas in /proc/swaps (its header line not counted). */
static int swap_areas(void)
{
	FILE *f = fopen("/proc/swaps", "r");
	char line[512];
	int n = -1;

	cr_assert_not_null(f);
	while (fgets(line, sizeof(line), f))
		n++;
	fclose(f);
	return n;
}

/*
 * A swap file on ext4 over zram, the only swap area: a process pages its
 * memory out to it and back in.  Its I/O there is [swap] both ways, not
 * [unknown] and [metadata]: the swapper's lines are one [swap] line with
 * all its row's bytes, and all [swap] lines of the disk hold every page the
 * kernel counts swapped out and in (/proc/vmstat pswpout, pswpin) while the
 * swapper ran, and no more than it counts around diskio's run.
 */
Test(files, swap_file_io_is_swap_both_ways)
{
	const struct h_dev *zram = h_zram_create(DEV_SIZE);
	const char *mnt = h_ext4_mount(zram)->path;
	char file[PATH_MAX], size[32];
	struct h_counters row = { 0 };
	struct file_sum swapper, all_swap, swapper_all;
	struct h_result r;
	struct h_diskio d;
	int64_t out0, in0, out1, in1, outer_out0, outer_in0, outer_out1, outer_in1;
	pid_t pid;

	if (!h_have_program("mkswap") || !h_have_program("swapon"))
		cr_skip_test("mkswap or swapon missing (util-linux)");
	if (swap_areas() != 0)
		cr_skip_test("a swap area is on already: its pages would not be this test's");
	snprintf(file, sizeof(file), "%s/swapfile", mnt);
	snprintf(size, sizeof(size), "%lld", (long long)SWAP_FILE_BYTES);
	run_ok(H_ARGS("fallocate", "-l", size, file));
	cr_assert_eq(chmod(file, 0600), 0);
	cr_assert_eq(h_run(H_ARGS("mkswap", file), NULL, NULL, 10000, &r), 0, "%s", r.err);
	h_result_free(&r);
	run_ok(H_ARGS("sync"));
	cr_assert_eq(h_run(H_ARGS("swapon", "-p", "32000", file), NULL, NULL, 10000, &r), 0,
		     "%s", r.err);
	h_result_free(&r);
	snprintf(swap_on, sizeof(swap_on), "%s", file);

	outer_out0 = vmstat("pswpout");
	outer_in0 = vmstat("pswpin");
	h_diskio_start(&d, H_ARGS("--json", "--files", "-D", zram->name, "0.5"), NULL);
	h_diskio_wait_attached(&d, H_ATTACH_TIMEOUT_MS);
	out0 = vmstat("pswpout");
	in0 = vmstat("pswpin");
	pid = spawn_swapper();
	h_expect_child_ok(pid, H_CHILD_TIMEOUT_MS);
	out1 = vmstat("pswpout");
	in1 = vmstat("pswpin");
	h_diskio_finish(&d, 2);
	outer_out1 = vmstat("pswpout");
	outer_in1 = vmstat("pswpin");

	swapper = sum_files_of(&d, 0, pid, zram->name, "[swap]");
	swapper_all = sum_files_of(&d, 0, pid, zram->name, NULL);
	all_swap = sum_files(&d, zram->name, "[swap]");
	h_json_sum_process(d.lines, d.nlines, pid, zram->name, NULL, &row);
	cr_log_info("swapper: [swap] written %" PRId64 ", read %" PRId64 "; all [swap] written %"
		    PRId64 ", read %" PRId64 "; pswpout %" PRId64 ", pswpin %" PRId64 " pages",
		    swapper.write_bytes, swapper.read_bytes, all_swap.write_bytes,
		    all_swap.read_bytes, out1 - out0, in1 - in0);
	cr_expect_gt(swapper.write_bytes, 0, "no swap-out on the swapper's [swap] line");
	cr_expect_gt(swapper.read_bytes, 0, "no swap-in on the swapper's [swap] line");
	cr_expect(swapper_all.write_bytes == swapper.write_bytes &&
		  swapper_all.read_bytes == swapper.read_bytes,
		  "the swapper's lines: %" PRId64 " B written, %" PRId64 " B read; [swap] only %"
		  PRId64 ", %" PRId64, swapper_all.write_bytes, swapper_all.read_bytes,
		  swapper.write_bytes, swapper.read_bytes);
	cr_expect(row.write_bytes == swapper.write_bytes && row.read_bytes == swapper.read_bytes,
		  "the swapper's row: %" PRId64 " B written, %" PRId64 " B read; [swap] %" PRId64
		  ", %" PRId64, row.write_bytes, row.read_bytes, swapper.write_bytes,
		  swapper.read_bytes);
	/* The kernel's counts while the swapper ran, and over diskio's whole
	 * run (another process may swap too, onto this file, the only swap
	 * area): every page of the first is on [swap] lines, and no more
	 * than the second. */
	cr_expect(all_swap.write_bytes >= (out1 - out0) * 4096 &&
		  all_swap.write_bytes <= (outer_out1 - outer_out0) * 4096,
		  "[swap] written %" PRId64 " B, pswpout %" PRId64 " pages while the swapper ran, %"
		  PRId64 " around diskio's run", all_swap.write_bytes, out1 - out0,
		  outer_out1 - outer_out0);
	cr_expect(all_swap.read_bytes >= (in1 - in0) * 4096 &&
		  all_swap.read_bytes <= (outer_in1 - outer_in0) * 4096,
		  "[swap] read %" PRId64 " B, pswpin %" PRId64 " pages while the swapper ran, %"
		  PRId64 " around diskio's run", all_swap.read_bytes, in1 - in0,
		  outer_in1 - outer_in0);
	h_diskio_free(&d);
}

/* ---- issue 47: named as they are dirtied ---- */

#define NAMED_FILES	100

/*
 * A process writes NAMED_FILES small files and closes them, without a sync;
 * the kernel drops its unused dentries (vm.drop_caches=2: the inodes stay,
 * dirty); then sync writes the files back.  Each file has a line under its
 * path, none is MAJ:MIN:INO: named at writeback only, no dentry was left to
 * name them by.
 */
Test(files, a_file_written_back_after_its_dentry_went_is_named)
{
	const struct h_dev *zram = h_zram_create(DEV_SIZE);
	const char *mnt = h_ext4_mount(zram)->path;
	char dir[PATH_MAX], script[PATH_MAX + 128];
	int named = 0, unnamed = 0;
	struct h_diskio d;

	snprintf(dir, sizeof(dir), "%s/names", mnt);
	cr_assert(!mkdir(dir, 0755));
	run_ok(H_ARGS("sync"));
	snprintf(script, sizeof(script),
		 "cd '%s' && i=0; while [ $i -lt %d ]; do printf '%%4096s' > n$i; i=$((i+1)); done",
		 dir, NAMED_FILES);
	h_diskio_start(&d, H_ARGS("--json", "--files", "-D", zram->name, "0.5"), NULL);
	h_diskio_wait_attached(&d, H_ATTACH_TIMEOUT_MS);
	run_ok(H_ARGS("sh", "-c", script));
	cr_assert_eq(h_write_file("/proc/sys/vm/drop_caches", "2"), 0);
	run_ok(H_ARGS("sync"));
	h_diskio_finish(&d, 2);

	for (size_t i = 0; i < d.nlines; i++) {
		struct h_jv root, files, e, v;
		size_t pos = 0;
		char path[PATH_MAX + 32];
		unsigned int major, minor;
		unsigned long long ino;
		char rest;

		if (!h_json_is_interval(d.lines[i]) || !h_json_parse(d.lines[i], &root))
			continue;
		cr_assert(h_json_get(root, "files", &files), "no files: %.300s", d.lines[i]);
		while (h_json_next_elem(files, &pos, &e)) {
			cr_assert(h_json_get(e, "path", &v) && h_json_str(v, path, sizeof(path)) >= 0);
			if (!strncmp(path, dir, strlen(dir)) && path[strlen(dir)] == '/')
				named++;
			else if (sscanf(path, "%u:%u:%llu%c", &major, &minor, &ino, &rest) == 3)
				unnamed++;
		}
	}
	if (named != NAMED_FILES || unnamed)
		h_diskio_dump(&d, "names");
	cr_expect_eq(unnamed, 0, "%d lines of files never named", unnamed);
	cr_expect_eq(named, NAMED_FILES, "%d lines of the %d files under %s", named, NAMED_FILES,
		     dir);
	h_diskio_free(&d);
}

/*
 * A name that cannot be made is counted: a file 40 directories deep (the
 * kernel walks up 32 names) has its bytes on a MAJ:MIN:INO line, and the
 * run's file_names_unmade is 1, that file.
 */
Test(files, a_name_too_deep_is_a_counted_loss)
{
	const struct h_dev *zram = h_zram_create(DEV_SIZE);
	const char *mnt = h_ext4_mount(zram)->path;
	char path[PATH_MAX], ddof[PATH_MAX + 8];
	int64_t unmade = 0, unnamed_bytes = 0;
	struct h_diskio d;
	size_t len;

	len = (size_t)snprintf(path, sizeof(path), "%s", mnt);
	for (int i = 0; i < 40; i++) {
		len += (size_t)snprintf(path + len, sizeof(path) - len, "/d");
		cr_assert(!mkdir(path, 0755), "%s: %s", path, strerror(errno));
	}
	run_ok(H_ARGS("sync"));
	snprintf(ddof, sizeof(ddof), "of=%s/deep", path);
	h_diskio_start(&d, H_ARGS("--json", "--files", "-D", zram->name, "0.5"), NULL);
	h_diskio_wait_attached(&d, H_ATTACH_TIMEOUT_MS);
	run_ok(H_ARGS("dd", "if=/dev/zero", ddof, "bs=64k", "count=4", "conv=fsync",
		      "status=none"));
	h_diskio_finish(&d, 2);
	for (size_t i = 0; i < d.nlines; i++) {
		struct h_jv root, files, e, v, lost, causes;
		size_t pos = 0;
		char got[PATH_MAX + 32], comm[64];
		unsigned int major, minor;
		unsigned long long ino;
		char rest;
		int64_t n;

		if (!h_json_is_interval(d.lines[i]) || !h_json_parse(d.lines[i], &root))
			continue;
		cr_assert(h_json_get(root, "lost", &lost) && h_json_get(lost, "by_cause", &causes) &&
			  h_json_get_int(causes, "file_names_unmade", &n), "%.300s", d.lines[i]);
		unmade += n;
		cr_assert(h_json_get(root, "files", &files));
		while (h_json_next_elem(files, &pos, &e)) {
			cr_assert(h_json_get(e, "path", &v) && h_json_str(v, got, sizeof(got)) >= 0);
			cr_assert(h_json_get(e, "comm", &v) && h_json_str(v, comm, sizeof(comm)) >= 0);
			if (!strcmp(comm, "dd") &&
			    sscanf(got, "%u:%u:%llu%c", &major, &minor, &ino, &rest) == 3 &&
			    h_json_get_int(e, "write_bytes", &n))
				unnamed_bytes += n;
		}
	}
	if (unmade != 1 || unnamed_bytes != 256 * 1024)
		h_diskio_dump(&d, "the deep file");
	cr_expect_eq(unmade, 1, "file_names_unmade %" PRId64 ", not 1", unmade);
	cr_expect_eq(unnamed_bytes, 256 * 1024, "dd's MAJ:MIN:INO lines: %" PRId64 " bytes",
		     unnamed_bytes);
	h_diskio_free(&d);
}

/* ---- issue 47: names from the mount namespace of the I/O ---- */

/*
 * A child "ns-holder" in a mount namespace of its own, where dev (ext4) is
 * mounted on dir, a mount diskio's namespace does not have: it forks
 * "ns-writer", which writes 1 MiB with O_DIRECT to dir/f and exits at
 * once, then sends one byte on sock and stays (holding the namespace, as a
 * container's init does) until sock is closed at the other end.
 */
static pid_t spawn_ns_holder(const char *dev, const char *dir, int sock)
{
	pid_t pid;

	fflush(NULL);
	pid = fork();
	cr_assert(pid >= 0);
	if (!pid) {
		char path[PATH_MAX + 8], byte = 1;
		pid_t writer;
		int status;

		h__child_prepare(sock);
		prctl(PR_SET_NAME, "ns-holder");
		if (unshare(CLONE_NEWNS) || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) ||
		    mount(dev, dir, "ext4", 0, NULL))
			_exit(H_IO_ERR_OPEN);
		snprintf(path, sizeof(path), "%s/f", dir);
		writer = fork();
		if (writer < 0)
			_exit(H_IO_ERR_ALLOC);
		if (!writer) {
			void *buf;
			int fd;

			prctl(PR_SET_NAME, "ns-writer");
			if (posix_memalign(&buf, 4096, MiB))
				_exit(H_IO_ERR_ALLOC);
			memset(buf, 0x6e, MiB);
			fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_DIRECT, 0644);
			if (fd < 0)
				_exit(H_IO_ERR_OPEN);
			if (write(fd, buf, MiB) != MiB)
				_exit(H_IO_ERR_WRITE);
			_exit(fsync(fd) ? H_IO_ERR_FSYNC : H_IO_OK);
		}
		if (waitpid(writer, &status, 0) != writer || !WIFEXITED(status))
			_exit(H_IO_ERR_WRITE);
		if (write(sock, &byte, 1) != 1)
			_exit(H_IO_ERR_WRITE);
		while (read(sock, &byte, 1) > 0)
			;
		_exit(WEXITSTATUS(status));
	}
	h_track_child(pid);
	return pid;
}

/*
 * A filesystem mounted only in a container's mount namespace: its file is
 * named as the container sees it, though its writer exited at once (the
 * namespace's other process gives its mount table).  Before, the file was
 * "MAJ:MIN:INO" and file_names_unmade 1 (diskio's own table has no mount
 * of it), or, had the host mounted the disk elsewhere once, that path.
 */
Test(files, a_file_of_another_mount_namespace_is_named_as_it_sees_it)
{
	const struct h_dev *zram = h_zram_create(DEV_SIZE);
	char dir[] = "/tmp/diskio-ns.XXXXXX", want[PATH_MAX];
	int64_t unmade = 0, n;
	struct file_sum s;
	struct h_diskio d;
	pid_t holder;
	int sv[2];
	char byte;

	run_ok(H_ARGS("mkfs.ext4", "-q", "-F", "-E", "lazy_itable_init=0,lazy_journal_init=0",
		      zram->path));
	cr_assert(mkdtemp(dir));
	snprintf(want, sizeof(want), "%s/f", dir);
	cr_assert(!socketpair(AF_UNIX, SOCK_STREAM, 0, sv));
	h_diskio_start(&d, H_ARGS("--json", "--files", "-D", zram->name, "0.5"), NULL);
	h_diskio_wait_attached(&d, H_ATTACH_TIMEOUT_MS);
	holder = spawn_ns_holder(zram->path, dir, sv[1]);
	close(sv[1]);
	cr_assert_eq(read(sv[0], &byte, 1), 1, "the writer in the namespace did not finish");
	h_diskio_wait_new_intervals(&d, 2, 10000);
	close(sv[0]);
	h_expect_child_ok(holder, H_CHILD_TIMEOUT_MS);
	h_diskio_finish(&d, 1);
	rmdir(dir);

	s = sum_files_of(&d, 0, 0, zram->name, want);
	for (size_t i = 0; i < d.nlines; i++) {
		struct h_jv root, lost, causes;

		if (h_json_is_interval(d.lines[i]) && h_json_parse(d.lines[i], &root) &&
		    h_json_get(root, "lost", &lost) && h_json_get(lost, "by_cause", &causes) &&
		    h_json_get_int(causes, "file_names_unmade", &n))
			unmade += n;
	}
	if (s.write_bytes != MiB)
		h_diskio_dump(&d, "the namespace's file");
	cr_assert_eq(s.write_bytes, MiB, "%s: %" PRId64 " bytes written on its lines", want,
		     s.write_bytes);
	cr_assert_str_eq(s.comm, "ns-writer");
	cr_assert_eq(unmade, 0, "file_names_unmade %" PRId64, unmade);
	h_diskio_free(&d);
}
