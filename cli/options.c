// SPDX-License-Identifier: GPL-2.0
/* Command line of diskio: argp, strict numbers, one clear line per mistake. */
#define _GNU_SOURCE
#include <argp.h>
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <strings.h>
#include "options.h"
#include "prom.h"

#define PID_MAX_LIMIT		4194304		/* the kernel's upper bound for pid_max */
#define MAX_INTERVAL_S		86400.0
#define MIN_INTERVAL_S		0.01
#define MAX_BUFFER_KB		(1U << 20)	/* 1 GiB */
#define MIN_STACKS_MEM		(64ULL << 10)
#define MAX_STACKS_MEM		(4ULL << 30)	/* a res_table's offsets are 32-bit */
#define MAX_STACKS_TOP		1000

_Static_assert(MAX_PROM_LABELS == PROM_MAX_LABELS, "one limit of --prom-label");

const char *argp_program_version = "diskio " DISKIO_VERSION;
const char *argp_program_bug_address = NULL;

/*
 * parse_option() runs under ARGP_NO_EXIT, so that options_parse_status()
 * can return where argp would exit: after argp_error(), which then prints
 * but returns, it returns EINVAL; after --help, --usage or --version it
 * returns PARSE_DONE, which stops argp_parse() as any error does.
 */
#define PARSE_DONE ECANCELED

/* No line longer than 79 columns (argp wraps there).  Every line is run by
 * tests/integration/test_examples.c, which knows each one's answer. */
#define HELP_EXAMPLES \
"  diskio                   # live top view, refreshed every second\n" \
"  diskio 5 1               # one 5-second sample, then exit\n" \
"  diskio -b 1 10 | awk '!/^#/ && $6 > 0 {print $3, $6}'   # writers\n" \
"  diskio --json 2 3        # three 2-second samples as NDJSON\n" \
"  diskio -p 1234 -p 5678   # only these processes\n" \
"  diskio -c postgres -L    # only postgres, with per-process latency\n" \
"  diskio -D vda -D 8:16    # only these disks (name or MAJ:MIN)\n" \
"  diskio -T -D zram0       # one line per completed I/O on zram0\n" \
"  diskio --diagnose        # 10 s, then which disk is in trouble and why\n" \
"  diskio --by cgroup -s dirty   # which service dirties the page cache\n" \
"  diskio --state /var/lib/diskio/crash.state   # crash-free hours, all runs\n" \
"  diskio -q --prom /run/diskio.prom 15   # metrics for node_exporter\n"

static const char doc[] =
"Show which processes read, write and discard how many bytes on which disks,\n"
"with latency, lost-event counts and crash-free intervals.\n"
"\n"
"INTERVAL is in seconds (fractions allowed, default 1); after COUNT intervals\n"
"diskio exits (default: run until Ctrl-C, SIGTERM or SIGHUP; with --prom,\n"
"SIGHUP rewrites the files and diskio goes on).  On a terminal it shows\n"
"a live top view; piped, it prints batch lines for awk (-b forces that), whose\n"
"comment lines start with '#'.\n"
"\n"
"EXAMPLES:\n"
HELP_EXAMPLES;

static const char args_doc[] = "[INTERVAL [COUNT]]\n[INTERVAL] -- COMMAND [ARGS...]";

enum {
	OPT_JSON = 0x100,
	OPT_CRASH_INTERVAL,
	OPT_STATE,
	OPT_BUFFER_KB,
	OPT_SUBMITTER,
	OPT_CGROUP,
	OPT_BY,
	OPT_USAGE,
	OPT_HISTOGRAM,
	OPT_PROM,
	OPT_PROM_ROWS,
	OPT_PROM_IDLE,
	OPT_PROM_LABEL,
	OPT_STACKS,
	OPT_STACKS_MEM,
	OPT_STACKS_TOP,
	OPT_FOLDED,
	OPT_DEBUG_DIR,
	OPT_LATENCY_SAMPLE,
	OPT_FILES,
	OPT_FILES_TOP,
	OPT_RECORD,
	OPT_RECORD_DAYS,
	OPT_RECORD_MAX,
	OPT_REPLAY,
	OPT_BEGIN,
	OPT_END,
	OPT_LIST,
	OPT_DIAGNOSE,
	OPT_DIAGNOSE_RULE,
	OPT_ALL,
};

