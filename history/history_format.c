// SPDX-License-Identifier: GPL-2.0
/* A frame as a record's bytes and back (history_format.h); the layout is
 * doc/record-format.md's. */
#define _GNU_SOURCE
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include "array.h"
#include "history_format.h"

/* ---- the schema ---- */

#define FIELD(k, i, t, st, s, m, n) \
	{ k, i, t, st, offsetof(s, m), sizeof(((s *)0)->m), n, false }
#define UINT(k, i, s, m, n) FIELD(k, i, HT_UNSIGNED, HS_INT, s, m, n)
#define BOOL(k, i, s, m, n) FIELD(k, i, HT_UNSIGNED, HS_BOOL, s, m, n)
#define SPECIAL(k, i, t, n) { k, i, t, HS_SPECIAL, 0, 0, n, false }
#define ROW_COUNTER(i, c, n) UINT(HK_ROW, i, struct proc_io, delta[c], n)
#define DEV_COUNTER(i, m, n) FIELD(HK_DEVICE, i, HT_UNSIGNED, HS_COUNTER, struct pmem_device, m, n)
#define DEV_CHANGE(i, f, n) UINT(HK_DEVICE, i, struct pmem_device, iostat_change.field[f], n)
/* Frames of totals (-a) only: what the run showed since its start. */
#define TOTALS(k, i, t, st, s, m, n) \
	{ k, i, t, st, offsetof(s, m), sizeof(((s *)0)->m), n, true }
#define ROW_TOTAL(i, c, n) TOTALS(HK_ROW, i, HT_UNSIGNED, HS_INT, struct proc_io, total[c], n)
#define DEV_TOTAL(i, m, n) \
	TOTALS(HK_DEVICE, i, HT_UNSIGNED, HS_COUNTER_TOTAL, struct pmem_device, m, n)
#define DEV_START(i, f, n) TOTALS(HK_DEVICE, i, HT_UNSIGNED, HS_INT, struct pmem_device, \
				  iostat_change_start.field[f], n)
#define SPECIAL_TOTALS(k, i, t, n) { k, i, t, HS_SPECIAL, 0, 0, n, true }

/* Special fields' ids, which the code below handles itself. */
enum {
	F_LOST = 9,
	D_NAME = 1, D_AGGREGATE = 2, D_SLOTS = 36,	/* 36..38: per operation */
	D_SLOTS_TOTAL = 77,				/* 77..79 */
	R_KEY_COMM = 4, R_LATENCY = 21, R_LATENCY_INCOMPLETE = 22, R_CMDLINE = 30,
	R_LATENCY_TOTAL = 23,
};

