/*
 * Deduplicating, append-only table of byte strings in one flat buffer.
 *
 * diskio interns process names and device names here so that the rows it
 * keeps per interval hold a 32-bit key instead of a copy of the name.
 * The idea follows Fuchsia heapdump's resources_table_v1: bucket heads at
 * the start of the buffer, nodes appended after them and chained by 32-bit
 * offsets; the key of an entry is the offset of its node.
 *
 * Layout of buf[size], all offsets relative to buf, everything 4-aligned:
 *
 *   [nbuckets x u32 bucket head][node][node]...[unused]
 *   node: u32 next, u32 self, u32 len, len bytes of data, NUL, padding
 *
 * Concurrency: one writer (res_intern*) at a time, serialized by the caller;
 * any number of readers (res_lookup, res_find) may run at the same time as
 * that writer without a lock, because nodes are never changed once
 * published and every publication is a release store.
 */
#ifndef __RESOURCES_H
#define __RESOURCES_H

#include <stddef.h>
#include <stdint.h>

enum res_status {
	RES_OK = 0,
	RES_OUT_OF_SPACE = -1,	/* entry is new and its node does not fit */
	RES_TOO_BIG = -2,	/* entry is longer than RES_MAX_ENTRY */
	RES_INVALID = -3,	/* bad argument or uninitialised table */
	RES_NOT_FOUND = -4,	/* res_find only: entry is not in the table */
};

typedef uint32_t res_key;

/* Longest entry in bytes: a 127-frame stack of u64 fits, and it bounds node sizes. */
#define RES_MAX_ENTRY 4095

/* Bytes a node takes besides its data: header plus the terminating NUL. */
#define RES_NODE_OVERHEAD 13

/* Worst-case bytes an entry of len bytes takes in the buffer (header, NUL, padding). */
#define RES_NODE_SIZE(len) ((((size_t)(len)) + RES_NODE_OVERHEAD + 3) & ~(size_t)3)

struct res_table {
	unsigned char *buf;
	size_t size;
	uint32_t nbuckets;
	uint32_t used;		/* bytes used, heads included; updated atomically */
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
 * Reader, lock-free: pointer to the stored bytes of key, followed by a NUL
 * byte that is not part of the entry, so names can be used as C strings.
 * *len (if len is not NULL) gets the length. NULL for a key outside the
 * used area or misaligned. A key that lands inside a node is caught by a
 * self-offset check; only entry bytes crafted to look like a node fool it,
 * so pass keys that res_intern/res_find returned.
 */
const char *res_lookup(const struct res_table *t, res_key key, uint32_t *len);

/* Reader, lock-free: key of data[0..len) if present, never appends. RES_NOT_FOUND if absent. */
int res_find(const struct res_table *t, const void *data, size_t len, res_key *key);

/* Short English description of a res_status, for "diskio: ..." messages. */
const char *res_strerror(int status);

#endif /* __RESOURCES_H */
