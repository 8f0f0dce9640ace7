// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests for resources.c, the deduplicating append-only name table.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "resources.h"

/* uint32_t storage gives the 4-byte alignment res_table_init requires. */
#define STORAGE_WORDS 8192
static uint32_t storage[STORAGE_WORDS];

static struct res_table make_table(size_t size, uint32_t nbuckets)
{
	struct res_table t;

	cr_assert_leq(size, sizeof(storage));
	memset(storage, 0xa5, sizeof(storage));	/* stale bytes must not leak into the table */
	cr_assert_eq(res_table_init(&t, storage, size, nbuckets), RES_OK);
	return t;
}

static void assert_reads_back(const struct res_table *t, res_key key,
			      const void *expected, size_t expected_len)
{
	uint32_t len = 0xdeadbeef;
	const char *stored = res_lookup(t, key, &len);

	cr_assert_not_null(stored, "key %u does not read back", key);
	cr_assert_eq(len, expected_len, "key %u: len %u, expected %zu", key, len, expected_len);
	cr_assert_eq(memcmp(stored, expected, expected_len), 0, "key %u: bytes differ", key);
	cr_assert_eq(stored[len], '\0', "key %u: stored bytes are not NUL-terminated", key);
}

Test(res_table_init, rejects_bad_arguments)
{
	struct res_table t;

	cr_assert_eq(res_table_init(&t, storage, sizeof(storage), 0), RES_INVALID);
	/* 4 heads need 16 bytes. */
	cr_assert_eq(res_table_init(&t, storage, 15, 4), RES_INVALID);
	cr_assert_eq(res_table_init(&t, storage, 0, 1), RES_INVALID);
	/* nbuckets * 4 must not wrap around to something that "fits". */
	cr_assert_eq(res_table_init(&t, storage, sizeof(storage), UINT32_MAX), RES_INVALID);
	cr_assert_eq(res_table_init(&t, NULL, sizeof(storage), 4), RES_INVALID);
	cr_assert_eq(res_table_init(NULL, storage, sizeof(storage), 4), RES_INVALID);
	cr_assert_eq(res_table_init(&t, (unsigned char *)storage + 1, 64, 4), RES_INVALID);
#if SIZE_MAX > UINT32_MAX
	/* Rejected before the buffer is touched, so a small buffer is safe here. */
	cr_assert_eq(res_table_init(&t, storage, (size_t)UINT32_MAX + 1, 4), RES_INVALID);
#endif
}

Test(res_table_init, failed_init_leaves_an_unusable_table)
{
	struct res_table t;
	res_key key;

	memset(&t, 0x5a, sizeof(t));
	cr_assert_eq(res_table_init(&t, storage, 15, 4), RES_INVALID);
	cr_assert_eq(res_intern_str(&t, "dd", &key), RES_INVALID);
	cr_assert_null(res_lookup(&t, 16, NULL));
}

Test(res_table_init, heads_exactly_filling_the_buffer_leave_no_room)
{
	struct res_table t = make_table(16, 4);
	res_key key = 1234;

	cr_assert_eq(t.used, 16);
	cr_assert_eq(res_intern_str(&t, "", &key), RES_OUT_OF_SPACE);
	cr_assert_eq(key, 1234, "a failed intern must not write the key");
	cr_assert_eq(t.used, 16);
}

