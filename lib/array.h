/* SPDX-License-Identifier: GPL-2.0 */
/* Growable arrays: one rule for how every array in diskio grows. */
#ifndef DISKIO_ARRAY_H
#define DISKIO_ARRAY_H

#include <stddef.h>
#include <stdint.h>

/* The first capacity, in elements, of an array that grows from empty: a
 * power of two, so that one grown one at a time stays one (iostats.c). */
#define ARRAY_MIN_CAPACITY 16

/*
 * Room for at least needed elements of size bytes in *items, which holds
 * *capacity of them: a no-op when it already does; else the capacity grows
 * to the largest of needed, twice *capacity (so that adding one at a time
 * costs O(1) each) and ARRAY_MIN_CAPACITY, but not past limit elements.
 * 0, or -ENOMEM with *items and *capacity untouched: memory is out, needed
 * is over limit, or needed * size bytes would not fit a size_t.
 */
int array_reserve_max(void **items, size_t *capacity, size_t needed, size_t limit,
		      size_t size);

/* array_reserve_max() without a limit. */
static inline int array_reserve(void **items, size_t *capacity, size_t needed, size_t size)
{
	return array_reserve_max(items, capacity, needed, SIZE_MAX, size);
}

#endif /* DISKIO_ARRAY_H */
