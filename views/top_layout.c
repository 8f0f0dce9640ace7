// SPDX-License-Identifier: GPL-2.0
/* The top view's columns and what fits (top_layout.h). */
#include <string.h>
#include "top_layout.h"

/* Byte cells hold "1023.9 KiB" (10), count cells 7 digits, ms cells
 * "0.012" to "9999999".  The rate columns are defined once for both
 * tables: a disk's READ/s reads as its processes' do. */
#define RATE_COLUMNS(read, write, discard, read_iops, write_iops, discard_iops)	\
	[read] = { "READ/s", "READ", 10, false, false, false },			\
	[write] = { "WRITE/s", "WRITE", 10, false, false, false },		\
	[discard] = { "DISCARD/s", "DISCARD", 10, false, false, false },	\
	[read_iops] = { "R_IOPS", "R_IO", 7, false, false, false },		\
	[write_iops] = { "W_IOPS", "W_IO", 7, false, false, false },		\
	[discard_iops] = { "D_IOPS", "D_IO", 7, false, false, false }

const struct top_column top_proc_columns[TOP_NR_PROC_COLUMNS] = {
	[TOP_COL_PID] = { "PID", "PID", 7, false, false, false },
	/* issue 33: "be/4", "idle"; a name as ps -o user cuts it; "99.9%",
	 * "250%" (a process sums its threads); the comm (15 bytes) or the
	 * command line, with the rest of the line */
	[TOP_COL_PRIO] = { "PRIO", "PRIO", 4, true, false, false },
	[TOP_COL_USER] = { "USER", "USER", 8, true, false, false },
	[TOP_COL_SWAPIN] = { "SWAPIN", "SWAPIN", 6, false, false, false },
	[TOP_COL_IOWAIT] = { "IO>", "IO>", 5, false, false, false },
	[TOP_COL_COMMAND] = { "COMMAND", "COMMAND", 15, true, true, false },
	[TOP_COL_DEVICE] = { "DEVICE", "DEVICE", 8, true, false, false },
	RATE_COLUMNS(TOP_COL_READ, TOP_COL_WRITE, TOP_COL_DISCARD, TOP_COL_READ_IOPS,
		     TOP_COL_WRITE_IOPS, TOP_COL_DISCARD_IOPS),
	/* a count, not a rate: a failed I/O is news however long the interval */
	[TOP_COL_ERRORS] = { "ERR", "ERR", 5, false, false, false },
	[TOP_COL_LATENCY] = { "LAT_ms", "LAT_ms", 7, false, false, false },
	[TOP_COL_DIRTY] = { "DIRTY/s", "DIRTY", 10, false, false, false },
	[TOP_COL_CGROUP] = { "CGROUP", "CGROUP", 10, true, true, true },
};

/* A row is a process on a disk: without DEVICE two rows of one process
 * look alike, so the disk comes right after the byte rates.  Then iotop's
 * columns (issue 33): 80 columns show PID PRIO USER IO> DEVICE READ/s
 * WRITE/s and COMMAND (74 wide), the IOPS come at 90.  SWAPIN, mostly "-"
 * (delay accounting is off by default), comes late.  ERR, wanted only when
 * a row has failed I/Os (issue 45), comes right after the disk, before
 * iotop's columns: a failed I/O is the news of its interval, and the
 * 80-column line, IO> shown, is 80 wide with it. */
const struct top_step top_proc_priority[TOP_PROC_STEPS] = {
	{ TOP_COL_COMMAND, -1 }, { TOP_COL_PID, -1 }, { TOP_COL_READ, TOP_COL_WRITE },
	{ TOP_COL_DEVICE, -1 }, { TOP_COL_ERRORS, -1 }, { TOP_COL_USER, -1 },
	{ TOP_COL_IOWAIT, -1 }, { TOP_COL_PRIO, -1 }, { TOP_COL_READ_IOPS, TOP_COL_WRITE_IOPS },
	{ TOP_COL_LATENCY, -1 }, { TOP_COL_DIRTY, -1 }, { TOP_COL_DISCARD, -1 },
	{ TOP_COL_DISCARD_IOPS, -1 }, { TOP_COL_SWAPIN, -1 }, { TOP_COL_CGROUP, -1 },
};

const struct top_column top_dev_columns[TOP_NR_DEV_COLUMNS] = {
	[TOP_DEV_NAME] = { "DEVICE", "DEVICE", 10, true, false, false },
	RATE_COLUMNS(TOP_DEV_READ, TOP_DEV_WRITE, TOP_DEV_DISCARD, TOP_DEV_READ_IOPS,
		     TOP_DEV_WRITE_IOPS, TOP_DEV_DISCARD_IOPS),
	[TOP_DEV_ERRORS] = { "ERR", "ERR", 5, false, false, false },
	[TOP_DEV_AVG] = { "AVG_ms", "AVG_ms", 7, false, false, false },
	[TOP_DEV_P99] = { "P99_ms", "P99_ms", 7, false, false, false },
	[TOP_DEV_R_AWAIT] = { "R_AWAIT", "R_AWAIT", 7, false, false, false },
	[TOP_DEV_W_AWAIT] = { "W_AWAIT", "W_AWAIT", 7, false, false, false },
	[TOP_DEV_AQU_SZ] = { "AQU-SZ", "AQU-SZ", 6, false, false, false },
	[TOP_DEV_UTIL] = { "%UTIL", "%UTIL", 6, false, false, false },
};

