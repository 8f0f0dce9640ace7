/* SPDX-License-Identifier: GPL-2.0 */
/*
 * --record DIR: frames appended to one file per UTC day (DIR/YYYY-MM-DD.dkr),
 * deflated in chunks, with an index of the chunks (DIR/YYYY-MM-DD.dki);
 * doc/record-format.md.  A day file found torn is cut back to its last whole
 * record, and the run's header follows it: the gap a replay shows.  Data is
 * written before its index entry and made durable every 60 s, at a new day
 * and at the end.  Whole files go, oldest first, past --record-days or
 * --record-max.  No clock of its own: the frames' times and now_ns decide.
 */
#ifndef DISKIO_HISTORY_WRITE_H
#define DISKIO_HISTORY_WRITE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <zlib.h>
#include "history_format.h"

#define HISTORY_CHUNK_FRAMES	8
#define HISTORY_CHUNK_SECONDS	600
/* A gap shorter than this (the millisecond times are shown to) is none. */
#define HISTORY_GAP_MIN_NS	1000000ULL
#define HISTORY_SYNC_NS		(60ULL * 1000000000ULL)
#define HISTORY_DEFAULT_DAYS	7
#define HISTORY_DEFAULT_MAX	(256ULL << 20)
/* An index entry: the chunk's time (ns), its offset, its run's header's
 * offset, a CRC32 of those 24 bytes and 4 zero bytes. */
#define HISTORY_INDEX_ENTRY	32

struct history_writer {
	const char *dir;
	struct history_header header;	/* the run's, written at each file's start */
	uint32_t keep_days;		/* 0: no limit */
	uint64_t max_bytes;		/* 0: no limit */
	FILE *warn;			/* "diskio: ..." lines, NULL: none */
	/* --stacks: how the run names frames (the rows' stacks are recorded
	 * with their names); NULL: no stacks */
	const struct stack_namer *stacks;

	int fd, index_fd;
	char day[16];			/* "2026-11-26": the open file's */
	uint64_t size;			/* the data file's, as written */
	uint64_t header_offset;
	z_stream z;
	bool z_ready;
	unsigned int chunk_frames;
	int64_t chunk_start_s;
	uint64_t synced_ns;
	bool failed;			/* writes are failing: warned once */
	struct hbuf frame, body, record;
	struct history_names_out names;
	uint64_t index_size;		/* the index file's, as written */
	/* what the open found and cut (for the tests and the warning) */
	uint64_t cut_bytes, bad_records;
	bool magic_repaired;
	/*
	 * Gaps (a 'G' record before the next frame written): time the day
	 * file's frames do not cover, because this run's writes failed (a
	 * full disk) or because no run recorded between the file's last frame
	 * and this run's first.
	 */
	uint64_t recorded_ns;		/* the last frame in the file: its time */
	bool gap_open;			/* time after recorded_ns is unrecorded */
	uint64_t unrecorded;		/* frames of the open gap not written */
	uint64_t unrecorded_to_ns;	/* the last of them: its time */
	uint64_t gaps;			/* gaps of this run's frames, marked */
	uint64_t frames_unrecorded;	/* this run's frames not written */
};

/* w's fields above the line set by the caller; the rest is made here.
 * 0, or -errno (out of memory, zlib). */
int history_writer_init(struct history_writer *w);
/* Frame f recorded; now_ns (CLOCK_MONOTONIC) times the syncs.  0, or
 * -errno after one warning (the record goes on with the next frame, after
 * a gap record for those that could not be written). */
int history_writer_frame(struct history_writer *w, const struct frame *f, uint64_t now_ns);
/* The gaps of this run's frames the record will hold, once finished. */
uint64_t history_writer_gaps(const struct history_writer *w);
/* The gap of the frames that could not be written at the end marked,
 * synced and closed.  0, or -errno when that write or the sync failed. */
int history_writer_finish(struct history_writer *w);
void history_writer_free(struct history_writer *w);

/* DIR/<day>.dkr for day "YYYY-MM-DD" into path; false when too long. */
bool history_day_path(char *path, size_t size, const char *dir, const char *day,
		      const char *suffix);
/* "YYYY-MM-DD" of t, UTC. */
void history_day_of(int64_t t, char day[16]);

#endif /* DISKIO_HISTORY_WRITE_H */
