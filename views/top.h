/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The top view (stdout is a terminal): a screen redrawn in place each
 * interval, steered by keys (top_keys.h), laid out to the terminal's width
 * (top_layout.h).  It keeps the last frame (the tally keeps what it points
 * to until its next step, frame.h), so that a key or a resize redraws at
 * once, between intervals.  Pure: it writes escape codes to its FILE; the
 * terminal itself is the loader's (terminal.h).
 */
#ifndef DISKIO_TOP_H
#define DISKIO_TOP_H

#include <stdbool.h>
#include <stdio.h>
#include "iostats.h"
#include "top_keys.h"
#include "view.h"

struct top_settings {
	double interval_s;		/* as asked for: the "sampling..." line says it */
	enum sort_key sort;		/* -s */
	bool cumulative;		/* -a */
	bool per_process_latency;	/* -L */
	bool by_cgroup;			/* --by cgroup */
	bool threads;			/* -t: rows per thread */
	bool utf8;			/* the terminal shows UTF-8 (else ASCII only) */
	bool replay;			/* --replay: [ ] and g step through a record */
};

/* The top view on out.  0, or -ENOMEM.  Free it with view_top_free(). */
int view_top(struct view *v, FILE *out, const struct top_settings *settings);
void view_top_free(struct view *v);

/* Bytes typed on the terminal (top_keys_feed()).  true when the screen
 * changed: redraw it with top_redraw(). */
bool top_feed_keys(struct view *v, const char *bytes, size_t n);

/* Draw the screen again from the last frame (after a key, or with a new
 * v->screen after a resize): call it before the tally's next step. */
void top_redraw(struct view *v);

/* After the terminal is given back at the end of a run of COUNT intervals:
 * the last frame once more, as lines on the normal screen (as top -n 1
 * leaves its screen), without an open help or stack overlay. */
void top_leave_frame(struct view *v);

/* What the keys have chosen. */
const struct top_state *top_state(const struct view *v);

/* issue 36: the frames [ and ] stepped (< 0: back) and the time g asked
 * for (into go, "" none), taken: the replay shows the frame they land on. */
int top_take_replay_keys(struct view *v, char *go, size_t size);

#endif /* DISKIO_TOP_H */
