// SPDX-License-Identifier: GPL-2.0
/*
 * Integration tests of --prom, --quiet, SIGHUP and make install, as root
 * with the real binary and Debian's packages (scripts/deps.sh test):
 *
 *  1. node_exporter (textfile collector, 127.0.0.1 on a free port) serves
 *     diskio's file: known O_DIRECT I/O on zram shows with exactly its bytes
 *     for its comm and disk, node_textfile_scrape_error is 0, `promtool
 *     check metrics` passes, --quiet printed nothing;
 *  2. counters never decrease over 20 scrapes while processes come and go,
 *     and 1000 reads of the file while diskio rewrites it every 0.1 s never
 *     see it half-written;
 *  3. 500 comms doing I/O make at most --prom-rows + 1 series per disk and
 *     metric, their bytes all counted;
 *  4. a missing or read-only directory: exit 1, one line, before the BPF
 *     object is opened; a disk that fills later: one warning, collection
 *     goes on, the old file stays whole, and is written again once there is
 *     room;
 *  5. SIGHUP with --prom rewrites the files and diskio goes on; without, it
 *     ends diskio with its summary, exit 0;
 *  6. make install DESTDIR: man -l renders, the completion completes options
 *     and disks, systemd-analyze verifies the unit (skipped with a message
 *     where it cannot), make uninstall removes exactly what was installed.
 */
#include "abi.h"
#include "harness.h"

#include <libgen.h>
#include <sys/mount.h>

#define BS		4096U
#define MiB		(1024U * 1024U)
#define DEV_SIZE	(64ULL * MiB)
#define SCRAPE_TIMEOUT_MS	20000
#define FILE_TIMEOUT_MS		H_ATTACH_TIMEOUT_MS

TestSuite(prom, .init = h_setup, .fini = h_teardown, .timeout = 180);

static char tmpdir[64];
static char mounted[PATH_MAX];	/* a tmpfs a test mounted, "" if none */
static pid_t exporter;

static void cleanup(void)
{
	if (exporter > 0) {
		h_kill_child(exporter);
		h_untrack_child(exporter);
		exporter = 0;
	}
	if (mounted[0]) {
		umount2(mounted, MNT_DETACH);
		mounted[0] = '\0';
	}
	if (tmpdir[0])
		h_remove_tree(tmpdir);
	tmpdir[0] = '\0';
}

static void make_tmpdir(void)
{
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/diskio-prom-XXXXXX");
	cr_assert_not_null(mkdtemp(tmpdir), "mkdtemp: %s", strerror(errno));
	chmod(tmpdir, 0755);	/* node_exporter's user reads it */
	atexit(cleanup);
}

static void path_in(char *buf, size_t size, const char *name)
{
	snprintf(buf, size, "%s/%s", tmpdir, name);
}

/* ---- node_exporter and the file ---- */

/* Wait for path to exist: diskio writes it first once attached. */
static void wait_for_file(const char *path, struct h_diskio *d)
{
	int64_t deadline = h_now_ms() + FILE_TIMEOUT_MS;

	while (access(path, F_OK)) {
		h_diskio_pump(d, 50);
		if (d->exited || h_now_ms() > deadline) {
			h_diskio_dump(d, "no --prom file");
			cr_assert_fail("%s was never written", path);
		}
	}
}

static const struct h_io rw_ops[] = {
	{ 'w', 0, BS, 256 },
	{ 'r', 0, BS, 128 },
};

