// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include "array.h"
#include "ioprio.h"
#include "path.h"
#include "row_stacks.h"
#include "sorted.h"
#include "symbolize.h"
#include "tally.h"
#include "tally_private.h"

#define NAMES_TABLE_BYTES	(1U << 20)
#define NAMES_TABLE_BUCKETS	4096
/* Rows of processes that are gone are forgotten after this many idle intervals. */
#define IDLE_INTERVALS_BEFORE_FORGET 2
/* How long after it last dirtied a file writeback may still be charged to a
 * process: the kernel keeps its owner OWNER_TTL_NS, swept every 10 s. */
#define DIRTIER_GRACE_NS	(OWNER_TTL_NS + 20ULL * 1000000000ULL)

/* config.diskstats_path into d: 0; -ENOMEM; or 1 when it cannot be read
 * (one warning: the devices have no iostat figures). */
static int read_diskstats(struct tally *t, struct diskstats *d)
{
	int err = diskstats_read(d, t->config.diskstats_path);

	if (!err || err == -ENOMEM)
		return err;
	if (!t->diskstats_failed && t->config.warn)
		fprintf(t->config.warn, "diskio: warning: cannot read %s: %s; devices have no "
			"iostat figures\n", t->config.diskstats_path, strerror(-err));
	t->diskstats_failed = true;
	return 1;
}

int tally_init(struct tally *t, const struct tally_config *config, uint64_t start_ns)
{
	memset(t, 0, sizeof(*t));
	t->config = *config;
	t->start_ns = start_ns;
	t->now_ns = start_ns;
	t->interval_end_ns = start_ns;
	devname_init(&t->devnames, config->sysfs_root);
	cgroup_names_init(&t->cgroups, config->cgroup_mount);
	cgroup_pressure_init(&t->cgroup_pressure, &t->cgroups, 0, start_ns);
	iostats_init(&t->procs);
	pmem_init(&t->devices);
	iowait_tasks_init(&t->waits);
	crashfree_init(&t->crash, config->crash_interval_ns, start_ns);
	users_init(&t->users, config->passwd_path);
	files_init(&t->files, config->files_mountinfo, config->files_proc);
	t->names_buf = malloc(NAMES_TABLE_BYTES);
	if (!t->names_buf ||
	    res_table_init(&t->names, t->names_buf, NAMES_TABLE_BYTES, NAMES_TABLE_BUCKETS) ||
	    res_intern_str(&t->names, "?", &t->unknown_name) ||
	    res_intern_str(&t->names, "-", &t->no_device_name)) {
		tally_free(t);
		return -ENOMEM;
	}
	if (config->stacks_mem && row_stacks_init(&t->stacks, config->stacks_mem)) {
		tally_free(t);
		return -ENOMEM;
	}
	if (config->diskstats_path) {
		int err = read_diskstats(t, &t->diskstats_start);

		if (!err)
			err = read_diskstats(t, &t->diskstats_last);
		if (err < 0) {
			tally_free(t);
			return err;
		}
		t->diskstats_last_ns = start_ns;
	}
	/* Without PSI (no file, psi=0) the frames say it is not known. */
	if (config->pressure_path && !pressure_read(config->pressure_path, &t->pressure_start))
		t->pressure_last = t->pressure_start;
	t->pressure_last_ns = start_ns;
	if (config->cgroup_pressure_from_start && !config->trace &&
	    cgroup_pressure_baseline(&t->cgroup_pressure)) {
		tally_free(t);
		return -ENOMEM;
	}
	if (config->symbols) {
		t->symbolizer = symbolizer_new(config->symbols, config->symbols_warn);
		if (!t->symbolizer) {
			tally_free(t);
			return -ENOMEM;
		}
		symbolizer_namer(t->symbolizer)->table = &t->stacks.table;
	}
	return 0;
}


void tally_free(struct tally *t)
{
	tally_free_idle(t);
	free(t->idle);
	free(t->idle_ptrs);
	free(t->shown_ids);
	users_free(&t->users);
	files_free(&t->files);
	devname_free(&t->devnames);
	cgroup_pressure_free(&t->cgroup_pressure);
	cgroup_names_free(&t->cgroups);
	iostats_free(&t->procs);
	pmem_free(&t->devices);
	crashfree_free(&t->crash);
	free(t->names_buf);
	free(t->latency_seen);
	free(t->crash_seen);
	free(t->flushes_seen);
	free(t->dirtiers);
	free(t->shown);
	free(t->folded);
	free(t->forget);
	iowait_tasks_free(&t->waits);
	free(t->wait_sums);
	row_stacks_free(&t->stacks);
	symbolizer_free(t->symbolizer);
	diskstats_free(&t->diskstats_start);
	diskstats_free(&t->diskstats_last);
	diskstats_free(&t->diskstats_now);
	memset(t, 0, sizeof(*t));
}

