// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the command line (options.c).
 *
 * options_parse() exits on bad usage and on --help, so every parse runs in a
 * child process: its stdout and stderr go to temporary files, the parsed
 * struct options comes back through shared memory, and the parent checks the
 * exit status, both streams and the result.
 */
#include <criterion/criterion.h>
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <linux/types.h>
#include "frame.h"
#include "options.h"

#define MAX_ARGS 64

struct parsed {
	bool returned;		/* options_parse() came back (no exit) */
	struct options opts;
};

struct run {
	int status;		/* from waitpid() */
	bool returned;
	struct options opts;
	char out[16384];
	char err[16384];
};

static void slurp(FILE *f, char *buf, size_t size)
{
	size_t n;

	rewind(f);
	n = fread(buf, 1, size - 1, f);
	buf[n] = '\0';
	fclose(f);
}

/*
 * Runs in the child when options_parse() exits: flushes stdio and ends the
 * child before LeakSanitizer's exit-time check. After fork() in a Criterion
 * test process, LSan's thread registry still holds the parent's thread id,
 * so the check cannot scan this thread: it warns "Running thread N was not
 * suspended. False leaks are possible." on the stderr this test captures,
 * and may report false leaks. ASan and UBSan stay on in the child; leaks
 * of options.c are checked by tests/fuzz/fuzz_options.c, which parses in
 * one process. Without sanitizers it only ends the child as exit() would.
 */
static void end_child_before_leak_check(int status, void *unused)
{
	(void)unused;
	fflush(NULL);
	_exit(status);
}

/* Parse "diskio args..." (args NULL-terminated) in a child process. */
static void run_parse(struct run *r, const char *const *args)
{
	static char *argv[MAX_ARGS + 2];
	struct parsed *shared;
	FILE *out = tmpfile(), *err = tmpfile();
	int argc = 0;
	pid_t pid;

	cr_assert(out && err);
	shared = mmap(NULL, sizeof(*shared), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
		      -1, 0);
	cr_assert(shared != MAP_FAILED);
	memset(shared, 0, sizeof(*shared));

	argv[argc++] = (char *)"diskio";
	for (; *args; args++) {
		cr_assert(argc < MAX_ARGS);
		argv[argc++] = (char *)*args;
	}
	argv[argc] = NULL;

	fflush(NULL);
	pid = fork();
	cr_assert(pid >= 0);
	if (pid == 0) {
		struct options opts;

		dup2(fileno(out), STDOUT_FILENO);
		dup2(fileno(err), STDERR_FILENO);
		on_exit(end_child_before_leak_check, NULL);
		options_parse(argc, argv, &opts);
		shared->opts = opts;
		shared->returned = true;
		fflush(NULL);
		_exit(0);
	}
	cr_assert(waitpid(pid, &r->status, 0) == pid);
	r->returned = shared->returned;
	/* Pointers in opts (devices, state_path) point into argv's strings,
	 * which are the parent's own: they stay valid here. */
	r->opts = shared->opts;
	munmap(shared, sizeof(*shared));
	slurp(out, r->out, sizeof(r->out));
	slurp(err, r->err, sizeof(r->err));
}

#define PARSE(r, ...) do {						\
		static const char *const args_[] = { __VA_ARGS__, NULL };	\
		run_parse((r), args_);					\
	} while (0)

static void run_parse_none(struct run *r)
{
	static const char *const args[] = { NULL };

	run_parse(r, args);
}

/* Bad usage: exit 2, one "diskio: " message on stderr (mentioning what),
 * nothing on stdout. */
static void expect_usage_error(const struct run *r, const char *mention)
{
	cr_assert(WIFEXITED(r->status), "child did not exit normally (status %#x)", r->status);
	cr_assert_eq(WEXITSTATUS(r->status), 2, "exit code %d, expected 2; stderr: %s",
		     WEXITSTATUS(r->status), r->err);
	cr_assert_not(r->returned, "options_parse() returned on bad usage");
	cr_assert_eq(strncmp(r->err, "diskio: ", 8), 0, "stderr does not start with 'diskio: ': %s",
		     r->err);
	if (mention)
		cr_assert(strstr(r->err, mention), "stderr does not mention '%s': %s", mention,
			  r->err);
	cr_assert_str_empty(r->out, "stdout not empty on bad usage: %s", r->out);
}

static void expect_ok(const struct run *r)
{
	cr_assert(WIFEXITED(r->status), "child did not exit normally (status %#x)", r->status);
	cr_assert_eq(WEXITSTATUS(r->status), 0, "exit code %d; stderr: %s",
		     WEXITSTATUS(r->status), r->err);
	cr_assert(r->returned, "options_parse() did not return; stderr: %s", r->err);
	cr_assert_str_empty(r->out, "stdout: %s", r->out);
}

/* ---- bad usage ---- */

Test(options_bad, unknown_long_option)
{
	struct run r;

	PARSE(&r, "--bogus");
	expect_usage_error(&r, "bogus");
}

Test(options_bad, unknown_short_option)
{
	struct run r;

	PARSE(&r, "-z");
	expect_usage_error(&r, "z");
}

Test(options_bad, interval_zero)
{
	struct run r;

	PARSE(&r, "0");
	expect_usage_error(&r, "'0'");
}

Test(options_bad, interval_negative_looks_like_option)
{
	struct run r;

	PARSE(&r, "-1");
	expect_usage_error(&r, "1");
}

/* issue 45: after "--" comes a COMMAND, not INTERVAL: "-1" is a command's name. */
Test(options_command, what_follows_a_double_dash_is_the_command)
{
	struct run r;

	PARSE(&r, "--", "-1");
	expect_ok(&r);
	cr_assert_not_null(r.opts.command);
	PARSE(&r, "2", "--json", "--", "dd", "if=/dev/zero", "--", "x");
	expect_ok(&r);
	cr_assert_eq(r.opts.interval_s, 2.0);
	cr_assert_eq(r.opts.output, OUTPUT_JSON);
	cr_assert_not(r.opts.command_all);
}

Test(options_bad, interval_not_a_number)
{
	struct run r;

	PARSE(&r, "abc");
	expect_usage_error(&r, "'abc'");
}

Test(options_bad, interval_trailing_garbage)
{
	struct run r;

	PARSE(&r, "1x");
	expect_usage_error(&r, "'1x'");
}

Test(options_bad, interval_nan)
{
	struct run r;

	PARSE(&r, "nan");
	expect_usage_error(&r, "'nan'");
}

Test(options_bad, interval_inf)
{
	struct run r;

	PARSE(&r, "inf");
	expect_usage_error(&r, "'inf'");
}

Test(options_bad, interval_empty)
{
	struct run r;

	PARSE(&r, "");
	expect_usage_error(&r, "INTERVAL");
}

