/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Deduplicating, append-only table of byte strings in one flat buffer: diskio
 * interns comm and device names here, from one thread, so that its rows hold
 * a 32-bit key instead of a copy of the name.  The layout is described in
 * doc/design.md, "How the numbers are kept".
 */
#ifndef DISKIO_RESOURCES_H
#define DISKIO_RESOURCES_H

#include <stddef.h>
#include <stdint.h>

enum res_status {
	RES_OK = 0,
	RES_OUT_OF_SPACE = -1,	/* entry is new and its node does not fit */
	RES_TOO_BIG = -2,	/* entry is longer than RES_MAX_ENTRY */
	RES_INVALID = -3,	/* bad argument or uninitialised table */
};

typedef uint32_t res_key;

/* Longest entry in bytes; it bounds node sizes. */
#define RES_MAX_ENTRY 4095

/* Bytes a node takes besides its data: header plus the terminating NUL. */
#define RES_NODE_OVERHEAD 13

/* Worst-case bytes an entry of len bytes takes in the buffer (header, NUL, padding). */
#define RES_NODE_SIZE(len) ((((size_t)(len)) + RES_NODE_OVERHEAD + 3) & ~(size_t)3)

struct res_table {
	unsigned char *buf;
	size_t size;
	uint32_t nbuckets;
	uint32_t used;		/* bytes used, heads included */
};

/*
 * Lay out an empty table over buf[size] with nbuckets bucket heads.
 * RES_INVALID if nbuckets == 0, the heads don't fit, size > UINT32_MAX,
 * or buf is not 4-byte aligned (malloc'd or uint32_t storage is).
 * The table does not own buf; nothing needs freeing.
 */
int res_table_init(struct res_table *t, void *buf, size_t size, uint32_t nbuckets);

/*
 * Find data[0..len) or append it; *key gets its key. Same bytes -> same key.
 * len == 0 (empty entry) is valid; data may contain NUL bytes.
 * RES_TOO_BIG if len > RES_MAX_ENTRY; RES_OUT_OF_SPACE if the entry is new
 * and its node does not fit in what is left (table unchanged, *key untouched).
 * An entry already present is found and returns RES_OK even when the table is full.
 */
int res_intern(struct res_table *t, const void *data, size_t len, res_key *key);

/* res_intern of a NUL-terminated string (the NUL is not part of the entry). */
int res_intern_str(struct res_table *t, const char *s, res_key *key);

/*
 * Pointer to the stored bytes of key, followed by a NUL byte that is not
 * part of the entry, so names can be used as C strings.
 * *len (if len is not NULL) gets the length. NULL for a key outside the
 * used area or misaligned. A key that lands inside a node is caught by a
 * self-offset check; only entry bytes crafted to look like a node fool it,
 * so pass keys that res_intern returned.
 */
const char *res_lookup(const struct res_table *t, res_key key, uint32_t *len);

/* res_lookup() for display: "?" (length 1) for a key the table does not
 * know, or a NULL table; len may be NULL. */
const char *res_name(const struct res_table *t, res_key key, uint32_t *len);

/*
 * Stacks (--stacks): a stack is a list of frame addresses, innermost first,
 * at most STACK_MAX_FRAMES.  It is interned in a res_table of its own as
 * bytes: the first address, then each next one as the difference from the
 * one before, every number a zigzag LEB128 varint (a delta d is stored as
 * (d << 1) ^ (d >> 63) of the 64-bit two's complement difference), so
 * nearby frames take 2-4 bytes instead of 8.  The same frames always give
 * the same bytes, hence the same key; an empty stack is a valid entry.
 */
#define STACK_MAX_FRAMES 127
/* Longest encoding of STACK_MAX_FRAMES frames: 10 bytes a varint. */
#define STACK_MAX_ENCODED (STACK_MAX_FRAMES * 10)

/* Encode frames[0..n) into buf[size]; the bytes written, or 0 with n >
 * STACK_MAX_FRAMES or too small a buf (size >= STACK_MAX_ENCODED always
 * suffices; n == 0 writes nothing and returns 0 too). */
size_t stack_encode(const uint64_t *frames, size_t n, unsigned char *buf, size_t size);

/* Decode buf[0..len) into frames[max]: the number of frames, or -1 for bytes
 * that are not a whole encoding (a truncated varint, one longer than 10
 * bytes) or that decode to more than max frames. */
int stack_decode(const unsigned char *buf, size_t len, uint64_t *frames, size_t max);

/* stack_encode() then res_intern(): RES_OUT_OF_SPACE when the stack is new
 * and the table is full (the caller counts it as lost_stacks_table_full). */
int res_intern_stack(struct res_table *t, const uint64_t *frames, size_t n, res_key *key);

/* The frames of an interned stack into frames[max]: their number, or -1 for
 * a key the table does not know. */
int res_stack_frames(const struct res_table *t, res_key key, uint64_t *frames, size_t max);

#endif /* DISKIO_RESOURCES_H */
