// SPDX-License-Identifier: GPL-2.0
/*
 * Issue 45 item 4: blk-throttle holds a bio over its group's limit, and its
 * worker (kworker/N:M-kthrotld) submits it later; diskio charges it to the
 * task that waits for it, as iotop does.  A reader that a cgroup v1 blkio
 * group holds to 100 reads/s reads a known number of blocks with O_DIRECT,
 * then exits; its row has every byte and I/O of the disk's reads, no other
 * row has any, and the disk's row is /proc/diskstats':
 *  - 4 threads of 4 KiB reads of a zram disk (submit_bio_wait());
 *  - 2 MiB reads of a zram disk (a block device's struct blkdev_dio);
 *  - 4 KiB reads of a file on ext4 (iomap's direct I/O), with --files: the
 *    file's line is the reader's;
 *  - 4 KiB and 2 MiB reads of a loop device (blk-mq: the request counted
 *    where it starts, a large read's parts split off it);
 *  - `-c COMM`, `--cgroup` of a group above the reader's and `diskio --
 *    COMMAND`, which took the reader's rows only and so lost the worker's
 *    share;
 *  - fio's io_uring reads, 8 at a time (the request names its issuer);
 *  - -T: each read's event names the reader.
 * The build before this charged 9 to 76 % of the bytes to the worker.
 */
#include "harness.h"


#define READER_IOPS	100
#define ZRAM_BYTES	(64ULL << 20)

/* The cgroup v2 groups a test made, innermost last; removed after the
 * children. */
static char v2_made[2][PATH_MAX + 128];

static void teardown(void)
{
	h_cleanup();	/* children first: a group with tasks cannot go */
	for (int i = 1; i >= 0; i--) {
		if (v2_made[i][0])
			rmdir(v2_made[i]);
		v2_made[i][0] = '\0';
	}
	h_teardown();
}

TestSuite(throttled, .init = h_setup, .fini = teardown, .timeout = 120);

struct reads {
	const struct h_dev *disk;	/* the disk diskio watches */
	const char *path;		/* what is read: NULL, the disk */
	uint64_t span;
	size_t block;
	int threads, reads;
	const char *options[3];		/* more of diskio's options, NULL-ended */
	const char *v2_group;		/* the reader's cgroup v2 group, or NULL */
	bool filtered;			/* options that drop other rows */
};

struct outcome {
	struct h_diskio d;
	pid_t reader;
	struct h_diskstats disk;	/* the disk's diskstats over the reads */
};

/* diskio --json on r's disk, the reads once it counts, diskio stopped two
 * intervals after the reader exits. */
static void run(const struct reads *r, struct outcome *o)
{
	const struct h_throttled_read spec = {
		.dev = r->disk, .path = r->path, .span = r->span, .block = r->block,
		.iops = READER_IOPS, .threads = r->threads, .reads = r->reads,
		.comm = "thr-reader", .v2_group = r->v2_group,
	};
	const char *args[12] = { "--json", "-D", r->disk->name };
	struct h_diskstats before, after;
	char group[PATH_MAX];
	int n = 3;

	for (int i = 0; r->options[i]; i++)
		args[n++] = r->options[i];
	args[n++] = "0.5";
	args[n] = NULL;
	h_diskio_start(&o->d, args, NULL);
	h_diskio_wait_attached(&o->d, 30000);
	cr_assert(h_diskstats_read(r->disk->name, &before));
	o->reader = h_throttled_reader(&spec, group, sizeof(group));
	h_expect_child_ok(o->reader, 60000);
	cr_assert(h_diskstats_read(r->disk->name, &after));
	o->disk = h_diskstats_delta(&before, &after);
	h_diskio_wait_new_intervals(&o->d, 2, 10000);
	cr_assert_eq(h_diskio_stop(&o->d, SIGINT, 10000), 0, "stderr: %s", o->d.err);
	h_expect_json_output(&o->d, 1);
}

