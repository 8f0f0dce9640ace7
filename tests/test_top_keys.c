// SPDX-License-Identifier: GPL-2.0
/* Unit tests of the top view's keys (top_keys.c): bytes in, state out, no
 * terminal. */
#include <criterion/criterion.h>
#include <string.h>
#include "top_keys.h"

static const char *const devices[] = { "loop0", "vda", "zram1" };
#define NDEVICES (sizeof(devices) / sizeof(devices[0]))

static bool feed(struct top_state *s, const char *bytes)
{
	return top_keys_feed(s, bytes, strlen(bytes), devices, NDEVICES);
}

static struct top_state fresh(void)
{
	struct top_state s;

	top_state_init(&s, SORT_BYTES, false, true, false);
	return s;
}

Test(top_keys, initial_state_follows_the_options)
{
	struct top_state s;

	top_state_init(&s, SORT_WRITE, true, false, false);
	cr_assert_eq(s.sort, SORT_WRITE);
	cr_assert(s.cumulative);
	cr_assert_not(s.reverse);
	cr_assert_not(s.paused);
	cr_assert(s.latency_columns);
	cr_assert_str_empty(s.filter);
	cr_assert_str_empty(s.device);
	top_state_init(&s, SORT_BYTES, false, false, false);
	cr_assert_eq(s.sort, SORT_BYTES);
	cr_assert_not(s.cumulative);

	/* every key of -s starts the view sorted by it, named as -s names it */
	for (size_t i = 0; i < SORT_NR_KEYS; i++) {
		top_state_init(&s, sort_keys[i].key, false, true, false);
		cr_assert_eq(s.sort, sort_keys[i].key, "-s %s", sort_keys[i].name);
	}
}

Test(top_keys, q_quits_and_what_follows_is_ignored)
{
	struct top_state s = fresh();

	feed(&s, "qr");
	cr_assert(s.quit);
	cr_assert_not(s.reverse, "a key after q was acted on");
}

Test(top_keys, arrows_and_angle_brackets_move_the_sort)
{
	static const char *const right[] = { ">", "\033[C", "\033OC", "\033[1;5C" };
	static const char *const left[] = { "<", "\033[D", "\033OD" };

	for (size_t i = 0; i < sizeof(right) / sizeof(right[0]); i++) {
		struct top_state s = fresh();

		cr_assert(feed(&s, right[i]));
		cr_assert_eq(s.sort, SORT_READ, "%zu: %d", i, s.sort);
		cr_assert_eq(s.stage, TOP_INPUT_GROUND);
	}
	for (size_t i = 0; i < sizeof(left) / sizeof(left[0]); i++) {
		struct top_state s = fresh();

		cr_assert(feed(&s, left[i]));
		cr_assert_eq(s.sort, SORT_DEVICE, "%zu: %d", i, s.sort);
	}
}

Test(top_keys, sort_moves_through_every_key_of_s_and_wraps)
{
	struct top_state s = fresh();
	bool seen[SORT_NR_KEYS] = { false };

	for (int i = 0; i < SORT_NR_KEYS; i++) {
		cr_assert_lt((unsigned int)s.sort, SORT_NR_KEYS);
		seen[s.sort] = true;
		feed(&s, ">");
	}
	cr_assert_eq(s.sort, SORT_BYTES, "a full turn comes back");
	for (int i = 0; i < SORT_NR_KEYS; i++)
		cr_assert(seen[i], "sort %s never reached", sort_key_name(i));
	s.sort = SORT_PID;
	feed(&s, "<");
	cr_assert_eq(s.sort, SORT_CGROUP, "left of the first is the last");
}

/* issue 45: errors sits where its column ERR does, after discard. */
Test(top_keys, errors_is_between_discard_and_ios)
{
	struct top_state s;

	top_state_init(&s, SORT_DISCARD, false, false, false);
	feed(&s, ">");
	cr_assert_eq(s.sort, SORT_ERRORS, "%s", sort_key_name(s.sort));
	feed(&s, ">");
	cr_assert_eq(s.sort, SORT_IOS, "%s", sort_key_name(s.sort));
}

