// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the top view: which columns fit a width (top_layout.c), and
 * frames drawn by top.c into memory, read back through a small terminal
 * emulator that fails on anything written past the screen's right edge or
 * bottom.
 */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <errno.h>
#include <inttypes.h>
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include "top.h"
#include "top_layout.h"

#include "json_check.h"

#define NS_PER_S UINT64_C(1000000000)
#define MAXROWS 256

/* ---- the layout ---- */

/* errors false: as the view wants ERR, only when a row has failed I/Os. */
static void fit_processes_errors(unsigned int cols, bool latency, bool errors, int keep,
				 struct top_layout *layout)
{
	bool wanted[TOP_NR_PROC_COLUMNS];

	for (int i = 0; i < TOP_NR_PROC_COLUMNS; i++)
		wanted[i] = true;
	wanted[TOP_COL_LATENCY] = latency;
	wanted[TOP_COL_ERRORS] = errors;
	top_layout_fit(top_proc_columns, top_proc_priority, TOP_PROC_STEPS, TOP_NR_PROC_COLUMNS,
		       wanted, keep, cols, layout);
}

static void fit_processes(unsigned int cols, bool latency, int keep, struct top_layout *layout)
{
	fit_processes_errors(cols, latency, false, keep, layout);
}

static void fit_devices_errors(unsigned int cols, bool errors, struct top_layout *layout)
{
	bool wanted[TOP_NR_DEV_COLUMNS];

	for (int i = 0; i < TOP_NR_DEV_COLUMNS; i++)
		wanted[i] = true;
	wanted[TOP_DEV_ERRORS] = errors;
	top_layout_fit(top_dev_columns, top_dev_priority, TOP_DEV_STEPS, TOP_NR_DEV_COLUMNS,
		       wanted, -1, cols, layout);
}

static void fit_devices(unsigned int cols, struct top_layout *layout)
{
	fit_devices_errors(cols, false, layout);
}

/* The shown columns as a string of their headings, in screen order. */
static const char *shown(const struct top_column *columns, size_t n,
			 const struct top_layout *layout)
{
	static char text[256];

	text[0] = '\0';
	for (size_t i = 0; i < n; i++) {
		if (!layout->shown[i])
			continue;
		if (text[0])
			strcat(text, " ");
		strcat(text, columns[i].heading);
	}
	return text;
}

static unsigned int width_of(const struct top_layout *layout, size_t n)
{
	unsigned int sum = 0, columns = 0;

	for (size_t i = 0; i < n; i++) {
		if (layout->shown[i]) {
			sum += layout->width[i];
			columns++;
		}
	}
	return columns ? sum + columns - 1 : 0;
}

