/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The top view's help overlay: its keys (the replay's only in a replay),
 * scrolled by the keys top_keys.c counted.
 */
#ifndef DISKIO_TOP_HELP_H
#define DISKIO_TOP_HELP_H

#include <stdbool.h>
#include <stddef.h>
#include "top_keys.h"
#include "view.h"

/* The help on v's screen from line *first, moved by s's pending help
 * moves (which it uses up) and kept within the lines; *first updated.
 * utf8: the arrows' names as arrows. */
void top_help(struct view *v, struct top_state *s, size_t *first, bool utf8);

#endif /* DISKIO_TOP_HELP_H */