Test(top_keys, latency_is_skipped_without_L_or_with_its_columns_off)
{
	struct top_state s;

	top_state_init(&s, SORT_DIRTY, false, false, false);
	feed(&s, "<");
	cr_assert_eq(s.sort, SORT_DISCARD_IOS, "no -L: nothing to sort on");
	s = fresh();
	s.sort = SORT_DISCARD_IOS;
	feed(&s, ">");
	cr_assert_eq(s.sort, SORT_LATENCY);
	feed(&s, "L<>");
	cr_assert_not(s.latency_columns);
	cr_assert_eq(s.sort, SORT_DIRTY, "latency columns off: skipped");
}

Test(top_keys, pid_and_comm_are_skipped_by_cgroup)
{
	struct top_state s;

	top_state_init(&s, SORT_BYTES, false, false, true);
	s.sort = SORT_CGROUP;
	feed(&s, ">");
	/* after comm come the waits' columns, a cgroup's as well */
	cr_assert_eq(s.sort, SORT_SWAPIN);
}

Test(top_keys, r_a_p_L_toggle)
{
	struct top_state s = fresh();

	cr_assert(feed(&s, "r"));
	cr_assert(s.reverse);
	cr_assert(feed(&s, "a"));
	cr_assert(s.cumulative);
	cr_assert(feed(&s, "p"));
	cr_assert(s.paused);
	cr_assert(feed(&s, "L"));
	cr_assert_not(s.latency_columns);
	/* issue 35's f: drawn at once (a replay draws nothing else until a
	 * step) */
	cr_assert(feed(&s, "f"));
	cr_assert(s.files);
	cr_assert(feed(&s, "f"));
	cr_assert_not(s.files);
	feed(&s, "rapL");
	cr_assert_not(s.reverse);
	cr_assert_not(s.cumulative);
	cr_assert_not(s.paused);
	cr_assert(s.latency_columns);
	cr_assert_not(s.quit);
}

Test(top_keys, t_toggles_threads_but_not_for_cgroup_rows)
{
	struct top_state s = fresh();

	cr_assert_not(s.threads);
	cr_assert(feed(&s, "t"));
	cr_assert(s.threads);
	cr_assert(feed(&s, "t"));
	cr_assert_not(s.threads);
	s.by_cgroup = true;
	cr_assert_not(feed(&s, "t"), "--by cgroup: rows are cgroups");
	cr_assert_not(s.threads);
}

Test(top_keys, unknown_keys_change_nothing)
{
	struct top_state s = fresh(), before = fresh();

	/* Insert, Delete, back-tab, F1, Ctrl-A..D: none of ours */
	cr_assert_not(feed(&s, "xyz1\t\001\002\004\033[2~\033[3~\033[Z\033OP"));
	/* the parser's notes of the last sequence are all that may differ */
	before.sequence_is_ss3 = s.sequence_is_ss3;
	before.sequence_number = s.sequence_number;
	before.sequence_past_number = s.sequence_past_number;
	cr_assert_eq(memcmp(&s, &before, sizeof(s)), 0);
}

Test(top_keys, help_opens_with_h_or_question_mark_and_any_other_key_closes_it)
{
	struct top_state s = fresh();

	cr_assert(feed(&s, "h"));
	cr_assert(s.help);
	cr_assert(feed(&s, "r"));
	cr_assert_not(s.help);
	cr_assert_not(s.reverse, "the key that closes the help does nothing else");
	feed(&s, "?");
	cr_assert(s.help);
	feed(&s, "q");
	cr_assert_not(s.help);
	cr_assert_not(s.quit, "q closing the help does not quit");
	feed(&s, "?\033[C");
	cr_assert_not(s.help);
	cr_assert_eq(s.sort, SORT_BYTES, "an arrow closing the help does not sort");
}

/* While the help is open, the keys that move the selection scroll it
 * instead: counted for top.c, which knows its lines; the selection stays. */
