// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the per-device metric registry and its JSON output.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pmem_metrics.h"

/* xorshift64*: fixed seeds make every failure reproducible. */
struct prng {
	uint64_t state;
};

static uint64_t prng_next(struct prng *r)
{
	r->state ^= r->state >> 12;
	r->state ^= r->state << 25;
	r->state ^= r->state >> 27;
	return r->state * 0x2545f4914f6cdd1dULL;
}

static uint64_t prng_below(struct prng *r, uint64_t bound)
{
	return prng_next(r) % bound;
}

static void shuffle(size_t *order, size_t n, struct prng *r)
{
	size_t i;

	for (i = n; i > 1; i--) {
		size_t j = prng_below(r, i);
		size_t tmp = order[i - 1];

		order[i - 1] = order[j];
		order[j] = tmp;
	}
}

/* ---- a tiny strict JSON checker, written apart from the code under test ---- */

struct json_reader {
	const unsigned char *p, *end;
	/* When set, the decoded bytes of the last string read go here. */
	unsigned char *decoded;
	size_t decoded_len, decoded_cap;
};

static bool json_value(struct json_reader *r, int depth);

static void json_skip_space(struct json_reader *r)
{
	while (r->p < r->end && (*r->p == ' ' || *r->p == '\t' ||
				 *r->p == '\n' || *r->p == '\r'))
		r->p++;
}

static bool json_literal(struct json_reader *r, const char *word)
{
	size_t n = strlen(word);

	if ((size_t)(r->end - r->p) < n || memcmp(r->p, word, n) != 0)
		return false;
	r->p += n;
	return true;
}

static void decoded_put_code_point(struct json_reader *r, uint32_t cp)
{
	unsigned char buf[4];
	size_t n, i;

	if (!r->decoded)
		return;
	if (cp < 0x80) {
		buf[0] = cp;
		n = 1;
	} else if (cp < 0x800) {
		buf[0] = 0xc0 | (cp >> 6);
		buf[1] = 0x80 | (cp & 0x3f);
		n = 2;
	} else if (cp < 0x10000) {
		buf[0] = 0xe0 | (cp >> 12);
		buf[1] = 0x80 | ((cp >> 6) & 0x3f);
		buf[2] = 0x80 | (cp & 0x3f);
		n = 3;
	} else {
		buf[0] = 0xf0 | (cp >> 18);
		buf[1] = 0x80 | ((cp >> 12) & 0x3f);
		buf[2] = 0x80 | ((cp >> 6) & 0x3f);
		buf[3] = 0x80 | (cp & 0x3f);
		n = 4;
	}
	for (i = 0; i < n && r->decoded_len < r->decoded_cap; i++)
		r->decoded[r->decoded_len++] = buf[i];
}

