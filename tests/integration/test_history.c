// SPDX-License-Identifier: GPL-2.0
/*
 * --record and --replay on a real run (issue 36): `diskio --json --record
 * DIR -D zramN 1 6` under known O_DIRECT I/O, then `diskio --replay DIR
 * --json` prints the same six interval records, byte for byte; a batch
 * replay sums in awk to the bytes the child wrote, and so does -a's last
 * frame; --begin and --end with two frames' times give exactly those two;
 * the day file cut at offsets through it replays a prefix of the intervals
 * and a new run appends after the cut; a recorder killed with SIGKILL
 * replays every frame it printed but the last, and a new run appends after
 * what it left; a run with --files on ext4 replays its file lines as
 * printed, and a replay ends with the window's summary, which adds up; a
 * run with --stacks replays its stacks, frames named, as printed; a
 * recorder whose tmpfs is filled mid-run and freed exits 0, and the replay
 * marks the frames it could not write with a gap.
 */
#include "harness.h"

#define DEV_SIZE	(64ULL * 1024 * 1024)
#define WRITES		256
#define IO_SIZE		4096

TestSuite(history, .init = h_setup, .fini = h_teardown, .timeout = 120);

static char dir[64];

static void make_dir(void)
{
	snprintf(dir, sizeof(dir), "/tmp/diskio-itest-history-XXXXXX");
	cr_assert_not_null(mkdtemp(dir));
}

/* The lines of text that are JSON interval records, in order; their number. */
static size_t interval_lines(char **lines, size_t n, const char **out, size_t max)
{
	size_t k = 0;

	for (size_t i = 0; i < n; i++)
		if (strstr(lines[i], "\"type\":\"interval\"")) {
			cr_assert_lt(k, max);
			out[k++] = lines[i];
		}
	return k;
}

/* text split at newlines, in place. */
static size_t split_lines(char *text, char **lines, size_t max)
{
	size_t n = 0;

	for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
		cr_assert_lt(n, max);
		lines[n++] = line;
	}
	return n;
}

static void replay(const char *const args[], struct h_result *r)
{
	h_run(args, NULL, NULL, 20000, r);
	cr_assert(WIFEXITED(r->status) && WEXITSTATUS(r->status) == 0, "replay: %s", r->err);
}

/* The "time" of a JSON record line, into buf. */
static void record_time(const char *line, char *buf, size_t size)
{
	struct h_jv root, v;

	cr_assert(h_json_parse(line, &root));
	cr_assert(h_json_get(root, "time", &v));
	cr_assert_gt(h_json_str(v, buf, size), 0);
}

/* The day file of dir cut at 12 offsets through it, in a directory of its
 * own: each replay exits 0 and prints a prefix of the live intervals; a
 * new run recording into the last one appends after the cut. */
static void cut_and_go_on(const struct h_dev *zram, const char **live, size_t nlive)
{
	char cut_dir[128], path[384], cut_path[512], *text, *lines[256];
	const char *again[16];
	struct dirent *e;
	struct h_result r;
	size_t len = 0, n = 0, shown = 0;
	DIR *d = opendir(dir);
	FILE *f;

	cr_assert_not_null(d);
	while ((e = readdir(d)))
		if (strstr(e->d_name, ".dkr"))
			snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
	closedir(d);
	f = fopen(path, "rb");
	cr_assert_not_null(f, "%s", path);
	text = malloc(1 << 22);
	len = fread(text, 1, 1 << 22, f);
	fclose(f);
	snprintf(cut_dir, sizeof(cut_dir), "%s/cut", dir);
	cr_assert_eq(mkdir(cut_dir, 0700), 0);
	snprintf(cut_path, sizeof(cut_path), "%s/%s", cut_dir, strrchr(path, '/') + 1);
	for (int k = 1; k <= 12; k++) {
		size_t at = len * k / 13;

		f = fopen(cut_path, "wb");
		cr_assert_not_null(f);
		cr_assert_eq(fwrite(text, 1, at, f), at);
		fclose(f);
		replay(H_ARGS(h_diskio_path(), "--replay", cut_dir, "--json"), &r);
		n = interval_lines((char **)lines, split_lines(r.out, lines, 256), again, 16);
		cr_assert_leq(n, nlive);
		for (size_t i = 0; i < n; i++)
			cr_assert_str_eq(again[i], live[i], "cut at %zu: interval %zu", at, i);
		shown = n;
		h_result_free(&r);
	}
	h_run(H_ARGS(h_diskio_path(), "--json", "--record", cut_dir, "-D", zram->name, "0.5", "2"),
	      NULL, NULL, 30000, &r);
	cr_assert_eq(r.status, 0, "%s", r.err);
	h_result_free(&r);
	replay(H_ARGS(h_diskio_path(), "--replay", cut_dir, "--json"), &r);
	n = interval_lines((char **)lines, split_lines(r.out, lines, 256), again, 16);
	cr_assert_eq(n, shown + 2, "the new run's two frames after the cut's %zu", shown);
	for (size_t i = 0; i < shown; i++)
		cr_assert_str_eq(again[i], live[i]);
	h_result_free(&r);
	free(text);
}

