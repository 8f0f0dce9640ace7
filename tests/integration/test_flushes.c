// SPDX-License-Identifier: GPL-2.0
/*
 * Integration tests of the disks' flushes, run as root against the real
 * kernel: a device record's "flushes" equals the change of /proc/diskstats'
 * flush field (its 19th column) on a blk-mq disk (loop devices, with ext4
 * and raw) and on a bio-based one (zram), also under a process filter; the
 * process rows keep the flushes their process asked for.
 *
 * The known answers come from the block layer's flush machinery: a loop
 * device has a write cache and no FUA, so an ext4 fsync's journal commit
 * (a write with a pre-flush and FUA) is two flush requests, a pre-flush and
 * a post-flush, while its process asked for one; a raw loop device's
 * O_DSYNC write is one (the empty pre-flush of blkdev_fsync()); zram has no
 * write cache, so the kernel drops the flush before any request or count.
 */
#include "harness.h"

#define FS_SIZE		(64ULL << 20)
#define DEV_SIZE	(16ULL << 20)
#define INTERVAL	"0.5"
#define FSYNCS		3
#define QUIET_MS	600	/* a device whose diskstats did not move this long is idle */

static char mnt[256];	/* the ext4 mount point (the harness unmounts it) */

TestSuite(flushes, .init = h_setup, .fini = h_teardown, .timeout = 90);

/* Fresh ext4 on a new loop device, mounted on mnt. */
static const struct h_dev *mount_ext4(void)
{
	const struct h_dev *dev = h_loop_create(FS_SIZE);

	snprintf(mnt, sizeof(mnt), "%s", h_ext4_mount(dev)->path);
	return dev;
}

/* Wait until dev's /proc/diskstats line stays the same for QUIET_MS (a new
 * file system's first journal commits, udev's probes): what it reads then. */
static struct h_diskstats quiet_diskstats(const struct h_dev *dev)
{
	struct h_diskstats now, last;
	int64_t deadline = h_now_ms() + 20000, since;

	h_udev_settle();
	cr_assert(h_diskstats_read(dev->name, &last), "%s not in /proc/diskstats", dev->name);
	cr_assert_geq(last.nfields, 20, "no flush field in /proc/diskstats (Linux 5.5+)");
	since = h_now_ms();
	while (h_now_ms() - since < QUIET_MS) {
		cr_assert_lt(h_now_ms(), deadline, "%s never went quiet", dev->name);
		h_sleep_ms(100);
		cr_assert(h_diskstats_read(dev->name, &now));
		if (memcmp(&now, &last, sizeof(now))) {
			last = now;
			since = h_now_ms();
		}
	}
	return last;
}

/* `dd if=/dev/zero of=OF bs=4k count=10 ARG`. */
static void dd(const char *of, const char *arg)
{
	char of_arg[PATH_MAX + 3];
	struct h_result r;
	char why[64];

	snprintf(of_arg, sizeof(of_arg), "of=%s", of);
	h_run(H_ARGS("dd", "if=/dev/zero", of_arg, "bs=4k", "count=10", arg, "status=none"),
	      NULL, NULL, H_CHILD_TIMEOUT_MS, &r);
	cr_assert_eq(r.status, 0, "dd %s %s: %s %s", of_arg, arg,
		     h_status_str(r.status, why, sizeof(why)), r.err);
	h_result_free(&r);
}

/* What one run saw: the disk's record summed over the intervals, the
 * process rows' flushes on it, and /proc/diskstats' change. */
struct seen {
	struct h_counters device;
	int device_lines;
	struct h_counters rows;
	uint64_t diskstats_flushes;
};

/*
 * diskio --json ARGS... INTERVAL watches dev while work(arg) runs; the
 * device is quiet before diskio starts and after it stops, so that its
 * diskstats change and diskio's intervals cover the same I/O.
 */
static void watch(const struct h_dev *dev, const char *const args[],
		  const char *const env[], void (*work)(const char *), const char *arg,
		  struct seen *seen)
{
	const char *argv[16];
	struct h_diskstats before, after;
	struct h_diskio d;
	size_t n = 0;

