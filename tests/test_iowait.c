// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of who waits (iotop's IO> and SWAPIN): each task's running
 * totals as per-interval changes (iowait.c), the shares they are of an
 * interval, and how the tally puts them on rows (tally.c): the row of the
 * process's I/O, or a row of no disk for a process that only waited, with
 * the disks' sums untouched.  Readings and snapshots are built by hand with
 * exact numbers; no root, no clock.
 */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format.h"
#include "iowait.h"
#include "tally.h"

#define MS UINT64_C(1000000)
#define SECOND (1000 * MS)
#define T0 (100 * SECOND)
#define AT(step) (T0 + (uint64_t)(step) * SECOND)
#define NO_SYSFS "/nonexistent/diskio-test-iowait-sysfs"
#define DEV_A kdev_make(8, 0)		/* "8:0" */
#define DEV_B kdev_make(253, 16)	/* "253:16" */

/* ---- records ---- */

static struct task_waits rec(uint32_t tid, uint32_t tgid, const char *comm, uint64_t blkio_ns,
			     uint64_t swapin_ns)
{
	struct task_waits w;

	memset(&w, 0, sizeof(w));
	w.row.tgid = tgid;
	memcpy(w.row.comm, comm, strnlen(comm, sizeof(w.row.comm) - 1));
	w.id.tid = tid;
	w.id.start_ns = 1000 + tid;	/* a task's start: the same at every reading */
	w.tgid = tgid;
	w.blkio_ns = blkio_ns;
	w.swapin_ns = swapin_ns;
	return w;
}

static struct task_waits exited(struct task_waits w)
{
	w.flags |= TASK_WAITS_EXITED;
	return w;
}

/* What iowait_tasks_read() gave, by tid. */
struct changes {
	uint32_t tid[16];
	struct iowait_ns ns[16];
	size_t n;
};

static void collect(const struct task_waits *w, const struct iowait_ns *change, void *arg)
{
	struct changes *c = arg;

	cr_assert_lt(c->n, 16);
	c->tid[c->n] = w->id.tid;
	c->ns[c->n++] = *change;
}

static struct changes read_changes(struct iowait_tasks *t, const struct task_waits *recs,
				   size_t n)
{
	struct changes c = { .n = 0 };

	cr_assert_eq(iowait_tasks_read(t, recs, n, collect, &c), 0);
	return c;
}

/* The blkio change given for tid, 0 if none was given. */
static uint64_t blkio_of(const struct changes *c, uint32_t tid)
{
	uint64_t sum = 0;

	for (size_t i = 0; i < c->n; i++)
		if (c->tid[i] == tid)
			sum += c->ns[i].blkio_ns;
	return sum;
}

static uint64_t swapin_of(const struct changes *c, uint32_t tid)
{
	uint64_t sum = 0;

	for (size_t i = 0; i < c->n; i++)
		if (c->tid[i] == tid)
			sum += c->ns[i].swapin_ns;
	return sum;
}

/* ======================================================================
 * 1. The shares
 * ====================================================================== */

Test(shares, a_wait_is_its_part_of_the_interval_in_percent)
{
	cr_assert_float_eq(iowait_pct(500 * MS, 2.0), 25.0, 1e-9);
	cr_assert_float_eq(iowait_pct(2 * SECOND, 2.0), 100.0, 1e-9);
	cr_assert_float_eq(iowait_pct(1, 1.0), 1e-7, 1e-15);
	/* a process sums its threads: three of them asleep all the interval */
	cr_assert_float_eq(iowait_pct(3 * SECOND, 1.0), 300.0, 1e-9);
}

Test(shares, an_interval_of_no_time_is_no_share)
{
	cr_assert_eq(iowait_pct(5 * SECOND, 0.0), 0.0);
	cr_assert_eq(iowait_pct(0, 0.0), 0.0);
	cr_assert(!isnan(iowait_pct(0, 0.0)));
}

Test(shares, a_task_waits_at_most_the_interval)
{
	cr_assert_eq(iowait_clamp(1500 * MS, SECOND), SECOND);
	cr_assert_eq(iowait_clamp(999 * MS, SECOND), 999 * MS);
	cr_assert_eq(iowait_clamp(5, 0), 0);
}

