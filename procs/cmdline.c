// SPDX-License-Identifier: GPL-2.0
/* A command line as one line (cmdline.h). */
#include <string.h>
#include "cmdline.h"

/* The bytes a UTF-8 sequence that starts with lead takes; 0 for a byte
 * that starts none (ASCII, a continuation byte, 0xc0, 0xc1, 0xf5 and up). */
static size_t sequence_length(unsigned char lead)
{
	if (lead >= 0xc2 && lead <= 0xdf)
		return 2;
	if (lead >= 0xe0 && lead <= 0xef)
		return 3;
	if (lead >= 0xf0 && lead <= 0xf4)
		return 4;
	return 0;
}

/* n, less a sequence at the end of s[0..n) that its lead byte says goes on
 * past n: a character the cut would leave in part, shown as escapes. */
static size_t without_cut_character(const char *s, size_t n)
{
	for (size_t back = 1; back <= 3 && back <= n; back++) {
		unsigned char c = (unsigned char)s[n - back];

		if ((c & 0xc0) == 0x80)
			continue;	/* a continuation byte: its lead is before it */
		return sequence_length(c) > back ? n - back : n;
	}
	return n;
}

/* text[0..n) (n <= CMDLINE_MAX), then the cut mark if cut. */
static size_t finish(char out[CMDLINE_SIZE], size_t n, int cut)
{
	if (cut) {
		n = without_cut_character(out, n);
		memcpy(out + n, CMDLINE_CUT, sizeof(CMDLINE_CUT) - 1);
		n += sizeof(CMDLINE_CUT) - 1;
	}
	out[n] = '\0';
	return n;
}

size_t cmdline_join(const char *args, size_t len, size_t whole, char out[CMDLINE_SIZE])
{
	size_t n = len, kept;
	int cut;

	while (n && args[n - 1] == '\0')
		n--;
	if (!n) {
		out[0] = '\0';
		return 0;
	}
	/* More than the NUL that ends the last argument was not read. */
	cut = n > CMDLINE_MAX || (whole > len && whole - len > 1);
	kept = n < CMDLINE_MAX ? n : CMDLINE_MAX;
	for (size_t i = 0; i < kept; i++)
		out[i] = args[i] ? args[i] : ' ';
	return finish(out, kept, cut);
}

size_t cmdline_bracketed(const char *name, size_t len, char out[CMDLINE_SIZE])
{
	out[0] = '[';
	if (len + 2 > CMDLINE_MAX) {	/* no room for the ']': cut as a line is */
		memcpy(out + 1, name, CMDLINE_MAX - 1);
		return finish(out, CMDLINE_MAX, 1);
	}
	memcpy(out + 1, name, len);
	out[len + 1] = ']';
	out[len + 2] = '\0';
	return len + 2;
}
