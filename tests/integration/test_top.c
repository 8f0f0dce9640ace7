// SPDX-License-Identifier: GPL-2.0
/*
 * The top view driven as a person would, in a real terminal: diskio runs in
 * a tmux pane (its own server, socket "diskio-itest-top"), keys are sent
 * with send-keys and the screen is read with capture-pane, polled against a
 * deadline (never a fixed sleep), so that a loaded 2-CPU machine only makes
 * it slower.  The pane runs an interactive bash, so that what diskio leaves
 * to the shell (terminal modes, typed keys) is seen as a user would see it.
 */
#include "harness.h"

#define SOCKET		"diskio-itest-top"
#define SESSION		"top"
#define SCREEN_SIZE	(64 * 1024)
#define FRAME_TIMEOUT_MS (H_ATTACH_TIMEOUT_MS + 5000)	/* start, then the first frame */
#define KEY_TIMEOUT_MS	3000	/* a key's redraw, on a loaded machine */
#define REDRAW_MS	300	/* the promise for a resize */
/* diskio ends by itself after this many intervals, should the test die. */
#define COUNT		"180"

static char dir[64];		/* files the pane's shell writes */
static char screen[SCREEN_SIZE];

static int tmux(const char *const args[], struct h_result *r)
{
	const char *argv[32] = { "tmux", "-L", SOCKET };
	int n = 3;

	for (int i = 0; args[i] && n < 31; i++)
		argv[n++] = args[i];
	argv[n] = NULL;
	return h_run(argv, NULL, NULL, 10000, r);
}

#define TMUX(...) tmux_ok(H_ARGS(__VA_ARGS__))

static void tmux_ok(const char *const args[])
{
	struct h_result r;
	char why[64];
	int status = tmux(args, &r);

	cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0, "tmux %s: %s: %s", args[0],
		  h_status_str(status, why, sizeof(why)), r.err);
	h_result_free(&r);
}

/* The pane as text, into screen; joined: a line wrapped at the pane's
 * width as one. */
static void capture_as(bool joined)
{
	struct h_result r;

	if (joined)
		tmux(H_ARGS("capture-pane", "-p", "-J", "-t", SESSION), &r);
	else
		tmux(H_ARGS("capture-pane", "-p", "-t", SESSION), &r);
	snprintf(screen, sizeof(screen), "%s", r.out);
	h_result_free(&r);
}

static void capture(void)
{
	capture_as(false);
}

/* The screen's line holding text (a copy), or NULL. */
static const char *screen_line(const char *text)
{
	static char line[1024];
	const char *hit = strstr(screen, text), *start, *end;

	if (!hit)
		return NULL;
	for (start = hit; start > screen && start[-1] != '\n'; start--)
		;
	end = strchr(hit, '\n');
	if (!end)
		end = hit + strlen(hit);
	snprintf(line, sizeof(line), "%.*s", (int)(end - start), start);
	return line;
}

/* The process row of comm: a line with it that is not the header's. */
static const char *row_of(const char *comm)
{
	static char line[1024];
	const char *start = screen;

	while (*start) {
		const char *end = strchr(start, '\n');
		size_t len = end ? (size_t)(end - start) : strlen(start);

		snprintf(line, sizeof(line), "%.*s", (int)len, start);
		if (strstr(line, comm) && !strstr(line, "filter"))
			return line;
		start += len + (end ? 1 : 0);
	}
	return NULL;
}

static bool has_row(const char *comm)
{
	return row_of(comm) != NULL;
}

static bool has(const char *text)
{
	return strstr(screen, text) != NULL;
}

static bool lacks(const char *text)
{
	return !has(text);
}

/* Capture until test() holds or timeout_ms pass.  Returns the ms it took,
 * -1 on timeout (the last screen is logged). */
static int64_t wait_until(bool (*test)(const char *arg), const char *arg, int timeout_ms)
{
	int64_t start = h_now_ms(), deadline = start + timeout_ms;

	for (;;) {
		capture();
		if (test(arg))
			return h_now_ms() - start;
		if (h_now_ms() >= deadline)
			break;
		h_sleep_ms(10);
	}
	cr_log_error("screen after %d ms:\n%s", timeout_ms, screen);
	return -1;
}

