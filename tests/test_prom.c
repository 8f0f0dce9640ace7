// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of --prom (prom.c): totals across intervals, the cap per
 * device with "other", idle series dropped, label escaping, histograms,
 * losses, crash counts, a checker of the exposition format independent of
 * the code under test, and the atomic writer keeping the old file on
 * failure.
 */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "json_check.h"
#include "atomic_file.h"
#include "prom.h"

#define NAMES_SIZE	65536
#define MAXROWS		64
#define NS_PER_S	1000000000ULL

struct fx {
	void *names_buf;
	struct res_table names;
	struct pmem_metrics pm;
	struct crashfree cf;
	struct proc_io rows[MAXROWS];
	struct proc_io *ptrs[MAXROWS];
	struct frame frame;
	struct prom_totals prom;
};

static struct fx *fx_new(uint32_t max_rows, uint64_t idle_ns)
{
	struct fx *f = calloc(1, sizeof(*f));
	struct prom_config config = {
		.max_rows = max_rows, .idle_ns = idle_ns, .dirtied = true, .version = "0.1",
	};

	cr_assert_not_null(f);
	f->names_buf = malloc(NAMES_SIZE);
	cr_assert_not_null(f->names_buf);
	cr_assert_eq(res_table_init(&f->names, f->names_buf, NAMES_SIZE, 1024), RES_OK);
	pmem_init(&f->pm);
	crashfree_init(&f->cf, 3600 * NS_PER_S, 0);
	f->frame.rows = f->ptrs;
	f->frame.names = &f->names;
	f->frame.devices = &f->pm;
	f->frame.crash = &f->cf;
	prom_init(&f->prom, &config);
	return f;
}

static void fx_free(struct fx *f)
{
	prom_free(&f->prom);
	pmem_free(&f->pm);
	crashfree_free(&f->cf);
	free(f->names_buf);
	free(f);
}

/* The next frame: no rows, no losses. */
static void fx_next(struct fx *f)
{
	f->frame.nrows = 0;
	memset(f->frame.lost, 0, sizeof(f->frame.lost));
}

/* A row of this interval: wb bytes written in wb / 4096 I/Os, rb read. */
static struct proc_io *fx_row(struct fx *f, const char *comm, size_t comm_len, const char *device,
			      uint64_t rb, uint64_t wb)
{
	struct proc_io *row;

	cr_assert_lt(f->frame.nrows, MAXROWS);
	row = &f->rows[f->frame.nrows];
	memset(row, 0, sizeof(*row));
	cr_assert_eq(res_intern(&f->names, comm, comm_len, &row->comm_name), RES_OK);
	cr_assert_eq(res_intern_str(&f->names, device, &row->device_name), RES_OK);
	row->delta[PMEM_READ_BYTES] = rb;
	row->delta[PMEM_WRITE_BYTES] = wb;
	row->delta[PMEM_READ_IOS] = rb / 4096;
	row->delta[PMEM_WRITE_IOS] = wb / 4096;
	f->ptrs[f->frame.nrows++] = row;
	return row;
}

static char *render(const struct fx *f)
{
	struct cap c;

	cr_assert_eq(prom_render(cap_open(&c), &f->prom, &f->pm, &f->cf), 0);
	cap_close(&c);
	return c.buf;
}

/* The value of the sample whose line starts with "name{labels} "; -1 when
 * there is none. */
static long long sample(const char *text, const char *series)
{
	size_t len = strlen(series);

	for (const char *p = text; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL)
		if (!strncmp(p, series, len) && p[len] == ' ')
			return strtoll(p + len + 1, NULL, 10);
	return -1;
}

/* Lines starting with prefix. */
static size_t count_lines(const char *text, const char *prefix)
{
	size_t n = 0, len = strlen(prefix);

	for (const char *p = text; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL)
		n += !strncmp(p, prefix, len);
	return n;
}

/* ---- an exposition format checker, written from the format's spec ---- */

static bool name_char(char c, bool first)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == ':' ||
	       (!first && c >= '0' && c <= '9');
}

/* A metric or label name at *p; its length, 0 if none. */
static size_t name_at(const char *p)
{
	size_t n = 0;

	while (name_char(p[n], n == 0))
		n++;
	return n;
}

/* {a="x",b="y\"z"} at *p: advances past it; false when malformed. */
static bool labels_at(const char **p)
{
	const char *s = *p;

	if (*s != '{')
		return true;
	s++;
	while (*s != '}') {
		size_t n = name_at(s);

		if (!n || s[n] != '=' || s[n + 1] != '"')
			return false;
		s += n + 2;
		while (*s != '"') {
			if (!*s || *s == '\n')
				return false;
			if (*s == '\\') {
				if (s[1] != '\\' && s[1] != '"' && s[1] != 'n')
					return false;
				s++;
			}
			s++;
		}
		s++;
		if (*s == ',')
			s++;
		else if (*s != '}')
			return false;
	}
	*p = s + 1;
	return true;
}

/*
 * Every line a HELP, a TYPE or a sample "name{labels} value" with an
 * integer or decimal value; a family's HELP and TYPE before its samples,
 * each once; no sample twice; the last line "diskio_up" (with --prom-label's labels, if
 * any) 1 or 0.  The number of samples.
 */
