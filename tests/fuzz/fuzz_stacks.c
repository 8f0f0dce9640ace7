// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for the stack encoding (resources.c): the input is read
 * twice, as encoded bytes and as frames.
 *
 * As bytes: stack_decode() must not crash; what it accepts (at most
 * STACK_MAX_FRAMES frames) encodes back to bytes that decode to the same
 * frames, no longer than the input (an encoder writes the shortest varints;
 * the input may pad them).
 *
 * As frames (little-endian 8-byte words, the first byte choosing how many):
 * stack_encode() then stack_decode() gives them back, within
 * STACK_MAX_ENCODED bytes, and interning them twice in a small table gives
 * one key whose frames read back, or RES_OUT_OF_SPACE both times.
 */
#include <string.h>

#include "resources.h"
#include "fuzz_util.h"

static void check_bytes(const uint8_t *data, size_t size)
{
	uint64_t frames[STACK_MAX_FRAMES], again[STACK_MAX_FRAMES];
	unsigned char encoded[STACK_MAX_ENCODED];
	int n = stack_decode(data, size, frames, STACK_MAX_FRAMES);
	size_t len;

	FUZZ_CHECK(n >= -1 && n <= STACK_MAX_FRAMES, "decoded %d frames", n);
	if (n < 0)
		return;
	FUZZ_CHECK((size_t)n <= size, "%d frames from %zu bytes", n, size);
	len = stack_encode(frames, n, encoded, sizeof(encoded));
	FUZZ_CHECK(n == 0 || len > 0, "%d decoded frames do not encode", n);
	FUZZ_CHECK(len <= size, "re-encoded in %zu bytes, decoded from %zu", len, size);
	FUZZ_CHECK(stack_decode(encoded, len, again, STACK_MAX_FRAMES) == n, "round trip");
	FUZZ_CHECK(!memcmp(frames, again, n * sizeof(*frames)), "frames differ");
	if (n > 0)
		FUZZ_CHECK(stack_decode(data, size, frames, n - 1) == -1, "%d frames fit in %d", n,
			   n - 1);
}

static void check_frames(const uint8_t *data, size_t size)
{
	static uint32_t storage[256];
	uint64_t frames[STACK_MAX_FRAMES + 1], back[STACK_MAX_FRAMES];
	unsigned char encoded[STACK_MAX_ENCODED];
	struct res_table table;
	size_t n, i, len;
	res_key key, key_again;
	int status;

	if (!size)
		return;
	n = data[0] % (STACK_MAX_FRAMES + 2);
	data++;
	size--;
	for (i = 0; i < n; i++) {
		frames[i] = 0;
		for (size_t b = 0; b < 8; b++)
			frames[i] |= (uint64_t)(i * 8 + b < size ? data[i * 8 + b] : 0) << (8 * b);
	}
	len = stack_encode(frames, n, encoded, sizeof(encoded));
	if (n > STACK_MAX_FRAMES) {
		FUZZ_CHECK(len == 0, "%zu frames encoded", n);
		return;
	}
	FUZZ_CHECK(n == 0 || len > 0, "%zu frames did not encode", n);
	FUZZ_CHECK(stack_decode(encoded, len, back, STACK_MAX_FRAMES) == (int)n, "round trip");
	FUZZ_CHECK(!memcmp(frames, back, n * sizeof(*frames)), "frames differ");

	FUZZ_CHECK(res_table_init(&table, storage, sizeof(storage), 4) == RES_OK, "init");
	status = res_intern_stack(&table, frames, n, &key);
	FUZZ_CHECK(status == RES_OK || status == RES_OUT_OF_SPACE, "status %d", status);
	FUZZ_CHECK(res_intern_stack(&table, frames, n, &key_again) == status, "second status");
	if (status != RES_OK)
		return;
	FUZZ_CHECK(key == key_again, "keys %u and %u", key, key_again);
	FUZZ_CHECK(res_stack_frames(&table, key, back, STACK_MAX_FRAMES) == (int)n, "read back");
	FUZZ_CHECK(!memcmp(frames, back, n * sizeof(*frames)), "frames differ in the table");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	check_bytes(data, size);
	check_frames(data, size);
	return 0;
}