/* 1. node_exporter serves the exact bytes; the file passes promtool. */
Test(prom, node_exporter_serves_the_exact_bytes)
{
	const struct h_dev *zram = h_zram_create(DEV_SIZE);
	char file[PATH_MAX], dev_label[64];
	const char *const mine[] = { dev_label, "comm=\"dio-prom\"", NULL };
	const char *const disk[] = { dev_label, NULL };
	struct h_diskio d;
	struct h_result r;
	int port, n = 0;
	int64_t deadline;
	char *body = NULL;

	make_tmpdir();
	path_in(file, sizeof(file), "diskio.prom");
	snprintf(dev_label, sizeof(dev_label), "device=\"%s\"", zram->name);
	exporter = h_start_node_exporter(tmpdir, &port);
	h_diskio_start(&d, H_ARGS("--quiet", "--prom", file, "-D", zram->name, "0.2"), NULL);
	wait_for_file(file, &d);
	h_expect_child_ok(h_spawn_io("dio-prom", zram->path, rw_ops, 2, NULL), H_CHILD_TIMEOUT_MS);

	deadline = h_now_ms() + SCRAPE_TIMEOUT_MS;
	for (;;) {
		free(body);
		body = h_scrape(port);
		cr_assert_not_null(body, "node_exporter stopped answering");
		if (h_prom_sum(body, "diskio_read_bytes_total", mine, &n) == 524288.0 || h_now_ms() > deadline)
			break;
		h_sleep_ms(200);
	}
	cr_assert_eq(h_prom_sum(body, "diskio_write_bytes_total", mine, &n), 1048576.0,
		     "write bytes of dio-prom on %s:\n%s", zram->name, body);
	cr_assert_eq(n, 1, "one series of dio-prom on %s", zram->name);
	cr_assert_eq(h_prom_sum(body, "diskio_read_bytes_total", mine, &n), 524288.0);
	cr_assert_eq(h_prom_sum(body, "diskio_discard_bytes_total", mine, &n), 0.0);
	cr_assert_eq(h_prom_sum(body, "diskio_ios_total",
				 (const char *const[]){ dev_label, "comm=\"dio-prom\"", "op=\"write\"",
							NULL }, &n), 256.0);
	cr_assert_eq(h_prom_sum(body, "diskio_ios_total",
				 (const char *const[]){ dev_label, "comm=\"dio-prom\"", "op=\"read\"",
							NULL }, &n), 128.0);
	cr_assert_eq(h_prom_sum(body, "diskio_device_write_bytes_total", disk, &n), 1048576.0);
	cr_assert_eq(h_prom_sum(body, "diskio_device_read_bytes_total", disk, &n), 524288.0);
	cr_assert_eq(h_prom_sum(body, "node_textfile_scrape_error", NULL, &n), 0.0, "%s", body);
	cr_assert_eq(n, 1, "node_textfile_scrape_error missing:\n%s", body);
	cr_assert_eq(h_prom_sum(body, "diskio_up", NULL, &n), 1.0);
	cr_assert_eq(h_prom_sum(body, "diskio_lost_events_total", NULL, &n), 0.0);
	cr_assert_eq(n, LOST_NR_CAUSES, "every cause of loss");
	free(body);

	{
		char cmd[PATH_MAX + 64];

		snprintf(cmd, sizeof(cmd), "promtool check metrics < %s", file);
		h_run(H_ARGS("sh", "-c", cmd), NULL, NULL, 20000, &r);
		cr_assert(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0,
			  "promtool check metrics: %s%s", r.out, r.err);
		h_result_free(&r);
	}
	cr_assert_eq(h_diskio_stop(&d, SIGTERM, H_EXIT_TIMEOUT_MS), 0, "exit: %s", d.err);
	cr_assert_eq(d.nlines, 0, "--quiet printed on stdout: %s", d.nlines ? d.lines[0] : "");
	cr_assert_str_empty(d.err, "stderr: %s", d.err);
	h_diskio_free(&d);

	/* Stopped: the file says so, and keeps the totals. */
	body = h_scrape(port);
	cr_assert_not_null(body, "node_exporter stopped answering");
	cr_assert_eq(h_prom_sum(body, "diskio_up", NULL, &n), 0.0, "%s", body);
	cr_assert_eq(n, 1);
	cr_assert_eq(h_prom_sum(body, "diskio_read_bytes_total", mine, &n), 524288.0);
	cr_assert_eq(h_prom_sum(body, "node_textfile_scrape_error", NULL, &n), 0.0);
	free(body);
}

/* ---- 2. never backwards, never half-written ---- */

/* Every sample of text whose name starts with "diskio_" into names/values. */
static size_t diskio_samples(const char *text, char ***names, double **values)
{
	size_t n = 0;

	*names = NULL;
	*values = NULL;
	for (const char *p = text; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL) {
		const char *end = strchr(p, '\n') ? strchr(p, '\n') : p + strlen(p);
		const char *space;

		if (strncmp(p, "diskio_", 7))
			continue;
		space = memrchr(p, ' ', end - p);
		cr_assert_not_null(space);
		*names = realloc(*names, (n + 1) * sizeof(**names));
		*values = realloc(*values, (n + 1) * sizeof(**values));
		cr_assert(*names && *values);
		(*names)[n] = strndup(p, space - p);
		(*values)[n] = strtod(space + 1, NULL);
		n++;
	}
	return n;
}