Test(res_intern, dedups_across_chained_buckets)
{
	enum { NBUCKETS = 8, NENTRIES = 2 * NBUCKETS + 1 };
	struct res_table t = make_table(sizeof(storage), NBUCKETS);
	char names[NENTRIES][32];
	res_key keys[NENTRIES];
	uint32_t used_after_first_pass;
	int i, j;

	for (i = 0; i < NENTRIES; i++) {
		snprintf(names[i], sizeof(names[i]), "kworker/%d", i);
		cr_assert_eq(res_intern_str(&t, names[i], &keys[i]), RES_OK);
		cr_assert_eq(keys[i] % 4, 0, "key %u is not 4-aligned", keys[i]);
	}
	used_after_first_pass = t.used;
	cr_assert_eq(used_after_first_pass % 4, 0);

	for (i = 0; i < NENTRIES; i++) {
		res_key again;

		cr_assert_eq(res_intern(&t, names[i], strlen(names[i]), &again), RES_OK);
		cr_assert_eq(again, keys[i], "%s: key %u then %u", names[i], keys[i], again);
	}
	cr_assert_eq(t.used, used_after_first_pass, "second pass appended");

	/* The hash must spread entries: the heads are the first nbuckets words. */
	for (i = 0, j = 0; i < NBUCKETS; i++)
		j += storage[i] != 0;
	cr_assert_geq(j, NBUCKETS / 2, "only %d of %d buckets used", j, NBUCKETS);

	for (i = 0; i < NENTRIES; i++)
		for (j = i + 1; j < NENTRIES; j++)
			cr_assert_neq(keys[i], keys[j], "%s and %s share a key", names[i], names[j]);

	for (i = 0; i < NENTRIES; i++)
		assert_reads_back(&t, keys[i], names[i], strlen(names[i]));
}

Test(res_intern, empty_entry_is_its_own_entry)
{
	struct res_table t = make_table(1024, 4);
	res_key empty, empty_again, other;
	uint32_t used;

	cr_assert_eq(res_intern_str(&t, "sda", &other), RES_OK);
	cr_assert_eq(res_intern(&t, NULL, 0, &empty), RES_OK);
	cr_assert_neq(empty, other);
	assert_reads_back(&t, empty, "", 0);

	used = t.used;
	cr_assert_eq(res_intern_str(&t, "", &empty_again), RES_OK);
	cr_assert_eq(empty_again, empty);
	cr_assert_eq(t.used, used);
}

Test(res_intern, longest_entry_fits_and_one_more_is_too_big)
{
	static unsigned char longest[RES_MAX_ENTRY + 1];
	struct res_table t = make_table(sizeof(storage), 16);
	static uint32_t snapshot[STORAGE_WORDS];
	res_key key, untouched = 77;
	uint32_t used;
	size_t i;

	for (i = 0; i < sizeof(longest); i++)
		longest[i] = (unsigned char)(i * 7 + 1);

	cr_assert_eq(res_intern(&t, longest, RES_MAX_ENTRY, &key), RES_OK);
	assert_reads_back(&t, key, longest, RES_MAX_ENTRY);

	used = t.used;
	memcpy(snapshot, storage, sizeof(storage));
	cr_assert_eq(res_intern(&t, longest, RES_MAX_ENTRY + 1, &untouched), RES_TOO_BIG);
	cr_assert_eq(untouched, 77);
	cr_assert_eq(t.used, used);
	cr_assert_eq(memcmp(snapshot, storage, sizeof(storage)), 0, "TOO_BIG changed the buffer");
}

Test(res_intern, fills_up_with_an_error_and_stays_usable)
{
	static uint32_t snapshot[STORAGE_WORDS];
	struct res_table t = make_table(1000, 4);
	char names[200][32];
	res_key keys[200], key, unchanged = 99;
	uint32_t used_before_failure;
	int count, status = RES_OK, i;

	for (count = 0; count < 200; count++) {
		snprintf(names[count], sizeof(names[count]), "proc-%d", count);
		status = res_intern_str(&t, names[count], &keys[count]);
		if (status != RES_OK)
			break;
	}
	cr_assert_eq(status, RES_OUT_OF_SPACE, "table of 1000 bytes never filled");
	cr_assert_gt(count, 10, "only %d entries fit in 1000 bytes", count);
	cr_assert_leq(t.used, t.size);

	/* The failing call must leave everything as it was. */
	used_before_failure = t.used;
	memcpy(snapshot, storage, sizeof(storage));
	cr_assert_eq(res_intern_str(&t, "one-more-name", &unchanged), RES_OUT_OF_SPACE);
	cr_assert_eq(unchanged, 99);
	cr_assert_eq(t.used, used_before_failure);
	cr_assert_eq(memcmp(snapshot, storage, sizeof(storage)), 0, "OUT_OF_SPACE changed the buffer");

	for (i = 0; i < count; i++)
		assert_reads_back(&t, keys[i], names[i], strlen(names[i]));
	for (i = 0; i < count; i++) {
		cr_assert_eq(res_intern_str(&t, names[i], &key), RES_OK,
			     "%s no longer interns in a full table", names[i]);
		cr_assert_eq(key, keys[i]);
	}
	cr_assert_eq(t.used, used_before_failure);
}

