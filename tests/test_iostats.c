// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the per-process rows (iostats.c): cumulative kernel counters
 * to per-interval deltas, eviction of rows of dead processes, and the
 * display order.
 */
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/types.h>
#include "iostats.h"

#define U64_MAX_ UINT64_MAX
#define P63 (UINT64_C(1) << 63)
#define P32 (UINT64_C(1) << 32)

/* xorshift64*: a fixed seed makes every failure reproducible. */
static uint64_t prng_state = 0x9e3779b97f4a7c15ULL;

static uint64_t prng_next(void)
{
	prng_state ^= prng_state >> 12;
	prng_state ^= prng_state << 25;
	prng_state ^= prng_state >> 27;
	return prng_state * 0x2545f4914f6cdd1dULL;
}

static struct proc_dev_key make_key(uint32_t tgid, uint32_t dev, const char *comm)
{
	struct proc_dev_key key;

	memset(&key, 0, sizeof(key));
	key.tgid = tgid;
	key.dev = dev;
	memcpy(key.comm, comm, strnlen(comm, sizeof(key.comm) - 1));
	return key;
}

static void fill(uint64_t c[PMEM_NR_COUNTERS], uint64_t base)
{
	for (int i = 0; i < PMEM_NR_COUNTERS; i++)
		c[i] = base * (i + 1);
}

/* ---- fake process table and kernel map for iostats_end_interval() ---- */

#define MAX_FORGOTTEN 16384

struct world {
	bool all_alive;
	uint32_t alive[8];		/* tgids alive when !all_alive */
	size_t nalive;
	struct proc_dev_key forgotten[MAX_FORGOTTEN];
	size_t nforgotten;
	size_t alive_calls;
};

static bool fake_is_alive(uint32_t tgid, void *arg)
{
	struct world *w = arg;

	w->alive_calls++;
	if (w->all_alive)
		return true;
	for (size_t i = 0; i < w->nalive; i++)
		if (w->alive[i] == tgid)
			return true;
	return false;
}

static void fake_forget(const struct proc_dev_key *key, void *arg)
{
	struct world *w = arg;

	cr_assert_lt(w->nforgotten, MAX_FORGOTTEN);
	w->forgotten[w->nforgotten++] = *key;
}

static struct proc_io *find_row(struct iostats *t, uint32_t tgid, uint32_t dev)
{
	for (size_t i = 0; i < t->count; i++)
		if (t->rows[i].key.tgid == tgid && t->rows[i].key.dev == dev)
			return &t->rows[i];
	return NULL;
}

/* ---- counters from the kernel ---- */

Test(iostats, counters_from_kernel_map_each_field)
{
	struct proc_dev_stats s = {
		.bytes = { 11, 22, 33 }, .ios = { 1, 2, 3 }, .flushes = 4,
		.latency_ns = 5000, .latency_ios = 6,
	};
	uint64_t c[PMEM_NR_COUNTERS];

	memset(c, 0xaa, sizeof(c));
	iostats_counters_from_kernel(&s, c);
	cr_assert_eq(c[PMEM_READ_BYTES], 11);
	cr_assert_eq(c[PMEM_WRITE_BYTES], 22);
	cr_assert_eq(c[PMEM_DISCARD_BYTES], 33);
	cr_assert_eq(c[PMEM_READ_IOS], 1);
	cr_assert_eq(c[PMEM_WRITE_IOS], 2);
	cr_assert_eq(c[PMEM_DISCARD_IOS], 3);
	cr_assert_eq(c[PMEM_FLUSHES], 4);
	cr_assert_eq(c[PMEM_LATENCY_NS], 5000);
	cr_assert_eq(c[PMEM_LATENCY_IOS], 6);
}

/* ---- deltas and totals ---- */
/* Tests that record many keys have a timeout: a broken index loops forever. */

Test(iostats, first_record_is_all_new)
{
	struct iostats t;
	struct proc_dev_key k = make_key(100, 8 << 20, "dd");
	uint64_t c[PMEM_NR_COUNTERS];
	struct proc_io *row;
	bool created = false;

	iostats_init(&t);
	fill(c, 1000);
	row = iostats_record(&t, &k, c, &created);
	cr_assert_not_null(row);
	cr_assert(created);
	cr_assert_eq(t.count, 1);
	cr_assert_eq(row->key.tgid, 100);
	cr_assert_eq(row->key.dev, 8 << 20);
	cr_assert_str_eq(row->key.comm, "dd");
	cr_assert(row->updated);
	for (int i = 0; i < PMEM_NR_COUNTERS; i++) {
		cr_assert_eq(row->delta[i], c[i], "counter %d", i);
		cr_assert_eq(row->total[i], c[i], "counter %d", i);
		cr_assert_eq(row->seen[i], c[i], "counter %d", i);
	}
	iostats_free(&t);
	cr_assert_eq(t.count, 0);
	cr_assert_null(t.rows);
}