static const struct argp_option option_table[] = {
	{ "batch", 'b', NULL, 0, "Batch lines for awk, even on a terminal", 0 },
	{ "no-clear", 'C', NULL, 0, "Top view: do not redraw in place, append", 0 },
	{ "rows", 'r', "ROWS", 0, "Show at most ROWS processes per interval", 0 },
	{ "sort", 's', "SORT", 0, NULL, 0 },	/* its text: sort_keys_text() */
	{ "accumulated", 'a', NULL, 0, "Show totals since start, not per interval", 0 },
	{ "latency", 'L', NULL, 0, "Per-process average latency (costs more per I/O)", 0 },
	{ "latency-sample", OPT_LATENCY_SAMPLE, "N", 0,
	  "Time 1 in N bios of bio-based disks (zram, dm, md; default 16)", 0 },
	{ "trace", 'T', NULL, 0, "One line per completed I/O (biosnoop view)", 0 },
	{ "pid", 'p', "PID", 0, "Only this process, or thread (repeatable, up to 16)", 0 },
	{ "user", 'u', "USER", 0,
	  "Only processes of this user: name or uid (repeatable, up to 16)", 0 },
	{ "comm", 'c', "COMM", 0, "Only processes named COMM (exact, up to 15 bytes)", 0 },
	{ "device", 'D', "DEVICE", 0,
	  "Only this disk: name (vda) or MAJ:MIN (repeatable, up to 16)", 0 },
	{ "cgroup", OPT_CGROUP, "PATH", 0,
	  "Only this cgroup v2 group and its descendants, e.g. /system.slice/nginx.service "
	  "(repeatable, up to 16)", 0 },
	{ "by", OPT_BY, "KEY", 0, "Rows per process (default) or per cgroup", 0 },
	{ "histogram", OPT_HISTOGRAM, NULL, 0,
	  "Each disk's latency histogram per operation, every interval", 0 },
	{ "threads", 't', NULL, 0,
	  "A row per thread (its TID and its own name), not per process", 0 },
	{ "submitter", OPT_SUBMITTER, NULL, 0,
	  "Charge writes to the task that submitted them, not the one that dirtied them", 0 },
	{ "json", OPT_JSON, NULL, 0, "One JSON object per interval (NDJSON)", 0 },
	/* A text that ends a line exactly at argp's margin (79) leaves a line of
	 * spaces after it: this one stops short of it. */
	{ "crash-interval", OPT_CRASH_INTERVAL, "SECONDS", 0,
	  "Length of crash-free intervals (default 3600)", 0 },
	{ "state", OPT_STATE, "FILE", 0, "Keep crash-free counts in FILE across runs", 0 },
	{ "buffer-kb", OPT_BUFFER_KB, "N", 0,
	  "Event buffer size in KiB (ring buffer: total; perf buffer: per CPU)", 0 },
	{ "prom", OPT_PROM, "FILE", 0,
	  "Write Prometheus metrics (totals) to FILE every interval, for node_exporter's "
	  "textfile collector", 0 },
	{ "prom-rows", OPT_PROM_ROWS, "N", 0,
	  "At most N process series per disk in --prom, the rest as comm=\"other\" "
	  "(default 50)", 0 },
	{ "prom-idle", OPT_PROM_IDLE, "SECONDS", 0,
	  "Drop a --prom series unchanged for SECONDS (default 3600, 0: never)", 0 },
	{ "prom-label", OPT_PROM_LABEL, "KEY=VALUE", 0,
	  "Add this label to every --prom series, e.g. release=2.1 (repeatable, up to 16)", 0 },
	{ "quiet", 'q', NULL, 0,
	  "Print nothing on stdout, errors only (a service with --prom or --state)", 0 },
	{ "stacks", OPT_STACKS, "WHICH", OPTION_ARG_OPTIONAL,
	  "Why: the kernel and user stacks of each process's I/O and page dirtying; "
	  "WHICH is kernel, user or both (default)", 0 },
	{ "stacks-mem", OPT_STACKS_MEM, "BYTES", 0,
	  "Memory for the stacks kept (default 16M; K, M, G suffixes)", 0 },
	{ "stacks-top", OPT_STACKS_TOP, "N", 0, "Stacks shown per row (default 5)", 0 },
	{ "folded", OPT_FOLDED, "FILE", 0,
	  "At exit, write the run's stacks to FILE as folded lines for flame graphs", 0 },
	{ "debug-dir", OPT_DEBUG_DIR, "DIR", 0,
	  "Also look for separate debug files in DIR/.build-id/ (after /usr/lib/debug)", 0 },
	{ "files", OPT_FILES, NULL, 0,
	  "Which file: bytes and I/Os per process, file and disk (costs more per I/O)", 0 },
	{ "files-top", OPT_FILES_TOP, "N", 0,
	  "At most N files per process and disk, the rest as one line (default: all)", 0 },
	{ "record", OPT_RECORD, "DIR", 0,
	  "Also keep every frame in DIR, one file a UTC day (replay with --replay)", 0 },
	{ "record-days", OPT_RECORD_DAYS, "N", 0,
	  "Keep the last N days of --record (default 7; 0: all)", 0 },
	{ "record-max", OPT_RECORD_MAX, "SIZE", 0,
	  "Keep at most SIZE bytes of --record (default 256M; 0: no limit)", 0 },
	{ "replay", OPT_REPLAY, "DIR", 0,
	  "Show the frames --record kept in DIR instead of the live ones", 0 },
	{ "begin", OPT_BEGIN, "TIME", 0,
	  "Replay from TIME: 2026-11-26T03:00:00Z or +01:00; without a zone local time "
	  "(TZ): 2026-11-26 03:00, 2026-11-26, 03:00 (today); @EPOCH; -2h30m (before now); "
	  "now, today, yesterday", 0 },
	{ "end", OPT_END, "TIME", 0, "Replay up to TIME (as --begin)", 0 },
	{ "list", OPT_LIST, "DIR", 0,
	  "List the runs --record kept in DIR: host, filter, first and last frame, frames, "
	  "gaps", 0 },
	{ "diagnose", OPT_DIAGNOSE, "SECONDS", OPTION_ARG_OPTIONAL,
	  "Count for SECONDS (default 10), then say which disk is in trouble, who "
	  "drives it, who waits and what failed; with --replay, of the window", 0 },
	{ "diagnose-rule", OPT_DIAGNOSE_RULE, "NAME=VALUE", 0,
	  "Override one of --diagnose's thresholds (repeatable)", 0 },
	{ "all", OPT_ALL, NULL, 0,
	  "With -- COMMAND: count the whole machine while it runs, not only the command", 0 },
	{ "verbose", 'v', NULL, 0, "Show libbpf's debug output", 0 },
	/* argp's own help options are off (ARGP_NO_HELP): they bring the
	 * hidden --HANG and --program-name along. */
	{ "help", 'h', NULL, 0, "Show this help", 0 },
	{ "usage", OPT_USAGE, NULL, 0, "Show a short usage message", 0 },
	{ "version", 'V', NULL, 0, "Show the version", 0 },
	{},
};