Test(res_intern, node_ending_exactly_at_the_buffer_end_fits)
{
	/* One head (4 bytes) plus one node for "abc": 12 header + 3 + NUL = 16. */
	struct res_table exact = make_table(4 + RES_NODE_SIZE(3), 1);
	struct res_table short_by_one;
	res_key key, again;

	cr_assert_eq(RES_NODE_SIZE(3), 16);
	cr_assert_eq(res_intern_str(&exact, "abc", &key), RES_OK);
	cr_assert_eq(exact.used, exact.size);
	assert_reads_back(&exact, key, "abc", 3);
	cr_assert_eq(res_intern_str(&exact, "abd", &again), RES_OUT_OF_SPACE);
	cr_assert_eq(res_intern_str(&exact, "abc", &again), RES_OK);
	cr_assert_eq(again, key);

	short_by_one = make_table(4 + RES_NODE_SIZE(3) - 1, 1);
	cr_assert_eq(res_intern_str(&short_by_one, "abc", &key), RES_OUT_OF_SPACE);
	cr_assert_eq(short_by_one.used, 4);
}

Test(res_intern, binary_entries_and_prefixes_are_distinct)
{
	struct res_table t = make_table(4096, 2);
	const unsigned char nul_a[] = { 'x', 0, 'a' };
	const unsigned char nul_b[] = { 'x', 0, 'b' };
	res_key key_a, key_b, key_x, key_xa, key_xa_bytes;

	cr_assert_eq(res_intern(&t, nul_a, sizeof(nul_a), &key_a), RES_OK);
	cr_assert_eq(res_intern(&t, nul_b, sizeof(nul_b), &key_b), RES_OK);
	cr_assert_eq(res_intern_str(&t, "x", &key_x), RES_OK);
	cr_assert_eq(res_intern_str(&t, "xa", &key_xa), RES_OK);
	cr_assert_neq(key_a, key_b);
	cr_assert_neq(key_a, key_x, "a string and its prefix up to a NUL must differ");
	cr_assert_neq(key_x, key_xa);
	assert_reads_back(&t, key_a, nul_a, sizeof(nul_a));
	assert_reads_back(&t, key_b, nul_b, sizeof(nul_b));

	/* res_intern_str is res_intern of the bytes before the NUL. */
	cr_assert_eq(res_intern(&t, "xa", 2, &key_xa_bytes), RES_OK);
	cr_assert_eq(key_xa_bytes, key_xa);
}

Test(res_intern, rejects_bad_arguments)
{
	static char too_long[RES_MAX_ENTRY + 2];
	struct res_table t = make_table(1024, 4);
	res_key key;
	uint32_t used = t.used;

	cr_assert_eq(res_intern(NULL, "a", 1, &key), RES_INVALID);
	cr_assert_eq(res_intern(&t, "a", 1, NULL), RES_INVALID);
	cr_assert_eq(res_intern(&t, NULL, 1, &key), RES_INVALID);
	cr_assert_eq(res_intern_str(&t, NULL, &key), RES_INVALID);
	memset(too_long, 'n', RES_MAX_ENTRY + 1);
	cr_assert_eq(res_intern_str(&t, too_long, &key), RES_TOO_BIG);
	cr_assert_eq(t.used, used);
}

