/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The binary search of a sorted array, written once: bsearch() says only
 * whether a key is there, while callers want where it is or belongs (to
 * insert it), or the last element at or before it (the symbol, the
 * mapping, the table entry holding an address).
 */
#ifndef DISKIO_SORTED_H
#define DISKIO_SORTED_H

#include <stddef.h>

/* As bsearch()'s: negative when key comes before element, 0 when equal,
 * positive after.  The array is sorted in the order it gives. */
typedef int (*sorted_compare_fn)(const void *key, const void *element);

/*
 * The index of the first of base's count elements of size bytes that key
 * is not after: where an element equal to key is, else where key would be
 * inserted (count when it comes after them all).
 */
size_t sorted_find(const void *key, const void *base, size_t count, size_t size,
		   sorted_compare_fn compare);

/*
 * The index of the first element key comes before: one past the last
 * element at or before key, so that index - 1 is that element when the
 * index is not 0 (the symbol whose start is the last at or below an
 * address).
 */
size_t sorted_find_after(const void *key, const void *base, size_t count, size_t size,
			 sorted_compare_fn compare);

#endif /* DISKIO_SORTED_H */
