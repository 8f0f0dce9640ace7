// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of iotop's COMMAND (cmdline.c): argv joined by single spaces,
 * cut to CMDLINE_MAX bytes between UTF-8 characters with "…" after, and
 * the escapes each view then gives it (batch's, the top view's).
 */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>
#include "cmdline.h"
#include "utf8.h"
#include "view.h"

static size_t join(const char *args, size_t len, char out[CMDLINE_SIZE])
{
	return cmdline_join(args, len, len, out);
}

Test(cmdline, arguments_are_joined_by_single_spaces)
{
	char out[CMDLINE_SIZE];

	cr_assert_eq(join("dd\0if=/dev/zero\0of=x\0", 21, out), 20);
	cr_assert_str_eq(out, "dd if=/dev/zero of=x");
	cr_assert_eq(join("sleep\0", 6, out), 5, "the last NUL ends it");
	cr_assert_str_eq(out, "sleep");
	join("a\0\0b\0", 5, out);
	cr_assert_str_eq(out, "a  b", "an empty argument is an empty word");
	join("bash\0\0\0", 7, out);
	cr_assert_str_eq(out, "bash", "NULs at the end are dropped");
	join("postgres: writer", 16, out);
	cr_assert_str_eq(out, "postgres: writer", "a rewritten argv without its NUL");
	cr_assert_eq(join("", 0, out), 0);
	cr_assert_str_empty(out, "no argument: a kernel thread's, a zombie's");
	cr_assert_eq(join("\0\0", 2, out), 0);
}

/* "x x ... x" of n bytes joined (one-letter arguments, n odd, or a first
 * "xx"), NUL-terminated as argv is: its n + 1 bytes. */
static size_t long_args(char *buf, size_t n)
{
	for (size_t i = 0; i < n; i++)
		buf[i] = (n - 1 - i) % 2 && i ? '\0' : 'x';
	buf[n] = '\0';
	return n + 1;
}

Test(cmdline, cut_at_256_bytes_then_an_ellipsis)
{
	char args[1024], out[CMDLINE_SIZE];
	size_t n = long_args(args, 255);

	cr_assert_eq(join(args, n, out), 255, "255 bytes: whole");
	cr_assert_eq(out[254], 'x');
	n = long_args(args, 256);
	cr_assert_eq(join(args, n, out), 256, "exactly 256: whole");
	n = long_args(args, 257);
	cr_assert_eq(join(args, n, out), 256 + 3, "257: 256 and the mark");
	cr_assert_str_eq(out + 256, "\xe2\x80\xa6");
	n = long_args(args, 900);
	cr_assert_eq(join(args, n, out), 259);
	cr_assert_eq(strlen(out), 259);
}

Test(cmdline, what_was_not_read_is_marked)
{
	char out[CMDLINE_SIZE];

	/* the kernel kept 256 bytes of 300: "…" */
	char args[256];

	memset(args, 'a', sizeof(args));
	cr_assert_eq(cmdline_join(args, 256, 300, out), 259);
	cr_assert_str_eq(out + 256, "\xe2\x80\xa6");
	/* all but the NUL that ends it: nothing is missing */
	cr_assert_eq(cmdline_join("true", 4, 5, out), 4);
	cr_assert_str_eq(out, "true");
	/* an argument more: marked */
	cr_assert_eq(cmdline_join("ls\0", 3, 6, out), 2 + 3);
	cr_assert_str_eq(out, "ls\xe2\x80\xa6");
}

Test(cmdline, a_cut_never_splits_a_utf8_character)
{
	char args[300], out[CMDLINE_SIZE];

	/* 254 ASCII bytes, then a 3-byte character straddling byte 256 */
	memset(args, 'a', 254);
	memcpy(args + 254, "\xe6\x95\xb0", 3);
	memset(args + 257, 'b', 20);
	cr_assert_eq(join(args, 277, out), 254 + 3);
	cr_assert_str_eq(out + 254, "\xe2\x80\xa6", "the character goes whole");
	cr_assert(utf8_valid(out, strlen(out)));
	/* one that ends at 256 stays */
	memset(args, 'a', 253);
	memcpy(args + 253, "\xe6\x95\xb0", 3);
	cr_assert_eq(join(args, 277, out), 256 + 3);
	cr_assert_eq(memcmp(out + 253, "\xe6\x95\xb0\xe2\x80\xa6", 6), 0);
	/* bytes that are no UTF-8 are cut anywhere: each is an escape */
	memset(args, 'a', 255);
	memcpy(args + 255, "\xff\xfe", 2);
	cr_assert_eq(join(args, 277, out), 256 + 3);
	cr_assert_eq((unsigned char)out[255], 0xff);
}

Test(cmdline, a_name_in_brackets_as_ps_shows_one_without)
{
	char out[CMDLINE_SIZE], name[400];

	cr_assert_eq(cmdline_bracketed("kworker/u8:1-flush-254:0", 24, out), 26);
	cr_assert_str_eq(out, "[kworker/u8:1-flush-254:0]");
	cr_assert_eq(cmdline_bracketed("", 0, out), 2);
	cr_assert_str_eq(out, "[]");
	memset(name, 'n', sizeof(name));
	cr_assert_eq(cmdline_bracketed(name, sizeof(name), out), 256 + 3);
	cr_assert_eq(out[255], 'n');
	cr_assert_str_eq(out + 256, "\xe2\x80\xa6", "256 bytes, then the mark, as a command line");
	memset(name, 'n', 254);
	cr_assert_eq(cmdline_bracketed(name, 254, out), 256, "254 and its brackets: whole");
	cr_assert_eq(out[255], ']');
}

/* What batch writes of a command line: one awk field, every byte but
 * printable ASCII (and the backslash) as \xHH; the top view's: printable
 * UTF-8 as it is, the rest as \xHH. */
Test(cmdline, each_view_escapes_it_as_names)
{
	char out[CMDLINE_SIZE], shown[PRINTABLE_SIZE(CMDLINE_SIZE)];
	char *text = NULL;
	size_t text_len = 0;
	FILE *f;

	join("sh\0-c\0echo \xc3\xa9\x1b[2J\\\n\0", 20, out);
	f = open_memstream(&text, &text_len);
	cr_assert_not_null(f);
	batch_write_name(f, out, strlen(out));
	fclose(f);
	cr_assert_str_eq(text, "sh\\x20-c\\x20echo\\x20\\xc3\\xa9\\x1b[2J\\x5c\\x0a");
	free(text);
	printable_name(shown, sizeof(shown), out, strlen(out), true);
	cr_assert_str_eq(shown, "sh -c echo \xc3\xa9\\x1b[2J\\\\x0a");
	printable_name(shown, sizeof(shown), out, strlen(out), false);
	cr_assert_str_eq(shown, "sh -c echo \\xc3\\xa9\\x1b[2J\\\\x0a");
}