Test(iostats, delta_is_change_since_last_record_total_accumulates)
{
	struct iostats t;
	struct proc_dev_key k = make_key(100, 1, "dd");
	uint64_t c[PMEM_NR_COUNTERS];
	struct proc_io *row;
	bool created;
	struct world w = { .all_alive = true };

	iostats_init(&t);
	fill(c, 1000);
	iostats_record(&t, &k, c, &created);
	iostats_end_interval(&t, 1, false, fake_is_alive, fake_forget, &w);

	iostats_begin_interval(&t);
	cr_assert_eq(t.rows[0].delta[PMEM_READ_BYTES], 0, "begin_interval must zero deltas");
	cr_assert_not(t.rows[0].updated);
	fill(c, 1500);
	row = iostats_record(&t, &k, c, &created);
	cr_assert_not(created);
	cr_assert_eq(t.count, 1);
	for (int i = 0; i < PMEM_NR_COUNTERS; i++) {
		cr_assert_eq(row->delta[i], 500 * (uint64_t)(i + 1), "counter %d", i);
		cr_assert_eq(row->total[i], 1500 * (uint64_t)(i + 1), "counter %d", i);
	}
	iostats_end_interval(&t, 1, false, fake_is_alive, fake_forget, &w);

	/* An interval without change: delta 0, total unchanged. */
	iostats_begin_interval(&t);
	row = iostats_record(&t, &k, c, &created);
	cr_assert_not(created);
	for (int i = 0; i < PMEM_NR_COUNTERS; i++) {
		cr_assert_eq(row->delta[i], 0, "counter %d", i);
		cr_assert_eq(row->total[i], 1500 * (uint64_t)(i + 1), "counter %d", i);
	}
	iostats_end_interval(&t, 5, false, fake_is_alive, fake_forget, &w);
	cr_assert_eq(t.rows[0].idle_intervals, 1);
	cr_assert_eq(w.nforgotten, 0);
	iostats_free(&t);
}

Test(iostats, big_counters_are_exact)
{
	struct iostats t;
	struct proc_dev_key k = make_key(7, 1, "big");
	uint64_t c[PMEM_NR_COUNTERS] = { 0 };
	struct proc_io *row;
	bool created;

	iostats_init(&t);
	c[PMEM_WRITE_BYTES] = 5000000000ULL;
	iostats_record(&t, &k, c, &created);
	iostats_begin_interval(&t);
	c[PMEM_WRITE_BYTES] = U64_MAX_ - 1;
	row = iostats_record(&t, &k, c, &created);
	cr_assert_eq(row->delta[PMEM_WRITE_BYTES], U64_MAX_ - 1 - 5000000000ULL);
	cr_assert_eq(row->total[PMEM_WRITE_BYTES], U64_MAX_ - 1);
	iostats_free(&t);
}

Test(iostats, counter_going_backwards_counts_new_value_as_all_new)
{
	struct iostats t;
	struct proc_dev_key k = make_key(200, 3, "db");
	uint64_t c[PMEM_NR_COUNTERS];
	struct proc_io *row;
	bool created;

	iostats_init(&t);
	fill(c, 1000);
	iostats_record(&t, &k, c, &created);
	iostats_begin_interval(&t);

	/* The kernel entry was deleted and recreated: it starts again from
	 * small values; only one counter needs to be below what was seen. */
	fill(c, 3);
	row = iostats_record(&t, &k, c, &created);
	cr_assert_not(created);
	for (int i = 0; i < PMEM_NR_COUNTERS; i++) {
		cr_assert_eq(row->delta[i], 3 * (uint64_t)(i + 1), "counter %d", i);
		cr_assert_eq(row->total[i], 1003 * (uint64_t)(i + 1), "counter %d", i);
		cr_assert_eq(row->seen[i], 3 * (uint64_t)(i + 1), "counter %d", i);
	}
	iostats_free(&t);
}

Test(iostats, one_counter_backwards_restarts_all_counters)
{
	struct iostats t;
	struct proc_dev_key k = make_key(200, 3, "db");
	uint64_t c[PMEM_NR_COUNTERS];
	struct proc_io *row;
	bool created;

	iostats_init(&t);
	fill(c, 1000);
	iostats_record(&t, &k, c, &created);
	iostats_begin_interval(&t);
	/* Recreated entry that has already done more writes than before but
	 * fewer reads: everything in it is new. */
	fill(c, 1000);
	c[PMEM_READ_BYTES] = 10;
	c[PMEM_WRITE_BYTES] = 5000;
	row = iostats_record(&t, &k, c, &created);
	cr_assert_eq(row->delta[PMEM_READ_BYTES], 10);
	cr_assert_eq(row->delta[PMEM_WRITE_BYTES], 5000);
	cr_assert_eq(row->delta[PMEM_FLUSHES], c[PMEM_FLUSHES]);
	cr_assert_eq(row->total[PMEM_WRITE_BYTES], 2000 + 5000);
	iostats_free(&t);
}

Test(iostats, keys_differing_only_in_comm_or_device_are_separate_rows)
{
	struct iostats t;
	struct proc_dev_key a = make_key(1, 1, "a"), b = make_key(1, 1, "b"),
			    c2 = make_key(1, 2, "a");
	uint64_t c[PMEM_NR_COUNTERS];
	bool created;

	iostats_init(&t);
	fill(c, 1);
	iostats_record(&t, &a, c, &created);
	cr_assert(created);
	iostats_record(&t, &b, c, &created);
	cr_assert(created);
	iostats_record(&t, &c2, c, &created);
	cr_assert(created);
	iostats_record(&t, &a, c, &created);
	cr_assert_not(created);
	cr_assert_eq(t.count, 3);
	iostats_free(&t);
}