static void free_samples(char **names, double *values, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
	free(values);
}

/* A whole file: every line HELP, TYPE or "name{...} value", and last of all
 * "diskio_up 1" (or 0, written as diskio exits). */
static bool file_is_whole(const char *text, char *why, size_t size)
{
	size_t len = strlen(text);
	const char *last = NULL;

	if (!len || text[len - 1] != '\n') {
		snprintf(why, size, "does not end with a newline (%zu bytes)", len);
		return false;
	}
	for (const char *p = text; *p; p = strchr(p, '\n') + 1) {
		const char *end = strchr(p, '\n'), *space = memrchr(p, ' ', end - p);

		last = p;
		if (!strncmp(p, "# HELP diskio_", 14) || !strncmp(p, "# TYPE diskio_", 14))
			continue;
		if (strncmp(p, "diskio_", 7) || !space || space + 1 == end ||
		    strspn(space + 1, "0123456789.") != (size_t)(end - space - 1)) {
			snprintf(why, size, "bad line: %.*s", (int)(end - p), p);
			return false;
		}
	}
	if (strcmp(last, "diskio_up 1\n") && strcmp(last, "diskio_up 0\n")) {
		snprintf(why, size, "last line: %s", last);
		return false;
	}
	return true;
}

Test(prom, counters_never_decrease_and_the_file_is_never_half_written)
{
	const struct h_dev *zram = h_zram_create(DEV_SIZE);
	static const struct h_io small[] = { { 'w', 0, BS, 8 }, { 'r', 0, BS, 4 } };
	char file[PATH_MAX], comm[16], why[512];
	char **before_names = NULL;
	double *before_values = NULL;
	size_t nbefore = 0, reads = 0, changes = 0;
	struct h_diskio d;
	ino_t previous = 0;
	int port;

	make_tmpdir();
	path_in(file, sizeof(file), "diskio.prom");
	exporter = h_start_node_exporter(tmpdir, &port);
	h_diskio_start(&d, H_ARGS("--quiet", "--prom", file, "-D", zram->name, "0.1"), NULL);
	wait_for_file(file, &d);

	/* 20 scrapes, a new process doing I/O before each (the last ones exit
	 * and are forgotten by the tally, never by the file). */
	for (int scrape_no = 0; scrape_no < 20; scrape_no++) {
		char **names;
		double *values;
		size_t n;
		char *body;

		snprintf(comm, sizeof(comm), "dio-come%d", scrape_no % 7);
		h_expect_child_ok(h_spawn_io(comm, zram->path, small, 2, NULL), H_CHILD_TIMEOUT_MS);
		h_sleep_ms(150);
		body = h_scrape(port);
		cr_assert_not_null(body);
		n = diskio_samples(body, &names, &values);
		cr_assert_gt(n, 0, "no diskio series in scrape %d", scrape_no);
		for (size_t i = 0; i < nbefore; i++)
			for (size_t j = 0; j < n; j++)
				if (!strcmp(before_names[i], names[j]) &&	/* not the gauges */
				    !strstr(names[j], "diskio_crash_interval_seconds") &&
				    !strstr(names[j], "diskio_latency_sample_ratio"))
					cr_assert_geq(values[j], before_values[i],
						      "scrape %d: %s went from %.0f to %.0f", scrape_no,
						      names[j], before_values[i], values[j]);
		free_samples(before_names, before_values, nbefore);
		before_names = names;
		before_values = values;
		nbefore = n;
		free(body);
	}
	free_samples(before_names, before_values, nbefore);

	/* 1000 reads while diskio rewrites the file every 0.1 s, a writer busy. */
	{
		static const struct h_io busy[] = { { 'w', 0, BS, 2000 } };
		pid_t writer = h_spawn_io("dio-busy", zram->path, busy, 1, NULL);

		for (reads = 0; reads < 1000; reads++) {
			char *text = h_read_text(file);
			struct stat st;

			cr_assert_not_null(text, "read %zu: %s: %s", reads, file, strerror(errno));
			cr_assert(file_is_whole(text, why, sizeof(why)), "read %zu: %s", reads, why);
			free(text);
			/* Each rewrite is a new file renamed over the old one. */
			if (!stat(file, &st)) {
				changes += previous && st.st_ino != previous;
				previous = st.st_ino;
			}
			h_sleep_ms(2);
		}
		h_expect_child_ok(writer, H_CHILD_TIMEOUT_MS);
	}
	cr_assert_gt(changes, 3, "the file was replaced only %zu times in 1000 reads", changes);
	cr_assert_eq(h_diskio_stop(&d, SIGTERM, H_EXIT_TIMEOUT_MS), 0, "exit: %s", d.err);
	h_diskio_free(&d);
}