const struct history_field history_fields[] = {
	UINT(HK_FRAME, 1, struct frame, wall.tv_sec, "time_s"),
	UINT(HK_FRAME, 2, struct frame, wall.tv_nsec, "time_ns"),
	FIELD(HK_FRAME, 3, HT_DOUBLE, HS_DOUBLE, struct frame, interval_s, "interval_s"),
	BOOL(HK_FRAME, 4, struct frame, partial, "partial"),
	BOOL(HK_FRAME, 5, struct frame, cumulative, "cumulative"),
	BOOL(HK_FRAME, 6, struct frame, per_process_latency, "per_process_latency"),
	BOOL(HK_FRAME, 7, struct frame, by_cgroup, "by_cgroup"),
	BOOL(HK_FRAME, 8, struct frame, per_thread, "per_thread"),
	SPECIAL(HK_FRAME, F_LOST, HT_VECTOR, "lost"),
	UINT(HK_FRAME, 10, struct frame, io_events, "io_events"),

	SPECIAL(HK_DEVICE, D_NAME, HT_NAME, "name"),
	SPECIAL(HK_DEVICE, D_AGGREGATE, HT_UNSIGNED, "total"),
	UINT(HK_DEVICE, 3, struct pmem_device, latency_sample, "latency_sample"),
	BOOL(HK_DEVICE, 4, struct pmem_device, has_iostat, "has_iostat"),
	FIELD(HK_DEVICE, 5, HT_NAME, HS_CHARS, struct pmem_device, layers.below, "below"),
	FIELD(HK_DEVICE, 6, HT_NAME, HS_CHARS, struct pmem_device, layers.dm_name, "dm_name"),
	UINT(HK_DEVICE, 7, struct pmem_device, iostat_change.ns, "iostat_ns"),
	DEV_COUNTER(10, counter[PMEM_READ_BYTES], "read_bytes"),
	DEV_COUNTER(11, counter[PMEM_WRITE_BYTES], "write_bytes"),
	DEV_COUNTER(12, counter[PMEM_DISCARD_BYTES], "discard_bytes"),
	DEV_COUNTER(13, counter[PMEM_READ_IOS], "read_ios"),
	DEV_COUNTER(14, counter[PMEM_WRITE_IOS], "write_ios"),
	DEV_COUNTER(15, counter[PMEM_DISCARD_IOS], "discard_ios"),
	DEV_COUNTER(16, counter[PMEM_FLUSHES], "flushes"),
	DEV_COUNTER(17, counter[PMEM_LATENCY_NS], "latency_ns"),
	DEV_COUNTER(18, counter[PMEM_LATENCY_IOS], "latency_ios"),
	DEV_COUNTER(19, counter[PMEM_DIRTIED_BYTES], "dirtied_bytes"),
	DEV_COUNTER(20, counter[PMEM_WRITEBACK_BYTES], "writeback_bytes"),
	DEV_COUNTER(30, op_latency_ns[IO_READ], "read_latency_ns"),
	DEV_COUNTER(31, op_latency_ns[IO_WRITE], "write_latency_ns"),
	DEV_COUNTER(32, op_latency_ns[IO_DISCARD], "discard_latency_ns"),
	DEV_COUNTER(33, op_latency_ios[IO_READ], "read_latency_ios"),
	DEV_COUNTER(34, op_latency_ios[IO_WRITE], "write_latency_ios"),
	DEV_COUNTER(35, op_latency_ios[IO_DISCARD], "discard_latency_ios"),
	SPECIAL(HK_DEVICE, D_SLOTS + IO_READ, HT_VECTOR, "read_latency_slots"),
	SPECIAL(HK_DEVICE, D_SLOTS + IO_WRITE, HT_VECTOR, "write_latency_slots"),
	SPECIAL(HK_DEVICE, D_SLOTS + IO_DISCARD, HT_VECTOR, "discard_latency_slots"),
	DEV_COUNTER(39, latency_samples_dropped, "latency_samples_dropped"),
	DEV_CHANGE(40, DS_READ_IOS, "ds_read_ios"),
	DEV_CHANGE(41, DS_READ_MERGES, "ds_read_merges"),
	DEV_CHANGE(42, DS_READ_SECTORS, "ds_read_sectors"),
	DEV_CHANGE(43, DS_READ_TICKS, "ds_read_ticks"),
	DEV_CHANGE(44, DS_WRITE_IOS, "ds_write_ios"),
	DEV_CHANGE(45, DS_WRITE_MERGES, "ds_write_merges"),
	DEV_CHANGE(46, DS_WRITE_SECTORS, "ds_write_sectors"),
	DEV_CHANGE(47, DS_WRITE_TICKS, "ds_write_ticks"),
	DEV_CHANGE(48, DS_IN_FLIGHT, "ds_in_flight"),
	DEV_CHANGE(49, DS_IO_TICKS, "ds_io_ticks"),
	DEV_CHANGE(50, DS_TIME_IN_QUEUE, "ds_time_in_queue"),
	DEV_CHANGE(51, DS_DISCARD_IOS, "ds_discard_ios"),
	DEV_CHANGE(52, DS_DISCARD_MERGES, "ds_discard_merges"),
	DEV_CHANGE(53, DS_DISCARD_SECTORS, "ds_discard_sectors"),
	DEV_CHANGE(54, DS_DISCARD_TICKS, "ds_discard_ticks"),
	DEV_CHANGE(55, DS_FLUSH_IOS, "ds_flush_ios"),
	DEV_CHANGE(56, DS_FLUSH_TICKS, "ds_flush_ticks"),
	DEV_TOTAL(60, counter[PMEM_READ_BYTES], "read_bytes_total"),
	DEV_TOTAL(61, counter[PMEM_WRITE_BYTES], "write_bytes_total"),
	DEV_TOTAL(62, counter[PMEM_DISCARD_BYTES], "discard_bytes_total"),
	DEV_TOTAL(63, counter[PMEM_READ_IOS], "read_ios_total"),
	DEV_TOTAL(64, counter[PMEM_WRITE_IOS], "write_ios_total"),
	DEV_TOTAL(65, counter[PMEM_DISCARD_IOS], "discard_ios_total"),
	DEV_TOTAL(66, counter[PMEM_FLUSHES], "flushes_total"),
	DEV_TOTAL(67, counter[PMEM_LATENCY_NS], "latency_ns_total"),
	DEV_TOTAL(68, counter[PMEM_LATENCY_IOS], "latency_ios_total"),
	DEV_TOTAL(69, counter[PMEM_DIRTIED_BYTES], "dirtied_bytes_total"),
	DEV_TOTAL(70, counter[PMEM_WRITEBACK_BYTES], "writeback_bytes_total"),
	DEV_TOTAL(71, op_latency_ns[IO_READ], "read_latency_ns_total"),
	DEV_TOTAL(72, op_latency_ns[IO_WRITE], "write_latency_ns_total"),
	DEV_TOTAL(73, op_latency_ns[IO_DISCARD], "discard_latency_ns_total"),
	DEV_TOTAL(74, op_latency_ios[IO_READ], "read_latency_ios_total"),
	DEV_TOTAL(75, op_latency_ios[IO_WRITE], "write_latency_ios_total"),
	DEV_TOTAL(76, op_latency_ios[IO_DISCARD], "discard_latency_ios_total"),
	SPECIAL_TOTALS(HK_DEVICE, D_SLOTS_TOTAL + IO_READ, HT_VECTOR, "read_latency_slots_total"),
	SPECIAL_TOTALS(HK_DEVICE, D_SLOTS_TOTAL + IO_WRITE, HT_VECTOR, "write_latency_slots_total"),
	SPECIAL_TOTALS(HK_DEVICE, D_SLOTS_TOTAL + IO_DISCARD, HT_VECTOR,
		       "discard_latency_slots_total"),
	DEV_TOTAL(80, latency_samples_dropped, "latency_samples_dropped_total"),
	TOTALS(HK_DEVICE, 81, HT_UNSIGNED, HS_INT, struct pmem_device, iostat_change_start.ns,
	       "iostat_ns_since_start"),
	DEV_START(82, DS_READ_IOS, "ds_read_ios_since_start"),
	DEV_START(83, DS_READ_MERGES, "ds_read_merges_since_start"),
	DEV_START(84, DS_READ_SECTORS, "ds_read_sectors_since_start"),
	DEV_START(85, DS_READ_TICKS, "ds_read_ticks_since_start"),
	DEV_START(86, DS_WRITE_IOS, "ds_write_ios_since_start"),
	DEV_START(87, DS_WRITE_MERGES, "ds_write_merges_since_start"),
	DEV_START(88, DS_WRITE_SECTORS, "ds_write_sectors_since_start"),
	DEV_START(89, DS_WRITE_TICKS, "ds_write_ticks_since_start"),
	DEV_START(90, DS_IN_FLIGHT, "ds_in_flight_since_start"),
	DEV_START(91, DS_IO_TICKS, "ds_io_ticks_since_start"),
	DEV_START(92, DS_TIME_IN_QUEUE, "ds_time_in_queue_since_start"),
	DEV_START(93, DS_DISCARD_IOS, "ds_discard_ios_since_start"),
	DEV_START(94, DS_DISCARD_MERGES, "ds_discard_merges_since_start"),
	DEV_START(95, DS_DISCARD_SECTORS, "ds_discard_sectors_since_start"),
	DEV_START(96, DS_DISCARD_TICKS, "ds_discard_ticks_since_start"),
	DEV_START(97, DS_FLUSH_IOS, "ds_flush_ios_since_start"),
	DEV_START(98, DS_FLUSH_TICKS, "ds_flush_ticks_since_start"),

	UINT(HK_ROW, 1, struct proc_io, key.tgid, "key_tgid"),
	UINT(HK_ROW, 2, struct proc_io, key.dev, "key_dev"),
	UINT(HK_ROW, 3, struct proc_io, key.cgroup, "key_cgroup"),
	SPECIAL(HK_ROW, R_KEY_COMM, HT_BYTES, "key_comm"),
	FIELD(HK_ROW, 5, HT_NAME, HS_KEY, struct proc_io, comm_name, "comm"),
	FIELD(HK_ROW, 6, HT_NAME, HS_KEY, struct proc_io, device_name, "device"),
	FIELD(HK_ROW, 7, HT_NAME, HS_KEY, struct proc_io, cgroup_name, "cgroup"),
	FIELD(HK_ROW, 8, HT_NAME, HS_KEY, struct proc_io, serves_name, "for"),
	UINT(HK_ROW, 9, struct proc_io, tgid, "tgid"),
	ROW_COUNTER(10, PMEM_READ_BYTES, "read_bytes"),
	ROW_COUNTER(11, PMEM_WRITE_BYTES, "write_bytes"),
	ROW_COUNTER(12, PMEM_DISCARD_BYTES, "discard_bytes"),
	ROW_COUNTER(13, PMEM_READ_IOS, "read_ios"),
	ROW_COUNTER(14, PMEM_WRITE_IOS, "write_ios"),
	ROW_COUNTER(15, PMEM_DISCARD_IOS, "discard_ios"),
	ROW_COUNTER(16, PMEM_FLUSHES, "flushes"),
	ROW_COUNTER(17, PMEM_LATENCY_NS, "latency_ns"),
	ROW_COUNTER(18, PMEM_LATENCY_IOS, "latency_ios"),
	ROW_COUNTER(19, PMEM_DIRTIED_BYTES, "dirtied_bytes"),
	ROW_COUNTER(20, PMEM_WRITEBACK_BYTES, "writeback_bytes"),
	SPECIAL(HK_ROW, R_LATENCY, HT_VECTOR, "latency_slots"),
	SPECIAL(HK_ROW, R_LATENCY_INCOMPLETE, HT_UNSIGNED, "latency_incomplete"),
	SPECIAL_TOTALS(HK_ROW, R_LATENCY_TOTAL, HT_VECTOR, "latency_slots_total"),
	UINT(HK_ROW, 24, struct proc_io, owner.start_ns, "start_ns"),
	UINT(HK_ROW, 25, struct proc_io, owner.uid, "uid"),
	UINT(HK_ROW, 26, struct proc_io, owner.ioprio, "ioprio"),
	FIELD(HK_ROW, 27, HT_SIGNED, HS_SINT, struct proc_io, owner.nice, "nice"),
	UINT(HK_ROW, 28, struct proc_io, owner.flags, "owner_flags"),
	FIELD(HK_ROW, 29, HT_NAME, HS_KEY, struct proc_io, user_name, "user"),
	SPECIAL(HK_ROW, R_CMDLINE, HT_NAME, "cmdline"),
	ROW_TOTAL(40, PMEM_READ_BYTES, "read_bytes_total"),
	ROW_TOTAL(41, PMEM_WRITE_BYTES, "write_bytes_total"),
	ROW_TOTAL(42, PMEM_DISCARD_BYTES, "discard_bytes_total"),
	ROW_TOTAL(43, PMEM_READ_IOS, "read_ios_total"),
	ROW_TOTAL(44, PMEM_WRITE_IOS, "write_ios_total"),
	ROW_TOTAL(45, PMEM_DISCARD_IOS, "discard_ios_total"),
	ROW_TOTAL(46, PMEM_FLUSHES, "flushes_total"),
	ROW_TOTAL(47, PMEM_LATENCY_NS, "latency_ns_total"),
	ROW_TOTAL(48, PMEM_LATENCY_IOS, "latency_ios_total"),
	ROW_TOTAL(49, PMEM_DIRTIED_BYTES, "dirtied_bytes_total"),
	ROW_TOTAL(50, PMEM_WRITEBACK_BYTES, "writeback_bytes_total"),

	UINT(HK_CRASH, 1, struct crashfree, interval_ns, "interval_ns"),
	UINT(HK_CRASH, 2, struct crashfree, operational_intervals, "operational_intervals"),
	UINT(HK_CRASH, 3, struct crashfree, crashfree_intervals, "crashfree_intervals"),
	UINT(HK_CRASH, 4, struct crashfree, crashes, "crashes"),

	FIELD(HK_CRASH_PROCESS, 1, HT_NAME, HS_CHARS, struct crashfree_process, comm, "comm"),
	UINT(HK_CRASH_PROCESS, 2, struct crashfree_process, crashes, "crashes"),

	UINT(HK_CRASH_EVENT, 1, struct crash_event, tgid, "pid"),
	UINT(HK_CRASH_EVENT, 2, struct crash_event, time_ns, "time_ns"),
	UINT(HK_CRASH_EVENT, 3, struct crash_event, signal, "signal"),
	UINT(HK_CRASH_EVENT, 4, struct crash_event, core_dumped, "core_dumped"),
	FIELD(HK_CRASH_EVENT, 5, HT_NAME, HS_CHARS, struct crash_event, comm, "comm"),
};

