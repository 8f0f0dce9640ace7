/* SPDX-License-Identifier: GPL-2.0 */
/*
 * UTF-8 as strict readers take it (RFC 3629, Unicode's table 3-7; JSON
 * parsers, Go's utf8.ValidString that Prometheus uses): no stray
 * continuation byte, no overlong form, no UTF-16 surrogate, nothing above
 * U+10FFFF, no sequence cut short.  One rule for every writer of names
 * other programs read (JSON strings, folded lines, Prometheus labels).
 */
#ifndef DISKIO_UTF8_H
#define DISKIO_UTF8_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * The length (1 to 4) of the well-formed sequence s starts with, never
 * reading past s[len - 1], and its code point in *cp (when cp is not
 * NULL: a width can be asked of it); 0 when s starts with none (len 0
 * included).  An ASCII byte, NUL too, is a sequence of 1.
 */
size_t utf8_decode(const char *s, size_t len, uint32_t *cp);

/* Whether s[0..len) is all well-formed sequences. */
bool utf8_valid(const char *s, size_t len);

#endif /* DISKIO_UTF8_H */