static size_t check_exposition(const char *text)
{
	char typed[256][128];
	size_t ntyped = 0, nsamples = 0;
	char **seen = NULL;
	const char *last = NULL;

	cr_assert(*text && text[strlen(text) - 1] == '\n', "the file ends without a newline");
	for (const char *p = text; *p; p = strchr(p, '\n') + 1) {
		size_t len = strchr(p, '\n') - p, n;
		const char *s = p;

		last = p;
		if (!strncmp(p, "# HELP ", 7) || !strncmp(p, "# TYPE ", 7)) {
			n = name_at(p + 7);
			cr_assert(n && p[7 + n] == ' ', "bad line: %.*s", (int)len, p);
			if (p[2] == 'T') {
				const char *type = p + 8 + n;

				cr_assert(!strncmp(type, "counter\n", 8) || !strncmp(type, "gauge\n", 6) ||
					  !strncmp(type, "histogram\n", 10), "type: %.*s", (int)len, p);
				for (size_t i = 0; i < ntyped; i++)
					cr_assert(strncmp(typed[i], p + 7, n) || typed[i][n],
						  "TYPE twice: %.*s", (int)len, p);
				cr_assert_lt(ntyped, 256);
				cr_assert_lt(n, 128);
				memcpy(typed[ntyped], p + 7, n);
				typed[ntyped++][n] = '\0';
			}
			continue;
		}
		cr_assert_neq(*p, '#', "a comment that is neither HELP nor TYPE: %.*s", (int)len, p);
		n = name_at(s);
		cr_assert(n, "no metric name: %.*s", (int)len, p);
		{
			bool known = false;

			for (size_t i = 0; i < ntyped; i++) {
				size_t tl = strlen(typed[i]);

				known |= tl <= n && !strncmp(typed[i], s, tl) &&
					 (tl == n || !strncmp(s + tl, "_bucket", n - tl) ||
					  !strncmp(s + tl, "_sum", n - tl) ||
					  !strncmp(s + tl, "_count", n - tl));
			}
			cr_assert(known, "a sample before its TYPE: %.*s", (int)len, p);
		}
		s += n;
		cr_assert(labels_at(&s), "bad labels: %.*s", (int)len, p);
		cr_assert_eq(*s, ' ', "no space before the value: %.*s", (int)len, p);
		s++;
		cr_assert(strspn(s, "0123456789.") == (size_t)(p + len - s) && s < p + len,
			  "bad value: %.*s", (int)len, p);
		seen = realloc(seen, (nsamples + 1) * sizeof(*seen));
		cr_assert_not_null(seen);
		seen[nsamples] = strndup(p, s - 1 - p);
		for (size_t i = 0; i < nsamples; i++)
			cr_assert_str_neq(seen[i], seen[nsamples], "a sample twice: %s", seen[i]);
		nsamples++;
	}
	cr_assert(last && !strncmp(last, "diskio_up", 9) && (last[9] == ' ' || last[9] == '{') &&
		  (!strcmp(last + strlen(last) - 3, " 1\n") ||
		   !strcmp(last + strlen(last) - 3, " 0\n")), "the last line: %s", last);
	for (size_t i = 0; i < nsamples; i++)
		free(seen[i]);
	free(seen);
	return nsamples;
}

/* ---- totals ---- */

Test(prom_totals, add_up_across_intervals)
{
	struct fx *f = fx_new(0, 0);
	char *text;

	fx_row(f, "dd", 2, "zram0", 4096, 8192);
	prom_add_frame(&f->prom, &f->frame, 1 * NS_PER_S);
	fx_next(f);
	fx_row(f, "dd", 2, "zram0", 0, 4096);
	fx_row(f, "fio", 3, "zram0", 12288, 0);
	prom_add_frame(&f->prom, &f->frame, 2 * NS_PER_S);
	text = render(f);
	check_exposition(text);
	cr_assert_eq(sample(text, "diskio_write_bytes_total{device=\"zram0\",comm=\"dd\"}"), 12288);
	cr_assert_eq(sample(text, "diskio_read_bytes_total{device=\"zram0\",comm=\"dd\"}"), 4096);
	cr_assert_eq(sample(text, "diskio_ios_total{device=\"zram0\",comm=\"dd\",op=\"write\"}"), 3);
	cr_assert_eq(sample(text, "diskio_ios_total{device=\"zram0\",comm=\"fio\",op=\"read\"}"), 3);
	cr_assert_eq(sample(text, "diskio_dirtied_bytes_total{device=\"zram0\",comm=\"fio\"}"), 0);
	cr_assert_eq(sample(text, "diskio_build_info{version=\"0.1\"}"), 1);
	free(text);
	fx_free(f);
}

/* IO>: the seconds each series' processes waited, summed over intervals,
 * a process that only waited on device "-"; none counted where not known,
 * and no family at all until a frame knew it. */
Test(prom_totals, iowait_seconds_add_up)
{
	struct fx *f = fx_new(0, 0);
	char *text;
	const char *line;

	fx_row(f, "dd", 2, "zram0", 4096, 0)->wait_delta.blkio_ns = 250000000;
	prom_add_frame(&f->prom, &f->frame, 1 * NS_PER_S);
	text = render(f);
	cr_assert_null(strstr(text, "diskio_process_iowait_seconds_total"), "not measured");
	free(text);
	fx_next(f);
	f->frame.iowait_known = true;
	fx_row(f, "dd", 2, "zram0", 4096, 0)->wait_delta.blkio_ns = 750000000;
	fx_row(f, "db", 2, "-", 0, 0)->wait_delta.blkio_ns = 1500000000;
	prom_add_frame(&f->prom, &f->frame, 2 * NS_PER_S);
	fx_next(f);
	fx_row(f, "dd", 2, "zram0", 0, 0)->wait_delta.blkio_ns = 1000;
	prom_add_frame(&f->prom, &f->frame, 3 * NS_PER_S);
	text = render(f);
	check_exposition(text);
	cr_assert_not_null(strstr(text, "# TYPE diskio_process_iowait_seconds_total counter\n"));
	line = strstr(text, "diskio_process_iowait_seconds_total{device=\"zram0\",comm=\"dd\"} ");
	cr_assert_not_null(line, "%s", text);
	cr_assert_eq(strncmp(strchr(line, ' ') + 1, "0.750001\n", 9), 0, "%s", line);
	line = strstr(text, "diskio_process_iowait_seconds_total{device=\"-\",comm=\"db\"} ");
	cr_assert_not_null(line, "%s", text);
	cr_assert_eq(strncmp(strchr(line, ' ') + 1, "1.5\n", 4), 0, "%s", line);
	free(text);
	fx_free(f);
}

/* Processes that exit are forgotten by the tally: prom keeps their totals. */
Test(prom_totals, outlive_the_rows)
{
	struct fx *f = fx_new(0, 0);
	char *text;

	fx_row(f, "short", 5, "vda", 0, 4096);
	prom_add_frame(&f->prom, &f->frame, NS_PER_S);
	for (int i = 2; i < 10; i++) {
		fx_next(f);
		prom_add_frame(&f->prom, &f->frame, i * NS_PER_S);
	}
	text = render(f);
	cr_assert_eq(sample(text, "diskio_write_bytes_total{device=\"vda\",comm=\"short\"}"), 4096);
	free(text);
	fx_free(f);
}

