// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the per-interval bookkeeping step (tally.c): snapshots of
 * running totals built by hand, events fed in, and the frame's and summary's
 * per-interval numbers checked exactly.  Devices without a sysfs entry are
 * named "MAJ:MIN"; one suite builds a tiny fake sysfs for a real name.
 */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <errno.h>
#include <ftw.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tally.h"

#define SECOND UINT64_C(1000000000)
#define HOUR (UINT64_C(3600) * SECOND)
#define T0 (100 * SECOND)
#define AT(step) (T0 + (uint64_t)(step) * SECOND)

/* No such directory: every device is named "MAJ:MIN". */
#define NO_SYSFS "/nonexistent/diskio-test-tally-sysfs"

#define DEV_A kdev_make(8, 0)		/* "8:0" */
#define DEV_B kdev_make(253, 16)	/* "253:16" */
#define NAME_A "8:0"
#define NAME_B "253:16"

/* ---- the process table ---- */

static uint32_t dead_pids[16];
static size_t ndead;

static bool fake_alive(uint32_t tgid)
{
	for (size_t i = 0; i < ndead; i++)
		if (dead_pids[i] == tgid)
			return false;
	return true;
}

static void mark_dead(uint32_t tgid)
{
	cr_assert_lt(ndead, sizeof(dead_pids) / sizeof(dead_pids[0]));
	dead_pids[ndead++] = tgid;
}

/* ---- snapshots built by hand ---- */

#define SNAP_ROWS 32
#define SNAP_LATENCY 8
#define SNAP_CRASHES 8
#define SNAP_FLUSHES 8

struct snap {
	struct snapshot s;
	struct snapshot_row rows[SNAP_ROWS];
	struct snapshot_latency latency[SNAP_LATENCY];
	struct snapshot_row_latency row_latency[SNAP_ROWS];
	struct snapshot_crashes crashes[SNAP_CRASHES];
	struct snapshot_flushes flushes[SNAP_FLUSHES];
	struct snapshot_row final_rows[SNAP_ROWS];
	struct snapshot_row_latency final_row_latency[SNAP_ROWS];
};

/* An empty snapshot over the fixed arrays (never snapshot_free()d). */
static void snap_init(struct snap *sp)
{
	memset(sp, 0, sizeof(*sp));
	sp->s.rows = sp->rows;
	sp->s.rows_capacity = SNAP_ROWS;
	sp->s.latency = sp->latency;
	sp->s.latency_capacity = SNAP_LATENCY;
	sp->s.row_latency = sp->row_latency;
	sp->s.row_latency_capacity = SNAP_ROWS;
	sp->s.crashes = sp->crashes;
	sp->s.crashes_capacity = SNAP_CRASHES;
	sp->s.flushes = sp->flushes;
	sp->s.flushes_capacity = SNAP_FLUSHES;
	sp->s.final_rows = sp->final_rows;
	sp->s.final_rows_capacity = SNAP_ROWS;
	sp->s.final_row_latency = sp->final_row_latency;
	sp->s.final_row_latency_capacity = SNAP_ROWS;
}

static struct proc_dev_key make_key(uint32_t tgid, uint32_t dev, const char *comm)
{
	struct proc_dev_key key;

	memset(&key, 0, sizeof(key));
	key.tgid = tgid;
	key.dev = dev;
	memcpy(key.comm, comm, strnlen(comm, sizeof(key.comm)));
	return key;
}

/* Set (or add) the running totals of one kernel entry. */
static void snap_row(struct snap *sp, uint32_t tgid, uint32_t dev, const char *comm,
		     struct proc_dev_stats stats)
{
	struct proc_dev_key key = make_key(tgid, dev, comm);
	size_t i;

	for (i = 0; i < sp->s.nrows; i++)
		if (!memcmp(&sp->rows[i].key, &key, sizeof(key)))
			break;
	if (i == sp->s.nrows) {
		cr_assert_lt(sp->s.nrows, SNAP_ROWS);
		sp->s.nrows++;
		sp->rows[i].key = key;
	}
	sp->rows[i].stats = stats;
}

static void snap_latency(struct snap *sp, uint32_t dev, uint64_t ns, uint64_t ios)
{
	size_t i;

	for (i = 0; i < sp->s.nlatency; i++)
		if (sp->latency[i].dev == dev)
			break;
	if (i == sp->s.nlatency) {
		cr_assert_lt(sp->s.nlatency, SNAP_LATENCY);
		sp->s.nlatency++;
		sp->latency[i].dev = dev;
	}
	sp->latency[i].latency.latency_ns[IO_READ] = ns;
	sp->latency[i].latency.ios[IO_READ] = ios;
}

/* Set the running total of a disk's flush requests completed. */
static void snap_flushes(struct snap *sp, uint32_t dev, uint64_t flushes)
{
	size_t i;

	for (i = 0; i < sp->s.nflushes; i++)
		if (sp->flushes[i].dev == dev)
			break;
	if (i == sp->s.nflushes) {
		cr_assert_lt(sp->s.nflushes, SNAP_FLUSHES);
		sp->s.nflushes++;
		sp->flushes[i].dev = dev;
	}
	sp->flushes[i].flushes = flushes;
}

/* Set the running latency totals of a row's kernel entry for op: ios
 * completions of ns each (all in ns's slot, added to what is there). */
static void snap_row_latency(struct snap *sp, uint32_t tgid, uint32_t dev, const char *comm,
			     unsigned int op, uint64_t ns, uint64_t ios)
{
	struct proc_dev_key key = make_key(tgid, dev, comm);
	size_t i;

	for (i = 0; i < sp->s.nrow_latency; i++)
		if (!memcmp(&sp->row_latency[i].key, &key, sizeof(key)))
			break;
	if (i == sp->s.nrow_latency) {
		cr_assert_lt(sp->s.nrow_latency, SNAP_ROWS);
		sp->s.nrow_latency++;
		memset(&sp->row_latency[i], 0, sizeof(sp->row_latency[i]));
		sp->row_latency[i].key = key;
	}
	sp->row_latency[i].latency.latency_ns[op] += ns * ios;
	sp->row_latency[i].latency.ios[op] += ios;
	sp->row_latency[i].latency.slots[op][latency_slot(ns)] += ios;
}

/* What the loader does after tally_close_interval(): every forgotten key's
 * entries leave the maps (the snapshot), what they held kept as final. */
static void snap_forget(struct snap *sp, const struct tally *t)
{
	sp->s.nfinal_rows = sp->s.nfinal_row_latency = 0;
	for (size_t k = 0; k < t->nforget; k++) {
		for (size_t i = 0; i < sp->s.nrows; i++) {
			if (memcmp(&sp->rows[i].key, &t->forget[k], sizeof(t->forget[k])))
				continue;
			sp->final_rows[sp->s.nfinal_rows++] = sp->rows[i];
			sp->rows[i] = sp->rows[--sp->s.nrows];
			break;
		}
		for (size_t i = 0; i < sp->s.nrow_latency; i++) {
			if (memcmp(&sp->row_latency[i].key, &t->forget[k], sizeof(t->forget[k])))
				continue;
			sp->final_row_latency[sp->s.nfinal_row_latency++] = sp->row_latency[i];
			sp->row_latency[i] = sp->row_latency[--sp->s.nrow_latency];
			break;
		}
	}
}

/* comm: up to 16 bytes copied as they are (16 leaves no NUL, as a raw key may). */
static void snap_crashes(struct snap *sp, const char *comm, uint64_t count)
{
	char raw[TASK_COMM_LEN];
	size_t i;

	memset(raw, 0, sizeof(raw));
	memcpy(raw, comm, strnlen(comm, TASK_COMM_LEN));
	for (i = 0; i < sp->s.ncrashes; i++)
		if (!memcmp(sp->crashes[i].comm, raw, TASK_COMM_LEN))
			break;
	if (i == sp->s.ncrashes) {
		cr_assert_lt(sp->s.ncrashes, SNAP_CRASHES);
		sp->s.ncrashes++;
		memcpy(sp->crashes[i].comm, raw, TASK_COMM_LEN);
	}
	sp->crashes[i].count = count;
}

/* ---- the tally ---- */

static struct tally_config base_config(void)
{
	struct tally_config config;

	memset(&config, 0, sizeof(config));
	config.sort = SORT_BYTES;
	config.crash_interval_ns = HOUR;
	config.sysfs_root = NO_SYSFS;
	config.process_alive = fake_alive;
	config.warn = NULL;
	return config;
}

static void start(struct tally *t, const struct tally_config *config)
{
	cr_assert_eq(tally_init(t, config, T0), 0);
}

static const struct timespec wall = { .tv_sec = 1700000000, .tv_nsec = 5 };

static void step(struct tally *t, const struct snap *sp, int n, bool final, struct frame *f)
{
	tally_frame(t, &sp->s, AT(n), &wall, final, f);
}

static void crash(struct tally *t, uint32_t tgid, const char *comm, uint64_t time_ns)
{
	struct crash_event event;

	memset(&event, 0, sizeof(event));
	event.type = EVENT_CRASH;
	event.tgid = tgid;
	event.time_ns = time_ns;
	event.signal = 11;
	event.core_dumped = 1;
	memcpy(event.comm, comm, strnlen(comm, TASK_COMM_LEN));
	tally_crash_event(t, &event, time_ns);
}

static const struct pmem_device *find_device(const struct pmem_metrics *m, const char *name)
{
	for (size_t i = 0; i < m->count; i++)
		if (!strcmp(m->devices[i].name, name))
			return &m->devices[i];
	return NULL;
}

/* The per-interval values of device name in the frame (it must exist). */
static void device_values(const struct frame *f, const char *name,
			  uint64_t values[PMEM_NR_COUNTERS])
{
	const struct pmem_device *dev = find_device(f->devices, name);

	cr_assert_not_null(dev, "no device %s in the frame", name);
	pmem_values(dev, false, values);
}

static void total_values(const struct frame *f, uint64_t values[PMEM_NR_COUNTERS])
{
	pmem_values(&f->devices->aggregate, false, values);
}

static void expect_values(const uint64_t got[PMEM_NR_COUNTERS],
			  const uint64_t want[PMEM_NR_COUNTERS], const char *what)
{
	for (int c = 0; c < PMEM_NR_COUNTERS; c++)
		cr_expect_eq(got[c], want[c], "%s: %s is %" PRIu64 ", expected %" PRIu64,
			     what, pmem_counter_names[c], got[c], want[c]);
}

static void expect_device(const struct frame *f, const char *name,
			  const uint64_t want[PMEM_NR_COUNTERS])
{
	uint64_t got[PMEM_NR_COUNTERS];

	device_values(f, name, got);
	expect_values(got, want, name);
}

static void expect_total(const struct frame *f, const uint64_t want[PMEM_NR_COUNTERS])
{
	uint64_t got[PMEM_NR_COUNTERS];

	total_values(f, got);
	expect_values(got, want, "total");
}

static const struct proc_io *frame_row(const struct frame *f, uint32_t tgid, uint32_t dev)
{
	for (size_t i = 0; i < f->nrows; i++)
		if (f->rows[i]->key.tgid == tgid && f->rows[i]->key.dev == dev)
			return f->rows[i];
	return NULL;
}

static const char *name_of(const struct frame *f, res_key key)
{
	uint32_t len;
	const char *name = res_lookup(f->names, key, &len);

	cr_assert_not_null(name);
	cr_assert_eq(strlen(name), len);
	return name;
}

static void expect_lost(const uint64_t got[LOST_NR_CAUSES],
			const uint64_t want[LOST_NR_CAUSES], const char *what)
{
	for (int c = 0; c < LOST_NR_CAUSES; c++)
		cr_expect_eq(got[c], want[c], "%s: lost[%d] is %" PRIu64 ", expected %" PRIu64,
			     what, c, got[c], want[c]);
}

/* The per-process count of comm (cut to 15 bytes like the kernel's comm), 0
 * if none: read from by_process directly. */
static uint64_t process_crashes(const struct crashfree *cf, const char *comm)
{
	char name[CRASHFREE_COMM_LEN];

	memset(name, 0, sizeof(name));
	memcpy(name, comm, strnlen(comm, CRASHFREE_COMM_LEN - 1));
	for (size_t i = 0; i < cf->nprocesses; i++)
		if (!strcmp(cf->by_process[i].comm, name))
			return cf->by_process[i].crashes;
	return 0;
}

/* ======================================================================
 * 1. Crash shortfall reconciliation
 * ====================================================================== */

Test(crashes, shortfall_waits_one_step_then_is_recorded)
{
	struct tally t;
	struct tally_config config = base_config();
	struct snap sp;
	struct frame f;

	start(&t, &config);
	snap_init(&sp);
	crash(&t, 10, "worker", AT(0) + 1);
	cr_assert_eq(t.crash.crashes, 1);

	/* The kernel counted 3: 2 not (yet) received.  Nothing recorded now. */
	snap_crashes(&sp, "worker", 3);
	step(&t, &sp, 1, false, &f);
	cr_assert_eq(t.crash.crashes, 1);
	cr_assert_eq(process_crashes(&t.crash, "worker"), 1);
	cr_assert_eq(f.ncrash_events, 1);
	tally_close_interval(&t);

	/* Still short at the next step: the 2 are recorded. */
	step(&t, &sp, 2, false, &f);
	cr_assert_eq(t.crash.crashes, 3);
	cr_assert_eq(process_crashes(&t.crash, "worker"), 3);
	cr_assert_eq(t.crash.nprocesses, 1);
	cr_assert_eq(f.ncrash_events, 0, "recovered crashes have no event to list");
	cr_assert_eq(f.crash, &t.crash);
	tally_close_interval(&t);

	/* And never again. */
	step(&t, &sp, 3, false, &f);
	tally_close_interval(&t);
	step(&t, &sp, 4, true, &f);
	cr_assert_eq(t.crash.crashes, 3);
	cr_assert_eq(process_crashes(&t.crash, "worker"), 3);
	tally_free(&t);
}

Test(crashes, late_event_is_not_counted_twice)
{
	struct tally t;
	struct tally_config config = base_config();
	struct snap sp;
	struct frame f;

	start(&t, &config);
	snap_init(&sp);
	snap_crashes(&sp, "svc", 2);
	step(&t, &sp, 1, false, &f);
	cr_assert_eq(t.crash.crashes, 0);
	tally_close_interval(&t);

	/* One of the two arrives between the steps: it is counted at once. */
	crash(&t, 7, "svc", AT(1) + 5);
	cr_assert_eq(t.crash.crashes, 1);

	/* The remaining shortfall (1) lasted both steps: recorded, but only it. */
	step(&t, &sp, 2, false, &f);
	cr_assert_eq(t.crash.crashes, 2);
	cr_assert_eq(process_crashes(&t.crash, "svc"), 2);
	cr_assert_eq(f.ncrash_events, 1);
	cr_assert_eq(f.crash_events[0].tgid, 7);
	tally_close_interval(&t);

	step(&t, &sp, 3, false, &f);
	tally_close_interval(&t);
	cr_assert_eq(t.crash.crashes, 2);
	tally_free(&t);
}

