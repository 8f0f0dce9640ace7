// SPDX-License-Identifier: GPL-2.0
/*
 * The top view (top.h).  It draws from the last frame it was shown, kept as
 * it came: the tally keeps what a frame points to until its next step
 * (frame.h), so a key, a resize or `a` redraws between intervals from the
 * frame itself.  Only what the tally does not keep is the view's: the
 * run's losses as of the frame, its crash line (the tracker is live), and
 * while `p` pauses, a kept copy of the frame drawn (frame_keep()).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "array.h"
#include "cmdline.h"
#include "format.h"
#include "ioprio.h"
#include "top.h"
#include "top_files.h"
#include "top_layout.h"
#include "top_help.h"
#include "top_lines.h"
#include "users.h"

/* Names as shown (printable_name(): a byte may take 4): a row's, a comm or
 * a kernel worker's with its work ("kworker/u8:1-flush-254:0", tally.c's
 * worker_row_name(), at most a comm and 64 bytes), and a disk's. */
#define ROW_NAME_SIZE	PRINTABLE_SIZE(TASK_COMM_LEN + 64)
#define DEVICE_NAME_SIZE TOP_DEVICE_SIZE
/* issue 33: COMMAND, a name or a whole command line as shown; USER */
#define COMMAND_SIZE	PRINTABLE_SIZE(CMDLINE_SIZE)
#define USER_SIZE	PRINTABLE_SIZE(USER_NAME_SIZE)

/* The selected process row, known by its key so that it stays selected
 * when the rows move (a new frame, another sort), and by its place for
 * when it is gone. */
struct top_selection {
	size_t index;				/* in the shown order */
	bool known;				/* a row was selected: the key below */
	uint32_t pid;
	char comm[ROW_NAME_SIZE];
	char device[DEVICE_NAME_SIZE];
	char cgroup[LINE_SIZE];			/* --by cgroup rows */
};

/* The lines of the stack overlay's frames, named when it is drawn: two
 * spaces, then a name as shown. */
#define STACK_LINES		(2 * (STACK_MAX_FRAMES + 1))
#define STACK_LINE_SIZE		(2 + PRINTABLE_SIZE(STACK_NAME_MAX))

struct top {
	struct top_settings settings;
	struct top_state state;
	struct top_selection selection;
	size_t first_row;			/* the process table scrolled to it */
	size_t first_help_line;			/* the help scrolled to it */
	/* The frame drawn: the last one shown, or while paused the one drawn
	 * when `p` was pressed, kept in paused (frozen) from the tally's next
	 * steps.  Its rows and devices are drawn under printable names. */
	struct frame frame;
	bool taken;				/* a frame came: no "sampling..." */
	uint64_t frame_lost_run[LOST_NR_CAUSES];	/* the run's, as of the frame */
	char crash_line[256];			/* format_crash_line(); "": none */
	struct kept_frame paused;
	bool frozen;				/* frame points into paused */
	uint64_t lost_run[LOST_NR_CAUSES];	/* since start */
	uint64_t run_total[PMEM_NR_COUNTERS];	/* all devices, as of the last frame */
	/* DIRTY/s on screen in the last drawing: without it a row that only
	 * dirtied page cache would show nothing but zeros (issue 48) */
	bool dirty_shown;
	/* scratch of a drawing */
	const struct proc_io **order;
	size_t order_capacity;
	const struct pmem_device **devices_shown;
	size_t devices_shown_capacity;
	char (*device_names)[DEVICE_NAME_SIZE];
	size_t device_names_capacity;
	const char **device_name_ptrs;
	size_t device_name_ptrs_capacity;
	char (*stack_lines)[STACK_LINE_SIZE];	/* STACK_LINES of them, on first use */
};

/* ---- what the frame shows, as the screen shows it ---- */

/* A name of the frame's table as the terminal can show it (a process names
 * itself), cut to size. */
static const char *frame_name(const struct top *t, res_key key, char *buf, size_t size)
{
	uint32_t len = 0;
	const char *name = res_name(t->frame.names, key, &len);

	return printable_name(buf, size, name, len, t->settings.utf8);
}

/* A cgroup's row has no pid and no comm. */
static uint32_t row_pid(const struct top *t, const struct proc_io *row)
{
	return t->frame.by_cgroup ? 0 : row->key.tgid;
}

static const char *row_comm(const struct top *t, const struct proc_io *row,
			    char buf[ROW_NAME_SIZE])
{
	buf[0] = '\0';
	return t->frame.by_cgroup ? buf : frame_name(t, row->comm_name, buf, ROW_NAME_SIZE);
}

/* issue 33: what COMMAND shows: the comm, or after c the whole command
 * line (the comm where the row has none). */
static const char *row_command(const struct top *t, const struct proc_io *row,
			       char buf[COMMAND_SIZE])
{
	if (t->state.command_line && row->cmdline && !t->frame.by_cgroup)
		return printable_name(buf, COMMAND_SIZE, row->cmdline, strlen(row->cmdline),
				      t->settings.utf8);
	return row_comm(t, row, buf);
}

/* issue 33: USER, "-" for a row of no process. */
static const char *row_user(const struct top *t, const struct proc_io *row,
			    char buf[USER_SIZE])
{
	if (!row->user_name)
		return "-";
	return frame_name(t, row->user_name, buf, USER_SIZE);
}

static const char *row_device(const struct top *t, const struct proc_io *row,
			      char buf[DEVICE_NAME_SIZE])
{
	return frame_name(t, row->device_name, buf, DEVICE_NAME_SIZE);
}

/* The row's cgroup path; "" without cgroup2. */
static const char *row_cgroup(const struct top *t, const struct proc_io *row,
			      char buf[LINE_SIZE])
{
	buf[0] = '\0';
	return row->cgroup_name ? frame_name(t, row->cgroup_name, buf, LINE_SIZE) : buf;
}

/* d chooses among devices by these names, as shown. */
static const char *device_name(const struct top *t, const struct pmem_device *dev,
			       char buf[DEVICE_NAME_SIZE])
{
	return printable_name(buf, DEVICE_NAME_SIZE, dev->name, strlen(dev->name),
			      t->settings.utf8);
}

/* The device d chose, else all of them. */
static const struct pmem_device *chosen_device(const struct top *t)
{
	const struct pmem_metrics *devices = t->frame.devices;
	char name[DEVICE_NAME_SIZE];

	for (size_t i = 0; t->state.device[0] && i < devices->count; i++)
		if (!strcmp(device_name(t, &devices->devices[i], name), t->state.device))
			return &devices->devices[i];
	return &devices->aggregate;
}

