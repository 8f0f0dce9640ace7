// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>
#include "array.h"
#include "iostats.h"

const struct sort_key_info sort_keys[SORT_NR_KEYS] = {
	{ SORT_PID, "pid", true },
	{ SORT_COMM, "comm", true },
	{ SORT_SWAPIN, "swapin", false },
	{ SORT_IOWAIT, "iowait", false },
	{ SORT_DEVICE, "device", true },
	{ SORT_BYTES, "bytes", false },
	{ SORT_READ, "read", false },
	{ SORT_WRITE, "write", false },
	{ SORT_DISCARD, "discard", false },
	{ SORT_ERRORS, "errors", false },	/* the top view's ERR */
	{ SORT_IOS, "ios", false },
	{ SORT_READ_IOS, "r_iops", false },
	{ SORT_WRITE_IOS, "w_iops", false },
	{ SORT_DISCARD_IOS, "d_iops", false },
	{ SORT_LATENCY, "latency", false },
	{ SORT_DIRTY, "dirty", false },
	{ SORT_CGROUP, "cgroup", true },
};

static const struct sort_key_info *sort_key_info(enum sort_key key)
{
	for (size_t i = 0; i < SORT_NR_KEYS; i++)
		if (sort_keys[i].key == key)
			return &sort_keys[i];
	return NULL;
}

const char *sort_key_name(enum sort_key key)
{
	const struct sort_key_info *info = sort_key_info(key);

	return info ? info->name : "?";
}

bool sort_key_ascending(enum sort_key key)
{
	const struct sort_key_info *info = sort_key_info(key);

	return info && info->ascending;
}

void iostats_init(struct iostats *t)
{
	memset(t, 0, sizeof(*t));
}

/* The rows before the last drop: the dropped ones' latency and command
 * line go with them (the kept ones' moved on with the rows). */
static void free_retired(struct iostats *t)
{
	for (size_t i = 0; i < t->nretired; i++) {
		if (t->retired[i].dropped) {
			free(t->retired[i].latency);
			free(t->retired[i].cmdline);
		}
	}
	free(t->retired);
	t->retired = NULL;
	t->nretired = 0;
}

void iostats_free(struct iostats *t)
{
	free_retired(t);
	for (size_t i = 0; i < t->count; i++) {
		free(t->rows[i].latency);
		free(t->rows[i].cmdline);
	}
	free(t->rows);
	free(t->index);
	iostats_init(t);
}

void iostats_begin_interval(struct iostats *t)
{
	free_retired(t);
	for (size_t i = 0; i < t->count; i++) {
		memset(t->rows[i].delta, 0, sizeof(t->rows[i].delta));
		memset(&t->rows[i].wait_delta, 0, sizeof(t->rows[i].wait_delta));
		if (t->rows[i].latency)
			memset(&t->rows[i].latency->delta, 0, sizeof(t->rows[i].latency->delta));
		t->rows[i].updated = false;
	}
}

void iostats_counters_from_kernel(const struct proc_dev_stats *stats,
				  uint64_t counters[PMEM_NR_COUNTERS])
{
	counters[PMEM_READ_BYTES] = stats->bytes[IO_READ];
	counters[PMEM_WRITE_BYTES] = stats->bytes[IO_WRITE];
	counters[PMEM_DISCARD_BYTES] = stats->bytes[IO_DISCARD];
	counters[PMEM_READ_IOS] = stats->ios[IO_READ];
	counters[PMEM_WRITE_IOS] = stats->ios[IO_WRITE];
	counters[PMEM_DISCARD_IOS] = stats->ios[IO_DISCARD];
	counters[PMEM_FLUSHES] = stats->flushes;
	counters[PMEM_LATENCY_NS] = stats->latency_ns;
	counters[PMEM_LATENCY_IOS] = stats->latency_ios;
	counters[PMEM_DIRTIED_BYTES] = stats->dirtied_bytes;
	counters[PMEM_WRITEBACK_BYTES] = stats->writeback_bytes;
}

static uint32_t key_hash(const struct proc_dev_key *key)
{
	const unsigned char *bytes = (const unsigned char *)key;
	uint32_t hash = 2166136261u;	/* FNV-1a */

	for (size_t i = 0; i < sizeof(*key); i++)
		hash = (hash ^ bytes[i]) * 16777619u;
	return hash;
}

