// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the map sizing (mapsize.c): the memory formulas against what
 * Linux 6.18 reported for diskio's own maps (bpftool map show, memlock, on a
 * 2-CPU machine), and the plan's total within the budget at 2 to 1024 CPUs.
 */
#include <criterion/criterion.h>
#include <stdint.h>

#include "abi.h"
#include "mapsize.h"

#define MIB (1ULL << 20)

/* Known answers: the kernel's memlock for maps of these shapes at 2 CPUs. */
Test(mapsize_formulas, match_the_kernels_accounting)
{
	/* The rows: counters, key -> slot and owner, generations, slots given
	 * back, memo. */
	cr_assert_eq(array_map_bytes(16384, 88, true, 2), 3014968);		/* rows */
	cr_assert_eq(hash_map_bytes(16384, 32, 16, false, false, 2), 1836112);	/* slot alone */
	cr_assert_eq(hash_map_bytes(16384, 32, 32, false, false, 2), 2098288);	/* row_index */
	cr_assert_eq(array_map_bytes(16384, 8, false, 2), 131384);		/* row_gens */
	cr_assert_eq(queue_map_bytes(16384, 4), 65852);			/* free_rows */
	cr_assert_eq(array_map_bytes(8, 56, true, 2), 1272);			/* row_memo */
	cr_assert_eq(array_map_bytes(16384, 64, false, 2), 1048888);		/* row_errors */
	cr_assert_eq(row_value_bytes(false), 88);
	cr_assert_eq(row_maps_bytes(16384, 2, 88),
		     3014968 + 2098288 + 131384 + 1048888 + 65852 + 1272);
	/* issue 47: --files keeps each row as it was at the cut too */
	cr_assert_eq(row_value_bytes(true), 184);
	cr_assert_eq(row_maps_bytes(16384, 2, 184),
		     array_map_bytes(16384, 184, true, 2) + 2098288 + 131384 + 1048888 + 65852 +
		     1272);
	/* issue 33: whose each row is, in the overflow rows and the owners;
	 * the command lines at exec and the record built for them. */
	cr_assert_eq(hash_map_bytes(65536, 32, 104, false, false, 2), 13108480);	/* overflow */
	cr_assert_eq(hash_map_bytes(65536, 8, 64, false, false, 2), 8914048);	/* owners */
	cr_assert_eq(hash_map_bytes(4096, 4, 272, false, true, 2), 1409920);	/* exec_cmdlines */
	cr_assert_eq(array_map_bytes(1, 272, true, 2), 864);			/* exec_scratch */
	cr_assert_eq(array_map_bytes(1, 72, true, 2), 464);			/* last_owner */
	cr_assert_eq(hash_map_bytes(8192, 16, 88, false, false, 2), 1377472);	/* exited_waits */
	/* A per-CPU hash map of the same rows. */
	cr_assert_eq(hash_map_bytes(10240, 32, 88, true, false, 2), 2966400);
	cr_assert_eq(hash_map_bytes(16384, 32, 88, true, false, 2), 4588416);
	cr_assert_eq(hash_map_bytes(65536, 32, 88, false, false, 2), 12059872);	/* overflow */
	cr_assert_eq(hash_map_bytes(65536, 8, 48, false, false, 2), 7865440);	/* owners */
	cr_assert_eq(hash_map_bytes(1024, 4, 16, false, false, 2), 91168);	/* device_latency */
	cr_assert_eq(hash_map_bytes(1024, 4, 8, false, false, 2), 82960);	/* device_flushes */
	cr_assert_eq(hash_map_bytes(4096, 16, 8, false, false, 2), 361504);	/* crash_counts */
	cr_assert_eq(hash_map_bytes(1, 16, 1, false, true, 2), 984);		/* crashed_groups */
	cr_assert_eq(array_map_bytes(7, 8, true, 2), 480);			/* lost */
	cr_assert_eq(array_map_bytes(1, 56, true, 2), 432);			/* last_owner */
	cr_assert_eq(array_map_bytes(1, 72, false, 2), 384);			/* inflight, 1 slot */
	/* Other shapes: a 40-byte key, 56-byte owners, 80-byte array values. */
	cr_assert_eq(hash_map_bytes(16384, 40, 88, true, false, 2), 4719488);
	cr_assert_eq(hash_map_bytes(65536, 40, 88, false, false, 2), 12584176);
	cr_assert_eq(hash_map_bytes(65536, 8, 56, false, false, 2), 8389744);
	cr_assert_eq(array_map_bytes(16384, 80, false, 2), 1311032);
	cr_assert_eq(array_map_bytes(1, 64, true, 2), 448);
	/* The in-flight table: 2048 buckets of ids, 16384 records of 64 bytes. */
	cr_assert_eq(array_map_bytes(2048, 64, false, 2), 131384);
	cr_assert_eq(array_map_bytes(16384, 72, false, 2), 1179960);
	cr_assert_eq(array_map_bytes(16384, 64, false, 2), 1048888);
}

