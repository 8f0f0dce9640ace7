// SPDX-License-Identifier: GPL-2.0
/* procs/pressure.c: /proc/pressure/io parsed, and an interval's share; a
 * cgroup's io.pressure in a fake tree, one group or the walk of them all. */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <errno.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pressure.h"

static const char sample[] =
	"some avg10=1.50 avg60=0.20 avg300=1.39 total=362976302\n"
	"full avg10=0.01 avg60=0.11 avg300=0.83 total=211227571\n";

Test(pressure, parses_some_and_full_totals)
{
	struct io_pressure p;

	cr_assert_eq(pressure_parse(sample, &p), 0);
	cr_assert(p.known);
	cr_assert_eq(p.some_us, 362976302);
	cr_assert_eq(p.full_us, 211227571);
}

Test(pressure, a_kernel_without_full_has_some_only)
{
	struct io_pressure p;

	cr_assert_eq(pressure_parse("some avg10=0.00 avg60=0.00 avg300=0.00 total=77\n", &p), 0);
	cr_assert(p.known);
	cr_assert_eq(p.some_us, 77);
	cr_assert_eq(p.full_us, 0);
}

Test(pressure, bad_text_is_unknown)
{
	static const char *const bad[] = {
		"", "full avg10=0 total=5\n", "some avg10=0.00\n", "some total=\n",
		"some total=12x\n", "somewhere total=5\n", "some total=99999999999999999999999\n",
	};
	struct io_pressure p;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		cr_assert_eq(pressure_parse(bad[i], &p), -EINVAL, "%s", bad[i]);
		cr_assert(!p.known);
	}
}

Test(pressure, an_interval_share_is_the_totals_change)
{
	struct io_pressure a = { true, 1000, 500 }, b = { true, 251000, 100500 }, unknown = { 0 };
	double some, full;

	/* 250 ms and 100 ms stalled in one second */
	cr_assert(pressure_pct(&a, &b, 1000000000, &some, &full));
	cr_assert_float_eq(some, 25.0, 1e-9);
	cr_assert_float_eq(full, 10.0, 1e-9);
	/* never above 100, never below 0 (a total that went back) */
	cr_assert(pressure_pct(&a, &b, 1000000, &some, &full));
	cr_assert_float_eq(some, 100.0, 1e-9);
	cr_assert(pressure_pct(&b, &a, 1000000000, &some, &full));
	cr_assert_float_eq(some, 0.0, 1e-9);
	cr_assert(!pressure_pct(&unknown, &b, 1000000000, &some, &full));
	cr_assert(!pressure_pct(&a, &b, 0, &some, &full));
}

Test(pressure, a_missing_file_is_an_error)
{
	struct io_pressure p;
	char path[] = "/tmp/diskio-pressure-XXXXXX";
	int fd = mkstemp(path);

	cr_assert_eq(pressure_read("/nonexistent/pressure/io", &p), -ENOENT);
	cr_assert(!p.known);
	cr_assert_geq(fd, 0);
	cr_assert_eq(write(fd, sample, sizeof(sample) - 1), (ssize_t)sizeof(sample) - 1);
	close(fd);
	cr_assert_eq(pressure_read(path, &p), 0);
	cr_assert_eq(p.full_us, 211227571);
	unlink(path);
}

/* ---- a cgroup's io.pressure ---- */

static char tree[64];

static void tree_file(const char *rel, const char *text)
{
	char path[PATH_MAX];
	FILE *file;

	snprintf(path, sizeof(path), "%s%s/io.pressure", tree, rel);
	file = fopen(path, "w");
	cr_assert_not_null(file, "%s", path);
	cr_assert_geq(fputs(text, file), 0);
	cr_assert_eq(fclose(file), 0);
}

static uint64_t tree_dir(const char *rel)
{
	char path[PATH_MAX];
	struct stat st;

	snprintf(path, sizeof(path), "%s%s", tree, rel);
	if (rel[0])
		cr_assert_eq(mkdir(path, 0755), 0, "%s", path);
	cr_assert_eq(stat(path, &st), 0);
	return st.st_ino;
}

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

static void make_tree(void)
{
	snprintf(tree, sizeof(tree), "/tmp/diskio-pressure-tree-XXXXXX");
	cr_assert_not_null(mkdtemp(tree));
}

static void remove_tree(void)
{
	nftw(tree, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

Test(cgroup_pressure_file, a_group_by_its_path_and_the_root_as_slash,
     .init = make_tree, .fini = remove_tree)
{
	struct io_pressure p;

	tree_dir("");
	tree_dir("/system.slice");
	tree_dir("/system.slice/x.service");
	tree_file("", sample);
	tree_file("/system.slice/x.service",
		  "some avg10=0.00 avg60=0.00 avg300=0.00 total=41\n"
		  "full avg10=0.00 avg60=0.00 avg300=0.00 total=7\n");
	cr_assert_eq(cgroup_pressure_read(tree, "/", &p), 0);
	cr_assert_eq(p.some_us, 362976302);
	cr_assert_eq(cgroup_pressure_read(tree, "/system.slice/x.service", &p), 0);
	cr_assert(p.known);
	cr_assert_eq(p.some_us, 41);
	cr_assert_eq(p.full_us, 7);
	/* a group without the file (the root before 5.2, cgroup.pressure 0) */
	cr_assert_eq(cgroup_pressure_read(tree, "/system.slice", &p), -ENOENT);
	cr_assert(!p.known);
	cr_assert_eq(cgroup_pressure_read(tree, "/gone", &p), -ENOENT);
	tree_file("/system.slice", "some total=\n");
	cr_assert_eq(cgroup_pressure_read(tree, "/system.slice", &p), -EINVAL);
	cr_assert(!p.known);
}

struct seen {
	uint64_t ids[8];
	struct io_pressure p[8];
	int n;
};

static void note(uint64_t id, const struct io_pressure *p, void *arg)
{
	struct seen *s = arg;

	cr_assert_lt(s->n, 8);
	s->ids[s->n] = id;
	s->p[s->n++] = *p;
}

Test(cgroup_pressure_file, the_walk_reads_every_group_once,
     .init = make_tree, .fini = remove_tree)
{
	uint64_t ids[3];
	struct seen s = { .n = 0 };

	ids[0] = tree_dir("");
	ids[1] = tree_dir("/a");
	ids[2] = tree_dir("/a/b");
	tree_file("/a/b", "some avg10=0.00 total=5\nfull avg10=0.00 total=3\n");
	tree_file("/a", "garbage\n");
	cr_assert_eq(cgroup_pressure_walk(tree, note, &s), 3);
	cr_assert_eq(s.n, 3);
	for (int i = 0; i < 3; i++) {
		int k = 0;

		while (k < s.n && s.ids[k] != ids[i])
			k++;
		cr_assert_lt(k, s.n, "group %d not visited", i);
		cr_assert_eq(s.p[k].known, i == 2, "group %d", i);
		if (i == 2)
			cr_assert_eq(s.p[k].some_us + s.p[k].full_us, 8);
	}
	s.n = 0;
	cr_assert_eq(cgroup_pressure_walk("/nonexistent/diskio-cgroup", note, &s), 0);
	cr_assert_eq(s.n, 0);
}
