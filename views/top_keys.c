// SPDX-License-Identifier: GPL-2.0
/* The top view's keys (top_keys.h). */
#include <string.h>
#include "top_keys.h"

#define KEY_ESC		0x1b
#define KEY_BACKSPACE	0x7f
#define KEY_CTRL_H	0x08
#define TOP_MOVES_MAX	100000

void top_state_init(struct top_state *s, enum sort_key sort, bool cumulative, bool row_latency,
		    bool by_cgroup)
{
	memset(s, 0, sizeof(*s));
	s->sort = sort;
	s->cumulative = cumulative;
	s->latency_columns = true;
	s->only = true;
	s->row_latency = row_latency;
	s->by_cgroup = by_cgroup;
}

/* Whether ←/→ stop at sort: only at columns the table can show. */
static bool sort_offered(const struct top_state *s, enum sort_key sort)
{
	if (sort == SORT_PID || sort == SORT_COMM)
		return !s->by_cgroup;
	if (sort == SORT_LATENCY)
		return s->row_latency && s->latency_columns;
	return true;
}

/* The next offered sort key to the left (step -1) or right (+1) in the
 * order of sort_keys[], wrapping. */
static void move_sort(struct top_state *s, int step)
{
	int at = 0;

	while (at < SORT_NR_KEYS && sort_keys[at].key != s->sort)
		at++;
	for (int i = 0; i < SORT_NR_KEYS; i++) {
		at = (at + step + SORT_NR_KEYS) % SORT_NR_KEYS;
		if (sort_offered(s, sort_keys[at].key)) {
			s->sort = sort_keys[at].key;
			return;
		}
	}
}

/* d: all devices, then each in turn, then all again. */
static void next_device(struct top_state *s, const char *const *devices, size_t ndevices)
{
	size_t i = 0;

	if (s->device[0]) {
		while (i < ndevices && strcmp(devices[i], s->device))
			i++;
		i++;	/* the one after the current; past the end: all */
	}
	if (i < ndevices)
		snprintf(s->device, sizeof(s->device), "%s", devices[i]);
	else
		s->device[0] = '\0';
}

/* A key while the filter is typed: printable bytes, Backspace, Enter
 * applies, Esc leaves the editor and clears the filter. */
static bool edit_key(struct top_state *s, unsigned char key)
{
	if (key == '\r' || key == '\n') {
		memcpy(s->filter, s->edit, s->edit_len + 1);
		s->editing = false;
	} else if (key == KEY_ESC) {
		s->filter[0] = '\0';
		s->editing = false;
	} else if (key == KEY_BACKSPACE || key == KEY_CTRL_H) {
		if (!s->edit_len)
			return false;
		s->edit[--s->edit_len] = '\0';
	} else if (key >= 0x20 && key < 0x7f && s->edit_len < TOP_FILTER_MAX) {
		s->edit[s->edit_len++] = key;
		s->edit[s->edit_len] = '\0';
	} else {
		return false;
	}
	return true;
}

/* issue 36: a key while g's time is typed: printable bytes, Backspace,
 * Enter asks for it, Esc leaves it. */
static bool go_key(struct top_state *s, unsigned char key)
{
	if (key == '\r' || key == '\n') {
		s->going = false;
		s->go_asked = s->go_len > 0;
	} else if (key == KEY_ESC) {
		s->going = false;
	} else if (key == KEY_BACKSPACE || key == KEY_CTRL_H) {
		if (!s->go_len)
			return false;
		s->go[--s->go_len] = '\0';
	} else if (key > 0x20 && key < 0x7f && s->go_len + 1 < sizeof(s->go)) {
		s->go[s->go_len++] = key;
		s->go[s->go_len] = '\0';
	} else {
		return false;
	}
	return true;
}

/* ↑/↓: the first shows the selection (on the first row), each next one
 * moves it by step. */
