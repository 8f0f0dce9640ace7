// SPDX-License-Identifier: GPL-2.0
/*
 * step/cgroup_pressure.c (issue 45): the rows' cgroups' io.pressure as
 * shares of an interval, over a fake cgroup tree in /tmp whose files the
 * tests write between steps: a group first seen is unknown, then exact;
 * one reading per group a step; the walk at the start; -a; the bound.
 */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <ftw.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cgroup_pressure.h"

#define SECOND UINT64_C(1000000000)
#define T0 (100 * SECOND)
#define AT(step) (T0 + (uint64_t)(step) * SECOND)

static char root[64];

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

static void make_root(void)
{
	snprintf(root, sizeof(root), "/tmp/diskio-cgroup-pressure-XXXXXX");
	cr_assert_not_null(mkdtemp(root));
}

static void remove_root(void)
{
	if (root[0])
		nftw(root, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
	root[0] = '\0';
}

TestSuite(cgroup_pressure, .init = make_root, .fini = remove_root);

/* A group (path relative to the mount, "" the root) and its id. */
static uint64_t group(const char *path)
{
	char full[PATH_MAX];
	struct stat st;

	snprintf(full, sizeof(full), "%s%s", root, path);
	if (path[0])
		cr_assert_eq(mkdir(full, 0755), 0, "%s", full);
	cr_assert_eq(stat(full, &st), 0);
	return st.st_ino;
}

static void put_text(const char *path, const char *text)
{
	char full[PATH_MAX];
	FILE *file;

	snprintf(full, sizeof(full), "%s%s/io.pressure", root, path);
	file = fopen(full, "w");
	cr_assert_not_null(file, "%s", full);
	cr_assert_geq(fputs(text, file), 0);
	cr_assert_eq(fclose(file), 0);
}

/* path's io.pressure: totals some_us and full_us, as the kernel writes them. */
static void put(const char *path, uint64_t some_us, uint64_t full_us)
{
	char text[256];

	snprintf(text, sizeof(text),
		 "some avg10=0.00 avg60=0.00 avg300=0.00 total=%" PRIu64 "\n"
		 "full avg10=0.00 avg60=0.00 avg300=0.00 total=%" PRIu64 "\n", some_us, full_us);
	put_text(path, text);
}

struct fixture {
	struct cgroup_names names;
	struct cgroup_pressures p;
};

static void start(struct fixture *f, size_t max)
{
	cgroup_names_init(&f->names, root);
	cgroup_pressure_init(&f->p, &f->names, max, T0);
}

static void finish(struct fixture *f)
{
	cgroup_pressure_free(&f->p);
	cgroup_names_free(&f->names);
}

/* The share of id in step n, asked once. */
static struct pressure_share one_step(struct fixture *f, int n, uint64_t id, bool cumulative)
{
	struct pressure_share share;

	cgroup_names_refresh(&f->names);
	cgroup_pressure_begin(&f->p, AT(n));
	share = cgroup_pressure_of(&f->p, id, cumulative);
	cgroup_pressure_end(&f->p, cumulative);
	return share;
}

static void expect_share(struct pressure_share s, double some, double full)
{
	cr_assert(s.known, "not known");
	cr_expect_float_eq(s.some_pct, some, 1e-9, "some %f, not %f", s.some_pct, some);
	cr_expect_float_eq(s.full_pct, full, 1e-9, "full %f, not %f", s.full_pct, full);
}

Test(cgroup_pressure, a_group_first_seen_is_unknown_then_its_change_over_the_interval)
{
	uint64_t id = group("/batch");
	struct fixture f;

	start(&f, 0);
	put("/batch", 5000000, 1000000);
	cr_assert_not(one_step(&f, 1, id, false).known, "no reading before: not a guess");
	/* 250 ms of some and 100 ms of full stall in the next second */
	put("/batch", 5250000, 1100000);
	expect_share(one_step(&f, 2, id, false), 25.0, 10.0);
	/* the share is of this interval only: 2 s, 1.5 s stalled */
	put("/batch", 6750000, 1100000);
	cgroup_pressure_begin(&f.p, AT(4));
	expect_share(cgroup_pressure_of(&f.p, id, false), 75.0, 0.0);
	cgroup_pressure_end(&f.p, false);
	finish(&f);
}

Test(cgroup_pressure, a_group_is_read_once_a_step_however_many_rows_it_has)
{
	uint64_t id = group("/db");
	struct pressure_share first, second;
	struct fixture f;

	start(&f, 0);
	put("/db", 0, 0);
	one_step(&f, 1, id, false);
	put("/db", 500000, 0);
	cgroup_pressure_begin(&f.p, AT(2));
	first = cgroup_pressure_of(&f.p, id, false);
	/* a second row of the group, after the file changed: the same figure */
	put("/db", 900000, 0);
	second = cgroup_pressure_of(&f.p, id, false);
	cgroup_pressure_end(&f.p, false);
	expect_share(first, 50.0, 0.0);
	expect_share(second, 50.0, 0.0);
	finish(&f);
}

Test(cgroup_pressure, the_walk_at_the_start_is_the_baseline_of_every_group)
{
	uint64_t old = group("/old"), root_id = group(""), young, later;
	struct fixture f;

	put("", 7000000, 3000000);
	put("/old", 1000000, 0);
	start(&f, 0);
	cr_assert_eq(cgroup_pressure_baseline(&f.p), 0);
	cr_assert(f.p.have_every_start);
	/* made after the walk: PSI counts it from zero */
	young = group("/young");
	put("/young", 400000, 200000);
	put("/old", 1800000, 500000);
	put("", 7900000, 3000000);
	cgroup_names_refresh(&f.names);
	cgroup_pressure_begin(&f.p, AT(2));	/* a 2 s window, as --diagnose=2 */
	expect_share(cgroup_pressure_of(&f.p, old, false), 40.0, 25.0);
	expect_share(cgroup_pressure_of(&f.p, young, false), 20.0, 10.0);
	expect_share(cgroup_pressure_of(&f.p, root_id, false), 45.0, 0.0);
	cgroup_pressure_end(&f.p, false);
	/* after the first interval a group first seen is unknown again: when
	 * in the interval it was made is not known */
	later = group("/later");
	put("/later", 100000, 0);
	cr_assert_not(one_step(&f, 3, later, false).known);
	finish(&f);
}

Test(cgroup_pressure, with_a_the_share_is_of_the_run)
{
	uint64_t id = group("/a");
	struct fixture f;

	put("/a", 0, 0);
	start(&f, 0);
	cr_assert_eq(cgroup_pressure_baseline(&f.p), 0);
	put("/a", 1000000, 0);
	expect_share(one_step(&f, 1, id, true), 100.0, 0.0);
	put("/a", 1500000, 0);
	expect_share(one_step(&f, 2, id, true), 75.0, 0.0);
	/* not asked for in many steps: -a keeps its reading of the start */
	for (int n = 3; n < 3 + 2 * CGROUP_PRESSURE_KEEP_STEPS; n++)
		one_step(&f, n, 0, true);
	put("/a", 2300000, 0);
	expect_share(one_step(&f, 23, id, true), 10.0, 0.0);
	finish(&f);
}

Test(cgroup_pressure, without_the_walk_a_has_no_baseline)
{
	uint64_t id = group("/a");
	struct fixture f;

	put("/a", 0, 0);
	start(&f, 0);
	cr_assert_not(one_step(&f, 1, id, true).known);
	put("/a", 1000000, 0);
	cr_assert_not(one_step(&f, 2, id, true).known);
	finish(&f);
}

Test(cgroup_pressure, a_group_whose_rows_skip_an_interval_is_read_meanwhile)
{
	uint64_t id = group("/web");
	struct fixture f;

	start(&f, 0);
	put("/web", 0, 0);
	one_step(&f, 1, id, false);
	one_step(&f, 2, id, false);
	put("/web", 2000000, 0);
	one_step(&f, 3, 0, false);	/* no row of it: read at the step's end */
	put("/web", 2300000, 0);
	expect_share(one_step(&f, 4, id, false), 30.0, 0.0);
	finish(&f);
}

Test(cgroup_pressure, groups_are_bounded_and_dropped_when_unseen)
{
	uint64_t a = group("/a"), b = group("/b"), c = group("/c");
	struct fixture f;

	put("/a", 0, 0);
	put("/b", 0, 0);
	put("/c", 0, 0);
	start(&f, 2);
	cgroup_pressure_begin(&f.p, AT(1));
	cgroup_pressure_of(&f.p, a, false);
	cgroup_pressure_of(&f.p, b, false);
	cgroup_pressure_of(&f.p, c, false);
	cgroup_pressure_end(&f.p, false);
	cr_assert_eq(f.p.count, 2, "at most 2 groups kept");
	put("/c", 100000, 0);
	cr_assert_not(one_step(&f, 2, c, false).known, "c is beyond the bound: unknown");
	/* a and b, not seen for CGROUP_PRESSURE_KEEP_STEPS steps, go */
	for (int n = 3; n < 2 + CGROUP_PRESSURE_KEEP_STEPS; n++)
		one_step(&f, n, 0, false);
	cr_assert_eq(f.p.count, 0, "%zu groups kept", f.p.count);
	/* room for c: first seen now, known at the next step */
	cr_assert_not(one_step(&f, 20, c, false).known);
	put("/c", 600000, 0);
	expect_share(one_step(&f, 21, c, false), 50.0, 0.0);
	finish(&f);
}

Test(cgroup_pressure, a_walk_group_dropped_means_a_new_group_is_not_from_zero)
{
	uint64_t a = group("/a");
	struct fixture f;

	put("/a", 0, 0);
	start(&f, 0);
	cr_assert_eq(cgroup_pressure_baseline(&f.p), 0);
	one_step(&f, 1, 0, false);	/* /a not asked for: dropped */
	cr_assert_not(f.p.have_every_start);
	put("/a", 500000, 0);
	cr_assert_not(one_step(&f, 2, a, false).known, "/a is old: not counted from zero");
	finish(&f);
}

Test(cgroup_pressure, a_bad_or_missing_file_is_unknown)
{
	uint64_t bad = group("/bad"), none = group("/none"), gone = group("/gone");
	char path[PATH_MAX];
	struct fixture f;

	start(&f, 0);
	put_text("/bad", "some avg10=0.00 total=12x\n");
	put("/gone", 0, 0);
	for (int n = 1; n <= 3; n++) {
		cgroup_names_refresh(&f.names);
		cgroup_pressure_begin(&f.p, AT(n));
		cr_assert_not(cgroup_pressure_of(&f.p, bad, false).known);
		cr_assert_not(cgroup_pressure_of(&f.p, none, false).known);
		cr_assert_not(cgroup_pressure_of(&f.p, 987654321, false).known, "no such group");
		cr_assert_not(cgroup_pressure_of(&f.p, 0, false).known, "no cgroup");
		cgroup_pressure_of(&f.p, gone, false);
		cgroup_pressure_end(&f.p, false);
	}
	snprintf(path, sizeof(path), "%s/gone/io.pressure", root);
	cr_assert_eq(unlink(path), 0);
	cr_assert_not(one_step(&f, 4, gone, false).known, "its file went");
	finish(&f);
}

Test(cgroup_pressure, no_cgroup2_mount_is_unknown)
{
	struct cgroup_names names;
	struct cgroup_pressures p;

	cgroup_names_init(&names, "");
	cgroup_pressure_init(&p, &names, 0, T0);
	cr_assert_eq(cgroup_pressure_baseline(&p), 0);
	cgroup_pressure_begin(&p, AT(1));
	cr_assert_not(cgroup_pressure_of(&p, 42, false).known);
	cgroup_pressure_end(&p, false);
	cr_assert_eq(p.count, 0);
	cgroup_pressure_free(&p);
	cgroup_names_free(&names);
}
