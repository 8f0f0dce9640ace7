// SPDX-License-Identifier: GPL-2.0
/* Strict UTF-8 (utf8.h). */
#include "utf8.h"

size_t utf8_decode(const char *s, size_t len, uint32_t *cp)
{
	const unsigned char *b = (const unsigned char *)s;
	uint32_t value, smallest;
	size_t n;

	if (!len)
		return 0;
	if (b[0] < 0x80) {
		n = 1, value = b[0], smallest = 0;
	} else if ((b[0] & 0xe0) == 0xc0) {
		n = 2, value = b[0] & 0x1f, smallest = 0x80;
	} else if ((b[0] & 0xf0) == 0xe0) {
		n = 3, value = b[0] & 0x0f, smallest = 0x800;
	} else if ((b[0] & 0xf8) == 0xf0) {
		n = 4, value = b[0] & 0x07, smallest = 0x10000;
	} else {
		return 0;	/* a continuation byte, or 0xf8..0xff: no lead byte */
	}
	if (len < n)
		return 0;
	for (size_t i = 1; i < n; i++) {
		if ((b[i] & 0xc0) != 0x80)
			return 0;
		value = value << 6 | (b[i] & 0x3f);
	}
	/* Below its length's smallest: an overlong form (0xc0 0xaf for '/'),
	 * which lets a check on the short form be walked around. */
	if (value < smallest || value > 0x10ffff || (value >= 0xd800 && value <= 0xdfff))
		return 0;
	if (cp)
		*cp = value;
	return n;
}

bool utf8_valid(const char *s, size_t len)
{
	for (size_t i = 0, n; i < len; i += n) {
		n = utf8_decode(s + i, len - i, NULL);
		if (!n)
			return false;
	}
	return true;
}
