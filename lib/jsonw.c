// SPDX-License-Identifier: GPL-2.0
#include <inttypes.h>
#include <string.h>
#include "jsonw.h"
#include "utf8.h"

void jsonw_init(struct jsonw *w, FILE *out)
{
	memset(w, 0, sizeof(*w));
	w->out = out;
}

/* The comma and the key before a value.  has_members[depth] belongs to the
 * innermost open object or array; [0] to the top level, where the members of
 * a fragment are separated by commas too (a record ends with a newline). */
static void member(struct jsonw *w, const char *key)
{
	unsigned int level = w->depth < JSONW_MAX_DEPTH ? w->depth : JSONW_MAX_DEPTH;

	if (w->has_members[level])
		putc(',', w->out);
	w->has_members[level] = true;
	if (key) {
		json_write_string(w->out, key, strlen(key));
		putc(':', w->out);
	}
}

static void open_nested(struct jsonw *w, const char *key, char bracket)
{
	member(w, key);
	putc(bracket, w->out);
	w->depth++;
	if (w->depth <= JSONW_MAX_DEPTH)
		w->has_members[w->depth] = false;
}

static void close_nested(struct jsonw *w, char bracket)
{
	putc(bracket, w->out);
	if (w->depth)
		w->depth--;
}

void jsonw_object(struct jsonw *w, const char *key)
{
	open_nested(w, key, '{');
}

void jsonw_object_end(struct jsonw *w)
{
	close_nested(w, '}');
}

void jsonw_array(struct jsonw *w, const char *key)
{
	open_nested(w, key, '[');
}

void jsonw_array_end(struct jsonw *w)
{
	close_nested(w, ']');
}

void jsonw_end_record(struct jsonw *w)
{
	putc('\n', w->out);
	w->depth = 0;
	w->has_members[0] = false;
}

void jsonw_u64(struct jsonw *w, const char *key, uint64_t value)
{
	member(w, key);
	fprintf(w->out, "%" PRIu64, value);
}

void jsonw_bool(struct jsonw *w, const char *key, bool value)
{
	member(w, key);
	fputs(value ? "true" : "false", w->out);
}

void jsonw_null(struct jsonw *w, const char *key)
{
	member(w, key);
	fputs("null", w->out);
}

void jsonw_string(struct jsonw *w, const char *key, const char *s, size_t len)
{
	member(w, key);
	json_write_string(w->out, s, len);
}

void jsonw_double(struct jsonw *w, const char *key, const char *format, double value)
{
	member(w, key);
	fprintf(w->out, format, value);
}

void jsonw_tenths(struct jsonw *w, const char *key, uint64_t tenths)
{
	member(w, key);
	fprintf(w->out, "%" PRIu64 ".%u", tenths / 10, (unsigned int)(tenths % 10));
}

void jsonw_thousandths(struct jsonw *w, const char *key, uint64_t thousandths)
{
	member(w, key);
	fprintf(w->out, "%" PRIu64 ".%03u", thousandths / 1000, (unsigned int)(thousandths % 1000));
}

void json_write_string(FILE *out, const char *s, size_t len)
{
	const unsigned char *bytes = (const unsigned char *)s;
	size_t run_start = 0, i = 0;

	if (!s) {
		fputs("\"\"", out);
		return;
	}

	putc('"', out);
	/* Bytes that need no escaping are written in runs, not one by one. */
	while (i < len) {
		unsigned char c = bytes[i];
		size_t sequence_length;

		if (c >= 0x20 && c < 0x7f && c != '"' && c != '\\') {
			i++;
			continue;
		}
		/* Strict UTF-8 only (utf8.h): strict JSON parsers reject the rest. */
		if (c >= 0x80) {
			sequence_length = utf8_decode(s + i, len - i, NULL);
			if (sequence_length) {
				i += sequence_length;
				continue;
			}
		}

		fwrite(bytes + run_start, 1, i - run_start, out);
		if (c == '"' || c == '\\') {
			putc('\\', out);
			putc(c, out);
		} else {
			/*
			 * A control byte, DEL (harmless in JSON but it can
			 * act on a terminal), or a byte outside any valid
			 * UTF-8 sequence, taken as the Latin-1 code point.
			 */
			fprintf(out, "\\u%04x", c);
		}
		i++;
		run_start = i;
	}
	fwrite(bytes + run_start, 1, i - run_start, out);
	putc('"', out);
}

