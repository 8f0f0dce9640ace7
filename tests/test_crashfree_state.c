// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of outputs/crashfree_state.c, the crash-free tracker's state
 * file: round trips, the format as written, what loading refuses, what it
 * moves aside and the line it writes each time. The counting rules are
 * tested in test_crashfree.c.
 */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "crashfree.h"
#include "crashfree_state.h"
#include "crashfree_check.h"

/* A state file's first bytes: "diskio-crashfree" and a space or a newline. */
#define MAGIC_BYTES 17

/* ---- helpers ---- */

static void expect_fresh(const struct crashfree *cf, uint64_t interval_ns, uint64_t now_ns)
{
	cr_assert_eq(cf->interval_ns, interval_ns);
	cr_assert_eq(cf->operational_mark_ns, now_ns);
	cr_assert_eq(cf->crashfree_mark_ns, now_ns);
	cr_assert_eq(cf->operational_intervals, 0);
	cr_assert_eq(cf->crashfree_intervals, 0);
	cr_assert_eq(cf->crashes, 0);
	cr_assert_eq(cf->nprocesses, 0);
}

/* Temporary directory per test: Criterion runs tests in parallel processes. */
/* Sized so that no path built below can be cut. */
static char test_dir[64];
static char state_path[128];
static char tmp_path[192];
static char corrupt_path[192];

static int remove_entry(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	(void)st;
	(void)type;
	(void)ftw;
	return remove(path);
}

static void make_test_dir(void)
{
	strcpy(test_dir, "/tmp/diskio-crashfree-test-XXXXXX");
	cr_assert_not_null(mkdtemp(test_dir), "mkdtemp: %s", strerror(errno));
	snprintf(state_path, sizeof(state_path), "%s/crashfree.state", test_dir);
	snprintf(tmp_path, sizeof(tmp_path), "%s.tmp", state_path);
	snprintf(corrupt_path, sizeof(corrupt_path), "%s.corrupt", state_path);
}

static void remove_test_dir(void)
{
	if (test_dir[0])
		nftw(test_dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

static bool exists(const char *path)
{
	struct stat st;

	return lstat(path, &st) == 0;
}

/* Written as diskio's own file would be: mode 0600, whatever the umask. */
static void write_file(const char *path, const void *data, size_t len)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);

	cr_assert(fd >= 0, "open %s: %s", path, strerror(errno));
	cr_assert_eq(fchmod(fd, 0600), 0);
	cr_assert_eq(write(fd, data, len), (ssize_t)len);
	cr_assert_eq(close(fd), 0);
}

static char *read_whole_file(const char *path, size_t *len)
{
	FILE *in = fopen(path, "re");
	char *data = NULL;
	size_t size = 0;
	FILE *collect;
	char chunk[4096];
	size_t got;

	cr_assert_not_null(in, "fopen %s: %s", path, strerror(errno));
	collect = open_memstream(&data, &size);
	cr_assert_not_null(collect);
	while ((got = fread(chunk, 1, sizeof(chunk), in)) > 0)
		cr_assert_eq(fwrite(chunk, 1, got, collect), got);
	cr_assert_eq(ferror(in), 0);
	fclose(in);
	cr_assert_eq(fclose(collect), 0);
	*len = size;
	return data;
}

/* A warning stream the test can read back. */
struct captured {
	FILE *stream;
	char *text;
	size_t len;
};

static void capture_start(struct captured *captured)
{
	captured->text = NULL;
	captured->len = 0;
	captured->stream = open_memstream(&captured->text, &captured->len);
	cr_assert_not_null(captured->stream);
}

static void capture_stop(struct captured *captured)
{
	cr_assert_eq(fclose(captured->stream), 0);
	captured->stream = NULL;
}

static size_t count_lines(const char *text)
{
	size_t lines = 0;

	for (; *text; text++)
		lines += *text == '\n';
	return lines;
}

static void expect_one_diskio_line(const char *text)
{
	size_t len = strlen(text);

	cr_assert_eq(count_lines(text), 1, "expected one line, got: \"%s\"", text);
	cr_assert(len > 0 && text[len - 1] == '\n', "line not terminated: \"%s\"", text);
	cr_assert_eq(strncmp(text, "diskio: ", 8), 0, "no diskio: prefix: \"%s\"", text);
}

static bool starts_with(const char *text, const char *prefix)
{
	return strncmp(text, prefix, strlen(prefix)) == 0;
}

static bool ends_with(const char *text, const char *suffix)
{
	size_t text_len = strlen(text), suffix_len = strlen(suffix);

	return text_len >= suffix_len && !strcmp(text + text_len - suffix_len, suffix);
}

/*
 * Load a damaged file and check the whole contract: 2, a fresh tracker, one
 * warning line, the old bytes in PATH.corrupt and no PATH. Cleans up after.
 */
static void expect_damaged_bytes(const char *data, size_t len, const char *what)
{
	const uint64_t interval_ns = HOUR, now_ns = 5 * HOUR + 17;
	char expected_start[PATH_MAX + 64], expected_end[PATH_MAX + 64];
	struct captured warning;
	struct crashfree cf;
	size_t moved_len;
	char *moved;
	int rc;

	write_file(state_path, data, len);
	capture_start(&warning);
	memset(&cf, 0xa5, sizeof(cf));	/* load must not rely on cf's contents */
	rc = crashfree_load(&cf, state_path, interval_ns, now_ns, warning.stream);
	capture_stop(&warning);

	cr_assert_eq(rc, CRASHFREE_LOAD_DAMAGED, "%s: load returned %d", what, rc);
	expect_fresh(&cf, interval_ns, now_ns);
	expect_one_diskio_line(warning.text);
	snprintf(expected_start, sizeof(expected_start),
		 "diskio: warning: state file %s is damaged (", state_path);
	snprintf(expected_end, sizeof(expected_end),
		 "); moved aside to %s, starting fresh\n", corrupt_path);
	cr_assert(starts_with(warning.text, expected_start), "%s: %s", what, warning.text);
	cr_assert(ends_with(warning.text, expected_end), "%s: %s", what, warning.text);
	cr_assert_not(exists(state_path), "%s: damaged file left in place", what);
	cr_assert(exists(corrupt_path), "%s: no .corrupt file", what);

	moved = read_whole_file(corrupt_path, &moved_len);
	cr_assert_eq(moved_len, len, "%s: .corrupt has %zu bytes, expected %zu",
		     what, moved_len, len);
	cr_assert(len == 0 || !memcmp(moved, data, len), "%s: .corrupt content differs", what);

	free(moved);
	free(warning.text);
	crashfree_free(&cf);
	cr_assert_eq(unlink(corrupt_path), 0);
}

static void expect_damaged(const char *text)
{
	expect_damaged_bytes(text, strlen(text), text);
}

