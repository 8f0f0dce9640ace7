/* SPDX-License-Identifier: GPL-2.0 */
/* A small JSON writer: keeps the comma state of nested objects and arrays,
 * and writes every string through one strict escaper. */
#ifndef DISKIO_JSONW_H
#define DISKIO_JSONW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define JSONW_MAX_DEPTH 8

struct jsonw {
	FILE *out;
	unsigned int depth;
	bool has_members[JSONW_MAX_DEPTH + 1];	/* a comma goes before the next one */
};

void jsonw_init(struct jsonw *w, FILE *out);

/* key is the member's name inside an object, NULL inside an array or for a
 * record at the top level.  A record ends with jsonw_end_record(). */
void jsonw_object(struct jsonw *w, const char *key);
void jsonw_object_end(struct jsonw *w);
void jsonw_array(struct jsonw *w, const char *key);
void jsonw_array_end(struct jsonw *w);
void jsonw_end_record(struct jsonw *w);	/* the newline after a top-level value */

void jsonw_u64(struct jsonw *w, const char *key, uint64_t value);
void jsonw_bool(struct jsonw *w, const char *key, bool value);
void jsonw_null(struct jsonw *w, const char *key);
void jsonw_string(struct jsonw *w, const char *key, const char *s, size_t len);
/* printf's %g or %.Nf of value: diskio never sets LC_NUMERIC (only
 * locale_is_utf8() looks at LC_CTYPE, and puts it back), so the decimal
 * point is always '.'. */
void jsonw_double(struct jsonw *w, const char *key, const char *format, double value);
/* A count of tenths as a decimal with one digit after the point: 521 is 52.1. */
void jsonw_tenths(struct jsonw *w, const char *key, uint64_t tenths);
/* A count of thousandths with three digits after the point: 1500 is 1.500. */
void jsonw_thousandths(struct jsonw *w, const char *key, uint64_t thousandths);

/*
 * Write @len bytes of @s as a JSON string, quotes included. '"' and '\' are
 * backslash-escaped; control bytes 0x00-0x1f and 0x7f become \u00xx;
 * well-formed UTF-8 sequences pass through unchanged; any other byte >= 0x80
 * (stray continuation byte, truncated, overlong, surrogate or > U+10FFFF
 * sequence, 0xc0/0xc1/0xf5-0xff) becomes \u00xx, i.e. it is read as Latin-1.
 * The output is therefore valid UTF-8 and valid JSON whatever the input.
 * Hex digits are lowercase. A NULL @s writes "".
 */
void json_write_string(FILE *out, const char *s, size_t len);

#endif /* DISKIO_JSONW_H */
