/* SPDX-License-Identifier: GPL-2.0 */
/*
 * How big diskio's BPF maps are made at load, and what they cost in kernel
 * memory, so that the total stays within MAPS_BUDGET_BYTES whatever the
 * number of possible CPUs: per-CPU maps cost entries x CPUs.
 */
#ifndef DISKIO_MAPSIZE_H
#define DISKIO_MAPSIZE_H

#include <stdbool.h>
#include <stdint.h>

#define MAPS_BUDGET_BYTES	(64ULL << 20)
/* The per-CPU rows: as many as this holds, at most STATS_MAX_ENTRIES
 * (abi.h, with the other maps' sizes). */
#define STATS_PERCPU_BUDGET_BYTES (24ULL << 20)
/* --files (issue 35): what its maps may add to the budget. */
#define FILES_EXTRA_BYTES (12ULL << 20)
/* Perf buffer (kernels without a ring buffer): at most this much in all. */
#define PERF_BUFFER_BUDGET_BYTES (16ULL << 20)
/* The command lines at exec (abi.h's EXEC_CMDLINES_ENTRIES) are halved down
 * to this many while the maps would pass the budget. */
#define EXEC_CMDLINES_MIN_ENTRIES 256
/* Then the exited tasks' waits (abi.h's EXITED_WAITS_ENTRIES), down to this. */
#define EXITED_WAITS_MIN_ENTRIES 256

/* The sizes one run loads its maps with; 1 for a map the mode does not use
 * (libbpf cannot create a map of 0 entries), 0 for one not made at all. */
struct map_plan {
	uint32_t stats_entries;		/* per-CPU rows */
	uint32_t row_value_bytes;	/* their counters on a CPU: row_value_bytes() */
	uint32_t overflow_stats_entries;
	uint32_t device_latency_entries;
	uint32_t device_flushes_entries;
	uint32_t io_owner_slots;	/* io_owners: the rows of I/Os in flight (issue 45) */
	uint32_t row_latency_entries;
	uint32_t inflight_slots;	/* inflight: what is kept of each I/O */
	uint32_t inflight_buckets;	/* inflight_ids: their ids */
	uint32_t latency_sample_slots;	/* latency_samples */
	uint32_t owners_entries;
	uint32_t crashed_groups_entries;
	uint32_t stack_traces_entries;	/* --stacks: stack_traces, stack_counts, */
	uint32_t stack_counts_entries;	/* stack_processes */
	uint32_t stack_processes_entries;
	uint32_t bio_stacks_entries;	/* --stacks: blk-mq bios until their request */
	uint32_t thread_groups_entries;	/* -t */
	uint32_t stacked_bios_entries;	/* rows: bios dm and md sent below */
	uint32_t exec_cmdlines_entries;	/* command lines at exec (issue 33) */
	uint32_t user_stack_scratch_entries;	/* --stacks with the perf buffer: a CPU's */
	uint32_t exited_waits_entries;	/* IO>, SWAPIN: tasks that exited, an interval's */
	uint32_t file_counts_entries;	/* --files: (row, file) counters, */
	uint32_t file_names_sent_entries;	/* files named */
	uint32_t file_name_scratch_entries;	/* --files: a name event, one a CPU */
	uint32_t ringbuf_bytes;		/* 0: a perf buffer instead */
	uint32_t perf_pages_per_cpu;	/* 0: a ring buffer instead */
};

/* What a run needs, as the loader decides it. */
struct map_needs {
	bool rows;			/* not -T */
	bool track_inflight;		/* -L, -T, -p, -c, --cgroup */
	bool latency_samples;		/* bio-based disks' latency sampled (default mode) */
	bool owners;			/* writeback charged to its dirtier */
	bool legacy_exit_hook;		/* crashed_groups is used */
	bool stacks;			/* --stacks: about 20 MiB more, beyond the budget */
	bool threads;			/* -t: the thread_groups map */
	bool exec_cmdlines;		/* rows shown with their command line */
	bool waits;			/* IO> and SWAPIN are measured (not -T) */
	bool files;			/* --files: at most FILES_EXTRA_BYTES more, beyond
					 * the budget (its name events, one a CPU) */
	uint32_t ringbuf_bytes;		/* 0: perf buffer */
	uint32_t perf_pages_wanted;	/* per CPU, a power of two */
	bool perf_pages_given;		/* --buffer-kb: not cut to the budget */
};

/* The size of a row's counters on one CPU: with --files, as they were at
 * the last cut too (struct row_counters), else only as they are. */
uint32_t row_value_bytes(bool files);

/* Per-CPU rows of value_bytes a CPU that STATS_PERCPU_BUDGET_BYTES hold at
 * nr_cpus (>= 1). */
uint32_t stats_entries_for(int nr_cpus, uint32_t value_bytes);

/* Bytes of the maps that hold entries per-CPU rows of value_bytes a CPU
 * (rows.bpf.h's rows, row_index with whose each row is, row_gens,
 * free_rows and row_memo). */
uint64_t row_maps_bytes(uint32_t entries, int nr_cpus, uint32_t value_bytes);

/* The plan for needs at nr_cpus possible CPUs (>= 1). */
void map_plan_for(const struct map_needs *needs, int nr_cpus, struct map_plan *plan);

/* Bytes of kernel memory of a preallocated hash map as the kernel counts
 * it (htab_map_mem_usage(), the "memlock" of bpftool map show, Linux 6.4+). */
uint64_t hash_map_bytes(uint32_t entries, uint32_t key_size, uint32_t value_size,
			bool percpu, bool lru, int nr_cpus);

/* Bytes of kernel memory of a stack trace map (stack_map_mem_usage()). */
uint64_t stack_map_bytes(uint32_t entries, uint32_t value_size);

/* Bytes of kernel memory of a queue map (queue_stack_map_mem_usage()). */
uint64_t queue_map_bytes(uint32_t entries, uint32_t value_size);

/* Bytes of kernel memory of an array map (array_map_mem_usage()). */
uint64_t array_map_bytes(uint32_t entries, uint32_t value_size, bool percpu, int nr_cpus);

/* All of diskio's maps, and the event buffers, under plan at nr_cpus. */
uint64_t map_plan_bytes(const struct map_plan *plan, int nr_cpus);

#endif /* DISKIO_MAPSIZE_H */