/* Assert that path holds exactly data and still has mode `mode`. */
static void expect_untouched(const char *path, const void *data, size_t len, mode_t mode,
			     const char *what)
{
	struct stat st;
	size_t now_len;
	char *now;

	cr_assert_eq(lstat(path, &st), 0, "%s: %s is gone: %s", what, path, strerror(errno));
	cr_assert(S_ISREG(st.st_mode), "%s: %s is no longer a regular file", what, path);
	cr_assert_eq(st.st_mode & 07777, mode, "%s: mode %04o, expected %04o", what,
		     (unsigned int)(st.st_mode & 07777), (unsigned int)mode);
	now = read_whole_file(path, &now_len);
	cr_assert_eq(now_len, len, "%s: %zu bytes now, %zu before", what, now_len, len);
	cr_assert(len == 0 || !memcmp(now, data, len), "%s: content changed", what);
	free(now);
}

/*
 * Load and check a refusal: rc, a fresh tracker, one "diskio: " line (not a
 * warning: diskio gives up) naming path and holding `mentions`, and no
 * .corrupt or .tmp made or removed. The caller checks what PATH is afterwards.
 */
static void expect_refused_at(const char *path, int expected_rc, const char *mentions,
			      const char *what)
{
	const uint64_t interval_ns = HOUR, now_ns = 7 * HOUR + 3;
	char corrupt[PATH_MAX + 16], tmp[PATH_MAX + 16];
	struct captured warning;
	struct crashfree cf;
	bool had_corrupt;
	int rc;

	snprintf(corrupt, sizeof(corrupt), "%s.corrupt", path);
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	had_corrupt = exists(corrupt);
	capture_start(&warning);
	memset(&cf, 0x3c, sizeof(cf));
	rc = crashfree_load(&cf, path, interval_ns, now_ns, warning.stream);
	capture_stop(&warning);

	cr_assert_eq(rc, expected_rc, "%s: load returned %d (%s), expected %d (%s)", what, rc,
		     rc < 0 ? strerror(-rc) : "not an error", expected_rc,
		     strerror(-expected_rc));
	expect_fresh(&cf, interval_ns, now_ns);
	expect_one_diskio_line(warning.text);
	cr_assert_not(starts_with(warning.text, "diskio: warning: "),
		      "%s: a refusal is an error, not a warning: %s", what, warning.text);
	cr_assert(strstr(warning.text, path), "%s: the line does not name %s: %s", what, path,
		  warning.text);
	cr_assert(strstr(warning.text, mentions), "%s: the line does not say \"%s\": %s", what,
		  mentions, warning.text);
	cr_assert_eq(exists(corrupt), had_corrupt, "%s: %s made or removed", what, corrupt);
	cr_assert_not(exists(tmp), "%s: %s made", what, tmp);
	free(warning.text);
	crashfree_free(&cf);
}

/* A file that is not a diskio state file: refused, left exactly as it was. */
static void expect_foreign_bytes(const char *data, size_t len, const char *what)
{
	write_file(state_path, data, len);
	expect_refused_at(state_path, -EBADMSG, "is not a diskio state file", what);
	expect_untouched(state_path, data, len, 0600, what);
	cr_assert_eq(unlink(state_path), 0);
}

static void expect_foreign(const char *text)
{
	expect_foreign_bytes(text, strlen(text), text);
}

static int load_quietly(struct crashfree *cf, uint64_t interval_ns, uint64_t now_ns)
{
	struct captured warning;
	int rc;

	capture_start(&warning);
	rc = crashfree_load(cf, state_path, interval_ns, now_ns, warning.stream);
	capture_stop(&warning);
	if (rc == 0)
		cr_assert_eq(warning.len, 0, "unexpected warning: %s", warning.text);
	free(warning.text);
	return rc;
}

/* ---- state file ---- */

TestSuite(state_file, .init = make_test_dir, .fini = remove_test_dir);

/* Names that need every kind of escape, at most 15 bytes each. */
static const char *const awkward_names[] = {
	"a b\tc\\d\x80\xff",
	" ",
	"",
	"\"quoted\"",
	"\x01\x1f\x7f\x20\xfe",
	"\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\",
	"x\\x41",
	"kworker/0:1",
	"\xe2\x82\xac-euro",
};

static void fill_awkward(struct crashfree *cf)
{
	size_t count = sizeof(awkward_names) / sizeof(awkward_names[0]);

	for (size_t i = 0; i < count; i++) {
		for (size_t j = 0; j <= i; j++)
			cr_assert_eq(crashfree_record_crash(cf, awkward_names[i], 0), 0);
	}
}

static void expect_same_processes(const struct crashfree *a, const struct crashfree *b)
{
	cr_assert_eq(a->nprocesses, b->nprocesses);
	for (size_t i = 0; i < a->nprocesses; i++) {
		cr_assert_eq(memcmp(a->by_process[i].comm, b->by_process[i].comm,
				    CRASHFREE_COMM_LEN), 0, "process %zu differs", i);
		cr_assert_eq(a->by_process[i].crashes, b->by_process[i].crashes);
	}
}

Test(state_file, round_trip)
{
	const uint64_t saved_at = 1000 * HOUR + 20 * MINUTE;
	const uint64_t loaded_at = 7 * SECOND + 40 * MINUTE;
	struct crashfree saved, loaded;

	crashfree_init(&saved, HOUR, 0);
	expect_counted(&saved, 997 * HOUR + 40 * MINUTE, 997, 997);
	cr_assert_eq(crashfree_record_crash(&saved, "first", 998 * HOUR), 0);
	fill_awkward(&saved);
	cr_assert_eq(crashfree_record_crash(&saved, "last", 999 * HOUR + 45 * MINUTE), 0);

	cr_assert_eq(crashfree_save(&saved, state_path, saved_at), 0);
	cr_assert_not(exists(tmp_path), "PATH.tmp left behind");

	cr_assert_eq(load_quietly(&loaded, HOUR, loaded_at), 0);
	cr_assert_eq(loaded.interval_ns, HOUR);
	cr_assert_eq(loaded.operational_intervals, 1000);
	cr_assert_eq(loaded.crashfree_intervals, 997);
	cr_assert_eq(loaded.crashes, 2 + 45);
	cr_assert_eq(loaded.crashes, saved.crashes);
	/* progress 20' and 35' restored against the new clock */
	cr_assert_eq(loaded.operational_mark_ns, loaded_at - 20 * MINUTE);
	cr_assert_eq(loaded.crashfree_mark_ns, loaded_at - 35 * MINUTE);
	expect_same_processes(&saved, &loaded);
	for (size_t i = 0; i < sizeof(awkward_names) / sizeof(awkward_names[0]); i++)
		cr_assert_eq(process_crashes(&loaded, awkward_names[i]), i + 1);
	cr_assert_eq(process_crashes(&loaded, "first"), 1);
	cr_assert_eq(process_crashes(&loaded, "last"), 1);

	crashfree_free(&saved);
	crashfree_free(&loaded);
}