/* ======================================================================
 * 2. Each task's changes
 * ====================================================================== */

Test(tasks, the_reading_at_start_is_the_past)
{
	struct iowait_tasks t;
	struct task_waits start[] = { rec(10, 10, "db", 7 * SECOND, 3 * MS) };
	struct task_waits now[] = { rec(10, 10, "db", 7 * SECOND + 250 * MS, 3 * MS + 40) };
	struct changes c;

	iowait_tasks_init(&t);
	cr_assert_eq(iowait_tasks_read(&t, start, 1, NULL, NULL), 0);
	c = read_changes(&t, now, 1);
	cr_assert_eq(c.n, 1);
	cr_assert_eq(blkio_of(&c, 10), 250 * MS);
	cr_assert_eq(swapin_of(&c, 10), 40);
	iowait_tasks_free(&t);
}

/* A task that starts within an interval (or waits first within it): the
 * readings before did not list it, so all of its totals are the interval's. */
Test(tasks, a_task_seen_for_the_first_time_counts_whole)
{
	struct iowait_tasks t;
	struct task_waits first[] = { rec(10, 10, "db", SECOND, 0) };
	struct task_waits second[] = {
		rec(10, 10, "db", SECOND, 0),
		rec(11, 11, "tar", 300 * MS, 2 * MS),
	};
	struct changes c;

	iowait_tasks_init(&t);
	cr_assert_eq(iowait_tasks_read(&t, NULL, 0, NULL, NULL), 0);
	c = read_changes(&t, first, 1);
	cr_assert_eq(blkio_of(&c, 10), SECOND);
	c = read_changes(&t, second, 2);
	cr_assert_eq(c.n, 1, "db did not wait again: no change given");
	cr_assert_eq(blkio_of(&c, 11), 300 * MS);
	cr_assert_eq(swapin_of(&c, 11), 2 * MS);
	iowait_tasks_free(&t);
}

/* The counter of a task that starts mid-interval counts from 0 even when the
 * reading before listed another task of the same tid (a tid used again). */
Test(tasks, a_tid_used_again_is_another_task)
{
	struct iowait_tasks t;
	struct task_waits first[] = { rec(10, 10, "old", 5 * SECOND, 0) };
	struct task_waits second[] = { rec(10, 10, "new", 200 * MS, 0) };
	struct changes c;

	second[0].id.start_ns += 77;
	iowait_tasks_init(&t);
	iowait_tasks_read(&t, first, 1, NULL, NULL);
	c = read_changes(&t, second, 1);
	cr_assert_eq(blkio_of(&c, 10), 200 * MS, "not 200 ms less 5 s");
	iowait_tasks_free(&t);
}

/* A task that exits between two readings leaves its last totals: what it
 * waited since it was last listed counts once, and its zombie's totals,
 * listed again, count nothing. */
Test(tasks, a_task_that_exits_keeps_its_last_waits_once)
{
	struct iowait_tasks t;
	struct task_waits first[] = { rec(10, 10, "dd", 400 * MS, 0) };
	struct task_waits second[] = { exited(rec(10, 10, "dd", 900 * MS, 0)) };
	struct task_waits third[] = { rec(10, 10, "dd", 900 * MS, 0) };
	struct changes c;

	iowait_tasks_init(&t);
	iowait_tasks_read(&t, NULL, 0, NULL, NULL);
	c = read_changes(&t, first, 1);
	cr_assert_eq(blkio_of(&c, 10), 400 * MS);
	c = read_changes(&t, second, 1);
	cr_assert_eq(blkio_of(&c, 10), 500 * MS);
	c = read_changes(&t, third, 1);
	cr_assert_eq(c.n, 0, "a zombie's totals were counted at its exit");
	iowait_tasks_free(&t);
}

/* Listed by the iterator, then exited before the exit map was drained: both
 * in one reading, the exit's record counts what came after the listing. */
