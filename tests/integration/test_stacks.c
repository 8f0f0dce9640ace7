// SPDX-License-Identifier: GPL-2.0
/*
 * --stacks against a program with known function names, built here with
 * frame pointers: known_reader_a reads N bytes with O_DIRECT from one zram
 * disk, known_writer_b writes M bytes through the page cache to a file on
 * ext4 on another; the folded lines and the JSON rows' stacks must carry
 * exactly those bytes, and the reader's kernel frames the block layer's
 * submission path.
 */
#include "harness.h"

#define READ_BYTES	(3U << 20)	/* N */
#define WRITE_BYTES	(5U << 20)	/* M */
#define CHUNK		4096
#define DISK_SIZE	(64ULL << 20)
#define MNT_PREFIX	"/dev/shm/diskio-itest/stacks-mnt-"

/*
 * Each known function calls libc through a helper of its own: libc's
 * syscall wrappers keep no frame pointer, so the frame-pointer walk loses
 * their caller (the helper), which diskio finds again by libc's .eh_frame;
 * known_direct_c calls pread itself.  Modes "r", "d" and "w" stay alive
 * 0.3 s after their I/O; "rq" and "dq" exit at once, as a cron job or a
 * container's entrypoint does.
 */
static const char program_source[] =
	"#define _GNU_SOURCE\n"
	"#include <fcntl.h>\n"
	"#include <stdlib.h>\n"
	"#include <string.h>\n"
	"#include <unistd.h>\n"
	"__attribute__((noinline)) static int read_chunk(int fd, void *buf, off_t off)\n"
	"{ return pread(fd, buf, 4096, off) == 4096 ? 0 : -1; }\n"
	"__attribute__((noinline)) int known_reader_a(int fd, long n)\n"
	"{ void *buf; if (posix_memalign(&buf, 4096, 4096)) return -1;\n"
	"  for (long off = 0; off < n; off += 4096) if (read_chunk(fd, buf, off)) return -1;\n"
	"  return 0; }\n"
	"__attribute__((noinline)) int known_direct_c(int fd, long n)\n"
	"{ void *buf; if (posix_memalign(&buf, 4096, 4096)) return -1;\n"
	"  for (long off = 0; off < n; off += 4096) if (pread(fd, buf, 4096, off) != 4096) return -1;\n"
	"  return 0; }\n"
	"__attribute__((noinline)) static int write_chunk(int fd, const void *buf)\n"
	"{ return write(fd, buf, 4096) == 4096 ? 0 : -1; }\n"
	"__attribute__((noinline)) int known_writer_b(int fd, long m)\n"
	"{ static char buf[4096]; memset(buf, 'b', sizeof(buf));\n"
	"  for (long done = 0; done < m; done += 4096) if (write_chunk(fd, buf)) return -1;\n"
	"  return 0; }\n"
	"int main(int argc, char **argv)\n"
	"{ int fd, err; if (argc != 4) return 2;\n"
	"  if (argv[1][0] == 'r') { fd = open(argv[2], O_RDONLY | O_DIRECT);\n"
	"    err = fd < 0 || known_reader_a(fd, atol(argv[3])); }\n"
	"  else if (argv[1][0] == 'd') { fd = open(argv[2], O_RDONLY | O_DIRECT);\n"
	"    err = fd < 0 || known_direct_c(fd, atol(argv[3])); }\n"
	"  else { fd = open(argv[2], O_WRONLY | O_CREAT | O_TRUNC, 0644);\n"
	"    err = fd < 0 || known_writer_b(fd, atol(argv[3])); }\n"
	"  if (argv[1][1] != 'q') usleep(300000); return err ? 1 : 0; }\n";

static pid_t s_owner;
static char s_dir[256];		/* program and folded file ("" if none) */
static char s_mnt[256];		/* the mount point ("" if none) */
static bool s_mounted;