/* The element of *array whose first key_size bytes are key, appended (zero
 * but for its key) when there is none; NULL when memory is out. */
static void *seen_of(void **array, size_t *count, size_t *capacity, size_t size,
		     const void *key, size_t key_size)
{
	char *added;

	for (size_t i = 0; i < *count; i++)
		if (!memcmp((char *)*array + i * size, key, key_size))
			return (char *)*array + i * size;
	if (array_reserve(array, capacity, *count + 1, size))
		return NULL;
	added = (char *)*array + (*count)++ * size;
	memset(added, 0, size);
	memcpy(added, key, key_size);
	return added;
}

/* ---- crashes ---- */

static struct tally_crash_seen *crash_seen_of(struct tally *t, const char *comm)
{
	char key[TASK_COMM_LEN] = {};

	memcpy(key, comm, strnlen(comm, TASK_COMM_LEN - 1));
	return seen_of((void **)&t->crash_seen, &t->ncrash_seen, &t->crash_seen_capacity,
		       sizeof(*t->crash_seen), key, sizeof(key));
}

static void record_crash(struct tally *t, const char *comm, uint64_t at_ns, uint64_t now_ns)
{
	if (crashfree_record_crash(&t->crash, comm, at_ns) && t->config.warn)
		fprintf(t->config.warn, "diskio: warning: out of memory recording a crash of %s\n",
			comm);
	crashfree_update(&t->crash, now_ns);
}

void tally_io_event(struct tally *t)
{
	t->io_events++;
}

void tally_crash_event(struct tally *t, struct crash_event *event, uint64_t now_ns)
{
	struct tally_crash_seen *seen;

	event->comm[TASK_COMM_LEN - 1] = '\0';
	seen = crash_seen_of(t, event->comm);
	if (seen)
		seen->received++;
	/* Frames list the interval's crashes; trace mode shows each as it comes. */
	if (!t->config.trace) {
		if (t->ncrash_events < TALLY_CRASH_EVENTS)
			t->crash_events[t->ncrash_events++] = *event;
		else
			t->lost[LOST_CRASH_EVENTS_FULL]++;
	}
	record_crash(t, event->comm, event->time_ns, now_ns);
}

/* The kernel's crash counts are exact even when events were lost: a
 * shortfall that lasts from one step to the next (so it is not an event
 * still on its way) is recorded as crashes now, without their details. */
static void reconcile_crashes(struct tally *t, const struct snapshot *s, uint64_t now_ns,
			      bool final)
{
	for (size_t i = 0; i < s->ncrashes; i++) {
		char comm[TASK_COMM_LEN];
		struct tally_crash_seen *seen;
		uint64_t count = s->crashes[i].count, shortfall, missing;

		memcpy(comm, s->crashes[i].comm, sizeof(comm));
		comm[TASK_COMM_LEN - 1] = '\0';
		seen = crash_seen_of(t, comm);
		if (!seen)
			continue;
		shortfall = count > seen->received ? count - seen->received : 0;
		missing = final ? shortfall :
			  (shortfall < seen->short_before ? shortfall : seen->short_before);
		for (uint64_t n = 0; n < missing; n++)
			record_crash(t, comm, now_ns, now_ns);
		seen->received += missing;
		seen->short_before = shortfall - missing;
	}
}

/* ---- losses ---- */

/* The kernel's loss counters' changes.  A dropped perf sample is counted
 * twice over: by the BPF side at once and by the kernel's PERF_RECORD_LOST
 * later (when the buffer has room again); the larger is right. */
static void count_losses(struct tally *t, const struct snapshot *s)
{
	uint64_t perf_lost;

	for (int cause = 0; cause < LOST_NR_CAUSES; cause++) {
		uint64_t change = counter_delta(&t->lost_seen[cause], s->lost[cause]);

		if (cause != LOST_PERF_BUFFER)
			t->lost[cause] += change;
	}
	perf_lost = t->lost_seen[LOST_PERF_BUFFER];
	if (s->perf_lost_records > perf_lost)
		perf_lost = s->perf_lost_records;
	t->lost[LOST_PERF_BUFFER] += counter_delta(&t->perf_lost_reported, perf_lost);
}