Test(res_lookup, rejects_bad_keys)
{
	struct res_table t = make_table(1024, 4);
	res_key key;
	uint32_t len = 4242;

	cr_assert_eq(res_intern_str(&t, "nvme0n1", &key), RES_OK);
	cr_assert_not_null(res_lookup(&t, key, NULL), "a NULL len must be allowed");

	cr_assert_null(res_lookup(&t, 0, &len), "key 0 is a bucket head, not a node");
	cr_assert_null(res_lookup(&t, 4, &len), "a bucket head is not a node");
	cr_assert_null(res_lookup(&t, key + 1, &len), "misaligned key");
	cr_assert_null(res_lookup(&t, key + 4, &len), "key inside a node");
	cr_assert_null(res_lookup(&t, key + 12, &len), "key at a node's data");
	cr_assert_null(res_lookup(&t, t.used, &len), "key at the end of the used area");
	cr_assert_null(res_lookup(&t, t.used + 64, &len), "key beyond used");
	cr_assert_null(res_lookup(&t, UINT32_MAX & ~3u, &len), "key that wraps 32 bits");
	cr_assert_null(res_lookup(NULL, key, &len));
	cr_assert_eq(len, 4242, "a failed lookup must not write len");
}

Test(res_lookup, rejects_key_into_data_that_looks_like_a_node)
{
	/* Zero bytes read as next 0, self 0, len 0 and a NUL: a plausible empty node. */
	static const unsigned char zeros[16];
	struct res_table t = make_table(1024, 4);
	res_key key;

	cr_assert_eq(res_intern(&t, zeros, sizeof(zeros), &key), RES_OK);
	cr_assert_leq(key + 12 + RES_NODE_SIZE(0), t.used, "fake node must lie within used");
	cr_assert_null(res_lookup(&t, key + 12, NULL), "key into an entry's data");
	assert_reads_back(&t, key, zeros, sizeof(zeros));
}

Test(res_lookup, rejects_node_that_would_run_past_used)
{
	/*
	 * With one bucket the first node sits at offset 4 and its data at 16.
	 * The data fakes a node header at 16 (next 0, self 16, len 4) whose
	 * bytes would end past used, where a zeroed buffer offers a NUL.
	 */
	const uint32_t fake_header[3] = { 0, 16, 4 };
	struct res_table t;
	res_key key;

	memset(storage, 0, sizeof(storage));
	cr_assert_eq(res_table_init(&t, storage, 1024, 1), RES_OK);
	cr_assert_eq(res_intern(&t, fake_header, sizeof(fake_header), &key), RES_OK);
	cr_assert_eq(key, 4);
	cr_assert_eq(t.used, 32);
	cr_assert_null(res_lookup(&t, 16, NULL));
}

Test(res_intern, finds_an_existing_entry_without_appending)
{
	struct res_table t = make_table(1024, 4);
	res_key key, found = 5;
	uint32_t used;

	cr_assert_eq(res_intern_str(&t, "vda", &key), RES_OK);
	used = t.used;
	cr_assert_eq(res_intern(&t, "vda", 3, &found), RES_OK);
	cr_assert_eq(found, key);
	cr_assert_eq(t.used, used);
}

/* ---- stacks: zigzag LEB128 deltas, interned as bytes ---- */

static void assert_round_trip(const uint64_t *frames, size_t n)
{
	unsigned char encoded[STACK_MAX_ENCODED];
	uint64_t decoded[STACK_MAX_FRAMES + 1];
	size_t len = stack_encode(frames, n, encoded, sizeof(encoded));
	size_t i;

	cr_assert(n == 0 || len > 0, "%zu frames did not encode", n);
	cr_assert_leq(len, n * 10);
	cr_assert_eq(stack_decode(encoded, len, decoded, STACK_MAX_FRAMES), (int)n,
		     "%zu frames in %zu bytes", n, len);
	for (i = 0; i < n; i++)
		cr_assert_eq(decoded[i], frames[i], "frame %zu: %#llx, encoded %#llx", i,
			     (unsigned long long)decoded[i], (unsigned long long)frames[i]);
}

Test(stack_encode, empty_stack_is_zero_bytes)
{
	unsigned char encoded[16];
	uint64_t decoded[1] = { 77 };

	cr_assert_eq(stack_encode(NULL, 0, encoded, sizeof(encoded)), 0);
	cr_assert_eq(stack_decode(encoded, 0, decoded, 1), 0);
	cr_assert_eq(stack_decode(NULL, 0, NULL, 0), 0);
	cr_assert_eq(decoded[0], 77, "an empty decode must not write");
}