static void expect_screen(bool (*test)(const char *arg), const char *arg, const char *what)
{
	cr_assert_geq(wait_until(test, arg, KEY_TIMEOUT_MS), 0, "%s (waiting for '%s')", what, arg);
}

static void key(const char *name)
{
	TMUX("send-keys", "-t", SESSION, name);
}

static void text(const char *literal)
{
	TMUX("send-keys", "-t", SESSION, "-l", literal);
}

/* A file the pane's shell writes, once it is there. */
static bool read_when_there(const char *name, char *buf, size_t size, int timeout_ms)
{
	char path[128];
	int64_t deadline = h_now_ms() + timeout_ms;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	while (h_now_ms() < deadline) {
		/* the shell writes with one redirection: whole once non-empty */
		if (h_read_file(path, buf, size) > 0 && strchr(buf, '\n'))
			return true;
		h_sleep_ms(20);
	}
	return false;
}

/* An interactive bash in an 80x24 pane, prompt "$ ". */
static void start_pane(void)
{
	struct h_result stale;
	char *made;

	h_require_root();
	if (!h_have_program("tmux"))
		cr_skip_test("tmux is not installed (make deps-test installs it)");
	snprintf(dir, sizeof(dir), "/tmp/diskio-itest-top-XXXXXX");
	made = mkdtemp(dir);
	cr_assert_not_null(made);
	tmux(H_ARGS("kill-server"), &stale);	/* a server a killed test left */
	h_result_free(&stale);
	TMUX("new-session", "-d", "-s", SESSION, "-x", "80", "-y", "24",
	     "env PS1='$ ' TERM=screen bash --norc --noprofile -i");
	/* capture-pane drops trailing blanks: the prompt shows as "$" */
	cr_assert_geq(wait_until(has, "$", 10000), 0, "no shell prompt in the pane");
}

static void suite_setup(void)
{
	h_setup();
}

static void suite_teardown(void)
{
	struct h_result r = { 0 };
	char cmd[128];

	tmux(H_ARGS("kill-server"), &r);
	h_result_free(&r);
	if (dir[0]) {
		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
		if (system(cmd))
			cr_log_info("could not remove %s", dir);
	}
	h_teardown();
}

TestSuite(top, .init = suite_setup, .fini = suite_teardown, .timeout = 120);

/* A process writing 4 KiB with O_DIRECT to path every 2 ms until killed:
 * a row to find, filter and sort. */
static pid_t spawn_writer(const char *comm, const char *path)
{
	pid_t pid = fork();

	cr_assert_geq(pid, 0);
	if (pid == 0) {
		void *buf;
		int fd;

		h__child_prepare(-1);
		prctl(PR_SET_NAME, comm);
		fd = open(path, O_RDWR | O_DIRECT);
		if (fd < 0 || posix_memalign(&buf, 4096, 4096))
			_exit(1);
		memset(buf, 0x5a, 4096);
		for (uint64_t i = 0;; i++) {
			if (pwrite(fd, buf, 4096, (i % 4096) * 4096) != 4096)
				_exit(2);
			usleep(2000);
		}
	}
	h_track_child(pid);
	return pid;
}

/* The pane's shell runs diskio with args, then records its exit code, the
 * terminal's modes before and after, and any key left for the shell. */
static void run_in_pane(const char *args)
{
	char line[1024];

	snprintf(line, sizeof(line),
		 "stty -a > %s/before; '%s' %s; echo EXIT=$? > %s/exit; stty -a > %s/after; "
		 "read -t 1 -n 64 leaked; echo \"LEAKED=[$leaked]\" > %s/leaked",
		 dir, h_diskio_path(), args, dir, dir, dir);
	text(line);
	key("Enter");
}

static bool shows_a_frame(const char *unused)
{
	(void)unused;
	return has("P99_ms") && has("COMM");
}