Test(state_file, file_is_readable_text)
{
	struct crashfree cf;
	size_t len;
	char *text;

	crashfree_init(&cf, HOUR, 0);
	cr_assert_eq(crashfree_record_crash(&cf, "my daemon", 0), 0);
	cr_assert_eq(crashfree_record_crash(&cf, "", 0), 0);
	cr_assert_eq(crashfree_record_crash(&cf, "a\\b", 0), 0);
	cr_assert_eq(crashfree_save(&cf, state_path, 90 * MINUTE), 0);
	text = read_whole_file(state_path, &len);
	cr_assert_str_eq(text,
			 "diskio-crashfree 1\n"
			 "interval_ns=3600000000000\n"
			 "operational_intervals=1\n"
			 "crashfree_intervals=1\n"
			 "crashes=3\n"
			 "operational_progress_ns=1800000000000\n"
			 "crashfree_progress_ns=1800000000000\n"
			 "process \"\" 1\n"
			 "process a\\x5cb 1\n"
			 "process my\\x20daemon 1\n"
			 "end\n");
	/* save counts as an update would, but leaves cf alone */
	cr_assert_eq(cf.operational_intervals, 0);
	cr_assert_eq(cf.operational_mark_ns, 0);
	free(text);
	crashfree_free(&cf);
}

Test(state_file, ten_six_minute_runs_make_one_hour)
{
	/* arbitrary clocks at each start, some below the saved progress */
	const uint64_t starts[10] = {
		123456789 * SECOND, 5 * SECOND, 0, 77 * HOUR + 3, 1,
		40 * MINUTE, UINT64_C(1) << 62, 999, 12 * HOUR, 17 * MINUTE,
	};
	struct crashfree cf;

	for (int run = 0; run < 10; run++) {
		uint64_t start = starts[run], stop = start + 6 * MINUTE;
		int rc = load_quietly(&cf, HOUR, start);

		cr_assert_eq(rc, run == 0 ? CRASHFREE_LOAD_NO_FILE : 0, "run %d: %d", run, rc);
		cr_assert_eq(cf.operational_intervals, 0, "run %d", run);
		if (run == 9)
			expect_counted(&cf, stop, 1, 1);
		else
			expect_counted(&cf, stop, 0, 0);
		cr_assert_eq(crashfree_save(&cf, state_path, stop), 0);
		crashfree_free(&cf);
	}

	cr_assert_eq(load_quietly(&cf, HOUR, 42), 0);
	cr_assert_eq(cf.operational_intervals, 1);
	cr_assert_eq(cf.crashfree_intervals, 1);
	cr_assert_eq(cf.operational_mark_ns, 42, "no progress left after exactly 1 h");
	cr_assert_eq(cf.crashfree_mark_ns, 42);
	crashfree_free(&cf);
}

Test(state_file, progress_restored_before_the_clock_zero)
{
	struct crashfree cf;

	crashfree_init(&cf, HOUR, 0);
	cr_assert_eq(crashfree_save(&cf, state_path, 50 * MINUTE), 0);
	crashfree_free(&cf);

	/* diskio started 1 s after boot: 50' of progress must not be lost */
	cr_assert_eq(load_quietly(&cf, HOUR, SECOND), 0);
	expect_counted(&cf, SECOND + 9 * MINUTE, 0, 0);
	expect_counted(&cf, SECOND + 10 * MINUTE, 1, 1);
	cr_assert_eq(cf.operational_mark_ns, SECOND + 10 * MINUTE);
	crashfree_free(&cf);
}

Test(state_file, save_counts_whole_intervals_not_yet_updated)
{
	struct crashfree cf;

	crashfree_init(&cf, HOUR, 0);
	cr_assert_eq(crashfree_record_crash(&cf, "sh", 80 * MINUTE), 0);
	cr_assert_eq(crashfree_save(&cf, state_path, 150 * MINUTE), 0);
	crashfree_free(&cf);

	cr_assert_eq(load_quietly(&cf, HOUR, 10 * HOUR), 0);
	cr_assert_eq(cf.operational_intervals, 2);
	cr_assert_eq(cf.crashfree_intervals, 1);
	cr_assert_eq(cf.operational_mark_ns, 10 * HOUR - 30 * MINUTE);
	cr_assert_eq(cf.crashfree_mark_ns, 10 * HOUR - 10 * MINUTE);
	crashfree_free(&cf);
}

Test(state_file, save_with_clock_behind_the_marks)
{
	struct crashfree cf;

	crashfree_init(&cf, HOUR, 10 * HOUR);
	cr_assert_eq(crashfree_save(&cf, state_path, 3 * HOUR), 0);
	crashfree_free(&cf);
	cr_assert_eq(load_quietly(&cf, HOUR, 20 * HOUR), 0);
	cr_assert_eq(cf.operational_intervals, 0);
	cr_assert_eq(cf.operational_mark_ns, 20 * HOUR);
	cr_assert_eq(cf.crashfree_mark_ns, 20 * HOUR);
	crashfree_free(&cf);
}

/* A valid file the damage tests start from; checked to load below. */
static const char valid_state[] =
	"diskio-crashfree 1\n"
	"interval_ns=3600000000000\n"
	"operational_intervals=5\n"
	"crashfree_intervals=3\n"
	"crashes=4\n"
	"operational_progress_ns=600000000000\n"
	"crashfree_progress_ns=60000000000\n"
	"process a\\x20b 1\n"
	"process sh 3\n"
	"end\n";

Test(state_file, missing_file_starts_fresh)
{
	struct captured warning;
	struct crashfree cf;

	capture_start(&warning);
	memset(&cf, 0x5a, sizeof(cf));
	cr_assert_eq(crashfree_load(&cf, state_path, 30 * MINUTE, 99, warning.stream),
		     CRASHFREE_LOAD_NO_FILE);
	capture_stop(&warning);
	expect_fresh(&cf, 30 * MINUTE, 99);
	cr_assert_eq(warning.len, 0, "missing file is normal, no warning: %s", warning.text);
	cr_assert_not(exists(state_path));
	cr_assert_not(exists(corrupt_path));
	free(warning.text);
	crashfree_free(&cf);
}

Test(state_file, directory_refused)
{
	cr_assert_eq(mkdir(state_path, 0700), 0);
	expect_refused_at(state_path, -EISDIR, "is a directory", "a directory");
	cr_assert(exists(state_path));
}

/* The load is over within the test's timeout however a FIFO is reached. */
Test(state_file, fifo_refused_without_blocking, .timeout = 5)
{
	char link_path[192];
	struct timespec before, after;
	double seconds;

	cr_assert_eq(mkfifo(state_path, 0600), 0);
	snprintf(link_path, sizeof(link_path), "%s/link-to-fifo", test_dir);
	cr_assert_eq(symlink(state_path, link_path), 0);

	clock_gettime(CLOCK_MONOTONIC, &before);
	expect_refused_at(state_path, -EINVAL, "is a FIFO, not a regular file", "a FIFO");
	expect_refused_at(link_path, -ELOOP, "symbolic link", "a symlink to a FIFO");
	clock_gettime(CLOCK_MONOTONIC, &after);
	seconds = (double)(after.tv_sec - before.tv_sec) +
		  (double)(after.tv_nsec - before.tv_nsec) / 1e9;
	cr_assert_lt(seconds, 1.0, "refusing a FIFO took %.3f s", seconds);
}

