// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of --diagnose (issue 45): its rules (cli/diagnose_rules.c), the
 * diagnosis of a frame built by hand (step/diagnosis.c), the view's
 * sentence, text and JSON record (views/diagnose.c), and the cgroup limits
 * found in a tree of its own (procs/io_limits.c).
 */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <errno.h>
#include <ftw.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "diagnose.h"
#include "diagnosis.h"
#include "io_limits.h"
#include "json_check.h"
#include "options.h"
#include "diagnose_rules.h"
#include "view.h"

/* ---- rules ---- */

Test(diagnose_rules, defaults_and_each_rule_set)
{
	struct diagnose_rules r;
	char why[256];

	diagnose_rules_default(&r);
	cr_assert_eq(r.busy_util, 60);
	cr_assert_eq(r.saturated_queue, 4);
	cr_assert_eq(r.throttled_util, 30);
	cr_assert_eq(r.wait_pct, 20);
	cr_assert_eq(r.failing_errors, 1);
	cr_assert_eq(r.drivers, 3);
	cr_assert_eq(r.files, 3);
	cr_assert_eq(diagnose_rule_set(&r, "busy_util=75.5", why, sizeof(why)), 0);
	cr_assert_eq(diagnose_rule_set(&r, "saturated_queue=16", why, sizeof(why)), 0);
	cr_assert_eq(diagnose_rule_set(&r, "throttled_util=5", why, sizeof(why)), 0);
	cr_assert_eq(diagnose_rule_set(&r, "wait_pct=80", why, sizeof(why)), 0);
	cr_assert_eq(diagnose_rule_set(&r, "failing_errors=10", why, sizeof(why)), 0);
	cr_assert_eq(diagnose_rule_set(&r, "drivers=0", why, sizeof(why)), 0);
	cr_assert_eq(diagnose_rule_set(&r, "files=7", why, sizeof(why)), 0);
	cr_assert_eq(r.busy_util, 75.5);
	cr_assert_eq(r.saturated_queue, 16);
	cr_assert_eq(r.throttled_util, 5);
	cr_assert_eq(r.wait_pct, 80);
	cr_assert_eq(r.failing_errors, 10);
	cr_assert_eq(r.drivers, 0);
	cr_assert_eq(r.files, 7);
}

Test(diagnose_rules, bad_rules_are_refused_and_say_why)
{
	static const char *const bad[] = {
		"busy_util", "busy_util=", "busy_util=101", "busy_util=-1", "busy_util=nan",
		"busy_util=5x", "nosuch=1", "=3", "failing_errors=0", "failing_errors=-1",
		"drivers=1001", "drivers=1.5", "files=-2", "saturated_queue=inf",
	};
	struct diagnose_rules r, before;

	diagnose_rules_default(&r);
	before = r;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char why[256] = "";

		cr_assert_eq(diagnose_rule_set(&r, bad[i], why, sizeof(why)), -EINVAL, "%s", bad[i]);
		cr_assert(why[0], "no reason for %s", bad[i]);
	}
	cr_assert_eq(memcmp(&r, &before, sizeof(r)), 0, "a refused rule changed the rules");
}

/* ---- frames built by hand ---- */

#define NAMES_SIZE (64 * 1024)
#define MAXROWS 16
#define MAXFILES 16
#define SECONDS 10.0
#define NS_PER_S UINT64_C(1000000000)

struct fx {
	void *names_buf;
	struct res_table names;
	struct pmem_metrics pm;
	struct proc_io rows[MAXROWS];
	struct proc_io *ptrs[MAXROWS];
	struct file_row files[MAXFILES];
	struct frame frame;
	struct diagnose_rules rules;
	struct diagnosis d;
	bool flushed;		/* the disks' counts are the interval's */
};

static res_key intern(struct fx *f, const char *name)
{
	res_key key;

	cr_assert_eq(res_intern(&f->names, name, strlen(name), &key), RES_OK);
	return key;
}

static struct fx *fx_new(void)
{
	struct fx *f = calloc(1, sizeof(*f));