Test(tasks, listed_and_exited_in_one_reading)
{
	struct iowait_tasks t;
	struct task_waits one[] = {
		rec(10, 10, "dd", 300 * MS, 0),
		exited(rec(10, 10, "dd", 350 * MS, 0)),
	};
	struct changes c;

	iowait_tasks_init(&t);
	iowait_tasks_read(&t, NULL, 0, NULL, NULL);
	c = read_changes(&t, one, 2);
	cr_assert_eq(blkio_of(&c, 10), 350 * MS);
	cr_assert_eq(t.count, 1);
	c = read_changes(&t, NULL, 0);
	cr_assert_eq(t.count, 0, "an exited task is forgotten once not listed");
	iowait_tasks_free(&t);
}

/* A task that exits within its first interval: never listed, all its
 * totals came after the last reading. */
Test(tasks, a_task_that_starts_and_exits_within_an_interval)
{
	struct iowait_tasks t;
	struct task_waits one[] = { exited(rec(12, 12, "sh", 80 * MS, 0)) };
	struct changes c;

	iowait_tasks_init(&t);
	iowait_tasks_read(&t, NULL, 0, NULL, NULL);
	c = read_changes(&t, one, 1);
	cr_assert_eq(blkio_of(&c, 12), 80 * MS);
	iowait_tasks_free(&t);
}

/* A reading at the instant a wait ends may be a little behind the one
 * before (the wait in progress read on another CPU's clock): nothing
 * counts until the total passes what was seen, and then only the rest. */
Test(tasks, a_total_behind_the_one_seen_counts_nothing)
{
	struct iowait_tasks t;
	struct task_waits a[] = { rec(10, 10, "db", 1000 * MS, 0) };
	struct task_waits b[] = { rec(10, 10, "db", 990 * MS, 0) };
	struct task_waits c3[] = { rec(10, 10, "db", 1300 * MS, 0) };
	struct changes c;

	iowait_tasks_init(&t);
	iowait_tasks_read(&t, NULL, 0, NULL, NULL);
	read_changes(&t, a, 1);
	c = read_changes(&t, b, 1);
	cr_assert_eq(blkio_of(&c, 10), 0);
	c = read_changes(&t, c3, 1);
	cr_assert_eq(blkio_of(&c, 10), 300 * MS);
	iowait_tasks_free(&t);
}

/* A task no longer listed and not exited (its exit record was lost) is
 * kept IOWAIT_UNSEEN_READINGS readings for a late exit record, then goes. */
Test(tasks, an_unlisted_task_is_forgotten_after_a_while)
{
	struct iowait_tasks t;
	struct task_waits a[] = { rec(10, 10, "db", SECOND, 0) };
	struct task_waits late[] = { exited(rec(10, 10, "db", SECOND + 5 * MS, 0)) };
	struct changes c;

	iowait_tasks_init(&t);
	iowait_tasks_read(&t, NULL, 0, NULL, NULL);
	read_changes(&t, a, 1);
	for (int i = 0; i < IOWAIT_UNSEEN_READINGS - 1; i++)
		read_changes(&t, NULL, 0);
	cr_assert_eq(t.count, 1);
	c = read_changes(&t, late, 1);
	cr_assert_eq(blkio_of(&c, 10), 5 * MS, "kept: the late exit counts its rest");
	cr_assert_eq(t.count, 1);
	read_changes(&t, NULL, 0);
	cr_assert_eq(t.count, 0);

	read_changes(&t, a, 1);
	for (int i = 0; i < IOWAIT_UNSEEN_READINGS; i++)
		read_changes(&t, NULL, 0);
	cr_assert_eq(t.count, 0);
	iowait_tasks_free(&t);
}

/* ======================================================================
 * 3. Waits on rows (the tally)
 * ====================================================================== */

#define SNAP_ROWS 8
#define SNAP_WAITS 16

struct snap {
	struct snapshot s;
	struct snapshot_row rows[SNAP_ROWS];
	struct task_waits waits[SNAP_WAITS];
	struct task_waits start_waits[SNAP_WAITS];
};

/* The first snapshot: a start reading (empty unless filled) taken with
 * delay accounting delayacct_at_start. */
static void snap_init(struct snap *sp, enum waits_source source, bool delayacct_at_start)
{
	memset(sp, 0, sizeof(*sp));
	sp->s.rows = sp->rows;
	sp->s.rows_capacity = SNAP_ROWS;
	sp->s.waits_source = source;
	sp->s.waits.tasks = sp->waits;
	sp->s.waits.capacity = SNAP_WAITS;
	sp->s.waits.taken = true;
	sp->s.waits.delayacct_on = delayacct_at_start;
	sp->s.start_waits.tasks = sp->start_waits;
	sp->s.start_waits.capacity = SNAP_WAITS;
	sp->s.start_waits.taken = true;
	sp->s.start_waits.delayacct_on = delayacct_at_start;
}

