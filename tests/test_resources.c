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
