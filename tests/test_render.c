// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the views in render.c: batch lines for awk and NDJSON, plus
 * the summary and the small formatters (the top view is tested in
 * test_top.c).  Frames are built by hand over a real name table, per-device
 * metrics and crash tracker.
 */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <locale.h>
#include <sys/utsname.h>

#include <linux/types.h>
#include "view.h"

#include "json_check.h"

/* ---- the views under test, one call per frame ---- */

static void render_batch(FILE *out, const struct frame *frame)
{
	struct view v;

	view_batch(&v, out);
	view_show_frame(&v, frame);
}

static void render_json(FILE *out, const struct frame *frame)
{
	struct view v;

	view_json(&v, out);
	view_show_frame(&v, frame);
}

static void render_batch_columns(FILE *out)
{
	struct view v;

	view_batch(&v, out);
	v.start(&v);
}

static void render_summary(FILE *out, bool json, const struct timespec *wall, double duration_s,
			   const uint64_t lost[LOST_NR_CAUSES], const uint64_t *io_events,
			   const struct crashfree *crash, const struct pmem_metrics *devices)
{
	struct summary summary = {
		.wall = *wall,
		.duration_s = duration_s,
		.has_io_events = io_events != NULL,
		.io_events = io_events ? *io_events : 0,
		.devices = devices,
		.crash = crash,
	};
	struct view v;

	memcpy(summary.lost, lost, sizeof(summary.lost));
	if (json)
		view_json(&v, out);
	else
		view_batch(&v, out);
	v.summary(&v, &summary);
}

/* ---- frames built by hand ---- */

#define MAXROWS 512
/* time pid comm device, 7 counters, avg_latency_us, dirtied_bytes writeback_bytes cgroup
 * for; iowait_pct swapin_pct uid user ioprio cmdline (issue 33); errors error_kinds
 * (issue 45); cgroup_io_pressure_some_pct cgroup_io_pressure_full_pct (issue 45) */
#define BATCH_FIELDS 26
#define NAMES_SIZE (256 * 1024)
#define NS_PER_S UINT64_C(1000000000)
#define WALL_SEC 1795334401	/* 2026-11-22T08:00:01Z */
#define WALL_NSEC 250999999	/* shown truncated to milliseconds: .250 */
#define WALL_TEXT "2026-11-22T08:00:01.250Z"
#define WALL_TS "1795334401.250"

struct fx {
	void *names_buf;
	struct res_table names;
	struct pmem_metrics pm;
	struct crashfree cf;
	struct proc_io rows[MAXROWS];
	struct proc_io *ptrs[MAXROWS];
	struct frame frame;
};

static void dev_add(struct pmem_metrics *pm, const char *name, uint64_t rb, uint64_t wb,
		    uint64_t db, uint64_t rios, uint64_t wios, uint64_t dios)
{
	struct pmem_device *dev = pmem_device_get(pm, name);

	cr_assert_not_null(dev);
	pmem_add(pm, dev, PMEM_READ_BYTES, rb);
	pmem_add(pm, dev, PMEM_WRITE_BYTES, wb);
	pmem_add(pm, dev, PMEM_DISCARD_BYTES, db);
	pmem_add(pm, dev, PMEM_READ_IOS, rios);
	pmem_add(pm, dev, PMEM_WRITE_IOS, wios);
	pmem_add(pm, dev, PMEM_DISCARD_IOS, dios);
}

static struct fx *fx_new(void)
{
	struct fx *f = calloc(1, sizeof(*f));

	cr_assert_not_null(f);
	f->names_buf = malloc(NAMES_SIZE);
	cr_assert_not_null(f->names_buf);
	cr_assert_eq(res_table_init(&f->names, f->names_buf, NAMES_SIZE, 1024), RES_OK);

	pmem_init(&f->pm);
	dev_add(&f->pm, "vda", 4096, 1048576, 0, 1, 16, 0);
	dev_add(&f->pm, "zram0", 8192, 0, 65536, 2, 0, 1);
	pmem_add(&f->pm, pmem_device_get(&f->pm, "vda"), PMEM_LATENCY_NS, 52100 * 17);
	pmem_add(&f->pm, pmem_device_get(&f->pm, "vda"), PMEM_LATENCY_IOS, 17);
	pmem_flush(&f->pm);

	crashfree_init(&f->cf, 3600 * NS_PER_S, 0);
	crashfree_update(&f->cf, 3 * 3600 * NS_PER_S + 5);
	cr_assert_eq(crashfree_record_crash(&f->cf, "my daemon", 3 * 3600 * NS_PER_S + 10), 0);
	cr_assert_eq(crashfree_record_crash(&f->cf, "q\"u\\o,t:e=", 3 * 3600 * NS_PER_S + 11), 0);
	cr_assert_eq(crashfree_record_crash(&f->cf, "my daemon", 3 * 3600 * NS_PER_S + 12), 0);
	cr_assert_eq(f->cf.operational_intervals, 3);
	cr_assert_eq(f->cf.crashfree_intervals, 3);
	cr_assert_eq(f->cf.crashes, 3);

	f->frame.wall.tv_sec = WALL_SEC;
	f->frame.wall.tv_nsec = WALL_NSEC;
	f->frame.interval_s = 1;
	f->frame.rows = f->ptrs;
	f->frame.nrows = 0;
	f->frame.names = &f->names;
	f->frame.devices = &f->pm;
	f->frame.crash = &f->cf;
	return f;
}

static void fx_free(struct fx *f)
{
	pmem_free(&f->pm);
	crashfree_free(&f->cf);
	free(f->names_buf);
	free(f);
}

/* A row: per-interval values as given, totals ten times as big. */
static struct proc_io *add_row(struct fx *f, uint32_t tgid, const char *comm, size_t comm_len,
			       const char *device, uint64_t rb, uint64_t wb, uint64_t db)
{
	struct proc_io *row;

	cr_assert_lt(f->frame.nrows, MAXROWS);
	row = &f->rows[f->frame.nrows];
	memset(row, 0, sizeof(*row));
	row->key.tgid = tgid;
	row->key.dev = 254 << 20;
	memcpy(row->key.comm, comm, comm_len < TASK_COMM_LEN - 1 ? comm_len : TASK_COMM_LEN - 1);
	cr_assert_eq(res_intern(&f->names, comm, comm_len, &row->comm_name), RES_OK);
	cr_assert_eq(res_intern_str(&f->names, device, &row->device_name), RES_OK);
	row->delta[PMEM_READ_BYTES] = rb;
	row->delta[PMEM_WRITE_BYTES] = wb;
	row->delta[PMEM_DISCARD_BYTES] = db;
	row->delta[PMEM_READ_IOS] = rb / 4096;
	row->delta[PMEM_WRITE_IOS] = wb / 4096;
	row->delta[PMEM_DISCARD_IOS] = db / 4096;
	for (int i = 0; i < PMEM_NR_COUNTERS; i++)
		row->total[i] = row->delta[i] * 10;
	f->ptrs[f->frame.nrows++] = row;
	return row;
}


static char *render_to_string(void (*render)(FILE *, const struct frame *),
			      const struct frame *frame, size_t *len)
{
	struct cap c;

	render(cap_open(&c), frame);
	cap_close(&c);
	*len = c.len;
	return c.buf;
}

/* Split buf (which must end in '\n') into lines, in place. */
static size_t split_lines(char *buf, size_t len, char **lines, size_t max)
{
	size_t n = 0;
	char *p = buf;

	cr_assert_gt(len, 0);
	cr_assert_eq(buf[len - 1], '\n', "output does not end with a newline");
	while (p < buf + len) {
		char *nl = memchr(p, '\n', buf + len - p);

		cr_assert_lt(n, max);
		*nl = '\0';
		lines[n++] = p;
		p = nl + 1;
	}
	return n;
}


/* Undo the batch escaping (\xHH); "-" is the empty name. */
static size_t unescape(const char *field, char *out)
{
	size_t n = 0;

	if (!strcmp(field, "-"))
		return 0;
	while (*field) {
		if (field[0] == '\\') {
			unsigned int byte;

			cr_assert_eq(field[1], 'x', "bad escape in %s", field);
			cr_assert_eq(sscanf(field + 2, "%2x", &byte), 1, "bad escape in %s", field);
			out[n++] = (char)byte;
			field += 4;
		} else {
			out[n++] = *field++;
		}
	}
	return n;
}

/* Comm names awk would trip over, with the expected batch field. */
static const struct {
	const char *comm;
	size_t len;
	const char *escaped;
} hostile[] = {
	{ "dd", 2, "dd" },
	{ "my prog", 7, "my\\x20prog" },
	{ "tab\there", 8, "tab\\x09here" },
	{ "new\nline", 8, "new\\x0aline" },
	{ "cr\rx", 4, "cr\\x0dx" },
	{ "back\\slash", 10, "back\\x5cslash" },
	{ "\xff\x80hi", 4, "\\xff\\x80hi" },
	{ "caf\xc3\xa9", 5, "caf\\xc3\\xa9" },
	{ "", 0, "-" },
	{ "   ", 3, "\\x20\\x20\\x20" },
	{ "\x1b[2J", 4, "\\x1b[2J" },
	{ "del\x7f", 4, "del\\x7f" },
	{ "#hash", 5, "#hash" },
	{ "nul\0in", 6, "nul\\x00in" },
	{ "\v\f", 2, "\\x0b\\x0c" },
};
#define NHOSTILE (sizeof(hostile) / sizeof(hostile[0]))

/* ---- batch ---- */

Test(render_batch, data_lines_have_every_field_whatever_the_names)
{
	static const char *const devices[] = { "vda", "my disk", "dm\t0", "", "nvme0n1" };
	struct fx *f = fx_new();
	char *out, *lines[256];
	static char fields[MAXFIELDS][FIELDLEN];
	size_t len, n, data = 0;

	for (size_t i = 0; i < NHOSTILE; i++)
		add_row(f, 100 + i, hostile[i].comm, hostile[i].len,
			devices[i % (sizeof(devices) / sizeof(devices[0]))], i * 4096, 4096, 0);
	out = render_to_string(render_batch, &f->frame, &len);
	n = split_lines(out, len, lines, 256);
	for (size_t i = 0; i < n; i++) {
		if (lines[i][0] == '#')
			continue;
		cr_assert_eq(split_fields(lines[i], fields), BATCH_FIELDS, "line %zu has not %d fields: %s",
			     i, BATCH_FIELDS, lines[i]);
		cr_assert_str_eq(fields[0], WALL_TEXT);
		data++;
	}
	cr_assert_eq(data, NHOSTILE, "%zu data lines for %zu rows", data, NHOSTILE);
	free(out);
	fx_free(f);
}

/* Fields 17 and 18: IO> and SWAPIN, two decimals, "-" where not known;
 * a process that only waited has device "-" and no I/O. */
Test(render_batch, waits_are_the_fields_after_for)
{
	struct fx *f = fx_new();
	char *out, *lines[16];
	static char fields[MAXFIELDS][FIELDLEN];
	struct proc_io *row;
	size_t len, n, data = 0;

	f->frame.interval_s = 2;
	f->frame.waits_source = WAITS_SCHED;
	f->frame.iowait_known = true;
	add_row(f, 100, "dd", 2, "vda", 4096, 0, 0)->wait_delta.blkio_ns = 1234567890;
	row = add_row(f, 101, "postgres", 8, "-", 0, 0, 0);
	row->key.dev = IOWAIT_NO_DEVICE;
	row->wait_delta.blkio_ns = 100000000;
	out = render_to_string(render_batch, &f->frame, &len);
	n = split_lines(out, len, lines, 16);
	for (size_t i = 0; i < n; i++) {
		if (lines[i][0] == '#')
			continue;
		cr_assert_eq(split_fields(lines[i], fields), BATCH_FIELDS, "%s", lines[i]);
		cr_assert_str_eq(fields[15], "-", "for");
		cr_assert_str_eq(fields[17], "-", "SWAPIN without delay accounting");
		if (data++ == 0) {
			cr_assert_str_eq(fields[16], "61.73");
		} else {
			cr_assert_str_eq(fields[3], "-");
			cr_assert_str_eq(fields[4], "0");
			cr_assert_str_eq(fields[16], "5.00");
		}
	}
	cr_assert_eq(data, 2);
	free(out);
	fx_free(f);
}

/* Fields 25 and 26 (issue 45), appended after error_kinds: the row's
 * cgroup's io.pressure, some and full, two decimals; "-" each where not
 * known (a group first seen), no field before them moved. */