/* What parse_option() fills, and what it needs to know of the options given
 * to refuse combinations after the last one. */
struct parse_state {
	struct options *opts;
	bool sort_given;	/* -s, even -s bytes */
	bool prom_rows_given, prom_idle_given;
	bool stacks_mem_given, stacks_top_given, files_top_given;
	bool latency_sample_given;
	bool record_days_given, record_max_given;
	bool interval_given;
	bool diagnose_seconds_given, diagnose_rule_given;
};

/* --record's and --replay's options: what goes with what (issue 36). */
static int check_history(const struct parse_state *ps, struct argp_state *state)
{
	const struct options *opts = ps->opts;
	static const char *const live_only[] = {
		"-T", "-q", "--prom", "--state", "--folded", "--stacks", "-p", "-c", "-D",
		"--cgroup", "--record", "--submitter", "-t", "-L", "--by cgroup", "INTERVAL",
		"--files", "--files-top", "-u",
	};
	bool given[] = {
		opts->trace, opts->quiet, opts->prom_path, opts->state_path, opts->folded_path,
		opts->stacks, opts->nr_pids, opts->filter_comm, opts->nr_devices,
		opts->nr_cgroups, opts->record_dir, opts->submitter, opts->threads,
		opts->per_process_latency, opts->by_cgroup, ps->interval_given,
		opts->files, ps->files_top_given, opts->nr_users,
	};

	if (!opts->record_dir && (ps->record_days_given || ps->record_max_given)) {
		argp_error(state, "%s has no effect without --record DIR",
			   ps->record_days_given ? "--record-days" : "--record-max");
		return EINVAL;
	}
	if (!opts->replay_dir && (opts->begin || opts->end)) {
		argp_error(state, "%s has no effect without --replay DIR",
			   opts->begin ? "--begin" : "--end");
		return EINVAL;
	}
	if (opts->record_dir && opts->trace) {
		argp_error(state, "--record has no effect with -T (trace mode): it keeps no frames");
		return EINVAL;
	}
	if (!opts->replay_dir && !opts->list_dir)
		return 0;
	for (size_t i = 0; i < sizeof(given) / sizeof(given[0]); i++) {
		if (given[i]) {
			argp_error(state, opts->replay_dir ?
				   "%s has no effect with --replay: the record decided it" :
				   "%s has no effect with --list: it lists what the record holds",
				   live_only[i]);
			return EINVAL;
		}
	}
	return 0;
}

/* issue 43: --list prints the record's runs, batch lines or --json; what
 * shapes a replay's frames changes nothing there. */
static int check_list(const struct parse_state *ps, struct argp_state *state)
{
	const struct options *opts = ps->opts;
	static const char *const replay_only[] = {
		"--replay", "-a", "-r", "-s", "-C", "--histogram",
	};
	bool given[] = {
		opts->replay_dir, opts->cumulative, opts->rows != 0, ps->sort_given,
		opts->no_clear, opts->histograms,
	};

	if (!opts->list_dir)
		return 0;
	for (size_t i = 0; i < sizeof(given) / sizeof(given[0]); i++) {
		if (given[i]) {
			argp_error(state, "%s has no effect with --list: it lists the record's runs",
				   replay_only[i]);
			return EINVAL;
		}
	}
	return 0;
}

/* --quiet shows nothing: options about what is shown would change nothing. */
static int check_quiet(const struct parse_state *ps, struct argp_state *state)
{
	const struct options *opts = ps->opts;
	static const char *const option[] = {
		"-b", "--json", "-C", "-a", "-r", "-s", "--histogram", "-T",
		"--files",	/* issue 35: shown on stdout, or recorded (issue 43) */
	};
	bool given[] = {
		opts->output == OUTPUT_BATCH, opts->output == OUTPUT_JSON, opts->no_clear,
		opts->cumulative, opts->rows != 0, ps->sort_given, opts->histograms, opts->trace,
		opts->files && !opts->record_dir,
	};

	for (size_t i = 0; i < sizeof(given) / sizeof(given[0]); i++) {
		if (given[i]) {
			argp_error(state, "%s has no effect with --quiet: it prints nothing on stdout",
				   option[i]);
			return EINVAL;
		}
	}
	if (!opts->prom_path && !opts->state_path && !opts->record_dir) {
		argp_error(state, "--quiet alone would do nothing: give --prom FILE, --state FILE "
			   "or --record DIR");
		return EINVAL;
	}
	return 0;
}