/* ---- rows and devices ---- */

static struct pmem_device *device_metrics(struct tally *t, uint32_t dev)
{
	return pmem_device_get(&t->devices, devname_lookup(&t->devnames, dev));
}


/*
 * What a row gained from one kernel entry goes to its disk: a device's
 * counts are the sum of its rows' changes, but for its flushes, which are
 * the disk's own (count_device_flushes()); the totals' are not the I/O a
 * row carried out for a device above, counted there already.  A device is
 * made only for a row with something to fold (not for dirtying alone, e.g.
 * on a filesystem of no one disk).
 */
static void add_row_change(struct tally *t, const struct proc_io *row,
			   const uint64_t before[PMEM_NR_COUNTERS])
{
	int last_counter = t->config.latency_from_rows ? PMEM_LATENCY_IOS : PMEM_FLUSHES;
	struct pmem_device *metrics = NULL;

	for (int c = PMEM_READ_BYTES; c < PMEM_NR_COUNTERS; c++) {
		/* A disk's own flushes, and its rows' dirtying, are not summed;
		 * its failed I/Os are (issue 45). */
		if ((c > last_counter && c < PMEM_ERRORS) || c == PMEM_FLUSHES ||
		    row->delta[c] == before[c])
			continue;
		if (!metrics)
			metrics = device_metrics(t, row->key.dev);
		if (row->serves_name)
			pmem_add_below(&t->devices, metrics, c, row->delta[c] - before[c]);
		else
			pmem_add(&t->devices, metrics, c, row->delta[c] - before[c]);
	}
}

/*
 * Kernel entries' running totals into their rows.  A row's own latency sums
 * hold only tracked completions that found no room in the histograms' map:
 * a row that gains any has no percentiles (a row whose histogram is made
 * later learns it from its total, count_one_row_latency()).
 */
static void record_rows(struct tally *t, const struct snapshot_row *entries, size_t n)
{
	uint64_t counters[PMEM_NR_COUNTERS], before[PMEM_NR_COUNTERS];

	for (size_t i = 0; i < n; i++) {
		const struct snapshot_row *entry = &entries[i];
		struct proc_io *row;
		bool created;

		iostats_counters_from_kernel(&entry->stats, counters);
		for (int k = 0; k < IO_ERROR_KINDS; k++)
			counters[PMEM_ERRORS + k] = entry->errors.errors[k];
		row = iostats_find(&t->procs, &entry->key);
		if (row)
			memcpy(before, row->delta, sizeof(before));
		else
			memset(before, 0, sizeof(before));
		row = iostats_record(&t->procs, &entry->key, counters, &created);
		if (!row) {
			t->lost[LOST_ROW_ALLOC]++;
			continue;
		}
		if (row->latency && row->delta[PMEM_LATENCY_IOS] != before[PMEM_LATENCY_IOS])
			row->latency->incomplete = true;
		if (created)
			tally_name_row(t, row);
		tally_note_owner(t, row, &entry->owner, created);	/* issue 33 */
		add_row_change(t, row, before);
	}
}

static void count_one_row_latency(struct tally *t, const struct snapshot_row_latency *entry);

/*
 * Forgotten rows' kernel entries, deleted since the last frame: what they
 * gained after the last snapshot (I/O of the same key meanwhile: the pid
 * used again by a process of the same name) is this interval's, and the
 * key's next kernel entries count from zero.
 */
static void count_forgotten(struct tally *t, const struct snapshot *s)
{
	record_rows(t, s->final_rows, s->nfinal_rows);
	for (size_t i = 0; i < s->nfinal_row_latency; i++)
		count_one_row_latency(t, &s->final_row_latency[i]);
	iostats_restart_forgotten(&t->procs);
}

static void count_rows(struct tally *t, const struct snapshot *s)
{
	iostats_begin_interval(&t->procs);
	count_forgotten(t, s);
	record_rows(t, s->rows, s->nrows);
}