/* The next reading: the waits listed anew, the start reading given once. */
static void snap_next(struct snap *sp, bool delayacct_on)
{
	sp->s.start_waits.taken = false;
	sp->s.waits.n = 0;
	sp->s.waits.delayacct_on = delayacct_on;
}

static void snap_wait(struct snap *sp, struct task_waits w)
{
	cr_assert_lt(sp->s.waits.n, SNAP_WAITS);
	sp->waits[sp->s.waits.n++] = w;
}

static void snap_row(struct snap *sp, uint32_t tgid, uint32_t dev, const char *comm,
		     uint64_t read_bytes, uint64_t write_bytes)
{
	struct proc_dev_key key;
	size_t i;

	memset(&key, 0, sizeof(key));
	key.tgid = tgid;
	key.dev = dev;
	memcpy(key.comm, comm, strnlen(comm, sizeof(key.comm) - 1));
	for (i = 0; i < sp->s.nrows; i++)
		if (!memcmp(&sp->rows[i].key, &key, sizeof(key)))
			break;
	if (i == sp->s.nrows) {
		cr_assert_lt(sp->s.nrows, SNAP_ROWS);
		sp->s.nrows++;
		sp->rows[i].key = key;
	}
	memset(&sp->rows[i].stats, 0, sizeof(sp->rows[i].stats));
	sp->rows[i].stats.bytes[IO_READ] = read_bytes;
	sp->rows[i].stats.bytes[IO_WRITE] = write_bytes;
	sp->rows[i].stats.ios[IO_READ] = read_bytes / 4096;
	sp->rows[i].stats.ios[IO_WRITE] = write_bytes / 4096;
}

static bool always_alive(uint32_t tgid)
{
	(void)tgid;
	return true;
}

static void start(struct tally *t, bool without_device_rows)
{
	struct tally_config config;

	memset(&config, 0, sizeof(config));
	config.sort = SORT_BYTES;
	config.crash_interval_ns = 3600 * SECOND;
	config.sysfs_root = NO_SYSFS;
	config.process_alive = always_alive;
	config.filter_devices = without_device_rows;	/* -D */
	cr_assert_eq(tally_init(t, &config, T0), 0);
}

static const struct timespec wall = { .tv_sec = 1700000000, .tv_nsec = 5 };

static void step(struct tally *t, const struct snap *sp, int n, struct frame *f)
{
	tally_frame(t, &sp->s, AT(n), &wall, false, f);
}

static const struct proc_io *frame_row(const struct frame *f, uint32_t tgid, uint32_t dev)
{
	for (size_t i = 0; i < f->nrows; i++)
		if (f->rows[i]->key.tgid == tgid && f->rows[i]->key.dev == dev)
			return f->rows[i];
	return NULL;
}

static double shown_pct(const struct frame *f, const struct proc_io *row, bool swapin)
{
	double pct = -1;

	cr_assert(frame_wait_pct(f, row, false, swapin, &pct), "%s is not known",
		  swapin ? "SWAPIN" : "IO>");
	return pct;
}

/* A process blocked behind another's I/O, with none of its own: a row of no
 * disk, named "-", with its IO>; the disks and the total hold only the I/O
 * that was done. */
