// SPDX-License-Identifier: GPL-2.0
/* Map sizes for a budget of kernel memory (mapsize.h). */
#include <stddef.h>
#include "abi.h"
#include "mapsize.h"

#define PAGE_BYTES		4096ULL
/* The kernel's own structures, as counted on x86-64 (Linux 6.1-6.18). */
#define HTAB_HEADER_BYTES	832	/* struct bpf_htab */
#define HTAB_ELEM_BYTES		48	/* struct htab_elem, before key and value */
#define HTAB_BUCKET_BYTES	16	/* struct bucket */
#define HTAB_LOCKS_PER_CPU	8	/* HASHTAB_MAP_LOCK_COUNT ints */
#define ARRAY_HEADER_BYTES	312	/* struct bpf_array */
#define STACK_MAP_HEADER_BYTES	320	/* struct bpf_stack_map */
#define STACK_BUCKET_BYTES	16	/* struct stack_map_bucket, before its frames */
#define QUEUE_HEADER_BYTES	312	/* struct bpf_queue_stack */

static uint64_t round_up8(uint64_t n)
{
	return (n + 7) & ~7ULL;
}

static uint64_t pow2_at_least(uint64_t n)
{
	uint64_t p = 1;

	while (p < n)
		p <<= 1;
	return p;
}

uint32_t row_value_bytes(bool files)
{
	return files ? sizeof(struct row_counters) : sizeof(struct proc_dev_stats);
}

uint64_t row_maps_bytes(uint32_t entries, int nr_cpus, uint32_t value_bytes)
{
	return array_map_bytes(entries, value_bytes, true, nr_cpus) +
	       hash_map_bytes(entries, sizeof(struct proc_dev_key), sizeof(struct row_entry), false,
			      false, nr_cpus) +
	       array_map_bytes(entries, sizeof(__u64), false, nr_cpus) +
	       array_map_bytes(entries, sizeof(struct row_errors), false, nr_cpus) +
	       queue_map_bytes(entries, sizeof(__u32)) +
	       array_map_bytes(ROW_MEMO_WAYS, sizeof(struct row_memo), true, nr_cpus);
}

uint32_t stats_entries_for(int nr_cpus, uint32_t value_bytes)
{
	uint64_t per_entry = HTAB_ELEM_BYTES + round_up8(sizeof(struct proc_dev_key)) +
			     round_up8(sizeof(struct row_entry)) + sizeof(void *) +
			     round_up8(value_bytes) * (uint64_t)nr_cpus +
			     sizeof(__u64) + sizeof(struct row_errors) + sizeof(__u32);
	uint64_t entries = STATS_PERCPU_BUDGET_BYTES / per_entry;

	if (entries > STATS_MAX_ENTRIES)
		entries = STATS_MAX_ENTRIES;
	/* Buckets come in powers of two, and the headers: a few less. */
	while (entries > 1 &&
	       row_maps_bytes(entries, nr_cpus, value_bytes) > STATS_PERCPU_BUDGET_BYTES)
		entries -= entries / 64 ? entries / 64 : 1;
	return entries ? (uint32_t)entries : 1;
}

