// SPDX-License-Identifier: GPL-2.0
/*
 * Deduplicating, append-only table of byte strings in one flat buffer.
 * Layout of buf[size], offsets relative to buf, everything 4-aligned:
 *   [nbuckets x u32 bucket head][node][node]...[unused]
 * A key is the offset of its node (doc/design.md, "How the numbers are kept").
 */
#include <limits.h>
#include <stdbool.h>
#include <string.h>

#include "resources.h"

struct res_node {
	uint32_t next;		/* offset of the next node in this bucket, 0 ends the chain */
	uint32_t self;		/* own offset: lets res_lookup reject keys that point inside a node */
	uint32_t len;
	unsigned char data[];	/* len bytes, then a NUL */
};

_Static_assert(sizeof(struct res_node) + 1 == RES_NODE_OVERHEAD,
	       "RES_NODE_OVERHEAD must match the node header");
_Static_assert(sizeof(struct res_node) % sizeof(uint32_t) == 0,
	       "node data must start 4-aligned so padding keeps the next node aligned");
_Static_assert(RES_MAX_ENTRY + RES_NODE_OVERHEAD + 3 < UINT32_MAX,
	       "node sizes must not overflow 32-bit offsets");

static uint32_t fnv1a_32(const unsigned char *bytes, size_t len)
{
	uint32_t hash = 2166136261u;
	size_t i;

	for (i = 0; i < len; i++) {
		hash ^= bytes[i];
		hash *= 16777619u;
	}
	return hash;
}

static bool table_is_ready(const struct res_table *t)
{
	return t && t->buf && t->nbuckets;
}

static uint32_t *bucket_head(const struct res_table *t, uint32_t hash)
{
	return (uint32_t *)t->buf + hash % t->nbuckets;
}

static struct res_node *node_at(const struct res_table *t, uint32_t offset)
{
	return (struct res_node *)(t->buf + offset);
}

/*
 * Walk one bucket for data[0..len). The acquire load of the head pairs with
 * the writer's release store, so every node reached through it, including
 * its next link, is fully written: links are set before a node is published
 * and never change afterwards, so they need no atomic load of their own.
 */
static uint32_t chain_find(const struct res_table *t, const uint32_t *head,
			   const void *data, size_t len)
{
	uint32_t offset = __atomic_load_n(head, __ATOMIC_ACQUIRE);

	while (offset) {
		const struct res_node *node = node_at(t, offset);

		if (node->len == len && (len == 0 || memcmp(node->data, data, len) == 0))
			return offset;
		offset = node->next;
	}
	return 0;
}

int res_table_init(struct res_table *t, void *buf, size_t size, uint32_t nbuckets)
{
	uint64_t heads_size = (uint64_t)nbuckets * sizeof(uint32_t);

	if (!t)
		return RES_INVALID;
	/* A zeroed table makes every later call fail cleanly if the caller ignores this error. */
	memset(t, 0, sizeof(*t));
	if (!buf || nbuckets == 0 || size > UINT32_MAX || heads_size > size)
		return RES_INVALID;
	/* Atomic 32-bit loads and stores on links need natural alignment. */
	if ((uintptr_t)buf % sizeof(uint32_t))
		return RES_INVALID;

	/* Only the heads need clearing: node bytes are written before anything points at them. */
	memset(buf, 0, heads_size);
	t->buf = buf;
	t->size = size;
	t->nbuckets = nbuckets;
	t->used = (uint32_t)heads_size;
	return RES_OK;
}

int res_intern(struct res_table *t, const void *data, size_t len, res_key *key)
{
	struct res_node *node;
	uint32_t *head;
	uint32_t offset, used;
	size_t node_size;

	if (!table_is_ready(t) || !key || (!data && len))
		return RES_INVALID;
	if (len > RES_MAX_ENTRY)
		return RES_TOO_BIG;

	head = bucket_head(t, fnv1a_32(data, len));
	offset = chain_find(t, head, data, len);
	if (offset) {
		*key = offset;
		return RES_OK;
	}

	/* The caller serializes writers, so nobody else moves used under us. */
	used = t->used;
	node_size = RES_NODE_SIZE(len);
	if (node_size > t->size - used)
		return RES_OUT_OF_SPACE;

	node = node_at(t, used);
	node->next = *head;
	node->self = used;
	node->len = (uint32_t)len;
	if (len)
		memcpy(node->data, data, len);
	/* NUL terminator plus padding, so the buffer holds no stale bytes. */
	memset(node->data + len, 0, node_size - sizeof(*node) - len);

	/*
	 * Publish used first, then the head: a reader that reaches the node
	 * through the head also sees a used that covers it, so res_lookup's
	 * bounds check accepts the key it was handed.
	 */
	__atomic_store_n(&t->used, used + (uint32_t)node_size, __ATOMIC_RELEASE);
	__atomic_store_n(head, used, __ATOMIC_RELEASE);
	*key = used;
	return RES_OK;
}

int res_intern_str(struct res_table *t, const char *s, res_key *key)
{
	size_t len;

	if (!s)
		return RES_INVALID;
	/* Bounded scan: a huge string is rejected without reading all of it. */
	len = strnlen(s, RES_MAX_ENTRY + 1);
	if (len > RES_MAX_ENTRY)
		return RES_TOO_BIG;
	return res_intern(t, s, len, key);
}