Test(mapsize_formulas, the_contracts_sizes_are_the_measured_ones)
{
	cr_assert_eq(sizeof(struct proc_dev_key), 32);
	cr_assert_eq(sizeof(struct proc_dev_stats), 88);
	cr_assert_eq(sizeof(struct row_errors), 64);
	cr_assert_eq(sizeof(struct io_owner), 24);
	cr_assert_eq(sizeof(struct row_slot), 16);
	cr_assert_eq(sizeof(struct row_memo), 56);
	cr_assert_eq(sizeof(struct write_owner), 64);
	cr_assert_eq(sizeof(struct row_owner), 16);
	cr_assert_eq(sizeof(struct row_entry), 32);
	cr_assert_eq(sizeof(struct overflow_row), 104);
	cr_assert_eq(sizeof(struct exec_cmdline), 272);
	cr_assert_eq(sizeof(struct task_waits), 88);
	cr_assert_eq(sizeof(struct inflight), 64);
	cr_assert_eq(sizeof(struct inflight_bucket), 64);
	cr_assert_eq(sizeof(struct latency_sample), 16);
}

Test(mapsize_stats, all_entries_with_few_cpus_fewer_with_many)
{
	for (int files = 0; files <= 1; files++) {
		uint32_t v = row_value_bytes(files);

		cr_assert_eq(stats_entries_for(1, v), STATS_MAX_ENTRIES);
		cr_assert_eq(stats_entries_for(2, v), STATS_MAX_ENTRIES);
		cr_assert_lt(stats_entries_for(64, v), STATS_MAX_ENTRIES);
		cr_assert_lt(stats_entries_for(256, v), stats_entries_for(64, v));
		cr_assert_geq(stats_entries_for(1024, v), 1);
		for (int cpus = 1; cpus <= 4096; cpus *= 2)
			cr_assert_leq(row_maps_bytes(stats_entries_for(cpus, v), cpus, v),
				      STATS_PERCPU_BUDGET_BYTES, "%d CPUs", cpus);
	}
	/* the same budget: with --files, fewer rows where CPUs are many */
	cr_assert_lt(stats_entries_for(64, row_value_bytes(true)),
		     stats_entries_for(64, row_value_bytes(false)));
}

static const struct map_needs default_mode = {
	.rows = true, .latency_samples = true, .owners = true, .waits = true,
	.ringbuf_bytes = 1 << 20, .exec_cmdlines = true,
};
static const struct map_needs latency_mode = {
	.rows = true, .track_inflight = true, .owners = true, .waits = true,
	.ringbuf_bytes = 1 << 20, .exec_cmdlines = true, .threads = true,
};
/* --files -L: the files' maps, and a name event a CPU (issue 35) */
static const struct map_needs files_mode = {
	.rows = true, .track_inflight = true, .owners = true, .waits = true,
	.ringbuf_bytes = 1 << 20, .exec_cmdlines = true, .files = true,
};
static const struct map_needs trace_mode = {
	.track_inflight = true, .ringbuf_bytes = 16 << 20,
};
static const struct map_needs old_kernel_mode = {	/* perf buffer, legacy exit hook */
	.rows = true, .track_inflight = true, .legacy_exit_hook = true, .waits = true,
	.perf_pages_wanted = 64, .exec_cmdlines = true,
};
static const struct map_needs old_kernel_trace = {
	.track_inflight = true, .legacy_exit_hook = true, .perf_pages_wanted = 64,
};