/* -a: rows carry totals and unchanged rows are shown; only deltas count. */
Test(prom_totals, use_deltas_with_accumulated_rows)
{
	struct fx *f = fx_new(0, 0);
	struct proc_io *row;
	char *text;

	f->frame.cumulative = true;
	row = fx_row(f, "dd", 2, "vda", 0, 4096);
	row->total[PMEM_WRITE_BYTES] = 4096;
	prom_add_frame(&f->prom, &f->frame, NS_PER_S);
	row->delta[PMEM_WRITE_BYTES] = 0;
	row->delta[PMEM_WRITE_IOS] = 0;
	row = fx_row(f, "idle", 4, "vda", 0, 0);
	row->total[PMEM_WRITE_BYTES] = 999;
	prom_add_frame(&f->prom, &f->frame, 2 * NS_PER_S);
	text = render(f);
	cr_assert_eq(sample(text, "diskio_write_bytes_total{device=\"vda\",comm=\"dd\"}"), 4096);
	cr_assert_eq(sample(text, "diskio_write_bytes_total{device=\"vda\",comm=\"idle\"}"), -1,
		     "a row without change makes no series");
	free(text);
	fx_free(f);
}

Test(prom_totals, by_cgroup_labels)
{
	struct fx *f = fx_new(1, 0);
	struct proc_io *row;
	char *text;

	f->frame.by_cgroup = true;
	f->prom.config.by_cgroup = true;
	row = fx_row(f, "", 0, "vda", 0, 4096);
	cr_assert_eq(res_intern_str(&f->names, "/system.slice/a.service", &row->cgroup_name), RES_OK);
	row = fx_row(f, "", 0, "vda", 0, 8192);
	cr_assert_eq(res_intern_str(&f->names, "/user.slice", &row->cgroup_name), RES_OK);
	prom_add_frame(&f->prom, &f->frame, NS_PER_S);
	text = render(f);
	check_exposition(text);
	cr_assert_eq(sample(text, "diskio_write_bytes_total{device=\"vda\","
				  "cgroup=\"/system.slice/a.service\"}"), 4096);
	cr_assert_eq(sample(text, "diskio_write_bytes_total{device=\"vda\",cgroup=\"other\"}"), 8192);
	free(text);
	fx_free(f);
}

/* ---- the cap ---- */

Test(prom_cap, new_names_fold_into_other_and_old_ones_keep_counting)
{
	struct fx *f = fx_new(2, 0);
	char *text;

	fx_row(f, "a", 1, "vda", 0, 4096);
	fx_row(f, "b", 1, "vda", 0, 4096);
	fx_row(f, "c", 1, "vda", 0, 4096);
	fx_row(f, "c", 1, "zram0", 0, 4096);	/* a device of its own: under its cap */
	prom_add_frame(&f->prom, &f->frame, NS_PER_S);
	fx_next(f);
	fx_row(f, "a", 1, "vda", 0, 4096);
	fx_row(f, "d", 1, "vda", 0, 8192);
	prom_add_frame(&f->prom, &f->frame, 2 * NS_PER_S);
	text = render(f);
	check_exposition(text);
	cr_assert_eq(sample(text, "diskio_write_bytes_total{device=\"vda\",comm=\"a\"}"), 8192);
	cr_assert_eq(sample(text, "diskio_write_bytes_total{device=\"vda\",comm=\"b\"}"), 4096);
	cr_assert_eq(sample(text, "diskio_write_bytes_total{device=\"vda\",comm=\"other\"}"), 12288);
	cr_assert_eq(sample(text, "diskio_write_bytes_total{device=\"vda\",comm=\"c\"}"), -1);
	cr_assert_eq(sample(text, "diskio_write_bytes_total{device=\"zram0\",comm=\"c\"}"), 4096);
	cr_assert_eq(count_lines(text, "diskio_write_bytes_total{device=\"vda\""), 3);
	free(text);
	fx_free(f);
}

/* 500 names on one disk: at most max_rows + 1 series per metric. */
Test(prom_cap, many_names_stay_bounded)
{
	struct fx *f = fx_new(50, 0);
	char *text;

	for (int i = 0; i < 500; i++) {
		char comm[16];

		if (i % MAXROWS == 0)
			fx_next(f);
		snprintf(comm, sizeof(comm), "w%d", i);
		fx_row(f, comm, strlen(comm), "zram1", 4096, 0);
		if (i % MAXROWS == MAXROWS - 1 || i == 499)
			prom_add_frame(&f->prom, &f->frame, (uint64_t)(i + 1) * NS_PER_S);
	}
	text = render(f);
	check_exposition(text);
	cr_assert_eq(count_lines(text, "diskio_read_bytes_total{"), 51);
	cr_assert_eq(count_lines(text, "diskio_ios_total{"), 51 * 3);
	cr_assert_eq(sample(text, "diskio_read_bytes_total{device=\"zram1\",comm=\"other\"}"),
		     450 * 4096);
	free(text);
	fx_free(f);
}

/* A process really named "other" shares the fold's labels, never doubles them. */
Test(prom_cap, a_process_named_other_joins_the_fold)
{
	struct fx *f = fx_new(1, 0);
	char *text;

	fx_row(f, "other", 5, "vda", 0, 4096);
	fx_row(f, "x", 1, "vda", 0, 4096);
	prom_add_frame(&f->prom, &f->frame, NS_PER_S);
	text = render(f);
	check_exposition(text);
	cr_assert_eq(sample(text, "diskio_write_bytes_total{device=\"vda\",comm=\"other\"}"), 8192);
	cr_assert_eq(count_lines(text, "diskio_write_bytes_total{"), 1);
	free(text);
	fx_free(f);
}

/* ---- idle series ---- */