const char *res_lookup(const struct res_table *t, res_key key, uint32_t *len)
{
	const struct res_node *node;
	uint64_t heads_size, used;

	if (!table_is_ready(t))
		return NULL;
	heads_size = (uint64_t)t->nbuckets * sizeof(uint32_t);
	used = __atomic_load_n(&t->used, __ATOMIC_ACQUIRE);

	/* 64-bit sums: key + header must not wrap around on a bogus key. */
	if (key % sizeof(uint32_t) || key < heads_size ||
	    (uint64_t)key + sizeof(*node) > used)
		return NULL;
	node = node_at(t, key);
	if (node->self != key || node->len > RES_MAX_ENTRY ||
	    (uint64_t)key + RES_NODE_SIZE(node->len) > used ||
	    node->data[node->len] != '\0')
		return NULL;

	if (len)
		*len = node->len;
	return (const char *)node->data;
}

const char *res_name(const struct res_table *t, res_key key, uint32_t *len)
{
	const char *name = t ? res_lookup(t, key, len) : NULL;

	if (name)
		return name;
	if (len)
		*len = 1;
	return "?";
}

/*
 * Stacks: zigzag LEB128 varints of address deltas (resources.h).  Zigzag
 * folds the sign into bit 0 so that a small step down (the next frame at a
 * lower address) is as short as a small step up.
 */

/* Seven payload bits a byte: 64 bits need ten bytes, the tenth holding bit 63 alone. */
#define VARINT_MAX_BYTES 10

_Static_assert(STACK_MAX_ENCODED == STACK_MAX_FRAMES * VARINT_MAX_BYTES,
	       "STACK_MAX_ENCODED must hold the longest encoding");
_Static_assert(STACK_MAX_ENCODED <= RES_MAX_ENTRY,
	       "an encoded stack must fit in one res_table entry");

static uint64_t zigzag(uint64_t delta)
{
	return (delta << 1) ^ (uint64_t)((int64_t)delta >> 63);
}

static uint64_t unzigzag(uint64_t value)
{
	return (value >> 1) ^ (0 - (value & 1));
}

/* Bytes written, or 0 when fewer than needed are left (nothing useful written). */
static size_t put_varint(uint64_t value, unsigned char *out, size_t room)
{
	size_t n = 0;

	do {
		if (n == room)
			return 0;
		out[n++] = (unsigned char)((value & 0x7f) | (value > 0x7f ? 0x80 : 0));
		value >>= 7;
	} while (value);
	return n;
}

/*
 * Bytes read into *value, or 0 for a varint that runs past len, is longer
 * than ten bytes, or whose tenth byte carries bits beyond 64: bytes no
 * encoder wrote.
 */
static size_t get_varint(const unsigned char *in, size_t len, uint64_t *value)
{
	uint64_t result = 0;
	size_t n;

	for (n = 0; n < len && n < VARINT_MAX_BYTES; n++) {
		uint64_t payload = in[n] & 0x7f;

		if (n == VARINT_MAX_BYTES - 1 && (in[n] & ~1u))
			return 0;
		result |= payload << (7 * n);
		if (!(in[n] & 0x80)) {
			*value = result;
			return n + 1;
		}
	}
	return 0;
}

size_t stack_encode(const uint64_t *frames, size_t n, unsigned char *buf, size_t size)
{
	uint64_t previous = 0;
	size_t used = 0, i;

	if (n > STACK_MAX_FRAMES || (n && (!frames || !buf)))
		return 0;
	for (i = 0; i < n; i++) {
		/* Unsigned subtraction: the two's complement difference, never UB. */
		size_t wrote = put_varint(zigzag(frames[i] - previous), buf + used, size - used);

		if (!wrote)
			return 0;
		used += wrote;
		previous = frames[i];
	}
	return used;
}

int stack_decode(const unsigned char *buf, size_t len, uint64_t *frames, size_t max)
{
	uint64_t previous = 0;
	size_t at = 0, n = 0;

	if (len && !buf)
		return -1;
	while (at < len) {
		uint64_t value;
		size_t got = get_varint(buf + at, len - at, &value);

		if (!got || n >= max || !frames)
			return -1;
		previous += unzigzag(value);
		frames[n++] = previous;
		at += got;
	}
	/* Only a caller's max above INT_MAX lets n reach it. */
	return n > INT_MAX ? -1 : (int)n;
}

int res_intern_stack(struct res_table *t, const uint64_t *frames, size_t n, res_key *key)
{
	unsigned char encoded[STACK_MAX_ENCODED];
	size_t len;

	if (n > STACK_MAX_FRAMES)
		return RES_TOO_BIG;
	if (n && !frames)
		return RES_INVALID;
	len = stack_encode(frames, n, encoded, sizeof(encoded));
	/* STACK_MAX_ENCODED always suffices, so 0 bytes means the empty stack. */
	return res_intern(t, encoded, len, key);
}

int res_stack_frames(const struct res_table *t, res_key key, uint64_t *frames, size_t max)
{
	uint32_t len;
	const char *encoded = res_lookup(t, key, &len);

	if (!encoded)
		return -1;
	return stack_decode((const unsigned char *)encoded, len, frames, max);
}