Test(top, every_key_changes_the_screen_and_q_leaves_the_shell_as_it_was)
{
	const struct h_dev *zram = h_zram_create(64 << 20);
	char before[4096], after[4096], buf[256], device_item[64];
	const char *line;
	bool back_to_all = false;

	spawn_writer("topwriter", zram->path);
	start_pane();
	run_in_pane("1 " COUNT);
	cr_assert_geq(wait_until(shows_a_frame, NULL, FRAME_TIMEOUT_MS), 0, "no first frame");

	/* At 80x24: the lost count, p99 and iostat -x's utilisation, queue
	 * size and the disks' read and write IOPS (issue 48) are on screen,
	 * and iotop's USER, PRIO and IO>; the awaits do not fit, nor the
	 * processes' I/O rates (from 90 columns, issue 33). */
	line = screen_line("diskio ");
	cr_assert(line && strstr(line, "lost "), "no lost count in the header: %s", line);
	line = screen_line("P99_ms");
	cr_assert(line && strstr(line, "W_IOPS") && strstr(line, "R_IOPS") &&
		  strstr(line, "%UTIL") &&
		  strstr(line, "AQU-SZ") && !strstr(line, "R_AWAIT") && !strstr(line, "W_AWAIT"),
		  "%s", line);
	line = screen_line("COMM");
	cr_assert(line && strstr(line, " PRIO USER ") && strstr(line, " IO> DEVICE ") &&
		  strstr(line, " COMMAND") && !strstr(line, "R_IOPS") && !strstr(line, "W_IOPS"),
		  "process table at 80 columns: %s", line);
	cr_assert(has("per second"), "the header does not say rates are per second");

	text("/topwriter");	/* issue 33: the filter moved from c to / */
	expect_screen(has, "filter: topwriter_", "/: the filter being typed");
	key("Enter");
	expect_screen(has, "filter topwriter", "Enter: the filter applied");
	expect_screen(has_row, "topwriter", "the writer's row under its filter");
	line = row_of("topwriter");
	cr_assert(line && strstr(line, zram->name), "the writer's row names its disk: %s", line);
	key("Escape");
	expect_screen(has, "filter none", "Esc: the filter cleared");

	key("Right");
	expect_screen(has, "sort read desc", "Right: the next sort column");
	key("Left");
	expect_screen(has, "sort bytes desc", "Left: back");
	text(">");
	expect_screen(has, "sort read desc", "'>' as Right");
	text("<");
	expect_screen(has, "sort bytes desc", "'<' as Left");
	text("r");
	expect_screen(has, "sort bytes asc", "r: reversed");
	text("r");
	expect_screen(has, "sort bytes desc", "r: back");

	text("a");
	expect_screen(has, "accumulated", "a: totals since start");
	line = screen_line("COMM");
	cr_assert(line && strstr(line, " READ ") && !strstr(line, "READ/s"), "%s", line);
	text("a");
	expect_screen(has, "per second", "a: rates again");

	text("p");
	expect_screen(has, "PAUSED", "p: paused");
	text("p");
	expect_screen(lacks, "PAUSED", "p: running again");

	text("d");
	expect_screen(lacks, "device all", "d: one device");
	line = screen_line("device ");
	cr_assert_not_null(line);
	snprintf(device_item, sizeof(device_item), "%s", strstr(line, "device "));
	for (int i = 0; i < 64 && !back_to_all; i++) {
		text("d");
		cr_assert_geq(wait_until(lacks, device_item, KEY_TIMEOUT_MS), 0,
			      "d: not the next device");
		back_to_all = has("device all");
		line = screen_line("device ");
		snprintf(device_item, sizeof(device_item), "%s", strstr(line, "device "));
	}
	cr_assert(back_to_all, "d never came back to all devices");

	text("L");
	expect_screen(lacks, "P99_ms", "L: latency columns off");
	text("L");
	expect_screen(has, "P99_ms", "L: latency columns on");

	/* t: rows per thread from the next frame on (the tally's and the
	 * kernel's, which the heading follows), and back. */
	text("t");
	expect_screen(has, " TID ", "t: rows per thread");
	text("t");
	expect_screen(lacks, " TID ", "t: rows per process again");

	text("h");
	expect_screen(has, "any other key closes", "h: help");
	text("x");
	expect_screen(lacks, "any other key closes", "any key closes the help");
	text("?");
	expect_screen(has, "any other key closes", "?: help");
	text("q");		/* closes the help, does not quit */
	expect_screen(lacks, "any other key closes", "q closes the help");
	expect_screen(has, "P99_ms", "the table after the help");

	/* ↓ selects a row, Enter opens its stack: none without --stacks. */
	key("Down");
	key("Enter");
	expect_screen(has, "no stacks: run with --stacks", "Enter: the stack overlay");
	text("x");
	expect_screen(lacks, "Heaviest stack", "any key closes the stack overlay");
	expect_screen(has, "P99_ms", "the table after the overlay");

	/* Keys diskio does not use are read and dropped, not left for the
	 * shell; r shows they have been read. */
	text("xzxz");
	text("r");
	expect_screen(has, "sort bytes asc", "r after unused keys");
	text("q");
	cr_assert(read_when_there("exit", buf, sizeof(buf), H_EXIT_TIMEOUT_MS), "diskio did not exit");
	cr_assert_str_eq(buf, "EXIT=0\n");
	cr_assert(read_when_there("leaked", buf, sizeof(buf), 5000));
	cr_assert_str_eq(buf, "LEAKED=[]\n", "keys leaked to the shell");
	cr_assert(read_when_there("before", before, sizeof(before), 1000));
	cr_assert(read_when_there("after", after, sizeof(after), 1000));
	cr_assert_str_eq(before, after, "stty -a differs after diskio");
	/* Back on the normal screen: the command line, then one summary line. */
	expect_screen(has, "diskio ran ", "the summary line");
	capture_as(true);	/* large totals take more than 80 columns */
	line = screen_line("diskio ran ");
	cr_assert(strstr(line, "lost ") && strstr(line, "crashes "), "%s", line);
	cr_assert(lacks("# summary") && lacks("# crash"), "batch lines at exit:\n%s", screen);
	cr_assert(lacks("P99_ms"), "the top view's screen is left behind:\n%s", screen);
}