Test(top_keys, scroll_keys_scroll_the_open_help)
{
	struct top_state s = fresh();

	cr_assert(feed(&s, "h"));
	cr_assert_eq(s.help_jump, TOP_JUMP_FIRST, "the help opens at its first line");
	s.help_jump = TOP_JUMP_NONE;	/* as top.c's drawing leaves it */
	cr_assert(feed(&s, "j\033[B\033OB"));
	cr_assert(s.help, "a scroll key does not close the help");
	cr_assert_eq(s.help_moves, 3);
	cr_assert(feed(&s, "k\033[A"));
	cr_assert_eq(s.help_moves, 1);
	cr_assert(feed(&s, "\033[6~\033[6~\033[5~"));
	cr_assert_eq(s.help_pages, 1);
	cr_assert(feed(&s, "\033[F"));
	cr_assert_eq(s.help_jump, TOP_JUMP_LAST);
	cr_assert_eq(s.help_moves, 0, "End: the moves before it are void");
	cr_assert_eq(s.help_pages, 0);
	cr_assert(feed(&s, "\033[1~"));
	cr_assert_eq(s.help_jump, TOP_JUMP_FIRST, "Home");
	cr_assert(s.help);
	cr_assert_not(s.selecting, "scrolling the help selects no row");
	cr_assert_eq(s.moves, 0);
	cr_assert_eq(s.pages, 0);
	cr_assert_eq(s.jump, TOP_JUMP_NONE);

	/* held down, the counts stay bounded */
	for (int i = 0; i < 200000; i++)
		feed(&s, "j");
	cr_assert_lt(s.help_moves, 200000);

	/* another key closes it and does nothing else; q does not quit */
	cr_assert(feed(&s, "r"));
	cr_assert_not(s.help);
	cr_assert_not(s.reverse);
	feed(&s, "hq");
	cr_assert_not(s.help);
	cr_assert_not(s.quit, "q closing the help does not quit");
	/* closed, j moves the selection again */
	feed(&s, "j");
	cr_assert(s.selecting);
}

Test(top_keys, filter_is_typed_and_applied_with_enter)
{
	struct top_state s = fresh();

	cr_assert(feed(&s, "/"));
	cr_assert(s.editing);
	feed(&s, "fio");
	cr_assert_str_eq(s.edit, "fio");
	cr_assert_str_empty(s.filter, "applied only with Enter");
	feed(&s, "q<r");	/* keys are text while typing */
	cr_assert_not(s.quit);
	cr_assert_not(s.reverse);
	cr_assert_str_eq(s.edit, "fioq<r");
	feed(&s, "\177\177\177\b");
	cr_assert_str_eq(s.edit, "fi");
	feed(&s, "\001\t\xc3\xa9");	/* neither control bytes nor non-ASCII */
	cr_assert_str_eq(s.edit, "fi");
	feed(&s, "\033[C");		/* arrows do not type */
	cr_assert_str_eq(s.edit, "fi");
	cr_assert_eq(s.sort, SORT_BYTES);
	feed(&s, "\r");
	cr_assert_not(s.editing);
	cr_assert_str_eq(s.filter, "fi");
	feed(&s, "/");
	cr_assert_str_eq(s.edit, "fi", "the editor starts from the filter");
	feed(&s, "o\n");
	cr_assert_str_eq(s.filter, "fio", "newline applies too");
}

Test(top_keys, filter_holds_at_most_a_comm)
{
	struct top_state s = fresh();

	feed(&s, "/0123456789abcdefghij\r");
	cr_assert_str_eq(s.filter, "0123456789abcde");
	cr_assert_eq(strlen(s.filter), TOP_FILTER_MAX);
	feed(&s, "/");
	feed(&s, "\177\177\177\177\177\177\177\177\177\177\177\177\177\177\177\177\177\r");
	cr_assert_str_empty(s.filter, "backspace past the start");
}

Test(top_keys, esc_in_the_editor_cancels_and_clears)
{
	struct top_state s = fresh();

	feed(&s, "/dd\r");
	cr_assert_str_eq(s.filter, "dd");
	feed(&s, "/xyz");
	cr_assert(feed(&s, "\033"));
	cr_assert_not(s.editing);
	cr_assert_str_empty(s.filter);
}

Test(top_keys, esc_clears_the_filter)
{
	struct top_state s = fresh();

	feed(&s, "/dd\r");
	cr_assert(feed(&s, "\033"));
	cr_assert_str_empty(s.filter);
	cr_assert_not(feed(&s, "\033"), "nothing to clear: no redraw");
}

Test(top_keys, esc_then_a_key_in_one_read_is_both)
{
	struct top_state s = fresh();

	feed(&s, "/dd\r");
	feed(&s, "\033r");
	cr_assert_str_empty(s.filter);
	cr_assert(s.reverse);
}

