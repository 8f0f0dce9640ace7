// SPDX-License-Identifier: GPL-2.0
/*
 * Every example of `diskio --help` and of README.md's ```sh blocks, run as
 * written against known I/O, with its answer checked; the awk examples under
 * mawk and under gawk (Debian's default awk is mawk, whose print shows numbers
 * above 2^31 as 3.68175e+09 and whose printf "%d" stops at 2147483647).
 *
 * The examples are read from the binary's help and from the README, not
 * copied here: an example that this file does not know fails the test, so a
 * new example needs a known answer.  What the test changes in a command is
 * only what names this machine's things, word by word: a disk name or
 * MAJ:MIN becomes one of the test's disks, a PID one of its processes, the
 * state file a path in a temporary directory.  `sudo ./diskio` and `diskio`
 * run the binary under test through a script named diskio first in PATH
 * (which records diskio's pid, so that the test knows when the programs are
 * attached and can stop an example that runs until Ctrl-C), and `awk` is
 * mawk or gawk by the same PATH.  Examples for the top view run on a
 * pseudo-terminal (script(1)); the others write to a file.
 */
#include "harness.h"
#include <libgen.h>
#include <sys/resource.h>
#include <sys/sysmacros.h>

#define BS		4096U
#define MiB		(1024ULL * 1024ULL)
#define DEV_SIZE	(64ULL * MiB)
/* The README's sums see more than 2^31 bytes of one process or cgroup: 40
 * passes of 64 x 1 MiB over the disk. */
#define BIG_PASSES	40
#define BIG_BYTES	((uint64_t)BIG_PASSES * 64 * MiB)
#define SMALL_BYTES	(256ULL * BS)	/* 1 MiB as 256 x 4 KiB */
#define TRACE_IOS	64
#define EXAMPLE_TIMEOUT_MS 40000

TestSuite(examples, .init = h_setup, .fini = h_teardown, .timeout = 240);

static const struct h_io small_ops[] = { { 'w', 0, BS, 256 } };
static const struct h_io trace_ops[] = { { 'w', 0, BS, TRACE_IOS } };
static struct h_io big_ops[BIG_PASSES];

/* ================================================== finding examples == */

#define MAX_EXAMPLES 32

struct found {
	char *command[MAX_EXAMPLES];
	size_t n;
};

static void found_add(struct found *f, const char *text, size_t len)
{
	while (len && isspace((unsigned char)text[len - 1]))
		len--;
	cr_assert_lt(f->n, MAX_EXAMPLES);
	f->command[f->n] = strndup(text, len);
	cr_assert_not_null(f->command[f->n]);
	f->n++;
}

static void found_free(struct found *f)
{
	for (size_t i = 0; i < f->n; i++)
		free(f->command[i]);
	f->n = 0;
}

/* The lines after "EXAMPLES:" up to an empty line, without the comment
 * ("   # ...") that follows each command. */
static void help_examples(struct found *f)
{
	struct h_result r;
	char *line, *save = NULL;
	bool in_examples = false;

	h_run(H_ARGS(h_diskio_path(), "--help"), NULL, NULL, 10000, &r);
	cr_assert(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0, "diskio --help: %s", r.err);
	for (line = strtok_r(r.out, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		const char *comment;

		if (!in_examples) {
			in_examples = !strcmp(line, "EXAMPLES:");
			continue;
		}
		if (strncmp(line, "  diskio", 8))
			break;	/* the options (strtok_r skips the empty line) */
		comment = strstr(line, "  # ");
		cr_assert_not_null(comment, "help example without a comment: %s", line);
		found_add(f, line + 2, comment - line - 2);
	}
	h_result_free(&r);
	cr_assert_geq(f->n, 8, "only %zu examples in the help", f->n);
}

/* The command lines of README.md's ```sh blocks that run diskio.  Other
 * lines there must be `sudo make` targets (how to build and test) or
 * comments, so that no example is left out unseen. */
static void readme_examples(struct found *f)
{
	char path[PATH_MAX], dir[PATH_MAX], line[4096];
	bool in_sh = false;
	FILE *readme;

	snprintf(dir, sizeof(dir), "%s", h_diskio_path());
	snprintf(path, sizeof(path), "%s/README.md", dirname(dir));
	readme = fopen(path, "r");
	cr_assert_not_null(readme, "%s: %s", path, strerror(errno));
	while (fgets(line, sizeof(line), readme)) {
		line[strcspn(line, "\n")] = '\0';
		if (!in_sh) {
			in_sh = !strcmp(line, "```sh");
			continue;
		}
		if (!strcmp(line, "```")) {
			in_sh = false;
		} else if (!strncmp(line, "sudo ./diskio ", 14)) {
			found_add(f, line, strlen(line));
		} else {
			cr_assert(!line[0] || line[0] == '#' || !strncmp(line, "sudo make ", 10),
				  "a README ```sh line that is no example the test knows: %s", line);
		}
	}
	fclose(readme);
	cr_assert_geq(f->n, 3, "only %zu examples in the README", f->n);
}

/* ======================================================= a run == */

struct ctx {
	char tmp[PATH_MAX];		/* the example's directory */
	char bin[PATH_MAX + 8];		/* PATH's first directory: diskio, awk */
	const struct h_dev *zram, *loop;
	char loop_majmin[32];
	char cgroup_dir[PATH_MAX];	/* made for the cgroup examples, "" else */
	const char *cgroup;		/* its path under the cgroup2 mount */
	pid_t pid_a, pid_b;		/* -p examples: the processes that stand for 1234, 5678 */
};

static void write_text(const char *path, const char *text, mode_t mode)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, mode);

	cr_assert(fd >= 0, "%s: %s", path, strerror(errno));
	cr_assert_eq(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
}

