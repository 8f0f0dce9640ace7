/* SPDX-License-Identifier: GPL-2.0 */
/*
 * diskio's record of frames (--record, --replay), byte by byte in
 * doc/record-format.md: records framed by length and CRC32, a header with
 * the schema (every field's id and wire type), and frames as objects of
 * (field id, value) pairs.  This module turns a frame into its bytes and
 * back; the files, zlib's chunks and the index are history_write.c's and
 * history_read.c's.  Pure: no files, no clock.
 *
 * Adding a figure to the record is a line of history_fields[] (an unused
 * id of its kind, its wire type, where it lives): a reader that does not
 * know the id skips it by the type the header gives.
 */
#ifndef DISKIO_HISTORY_FORMAT_H
#define DISKIO_HISTORY_FORMAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "frame.h"
#include "stacks.h"

#define HISTORY_MAGIC		"\x89" "DKR\r\n\x1a\n"
#define HISTORY_MAGIC_LEN	8
#define HISTORY_VERSION		1
/* A record's body is at most this long: a longer length is damage. */
#define HISTORY_RECORD_MAX	(8u << 20)
/* A frame's bytes, inflated, at most; and a chunk's names. */
#define HISTORY_FRAME_MAX	(32u << 20)
#define HISTORY_NAMES_MAX	(1u << 20)
#define HISTORY_VEC_MAX		4096
#define HISTORY_SCHEMA_MAX	1024

/* Record types: the body's first byte. */
enum history_record_type {
	HISTORY_REC_HEADER = 'H',	/* a run's start: who, where, the schema */
	HISTORY_REC_CHUNK = 'C',	/* a frame that starts a deflate stream */
	HISTORY_REC_FRAME = 'F',	/* a frame that continues the chunk's stream */
	/* The header's body again, right after it: a flipped byte in one
	 * leaves the other, and the run's frames stay readable. */
	HISTORY_REC_HEADER_COPY = 'R',
	HISTORY_REC_GAP = 'G',		/* time no frame covers: from, to (u64 ns) */
};
/* A gap record's body: from and to, ns since the epoch. */
#define HISTORY_GAP_BODY	16

/* Objects of a frame, each a kind and its fields up to field id 0. */
enum history_kind {
	HK_END = 0,		/* the frame's end (no fields) */
	HK_FRAME = 1,
	HK_NAME = 2,		/* the chunk's next name: length, bytes (no fields) */
	HK_DEVICE = 3,
	HK_ROW = 4,
	HK_CRASH = 5,
	HK_CRASH_PROCESS = 6,
	HK_CRASH_EVENT = 7,
	HK_FILE = 8,		/* --files: a line of the frame's files */
	HK_STACK = 9,		/* --stacks: one of the last ROW's top stacks */
};

/* Wire types of a field's value. */
enum history_type {
	HT_UNSIGNED = 1,	/* LEB128 */
	HT_SIGNED = 2,		/* zigzag LEB128 */
	HT_NAME = 3,		/* LEB128 index into the chunk's names, 1 the first */
	HT_BYTES = 4,		/* LEB128 length, bytes */
	HT_VECTOR = 5,		/* LEB128 count, count LEB128s */
	HT_DOUBLE = 6,		/* 8 bytes, IEEE 754, little-endian */
};

/* Where a field lives in its struct (the writer reads it, the reader
 * writes it), for the fields the generic code handles. */
enum history_storage {
	HS_SPECIAL,		/* history_format.c's own code */
	HS_INT,			/* an unsigned integer of size bytes */
	HS_SINT,		/* a signed integer of size bytes */
	HS_BOOL,
	HS_COUNTER,		/* struct pmem_counter: its delta */
	HS_KEY,			/* a res_key of the frame's names */
	HS_CHARS,		/* a char[size], NUL-terminated */
	HS_DOUBLE,		/* a double (HT_DOUBLE) */
	HS_COUNTER_TOTAL,	/* struct pmem_counter: its total */
};