Test(history, replay_prints_the_live_json_and_a_window_of_two)
{
	const struct h_dev *zram = h_zram_create(DEV_SIZE);
	static const struct h_io ops[] = { { 'w', 0, IO_SIZE, WRITES }, { 'r', 0, IO_SIZE, 64 } };
	const char *live[16], *again[16];
	char *replay_lines[256], awk[512], t2[64], t3[64];
	struct h_result r;
	struct h_diskio d;
	size_t nlive, nagain, nreplay;
	int status;

	make_dir();
	h_diskio_start(&d, H_ARGS("--json", "--record", dir, "-D", zram->name, "1", "6"), NULL);
	h_diskio_wait_attached(&d, H_ATTACH_TIMEOUT_MS);
	h_expect_child_ok(h_spawn_io("dio-hist", zram->path, ops, 2, NULL), H_CHILD_TIMEOUT_MS);
	status = h_diskio_stop(&d, 0, 20000);
	cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0, "diskio: %s", d.err);
	nlive = interval_lines(d.lines, d.nlines, live, 16);
	cr_assert_eq(nlive, 6);

	replay(H_ARGS(h_diskio_path(), "--replay", dir, "--json"), &r);
	nreplay = split_lines(r.out, replay_lines, 256);
	nagain = interval_lines(replay_lines, nreplay, again, 16);
	cr_assert_eq(nagain, 6, "%s", r.err);
	for (size_t i = 0; i < nlive; i++)
		cr_assert_str_eq(again[i], live[i], "interval %zu", i);
	cr_assert(strstr(replay_lines[0], "\"type\":\"record\""), "%s", replay_lines[0]);
	cr_assert(strstr(replay_lines[0], "\"filter\":\"-D "), "%s", replay_lines[0]);
	h_result_free(&r);

	/* Batch lines of the replay, summed in awk: the child's bytes. */
	snprintf(awk, sizeof(awk), "%s --replay %s -b | awk '!/^#/ && $3 == \"dio-hist\" && "
		 "$4 == \"%s\" { w += $6; r += $5 } END { print w, r }'", h_diskio_path(), dir,
		 zram->name);
	h_run(H_ARGS("/bin/sh", "-c", awk), NULL, NULL, 20000, &r);
	cr_assert_eq(r.status, 0, "%s", r.err);
	{
		char want[64];

		snprintf(want, sizeof(want), "%d %d\n", WRITES * IO_SIZE, 64 * IO_SIZE);
		cr_assert_str_eq(r.out, want);
	}
	h_result_free(&r);

	/* -a: the window's totals; the last frame's row is the child's all. */
	snprintf(awk, sizeof(awk), "%s --replay %s -b -a | awk '!/^#/ && $3 == \"dio-hist\" && "
		 "$4 == \"%s\" { w = $6 } END { print w }'", h_diskio_path(), dir, zram->name);
	h_run(H_ARGS("/bin/sh", "-c", awk), NULL, NULL, 20000, &r);
	cr_assert_eq(r.status, 0, "%s", r.err);
	{
		char want[64];

		snprintf(want, sizeof(want), "%d\n", WRITES * IO_SIZE);
		cr_assert_str_eq(r.out, want, "-a");
	}
	h_result_free(&r);

	/* Two frames' times: exactly those two frames. */
	record_time(live[2], t2, sizeof(t2));
	record_time(live[3], t3, sizeof(t3));
	replay(H_ARGS(h_diskio_path(), "--replay", dir, "--json", "--begin", t2, "--end", t3), &r);
	nreplay = split_lines(r.out, replay_lines, 256);
	nagain = interval_lines(replay_lines, nreplay, again, 16);
	cr_assert_eq(nagain, 2, "%s..%s: %s", t2, t3, r.out);
	cr_assert_str_eq(again[0], live[2]);
	cr_assert_str_eq(again[1], live[3]);
	h_result_free(&r);
	cut_and_go_on(zram, live, nlive);
	h_diskio_free(&d);	/* live's lines are its */
	h_remove_tree(dir);
}