const size_t history_nfields = sizeof(history_fields) / sizeof(history_fields[0]);

static const struct history_field *field_of(uint8_t kind, uint64_t id)
{
	for (size_t i = 0; i < history_nfields; i++)
		if (history_fields[i].kind == kind && history_fields[i].id == id)
			return &history_fields[i];
	return NULL;
}

/* ---- bytes ---- */

int hbuf_put(struct hbuf *b, const void *p, size_t n)
{
	if (array_reserve((void **)&b->bytes, &b->cap, b->len + n, 1))
		return -ENOMEM;
	if (n)
		memcpy(b->bytes + b->len, p, n);
	b->len += n;
	return 0;
}

int hbuf_reserve(struct hbuf *b, size_t more)
{
	return array_reserve((void **)&b->bytes, &b->cap, b->len + more, 1) ? -ENOMEM : 0;
}

int hbuf_uleb(struct hbuf *b, uint64_t v)
{
	uint8_t tmp[10];
	size_t n = 0;

	do {
		tmp[n] = v & 0x7f;
		v >>= 7;
		if (v)
			tmp[n] |= 0x80;
		n++;
	} while (v);
	return hbuf_put(b, tmp, n);
}

static int hbuf_string(struct hbuf *b, const char *s, size_t len)
{
	return hbuf_uleb(b, len) ?: hbuf_put(b, s, len);
}

void hbuf_free(struct hbuf *b)
{
	free(b->bytes);
	memset(b, 0, sizeof(*b));
}

uint64_t hcur_uleb(struct hcur *c)
{
	uint64_t v = 0;

	for (unsigned int shift = 0; shift < 64; shift += 7) {
		uint8_t byte;

		if (c->bad || c->p >= c->end)
			break;
		byte = *c->p++;
		v |= (uint64_t)(byte & 0x7f) << shift;
		if (!(byte & 0x80))
			return v;
	}
	c->bad = true;
	return 0;
}

const uint8_t *hcur_take(struct hcur *c, size_t n)
{
	const uint8_t *p = c->p;

	if (c->bad || (size_t)(c->end - c->p) < n) {
		c->bad = true;
		return NULL;
	}
	c->p += n;
	return p;
}

