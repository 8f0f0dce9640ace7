// SPDX-License-Identifier: GPL-2.0
/*
 * Stacked devices counted once: a process writes N bytes with O_DIRECT to a
 * loop device whose backing file lies on ext4 on a zram disk.  The loop
 * device's worker does that I/O again on the zram disk (with --direct-io=on
 * itself, buffered through the page cache and the flusher otherwise), and a
 * loop device may lie on another loop device.  Whatever the layers:
 * - the writer's row says N on the loop device it addressed;
 * - the header's total is N plus the lower filesystems' own metadata (at
 *   most 1 MiB each), not N per layer;
 * - every device record equals its own /proc/diskstats delta;
 * - the rows that carry a loop device's I/O on the disk below say which
 *   loop device they served (the `for` column), and their bytes add up to
 *   at least N;
 * - the loop device's record names the disk below it (below=).
 * The Linux 6.1 and 6.12 guests check dm and md the same way
 * (tests/kernels/guest_checks.c).
 */
#include "harness.h"
#include <sys/sysmacros.h>

#define MiB		(1024 * 1024)
#define ZRAM_SIZE	(512ULL * MiB)
#define IMAGE_SIZE	(200ULL * MiB)
#define WRITTEN		(64 * MiB)

TestSuite(stacked, .init = h_setup, .fini = h_teardown, .timeout = 180);

/* The number after " KEY=" on a "# device" line; -1 if missing. */
static int64_t device_field(const char *line, const char *key)
{
	char pattern[64];
	const char *at;

	snprintf(pattern, sizeof(pattern), " %s=", key);
	at = strstr(line, pattern);
	return at ? strtoll(at + strlen(pattern), NULL, 10) : -1;
}

/* The text after " KEY=" up to the next space, into buf. */
static const char *device_text(const char *line, const char *key, char *buf, size_t size)
{
	char pattern[64];
	const char *at;

	snprintf(pattern, sizeof(pattern), " %s=", key);
	at = strstr(line, pattern);
	if (!at)
		return "(missing)";
	at += strlen(pattern);
	snprintf(buf, size, "%.*s", (int)strcspn(at, " "), at);
	return buf;
}

/* The last interval of a -a run: its "# time=" header's index, or -1. */
static ssize_t last_interval(const struct h_diskio *d)
{
	for (size_t i = d->nlines; i-- > 0;)
		if (!strncmp(d->lines[i], "# time=", 7))
			return (ssize_t)i;
	return -1;
}

struct layer {
	const struct h_dev *dev;
	struct h_diskstats before;
	const char *below;	/* its record's below=, "-" for none */
};

/*
 * diskio -a over the layers while a child writes WRITTEN bytes with
 * O_DIRECT to the top one (layers[0]), then the checks above.  extra_bytes:
 * what the lower filesystems may write of their own.
 */
