/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What diskio writes besides its view on stdout: files others read (the
 * --prom file for node_exporter, the --folded stacks, the --state file of
 * crash-free hours).  Each is an output with the same life: checked before
 * anything is loaded, started once the tally runs, given every frame,
 * rewritten on a reload (SIGHUP to a service), finished at exit.  The run
 * only walks the list; a new output is a module and a line in outputs.c.
 */
#ifndef DISKIO_OUTPUTS_H
#define DISKIO_OUTPUTS_H

#include <stdbool.h>
#include <stddef.h>
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
	/* At exit: 0, or -1 after one "diskio: ..." line (the run fails). */
	int (*finish)(struct output *o, const struct output_end *end);
	void (*free)(struct output *o);
	/* A service's reader wants it fresh: SIGHUP means reload, not exit. */
	bool reloads;
};

/* The outputs of one run, in the order they are written. */
#define OUTPUTS_MAX 4

struct outputs {
	struct output *list[OUTPUTS_MAX];
	size_t n;
};

/* The outputs the options ask for; dirtied: the kernel reports dirtied
 * bytes.  0, or -1 after one "diskio: ..." line. */
int outputs_open(struct outputs *outs, const struct options *opts, bool dirtied);
int outputs_check(struct outputs *outs, uint64_t now_ns);
void outputs_start(struct outputs *outs, struct tally *t, uint64_t now_ns);
void outputs_frame(struct outputs *outs, const struct frame *f, uint64_t now_ns);
void outputs_reload(struct outputs *outs, uint64_t now_ns);
/* 0, or -1 when one failed (each is finished all the same). */
int outputs_finish(struct outputs *outs, const struct output_end *end);
bool outputs_reload_on_sighup(const struct outputs *outs);
void outputs_free(struct outputs *outs);

/* The outputs themselves (NULL when out of memory). */
struct output *prom_file_output(const struct options *opts, bool dirtied);
struct output *folded_file_output(const struct options *opts);
struct output *state_file_output(const struct options *opts);

/* A file written whole at exit or every interval: 0, or -1 after "diskio:
 * cannot write OPTION file PATH: reason" and hint. */
int output_check_file(const char *option, const char *path, const char *hint);

#endif /* DISKIO_OUTPUTS_H */