	cr_assert_not_null(f);
	f->names_buf = malloc(NAMES_SIZE);
	cr_assert_not_null(f->names_buf);
	cr_assert_eq(res_table_init(&f->names, f->names_buf, NAMES_SIZE, 256), RES_OK);
	pmem_init(&f->pm);
	diagnose_rules_default(&f->rules);
	f->frame.wall = (struct timespec){ .tv_sec = 1795334401, .tv_nsec = 250000000 };
	f->frame.interval_s = SECONDS;
	f->frame.run_s = SECONDS;
	f->frame.rows = f->ptrs;
	f->frame.names = &f->names;
	f->frame.devices = &f->pm;
	f->frame.iowait_known = true;
	f->frame.files = f->files;
	return f;
}

static void fx_free(struct fx *f)
{
	diagnosis_free(&f->d);
	for (size_t i = 0; i < f->frame.nrows; i++)
		free(f->rows[i].cmdline);
	pmem_free(&f->pm);
	free(f->names_buf);
	free(f);
}

/* A disk with these bytes written, I/Os and iostat figures; flushed, so
 * that they are the interval's. */
static struct pmem_device *disk(struct fx *f, const char *name, uint64_t write_bytes,
				uint64_t ios, double util, double aqu_sz)
{
	struct pmem_device *dev = pmem_device_get(&f->pm, name);

	cr_assert_not_null(dev);
	pmem_add(&f->pm, dev, PMEM_WRITE_BYTES, write_bytes);
	pmem_add(&f->pm, dev, PMEM_WRITE_IOS, ios);
	dev->has_iostat = true;
	dev->iostat[0].util = util;
	dev->iostat[0].aqu_sz = aqu_sz;
	dev->iostat[0].w_await = 2.5;
	return dev;
}

static void disk_errors(struct fx *f, const char *name, enum io_error_kind kind, uint64_t n)
{
	pmem_add(&f->pm, pmem_device_get(&f->pm, name), PMEM_ERRORS + kind, n);
}

/* A row of pid comm on disk dev_name (NULL: a row of waits alone), with
 * bytes written and IO> in percent. */
static struct proc_io *row(struct fx *f, uint32_t pid, const char *comm, const char *dev_name,
			   uint32_t dev, uint64_t write_bytes, double iowait_pct)
{
	struct proc_io *r = &f->rows[f->frame.nrows];

	cr_assert_lt(f->frame.nrows, MAXROWS);
	memset(r, 0, sizeof(*r));
	r->key.tgid = pid;
	r->key.dev = dev_name ? dev : IOWAIT_NO_DEVICE;
	r->tgid = pid;
	r->comm_name = intern(f, comm);
	if (dev_name)
		r->device_name = intern(f, dev_name);
	r->delta[PMEM_WRITE_BYTES] = write_bytes;
	r->delta[PMEM_WRITE_IOS] = write_bytes / 4096;
	r->wait_delta.blkio_ns = (uint64_t)(iowait_pct / 100 * SECONDS * NS_PER_S);
	r->owner.flags = ROW_OWNER_KNOWN;
	r->owner.uid = 1000;
	r->user_name = intern(f, "alice");
	r->cmdline = strdup(comm);
	r->cgroup_name = intern(f, "/user.slice");
	f->ptrs[f->frame.nrows++] = r;
	return r;
}

/* Once: what the disks counted becomes the interval's. */
static void flush(struct fx *f)
{
	if (!f->flushed)
		pmem_flush(&f->pm);
	f->flushed = true;
}

static void diagnose(struct fx *f)
{
	flush(f);
	cr_assert_eq(diagnose_frame(&f->d, &f->frame, &f->rules), 0);
}

static const struct diag_disk *find_disk(const struct fx *f, const char *name)
{
	for (size_t i = 0; i < f->d.ndisks; i++)
		if (!strcmp(f->d.disks[i].name, name))
			return &f->d.disks[i];
	cr_assert_fail("no disk %s in the diagnosis", name);
	return NULL;
}

