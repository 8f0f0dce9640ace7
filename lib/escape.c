// SPDX-License-Identifier: GPL-2.0
/* The one escaping rule of names (escape.h). */
#include <string.h>
#include "escape.h"

bool escape_keeps(unsigned char c, const char *reserved)
{
	return c > ' ' && c < 0x7f && c != '\\' && !strchr(reserved, c);
}

void escape_write(FILE *out, const char *name, size_t len, const char *reserved)
{
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)name[i];

		if (escape_keeps(c, reserved))
			fputc(c, out);
		else
			fprintf(out, "\\x%02x", c);
	}
}