/* What iostat -x users read first stays on 80 columns beside the rates
 * and the p99: %util, aqu-sz and the IOPS (r/s, w/s: issue 48, iotop-c's
 * issue 40).  The awaits, latency as the p99 is, come at 86.  ERR, wanted
 * only when a disk has failed I/Os, comes right after the rates: the
 * 80-column line is 76 wide with it. */
const struct top_step top_dev_priority[TOP_DEV_STEPS] = {
	{ TOP_DEV_NAME, -1 }, { TOP_DEV_READ, TOP_DEV_WRITE }, { TOP_DEV_ERRORS, -1 },
	{ TOP_DEV_P99, -1 },
	{ TOP_DEV_UTIL, -1 }, { TOP_DEV_AQU_SZ, -1 }, { TOP_DEV_READ_IOPS, TOP_DEV_WRITE_IOPS },
	{ TOP_DEV_R_AWAIT, TOP_DEV_W_AWAIT }, { TOP_DEV_AVG, -1 }, { TOP_DEV_DISCARD, -1 },
	{ TOP_DEV_DISCARD_IOPS, -1 },
};

/* Add column i if it fits (always, for the first one). */
static bool take(const struct top_column *columns, unsigned int i, unsigned int cols,
		 struct top_layout *layout)
{
	unsigned int width = columns[i].width, need;

	/* A path that names the rows (--by cgroup) needs more than its least. */
	if (columns[i].wide_first && !layout->line_width && width < cols / 3)
		width = cols / 3;
	need = width + (layout->line_width ? 1 : 0);
	if (layout->line_width && cols && layout->line_width + need > cols)
		return false;
	layout->shown[i] = true;
	layout->width[i] = width;
	layout->line_width += need;
	if (cols && layout->line_width > cols) {	/* the first, cut */
		layout->width[i] = cols;
		layout->line_width = cols;
	}
	return true;
}

/* The width column i adds to the line (0 when it is shown already). */
static unsigned int need_of(const struct top_column *columns, int i,
			    const struct top_layout *layout)
{
	if (layout->shown[i])
		return 0;
	return columns[i].width + (layout->line_width ? 1 : 0);
}

/* Both columns of a step (twin < 0: one), or neither. */
static bool take_step(const struct top_column *columns, const bool *wanted, int column, int twin,
		      unsigned int cols, struct top_layout *layout)
{
	bool with_twin = twin >= 0 && wanted[twin] && !layout->shown[twin];
	bool alone = !wanted[column] || layout->shown[column];

	if (alone && !with_twin)
		return true;	/* nothing to add */
	if (with_twin && !alone && cols && layout->line_width &&
	    layout->line_width + need_of(columns, column, layout) + columns[twin].width + 1 > cols)
		return false;
	if (!alone && !take(columns, column, cols, layout))
		return false;
	return !with_twin || take(columns, twin, cols, layout);
}

/* The sort column keep, with its twin when it has one: READ/s sorts with
 * WRITE/s beside it, as everywhere. */
static void take_kept(const struct top_column *columns, const struct top_step *priority,
		      size_t nsteps, const bool *wanted, int keep, unsigned int cols,
		      struct top_layout *layout)
{
	for (size_t p = 0; p < nsteps; p++) {
		if (priority[p].column == keep || priority[p].twin == keep) {
			take_step(columns, wanted, priority[p].column, priority[p].twin, cols, layout);
			return;
		}
	}
	take(columns, keep, cols, layout);
}

void top_layout_fit(const struct top_column *columns, const struct top_step *priority,
		    size_t nsteps, size_t n, const bool *wanted, int keep, unsigned int cols,
		    struct top_layout *layout)
{
	bool first = true;

	memset(layout, 0, sizeof(*layout));
	if (keep >= 0 && ((size_t)keep >= n || !wanted[keep]))
		keep = -1;
	for (size_t p = 0; p < nsteps; p++) {
		const struct top_step *step = &priority[p];

		if (!wanted[step->column] && (step->twin < 0 || !wanted[step->twin]))
			continue;
		if (!take_step(columns, wanted, step->column, step->twin, cols, layout))
			break;
		if (first && keep >= 0 && !layout->shown[keep])
			take_kept(columns, priority, nsteps, wanted, keep, cols,
				  layout);	/* the sort column stays */
		first = false;
	}
	for (size_t i = n; i-- > 0 && cols;) {
		if (layout->shown[i] && columns[i].stretch) {
			if (layout->line_width < cols) {
				layout->width[i] += cols - layout->line_width;
				layout->line_width = cols;
			}
			break;
		}
	}
}