Test(options_bad, count_zero)
{
	struct run r;

	PARSE(&r, "1", "0");
	expect_usage_error(&r, "COUNT '0'");
}

Test(options_bad, count_negative)
{
	struct run r;

	PARSE(&r, "1", "-3");
	expect_usage_error(&r, "3");
}

Test(options_command, one_window_batch_lines_and_what_has_no_effect)
{
	struct run r;

	PARSE(&r, "--", "true");
	expect_ok(&r);
	cr_assert_eq(r.opts.interval_s, 86400.0, "one window: the command's run");
	cr_assert_eq(r.opts.count, 0);
	cr_assert_eq(r.opts.output, OUTPUT_BATCH, "no top view beside the command's output");
	PARSE(&r, "--diagnose", "--", "true");
	expect_ok(&r);
	cr_assert_eq(r.opts.interval_s, 86400.0);
	cr_assert_eq(r.opts.output, OUTPUT_AUTO, "the diagnosis' text");
	PARSE(&r, "--all", "-p", "1", "--", "true");
	expect_ok(&r);
	cr_assert(r.opts.command_all);
	PARSE(&r, "1", "3", "--", "true");
	expect_usage_error(&r, "COUNT");
	PARSE(&r, "-p", "1", "--", "true");
	expect_usage_error(&r, "-p");
	PARSE(&r, "--cgroup", "/a", "--", "true");
	expect_usage_error(&r, "--cgroup");
	PARSE(&r, "-C", "--", "true");
	expect_usage_error(&r, "-C");
	PARSE(&r, "--replay", "/tmp", "--", "true");
	expect_usage_error(&r, "--replay");
	PARSE(&r, "--diagnose=5", "--", "true");
	expect_usage_error(&r, "--diagnose=SECONDS");
	PARSE(&r, "--all");
	expect_usage_error(&r, "--all");
	PARSE(&r, "--");
	expect_usage_error(&r, "no COMMAND");
}

Test(options_bad, count_fraction)
{
	struct run r;

	PARSE(&r, "1", "1.5");
	expect_usage_error(&r, "COUNT '1.5'");
}

Test(options_bad, count_garbage)
{
	struct run r;

	PARSE(&r, "1", "5x");
	expect_usage_error(&r, "COUNT '5x'");
}

Test(options_bad, pid_zero)
{
	struct run r;

	PARSE(&r, "-p", "0");
	expect_usage_error(&r, "PID '0'");
}

Test(options_bad, pid_negative)
{
	struct run r;

	PARSE(&r, "-p", "-5");
	expect_usage_error(&r, "PID '-5'");
}

Test(options_bad, pid_not_a_number)
{
	struct run r;

	PARSE(&r, "-p", "x");
	expect_usage_error(&r, "PID 'x'");
}

Test(options_bad, pid_too_big)
{
	struct run r;

	PARSE(&r, "-p", "99999999");
	expect_usage_error(&r, "PID '99999999'");
}

Test(options_bad, pid_long_option_too_big)
{
	struct run r;

	PARSE(&r, "--pid=4194305");
	expect_usage_error(&r, "PID '4194305'");
}

Test(options_bad, unknown_sort_key)
{
	struct run r;

	PARSE(&r, "-s", "size");
	expect_usage_error(&r, "'size'");
}

Test(options_bad, sort_key_wrong_case)
{
	struct run r;

	PARSE(&r, "-s", "Bytes");
	expect_usage_error(&r, "'Bytes'");
}

Test(options_bad, too_many_arguments)
{
	struct run r;

	PARSE(&r, "1", "2", "3");
	expect_usage_error(&r, "'3'");
}

Test(options_bad, comm_too_long)
{
	struct run r;

	PARSE(&r, "-c", "0123456789abcdef");	/* 16 bytes */
	expect_usage_error(&r, "COMM");
}

Test(options_bad, comm_much_too_long)
{
	struct run r;

	PARSE(&r, "-c", "a-process-name-of-forty-bytes-and-more!!");
	expect_usage_error(&r, "COMM");
}

Test(options_bad, comm_empty)
{
	struct run r;

	PARSE(&r, "-c", "");
	expect_usage_error(&r, "COMM");
}

Test(options_bad, rows_zero)
{
	struct run r;

	PARSE(&r, "-r", "0");
	expect_usage_error(&r, "'0'");
}

Test(options_bad, rows_garbage)
{
	struct run r;

	PARSE(&r, "-r", "ten");
	expect_usage_error(&r, "'ten'");
}

Test(options_bad, crash_interval_zero)
{
	struct run r;

	PARSE(&r, "--crash-interval", "0");
	expect_usage_error(&r, "'0'");
}

Test(options_bad, crash_interval_fraction)
{
	struct run r;

	PARSE(&r, "--crash-interval", "1.5");
	expect_usage_error(&r, "'1.5'");
}

Test(options_bad, buffer_kb_too_small)
{
	struct run r;

	PARSE(&r, "--buffer-kb", "1");
	expect_usage_error(&r, "'1'");
}

Test(options_bad, buffer_kb_too_big)
{
	struct run r;

	PARSE(&r, "--buffer-kb", "99999999999");
	expect_usage_error(&r, "'99999999999'");
}

Test(options_bad, empty_device)
{
	struct run r;

	PARSE(&r, "-D", "");
	expect_usage_error(&r, "DEVICE");
}

Test(options_bad, seventeen_devices)
{
	static const char *const args[] = {
		"-D", "d1", "-D", "d2", "-D", "d3", "-D", "d4", "-D", "d5", "-D", "d6",
		"-D", "d7", "-D", "d8", "-D", "d9", "-D", "d10", "-D", "d11", "-D", "d12",
		"-D", "d13", "-D", "d14", "-D", "d15", "-D", "d16", "-D", "d17", NULL,
	};
	struct run r;

	run_parse(&r, args);
	expect_usage_error(&r, "-D");
}

Test(options_bad, missing_option_argument)
{
	struct run r;

	PARSE(&r, "-p");
	expect_usage_error(&r, NULL);
}

Test(options_bad, seventeen_pids)
{
	static const char *const args[] = {
		"-p", "1", "-p", "2", "-p", "3", "-p", "4", "-p", "5", "-p", "6",
		"-p", "7", "-p", "8", "-p", "9", "-p", "10", "-p", "11", "-p", "12",
		"-p", "13", "-p", "14", "-p", "15", "-p", "16", "-p", "17", NULL,
	};
	struct run r;

	run_parse(&r, args);
	expect_usage_error(&r, "-p");
}

/* ---- good inputs ---- */

