// SPDX-License-Identifier: GPL-2.0
/*
 * A record root can trust (issue 43): --record as root never writes through
 * a place another user controls.  The attack as a user would make it (a
 * directory of nobody's holding today's day file with the magic and its
 * index as a symlink to a file of root's), and its variants (a .dkr
 * symlink, a short file of root's, a hard link, a directory writable by
 * others or sticky, a regular file given as the directory): each exits 2
 * with one "diskio:" line, prints nothing on stdout, and leaves root's file
 * as it was.  A missing directory is made 0700 with its parents and its
 * files are 0600.  Two recorders: the second exits 5 naming the first's
 * pid, and the first's record replays every interval it printed.  A quiet
 * service records --files.
 */
#include "harness.h"
#include <sys/sysmacros.h>

#define NOBODY		65534
#define PRECIOUS	"precious\n"

TestSuite(record_safety, .init = h_setup, .fini = h_teardown, .timeout = 120);

static char base[64];		/* removed by each test */

static void make_base(void)
{
	snprintf(base, sizeof(base), "/tmp/diskio-itest-record-XXXXXX");
	cr_assert_not_null(mkdtemp(base));
}

static const char *at(const char *relative)
{
	static char paths[4][256];
	static int next;
	char *p = paths[next++ % 4];

	snprintf(p, 256, "%s/%s", base, relative);
	return p;
}

/* today's day file's name (UTC, as --record names them) with suffix */
static const char *today(const char *suffix)
{
	static char name[32];
	time_t now = time(NULL);
	struct tm tm;

	gmtime_r(&now, &tm);
	strftime(name, sizeof(name), "%Y-%m-%d", &tm);
	strcat(name, suffix);
	return name;
}

/* A new file of root's, 0600, holding text. */
static void create_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);

	cr_assert_geq(fd, 0, "%s: %s", path, strerror(errno));
	cr_assert_eq(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
}

/* A file of root's, 0600, holding PRECIOUS: what must not change. */
static void make_victim(const char *path)
{
	create_file(path, PRECIOUS);
}

static void expect_victim(const char *path)
{
	char buf[64];
	struct stat st;

	cr_assert_eq(lstat(path, &st), 0, "%s", path);
	cr_assert_eq(st.st_uid, 0);
	cr_assert_eq(st.st_mode & 07777, 0600, "%s: mode %o", path, st.st_mode & 07777);
	cr_assert_eq(h_read_file(path, buf, sizeof(buf)), (ssize_t)strlen(PRECIOUS));
	cr_assert_str_eq(buf, PRECIOUS, "%s was written", path);
}

/* diskio --record dir, one short run: its result. */
static void record(const char *dir, struct h_result *r)
{
	h_run(H_ARGS(h_diskio_path(), "-q", "--record", dir, "0.2", "2"), NULL, NULL, 30000, r);
}

/* Refused: exit 2, one "diskio:" line saying needle, nothing on stdout. */
static void expect_refused(const char *dir, const char *needle)
{
	struct h_result r;

	record(dir, &r);
	h_drop_notes(r.err);
	cr_assert(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 2,
		  "--record %s: status %d, stderr: %s", dir, r.status, r.err);
	cr_assert_eq(r.out_len, 0, "stdout: %s", r.out);
	cr_assert(!strncmp(r.err, "diskio: ", 8), "%s", r.err);
	cr_assert_not_null(strstr(r.err, needle), "stderr says %s: %s", needle, r.err);
	cr_assert_eq(strchr(r.err, '\n') - r.err + 1, (long)strlen(r.err), "one line: %s", r.err);
	h_result_free(&r);
}