struct history_field {
	uint8_t kind;		/* enum history_kind */
	uint8_t id;		/* 1..127 */
	uint8_t type;		/* enum history_type */
	uint8_t storage;	/* enum history_storage */
	uint16_t offset, size;
	const char *name;
	/* Written only in a frame of totals (-a: frame.cumulative), whose
	 * replay shows them as the run did. */
	bool totals;
};

extern const struct history_field history_fields[];
extern const size_t history_nfields;
/* The table's field (kind, id), or NULL. */
const struct history_field *history_field_of(uint8_t kind, uint64_t id);

/* The ids of the fields the encoder and decoder handle themselves. */
enum {
	HF_FRAME_LOST = 9,
	HF_FRAME_STACKS_ON = 16,
	HF_FRAME_FRAMES_RECOVERED = 17,
	HF_FRAME_FRAMES_UNKNOWN = 18,
	HF_DEVICE_NAME = 1,
	HF_DEVICE_TOTAL = 2,
	HF_DEVICE_SLOTS = 36,		/* 36..38: per operation */
	HF_DEVICE_SLOTS_TOTAL = 77,	/* 77..79 */
	HF_ROW_KEY_COMM = 4,
	HF_ROW_LATENCY = 21,
	HF_ROW_LATENCY_INCOMPLETE = 22,
	HF_ROW_LATENCY_TOTAL = 23,
	HF_ROW_CMDLINE = 30,
	HF_FILE_PATH = 10,
	HF_STACK_KERNEL_STATE = 1,
	HF_STACK_USER_STATE = 2,
	HF_STACK_KERNEL = 3,
	HF_STACK_USER = 4,
	HF_STACK_USER_UNKNOWN = 5,
	HF_STACK_COUNTS = 6,
	HF_STACK_COUNTS_TOTAL = 7,
};

/* A growing byte buffer. */
struct hbuf {
	uint8_t *bytes;
	size_t len, cap;
};

int hbuf_put(struct hbuf *b, const void *p, size_t n);
int hbuf_uleb(struct hbuf *b, uint64_t v);
/* Room for more bytes past len. */
int hbuf_reserve(struct hbuf *b, size_t more);
/* LEB128 length, then the bytes. */
int hbuf_string(struct hbuf *b, const char *s, size_t len);
void hbuf_free(struct hbuf *b);

/* A cursor over bytes that cannot run past their end: a read beyond it
 * sets bad and gives 0. */
struct hcur {
	const uint8_t *p, *end;
	bool bad;
};

uint64_t hcur_uleb(struct hcur *c);
const uint8_t *hcur_take(struct hcur *c, size_t n);

/* ---- records ---- */

/* type, then body[0..len), framed: u32le length of type + body, u32le
 * CRC32 of them, type, body. */
int history_record_put(struct hbuf *out, uint8_t type, const void *body, size_t len);

enum history_record_status {
	HISTORY_RECORD_OK,
	HISTORY_RECORD_SHORT,	/* the bytes end before the record does */
	HISTORY_RECORD_BAD,	/* a length out of range or a CRC that differs */
};

/* The record at buf[off..len): its type, body and end. */
struct history_record {
	uint8_t type;
	const uint8_t *body;
	size_t body_len;
	size_t end;		/* the offset after it */
};

enum history_record_status history_record_get(const uint8_t *buf, size_t len, size_t off,
					      struct history_record *r);
/* The offset of the first whole record with a right CRC after off, or len:
 * where reading goes on after damage.  A record that seems to run past the
 * end is damage too when a whole one follows it (a length hit in the
 * middle of a file); only when none does is it a torn tail. */
size_t history_next_record(const uint8_t *buf, size_t len, size_t off);
/* The record at off taken to the end of buf[0..len), when its CRC says
 * those bytes are it: a record whose length alone was damaged, with len the
 * next whole record's offset (or the file's end, where it would otherwise
 * look like a torn tail).  true with *r. */
bool history_record_to_end(const uint8_t *buf, size_t len, size_t off,
			   struct history_record *r);