Test(render_batch, cgroup_pressure_is_the_last_two_fields)
{
	struct fx *f = fx_new();
	char *out, *lines[16];
	static char fields[MAXFIELDS][FIELDLEN];
	size_t len, n, data = 0;

	add_row(f, 100, "dd", 2, "vda", 4096, 0, 0)->cgroup_pressure =
		(struct pressure_share){ true, 12.346, 0.004 };
	add_row(f, 101, "cp", 2, "vda", 8192, 0, 0);
	out = render_to_string(render_batch, &f->frame, &len);
	n = split_lines(out, len, lines, 16);
	for (size_t i = 0; i < n; i++) {
		if (lines[i][0] == '#')
			continue;
		cr_assert_eq(split_fields(lines[i], fields), BATCH_FIELDS, "%s", lines[i]);
		cr_assert_str_eq(fields[22], "0", "errors stays field 23");
		cr_assert_str_eq(fields[23], "-", "error_kinds stays field 24");
		if (!strcmp(fields[1], "100")) {
			cr_assert_str_eq(fields[24], "12.35");
			cr_assert_str_eq(fields[25], "0.00");
		} else {
			cr_assert_str_eq(fields[24], "-");
			cr_assert_str_eq(fields[25], "-");
		}
		data++;
	}
	cr_assert_eq(data, 2);
	free(out);
	fx_free(f);
}

Test(render_batch, names_are_escaped_as_hex_and_round_trip)
{
	struct fx *f = fx_new();
	char *out, *lines[256];
	static char fields[MAXFIELDS][FIELDLEN];
	char decoded[FIELDLEN];
	size_t len, n, r = 0;

	for (size_t i = 0; i < NHOSTILE; i++)
		add_row(f, 100 + i, hostile[i].comm, hostile[i].len, "my disk", 1, 2, 3);
	out = render_to_string(render_batch, &f->frame, &len);
	n = split_lines(out, len, lines, 256);
	for (size_t i = 0; i < n; i++) {
		size_t dlen;

		if (lines[i][0] == '#')
			continue;
		cr_assert_lt(r, NHOSTILE);
		cr_assert_eq(split_fields(lines[i], fields), BATCH_FIELDS, "%s", lines[i]);
		cr_assert_eq(strtoul(fields[1], NULL, 10), 100 + r);
		cr_assert_str_eq(fields[2], hostile[r].escaped, "comm #%zu", r);
		dlen = unescape(fields[2], decoded);
		cr_assert_eq(dlen, hostile[r].len, "comm #%zu", r);
		cr_assert_eq(memcmp(decoded, hostile[r].comm, dlen), 0, "comm #%zu", r);
		cr_assert_str_eq(fields[3], "my\\x20disk");
		r++;
	}
	cr_assert_eq(r, NHOSTILE);
	free(out);
	fx_free(f);
}

Test(render_batch, output_is_printable_ascii_lines)
{
	struct fx *f = fx_new();
	char *out;
	size_t len;

	for (size_t i = 0; i < NHOSTILE; i++)
		add_row(f, 100 + i, hostile[i].comm, hostile[i].len, "d\xe9v ice", 1, 2, 3);
	/* a device named with a space and a byte >= 0x80 in the metrics too */
	dev_add(&f->pm, "we ird\xff", 1, 1, 1, 1, 1, 1);
	pmem_flush(&f->pm);
	out = render_to_string(render_batch, &f->frame, &len);
	for (size_t i = 0; i < len; i++) {
		unsigned char c = out[i];

		cr_assert(c == '\n' || (c >= 0x20 && c < 0x7f), "byte %#x at %zu in batch output",
			  c, i);
		if (c == ' ')
			cr_assert(i + 1 < len && out[i + 1] != ' ' && out[i + 1] != '\n',
				  "empty field at byte %zu", i);
	}
	free(out);
	fx_free(f);
}

Test(render_batch, counters_are_raw_integers_in_column_order)
{
	struct fx *f = fx_new();
	struct proc_io *row;
	char *out, *lines[64];
	static char fields[MAXFIELDS][FIELDLEN];
	size_t len, n, data = 0;

	row = add_row(f, 4242, "dd", 2, "vda", 0, 5000000000ULL, 0);
	row->delta[PMEM_READ_BYTES] = UINT64_MAX;
	row->delta[PMEM_DISCARD_BYTES] = 123456789012345ULL;
	row->delta[PMEM_READ_IOS] = 7;
	row->delta[PMEM_WRITE_IOS] = 8;
	row->delta[PMEM_DISCARD_IOS] = 9;
	row->delta[PMEM_FLUSHES] = 10;
	out = render_to_string(render_batch, &f->frame, &len);
	n = split_lines(out, len, lines, 64);
	for (size_t i = 0; i < n; i++) {
		if (lines[i][0] == '#')
			continue;
		cr_assert_eq(split_fields(lines[i], fields), BATCH_FIELDS);
		cr_assert_str_eq(fields[1], "4242");
		cr_assert_str_eq(fields[2], "dd");
		cr_assert_str_eq(fields[3], "vda");
		cr_assert_str_eq(fields[4], "18446744073709551615");
		cr_assert_str_eq(fields[5], "5000000000");
		cr_assert_str_eq(fields[6], "123456789012345");
		cr_assert_str_eq(fields[7], "7");
		cr_assert_str_eq(fields[8], "8");
		cr_assert_str_eq(fields[9], "9");
		cr_assert_str_eq(fields[10], "10");
		cr_assert_str_eq(fields[11], "-");
		data++;
	}
	cr_assert_eq(data, 1);
	free(out);
	fx_free(f);
}

/* The 12th field of the only data line. */
static void latency_field(struct fx *f, char *field)
{
	char *out, *lines[64];
	static char fields[MAXFIELDS][FIELDLEN];
	size_t len, n;
	bool found = false;

	out = render_to_string(render_batch, &f->frame, &len);
	n = split_lines(out, len, lines, 64);
	for (size_t i = 0; i < n; i++) {
		if (lines[i][0] == '#')
			continue;
		cr_assert_not(found);
		cr_assert_eq(split_fields(lines[i], fields), BATCH_FIELDS);
		strcpy(field, fields[11]);
		found = true;
	}
	cr_assert(found);
	free(out);
}

Test(render_batch, latency_is_dash_without_L_and_a_number_with_it)
{
	struct fx *f = fx_new();
	struct proc_io *row = add_row(f, 1, "dd", 2, "vda", 0, 4096, 0);
	char field[FIELDLEN];

	row->delta[PMEM_LATENCY_NS] = 521000;	/* 10 I/Os of 52.1 us */
	row->delta[PMEM_LATENCY_IOS] = 10;
	f->frame.per_process_latency = false;
	latency_field(f, field);
	cr_assert_str_eq(field, "-");
	f->frame.per_process_latency = true;
	latency_field(f, field);
	cr_assert_str_eq(field, "52.1");
	row->delta[PMEM_LATENCY_NS] = 0;
	row->delta[PMEM_LATENCY_IOS] = 0;
	latency_field(f, field);
	cr_assert_str_eq(field, "-");
	fx_free(f);
}

Test(render_batch, cumulative_shows_totals)
{
	struct fx *f = fx_new();
	char *out, *lines[64];
	static char fields[MAXFIELDS][FIELDLEN];
	size_t len, n;

	add_row(f, 1, "dd", 2, "vda", 4096, 8192, 0);
	f->frame.cumulative = true;
	out = render_to_string(render_batch, &f->frame, &len);
	n = split_lines(out, len, lines, 64);
	for (size_t i = 0; i < n; i++) {
		if (lines[i][0] == '#')
			continue;
		cr_assert_eq(split_fields(lines[i], fields), BATCH_FIELDS);
		cr_assert_str_eq(fields[4], "40960");
		cr_assert_str_eq(fields[5], "81920");
	}
	free(out);
	fx_free(f);
}

static bool str_ends_with(const char *s, const char *end)
{
	size_t n = strlen(s), m = strlen(end);

	return n >= m && !strcmp(s + n - m, end);
}

Test(render_batch, other_lines_start_with_hash)
{
	struct fx *f = fx_new();
	char *out, *lines[64];
	size_t len, n, hash = 0, data = 0;
	bool header = false, vda = false, zram = false, crash = false;

	struct pmem_device *zram0 = pmem_device_get(&f->pm, "zram0");

	add_row(f, 1, "dd", 2, "vda", 4096, 8192, 0);
	add_row(f, 2, "cp", 2, "zram0", 4096, 8192, 0);
	for (int i = 0; i < LOST_NR_CAUSES; i++)
		f->frame.lost[i] = i + 1;
	/* zram0's latency is that of 1 in 16 bios; 2 chosen found no slot. */
	zram0->latency_sample = 16;
	zram0->latency_samples_dropped = (struct pmem_counter){ .total = 2, .delta = 2 };
	out = render_to_string(render_batch, &f->frame, &len);
	n = split_lines(out, len, lines, 64);
	for (size_t i = 0; i < n; i++) {
		const char *l = lines[i];

		if (l[0] != '#') {
			data++;
			continue;
		}
		hash++;
		if (!strncmp(l, "# time=" WALL_TEXT " interval_s=1 ",
			     strlen("# time=" WALL_TEXT " interval_s=1 "))) {
			header = true;
			cr_assert(strstr(l, " write_bytes=1048576"), "%s", l);
			cr_assert(strstr(l, " read_bytes=12288"), "%s", l);
			cr_assert(strstr(l, " discard_bytes=65536"), "%s", l);
			char expect[64];

			snprintf(expect, sizeof(expect), " lost=%d ",
				 LOST_NR_CAUSES * (LOST_NR_CAUSES + 1) / 2);
			cr_assert(strstr(l, expect), "%s", l);
			cr_assert(strstr(l, " lost_stats_map_full=1"), "%s", l);
			snprintf(expect, sizeof(expect), " lost_names_table_full=%d",
				 LOST_NAMES_TABLE_FULL + 1);
			cr_assert(strstr(l, expect), "%s", l);
		} else if (!strncmp(l, "# device vda ", 13)) {
			vda = true;
			cr_assert(strstr(l, " write_ios=16"), "%s", l);
			cr_assert(strstr(l, " avg_latency_us=52.1"), "%s", l);
			cr_assert(str_ends_with(l, " latency_sample=1 latency_samples_dropped=0"
						   " below=- dm_name=- errors=0 error_kinds=-"),
				  "every I/O timed, the last fields: %s", l);
		} else if (!strncmp(l, "# device zram0 ", 15)) {
			zram = true;
			cr_assert(strstr(l, " discard_bytes=65536"), "%s", l);
			cr_assert(strstr(l, " avg_latency_us=-"), "%s", l);
			cr_assert(str_ends_with(l, " latency_sample=16 latency_samples_dropped=2 below=- dm_name=-"
						   " errors=0 error_kinds=-"),
				  "%s", l);
		} else if (!strncmp(l, "# crash ", 8)) {
			crash = true;
			cr_assert(strstr(l, " interval_s=3600"), "%s", l);
			cr_assert(strstr(l, " operational_intervals=3"), "%s", l);
			cr_assert(strstr(l, " crashfree_intervals=3"), "%s", l);
			cr_assert(strstr(l, " crashes=3"), "%s", l);
			cr_assert(strstr(l, "my\\x20daemon:2"), "%s", l);
		}
	}
	cr_assert(header, "no '# time=...' line");
	cr_assert(vda && zram, "no '# device' lines");
	cr_assert(crash, "no '# crash' line");
	cr_assert_eq(data, 2);
	cr_assert_geq(hash, 4);
	free(out);
	fx_free(f);
}

Test(render_batch, crash_by_process_list_parses_back)
{
	struct fx *f = fx_new();
	char *out, *lines[64];
	size_t len, n;
	bool found = false;

	out = render_to_string(render_batch, &f->frame, &len);
	n = split_lines(out, len, lines, 64);
	for (size_t i = 0; i < n; i++) {
		static char fields[MAXFIELDS][FIELDLEN];
		size_t nf;
		const char *list = NULL;
		char copy[FIELDLEN], *save, *item;
		uint64_t sum = 0;
		size_t items = 0;

		if (strncmp(lines[i], "# crash ", 8))
			continue;
		found = true;
		nf = split_fields(lines[i], fields);
		for (size_t k = 0; k < nf; k++)
			if (!strncmp(fields[k], "by_process=", 11))
				list = fields[k] + 11;
		cr_assert_not_null(list, "%s", lines[i]);
		strcpy(copy, list);
		for (item = strtok_r(copy, ",", &save); item; item = strtok_r(NULL, ",", &save)) {
			char *colon = strchr(item, ':');
			char name[FIELDLEN];
			size_t nlen;

			cr_assert_not_null(colon, "item %s", item);
			cr_assert_null(strchr(colon + 1, ':'), "item %s", item);
			*colon = '\0';
			nlen = unescape(item, name);
			name[nlen] = '\0';
			if (!strcmp(name, "my daemon"))
				cr_assert_str_eq(colon + 1, "2");
			else
				cr_assert_str_eq(name, "q\"u\\o,t:e=");
			sum += strtoull(colon + 1, NULL, 10);
			items++;
		}
		cr_assert_eq(items, 2);
		cr_assert_eq(sum, 3);
	}
	cr_assert(found);
	free(out);
	fx_free(f);
}

