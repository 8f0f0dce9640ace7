// SPDX-License-Identifier: GPL-2.0
/* Unit tests of --replay -a (history/replay_sum.c): the window's totals. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>
#include "replay_sum.h"

struct fx {
	void *names_buf;
	struct res_table names;
	struct pmem_metrics pm;
	struct proc_io rows[2];
	struct proc_io *ptrs[2];
	struct row_latency latency;
	struct frame frame;
};

static void fx_init(struct fx *f)
{
	memset(f, 0, sizeof(*f));
	f->names_buf = malloc(65536);
	cr_assert_eq(res_table_init(&f->names, f->names_buf, 65536, 64), RES_OK);
	pmem_init(&f->pm);
	cr_assert_not_null(pmem_device_get(&f->pm, "zram0"));
	for (int i = 0; i < 2; i++) {
		f->rows[i].key.tgid = 10 + i;
		snprintf(f->rows[i].key.comm, sizeof(f->rows[i].key.comm), i ? "fio" : "dd");
		cr_assert_eq(res_intern_str(&f->names, f->rows[i].key.comm, &f->rows[i].comm_name),
			     RES_OK);
		f->ptrs[i] = &f->rows[i];
	}
	f->frame.names = &f->names;
	f->frame.devices = &f->pm;
	f->frame.rows = f->ptrs;
}

/* A frame as the reader gives it: dd wrote dd_bytes, fio (when fio_bytes)
 * wrote fio_bytes; the disk the sum; each counter's total its delta. */
static void fx_frame(struct fx *f, uint64_t dd_bytes, uint64_t fio_bytes)
{
	struct pmem_device *d = &f->pm.devices[0];

	f->frame.rows = f->ptrs;
	f->frame.nrows = fio_bytes ? 2 : 1;
	f->rows[0].delta[PMEM_WRITE_BYTES] = f->rows[0].total[PMEM_WRITE_BYTES] = dd_bytes;
	f->rows[1].delta[PMEM_WRITE_BYTES] = f->rows[1].total[PMEM_WRITE_BYTES] = fio_bytes;
	f->rows[0].latency = &f->latency;
	memset(&f->latency, 0, sizeof(f->latency));
	f->latency.delta.slots[12] = 2;
	d->counter[PMEM_WRITE_BYTES].delta = d->counter[PMEM_WRITE_BYTES].total =
		dd_bytes + fio_bytes;
	d->has_iostat = true;
	memset(&d->iostat_change, 0, sizeof(d->iostat_change));
	d->iostat_change.ns = 1000000000;
	d->iostat_change.field[DS_WRITE_IOS] = (dd_bytes + fio_bytes) / 4096;
	iostat_x_of_change(&d->iostat_change, &d->iostat[0]);
	d->iostat[1] = d->iostat[0];
}

Test(replay_sum, the_window_is_summed_as_a_live_run_sums_since_start)
{
	struct replay_sum s;
	struct fx f;

	fx_init(&f);
	cr_assert_eq(replay_sum_init(&s), 0);
	fx_frame(&f, 4096, 65536);
	cr_assert_eq(replay_sum_add(&s, &f.frame, SORT_WRITE), 0);
	cr_assert_eq(f.frame.nrows, 2);
	cr_assert_eq(f.frame.rows[0]->key.tgid, 11, "fio wrote most");
	/* fio is not in the second frame: it stays, with nothing this frame */
	fx_frame(&f, 8192 * 10, 0);
	cr_assert_eq(replay_sum_add(&s, &f.frame, SORT_WRITE), 0);
	cr_assert_eq(f.frame.nrows, 2);
	cr_assert_eq(f.frame.rows[0]->key.tgid, 10, "dd has written more by now");
	cr_assert_eq(f.frame.rows[0]->total[PMEM_WRITE_BYTES], 4096 + 81920);
	cr_assert_eq(f.frame.rows[0]->delta[PMEM_WRITE_BYTES], 81920);
	cr_assert_eq(f.frame.rows[1]->total[PMEM_WRITE_BYTES], 65536);
	cr_assert_eq(f.frame.rows[1]->delta[PMEM_WRITE_BYTES], 0);
	cr_assert_eq(f.frame.rows[0]->latency->total.slots[12], 4);
	cr_assert_eq(f.frame.rows[0]->latency->delta.slots[12], 2);
	cr_assert_eq(pmem_value(&f.pm.devices[0].counter[PMEM_WRITE_BYTES], true),
		     4096 + 65536 + 81920);
	cr_assert_eq(pmem_value(&f.pm.devices[0].counter[PMEM_WRITE_BYTES], false), 81920);
	/* iostat over the window: 37 writes in 2 s */
	cr_assert_float_eq(f.pm.devices[0].iostat[1].w_s, (1 + 16 + 20) / 2.0, 1e-9);
	replay_sum_free(&s);
	pmem_free(&f.pm);
	free(f.names_buf);
}

/* issue 45: a row's cgroup pressure over the window is not a sum of its
 * frames' shares (a frame may lack the row, or have it unknown): not known,
 * even where every frame knew it. */