Test(history, a_killed_recorder_replays_all_but_its_last_frame_and_goes_on)
{
	const struct h_dev *zram = h_zram_create(DEV_SIZE);
	static const struct h_io ops[] = { { 'w', 0, IO_SIZE, 64 } };
	const char *live[64], *again[64];
	char *replay_lines[512];
	struct h_result r;
	struct h_diskio d;
	size_t nlive, nagain, nreplay, records = 0;
	int status;

	make_dir();
	h_diskio_start(&d, H_ARGS("--json", "--record", dir, "-D", zram->name, "0.5"), NULL);
	h_diskio_wait_attached(&d, H_ATTACH_TIMEOUT_MS);
	h_expect_child_ok(h_spawn_io("dio-kill", zram->path, ops, 1, NULL), H_CHILD_TIMEOUT_MS);
	h_diskio_wait_new_intervals(&d, 4, 20000);
	h_diskio_stop(&d, SIGKILL, H_EXIT_TIMEOUT_MS);
	nlive = interval_lines(d.lines, d.nlines, live, 64);
	cr_assert_geq(nlive, 4);

	replay(H_ARGS(h_diskio_path(), "--replay", dir, "--json"), &r);
	nreplay = split_lines(r.out, replay_lines, 512);
	nagain = interval_lines(replay_lines, nreplay, again, 64);
	cr_assert_geq(nagain, nlive - 1, "%zu printed, %zu replayed", nlive, nagain);
	for (size_t i = 0; i < nagain && i < nlive; i++)
		cr_assert_str_eq(again[i], live[i], "interval %zu", i);
	h_result_free(&r);

	/* Recording again: after what the killed run left, its own header first. */
	h_diskio_free(&d);
	h_diskio_start(&d, H_ARGS("--json", "--record", dir, "-D", zram->name, "0.5", "2"), NULL);
	status = h_diskio_stop(&d, 0, 20000);
	cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0, "diskio: %s", d.err);
	replay(H_ARGS(h_diskio_path(), "--replay", dir, "--json"), &r);
	nreplay = split_lines(r.out, replay_lines, 512);
	cr_assert_eq(interval_lines(replay_lines, nreplay, again, 64), nagain + 2, "%s", r.out);
	for (size_t i = 0; i < nreplay; i++)
		records += strstr(replay_lines[i], "\"type\":\"record\"") != NULL;
	cr_assert_eq(records, 2);
	h_result_free(&r);
	h_diskio_free(&d);
	h_remove_tree(dir);
}

/* A number of a JSON object. */
static double json_number(struct h_jv obj, const char *key)
{
	struct h_jv v;
	char text[64];

	cr_assert(h_json_get(obj, key, &v), "no %s", key);
	cr_assert_lt(v.len, sizeof(text));
	memcpy(text, v.p, v.len);
	text[v.len] = '\0';
	return strtod(text, NULL);
}

/* --files: the live JSON records, files and all, come back from the
 * record; the replay's summary (JSON and batch) is of its frames. */