Test(render_batch, crash_line_without_crashes_has_a_dash)
{
	struct fx *f = fx_new();
	struct crashfree cf;
	char *out;
	size_t len;

	crashfree_init(&cf, 60 * NS_PER_S, 0);
	f->frame.crash = &cf;
	out = render_to_string(render_batch, &f->frame, &len);
	cr_assert(strstr(out, "# crash interval_s=60 operational_intervals=0 crashfree_intervals=0"
			 " crashes=0 by_process=-\n"), "%s", out);
	free(out);
	crashfree_free(&cf);
	fx_free(f);
}

Test(render_batch, crash_events_are_hash_lines)
{
	struct fx *f = fx_new();
	struct crash_event ev[2];
	char *out, *lines[64];
	size_t len, n, events = 0;

	memset(ev, 0, sizeof(ev));
	ev[0].type = EVENT_CRASH;
	ev[0].tgid = 77;
	ev[0].signal = 11;
	ev[0].core_dumped = 1;
	strcpy(ev[0].comm, "seg fault");
	ev[1].type = EVENT_CRASH;
	ev[1].tgid = 78;
	ev[1].signal = 40;
	memcpy(ev[1].comm, "0123456789abcdef", 16);	/* no NUL */
	f->frame.crash_events = ev;
	f->frame.ncrash_events = 2;
	add_row(f, 1, "dd", 2, "vda", 1, 1, 1);
	out = render_to_string(render_batch, &f->frame, &len);
	n = split_lines(out, len, lines, 64);
	for (size_t i = 0; i < n; i++) {
		if (strncmp(lines[i], "# crash-event ", 14))
			continue;
		events++;
		if (strstr(lines[i], "pid=77 "))
			cr_assert(strstr(lines[i], "comm=seg\\x20fault signal=SIGSEGV core_dumped=1"),
				  "%s", lines[i]);
		else
			cr_assert(strstr(lines[i], "pid=78 comm=0123456789abcdef signal=SIG40 "
					 "core_dumped=0"), "%s", lines[i]);
	}
	cr_assert_eq(events, 2);
	free(out);
	fx_free(f);
}

Test(render_batch, columns_line_names_every_field)
{
	struct cap c;
	static char fields[MAXFIELDS][FIELDLEN];

	render_batch_columns(cap_open(&c));
	cap_close(&c);
	cr_assert_eq(c.buf[0], '#');
	cr_assert_eq(c.buf[c.len - 1], '\n');
	c.buf[c.len - 1] = '\0';
	cr_assert_eq(split_fields(c.buf + 1, fields), BATCH_FIELDS, "%s", c.buf);
	cr_assert_str_eq(fields[0], "time");
	cr_assert_str_eq(fields[2], "comm");
	cr_assert_str_eq(fields[5], "write_bytes");
	cr_assert_str_eq(fields[11], "avg_latency_us");
	cr_assert_str_eq(fields[12], "dirtied_bytes");
	cr_assert_str_eq(fields[13], "writeback_bytes");
	cr_assert_str_eq(fields[14], "cgroup");
	cr_assert_str_eq(fields[15], "for");
	cr_assert_str_eq(fields[16], "iowait_pct");
	cr_assert_str_eq(fields[17], "swapin_pct");
	cr_assert_str_eq(fields[18], "uid");
	cr_assert_str_eq(fields[19], "user");
	cr_assert_str_eq(fields[20], "ioprio");
	cr_assert_str_eq(fields[21], "cmdline");
	cr_assert_str_eq(fields[22], "errors");
	cr_assert_str_eq(fields[23], "error_kinds");
	cr_assert_str_eq(fields[24], "cgroup_io_pressure_some_pct");
	cr_assert_str_eq(fields[25], "cgroup_io_pressure_full_pct");
	free(c.buf);
}

/*
 * doc/outputs.md against the columns line the batch view prints (issue 48:
 * the doc had uid and cmdline at 17 and 20, and an example of 18 fields):
 * every row of its batch table ("| 19 | `uid` |", "| 5–7 | `a` `b` `c` |"),
 * every "(batch field N)" of its JSON table, and its example, whose columns
 * line is the view's and whose data lines have every field.
 */
static char doc_outputs[262144];

static const char *read_doc_outputs(void)
{
	FILE *f = fopen("doc/outputs.md", "r");
	size_t n;

	cr_assert_not_null(f, "doc/outputs.md: run the tests from the source directory");
	n = fread(doc_outputs, 1, sizeof(doc_outputs) - 1, f);
	cr_assert(feof(f), "doc/outputs.md is larger than the test reads");
	fclose(f);
	doc_outputs[n] = '\0';
	return doc_outputs;
}

/* The line at p, without its newline, in buf. */
static const char *line_at(const char *p, char *buf, size_t size)
{
	size_t len = strcspn(p, "\n");

	cr_assert_lt(len, size, "a line of doc/outputs.md is too long: %.80s", p);
	memcpy(buf, p, len);
	buf[len] = '\0';
	return buf;
}

Test(render_batch, doc_outputs_field_numbers_are_the_columns_line)
{
	static char fields[MAXFIELDS][FIELDLEN], example[MAXFIELDS][FIELDLEN];
	static char line[65536];
	const char *doc = read_doc_outputs(), *batch, *json, *p;
	unsigned int rows = 0, refs = 0, data_lines = 0;
	size_t nfields;
	struct cap c;

	render_batch_columns(cap_open(&c));
	cap_close(&c);
	c.buf[c.len - 1] = '\0';
	nfields = split_fields(c.buf + 1, fields);	/* fields[N - 1] is field N */
	batch = strstr(doc, "\n## Batch");
	json = strstr(doc, "\n## JSON");
	cr_assert(batch && json && batch < json, "doc/outputs.md: no Batch and JSON sections");

	/* the batch table */
	for (p = batch; p < json; p = strchr(p, '\n') + 1) {
		const char *name;
		char *end;
		long first, last;

		if (strncmp(p, "| ", 2) || !isdigit((unsigned char)p[2]))
			continue;
		line_at(p, line, sizeof(line));
		first = last = strtol(line + 2, &end, 10);
		if (!strncmp(end, "\xe2\x80\x93", 3))	/* "5–7" */
			last = strtol(end + 3, &end, 10);
		cr_assert(!strncmp(end, " | `", 4), "doc/outputs.md: %s", line);
		name = end + 3;
		for (long n = first; n <= last; n++) {
			size_t len;

			cr_assert_eq(*name, '`', "doc/outputs.md: no name for field %ld: %s", n, line);
			len = strcspn(name + 1, "`");
			cr_assert(n >= 1 && (size_t)n <= nfields, "doc/outputs.md: field %ld of %zu: %s",
				  n, nfields, line);
			cr_assert(strlen(fields[n - 1]) == len && !strncmp(name + 1, fields[n - 1], len),
				  "doc/outputs.md says field %ld is %.*s, the columns line %s", n,
				  (int)len, name + 1, fields[n - 1]);
			name += len + 2;
			if (*name == ' ')
				name++;
			rows++;
		}
	}
	cr_assert_eq(rows, nfields, "the table names %u fields of %zu", rows, nfields);

	/* "(batch field N)" in JSON's table: the row's key is field N */
	for (p = strstr(json, "(batch field "); p; p = strstr(p + 1, "(batch field ")) {
		const char *key, *start = p;
		long n = strtol(p + strlen("(batch field "), NULL, 10);
		size_t len;

		while (start > doc && start[-1] != '\n')
			start--;
		line_at(start, line, sizeof(line));
		key = strstr(line, "`processes[].");
		cr_assert_not_null(key, "doc/outputs.md: no key before (batch field %ld): %s", n, line);
		key += strlen("`processes[].");
		len = strcspn(key, "`");
		cr_assert(n >= 1 && (size_t)n <= nfields, "doc/outputs.md: batch field %ld: %s", n,
			  line);
		cr_assert(strlen(fields[n - 1]) == len && !strncmp(key, fields[n - 1], len),
			  "doc/outputs.md says %.*s is batch field %ld, the columns line %s", (int)len,
			  key, n, fields[n - 1]);
		refs++;
	}
	cr_assert_geq(refs, 6, "(batch field N) references: %u", refs);

	/* the example: the view's columns line, data lines of every field */
	p = strstr(batch, "\n```\n# time pid ");
	cr_assert(p && p < json, "doc/outputs.md: no batch example");
	p += 5;
	cr_assert_str_eq(line_at(p, line, sizeof(line)), c.buf,
			 "the example's columns line is not the view's");
	for (p = strchr(p, '\n') + 1; strncmp(p, "```", 3); p = strchr(p, '\n') + 1) {
		if (*p == '#')
			continue;
		line_at(p, line, sizeof(line));
		cr_assert_eq(split_fields(line, example), nfields, "an example line of %zu fields: %s",
			     split_fields(line, example), line);
		data_lines++;
	}
	cr_assert_gt(data_lines, 0);
	free(c.buf);
}

Test(render_batch, write_name_escapes_exactly_the_awk_unsafe_bytes)
{
	for (int b = 0; b < 256; b++) {
		char in = (char)b, expected[8];
		struct cap c;

		batch_write_name(cap_open(&c), &in, 1);
		cap_close(&c);
		if (b <= 0x20 || b >= 0x7f || b == '\\')
			snprintf(expected, sizeof(expected), "\\x%02x", b);
		else
			snprintf(expected, sizeof(expected), "%c", b);
		cr_assert_eq(c.len, strlen(expected), "byte %#x", b);
		cr_assert_eq(memcmp(c.buf, expected, c.len), 0, "byte %#x: %.*s", b, (int)c.len,
			     c.buf);
		free(c.buf);
	}
}

Test(render_batch, write_name_empty_is_dash)
{
	struct cap c;

	batch_write_name(cap_open(&c), "", 0);
	cap_close(&c);
	cr_assert_eq(c.len, 1);
	cr_assert_eq(c.buf[0], '-');
	free(c.buf);
}

/* ---- JSON ---- */

Test(render_json, checker_rejects_invalid_json)
{
	json_self_test();
}

static void check_counters(const struct jnode *obj, const uint64_t *v)
{
	cr_assert_eq(jkey_u64(obj, "read_bytes"), v[PMEM_READ_BYTES]);
	cr_assert_eq(jkey_u64(obj, "write_bytes"), v[PMEM_WRITE_BYTES]);
	cr_assert_eq(jkey_u64(obj, "discard_bytes"), v[PMEM_DISCARD_BYTES]);
	cr_assert_eq(jkey_u64(obj, "read_ios"), v[PMEM_READ_IOS]);
	cr_assert_eq(jkey_u64(obj, "write_ios"), v[PMEM_WRITE_IOS]);
	cr_assert_eq(jkey_u64(obj, "discard_ios"), v[PMEM_DISCARD_IOS]);
}

static void check_device(const struct jnode *obj, const struct pmem_device *dev, bool cumulative)
{
	uint64_t v[PMEM_NR_COUNTERS];

	for (int i = 0; i < PMEM_NR_COUNTERS; i++)
		v[i] = pmem_value(&dev->counter[i], cumulative);
	cr_assert_eq(obj->type, J_OBJ);
	check_counters(obj, v);
}

/* "type", "schema", "host", "time" and "ts" of an interval or summary record. */
static void expect_record_head(const struct jnode *root, const char *type)
{
	struct utsname uts;

	cr_assert(jstr_is(jmust(root, "type", J_STR), type, strlen(type)), "not a %s record", type);
	cr_assert_eq(jkey_u64(root, "schema"), 1);
	cr_assert_eq(uname(&uts), 0);
	cr_assert(jstr_is(jmust(root, "host", J_STR), uts.nodename, strlen(uts.nodename)));
	cr_assert(jstr_is(jmust(root, "time", J_STR), WALL_TEXT, strlen(WALL_TEXT)), "time %s",
		  jget(root, "time")->str);
	cr_assert_str_eq(jmust(root, "ts", J_NUM)->str, WALL_TS);
}

