// SPDX-License-Identifier: GPL-2.0
/* The top view's lines (top_lines.h). */
#include <stdint.h>
#include <string.h>
#include "top_lines.h"

/* text added whole, or cut where the line is full, between characters. */
void line_add(struct line *l, const char *text, size_t len)
{
	if (len > sizeof(l->text) - 1 - l->len) {
		len = sizeof(l->text) - 1 - l->len;
		while (len && ((unsigned char)text[len] & 0xc0) == 0x80)
			len--;
	}
	memcpy(l->text + l->len, text, len);
	l->len += len;
	l->text[l->len] = '\0';
	l->columns += text_columns(text, len);
}

/* One cell of width columns, a space before all but the first: text cut to
 * them between characters (a wide one that would straddle the edge is left
 * out), padded with spaces to exactly width. */
void line_cell(struct line *l, const char *text, unsigned int width, bool left)
{
	size_t columns, len = text_fitting(text, strlen(text), width, &columns);
	char pad[LINE_SIZE];
	size_t npad;

	if (l->len)
		line_add(l, " ", 1);
	npad = width - columns < sizeof(pad) ? width - columns : sizeof(pad) - 1;
	memset(pad, ' ', npad);
	if (!left)
		line_add(l, pad, npad);
	line_add(l, text, len);
	if (left)
		line_add(l, pad, npad);
}

/* Header items, two spaces apart, for as long as each next one fits. */
void line_item(struct line *l, const char *item, unsigned int cols, bool *full)
{
	size_t len = strlen(item), need = text_columns(item, len) + (l->len ? 2 : 0);

	if (*full || (cols && l->len && l->columns + need > cols)) {
		*full = true;
		return;
	}
	if (l->len)
		line_add(l, "  ", 2);
	line_add(l, item, len);
}

/* The number of lines the screen holds; 0: no limit. */
static unsigned int screen_lines(const struct view *v)
{
	if (!v->screen.rows)
		return 0;
	/* Appended frames end with a newline and an empty line. */
	return v->screen.clear ? v->screen.rows : (v->screen.rows > 1 ? v->screen.rows - 1 : 1);
}

unsigned int lines_left(const struct view *v)
{
	unsigned int limit = screen_lines(v);

	if (!limit)
		return UINT32_MAX;
	return v->lines < limit ? limit - v->lines : 0;
}

/* Write a line, cut to the terminal's width between characters, by the
 * columns they take (the crash line's '\u00b7' one in two bytes, a CJK
 * name's characters two each).  In place, every line but the first starts
 * with CR LF and ends by erasing the rest of the old line; nothing is
 * written past the last line of the screen.  false once the screen is full. */
bool put_line_marked(struct view *v, const char *text, bool marked)
{
	size_t columns, len;

	if (!lines_left(v))
		return false;
	len = text_fitting(text, strlen(text), v->screen.cols ? v->screen.cols : SIZE_MAX,
			   &columns);
	if (v->screen.clear && v->lines)
		fputs("\r\n", v->out);
	if (marked)		/* reverse video, taking no column */
		fputs("\033[7m", v->out);
	fwrite(text, 1, len, v->out);
	if (marked)
		fputs("\033[m", v->out);
	/* A full line leaves the cursor at the margin, where erasing would
	 * take its last character. */
	if (v->screen.clear && (!v->screen.cols || columns < v->screen.cols))
		fputs("\033[K", v->out);
	if (!v->screen.clear)
		fputc('\n', v->out);
	v->lines++;
	return true;
}

bool put_line(struct view *v, const char *text)
{
	return put_line_marked(v, text, false);
}