/* A string of at most size - 1 bytes into out; a longer one is damage. */
static void hcur_string(struct hcur *c, char *out, size_t size)
{
	uint64_t len = hcur_uleb(c);
	const uint8_t *p = len < size ? hcur_take(c, len) : NULL;

	if (!p) {
		c->bad = true;
		out[0] = '\0';
		return;
	}
	memcpy(out, p, len);
	out[len] = '\0';
}

static void put_le32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = v >> (8 * i);
}

static uint32_t get_le32(const uint8_t *p)
{
	return p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24;
}

/* ---- records ---- */

int history_record_put(struct hbuf *out, uint8_t type, const void *body, size_t len)
{
	uint8_t head[9];
	uint32_t crc = crc32(0, &type, 1);

	if (len + 1 > HISTORY_RECORD_MAX)
		return -E2BIG;
	crc = crc32(crc, body, len);
	put_le32(head, len + 1);
	put_le32(head + 4, crc);
	head[8] = type;
	return hbuf_put(out, head, sizeof(head)) ?: hbuf_put(out, body, len);
}

enum history_record_status history_record_get(const uint8_t *buf, size_t len, size_t off,
					      struct history_record *r)
{
	uint32_t n;

	if (off > len || len - off < 8)
		return HISTORY_RECORD_SHORT;
	n = get_le32(buf + off);
	if (n < 1 || n > HISTORY_RECORD_MAX)
		return HISTORY_RECORD_BAD;
	if (len - off - 8 < n)
		return HISTORY_RECORD_SHORT;
	if (crc32(0, buf + off + 8, n) != get_le32(buf + off + 4))
		return HISTORY_RECORD_BAD;
	r->type = buf[off + 8];
	r->body = buf + off + 9;
	r->body_len = n - 1;
	r->end = off + 8 + n;
	return HISTORY_RECORD_OK;
}

size_t history_next_record(const uint8_t *buf, size_t len, size_t off)
{
	struct history_record r;

	for (off++; off < len; off++)
		if (history_record_get(buf, len, off, &r) == HISTORY_RECORD_OK)
			return off;
	return len;
}

/* ---- the header ---- */

void history_header_init(struct history_header *h)
{
	memset(h, 0, sizeof(*h));
	h->version = HISTORY_VERSION;
	for (size_t i = 0; i < history_nfields; i++)
		h->schema[i] = (struct history_schema_entry){
			history_fields[i].kind, history_fields[i].id, history_fields[i].type };
	h->nschema = history_nfields;
}

int history_header_encode(const struct history_header *h, struct hbuf *out)
{
	int err = hbuf_uleb(out, h->version) ?:
		  hbuf_string(out, h->host, strlen(h->host)) ?:
		  hbuf_string(out, h->boot_id, strlen(h->boot_id)) ?:
		  hbuf_string(out, h->kernel, strlen(h->kernel)) ?:
		  hbuf_string(out, h->filter, strlen(h->filter)) ?:
		  hbuf_uleb(out, h->interval_ns) ?:
		  hbuf_uleb(out, (uint64_t)h->start_s) ?:
		  hbuf_uleb(out, h->nschema);

	for (size_t i = 0; !err && i < h->nschema; i++) {
		const struct history_field *f = field_of(h->schema[i].kind, h->schema[i].id);
		const char *name = f ? f->name : "";

		err = hbuf_uleb(out, h->schema[i].kind) ?: hbuf_uleb(out, h->schema[i].id) ?:
		      hbuf_uleb(out, h->schema[i].type) ?: hbuf_string(out, name, strlen(name));
	}
	return err;
}

int history_header_decode(const uint8_t *body, size_t len, struct history_header *h)
{
	struct hcur c = { body, body + len, false };
	uint64_t n;

	memset(h, 0, sizeof(*h));
	h->version = hcur_uleb(&c);
	hcur_string(&c, h->host, sizeof(h->host));
	hcur_string(&c, h->boot_id, sizeof(h->boot_id));
	hcur_string(&c, h->kernel, sizeof(h->kernel));
	hcur_string(&c, h->filter, sizeof(h->filter));
	h->interval_ns = hcur_uleb(&c);
	h->start_s = (int64_t)hcur_uleb(&c);
	n = hcur_uleb(&c);
	if (c.bad || h->version != HISTORY_VERSION || n > HISTORY_SCHEMA_MAX)
		return -EBADMSG;
	for (size_t i = 0; i < n; i++) {
		uint64_t kind = hcur_uleb(&c), id = hcur_uleb(&c), type = hcur_uleb(&c);
		uint64_t name_len = hcur_uleb(&c);

		hcur_take(&c, name_len);
		if (c.bad || kind > 255 || id < 1 || id > 127 || type < HT_UNSIGNED ||
		    type > HT_DOUBLE)
			return -EBADMSG;
		h->schema[i] = (struct history_schema_entry){ kind, id, type };
	}
	h->nschema = n;
	return 0;
}

static int schema_type(const struct history_header *h, uint8_t kind, uint64_t id)
{
	for (size_t i = 0; i < h->nschema; i++)
		if (h->schema[i].kind == kind && h->schema[i].id == id)
			return h->schema[i].type;
	return 0;
}

/* ---- the writer's names ---- */

static uint32_t name_hash(const char *s, size_t len)
{
	uint32_t h = 2166136261u;

	for (size_t i = 0; i < len; i++)
		h = (h ^ (uint8_t)s[i]) * 16777619u;
	return h;
}

void history_names_out_reset(struct history_names_out *n)
{
	n->bytes.len = 0;
	n->count = 0;
	if (n->slots)
		memset(n->slots, 0, n->nslots * sizeof(*n->slots));
}

void history_names_out_free(struct history_names_out *n)
{
	hbuf_free(&n->bytes);
	free(n->slots);
	free(n->offsets);
	memset(n, 0, sizeof(*n));
}

static int names_grow(struct history_names_out *n)
{
	size_t nslots = n->nslots ? n->nslots * 2 : 256;
	uint32_t *slots = calloc(nslots, sizeof(*slots));

	if (!slots)
		return -ENOMEM;
	for (size_t i = 0; i < n->count; i++) {
		const char *s = (const char *)n->bytes.bytes + n->offsets[i];
		size_t at = name_hash(s, strlen(s)) & (nslots - 1);

		while (slots[at])
			at = (at + 1) & (nslots - 1);
		slots[at] = i + 1;
	}
	free(n->slots);
	n->slots = slots;
	n->nslots = nslots;
	return array_reserve((void **)&n->offsets, &n->offsets_cap, nslots / 2,
			     sizeof(*n->offsets)) ? -ENOMEM : 0;
}

