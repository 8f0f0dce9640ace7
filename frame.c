// SPDX-License-Identifier: GPL-2.0
/* A frame kept past the tally's next step (frame.h). */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "array.h"
#include "frame.h"
#include "stacks.h"

int frame_keep(struct kept_frame *k, const struct frame *f)
{
	const struct pmem_metrics *devices = f->devices;
	size_t ndevices = devices ? devices->count : 0, nlatency = 0, nstacks = 0;

	for (size_t i = 0; i < f->nrows; i++) {
		nlatency += f->rows[i]->latency != NULL;
		nstacks += f->rows[i]->nstacks;
	}
	/* All the room first: a failure leaves k->frame as it was. */
	if (array_reserve((void **)&k->rows, &k->rows_capacity, f->nrows, sizeof(*k->rows)) ||
	    array_reserve((void **)&k->row_ptrs, &k->row_ptrs_capacity, f->nrows,
			  sizeof(*k->row_ptrs)) ||
	    array_reserve((void **)&k->latency, &k->latency_capacity, nlatency,
			  sizeof(*k->latency)) ||
	    array_reserve((void **)&k->stacks, &k->stacks_capacity, nstacks, sizeof(*k->stacks)) ||
	    array_reserve((void **)&k->stack_ptrs, &k->stack_ptrs_capacity, nstacks,
			  sizeof(*k->stack_ptrs)) ||
	    array_reserve((void **)&k->devices.devices, &k->devices.capacity, ndevices,
			  sizeof(*k->devices.devices)) ||
	    array_reserve((void **)&k->crash_events, &k->crash_events_capacity,
			  f->ncrash_events, sizeof(*k->crash_events)))
		return -ENOMEM;

	k->frame = *f;
	nlatency = nstacks = 0;
	for (size_t i = 0; i < f->nrows; i++) {
		struct proc_io *row = &k->rows[i];

		*row = *f->rows[i];
		if (row->latency) {
			k->latency[nlatency] = *row->latency;
			row->latency = &k->latency[nlatency++];
		}
		for (uint32_t s = 0; s < row->nstacks; s++) {
			k->stacks[nstacks + s] = *row->stacks[s];
			k->stack_ptrs[nstacks + s] = &k->stacks[nstacks + s];
		}
		row->stacks = row->nstacks ? k->stack_ptrs + nstacks : NULL;
		nstacks += row->nstacks;
		k->row_ptrs[i] = row;
	}
	k->frame.rows = k->row_ptrs;
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
	free(k->devices.devices);
	free(k->crash_events);
	memset(k, 0, sizeof(*k));
}