static void move_selection(struct top_state *s, int step)
{
	if (!s->selecting) {
		s->selecting = true;
		return;
	}
	/* A held key repeats: bounded, as top.c clamps to the rows anyway. */
	if (s->moves > -TOP_MOVES_MAX && s->moves < TOP_MOVES_MAX)
		s->moves += step;
}

/* Keys that only escape sequences stand for: above any byte. */
#define KEY_PAGE_UP	0x101
#define KEY_PAGE_DOWN	0x102
#define KEY_HOME	0x103
#define KEY_END		0x104

/* PgUp/PgDn: a page up or down; Home/End: the first or last row.  Each
 * shows the selection if it was not. */
static void move_page(struct top_state *s, int pages)
{
	s->selecting = true;
	if (s->pages > -TOP_MOVES_MAX && s->pages < TOP_MOVES_MAX)
		s->pages += pages;
}

static void jump(struct top_state *s, enum top_jump where)
{
	s->selecting = true;
	s->jump = where;
	s->moves = 0;
	s->pages = 0;
}

/* A count of lines or pages the help is to scroll, bounded as a held key
 * repeats (top.c clamps to the help's lines anyway). */
static void count_help_scroll(int *count, int step)
{
	if (*count > -TOP_MOVES_MAX && *count < TOP_MOVES_MAX)
		*count += step;
}

/* The help's scroll keys; false for any other key, which closes it. */
static bool scroll_help(struct top_state *s, int key)
{
	switch (key) {
	case 'k':
	case 'j':
		count_help_scroll(&s->help_moves, key == 'j' ? 1 : -1);
		return true;
	case KEY_PAGE_UP:
	case KEY_PAGE_DOWN:
		count_help_scroll(&s->help_pages, key == KEY_PAGE_DOWN ? 1 : -1);
		return true;
	case KEY_HOME:
	case KEY_END:
		s->help_jump = key == KEY_HOME ? TOP_JUMP_FIRST : TOP_JUMP_LAST;
		s->help_moves = 0;
		s->help_pages = 0;
		return true;
	}
	return false;
}

/* One key (the arrows come as '<', '>', 'k' and 'j'). */
static bool key(struct top_state *s, int key, const char *const *devices, size_t ndevices)
{
	if (s->editing)
		return edit_key(s, (unsigned char)key);
	if (s->going)
		return go_key(s, (unsigned char)key);
	if (s->help && scroll_help(s, key))
		return true;
	/* any other key closes an overlay, and does nothing else: q too */
	if (s->help || s->stack) {
		s->help = false;
		s->stack = false;
		return true;
	}
	switch (key) {
	case 'q':
		s->quit = true;
		return false;
	case '<':
		move_sort(s, -1);
		return true;
	case '>':
		move_sort(s, 1);
		return true;
	case 'r':
		s->reverse = !s->reverse;
		return true;
	case 'a':
		s->cumulative = !s->cumulative;
		return true;
	case 'p':
		s->paused = !s->paused;
		return true;
	/* issue 36: a record's frames, one back or on, and a time to go to */
	case '[':
	case ']':
		if (!s->replay)
			return false;
		if (s->frame_steps > -TOP_MOVES_MAX && s->frame_steps < TOP_MOVES_MAX)
			s->frame_steps += key == ']' ? 1 : -1;
		return true;
	case 'g':
		if (!s->replay)
			return false;
		s->going = true;
		s->go[0] = '\0';
		s->go_len = 0;
		return true;
	case '/':	/* as less and htop; c was the filter's before issue 33 */
		s->editing = true;
		memcpy(s->edit, s->filter, sizeof(s->edit));
		s->edit_len = strlen(s->edit);
		return true;
	/* issue 33: iotop-c's c and o; a cgroup's row has no command and no
	 * process to list idle */
	case 'c':
		if (s->by_cgroup)
			return false;
		s->command_line = !s->command_line;
		return true;
	case 'o':
		if (s->by_cgroup)
			return false;
		s->only = !s->only;
		return true;
	case KEY_ESC:
		if (!s->filter[0])
			return false;
		s->filter[0] = '\0';
		return true;
	case 'd':
		next_device(s, devices, ndevices);
		return true;
	case 'f':	/* issue 35 */
		s->files = !s->files;
		return true;
	case 'L':
		s->latency_columns = !s->latency_columns;
		return true;
	case 't':
		if (s->by_cgroup)	/* its rows are cgroups' */
			return false;
		s->threads = !s->threads;
		return true;
	case 'h':
	case '?':
		s->help = true;
		scroll_help(s, KEY_HOME);	/* it opens at its first line */
		return true;
	case 'k':
		move_selection(s, -1);
		return true;
	case 'j':
		move_selection(s, 1);
		return true;
	case '\r':
	case '\n':
		s->selecting = true;	/* without a selection: the first row's */
		s->stack = true;
		return true;
	case KEY_PAGE_UP:
		move_page(s, -1);
		return true;
	case KEY_PAGE_DOWN:
		move_page(s, 1);
		return true;
	case KEY_HOME:
		jump(s, TOP_JUMP_FIRST);
		return true;
	case KEY_END:
		jump(s, TOP_JUMP_LAST);
		return true;
	}
	return false;
}