static void stacks_cleanup(void)
{
	struct h_result r;
	char path[512];

	if (!s_owner || getpid() != s_owner)
		return;
	if (s_mounted) {
		for (int tries = 0; tries < 20 && s_mounted; tries++) {
			h_run(H_ARGS("umount", s_mnt), NULL, NULL, 20000, &r);
			s_mounted = r.status != 0;
			h_result_free(&r);
			if (s_mounted)
				h_sleep_ms(100);
		}
		if (s_mounted) {
			h_run(H_ARGS("umount", "-l", s_mnt), NULL, NULL, 20000, &r);
			h_result_free(&r);
		}
		s_mounted = false;
	}
	if (s_mnt[0])
		rmdir(s_mnt);
	s_mnt[0] = '\0';
	if (s_dir[0]) {
		static const char *const files[] = { "prog.c", "known_prog", "stacks.folded",
						     "ns.sh", "stripped_prog" };

		for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
			snprintf(path, sizeof(path), "%s/%s", s_dir, files[i]);
			unlink(path);
		}
		rmdir(s_dir);
	}
	s_dir[0] = '\0';
}

static void stacks_setup(void)
{
	h_setup();
	s_owner = getpid();
	/* Registered after the harness's handler, so it runs first: the file
	 * system goes before its device. */
	atexit(stacks_cleanup);
}

static void stacks_teardown(void)
{
	stacks_cleanup();
	h_teardown();
}

TestSuite(stacks, .init = stacks_setup, .fini = stacks_teardown, .timeout = 120);

static void run_ok(const char *const argv[], int timeout_ms)
{
	struct h_result r;

	h_run(argv, NULL, NULL, timeout_ms, &r);
	if (r.status != 0) {
		cr_log_error("`%s` failed: %s%s", argv[0], r.out, r.err);
		h_result_free(&r);
		cr_assert_fail("`%s` failed", argv[0]);
	}
	h_result_free(&r);
}

/* The test program, built with frame pointers and no inlining. */
static void build_program(char *exe, size_t size)
{
	char src[512];
	FILE *f;

	snprintf(s_dir, sizeof(s_dir), H_STATE_DIR "/stacks-%d.XXXXXX", (int)getpid());
	cr_assert_not_null(mkdtemp(s_dir), "mkdtemp: %s", strerror(errno));
	snprintf(src, sizeof(src), "%s/prog.c", s_dir);
	snprintf(exe, size, "%s/known_prog", s_dir);
	f = fopen(src, "w");
	cr_assert_not_null(f);
	fputs(program_source, f);
	cr_assert_eq(fclose(f), 0);
	if (!h_have_program("cc"))
		cr_skip_test("no C compiler (cc) to build the test program");
	run_ok(H_ARGS("cc", "-O0", "-g", "-fno-omit-frame-pointer", "-fno-inline", "-o", exe, src),
	       60000);
}

/* ext4 on a zram disk, mounted, synced. */
static void make_fs(const struct h_dev *dev)
{
	if (!h_have_program("mkfs.ext4"))
		cr_skip_test("mkfs.ext4 not installed");
	run_ok(H_ARGS("mkfs.ext4", "-q", "-F", "-E",
		      "lazy_itable_init=0,lazy_journal_init=0,nodiscard", dev->path), 120000);
	h_udev_settle();
	snprintf(s_mnt, sizeof(s_mnt), MNT_PREFIX "%d.XXXXXX", (int)getpid());
	cr_assert_not_null(mkdtemp(s_mnt), "mkdtemp: %s", strerror(errno));
	run_ok(H_ARGS("mount", "-t", "ext4", dev->path, s_mnt), 30000);
	s_mounted = true;
	run_ok(H_ARGS("sync"), 60000);
	h_udev_settle();
}

static pid_t spawn_program(const char *exe, const char *mode, const char *path, unsigned int bytes)
{
	char count[32];
	pid_t pid;

	snprintf(count, sizeof(count), "%u", bytes);
	pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		h__child_prepare(-1);
		execl(exe, exe, mode, path, count, (char *)NULL);
		_exit(127);
	}
	h_track_child(pid);
	return pid;
}

/* Folded frames are functions: "+0x" only in "[unknown]_FILE+0xOFFSET". */
static void expect_frames_without_offsets(const char *line)
{
	const char *frame = line;

	for (const char *end; frame; frame = *end ? end + 1 : NULL) {
		end = strchrnul(frame, ';');
		if (strncmp(frame, "[unknown]", 9))
			cr_expect(!memmem(frame, end - frame, "+0x", 3),
				  "a folded frame with its offset: %.*s", (int)(end - frame), frame);
	}
}