/* --prom's own options without it, and --prom in trace mode. */
static int check_prom(const struct parse_state *ps, struct argp_state *state)
{
	const struct options *opts = ps->opts;

	if (!opts->prom_path && (ps->prom_rows_given || ps->prom_idle_given ||
				 opts->nr_prom_labels)) {
		argp_error(state, "%s has no effect without --prom FILE",
			   ps->prom_rows_given ? "--prom-rows" :
			   ps->prom_idle_given ? "--prom-idle" : "--prom-label");
		return EINVAL;
	}
	if (opts->prom_path && opts->trace) {
		argp_error(state, "--prom has no effect with -T (trace mode): it keeps no totals");
		return EINVAL;
	}
	return 0;
}

/* Options that would change nothing, or modes that exclude each other: an
 * error (argp_error() has said which) rather than silently ignored. */
/* issue 45: --diagnose counts one window (live: SECONDS from the attach;
 * a replay: --begin to --end, summed) and says what it found once: what
 * shapes intervals, rows or a screen has no effect on it. */
static int check_diagnose(struct parse_state *ps, struct argp_state *state)
{
	struct options *opts = ps->opts;
	static const struct {
		const char *option, *why;
	} no_effect[] = {
		{ "INTERVAL", "it counts for SECONDS (--diagnose=SECONDS)" },
		{ "-T", "it reads totals, not each I/O" },
		{ "-q", "it prints its diagnosis on stdout" },
		{ "-b", "it prints text, or one record with --json" },
		{ "-C", "it is not the top view" },
		{ "-a", "it sums its window already" },
		{ "-r", "it names the first processes of each disk itself" },
		{ "-s", "it orders by share of each disk's bytes" },
		{ "--histogram", "it shows no histograms" },
		{ "--stacks", "it shows no stacks" },
		{ "--by cgroup", "it names processes, with their cgroups" },
	};
	bool given[] = {
		ps->interval_given, opts->trace, opts->quiet, opts->output == OUTPUT_BATCH,
		opts->no_clear, opts->cumulative, opts->rows != 0, ps->sort_given,
		opts->histograms, opts->stacks != 0, opts->by_cgroup,
	};

	if (!opts->diagnose_s) {
		if (ps->diagnose_rule_given) {
			argp_error(state, "--diagnose-rule has no effect without --diagnose");
			return EINVAL;
		}
		return 0;
	}
	for (size_t i = 0; i < sizeof(given) / sizeof(given[0]); i++) {
		if (given[i]) {
			argp_error(state, "%s has no effect with --diagnose: %s", no_effect[i].option,
				   no_effect[i].why);
			return EINVAL;
		}
	}
	if (opts->list_dir) {
		argp_error(state, "--diagnose has no effect with --list: it lists the record's runs");
		return EINVAL;
	}
	if (opts->command) {
		if (ps->diagnose_seconds_given) {
			argp_error(state, "--diagnose=SECONDS has no effect with -- COMMAND: the "
				   "window is the command's run");
			return EINVAL;
		}
		return 0;	/* check_command() sets the window */
	}
	if (opts->replay_dir) {
		if (ps->diagnose_seconds_given) {
			argp_error(state, "--diagnose=SECONDS has no effect with --replay: --begin and "
				   "--end give the window");
			return EINVAL;
		}
		opts->cumulative = true;	/* the window's frames summed */
		return 0;
	}
	opts->interval_s = opts->diagnose_s;
	opts->count = 1;
	return 0;
}

/* issue 45: `-- COMMAND`: counts from just before the command starts to
 * its end (its processes, or with --all the machine), in one window unless
 * INTERVAL cuts it; the run ends with the command, whose output shares the
 * terminal: no top view. */
static int check_command(struct parse_state *ps, struct argp_state *state)
{
	struct options *opts = ps->opts;
	static const char *const no_effect[] = { "--replay", "--list", "COUNT", "-C", "-p",
						 "--cgroup" };
	bool given[] = {
		opts->replay_dir, opts->list_dir, opts->count != 0, opts->no_clear,
		opts->nr_pids && !opts->command_all, opts->nr_cgroups && !opts->command_all,
	};

	if (opts->command_missing) {
		argp_error(state, "no COMMAND after --: give the command to run");
		return EINVAL;
	}
	if (!opts->command) {
		if (opts->command_all) {
			argp_error(state, "--all has no effect without -- COMMAND");
			return EINVAL;
		}
		return 0;
	}
	for (size_t i = 0; i < sizeof(given) / sizeof(given[0]); i++) {
		if (given[i]) {
			argp_error(state, "%s has no effect with -- COMMAND: %s", no_effect[i],
				   i < 3 ? "the command's run is the window" :
				   i == 3 ? "the command's output shares the terminal: no top view" :
				   "it counts the command's processes (--all: the machine's)");
			return EINVAL;
		}
	}
	if (!ps->interval_given)
		opts->interval_s = MAX_INTERVAL_S;	/* one window: the command's run */
	if (opts->output == OUTPUT_AUTO && !opts->diagnose_s)
		opts->output = OUTPUT_BATCH;
	return 0;
}

