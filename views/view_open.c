// SPDX-License-Identifier: GPL-2.0
/*
 * The view on stdout, chosen from the options (view.h), and for the top
 * view the terminal under it (terminal.h): keys, resizes and the screen
 * taken and given back.
 */
#include <poll.h>
#include <stdlib.h>
#include <unistd.h>
#include "msg.h"
#include "options.h"
#include "diagnose.h"
#include "terminal.h"
#include "top.h"
#include "view.h"

/* The terminal's size, for the top view every line of it (nothing is
 * written after the last). */
void view_measure(struct view *v)
{
	if (!terminal_size(&v->screen.rows, &v->screen.cols))
		v->screen.rows = v->screen.cols = 0;
}

/* The top view, and the terminal under it. */
static int open_top(struct view *v, const struct options *opts, bool utf8, FILE *out)
{
	struct top_settings settings = {
		.interval_s = opts->interval_s,
		.sort = opts->sort,
		.cumulative = opts->cumulative,
		.per_process_latency = opts->per_process_latency,
		.by_cgroup = opts->by_cgroup,
		.threads = opts->threads,
		.utf8 = utf8,
		.replay = opts->replay_dir != NULL,
	};
	struct terminal *terminal = malloc(sizeof(*terminal));

	/* view_top() sets the whole view: the terminal joins it after. */
	if (!terminal || view_top(v, out, &settings)) {
		free(terminal);
		fail("out of memory");
		return -1;
	}
	*terminal = (struct terminal){ .keys_fd = -1, .resize_fd = -1 };
	v->terminal = terminal;
	return terminal_start(terminal, !opts->no_clear);
}

bool view_is_top(const struct options *opts)
{
	return !opts->quiet && !opts->trace && !opts->diagnose_s && opts->output == OUTPUT_AUTO &&
	       isatty(STDOUT_FILENO);
}

int view_open(struct view *v, const struct options *opts, bool utf8,
	      const struct stack_namer *stacks, diagnose_limit_fn limit_of, FILE *out)
{
	enum output_mode output = opts->output;

	if (output == OUTPUT_AUTO && !isatty(STDOUT_FILENO))
		output = OUTPUT_BATCH;
	if (opts->diagnose_s) {
		if (view_diagnose(v, out, stderr, output == OUTPUT_JSON,
				  opts->replay_dir ? 0 : opts->diagnose_s, &opts->diagnose_rules,
				  limit_of)) {
			fail("out of memory");
			return -1;
		}
	} else if (opts->quiet)
		view_quiet(v, out);
	else if (opts->trace && output == OUTPUT_JSON)
		view_trace_json(v, out);
	else if (opts->trace)
		view_trace_batch(v, out);
	else if (output == OUTPUT_JSON)
		view_json(v, out);
	else if (output == OUTPUT_BATCH)
		view_batch(v, out);
	else if (open_top(v, opts, utf8, out))	/* view_is_top() */
		return -1;
	/* issue 46: live JSON says when counting begins; a replay has no such
	 * moment (--diagnose says it its own way) */
	if (!opts->quiet && !opts->diagnose_s && !opts->replay_dir && output == OUTPUT_JSON) {
		v->start = view_json_start;
		v->interval_s = opts->interval_s;
	}
	v->screen.utf8 = utf8;
	v->screen.max_rows = opts->rows;
	v->screen.clear = !opts->no_clear;
	view_measure(v);
	v->histograms = opts->histograms;
	/* Batch and JSON print each row's stacks; the top view keeps each
	 * row's heaviest for its Enter overlay (top.c draws it itself). */
	v->stacks = stacks;
	/* The top view too: a frame reaches the terminal in one write. */
	if (!opts->quiet && (output != OUTPUT_AUTO || v->top))
		setvbuf(out, NULL, _IOFBF, 1 << 16);
	return 0;
}

size_t view_watched(const struct view *v, struct pollfd *fds, size_t max)
{
	size_t n = 0;

	if (!v->terminal || max < VIEW_MAX_WATCHED)
		return 0;
	fds[n++] = (struct pollfd){ .fd = v->terminal->keys_fd, .events = POLLIN };
	fds[n++] = (struct pollfd){ .fd = v->terminal->resize_fd, .events = POLLIN };
	return n;
}

/* The top view's keys: q ends the run as Ctrl-C does; a and t change what
 * the tally keeps for the next frames; the rest is the view's, drawn now. */
static void read_keys(struct view *v, struct view_input *in)
{
	char keys[256];
	ssize_t n = terminal_read_keys(v->terminal, keys, sizeof(keys));
	bool changed;

	if (n <= 0)
		return;		/* the terminal is gone: no more keys */
	changed = top_feed_keys(v, keys, n);
	in->cumulative = top_state(v)->cumulative;
	in->threads = top_state(v)->threads;
	in->all_processes = !top_state(v)->only;	/* issue 33: o */
	if (top_state(v)->quit)
		in->quit = true;
	else if (changed)
		top_redraw(v);
}

void view_take_input(struct view *v, const struct pollfd *fds, size_t n, struct view_input *in)
{
	in->drawn = false;
	if (n < VIEW_MAX_WATCHED)
		return;
	/* A resize first: keys then draw on the new size. */
	if (fds[1].revents) {
		terminal_resized(v->terminal);
		view_measure(v);
		top_redraw(v);
	}
	if (fds[0].revents)
		read_keys(v, in);
	in->drawn = fds[0].revents || fds[1].revents;
}

void view_close(struct view *v, bool keep_last)
{
	bool alternate = v->terminal && v->top && v->screen.clear;

	if (!v->terminal)
		return;
	terminal_stop(v->terminal);
	free(v->terminal);
	v->terminal = NULL;
	/* The sample asked for stays on the normal screen. */
	if (keep_last && alternate)
		top_leave_frame(v);
}

void view_free(struct view *v)
{
	view_close(v, false);
	view_top_free(v);
	view_diagnose_free(v);
}