Test(history, files_replay_as_printed_and_the_summary_adds_up)
{
	const struct h_dev *zram = h_zram_create(DEV_SIZE);
	const char *mnt = h_ext4_mount(zram)->path;
	const char *live[16], *again[16];
	char *replay_lines[256], ddof[PATH_MAX + 8], path[PATH_MAX], cmd[1024];
	struct h_counters sum = { 0 }, c;
	struct h_jv root, total;
	struct h_result r;
	struct h_diskio d;
	size_t nlive, nreplay, summaries = 0;
	double duration = 0, lost = 0;
	int status;

	make_dir();
	snprintf(path, sizeof(path), "%s/recorded", mnt);
	snprintf(ddof, sizeof(ddof), "of=%s", path);
	h_diskio_start(&d, H_ARGS("--json", "--files", "--record", dir, "-D", zram->name, "1",
				  "4"), NULL);
	h_diskio_wait_attached(&d, H_ATTACH_TIMEOUT_MS);
	h_run(H_ARGS("dd", "if=/dev/zero", ddof, "bs=1M", "count=4", "conv=fsync", "status=none"),
	      NULL, NULL, 30000, &r);
	cr_assert_eq(r.status, 0, "dd: %s", r.err);
	h_result_free(&r);
	status = h_diskio_stop(&d, 0, 20000);
	cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0, "diskio: %s", d.err);
	nlive = interval_lines(d.lines, d.nlines, live, 16);
	cr_assert_eq(nlive, 4);
	{
		/* the live run saw dd's file: there is something to replay */
		bool seen = false;

		for (size_t i = 0; i < nlive; i++)
			seen |= strstr(live[i], path) && strstr(live[i], "\"comm\":\"dd\"");
		cr_assert(seen, "no line of %s in the live records", path);
	}

	replay(H_ARGS(h_diskio_path(), "--replay", dir, "--json"), &r);
	nreplay = split_lines(r.out, replay_lines, 256);
	cr_assert_eq(interval_lines(replay_lines, nreplay, again, 16), 4, "%s", r.err);
	for (size_t i = 0; i < nlive; i++)
		cr_assert_str_eq(again[i], live[i], "interval %zu", i);
	/* the summary: the intervals' lengths, losses and totals summed */
	for (size_t i = 0; i < nreplay; i++) {
		cr_assert(h_json_parse(replay_lines[i], &root), "%s", replay_lines[i]);
		if (h_json_is_interval(replay_lines[i])) {
			cr_assert(h_json_get(root, "total", &total));
			cr_assert(h_json_counters(total, &c));
			h_counters_add(&sum, &c);
			duration += json_number(root, "interval_s");
			cr_assert(h_json_get(root, "lost", &total));
			lost += json_number(total, "events");
		} else if (h_json_is_summary(replay_lines[i])) {
			cr_assert_eq(i, nreplay - 1, "the summary comes last");
			summaries++;
			cr_assert(h_json_get(root, "total", &total));
			cr_assert(h_json_counters(total, &c));
			cr_assert_eq(memcmp(&c, &sum, sizeof(c)), 0, "summary %s",
				     h_counters_str(&c, cmd, sizeof(cmd)));
			cr_assert_geq(c.write_bytes, 4 << 20);
			cr_assert_float_eq(json_number(root, "duration_s"), duration, 0.0015);
			cr_assert(h_json_get(root, "lost", &total));
			cr_assert_float_eq(json_number(total, "events"), lost, 0.5);
		}
	}
	cr_assert_eq(summaries, 1);
	h_result_free(&r);

	/* batch: "# file" lines as the JSON's, and a "# summary" whose
	 * write_bytes the "# time" lines' add up to */
	snprintf(cmd, sizeof(cmd), "%s --replay %s -b | awk '/^# file / && / comm=dd / "
		 "{ files++ } /^# time=/ { for (i = 1; i <= NF; i++) if ($i ~ /^write_bytes=/) "
		 "{ split($i, a, \"=\"); w += a[2] } } /^# summary / { for (i = 1; i <= NF; i++) "
		 "if ($i ~ /^write_bytes=/) { split($i, a, \"=\"); s = a[2] } } "
		 "END { print (files > 0), (s == w), (w > 0) }'", h_diskio_path(), dir);
	h_run(H_ARGS("/bin/sh", "-c", cmd), NULL, NULL, 20000, &r);
	cr_assert_eq(r.status, 0, "%s", r.err);
	cr_assert_str_eq(r.out, "1 1 1\n", "file lines, summary == sum, bytes");
	h_result_free(&r);
	h_diskio_free(&d);
	h_remove_tree(dir);
}