#undef MKDEV
#define MKDEV(ma, mi) ((uint32_t)(ma) << 20 | (mi))

/* ---- states ---- */

Test(diagnosis, each_state_by_its_rule_and_the_worst_first)
{
	struct fx *f = fx_new();

	disk(f, "idle0", 0, 0, 0, 0);
	disk(f, "ok0", 1 << 20, 256, 10, 0.2);
	disk(f, "busy0", 64 << 20, 16384, 80, 1.5);
	disk(f, "sat0", 64 << 20, 16384, 99, 12);
	disk(f, "thr0", 400 << 10, 100, 2, 0.01);
	row(f, 42, "reader", "thr0", MKDEV(251, 1), 400 << 10, 95);
	disk(f, "fail0", 1 << 20, 300, 5, 0.1);
	disk_errors(f, "fail0", IO_ERR_ENOSPC, 24);
	diagnose(f);

	cr_assert_eq(f->d.ndisks, 6);
	cr_assert_str_eq(f->d.disks[0].name, "fail0");
	cr_assert_eq(f->d.disks[0].state, DISK_FAILING);
	cr_assert_eq(f->d.disks[0].nerrors, 24);
	cr_assert_eq(f->d.disks[0].errors[IO_ERR_ENOSPC], 24);
	cr_assert_str_eq(f->d.disks[1].name, "thr0");
	cr_assert_eq(f->d.disks[1].state, DISK_THROTTLED);
	cr_assert_eq(f->d.disks[1].dev, MKDEV(251, 1));
	cr_assert_str_eq(f->d.disks[2].name, "sat0");
	cr_assert_eq(f->d.disks[2].state, DISK_SATURATED);
	cr_assert_str_eq(f->d.disks[3].name, "busy0");
	cr_assert_eq(f->d.disks[3].state, DISK_BUSY);
	cr_assert_str_eq(f->d.disks[4].name, "ok0");
	cr_assert_eq(f->d.disks[4].state, DISK_OK);
	cr_assert_str_eq(f->d.disks[5].name, "idle0");
	cr_assert_eq(f->d.disks[5].state, DISK_IDLE);
	cr_assert(diagnosis_trouble(&f->d));
	fx_free(f);
}

Test(diagnosis, the_rules_move_the_lines)
{
	struct fx *f = fx_new();
	char why[128];

	disk(f, "a", 64 << 20, 16384, 80, 1.5);
	diagnose(f);
	cr_assert_eq(f->d.disks[0].state, DISK_BUSY);
	cr_assert_not(diagnosis_trouble(&f->d), "busy is not trouble");
	cr_assert_eq(diagnose_rule_set(&f->rules, "saturated_queue=1", why, sizeof(why)), 0);
	cr_assert_eq(diagnose_frame(&f->d, &f->frame, &f->rules), 0);
	cr_assert_eq(f->d.disks[0].state, DISK_SATURATED);
	cr_assert_eq(diagnose_rule_set(&f->rules, "busy_util=90", why, sizeof(why)), 0);
	cr_assert_eq(diagnose_frame(&f->d, &f->frame, &f->rules), 0);
	cr_assert_eq(f->d.disks[0].state, DISK_OK);
	fx_free(f);
}

Test(diagnosis, errors_below_the_rule_do_not_fail_a_disk)
{
	struct fx *f = fx_new();
	char why[128];

	disk(f, "a", 1 << 20, 256, 10, 0.1);
	disk_errors(f, "a", IO_ERR_EIO, 2);
	cr_assert_eq(diagnose_rule_set(&f->rules, "failing_errors=3", why, sizeof(why)), 0);
	diagnose(f);
	cr_assert_eq(f->d.disks[0].state, DISK_OK);
	cr_assert_eq(f->d.disks[0].nerrors, 2, "the errors are still counted");
	fx_free(f);
}