Test(options_good, defaults)
{
	struct run r;

	run_parse_none(&r);
	expect_ok(&r);
	cr_assert_str_empty(r.err);
	cr_assert_float_eq(r.opts.interval_s, 1.0, 1e-12);
	cr_assert_eq(r.opts.count, 0);
	cr_assert_eq(r.opts.sort, SORT_BYTES);
	cr_assert_eq(r.opts.crash_interval_s, 3600);
	cr_assert_eq(r.opts.output, OUTPUT_AUTO);
	cr_assert_eq(r.opts.nr_pids, 0);
	cr_assert_eq(r.opts.nr_devices, 0);
	cr_assert_not(r.opts.filter_comm);
	cr_assert_not(r.opts.cumulative);
	cr_assert_not(r.opts.per_process_latency);
	cr_assert_not(r.opts.trace);
	cr_assert_not(r.opts.no_clear);
	cr_assert_not(r.opts.verbose);
	cr_assert_eq(r.opts.rows, 0);
	cr_assert_null(r.opts.state_path);
	cr_assert_eq(r.opts.buffer_kb, 0);
}

Test(options_good, fractional_interval_and_count)
{
	struct run r;

	PARSE(&r, "0.2", "5");
	expect_ok(&r);
	cr_assert_float_eq(r.opts.interval_s, 0.2, 1e-12);
	cr_assert_eq(r.opts.count, 5);
}

Test(options_good, interval_only)
{
	struct run r;

	PARSE(&r, "5");
	expect_ok(&r);
	cr_assert_float_eq(r.opts.interval_s, 5.0, 1e-12);
	cr_assert_eq(r.opts.count, 0);
}

Test(options_good, big_count)
{
	struct run r;

	PARSE(&r, "1", "18446744073709551615");
	expect_ok(&r);
	cr_assert_eq(r.opts.count, UINT64_MAX);
}

Test(options_good, options_after_arguments)
{
	struct run r;

	PARSE(&r, "2", "3", "-b");
	expect_ok(&r);
	cr_assert_float_eq(r.opts.interval_s, 2.0, 1e-12);
	cr_assert_eq(r.opts.count, 3);
	cr_assert_eq(r.opts.output, OUTPUT_BATCH);
}

Test(options_good, pid_three_times)
{
	struct run r;

	PARSE(&r, "-p", "1", "-p", "4194304", "--pid", "77");
	expect_ok(&r);
	cr_assert_eq(r.opts.nr_pids, 3);
	cr_assert_eq(r.opts.pids[0], 1);
	cr_assert_eq(r.opts.pids[1], 4194304);
	cr_assert_eq(r.opts.pids[2], 77);
}

Test(options_good, sixteen_pids)
{
	static const char *const args[] = {
		"-p", "1", "-p", "2", "-p", "3", "-p", "4", "-p", "5", "-p", "6",
		"-p", "7", "-p", "8", "-p", "9", "-p", "10", "-p", "11", "-p", "12",
		"-p", "13", "-p", "14", "-p", "15", "-p", "16", NULL,
	};
	struct run r;

	run_parse(&r, args);
	expect_ok(&r);
	cr_assert_eq(r.opts.nr_pids, 16);
	for (uint32_t i = 0; i < 16; i++)
		cr_assert_eq(r.opts.pids[i], i + 1);
}

Test(options_good, device_repeated)
{
	struct run r;

	PARSE(&r, "-D", "vda", "-D", "8:16", "--device=zram0");
	expect_ok(&r);
	cr_assert_eq(r.opts.nr_devices, 3);
	cr_assert_str_eq(r.opts.devices[0], "vda");
	cr_assert_str_eq(r.opts.devices[1], "8:16");
	cr_assert_str_eq(r.opts.devices[2], "zram0");
}

/* -u (issue 48): names are resolved in main, against /etc/passwd. */
Test(options_good, user_repeated_as_given)
{
	struct run r;

	PARSE(&r, "-u", "nobody", "--user=0", "-u", "alice");
	expect_ok(&r);
	cr_assert_eq(r.opts.nr_users, 3);
	cr_assert_str_eq(r.opts.users[0], "nobody");
	cr_assert_str_eq(r.opts.users[1], "0");
	cr_assert_str_eq(r.opts.users[2], "alice");
}

Test(options_bad, empty_user_and_latency_sample_with_u)
{
	struct run r;

	PARSE(&r, "-u", "");
	expect_usage_error(&r, "USER");
	PARSE(&r, "-u", "nobody", "--latency-sample", "4");
	expect_usage_error(&r, "-u");
}

Test(options_good, comm_fifteen_bytes)
{
	struct run r;

	PARSE(&r, "-c", "0123456789abcde");
	expect_ok(&r);
	cr_assert(r.opts.filter_comm);
	cr_assert_str_eq(r.opts.comm, "0123456789abcde");
}

Test(options_good, json)
{
	struct run r;

	PARSE(&r, "--json");
	expect_ok(&r);
	cr_assert_eq(r.opts.output, OUTPUT_JSON);
}

Test(options_bad, json_and_batch_exclude_each_other_either_order)
{
	struct run r;

	PARSE(&r, "--json", "-b");
	expect_usage_error(&r, "--json and -b");
	PARSE(&r, "-b", "--json");
	expect_usage_error(&r, "--json and -b");
	PARSE(&r, "--batch", "0.5", "--json");
	expect_usage_error(&r, "--json and -b");
}

Test(options_good, batch_twice_and_json_twice)
{
	struct run r;

	PARSE(&r, "-b", "--batch");
	expect_ok(&r);
	cr_assert_eq(r.opts.output, OUTPUT_BATCH);
	PARSE(&r, "--json", "--json");
	expect_ok(&r);
	cr_assert_eq(r.opts.output, OUTPUT_JSON);
}

Test(options_good, batch)
{
	struct run r;

	PARSE(&r, "-b");
	expect_ok(&r);
	cr_assert_eq(r.opts.output, OUTPUT_BATCH);
	PARSE(&r, "--batch");
	expect_ok(&r);
	cr_assert_eq(r.opts.output, OUTPUT_BATCH);
}

/* -s takes every key the top view sorts by: the one list (iostats.h). */
Test(options_good, every_sort_key)
{
	/* the keys the view offered and -s once refused, named here so that
	 * the list cannot lose them unseen */
	static const char *const once_refused[] = {
		"r_iops", "w_iops", "d_iops", "discard", "device", "cgroup",
	};
	struct run r;

	for (size_t i = 0; i < SORT_NR_KEYS; i++) {
		/* -L: -s latency sorts on nothing without it */
		const char *args[] = { "-L", "-s", sort_keys[i].name, NULL };

		run_parse(&r, args);
		expect_ok(&r);
		cr_assert_eq(r.opts.sort, sort_keys[i].key, "-s %s", sort_keys[i].name);
		cr_assert_str_eq(sort_key_name(sort_keys[i].key), sort_keys[i].name);
	}
	for (size_t i = 0; i < sizeof(once_refused) / sizeof(once_refused[0]); i++) {
		const char *args[] = { "-s", once_refused[i], "--by", "cgroup", NULL };

		run_parse(&r, args);
		expect_ok(&r);
		cr_assert_str_eq(sort_key_name(r.opts.sort), once_refused[i]);
	}
}

