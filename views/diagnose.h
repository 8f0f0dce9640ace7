/* SPDX-License-Identifier: GPL-2.0 */
/*
 * --diagnose's view (issue 45): each frame read into a diagnosis
 * (step/diagnosis.h), the last one shown when the run or the replay
 * ends: a sentence and a table per disk worth a look, or one JSON record.
 */
#ifndef DISKIO_VIEWS_DIAGNOSE_H
#define DISKIO_VIEWS_DIAGNOSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "diagnose_rules.h"
#include "view.h"

/* The view writing to out, and its few words beside the diagnosis (the
 * window's start on a terminal, out of memory) to notes (NULL: none);
 * seconds: a live run's window, 0 for a replay.  0, or -ENOMEM. */
int view_diagnose(struct view *v, FILE *out, FILE *notes, bool json, double seconds,
		  const struct diagnose_rules *rules, diagnose_limit_fn limit_of);
void view_diagnose_free(struct view *v);

/* After the summary, what the exit status says: EXIT_TROUBLE when a disk
 * was in trouble, EXIT_START when no diagnosis could be made (out of
 * memory), else 0 (also for a view that is not --diagnose's). */
int view_diagnose_status(const struct view *v);

#endif /* DISKIO_VIEWS_DIAGNOSE_H */
