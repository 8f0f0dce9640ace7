// SPDX-License-Identifier: GPL-2.0
/* Unit tests of strict /proc text scanning (lib/scan.c): what each field
 * takes, what it refuses, and that a refusal leaves the cursor in place. */
#include <criterion/criterion.h>
#include <stdint.h>

#include "scan.h"

Test(scan, hex_takes_1_to_16_digits_of_either_case)
{
	const char *text = "ffffffff81000000 T", *s = text;
	uint64_t v = 0;

	cr_assert(scan_hex(&s, &v));
	cr_assert_eq(v, 0xffffffff81000000ull);
	cr_assert_eq(s, text + 16, "the cursor stops at the blank");
	s = "7FfE0;";
	cr_assert(scan_hex(&s, &v));
	cr_assert_eq(v, 0x7ffe0);
	cr_assert_eq(*s, ';');
	s = "0";
	cr_assert(scan_hex(&s, &v));
	cr_assert_eq(v, 0);
}

Test(scan, hex_refuses_and_leaves_the_cursor)
{
	static const char *const refused[] = {
		"", " 1", "+1", "-1", "g", "10000000000000000", /* 17 digits */
	};
	const char *s = "0x10";
	uint64_t v = 42;

	for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
		s = refused[i];
		cr_assert_not(scan_hex(&s, &v), "\"%s\"", refused[i]);
		cr_assert_eq(s, refused[i], "\"%s\": the cursor moved", refused[i]);
		cr_assert_eq(v, 42, "\"%s\": the value was written", refused[i]);
	}
	/* No "0x": the field is the 0 before it, and the x is left to refuse. */
	s = "0x10";
	cr_assert(scan_hex(&s, &v));
	cr_assert_eq(v, 0);
	cr_assert_eq(*s, 'x');
}

Test(scan, decimal_up_to_its_largest_and_no_further)
{
	const char *s = "18446744073709551615 rest";
	uint64_t v = 0;

	cr_assert(scan_decimal(&s, &v));
	cr_assert_eq(v, UINT64_MAX);
	cr_assert_str_eq(s, " rest");
	s = "18446744073709551616";
	v = 42;
	cr_assert_not(scan_decimal(&s, &v), "2^64 wraps");
	cr_assert_eq(v, 42);
	s = "";
	cr_assert_not(scan_decimal(&s, &v));
	s = "-3";
	cr_assert_not(scan_decimal(&s, &v));
	s = "007";
	cr_assert(scan_decimal(&s, &v));
	cr_assert_eq(v, 7);
}

Test(scan, a_char_and_blanks)
{
	const char *text = "-\t  x", *s = text;

	cr_assert_not(scan_char(&s, ' '));
	cr_assert_eq(s, text);
	cr_assert(scan_char(&s, '-'));
	cr_assert_eq(s, text + 1);
	scan_blanks(&s);
	cr_assert_eq(*s, 'x');
	scan_blanks(&s);
	cr_assert_eq(*s, 'x', "no blanks: nothing skipped");
	s = "";
	cr_assert_not(scan_char(&s, '\0'), "the end is no character");
}
