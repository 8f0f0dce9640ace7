// SPDX-License-Identifier: GPL-2.0
/* The BPF maps copied into plain snapshots (snapshot.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include "array.h"
#include "maps.h"

static int each_by_next_key(int fd, uint32_t key_size, void *value, map_entry_fn fn, void *arg)
{
	char key[key_size], next[key_size];
	void *prev = NULL;
	int err;

	while (!bpf_map_get_next_key(fd, prev, next)) {
		memcpy(key, next, key_size);
		prev = key;
		if (bpf_map_lookup_elem(fd, key, value))
			continue;	/* deleted meanwhile */
		err = fn(key, value, arg);
		if (err)
			return err;
	}
	return 0;
}

/* See maps.h.  Hash maps have batch operations since Linux 5.6, arrays 5.9. */
int map_for_each(int fd, uint32_t key_size, uint32_t value_size, map_entry_fn fn,
			void *arg)
{
	uint32_t batch = 256, token_size = key_size > 8 ? key_size : 8;
	char in_token[token_size], out_token[token_size];
	void *keys = NULL, *values = NULL, *in = NULL;
	int err = 0;

	for (;;) {
		__u32 count = batch;
		int lookup;

		if (!keys) {
			keys = malloc((size_t)batch * key_size);
			values = malloc((size_t)batch * value_size);
			if (!keys || !values) {
				err = -ENOMEM;
				break;
			}
		}
		lookup = bpf_map_lookup_batch(fd, in, out_token, keys, values, &count, NULL);
		if (lookup < 0 && lookup != -ENOENT) {
			if (lookup == -ENOSPC && !count) {	/* a bucket holds more */
				batch *= 2;
				free(keys);
				free(values);
				keys = values = NULL;
				continue;
			}
			if (in)
				err = lookup;
			else	/* no batch operations for this map on this kernel */
				err = each_by_next_key(fd, key_size, values, fn, arg);
			break;
		}
		for (uint32_t i = 0; i < count && !err; i++)
			err = fn((char *)keys + (size_t)i * key_size,
				 (char *)values + (size_t)i * value_size, arg);
		if (err || lookup == -ENOENT)
			break;
		memcpy(in_token, out_token, token_size);
		in = in_token;
	}
	free(keys);
	free(values);
	return err;
}

struct copy_context {
	struct snapshot *snapshot;
	int nr_cpus;
	int rows_fd;		/* copy_row(): the slots' counters */
	int row_errors_fd;	/* copy_row(): the slots' failed I/Os, or -1 */
	uint64_t cut;		/* copy_row(): the rows' cut just made; 0: none */
	uint32_t value_bytes;	/* copy_row(): a slot's counters on a CPU */
	char *per_cpu, *again;	/* copy_row(): a slot's, nr_cpus each */
	size_t nsorted;		/* rows sorted by key, for merge_overflow_row() */
};

/* sum := per-CPU values (size bytes of __u64 counters, nr_cpus times)
 * added up. */
static void sum_per_cpu(const void *values, int nr_cpus, size_t size, void *sum)
{
	const __u64 *from = values;
	__u64 *to = sum;
	size_t n = size / sizeof(__u64);

	memset(sum, 0, size);
	for (int cpu = 0; cpu < nr_cpus; cpu++)
		for (size_t i = 0; i < n; i++)
			to[i] += from[cpu * n + i];
}

/* sum += values, size bytes of __u64 counters. */
static void add_counters(void *sum, const void *values, size_t size)
{
	const __u64 *from = values;
	__u64 *to = sum;

	for (size_t i = 0; i < size / sizeof(__u64); i++)
		to[i] += from[i];
}

/* A new element at the end of *array (count and capacity in elements). */
static void *append(void **array, size_t *count, size_t *capacity, size_t size)
{
	if (array_reserve(array, capacity, *count + 1, size))
		return NULL;
	return (char *)*array + (*count)++ * size;
}