Test(stack_encode, one_frame_and_small_deltas_are_short)
{
	const uint64_t zero[] = { 0 };
	const uint64_t user[] = { 0x401136, 0x401150, 0x401122 };
	const uint64_t kernel[] = { 0xffffffff81234567ull, 0xffffffff81234000ull };
	unsigned char encoded[STACK_MAX_ENCODED];

	assert_round_trip(zero, 1);
	cr_assert_eq(stack_encode(zero, 1, encoded, sizeof(encoded)), 1);
	cr_assert_eq(encoded[0], 0);
	assert_round_trip(user, 3);
	/* 0x401136 (zigzag 23 bits: 4 bytes), +0x1a (1 byte), -0x2e (1 byte). */
	cr_assert_eq(stack_encode(user, 3, encoded, sizeof(encoded)), 6);
	/* A kernel address is a small negative number: 5 bytes, not 10. */
	assert_round_trip(kernel, 2);
	cr_assert_eq(stack_encode(kernel, 2, encoded, sizeof(encoded)), 5 + 2);
}

Test(stack_encode, zigzag_bytes_are_as_documented)
{
	/* 1 -> 2, then -1 (1 - 2) -> 1, then +64 -> 128 = 0x80 0x01. */
	const uint64_t frames[] = { 1, 0, 64 };
	const unsigned char expected[] = { 0x02, 0x01, 0x80, 0x01 };
	unsigned char encoded[16];

	cr_assert_eq(stack_encode(frames, 3, encoded, sizeof(encoded)), sizeof(expected));
	cr_assert_eq(memcmp(encoded, expected, sizeof(expected)), 0);
}

Test(stack_encode, most_frames_descending_and_huge_deltas)
{
	uint64_t frames[STACK_MAX_FRAMES];
	unsigned char encoded[STACK_MAX_ENCODED];
	size_t i;

	for (i = 0; i < STACK_MAX_FRAMES; i++)
		frames[i] = 0x7fff00001000ull - i * 0x40;
	assert_round_trip(frames, STACK_MAX_FRAMES);

	/* 0 <-> all ones, alternating: each delta is +-(2^64 - 1), the longest varint. */
	for (i = 0; i < STACK_MAX_FRAMES; i++)
		frames[i] = i % 2 ? 0 : UINT64_MAX;
	assert_round_trip(frames, STACK_MAX_FRAMES);
	for (i = 0; i < STACK_MAX_FRAMES; i++)
		frames[i] = i % 2 ? UINT64_MAX : 0;
	assert_round_trip(frames, STACK_MAX_FRAMES);

	/* Deltas of 2^63 either way: zigzag must not overflow. */
	for (i = 0; i < STACK_MAX_FRAMES; i++)
		frames[i] = i % 2 ? 0x8000000000000000ull : 0;
	assert_round_trip(frames, STACK_MAX_FRAMES);

	/* The worst case, every varint 10 bytes (zigzag of 2^63 is 2^64 - 1), fills
	 * STACK_MAX_ENCODED exactly, and one byte less is too small. */
	for (i = 0; i < STACK_MAX_FRAMES; i++)
		frames[i] = i % 2 ? 0 : 0x8000000000000000ull;
	assert_round_trip(frames, STACK_MAX_FRAMES);
	cr_assert_eq(stack_encode(frames, STACK_MAX_FRAMES, encoded, sizeof(encoded)),
		     STACK_MAX_ENCODED);
	cr_assert_eq(stack_encode(frames, STACK_MAX_FRAMES, encoded, sizeof(encoded) - 1), 0);
}