/* ---- eviction ---- */

/* Three intervals without change of a dead process's row, min_idle 2. */
static void idle_dead_row(bool keep_totals)
{
	struct iostats t;
	struct proc_dev_key k = make_key(300, 5, "gone"), live = make_key(301, 5, "live");
	uint64_t c[PMEM_NR_COUNTERS];
	struct world w = { .nalive = 1, .alive = { 301 } };
	bool created;
	size_t n;

	iostats_init(&t);
	fill(c, 10);
	iostats_record(&t, &k, c, &created);
	iostats_record(&t, &live, c, &created);
	n = iostats_end_interval(&t, 2, keep_totals, fake_is_alive, fake_forget, &w);
	cr_assert_eq(n, 0, "an active row must not be forgotten");
	cr_assert_eq(t.count, 2);

	iostats_begin_interval(&t);
	iostats_record(&t, &k, c, &created);
	iostats_record(&t, &live, c, &created);
	n = iostats_end_interval(&t, 2, keep_totals, fake_is_alive, fake_forget, &w);
	cr_assert_eq(n, 0, "idle 1 < min_idle 2: kept");
	cr_assert_eq(t.count, 2);
	cr_assert_eq(w.nforgotten, 0);

	iostats_begin_interval(&t);
	iostats_record(&t, &k, c, &created);
	iostats_record(&t, &live, c, &created);
	n = iostats_end_interval(&t, 2, keep_totals, fake_is_alive, fake_forget, &w);
	cr_assert_eq(n, 1);
	cr_assert_eq(w.nforgotten, 1);
	cr_assert_eq(w.forgotten[0].tgid, 300);
	cr_assert_eq(w.forgotten[0].dev, 5);
	cr_assert_str_eq(w.forgotten[0].comm, "gone");
	cr_assert_not_null(find_row(&t, 301, 5), "the live row must stay");
	cr_assert_not_null(find_row(&t, 300, 5), "kept until its deleted entry is counted");
	cr_assert(find_row(&t, 300, 5)->forgetting);

	/* The loader deleted its kernel entry, which held nothing new. */
	iostats_begin_interval(&t);
	iostats_restart_forgotten(&t);
	cr_assert_not(find_row(&t, 300, 5)->forgetting);
	iostats_record(&t, &live, c, &created);
	n = iostats_end_interval(&t, 2, keep_totals, fake_is_alive, fake_forget, &w);
	cr_assert_eq(n, 0, "nothing is forgotten twice");
	cr_assert_eq(w.nforgotten, 1);

	if (keep_totals) {
		struct proc_io *row = find_row(&t, 300, 5);

		cr_assert_eq(t.count, 2);
		cr_assert_not_null(row, "keep_totals: the row stays");
		for (int i = 0; i < PMEM_NR_COUNTERS; i++)
			cr_assert_eq(row->total[i], c[i], "counter %d", i);

		/* A new kernel entry for the same key counts from zero. */
		iostats_begin_interval(&t);
		fill(c, 2);
		row = iostats_record(&t, &k, c, &created);
		cr_assert_not(created);
		cr_assert_eq(row->delta[PMEM_READ_BYTES], 2);
		cr_assert_eq(row->total[PMEM_READ_BYTES], 12);
	} else {
		struct proc_io *row;

		cr_assert_eq(t.count, 1);
		cr_assert_null(find_row(&t, 300, 5), "the dead idle row must be dropped");

		/* The remaining row is still found through the index. */
		iostats_begin_interval(&t);
		row = iostats_record(&t, &live, c, &created);
		cr_assert_not(created);
		cr_assert_eq(t.count, 1);
		cr_assert_eq(row->total[PMEM_READ_BYTES], 10);

		/* The dropped key comes back as a new row. */
		row = iostats_record(&t, &k, c, &created);
		cr_assert(created);
		cr_assert_eq(t.count, 2);
		cr_assert_eq(row->delta[PMEM_READ_BYTES], 10);
	}
	iostats_free(&t);
}

Test(iostats, dead_idle_row_is_forgotten_and_dropped, .timeout = 60)
{
	idle_dead_row(false);
}

Test(iostats, dead_idle_row_is_forgotten_but_kept_with_keep_totals, .timeout = 60)
{
	idle_dead_row(true);
}

Test(iostats, live_idle_rows_are_kept)
{
	struct iostats t;
	struct proc_dev_key k = make_key(400, 1, "idle");
	uint64_t c[PMEM_NR_COUNTERS];
	struct world w = { .all_alive = true };
	bool created;

	iostats_init(&t);
	fill(c, 1);
	for (int i = 0; i < 10; i++) {
		iostats_begin_interval(&t);
		iostats_record(&t, &k, c, &created);
		cr_assert_eq(iostats_end_interval(&t, 1, false, fake_is_alive, fake_forget, &w), 0);
	}
	cr_assert_eq(t.count, 1);
	cr_assert_eq(w.nforgotten, 0);
	cr_assert_eq(t.rows[0].idle_intervals, 9);
	iostats_free(&t);
}