/* --help and the error of a bad -s list the keys from the same list. */
Test(options_docs, help_and_the_error_list_every_sort_key)
{
	struct run help, bad;

	PARSE(&help, "--help");
	cr_assert_eq(WEXITSTATUS(help.status), 0);
	PARSE(&bad, "-s", "size");
	expect_usage_error(&bad, "unknown sort key 'size'");
	for (size_t i = 0; i < SORT_NR_KEYS; i++) {
		char word[32];

		snprintf(word, sizeof(word), " %s", sort_keys[i].name);
		cr_assert(strstr(help.out, word), "--help lacks %s", sort_keys[i].name);
		cr_assert(strstr(bad.err, word), "the error lacks %s: %s", sort_keys[i].name,
			  bad.err);
	}
}

Test(options_good, accumulated_latency)
{
	struct run r;

	PARSE(&r, "-a", "-L", "-s", "latency");
	expect_ok(&r);
	cr_assert(r.opts.cumulative);
	cr_assert(r.opts.per_process_latency);
	cr_assert_eq(r.opts.sort, SORT_LATENCY);
	cr_assert_not(r.opts.trace);
}

/* Trace mode prints each I/O: options about rows, totals or the top view
 * would change nothing there, and are refused rather than ignored. */
Test(options_bad, trace_with_options_that_have_no_effect)
{
	static const struct {
		const char *args[4];
		const char *mention;
	} cases[] = {
		{ { "-T", "-a", NULL }, "-a has no effect with -T" },
		{ { "-a", "-L", "-T", NULL }, "-a has no effect with -T" },
		{ { "-T", "-r", "5", NULL }, "-r has no effect with -T" },
		{ { "-T", "-s", "bytes", NULL }, "-s has no effect with -T" },
		{ { "--trace", "--by", "cgroup", NULL }, "--by cgroup has no effect with -T" },
		{ { "-T", "--submitter", NULL }, "--submitter has no effect with -T" },
		{ { "-T", "-L", NULL }, "-L has no effect with -T" },
		{ { "-C", "-T", NULL }, "-C has no effect with -T" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct run r;

		run_parse(&r, cases[i].args);
		expect_usage_error(&r, cases[i].mention);
	}
}

Test(options_good, trace_with_filters_and_json)
{
	struct run r;

	PARSE(&r, "-T", "--json", "-D", "vda", "-p", "7", "-c", "fio", "--buffer-kb", "64",
	      "--by", "process", "0.5", "3");
	expect_ok(&r);
	cr_assert(r.opts.trace);
	cr_assert_eq(r.opts.output, OUTPUT_JSON);
	cr_assert_eq(r.opts.nr_pids, 1);
}

Test(options_bad, sort_latency_without_per_process_latency)
{
	struct run r;

	PARSE(&r, "-s", "latency");
	expect_usage_error(&r, "-s latency needs -L");
	PARSE(&r, "--sort=latency", "-b", "1");
	expect_usage_error(&r, "-s latency needs -L");
}

Test(options_bad, no_clear_outside_the_top_view)
{
	struct run r;

	PARSE(&r, "-C", "-b");
	expect_usage_error(&r, "-C has no effect with -b");
	PARSE(&r, "--json", "--no-clear");
	expect_usage_error(&r, "-C has no effect with --json");
}

Test(options_bad, sort_by_pid_or_comm_of_cgroup_rows)
{
	struct run r;

	PARSE(&r, "--by", "cgroup", "-s", "pid");
	expect_usage_error(&r, "-s pid has no effect with --by cgroup");
	PARSE(&r, "-s", "comm", "--by", "cgroup");
	expect_usage_error(&r, "-s comm has no effect with --by cgroup");
	PARSE(&r, "--by", "cgroup", "-s", "dirty");
	expect_ok(&r);
	cr_assert(r.opts.by_cgroup);
	cr_assert_eq(r.opts.sort, SORT_DIRTY);
}

Test(options_good, combined_short_flags)
{
	struct run r;

	PARSE(&r, "-aLC");
	expect_ok(&r);
	cr_assert(r.opts.cumulative);
	cr_assert(r.opts.per_process_latency);
	cr_assert(r.opts.no_clear);
	cr_assert_not(r.opts.trace);
}

Test(options_good, state_file)
{
	struct run r;

	PARSE(&r, "--state", "/var/lib/diskio/crash.state");
	expect_ok(&r);
	cr_assert_not_null(r.opts.state_path);
	cr_assert_str_eq(r.opts.state_path, "/var/lib/diskio/crash.state");
}

Test(options_good, buffer_kb)
{
	struct run r;

	PARSE(&r, "--buffer-kb", "64");
	expect_ok(&r);
	cr_assert_eq(r.opts.buffer_kb, 64);
	PARSE(&r, "--buffer-kb=4");
	expect_ok(&r);
	cr_assert_eq(r.opts.buffer_kb, 4);
}

Test(options_good, crash_interval_and_rows)
{
	struct run r;

	PARSE(&r, "--crash-interval", "60", "-r", "10", "-v");
	expect_ok(&r);
	cr_assert_eq(r.opts.crash_interval_s, 60);
	cr_assert_eq(r.opts.rows, 10);
	cr_assert(r.opts.verbose);
}

/* ---- help ---- */

Test(options_help, long_help_exits_zero_with_examples_on_stdout)
{
	struct run r;

	PARSE(&r, "--help");
	cr_assert(WIFEXITED(r.status));
	cr_assert_eq(WEXITSTATUS(r.status), 0, "stderr: %s", r.err);
	cr_assert_not(r.returned);
	cr_assert(strstr(r.out, "EXAMPLES"), "stdout: %s", r.out);
	cr_assert(strstr(r.out, "--json"), "stdout: %s", r.out);
	cr_assert_str_empty(r.err);
}

Test(options_help, short_h_exits_zero_with_examples_on_stdout)
{
	struct run r;

	PARSE(&r, "-h");
	cr_assert(WIFEXITED(r.status));
	cr_assert_eq(WEXITSTATUS(r.status), 0, "stderr: %s", r.err);
	cr_assert_not(r.returned);
	cr_assert(strstr(r.out, "EXAMPLES"), "stdout: %s", r.out);
	cr_assert_str_empty(r.err);
}

/* One usage line, nothing argp would wrap at 80 columns, -h (not -?) shown,
 * and the awk example skips the '#' lines. */
Test(options_help, help_reads_well_at_80_columns)
{
	const char *line, *next, *awk;
	size_t usage_lines = 0, examples = 0;
	bool in_examples = false;
	struct run r;

	PARSE(&r, "--help");
	cr_assert_eq(WEXITSTATUS(r.status), 0, "stderr: %s", r.err);
	for (line = r.out; *line; line = next) {
		const char *end = strchr(line, '\n');
		size_t len = end ? (size_t)(end - line) : strlen(line);

		next = end ? end + 1 : line + len;
		cr_assert_leq(len, 79, "help line of %zu columns: %.*s", len, (int)len, line);
		if (!strncasecmp(line, "usage:", 6))
			usage_lines++;
		if (len == 0) {
			in_examples = false;
		} else if (in_examples) {
			/* A wrapped example would go on in a line of its own. */
			cr_assert(!strncmp(line, "  diskio ", 9),
				  "not an example line: %.*s", (int)len, line);
			examples++;
		} else if (!strncmp(line, "EXAMPLES:", 9)) {
			in_examples = true;
		}
	}
	cr_assert_geq(examples, 8, "%zu example lines in: %s", examples, r.out);
	cr_assert_eq(usage_lines, 1, "%zu usage lines in: %s", usage_lines, r.out);
	cr_assert(strstr(r.out, "  -h, --help"), "stdout: %s", r.out);
	cr_assert_null(strstr(r.out, "-?"), "stdout: %s", r.out);
	awk = strstr(r.out, "| awk '");
	cr_assert_not_null(awk, "no awk example: %s", r.out);
	cr_assert(!strncmp(awk, "| awk '!/^#/", 12), "the awk example reads '#' lines: %.60s", awk);
}

/* Empty lines part argp's groups; a line of spaces alone is argp wrapping a
 * text that ended exactly at its margin, and reads as a stray gap. */
Test(options_help, help_has_no_line_of_spaces_alone)
{
	const char *line, *next;
	struct run r;

	PARSE(&r, "--help");
	cr_assert_eq(WEXITSTATUS(r.status), 0, "stderr: %s", r.err);
	for (line = r.out; *line; line = next) {
		const char *end = strchr(line, '\n');
		size_t len = end ? (size_t)(end - line) : strlen(line);
		size_t before = (size_t)(line - r.out) < 160 ? (size_t)(line - r.out) : 160;

		next = end ? end + 1 : line + len;
		cr_assert(len == 0 || strspn(line, " \t") < len, "a line of %zu blanks after: %.*s",
			  len, (int)before, line - before);
	}
}

Test(options_help, version_exits_zero)
{
	struct run r;

	PARSE(&r, "--version");
	cr_assert(WIFEXITED(r.status));
	cr_assert_eq(WEXITSTATUS(r.status), 0);
	cr_assert_not(r.returned);
	cr_assert(strstr(r.out, "diskio"), "stdout: %s", r.out);
}

/* ---- --prom, --prom-rows, --prom-idle, --quiet ---- */

Test(options_good, prom_defaults_and_values)
{
	struct run r;

	PARSE(&r, "--prom", "/run/diskio.prom");
	expect_ok(&r);
	cr_assert_str_eq(r.opts.prom_path, "/run/diskio.prom");
	cr_assert_eq(r.opts.prom_rows, 50);
	cr_assert_eq(r.opts.prom_idle_s, 3600);
	cr_assert_not(r.opts.quiet);
	PARSE(&r, "-q", "--prom", "x.prom", "--prom-rows", "7", "--prom-idle", "0", "15");
	expect_ok(&r);
	cr_assert(r.opts.quiet);
	cr_assert_eq(r.opts.prom_rows, 7);
	cr_assert_eq(r.opts.prom_idle_s, 0, "0 keeps idle series");
	cr_assert_float_eq(r.opts.interval_s, 15.0, 1e-9);
}

Test(options_good, quiet_with_state_alone)
{
	struct run r;

	PARSE(&r, "--quiet", "--state", "/var/lib/diskio/crashfree", "60");
	expect_ok(&r);
	cr_assert(r.opts.quiet);
	cr_assert_null(r.opts.prom_path);
}

Test(options_good, prom_with_every_view)
{
	struct run r;

	PARSE(&r, "--prom", "x.prom", "-b", "-a", "-r", "3");
	expect_ok(&r);
	PARSE(&r, "--prom", "x.prom", "--json", "--by", "cgroup");
	expect_ok(&r);
	cr_assert(r.opts.by_cgroup);
}

Test(options_bad, prom_rows_and_idle_need_prom)
{
	struct run r;

	PARSE(&r, "--prom-rows", "5");
	expect_usage_error(&r, "--prom-rows has no effect without --prom");
	PARSE(&r, "--prom-idle", "60");
	expect_usage_error(&r, "--prom-idle has no effect without --prom");
}

Test(options_bad, prom_bad_values)
{
	struct run r;

	PARSE(&r, "--prom", "");
	expect_usage_error(&r, "empty --prom");
	PARSE(&r, "--prom", "x.prom", "--prom-rows", "0");
	expect_usage_error(&r, "'0'");
	PARSE(&r, "--prom", "x.prom", "--prom-rows", "-1");
	expect_usage_error(&r, "'-1'");
	PARSE(&r, "--prom", "x.prom", "--prom-idle", "1.5");
	expect_usage_error(&r, "'1.5'");
}

Test(options_good, prom_labels_kept_in_order)
{
	struct run r;

	PARSE(&r, "--prom", "x.prom");
	expect_ok(&r);
	cr_assert_eq(r.opts.nr_prom_labels, 0);
	PARSE(&r, "--prom", "x.prom", "--prom-label", "release=2.1", "--prom-label=dc=eu west",
	      "--prom-label", "note=a=b\"c");
	expect_ok(&r);
	cr_assert_eq(r.opts.nr_prom_labels, 3);
	cr_assert_str_eq(r.opts.prom_labels[0], "release=2.1");
	cr_assert_str_eq(r.opts.prom_labels[1], "dc=eu west");
	cr_assert_str_eq(r.opts.prom_labels[2], "note=a=b\"c", "the first '=' ends the name");
}

Test(options_bad, prom_label_checked)
{
	static const char *const bad[][2] = {
		{ "release", "not KEY=VALUE" },
		{ "9lives=x", "label name" },
		{ "__name__=x", "reserved" },
		{ "device=x", "diskio's own" },
		{ "instance=x", "instance and job" },
		{ "release=", "empty value" },
		{ "release=\xff", "UTF-8" },
	};
	struct run r;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		const char *args[] = { "--prom", "x.prom", "--prom-label", bad[i][0], NULL };

		run_parse(&r, args);
		expect_usage_error(&r, "invalid --prom-label");
		cr_assert(strstr(r.err, bad[i][1]), "%s: %s", bad[i][0], r.err);
	}
	PARSE(&r, "--prom", "x.prom", "--prom-label", "release=A", "--prom-label", "release=B");
	expect_usage_error(&r, "given twice");
	PARSE(&r, "--prom-label", "release=A");
	expect_usage_error(&r, "--prom-label has no effect without --prom");
	{
		const char *args[MAX_ARGS] = { "--prom", "x.prom" };
		char names[MAX_PROM_LABELS + 1][16];
		int n = 2;

		for (int i = 0; i <= MAX_PROM_LABELS; i++) {
			snprintf(names[i], sizeof(names[i]), "l%d=v", i);
			args[n++] = "--prom-label";
			args[n++] = names[i];
		}
		args[n] = NULL;
		run_parse(&r, args);
		expect_usage_error(&r, "too many --prom-label: at most 16");
		args[n - 2] = NULL;
		run_parse(&r, args);
		expect_ok(&r);
		cr_assert_eq(r.opts.nr_prom_labels, MAX_PROM_LABELS);
	}
}