/* Checks every key of the output contract; returns the processes array. */
static const struct jnode *check_frame(const struct jnode *root, const struct fx *f)
{
	const struct jnode *procs, *devices, *total, *lost, *by_cause, *crash, *by_process;
	uint64_t sum = 0;

	cr_assert_eq(root->type, J_OBJ);
	expect_record_head(root, "interval");
	cr_assert_float_eq(jkey_double(root, "interval_s"), f->frame.interval_s, 1e-9);
	cr_assert_eq(jkey_u64(root, "rows_cut"), 0);

	procs = jmust(root, "processes", J_ARR);
	cr_assert_eq(procs->nkids, f->frame.nrows);
	for (size_t r = 0; r < procs->nkids; r++) {
		const struct jnode *p = &procs->kids[r];
		const struct proc_io *row = f->frame.rows[r];
		const struct jnode *lat;

		cr_assert_eq(p->type, J_OBJ);
		cr_assert_eq(jkey_u64(p, "pid"), row->key.tgid);
		jmust(p, "comm", J_STR);
		jmust(p, "device", iostats_has_device(row) ? J_STR : J_NULL);
		jmust(p, "iowait_pct", f->frame.iowait_known ? J_NUM : J_NULL);
		jmust(p, "swapin_pct", f->frame.swapin_known ? J_NUM : J_NULL);
		jmust(p, "cgroup_pressure", row->cgroup_pressure.known ? J_OBJ : J_NULL);
		check_counters(p, iostats_values(row, f->frame.cumulative));
		lat = jget(p, "avg_latency_us");
		cr_assert_not_null(lat, "avg_latency_us missing");
		cr_assert(lat->type == J_NULL || lat->type == J_NUM);
	}

	devices = jmust(root, "devices", J_OBJ);
	cr_assert_eq(devices->nkids, f->pm.count);
	for (size_t d = 0; d < f->pm.count; d++) {
		const char *name = f->pm.devices[d].name;
		bool plain = true;

		for (const char *c = name; *c; c++)
			plain &= *c > 0x20 && *c < 0x7f && *c != '"' && *c != '\\';
		/* devices come in name order; plain names are keys as they are */
		if (plain)
			cr_assert(jstr_is(&(const struct jnode){ .type = J_STR,
				  .str = devices->kids[d].key, .len = devices->kids[d].keylen },
				  name, strlen(name)), "device #%zu is not %s", d, name);
		check_device(&devices->kids[d], &f->pm.devices[d], f->frame.cumulative);
	}
	total = jmust(root, "total", J_OBJ);
	check_device(total, &f->pm.aggregate, f->frame.cumulative);

	lost = jmust(root, "lost", J_OBJ);
	by_cause = jmust(lost, "by_cause", J_OBJ);
	cr_assert_eq(by_cause->nkids, LOST_NR_CAUSES);
	for (size_t i = 0; i < by_cause->nkids; i++)
		sum += ju64(&by_cause->kids[i]);
	cr_assert_eq(jkey_u64(lost, "events"), sum, "lost.events is not the sum of by_cause");
	cr_assert_eq(jkey_u64(lost, "events"), lost_total(f->frame.lost));
	for (int i = 0; i < LOST_NR_CAUSES; i++)
		cr_assert_eq(jkey_u64(by_cause, lost_cause_names[i]), f->frame.lost[i]);

	crash = jmust(root, "crash", J_OBJ);
	cr_assert_eq(jkey_u64(crash, "interval_s"), f->cf.interval_ns / NS_PER_S);
	cr_assert_eq(jkey_u64(crash, "operational_intervals"), f->cf.operational_intervals);
	cr_assert_eq(jkey_u64(crash, "crashfree_intervals"), f->cf.crashfree_intervals);
	cr_assert_eq(jkey_u64(crash, "crashes"), f->cf.crashes);
	by_process = jmust(crash, "by_process", J_OBJ);
	cr_assert_eq(by_process->nkids, f->cf.nprocesses);
	sum = 0;
	for (size_t i = 0; i < by_process->nkids; i++)
		sum += ju64(&by_process->kids[i]);
	cr_assert_eq(sum, f->cf.crashes);
	return procs;
}

Test(render_json, zero_rows)
{
	struct fx *f = fx_new();
	const struct jnode *by_process;
	struct jnode root;
	char *out;
	size_t len;

	out = render_to_string(render_json, &f->frame, &len);
	json_parse_line(out, len, &root);
	check_frame(&root, f);
	cr_assert_eq(jmust(&root, "processes", J_ARR)->nkids, 0);
	/* the fixture's values, spelled out once */
	cr_assert_eq(jkey_u64(jmust(jmust(&root, "devices", J_OBJ), "vda", J_OBJ), "write_bytes"),
		     1048576);
	cr_assert_eq(jkey_u64(jmust(&root, "total", J_OBJ), "read_bytes"), 12288);
	by_process = jmust(jmust(&root, "crash", J_OBJ), "by_process", J_OBJ);
	cr_assert_eq(jkey_u64(by_process, "my daemon"), 2);
	cr_assert_eq(jkey_u64(by_process, "q\"u\\o,t:e="), 1);
	cr_assert_eq(jkey_u64(jmust(&root, "crash", J_OBJ), "interval_s"), 3600);
	j_free(&root);
	free(out);
	fx_free(f);
}

Test(render_json, one_row)
{
	struct fx *f = fx_new();
	const struct jnode *procs, *p;
	struct jnode root;
	char *out;
	size_t len;

	add_row(f, 123, "dd", 2, "vda", 0, 1048576, 0);
	out = render_to_string(render_json, &f->frame, &len);
	json_parse_line(out, len, &root);
	procs = check_frame(&root, f);
	cr_assert_eq(procs->nkids, 1);
	p = &procs->kids[0];
	cr_assert_eq(jkey_u64(p, "pid"), 123);
	cr_assert(jstr_is(jmust(p, "comm", J_STR), "dd", 2));
	cr_assert(jstr_is(jmust(p, "device", J_STR), "vda", 3));
	cr_assert_eq(jkey_u64(p, "write_bytes"), 1048576);
	cr_assert_eq(jkey_u64(p, "write_ios"), 256);
	cr_assert_eq(jkey_u64(p, "read_bytes"), 0);
	cr_assert_eq(jmust(p, "avg_latency_us", J_NULL)->type, J_NULL);
	j_free(&root);
	free(out);
	fx_free(f);
}

/* issue 45: a row's "cgroup_pressure", {"some","full"} with two decimals,
 * or null where not known. */
Test(render_json, cgroup_pressure_is_an_object_or_null)
{
	struct fx *f = fx_new();
	const struct jnode *procs, *pressure;
	struct jnode root;
	char *out;
	size_t len;

	add_row(f, 123, "dd", 2, "vda", 0, 1048576, 0)->cgroup_pressure =
		(struct pressure_share){ true, 81.5, 79.126 };
	add_row(f, 124, "cp", 2, "vda", 0, 4096, 0);
	out = render_to_string(render_json, &f->frame, &len);
	json_parse_line(out, len, &root);
	procs = check_frame(&root, f);
	cr_assert_eq(procs->nkids, 2);
	pressure = jmust(&procs->kids[0], "cgroup_pressure", J_OBJ);
	cr_assert_eq(pressure->nkids, 2);
	cr_assert_str_eq(jmust(pressure, "some", J_NUM)->str, "81.50");
	cr_assert_str_eq(jmust(pressure, "full", J_NUM)->str, "79.13");
	jmust(&procs->kids[1], "cgroup_pressure", J_NULL);
	j_free(&root);
	free(out);
	fx_free(f);
}

/* IO> and SWAPIN: the interval's source, each row's shares (null where not
 * known), and a process that only waited: device null, no I/O. */
Test(render_json, waits_and_a_row_of_no_disk)
{
	struct fx *f = fx_new();
	const struct jnode *procs, *p;
	struct proc_io *row;
	struct jnode root;
	char *out;
	size_t len;

	f->frame.interval_s = 2;
	f->frame.waits_source = WAITS_SCHED;
	f->frame.iowait_known = true;
	add_row(f, 123, "dd", 2, "vda", 0, 1048576, 0)->wait_delta.blkio_ns = 500000000;
	row = add_row(f, 124, "postgres", 8, "-", 0, 0, 0);
	row->key.dev = IOWAIT_NO_DEVICE;
	row->wait_delta.blkio_ns = 1999990000;
	out = render_to_string(render_json, &f->frame, &len);
	json_parse_line(out, len, &root);
	procs = check_frame(&root, f);
	cr_assert(jstr_is(jmust(&root, "iowait_source", J_STR), "sched", 5));
	p = &procs->kids[0];
	cr_assert_str_eq(jmust(p, "iowait_pct", J_NUM)->str, "25.00");
	cr_assert_eq(jmust(p, "swapin_pct", J_NULL)->type, J_NULL);
	p = &procs->kids[1];
	cr_assert_eq(jmust(p, "device", J_NULL)->type, J_NULL);
	cr_assert_str_eq(jmust(p, "iowait_pct", J_NUM)->str, "100.00");
	cr_assert_eq(jkey_u64(p, "read_bytes") + jkey_u64(p, "write_bytes"), 0);
	j_free(&root);
	free(out);

	/* delay accounting: both known; not measured at all: a null source */
	f->frame.waits_source = WAITS_DELAYACCT;
	f->frame.swapin_known = true;
	f->rows[0].wait_delta.swapin_ns = 20000000;
	out = render_to_string(render_json, &f->frame, &len);
	json_parse_line(out, len, &root);
	procs = check_frame(&root, f);
	cr_assert(jstr_is(jmust(&root, "iowait_source", J_STR), "delayacct", 9));
	cr_assert_str_eq(jmust(&procs->kids[0], "swapin_pct", J_NUM)->str, "1.00");
	j_free(&root);
	free(out);
	f->frame.waits_source = WAITS_NONE;
	f->frame.iowait_known = f->frame.swapin_known = false;
	out = render_to_string(render_json, &f->frame, &len);
	json_parse_line(out, len, &root);
	check_frame(&root, f);
	cr_assert_eq(jmust(&root, "iowait_source", J_NULL)->type, J_NULL);
	j_free(&root);
	free(out);
	fx_free(f);
}

Test(render_json, many_rows)
{
	struct fx *f = fx_new();
	const struct jnode *procs;
	struct jnode root;
	char *out;
	size_t len;

	for (uint32_t i = 0; i < 400; i++) {
		char comm[16];

		snprintf(comm, sizeof(comm), "p%u", i);
		add_row(f, 1000 + i, comm, strlen(comm), i % 2 ? "vda" : "zram0", i, 2 * i, 3 * i);
	}
	out = render_to_string(render_json, &f->frame, &len);
	json_parse_line(out, len, &root);
	procs = check_frame(&root, f);
	cr_assert_eq(procs->nkids, 400);
	for (uint32_t i = 0; i < 400; i++) {
		char comm[16];

		snprintf(comm, sizeof(comm), "p%u", i);
		cr_assert(jstr_is(jmust(&procs->kids[i], "comm", J_STR), comm, strlen(comm)));
		cr_assert_eq(jkey_u64(&procs->kids[i], "discard_bytes"), 3 * i);
	}
	j_free(&root);
	free(out);
	fx_free(f);
}

Test(render_json, hostile_names_stay_valid_json)
{
	static const struct {
		const char *in;
		size_t len;
		const char *decoded;	/* what a JSON reader gets back */
		size_t dlen;
	} names[] = {
		{ "a\"b", 3, "a\"b", 3 },
		{ "back\\slash", 10, "back\\slash", 10 },
		{ "\x01\x1f\n\t\x7f", 5, "\x01\x1f\n\t\x7f", 5 },
		{ "\x1b[2J", 4, "\x1b[2J", 4 },
		{ "\xff", 1, "\xc3\xbf", 2 },		/* Latin-1 reading of a stray byte */
		{ "caf\xc3\xa9", 5, "caf\xc3\xa9", 5 },	/* valid UTF-8 passes */
		{ "\xc3", 1, "\xc3\x83", 2 },		/* truncated sequence */
		{ "", 0, "", 0 },
		{ "nul\0x", 5, "nul\0x", 5 },
		{ "</script>", 9, "</script>", 9 },
	};
	struct fx *f = fx_new();
	const struct jnode *procs;
	struct jnode root;
	char *out;
	size_t len, n = sizeof(names) / sizeof(names[0]);

	for (size_t i = 0; i < n; i++)
		add_row(f, 10 + i, names[i].in, names[i].len, names[i].in[0] ? names[i].in : "x",
			1, 2, 3);
	dev_add(&f->pm, "d\"ev\\\x01\xff", 1, 2, 3, 4, 5, 6);
	pmem_flush(&f->pm);
	out = render_to_string(render_json, &f->frame, &len);
	json_parse_line(out, len, &root);
	procs = check_frame(&root, f);
	for (size_t i = 0; i < n; i++)
		cr_assert(jstr_is(jmust(&procs->kids[i], "comm", J_STR), names[i].decoded,
				  names[i].dlen), "name #%zu", i);
	j_free(&root);
	free(out);
	fx_free(f);
}

Test(render_json, lost_events_is_the_sum_of_causes)
{
	struct fx *f = fx_new();
	const struct jnode *lost;
	struct jnode root;
	char *out;
	size_t len;

	for (int i = 0; i < LOST_NR_CAUSES; i++)
		f->frame.lost[i] = (uint64_t)(i + 1) * 1000000007ULL;
	out = render_to_string(render_json, &f->frame, &len);
	json_parse_line(out, len, &root);
	check_frame(&root, f);
	lost = jmust(&root, "lost", J_OBJ);
	cr_assert_eq(jkey_u64(lost, "events"),
		     (uint64_t)(LOST_NR_CAUSES * (LOST_NR_CAUSES + 1) / 2) * 1000000007ULL);
	cr_assert_eq(jkey_u64(jmust(lost, "by_cause", J_OBJ), "ringbuf_full"), 3 * 1000000007ULL);
	cr_assert_eq(jkey_u64(jmust(lost, "by_cause", J_OBJ), "perf_buffer"), 5 * 1000000007ULL);
	j_free(&root);
	free(out);
	fx_free(f);
}