Test(iostats, dead_but_active_rows_are_kept)
{
	struct iostats t;
	struct proc_dev_key k = make_key(500, 1, "busy");
	uint64_t c[PMEM_NR_COUNTERS];
	struct world w = { .all_alive = false };
	bool created;

	iostats_init(&t);
	for (int i = 1; i <= 10; i++) {
		iostats_begin_interval(&t);
		fill(c, i);
		iostats_record(&t, &k, c, &created);
		cr_assert_eq(iostats_end_interval(&t, 1, false, fake_is_alive, fake_forget, &w), 0);
		cr_assert_eq(t.rows[0].idle_intervals, 0);
	}
	cr_assert_eq(t.count, 1);
	cr_assert_eq(w.nforgotten, 0);
	iostats_free(&t);
}

Test(iostats, eviction_of_many_keeps_the_rest_findable, .timeout = 60)
{
	struct iostats t;
	uint64_t c[PMEM_NR_COUNTERS];
	struct world w = { .all_alive = false };
	bool created;
	const uint32_t n = 300;

	iostats_init(&t);
	/* Interval 1: every row active. */
	for (uint32_t i = 1; i <= n; i++) {
		struct proc_dev_key k = make_key(i, i % 7, "p");

		fill(c, i);
		iostats_record(&t, &k, c, &created);
		cr_assert(created);
	}
	iostats_end_interval(&t, 1, false, fake_is_alive, fake_forget, &w);
	cr_assert_eq(t.count, n);
	/* Interval 2: only odd tgids change; even ones are idle and dead. */
	iostats_begin_interval(&t);
	for (uint32_t i = 1; i <= n; i++) {
		struct proc_dev_key k = make_key(i, i % 7, "p");

		fill(c, i % 2 ? 2 * i : i);
		iostats_record(&t, &k, c, &created);
		cr_assert_not(created);
	}
	cr_assert_eq(iostats_end_interval(&t, 1, false, fake_is_alive, fake_forget, &w), n / 2);
	cr_assert_eq(t.count, n, "kept until their deleted entries are counted");
	for (size_t i = 0; i < w.nforgotten; i++)
		cr_assert_eq(w.forgotten[i].tgid % 2, 0);
	/* Interval 2b: the even ones' entries are gone, they are dropped; the
	 * odd ones change again. */
	iostats_begin_interval(&t);
	iostats_restart_forgotten(&t);
	for (uint32_t i = 1; i <= n; i += 2) {
		struct proc_dev_key k = make_key(i, i % 7, "p");

		fill(c, 2 * i + 1);
		iostats_record(&t, &k, c, &created);
	}
	cr_assert_eq(iostats_end_interval(&t, 1, false, fake_is_alive, fake_forget, &w), 0);
	cr_assert_eq(t.count, n / 2);
	/* Interval 3: the odd ones are found again, the even ones are new. */
	iostats_begin_interval(&t);
	for (uint32_t i = 1; i <= n; i++) {
		struct proc_dev_key k = make_key(i, i % 7, "p");
		struct proc_io *row;

		fill(c, 3 * i);
		row = iostats_record(&t, &k, c, &created);
		cr_assert_not_null(row);
		cr_assert_eq(created, i % 2 == 0, "tgid %u", i);
		cr_assert_eq(row->delta[PMEM_READ_BYTES], i % 2 ? i - 1 : 3 * i, "tgid %u", i);
	}
	cr_assert_eq(t.count, n);
	iostats_free(&t);
}

Test(iostats, kernel_rows_of_tgid_zero_are_never_forgotten)
{
	struct iostats t;
	struct proc_dev_key k = make_key(0, 1, "");
	uint64_t c[PMEM_NR_COUNTERS];
	struct world w = { .all_alive = false };
	bool created;

	iostats_init(&t);
	fill(c, 1);
	for (int i = 0; i < 5; i++) {
		iostats_begin_interval(&t);
		iostats_record(&t, &k, c, &created);
		iostats_end_interval(&t, 1, false, fake_is_alive, fake_forget, &w);
	}
	cr_assert_eq(t.count, 1);
	cr_assert_eq(w.nforgotten, 0);
	iostats_free(&t);
}

Test(iostats, five_thousand_rows_are_all_found_again, .timeout = 60)
{
	struct iostats t;
	uint64_t c[PMEM_NR_COUNTERS];
	struct world w = { .all_alive = true };
	bool created;
	const uint32_t n = 5000;

	iostats_init(&t);
	for (uint32_t i = 0; i < n; i++) {
		char comm[TASK_COMM_LEN];
		struct proc_dev_key k;
		struct proc_io *row;

		snprintf(comm, sizeof(comm), "w%u", i % 13);
		k = make_key(1000 + i / 3, (i % 3) << 20, comm);
		fill(c, i + 1);
		row = iostats_record(&t, &k, c, &created);
		cr_assert_not_null(row);
		cr_assert(created, "row %u", i);
	}
	cr_assert_eq(t.count, n);
	cr_assert_gt(t.index_size, 2 * t.count);
	iostats_end_interval(&t, 1, false, fake_is_alive, fake_forget, &w);
	iostats_begin_interval(&t);
	for (uint32_t i = 0; i < n; i++) {
		char comm[TASK_COMM_LEN];
		struct proc_dev_key k;
		struct proc_io *row;

		snprintf(comm, sizeof(comm), "w%u", i % 13);
		k = make_key(1000 + i / 3, (i % 3) << 20, comm);
		fill(c, 2 * (i + 1));
		row = iostats_record(&t, &k, c, &created);
		cr_assert_not_null(row);
		cr_assert_not(created, "row %u not found again", i);
		cr_assert_eq(row->key.tgid, k.tgid);
		cr_assert_eq(row->delta[PMEM_READ_BYTES], i + 1, "row %u", i);
		cr_assert_eq(row->total[PMEM_READ_BYTES], 2 * (i + 1), "row %u", i);
	}
	cr_assert_eq(t.count, n);
	iostats_free(&t);
}

