/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A pool of NUL-terminated strings in one growing block, each referred to
 * by its 32-bit offset: thousands of symbol or file names cost one
 * allocation and no pointer each, and offsets, unlike pointers, stay
 * valid as the block moves while it grows.  Names are looked up as
 * bytes + offset once the pool is taken.
 */
#ifndef DISKIO_STRPOOL_H
#define DISKIO_STRPOOL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct strpool {
	char *bytes;
	size_t len, cap;
};

/* s[0..len) and a NUL appended at *offset; false when memory is out or
 * the pool would pass 4 GiB (where offsets end), the pool unchanged. */
bool strpool_add(struct strpool *p, const char *s, size_t len, uint32_t *offset);

/* The same, cut to its first max bytes and ending in "..." when longer:
 * a name of a file a user wrote costs at most max + 4 bytes. */
bool strpool_add_cut(struct strpool *p, const char *s, size_t len, size_t max,
		     uint32_t *offset);

/* The strings, trimmed to what they hold, now the caller's to free (NULL
 * when none was added); the pool is empty again. */
char *strpool_take(struct strpool *p);

/* Frees what was not taken. */
void strpool_free(struct strpool *p);

#endif /* DISKIO_STRPOOL_H */