/*
 * sum := slot's counters summed over CPUs, each CPU's as it stood at cut
 * (0: as they are now).  A CPU's copy that a program has added to since the
 * cut holds them in at_cut (struct row_counters).  The program writes
 * at_cut, then the cut, then adds (rows.bpf.h's slot_counters()); a lookup
 * copies a value from its start, so a copy that shows an older cut read
 * `now` before any addition since, and one that shows the cut may have read
 * at_cut before it was written: at_cut is taken from a second lookup, made
 * after the first had seen the cut (x86's stores and loads keep their order).
 */
static int slot_at_cut(struct copy_context *ctx, __u32 slot, uint64_t cut,
		       struct proc_dev_stats *sum)
{
	size_t stride = ctx->value_bytes;	/* without a cut: `now` only */
	bool again = false;

	if (bpf_map_lookup_elem(ctx->rows_fd, &slot, ctx->per_cpu))
		return -errno;
	for (int cpu = 0; cpu < ctx->nr_cpus && cut; cpu++)
		again |= ((const struct row_counters *)(ctx->per_cpu + cpu * stride))->cut == cut;
	if (again && bpf_map_lookup_elem(ctx->rows_fd, &slot, ctx->again))
		return -errno;
	memset(sum, 0, sizeof(*sum));
	for (int cpu = 0; cpu < ctx->nr_cpus; cpu++) {
		const struct row_counters *c = (const void *)(ctx->per_cpu + cpu * stride);
		const struct row_counters *c2 = (const void *)(ctx->again + cpu * stride);

		add_counters(sum, cut && c->cut == cut ? &c2->at_cut : &c->now, sizeof(*sum));
	}
	return 0;
}

/* A row of row_index: its key, whose row it is, and its slot's counters
 * summed over CPUs (at the cut, if one was made). */
static int copy_row(const void *key, const void *value, void *arg)
{
	const struct row_entry *entry = value;
	struct copy_context *ctx = arg;
	struct snapshot *s = ctx->snapshot;
	struct snapshot_row *row;
	struct proc_dev_stats stats;
	int err = slot_at_cut(ctx, entry->at.slot, ctx->cut, &stats);

	if (err)
		return err;
	row = append((void **)&s->rows, &s->nrows, &s->rows_capacity, sizeof(*row));
	if (!row)
		return -ENOMEM;
	memcpy(&row->key, key, sizeof(row->key));
	row->owner = entry->owner;
	row->stats = stats;
	memset(&row->errors, 0, sizeof(row->errors));
	if (ctx->row_errors_fd >= 0 &&
	    bpf_map_lookup_elem(ctx->row_errors_fd, &entry->at.slot, &row->errors))
		return -errno;
	return 0;
}

static int compare_rows(const void *a, const void *b)
{
	return memcmp(&((const struct snapshot_row *)a)->key,
		      &((const struct snapshot_row *)b)->key, sizeof(struct proc_dev_key));
}

/* An overflow row: added to the per-CPU map's row of its key (the first
 * nsorted rows, sorted), else a row of its own. */
static int merge_overflow_row(const void *key, const void *value, void *arg)
{
	const struct overflow_row *entry = value;
	struct copy_context *ctx = arg;
	struct snapshot *s = ctx->snapshot;
	struct snapshot_row *row = bsearch(key, s->rows, ctx->nsorted, sizeof(*row), compare_rows);

	if (!row) {
		row = append((void **)&s->rows, &s->nrows, &s->rows_capacity, sizeof(*row));
		if (!row)
			return -ENOMEM;
		memcpy(&row->key, key, sizeof(row->key));
		memset(&row->stats, 0, sizeof(row->stats));
		/* A shared row keeps no failed I/Os (errors.bpf.h: they are
		 * error_unattributed); left as the array's memory had it, they
		 * were garbage, and a garbage counter that later read lower
		 * made the row look begun anew: its I/O counted twice. */
		memset(&row->errors, 0, sizeof(row->errors));
		row->owner = entry->owner;
	}
	add_counters(&row->stats, &entry->stats, sizeof(row->stats));
	return 0;
}

/*
 * Where a map's entries are copied whole: an array of elements that hold
 * the key at their start and the value at value_offset (struct
 * snapshot_latency and its kind), grown as it fills.
 */