/* The index of s[0..len) (cut at a NUL) in the chunk's names; a new one is
 * defined in out first.  0 for the empty name, or on failure (*err). */
static uint32_t name_index(struct history_names_out *n, const char *s, size_t len,
			   struct hbuf *out, int *err)
{
	size_t at;

	len = strnlen(s, len);
	if (!len)
		return 0;
	if (n->count + 1 > n->nslots / 2 && (*err = names_grow(n)))
		return 0;
	for (at = name_hash(s, len) & (n->nslots - 1); n->slots[at];
	     at = (at + 1) & (n->nslots - 1)) {
		const char *have = (const char *)n->bytes.bytes + n->offsets[n->slots[at] - 1];

		if (!strncmp(have, s, len) && have[len] == '\0')
			return n->slots[at];
	}
	n->offsets[n->count] = n->bytes.len;
	if ((*err = hbuf_put(&n->bytes, s, len)) || (*err = hbuf_put(&n->bytes, "", 1)) ||
	    (*err = hbuf_uleb(out, HK_NAME)) || (*err = hbuf_string(out, s, len)))
		return 0;
	n->slots[at] = ++n->count;
	return n->count;
}

/* ---- frames, written ---- */

struct encoder {
	const struct frame *f;
	struct history_names_out *names;
	struct hbuf *out;		/* the frame: names, then objects */
	struct hbuf obj;		/* the object being written */
	int err;
};

static uint64_t read_uint(const void *p, size_t size)
{
	switch (size) {
	case 1: return *(const uint8_t *)p;
	case 2: return *(const uint16_t *)p;
	case 4: return *(const uint32_t *)p;
	default: return *(const uint64_t *)p;
	}
}

static int64_t read_sint(const void *p, size_t size)
{
	switch (size) {
	case 1: return *(const int8_t *)p;
	case 2: return *(const int16_t *)p;
	case 4: return *(const int32_t *)p;
	default: return *(const int64_t *)p;
	}
}

static void put_field(struct encoder *e, uint8_t id, uint64_t v)
{
	if (!e->err)
		e->err = hbuf_uleb(&e->obj, id) ?: hbuf_uleb(&e->obj, v);
}

/* A double as its 8 bytes, little-endian; 0.0 is left out. */
static void put_double(struct encoder *e, uint8_t id, double v)
{
	uint8_t le[8];
	uint64_t bits;

	memcpy(&bits, &v, sizeof(bits));
	if (!bits || e->err)
		return;
	for (int i = 0; i < 8; i++)
		le[i] = bits >> (8 * i);
	e->err = hbuf_uleb(&e->obj, id) ?: hbuf_put(&e->obj, le, 8);
}

static void put_name(struct encoder *e, uint8_t id, const char *s, size_t len)
{
	uint32_t index = e->err ? 0 : name_index(e->names, s, len, e->out, &e->err);

	if (index)
		put_field(e, id, index);
}

static void put_vector(struct encoder *e, uint8_t id, const uint64_t *v, size_t n, size_t step,
		       bool always)
{
	while (n && !v[(n - 1) * step])
		n--;
	if ((!n && !always) || e->err)
		return;
	e->err = hbuf_uleb(&e->obj, id) ?: hbuf_uleb(&e->obj, n);
	for (size_t i = 0; i < n && !e->err; i++)
		e->err = hbuf_uleb(&e->obj, v[i * step]);
}

static void begin_object(struct encoder *e, uint8_t kind)
{
	e->obj.len = 0;
	if (!e->err)
		e->err = hbuf_uleb(&e->obj, kind);
}

/* The table's fields of kind in base, those not 0. */
static void put_fields(struct encoder *e, uint8_t kind, const void *base)
{
	for (size_t i = 0; i < history_nfields; i++) {
		const struct history_field *fd = &history_fields[i];
		const char *p = (const char *)base + fd->offset;
		uint32_t len;
		const char *s;
		int64_t sv;

		if (fd->kind != kind || (fd->totals && !e->f->cumulative))
			continue;
		switch (fd->storage) {
		case HS_INT:
			if (read_uint(p, fd->size))
				put_field(e, fd->id, read_uint(p, fd->size));
			break;
		case HS_SINT:
			sv = read_sint(p, fd->size);
			if (sv)
				put_field(e, fd->id, ((uint64_t)sv << 1) ^ (uint64_t)(sv >> 63));
			break;
		case HS_BOOL:
			if (*(const bool *)p)
				put_field(e, fd->id, 1);
			break;
		case HS_COUNTER:
			if (((const struct pmem_counter *)p)->delta)
				put_field(e, fd->id, ((const struct pmem_counter *)p)->delta);
			break;
		case HS_COUNTER_TOTAL:
			if (((const struct pmem_counter *)p)->total)
				put_field(e, fd->id, ((const struct pmem_counter *)p)->total);
			break;
		case HS_KEY:
			if (*(const res_key *)p) {
				s = res_name(e->f->names, *(const res_key *)p, &len);
				put_name(e, fd->id, s, len);
			}
			break;
		case HS_CHARS:
			put_name(e, fd->id, p, fd->size);
			break;
		case HS_DOUBLE:
			put_double(e, fd->id, *(const double *)p);
			break;
		case HS_SPECIAL:
			break;
		}
	}
}

static void end_object(struct encoder *e)
{
	if (!e->err)
		e->err = hbuf_uleb(&e->obj, 0) ?: hbuf_put(e->out, e->obj.bytes, e->obj.len);
}

static void encode_device(struct encoder *e, const struct pmem_device *d, bool aggregate)
{
	begin_object(e, HK_DEVICE);
	if (!aggregate)
		put_name(e, D_NAME, d->name, sizeof(d->name));
	else
		put_field(e, D_AGGREGATE, 1);
	put_fields(e, HK_DEVICE, d);
	for (unsigned int op = 0; op < IO_NR_CLASSES; op++) {
		put_vector(e, D_SLOTS + op, &d->latency_slots[op][0].delta, LATENCY_SLOTS,
			   sizeof(struct pmem_counter) / sizeof(uint64_t), false);
		if (e->f->cumulative)
			put_vector(e, D_SLOTS_TOTAL + op, &d->latency_slots[op][0].total,
				   LATENCY_SLOTS, sizeof(struct pmem_counter) / sizeof(uint64_t),
				   false);
	}
	end_object(e);
}