Test(crashes, all_late_events_arrive_nothing_recovered)
{
	struct tally t;
	struct tally_config config = base_config();
	struct snap sp;
	struct frame f;

	start(&t, &config);
	snap_init(&sp);
	snap_crashes(&sp, "svc", 2);
	step(&t, &sp, 1, false, &f);
	tally_close_interval(&t);
	crash(&t, 7, "svc", AT(1) + 5);
	crash(&t, 8, "svc", AT(1) + 6);
	step(&t, &sp, 2, false, &f);
	cr_assert_eq(t.crash.crashes, 2);
	cr_assert_eq(f.ncrash_events, 2);
	tally_close_interval(&t);
	step(&t, &sp, 3, true, &f);
	tally_close_interval(&t);
	cr_assert_eq(t.crash.crashes, 2);
	cr_assert_eq(process_crashes(&t.crash, "svc"), 2);
	tally_free(&t);
}

Test(crashes, growing_shortfall_records_only_what_lasted)
{
	struct tally t;
	struct tally_config config = base_config();
	struct snap sp;
	struct frame f;

	start(&t, &config);
	snap_init(&sp);
	snap_crashes(&sp, "app", 1);
	step(&t, &sp, 1, false, &f);
	tally_close_interval(&t);
	cr_assert_eq(t.crash.crashes, 0);

	/* 3 short now, but only 1 was short at the previous step. */
	snap_crashes(&sp, "app", 3);
	step(&t, &sp, 2, false, &f);
	tally_close_interval(&t);
	cr_assert_eq(t.crash.crashes, 1);

	/* The other 2 lasted too. */
	step(&t, &sp, 3, false, &f);
	tally_close_interval(&t);
	cr_assert_eq(t.crash.crashes, 3);
	cr_assert_eq(process_crashes(&t.crash, "app"), 3);
	tally_free(&t);
}

Test(crashes, final_frame_records_shortfall_at_once)
{
	struct tally t;
	struct tally_config config = base_config();
	struct snap sp;
	struct frame f;
	struct summary sum;

	start(&t, &config);
	snap_init(&sp);
	crash(&t, 3, "a", AT(0) + 1);
	snap_crashes(&sp, "a", 1);
	snap_crashes(&sp, "b", 2);
	step(&t, &sp, 1, true, &f);
	cr_assert_eq(t.crash.crashes, 3);
	cr_assert_eq(process_crashes(&t.crash, "a"), 1);
	cr_assert_eq(process_crashes(&t.crash, "b"), 2);
	tally_close_interval(&t);

	/* The summary from the same counts adds nothing. */
	tally_summary(&t, &sp.s, AT(2), &wall, &sum);
	cr_assert_eq(sum.crash, &t.crash);
	cr_assert_eq(t.crash.crashes, 3);
	tally_free(&t);
}

Test(crashes, summary_records_shortfall_at_once)
{
	struct tally t;
	struct tally_config config = base_config();
	struct snap sp;
	struct frame f;
	struct summary sum;

	start(&t, &config);
	snap_init(&sp);
	snap_crashes(&sp, "x", 1);
	step(&t, &sp, 1, false, &f);
	tally_close_interval(&t);
	cr_assert_eq(t.crash.crashes, 0);

	crash(&t, 4, "x", AT(1) + 9);
	snap_crashes(&sp, "x", 4);
	snap_crashes(&sp, "y", 1);
	tally_summary(&t, &sp.s, AT(2), &wall, &sum);
	cr_assert_eq(sum.crash->crashes, 5);
	cr_assert_eq(process_crashes(sum.crash, "x"), 4);
	cr_assert_eq(process_crashes(sum.crash, "y"), 1);
	cr_assert_eq(sum.duration_s, 2.0);
	cr_assert_eq(sum.wall.tv_sec, wall.tv_sec);
	cr_assert_eq(sum.wall.tv_nsec, wall.tv_nsec);
	tally_free(&t);
}

Test(crashes, comm_of_16_bytes_without_nul_is_cut_to_15)
{
	static const char raw16[TASK_COMM_LEN] = "0123456789abcdef";	/* no NUL */
	struct tally t;
	struct tally_config config = base_config();
	struct snap sp;
	struct frame f;
	struct crash_event event;

	start(&t, &config);
	snap_init(&sp);

	memset(&event, 0, sizeof(event));
	event.type = EVENT_CRASH;
	event.tgid = 99;
	event.time_ns = AT(0) + 1;
	event.signal = 6;
	memcpy(event.comm, raw16, TASK_COMM_LEN);
	tally_crash_event(&t, &event, AT(0) + 1);
	cr_assert_eq(event.comm[TASK_COMM_LEN - 1], '\0');
	cr_assert_str_eq(event.comm, "0123456789abcde");

	snap_crashes(&sp, raw16, 2);
	cr_assert_eq(memcmp(sp.crashes[0].comm, raw16, TASK_COMM_LEN), 0);
	step(&t, &sp, 1, false, &f);
	cr_assert_eq(f.ncrash_events, 1);
	cr_assert_str_eq(f.crash_events[0].comm, "0123456789abcde");
	cr_assert_eq(t.crash.crashes, 1, "the received event matches the raw key");
	tally_close_interval(&t);

	step(&t, &sp, 2, false, &f);
	tally_close_interval(&t);
	cr_assert_eq(t.crash.crashes, 2);
	cr_assert_eq(t.crash.nprocesses, 1, "one process, not two spellings");
	cr_assert_str_eq(t.crash.by_process[0].comm, "0123456789abcde");
	cr_assert_eq(t.crash.by_process[0].crashes, 2);
	cr_assert_eq(process_crashes(&t.crash, "0123456789abcde"), 2);
	/* The snapshot itself is not changed. */
	cr_assert_eq(memcmp(sp.crashes[0].comm, raw16, TASK_COMM_LEN), 0);
	tally_free(&t);
}

Test(crashes, processes_are_reconciled_independently)
{
	struct tally t;
	struct tally_config config = base_config();
	struct snap sp;
	struct frame f;

	start(&t, &config);
	snap_init(&sp);
	crash(&t, 1, "full", AT(0) + 1);
	crash(&t, 2, "full", AT(0) + 2);
	snap_crashes(&sp, "full", 2);
	snap_crashes(&sp, "short", 3);
	step(&t, &sp, 1, false, &f);
	tally_close_interval(&t);
	cr_assert_eq(t.crash.crashes, 2);
	step(&t, &sp, 2, false, &f);
	tally_close_interval(&t);
	cr_assert_eq(t.crash.crashes, 5);
	cr_assert_eq(process_crashes(&t.crash, "full"), 2);
	cr_assert_eq(process_crashes(&t.crash, "short"), 3);
	tally_free(&t);
}

/* ======================================================================
 * 2. Loss accounting
 * ====================================================================== */

Test(losses, per_interval_changes_and_run_totals)
{
	struct tally t;
	struct tally_config config = base_config();
	struct snap sp;
	struct frame f;
	struct summary sum;

	start(&t, &config);
	snap_init(&sp);

	sp.s.lost[LOST_STATS_MAP_FULL] = 3;
	sp.s.lost[LOST_INFLIGHT_FULL] = 1;
	sp.s.lost[LOST_PERF_BUFFER] = 5;
	step(&t, &sp, 1, false, &f);
	{
		uint64_t want[LOST_NR_CAUSES] = { [LOST_STATS_MAP_FULL] = 3,
			[LOST_INFLIGHT_FULL] = 1, [LOST_PERF_BUFFER] = 5 };

		expect_lost(f.lost, want, "interval 1");
	}
	tally_close_interval(&t);

	sp.s.lost[LOST_STATS_MAP_FULL] = 10;
	sp.s.perf_lost_records = 7;
	step(&t, &sp, 2, false, &f);
	{
		uint64_t want[LOST_NR_CAUSES] = { [LOST_STATS_MAP_FULL] = 7,
			[LOST_PERF_BUFFER] = 2 };

		expect_lost(f.lost, want, "interval 2");
	}
	tally_close_interval(&t);

	sp.s.lost[LOST_RINGBUF_FULL] = 4;
	sp.s.lost[LOST_CRASH_MAP_FULL] = 2;
	sp.s.lost[LOST_PERF_BUFFER] = 9;
	step(&t, &sp, 3, false, &f);
	{
		uint64_t want[LOST_NR_CAUSES] = { [LOST_RINGBUF_FULL] = 4,
			[LOST_CRASH_MAP_FULL] = 2, [LOST_PERF_BUFFER] = 2 };

		expect_lost(f.lost, want, "interval 3");
	}
	tally_close_interval(&t);
	{
		uint64_t want[LOST_NR_CAUSES] = { [LOST_STATS_MAP_FULL] = 10,
			[LOST_INFLIGHT_FULL] = 1, [LOST_RINGBUF_FULL] = 4,
			[LOST_CRASH_MAP_FULL] = 2, [LOST_PERF_BUFFER] = 9 };

		expect_lost(t.lost_run, want, "run after 3 intervals");
	}

	/* The last, partial interval: not trace mode, so unfinished is no loss. */
	sp.s.lost[LOST_STATS_MAP_FULL] = 12;
	sp.s.lost[LOST_COMPLETION_UNSEEN] = 6;
	sp.s.perf_lost_records = 11;
	sp.s.unfinished = 100;
	tally_summary(&t, &sp.s, AT(3) + SECOND / 2, &wall, &sum);
	{
		uint64_t want[LOST_NR_CAUSES] = { [LOST_STATS_MAP_FULL] = 12,
			[LOST_INFLIGHT_FULL] = 1, [LOST_RINGBUF_FULL] = 4,
			[LOST_CRASH_MAP_FULL] = 2, [LOST_PERF_BUFFER] = 11,
			[LOST_COMPLETION_UNSEEN] = 6 };

		expect_lost(sum.lost, want, "summary");
	}
	cr_assert_eq(sum.duration_s, 3.5);
	cr_assert_not(sum.has_io_events);
	tally_free(&t);
}

Test(losses, perf_buffer_takes_the_larger_count_once)
{
	static const struct { uint64_t bpf, records, reported; } steps[] = {
		{ 5, 0, 5 },	/* BPF side first */
		{ 5, 7, 2 },	/* PERF_RECORD_LOST caught up and passed it */
		{ 9, 7, 2 },	/* BPF side ahead again */
		{ 9, 9, 0 },	/* both agree: nothing new */
		{ 9, 12, 3 },
	};
	struct tally t;
	struct tally_config config = base_config();
	struct snap sp;
	struct frame f;
	struct summary sum;
	uint64_t sum_reported = 0;

	start(&t, &config);
	snap_init(&sp);
	for (size_t i = 0; i < sizeof(steps) / sizeof(steps[0]); i++) {
		sp.s.lost[LOST_PERF_BUFFER] = steps[i].bpf;
		sp.s.perf_lost_records = steps[i].records;
		step(&t, &sp, (int)i + 1, false, &f);
		cr_expect_eq(f.lost[LOST_PERF_BUFFER], steps[i].reported,
			     "interval %zu: %" PRIu64 " perf losses, expected %" PRIu64,
			     i + 1, f.lost[LOST_PERF_BUFFER], steps[i].reported);
		cr_expect_eq(lost_total(f.lost), steps[i].reported);
		sum_reported += steps[i].reported;
		tally_close_interval(&t);
	}
	cr_assert_eq(sum_reported, 12);
	tally_summary(&t, &sp.s, AT(6), &wall, &sum);
	cr_assert_eq(sum.lost[LOST_PERF_BUFFER], 12);
	cr_assert_eq(lost_total(sum.lost), 12);
	tally_free(&t);
}

Test(losses, summary_after_an_unclosed_frame_counts_it_once)
{
	struct tally t;
	struct tally_config config = base_config();
	struct snap sp;
	struct frame f;
	struct summary sum;

	start(&t, &config);
	snap_init(&sp);
	sp.s.lost[LOST_STATS_MAP_FULL] = 3;
	step(&t, &sp, 1, false, &f);
	tally_close_interval(&t);
	sp.s.lost[LOST_STATS_MAP_FULL] = 8;
	step(&t, &sp, 2, false, &f);
	cr_assert_eq(f.lost[LOST_STATS_MAP_FULL], 5);
	/* no tally_close_interval(): the summary folds the frame's counts in */
	sp.s.lost[LOST_STATS_MAP_FULL] = 9;
	tally_summary(&t, &sp.s, AT(3), &wall, &sum);
	cr_assert_eq(sum.lost[LOST_STATS_MAP_FULL], 9);
	tally_free(&t);
}

Test(losses, trace_summary_adds_unfinished_to_completion_unseen)
{
	struct tally t;
	struct tally_config config = base_config();
	struct snap sp;
	struct frame f;
	struct summary sum;

	config.trace = true;
	start(&t, &config);
	snap_init(&sp);
	sp.s.lost[LOST_COMPLETION_UNSEEN] = 2;
	step(&t, &sp, 1, false, &f);
	cr_assert_eq(f.lost[LOST_COMPLETION_UNSEEN], 2);
	tally_close_interval(&t);
	sp.s.lost[LOST_COMPLETION_UNSEEN] = 6;
	sp.s.unfinished = 40;
	tally_summary(&t, &sp.s, AT(2), &wall, &sum);
	cr_assert_eq(sum.lost[LOST_COMPLETION_UNSEEN], 46);
	cr_assert_eq(lost_total(sum.lost), 46);
	cr_assert(sum.has_io_events);
	tally_free(&t);
}

Test(losses, non_trace_summary_ignores_unfinished)
{
	struct tally t;
	struct tally_config config = base_config();
	struct snap sp;
	struct summary sum;

	config.per_process_latency = true;	/* -L tracks I/Os too */
	start(&t, &config);
	snap_init(&sp);
	sp.s.lost[LOST_COMPLETION_UNSEEN] = 6;
	sp.s.unfinished = 40;
	tally_summary(&t, &sp.s, AT(1), &wall, &sum);
	cr_assert_eq(sum.lost[LOST_COMPLETION_UNSEEN], 6);
	cr_assert_eq(lost_total(sum.lost), 6);
	tally_free(&t);
}

/* ======================================================================
 * 3. Device latency from the kernel's per-device totals
 * ====================================================================== */