/* ---- order ---- */

static void row_init(struct proc_io *row, uint32_t tgid, uint32_t dev)
{
	memset(row, 0, sizeof(*row));
	row->key.tgid = tgid;
	row->key.dev = dev;
}

static int cmp(const struct proc_io *a, const struct proc_io *b, enum sort_key key)
{
	return iostats_compare(a, b, key, false, NULL);
}

/* a strictly before b, both ways round. */
static void expect_before(const struct proc_io *a, const struct proc_io *b, enum sort_key key)
{
	cr_assert_lt(cmp(a, b, key), 0, "key %s: a (tgid %u) should come first",
		     sort_key_name(key), a->key.tgid);
	cr_assert_gt(cmp(b, a, key), 0, "key %s: b (tgid %u) should come last",
		     sort_key_name(key), b->key.tgid);
}

Test(iostats_compare, bytes_descending_with_values_over_2_32)
{
	struct proc_io a, b;

	/* a has 2^32 bytes (0 if truncated to 32 bits), b just 1. */
	row_init(&a, 2, 1);
	row_init(&b, 1, 1);
	a.delta[PMEM_WRITE_BYTES] = P32;
	b.delta[PMEM_WRITE_BYTES] = 1;
	expect_before(&a, &b, SORT_BYTES);
	expect_before(&a, &b, SORT_WRITE);
	a.delta[PMEM_READ_BYTES] = P32 + 1;
	b.delta[PMEM_READ_BYTES] = P32;
	expect_before(&a, &b, SORT_READ);
}

Test(iostats_compare, near_2_64_compares_correctly)
{
	struct proc_io a, b;

	row_init(&a, 2, 1);
	row_init(&b, 1, 1);
	a.delta[PMEM_READ_BYTES] = U64_MAX_;
	b.delta[PMEM_READ_BYTES] = U64_MAX_ - 1;
	expect_before(&a, &b, SORT_READ);
	expect_before(&a, &b, SORT_BYTES);
	b.delta[PMEM_READ_BYTES] = 0;
	expect_before(&a, &b, SORT_READ);
	expect_before(&a, &b, SORT_BYTES);

	a.delta[PMEM_WRITE_BYTES] = U64_MAX_;
	b.delta[PMEM_WRITE_BYTES] = 1;
	expect_before(&a, &b, SORT_WRITE);
}

Test(iostats_compare, sum_of_three_near_2_63_does_not_wrap)
{
	struct proc_io a, b;

	/* a: 1.5 * 2^64 in all (2^63 once wrapped); b: 2^64 - 1. */
	row_init(&a, 2, 1);
	row_init(&b, 1, 1);
	a.delta[PMEM_READ_BYTES] = P63;
	a.delta[PMEM_WRITE_BYTES] = P63;
	a.delta[PMEM_DISCARD_BYTES] = P63;
	b.delta[PMEM_READ_BYTES] = U64_MAX_;
	expect_before(&a, &b, SORT_BYTES);

	a.delta[PMEM_READ_IOS] = P63;
	a.delta[PMEM_WRITE_IOS] = P63;
	a.delta[PMEM_DISCARD_IOS] = P63;
	b.delta[PMEM_WRITE_IOS] = U64_MAX_;
	expect_before(&a, &b, SORT_IOS);

	/* Three maximal values against two. */
	for (int i = 0; i < 3; i++)
		a.delta[PMEM_READ_BYTES + i] = U64_MAX_;
	b.delta[PMEM_READ_BYTES] = U64_MAX_;
	b.delta[PMEM_WRITE_BYTES] = U64_MAX_;
	b.delta[PMEM_DISCARD_BYTES] = U64_MAX_ - 1;
	expect_before(&a, &b, SORT_BYTES);
}

Test(iostats_compare, bytes_counts_discards)
{
	struct proc_io a, b;

	row_init(&a, 2, 1);
	row_init(&b, 1, 1);
	a.delta[PMEM_DISCARD_BYTES] = 100;
	b.delta[PMEM_READ_BYTES] = 50;
	b.delta[PMEM_WRITE_BYTES] = 49;
	expect_before(&a, &b, SORT_BYTES);
}

Test(iostats_compare, ios_descending)
{
	struct proc_io a, b;

	row_init(&a, 2, 1);
	row_init(&b, 1, 1);
	a.delta[PMEM_READ_IOS] = 3;
	a.delta[PMEM_DISCARD_IOS] = 3;
	b.delta[PMEM_WRITE_IOS] = 5;
	b.delta[PMEM_READ_BYTES] = 1000000;	/* bytes do not matter */
	expect_before(&a, &b, SORT_IOS);
}

