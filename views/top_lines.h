/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The top view's lines: built cell by cell and item by item by the columns
 * their characters take on the terminal (text_columns(), view.h), and
 * written cut to the terminal's width, in place or appended, never past
 * the screen's last line.
 */
#ifndef DISKIO_TOP_LINES_H
#define DISKIO_TOP_LINES_H

#include <stdbool.h>
#include <stddef.h>
#include "view.h"

#define LINE_SIZE	4096	/* a line's bytes: wider terminals are cut there */

/* A line's text, and the terminal columns it takes (text_columns()). */
struct line {
	char text[LINE_SIZE];
	size_t len;
	size_t columns;
};

/* text added whole, or cut where the line is full, between characters. */
void line_add(struct line *l, const char *text, size_t len);
/* One cell of width columns, a space before all but the first: text cut to
 * them between characters (a wide one that would straddle the edge is left
 * out), padded with spaces to exactly width; left: text at the left. */
void line_cell(struct line *l, const char *text, unsigned int width, bool left);
/* Header items, two spaces apart, for as long as each next one fits in
 * cols (0: no limit); *full once one did not. */
void line_item(struct line *l, const char *item, unsigned int cols, bool *full);

/* How many more lines v's screen takes in this drawing; UINT32_MAX: no
 * limit (the terminal's size is not known). */
unsigned int lines_left(const struct view *v);
/* Write a line to v's screen (see put_line_marked() in top_lines.c); marked:
 * in reverse video.  false once the screen is full. */
bool put_line_marked(struct view *v, const char *text, bool marked);
bool put_line(struct view *v, const char *text);

#endif /* DISKIO_TOP_LINES_H */
