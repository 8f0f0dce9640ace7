/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What diskio writes besides its view on stdout: files others read (the
 * --prom file for node_exporter, the --folded stacks, the --state file of
 * crash-free hours).  Each is an output with the same life: checked before
 * anything is loaded, started once the tally runs, given every frame,
 * rewritten on a reload (SIGHUP to a service), finished at exit (output.h).
 * The run only walks the list; a new output is a module and a line in
 * outputs.c.
 */
#ifndef DISKIO_OUTPUTS_H
#define DISKIO_OUTPUTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>
#include "options.h"
#include "output.h"

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
/* What the outputs add to the run's summary s. */
void outputs_summarize(struct outputs *outs, struct summary *s);
/* 0, or -1 when one failed (each is finished all the same). */
int outputs_finish(struct outputs *outs, const struct output_end *end);
bool outputs_reload_on_sighup(const struct outputs *outs);
void outputs_free(struct outputs *outs);

#endif /* DISKIO_OUTPUTS_H */