Test(options_bad, prom_with_trace)
{
	struct run r;

	PARSE(&r, "--prom", "x.prom", "-T");
	expect_usage_error(&r, "-T");
}

Test(options_bad, quiet_alone_does_nothing)
{
	struct run r;

	PARSE(&r, "-q");
	expect_usage_error(&r, "--prom FILE, --state FILE or --record DIR");
}

Test(options_bad, quiet_with_what_is_shown)
{
	static const char *const shown[][2] = {
		{ "-b", NULL }, { "--json", NULL }, { "-C", NULL }, { "-a", NULL },
		{ "-r", "5" }, { "-s", "read" }, { "--histogram", NULL },
	};

	for (size_t i = 0; i < sizeof(shown) / sizeof(shown[0]); i++) {
		const char *args[] = { "-q", "--prom", "x.prom", shown[i][0], shown[i][1], NULL };
		struct run r;

		run_parse(&r, args);
		expect_usage_error(&r, "has no effect with --quiet");
		cr_assert(strstr(r.err, shown[i][0]), "%s: %s", shown[i][0], r.err);
	}
}

/* ---- --stacks ---- */

Test(options_stacks, defaults_and_modes)
{
	struct run r;

	PARSE(&r, "--stacks");
	expect_ok(&r);
	cr_assert_eq(r.opts.stacks, STACKS_KERNEL | STACKS_USER);
	cr_assert_eq(r.opts.stacks_mem, 16ULL << 20);
	cr_assert_eq(r.opts.stacks_top, 5);
	cr_assert_null(r.opts.folded_path);
	PARSE(&r, "--stacks=kernel");
	expect_ok(&r);
	cr_assert_eq(r.opts.stacks, STACKS_KERNEL);
	PARSE(&r, "--stacks=user", "--stacks-top", "0", "--folded", "out.folded");
	expect_ok(&r);
	cr_assert_eq(r.opts.stacks, STACKS_USER);
	cr_assert_eq(r.opts.stacks_top, 0);
	cr_assert_str_eq(r.opts.folded_path, "out.folded");
	PARSE(&r, "--stacks");
	expect_ok(&r);
	cr_assert_eq(r.opts.stacks, STACKS_KERNEL | STACKS_USER);
}