/* All operations' completions of a device, for its p99. */
static bool device_p99_us(const struct pmem_device *dev, bool cumulative, double *us)
{
	struct latency_hist sum = { { 0 } }, op;

	for (unsigned int io = 0; io < IO_NR_CLASSES; io++) {
		pmem_latency_hist(dev, io, cumulative, &op);
		for (unsigned int k = 0; k < LATENCY_SLOTS; k++)
			sum.slots[k] += op.slots[k];
	}
	return latency_percentile_us(&sum, 0.99, us);
}

/* ---- frames coming ---- */

/* While paused, frames only add to the run's counts. */
static void top_begin(struct view *v, const struct frame *f)
{
	struct top *t = v->top;

	for (int i = 0; i < LOST_NR_CAUSES; i++)
		t->lost_run[i] += f->lost[i];
	pmem_values(&f->devices->aggregate, true, t->run_total);
}

static void draw(struct view *v);

/* The frame as it came (the tally keeps what it points to), and what of it
 * the tally does not keep.  Paused, the screen stays: the frame drawn was
 * kept when `p` was pressed; without the memory to keep it, the new frame
 * is taken, unseen until a key redraws. */
static void top_interval_end(struct view *v, const struct frame *f)
{
	struct top *t = v->top;

	if (t->state.paused && t->frozen)
		return;
	t->frame = *f;
	t->frozen = false;
	t->taken = true;
	memcpy(t->frame_lost_run, t->lost_run, sizeof(t->frame_lost_run));
	t->crash_line[0] = '\0';
	if (f->crash)
		format_crash_line(t->crash_line, sizeof(t->crash_line), f->crash, t->settings.utf8);
	if (!t->state.paused)
		draw(v);
}

/* `p`: the screen stays as it is: the frame drawn is kept from the tally's
 * next steps (before the first, there is none to keep). */
static void freeze(struct top *t)
{
	if (t->frozen || (t->taken && frame_keep(&t->paused, &t->frame)))
		return;
	if (t->taken)
		t->frame = t->paused.frame;
	t->frozen = true;
}

/* ---- cells ---- */

static const uint64_t *row_values(const struct top *t, const struct proc_io *row)
{
	return iostats_values(row, t->state.cumulative);
}

static const uint64_t *device_values(const struct top *t, const struct pmem_device *dev,
				     uint64_t values[PMEM_NR_COUNTERS])
{
	pmem_values(dev, t->state.cumulative, values);
	return values;
}

/* A byte count: per second over the interval, or the total. */
static void cell_bytes(char *buf, size_t size, const struct top *t, uint64_t value)
{
	format_bytes(buf, size, t->state.cumulative ? (double)value :
			       (double)value / t->frame.interval_s);
}

/* ERR (issue 45): the failed I/Os of the interval (a: since start), a
 * count however long the interval, since one failed I/O is news; in at
 * most width characters, with k/M/G/T when the digits would not fit. */
static void cell_errors(char *buf, size_t size, unsigned int width, const uint64_t *values)
{
	static const char units[] = "kMGT";
	uint64_t n = pmem_errors(values);
	double shown = (double)n;
	int unit = -1;

	snprintf(buf, size, "%" PRIu64, n);
	while (strlen(buf) > width && unit < 3) {
		shown /= 1000;
		snprintf(buf, size, "%.0f%c", shown, units[++unit]);
	}
}

/* A count in at most width characters: per second, or the total, with
 * k/M/G/T when the digits would not fit. */
static void cell_count(char *buf, size_t size, unsigned int width, const struct top *t,
		       uint64_t value)
{
	static const char units[] = "kMGT";
	double shown = t->state.cumulative ? (double)value : (double)value / t->frame.interval_s;
	int unit = -1;

	if (value == 0)
		snprintf(buf, size, "0");
	else if (shown < 10 && !t->state.cumulative)
		snprintf(buf, size, "%.1f", shown);
	else
		snprintf(buf, size, "%.0f", shown);
	while (strlen(buf) > width && unit < 3) {
		shown /= 1000;
		snprintf(buf, size, "%.1f%c", shown, units[++unit]);
	}
}

/* Milliseconds with three significant digits or so: "0.012", "12.35". */
static void cell_ms(char *buf, size_t size, double ms)
{
	if (ms < 1)
		snprintf(buf, size, "%.3f", ms);
	else if (ms < 100)
		snprintf(buf, size, "%.2f", ms);
	else if (ms < 10000)
		snprintf(buf, size, "%.1f", ms);
	else
		snprintf(buf, size, "%.0f", ms);
}

/* The average latency of a counter array, or "-". */
static void cell_avg_ms(char *buf, size_t size, const uint64_t *values)
{
	if (!values[PMEM_LATENCY_IOS]) {
		snprintf(buf, size, "-");
		return;
	}
	cell_ms(buf, size, (double)values[PMEM_LATENCY_NS] / (double)values[PMEM_LATENCY_IOS] / 1e6);
}

/* IO> or SWAPIN: "12.5%", "250%" (a process sums its threads), "-" when
 * not known (SWAPIN without delay accounting). */
static void cell_wait(char *buf, size_t size, const struct top *t, const struct proc_io *row,
		      bool swapin)
{
	double pct;

	if (!frame_wait_pct(&t->frame, row, t->state.cumulative, swapin, &pct))
		snprintf(buf, size, "-");
	else if (pct < 99.95)
		snprintf(buf, size, "%.1f%%", pct);
	else
		snprintf(buf, size, "%.0f%%", pct);
}

/* ---- the header ---- */

/* The losses the header shows: of the interval, or since start (-a, a). */
static const uint64_t *frame_lost(const struct top *t)
{
	return t->state.cumulative ? t->frame_lost_run : t->frame.lost;
}

/* issue 36: a replay says whose record it shows: "host NAME", and the
 * filter the record was made with ("record -D zram0", or "record all"). */
static void header_record(struct view *v, struct line *l, bool *full)
{
	char name[PRINTABLE_SIZE(sizeof(v->record_filter))];
	char item[sizeof(name) + 16];
	const char *filter = v->record_filter;

	printable_name(name, sizeof(name), v->host, strlen(v->host), v->top->settings.utf8);
	snprintf(item, sizeof(item), "host %s", name);
	line_item(l, item, v->screen.cols, full);
	if (filter[0])
		printable_name(name, sizeof(name), filter, strlen(filter), v->top->settings.utf8);
	snprintf(item, sizeof(item), "record %s", filter[0] ? name : "all");
	line_item(l, item, v->screen.cols, full);
}