struct entry_array {
	void **array;
	size_t *count, *capacity;
	size_t size, key_size, value_offset, value_size;
};

/* The entry_array of a snapshot's array member, of elements of type whose
 * members key and value hold the map's key and value. */
#define ENTRY_ARRAY(s, member, type, key, value) ((struct entry_array){		\
	.array = (void **)&(s)->member, .count = &(s)->n##member,			\
	.capacity = &(s)->member##_capacity, .size = sizeof(type),			\
	.key_size = sizeof(((type *)0)->key), .value_offset = offsetof(type, value),	\
	.value_size = sizeof(((type *)0)->value) })

static int copy_entry(const void *key, const void *value, void *arg)
{
	const struct entry_array *to = arg;
	char *entry = append(to->array, to->count, to->capacity, to->size);

	if (!entry)
		return -ENOMEM;
	memcpy(entry, key, to->key_size);
	memcpy(entry + to->value_offset, value, to->value_size);
	return 0;
}

/* Every entry of the map fd into to.  0 or -errno (map_for_each()'s). */
static int copy_map(int fd, struct entry_array to)
{
	return map_for_each(fd, to.key_size, to.value_size, copy_entry, &to);
}

static int copy_lost(const void *key, const void *value, void *arg)
{
	struct copy_context *ctx = arg;
	uint32_t cause;

	memcpy(&cause, key, sizeof(cause));
	if (cause < LOST_NR_CAUSES)
		sum_per_cpu(value, ctx->nr_cpus, sizeof(__u64), &ctx->snapshot->lost[cause]);
	return 0;
}

static int count_in_flight(const void *key, const void *value, void *arg)
{
	const struct inflight_bucket *bucket = value;

	(void)key;
	for (int way = 0; way < INFLIGHT_WAYS; way++)
		if (bucket->id[way])
			((struct copy_context *)arg)->snapshot->unfinished++;
	return 0;
}

/* The frames of stack id, if not read before: the kernel's value is
 * STACK_MAX_FRAMES addresses, the unused ones 0.  An id that cannot be read
 * now is tried again next time. */
static int read_trace(struct snapshot *s, const struct snapshot_maps *maps, int32_t id)
{
	struct snapshot_trace *trace;
	__u32 key = id;

	if (id < 0 || (uint32_t)id >= maps->nstack_ids || maps->stack_ids_read[id])
		return 0;
	trace = append((void **)&s->traces, &s->ntraces, &s->traces_capacity, sizeof(*trace));
	if (!trace)
		return -ENOMEM;
	if (bpf_map_lookup_elem(maps->stack_traces, &key, trace->frames)) {
		s->ntraces--;
		return 0;
	}
	trace->id = id;
	trace->nframes = 0;
	while (trace->nframes < STACK_MAX_FRAMES && trace->frames[trace->nframes])
		trace->nframes++;
	maps->stack_ids_read[id] = 1;
	return 0;
}

/* Every stack_counts entry, and the frames of the stacks new among them. */
static int read_stacks(struct snapshot *s, const struct snapshot_maps *maps)
{
	int err = copy_map(maps->stack_counts,
			   ENTRY_ARRAY(s, stacks, struct snapshot_stack, key, counts));

	for (size_t i = 0; i < s->nstacks && !err; i++) {
		err = read_trace(s, maps, s->stacks[i].key.kernel_stack);
		if (!err)
			err = read_trace(s, maps, s->stacks[i].key.user_stack);
	}
	return err;
}

/*
 * --files: the rows' cut moved on (*cut its new value), and the programs
 * that read the old one are done: an update of a map-in-map returns only
 * once no program that ran before it still runs (the kernel waits for them,
 * since Linux 4.13), so the old cut's map is put back in its own place.
 */
static int move_cut(struct file_count_maps *files, uint64_t *cut)
{
	__u32 old = (__u32)(*files->cut & 1);

	*cut = *files->cut + 1;
	*files->cut = *cut;
	if (bpf_map_update_elem(files->outer, &old, &files->counts[old], BPF_ANY))
		return -errno;
	return 0;
}

