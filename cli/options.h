/* SPDX-License-Identifier: GPL-2.0 */
#ifndef DISKIO_OPTIONS_H
#define DISKIO_OPTIONS_H

#include <stdbool.h>
#include <stdint.h>
#include <linux/types.h>
#include "abi.h"
#include "iostats.h"
#include "diagnose_rules.h"

/* Exit codes, as README.md documents them. */
#define EXIT_USAGE	2	/* bad options or arguments */
#define EXIT_START	1	/* could not start: privileges, BTF, tracepoints */
#define EXIT_DAMAGED	3	/* --replay passed over damaged records, showed the rest */
#define EXIT_NOTHING	4	/* --replay found no frame: no record, or none in the window */
#define EXIT_RECORD_BUSY 5	/* --record: another diskio writes in that directory */
#define EXIT_TROUBLE	6	/* --diagnose: a disk is in trouble */

#define DISKIO_VERSION	"0.1"

#define MAX_PROM_LABELS	16	/* --prom-label; prom.h's PROM_MAX_LABELS */

enum output_mode {
	OUTPUT_AUTO,		/* top on a terminal, batch otherwise */
	OUTPUT_BATCH,
	OUTPUT_JSON,
};

struct options {
	double interval_s;
	uint64_t count;		/* 0: until interrupted */
	enum output_mode output;
	bool no_clear;		/* -C: top mode appends instead of refreshing */
	uint32_t rows;		/* -r: 0 means as many as the terminal holds */
	enum sort_key sort;
	bool cumulative;	/* -a */
	bool per_process_latency;	/* -L */
	uint32_t latency_sample;	/* --latency-sample: 1 in N bios of bio-based disks timed */
	bool trace;		/* -T */
	uint32_t pids[MAX_FILTER_PIDS];
	uint32_t nr_pids;
	const char *users[MAX_FILTER_UIDS];	/* -u, as given; resolved in main */
	uint32_t nr_users;
	char comm[TASK_COMM_LEN];
	bool filter_comm;
	const char *devices[MAX_FILTER_DEVS];	/* as given; resolved in main */
	uint32_t nr_devices;
	const char *cgroups[MAX_FILTER_CGROUPS];	/* --cgroup, as given */
	uint32_t nr_cgroups;
	bool by_cgroup;		/* --by cgroup */
	bool submitter;		/* --submitter */
	bool threads;		/* -t: a row per thread */
	bool histograms;	/* --histogram */
	bool verbose;
	uint64_t crash_interval_s;
	const char *state_path;
	uint32_t buffer_kb;	/* 0: the default for the channel */
	const char *prom_path;	/* --prom FILE */
	uint32_t prom_rows;	/* --prom-rows: series per device */
	uint64_t prom_idle_s;	/* --prom-idle: 0 keeps idle series */
	const char *prom_labels[MAX_PROM_LABELS];	/* --prom-label KEY=VALUE, checked */
	uint32_t nr_prom_labels;
	bool quiet;		/* --quiet: nothing on stdout */
	uint32_t stacks;	/* --stacks: STACKS_KERNEL | STACKS_USER, 0 without */
	uint64_t stacks_mem;	/* --stacks-mem: bytes of the table of stacks */
	uint32_t stacks_top;	/* --stacks-top: stacks shown per row */
	const char *folded_path;	/* --folded FILE, NULL without */
	const char *debug_dir;		/* --debug-dir DIR, NULL without */
	bool files;		/* --files: rows per (process, file, disk) too */
	uint32_t files_top;	/* --files-top: files shown per process row, 0: all */
	/* issue 36: the record of frames (history/) */
	const char *record_dir;		/* --record DIR, NULL without */
	uint32_t record_days;		/* --record-days: whole days kept, 0: all */
	uint64_t record_max;		/* --record-max: bytes kept, 0: no limit */
	const char *replay_dir;		/* --replay DIR, NULL without */
	const char *begin, *end;	/* --begin, --end as given (history/replay.c reads them) */
	const char *list_dir;		/* --list DIR: the record's runs, NULL without */
	/* issue 45: --diagnose[=SECONDS], 0 without; its thresholds */
	double diagnose_s;
	struct diagnose_rules diagnose_rules;
	/* issue 45: `-- COMMAND [ARGS]`, argv's tail (NULL-terminated), NULL
	 * without; --all: the machine's I/O while it runs, not its own */
	char *const *command;
	bool command_all;
	bool command_missing;	/* "--" with nothing after it */
};

/* doc/performance.md says why: the cost per I/O against the samples a
 * percentile needs. */
#define DEFAULT_LATENCY_SAMPLE	16
#define MAX_LATENCY_SAMPLE	65536
#define DEFAULT_STACKS_MEM	(16ULL << 20)
#define DEFAULT_STACKS_TOP	5
#define MAX_FILES_TOP		100000
#define DEFAULT_RECORD_DAYS	7
#define DEFAULT_RECORD_MAX	(256ULL << 20)
#define DEFAULT_DIAGNOSE_S	10.0

/* Parse the command line into *opts.  Bad usage prints one "diskio: ..."
 * line and a hint on stderr and exits EXIT_USAGE: a bad value, and also
 * modes that exclude each other (--json with -b) or options that would have
 * no effect (-a, -r, -s, --by cgroup, --submitter, -L, -C, --prom, --stacks with
 * -T; --latency-sample with -L, -T, -p, -u, -c or --cgroup (their I/Os are all
 * timed); -C with -b or --json; -s latency without -L; -s pid or comm with --by
 * cgroup; --prom-rows, --prom-idle, --prom-label without --prom; --stacks-mem, --stacks-top,
 * --folded, --debug-dir without --stacks (--debug-dir: without user stacks); -b, --json, -C, -a, -r, -s, --histogram with
 * --quiet; --quiet with neither --prom nor --state).
 * --help and --version print and exit 0 (argp's contract). */
void options_parse(int argc, char **argv, struct options *opts);

/* options_parse() without exit(): the same output, then -1 when diskio goes
 * on with *opts, else the status options_parse() exits with (0 after --help,
 * --usage or --version; EXIT_USAGE). */
int options_parse_status(int argc, char **argv, struct options *opts);

#endif /* DISKIO_OPTIONS_H */