Test(rows, a_process_that_only_waits_gets_a_row_of_no_disk)
{
	struct tally t;
	struct snap sp;
	struct frame f;
	const struct proc_io *victim, *writer;
	uint64_t total[PMEM_NR_COUNTERS];

	start(&t, false);
	snap_init(&sp, WAITS_SCHED, false);
	snap_row(&sp, 20, DEV_A, "backup", 0, 8 << 20);
	snap_wait(&sp, rec(30, 30, "postgres", 750 * MS, 0));
	step(&t, &sp, 1, &f);

	cr_assert_eq(f.nrows, 2);
	cr_assert_eq(f.waits_source, WAITS_SCHED);
	cr_assert(f.iowait_known);
	cr_assert_not(f.swapin_known, "SWAPIN needs delay accounting");
	victim = frame_row(&f, 30, IOWAIT_NO_DEVICE);
	cr_assert_not_null(victim);
	cr_assert_not(iostats_has_device(victim));
	cr_assert_str_eq(res_name(f.names, victim->device_name, NULL), "-");
	cr_assert_str_eq(res_name(f.names, victim->comm_name, NULL), "postgres");
	cr_assert_float_eq(shown_pct(&f, victim, false), 75.0, 1e-9);
	for (int c = 0; c < PMEM_NR_COUNTERS; c++)
		cr_assert_eq(victim->delta[c], 0, "a waiting row adds no I/O");
	writer = frame_row(&f, 20, DEV_A);
	cr_assert_float_eq(shown_pct(&f, writer, false), 0.0, 1e-9);
	pmem_values(&f.devices->aggregate, false, total);
	cr_assert_eq(total[PMEM_WRITE_BYTES], 8 << 20);
	cr_assert_eq(total[PMEM_WRITE_IOS], (8 << 20) / 4096);
	cr_assert_eq(total[PMEM_READ_BYTES] + total[PMEM_READ_IOS], 0);
	cr_assert_eq(f.devices->count, 1, "no device for the waiting row");
	tally_free(&t);
}

/* A process with I/O on two disks: its waits go once, to the row of the disk
 * it read and wrote most in the interval. */
Test(rows, waits_go_to_the_row_with_most_bytes_once)
{
	struct tally t;
	struct snap sp;
	struct frame f;

	start(&t, false);
	snap_init(&sp, WAITS_SCHED, false);
	snap_row(&sp, 40, DEV_A, "rsync", 4096, 0);
	snap_row(&sp, 40, DEV_B, "rsync", 0, 65536);
	snap_wait(&sp, rec(40, 40, "rsync", 400 * MS, 0));
	step(&t, &sp, 1, &f);

	cr_assert_eq(f.nrows, 2, "no row of no disk: the process did I/O");
	cr_assert_float_eq(shown_pct(&f, frame_row(&f, 40, DEV_B), false), 40.0, 1e-9);
	cr_assert_float_eq(shown_pct(&f, frame_row(&f, 40, DEV_A), false), 0.0, 1e-9);

	/* next interval: most bytes on DEV_A */
	snap_next(&sp, false);
	snap_row(&sp, 40, DEV_A, "rsync", 4096 + (1 << 20), 0);
	snap_wait(&sp, rec(40, 40, "rsync", 600 * MS, 0));
	step(&t, &sp, 2, &f);
	cr_assert_float_eq(shown_pct(&f, frame_row(&f, 40, DEV_A), false), 20.0, 1e-9);
	cr_assert_null(frame_row(&f, 40, DEV_B), "no I/O, no waits: not shown");
	tally_free(&t);
}

/* A process row sums its threads; each thread's part is at most the
 * interval (a reading a little late, a clock a little ahead). */
Test(rows, a_process_sums_its_threads_each_at_most_the_interval)
{
	struct tally t;
	struct snap sp;
	struct frame f;

	start(&t, false);
	snap_init(&sp, WAITS_SCHED, false);
	snap_wait(&sp, rec(50, 50, "java", 900 * MS, 0));
	snap_wait(&sp, rec(51, 50, "java", 1020 * MS, 0));
	snap_wait(&sp, rec(52, 50, "java", 100 * MS, 0));
	step(&t, &sp, 1, &f);

	cr_assert_eq(f.nrows, 1);
	cr_assert_float_eq(shown_pct(&f, frame_row(&f, 50, IOWAIT_NO_DEVICE), false), 200.0, 1e-9,
			   "90 + 100 (not 102) + 10");
	tally_free(&t);
}

/* With -t the key is the thread: each thread its row, at most 100%, and its
 * process known from the record (no I/O row told it). */