Test(prom_idle, dropped_after_the_idle_time_and_their_place_reused)
{
	struct fx *f = fx_new(1, 10 * NS_PER_S);
	char *text;

	fx_row(f, "gone", 4, "vda", 0, 4096);
	prom_add_frame(&f->prom, &f->frame, NS_PER_S);
	fx_next(f);
	fx_row(f, "new", 3, "vda", 0, 4096);	/* the cap is reached: other */
	prom_add_frame(&f->prom, &f->frame, 5 * NS_PER_S);
	fx_next(f);
	prom_add_frame(&f->prom, &f->frame, 10 * NS_PER_S);
	text = render(f);
	cr_assert_eq(sample(text, "diskio_write_bytes_total{device=\"vda\",comm=\"gone\"}"), 4096,
		     "idle for 9 s of 10: kept");
	free(text);
	fx_next(f);
	prom_add_frame(&f->prom, &f->frame, 11 * NS_PER_S);
	fx_next(f);
	fx_row(f, "new", 3, "vda", 0, 4096);
	prom_add_frame(&f->prom, &f->frame, 12 * NS_PER_S);
	text = render(f);
	check_exposition(text);
	cr_assert_eq(sample(text, "diskio_write_bytes_total{device=\"vda\",comm=\"gone\"}"), -1);
	cr_assert_eq(sample(text, "diskio_write_bytes_total{device=\"vda\",comm=\"new\"}"), 4096,
		     "the place of the dropped series is free again");
	cr_assert_eq(sample(text, "diskio_write_bytes_total{device=\"vda\",comm=\"other\"}"), 4096);
	free(text);
	fx_free(f);
}

Test(prom_idle, zero_keeps_every_series)
{
	struct fx *f = fx_new(0, 0);
	char *text;

	fx_row(f, "a", 1, "vda", 0, 4096);
	prom_add_frame(&f->prom, &f->frame, NS_PER_S);
	fx_next(f);
	prom_add_frame(&f->prom, &f->frame, 1000000 * NS_PER_S);
	text = render(f);
	cr_assert_eq(sample(text, "diskio_write_bytes_total{device=\"vda\",comm=\"a\"}"), 4096);
	free(text);
	fx_free(f);
}

/* ---- escaping ---- */

Test(prom_escape, label_values)
{
	char buf[128];

	cr_assert_eq(prom_escape_label(buf, sizeof(buf), "plain-1.0 x", 11), 11);
	cr_assert_str_eq(buf, "plain-1.0 x");
	prom_escape_label(buf, sizeof(buf), "a\"b", 3);
	cr_assert_str_eq(buf, "a\\\"b");
	prom_escape_label(buf, sizeof(buf), "a\\b", 3);
	cr_assert_str_eq(buf, "a\\\\x5cb", "the backslash is the text \\x5c: never ambiguous");
	prom_escape_label(buf, sizeof(buf), "l\nf\t\x1b\x7f", 6);
	cr_assert_str_eq(buf, "l\\\\x0af\\\\x09\\\\x1b\\\\x7f");
	prom_escape_label(buf, sizeof(buf), "\xc3\xa9\x80", 3);
	cr_assert_str_eq(buf, "\\\\xc3\\\\xa9\\\\x80", "bytes >= 0x80: the file stays ASCII");
	cr_assert_eq(prom_escape_label(NULL, 0, "\x80", 1), 5);
	/* Cut to the buffer, always terminated. */
	cr_assert_eq(prom_escape_label(buf, 4, "abcdef", 6), 6);
	cr_assert_str_eq(buf, "abc");
}

/* A hostile comm still makes a well-formed file. */
Test(prom_escape, in_the_file)
{
	struct fx *f = fx_new(0, 0);
	char *text;

	fx_row(f, "q\"\\\n}{,=\xff", 9, "vda", 0, 4096);
	prom_add_frame(&f->prom, &f->frame, NS_PER_S);
	cr_assert_eq(crashfree_record_crash(&f->cf, "bad\nname\"", 5), 0);
	text = render(f);
	check_exposition(text);
	cr_assert_eq(sample(text, "diskio_write_bytes_total{device=\"vda\","
				  "comm=\"q\\\"\\\\x5c\\\\x0a}{,=\\\\xff\"}"), 4096, "%s", text);
	cr_assert_eq(sample(text, "diskio_crashes_total{comm=\"bad\\\\x0aname\\\"\"}"), 1);
	free(text);
	fx_free(f);
}

/* ---- devices and histograms ---- */

Test(prom_format, seconds_exact)
{
	char buf[32];

	prom_format_ns_as_seconds(buf, sizeof(buf), 2);
	cr_assert_str_eq(buf, "0.000000002");
	prom_format_ns_as_seconds(buf, sizeof(buf), 1024);
	cr_assert_str_eq(buf, "0.000001024");
	prom_format_ns_as_seconds(buf, sizeof(buf), UINT64_C(1) << 39);
	cr_assert_str_eq(buf, "549.755813888");
	prom_format_ns_as_seconds(buf, sizeof(buf), 3600 * NS_PER_S);
	cr_assert_str_eq(buf, "3600");
	prom_format_ns_as_seconds(buf, sizeof(buf), 1500000000);
	cr_assert_str_eq(buf, "1.5");
	prom_format_ns_as_seconds(buf, sizeof(buf), 0);
	cr_assert_str_eq(buf, "0");
}