/* Even a symlink to diskio's own valid file: nothing is read through it. */
Test(state_file, symlink_refused)
{
	char target[192];

	snprintf(target, sizeof(target), "%s/real.state", test_dir);
	write_file(target, valid_state, strlen(valid_state));
	cr_assert_eq(symlink(target, state_path), 0);
	expect_refused_at(state_path, -ELOOP, "is a symbolic link", "a symlink");
	expect_untouched(target, valid_state, strlen(valid_state), 0600, "the symlink's target");
	cr_assert_eq(unlink(state_path), 0);

	/* to a device node: not even opened */
	cr_assert_eq(symlink("/dev/null", state_path), 0);
	expect_refused_at(state_path, -ELOOP, "is a symbolic link", "a symlink to /dev/null");
}

Test(state_file, device_node_refused)
{
	if (geteuid() != 0)
		cr_skip_test("making a device node needs root");
	cr_assert_eq(mknod(state_path, S_IFCHR | 0600, makedev(1, 3)), 0, "mknod: %s",
		     strerror(errno));
	expect_refused_at(state_path, -EINVAL, "is a character device", "/dev/null's node");
}

/* A file another user could have written: its counts may be forged. */
Test(state_file, file_of_another_user_refused)
{
	struct stat st;

	if (geteuid() != 0)
		cr_skip_test("giving a file to another user needs root");
	write_file(state_path, valid_state, strlen(valid_state));
	cr_assert_eq(chown(state_path, 65534, 65534), 0, "chown: %s", strerror(errno));
	expect_refused_at(state_path, -EPERM, "belongs to uid 65534", "owned by 65534");
	expect_untouched(state_path, valid_state, strlen(valid_state), 0600, "owned by 65534");
	cr_assert_eq(stat(state_path, &st), 0);
	cr_assert_eq(st.st_uid, 65534);
}

Test(state_file, file_writable_by_group_or_others_refused)
{
	static const mode_t modes[] = { 0620, 0602, 0666, 0777, 0622 };
	struct crashfree cf;
	char what[32];

	for (size_t i = 0; i < sizeof(modes) / sizeof(modes[0]); i++) {
		snprintf(what, sizeof(what), "mode %04o", (unsigned int)modes[i]);
		write_file(state_path, valid_state, strlen(valid_state));
		cr_assert_eq(chmod(state_path, modes[i]), 0);
		expect_refused_at(state_path, -EPERM, "writable by", what);
		expect_untouched(state_path, valid_state, strlen(valid_state), modes[i], what);
	}
	/* Others may read it: counts are no secret. */
	cr_assert_eq(chmod(state_path, 0644), 0);
	cr_assert_eq(load_quietly(&cf, HOUR, 2 * HOUR), 0);
	cr_assert_eq(cf.crashes, 4);
	crashfree_free(&cf);
}

Test(state_file, missing_directory_refused)
{
	char path[PATH_MAX + 16], file_as_directory[PATH_MAX];

	snprintf(path, sizeof(path), "%s/no/such/dir/state", test_dir);
	expect_refused_at(path, -ENOENT, "does not exist", "a missing directory");
	snprintf(path, sizeof(path), "%s/no", test_dir);
	cr_assert_not(exists(path), "the missing directory was created");

	snprintf(file_as_directory, sizeof(file_as_directory), "%s/plain", test_dir);
	write_file(file_as_directory, "x\n", 2);
	snprintf(path, sizeof(path), "%s/state", file_as_directory);
	expect_refused_at(path, -ENOTDIR, "is not a directory", "a file as directory");
	expect_untouched(file_as_directory, "x\n", 2, 0600, "the file taken for a directory");
}

/* A directory the caller may not create files in: the saves would fail. */
Test(state_file, directory_without_write_permission_refused)
{
	pid_t child = fork();
	int status;

	cr_assert(child >= 0, "fork: %s", strerror(errno));
	if (child == 0) {
		struct crashfree cf;
		FILE *quiet = fopen("/dev/null", "we");
		int rc;

		/* root may write anywhere: drop to nobody, for whom / is read-only */
		if (geteuid() == 0 && (setgid(65534) || setuid(65534)))
			_exit(100);
		rc = crashfree_load(&cf, "/diskio-crashfree-test.state", HOUR, 1, quiet);
		_exit(rc == -EACCES ? 0 : 101);
	}
	cr_assert_eq(waitpid(child, &status, 0), child);
	cr_assert(WIFEXITED(status), "the child died");
	cr_assert_eq(WEXITSTATUS(status), 0, "%s",
		     WEXITSTATUS(status) == 100 ? "cannot become uid 65534"
						: "load did not refuse with -EACCES");
}

/* The mode of every save is 0600, whatever the umask and the old file's mode. */
Test(state_file, saved_file_mode_is_0600_under_any_umask)
{
	static const mode_t umasks[] = { 0, 077, 022, 0777 };
	struct crashfree cf;
	struct stat st;

	crashfree_init(&cf, HOUR, 0);
	for (size_t i = 0; i < sizeof(umasks) / sizeof(umasks[0]); i++) {
		mode_t old_umask = umask(umasks[i]);

		cr_assert_eq(crashfree_save(&cf, state_path, HOUR), 0);
		umask(old_umask);
		cr_assert_eq(stat(state_path, &st), 0);
		cr_assert_eq(st.st_mode & 07777, 0600, "umask %04o: saved with mode %04o",
			     (unsigned int)umasks[i], (unsigned int)(st.st_mode & 07777));
		cr_assert_eq(st.st_uid, geteuid());
		/* a wider mode set by hand is narrowed again by the next save */
		cr_assert_eq(chmod(state_path, 0644), 0);
	}
	crashfree_free(&cf);
}

Test(state_file, changed_interval_keeps_crashes_restarts_intervals)
{
	struct captured warning;
	struct crashfree cf;
	int rc;

	crashfree_init(&cf, HOUR, 0);
	cr_assert_eq(crashfree_record_crash(&cf, "sh", 0), 0);
	cr_assert_eq(crashfree_record_crash(&cf, "vi", 0), 0);
	cr_assert_eq(crashfree_save(&cf, state_path, 5 * HOUR + 20 * MINUTE), 0);
	crashfree_free(&cf);

	capture_start(&warning);
	rc = crashfree_load(&cf, state_path, 90 * SECOND, 7 * HOUR, warning.stream);
	capture_stop(&warning);
	cr_assert_eq(rc, 0);
	cr_assert_eq(cf.interval_ns, 90 * SECOND);
	cr_assert_eq(cf.operational_intervals, 0);
	cr_assert_eq(cf.crashfree_intervals, 0);
	cr_assert_eq(cf.operational_mark_ns, 7 * HOUR);
	cr_assert_eq(cf.crashfree_mark_ns, 7 * HOUR);
	cr_assert_eq(cf.crashes, 2);
	cr_assert_eq(process_crashes(&cf, "sh"), 1);
	cr_assert_eq(process_crashes(&cf, "vi"), 1);
	expect_one_diskio_line(warning.text);
	cr_assert(strstr(warning.text, "3600-second intervals, now 90"), "%s", warning.text);
	free(warning.text);
	crashfree_free(&cf);
}