enum history_magic {
	HISTORY_MAGIC_OK,
	/* Damaged, but a whole header record follows it, as a writer puts
	 * one there: a day file all the same. */
	HISTORY_MAGIC_DAMAGED,
	HISTORY_MAGIC_NONE,	/* not a record of diskio */
};

enum history_magic history_magic_of(const uint8_t *buf, size_t len);

/* ---- the header ---- */

struct history_schema_entry {
	uint8_t kind, id, type;
};

struct history_header {
	uint32_t version;
	char host[65];
	char boot_id[40];
	char kernel[65];
	char filter[256];		/* "-D zram0 -p 42", "" without */
	uint64_t interval_ns;
	int64_t start_s;		/* the run's start, CLOCK_REALTIME */
	struct history_schema_entry schema[HISTORY_SCHEMA_MAX];
	size_t nschema;
};

/* This program's header (the schema it writes) with the run's facts. */
void history_header_init(struct history_header *h);
int history_header_encode(const struct history_header *h, struct hbuf *out);
/* 0, or -EBADMSG for a body that is not a header this reader can use (a
 * later major version, a field whose type is unknown). */
int history_header_decode(const uint8_t *body, size_t len, struct history_header *h);
/* The wire type h's schema gives field (kind, id), 0 when it has none. */
int history_schema_type(const struct history_header *h, uint8_t kind, uint64_t id);

/* ---- frames ---- */

/* The writer's names of a chunk: each name once, by its index. */
struct history_names_out {
	struct hbuf bytes;		/* the names, each with a NUL */
	uint32_t *slots;		/* open addressing: index (1-based), 0 empty */
	uint32_t *offsets;		/* index - 1 -> offset in bytes */
	size_t count, nslots, offsets_cap;
};

void history_names_out_reset(struct history_names_out *n);
void history_names_out_free(struct history_names_out *n);

/* Frame f as objects (its new names among them) appended to out; with
 * stacks (--stacks: how the run names frames, NULL without) its rows'
 * stacks, their frames as names. */
int history_frame_encode(const struct frame *f, const struct stack_namer *stacks,
			 struct history_names_out *names, struct hbuf *out);

/* What the reader rebuilds a frame into: its own memory, valid until the
 * next decode; names go into a table of its own that only grows. */
struct history_frame {
	struct frame frame;
	struct proc_io *rows, **row_ptrs;
	size_t nrows, rows_cap, ptrs_cap;
	struct row_latency *latency;
	size_t latency_cap;
	uint32_t *cmdline_index;	/* per row: its command line's name, 0 none */
	size_t cmdline_cap;
	struct file_row *files;		/* --files */
	uint32_t *path_index;		/* per file line: its path's name, 0 none */
	size_t nfiles, files_cap, path_cap;
	/* --stacks: the rows' stacks, their frames the chunk's names (a user
	 * frame's high 32 bits: why it has none), named by namer */
	bool stacks_on;
	uint64_t frames_recovered, frames_unknown;
	struct row_stack *stacks, **stack_ptrs;
	size_t nstacks, stacks_cap, stack_ptrs_cap;
	void *stack_table_buf;		/* made at the first stack */
	struct res_table stack_table;
	struct stack_namer namer;
	struct pmem_metrics devices;
	struct crashfree crash;
	struct crash_event *events;
	size_t nevents, events_cap;
	/* the chunk's names, as they came */
	struct hbuf name_bytes;
	uint32_t *name_offsets, *name_lens;
	size_t nnames, names_cap;
	/* the frame's names, for the views */
	void *table_buf;
	struct res_table table;
	bool table_full;		/* a name had no room: shown as "?" */
};

int history_frame_init(struct history_frame *hf);
void history_frame_free(struct history_frame *hf);
/* A new chunk: its names start anew. */
void history_frame_new_chunk(struct history_frame *hf);
/* Inflated bytes of one frame into hf->frame, under the header h's schema.
 * 0, or -EBADMSG (the frame is not shown; the chunk's names may have
 * grown). */
int history_frame_decode(struct history_frame *hf, const struct history_header *h,
			 const uint8_t *bytes, size_t len);

#endif /* DISKIO_HISTORY_FORMAT_H */