Test(prom_devices, counters_and_cumulative_histogram)
{
	struct fx *f = fx_new(0, 0);
	struct pmem_device *dev = pmem_device_get(&f->pm, "nvme0n1");
	long long previous = 0;
	size_t buckets = 0;
	char *text, series[160];

	pmem_add(&f->pm, dev, PMEM_WRITE_BYTES, 1 << 20);
	pmem_add(&f->pm, dev, PMEM_WRITE_IOS, 256);
	pmem_add(&f->pm, dev, PMEM_FLUSHES, 3);
	/* 3 writes in slot 10 ([1024, 2048) ns), 2 in slot 12, 1 in the last. */
	pmem_add_latency(&f->pm, dev, IO_WRITE, 10, 3);
	pmem_add_latency(&f->pm, dev, IO_WRITE, 12, 2);
	pmem_add_latency(&f->pm, dev, IO_WRITE, LATENCY_SLOTS - 1, 1);
	pmem_add_op_latency(&f->pm, dev, IO_WRITE, 1500000000, 6);
	pmem_flush(&f->pm);
	text = render(f);
	check_exposition(text);
	cr_assert_eq(sample(text, "diskio_device_write_bytes_total{device=\"nvme0n1\"}"), 1 << 20);
	cr_assert_eq(sample(text, "diskio_device_ios_total{device=\"nvme0n1\",op=\"write\"}"), 256);
	cr_assert_eq(sample(text, "diskio_device_flushes_total{device=\"nvme0n1\"}"), 3);
	cr_assert_eq(sample(text, "diskio_io_latency_seconds_bucket{device=\"nvme0n1\",op=\"write\","
				  "le=\"0.000001024\"}"), 0);
	cr_assert_eq(sample(text, "diskio_io_latency_seconds_bucket{device=\"nvme0n1\",op=\"write\","
				  "le=\"0.000002048\"}"), 3);
	cr_assert_eq(sample(text, "diskio_io_latency_seconds_bucket{device=\"nvme0n1\",op=\"write\","
				  "le=\"0.000008192\"}"), 5);
	cr_assert_eq(sample(text, "diskio_io_latency_seconds_bucket{device=\"nvme0n1\",op=\"write\","
				  "le=\"274.877906944\"}"), 5, "the last bounded bucket: slot 38");
	cr_assert_eq(sample(text, "diskio_io_latency_seconds_bucket{device=\"nvme0n1\",op=\"write\","
				  "le=\"+Inf\"}"), 6);
	cr_assert_eq(sample(text, "diskio_io_latency_seconds_count{device=\"nvme0n1\",op=\"write\"}"),
		     6);
	cr_assert(strstr(text, "diskio_io_latency_seconds_sum{device=\"nvme0n1\",op=\"write\"} 1.5\n"));
	cr_assert_eq(sample(text, "diskio_io_latency_seconds_count{device=\"nvme0n1\",op=\"read\"}"),
		     0);
	/* Buckets never decrease, and +Inf is _count. */
	for (unsigned int k = 0; k + 1 < LATENCY_SLOTS; k++) {
		char le[32];
		long long value;

		prom_format_ns_as_seconds(le, sizeof(le), UINT64_C(2) << k);
		snprintf(series, sizeof(series), "diskio_io_latency_seconds_bucket{device=\"nvme0n1\","
			 "op=\"write\",le=\"%s\"}", le);
		value = sample(text, series);
		cr_assert_geq(value, previous, "%s", series);
		previous = value;
		buckets++;
	}
	cr_assert_eq(buckets, LATENCY_SLOTS - 1);
	cr_assert_eq(count_lines(text, "diskio_io_latency_seconds_bucket{device=\"nvme0n1\",op=\"write\""),
		     LATENCY_SLOTS);
	cr_assert(strstr(text, "diskio_latency_sample_ratio{device=\"nvme0n1\"} 1\n"),
		  "a blk-mq disk's every request is timed");
	free(text);
	fx_free(f);
}

/* A bio-based disk timed 1 in 16 bios: its histogram holds 1/16 of its I/Os. */
Test(prom_devices, latency_sample_ratio_and_drops)
{
	struct fx *f = fx_new(0, 0);
	struct pmem_device *dev = pmem_device_get(&f->pm, "zram1");
	char *text;

	pmem_add_latency(&f->pm, dev, IO_READ, 10, 3);
	pmem_note_latency_sample(&f->pm, dev, 16, 4);
	pmem_flush(&f->pm);
	text = render(f);
	check_exposition(text);
	cr_assert(strstr(text, "# TYPE diskio_latency_sample_ratio gauge\n"), "%s", text);
	cr_assert(strstr(text, "diskio_latency_sample_ratio{device=\"zram1\"} 0.0625\n"), "%s",
		  text);
	cr_assert(strstr(text, "# TYPE diskio_latency_samples_dropped_total counter\n"));
	cr_assert_eq(sample(text, "diskio_latency_samples_dropped_total{device=\"zram1\"}"), 4);
	free(text);
	fx_free(f);
}

/* ---- losses and crashes ---- */

Test(prom_lost, every_cause_always_and_totals)
{
	struct fx *f = fx_new(0, 0);
	uint64_t run[LOST_NR_CAUSES] = {};
	char *text, series[128];

	text = render(f);
	for (int cause = 0; cause < LOST_NR_CAUSES; cause++) {
		snprintf(series, sizeof(series), "diskio_lost_events_total{cause=\"%s\"}",
			 lost_cause_names[cause]);
		cr_assert_eq(sample(text, series), 0, "%s", series);
	}
	free(text);
	f->frame.lost[LOST_STATS_MAP_FULL] = 3;
	prom_add_frame(&f->prom, &f->frame, NS_PER_S);
	f->frame.lost[LOST_STATS_MAP_FULL] = 4;
	f->frame.lost[LOST_PERF_BUFFER] = 1;
	prom_add_frame(&f->prom, &f->frame, 2 * NS_PER_S);
	text = render(f);
	cr_assert_eq(sample(text, "diskio_lost_events_total{cause=\"stats_map_full\"}"), 7);
	cr_assert_eq(sample(text, "diskio_lost_events_total{cause=\"perf_buffer\"}"), 1);
	cr_assert_eq(sample(text, "diskio_up"), 1, "diskio runs");
	free(text);
	/* At exit the run's losses, which include the unfinished interval. */
	run[LOST_STATS_MAP_FULL] = 9;
	run[LOST_PERF_BUFFER] = 1;
	prom_finish(&f->prom, run);
	text = render(f);
	check_exposition(text);
	cr_assert_eq(sample(text, "diskio_up"), 0, "diskio has exited");
	cr_assert_eq(sample(text, "diskio_lost_events_total{cause=\"stats_map_full\"}"), 9);
	cr_assert_eq(count_lines(text, "diskio_lost_events_total{"), LOST_NR_CAUSES);
	free(text);
	fx_free(f);
}