Test(state_file, save_is_atomic_and_replaces)
{
	struct crashfree cf, loaded;
	size_t len;
	char *text;

	write_file(state_path, "old state\n", 10);
	write_file(tmp_path, "stale tmp from a crashed save", 29);

	crashfree_init(&cf, HOUR, 0);
	cr_assert_eq(crashfree_save(&cf, state_path, 3 * HOUR), 0);
	cr_assert_not(exists(tmp_path), "PATH.tmp left behind");
	text = read_whole_file(state_path, &len);
	cr_assert(starts_with(text, "diskio-crashfree 1\n"), "%s", text);
	free(text);
	cr_assert_eq(load_quietly(&loaded, HOUR, 0), 0);
	cr_assert_eq(loaded.operational_intervals, 3);
	crashfree_free(&loaded);
	crashfree_free(&cf);
}

Test(state_file, save_never_follows_a_planted_symlink)
{
	char victim[128];
	struct crashfree cf;
	size_t len;
	char *text;

	snprintf(victim, sizeof(victim), "%s/victim", test_dir);
	write_file(victim, "precious", 8);
	cr_assert_eq(symlink(victim, tmp_path), 0);

	crashfree_init(&cf, HOUR, 0);
	cr_assert_eq(crashfree_save(&cf, state_path, 0), 0);
	text = read_whole_file(victim, &len);
	cr_assert_eq(len, 8);
	cr_assert_eq(memcmp(text, "precious", 8), 0);
	free(text);
	cr_assert_not(exists(tmp_path));
	cr_assert(exists(state_path));
	crashfree_free(&cf);
}

Test(state_file, save_into_missing_directory_fails_cleanly)
{
	char path[128];
	struct crashfree cf;

	snprintf(path, sizeof(path), "%s/no/such/dir/state", test_dir);
	crashfree_init(&cf, HOUR, 0);
	cr_assert_eq(crashfree_save(&cf, path, 0), -ENOENT);
	crashfree_free(&cf);
}

/* valid_state with the first `from` replaced by `to`. */
static char *edited_state(const char *from, const char *to)
{
	const char *at = strstr(valid_state, from);
	size_t prefix, from_len = strlen(from), to_len = strlen(to);
	char *edited;

	cr_assert_not_null(at, "\"%s\" not in the valid state", from);
	prefix = (size_t)(at - valid_state);
	edited = malloc(sizeof(valid_state) - from_len + to_len);
	cr_assert_not_null(edited);
	memcpy(edited, valid_state, prefix);
	memcpy(edited + prefix, to, to_len);
	strcpy(edited + prefix + to_len, at + from_len);
	return edited;
}

static void expect_edit_damages(const char *from, const char *to)
{
	char *edited = edited_state(from, to);

	expect_damaged(edited);
	free(edited);
}

Test(state_file, reference_file_loads)
{
	struct crashfree cf;

	write_file(state_path, valid_state, strlen(valid_state));
	cr_assert_eq(load_quietly(&cf, HOUR, 2 * HOUR), 0);
	cr_assert_eq(cf.operational_intervals, 5);
	cr_assert_eq(cf.crashfree_intervals, 3);
	cr_assert_eq(cf.crashes, 4);
	cr_assert_eq(cf.operational_mark_ns, 2 * HOUR - 10 * MINUTE);
	cr_assert_eq(cf.crashfree_mark_ns, 2 * HOUR - MINUTE);
	cr_assert_eq(process_crashes(&cf, "a b"), 1);
	cr_assert_eq(process_crashes(&cf, "sh"), 3);
	crashfree_free(&cf);
}

Test(state_file, keys_in_any_order_load)
{
	static const char reordered[] =
		"diskio-crashfree 1\n"
		"process sh 3\n"
		"crashfree_progress_ns=60000000000\n"
		"crashes=4\n"
		"operational_intervals=5\n"
		"process a\\x20b 1\n"
		"operational_progress_ns=600000000000\n"
		"crashfree_intervals=3\n"
		"interval_ns=3600000000000\n"
		"end\n";
	struct crashfree cf;

	write_file(state_path, reordered, strlen(reordered));
	cr_assert_eq(load_quietly(&cf, HOUR, HOUR), 0);
	cr_assert_eq(cf.operational_intervals, 5);
	cr_assert_eq(cf.crashfree_intervals, 3);
	cr_assert_eq(cf.nprocesses, 2);
	cr_assert_str_eq(cf.by_process[0].comm, "a b");
	crashfree_free(&cf);
}

/* Nothing says an empty file is diskio's: it may be any empty file. */
Test(state_file, empty_file_is_foreign)
{
	expect_foreign("");
}

/* Cut before the magic's end, nothing shows it is diskio's; after, it is damaged. */
Test(state_file, truncated_at_every_byte)
{
	char what[64];

	for (size_t len = 0; len < strlen(valid_state); len++) {
		snprintf(what, sizeof(what), "truncated to %zu bytes", len);
		if (len < MAGIC_BYTES)
			expect_foreign_bytes(valid_state, len, what);
		else
			expect_damaged_bytes(valid_state, len, what);
	}
}

Test(state_file, wrong_version)
{
	expect_edit_damages("diskio-crashfree 1\n", "diskio-crashfree 2\n");
	expect_edit_damages("diskio-crashfree 1\n", "diskio-crashfree 0\n");
	expect_edit_damages("diskio-crashfree 1\n", "diskio-crashfree 1 \n");
	expect_edit_damages("diskio-crashfree 1\n", "diskio-crashfree\n");
}

/* Without its header line the rest of a state file is anybody's text. */
Test(state_file, headerless_state_is_foreign)
{
	expect_foreign(valid_state + strlen("diskio-crashfree 1\n"));
}

Test(state_file, foreign_file_refused_and_untouched)
{
	expect_foreign("root:x:0:0:root:/root:/bin/bash\n"
		       "daemon:x:1:1:daemon:/usr/sbin:/usr/sbin/nologin\n");
	expect_foreign("{\"interval_ns\": 3600000000000}\n");
	expect_foreign("\x7f" "ELF\x02\x01\x01");
	expect_foreign("x\n");
	expect_foreign("diskio-crashfreeX 1\n");
	expect_foreign("diskio-crashfree");
	expect_foreign("Diskio-crashfree 1\n");
	expect_foreign(" diskio-crashfree 1\n");
}

Test(state_file, huge_numbers)
{
	static const char *const numbers[] = {
		"18446744073709551616", "99999999999999999999999",
		"184467440737095516160",
	};
	static const char *const fields[] = {
		"interval_ns=3600000000000", "operational_intervals=5",
		"crashfree_intervals=3", "crashes=4",
		"operational_progress_ns=600000000000",
		"crashfree_progress_ns=60000000000", "process sh 3",
	};
	char replacement[128];

	for (size_t f = 0; f < sizeof(fields) / sizeof(fields[0]); f++) {
		for (size_t n = 0; n < sizeof(numbers) / sizeof(numbers[0]); n++) {
			const char *separator = strchr(fields[f], '=');
			size_t keep = separator ? (size_t)(separator - fields[f]) + 1
						: strlen("process sh ");

			snprintf(replacement, sizeof(replacement), "%.*s%s",
				 (int)keep, fields[f], numbers[n]);
			expect_edit_damages(fields[f], replacement);
		}
	}
}

