// SPDX-License-Identifier: GPL-2.0
/* Unit tests of the string pool (lib/strpool.c): offsets that survive the
 * pool's moves, names cut with "...", and a pool taken trimmed. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "strpool.h"

Test(strpool, offsets_stay_valid_as_the_pool_grows)
{
	struct strpool p = { 0 };
	uint32_t offsets[1000];
	char name[32];
	char *bytes;

	for (int i = 0; i < 1000; i++) {
		int len = snprintf(name, sizeof(name), "function_%d", i);

		cr_assert(strpool_add(&p, name, (size_t)len, &offsets[i]));
	}
	cr_assert_eq(offsets[0], 0);
	bytes = strpool_take(&p);
	cr_assert_null(p.bytes, "taken: the pool is empty again");
	cr_assert_eq(p.len, 0);
	for (int i = 0; i < 1000; i++) {
		snprintf(name, sizeof(name), "function_%d", i);
		cr_assert_str_eq(bytes + offsets[i], name);
	}
	free(bytes);
}

Test(strpool, only_len_bytes_are_taken_and_empty_strings_have_their_own_offset)
{
	struct strpool p = { 0 };
	uint32_t a, b, c;

	cr_assert(strpool_add(&p, "", 0, &a));
	cr_assert(strpool_add(&p, "libc.so.6 (deleted)", 9, &b));
	cr_assert(strpool_add(&p, "", 0, &c));
	cr_assert_eq(a, 0);
	cr_assert_eq(b, 1);
	cr_assert_eq(c, 11);
	cr_assert_eq(p.len, 12);
	cr_assert_str_eq(p.bytes + a, "");
	cr_assert_str_eq(p.bytes + b, "libc.so.6");
	cr_assert_str_eq(p.bytes + c, "");
	strpool_free(&p);
	cr_assert_null(p.bytes);
}

Test(strpool, long_names_are_cut_and_marked)
{
	struct strpool p = { 0 };
	uint32_t exact, cut, nothing;

	cr_assert(strpool_add_cut(&p, "abcdefgh", 8, 8, &exact));
	cr_assert(strpool_add_cut(&p, "abcdefghi", 9, 8, &cut));
	cr_assert(strpool_add_cut(&p, "abc", 3, 0, &nothing));
	cr_assert_str_eq(p.bytes + exact, "abcdefgh", "no longer than max: kept whole");
	cr_assert_str_eq(p.bytes + cut, "abcdefgh...");
	cr_assert_str_eq(p.bytes + nothing, "...");
	cr_assert_eq(p.len, 9 + 12 + 4);
	strpool_free(&p);
}

/* Offsets are 32 bits: a pool that would pass them refuses, unchanged. */
Test(strpool, a_pool_that_would_pass_4_gib_refuses)
{
	struct strpool p = { .len = UINT32_MAX - 4 };
	uint32_t offset = 7;

	cr_assert_not(strpool_add(&p, "abcd", 4, &offset));
	cr_assert_eq(p.len, UINT32_MAX - 4);
	cr_assert_null(p.bytes, "nothing allocated");
	cr_assert_eq(offset, 7);
}
