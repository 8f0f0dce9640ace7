// SPDX-License-Identifier: GPL-2.0
/* --replay -a's totals (replay_sum.h). */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "array.h"
#include "files.h"
#include "replay_sum.h"

int replay_sum_init(struct replay_sum *s)
{
	memset(s, 0, sizeof(*s));
	pmem_init(&s->devices);
	return 0;
}

void replay_sum_free(struct replay_sum *s)
{
	for (size_t i = 0; i < s->nrows; i++) {
		free(s->rows[i].cmdline);
		free(s->rows[i].latency);
	}
	for (size_t i = 0; i < s->nfiles; i++)
		free((char *)s->files[i].path);
	free(s->files);
	free(s->rows);
	free(s->shown);
	free(s->index);
	pmem_free(&s->devices);
	memset(s, 0, sizeof(*s));
}

/* d's changes added to sum, which holds totals; d's facts (iostat, layers,
 * sampling) as the last frame has them. */
static void add_device(struct pmem_device *sum, const struct pmem_device *d)
{
	for (int c = 0; c < PMEM_NR_COUNTERS; c++)
		sum->counter[c].total += d->counter[c].delta;
	for (int op = 0; op < IO_NR_CLASSES; op++) {
		sum->op_latency_ns[op].total += d->op_latency_ns[op].delta;
		sum->op_latency_ios[op].total += d->op_latency_ios[op].delta;
		for (int k = 0; k < LATENCY_SLOTS; k++)
			sum->latency_slots[op][k].total += d->latency_slots[op][k].delta;
	}
	sum->latency_samples_dropped.total += d->latency_samples_dropped.delta;
	sum->latency_sample = d->latency_sample;
	sum->layers = d->layers;
	if (d->has_iostat) {
		sum->has_iostat = true;
		for (int f = 0; f < DS_NR_FIELDS; f++)
			sum->iostat_change.field[f] += d->iostat_change.field[f];
		sum->iostat_change.ns += d->iostat_change.ns;
		iostat_x_of_change(&sum->iostat_change, &sum->iostat[1]);
	}
}

/* c shows the sum's total, of which its delta is the last part. */
static void show_total(struct pmem_counter *c, const struct pmem_counter *sum)
{
	c->total = sum->total;
	c->at_flush = c->total - c->delta;
}

/* d's changes into the sum; d then shows the sum's totals. */
static void sum_device(struct pmem_device *sum, struct pmem_device *d)
{
	add_device(sum, d);
	for (int c = 0; c < PMEM_NR_COUNTERS; c++)
		show_total(&d->counter[c], &sum->counter[c]);
	for (int op = 0; op < IO_NR_CLASSES; op++) {
		show_total(&d->op_latency_ns[op], &sum->op_latency_ns[op]);
		show_total(&d->op_latency_ios[op], &sum->op_latency_ios[op]);
		for (int k = 0; k < LATENCY_SLOTS; k++)
			show_total(&d->latency_slots[op][k], &sum->latency_slots[op][k]);
	}
	show_total(&d->latency_samples_dropped, &sum->latency_samples_dropped);
	if (d->has_iostat)
		d->iostat[1] = sum->iostat[1];
}

/* Each device of f into devices' sums (by name), and the aggregate. */
static int add_devices(struct pmem_metrics *sums, struct pmem_metrics *devices, bool show)
{
	for (size_t i = 0; i < devices->count; i++) {
		struct pmem_device *sum = pmem_device_get(sums, devices->devices[i].name);

		if (!sum)
			return -ENOMEM;
		if (show)
			sum_device(sum, &devices->devices[i]);
		else
			add_device(sum, &devices->devices[i]);
	}
	if (show)
		sum_device(&sums->aggregate, &devices->aggregate);
	else
		add_device(&sums->aggregate, &devices->aggregate);
	return 0;
}

static uint32_t key_hash(const struct proc_dev_key *k)
{
	const unsigned char *p = (const unsigned char *)k;
	uint32_t h = 2166136261u;

	for (size_t i = 0; i < sizeof(*k); i++)
		h = (h ^ p[i]) * 16777619u;
	return h;
}