void map_plan_for(const struct map_needs *needs, int nr_cpus, struct map_plan *plan)
{
	uint32_t pages = needs->perf_pages_wanted;

	plan->row_value_bytes = row_value_bytes(needs->files);
	plan->stats_entries = needs->rows ? stats_entries_for(nr_cpus, plan->row_value_bytes) : 1;
	plan->overflow_stats_entries = needs->rows ? OVERFLOW_STATS_ENTRIES : 1;
	/* Tracked I/Os give each disk's latency from its rows'. */
	plan->device_latency_entries = needs->rows && !needs->track_inflight ?
				       DEVICE_LATENCY_ENTRIES : 1;
	plan->device_flushes_entries = needs->rows ? DEVICE_FLUSHES_ENTRIES : 1;
	plan->io_owner_slots = needs->rows ? IO_OWNER_SLOTS : 1;
	plan->row_latency_entries = needs->rows && needs->track_inflight ?
				    ROW_LATENCY_ENTRIES : 1;
	plan->inflight_slots = needs->track_inflight ? INFLIGHT_SLOTS : 1;
	plan->inflight_buckets = needs->track_inflight ? INFLIGHT_BUCKETS : 1;
	plan->latency_sample_slots = needs->latency_samples ? LATENCY_SAMPLE_SLOTS : 1;
	plan->owners_entries = needs->owners ? OWNERS_ENTRIES : 1;
	plan->crashed_groups_entries = needs->legacy_exit_hook ? CRASHED_GROUPS_ENTRIES : 1;
	plan->stack_traces_entries = needs->stacks ? STACK_TRACES_ENTRIES : 1;
	plan->stack_counts_entries = needs->stacks ? STACK_COUNTS_ENTRIES : 1;
	plan->stack_processes_entries = needs->stacks ? STACK_PROCESSES_ENTRIES : 1;
	plan->bio_stacks_entries = needs->stacks ? BIO_STACKS_ENTRIES : 1;
	plan->thread_groups_entries = needs->threads ? THREAD_GROUPS_ENTRIES : 1;
	plan->stacked_bios_entries = needs->rows ? STACKED_BIOS_ENTRIES : 1;
	plan->exec_cmdlines_entries = needs->rows && needs->exec_cmdlines ?
				      EXEC_CMDLINES_ENTRIES : 1;
	/* A new user stack is built in the ring buffer itself; in this
	 * buffer, one entry a CPU, only for the perf buffer. */
	plan->user_stack_scratch_entries = needs->stacks && !needs->ringbuf_bytes ?
					   (uint32_t)nr_cpus : 1;
	plan->exited_waits_entries = needs->waits ? EXITED_WAITS_ENTRIES : 1;
	/* Not even made without --files: a hash map of one entry still costs
	 * an element and locks per CPU. */
	plan->file_counts_entries = needs->rows && needs->files ? FILE_COUNTS_ENTRIES : 0;
	plan->file_names_sent_entries = needs->rows && needs->files ? FILE_NAMES_SENT_ENTRIES : 0;
	plan->file_name_scratch_entries = needs->rows && needs->files ? (uint32_t)nr_cpus : 0;
	plan->ringbuf_bytes = needs->ringbuf_bytes;
	plan->perf_pages_per_cpu = 0;
	if (!needs->ringbuf_bytes) {
		/* Halved until all CPUs' buffers fit, unless --buffer-kb asked. */
		while (!needs->perf_pages_given && pages > 1 &&
		       (pages + 1) * PAGE_BYTES * nr_cpus > PERF_BUFFER_BUDGET_BYTES)
			pages >>= 1;
		plan->perf_pages_per_cpu = pages ? pages : 1;
	}
	/* issue 33: the command lines at exec take what the budget leaves, up
	 * to EXEC_CMDLINES_ENTRIES (all of them but with a perf buffer on
	 * hundreds of CPUs); a process that exits before its row is shown
	 * and whose line was pushed out is shown by name. */
	while (plan->exec_cmdlines_entries > EXEC_CMDLINES_MIN_ENTRIES &&
	       map_plan_bytes(plan, nr_cpus) > MAPS_BUDGET_BYTES)
		plan->exec_cmdlines_entries /= 2;
	/* Then the exited tasks' waits (an interval's exits beyond them are
	 * counted lost, exited_waits_full). */
	while (plan->exited_waits_entries > EXITED_WAITS_MIN_ENTRIES &&
	       map_plan_bytes(plan, nr_cpus) > MAPS_BUDGET_BYTES)
		plan->exited_waits_entries /= 2;
	/* Then the owners of I/Os in flight (a failed I/O whose owner was
	 * pushed out is counted lost, error_unattributed). */
	while (plan->io_owner_slots > IO_OWNER_MIN_SLOTS &&
	       map_plan_bytes(plan, nr_cpus) > MAPS_BUDGET_BYTES)
		plan->io_owner_slots /= 2;
	/* Last, on hundreds of CPUs, a few per-CPU rows (the overflow rows
	 * take the others). */
	while (plan->stats_entries > 1 && map_plan_bytes(plan, nr_cpus) > MAPS_BUDGET_BYTES)
		plan->stats_entries -= plan->stats_entries / 64 ? plan->stats_entries / 64 : 1;
}

uint64_t hash_map_bytes(uint32_t entries, uint32_t key_size, uint32_t value_size,
			bool percpu, bool lru, int nr_cpus)
{
	uint64_t value = round_up8(value_size);
	uint64_t elem = HTAB_ELEM_BYTES + round_up8(key_size) + (percpu ? 8 : value);
	uint64_t elems = entries + (!percpu && !lru ? (uint64_t)nr_cpus : 0);
	uint64_t bytes = HTAB_HEADER_BYTES + HTAB_BUCKET_BYTES * pow2_at_least(entries) +
			 sizeof(int) * HTAB_LOCKS_PER_CPU * (uint64_t)nr_cpus + elem * elems;

	if (percpu)
		bytes += value * nr_cpus * (uint64_t)entries;
	else if (!lru)
		bytes += sizeof(void *) * (uint64_t)nr_cpus;
	return bytes;
}

uint64_t stack_map_bytes(uint32_t entries, uint32_t value_size)
{
	uint64_t buckets = pow2_at_least(entries);

	return STACK_MAP_HEADER_BYTES + buckets * sizeof(void *) +
	       (STACK_BUCKET_BYTES + (uint64_t)value_size) * entries;
}

uint64_t queue_map_bytes(uint32_t entries, uint32_t value_size)
{
	return QUEUE_HEADER_BYTES + ((uint64_t)entries + 1) * value_size;
}

uint64_t array_map_bytes(uint32_t entries, uint32_t value_size, bool percpu, int nr_cpus)
{
	uint64_t value = round_up8(value_size);

	if (percpu)
		return ARRAY_HEADER_BYTES + (sizeof(void *) + value * nr_cpus) * (uint64_t)entries;
	return ARRAY_HEADER_BYTES + value * entries;
}