Test(latency, device_deltas_from_running_totals)
{
	struct tally t;
	struct tally_config config = base_config();
	struct snap sp;
	struct frame f;

	start(&t, &config);
	snap_init(&sp);
	snap_latency(&sp, DEV_A, 1000, 2);
	snap_latency(&sp, DEV_B, 5000, 5);
	step(&t, &sp, 1, false, &f);
	cr_assert_eq(f.devices->count, 2);
	cr_assert_str_eq(f.devices->devices[0].name, NAME_B, "devices in name order");
	cr_assert_str_eq(f.devices->devices[1].name, NAME_A);
	expect_device(&f, NAME_A, (uint64_t[PMEM_NR_COUNTERS]){
		[PMEM_LATENCY_NS] = 1000, [PMEM_LATENCY_IOS] = 2 });
	expect_device(&f, NAME_B, (uint64_t[PMEM_NR_COUNTERS]){
		[PMEM_LATENCY_NS] = 5000, [PMEM_LATENCY_IOS] = 5 });
	expect_total(&f, (uint64_t[PMEM_NR_COUNTERS]){
		[PMEM_LATENCY_NS] = 6000, [PMEM_LATENCY_IOS] = 7 });
	tally_close_interval(&t);

	/* B had no new I/O: 0, not its total again. */
	snap_latency(&sp, DEV_A, 1600, 3);
	step(&t, &sp, 2, false, &f);
	expect_device(&f, NAME_A, (uint64_t[PMEM_NR_COUNTERS]){
		[PMEM_LATENCY_NS] = 600, [PMEM_LATENCY_IOS] = 1 });
	expect_device(&f, NAME_B, (uint64_t[PMEM_NR_COUNTERS]){ 0 });
	expect_total(&f, (uint64_t[PMEM_NR_COUNTERS]){
		[PMEM_LATENCY_NS] = 600, [PMEM_LATENCY_IOS] = 1 });
	tally_close_interval(&t);

	snap_latency(&sp, DEV_B, 5900, 6);
	step(&t, &sp, 3, false, &f);
	expect_device(&f, NAME_A, (uint64_t[PMEM_NR_COUNTERS]){ 0 });
	expect_device(&f, NAME_B, (uint64_t[PMEM_NR_COUNTERS]){
		[PMEM_LATENCY_NS] = 900, [PMEM_LATENCY_IOS] = 1 });
	expect_total(&f, (uint64_t[PMEM_NR_COUNTERS]){
		[PMEM_LATENCY_NS] = 900, [PMEM_LATENCY_IOS] = 1 });
	{
		uint64_t totals[PMEM_NR_COUNTERS];

		pmem_values(&f.devices->aggregate, true, totals);
		cr_assert_eq(totals[PMEM_LATENCY_NS], 7500);
		cr_assert_eq(totals[PMEM_LATENCY_IOS], 9);
	}
	tally_close_interval(&t);
	tally_free(&t);
}

Test(latency, rows_latency_is_not_folded_when_the_kernel_keeps_it_per_device)
{
	struct tally t;
	struct tally_config config = base_config();
	struct snap sp;
	struct frame f;

	start(&t, &config);
	snap_init(&sp);
	snap_row(&sp, 1, DEV_A, "dd", (struct proc_dev_stats){
		.bytes = { 4096 }, .ios = { 1 }, .latency_ns = 999, .latency_ios = 1 });
	snap_latency(&sp, DEV_A, 2000, 4);
	step(&t, &sp, 1, false, &f);
	expect_device(&f, NAME_A, (uint64_t[PMEM_NR_COUNTERS]){
		[PMEM_READ_BYTES] = 4096, [PMEM_READ_IOS] = 1,
		[PMEM_LATENCY_NS] = 2000, [PMEM_LATENCY_IOS] = 4 });
	tally_free(&t);
}

/*
 * The BPF side adds latency_ns, then ios, with two separate atomic adds, so a
 * snapshot can see latency_ns grown while ios has not yet: those nanoseconds
 * must show up with their I/O in the interval after, never be dropped.
 */
Test(latency, latency_seen_before_its_io_is_not_lost)
{
	struct tally t;
	struct tally_config config = base_config();
	struct snap sp;
	struct frame f;
	uint64_t totals[PMEM_NR_COUNTERS];

	start(&t, &config);
	snap_init(&sp);
	snap_latency(&sp, DEV_A, 1000, 1);
	step(&t, &sp, 1, false, &f);
	tally_close_interval(&t);

	snap_latency(&sp, DEV_A, 1500, 1);	/* ns added, ios not yet */
	step(&t, &sp, 2, false, &f);
	expect_device(&f, NAME_A, (uint64_t[PMEM_NR_COUNTERS]){ 0 });
	tally_close_interval(&t);

	snap_latency(&sp, DEV_A, 1500, 2);	/* now the ios */
	step(&t, &sp, 3, false, &f);
	expect_device(&f, NAME_A, (uint64_t[PMEM_NR_COUNTERS]){
		[PMEM_LATENCY_NS] = 500, [PMEM_LATENCY_IOS] = 1 });
	pmem_values(find_device(f.devices, NAME_A), true, totals);
	cr_expect_eq(totals[PMEM_LATENCY_NS], 1500, "device total %" PRIu64 " ns, kernel 1500",
		     totals[PMEM_LATENCY_NS]);
	cr_expect_eq(totals[PMEM_LATENCY_IOS], 2);
	tally_free(&t);
}

/* ======================================================================
 * 4. Rows folded into devices
 * ====================================================================== */

Test(devices, rows_fold_into_their_devices_and_the_total)
{
	struct tally t;
	struct tally_config config = base_config();
	struct snap sp;
	struct frame f;

	start(&t, &config);
	snap_init(&sp);
	snap_row(&sp, 100, DEV_A, "dd", (struct proc_dev_stats){
		.bytes = { 4096 }, .ios = { 1 } });
	snap_row(&sp, 200, DEV_A, "cp", (struct proc_dev_stats){
		.bytes = { 0, 8192 }, .ios = { 0, 2 }, .flushes = 1 });
	snap_row(&sp, 200, DEV_B, "cp", (struct proc_dev_stats){
		.bytes = { 0, 1000 }, .ios = { 0, 1 } });
	snap_row(&sp, 300, DEV_B, "fstrim", (struct proc_dev_stats){
		.bytes = { 0, 0, 1 << 20 }, .ios = { 0, 0, 1 } });
	step(&t, &sp, 1, false, &f);
	cr_assert_eq(f.devices->count, 2);
	/* A row's flushes (those its process asked for) stay the row's: a
	 * disk's are its own count (devices/flushes_are_the_disks_own). */
	expect_device(&f, NAME_A, (uint64_t[PMEM_NR_COUNTERS]){
		[PMEM_READ_BYTES] = 4096, [PMEM_WRITE_BYTES] = 8192,
		[PMEM_READ_IOS] = 1, [PMEM_WRITE_IOS] = 2 });
	expect_device(&f, NAME_B, (uint64_t[PMEM_NR_COUNTERS]){
		[PMEM_WRITE_BYTES] = 1000, [PMEM_DISCARD_BYTES] = 1 << 20,
		[PMEM_WRITE_IOS] = 1, [PMEM_DISCARD_IOS] = 1 });
	expect_total(&f, (uint64_t[PMEM_NR_COUNTERS]){
		[PMEM_READ_BYTES] = 4096, [PMEM_WRITE_BYTES] = 9192,
		[PMEM_DISCARD_BYTES] = 1 << 20, [PMEM_READ_IOS] = 1, [PMEM_WRITE_IOS] = 3,
		[PMEM_DISCARD_IOS] = 1 });
	cr_assert_eq(f.nrows, 4);
	tally_close_interval(&t);

	/* Interval 2: only the changes; a new row on B. */
	snap_row(&sp, 100, DEV_A, "dd", (struct proc_dev_stats){
		.bytes = { 4096 + 512 }, .ios = { 2 } });
	snap_row(&sp, 200, DEV_A, "cp", (struct proc_dev_stats){
		.bytes = { 0, 8192 + 100 }, .ios = { 0, 3 }, .flushes = 3 });
	snap_row(&sp, 400, DEV_B, "tar", (struct proc_dev_stats){
		.bytes = { 70, 30 }, .ios = { 1, 1 } });
	step(&t, &sp, 2, false, &f);
	expect_device(&f, NAME_A, (uint64_t[PMEM_NR_COUNTERS]){
		[PMEM_READ_BYTES] = 512, [PMEM_WRITE_BYTES] = 100,
		[PMEM_READ_IOS] = 1, [PMEM_WRITE_IOS] = 1 });
	expect_device(&f, NAME_B, (uint64_t[PMEM_NR_COUNTERS]){
		[PMEM_READ_BYTES] = 70, [PMEM_WRITE_BYTES] = 30,
		[PMEM_READ_IOS] = 1, [PMEM_WRITE_IOS] = 1 });
	expect_total(&f, (uint64_t[PMEM_NR_COUNTERS]){
		[PMEM_READ_BYTES] = 582, [PMEM_WRITE_BYTES] = 130,
		[PMEM_READ_IOS] = 2, [PMEM_WRITE_IOS] = 2 });
	/* (rows are looked at in the shown suite; t->shown grows from 4 to 5
	 * here, see shown/frames_rows_point_at_the_sorted_rows) */
	cr_assert_eq(f.nrows, 3, "the idle rows on B are not shown");
	tally_close_interval(&t);
	tally_free(&t);
}

/*
 * The run ends 0.3 s into its third interval: 3 writes in the first, none in
 * the second, 5 in the unfinished third.  The run closes that interval as a
 * last frame from the final snapshot, and the summary, made from the same
 * snapshot, counts exactly what the frames showed: 8 writes, not the 3 of
 * the whole intervals (issue 37's dropped minute).
 */
Test(devices, the_last_partial_frame_and_the_summary_count_the_same_io)
{
	struct tally t;
	struct tally_config config = base_config();
	struct snap sp;
	struct frame f;
	struct summary sum;
	uint64_t frames_total[PMEM_NR_COUNTERS] = { 0 }, got[PMEM_NR_COUNTERS];

	start(&t, &config);
	snap_init(&sp);
	snap_row(&sp, 100, DEV_A, "dd", (struct proc_dev_stats){
		.bytes = { 0, 3 * 4096 }, .ios = { 0, 3 } });
	for (int n = 1; n <= 2; n++) {
		step(&t, &sp, n, false, &f);
		total_values(&f, got);
		for (int i = 0; i < PMEM_NR_COUNTERS; i++)
			frames_total[i] += got[i];
		tally_close_interval(&t);
	}
	snap_row(&sp, 100, DEV_A, "dd", (struct proc_dev_stats){
		.bytes = { 0, 8 * 4096 }, .ios = { 0, 8 } });
	tally_frame(&t, &sp.s, AT(2) + 3 * SECOND / 10, &wall, true, &f);
	cr_assert_eq(f.interval_s, 0.3, "the part of the interval it ran: %g", f.interval_s);
	expect_total(&f, (uint64_t[PMEM_NR_COUNTERS]){
		[PMEM_WRITE_BYTES] = 5 * 4096, [PMEM_WRITE_IOS] = 5 });
	total_values(&f, got);
	for (int i = 0; i < PMEM_NR_COUNTERS; i++)
		frames_total[i] += got[i];
	tally_close_interval(&t);

	tally_summary(&t, &sp.s, AT(2) + 3 * SECOND / 10 + 1000, &wall, &sum);
	cr_assert_not_null(sum.devices);
	pmem_values(&sum.devices->aggregate, true, got);
	expect_values(got, frames_total, "summary = the frames' sum");
	cr_assert_eq(got[PMEM_WRITE_IOS], 8);
	cr_assert_eq(got[PMEM_WRITE_BYTES], 8 * 4096);
	tally_free(&t);
}

/*
 * A disk's flushes are the flush requests it completed, as the kernel counts
 * them per disk (/proc/diskstats), not its rows' sum: three fsyncs of ext4
 * on a loop device ask for three pre-flushes (the rows' flushes) and the
 * disk completes six requests (a pre-flush and a post-flush each).  The
 * rows keep what their process asked for.
 */
Test(devices, flushes_are_the_disks_own_not_its_rows_sum)
{
	struct tally t;
	struct tally_config config = base_config();
	struct snap sp;
	struct frame f;
	uint64_t totals[PMEM_NR_COUNTERS];

	start(&t, &config);
	snap_init(&sp);
	snap_row(&sp, 100, DEV_A, "dd", (struct proc_dev_stats){
		.bytes = { 0, 40960 }, .ios = { 0, 1 } });
	snap_row(&sp, 200, DEV_A, "jbd2/loop0-8", (struct proc_dev_stats){
		.bytes = { 0, 8192 }, .ios = { 0, 2 }, .flushes = 1 });
	snap_flushes(&sp, DEV_A, 2);
	step(&t, &sp, 1, false, &f);
	expect_device(&f, NAME_A, (uint64_t[PMEM_NR_COUNTERS]){
		[PMEM_WRITE_BYTES] = 49152, [PMEM_WRITE_IOS] = 3, [PMEM_FLUSHES] = 2 });
	expect_total(&f, (uint64_t[PMEM_NR_COUNTERS]){
		[PMEM_WRITE_BYTES] = 49152, [PMEM_WRITE_IOS] = 3, [PMEM_FLUSHES] = 2 });
	cr_assert_not_null(frame_row(&f, 200, DEV_A));
	cr_expect_eq(frame_row(&f, 200, DEV_A)->delta[PMEM_FLUSHES], 1);
	tally_close_interval(&t);

	/* Two more fsyncs: the row's 1 -> 3, the disk's 2 -> 6. */
	snap_row(&sp, 200, DEV_A, "jbd2/loop0-8", (struct proc_dev_stats){
		.bytes = { 0, 24576 }, .ios = { 0, 6 }, .flushes = 3 });
	snap_flushes(&sp, DEV_A, 6);
	step(&t, &sp, 2, false, &f);
	expect_device(&f, NAME_A, (uint64_t[PMEM_NR_COUNTERS]){
		[PMEM_WRITE_BYTES] = 16384, [PMEM_WRITE_IOS] = 4, [PMEM_FLUSHES] = 4 });
	cr_assert_not_null(frame_row(&f, 200, DEV_A));
	cr_expect_eq(frame_row(&f, 200, DEV_A)->delta[PMEM_FLUSHES], 2);
	pmem_values(find_device(f.devices, NAME_A), true, totals);
	cr_expect_eq(totals[PMEM_FLUSHES], 6, "-a: the disk's flushes since start are %" PRIu64,
		     totals[PMEM_FLUSHES]);
	tally_close_interval(&t);

	/* No new flush: nothing, whatever the rows do. */
	snap_row(&sp, 100, DEV_A, "dd", (struct proc_dev_stats){
		.bytes = { 0, 45056 }, .ios = { 0, 2 }, .flushes = 1 });
	step(&t, &sp, 3, false, &f);
	expect_device(&f, NAME_A, (uint64_t[PMEM_NR_COUNTERS]){
		[PMEM_WRITE_BYTES] = 4096, [PMEM_WRITE_IOS] = 1 });
	tally_close_interval(&t);
	tally_free(&t);
}

/* A disk that completed flushes and nothing else diskio charged to a row
 * (another process's under -p, or no I/O of its own in the interval) still
 * shows them: its record equals /proc/diskstats. */
Test(devices, a_disk_with_flushes_alone_shows_them)
{
	struct tally t;
	struct tally_config config = base_config();
	struct snap sp;
	struct frame f;

	start(&t, &config);
	snap_init(&sp);
	snap_row(&sp, 100, DEV_A, "dd", (struct proc_dev_stats){
		.bytes = { 4096 }, .ios = { 1 } });
	snap_flushes(&sp, DEV_B, 3);
	step(&t, &sp, 1, false, &f);
	cr_assert_eq(f.devices->count, 2);
	expect_device(&f, NAME_A, (uint64_t[PMEM_NR_COUNTERS]){
		[PMEM_READ_BYTES] = 4096, [PMEM_READ_IOS] = 1 });
	expect_device(&f, NAME_B, (uint64_t[PMEM_NR_COUNTERS]){ [PMEM_FLUSHES] = 3 });
	expect_total(&f, (uint64_t[PMEM_NR_COUNTERS]){
		[PMEM_READ_BYTES] = 4096, [PMEM_READ_IOS] = 1, [PMEM_FLUSHES] = 3 });
	cr_expect_eq(f.nrows, 1, "no row for a disk's flushes");
	tally_close_interval(&t);
	tally_free(&t);
}