Test(options_stacks, sizes_take_suffixes)
{
	static const struct {
		const char *text;
		uint64_t bytes;
	} sizes[] = {
		{ "65536", 65536 }, { "64K", 64 << 10 }, { "1M", 1 << 20 }, { "32MiB", 32 << 20 },
		{ "1g", 1ULL << 30 }, { "4G", 4ULL << 30 },
	};

	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		struct run r;

		const char *args[] = { "--stacks", "--stacks-mem", sizes[i].text, NULL };

		run_parse(&r, args);
		expect_ok(&r);
		cr_assert_eq(r.opts.stacks_mem, sizes[i].bytes, "%s", sizes[i].text);
	}
}

Test(options_stacks, bad_values)
{
	static const char *const bad[] = {
		"63K", "5G", "1T", "", "-1M", "M", "1.5M", "99999999999999999999G",
	};
	struct run r;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		const char *args[] = { "--stacks", "--stacks-mem", bad[i], NULL };

		run_parse(&r, args);
		expect_usage_error(&r, "--stacks-mem");
	}
	PARSE(&r, "--stacks=all");
	expect_usage_error(&r, "--stacks");
	PARSE(&r, "--stacks", "--stacks-top", "1001");
	expect_usage_error(&r, "--stacks-top");
	PARSE(&r, "--stacks", "--folded", "");
	expect_usage_error(&r, "--folded");
}

Test(options_stacks, need_stacks_and_rows)
{
	struct run r;

	PARSE(&r, "--folded", "x.folded");
	expect_usage_error(&r, "needs --stacks");
	PARSE(&r, "--stacks-mem", "1M");
	expect_usage_error(&r, "needs --stacks");
	PARSE(&r, "--stacks-top", "3");
	expect_usage_error(&r, "needs --stacks");
	PARSE(&r, "--stacks", "-T");
	expect_usage_error(&r, "-T");
	PARSE(&r, "--debug-dir", "/");
	expect_usage_error(&r, "--debug-dir needs --stacks");
	PARSE(&r, "--stacks=kernel", "--debug-dir", "/");
	expect_usage_error(&r, "--debug-dir has no effect with --stacks=kernel");
}

/* issue 35 */
Test(options_files, files_and_their_top)
{
	struct run r;

	PARSE(&r, "--files");
	expect_ok(&r);
	cr_assert(r.opts.files);
	cr_assert_eq(r.opts.files_top, 0, "all files by default");
	PARSE(&r, "--files", "--files-top", "3");
	expect_ok(&r);
	cr_assert_eq(r.opts.files_top, 3);
	PARSE(&r, "--files", "--files-top", "0");
	expect_usage_error(&r, "--files-top");
	PARSE(&r, "--files-top", "3");
	expect_usage_error(&r, "--files-top needs --files");
	PARSE(&r, "--files", "-T");
	expect_usage_error(&r, "-T");
	PARSE(&r, "--files", "-q", "--prom", "x.prom");
	expect_usage_error(&r, "--files has no effect with --quiet");
	/* issue 43: a quiet service records its files */
	PARSE(&r, "--files", "-q", "--record", "/var/lib/diskio/history");
	expect_ok(&r);
	cr_assert(r.opts.files && r.opts.quiet);
}

