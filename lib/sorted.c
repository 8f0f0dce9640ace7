// SPDX-License-Identifier: GPL-2.0
/* Binary search of a sorted array (sorted.h). */
#include <stdbool.h>

#include "sorted.h"

/* The first index of an element key is not after (past_equal: that key
 * comes before); lo + (hi - lo) / 2, since (lo + hi) / 2 can wrap. */
static size_t partition_point(const void *key, const void *base, size_t count, size_t size,
			      sorted_compare_fn compare, bool past_equal)
{
	size_t lo = 0, hi = count;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int order = compare(key, (const char *)base + mid * size);

		if (order > 0 || (past_equal && order == 0))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

size_t sorted_find(const void *key, const void *base, size_t count, size_t size,
		   sorted_compare_fn compare)
{
	return partition_point(key, base, count, size, compare, false);
}

size_t sorted_find_after(const void *key, const void *base, size_t count, size_t size,
			 sorted_compare_fn compare)
{
	return partition_point(key, base, count, size, compare, true);
}