Test(rows, a_thread_row_knows_its_process)
{
	struct tally t;
	struct snap sp;
	struct frame f;
	const struct proc_io *row;

	start(&t, false);
	snap_init(&sp, WAITS_SCHED, false);
	snap_wait(&sp, rec(61, 61, "worker", 1500 * MS, 0));
	sp.waits[0].tgid = 60;
	step(&t, &sp, 1, &f);
	row = frame_row(&f, 61, IOWAIT_NO_DEVICE);
	cr_assert_not_null(row);
	cr_assert_eq(row->tgid, 60);
	cr_assert_float_eq(shown_pct(&f, row, false), 100.0, 1e-9);
	tally_free(&t);
}

/* A task that exits within the interval keeps its waits on its row. */
Test(rows, an_exited_task_keeps_its_waits)
{
	struct tally t;
	struct snap sp;
	struct frame f;

	start(&t, false);
	snap_init(&sp, WAITS_SCHED, false);
	snap_row(&sp, 70, DEV_A, "dd", 1 << 20, 0);
	snap_wait(&sp, rec(70, 70, "dd", 200 * MS, 0));
	step(&t, &sp, 1, &f);
	snap_next(&sp, false);
	snap_row(&sp, 70, DEV_A, "dd", 2 << 20, 0);
	snap_wait(&sp, exited(rec(70, 70, "dd", 650 * MS, 0)));
	step(&t, &sp, 2, &f);
	cr_assert_float_eq(shown_pct(&f, frame_row(&f, 70, DEV_A), false), 45.0, 1e-9);
	snap_next(&sp, false);
	step(&t, &sp, 3, &f);
	cr_assert_null(frame_row(&f, 70, DEV_A), "nothing more of it");
	tally_free(&t);
}

/* The first interval counts from the reading at start, not from the
 * task's birth. */
Test(rows, waits_before_the_start_are_not_counted)
{
	struct tally t;
	struct snap sp;
	struct frame f;

	start(&t, false);
	snap_init(&sp, WAITS_DELAYACCT, true);
	sp.start_waits[0] = rec(80, 80, "db", 3600 * SECOND, 9 * SECOND);
	sp.s.start_waits.n = 1;
	snap_wait(&sp, rec(80, 80, "db", 3600 * SECOND + 100 * MS, 9 * SECOND + 30 * MS));
	step(&t, &sp, 1, &f);
	cr_assert(f.iowait_known);
	cr_assert(f.swapin_known);
	cr_assert_float_eq(shown_pct(&f, frame_row(&f, 80, IOWAIT_NO_DEVICE), false), 10.0, 1e-9);
	cr_assert_float_eq(shown_pct(&f, frame_row(&f, 80, IOWAIT_NO_DEVICE), true), 3.0, 1e-9);
	tally_free(&t);
}

/* Delay accounting turned off while diskio reads it: both shares are not
 * known (never a made-up 0), with one warning; on again, they are known
 * from the first interval it was on all through. */
Test(rows, delay_accounting_turned_off_is_not_known)
{
	struct tally t;
	struct snap sp;
	struct frame f;
	char *text = NULL;
	size_t len = 0;
	FILE *warn = open_memstream(&text, &len);

	start(&t, false);
	t.config.warn = warn;
	snap_init(&sp, WAITS_DELAYACCT, true);
	snap_wait(&sp, rec(90, 90, "db", 100 * MS, 0));
	step(&t, &sp, 1, &f);
	cr_assert(f.iowait_known);
	snap_next(&sp, false);
	snap_wait(&sp, rec(90, 90, "db", 100 * MS, 0));
	step(&t, &sp, 2, &f);
	cr_assert_not(f.iowait_known);
	cr_assert_not(f.swapin_known);
	snap_next(&sp, true);		/* on again within this interval */
	snap_wait(&sp, rec(90, 90, "db", 300 * MS, 0));
	step(&t, &sp, 3, &f);
	cr_assert_not(f.iowait_known, "it was off at the interval's start");
	cr_assert_eq(f.nrows, 0, "an unknown wait makes no row");
	snap_next(&sp, true);
	snap_wait(&sp, rec(90, 90, "db", 700 * MS, 0));
	step(&t, &sp, 4, &f);
	cr_assert(f.iowait_known);
	cr_assert_float_eq(shown_pct(&f, frame_row(&f, 90, IOWAIT_NO_DEVICE), false), 40.0, 1e-9);
	fclose(warn);
	cr_assert_not_null(strstr(text, "delay accounting was turned off"), "%s", text);
	cr_assert_null(strstr(strstr(text, "turned off") + 1, "turned off"), "warned once");
	free(text);
	tally_free(&t);
}