Test(top_layout, process_columns_at_60_80_120_200)
{
	static const struct {
		unsigned int cols;
		bool latency;
		const char *expect;
	} cases[] = {
		/* issue 33: iotop's USER, IO> and PRIO by 80, COMMAND last with
		 * the rest of the line; the IOPS from 90 */
		{ 60, false, "PID DEVICE READ/s WRITE/s COMMAND" },
		{ 60, true, "PID DEVICE READ/s WRITE/s COMMAND" },
		{ 73, false, "PID USER IO> DEVICE READ/s WRITE/s COMMAND" },
		{ 80, false, "PID PRIO USER IO> DEVICE READ/s WRITE/s COMMAND" },
		{ 80, true, "PID PRIO USER IO> DEVICE READ/s WRITE/s COMMAND" },
		{ 90, false, "PID PRIO USER IO> DEVICE READ/s WRITE/s R_IOPS W_IOPS COMMAND" },
		{ 100, true, "PID PRIO USER IO> DEVICE READ/s WRITE/s R_IOPS W_IOPS LAT_ms COMMAND" },
		{ 120, false, "PID PRIO USER IO> DEVICE READ/s WRITE/s DISCARD/s R_IOPS W_IOPS D_IOPS "
			      "DIRTY/s COMMAND" },
		{ 120, true, "PID PRIO USER IO> DEVICE READ/s WRITE/s DISCARD/s R_IOPS W_IOPS LAT_ms "
			     "DIRTY/s COMMAND" },
		{ 200, true, "PID PRIO USER SWAPIN IO> DEVICE READ/s WRITE/s DISCARD/s R_IOPS W_IOPS "
			     "D_IOPS LAT_ms DIRTY/s CGROUP COMMAND" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct top_layout layout;

		fit_processes(cases[i].cols, cases[i].latency, -1, &layout);
		cr_assert_str_eq(shown(top_proc_columns, TOP_NR_PROC_COLUMNS, &layout),
				 cases[i].expect, "%u columns, latency %d", cases[i].cols,
				 cases[i].latency);
		cr_assert_leq(layout.line_width, cases[i].cols);
		cr_assert_eq(layout.line_width, width_of(&layout, TOP_NR_PROC_COLUMNS));
		/* the command, last, takes the rest; a path beside it its least */
		cr_assert_eq(layout.line_width, cases[i].cols);
		if (layout.shown[TOP_COL_CGROUP])
			cr_assert_eq(layout.width[TOP_COL_CGROUP], top_proc_columns[TOP_COL_CGROUP].width);
	}
}

Test(top_layout, device_columns_at_60_80_120_200)
{
	static const struct {
		unsigned int cols;
		const char *expect;
	} cases[] = {
		{ 60, "DEVICE READ/s WRITE/s P99_ms AQU-SZ %UTIL" },
		{ 80, "DEVICE READ/s WRITE/s R_IOPS W_IOPS P99_ms AQU-SZ %UTIL" },
		{ 86, "DEVICE READ/s WRITE/s R_IOPS W_IOPS P99_ms R_AWAIT W_AWAIT AQU-SZ %UTIL" },
		{ 85, "DEVICE READ/s WRITE/s R_IOPS W_IOPS P99_ms AQU-SZ %UTIL" },
		{ 120, "DEVICE READ/s WRITE/s DISCARD/s R_IOPS W_IOPS D_IOPS AVG_ms P99_ms R_AWAIT "
		       "W_AWAIT AQU-SZ %UTIL" },
		{ 200, "DEVICE READ/s WRITE/s DISCARD/s R_IOPS W_IOPS D_IOPS AVG_ms P99_ms R_AWAIT "
		       "W_AWAIT AQU-SZ %UTIL" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct top_layout layout;

		fit_devices(cases[i].cols, &layout);
		cr_assert_str_eq(shown(top_dev_columns, TOP_NR_DEV_COLUMNS, &layout),
				 cases[i].expect, "%u columns", cases[i].cols);
		cr_assert_leq(layout.line_width, cases[i].cols);
	}
}

/* issue 45: with failed I/Os, ERR comes right after the disk (the rates,
 * for the disks) and stays at 80 columns, beside everything that showed
 * there without it. */
Test(top_layout, the_errors_column_stays_at_80)
{
	struct top_layout layout;

	fit_processes_errors(80, false, true, -1, &layout);
	cr_assert_str_eq(shown(top_proc_columns, TOP_NR_PROC_COLUMNS, &layout),
			 "PID PRIO USER IO> DEVICE READ/s WRITE/s ERR COMMAND");
	fit_processes_errors(60, false, true, -1, &layout);
	cr_assert_str_eq(shown(top_proc_columns, TOP_NR_PROC_COLUMNS, &layout),
			 "PID DEVICE READ/s WRITE/s ERR COMMAND");
	fit_devices_errors(80, true, &layout);
	cr_assert_str_eq(shown(top_dev_columns, TOP_NR_DEV_COLUMNS, &layout),
			 "DEVICE READ/s WRITE/s ERR R_IOPS W_IOPS P99_ms AQU-SZ %UTIL");
	cr_assert_leq(layout.line_width, 80);
	fit_devices_errors(60, true, &layout);
	cr_assert_str_eq(shown(top_dev_columns, TOP_NR_DEV_COLUMNS, &layout),
			 "DEVICE READ/s WRITE/s ERR P99_ms AQU-SZ %UTIL");
}

/* Reads and writes are dropped together, at every width: a twin shown
 * without the other would read as if one direction had no I/O. */
Test(top_layout, read_and_write_columns_go_together)
{
	static const int proc_twins[][2] = {
		{ TOP_COL_READ, TOP_COL_WRITE }, { TOP_COL_READ_IOPS, TOP_COL_WRITE_IOPS },
	};
	static const int dev_twins[][2] = {
		{ TOP_DEV_READ, TOP_DEV_WRITE }, { TOP_DEV_READ_IOPS, TOP_DEV_WRITE_IOPS },
		{ TOP_DEV_R_AWAIT, TOP_DEV_W_AWAIT },
	};

	for (unsigned int cols = 0; cols <= 250; cols++) {
		for (int latency = 0; latency <= 1; latency++) {
			struct top_layout layout;

			fit_processes(cols, latency, -1, &layout);
			for (size_t i = 0; i < 2; i++)
				cr_assert_eq(layout.shown[proc_twins[i][0]],
					     layout.shown[proc_twins[i][1]], "%u columns: %s", cols,
					     shown(top_proc_columns, TOP_NR_PROC_COLUMNS, &layout));
		}
		{
			struct top_layout layout;

			fit_devices(cols, &layout);
			for (size_t i = 0; i < 3; i++)
				cr_assert_eq(layout.shown[dev_twins[i][0]], layout.shown[dev_twins[i][1]],
					     "%u columns: %s", cols,
					     shown(top_dev_columns, TOP_NR_DEV_COLUMNS, &layout));
		}
	}
}

Test(top_layout, the_sort_column_stays)
{
	struct top_layout layout;

	fit_processes(60, false, TOP_COL_DISCARD, &layout);
	cr_assert(layout.shown[TOP_COL_DISCARD], "%s",
		  shown(top_proc_columns, TOP_NR_PROC_COLUMNS, &layout));
	cr_assert(layout.shown[TOP_COL_COMMAND]);
	cr_assert_leq(layout.line_width, 60);
}

Test(top_layout, never_wider_than_the_width)
{
	for (unsigned int cols = 1; cols <= 250; cols++) {
		for (int keep = -1; keep < TOP_NR_PROC_COLUMNS; keep++) {
			struct top_layout layout;

			fit_processes(cols, keep & 1, keep, &layout);
			cr_assert_leq(layout.line_width, cols, "cols %u keep %d", cols, keep);
			cr_assert_eq(layout.line_width, width_of(&layout, TOP_NR_PROC_COLUMNS));
			cr_assert(layout.shown[TOP_COL_COMMAND] || keep == TOP_COL_COMMAND,
				  "the first column always shows");
		}
		{
			struct top_layout layout;

			fit_devices(cols, &layout);
			cr_assert_leq(layout.line_width, cols, "cols %u", cols);
			cr_assert(layout.shown[TOP_DEV_NAME]);
		}
	}
}

Test(top_layout, no_limit_shows_every_wanted_column)
{
	struct top_layout layout;

	fit_processes(0, false, -1, &layout);
	for (int i = 0; i < TOP_NR_PROC_COLUMNS; i++)
		cr_assert_eq(layout.shown[i], i != TOP_COL_LATENCY && i != TOP_COL_ERRORS,
			     "column %d", i);
	fit_processes_errors(0, false, true, -1, &layout);
	cr_assert(layout.shown[TOP_COL_ERRORS]);
}

/* ---- characters as a UTF-8 terminal shows them ---- */

/* C.UTF-8, for mbrtowc() and wcwidth() as a terminal would place
 * characters, independently of format.c.  Debian's libc-bin ships it: without
 * it the tests fail, they do not skip. */
static locale_t utf8_locale(void)
{
	static locale_t loc;

	if (!loc)
		loc = newlocale(LC_CTYPE_MASK, "C.UTF-8", (locale_t)0);
	cr_assert_not_null(loc, "no C.UTF-8 locale (/usr/lib/locale/C.utf8): %s", strerror(errno));
	return loc;
}

/* The next character of s[0..len): its bytes (0: no UTF-8 character) and
 * the columns it takes (-1: not printable). */
static size_t next_char(const char *s, size_t len, int *columns)
{
	locale_t was = uselocale(utf8_locale());
	mbstate_t state;
	wchar_t wc;
	size_t n;

	memset(&state, 0, sizeof(state));
	n = mbrtowc(&wc, s, len, &state);
	if (n == 0 || n > len)
		n = 0;
	*columns = n ? wcwidth(wc) : -1;
	uselocale(was);
	return n;
}

/* The columns text[0..len) takes on a terminal; fails on what is not
 * printable UTF-8. */
static size_t screen_columns(const char *text, size_t len)
{
	size_t columns = 0;

	for (size_t i = 0, n; i < len; i += n) {
		int width;

		n = next_char(text + i, len - i, &width);
		cr_assert(n && width >= 0, "not printable UTF-8 at byte %zu of '%s'", i, text);
		columns += (size_t)width;
	}
	return columns;
}

/* The screen column where needle starts in line; fails without it. */
static size_t column_of(const char *line, const char *needle)
{
	const char *at = strstr(line, needle);

	cr_assert_not_null(at, "'%s' not in '%s'", needle, line);
	return screen_columns(line, (size_t)(at - line));
}

/* ---- a terminal in memory ---- */

#define TERM_ROWS 64
#define TERM_COLS 256
#define CELL_SIZE 16	/* a character and the accents on it */

/* A screen of rows x cols cells, fed the view's output.  It knows what the
 * view writes: ESC [ H, ESC [ K, ESC [ J, ESC [ 7 m and ESC [ m (reverse
 * video on, off), CR, LF and printable UTF-8 characters, each in as many
 * cells as wcwidth() says (a CJK one two, an accent none: it joins the
 * character before); anything else (a control, C1 as UTF-8 too, bytes that
 * are no character), a character past the right edge or a line feed below
 * the bottom (a scroll) fails the test. */
struct term {
	unsigned int rows, cols;
	unsigned int row, col;
	bool reverse;
	char cell[TERM_ROWS][TERM_COLS][CELL_SIZE];
	bool reversed[TERM_ROWS][TERM_COLS];
	bool wide_tail[TERM_ROWS][TERM_COLS];	/* a wide character's second cell */
};

static void term_init(struct term *t, unsigned int rows, unsigned int cols)
{
	memset(t, 0, sizeof(*t));
	t->rows = rows;
	t->cols = cols;
}

static void term_feed(struct term *t, const char *out, size_t len)
{
	for (size_t i = 0; i < len;) {
		unsigned char c = out[i];

		if (c == 0x1b) {
			cr_assert_lt(i + 2, len + 0, "a cut escape sequence");
			cr_assert_eq(out[i + 1], '[', "unexpected escape");
			switch (out[i + 2]) {
			case 'H':
				t->row = t->col = 0;
				break;
			case 'K':
				for (unsigned int x = t->col; x < t->cols; x++) {
					t->cell[t->row][x][0] = '\0';
					t->wide_tail[t->row][x] = false;
				}
				break;
			case 'J':
				for (unsigned int x = t->col; x < t->cols; x++) {
					t->cell[t->row][x][0] = '\0';
					t->wide_tail[t->row][x] = false;
				}
				for (unsigned int y = t->row + 1; y < t->rows; y++) {
					memset(t->cell[y], 0, sizeof(t->cell[y]));
					memset(t->wide_tail[y], 0, sizeof(t->wide_tail[y]));
				}
				break;
			case 'm':
				t->reverse = false;
				break;
			case '7':
				cr_assert(i + 3 < len && out[i + 3] == 'm', "ESC [ 7 not ESC [ 7 m");
				t->reverse = true;
				i++;
				break;
			default:
				cr_assert_fail("unexpected sequence ESC [ %c", out[i + 2]);
			}
			i += 3;
		} else if (c == '\r') {
			t->col = 0;
			i++;
		} else if (c == '\n') {
			cr_assert_lt(t->row + 1, t->rows, "a line feed on the last line scrolls");
			t->row++;
			i++;
		} else {
			int width;
			size_t n = next_char(out + i, len - i, &width);

			cr_assert(c >= 0x20 && c != 0x7f, "control byte 0x%02x on the screen", c);
			cr_assert_gt(n, 0, "byte 0x%02x is no UTF-8 character, line %u", c, t->row);
			cr_assert_geq(width, 0, "an unprintable character (%.*s) on line %u", (int)n,
				      out + i, t->row);
			if (width == 0) {	/* on the character before */
				unsigned int x = t->col;

				while (x && t->wide_tail[t->row][x - 1])
					x--;
				cr_assert_gt(x, 0, "an accent on nothing, line %u", t->row);
				cr_assert_lt(strlen(t->cell[t->row][x - 1]) + n, CELL_SIZE);
				strncat(t->cell[t->row][x - 1], out + i, n);
				i += n;
				continue;
			}
			cr_assert_leq(t->col + (unsigned int)width, t->cols,
				      "a character past the right edge on line %u", t->row);
			memcpy(t->cell[t->row][t->col], out + i, n);
			t->cell[t->row][t->col][n] = '\0';
			t->reversed[t->row][t->col] = t->reverse;
			t->wide_tail[t->row][t->col] = false;
			if (width == 2) {
				t->cell[t->row][t->col + 1][0] = '\0';
				t->reversed[t->row][t->col + 1] = t->reverse;
				t->wide_tail[t->row][t->col + 1] = true;
			}
			t->col += (unsigned int)width;
			i += n;
		}
	}
}

/* Line y as text, trailing blanks dropped. */
static const char *term_line(const struct term *t, unsigned int y)
{
	static char text[TERM_COLS * CELL_SIZE + 1];
	size_t len = 0;

	for (unsigned int x = 0; x < t->cols; x++) {
		const char *cell = t->cell[y][x][0] ? t->cell[y][x] : " ";

		if (t->wide_tail[y][x])
			continue;

		memcpy(text + len, cell, strlen(cell));
		len += strlen(cell);
	}
	while (len && text[len - 1] == ' ')
		len--;
	text[len] = '\0';
	return text;
}

/* The line holding text, or -1. */
static int term_find(const struct term *t, const char *text)
{
	for (unsigned int y = 0; y < t->rows; y++)
		if (strstr(term_line(t, y), text))
			return y;
	return -1;
}

/* The line whose characters are in reverse video (all of them), or -1;
 * fails when another line has some. */
static int term_reversed_line(const struct term *t)
{
	int found = -1;

	for (unsigned int y = 0; y < t->rows; y++) {
		unsigned int n = 0, chars = 0;

		for (unsigned int x = 0; x < t->cols; x++) {
			chars += t->cell[y][x][0] != '\0';
			n += t->cell[y][x][0] && t->reversed[y][x];
		}
		if (!n)
			continue;
		cr_assert_eq(n, chars, "line %u is partly reversed", y);
		cr_assert_eq(found, -1, "lines %d and %u are reversed", found, y);
		found = (int)y;
	}
	return found;
}

static void term_dump(const struct term *t)
{
	for (unsigned int y = 0; y < t->rows; y++)
		cr_log_info("%2u|%s", y, term_line(t, y));
}

/* The process row of pid (its line starts with it, right-aligned in 7
 * columns), or -1. */
static int term_row_of(const struct term *t, unsigned int pid)
{
	char start[16];

	snprintf(start, sizeof(start), "%7u ", pid);
	for (unsigned int y = 0; y < t->rows; y++)
		if (!strncmp(term_line(t, y), start, strlen(start)))
			return y;
	return -1;
}

static bool ends_with(const char *text, const char *end)
{
	size_t len = strlen(text), end_len = strlen(end);

	return len >= end_len && !strcmp(text + len - end_len, end);
}

/* The last word of a line: a row's COMMAND (issue 33: the last column). */
static const char *last_word(const char *line)
{
	const char *space = strrchr(line, ' ');

	return space ? space + 1 : line;
}

/* ---- frames built by hand ---- */

struct fx {
	void *names_buf;
	struct res_table names;
	struct pmem_metrics pm;
	struct crashfree cf;
	struct proc_io rows[MAXROWS];
	struct proc_io *ptrs[MAXROWS];
	struct frame frame;
	struct view view;
	struct cap cap;
};

static struct pmem_device *dev_add(struct pmem_metrics *pm, const char *name, uint64_t rb,
				   uint64_t wb, uint64_t rios, uint64_t wios)
{
	struct pmem_device *dev = pmem_device_get(pm, name);

	cr_assert_not_null(dev);
	pmem_add(pm, dev, PMEM_READ_BYTES, rb);
	pmem_add(pm, dev, PMEM_WRITE_BYTES, wb);
	pmem_add(pm, dev, PMEM_READ_IOS, rios);
	pmem_add(pm, dev, PMEM_WRITE_IOS, wios);
	return dev;
}

/* vda: 640 writes of 2 MiB in all and 100 reads over the 2 s interval, all
 * 640 completions in the latency slot [2^20, 2^21) ns; zram0: reads, no
 * histogram. */
static struct fx *fx_new(void)
{
	struct fx *f = calloc(1, sizeof(*f));
	struct pmem_device *vda;

	cr_assert_not_null(f);
	f->names_buf = malloc(256 * 1024);
	cr_assert_not_null(f->names_buf);
	cr_assert_eq(res_table_init(&f->names, f->names_buf, 256 * 1024, 1024), RES_OK);
	pmem_init(&f->pm);
	vda = dev_add(&f->pm, "vda", 409600, 2 << 20, 100, 640);
	pmem_add(&f->pm, vda, PMEM_LATENCY_NS, 740ULL * 1500000);
	pmem_add(&f->pm, vda, PMEM_LATENCY_IOS, 740);
	pmem_add_latency(&f->pm, vda, IO_WRITE, 20, 640);
	pmem_add_latency(&f->pm, vda, IO_READ, 20, 100);
	dev_add(&f->pm, "zram0", 8192, 0, 2, 0);
	pmem_flush(&f->pm);
	/* vda's iostat -x figures (zram0 has none: the kernel lists it not) */
	vda = pmem_device_get(&f->pm, "vda");
	vda->has_iostat = true;
	vda->iostat[0] = (struct iostat_x){ .r_await = 0.25, .w_await = 12.5, .aqu_sz = 3.21,
					    .util = 87.5 };
	crashfree_init(&f->cf, 3600 * NS_PER_S, 0);
	crashfree_update(&f->cf, 3 * 3600 * NS_PER_S + 5);
	cr_assert_eq(crashfree_record_crash(&f->cf, "my daemon", 3 * 3600 * NS_PER_S + 10), 0);
	f->frame.wall.tv_sec = 1795334401;
	f->frame.interval_s = 2;
	f->frame.rows = f->ptrs;
	f->frame.names = &f->names;
	f->frame.devices = &f->pm;
	f->frame.crash = &f->cf;
	for (int i = 0; i < LOST_NR_CAUSES; i++)
		f->frame.lost[i] = 1;
	return f;
}

/* "lost N" of the fixture, which loses one record of every cause. */
static const char *lost_all_ones(void)
{
	static char text[32];

	snprintf(text, sizeof(text), "lost %d", LOST_NR_CAUSES);
	return text;
}

/* The same once the first cause has lost 1000. */
static const char *lost_after_1000(void)
{
	static char text[32];

	snprintf(text, sizeof(text), "lost %d", 1000 + LOST_NR_CAUSES - 1);
	return text;
}

static struct proc_io *add_row(struct fx *f, uint32_t tgid, const char *comm, size_t comm_len,
			       const char *device, uint64_t rb, uint64_t wb)
{
	struct proc_io *row;

	cr_assert_lt(f->frame.nrows, MAXROWS);
	row = &f->rows[f->frame.nrows];
	memset(row, 0, sizeof(*row));
	row->key.tgid = tgid;
	cr_assert_eq(res_intern(&f->names, comm, comm_len, &row->comm_name), RES_OK);
	cr_assert_eq(res_intern_str(&f->names, device, &row->device_name), RES_OK);
	row->delta[PMEM_READ_BYTES] = rb;
	row->delta[PMEM_WRITE_BYTES] = wb;
	row->delta[PMEM_READ_IOS] = rb / 4096;
	row->delta[PMEM_WRITE_IOS] = wb / 4096;
	for (int i = 0; i < PMEM_NR_COUNTERS; i++)
		row->total[i] = row->delta[i] * 10;
	f->ptrs[f->frame.nrows++] = row;
	return row;
}

static void fx_rows(struct fx *f, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		char comm[16];

		snprintf(comm, sizeof(comm), "proc%zu", i);
		add_row(f, 100 + i, comm, strlen(comm), i % 2 ? "zram0" : "vda", 4096 * (i + 1),
			8192 * (30 - i % 30));
	}
}

static void fx_free(struct fx *f)
{
	view_top_free(&f->view);
	pmem_free(&f->pm);
	crashfree_free(&f->cf);
	free(f->names_buf);
	if (f->cap.f)
		cap_close(&f->cap);
	free(f->cap.buf);
	free(f);
}

/* What the view writes from now on, captured anew. */
static void fx_recapture(struct fx *f)
{
	cap_close(&f->cap);
	free(f->cap.buf);
	f->view.out = cap_open(&f->cap);
}

/* The view, drawing in place on a rows x cols screen. */
static void fx_view(struct fx *f, unsigned int rows, unsigned int cols, bool utf8,
		    const struct top_settings *given)
{
	struct top_settings settings = { .interval_s = 2, .sort = SORT_BYTES, .utf8 = utf8 };

	if (given)
		settings = *given;
	cr_assert_eq(view_top(&f->view, cap_open(&f->cap), &settings), 0);
	f->view.screen = (struct screen){ .rows = rows, .cols = cols, .clear = true };
}

/* Everything written so far, on a fresh screen. */
static void fx_screen(struct fx *f, struct term *t)
{
	fflush(f->cap.f);
	term_init(t, f->view.screen.rows, f->view.screen.cols);
	term_feed(t, f->cap.buf, f->cap.len);
}

/* Output since the last call only (a redraw over the previous screen). */
static void fx_redraw_onto(struct fx *f, struct term *t, size_t *from)
{
	fflush(f->cap.f);
	term_feed(t, f->cap.buf + *from, f->cap.len - *from);
	*from = f->cap.len;
}

/* Keys typed, and the screen redrawn over the last one. */
static void fx_keys(struct fx *f, struct term *t, size_t *from, const char *keys)
{
	top_feed_keys(&f->view, keys, strlen(keys));
	top_redraw(&f->view);
	fx_redraw_onto(f, t, from);
}

/* ---- drawing ---- */

Test(top_view, frame_at_80x24_shows_lost_p99_and_iops)
{
	struct fx *f = fx_new();
	struct latency_hist hist = { { 0 } };
	char p99[32];
	double us;
	struct term t;
	int y;

	fx_rows(f, 3);
	fx_view(f, 24, 80, true, NULL);
	view_show_frame(&f->view, &f->frame);
	fx_screen(f, &t);
	term_dump(&t);
	cr_assert(strstr(term_line(&t, 0), lost_all_ones()), "%s", term_line(&t, 0));
	cr_assert(strstr(term_line(&t, 0), "write 1.0 MiB/s"), "%s", term_line(&t, 0));
	cr_assert(strstr(term_line(&t, 1), "per second"), "%s", term_line(&t, 1));
	cr_assert(strstr(term_line(&t, 1), "sort bytes desc"), "%s", term_line(&t, 1));
	cr_assert(strstr(term_line(&t, 2), "crash-free 3 of 3 hours \u00b7 1 crash ("), "%s",
		  term_line(&t, 2));
	y = term_find(&t, "P99_ms");
	cr_assert_geq(y, 0, "no P99_ms heading");
	/* 80 columns: iostat -x's first figures beside the rates and the p99,
	 * read and write IOPS among them (issue 48); the awaits do not fit */
	cr_assert(strstr(term_line(&t, y), "W_IOPS") && strstr(term_line(&t, y), "R_IOPS") &&
		  !strstr(term_line(&t, y), "R_AWAIT") &&
		  !strstr(term_line(&t, y), "W_AWAIT") && strstr(term_line(&t, y), "AQU-SZ") &&
		  strstr(term_line(&t, y), "%UTIL"), "%s", term_line(&t, y));
	/* vda's p99 as latency_hist.c computes it, in ms */
	hist.slots[20] = 740;
	cr_assert(latency_percentile_us(&hist, 0.99, &us));
	snprintf(p99, sizeof(p99), "%.2f", us / 1000);
	y = term_find(&t, "vda  ");
	cr_assert_geq(y, 0);
	cr_assert(strstr(term_line(&t, y), p99), "p99 %s missing: %s", p99, term_line(&t, y));
	cr_assert(strstr(term_line(&t, y), "     50     320 "), "r/s w/s: %s", term_line(&t, y));
	cr_assert(strstr(term_line(&t, y), " 3.21 "), "aqu-sz: %s", term_line(&t, y));
	cr_assert(strstr(term_line(&t, y), " 87.5"), "util: %s", term_line(&t, y));
	/* zram0 has no histogram: "-" where its p99 would be */
	y = term_find(&t, "zram0  ");
	cr_assert_geq(y, 0);
	cr_assert_eq(term_line(&t, y)[strlen(term_line(&t, y)) - 1], '-', "%s", term_line(&t, y));
	/* issue 33: iotop's columns at 80, the IOPS at 90 */
	y = term_find(&t, "COMM");
	cr_assert(strstr(term_line(&t, y), "    PID PRIO USER     DEVICE ") &&
		  ends_with(term_line(&t, y), " COMMAND") && !strstr(term_line(&t, y), "W_IOPS"),
		  "%s", term_line(&t, y));
	cr_assert(strstr(term_line(&t, y + 1), "proc0"), "%s", term_line(&t, y + 1));
	/* 120 columns: the disks' I/O rates too; 640 writes over 2 s are 320
	 * per second */
	fx_recapture(f);
	f->view.screen.cols = 120;
	top_redraw(&f->view);
	fx_screen(f, &t);
	y = term_find(&t, "vda  ");
	cr_assert_geq(y, 0);
	cr_assert(strstr(term_line(&t, y), " 320 "), "%s", term_line(&t, y));
	fx_free(f);
}

/* issue 45: a row's failed I/Os, of two kinds (ERR sums them), in the
 * interval and since start. */
static void row_fails(struct proc_io *row, uint64_t delta, uint64_t total)
{
	row->delta[PMEM_ERRORS + IO_ERR_EIO] = delta ? 1 : 0;
	row->delta[PMEM_ERRORS + IO_ERR_ENOSPC] = delta ? delta - 1 : 0;
	row->total[PMEM_ERRORS + IO_ERR_EIO] = total ? 1 : 0;
	row->total[PMEM_ERRORS + IO_ERR_ENOSPC] = total ? total - 1 : 0;
}

/* A new interval of the disks in which disk failed n I/Os and did
 * nothing else (what came before is in their totals). */
static void disk_fails(struct fx *f, const char *disk, uint64_t n)
{
	pmem_add(&f->pm, pmem_device_get(&f->pm, disk), PMEM_ERRORS + IO_ERR_ENOSPC, n);
	pmem_flush(&f->pm);
}

/* The process table's heading line, and the disks'. */
static int proc_heading(const struct term *t)
{
	return term_find(t, "    PID ");
}

static int disk_heading(const struct term *t)
{
	return term_find(t, "DEVICE     ");
}

/* Whether line y has an ERR heading, and where it ends. */
static bool has_err(const struct term *t, int y)
{
	cr_assert_geq(y, 0, "no heading");
	return strstr(term_line(t, y), " ERR ") != NULL;
}

/* The count in the ERR column of line y, under heading line h: the cell
 * ends where the heading does (numbers are right-aligned). */
static const char *err_cell(const struct term *t, int h, int y)
{
	static char cell[16];
	size_t end = column_of(term_line(t, h), " ERR ") + 4, start = end;
	const char *line;

	cr_assert_geq(y, 0);
	line = term_line(t, y);
	cr_assert_lt(end, strlen(line), "%s", line);
	while (start > 0 && line[start - 1] != ' ')
		start--;
	snprintf(cell, sizeof(cell), "%.*s", (int)(end - start), line + start);
	cr_assert_eq(line[end], ' ', "ERR's cell runs past its heading: %s", line);
	return cell;
}

/* issue 45: ERR appears with the first failed I/O, at 80 columns beside
 * every column shown there without it (IO> too: 80 wide), with the row's
 * count, 0 on the others, and the disk's; before it, neither table has
 * one. */
Test(top_view, an_errors_column_when_io_failed)
{
	struct fx *f = fx_new();
	struct proc_io *row;
	struct term t;
	int h;

	fx_rows(f, 2);
	f->frame.waits_source = WAITS_SCHED;
	fx_view(f, 24, 80, true, NULL);
	view_show_frame(&f->view, &f->frame);
	fx_screen(f, &t);
	cr_assert_not(has_err(&t, proc_heading(&t)), "%s", term_line(&t, proc_heading(&t)));
	cr_assert_not(has_err(&t, disk_heading(&t)), "%s", term_line(&t, disk_heading(&t)));
	fx_free(f);

	f = fx_new();
	fx_rows(f, 2);
	row = add_row(f, 812, "dd", 2, "vda", 0, 1 << 20);
	row_fails(row, 25, 250);
	disk_fails(f, "vda", 25);
	f->frame.waits_source = WAITS_SCHED;
	fx_view(f, 24, 80, true, NULL);
	view_show_frame(&f->view, &f->frame);
	fx_screen(f, &t);
	term_dump(&t);
	h = proc_heading(&t);
	cr_assert_str_eq(term_line(&t, h), "    PID PRIO USER       IO> DEVICE       READ/s    "
			 "WRITE/s   ERR COMMAND", "80 columns keep all: %s", term_line(&t, h));
	cr_assert_str_eq(err_cell(&t, h, term_row_of(&t, 812)), "25");
	cr_assert_str_eq(err_cell(&t, h, term_row_of(&t, 100)), "0", "a row without errors");
	cr_assert_str_eq(err_cell(&t, h, term_row_of(&t, 101)), "0");
	/* the disks keep their IOPS beside it; vda, whose interval had only
	 * failed I/Os, is listed for them */
	h = disk_heading(&t);
	cr_assert(strstr(term_line(&t, h), " WRITE/s   ERR  R_IOPS  W_IOPS "), "%s",
		  term_line(&t, h));
	cr_assert_str_eq(err_cell(&t, h, term_find(&t, "vda  ")), "25");
	fx_free(f);
}

/* issue 45: with a (or -a) ERR counts since start: a row whose I/Os
 * failed in an earlier interval shows them there, and not per interval. */
Test(top_view, the_errors_column_since_start)
{
	struct top_settings accumulated = { .interval_s = 2, .sort = SORT_BYTES,
					    .cumulative = true };
	struct fx *f = fx_new();
	struct term t;
	size_t from;
	int h;

	fx_rows(f, 2);
	row_fails(add_row(f, 812, "dd", 2, "vda", 4096, 0), 0, 7);
	disk_fails(f, "vda", 7);
	dev_add(&f->pm, "vda", 4096, 0, 1, 0);
	pmem_flush(&f->pm);	/* an interval without failed I/Os */
	fx_view(f, 24, 80, false, NULL);
	view_show_frame(&f->view, &f->frame);
	fx_screen(f, &t);
	from = f->cap.len;
	cr_assert_not(has_err(&t, proc_heading(&t)), "%s", term_line(&t, proc_heading(&t)));
	cr_assert_not(has_err(&t, disk_heading(&t)), "%s", term_line(&t, disk_heading(&t)));
	fx_keys(f, &t, &from, "a");
	h = proc_heading(&t);
	cr_assert(strstr(term_line(&t, h), " WRITE   ERR COMMAND"), "%s", term_line(&t, h));
	cr_assert_str_eq(err_cell(&t, h, term_row_of(&t, 812)), "7");
	cr_assert_str_eq(err_cell(&t, h, term_row_of(&t, 100)), "0");
	h = disk_heading(&t);
	cr_assert_str_eq(err_cell(&t, h, term_find(&t, "vda  ")), "7");
	fx_keys(f, &t, &from, "a");
	cr_assert_not(has_err(&t, proc_heading(&t)), "per second again: %s",
		      term_line(&t, proc_heading(&t)));
	fx_free(f);

	f = fx_new();
	fx_rows(f, 2);
	row_fails(add_row(f, 812, "dd", 2, "vda", 4096, 0), 0, 7);
	fx_view(f, 24, 80, false, &accumulated);
	view_show_frame(&f->view, &f->frame);
	fx_screen(f, &t);
	cr_assert_str_eq(err_cell(&t, proc_heading(&t), term_row_of(&t, 812)), "7", "-a");
	fx_free(f);
}

/* issue 45: ERR is there for the rows the table lists: not for a row the
 * filter, d or -r leave out, lest a column of zeros stand for a failure
 * not shown. */
Test(top_view, the_errors_column_follows_the_rows_listed)
{
	struct fx *f = fx_new();
	struct term t;
	size_t from;

	fx_rows(f, 3);
	row_fails(add_row(f, 812, "dd", 2, "zram0", 4096, 0), 3, 3);	/* the least bytes */
	fx_view(f, 24, 120, false, NULL);
	view_show_frame(&f->view, &f->frame);
	fx_screen(f, &t);
	from = f->cap.len;
	cr_assert(has_err(&t, proc_heading(&t)), "%s", term_line(&t, proc_heading(&t)));
	fx_keys(f, &t, &from, "/proc\r");
	cr_assert_lt(term_row_of(&t, 812), 0);
	cr_assert_not(has_err(&t, proc_heading(&t)), "filtered out: %s",
		      term_line(&t, proc_heading(&t)));
	fx_keys(f, &t, &from, "\033d");		/* vda */
	cr_assert_not(has_err(&t, proc_heading(&t)), "another disk: %s",
		      term_line(&t, proc_heading(&t)));
	fx_keys(f, &t, &from, "d");		/* zram0 */
	cr_assert_geq(term_row_of(&t, 812), 0);
	cr_assert(has_err(&t, proc_heading(&t)), "%s", term_line(&t, proc_heading(&t)));
	fx_free(f);

	f = fx_new();
	fx_rows(f, 3);
	row_fails(add_row(f, 812, "dd", 2, "zram0", 4096, 0), 3, 3);
	fx_view(f, 24, 120, false, NULL);
	f->view.screen.max_rows = 3;
	view_show_frame(&f->view, &f->frame);
	fx_screen(f, &t);
	cr_assert(term_find(&t, "+1 more") >= 0 && term_row_of(&t, 812) < 0);
	cr_assert_not(has_err(&t, proc_heading(&t)), "cut by -r: %s",
		      term_line(&t, proc_heading(&t)));
	fx_free(f);
}

/* issue 45: an I/O counted in one interval may fail in the next: a row
 * the frame holds whose interval has only failed I/Os is listed for them,
 * as such a disk is (an_errors_column_when_io_failed). */
Test(top_view, a_row_of_failed_ios_alone_is_listed)
{
	struct fx *f = fx_new();
	struct term t;

	fx_rows(f, 2);
	row_fails(add_row(f, 812, "dd", 2, "vda", 0, 0), 3, 3);
	fx_view(f, 24, 80, false, NULL);
	view_show_frame(&f->view, &f->frame);
	fx_screen(f, &t);
	cr_assert_str_eq(err_cell(&t, proc_heading(&t), term_row_of(&t, 812)), "3");
	fx_free(f);
}

/* issue 45: ERR takes room DIRTY/s would have had, and without DIRTY/s a
 * row of dirtied bytes alone is not listed (issue 48): at 96 columns the
 * rows are those of the columns drawn, the failed ones among them. */
Test(top_view, the_errors_column_takes_the_room_of_dirty)
{
	for (int failed = 0; failed <= 1; failed++) {
		struct fx *f = fx_new();
		struct proc_io *row;
		struct term t;
		int h;

		fx_rows(f, 2);
		row = add_row(f, 700, "dirtier", 7, "vda", 0, 0);
		row->delta[PMEM_DIRTIED_BYTES] = 1 << 20;
		row_fails(add_row(f, 812, "dd", 2, "vda", 4096, 0), failed ? 2 : 0, 2);
		fx_view(f, 24, 96, false, NULL);
		view_show_frame(&f->view, &f->frame);
		fx_screen(f, &t);
		h = proc_heading(&t);
		cr_assert_eq(has_err(&t, h), failed, "%s", term_line(&t, h));
		cr_assert_eq(strstr(term_line(&t, h), "DIRTY/s") != NULL, !failed, "%s",
			     term_line(&t, h));
		cr_assert_eq(term_row_of(&t, 700) >= 0, !failed, "the dirtier, failed %d", failed);
		cr_assert_geq(term_row_of(&t, 812), 0);
		fx_free(f);
	}
}

/* issue 45: -s errors, the most failed I/Os first; sorted by them ERR
 * stays on screen, zeros and all, as every sort column does. */
Test(top_view, sorted_by_errors)
{
	struct top_settings settings = { .interval_s = 2, .sort = SORT_ERRORS };
	struct fx *f = fx_new();
	struct term t;
	int h;

	fx_rows(f, 3);
	row_fails(add_row(f, 812, "dd", 2, "vda", 4096, 0), 2, 2);
	row_fails(add_row(f, 813, "cp", 2, "vda", 4096, 0), 5, 5);
	fx_view(f, 24, 80, false, &settings);
	view_show_frame(&f->view, &f->frame);
	fx_screen(f, &t);
	cr_assert(strstr(term_line(&t, 1), "sort errors desc"), "%s", term_line(&t, 1));
	h = proc_heading(&t);
	cr_assert_eq(term_row_of(&t, 813), h + 1, "5 failed first");
	cr_assert_eq(term_row_of(&t, 812), h + 2);
	fx_free(f);

	f = fx_new();
	fx_rows(f, 3);
	fx_view(f, 24, 80, false, &settings);
	view_show_frame(&f->view, &f->frame);
	fx_screen(f, &t);
	h = proc_heading(&t);
	cr_assert_str_eq(err_cell(&t, h, term_row_of(&t, 100)), "0", "%s", term_line(&t, h));
	fx_free(f);
}

/* issue 45: ERR is a count in its 5 columns: k, M, G when the digits
 * would not fit. */
Test(top_view, many_failed_ios_fit_their_cell)
{
	static const struct {
		uint64_t n;
		const char *shown;
	} cases[] = {
		{ 99999, "99999" }, { 123456, "123k" }, { 99999999, "100M" },
		{ UINT64_C(1234567890), "1235M" }, { UINT64_C(123456789012), "123G" },
	};
	struct fx *f = fx_new();
	struct term t;
	int h;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		row_fails(add_row(f, 800 + i, "dd", 2, "vda", 4096, 0), cases[i].n, cases[i].n);
	fx_view(f, 24, 80, false, NULL);
	view_show_frame(&f->view, &f->frame);
	fx_screen(f, &t);
	h = proc_heading(&t);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		cr_assert_str_eq(err_cell(&t, h, term_row_of(&t, 800 + i)), cases[i].shown);
	fx_free(f);
}

/* Who waits: IO> between the user and the disk at 80 columns, a process
 * that only waited on a row of disk "-", SWAPIN "-" without delay
 * accounting at 130, and the rows in IO> order with -s iowait. */
Test(top_view, iowait_column_and_a_row_of_no_disk)
{
	struct top_settings settings = { .interval_s = 2, .sort = SORT_IOWAIT };
	struct fx *f = fx_new();
	struct proc_io *row;
	struct term t;
	int y;

	f->frame.waits_source = WAITS_SCHED;
	f->frame.iowait_known = true;
	add_row(f, 300, "backup", 6, "vda", 0, 8 << 20)->wait_delta.blkio_ns = 50000000;
	row = add_row(f, 301, "postgres", 8, "-", 0, 0);
	row->key.dev = IOWAIT_NO_DEVICE;
	row->wait_delta.blkio_ns = 1500000000;
	row = add_row(f, 302, "java", 4, "-", 0, 0);
	row->key.dev = IOWAIT_NO_DEVICE;
	row->wait_delta.blkio_ns = 5000000000;	/* threads: it passes 100 */
	fx_view(f, 24, 80, false, &settings);
	view_show_frame(&f->view, &f->frame);
	fx_screen(f, &t);
	term_dump(&t);
	y = term_find(&t, "    PID PRIO USER       IO> DEVICE");
	cr_assert_geq(y, 0, "no IO> heading at 80 columns");
	cr_assert(!strstr(term_line(&t, y), "SWAPIN"), "%s", term_line(&t, y));
	cr_assert(strstr(term_line(&t, y + 1), "    302 -    -         250% -  "), "%s",
		  term_line(&t, y + 1));
	cr_assert(strstr(term_line(&t, y + 2), "    301 -    -        75.0% -  "), "%s",
		  term_line(&t, y + 2));
	cr_assert(strstr(term_line(&t, y + 3), "    300 -    -         2.5% vda "), "%s",
		  term_line(&t, y + 3));
	fx_recapture(f);
	f->view.screen.cols = 130;
	top_redraw(&f->view);
	fx_screen(f, &t);
	y = term_find(&t, "USER     SWAPIN   IO> DEVICE");
	cr_assert_geq(y, 0, "no SWAPIN at 130 columns");
	cr_assert(strstr(term_line(&t, y + 1), "    302 -    -             -  250% -"), "%s",
		  term_line(&t, y + 1));
	fx_free(f);
}

/* The header says why records were lost: the causes that lost most
 * first, by the names the batch and JSON lines give them. */
Test(top_view, lost_causes_in_the_header)
{
	struct fx *f = fx_new();
	char want[32];
	struct term t;
	int y;

	fx_rows(f, 3);
	memset(f->frame.lost, 0, sizeof(f->frame.lost));
	f->frame.lost[LOST_RINGBUF_FULL] = 2;
	f->frame.lost[LOST_STATS_MAP_FULL] = 10;
	fx_view(f, 24, 80, false, NULL);
	view_show_frame(&f->view, &f->frame);
	fx_screen(f, &t);
	term_dump(&t);
	cr_assert(strstr(term_line(&t, 0), "lost 12 "), "%s", term_line(&t, 0));
	y = term_find(&t, "lost by cause");
	cr_assert_geq(y, 0);
	cr_assert_str_eq(term_line(&t, y), "lost by cause: stats_map_full 10, ringbuf_full 2");

	/* Every cause lost some, most the last one: it comes first, and at
	 * 60 columns the others that do not fit are "...". */
	for (int i = 0; i < LOST_NR_CAUSES; i++)
		f->frame.lost[i] = 1;
	f->frame.lost[LOST_STACKS_TABLE_FULL] = 7;
	fx_recapture(f);
	f->view.screen.cols = 60;
	view_show_frame(&f->view, &f->frame);
	fx_screen(f, &t);
	y = term_find(&t, "lost by cause");
	cr_assert_geq(y, 0);
	cr_assert_eq(strncmp(term_line(&t, y), "lost by cause: stacks_table_full 7, stats_map_full 1,",
			     53), 0, "%s", term_line(&t, y));
	cr_assert(strstr(term_line(&t, y), ", ..."), "%s", term_line(&t, y));
	cr_assert_leq(strlen(term_line(&t, y)), 60);

	/* Accumulated: the causes since start (12 + 19 of the two frames). */
	top_feed_keys(&f->view, "a", 1);
	fx_recapture(f);
	f->view.screen.cols = 200;
	top_redraw(&f->view);
	fx_screen(f, &t);
	y = term_find(&t, "lost by cause");
	cr_assert_geq(y, 0);
	cr_assert(strstr(term_line(&t, y), "stats_map_full 11, stacks_table_full 7, ringbuf_full 3"),
		  "%s", term_line(&t, y));
	/* 12, then one of each cause and 6 more of one */
	snprintf(want, sizeof(want), "lost %d ", 12 + LOST_NR_CAUSES + 6);
	cr_assert(strstr(term_line(&t, 0), want), "%s", term_line(&t, 0));

	/* Nothing lost: no such line. */
	memset(f->frame.lost, 0, sizeof(f->frame.lost));
	top_feed_keys(&f->view, "a", 1);
	fx_recapture(f);
	view_show_frame(&f->view, &f->frame);
	fx_screen(f, &t);
	cr_assert_lt(term_find(&t, "lost by cause"), 0);
	fx_free(f);
}

Test(top_view, every_width_fits_and_the_last_line_says_which_rows)
{
	static const unsigned int widths[] = { 60, 80, 120, 200 };

	for (size_t w = 0; w < sizeof(widths) / sizeof(widths[0]); w++) {
		struct fx *f = fx_new();
		struct term t;
		int y, heading;
		unsigned int shown = 0;

		fx_rows(f, 40);
		fx_view(f, 24, widths[w], false, NULL);
		view_show_frame(&f->view, &f->frame);
		fx_screen(f, &t);	/* fails on anything past the edge */
		heading = term_find(&t, "COMM");
		cr_assert_geq(heading, 0);
		for (y = heading + 1; y < 24 && strstr(term_line(&t, y), "proc"); y++)
			shown++;
		cr_assert_eq(y, 23, "width %u: rows up to the last line but one", widths[w]);
		{
			char position[32];

			snprintf(position, sizeof(position), "rows 1-%u of 40", shown);
			cr_assert_str_eq(term_line(&t, 23), position, "width %u", widths[w]);
		}
		fx_free(f);
	}
}

Test(top_view, narrow_and_short_screens_stay_inside)
{
	for (unsigned int rows = 1; rows <= 30; rows += 3) {
		for (unsigned int cols = 1; cols <= 130; cols += 7) {
			struct fx *f = fx_new();
			struct term t;

			fx_rows(f, 20);
			fx_view(f, rows, cols, true, NULL);
			view_show_frame(&f->view, &f->frame);
			fx_screen(f, &t);
			cr_assert(strstr(term_line(&t, 0), "diskio") == term_line(&t, 0) ||
				  cols < 6, "%ux%u: %s", rows, cols, term_line(&t, 0));
			fx_free(f);
		}
	}
}

Test(top_view, sampling_line_before_the_first_interval)
{
	for (int utf8 = 0; utf8 <= 1; utf8++) {
		struct fx *f = fx_new();
		struct term t;

		fx_view(f, 24, 80, utf8, NULL);
		f->view.start(&f->view);
		fx_screen(f, &t);
		cr_assert_geq(term_find(&t, utf8 ? "sampling\u2026" : "sampling..."), 0);
		cr_assert_geq(term_find(&t, "after 2s"), 0);
		if (!utf8)
			for (size_t i = 0; i < f->cap.len; i++)
				cr_assert_lt((unsigned char)f->cap.buf[i], 0x80,
					     "non-ASCII under a non-UTF-8 locale");
		fx_free(f);
	}
}

Test(top_view, keys_redraw_from_the_kept_frame)
{
	struct fx *f = fx_new();
	struct term t;
	size_t from;
	int y;

	fx_rows(f, 6);
	fx_view(f, 24, 120, false, NULL);
	view_show_frame(&f->view, &f->frame);
	fx_screen(f, &t);
	from = f->cap.len;

	cr_assert(top_feed_keys(&f->view, ">", 1));
	top_redraw(&f->view);
	fx_redraw_onto(f, &t, &from);
	cr_assert(strstr(term_line(&t, 1), "sort read desc"), "%s", term_line(&t, 1));
	y = term_find(&t, "COMM");
	cr_assert(strstr(term_line(&t, y + 1), "proc5"), "most read first: %s",
		  term_line(&t, y + 1));
	top_feed_keys(&f->view, "r", 1);
	top_redraw(&f->view);
	fx_redraw_onto(f, &t, &from);
	cr_assert(strstr(term_line(&t, 1), "sort read asc"), "%s", term_line(&t, 1));
	cr_assert(strstr(term_line(&t, y + 1), "proc0"), "%s", term_line(&t, y + 1));

	top_feed_keys(&f->view, "/proc3\r", 7);
	top_redraw(&f->view);
	fx_redraw_onto(f, &t, &from);
	cr_assert(strstr(term_line(&t, 1), "filter proc3"), "%s", term_line(&t, 1));
	cr_assert(strstr(term_line(&t, y + 1), "proc3"));
	cr_assert_str_empty(term_line(&t, y + 2), "one row matches: %s", term_line(&t, y + 2));
	top_feed_keys(&f->view, "\033", 1);

	top_feed_keys(&f->view, "dd", 2);	/* all, vda, zram0 */
	top_redraw(&f->view);
	fx_redraw_onto(f, &t, &from);
	cr_assert(strstr(term_line(&t, 1), "device zram0"), "%s", term_line(&t, 1));
	cr_assert_lt(term_find(&t, "vda "), 0, "vda still shown");
	cr_assert_geq(term_find(&t, "proc1"), 0);
	cr_assert_lt(term_find(&t, "proc0"), 0, "a vda row under zram0");
	top_feed_keys(&f->view, "d", 1);

	top_feed_keys(&f->view, "a", 1);
	top_redraw(&f->view);
	fx_redraw_onto(f, &t, &from);
	cr_assert(strstr(term_line(&t, 1), "accumulated"), "%s", term_line(&t, 1));
	y = term_find(&t, "COMM");
	cr_assert(strstr(term_line(&t, y), " READ ") && !strstr(term_line(&t, y), "READ/s"),
		  "totals are not rates: %s", term_line(&t, y));
	cr_assert_geq(term_find(&t, "proc0"), 0);
	/* proc0's total is ten times its 4 KiB of the interval */
	cr_assert(strstr(term_line(&t, term_find(&t, "proc0")), "40.0 KiB"));

	top_feed_keys(&f->view, "L", 1);
	top_redraw(&f->view);
	fx_redraw_onto(f, &t, &from);
	cr_assert_lt(term_find(&t, "P99_ms"), 0, "L hides the latency columns");
	top_feed_keys(&f->view, "h", 1);
	top_redraw(&f->view);
	fx_redraw_onto(f, &t, &from);
	cr_assert_geq(term_find(&t, "any other key closes"), 0);
	cr_assert_lt(term_find(&t, "    PID "), 0, "the help instead of the tables");
	fx_free(f);
}

Test(top_view, paused_keeps_the_screen_while_frames_come)
{
	struct fx *f = fx_new();
	struct term t;
	size_t from;

	fx_rows(f, 3);
	fx_view(f, 24, 80, false, NULL);
	view_show_frame(&f->view, &f->frame);
	top_feed_keys(&f->view, "p", 1);
	top_redraw(&f->view);
	fx_screen(f, &t);
	from = f->cap.len;
	cr_assert(strstr(term_line(&t, 1), "PAUSED"), "%s", term_line(&t, 1));
	f->rows[0].delta[PMEM_WRITE_BYTES] = 999ULL << 30;
	f->frame.lost[0] = 1000;
	view_show_frame(&f->view, &f->frame);
	fflush(f->cap.f);
	cr_assert_eq(f->cap.len, from, "a paused display draws nothing");
	top_feed_keys(&f->view, "p", 1);
	top_redraw(&f->view);
	fx_redraw_onto(f, &t, &from);
	cr_assert_null(strstr(term_line(&t, 1), "PAUSED"));
	cr_assert(strstr(term_line(&t, 0), lost_all_ones()), "still the frame before the pause: %s",
		  term_line(&t, 0));
	view_show_frame(&f->view, &f->frame);
	fx_redraw_onto(f, &t, &from);
	cr_assert(strstr(term_line(&t, 0), lost_after_1000()), "%s", term_line(&t, 0));
	fx_free(f);
}

Test(top_view, resize_redraws_at_the_new_size)
{
	struct fx *f = fx_new();
	struct term t;

	fx_rows(f, 40);
	fx_view(f, 24, 80, false, NULL);
	view_show_frame(&f->view, &f->frame);
	fx_recapture(f);
	f->view.screen.rows = 15;
	f->view.screen.cols = 60;
	top_redraw(&f->view);
	fx_screen(f, &t);
	cr_assert_eq(strncmp(term_line(&t, 14), "rows 1-", 7), 0, "%s", term_line(&t, 14));
	cr_assert(strstr(term_line(&t, 14), " of 40"), "%s", term_line(&t, 14));
	cr_assert_geq(term_find(&t, lost_all_ones()), 0);
	cr_assert_geq(term_find(&t, "P99_ms"), 0);
	fx_free(f);
}

Test(top_view, options_set_the_first_screen)
{
	struct fx *f = fx_new();
	struct top_settings settings = {
		.interval_s = 1, .sort = SORT_COMM, .cumulative = true, .per_process_latency = true,
	};
	struct term t;
	int y;

	fx_rows(f, 3);
	f->frame.per_process_latency = true;
	f->rows[1].delta[PMEM_LATENCY_NS] = 5210000;
	f->rows[1].delta[PMEM_LATENCY_IOS] = 10;
	f->rows[1].total[PMEM_LATENCY_NS] = 5210000;
	f->rows[1].total[PMEM_LATENCY_IOS] = 10;
	fx_view(f, 24, 100, false, &settings);	/* LAT_ms comes after the IOPS, at 100 */
	view_show_frame(&f->view, &f->frame);
	fx_screen(f, &t);
	cr_assert(strstr(term_line(&t, 1), "sort comm asc"), "%s", term_line(&t, 1));
	cr_assert(strstr(term_line(&t, 1), "accumulated"), "%s", term_line(&t, 1));
	y = term_find(&t, "COMM");
	cr_assert(strstr(term_line(&t, y), "LAT_ms"), "-L: %s", term_line(&t, y));
	cr_assert(strstr(term_line(&t, term_find(&t, "proc1")), "0.521"));
	fx_free(f);
}

Test(top_view, max_rows_limits_processes)
{
	struct fx *f = fx_new();
	struct term t;
	int y;

	fx_rows(f, 30);
	fx_view(f, 50, 120, false, NULL);
	f->view.screen.max_rows = 3;
	view_show_frame(&f->view, &f->frame);
	fx_screen(f, &t);
	y = term_find(&t, "COMM");
	for (int i = 1; i <= 3; i++)
		cr_assert(strstr(term_line(&t, y + i), "proc"));
	cr_assert_str_eq(term_line(&t, y + 4), "+27 more");
	fx_free(f);
}

/* A process names itself: no control byte or sequence of its name reaches
 * the terminal, C1 raw or UTF-8 encoded (U+009B is a CSI too), in the rows,
 * the disks or the crash line; each is shown as \xHH, as batch does. */
Test(top_view, names_cannot_reach_the_terminal)
{
	for (int utf8 = 0; utf8 <= 1; utf8++) {
		struct fx *f = fx_new();
		struct term t;

		add_row(f, 9, "\x1b[2J\x1b]0;x\x07", 10, "\x1b[31mred", 1, 1);
		add_row(f, 10, "a\x9b" "2Jraw", 7, "vda", 1, 1);
		add_row(f, 11, "b\xc2\x9b" "2Jutf", 8, "vda", 1, 1);
		add_row(f, 12, "a\tb\nc", 5, "vda", 1, 1);
		cr_assert_eq(crashfree_record_crash(&f->cf, "\x1b[2Jevil", 4 * 3600 * NS_PER_S), 0);
		fx_view(f, 40, 200, utf8, NULL);
		view_show_frame(&f->view, &f->frame);
		fx_screen(f, &t);	/* fails on a control byte or a foreign sequence */
		term_dump(&t);
		cr_assert_null(memmem(f->cap.buf, f->cap.len, "\x9b", 1));
		cr_assert_null(memmem(f->cap.buf, f->cap.len, "\x07", 1));
		cr_assert_null(memmem(f->cap.buf, f->cap.len, "\x1b]", 2));
		cr_assert_null(memmem(f->cap.buf, f->cap.len, "\x1b[2J", 4));
		cr_assert_null(memmem(f->cap.buf, f->cap.len, "\x1b[31m", 5));
		/* COMMAND is last (issue 33): the whole escaped name ends the row */
		cr_assert(ends_with(term_line(&t, term_row_of(&t, 12)), " a\\x09b\\x0ac"));
		cr_assert(ends_with(term_line(&t, term_row_of(&t, 10)), " a\\x9b2Jraw"));
		cr_assert(ends_with(term_line(&t, term_row_of(&t, 11)), " b\\xc2\\x9b2Jutf"));
		cr_assert(ends_with(term_line(&t, term_row_of(&t, 9)), " \\x1b[2J\\x1b]0;x\\x07"),
			  "%s", term_line(&t, term_row_of(&t, 9)));
		cr_assert(strstr(term_line(&t, term_row_of(&t, 9)), " \\x1b[31m "),
			  "the disk cut to its column");
		cr_assert_geq(term_find(&t, "(\\x1b[2Jevil 1, "), 0, "the crash line");
		fx_free(f);
	}
}

/* Under a UTF-8 locale, names show as written, and the columns after them
 * start where they do after an ASCII name: each character takes the
 * columns a terminal gives it (ü one in two bytes, 数 two), not a byte's. */
Test(top_view, utf8_names_show_as_written_and_keep_the_columns)
{
	static const char *const names[] = {
		"plain", "\u00fcnic\u00f6de\u2603", "\u6570\u636e\u5e93", "e\u0301t\u00e9",
	};
	struct fx *f = fx_new();
	size_t command = 0;
	struct term t;

	for (int i = 0; i < 4; i++)
		add_row(f, 200 + i, names[i], strlen(names[i]), "vda", 4096, 8192);
	fx_view(f, 24, 80, true, NULL);
	view_show_frame(&f->view, &f->frame);
	fx_screen(f, &t);
	term_dump(&t);
	/* COMMAND is last (issue 33): each name ends its row, from the column
	 * of the heading on */
	command = column_of(term_line(&t, term_find(&t, "COMM")), "COMMAND");
	for (int i = 0; i < 4; i++) {
		int y = term_row_of(&t, 200 + i);
		const char *line;

		cr_assert_geq(y, 0, "no row of %s", names[i]);
		line = term_line(&t, y);
		cr_assert(ends_with(line, names[i]), "%s", line);
		cr_assert_eq(screen_columns(line, strlen(line) - strlen(names[i])), command, "%s",
			     line);
	}
	fx_free(f);
}

/* A disk's name too: its numbers line up under the headings. */
Test(top_view, utf8_disk_names_keep_the_columns)
{
	struct fx *f = fx_new();
	const char *vda, *disk;
	size_t device;
	struct term t;

	pmem_free(&f->pm);
	pmem_init(&f->pm);
	dev_add(&f->pm, "vda", 409600, 2 << 20, 100, 640);
	dev_add(&f->pm, "d\u00efsk\u6570", 409600, 2 << 20, 100, 640);
	pmem_flush(&f->pm);
	add_row(f, 300, "reader", 6, "d\u00efsk\u6570", 4096, 0);
	fx_view(f, 24, 80, true, NULL);
	view_show_frame(&f->view, &f->frame);
	fx_screen(f, &t);
	term_dump(&t);
	vda = strdup(term_line(&t, term_find(&t, "vda        ")));
	disk = term_line(&t, term_find(&t, "d\u00efsk\u6570     "));
	cr_assert_str_eq(disk + strlen("d\u00efsk\u6570     "), vda + strlen("vda        "));
	/* the process's row: the disk under DEVICE, its rates after it */
	device = column_of(term_line(&t, term_find(&t, "COMM")), "DEVICE");
	cr_assert_eq(column_of(term_line(&t, term_row_of(&t, 300)), "d\u00efsk\u6570  "), device);
	cr_assert(ends_with(term_line(&t, term_row_of(&t, 300)), "0 B reader"), "%s",
		  term_line(&t, term_row_of(&t, 300)));
	free((void *)vda);
	fx_free(f);
}

/* A cell is cut between characters: a wide character that would straddle
 * its edge is left out and a space takes its column. */
Test(top_view, a_cut_falls_between_wide_characters)
{
	static const char ascii[] = "abcdefghijklmnop";			/* 16 columns */
	static const char wide[] = "\u6570\u636e\u5e93\u6570\u636e\u5e93\u6570\u636e";	/* 16 */
	static const char odd[] = "a\u6570\u636e\u5e93\u6570\u636e\u5e93\u6570\u636e";	/* 17 */
	struct fx *f = fx_new();
	size_t command;
	struct term t;
	int y;

	add_row(f, 401, ascii, strlen(ascii), "vda", 4096, 8192);
	add_row(f, 402, wide, strlen(wide), "vda", 4096, 8192);
	add_row(f, 403, odd, strlen(odd), "vda", 4096, 8192);
	/* 54 columns: PID DEVICE READ/s WRITE/s and COMMAND at its least, 15 */
	fx_view(f, 24, 54, true, NULL);
	view_show_frame(&f->view, &f->frame);
	fx_screen(f, &t);
	term_dump(&t);
	command = column_of(term_line(&t, term_find(&t, "COMM")), "COMMAND");
	cr_assert_eq(command, 54 - 15, "COMMAND is 15 columns");
	y = term_row_of(&t, 401);
	cr_assert(ends_with(term_line(&t, y), " abcdefghijklmno"), "%s", term_line(&t, y));
	cr_assert_eq(column_of(term_line(&t, y), "abcdefghijklmno"), command);
	/* seven of 数据库..., 14 columns, and a space for the eighth's first */
	y = term_row_of(&t, 402);
	cr_assert(ends_with(term_line(&t, y), " \u6570\u636e\u5e93\u6570\u636e\u5e93\u6570"),
		  "%s", term_line(&t, y));
	cr_assert_eq(column_of(term_line(&t, y), "\u6570"), command);
	/* a, then seven: exactly 15 */
	y = term_row_of(&t, 403);
	cr_assert(ends_with(term_line(&t, y), " a\u6570\u636e\u5e93\u6570\u636e\u5e93\u6570"),
		  "%s", term_line(&t, y));
	cr_assert_eq(screen_columns(term_line(&t, y), strlen(term_line(&t, y))), 54);
	fx_free(f);
}

/* Outside a UTF-8 locale every byte but printable ASCII is \xHH, and the
 * screen gets ASCII only. */
Test(top_view, names_outside_utf8_are_escaped_ascii)
{
	static const char name[] = "\u00fcnic\u00f6de\u2603";
	struct fx *f = fx_new();
	struct term t;

	add_row(f, 500, name, strlen(name), "vda", 4096, 8192);
	fx_view(f, 24, 54, false, NULL);	/* COMMAND at its least, 15 */
	view_show_frame(&f->view, &f->frame);
	fx_screen(f, &t);
	term_dump(&t);
	cr_assert(ends_with(term_line(&t, term_row_of(&t, 500)), " \\xc3\\xbcnic\\xc3"), "%s",
		  term_line(&t, term_row_of(&t, 500)));
	for (size_t i = 0; i < f->cap.len; i++)
		cr_assert_lt((unsigned char)f->cap.buf[i], 0x80, "non-ASCII under a non-UTF-8 locale");
	fx_free(f);
}

/* An empty comm is "-", as batch shows it. */
Test(top_view, an_empty_comm_shows_a_dash)
{
	struct fx *f = fx_new();
	struct term t;

	add_row(f, 7, "", 0, "vda", 4096, 8192);
	fx_view(f, 24, 80, true, NULL);
	view_show_frame(&f->view, &f->frame);
	fx_screen(f, &t);
	cr_assert(ends_with(term_line(&t, term_row_of(&t, 7)), "KiB -"), "%s",
		  term_line(&t, term_row_of(&t, 7)));
	fx_free(f);
}


Test(top_view, appended_frames_have_no_escape_codes)
{
	struct fx *f = fx_new();

	fx_rows(f, 5);
	fx_view(f, 24, 80, false, NULL);
	f->view.screen.clear = false;
	view_show_frame(&f->view, &f->frame);
	fflush(f->cap.f);
	cr_assert_null(memchr(f->cap.buf, 0x1b, f->cap.len));
	cr_assert_eq(f->cap.buf[f->cap.len - 1], '\n');
	cr_assert_eq(f->cap.buf[f->cap.len - 2], '\n', "an empty line closes an appended frame");
	fx_free(f);
}

/* A kernel worker's name is whole, a row that served a stacked device says
 * which (DISK<ABOVE), and with -t the first column is TID. */
Test(top_view, workers_stacked_rows_and_threads)
{
	static const char worker[] = "kworker/u8:0-loop2";
	struct fx *f = fx_new();
	struct proc_io *row = add_row(f, 6390, worker, strlen(worker), "zram3", 0, 1 << 20);
	struct term t;
	int y;

	cr_assert_eq(res_intern_str(&f->names, "loop2", &row->serves_name), RES_OK);
	f->frame.per_thread = true;
	fx_view(f, 24, 120, false, NULL);
	view_show_frame(&f->view, &f->frame);
	fx_screen(f, &t);
	y = term_find(&t, "COMM");
	cr_assert_geq(y, 0);
	cr_assert_not_null(strstr(term_line(&t, y), "TID"), "%s", term_line(&t, y));
	y = term_find(&t, "6390");
	cr_assert_geq(y, 0);
	cr_assert_not_null(strstr(term_line(&t, y), "kworker/u8:0-lo"), "%s", term_line(&t, y));
	cr_assert_not_null(strstr(term_line(&t, y), "zram3<"), "%s", term_line(&t, y));
	fx_free(f);
}

Test(top_view, by_cgroup_shows_paths_not_pids)
{
	struct fx *f = fx_new();
	struct top_settings settings = { .interval_s = 1, .by_cgroup = true };
	struct proc_io *row = add_row(f, 0, "", 0, "vda", 4096, 0);
	struct term t;
	int y;

	cr_assert_eq(res_intern_str(&f->names, "/system.slice/nginx.service", &row->cgroup_name),
		     RES_OK);
	f->frame.by_cgroup = true;
	fx_view(f, 24, 60, false, &settings);
	view_show_frame(&f->view, &f->frame);
	fx_screen(f, &t);
	y = term_find(&t, "CGROUP");
	cr_assert_geq(y, 0);
	cr_assert_null(strstr(term_line(&t, y), "PID"));
	cr_assert_geq(term_find(&t, "/system.slice/nginx"), 0);
	fx_free(f);
}

Test(top_view, leaving_prints_one_summary_line)
{
	struct fx *f = fx_new();
	struct summary s = { .duration_s = 12.34, .crash = &f->cf };
	char *nl;

	fx_view(f, 24, 80, false, NULL);
	view_show_frame(&f->view, &f->frame);
	fx_recapture(f);
	s.lost[0] = 3;
	f->view.summary(&f->view, &s);
	fflush(f->cap.f);
	nl = memchr(f->cap.buf, '\n', f->cap.len);
	cr_assert_not_null(nl);
	cr_assert_eq(nl - f->cap.buf + 1, (long)f->cap.len, "one line: %s", f->cap.buf);
	cr_assert_lt(f->cap.len, 80, "%s", f->cap.buf);
	cr_assert_str_eq(f->cap.buf,
			 "diskio ran 12.3s: read 408.0 KiB, write 2.0 MiB, lost 3, crashes 1\n");
	fx_free(f);
}

/* ---- the selection and the stack overlay ---- */

/* Press keys, then draw again onto t. */
/* The comm of the reversed line (COMMAND, its last word), "" without one. */
static const char *selected_comm(const struct term *t)
{
	static char comm[16];
	int y = term_reversed_line(t);

	comm[0] = '\0';
	if (y >= 0)
		snprintf(comm, sizeof(comm), "%s", last_word(term_line(t, y)));
	return comm;
}

Test(top_view, arrows_select_a_row_and_stop_at_the_ends)
{
	struct fx *f = fx_new();
	struct term t;
	size_t from;

	fx_rows(f, 6);		/* by bytes: proc0 first ... proc5 last */
	fx_view(f, 24, 80, false, NULL);
	view_show_frame(&f->view, &f->frame);
	fx_screen(f, &t);
	from = f->cap.len;
	cr_assert_eq(term_reversed_line(&t), -1, "nothing selected before a key");
	fx_keys(f, &t, &from, "\033[B");
	cr_assert_str_eq(selected_comm(&t), "proc0", "the first arrow shows the first row");
	fx_keys(f, &t, &from, "jj");
	cr_assert_str_eq(selected_comm(&t), "proc2");
	fx_keys(f, &t, &from, "\033[A");
	cr_assert_str_eq(selected_comm(&t), "proc1");
	fx_keys(f, &t, &from, "jjjjjjjjjj");
	cr_assert_str_eq(selected_comm(&t), "proc5", "clamped at the last row");
	fx_keys(f, &t, &from, "k\033OA\033[Akkkkkkk");
	cr_assert_str_eq(selected_comm(&t), "proc0", "clamped at the first row");
	fx_free(f);
}

Test(top_view, the_selection_follows_its_row_then_keeps_its_place)
{
	struct fx *f = fx_new();
	struct term t;
	size_t from;

	fx_rows(f, 6);
	fx_view(f, 24, 80, false, NULL);
	view_show_frame(&f->view, &f->frame);
	fx_screen(f, &t);
	from = f->cap.len;
	fx_keys(f, &t, &from, "jjjj");		/* the first row, then three down */
	cr_assert_str_eq(selected_comm(&t), "proc3");
	fx_keys(f, &t, &from, "r");		/* the other order: proc3 moves up */
	cr_assert_str_eq(selected_comm(&t), "proc3", "another sort");
	fx_keys(f, &t, &from, "r");

	/* The next frame: proc3 reads the most, it comes first. */
	f->rows[3].delta[PMEM_READ_BYTES] = 1 << 30;
	view_show_frame(&f->view, &f->frame);
	fx_redraw_onto(f, &t, &from);
	cr_assert_str_eq(selected_comm(&t), "proc3", "a new frame");
	/* Then it is gone: its place, the first, stays selected. */
	f->frame.nrows = 0;
	fx_rows(f, 6);
	memset(f->rows[3].delta, 0, sizeof(f->rows[3].delta));	/* nothing to show */
	view_show_frame(&f->view, &f->frame);
	fx_redraw_onto(f, &t, &from);
	cr_assert_str_eq(selected_comm(&t), "proc0");
	fx_keys(f, &t, &from, "jjjj");
	cr_assert_str_eq(selected_comm(&t), "proc5", "proc3 is not shown: four down is the last");
	/* Fewer rows than its place: the last one. */
	f->frame.nrows = 2;
	view_show_frame(&f->view, &f->frame);
	fx_redraw_onto(f, &t, &from);
	cr_assert_str_eq(selected_comm(&t), "proc1");
	f->frame.nrows = 0;
	fx_rows(f, 2);
	memset(f->rows[1].delta, 0, sizeof(f->rows[1].delta));
	view_show_frame(&f->view, &f->frame);
	fx_redraw_onto(f, &t, &from);
	cr_assert_str_eq(selected_comm(&t), "proc0", "the only row left");
	fx_free(f);
}

/* The filter matches names as shown, and the selection knows its row by
 * them: a UTF-8 name under UTF-8, its escapes outside. */
Test(top_view, the_filter_and_the_selection_go_by_the_names_shown)
{
	static const char name[] = "\u00fcnic\u00f6de\u2603";

	for (int utf8 = 0; utf8 <= 1; utf8++) {
		struct fx *f = fx_new();
		const char *filter = utf8 ? "/nic\r" : "/\\xbcnic\r";
		struct term t;
		size_t from;
		int y;

		fx_rows(f, 3);
		add_row(f, 600, name, strlen(name), "vda", 1, 1);
		fx_view(f, 24, 80, utf8, NULL);
		view_show_frame(&f->view, &f->frame);
		fx_screen(f, &t);
		from = f->cap.len;
		fx_keys(f, &t, &from, filter);
		y = term_find(&t, "COMM");
		cr_assert(strstr(term_line(&t, y + 1), "    600 "), "utf8 %d: %s", utf8,
			  term_line(&t, y + 1));
		cr_assert_str_empty(term_line(&t, y + 2), "one row matches: %s",
				    term_line(&t, y + 2));
		fx_keys(f, &t, &from, "j");
		cr_assert_eq(term_reversed_line(&t), y + 1);
		/* the filter cleared, the selection stays on its row */
		fx_keys(f, &t, &from, "\033");
		cr_assert(strstr(term_line(&t, term_reversed_line(&t)), "    600 "), "utf8 %d: %s",
			  utf8, term_line(&t, term_reversed_line(&t)));
		fx_free(f);
	}
}

/* ---- scrolling ---- */

#define NSCROLL 200

/* The process rows on the screen: their proc numbers in screen order (the
 * rows after the COMM heading, up to the position line), and the position
 * line's "rows A-B of N" (first, last, of; 0 without the line). */
struct shown_rows {
	unsigned int proc[TERM_ROWS], n;
	unsigned int first, last, of;
	int heading;
};

static void read_rows(const struct term *t, struct shown_rows *r)
{
	memset(r, 0, sizeof(*r));
	r->heading = term_find(t, "COMM");
	cr_assert_geq(r->heading, 0);
	for (unsigned int y = r->heading + 1; y < t->rows; y++) {
		const char *line = term_line(t, y);
		unsigned int pid, proc;

		if (sscanf(line, "rows %u-%u of %u", &r->first, &r->last, &r->of) == 3)
			break;
		if (!line[0]) {		/* all rows fit: nothing after them */
			for (unsigned int below = y + 1; below < t->rows; below++)
				cr_assert_str_empty(term_line(t, below));
			break;
		}
		cr_assert(sscanf(line, "%u", &pid) == 1 &&
			  sscanf(last_word(line), "proc%u", &proc) == 1,
			  "line %u is no row: '%s' (an empty line among the rows?)", y, line);
		cr_assert_eq(pid, 100 + proc);
		r->proc[r->n++] = proc;
	}
}

/* The shown rows are the position line's, each once, and what is selected
 * is among them. */
static void check_window(const struct term *t, const struct shown_rows *r, unsigned int of)
{
	int selected = term_reversed_line(t);

	cr_assert_eq(r->of, of, "position line: of %u, not %u", r->of, of);
	cr_assert_eq(r->last - r->first + 1, r->n, "rows %u-%u, but %u shown", r->first, r->last,
		     r->n);
	cr_assert_leq(r->last, of);
	cr_assert(selected < 0 || (selected > r->heading && selected <= r->heading + (int)r->n),
		  "the selection (line %d) is off the rows shown", selected);
}

/* The first arrow, then ↓ to the end: every one of 200 rows comes on
 * screen, the window moving a row at a time once the selection reaches its
 * bottom, and the last line says where it is. */
Test(top_view, every_row_of_200_is_reached_by_scrolling)
{
	struct fx *f = fx_new();
	bool seen[NSCROLL] = { false };
	unsigned int nseen = 0, page;
	struct shown_rows r;
	struct term t;
	size_t from;

	fx_rows(f, NSCROLL);
	fx_view(f, 24, 80, false, NULL);
	view_show_frame(&f->view, &f->frame);
	fx_screen(f, &t);
	from = f->cap.len;
	read_rows(&t, &r);
	check_window(&t, &r, NSCROLL);
	cr_assert_eq(r.first, 1);
	page = r.n;
	cr_assert_geq(page, 10, "a 24-line screen shows more rows than that");
	fx_keys(f, &t, &from, "\033[B");
	for (unsigned int press = 0; press < NSCROLL + 5; press++) {
		read_rows(&t, &r);
		check_window(&t, &r, NSCROLL);
		cr_assert_eq(r.n, page, "the page does not change while scrolling");
		cr_assert_geq(term_reversed_line(&t), 0, "press %u: no selection", press);
		for (unsigned int i = 0; i < r.n; i++)
			if (!seen[r.proc[i]]) {
				seen[r.proc[i]] = true;
				nseen++;
			}
		fx_keys(f, &t, &from, "j");
	}
	cr_assert_eq(nseen, NSCROLL, "only %u of %d rows reached", nseen, NSCROLL);
	cr_assert_eq(r.last, NSCROLL, "held down, the last row ends the screen");
	cr_assert_eq(term_reversed_line(&t), r.heading + (int)r.n, "the last row is selected");
	fx_free(f);
}

/* PgDn moves a page, End and Home to the ends, PgUp back a page. */
Test(top_view, page_keys_home_and_end_scroll_by_pages)
{
	struct fx *f = fx_new();
	bool seen[NSCROLL] = { false };
	unsigned int nseen = 0, page, presses = 0;
	struct shown_rows r;
	struct term t;
	size_t from;

	fx_rows(f, NSCROLL);
	fx_view(f, 24, 80, false, NULL);
	view_show_frame(&f->view, &f->frame);
	fx_screen(f, &t);
	from = f->cap.len;
	read_rows(&t, &r);
	page = r.n;
	for (;;) {
		check_window(&t, &r, NSCROLL);
		for (unsigned int i = 0; i < r.n; i++)
			if (!seen[r.proc[i]]) {
				seen[r.proc[i]] = true;
				nseen++;
			}
		if (nseen == NSCROLL || presses++ == NSCROLL)
			break;
		fx_keys(f, &t, &from, "\033[6~");
		read_rows(&t, &r);
	}
	cr_assert_eq(nseen, NSCROLL);
	cr_assert_leq(presses, NSCROLL / page + 1, "%u presses for %u rows a page", presses, page);
	fx_keys(f, &t, &from, "\033[H");
	read_rows(&t, &r);
	cr_assert_eq(r.first, 1, "Home");
	cr_assert_eq(term_reversed_line(&t), r.heading + 1);
	/* a page at a time, the selection keeping its line, as in htop */
	fx_keys(f, &t, &from, "\033[6~");
	read_rows(&t, &r);
	cr_assert_eq(r.first, 1 + page, "a page down");
	cr_assert_eq(term_reversed_line(&t), r.heading + 1);
	fx_keys(f, &t, &from, "j\033[6~");
	read_rows(&t, &r);
	cr_assert_eq(r.first, 1 + 2 * page, "another page down");
	cr_assert_eq(term_reversed_line(&t), r.heading + 2);
	fx_keys(f, &t, &from, "\033[F");
	read_rows(&t, &r);
	cr_assert_eq(r.last, NSCROLL, "End");
	cr_assert_eq(r.first, NSCROLL - page + 1);
	cr_assert_eq(term_reversed_line(&t), r.heading + (int)r.n);
	fx_keys(f, &t, &from, "\033[5~");
	read_rows(&t, &r);
	cr_assert_eq(r.first, NSCROLL - 2 * page + 1, "a page up from the end");
	cr_assert_eq(term_reversed_line(&t), r.heading + (int)r.n);
	fx_keys(f, &t, &from, "\033[5~\033[5~\033[5~\033[5~\033[5~\033[5~\033[5~\033[5~"
		"\033[5~\033[5~\033[5~\033[5~\033[5~\033[5~\033[5~\033[5~");
	read_rows(&t, &r);
	cr_assert_eq(r.first, 1, "held down: the top, no further");
	cr_assert_eq(term_reversed_line(&t), r.heading + 1);
	fx_free(f);
}

/* Scrolled to the end, then rows go away: the window moves up rather than
 * leave empty lines, the selection keeps its place within the rows; all
 * rows fitting again, the position line goes. */
Test(top_view, scrolling_stays_sane_when_rows_go_away)
{
	struct fx *f = fx_new();
	unsigned int selected_proc;
	struct shown_rows r;
	struct term t;
	size_t from;

	fx_rows(f, NSCROLL);
	fx_view(f, 24, 80, false, NULL);
	view_show_frame(&f->view, &f->frame);
	fx_screen(f, &t);
	from = f->cap.len;
	fx_keys(f, &t, &from, "\033[F");
	f->frame.nrows = 50;
	view_show_frame(&f->view, &f->frame);
	fx_redraw_onto(f, &t, &from);
	read_rows(&t, &r);
	check_window(&t, &r, 50);
	cr_assert_eq(r.last, 50);
	cr_assert_eq(term_reversed_line(&t), r.heading + (int)r.n, "the last row, as before");
	f->frame.nrows = 5;
	view_show_frame(&f->view, &f->frame);
	fx_redraw_onto(f, &t, &from);
	read_rows(&t, &r);
	cr_assert_eq(r.of, 0, "all rows fit: no position line");
	cr_assert_eq(r.n, 5);
	cr_assert_eq(term_reversed_line(&t), r.heading + 5);
	fx_keys(f, &t, &from, "\033[H");
	read_rows(&t, &r);
	selected_proc = r.proc[0];
	f->frame.nrows = NSCROLL;
	view_show_frame(&f->view, &f->frame);
	fx_redraw_onto(f, &t, &from);
	read_rows(&t, &r);
	check_window(&t, &r, NSCROLL);
	cr_assert_geq(term_reversed_line(&t), 0);
	cr_assert_eq(r.proc[term_reversed_line(&t) - r.heading - 1], selected_proc,
		     "rows come back: the selected row shows wherever it is now");
	fx_free(f);
}

/* A resize and a new sort keep the selected row in sight. */
Test(top_view, the_selection_stays_in_sight_on_resize_and_sort)
{
	struct fx *f = fx_new();
	struct shown_rows r;
	struct term t;
	unsigned int selected_proc;
	size_t from;

	fx_rows(f, NSCROLL);
	fx_view(f, 40, 80, false, NULL);
	view_show_frame(&f->view, &f->frame);
	fx_screen(f, &t);
	from = f->cap.len;
	fx_keys(f, &t, &from, "\033[6~\033[6~\033[6~j");
	read_rows(&t, &r);
	selected_proc = r.proc[term_reversed_line(&t) - r.heading - 1];

	fx_recapture(f);
	f->view.screen.rows = 16;
	top_redraw(&f->view);
	fx_screen(f, &t);
	read_rows(&t, &r);
	check_window(&t, &r, NSCROLL);
	cr_assert_geq(term_reversed_line(&t), 0, "smaller: the selection still shows");
	cr_assert_eq(r.proc[term_reversed_line(&t) - r.heading - 1], selected_proc);

	fx_recapture(f);
	f->view.screen.rows = 60;
	top_redraw(&f->view);
	fx_screen(f, &t);
	from = f->cap.len;
	read_rows(&t, &r);
	check_window(&t, &r, NSCROLL);
	cr_assert_eq(r.proc[term_reversed_line(&t) - r.heading - 1], selected_proc, "larger");

	for (const char *k = "r<<<"; *k; k++) {
		fx_keys(f, &t, &from, (char[2]){ *k, 0 });
		read_rows(&t, &r);
		check_window(&t, &r, NSCROLL);
		cr_assert_geq(term_reversed_line(&t), 0, "after %c: the selection is off screen", *k);
		cr_assert_eq(r.proc[term_reversed_line(&t) - r.heading - 1], selected_proc,
			     "after %c", *k);
	}
	fx_free(f);
}

/* The help on a screen too small for it: its first lines and which are
 * shown; ↓ (j) scrolls a line, PgDn a page, End to its last line, Home
 * back, ↑ (k) and PgUp up; any other key closes it, q without quitting. */
Test(top_view, the_help_scrolls_on_a_small_screen)
{
	static const struct {
		const char *keys;
		const char *position;	/* the last line */
		const char *first;	/* the first of the help's lines shown */
	} steps[] = {
		{ "h", "lines 1-5 of 17", "  < >       sort by the column to the le" },
		{ "\033[B", "lines 2-6 of 17", "  r        reverse the sort" },
		{ "j", "lines 3-7 of 17", "  a        accumulated: totals since sta" },
		{ "\033[6~", "lines 8-12 of 17", "  Esc      clear the filter" },
		{ "\033[6~", "lines 13-17 of 17", "  PgUp PgDn  a page up, down; Home End" },
		{ "j", "lines 13-17 of 17", "  PgUp PgDn  a page up, down; Home End" },
		{ "\033[H", "lines 1-5 of 17", "  < >       sort by the column to the le" },
		{ "\033[F", "lines 13-17 of 17", "  PgUp PgDn  a page up, down; Home End" },
		{ "\033[5~", "lines 8-12 of 17", "  Esc      clear the filter" },
		{ "k\033[A", "lines 6-10 of 17", "  o        only processes doing I/O, or" },
		{ "\033[5~\033[5~", "lines 1-5 of 17", "  < >       sort by the column to the le" },
	};
	struct fx *f = fx_new();
	struct term t;
	size_t from;

	fx_rows(f, 3);
	fx_view(f, 10, 40, false, NULL);
	view_show_frame(&f->view, &f->frame);
	fx_screen(f, &t);
	from = f->cap.len;
	for (size_t i = 0; i < sizeof(steps) / sizeof(steps[0]); i++) {
		fx_keys(f, &t, &from, steps[i].keys);
		term_dump(&t);
		cr_assert_str_eq(term_line(&t, 3), "Keys (k j scroll, any other key closes)");
		cr_assert_str_eq(term_line(&t, 4), steps[i].first, "step %zu", i);
		cr_assert_str_eq(term_line(&t, 9), steps[i].position, "step %zu", i);
	}
	fx_keys(f, &t, &from, "\033[F");
	cr_assert_str_eq(term_line(&t, 8), "  q        quit", "End shows the last line");
	cr_assert(top_state(&f->view)->help);
	cr_assert_not(top_state(&f->view)->selecting, "scrolling the help selects no row");

	/* another key closes it, and reopened it starts at its first line */
	fx_keys(f, &t, &from, "x");
	cr_assert_not(top_state(&f->view)->help);
	cr_assert_lt(term_find(&t, "Keys ("), 0);
	cr_assert_lt(term_find(&t, "lines "), 0);
	fx_keys(f, &t, &from, "h");
	cr_assert_str_eq(term_line(&t, 9), "lines 1-5 of 17");
	fx_keys(f, &t, &from, "q");
	cr_assert_not(top_state(&f->view)->help);
	cr_assert_not(top_state(&f->view)->quit, "q closing the help does not quit");

	/* where it all fits, no position line, and the keys scroll nothing */
	fx_recapture(f);
	f->view.screen.rows = 24;
	f->view.screen.cols = 80;
	top_feed_keys(&f->view, "h\033[6~", 4 + 1);
	top_redraw(&f->view);
	fx_screen(f, &t);
	cr_assert_str_eq(term_line(&t, 4), "  < >       sort by the column to the left, right");
	cr_assert_str_eq(term_line(&t, 20), "  q        quit");
	cr_assert_str_empty(term_line(&t, 21));
	cr_assert_lt(term_find(&t, "lines "), 0);
	fx_free(f);
}

/* The help, scrolled to either end, stays inside every screen, and its
 * position line says what the screen shows. */
Test(top_view, the_help_stays_inside_every_screen)
{
	for (unsigned int rows = 1; rows <= 24; rows++) {
		for (unsigned int cols = 1; cols <= 90; cols += 11) {
			for (int end = 0; end <= 1; end++) {
				struct fx *f = fx_new();
				unsigned int first, last, of;
				struct term t;

				fx_rows(f, 3);
				fx_view(f, rows, cols, true, NULL);
				view_show_frame(&f->view, &f->frame);
				top_feed_keys(&f->view, end ? "h\033[F" : "h", end ? 4 : 1);
				fx_recapture(f);
				top_redraw(&f->view);
				fx_screen(f, &t);
				if (cols >= 20 && rows > 5 && rows < 18) {
					cr_assert_eq(sscanf(term_line(&t, rows - 1), "lines %u-%u of %u",
							    &first, &last, &of), 3, "%ux%u: %s", rows,
						     cols, term_line(&t, rows - 1));
					cr_assert_eq(last - first + 1, rows - 5, "%ux%u", rows, cols);
					cr_assert_eq(end ? last : first, end ? of : 1, "%ux%u", rows,
						     cols);
				}
				fx_free(f);
			}
		}
	}
}

Test(top_view, enter_without_stacks_says_so_and_any_key_closes)
{
	struct fx *f = fx_new();
	struct term t;
	size_t from;

	fx_rows(f, 3);
	fx_view(f, 24, 80, false, NULL);
	view_show_frame(&f->view, &f->frame);
	fx_screen(f, &t);
	from = f->cap.len;
	fx_keys(f, &t, &from, "\r");
	cr_assert_geq(term_find(&t, "no stacks: run with --stacks"), 0);
	cr_assert_lt(term_find(&t, "COMM"), 0, "the overlay is drawn instead of the tables");
	fx_keys(f, &t, &from, "q");
	cr_assert_not(top_state(&f->view)->quit, "q closing the overlay does not quit");
	cr_assert_geq(term_find(&t, "COMM"), 0);
	cr_assert_str_eq(selected_comm(&t), "proc0", "Enter selected the first row");
	fx_free(f);
}

/* ---- a namer of made-up names, and stacks in a table of their own ---- */

static char *fake_kernel_name(void *ctx, uint64_t addr, char *buf, size_t size)
{
	snprintf(buf, size, "%s%" PRIx64, (const char *)ctx, addr);
	return buf;
}

static char *fake_user_name(void *ctx, const struct user_frame *frame, char *buf, size_t size,
			    const char **unknown)
{
	(void)ctx;
	*unknown = NULL;
	snprintf(buf, size, "user_%" PRIu32 "_%" PRIx64, frame->tgid, frame->addr);
	return buf;
}

struct fake_stacks {
	uint32_t table_buf[64 * 1024 / 4];
	struct res_table table;
	struct stack_namer namer;
	struct row_stack stack;
	struct row_stack *stacks[1];
};

/* row's one stack: nkernel kernel frames 0x1000.. (innermost first), three
 * user frames 0xa0..; kernel names start with prefix. */
static void fake_stack(struct fake_stacks *fs, struct proc_io *row, int nkernel,
		       const char *prefix)
{
	uint64_t kernel[STACK_MAX_FRAMES], user[3] = { 0xa0, 0xa1, 0xa2 };

	cr_assert_eq(res_table_init(&fs->table, fs->table_buf, sizeof(fs->table_buf), 64), RES_OK);
	for (int i = 0; i < nkernel; i++)
		kernel[i] = 0x1000 + i;
	memset(&fs->stack, 0, sizeof(fs->stack));
	fs->stack.key.who = row->key;
	fs->stack.kernel.state = fs->stack.user.state = STACK_KEPT;
	cr_assert_eq(res_intern_stack(&fs->table, kernel, nkernel, &fs->stack.kernel.key), RES_OK);
	cr_assert_eq(res_intern_stack(&fs->table, user, 3, &fs->stack.user.key), RES_OK);
	fs->stack.delta[STACK_BYTES + IO_READ] = 8192;
	fs->stack.delta[STACK_IOS + IO_READ] = 2;
	fs->stacks[0] = &fs->stack;
	row->stacks = fs->stacks;
	row->nstacks = 1;
	fs->namer = (struct stack_namer){
		.table = &fs->table, .kernel = fake_kernel_name, .user = fake_user_name,
		.ctx = (void *)prefix, .top = 1,
	};
}

Test(top_view, enter_shows_the_heaviest_stack_innermost_first)
{
	struct fx *f = fx_new();
	struct fake_stacks *fs = calloc(1, sizeof(*fs));
	struct proc_io *row;
	struct term t;
	size_t from;
	int y;

	cr_assert_not_null(fs);
	row = add_row(f, 42, "reader", 6, "zram0", 1 << 20, 0);
	add_row(f, 43, "writer", 6, "vda", 0, 4096);
	fake_stack(fs, row, 4, "kfunc_");
	fx_view(f, 24, 80, false, NULL);
	f->view.stacks = &fs->namer;
	view_show_frame(&f->view, &f->frame);
	fx_screen(f, &t);
	from = f->cap.len;
	fx_keys(f, &t, &from, "\n");
	term_dump(&t);
	y = term_find(&t, "pid 42 reader on zram0:");
	cr_assert_geq(y, 0);
	cr_assert(strstr(term_line(&t, y), "4.0 KiB/s, 1.0 ios/s, 0 B/s dirtied"), "%s",
		  term_line(&t, y));
	cr_assert_str_eq(term_line(&t, y + 1), "kernel:");
	for (int i = 0; i < 4; i++) {
		char name[32];

		snprintf(name, sizeof(name), "  kfunc_%x", 0x1000 + i);
		cr_assert_str_eq(term_line(&t, y + 2 + i), name);
	}
	cr_assert_str_eq(term_line(&t, y + 6), "user:");
	cr_assert_str_eq(term_line(&t, y + 7), "  user_42_a0");
	cr_assert_str_eq(term_line(&t, y + 9), "  user_42_a2");
	cr_assert_str_empty(term_line(&t, y + 10));

	fx_keys(f, &t, &from, "x");
	cr_assert_geq(term_find(&t, "COMM"), 0, "any key closes");
	fx_keys(f, &t, &from, "j\r");
	cr_assert_geq(term_find(&t, "no stack recorded for this row yet"), 0);
	cr_assert_lt(term_find(&t, "kernel:"), 0);
	free(fs);
	fx_free(f);
}

Test(top_view, a_stack_too_long_is_cut_to_the_screen)
{
	struct fx *f = fx_new();
	struct fake_stacks *fs = calloc(1, sizeof(*fs));
	char prefix[200];
	struct proc_io *row;
	struct term t;

	cr_assert_not_null(fs);
	memset(prefix, 'n', sizeof(prefix) - 1);
	prefix[sizeof(prefix) - 1] = '\0';
	row = add_row(f, 42, "reader", 6, "zram0", 1 << 20, 0);
	fake_stack(fs, row, 30, prefix);
	fx_view(f, 10, 40, false, NULL);
	f->view.stacks = &fs->namer;
	view_show_frame(&f->view, &f->frame);
	top_feed_keys(&f->view, "\r", 1);
	fx_recapture(f);
	top_redraw(&f->view);
	fx_screen(f, &t);	/* fails on a character past the edge or a scroll */
	term_dump(&t);
	cr_assert(strstr(term_line(&t, 4), "pid 42 reader on zram0"), "%s", term_line(&t, 4));
	cr_assert_str_eq(term_line(&t, 5), "kernel:");
	cr_assert_eq(strlen(term_line(&t, 6)), 40, "%s", term_line(&t, 6));
	cr_assert_eq(strncmp(term_line(&t, 6), "  nnn", 5), 0);
	/* 1 + 30 kernel lines, 1 + 3 user lines; 4 shown */
	cr_assert_str_eq(term_line(&t, 9), "+31 more");
	free(fs);
	fx_free(f);
}

/* A line is cut at the screen's width by the columns its characters take:
 * a wide one that would straddle the edge is left out.  Frame names are a
 * program's own bytes: shown in UTF-8, their controls escaped. */
Test(top_view, a_line_is_cut_by_columns_and_frame_names_by_utf8)
{
	static const char *const prefixes[] = {
		"\u6570\u636e\u5e93\u6570\u636e\u5e93\u6570\u636e\u5e93\u6570\u636e\u5e93"
		"\u6570\u636e\u5e93\u6570\u636e\u5e93\u6570\u636e",		/* 20, 40 columns */
		"a\u6570\u636e\u5e93\u6570\u636e\u5e93\u6570\u636e\u5e93\u6570\u636e\u5e93"
		"\u6570\u636e\u5e93\u6570\u636e\u5e93\u6570\u636e",		/* 41 */
		"f\x1b[2J\xc2\x9b\u00fc_",
	};
	static const char *const expected[] = {
		/* 2 + 19 wide characters: exactly 40 columns */
		"  \u6570\u636e\u5e93\u6570\u636e\u5e93\u6570\u636e\u5e93\u6570\u636e\u5e93"
		"\u6570\u636e\u5e93\u6570\u636e\u5e93\u6570",
		/* 3 + 18: the 19th would take columns 40 and 41 */
		"  a\u6570\u636e\u5e93\u6570\u636e\u5e93\u6570\u636e\u5e93\u6570\u636e\u5e93"
		"\u6570\u636e\u5e93\u6570\u636e\u5e93",
		"  f\\x1b[2J\\xc2\\x9b\u00fc_1000",
	};

	for (size_t i = 0; i < 3; i++) {
		struct fx *f = fx_new();
		struct fake_stacks *fs = calloc(1, sizeof(*fs));
		struct proc_io *row;
		struct term t;
		int y;

		cr_assert_not_null(fs);
		row = add_row(f, 42, "reader", 6, "zram0", 1 << 20, 0);
		fake_stack(fs, row, 2, prefixes[i]);
		fx_view(f, 24, 40, true, NULL);
		f->view.stacks = &fs->namer;
		view_show_frame(&f->view, &f->frame);
		top_feed_keys(&f->view, "\r", 1);
		fx_recapture(f);
		top_redraw(&f->view);
		fx_screen(f, &t);	/* fails on a character past the edge */
		term_dump(&t);
		y = term_find(&t, "kernel:");
		cr_assert_geq(y, 0);
		cr_assert_str_eq(term_line(&t, y + 1), expected[i]);
		free(fs);
		fx_free(f);
	}
}

/* Paused, the frame drawn outlives the tally's next step: its memory may go
 * (ASan) and every key still redraws it, stacks and all. */
Test(top_view, a_paused_frame_outlives_its_memory)
{
	struct fx *f = fx_new();
	struct fake_stacks *fs = calloc(1, sizeof(*fs));
	struct term t;
	size_t from;

	cr_assert_not_null(fs);
	fx_rows(f, 3);		/* proc0 first, in both modes */
	fake_stack(fs, &f->rows[0], 4, "kfunc_");
	fx_view(f, 24, 120, false, NULL);
	f->view.stacks = &fs->namer;
	view_show_frame(&f->view, &f->frame);
	fx_screen(f, &t);
	from = f->cap.len;
	fx_keys(f, &t, &from, "p");
	/* The tally's next step: the frame's memory goes. */
	memset(f->rows, 0xa5, sizeof(f->rows));
	memset(&fs->stack, 0xa5, sizeof(fs->stack));
	pmem_free(&f->pm);

	fx_keys(f, &t, &from, "a");
	cr_assert(strstr(term_line(&t, 1), "PAUSED"), "%s", term_line(&t, 1));
	cr_assert(strstr(term_line(&t, term_find(&t, "proc0")), "40.0 KiB"), "totals: %s",
		  term_line(&t, term_find(&t, "proc0")));
	cr_assert_geq(term_find(&t, "zram0"), 0);
	fx_keys(f, &t, &from, "\r");
	cr_assert_geq(term_find(&t, "pid 100 proc0 on vda:"), 0);
	cr_assert_geq(term_find(&t, "  kfunc_1003"), 0);
	free(fs);
	fx_free(f);
}

/* A run of COUNT intervals leaves its last frame on the normal screen: plain
 * lines, no escape codes, the help closed, then an empty line. */
Test(top_view, the_last_frame_stays_as_lines)
{
	struct fx *f = fx_new();
	char *text;

	fx_rows(f, 3);
	fx_view(f, 24, 80, false, NULL);
	view_show_frame(&f->view, &f->frame);
	cr_assert(top_feed_keys(&f->view, "h", 1));
	fx_recapture(f);
	top_leave_frame(&f->view);
	fflush(f->cap.f);
	text = strndup(f->cap.buf, f->cap.len);
	cr_assert_not_null(text);
	cr_assert_null(strchr(text, '\033'), "escape codes: %s", text);
	cr_assert_null(strchr(text, '\r'), "carriage returns: %s", text);
	cr_assert(strstr(text, "\nDEVICE "), "%s", text);
	cr_assert(strstr(text, "COMM"), "%s", text);
	cr_assert(strstr(text, "proc0"), "%s", text);
	cr_assert_null(strstr(text, "any other key closes"), "the help: %s", text);
	cr_assert_eq(strcmp(text + strlen(text) - 2, "\n\n"), 0, "%s", text);
	free(text);
	fx_free(f);
}

/* ---- issue 33: USER, PRIO, COMMAND and the idle processes ---- */

/* A row's owner as the kernel noted it, its user's name and its command line
 * (the row's own string: static here). */
static void own_row(struct fx *f, struct proc_io *row, uint32_t uid, const char *user,
		    uint16_t ioprio, int nice, char *cmdline)
{
	row->owner = (struct row_owner){ .uid = uid, .ioprio = ioprio, .nice = (int8_t)nice,
					 .flags = ROW_OWNER_KNOWN };
	cr_assert_eq(res_intern_str(&f->names, user, &row->user_name), RES_OK);
	row->cmdline = cmdline;
}

Test(top_view, user_prio_and_c_for_the_whole_command_line)
{
	static char dd_line[] = "dd if=/dev/zero of=/mnt/x bs=1M count=10 oflag=direct";
	static char idle_line[] = "ionice -c3 tar cf -";
	struct fx *f = fx_new();
	struct term t;
	size_t from;
	int y;

	own_row(f, add_row(f, 4242, "dd", 2, "vda", 0, 1 << 20), 0, "root", 0, 0, dd_line);
	own_row(f, add_row(f, 4243, "tar", 3, "vda", 4096, 0), 65534, "nobody", 3 << 13, 0,
		idle_line);
	own_row(f, add_row(f, 4244, "nice", 4, "vda", 4096, 0), 1000, "1000", 0, 10, NULL);
	fx_view(f, 24, 80, true, NULL);
	view_show_frame(&f->view, &f->frame);
	fx_screen(f, &t);
	from = f->cap.len;
	term_dump(&t);
	y = term_row_of(&t, 4242);
	cr_assert_eq(strncmp(term_line(&t, y), "   4242 be/4 root     vda ", 26), 0, "%s",
		     term_line(&t, y));
	cr_assert(ends_with(term_line(&t, y), " dd"), "the comm at start: %s", term_line(&t, y));
	y = term_row_of(&t, 4243);
	cr_assert_eq(strncmp(term_line(&t, y), "   4243 idle nobody   vda ", 26), 0, "%s",
		     term_line(&t, y));
	y = term_row_of(&t, 4244);
	cr_assert_eq(strncmp(term_line(&t, y), "   4244 be/6 1000     vda ", 26), 0,
		     "nice 10 gives be/6, a uid of no name its number: %s", term_line(&t, y));

	/* c: the whole command line, cut to the rest of the line; the comm
	 * where a row has none */
	fx_keys(f, &t, &from, "c");
	y = term_row_of(&t, 4242);
	cr_assert(ends_with(term_line(&t, y), " dd if=/dev/zero of=/mnt/x b"), "%s", term_line(&t, y));
	cr_assert(ends_with(term_line(&t, term_row_of(&t, 4243)), " ionice -c3 tar cf -"));
	cr_assert(ends_with(term_line(&t, term_row_of(&t, 4244)), " nice"));
	/* / filters by COMMAND as shown: here the command line */
	fx_keys(f, &t, &from, "/-c3\r");
	cr_assert_geq(term_row_of(&t, 4243), 0);
	cr_assert_lt(term_row_of(&t, 4242), 0, "filtered out");
	cr_assert(strstr(term_line(&t, 1), "filter -c3"), "%s", term_line(&t, 1));
	/* c again: the comm, which "-c3" is not in */
	fx_keys(f, &t, &from, "c");
	cr_assert_lt(term_row_of(&t, 4243), 0);
	fx_keys(f, &t, &from, "\033c");
	cr_assert(ends_with(term_line(&t, term_row_of(&t, 4242)), " dd if=/dev/zero of=/mnt/x b"));
	fx_free(f);
}

Test(top_view, o_shows_the_idle_processes_under_the_filters)
{
	static char sleeper_line[] = "sleep 1000";
	struct fx *f = fx_new();
	struct proc_io idle[2];
	struct proc_io *idle_ptrs[2] = { &idle[0], &idle[1] };
	struct term t;
	size_t from;
	int y;

	fx_rows(f, 2);
	memset(idle, 0, sizeof(idle));
	for (int i = 0; i < 2; i++) {
		idle[i].idle = true;
		idle[i].key.tgid = 900 + i;
		cr_assert_eq(res_intern_str(&f->names, i ? "kthreadd" : "sleep", &idle[i].comm_name),
			     RES_OK);
		cr_assert_eq(res_intern_str(&f->names, "-", &idle[i].device_name), RES_OK);
	}
	own_row(f, &idle[0], 1000, "alice", 0, 0, sleeper_line);
	own_row(f, &idle[1], 0, "root", 0, -20, NULL);
	f->frame.idle_rows = idle_ptrs;
	f->frame.nidle_rows = 2;
	fx_view(f, 24, 80, true, NULL);
	view_show_frame(&f->view, &f->frame);
	fx_screen(f, &t);
	from = f->cap.len;
	cr_assert_lt(term_row_of(&t, 900), 0, "o on (iotop's --only): no idle process");
	fx_keys(f, &t, &from, "o");
	term_dump(&t);
	cr_assert(strstr(term_line(&t, 1), "all processes"), "%s", term_line(&t, 1));
	y = term_row_of(&t, 900);
	cr_assert_geq(y, 0, "o off: the idle processes too");
	cr_assert_eq(strncmp(term_line(&t, y), "    900 be/4 alice    -   ", 26), 0, "%s",
		     term_line(&t, y));
	cr_assert(ends_with(term_line(&t, y), "0 B sleep"), "%s", term_line(&t, y));
	cr_assert_eq(strncmp(term_line(&t, term_row_of(&t, 901)), "    901 be/0 root ", 18), 0,
		     "nice -20 gives be/0");
	cr_assert_gt(term_row_of(&t, 900), term_row_of(&t, 101), "no I/O: after the busy rows");
	fx_keys(f, &t, &from, "/sle\r");
	cr_assert_geq(term_row_of(&t, 900), 0, "the filter holds for them too");
	cr_assert_lt(term_row_of(&t, 901), 0);
	cr_assert_lt(term_row_of(&t, 100), 0);
	fx_keys(f, &t, &from, "\033d");		/* one disk: an idle process is on none */
	cr_assert_lt(term_row_of(&t, 900), 0);
	fx_keys(f, &t, &from, "ddo");		/* all disks again, then o on */
	cr_assert_lt(term_row_of(&t, 900), 0);
	cr_assert_null(strstr(term_line(&t, 1), "all processes"), "%s", term_line(&t, 1));
	fx_free(f);
}

/* issue 48: after o the idle processes sit at the bottom under every sort
 * key and in both directions, even where their pid, name or disk ("-")
 * would sort first. */
Test(top_view, o_puts_the_idle_processes_last_under_every_sort)
{
	struct proc_io idle[2];
	struct proc_io *idle_ptrs[2] = { &idle[0], &idle[1] };

	for (int key = 0; key < SORT_NR_KEYS; key++) {
		for (int reverse = 0; reverse <= 1; reverse++) {
			struct top_settings settings = { .interval_s = 2, .sort = key,
							 .per_process_latency = true };
			struct fx *f = fx_new();
			struct term t;
			size_t from;
			int last_busy;

			fx_rows(f, 2);
			memset(idle, 0, sizeof(idle));
			for (int i = 0; i < 2; i++) {
				idle[i].idle = true;
				idle[i].key.tgid = 5 + i;
				cr_assert_eq(res_intern_str(&f->names, i ? "zzz" : "aaa",
							    &idle[i].comm_name), RES_OK);
				cr_assert_eq(res_intern_str(&f->names, "-", &idle[i].device_name),
					     RES_OK);
			}
			f->frame.idle_rows = idle_ptrs;
			f->frame.nidle_rows = 2;
			fx_view(f, 24, 200, false, &settings);
			view_show_frame(&f->view, &f->frame);
			fx_screen(f, &t);
			from = f->cap.len;
			fx_keys(f, &t, &from, reverse ? "or" : "o");
			last_busy = term_row_of(&t, 100) > term_row_of(&t, 101) ?
				    term_row_of(&t, 100) : term_row_of(&t, 101);
			cr_assert_geq(term_row_of(&t, 100), 0, "sort %s", sort_key_name(key));
			cr_assert_geq(term_row_of(&t, 101), 0, "sort %s", sort_key_name(key));
			cr_assert_gt(term_row_of(&t, 5), last_busy, "sort %s%s: idle row above a "
				     "busy one", sort_key_name(key), reverse ? " reversed" : "");
			cr_assert_gt(term_row_of(&t, 6), last_busy, "sort %s%s: idle row above a "
				     "busy one", sort_key_name(key), reverse ? " reversed" : "");
			fx_free(f);
		}
	}
}

/* issue 48: at 40x10 sorted by bytes, the rates the sort sums stay (both:
 * a read column never without its write twin), not PID and COMMAND alone. */
Test(top_view, the_sort_column_stays_at_40_columns)
{
	static const struct {
		enum sort_key key;
		const char *column, *twin;
	} cases[] = {
		{ SORT_BYTES, "READ/s", "WRITE/s" }, { SORT_READ, "READ/s", "WRITE/s" },
		{ SORT_IOS, "R_IOPS", "W_IOPS" }, { SORT_DEVICE, "DEVICE", "DEVICE" },
		{ SORT_DIRTY, "DIRTY/s", "DIRTY/s" }, { SORT_ERRORS, "ERR", "ERR" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct top_settings settings = { .interval_s = 2, .sort = cases[i].key };
		struct fx *f = fx_new();
		struct term t;
		int y;

		fx_rows(f, 3);
		fx_view(f, 10, 40, false, &settings);
		view_show_frame(&f->view, &f->frame);
		fx_screen(f, &t);
		y = term_find(&t, "COMMAND");
		cr_assert_geq(y, 0, "sort %s: no heading", sort_key_name(cases[i].key));
		cr_assert(strstr(term_line(&t, y), cases[i].column) &&
			  strstr(term_line(&t, y), cases[i].twin), "sort %s: %s",
			  sort_key_name(cases[i].key), term_line(&t, y));
		fx_free(f);
	}
}

/* issue 48: a process that only dirtied page cache is listed where DIRTY/s
 * shows it; at 80 columns, without DIRTY/s, it would read `0 B 0 B` with
 * no reason shown, and is left out. */
Test(top_view, a_row_of_dirtied_bytes_alone_needs_dirty_on_screen)
{
	static const struct {
		unsigned int cols;
		enum sort_key sort;
		bool listed;
	} cases[] = {
		{ 80, SORT_BYTES, false }, { 200, SORT_BYTES, true }, { 80, SORT_DIRTY, true },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct top_settings settings = { .interval_s = 2, .sort = cases[i].sort };
		struct fx *f = fx_new();
		struct proc_io *row;
		struct term t;

		fx_rows(f, 2);
		row = add_row(f, 700, "dirtier", 7, "vda", 0, 0);
		row->delta[PMEM_DIRTIED_BYTES] = 1 << 20;
		row->total[PMEM_DIRTIED_BYTES] = 10 << 20;
		fx_view(f, 24, cases[i].cols, false, &settings);
		view_show_frame(&f->view, &f->frame);
		fx_screen(f, &t);
		term_dump(&t);
		cr_assert_eq(term_row_of(&t, 700) >= 0, cases[i].listed, "%u columns, sort %s",
			     cases[i].cols, sort_key_name(cases[i].sort));
		cr_assert_geq(term_row_of(&t, 100), 0, "the rows with I/O stay");
		fx_free(f);
	}
}

/* issue 35: `f` lists the frame's files in place of the processes, the
 * selected process's only when one is selected, the most bytes first. */
Test(top_view, f_lists_the_files)
{
	static struct file_row files[3];
	struct fx *f = fx_new();
	struct term t;
	size_t from;
	res_key dd, cat, zram;

	cr_assert_eq(res_intern_str(&f->names, "dd", &dd), RES_OK);
	cr_assert_eq(res_intern_str(&f->names, "cat", &cat), RES_OK);
	cr_assert_eq(res_intern_str(&f->names, "zram0", &zram), RES_OK);
	files[0] = (struct file_row){ .tgid = 7, .comm_name = dd, .device_name = zram,
				      .path = "/mnt/x/a", .nfiles = 1, .bytes = { 0, 4096 } };
	files[1] = (struct file_row){ .tgid = 7, .comm_name = dd, .device_name = zram,
				      .path = "/mnt/x/u", .unlinked = true, .nfiles = 1,
				      .bytes = { 0, 8192 } };
	files[2] = (struct file_row){ .tgid = 9, .comm_name = cat, .device_name = zram,
				      .path = "[metadata]", .bytes = { 2048, 0 } };
	fx_rows(f, 3);
	f->frame.files_on = true;
	f->frame.files = files;
	f->frame.nfiles = 3;
	fx_view(f, 24, 100, false, NULL);
	view_show_frame(&f->view, &f->frame);
	fx_screen(f, &t);
	from = f->cap.len;
	cr_assert_lt(term_find(&t, "/mnt/x/a"), 0, "not before f");
	fx_keys(f, &t, &from, "f");
	cr_assert(top_state(&f->view)->files);
	cr_assert_geq(term_find(&t, "READ/s"), 0);
	/* the most bytes first */
	cr_assert_geq(term_find(&t, "/mnt/x/u (deleted)"), 0);
	cr_assert_geq(term_find(&t, "[metadata]"), 0);
	cr_assert_lt(term_find(&t, "/mnt/x/u (deleted)"), term_find(&t, "/mnt/x/a"));
	cr_assert_lt(term_find(&t, "/mnt/x/a"), term_find(&t, "[metadata]"));
	fx_keys(f, &t, &from, "f");
	cr_assert_not(top_state(&f->view)->files);
	cr_assert_lt(term_find(&t, "/mnt/x/a"), 0, "f again: the processes");
	fx_free(f);
}

/* issue 36: a replay's header line says the frame's date and time, the
 * recorded run's host and the filter it was made with, escaped as names
 * are, and the next line the record's interval; a live run's says none
 * of them. */
Test(top_view, a_replay_names_the_record_in_its_header)
{
	struct top_settings replay = { .interval_s = 2, .sort = SORT_BYTES, .replay = true };
	struct fx *f = fx_new();
	struct term t;

	fx_rows(f, 2);
	fx_view(f, 24, 160, false, &replay);
	snprintf(f->view.host, sizeof(f->view.host), "db1");
	snprintf(f->view.record_filter, sizeof(f->view.record_filter), "-D zram0 -c \x1b[2Jx");
	f->view.record_interval_s = 10;	/* the record's, not INTERVAL's */
	view_show_frame(&f->view, &f->frame);
	fx_screen(f, &t);
	term_dump(&t);
	cr_assert(strstr(term_line(&t, 1), "every 10s"), "%s", term_line(&t, 1));
	{
		/* the date and the whole time of the frame */
		unsigned int y, mo, d, h, mi, sec;
		char after;

		cr_assert_eq(sscanf(term_line(&t, 0), "diskio %4u-%2u-%2u %2u:%2u:%2u%c", &y, &mo, &d,
				    &h, &mi, &sec, &after), 7, "%s", term_line(&t, 0));
		cr_assert_eq(after, ' ');
	}
	cr_assert(strstr(term_line(&t, 0), " host db1 "), "%s", term_line(&t, 0));
	cr_assert(strstr(term_line(&t, 0), " record -D zram0 -c \\x1b[2Jx "), "%s",
		  term_line(&t, 0));
	cr_assert(strstr(term_line(&t, 0), lost_all_ones()), "%s", term_line(&t, 0));
	/* no filter: all was recorded */
	f->view.record_filter[0] = '\0';
	fx_recapture(f);
	top_redraw(&f->view);
	fx_screen(f, &t);
	cr_assert(strstr(term_line(&t, 0), " record all "), "%s", term_line(&t, 0));
	fx_free(f);

	f = fx_new();
	fx_rows(f, 2);
	fx_view(f, 24, 160, false, NULL);
	snprintf(f->view.host, sizeof(f->view.host), "db1");
	view_show_frame(&f->view, &f->frame);
	fx_screen(f, &t);
	cr_assert_null(strstr(term_line(&t, 0), "host"), "%s", term_line(&t, 0));
	fx_free(f);
}

/* issue 43: the frame after a gap in the record says so in the header
 * line, from and to in the local time the header shows; the next frame,
 * with no gap before it, does not. */
Test(top_view, a_replay_says_the_gap_before_the_frame)
{
	struct top_settings replay = { .interval_s = 2, .sort = SORT_BYTES, .replay = true };
	struct fx *f = fx_new();
	time_t from_s = 1795572000, to_s = 1795572090;
	char want[96], from[32], to[32];
	struct term t;
	struct tm tm;

	fx_rows(f, 2);
	fx_view(f, 24, 200, false, &replay);
	f->view.record_gap_from_ns = (uint64_t)from_s * 1000000000ULL + 250000000;
	f->view.record_gap_to_ns = (uint64_t)to_s * 1000000000ULL;
	view_show_frame(&f->view, &f->frame);
	fx_screen(f, &t);
	localtime_r(&from_s, &tm);
	strftime(from, sizeof(from), "%Y-%m-%d %H:%M:%S", &tm);
	localtime_r(&to_s, &tm);
	strftime(to, sizeof(to), "%Y-%m-%d %H:%M:%S", &tm);
	snprintf(want, sizeof(want), " gap %s to %s ", from, to);
	cr_assert(strstr(term_line(&t, 0), want), "%s", term_line(&t, 0));
	f->view.record_gap_to_ns = 0;
	fx_recapture(f);
	top_redraw(&f->view);
	fx_screen(f, &t);
	cr_assert_null(strstr(term_line(&t, 0), " gap "), "%s", term_line(&t, 0));
	fx_free(f);
}
