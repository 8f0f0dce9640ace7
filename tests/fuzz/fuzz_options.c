// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for the command line (options.c), through
 * options_parse_status(), which returns where options_parse() exits. The
 * input is the argument list after "diskio", each argument ending in a NUL
 * byte (a last one without it is taken whole), at most MAX_ARGS of them.
 *
 * Checked: the status is -1, 0 (--help, --usage, --version) or EXIT_USAGE;
 * when parsing goes on, every value is one options.c accepts, and every
 * string points into the arguments. stdout and stderr go to /dev/null.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "options.h"
#include "prom.h"
#include "fuzz_util.h"

#define MAX_ARGS 64
#define PID_MAX_LIMIT 4194304

static FILE *devnull;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	devnull = fopen("/dev/null", "w");
	FUZZ_CHECK(devnull != NULL, "cannot open /dev/null");
	return 0;
}

/* s is one of the n arguments (not a copy). */
static void check_points_into(const char *s, char **args, int n)
{
	for (int i = 0; i < n; i++) {
		if (s >= args[i] && s <= args[i] + strlen(args[i]))
			return;
	}
	fuzz_fail(__FILE__, __LINE__, "points into argv", "string '%s'", s);
}

static void check_options(const struct options *o, char **args, int n)
{
	FUZZ_CHECK(o->interval_s >= 0.01 && o->interval_s <= 86400, "interval %g", o->interval_s);
	FUZZ_CHECK(o->output <= OUTPUT_JSON, "output %d", o->output);
	FUZZ_CHECK(o->rows <= 1000000, "rows %u", o->rows);
	FUZZ_CHECK((unsigned)o->sort < SORT_NR_KEYS, "sort %d", o->sort);
	FUZZ_CHECK(o->nr_pids <= MAX_FILTER_PIDS, "%u pids", o->nr_pids);
	for (uint32_t i = 0; i < o->nr_pids; i++)
		FUZZ_CHECK(o->pids[i] >= 1 && o->pids[i] <= PID_MAX_LIMIT, "pid %u", o->pids[i]);
	FUZZ_CHECK(o->filter_comm == (o->comm[0] != '\0'), "comm '%s' filter %d", o->comm,
		   o->filter_comm);
	FUZZ_CHECK(memchr(o->comm, '\0', sizeof(o->comm)) != NULL, "comm unterminated");
	FUZZ_CHECK(o->nr_devices <= MAX_FILTER_DEVS, "%u devices", o->nr_devices);
	for (uint32_t i = 0; i < o->nr_devices; i++) {
		FUZZ_CHECK(o->devices[i][0] != '\0', "empty device %u", i);
		check_points_into(o->devices[i], args, n);
	}
	FUZZ_CHECK(o->nr_cgroups <= MAX_FILTER_CGROUPS, "%u cgroups", o->nr_cgroups);
	for (uint32_t i = 0; i < o->nr_cgroups; i++) {
		FUZZ_CHECK(o->cgroups[i][0] == '/', "cgroup '%s'", o->cgroups[i]);
		check_points_into(o->cgroups[i], args, n);
	}
	FUZZ_CHECK(o->crash_interval_s >= 1 && o->crash_interval_s <= 10ULL * 365 * 86400,
		   "crash interval %llu", (unsigned long long)o->crash_interval_s);
	if (o->state_path) {
		FUZZ_CHECK(o->state_path[0] != '\0', "empty state path");
		check_points_into(o->state_path, args, n);
	}
	FUZZ_CHECK(o->nr_prom_labels <= MAX_PROM_LABELS, "%u --prom-label", o->nr_prom_labels);
	FUZZ_CHECK(!o->nr_prom_labels || o->prom_path, "--prom-label without --prom");
	for (uint32_t i = 0; i < o->nr_prom_labels; i++) {
		/* Each one good, and not a name given before it. */
		FUZZ_CHECK(!prom_label_problem(o->prom_labels[i], o->prom_labels, i),
			   "--prom-label '%s' taken", o->prom_labels[i]);
		check_points_into(o->prom_labels[i], args, n);
	}
	FUZZ_CHECK(o->buffer_kb == 0 || (o->buffer_kb >= 4 && o->buffer_kb <= (1U << 20)),
		   "buffer %u KiB", o->buffer_kb);
	/* Combinations refused as having no effect never get through. */
	FUZZ_CHECK(!o->trace || (!o->cumulative && !o->rows && !o->by_cgroup && !o->submitter &&
				 !o->per_process_latency && !o->no_clear),
		   "trace mode with an option that has no effect there");
	FUZZ_CHECK(o->sort != SORT_LATENCY || o->per_process_latency, "-s latency without -L");
	FUZZ_CHECK(!o->no_clear || o->output == OUTPUT_AUTO, "-C outside the top view");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* One copy of the input with a NUL after the last argument. */
	char *text = malloc(size + 1);
	char *argv[MAX_ARGS + 2];
	FILE *saved_stdout = stdout, *saved_stderr = stderr;
	struct options opts;
	int argc = 0, status;
	size_t at = 0;

	FUZZ_CHECK(text != NULL, "out of memory");
	memcpy(text, data, size);
	text[size] = '\0';
	argv[argc++] = (char *)"diskio";
	while (at < size && argc <= MAX_ARGS) {
		argv[argc++] = text + at;
		at += strlen(text + at) + 1;
	}
	argv[argc] = NULL;

	/* argp and getopt write through the stdout and stderr streams. */
	stdout = devnull;
	stderr = devnull;
	status = options_parse_status(argc, argv, &opts);
	stdout = saved_stdout;
	stderr = saved_stderr;

	FUZZ_CHECK(status == -1 || status == 0 || status == EXIT_USAGE, "status %d", status);
	if (status == -1)
		check_options(&opts, argv + 1, argc - 1);
	free(text);
	return 0;
}