static void write_through(struct layer *layers, size_t nlayers, int64_t extra_bytes)
{
	static const struct h_io ops[] = { { 'w', 0, MiB, WRITTEN / MiB } };
	const char *args[4 + 2 * 4 + 1] = { "-b", "-a" };
	int64_t header, served = 0, by_writer = -1;
	struct h_result r;
	struct h_diskio d;
	size_t nargs = 2;
	ssize_t at;
	pid_t pid;

	for (size_t i = 0; i < nlayers; i++) {
		args[nargs++] = "-D";
		args[nargs++] = layers[i].dev->name;
	}
	args[nargs++] = "0.5";
	args[nargs] = NULL;
	h_diskio_start(&d, args, NULL);
	h_diskio_wait_attached(&d, H_ATTACH_TIMEOUT_MS);
	for (size_t i = 0; i < nlayers; i++)
		cr_assert(h_diskstats_read(layers[i].dev->name, &layers[i].before));
	pid = h_spawn_io("stacked-writer", layers[0].dev->path, ops, 1, NULL);
	h_expect_child_ok(pid, 60000);
	h_run(H_ARGS("sync"), NULL, NULL, 60000, &r);	/* the buffered layers' writeback */
	h_result_free(&r);
	h_diskio_wait_new_intervals(&d, 2, 20000);
	h_diskio_finish(&d, 2);

	at = last_interval(&d);
	cr_assert(at >= 0, "no interval");
	header = device_field(d.lines[at], "write_bytes");
	for (size_t i = at + 1; i < d.nlines && strncmp(d.lines[i], "# summary", 9); i++) {
		const char *line = d.lines[i];
		struct h_batch_row row;

		if (line[0] == '#' || !h_batch_parse_row(line, &row))
			continue;
		if (row.pid == (uint32_t)pid) {
			cr_expect_str_eq(row.device, layers[0].dev->name, "%s", line);
			cr_expect_str_eq(row.serves, "-", "the writer's own row: %s", line);
			by_writer = row.c.write_bytes;
		}
		for (size_t k = 0; k + 1 < nlayers; k++)
			if (!strcmp(row.serves, layers[k].dev->name))
				cr_expect_str_eq(row.device, layers[k + 1].dev->name,
						 "a row serving %s on another disk: %s",
						 layers[k].dev->name, line);
		if (!strcmp(row.serves, layers[0].dev->name))
			served += row.c.write_bytes;
	}
	cr_expect_eq(by_writer, WRITTEN, "the writer's row: %" PRId64 " bytes", by_writer);
	cr_expect(header >= WRITTEN && header <= WRITTEN + extra_bytes,
		  "the header's write_bytes: %" PRId64 ", expected %d plus at most %" PRId64,
		  header, WRITTEN, extra_bytes);
	if (nlayers > 1)
		cr_expect_geq(served, WRITTEN, "rows serving %s wrote %" PRId64 " bytes below it",
			      layers[0].dev->name, served);
	for (size_t i = 0; i < nlayers; i++) {
		char prefix[80], below[128];
		struct h_diskstats after, delta;
		const char *line = NULL;

		cr_assert(h_diskstats_read(layers[i].dev->name, &after));
		delta = h_diskstats_delta(&layers[i].before, &after);
		snprintf(prefix, sizeof(prefix), "# device %s ", layers[i].dev->name);
		for (size_t k = at + 1; k < d.nlines && !line; k++)
			if (!strncmp(d.lines[k], prefix, strlen(prefix)))
				line = d.lines[k];
		cr_assert_not_null(line, "no record of %s", layers[i].dev->name);
		cr_expect_eq(device_field(line, "write_bytes"), (int64_t)delta.write_sectors * 512,
			     "%s: diskstats says %" PRIu64 " bytes: %s", layers[i].dev->name,
			     delta.write_sectors * 512, line);
		cr_expect_eq(device_field(line, "write_ios"), (int64_t)delta.write_ios,
			     "%s: diskstats says %" PRIu64 " writes: %s", layers[i].dev->name,
			     delta.write_ios, line);
		cr_expect_str_eq(device_text(line, "below", below, sizeof(below)), layers[i].below,
				 "%s", line);
	}
	h_diskio_free(&d);
}

/* A loop device over a file on ext4 on disk. */
static const struct h_dev *loop_on(const struct h_dev *disk, bool direct_io)
{
	const struct h_dev *mnt = h_ext4_mount(disk);
	char path[256];

	snprintf(path, sizeof(path), "%s/image", mnt->path);
	return h_loop_attach(path, IMAGE_SIZE, direct_io);
}

Test(stacked, a_direct_io_loop_on_zram_counts_once)
{
	const struct h_dev *zram = h_zram_create(ZRAM_SIZE);
	struct layer layers[] = { { .dev = loop_on(zram, true) }, { .dev = zram, .below = "-" } };

	layers[0].below = zram->name;
	write_through(layers, 2, MiB);
}

Test(stacked, a_buffered_loop_on_zram_counts_once)
{
	const struct h_dev *zram = h_zram_create(ZRAM_SIZE);
	struct layer layers[] = { { .dev = loop_on(zram, false) }, { .dev = zram, .below = "-" } };

	layers[0].below = zram->name;
	write_through(layers, 2, MiB);
}

Test(stacked, a_loop_on_a_loop_counts_once)
{
	const struct h_dev *zram = h_zram_create(ZRAM_SIZE);
	const struct h_dev *lower = loop_on(zram, false);
	struct layer layers[] = { { .dev = loop_on(lower, true) }, { .dev = lower },
				  { .dev = zram, .below = "-" } };

	layers[0].below = lower->name;
	layers[1].below = zram->name;
	write_through(layers, 3, 2 * MiB);
}

/* A file on tmpfs lies on no disk: nothing below, nothing served. */
Test(stacked, a_loop_on_tmpfs_has_nothing_below)
{
	struct layer layers[] = { { .dev = h_loop_create(IMAGE_SIZE), .below = "-" } };

	write_through(layers, 1, 0);
}

/* The same in JSON: the rows below say "for", the loop device's record
 * "below", and the summary's total counts the writer's bytes once. */
