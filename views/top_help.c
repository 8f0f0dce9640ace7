// SPDX-License-Identifier: GPL-2.0
/* The top view's help overlay (top_help.h). */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include "top_help.h"
#include "top_lines.h"

/* The help's lines under its title; utf8 picks the arrows' names. */
#define HELP_LINES	19
#define HELP_LINE_SIZE	96

/* The help's lines into lines; how many (the replay's keys only in a replay). */
static size_t help_lines(bool utf8, bool replay, char lines[HELP_LINES][HELP_LINE_SIZE])
{
	/* NULL: the two lines that name the arrows, written below */
	static const char *const plain[HELP_LINES] = {
		NULL,
		"  r        reverse the sort",
		"  a        accumulated: totals since start, or per-second rates",
		"  p        pause the display (counting goes on)",
		/* issue 33: c and o as iotop-c's; the filter moved to / */
		"  c        COMMAND: the name, or the whole command line",
		"  o        only processes doing I/O, or all of them",
		"  /        filter by COMMAND: type, Enter applies, Esc clears",
		"  Esc      clear the filter",
		"  d        device: all, then each in turn",
		"  L        latency columns on or off",
		"  t        a row per thread (TID), or per process, from the next interval",
		NULL,
		"  PgUp PgDn  a page up, down; Home End  the first, last row",
		"  Enter    the selected row's heaviest stack (--stacks)",
		"  f        files (--files): the selected process's, or all",
		"  [ ]      --replay: the previous, the next frame",
		"  g        --replay: go to a time (as --begin); Enter goes, Esc not",
		"  h ?      this help",
		"  q        quit",
	};
	size_t n = 0;

	for (size_t i = 0; i < HELP_LINES; i++)
		if (!plain[i] || replay || strncmp(plain[i] + 11, "--replay", 8))
			snprintf(lines[n++], HELP_LINE_SIZE, "%s", plain[i] ? plain[i] : "");
	snprintf(lines[0], HELP_LINE_SIZE, "  %s  sort by the column to the left, right",
		 utf8 ? "\u2190 \u2192 < >" : "< >     ");
	snprintf(lines[11], HELP_LINE_SIZE, "  %s  select a process row; the table scrolls",
		 utf8 ? "\u2191 \u2193 k j" : "k j    ");
	return n;
}

/*
 * The first of n lines to show page at a time, from first after the jump,
 * moves and pages the keys counted (which it uses up), never past the last
 * page.
 */
static size_t scroll_help_to(struct top_state *s, size_t first, size_t n, size_t page)
{
	long at = (long)first;
	long last = page && n > page ? (long)(n - page) : 0;

	if (s->help_jump == TOP_JUMP_FIRST)
		at = 0;
	else if (s->help_jump == TOP_JUMP_LAST)
		at = last;
	at += (long)s->help_moves + (long)s->help_pages * (long)page;
	s->help_jump = TOP_JUMP_NONE;
	s->help_moves = 0;
	s->help_pages = 0;
	if (at > last)
		at = last;
	return at < 0 ? 0 : (size_t)at;
}

/* The keys, under a title that says how to scroll and close them; when
 * they do not all fit, as many as do from where they are scrolled to, and a
 * last line saying which: "lines 1-5 of 14". */
void top_help(struct view *v, struct top_state *s, size_t *first, bool utf8)
{
	char lines[HELP_LINES][HELP_LINE_SIZE], title[64], position[48];
	size_t room, page, n = help_lines(utf8, s->replay, lines);
	unsigned int left;

	snprintf(title, sizeof(title), "Keys (%s scroll, any other key closes)",
		 utf8 ? "\u2191\u2193" : "k j");
	put_line(v, "");
	put_line(v, title);
	left = lines_left(v);
	room = left == UINT32_MAX ? n : left;
	/* a line for the position when they do not all fit */
	page = n <= room ? n : (room ? room - 1 : 0);
	*first = scroll_help_to(s, *first, n, page);
	for (size_t i = *first; i < *first + page; i++)
		put_line(v, lines[i]);
	if (page < n) {
		snprintf(position, sizeof(position), "lines %zu-%zu of %zu",
			 page ? *first + 1 : 0, *first + page, n);
		put_line(v, position);
	}
}