static void ctx_init(struct ctx *c, const char *awk)
{
	char path[PATH_MAX + 16], script[PATH_MAX * 2];

	memset(c, 0, sizeof(*c));
	snprintf(c->tmp, sizeof(c->tmp), "/tmp/diskio-examples-XXXXXX");
	cr_assert_not_null(mkdtemp(c->tmp));
	snprintf(c->bin, sizeof(c->bin), "%s/bin", c->tmp);
	cr_assert_eq(mkdir(c->bin, 0755), 0);
	snprintf(path, sizeof(path), "%s/diskio", c->bin);
	snprintf(script, sizeof(script),
		 "#!/bin/sh\n"
		 "# The binary under test, its pid written first (exec keeps it).\n"
		 "echo $$ > '%s/diskio.pid'\n"
		 "exec '%s' \"$@\"\n", c->tmp, h_diskio_path());
	write_text(path, script, 0755);
	if (awk) {
		snprintf(path, sizeof(path), "%s/awk", c->bin);
		cr_assert_eq(symlink(awk, path), 0, "%s: %s", path, strerror(errno));
	}
}

static void ctx_cleanup(struct ctx *c)
{
	char cmd[PATH_MAX + 16];

	if (c->cgroup_dir[0])
		for (int i = 0; i < 50 && rmdir(c->cgroup_dir) && errno == EBUSY; i++)
			h_sleep_ms(100);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", c->tmp);
	if (system(cmd))
		cr_log_info("could not remove %s", c->tmp);
}

/* A cgroup of the test's own, for the I/O of the cgroup examples. */
static void ctx_make_cgroup(struct ctx *c)
{
	char mount_dir[PATH_MAX - 64];

	if (!h_cgroup2_mount(mount_dir, sizeof(mount_dir)))
		cr_skip_test("no cgroup2 hierarchy");
	snprintf(c->cgroup_dir, sizeof(c->cgroup_dir), "%s/diskio-example-%d", mount_dir,
		 (int)getpid());
	cr_assert(!mkdir(c->cgroup_dir, 0755) || errno == EEXIST, "%s: %s", c->cgroup_dir,
		  strerror(errno));
	c->cgroup = c->cgroup_dir + strlen(mount_dir);
}

static void ctx_join_cgroup(const struct ctx *c, pid_t pid)
{
	char path[PATH_MAX + 16], text[32];

	snprintf(path, sizeof(path), "%s/cgroup.procs", c->cgroup_dir);
	snprintf(text, sizeof(text), "%d\n", (int)pid);
	cr_assert_eq(h_write_file(path, text), 0, "moving %d to %s", (int)pid, c->cgroup_dir);
}

/* The command to run: `sudo ./diskio` is `diskio`, and the words that name
 * this machine's disks, processes and files name the test's. */
static void localize(const struct ctx *c, const char *example, char *out, size_t size)
{
	char pid_a[16], pid_b[16], state[PATH_MAX + 16], prom[PATH_MAX + 16];
	const char *const words[][2] = {
		{ "vda", c->zram->name }, { "zram0", c->zram->name },
		{ "8:16", c->loop_majmin }, { "1234", pid_a }, { "5678", pid_b },
		{ "/var/lib/diskio/crash.state", state }, { "/run/diskio.prom", prom },
	};
	const char *p = example;
	size_t n = 0;

	snprintf(pid_a, sizeof(pid_a), "%d", (int)c->pid_a);
	snprintf(pid_b, sizeof(pid_b), "%d", (int)c->pid_b);
	snprintf(state, sizeof(state), "%s/crash.state", c->tmp);
	snprintf(prom, sizeof(prom), "%s/diskio.prom", c->tmp);
	if (!strncmp(p, "sudo ./diskio ", 14))
		p += 7;		/* "diskio ..." */
	out[0] = '\0';
	while (*p) {
		size_t len = strcspn(p, " ");
		const char *word = NULL;

		for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++)
			if (strlen(words[i][0]) == len && !strncmp(p, words[i][0], len))
				word = words[i][1];
		n += snprintf(out + n, size - n, "%s", word ? word : "");
		if (!word)
			n += snprintf(out + n, size - n, "%.*s", (int)len, p);
		p += len;
		if (*p)
			n += snprintf(out + n, size - n, "%c", *p++);
		cr_assert_lt(n, size);
	}
}