/* A replay after a gap in the record: "gap FROM to TO", the time no frame
 * covers (frames that could not be written, or no recorder ran). */
static void header_gap(struct view *v, struct line *l, bool *full)
{
	char from[32], to[32], item[80];
	time_t from_s = v->record_gap_from_ns / 1000000000ULL;
	time_t to_s = v->record_gap_to_ns / 1000000000ULL;
	struct tm tm;

	localtime_r(&from_s, &tm);
	strftime(from, sizeof(from), "%Y-%m-%d %H:%M:%S", &tm);
	localtime_r(&to_s, &tm);
	strftime(to, sizeof(to), "%Y-%m-%d %H:%M:%S", &tm);
	snprintf(item, sizeof(item), "gap %s to %s", from, to);
	line_item(l, item, v->screen.cols, full);
}

static void header_totals(struct view *v)
{
	const struct top *t = v->top;
	const char *per = t->state.cumulative ? "" : "/s";
	char item[128], bytes[32], when[32] = "";
	uint64_t values[PMEM_NR_COUNTERS];
	struct line l = { .len = 0, .columns = 0 };
	bool full = false;
	struct tm tm;

	device_values(t, chosen_device(t), values);
	localtime_r(&t->frame.wall.tv_sec, &tm);
	strftime(when, sizeof(when), t->settings.replay ? "%Y-%m-%d %H:%M:%S" : "%H:%M:%S", &tm);
	snprintf(item, sizeof(item), "diskio %s", when);
	line_item(&l, item, v->screen.cols, &full);
	if (t->settings.replay && v->record_gap_to_ns)
		header_gap(v, &l, &full);
	if (t->settings.replay)
		header_record(v, &l, &full);
	snprintf(item, sizeof(item), "lost %" PRIu64, lost_total(frame_lost(t)));
	line_item(&l, item, v->screen.cols, &full);
	cell_bytes(bytes, sizeof(bytes), t, values[PMEM_READ_BYTES]);
	snprintf(item, sizeof(item), "read %s%s", bytes, per);
	line_item(&l, item, v->screen.cols, &full);
	cell_bytes(bytes, sizeof(bytes), t, values[PMEM_WRITE_BYTES]);
	snprintf(item, sizeof(item), "write %s%s", bytes, per);
	line_item(&l, item, v->screen.cols, &full);
	cell_bytes(bytes, sizeof(bytes), t, values[PMEM_DISCARD_BYTES]);
	snprintf(item, sizeof(item), "discard %s%s", bytes, per);
	line_item(&l, item, v->screen.cols, &full);
	put_line(v, l.text);
}

/* What the keys chose: PAUSED, sort, mode, filter, device, as many as fit. */
static void header_state(struct view *v)
{
	const struct top *t = v->top;
	const struct top_state *s = &t->state;
	struct line l = { .len = 0, .columns = 0 };
	bool full = false, ascending = sort_key_ascending(s->sort) != s->reverse;
	char item[sizeof(s->device) + 16];

	if (s->paused)
		line_item(&l, "PAUSED", v->screen.cols, &full);
	snprintf(item, sizeof(item), "sort %s %s", sort_key_name(s->sort),
		 ascending ? "asc" : "desc");
	line_item(&l, item, v->screen.cols, &full);
	if (s->cumulative)
		snprintf(item, sizeof(item), "accumulated since start");
	else
		snprintf(item, sizeof(item), "per second, every %gs",
			 v->record_interval_s ? v->record_interval_s : t->settings.interval_s);
	line_item(&l, item, v->screen.cols, &full);
	if (s->going)	/* issue 36 */
		snprintf(item, sizeof(item), "go to: %s_", s->go);
	else if (s->editing)
		snprintf(item, sizeof(item), "filter: %s_", s->edit);
	else
		snprintf(item, sizeof(item), "filter %s", s->filter[0] ? s->filter : "none");
	line_item(&l, item, v->screen.cols, &full);
	snprintf(item, sizeof(item), "device %s", s->device[0] ? s->device : "all");
	line_item(&l, item, v->screen.cols, &full);
	/* issue 33: o off */
	if (!s->only)
		line_item(&l, "all processes", v->screen.cols, &full);
	line_item(&l, "h help", v->screen.cols, &full);
	put_line(v, l.text);
}

/* When records were lost, why: "lost by cause: stats_map_full 10,
 * ringbuf_full 2", the causes that lost most first (ties in the batch
 * lines' order), as many as fit the width, then "..." for the others. */
static void lost_line(struct view *v)
{
	const uint64_t *lost = frame_lost(v->top);
	bool named[LOST_NR_CAUSES] = { false };
	struct line l = { .len = 0, .columns = 0 };
	unsigned int cols = v->screen.cols;

	if (!lost_total(lost))
		return;
	line_add(&l, "lost by cause:", strlen("lost by cause:"));
	for (int k = 0; k < LOST_NR_CAUSES; k++) {
		char item[64];
		int most = -1;
		size_t len;

		for (int i = 0; i < LOST_NR_CAUSES; i++) {
			enum lost_cause c = lost_shown[i];

			if (lost[c] && !named[c] && (most < 0 || lost[c] > lost[most]))
				most = c;
		}
		if (most < 0)
			break;
		named[most] = true;
		len = (size_t)snprintf(item, sizeof(item), "%s %s %" PRIu64, k ? "," : "",
				       lost_cause_names[most], lost[most]);
		/* room for it, and for ", ..." should another follow */
		if (cols && l.columns + len + 5 > cols) {
			line_add(&l, k ? ", ..." : " ...", k ? 5 : 4);
			break;
		}
		line_add(&l, item, len);
	}
	put_line(v, l.text);
}

static void crash_line(struct view *v)
{
	const char *crash = v->top->crash_line;
	struct line l = { .len = 0, .columns = 0 };

	if (!crash[0])
		return;
	line_add(&l, crash, strlen(crash));
	put_line(v, l.text);
}

/* ---- the tables ---- */