static int check_combinations(struct parse_state *ps, struct argp_state *state)
{
	const struct options *opts = ps->opts;

	if (check_diagnose(ps, state) || check_command(ps, state))
		return EINVAL;

	if (opts->quiet && check_quiet(ps, state))
		return EINVAL;
	if (check_prom(ps, state) || check_list(ps, state) || check_history(ps, state))
		return EINVAL;

	if (opts->trace) {
		/* Trace mode prints each I/O as it completes, with its latency
		 * and its submitter: no rows to sort, cut, sum or group. */
		static const struct {
			bool given;
			const char *option, *why;
		} no_effect[] = {
			{ false, "-a", "it prints each I/O, not totals" },
			{ false, "-r", "it prints every I/O, not rows" },
			{ false, "-s", "it prints I/Os in completion order" },
			{ false, "--by cgroup", "it prints each I/O of its submitter" },
			{ false, "--submitter", "it always shows the submitter" },
			{ false, "-L", "every I/O carries its latency" },
			{ false, "-C", "it is not the top view" },
			{ false, "-t", "it prints each I/O's submitter" },
		};
		bool given[] = {
			opts->cumulative, opts->rows != 0, ps->sort_given, opts->by_cgroup,
			opts->submitter, opts->per_process_latency, opts->no_clear,
			opts->threads,
		};

		for (size_t i = 0; i < sizeof(given) / sizeof(given[0]); i++) {
			if (given[i]) {
				argp_error(state, "%s has no effect with -T (trace mode): %s",
					   no_effect[i].option, no_effect[i].why);
				return EINVAL;
			}
		}
	}
	if (ps->latency_sample_given && (opts->per_process_latency || opts->trace ||
					  opts->nr_pids || opts->nr_users || opts->filter_comm ||
					  opts->nr_cgroups)) {
		argp_error(state, "--latency-sample has no effect with %s: it times every I/O",
			   opts->per_process_latency ? "-L" : opts->trace ? "-T" :
			   opts->nr_pids ? "-p" : opts->nr_users ? "-u" :
			   opts->filter_comm ? "-c" : "--cgroup");
		return EINVAL;
	}
	if (opts->trace && opts->stacks) {
		argp_error(state, "--stacks has no effect with -T (trace mode): it keeps no rows");
		return EINVAL;
	}
	if (!opts->stacks && (ps->stacks_mem_given || ps->stacks_top_given || opts->folded_path ||
			      opts->debug_dir)) {
		argp_error(state, "%s needs --stacks: without it no stacks are kept",
			   opts->folded_path ? "--folded" :
			   opts->debug_dir ? "--debug-dir" :
			   ps->stacks_mem_given ? "--stacks-mem" : "--stacks-top");
		return EINVAL;
	}
	if (opts->trace && opts->files) {
		argp_error(state, "--files has no effect with -T (trace mode): it keeps no rows");
		return EINVAL;
	}
	if (!opts->files && ps->files_top_given) {
		argp_error(state, "--files-top needs --files: without it no files are kept");
		return EINVAL;
	}
	if (opts->debug_dir && !(opts->stacks & STACKS_USER)) {
		argp_error(state, "--debug-dir has no effect with --stacks=kernel: it names user "
			   "frames");
		return EINVAL;
	}
	if (opts->no_clear && opts->output != OUTPUT_AUTO) {
		argp_error(state, "-C has no effect with %s: it is for the top view",
			   opts->output == OUTPUT_JSON ? "--json" : "-b");
		return EINVAL;
	}
	if (opts->sort == SORT_LATENCY && !opts->per_process_latency) {
		argp_error(state, "-s latency needs -L: without it processes have no latency");
		return EINVAL;
	}
	if (opts->by_cgroup && (opts->sort == SORT_PID || opts->sort == SORT_COMM)) {
		argp_error(state, "-s %s has no effect with --by cgroup: its rows have no %s",
			   sort_key_name(opts->sort), sort_key_name(opts->sort));
		return EINVAL;
	}
	return 0;
}

#define SORT_KEYS_TEXT_SIZE 256

/* "pid, comm, ... or cgroup": -s's keys from the one list (iostats.h), in
 * the order of the top view's columns. */
static const char *sort_keys_text(char *buf, size_t size)
{
	size_t n = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < SORT_NR_KEYS && n < size; i++)
		n += snprintf(buf + n, size - n, "%s%s", i == 0 ? "" :
			      i + 1 == SORT_NR_KEYS ? " or " : ", ", sort_keys[i].name);
	return buf;
}

/* -s's help, from the list of keys. */
static char *help_filter(int key, const char *text, void *input)
{
	char keys[SORT_KEYS_TEXT_SIZE], *help;

	(void)input;
	if (key != 's')
		return (char *)text;
	if (asprintf(&help, "Sort by %s (default: bytes; names ascending, numbers descending)",
		     sort_keys_text(keys, sizeof(keys))) < 0)
		return (char *)text;
	return help;
}

/* A whole decimal number in [min, max]; anything else is an error. */
static int parse_uint(const char *text, uint64_t min, uint64_t max, uint64_t *value)
{
	unsigned long long parsed;
	char *end;

	if (!text || !*text || *text == '-' || *text == '+' || isspace((unsigned char)*text))
		return -EINVAL;
	errno = 0;
	parsed = strtoull(text, &end, 10);
	if (errno || *end || parsed < min || parsed > max)
		return -EINVAL;
	*value = parsed;
	return 0;
}

/* A size in bytes: a whole number, optionally K, M or G (powers of 1024,
 * KiB/MiB/GiB and lower case too), in [min, max]. */
