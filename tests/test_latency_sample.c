// SPDX-License-Identifier: GPL-2.0
/*
 * The latency sampler's choice (abi.h), as the BPF program makes it at
 * block_bio_queue: deterministic, about 1 in N of any kind of bio stream, and
 * the slot of a bio's start depending on its number alone (all the
 * completion hook knows).
 */
#include <criterion/criterion.h>
#include <stdint.h>
#include "abi.h"

#define STACK_BIO	0xffffc90000a3fb10ULL	/* a bio on a kernel stack */
#define SLAB_BASE	0xffff888004e3c000ULL	/* bios from a slab, 256 bytes each */

static uint64_t xorshift(uint64_t *state)
{
	*state ^= *state << 13;
	*state ^= *state >> 7;
	*state ^= *state << 17;
	return *state;
}

Test(latency_sample, the_cutoff_is_one_in_every)
{
	cr_assert_eq(latency_sample_threshold(1), 1ULL << 32, "every hash is below 2^32");
	cr_assert_eq(latency_sample_threshold(16), 1ULL << 28);
	cr_assert_eq(latency_sample_threshold(64), 1ULL << 26);
	cr_assert_eq(latency_sample_threshold(3), 1431655766ULL, "ceil(2^32 / 3)");
	cr_assert_eq(latency_sample_threshold(0), 0, "0: none");
}

Test(latency_sample, same_bio_and_sector_same_choice_and_slot)
{
	uint64_t state = 0x1234567;

	for (int i = 0; i < 10000; i++) {
		uint64_t bio = xorshift(&state), sector = xorshift(&state) >> 20;

		cr_assert_eq(latency_sample_hash(bio, sector), latency_sample_hash(bio, sector));
		cr_assert_eq(latency_sampled(bio, sector, latency_sample_threshold(16)),
			     latency_sampled(bio, sector, latency_sample_threshold(16)));
		cr_assert_lt(latency_sample_slot(bio), LATENCY_SAMPLE_SLOTS);
		cr_assert_eq(latency_sample_slot(bio), latency_sample_slot(bio));
	}
	/* Pinned: the BPF program and this test compile the same function. */
	cr_assert_eq(latency_sample_hash(0, 0), 0);
	cr_assert_eq(latency_sample_hash(1, 0), 0x9E3779B9);
	cr_assert_eq(latency_sample_slot(1), 0x9E3);
}

Test(latency_sample, every_bio_is_chosen_at_one_in_one)
{
	uint64_t state = 42;

	for (int i = 0; i < 100000; i++)
		cr_assert(latency_sampled(xorshift(&state), xorshift(&state),
					  latency_sample_threshold(1)));
}

/* Chosen out of n: within 10% of n / every. */
static void expect_about_one_in(unsigned int chosen, unsigned int n, unsigned int every,
				const char *stream)
{
	double expected = (double)n / every;

	cr_assert(chosen > 0.9 * expected && chosen < 1.1 * expected,
		  "%s, 1 in %u: %u chosen of %u, expected about %.0f", stream, every, chosen, n,
		  expected);
}

/*
 * The streams a disk sees: a synchronous direct reader reuses one bio on
 * its stack for every I/O (a hash of the address alone would choose all of
 * them or none), sequential and random; bios from a slab re-reading one
 * block; both moving together.
 */
Test(latency_sample, about_one_in_n_of_every_kind_of_stream)
{
	static const unsigned int everies[] = { 4, 16, 64 };
	enum { N = 200000 };

	for (size_t e = 0; e < sizeof(everies) / sizeof(everies[0]); e++) {
		unsigned int every = everies[e];
		uint64_t cutoff = latency_sample_threshold(every), state = 7;
		unsigned int stack_sequential = 0, stack_random = 0, slab_one_block = 0;
		unsigned int slab_sequential = 0;

		for (uint64_t i = 0; i < N; i++) {
			stack_sequential += latency_sampled(STACK_BIO, 2048 + 8 * i, cutoff);
			stack_random += latency_sampled(STACK_BIO, xorshift(&state) % (1ULL << 26),
							cutoff);
			slab_one_block += latency_sampled(SLAB_BASE + 256 * (i % 4096), 4096, cutoff);
			slab_sequential += latency_sampled(SLAB_BASE + 256 * (i % 64), 8 * i, cutoff);
		}
		expect_about_one_in(stack_sequential, N, every, "one bio, sequential sectors");
		expect_about_one_in(stack_random, N, every, "one bio, random sectors");
		expect_about_one_in(slab_one_block, N, every, "slab bios, one block");
		expect_about_one_in(slab_sequential, N, every, "slab bios, sequential sectors");
	}
}

/* Bios in flight at once spread over the slots: few share one, so that a
 * chosen bio seldom finds its slot taken (a smaller sample). */
Test(latency_sample, slab_bios_spread_over_the_slots)
{
	enum { IN_FLIGHT = 1024 };
	unsigned int per_slot[LATENCY_SAMPLE_SLOTS] = { 0 }, most = 0, used = 0;

	for (uint64_t i = 0; i < IN_FLIGHT; i++) {
		unsigned int slot = latency_sample_slot(SLAB_BASE + 256 * i);

		used += per_slot[slot]++ == 0;
		if (per_slot[slot] > most)
			most = per_slot[slot];
	}
	cr_assert_geq(used, IN_FLIGHT * 9 / 10, "%u slots for %u bios", used, IN_FLIGHT);
	cr_assert_leq(most, 2);
}