Test(top, enter_shows_the_selected_rows_kernel_stack_with_stacks)
{
	const struct h_dev *zram = h_zram_create(64 << 20);
	char buf[256];

	spawn_writer("topstacker", zram->path);
	start_pane();
	run_in_pane("--stacks=kernel 1 " COUNT);
	cr_assert_geq(wait_until(shows_a_frame, NULL, FRAME_TIMEOUT_MS), 0, "no first frame");
	text("/topstacker");
	key("Enter");		/* applies the filter: the writer's is the only row */
	expect_screen(has_row, "topstacker", "the writer's row under its filter");
	key("Down");
	key("Enter");
	expect_screen(has, "Heaviest stack", "Enter: the stack overlay");
	/* Its O_DIRECT writes are submitted by itself: submit_bio is on the
	 * kernel side (the overlay is redrawn each interval until then). */
	cr_assert_geq(wait_until(has, "submit_bio", FRAME_TIMEOUT_MS), 0,
		      "no submit_bio frame in the overlay");
	cr_assert(has("pid ") && has("topstacker on "), "no title:\n%s", screen);
	cr_assert(has("kernel:"), "%s", screen);
	text("q");		/* closes the overlay, does not quit */
	expect_screen(lacks, "Heaviest stack", "q closes the stack overlay");
	expect_screen(has, "P99_ms", "the table after the overlay");
	text("q");
	cr_assert(read_when_there("exit", buf, sizeof(buf), H_EXIT_TIMEOUT_MS), "diskio did not exit");
	cr_assert_str_eq(buf, "EXIT=0\n");
}

/* The process heading at 60 columns has the disk but no user, priority or
 * I/O rates (read and write alike); at 80 the user and priority too. */
static bool narrow_heading(const char *unused)
{
	const char *line = screen_line("COMM");

	(void)unused;
	return line && strstr(line, "DEVICE") && !strstr(line, "USER") &&
	       !strstr(line, "R_IOPS") && !strstr(line, "W_IOPS");
}

static bool wide_heading(const char *unused)
{
	const char *line = screen_line("COMM");

	(void)unused;
	return line && strstr(line, "DEVICE") && strstr(line, " PRIO USER ");
}

