// SPDX-License-Identifier: GPL-2.0
/* Unit tests of strict UTF-8 (lib/utf8.c): each kind of ill-formed input
 * at its boundary, code points decoded, and no byte read past the length. */
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "utf8.h"

/* s, its length, and what utf8_decode() gives for it. */
static void expect(const char *s, size_t len, size_t want_len, uint32_t want_cp)
{
	uint32_t cp = 0xdeadbeef;
	size_t got = utf8_decode(s, len, &cp);

	cr_assert_eq(got, want_len, "first byte %02x, %zu bytes: length %zu, not %zu",
		     (unsigned char)s[0], len, got, want_len);
	if (want_len)
		cr_assert_eq(cp, want_cp, "U+%04X, not U+%04X", cp, want_cp);
	else
		cr_assert_eq(cp, 0xdeadbeef, "no sequence, yet a code point was written");
}

Test(utf8, each_length_at_its_smallest_and_largest)
{
	expect("\x00", 1, 1, 0);
	expect("\x7f", 1, 1, 0x7f);
	expect("\xc2\x80", 2, 2, 0x80);
	expect("\xdf\xbf", 2, 2, 0x7ff);
	expect("\xe0\xa0\x80", 3, 3, 0x800);
	expect("\xef\xbf\xbf", 3, 3, 0xffff);
	expect("\xf0\x90\x80\x80", 4, 4, 0x10000);
	expect("\xf4\x8f\xbf\xbf", 4, 4, 0x10ffff);
	expect("\xc3\xa9t\xc3\xa9", 5, 2, 0xe9);	/* only the first character */
}

Test(utf8, overlong_forms_are_refused)
{
	expect("\xc0\xaf", 2, 0, 0);		/* '/' in two bytes */
	expect("\xc1\xbf", 2, 0, 0);
	expect("\xe0\x9f\xbf", 3, 0, 0);	/* U+07FF in three */
	expect("\xf0\x8f\xbf\xbf", 4, 0, 0);	/* U+FFFF in four */
}

Test(utf8, surrogates_and_past_the_last_code_point_are_refused)
{
	expect("\xed\x9f\xbf", 3, 3, 0xd7ff);
	expect("\xed\xa0\x80", 3, 0, 0);	/* U+D800 */
	expect("\xed\xbf\xbf", 3, 0, 0);	/* U+DFFF */
	expect("\xee\x80\x80", 3, 3, 0xe000);
	expect("\xf4\x90\x80\x80", 4, 0, 0);	/* U+110000 */
	expect("\xf5\x80\x80\x80", 4, 0, 0);
	expect("\xf8\x88\x80\x80\x80", 5, 0, 0);	/* the old five-byte form */
	expect("\xff", 1, 0, 0);
}

Test(utf8, stray_continuations_and_sequences_cut_short_are_refused)
{
	expect("\x80", 1, 0, 0);
	expect("\xbf\x80", 2, 0, 0);
	expect("\xc3", 1, 0, 0);
	expect("\xc3" "A", 2, 0, 0);
	expect("\xe2\x82", 2, 0, 0);
	expect("\xe2\x82" "A", 3, 0, 0);
	expect("\xe2\x82\xc0", 3, 0, 0);
	expect("\xf0\x9f\x98", 3, 0, 0);
	expect("\xf0\x9f\x98\x00", 4, 0, 0);	/* a NUL continues nothing */
	expect("", 0, 0, 0);
}

/* The length given is the end: the bytes after it are never looked at. */
Test(utf8, nothing_is_read_past_the_length)
{
	char *euro = malloc(2);

	memcpy(euro, "\xe2\x82", 2);	/* the first two bytes of U+20AC, at a heap end */
	cr_assert_eq(utf8_decode(euro, 2, NULL), 0);
	cr_assert_eq(utf8_decode("\xe2\x82\xac", 2, NULL), 0);
	cr_assert_eq(utf8_decode("\xe2\x82\xac", 3, NULL), 3);
	free(euro);
}

Test(utf8, a_string_is_valid_when_every_sequence_is)
{
	static const char mixed[] = "disk \xc3\xa9t\xc3\xa9 \xe2\x82\xac \xf0\x9f\x92\xbe";

	cr_assert(utf8_valid("", 0));
	cr_assert(utf8_valid(mixed, strlen(mixed)));
	cr_assert(utf8_valid("a\0b", 3), "NUL is ASCII");
	cr_assert_not(utf8_valid(mixed, strlen(mixed) - 1), "its last character cut short");
	cr_assert_not(utf8_valid("caf\xe9", 4), "Latin-1");
	cr_assert_not(utf8_valid("\xed\xa0\x80\xed\xb0\x80", 6), "a surrogate pair (CESU-8)");
}
