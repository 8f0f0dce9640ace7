/* SPDX-License-Identifier: GPL-2.0 */
/*
 * --stacks, the tally's part: the kernel's stack_counts entries of the run
 * as struct row_stack (stacks.h), sorted by key (its row first), with this
 * interval's changes and the run's totals; their frames interned once per
 * kernel stack id in a table of their own; each shown row's heaviest
 * stacks; and the entries of forgotten rows, for the loader to delete.
 * Pure: it reads snapshots (snapshot.h) and counts what it could not keep
 * as losses.
 */
#ifndef DISKIO_ROW_STACKS_H
#define DISKIO_ROW_STACKS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "iostats.h"
#include "resources.h"
#include "snapshot.h"
#include "stacks.h"

struct row_stacks {
	struct res_table table;		/* the stacks' frames, interned (stack_encode()) */
	void *buf;
	struct stack_ref *ids;		/* by the kernel's stack id */
	size_t nids, ids_capacity;
	struct row_stack *all;		/* every one seen in the run, sorted by key */
	size_t n, capacity;
	struct row_stack **order;	/* rows' top stacks in the frame */
	size_t order_capacity;
	struct stack_key *forget;	/* row_stacks_forget()'s, for the loader */
	size_t nforget, forget_capacity;
};

/* A table of mem bytes for the frames.  0, or -ENOMEM. */
int row_stacks_init(struct row_stacks *rs, uint64_t mem);
void row_stacks_free(struct row_stacks *rs);

/* The snapshot's new stack ids and this interval's changes of every entry
 * (forgotten ones' last counts included); what could not be kept is added
 * to lost[] (lost_row_alloc_failed, lost_stacks_table_full). */
void row_stacks_count(struct row_stacks *rs, const struct snapshot *s,
		      uint64_t lost[LOST_NR_CAUSES]);

/* Each shown row's stacks with something to show, heaviest first, at most
 * top of them (row->stacks, row->nstacks; the caller clears other rows'). */
void row_stacks_attach(struct row_stacks *rs, struct proc_io *const *shown, size_t nshown,
		       uint32_t top, bool cumulative);

/* The entries of the rows gone[0..n) into rs->forget, for the loader to
 * delete; their totals stay for the folded lines. */
void row_stacks_forget(struct row_stacks *rs, const struct proc_dev_key *gone, size_t n);

#endif /* DISKIO_ROW_STACKS_H */