static int hex_digit(unsigned char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* Decodes one raw UTF-8 character by value, rejecting what RFC 3629 forbids. */
static bool json_utf8_char(struct json_reader *r, uint32_t *cp_out)
{
	unsigned char lead = *r->p;
	uint32_t cp, min;
	int extra, i;

	if (lead < 0x80) {
		extra = 0;
		cp = lead;
		min = 0;
	} else if ((lead & 0xe0) == 0xc0) {
		extra = 1;
		cp = lead & 0x1f;
		min = 0x80;
	} else if ((lead & 0xf0) == 0xe0) {
		extra = 2;
		cp = lead & 0x0f;
		min = 0x800;
	} else if ((lead & 0xf8) == 0xf0) {
		extra = 3;
		cp = lead & 0x07;
		min = 0x10000;
	} else {
		return false;
	}
	if (r->end - r->p <= extra)
		return false;
	for (i = 1; i <= extra; i++) {
		if ((r->p[i] & 0xc0) != 0x80)
			return false;
		cp = (cp << 6) | (r->p[i] & 0x3f);
	}
	if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
		return false;
	r->p += extra + 1;
	*cp_out = cp;
	return true;
}

static bool json_string(struct json_reader *r)
{
	r->decoded_len = 0;
	if (r->p >= r->end || *r->p != '"')
		return false;
	r->p++;
	while (r->p < r->end) {
		unsigned char c = *r->p;
		uint32_t cp;

		if (c == '"') {
			r->p++;
			return true;
		}
		if (c < 0x20)
			return false;
		if (c == '\\') {
			if (r->end - r->p < 2)
				return false;
			c = r->p[1];
			r->p += 2;
			switch (c) {
			case '"': case '\\': case '/':
				decoded_put_code_point(r, c);
				break;
			case 'b': decoded_put_code_point(r, '\b'); break;
			case 'f': decoded_put_code_point(r, '\f'); break;
			case 'n': decoded_put_code_point(r, '\n'); break;
			case 'r': decoded_put_code_point(r, '\r'); break;
			case 't': decoded_put_code_point(r, '\t'); break;
			case 'u': {
				int i;

				if (r->end - r->p < 4)
					return false;
				cp = 0;
				for (i = 0; i < 4; i++) {
					int digit = hex_digit(r->p[i]);

					if (digit < 0)
						return false;
					cp = cp * 16 + digit;
				}
				r->p += 4;
				/* The escaper never needs surrogate pairs. */
				if (cp >= 0xd800 && cp <= 0xdfff)
					return false;
				decoded_put_code_point(r, cp);
				break;
			}
			default:
				return false;
			}
			continue;
		}
		if (!json_utf8_char(r, &cp))
			return false;
		decoded_put_code_point(r, cp);
	}
	return false;
}

static bool json_number(struct json_reader *r)
{
	const unsigned char *start;

	if (r->p < r->end && *r->p == '-')
		r->p++;
	if (r->p >= r->end)
		return false;
	if (*r->p == '0') {
		r->p++;
	} else if (*r->p >= '1' && *r->p <= '9') {
		while (r->p < r->end && *r->p >= '0' && *r->p <= '9')
			r->p++;
	} else {
		return false;
	}
	if (r->p < r->end && *r->p == '.') {
		r->p++;
		start = r->p;
		while (r->p < r->end && *r->p >= '0' && *r->p <= '9')
			r->p++;
		if (r->p == start)
			return false;
	}
	if (r->p < r->end && (*r->p == 'e' || *r->p == 'E')) {
		r->p++;
		if (r->p < r->end && (*r->p == '+' || *r->p == '-'))
			r->p++;
		start = r->p;
		while (r->p < r->end && *r->p >= '0' && *r->p <= '9')
			r->p++;
		if (r->p == start)
			return false;
	}
	return true;
}

static bool json_container(struct json_reader *r, int depth, bool is_object)
{
	unsigned char close = is_object ? '}' : ']';

	r->p++;
	json_skip_space(r);
	if (r->p < r->end && *r->p == close) {
		r->p++;
		return true;
	}
	for (;;) {
		if (is_object) {
			json_skip_space(r);
			if (!json_string(r))
				return false;
			json_skip_space(r);
			if (r->p >= r->end || *r->p != ':')
				return false;
			r->p++;
		}
		if (!json_value(r, depth + 1))
			return false;
		json_skip_space(r);
		if (r->p >= r->end)
			return false;
		if (*r->p == close) {
			r->p++;
			return true;
		}
		if (*r->p != ',')
			return false;
		r->p++;
	}
}

static bool json_value(struct json_reader *r, int depth)
{
	if (depth > 32)
		return false;
	json_skip_space(r);
	if (r->p >= r->end)
		return false;
	switch (*r->p) {
	case '{':
		return json_container(r, depth, true);
	case '[':
		return json_container(r, depth, false);
	case '"':
		return json_string(r);
	case 'n':
		return json_literal(r, "null");
	case 't':
		return json_literal(r, "true");
	case 'f':
		return json_literal(r, "false");
	default:
		return json_number(r);
	}
}

/* True if @text of @len bytes is exactly one valid JSON value. */
static bool json_is_valid(const char *text, size_t len)
{
	struct json_reader r = {
		.p = (const unsigned char *)text,
		.end = (const unsigned char *)text + len,
	};

	if (!json_value(&r, 0))
		return false;
	json_skip_space(&r);
	return r.p == r.end;
}

/* ---- helpers around the code under test ---- */

static char *escape(const char *s, size_t len)
{
	char *buf = NULL;
	size_t size = 0;
	FILE *out = open_memstream(&buf, &size);

	cr_assert_not_null(out);
	json_write_string(out, s, len);
	cr_assert_eq(fclose(out), 0);
	return buf;
}

/* The average latency a device shows, in microseconds; negative for none. */
static double avg_latency_us(const struct pmem_device *dev, bool cumulative)
{
	uint64_t values[PMEM_NR_COUNTERS], tenths;

	pmem_values(dev, cumulative, values);
	return pmem_avg_latency_tenths_us(values, &tenths) ? tenths / 10.0 : -1.0;
}

static char *write_json(const struct pmem_metrics *m, bool cumulative)
{
	char *buf = NULL;
	size_t size = 0;
	FILE *out = open_memstream(&buf, &size);

	struct jsonw w;

	cr_assert_not_null(out);
	jsonw_init(&w, out);
	cr_assert_eq(pmem_write_json(m, &w, cumulative, false), 0);
	cr_assert_eq(fclose(out), 0);
	return buf;
}

/* The module writes a fragment; wrap it the way the frontend will. */
static bool fragment_is_valid_json(const char *fragment)
{
	size_t len = strlen(fragment);
	char *object = malloc(len + 3);
	bool valid;

	cr_assert_not_null(object);
	object[0] = '{';
	memcpy(object + 1, fragment, len);
	object[len + 1] = '}';
	object[len + 2] = '\0';
	valid = json_is_valid(object, len + 2);
	free(object);
	return valid;
}

#define assert_escapes_to(input, expected)					\
	do {									\
		char *got_ = escape((input), sizeof(input) - 1);		\
		cr_assert_str_eq(got_, (expected), "escaping %s", #input);	\
		cr_assert(json_is_valid(got_, strlen(got_)),			\
			  "invalid JSON for %s: %s", #input, got_);		\
		free(got_);							\
	} while (0)

/* ---- registry ---- */

Test(registry, counter_names_are_the_json_keys)
{
	static const char *const expected[PMEM_NR_COUNTERS] = {
		"read_bytes", "write_bytes", "discard_bytes",
		"read_ios", "write_ios", "discard_ios",
		"flushes", "latency_ns", "latency_ios", "dirtied_bytes", "writeback_bytes",
		"errors_eio", "errors_enospc", "errors_etimedout", "errors_eopnotsupp",
		"errors_enodata", "errors_enolink", "errors_eremoteio", "errors_other",
	};
	int id;

	for (id = 0; id < PMEM_NR_COUNTERS; id++) {
		cr_assert_not_null(pmem_counter_names[id]);
		cr_assert_str_eq(pmem_counter_names[id], expected[id]);
	}
}

Test(registry, aggregate_is_sum_of_devices_after_random_adds)
{
	struct pmem_metrics m;
	struct prng r = { .state = 0x9e3779b97f4a7c15ULL };
	uint64_t shadow_total[20][PMEM_NR_COUNTERS] = { { 0 } };
	char name[16];
	int round, id;
	size_t d;

	pmem_init(&m);
	for (round = 0; round < 20000; round++) {
		size_t device = prng_below(&r, 20);
		enum pmem_counter_id counter = prng_below(&r, PMEM_NR_COUNTERS);
		/* Occasionally huge, to check that wrapping stays consistent. */
		uint64_t n = prng_below(&r, 100) == 0 ? prng_next(&r) :
						       prng_below(&r, 1 << 20);
		struct pmem_device *dev;

		snprintf(name, sizeof(name), "disk%zu", device);
		dev = pmem_device_get(&m, name);
		cr_assert_not_null(dev);
		pmem_add(&m, dev, counter, n);
		shadow_total[device][counter] += n;

		if (prng_below(&r, 500) == 0)
			pmem_flush(&m);
	}
	pmem_flush(&m);

	cr_assert_eq(m.count, 20);
	for (id = 0; id < PMEM_NR_COUNTERS; id++) {
		uint64_t total_sum = 0, delta_sum = 0;

		for (d = 0; d < m.count; d++) {
			total_sum += m.devices[d].counter[id].total;
			delta_sum += m.devices[d].counter[id].delta;
		}
		cr_assert_eq(m.aggregate.counter[id].total, total_sum,
			     "counter %s total", pmem_counter_names[id]);
		cr_assert_eq(m.aggregate.counter[id].delta, delta_sum,
			     "counter %s delta", pmem_counter_names[id]);
	}
	for (d = 0; d < 20; d++) {
		struct pmem_device *dev;

		snprintf(name, sizeof(name), "disk%zu", d);
		dev = pmem_device_get(&m, name);
		for (id = 0; id < PMEM_NR_COUNTERS; id++)
			cr_assert_eq(dev->counter[id].total, shadow_total[d][id],
				     "%s %s", name, pmem_counter_names[id]);
	}
	cr_assert_eq(m.count, 20, "looking devices up must not add any");
	pmem_free(&m);
}

Test(registry, flush_resets_the_change_not_the_total)
{
	struct pmem_metrics m;
	struct pmem_device *dev;
	struct pmem_counter *c;

	pmem_init(&m);
	dev = pmem_device_get(&m, "vda");
	cr_assert_not_null(dev);
	c = &dev->counter[PMEM_WRITE_BYTES];

	pmem_add(&m, dev, PMEM_WRITE_BYTES, 5);
	cr_assert_eq(c->delta, 0, "the delta only changes at a flush");
	cr_assert_eq(c->total, 5);
	pmem_flush(&m);
	cr_assert_eq(c->delta, 5);
	cr_assert_eq(c->total, 5);
	cr_assert_eq(pmem_value(c, false), 5);
	cr_assert_eq(pmem_value(c, true), 5);

	pmem_add(&m, dev, PMEM_WRITE_BYTES, 3);
	pmem_flush(&m);
	cr_assert_eq(c->delta, 3);
	cr_assert_eq(c->total, 8);
	cr_assert_eq(pmem_value(c, false), 3);
	cr_assert_eq(pmem_value(c, true), 8);
	cr_assert_eq(m.aggregate.counter[PMEM_WRITE_BYTES].delta, 3);
	cr_assert_eq(m.aggregate.counter[PMEM_WRITE_BYTES].total, 8);

	pmem_flush(&m);
	cr_assert_eq(c->delta, 0);
	cr_assert_eq(c->total, 8);
	cr_assert_eq(m.aggregate.counter[PMEM_WRITE_BYTES].delta, 0);
	cr_assert_eq(m.aggregate.counter[PMEM_WRITE_BYTES].total, 8);
	cr_assert_eq(dev->counter[PMEM_READ_BYTES].total, 0,
		     "other counters are untouched");
	pmem_free(&m);
}

Test(registry, delta_is_right_across_a_wrapping_total)
{
	struct pmem_metrics m;
	struct pmem_device *dev;

	pmem_init(&m);
	dev = pmem_device_get(&m, "vda");
	pmem_add(&m, dev, PMEM_READ_BYTES, UINT64_MAX - 1);
	pmem_flush(&m);
	pmem_add(&m, dev, PMEM_READ_BYTES, 10);
	pmem_flush(&m);
	cr_assert_eq(dev->counter[PMEM_READ_BYTES].delta, 10);
	cr_assert_eq(m.aggregate.counter[PMEM_READ_BYTES].delta, 10);
	pmem_free(&m);
}

Test(registry, order_is_stable_and_names_are_unique)
{
	static const char *const first[] = {
		"vdb", "nvme0n1", "loop0", "zram0", "sda", "vda", "dm-0",
		"loop10", "loop2", "md127",
	};
	static const char *const later[] = {
		"aaa", "zzz", "sdb", "loop1", "pmem0",
	};
	static const char *const sorted[] = {
		"aaa", "dm-0", "loop0", "loop1", "loop10", "loop2", "md127",
		"nvme0n1", "pmem0", "sda", "sdb", "vda", "vdb", "zram0", "zzz",
	};
	struct pmem_metrics m;
	struct pmem_device *vda;
	size_t i;

	pmem_init(&m);
	for (i = 0; i < sizeof(first) / sizeof(first[0]); i++)
		cr_assert_not_null(pmem_device_get(&m, first[i]));
	cr_assert_eq(m.count, 10);
	for (i = 1; i < m.count; i++)
		cr_assert_lt(strcmp(m.devices[i - 1].name, m.devices[i].name), 0,
			     "%s before %s", m.devices[i - 1].name, m.devices[i].name);

	for (i = 0; i < sizeof(later) / sizeof(later[0]); i++)
		cr_assert_not_null(pmem_device_get(&m, later[i]));
	cr_assert_eq(m.count, sizeof(sorted) / sizeof(sorted[0]));
	for (i = 0; i < m.count; i++)
		cr_assert_str_eq(m.devices[i].name, sorted[i]);

	vda = pmem_device_get(&m, "vda");
	pmem_add(&m, vda, PMEM_READ_IOS, 7);
	cr_assert_eq(pmem_device_get(&m, "vda"), vda, "same set for the same name");
	cr_assert_eq(pmem_device_get(&m, "vda")->counter[PMEM_READ_IOS].total, 7);
	cr_assert_eq(m.count, sizeof(sorted) / sizeof(sorted[0]), "no duplicate");
	pmem_free(&m);
}

Test(registry, a_thousand_devices_survive_growth)
{
	enum { N = 1000 };
	struct pmem_metrics m;
	struct prng r = { .state = 12345 };
	size_t order[N], i;
	char name[32];

	for (i = 0; i < N; i++)
		order[i] = i;
	shuffle(order, N, &r);

	pmem_init(&m);
	for (i = 0; i < N; i++) {
		struct pmem_device *dev;

		snprintf(name, sizeof(name), "dev%04zu", order[i]);
		dev = pmem_device_get(&m, name);
		cr_assert_not_null(dev);
		pmem_add(&m, dev, PMEM_WRITE_BYTES, order[i] + 1);
	}
	cr_assert_eq(m.count, N);
	cr_assert_geq(m.capacity, m.count);
	for (i = 0; i < N; i++) {
		snprintf(name, sizeof(name), "dev%04zu", i);
		cr_assert_str_eq(m.devices[i].name, name);
		cr_assert_eq(m.devices[i].counter[PMEM_WRITE_BYTES].total, i + 1,
			     "%s kept its counters when moved", name);
	}
	cr_assert_eq(m.aggregate.counter[PMEM_WRITE_BYTES].total,
		     (uint64_t)N * (N + 1) / 2);
	pmem_free(&m);
	cr_assert_eq(m.count, 0);
	cr_assert_null(m.devices);
}

Test(registry, long_names_are_truncated_consistently)
{
	char long_a[100], long_b[100], exact[PMEM_NAME_MAX];
	struct pmem_metrics m;
	struct pmem_device *dev;

	memset(long_a, 'x', sizeof(long_a) - 1);
	long_a[sizeof(long_a) - 1] = '\0';
	memcpy(long_b, long_a, sizeof(long_b));
	long_b[80] = 'y';	/* differs only beyond what is kept */
	memcpy(exact, long_a, PMEM_NAME_MAX - 1);
	exact[PMEM_NAME_MAX - 1] = '\0';

	pmem_init(&m);
	dev = pmem_device_get(&m, long_a);
	cr_assert_not_null(dev);
	cr_assert_eq(strlen(dev->name), PMEM_NAME_MAX - 1);
	cr_assert_eq(memcmp(dev->name, long_a, PMEM_NAME_MAX - 1), 0);
	pmem_add(&m, dev, PMEM_FLUSHES, 1);
	cr_assert_eq(pmem_device_get(&m, long_b), dev);
	cr_assert_eq(pmem_device_get(&m, exact), dev);
	cr_assert_eq(pmem_device_get(&m, long_a), dev);
	cr_assert_eq(m.count, 1);
	cr_assert_neq(pmem_device_get(&m, "x"), NULL);
	cr_assert_eq(m.count, 2, "a short prefix is another device");
	pmem_free(&m);
}

Test(registry, adds_to_nothing_keep_the_aggregate_honest)
{
	struct pmem_metrics m;
	struct pmem_device *dev;
	int id;

	pmem_init(&m);
	dev = pmem_device_get(&m, "vda");
	pmem_add(&m, NULL, PMEM_READ_BYTES, 100);
	pmem_add(&m, dev, PMEM_NR_COUNTERS, 100);
	pmem_add(&m, dev, (enum pmem_counter_id)-1, 100);
	for (id = 0; id < PMEM_NR_COUNTERS; id++) {
		cr_assert_eq(m.aggregate.counter[id].total, 0);
		cr_assert_eq(dev->counter[id].total, 0);
	}
	pmem_free(&m);
}

Test(registry, free_leaves_a_reusable_registry)
{
	struct pmem_metrics m;
	struct pmem_device *dev;

	pmem_init(&m);
	pmem_add(&m, pmem_device_get(&m, "vda"), PMEM_READ_BYTES, 4096);
	pmem_free(&m);
	cr_assert_eq(m.count, 0);
	cr_assert_eq(m.aggregate.counter[PMEM_READ_BYTES].total, 0);
	dev = pmem_device_get(&m, "vdb");
	cr_assert_not_null(dev);
	cr_assert_eq(dev->counter[PMEM_READ_BYTES].total, 0);
	pmem_free(&m);
	pmem_free(&m);	/* twice is harmless */
	cr_assert_null(m.devices);
}

/* ---- latency ---- */

Test(latency, average_is_null_without_samples_and_has_one_decimal)
{
	static const struct {
		uint64_t ns, ios;
		const char *shown;
	} cases[] = {
		{ 0, 0, "null" },
		{ 123456, 0, "null" },	/* a sum without a count is no average */
		{ 52100, 1, "52.1" },
		{ 156300, 3, "52.1" },
		{ 52049, 1, "52.0" },
		{ 52050, 1, "52.1" },	/* halves round up */
		{ 0, 1, "0.0" },
		{ 99, 1, "0.1" },
		{ 49, 1, "0.0" },
		{ 1000000, 1, "1000.0" },
		{ 1234567890123ULL, 1, "1234567890.1" },
		{ UINT64_MAX, 1, "18446744073709551.6" },
		{ UINT64_MAX - 40, 2, "9223372036854775.8" },
		{ UINT64_MAX, UINT64_MAX, "0.0" },
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct pmem_metrics m;
		struct pmem_device *dev;
		char *json, expected[64];

		pmem_init(&m);
		dev = pmem_device_get(&m, "d");
		pmem_add(&m, dev, PMEM_LATENCY_NS, cases[i].ns);
		pmem_add(&m, dev, PMEM_LATENCY_IOS, cases[i].ios);
		pmem_flush(&m);
		json = write_json(&m, false);
		snprintf(expected, sizeof(expected), "\"avg_latency_us\":%s,",
			 cases[i].shown);
		cr_assert_not_null(strstr(json, expected), "case %zu: want %s in %s",
				   i, expected, json);
		cr_assert(fragment_is_valid_json(json), "case %zu: %s", i, json);
		if (cases[i].ios == 0)
			cr_assert_lt(avg_latency_us(dev, false), 0.0);
		else
			cr_assert_geq(avg_latency_us(dev, false), 0.0);
		free(json);
		pmem_free(&m);
	}
}

Test(latency, average_value_in_microseconds)
{
	struct pmem_metrics m;
	struct pmem_device *dev;

	pmem_init(&m);
	dev = pmem_device_get(&m, "vda");
	cr_assert_lt(avg_latency_us(dev, false), 0.0);
	cr_assert_lt(avg_latency_us(dev, true), 0.0);
	pmem_add(&m, dev, PMEM_LATENCY_NS, 156300);
	pmem_add(&m, dev, PMEM_LATENCY_IOS, 3);
	cr_assert_lt(avg_latency_us(dev, false), 0.0, "not flushed yet");
	cr_assert_float_eq(avg_latency_us(dev, true), 52.1, 1e-9);
	pmem_flush(&m);
	cr_assert_float_eq(avg_latency_us(dev, false), 52.1, 1e-9);
	cr_assert_float_eq(avg_latency_us(&m.aggregate, false), 52.1, 1e-9);
	pmem_free(&m);
}

/* ---- JSON output ---- */

/* A device's latency object without per-operation completions. */
#define NO_OP_LATENCY(op) "\"" op "\":{\"ios\":0,\"avg\":null,\"p50\":null," \
	"\"p95\":null,\"p99\":null}"
/* No latency; NO_LATENCY: no failed I/O (issue 45) before it, as devices print. */
#define LATENCY_NONE ",\"latency_us\":{" NO_OP_LATENCY("read") "," NO_OP_LATENCY("write") "," \
	NO_OP_LATENCY("discard") "}"
#define NO_LATENCY ",\"errors\":{}" LATENCY_NONE

/* A device object's layers when sysfs knows none (devlayers.h). */
#define NO_LAYERS ",\"below\":[],\"dm_name\":null"
/* A device's own keys after its latency (not the total's): every I/O timed. */
#define EVERY_IO_TIMED ",\"latency_sample\":1,\"latency_samples_dropped\":0"

/* What a device with nothing counted looks like. */
#define ZERO_COUNTS "{\"read_bytes\":0,\"write_bytes\":0,\"discard_bytes\":0," \
	"\"read_ios\":0,\"write_ios\":0,\"discard_ios\":0,\"flushes\":0," \
	"\"avg_latency_us\":null" NO_LATENCY
#define ZERO_OBJECT ZERO_COUNTS "}"
#define ZERO_DEVICE ZERO_COUNTS EVERY_IO_TIMED NO_LAYERS "}"

Test(json, empty_registry)
{
	struct pmem_metrics m;
	char *json;

	pmem_init(&m);
	json = write_json(&m, false);
	cr_assert_str_eq(json, "\"devices\":{},\"total\":" ZERO_OBJECT);
	cr_assert(fragment_is_valid_json(json));
	free(json);
	pmem_free(&m);
}

/* Counter value of device k in the twenty-device test. */
static uint64_t twenty_value(size_t k, int id)
{
	if (id == PMEM_LATENCY_IOS)
		return k + 1;
	if (id == PMEM_LATENCY_NS)
		return 52100 * (k + 1) * (k + 1);	/* average 52.1 * (k + 1) us */
	return (k + 1) * 1000 + id;
}

static void append(char **cursor, size_t *left, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void append(char **cursor, size_t *left, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(*cursor, *left, fmt, ap);
	va_end(ap);
	cr_assert(n >= 0 && (size_t)n < *left, "expected-output buffer too small");
	*cursor += n;
	*left -= n;
}

static void append_object(char **cursor, size_t *left, const uint64_t *v,
			  const char *avg, bool device)
{
	static const char *const kinds[IO_ERROR_KINDS] = {
		"EIO", "ENOSPC", "ETIMEDOUT", "EOPNOTSUPP", "ENODATA", "ENOLINK", "EREMOTEIO",
		"other",
	};
	const char *sep = "";

	append(cursor, left,
	       "{\"read_bytes\":%" PRIu64 ",\"write_bytes\":%" PRIu64
	       ",\"discard_bytes\":%" PRIu64 ",\"read_ios\":%" PRIu64
	       ",\"write_ios\":%" PRIu64 ",\"discard_ios\":%" PRIu64
	       ",\"flushes\":%" PRIu64 ",\"avg_latency_us\":%s,\"errors\":{",
	       v[0], v[1], v[2], v[3], v[4], v[5], v[6], avg);
	for (int k = 0; k < IO_ERROR_KINDS; k++) {
		if (!v[PMEM_ERRORS + k])
			continue;
		append(cursor, left, "%s\"%s\":%" PRIu64, sep, kinds[k], v[PMEM_ERRORS + k]);
		sep = ",";
	}
	append(cursor, left, "}" LATENCY_NONE "%s}", device ? EVERY_IO_TIMED NO_LAYERS : "");
}

Test(json, twenty_devices_in_order_with_exact_values)
{
	enum { N = 20 };
	struct pmem_metrics m;
	struct prng r = { .state = 0xdecafbad };
	size_t order[N], i, k;
	uint64_t sums[PMEM_NR_COUNTERS] = { 0 };
	char name[16], avg[32];
	char expected[16384], *cursor = expected;
	size_t left = sizeof(expected);
	const char *previous = NULL;
	char *json;
	int id;

	for (i = 0; i < N; i++)
		order[i] = i;
	shuffle(order, N, &r);

	pmem_init(&m);
	for (i = 0; i < N; i++) {
		struct pmem_device *dev;

		k = order[i];
		snprintf(name, sizeof(name), "vd%c", (char)('a' + k));
		dev = pmem_device_get(&m, name);
		cr_assert_not_null(dev);
		for (id = 0; id < PMEM_NR_COUNTERS; id++)
			pmem_add(&m, dev, id, twenty_value(k, id));
	}
	pmem_flush(&m);
	cr_assert_eq(m.count, N);

	append(&cursor, &left, "\"devices\":{");
	for (k = 0; k < N; k++) {
		uint64_t v[PMEM_NR_COUNTERS];

		for (id = 0; id < PMEM_NR_COUNTERS; id++) {
			v[id] = twenty_value(k, id);
			sums[id] += v[id];
		}
		snprintf(avg, sizeof(avg), "%zu.%zu", 521 * (k + 1) / 10,
			 521 * (k + 1) % 10);
		append(&cursor, &left, "%s\"vd%c\":", k ? "," : "", (char)('a' + k));
		append_object(&cursor, &left, v, avg, true);
	}
	append(&cursor, &left, "},\"total\":");
	/* sum of 52100 (k+1)^2 over sum of (k+1): 52100 * 2870 / 210 ns */
	append_object(&cursor, &left, sums, "712.0", false);

	json = write_json(&m, false);
	cr_assert_str_eq(json, expected);
	cr_assert(fragment_is_valid_json(json), "%s", json);

	/* The same facts checked by search, independent of exact layout. */
	for (k = 0; k < N; k++) {
		char key[16];
		const char *at;

		snprintf(key, sizeof(key), "\"vd%c\":{", (char)('a' + k));
		at = strstr(json, key);
		cr_assert_not_null(at, "%s missing", key);
		cr_assert_null(strstr(at + 1, key), "%s twice", key);
		cr_assert(previous == NULL || at > previous, "%s out of order", key);
		previous = at;
	}
	cr_assert_not_null(strstr(json, "},\"total\":{\"read_bytes\":"));
	free(json);
	pmem_free(&m);
}

Test(json, output_is_valid_json_for_unusual_names)
{
	struct pmem_metrics m;
	char *json;

	pmem_init(&m);
	pmem_device_get(&m, "quo\"te");
	pmem_device_get(&m, "back\\slash");
	pmem_device_get(&m, "bad\xff" "byte");
	pmem_device_get(&m, "tab\there");
	pmem_device_get(&m, "caf\xc3\xa9");
	json = write_json(&m, false);
	cr_assert(fragment_is_valid_json(json), "%s", json);
	cr_assert_not_null(strstr(json, "\"back\\\\slash\":{"));
	cr_assert_not_null(strstr(json, "\"bad\\u00ffbyte\":{"));
	cr_assert_not_null(strstr(json, "\"caf\xc3\xa9\":{"));
	cr_assert_not_null(strstr(json, "\"quo\\\"te\":{"));
	cr_assert_not_null(strstr(json, "\"tab\\u0009here\":{"));
	free(json);
	pmem_free(&m);
}

Test(json, cumulative_shows_totals_and_default_shows_the_interval)
{
	struct pmem_metrics m;
	struct pmem_device *vda;
	char *json;

	pmem_init(&m);
	vda = pmem_device_get(&m, "vda");
	pmem_add(&m, vda, PMEM_WRITE_BYTES, 1048576);
	pmem_add(&m, vda, PMEM_WRITE_IOS, 16);
	pmem_add(&m, vda, PMEM_LATENCY_NS, 16 * 100000);
	pmem_add(&m, vda, PMEM_LATENCY_IOS, 16);
	pmem_flush(&m);

	pmem_add(&m, vda, PMEM_WRITE_BYTES, 4096);
	pmem_add(&m, vda, PMEM_WRITE_IOS, 1);
	pmem_add(&m, vda, PMEM_DISCARD_BYTES, 65536);
	pmem_add(&m, vda, PMEM_DISCARD_IOS, 1);
	pmem_add(&m, vda, PMEM_FLUSHES, 2);
	pmem_add(&m, vda, PMEM_LATENCY_NS, 3 * 1700);
	pmem_add(&m, vda, PMEM_LATENCY_IOS, 3);
	pmem_flush(&m);

	json = write_json(&m, false);
	cr_assert_str_eq(json,
		"\"devices\":{\"vda\":{\"read_bytes\":0,\"write_bytes\":4096,"
		"\"discard_bytes\":65536,\"read_ios\":0,\"write_ios\":1,"
		"\"discard_ios\":1,\"flushes\":2,\"avg_latency_us\":1.7" NO_LATENCY EVERY_IO_TIMED NO_LAYERS "}},"
		"\"total\":{\"read_bytes\":0,\"write_bytes\":4096,"
		"\"discard_bytes\":65536,\"read_ios\":0,\"write_ios\":1,"
		"\"discard_ios\":1,\"flushes\":2,\"avg_latency_us\":1.7" NO_LATENCY "}");
	free(json);

	/* (1600000 + 5100) ns over 19 completions = 84.478... us */
	json = write_json(&m, true);
	cr_assert_str_eq(json,
		"\"devices\":{\"vda\":{\"read_bytes\":0,\"write_bytes\":1052672,"
		"\"discard_bytes\":65536,\"read_ios\":0,\"write_ios\":17,"
		"\"discard_ios\":1,\"flushes\":2,\"avg_latency_us\":84.5" NO_LATENCY EVERY_IO_TIMED NO_LAYERS "}},"
		"\"total\":{\"read_bytes\":0,\"write_bytes\":1052672,"
		"\"discard_bytes\":65536,\"read_ios\":0,\"write_ios\":17,"
		"\"discard_ios\":1,\"flushes\":2,\"avg_latency_us\":84.5" NO_LATENCY "}");
	free(json);

	/* A quiet interval: nothing in it, everything still in the totals. */
	pmem_flush(&m);
	json = write_json(&m, false);
	cr_assert_str_eq(json, "\"devices\":{\"vda\":" ZERO_DEVICE "},"
			       "\"total\":" ZERO_OBJECT);
	free(json);
	json = write_json(&m, true);
	cr_assert_not_null(strstr(json, "\"write_bytes\":1052672"));
	free(json);
	pmem_free(&m);
}

Test(json, stream_error_is_reported)
{
	struct pmem_metrics m;
	FILE *read_only = fopen("/dev/null", "r");
	struct jsonw w;
	int err;

	cr_assert_not_null(read_only);
	jsonw_init(&w, read_only);
	pmem_init(&m);
	/* Without devices only the aggregate is written: that must fail too. */
	err = pmem_write_json(&m, &w, false, false);
	cr_assert_lt(err, 0, "no devices: want a failure, got %d", err);
	clearerr(read_only);
	pmem_device_get(&m, "vda");
	err = pmem_write_json(&m, &w, false, false);
	cr_assert_lt(err, 0, "one device: want a failure, got %d", err);
	fclose(read_only);
	pmem_free(&m);
}

/* ---- the JSON string escaper ---- */

Test(escape, plain_text_is_kept)
{
	assert_escapes_to("", "\"\"");
	assert_escapes_to("vda", "\"vda\"");
	assert_escapes_to("a b/c~", "\"a b/c~\"");
}

Test(escape, null_pointer_is_an_empty_string)
{
	char *got = escape(NULL, 5);

	cr_assert_str_eq(got, "\"\"");
	free(got);
}

Test(escape, length_not_terminator_decides)
{
	char *got = escape("abcdef", 3);

	cr_assert_str_eq(got, "\"abc\"");
	free(got);
	assert_escapes_to("a\0b", "\"a\\u0000b\"");
}

Test(escape, quote_and_backslash)
{
	assert_escapes_to("\"", "\"\\\"\"");
	assert_escapes_to("\\", "\"\\\\\"");
	assert_escapes_to("a\"b\\c", "\"a\\\"b\\\\c\"");
	assert_escapes_to("\\\"", "\"\\\\\\\"\"");
}

Test(escape, every_control_byte_and_delete)
{
	unsigned int byte;

	for (byte = 0; byte <= 0x7f; byte++) {
		char input[3] = { 'x', (char)byte, 'y' };
		char expected[16];
		char *got;

		if (byte >= 0x20 && byte < 0x7f)
			continue;
		snprintf(expected, sizeof(expected), "\"x\\u%04xy\"", byte);
		got = escape(input, sizeof(input));
		cr_assert_str_eq(got, expected, "byte 0x%02x", byte);
		cr_assert(json_is_valid(got, strlen(got)));
		free(got);
	}
}

Test(escape, every_printable_ascii_byte_but_two_is_kept)
{
	unsigned int byte;

	for (byte = 0x20; byte < 0x7f; byte++) {
		char input[1] = { (char)byte };
		char expected[8];
		char *got = escape(input, 1);

		if (byte == '"' || byte == '\\')
			snprintf(expected, sizeof(expected), "\"\\%c\"", byte);
		else
			snprintf(expected, sizeof(expected), "\"%c\"", byte);
		cr_assert_str_eq(got, expected, "byte 0x%02x", byte);
		free(got);
	}
}

Test(escape, every_lone_high_byte_is_latin1)
{
	unsigned int byte;

	for (byte = 0x80; byte <= 0xff; byte++) {
		char input[1] = { (char)byte };
		char expected[16];
		char *got = escape(input, 1);

		snprintf(expected, sizeof(expected), "\"\\u%04x\"", byte);
		cr_assert_str_eq(got, expected, "byte 0x%02x", byte);
		free(got);
	}
	assert_escapes_to("\xff", "\"\\u00ff\"");
}

Test(escape, truncated_sequences)
{
	/* 2-byte sequence cut by the end of the input, or by an ASCII byte */
	assert_escapes_to("\xc3", "\"\\u00c3\"");
	assert_escapes_to("ab\xc3", "\"ab\\u00c3\"");
	assert_escapes_to("\xc3" "A", "\"\\u00c3A\"");
	/* 3- and 4-byte sequences missing their last byte */
	assert_escapes_to("\xe2\x82", "\"\\u00e2\\u0082\"");
	assert_escapes_to("\xe2\x82" "A", "\"\\u00e2\\u0082A\"");
	assert_escapes_to("\xf0\x9f\x98", "\"\\u00f0\\u009f\\u0098\"");
	/* a lead byte followed by another lead byte that starts a good one */
	assert_escapes_to("\xc3\xc3\xa9", "\"\\u00c3\xc3\xa9\"");
}

Test(escape, overlong_encodings)
{
	assert_escapes_to("\xc0\xaf", "\"\\u00c0\\u00af\"");	/* '/' in 2 */
	assert_escapes_to("\xc1\xbf", "\"\\u00c1\\u00bf\"");
	assert_escapes_to("\xc0\x80", "\"\\u00c0\\u0080\"");	/* NUL in 2 */
	assert_escapes_to("\xe0\x80\xaf", "\"\\u00e0\\u0080\\u00af\"");
	assert_escapes_to("\xe0\x9f\xbf", "\"\\u00e0\\u009f\\u00bf\"");
	assert_escapes_to("\xf0\x80\x80\xaf",
			  "\"\\u00f0\\u0080\\u0080\\u00af\"");
	assert_escapes_to("\xf0\x8f\xbf\xbf",
			  "\"\\u00f0\\u008f\\u00bf\\u00bf\"");
}

Test(escape, surrogates_and_beyond_unicode)
{
	assert_escapes_to("\xed\xa0\x80", "\"\\u00ed\\u00a0\\u0080\"");	/* U+D800 */
	assert_escapes_to("\xed\xbf\xbf", "\"\\u00ed\\u00bf\\u00bf\"");	/* U+DFFF */
	assert_escapes_to("\xf4\x90\x80\x80",
			  "\"\\u00f4\\u0090\\u0080\\u0080\"");		/* U+110000 */
	assert_escapes_to("\xf5\x80\x80\x80",
			  "\"\\u00f5\\u0080\\u0080\\u0080\"");
	assert_escapes_to("\xf8\x88\x80\x80\x80",
			  "\"\\u00f8\\u0088\\u0080\\u0080\\u0080\"");
}

Test(escape, stray_continuation_bytes)
{
	assert_escapes_to("\x80", "\"\\u0080\"");
	assert_escapes_to("a\xbf" "b", "\"a\\u00bfb\"");
	/* one too many continuation bytes after a good sequence */
	assert_escapes_to("\xc3\xa9\xa9", "\"\xc3\xa9\\u00a9\"");
}

Test(escape, valid_utf8_is_kept)
{
	assert_escapes_to("\xe2\x82\xac", "\"\xe2\x82\xac\"");		/* EURO SIGN */
	assert_escapes_to("caf\xc3\xa9", "\"caf\xc3\xa9\"");
	assert_escapes_to("\xf0\x9f\x98\x80", "\"\xf0\x9f\x98\x80\"");	/* emoji */
	/* the boundaries of each length */
	assert_escapes_to("\xc2\x80", "\"\xc2\x80\"");			/* U+0080 */
	assert_escapes_to("\xdf\xbf", "\"\xdf\xbf\"");			/* U+07FF */
	assert_escapes_to("\xe0\xa0\x80", "\"\xe0\xa0\x80\"");		/* U+0800 */
	assert_escapes_to("\xed\x9f\xbf", "\"\xed\x9f\xbf\"");		/* U+D7FF */
	assert_escapes_to("\xee\x80\x80", "\"\xee\x80\x80\"");		/* U+E000 */
	assert_escapes_to("\xef\xbf\xbf", "\"\xef\xbf\xbf\"");		/* U+FFFF */
	assert_escapes_to("\xf0\x90\x80\x80", "\"\xf0\x90\x80\x80\"");	/* U+10000 */
	assert_escapes_to("\xf4\x8f\xbf\xbf", "\"\xf4\x8f\xbf\xbf\"");	/* U+10FFFF */
	/* mixed with escapes */
	assert_escapes_to("\"\xe2\x82\xac\"\n",
			  "\"\\\"\xe2\x82\xac\\\"\\u000a\"");
}

/* Decodes the escaper's output with the independent checker. */
static size_t decode_escaped(const char *json, unsigned char *out, size_t cap)
{
	struct json_reader r = {
		.p = (const unsigned char *)json,
		.end = (const unsigned char *)json + strlen(json),
		.decoded = out,
		.decoded_cap = cap,
	};

	cr_assert(json_string(&r), "not a JSON string: %s", json);
	cr_assert_eq(r.p, r.end, "trailing bytes after %s", json);
	return r.decoded_len;
}

Test(escape, random_bytes_always_give_valid_json)
{
	struct prng r = { .state = 0x5eed };
	unsigned char input[32], decoded[32 * 4];
	int round;

	for (round = 0; round < 20000; round++) {
		size_t len = prng_below(&r, sizeof(input) + 1), i, decoded_len;
		size_t expected_len = 0;
		unsigned char expected[32 * 4];
		char *got;

		for (i = 0; i < len; i++) {
			/* Favour the interesting high bytes. */
			input[i] = prng_below(&r, 4) ? 0x80 + prng_below(&r, 0x80) :
						       prng_below(&r, 0x80);
		}
		got = escape((const char *)input, len);
		cr_assert(json_is_valid(got, strlen(got)), "round %d: %s", round, got);

		/*
		 * Decoding gives back the input where it was valid UTF-8, and
		 * each other byte as its Latin-1 character. The reference
		 * here decides validity with the checker's own decoder.
		 */
		for (i = 0; i < len;) {
			struct json_reader probe = {
				.p = input + i, .end = input + len,
			};
			uint32_t cp;

			if (input[i] >= 0x80 && json_utf8_char(&probe, &cp)) {
				size_t n = probe.p - (input + i);

				memcpy(expected + expected_len, input + i, n);
				expected_len += n;
				i += n;
			} else {
				if (input[i] < 0x80) {
					expected[expected_len++] = input[i];
				} else {
					expected[expected_len++] = 0xc0 | (input[i] >> 6);
					expected[expected_len++] = 0x80 | (input[i] & 0x3f);
				}
				i++;
			}
		}
		decoded_len = decode_escaped(got, decoded, sizeof(decoded));
		cr_assert_eq(decoded_len, expected_len, "round %d: %s", round, got);
		cr_assert_eq(memcmp(decoded, expected, expected_len), 0,
			     "round %d: %s", round, got);
		free(got);
	}
}

Test(escape, valid_utf8_round_trips_unchanged)
{
	struct prng r = { .state = 0xc0ffee };
	int round;

	for (round = 0; round < 5000; round++) {
		unsigned char input[64], decoded[64];
		size_t len = 0, decoded_len;
		char *got;

		while (len < sizeof(input) - 4) {
			uint32_t cp = prng_below(&r, 0x110000);
			struct json_reader w = {
				.decoded = input + len,
				.decoded_cap = 4,
			};

			if (cp >= 0xd800 && cp <= 0xdfff)
				continue;
			decoded_put_code_point(&w, cp);
			len += w.decoded_len;
			if (prng_below(&r, 8) == 0)
				break;
		}
		got = escape((const char *)input, len);
		cr_assert(json_is_valid(got, strlen(got)), "round %d: %s", round, got);
		decoded_len = decode_escaped(got, decoded, sizeof(decoded));
		cr_assert_eq(decoded_len, len, "round %d", round);
		cr_assert_eq(memcmp(decoded, input, len), 0, "round %d", round);
		free(got);
	}
}

Test(checker, rejects_what_it_should)
{
	/* The checker is only worth something if it can say no. */
	static const char *const bad[] = {
		"{", "}", "{\"a\":}", "{\"a\":1,}", "{\"a\" 1}", "{a:1}",
		"\"\x01\"", "\"\\x\"", "\"\\u00g0\"", "\"\xff\"", "\"\xc0\xaf\"",
		"\"\xed\xa0\x80\"", "01", "1.", "52,1", "nul", "{\"a\":1}}",
		"\"abc",
	};
	static const char *const good[] = {
		"{}", "{\"a\":{\"b\":[1,2.5,null]}}", "\"\\u00ff\xe2\x82\xac\"",
		"-0.5e+3", "\"\xf4\x8f\xbf\xbf\"",
	};
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		cr_assert_not(json_is_valid(bad[i], strlen(bad[i])), "accepted %s", bad[i]);
	for (i = 0; i < sizeof(good) / sizeof(good[0]); i++)
		cr_assert(json_is_valid(good[i], strlen(good[i])), "rejected %s", good[i]);
}

/* ---- latency per operation ---- */

/* Three reads of 1000, 3000 and 3000 ns and one discard of 1 ms: averages
 * per operation, percentiles from the slots, the total holding both. */
Test(op_latency, summary_and_json_per_operation)
{
	struct pmem_metrics m;
	struct pmem_device *dev;
	struct latency_summary l;
	char *json;

	pmem_init(&m);
	dev = pmem_device_get(&m, "vda");
	pmem_add_op_latency(&m, dev, IO_READ, 7000, 3);
	pmem_add_latency(&m, dev, IO_READ, latency_slot(1000), 1);
	pmem_add_latency(&m, dev, IO_READ, latency_slot(3000), 2);
	pmem_add_op_latency(&m, dev, IO_DISCARD, 1000000, 1);
	pmem_add_latency(&m, dev, IO_DISCARD, latency_slot(1000000), 1);
	pmem_add_op_latency(&m, dev, IO_NR_CLASSES, 5, 5);	/* ignored */
	pmem_add_latency(&m, dev, IO_READ, LATENCY_SLOTS, 5);	/* ignored */
	pmem_flush(&m);

	pmem_latency_summary(dev, IO_READ, false, &l);
	cr_assert_eq(l.ios, 3);
	cr_assert_float_eq(l.avg_us, 7.0 / 3, 1e-9);
	cr_assert_float_eq(l.p50_us, 2.560, 1e-9, "the 2nd of 3: slot [2048, 4096), 1st of 2");
	cr_assert_float_eq(l.p99_us, 3.584, 1e-9, "the 3rd of 3: 2nd of 2 in that slot");
	cr_assert_leq(l.p50_us, l.p95_us);
	cr_assert_leq(l.p95_us, l.p99_us);
	pmem_latency_summary(dev, IO_WRITE, false, &l);
	cr_assert_eq(l.ios, 0);
	pmem_latency_summary(&m.aggregate, IO_DISCARD, false, &l);
	cr_assert_eq(l.ios, 1);
	cr_assert_float_eq(l.avg_us, 1000.0, 1e-9);

	json = write_json(&m, false);
	cr_assert(fragment_is_valid_json(json), "%s", json);
	cr_assert_not_null(strstr(json, "\"latency_us\":{\"read\":{\"ios\":3,\"avg\":2.3,"
				  "\"p50\":2.6,\"p95\":3.6,\"p99\":3.6},"
				  "\"write\":{\"ios\":0,\"avg\":null,\"p50\":null,\"p95\":null,"
				  "\"p99\":null},\"discard\":{\"ios\":1,\"avg\":1000.0,"), "%s", json);
	free(json);

	/* The next interval is empty; the totals keep it all. */
	pmem_flush(&m);
	pmem_latency_summary(dev, IO_READ, false, &l);
	cr_assert_eq(l.ios, 0);
	pmem_latency_summary(dev, IO_READ, true, &l);
	cr_assert_eq(l.ios, 3);
	pmem_free(&m);
}
