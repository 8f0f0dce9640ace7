// SPDX-License-Identifier: GPL-2.0
/*
 * iotop's USER, PRIO and COMMAND (issue 33), run as root against the real
 * kernel with known answers:
 *  - `runuser -u nobody -- ionice -c3 dd ...` is user nobody, uid 65534,
 *    idle; `ionice -c2 -n7 dd ...` is be/7; a plain dd as root is root, 0,
 *    be/4 (at nice 0): each dd exits at once, so what diskio shows was taken
 *    by the kernel when the row was made, and its command line at exec;
 *  - twenty dd processes with different arguments, each exiting within the
 *    interval, are twenty rows with twenty whole command lines, the batch
 *    fields 17-20 escaped so that awk's fields never shift;
 *  - writeback is its dirtier's: nobody's ionice -c3 dd writing a file
 *    that root's sync then writes back is nobody's, idle, and its command.
 * The top view's keys (USER at 80 columns, c, /) are in test_top.c, with
 * its tmux pane.
 */
#include "harness.h"
#include <sys/resource.h>

#define DEV_SIZE	(64ULL << 20)
#define NOBODY		65534
#define TWENTY		20

TestSuite(procinfo, .init = h_setup, .fini = h_teardown, .timeout = 90);

/* A process's command, checked to run as it should. */
static void run_ok(const char *const argv[])
{
	struct h_result r;
	char why[64];

	h_run(argv, NULL, NULL, H_CHILD_TIMEOUT_MS, &r);
	cr_assert(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0, "%s: %s: %s", argv[0],
		  h_status_str(r.status, why, sizeof(why)), r.err);
	h_result_free(&r);
}

/* The JSON process object of the rows whose "cmdline" is cmdline; false
 * when none of the interval lines has one. */
static bool find_cmdline(const struct h_diskio *d, const char *cmdline, struct h_jv *found)
{
	for (size_t i = 0; i < d->nlines; i++) {
		struct h_jv procs, p;
		size_t pos = 0;

		if (!h_json_is_interval(d->lines[i]) || !h_json_processes(d->lines[i], &procs))
			continue;
		while (h_json_next_elem(procs, &pos, &p)) {
			struct h_jv v;

			if (h_json_get(p, "cmdline", &v) && h_json_str_eq(v, cmdline)) {
				*found = p;
				return true;
			}
		}
	}
	return false;
}

static void expect_owner(const struct h_diskio *d, const char *cmdline, int64_t uid,
			 const char *user, const char *ioprio)
{
	struct h_jv p, v;
	int64_t got;

	if (!find_cmdline(d, cmdline, &p)) {
		h_diskio_dump(d, "no row with the command line");
		cr_assert_fail("no row has cmdline \"%s\"", cmdline);
	}
	cr_assert(h_json_get_int(p, "uid", &got) && got == uid, "%s: uid %" PRId64 ", not %" PRId64,
		  cmdline, got, uid);
	cr_assert(h_json_get(p, "user", &v) && h_json_str_eq(v, user), "%s: user %.*s, not %s",
		  cmdline, (int)v.len, v.p, user);
	cr_assert(h_json_get(p, "ioprio", &v) && h_json_str_eq(v, ioprio),
		  "%s: ioprio %.*s, not %s", cmdline, (int)v.len, v.p, ioprio);
	cr_assert(h_json_get(p, "comm", &v) && h_json_str_eq(v, "dd"));
}

Test(procinfo, user_uid_and_ioprio_as_ps_and_ionice_say)
{
	const struct h_dev *zram = h_zram_create(DEV_SIZE);
	char of[96], idle[256], be7[256], plain[256], expect_plain[16];
	int nice;
	struct h_diskio d;

	/* nobody opens the disk itself */
	cr_assert_eq(chmod(zram->path, 0666), 0, "chmod %s: %s", zram->path, strerror(errno));
	snprintf(of, sizeof(of), "of=%s", zram->path);
	errno = 0;
	nice = getpriority(PRIO_PROCESS, 0);
	cr_assert_eq(errno, 0);
	snprintf(expect_plain, sizeof(expect_plain), "be/%d", (nice + 20) / 5);	/* be/4 at 0 */

	h_diskio_start(&d, H_ARGS("--json", "-D", zram->name, "0.5"), NULL);
	h_diskio_wait_attached(&d, H_ATTACH_TIMEOUT_MS);
	run_ok(H_ARGS("runuser", "-u", "nobody", "--", "ionice", "-c3", "dd", "if=/dev/zero", of,
		      "bs=4096", "count=17", "oflag=direct", "status=none"));
	run_ok(H_ARGS("ionice", "-c2", "-n7", "dd", "if=/dev/zero", of, "bs=4096", "count=18",
		      "seek=100", "oflag=direct", "status=none"));
	run_ok(H_ARGS("dd", "if=/dev/zero", of, "bs=4096", "count=19", "seek=200", "oflag=direct",
		      "status=none"));
	h_diskio_finish(&d, 2);
	h_expect_json_output(&d, 2);

	snprintf(idle, sizeof(idle), "dd if=/dev/zero %s bs=4096 count=17 oflag=direct status=none",
		 of);
	snprintf(be7, sizeof(be7),
		 "dd if=/dev/zero %s bs=4096 count=18 seek=100 oflag=direct status=none", of);
	snprintf(plain, sizeof(plain),
		 "dd if=/dev/zero %s bs=4096 count=19 seek=200 oflag=direct status=none", of);
	expect_owner(&d, idle, NOBODY, "nobody", "idle");
	expect_owner(&d, be7, 0, "root", "be/7");
	expect_owner(&d, plain, 0, "root", expect_plain);
	{
		struct h_counters sum = { 0 };
		struct h_jv p;

		/* each row is the whole of its dd's I/O */
		cr_assert(find_cmdline(&d, idle, &p) && h_json_counters(p, &sum));
		cr_assert_eq(sum.write_bytes, 17 * 4096);
	}
	h_diskio_free(&d);
}

