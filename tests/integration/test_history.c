// SPDX-License-Identifier: GPL-2.0
/*
 * --record and --replay on a real run (issue 36): `diskio --json --record
 * DIR -D zramN 1 6` under known O_DIRECT I/O, then `diskio --replay DIR
 * --json` prints the same six interval records, byte for byte; a batch
 * replay sums in awk to the bytes the child wrote, and so does -a's last
 * frame; --begin and --end with two frames' times give exactly those two;
 * the day file cut at offsets through it replays a prefix of the intervals
 * (none: exit 4) and a new run appends after the cut; a recorder killed with SIGKILL
 * replays every frame it printed but the last, and a new run appends after
 * what it left; a run with --files on ext4 replays its file lines as
 * printed, and a replay ends with the window's summary, which adds up; a
 * run with --stacks replays its stacks, frames named, as printed; a
 * recorder whose tmpfs is filled mid-run and freed exits 0, and the replay
 * marks the frames it could not write with a gap.
 * Issue 43: a window with no frame, a directory with no records, an
 * unreadable one, a reversed window and a time that is none each say so in
 * one line with nothing on stdout and their own exit status; a flipped
 * byte in the middle of a record costs a chunk (8 frames) at most, one in
 * the run header none, and each exits 3; a
 * local --begin under TZ selects what its Z time selects.
 */
#include "harness.h"

#define DEV_SIZE	(64ULL * 1024 * 1024)
#define WRITES		256
#define IO_SIZE		4096
/* history_write.h's HISTORY_CHUNK_FRAMES: the most one damaged record costs */
#define CHUNK_FRAMES	8

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
 * own: each replay prints a prefix of the live intervals and exits 0, or 4
 * when the prefix is empty; a new run recording into the last one appends
 * after the cut. */
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
		/* a torn tail is no damage: 0, or 4 (nothing on stdout) when
		 * the cut left no whole frame */
		h_run(H_ARGS(h_diskio_path(), "--replay", cut_dir, "--json"), NULL, NULL, 20000,
		      &r);
		cr_assert(WIFEXITED(r.status), "%s", r.err);
		cr_assert(WEXITSTATUS(r.status) == 0 ||
			  (WEXITSTATUS(r.status) == 4 && !r.out_len), "cut at %zu: %s", at, r.err);
		n = interval_lines((char **)lines, split_lines(r.out, lines, 256), again, 16);
		cr_assert_leq(n, nlive);
		cr_assert_eq(n == 0, WEXITSTATUS(r.status) == 4, "cut at %zu: %s", at, r.err);
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

/* ---- issue 43: what a replay says when it cannot show everything ---- */

/* A replay's exit status (it must exit), with env_add added to its
 * environment and run as `as` (NULL: root). */
static int replay_status_of(const char *const args[], const char *const env_add[],
			    const struct h_creds *as, struct h_result *r)
{
	h_run(args, env_add, as, 20000, r);
	cr_assert(WIFEXITED(r->status), "replay did not exit: %s", r->err);
	return WEXITSTATUS(r->status);
}

/* A refusal: exit status want, stdout empty, one "diskio: " line on stderr
 * holding words. */
static void expect_refusal(const char *const args[], int want, const char *words)
{
	struct h_result r;

	cr_assert_eq(replay_status_of(args, NULL, NULL, &r), want, "%s: %s", args[3], r.err);
	cr_assert_eq(r.out_len, 0, "stdout: %s", r.out);
	h_drop_notes(r.err);
	cr_assert(!strncmp(r.err, "diskio: ", 8) && strchr(r.err, '\n') == r.err + strlen(r.err) - 1,
		  "one line: %s", r.err);
	cr_assert(strstr(r.err, words), "'%s' not in %s", words, r.err);
	h_result_free(&r);
}

/* A short record of nframes frames at interval into dir: its live JSON
 * interval lines into live (the result keeps them). */