/* With -L the rows carry their own latency, but a device's latency and
 * histograms come only from the kernel's per-device totals: the rows' are
 * not added again. */
Test(devices, device_latency_comes_from_the_device_map_even_with_rows_latency)
{
	struct tally t;
	struct tally_config config = base_config();
	struct snap sp;
	struct frame f;

	config.per_process_latency = true;
	start(&t, &config);
	snap_init(&sp);
	snap_row(&sp, 1, DEV_A, "a", (struct proc_dev_stats){
		.bytes = { 100 }, .ios = { 2 }, .latency_ns = 1000, .latency_ios = 2 });
	snap_latency(&sp, DEV_A, 7000, 7);
	step(&t, &sp, 1, false, &f);
	expect_device(&f, NAME_A, (uint64_t[PMEM_NR_COUNTERS]){
		[PMEM_READ_BYTES] = 100, [PMEM_READ_IOS] = 2,
		[PMEM_LATENCY_NS] = 7000, [PMEM_LATENCY_IOS] = 7 });
	tally_free(&t);
}

/* The device histograms: per-interval changes of the kernel's running
 * slot counts, per operation, and their sum in the total. */
Test(devices, latency_histograms_per_interval_and_operation)
{
	struct tally t;
	struct tally_config config = base_config();
	struct latency_hist h;
	struct snap sp;
	struct frame f;

	start(&t, &config);
	snap_init(&sp);
	snap_latency(&sp, DEV_A, 9000, 3);
	sp.latency[0].latency.slots[IO_READ][10] = 2;
	sp.latency[0].latency.slots[IO_WRITE][12] = 1;
	step(&t, &sp, 1, false, &f);
	pmem_latency_hist(find_device(f.devices, NAME_A), IO_READ, false, &h);
	cr_assert_eq(h.slots[10], 2);
	cr_assert_eq(latency_hist_count(&h), 2);
	pmem_latency_hist(find_device(f.devices, NAME_A), IO_WRITE, false, &h);
	cr_assert_eq(h.slots[12], 1);
	cr_assert_eq(latency_hist_count(&h), 1);
	pmem_latency_hist(&f.devices->aggregate, IO_READ, false, &h);
	cr_assert_eq(h.slots[10], 2, "the total holds every device's");
	tally_close_interval(&t);

	snap_latency(&sp, DEV_A, 12000, 5);
	sp.latency[0].latency.slots[IO_READ][10] = 3;
	sp.latency[0].latency.slots[IO_READ][20] = 1;
	step(&t, &sp, 2, false, &f);
	pmem_latency_hist(find_device(f.devices, NAME_A), IO_READ, false, &h);
	cr_assert_eq(h.slots[10], 1, "changes since the last interval");
	cr_assert_eq(h.slots[20], 1);
	cr_assert_eq(latency_hist_count(&h), 2);
	pmem_latency_hist(find_device(f.devices, NAME_A), IO_WRITE, false, &h);
	cr_assert_eq(latency_hist_count(&h), 0);
	pmem_latency_hist(find_device(f.devices, NAME_A), IO_READ, true, &h);
	cr_assert_eq(latency_hist_count(&h), 4, "since start");
	tally_free(&t);
}

/* A bio-based disk's entry says 1 in how many bios it timed and how many
 * chosen ones found no slot: the rate is shown as the kernel has it (a disk
 * without it timed every I/O), the drops per interval and since start. */
Test(devices, latency_sample_rate_and_drops_per_disk)
{
	struct tally t;
	struct tally_config config = base_config();
	const struct pmem_device *a, *b;
	struct snap sp;
	struct frame f;

	start(&t, &config);
	snap_init(&sp);
	snap_latency(&sp, DEV_A, 16000, 8);
	sp.latency[0].latency.sample_every = 16;
	sp.latency[0].latency.samples_dropped = 3;
	snap_latency(&sp, DEV_B, 4000, 2);
	step(&t, &sp, 1, false, &f);
	a = find_device(f.devices, NAME_A);
	b = find_device(f.devices, NAME_B);
	cr_assert_eq(pmem_latency_sample(a), 16);
	cr_assert_eq(pmem_value(&a->latency_samples_dropped, false), 3);
	cr_assert_eq(pmem_latency_sample(b), 1, "every I/O timed");
	cr_assert_eq(pmem_value(&b->latency_samples_dropped, false), 0);
	tally_close_interval(&t);

	/* Only drops changed: still a change of the disk's entry. */
	sp.latency[0].latency.samples_dropped = 5;
	step(&t, &sp, 2, false, &f);
	a = find_device(f.devices, NAME_A);
	cr_assert_eq(pmem_value(&a->latency_samples_dropped, false), 2, "this interval's");
	cr_assert_eq(pmem_value(&a->latency_samples_dropped, true), 5, "since start");
	cr_assert_eq(pmem_value(&f.devices->aggregate.latency_samples_dropped, false), 2);
	cr_assert_eq(pmem_latency_sample(a), 16);
	tally_free(&t);
}

/* ======================================================================
 * 5. Restarted kernel entries, forgotten rows, reused keys
 * ====================================================================== */

Test(rows, counters_going_backwards_count_the_new_value)
{
	struct tally t;
	struct tally_config config = base_config();
	struct snap sp;
	struct frame f;
	const struct proc_io *row;

	start(&t, &config);
	snap_init(&sp);
	snap_row(&sp, 500, DEV_A, "app", (struct proc_dev_stats){
		.bytes = { 1000, 2000 }, .ios = { 10, 20 } });
	step(&t, &sp, 1, false, &f);
	tally_close_interval(&t);

	/* The entry was deleted and made anew: 300 read bytes, 5 write bytes. */
	snap_row(&sp, 500, DEV_A, "app", (struct proc_dev_stats){
		.bytes = { 300, 2005 }, .ios = { 3, 21 } });
	step(&t, &sp, 2, false, &f);
	row = frame_row(&f, 500, DEV_A);
	cr_assert_not_null(row);
	cr_assert_eq(row->delta[PMEM_READ_BYTES], 300);
	cr_assert_eq(row->delta[PMEM_WRITE_BYTES], 2005);
	cr_assert_eq(row->delta[PMEM_READ_IOS], 3);
	cr_assert_eq(row->delta[PMEM_WRITE_IOS], 21);
	cr_assert_eq(row->total[PMEM_READ_BYTES], 1300);
	cr_assert_eq(row->total[PMEM_WRITE_BYTES], 4005);
	expect_device(&f, NAME_A, (uint64_t[PMEM_NR_COUNTERS]){
		[PMEM_READ_BYTES] = 300, [PMEM_WRITE_BYTES] = 2005,
		[PMEM_READ_IOS] = 3, [PMEM_WRITE_IOS] = 21 });
	tally_free(&t);
}

/* An exited process that dirtied page cache keeps its row while the kernel
 * may still charge writeback of its files to it (OWNER_TTL_NS and a margin):
 * deleting its kernel entry then could drop bytes written back meanwhile. */
Test(rows, exited_dirtier_is_kept_while_writeback_may_come)
{
	struct tally t;
	struct tally_config config = base_config();
	struct snap sp;
	struct frame f;
	int n = 1, grace_steps = (int)((OWNER_TTL_NS + 20 * SECOND) / SECOND);

	start(&t, &config);
	snap_init(&sp);
	mark_dead(600);
	snap_row(&sp, 600, DEV_A, "dd", (struct proc_dev_stats){ .dirtied_bytes = 1 << 20 });
	step(&t, &sp, n, false, &f);
	cr_assert_eq(f.nrows, 1, "a row that only dirtied is shown");
	cr_assert_eq(frame_row(&f, 600, DEV_A)->delta[PMEM_DIRTIED_BYTES], 1 << 20);
	tally_close_interval(&t);
	for (n = 2; n < grace_steps; n++) {
		step(&t, &sp, n, false, &f);
		tally_close_interval(&t);
		cr_assert_eq(t.nforget, 0, "forgotten %d s after it dirtied", n - 1);
	}
	for (; n < grace_steps + 3 && !t.nforget; n++) {
		step(&t, &sp, n, false, &f);
		tally_close_interval(&t);
	}
	cr_assert_eq(t.nforget, 1, "still kept %d s after it dirtied", n - 1);
	cr_assert_eq(t.forget[0].tgid, 600);
	tally_free(&t);
}

Test(rows, exited_idle_row_is_forgotten_then_dropped)
{
	struct tally t;
	struct tally_config config = base_config();
	struct snap sp;
	struct frame f;
	const struct proc_io *row;

	start(&t, &config);
	snap_init(&sp);
	mark_dead(700);
	snap_row(&sp, 700, DEV_A, "gone", (struct proc_dev_stats){ .bytes = { 1000 }, .ios = { 4 } });
	for (int n = 1; n <= 3; n++) {
		step(&t, &sp, n, false, &f);
		tally_close_interval(&t);
	}
	cr_assert_eq(t.nforget, 1);
	cr_assert_eq(t.procs.count, 1, "kept until what its entry held is counted");
	snap_forget(&sp, &t);
	cr_assert_eq(sp.s.nrows, 0);

	step(&t, &sp, 4, false, &f);
	cr_assert_eq(f.nrows, 0, "the entry held nothing new");
	tally_close_interval(&t);
	cr_assert_eq(t.nforget, 0, "nothing is forgotten twice");
	cr_assert_eq(t.procs.count, 0, "then it is dropped");
	snap_forget(&sp, &t);

	/* The same key later: a row of its own, from zero. */
	snap_row(&sp, 700, DEV_A, "gone", (struct proc_dev_stats){ .bytes = { 8 }, .ios = { 1 } });
	step(&t, &sp, 5, false, &f);
	row = frame_row(&f, 700, DEV_A);
	cr_assert_not_null(row);
	cr_assert_eq(row->delta[PMEM_READ_BYTES], 8);
	cr_assert_eq(row->total[PMEM_READ_BYTES], 8);
	tally_free(&t);
}

/*
 * A frame stays as it was until the next step: the top view draws it again
 * after a key.  Here `a` turns totals off while the frame shows an exited
 * process's row by its totals: tally_close_interval() drops that row (and
 * its latency) and moves the other, yet both read as they were shown, the
 * crash list too, until the next tally_frame() (ASan: no use after free).
 * A kept frame (frame_keep()) outlives that step too.
 */
Test(rows, a_frame_stays_as_shown_until_the_next_step)
{
	struct tally t;
	struct tally_config config = base_config();
	struct snap sp;
	struct frame f;
	const struct proc_io *gone, *alive;
	struct latency_summary l;
	struct kept_frame k = { 0 };

	config.cumulative = true;
	config.latency_from_rows = true;
	config.per_process_latency = true;
	start(&t, &config);
	snap_init(&sp);
	mark_dead(710);
	snap_row(&sp, 710, DEV_A, "gone", (struct proc_dev_stats){ .bytes = { 1000 }, .ios = { 4 } });
	snap_row_latency(&sp, 710, DEV_A, "gone", IO_READ, 5000, 4);
	snap_row(&sp, 77, DEV_B, "db", (struct proc_dev_stats){ .bytes = { 0, 64 }, .ios = { 0, 1 } });
	for (int n = 1; n <= 3; n++) {
		step(&t, &sp, n, false, &f);
		tally_close_interval(&t);
	}
	cr_assert_eq(t.nforget, 1);
	snap_forget(&sp, &t);
	snap_row(&sp, 77, DEV_B, "db", (struct proc_dev_stats){ .bytes = { 0, 96 }, .ios = { 0, 2 } });
	crash(&t, 711, "boom", AT(3) + 1);
	step(&t, &sp, 4, false, &f);
	cr_assert_eq(f.nrows, 2, "totals show the exited process's row");
	cr_assert_eq(f.ncrash_events, 1);
	cr_assert_eq(frame_keep(&k, &f), 0);

	t.config.cumulative = false;	/* what `a` does between frames */
	tally_close_interval(&t);
	cr_assert_eq(t.procs.count, 1, "the exited process's row is dropped");
	crash(&t, 712, "later", AT(4) + 1);

	gone = frame_row(&f, 710, DEV_A);
	alive = frame_row(&f, 77, DEV_B);
	cr_assert_not_null(gone);
	cr_assert_not_null(alive);
	cr_assert_str_eq(name_of(&f, gone->comm_name), "gone");
	cr_assert_eq(gone->delta[PMEM_READ_BYTES], 0);
	cr_assert_eq(gone->total[PMEM_READ_BYTES], 1000);
	cr_assert(iostats_latency_summary(gone, true, &l), "its latency is still there");
	cr_assert_eq(l.ios, 4);
	cr_assert_str_eq(name_of(&f, alive->comm_name), "db");
	cr_assert_eq(alive->delta[PMEM_WRITE_BYTES], 32);
	cr_assert_eq(alive->total[PMEM_WRITE_BYTES], 96);
	cr_assert_eq(f.ncrash_events, 1);
	cr_assert_eq(f.crash_events[0].tgid, 711, "a crash event after the frame is the next's");
	expect_device(&f, NAME_B, (uint64_t[PMEM_NR_COUNTERS]){
		[PMEM_WRITE_BYTES] = 32, [PMEM_WRITE_IOS] = 1 });

	snap_forget(&sp, &t);
	step(&t, &sp, 5, false, &f);
	cr_assert_null(frame_row(&f, 710, DEV_A));
	cr_assert_eq(f.ncrash_events, 1);
	cr_assert_eq(f.crash_events[0].tgid, 712);
	tally_close_interval(&t);
	step(&t, &sp, 6, false, &f);

	gone = frame_row(&k.frame, 710, DEV_A);
	cr_assert_not_null(gone);
	cr_assert_str_eq(name_of(&k.frame, gone->comm_name), "gone");
	cr_assert_eq(gone->total[PMEM_READ_BYTES], 1000);
	cr_assert(iostats_latency_summary(gone, true, &l));
	cr_assert_eq(l.ios, 4);
	cr_assert_eq(frame_row(&k.frame, 77, DEV_B)->total[PMEM_WRITE_BYTES], 96);
	cr_assert_eq(k.frame.crash_events[0].tgid, 711);
	expect_device(&k.frame, NAME_B, (uint64_t[PMEM_NR_COUNTERS]){
		[PMEM_WRITE_BYTES] = 32, [PMEM_WRITE_IOS] = 1 });
	frame_kept_free(&k);
	tally_free(&t);
}

/*
 * Between the last snapshot and the deletion of a forgotten row's entry, a
 * process of the same pid and name (the pid used again) did I/O into it:
 * what the entry held as it was deleted is counted in the next frame, and
 * the key's new entry from zero: no I/O lost, none counted twice.
 */