Test(prom_crash, counts_and_interval)
{
	struct fx *f = fx_new(0, 0);
	char *text;

	crashfree_update(&f->cf, 3 * 3600 * NS_PER_S + 5);
	cr_assert_eq(crashfree_record_crash(&f->cf, "myapp", 3 * 3600 * NS_PER_S + 10), 0);
	cr_assert_eq(crashfree_record_crash(&f->cf, "myapp", 3 * 3600 * NS_PER_S + 11), 0);
	cr_assert_eq(crashfree_record_crash(&f->cf, "other app", 3 * 3600 * NS_PER_S + 12), 0);
	text = render(f);
	check_exposition(text);
	cr_assert_eq(sample(text, "diskio_operational_intervals_total"), 3);
	cr_assert_eq(sample(text, "diskio_crashfree_intervals_total"), 3);
	cr_assert_eq(sample(text, "diskio_crashes_total{comm=\"myapp\"}"), 2);
	cr_assert_eq(sample(text, "diskio_crashes_total{comm=\"other app\"}"), 1);
	cr_assert(strstr(text, "\ndiskio_crash_interval_seconds 3600\n"));
	cr_assert(strstr(text, "# TYPE diskio_crash_interval_seconds gauge\n"));
	free(text);
	fx_free(f);
}

/* More crashed names than --prom-rows: the most crashed, then "other". */
Test(prom_crash, names_capped)
{
	struct fx *f = fx_new(2, 0);
	char *text;

	cr_assert_eq(crashfree_record_crash(&f->cf, "a", 1), 0);
	for (int i = 0; i < 3; i++)
		cr_assert_eq(crashfree_record_crash(&f->cf, "b", 2), 0);
	for (int i = 0; i < 2; i++)
		cr_assert_eq(crashfree_record_crash(&f->cf, "c", 3), 0);
	cr_assert_eq(crashfree_record_crash(&f->cf, "other", 4), 0);
	text = render(f);
	check_exposition(text);
	cr_assert_eq(sample(text, "diskio_crashes_total{comm=\"b\"}"), 3);
	cr_assert_eq(sample(text, "diskio_crashes_total{comm=\"c\"}"), 2);
	cr_assert_eq(sample(text, "diskio_crashes_total{comm=\"other\"}"), 2);
	cr_assert_eq(count_lines(text, "diskio_crashes_total{"), 3);
	free(text);
	fx_free(f);
}

/* Without a crash tracker (none yet) the crash families are left out. */
Test(prom_render, an_empty_run_is_well_formed)
{
	struct prom_totals p;
	struct prom_config config = { .version = "0.1" };
	struct cap c;

	prom_init(&p, &config);
	cr_assert_eq(prom_render(cap_open(&c), &p, NULL, NULL), 0);
	cap_close(&c);
	check_exposition(c.buf);
	cr_assert_null(strstr(c.buf, "diskio_dirtied_bytes_total"), "dirtied not reported here");
	cr_assert_null(strstr(c.buf, "diskio_crashes_total"));
	free(c.buf);
	prom_free(&p);
}

/* ---- --prom-label ---- */

Test(prom_label, good_names_and_values)
{
	static const char *const good[] = {
		"release=2.1.0", "_x=y", "a1_B2=x y", "datacenter=caf\xc3\xa9", "k=a\"b\\c\nd",
		"emoji=\xf0\x9f\x92\xbe", "r=", /* replaced below by a 1024-byte value */
	};
	char big[8 + PROM_LABEL_VALUE_MAX + 1];

	memset(big, 'v', sizeof(big));
	memcpy(big, "release=", 8);
	big[sizeof(big) - 1] = '\0';
	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]) - 1; i++)
		cr_assert_null(prom_label_problem(good[i], NULL, 0), "%s: %s", good[i],
			       prom_label_problem(good[i], NULL, 0));
	cr_assert_null(prom_label_problem(big, NULL, 0), "a value of 1024 bytes");
}

Test(prom_label, bad_names_and_values_say_why)
{
	static const struct {
		const char *arg, *why;
	} bad[] = {
		{ "release", "not KEY=VALUE" },
		{ "=x", "no label name" },
		{ "1abc=x", "not starting with a digit" },
		{ "re-lease=x", "letters, digits and '_'" },
		{ "rel.ease=x", "letters, digits and '_'" },
		{ "r\xc3\xa9=x", "letters, digits and '_'" },
		{ "__name__=x", "reserved" },
		{ "__x=x", "reserved" },
		{ "device=x", "diskio's own" },
		{ "comm=x", "diskio's own" },
		{ "cgroup=x", "diskio's own" },
		{ "op=x", "diskio's own" },
		{ "le=x", "diskio's own" },
		{ "cause=x", "diskio's own" },
		{ "version=x", "diskio's own" },
		{ "instance=x", "Prometheus sets instance and job" },
		{ "job=x", "Prometheus sets instance and job" },
		{ "release=", "empty value" },
		{ "r=\xff", "not valid UTF-8" },
		{ "r=\xc3", "not valid UTF-8" },			/* cut short */
		{ "r=\xc0\xaf", "not valid UTF-8" },		/* overlong '/' */
		{ "r=\xed\xa0\x80", "not valid UTF-8" },	/* a surrogate */
		{ "r=\xf4\x90\x80\x80", "not valid UTF-8" },	/* above U+10FFFF */
		{ "r=a\x80", "not valid UTF-8" },
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		const char *problem = prom_label_problem(bad[i].arg, NULL, 0);

		cr_assert_not_null(problem, "'%s' was taken", bad[i].arg);
		cr_assert(strstr(problem, bad[i].why), "'%s': %s", bad[i].arg, problem);
	}
}