static size_t record_frames(const char *interval, const char *nframes, struct h_result *live,
			    const char **lines, size_t max)
{
	const struct h_dev *zram = h_zram_create(DEV_SIZE);
	char *all[1024];

	h_run(H_ARGS(h_diskio_path(), "--json", "--record", dir, "-D", zram->name, interval,
		     nframes), NULL, NULL, 60000, live);
	cr_assert_eq(live->status, 0, "record: %s", live->err);
	return interval_lines(all, split_lines(live->out, all, 1024), lines, max);
}

Test(history, nothing_to_show_exits_4_with_one_line_and_no_stdout)
{
	const char *live[8];
	char empty_dir[96], path[160];
	struct h_result rec;
	FILE *f;

	make_dir();
	cr_assert_eq(record_frames("0.2", "3", &rec, live, 8), 3);
	/* an hour before the record, in batch and JSON */
	expect_refusal(H_ARGS(h_diskio_path(), "--replay", dir, "-b", "--begin", "-2h", "--end",
			      "-1h"), 4, "no frame between ");
	expect_refusal(H_ARGS(h_diskio_path(), "--replay", dir, "--json", "--begin", "-2h",
			      "--end", "-1h"), 4, "; its 3 frames run from ");
	expect_refusal(H_ARGS(h_diskio_path(), "--replay", dir, "--json", "--begin", "now"), 4,
		       " on; its 3 frames run from ");
	/* a directory without day files: a lock, an index, a stray name */
	snprintf(empty_dir, sizeof(empty_dir), "%s/empty", dir);
	cr_assert_eq(mkdir(empty_dir, 0700), 0);
	static const char *const not_days[] = { "lock", "2026-11-26.dki", "2026-1-26.dkr",
						"notes.dkr.txt" };
	for (size_t i = 0; i < sizeof(not_days) / sizeof(not_days[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", empty_dir, not_days[i]);
		cr_assert_not_null(f = fopen(path, "w"));
		fclose(f);
	}
	expect_refusal(H_ARGS(h_diskio_path(), "--replay", empty_dir, "-b"), 4, "no records");
	expect_refusal(H_ARGS(h_diskio_path(), "--replay", empty_dir, "--json"), 4, "no records");
	/* bad usage: a reversed window, a time that is none */
	expect_refusal(H_ARGS(h_diskio_path(), "--replay", dir, "-b", "--begin", "-1h", "--end",
			      "-2h"), 2, "is before --begin");
	expect_refusal(H_ARGS(h_diskio_path(), "--replay", dir, "-b", "--begin", "+1:00"), 2,
		       "invalid time '+1:00'");
	expect_refusal(H_ARGS(h_diskio_path(), "--replay", dir, "-b", "--end", "2026-02-31"), 2,
		       "invalid time '2026-02-31'");
	h_result_free(&rec);
	h_remove_tree(dir);
}

/*
 * A copy of diskio that another user can run, in a directory of its own
 * (bin, mode 0755): the checkout may lie under a 0700 home, where nobody
 * cannot reach $DISKIO.  Its path into exe.
 */
static void diskio_for_others(char *bin, size_t bin_size, char *exe, size_t exe_size)
{
	struct h_result r;

	snprintf(bin, bin_size, "/tmp/diskio-itest-history-bin-XXXXXX");
	cr_assert_not_null(mkdtemp(bin));
	cr_assert_eq(chmod(bin, 0755), 0);
	snprintf(exe, exe_size, "%s/diskio", bin);
	cr_assert_eq(h_run(H_ARGS("cp", h_diskio_path(), exe), NULL, NULL, 10000, &r), 0, "%s",
		     r.err);
	h_result_free(&r);
	cr_assert_eq(chmod(exe, 0755), 0);
}

Test(history, a_directory_that_cannot_be_read_exits_1_with_no_stdout)
{
	const struct h_creds nobody = { 65534, 65534 };
	char missing[96], file[96], bin[64], exe[96];
	struct h_result r;
	FILE *f;

	make_dir();
	snprintf(missing, sizeof(missing), "%s/missing", dir);
	expect_refusal(H_ARGS(h_diskio_path(), "--replay", missing, "-b"), 1,
		       "No such file or directory");
	snprintf(file, sizeof(file), "%s/a-file", dir);
	cr_assert_not_null(f = fopen(file, "w"));
	fclose(f);
	expect_refusal(H_ARGS(h_diskio_path(), "--replay", file, "--json"), 1, "Not a directory");
	/* root's 0700 directory, replayed by nobody (a replay needs no root) */
	cr_assert_eq(chmod(dir, 0700), 0);
	diskio_for_others(bin, sizeof(bin), exe, sizeof(exe));
	cr_assert_eq(replay_status_of(H_ARGS(exe, "--replay", dir, "-b"), NULL, &nobody, &r), 1,
		     "%s", r.err);
	cr_assert_eq(r.out_len, 0, "stdout: %s", r.out);
	cr_assert(strstr(r.err, "Permission denied"), "%s", r.err);
	cr_assert(strstr(r.err, dir), "the directory named: %s", r.err);
	h_result_free(&r);
	h_remove_tree(bin);
	h_remove_tree(dir);
}

/* The day file of dir (the one of a short record). */
static void day_file(char *path, size_t size)
{
	struct dirent *e;
	DIR *d = opendir(dir);
	bool found = false;

	cr_assert_not_null(d);
	while ((e = readdir(d)))
		if (strlen(e->d_name) == 14 && !strcmp(e->d_name + 10, ".dkr")) {
			cr_assert_not(found, "one day file");
			snprintf(path, size, "%s/%s", dir, e->d_name);
			found = true;
		}
	closedir(d);
	cr_assert(found);
}

/* The middle of the body of the first frame record ('F', doc/record-format.md:
 * u32 length, u32 CRC, type, body) that starts at or after offset: a flip
 * there costs that frame, where one in a chunk's copy of the header ('R')
 * would cost none. */
static long frame_body_after(const char *path, long offset)
{
	FILE *f = fopen(path, "rb");
	unsigned char head[9];
	long at = 8;		/* past the magic */
	uint32_t len;

	cr_assert_not_null(f);
	for (;;) {
		cr_assert_eq(fseek(f, at, SEEK_SET), 0);
		cr_assert_eq(fread(head, 1, sizeof(head), f), sizeof(head),
			     "no frame record after %ld", offset);
		len = (uint32_t)head[0] | (uint32_t)head[1] << 8 | (uint32_t)head[2] << 16 |
		      (uint32_t)head[3] << 24;
		cr_assert(len >= 1 && len <= (8u << 20), "a record of %u bytes at %ld", len, at);
		if (at >= offset && head[8] == 'F' && len > 2)
			break;
		at += 8 + (long)len;
	}
	fclose(f);
	return at + 9 + (long)(len - 1) / 2;
}

/*
 * One byte of a 150-frame record flipped, in the middle of the day file or
 * in the run's header (a byte of its body, past the record's length, CRC
 * and type): the replay says so, exits 3, and shows every frame but at
 * most a chunk's (in the middle: at least one lost), each as it was
 * printed live.
 */
static void flip_and_replay(bool in_header)
{
	long offset;
	const char *live[256], *again[256];
	char path[160], *lines[1024];
	struct h_result rec, r;
	size_t nlive, nagain, k = 0;
	struct stat st;
	FILE *f;
	int c;

	make_dir();
	nlive = record_frames("0.05", "150", &rec, live, 256);
	cr_assert_eq(nlive, 150);
	day_file(path, sizeof(path));
	cr_assert_eq(stat(path, &st), 0);
	offset = in_header ? 8 + 8 + 1 + 40 : frame_body_after(path, st.st_size / 2);
	cr_assert_not_null(f = fopen(path, "r+b"));
	cr_assert_eq(fseek(f, offset, SEEK_SET), 0);
	c = fgetc(f);
	cr_assert_eq(fseek(f, offset, SEEK_SET), 0);
	fputc(c ^ 0x10, f);
	fclose(f);

	cr_assert_eq(replay_status_of(H_ARGS(h_diskio_path(), "--replay", dir, "--json"), NULL,
				      NULL, &r), 3, "offset %ld: %s", offset, r.err);
	cr_assert(strstr(r.err, "damaged"), "%s", r.err);
	nagain = interval_lines(lines, split_lines(r.out, lines, 1024), again, 256);
	cr_log_info("a flip at %ld of %lld bytes: %zu of %zu frames replayed", offset,
		    (long long)st.st_size, nagain, nlive);
	cr_assert_geq(nagain, nlive - CHUNK_FRAMES, "%zu of %zu", nagain, nlive);
	if (!in_header)
		cr_assert_lt(nagain, nlive, "the flip cost no frame?");
	for (size_t i = 0; i < nagain; i++) {
		while (k < nlive && strcmp(again[i], live[k]))
			k++;
		cr_assert_lt(k, nlive, "replayed interval %zu was not printed live", i);
	}
	h_result_free(&r);
	h_result_free(&rec);
	h_remove_tree(dir);
}

Test(history, a_flipped_byte_in_the_middle_shows_the_rest_and_exits_3)
{
	flip_and_replay(false);
}

Test(history, a_flipped_byte_in_the_run_header_costs_no_frame_and_exits_3)
{
	flip_and_replay(true);
}

/* A record's "2026-11-28T16:19:30.365Z" as Berlin's local clock showed it,
 * "2026-11-28 17:19:30.365". */
static void berlin_time(const char *utc, char *buf, size_t size)
{
	struct tm tm = { 0 };
	int millis;
	time_t t;

	cr_assert_eq(sscanf(utc, "%4d-%2d-%2dT%2d:%2d:%2d.%3dZ", &tm.tm_year, &tm.tm_mon,
			    &tm.tm_mday, &tm.tm_hour, &tm.tm_min, &tm.tm_sec, &millis), 7, "%s", utc);
	tm.tm_year -= 1900;
	tm.tm_mon -= 1;
	t = timegm(&tm);
	cr_assert_eq(setenv("TZ", "Europe/Berlin", 1), 0);
	tzset();
	cr_assert_not_null(localtime_r(&t, &tm));
	cr_assert_gt(strftime(buf, size, "%Y-%m-%d %H:%M:%S", &tm), 0);
	snprintf(buf + strlen(buf), size - strlen(buf), ".%03d", millis);
}

Test(history, a_local_begin_under_tz_selects_what_its_z_time_selects)
{
	static const char *const berlin[] = { "TZ=Europe/Berlin", NULL };
	const char *live[8], *again[8];
	char z1[64], z2[64], local1[64], local2[64], *lines[64];
	struct h_result rec, by_z, by_local;

	make_dir();
	cr_assert_eq(record_frames("0.2", "4", &rec, live, 8), 4);
	record_time(live[1], z1, sizeof(z1));
	record_time(live[2], z2, sizeof(z2));
	berlin_time(z1, local1, sizeof(local1));
	berlin_time(z2, local2, sizeof(local2));
	cr_assert_str_neq(local1, z1);

	cr_assert_eq(replay_status_of(H_ARGS(h_diskio_path(), "--replay", dir, "--json",
					     "--begin", z1, "--end", z2), NULL, NULL, &by_z), 0,
		     "%s", by_z.err);
	cr_assert_eq(replay_status_of(H_ARGS(h_diskio_path(), "--replay", dir, "--json",
					     "--begin", local1, "--end", local2), berlin, NULL,
				      &by_local), 0, "%s..%s: %s", local1, local2, by_local.err);
	cr_assert_str_eq(by_local.out, by_z.out, "%s..%s as %s..%s", local1, local2, z1, z2);
	cr_assert_eq(interval_lines(lines, split_lines(by_local.out, lines, 64), again, 8), 2);
	cr_assert_str_eq(again[0], live[1]);
	cr_assert_str_eq(again[1], live[2]);
	h_result_free(&by_local);
	h_result_free(&by_z);
	h_result_free(&rec);
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