/* Sum of the counts of the folded lines that contain needle (and also
 * also_needle, if not NULL); *lines gets how many there were. */
static uint64_t folded_bytes(const char *path, const char *needle, const char *also_needle,
			     int *lines)
{
	FILE *f = fopen(path, "r");
	char *line = NULL;
	size_t cap = 0;
	uint64_t sum = 0;

	cr_assert_not_null(f, "no folded file %s: %s", path, strerror(errno));
	*lines = 0;
	while (getline(&line, &cap, f) > 0) {
		char *space = strrchr(line, ' ');

		cr_assert_not_null(space, "a folded line without a count: %s", line);
		*space = '\0';
		expect_frames_without_offsets(line);
		if (!strstr(line, needle) || (also_needle && !strstr(line, also_needle)))
			continue;
		cr_log_info("folded: %s %s", line, space + 1);
		sum += strtoull(space + 1, NULL, 10);
		(*lines)++;
	}
	free(line);
	fclose(f);
	return sum;
}

/* Whether JSON array arr holds a string containing needle. */
static bool frames_contain(struct h_jv arr, const char *needle)
{
	struct h_jv frame;
	size_t pos = 0;
	char name[512];

	while (h_json_next_elem(arr, &pos, &frame))
		if (h_json_str(frame, name, sizeof(name)) > 0 && strstr(name, needle))
			return true;
	return false;
}

/* Over the interval records: the bytes (or dirtied bytes) of pid's stacks
 * on device whose user frames contain function. */
static int64_t json_stack_bytes(const struct h_diskio *d, uint32_t pid, const char *device,
				const char *function, const char *counter)
{
	int64_t sum = 0;

	for (size_t i = 0; i < d->nlines; i++) {
		struct h_jv row, stacks, stack, user;
		size_t pos = 0;

		if (!h_json_is_interval(d->lines[i]) ||
		    !h_json_find_process(d->lines[i], pid, device, &row))
			continue;
		cr_assert(h_json_get(row, "stacks", &stacks), "a row without stacks: %s",
			  d->lines[i]);
		while (h_json_next_elem(stacks, &pos, &stack)) {
			int64_t value;

			cr_assert(h_json_get(stack, "user", &user));
			cr_assert(h_json_get_int(stack, counter, &value));
			if (frames_contain(user, function))
				sum += value;
		}
	}
	return sum;
}

Test(stacks, known_functions_carry_their_bytes)
{
	const struct h_dev *raw = h_zram_create(DISK_SIZE), *fsdev = h_zram_create(DISK_SIZE);
	char exe[512], folded[512], file[512];
	pid_t reader, writer;
	struct h_diskio d;
	int lines;
	uint64_t bytes;

	build_program(exe, sizeof(exe));
	make_fs(fsdev);
	snprintf(folded, sizeof(folded), "%s/stacks.folded", s_dir);
	snprintf(file, sizeof(file), "%s/written", s_mnt);

	h_diskio_start(&d, H_ARGS("--json", "--stacks", "--stacks-top", "20", "--folded", folded,
				  "-D", raw->name, "-D", fsdev->name, "0.5"), NULL);
	h_diskio_wait_attached(&d, H_ATTACH_TIMEOUT_MS);
	reader = spawn_program(exe, "r", raw->path, READ_BYTES);
	writer = spawn_program(exe, "w", file, WRITE_BYTES);
	h_expect_child_ok(reader, H_CHILD_TIMEOUT_MS);
	h_expect_child_ok(writer, H_CHILD_TIMEOUT_MS);
	run_ok(H_ARGS("sync"), 60000);	/* the writer's writeback: no stack of its own */
	h_diskio_finish(&d, 2);
	h_expect_json_output(&d, 2);

	bytes = folded_bytes(folded, ";known_reader_a;", NULL, &lines);
	cr_expect_eq(bytes, READ_BYTES, "known_reader_a: %" PRIu64 " bytes in %d folded lines, "
		     "read %u", bytes, lines, READ_BYTES);
	bytes = folded_bytes(folded, ";known_reader_a;", "submit_bio", &lines);
	cr_expect_eq(bytes, READ_BYTES, "known_reader_a's kernel frames must show submit_bio*: "
		     "%" PRIu64 " bytes", bytes);
	bytes = folded_bytes(folded, ";known_writer_b;", NULL, &lines);
	cr_expect_eq(bytes, WRITE_BYTES, "known_writer_b: %" PRIu64 " bytes dirtied in %d folded "
		     "lines, written %u", bytes, lines, WRITE_BYTES);
	cr_expect_eq(json_stack_bytes(&d, reader, raw->name, "known_reader_a", "bytes"),
		     READ_BYTES, "the reader's row's stacks in JSON");
	cr_expect_eq(json_stack_bytes(&d, writer, fsdev->name, "known_writer_b", "dirtied_bytes"),
		     WRITE_BYTES, "the writer's row's stacks in JSON");
	h_diskio_free(&d);
}