Test(iostats_compare, latency_descending_and_no_samples_last)
{
	struct proc_io a, b, c;

	row_init(&a, 3, 1);
	row_init(&b, 2, 1);
	row_init(&c, 1, 1);
	a.delta[PMEM_LATENCY_NS] = 9000;	/* 3 us average */
	a.delta[PMEM_LATENCY_IOS] = 3;
	b.delta[PMEM_LATENCY_NS] = 4000;	/* 2 us average, bigger sum than... */
	b.delta[PMEM_LATENCY_IOS] = 2;
	/* c: no latency samples at all */
	expect_before(&a, &b, SORT_LATENCY);
	expect_before(&b, &c, SORT_LATENCY);
	expect_before(&a, &c, SORT_LATENCY);

	/* Averages, not sums: 10000 ns over 10 I/Os is less than 4000 over 2. */
	a.delta[PMEM_LATENCY_NS] = 10000;
	a.delta[PMEM_LATENCY_IOS] = 10;
	expect_before(&b, &a, SORT_LATENCY);
	/* Huge sums. */
	a.delta[PMEM_LATENCY_NS] = U64_MAX_;
	a.delta[PMEM_LATENCY_IOS] = 1;
	b.delta[PMEM_LATENCY_NS] = U64_MAX_;
	b.delta[PMEM_LATENCY_IOS] = 2;
	expect_before(&a, &b, SORT_LATENCY);
}

Test(iostats_compare, pid_ascending)
{
	struct proc_io a, b;

	row_init(&a, 5, 1);
	row_init(&b, 4000000, 1);
	a.delta[PMEM_READ_BYTES] = 1;
	b.delta[PMEM_READ_BYTES] = 1000;
	expect_before(&a, &b, SORT_PID);
	b.key.tgid = UINT32_MAX;
	a.key.tgid = 0;
	expect_before(&a, &b, SORT_PID);
}

Test(iostats_compare, comm_ascending_by_name)
{
	static uint32_t storage[1024];
	struct res_table names;
	struct proc_io a, b, c;

	cr_assert_eq(res_table_init(&names, storage, sizeof(storage), 16), RES_OK);
	row_init(&a, 3, 1);
	row_init(&b, 1, 1);
	row_init(&c, 2, 1);
	cr_assert_eq(res_intern_str(&names, "alpha", &a.comm_name), RES_OK);
	cr_assert_eq(res_intern_str(&names, "beta", &b.comm_name), RES_OK);
	cr_assert_eq(res_intern_str(&names, "betamax", &c.comm_name), RES_OK);
	b.delta[PMEM_READ_BYTES] = 1000;
	cr_assert_lt(iostats_compare(&a, &b, SORT_COMM, false, &names), 0);
	cr_assert_gt(iostats_compare(&b, &a, SORT_COMM, false, &names), 0);
	cr_assert_lt(iostats_compare(&b, &c, SORT_COMM, false, &names), 0);
	cr_assert_gt(iostats_compare(&c, &b, SORT_COMM, false, &names), 0);
}

/* The keys -s took from the top view: each orders two rows by its own
 * counter or name, whichever way their pids would. */
Test(iostats_compare, discard_iops_device_and_cgroup_keys)
{
	static const struct {
		enum sort_key key;
		enum pmem_counter_id counter;
	} numbers[] = {
		{ SORT_DISCARD, PMEM_DISCARD_BYTES }, { SORT_READ_IOS, PMEM_READ_IOS },
		{ SORT_WRITE_IOS, PMEM_WRITE_IOS }, { SORT_DISCARD_IOS, PMEM_DISCARD_IOS },
	};
	char buf[4096];
	struct res_table names;
	struct proc_io a, b;

	cr_assert_eq(res_table_init(&names, buf, sizeof(buf), 16), RES_OK);
	for (size_t i = 0; i < sizeof(numbers) / sizeof(numbers[0]); i++) {
		row_init(&a, 2, 1);
		row_init(&b, 1, 1);
		a.delta[numbers[i].counter] = 5;
		b.delta[numbers[i].counter] = 4;
		/* b reads more: only the key's own counter may decide */
		b.delta[PMEM_READ_BYTES] = 1 << 20;
		b.delta[numbers[i].counter == PMEM_READ_IOS ? PMEM_WRITE_IOS : PMEM_READ_IOS] = 99;
		expect_before(&a, &b, numbers[i].key);
	}
	row_init(&a, 2, 1);
	row_init(&b, 1, 1);
	cr_assert_eq(res_intern_str(&names, "sda", &a.device_name), RES_OK);
	cr_assert_eq(res_intern_str(&names, "vda", &b.device_name), RES_OK);
	cr_assert_eq(res_intern_str(&names, "/b.slice", &a.cgroup_name), RES_OK);
	cr_assert_eq(res_intern_str(&names, "/a.slice", &b.cgroup_name), RES_OK);
	cr_assert_lt(iostats_compare(&a, &b, SORT_DEVICE, false, &names), 0);
	cr_assert_gt(iostats_compare(&a, &b, SORT_CGROUP, false, &names), 0);
	b.cgroup_name = 0;	/* no cgroup2: before every path */
	cr_assert_lt(iostats_compare(&b, &a, SORT_CGROUP, false, &names), 0);
}