/* What r's reader reads. */
static int64_t known_bytes(const struct reads *r)
{
	return (int64_t)r->threads * r->reads * (int64_t)r->block;
}

/* The reader's row has all of the disk's reads, r's exactly; with no filter
 * no other row has a read, and the disk's row is /proc/diskstats'. */
static void expect_all_the_readers(const struct reads *r, struct outcome *o)
{
	const char *name = r->disk->name;
	int64_t bytes = known_bytes(r);
	struct h_counters mine = { 0 }, all = { 0 }, dev = { 0 };
	char buf[256];

	cr_assert_gt(h_json_sum_process(o->d.lines, o->d.nlines, o->reader, name, "thr-reader",
					&mine), 0, "no row of the reader");
	h_json_sum_process(o->d.lines, o->d.nlines, 0, name, NULL, &all);
	cr_expect_eq(mine.read_bytes, bytes, "the reader's read bytes: %" PRId64 " of %" PRId64
		     " (%s)", mine.read_bytes, bytes, h_counters_str(&all, buf, sizeof(buf)));
	cr_expect_eq(mine.read_ios, (int64_t)o->disk.read_ios,
		     "the reader's read I/Os %" PRId64 ", /proc/diskstats %" PRIu64, mine.read_ios,
		     o->disk.read_ios);
	cr_expect_eq((uint64_t)bytes, o->disk.read_sectors * 512, "/proc/diskstats: %" PRIu64
		     " bytes read", o->disk.read_sectors * 512);
	if (r->filtered)
		return;
	cr_expect_eq(all.read_bytes, mine.read_bytes, "rows of others read %" PRId64 " bytes",
		     all.read_bytes - mine.read_bytes);
	cr_expect_eq(all.read_ios, mine.read_ios);
	cr_assert_gt(h_json_sum_device(o->d.lines, o->d.nlines, name, &dev), 0);
	cr_expect_eq(dev.read_bytes, bytes);
	cr_expect_eq(dev.read_ios, (int64_t)o->disk.read_ios);
}

/* r's reads with diskio watching, as expect_all_the_readers() wants them. */
static void check(const struct reads *r)
{
	struct outcome o = { 0 };

	run(r, &o);
	expect_all_the_readers(r, &o);
	h_diskio_free(&o.d);
}

/* The read bytes of the reader's --files lines of path on device. */
static int64_t file_read_bytes(const struct outcome *o, const char *device, const char *path)
{
	int64_t sum = 0;

	for (size_t i = 0; i < o->d.nlines; i++) {
		struct h_jv root, files, e, v;
		size_t pos = 0;
		int64_t pid, n;

		if (!h_json_is_interval(o->d.lines[i]) || !h_json_parse(o->d.lines[i], &root))
			continue;
		cr_assert(h_json_get(root, "files", &files), "no files: %s", o->d.lines[i]);
		while (h_json_next_elem(files, &pos, &e)) {
			if (!h_json_get_int(e, "pid", &pid) || pid != o->reader ||
			    !h_json_get(e, "device", &v) || !h_json_str_eq(v, device) ||
			    !h_json_get(e, "path", &v) || !h_json_str_eq(v, path))
				continue;
			cr_assert(h_json_get_int(e, "read_bytes", &n));
			sum += n;
		}
	}
	return sum;
}

Test(throttled, four_threads_small_reads_of_a_zram_disk_are_the_readers)
{
	struct reads r = {
		.disk = h_zram_create(ZRAM_BYTES), .span = 4 << 20, .block = 4096,
		.threads = 4, .reads = 50,
	};

	check(&r);
}

Test(throttled, large_reads_of_a_zram_disk_are_the_readers)
{
	struct reads r = {
		.disk = h_zram_create(ZRAM_BYTES), .span = 32 << 20, .block = 2 << 20,
		.threads = 2, .reads = 6,
	};

	check(&r);
}