/* Processes that dirtied page cache in this interval, for row_process_alive(). */
static void note_dirtiers(struct tally *t)
{
	for (size_t i = 0; i < t->procs.count; i++) {
		const struct proc_io *row = &t->procs.rows[i];
		struct tally_dirtier *d;

		if (!row->delta[PMEM_DIRTIED_BYTES])
			continue;
		d = seen_of((void **)&t->dirtiers, &t->ndirtiers, &t->dirtiers_capacity, sizeof(*d),
			    &row->key.tgid, sizeof(row->key.tgid));
		if (d)
			d->dirtied_ns = t->now_ns;
	}
}

/*
 * Each disk's flush requests completed, as the kernel counts them per disk
 * (a flush serves the waiting requests of any process, so no row has it):
 * a device's flushes are these, under every filter but -D.
 */
static void count_device_flushes(struct tally *t, const struct snapshot *s)
{
	for (size_t i = 0; i < s->nflushes; i++) {
		const struct snapshot_flushes *entry = &s->flushes[i];
		struct tally_flushes_seen *seen;
		uint64_t change;

		seen = seen_of((void **)&t->flushes_seen, &t->nflushes_seen,
			       &t->flushes_seen_capacity, sizeof(*seen), &entry->dev,
			       sizeof(entry->dev));
		if (!seen)
			continue;	/* counted when memory comes back */
		change = counter_delta(&seen->flushes, entry->flushes);
		if (change)
			pmem_add(&t->devices, device_metrics(t, entry->dev), PMEM_FLUSHES, change);
	}
}

static struct tally_latency_seen *latency_seen_of(struct tally *t, uint32_t dev)
{
	return seen_of((void **)&t->latency_seen, &t->nlatency_seen, &t->latency_seen_capacity,
		       sizeof(*t->latency_seen), &dev, sizeof(dev));
}

/* The change of a kernel latency entry since seen, which becomes now.  The
 * kernel adds the time before the count: time without a new count waits
 * for its count.  false when nothing changed. */
static bool latency_change(struct latency_counts *seen, const struct dev_latency *now,
			   struct latency_counts *change)
{
	bool changed = false;

	for (unsigned int op = 0; op < IO_NR_CLASSES; op++) {
		change->ios[op] = counter_delta(&seen->ios[op], now->ios[op]);
		change->latency_ns[op] = change->ios[op] ?
			counter_delta(&seen->latency_ns[op], now->latency_ns[op]) : 0;
		changed |= change->ios[op] != 0;
		for (unsigned int k = 0; k < LATENCY_SLOTS; k++) {
			change->slots[op][k] = counter_delta(&seen->slots[op][k], now->slots[op][k]);
			changed |= change->slots[op][k] != 0;
		}
	}
	change->sample_every = now->sample_every;
	change->samples_dropped = counter_delta(&seen->samples_dropped, now->samples_dropped);
	changed |= change->samples_dropped != 0;
	return changed;
}

/* A latency change into a disk's (and the total's) sums and histograms. */
static void add_device_latency(struct tally *t, struct pmem_device *metrics,
			       const struct latency_counts *change)
{
	for (unsigned int op = 0; op < IO_NR_CLASSES; op++) {
		if (change->ios[op]) {
			pmem_add(&t->devices, metrics, PMEM_LATENCY_NS, change->latency_ns[op]);
			pmem_add(&t->devices, metrics, PMEM_LATENCY_IOS, change->ios[op]);
			pmem_add_op_latency(&t->devices, metrics, op, change->latency_ns[op],
					    change->ios[op]);
		}
		for (unsigned int k = 0; k < LATENCY_SLOTS; k++)
			pmem_add_latency(&t->devices, metrics, op, k, change->slots[op][k]);
	}
	pmem_note_latency_sample(&t->devices, metrics, change->sample_every,
				 change->samples_dropped);
}

/* Each device's latency, per operation, as the kernel keeps it when I/Os
 * are not tracked: sums, counts and histograms. */
static void count_device_latency(struct tally *t, const struct snapshot *s)
{
	for (size_t i = 0; i < s->nlatency; i++) {
		const struct snapshot_latency *entry = &s->latency[i];
		struct tally_latency_seen *seen = latency_seen_of(t, entry->dev);
		struct latency_counts change;

		if (seen && latency_change(&seen->seen, &entry->latency, &change))
			add_device_latency(t, device_metrics(t, entry->dev), &change);
	}
}

/*
 * Tracked I/Os: each row's latency per operation goes to its histogram, its
 * sums and its disk's.  The row's own sums from the kernel (record_rows())
 * hold only completions that found no room in the histograms' map: a row
 * with any of those has no percentiles.
 */