/* --stacks: the live JSON records' stacks, frames named, come back from the
 * record as printed (no symbolizer at the replay), and the batch replay
 * has their "# stack" lines. */
Test(history, stacks_replay_as_printed)
{
	const struct h_dev *zram = h_zram_create(DEV_SIZE);
	static const struct h_io ops[] = { { 'w', 0, IO_SIZE, WRITES } };
	const char *live[16], *again[16];
	char *replay_lines[256];
	struct h_result r;
	struct h_diskio d;
	size_t nlive, nreplay, stack_lines = 0;
	bool named = false;
	int status;

	make_dir();
	h_diskio_start(&d, H_ARGS("--json", "--stacks", "--record", dir, "-D", zram->name, "1",
				  "4"), NULL);
	h_diskio_wait_attached(&d, H_ATTACH_TIMEOUT_MS);
	h_expect_child_ok(h_spawn_io("dio-stack", zram->path, ops, 1, NULL), H_CHILD_TIMEOUT_MS);
	status = h_diskio_stop(&d, 0, 20000);
	cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0, "diskio: %s", d.err);
	nlive = interval_lines(d.lines, d.nlines, live, 16);
	cr_assert_eq(nlive, 4);
	/* the live run had a stack of dio-stack's, its kernel frames named */
	for (size_t i = 0; i < nlive; i++)
		named |= strstr(live[i], "\"comm\":\"dio-stack\"") &&
			 strstr(live[i], "\"stacks\":[{\"bytes\":") &&
			 strstr(live[i], "\"kernel\":[\"") && strstr(live[i], "submit_bio");
	cr_assert(named, "no named stack of dio-stack in the live records");

	replay(H_ARGS(h_diskio_path(), "--replay", dir, "--json"), &r);
	nreplay = split_lines(r.out, replay_lines, 256);
	cr_assert_eq(interval_lines(replay_lines, nreplay, again, 16), 4, "%s", r.err);
	for (size_t i = 0; i < nlive; i++)
		cr_assert_str_eq(again[i], live[i], "interval %zu", i);
	h_result_free(&r);

	replay(H_ARGS(h_diskio_path(), "--replay", dir, "-b"), &r);
	nreplay = split_lines(r.out, replay_lines, 256);
	for (size_t i = 0; i < nreplay; i++)
		stack_lines += !strncmp(replay_lines[i], "# stack pid=", 12) &&
			       strstr(replay_lines[i], " comm=dio-stack ") &&
			       strstr(replay_lines[i], "submit_bio");
	cr_assert_geq(stack_lines, 1, "%s", r.out);
	h_result_free(&r);
	h_diskio_free(&d);
	h_remove_tree(dir);
}

/* The value of "key" in a JSON record line, into buf (a string's text, or
 * a number as written). */
static void json_text(const char *line, const char *key, char *buf, size_t size)
{
	struct h_jv root, v;

	cr_assert(h_json_parse(line, &root), "%s", line);
	cr_assert(h_json_get(root, key, &v), "no %s in %s", key, line);
	if (h_json_str(v, buf, size) <= 0) {
		cr_assert_lt(v.len, size);
		memcpy(buf, v.p, v.len);
		buf[v.len] = '\0';
	}
}

/*
 * issue 43: a record on a tiny tmpfs that the test fills mid-run and then
 * frees: the recorder says it cannot record, goes on, exits 0 with the gap
 * counted in its summary, and the replay's "# gap FROM TO" (and its JSON
 * gap record) covers every frame the run printed but could not keep, and
 * none it kept.
 */