/* A heading line of the shown columns. */
static void put_headings(struct view *v, const struct top_column *columns, size_t n,
			 const struct top_layout *layout)
{
	struct line l = { .len = 0, .columns = 0 };

	for (size_t i = 0; i < n; i++) {
		const char *heading = v->top->state.cumulative ? columns[i].total_heading :
					columns[i].heading;

		/* -t: a row is a thread */
		if (columns == top_proc_columns && i == TOP_COL_PID && v->top->frame.per_thread)
			heading = "TID";
		if (layout->shown[i])
			line_cell(&l, heading, layout->width[i], columns[i].left);
	}
	put_line(v, l.text);
}

/* Whether counters hold I/O, or failed I/Os (issue 45: an I/O that fails
 * in a later interval than the one it was counted in is that interval's
 * news), or with dirty, page cache dirtied. */
static bool has_values(const uint64_t *values, bool dirty)
{
	for (int c = PMEM_READ_BYTES; c <= PMEM_FLUSHES; c++)
		if (values[c])
			return true;
	return pmem_errors(values) || (dirty && values[PMEM_DIRTIED_BYTES] != 0);
}

/* A process row to show: its I/O, or its waits (a process that only
 * waited has a row of no disk); the page cache it dirtied only where
 * DIRTY/s is on screen: narrower, such a row would read `0 B 0 B` with
 * no reason shown (issue 48). */
static bool row_shown(const struct top *t, const struct proc_io *row)
{
	const struct iowait_ns *waits = iostats_waits(row, t->state.cumulative);

	return has_values(row_values(t, row), t->dirty_shown) || waits->blkio_ns ||
	       waits->swapin_ns;
}

/* "+N more" on the last line there is room for, when n were not shown. */
static void put_more(struct view *v, size_t n)
{
	char text[48];

	if (!n)
		return;
	snprintf(text, sizeof(text), "+%zu more", n);
	put_line(v, text);
}

/* How many of n lines to show in room lines, keeping one for "+N more"
 * when they do not all fit. */
static size_t lines_fitting(size_t n, size_t room)
{
	if (n <= room)
		return n;
	return room ? room - 1 : 0;
}

/* iostat -x's awaits, queue size and utilisation; "-" where the kernel
 * lists no such device. */
static void iostat_cells(char cells[][64], const struct pmem_device *dev, bool cumulative)
{
	const struct iostat_x *x = &dev->iostat[cumulative];

	if (!dev->has_iostat) {
		for (int i = TOP_DEV_R_AWAIT; i <= TOP_DEV_UTIL; i++)
			snprintf(cells[i], 64, "-");
		return;
	}
	cell_ms(cells[TOP_DEV_R_AWAIT], 64, x->r_await);
	cell_ms(cells[TOP_DEV_W_AWAIT], 64, x->w_await);
	snprintf(cells[TOP_DEV_AQU_SZ], 64, "%.2f", x->aqu_sz);
	snprintf(cells[TOP_DEV_UTIL], 64, "%.1f", x->util);
}

static void device_line(struct view *v, const struct pmem_device *dev,
			const struct top_layout *layout)
{
	const struct top *t = v->top;
	uint64_t values[PMEM_NR_COUNTERS];
	char cells[TOP_NR_DEV_COLUMNS][64], name[DEVICE_NAME_SIZE];
	const char *text[TOP_NR_DEV_COLUMNS];
	struct line l = { .len = 0, .columns = 0 };
	double p99_us;

	device_values(t, dev, values);
	for (size_t i = 0; i < TOP_NR_DEV_COLUMNS; i++)
		text[i] = cells[i];
	text[TOP_DEV_NAME] = device_name(t, dev, name);
	cell_bytes(cells[TOP_DEV_READ], sizeof(cells[0]), t, values[PMEM_READ_BYTES]);
	cell_bytes(cells[TOP_DEV_WRITE], sizeof(cells[0]), t, values[PMEM_WRITE_BYTES]);
	cell_bytes(cells[TOP_DEV_DISCARD], sizeof(cells[0]), t, values[PMEM_DISCARD_BYTES]);
	cell_count(cells[TOP_DEV_READ_IOPS], sizeof(cells[0]),
		   top_dev_columns[TOP_DEV_READ_IOPS].width, t, values[PMEM_READ_IOS]);
	cell_count(cells[TOP_DEV_WRITE_IOPS], sizeof(cells[0]),
		   top_dev_columns[TOP_DEV_WRITE_IOPS].width, t, values[PMEM_WRITE_IOS]);
	cell_count(cells[TOP_DEV_DISCARD_IOPS], sizeof(cells[0]),
		   top_dev_columns[TOP_DEV_DISCARD_IOPS].width, t, values[PMEM_DISCARD_IOS]);
	cell_errors(cells[TOP_DEV_ERRORS], sizeof(cells[0]), top_dev_columns[TOP_DEV_ERRORS].width,
		    values);
	cell_avg_ms(cells[TOP_DEV_AVG], sizeof(cells[0]), values);
	if (device_p99_us(dev, t->state.cumulative, &p99_us))
		cell_ms(cells[TOP_DEV_P99], sizeof(cells[0]), p99_us / 1000.0);
	else
		snprintf(cells[TOP_DEV_P99], sizeof(cells[0]), "-");
	iostat_cells(cells, dev, t->state.cumulative);
	for (size_t i = 0; i < TOP_NR_DEV_COLUMNS; i++)
		if (layout->shown[i])
			line_cell(&l, text[i], layout->width[i], top_dev_columns[i].left);
	put_line(v, l.text);
}

/* The devices the table lists, into t->devices_shown: those with
 * something to show, or the one d chose. */
static size_t select_devices(struct top *t)
{
	const struct pmem_metrics *devices = t->frame.devices;
	size_t n = 0;

	if (array_reserve((void **)&t->devices_shown, &t->devices_shown_capacity,
			  devices->count, sizeof(*t->devices_shown)))
		return 0;
	for (size_t i = 0; i < devices->count; i++) {
		const struct pmem_device *dev = &devices->devices[i];
		uint64_t values[PMEM_NR_COUNTERS];
		char name[DEVICE_NAME_SIZE];

		if (t->state.device[0] ? !strcmp(device_name(t, dev, name), t->state.device) :
		    has_values(device_values(t, dev, values), true))
			t->devices_shown[n++] = dev;
	}
	return n;
}

/* Whether one of the n devices listed has failed I/Os. */
static bool devices_failed(const struct top *t, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		uint64_t values[PMEM_NR_COUNTERS];

		if (pmem_errors(device_values(t, t->devices_shown[i], values)))
			return true;
	}
	return false;
}