static bool key_equal(const struct proc_dev_key *a, const struct proc_dev_key *b)
{
	return a->tgid == b->tgid && a->dev == b->dev && a->cgroup == b->cgroup &&
	       !memcmp(a->comm, b->comm, sizeof(a->comm));
}

/* Slot of key in the index: the one holding it, or the empty one to use. */
static size_t index_slot(const struct iostats *t, const struct proc_dev_key *key)
{
	size_t mask = t->index_size - 1;
	size_t slot = key_hash(key) & mask;

	while (t->index[slot] && !key_equal(&t->rows[t->index[slot] - 1].key, key))
		slot = (slot + 1) & mask;
	return slot;
}

static int rebuild_index(struct iostats *t, size_t index_size)
{
	uint32_t *index = calloc(index_size, sizeof(*index));

	if (!index)
		return -1;
	free(t->index);
	t->index = index;
	t->index_size = index_size;
	for (size_t i = 0; i < t->count; i++)
		t->index[index_slot(t, &t->rows[i].key)] = i + 1;
	return 0;
}

/* One row at a time, from a power of two: the capacity doubles, and stays
 * a power of two for the index. */
static int grow(struct iostats *t)
{
	if (array_reserve((void **)&t->rows, &t->capacity, t->count + 1, sizeof(*t->rows)))
		return -1;
	return rebuild_index(t, t->capacity * 4);
}

struct proc_io *iostats_find(struct iostats *t, const struct proc_dev_key *key)
{
	size_t slot;

	if (!t->index_size)
		return NULL;
	slot = index_slot(t, key);
	return t->index[slot] ? &t->rows[t->index[slot] - 1] : NULL;
}

bool iostats_latency_summary(const struct proc_io *row, bool cumulative,
			     struct latency_summary *summary)
{
	const struct latency_hist *hist;
	const uint64_t *values = iostats_values(row, cumulative);

	memset(summary, 0, sizeof(*summary));
	if (!row->latency || row->latency->incomplete || !values[PMEM_LATENCY_IOS])
		return false;
	hist = cumulative ? &row->latency->total : &row->latency->delta;
	summary->ios = values[PMEM_LATENCY_IOS];
	summary->avg_us = (double)values[PMEM_LATENCY_NS] / (double)summary->ios / 1000.0;
	return latency_percentile_us(hist, 0.50, &summary->p50_us) &&
	       latency_percentile_us(hist, 0.95, &summary->p95_us) &&
	       latency_percentile_us(hist, 0.99, &summary->p99_us);
}

/* The row of key, made (zeroed) if there is none. */
static struct proc_io *row_of(struct iostats *t, const struct proc_dev_key *key, bool *created)
{
	struct proc_io *row;
	size_t slot;

	*created = false;
	if (t->count == t->capacity && grow(t))
		return NULL;
	slot = index_slot(t, key);
	if (t->index[slot])
		return &t->rows[t->index[slot] - 1];
	row = &t->rows[t->count++];
	memset(row, 0, sizeof(*row));
	row->key = *key;
	t->index[slot] = t->count;
	*created = true;
	return row;
}

struct proc_io *iostats_wait_row(struct iostats *t, const struct proc_dev_key *key,
				 bool *created)
{
	return row_of(t, key, created);
}

struct proc_io *iostats_record(struct iostats *t, const struct proc_dev_key *key,
			       const uint64_t counters[PMEM_NR_COUNTERS], bool *created)
{
	struct proc_io *row = row_of(t, key, created);
	bool restarted = false;

	if (!row)
		return NULL;
	for (int i = 0; i < PMEM_NR_COUNTERS; i++)
		if (counters[i] < row->seen[i])
			restarted = true;
	if (restarted)		/* the kernel entry began anew: all of it is new */
		memset(row->seen, 0, sizeof(row->seen));
	for (int i = 0; i < PMEM_NR_COUNTERS; i++) {
		uint64_t change = counter_delta(&row->seen[i], counters[i]);

		row->delta[i] += change;
		row->total[i] += change;
	}
	row->updated = true;
	return row;
}