static void write_numbers(uint64_t interval, uint64_t operational, uint64_t crashfree,
			  uint64_t operational_progress, uint64_t crashfree_progress)
{
	char text[512];

	snprintf(text, sizeof(text),
		 "diskio-crashfree 1\ninterval_ns=%" PRIu64 "\noperational_intervals=%" PRIu64
		 "\ncrashfree_intervals=%" PRIu64 "\ncrashes=1\noperational_progress_ns=%" PRIu64
		 "\ncrashfree_progress_ns=%" PRIu64 "\nprocess sh 1\nend\n",
		 interval, operational, crashfree, operational_progress, crashfree_progress);
	write_file(state_path, text, strlen(text));
}

static void expect_numbers_load(uint64_t interval, uint64_t operational, uint64_t crashfree,
				uint64_t operational_progress, uint64_t crashfree_progress)
{
	struct crashfree cf;

	write_numbers(interval, operational, crashfree, operational_progress,
		      crashfree_progress);
	cr_assert_eq(load_quietly(&cf, interval, 0), 0);
	cr_assert_eq(cf.operational_intervals, operational);
	cr_assert_eq(cf.crashfree_intervals, crashfree);
	crashfree_free(&cf);
	cr_assert_eq(unlink(state_path), 0);
}

static void expect_numbers_damage(uint64_t interval, uint64_t operational, uint64_t crashfree,
				  uint64_t operational_progress, uint64_t crashfree_progress)
{
	size_t len;
	char *text;

	write_numbers(interval, operational, crashfree, operational_progress,
		      crashfree_progress);
	text = read_whole_file(state_path, &len);
	expect_damaged(text);
	free(text);
}

Test(state_file, numbers_that_cannot_be)
{
	const uint64_t i = HOUR;

	/* each rejected case next to the last accepted one */
	expect_numbers_damage(0, 0, 0, 0, 0);
	expect_numbers_load(1, 7, 7, 0, 0);
	expect_numbers_damage(UINT64_C(1) << 63, 0, 0, 0, 0);
	expect_numbers_load((UINT64_C(1) << 63) - 1, 1, 1, 0, 0);
	/* progress not below the interval */
	expect_numbers_damage(i, 5, 3, i, 0);
	expect_numbers_damage(i, 5, 3, 0, i);
	expect_numbers_load(i, 5, 3, i - 1, i - 1);
	/* more crash-free than operational intervals */
	expect_numbers_damage(i, 5, 6, 0, 0);
	expect_numbers_load(i, 5, 5, 0, 0);
	/* as many intervals, but more crash-free than operational time */
	expect_numbers_damage(i, 5, 5, 10 * MINUTE, 10 * MINUTE + 1);
	expect_numbers_load(i, 5, 5, 10 * MINUTE, 10 * MINUTE);
	expect_numbers_load(i, 5, 4, 0, i - 1);
	/* operational time beyond 2^64 ns (584 years) */
	expect_numbers_damage(i, UINT64_C(5124096), 0, 0, 0);
	expect_numbers_damage(i, UINT64_C(5124095), 0, 59 * MINUTE, 0);
	expect_numbers_load(i, UINT64_C(5124095), UINT64_C(5124095), 0, 0);
	expect_numbers_damage(2, UINT64_C(1) << 63, 0, 0, 0);
	expect_numbers_load(2, (UINT64_C(1) << 63) - 1, (UINT64_C(1) << 63) - 1, 1, 1);
	expect_numbers_load(1, UINT64_MAX, UINT64_MAX, 0, 0);

	/* per-process counts do not add up, or a process without crashes */
	expect_edit_damages("crashes=4", "crashes=5");
	expect_edit_damages("crashes=4", "crashes=3");
	expect_edit_damages("process sh 3", "process sh 0");
	expect_edit_damages("process sh 3\n", "process sh 3\nprocess zz 0\n");
	expect_edit_damages("process sh 3", "process sh 18446744073709551615");
}

Test(state_file, numbers_not_plain_decimal)
{
	static const char *const spellings[] = {
		"-4", "+4", " 4", "4 ", "04", "0x4", "4e0", "", "4.0", "٤", "4\t",
	};
	char replacement[64];

	for (size_t i = 0; i < sizeof(spellings) / sizeof(spellings[0]); i++) {
		snprintf(replacement, sizeof(replacement), "crashes=%s\n", spellings[i]);
		expect_edit_damages("crashes=4\n", replacement);
	}
	expect_edit_damages("process sh 3", "process sh -3");
	expect_edit_damages("process sh 3", "process sh 03");
	expect_edit_damages("process sh 3", "process sh  3");
}

Test(state_file, keys_missing_duplicate_or_unknown)
{
	static const char *const lines[] = {
		"interval_ns=3600000000000\n", "operational_intervals=5\n",
		"crashfree_intervals=3\n", "crashes=4\n",
		"operational_progress_ns=600000000000\n",
		"crashfree_progress_ns=60000000000\n",
	};
	char doubled[128];

	for (size_t i = 0; i < sizeof(lines) / sizeof(lines[0]); i++) {
		expect_edit_damages(lines[i], "");
		snprintf(doubled, sizeof(doubled), "%s%s", lines[i], lines[i]);
		expect_edit_damages(lines[i], doubled);
	}
	expect_edit_damages("crashes=4\n", "crashes=4\nfuture_key=1\n");
	expect_edit_damages("crashes=4\n", "crashes=4\n=4\n");
	expect_edit_damages("crashes=4\n", "crashes=4\nCrashes=4\n");
	expect_edit_damages("crashes=4\n", "crashes 4\n");
	expect_edit_damages("crashes=4\n", "crashes=4\n\n");
	expect_edit_damages("crashes=4\n", "crashes=4\ndiskio-crashfree 1\n");
}

Test(state_file, trailing_garbage)
{
	expect_edit_damages("end\n", "end\nx");
	expect_edit_damages("end\n", "end\n\n");
	expect_edit_damages("end\n", "end\nend\n");
	expect_edit_damages("end\n", "end \n");
	expect_edit_damages("end\n", "END\n");
	expect_edit_damages("end\n", "end\r\n");
	expect_edit_damages("end\n", "");
}

Test(state_file, windows_line_endings)
{
	expect_edit_damages("crashes=4\n", "crashes=4\r\n");
	expect_edit_damages("diskio-crashfree 1\n", "diskio-crashfree 1\r\n");
}

Test(state_file, bad_process_lines)
{
	static const char *const lines[] = {
		"process sh\n", "process  3\n", "process sh 3 \n", "process sh 3 3\n",
		"process s\\h 3\n", "process sh\\ 3\n", "process sh\\x 3\n",
		"process sh\\x6 3\n", "process sh\\xZZ 3\n", "process sh\\x6G 3\n",
		"process sh\\x2A 3\n",	/* upper-case hex */
		"process s\\x68 3\n",	/* needless: 'h' is plain */
		"process sh\\x5c 3\nprocess sh\\\\ 3\n",	/* one name, both spellings */
		"process sh\\x00 3\n",	/* NUL cannot be in a comm */
		"process s\"h 3\n", "process \"\"\"\" 3\n", "process \"x\" 3\n",
		"process 0123456789abcdef 3\n",
		"process 0123456789abcde\\x20 3\n",
		"process a\\x20b 3\n",	/* duplicate of the first process */
		"process sh 3\nprocess sh 3\n",
		"process\tsh 3\n", "processsh 3\n", "Process sh 3\n",
	};

	for (size_t i = 0; i < sizeof(lines) / sizeof(lines[0]); i++)
		expect_edit_damages("process sh 3\n", lines[i]);
}

