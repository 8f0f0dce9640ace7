// SPDX-License-Identifier: GPL-2.0
/* A frame's objects read back into a frame of the reader's own memory
 * (history_format.h), bounded whatever they hold. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "array.h"
#include "history_format.h"

/* ---- frames, read ---- */

#define HISTORY_ROWS_MAX	65536
#define HISTORY_DEVICES_MAX	4096
#define HISTORY_EVENTS_MAX	4096
#define NAMES_TABLE_SIZE	(4u << 20)
#define NAMES_TABLE_BUCKETS	16384
#define STACK_TABLE_SIZE	(4u << 20)
#define STACK_TABLE_BUCKETS	4096
/* A side of a recorded stack: the kernel's frames and one the namer found. */
#define STACK_FRAMES_KEPT	(STACK_MAX_FRAMES + 1)

/* The chunk's name of index, "" for 0 (or a damaged one). */
static const char *frame_name(const struct history_frame *hf, uint64_t index)
{
	if (!index || index > hf->nnames)
		return "";
	return (const char *)hf->name_bytes.bytes + hf->name_offsets[index - 1];
}

static char *recorded_kernel_name(void *ctx, uint64_t addr, char *buf, size_t size)
{
	snprintf(buf, size, "%s", frame_name(ctx, addr));
	return buf;
}

/* A user frame's "address" is its name's index, and in its high 32 bits
 * the index of why it has none. */
static char *recorded_user_name(void *ctx, const struct user_frame *frame, char *buf,
				size_t size, const char **unknown)
{
	uint64_t why = frame->addr >> 32;

	*unknown = why ? frame_name(ctx, why) : NULL;
	snprintf(buf, size, "%s", frame_name(ctx, frame->addr & 0xffffffffu));
	return buf;
}

static uint64_t recorded_frames_recovered(void *ctx)
{
	return ((const struct history_frame *)ctx)->frames_recovered;
}

static uint64_t recorded_frames_unknown(void *ctx)
{
	return ((const struct history_frame *)ctx)->frames_unknown;
}

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
	hf->namer = (struct stack_namer){
		.table = &hf->stack_table,
		.kernel = recorded_kernel_name,
		.user = recorded_user_name,
		.frames_recovered = recorded_frames_recovered,
		.frames_unknown = recorded_frames_unknown,
		.ctx = hf,
	};
	return 0;
}

void history_frame_free(struct history_frame *hf)
{
	free(hf->rows);
	free(hf->row_ptrs);
	free(hf->latency);
	free(hf->cmdline_index);
	free(hf->files);
	free(hf->path_index);
	free(hf->stacks);
	free(hf->stack_ptrs);
	free(hf->stack_table_buf);
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
	/* the STACK object being read: its sides' frames (name indices) */
	uint64_t frames[2][STACK_FRAMES_KEPT], unknown[STACK_FRAMES_KEPT];
	size_t nframes[2], nunknown;
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
		type = history_schema_type(d->h, kind, id);
		if (!type) {
			d->c.bad = true;	/* a field the header did not declare */
			return false;
		}
		fd = history_field_of(kind, id);
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

	if (id == HF_FRAME_STACKS_ON) {
		d->hf->stacks_on = hcur_uleb(&d->c) != 0;
		return;
	}
	if (id == HF_FRAME_FRAMES_RECOVERED) {
		d->hf->frames_recovered = hcur_uleb(&d->c);
		return;
	}
	if (id == HF_FRAME_FRAMES_UNKNOWN) {
		d->hf->frames_unknown = hcur_uleb(&d->c);
		return;
	}
	take_vector(d, lost, LOST_NR_CAUSES, 1);
	for (int i = 0; i < LOST_NR_CAUSES; i++)
		f->lost[lost_shown[i]] = lost[i];
}