	for (; args[n]; n++)
		argv[n] = args[n];
	argv[n++] = INTERVAL;
	argv[n] = NULL;
	cr_assert_lt(n, sizeof(argv) / sizeof(argv[0]));
	before = quiet_diskstats(dev);
	h_diskio_start(&d, argv, env);
	h_diskio_wait_attached(&d, H_ATTACH_TIMEOUT_MS);
	work(arg);
	after = quiet_diskstats(dev);
	h_diskio_finish(&d, 2);
	h_expect_json_output(&d, 2);
	memset(seen, 0, sizeof(*seen));
	seen->device_lines = h_json_sum_device(d.lines, d.nlines, dev->name, &seen->device);
	h_json_sum_process(d.lines, d.nlines, 0, dev->name, NULL, &seen->rows);
	seen->diskstats_flushes = h_diskstats_delta(&before, &after).flush_ios;
	cr_log_info("%s: diskstats flushes %" PRIu64 ", the device record's %" PRId64
		    " (in %d intervals), the rows' %" PRId64, dev->name, seen->diskstats_flushes,
		    seen->device.flushes, seen->device_lines, seen->rows.flushes);
	h_diskio_free(&d);
}

/* FSYNCS new files in dir, each written and fsynced by its own dd. */
static void fsync_files(const char *dir)
{
	char path[PATH_MAX];

	for (int i = 0; i < FSYNCS; i++) {
		snprintf(path, sizeof(path), "%s/f%d", dir, i);
		dd(path, "conv=fsync");
	}
}

/* FSYNCS dd runs of 10 O_DSYNC writes each to the device at path. */
static void dsync_writes(const char *path)
{
	for (int i = 0; i < FSYNCS; i++)
		dd(path, "oflag=dsync");
}

/*
 * The case: ext4 on a loop device, three `dd bs=4k count=10
 * conv=fsync`.  Each fsync commits the journal with a pre-flush and FUA:
 * two flush requests on a loop device, one flush asked for.  diskio used to
 * show the rows' sum on the disk (3 or 4 against diskstats' 6 or 8).
 */
static void ext4_fsyncs(const char *const env[])
{
	const struct h_dev *dev = mount_ext4();
	struct seen seen;

	watch(dev, H_ARGS("--json", "-D", dev->name), env, fsync_files, mnt, &seen);
	cr_expect_geq(seen.diskstats_flushes, 2 * FSYNCS, "diskstats counted %" PRIu64
		      " flushes for %d journal commits with a pre-flush and FUA",
		      seen.diskstats_flushes, FSYNCS);
	cr_expect_eq((uint64_t)seen.device.flushes, seen.diskstats_flushes,
		     "%s: the device record says %" PRId64 " flushes, /proc/diskstats %" PRIu64,
		     dev->name, seen.device.flushes, seen.diskstats_flushes);
	cr_expect_geq(seen.rows.flushes, FSYNCS, "the rows asked for %" PRId64 " flushes in %d "
		      "fsyncs", seen.rows.flushes, FSYNCS);
	cr_expect_lt(seen.rows.flushes, seen.device.flushes, "the rows (%" PRId64 ") count what "
		     "was asked for, the disk (%" PRId64 ") each pre- and post-flush",
		     seen.rows.flushes, seen.device.flushes);
}

Test(flushes, ext4_on_a_loop_device_counts_pre_and_post_flushes)
{
	ext4_fsyncs(NULL);
}

/* The same through the hooks of kernels before 6.5 (block_rq_issue and
 * block_rq_complete for the requests). */
Test(flushes, ext4_on_a_loop_device_with_the_pre_6_5_hooks)
{
	ext4_fsyncs(H_ARGS("DISKIO_FORCE_RQ_HOOKS=1"));
}

/* A raw loop device, `dd oflag=dsync`: each write is followed by an empty
 * pre-flush (blkdev_fsync()), one flush request. */
Test(flushes, a_raw_loop_device_counts_each_dsync_flush)
{
	const struct h_dev *dev = h_loop_create(DEV_SIZE);
	struct seen seen;

	watch(dev, H_ARGS("--json", "-D", dev->name), NULL, dsync_writes, dev->path, &seen);
	cr_expect_eq(seen.diskstats_flushes, 10 * FSYNCS, "diskstats counted %" PRIu64
		     " flushes for %d O_DSYNC writes", seen.diskstats_flushes, 10 * FSYNCS);
	cr_expect_eq((uint64_t)seen.device.flushes, seen.diskstats_flushes,
		     "%s: the device record says %" PRId64 " flushes, /proc/diskstats %" PRIu64,
		     dev->name, seen.device.flushes, seen.diskstats_flushes);
	cr_expect_eq(seen.rows.flushes, 10 * FSYNCS, "dd's rows asked for %" PRId64 " flushes",
		     seen.rows.flushes);
}

