/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The one escaping rule of the names diskio writes for programs to read
 * (batch fields, the --state file): a name (any bytes) becomes one word of
 * printable ASCII that never splits a field and reads back exactly.  Every
 * byte outside '!'..'~', the backslash, and the bytes a format reserves
 * (its separators, its quote) is written as \xHH, lower-case hex.  The
 * empty name is the caller's to spell ("-" in batch, "" in the state file).
 */
#ifndef DISKIO_ESCAPE_H
#define DISKIO_ESCAPE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* Whether byte c is written as it is; reserved: the format's own bytes. */
bool escape_keeps(unsigned char c, const char *reserved);

/* name[0..len) by the rule, to out. */
void escape_write(FILE *out, const char *name, size_t len, const char *reserved);

#endif /* DISKIO_ESCAPE_H */