Test(render_json, big_counters_are_exact)
{
	struct fx *f = fx_new();
	struct proc_io *row;
	const struct jnode *p;
	struct jnode root;
	char *out;
	size_t len;

	row = add_row(f, 1, "dd", 2, "vda", 0, 5000000000ULL, 0);
	row->delta[PMEM_READ_BYTES] = UINT64_MAX;
	row->delta[PMEM_DISCARD_IOS] = (UINT64_C(1) << 53) + 1;
	out = render_to_string(render_json, &f->frame, &len);
	cr_assert(strstr(out, "\"write_bytes\":5000000000,"), "%s", out);
	cr_assert(strstr(out, "\"read_bytes\":18446744073709551615,"), "%s", out);
	json_parse_line(out, len, &root);
	p = &check_frame(&root, f)->kids[0];
	cr_assert_eq(jkey_u64(p, "discard_ios"), (UINT64_C(1) << 53) + 1);
	j_free(&root);
	free(out);
	fx_free(f);
}

Test(render_json, latency_with_L)
{
	struct fx *f = fx_new();
	struct proc_io *row;
	const struct jnode *procs;
	struct jnode root;
	char *out;
	size_t len;

	row = add_row(f, 1, "dd", 2, "vda", 0, 4096, 0);
	row->delta[PMEM_LATENCY_NS] = 521000;
	row->delta[PMEM_LATENCY_IOS] = 10;
	add_row(f, 2, "cp", 2, "vda", 0, 4096, 0);
	f->frame.per_process_latency = true;
	out = render_to_string(render_json, &f->frame, &len);
	json_parse_line(out, len, &root);
	procs = check_frame(&root, f);
	cr_assert_float_eq(jkey_double(&procs->kids[0], "avg_latency_us"), 52.1, 1e-9);
	jmust(&procs->kids[1], "avg_latency_us", J_NULL);
	/* no histogram kept for these rows: percentiles are null */
	jmust(jmust(&procs->kids[0], "latency_us", J_OBJ), "p99", J_NULL);
	/* devices always carry their latency */
	cr_assert_float_eq(jkey_double(jmust(jmust(&root, "devices", J_OBJ), "vda", J_OBJ),
				       "avg_latency_us"), 52.1, 1e-9);
	j_free(&root);
	free(out);
	fx_free(f);
}

Test(render_json, cumulative_and_fractional_interval)
{
	struct fx *f = fx_new();
	const struct jnode *procs;
	struct jnode root;
	char *out;
	size_t len;

	add_row(f, 1, "dd", 2, "vda", 4096, 8192, 0);
	f->frame.cumulative = true;
	f->frame.interval_s = 0.2;
	out = render_to_string(render_json, &f->frame, &len);
	json_parse_line(out, len, &root);
	procs = check_frame(&root, f);
	cr_assert_eq(jkey_u64(&procs->kids[0], "read_bytes"), 40960);
	cr_assert_float_eq(jkey_double(&root, "interval_s"), 0.2, 1e-12);
	j_free(&root);
	free(out);
	fx_free(f);
}

Test(render_json, crash_events_stay_valid)
{
	struct fx *f = fx_new();
	struct crash_event ev[2];
	const struct jnode *events;
	struct jnode root;
	char *out;
	size_t len;

	memset(ev, 0, sizeof(ev));
	ev[0].tgid = 77;
	ev[0].signal = 6;
	ev[0].core_dumped = 1;
	strcpy(ev[0].comm, "a\"b\\\x01");
	ev[1].tgid = 78;
	ev[1].signal = 11;
	memcpy(ev[1].comm, "0123456789abcdef", 16);	/* no NUL */
	f->frame.crash_events = ev;
	f->frame.ncrash_events = 2;
	out = render_to_string(render_json, &f->frame, &len);
	json_parse_line(out, len, &root);
	check_frame(&root, f);
	events = jmust(&root, "crash_events", J_ARR);
	cr_assert_eq(events->nkids, 2);
	cr_assert_eq(jkey_u64(&events->kids[0], "pid"), 77);
	cr_assert(jstr_is(jmust(&events->kids[0], "comm", J_STR), "a\"b\\\x01", 5));
	cr_assert(jstr_is(jmust(&events->kids[0], "signal", J_STR), "SIGABRT", 7));
	jmust(&events->kids[0], "core_dumped", J_TRUE);
	cr_assert(jstr_is(jmust(&events->kids[1], "comm", J_STR), "0123456789abcdef", 16));
	jmust(&events->kids[1], "core_dumped", J_FALSE);
	j_free(&root);
	free(out);
	fx_free(f);
}

Test(render_json, lost_alone_is_valid)
{
	uint64_t lost[LOST_NR_CAUSES] = { 0, 0, 0, 0, 9, 1 };
	struct jnode root;
	struct cap c;
	FILE *out = cap_open(&c);

	struct jsonw w;

	jsonw_init(&w, out);
	jsonw_object(&w, NULL);
	json_write_lost(&w, lost);
	jsonw_object_end(&w);
	jsonw_end_record(&w);
	cap_close(&c);
	json_parse_line(c.buf, c.len, &root);
	cr_assert_eq(jkey_u64(jmust(&root, "lost", J_OBJ), "events"), 10);
	cr_assert_eq(lost_total(lost), 10);
	j_free(&root);
	free(c.buf);
}

/* issue 46: the start record, live JSON's first: its head and interval_s. */
Test(render_json, start_record_head_and_interval)
{
	struct jnode root;
	struct utsname uts;
	struct cap c;
	struct view v;
	FILE *out = cap_open(&c);

	view_json(&v, out);
	v.interval_s = 0.25;
	view_json_start(&v);
	cap_close(&c);
	cr_assert_eq(memchr(c.buf, '\n', c.len), c.buf + c.len - 1, "not one line: %s", c.buf);
	json_parse_line(c.buf, c.len, &root);
	cr_assert(jstr_is(jmust(&root, "type", J_STR), "start", 5));
	cr_assert_eq(jkey_u64(&root, "schema"), 1);
	cr_assert_eq(uname(&uts), 0);
	cr_assert(jstr_is(jmust(&root, "host", J_STR), uts.nodename, strlen(uts.nodename)));
	jmust(&root, "time", J_STR);
	jmust(&root, "ts", J_NUM);
	cr_assert_str_eq(jmust(&root, "interval_s", J_NUM)->str, "0.25");
	j_free(&root);
	free(c.buf);
}

/* ---- summary ---- */

Test(render_summary, json)
{
	struct fx *f = fx_new();
	struct timespec wall = { WALL_SEC, WALL_NSEC };
	uint64_t lost[LOST_NR_CAUSES] = { 1, 2, 3, 4, 5, 6 }, received = 12345;
	const struct jnode *s, *l;
	struct jnode root;
	struct cap c;

	/* Trace mode: events, no devices.  A flat record: "summary" is its type,
	 * not a key holding another shape. */
	render_summary(cap_open(&c), true, &wall, 12.5, lost, &received, &f->cf, NULL);
	cap_close(&c);
	json_parse_line(c.buf, c.len, &root);
	s = &root;
	expect_record_head(s, "summary");
	cr_assert_null(jget(s, "summary"));
	cr_assert_null(jget(s, "total"));
	cr_assert_null(jget(s, "devices"));
	cr_assert_float_eq(jkey_double(s, "duration_s"), 12.5, 1e-9);
	cr_assert_eq(jkey_u64(s, "events"), 12345);
	l = jmust(s, "lost", J_OBJ);
	cr_assert_eq(jkey_u64(l, "events"), 21);
	cr_assert_eq(jmust(l, "by_cause", J_OBJ)->nkids, LOST_NR_CAUSES);
	cr_assert_eq(jkey_u64(jmust(s, "crash", J_OBJ), "crashes"), 3);
	cr_assert_eq(jkey_u64(jmust(s, "crash", J_OBJ), "crashfree_intervals"), 3);
	j_free(&root);
	free(c.buf);

	/* Without trace: no events key; the run's totals, as "devices" and
	 * "total" of an interval record hold them with -a. */
	render_summary(cap_open(&c), true, &wall, 1, lost, NULL, &f->cf, &f->pm);
	cap_close(&c);
	json_parse_line(c.buf, c.len, &root);
	cr_assert_null(jget(&root, "events"));
	check_device(jmust(&root, "total", J_OBJ), &f->pm.aggregate, true);
	cr_assert_eq(jkey_u64(jmust(&root, "total", J_OBJ), "write_bytes"), 1048576);
	cr_assert_eq(jmust(&root, "devices", J_OBJ)->nkids, 2);
	check_device(jget(jmust(&root, "devices", J_OBJ), "zram0"),
		     pmem_device_get(&f->pm, "zram0"), true);
	j_free(&root);
	free(c.buf);
	fx_free(f);
}

Test(render_summary, batch)
{
	struct fx *f = fx_new();
	struct timespec wall = { WALL_SEC, WALL_NSEC };
	uint64_t lost[LOST_NR_CAUSES] = { 1, 2, 3, 4, 5, 6 }, received = 12345;
	char *lines[16];
	size_t n;
	struct cap c;

	render_summary(cap_open(&c), false, &wall, 12.5, lost, &received, &f->cf, NULL);
	cap_close(&c);
	n = split_lines(c.buf, c.len, lines, 16);
	cr_assert_eq(n, 2);
	for (size_t i = 0; i < n; i++)
		cr_assert_eq(lines[i][0], '#', "%s", lines[i]);
	cr_assert(!strncmp(lines[0], "# summary time=" WALL_TEXT " ", 40), "%s", lines[0]);
	cr_assert(strstr(lines[0], " duration_s=12.500"), "%s", lines[0]);
	cr_assert(strstr(lines[0], " events=12345"), "%s", lines[0]);
	cr_assert(strstr(lines[0], " lost=21"), "%s", lines[0]);
	cr_assert(strstr(lines[1], "crashes=3"), "%s", lines[1]);
	free(c.buf);

	render_summary(cap_open(&c), false, &wall, 1, lost, NULL, &f->cf, &f->pm);
	cap_close(&c);
	cr_assert_null(strstr(c.buf, "events="), "%s", c.buf);
	free(c.buf);
	fx_free(f);
}

/* ---- formatters ---- */

static void expect_duration(uint64_t seconds, const char *expected)
{
	char buf[32];

	format_duration(buf, sizeof(buf), seconds);
	cr_assert_str_eq(buf, expected, "format_duration(%" PRIu64 ")", seconds);
}

Test(format, duration)
{
	expect_duration(3600, "1h");
	expect_duration(60, "1m");
	expect_duration(90, "90s");
	expect_duration(86400, "1d");
	expect_duration(1, "1s");
	expect_duration(0, "0s");
	expect_duration(7200, "2h");
	expect_duration(90000, "25h");
	expect_duration(1800, "30m");
	expect_duration(3 * 86400, "3d");
	expect_duration(3661, "3661s");
}

static void expect_bytes(double bytes, const char *expected)
{
	char buf[32];

	format_bytes(buf, sizeof(buf), bytes);
	cr_assert_str_eq(buf, expected, "format_bytes(%g)", bytes);
}

Test(format, bytes)
{
	expect_bytes(0, "0 B");
	expect_bytes(1, "1 B");
	expect_bytes(1023, "1023 B");
	expect_bytes(1024, "1.0 KiB");
	expect_bytes(1536, "1.5 KiB");
	expect_bytes(1048576, "1.0 MiB");
	expect_bytes(5000000000.0, "4.7 GiB");
	expect_bytes(1099511627776.0, "1.0 TiB");
	expect_bytes(1125899906842624.0, "1.0 PiB");
	expect_bytes(1125899906842624.0 * 2048, "2048.0 PiB");
}

Test(format, bytes_truncates_to_buffer)
{
	char buf[4];

	format_bytes(buf, sizeof(buf), 1536);
	cr_assert_str_eq(buf, "1.5");
}

Test(format, utc)
{
	struct timespec t = { WALL_SEC, 999999999 };
	char buf[32];

	/* Milliseconds truncated: never the next second. */
	format_utc(buf, sizeof(buf), &t);
	cr_assert_str_eq(buf, "2026-11-22T08:00:01.999Z");
	cr_assert_eq(epoch_millis(&t), UINT64_C(1795334401999));
	t.tv_sec = 0;
	t.tv_nsec = 0;
	format_utc(buf, sizeof(buf), &t);
	cr_assert_str_eq(buf, "1970-01-01T00:00:00.000Z");
	cr_assert_eq(epoch_millis(&t), 0);
	t.tv_sec = 951782400;	/* leap day */
	t.tv_nsec = 1000000;
	format_utc(buf, sizeof(buf), &t);
	cr_assert_str_eq(buf, "2000-02-29T00:00:00.001Z");
	t.tv_nsec = 999999;
	format_utc(buf, sizeof(buf), &t);
	cr_assert_str_eq(buf, "2000-02-29T00:00:00.000Z");
}

