// SPDX-License-Identifier: GPL-2.0
/* /proc/diskstats and iostat -x's figures (diskstats.h). */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "array.h"
#include "diskstats.h"

void diskstats_free(struct diskstats *d)
{
	free(d->entries);
	memset(d, 0, sizeof(*d));
}

/* "   8       0 sda 1 2 3 ...": at least the 11 fields of Linux 2.6.  A
 * disk's name has at most 31 bytes (DISK_NAME_LEN); a longer word is not
 * one and leaves a field that is not a number. */
static bool parse_line(const char *line, struct diskstats_entry *e)
{
	int used = 0;

	memset(e, 0, sizeof(*e));
	if (sscanf(line, "%" SCNu32 " %" SCNu32 " %63s%n", &e->major, &e->minor, e->name,
		   &used) < 3)
		return false;
	line += used;
	for (int i = 0; i < DS_NR_FIELDS; i++) {
		if (sscanf(line, " %" SCNu64 "%n", &e->field[i], &used) < 1)
			return i > DS_TIME_IN_QUEUE && !line[strspn(line, " \t\n")];
		line += used;
	}
	return true;
}

int diskstats_parse(struct diskstats *d, FILE *in)
{
	char line[512];

	d->count = 0;
	while (fgets(line, sizeof(line), in)) {
		struct diskstats_entry e;

		if (!parse_line(line, &e))
			continue;
		if (array_reserve((void **)&d->entries, &d->capacity, d->count + 1,
				  sizeof(*d->entries)))
			return -ENOMEM;
		d->entries[d->count++] = e;
	}
	return ferror(in) ? -EIO : 0;
}

int diskstats_read(struct diskstats *d, const char *path)
{
	FILE *in = fopen(path, "re");
	int err;

	if (!in)
		return -errno;
	err = diskstats_parse(d, in);
	fclose(in);
	return err;
}

const struct diskstats_entry *diskstats_find(const struct diskstats *d, const char *name)
{
	for (size_t i = 0; i < d->count; i++)
		if (!strcmp(d->entries[i].name, name))
			return &d->entries[i];
	return NULL;
}

/* Times are printed by the kernel as unsigned int milliseconds. */
static bool is_time(enum diskstats_field f)
{
	return f == DS_READ_TICKS || f == DS_WRITE_TICKS || f == DS_IO_TICKS ||
	       f == DS_TIME_IN_QUEUE || f == DS_DISCARD_TICKS || f == DS_FLUSH_TICKS;
}

static double change(const struct diskstats_entry *prev, const struct diskstats_entry *cur,
		     enum diskstats_field f)
{
	uint64_t was = prev ? prev->field[f] : 0;

	if (is_time(f))
		return (double)(uint32_t)(cur->field[f] - was);
	return (double)(cur->field[f] - was);
}

static double per_request(double amount, double requests)
{
	return requests > 0 ? amount / requests : 0.0;
}

void iostat_x_compute(const struct diskstats_entry *prev, const struct diskstats_entry *cur,
		      uint64_t interval_ns, struct iostat_x *x)
{
	double ms = (double)interval_ns / 1e6, s = ms / 1e3;
	double r = change(prev, cur, DS_READ_IOS), w = change(prev, cur, DS_WRITE_IOS);
	double d = change(prev, cur, DS_DISCARD_IOS), fl = change(prev, cur, DS_FLUSH_IOS);
	/* Sectors are 512 bytes whatever the disk's block size. */
	double rkb = change(prev, cur, DS_READ_SECTORS) / 2;
	double wkb = change(prev, cur, DS_WRITE_SECTORS) / 2;
	double dkb = change(prev, cur, DS_DISCARD_SECTORS) / 2;

	memset(x, 0, sizeof(*x));
	if (!interval_ns)
		return;
	x->r_s = r / s;
	x->w_s = w / s;
	x->d_s = d / s;
	x->f_s = fl / s;
	x->rkB_s = rkb / s;
	x->wkB_s = wkb / s;
	x->dkB_s = dkb / s;
	x->rrqm_s = change(prev, cur, DS_READ_MERGES) / s;
	x->wrqm_s = change(prev, cur, DS_WRITE_MERGES) / s;
	x->drqm_s = change(prev, cur, DS_DISCARD_MERGES) / s;
	x->r_await = per_request(change(prev, cur, DS_READ_TICKS), r);
	x->w_await = per_request(change(prev, cur, DS_WRITE_TICKS), w);
	x->d_await = per_request(change(prev, cur, DS_DISCARD_TICKS), d);
	x->f_await = per_request(change(prev, cur, DS_FLUSH_TICKS), fl);
	x->rareq_sz = per_request(rkb, r);
	x->wareq_sz = per_request(wkb, w);
	x->dareq_sz = per_request(dkb, d);
	/* The queue's requests summed over each millisecond, per millisecond. */
	x->aqu_sz = change(prev, cur, DS_TIME_IN_QUEUE) / ms;
	x->util = change(prev, cur, DS_IO_TICKS) / ms * 100;
}

void diskstats_change_of(const struct diskstats_entry *prev, const struct diskstats_entry *cur,
			 uint64_t interval_ns, struct diskstats_change *c)
{
	for (int f = 0; f < DS_NR_FIELDS; f++) {
		uint64_t was = prev ? prev->field[f] : 0;

		c->field[f] = is_time(f) ? (uint32_t)(cur->field[f] - was) : cur->field[f] - was;
	}
	c->ns = interval_ns;
}

void iostat_x_of_change(const struct diskstats_change *c, struct iostat_x *x)
{
	struct diskstats_entry cur = { .name = "" };

	memcpy(cur.field, c->field, sizeof(cur.field));
	iostat_x_compute(NULL, &cur, c->ns, x);
}

const char *const iostat_x_names[IOSTAT_X_NR] = {
	"r/s", "w/s", "d/s", "f/s", "rkB/s", "wkB/s", "dkB/s", "rrqm/s", "wrqm/s", "drqm/s",
	"r_await", "w_await", "d_await", "f_await", "rareq-sz", "wareq-sz", "dareq-sz",
	"aqu-sz", "util",
};

void iostat_x_values(const struct iostat_x *x, double values[IOSTAT_X_NR])
{
	const double in_order[IOSTAT_X_NR] = {
		x->r_s, x->w_s, x->d_s, x->f_s, x->rkB_s, x->wkB_s, x->dkB_s,
		x->rrqm_s, x->wrqm_s, x->drqm_s, x->r_await, x->w_await, x->d_await, x->f_await,
		x->rareq_sz, x->wareq_sz, x->dareq_sz, x->aqu_sz, x->util,
	};

	memcpy(values, in_order, sizeof(in_order));
}