static void encode_row(struct encoder *e, const struct proc_io *row)
{
	begin_object(e, HK_ROW);
	put_fields(e, HK_ROW, row);
	if (!e->err && strnlen(row->key.comm, TASK_COMM_LEN)) {
		size_t n = TASK_COMM_LEN;

		while (n && !row->key.comm[n - 1])
			n--;
		e->err = hbuf_uleb(&e->obj, R_KEY_COMM) ?: hbuf_string(&e->obj, row->key.comm, n);
	}
	if (row->latency) {
		put_vector(e, R_LATENCY, row->latency->delta.slots, LATENCY_SLOTS, 1, true);
		if (e->f->cumulative)
			put_vector(e, R_LATENCY_TOTAL, row->latency->total.slots, LATENCY_SLOTS, 1,
				   false);
		if (row->latency->incomplete)
			put_field(e, R_LATENCY_INCOMPLETE, 1);
	}
	if (row->cmdline)
		put_name(e, R_CMDLINE, row->cmdline, strlen(row->cmdline));
	end_object(e);
}

int history_frame_encode(const struct frame *f, struct history_names_out *names,
			 struct hbuf *out)
{
	struct encoder e = { .f = f, .names = names, .out = out };

	begin_object(&e, HK_FRAME);
	put_fields(&e, HK_FRAME, f);
	{
		/* In the order causes are shown, which only ever grows at its end:
		 * the record's order does not follow the enum's. */
		uint64_t lost[LOST_NR_CAUSES];

		for (int i = 0; i < LOST_NR_CAUSES; i++)
			lost[i] = f->lost[lost_shown[i]];
		put_vector(&e, F_LOST, lost, LOST_NR_CAUSES, 1, false);
	}
	end_object(&e);
	if (f->devices) {
		for (size_t i = 0; i < f->devices->count; i++)
			encode_device(&e, &f->devices->devices[i], false);
		encode_device(&e, &f->devices->aggregate, true);
	}
	for (size_t i = 0; i < f->nrows; i++)
		encode_row(&e, f->rows[i]);
	if (f->crash) {
		begin_object(&e, HK_CRASH);
		put_fields(&e, HK_CRASH, f->crash);
		end_object(&e);
		for (size_t i = 0; i < f->crash->nprocesses; i++) {
			begin_object(&e, HK_CRASH_PROCESS);
			put_fields(&e, HK_CRASH_PROCESS, &f->crash->by_process[i]);
			end_object(&e);
		}
	}
	for (size_t i = 0; i < f->ncrash_events; i++) {
		begin_object(&e, HK_CRASH_EVENT);
		put_fields(&e, HK_CRASH_EVENT, &f->crash_events[i]);
		end_object(&e);
	}
	if (!e.err)
		e.err = hbuf_uleb(out, HK_END);
	hbuf_free(&e.obj);
	return e.err;
}

/* ---- frames, read ---- */

#define HISTORY_ROWS_MAX	65536
#define HISTORY_DEVICES_MAX	4096
#define HISTORY_EVENTS_MAX	4096
#define NAMES_TABLE_SIZE	(4u << 20)
#define NAMES_TABLE_BUCKETS	16384

int history_frame_init(struct history_frame *hf)
{
	memset(hf, 0, sizeof(*hf));
	hf->table_buf = malloc(NAMES_TABLE_SIZE);
	if (!hf->table_buf ||
	    res_table_init(&hf->table, hf->table_buf, NAMES_TABLE_SIZE, NAMES_TABLE_BUCKETS)) {
		free(hf->table_buf);
		hf->table_buf = NULL;
		return -ENOMEM;
	}
	pmem_init(&hf->devices);
	return 0;
}

void history_frame_free(struct history_frame *hf)
{
	free(hf->rows);
	free(hf->row_ptrs);
	free(hf->latency);
	free(hf->cmdline_index);
	pmem_free(&hf->devices);
	free(hf->crash.by_process);
	free(hf->events);
	hbuf_free(&hf->name_bytes);
	free(hf->name_offsets);
	free(hf->name_lens);
	free(hf->table_buf);
	memset(hf, 0, sizeof(*hf));
}

void history_frame_new_chunk(struct history_frame *hf)
{
	hf->name_bytes.len = 0;
	hf->nnames = 0;
}

struct decoder {
	struct history_frame *hf;
	const struct history_header *h;
	struct hcur c;
	bool has_crash;
	bool aggregate;		/* the device being read is the total */
};

/* The chunk's name of index (1-based), or NULL (damage). */
static const char *chunk_name(struct decoder *d, uint64_t index, uint32_t *len)
{
	if (!index || index > d->hf->nnames) {
		d->c.bad = true;
		return NULL;
	}
	*len = d->hf->name_lens[index - 1];
	return (const char *)d->hf->name_bytes.bytes + d->hf->name_offsets[index - 1];
}

static void add_name(struct decoder *d)
{
	struct history_frame *hf = d->hf;
	uint64_t len = hcur_uleb(&d->c);
	const uint8_t *p = len <= HISTORY_RECORD_MAX ? hcur_take(&d->c, len) : NULL;

	if (!p || hf->nnames >= HISTORY_NAMES_MAX || memchr(p, '\0', len) ||
	    hf->name_bytes.len + len + 1 > HISTORY_FRAME_MAX) {
		d->c.bad = true;
		return;
	}
	if (array_reserve((void **)&hf->name_offsets, &hf->names_cap, hf->nnames + 1,
			  sizeof(*hf->name_offsets))) {
		d->c.bad = true;
		return;
	}
	/* name_lens grows with name_offsets: same count, same capacity. */
	{
		uint32_t *lens = realloc(hf->name_lens, hf->names_cap * sizeof(*lens));

		if (!lens) {
			d->c.bad = true;
			return;
		}
		hf->name_lens = lens;
	}
	hf->name_offsets[hf->nnames] = hf->name_bytes.len;
	hf->name_lens[hf->nnames] = len;
	if (hbuf_put(&hf->name_bytes, p, len) || hbuf_put(&hf->name_bytes, "", 1)) {
		d->c.bad = true;
		return;
	}
	hf->nnames++;
}

static void write_uint(void *p, size_t size, uint64_t v)
{
	switch (size) {
	case 1: *(uint8_t *)p = v; break;
	case 2: *(uint16_t *)p = v; break;
	case 4: *(uint32_t *)p = v; break;
	default: *(uint64_t *)p = v; break;
	}
}

