/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One view per output mode, chosen once: top (a terminal, top.h), batch
 * (awk), JSON, and trace mode's batch and JSON.  A view only writes to its FILE;
 * everything it shows comes in a frame, an event or the summary.
 */
#ifndef DISKIO_VIEW_H
#define DISKIO_VIEW_H

#include <stdbool.h>
#include <stdio.h>
#include "frame.h"
#include "jsonw.h"
#include "stacks.h"

/* The version of the JSON records' layout ("schema" of interval and summary
 * records): raised when a key changes meaning or type, not when one is added. */
#define JSON_SCHEMA_VERSION 1

struct screen {
	unsigned int rows, cols;	/* of the terminal, 0: unknown */
	unsigned int max_rows;		/* -r, 0: no limit (but the terminal's) */
	bool clear;			/* redraw in place */
	bool utf8;			/* the locale's characters are UTF-8 */
};

/* When an event happened: as seconds since diskio started (trace lines) and
 * as the wall clock (JSON records' time and ts). */
struct event_time {
	double since_start_s;
	struct timespec wall;		/* CLOCK_REALTIME */
};

struct top;
struct diagnose_view;

/*
 * --diagnose (diagnose.h): where a process's cgroup limits its I/O to disk
 * dev (MKDEV): 1 with text, 0 none; the run's (procs/io_limits.h), none in
 * a replay.
 */
typedef int (*diagnose_limit_fn)(uint32_t pid, uint32_t dev, char *text, size_t size);
struct terminal;
struct options;
struct pollfd;

struct view {
	/* Once, before the first interval (a columns line, a cleared screen). */
	void (*start)(struct view *v);
	/* Each interval: begin, every device, every row, interval_end; begin,
	 * device and row may be NULL. */
	void (*begin)(struct view *v, const struct frame *f);
	void (*device)(struct view *v, const struct frame *f, const struct pmem_device *dev);
	void (*row)(struct view *v, const struct frame *f, const struct proc_io *row);
	void (*interval_end)(struct view *v, const struct frame *f);
	/* As they arrive (trace mode); NULL where the frame lists them. */
	void (*io_event)(struct view *v, const struct block_io_event *e, const char *device,
			 const struct event_time *when);
	void (*crash_event)(struct view *v, const struct crash_event *e,
			    const struct event_time *when);
	/* Once, at exit. */
	void (*summary)(struct view *v, const struct summary *s);

	FILE *out;
	struct screen screen;		/* set before each frame (max_rows: every view) */
	bool histograms;		/* --histogram: each device's latency histograms */
	/* --stacks: rows' top stacks and how their frames are named; NULL without */
	const struct stack_namer *stacks;
	struct jsonw json;
	char host[65];			/* JSON views: the node name, from uname();
					 * a replay: the recorded run's */
	char record_filter[256];	/* a replay: the recorded run's filter, "" none */
	double record_interval_s;	/* a replay: the recorded run's interval; 0 live */
	double interval_s;		/* live JSON: INTERVAL, for the start record */
	/* a replay: the gap in the record before the frame (ns since the
	 * epoch; to 0: none), which the top view's header says */
	uint64_t record_gap_from_ns, record_gap_to_ns;
	/* state within a frame */
	char when[32];			/* the frame's time, as batch lines show it */
	unsigned int lines, rows_shown;
	unsigned int rows_cut;		/* batch, JSON: rows beyond -r, not shown */
	bool rows_begun;
	struct top *top;		/* the top view's own state (top.h) */
	struct diagnose_view *diagnose;	/* --diagnose's (diagnose.h) */
	/* view_open()'s: the terminal under the top view */
	struct terminal *terminal;
};

void view_batch(struct view *v, FILE *out);
void view_json(struct view *v, FILE *out);
void view_trace_batch(struct view *v, FILE *out);
void view_trace_json(struct view *v, FILE *out);
/* --quiet: shows nothing (a service writing --prom or --state files). */
void view_quiet(struct view *v, FILE *out);

/*
 * view_open.c: the view the options ask for, writing to out, a stream over
 * stdout (the top view when stdout is a terminal, taking it), with stacks
 * named by stacks (NULL: none); with --diagnose, limit_of finds a cgroup's
 * I/O limit (NULL: not known, a replay).  0, or -1 after one "diskio: ..."
 * line.
 */
int view_open(struct view *v, const struct options *opts, bool utf8,
	      const struct stack_namer *stacks, diagnose_limit_fn limit_of, FILE *out);
/* Whether view_open() takes the terminal for the top view (stdout a
 * terminal, none of -b, --json, -q, -T): what a replay must know before it
 * draws anything. */
bool view_is_top(const struct options *opts);
/* The terminal's size into v->screen (0 x 0 when stdout is none). */
void view_measure(struct view *v);
/* At most this many descriptors a view wants watched (the top view: its
 * keys and its resizes). */
#define VIEW_MAX_WATCHED 2

/* What the user asked for through the view since the last call: the run
 * applies it (the view only draws). */
struct view_input {
	bool quit;		/* q */
	bool cumulative;	/* a: what the next frames are to keep */
	bool threads;		/* t: rows per thread from now on */
	bool all_processes;	/* o off (issue 33): the idle processes too */
	bool drawn;		/* a key or a resize was drawn: write it out */
};

/* The descriptors the view wants watched while the run waits for events,
 * into fds (max at least VIEW_MAX_WATCHED); how many (0: none). */
size_t view_watched(const struct view *v, struct pollfd *fds, size_t max);
/* After poll() on view_watched()'s n descriptors: keys and resizes are
 * drawn at once, and what the keys ask for goes into in (quit, cumulative
 * and threads left as they were unless a key changed them). */