/* Without delay accounting diskio's measure is known, SWAPIN is not: the
 * views show "-" and null, not 0. */
Test(rows, swapin_is_not_known_without_delay_accounting)
{
	struct tally t;
	struct snap sp;
	struct frame f;
	double pct = 0;

	start(&t, false);
	snap_init(&sp, WAITS_SCHED, false);
	snap_wait(&sp, rec(91, 91, "db", 100 * MS, 5 * MS));
	step(&t, &sp, 1, &f);
	cr_assert(f.iowait_known);
	cr_assert_not(frame_wait_pct(&f, frame_row(&f, 91, IOWAIT_NO_DEVICE), false, true, &pct));
	tally_free(&t);
}

/* -D selects disks: a process with no I/O on them gets no row of no disk. */
Test(rows, no_rows_of_no_disk_with_a_device_filter)
{
	struct tally t;
	struct snap sp;
	struct frame f;

	start(&t, true);
	snap_init(&sp, WAITS_SCHED, false);
	snap_row(&sp, 20, DEV_A, "backup", 4096, 0);
	snap_wait(&sp, rec(20, 20, "backup", 100 * MS, 0));
	snap_wait(&sp, rec(30, 30, "postgres", 750 * MS, 0));
	step(&t, &sp, 1, &f);
	cr_assert_eq(f.nrows, 1);
	cr_assert_float_eq(shown_pct(&f, frame_row(&f, 20, DEV_A), false), 10.0, 1e-9);
	tally_free(&t);
}

/* -a: a row's waits since start, as a share of the run. */
Test(rows, cumulative_is_a_share_of_the_run)
{
	struct tally t;
	struct snap sp;
	struct frame f;
	double pct = 0;

	start(&t, false);
	snap_init(&sp, WAITS_SCHED, false);
	snap_wait(&sp, rec(95, 95, "db", 600 * MS, 0));
	step(&t, &sp, 1, &f);
	snap_next(&sp, false);
	snap_wait(&sp, rec(95, 95, "db", 1000 * MS, 0));
	step(&t, &sp, 2, &f);
	cr_assert(frame_wait_pct(&f, frame_row(&f, 95, IOWAIT_NO_DEVICE), true, false, &pct));
	cr_assert_float_eq(pct, 50.0, 1e-9, "1 s of 2");
	tally_free(&t);
}

/* --by cgroup: a group's row sums its processes' waits. */
Test(rows, cgroup_rows_sum_their_processes_waits)
{
	struct tally t;
	struct snap sp;
	struct frame f;
	struct task_waits a = rec(100, 100, "php", 200 * MS, 0), b = rec(101, 101, "php", 300 * MS, 0);

	start(&t, false);
	t.config.by_cgroup = true;
	a.row.cgroup = b.row.cgroup = 77;
	snap_init(&sp, WAITS_SCHED, false);
	snap_wait(&sp, a);
	snap_wait(&sp, b);
	step(&t, &sp, 1, &f);
	cr_assert_eq(f.nrows, 1);
	cr_assert_eq(f.rows[0]->key.cgroup, 77);
	cr_assert_float_eq(shown_pct(&f, f.rows[0], false), 50.0, 1e-9);
	tally_free(&t);
}

/* Sorted by IO>: the longest wait first, whatever the bytes. */
Test(rows, sorted_by_iowait)
{
	struct tally t;
	struct snap sp;
	struct frame f;

	start(&t, false);
	t.config.sort = SORT_IOWAIT;
	snap_init(&sp, WAITS_SCHED, false);
	snap_row(&sp, 1, DEV_A, "busy", 1 << 30, 0);
	snap_wait(&sp, rec(2, 2, "victim", 900 * MS, 0));
	snap_wait(&sp, rec(3, 3, "other", 100 * MS, 0));
	step(&t, &sp, 1, &f);
	cr_assert_eq(f.nrows, 3);
	cr_assert_eq(f.rows[0]->key.tgid, 2);
	cr_assert_eq(f.rows[1]->key.tgid, 3);
	cr_assert_eq(f.rows[2]->key.tgid, 1);
	tally_free(&t);
}