Test(stack_encode, rejects_too_many_frames_and_small_buffers)
{
	uint64_t frames[STACK_MAX_FRAMES + 1] = { 0 };
	unsigned char encoded[STACK_MAX_ENCODED + 16];
	const uint64_t big[] = { 0x401136 };

	cr_assert_eq(stack_encode(frames, STACK_MAX_FRAMES + 1, encoded, sizeof(encoded)), 0);
	cr_assert_eq(stack_encode(big, 1, encoded, 3), 0, "4 bytes needed");
	cr_assert_eq(stack_encode(big, 1, encoded, 4), 4);
	cr_assert_eq(stack_encode(big, 1, encoded, 0), 0);
}

Test(stack_decode, rejects_bytes_no_encoder_writes)
{
	const unsigned char truncated[] = { 0x02, 0x80 };
	const unsigned char eleven[] = { 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80,
					 0x80, 0x00 };
	const unsigned char ten_overflowing[] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
						  0xff, 0xff, 0x02 };
	const unsigned char ten_ok[] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
					 0xff, 0x01 };
	uint64_t frames[STACK_MAX_FRAMES + 2];
	unsigned char many[STACK_MAX_FRAMES + 1];

	cr_assert_eq(stack_decode(truncated, sizeof(truncated), frames, 4), -1);
	cr_assert_eq(stack_decode(truncated, 1, frames, 4), 1);
	cr_assert_eq(stack_decode(eleven, sizeof(eleven), frames, 4), -1);
	cr_assert_eq(stack_decode(ten_overflowing, sizeof(ten_overflowing), frames, 4), -1);
	cr_assert_eq(stack_decode(ten_ok, sizeof(ten_ok), frames, 4), 1);
	/* Zigzag 2^64 - 1 is -2^63, a step from 0 to 2^63. */
	cr_assert_eq(frames[0], 0x8000000000000000ull);

	/* One zero byte a frame: 128 frames are too many for the table's stacks. */
	memset(many, 0, sizeof(many));
	cr_assert_eq(stack_decode(many, STACK_MAX_FRAMES, frames, STACK_MAX_FRAMES),
		     STACK_MAX_FRAMES);
	cr_assert_eq(stack_decode(many, sizeof(many), frames, STACK_MAX_FRAMES), -1);
	cr_assert_eq(stack_decode(many, 3, frames, 2), -1, "more frames than max");
	cr_assert_eq(stack_decode(many, 3, NULL, 0), -1);
}

static struct res_table make_stack_table(size_t size)
{
	return make_table(size, 16);
}

Test(res_intern_stack, same_frames_same_key_and_frames_read_back)
{
	struct res_table t = make_stack_table(4096);
	const uint64_t a[] = { 0xffffffff81234567ull, 0xffffffff81200000ull, 0xffffffff81100000ull };
	const uint64_t a_prefix[] = { 0xffffffff81234567ull, 0xffffffff81200000ull };
	const uint64_t b[] = { 0x401136, 0x401150 };
	uint64_t frames[STACK_MAX_FRAMES];
	res_key key_a, key_a_again, key_prefix, key_b, key_empty, key_empty_again;
	uint32_t used;

	cr_assert_eq(res_intern_stack(&t, a, 3, &key_a), RES_OK);
	cr_assert_eq(res_intern_stack(&t, a_prefix, 2, &key_prefix), RES_OK);
	cr_assert_eq(res_intern_stack(&t, b, 2, &key_b), RES_OK);
	cr_assert_eq(res_intern_stack(&t, NULL, 0, &key_empty), RES_OK);
	cr_assert_neq(key_a, key_prefix);
	cr_assert_neq(key_a, key_b);
	cr_assert_neq(key_prefix, key_b);
	cr_assert_neq(key_empty, key_a);

	used = t.used;
	cr_assert_eq(res_intern_stack(&t, a, 3, &key_a_again), RES_OK);
	cr_assert_eq(key_a_again, key_a);
	cr_assert_eq(res_intern_stack(&t, frames, 0, &key_empty_again), RES_OK);
	cr_assert_eq(key_empty_again, key_empty);
	cr_assert_eq(t.used, used, "known stacks appended");

	cr_assert_eq(res_stack_frames(&t, key_a, frames, STACK_MAX_FRAMES), 3);
	cr_assert_eq(memcmp(frames, a, sizeof(a)), 0);
	cr_assert_eq(res_stack_frames(&t, key_b, frames, STACK_MAX_FRAMES), 2);
	cr_assert_eq(memcmp(frames, b, sizeof(b)), 0);
	cr_assert_eq(res_stack_frames(&t, key_empty, frames, STACK_MAX_FRAMES), 0);
	cr_assert_eq(res_stack_frames(&t, key_a, frames, 2), -1, "3 frames into 2");
}

