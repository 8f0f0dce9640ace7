/* SPDX-License-Identifier: GPL-2.0 */
/* The top view's `f` (issue 35): the frame's files (top_files.c). */
#ifndef DISKIO_TOP_FILES_H
#define DISKIO_TOP_FILES_H

#include <stdbool.h>
#include <stdint.h>
#include "frame.h"
#include "view.h"

/*
 * In place of the process table: the lines of f's files (--files) of
 * process pid, or of all processes when pid is 0, the most bytes first
 * (reverse: the fewest), bytes per second or, cumulative, since start;
 * names shown printable (utf8 as the terminal), as many lines as fit.
 */
void top_files_table(struct view *v, const struct frame *f, uint32_t pid, bool cumulative,
		     bool reverse, bool utf8);

#endif /* DISKIO_TOP_FILES_H */