Test(top, resize_redraws_at_once)
{
	int64_t took;
	char buf[64];

	start_pane();
	run_in_pane("1 " COUNT);
	cr_assert_geq(wait_until(shows_a_frame, NULL, FRAME_TIMEOUT_MS), 0, "no first frame");
	/* Paused, only a resize can redraw. */
	text("p");
	expect_screen(has, "PAUSED", "p: paused");
	cr_assert(wide_heading(NULL));

	TMUX("resize-window", "-t", SESSION, "-x", "60", "-y", "15");
	took = wait_until(narrow_heading, NULL, 5000);
	cr_assert_geq(took, 0, "not redrawn at 60x15");
	cr_assert_leq(took, REDRAW_MS, "redrawn at 60x15 after %" PRId64 " ms", took);
	cr_assert(has("lost "), "no lost count at 60x15");
	cr_assert(has("PAUSED"));

	TMUX("resize-window", "-t", SESSION, "-x", "80", "-y", "24");
	took = wait_until(wide_heading, NULL, 5000);
	cr_assert_geq(took, 0, "not redrawn at 80x24");
	cr_assert_leq(took, REDRAW_MS, "redrawn at 80x24 after %" PRId64 " ms", took);
	cr_assert(has("P99_ms"));

	text("q");
	cr_assert(read_when_there("exit", buf, sizeof(buf), H_EXIT_TIMEOUT_MS), "diskio did not exit");
	cr_assert_str_eq(buf, "EXIT=0\n");
}

Test(top, sigterm_while_paused_exits_0_with_everything_detached)
{
	uint32_t ids[64];
	struct h_prog progs[512];
	char line[512], buf[64];
	int nids, left = 1;
	int64_t deadline;
	pid_t pid;

	start_pane();
	snprintf(line, sizeof(line), "sh -c 'echo $$ > %s/pid; exec \"$0\" 1 " COUNT "' '%s'; "
		 "echo EXIT=$? > %s/exit", dir, h_diskio_path(), dir);
	text(line);
	key("Enter");
	cr_assert_geq(wait_until(shows_a_frame, NULL, FRAME_TIMEOUT_MS), 0, "no first frame");
	text("p");
	expect_screen(has, "PAUSED", "p: paused");
	cr_assert(read_when_there("pid", buf, sizeof(buf), 1000));
	pid = atoi(buf);
	cr_assert_gt(pid, 0);
	nids = h_pid_bpf_prog_ids(pid, ids, 64);
	cr_assert_gt(nids, 0, "diskio (pid %d) holds no BPF programs", (int)pid);

	cr_assert_eq(kill(pid, SIGTERM), 0);
	cr_assert(read_when_there("exit", buf, sizeof(buf), H_EXIT_TIMEOUT_MS),
		  "diskio did not exit after SIGTERM");
	cr_assert_str_eq(buf, "EXIT=0\n");
	expect_screen(has, "diskio ran ", "the summary line after SIGTERM");

	/* Links and programs are freed after an RCU grace period: allow 3 s. */
	deadline = h_now_ms() + 3000;
	while (left && h_now_ms() < deadline) {
		int nprogs = h_bpftool_progs(progs, 512);

		cr_assert_geq(nprogs, 0, "bpftool prog show failed");
		left = 0;
		for (int i = 0; i < nprogs && i < 512; i++)
			for (int k = 0; k < nids; k++)
				left += progs[i].id == ids[k];
		if (left)
			h_sleep_ms(100);
	}
	cr_assert_eq(left, 0, "%d of diskio's BPF programs still loaded 3 s after it exited", left);
}

/* diskio INTERVAL COUNT on a terminal (make run's `diskio 5 1`): the sample
 * asked for stays on the normal screen, as top -n 1 leaves it, its process
 * row and disk included, and the summary line comes after it.  (q and
 * Ctrl-C leave only the summary: the first test.) */
Test(top, a_count_run_leaves_its_last_frame_on_the_screen)
{
	const struct h_dev *zram = h_zram_create(64 << 20);
	const char *frame_at, *summary_at;
	char args[128], buf[64];
	pid_t writer;

	start_pane();
	writer = spawn_writer("keptwriter", zram->path);
	snprintf(args, sizeof(args), "-D %s 1 2", zram->name);
	run_in_pane(args);
	cr_assert(read_when_there("exit", buf, sizeof(buf), FRAME_TIMEOUT_MS + 5000),
		  "diskio did not exit");
	cr_assert_str_eq(buf, "EXIT=0\n");
	h_kill_child(writer);
	h_untrack_child(writer);
	expect_screen(has, "diskio ran ", "the summary line");
	capture_as(true);
	frame_at = strstr(screen, "COMM");
	summary_at = strstr(screen, "diskio ran ");
	cr_assert_not_null(frame_at, "no frame left on the screen:\n%s", screen);
	cr_assert_lt(frame_at, summary_at, "the frame after the summary:\n%s", screen);
	cr_assert(row_of("keptwriter"), "the writer's row is not on the screen:\n%s", screen);
	cr_assert(strstr(screen, zram->name), "the disk is not on the screen:\n%s", screen);
}