Test(throttled, reads_of_a_loop_device_are_the_readers)
{
	struct reads r = {
		.disk = h_loop_create(64ULL << 20), .span = 4 << 20, .block = 4096,
		.threads = 2, .reads = 100,
	};

	check(&r);
}

Test(throttled, large_reads_of_a_loop_device_are_the_readers)
{
	struct reads r = {
		.disk = h_loop_create(64ULL << 20), .span = 32 << 20, .block = 2 << 20,
		.threads = 2, .reads = 6,
	};

	check(&r);
}

Test(throttled, reads_of_a_file_on_ext4_are_the_readers)
{
	const struct h_dev *zram = h_zram_create(ZRAM_BYTES);
	const struct h_dev *mnt = h_ext4_mount(zram);
	char path[PATH_MAX];
	struct reads r = {
		.disk = zram, .path = path, .span = 4 << 20, .block = 4096,
		.threads = 2, .reads = 100, .options = { "--files" },
	};
	struct outcome o = { 0 };
	static char chunk[1 << 20];
	int fd;

	/* written and synced before diskio: only the reads are counted */
	snprintf(path, sizeof(path), "%s/data", mnt->path);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	cr_assert_geq(fd, 0, "%s: %s", path, strerror(errno));
	memset(chunk, 0xa5, sizeof(chunk));
	for (int i = 0; i < 4; i++)
		cr_assert_eq(write(fd, chunk, sizeof(chunk)), (ssize_t)sizeof(chunk));
	cr_assert_eq(fsync(fd), 0);
	close(fd);
	run(&r, &o);
	expect_all_the_readers(&r, &o);
	cr_expect_eq(file_read_bytes(&o, zram->name, path), known_bytes(&r),
		     "the reader's line of %s", path);
	h_diskio_free(&o.d);
}

Test(throttled, a_comm_filter_keeps_the_throttled_share)
{
	struct reads r = {
		.disk = h_zram_create(ZRAM_BYTES), .span = 4 << 20, .block = 4096,
		.threads = 4, .reads = 50, .options = { "-c", "thr-reader" }, .filtered = true,
	};

	check(&r);
}

/* --cgroup takes the rows of a group and those below it: the worker is in
 * neither, the reader in a group below the one named. */
Test(throttled, a_cgroup_filter_keeps_the_throttled_share)
{
	char root[PATH_MAX - 128], rel[48];
	struct reads r = {
		.disk = h_zram_create(ZRAM_BYTES), .span = 4 << 20, .block = 4096,
		.threads = 2, .reads = 100, .v2_group = v2_made[1], .filtered = true,
	};

	if (!h_cgroup2_mount(root, sizeof(root)))
		cr_skip_test("no cgroup2 hierarchy mounted (/proc/mounts)");
	snprintf(rel, sizeof(rel), "/diskio-itest-thr-%d", (int)getpid());
	snprintf(v2_made[0], sizeof(v2_made[0]), "%s%s", root, rel);
	cr_assert(!mkdir(v2_made[0], 0755), "mkdir %s: %s", v2_made[0], strerror(errno));
	snprintf(v2_made[1], sizeof(v2_made[1]), "%s%s/inner", root, rel);
	cr_assert(!mkdir(v2_made[1], 0755), "mkdir %s: %s", v2_made[1], strerror(errno));
	r.options[0] = "--cgroup";
	r.options[1] = rel;
	check(&r);
}

/* `diskio --json -D disk -- sh -c` running command in a new throttled
 * group: comm's rows have its 200 reads of 4 KiB, every one.  `diskio --
 * COMMAND` counts the command and its children only: what the worker
 * submitted for it was dropped. */