Test(stacked, json_says_for_and_below)
{
	static const struct h_io ops[] = { { 'w', 0, MiB, 16 } };
	const struct h_dev *zram = h_zram_create(ZRAM_SIZE);
	const struct h_dev *loop = loop_on(zram, true);
	int64_t served = 0, total = -1;
	struct h_jv devices, dev, below, elem, total_obj;
	struct h_diskio d;
	size_t pos = 0;
	bool named = false;

	h_diskio_start(&d, H_ARGS("--json", "-D", zram->name, "-D", loop->name, "0.5"), NULL);
	h_diskio_wait_attached(&d, H_ATTACH_TIMEOUT_MS);
	h_expect_child_ok(h_spawn_io("stacked-json", loop->path, ops, 1, NULL), 60000);
	h_diskio_finish(&d, 2);
	for (size_t i = 0; i < d.nlines; i++) {
		struct h_jv procs, proc, v;
		size_t k = 0;

		if (!h_json_processes(d.lines[i], &procs))
			continue;
		while (h_json_next_elem(procs, &k, &proc)) {
			int64_t bytes;

			cr_assert(h_json_get(proc, "for", &v), "no \"for\": %s", d.lines[i]);
			if (!h_json_str_eq(v, loop->name))
				continue;
			cr_assert(h_json_get(proc, "device", &v) && h_json_str_eq(v, zram->name),
				  "%s", d.lines[i]);
			cr_assert(h_json_get_int(proc, "write_bytes", &bytes));
			served += bytes;
		}
	}
	cr_expect_eq(served, 16 * MiB, "rows for %s wrote %" PRId64, loop->name, served);
	cr_assert(h_json_is_summary(d.lines[d.nlines - 1]));
	cr_assert(h_json_devices(d.lines[d.nlines - 1], &devices));
	cr_assert(h_json_get(devices, loop->name, &dev), "%s", d.lines[d.nlines - 1]);
	cr_assert(h_json_get(dev, "below", &below));
	while (h_json_next_elem(below, &pos, &elem))
		named |= h_json_str_eq(elem, zram->name);
	cr_expect(named, "%s's below does not name %s", loop->name, zram->name);
	cr_assert(h_json_parse(d.lines[d.nlines - 1], &elem));
	cr_assert(h_json_get(elem, "total", &total_obj));
	cr_assert(h_json_get_int(total_obj, "write_bytes", &total));
	cr_expect(total >= 16 * MiB && total <= 17 * MiB, "the summary's total: %" PRId64, total);
	h_diskio_free(&d);
}

/* --submitter: the writeback of ext4 on a loop device is the flusher's,
 * named as ps names it at that moment: kworker/...-flush-7:N. */
Test(stacked, the_flusher_is_named_by_its_work)
{
	const struct h_dev *loop = h_loop_create(IMAGE_SIZE);
	const struct h_dev *mnt = h_ext4_mount(loop);
	char path[256], want[64], rdev[32];
	struct h_result r;
	struct h_diskio d;
	struct stat st;
	bool found = false;

	cr_assert_eq(stat(loop->path, &st), 0);
	snprintf(rdev, sizeof(rdev), "%u:%u", major(st.st_rdev), minor(st.st_rdev));
	snprintf(want, sizeof(want), "-flush-%s", rdev);
	snprintf(path, sizeof(path), "of=%s/file", mnt->path);
	h_diskio_start(&d, H_ARGS("-b", "--submitter", "-D", loop->name, "0.5"), NULL);
	h_diskio_wait_attached(&d, H_ATTACH_TIMEOUT_MS);
	h_run(H_ARGS("dd", "if=/dev/zero", path, "bs=1M", "count=8", "status=none"), NULL, NULL,
	      60000, &r);
	cr_assert_eq(r.status, 0, "dd: %s", r.err);
	h_result_free(&r);
	h_run(H_ARGS("sync"), NULL, NULL, 60000, &r);
	h_result_free(&r);
	h_diskio_finish(&d, 2);
	for (size_t i = 0; i < d.nlines && !found; i++) {
		struct h_batch_row row;
		size_t n;

		if (d.lines[i][0] == '#' || !h_batch_parse_row(d.lines[i], &row))
			continue;
		n = strlen(row.comm);
		found = !strncmp(row.comm, "kworker/", 8) && n > strlen(want) &&
			!strcmp(row.comm + n - strlen(want), want) && row.c.write_bytes > 0;
	}
	if (!found)
		h_diskio_dump(&d, "no kworker/...-flush- row");
	cr_expect(found, "no row named kworker/...%s", want);
	h_diskio_free(&d);
}
