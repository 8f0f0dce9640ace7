// SPDX-License-Identifier: GPL-2.0
/* A frame kept past the tally's next step, and the names of the losses a
 * frame counts (frame.h). */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "array.h"
#include "frame.h"
#include "stacks.h"

/* The command lines of n rows, with their NULs. */
static size_t cmdlines_bytes(struct proc_io *const *rows, size_t n)
{
	size_t bytes = 0;

	for (size_t i = 0; i < n; i++)
		if (rows[i]->cmdline)
			bytes += strlen(rows[i]->cmdline) + 1;
	return bytes;
}

/* rows[0..n) into k's rows from at on: their latency, stacks and command
 * lines into k's memory from *nlatency, *nstacks and *ncmdline on. */
static void keep_rows(struct kept_frame *k, struct proc_io *const *rows, size_t n, size_t at,
		      size_t *nlatency, size_t *nstacks, size_t *ncmdline)
{
	for (size_t i = 0; i < n; i++) {
		struct proc_io *row = &k->rows[at + i];

		*row = *rows[i];
		if (row->latency) {
			k->latency[*nlatency] = *row->latency;
			row->latency = &k->latency[(*nlatency)++];
		}
		for (uint32_t s = 0; s < row->nstacks; s++) {
			k->stacks[*nstacks + s] = *row->stacks[s];
			k->stack_ptrs[*nstacks + s] = &k->stacks[*nstacks + s];
		}
		row->stacks = row->nstacks ? k->stack_ptrs + *nstacks : NULL;
		*nstacks += row->nstacks;
		if (row->cmdline) {
			size_t len = strlen(row->cmdline) + 1;

			memcpy(k->cmdlines + *ncmdline, row->cmdline, len);
			row->cmdline = k->cmdlines + *ncmdline;
			*ncmdline += len;
		}
		k->row_ptrs[at + i] = row;
	}
}

int frame_keep(struct kept_frame *k, const struct frame *f)
{
	const struct pmem_metrics *devices = f->devices;
	size_t ndevices = devices ? devices->count : 0, nlatency = 0, nstacks = 0, ncmdline = 0;
	size_t nrows = f->nrows + f->nidle_rows;
	size_t cmdline_bytes = cmdlines_bytes(f->rows, f->nrows) +
			       cmdlines_bytes(f->idle_rows, f->nidle_rows);

	for (size_t i = 0; i < f->nrows; i++) {
		nlatency += f->rows[i]->latency != NULL;
		nstacks += f->rows[i]->nstacks;
	}
	/* All the room first: a failure leaves k->frame as it was. */
	if (array_reserve((void **)&k->rows, &k->rows_capacity, nrows, sizeof(*k->rows)) ||
	    array_reserve((void **)&k->row_ptrs, &k->row_ptrs_capacity, nrows,
			  sizeof(*k->row_ptrs)) ||
	    array_reserve((void **)&k->latency, &k->latency_capacity, nlatency,
			  sizeof(*k->latency)) ||
	    array_reserve((void **)&k->stacks, &k->stacks_capacity, nstacks, sizeof(*k->stacks)) ||
	    array_reserve((void **)&k->stack_ptrs, &k->stack_ptrs_capacity, nstacks,
			  sizeof(*k->stack_ptrs)) ||
	    array_reserve((void **)&k->cmdlines, &k->cmdlines_capacity, cmdline_bytes, 1) ||
	    array_reserve((void **)&k->devices.devices, &k->devices.capacity, ndevices,
			  sizeof(*k->devices.devices)) ||
	    array_reserve((void **)&k->crash_events, &k->crash_events_capacity,
			  f->ncrash_events, sizeof(*k->crash_events)))
		return -ENOMEM;

	k->frame = *f;
	/* The top view shows no files: not kept (they point into the tally). */
	k->frame.files = NULL;
	k->frame.nfiles = 0;
	nlatency = nstacks = 0;
	keep_rows(k, f->rows, f->nrows, 0, &nlatency, &nstacks, &ncmdline);
	keep_rows(k, f->idle_rows, f->nidle_rows, f->nrows, &nlatency, &nstacks, &ncmdline);
	k->frame.rows = k->row_ptrs;
	k->frame.idle_rows = k->row_ptrs + f->nrows;
	if (devices) {
		if (ndevices)
			memcpy(k->devices.devices, devices->devices,
			       ndevices * sizeof(*k->devices.devices));
		k->devices.count = ndevices;
		k->devices.aggregate = devices->aggregate;
		k->frame.devices = &k->devices;
	}
	if (f->ncrash_events)
		memcpy(k->crash_events, f->crash_events,
		       f->ncrash_events * sizeof(*k->crash_events));
	k->frame.crash_events = k->crash_events;
	return 0;
}