Test(format, signal_names)
{
	static const struct {
		uint32_t sig;
		const char *name;
	} crashes[] = {
		{ 11, "SIGSEGV" }, { 7, "SIGBUS" }, { 4, "SIGILL" }, { 8, "SIGFPE" },
		{ 6, "SIGABRT" }, { 31, "SIGSYS" }, { 5, "SIGTRAP" }, { 3, "SIGQUIT" },
		{ 24, "SIGXCPU" }, { 25, "SIGXFSZ" },
	};
	char buf[16];

	for (size_t i = 0; i < sizeof(crashes) / sizeof(crashes[0]); i++)
		cr_assert_str_eq(signal_name(crashes[i].sig, buf, sizeof(buf)), crashes[i].name);
	cr_assert_str_eq(signal_name(9, buf, sizeof(buf)), "SIG9");
	cr_assert_str_eq(signal_name(0, buf, sizeof(buf)), "SIG0");
	cr_assert_str_eq(signal_name(64, buf, sizeof(buf)), "SIG64");
	cr_assert_str_eq(signal_name(UINT32_MAX, buf, sizeof(buf)), "SIG4294967295");
}

Test(format, lost_total_sums_every_reason)
{
	uint64_t lost[LOST_NR_CAUSES] = { 0 };

	cr_assert_eq(lost_total(lost), 0);
	lost[LOST_NR_CAUSES - 1] = 5;
	lost[0] = 1;
	cr_assert_eq(lost_total(lost), 6);
	for (int i = 0; i < LOST_NR_CAUSES; i++)
		cr_assert_not_null(lost_cause_names[i]);
}

/* ---- names on a terminal ---- */

/* The tests of UTF-8 names need a UTF-8 locale for wcwidth(): C.UTF-8,
 * which Debian's libc-bin ships.  Without it they fail, not skip. */
static void require_utf8_locale(void)
{
	locale_t loc = newlocale(LC_CTYPE_MASK, "C.UTF-8", (locale_t)0);

	cr_assert_not_null(loc, "no C.UTF-8 locale (/usr/lib/locale/C.utf8): %s", strerror(errno));
	freelocale(loc);
}

static void expect_name(const char *name, size_t len, bool utf8, const char *expected)
{
	char buf[256];

	cr_assert_eq(printable_name(buf, sizeof(buf), name, len, utf8), buf);
	cr_assert_str_eq(buf, expected, "utf8 %d", utf8);
}

#define EXPECT_NAME(literal, utf8, expected) \
	expect_name(literal, sizeof(literal) - 1, utf8, expected)

Test(printable_name, utf8_names_stay_as_written)
{
	require_utf8_locale();
	EXPECT_NAME("\u00fcnic\u00f6de\u2603", true, "\u00fcnic\u00f6de\u2603");
	EXPECT_NAME("\u6570\u636e\u5e93", true, "\u6570\u636e\u5e93");		/* 数据库 */
	EXPECT_NAME("e\u0301t\u00e9", true, "e\u0301t\u00e9");		/* combining */
	EXPECT_NAME("\U0001f600 ok", true, "\U0001f600 ok");		/* four bytes */
	EXPECT_NAME("a b/c:d", true, "a b/c:d");
	/* a backslash stays: systemd's escapes in cgroup paths read as its own */
	EXPECT_NAME("system-systemd\\x2dfsck.slice", true, "system-systemd\\x2dfsck.slice");
	EXPECT_NAME("system-systemd\\x2dfsck.slice", false, "system-systemd\\x2dfsck.slice");
}

/* No control reaches the terminal: C0, DEL, C1 raw or UTF-8 encoded (U+009B
 * is a CSI too), the line separator wcwidth() calls unprintable, and the bidi
 * controls that would reorder the columns after them. */
Test(printable_name, controls_are_escaped_under_utf8)
{
	require_utf8_locale();
	EXPECT_NAME("\x1b[31mred", true, "\\x1b[31mred");
	EXPECT_NAME("a\x9b" "2J", true, "a\\x9b2J");
	EXPECT_NAME("b\xc2\x9b" "2J", true, "b\\xc2\\x9b2J");
	EXPECT_NAME("\xc2\x80\xc2\x9f", true, "\\xc2\\x80\\xc2\\x9f");
	EXPECT_NAME("a\tb\nc\rd\x7f", true, "a\\x09b\\x0ac\\x0dd\\x7f");
	EXPECT_NAME("a\0b", true, "a\\x00b");
	EXPECT_NAME("x\u2028y", true, "x\\xe2\\x80\\xa8y");
	EXPECT_NAME("x\u202eevil", true, "x\\xe2\\x80\\xaeevil");
	EXPECT_NAME("x\u2066y\u2069", true, "x\\xe2\\x81\\xa6y\\xe2\\x81\\xa9");
}

/* UTF-8 is decoded strictly: every byte of what is no character is escaped
 * on its own, and what follows it shows again. */
Test(printable_name, invalid_utf8_is_escaped_byte_by_byte)
{
	require_utf8_locale();
	EXPECT_NAME("\xc0\xaf", true, "\\xc0\\xaf");				/* overlong '/' */
	EXPECT_NAME("\xe0\x80\xaf", true, "\\xe0\\x80\\xaf");			/* overlong */
	EXPECT_NAME("\xf0\x82\x82\xac", true, "\\xf0\\x82\\x82\\xac");		/* overlong */
	EXPECT_NAME("\xed\xa0\x80", true, "\\xed\\xa0\\x80");			/* surrogate */
	EXPECT_NAME("\xf4\x90\x80\x80", true, "\\xf4\\x90\\x80\\x80");		/* > U+10FFFF */
	EXPECT_NAME("\xf5\x80\x80\x80", true, "\\xf5\\x80\\x80\\x80");
	EXPECT_NAME("\xff\xfe", true, "\\xff\\xfe");
	EXPECT_NAME("\x80z", true, "\\x80z");					/* stray */
	EXPECT_NAME("a\xe2\x98", true, "a\\xe2\\x98");				/* cut */
	EXPECT_NAME("\xe2\x98\xc3\xbc", true, "\\xe2\\x98\u00fc");		/* cut, then ü */
	EXPECT_NAME("\xf4\x8f\xbf\xbf", true, "\\xf4\\x8f\\xbf\\xbf");		/* not a character */
}

Test(printable_name, ascii_only_outside_utf8)
{
	EXPECT_NAME("\u00fcnic\u00f6de\u2603", false, "\\xc3\\xbcnic\\xc3\\xb6de\\xe2\\x98\\x83");
	EXPECT_NAME("\x1b[31m\x9b", false, "\\x1b[31m\\x9b");
	EXPECT_NAME("a b~", false, "a b~");
	EXPECT_NAME("\x7f\x1f", false, "\\x7f\\x1f");
}

Test(printable_name, an_empty_name_is_a_dash)
{
	EXPECT_NAME("", false, "-");
	EXPECT_NAME("", true, "-");
}

/* A buffer too small: whole characters and escapes, always ended. */
Test(printable_name, cut_at_whole_characters_and_escapes)
{
	static const char name[] = "a\u6570\x1b" "b";	/* a, 3 bytes, an escape, b */
	static const char *const expected[] = {
		"", "a", "a", "a", "a\u6570", "a\u6570", "a\u6570", "a\u6570", "a\u6570\\x1b",
		"a\u6570\\x1bb", "a\u6570\\x1bb",
	};
	char buf[16];

	require_utf8_locale();
	for (size_t size = 1; size <= 11; size++) {
		memset(buf, 'x', sizeof(buf));
		printable_name(buf, size, name, sizeof(name) - 1, true);
		cr_assert_str_eq(buf, expected[size - 1], "size %zu", size);
	}
	memset(buf, 'x', sizeof(buf));
	printable_name(buf, 0, name, sizeof(name) - 1, true);
	cr_assert_eq(buf[0], 'x', "size 0: nothing written");
	printable_name(buf, 1, "", 0, true);
	cr_assert_str_empty(buf, "no room for the dash");
}

static size_t columns_of(const char *text)
{
	return text_columns(text, strlen(text));
}

Test(text_columns, count_what_a_terminal_shows)
{
	require_utf8_locale();
	cr_assert_eq(columns_of(""), 0);
	cr_assert_eq(columns_of("vda"), 3);
	cr_assert_eq(columns_of("\u00fcnic\u00f6de\u2603"), 8);
	cr_assert_eq(columns_of("\u6570\u636e\u5e93"), 6, "CJK: two columns each");
	cr_assert_eq(columns_of("e\u0301"), 1, "a combining accent takes none");
	cr_assert_eq(columns_of("\U0001f600"), 2);
	cr_assert_eq(columns_of("crash-free \u00b7"), 12);
	/* what is no character counts one, as a replacement mark */
	cr_assert_eq(columns_of("a\xff" "b"), 3);
	cr_assert_eq(columns_of("\xe2\x98"), 2);
}

static void expect_fitting(const char *text, size_t cols, size_t bytes, size_t columns)
{
	size_t got;

	cr_assert_eq(text_fitting(text, strlen(text), cols, &got), bytes, "'%s' in %zu", text,
		     cols);
	cr_assert_eq(got, columns, "'%s' in %zu", text, cols);
	cr_assert_eq(text_fitting(text, strlen(text), cols, NULL), bytes);
}

Test(text_fitting, cuts_between_characters_by_columns)
{
	require_utf8_locale();
	expect_fitting("abc", 2, 2, 2);
	expect_fitting("abc", 5, 3, 3);
	expect_fitting("abc", 0, 0, 0);
	/* 数据库: a cut at a wide character's edge, and one that would halve it */
	expect_fitting("\u6570\u636e\u5e93", 6, 9, 6);
	expect_fitting("\u6570\u636e\u5e93", 4, 6, 4);
	expect_fitting("\u6570\u636e\u5e93", 5, 6, 4);
	expect_fitting("\u6570\u636e\u5e93", 1, 0, 0);
	expect_fitting("a\u6570", 2, 1, 1);
	/* ü and ö are two bytes, one column */
	expect_fitting("\u00fcnic\u00f6de\u2603", 5, 7, 5);
	/* an accent goes with its letter, even past the last column */
	expect_fitting("e\u0301x", 1, 3, 1);
	expect_fitting("e\u0301x", 2, 4, 2);
	expect_fitting("a\xff" "b", 2, 2, 2);
}

/* ---- the crash-free line for people ---- */

static void expect_crash_line(const struct crashfree *cf, bool utf8, const char *expected)
{
	char buf[256];

	cr_assert_eq(format_crash_line(buf, sizeof(buf), cf, utf8), buf);
	cr_assert_str_eq(buf, expected);
}

Test(format_crash_line, plain_words_in_the_interval_unit)
{
	struct crashfree_process one[] = { { "myapp", 1 } };
	struct crashfree_process two[] = { { "myapp", 2 }, { "worker", 1 } };
	struct crashfree cf = { .interval_ns = 3600 * NS_PER_S };

	expect_crash_line(&cf, true, "crash-free 0 of 0 hours \u00b7 no crashes");
	expect_crash_line(&cf, false, "crash-free 0 of 0 hours - no crashes");
	cf.operational_intervals = 1;
	cf.crashfree_intervals = 1;
	expect_crash_line(&cf, false, "crash-free 1 of 1 hour - no crashes");
	cf.operational_intervals = 4;
	cf.crashfree_intervals = 3;
	cf.crashes = 1;
	cf.by_process = one;
	cf.nprocesses = 1;
	expect_crash_line(&cf, true, "crash-free 3 of 4 hours \u00b7 1 crash (myapp)");
	cf.crashes = 3;
	cf.by_process = two;
	cf.nprocesses = 2;
	expect_crash_line(&cf, false, "crash-free 3 of 4 hours - 3 crashes (myapp 2, worker 1)");
	/* one process, every crash its own: no count after its name */
	cf.by_process = (struct crashfree_process[]){ { "myapp", 3 } };
	cf.nprocesses = 1;
	expect_crash_line(&cf, false, "crash-free 3 of 4 hours - 3 crashes (myapp)");
}

Test(format_crash_line, other_interval_lengths)
{
	struct crashfree cf = { .operational_intervals = 2, .crashfree_intervals = 2 };

	cf.interval_ns = 86400 * NS_PER_S;
	expect_crash_line(&cf, false, "crash-free 2 of 2 days - no crashes");
	cf.interval_ns = 60 * NS_PER_S;
	expect_crash_line(&cf, false, "crash-free 2 of 2 minutes - no crashes");
	cf.interval_ns = 1 * NS_PER_S;
	expect_crash_line(&cf, false, "crash-free 2 of 2 seconds - no crashes");
	cf.interval_ns = 90 * NS_PER_S;
	expect_crash_line(&cf, false, "crash-free 2 of 2 intervals of 90s - no crashes");
	cf.interval_ns = 1800 * NS_PER_S;
	cf.operational_intervals = 1;
	cf.crashfree_intervals = 1;
	expect_crash_line(&cf, false, "crash-free 1 of 1 interval of 30m - no crashes");
}

