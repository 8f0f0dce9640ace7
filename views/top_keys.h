/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The top view's keys as a pure state machine: bytes read from the terminal
 * in, a new state out.  No terminal, no clock: the loader reads the bytes,
 * the view draws the state, and tests feed bytes by hand.
 */
#ifndef DISKIO_TOP_KEYS_H
#define DISKIO_TOP_KEYS_H

#include <stdbool.h>
#include <stddef.h>
#include "diskio.h"
#include "iostats.h"
#include "pmem_metrics.h"

/* What the process table is sorted by, in the order ←/→ move through
 * (the order of the columns they sort). */
enum top_sort {
	TOP_SORT_PID,
	TOP_SORT_COMM,
	TOP_SORT_DEVICE,
	TOP_SORT_BYTES,		/* read + write + discard */
	TOP_SORT_READ,
	TOP_SORT_WRITE,
	TOP_SORT_DISCARD,
	TOP_SORT_IOS,		/* read + write + discard I/Os */
	TOP_SORT_READ_IOS,
	TOP_SORT_WRITE_IOS,
	TOP_SORT_DISCARD_IOS,
	TOP_SORT_LATENCY,
	TOP_SORT_DIRTY,
	TOP_SORT_CGROUP,
	TOP_NR_SORTS
};

/* "bytes", "read", "w_iops", ...: as the header names it. */
const char *top_sort_name(enum top_sort sort);
/* Names sort ascending, numbers descending (before `r`). */
bool top_sort_ascending(enum top_sort sort);
/* The sort key of -s. */
enum top_sort top_sort_from_option(enum sort_key key);

#define TOP_FILTER_MAX (TASK_COMM_LEN - 1)	/* a comm has at most 15 bytes */

/* Where the byte parser is: escape sequences (arrows are ESC [ A/B/C/D or
 * ESC O A/B/C/D) may span reads. */
enum top_input_stage {
	TOP_INPUT_GROUND,
	TOP_INPUT_ESCAPE,	/* after ESC */
	TOP_INPUT_SEQUENCE,	/* after ESC [ or ESC O, before the final byte */
};

struct top_state {
	enum top_sort sort;
	bool reverse;			/* r: the other direction */
	bool cumulative;		/* a: totals since start */
	bool paused;			/* p: the display stands still */
	bool latency_columns;		/* L */
	bool help;			/* h, ?: the help overlay */
	/* ↑/↓ (k/j) select a process row, Enter shows its heaviest stack.
	 * The keys only count the moves: which row they land on depends on
	 * the rows shown, which top.c knows (and then clears moves). */
	bool selecting;			/* a row is selected (marked) */
	int moves;			/* rows down (< 0: up) not yet applied */
	bool stack;			/* Enter: the selected row's stack overlay */
	bool quit;			/* q */
	char filter[TOP_FILTER_MAX + 1];	/* rows whose comm contains it; "" all */
	bool editing;			/* c: the filter is being typed */
	char edit[TOP_FILTER_MAX + 1];
	size_t edit_len;
	char device[PMEM_NAME_MAX];	/* d: only this device; "" all */

	/* What the run offers, fixed at start. */
	bool row_latency;		/* -L: rows have a latency to sort on */
	bool by_cgroup;			/* rows have no pid or comm */

	enum top_input_stage stage;
	bool sequence_is_ss3;		/* ESC O rather than ESC [ */
};

/* The state at start: sort, -a, -L and --by cgroup as the options say,
 * latency columns on, nothing filtered. */
void top_state_init(struct top_state *s, enum sort_key sort, bool cumulative, bool row_latency,
		    bool by_cgroup);

/*
 * Feed n bytes read from the terminal.  devices (ndevices names, in the
 * order d cycles through them) are what d chooses from.  An ESC that ends
 * the bytes is the Esc key; an escape sequence cut by the end of the bytes
 * goes on with the next call.  Returns true when the screen changes.
 */
bool top_keys_feed(struct top_state *s, const char *bytes, size_t n,
		   const char *const *devices, size_t ndevices);

#endif /* DISKIO_TOP_KEYS_H */