/* The backslash is \x5c by lib/escape.h's one rule; files of diskio before
 * it spelled it \\, and still load. */
Test(state_file, a_backslash_loads_in_either_spelling)
{
	static const char *const spellings[] = { "process sh\\x5c 3\n", "process sh\\\\ 3\n" };

	for (size_t i = 0; i < 2; i++) {
		char *edited = edited_state("process sh 3\n", spellings[i]);
		struct crashfree cf;

		write_file(state_path, edited, strlen(edited));
		cr_assert_eq(load_quietly(&cf, HOUR, 2 * HOUR), 0, "%s", spellings[i]);
		cr_assert_eq(process_crashes(&cf, "sh\\"), 3, "%s", spellings[i]);
		crashfree_free(&cf);
		free(edited);
	}
}

Test(state_file, raw_bytes_in_process_names)
{
	static const char raw[] = { '\t', '\x01', '\x7f', '\x80', '\xff', '\r' };
	char line[32];

	for (size_t i = 0; i < sizeof(raw); i++) {
		snprintf(line, sizeof(line), "process s%ch 3\n", raw[i]);
		expect_edit_damages("process sh 3\n", line);
	}
}

Test(state_file, line_too_long)
{
	char *line = malloc(4096);

	cr_assert_not_null(line);
	strcpy(line, "process ");
	memset(line + 8, 'a', 3000);
	strcpy(line + 3008, " 3\n");
	expect_edit_damages("process sh 3\n", line);
	free(line);
}

Test(state_file, garbage_bytes)
{
	static const unsigned char garbage[] = {
		0xde, 0xad, 0xbe, 0xef, 0x00, 0xff, 0x0a, 0x80, 0x0a, 0x0a, 0x1b, 0x5b,
	};
	unsigned char random_bytes[2048];
	uint32_t state = 2463534242u;

	char *after_header = malloc(MAGIC_BYTES + sizeof(random_bytes));

	expect_foreign_bytes((const char *)garbage, sizeof(garbage), "garbage");
	for (size_t i = 0; i < sizeof(random_bytes); i++) {
		state ^= state << 13;
		state ^= state >> 17;
		state ^= state << 5;
		random_bytes[i] = (unsigned char)state;
	}
	expect_foreign_bytes((const char *)random_bytes, sizeof(random_bytes), "random");

	/* The same bytes after a state file's start: damaged, moved aside. */
	cr_assert_not_null(after_header);
	memcpy(after_header, valid_state, MAGIC_BYTES);
	memcpy(after_header + MAGIC_BYTES, random_bytes, sizeof(random_bytes));
	expect_damaged_bytes(after_header, MAGIC_BYTES + sizeof(random_bytes),
			     "random after the magic");
	free(after_header);
}

Test(state_file, nul_inside)
{
	char copy[sizeof(valid_state)];
	char what[64];

	/* NUL in place of each byte of the file in turn */
	for (size_t at = 0; at < strlen(valid_state); at++) {
		memcpy(copy, valid_state, sizeof(valid_state));
		copy[at] = '\0';
		snprintf(what, sizeof(what), "NUL at %zu", at);
		if (at < MAGIC_BYTES)
			expect_foreign_bytes(copy, strlen(valid_state), what);
		else
			expect_damaged_bytes(copy, strlen(valid_state), what);
	}
	/* NUL added after the end line */
	memcpy(copy, valid_state, sizeof(valid_state));
	expect_damaged_bytes(copy, sizeof(valid_state), "NUL after end");
}

/* A name already taken, even by a directory, is skipped, never replaced. */
Test(state_file, damaged_file_skips_taken_corrupt_names)
{
	static const char damaged[] = "diskio-crashfree 1\ngarbage\n";
	char second[PATH_MAX], expected_end[PATH_MAX + 64];
	struct captured warning;
	struct crashfree cf;
	size_t len;
	char *moved;
	int rc;

	snprintf(second, sizeof(second), "%s.1", corrupt_path);
	write_file(state_path, damaged, strlen(damaged));
	cr_assert_eq(mkdir(corrupt_path, 0700), 0);
	capture_start(&warning);
	rc = crashfree_load(&cf, state_path, HOUR, 3, warning.stream);
	capture_stop(&warning);
	cr_assert_eq(rc, CRASHFREE_LOAD_DAMAGED);
	expect_fresh(&cf, HOUR, 3);
	expect_one_diskio_line(warning.text);
	snprintf(expected_end, sizeof(expected_end), "; moved aside to %s, starting fresh\n",
		 second);
	cr_assert(ends_with(warning.text, expected_end), "not moved to %s: %s", second,
		  warning.text);
	cr_assert_not(exists(state_path));
	moved = read_whole_file(second, &len);
	cr_assert_eq(len, strlen(damaged));
	cr_assert_eq(memcmp(moved, damaged, len), 0);
	free(moved);
	free(warning.text);
	crashfree_free(&cf);
}

/* Two damaged files in a row: the second never replaces the first's copy. */
Test(state_file, damaged_twice_both_kept)
{
	static const char first[] = "diskio-crashfree 1\ncrashes=banana\n";
	static const char second[] = "diskio-crashfree 7\nend\n";
	static const char third[] = "diskio-crashfree 1\n";
	const char *const contents[] = { first, second, third };
	char names[3][PATH_MAX];
	struct captured warning;
	struct crashfree cf;

	snprintf(names[0], sizeof(names[0]), "%s", corrupt_path);
	snprintf(names[1], sizeof(names[1]), "%s.1", corrupt_path);
	snprintf(names[2], sizeof(names[2]), "%s.2", corrupt_path);
	for (size_t i = 0; i < 3; i++) {
		char expected_end[PATH_MAX + 64];

		write_file(state_path, contents[i], strlen(contents[i]));
		capture_start(&warning);
		cr_assert_eq(crashfree_load(&cf, state_path, HOUR, 3, warning.stream),
			     CRASHFREE_LOAD_DAMAGED, "damaged file %zu", i + 1);
		capture_stop(&warning);
		expect_one_diskio_line(warning.text);
		snprintf(expected_end, sizeof(expected_end),
			 "; moved aside to %s, starting fresh\n", names[i]);
		cr_assert(ends_with(warning.text, expected_end), "damaged file %zu: %s", i + 1,
			  warning.text);
		cr_assert_not(exists(state_path));
		free(warning.text);
		crashfree_free(&cf);
	}
	for (size_t i = 0; i < 3; i++)
		expect_untouched(names[i], contents[i], strlen(contents[i]), 0600, names[i]);
}