/*
 * --files: the counts of the interval that ended at cut, read with nothing
 * adding to them, and emptied for cut + 1.  Entries of a read that failed
 * stay, to be read with the next use of the map's.
 */
static int drain_files(struct snapshot *s, const struct file_count_maps *files, uint64_t cut)
{
	int drained = files->counts[(cut - 1) & 1], err;

	err = copy_map(drained, ENTRY_ARRAY(s, files, struct snapshot_file, key, counts));
	for (size_t i = 0; !err && i < s->nfiles; i++)
		if (bpf_map_delete_elem(drained, &s->files[i].key) && errno != ENOENT)
			err = -errno;
	return err;
}

int snapshot_read(struct snapshot *s, const struct snapshot_maps *maps, int nr_cpus)
{
	struct copy_context ctx = { .snapshot = s, .nr_cpus = nr_cpus };
	int err = 0;

	s->nrows = s->nlatency = s->nrow_latency = s->ncrashes = s->nflushes = 0;
	s->nstacks = s->ntraces = s->nfiles = 0;
	s->unfinished = 0;
	/* First: the rows are read as they were at the cut, which ends the
	 * interval of the --files counts that are drained below. */
	if (maps->files && maps->row_index >= 0)
		err = move_cut(maps->files, &ctx.cut);
	if (!err)
		err = map_for_each(maps->lost, sizeof(__u32), nr_cpus * sizeof(__u64), copy_lost,
				   &ctx);
	if (!err)
		err = copy_map(maps->crash_counts,
			       ENTRY_ARRAY(s, crashes, struct snapshot_crashes, comm, count));
	if (!err && maps->row_index >= 0) {
		ctx.rows_fd = maps->rows;
		ctx.row_errors_fd = maps->row_errors;
		ctx.value_bytes = maps->row_value_bytes;
		ctx.per_cpu = calloc(nr_cpus, ctx.value_bytes);
		ctx.again = calloc(nr_cpus, ctx.value_bytes);
		err = ctx.per_cpu && ctx.again ?
		      map_for_each(maps->row_index, sizeof(struct proc_dev_key),
				   sizeof(struct row_entry), copy_row, &ctx) : -ENOMEM;
		free(ctx.per_cpu);
		free(ctx.again);
	}
	if (!err && maps->overflow_stats >= 0) {
		qsort(s->rows, s->nrows, sizeof(*s->rows), compare_rows);
		ctx.nsorted = s->nrows;
		err = map_for_each(maps->overflow_stats, sizeof(struct proc_dev_key),
				   sizeof(struct overflow_row), merge_overflow_row, &ctx);
	}
	if (!err && maps->device_latency >= 0)
		err = copy_map(maps->device_latency,
			       ENTRY_ARRAY(s, latency, struct snapshot_latency, dev, latency));
	if (!err && maps->device_flushes >= 0)
		err = copy_map(maps->device_flushes,
			       ENTRY_ARRAY(s, flushes, struct snapshot_flushes, dev, flushes));
	/* After the rows: a histogram read later holds at least the
	 * completions its row's latency_ios holds (tally.h). */
	if (!err && maps->row_latency >= 0)
		err = copy_map(maps->row_latency,
			       ENTRY_ARRAY(s, row_latency, struct snapshot_row_latency, key, latency));
	/* The interval's files, to the cut the rows were read at. */
	if (!err && ctx.cut)
		err = drain_files(s, maps->files, ctx.cut);
	/* After the rows: a stack's counts are at most its row's. */
	if (!err && maps->stack_counts >= 0)
		err = read_stacks(s, maps);
	if (!err && maps->inflight_ids >= 0)
		err = map_for_each(maps->inflight_ids, sizeof(__u32), sizeof(struct inflight_bucket),
				   count_in_flight, &ctx);
	return err;
}

/* Delete key from a hash map, its value (values: one a CPU in a per-CPU map)
 * read as it was deleted.  1 if it was there, 0 if not, or -errno. */
static int take_entry(int fd, const void *key, void *value)
{
	int err;

	if (fd < 0)
		return 0;
	err = bpf_map_lookup_and_delete_elem(fd, key, value);
	if (err == -ENOENT)
		return 0;
	return err ? err : 1;
}