Test(rows, exited_idle_row_is_forgotten_and_a_reused_key_starts_anew)
{
	struct tally t;
	struct tally_config config = base_config();
	struct snap sp;
	struct frame f;
	const struct proc_io *row;
	struct proc_dev_key gone = make_key(500, DEV_A, "app");

	start(&t, &config);
	snap_init(&sp);
	mark_dead(500);
	snap_row(&sp, 500, DEV_A, "app", (struct proc_dev_stats){ .bytes = { 1000 }, .ios = { 4 } });
	snap_row(&sp, 501, DEV_A, "app", (struct proc_dev_stats){ .bytes = { 10 }, .ios = { 1 } });

	step(&t, &sp, 1, false, &f);
	cr_assert_eq(f.nrows, 2);
	tally_close_interval(&t);
	cr_assert_eq(t.nforget, 0, "it just did I/O");

	step(&t, &sp, 2, false, &f);
	cr_assert_eq(f.nrows, 0);
	tally_close_interval(&t);
	cr_assert_eq(t.nforget, 0, "idle for one interval only");
	cr_assert_eq(t.procs.count, 2);

	step(&t, &sp, 3, false, &f);
	tally_close_interval(&t);
	cr_assert_eq(t.nforget, 1);
	cr_assert_eq(memcmp(&t.forget[0], &gone, sizeof(gone)), 0);
	cr_assert_eq(t.procs.count, 2, "kept until what its entry held is counted");

	/* The pid's new process read 30 bytes into the old entry before the
	 * loader deleted it, then 50 into a new one. */
	snap_row(&sp, 500, DEV_A, "app", (struct proc_dev_stats){ .bytes = { 1030 }, .ios = { 5 } });
	snap_forget(&sp, &t);
	snap_row(&sp, 500, DEV_A, "app", (struct proc_dev_stats){ .bytes = { 50 }, .ios = { 1 } });
	step(&t, &sp, 4, false, &f);
	cr_assert_eq(f.nrows, 1);
	row = frame_row(&f, 500, DEV_A);
	cr_assert_not_null(row);
	cr_assert_eq(row->delta[PMEM_READ_BYTES], 80);
	cr_assert_eq(row->delta[PMEM_READ_IOS], 2);
	cr_assert_eq(row->total[PMEM_READ_BYTES], 1080);
	cr_assert_eq(row->total[PMEM_READ_IOS], 6);
	expect_device(&f, NAME_A, (uint64_t[PMEM_NR_COUNTERS]){
		[PMEM_READ_BYTES] = 80, [PMEM_READ_IOS] = 2 });
	tally_close_interval(&t);
	cr_assert_eq(t.nforget, 0, "the forget list is per interval");
	snap_forget(&sp, &t);

	/* The new entry goes on from 50. */
	snap_row(&sp, 500, DEV_A, "app", (struct proc_dev_stats){ .bytes = { 60 }, .ios = { 2 } });
	step(&t, &sp, 5, false, &f);
	row = frame_row(&f, 500, DEV_A);
	cr_assert_not_null(row);
	cr_assert_eq(row->delta[PMEM_READ_BYTES], 10);
	cr_assert_eq(row->total[PMEM_READ_BYTES], 1090);
	tally_free(&t);
}

Test(rows, cumulative_forgets_the_entry_but_keeps_the_totals)
{
	struct tally t;
	struct tally_config config = base_config();
	struct snap sp;
	struct frame f;
	const struct proc_io *row;

	config.cumulative = true;
	start(&t, &config);
	snap_init(&sp);
	mark_dead(500);
	snap_row(&sp, 500, DEV_A, "app", (struct proc_dev_stats){ .bytes = { 1000 } });
	for (int n = 1; n <= 3; n++) {
		step(&t, &sp, n, false, &f);
		cr_assert_eq(f.nrows, 1, "cumulative rows show their totals");
		tally_close_interval(&t);
	}
	cr_assert_eq(t.nforget, 1);
	cr_assert_eq(t.procs.count, 1);

	snap_row(&sp, 500, DEV_A, "app", (struct proc_dev_stats){ .bytes = { 50 } });
	step(&t, &sp, 4, false, &f);
	row = frame_row(&f, 500, DEV_A);
	cr_assert_not_null(row);
	cr_assert_eq(row->delta[PMEM_READ_BYTES], 50);
	cr_assert_eq(row->total[PMEM_READ_BYTES], 1050);
	{
		uint64_t v[PMEM_NR_COUNTERS];

		pmem_values(find_device(f.devices, NAME_A), true, v);
		cr_assert_eq(v[PMEM_READ_BYTES], 1050);
	}
	tally_free(&t);
}

Test(rows, live_idle_process_is_never_forgotten)
{
	struct tally t;
	struct tally_config config = base_config();
	struct snap sp;
	struct frame f;

	start(&t, &config);
	snap_init(&sp);
	snap_row(&sp, 77, DEV_B, "db", (struct proc_dev_stats){ .bytes = { 0, 64 } });
	for (int n = 1; n <= 6; n++) {
		step(&t, &sp, n, false, &f);
		tally_close_interval(&t);
		cr_assert_eq(t.nforget, 0);
	}
	cr_assert_eq(t.procs.count, 1);
	tally_free(&t);
}

/* ======================================================================
 * 6. Rows shown, their order and names
 * ====================================================================== */

static char sysfs_root[64];	/* "/tmp/diskio-test-tally-XXXXXX" */

static void make_fake_sysfs(void)
{
	char path[PATH_MAX];
	FILE *file;

	snprintf(sysfs_root, sizeof(sysfs_root), "/tmp/diskio-test-tally-XXXXXX");
	cr_assert_not_null(mkdtemp(sysfs_root));
	snprintf(path, sizeof(path), "%s/dev", sysfs_root);
	cr_assert_eq(mkdir(path, 0755), 0);
	snprintf(path, sizeof(path), "%s/dev/block", sysfs_root);
	cr_assert_eq(mkdir(path, 0755), 0);
	snprintf(path, sizeof(path), "%s/dev/block/253:16", sysfs_root);
	cr_assert_eq(mkdir(path, 0755), 0);
	snprintf(path, sizeof(path), "%s/dev/block/253:16/uevent", sysfs_root);
	file = fopen(path, "w");
	cr_assert_not_null(file);
	fputs("MAJOR=253\nMINOR=16\nDEVNAME=vda\nDEVTYPE=disk\n", file);
	cr_assert_eq(fclose(file), 0);
}

static void remove_fake_sysfs(void)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/dev/block/253:16/uevent", sysfs_root);
	unlink(path);
	snprintf(path, sizeof(path), "%s/dev/block/253:16", sysfs_root);
	rmdir(path);
	snprintf(path, sizeof(path), "%s/dev/block", sysfs_root);
	rmdir(path);
	snprintf(path, sizeof(path), "%s/dev", sysfs_root);
	rmdir(path);
	rmdir(sysfs_root);
}

TestSuite(shown, .init = make_fake_sysfs, .fini = remove_fake_sysfs);

/* Five rows, their running totals k times a base: one with only latency (not
 * shown), one with only a flush. */
static void shown_rows(struct snap *sp, uint64_t k)
{
	snap_row(sp, 10, DEV_A, "zeta", (struct proc_dev_stats){
		.bytes = { 100 * k }, .ios = { 1 * k } });
	snap_row(sp, 20, DEV_A, "alpha", (struct proc_dev_stats){
		.bytes = { 0, 300 * k }, .ios = { 0, 1 * k } });
	snap_row(sp, 30, DEV_B, "mid", (struct proc_dev_stats){
		.bytes = { 0, 0, 200 * k }, .ios = { 0, 0, 1 * k } });
	snap_row(sp, 40, DEV_B, "lat", (struct proc_dev_stats){
		.latency_ns = 500 * k, .latency_ios = 1 * k });
	snap_row(sp, 50, DEV_A, "flush", (struct proc_dev_stats){ .flushes = 1 * k });
}

/*
 * The rows of the second step (the same five rows doing the same again), so
 * that order and names are checked apart from the frame->rows bug below
 * (frames_rows_point_at_the_sorted_rows): t->shown already has room then,
 * so the order is checked even where that bug is back.
 */
static void second_step(struct tally *t, struct snap *sp, struct frame *f)
{
	snap_init(sp);
	shown_rows(sp, 1);
	step(t, sp, 1, false, f);
	tally_close_interval(t);
	shown_rows(sp, 2);
	step(t, sp, 2, false, f);
	cr_assert_eq(f->rows, (struct proc_io *const *)t->shown);
}

static void expect_order(const struct frame *f, const uint32_t *tgids, size_t n)
{
	cr_assert_eq(f->nrows, n, "%zu rows shown, expected %zu", f->nrows, n);
	cr_assert_not_null(f->rows);
	for (size_t i = 0; i < n; i++)
		cr_expect_eq(f->rows[i]->key.tgid, tgids[i], "row %zu is pid %u, expected %u",
			     i, f->rows[i]->key.tgid, tgids[i]);
}

Test(shown, only_rows_with_values_sorted_by_bytes_with_names)
{
	static const uint32_t order[] = { 20, 30, 10, 50 };
	struct tally t;
	struct tally_config config = base_config();
	struct snap sp;
	struct frame f;
	const struct proc_io *row;

	config.sysfs_root = sysfs_root;
	start(&t, &config);
	second_step(&t, &sp, &f);
	expect_order(&f, order, 4);
	cr_assert_null(frame_row(&f, 40, DEV_B), "latency alone is nothing to show");
	cr_assert_eq(t.procs.count, 5);
	row = frame_row(&f, 20, DEV_A);
	cr_assert_eq(row->delta[PMEM_WRITE_BYTES], 300);
	cr_assert_eq(row->total[PMEM_WRITE_BYTES], 600);

	cr_assert_str_eq(name_of(&f, frame_row(&f, 10, DEV_A)->comm_name), "zeta");
	cr_assert_str_eq(name_of(&f, frame_row(&f, 20, DEV_A)->comm_name), "alpha");
	cr_assert_str_eq(name_of(&f, frame_row(&f, 30, DEV_B)->comm_name), "mid");
	cr_assert_str_eq(name_of(&f, frame_row(&f, 50, DEV_A)->comm_name), "flush");
	cr_assert_str_eq(name_of(&f, frame_row(&f, 10, DEV_A)->device_name), NAME_A);
	cr_assert_str_eq(name_of(&f, frame_row(&f, 30, DEV_B)->device_name), "vda");
	cr_assert_eq(frame_row(&f, 10, DEV_A)->device_name, frame_row(&f, 20, DEV_A)->device_name,
		     "one interned name per device");
	cr_assert_not_null(find_device(f.devices, "vda"));
	cr_assert_null(find_device(f.devices, NAME_B));
	cr_assert_eq(f.wall.tv_sec, wall.tv_sec);
	cr_assert_eq(f.wall.tv_nsec, wall.tv_nsec);
	cr_assert_eq(f.interval_s, 1.0);
	cr_assert_not(f.cumulative);
	tally_close_interval(&t);

	/* Only pid 10 moves: only it is shown. */
	snap_row(&sp, 10, DEV_A, "zeta", (struct proc_dev_stats){ .bytes = { 250 }, .ios = { 3 } });
	step(&t, &sp, 3, false, &f);
	expect_order(&f, (const uint32_t[]){ 10 }, 1);
	cr_assert_eq(f.rows[0]->delta[PMEM_READ_BYTES], 50);
	cr_assert_eq(f.rows[0]->delta[PMEM_READ_IOS], 1);
	tally_free(&t);
}

Test(shown, sorted_by_pid)
{
	static const uint32_t order[] = { 10, 20, 30, 50 };
	struct tally t;
	struct tally_config config = base_config();
	struct snap sp;
	struct frame f;

	config.sysfs_root = sysfs_root;
	config.sort = SORT_PID;
	start(&t, &config);
	second_step(&t, &sp, &f);
	expect_order(&f, order, 4);
	tally_free(&t);
}

Test(shown, sorted_by_comm)
{
	static const uint32_t order[] = { 20, 50, 30, 10 };	/* alpha flush mid zeta */
	struct tally t;
	struct tally_config config = base_config();
	struct snap sp;
	struct frame f;

	config.sysfs_root = sysfs_root;
	config.sort = SORT_COMM;
	start(&t, &config);
	second_step(&t, &sp, &f);
	expect_order(&f, order, 4);
	tally_free(&t);
}

Test(shown, sorted_by_write)
{
	static const uint32_t order[] = { 20, 10, 30, 50 };	/* 300, then ties by pid */
	struct tally t;
	struct tally_config config = base_config();
	struct snap sp;
	struct frame f;

	config.sysfs_root = sysfs_root;
	config.sort = SORT_WRITE;
	start(&t, &config);
	second_step(&t, &sp, &f);
	expect_order(&f, order, 4);
	tally_free(&t);
}

Test(shown, cumulative_shows_rows_with_totals)
{
	static const uint32_t order[] = { 20, 30, 10, 50 };
	struct tally t;
	struct tally_config config = base_config();
	struct snap sp;
	struct frame f;

	config.sysfs_root = sysfs_root;
	config.cumulative = true;
	start(&t, &config);
	second_step(&t, &sp, &f);
	tally_close_interval(&t);
	/* Nothing moves: cumulative rows are still shown, by their totals. */
	step(&t, &sp, 3, false, &f);
	cr_assert(f.cumulative);
	expect_order(&f, order, 4);
	cr_assert_eq(frame_row(&f, 20, DEV_A)->delta[PMEM_WRITE_BYTES], 0);
	cr_assert_eq(frame_row(&f, 20, DEV_A)->total[PMEM_WRITE_BYTES], 600);
	tally_free(&t);
}

/*
 * Regression test of a bug in tally.c's tally_frame() as first read for these
 * tests: "frame->rows = t->shown;" came before "frame->nrows =
 * sort_shown_rows(t);", which realloc()s t->shown when there are more rows
 * than it has room for.  So the first frame with rows got frame->rows == NULL
 * with nrows > 0 (a view walking the rows dereferences NULL: diskio's first
 * interval with any I/O), and a frame where the row count grew got the freed
 * old array (use after free).  It was fixed in the working tree (the
 * assignment now follows the call) while these tests were being written.
 */
Test(shown, frames_rows_point_at_the_sorted_rows)
{
	struct tally t;
	struct tally_config config = base_config();
	struct snap sp;
	struct frame f;

	start(&t, &config);
	snap_init(&sp);
	snap_row(&sp, 1, DEV_A, "one", (struct proc_dev_stats){ .bytes = { 10 } });
	step(&t, &sp, 1, false, &f);
	cr_assert_eq(f.nrows, 1);
	cr_expect_not_null(f.rows, "the first frame's rows are NULL");
	cr_expect_eq(f.rows, (struct proc_io *const *)t.shown);
	tally_close_interval(&t);

	/* Many more rows: t->shown grows (and moves) during the frame. */
	for (uint32_t pid = 2; pid <= 30; pid++)
		snap_row(&sp, pid, DEV_A, "many", (struct proc_dev_stats){ .bytes = { pid } });
	step(&t, &sp, 2, false, &f);
	cr_assert_eq(f.nrows, 29);
	cr_expect_eq(f.rows, (struct proc_io *const *)t.shown,
		     "the frame's rows are the array before it grew");
	tally_free(&t);
}

/* ======================================================================
 * 7. Crash events beyond what a frame lists
 * ====================================================================== */

