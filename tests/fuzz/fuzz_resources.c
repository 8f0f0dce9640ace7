// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for the name table (resources.c), checked against a
 * shadow copy: a plain list of the entries interned so far with their keys.
 *
 * The input is a table shape and then a stream of operations:
 *   byte 0-1   buffer size: 64 + (little-endian value % 8192) bytes
 *   byte 2     bucket heads: 1 + value % 64 (may not fit: RES_INVALID)
 *   then, per operation, a byte whose value % 5 selects:
 *     0 intern   next byte: length n, then n bytes (as many as are left)
 *     1 again    next byte: which shadow entry to intern again
 *     2 lookup   next byte: which shadow entry to look up
 *     3 probe    next 4 bytes: any key, looked up
 *     4 huge     next byte: an entry of RES_MAX_ENTRY + (value % 2) bytes,
 *                all one letter ('a' + value / 2 % 26)
 *
 * Checked: same bytes give the same key and new bytes a new one, appended
 * where the table says it has room (RES_NODE_SIZE); RES_OUT_OF_SPACE exactly
 * when a new entry does not fit, RES_TOO_BIG above RES_MAX_ENTRY; a lookup
 * gives back the bytes and a NUL; a probe of an unknown key gives NULL or a
 * string inside the used part of the buffer; at the end every entry is
 * still there.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "resources.h"
#include "fuzz_util.h"

/* The largest table (8255 bytes) holds at most 515 nodes of 16 bytes. */
#define MAX_SHADOW 1024

struct shadow_entry {
	const uint8_t *bytes;	/* into the input, or into huge[] */
	size_t len;
	res_key key;
};

struct shadow {
	struct shadow_entry entries[MAX_SHADOW];
	size_t count;
	uint32_t used;		/* bytes the table should have used */
};

/* One long entry per letter, filled once: shadow entries point into them. */
static uint8_t huge[26][RES_MAX_ENTRY + 1];

static const struct shadow_entry *shadow_find(const struct shadow *s, const void *bytes,
					      size_t len)
{
	for (size_t i = 0; i < s->count; i++) {
		if (s->entries[i].len == len && !memcmp(s->entries[i].bytes, bytes, len))
			return &s->entries[i];
	}
	return NULL;
}

static void check_lookup(const struct res_table *t, const struct shadow_entry *e)
{
	uint32_t len = UINT32_MAX;
	const char *found = res_lookup(t, e->key, &len);

	FUZZ_CHECK(found != NULL, "key %u of a %zu-byte entry not found", e->key, e->len);
	FUZZ_CHECK(len == e->len, "key %u: length %u, interned %zu", e->key, len, e->len);
	FUZZ_CHECK(!memcmp(found, e->bytes, e->len), "key %u: other bytes", e->key);
	FUZZ_CHECK(found[len] == '\0', "key %u: no NUL after the entry", e->key);
}

static void intern_and_check(struct res_table *t, struct shadow *s, const uint8_t *bytes,
			     size_t len)
{
	const struct shadow_entry *known = shadow_find(s, bytes, len);
	res_key key = UINT32_MAX;
	int status = res_intern(t, bytes, len, &key);

	if (len > RES_MAX_ENTRY) {
		FUZZ_CHECK(status == RES_TOO_BIG, "%zu bytes: status %d", len, status);
		FUZZ_CHECK(key == UINT32_MAX, "key set on RES_TOO_BIG");
		return;
	}
	if (known) {
		FUZZ_CHECK(status == RES_OK && key == known->key,
			   "%zu bytes again: status %d key %u, first key %u", len, status, key,
			   known->key);
		return;
	}
	if (RES_NODE_SIZE(len) > t->size - s->used) {
		FUZZ_CHECK(status == RES_OUT_OF_SPACE, "%zu bytes, %zu free: status %d", len,
			   t->size - s->used, status);
		FUZZ_CHECK(key == UINT32_MAX, "key set on RES_OUT_OF_SPACE");
		FUZZ_CHECK(t->used == s->used, "used moved on RES_OUT_OF_SPACE");
		return;
	}
	FUZZ_CHECK(status == RES_OK, "%zu bytes, %zu free: status %d", len, t->size - s->used,
		   status);
	FUZZ_CHECK(key == s->used, "new entry at %u, expected at %u", key, s->used);
	s->used += RES_NODE_SIZE(len);
	FUZZ_CHECK(t->used == s->used, "used %u, expected %u", t->used, s->used);
	FUZZ_CHECK(s->count < MAX_SHADOW, "shadow full");
	s->entries[s->count++] = (struct shadow_entry){ .bytes = bytes, .len = len, .key = key };
	check_lookup(t, &s->entries[s->count - 1]);
}