/* issue 45: -s errors sums every kind of failed I/O: 2 EIO and 2 ENOSPC
 * are more than 3 EIO, whatever else the rows did; near 2^64 the sum does
 * not wrap. */
Test(iostats_compare, errors_sum_every_kind)
{
	uint64_t x[PMEM_NR_COUNTERS] = { 0 }, y[PMEM_NR_COUNTERS] = { 0 };
	struct proc_io a, b;

	row_init(&a, 2, 1);
	row_init(&b, 1, 1);
	a.delta[PMEM_ERRORS + IO_ERR_EIO] = 2;
	a.delta[PMEM_ERRORS + IO_ERR_ENOSPC] = 2;
	b.delta[PMEM_ERRORS + IO_ERR_EIO] = 3;
	b.delta[PMEM_WRITE_IOS] = 99;
	expect_before(&a, &b, SORT_ERRORS);
	/* since start: b failed more */
	b.total[PMEM_ERRORS + IO_ERR_OTHER] = 9;
	cr_assert_lt(iostats_compare(&b, &a, SORT_ERRORS, true, NULL), 0);
	x[PMEM_ERRORS + IO_ERR_EIO] = UINT64_MAX;
	x[PMEM_ERRORS + IO_ERR_OTHER] = 2;	/* 1 in 64 bits */
	y[PMEM_ERRORS + IO_ERR_ETIMEDOUT] = 5;
	cr_assert_gt(row_counter_compare(x, y, ROW_ERRORS), 0);
	cr_assert_lt(row_counter_compare(y, x, ROW_ERRORS), 0);
}

/* The one list of keys: every key once, names unique, the directions
 * as the man page says them. */
Test(iostats_sort, the_list_of_keys_has_each_key_once)
{
	bool seen[SORT_NR_KEYS] = { false };

	for (size_t i = 0; i < SORT_NR_KEYS; i++) {
		cr_assert_lt((unsigned int)sort_keys[i].key, SORT_NR_KEYS);
		cr_assert_not(seen[sort_keys[i].key], "%s twice", sort_keys[i].name);
		seen[sort_keys[i].key] = true;
		for (size_t j = 0; j < i; j++)
			cr_assert_str_neq(sort_keys[i].name, sort_keys[j].name);
		cr_assert_eq(sort_key_ascending(sort_keys[i].key),
			     sort_keys[i].key == SORT_PID || sort_keys[i].key == SORT_COMM ||
			     sort_keys[i].key == SORT_DEVICE || sort_keys[i].key == SORT_CGROUP,
			     "%s", sort_keys[i].name);
	}
}

Test(iostats_compare, ties_are_broken_deterministically)
{
	struct proc_io a, b, c, d;

	row_init(&a, 10, 1);
	row_init(&b, 20, 1);
	row_init(&c, 10, 2);
	row_init(&d, 10, 2);
	strcpy(c.key.comm, "aaa");
	strcpy(d.key.comm, "bbb");
	for (enum sort_key key = SORT_BYTES; key <= SORT_COMM; key++) {
		if (key == SORT_PID)
			continue;
		/* Same values: by tgid, then device, then comm. */
		expect_before(&a, &b, key);
		expect_before(&a, &c, key);
		expect_before(&c, &d, key);
		cr_assert_eq(cmp(&a, &a, key), 0);
	}
	/* Same pid: by device, then comm. */
	expect_before(&a, &c, SORT_PID);
	expect_before(&c, &d, SORT_PID);
	cr_assert_eq(cmp(&d, &d, SORT_PID), 0);
}

Test(iostats_compare, cumulative_compares_totals)
{
	struct proc_io a, b;

	row_init(&a, 2, 1);
	row_init(&b, 1, 1);
	a.delta[PMEM_READ_BYTES] = 1;
	a.total[PMEM_READ_BYTES] = 1000;
	b.delta[PMEM_READ_BYTES] = 10;
	b.total[PMEM_READ_BYTES] = 10;
	cr_assert_gt(iostats_compare(&a, &b, SORT_READ, false, NULL), 0);
	cr_assert_lt(iostats_compare(&a, &b, SORT_READ, true, NULL), 0);
	cr_assert_lt(iostats_compare(&a, &b, SORT_BYTES, true, NULL), 0);
}

/* ---- sort ---- */

#define NSORT 200

static void shuffle(struct proc_io **p, size_t n)
{
	for (size_t i = n; i > 1; i--) {
		size_t j = prng_next() % i;
		struct proc_io *tmp = p[i - 1];

		p[i - 1] = p[j];
		p[j] = tmp;
	}
}