Test(diagnosis, no_waits_measured_means_no_throttled_disk)
{
	struct fx *f = fx_new();

	disk(f, "a", 400 << 10, 100, 2, 0.01);
	row(f, 42, "reader", "a", MKDEV(7, 0), 400 << 10, 95);
	f->frame.iowait_known = false;
	diagnose(f);
	cr_assert_eq(f->d.disks[0].state, DISK_OK);
	cr_assert_eq(f->d.disks[0].nwaiters, 0);
	fx_free(f);
}

/* ---- who ---- */

Test(diagnosis, drivers_by_share_every_row_with_errors_and_waiters_by_wait)
{
	struct fx *f = fx_new();
	const struct diag_disk *d;
	struct proc_io *failing;

	disk(f, "loop3", 100 << 20, 25600, 99, 30);
	disk_errors(f, "loop3", IO_ERR_EIO, 1);
	row(f, 10, "small", "loop3", MKDEV(7, 3), 1 << 20, 5);
	row(f, 11, "fio", "loop3", MKDEV(7, 3), 90 << 20, 30);
	row(f, 12, "second", "loop3", MKDEV(7, 3), 5 << 20, 60);
	row(f, 13, "third", "loop3", MKDEV(7, 3), 3 << 20, 0);
	failing = row(f, 14, "tiny", "loop3", MKDEV(7, 3), 4096, 0);
	failing->delta[PMEM_ERRORS + IO_ERR_EIO] = 1;
	row(f, 15, "other", "vda", MKDEV(254, 0), 8 << 20, 90);
	row(f, 16, "waitonly", NULL, 0, 0, 45);
	disk(f, "vda", 8 << 20, 2048, 10, 0.1);
	diagnose(f);

	d = find_disk(f, "loop3");
	cr_assert_eq(d->state, DISK_FAILING);
	cr_assert_eq(d->ndrivers, 4, "the first three and the one with errors");
	cr_assert_eq(d->drivers[0].pid, 11);
	cr_assert_str_eq(d->drivers[0].comm, "fio");
	cr_assert_float_eq(d->drivers[0].share_pct, 90.0, 1e-9);
	cr_assert_eq(d->drivers[1].pid, 12);
	cr_assert_eq(d->drivers[2].pid, 13);
	cr_assert_eq(d->drivers[3].pid, 14);
	cr_assert_eq(d->drivers[3].nerrors, 1);
	cr_assert_str_eq(d->drivers[0].user, "alice");
	cr_assert_str_eq(d->drivers[0].cgroup, "/user.slice");
	cr_assert_str_eq(d->drivers[0].cmdline, "fio");
	cr_assert_eq(d->nwaiters, 2, "IO> of 20%% or more on loop3");
	cr_assert_eq(d->waiters[0].pid, 12);
	cr_assert_float_eq(d->waiters[0].iowait_pct, 60.0, 1e-6);
	cr_assert_eq(d->waiters[1].pid, 11);
	cr_assert_eq(find_disk(f, "vda")->nwaiters, 1, "a waiter belongs to its own disk");
	cr_assert_eq(f->d.nwaiters, 1);
	cr_assert_eq(f->d.waiters[0].pid, 16);
	fx_free(f);
}

Test(diagnosis, a_drivers_first_files_by_bytes)
{
	struct fx *f = fx_new();
	struct proc_io *r;
	const struct diag_proc *p;
	static const struct {
		const char *path;
		uint64_t bytes;
		bool unlinked;
	} files[] = {
		{ "/srv/a", 1 << 20, false }, { "/srv/b", 8 << 20, true },
		{ "/srv/c", 2 << 20, false }, { "/srv/d", 4096, false },
	};

	disk(f, "loop0", 16 << 20, 4096, 50, 0.5);
	r = row(f, 20, "writer", "loop0", MKDEV(7, 0), 16 << 20, 0);
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		struct file_row *fr = &f->files[f->frame.nfiles++];

		memset(fr, 0, sizeof(*fr));
		fr->tgid = 20;
		fr->comm_name = r->comm_name;
		fr->device_name = r->device_name;
		fr->path = files[i].path;
		fr->unlinked = files[i].unlinked;
		fr->bytes[IO_WRITE] = files[i].bytes;
	}
	/* another process's file on the same disk is not the writer's */
	f->files[f->frame.nfiles] = f->files[0];
	f->files[f->frame.nfiles].tgid = 21;
	f->files[f->frame.nfiles++].bytes[IO_WRITE] = 64 << 20;
	f->frame.files_on = true;
	diagnose(f);

	p = &find_disk(f, "loop0")->drivers[0];
	cr_assert_eq(p->nfiles, 3);
	cr_assert_str_eq(p->files[0].path, "/srv/b (deleted)");
	cr_assert_eq(p->files[0].bytes, 8 << 20);
	cr_assert_str_eq(p->files[1].path, "/srv/c");
	cr_assert_str_eq(p->files[2].path, "/srv/a");
	fx_free(f);
}