Test(crash_events, beyond_the_list_are_counted_and_reported_lost)
{
	struct tally t;
	struct tally_config config = base_config();
	struct snap sp;
	struct frame f;
	struct summary sum;
	const int n = TALLY_CRASH_EVENTS + 4;

	start(&t, &config);
	snap_init(&sp);
	for (int i = 0; i < n; i++)
		crash(&t, 1000 + i, "boom", AT(0) + 1 + i);
	cr_assert_eq(t.crash.crashes, (uint64_t)n);
	snap_crashes(&sp, "boom", n);

	step(&t, &sp, 1, false, &f);
	cr_assert_eq(f.ncrash_events, TALLY_CRASH_EVENTS);
	for (int i = 0; i < TALLY_CRASH_EVENTS; i++) {
		cr_expect_eq(f.crash_events[i].tgid, (uint32_t)(1000 + i));
		cr_expect_eq(f.crash_events[i].time_ns, AT(0) + 1 + i);
		cr_expect_str_eq(f.crash_events[i].comm, "boom");
	}
	{
		uint64_t want[LOST_NR_CAUSES] = { [LOST_CRASH_EVENTS_FULL] = 4 };

		expect_lost(f.lost, want, "interval 1");
	}
	tally_close_interval(&t);

	/* Next interval: nothing listed, nothing lost, no crash recovered. */
	step(&t, &sp, 2, false, &f);
	cr_assert_eq(f.ncrash_events, 0);
	cr_assert_eq(f.lost[LOST_CRASH_EVENTS_FULL], 0);
	tally_close_interval(&t);
	cr_assert_eq(t.crash.crashes, (uint64_t)n);
	cr_assert_eq(process_crashes(&t.crash, "boom"), (uint64_t)n);

	crash(&t, 5000, "boom", AT(2) + 1);
	snap_crashes(&sp, "boom", n + 1);
	tally_summary(&t, &sp.s, AT(3), &wall, &sum);
	cr_assert_eq(sum.lost[LOST_CRASH_EVENTS_FULL], 4);
	cr_assert_eq(lost_total(sum.lost), 4);
	cr_assert_eq(sum.crash->crashes, (uint64_t)n + 1);
	tally_free(&t);
}

/* ======================================================================
 * Trace mode
 * ====================================================================== */

Test(trace, frames_count_events_and_show_no_rows)
{
	struct tally t;
	struct tally_config config = base_config();
	struct snap sp;
	struct frame f;
	struct summary sum;

	config.trace = true;
	start(&t, &config);
	snap_init(&sp);
	snap_row(&sp, 1, DEV_A, "x", (struct proc_dev_stats){ .bytes = { 100 } });
	for (int i = 0; i < 5; i++)
		tally_io_event(&t);
	step(&t, &sp, 1, false, &f);
	cr_assert_eq(f.io_events, 5);
	cr_assert_eq(f.nrows, 0);
	cr_assert_eq(f.devices->count, 0);
	tally_close_interval(&t);
	for (int i = 0; i < 3; i++)
		tally_io_event(&t);
	step(&t, &sp, 2, false, &f);
	cr_assert_eq(f.io_events, 3);
	tally_close_interval(&t);
	tally_io_event(&t);
	tally_summary(&t, &sp.s, AT(3), &wall, &sum);
	cr_assert(sum.has_io_events);
	cr_assert_eq(sum.io_events, 9);
	tally_free(&t);
}

/*
 * Trace views print every crash event as it arrives and a trace frame lists
 * none: no crash event is lost for want of room in the frame's list.
 */
Test(trace, crash_events_shown_live_are_not_lost)
{
	struct tally t;
	struct tally_config config = base_config();
	struct snap sp;
	struct frame f;
	struct summary sum;
	const int n = TALLY_CRASH_EVENTS + 4;

	config.trace = true;
	start(&t, &config);
	snap_init(&sp);
	for (int i = 0; i < n; i++)
		crash(&t, 1000 + i, "boom", AT(0) + 1 + i);
	snap_crashes(&sp, "boom", n);
	step(&t, &sp, 1, false, &f);
	cr_assert_eq(t.crash.crashes, (uint64_t)n);
	cr_assert_eq(f.ncrash_events, 0);
	cr_expect_eq(f.lost[LOST_CRASH_EVENTS_FULL], 0,
		     "%" PRIu64 " crash events reported lost in trace mode",
		     f.lost[LOST_CRASH_EVENTS_FULL]);
	tally_close_interval(&t);
	tally_summary(&t, &sp.s, AT(2), &wall, &sum);
	cr_expect_eq(sum.lost[LOST_CRASH_EVENTS_FULL], 0);
	tally_free(&t);
}

/* Tracked I/Os: the rows' histograms and sums are kept per operation in the
 * kernel (row_latency); a disk's are the sum of its rows'.  Each row has its
 * own percentiles, and none once a completion found no room in the
 * histograms' map (then it is in the row's own latency sums). */
Test(devices, tracked_latency_and_histograms_come_from_the_rows)
{
	struct tally t;
	struct tally_config config = base_config();
	struct latency_summary l;
	struct latency_hist h;
	struct snap sp;
	struct frame f;

	config.latency_from_rows = true;
	config.per_process_latency = true;
	start(&t, &config);
	snap_init(&sp);
	snap_row(&sp, 1, DEV_A, "a", (struct proc_dev_stats){ .bytes = { 4096 * 3 }, .ios = { 3 } });
	snap_row_latency(&sp, 1, DEV_A, "a", IO_READ, 5000, 3);
	snap_row(&sp, 2, DEV_A, "b", (struct proc_dev_stats){ .bytes = { 0, 4096 }, .ios = { 0, 1 } });
	snap_row_latency(&sp, 2, DEV_A, "b", IO_WRITE, 100000, 1);
	step(&t, &sp, 1, false, &f);
	expect_device(&f, NAME_A, (uint64_t[PMEM_NR_COUNTERS]){
		[PMEM_READ_BYTES] = 4096 * 3, [PMEM_WRITE_BYTES] = 4096, [PMEM_READ_IOS] = 3,
		[PMEM_WRITE_IOS] = 1, [PMEM_LATENCY_NS] = 115000, [PMEM_LATENCY_IOS] = 4 });
	cr_assert_eq(frame_row(&f, 1, DEV_A)->delta[PMEM_LATENCY_NS], 15000);
	cr_assert_eq(frame_row(&f, 1, DEV_A)->delta[PMEM_LATENCY_IOS], 3);
	pmem_latency_summary(find_device(f.devices, NAME_A), IO_READ, false, &l);
	cr_assert_eq(l.ios, 3);
	cr_assert_float_eq(l.avg_us, 5.0, 1e-9);
	pmem_latency_hist(find_device(f.devices, NAME_A), IO_WRITE, false, &h);
	cr_assert_eq(h.slots[latency_slot(100000)], 1);
	cr_assert(iostats_latency_summary(frame_row(&f, 1, DEV_A), false, &l));
	cr_assert_eq(l.ios, 3);
	cr_assert_float_eq(l.p50_us, (4096 + 4096 * 1.5 / 3) / 1000.0, 1e-9);
	cr_assert(iostats_latency_summary(frame_row(&f, 2, DEV_A), false, &l));
	cr_assert_float_eq(l.p99_us, (65536 + 65536 * 0.5) / 1000.0, 1e-9);
	tally_close_interval(&t);

	/* Row a completes two more reads: one in its histogram, one that found
	 * the map full and went to the row's own sums. */
	snap_row(&sp, 1, DEV_A, "a", (struct proc_dev_stats){
		.bytes = { 4096 * 5 }, .ios = { 5 }, .latency_ns = 7000, .latency_ios = 1 });
	snap_row_latency(&sp, 1, DEV_A, "a", IO_READ, 5000, 1);
	step(&t, &sp, 2, false, &f);
	cr_assert_eq(frame_row(&f, 1, DEV_A)->delta[PMEM_LATENCY_NS], 12000);
	cr_assert_eq(frame_row(&f, 1, DEV_A)->delta[PMEM_LATENCY_IOS], 2);
	cr_assert_not(iostats_latency_summary(frame_row(&f, 1, DEV_A), false, &l),
		      "a row with a completion outside its histogram has no percentiles");
	cr_assert_not(iostats_latency_summary(frame_row(&f, 1, DEV_A), true, &l));
	expect_device(&f, NAME_A, (uint64_t[PMEM_NR_COUNTERS]){
		[PMEM_READ_BYTES] = 4096 * 2, [PMEM_READ_IOS] = 2,
		[PMEM_LATENCY_NS] = 12000, [PMEM_LATENCY_IOS] = 2 });
	pmem_latency_summary(find_device(f.devices, NAME_A), IO_READ, false, &l);
	cr_assert_eq(l.ios, 1, "the disk's histogram holds what the rows' hold");
	tally_free(&t);
}

/* Tracked I/Os: a forgotten row's histogram entry, as it was deleted, is
 * counted like its counters (the pid used again, its I/O completed before
 * the deletion), and the row keeps its percentiles. */
Test(devices, a_forgotten_rows_last_completions_are_counted)
{
	struct tally t;
	struct tally_config config = base_config();
	struct latency_summary l;
	struct snap sp;
	struct frame f;
	const struct proc_io *row;

	config.latency_from_rows = true;
	config.per_process_latency = true;
	start(&t, &config);
	snap_init(&sp);
	mark_dead(800);
	snap_row(&sp, 800, DEV_A, "a", (struct proc_dev_stats){ .bytes = { 4096 }, .ios = { 1 } });
	snap_row_latency(&sp, 800, DEV_A, "a", IO_READ, 5000, 1);
	for (int n = 1; n <= 3; n++) {
		step(&t, &sp, n, false, &f);
		tally_close_interval(&t);
	}
	cr_assert_eq(t.nforget, 1);

	snap_row(&sp, 800, DEV_A, "a", (struct proc_dev_stats){ .bytes = { 8192 }, .ios = { 2 } });
	snap_row_latency(&sp, 800, DEV_A, "a", IO_READ, 5000, 1);
	snap_forget(&sp, &t);
	cr_assert_eq(sp.s.nfinal_row_latency, 1);
	step(&t, &sp, 4, false, &f);
	row = frame_row(&f, 800, DEV_A);
	cr_assert_not_null(row);
	cr_assert_eq(row->delta[PMEM_READ_BYTES], 4096);
	cr_assert_eq(row->delta[PMEM_LATENCY_NS], 5000);
	cr_assert_eq(row->delta[PMEM_LATENCY_IOS], 1);
	cr_assert(iostats_latency_summary(row, false, &l), "still complete");
	cr_assert_eq(l.ios, 1);
	expect_device(&f, NAME_A, (uint64_t[PMEM_NR_COUNTERS]){
		[PMEM_READ_BYTES] = 4096, [PMEM_READ_IOS] = 1,
		[PMEM_LATENCY_NS] = 5000, [PMEM_LATENCY_IOS] = 1 });
	tally_close_interval(&t);
	snap_forget(&sp, &t);

	/* A new histogram entry of the key counts from zero. */
	snap_row(&sp, 800, DEV_A, "a", (struct proc_dev_stats){ .bytes = { 4096 }, .ios = { 1 } });
	snap_row_latency(&sp, 800, DEV_A, "a", IO_READ, 9000, 1);
	step(&t, &sp, 5, false, &f);
	row = frame_row(&f, 800, DEV_A);
	cr_assert_not_null(row);
	cr_assert_eq(row->delta[PMEM_LATENCY_NS], 9000);
	cr_assert_eq(row->delta[PMEM_LATENCY_IOS], 1);
	cr_assert(iostats_latency_summary(row, true, &l));
	cr_assert_eq(l.ios, 3);
	tally_free(&t);
}

/* The kernel's /proc/diskstats, as the tally reads it at its start and at
 * each step. */
static void write_diskstats(const char *path, uint64_t reads, uint64_t read_ms,
			    uint64_t busy_ms)
{
	FILE *file = fopen(path, "w");

	cr_assert_not_null(file);
	fprintf(file, " 253      16 vda %" PRIu64 " 0 %" PRIu64 " %" PRIu64
		" 0 0 0 0 0 %" PRIu64 " %" PRIu64 " 0 0 0 0 0 0\n"
		"   8       0 sda 1 0 8 1 0 0 0 0 0 1 1 0 0 0 0 0 0\n",
		reads, reads * 8, read_ms, busy_ms, read_ms);
	cr_assert_eq(fclose(file), 0);
}

/* Each device's iostat -x figures over the interval and since the start,
 * in the frame's devices and the summary's: 100 reads of 4 KiB taking 50
 * ms in the first second, 300 taking 450 ms in the second. */
Test(shown, devices_get_iostat_figures_from_diskstats)
{
	struct tally t;
	struct tally_config config = base_config();
	char path[PATH_MAX];
	struct snap sp;
	struct frame f;
	struct summary summary;
	const struct pmem_device *vda;

	snprintf(path, sizeof(path), "%s/diskstats", sysfs_root);
	write_diskstats(path, 1000, 2000, 7000);
	config.sysfs_root = sysfs_root;
	config.diskstats_path = path;
	start(&t, &config);
	snap_init(&sp);
	snap_row(&sp, 10, DEV_B, "reader", (struct proc_dev_stats){
		.bytes = { [IO_READ] = 100 * 4096 }, .ios = { [IO_READ] = 100 } });
	write_diskstats(path, 1100, 2050, 7500);
	step(&t, &sp, 1, false, &f);
	vda = find_device(f.devices, "vda");
	cr_assert(vda && vda->has_iostat);
	cr_assert_float_eq(vda->iostat[0].r_s, 100.0, 1e-6);
	cr_assert_float_eq(vda->iostat[0].rkB_s, 400.0, 1e-6);
	cr_assert_float_eq(vda->iostat[0].r_await, 0.5, 1e-6);
	cr_assert_float_eq(vda->iostat[0].rareq_sz, 4.0, 1e-6);
	cr_assert_float_eq(vda->iostat[0].util, 50.0, 1e-6);
	cr_assert_float_eq(vda->iostat[0].aqu_sz, 0.05, 1e-6);
	tally_close_interval(&t);

	snap_row(&sp, 10, DEV_B, "reader", (struct proc_dev_stats){
		.bytes = { [IO_READ] = 400 * 4096 }, .ios = { [IO_READ] = 400 } });
	write_diskstats(path, 1400, 2500, 8500);
	step(&t, &sp, 2, false, &f);
	vda = find_device(f.devices, "vda");
	cr_assert(vda && vda->has_iostat);
	cr_assert_float_eq(vda->iostat[0].r_s, 300.0, 1e-6);
	cr_assert_float_eq(vda->iostat[0].r_await, 1.5, 1e-6);
	cr_assert_float_eq(vda->iostat[1].r_s, 200.0, 1e-6);
	cr_assert_float_eq(vda->iostat[1].r_await, 1.25, 1e-6);
	cr_assert_float_eq(vda->iostat[1].util, 75.0, 1e-6);
	tally_close_interval(&t);

	write_diskstats(path, 1800, 2900, 9500);
	tally_summary(&t, &sp.s, AT(4), &wall, &summary);
	vda = find_device(summary.devices, "vda");
	cr_assert(vda && vda->has_iostat);
	cr_assert_float_eq(vda->iostat[1].r_s, 200.0, 1e-6);
	unlink(path);
	tally_free(&t);
}

/* Without the file the devices have no figures, and one warning says why. */
Test(shown, no_diskstats_no_iostat_figures)
{
	struct tally t;
	struct tally_config config = base_config();
	struct snap sp;
	struct frame f;
	char *text = NULL;
	size_t len = 0;
	const struct pmem_device *vda;

	config.sysfs_root = sysfs_root;
	config.diskstats_path = "/nonexistent/diskstats";
	config.warn = open_memstream(&text, &len);
	start(&t, &config);
	snap_init(&sp);
	snap_row(&sp, 10, DEV_B, "reader", (struct proc_dev_stats){
		.bytes = { [IO_READ] = 4096 }, .ios = { [IO_READ] = 1 } });
	step(&t, &sp, 1, false, &f);
	vda = find_device(f.devices, "vda");
	cr_assert(vda && !vda->has_iostat);
	fclose(config.warn);
	cr_assert(strstr(text, "diskio: warning: cannot read /nonexistent/diskstats"), "%s", text);
	cr_assert_eq(strchr(text, '\n'), text + len - 1, "one line: %s", text);
	free(text);
	tally_free(&t);
}