/* ---- 3. cardinality ---- */

Test(prom, five_hundred_comms_stay_within_the_cap)
{
	const struct h_dev *zram = h_zram_create(DEV_SIZE);
	static const struct h_io one_read[] = { { 'r', 0, BS, 1 } };
	static const char *const metrics[] = {
		"diskio_read_bytes_total", "diskio_write_bytes_total", "diskio_discard_bytes_total",
		"diskio_flushes_total",
	};
	char file[PATH_MAX], dev_label[64];
	const char *const disk[] = { dev_label, NULL };
	struct h_diskio d;
	char *text = NULL;
	int n;

	make_tmpdir();
	path_in(file, sizeof(file), "diskio.prom");
	snprintf(dev_label, sizeof(dev_label), "device=\"%s\"", zram->name);
	h_diskio_start(&d, H_ARGS("-q", "--prom", file, "--prom-rows", "20", "-D", zram->name,
				  "0.2"), NULL);
	wait_for_file(file, &d);
	for (int wave = 0; wave < 10; wave++) {
		pid_t pids[50];

		for (int i = 0; i < 50; i++) {
			char comm[16];

			snprintf(comm, sizeof(comm), "dio-card%03d", wave * 50 + i);
			pids[i] = h_spawn_io(comm, zram->path, one_read, 1, NULL);
		}
		for (int i = 0; i < 50; i++)
			h_expect_child_ok(pids[i], H_CHILD_TIMEOUT_MS);
	}
	for (int64_t deadline = h_now_ms() + 10000; h_now_ms() < deadline; h_sleep_ms(200)) {
		free(text);
		text = h_read_text(file);
		cr_assert_not_null(text);
		if (h_prom_sum(text, "diskio_read_bytes_total", disk, &n) == 500.0 * BS)
			break;
	}
	cr_assert_eq(h_prom_sum(text, "diskio_read_bytes_total", disk, &n), 500.0 * BS,
		     "every byte of the 500 is counted");
	for (size_t m = 0; m < sizeof(metrics) / sizeof(metrics[0]); m++) {
		h_prom_sum(text, metrics[m], disk, &n);
		cr_assert_leq(n, 21, "%s: %d series on %s", metrics[m], n, zram->name);
		cr_assert_geq(n, 20, "%s: %d series on %s", metrics[m], n, zram->name);
	}
	h_prom_sum(text, "diskio_ios_total",
		    (const char *const[]){ dev_label, "op=\"read\"", NULL }, &n);
	cr_assert_leq(n, 21, "diskio_ios_total op=read: %d series", n);
	cr_assert_gt(h_prom_sum(text, "diskio_read_bytes_total",
				 (const char *const[]){ dev_label, "comm=\"other\"", NULL }, &n), 0.0);
	free(text);
	cr_assert_eq(h_diskio_stop(&d, SIGTERM, H_EXIT_TIMEOUT_MS), 0, "exit: %s", d.err);
	h_diskio_free(&d);
}

/* ---- 4. bad input ---- */

/* diskio -v with args: exit 1 within a few seconds, one "diskio: " line on
 * stderr that names what, nothing from libbpf (the object was never opened),
 * nothing on stdout. */