/* The pid of the example's diskio once its programs are attached: a bpf_link
 * among its descriptors, then a moment for the rest to attach.  0 if it
 * never attached. */
static pid_t wait_attached(const struct ctx *c, int timeout_ms)
{
	char path[PATH_MAX + 16], text[32];
	int64_t deadline = h_now_ms() + timeout_ms;
	pid_t pid = 0;

	snprintf(path, sizeof(path), "%s/diskio.pid", c->tmp);
	while (h_now_ms() < deadline) {
		char fd_dir[64], link[PATH_MAX], target[256];
		struct dirent *e;
		DIR *dir;

		if (!pid && h_read_file(path, text, sizeof(text)) > 0)
			pid = atoi(text);
		snprintf(fd_dir, sizeof(fd_dir), "/proc/%d/fd", (int)pid);
		if (pid > 0 && (dir = opendir(fd_dir))) {
			bool linked = false;

			while ((e = readdir(dir)) && !linked) {
				ssize_t len;

				snprintf(link, sizeof(link), "%s/%s", fd_dir, e->d_name);
				len = readlink(link, target, sizeof(target) - 1);
				linked = len > 0 && (target[len] = '\0', !strcmp(target, "anon_inode:bpf_link"));
			}
			closedir(dir);
			if (linked) {
				h_sleep_ms(500);
				return pid;
			}
		}
		h_sleep_ms(50);
	}
	return 0;
}

struct example_run {
	char command[4096];	/* as run */
	char *out;		/* all of its stdout */
	char *err;
	int status;
};

static void example_run_free(struct example_run *r)
{
	free(r->out);
	free(r->err);
}

/* Run example (localized) by sh, or on a pseudo-terminal by script(1); once
 * diskio is attached, release the gate and wait for the I/O children; with
 * interrupt, SIGINT diskio after an interval more; then wait for the end. */
static void run_example(struct ctx *c, const char *example, bool tty, bool interrupt,
			struct h_gate *gate, const pid_t *children, size_t nchildren,
			struct example_run *r)
{
	char out_path[PATH_MAX + 16], err_path[PATH_MAX + 16], path_env[8192];
	pid_t shell, diskio;
	int64_t deadline;

