// SPDX-License-Identifier: GPL-2.0
/* A day file of --record, read (history_read.h). */
#define _GNU_SOURCE
#include <errno.h>
#include <string.h>
#include "history_read.h"
#include "history_write.h"

static uint64_t get_le64(const uint8_t *p)
{
	uint64_t v = 0;

	for (int i = 0; i < 8; i++)
		v |= (uint64_t)p[i] << (8 * i);
	return v;
}

int history_reader_init(struct history_reader *r)
{
	memset(r, 0, sizeof(*r));
	if (history_frame_init(&r->frame))
		return -ENOMEM;
	if (inflateInit2(&r->z, -15) != Z_OK) {
		history_frame_free(&r->frame);
		return -ENOMEM;
	}
	r->z_ready = true;
	return 0;
}

void history_reader_free(struct history_reader *r)
{
	if (r->z_ready)
		inflateEnd(&r->z);
	hbuf_free(&r->inflated);
	history_frame_free(&r->frame);
	memset(r, 0, sizeof(*r));
}

bool history_reader_open(struct history_reader *r, const uint8_t *buf, size_t len)
{
	enum history_magic magic = history_magic_of(buf, len);

	r->buf = buf;
	r->len = len;
	r->off = HISTORY_MAGIC_LEN;
	r->have_header = false;
	r->header_end = 0;
	r->in_chunk = false;
	r->magic_damaged = magic == HISTORY_MAGIC_DAMAGED;
	r->bad_records += r->magic_damaged;
	return magic != HISTORY_MAGIC_NONE;
}

static bool is_header(uint8_t type)
{
	return type == HISTORY_REC_HEADER || type == HISTORY_REC_HEADER_COPY;
}

enum record_found {
	RECORD_WHOLE,		/* *rec, to read */
	RECORD_DAMAGED,		/* damage: go on at *next */
	RECORD_END,		/* a torn tail, or the end */
};

/*
 * The record at off: whole, or damage (*next where the next whole one
 * starts), or the end.  A record whose CRC holds over the bytes up to the
 * next whole one (or the end) lost only its length to damage: it is read
 * all the same, with *damaged set.
 */
static enum record_found record_at(const uint8_t *buf, size_t len, size_t off,
				   struct history_record *rec, size_t *next, bool *damaged)
{
	enum history_record_status st = history_record_get(buf, len, off, rec);

	*damaged = false;
	if (st == HISTORY_RECORD_OK)
		return RECORD_WHOLE;
	*next = history_next_record(buf, len, off);
	if (history_record_to_end(buf, *next, off, rec)) {
		*damaged = true;
		return RECORD_WHOLE;
	}
	if (st == HISTORY_RECORD_SHORT && *next == len)
		return RECORD_END;
	*damaged = true;
	return RECORD_DAMAGED;
}

void history_reader_seek(struct history_reader *r, const uint8_t *index, size_t index_len,
			 uint64_t begin_ns)
{
	size_t best = SIZE_MAX;
	uint64_t best_header = 0;

	for (size_t at = 0; at + HISTORY_INDEX_ENTRY <= index_len; at += HISTORY_INDEX_ENTRY) {
		const uint8_t *e = index + at;
		uint32_t crc = e[24] | e[25] << 8 | e[26] << 16 | (uint32_t)e[27] << 24;
		struct history_record rec, head;
		uint64_t off = get_le64(e + 8), header_off = get_le64(e + 16);

		if (crc32(0, e, 24) != crc || get_le64(e) > begin_ns)
			break;
		/* An entry is trusted only where the data agrees with it. */
		if (off >= r->len || header_off >= off ||
		    history_record_get(r->buf, r->len, off, &rec) != HISTORY_RECORD_OK ||
		    rec.type != HISTORY_REC_CHUNK || rec.body_len < 8 ||
		    get_le64(rec.body) != get_le64(e) ||
		    history_record_get(r->buf, r->len, header_off, &head) != HISTORY_RECORD_OK ||
		    !is_header(head.type))
			break;
		best = off;
		best_header = header_off;
	}
	if (best == SIZE_MAX)
		return;
	/* The run's header, then the chunk. */
	{
		struct history_record head;

		history_record_get(r->buf, r->len, best_header, &head);
		r->have_header = !history_header_decode(head.body, head.body_len, &r->header);
		r->header_end = head.end;
	}
	r->off = best;
	r->in_chunk = false;
}

/* body[0..len) through the chunk's stream into r->inflated.  0 or -EBADMSG. */
static int inflate_frame(struct history_reader *r, const uint8_t *body, size_t len)
{
	r->inflated.len = 0;
	r->z.next_in = (uint8_t *)body;
	r->z.avail_in = len;
	for (;;) {
		int ret;

		if (r->inflated.len >= HISTORY_FRAME_MAX || hbuf_reserve(&r->inflated, 65536))
			return -EBADMSG;
		r->z.next_out = r->inflated.bytes + r->inflated.len;
		r->z.avail_out = r->inflated.cap - r->inflated.len;
		ret = inflate(&r->z, Z_SYNC_FLUSH);
		r->inflated.len = r->inflated.cap - r->z.avail_out;
		/* The writer never ends a stream: its end is damage too. */
		if (ret != Z_OK && ret != Z_BUF_ERROR)
			return -EBADMSG;
		if (r->z.avail_out)
			break;	/* all it could give */
	}
	return r->z.avail_in ? -EBADMSG : 0;
}