/* With every name taken, the damaged file stays where it is and load refuses. */
Test(state_file, damaged_file_kept_when_every_corrupt_name_is_taken)
{
	static const char damaged[] = "diskio-crashfree 1\ncrashes=1\n";
	char name[PATH_MAX];

	write_file(corrupt_path, "oldest", 6);
	for (unsigned int i = 1; i < 1000; i++) {
		snprintf(name, sizeof(name), "%s.%u", corrupt_path, i);
		write_file(name, "old", 3);
	}
	write_file(state_path, damaged, strlen(damaged));
	expect_refused_at(state_path, -EEXIST, "all exist", "every .corrupt name taken");
	expect_untouched(state_path, damaged, strlen(damaged), 0600, "the damaged file");
	expect_untouched(corrupt_path, "oldest", 6, 0600, "the oldest copy");
	snprintf(name, sizeof(name), "%s.999", corrupt_path);
	expect_untouched(name, "old", 3, 0600, "the last copy");
	snprintf(name, sizeof(name), "%s.1000", corrupt_path);
	cr_assert_not(exists(name));
}

Test(state_file, no_warning_stream_needed)
{
	struct crashfree cf;

	write_file(state_path, "diskio-crashfree 1\ngarbage\n", 27);
	cr_assert_eq(crashfree_load(&cf, state_path, HOUR, 1, NULL), CRASHFREE_LOAD_DAMAGED);
	expect_fresh(&cf, HOUR, 1);
	cr_assert(exists(corrupt_path));
	crashfree_free(&cf);
}

Test(state_file, thousands_of_processes_round_trip)
{
	struct crashfree saved, loaded;
	char name[CRASHFREE_COMM_LEN];

	crashfree_init(&saved, HOUR, 0);
	for (unsigned int i = 0; i < 5000; i++) {
		unsigned int k = (i * 7919) % 5000;

		/* every byte value shows up somewhere in a name */
		snprintf(name, sizeof(name), "%c%c %u", (char)(k % 255 + 1), (char)(k / 255 + 1), k);
		cr_assert_eq(crashfree_record_crash(&saved, name, i), 0);
	}
	cr_assert_eq(saved.nprocesses, 5000);
	cr_assert_eq(crashfree_save(&saved, state_path, 2 * HOUR), 0);
	cr_assert_eq(load_quietly(&loaded, HOUR, 2 * HOUR), 0);
	expect_same_processes(&saved, &loaded);
	cr_assert_eq(loaded.crashes, 5000);
	crashfree_free(&saved);
	crashfree_free(&loaded);
}

/* Single-byte edits anywhere: load either accepts or moves aside, never crashes. */
Test(state_file, every_single_byte_edit)
{
	static const char replacements[] = { '0', '9', ' ', '\n', '=', '\\', 'x', '\x80' };
	char copy[sizeof(valid_state)];
	struct captured warning;
	struct crashfree cf;
	size_t accepted = 0;
	int rc;

	for (size_t at = 0; at < strlen(valid_state); at++) {
		for (size_t r = 0; r < sizeof(replacements); r++) {
			if (valid_state[at] == replacements[r])
				continue;
			memcpy(copy, valid_state, sizeof(valid_state));
			copy[at] = replacements[r];
			write_file(state_path, copy, strlen(valid_state));
			capture_start(&warning);
			rc = crashfree_load(&cf, state_path, HOUR, HOUR, warning.stream);
			capture_stop(&warning);
			cr_assert(rc == 0 || rc == CRASHFREE_LOAD_DAMAGED ||
				  (rc == -EBADMSG && at < MAGIC_BYTES),
				  "byte %zu -> 0x%02x: %d", at, (unsigned char)replacements[r], rc);
			if (rc == -EBADMSG) {
				expect_one_diskio_line(warning.text);
				expect_fresh(&cf, HOUR, HOUR);
				expect_untouched(state_path, copy, strlen(valid_state), 0600,
						 "an edited magic");
				cr_assert_not(exists(corrupt_path));
				cr_assert_eq(unlink(state_path), 0);
			} else if (rc == 0) {
				uint64_t sum = 0;

				accepted++;
				/* an edited interval_ns is a changed interval: one note */
				cr_assert(warning.len == 0 ||
					  (count_lines(warning.text) == 1 &&
					   starts_with(warning.text, "diskio: note: ")),
					  "%s", warning.text);
				cr_assert_leq(cf.crashfree_intervals, cf.operational_intervals);
				cr_assert_lt(HOUR - cf.operational_mark_ns, cf.interval_ns);
				for (size_t i = 0; i < cf.nprocesses; i++)
					sum += cf.by_process[i].crashes;
				cr_assert_eq(sum, cf.crashes);
				unlink(state_path);
			} else {
				expect_one_diskio_line(warning.text);
				expect_fresh(&cf, HOUR, HOUR);
				cr_assert_eq(unlink(corrupt_path), 0);
			}
			free(warning.text);
			crashfree_free(&cf);
		}
	}
	/* e.g. "operational_intervals=9": the test would prove nothing if none were */
	cr_assert_gt(accepted, 0);
}

/*
 * Random updates, crashes, clock jumps, saves and loads: the tracker never
 * produces a file it then rejects, and a save then load at the same instant
 * reproduces what an update at that instant leaves.
 */
Test(state_file, random_histories_round_trip)
{
	static const char *const names[] = { "sh", "a b", "", "\\", "\xff\x01" };
	const uint64_t interval = 10 * MINUTE;
	uint64_t random_state = 0x9e3779b97f4a7c15u, now = 3 * HOUR;
	struct crashfree cf, loaded;

	crashfree_init(&cf, interval, now);
	for (int step = 0; step < 3000; step++) {
		uint64_t choice;

		random_state ^= random_state << 13;
		random_state ^= random_state >> 7;
		random_state ^= random_state << 17;
		choice = random_state % 100;

		if (choice < 50) {
			now += (random_state >> 8) % (3 * interval);
		} else if (choice < 55) {
			now -= (random_state >> 8) % (2 * interval);	/* may wrap below 0 */
		} else if (choice < 80) {
			uint64_t at = now - interval + (random_state >> 8) % (interval + MINUTE);

			cr_assert_eq(crashfree_record_crash(&cf, names[(random_state >> 40) % 5],
							    at), 0);
		} else if (choice < 97) {
			crashfree_update(&cf, now);
			cr_assert_leq(cf.crashfree_intervals, cf.operational_intervals,
				      "step %d", step);
		} else {
			cr_assert_eq(crashfree_save(&cf, state_path, now), 0);
			cr_assert_eq(load_quietly(&loaded, interval, now), 0, "step %d", step);
			crashfree_update(&cf, now);
			cr_assert_eq(loaded.operational_intervals, cf.operational_intervals);
			cr_assert_eq(loaded.crashfree_intervals, cf.crashfree_intervals);
			cr_assert_eq(loaded.operational_mark_ns, cf.operational_mark_ns);
			cr_assert_eq(loaded.crashfree_mark_ns, cf.crashfree_mark_ns);
			cr_assert_eq(loaded.crashes, cf.crashes);
			expect_same_processes(&cf, &loaded);
			/* carry on from the loaded copy, as a restarted diskio would */
			crashfree_free(&cf);
			cf = loaded;
		}
	}
	cr_assert_gt(cf.crashes, 0);
	cr_assert_gt(cf.crashfree_intervals, 0);
	crashfree_free(&cf);
}