Test(iostats_sort, orders_a_shuffled_array)
{
	static struct proc_io rows[NSORT];
	static uint32_t storage[8192];
	struct proc_io *p[NSORT];
	struct res_table names;

	cr_assert_eq(res_table_init(&names, storage, sizeof(storage), 64), RES_OK);
	for (uint32_t i = 0; i < NSORT; i++) {
		char comm[16];

		row_init(&rows[i], 1000 + i, (i % 4) << 20);
		/* bytes: distinct, descending in i; plus ties in groups of 4 for ios */
		rows[i].delta[PMEM_READ_BYTES] = (uint64_t)(NSORT - i) * P32;
		rows[i].delta[PMEM_WRITE_BYTES] = (uint64_t)(NSORT - i) * 3;
		rows[i].delta[PMEM_READ_IOS] = (NSORT - i) / 4;
		rows[i].delta[PMEM_LATENCY_NS] = (uint64_t)(NSORT - i) * 1000;
		rows[i].delta[PMEM_LATENCY_IOS] = 1;
		/* comm: reverse order of i */
		snprintf(comm, sizeof(comm), "c%04u", NSORT - i);
		cr_assert_eq(res_intern_str(&names, comm, &rows[i].comm_name), RES_OK);
		p[i] = &rows[i];
	}

	for (enum sort_key key = SORT_BYTES; key <= SORT_COMM; key++) {
		shuffle(p, NSORT);
		iostats_sort(p, NSORT, key, false, &names);
		for (uint32_t i = 0; i < NSORT; i++) {
			uint32_t expected;

			switch (key) {
			case SORT_COMM:
				expected = NSORT - 1 - i;
				break;
			default:
				/* descending values of NSORT - i, or ascending pid;
				 * ios ties fall back to ascending pid too */
				expected = i;
				break;
			}
			cr_assert_eq(p[i], &rows[expected], "key %s, position %u: tgid %u",
				     sort_key_name(key), i, p[i]->key.tgid);
		}
		for (uint32_t i = 1; i < NSORT; i++)
			cr_assert_lt(iostats_compare(p[i - 1], p[i], key, false, &names), 0);
	}
}

Test(iostats_sort, random_values_end_up_in_order)
{
	static struct proc_io rows[1000];
	struct proc_io *p[1000];

	for (uint32_t i = 0; i < 1000; i++) {
		row_init(&rows[i], (uint32_t)(prng_next() % 50), (uint32_t)(prng_next() % 3));
		for (int c = 0; c < PMEM_NR_COUNTERS; c++) {
			uint64_t v = prng_next();

			/* mix of huge, small and equal values */
			rows[i].delta[c] = (v & 3) == 0 ? v : (v & 3) == 1 ? v % 5 : U64_MAX_ - v % 3;
		}
		p[i] = &rows[i];
	}
	for (enum sort_key key = SORT_BYTES; key <= SORT_PID; key++) {
		iostats_sort(p, 1000, key, false, NULL);
		for (uint32_t i = 1; i < 1000; i++)
			cr_assert_leq(iostats_compare(p[i - 1], p[i], key, false, NULL), 0,
				      "key %s position %u", sort_key_name(key), i);
	}
}

Test(iostats_sort, empty_and_single)
{
	struct proc_io row, *p[1] = { &row };

	row_init(&row, 1, 1);
	iostats_sort(p, 0, SORT_BYTES, false, NULL);
	iostats_sort(p, 1, SORT_BYTES, false, NULL);
	cr_assert_eq(p[0], &row);
}

/* The one comparison the views' sort and the top view share: sums of
 * counters near 2^64 do not wrap (the top view's own sum used to), a row
 * without latency is the least, single counters by their index. */
Test(row_counter_compare, sums_do_not_wrap_and_latency_without_ios_is_least)
{
	uint64_t a[PMEM_NR_COUNTERS] = { 0 }, b[PMEM_NR_COUNTERS] = { 0 };

	a[PMEM_READ_BYTES] = UINT64_MAX;
	a[PMEM_WRITE_BYTES] = 2;		/* a's sum wraps to 1 in 64 bits */
	b[PMEM_READ_BYTES] = 5;
	cr_assert_gt(row_counter_compare(a, b, ROW_BYTES), 0);
	cr_assert_lt(row_counter_compare(b, a, ROW_BYTES), 0);
	a[PMEM_READ_IOS] = UINT64_MAX;
	a[PMEM_DISCARD_IOS] = UINT64_MAX;
	b[PMEM_WRITE_IOS] = UINT64_MAX;
	cr_assert_gt(row_counter_compare(a, b, ROW_IOS), 0);
	cr_assert_eq(row_counter_compare(a, a, ROW_IOS), 0);
	cr_assert_gt(row_counter_compare(a, b, ROW_COUNTER + PMEM_WRITE_BYTES), 0,
		     "a wrote 2 bytes, b none");
	cr_assert_lt(row_counter_compare(a, b, ROW_COUNTER + PMEM_WRITE_IOS), 0);
	/* Latency: 3 ms average against 2 ms; none at all is the least. */
	a[PMEM_LATENCY_NS] = 9000000;
	a[PMEM_LATENCY_IOS] = 3;
	b[PMEM_LATENCY_NS] = 4000000;
	b[PMEM_LATENCY_IOS] = 2;
	cr_assert_gt(row_counter_compare(a, b, ROW_LATENCY), 0);
	b[PMEM_LATENCY_IOS] = 0;
	cr_assert_gt(row_counter_compare(a, b, ROW_LATENCY), 0);
	cr_assert_lt(row_counter_compare(b, a, ROW_LATENCY), 0);
	a[PMEM_LATENCY_IOS] = 0;
	cr_assert_eq(row_counter_compare(a, b, ROW_LATENCY), 0);
}