/* Devices with something to show (or the one d chose), a third of the
 * lines left at most. */
static void device_table(struct view *v)
{
	struct top *t = v->top;
	bool wanted[TOP_NR_DEV_COLUMNS];
	struct top_layout layout;
	size_t n, room, shown;
	unsigned int left;

	n = select_devices(t);
	for (size_t i = 0; i < TOP_NR_DEV_COLUMNS; i++)
		wanted[i] = true;
	wanted[TOP_DEV_AVG] = wanted[TOP_DEV_P99] = t->state.latency_columns;
	/* ERR (issue 45) only when a disk listed has failed I/Os: a machine
	 * without them sees the table it always saw */
	wanted[TOP_DEV_ERRORS] = devices_failed(t, n);
	top_layout_fit(top_dev_columns, top_dev_priority, TOP_DEV_STEPS, TOP_NR_DEV_COLUMNS, wanted,
		       -1, v->screen.cols, &layout);
	put_headings(v, top_dev_columns, TOP_NR_DEV_COLUMNS, &layout);
	left = lines_left(v);
	room = left == UINT32_MAX ? n : (left > 3 ? (left - 3) / 3 : 1);
	shown = lines_fitting(n, room ? room : 1);
	for (size_t i = 0; i < shown; i++)
		device_line(v, t->devices_shown[i], &layout);
	put_more(v, n - shown);
}

/* The column a sort key keeps on screen however narrow it is (with its
 * twin: top_layout_fit()); the sums by the read and write columns that
 * add up to them (issue 48: at 40 columns sorted by bytes, PID and
 * COMMAND alone were shown). */
static int sort_column(enum sort_key sort)
{
	switch (sort) {
	case SORT_PID:
		return TOP_COL_PID;
	case SORT_COMM:
		return TOP_COL_COMMAND;
	case SORT_DEVICE:
		return TOP_COL_DEVICE;
	case SORT_READ:
		return TOP_COL_READ;
	case SORT_WRITE:
		return TOP_COL_WRITE;
	case SORT_DISCARD:
		return TOP_COL_DISCARD;
	case SORT_READ_IOS:
		return TOP_COL_READ_IOPS;
	case SORT_WRITE_IOS:
		return TOP_COL_WRITE_IOPS;
	case SORT_DISCARD_IOS:
		return TOP_COL_DISCARD_IOPS;
	case SORT_LATENCY:
		return TOP_COL_LATENCY;
	case SORT_DIRTY:
		return TOP_COL_DIRTY;
	case SORT_CGROUP:
		return TOP_COL_CGROUP;
	case SORT_IOWAIT:
		return TOP_COL_IOWAIT;
	case SORT_SWAPIN:
		return TOP_COL_SWAPIN;
	case SORT_BYTES:
		return TOP_COL_READ;
	case SORT_IOS:
		return TOP_COL_READ_IOPS;
	case SORT_ERRORS:
		return TOP_COL_ERRORS;
	}
	return -1;
}

/* The views' one row order (iostats_compare()), turned around by `r`;
 * after o, the idle processes last whatever the key and the direction
 * (issue 48: sorted by device or comm they came first or in between). */
static int compare_rows(const void *pa, const void *pb, void *arg)
{
	const struct top *t = arg;
	const struct proc_io *a = *(const struct proc_io *const *)pa;
	const struct proc_io *b = *(const struct proc_io *const *)pb;
	int order;

	if (a->idle != b->idle)
		return a->idle ? 1 : -1;
	order = iostats_compare(a, b, t->state.sort, t->state.cumulative, t->frame.names);

	return t->state.reverse ? -order : order;
}

static void process_line(struct view *v, const struct proc_io *row,
			 const struct top_layout *layout, bool selected)
{
	const struct top *t = v->top;
	const uint64_t *values = row_values(t, row);
	char cells[TOP_NR_PROC_COLUMNS][64], command[COMMAND_SIZE], cgroup[LINE_SIZE];
	char device[2 * DEVICE_NAME_SIZE];		/* DISK<ABOVE */
	char user[USER_SIZE], prio[IOPRIO_TEXT_SIZE];
	const char *text[TOP_NR_PROC_COLUMNS];
	struct line l = { .len = 0, .columns = 0 };

	for (size_t i = 0; i < TOP_NR_PROC_COLUMNS; i++)
		text[i] = cells[i];
	if (t->frame.by_cgroup) {
		snprintf(cells[TOP_COL_PID], sizeof(cells[0]), "-");
		text[TOP_COL_COMMAND] = "-";
	} else {
		snprintf(cells[TOP_COL_PID], sizeof(cells[0]), "%" PRIu32, row_pid(t, row));
		text[TOP_COL_COMMAND] = row_command(t, row, command);
	}
	/* issue 33 */
	text[TOP_COL_USER] = row_user(t, row, user);
	text[TOP_COL_PRIO] = row_ioprio(row, prio) ? prio : "-";
	text[TOP_COL_DEVICE] = row_device(t, row, device);
	if (row->serves_name) {		/* DISK<ABOVE: the I/O of a stacked device above */
		char above[DEVICE_NAME_SIZE];
		size_t len = strlen(device);

		snprintf(device + len, sizeof(device) - len, "<%s",
			 frame_name(t, row->serves_name, above, sizeof(above)));
	}
	/* as long as it is, cut to its width */
	text[TOP_COL_CGROUP] = row->cgroup_name ? row_cgroup(t, row, cgroup) : "-";
	cell_bytes(cells[TOP_COL_READ], sizeof(cells[0]), t, values[PMEM_READ_BYTES]);
	cell_bytes(cells[TOP_COL_WRITE], sizeof(cells[0]), t, values[PMEM_WRITE_BYTES]);
	cell_bytes(cells[TOP_COL_DISCARD], sizeof(cells[0]), t, values[PMEM_DISCARD_BYTES]);
	cell_count(cells[TOP_COL_READ_IOPS], sizeof(cells[0]),
		   top_proc_columns[TOP_COL_READ_IOPS].width, t, values[PMEM_READ_IOS]);
	cell_count(cells[TOP_COL_WRITE_IOPS], sizeof(cells[0]),
		   top_proc_columns[TOP_COL_WRITE_IOPS].width, t, values[PMEM_WRITE_IOS]);
	cell_count(cells[TOP_COL_DISCARD_IOPS], sizeof(cells[0]),
		   top_proc_columns[TOP_COL_DISCARD_IOPS].width, t, values[PMEM_DISCARD_IOS]);
	cell_errors(cells[TOP_COL_ERRORS], sizeof(cells[0]),
		    top_proc_columns[TOP_COL_ERRORS].width, values);
	cell_avg_ms(cells[TOP_COL_LATENCY], sizeof(cells[0]), values);
	cell_bytes(cells[TOP_COL_DIRTY], sizeof(cells[0]), t, values[PMEM_DIRTIED_BYTES]);
	cell_wait(cells[TOP_COL_IOWAIT], sizeof(cells[0]), t, row, false);
	cell_wait(cells[TOP_COL_SWAPIN], sizeof(cells[0]), t, row, true);
	for (size_t i = 0; i < TOP_NR_PROC_COLUMNS; i++)
		if (layout->shown[i])
			line_cell(&l, text[i], layout->width[i], top_proc_columns[i].left);
	put_line_marked(v, l.text, selected);
}