Test(top_keys, a_sequence_split_across_reads_is_one_key)
{
	struct top_state s = fresh();

	cr_assert_not(feed(&s, "\033["));
	cr_assert_eq(s.stage, TOP_INPUT_SEQUENCE);
	cr_assert(feed(&s, "C"));
	cr_assert_eq(s.sort, SORT_READ);
	cr_assert_eq(s.stage, TOP_INPUT_GROUND);
	cr_assert_not(feed(&s, "\033[1;"));
	feed(&s, "5D");
	cr_assert_eq(s.sort, SORT_BYTES);
}

Test(top_keys, d_cycles_all_each_device_all)
{
	struct top_state s = fresh();

	cr_assert_str_empty(s.device);
	for (size_t i = 0; i < NDEVICES; i++) {
		cr_assert(feed(&s, "d"));
		cr_assert_str_eq(s.device, devices[i]);
	}
	feed(&s, "d");
	cr_assert_str_empty(s.device);
	/* a device no longer listed: back to all */
	snprintf(s.device, sizeof(s.device), "gone");
	feed(&s, "d");
	cr_assert_str_empty(s.device);
	/* no devices at all */
	cr_assert(top_keys_feed(&s, "d", 1, NULL, 0));
	cr_assert_str_empty(s.device);
}

Test(top_keys, up_down_and_k_j_count_moves_after_the_first_shows_the_selection)
{
	struct top_state s = fresh();

	cr_assert(feed(&s, "\033[B"));
	cr_assert(s.selecting);
	cr_assert_eq(s.moves, 0, "the first arrow only shows the selection");
	feed(&s, "\033[Bj");
	cr_assert_eq(s.moves, 2);
	feed(&s, "k\033OA\033[A");
	cr_assert_eq(s.moves, -1);
	cr_assert_eq(s.sort, SORT_BYTES, "up and down do not sort");
	s = fresh();
	feed(&s, "k");
	cr_assert(s.selecting);
	cr_assert_eq(s.moves, 0);
}

Test(top_keys, page_keys_home_and_end_count_pages_and_jumps)
{
	/* the sequences of xterm, the Linux console, rxvt and tmux */
	static const char *const page_down[] = { "\033[6~", "\033[6;5~" };
	static const char *const page_up[] = { "\033[5~" };
	static const char *const home[] = { "\033[H", "\033OH", "\033[1~", "\033[7~" };
	static const char *const end[] = { "\033[F", "\033OF", "\033[4~", "\033[8~" };
	struct top_state s = fresh();

	for (size_t i = 0; i < sizeof(page_down) / sizeof(page_down[0]); i++) {
		s = fresh();
		cr_assert(feed(&s, page_down[i]), "%zu", i);
		cr_assert(s.selecting, "a page key shows the selection");
		cr_assert_eq(s.pages, 1, "%zu", i);
		cr_assert_eq(s.stage, TOP_INPUT_GROUND);
	}
	s = fresh();
	feed(&s, page_up[0]);
	feed(&s, page_up[0]);
	cr_assert_eq(s.pages, -2);
	for (size_t i = 0; i < sizeof(home) / sizeof(home[0]); i++) {
		s = fresh();
		feed(&s, "jjj\033[6~");
		cr_assert(feed(&s, home[i]), "%zu", i);
		cr_assert_eq(s.jump, TOP_JUMP_FIRST, "%zu", i);
		cr_assert_eq(s.moves, 0, "Home forgets the moves before it");
		cr_assert_eq(s.pages, 0);
		feed(&s, "j");
		cr_assert_eq(s.moves, 1, "moves after Home count from the first row");
	}
	for (size_t i = 0; i < sizeof(end) / sizeof(end[0]); i++) {
		s = fresh();
		cr_assert(feed(&s, end[i]), "%zu", i);
		cr_assert_eq(s.jump, TOP_JUMP_LAST, "%zu", i);
		cr_assert(s.selecting);
	}
	/* split across reads, as a slow terminal may send it */
	s = fresh();
	feed(&s, "\033[");
	feed(&s, "6");
	cr_assert_eq(s.pages, 0);
	feed(&s, "~");
	cr_assert_eq(s.pages, 1);
	/* not while the filter is typed: the editor takes no sequences */
	s = fresh();
	feed(&s, "/\033[6~\033[F");
	cr_assert_eq(s.pages, 0);
	cr_assert_eq(s.jump, TOP_JUMP_NONE);
	cr_assert(s.editing);
}

