// SPDX-License-Identifier: GPL-2.0
/* Unit tests of the sorted-array search (lib/sorted.c), checked against a
 * linear scan on every key around arrays of every small size, with
 * duplicates, and on element sizes that are not a power of two. */
#include <criterion/criterion.h>
#include <stdbool.h>
#include <stdint.h>

#include "sorted.h"

static int compare_int(const void *key, const void *element)
{
	int k = *(const int *)key, e = *(const int *)element;

	return k < e ? -1 : k > e;
}

static size_t linear_find(int key, const int *a, size_t n, bool after)
{
	size_t i = 0;

	while (i < n && (a[i] < key || (after && a[i] == key)))
		i++;
	return i;
}

Test(sorted, an_empty_array_gives_zero)
{
	int key = 5;

	cr_assert_eq(sorted_find(&key, NULL, 0, sizeof(int), compare_int), 0);
	cr_assert_eq(sorted_find_after(&key, NULL, 0, sizeof(int), compare_int), 0);
}

Test(sorted, where_a_key_is_or_belongs)
{
	static const int a[] = { 10, 20, 20, 20, 30 };
	int key;

	key = 20;
	cr_assert_eq(sorted_find(&key, a, 5, sizeof(int), compare_int), 1, "the first 20");
	cr_assert_eq(sorted_find_after(&key, a, 5, sizeof(int), compare_int), 4,
		     "one past the last 20");
	key = 25;
	cr_assert_eq(sorted_find(&key, a, 5, sizeof(int), compare_int), 4);
	cr_assert_eq(sorted_find_after(&key, a, 5, sizeof(int), compare_int), 4,
		     "so that 3, a 20, is the last at or below 25");
	key = 5;
	cr_assert_eq(sorted_find(&key, a, 5, sizeof(int), compare_int), 0);
	cr_assert_eq(sorted_find_after(&key, a, 5, sizeof(int), compare_int), 0,
		     "none at or below 5");
	key = 30;
	cr_assert_eq(sorted_find(&key, a, 5, sizeof(int), compare_int), 4);
	cr_assert_eq(sorted_find_after(&key, a, 5, sizeof(int), compare_int), 5);
	key = 99;
	cr_assert_eq(sorted_find(&key, a, 5, sizeof(int), compare_int), 5, "after them all");
}

Test(sorted, agrees_with_a_linear_scan_on_every_small_array)
{
	int a[40];

	for (size_t n = 0; n <= 40; n++) {
		/* 0, 0, 2, 2, 4, 4...: runs of two with gaps between */
		for (size_t i = 0; i < n; i++)
			a[i] = (int)(i / 2 * 2);
		for (int key = -1; key <= (int)n + 1; key++) {
			cr_assert_eq(sorted_find(&key, a, n, sizeof(int), compare_int),
				     linear_find(key, a, n, false), "n %zu, key %d", n, key);
			cr_assert_eq(sorted_find_after(&key, a, n, sizeof(int), compare_int),
				     linear_find(key, a, n, true), "n %zu, key %d (after)", n,
				     key);
		}
	}
}

/* An element of 12 bytes keyed by its middle field, as a struct of a caller is. */
struct record {
	uint32_t before;
	uint32_t key;
	uint32_t after;
};

static int compare_record(const void *key, const void *element)
{
	uint32_t k = *(const uint32_t *)key;
	const struct record *r = element;

	return k < r->key ? -1 : k > r->key;
}

Test(sorted, elements_of_any_size)
{
	struct record r[7];
	uint32_t key;

	for (uint32_t i = 0; i < 7; i++)
		r[i] = (struct record){ .before = UINT32_MAX, .key = 100 * i, .after = 0 };
	key = 300;
	cr_assert_eq(sorted_find(&key, r, 7, sizeof(*r), compare_record), 3);
	key = 301;
	cr_assert_eq(sorted_find(&key, r, 7, sizeof(*r), compare_record), 4);
	cr_assert_eq(sorted_find_after(&key, r, 7, sizeof(*r), compare_record), 4);
	key = 600;
	cr_assert_eq(sorted_find_after(&key, r, 7, sizeof(*r), compare_record), 7);
}