static int parse_size(const char *text, uint64_t min, uint64_t max, uint64_t *value)
{
	static const struct {
		const char *suffix;
		unsigned int shift;
	} units[] = {
		{ "", 0 }, { "K", 10 }, { "KiB", 10 }, { "M", 20 }, { "MiB", 20 },
		{ "G", 30 }, { "GiB", 30 },
	};
	unsigned long long parsed;
	char *end;

	if (!text || !isdigit((unsigned char)*text))
		return -EINVAL;
	errno = 0;
	parsed = strtoull(text, &end, 10);
	if (errno)
		return -EINVAL;
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		if (strcasecmp(end, units[i].suffix))
			continue;
		if (parsed > (max >> units[i].shift))
			return -EINVAL;
		parsed <<= units[i].shift;
		if (parsed < min)
			return -EINVAL;
		*value = parsed;
		return 0;
	}
	return -EINVAL;
}

/* --stacks[=kernel|user|both] */
static int parse_stacks(const char *text, uint32_t *mode)
{
	if (!text || !strcmp(text, "both"))
		*mode = STACKS_KERNEL | STACKS_USER;
	else if (!strcmp(text, "kernel"))
		*mode = STACKS_KERNEL;
	else if (!strcmp(text, "user"))
		*mode = STACKS_USER;
	else
		return -EINVAL;
	return 0;
}

static int parse_interval(const char *text, double *value)
{
	double parsed;
	char *end;

	if (!text || !*text || isspace((unsigned char)*text))
		return -EINVAL;
	errno = 0;
	parsed = strtod(text, &end);
	if (errno || *end || !isfinite(parsed) || parsed < MIN_INTERVAL_S ||
	    parsed > MAX_INTERVAL_S)
		return -EINVAL;
	*value = parsed;
	return 0;
}