Test(replay_sum, a_window_has_no_cgroup_pressure)
{
	struct replay_sum s;
	struct fx f;

	fx_init(&f);
	cr_assert_eq(replay_sum_init(&s), 0);
	for (int i = 0; i < 2; i++) {
		fx_frame(&f, 4096, 8192);
		f.rows[0].cgroup_pressure = f.rows[1].cgroup_pressure =
			(struct pressure_share){ true, 40.0, 20.0 };
		cr_assert_eq(replay_sum_add(&s, &f.frame, SORT_WRITE), 0);
		cr_assert_eq(f.frame.nrows, 2);
		cr_assert_not(f.frame.rows[0]->cgroup_pressure.known);
		cr_assert_not(f.frame.rows[1]->cgroup_pressure.known);
	}
	replay_sum_free(&s);
	pmem_free(&f.pm);
	free(f.names_buf);
}

/* --files: the window's file lines, each summed by its key; a frame of
 * totals (the run's -a) replaces a line's sum with its own totals. */
Test(replay_sum, file_lines_are_summed_by_their_key)
{
	struct file_row lines[2] = { 0 };
	char path[2][16] = { "/a", "/b" };
	struct replay_sum s;
	struct fx f;

	fx_init(&f);
	cr_assert_eq(replay_sum_init(&s), 0);
	for (int i = 0; i < 2; i++) {
		lines[i].key.who = (struct proc_dev_key){ .tgid = 10 };
		lines[i].key.ino = 12 + i;
		lines[i].path = path[i];
		lines[i].nfiles = 1;
	}
	fx_frame(&f, 4096, 0);
	f.frame.files_on = true;
	f.frame.files = lines;
	f.frame.nfiles = 1;
	lines[0].bytes[IO_WRITE] = 4096;
	cr_assert_eq(replay_sum_add(&s, &f.frame, SORT_WRITE), 0);
	cr_assert_eq(f.frame.nfiles, 1);
	/* the next frame: /b more than /a has in all; /a again */
	fx_frame(&f, 4096, 0);
	f.frame.files = lines;
	f.frame.nfiles = 2;
	f.frame.files_on = false;	/* a later run's frame without --files */
	lines[0].bytes[IO_WRITE] = 1024;
	lines[1].bytes[IO_WRITE] = 8192;
	strcpy(path[0], "/a2");		/* renamed: the sum's own copy follows */
	cr_assert_eq(replay_sum_add(&s, &f.frame, SORT_WRITE), 0);
	cr_assert(f.frame.files_on, "the window had files");
	cr_assert_eq(f.frame.nfiles, 2);
	cr_assert_str_eq(f.frame.files[0].path, "/b");
	cr_assert_eq(f.frame.files[0].bytes[IO_WRITE], 8192);
	cr_assert_str_eq(f.frame.files[1].path, "/a2");
	cr_assert_eq(f.frame.files[1].bytes[IO_WRITE], 5120);
	/* a frame of totals: /a's line is what it says */
	fx_frame(&f, 4096, 0);
	f.frame.cumulative = true;
	f.frame.files = lines;
	f.frame.nfiles = 1;
	lines[0].bytes[IO_WRITE] = 6000;
	cr_assert_eq(replay_sum_add(&s, &f.frame, SORT_WRITE), 0);
	cr_assert_eq(f.frame.nfiles, 2);
	cr_assert_eq(f.frame.files[1].bytes[IO_WRITE], 6000);
	cr_assert_str_eq(f.frame.files[1].path, "/a2");
	replay_sum_free(&s);
	pmem_free(&f.pm);
	free(f.names_buf);
}

/* The replay's summary: the window's intervals, losses and devices' changes
 * summed; the crash counts the last frame's; none of an empty window. */
Test(replay_sum, the_summary_is_of_the_window)
{
	struct replay_totals t;
	struct crashfree cf;
	struct summary s;
	struct fx f;

	fx_init(&f);
	crashfree_init(&cf, 3600000000000ULL, 0);
	replay_totals_init(&t);
	cr_assert_not(replay_totals_summary(&t, &s));
	fx_frame(&f, 4096, 8192);
	f.frame.interval_s = 1.5;
	f.frame.wall.tv_sec = 100;
	f.frame.lost[LOST_RINGBUF_FULL] = 2;
	f.frame.crash = &cf;
	cr_assert_eq(replay_totals_add(&t, &f.frame), 0);
	fx_frame(&f, 4096, 0);
	f.frame.interval_s = 2;
	f.frame.wall.tv_sec = 102;
	f.frame.lost[LOST_RINGBUF_FULL] = 3;
	cr_assert_eq(crashfree_record_crash(&cf, "segv", 0), 0);
	cr_assert_eq(replay_totals_add(&t, &f.frame), 0);
	/* the frame as it came: its totals untouched */
	cr_assert_eq(f.pm.devices[0].counter[PMEM_WRITE_BYTES].total, 4096);
	cr_assert(replay_totals_summary(&t, &s));
	cr_assert_eq(s.wall.tv_sec, 102);
	cr_assert_float_eq(s.duration_s, 3.5, 1e-9);
	cr_assert_eq(s.lost[LOST_RINGBUF_FULL], 5);
	cr_assert_eq(s.devices->count, 1);
	cr_assert_eq(s.devices->devices[0].counter[PMEM_WRITE_BYTES].total, 4096 + 8192 + 4096);
	cr_assert(s.devices->devices[0].has_iostat);
	cr_assert_eq(s.devices->devices[0].iostat_change.field[DS_WRITE_IOS], 3 + 1);
	cr_assert_eq(s.crash->crashes, 1);
	cr_assert_eq(s.crash->nprocesses, 1);
	cr_assert_str_eq(s.crash->by_process[0].comm, "segv");
	replay_totals_free(&t);
	crashfree_free(&cf);
	pmem_free(&f.pm);
	free(f.names_buf);
}