/* FSYNCS dd runs of 10 O_DIRECT|O_DSYNC writes each to the device at path. */
static void direct_dsync_writes(const char *path)
{
	for (int i = 0; i < FSYNCS; i++)
		dd(path, "oflag=direct,dsync");
}

/* O_DIRECT|O_DSYNC to a raw loop device: each write asks for FUA, which a
 * loop device completes with a post-flush, then for an empty pre-flush
 * (blkdev_fsync()): two flush requests on the disk, one flush asked for
 * (a FUA write is not a flush of its process). */
Test(flushes, a_raw_loop_device_counts_the_post_flush_of_fua_writes)
{
	const struct h_dev *dev = h_loop_create(DEV_SIZE);
	struct seen seen;

	watch(dev, H_ARGS("--json", "-D", dev->name), NULL, direct_dsync_writes, dev->path,
	      &seen);
	cr_expect_eq((uint64_t)seen.device.flushes, seen.diskstats_flushes,
		     "%s: the device record says %" PRId64 " flushes, /proc/diskstats %" PRIu64,
		     dev->name, seen.device.flushes, seen.diskstats_flushes);
	cr_expect_eq(seen.diskstats_flushes, 2 * 10 * FSYNCS, "diskstats counted %" PRIu64
		     " flushes for %d FUA writes and their fsyncs", seen.diskstats_flushes,
		     10 * FSYNCS);
	cr_expect_eq(seen.rows.flushes, 10 * FSYNCS, "dd's rows asked for %" PRId64 " flushes",
		     seen.rows.flushes);
}

/* zram has no write cache: the kernel drops every flush before it reaches
 * the disk; diskstats counts none, and so does diskio, on the disk and on
 * the rows. */
Test(flushes, zram_counts_none)
{
	const struct h_dev *dev = h_zram_create(DEV_SIZE);
	struct seen seen;

	watch(dev, H_ARGS("--json", "-D", dev->name), NULL, dsync_writes, dev->path, &seen);
	cr_expect_eq(seen.diskstats_flushes, 0, "diskstats counted %" PRIu64 " flushes on zram",
		     seen.diskstats_flushes);
	cr_expect_eq(seen.device.flushes, 0, "%s: the device record says %" PRId64 " flushes",
		     dev->name, seen.device.flushes);
	cr_expect_eq(seen.rows.flushes, 0, "the rows say %" PRId64 " flushes", seen.rows.flushes);
	cr_expect_eq(seen.device.write_bytes, 3 * 10 * 4096, "the writes themselves: %" PRId64
		     " bytes", seen.device.write_bytes);
}

/* Under -p (a process that does no I/O: this test) no row is shown, but
 * the disk's record still has all its flushes, as diskstats counts them. */
Test(flushes, a_process_filter_leaves_the_disks_flushes_whole)
{
	const struct h_dev *dev = h_loop_create(DEV_SIZE);
	char pid[16];
	struct seen seen;

	snprintf(pid, sizeof(pid), "%d", (int)getpid());
	watch(dev, H_ARGS("--json", "-p", pid), NULL, dsync_writes, dev->path, &seen);
	cr_expect_eq(seen.diskstats_flushes, 10 * FSYNCS, "diskstats counted %" PRIu64
		     " flushes", seen.diskstats_flushes);
	cr_expect_eq((uint64_t)seen.device.flushes, seen.diskstats_flushes,
		     "%s under -p: the device record says %" PRId64 " flushes, /proc/diskstats %"
		     PRIu64, dev->name, seen.device.flushes, seen.diskstats_flushes);
	cr_expect_eq(seen.device.write_bytes, 0, "under -p the disk's bytes are the selected "
		     "rows': %" PRId64, seen.device.write_bytes);
	cr_expect_eq(seen.rows.flushes, 0, "a row of another process: %" PRId64 " flushes",
		     seen.rows.flushes);
}

/* -D still applies: a disk not selected has no record, flushes or not. */
Test(flushes, a_device_filter_applies_to_flushes)
{
	const struct h_dev *dev = h_loop_create(DEV_SIZE);
	const struct h_dev *other = h_zram_create(DEV_SIZE);
	struct seen seen;

	watch(dev, H_ARGS("--json", "-D", other->name), NULL, dsync_writes, dev->path, &seen);
	cr_expect_eq(seen.diskstats_flushes, 10 * FSYNCS, "diskstats counted %" PRIu64
		     " flushes", seen.diskstats_flushes);
	cr_expect_eq(seen.device_lines, 0, "%s has a record in %d intervals under -D %s",
		     dev->name, seen.device_lines, other->name);
}
