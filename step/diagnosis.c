// SPDX-License-Identifier: GPL-2.0
/* A frame read by the USE method (diagnosis.h; doc/diagnose.md). */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "diagnosis.h"
#include "iostats.h"
#include "pmem_metrics.h"

const char *const disk_state_names[DISK_NR_STATES] = {
	[DISK_IDLE] = "idle",
	[DISK_OK] = "ok",
	[DISK_BUSY] = "busy",
	[DISK_SATURATED] = "saturated",
	[DISK_THROTTLED] = "throttled",
	[DISK_FAILING] = "failing",
};

/* len bytes of text as a string of its own; NULL when out of memory. */
static char *text_dup(const char *text, size_t len)
{
	char *s = malloc(len + 1);

	if (s) {
		memcpy(s, text, len);
		s[len] = '\0';
	}
	return s;
}

static void proc_free(struct diag_proc *p)
{
	free(p->comm);
	free(p->user);
	free(p->cmdline);
	free(p->cgroup);
	for (size_t i = 0; i < p->nfiles; i++)
		free(p->files[i].path);
	free(p->files);
}

static void procs_free(struct diag_proc *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		proc_free(&p[i]);
	free(p);
}

void diagnosis_free(struct diagnosis *d)
{
	for (size_t i = 0; i < d->ndisks; i++) {
		procs_free(d->disks[i].drivers, d->disks[i].ndrivers);
		procs_free(d->disks[i].waiters, d->disks[i].nwaiters);
		free(d->disks[i].limit);
	}
	free(d->disks);
	procs_free(d->waiters, d->nwaiters);
	memset(d, 0, sizeof(*d));
}

bool diagnosis_trouble(const struct diagnosis *d)
{
	for (size_t i = 0; i < d->ndisks; i++)
		if (disk_state_trouble(d->disks[i].state))
			return true;
	return false;
}

static uint64_t bytes_of(const uint64_t *v)
{
	return v[PMEM_READ_BYTES] + v[PMEM_WRITE_BYTES] + v[PMEM_DISCARD_BYTES];
}

static bool same_name(const struct frame *f, res_key key, const char *name)
{
	uint32_t len;
	const char *text = res_name(f->names, key, &len);

	return strlen(name) == len && !memcmp(text, name, len);
}

/* The row's files, the first `most` by bytes, into p. */
static int take_files(struct diag_proc *p, const struct frame *f, const struct proc_io *row,
		      uint32_t most)
{
	static const char deleted[] = " (deleted)";

	for (size_t i = 0; i < f->nfiles && most; i++) {
		const struct file_row *r = &f->files[i];
		uint64_t bytes = r->bytes[IO_READ] + r->bytes[IO_WRITE];
		const char *path = r->path ? r->path : "[unknown]";
		size_t at = p->nfiles, len = strlen(path);
		char *text;

		if (r->tgid != p->pid || r->comm_name != row->comm_name ||
		    r->device_name != row->device_name || !bytes)
			continue;
		/* kept in order of bytes, the lightest falling off the end */
		while (at && p->files[at - 1].bytes < bytes)
			at--;
		if (at == most)
			continue;
		if (p->nfiles < most) {
			struct diag_file *grown = realloc(p->files, (p->nfiles + 1) * sizeof(*grown));

			if (!grown)
				return -ENOMEM;
			p->files = grown;
			p->nfiles++;
		} else {
			free(p->files[p->nfiles - 1].path);
		}
		memmove(&p->files[at + 1], &p->files[at], (p->nfiles - 1 - at) * sizeof(*p->files));
		text = malloc(len + sizeof(deleted));
		p->files[at] = (struct diag_file){ .path = text, .bytes = bytes };
		if (!text)
			return -ENOMEM;
		memcpy(text, path, len);
		if (r->unlinked)
			memcpy(text + len, deleted, sizeof(deleted));
		else
			text[len] = '\0';
	}
	return 0;
}