	memset(r, 0, sizeof(*r));
	localize(c, example, r->command, sizeof(r->command));
	snprintf(out_path, sizeof(out_path), "%s/stdout", c->tmp);
	snprintf(err_path, sizeof(err_path), "%s/stderr", c->tmp);
	snprintf(path_env, sizeof(path_env), "%s:%s", c->bin,
		 getenv("PATH") ? getenv("PATH") : "/usr/sbin:/usr/bin:/sbin:/bin");
	fflush(NULL);
	shell = fork();
	cr_assert(shell >= 0);
	if (!shell) {
		int out = open(out_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		int err = open(err_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		int in = open("/dev/null", O_RDONLY);

		if (out < 0 || err < 0 || in < 0 || dup2(in, 0) < 0 || dup2(out, 1) < 0 ||
		    dup2(err, 2) < 0)
			_exit(126);
		h__child_prepare(-1);
		setenv("PATH", path_env, 1);
		setenv("LC_ALL", "C.UTF-8", 1);
		if (tty)
			execlp("script", "script", "-q", "-e", "-c", r->command, "/dev/null",
			       (char *)NULL);
		else
			execl("/bin/sh", "sh", "-c", r->command, (char *)NULL);
		_exit(127);
	}
	h_track_child(shell);
	diskio = wait_attached(c, H_ATTACH_TIMEOUT_MS);
	if (!diskio) {
		h_kill_child(shell);
		cr_assert_fail("%s: diskio did not attach", r->command);
	}
	h_gate_open(gate);
	for (size_t i = 0; i < nchildren; i++)
		h_expect_child_ok(children[i], 60000);
	if (interrupt) {
		h_sleep_ms(2500);	/* one whole 1 s interval after the I/O */
		kill(diskio, SIGINT);
	}
	deadline = h_now_ms() + EXAMPLE_TIMEOUT_MS;
	if (h_wait_pid(shell, (int)(deadline - h_now_ms()), &r->status)) {
		h_kill_child(shell);
		cr_assert_fail("%s: did not end", r->command);
	}
	h_untrack_child(shell);
	r->out = calloc(1, 1 << 22);
	r->err = calloc(1, 1 << 16);
	cr_assert(r->out && r->err);
	cr_assert_geq(h_read_file(out_path, r->out, 1 << 22), 0);
	cr_assert_geq(h_read_file(err_path, r->err, 1 << 16), 0);
	cr_assert(WIFEXITED(r->status) && WEXITSTATUS(r->status) == 0,
		  "%s: exit status %#x, stderr: %s", r->command, r->status, r->err);
}

/* ========================================================== checks == */

/* Calls fn for each line of text (modified in place). */
#define FOR_EACH_LINE(text, line, save) \
	for (char *save = NULL, *line = strtok_r((text), "\r\n", &save); line; \
	     line = strtok_r(NULL, "\r\n", &save))

static bool is_integer(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!isdigit((unsigned char)*s))
			return false;
	return true;
}

/* "NUMBER NAME" lines (or "NAME NUMBER" with name_first), every number a
 * plain integer; the number of the line named name, -1 if none.  With
 * sorted, the numbers must descend. */
static int64_t number_of(char *text, const char *name, bool name_first, int numbers,
			 bool sorted, const char *what)
{
	int64_t found = -1;
	double previous = 1e300;

	FOR_EACH_LINE(text, line, save) {
		char *fields[8];
		int n = h_split_fields(line, fields, 8);

		cr_assert_eq(n, numbers + 1, "%s: not %d fields: %s", what, numbers + 1, line);
		for (int i = 0; i < numbers; i++)
			cr_assert(is_integer(fields[name_first ? i + 1 : i]),
				  "%s: not a whole number (mawk?): %s", what, line);
		if (sorted) {
			double value = strtod(fields[0], NULL);

			cr_assert_leq(value, previous, "%s: not sorted: %s", what, line);
			previous = value;
		}
		if (!strcmp(fields[name_first ? 0 : numbers], name)) {
			cr_assert_eq(found, -1, "%s: %s twice", what, name);
			found = strtoll(fields[name_first ? 1 : numbers - 1], NULL, 10);
		}
		h_free_fields(fields, n, 8);
	}
	return found;
}

/* Sum over batch data lines: field value_field (1-based) where field
 * key_field is key; also counts them.  Asserts every data line has 15
 * fields and that a line of another key than allowed[] does not appear. */
static int64_t batch_sum(char *text, int key_field, const char *key, int value_field,
			 const char *const *allowed_keys, int *lines)
{
	int64_t sum = 0;

	*lines = 0;
	FOR_EACH_LINE(text, line, save) {
		char *fields[H_BATCH_FIELDS + 1];
		int n;

		if (line[0] == '#')
			continue;
		n = h_split_fields(line, fields, H_BATCH_FIELDS + 1);
		cr_assert_eq(n, H_BATCH_FIELDS, "not a batch line: %s", line);
		/* RFC 3339 with milliseconds: 2026-11-23T07:01:50.123Z */
		cr_assert(strlen(fields[0]) == 24 && fields[0][19] == '.' && fields[0][23] == 'Z',
			  "time %s", fields[0]);
		if (allowed_keys) {
			bool allowed = false;

			for (const char *const *k = allowed_keys; *k; k++)
				allowed |= !strcmp(fields[key_field - 1], *k);
			cr_assert(allowed, "a row the filter should have left out: %s", line);
		}
		if (!strcmp(fields[key_field - 1], key)) {
			sum += strtoll(fields[value_field - 1], NULL, 10);
			(*lines)++;
		}
		h_free_fields(fields, n, H_BATCH_FIELDS + 1);
	}
	return sum;
}

/* ======================================================= examples == */

enum io_plan {
	IO_SMALL,	/* one child writes SMALL_BYTES */
	IO_BIG,		/* one child writes BIG_BYTES */
	IO_TWO_PIDS,	/* children a, b (named by -p) and c (not) */
	IO_TWO_DISKS,	/* one child on the zram disk, one on the loop device */
	IO_TRACE,	/* TRACE_IOS writes of 4 KiB */
	IO_CRASH,	/* SMALL_BYTES, and a child that dies of SIGSEGV */
};

struct example {
	const char *command;	/* exactly as in the help or README */
	bool tty;		/* the top view: on a pseudo-terminal */
	bool interrupt;		/* runs until Ctrl-C */
	bool awk;		/* under mawk and under gawk */
	bool cgroup;		/* the I/O in a cgroup of the test's */
	enum io_plan io;
	const char *comm;	/* the I/O child's name */
	void (*check)(struct ctx *c, struct example_run *r, const struct example *e);
};

static void check_top(struct ctx *c, struct example_run *r, const struct example *e)
{
	bool row = false;

	/* A frame of the top view, and our process's row on our disk. */
	cr_assert(strstr(r->out, "\033["), "%s: no escape codes: not the top view", r->command);
	FOR_EACH_LINE(r->out, line, save)
		row |= strstr(line, e->comm) && strstr(line, c->zram->name);
	cr_assert(row, "%s: no row of %s on %s", r->command, e->comm, c->zram->name);
}

static void check_writers(struct ctx *c, struct example_run *r, const struct example *e)
{
	int64_t sum = 0;

	(void)c;
	/* "comm write_bytes" per data line that wrote: never a '#' line's words */
	FOR_EACH_LINE(r->out, line, save) {
		char *fields[4];
		int n = h_split_fields(line, fields, 4);

		cr_assert_eq(n, 2, "%s: not 'comm bytes': %s", r->command, line);
		cr_assert(is_integer(fields[1]) && strcmp(fields[1], "0"),
			  "%s: not a byte count > 0: %s", r->command, line);
		cr_assert_null(strchr(fields[0], '='), "%s: a '#' line's field: %s", r->command,
			       line);
		if (!strcmp(fields[0], e->comm))
			sum += strtoll(fields[1], NULL, 10);
		h_free_fields(fields, n, 4);
	}
	cr_assert_eq(sum, (int64_t)BIG_BYTES, "%s: %s wrote %" PRId64 " bytes, not %" PRIu64,
		     r->command, e->comm, sum, (uint64_t)BIG_BYTES);
}

static void check_json(struct ctx *c, struct example_run *r, const struct example *e)
{
	int intervals = 0, summaries = 0;
	struct h_counters sum = { 0 };
	char **lines = calloc(64, sizeof(*lines));
	size_t n = 0;

	(void)c;
	cr_assert_not_null(lines);
	FOR_EACH_LINE(r->out, line, save) {
		struct h_jv root;

		cr_assert(h_json_parse(line, &root), "%s: not JSON: %.300s", r->command, line);
		intervals += h_json_is_interval(line);
		summaries += h_json_is_summary(line);
		cr_assert_lt(n, 64);
		lines[n++] = line;
	}
	cr_assert_eq(intervals, 3, "%s: %d intervals", r->command, intervals);
	cr_assert_eq(summaries, 1, "%s: %d summaries", r->command, summaries);
	cr_assert(h_json_is_summary(lines[n - 1]), "%s: the summary is not last", r->command);
	h_json_sum_process(lines, n, 0, NULL, e->comm, &sum);
	cr_assert_eq(sum.write_bytes, (int64_t)SMALL_BYTES, "%s: %s wrote %" PRId64, r->command,
		     e->comm, sum.write_bytes);
	free(lines);
}

static void check_pids(struct ctx *c, struct example_run *r, const struct example *e)
{
	char a[16], b[16], *copy = strdup(r->out);
	const char *const allowed[] = { a, b, NULL };
	int lines;

	(void)e;
	cr_assert_not_null(copy);
	snprintf(a, sizeof(a), "%d", (int)c->pid_a);
	snprintf(b, sizeof(b), "%d", (int)c->pid_b);
	cr_assert_eq(batch_sum(copy, 2, a, 6, allowed, &lines), (int64_t)SMALL_BYTES,
		     "%s: pid %s", r->command, a);
	cr_assert_eq(batch_sum(r->out, 2, b, 6, allowed, &lines), (int64_t)SMALL_BYTES,
		     "%s: pid %s", r->command, b);
	free(copy);
}

static void check_comm(struct ctx *c, struct example_run *r, const struct example *e)
{
	const char *const allowed[] = { e->comm, NULL };
	char *copy = strdup(r->out);
	int lines;

	(void)c;
	cr_assert_not_null(copy);
	cr_assert_eq(batch_sum(copy, 3, e->comm, 6, allowed, &lines), (int64_t)SMALL_BYTES,
		     "%s", r->command);
	free(copy);
	/* -L: the rows that did I/O have a latency, not "-" */
	FOR_EACH_LINE(r->out, line, save) {
		char *fields[H_BATCH_FIELDS];
		int n;

		if (line[0] == '#')
			continue;
		n = h_split_fields(line, fields, H_BATCH_FIELDS);
		if (strcmp(fields[8], "0"))
			cr_assert(strcmp(fields[11], "-") && strtod(fields[11], NULL) > 0,
				  "%s: no latency: %s", r->command, line);
		h_free_fields(fields, n, H_BATCH_FIELDS);
	}
}

static void check_disks(struct ctx *c, struct example_run *r, const struct example *e)
{
	const char *const allowed[] = { c->zram->name, c->loop->name, NULL };
	char *copy = strdup(r->out);
	int lines;

	(void)e;
	cr_assert_not_null(copy);
	cr_assert_eq(batch_sum(copy, 4, c->zram->name, 6, allowed, &lines), (int64_t)SMALL_BYTES,
		     "%s: %s", r->command, c->zram->name);
	cr_assert_eq(batch_sum(r->out, 4, c->loop->name, 6, allowed, &lines),
		     (int64_t)SMALL_BYTES, "%s: %s", r->command, c->loop->name);
	free(copy);
}

static void check_trace(struct ctx *c, struct example_run *r, const struct example *e)
{
	int ours = 0;

	FOR_EACH_LINE(r->out, line, save) {
		char *fields[9];
		int n;

		if (line[0] == '#')
			continue;
		n = h_split_fields(line, fields, 9);
		cr_assert_eq(n, 8, "%s: not a trace line: %s", r->command, line);
		cr_assert_str_eq(fields[3], c->zram->name, "%s: %s", r->command, line);
		if (!strcmp(fields[2], e->comm)) {
			ours++;
			cr_assert(fields[4][0] == 'W' && !strcmp(fields[6], "4096"), "%s: %s",
				  r->command, line);
		}
		h_free_fields(fields, n, 9);
	}
	cr_assert_eq(ours, TRACE_IOS, "%s: %d lines of %s", r->command, ours, e->comm);
}

static void check_by_cgroup(struct ctx *c, struct example_run *r, const struct example *e)
{
	int lines;

	(void)e;
	cr_assert_eq(batch_sum(r->out, 15, c->cgroup, 6, NULL, &lines), (int64_t)SMALL_BYTES,
		     "%s: cgroup %s", r->command, c->cgroup);
	cr_assert_gt(lines, 0);
}

/* The crash line that ends the output, and the state file kept. */
static void check_state(struct ctx *c, struct example_run *r, const struct example *e)
{
	char expect[256], path[PATH_MAX + 16], state[64];
	const char *last = NULL;

	(void)e;
	snprintf(expect, sizeof(expect), "# crash interval_s=3600 operational_intervals=0 "
		 "crashfree_intervals=0 crashes=1 by_process=dio-ex-crash:1");
	FOR_EACH_LINE(r->out, line, save)
		last = line;
	cr_assert_not_null(last, "%s: no output", r->command);
	cr_assert_str_eq(last, expect, "%s", r->command);
	snprintf(path, sizeof(path), "%s/crash.state", c->tmp);
	cr_assert_gt(h_read_file(path, state, sizeof(state)), 0, "%s: no state file", r->command);
	cr_assert(!strncmp(state, "diskio-crashfree", 16), "%s: state %s", r->command, state);
}

/* Only '# crash ' lines, the last one the summary's with the crash. */
static void check_grep_crash(struct ctx *c, struct example_run *r, const struct example *e)
{
	char *copy = strdup(r->out);

	cr_assert_not_null(copy);
	FOR_EACH_LINE(copy, line, save)
		cr_assert(!strncmp(line, "# crash ", 8), "%s: %s", r->command, line);
	free(copy);
	check_state(c, r, e);
}

/* Nothing on stdout; the --prom file has the child's bytes, written at exit
 * (the 15 s interval never ended). */
static void check_prom(struct ctx *c, struct example_run *r, const struct example *e)
{
	char path[PATH_MAX + 16], want[256], *text = calloc(1, 1 << 20);

	cr_assert_not_null(text);
	cr_assert_str_empty(r->out, "%s: stdout: %s", r->command, r->out);
	snprintf(path, sizeof(path), "%s/diskio.prom", c->tmp);
	cr_assert_gt(h_read_file(path, text, 1 << 20), 0, "%s: no %s", r->command, path);
	snprintf(want, sizeof(want), "diskio_write_bytes_total{device=\"%s\",comm=\"%s\"",
		 c->zram->name, e->comm);
	cr_assert(strstr(text, want), "%s: no %s in %s", r->command, want, text);
	cr_assert(!strncmp(strchr(strstr(text, want), '}'), "} 1048576\n", 10), "%s: %s",
		  r->command, strstr(text, want));
	free(text);
}

/* Stopped early, after its I/O: the sentence first (a small write is no
 * trouble), and the zram disk on a line of its own as "ok".  On the
 * terminal, stderr's words come first: counting began. */
static void check_diagnose(struct ctx *c, struct example_run *r, const struct example *e)
{
	bool first = true, listed = false;
	size_t len = strlen(c->zram->name);

	(void)e;
	cr_assert(strstr(r->out, "diskio: diagnosing: counting for 10 s"), "%s: %s", r->command,
		  r->out);
	FOR_EACH_LINE(r->out, line, save) {
		if (!strncmp(line, "diskio: ", 8))
			continue;
		if (first)
			cr_assert(!strncmp(line, "No disk is in trouble", 21), "%s: %s", r->command,
				  line);
		first = false;
		listed |= !strncmp(line, c->zram->name, len) && line[len] == ' ' &&
			  !strncmp(line + len + strspn(line + len, " "), "ok ", 3);
	}
	cr_assert_not(first, "%s: no output", r->command);
	cr_assert(listed, "%s: %s is not listed as ok", r->command, c->zram->name);
}

static void check_readme_sum(struct ctx *c, struct example_run *r, const struct example *e)
{
	(void)c;
	cr_assert_eq(number_of(r->out, e->comm, false, 1, true, r->command), (int64_t)BIG_BYTES,
		     "%s: the sum of %s", r->command, e->comm);
}

static void check_readme_cgroup(struct ctx *c, struct example_run *r, const struct example *e)
{
	char *copy = strdup(r->out);
	bool found = false;

	(void)e;
	cr_assert_not_null(copy);
	/* "dirtied written cgroup", sorted by dirtied: O_DIRECT dirties nothing */
	number_of(copy, c->cgroup, false, 2, true, r->command);
	free(copy);
	FOR_EACH_LINE(r->out, line, save) {
		char expect[PATH_MAX + 64];

		snprintf(expect, sizeof(expect), "0 %" PRIu64 " %s", (uint64_t)BIG_BYTES, c->cgroup);
		found |= !strcmp(line, expect);
	}
	cr_assert(found, "%s: no line '0 %" PRIu64 " %s'", r->command, (uint64_t)BIG_BYTES,
		  c->cgroup);
}

static const struct example examples[] = {
	/* diskio --help */
	{ "diskio", .tty = true, .interrupt = true, .io = IO_SMALL, .comm = "dio-ex-top",
	  .check = check_top },
	{ "diskio 5 1", .tty = true, .io = IO_SMALL, .comm = "dio-ex-sample",
	  .check = check_top },
	{ "diskio -b 1 10 | awk '!/^#/ && $6 > 0 {print $3, $6}'", .awk = true, .io = IO_BIG,
	  .comm = "dio-ex-writer", .check = check_writers },
	{ "diskio --json 2 3", .io = IO_SMALL, .comm = "dio-ex-json", .check = check_json },
	{ "diskio -p 1234 -p 5678", .interrupt = true, .io = IO_TWO_PIDS, .comm = "dio-ex-pid",
	  .check = check_pids },
	{ "diskio -c postgres -L", .interrupt = true, .io = IO_SMALL, .comm = "postgres",
	  .check = check_comm },
	{ "diskio -D vda -D 8:16", .interrupt = true, .io = IO_TWO_DISKS, .comm = "dio-ex-disks",
	  .check = check_disks },
	{ "diskio -T -D zram0", .interrupt = true, .io = IO_TRACE, .comm = "dio-ex-trace",
	  .check = check_trace },
	{ "diskio --diagnose", .tty = true, .interrupt = true, .io = IO_SMALL,
	  .comm = "dio-ex-diagnose", .check = check_diagnose },
	{ "diskio --by cgroup -s dirty", .interrupt = true, .cgroup = true, .io = IO_SMALL,
	  .comm = "dio-ex-cgroup", .check = check_by_cgroup },
	{ "diskio --state /var/lib/diskio/crash.state", .interrupt = true, .io = IO_CRASH,
	  .comm = "dio-ex-state", .check = check_state },
	{ "diskio -q --prom /run/diskio.prom 15", .interrupt = true, .io = IO_SMALL,
	  .comm = "dio-ex-prom", .check = check_prom },
	/* README.md */
	{ "sudo ./diskio -b 1 10 | awk '!/^#/ { w[$3] += $6 } END { for (c in w) printf "
	  "\"%.0f %s\\n\", w[c], c }' | sort -rn", .awk = true, .io = IO_BIG, .comm = "dio-ex-sum",
	  .check = check_readme_sum },
	{ "sudo ./diskio -b --by cgroup 1 10 | awk '!/^#/ { d[$15] += $13; w[$15] += $6 } END "
	  "{ for (g in d) printf \"%.0f %.0f %s\\n\", d[g], w[g], g }' | sort -rn", .awk = true,
	  .cgroup = true, .io = IO_BIG, .comm = "dio-ex-cgsum", .check = check_readme_cgroup },
	{ "sudo ./diskio --state /var/lib/diskio/crash.state -b 60 | grep '^# crash '",
	  .interrupt = true, .io = IO_CRASH, .comm = "dio-ex-state", .check = check_grep_crash },
};
#define NR_EXAMPLES (sizeof(examples) / sizeof(examples[0]))

static const struct example *known_example(const char *command)
{
	for (size_t i = 0; i < NR_EXAMPLES; i++)
		if (!strcmp(examples[i].command, command))
			return &examples[i];
	return NULL;
}

/* A child that dies of SIGSEGV (no core file) once the gate opens. */
static pid_t spawn_crash(const struct h_gate *gate)
{
	pid_t pid;

	fflush(NULL);
	pid = fork();
	cr_assert(pid >= 0);
	if (!pid) {
		struct rlimit no_core = { 0, 0 };
		char byte;

		h__child_prepare(gate->rfd);
		if (prctl(PR_SET_NAME, "dio-ex-crash", 0, 0, 0) || setrlimit(RLIMIT_CORE, &no_core))
			_exit(H_IO_ERR_NAME);
		while (read(gate->rfd, &byte, 1) < 0 && errno == EINTR)
			;
		signal(SIGSEGV, SIG_DFL);
		raise(SIGSEGV);
		_exit(H_IO_ERR_OP);
	}
	h_track_child(pid);
	return pid;
}

static void run_one(const struct example *e, const char *awk, const struct h_dev *zram,
		    const struct h_dev *loop)
{
	struct example_run r;
	struct h_gate gate;
	pid_t children[3], crash = 0;
	size_t n = 0;
	struct stat st;
	struct ctx c;

	ctx_init(&c, awk);
	c.zram = zram;
	c.loop = loop;
	cr_assert_eq(stat(loop->path, &st), 0);
	snprintf(c.loop_majmin, sizeof(c.loop_majmin), "%u:%u", major(st.st_rdev),
		 minor(st.st_rdev));
	if (e->cgroup)
		ctx_make_cgroup(&c);
	h_gate_init(&gate);
	switch (e->io) {
	case IO_SMALL:
	case IO_CRASH:
		children[n++] = h_spawn_io(e->comm, zram->path, small_ops, 1, &gate);
		break;
	case IO_BIG:
		children[n++] = h_spawn_io(e->comm, zram->path, big_ops, BIG_PASSES, &gate);
		break;
	case IO_TWO_PIDS:
		children[n++] = c.pid_a = h_spawn_io("dio-ex-pid-a", zram->path, small_ops, 1, &gate);
		children[n++] = c.pid_b = h_spawn_io("dio-ex-pid-b", zram->path, small_ops, 1, &gate);
		children[n++] = h_spawn_io("dio-ex-pid-c", zram->path, small_ops, 1, &gate);
		break;
	case IO_TWO_DISKS:
		children[n++] = h_spawn_io(e->comm, zram->path, small_ops, 1, &gate);
		children[n++] = h_spawn_io(e->comm, loop->path, small_ops, 1, &gate);
		break;
	case IO_TRACE:
		children[n++] = h_spawn_io(e->comm, zram->path, trace_ops, 1, &gate);
		break;
	}
	if (e->cgroup)
		for (size_t i = 0; i < n; i++)
			ctx_join_cgroup(&c, children[i]);
	if (e->io == IO_CRASH)
		crash = spawn_crash(&gate);
	cr_log_info("example: %s%s%s", e->command, awk ? "  with awk = " : "", awk ? awk : "");
	run_example(&c, e->command, e->tty, e->interrupt, &gate, children, n, &r);
	if (crash) {
		int status;

		cr_assert_eq(h_wait_pid(crash, 5000, &status), 0);
		h_untrack_child(crash);
		cr_assert(WIFSIGNALED(status) && WTERMSIG(status) == SIGSEGV);
	}
	e->check(&c, &r, e);
	example_run_free(&r);
	ctx_cleanup(&c);
}

static void run_all(struct found *f)
{
	static const char *const awks[] = { "/usr/bin/mawk", "/usr/bin/gawk" };
	const struct h_dev *zram = h_zram_create(DEV_SIZE), *loop = h_loop_create(DEV_SIZE);

	for (size_t i = 0; i < BIG_PASSES; i++)
		big_ops[i] = (struct h_io){ 'w', 0, MiB, 64 };
	for (size_t i = 0; i < f->n; i++) {
		const struct example *e = known_example(f->command[i]);

		cr_assert_not_null(e, "an example without a known answer in this test: %s",
				   f->command[i]);
		if (!e->awk) {
			run_one(e, NULL, zram, loop);
			continue;
		}
		for (size_t k = 0; k < sizeof(awks) / sizeof(awks[0]); k++) {
			cr_assert(!access(awks[k], X_OK), "%s is missing (make deps-test)", awks[k]);
			run_one(e, awks[k], zram, loop);
		}
	}
}

Test(examples, every_help_example_gives_its_answer)
{
	struct found f = { 0 };

	help_examples(&f);
	run_all(&f);
	found_free(&f);
}

Test(examples, every_readme_example_gives_its_answer)
{
	struct found f = { 0 };

	readme_examples(&f);
	run_all(&f);
	found_free(&f);
}