Test(prom_label, sizes_and_repeats)
{
	const char *given[] = { "release=A", "rel=B" };
	char name[PROM_LABEL_NAME_MAX + 4], value[8 + PROM_LABEL_VALUE_MAX + 2];

	memset(name, 'n', sizeof(name));
	name[PROM_LABEL_NAME_MAX] = '=';
	name[PROM_LABEL_NAME_MAX + 1] = 'v';
	name[PROM_LABEL_NAME_MAX + 2] = '\0';
	cr_assert_null(prom_label_problem(name, NULL, 0), "a name of 128 bytes");
	name[PROM_LABEL_NAME_MAX] = 'n';
	name[PROM_LABEL_NAME_MAX + 1] = '=';
	name[PROM_LABEL_NAME_MAX + 2] = 'v';
	name[PROM_LABEL_NAME_MAX + 3] = '\0';
	cr_assert(strstr(prom_label_problem(name, NULL, 0), "more than 128"));
	memset(value, 'v', sizeof(value));
	memcpy(value, "release=", 8);
	value[sizeof(value) - 1] = '\0';
	cr_assert(strstr(prom_label_problem(value, NULL, 0), "more than 1024"));
	cr_assert(strstr(prom_label_problem("release=B", given, 2), "given twice"));
	cr_assert(strstr(prom_label_problem("rel=A", given, 2), "given twice"));
	cr_assert_null(prom_label_problem("re=A", given, 2), "a prefix of a name is another name");
	cr_assert_null(prom_label_problem("releases=A", given, 2));
}

Test(prom_label, escaped_as_the_format_says)
{
	char buf[64];

	cr_assert_eq(prom_format_user_label(buf, sizeof(buf), "release=2.1"), 13);
	cr_assert_str_eq(buf, "release=\"2.1\"");
	prom_format_user_label(buf, sizeof(buf), "k=a\"b\\c\nd=e");
	cr_assert_str_eq(buf, "k=\"a\\\"b\\\\c\\nd=e\"", "%s", buf);
	prom_format_user_label(buf, sizeof(buf), "dc=caf\xc3\xa9");
	cr_assert_str_eq(buf, "dc=\"caf\xc3\xa9\"", "UTF-8 is kept: the value is the user's");
	cr_assert_eq(prom_format_user_label(buf, 5, "release=2.1"), 13);
	cr_assert_str_eq(buf, "rele", "cut to the buffer, terminated");
}

/* Every sample carries the labels, after the file's own; the file stays
 * well-formed; without --prom-label nothing changes. */
Test(prom_label, on_every_series_of_the_file)
{
	static const char *const labels[] = { "release=2.1", "dc=eu\"1" };
	struct prom_config config = {
		.dirtied = true, .version = "0.1", .labels = labels, .nlabels = 2,
	};
	struct fx *f = fx_new(0, 0);
	size_t samples, labelled = 0;
	char *text;

	prom_free(&f->prom);
	cr_assert_eq(prom_init(&f->prom, &config), 0);
	fx_row(f, "dd", 2, "vda", 4096, 8192);
	pmem_add(&f->pm, pmem_device_get(&f->pm, "vda"), PMEM_READ_BYTES, 4096);
	pmem_flush(&f->pm);
	cr_assert_eq(crashfree_record_crash(&f->cf, "myapp", 5), 0);
	prom_add_frame(&f->prom, &f->frame, NS_PER_S);
	text = render(f);
	samples = check_exposition(text);
	for (const char *p = text; *p; p = strchr(p, '\n') + 1)
		if (*p != '#') {
			static const char want[] = "release=\"2.1\",dc=\"eu\\\"1\"}";
			const char *end = strchr(p, '\n'), *space = memrchr(p, ' ', end - p);

			cr_assert(space - p > (long)strlen(want) &&
				  !memcmp(space - strlen(want), want, strlen(want)),
				  "a sample without the labels last: %.*s", (int)(end - p), p);
			labelled++;
		}
	cr_assert_eq(labelled, samples);
	cr_assert_eq(sample(text, "diskio_write_bytes_total{device=\"vda\",comm=\"dd\","
				  "release=\"2.1\",dc=\"eu\\\"1\"}"), 8192, "%s", text);
	cr_assert_eq(sample(text, "diskio_operational_intervals_total{release=\"2.1\","
				  "dc=\"eu\\\"1\"}"), 0);
	cr_assert_eq(sample(text, "diskio_crashes_total{comm=\"myapp\",release=\"2.1\","
				  "dc=\"eu\\\"1\"}"), 1);
	cr_assert(strstr(text, "\ndiskio_up{release=\"2.1\",dc=\"eu\\\"1\"} 1\n"), "%s", text);
	cr_assert(strstr(text, "\ndiskio_io_latency_seconds_bucket{device=\"vda\",op=\"read\","
			       "le=\"+Inf\",release=\"2.1\",dc=\"eu\\\"1\"} "), "%s", text);
	free(text);
	fx_free(f);
}

/* ---- the atomic writer ---- */

struct writer_case {
	const char *text;
	int fail;		/* returned after writing text */
};

static int write_case(FILE *out, void *arg)
{
	const struct writer_case *w = arg;

	fputs(w->text, out);
	return w->fail;
}

static char *temp_dir(void)
{
	char *dir = strdup("/tmp/diskio-test-prom-XXXXXX");

	cr_assert_not_null(dir);
	cr_assert_not_null(mkdtemp(dir));
	return dir;
}

/* Entries of dir besides . and .. */
static int entries(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	cr_assert_not_null(d);
	while ((e = readdir(d)))
		n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
	closedir(d);
	return n;
}

static void read_text(const char *path, char *buf, size_t size)
{
	FILE *in = fopen(path, "r");
	size_t n;

	cr_assert_not_null(in, "%s: %s", path, strerror(errno));
	n = fread(buf, 1, size - 1, in);
	buf[n] = '\0';
	fclose(in);
}

Test(prom_writer, replaces_the_file_readable_by_all)
{
	char *dir = temp_dir(), path[256], text[64];
	struct writer_case first = { "one 1\n", 0 }, second = { "two 2\n", 0 };
	struct stat st;
	mode_t old_umask = umask(077);

	snprintf(path, sizeof(path), "%s/diskio.prom", dir);
	cr_assert_eq(atomic_file_write(path, write_case, &first), 0);
	cr_assert_eq(atomic_file_write(path, write_case, &second), 0);
	umask(old_umask);
	read_text(path, text, sizeof(text));
	cr_assert_str_eq(text, "two 2\n");
	cr_assert_eq(stat(path, &st), 0);
	cr_assert_eq(st.st_mode & 0777, 0644, "node_exporter reads it as another user");
	cr_assert_eq(entries(dir), 1, "no temporary file left");
	unlink(path);
	rmdir(dir);
	free(dir);
}

