/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Strict scanning of the lines of /proc text files (kallsyms, maps): each
 * function reads one field at *cursor and moves the cursor past it only
 * when the field is there, whole and in range, so that a parser made of
 * them refuses any line it does not fully understand.  Unlike strtoull():
 * no sign, no blanks before, no "0x", no wrapping on overflow.
 */
#ifndef DISKIO_SCAN_H
#define DISKIO_SCAN_H

#include <stdbool.h>
#include <stdint.h>

/* 1 to 16 hex digits, either case. */
bool scan_hex(const char **cursor, uint64_t *value);

/* Decimal digits, at least one, up to UINT64_MAX. */
bool scan_decimal(const char **cursor, uint64_t *value);

/* Exactly the character ch (not NUL: the end is no character). */
bool scan_char(const char **cursor, char ch);

/* Spaces and tabs, any number (none too). */
void scan_blanks(const char **cursor);

#endif /* DISKIO_SCAN_H */