/* The run ends inside its first interval: 9 writes of 4 KiB, then q.  The
 * interval is closed early at exit, so the parting line counts them
 * (it said "write 0 B" when the unfinished interval was dropped). */
Test(top, q_in_the_first_interval_still_counts_its_io)
{
	static const struct h_io nine[] = { { 'w', 0, 4096, 9 } };
	const struct h_dev *zram = h_zram_create(64 << 20);
	char args[128], buf[64];

	start_pane();
	snprintf(args, sizeof(args), "-D %s 60 " COUNT, zram->name);
	run_in_pane(args);
	expect_screen(has, "sampling", "diskio attached, before its first frame");
	h_expect_child_ok(h_spawn_io("dio-nine", zram->path, nine, 1, NULL), H_CHILD_TIMEOUT_MS);
	text("q");
	cr_assert(read_when_there("exit", buf, sizeof(buf), H_EXIT_TIMEOUT_MS), "no exit after q");
	cr_assert_str_eq(buf, "EXIT=0\n");
	expect_screen(has, "write 36.0 KiB, lost 0", "the parting line counts the 9 writes");
}

/* Display columns of text[0..len) as tmux shows it: one per UTF-8
 * character (the names here have no wide ones). */
static size_t columns_of(const char *text, size_t len)
{
	size_t n = 0;

	for (size_t i = 0; i < len; i++)
		n += ((unsigned char)text[i] & 0xc0) != 0x80;
	return n;
}

/* Run diskio in the pane under locale, the writer's row on the screen. */
static void run_with_locale(const char *locale, const struct h_dev *zram)
{
	char line[1024];

	snprintf(line, sizeof(line), "LC_ALL=%s '%s' -D %s 1 " COUNT "; echo EXIT=$? > %s/exit",
		 locale, h_diskio_path(), zram->name, dir);
	text(line);
	key("Enter");
	cr_assert_geq(wait_until(shows_a_frame, NULL, FRAME_TIMEOUT_MS), 0, "no first frame");
}

static void quit_pane_diskio(void)
{
	char buf[64], path[128];

	text("q");
	cr_assert(read_when_there("exit", buf, sizeof(buf), H_EXIT_TIMEOUT_MS), "no exit after q");
	cr_assert_str_eq(buf, "EXIT=0\n");
	snprintf(path, sizeof(path), "%s/exit", dir);
	unlink(path);
}

/*
 * A process named ünicöde☃: under C.UTF-8 the top view shows the name as
 * written and the next column starts where its heading does; under C the
 * bytes outside ASCII are escaped as \xHH (they showed as '?' before).
 */
Test(top, a_utf8_name_as_written_under_utf8_and_escaped_under_c)
{
	static const char name[] = "\xc3\xbcnic\xc3\xb6" "de\xe2\x98\x83";
	const struct h_dev *zram = h_zram_create(64 << 20);
	const char *row, *heading, *at;
	size_t device_col, heading_col;
	pid_t writer;

	start_pane();
	writer = spawn_writer(name, zram->path);
	run_with_locale("C.UTF-8", zram);
	expect_screen(has, name, "the name as written");
	capture();
	row = row_of(name);
	cr_assert_not_null(row, "no row of the name:\n%s", screen);
	at = strstr(row, zram->name);
	cr_assert_not_null(at, "no disk on the row: %s", row);
	device_col = columns_of(row, (size_t)(at - row));
	heading = screen_line(" PID ");
	cr_assert(heading && strstr(heading, "DEVICE"), "no process heading:\n%s", screen);
	heading_col = columns_of(heading, (size_t)(strstr(heading, "DEVICE") - heading));
	cr_assert_eq(device_col, heading_col, "the row's disk at column %zu, DEVICE at %zu:\n%s\n%s",
		     device_col, heading_col, heading, row);
	quit_pane_diskio();

	run_with_locale("C", zram);
	expect_screen(has, "\\xc3\\xbcnic", "the name escaped under C");
	capture();
	cr_assert(lacks(name) && lacks("?nic"), "under C:\n%s", screen);
	quit_pane_diskio();
	h_kill_child(writer);
	h_untrack_child(writer);
}