static void device_special(struct decoder *d, uint64_t id, void *base)
{
	struct pmem_device *dev = base;
	const char *s;
	uint32_t len;

	if (id == HF_DEVICE_NAME) {
		s = chunk_name(d, hcur_uleb(&d->c), &len);
		if (s)
			snprintf(dev->name, sizeof(dev->name), "%s", s);
	} else if (id == HF_DEVICE_TOTAL) {
		d->aggregate = hcur_uleb(&d->c) != 0;
	} else if (id >= HF_DEVICE_SLOTS_TOTAL) {
		take_vector(d, &dev->latency_slots[id - HF_DEVICE_SLOTS_TOTAL][0].total, LATENCY_SLOTS,
			    sizeof(struct pmem_counter) / sizeof(uint64_t));
	} else {
		take_vector(d, &dev->latency_slots[id - HF_DEVICE_SLOTS][0].delta, LATENCY_SLOTS,
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
	case HF_ROW_KEY_COMM:
		n = hcur_uleb(&d->c);
		p = n <= TASK_COMM_LEN ? hcur_take(&d->c, n) : NULL;
		if (p)
			memcpy(row->key.comm, p, n);
		else
			d->c.bad = true;
		break;
	case HF_ROW_LATENCY:
		/* The latency goes with the row: its index, fixed up at the end. */
		row->latency = (struct row_latency *)(uintptr_t)1;
		take_vector(d, hf->latency[index].delta.slots, LATENCY_SLOTS, 1);
		break;
	case HF_ROW_LATENCY_TOTAL:
		take_vector(d, hf->latency[index].total.slots, LATENCY_SLOTS, 1);
		break;
	case HF_ROW_LATENCY_INCOMPLETE:
		hf->latency[index].incomplete = hcur_uleb(&d->c) != 0;
		break;
	case HF_ROW_CMDLINE:
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

static void file_special(struct decoder *d, uint64_t id, void *base)
{
	struct history_frame *hf = d->hf;
	uint64_t n = hcur_uleb(&d->c);
	uint32_t len;

	(void)id;	/* HF_FILE_PATH, the one special field of a file line */
	if (chunk_name(d, n, &len))
		hf->path_index[(struct file_row *)base - hf->files] = n;
}

static void take_file(struct decoder *d)
{
	struct history_frame *hf = d->hf;
	size_t n = hf->nfiles;

	if (n >= HISTORY_ROWS_MAX ||
	    array_reserve((void **)&hf->files, &hf->files_cap, n + 1, sizeof(*hf->files)) ||
	    array_reserve((void **)&hf->path_index, &hf->path_cap, n + 1,
			  sizeof(*hf->path_index))) {
		d->c.bad = true;
		return;
	}
	memset(&hf->files[n], 0, sizeof(hf->files[n]));
	hf->path_index[n] = 0;
	if (take_object(d, HK_FILE, &hf->files[n], file_special))
		hf->nfiles++;
}

/* ---- --stacks: frames named by the record ---- */

/* A vector of name indices (0 or of the chunk) into v[STACK_FRAMES_KEPT]. */
static size_t take_names(struct decoder *d, uint64_t *v)
{
	uint64_t n = hcur_uleb(&d->c);

	if (n > STACK_FRAMES_KEPT) {
		d->c.bad = true;
		return 0;
	}
	for (size_t i = 0; i < n; i++) {
		v[i] = hcur_uleb(&d->c);
		if (v[i] > d->hf->nnames)
			d->c.bad = true;
	}
	return n;
}

static void stack_special(struct decoder *d, uint64_t id, void *base)
{
	struct row_stack *s = base;
	uint64_t v;

	switch (id) {
	case HF_STACK_KERNEL_STATE:
	case HF_STACK_USER_STATE:
		v = hcur_uleb(&d->c);
		if (v > STACK_UNREAD)
			d->c.bad = true;
		else if (id == HF_STACK_KERNEL_STATE)
			s->kernel.state = v;
		else
			s->user.state = v;
		break;
	case HF_STACK_KERNEL:
	case HF_STACK_USER:
		d->nframes[id == HF_STACK_USER] = take_names(d, d->frames[id == HF_STACK_USER]);
		break;
	case HF_STACK_USER_UNKNOWN:
		d->nunknown = take_names(d, d->unknown);
		break;
	case HF_STACK_COUNTS:
		take_vector(d, s->delta, STACK_NR_COUNTERS, 1);
		break;
	case HF_STACK_COUNTS_TOTAL:
		take_vector(d, s->total, STACK_NR_COUNTERS, 1);
		break;
	}
}

/* The frames of a side kept into the frame's table of stacks: its key, or
 * "[not kept]" when the table is full (as the run's own would say). */
static void keep_side(struct history_frame *hf, struct stack_ref *ref, const uint64_t *frames,
		      size_t n)
{
	if (ref->state != STACK_KEPT)
		return;
	if (res_intern_stack(&hf->stack_table, frames, n, &ref->key) != RES_OK) {
		ref->state = STACK_NOT_KEPT;
		ref->key = 0;
	}
}

static int stack_table_ready(struct history_frame *hf)
{
	if (hf->stack_table_buf)
		return 0;
	hf->stack_table_buf = malloc(STACK_TABLE_SIZE);
	if (!hf->stack_table_buf ||
	    res_table_init(&hf->stack_table, hf->stack_table_buf, STACK_TABLE_SIZE,
			   STACK_TABLE_BUCKETS)) {
		free(hf->stack_table_buf);
		hf->stack_table_buf = NULL;
		return -ENOMEM;
	}
	return 0;
}

/* A stack of the last row read. */
static void take_stack(struct decoder *d)
{
	struct history_frame *hf = d->hf;
	struct row_stack *s;

	if (!hf->nrows || hf->nstacks >= HISTORY_ROWS_MAX || stack_table_ready(hf) ||
	    array_reserve((void **)&hf->stacks, &hf->stacks_cap, hf->nstacks + 1,
			  sizeof(*hf->stacks))) {
		d->c.bad = true;
		return;
	}
	s = &hf->stacks[hf->nstacks];
	memset(s, 0, sizeof(*s));
	d->nframes[0] = d->nframes[1] = d->nunknown = 0;
	if (!take_object(d, HK_STACK, s, stack_special))
		return;
	for (size_t i = 0; i < d->nframes[1] && i < d->nunknown; i++)
		d->frames[1][i] |= d->unknown[i] << 32;
	keep_side(hf, &s->kernel, d->frames[0], d->nframes[0]);
	keep_side(hf, &s->user, d->frames[1], d->nframes[1]);
	if (!hf->frame.cumulative)
		memcpy(s->total, s->delta, sizeof(s->total));
	s->key.who = hf->rows[hf->nrows - 1].key;
	hf->rows[hf->nrows - 1].nstacks++;
	hf->nstacks++;
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
	if (array_reserve((void **)&hf->stack_ptrs, &hf->stack_ptrs_cap, hf->nstacks,
			  sizeof(*hf->stack_ptrs)))
		return -ENOMEM;
	for (size_t i = 0; i < hf->nstacks; i++)
		hf->stack_ptrs[i] = &hf->stacks[i];
	/* each row's stacks followed it: they are the next nstacks */
	for (size_t i = 0, first = 0; i < hf->nrows; first += hf->rows[i++].nstacks)
		hf->rows[i].stacks = hf->rows[i].nstacks ? &hf->stack_ptrs[first] : NULL;
	for (size_t i = 0; i < hf->nrows; i++) {
		struct proc_io *row = &hf->rows[i];
		uint32_t len;

		hf->row_ptrs[i] = row;
		if (row->latency)
			row->latency = &hf->latency[i];
		row->cmdline = hf->cmdline_index[i] ?
			       (char *)chunk_name(d, hf->cmdline_index[i], &len) : NULL;
	}
	for (size_t i = 0; i < hf->nfiles; i++) {
		uint32_t len;
		const char *path = hf->path_index[i] ? chunk_name(d, hf->path_index[i], &len) : NULL;

		hf->files[i].path = path ? path : "";
	}
	f->rows = hf->row_ptrs;
	f->nrows = hf->nrows;
	f->files = hf->files;
	f->nfiles = hf->nfiles;
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
	hf->nfiles = 0;
	hf->nstacks = 0;
	hf->stacks_on = false;
	hf->frames_recovered = 0;
	hf->frames_unknown = 0;
	if (hf->stack_table_buf)
		res_table_init(&hf->stack_table, hf->stack_table_buf, STACK_TABLE_SIZE,
			       STACK_TABLE_BUCKETS);
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
		case HK_FILE:
			take_file(&d);
			break;
		case HK_STACK:
			take_stack(&d);
			break;
		default:
			/* A kind of a later version: its fields, by the header's types. */
			take_object(&d, kind > 255 ? 255 : kind, NULL, NULL);
		}
	}
	return -EBADMSG;
}
