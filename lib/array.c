// SPDX-License-Identifier: GPL-2.0
/* Growable arrays (array.h). */
#include <errno.h>
#include <stdlib.h>

#include "array.h"

int array_reserve_max(void **items, size_t *capacity, size_t needed, size_t limit,
		      size_t size)
{
	size_t grown;
	void *moved;

	if (needed <= *capacity)
		return 0;
	/* Past this, the size in bytes would wrap. */
	if (size && limit > SIZE_MAX / size)
		limit = SIZE_MAX / size;
	if (needed > limit)
		return -ENOMEM;
	grown = *capacity > limit / 2 ? limit : *capacity * 2;
	if (grown < ARRAY_MIN_CAPACITY)
		grown = ARRAY_MIN_CAPACITY < limit ? ARRAY_MIN_CAPACITY : limit;
	if (grown < needed)
		grown = needed;
	moved = realloc(*items, grown * size);
	if (!moved)
		return -ENOMEM;
	*items = moved;
	*capacity = grown;
	return 0;
}