/* The key a sequence's final byte (and first parameter) stands for; 0:
 * none of ours. */
static int sequence_key(const struct top_state *s, unsigned char final)
{
	switch (final) {
	case 'A':
		return 'k';
	case 'B':
		return 'j';
	case 'C':
		return '>';
	case 'D':
		return '<';
	case 'H':
		return KEY_HOME;
	case 'F':
		return KEY_END;
	case '~':
		switch (s->sequence_number) {
		case 1:
		case 7:
			return KEY_HOME;
		case 4:
		case 8:
			return KEY_END;
		case 5:
			return KEY_PAGE_UP;
		case 6:
			return KEY_PAGE_DOWN;
		}
	}
	return 0;
}

bool top_keys_feed(struct top_state *s, const char *bytes, size_t n,
		   const char *const *devices, size_t ndevices)
{
	bool changed = false;

	for (size_t i = 0; i < n && !s->quit; i++) {
		unsigned char c = bytes[i];

		switch (s->stage) {
		case TOP_INPUT_GROUND:
			if (c == KEY_ESC)
				s->stage = TOP_INPUT_ESCAPE;
			else
				changed |= key(s, c, devices, ndevices);
			break;
		case TOP_INPUT_ESCAPE:
			if (c == '[' || c == 'O') {
				s->stage = TOP_INPUT_SEQUENCE;
				s->sequence_is_ss3 = c == 'O';
				s->sequence_number = 0;
				s->sequence_past_number = false;
				break;
			}
			/* ESC then something else: the Esc key, then that key. */
			s->stage = TOP_INPUT_GROUND;
			changed |= key(s, KEY_ESC, devices, ndevices);
			i--;
			break;
		case TOP_INPUT_SEQUENCE:
			/* Parameters and intermediates (0x20-0x3f) until the final
			 * byte; only the arrows, PgUp, PgDn, Home and End mean
			 * something. */
			if (c >= 0x20 && c <= 0x3f && !s->sequence_is_ss3) {
				if (c >= '0' && c <= '9' && !s->sequence_past_number &&
				    s->sequence_number < 1000)
					s->sequence_number = s->sequence_number * 10 + (c - '0');
				else
					s->sequence_past_number = true;
				break;
			}
			s->stage = TOP_INPUT_GROUND;
			if (s->editing || s->going || !sequence_key(s, c))
				break;	/* not for the filter's or g's line editor */
			changed |= key(s, sequence_key(s, c), devices, ndevices);
			break;
		}
	}
	if (s->stage == TOP_INPUT_ESCAPE) {	/* a lone ESC: the Esc key */
		s->stage = TOP_INPUT_GROUND;
		if (!s->quit)
			changed |= key(s, KEY_ESC, devices, ndevices);
	}
	return changed;
}