static void count_one_row_latency(struct tally *t, const struct snapshot_row_latency *entry)
{
	struct proc_io *row = iostats_find(&t->procs, &entry->key);
	struct latency_counts change;
	struct row_latency *l;

	if (!row)
		return;		/* its row could not be kept: counted lost */
	if (!row->latency) {
		row->latency = calloc(1, sizeof(*row->latency));
		if (!row->latency) {
			t->lost[LOST_ROW_ALLOC]++;
			return;
		}
		row->latency->incomplete = row->total[PMEM_LATENCY_IOS] != 0;
	}
	l = row->latency;
	latency_change(&l->seen, &entry->latency, &change);
	add_device_latency(t, device_metrics(t, entry->key.dev), &change);
	for (unsigned int op = 0; op < IO_NR_CLASSES; op++) {
		row->delta[PMEM_LATENCY_NS] += change.latency_ns[op];
		row->total[PMEM_LATENCY_NS] += change.latency_ns[op];
		row->delta[PMEM_LATENCY_IOS] += change.ios[op];
		row->total[PMEM_LATENCY_IOS] += change.ios[op];
		for (unsigned int k = 0; k < LATENCY_SLOTS; k++) {
			l->delta.slots[k] += change.slots[op][k];
			l->total.slots[k] += change.slots[op][k];
		}
	}
}

static void count_row_latency(struct tally *t, const struct snapshot *s)
{
	for (size_t i = 0; i < s->nrow_latency; i++)
		count_one_row_latency(t, &s->row_latency[i]);
}

static bool row_has_values(const struct proc_io *row, bool cumulative)
{
	const struct iowait_ns *waits = iostats_waits(row, cumulative);

	const uint64_t *values = iostats_values(row, cumulative);

	/* an I/O that failed in a later interval than the one it was counted
	 * in is that interval's news: the rows' errors add up to the disk's */
	return iostats_has_io(values) || pmem_errors(values) || waits->blkio_ns ||
	       waits->swapin_ns;
}

static int compare_cgroup_dev(const void *pa, const void *pb)
{
	const struct proc_io *a = *(struct proc_io *const *)pa, *b = *(struct proc_io *const *)pb;

	if (a->key.cgroup != b->key.cgroup)
		return (a->key.cgroup > b->key.cgroup) - (a->key.cgroup < b->key.cgroup);
	if (a->serves_name != b->serves_name)
		return (a->serves_name > b->serves_name) - (a->serves_name < b->serves_name);
	return (a->key.dev > b->key.dev) - (a->key.dev < b->key.dev);
}

/* --by cgroup: the n shown rows summed per (cgroup, disk), in place of them. */
static size_t fold_by_cgroup(struct tally *t, size_t n)
{
	size_t folded = 0;

	if (array_reserve((void **)&t->folded, &t->folded_capacity, n, sizeof(*t->folded))) {
		t->lost[LOST_ROW_ALLOC] += n;
		return 0;
	}
	if (n)		/* t->shown is NULL before the first row */
		qsort(t->shown, n, sizeof(*t->shown), compare_cgroup_dev);
	for (size_t i = 0; i < n; i++) {
		const struct proc_io *row = t->shown[i];
		struct proc_io *sum = folded ? &t->folded[folded - 1] : NULL;

		if (!sum || compare_cgroup_dev(&row, &sum) != 0) {
			sum = &t->folded[folded++];
			memset(sum, 0, sizeof(*sum));
			sum->key.dev = row->key.dev;
			sum->key.cgroup = row->key.cgroup;
			sum->device_name = row->device_name;
			sum->cgroup_name = row->cgroup_name;
			sum->serves_name = row->serves_name;
		}
		for (int c = 0; c < PMEM_NR_COUNTERS; c++) {
			sum->delta[c] += row->delta[c];
			sum->total[c] += row->total[c];
		}
		sum->wait_delta.blkio_ns += row->wait_delta.blkio_ns;
		sum->wait_delta.swapin_ns += row->wait_delta.swapin_ns;
		sum->wait_total.blkio_ns += row->wait_total.blkio_ns;
		sum->wait_total.swapin_ns += row->wait_total.swapin_ns;
	}
	for (size_t i = 0; i < folded; i++)
		t->shown[i] = &t->folded[i];
	return folded;
}