Test(record_safety, the_attack_of_a_user_who_owns_the_directory)
{
	char dkr[256], dki[256];

	make_base();
	make_victim(at("victim"));
	cr_assert_eq(mkdir(at("rec"), 0755), 0);
	snprintf(dkr, sizeof(dkr), "%s/%s", at("rec"), today(".dkr"));
	snprintf(dki, sizeof(dki), "%s/%s", at("rec"), today(".dki"));
	create_file(dkr, "\211DKR\r\n\032\n");
	cr_assert_eq(symlink(at("victim"), dki), 0);
	cr_assert_eq(lchown(dkr, NOBODY, NOBODY), 0);
	cr_assert_eq(lchown(dki, NOBODY, NOBODY), 0);
	cr_assert_eq(chown(at("rec"), NOBODY, NOBODY), 0);
	expect_refused(at("rec"), "belongs to uid 65534");
	expect_victim(at("victim"));
	/* root's own directory, the user's planted files: each refused */
	cr_assert_eq(chown(at("rec"), 0, 0), 0);
	expect_refused(at("rec"), "belongs to uid 65534");
	cr_assert_eq(unlink(dkr), 0);
	expect_refused(at("rec"), "is a symlink");
	expect_victim(at("victim"));
	h_remove_tree(base);
}

Test(record_safety, a_day_file_that_is_a_symlink_a_hard_link_or_not_a_record)
{
	char dkr[256];

	make_base();
	make_victim(at("victim"));
	cr_assert_eq(mkdir(at("rec"), 0700), 0);
	snprintf(dkr, sizeof(dkr), "%s/%s", at("rec"), today(".dkr"));
	cr_assert_eq(symlink(at("victim"), dkr), 0);
	expect_refused(at("rec"), "is a symlink");
	expect_victim(at("victim"));
	cr_assert_eq(unlink(dkr), 0);
	cr_assert_eq(link(at("victim"), dkr), 0);
	expect_refused(at("rec"), "is a hard link");
	expect_victim(at("victim"));
	cr_assert_eq(unlink(dkr), 0);
	/* root's file, shorter than the magic and not its start */
	create_file(dkr, "abc");
	expect_refused(at("rec"), "not a record of diskio");
	cr_assert_eq(h_read_file(dkr, (char[8]){ 0 }, 8), 3, "left as it was");
	h_remove_tree(base);
}

Test(record_safety, a_directory_others_can_write_or_a_file_is_refused)
{
	make_base();
	cr_assert_eq(mkdir(at("open"), 0700), 0);
	cr_assert_eq(chmod(at("open"), 0777), 0);
	expect_refused(at("open"), "is writable by others (mode 0777)");
	cr_assert_eq(chmod(at("open"), 01777), 0);
	expect_refused(at("open"), "is writable by others (mode 1777)");
	cr_assert_eq(chmod(at("open"), 0770), 0);
	expect_refused(at("open"), "is writable by its group");
	cr_assert_eq(symlink(at("open"), at("link")), 0);
	cr_assert_eq(chmod(at("open"), 0700), 0);
	expect_refused(at("link"), "is a symlink");
	make_victim(at("file"));
	expect_refused(at("file"), "is not a directory");
	expect_victim(at("file"));
	h_remove_tree(base);
}

Test(record_safety, a_missing_directory_is_made_0700_and_its_files_0600)
{
	struct h_result r;
	struct dirent *e;
	struct stat st;
	int files = 0;
	DIR *d;

	make_base();
	record(at("a/b/rec"), &r);
	cr_assert_eq(r.status, 0, "%s", r.err);
	h_result_free(&r);
	for (const char *p = "a"; p; p = strcmp(p, "a") ? strcmp(p, "a/b") ? NULL : "a/b/rec" : "a/b") {
		cr_assert_eq(stat(at(p), &st), 0, "%s", p);
		cr_assert_eq(st.st_mode & 07777, 0700, "%s: %o", p, st.st_mode & 07777);
	}
	d = opendir(at("a/b/rec"));
	cr_assert_not_null(d);
	while ((e = readdir(d))) {
		char path[512];

		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", at("a/b/rec"), e->d_name);
		cr_assert_eq(lstat(path, &st), 0);
		cr_assert(S_ISREG(st.st_mode), "%s", path);
		cr_assert_eq(st.st_mode & 07777, 0600, "%s: %o", path, st.st_mode & 07777);
		files++;
	}
	closedir(d);
	cr_assert_eq(files, 3, "the day file, its index and the lock");
	h_remove_tree(base);
}