Test(stacks, folded_into_a_missing_directory_fails_before_attaching)
{
	struct h_result r;

	h_run(H_ARGS(h_diskio_path(), "--stacks", "--folded", "/nonexistent-diskio-dir/x.folded",
		     "-b", "0.1", "1"), NULL, NULL, 20000, &r);
	cr_expect_eq(WEXITSTATUS(r.status), 1, "exit %d, stderr: %s", WEXITSTATUS(r.status), r.err);
	cr_expect_eq(r.out_len, 0, "nothing on stdout: %s", r.out);
	cr_expect(strstr(r.err, "diskio: ") == r.err, "one diskio: line: %s", r.err);
	h_result_free(&r);
}

Test(stacks, bad_values_are_usage_errors)
{
	static const char *const bad[][4] = {
		{ "--stacks=everything", NULL },
		{ "--stacks", "--stacks-mem", "12", NULL },
		{ "--stacks", "--stacks-top", "-1", NULL },
		{ "--folded", "/tmp/x.folded", NULL },
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		const char *argv[8] = { h_diskio_path() };
		struct h_result r;
		size_t n = 1;

		for (size_t k = 0; bad[i][k]; k++)
			argv[n++] = bad[i][k];
		h_run(argv, NULL, NULL, 20000, &r);
		cr_expect_eq(WEXITSTATUS(r.status), 2, "%s: exit %d", bad[i][0],
			     WEXITSTATUS(r.status));
		cr_expect(!strncmp(r.err, "diskio: ", 8), "%s: %s", bad[i][0], r.err);
		h_result_free(&r);
	}
}

/* A child that keeps a CPU busy until killed. */
static pid_t spawn_busy_loop(void)
{
	pid_t pid = fork();

	cr_assert_geq(pid, 0);
	if (pid == 0) {
		h__child_prepare(-1);
		for (volatile unsigned long spin = 0;; spin++)
			;
	}
	h_track_child(pid);
	return pid;
}

static void stop_busy_loop(pid_t pid)
{
	int status;

	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
}

/* A busy machine, as issue 49 has it: a busy loop per CPU plus one. */
#define MAX_BUSY_LOOPS	65

struct busy_loops {
	pid_t pids[MAX_BUSY_LOOPS];
	int n;
};

static void start_busy_loops(struct busy_loops *b)
{
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);

	b->n = cpus > 0 && cpus < MAX_BUSY_LOOPS ? (int)cpus + 1 : MAX_BUSY_LOOPS;
	for (int i = 0; i < b->n; i++)
		b->pids[i] = spawn_busy_loop();
}

static void stop_busy_loops(struct busy_loops *b)
{
	for (int i = 0; i < b->n; i++)
		stop_busy_loop(b->pids[i]);
	b->n = 0;
}

/* The folded file's lines, cut to fit out: what a failed check saw. */
static const char *folded_text(const char *path, char *out, size_t size)
{
	FILE *f = fopen(path, "r");
	size_t len = 0;

	out[0] = '\0';
	if (!f)
		return out;
	len = fread(out, 1, size - 1, f);
	out[len] = '\0';
	fclose(f);
	return out;
}

#define QUICK_RUNS	20
#define QUICK_BYTES	(11U * 65536)

/* diskio --json --stacks --folded FOLDED (in the test's directory) on raw,
 * every 0.5 s, attached. */
static void start_folded(struct h_diskio *d, const struct h_dev *raw, char *folded, size_t size)
{
	snprintf(folded, size, "%s/stacks.folded", s_dir);
	h_diskio_start(d, H_ARGS("--json", "--stacks", "--folded", folded, "-D", raw->name, "0.5"),
		       NULL);
	h_diskio_wait_attached(d, H_ATTACH_TIMEOUT_MS);
}

