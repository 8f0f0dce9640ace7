// SPDX-License-Identifier: GPL-2.0
/*
 * Per-device I/O metric registry, see pmem_metrics.h.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "pmem_metrics.h"
#include "sorted.h"

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
	[PMEM_DIRTIED_BYTES] = "dirtied_bytes",
	[PMEM_WRITEBACK_BYTES] = "writeback_bytes",
	[PMEM_ERRORS + IO_ERR_EIO] = "errors_eio",
	[PMEM_ERRORS + IO_ERR_ENOSPC] = "errors_enospc",
	[PMEM_ERRORS + IO_ERR_ETIMEDOUT] = "errors_etimedout",
	[PMEM_ERRORS + IO_ERR_EOPNOTSUPP] = "errors_eopnotsupp",
	[PMEM_ERRORS + IO_ERR_ENODATA] = "errors_enodata",
	[PMEM_ERRORS + IO_ERR_ENOLINK] = "errors_enolink",
	[PMEM_ERRORS + IO_ERR_EREMOTEIO] = "errors_eremoteio",
	[PMEM_ERRORS + IO_ERR_OTHER] = "errors_other",
};

const char *const io_error_names[IO_ERROR_KINDS] = {
	[IO_ERR_EIO] = "EIO",
	[IO_ERR_ENOSPC] = "ENOSPC",
	[IO_ERR_ETIMEDOUT] = "ETIMEDOUT",
	[IO_ERR_EOPNOTSUPP] = "EOPNOTSUPP",
	[IO_ERR_ENODATA] = "ENODATA",
	[IO_ERR_ENOLINK] = "ENOLINK",
	[IO_ERR_EREMOTEIO] = "EREMOTEIO",
	[IO_ERR_OTHER] = "other",
};

uint64_t pmem_errors(const uint64_t values[PMEM_NR_COUNTERS])
{
	uint64_t sum = 0;

	for (int k = 0; k < IO_ERROR_KINDS; k++)
		sum += values[PMEM_ERRORS + k];
	return sum;
}

/*
 * The JSON object of a device shows the counters up to and including this
 * one; the latency sums are shown as one derived average instead.
 */
#define PMEM_LAST_SHOWN_COUNTER PMEM_FLUSHES

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

static int compare_name(const void *name, const void *device)
{
	return strcmp(name, ((const struct pmem_device *)device)->name);
}

struct pmem_device *pmem_device_get(struct pmem_metrics *m, const char *name)
{
	char key[PMEM_NAME_MAX];
	size_t key_length = strnlen(name, PMEM_NAME_MAX - 1);
	struct pmem_device *dev;
	size_t low;

	/*
	 * Search with the name as it will be stored, so that a name too long
	 * to store finds the set it created instead of adding a new one.
	 */
	memcpy(key, name, key_length);
	key[key_length] = '\0';

	low = sorted_find(key, m->devices, m->count, sizeof(*m->devices), compare_name);
	if (low < m->count && !strcmp(key, m->devices[low].name))
		return &m->devices[low];

	if (array_reserve((void **)&m->devices, &m->capacity, m->count + 1, sizeof(*m->devices)))
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

void pmem_add_below(struct pmem_metrics *m, struct pmem_device *dev,
		    enum pmem_counter_id id, uint64_t n)
{
	(void)m;
	if (!dev || (unsigned int)id >= PMEM_NR_COUNTERS)
		return;
	dev->counter[id].total += n;
}

void pmem_add_op_latency(struct pmem_metrics *m, struct pmem_device *dev, unsigned int op,
			 uint64_t ns, uint64_t ios)
{
	if (!dev || op >= IO_NR_CLASSES)
		return;
	dev->op_latency_ns[op].total += ns;
	dev->op_latency_ios[op].total += ios;
	m->aggregate.op_latency_ns[op].total += ns;
	m->aggregate.op_latency_ios[op].total += ios;
}

void pmem_add_latency(struct pmem_metrics *m, struct pmem_device *dev, unsigned int op,
		      unsigned int slot, uint64_t n)
{
	if (!dev || op >= IO_NR_CLASSES || slot >= LATENCY_SLOTS)
		return;
	dev->latency_slots[op][slot].total += n;
	m->aggregate.latency_slots[op][slot].total += n;
}

void pmem_note_latency_sample(struct pmem_metrics *m, struct pmem_device *dev, uint64_t every,
			      uint64_t dropped)
{
	if (!dev)
		return;
	if (every && every <= UINT32_MAX)
		dev->latency_sample = (uint32_t)every;
	dev->latency_samples_dropped.total += dropped;
	m->aggregate.latency_samples_dropped.total += dropped;
}

uint32_t pmem_latency_sample(const struct pmem_device *dev)
{
	return dev->latency_sample ? dev->latency_sample : 1;
}

void pmem_latency_hist(const struct pmem_device *dev, unsigned int op, bool cumulative,
		       struct latency_hist *hist)
{
	for (unsigned int k = 0; k < LATENCY_SLOTS; k++)
		hist->slots[k] = op < IO_NR_CLASSES ?
				 pmem_value(&dev->latency_slots[op][k], cumulative) : 0;
}

void pmem_latency_summary(const struct pmem_device *dev, unsigned int op, bool cumulative,
			  struct latency_summary *summary)
{
	struct latency_hist hist;