static void expect_command_reads_whole(const struct h_dev *zram, const char *comm,
				       const char *command)
{
	char group[PATH_MAX], script[PATH_MAX + 512];
	struct h_counters got = { 0 };
	struct h_diskio d;

	h_throttle_group(zram, READER_IOPS, group, sizeof(group));
	snprintf(script, sizeof(script), "echo $$ > %s/cgroup.procs && exec %s", group, command);
	h_diskio_start(&d, H_ARGS("--json", "-D", zram->name, "--", "sh", "-c", script), NULL);
	cr_assert_eq(h_diskio_stop(&d, 0, 60000), 0, "stderr: %s", d.err);
	cr_assert_gt(h_json_sum_process(d.lines, d.nlines, 0, zram->name, comm, &got), 0,
		     "no row of %s", comm);
	cr_expect_eq(got.read_bytes, 200 * 4096, "%s's read bytes: %" PRId64, comm,
		     got.read_bytes);
	cr_expect_eq(got.read_ios, 200);
	h_diskio_free(&d);
}

Test(throttled, a_throttled_command_is_counted_whole)
{
	const struct h_dev *zram = h_zram_create(ZRAM_BYTES);
	char command[PATH_MAX + 128];

	snprintf(command, sizeof(command),
		 "dd if=%s of=/dev/null bs=4k count=200 iflag=direct status=none", zram->path);
	expect_command_reads_whole(zram, "dd", command);
}

/* io_uring's asynchronous reads, which no task waits on one by one: the
 * request names the task that issued it. */
Test(throttled, io_uring_reads_are_their_issuers)
{
	const struct h_dev *zram = h_zram_create(ZRAM_BYTES);
	char command[PATH_MAX + 256], disabled[16] = "";

	if (h_read_file("/proc/sys/kernel/io_uring_disabled", disabled, sizeof(disabled)) > 0 &&
	    disabled[0] == '2')
		cr_skip_test("io_uring is disabled (kernel.io_uring_disabled=2)");
	if (!h_have_program("fio"))
		cr_skip_test("no fio");
	snprintf(command, sizeof(command),
		 "fio --name=uring --filename=%s --rw=randread --bs=4k --direct=1 "
		 "--ioengine=io_uring --iodepth=8 --size=4M --io_size=800k --output=/dev/null",
		 zram->path);
	expect_command_reads_whole(zram, "fio", command);
}

/* -T: each I/O's event names the reader, none the worker. */
Test(throttled, trace_events_name_the_reader)
{
	const struct h_dev *zram = h_zram_create(ZRAM_BYTES);
	const struct h_throttled_read spec = {
		.dev = zram, .span = 4 << 20, .block = 4096, .iops = READER_IOPS, .threads = 4,
		.reads = 25, .comm = "thr-reader",
	};
	char group[PATH_MAX];
	int reader_events = 0, other_events = 0;
	struct h_diskio d;
	pid_t reader;

	h_diskio_start(&d, H_ARGS("-T", "-b", "-D", zram->name, "0.5"), NULL);
	h_diskio_wait_attached(&d, 30000);
	reader = h_throttled_reader(&spec, group, sizeof(group));
	h_expect_child_ok(reader, 60000);
	h_diskio_wait_new_intervals(&d, 2, 10000);
	cr_assert_eq(h_diskio_stop(&d, SIGINT, 10000), 0, "stderr: %s", d.err);
	/* time_s pid comm device op sector bytes latency_us */
	for (size_t i = 0; i < d.nlines; i++) {
		char comm[64], device[64], op[8];
		unsigned long pid, bytes;

		if (d.lines[i][0] == '#' ||
		    sscanf(d.lines[i], "%*s %lu %63s %63s %7s %*s %lu", &pid, comm, device, op,
			   &bytes) != 5 || strcmp(device, zram->name) || op[0] != 'R')
			continue;
		if ((pid_t)pid == reader && !strcmp(comm, "thr-reader") && bytes == 4096)
			reader_events++;
		else
			other_events++;
	}
	cr_expect_eq(reader_events, 100, "%d reads named the reader", reader_events);
	cr_expect_eq(other_events, 0, "%d reads named another task", other_events);
	h_diskio_free(&d);
}