/* ---- the view ---- */

static int limit_found(uint32_t pid, uint32_t dev, char *text, size_t size)
{
	if (pid != 42 || dev != MKDEV(251, 1))
		return 0;
	snprintf(text, size, "read_iops=100 (blkio.throttle of /sys/fs/cgroup/blkio/t)");
	return 1;
}

/* The view over f's frame: its output, and whether it found trouble. */
static char *show(struct fx *f, bool json, diagnose_limit_fn limit_of, bool *trouble)
{
	struct summary s = { 0 };
	struct view v;
	struct cap c;

	flush(f);
	cr_assert_eq(view_diagnose(&v, cap_open(&c), NULL, json, 0, &f->rules, limit_of), 0);
	v.screen.utf8 = false;
	view_show_frame(&v, &f->frame);
	v.summary(&v, &s);
	*trouble = view_diagnose_status(&v) == EXIT_TROUBLE;
	view_diagnose_free(&v);
	cap_close(&c);
	return c.buf;
}

/* The first line of text, the sentence. */
static char *sentence(char *text)
{
	text[strcspn(text, "\n")] = '\0';
	return text;
}

Test(diagnose_view, no_io_at_all)
{
	struct fx *f = fx_new();
	bool trouble = true;
	char *out = show(f, false, NULL, &trouble);

	cr_assert_str_eq(sentence(out), "No disk is in trouble: no disk did I/O in the 10.0 s.");
	cr_assert_not(trouble);
	free(out);
	fx_free(f);
}

Test(diagnose_view, a_failing_disk_names_the_issuer_and_the_kinds)
{
	struct fx *f = fx_new();
	struct proc_io *r;
	bool trouble = false;
	char *out;

	disk(f, "loop3", 8 << 20, 200, 20, 0.3);
	disk_errors(f, "loop3", IO_ERR_ENOSPC, 24);
	disk_errors(f, "loop3", IO_ERR_EIO, 1);
	r = row(f, 812, "dd", "loop3", MKDEV(7, 3), 8 << 20, 0);
	r->delta[PMEM_ERRORS + IO_ERR_ENOSPC] = 24;
	free(r->cmdline);
	r->cmdline = strdup("dd if=/dev/zero of=/dev/loop3 oflag=direct");
	out = show(f, false, NULL, &trouble);
	cr_assert(trouble);
	cr_assert_str_eq(sentence(out), "loop3 is failing: 25 I/Os failed (EIO 1, ENOSPC 24); dd "
			 "(pid 812, alice, `dd if=/dev/zero of=/dev/loop3 oflag=direct`) issued "
			 "24 of them.");
	free(out);
	fx_free(f);
}

Test(diagnose_view, a_throttled_disk_names_its_waiter_and_the_limit)
{
	struct fx *f = fx_new();
	bool trouble = false;
	char *out;

	disk(f, "zram1", 400 << 10, 100, 2, 0.01);
	row(f, 42, "reader", "zram1", MKDEV(251, 1), 400 << 10, 95);
	out = show(f, false, limit_found, &trouble);
	cr_assert(trouble);
	cr_assert_str_eq(sentence(out), "zram1 is throttled: reader (pid 42, alice, `reader`) "
			 "waited on it 95% of the time while the disk was busy 2.0%; the limit: "
			 "read_iops=100 (blkio.throttle of /sys/fs/cgroup/blkio/t).");
	free(out);
	out = show(f, false, NULL, &trouble);
	cr_assert(strstr(out, "no cgroup limit is known in a replay"), "%s", out);
	free(out);
	fx_free(f);
}