/* p := row as the frame shows it, its share of disk_bytes. */
static int take_proc(struct diag_proc *p, const struct frame *f, const struct proc_io *row,
		     uint64_t disk_bytes, const struct diagnose_rules *rules)
{
	const uint64_t *v = iostats_values(row, f->cumulative);
	const char *text;
	uint32_t len;

	memset(p, 0, sizeof(*p));
	p->has_pid = !f->by_cgroup;
	p->pid = f->per_thread ? row->tgid : row->key.tgid;
	if (p->has_pid) {
		text = res_name(f->names, row->comm_name, &len);
		if (!(p->comm = text_dup(text, len)))
			return -ENOMEM;
	}
	if (row->user_name) {
		text = res_name(f->names, row->user_name, &len);
		if (!(p->user = text_dup(text, len)))
			return -ENOMEM;
	} else if (row->owner.flags & ROW_OWNER_KNOWN) {
		if (asprintf(&p->user, "%u", row->owner.uid) < 0)
			return p->user = NULL, -ENOMEM;
	}
	if (row->cmdline && !(p->cmdline = strdup(row->cmdline)))
		return -ENOMEM;
	if (row->cgroup_name) {
		text = res_name(f->names, row->cgroup_name, &len);
		if (!(p->cgroup = text_dup(text, len)))
			return -ENOMEM;
	}
	p->read_bytes = v[PMEM_READ_BYTES];
	p->write_bytes = v[PMEM_WRITE_BYTES];
	p->discard_bytes = v[PMEM_DISCARD_BYTES];
	p->share_pct = disk_bytes ? 100.0 * (double)bytes_of(v) / (double)disk_bytes : 0;
	for (int k = 0; k < IO_ERROR_KINDS; k++) {
		p->errors[k] = v[PMEM_ERRORS + k];
		p->nerrors += p->errors[k];
	}
	p->iowait_known = frame_wait_pct(f, row, f->cumulative, false, &p->iowait_pct);
	p->cgroup_pressure = row->cgroup_pressure;
	if (f->files_on && p->has_pid && iostats_has_device(row))
		return take_files(p, f, row, rules->files);
	return 0;
}

static int by_bytes(const void *a, const void *b, void *arg)
{
	const struct frame *f = arg;
	uint64_t x = bytes_of(iostats_values(*(struct proc_io *const *)a, f->cumulative));
	uint64_t y = bytes_of(iostats_values(*(struct proc_io *const *)b, f->cumulative));

	return x < y ? 1 : x > y ? -1 : 0;
}

static int by_wait(const void *a, const void *b)
{
	const struct diag_proc *x = a, *y = b;

	return x->iowait_pct < y->iowait_pct ? 1 : x->iowait_pct > y->iowait_pct ? -1 : 0;
}

/* Whether a row waited at least rules->wait_pct of the window. */
static bool waits(const struct frame *f, const struct proc_io *row,
		  const struct diagnose_rules *rules)
{
	double pct;

	return frame_wait_pct(f, row, f->cumulative, false, &pct) && pct >= rules->wait_pct;
}

/*
 * The disk's drivers (its rows by bytes: the first rules->drivers, and any
 * other with failed I/Os) and waiters (its rows with IO> >= wait_pct), from
 * the frame's rows of it (on, n).
 */
static int take_procs(struct diag_disk *d, const struct frame *f, struct proc_io **on, size_t n,
		      const struct diagnose_rules *rules)
{
	uint64_t disk_bytes = d->read_bytes + d->write_bytes + d->discard_bytes;
	size_t nwait = 0;

	qsort_r(on, n, sizeof(*on), by_bytes, (void *)f);
	d->drivers = calloc(n ? n : 1, sizeof(*d->drivers));
	for (size_t i = 0; i < n; i++)
		nwait += waits(f, on[i], rules);
	d->waiters = calloc(nwait ? nwait : 1, sizeof(*d->waiters));
	if (!d->drivers || !d->waiters)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		const uint64_t *v = iostats_values(on[i], f->cumulative);
		bool errors = false;

		for (int k = 0; k < IO_ERROR_KINDS; k++)
			errors |= v[PMEM_ERRORS + k] != 0;
		if ((bytes_of(v) && d->ndrivers < rules->drivers) || errors) {
			if (take_proc(&d->drivers[d->ndrivers++], f, on[i], disk_bytes, rules))
				return -ENOMEM;
		}
		if (waits(f, on[i], rules) &&
		    take_proc(&d->waiters[d->nwaiters++], f, on[i], disk_bytes, rules))
			return -ENOMEM;
	}
	qsort(d->waiters, d->nwaiters, sizeof(*d->waiters), by_wait);
	return 0;
}

static enum disk_state state_of(const struct diag_disk *d, bool iowait_known,
				const struct diagnose_rules *rules, uint64_t flushes)
{
	if (d->nerrors >= rules->failing_errors)
		return DISK_FAILING;
	if (!d->ios && !flushes && !d->read_bytes && !d->write_bytes && !d->discard_bytes)
		return DISK_IDLE;
	if (d->has_iostat && iowait_known && d->nwaiters && d->util < rules->throttled_util)
		return DISK_THROTTLED;
	if (d->has_iostat && d->util >= rules->busy_util)
		return d->aqu_sz >= rules->saturated_queue ? DISK_SATURATED : DISK_BUSY;
	return DISK_OK;
}