/* Whether row is shown under the chosen device and the filter, which
 * COMMAND must hold as shown. */
static bool row_selected(const struct top *t, const struct proc_io *row)
{
	char device[DEVICE_NAME_SIZE], command[COMMAND_SIZE];

	return (!t->state.device[0] || !strcmp(row_device(t, row, device), t->state.device)) &&
	       (!t->state.filter[0] || strstr(row_command(t, row, command), t->state.filter));
}

/* Rows with something to show in the chosen mode (after o, the idle
 * processes too: issue 33), of the chosen device, whose COMMAND holds the
 * filter; sorted. */
static size_t select_rows(struct top *t)
{
	const struct frame *f = &t->frame;
	size_t n = 0, nidle = t->state.only ? 0 : f->nidle_rows;

	if (array_reserve((void **)&t->order, &t->order_capacity, f->nrows + nidle,
			  sizeof(*t->order)))
		return 0;
	for (size_t i = 0; i < f->nrows; i++) {
		const struct proc_io *row = f->rows[i];

		if (row_shown(t, row) && row_selected(t, row))
			t->order[n++] = row;
	}
	for (size_t i = 0; i < nidle; i++)
		if (row_selected(t, f->idle_rows[i]))
			t->order[n++] = f->idle_rows[i];
	if (n > 1)
		qsort_r(t->order, n, sizeof(*t->order), compare_rows, t);
	return n;
}

static bool is_selected(const struct top *t, const struct proc_io *row)
{
	const struct top_selection *sel = &t->selection;
	char comm[ROW_NAME_SIZE], device[DEVICE_NAME_SIZE], cgroup[LINE_SIZE];

	return sel->known && sel->pid == row_pid(t, row) &&
	       !strcmp(sel->comm, row_comm(t, row, comm)) &&
	       !strcmp(sel->device, row_device(t, row, device)) &&
	       !strncmp(sel->cgroup, row_cgroup(t, row, cgroup), sizeof(sel->cgroup) - 1);
}

static void remember_selection(struct top *t, size_t index)
{
	struct top_selection *sel = &t->selection;
	const struct proc_io *row = t->order[index];

	sel->index = index;
	sel->known = true;
	sel->pid = row_pid(t, row);
	row_comm(t, row, sel->comm);
	row_device(t, row, sel->device);
	row_cgroup(t, row, sel->cgroup);
}

/*
 * Where the selection is among the first n rows of t->order (select_rows()),
 * after the jump, moves and pages (of page rows) the keys counted, which it
 * uses up: from the selected row if it is among them, else from the same
 * place, kept within the n rows.  SIZE_MAX when nothing is selected or
 * there are no rows.
 */
static size_t place_selection(struct top *t, size_t n, size_t page)
{
	struct top_selection *sel = &t->selection;
	long index = (long)sel->index;
	long moves = (long)t->state.moves + (long)t->state.pages * (long)page;
	enum top_jump jump = t->state.jump;

	t->state.moves = 0;
	t->state.pages = 0;
	t->state.jump = TOP_JUMP_NONE;
	if (!t->state.selecting || !n)
		return SIZE_MAX;
	for (size_t i = 0; i < n; i++) {
		if (is_selected(t, t->order[i])) {
			index = (long)i;
			break;
		}
	}
	if (jump == TOP_JUMP_FIRST)
		index = 0;
	else if (jump == TOP_JUMP_LAST)
		index = (long)n - 1;
	index += moves;
	if (index >= (long)n)
		index = (long)n - 1;
	if (index < 0)
		index = 0;
	remember_selection(t, (size_t)index);
	return (size_t)index;
}

/*
 * The first of n rows to show page at a time: where the table was
 * scrolled, moved just enough to show the selected row (SIZE_MAX: none),
 * and never past the last page, so that rows that went away leave no
 * empty lines.
 */
static size_t scroll_to(size_t first, size_t n, size_t page, size_t selected)
{
	if (selected != SIZE_MAX && page) {
		if (selected < first)
			first = selected;
		else if (selected >= first + page)
			first = selected - page + 1;
	}
	if (first + page > n)
		first = n > page ? n - page : 0;
	return first;
}

/* Below the rows when they do not all show: "rows 41-60 of 200", and
 * with -r, how many rows it cut ("+27 more"). */
static void put_position(struct view *v, size_t first, size_t shown, size_t n, size_t cut)
{
	char text[96];
	size_t len = 0;

	if (shown < n)
		len = (size_t)snprintf(text, sizeof(text), "rows %zu-%zu of %zu", shown ? first + 1 : 0,
				       first + shown, n);
	if (cut)
		snprintf(text + len, sizeof(text) - len, "%s+%zu more", len ? ", " : "", cut);
	if (shown < n || cut)
		put_line(v, text);
}

/* The process table's columns, then the rows it lists (select_rows()),
 * as which rows it lists depends on whether DIRTY/s is on screen. */
static size_t fit_process_table(struct view *v, const struct top_step *priority, size_t nsteps,
				const bool *wanted, struct top_layout *layout)
{
	struct top *t = v->top;

	top_layout_fit(top_proc_columns, priority, nsteps, TOP_NR_PROC_COLUMNS, wanted,
		       sort_column(t->state.sort), v->screen.cols, layout);
	t->dirty_shown = layout->shown[TOP_COL_DIRTY];
	return select_rows(t);
}

/* Whether one of the first n rows of t->order has failed I/Os. */
static bool rows_failed(const struct top *t, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (pmem_errors(row_values(t, t->order[i])))
			return true;
	return false;
}