/* The rows a frame shows, in display order. */
static size_t sort_shown_rows(struct tally *t)
{
	size_t n = 0;

	if (array_reserve((void **)&t->shown, &t->shown_capacity, t->procs.count,
			  sizeof(*t->shown))) {
		t->lost[LOST_ROW_ALLOC] += t->procs.count;
		return 0;
	}
	for (size_t i = 0; i < t->procs.count; i++)
		if (row_has_values(&t->procs.rows[i], t->config.cumulative))
			t->shown[n++] = &t->procs.rows[i];
	if (t->config.by_cgroup)
		n = fold_by_cgroup(t, n);
	iostats_sort(t->shown, n, t->config.sort, t->config.cumulative, &t->names);
	return n;
}

/* ---- stacks (--stacks: stacks/row_stacks.h) ---- */

/* Each shown row's top stacks (--stacks-top), heaviest first. */
static void attach_stacks(struct tally *t, size_t nshown)
{
	for (size_t i = 0; i < t->procs.count; i++) {
		t->procs.rows[i].stacks = NULL;
		t->procs.rows[i].nstacks = 0;
	}
	if (!t->config.by_cgroup)
		row_stacks_attach(&t->stacks, t->shown, nshown, t->config.stacks_top,
				  t->config.cumulative);
}

/* ---- the step ---- */

/* Each device's iostat -x figures, from /proc/diskstats as it is now: over
 * the interval since the last step and since the start.  A device the last
 * read did not list is new: its counters started at 0. */
static void count_iostat(struct tally *t, uint64_t now_ns)
{
	struct diskstats swap;

	if (!t->config.diskstats_path || t->diskstats_failed)
		return;
	if (read_diskstats(t, &t->diskstats_now)) {
		for (size_t i = 0; i < t->devices.count; i++)
			t->devices.devices[i].has_iostat = false;
		return;
	}
	for (size_t i = 0; i < t->devices.count; i++) {
		struct pmem_device *dev = &t->devices.devices[i];
		const struct diskstats_entry *now = diskstats_find(&t->diskstats_now, dev->name);

		dev->has_iostat = now != NULL;
		if (!now)
			continue;
		diskstats_change_of(diskstats_find(&t->diskstats_last, dev->name), now,
				    now_ns - t->diskstats_last_ns, &dev->iostat_change);
		iostat_x_of_change(&dev->iostat_change, &dev->iostat[0]);
		diskstats_change_of(diskstats_find(&t->diskstats_start, dev->name), now,
				    now_ns - t->start_ns, &dev->iostat_change_start);
		iostat_x_of_change(&dev->iostat_change_start, &dev->iostat[1]);
	}
	swap = t->diskstats_last;
	t->diskstats_last = t->diskstats_now;
	t->diskstats_now = swap;
	t->diskstats_last_ns = now_ns;
}

/* I/O pressure over the interval (-a: since start), once PSI was read at
 * the start. */
static void count_pressure(struct tally *t, uint64_t now_ns, struct frame *frame)
{
	bool cumulative = t->config.cumulative;
	struct io_pressure now;

	if (!t->config.pressure_path || !t->pressure_start.known ||
	    pressure_read(t->config.pressure_path, &now))
		return;
	frame->pressure_known = pressure_pct(cumulative ? &t->pressure_start : &t->pressure_last,
					     &now, now_ns - (cumulative ? t->start_ns :
							     t->pressure_last_ns),
					     &frame->pressure_some_pct, &frame->pressure_full_pct);
	t->pressure_last = now;
	t->pressure_last_ns = now_ns;
}

/* issue 45: each shown row's cgroup pressure over the interval (-a: since
 * start), each group's file read once however many rows it has. */
static void count_cgroup_pressure(struct tally *t, struct frame *frame)
{
	bool cumulative = t->config.cumulative;

	cgroup_pressure_begin(&t->cgroup_pressure, t->now_ns);
	for (size_t i = 0; i < frame->nrows; i++)
		frame->rows[i]->cgroup_pressure =
			cgroup_pressure_of(&t->cgroup_pressure, frame->rows[i]->key.cgroup,
					   cumulative);
	cgroup_pressure_end(&t->cgroup_pressure, cumulative);
}

/* How each device is stacked, as sysfs says now (lsblk's view). */
static void learn_layers(struct tally *t)
{
	for (size_t i = 0; i < t->devices.count; i++)
		devlayers_read(tally_sysfs_root(t), t->devices.devices[i].name,
			       &t->devices.devices[i].layers);
}