/* A field of the table into base. */
static void take_field(struct decoder *d, const struct history_field *fd, void *base)
{
	char *p = (char *)base + fd->offset;
	const uint8_t *bytes;
	const char *s;
	uint32_t len;
	res_key key;
	uint64_t v;

	if (fd->storage == HS_DOUBLE) {
		if ((bytes = hcur_take(&d->c, 8))) {
			v = 0;
			for (int i = 0; i < 8; i++)
				v |= (uint64_t)bytes[i] << (8 * i);
			memcpy(p, &v, sizeof(double));
		}
		return;
	}
	v = hcur_uleb(&d->c);

	switch (fd->storage) {
	case HS_INT:
		write_uint(p, fd->size, v);
		break;
	case HS_SINT:
		write_uint(p, fd->size, (v >> 1) ^ -(v & 1));
		break;
	case HS_BOOL:
		*(bool *)p = v != 0;
		break;
	case HS_COUNTER:
		((struct pmem_counter *)p)->delta = v;
		break;
	case HS_COUNTER_TOTAL:
		((struct pmem_counter *)p)->total = v;
		break;
	case HS_KEY:
		s = chunk_name(d, v, &len);
		if (!s)
			break;
		if (res_intern(&d->hf->table, s, len, &key)) {
			d->hf->table_full = true;
			key = 0;
		}
		*(res_key *)p = key;
		break;
	case HS_CHARS:
		s = chunk_name(d, v, &len);
		if (s)
			snprintf(p, fd->size, "%s", s);
		break;
	}
}

/* A value of the given wire type, passed over. */
static void skip_value(struct decoder *d, int type)
{
	uint64_t n;

	switch (type) {
	case HT_UNSIGNED: case HT_SIGNED: case HT_NAME:
		hcur_uleb(&d->c);
		break;
	case HT_BYTES:
		hcur_take(&d->c, hcur_uleb(&d->c));
		break;
	case HT_VECTOR:
		n = hcur_uleb(&d->c);
		for (uint64_t i = 0; i < n && !d->c.bad; i++)
			hcur_uleb(&d->c);
		break;
	case HT_DOUBLE:
		hcur_take(&d->c, 8);
		break;
	default:
		d->c.bad = true;
	}
}

/* A vector into v[0..max) (every step-th uint64_t), the rest 0. */
static void take_vector(struct decoder *d, uint64_t *v, size_t max, size_t step)
{
	uint64_t n = hcur_uleb(&d->c);

	if (n > max) {
		d->c.bad = true;
		return;
	}
	for (size_t i = 0; i < max; i++)
		v[i * step] = i < n ? hcur_uleb(&d->c) : 0;
}

/* The fields of an object of kind into base, up to id 0; special ones go
 * to special(d, id, base, arg).  false on damage. */
static bool take_object(struct decoder *d, uint8_t kind, void *base,
			void (*special)(struct decoder *, uint64_t, void *))
{
	for (;;) {
		uint64_t id = hcur_uleb(&d->c);
		const struct history_field *fd;
		int type;

		if (d->c.bad)
			return false;
		if (!id)
			return true;
		type = schema_type(d->h, kind, id);
		if (!type) {
			d->c.bad = true;	/* a field the header did not declare */
			return false;
		}
		fd = field_of(kind, id);
		if (!fd || fd->type != type || !base ||
		    (fd->storage == HS_SPECIAL && !special))
			skip_value(d, type);
		else if (fd->storage == HS_SPECIAL)
			special(d, id, base);
		else
			take_field(d, fd, base);
	}
}

static void frame_special(struct decoder *d, uint64_t id, void *base)
{
	struct frame *f = base;
	uint64_t lost[LOST_NR_CAUSES];

	(void)id;	/* F_LOST, the one special field of a frame */
	take_vector(d, lost, LOST_NR_CAUSES, 1);
	for (int i = 0; i < LOST_NR_CAUSES; i++)
		f->lost[lost_shown[i]] = lost[i];
}

static void device_special(struct decoder *d, uint64_t id, void *base)
{
	struct pmem_device *dev = base;
	const char *s;
	uint32_t len;

	if (id == D_NAME) {
		s = chunk_name(d, hcur_uleb(&d->c), &len);
		if (s)
			snprintf(dev->name, sizeof(dev->name), "%s", s);
	} else if (id == D_AGGREGATE) {
		d->aggregate = hcur_uleb(&d->c) != 0;
	} else if (id >= D_SLOTS_TOTAL) {
		take_vector(d, &dev->latency_slots[id - D_SLOTS_TOTAL][0].total, LATENCY_SLOTS,
			    sizeof(struct pmem_counter) / sizeof(uint64_t));
	} else {
		take_vector(d, &dev->latency_slots[id - D_SLOTS][0].delta, LATENCY_SLOTS,
			    sizeof(struct pmem_counter) / sizeof(uint64_t));
	}
}

static void totals_are_changes(struct pmem_device *dev)
{
	for (int c = 0; c < PMEM_NR_COUNTERS; c++)
		dev->counter[c].total = dev->counter[c].delta;
	for (unsigned int op = 0; op < IO_NR_CLASSES; op++) {
		dev->op_latency_ns[op].total = dev->op_latency_ns[op].delta;
		dev->op_latency_ios[op].total = dev->op_latency_ios[op].delta;
		for (unsigned int k = 0; k < LATENCY_SLOTS; k++)
			dev->latency_slots[op][k].total = dev->latency_slots[op][k].delta;
	}
	dev->latency_samples_dropped.total = dev->latency_samples_dropped.delta;
}

static void take_device(struct decoder *d)
{
	struct history_frame *hf = d->hf;
	struct pmem_device dev = { 0 };

	d->aggregate = false;
	if (!take_object(d, HK_DEVICE, &dev, device_special))
		return;
	/* A frame of changes shows them as its totals too; a frame of totals
	 * (-a) came with its own. */
	if (!hf->frame.cumulative)
		totals_are_changes(&dev);
	for (int c = 0; c < PMEM_NR_COUNTERS; c++)
		dev.counter[c].at_flush = dev.counter[c].total - dev.counter[c].delta;
	if (dev.has_iostat) {
		iostat_x_of_change(&dev.iostat_change, &dev.iostat[0]);
		if (hf->frame.cumulative)
			iostat_x_of_change(&dev.iostat_change_start, &dev.iostat[1]);
		else
			dev.iostat[1] = dev.iostat[0];
	}
	if (d->aggregate) {
		snprintf(dev.name, sizeof(dev.name), "total");
		hf->devices.aggregate = dev;
		return;
	}
	if (hf->devices.count >= HISTORY_DEVICES_MAX ||
	    array_reserve((void **)&hf->devices.devices, &hf->devices.capacity,
			  hf->devices.count + 1, sizeof(dev))) {
		d->c.bad = true;
		return;
	}
	hf->devices.devices[hf->devices.count++] = dev;
}