static void expect_refusal(const char *const args[], const char *what)
{
	const char *argv[16] = { h_diskio_path(), "-v" };
	struct h_result r;
	size_t n = 2;
	int64_t start = h_now_ms();

	for (size_t i = 0; args[i]; i++)
		argv[n++] = args[i];
	argv[n] = NULL;
	h_runx(h_diskio_path(), argv, NULL, NULL, 10000, &r);
	cr_assert(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 1, "exit status %#x: %s",
		  r.status, r.err);
	cr_assert_lt(h_now_ms() - start, 5000, "took %" PRId64 " ms", h_now_ms() - start);
	cr_assert(!strncmp(r.err, "diskio: ", 8), "stderr: %s", r.err);
	cr_assert_eq(strchr(r.err, '\n') - r.err + 1, (long)strlen(r.err), "one line: %s", r.err);
	cr_assert(strstr(r.err, what), "stderr does not say '%s': %s", what, r.err);
	cr_assert_str_empty(r.out);
	h_result_free(&r);
}

Test(prom, missing_or_read_only_directory_refused_before_loading)
{
	char file[PATH_MAX + 32], ro[PATH_MAX];

	make_tmpdir();
	path_in(file, sizeof(file), "missing/diskio.prom");
	expect_refusal(H_ARGS("--prom", file, "1", "1"), "No such file or directory");
	path_in(ro, sizeof(ro), "ro");
	cr_assert_eq(mkdir(ro, 0755), 0);
	/* Root writes through permissions: only a read-only mount stops it. */
	cr_assert_eq(mount("none", ro, "tmpfs", MS_RDONLY, "size=1m"), 0, "mount: %s",
		     strerror(errno));
	snprintf(mounted, sizeof(mounted), "%s", ro);
	snprintf(file, sizeof(file), "%s/diskio.prom", ro);
	expect_refusal(H_ARGS("--prom", file, "1", "1"), "Read-only file system");
	expect_refusal(H_ARGS("--prom", tmpdir, "1", "1"), "Is a directory");
	umount2(mounted, MNT_DETACH);
	mounted[0] = '\0';
}

static size_t count_substr(const char *text, const char *what)
{
	size_t n = 0;

	for (const char *p = strstr(text, what); p; p = strstr(p + 1, what))
		n++;
	return n;
}

/* Fill the file system at dir: a file written until ENOSPC. */
static void fill(const char *path)
{
	static char block[4096];
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);

	cr_assert_geq(fd, 0, "%s: %s", path, strerror(errno));
	while (write(fd, block, sizeof(block)) > 0)
		;
	while (write(fd, block, 1) > 0)
		;
	close(fd);
}

Test(prom, a_full_disk_warns_once_keeps_the_old_file_and_collection_goes_on)
{
	const struct h_dev *zram = h_zram_create(DEV_SIZE);
	static const struct h_io ops[] = { { 'w', 0, BS, 16 } };
	char dir[PATH_MAX], file[PATH_MAX + 16], filler[PATH_MAX + 16], why[512];
	char *kept, *later;
	struct h_diskio d;
	size_t intervals;

	make_tmpdir();
	path_in(dir, sizeof(dir), "small");
	cr_assert_eq(mkdir(dir, 0755), 0);
	cr_assert_eq(mount("none", dir, "tmpfs", 0, "size=256k"), 0, "mount: %s", strerror(errno));
	snprintf(mounted, sizeof(mounted), "%s", dir);
	snprintf(file, sizeof(file), "%s/diskio.prom", dir);
	snprintf(filler, sizeof(filler), "%s/filler", dir);
	h_diskio_start(&d, H_ARGS("--prom", file, "-D", zram->name, "0.2"), NULL);
	h_diskio_wait_attached(&d, H_ATTACH_TIMEOUT_MS);
	wait_for_file(file, &d);

	fill(filler);
	h_diskio_wait_new_intervals(&d, 2, 5000);	/* no write has succeeded since */
	kept = h_read_text(file);
	cr_assert_not_null(kept);
	cr_assert(file_is_whole(kept, why, sizeof(why)), "the file after the disk filled: %s", why);
	h_expect_child_ok(h_spawn_io("dio-full", zram->path, ops, 1, NULL), H_CHILD_TIMEOUT_MS);
	intervals = d.nlines;
	h_diskio_wait_new_intervals(&d, 5, 5000);
	cr_assert_gt(d.nlines, intervals, "collection stopped");
	later = h_read_text(file);
	cr_assert_str_eq(later, kept, "the file changed while the disk was full");
	free(later);
	cr_assert_eq(count_substr(d.err, "diskio: warning: cannot write"), 1, "stderr: %s", d.err);
	cr_assert(strstr(d.err, "No space left on device"), "stderr: %s", d.err);
	{
		bool seen = false;

		for (size_t i = 0; i < d.nlines; i++)
			seen |= strstr(d.lines[i], " dio-full ") != NULL;
		cr_assert(seen, "dio-full's I/O was not shown while the disk was full");
	}

	/* Room again: the file is written again, with the I/O of meanwhile. */
	unlink(filler);
	h_diskio_wait_new_intervals(&d, 3, 5000);
	later = h_read_text(file);
	cr_assert(strstr(later, "comm=\"dio-full\""), "not written again: %s", later);
	cr_assert(strstr(d.err, "is written again"), "stderr: %s", d.err);
	cr_assert_eq(count_substr(d.err, "warning"), 1, "stderr: %s", d.err);
	free(later);
	free(kept);
	cr_assert_eq(h_diskio_stop(&d, SIGTERM, H_EXIT_TIMEOUT_MS), 0, "exit: %s", d.err);
	h_diskio_free(&d);
	umount2(mounted, MNT_DETACH);
	mounted[0] = '\0';
}

