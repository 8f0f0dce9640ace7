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
#include "abi.h"
#include "iostats.h"
#include "pmem_metrics.h"

/* Where Home and End put the selection before the moves counted after them. */
enum top_jump {
	TOP_JUMP_NONE,
	TOP_JUMP_FIRST,		/* Home */
	TOP_JUMP_LAST,		/* End */
};

#define TOP_FILTER_MAX (TASK_COMM_LEN - 1)	/* a comm has at most 15 bytes */
/* A disk's name as the top view shows it (view.h's printable_name(): each
 * byte may be a 4-character \xHH escape), which d chooses by. */
#define TOP_DEVICE_SIZE (4 * PMEM_NAME_MAX + 1)

/* Where the byte parser is: escape sequences (arrows are ESC [ A/B/C/D or
 * ESC O A/B/C/D, PgUp and PgDn ESC [ 5 ~ and ESC [ 6 ~, Home and End
 * ESC [ H/F, ESC O H/F or ESC [ 1/7 ~ and ESC [ 4/8 ~) may span reads. */
enum top_input_stage {
	TOP_INPUT_GROUND,
	TOP_INPUT_ESCAPE,	/* after ESC */
	TOP_INPUT_SEQUENCE,	/* after ESC [ or ESC O, before the final byte */
};

struct top_state {
	enum sort_key sort;		/* the one list of keys: iostats.h */
	bool reverse;			/* r: the other direction */
	bool cumulative;		/* a: totals since start */
	bool paused;			/* p: the display stands still */
	bool latency_columns;		/* L */
	bool threads;			/* t: rows per thread from now on */
	bool help;			/* h, ?: the help overlay */
	/* While it is open, ↑/↓ (k/j), PgUp/PgDn and Home/End scroll it, and
	 * any other key closes it.  Counted as the selection's moves are,
	 * for top.c, which knows the help's lines and page (and clears these). */
	int help_moves;			/* lines down (< 0: up) not yet applied */
	int help_pages;			/* pages down (< 0: up), after the jump */
	enum top_jump help_jump;	/* Home, End; h: the first line */
	/* ↑/↓ (k/j) select a process row, PgUp/PgDn move the selection a
	 * page, Home/End to the first or last row; the table scrolls to keep
	 * it in sight.  Enter shows its heaviest stack.  The keys only count
	 * the moves: which row they land on depends on the rows and the
	 * page, which top.c knows (and then clears moves, pages and jump). */
	bool selecting;			/* a row is selected (marked) */
	int moves;			/* rows down (< 0: up) not yet applied */
	int pages;			/* pages down (< 0: up), after the jump */
	enum top_jump jump;		/* Home, End: where the moves start */
	bool stack;			/* Enter: the selected row's stack overlay */
	bool files;			/* f: files (--files), the selected row's process's */
	bool quit;			/* q */
	/* issue 33: c: COMMAND shows the whole command line, not the comm;
	 * o: only the rows with I/O (iotop's --only, as at start), or every
	 * process, the idle ones too */
	bool command_line;
	bool only;
	/* rows whose COMMAND as shown contains it; "" all */
	char filter[TOP_FILTER_MAX + 1];
	bool editing;			/* /: the filter is being typed */
	char edit[TOP_FILTER_MAX + 1];
	size_t edit_len;
	char device[TOP_DEVICE_SIZE];	/* d: only this device, as shown; "" all */

	/* issue 36, --replay: [ and ] step through the record's frames, g
	 * goes to a time typed as --begin takes it (Enter goes, Esc
	 * cancels); the replay takes them (top_take_replay_keys()). */
	int frame_steps;		/* frames on (< 0: back) not yet shown */
	bool going;			/* g: the time is being typed */
	char go[32];
	size_t go_len;
	bool go_asked;			/* Enter: go[] is the time to go to */

	/* What the run offers, fixed at start. */
	bool replay;			/* --replay: frames of a record, not live */
	bool row_latency;		/* -L: rows have a latency to sort on */
	bool by_cgroup;			/* rows have no pid or comm */

	enum top_input_stage stage;
	bool sequence_is_ss3;		/* ESC O rather than ESC [ */
	unsigned int sequence_number;	/* its first parameter (ESC [ 5 ~: 5) */
	bool sequence_past_number;	/* after a ';' or another parameter byte */
};

/* The state at start: sort, -a, -L and --by cgroup as the options say,
 * latency columns on, only the rows with I/O, COMMAND the comm, nothing
 * filtered. */
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