void iostats_restart_forgotten(struct iostats *t)
{
	for (size_t i = 0; i < t->count; i++) {
		struct proc_io *row = &t->rows[i];

		if (!row->forgetting)
			continue;
		row->forgetting = false;
		row->updated = false;
		memset(row->seen, 0, sizeof(row->seen));
		if (row->latency)	/* its kernel entry went too */
			memset(&row->latency->seen, 0, sizeof(row->latency->seen));
	}
}

static bool row_changed(const struct proc_io *row)
{
	for (int i = 0; i < PMEM_NR_COUNTERS; i++)
		if (row->delta[i])
			return true;
	return row->wait_delta.blkio_ns || row->wait_delta.swapin_ns;
}

size_t iostats_end_interval(struct iostats *t, uint32_t min_idle, bool keep_totals,
			    bool (*is_alive)(uint32_t tgid, void *arg),
			    void (*forget)(const struct proc_dev_key *key, void *arg), void *arg)
{
	size_t kept = 0, forgotten = 0, ndropped = 0;
	struct proc_io *rows;

	free_retired(t);
	for (size_t i = 0; i < t->count; i++) {
		struct proc_io *row = &t->rows[i];

		row->idle_intervals = row_changed(row) ? 0 : row->idle_intervals + 1;
		if (row->idle_intervals >= min_idle && row->key.tgid && !row->forgetting &&
		    !is_alive(row->key.tgid, arg)) {
			if (row->updated) {
				forget(&row->key, arg);
				forgotten++;
				row->forgetting = true;
			} else if (!keep_totals) {
				row->dropped = true;
				ndropped++;
			}
		}
	}
	if (!ndropped)
		return forgotten;
	/* The kept rows go to a new array, the old one stays as it is until
	 * the next interval: a frame shown points into it.  Without memory,
	 * nothing is dropped: the rows are still idle and gone next time. */
	rows = malloc(t->capacity * sizeof(*rows));
	if (!rows) {
		for (size_t i = 0; i < t->count; i++)
			t->rows[i].dropped = false;
		return forgotten;
	}
	for (size_t i = 0; i < t->count; i++)
		if (!t->rows[i].dropped)
			rows[kept++] = t->rows[i];
	t->retired = t->rows;
	t->nretired = t->count;
	t->rows = rows;
	t->count = kept;
	rebuild_index(t, t->index_size);
	return forgotten;
}

/* Sums of up to IO_ERROR_KINDS counters, each below 2^64: widened, they
 * cannot wrap. */
static unsigned __int128 counter_sum(const uint64_t *values, enum row_counter by)
{
	unsigned __int128 sum = 0;

	switch (by) {
	case ROW_BYTES:
		return (unsigned __int128)values[PMEM_READ_BYTES] + values[PMEM_WRITE_BYTES] +
		       values[PMEM_DISCARD_BYTES];
	case ROW_IOS:
		return (unsigned __int128)values[PMEM_READ_IOS] + values[PMEM_WRITE_IOS] +
		       values[PMEM_DISCARD_IOS];
	case ROW_ERRORS:
		for (int k = 0; k < IO_ERROR_KINDS; k++)
			sum += values[PMEM_ERRORS + k];
		return sum;
	default:
		return values[by - ROW_COUNTER];
	}
}

int row_counter_compare(const uint64_t *a, const uint64_t *b, enum row_counter by)
{
	unsigned __int128 left, right;

	if (by == ROW_LATENCY) {
		/* Averages compared exactly (a/b against c/d as a*d against c*b); a
		 * row without latency is below every row with one. */
		bool has_a = a[PMEM_LATENCY_IOS], has_b = b[PMEM_LATENCY_IOS];

		if (!has_a || !has_b)
			return (int)has_a - (int)has_b;
		left = (unsigned __int128)a[PMEM_LATENCY_NS] * b[PMEM_LATENCY_IOS];
		right = (unsigned __int128)b[PMEM_LATENCY_NS] * a[PMEM_LATENCY_IOS];
	} else {
		left = counter_sum(a, by);
		right = counter_sum(b, by);
	}
	return (left > right) - (left < right);
}