Test(options_stacks, debug_dir_is_an_absolute_directory)
{
	struct run r;

	PARSE(&r, "--stacks", "--debug-dir", "/");
	expect_ok(&r);
	cr_assert_str_eq(r.opts.debug_dir, "/");
	PARSE(&r, "--stacks=user", "--debug-dir", "/tmp");
	expect_ok(&r);
	PARSE(&r, "--stacks", "--debug-dir", "tmp");
	expect_usage_error(&r, "invalid --debug-dir 'tmp'");
	PARSE(&r, "--stacks", "--debug-dir", "/nonexistent/debug");
	expect_usage_error(&r, "invalid --debug-dir");
	PARSE(&r, "--stacks", "--debug-dir", "/dev/null");
	expect_usage_error(&r, "invalid --debug-dir");
	PARSE(&r, "--stacks", "--debug-dir", "");
	expect_usage_error(&r, "invalid --debug-dir");
}

/* ---- the man page and the bash completion know every option ---- */

static char *read_source_file(const char *path)
{
	static char buf[2][131072];
	static int which;
	FILE *f = fopen(path, "r");
	size_t n;

	cr_assert_not_null(f, "%s: run the tests from the source directory", path);
	which ^= 1;
	n = fread(buf[which], 1, sizeof(buf[which]) - 1, f);
	cr_assert(feof(f), "%s is larger than the test reads", path);
	fclose(f);
	buf[which][n] = '\0';
	return buf[which];
}

Test(options_docs, every_long_option_of_help_is_in_the_man_page_and_the_completion)
{
	const char *man = read_source_file("dist/diskio.8");
	const char *completion = read_source_file("dist/diskio.bash");
	unsigned int checked = 0;
	struct run r;

	PARSE(&r, "--help");
	cr_assert_eq(WEXITSTATUS(r.status), 0, "stderr: %s", r.err);
	for (const char *p = strstr(r.out, "--"); p; p = strstr(p + 2, "--")) {
		char name[64], in_man[160], in_completion[80];
		size_t len = 0;

		/* Option lines only: "  -b, --batch", "      --prom=FILE". */
		if (p > r.out && p[-1] != ' ')
			continue;
		while (len < sizeof(name) - 1 && (islower((unsigned char)p[2 + len]) ||
						  p[2 + len] == '-'))
			len++;
		if (len < 2)
			continue;
		snprintf(name, sizeof(name), "%.*s", (int)len, p + 2);
		/* roff writes each '-' as "\-". */
		snprintf(in_man, sizeof(in_man), "\\-\\-");
		for (size_t i = 0; i < len; i++)
			strncat(in_man, name[i] == '-' ? "\\-" : (char[2]){ name[i], 0 },
				sizeof(in_man) - strlen(in_man) - 1);
		snprintf(in_completion, sizeof(in_completion), "--%s", name);
		cr_assert(strstr(man, in_man), "--%s is not in dist/diskio.8", name);
		cr_assert(strstr(completion, in_completion), "--%s is not in dist/diskio.bash",
			  name);
		checked++;
	}
	cr_assert_geq(checked, 25, "only %u long options found in --help", checked);
}

/* The man page is checked against the code's own lists, so that a lost
 * cause or a sort key added there cannot be missing here: each appears in
 * bold, as the prom metric's list and -s's list write them.  (The output
 * keys: tests/test_render.c, from what the views write.) */
Test(options_docs, the_man_page_has_every_lost_cause_and_sort_key)
{
	const char *man = read_source_file("dist/diskio.8");

	for (int cause = 0; cause < LOST_NR_CAUSES; cause++) {
		char bold[80], bold_last[80];

		snprintf(bold, sizeof(bold), ".BR %s ,\n", lost_cause_names[cause]);
		snprintf(bold_last, sizeof(bold_last), ".BR %s .\n", lost_cause_names[cause]);
		cr_assert(strstr(man, bold) || strstr(man, bold_last),
			  "lost cause %s is not in dist/diskio.8's list", lost_cause_names[cause]);
	}
	for (int key = 0; key < SORT_NR_KEYS; key++) {
		char bold[80], bold_comma[80];

		snprintf(bold, sizeof(bold), ".B %s\n", sort_key_name(key));
		snprintf(bold_comma, sizeof(bold_comma), ".BR %s ,\n", sort_key_name(key));
		cr_assert(strstr(man, bold) || strstr(man, bold_comma),
			  "sort key %s is not in dist/diskio.8", sort_key_name(key));
	}
}

/* The words of the first "compgen -W '...'" after marker in the completion. */
static size_t completion_words(const char *completion, const char *marker, char words[][32],
			       size_t max)
{
	const char *p = strstr(completion, marker), *end;
	size_t n = 0;

	cr_assert_not_null(p, "dist/diskio.bash has no '%s'", marker);
	p = strstr(p, "compgen -W '");
	cr_assert_not_null(p);
	p += strlen("compgen -W '");
	end = strchr(p, '\'');
	cr_assert_not_null(end);
	while (p < end) {
		size_t len;

		p += strspn(p, " \t\n");
		len = strcspn(p, " \t\n'");
		if (!len)
			break;
		cr_assert_lt(n, max);
		cr_assert_lt(len, 32);
		memcpy(words[n], p, len);
		words[n][len] = '\0';
		n++;
		p += len;
	}
	return n;
}

/* The completion offers -s's keys and --stacks's values from the code's
 * lists: exactly those, each accepted by the parser. */
Test(options_docs, the_completion_offers_the_codes_sort_keys_and_stacks)
{
	static const char *const stacks[] = { "kernel", "user", "both" };
	const char *completion = read_source_file("dist/diskio.bash");
	char words[32][32];
	size_t n = completion_words(completion, "-s | --sort)", words, 32);
	struct run r;

	cr_assert_eq(n, SORT_NR_KEYS, "the completion offers %zu sort keys, the code has %d", n,
		     SORT_NR_KEYS);
	for (size_t i = 0; i < SORT_NR_KEYS; i++)
		cr_assert_str_eq(words[i], sort_keys[i].name, "the completion's sort key %zu", i);
	n = completion_words(completion, "--stacks)", words, 32);
	cr_assert_eq(n, 3);
	for (size_t i = 0; i < n; i++) {
		char arg[48];
		const char *args[] = { arg, NULL };

		cr_assert_str_eq(words[i], stacks[i]);
		snprintf(arg, sizeof(arg), "--stacks=%.31s", words[i]);
		run_parse(&r, args);
		expect_ok(&r);
	}
}

/* --latency-sample: 1 in N bios of bio-based disks; default 16. */
Test(options_good, latency_sample_default_and_given)
{
	struct run r;

	run_parse_none(&r);
	expect_ok(&r);
	cr_assert_eq(r.opts.latency_sample, DEFAULT_LATENCY_SAMPLE);
	cr_assert_eq(DEFAULT_LATENCY_SAMPLE, 16);
	PARSE(&r, "--latency-sample", "1");
	expect_ok(&r);
	cr_assert_eq(r.opts.latency_sample, 1);
	PARSE(&r, "--latency-sample=65536", "-D", "zram0");
	expect_ok(&r);
	cr_assert_eq(r.opts.latency_sample, 65536);
}

