// SPDX-License-Identifier: GPL-2.0
/* Field splitting and output capture for the unit tests: see json_check.h. */
#include "json_check.h"

size_t split_fields(const char *line, char fields[MAXFIELDS][FIELDLEN])
{
	size_t n = 0;

	for (;;) {
		size_t len;

		line += strspn(line, " \t");
		if (!*line)
			return n;
		len = strcspn(line, " \t");
		cr_assert_lt(n, MAXFIELDS);
		cr_assert_lt(len, FIELDLEN);
		memcpy(fields[n], line, len);
		fields[n][len] = '\0';
		n++;
		line += len;
	}
}

FILE *cap_open(struct cap *c)
{
	c->buf = NULL;
	c->len = 0;
	c->f = open_memstream(&c->buf, &c->len);
	cr_assert_not_null(c->f);
	return c->f;
}

void cap_close(struct cap *c)
{
	cr_assert_eq(fclose(c->f), 0);
	c->f = NULL;
}
