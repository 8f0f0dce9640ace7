/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Reading a day file of --record (doc/record-format.md) from its bytes:
 * headers and frames in the order written.  Whatever the bytes hold, it
 * never reads past them and keeps at most a frame's bounds in memory
 * (history_format.h): a torn tail ends the file, a record whose CRC
 * differs is passed over (and the rest of its chunk, whose stream it
 * broke), counted in bad_records; a header damaged is read from its copy,
 * a magic damaged is counted and the file read.  Pure: the caller maps the
 * file.
 */
#ifndef DISKIO_HISTORY_READ_H
#define DISKIO_HISTORY_READ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <zlib.h>
#include "history_format.h"

enum history_item {
	HISTORY_END,		/* no more whole records */
	HISTORY_HEADER,		/* a run's header: r->header */
	HISTORY_FRAME,		/* a frame: r->frame.frame, valid until the next call */
	HISTORY_GAP,		/* time no frame covers: r->gap_from_ns to r->gap_to_ns */
};

struct history_reader {
	const uint8_t *buf;
	size_t len, off;
	struct history_header header;
	bool have_header;		/* frames follow a header this reader can read */
	size_t header_end;		/* where the last whole header ended: its copy */
	bool magic_damaged;		/* the file's magic (counted in bad_records) */
	z_stream z;
	bool z_ready;
	bool in_chunk;			/* the stream holds the chunk so far */
	struct hbuf inflated;
	struct history_frame frame;
	uint64_t frame_ns;		/* the frame's time, from its record */
	uint64_t gap_from_ns, gap_to_ns;	/* HISTORY_GAP's */
	uint64_t bad_records;		/* damaged records and frames passed over */
};

/* 0, or -ENOMEM. */
int history_reader_init(struct history_reader *r);
void history_reader_free(struct history_reader *r);
/* Read buf[0..len) from its start (false: not a record of diskio; a magic
 * damaged before a whole header is one, counted as damage). */
bool history_reader_open(struct history_reader *r, const uint8_t *buf, size_t len);
/* Start at the chunk that holds begin_ns (ns since the epoch) by the
 * index's entries, when they agree with the data; else from the start. */
void history_reader_seek(struct history_reader *r, const uint8_t *index, size_t index_len,
			 uint64_t begin_ns);
enum history_item history_reader_next(struct history_reader *r);

/* Where a frame is, found without inflating anything (the top view's
 * steps): its time, its run's header, its chunk and its place in it. */
struct history_position {
	uint64_t time_ns;
	uint64_t header_off, chunk_off;
	uint32_t ordinal;		/* 0: the chunk's first frame */
	uint32_t file;			/* the caller's */
	/* a gap record since the frame before: its from and to, else 0 */
	uint64_t gap_from_ns, gap_to_ns;
};

/* Each frame record of buf[0..len) in order, to fn (which returns 0 to go
 * on); frames of a chunk whose start was damaged are left out.  0, or what
 * fn returned. */
int history_scan_positions(const uint8_t *buf, size_t len,
			   int (*fn)(const struct history_position *p, void *arg), void *arg);
/* The reader at the frame p found in buf: p's header read, the chunk
 * inflated up to it.  HISTORY_FRAME, or HISTORY_END when it cannot be read. */
enum history_item history_reader_at(struct history_reader *r, const uint8_t *buf, size_t len,
				    const struct history_position *p);

#endif /* DISKIO_HISTORY_READ_H */