/* ======================================================================
 * 9. Stacked devices: rows that serve a device above (abi.h's marks)
 * ====================================================================== */

static char stacked_root[64];	/* "/tmp/diskio-test-stacked-XXXXXX": sys/ and proc/ */

static void put_file(const char *rel, const char *text)
{
	char path[PATH_MAX];
	FILE *file;

	snprintf(path, sizeof(path), "%s/%s", stacked_root, rel);
	file = fopen(path, "w");
	cr_assert_not_null(file, "%s", path);
	fputs(text, file);
	cr_assert_eq(fclose(file), 0);
}

static void put_dir(const char *rel)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/%s", stacked_root, rel);
	cr_assert_eq(mkdir(path, 0755), 0, "%s", path);
}

/* sys/block/loop7 exists; proc/777/comm is a worker doing loop7's work. */
static void make_stacked_tree(void)
{
	snprintf(stacked_root, sizeof(stacked_root), "/tmp/diskio-test-stacked-XXXXXX");
	cr_assert_not_null(mkdtemp(stacked_root));
	put_dir("sys");
	put_dir("sys/block");
	put_dir("sys/block/loop7");
	put_dir("proc");
	put_dir("proc/777");
	put_file("proc/777/comm", "kworker/u8:3+loop7\n");
}

static void remove_stacked_tree(void)
{
	static const char *const paths[] = { "proc/777/comm", "proc/777", "proc",
					     "sys/block/loop7", "sys/block", "sys", "" };
	char path[PATH_MAX];

	for (size_t i = 0; i < sizeof(paths) / sizeof(paths[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", stacked_root, paths[i]);
		if (remove(path))
			cr_log_info("remove %s: %s", path, strerror(errno));
	}
}

TestSuite(stacked, .init = make_stacked_tree, .fini = remove_stacked_tree);

static void snap_key_row(struct snap *sp, struct proc_dev_key key, struct proc_dev_stats stats)
{
	cr_assert_lt(sp->s.nrows, SNAP_ROWS);
	sp->rows[sp->s.nrows].key = key;
	sp->rows[sp->s.nrows].stats = stats;
	sp->s.nrows++;
}

Test(stacked, io_sent_below_counts_on_its_disk_not_in_the_total)
{
	char sys[PATH_MAX], proc[PATH_MAX];
	struct tally t;
	struct tally_config config = base_config();
	struct proc_dev_key stacked = make_key(0, DEV_A, ""), worker = make_key(777, DEV_A, "loop7");
	struct snap sp;
	struct frame f;
	const struct proc_io *row;

	snprintf(sys, sizeof(sys), "%s/sys", stacked_root);
	snprintf(proc, sizeof(proc), "%s/proc", stacked_root);
	config.sysfs_root = sys;
	config.proc_root = proc;
	start(&t, &config);
	snap_init(&sp);
	/* dd wrote 8192 to B (253:16, "dm"); dm sent it to A; loop7's worker
	 * wrote 4096 on A for loop7, which dd2 wrote to (not shown here). */
	snap_row(&sp, 100, DEV_B, "dd", (struct proc_dev_stats){ .bytes = { 0, 8192 },
								 .ios = { 0, 2 } });
	stacked.cgroup = DEV_B;
	stacked.comm[TASK_COMM_LEN - 1] = KEY_MARK_STACKED;
	snap_key_row(&sp, stacked, (struct proc_dev_stats){ .bytes = { 0, 8192 }, .ios = { 0, 1 } });
	worker.comm[TASK_COMM_LEN - 1] = KEY_MARK_WORKER;
	snap_key_row(&sp, worker, (struct proc_dev_stats){ .bytes = { 0, 4096 }, .ios = { 0, 1 } });
	step(&t, &sp, 1, false, &f);

	expect_device(&f, NAME_A, (uint64_t[PMEM_NR_COUNTERS]){
		[PMEM_WRITE_BYTES] = 8192 + 4096, [PMEM_WRITE_IOS] = 2 });
	expect_device(&f, NAME_B, (uint64_t[PMEM_NR_COUNTERS]){
		[PMEM_WRITE_BYTES] = 8192, [PMEM_WRITE_IOS] = 2 });
	expect_total(&f, (uint64_t[PMEM_NR_COUNTERS]){
		[PMEM_WRITE_BYTES] = 8192, [PMEM_WRITE_IOS] = 2 });

	row = frame_row(&f, 0, DEV_A);
	cr_assert_not_null(row);
	cr_expect_str_eq(name_of(&f, row->comm_name), NAME_B);
	cr_assert_neq(row->serves_name, 0);
	cr_expect_str_eq(name_of(&f, row->serves_name), NAME_B);
	row = frame_row(&f, 777, DEV_A);
	cr_assert_not_null(row);
	cr_expect_str_eq(name_of(&f, row->comm_name), "kworker/u8:3-loop7");
	cr_assert_neq(row->serves_name, 0);
	cr_expect_str_eq(name_of(&f, row->serves_name), "loop7");
	row = frame_row(&f, 100, DEV_B);
	cr_assert_not_null(row);
	cr_expect_eq(row->serves_name, 0, "dd's own row serves nothing");
	tally_free(&t);
}

/* A worker doing writeback ("flush-253:16") serves no device: its row is
 * counted in the total, named as ps names it. */
Test(stacked, a_flusher_is_named_by_its_work_and_counted)
{
	char proc[PATH_MAX];
	struct tally t;
	struct tally_config config = base_config();
	struct proc_dev_key worker = make_key(777, DEV_A, "flush-253:16");
	struct snap sp;
	struct frame f;
	const struct proc_io *row;

	snprintf(proc, sizeof(proc), "%s/proc", stacked_root);
	config.proc_root = proc;
	start(&t, &config);
	snap_init(&sp);
	worker.comm[TASK_COMM_LEN - 1] = KEY_MARK_WORKER;
	snap_key_row(&sp, worker, (struct proc_dev_stats){ .bytes = { 0, 4096 }, .ios = { 0, 1 } });
	step(&t, &sp, 1, false, &f);
	expect_total(&f, (uint64_t[PMEM_NR_COUNTERS]){
		[PMEM_WRITE_BYTES] = 4096, [PMEM_WRITE_IOS] = 1 });
	row = frame_row(&f, 777, DEV_A);
	cr_assert_not_null(row);
	cr_expect_str_eq(name_of(&f, row->comm_name), "kworker/u8:3-flush-253:16");
	cr_expect_eq(row->serves_name, 0);
	tally_free(&t);
}

Test(stacked, worker_names_as_ps_shows_them)
{
	char out[64];

	worker_row_name("kworker/u8:1", "loop0", out, sizeof(out));
	cr_expect_str_eq(out, "kworker/u8:1-loop0");
	worker_row_name("kworker/u8:1+flush-254:0", "loop0", out, sizeof(out));
	cr_expect_str_eq(out, "kworker/u8:1-loop0", "the work it does now is not the row's");
	worker_row_name("kworker/0:1H-kblockd", "kblockd", out, sizeof(out));
	cr_expect_str_eq(out, "kworker/0:1H-kblockd");
	worker_row_name(NULL, "loop0", out, sizeof(out));
	cr_expect_str_eq(out, "kworker-loop0", "a worker gone: no name of its own");
	worker_row_name("kworker/R-loop0", "loop0", out, sizeof(out));
	cr_expect_str_eq(out, "kworker-loop0", "no id to cut after: not guessed");
}

/* ---- issue 33: whose a row is (USER, PRIO, COMMAND) and the idle processes ---- */

static char owners_root[64];

static void owners_put(const char *rel, const char *text, size_t len)
{
	char path[PATH_MAX];
	FILE *file;

	snprintf(path, sizeof(path), "%s/%s", owners_root, rel);
	file = fopen(path, "w");
	cr_assert_not_null(file, "%s", path);
	cr_assert_eq(fwrite(text, 1, len, file), len);
	cr_assert_eq(fclose(file), 0);
}

static void owners_dir(const char *rel)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/%s", owners_root, rel);
	cr_assert_eq(mkdir(path, 0755), 0, "%s", path);
}

/* proc/PID with a stat line (its start in clock ticks), status (euid),
 * cmdline and cgroup. */
static void owners_process(uint32_t pid, const char *name, uint64_t start_ticks, uint32_t uid,
			   const char *args, size_t args_len, const char *cgroup)
{
	char rel[64], text[1024];
	int n;

	snprintf(rel, sizeof(rel), "proc/%" PRIu32, pid);
	owners_dir(rel);
	n = snprintf(text, sizeof(text), "%" PRIu32 " (%s) S 1 1 1 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 %"
		     PRIu64 " 0 0 18446744073709551615", pid, name, start_ticks);
	for (int field = 26; field <= 41; field++)
		n += snprintf(text + n, sizeof(text) - n, " 0");
	snprintf(rel, sizeof(rel), "proc/%" PRIu32 "/stat", pid);
	owners_put(rel, text, strlen(text));
	snprintf(text, sizeof(text), "Name:\t%s\nUid:\t%" PRIu32 "\t%" PRIu32 "\t0\t0\n", name, uid,
		 uid);
	snprintf(rel, sizeof(rel), "proc/%" PRIu32 "/status", pid);
	owners_put(rel, text, strlen(text));
	snprintf(rel, sizeof(rel), "proc/%" PRIu32 "/cmdline", pid);
	owners_put(rel, args, args_len);
	snprintf(text, sizeof(text), "0::%s\n", cgroup);
	snprintf(rel, sizeof(rel), "proc/%" PRIu32 "/cgroup", pid);
	owners_put(rel, text, strlen(text));
}

static int remove_owners_entry(const char *path, const struct stat *st, int flag,
			       struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

/* proc/300 is `dd if=/dev/zero of=/x` started at tick 5000 (50 s after
 * boot), uid 1000; proc/301 a sleeper; etc/passwd names root and alice. */
static void make_owners_tree(void)
{
	static const char dd_args[] = "dd\0if=/dev/zero\0of=/x\0";
	static const char sleep_args[] = "sleep\0" "1000\0";
	static const char passwd[] = "root:x:0:0::/root:/bin/sh\nalice:x:1000:1000::/:/bin/sh\n";

	snprintf(owners_root, sizeof(owners_root), "/tmp/diskio-test-owners-XXXXXX");
	cr_assert_not_null(mkdtemp(owners_root));
	owners_dir("proc");
	owners_dir("etc");
	owners_put("etc/passwd", passwd, sizeof(passwd) - 1);
	owners_process(300, "dd", 5000, 1000, dd_args, sizeof(dd_args) - 1, "/user.slice");
	owners_process(301, "sleep", 6000, 0, sleep_args, sizeof(sleep_args) - 1,
		       "/system.slice/backup.service");
}

static void remove_owners_tree(void)
{
	nftw(owners_root, remove_owners_entry, 16, FTW_DEPTH | FTW_PHYS);
}

TestSuite(owners, .init = make_owners_tree, .fini = remove_owners_tree);

/* The kernel's exec map, as the loader would answer for it. */
static struct exec_cmdline kept_cmdline;
static uint32_t kept_tgid;

static bool fake_exec_cmdline(uint32_t tgid, struct exec_cmdline *out, void *arg)
{
	(void)arg;
	if (tgid != kept_tgid)
		return false;
	*out = kept_cmdline;
	return true;
}

static void keep_exec(uint32_t tgid, uint64_t start_ns, const char *args, size_t len)
{
	kept_tgid = tgid;
	memset(&kept_cmdline, 0, sizeof(kept_cmdline));
	kept_cmdline.start_ns = start_ns;
	kept_cmdline.len = (uint32_t)len;
	kept_cmdline.kept = len < EXEC_CMDLINE_BYTES ? (uint32_t)len : EXEC_CMDLINE_BYTES;
	memcpy(kept_cmdline.args, args, kept_cmdline.kept);
}

static struct tally_config owners_config(char *proc, char *passwd)
{
	struct tally_config config = base_config();

	snprintf(proc, PATH_MAX, "%s/proc", owners_root);
	snprintf(passwd, PATH_MAX, "%s/etc/passwd", owners_root);
	config.proc_root = proc;
	config.passwd_path = passwd;
	config.clock_ticks = 100;
	config.exec_cmdline = fake_exec_cmdline;
	return config;
}

/* A row of tgid whose kernel entry says it was made for owner. */
static void snap_owned(struct snap *sp, uint32_t tgid, const char *comm, uint64_t bytes,
		       struct row_owner owner)
{
	snap_row(sp, tgid, DEV_A, comm, (struct proc_dev_stats){ .bytes = { 0, bytes } });
	for (size_t i = 0; i < sp->s.nrows; i++)
		if (sp->rows[i].key.tgid == tgid)
			sp->rows[i].owner = owner;
}

#define STARTED(ticks) ((uint64_t)(ticks) * 10000000ULL)	/* ns, at 100 ticks a second */

Test(owners, a_rows_user_and_command_line_from_proc)
{
	char proc[PATH_MAX], passwd[PATH_MAX];
	struct tally_config config = owners_config(proc, passwd);
	struct tally t;
	struct snap sp;
	struct frame f;
	const struct proc_io *row;

	start(&t, &config);
	snap_init(&sp);
	snap_owned(&sp, 300, "dd", 4096, (struct row_owner){
		.start_ns = STARTED(5000) + 9999999, .uid = 1000, .ioprio = 3 << 13,
		.flags = ROW_OWNER_KNOWN });
	step(&t, &sp, 1, false, &f);
	row = frame_row(&f, 300, DEV_A);
	cr_assert_not_null(row);
	cr_expect_str_eq(name_of(&f, row->user_name), "alice");
	cr_expect_eq(row->owner.uid, 1000);
	cr_expect_eq(row->owner.ioprio, 3 << 13);
	cr_assert_not_null(row->cmdline);
	cr_expect_str_eq(row->cmdline, "dd if=/dev/zero of=/x", "its start's tick is /proc's");
	tally_free(&t);
}

Test(owners, a_process_gone_keeps_its_command_line_from_exec)
{
	static const char args[] = "dd\0bs=1M\0count=3\0";
	char proc[PATH_MAX], passwd[PATH_MAX];
	struct tally_config config = owners_config(proc, passwd);
	struct tally t;
	struct snap sp;
	struct frame f;
	const struct proc_io *row;

	start(&t, &config);
	snap_init(&sp);
	/* 310 is gone from /proc; the kernel kept its command line at exec */
	keep_exec(310, STARTED(7000), args, sizeof(args) - 1);
	snap_owned(&sp, 310, "dd", 4096, (struct row_owner){
		.start_ns = STARTED(7000), .uid = 0, .flags = ROW_OWNER_KNOWN });
	/* 300 is in /proc, but started later: its pid was taken; the kernel's
	 * copy is of another process too: its name */
	snap_owned(&sp, 300, "dd", 8192, (struct row_owner){
		.start_ns = STARTED(4000), .uid = 4242, .flags = ROW_OWNER_KNOWN });
	step(&t, &sp, 1, false, &f);
	row = frame_row(&f, 310, DEV_A);
	cr_assert_not_null(row);
	cr_expect_str_eq(row->cmdline, "dd bs=1M count=3");
	cr_expect_str_eq(name_of(&f, row->user_name), "root");
	row = frame_row(&f, 300, DEV_A);
	cr_expect_str_eq(row->cmdline, "[dd]", "neither /proc's nor the exec's: its name");
	cr_expect_str_eq(name_of(&f, row->user_name), "4242", "a uid of no name: its number");
	/* the exec's copy of another start is not taken either */
	tally_free(&t);
	start(&t, &config);
	snap_init(&sp);
	keep_exec(310, STARTED(7001), args, sizeof(args) - 1);
	snap_owned(&sp, 310, "dd", 4096, (struct row_owner){
		.start_ns = STARTED(7000), .flags = ROW_OWNER_KNOWN });
	step(&t, &sp, 1, false, &f);
	cr_expect_str_eq(frame_row(&f, 310, DEV_A)->cmdline, "[dd]");
	tally_free(&t);
}

Test(owners, kernel_threads_in_brackets_rows_of_no_process_without)
{
	char proc[PATH_MAX], passwd[PATH_MAX];
	struct tally_config config = owners_config(proc, passwd);
	struct proc_dev_key worker = make_key(777, DEV_A, "flush-253:16");
	struct proc_dev_key stacked = make_key(0, DEV_A, "");
	struct tally t;
	struct snap sp;
	struct frame f;
	const struct proc_io *row;

	start(&t, &config);
	snap_init(&sp);
	worker.comm[TASK_COMM_LEN - 1] = KEY_MARK_WORKER;
	snap_key_row(&sp, worker, (struct proc_dev_stats){ .bytes = { 0, 4096 } });
	sp.rows[0].owner = (struct row_owner){ .flags = ROW_OWNER_KNOWN | ROW_OWNER_KTHREAD };
	stacked.cgroup = DEV_B;
	stacked.comm[TASK_COMM_LEN - 1] = KEY_MARK_STACKED;
	snap_key_row(&sp, stacked, (struct proc_dev_stats){ .bytes = { 0, 4096 } });
	snap_owned(&sp, 20, "kswapd0", 4096, (struct row_owner){
		.flags = ROW_OWNER_KNOWN | ROW_OWNER_KTHREAD });
	step(&t, &sp, 1, false, &f);
	row = frame_row(&f, 777, DEV_A);
	cr_expect_str_eq(row->cmdline, "[kworker-flush-253:16]", "as ps shows a worker");
	cr_expect_str_eq(name_of(&f, row->user_name), "root");
	cr_expect_str_eq(frame_row(&f, 20, DEV_A)->cmdline, "[kswapd0]");
	row = frame_row(&f, 0, DEV_A);
	cr_expect_null(row->cmdline, "what a stacked device sent below is no process's");
	cr_expect_eq(row->user_name, 0);
	tally_free(&t);
}

Test(owners, the_owner_as_first_noted_and_users_renamed)
{
	static const char passwd_text[] = "root:x:0:0::/:\nbob:x:1000:1000::/:\n";
	char proc[PATH_MAX], passwd[PATH_MAX];
	struct tally_config config = owners_config(proc, passwd);
	struct tally t;
	struct snap sp;
	struct frame f;
	const struct proc_io *row;

	start(&t, &config);
	snap_init(&sp);
	snap_owned(&sp, 300, "dd", 4096, (struct row_owner){
		.start_ns = STARTED(5000), .uid = 1000, .flags = ROW_OWNER_KNOWN });
	step(&t, &sp, 1, false, &f);
	row = frame_row(&f, 300, DEV_A);
	cr_expect_str_eq(name_of(&f, row->user_name), "alice");
	/* made again where nothing is known of it (a completion): it stays */
	snap_owned(&sp, 300, "dd", 8192, (struct row_owner){ 0 });
	owners_put("etc/passwd.new", passwd_text, sizeof(passwd_text) - 1);
	{
		char from[PATH_MAX], to[PATH_MAX];

		snprintf(from, sizeof(from), "%s/etc/passwd.new", owners_root);
		snprintf(to, sizeof(to), "%s/etc/passwd", owners_root);
		cr_assert_eq(rename(from, to), 0);
	}
	step(&t, &sp, 2, false, &f);
	row = frame_row(&f, 300, DEV_A);
	cr_expect_eq(row->owner.uid, 1000);
	cr_expect_str_eq(name_of(&f, row->user_name), "bob", "passwd changed: named anew");
	cr_expect_str_eq(row->cmdline, "dd if=/dev/zero of=/x");
	tally_free(&t);
}

/* The idle processes the top view's o asks for. */
static const struct proc_io *idle_row(const struct frame *f, uint32_t pid)
{
	for (size_t i = 0; i < f->nidle_rows; i++)
		if (f->idle_rows[i]->key.tgid == pid)
			return f->idle_rows[i];
	return NULL;
}

Test(owners, o_lists_the_processes_without_a_row)
{
	char proc[PATH_MAX], passwd[PATH_MAX];
	struct tally_config config = owners_config(proc, passwd);
	struct tally t;
	struct snap sp;
	struct frame f;
	const struct proc_io *row;

	config.cgroup_mount = "/nonexistent/diskio-cgroup";
	start(&t, &config);
	snap_init(&sp);
	snap_owned(&sp, 300, "dd", 4096, (struct row_owner){
		.start_ns = STARTED(5000), .uid = 1000, .flags = ROW_OWNER_KNOWN });
	step(&t, &sp, 1, false, &f);
	cr_assert_eq(f.nidle_rows, 0, "only the rows, at first");
	tally_set_all_processes(&t, true);
	snap_owned(&sp, 300, "dd", 8192, (struct row_owner){
		.start_ns = STARTED(5000), .uid = 1000, .flags = ROW_OWNER_KNOWN });
	step(&t, &sp, 2, false, &f);
	cr_assert_eq(f.nidle_rows, 1, "300 has a row: only 301 is idle");
	row = idle_row(&f, 301);
	cr_assert_not_null(row);
	cr_expect(row->idle);
	cr_expect_str_eq(name_of(&f, row->comm_name), "sleep");
	cr_expect_str_eq(name_of(&f, row->device_name), "-");
	cr_expect_str_eq(name_of(&f, row->user_name), "root");
	cr_expect_str_eq(row->cmdline, "sleep 1000");
	cr_expect_str_eq(name_of(&f, row->cgroup_name), "/system.slice/backup.service");
	for (int c = 0; c < PMEM_NR_COUNTERS; c++)
		cr_expect_eq(row->delta[c], 0);
	/* 300's row is idle in this interval: it is not shown, so it is listed */
	step(&t, &sp, 3, false, &f);
	cr_expect_not_null(idle_row(&f, 300));
	tally_set_all_processes(&t, false);
	step(&t, &sp, 4, false, &f);
	cr_expect_eq(f.nidle_rows, 0);
	tally_free(&t);
}

Test(owners, the_process_filters_hold_for_idle_processes)
{
	static const uint32_t only_301[] = { 301 };
	char proc[PATH_MAX], passwd[PATH_MAX];
	struct tally_config config = owners_config(proc, passwd);
	struct tally t;
	struct snap sp;
	struct frame f;

	config.all_processes = true;
	snap_init(&sp);
	/* -p 301 */
	config.filter_pids = only_301;
	config.nr_filter_pids = 1;
	start(&t, &config);
	step(&t, &sp, 1, false, &f);
	cr_expect_eq(f.nidle_rows, 1);
	cr_expect_not_null(idle_row(&f, 301));
	tally_free(&t);
	/* -c dd */
	config.nr_filter_pids = 0;
	config.filter_comm = "dd";
	start(&t, &config);
	step(&t, &sp, 1, false, &f);
	cr_expect_eq(f.nidle_rows, 1);
	cr_expect_not_null(idle_row(&f, 300));
	tally_free(&t);
	/* -D: an idle process is on no disk */
	config.filter_comm = NULL;
	config.filter_devices = true;
	start(&t, &config);
	step(&t, &sp, 1, false, &f);
	cr_expect_eq(f.nidle_rows, 0);
	tally_free(&t);
	/* --by cgroup: rows are no processes */
	config.filter_devices = false;
	config.by_cgroup = true;
	start(&t, &config);
	step(&t, &sp, 1, false, &f);
	cr_expect_eq(f.nidle_rows, 0);
	tally_free(&t);
}

/* --cgroup: a group or any below it, by path, as the kernel's ancestor test. */
Test(owners, the_cgroup_filter_holds_for_idle_processes)
{
	char proc[PATH_MAX], passwd[PATH_MAX], mount[128], group[PATH_MAX];
	struct tally_config config = owners_config(proc, passwd);
	struct stat st;
	struct tally t;
	struct snap sp;
	struct frame f;

	owners_dir("cgroup");
	owners_dir("cgroup/system.slice");
	owners_dir("cgroup/system.slice/backup.service");
	owners_dir("cgroup/system.slice/backup");
	owners_dir("cgroup/user.slice");
	snprintf(mount, sizeof(mount), "%s/cgroup", owners_root);
	snprintf(group, sizeof(group), "%s/system.slice", mount);
	cr_assert_eq(stat(group, &st), 0);
	config.cgroup_mount = mount;
	config.all_processes = true;
	config.filter_cgroups[0] = st.st_ino;
	config.nr_filter_cgroups = 1;
	snap_init(&sp);
	start(&t, &config);
	step(&t, &sp, 1, false, &f);
	cr_expect_eq(f.nidle_rows, 1, "301 is below /system.slice, 300 is not");
	cr_expect_not_null(idle_row(&f, 301));
	tally_free(&t);
	/* /system.slice/backup is not above /system.slice/backup.service */
	snprintf(group, sizeof(group), "%s/system.slice/backup", mount);
	cr_assert_eq(stat(group, &st), 0);
	config.filter_cgroups[0] = st.st_ino;
	start(&t, &config);
	step(&t, &sp, 1, false, &f);
	cr_expect_eq(f.nidle_rows, 0);
	tally_free(&t);
}

/* issue 45: an I/O counted in one interval may fail in the next (a
 * timeout completes 30 s late): its row is in that interval's frame with
 * its error alone, so that the rows' errors add up to the disk's. */
Test(errors, a_row_whose_only_news_is_a_failed_io_is_shown)
{
	struct tally t;
	struct tally_config config = base_config();
	struct frame f;
	struct snap sp;
	const struct proc_io *row;

	start(&t, &config);
	snap_init(&sp);
	snap_row(&sp, 42, 8 << 20, "writer", (struct proc_dev_stats){ .bytes = { 0, 4096 },
								      .ios = { 0, 1 } });
	step(&t, &sp, 1, false, &f);
	cr_assert_not_null(frame_row(&f, 42, 8 << 20));
	tally_close_interval(&t);
	sp.rows[0].errors.errors[IO_ERR_ETIMEDOUT] = 1;
	step(&t, &sp, 2, false, &f);
	row = frame_row(&f, 42, 8 << 20);
	cr_assert_not_null(row, "the row of the failed I/O is not in the frame");
	cr_assert_eq(row->delta[PMEM_ERRORS + IO_ERR_ETIMEDOUT], 1);
	cr_assert_eq(row->delta[PMEM_WRITE_IOS], 0);
	tally_close_interval(&t);
	tally_free(&t);
}

/* ---- issue 45: the rows' cgroups' I/O pressure ---- */

static char pressure_root[64];

static void pressure_file(const char *rel, uint64_t some_us, uint64_t full_us)
{
	char path[PATH_MAX];
	FILE *file;

	snprintf(path, sizeof(path), "%s%s/io.pressure", pressure_root, rel);
	file = fopen(path, "w");
	cr_assert_not_null(file, "%s", path);
	fprintf(file, "some avg10=0.00 avg60=0.00 avg300=0.00 total=%" PRIu64 "\n"
		"full avg10=0.00 avg60=0.00 avg300=0.00 total=%" PRIu64 "\n", some_us, full_us);
	cr_assert_eq(fclose(file), 0);
}

static void pressure_tree(void)
{
	snprintf(pressure_root, sizeof(pressure_root), "/tmp/diskio-tally-cgroup-XXXXXX");
	cr_assert_not_null(mkdtemp(pressure_root));
}

static void pressure_tree_remove(void)
{
	nftw(pressure_root, remove_owners_entry, 16, FTW_DEPTH | FTW_PHYS);
}

/* A row of pid 42 in group /app on DEV_A that wrote bytes so far. */
static void app_row(struct snap *sp, uint64_t cgroup, uint64_t bytes)
{
	sp->s.nrows = 1;
	sp->rows[0].key = make_key(42, DEV_A, "dd");
	sp->rows[0].key.cgroup = cgroup;
	sp->rows[0].stats = (struct proc_dev_stats){ .bytes = { 0, bytes }, .ios = { 0, 1 } };
}

Test(cgroup_pressure, a_rows_group_is_unknown_in_its_first_interval_then_its_share,
     .init = pressure_tree, .fini = pressure_tree_remove)
{
	struct tally_config config = base_config();
	char group[PATH_MAX];
	const struct proc_io *row;
	struct stat st;
	struct tally t;
	struct snap sp;
	struct frame f;

	snprintf(group, sizeof(group), "%s/app", pressure_root);
	cr_assert_eq(mkdir(group, 0755), 0);
	cr_assert_eq(stat(group, &st), 0);
	pressure_file("/app", 1000000, 500000);
	config.cgroup_mount = pressure_root;
	start(&t, &config);
	snap_init(&sp);
	app_row(&sp, st.st_ino, 4096);
	step(&t, &sp, 1, false, &f);
	row = frame_row(&f, 42, DEV_A);
	cr_assert_not_null(row);
	cr_assert_not(row->cgroup_pressure.known, "first seen: no baseline before");
	tally_close_interval(&t);
	pressure_file("/app", 1600000, 800000);	/* 60% and 30% of the second */
	app_row(&sp, st.st_ino, 8192);
	step(&t, &sp, 2, false, &f);
	row = frame_row(&f, 42, DEV_A);
	cr_assert_not_null(row);
	cr_assert(row->cgroup_pressure.known);
	cr_expect_float_eq(row->cgroup_pressure.some_pct, 60.0, 1e-9);
	cr_expect_float_eq(row->cgroup_pressure.full_pct, 30.0, 1e-9);
	tally_close_interval(&t);
	tally_free(&t);

	/* --diagnose: every group read as the tally starts, so the window's
	 * first (and only) frame knows the group's pressure */
	config.cgroup_pressure_from_start = true;
	start(&t, &config);
	pressure_file("/app", 2600000, 800000);
	app_row(&sp, st.st_ino, 12288);
	step(&t, &sp, 2, false, &f);
	row = frame_row(&f, 42, DEV_A);
	cr_assert_not_null(row);
	cr_assert(row->cgroup_pressure.known);
	cr_expect_float_eq(row->cgroup_pressure.some_pct, 50.0, 1e-9);
	cr_expect_float_eq(row->cgroup_pressure.full_pct, 0.0, 1e-9);
	tally_free(&t);
}
