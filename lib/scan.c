// SPDX-License-Identifier: GPL-2.0
/* Strict scanning of /proc text (scan.h). */
#include "scan.h"

bool scan_hex(const char **cursor, uint64_t *value)
{
	const char *s = *cursor;
	uint64_t v = 0;
	int digits = 0;

	for (;; s++, digits++) {
		int d;

		if (*s >= '0' && *s <= '9')
			d = *s - '0';
		else if (*s >= 'a' && *s <= 'f')
			d = *s - 'a' + 10;
		else if (*s >= 'A' && *s <= 'F')
			d = *s - 'A' + 10;
		else
			break;
		if (digits == 16)
			return false;
		v = v << 4 | (uint64_t)d;
	}
	if (!digits)
		return false;
	*value = v;
	*cursor = s;
	return true;
}

bool scan_decimal(const char **cursor, uint64_t *value)
{
	const char *s = *cursor;
	uint64_t v = 0;

	if (*s < '0' || *s > '9')
		return false;
	for (; *s >= '0' && *s <= '9'; s++) {
		uint64_t d = (uint64_t)(*s - '0');

		if (v > UINT64_MAX / 10 || (v == UINT64_MAX / 10 && d > UINT64_MAX % 10))
			return false;
		v = v * 10 + d;
	}
	*value = v;
	*cursor = s;
	return true;
}

bool scan_char(const char **cursor, char ch)
{
	/* Never past the string's end, whatever ch is. */
	if (!ch || **cursor != ch)
		return false;
	(*cursor)++;
	return true;
}

void scan_blanks(const char **cursor)
{
	while (**cursor == ' ' || **cursor == '\t')
		(*cursor)++;
}