/* ---- issue 33: iotop's USER, PRIO and IO>, c for the command line, / ---- */

/* A writer's row at 80x24: its user, priority and IO>; c shows its whole command
 * line (fio's, with the job's name), c again its name; / filters by
 * COMMAND as shown. */
Test(top, user_and_prio_at_80_columns_c_shows_the_command_line)
{
	static const char *const job[] = {
		"--name=cmdwriter", "--rw=write", "--direct=1", "--bs=4k", "--rate=1m",
		"--time_based", "--runtime=120", "--size=16m", NULL,
	};
	const struct h_dev *zram = h_zram_create(64 << 20);
	const char *line;
	char args[128], buf[64];

	h_start_fio(zram->path, job);
	start_pane();
	snprintf(args, sizeof(args), "-D %s 1 " COUNT, zram->name);
	run_in_pane(args);
	cr_assert_geq(wait_until(has_row, " fio", FRAME_TIMEOUT_MS), 0, "no writer's row");
	line = screen_line("COMM");
	cr_assert(line && strstr(line, "    PID PRIO USER       IO> DEVICE ") &&
		  strstr(line, " COMMAND"), "iotop's columns at 80: %s", line);
	line = row_of(" fio");
	cr_assert(line && strstr(line, " be/4 root     ") && strstr(line, zram->name),
		  "the writer's user and priority: %s", line);
	cr_assert_null(strstr(screen, "--name=cmdwriter"), "the name at first, not the command");

	text("c");
	expect_screen(has_row, "fio --name=cmdwriter", "c: the command line, to the edge");
	text("/cmdwriter");
	key("Enter");
	expect_screen(has, "filter cmdwriter", "/: the filter on the command line");
	expect_screen(has_row, "fio --name=cmdwriter", "its row under the filter");
	text("c");
	expect_screen(lacks, "--name=cmdwriter", "c again: the name, which the filter misses");
	key("Escape");
	expect_screen(has_row, " fio", "Esc: the filter cleared, the name shown");
	text("q");
	cr_assert(read_when_there("exit", buf, sizeof(buf), H_EXIT_TIMEOUT_MS), "diskio did not exit");
	cr_assert_str_eq(buf, "EXIT=0\n");
}

/* issue 36: a replay on a terminal is the top view, stepped through the
 * record with [ and ] and sent to a time with g; its first line gives each
 * frame's date and time. */
Test(top, a_replay_steps_with_brackets_and_goes_to_a_time_with_g)
{
	const struct h_dev *zram = h_zram_create(64 << 20);
	char record[128], line[1024], times[3][16], iso[3][40], shown[64], buf[256];
	struct h_result r;
	size_t n = 0;

	start_pane();
	snprintf(record, sizeof(record), "%s/record", dir);
	h_run(H_ARGS(h_diskio_path(), "-b", "--record", record, "-D", zram->name, "1", "3"),
	      NULL, NULL, 30000, &r);
	cr_assert_eq(r.status, 0, "%s", r.err);
	h_result_free(&r);
	/* the frames' times, as the JSON replay prints them (UTC) */
	h_run(H_ARGS(h_diskio_path(), "--replay", record, "--json"), NULL, NULL, 10000, &r);
	cr_assert_eq(r.status, 0, "%s", r.err);
	for (char *at = r.out; n < 3 && (at = strstr(at, "\"type\":\"interval\"")); at++) {
		char *t = strstr(at, "\"time\":\"");

		cr_assert_not_null(t);
		snprintf(iso[n], sizeof(iso[n]), "%.24s", t + 8);
		snprintf(times[n], sizeof(times[n]), "%.8s", t + 8 + 11);
		n++;
	}
	cr_assert_eq(n, 3, "%s", r.out);
	h_result_free(&r);
	snprintf(line, sizeof(line), "TZ=UTC '%s' --replay %s; echo EXIT=$? > %s/exit",
		 h_diskio_path(), record, dir);
	text(line);
	key("Enter");
	snprintf(shown, sizeof(shown), "diskio %.10s %s", iso[0], times[0]);
	cr_assert_geq(wait_until(has, shown, FRAME_TIMEOUT_MS), 0, "the first frame");
	key("]");
	snprintf(shown, sizeof(shown), "diskio %.10s %s", iso[1], times[1]);
	expect_screen(has, shown, "] shows the next frame");
	key("[");
	snprintf(shown, sizeof(shown), "diskio %.10s %s", iso[0], times[0]);
	expect_screen(has, shown, "[ the previous one");
	text("g");
	expect_screen(has, "go to: _", "g asks for a time");
	text(iso[2]);
	key("Enter");
	snprintf(shown, sizeof(shown), "diskio %.10s %s", iso[2], times[2]);
	expect_screen(has, shown, "Enter goes to it");
	key("q");
	cr_assert(read_when_there("exit", buf, sizeof(buf), 5000), "diskio did not end");
	cr_assert_str_eq(buf, "EXIT=0\n");
}