static void row_special(struct decoder *d, uint64_t id, void *base)
{
	struct proc_io *row = base;
	struct history_frame *hf = d->hf;
	size_t index = row - hf->rows;
	const uint8_t *p;
	uint64_t n;
	uint32_t len;

	switch (id) {
	case R_KEY_COMM:
		n = hcur_uleb(&d->c);
		p = n <= TASK_COMM_LEN ? hcur_take(&d->c, n) : NULL;
		if (p)
			memcpy(row->key.comm, p, n);
		else
			d->c.bad = true;
		break;
	case R_LATENCY:
		/* The latency goes with the row: its index, fixed up at the end. */
		row->latency = (struct row_latency *)(uintptr_t)1;
		take_vector(d, hf->latency[index].delta.slots, LATENCY_SLOTS, 1);
		break;
	case R_LATENCY_TOTAL:
		take_vector(d, hf->latency[index].total.slots, LATENCY_SLOTS, 1);
		break;
	case R_LATENCY_INCOMPLETE:
		hf->latency[index].incomplete = hcur_uleb(&d->c) != 0;
		break;
	case R_CMDLINE:
		n = hcur_uleb(&d->c);
		if (chunk_name(d, n, &len))
			hf->cmdline_index[index] = n;
		break;
	}
}

static void take_row(struct decoder *d)
{
	struct history_frame *hf = d->hf;
	size_t n = hf->nrows;
	struct proc_io *row;

	if (n >= HISTORY_ROWS_MAX ||
	    array_reserve((void **)&hf->rows, &hf->rows_cap, n + 1, sizeof(*hf->rows)) ||
	    array_reserve((void **)&hf->latency, &hf->latency_cap, n + 1, sizeof(*hf->latency)) ||
	    array_reserve((void **)&hf->cmdline_index, &hf->cmdline_cap, n + 1,
			  sizeof(*hf->cmdline_index))) {
		d->c.bad = true;
		return;
	}
	row = &hf->rows[n];
	memset(row, 0, sizeof(*row));
	memset(&hf->latency[n], 0, sizeof(hf->latency[n]));
	hf->cmdline_index[n] = 0;
	if (!take_object(d, HK_ROW, row, row_special))
		return;
	if (!hf->frame.cumulative) {
		memcpy(row->total, row->delta, sizeof(row->total));
		hf->latency[n].total = hf->latency[n].delta;
	}
	hf->nrows++;
}

static void take_listed(struct decoder *d, uint8_t kind)
{
	struct history_frame *hf = d->hf;
	struct crashfree *cf = &hf->crash;

	if (kind == HK_CRASH) {
		d->has_crash = take_object(d, kind, cf, NULL);
	} else if (kind == HK_CRASH_PROCESS) {
		if (cf->nprocesses >= HISTORY_EVENTS_MAX ||
		    array_reserve((void **)&cf->by_process, &cf->capacity, cf->nprocesses + 1,
				  sizeof(*cf->by_process))) {
			d->c.bad = true;
			return;
		}
		memset(&cf->by_process[cf->nprocesses], 0, sizeof(*cf->by_process));
		if (take_object(d, kind, &cf->by_process[cf->nprocesses], NULL))
			cf->nprocesses++;
	} else {
		if (hf->nevents >= HISTORY_EVENTS_MAX ||
		    array_reserve((void **)&hf->events, &hf->events_cap, hf->nevents + 1,
				  sizeof(*hf->events))) {
			d->c.bad = true;
			return;
		}
		memset(&hf->events[hf->nevents], 0, sizeof(*hf->events));
		if (take_object(d, kind, &hf->events[hf->nevents], NULL))
			hf->nevents++;
	}
}

/* Pointers into hf's arrays, now that they stopped moving. */
static int finish_frame(struct decoder *d)
{
	struct history_frame *hf = d->hf;
	struct frame *f = &hf->frame;

	if (array_reserve((void **)&hf->row_ptrs, &hf->ptrs_cap, hf->nrows,
			  sizeof(*hf->row_ptrs)))
		return -ENOMEM;
	for (size_t i = 0; i < hf->nrows; i++) {
		struct proc_io *row = &hf->rows[i];
		uint32_t len;

		hf->row_ptrs[i] = row;
		if (row->latency)
			row->latency = &hf->latency[i];
		row->cmdline = hf->cmdline_index[i] ?
			       (char *)chunk_name(d, hf->cmdline_index[i], &len) : NULL;
	}
	f->rows = hf->row_ptrs;
	f->nrows = hf->nrows;
	f->names = &hf->table;
	f->devices = &hf->devices;
	f->crash = d->has_crash ? &hf->crash : NULL;
	f->crash_events = hf->events;
	f->ncrash_events = hf->nevents;
	f->idle_rows = NULL;
	f->nidle_rows = 0;
	return 0;
}

int history_frame_decode(struct history_frame *hf, const struct history_header *h,
			 const uint8_t *bytes, size_t len)
{
	struct decoder d = { .hf = hf, .h = h, .c = { bytes, bytes + len, false } };
	bool frame_seen = false;

	memset(&hf->frame, 0, sizeof(hf->frame));
	hf->nrows = 0;
	hf->devices.count = 0;
	memset(&hf->devices.aggregate, 0, sizeof(hf->devices.aggregate));
	snprintf(hf->devices.aggregate.name, sizeof(hf->devices.aggregate.name), "total");
	hf->crash.nprocesses = 0;
	hf->nevents = 0;
	while (!d.c.bad) {
		uint64_t kind = hcur_uleb(&d.c);

		if (d.c.bad)
			break;
		if (kind == HK_END)
			return d.c.p == d.c.end && frame_seen ? finish_frame(&d) : -EBADMSG;
		switch (kind) {
		case HK_NAME:
			add_name(&d);
			break;
		case HK_FRAME:
			frame_seen = take_object(&d, HK_FRAME, &hf->frame, frame_special);
			break;
		case HK_DEVICE:
			take_device(&d);
			break;
		case HK_ROW:
			take_row(&d);
			break;
		case HK_CRASH: case HK_CRASH_PROCESS: case HK_CRASH_EVENT:
			take_listed(&d, kind);
			break;
		default:
			/* A kind of a later version: its fields, by the header's types. */
			take_object(&d, kind > 255 ? 255 : kind, NULL, NULL);
		}
	}
	return -EBADMSG;
}