/* Integer key of the last interval record (-1: none): stack_frames_recovered,
 * stack_frames_unknown. */
static int64_t last_interval_int(const struct h_diskio *d, const char *key)
{
	int64_t value = -1;

	for (size_t i = 0; i < d->nlines; i++) {
		struct h_jv root;

		if (h_json_is_interval(d->lines[i]) && h_json_parse(d->lines[i], &root))
			h_json_get_int(root, key, &value);
	}
	return value;
}

static int64_t frames_recovered(const struct h_diskio *d)
{
	return last_interval_int(d, "stack_frames_recovered");
}

static int64_t frames_unknown(const struct h_diskio *d)
{
	return last_interval_int(d, "stack_frames_unknown");
}

/* Twenty processes that exit right after their last read, beside a busy
 * loop per CPU plus one: each one's reads are under its function, named
 * (the kernel gives the frames as build ids at the I/O, and the executable
 * is found by the path the kernel gave), and so is read_chunk, the caller
 * of the frameless pread, recovered from the stack bytes. */
Test(stacks, processes_that_exit_at_once_are_named_on_a_busy_machine)
{
	const struct h_dev *raw = h_zram_create(DISK_SIZE);
	char exe[512], folded[512], seen[2048];
	struct busy_loops busy;
	struct h_diskio d;
	int lines;
	uint64_t bytes;

	build_program(exe, sizeof(exe));
	start_folded(&d, raw, folded, sizeof(folded));
	start_busy_loops(&busy);
	for (int i = 0; i < QUICK_RUNS; i++)
		h_expect_child_ok(spawn_program(exe, "rq", raw->path, QUICK_BYTES),
				  H_CHILD_TIMEOUT_MS);
	stop_busy_loops(&busy);
	h_diskio_finish(&d, 2);
	h_expect_json_output(&d, 2);

	bytes = folded_bytes(folded, ";known_reader_a;", NULL, &lines);
	cr_expect_eq(bytes, (uint64_t)QUICK_RUNS * QUICK_BYTES,
		     "known_reader_a: %" PRIu64 " bytes in %d folded lines, read %u x %u:\n%s",
		     bytes, lines, QUICK_RUNS, QUICK_BYTES, folded_text(folded, seen, sizeof(seen)));
	bytes = folded_bytes(folded, ";known_reader_a;read_chunk;pread;", NULL, &lines);
	cr_expect_eq(bytes, (uint64_t)QUICK_RUNS * QUICK_BYTES,
		     "libc's pread named below known_reader_a and its helper: %" PRIu64
		     " bytes:\n%s", bytes, folded_text(folded, seen, sizeof(seen)));
	cr_expect_eq(frames_unknown(&d), 0, "stack_frames_unknown");
	h_diskio_free(&d);
}

/* A function that calls libc's pread itself, which keeps no frame of its
 * own: its caller is not in the frame pointer walk, and is found by libc's
 * .eh_frame rule at the syscall and the stack bytes the kernel copied.
 * Once in a process that stays, ten times in one that exits at once, with
 * a busy loop per CPU plus one. */
Test(stacks, the_caller_of_a_frameless_libc_wrapper_is_found)
{
	const struct h_dev *raw = h_zram_create(DISK_SIZE);
	char exe[512], folded[512], seen[2048];
	struct busy_loops busy;
	struct h_diskio d;
	int lines;
	uint64_t bytes;

	build_program(exe, sizeof(exe));
	start_folded(&d, raw, folded, sizeof(folded));
	start_busy_loops(&busy);
	h_expect_child_ok(spawn_program(exe, "d", raw->path, QUICK_BYTES), H_CHILD_TIMEOUT_MS);
	for (int i = 0; i < 10; i++)
		h_expect_child_ok(spawn_program(exe, "dq", raw->path, QUICK_BYTES),
				  H_CHILD_TIMEOUT_MS);
	stop_busy_loops(&busy);
	h_diskio_finish(&d, 2);
	h_expect_json_output(&d, 2);

	bytes = folded_bytes(folded, ";main;known_direct_c;pread;", NULL, &lines);
	cr_expect_eq(bytes, 11ULL * QUICK_BYTES,
		     "known_direct_c between main and libc's pread: %" PRIu64 " bytes in %d "
		     "folded lines, read 11 x %u:\n%s", bytes, lines, QUICK_BYTES,
		     folded_text(folded, seen, sizeof(seen)));
	cr_expect_geq(frames_recovered(&d), 1, "stack_frames_recovered");
	cr_expect_eq(frames_unknown(&d), 0, "stack_frames_unknown");
	h_diskio_free(&d);
}

