/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The loader: everything that touches diskio.bpf.c's skeleton.  It opens,
 * configures (filters, hooks for this kernel, map sizes), loads and attaches
 * the programs, opens their events channel, copies the maps into snapshots
 * (snapshot.h), deletes the kernel entries of forgotten rows and old writeback
 * owners, and routes libbpf's messages.  Nothing here keeps books or writes
 * output.
 */
#ifndef DISKIO_LOADER_H
#define DISKIO_LOADER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "events.h"
#include "maps.h"
#include "mapsize.h"
#include "options.h"
#include "probe.h"
#include "snapshot.h"

struct diskio_bpf;

/* What the programs are asked to watch, resolved from the options. */
struct loader_filters {
	const uint32_t *devs;			/* opts->nr_devices of them */
	const uint64_t *cgroup_ids;		/* opts->nr_cgroups of them */
	const uint32_t *cgroup_levels;
	const uint32_t *uids;			/* opts->nr_users of them */
};

struct loader {
	const struct options *opts;
	struct diskio_bpf *skel;
	struct events events;
	struct map_plan plan;
	int nr_cpus;
	bool use_ringbuf;
	bool track_inflight;		/* -L, -T, -p, -c, --cgroup */
	uint32_t latency_sample_every;	/* bio-based disks: 1 in N bios timed; 0: none */
	bool owners_used;		/* writeback is charged to its dirtier */
	/* issue 33: command lines are kept at exec (rows are shown with
	 * theirs: not -T, -q or --by cgroup) */
	bool exec_cmdlines;
	uint64_t owners_swept_ns;
	uint8_t *stack_ids_read;	/* --stacks, by stack id: its frames are read */
	uint32_t nstack_ids;
	struct retired_slots retired;	/* forgotten rows' slots, given back next */
	struct file_count_maps file_maps;	/* --files: drained by each snapshot */
	/* IO> and SWAPIN: how blkio waits are measured, and the reading taken
	 * as the programs were attached, for the first snapshot. */
	enum waits_source waits_source;
	struct waits_reading start_waits;
};

/* libbpf's messages: warnings always, the rest (the verifier's log) with -v. */
void loader_log_libbpf(bool verbose);

/*
 * How this run is collected, decided before anything is opened: the CPUs,
 * the events channel, whether I/Os are tracked to completion.  0, or -1
 * after one "diskio: ..." line.
 */
int loader_plan(struct loader *l, const struct options *opts);

/* Open, configure, load and attach the programs.  0, or -1 after one
 * "diskio: ..." line. */
int loader_start(struct loader *l, const struct kernel_hooks *hooks,
		 const struct loader_filters *filters);

/* Arm the in-flight table and open the events channel, each record going to
 * on_event(ctx, data, size).  0, or -1 after one "diskio: ..." line. */
int loader_open_events(struct loader *l, void (*on_event)(void *ctx, const void *data,
							  size_t size), void *ctx);

/* Once an interval: attach what the kernel has now shown it needs (the
 * latency of bio-based disks), sweep old owners of writeback. */
void loader_tick(struct loader *l, uint64_t now_ns);

/* s := the maps as they are now; at_exit: also the I/Os still in flight.
 * 0, or -errno after one "diskio: ..." line. */
int loader_snapshot(struct loader *l, struct snapshot *s, bool at_exit);

/* Rows per thread from now on (the top view's t key), or per process. */
void loader_set_threads(struct loader *l, bool threads);

/* -t: the thread group of thread tid as the kernel noted it, 0 if none. */
uint32_t loader_thread_group(uint32_t tid, void *loader);

/* issue 33: process tgid's command line at its last exec, as the kernel
 * kept it (struct exec_cmdline): false if it kept none. */
bool loader_exec_cmdline(uint32_t tgid, struct exec_cmdline *out, void *loader);

/* Delete the kernel entries of the rows and stacks the tally forgot, what
 * they held kept in s for the next frame.  0, or -errno after one line. */
int loader_forget(struct loader *l, struct snapshot *s, const struct forgotten_keys *gone);

void loader_free(struct loader *l);

#endif /* DISKIO_LOADER_H */