/* Give the slots retired by the last snapshot_forget() back, zeroed. */
static int give_back_slots(const struct snapshot_maps *maps, void *zeros)
{
	static const struct row_errors no_errors;
	struct retired_slots *r = maps->retired;

	for (size_t i = 0; i < r->n; i++) {
		__u32 slot = r->slots[i];

		if (bpf_map_update_elem(maps->rows, &slot, zeros, BPF_ANY) ||
		    (maps->row_errors >= 0 &&
		     bpf_map_update_elem(maps->row_errors, &slot, &no_errors, BPF_ANY)) ||
		    bpf_map_update_elem(maps->free_rows, NULL, &slot, BPF_ANY))
			return -errno;
	}
	r->n = 0;
	return 0;
}

/*
 * Take key's row out of the rows: its index entry deleted, its slot's
 * generation raised (no CPU's memo finds it any more), its counters read
 * into per_cpu, the slot retired until the next call.  1 if the key had a
 * row, 0 if not, or -errno.
 */
static int take_row(const struct snapshot_maps *maps, const struct proc_dev_key *key,
		    void *per_cpu, struct row_owner *owner, struct row_errors *errors)
{
	struct retired_slots *r = maps->retired;
	struct row_entry entry;
	__u64 gen;
	int taken = take_entry(maps->row_index, key, &entry);

	if (taken <= 0)
		return taken;
	*owner = entry.owner;
	gen = entry.at.gen + 1;
	if (bpf_map_update_elem(maps->row_gens, &entry.at.slot, &gen, BPF_ANY) ||
	    bpf_map_lookup_elem(maps->rows, &entry.at.slot, per_cpu) ||
	    (maps->row_errors >= 0 &&
	     bpf_map_lookup_elem(maps->row_errors, &entry.at.slot, errors)))
		return -errno;
	if (array_reserve((void **)&r->slots, &r->capacity, r->n + 1, sizeof(*r->slots)))
		return -ENOMEM;
	r->slots[r->n++] = entry.at.slot;
	return 1;
}

int snapshot_forget(struct snapshot *s, const struct snapshot_maps *maps,
		    const struct proc_dev_key *keys, size_t n, int nr_cpus)
{
	size_t stride = maps->row_value_bytes;
	char *per_cpu = calloc(nr_cpus, stride), *zeros = calloc(nr_cpus, stride);
	struct overflow_row shared;
	struct dev_latency latency;
	int err = per_cpu && zeros ? 0 : -ENOMEM;

	s->nfinal_rows = s->nfinal_row_latency = 0;
	if (!err && maps->row_index >= 0)
		err = give_back_slots(maps, zeros);
	for (size_t i = 0; i < n && !err; i++) {
		struct snapshot_row *row;
		struct snapshot_row_latency *entry;
		struct row_owner owner = {};
		struct row_errors errors = {};
		int in_stats = maps->row_index >= 0 ?
			       take_row(maps, &keys[i], per_cpu, &owner, &errors) : 0;
		int in_overflow = take_entry(maps->overflow_stats, &keys[i], &shared);
		int in_latency = take_entry(maps->row_latency, &keys[i], &latency);

		if (in_stats < 0 || in_overflow < 0 || in_latency < 0) {
			err = in_stats < 0 ? in_stats : in_overflow < 0 ? in_overflow : in_latency;
			break;
		}
		if (in_stats || in_overflow) {
			row = append((void **)&s->final_rows, &s->nfinal_rows,
				     &s->final_rows_capacity, sizeof(*row));
			if (!row) {
				err = -ENOMEM;
				break;
			}
			row->key = keys[i];
			row->owner = in_stats ? owner : shared.owner;
			memset(&row->stats, 0, sizeof(row->stats));
			row->errors = errors;
			/* all it holds, the cut's or since: the next frame's */
			for (int cpu = 0; in_stats && cpu < nr_cpus; cpu++)
				add_counters(&row->stats, per_cpu + cpu * stride,
					     sizeof(row->stats));
			if (in_overflow)
				add_counters(&row->stats, &shared.stats, sizeof(row->stats));
		}
		if (in_latency) {
			entry = append((void **)&s->final_row_latency, &s->nfinal_row_latency,
				       &s->final_row_latency_capacity, sizeof(*entry));
			if (!entry) {
				err = -ENOMEM;
				break;
			}
			entry->key = keys[i];
			entry->latency = latency;
		}
	}
	free(per_cpu);
	free(zeros);
	return err;
}