static int worst_first(const void *a, const void *b)
{
	const struct diag_disk *x = a, *y = b;
	uint64_t bx = x->read_bytes + x->write_bytes + x->discard_bytes;
	uint64_t by = y->read_bytes + y->write_bytes + y->discard_bytes;

	if (x->state != y->state)
		return x->state < y->state ? 1 : -1;
	if (bx != by)
		return bx < by ? 1 : -1;
	return strcmp(x->name, y->name);
}

static int take_disk(struct diag_disk *d, const struct frame *f, const struct pmem_device *dev,
		     struct proc_io **on, const struct diagnose_rules *rules)
{
	uint64_t v[PMEM_NR_COUNTERS];
	size_t n = 0;

	for (int c = 0; c < PMEM_NR_COUNTERS; c++)
		v[c] = f->cumulative ? dev->counter[c].total : dev->counter[c].delta;
	snprintf(d->name, sizeof(d->name), "%s", dev->name);
	d->read_bytes = v[PMEM_READ_BYTES];
	d->write_bytes = v[PMEM_WRITE_BYTES];
	d->discard_bytes = v[PMEM_DISCARD_BYTES];
	d->ios = v[PMEM_READ_IOS] + v[PMEM_WRITE_IOS] + v[PMEM_DISCARD_IOS];
	for (int k = 0; k < IO_ERROR_KINDS; k++) {
		d->errors[k] = v[PMEM_ERRORS + k];
		d->nerrors += d->errors[k];
	}
	d->has_iostat = dev->has_iostat;
	if (dev->has_iostat) {
		const struct iostat_x *x = &dev->iostat[f->cumulative ? 1 : 0];

		d->util = x->util;
		d->aqu_sz = x->aqu_sz;
		d->r_await = x->r_await;
		d->w_await = x->w_await;
	}
	for (size_t i = 0; i < f->nrows; i++) {
		const struct proc_io *row = f->rows[i];

		if (iostats_has_device(row) && same_name(f, row->device_name, dev->name)) {
			on[n++] = f->rows[i];
			d->dev = row->key.dev;
		}
	}
	if (take_procs(d, f, on, n, rules))
		return -ENOMEM;
	d->state = state_of(d, f->iowait_known, rules, v[PMEM_FLUSHES]);
	return 0;
}

/* The processes that waited with no I/O of their own. */
static int take_waiters(struct diagnosis *d, const struct frame *f,
			const struct diagnose_rules *rules)
{
	size_t n = 0;

	for (size_t i = 0; i < f->nrows; i++)
		n += !iostats_has_device(f->rows[i]) && waits(f, f->rows[i], rules);
	if (!n)
		return 0;
	if (!(d->waiters = calloc(n, sizeof(*d->waiters))))
		return -ENOMEM;
	for (size_t i = 0; i < f->nrows; i++) {
		if (iostats_has_device(f->rows[i]) || !waits(f, f->rows[i], rules))
			continue;
		if (take_proc(&d->waiters[d->nwaiters++], f, f->rows[i], 0, rules))
			return -ENOMEM;
	}
	qsort(d->waiters, d->nwaiters, sizeof(*d->waiters), by_wait);
	return 0;
}

int diagnose_frame(struct diagnosis *d, const struct frame *f, const struct diagnose_rules *rules)
{
	const struct pmem_metrics *devices = f->devices;
	struct proc_io **on = NULL;
	int err = -ENOMEM;

	diagnosis_free(d);
	d->wall = f->wall;
	d->duration_s = f->cumulative ? f->run_s : f->interval_s;
	d->partial = f->partial;
	d->pressure_known = f->pressure_known;
	d->pressure_some_pct = f->pressure_some_pct;
	d->pressure_full_pct = f->pressure_full_pct;
	d->iowait_known = f->iowait_known;
	d->files_on = f->files_on;
	if (devices && devices->count) {
		d->disks = calloc(devices->count, sizeof(*d->disks));
		on = malloc((f->nrows ? f->nrows : 1) * sizeof(*on));
		if (!d->disks || !on)
			goto out;
		for (size_t i = 0; i < devices->count; i++) {
			d->ndisks++;
			if (take_disk(&d->disks[i], f, &devices->devices[i], on, rules))
				goto out;
		}
		qsort(d->disks, d->ndisks, sizeof(*d->disks), worst_first);
	}
	err = take_waiters(d, f, rules);
out:
	free(on);
	if (err)
		diagnosis_free(d);
	return err;
}