/* How many of pid's stacks' user frames on device say why as why they have
 * no name, over the interval records. */
static int64_t unknown_frames_said(const struct h_diskio *d, uint32_t pid, const char *device,
				   const char *why)
{
	int64_t said = 0;

	for (size_t i = 0; i < d->nlines; i++) {
		struct h_jv row, stacks, stack, unknown, each;
		size_t pos = 0;

		if (!h_json_is_interval(d->lines[i]) ||
		    !h_json_find_process(d->lines[i], pid, device, &row) ||
		    !h_json_get(row, "stacks", &stacks))
			continue;
		while (h_json_next_elem(stacks, &pos, &stack)) {
			size_t at = 0;
			char word[64];

			cr_assert(h_json_get(stack, "user_unknown", &unknown), "%s", d->lines[i]);
			while (h_json_next_elem(unknown, &at, &each))
				said += h_json_str(each, word, sizeof(word)) > 0 && !strcmp(word, why);
		}
	}
	return said;
}

/* A program stripped of its symbols: its three frames (main, known_reader_a
 * and read_chunk, the caller of the frameless pread) have no name; each says
 * "stripped", and the interval records count them: 3 frames of 1 stack. */
Test(stacks, frames_without_a_name_say_why_and_are_counted)
{
	const struct h_dev *raw = h_zram_create(DISK_SIZE);
	char exe[512], stripped[512], folded[512];
	struct h_diskio d;
	pid_t reader;

	build_program(exe, sizeof(exe));
	snprintf(stripped, sizeof(stripped), "%s/stripped_prog", s_dir);
	run_ok(H_ARGS("cc", "-O0", "-s", "-fno-omit-frame-pointer", "-fno-inline", "-o", stripped,
		      strcat(strcpy(folded, s_dir), "/prog.c")), 60000);
	start_folded(&d, raw, folded, sizeof(folded));
	reader = spawn_program(stripped, "r", raw->path, QUICK_BYTES);
	h_expect_child_ok(reader, H_CHILD_TIMEOUT_MS);
	h_diskio_finish(&d, 2);
	h_expect_json_output(&d, 2);

	cr_expect_eq(unknown_frames_said(&d, reader, raw->name, "stripped"), 3,
		     "main, known_reader_a and read_chunk say stripped");
	cr_expect_eq(frames_unknown(&d), 3, "stack_frames_unknown: %" PRId64, frames_unknown(&d));
	h_diskio_free(&d);
}

/* A container's entrypoint: a program on a tmpfs mounted only in its own
 * mount namespace (diskio cannot see that path), exiting at once while
 * its shell still runs, beside a busy loop per CPU plus one: named through
 * the shell's root, exact bytes. */
Test(stacks, a_program_in_a_private_mount_namespace_is_named)
{
	const struct h_dev *raw = h_zram_create(DISK_SIZE);
	char exe[512], folded[512], script[512], mnt[600], count[32], seen[2048];
	struct busy_loops busy;
	struct h_diskio d;
	FILE *f;
	int lines;
	uint64_t bytes;

	if (!h_have_program("unshare"))
		cr_skip_test("unshare not installed");
	build_program(exe, sizeof(exe));
	snprintf(script, sizeof(script), "%s/ns.sh", s_dir);
	snprintf(mnt, sizeof(mnt), "%s/nsmnt", s_dir);
	cr_assert_eq(mkdir(mnt, 0755), 0);
	snprintf(count, sizeof(count), "%u", QUICK_BYTES);
	f = fopen(script, "w");
	cr_assert_not_null(f);
	fprintf(f, "mount -t tmpfs none '%s' && cp '%s' '%s/ns_prog' && '%s/ns_prog' rq '%s' %s\n"
		"status=$?\nsleep 0.3\nexit $status\n", mnt, exe, mnt, mnt, raw->path, count);
	cr_assert_eq(fclose(f), 0);

	start_folded(&d, raw, folded, sizeof(folded));
	start_busy_loops(&busy);
	run_ok(H_ARGS("unshare", "-m", "--propagation", "private", "sh", script), 60000);
	stop_busy_loops(&busy);
	h_diskio_finish(&d, 2);
	h_expect_json_output(&d, 2);
	rmdir(mnt);

	bytes = folded_bytes(folded, "ns_prog;", ";known_reader_a;", &lines);
	cr_expect_eq(bytes, (uint64_t)QUICK_BYTES,
		     "known_reader_a in the namespace: %" PRIu64 " bytes in %d lines:\n%s", bytes,
		     lines, folded_text(folded, seen, sizeof(seen)));
	cr_expect_eq(frames_unknown(&d), 0, "stack_frames_unknown");
	h_diskio_free(&d);
}

