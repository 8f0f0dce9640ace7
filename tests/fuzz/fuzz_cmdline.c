// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for iotop's COMMAND (issue 33): a command line as a
 * process wrote it, joined and cut (cmdline.c), then escaped as the batch
 * view and the top view escape names (views/format.c).  A process chooses
 * its own argv: every byte may be hostile.
 *
 * The input: byte 0 says how many bytes of the command line the kernel did
 * not read (0-255; whole = kept + that), the rest is argv as /proc/PID/cmdline
 * and mm->arg_start hold it.  The same bytes also go to cmdline_bracketed()
 * as a name.
 *
 * Checked: the line is NUL-free and at most CMDLINE_MAX bytes and the cut
 * mark; each of its bytes before the mark is argv's, a NUL a space; it ends
 * in the mark exactly when there was more than it holds; it is valid UTF-8
 * when what it keeps of argv is; the batch escape is printable ASCII with
 * no space, and undoing its \xHH gives the line back; the top view's
 * escape never has a control byte (nor any byte above ASCII outside a
 * UTF-8 locale).
 */
#define _GNU_SOURCE
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmdline.h"
#include "fuzz_util.h"
#include "utf8.h"
#include "view.h"

static const size_t cut_len = sizeof(CMDLINE_CUT) - 1;

static bool ends_with_cut(const char *line, size_t len)
{
	return len >= cut_len && !memcmp(line + len - cut_len, CMDLINE_CUT, cut_len);
}

static void check_batch(const char *line, size_t len)
{
	char *text = NULL, decoded[CMDLINE_SIZE];
	size_t text_len = 0, n = 0;
	FILE *f = open_memstream(&text, &text_len);

	FUZZ_CHECK(f != NULL, "open_memstream");
	batch_write_name(f, line, len);
	fclose(f);
	if (!len) {
		FUZZ_CHECK(!strcmp(text, "-"), "an empty line is '-', not '%s'", text);
		free(text);
		return;
	}
	for (size_t i = 0; i < text_len; i++) {
		unsigned char c = text[i];

		FUZZ_CHECK(c > 0x20 && c < 0x7f, "byte 0x%02x in a batch field", c);
		if (c == '\\') {
			unsigned int byte;

			FUZZ_CHECK(i + 3 < text_len + 0 && sscanf(text + i + 1, "x%2x", &byte) == 1,
				   "a backslash that is no \\xHH at %zu", i);
			decoded[n++] = (char)byte;
			i += 3;
		} else {
			decoded[n++] = (char)c;
		}
		FUZZ_CHECK(n <= len, "the field decodes longer than the line");
	}
	FUZZ_CHECK(n == len && !memcmp(decoded, line, len), "the field does not decode to the line");
	free(text);
}

static void check_terminal(const char *line, size_t len, bool utf8)
{
	static char shown[PRINTABLE_SIZE(CMDLINE_SIZE)];

	printable_name(shown, sizeof(shown), line, len, utf8);
	for (size_t i = 0; shown[i]; i++) {
		unsigned char c = shown[i];

		FUZZ_CHECK(c >= 0x20 && c != 0x7f, "control byte 0x%02x for the terminal", c);
		FUZZ_CHECK(utf8 || c < 0x80, "byte 0x%02x outside a UTF-8 locale", c);
		/* C1 controls as UTF-8 (U+0080-U+009F: 0xc2 0x80-0x9f) */
		FUZZ_CHECK(!(c == 0xc2 && (unsigned char)shown[i + 1] >= 0x80 &&
			     (unsigned char)shown[i + 1] <= 0x9f), "a C1 control for the terminal");
	}
	FUZZ_CHECK(!utf8 || utf8_valid(shown, strlen(shown)), "not UTF-8 for the terminal");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char line[CMDLINE_SIZE];
	const char *args;
	size_t len, whole, joined, content, kept;
	bool more;

	if (!size)
		return 0;
	args = (const char *)data + 1;
	len = size - 1;
	whole = len + data[0];
	joined = cmdline_join(args, len, whole, line);
	FUZZ_CHECK(joined == strlen(line), "a NUL inside the line, or a wrong length");
	FUZZ_CHECK(joined <= CMDLINE_MAX + cut_len, "%zu bytes", joined);

	content = len;
	while (content && !args[content - 1])
		content--;
	more = content > CMDLINE_MAX || (whole > len && whole - len > 1);
	if (!content) {
		FUZZ_CHECK(joined == 0, "no argument, but '%s'", line);
	} else {
		FUZZ_CHECK(ends_with_cut(line, joined) == more || (!more && content >= cut_len &&
							ends_with_cut(args, content)),
			   "the mark %s there was more", more ? "missing where" : "where not");
		kept = more ? joined - cut_len : joined;
		FUZZ_CHECK(kept <= CMDLINE_MAX && kept <= content, "kept %zu of %zu", kept, content);
		FUZZ_CHECK(!more ? kept == content : kept + 3 >= (content < CMDLINE_MAX ?
								  content : CMDLINE_MAX),
			   "cut %zu bytes early", content - kept);
		for (size_t i = 0; i < kept; i++)
			FUZZ_CHECK(line[i] == (args[i] ? args[i] : ' '), "byte %zu changed", i);
		if (utf8_valid(args, content < CMDLINE_MAX ? content : CMDLINE_MAX) || !more)
			FUZZ_CHECK(utf8_valid(line, joined) == utf8_valid(args, kept),
				   "the cut made or broke UTF-8");
		if (more && utf8_valid(args, kept))
			FUZZ_CHECK(utf8_valid(line, joined), "a cut line of UTF-8 is not UTF-8");
	}
	check_batch(line, joined);
	check_terminal(line, joined, true);
	check_terminal(line, joined, false);

	joined = cmdline_bracketed((const char *)data, size, line);
	FUZZ_CHECK(joined == strnlen(line, CMDLINE_SIZE) || memchr(data, 0, size),
		   "a bracketed name's length");
	FUZZ_CHECK(joined <= CMDLINE_MAX + cut_len && line[0] == '[', "'[' and at most its size");
	return 0;
}