/* The interval's length as it was, in whole milliseconds: a stalled loop
 * makes it longer than asked for, and rates divide by what it was. */
static double measured_interval_s(struct tally *t, uint64_t now_ns)
{
	uint64_t ns = now_ns > t->interval_end_ns ? now_ns - t->interval_end_ns : 0;

	t->interval_end_ns = now_ns;
	if (ns < 500000)		/* never 0: rates divide by it */
		return 0.001;
	return (double)((ns + 500000) / 1000000) / 1e3;
}

void tally_frame(struct tally *t, const struct snapshot *s, uint64_t now_ns,
		 const struct timespec *wall, bool final, struct frame *frame)
{
	t->now_ns = now_ns;
	reconcile_crashes(t, s, now_ns, final);
	count_losses(t, s);
	devname_refresh(&t->devnames);
	cgroup_names_refresh(&t->cgroups);
	if (users_refresh(&t->users))
		tally_rename_users(t);
	crashfree_update(&t->crash, now_ns);

	memset(frame, 0, sizeof(*frame));
	frame->wall = *wall;
	frame->interval_s = measured_interval_s(t, now_ns);
	frame->cumulative = t->config.cumulative;
	frame->per_process_latency = t->config.per_process_latency;
	frame->by_cgroup = t->config.by_cgroup;
	frame->per_thread = t->config.per_thread;
	frame->names = &t->names;
	frame->devices = &t->devices;
	frame->crash = &t->crash;
	frame->io_events = t->io_events;
	frame->run_s = (double)(now_ns - t->start_ns) / 1e9;
	count_pressure(t, now_ns, frame);
	if (!t->config.trace) {
		count_rows(t, s);
		/* as the frame shows it: no task waits more than 100% of it */
		tally_count_waits(t, s, (uint64_t)(frame->interval_s * 1e9 + 0.5), frame);
		count_device_flushes(t, s);
		note_dirtiers(t);
		count_device_latency(t, s);
		count_row_latency(t, s);
		pmem_flush(&t->devices);
		count_iostat(t, now_ns);
		learn_layers(t);
		if (t->config.stacks_mem)
			row_stacks_count(&t->stacks, s, t->lost);
		frame->nrows = sort_shown_rows(t);	/* may move t->shown */
		frame->rows = t->shown;
		count_cgroup_pressure(t, frame);
		frame->nidle_rows = tally_list_idle(t, frame->nrows);
		frame->idle_rows = t->idle_ptrs;
		if (t->config.stacks_mem)
			attach_stacks(t, frame->nrows);
		if (t->config.files_mountinfo)
			tally_count_files(t, s, frame);
		/* A copy: events arriving before the next frame go to
		 * t->crash_events, emptied by tally_close_interval(). */
		memcpy(t->frame_crash_events, t->crash_events,
		       t->ncrash_events * sizeof(t->crash_events[0]));
		frame->crash_events = t->frame_crash_events;
		frame->ncrash_events = t->ncrash_events;
	}
	memcpy(frame->lost, t->lost, sizeof(frame->lost));
}

static void forget_row(const struct proc_dev_key *key, void *arg)
{
	struct tally *t = arg;

	t->forget[t->nforget++] = *key;		/* room made before */
}

/* A process is gone for good once it has exited and no writeback can be
 * charged to it any more (DIRTIER_GRACE_NS after it last dirtied). */
static bool row_process_alive(uint32_t tgid, void *arg)
{
	struct tally *t = arg;

	for (size_t i = 0; i < t->ndirtiers; i++)
		if (t->dirtiers[i].tgid == tgid &&
		    t->now_ns - t->dirtiers[i].dirtied_ns < DIRTIER_GRACE_NS)
			return true;
	return t->config.process_alive(tgid);
}

/* Dirtiers past their grace are dropped from the list. */
static void prune_dirtiers(struct tally *t)
{
	size_t kept = 0;

	for (size_t i = 0; i < t->ndirtiers; i++)
		if (t->now_ns - t->dirtiers[i].dirtied_ns < DIRTIER_GRACE_NS)
			t->dirtiers[kept++] = t->dirtiers[i];
	t->ndirtiers = kept;
}

