/* SPDX-License-Identifier: GPL-2.0 */
/*
 * --replay DIR: the frames --record kept, from --begin to --end, shown by
 * the views the live run has (batch lines, JSON records) exactly as they
 * were shown; each run's header (host, boot, kernel, interval, filter) as a
 * "# record" line or a "record" record before its first frame, so a gap
 * between runs shows; with -a, totals over the window.
 */
#ifndef DISKIO_REPLAY_H
#define DISKIO_REPLAY_H

#include "options.h"

/* The replay on stdout: its exit code (0, EXIT_USAGE for a time that is
 * none, EXIT_START for a DIR that cannot be read). */
int replay_main(const struct options *opts);
/* --list DIR: the record's runs on stdout (history_list.h): 0,
 * EXIT_DAMAGED when damaged records were passed over, EXIT_NOTHING when
 * DIR holds no run, EXIT_START when it cannot be read. */
int replay_list_main(const struct options *opts);

#endif /* DISKIO_REPLAY_H */