/* "dd if=/dev/zero of=PATH bs=4096 count=K seek=K00 oflag=direct" as batch
 * escapes it (one awk field). */
static void escaped_dd(char *buf, size_t size, const char *path, int k)
{
	snprintf(buf, size, "dd\\x20if=/dev/zero\\x20of=%s\\x20bs=4096\\x20count=%d\\x20seek=%d00"
		 "\\x20oflag=direct\\x20status=none", path, k, k);
}

Test(procinfo, twenty_short_lived_dds_are_twenty_command_lines)
{
	const struct h_dev *zram = h_zram_create(DEV_SIZE);
	bool seen[TWENTY + 1] = { false };
	char of[96];
	int distinct = 0;
	struct h_diskio d;

	snprintf(of, sizeof(of), "of=%s", zram->path);
	h_diskio_start(&d, H_ARGS("-b", "-D", zram->name, "2"), NULL);
	h_diskio_wait_attached(&d, H_ATTACH_TIMEOUT_MS);
	for (int k = 1; k <= TWENTY; k++) {
		char count[16], seek[16];

		snprintf(count, sizeof(count), "count=%d", k);
		snprintf(seek, sizeof(seek), "seek=%d00", k);
		run_ok(H_ARGS("dd", "if=/dev/zero", of, "bs=4096", count, seek, "oflag=direct",
			      "status=none"));
	}
	h_diskio_finish(&d, 2);
	for (size_t i = 0; i < d.nlines; i++) {
		const char *fields[H_BATCH_FIELDS + 1];
		size_t lens[H_BATCH_FIELDS + 1];
		struct h_batch_row row;
		char want[256], got[256];
		int n;

		if (d.lines[i][0] == '#')
			continue;
		cr_assert(h_batch_parse_row(d.lines[i], &row), "not a data line: %s", d.lines[i]);
		n = h_split_view(d.lines[i], fields, lens, H_BATCH_FIELDS + 1);
		cr_assert_eq(n, H_BATCH_FIELDS, "%s", d.lines[i]);
		if (strcmp(row.comm, "dd"))
			continue;
		snprintf(got, sizeof(got), "%.*s", (int)lens[21], fields[21]);
		cr_assert(lens[18] == 1 && fields[18][0] == '0', "uid: %s", d.lines[i]);
		cr_assert(lens[19] == 4 && !strncmp(fields[19], "root", 4), "user: %s", d.lines[i]);
		for (int k = 1; k <= TWENTY; k++) {
			escaped_dd(want, sizeof(want), zram->path, k);
			if (strcmp(got, want))
				continue;
			cr_assert_eq(row.c.write_bytes, 4096 * k, "%s", d.lines[i]);
			if (!seen[k]) {
				seen[k] = true;
				distinct++;
			}
		}
	}
	if (distinct != TWENTY)
		h_diskio_dump(&d, "not twenty command lines");
	cr_assert_eq(distinct, TWENTY, "%d distinct command lines of twenty dd", distinct);
	h_diskio_free(&d);
}

/* Writeback is its dirtier's: nobody's idle-class dd dirtied the file,
 * root's sync submits it; the row is nobody's, idle, with dd's command. */
Test(procinfo, writeback_rows_are_their_dirtiers)
{
	const struct h_dev *zram = h_zram_create(DEV_SIZE);
	const struct h_dev *fs = h_ext4_mount(zram);
	char file[PATH_MAX], script[PATH_MAX + 256], line[160];
	struct h_counters sum = { 0 };
	struct h_jv p;
	struct h_diskio d;

	snprintf(file, sizeof(file), "%s/dirtied", fs->path);
	/* root's shell opens the file, nobody's dd writes to it: its pages are
	 * dirtied in dd, which exits before anything is written back */
	snprintf(script, sizeof(script),
		 "runuser -u nobody -- ionice -c3 dd if=/dev/zero bs=65536 count=16 status=none "
		 "> '%s' && sync", file);
	h_diskio_start(&d, H_ARGS("--json", "-D", zram->name, "0.5"), NULL);
	h_diskio_wait_attached(&d, H_ATTACH_TIMEOUT_MS);
	run_ok(H_ARGS("sh", "-c", script));
	h_diskio_finish(&d, 2);
	snprintf(line, sizeof(line), "dd if=/dev/zero bs=65536 count=16 status=none");
	expect_owner(&d, line, NOBODY, "nobody", "idle");
	cr_assert(find_cmdline(&d, line, &p));
	h_json_sum_process(d.lines, d.nlines, 0, zram->name, "dd", &sum);
	cr_assert_geq(sum.write_bytes, 16 * 65536, "the file's data is dd's: %" PRId64,
		      sum.write_bytes);
	h_diskio_free(&d);
}