static error_t parse_option(int key, char *arg, struct argp_state *state)
{
	struct parse_state *ps = state->input;
	struct options *opts = ps->opts;
	uint64_t value;

	switch (key) {
	case 'b':
		if (opts->output == OUTPUT_JSON) {
			argp_error(state, "--json and -b exclude each other: give one");
			return EINVAL;
		}
		opts->output = OUTPUT_BATCH;
		break;
	case 'C':
		opts->no_clear = true;
		break;
	case 'r':
		if (parse_uint(arg, 1, 1000000, &value)) {
			argp_error(state, "invalid number of rows '%s': a whole number from 1", arg);
			return EINVAL;
		}
		opts->rows = value;
		break;
	case 's':
		for (int i = 0; i < SORT_NR_KEYS; i++) {
			if (!strcmp(arg, sort_key_name(i))) {
				opts->sort = i;
				ps->sort_given = true;
				return 0;
			}
		}
		{
			char keys[SORT_KEYS_TEXT_SIZE];

			argp_error(state, "unknown sort key '%s': %s", arg,
				   sort_keys_text(keys, sizeof(keys)));
		}
		return EINVAL;
	case 'a':
		opts->cumulative = true;
		break;
	case 'L':
		opts->per_process_latency = true;
		break;
	case 'T':
		opts->trace = true;
		break;
	case OPT_LATENCY_SAMPLE:
		if (parse_uint(arg, 1, MAX_LATENCY_SAMPLE, &value)) {
			argp_error(state, "invalid --latency-sample '%s': 1 in N bios, N a whole "
				   "number from 1 (every bio) to %d", arg, MAX_LATENCY_SAMPLE);
			return EINVAL;
		}
		opts->latency_sample = value;
		ps->latency_sample_given = true;
		break;
	case 'p':
		if (parse_uint(arg, 1, PID_MAX_LIMIT, &value)) {
			argp_error(state, "invalid PID '%s': a process id from 1 to %d", arg,
				   PID_MAX_LIMIT);
			return EINVAL;
		}
		if (opts->nr_pids >= MAX_FILTER_PIDS) {
			argp_error(state, "too many -p: at most %d", MAX_FILTER_PIDS);
			return EINVAL;
		}
		opts->pids[opts->nr_pids++] = value;
		break;
	case 'u':
		if (!*arg) {
			argp_error(state, "empty USER: give a user name or a numeric uid");
			return EINVAL;
		}
		if (opts->nr_users >= MAX_FILTER_UIDS) {
			argp_error(state, "too many -u: at most %d", MAX_FILTER_UIDS);
			return EINVAL;
		}
		opts->users[opts->nr_users++] = arg;
		break;
	case 'c':
		if (!*arg || strlen(arg) >= TASK_COMM_LEN) {
			argp_error(state, "invalid COMM '%s': 1 to %d bytes (the kernel keeps no more)",
				   arg, TASK_COMM_LEN - 1);
			return EINVAL;
		}
		strncpy(opts->comm, arg, TASK_COMM_LEN - 1);
		opts->filter_comm = true;
		break;
	case 'D':
		if (!*arg) {
			argp_error(state, "empty DEVICE: give a disk name (vda) or MAJ:MIN (254:0)");
			return EINVAL;
		}
		if (opts->nr_devices >= MAX_FILTER_DEVS) {
			argp_error(state, "too many -D: at most %d", MAX_FILTER_DEVS);
			return EINVAL;
		}
		opts->devices[opts->nr_devices++] = arg;
		break;
	case OPT_CGROUP:
		if (arg[0] != '/') {
			argp_error(state, "invalid cgroup '%s': a path below the cgroup2 mount, "
				   "starting with / (e.g. /system.slice)", arg);
			return EINVAL;
		}
		if (opts->nr_cgroups >= MAX_FILTER_CGROUPS) {
			argp_error(state, "too many --cgroup: at most %d", MAX_FILTER_CGROUPS);
			return EINVAL;
		}
		opts->cgroups[opts->nr_cgroups++] = arg;
		break;
	case OPT_BY:
		if (!strcmp(arg, "cgroup"))
			opts->by_cgroup = true;
		else if (!strcmp(arg, "process"))
			opts->by_cgroup = false;
		else {
			argp_error(state, "unknown --by '%s': process or cgroup", arg);
			return EINVAL;
		}
		break;
	case OPT_HISTOGRAM:
		opts->histograms = true;
		break;
	case OPT_SUBMITTER:
		opts->submitter = true;
		break;
	case 't':
		opts->threads = true;
		break;
	case OPT_JSON:
		if (opts->output == OUTPUT_BATCH) {
			argp_error(state, "--json and -b exclude each other: give one");
			return EINVAL;
		}
		opts->output = OUTPUT_JSON;
		break;
	case OPT_CRASH_INTERVAL:
		if (parse_uint(arg, 1, 10ULL * 365 * 86400, &value)) {
			argp_error(state, "invalid crash interval '%s': whole seconds from 1", arg);
			return EINVAL;
		}
		opts->crash_interval_s = value;
		break;
	case OPT_STATE:
		if (!*arg) {
			argp_error(state, "empty state file name");
			return EINVAL;
		}
		opts->state_path = arg;
		break;
	case OPT_BUFFER_KB:
		if (parse_uint(arg, 4, MAX_BUFFER_KB, &value)) {
			argp_error(state, "invalid buffer size '%s': KiB from 4 to %u", arg,
				   MAX_BUFFER_KB);
			return EINVAL;
		}
		opts->buffer_kb = value;
		break;
	case OPT_PROM:
		if (!*arg) {
			argp_error(state, "empty --prom file name");
			return EINVAL;
		}
		opts->prom_path = arg;
		break;
	case OPT_PROM_ROWS:
		if (parse_uint(arg, 1, 100000, &value)) {
			argp_error(state, "invalid --prom-rows '%s': a whole number from 1 to 100000",
				   arg);
			return EINVAL;
		}
		opts->prom_rows = value;
		ps->prom_rows_given = true;
		break;
	case OPT_PROM_IDLE:
		if (parse_uint(arg, 0, 10ULL * 365 * 86400, &value)) {
			argp_error(state, "invalid --prom-idle '%s': whole seconds, 0 to keep idle "
				   "series", arg);
			return EINVAL;
		}
		opts->prom_idle_s = value;
		ps->prom_idle_given = true;
		break;
	case OPT_PROM_LABEL: {
		const char *problem = prom_label_problem(arg, opts->prom_labels,
							 opts->nr_prom_labels);

		if (problem) {
			argp_error(state, "invalid --prom-label '%s': %s", arg, problem);
			return EINVAL;
		}
		if (opts->nr_prom_labels >= MAX_PROM_LABELS) {
			argp_error(state, "too many --prom-label: at most %d", MAX_PROM_LABELS);
			return EINVAL;
		}
		opts->prom_labels[opts->nr_prom_labels++] = arg;
		break;
	}
	case 'q':
		opts->quiet = true;
		break;
	case OPT_STACKS:
		if (parse_stacks(arg, &opts->stacks)) {
			argp_error(state, "unknown --stacks '%s': kernel, user or both", arg);
			return EINVAL;
		}
		break;
	case OPT_STACKS_MEM:
		if (parse_size(arg, MIN_STACKS_MEM, MAX_STACKS_MEM, &opts->stacks_mem)) {
			argp_error(state, "invalid --stacks-mem '%s': bytes from 64K to 4G "
				   "(K, M, G suffixes)", arg);
			return EINVAL;
		}
		ps->stacks_mem_given = true;
		break;
	case OPT_FILES:
		opts->files = true;
		break;
	case OPT_FILES_TOP:
		if (parse_uint(arg, 1, MAX_FILES_TOP, &value)) {
			argp_error(state, "invalid --files-top '%s': a whole number from 1 to %d",
				   arg, MAX_FILES_TOP);
			return EINVAL;
		}
		opts->files_top = value;
		ps->files_top_given = true;
		break;
	case OPT_STACKS_TOP:
		if (parse_uint(arg, 0, MAX_STACKS_TOP, &value)) {
			argp_error(state, "invalid --stacks-top '%s': a whole number from 0 to %d",
				   arg, MAX_STACKS_TOP);
			return EINVAL;
		}
		opts->stacks_top = value;
		ps->stacks_top_given = true;
		break;
	case OPT_FOLDED:
		if (!*arg) {
			argp_error(state, "empty --folded file name");
			return EINVAL;
		}
		opts->folded_path = arg;
		break;
	case OPT_DEBUG_DIR: {
		struct stat st;

		if (arg[0] != '/' || stat(arg, &st) || !S_ISDIR(st.st_mode)) {
			argp_error(state, "invalid --debug-dir '%s': an absolute path of a directory",
				   arg);
			return EINVAL;
		}
		opts->debug_dir = arg;
		break;
	}
	case OPT_RECORD:
	case OPT_REPLAY:
		if (!*arg) {
			argp_error(state, "empty --%s directory name",
				   key == OPT_RECORD ? "record" : "replay");
			return EINVAL;
		}
		*(key == OPT_RECORD ? &opts->record_dir : &opts->replay_dir) = arg;
		break;
	case OPT_LIST:
		if (!*arg) {
			argp_error(state, "empty --list directory name");
			return EINVAL;
		}
		opts->list_dir = arg;
		break;
	case OPT_RECORD_DAYS:
		if (parse_uint(arg, 0, 100000, &value)) {
			argp_error(state, "invalid --record-days '%s': whole days, 0 to keep all", arg);
			return EINVAL;
		}
		opts->record_days = value;
		ps->record_days_given = true;
		break;
	case OPT_RECORD_MAX:
		if (parse_size(arg, 0, 1ULL << 50, &opts->record_max)) {
			argp_error(state, "invalid --record-max '%s': bytes (K, M, G suffixes), 0 for "
				   "no limit", arg);
			return EINVAL;
		}
		ps->record_max_given = true;
		break;
	case OPT_BEGIN:
	case OPT_END:
		if (!*arg) {
			argp_error(state, "empty --%s time", key == OPT_BEGIN ? "begin" : "end");
			return EINVAL;
		}
		*(key == OPT_BEGIN ? &opts->begin : &opts->end) = arg;
		break;
	case OPT_DIAGNOSE:
		opts->diagnose_s = DEFAULT_DIAGNOSE_S;
		if (arg && parse_interval(arg, &opts->diagnose_s)) {
			argp_error(state, "invalid --diagnose '%s': seconds, more than 0 (%.2g to %.0f)",
				   arg, MIN_INTERVAL_S, MAX_INTERVAL_S);
			return EINVAL;
		}
		ps->diagnose_seconds_given = arg != NULL;
		break;
	case OPT_DIAGNOSE_RULE: {
		char why[256];

		if (diagnose_rule_set(&opts->diagnose_rules, arg, why, sizeof(why))) {
			argp_error(state, "invalid --diagnose-rule: %s", why);
			return EINVAL;
		}
		ps->diagnose_rule_given = true;
		break;
	}
	case OPT_ALL:
		opts->command_all = true;
		break;
	case 'v':
		opts->verbose = true;
		break;
	case 'h':
		argp_state_help(state, stdout, ARGP_HELP_STD_HELP);
		return PARSE_DONE;
	case 'V':
		printf("%s\n", argp_program_version);
		return PARSE_DONE;
	case OPT_USAGE:
		argp_state_help(state, stdout, ARGP_HELP_USAGE | ARGP_HELP_EXIT_OK);
		return PARSE_DONE;
	case ARGP_KEY_ARG:
		if (state->arg_num == 0) {
			ps->interval_given = true;
			if (parse_interval(arg, &opts->interval_s)) {
				argp_error(state, "invalid INTERVAL '%s': seconds, more than 0 (%.2g to %.0f)",
					   arg, MIN_INTERVAL_S, MAX_INTERVAL_S);
				return EINVAL;
			}
		} else if (state->arg_num == 1) {
			if (parse_uint(arg, 1, UINT64_MAX, &value)) {
				argp_error(state, "invalid COUNT '%s': a whole number from 1", arg);
				return EINVAL;
			}
			opts->count = value;
		} else {
			argp_error(state, "unexpected argument '%s': only [INTERVAL [COUNT]]", arg);
			return EINVAL;
		}
		break;
	case ARGP_KEY_END:
		return check_combinations(ps, state);
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

int options_parse_status(int argc, char **argv, struct options *opts)
{
	static const struct argp argp = {
		.options = option_table,
		.parser = parse_option,
		.args_doc = args_doc,
		.doc = doc,
		.help_filter = help_filter,
	};
	struct parse_state ps = { .opts = opts };
	error_t error;

	memset(opts, 0, sizeof(*opts));
	opts->interval_s = 1.0;
	opts->sort = SORT_BYTES;
	opts->crash_interval_s = 3600;
	opts->prom_rows = PROM_DEFAULT_ROWS;
	opts->prom_idle_s = PROM_DEFAULT_IDLE_S;
	opts->latency_sample = DEFAULT_LATENCY_SAMPLE;
	opts->stacks_mem = DEFAULT_STACKS_MEM;
	opts->stacks_top = DEFAULT_STACKS_TOP;
	opts->record_days = DEFAULT_RECORD_DAYS;
	opts->record_max = DEFAULT_RECORD_MAX;
	diagnose_rules_default(&opts->diagnose_rules);
	/* getopt names the program by argv[0] as typed (./diskio, a full path):
	 * every message must start with "diskio: ". */
	if (argc > 0)
		argv[0] = (char *)"diskio";
	/* issue 45: "-- COMMAND [ARGS]": what follows the first "--" is the
	 * command, not INTERVAL and COUNT. */
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--")) {
			if (i + 1 < argc)
				opts->command = &argv[i + 1];
			else
				opts->command_missing = true;
			argc = i;
			break;
		}
	}
	error = argp_parse(&argp, argc, argv, ARGP_NO_HELP | ARGP_NO_EXIT, NULL, &ps);
	if (error == PARSE_DONE)
		return 0;
	/* An unknown option, a missing argument (argp has said so) or a bad value. */
	if (error)
		return EXIT_USAGE;
	return -1;
}

void options_parse(int argc, char **argv, struct options *opts)
{
	int status = options_parse_status(argc, argv, opts);

	if (status >= 0)
		exit(status);
}