	memset(summary, 0, sizeof(*summary));
	if (op >= IO_NR_CLASSES)
		return;
	summary->ios = pmem_value(&dev->op_latency_ios[op], cumulative);
	if (!summary->ios)
		return;
	summary->avg_us = (double)pmem_value(&dev->op_latency_ns[op], cumulative) /
			  (double)summary->ios / 1000.0;
	pmem_latency_hist(dev, op, cumulative, &hist);
	/* The kernel counts a completion before its slot: a snapshot may
	 * catch a slot short; an empty histogram leaves the percentiles 0. */
	latency_percentile_us(&hist, 0.50, &summary->p50_us);
	latency_percentile_us(&hist, 0.95, &summary->p95_us);
	latency_percentile_us(&hist, 0.99, &summary->p99_us);
}

static void pmem_device_flush(struct pmem_device *dev)
{
	for (int id = 0; id < PMEM_NR_COUNTERS; id++) {
		struct pmem_counter *c = &dev->counter[id];

		c->delta = counter_delta(&c->at_flush, c->total);
	}
	for (int op = 0; op < IO_NR_CLASSES; op++) {
		struct pmem_counter *ns = &dev->op_latency_ns[op], *ios = &dev->op_latency_ios[op];

		ns->delta = counter_delta(&ns->at_flush, ns->total);
		ios->delta = counter_delta(&ios->at_flush, ios->total);
	}
	for (int op = 0; op < IO_NR_CLASSES; op++)
		for (int k = 0; k < LATENCY_SLOTS; k++) {
			struct pmem_counter *c = &dev->latency_slots[op][k];

			c->delta = counter_delta(&c->at_flush, c->total);
		}
	dev->latency_samples_dropped.delta = counter_delta(&dev->latency_samples_dropped.at_flush,
							   dev->latency_samples_dropped.total);
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

bool pmem_avg_latency_tenths_us(const uint64_t values[PMEM_NR_COUNTERS], uint64_t *tenths)
{
	uint64_t latency_ns = values[PMEM_LATENCY_NS], latency_ios = values[PMEM_LATENCY_IOS];
	uint64_t mean_ns;

	if (latency_ios == 0)
		return false;
	/* Rounding the whole-nanosecond mean to 100 ns gives the same result
	 * as rounding the exact mean: the dropped fraction is below 1 ns. */
	mean_ns = latency_ns / latency_ios;
	*tenths = mean_ns / 100 + (mean_ns % 100 >= 50);
	return true;
}

void pmem_values(const struct pmem_device *dev, bool cumulative,
		 uint64_t values[PMEM_NR_COUNTERS])
{
	for (int id = 0; id < PMEM_NR_COUNTERS; id++)
		values[id] = pmem_value(&dev->counter[id], cumulative);
}

const char *const pmem_op_names[IO_NR_CLASSES] = { "read", "write", "discard" };

void pmem_write_errors_json(struct jsonw *w, const uint64_t values[PMEM_NR_COUNTERS])
{
	jsonw_object(w, "errors");
	for (int k = 0; k < IO_ERROR_KINDS; k++)
		if (values[PMEM_ERRORS + k])
			jsonw_u64(w, io_error_names[k], values[PMEM_ERRORS + k]);
	jsonw_object_end(w);
}

static void write_microseconds(struct jsonw *w, const char *key, double us, bool known)
{
	if (known)
		jsonw_double(w, key, "%.1f", us);
	else
		jsonw_null(w, key);
}

/* "latency_us":{"read":{"ios":N,"avg":…,"p50":…,"p95":…,"p99":…},…}: null
 * where an operation had no completion. */
static void write_latency_object(struct jsonw *w, const struct pmem_device *d, bool cumulative)
{
	jsonw_object(w, "latency_us");
	for (unsigned int op = 0; op < IO_NR_CLASSES; op++) {
		struct latency_summary l;

		pmem_latency_summary(d, op, cumulative, &l);
		jsonw_object(w, pmem_op_names[op]);
		jsonw_u64(w, "ios", l.ios);
		write_microseconds(w, "avg", l.avg_us, l.ios);
		write_microseconds(w, "p50", l.p50_us, l.ios);
		write_microseconds(w, "p95", l.p95_us, l.ios);
		write_microseconds(w, "p99", l.p99_us, l.ios);
		jsonw_object_end(w);
	}
	jsonw_object_end(w);
}

/* "histogram":{"read":[{"le_us":…,"count":…},…],…}: the slots from the
 * first to the last with completions, each with its upper bound. */
static void write_histogram_object(struct jsonw *w, const struct pmem_device *d, bool cumulative)
{
	jsonw_object(w, "histogram");
	for (unsigned int op = 0; op < IO_NR_CLASSES; op++) {
		struct latency_hist h;
		unsigned int first = LATENCY_SLOTS, last = 0;

		pmem_latency_hist(d, op, cumulative, &h);
		for (unsigned int k = 0; k < LATENCY_SLOTS; k++)
			if (h.slots[k]) {
				first = first < k ? first : k;
				last = k;
			}
		jsonw_array(w, pmem_op_names[op]);
		for (unsigned int k = first; k <= last && first < LATENCY_SLOTS; k++) {
			jsonw_object(w, NULL);
			jsonw_double(w, "le_us", "%.3f", (double)latency_slot_high_ns(k) / 1000.0);
			jsonw_u64(w, "count", h.slots[k]);
			jsonw_object_end(w);
		}
		jsonw_array_end(w);
	}
	jsonw_object_end(w);
}

/* "iostat":{"r/s":1.00,...} with iostat -o JSON's names and its two
 * decimals; nothing where the kernel lists no such device. */
static void write_iostat_object(struct jsonw *w, const struct pmem_device *d, bool cumulative)
{
	double values[IOSTAT_X_NR];

	if (!d->has_iostat)
		return;
	iostat_x_values(&d->iostat[cumulative], values);
	jsonw_object(w, "iostat");
	for (int i = 0; i < IOSTAT_X_NR; i++)
		jsonw_double(w, iostat_x_names[i], "%.2f", values[i]);
	jsonw_object_end(w);
}

/* "below":["vda"] (the disks it is stacked on, [] for none) and its
 * "dm_name" (null unless a dm device). */
static void write_layers(struct jsonw *w, const struct devlayers *l)
{
	jsonw_array(w, "below");
	for (const char *p = l->below; *p;) {
		size_t n = strcspn(p, ",");

		jsonw_string(w, NULL, p, n);
		p += n + (p[n] == ',');
	}
	jsonw_array_end(w);
	if (l->dm_name[0])
		jsonw_string(w, "dm_name", l->dm_name, strlen(l->dm_name));
	else
		jsonw_null(w, "dm_name");
}

static void write_device_object(struct jsonw *w, const char *key, const struct pmem_device *d,
				bool cumulative, bool histograms, bool iostat)
{
	uint64_t values[PMEM_NR_COUNTERS], tenths;

	pmem_values(d, cumulative, values);
	jsonw_object(w, key);
	for (int id = 0; id <= PMEM_LAST_SHOWN_COUNTER; id++)
		jsonw_u64(w, pmem_counter_names[id], values[id]);
	if (pmem_avg_latency_tenths_us(values, &tenths))
		jsonw_tenths(w, "avg_latency_us", tenths);
	else
		jsonw_null(w, "avg_latency_us");
	pmem_write_errors_json(w, values);
	write_latency_object(w, d, cumulative);
	if (iostat) {	/* a device's, not the total's */
		jsonw_u64(w, "latency_sample", pmem_latency_sample(d));
		jsonw_u64(w, "latency_samples_dropped",
			  pmem_value(&d->latency_samples_dropped, cumulative));
	}
	if (histograms)
		write_histogram_object(w, d, cumulative);
	if (iostat) {
		write_iostat_object(w, d, cumulative);
		write_layers(w, &d->layers);
	}
	jsonw_object_end(w);
}

static int stream_error(void)
{
	return errno > 0 ? -errno : -EIO;
}

int pmem_write_json(const struct pmem_metrics *m, struct jsonw *w, bool cumulative,
		    bool histograms)
{
	/* So that a stale errno is not reported as the cause of a failure. */
	errno = 0;
	jsonw_object(w, "devices");
	for (size_t i = 0; i < m->count; i++) {
		write_device_object(w, m->devices[i].name, &m->devices[i], cumulative, histograms,
				    true);
		if (ferror(w->out))
			return stream_error();
	}
	jsonw_object_end(w);
	/* The sum of every device's requests is no device's queue. */
	write_device_object(w, "total", &m->aggregate, cumulative, histograms, false);
	if (ferror(w->out))
		return stream_error();
	return 0;
}