Test(options_bad, latency_sample_out_of_range_or_not_a_number)
{
	static const char *const bad[] = { "0", "65537", "-1", "16x", "", " 16", "1.5" };
	struct run r;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		const char *args[] = { "--latency-sample", bad[i], NULL };

		run_parse(&r, args);
		expect_usage_error(&r, "invalid --latency-sample");
	}
}

/* Modes that time every I/O: a sample rate would change nothing. */
Test(options_bad, latency_sample_with_modes_that_time_every_io)
{
	static const char *const modes[][3] = {
		{ "-L", NULL }, { "-T", NULL }, { "-p", "1" }, { "-c", "fio" },
		{ "--cgroup", "/system.slice" },
	};
	struct run r;

	for (size_t i = 0; i < sizeof(modes) / sizeof(modes[0]); i++) {
		const char *args[] = { "--latency-sample", "4", modes[i][0], modes[i][1], NULL };
		char mention[64];

		run_parse(&r, args);
		snprintf(mention, sizeof(mention), "--latency-sample has no effect with %s",
			 modes[i][0]);
		expect_usage_error(&r, mention);
	}
}

/* ---- issue 36: --record, --replay, --begin, --end ---- */

Test(options_good, record_and_replay)
{
	struct run r;

	PARSE(&r, "-q", "--record", "/var/lib/diskio/history", "10");
	expect_ok(&r);
	cr_assert_str_eq(r.opts.record_dir, "/var/lib/diskio/history");
	cr_assert_eq(r.opts.record_days, 7);
	cr_assert_eq(r.opts.record_max, 256ULL << 20);
	PARSE(&r, "--record", "d", "--record-days", "0", "--record-max", "1G");
	expect_ok(&r);
	cr_assert_eq(r.opts.record_days, 0);
	cr_assert_eq(r.opts.record_max, 1ULL << 30);
	PARSE(&r, "--replay", "d", "--json", "-a", "--begin", "03:00", "--end", "-1h", "-r", "5");
	expect_ok(&r);
	cr_assert_str_eq(r.opts.replay_dir, "d");
	cr_assert_str_eq(r.opts.begin, "03:00");
	cr_assert_str_eq(r.opts.end, "-1h");
}

Test(options_bad, record_and_replay_combinations)
{
	struct run r;

	PARSE(&r, "--record-days", "3");
	expect_usage_error(&r, "--record-days has no effect without --record DIR");
	PARSE(&r, "--begin", "03:00");
	expect_usage_error(&r, "--begin has no effect without --replay DIR");
	PARSE(&r, "--record", "d", "-T");
	expect_usage_error(&r, "--record has no effect with -T (trace mode): it keeps no frames");
	PARSE(&r, "--replay", "d", "-D", "vda");
	expect_usage_error(&r, "-D has no effect with --replay: the record decided it");
	PARSE(&r, "--replay", "d", "5");
	expect_usage_error(&r, "INTERVAL has no effect with --replay: the record decided it");
	/* issue 36: a record made with --files has its files (cut as the run cut them) */
	PARSE(&r, "--replay", "d", "--files");
	expect_usage_error(&r, "--files has no effect with --replay: the record decided it");
	PARSE(&r, "--replay", "d", "--files-top", "3");
	expect_usage_error(&r, "--files-top has no effect with --replay: the record decided it");
	PARSE(&r, "--record", "d", "--record-max", "12X");
	expect_usage_error(&r, "invalid --record-max '12X': bytes (K, M, G suffixes), 0 for no "
			   "limit");
}

/* ---- --diagnose (issue 45) ---- */

Test(options_diagnose, defaults_to_ten_seconds_one_window)
{
	struct run r;

	PARSE(&r, "--diagnose");
	expect_ok(&r);
	cr_assert_eq(r.opts.diagnose_s, 10.0);
	cr_assert_eq(r.opts.interval_s, 10.0);
	cr_assert_eq(r.opts.count, 1);
	cr_assert_not(r.opts.cumulative);
	cr_assert_eq(r.opts.diagnose_rules.busy_util, 60);
}

Test(options_diagnose, seconds_and_rules)
{
	struct run r;

	PARSE(&r, "--diagnose=2.5", "--json", "--files", "-D", "vda", "--diagnose-rule",
	      "busy_util=90", "--diagnose-rule", "drivers=5");
	expect_ok(&r);
	cr_assert_eq(r.opts.interval_s, 2.5);
	cr_assert_eq(r.opts.count, 1);
	cr_assert_eq(r.opts.diagnose_rules.busy_util, 90);
	cr_assert_eq(r.opts.diagnose_rules.drivers, 5);
	cr_assert_eq(r.opts.diagnose_rules.wait_pct, 20, "the others keep their defaults");
}

Test(options_diagnose, a_replay_sums_its_window)
{
	struct run r;

	PARSE(&r, "--replay", "/var/lib/diskio", "--diagnose", "--begin", "03:00");
	expect_ok(&r);
	cr_assert(r.opts.cumulative);
	cr_assert_eq(r.opts.count, 0);
}

Test(options_diagnose, what_has_no_effect_is_refused)
{
	static const char *const cases[][3] = {
		{ "5", NULL, "INTERVAL" }, { "-T", NULL, "-T" }, { "-q", NULL, "-q" },
		{ "-b", NULL, "-b" }, { "-C", NULL, "-C" }, { "-a", NULL, "-a" },
		{ "-r", "5", "-r" }, { "-s", "pid", "-s" }, { "--histogram", NULL, "--histogram" },
		{ "--stacks", NULL, "--stacks" }, { "--by", "cgroup", "--by cgroup" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *args[] = { "--diagnose", cases[i][0], cases[i][1], NULL };
		struct run r;

		run_parse(&r, args);
		expect_usage_error(&r, cases[i][2]);
		cr_assert(strstr(r.err, "--diagnose"), "%s", r.err);
	}
}

Test(options_diagnose, bad_seconds_and_rules)
{
	struct run r;

	PARSE(&r, "--diagnose=0");
	expect_usage_error(&r, "'0'");
	PARSE(&r, "--diagnose=x");
	expect_usage_error(&r, "--diagnose");
	PARSE(&r, "--diagnose", "--diagnose-rule", "busy_util=200");
	expect_usage_error(&r, "busy_util");
	PARSE(&r, "--diagnose", "--diagnose-rule", "nosuch=1");
	expect_usage_error(&r, "nosuch");
	PARSE(&r, "--diagnose-rule", "busy_util=70");
	expect_usage_error(&r, "without --diagnose");
	PARSE(&r, "--replay", "/var/lib/diskio", "--diagnose=5");
	expect_usage_error(&r, "--begin");
	PARSE(&r, "--list", "/var/lib/diskio", "--diagnose");
	expect_usage_error(&r, "--list");
}