/* issue 45: a waiter's cgroup's io.pressure, some, in the waiters' table
 * (CG_SOME), "-" where not known. */
Test(diagnose_view, the_waiters_table_has_their_cgroups_pressure)
{
	struct fx *f = fx_new();
	bool trouble = false;
	char *out;

	disk(f, "zram1", 400 << 10, 100, 2, 0.01);
	row(f, 42, "reader", "zram1", MKDEV(251, 1), 400 << 10, 95)->cgroup_pressure =
		(struct pressure_share){ true, 93.456, 90.0 };
	row(f, 43, "other", "zram1", MKDEV(251, 1), 4096, 50);
	out = show(f, false, NULL, &trouble);
	cr_assert(strstr(out, "    PID COMMAND         USER           IO> CG_SOME  CMDLINE\n"),
		  "%s", out);
	cr_assert(strstr(out, "     42 reader          alice       95.00%  93.46%  reader\n"),
		  "%s", out);
	cr_assert(strstr(out, "     43 other           alice       50.00%       -  other\n"),
		  "%s", out);
	free(out);
	fx_free(f);
}

Test(diagnose_view, a_saturated_disk_names_its_driver_and_waiters)
{
	struct fx *f = fx_new();
	bool trouble = false;
	char *out;

	disk(f, "loop3", 100 << 20, 25600, 99.5, 31.25);
	row(f, 812, "fio", "loop3", MKDEV(7, 3), 97 << 20, 70);
	row(f, 813, "cp", "loop3", MKDEV(7, 3), 3 << 20, 65);
	out = show(f, false, NULL, &trouble);
	cr_assert(trouble);
	cr_assert_str_eq(sentence(out), "loop3 is saturated (%util 99.5, aqu-sz 31.25) by fio "
			 "(pid 812, alice, `fio`): 97% of its bytes; 2 processes waited on it 20% "
			 "of the time or more.");
	free(out);
	fx_free(f);
}

Test(diagnose_view, nothing_in_trouble_names_the_busiest_disk)
{
	struct fx *f = fx_new();
	bool trouble = true;
	char *out;

	disk(f, "vda", 10 << 20, 2560, 12.5, 0.2);
	disk(f, "vdb", 1 << 20, 256, 50, 0.2);
	row(f, 7, "app", "vda", MKDEV(254, 0), 10 << 20, 0);
	out = show(f, false, NULL, &trouble);
	cr_assert_not(trouble);
	cr_assert_str_eq(sentence(out), "No disk is in trouble; the busiest, vda, was 12.5% busy "
			 "(0 B/s read, 1.0 MiB/s written); the first driver, app (pid 7, alice, "
			 "`app`): 100% of its bytes.");
	free(out);
	fx_free(f);
}

Test(diagnose_view, names_with_control_bytes_are_escaped_in_text)
{
	struct fx *f = fx_new();
	bool trouble;
	char *out;

	disk(f, "loop3", 100 << 20, 25600, 99.5, 31.25);
	row(f, 812, "evil\x1b[2J", "loop3", MKDEV(7, 3), 97 << 20, 0);
	out = show(f, false, NULL, &trouble);
	cr_assert_null(strchr(out, '\x1b'), "%s", out);
	cr_assert(strstr(out, "evil\\x1b[2J"), "%s", out);
	free(out);
	fx_free(f);
}