/*
 * The process table: the rows that fit, scrolled to keep the selection in
 * sight (the one pane that scrolls: the disks have `d`), and a last line
 * saying which rows are shown when not all of them are.  -r keeps the
 * first ROWS rows of the order, the others are not shown at all.
 */
static void process_table(struct view *v)
{
	struct top *t = v->top;
	struct top_step priority[TOP_PROC_STEPS + 1];
	size_t nsteps = 0;
	bool wanted[TOP_NR_PROC_COLUMNS];
	struct top_layout layout;
	size_t n, listed, room, page, selected;
	unsigned int left;
	long page_move;

	for (size_t i = 0; i < TOP_NR_PROC_COLUMNS; i++)
		wanted[i] = true;
	wanted[TOP_COL_LATENCY] = t->state.latency_columns && t->frame.per_process_latency;
	/* IO> and SWAPIN where diskio measures who waits ("-" for a SWAPIN
	 * not known); not where it cannot (trace mode, old kernels) */
	wanted[TOP_COL_IOWAIT] = wanted[TOP_COL_SWAPIN] = t->frame.waits_source != WAITS_NONE;
	/* ERR (issue 45) when a row listed has failed I/Os (below), or when
	 * the rows are sorted by them: the sort column stays */
	wanted[TOP_COL_ERRORS] = t->state.sort == SORT_ERRORS;
	if (t->frame.by_cgroup) {
		/* A cgroup's row is named by its path: it goes first. */
		wanted[TOP_COL_PID] = wanted[TOP_COL_COMMAND] = false;
		wanted[TOP_COL_USER] = wanted[TOP_COL_PRIO] = false;	/* issue 33 */
		priority[nsteps++] = (struct top_step){ TOP_COL_CGROUP, -1 };
	}
	memcpy(priority + nsteps, top_proc_priority, sizeof(top_proc_priority));
	nsteps += TOP_PROC_STEPS;
	n = fit_process_table(v, priority, nsteps, wanted, &layout);
	listed = v->screen.max_rows && v->screen.max_rows < n ? v->screen.max_rows : n;
	/* No column of zeros on a machine without failed I/Os.  ERR may take
	 * the room of DIRTY/s, and with it the rows of dirtied bytes alone
	 * (row_shown()), so the rows are listed again: a row with failed I/Os
	 * is listed whatever the columns, and with fewer rows stays within
	 * -r's ROWS. */
	if (!wanted[TOP_COL_ERRORS] && rows_failed(t, listed)) {
		wanted[TOP_COL_ERRORS] = true;
		n = fit_process_table(v, priority, nsteps, wanted, &layout);
		listed = v->screen.max_rows && v->screen.max_rows < n ? v->screen.max_rows : n;
	}
	if (!lines_left(v))
		return;
	put_line(v, "");
	put_headings(v, top_proc_columns, TOP_NR_PROC_COLUMNS, &layout);
	left = lines_left(v);
	room = left == UINT32_MAX ? listed : left;
	/* a line for the position when the rows do not all fit or -r cut some */
	if (listed <= room && listed == n)
		page = listed;
	else
		page = listed < room ? listed : (room ? room - 1 : 0);
	/* PgUp, PgDn move the window with the selection, a page at a time */
	page_move = (long)t->state.pages * (long)page;
	selected = place_selection(t, listed, page);
	if (page_move < 0)
		t->first_row = (size_t)-page_move < t->first_row ? t->first_row + page_move : 0;
	else
		t->first_row += (size_t)page_move;
	t->first_row = scroll_to(t->first_row, listed, page, selected);
	for (size_t i = t->first_row; i < t->first_row + page && i < listed; i++)
		process_line(v, t->order[i], &layout, i == selected);
	put_position(v, t->first_row, page < listed ? page : listed, listed, n - listed);
}

/* ---- the screen ---- */

/* ---- the stack overlay ---- */

struct stack_lines {
	struct top *t;
	size_t n;
};

/* A frame's name as an indented line; as the terminal can show it, as a
 * user program's symbols are any bytes its author chose. */
static void add_stack_line(const char *name, void *arg)
{
	struct stack_lines *lines = arg;

	if (lines->n == STACK_LINES)
		return;
	lines->t->stack_lines[lines->n][0] = ' ';
	lines->t->stack_lines[lines->n][1] = ' ';
	printable_name(lines->t->stack_lines[lines->n] + 2, STACK_LINE_SIZE - 2, name,
		       strlen(name), lines->t->settings.utf8);
	lines->n++;
}

/* A heading, then one side's frames, innermost first; nothing for a side
 * the stack does not have (a kernel thread's user side, -k only). */
static void add_stack_side(struct view *v, struct stack_lines *lines,
			   const struct row_stack *stack, bool user)
{
	size_t heading = lines->n;

	if ((user ? stack->user.state : stack->kernel.state) == STACK_ABSENT)
		return;
	snprintf(v->top->stack_lines[lines->n++], STACK_LINE_SIZE, "%s",
		 user ? "user:" : "kernel:");
	if (!stack_for_each_name(v->stacks, stack, user, false, add_stack_line, lines))
		lines->n = heading;	/* only tracing frames */
}

/* "pid 42 dd on zram0: 4.0 MiB/s, 1024 ios/s, 0 B/s dirtied" */
static void stack_title(struct view *v, const struct proc_io *row, const struct row_stack *stack)
{
	const struct top *t = v->top;
	bool cumulative = t->state.cumulative;
	const char *per = cumulative ? "" : "/s";
	char text[LINE_SIZE], bytes[32], ios[32], dirtied[32];
	char comm[ROW_NAME_SIZE], device[DEVICE_NAME_SIZE];

	cell_bytes(bytes, sizeof(bytes), t, row_stack_bytes(stack, cumulative));
	cell_count(ios, sizeof(ios), 12, t, row_stack_ios(stack, cumulative));
	cell_bytes(dirtied, sizeof(dirtied), t, row_stack_dirtied(stack, cumulative));
	snprintf(text, sizeof(text), "pid %" PRIu32 " %s on %s: %s%s, %s ios%s, %s%s dirtied",
		 row_pid(t, row), row_comm(t, row, comm), row_device(t, row, device), bytes, per,
		 ios, per, dirtied, per);
	put_line(v, text);
}