/* ---- 5. SIGHUP ---- */

static bool wait_for_path(const char *path, int timeout_ms)
{
	for (int64_t deadline = h_now_ms() + timeout_ms; h_now_ms() < deadline; h_sleep_ms(20))
		if (!access(path, F_OK))
			return true;
	return false;
}

Test(prom, sighup_with_prom_rewrites_the_files_and_goes_on)
{
	char file[PATH_MAX], state[PATH_MAX];
	struct h_diskio d;

	make_tmpdir();
	path_in(file, sizeof(file), "diskio.prom");
	path_in(state, sizeof(state), "crashfree");
	/* A 60 s interval: a file written within seconds was written for SIGHUP. */
	h_diskio_start(&d, H_ARGS("-q", "--prom", file, "--state", state, "60"), NULL);
	wait_for_file(file, &d);
	cr_assert_eq(unlink(file), 0);
	cr_assert(access(state, F_OK), "the state file is saved per interval, not yet");
	for (int round = 0; round < 2; round++) {
		kill(d.pid, SIGHUP);
		cr_assert(wait_for_path(file, 3000), "round %d: SIGHUP did not rewrite %s", round,
			  file);
		cr_assert(wait_for_path(state, 3000), "round %d: SIGHUP did not save %s", round,
			  state);
		h_diskio_pump(&d, 300);
		cr_assert_not(d.exited, "round %d: diskio exited on SIGHUP: %s", round, d.err);
		unlink(file);
		unlink(state);
	}
	cr_assert_eq(h_diskio_stop(&d, SIGTERM, H_EXIT_TIMEOUT_MS), 0, "exit: %s", d.err);
	cr_assert_str_empty(d.err, "stderr: %s", d.err);
	cr_assert(!access(file, F_OK) && !access(state, F_OK), "files at exit");
	h_diskio_free(&d);
}

Test(prom, sighup_without_prom_ends_diskio_with_its_summary)
{
	struct h_diskio d;

	h_diskio_start(&d, H_ARGS("-b", "60"), NULL);
	h_diskio_wait_attached(&d, H_ATTACH_TIMEOUT_MS);
	cr_assert_eq(h_diskio_stop(&d, SIGHUP, H_EXIT_TIMEOUT_MS), 0, "exit: %s", d.err);
	cr_assert_gt(d.nlines, 1);
	cr_assert(!strncmp(d.lines[d.nlines - 2], "# summary ", 10), "%s", d.lines[d.nlines - 2]);
	h_diskio_free(&d);
}

/* ---- 6. make install ---- */

static void run_ok(const char *const argv[], const char *const env[], struct h_result *r)
{
	h_run(argv, env, NULL, 120000, r);
	cr_assert(WIFEXITED(r->status) && WEXITSTATUS(r->status) == 0, "%s %s: exit %#x\n%s%s",
		  argv[0], argv[1] ? argv[1] : "", r->status, r->out, r->err);
}

/* The completion's words for a command line (words, the last one being
 * completed), run under bash with bash-completion. */