Test(history, a_full_disk_mid_run_leaves_a_gap_and_the_run_exits_0)
{
	const struct h_dev *zram = h_zram_create(DEV_SIZE);
	char rec[128], fill[128], ddof[160], from[64] = "", to[64] = "", when[64];
	char *lines[1024];
	const char *live[512], *kept[512];
	struct h_result r;
	struct h_diskio d;
	size_t nlive, nkept, nlines, missing = 0, gaps = 0;
	int64_t deadline;
	int status;
	bool summary_counts = false;

	const char *mnt = h_tmpfs_mount("256k")->path;

	snprintf(rec, sizeof(rec), "%s/rec", mnt);
	snprintf(fill, sizeof(fill), "%s/fill", mnt);
	snprintf(ddof, sizeof(ddof), "of=%s", fill);

	h_diskio_start(&d, H_ARGS("--json", "--record", rec, "-D", zram->name, "0.25"), NULL);
	h_diskio_wait_attached(&d, H_ATTACH_TIMEOUT_MS);
	h_diskio_wait_new_intervals(&d, 3, 20000);
	/* full: dd stops at ENOSPC */
	h_run(H_ARGS("dd", "if=/dev/zero", ddof, "bs=4k", "status=none"), NULL, NULL, 30000, &r);
	cr_assert_neq(r.status, 0, "dd filled a 256k tmpfs without an error");
	h_result_free(&r);
	/* The day file's last page takes a few frames more; then writes fail. */
	deadline = h_now_ms() + 40000;
	while (!(d.err && strstr(d.err, "cannot record in")) && h_now_ms() < deadline)
		h_diskio_pump(&d, 500);
	cr_assert(d.err && strstr(d.err, "cannot record in"), "no failed write said: %s",
		  d.err ? d.err : "");
	h_diskio_wait_new_intervals(&d, 4, 20000);
	cr_assert_eq(unlink(fill), 0);
	h_diskio_wait_new_intervals(&d, 4, 20000);
	status = h_diskio_stop(&d, SIGINT, 20000);
	cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0, "a recorder that recovered: %s",
		  d.err);
	cr_assert(strstr(d.err, "recording again in"), "%s", d.err);
	nlive = interval_lines(d.lines, d.nlines, live, 512);
	for (size_t i = 0; i < d.nlines; i++)
		if (h_json_is_summary(d.lines[i]) && strstr(d.lines[i], "\"record_gaps\":1"))
			summary_counts = true;
	cr_assert(summary_counts, "the summary counts the gap: %s", d.lines[d.nlines - 1]);

	/* batch: one "# gap FROM TO" */
	replay(H_ARGS(h_diskio_path(), "--replay", rec, "-b"), &r);
	nlines = split_lines(r.out, lines, 1024);
	for (size_t i = 0; i < nlines; i++) {
		if (strncmp(lines[i], "# gap ", 6))
			continue;
		gaps++;
		cr_assert_eq(sscanf(lines[i], "# gap %63s %63s", from, to), 2, "%s", lines[i]);
	}
	cr_assert_eq(gaps, 1, "%s", r.out);
	h_result_free(&r);

	/* JSON: the same gap; the frames kept are the live ones outside it,
	 * the frames lost all inside it */
	replay(H_ARGS(h_diskio_path(), "--replay", rec, "--json"), &r);
	nlines = split_lines(r.out, lines, 1024);
	gaps = 0;
	for (size_t i = 0; i < nlines; i++) {
		if (!strstr(lines[i], "\"type\":\"gap\""))
			continue;
		gaps++;
		json_text(lines[i], "from", when, sizeof(when));
		cr_assert_str_eq(when, from);
		json_text(lines[i], "to", when, sizeof(when));
		cr_assert_str_eq(when, to);
	}
	cr_assert_eq(gaps, 1);
	nkept = interval_lines(lines, nlines, kept, 512);
	for (size_t i = 0, k = 0; i < nlive; i++) {
		record_time(live[i], when, sizeof(when));
		if (k < nkept && !strcmp(live[i], kept[k])) {
			k++;
			cr_assert(strcmp(when, from) <= 0 || strcmp(when, to) > 0,
				  "frame %s kept inside the gap %s %s", when, from, to);
			continue;
		}
		missing++;
		cr_assert(strcmp(when, from) > 0 && strcmp(when, to) <= 0,
			  "frame %s lost outside the gap %s %s", when, from, to);
	}
	cr_assert_geq(missing, 1, "no frame was lost");
	cr_log_info("%zu of %zu frames lost, in the gap %s %s", missing, nlive, from, to);
	h_result_free(&r);
	h_diskio_free(&d);
}