/* The interval's losses and events join the run's totals. */
static void close_counts(struct tally *t)
{
	for (int i = 0; i < LOST_NR_CAUSES; i++)
		t->lost_run[i] += t->lost[i];
	memset(t->lost, 0, sizeof(t->lost));
	t->io_events_run += t->io_events;
	t->io_events = 0;
}

void tally_close_interval(struct tally *t)
{
	t->nforget = 0;
	prune_dirtiers(t);
	/* Room for every key first: a row is dropped only with its kernel entry. */
	if (!t->config.trace &&
	    !array_reserve((void **)&t->forget, &t->forget_capacity, t->procs.count,
			   sizeof(*t->forget)))
		iostats_end_interval(&t->procs, IDLE_INTERVALS_BEFORE_FORGET, t->config.cumulative,
				     row_process_alive, forget_row, t);
	row_stacks_forget(&t->stacks, t->forget, t->nforget);
	close_counts(t);
	t->ncrash_events = 0;
	symbolizer_new_interval(t->symbolizer);
}

void tally_summary(struct tally *t, const struct snapshot *s, uint64_t now_ns,
		   const struct timespec *wall, struct summary *summary)
{
	/* s is the last frame's snapshot: what it held is counted already,
	 * and counting again changes nothing (the stacks, whose forgotten
	 * entries would count twice, are not counted again).  From a later
	 * snapshot (the loop failed before a last frame), its losses and
	 * crashes still join the run. */
	reconcile_crashes(t, s, now_ns, true);
	count_losses(t, s);
	/* In trace mode the I/Os whose completion never came are lost too. */
	if (t->config.trace)
		t->lost[LOST_COMPLETION_UNSEEN] += s->unfinished;
	if (!t->config.trace)
		count_iostat(t, now_ns);
	close_counts(t);

	memset(summary, 0, sizeof(*summary));
	summary->wall = *wall;
	summary->duration_s = (double)(now_ns - t->start_ns) / 1e9;
	memcpy(summary->lost, t->lost_run, sizeof(summary->lost));
	summary->has_io_events = t->config.trace;
	summary->io_events = t->io_events_run;
	summary->devices = t->config.trace ? NULL : &t->devices;
	summary->crash = &t->crash;
}

void tally_forgotten_keys(const struct tally *t, struct forgotten_keys *gone)
{
	gone->rows = t->forget;
	gone->nrows = t->nforget;
	gone->stacks = t->stacks.forget;
	gone->nstacks = t->stacks.nforget;
}

void tally_adopt_crash(struct tally *t, struct crashfree *saved, uint64_t read_ns)
{
	uint64_t startup_ns = t->start_ns - read_ns;

	crashfree_free(&t->crash);
	t->crash = *saved;
	memset(saved, 0, sizeof(*saved));
	t->crash.operational_mark_ns += startup_ns;
	t->crash.crashfree_mark_ns += startup_ns;
}

void tally_set_cumulative(struct tally *t, bool cumulative)
{
	t->config.cumulative = cumulative;
}

void tally_set_threads(struct tally *t, bool threads)
{
	t->config.per_thread = threads;
}

void tally_set_all_processes(struct tally *t, bool all)
{
	t->config.all_processes = all;
}

bool tally_cumulative(const struct tally *t)
{
	return t->config.cumulative;
}

bool tally_per_thread(const struct tally *t)
{
	return t->config.per_thread;
}

bool tally_all_processes(const struct tally *t)
{
	return t->config.all_processes;
}

uint64_t tally_start_ns(const struct tally *t)
{
	return t->start_ns;
}

const char *tally_device_name(struct tally *t, uint32_t dev)
{
	return devname_lookup(&t->devnames, dev);
}

const struct pmem_metrics *tally_devices(const struct tally *t)
{
	return &t->devices;
}

const struct crashfree *tally_crash(const struct tally *t)
{
	return &t->crash;
}

const struct row_stack *tally_stacks(const struct tally *t, size_t *n)
{
	*n = t->stacks.n;
	return t->stacks.all;
}

const struct stack_namer *tally_stack_namer(const struct tally *t)
{
	return symbolizer_namer(t->symbolizer);
}

void tally_user_stack(struct tally *t, const struct user_stack_event *event)
{
	symbolizer_user_stack(t->symbolizer, event);
}

void tally_stack_process_exit(struct tally *t, uint32_t tgid, uint64_t start_ns)
{
	symbolizer_process_exited(t->symbolizer, tgid, start_ns);
}
