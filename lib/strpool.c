// SPDX-License-Identifier: GPL-2.0
/* A pool of strings referred to by offset (strpool.h). */
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "strpool.h"

static const char cut_mark[] = "...";

bool strpool_add_cut(struct strpool *p, const char *s, size_t len, size_t max,
		     uint32_t *offset)
{
	bool cut = len > max;
	size_t kept = cut ? max : len;
	size_t need = kept + (cut ? sizeof(cut_mark) - 1 : 0) + 1;

	if (kept > UINT32_MAX || need > UINT32_MAX - p->len ||
	    array_reserve((void **)&p->bytes, &p->cap, p->len + need, 1))
		return false;
	memcpy(p->bytes + p->len, s, kept);
	if (cut)
		memcpy(p->bytes + p->len + kept, cut_mark, sizeof(cut_mark) - 1);
	p->bytes[p->len + need - 1] = '\0';
	*offset = (uint32_t)p->len;
	p->len += need;
	return true;
}

bool strpool_add(struct strpool *p, const char *s, size_t len, uint32_t *offset)
{
	return strpool_add_cut(p, s, len, SIZE_MAX, offset);
}

char *strpool_take(struct strpool *p)
{
	char *bytes = p->bytes;

	/* The names live as long as their table: no room kept for growth. */
	if (p->len) {
		char *fit = realloc(bytes, p->len);

		if (fit)
			bytes = fit;
	}
	*p = (struct strpool){ 0 };
	return bytes;
}

void strpool_free(struct strpool *p)
{
	free(p->bytes);
	*p = (struct strpool){ 0 };
}