Test(diagnose_view, the_json_record)
{
	struct fx *f = fx_new();
	const struct jnode *disks, *d, *drivers, *p, *waiters;
	struct jnode root;
	bool trouble;
	struct proc_io *r;
	char *out;

	disk(f, "loop3", 8 << 20, 200, 20, 0.3);
	disk_errors(f, "loop3", IO_ERR_ENOSPC, 24);
	disk(f, "idle1", 0, 0, 0, 0);
	r = row(f, 812, "dd", "loop3", MKDEV(7, 3), 8 << 20, 40);
	r->delta[PMEM_ERRORS + IO_ERR_ENOSPC] = 24;
	r->cgroup_pressure = (struct pressure_share){ true, 35.5, 30.25 };
	f->frame.pressure_known = true;
	f->frame.pressure_some_pct = 12.5;
	f->frame.pressure_full_pct = 10;
	out = show(f, true, NULL, &trouble);
	json_parse_line(out, strlen(out), &root);
	cr_assert(jstr_is(jmust(&root, "type", J_STR), "diagnosis", 9));
	cr_assert_float_eq(jkey_double(&root, "duration_s"), 10.0, 1e-9);
	cr_assert_eq(jmust(&root, "trouble", J_TRUE)->type, J_TRUE);
	cr_assert_eq(jmust(&root, "partial", J_FALSE)->type, J_FALSE);
	cr_assert(!strncmp(jmust(&root, "verdict", J_STR)->str, "loop3 is failing", 16));
	cr_assert_float_eq(jkey_double(jmust(&root, "pressure", J_OBJ), "some"), 12.5, 1e-9);
	disks = jmust(&root, "disks", J_ARR);
	cr_assert_eq(disks->nkids, 1, "idle disks are left out");
	d = &disks->kids[0];
	cr_assert(jstr_is(jmust(d, "device", J_STR), "loop3", 5));
	cr_assert(jstr_is(jmust(d, "state", J_STR), "failing", 7));
	cr_assert_float_eq(jkey_double(d, "util_pct"), 20.0, 1e-9);
	cr_assert_float_eq(jkey_double(d, "aqu_sz"), 0.3, 1e-9);
	cr_assert_float_eq(jkey_double(d, "w_await_ms"), 2.5, 1e-9);
	cr_assert_eq(jkey_u64(jmust(d, "errors", J_OBJ), "ENOSPC"), 24);
	cr_assert_eq(jmust(d, "errors", J_OBJ)->nkids, 1);
	cr_assert_eq(jmust(d, "limit", J_NULL)->type, J_NULL);
	drivers = jmust(d, "drivers", J_ARR);
	cr_assert_eq(drivers->nkids, 1);
	p = &drivers->kids[0];
	cr_assert_eq(jkey_u64(p, "pid"), 812);
	cr_assert(jstr_is(jmust(p, "comm", J_STR), "dd", 2));
	cr_assert(jstr_is(jmust(p, "user", J_STR), "alice", 5));
	cr_assert(jstr_is(jmust(p, "cmdline", J_STR), "dd", 2));
	cr_assert(jstr_is(jmust(p, "cgroup", J_STR), "/user.slice", 11));
	cr_assert_eq(jkey_u64(p, "write_bytes"), 8 << 20);
	cr_assert_float_eq(jkey_double(p, "share_pct"), 100.0, 1e-9);
	cr_assert_eq(jkey_u64(jmust(p, "errors", J_OBJ), "ENOSPC"), 24);
	cr_assert_eq(jmust(p, "files", J_ARR)->nkids, 0);
	cr_assert_float_eq(jkey_double(jmust(p, "cgroup_pressure", J_OBJ), "some"), 35.5, 1e-9);
	cr_assert_float_eq(jkey_double(jmust(p, "cgroup_pressure", J_OBJ), "full"), 30.25, 1e-9);
	waiters = jmust(d, "waiters", J_ARR);
	cr_assert_eq(waiters->nkids, 1);
	cr_assert_float_eq(jkey_double(&waiters->kids[0], "iowait_pct"), 40.0, 1e-6);
	cr_assert_float_eq(jkey_double(jmust(&waiters->kids[0], "cgroup_pressure", J_OBJ),
				       "some"), 35.5, 1e-9);
	cr_assert_eq(jmust(&root, "waiters_without_io", J_ARR)->nkids, 0);
	j_free(&root);
	free(out);
	fx_free(f);
}