static void probe(const struct res_table *t, const struct shadow *s, res_key key)
{
	uint32_t len = 0;
	const char *found = res_lookup(t, key, &len);

	for (size_t i = 0; i < s->count; i++) {
		if (s->entries[i].key == key) {
			check_lookup(t, &s->entries[i]);
			return;
		}
	}
	/* Not a key res_intern() returned: NULL, or (entry bytes crafted to
	 * look like a node, as resources.h allows) a string inside the table. */
	if (!found) {
		FUZZ_CHECK(!strcmp(res_name(t, key, &len), "?") && len == 1, "res_name of %u",
			   key);
		return;
	}
	FUZZ_CHECK((const unsigned char *)found >= t->buf &&
		   (const unsigned char *)found + len < t->buf + t->used,
		   "probe %u: %u bytes outside the used part", key, len);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct shadow shadow;
	struct res_table table;
	size_t buf_size, at = 3;
	uint32_t nbuckets;
	void *buf;
	int status;

	if (size < 3)
		return 0;
	if (!huge[0][0]) {
		for (int letter = 0; letter < 26; letter++)
			memset(huge[letter], 'a' + letter, sizeof(huge[letter]));
	}
	buf_size = 64 + ((data[0] | data[1] << 8) % 8192);
	nbuckets = 1 + data[2] % 64;
	/* Exactly buf_size bytes, so that ASan sees any write past the table. */
	buf = malloc(buf_size);
	FUZZ_CHECK(buf != NULL, "out of memory");
	shadow.count = 0;

	status = res_table_init(&table, buf, buf_size, nbuckets);
	if ((size_t)nbuckets * 4 > buf_size) {
		FUZZ_CHECK(status == RES_INVALID, "heads do not fit: status %d", status);
		free(buf);
		return 0;
	}
	FUZZ_CHECK(status == RES_OK, "init: status %d", status);
	shadow.used = nbuckets * 4;
	FUZZ_CHECK(table.used == shadow.used, "empty table uses %u", table.used);

	while (at < size) {
		uint8_t op = data[at++] % 5;
		size_t len;

		switch (op) {
		case 0:
			if (at >= size)
				break;
			len = data[at++];
			if (len > size - at)
				len = size - at;
			intern_and_check(&table, &shadow, data + at, len);
			at += len;
			break;
		case 1:
		case 2:
			if (at >= size)
				break;
			if (shadow.count) {
				const struct shadow_entry *e = &shadow.entries[data[at] % shadow.count];

				if (op == 1)
					intern_and_check(&table, &shadow, e->bytes, e->len);
				else
					check_lookup(&table, e);
			}
			at++;
			break;
		case 3:
			if (size - at < 4) {
				at = size;
				break;
			}
			probe(&table, &shadow, (res_key)data[at] | (res_key)data[at + 1] << 8 |
			      (res_key)data[at + 2] << 16 | (res_key)data[at + 3] << 24);
			at += 4;
			break;
		case 4:
			if (at >= size)
				break;
			intern_and_check(&table, &shadow, huge[data[at] / 2 % 26],
					 RES_MAX_ENTRY + data[at] % 2);
			at++;
			break;
		}
	}

	for (size_t i = 0; i < shadow.count; i++) {
		check_lookup(&table, &shadow.entries[i]);
		intern_and_check(&table, &shadow, shadow.entries[i].bytes, shadow.entries[i].len);
	}
	free(buf);
	return 0;
}
