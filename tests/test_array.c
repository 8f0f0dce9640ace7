// SPDX-License-Identifier: GPL-2.0
/* Unit tests of the growable-array helper (array.c). */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

#include "array.h"

Test(array, grows_from_empty_to_the_first_capacity)
{
	int *items = NULL;
	size_t capacity = 0;

	cr_assert_eq(array_reserve((void **)&items, &capacity, 1, sizeof(*items)), 0);
	cr_assert_not_null(items);
	cr_assert_eq(capacity, ARRAY_MIN_CAPACITY);
	items[capacity - 1] = 1;	/* all of it is there (ASan checks) */
	free(items);
}

Test(array, doubles_when_one_more_is_needed)
{
	int *items = NULL;
	size_t capacity = 0;

	cr_assert_eq(array_reserve((void **)&items, &capacity, 1, sizeof(*items)), 0);
	for (size_t want = 2; want <= 4 * ARRAY_MIN_CAPACITY + 1; want++) {
		size_t before = capacity;

		cr_assert_eq(array_reserve((void **)&items, &capacity, want, sizeof(*items)), 0);
		cr_assert_eq(capacity, want > before ? 2 * before : before, "%zu for %zu",
			     capacity, want);
	}
	cr_assert_eq(capacity, 8 * ARRAY_MIN_CAPACITY);
	items[capacity - 1] = 1;
	free(items);
}

Test(array, grows_to_exactly_what_is_needed_past_twice)
{
	char *items = NULL;
	size_t capacity = 0;

	cr_assert_eq(array_reserve((void **)&items, &capacity, 1000, 1), 0);
	cr_assert_eq(capacity, 1000);
	cr_assert_eq(array_reserve((void **)&items, &capacity, 5000, 1), 0);
	cr_assert_eq(capacity, 5000);
	items[4999] = 'x';
	free(items);
}

Test(array, a_limit_stops_the_doubling_not_what_is_needed)
{
	int *items = NULL;
	size_t capacity = 0;

	cr_assert_eq(array_reserve_max((void **)&items, &capacity, 1, 10, sizeof(*items)), 0);
	cr_assert_eq(capacity, 10, "the first capacity is cut to the limit");
	cr_assert_eq(array_reserve_max((void **)&items, &capacity, 11, 10, sizeof(*items)),
		     -ENOMEM, "more than the limit");
	cr_assert_eq(capacity, 10);
	cr_assert_eq(array_reserve_max((void **)&items, &capacity, 11, 15, sizeof(*items)), 0);
	cr_assert_eq(capacity, 15, "twice 10 is cut to 15");
	free(items);
}

Test(array, a_size_that_would_wrap_is_refused_untouched)
{
	int *items = malloc(4 * sizeof(*items));
	int *before = items;
	size_t capacity = 4;

	cr_assert_eq(array_reserve((void **)&items, &capacity, SIZE_MAX / sizeof(*items) + 1,
				   sizeof(*items)), -ENOMEM);
	cr_assert_eq(items, before);
	cr_assert_eq(capacity, 4);
	cr_assert_eq(array_reserve((void **)&items, &capacity, SIZE_MAX, 2), -ENOMEM);
	cr_assert_eq(items, before);
	cr_assert_eq(capacity, 4);
	free(items);
}

Test(array, room_enough_is_a_no_op)
{
	int *items = malloc(8 * sizeof(*items));
	int *before = items;
	size_t capacity = 8;

	cr_assert_eq(array_reserve((void **)&items, &capacity, 8, sizeof(*items)), 0);
	cr_assert_eq(array_reserve((void **)&items, &capacity, 0, sizeof(*items)), 0);
	cr_assert_eq(items, before);
	cr_assert_eq(capacity, 8);
	free(items);
}