Test(prom_writer, keeps_the_old_file_when_writing_fails)
{
	char *dir = temp_dir(), path[256], text[64];
	struct writer_case good = { "good 1\n", 0 }, bad = { "half", -ENOSPC };

	snprintf(path, sizeof(path), "%s/diskio.prom", dir);
	cr_assert_eq(atomic_file_write(path, write_case, &good), 0);
	cr_assert_eq(atomic_file_write(path, write_case, &bad), -ENOSPC);
	read_text(path, text, sizeof(text));
	cr_assert_str_eq(text, "good 1\n");
	cr_assert_eq(entries(dir), 1, "the temporary file is removed");
	unlink(path);
	rmdir(dir);
	free(dir);
}

/* /dev/full: every write fails with ENOSPC, as on a full disk. */
Test(prom_writer, a_full_disk_is_an_error)
{
	FILE *full = fopen("/dev/full", "w");
	struct prom_totals p;
	struct prom_config config = { .version = "0.1" };

	if (!full)
		cr_skip_test("no /dev/full");
	prom_init(&p, &config);
	setvbuf(full, NULL, _IONBF, 0);
	cr_assert_eq(prom_render(full, &p, NULL, NULL), -EIO);
	fclose(full);
	prom_free(&p);
}

/* atomic_target_open() and atomic_target_check() of path: 0 or -errno. */
static int check_target(const char *path)
{
	char why[REFUSAL_SIZE];
	struct atomic_target t;
	int err = atomic_target_open(&t, path, why);

	if (!err)
		err = atomic_target_check(&t);
	atomic_target_close(&t);
	return err;
}

/*
 * The directory is held from the open on: renamed away and replaced by a
 * symlink to another directory, the writes still land in the first one.
 */
Test(prom_writer, writes_stay_in_the_directory_opened)
{
	char *dir = temp_dir(), *other = temp_dir(), held[256], moved[256], path[300], why[96];
	char text[64];
	struct writer_case good = { "good 1\n", 0 };
	struct atomic_target t;

	snprintf(held, sizeof(held), "%s/held", dir);
	snprintf(moved, sizeof(moved), "%s/moved", dir);
	cr_assert_eq(mkdir(held, 0755), 0);
	snprintf(path, sizeof(path), "%s/diskio.prom", held);
	cr_assert_eq(atomic_target_open(&t, path, why), 0, "%s", why);
	cr_assert_eq(rename(held, moved), 0);
	cr_assert_eq(symlink(other, held), 0);
	cr_assert_eq(atomic_target_write(&t, 0644, true, write_case, &good), 0);
	atomic_target_close(&t);
	cr_assert_eq(entries(other), 0, "nothing written through the symlink");
	snprintf(path, sizeof(path), "%s/diskio.prom", moved);
	read_text(path, text, sizeof(text));
	cr_assert_str_eq(text, "good 1\n");
	unlink(path);
	unlink(held);
	rmdir(moved);
	rmdir(dir);
	rmdir(other);
	free(dir);
	free(other);
}

/* A directory others may write (not sticky), or a symlink as the file's
 * directory, is refused: -EPERM, -ELOOP, with why said. */
Test(prom_writer, refuses_a_directory_others_can_change)
{
	char *dir = temp_dir(), *other = temp_dir(), path[300], link[256], why[96];
	struct atomic_target t;

	cr_assert_eq(chmod(dir, 0777), 0);
	snprintf(path, sizeof(path), "%s/diskio.prom", dir);
	cr_assert_eq(atomic_target_open(&t, path, why), -EPERM);
	cr_assert_str_eq(why, "is writable by others (mode 0777)");
	cr_assert_eq(chmod(dir, 01777), 0);
	cr_assert_eq(atomic_target_open(&t, path, why), 0, "sticky, as /tmp: %s", why);
	atomic_target_close(&t);
	snprintf(link, sizeof(link), "%s/link", other);
	cr_assert_eq(symlink(dir, link), 0);
	snprintf(path, sizeof(path), "%s/diskio.prom", link);
	cr_assert_eq(atomic_target_open(&t, path, why), -ELOOP);
	cr_assert_str_eq(why, "is a symlink");
	unlink(link);
	rmdir(dir);
	rmdir(other);
	free(dir);
	free(other);
}

Test(prom_writer, a_missing_directory_or_a_directory_path)
{
	char *dir = temp_dir(), path[256];
	struct writer_case good = { "good 1\n", 0 };

	snprintf(path, sizeof(path), "%s/missing/diskio.prom", dir);
	cr_assert_eq(check_target(path), -ENOENT);
	cr_assert_eq(atomic_file_write(path, write_case, &good), -ENOENT);
	cr_assert_eq(check_target(dir), -EISDIR);
	snprintf(path, sizeof(path), "%s/", dir);
	cr_assert_eq(check_target(path), -EISDIR);
	snprintf(path, sizeof(path), "%s/diskio.prom", dir);
	cr_assert_eq(check_target(path), 0);
	cr_assert_eq(entries(dir), 0, "the check leaves nothing behind");
	cr_assert_eq(check_target("relative.prom"), 0, "a name in the working directory");
	rmdir(dir);
	free(dir);
}

/* A full filesystem is named as such, though the render saw only stdio's
 * error flag: prom_render() says -EIO, the writer keeps the write's errno.
 * The render is longer than stdio's buffer, so the failure comes mid-way,
 * as on the tmpfs that filled under a growing file. */
static int render_prom(FILE *out, void *arg)
{
	return prom_render(out, arg, NULL, NULL);
}

Test(prom_writer, a_full_disk_mid_render_says_no_space)
{
	int fd = open("/dev/full", O_WRONLY | O_CLOEXEC);
	struct prom_totals p;
	struct prom_config config = { .version = "0.1" };
	char big[3 * BUFSIZ];
	struct writer_case long_text = { big, 0 };

	if (fd < 0)
		cr_skip_test("no /dev/full");
	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	prom_init(&p, &config);
	cr_assert_eq(render_to_fd(fd, render_prom, &p), -ENOSPC);
	cr_assert_eq(render_to_fd(fd, write_case, &long_text), -ENOSPC);
	close(fd);
	prom_free(&p);
}
