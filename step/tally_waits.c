// SPDX-License-Identifier: GPL-2.0
/*
 * The tally's IO> and SWAPIN (iowait.h): each interval's reading of every
 * task's waits, summed per row key and put on the process's busiest row of
 * the interval, or on a row of no disk made for them.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "array.h"
#include "iowait.h"
#include "tally.h"
#include "tally_private.h"

/* What a reading's changes are counted against. */
struct wait_reading {
	struct tally *t;
	uint64_t interval_ns;
	bool iowait_known, swapin_known;
};

static int compare_wait_key(const void *pa, const void *pb)
{
	return memcmp(&((const struct tally_wait_sum *)pa)->key,
		      &((const struct tally_wait_sum *)pb)->key, sizeof(struct proc_dev_key));
}

/* A task's change in the interval (each at most the interval: a task waits
 * no longer than it) joins its row's sum; unknown figures count nothing. */
static void sum_wait(const struct task_waits *rec, const struct iowait_ns *change, void *arg)
{
	struct wait_reading *r = arg;
	struct tally *t = r->t;
	struct tally_wait_sum *sum;
	struct iowait_ns ns = {
		.blkio_ns = r->iowait_known ? iowait_clamp(change->blkio_ns, r->interval_ns) : 0,
		.swapin_ns = r->swapin_known ? iowait_clamp(change->swapin_ns, r->interval_ns) : 0,
	};

	if (!ns.blkio_ns && !ns.swapin_ns)
		return;
	if (array_reserve((void **)&t->wait_sums, &t->wait_sums_capacity, t->nwait_sums + 1,
			  sizeof(*t->wait_sums))) {
		t->lost[LOST_ROW_ALLOC]++;
		return;
	}
	sum = &t->wait_sums[t->nwait_sums++];
	memset(sum, 0, sizeof(*sum));
	sum->key = rec->row;
	sum->key.dev = IOWAIT_NO_DEVICE;
	sum->tgid = rec->tgid;
	sum->owner = rec->owner;
	sum->ns = ns;
}

/* The sums of one row key (the threads of a process) made one, sorted by key. */
static void merge_wait_sums(struct tally *t)
{
	size_t merged = 0;

	if (t->nwait_sums > 1)
		qsort(t->wait_sums, t->nwait_sums, sizeof(*t->wait_sums), compare_wait_key);
	for (size_t i = 0; i < t->nwait_sums; i++) {
		struct tally_wait_sum *sum = &t->wait_sums[i];

		if (merged && !compare_wait_key(sum, &t->wait_sums[merged - 1])) {
			t->wait_sums[merged - 1].ns.blkio_ns += sum->ns.blkio_ns;
			t->wait_sums[merged - 1].ns.swapin_ns += sum->ns.swapin_ns;
		} else {
			t->wait_sums[merged++] = *sum;
		}
	}
	t->nwait_sums = merged;
}

/*
 * Where each sum goes: the row of the same process, name and cgroup that
 * read, wrote and discarded most bytes in the interval (ties: the lowest
 * disk number), among those with I/O in it; none: a row of no disk.
 */
static void choose_wait_rows(struct tally *t)
{
	for (size_t i = 0; i < t->procs.count; i++) {
		const struct proc_io *row = &t->procs.rows[i];
		struct tally_wait_sum key, *sum;
		unsigned __int128 bytes;
		size_t at;

		if (!iostats_has_device(row) || !iostats_has_io(row->delta))
			continue;
		key.key = row->key;
		key.key.dev = IOWAIT_NO_DEVICE;
		sum = bsearch(&key, t->wait_sums, t->nwait_sums, sizeof(*sum), compare_wait_key);
		if (!sum)
			continue;
		bytes = (unsigned __int128)row->delta[PMEM_READ_BYTES] +
			row->delta[PMEM_WRITE_BYTES] + row->delta[PMEM_DISCARD_BYTES];
		at = sum->has_row ? sum->row : 0;
		if (!sum->has_row || bytes > sum->row_bytes ||
		    (bytes == sum->row_bytes && row->key.dev < t->procs.rows[at].key.dev)) {
			sum->has_row = true;
			sum->row = i;
			sum->row_bytes = bytes;
		}
	}
}

static void add_waits(struct proc_io *row, const struct iowait_ns *ns)
{
	row->wait_delta.blkio_ns += ns->blkio_ns;
	row->wait_delta.swapin_ns += ns->swapin_ns;
	row->wait_total.blkio_ns += ns->blkio_ns;
	row->wait_total.swapin_ns += ns->swapin_ns;
}

/* Each sum onto its row, made for it when the process had no I/O in the
 * interval (rows of no disk: not with -D). */
static void put_waits_on_rows(struct tally *t)
{
	for (size_t i = 0; i < t->nwait_sums; i++) {
		const struct tally_wait_sum *sum = &t->wait_sums[i];
		struct proc_io *row;
		bool created;

		if (sum->has_row) {
			add_waits(&t->procs.rows[sum->row], &sum->ns);
			continue;
		}
		if (t->config.filter_devices)
			continue;
		row = iostats_wait_row(&t->procs, &sum->key, &created);
		if (!row) {
			t->lost[LOST_ROW_ALLOC]++;
			continue;
		}
		if (created) {
			tally_name_row(t, row);
			row->tgid = sum->tgid;	/* -t: no I/O row told its process */
		}
		tally_note_owner(t, row, &sum->owner, created);	/* issue 33 */
		add_waits(row, &sum->ns);
	}
}

/*
 * The interval's waits: each task's change since the last reading (the
 * reading at start first, when this is the first snapshot), summed per row
 * and put on the rows.  Blkio waits are known when diskio measures them, or
 * when delay accounting was on at both readings; swap-in only then.
 */
void tally_count_waits(struct tally *t, const struct snapshot *s, uint64_t interval_ns,
		       struct frame *frame)
{
	struct wait_reading r = { .t = t, .interval_ns = interval_ns };

	t->waits_source = s->waits_source;
	frame->waits_source = s->waits_source;
	if (s->waits_source == WAITS_NONE || !s->waits.taken)
		return;
	if (s->start_waits.taken) {
		if (iowait_tasks_read(&t->waits, s->start_waits.tasks, s->start_waits.n, NULL, NULL))
			t->lost[LOST_ROW_ALLOC]++;
		t->delayacct_was_on = s->start_waits.delayacct_on;
	}
	r.swapin_known = t->delayacct_was_on && s->waits.delayacct_on;
	r.iowait_known = s->waits_source == WAITS_SCHED || r.swapin_known;
	frame->iowait_known = r.iowait_known;
	frame->swapin_known = r.swapin_known;
	if (s->waits_source == WAITS_DELAYACCT && !s->waits.delayacct_on &&
	    !t->delayacct_off_warned && t->config.warn) {
		fprintf(t->config.warn, "diskio: warning: delay accounting was turned off "
			"(kernel.task_delayacct=0): IO> and SWAPIN are not known while it is\n");
		t->delayacct_off_warned = true;
	}
	t->nwait_sums = 0;
	if (iowait_tasks_read(&t->waits, s->waits.tasks, s->waits.n, sum_wait, &r))
		t->lost[LOST_ROW_ALLOC]++;
	t->delayacct_was_on = s->waits.delayacct_on;
	merge_wait_sums(t);
	choose_wait_rows(t);
	put_waits_on_rows(t);
}