Test(top_keys, enter_opens_the_stack_and_any_key_closes_it)
{
	struct top_state s = fresh();

	cr_assert(feed(&s, "\r"));
	cr_assert(s.stack);
	cr_assert(s.selecting, "Enter without a selection: the first row's");
	cr_assert(feed(&s, "r"));
	cr_assert_not(s.stack);
	cr_assert_not(s.reverse, "the key that closes the overlay does nothing else");
	feed(&s, "\n");
	cr_assert(s.stack);
	feed(&s, "q");
	cr_assert_not(s.stack);
	cr_assert_not(s.quit, "q closing the overlay does not quit");
	feed(&s, "\r\033[B");
	cr_assert_not(s.stack);
	cr_assert_eq(s.moves, 0, "an arrow closing the overlay does not move");
	feed(&s, "/ab\r");
	cr_assert_not(s.stack, "Enter in the filter's editor applies the filter");
	cr_assert_str_eq(s.filter, "ab");
}

/* ---- issue 33: c and o as iotop-c's, the filter on / ---- */

Test(top_keys, c_toggles_the_command_line_and_o_the_idle_processes)
{
	struct top_state s = fresh();

	cr_assert_not(s.command_line, "COMMAND is the comm at start");
	cr_assert(s.only, "only rows with I/O at start, as before");
	cr_assert(feed(&s, "c"));
	cr_assert(s.command_line);
	cr_assert_not(s.editing, "c no longer opens the filter");
	cr_assert(feed(&s, "c"));
	cr_assert_not(s.command_line);
	cr_assert(feed(&s, "o"));
	cr_assert_not(s.only);
	cr_assert(feed(&s, "o"));
	cr_assert(s.only);
	/* typed into the filter they are text */
	feed(&s, "/co\r");
	cr_assert_str_eq(s.filter, "co");
	cr_assert_not(s.command_line);
	cr_assert(s.only);
}

Test(top_keys, c_and_o_do_nothing_for_rows_of_cgroups)
{
	struct top_state s;

	top_state_init(&s, SORT_CGROUP, false, false, true);
	cr_assert_not(feed(&s, "c"), "a cgroup's row has no command line");
	cr_assert_not(s.command_line);
	cr_assert_not(feed(&s, "o"), "nor processes to list idle");
	cr_assert(s.only);
	cr_assert(feed(&s, "/x\r"), "the filter still opens");
	cr_assert_str_eq(s.filter, "x");
}

Test(top_keys, c_and_o_close_an_overlay_first)
{
	struct top_state s = fresh();

	feed(&s, "h");
	cr_assert(feed(&s, "c"));
	cr_assert_not(s.help);
	cr_assert_not(s.command_line, "the key that closes the help does nothing else");
	feed(&s, "ho");
	cr_assert(s.only);
}

/* issue 36: in a replay, [ and ] count frames back and on, g takes a time
 * (Enter asks for it, Esc leaves it); in a live run they do nothing. */
Test(top_keys, a_replay_steps_frames_and_goes_to_a_time)
{
	struct top_state s = fresh();

	cr_assert_not(feed(&s, "[]g"), "not in a live run");
	cr_assert_eq(s.frame_steps, 0);
	cr_assert_not(s.going);
	s.replay = true;
	cr_assert(feed(&s, "]]]["));
	cr_assert_eq(s.frame_steps, 2);
	cr_assert(feed(&s, "g03:0x\x7f" "0"));
	cr_assert(s.going);
	cr_assert_str_eq(s.go, "03:00");
	cr_assert_not(s.go_asked);
	cr_assert(feed(&s, "\r"));
	cr_assert_not(s.going);
	cr_assert(s.go_asked);
	cr_assert_str_eq(s.go, "03:00");
	s.go_asked = false;
	cr_assert(feed(&s, "g-2h\033[A"), "an arrow is not typed into the time");
	cr_assert_str_eq(s.go, "-2h");
	cr_assert(feed(&s, "\033"));
	cr_assert_not(s.going);
	cr_assert_not(s.go_asked, "Esc goes nowhere");
	cr_assert_not(s.quit);
}
