/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One output besides the view (outputs.h walks them): its interface, the
 * outputs there are, and the check of a file each writes, which they share.
 */
#ifndef DISKIO_OUTPUT_H
#define DISKIO_OUTPUT_H

#include <stdbool.h>
#include <stdint.h>
#include <time.h>
#include "frame.h"
#include "options.h"
#include "tally.h"

/* The end of the run, as the outputs see it. */
struct output_end {
	struct tally *tally;
	/* The summary shown, from the snapshot of the last frame (given to
	 * every output first); NULL when the maps could not be read at exit. */
	const struct summary *summary;
	uint64_t now_ns;		/* CLOCK_MONOTONIC */
	struct timespec wall;		/* the same instant, CLOCK_REALTIME */
};

struct output {
	/* Before anything is loaded: a file that cannot be written (or read)
	 * costs nothing.  0, or -1 after one "diskio: ..." line. */
	int (*check)(struct output *o, uint64_t now_ns);
	/* The tally has started at its start time; the view is chosen. */
	void (*start)(struct output *o, struct tally *t, uint64_t now_ns);
	/* Each interval, after the view, while the frame is valid. */
	void (*frame)(struct output *o, const struct frame *f, uint64_t now_ns);
	/* A reload was asked for (SIGHUP to a service): write now. */
	void (*reload)(struct output *o, uint64_t now_ns);
	/* At exit, before the summary is shown: what the output adds to it
	 * (NULL: nothing). */
	void (*summarize)(struct output *o, struct summary *s);
	/* At exit: 0, or -1 after one "diskio: ..." line (the run fails). */
	int (*finish)(struct output *o, const struct output_end *end);
	void (*free)(struct output *o);
	/* A service's reader wants it fresh: SIGHUP means reload, not exit. */
	bool reloads;
};

/* The outputs themselves (NULL when out of memory). */
struct output *prom_file_output(const struct options *opts, bool dirtied);
struct output *folded_file_output(const struct options *opts);
struct output *state_file_output(const struct options *opts);
struct output *record_file_output(const struct options *opts);	/* --record DIR */

/* A file written whole at exit or every interval: 0, or -1 after "diskio:
 * cannot write OPTION file PATH: reason" and hint. */
int output_check_file(const char *option, const char *path, const char *hint);

#endif /* DISKIO_OUTPUT_H */
