// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for the record's reader (history/history_read.c,
 * history_format.c) and the views a replay hands its frames to: a day file
 * of --record is input diskio did not write this run, torn, damaged or
 * made to hurt.  Whatever it holds, reading it must not crash, leak, read
 * past it or keep more than a frame's bounds, and every frame it yields
 * must print through the batch and JSON views.
 *
 * Byte 0 chooses what the rest is (its low 2 bits): 0, a day file as it
 * is; 1, a day file whose records' CRCs are made right first (so that the
 * fuzzer reaches the chunks' deflate streams and the frames' objects); 2,
 * one frame's objects, inflated, under this version's schema (the seeds
 * files_* and stacks_* reach --files' and --stacks' objects, named frames
 * and all); 3, issue 43's one flipped byte: bytes 1 and 2 a position
 * (little-endian, modulo the file's length), byte 3 what the byte there is
 * XORed with, then a day file whose CRCs are made right before the flip
 * (the seeds *_day hold the header's copy and gap records).  A day file is
 * read as a replay reads it, as --list reads it (its runs as JSON when byte
 * 0's high bit is set), and as the top view finds and reads its frames.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "fuzz_util.h"
#include "history_list.h"
#include "history_read.h"
#include "view.h"

static struct history_reader reader;
static FILE *sink;
static bool list_as_json;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	/* room for a day file's header, its copy and a few frames */
	fuzz_raise_max_len(argc, argv, 16384);
	FUZZ_CHECK(history_reader_init(&reader) == 0, "out of memory");
	sink = fopen("/dev/null", "w");
	FUZZ_CHECK(sink != NULL, "/dev/null");
	return 0;
}

static void show(const struct history_frame *hf)
{
	const struct stack_namer *stacks = hf->stacks_on ? &hf->namer : NULL;
	const struct frame *f = &hf->frame;
	struct view v;

	FUZZ_CHECK(f->nrows <= 65536, "%zu rows", f->nrows);
	FUZZ_CHECK(f->nfiles <= 65536, "%zu file lines", f->nfiles);
	FUZZ_CHECK(f->devices && f->devices->count <= 4096, "devices");
	view_json(&v, sink);
	v.histograms = true;
	v.stacks = stacks;
	view_show_frame(&v, f);
	view_batch(&v, sink);
	v.histograms = true;
	v.stacks = stacks;
	view_show_frame(&v, f);
}

/* Each record's CRC made right, where its length says it ends. */
static void fix_crcs(uint8_t *buf, size_t len)
{
	for (size_t off = HISTORY_MAGIC_LEN; off + 8 < len;) {
		uint32_t n = buf[off] | buf[off + 1] << 8 | buf[off + 2] << 16 |
			     (uint32_t)buf[off + 3] << 24;
		uint32_t crc;

		if (n < 1 || n > len - off - 8)
			break;
		crc = crc32(0, buf + off + 8, n);
		for (int i = 0; i < 4; i++)
			buf[off + 4 + i] = crc >> (8 * i);
		off += 8 + n;
	}
}

/* What history_scan_positions() found: each frame read at its place. */
static int read_position(const struct history_position *p, void *arg)
{
	const struct hbuf *file = arg;

	FUZZ_CHECK(p->chunk_off < file->len && p->header_off < file->len, "a place past the end");
	if (history_reader_at(&reader, file->bytes, file->len, p) == HISTORY_FRAME)
		show(&reader.frame);
	return 0;
}

/* buf[0..len) as a replay, --list and the top view read a day file. */
static void read_day(uint8_t *buf, size_t len)
{
	struct history_runs runs = { 0 };
	struct hbuf file = { .bytes = buf, .len = len };

	if (history_reader_open(&reader, buf, len)) {
		enum history_item item;

		while ((item = history_reader_next(&reader)) != HISTORY_END)
			if (item == HISTORY_FRAME)
				show(&reader.frame);
		FUZZ_CHECK(reader.off <= len, "read past the end");
	}
	if (!history_runs_add_file(&runs, &reader, buf, len))
		history_runs_print(&runs, sink, list_as_json);
	history_runs_free(&runs);
	if (history_magic_of(buf, len) != HISTORY_MAGIC_NONE)
		history_scan_positions(buf, len, read_position, &file);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t *buf;
	size_t len;

	if (size < 1)
		return 0;
	len = size - 1;
	buf = malloc(len + 1);
	FUZZ_CHECK(buf != NULL, "out of memory");
	memcpy(buf, data + 1, len);
	list_as_json = data[0] & 0x80;
	if ((data[0] & 3) == 2) {
		struct history_header h;

		history_header_init(&h);
		history_frame_new_chunk(&reader.frame);
		if (!history_frame_decode(&reader.frame, &h, buf, len))
			show(&reader.frame);
	} else if ((data[0] & 3) == 3) {
		if (len > 3) {
			size_t at = (buf[0] | buf[1] << 8) % (len - 3);
			uint8_t flip = buf[2];

			memmove(buf, buf + 3, len - 3);
			len -= 3;
			fix_crcs(buf, len);
			buf[at] ^= flip;
			read_day(buf, len);
		}
	} else {
		if ((data[0] & 3) == 1)
			fix_crcs(buf, len);
		read_day(buf, len);
	}
	free(buf);
	return 0;
}