/* Names as printable_name() shows them: in UTF-8 where the locale is. */
Test(format_crash_line, names_are_shown_as_the_terminal_can_show_them)
{
	struct crashfree_process hostile[] = {
		{ "\x1b[2J", 1 }, { "caf\xc3\xa9", 1 }, { "", 1 },
	};
	struct crashfree cf = {
		.interval_ns = 3600 * NS_PER_S, .crashes = 3, .by_process = hostile, .nprocesses = 3,
	};

	require_utf8_locale();
	expect_crash_line(&cf, false,
			  "crash-free 0 of 0 hours - 3 crashes (\\x1b[2J 1, caf\\xc3\\xa9 1, - 1)");
	expect_crash_line(&cf, true,
			  "crash-free 0 of 0 hours \u00b7 3 crashes (\\x1b[2J 1, caf\u00e9 1, - 1)");
}

/* A buffer too small for every name: whole names, then "...)", always ended. */
Test(format_crash_line, cut_at_a_whole_name)
{
	struct crashfree_process many[] = {
		{ "alpha", 1 }, { "bravo", 1 }, { "charlie", 1 }, { "delta", 1 },
	};
	struct crashfree cf = {
		.interval_ns = 3600 * NS_PER_S, .crashes = 4, .by_process = many, .nprocesses = 4,
	};
	char buf[64];

	format_crash_line(buf, sizeof(buf), &cf, false);
	cr_assert_str_eq(buf, "crash-free 0 of 0 hours - 4 crashes (alpha 1, bravo 1, ...)");
	for (size_t size = 1; size < sizeof(buf); size++) {
		memset(buf, 'x', sizeof(buf));
		format_crash_line(buf, size, &cf, true);
		cr_assert_lt(strlen(buf), size, "size %zu: not ended inside the buffer", size);
	}
}

Test(format_crash_line, utf8_only_where_the_locale_is)
{
	const char *saved = getenv("LC_ALL");
	char *copy = saved ? strdup(saved) : NULL;

	setenv("LC_ALL", "C", 1);
	cr_assert_not(locale_is_utf8(), "LC_ALL=C is not UTF-8");
	setenv("LC_ALL", "C.UTF-8", 1);
	cr_assert(locale_is_utf8(), "LC_ALL=C.UTF-8 is UTF-8");
	setenv("LC_ALL", "no_SUCH.locale", 1);
	cr_assert_not(locale_is_utf8(), "a locale that is not installed is C");
	/* diskio goes on in the C locale: its numbers and names stay ASCII. */
	cr_assert_str_eq(setlocale(LC_CTYPE, NULL), "C");
	if (copy)
		setenv("LC_ALL", copy, 1);
	else
		unsetenv("LC_ALL");
	free(copy);
}

/* ---- -r in batch and JSON ---- */

static char *render_rows(bool json, const struct frame *frame, unsigned int max_rows, size_t *len)
{
	struct view v;
	struct cap c;

	if (json)
		view_json(&v, cap_open(&c));
	else
		view_batch(&v, cap_open(&c));
	v.screen.max_rows = max_rows;
	view_show_frame(&v, frame);
	cap_close(&c);
	*len = c.len;
	return c.buf;
}

Test(render_rows, batch_shows_at_most_rows_and_counts_the_rest)
{
	struct fx *f = fx_new();
	char *out, *lines[64];
	size_t len, n, data = 0;
	const char *header = NULL;

	for (uint32_t i = 0; i < 10; i++)
		add_row(f, 100 + i, "dd", 2, "vda", 4096 * (10 - i), 0, 0);
	for (unsigned int max = 0; max <= 12; max += 3) {
		out = render_rows(false, &f->frame, max, &len);
		n = split_lines(out, len, lines, 64);
		data = 0;
		header = NULL;
		for (size_t i = 0; i < n; i++) {
			if (!strncmp(lines[i], "# time=", 7))
				header = lines[i];
			else if (lines[i][0] != '#')
				/* the first rows of the frame, in its order */
				cr_assert_eq(strtoul(strchr(lines[i], ' ') + 1, NULL, 10), 100 + data++,
					     "%s", lines[i]);
		}
		cr_assert_eq(data, max && max < 10 ? max : 10, "-r %u: %zu rows", max, data);
		cr_assert_not_null(header);
		{
			char expect[96];

			/* appended after every older field, before partial=:
			 * no field of the line moves (issue 45's pressure after
			 * rows_cut) */
			snprintf(expect, sizeof(expect),
				 " rows_cut=%zu io_pressure_some_pct=- io_pressure_full_pct=- partial=0",
				 10 - data);
			cr_assert(strlen(header) > strlen(expect) &&
				  !strcmp(header + strlen(header) - strlen(expect), expect),
				  "-r %u: %s", max, header);
		}
		free(out);
	}
	fx_free(f);
}

Test(render_rows, json_shows_at_most_rows_and_counts_the_rest)
{
	struct fx *f = fx_new();
	struct jnode root;
	char *out;
	size_t len;

	for (uint32_t i = 0; i < 10; i++)
		add_row(f, 100 + i, "dd", 2, "vda", 4096, 0, 0);
	out = render_rows(true, &f->frame, 4, &len);
	json_parse_line(out, len, &root);
	cr_assert_eq(jmust(&root, "processes", J_ARR)->nkids, 4);
	cr_assert_eq(jkey_u64(&jmust(&root, "processes", J_ARR)->kids[3], "pid"), 103);
	cr_assert_eq(jkey_u64(&root, "rows_cut"), 6);
	j_free(&root);
	free(out);
	out = render_rows(true, &f->frame, 10, &len);
	json_parse_line(out, len, &root);
	cr_assert_eq(jmust(&root, "processes", J_ARR)->nkids, 10);
	cr_assert_eq(jkey_u64(&root, "rows_cut"), 0);
	j_free(&root);
	free(out);
	fx_free(f);
}

/* ---- times ---- */

/* Two 0.5 s intervals in the same second carry different times. */
Test(render_time, half_second_intervals_differ_in_batch_and_json)
{
	struct fx *f = fx_new();
	char *first, *second;
	size_t len;

	add_row(f, 1, "dd", 2, "vda", 4096, 0, 0);
	f->frame.interval_s = 0.5;
	for (int json = 0; json <= 1; json++) {
		f->frame.wall = (struct timespec){ WALL_SEC, 0 };
		first = render_rows(json, &f->frame, 0, &len);
		f->frame.wall = (struct timespec){ WALL_SEC, 500000000 };
		second = render_rows(json, &f->frame, 0, &len);
		cr_assert(strstr(first, json ? "\"time\":\"2026-11-22T08:00:01.000Z\",\"ts\":1795334401.000," :
				 "\n2026-11-22T08:00:01.000Z 1 dd "), "%s", first);
		cr_assert(strstr(second, json ? "\"time\":\"2026-11-22T08:00:01.500Z\",\"ts\":1795334401.500," :
				 "\n2026-11-22T08:00:01.500Z 1 dd "), "%s", second);
		free(first);
		free(second);
	}
	fx_free(f);
}

/* "type" comes first, so that grep '^{"type":"interval"' picks records. */
Test(render_time, json_records_start_with_their_type)
{
	struct fx *f = fx_new();
	char *out;
	size_t len;

	out = render_rows(true, &f->frame, 0, &len);
	cr_assert(!strncmp(out, "{\"type\":\"interval\",\"schema\":1,\"host\":\"", 38), "%s", out);
	free(out);
	fx_free(f);
}

/* ---- the same interval in batch and JSON ---- */

/* The percentiles of a disk read the same in its "# device" line and in
 * its JSON object: one frame, both views. */
Test(render_views, batch_and_json_show_the_same_percentiles)
{
	struct fx *f = fx_new();
	struct pmem_device *vda = pmem_device_get(&f->pm, "vda");
	static const char *const ops[] = { "read", "write" };
	char *batch, *json;
	size_t len;

	pmem_add_op_latency(&f->pm, vda, IO_READ, 90000, 9);
	pmem_add_latency(&f->pm, vda, IO_READ, latency_slot(5000), 6);
	pmem_add_latency(&f->pm, vda, IO_READ, latency_slot(20000), 3);
	pmem_add_op_latency(&f->pm, vda, IO_WRITE, 2000000, 2);
	pmem_add_latency(&f->pm, vda, IO_WRITE, latency_slot(1000000), 2);
	pmem_flush(&f->pm);
	batch = render_to_string(render_batch, &f->frame, &len);
	json = render_to_string(render_json, &f->frame, &len);
	for (int op = 0; op < 2; op++) {
		char pattern[64], from_batch[3][16], from_json[3][16];
		const char *at;
		unsigned long ios;

		snprintf(pattern, sizeof(pattern), " %s_p50_us=", ops[op]);
		at = strstr(strstr(batch, "# device vda "), pattern);
		cr_assert_not_null(at, "%s", batch);
		cr_assert_eq(sscanf(at, " %*[a-z]_p50_us=%15s %*[a-z]_p95_us=%15s %*[a-z]_p99_us=%15s",
				    from_batch[0], from_batch[1], from_batch[2]), 3, "%s", at);
		snprintf(pattern, sizeof(pattern), "\"%s\":{\"ios\":", ops[op]);
		at = strstr(strstr(json, "\"vda\":{"), pattern);
		cr_assert_not_null(at, "%s", json);
		cr_assert_eq(sscanf(at + strlen(pattern), "%lu,\"avg\":%*[0-9.],\"p50\":%15[0-9.],"
				    "\"p95\":%15[0-9.],\"p99\":%15[0-9.]", &ios, from_json[0],
				    from_json[1], from_json[2]), 4, "%s", at);
		cr_assert_eq(ios, op ? 2 : 9);
		for (int k = 0; k < 3; k++)
			cr_assert_str_eq(from_batch[k], from_json[k], "%s p%s", ops[op],
					 k == 0 ? "50" : k == 1 ? "95" : "99");
	}
	free(batch);
	free(json);
	fx_free(f);
}

/* With -L a row's percentiles come from its histogram: 10 completions,
 * 9 in [32, 64) us and one in [1, 2) ms. */
Test(render_json, row_percentiles_with_L)
{
	struct fx *f = fx_new();
	struct proc_io *row;
	const struct jnode *procs, *latency;
	struct jnode root;
	char *out;
	size_t len;

	row = add_row(f, 1, "dd", 2, "vda", 0, 4096, 0);
	row->delta[PMEM_LATENCY_NS] = 9 * 40000 + 1500000;
	row->delta[PMEM_LATENCY_IOS] = 10;
	row->latency = calloc(1, sizeof(*row->latency));
	cr_assert_not_null(row->latency);
	row->latency->delta.slots[latency_slot(40000)] = 9;
	row->latency->delta.slots[latency_slot(1500000)] = 1;
	row->latency->total = row->latency->delta;
	f->frame.per_process_latency = true;
	out = render_to_string(render_json, &f->frame, &len);
	json_parse_line(out, len, &root);
	procs = check_frame(&root, f);
	latency = jmust(&procs->kids[0], "latency_us", J_OBJ);
	/* rank 5 of 9 in [32768, 65536) ns: 32768 + 32768 * 4.5 / 9 */
	cr_assert_float_eq(jkey_double(latency, "p50"), 49.2, 1e-9);
	/* ranks 10: the one in [1048576, 2097152) ns, its middle */
	cr_assert_float_eq(jkey_double(latency, "p95"), 1572.9, 1e-9);
	cr_assert_float_eq(jkey_double(latency, "p99"), 1572.9, 1e-9);
	row->latency->incomplete = true;
	free(out);
	j_free(&root);
	out = render_to_string(render_json, &f->frame, &len);
	json_parse_line(out, len, &root);
	procs = check_frame(&root, f);
	jmust(jmust(&procs->kids[0], "latency_us", J_OBJ), "p50", J_NULL);
	j_free(&root);
	free(out);
	free(row->latency);
	fx_free(f);
}

/* ---- every key the views write is in the man page ---- */

#define MAX_KEYS 512

struct keys {
	char name[MAX_KEYS][48];
	size_t n;
};

static void key_add(struct keys *k, const char *name, size_t len)
{
	cr_assert_lt(len, sizeof(k->name[0]), "key too long: %.*s", (int)len, name);
	for (size_t i = 0; i < k->n; i++)
		if (strlen(k->name[i]) == len && !memcmp(k->name[i], name, len))
			return;
	cr_assert_lt(k->n, MAX_KEYS);
	memcpy(k->name[k->n], name, len);
	k->name[k->n++][len] = '\0';
}