/* The line of the device table that starts with the device named below. */
static char device_shown[32];

static const char *device_line(size_t *len_out)
{
	const char *start = screen;
	size_t name_len = strlen(device_shown);

	while (*start) {
		const char *end = strchr(start, '\n');
		size_t len = end ? (size_t)(end - start) : strlen(start);

		if (len > name_len && !strncmp(start, device_shown, name_len) &&
		    start[name_len] == ' ') {
			*len_out = len;
			return start;
		}
		start += len + (end ? 1 : 0);
	}
	return NULL;
}

static bool device_line_has(const char *text)
{
	size_t len;
	const char *line = device_line(&len);

	return line && memmem(line, len, text, strlen(text));
}

/* A frame is shown, and the device has no line or one without text. */
static bool device_line_lacks(const char *text)
{
	size_t len;
	const char *line = device_line(&len);

	return has("DEVICE") && (!line || !memmem(line, len, text, strlen(text)));
}

/*
 * --replay -a on a terminal: each frame shows the window's totals from its
 * first frame to the one shown, summed anew at each step, so that a step
 * back forgets what it left.  A record of four frames at 1 s of a zram disk:
 * nothing, then 4 MiB, then 8 MiB written with O_DIRECT, then nothing.
 */
Test(top, replay_with_a_sums_the_window_to_the_frame_shown)
{
	static const struct h_io four[] = { { 'w', 0, 1 << 20, 4 } };
	static const struct h_io eight[] = { { 'w', 0, 1 << 20, 8 } };
	const struct h_dev *zram = h_zram_create(64 << 20);
	char rec[64], args[256];
	struct h_diskio d;

	snprintf(rec, sizeof(rec), "/tmp/diskio-itest-top-rec-XXXXXX");
	cr_assert_not_null(mkdtemp(rec));
	h_diskio_start(&d, H_ARGS("-b", "--record", rec, "-D", zram->name, "1", "4"), NULL);
	h_diskio_wait_attached(&d, H_ATTACH_TIMEOUT_MS);
	/* each write well inside the next interval */
	h_diskio_wait_new_intervals(&d, 1, 10000);
	h_sleep_ms(200);
	h_expect_child_ok(h_spawn_io("dio-four", zram->path, four, 1, NULL), H_CHILD_TIMEOUT_MS);
	h_diskio_wait_new_intervals(&d, 1, 10000);
	h_sleep_ms(200);
	h_expect_child_ok(h_spawn_io("dio-eight", zram->path, eight, 1, NULL), H_CHILD_TIMEOUT_MS);
	cr_assert_eq(h_diskio_stop(&d, 0, 20000), 0, "the recorder: %s", d.err);
	h_diskio_free(&d);

	snprintf(device_shown, sizeof(device_shown), "%s", zram->name);
	start_pane();
	snprintf(args, sizeof(args), "--replay %s -a", rec);
	run_in_pane(args);
	expect_screen(device_line_lacks, "MiB", "the first frame: nothing written yet");
	key("]");
	expect_screen(device_line_has, "4.0 MiB", "the second: the first 4 MiB");
	key("]");
	expect_screen(device_line_has, "12.0 MiB", "the third: 4 and 8 MiB");
	key("]");
	expect_screen(device_line_has, "12.0 MiB", "the fourth: nothing more");
	key("[");
	key("[");
	expect_screen(device_line_has, "4.0 MiB", "two steps back: the first 4 MiB again");
	quit_pane_diskio();
	h_remove_tree(rec);
}