static void check_budget(const struct map_needs *needs, const char *mode)
{
	static const int cpus[] = { 2, 64, 256, 1024 };

	for (size_t i = 0; i < sizeof(cpus) / sizeof(cpus[0]); i++) {
		struct map_plan plan;

		map_plan_for(needs, cpus[i], &plan);
		cr_assert_leq(map_plan_bytes(&plan, cpus[i]), MAPS_BUDGET_BYTES,
			      "%s at %d CPUs: %llu bytes", mode, cpus[i],
			      (unsigned long long)map_plan_bytes(&plan, cpus[i]));
	}
}

Test(mapsize_plan, every_mode_fits_the_budget_at_2_to_1024_cpus)
{
	check_budget(&default_mode, "default");
	check_budget(&latency_mode, "-L");
	check_budget(&trace_mode, "-T");
	check_budget(&old_kernel_mode, "perf buffer");
	check_budget(&old_kernel_trace, "perf buffer -T");
}

/* issue 35: --files adds at most FILES_EXTRA_BYTES to a mode. */
Test(mapsize_plan, files_add_at_most_their_extra)
{
	static const int cpus[] = { 2, 64, 256, 1024 };

	for (size_t i = 0; i < sizeof(cpus) / sizeof(cpus[0]); i++) {
		struct map_plan plan;

		map_plan_for(&files_mode, cpus[i], &plan);
		cr_assert_leq(map_plan_bytes(&plan, cpus[i]), MAPS_BUDGET_BYTES + FILES_EXTRA_BYTES,
			      "--files -L at %d CPUs: %llu bytes", cpus[i],
			      (unsigned long long)map_plan_bytes(&plan, cpus[i]));
	}
}

Test(mapsize_plan, the_maps_a_mode_does_not_use_hold_one_entry)
{
	struct map_plan plan;

	map_plan_for(&default_mode, 2, &plan);
	cr_assert_eq(plan.stats_entries, STATS_MAX_ENTRIES);
	cr_assert_eq(plan.overflow_stats_entries, OVERFLOW_STATS_ENTRIES);
	cr_assert_eq(plan.device_latency_entries, DEVICE_LATENCY_ENTRIES);
	cr_assert_eq(plan.device_flushes_entries, DEVICE_FLUSHES_ENTRIES);
	cr_assert_eq(plan.row_latency_entries, 1);
	cr_assert_eq(plan.inflight_slots, 1);
	cr_assert_eq(plan.latency_sample_slots, LATENCY_SAMPLE_SLOTS);
	cr_assert_eq(plan.owners_entries, OWNERS_ENTRIES);
	cr_assert_eq(plan.crashed_groups_entries, 1);
	cr_assert_eq(plan.exited_waits_entries, EXITED_WAITS_ENTRIES);
	cr_assert_eq(plan.perf_pages_per_cpu, 0);
	cr_assert_eq(plan.file_counts_entries, 0, "not made without --files");
	cr_assert_eq(plan.file_names_sent_entries, 0);
	cr_assert_eq(plan.file_name_scratch_entries, 0);

	map_plan_for(&files_mode, 64, &plan);
	cr_assert_eq(plan.file_counts_entries, FILE_COUNTS_ENTRIES);
	cr_assert_eq(plan.file_names_sent_entries, FILE_NAMES_SENT_ENTRIES);
	cr_assert_eq(plan.file_name_scratch_entries, 64, "a name event a CPU");

	map_plan_for(&latency_mode, 2, &plan);
	cr_assert_eq(plan.inflight_slots, INFLIGHT_SLOTS);
	cr_assert_eq(plan.device_latency_entries, 1, "a disk's latency is its rows'");
	cr_assert_eq(plan.row_latency_entries, ROW_LATENCY_ENTRIES);
	cr_assert_eq(plan.latency_sample_slots, 1, "every tracked I/O is timed");
	cr_assert_eq(plan.device_flushes_entries, DEVICE_FLUSHES_ENTRIES,
		     "a disk's flushes are never its rows'");

	map_plan_for(&trace_mode, 2, &plan);
	cr_assert_eq(plan.stats_entries, 1);
	cr_assert_eq(plan.device_flushes_entries, 1);
	cr_assert_eq(plan.overflow_stats_entries, 1);
	cr_assert_eq(plan.owners_entries, 1);
	cr_assert_eq(plan.exited_waits_entries, 1, "-T reads no waits");
	cr_assert_eq(plan.ringbuf_bytes, 16 << 20);
}