Test(record_safety, a_second_recorder_is_refused_and_the_first_is_whole)
{
	struct h_diskio first;
	struct h_result r;
	char pid[32];
	size_t live = 0, replayed = 0;

	make_base();
	h_diskio_start(&first, H_ARGS("--json", "--record", at("rec"), "0.3"), NULL);
	h_diskio_wait_attached(&first, H_ATTACH_TIMEOUT_MS);
	h_run(H_ARGS(h_diskio_path(), "--json", "--record", at("rec"), "0.3", "3"), NULL, NULL,
	      30000, &r);
	cr_assert(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 5, "status %d: %s", r.status,
		  r.err);
	cr_assert_eq(r.out_len, 0, "stdout: %s", r.out);
	snprintf(pid, sizeof(pid), "(pid %d)", (int)first.pid);
	cr_assert_not_null(strstr(r.err, pid), "names the first: %s", r.err);
	h_result_free(&r);
	h_diskio_finish(&first, 2);
	for (size_t i = 0; i < first.nlines; i++)
		live += h_json_is_interval(first.lines[i]);
	h_run(H_ARGS(h_diskio_path(), "--replay", at("rec"), "--json"), NULL, NULL, 30000, &r);
	cr_assert_eq(r.status, 0, "%s", r.err);
	for (char *line = strtok(r.out, "\n"); line; line = strtok(NULL, "\n"))
		replayed += h_json_is_interval(line);
	cr_assert_eq(replayed, live, "the first's %zu intervals, replayed %zu", live, replayed);
	cr_assert_null(strstr(r.err, "damaged"), "%s", r.err);
	h_result_free(&r);
	h_diskio_free(&first);
	h_remove_tree(base);
}

Test(record_safety, a_quiet_service_records_its_files)
{
	const struct h_dev *zram = h_zram_create(64ULL << 20);
	static const struct h_io ops[] = { { 'w', 0, 4096, 16 } };
	char dkr[256];
	struct h_diskio d;
	struct h_result r;
	int with_files = 0;
	pid_t pid;

	make_base();
	h_diskio_start(&d, H_ARGS("-q", "--files", "--record", at("rec"), "-D", zram->name, "0.3"),
		       NULL);
	/* -q prints nothing to wait for: the day file is made at the first frame */
	snprintf(dkr, sizeof(dkr), "%s/%s", at("rec"), today(".dkr"));
	for (int64_t end = h_now_ms() + H_ATTACH_TIMEOUT_MS; access(dkr, F_OK); h_sleep_ms(50))
		cr_assert_lt(h_now_ms(), end, "no %s: %s", dkr, d.err);
	pid = h_spawn_io("rec-files", zram->path, ops, 1, NULL);
	h_expect_child_ok(pid, 10000);
	h_sleep_ms(700);
	cr_assert_eq(h_diskio_stop(&d, SIGINT, 10000), 0, "%s", d.err);
	h_run(H_ARGS(h_diskio_path(), "--replay", at("rec"), "--json"), NULL, NULL, 30000, &r);
	cr_assert_eq(r.status, 0, "%s", r.err);
	/* the writer's 64 KiB, [unknown] (O_DIRECT to the disk itself) */
	for (char *line = strtok(r.out, "\n"); line; line = strtok(NULL, "\n")) {
		const char *files = h_json_is_interval(line) ? strstr(line, "\"files\":[{") : NULL;

		with_files += files && strstr(files, "\"comm\":\"rec-files\"") &&
			      strstr(files, "\"path\":\"[unknown]\"");
	}
	cr_assert_gt(with_files, 0, "no interval with the writer's file line replayed");
	h_result_free(&r);
	h_diskio_free(&d);
	h_remove_tree(base);
}