void view_take_input(struct view *v, const struct pollfd *fds, size_t n, struct view_input *in);
/* Give the terminal back (the summary goes to the normal screen);
 * keep_last (the run ended after COUNT intervals): the top view's last
 * frame is left on it first.  Idempotent. */
void view_close(struct view *v, bool keep_last);
void view_free(struct view *v);

/* Show a frame: begin, the devices, the rows, interval_end. */
void view_show_frame(struct view *v, const struct frame *f);

/* The summary as batch lines and as a JSON record (the trace views use them too). */
void view_batch_summary(struct view *v, const struct summary *s);
/* Live JSON (intervals and trace mode): {"type":"start",…} as counting
 * begins, the record a script waits for before it starts its workload. */
void view_json_start(struct view *v);
void view_json_summary(struct view *v, const struct summary *s);

/* A name as one awk field: bytes <= 0x20 (space, tab, newline...), 0x7f,
 * >= 0x80 and backslash become \xHH; an empty name is "-". */
void batch_write_name(FILE *out, const char *name, size_t len);
/* "pid=N comm=NAME signal=SIGSEGV core_dumped=0\n" of a "# crash-event" line. */
void batch_write_crash_event(FILE *out, const struct crash_event *e);
/* A biolatency-style histogram of dev's latency of op (IO_READ...), '#'
 * lines: a title, then one line per slot from the first to the last that
 * holds completions.  Nothing for an empty histogram. */
void batch_write_histogram(FILE *out, const struct pmem_device *dev, unsigned int op,
			   bool cumulative);
/* " lost=N lost_<cause>=N ..." */
void batch_write_lost(FILE *out, const uint64_t lost[LOST_NR_CAUSES]);
/* "lost":{"events":N,"by_cause":{...}} */
void json_write_lost(struct jsonw *w, const uint64_t lost[LOST_NR_CAUSES]);

/* issue 45: key:{"some":…,"full":…} in percent, two decimals, or key:null
 * when not known: the machine's pressure, a row's cgroup's. */
void json_write_pressure(struct jsonw *w, const char *key, const struct pressure_share *p);

/* {"pid":…,"comm":…,"signal":"SIGSEGV","core_dumped":false} as member key. */
void json_write_crash_event(struct jsonw *w, const char *key, const struct crash_event *e);

/*
 * A name (len bytes, any) as the top view shows it, into buf: with utf8 (a
 * UTF-8 locale), valid UTF-8 characters that wcwidth() finds printable stay
 * as written; without, printable ASCII does; every other byte becomes \xHH,
 * so that a process cannot send control sequences (C0, or C1 such as 0x9b
 * CSI, raw or UTF-8 encoded) to the terminal by naming itself.  An empty
 * name is "-".  Cut to size at a whole character or escape.  Returns buf.
 */
char *printable_name(char *buf, size_t size, const char *name, size_t len, bool utf8);
/* A buffer that holds printable_name() of len bytes whole. */
#define PRINTABLE_SIZE(len) (4 * (len) + 1)
/* The columns text[0..len) takes on a terminal: each character its
 * wcwidth() under a UTF-8 locale (a CJK one 2, a combining one 0), a byte
 * that is no printable character 1, as a terminal's replacement mark. */
size_t text_columns(const char *text, size_t len);
/* The length of the longest start of text[0..len) that takes at most cols
 * columns, cut between characters (with the characters of no width that
 * follow it); its columns in *columns unless NULL. */
size_t text_fitting(const char *text, size_t len, size_t cols, size_t *columns);
/* "SIGSEGV" for the signals that make a crash, "SIG<n>" otherwise. */
const char *signal_name(uint32_t sig, char *buf, size_t size);
/* "1h", "30m", "90s": an interval for people. */
void format_duration(char *buf, size_t size, uint64_t seconds);
/* "1.5 MiB": bytes for people. */
void format_bytes(char *buf, size_t size, double bytes);
/* "2026-11-22T08:00:01.250Z": RFC 3339, UTC, milliseconds (truncated). */
void format_utc(char *buf, size_t size, const struct timespec *when);
/* Milliseconds since the epoch (truncated, as format_utc() shows them). */
uint64_t epoch_millis(const struct timespec *when);

/* The first members of every JSON record: "type", then with host (interval
 * and summary records) "schema" and "host", then "time" (format_utc()) and
 * "ts" (epoch seconds with milliseconds, the same instant). */
void json_write_record_head(struct jsonw *w, const char *type, const struct timespec *when,
			    const char *host);

/* v->host: the node name (uname()), as the JSON views' records carry it. */
void view_init_host(struct view *v);

/* How many of the frame's rows a view with -r ROWS (max_rows, 0: all) shows. */
size_t frame_rows_shown(const struct frame *f, unsigned int max_rows);

/*
 * The crash-free line for people, e.g. "crash-free 3 of 4 hours · 1 crash
 * (myapp)" or "crash-free 0 of 0 hours · no crashes"; with utf8 false the dot
 * is a '-'.  The unit is the crash interval's (hours, days, minutes, or
 * "intervals of 90s"); names of crashed processes are shown by
 * printable_name() with the same utf8, as many as fit.  Returns buf.
 */
char *format_crash_line(char *buf, size_t size, const struct crashfree *crash, bool utf8);

/* Whether the user's locale (LC_ALL, LC_CTYPE, LANG) uses UTF-8: setlocale()
 * and nl_langinfo(CODESET), then LC_CTYPE back to "C" as diskio runs. */
bool locale_is_utf8(void);

#endif /* DISKIO_VIEW_H */