/* ---- cgroup limits, in a tree of the test's own ---- */

static void put(const char *root, const char *rel, const char *text)
{
	char path[512], dir[512];
	FILE *out;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	for (char *slash = strchr(path + strlen(root) + 1, '/'); slash;
	     slash = strchr(slash + 1, '/')) {
		snprintf(dir, sizeof(dir), "%.*s", (int)(slash - path), path);
		mkdir(dir, 0755);
	}
	out = fopen(path, "w");
	cr_assert_not_null(out, "%s: %s", path, strerror(errno));
	fputs(text, out);
	fclose(out);
}

static int remove_one(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	(void)st;
	(void)type;
	(void)ftw;
	return remove(path);
}

static void remove_tree(const char *root)
{
	nftw(root, remove_one, 16, FTW_DEPTH | FTW_PHYS);
}

static void tree(char *root, size_t size)
{
	char mounts[1024];

	snprintf(root, size, "/tmp/diskio-test-limits-XXXXXX");
	cr_assert_not_null(mkdtemp(root));
	snprintf(mounts, sizeof(mounts),
		 "cgroup2 %s/unified cgroup2 rw,nosuid 0 0\n"
		 "cgroup %s/blkio cgroup rw,relatime,blkio 0 0\n"
		 "cgroup %s/cpu cgroup rw,relatime,cpu,cpuacct 0 0\n", root, root, root);
	put(root, "mounts", mounts);
	put(root, "proc/42/cgroup", "9:cpu,cpuacct:/\n7:blkio:/jail/inner\n0::/svc/app\n");
	put(root, "proc/43/cgroup", "7:blkio:/\n0::/\n");
}

static int find(const char *root, uint32_t pid, uint32_t major, uint32_t minor, char *text,
		size_t size)
{
	char proc[512], mounts[512];

	snprintf(proc, sizeof(proc), "%s/proc", root);
	snprintf(mounts, sizeof(mounts), "%s/mounts", root);
	return io_limit_find(proc, mounts, pid, major, minor, text, size);
}

Test(io_limits, v2_io_max_of_the_group_or_a_parent)
{
	char root[64], text[512], want[512];

	tree(root, sizeof(root));
	put(root, "unified/svc/io.max", "251:1 rbps=max wbps=1048576 riops=100 wiops=max\n"
					"8:0 rbps=5 wbps=max riops=max wiops=max\n");
	put(root, "unified/svc/app/io.max", "8:0 rbps=max wbps=max riops=max wiops=max\n");
	cr_assert_eq(find(root, 42, 251, 1, text, sizeof(text)), 1);
	snprintf(want, sizeof(want), "wbps=1048576 riops=100 (io.max of %s/unified/svc)", root);
	cr_assert_str_eq(text, want);
	cr_assert_eq(find(root, 42, 251, 2, text, sizeof(text)), 0, "another disk: %s", text);
	cr_assert_eq(find(root, 43, 251, 1, text, sizeof(text)), 0, "another group: %s", text);
	cr_assert_eq(find(root, 44, 251, 1, text, sizeof(text)), 0, "a process gone");
	remove_tree(root);
}

Test(io_limits, v1_blkio_throttle_when_v2_sets_none)
{
	char root[64], text[512], want[512];

	tree(root, sizeof(root));
	put(root, "blkio/jail/blkio.throttle.read_iops_device", "251:1 100\n");
	put(root, "blkio/jail/blkio.throttle.write_bps_device", "251:1 4096\n7:0 9\n");
	put(root, "blkio/jail/inner/blkio.throttle.read_iops_device", "");
	cr_assert_eq(find(root, 42, 251, 1, text, sizeof(text)), 1);
	snprintf(want, sizeof(want), "write_bps=4096 read_iops=100 (blkio.throttle of %s/blkio/jail)",
		 root);
	cr_assert_str_eq(text, want);
	remove_tree(root);
}
