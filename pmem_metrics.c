// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Per-device I/O metric registry, see pmem_metrics.h.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "pmem_metrics.h"

const char *const pmem_counter_names[PMEM_NR_COUNTERS] = {
	[PMEM_READ_BYTES] = "read_bytes",
	[PMEM_WRITE_BYTES] = "write_bytes",
	[PMEM_DISCARD_BYTES] = "discard_bytes",
	[PMEM_READ_IOS] = "read_ios",
	[PMEM_WRITE_IOS] = "write_ios",
	[PMEM_DISCARD_IOS] = "discard_ios",
	[PMEM_FLUSHES] = "flushes",
	[PMEM_LATENCY_NS] = "latency_ns",
	[PMEM_LATENCY_IOS] = "latency_ios",
};

/*
 * The JSON object of a device shows the counters up to and including this
 * one; the latency sums are shown as one derived average instead.
 */
#define PMEM_LAST_SHOWN_COUNTER PMEM_FLUSHES

#define PMEM_INITIAL_CAPACITY 16

void pmem_init(struct pmem_metrics *m)
{
	memset(m, 0, sizeof(*m));
	strcpy(m->aggregate.name, "total");
}

void pmem_free(struct pmem_metrics *m)
{
	free(m->devices);
	pmem_init(m);
}

static int pmem_grow(struct pmem_metrics *m)
{
	struct pmem_device *devices;
	size_t new_capacity;

	if (m->capacity > SIZE_MAX / 2 / sizeof(*devices))
		return -ENOMEM;
	new_capacity = m->capacity ? m->capacity * 2 : PMEM_INITIAL_CAPACITY;
	devices = realloc(m->devices, new_capacity * sizeof(*devices));
	if (!devices)
		return -ENOMEM;
	m->devices = devices;
	m->capacity = new_capacity;
	return 0;
}

struct pmem_device *pmem_device_get(struct pmem_metrics *m, const char *name)
{
	char key[PMEM_NAME_MAX];
	size_t key_length = strnlen(name, PMEM_NAME_MAX - 1);
	size_t low = 0, high = m->count;
	struct pmem_device *dev;

	/*
	 * Search with the name as it will be stored, so that a name too long
	 * to store finds the set it created instead of adding a new one.
	 */
	memcpy(key, name, key_length);
	key[key_length] = '\0';

	while (low < high) {
		size_t middle = low + (high - low) / 2;
		int order = strcmp(key, m->devices[middle].name);

		if (order == 0)
			return &m->devices[middle];
		if (order < 0)
			high = middle;
		else
			low = middle + 1;
	}

	if (m->count == m->capacity && pmem_grow(m))
		return NULL;
	memmove(&m->devices[low + 1], &m->devices[low],
		(m->count - low) * sizeof(*m->devices));
	dev = &m->devices[low];
	memset(dev, 0, sizeof(*dev));
	memcpy(dev->name, key, key_length + 1);
	m->count++;
	return dev;
}

void pmem_add(struct pmem_metrics *m, struct pmem_device *dev,
	      enum pmem_counter_id id, uint64_t n)
{
	/* Adding to neither keeps the aggregate equal to the sum of devices. */
	if (!dev || (unsigned int)id >= PMEM_NR_COUNTERS)
		return;
	dev->counter[id].total += n;
	m->aggregate.counter[id].total += n;
}

static void pmem_device_flush(struct pmem_device *dev)
{
	int id;

	for (id = 0; id < PMEM_NR_COUNTERS; id++) {
		struct pmem_counter *c = &dev->counter[id];

		c->delta = c->total - c->at_flush;
		c->at_flush = c->total;
	}
}

void pmem_flush(struct pmem_metrics *m)
{
	size_t i;

	for (i = 0; i < m->count; i++)
		pmem_device_flush(&m->devices[i]);
	pmem_device_flush(&m->aggregate);
}

uint64_t pmem_value(const struct pmem_counter *c, bool cumulative)
{
	return cumulative ? c->total : c->delta;
}

double pmem_avg_latency_us(const struct pmem_device *d, bool cumulative)
{
	uint64_t latency_ns = pmem_value(&d->counter[PMEM_LATENCY_NS], cumulative);
	uint64_t latency_ios = pmem_value(&d->counter[PMEM_LATENCY_IOS], cumulative);

	if (latency_ios == 0)
		return -1.0;
	return (double)latency_ns / (double)latency_ios / 1000.0;
}

/*
 * Length of the well-formed UTF-8 sequence at @p (lead byte >= 0x80), or 0
 * if there is none. The second-byte ranges are those of RFC 3629: they shut
 * out overlong forms, UTF-16 surrogates and code points above U+10FFFF,
 * which strict JSON parsers reject.
 */