static int grow_index(struct replay_sum *s)
{
	size_t size = s->index_size ? s->index_size * 2 : 256;
	uint32_t *index = calloc(size, sizeof(*index));

	if (!index)
		return -ENOMEM;
	for (size_t i = 0; i < s->nrows; i++) {
		size_t at = key_hash(&s->rows[i].key) & (size - 1);

		while (index[at])
			at = (at + 1) & (size - 1);
		index[at] = i + 1;
	}
	free(s->index);
	s->index = index;
	s->index_size = size;
	return 0;
}

/* The sum's row of row's key, made when new; NULL without memory. */
static struct proc_io *sum_row(struct replay_sum *s, const struct proc_io *row)
{
	size_t at;

	if ((s->nrows + 1) * 2 > s->index_size && grow_index(s))
		return NULL;
	for (at = key_hash(&row->key) & (s->index_size - 1); s->index[at];
	     at = (at + 1) & (s->index_size - 1))
		if (!memcmp(&s->rows[s->index[at] - 1].key, &row->key, sizeof(row->key)))
			return &s->rows[s->index[at] - 1];
	if (array_reserve((void **)&s->rows, &s->rows_cap, s->nrows + 1, sizeof(*s->rows)))
		return NULL;
	memset(&s->rows[s->nrows], 0, sizeof(*s->rows));
	s->rows[s->nrows].key = row->key;
	s->index[at] = ++s->nrows;
	return &s->rows[s->nrows - 1];
}

/* row's figures into its sum, which shows them: its names and owner as the
 * row has them now, its counters and latency summed. */
static int add_row(struct replay_sum *s, const struct proc_io *row)
{
	struct proc_io *sum = sum_row(s, row);
	uint64_t total[PMEM_NR_COUNTERS];
	struct iowait_ns waits;
	struct row_latency *latency;
	char *cmdline;

	if (!sum)
		return -ENOMEM;
	if (row->latency && !sum->latency && !(sum->latency = calloc(1, sizeof(*sum->latency))))
		return -ENOMEM;
	cmdline = sum->cmdline;
	if (row->cmdline && (!cmdline || strcmp(cmdline, row->cmdline))) {
		free(cmdline);
		if (!(cmdline = strdup(row->cmdline)))
			return -ENOMEM;
	}
	latency = sum->latency;
	memcpy(total, sum->total, sizeof(total));
	waits = sum->wait_total;
	*sum = *row;
	/* the window's stacks are not summed: none (the frame's are the reader's) */
	sum->stacks = NULL;
	sum->nstacks = 0;
	sum->cmdline = cmdline;
	sum->latency = latency;
	/* A cgroup's pressure over the window is not a sum of the frames'
	 * shares (a frame may lack the row, or have it unknown): not known. */
	sum->cgroup_pressure = (struct pressure_share){ 0 };
	for (int c = 0; c < PMEM_NR_COUNTERS; c++)
		sum->total[c] = total[c] + row->delta[c];
	sum->wait_total.blkio_ns = waits.blkio_ns + row->wait_delta.blkio_ns;
	sum->wait_total.swapin_ns = waits.swapin_ns + row->wait_delta.swapin_ns;
	if (row->latency) {
		latency->delta = row->latency->delta;
		for (int k = 0; k < LATENCY_SLOTS; k++)
			latency->total.slots[k] += row->latency->delta.slots[k];
		latency->incomplete |= row->latency->incomplete;
	}
	return 0;
}

static bool has_totals(const struct proc_io *row)
{
	for (int c = 0; c < PMEM_NR_COUNTERS; c++)
		if (row->total[c])
			return true;
	return row->wait_total.blkio_ns || row->wait_total.swapin_ns;
}

/* file's line added to the sum's line of its key, made when new (ordered
 * as the live run orders its lines, files_row_order()). */
static int add_file(struct replay_sum *s, const struct file_row *file, bool totals)
{
	struct file_row *sum = NULL;
	char *path;

	for (size_t i = 0; i < s->nfiles && !sum; i++)
		if (!memcmp(&s->files[i].key, &file->key, sizeof(file->key)))
			sum = &s->files[i];
	if (!sum) {
		if (array_reserve((void **)&s->files, &s->files_cap, s->nfiles + 1,
				  sizeof(*s->files)) ||
		    !(path = strdup(file->path)))
			return -ENOMEM;
		sum = &s->files[s->nfiles++];
		*sum = *file;
		sum->path = path;
		return 0;
	}
	if (strcmp(sum->path, file->path)) {
		if (!(path = strdup(file->path)))
			return -ENOMEM;
		free((char *)sum->path);
		sum->path = path;
	}
	sum->tgid = file->tgid;
	sum->comm_name = file->comm_name;
	sum->device_name = file->device_name;
	sum->unlinked = file->unlinked;
	sum->nfiles = file->nfiles;
	for (int op = 0; op < 2; op++) {
		sum->bytes[op] = file->bytes[op] + (totals ? 0 : sum->bytes[op]);
		sum->ios[op] = file->ios[op] + (totals ? 0 : sum->ios[op]);
	}
	return 0;
}