Test(mapsize_plan, perf_buffer_pages_are_cut_to_the_budget_unless_asked_for)
{
	struct map_needs asked = old_kernel_mode;
	struct map_plan plan;

	map_plan_for(&old_kernel_mode, 2, &plan);
	cr_assert_eq(plan.perf_pages_per_cpu, 64);
	map_plan_for(&old_kernel_mode, 256, &plan);
	cr_assert_eq(plan.perf_pages_per_cpu, 8, "(8 + 1) pages x 256 CPUs <= 16 MiB");
	map_plan_for(&old_kernel_mode, 1024, &plan);
	cr_assert_eq(plan.perf_pages_per_cpu, 2);

	asked.perf_pages_given = true;
	map_plan_for(&asked, 1024, &plan);
	cr_assert_eq(plan.perf_pages_per_cpu, 64, "--buffer-kb is taken as given");
}

/* The overflow map is what keeps rows without loss when the per-CPU map is
 * small: together they hold at least as many rows as with 2 CPUs. */
Test(mapsize_plan, rows_never_fewer_than_the_overflow_map_holds)
{
	for (int cpus = 1; cpus <= 1024; cpus *= 2) {
		struct map_plan plan;

		map_plan_for(&default_mode, cpus, &plan);
		cr_assert_geq(plan.stats_entries + plan.overflow_stats_entries,
			      OVERFLOW_STATS_ENTRIES + 1);
	}
	cr_assert_leq(MAPS_BUDGET_BYTES, 64 * MIB);
}

/* issue 33: the command lines at exec take what the budget leaves. */
Test(mapsize_plan, exec_command_lines_take_what_the_budget_leaves)
{
	struct map_needs perf_L = old_kernel_mode;
	struct map_plan plan;

	map_plan_for(&default_mode, 2, &plan);
	cr_assert_eq(plan.exec_cmdlines_entries, EXEC_CMDLINES_ENTRIES);
	map_plan_for(&default_mode, 1024, &plan);
	cr_assert_eq(plan.exec_cmdlines_entries, EXEC_CMDLINES_ENTRIES);
	/* -L with a perf buffer on 1024 CPUs is where they would not fit */
	perf_L.perf_pages_wanted = 4;
	map_plan_for(&perf_L, 1024, &plan);
	cr_assert_lt(plan.exec_cmdlines_entries, EXEC_CMDLINES_ENTRIES);
	cr_assert_geq(plan.exec_cmdlines_entries, EXEC_CMDLINES_MIN_ENTRIES);
	cr_assert_leq(map_plan_bytes(&plan, 1024), MAPS_BUDGET_BYTES);
	/* then the exited tasks' waits, down to their least */
	cr_assert_lt(plan.exited_waits_entries, EXITED_WAITS_ENTRIES);
	cr_assert_geq(plan.exited_waits_entries, EXITED_WAITS_MIN_ENTRIES);
	/* not wanted (-T, -q, --by cgroup): one entry */
	map_plan_for(&trace_mode, 2, &plan);
	cr_assert_eq(plan.exec_cmdlines_entries, 1);
}