/* Over pid's rows on device in the interval records: the row's write bytes
 * and I/Os, and the same summed over its stacks (with the most I/Os one
 * stack had in one interval). */
struct stack_sums {
	int64_t row_bytes, row_ios, stack_bytes, stack_ios, max_stack_ios;
};

static void sum_stacks(const struct h_diskio *d, uint32_t pid, const char *device,
		       struct stack_sums *s)
{
	memset(s, 0, sizeof(*s));
	for (size_t i = 0; i < d->nlines; i++) {
		struct h_jv row, stacks, stack;
		size_t pos = 0;
		int64_t value;

		if (!h_json_is_interval(d->lines[i]) ||
		    !h_json_find_process(d->lines[i], pid, device, &row))
			continue;
		cr_assert(h_json_get_int(row, "write_bytes", &value));
		s->row_bytes += value;
		cr_assert(h_json_get_int(row, "write_ios", &value));
		s->row_ios += value;
		cr_assert(h_json_get(row, "stacks", &stacks), "%s", d->lines[i]);
		while (h_json_next_elem(stacks, &pos, &stack)) {
			cr_assert(h_json_get_int(stack, "bytes", &value));
			s->stack_bytes += value;
			cr_assert(h_json_get_int(stack, "ios", &value));
			s->stack_ios += value;
			if (value > s->max_stack_ios)
				s->max_stack_ios = value;
		}
	}
}

/* 200 writes of 64 KiB with O_DIRECT: the stack holding them says ios=200
 * and the row's stacks sum to its bytes and I/Os, on a blk-mq disk (whose
 * I/O is a request, started after its bio was queued, on another stack of
 * the kernel's) and on a bio-based one. */
static void stacks_carry_their_ios(const struct h_dev *dev)
{
	static const struct h_io ops[] = { { 'w', 0, 65536, 200 } };
	struct stack_sums s;
	struct h_diskio d;
	pid_t writer;

	h_diskio_start(&d, H_ARGS("--json", "--stacks", "-D", dev->name, "0.5"), NULL);
	h_diskio_wait_attached(&d, H_ATTACH_TIMEOUT_MS);
	writer = h_spawn_io("stackios", dev->path, ops, 1, NULL);
	h_expect_child_ok(writer, H_CHILD_TIMEOUT_MS);
	h_diskio_finish(&d, 2);
	sum_stacks(&d, writer, dev->name, &s);
	cr_expect_eq(s.row_bytes, 200 * 65536, "%s: row bytes", dev->name);
	cr_expect_eq(s.row_ios, 200, "%s: row I/Os", dev->name);
	cr_expect_eq(s.stack_bytes, s.row_bytes, "%s: stacks' bytes", dev->name);
	cr_expect_eq(s.stack_ios, s.row_ios, "%s: stacks' I/Os", dev->name);
	cr_expect_gt(s.max_stack_ios, 0, "%s: no stack with I/Os", dev->name);
	h_diskio_free(&d);
}

Test(stacks, every_stack_carries_its_ios_on_blk_mq)
{
	stacks_carry_their_ios(h_loop_create(DISK_SIZE));
}

Test(stacks, every_stack_carries_its_ios_on_bio_based)
{
	stacks_carry_their_ios(h_zram_create(DISK_SIZE));
}