/* A chunk's frame record: 0 when it is a frame to show. */
static int take_frame(struct history_reader *r, const struct history_record *rec)
{
	if (!r->have_header || rec->body_len < 8)
		return -EBADMSG;
	if (rec->type == HISTORY_REC_CHUNK) {
		inflateReset(&r->z);
		history_frame_new_chunk(&r->frame);
		r->in_chunk = true;
	} else if (!r->in_chunk) {
		return -ENOENT;		/* its chunk's start was passed over */
	}
	r->frame_ns = get_le64(rec->body);
	if (inflate_frame(r, rec->body + 8, rec->body_len - 8) ||
	    history_frame_decode(&r->frame, &r->header, r->inflated.bytes, r->inflated.len)) {
		r->in_chunk = false;
		return -EBADMSG;
	}
	return 0;
}

enum history_item history_reader_next(struct history_reader *r)
{
	while (r->off < r->len) {
		struct history_record rec;
		size_t at = r->off, next = 0;
		bool damaged;
		int err;

		switch (record_at(r->buf, r->len, at, &rec, &next, &damaged)) {
		case RECORD_END:
			r->off = r->len;
			return HISTORY_END;
		case RECORD_DAMAGED:
			r->bad_records++;
			r->in_chunk = false;
			r->off = next;
			continue;
		case RECORD_WHOLE:
			r->bad_records += damaged;
			break;
		}
		r->off = rec.end;
		switch (rec.type) {
		case HISTORY_REC_HEADER:
		case HISTORY_REC_HEADER_COPY:
			/* The copy of the header just read: nothing new. */
			if (rec.type == HISTORY_REC_HEADER_COPY && at == r->header_end)
				continue;
			r->header_end = rec.end;
			r->in_chunk = false;
			r->have_header = !history_header_decode(rec.body, rec.body_len, &r->header);
			if (!r->have_header) {
				r->bad_records++;
				continue;
			}
			return HISTORY_HEADER;
		case HISTORY_REC_CHUNK:
		case HISTORY_REC_FRAME:
			err = take_frame(r, &rec);
			if (!err)
				return HISTORY_FRAME;
			if (err == -EBADMSG)
				r->bad_records++;
			continue;
		case HISTORY_REC_GAP:
			if (rec.body_len < HISTORY_GAP_BODY) {
				r->bad_records++;
				continue;
			}
			r->gap_from_ns = get_le64(rec.body);
			r->gap_to_ns = get_le64(rec.body + 8);
			return HISTORY_GAP;
		default:
			continue;	/* a record of a later version */
		}
	}
	r->off = r->len;
	return HISTORY_END;
}

int history_scan_positions(const uint8_t *buf, size_t len,
			   int (*fn)(const struct history_position *p, void *arg), void *arg)
{
	struct history_position p = { 0 };
	bool in_chunk = false, have_header = false, damaged;
	size_t off = HISTORY_MAGIC_LEN, header_end = 0, next = 0;

	while (off < len) {
		struct history_record rec;
		int err;

		switch (record_at(buf, len, off, &rec, &next, &damaged)) {
		case RECORD_END:
			return 0;
		case RECORD_DAMAGED:
			in_chunk = false;
			off = next;
			continue;
		case RECORD_WHOLE:
			break;
		}
		if (is_header(rec.type)) {
			/* a copy right after its header says nothing new */
			if (rec.type == HISTORY_REC_HEADER || off != header_end) {
				p.header_off = off;
				have_header = true;
				in_chunk = false;
			}
			header_end = rec.end;
		} else if (rec.type == HISTORY_REC_GAP && rec.body_len >= HISTORY_GAP_BODY) {
			p.gap_from_ns = get_le64(rec.body);
			p.gap_to_ns = get_le64(rec.body + 8);
		} else if ((rec.type == HISTORY_REC_CHUNK || rec.type == HISTORY_REC_FRAME) &&
			   rec.body_len >= 8 && have_header) {
			if (rec.type == HISTORY_REC_CHUNK) {
				p.chunk_off = off;
				p.ordinal = 0;
				in_chunk = true;
			} else {
				p.ordinal++;
			}
			p.time_ns = get_le64(rec.body);
			if (in_chunk) {
				if ((err = fn(&p, arg)))
					return err;
				p.gap_from_ns = p.gap_to_ns = 0;
			}
		}
		off = rec.end;
	}
	return 0;
}

enum history_item history_reader_at(struct history_reader *r, const uint8_t *buf, size_t len,
				    const struct history_position *p)
{
	struct history_record head;

	if (!history_reader_open(r, buf, len) ||
	    history_record_get(buf, len, p->header_off, &head) != HISTORY_RECORD_OK ||
	    !is_header(head.type) ||
	    history_header_decode(head.body, head.body_len, &r->header))
		return HISTORY_END;
	r->have_header = true;
	r->header_end = head.end;
	r->off = p->chunk_off;
	r->in_chunk = false;
	for (uint32_t i = 0; i <= p->ordinal; i++) {
		enum history_item item;

		do
			item = history_reader_next(r);
		while (item == HISTORY_HEADER || item == HISTORY_GAP);
		if (item != HISTORY_FRAME)
			return HISTORY_END;
	}
	return HISTORY_FRAME;
}