static int add_files(struct replay_sum *s, struct frame *f)
{
	s->files_on |= f->files_on;
	for (size_t i = 0; i < f->nfiles; i++)
		if (add_file(s, &f->files[i], f->cumulative))
			return -ENOMEM;
	if (s->nfiles)
		qsort(s->files, s->nfiles, sizeof(*s->files), files_row_order);
	f->files_on = s->files_on;
	f->files = s->files;
	f->nfiles = s->nfiles;
	return 0;
}

int replay_sum_add(struct replay_sum *s, struct frame *f, enum sort_key sort)
{
	struct pmem_metrics *devices = (struct pmem_metrics *)f->devices;
	size_t n = 0;

	/* -a's IO> and SWAPIN are shares of the window so far */
	s->run_s += f->interval_s;
	f->run_s = s->run_s;
	if (devices && add_devices(&s->devices, devices, true))
		return -ENOMEM;
	/* This frame's changes: none for a row it does not list. */
	for (size_t i = 0; i < s->nrows; i++) {
		memset(s->rows[i].delta, 0, sizeof(s->rows[i].delta));
		memset(&s->rows[i].wait_delta, 0, sizeof(s->rows[i].wait_delta));
		if (s->rows[i].latency)
			memset(&s->rows[i].latency->delta, 0, sizeof(s->rows[i].latency->delta));
	}
	for (size_t i = 0; i < f->nrows; i++)
		if (add_row(s, f->rows[i]))
			return -ENOMEM;
	if (add_files(s, f))
		return -ENOMEM;
	if (array_reserve((void **)&s->shown, &s->shown_cap, s->nrows, sizeof(*s->shown)))
		return -ENOMEM;
	for (size_t i = 0; i < s->nrows; i++)
		if (has_totals(&s->rows[i]))
			s->shown[n++] = &s->rows[i];
	iostats_sort(s->shown, n, sort, true, f->names);
	f->rows = s->shown;
	f->nrows = n;
	return 0;
}

void replay_totals_init(struct replay_totals *t)
{
	memset(t, 0, sizeof(*t));
	pmem_init(&t->devices);
}

void replay_totals_free(struct replay_totals *t)
{
	pmem_free(&t->devices);
	crashfree_free(&t->crash);
	memset(t, 0, sizeof(*t));
}

int replay_totals_add(struct replay_totals *t, const struct frame *f)
{
	if (f->devices && add_devices(&t->devices, (struct pmem_metrics *)f->devices, false))
		return -ENOMEM;
	t->frames++;
	t->wall = f->wall;
	t->duration_s += f->interval_s;
	for (int c = 0; c < LOST_NR_CAUSES; c++)
		t->lost[c] += f->lost[c];
	if (f->crash) {
		struct crashfree *cf = &t->crash;

		cf->nprocesses = 0;
		cf->interval_ns = f->crash->interval_ns;
		cf->operational_intervals = f->crash->operational_intervals;
		cf->crashfree_intervals = f->crash->crashfree_intervals;
		cf->crashes = f->crash->crashes;
		for (size_t i = 0; i < f->crash->nprocesses; i++)
			if (crashfree_restore_process(cf, f->crash->by_process[i].comm,
						      f->crash->by_process[i].crashes) == -ENOMEM)
				return -ENOMEM;
	}
	return 0;
}

bool replay_totals_summary(const struct replay_totals *t, struct summary *s)
{
	memset(s, 0, sizeof(*s));
	if (!t->frames)
		return false;
	s->wall = t->wall;
	s->duration_s = t->duration_s;
	memcpy(s->lost, t->lost, sizeof(s->lost));
	s->devices = &t->devices;
	s->crash = &t->crash;
	return true;
}