int iostats_compare(const struct proc_io *a, const struct proc_io *b, enum sort_key key,
		    bool cumulative, const struct res_table *names)
{
	const uint64_t *va = iostats_values(a, cumulative), *vb = iostats_values(b, cumulative);
	int order = 0;

	switch (key) {
	case SORT_BYTES:
		order = -row_counter_compare(va, vb, ROW_BYTES);
		break;
	case SORT_READ:
		order = -row_counter_compare(va, vb, ROW_COUNTER + PMEM_READ_BYTES);
		break;
	case SORT_WRITE:
		order = -row_counter_compare(va, vb, ROW_COUNTER + PMEM_WRITE_BYTES);
		break;
	case SORT_IOS:
		order = -row_counter_compare(va, vb, ROW_IOS);
		break;
	case SORT_LATENCY:
		order = -row_counter_compare(va, vb, ROW_LATENCY);
		break;
	case SORT_DIRTY:
		order = -row_counter_compare(va, vb, ROW_COUNTER + PMEM_DIRTIED_BYTES);
		break;
	case SORT_PID:
		order = (a->key.tgid > b->key.tgid) - (a->key.tgid < b->key.tgid);
		break;
	case SORT_COMM:
		order = strcmp(res_name(names, a->comm_name, NULL), res_name(names, b->comm_name, NULL));
		break;
	case SORT_DISCARD:
		order = -row_counter_compare(va, vb, ROW_COUNTER + PMEM_DISCARD_BYTES);
		break;
	case SORT_READ_IOS:
		order = -row_counter_compare(va, vb, ROW_COUNTER + PMEM_READ_IOS);
		break;
	case SORT_WRITE_IOS:
		order = -row_counter_compare(va, vb, ROW_COUNTER + PMEM_WRITE_IOS);
		break;
	case SORT_DISCARD_IOS:
		order = -row_counter_compare(va, vb, ROW_COUNTER + PMEM_DISCARD_IOS);
		break;
	case SORT_ERRORS:
		order = -row_counter_compare(va, vb, ROW_ERRORS);
		break;
	case SORT_DEVICE:
		order = strcmp(res_name(names, a->device_name, NULL),
			       res_name(names, b->device_name, NULL));
		break;
	case SORT_CGROUP:
		order = strcmp(a->cgroup_name ? res_name(names, a->cgroup_name, NULL) : "",
			       b->cgroup_name ? res_name(names, b->cgroup_name, NULL) : "");
		break;
	case SORT_IOWAIT:
	case SORT_SWAPIN: {
		/* Rows of one frame share its interval: the longer wait is the
		 * larger share. */
		const struct iowait_ns *wa = iostats_waits(a, cumulative);
		const struct iowait_ns *wb = iostats_waits(b, cumulative);
		uint64_t na = key == SORT_IOWAIT ? wa->blkio_ns : wa->swapin_ns;
		uint64_t nb = key == SORT_IOWAIT ? wb->blkio_ns : wb->swapin_ns;

		order = (na < nb) - (na > nb);
		break;
	}
	}
	if (order)
		return order;
	/* Ties: a stable, total order so rows do not jump between intervals. */
	if (a->key.tgid != b->key.tgid)
		return (a->key.tgid > b->key.tgid) - (a->key.tgid < b->key.tgid);
	if (a->key.dev != b->key.dev)
		return (a->key.dev > b->key.dev) - (a->key.dev < b->key.dev);
	if (a->key.cgroup != b->key.cgroup)
		return (a->key.cgroup > b->key.cgroup) - (a->key.cgroup < b->key.cgroup);
	return memcmp(a->key.comm, b->key.comm, sizeof(a->key.comm));
}

struct sort_context {
	enum sort_key key;
	bool cumulative;
	const struct res_table *names;
};

static int compare_row_pointers(const void *pa, const void *pb, void *arg)
{
	const struct sort_context *ctx = arg;

	return iostats_compare(*(struct proc_io *const *)pa, *(struct proc_io *const *)pb,
			       ctx->key, ctx->cumulative, ctx->names);
}

void iostats_sort(struct proc_io **rows, size_t n, enum sort_key key, bool cumulative,
		  const struct res_table *names)
{
	struct sort_context ctx = { key, cumulative, names };

	if (n < 2)
		return;
	qsort_r(rows, n, sizeof(*rows), compare_row_pointers, &ctx);
}