static void complete(const char *script, const char *line, struct h_result *r)
{
	char program[4096];

	snprintf(program, sizeof(program),
		 "source /usr/share/bash-completion/bash_completion && source '%s' && "
		 "read -ra COMP_WORDS <<< \"$LINE\"; [[ $LINE == *' ' ]] && COMP_WORDS+=(''); "
		 "COMP_CWORD=$(( ${#COMP_WORDS[@]} - 1 )); COMP_LINE=$LINE; "
		 "COMP_POINT=${#LINE}; _diskio diskio \"${COMP_WORDS[COMP_CWORD]}\" "
		 "\"${COMP_WORDS[COMP_CWORD-1]}\"; printf '%%s\\n' \"${COMPREPLY[@]}\"", script);
	{
		char env_line[512];

		snprintf(env_line, sizeof(env_line), "LINE=%s", line);
		run_ok(H_ARGS("bash", "-c", program), H_ARGS(env_line), r);
	}
}

Test(prom, make_install_man_completion_unit_and_uninstall)
{
	static const char *const installed[] = {
		"usr/local/sbin/diskio", "usr/local/share/man/man8/diskio.8",
		"usr/local/lib/systemd/system/diskio.service",
		"usr/local/share/bash-completion/completions/diskio",
	};
	char repo[PATH_MAX], destdir[PATH_MAX + 16], prefix[PATH_MAX + 16], path[PATH_MAX + 128];
	char unit[PATH_MAX + 128], man_path[PATH_MAX + 64];
	struct h_result r;
	struct stat st;
	char *text;

	make_tmpdir();
	{
		char copy[PATH_MAX];

		snprintf(copy, sizeof(copy), "%s", h_diskio_path());
		snprintf(repo, sizeof(repo), "%s", dirname(copy));
	}
	snprintf(destdir, sizeof(destdir), "DESTDIR=%s/dest", tmpdir);
	run_ok(H_ARGS("make", "-C", repo, "--no-print-directory", "install", destdir,
		      "PREFIX=/usr/local"), NULL, &r);
	h_result_free(&r);
	for (size_t i = 0; i < sizeof(installed) / sizeof(installed[0]); i++) {
		snprintf(path, sizeof(path), "%s/dest/%s", tmpdir, installed[i]);
		cr_assert_eq(stat(path, &st), 0, "%s not installed", path);
	}
	snprintf(path, sizeof(path), "%s/dest/usr/local/sbin/diskio", tmpdir);
	cr_assert_eq(access(path, X_OK), 0, "the binary is not executable");
	snprintf(unit, sizeof(unit), "%s/dest/usr/local/lib/systemd/system/diskio.service", tmpdir);
	text = h_read_text(unit);
	cr_assert(strstr(text, "\nExecStart=/usr/local/sbin/diskio --quiet --state "
			       "/var/lib/diskio/crashfree --prom "
			       "/var/lib/prometheus/node-exporter/diskio.prom "), "%s", text);
	cr_assert(strstr(text, "\nExecReload=/bin/kill -HUP $MAINPID\n"));
	cr_assert_null(strstr(text, "@SBINDIR@"));
	free(text);

	/* The man page renders, without warnings. */
	snprintf(path, sizeof(path), "%s/dest/usr/local/share/man/man8/diskio.8", tmpdir);
	run_ok(H_ARGS("man", "--warnings", "-l", path), H_ARGS("MANWIDTH=80"), &r);
	cr_assert(strstr(r.out, "PROMETHEUS METRICS") && strstr(r.out, "--prom-rows"), "%s", r.out);
	cr_assert_str_empty(r.err, "man warnings: %s", r.err);
	h_result_free(&r);
	run_ok(H_ARGS("groff", "-ww", "-z", "-man", path), NULL, &r);
	cr_assert_str_empty(r.err, "groff warnings: %s", r.err);
	h_result_free(&r);

	/* The completion: options, and disks from /sys/block. */
	snprintf(path, sizeof(path), "%s/dest/usr/local/share/bash-completion/completions/diskio",
		 tmpdir);
	complete(path, "diskio --prom-", &r);
	cr_assert_str_eq(r.out, "--prom-idle\n--prom-label\n--prom-rows\n", "%s", r.out);
	h_result_free(&r);
	complete(path, "diskio --qu", &r);
	cr_assert_str_eq(r.out, "--quiet\n");
	h_result_free(&r);
	{
		const struct h_dev *zram = h_zram_create(DEV_SIZE);
		char line[64], want[64];

		snprintf(line, sizeof(line), "diskio -b -D %.5s", zram->name);
		snprintf(want, sizeof(want), "%s\n", zram->name);
		complete(path, line, &r);
		cr_assert(strstr(r.out, want), "-D %.5s: %s", zram->name, r.out);
		cr_assert_null(strstr(r.out, "--"), "%s", r.out);
		h_result_free(&r);
	}
	complete(path, "diskio -s wr", &r);
	cr_assert_str_eq(r.out, "write\n");
	h_result_free(&r);

	/* The unit: installed under a PREFIX of its own, so that ExecStart
	 * names a binary that is there. */
	if (!h_have_program("systemd-analyze")) {
		cr_log_info("systemd-analyze is not installed: the unit is not verified");
	} else {
		snprintf(prefix, sizeof(prefix), "PREFIX=%s/prefix", tmpdir);
		run_ok(H_ARGS("make", "-C", repo, "--no-print-directory", "install", prefix), NULL,
		       &r);
		h_result_free(&r);
		snprintf(unit, sizeof(unit), "%s/prefix/lib/systemd/system/diskio.service", tmpdir);
		snprintf(man_path, sizeof(man_path), "MANPATH=%s/prefix/share/man", tmpdir);
		h_run(H_ARGS("systemd-analyze", "verify", unit), H_ARGS(man_path), NULL, 60000, &r);
		if (WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0)
			cr_assert_str_empty(r.err, "systemd-analyze verify: %s", r.err);
		else if (strstr(r.err, "Failed to") && !strstr(r.err, "diskio.service:"))
			cr_log_info("systemd-analyze cannot verify here (%s): skipped", r.err);
		else
			cr_assert_fail("systemd-analyze verify %s: %s%s", unit, r.out, r.err);
		h_result_free(&r);
	}

	/* make uninstall removes exactly what install put there. */
	snprintf(path, sizeof(path), "%s/dest/usr/local/sbin/keep-me", tmpdir);
	{
		FILE *keep = fopen(path, "w");

		cr_assert_not_null(keep, "%s: %s", path, strerror(errno));
		fclose(keep);
	}
	run_ok(H_ARGS("make", "-C", repo, "--no-print-directory", "uninstall", destdir,
		      "PREFIX=/usr/local"), NULL, &r);
	h_result_free(&r);
	for (size_t i = 0; i < sizeof(installed) / sizeof(installed[0]); i++) {
		snprintf(unit, sizeof(unit), "%s/dest/%s", tmpdir, installed[i]);
		cr_assert(access(unit, F_OK) && errno == ENOENT, "%s is still there", unit);
	}
	cr_assert_eq(access(path, F_OK), 0, "uninstall removed a file it did not install");
}

/* A service has no terminal and maybe no stdout at all: --quiet with stdout
 * closed and with /dev/null, stdin closed too. */
Test(prom, quiet_runs_with_stdout_closed_or_null)
{
	static const char *const redirections[] = { ">&- <&-", ">/dev/null </dev/null" };
	char file[PATH_MAX], cmd[PATH_MAX * 2 + 128];
	struct h_result r;

	make_tmpdir();
	path_in(file, sizeof(file), "diskio.prom");
	for (size_t i = 0; i < sizeof(redirections) / sizeof(redirections[0]); i++) {
		char *text;

		unlink(file);
		snprintf(cmd, sizeof(cmd), "exec '%s' -q --prom '%s' 0.2 3 %s", h_diskio_path(), file,
			 redirections[i]);
		h_run(H_ARGS("sh", "-c", cmd), NULL, NULL, 30000, &r);
		cr_assert(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0, "%s: %#x %s", cmd,
			  r.status, r.err);
		cr_assert_str_empty(r.err, "%s: %s", cmd, r.err);
		h_result_free(&r);
		text = h_read_text(file);
		cr_assert(text && strstr(text, "\ndiskio_up 0\n"), "%s: no final file", cmd);
		free(text);
	}
}