static size_t utf8_sequence_length(const unsigned char *p, size_t available)
{
	unsigned char lead = p[0];
	unsigned char second_min = 0x80, second_max = 0xbf;
	size_t length, i;

	if (lead >= 0xc2 && lead <= 0xdf)
		length = 2;
	else if (lead >= 0xe0 && lead <= 0xef)
		length = 3;
	else if (lead >= 0xf0 && lead <= 0xf4)
		length = 4;
	else
		return 0;

	if (lead == 0xe0)
		second_min = 0xa0;
	else if (lead == 0xed)
		second_max = 0x9f;
	else if (lead == 0xf0)
		second_min = 0x90;
	else if (lead == 0xf4)
		second_max = 0x8f;

	if (available < length)
		return 0;
	if (p[1] < second_min || p[1] > second_max)
		return 0;
	for (i = 2; i < length; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return 0;
	}
	return length;
}

void json_write_string(FILE *out, const char *s, size_t len)
{
	const unsigned char *bytes = (const unsigned char *)s;
	size_t run_start = 0, i = 0;

	if (!s) {
		fputs("\"\"", out);
		return;
	}

	putc('"', out);
	/* Bytes that need no escaping are written in runs, not one by one. */
	while (i < len) {
		unsigned char c = bytes[i];
		size_t sequence_length;

		if (c >= 0x20 && c < 0x7f && c != '"' && c != '\\') {
			i++;
			continue;
		}
		if (c >= 0x80) {
			sequence_length = utf8_sequence_length(bytes + i, len - i);
			if (sequence_length) {
				i += sequence_length;
				continue;
			}
		}

		fwrite(bytes + run_start, 1, i - run_start, out);
		if (c == '"' || c == '\\') {
			putc('\\', out);
			putc(c, out);
		} else {
			/*
			 * A control byte, DEL (harmless in JSON but it can
			 * act on a terminal), or a byte outside any valid
			 * UTF-8 sequence, taken as the Latin-1 code point.
			 */
			fprintf(out, "\\u%04x", c);
		}
		i++;
		run_start = i;
	}
	fwrite(bytes + run_start, 1, i - run_start, out);
	putc('"', out);
}

/*
 * Written with integers rather than printf("%.1f"), which prints a comma
 * under some LC_NUMERIC locales and would break the JSON. Integers also round
 * halves up exactly and cannot overflow: rounding the whole-nanosecond mean
 * to 100 ns gives the same result as rounding the exact mean, because the
 * dropped fraction is below 1 ns.
 */
static void write_avg_latency(FILE *out, const struct pmem_device *d,
			      bool cumulative)
{
	uint64_t latency_ns = pmem_value(&d->counter[PMEM_LATENCY_NS], cumulative);
	uint64_t latency_ios = pmem_value(&d->counter[PMEM_LATENCY_IOS], cumulative);
	uint64_t mean_ns, tenths_of_us;

	if (latency_ios == 0) {
		fputs("null", out);
		return;
	}
	mean_ns = latency_ns / latency_ios;
	tenths_of_us = mean_ns / 100 + (mean_ns % 100 >= 50);
	fprintf(out, "%" PRIu64 ".%u", tenths_of_us / 10,
		(unsigned int)(tenths_of_us % 10));
}

static void write_device_object(FILE *out, const struct pmem_device *d,
				bool cumulative)
{
	int id;

	putc('{', out);
	for (id = 0; id <= PMEM_LAST_SHOWN_COUNTER; id++) {
		fprintf(out, "\"%s\":%" PRIu64 ",", pmem_counter_names[id],
			pmem_value(&d->counter[id], cumulative));
	}
	fputs("\"avg_latency_us\":", out);
	write_avg_latency(out, d, cumulative);
	putc('}', out);
}

static int stream_error(void)
{
	return errno > 0 ? -errno : -EIO;
}

int pmem_write_json(const struct pmem_metrics *m, FILE *out, bool cumulative)
{
	size_t i;

	/* So that a stale errno is not reported as the cause of a failure. */
	errno = 0;
	fputs("\"devices\":{", out);
	for (i = 0; i < m->count; i++) {
		const struct pmem_device *dev = &m->devices[i];

		if (i > 0)
			putc(',', out);
		json_write_string(out, dev->name, strnlen(dev->name, PMEM_NAME_MAX));
		putc(':', out);
		write_device_object(out, dev, cumulative);
		if (ferror(out))
			return stream_error();
	}
	fputs("},\"total\":", out);
	write_device_object(out, &m->aggregate, cumulative);
	if (ferror(out))
		return stream_error();
	return 0;
}
