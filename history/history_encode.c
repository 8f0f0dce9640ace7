// SPDX-License-Identifier: GPL-2.0
/* A frame as the objects of a record (history_format.h, doc/record-format.md):
 * the chunk's names, each written once, and each object's fields by the
 * schema's table. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "array.h"
#include "history_format.h"

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
	const struct stack_namer *stacks;
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
		put_name(e, HF_DEVICE_NAME, d->name, sizeof(d->name));
	else
		put_field(e, HF_DEVICE_TOTAL, 1);
	put_fields(e, HK_DEVICE, d);
	for (unsigned int op = 0; op < IO_NR_CLASSES; op++) {
		put_vector(e, HF_DEVICE_SLOTS + op, &d->latency_slots[op][0].delta, LATENCY_SLOTS,
			   sizeof(struct pmem_counter) / sizeof(uint64_t), false);
		if (e->f->cumulative)
			put_vector(e, HF_DEVICE_SLOTS_TOTAL + op, &d->latency_slots[op][0].total,
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
		e->err = hbuf_uleb(&e->obj, HF_ROW_KEY_COMM) ?: hbuf_string(&e->obj, row->key.comm, n);
	}
	if (row->latency) {
		put_vector(e, HF_ROW_LATENCY, row->latency->delta.slots, LATENCY_SLOTS, 1, true);
		if (e->f->cumulative)
			put_vector(e, HF_ROW_LATENCY_TOTAL, row->latency->total.slots, LATENCY_SLOTS, 1,
				   false);
		if (row->latency->incomplete)
			put_field(e, HF_ROW_LATENCY_INCOMPLETE, 1);
	}
	if (row->cmdline)
		put_name(e, HF_ROW_CMDLINE, row->cmdline, strlen(row->cmdline));
	end_object(e);
}

/* A side of a stack as the chunk's names: each frame's, and for a user
 * frame why it has none (0: it has a name). */
struct stack_names {
	struct encoder *e;
	uint64_t frames[STACK_MAX_FRAMES + 2], unknown[STACK_MAX_FRAMES + 2];
	size_t n;
};

static void add_stack_name(const char *name, const char *unknown, void *arg)
{
	struct stack_names *sn = arg;
	struct encoder *e = sn->e;

	if (sn->n >= sizeof(sn->frames) / sizeof(sn->frames[0]) || e->err)
		return;
	sn->frames[sn->n] = name_index(e->names, name, strlen(name), e->out, &e->err);
	sn->unknown[sn->n++] = unknown && !e->err ?
			       name_index(e->names, unknown, strlen(unknown), e->out, &e->err) : 0;
}

static void encode_stack_side(struct encoder *e, const struct row_stack *s, bool user)
{
	struct stack_names sn = { .e = e };

	if ((user ? s->user.state : s->kernel.state) != STACK_KEPT)
		return;
	stack_for_each_kept(e->stacks, s, user, add_stack_name, &sn);
	/* every frame, an empty name's 0 at the end too (put_vector() would
	 * leave it out as a value of 0) */
	if (!e->err)
		e->err = hbuf_uleb(&e->obj, user ? HF_STACK_USER : HF_STACK_KERNEL) ?:
			 hbuf_uleb(&e->obj, sn.n);
	for (size_t i = 0; i < sn.n && !e->err; i++)
		e->err = hbuf_uleb(&e->obj, sn.frames[i]);
	if (user)
		put_vector(e, HF_STACK_USER_UNKNOWN, sn.unknown, sn.n, 1, false);
}

/* The row's top stacks, as the run showed them, after it. */
static void encode_stacks(struct encoder *e, const struct proc_io *row)
{
	for (uint32_t i = 0; i < row->nstacks; i++) {
		const struct row_stack *s = row->stacks[i];

		begin_object(e, HK_STACK);
		if (s->kernel.state)
			put_field(e, HF_STACK_KERNEL_STATE, s->kernel.state);
		if (s->user.state)
			put_field(e, HF_STACK_USER_STATE, s->user.state);
		encode_stack_side(e, s, false);
		encode_stack_side(e, s, true);
		put_vector(e, HF_STACK_COUNTS, s->delta, STACK_NR_COUNTERS, 1, false);
		if (e->f->cumulative)
			put_vector(e, HF_STACK_COUNTS_TOTAL, s->total, STACK_NR_COUNTERS, 1, false);
		end_object(e);
	}
}

int history_frame_encode(const struct frame *f, const struct stack_namer *stacks,
			 struct history_names_out *names, struct hbuf *out)
{
	struct encoder e = { .f = f, .stacks = stacks, .names = names, .out = out };

	begin_object(&e, HK_FRAME);
	put_fields(&e, HK_FRAME, f);
	if (stacks) {
		put_field(&e, HF_FRAME_STACKS_ON, 1);
		/* as the view, which named the frames before, showed it */
		if (stacks->frames_recovered && stacks->frames_recovered(stacks->ctx))
			put_field(&e, HF_FRAME_FRAMES_RECOVERED,
				  stacks->frames_recovered(stacks->ctx));
		if (stacks->frames_unknown && stacks->frames_unknown(stacks->ctx))
			put_field(&e, HF_FRAME_FRAMES_UNKNOWN, stacks->frames_unknown(stacks->ctx));
	}
	{
		/* In the order causes are shown, which only ever grows at its end:
		 * the record's order does not follow the enum's. */
		uint64_t lost[LOST_NR_CAUSES];

		for (int i = 0; i < LOST_NR_CAUSES; i++)
			lost[i] = f->lost[lost_shown[i]];
		put_vector(&e, HF_FRAME_LOST, lost, LOST_NR_CAUSES, 1, false);
	}
	end_object(&e);
	if (f->devices) {
		for (size_t i = 0; i < f->devices->count; i++)
			encode_device(&e, &f->devices->devices[i], false);
		encode_device(&e, &f->devices->aggregate, true);
	}
	for (size_t i = 0; i < f->nrows; i++) {
		encode_row(&e, f->rows[i]);
		if (stacks)
			encode_stacks(&e, f->rows[i]);
	}
	for (size_t i = 0; i < f->nfiles; i++) {
		begin_object(&e, HK_FILE);
		put_fields(&e, HK_FILE, &f->files[i]);
		if (f->files[i].path)
			put_name(&e, HF_FILE_PATH, f->files[i].path, strlen(f->files[i].path));
		end_object(&e);
	}
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