void frame_kept_free(struct kept_frame *k)
{
	free(k->rows);
	free(k->row_ptrs);
	free(k->latency);
	free(k->stacks);
	free(k->stack_ptrs);
	free(k->cmdlines);
	free(k->devices.devices);
	free(k->crash_events);
	memset(k, 0, sizeof(*k));
}

/* ---- losses ---- */

const char *const lost_cause_names[LOST_NR_CAUSES] = {
	[LOST_STATS_MAP_FULL] = "stats_map_full",
	[LOST_INFLIGHT_FULL] = "inflight_full",
	[LOST_RINGBUF_FULL] = "ringbuf_full",
	[LOST_CRASH_MAP_FULL] = "crash_map_full",
	[LOST_PERF_BUFFER] = "perf_buffer",
	[LOST_COMPLETION_UNSEEN] = "completion_unseen",
	[LOST_OWNER_MAP_FULL] = "owner_map_full",
	[LOST_NAMES_TABLE_FULL] = "names_table_full",
	[LOST_ROW_ALLOC] = "row_alloc_failed",
	[LOST_CRASH_EVENTS_FULL] = "crash_events_full",
	[LOST_STACK_UNAVAILABLE] = "stack_unavailable",
	[LOST_STACKS_MAP_FULL] = "stacks_map_full",
	[LOST_STACKS_TABLE_FULL] = "stacks_table_full",
	[LOST_STACKED_MAP_FULL] = "stacked_map_full",
	[LOST_EXITED_WAITS_FULL] = "exited_waits_full",
	[LOST_FILES_MAP_FULL] = "files_map_full",
	[LOST_ERROR_UNATTRIBUTED] = "error_unattributed",
	[LOST_FILE_NAMES_UNMADE] = "file_names_unmade",
};

/* The order causes are shown in: a cause added later comes last, so that
 * no field of the "#" lines moves. */
const enum lost_cause lost_shown[LOST_NR_CAUSES] = {
	LOST_STATS_MAP_FULL, LOST_INFLIGHT_FULL, LOST_RINGBUF_FULL, LOST_CRASH_MAP_FULL,
	LOST_PERF_BUFFER, LOST_COMPLETION_UNSEEN, LOST_NAMES_TABLE_FULL, LOST_OWNER_MAP_FULL,
	LOST_ROW_ALLOC, LOST_CRASH_EVENTS_FULL, LOST_STACK_UNAVAILABLE, LOST_STACKS_MAP_FULL,
	LOST_STACKS_TABLE_FULL, LOST_STACKED_MAP_FULL, LOST_EXITED_WAITS_FULL,
	LOST_FILES_MAP_FULL, LOST_ERROR_UNATTRIBUTED, LOST_FILE_NAMES_UNMADE,
};

uint64_t lost_total(const uint64_t lost[LOST_NR_CAUSES])
{
	uint64_t sum = 0;

	for (int i = 0; i < LOST_NR_CAUSES; i++)
		sum += lost[i];
	return sum;
}

/* IO> and SWAPIN: the share of the interval (of the run, cumulative) the
 * row's process waited, or swapped in; false when the frame does not know
 * it (not measured; SWAPIN without delay accounting). */
bool frame_wait_pct(const struct frame *f, const struct proc_io *row, bool cumulative,
		    bool swapin, double *pct)
{
	const struct iowait_ns *waits = iostats_waits(row, cumulative);

	if (!(swapin ? f->swapin_known : f->iowait_known))
		return false;
	*pct = iowait_pct(swapin ? waits->swapin_ns : waits->blkio_ns,
			  cumulative ? f->run_s : f->interval_s);
	return true;
}