static bool key_is(const struct jnode *node, const char *key)
{
	return node->keylen == strlen(key) && !memcmp(node->key, key, node->keylen);
}

/* Every member name of a JSON value, but the names that are data: the
 * disks under "devices", the processes under "by_process". */
static void json_keys(struct keys *k, const struct jnode *node, bool names_are_data)
{
	for (size_t i = 0; i < node->nkids; i++) {
		const struct jnode *kid = &node->kids[i];

		if (node->type == J_OBJ && !names_are_data)
			key_add(k, kid->key, kid->keylen);
		json_keys(k, kid, kid->key && (key_is(kid, "devices") || key_is(kid, "by_process")));
	}
}

/* The NAME of every NAME=VALUE in the '#' lines of batch output, and
 * with columns, the words of its first line (the columns line). */
static void batch_keys(struct keys *k, const char *out, bool columns)
{
	char *copy = strdup(out), *save = NULL;

	cr_assert_not_null(copy);
	for (char *line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char fields[MAXFIELDS][FIELDLEN];
		size_t n;

		if (line[0] != '#')
			continue;
		n = split_fields(line + 1, fields);
		for (size_t i = 0; i < n; i++) {
			const char *eq = strchr(fields[i], '=');

			if (columns)
				key_add(k, fields[i], strlen(fields[i]));
			else if (eq)
				key_add(k, fields[i], eq - fields[i]);
		}
		columns = false;
	}
	free(copy);
}

/* The words the man page sets in bold: the arguments of .B, the odd ones
 * of .BR and .BI, the even ones of .RB and .IB, and \fB...\fR; roff's
 * "\-" read as '-'. */
static bool man_has_bold(const char *man, const char *word)
{
	char line[1024];
	const char *p = man;

	while (*p) {
		size_t len = strcspn(p, "\n"), n = 0;
		int first_bold = -1;

		if (len >= sizeof(line))
			len = sizeof(line) - 1;
		for (size_t i = 0; i < len; i++) {	/* roff's escapes of '-' and '&' */
			if (p[i] == '\\' && i + 1 < len && p[i + 1] == '-') {
				line[n++] = '-';
				i++;
			} else if (p[i] == '\\' && i + 1 < len && p[i + 1] == '&') {
				i++;
			} else {
				line[n++] = p[i];
			}
		}
		line[n] = '\0';
		p += strcspn(p, "\n");
		if (*p)
			p++;
		if (!strncmp(line, ".B ", 3))
			first_bold = 2;	/* every argument */
		else if (!strncmp(line, ".BR ", 4) || !strncmp(line, ".BI ", 4))
			first_bold = 0;
		else if (!strncmp(line, ".RB ", 4) || !strncmp(line, ".IB ", 4))
			first_bold = 1;
		if (first_bold >= 0) {
			char *q = line + (first_bold == 2 ? 3 : 4);

			for (int arg = 0; *q; arg++) {
				bool quoted;
				size_t alen;

				q += strspn(q, " ");
				if (!*q)
					break;
				quoted = *q == '"';
				q += quoted;
				alen = quoted ? strcspn(q, "\"") : strcspn(q, " ");
				if ((first_bold == 2 || arg % 2 == first_bold) && alen == strlen(word) &&
				    !memcmp(q, word, alen))
					return true;
				/* several words of one bold argument ("rows 41-60") */
				if ((first_bold == 2 || arg % 2 == first_bold) && quoted) {
					for (const char *w = q; w < q + alen;) {
						size_t wl = strcspn(w, " \"");

						if (wl == strlen(word) && !memcmp(w, word, wl))
							return true;
						w += wl + (w[wl] == ' ');
						if (!wl)
							break;
					}
				}
				q += alen + (quoted && q[alen] == '"');
			}
		}
		for (const char *b = strstr(line, "\\fB"); b; b = strstr(b + 3, "\\fB")) {
			const char *e = strstr(b + 3, "\\f");

			if (e && (size_t)(e - b - 3) == strlen(word) && !memcmp(b + 3, word, e - b - 3))
				return true;
		}
	}
	return false;
}

static char *read_man_page(void)
{
	FILE *f = fopen("dist/diskio.8", "r");
	static char buf[131072];
	size_t n;

	cr_assert_not_null(f, "dist/diskio.8: run the tests from the source directory");
	n = fread(buf, 1, sizeof(buf) - 1, f);
	cr_assert(feof(f));
	fclose(f);
	buf[n] = '\0';
	return buf;
}

/* The keys of everything the batch and JSON views write for a frame with
 * every part (disks with percentiles, iostat -x and histograms, rows with
 * -L and cgroups, crashes, losses), the summary, trace mode's lines and
 * records, each checked to be in the man page in bold, so that a key added
 * to a view cannot be missing there.  (Rows' stacks are not drawn here: a
 * namer is test_top.c's; the man page names their keys all the same.) */
Test(render_docs, the_man_page_names_every_output_key)
{
	const char *man = read_man_page();
	struct fx *f = fx_new();
	struct keys *k = calloc(1, sizeof(*k));
	struct crash_event crash = { .tgid = 7, .signal = 11, .core_dumped = 1, .comm = "dd" };
	struct block_io_event io = { .tgid = 7, .bytes = 4096, .latency_ns = 1000, .comm = "dd" };
	struct event_time when = { .since_start_s = 1.5, .wall = { WALL_SEC, WALL_NSEC } };
	struct pmem_device *vda = pmem_device_get(&f->pm, "vda");
	uint64_t lost[LOST_NR_CAUSES] = { 0 }, events = 3;
	struct proc_io *row;
	struct jnode root;
	struct view v;
	struct cap c;

	cr_assert_not_null(k);
	row = add_row(f, 1, "dd", 2, "vda", 4096, 4096, 4096);
	row->delta[PMEM_LATENCY_NS] = 521000;
	row->delta[PMEM_LATENCY_IOS] = 10;
	cr_assert_eq(res_intern_str(&f->names, "/system.slice", &row->cgroup_name), RES_OK);
	f->frame.per_process_latency = true;
	f->frame.crash_events = &crash;
	f->frame.ncrash_events = 1;
	vda->has_iostat = true;
	pmem_add_latency(&f->pm, vda, IO_READ, 12, 5);
	pmem_flush(&f->pm);

	/* batch: the columns line, a frame, the summary */
	view_batch(&v, cap_open(&c));
	v.histograms = true;
	v.start(&v);
	cap_close(&c);
	batch_keys(k, c.buf, true);
	free(c.buf);
	view_batch(&v, cap_open(&c));
	v.histograms = true;
	view_show_frame(&v, &f->frame);
	render_summary(c.f, false, &f->frame.wall, 2.5, lost, &events, &f->cf, &f->pm);
	cap_close(&c);
	batch_keys(k, c.buf, false);
	free(c.buf);

	/* JSON: a frame and the summary */
	view_json(&v, cap_open(&c));
	v.histograms = true;
	view_show_frame(&v, &f->frame);
	cap_close(&c);
	json_parse_line(c.buf, c.len, &root);
	json_keys(k, &root, false);
	j_free(&root);
	free(c.buf);
	render_summary(cap_open(&c), true, &f->frame.wall, 2.5, lost, &events, &f->cf, &f->pm);
	cap_close(&c);
	json_parse_line(c.buf, c.len, &root);
	json_keys(k, &root, false);
	j_free(&root);
	free(c.buf);

	/* trace mode: its columns line and '#' lines, its JSON records */
	view_trace_batch(&v, cap_open(&c));
	v.start(&v);
	cap_close(&c);
	batch_keys(k, c.buf, true);
	free(c.buf);
	view_trace_batch(&v, cap_open(&c));
	v.crash_event(&v, &crash, &when);
	v.interval_end(&v, &f->frame);
	cap_close(&c);
	batch_keys(k, c.buf, false);
	free(c.buf);
	view_trace_json(&v, cap_open(&c));
	v.io_event(&v, &io, "vda", &when);
	v.crash_event(&v, &crash, &when);
	v.interval_end(&v, &f->frame);
	cap_close(&c);
	for (char *line = c.buf, *nl; (nl = memchr(line, '\n', c.buf + c.len - line)); line = nl + 1) {
		json_parse_line(line, nl + 1 - line, &root);
		json_keys(k, &root, false);
		j_free(&root);
	}
	free(c.buf);

	cr_assert_geq(k->n, 60, "only %zu keys found: is the rendering complete?", k->n);
	for (size_t i = 0; i < k->n; i++)
		cr_expect(man_has_bold(man, k->name[i]), "output key %s is not in dist/diskio.8",
			  k->name[i]);
	free(k);
	fx_free(f);
}

/* ---- issue 33: uid, user, ioprio, cmdline ---- */

/* A row's owner as the kernel noted it, its user's name and command line
 * (static strings: the frame's rows own theirs). */
static void own_row(struct fx *f, struct proc_io *row, uint32_t uid, const char *user,
		    uint16_t ioprio, int nice, char *cmdline)
{
	row->owner = (struct row_owner){ .uid = uid, .ioprio = ioprio, .nice = (int8_t)nice,
					 .flags = ROW_OWNER_KNOWN };
	cr_assert_eq(res_intern_str(&f->names, user, &row->user_name), RES_OK);
	row->cmdline = cmdline;
}

Test(render_batch, uid_user_ioprio_and_cmdline_come_after_the_waits)
{
	static char dd_line[] = "dd if=/dev/zero of=/mnt/a b\xc3\xa9\\";
	static char sh_line[] = "sh";
	struct fx *f = fx_new();
	char *out, *lines[16];
	static char fields[MAXFIELDS][FIELDLEN];
	size_t len, n, data = 0;

	own_row(f, add_row(f, 100, "dd", 2, "vda", 0, 4096, 0), 65534, "nobody", 3 << 13, 0,
		dd_line);
	own_row(f, add_row(f, 101, "sh", 2, "vda", 0, 4096, 0), 0, "root", 0, 10, sh_line);
	add_row(f, 0, "", 0, "vda", 0, 4096, 0);	/* a row of no process */
	out = render_to_string(render_batch, &f->frame, &len);
	n = split_lines(out, len, lines, 16);
	for (size_t i = 0; i < n; i++) {
		if (lines[i][0] == '#')
			continue;
		cr_assert_eq(split_fields(lines[i], fields), BATCH_FIELDS, "%s", lines[i]);
		/* IO> and SWAPIN first, not measured in this frame */
		cr_assert_str_eq(fields[16], "-");
		cr_assert_str_eq(fields[17], "-");
		switch (data++) {
		case 0:
			cr_assert_str_eq(fields[18], "65534");
			cr_assert_str_eq(fields[19], "nobody");
			cr_assert_str_eq(fields[20], "idle");
			cr_assert_str_eq(fields[21],
					 "dd\\x20if=/dev/zero\\x20of=/mnt/a\\x20b\\xc3\\xa9\\x5c",
					 "escaped as names are: one awk field");
			break;
		case 1:
			cr_assert_str_eq(fields[18], "0");
			cr_assert_str_eq(fields[19], "root");
			cr_assert_str_eq(fields[20], "be/6", "nice 10");
			cr_assert_str_eq(fields[21], "sh");
			break;
		default:
			for (int k = 18; k < 22; k++)
				cr_assert_str_eq(fields[k], "-", "field %d", k + 1);
		}
	}
	cr_assert_eq(data, 3);
	free(out);
	fx_free(f);
}

Test(render_json, uid_user_ioprio_and_cmdline)
{
	static char line[] = "tar cf - /srv \xff";
	struct fx *f = fx_new();
	const struct jnode *procs, *p;
	struct jnode root;
	char *out;
	size_t len;

	own_row(f, add_row(f, 123, "tar", 3, "vda", 0, 4096, 0), 1000, "alice", 2 << 13 | 7, 0,
		line);
	add_row(f, 0, "", 0, "vda", 0, 4096, 0);
	out = render_to_string(render_json, &f->frame, &len);
	json_parse_line(out, len, &root);
	procs = check_frame(&root, f);
	cr_assert_eq(procs->nkids, 2);
	p = &procs->kids[0];
	cr_assert_eq(jkey_u64(p, "uid"), 1000);
	cr_assert(jstr_is(jmust(p, "user", J_STR), "alice", 5));
	cr_assert(jstr_is(jmust(p, "ioprio", J_STR), "be/7", 4));
	jmust(p, "cmdline", J_STR);
	cr_assert(strstr(out, "\"cmdline\":\"tar cf - /srv \\u00ff\""),
		  "a byte that is no UTF-8 as \\u00ff, as every name's: %s", out);
	p = &procs->kids[1];
	cr_assert_eq(jmust(p, "uid", J_NULL)->type, J_NULL);
	cr_assert_eq(jmust(p, "user", J_NULL)->type, J_NULL);
	cr_assert_eq(jmust(p, "ioprio", J_NULL)->type, J_NULL);
	cr_assert_eq(jmust(p, "cmdline", J_NULL)->type, J_NULL);
	j_free(&root);
	free(out);
	fx_free(f);
}