/* The frames of row's heaviest stack, kernel side then user side (each
 * innermost first: the line of calls from the I/O outwards), as many as the
 * screen holds. */
static void stack_frames(struct view *v, const struct row_stack *stack)
{
	struct top *t = v->top;
	struct stack_lines lines = { .t = t, .n = 0 };
	size_t shown;

	if (!t->stack_lines) {
		t->stack_lines = calloc(STACK_LINES, sizeof(*t->stack_lines));
		if (!t->stack_lines) {
			put_line(v, "no memory to name the frames");
			return;
		}
	}
	add_stack_side(v, &lines, stack, false);
	add_stack_side(v, &lines, stack, true);
	shown = lines_fitting(lines.n, lines_left(v) == UINT32_MAX ? lines.n : lines_left(v));
	for (size_t i = 0; i < shown; i++)
		put_line(v, t->stack_lines[i]);
	put_more(v, lines.n - shown);
}

/* Enter: the selected row's heaviest stack, or one line saying why there
 * is none. */
static void stack_overlay(struct view *v)
{
	struct top *t = v->top;
	size_t n = t->taken ? select_rows(t) : 0;
	size_t index = place_selection(t, n, 1);
	const struct proc_io *row = index == SIZE_MAX ? NULL : t->order[index];

	put_line(v, "");
	put_line(v, "Heaviest stack (any key closes)");
	if (!v->stacks)
		put_line(v, "no stacks: run with --stacks");
	else if (t->taken && t->frame.by_cgroup)
		put_line(v, "no stacks by cgroup: rows of processes have them");
	else if (!row)
		put_line(v, "no row selected: no process row is shown");
	else if (!row->nstacks)
		put_line(v, "no stack recorded for this row yet");
	else {
		stack_title(v, row, row->stacks[0]);
		stack_frames(v, row->stacks[0]);
	}
}

static void sampling(struct view *v)
{
	char text[128];

	snprintf(text, sizeof(text), "sampling%s the first numbers come after %gs",
		 v->top->settings.utf8 ? "\u2026" : "...", v->top->settings.interval_s);
	put_line(v, text);
}

static void draw(struct view *v)
{
	struct top *t = v->top;

	v->lines = 0;
	if (v->screen.clear)
		fputs("\033[H", v->out);
	if (t->taken) {
		header_totals(v);
	} else {
		put_line(v, "diskio");
	}
	header_state(v);
	if (t->state.help)
		top_help(v, &t->state, &t->first_help_line, t->settings.utf8);
	else if (t->state.stack)
		stack_overlay(v);
	else if (!t->taken)
		sampling(v);
	else {
		crash_line(v);
		lost_line(v);
		device_table(v);
		if (t->state.files)
			top_files_table(v, &t->frame, t->state.selecting && t->selection.known ?
				       t->selection.pid : 0, t->state.cumulative, t->state.reverse,
				       t->settings.utf8);
		else
			process_table(v);
	}
	if (!v->screen.clear)
		fputc('\n', v->out);	/* an empty line closes an appended frame */
	else if (lines_left(v))
		fputs("\r\n\033[J", v->out);	/* erase what the last frame left below */
}

void top_redraw(struct view *v)
{
	draw(v);
}

void top_leave_frame(struct view *v)
{
	v->top->state.help = false;
	v->top->state.stack = false;
	v->screen.clear = false;
	draw(v);
}

static void top_start(struct view *v)
{
	draw(v);
}

bool top_feed_keys(struct view *v, const char *bytes, size_t n)
{
	struct top *t = v->top;
	const struct pmem_metrics *devices = t->frame.devices;
	size_t ndevices = t->taken ? devices->count : 0;
	bool changed;

	if (array_reserve((void **)&t->device_names, &t->device_names_capacity, ndevices,
			  sizeof(*t->device_names)) ||
	    array_reserve((void **)&t->device_name_ptrs, &t->device_name_ptrs_capacity,
			  ndevices, sizeof(*t->device_name_ptrs)))
		return false;
	for (size_t i = 0; i < ndevices; i++)
		t->device_name_ptrs[i] = device_name(t, &devices->devices[i], t->device_names[i]);
	changed = top_keys_feed(&t->state, bytes, n, t->device_name_ptrs, ndevices);
	if (t->state.paused)
		freeze(t);
	return changed;
}

const struct top_state *top_state(const struct view *v)
{
	return &v->top->state;
}

int top_take_replay_keys(struct view *v, char *go, size_t size)
{
	struct top_state *s = &v->top->state;
	int steps = s->frame_steps;

	snprintf(go, size, "%s", s->go_asked ? s->go : "");
	s->frame_steps = 0;
	s->go_asked = false;
	return steps;
}

/* One line: how long diskio ran, what it saw in all, and what it lost. */
static void top_summary(struct view *v, const struct summary *s)
{
	const uint64_t *total = v->top->run_total;
	char read[32], write[32], discard[32];

	format_bytes(read, sizeof(read), (double)total[PMEM_READ_BYTES]);
	format_bytes(write, sizeof(write), (double)total[PMEM_WRITE_BYTES]);
	fprintf(v->out, "diskio ran %.1fs: read %s, write %s", s->duration_s, read, write);
	if (total[PMEM_DISCARD_BYTES]) {
		format_bytes(discard, sizeof(discard), (double)total[PMEM_DISCARD_BYTES]);
		fprintf(v->out, ", discard %s", discard);
	}
	fprintf(v->out, ", lost %" PRIu64 ", crashes %" PRIu64 "\n", lost_total(s->lost),
		s->crash ? s->crash->crashes : 0);
}

int view_top(struct view *v, FILE *out, const struct top_settings *settings)
{
	struct top *t = calloc(1, sizeof(*t));

	if (!t)
		return -ENOMEM;
	t->settings = *settings;
	top_state_init(&t->state, settings->sort, settings->cumulative,
		       settings->per_process_latency, settings->by_cgroup);
	t->state.threads = settings->threads;
	t->state.replay = settings->replay;
	*v = (struct view){
		.start = top_start, .begin = top_begin, .interval_end = top_interval_end,
		.summary = top_summary, .out = out, .top = t
	};
	return 0;
}

void view_top_free(struct view *v)
{
	struct top *t = v->top;

	if (!t)
		return;
	frame_kept_free(&t->paused);
	free(t->order);
	free(t->devices_shown);
	free(t->device_names);
	free(t->device_name_ptrs);
	free(t->stack_lines);
	free(t);
	v->top = NULL;
}