Test(res_intern_stack, longest_stack_interns_and_one_more_frame_is_too_big)
{
	struct res_table t = make_stack_table(sizeof(storage));
	uint64_t frames[STACK_MAX_FRAMES + 1], back[STACK_MAX_FRAMES];
	res_key key = 5;
	size_t i;

	for (i = 0; i < STACK_MAX_FRAMES + 1; i++)
		frames[i] = i % 2 ? 0 : UINT64_MAX;
	cr_assert_eq(res_intern_stack(&t, frames, STACK_MAX_FRAMES, &key), RES_OK);
	cr_assert_eq(res_stack_frames(&t, key, back, STACK_MAX_FRAMES), STACK_MAX_FRAMES);
	cr_assert_eq(memcmp(back, frames, sizeof(back)), 0);
	key = 5;
	cr_assert_eq(res_intern_stack(&t, frames, STACK_MAX_FRAMES + 1, &key), RES_TOO_BIG);
	cr_assert_eq(key, 5);
	cr_assert_eq(res_intern_stack(&t, NULL, 1, &key), RES_INVALID);
	cr_assert_eq(res_intern_stack(NULL, frames, 1, &key), RES_INVALID);
}

Test(res_intern_stack, full_table_refuses_new_stacks_and_finds_old_ones)
{
	struct res_table t = make_stack_table(1024);
	uint64_t frames[8], back[8];
	res_key keys[256], key = 99;
	uint32_t used;
	int count, status = RES_OK, i, j;

	for (count = 0; count < 256; count++) {
		for (j = 0; j < 8; j++)
			frames[j] = 0x400000 + (uint64_t)count * 0x100 + j * 8;
		status = res_intern_stack(&t, frames, 8, &keys[count]);
		if (status != RES_OK)
			break;
	}
	cr_assert_eq(status, RES_OUT_OF_SPACE, "1024 bytes never filled");
	cr_assert_gt(count, 5);
	used = t.used;
	cr_assert_eq(res_intern_stack(&t, frames, 8, &key), RES_OUT_OF_SPACE);
	cr_assert_eq(key, 99, "a refused stack must not write the key");
	cr_assert_eq(t.used, used);

	for (i = 0; i < count; i++) {
		for (j = 0; j < 8; j++)
			frames[j] = 0x400000 + (uint64_t)i * 0x100 + j * 8;
		cr_assert_eq(res_intern_stack(&t, frames, 8, &key), RES_OK,
			     "stack %d lost in a full table", i);
		cr_assert_eq(key, keys[i]);
		cr_assert_eq(res_stack_frames(&t, key, back, 8), 8);
		cr_assert_eq(memcmp(back, frames, sizeof(frames)), 0);
	}
	cr_assert_eq(t.used, used);
}

Test(res_stack_frames, unknown_key_is_minus_one)
{
	struct res_table t = make_stack_table(1024);
	const uint64_t one[] = { 0x401136 };
	uint64_t frames[4];
	res_key key;

	cr_assert_eq(res_stack_frames(&t, 16 * 4, frames, 4), -1, "empty table");
	cr_assert_eq(res_intern_stack(&t, one, 1, &key), RES_OK);
	cr_assert_eq(res_stack_frames(&t, key + 4, frames, 4), -1);
	cr_assert_eq(res_stack_frames(&t, t.used, frames, 4), -1);
	cr_assert_eq(res_stack_frames(&t, 0, frames, 4), -1);
	cr_assert_eq(res_stack_frames(NULL, key, frames, 4), -1);
	cr_assert_eq(res_stack_frames(&t, key, frames, 4), 1);
}