/* A ring buffer: its data pages, the consumer and producer pages, the
 * header page and the page pointers of its double mapping. */
static uint64_t ringbuf_bytes(uint32_t data_bytes)
{
	uint64_t pages = data_bytes / PAGE_BYTES;

	return data_bytes + 4 * PAGE_BYTES + (pages + 2) * 8;
}

uint64_t map_plan_bytes(const struct map_plan *plan, int nr_cpus)
{
	uint64_t bytes = 0;

	bytes += row_maps_bytes(plan->stats_entries, nr_cpus, plan->row_value_bytes);
	bytes += hash_map_bytes(plan->overflow_stats_entries, sizeof(struct proc_dev_key),
				sizeof(struct overflow_row), false, false, nr_cpus);
	bytes += hash_map_bytes(plan->device_latency_entries, sizeof(__u32),
				sizeof(struct dev_latency), false, false, nr_cpus);
	bytes += array_map_bytes(plan->io_owner_slots, sizeof(struct io_owner), false, nr_cpus);
	bytes += hash_map_bytes(plan->device_flushes_entries, sizeof(__u32), sizeof(__u64), false,
				false, nr_cpus);
	bytes += hash_map_bytes(plan->row_latency_entries, sizeof(struct proc_dev_key),
				sizeof(struct dev_latency), false, false, nr_cpus);
	bytes += array_map_bytes(plan->inflight_buckets, sizeof(struct inflight_bucket), false,
				 nr_cpus);
	bytes += array_map_bytes(plan->inflight_slots, sizeof(struct inflight), false, nr_cpus);
	bytes += array_map_bytes(plan->latency_sample_slots, sizeof(struct latency_sample), false,
				 nr_cpus);
	bytes += array_map_bytes(LOST_NR_CAUSES, sizeof(__u64), true, nr_cpus);
	bytes += hash_map_bytes(plan->owners_entries, sizeof(struct inode_key),
				sizeof(struct write_owner), false, false, nr_cpus);
	bytes += array_map_bytes(1, sizeof(struct inode_key) + sizeof(struct write_owner), true,
				 nr_cpus);	/* last_owner */
	bytes += hash_map_bytes(CRASH_COUNTS_ENTRIES, TASK_COMM_LEN, sizeof(__u64), false, false,
				nr_cpus);
	bytes += hash_map_bytes(plan->crashed_groups_entries, 16, 1, false, true, nr_cpus);
	bytes += stack_map_bytes(plan->stack_traces_entries, STACK_MAX_FRAMES * sizeof(__u64));
	bytes += hash_map_bytes(plan->stack_counts_entries, sizeof(struct stack_key),
				sizeof(struct stack_counts), false, false, nr_cpus);
	bytes += hash_map_bytes(plan->stack_processes_entries, 16, 1, false, true, nr_cpus);
	bytes += hash_map_bytes(plan->bio_stacks_entries, sizeof(__u64), sizeof(struct stack_key),
				false, true, nr_cpus);
	bytes += hash_map_bytes(plan->thread_groups_entries, sizeof(__u32), sizeof(__u32), false,
				true, nr_cpus);
	bytes += hash_map_bytes(plan->stacked_bios_entries, sizeof(__u64), sizeof(__u64), false,
				false, nr_cpus);
	bytes += hash_map_bytes(plan->exec_cmdlines_entries, sizeof(__u32),
				sizeof(struct exec_cmdline), false, true, nr_cpus);
	bytes += array_map_bytes(1, sizeof(struct exec_cmdline), true, nr_cpus);	/* exec_scratch */
	bytes += array_map_bytes(1, sizeof(struct overflow_row), true, nr_cpus);	/* overflow_fresh */
	bytes += array_map_bytes(plan->user_stack_scratch_entries,
				 sizeof(struct user_stack_event), false, nr_cpus);
	/* IO>: the tasks' own storage (sched_waits) is the kernel's per task,
	 * allocated as each first waits, and freed with it. */
	bytes += hash_map_bytes(plan->exited_waits_entries, sizeof(struct task_id),
				sizeof(struct task_waits), false, false, nr_cpus);
	if (plan->file_counts_entries) {
		/* two: the interval's and the spare (files.bpf.h) */
		bytes += 2 * hash_map_bytes(plan->file_counts_entries, sizeof(struct file_key),
					    sizeof(struct file_counts), false, false, nr_cpus);
		bytes += hash_map_bytes(plan->file_names_sent_entries, 16, sizeof(__u64), false,
					true, nr_cpus);
		bytes += array_map_bytes(plan->file_name_scratch_entries,
					 sizeof(struct file_name_event), false, nr_cpus);
	}
	if (plan->ringbuf_bytes)
		bytes += ringbuf_bytes(plan->ringbuf_bytes);
	else
		bytes += (plan->perf_pages_per_cpu + 1) * PAGE_BYTES * (uint64_t)nr_cpus;
	return bytes;
}
