/* SPDX-License-Identifier: GPL-2.0 */
/*
 * --list DIR: the runs a record directory holds, one line (or JSON record)
 * each: the run's host and filter as its header says them, its first and
 * last frame, how many frames and gaps it has.  A run that went past
 * midnight has a header in each day file: it is one run all the same.
 * Read by the replay's reader (history_read.h), damage counted as a replay
 * counts it.  Pure but for the files it reads.
 */
#ifndef DISKIO_HISTORY_LIST_H
#define DISKIO_HISTORY_LIST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "history_read.h"

struct history_run {
	char host[65];
	char boot_id[40];
	char filter[256];
	int64_t start_s;
	uint64_t interval_ns;
	uint64_t first_ns, last_ns;	/* its frames' times; 0: no frame */
	uint64_t frames, gaps;
};

struct history_runs {
	struct history_run *runs;
	size_t n, cap;
	uint64_t bad_records;		/* damage passed over, as a replay counts it */
	size_t refused;			/* .dkr files that are no record of diskio */
};

/* The runs of the day file buf[0..len) added, read with r (which it
 * reopens).  0, -EBADMSG for a file that is no record, or -ENOMEM. */
int history_runs_add_file(struct history_runs *runs, struct history_reader *r,
			  const uint8_t *buf, size_t len);
/* The runs of DIR's day files, oldest first; what was refused or damaged
 * said on warn ("diskio: --list: ..."; NULL: not said).  0, or -errno
 * when DIR cannot be read. */
int history_runs_of_dir(struct history_runs *runs, const char *dir, FILE *warn);
/* A "#" line naming the fields, then a line a run (batch: awk's fields,
 * names escaped, "-" for no frame); json: a {"type":"run",...} record a
 * run. */
void history_runs_print(const struct history_runs *runs, FILE *out, bool json);
void history_runs_free(struct history_runs *runs);

#endif /* DISKIO_HISTORY_LIST_H */