int snapshot_forget_stacks(struct snapshot *s, const struct snapshot_maps *maps,
			   const struct stack_key *keys, size_t n)
{
	s->nfinal_stacks = 0;
	for (size_t i = 0; i < n; i++) {
		struct stack_counts counts;
		struct snapshot_stack *entry;
		int found = take_entry(maps->stack_counts, &keys[i], &counts);

		if (found < 0)
			return found;
		if (!found)
			continue;
		entry = append((void **)&s->final_stacks, &s->nfinal_stacks,
			       &s->final_stacks_capacity, sizeof(*entry));
		if (!entry)
			return -ENOMEM;
		entry->key = keys[i];
		entry->counts = counts;
	}
	return 0;
}

struct old_owners {
	struct inode_key *keys;
	size_t n, capacity;
	uint64_t before_ns;
};

static int collect_old_owner(const void *key, const void *value, void *arg)
{
	const struct write_owner *owner = value;
	struct old_owners *old = arg;

	if (owner->dirtied_ns >= old->before_ns)
		return 0;
	void *slot = append((void **)&old->keys, &old->n, &old->capacity, sizeof(*old->keys));

	if (!slot)
		return -ENOMEM;
	memcpy(slot, key, sizeof(*old->keys));
	return 0;
}

int owners_forget_older(int fd, uint64_t before_ns)
{
	struct old_owners old = { .before_ns = before_ns };
	int err = map_for_each(fd, sizeof(struct inode_key), sizeof(struct write_owner),
			       collect_old_owner, &old);

	for (size_t i = 0; i < old.n; i++)
		bpf_map_delete_elem(fd, &old.keys[i]);
	free(old.keys);
	return err;
}

/* ---- IO> and SWAPIN ---- */

/* The iterator's output: whole records, however read() cuts it. */
static int read_task_iterator(int link_fd, struct waits_reading *r)
{
	int fd = bpf_iter_create(link_fd), err = 0;
	size_t bytes = 0;

	if (fd < 0)
		return fd;
	for (;;) {
		ssize_t got;

		if (array_reserve((void **)&r->tasks, &r->capacity, bytes / sizeof(*r->tasks) + 64,
				  sizeof(*r->tasks))) {
			err = -ENOMEM;
			break;
		}
		got = read(fd, (char *)r->tasks + bytes, r->capacity * sizeof(*r->tasks) - bytes);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0)
			err = -errno;
		if (got <= 0)
			break;
		bytes += (size_t)got;
	}
	close(fd);
	r->n = bytes / sizeof(*r->tasks);
	return err;
}

static int copy_exited_waits(const void *key, const void *value, void *arg)
{
	struct waits_reading *r = arg;

	(void)key;
	if (array_reserve((void **)&r->tasks, &r->capacity, r->n + 1, sizeof(*r->tasks)))
		return -ENOMEM;
	memcpy(&r->tasks[r->n++], value, sizeof(*r->tasks));
	return 0;
}

int waits_read(int link_fd, int exited_fd, struct waits_reading *r)
{
	size_t first_exited;
	int err;

	r->n = 0;
	r->taken = false;
	err = read_task_iterator(link_fd, r);
	first_exited = r->n;
	if (!err)
		err = map_for_each(exited_fd, sizeof(struct task_id), sizeof(struct task_waits),
				   copy_exited_waits, r);
	/* A task exits once: its key is not written again after it is read. */
	for (size_t i = first_exited; i < r->n; i++)
		bpf_map_delete_elem(exited_fd, &r->tasks[i].id);
	r->taken = !err;
	return err;
}
