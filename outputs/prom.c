// SPDX-License-Identifier: GPL-2.0
/* --prom FILE: totals per series, the text exposition format, an atomic
 * writer (prom.h). */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include "array.h"
#include "latency_hist.h"
#include "prom.h"
#include "utf8.h"

/* ---- labels ---- */

size_t prom_escape_label(char *buf, size_t size, const char *value, size_t len)
{
	size_t n = 0;

	/* Appends text, counting what does not fit, keeping room for the NUL. */
#define PUT(text) do {						\
		const char *t_ = (text);			\
		for (; *t_; t_++, n++)				\
			if (n + 1 < size)			\
				buf[n] = *t_;			\
	} while (0)
	for (size_t i = 0; i < len; i++) {
		unsigned char c = value[i];
		char hex[8];

		if (c < 0x20 || c >= 0x7f || c == '\\') {
			/* The text \xHH, its backslash escaped for the format. */
			snprintf(hex, sizeof(hex), "\\\\x%02x", c);
			PUT(hex);
		} else if (c == '"') {
			PUT("\\\"");
		} else {
			hex[0] = c;
			hex[1] = '\0';
			PUT(hex);
		}
	}
#undef PUT
	if (size)
		buf[n < size ? n : size - 1] = '\0';
	return n;
}

/* A malloc'd escaped label value; NULL when memory is out. */
static char *escaped_copy(const char *value, size_t len)
{
	size_t need = prom_escape_label(NULL, 0, value, len) + 1;
	char *copy = malloc(need);

	if (copy)
		prom_escape_label(copy, need, value, len);
	return copy;
}

void prom_format_ns_as_seconds(char *buf, size_t size, uint64_t ns)
{
	uint64_t whole = ns / 1000000000U, frac = ns % 1000000000U;
	int digits = 9;

	/* Trailing zeros of the fraction go: 1.5, not 1.500000000. */
	while (frac && frac % 10 == 0) {
		frac /= 10;
		digits--;
	}
	if (frac)
		snprintf(buf, size, "%" PRIu64 ".%0*" PRIu64, whole, digits, frac);
	else
		snprintf(buf, size, "%" PRIu64, whole);
}

/* ---- --prom-label ---- */

/* Label names the file itself writes. */
static const char *const own_label_names[] = {
	"device", "comm", "cgroup", "for", "op", "le", "cause", "version",
};
/* Those Prometheus sets on every series it scrapes: it would rename the
 * user's to exported_instance, exported_job. */
static const char *const scrape_label_names[] = { "instance", "job" };

static bool name_in(const char *name, size_t len, const char *const *names, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (strlen(names[i]) == len && !strncmp(name, names[i], len))
			return true;
	return false;
}

static bool label_name_char(char c, bool first)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' ||
	       (!first && c >= '0' && c <= '9');
}

const char *prom_label_problem(const char *arg, const char *const *given, size_t ngiven)
{
	const char *equals = strchr(arg, '=');
	size_t name_len = equals ? (size_t)(equals - arg) : 0;
	const char *value = equals ? equals + 1 : NULL;

	if (!equals)
		return "not KEY=VALUE";
	if (!name_len)
		return "no label name before '='";
	for (size_t i = 0; i < name_len; i++)
		if (!label_name_char(arg[i], i == 0))
			return "a label name is letters, digits and '_', not starting with a digit";
	if (name_len > PROM_LABEL_NAME_MAX)
		return "a label name of more than 128 bytes";
	if (name_len >= 2 && arg[0] == '_' && arg[1] == '_')
		return "names starting with '__' are reserved for Prometheus' own use";
	if (name_in(arg, name_len, own_label_names,
		    sizeof(own_label_names) / sizeof(own_label_names[0])))
		return "diskio's own series use that label name";
	if (name_in(arg, name_len, scrape_label_names,
		    sizeof(scrape_label_names) / sizeof(scrape_label_names[0])))
		return "Prometheus sets instance and job on every series it scrapes";
	for (size_t i = 0; i < ngiven; i++)
		if (!strncmp(given[i], arg, name_len + 1))
			return "that label name is given twice";
	if (!*value)
		return "an empty value (Prometheus takes it as no label at all)";
	if (strlen(value) > PROM_LABEL_VALUE_MAX)
		return "a value of more than 1024 bytes";
	/* Go's utf8.ValidString, which Prometheus checks values with, is as strict. */
	if (!utf8_valid(value, strlen(value)))
		return "the value is not valid UTF-8";
	return NULL;
}

size_t prom_format_user_label(char *buf, size_t size, const char *arg)
{
	size_t n = 0;

	/* Appends c, counting what does not fit, keeping room for the NUL. */
#define PUTC(c) do {						\
		if (n + 1 < size)				\
			buf[n] = (c);				\
		n++;						\
	} while (0)
	for (; *arg && *arg != '='; arg++)
		PUTC(*arg);
	PUTC('=');
	PUTC('"');
	for (arg += *arg == '='; *arg; arg++) {
		if (*arg == '\\' || *arg == '"') {
			PUTC('\\');
			PUTC(*arg);
		} else if (*arg == '\n') {
			PUTC('\\');
			PUTC('n');
		} else {
			PUTC(*arg);
		}
	}
	PUTC('"');
#undef PUTC
	if (size)
		buf[n < size ? n : size - 1] = '\0';
	return n;
}

/* config->labels as the file writes them, joined by commas; NULL when
 * memory is out (or there are none). */
static char *user_label_set(const struct prom_config *config)
{
	size_t need = 1, at = 0;
	char *text;

	for (uint32_t i = 0; i < config->nlabels; i++)
		need += prom_format_user_label(NULL, 0, config->labels[i]) + 1;
	text = malloc(need);
	if (!text)
		return NULL;
	for (uint32_t i = 0; i < config->nlabels; i++) {
		if (i)
			text[at++] = ',';
		at += prom_format_user_label(text + at, need - at, config->labels[i]);
	}
	text[at] = '\0';
	return text;
}

/* ---- the totals ---- */

int prom_init(struct prom_totals *p, const struct prom_config *config)
{
	memset(p, 0, sizeof(*p));
	p->config = *config;
	if (!p->config.max_rows)
		p->config.max_rows = PROM_DEFAULT_ROWS;
	if (config->nlabels) {
		p->user_labels = user_label_set(config);
		if (!p->user_labels) {
			memset(p, 0, sizeof(*p));
			return -ENOMEM;
		}
	}
	/* The strings stay the caller's; what the file needs is copied. */
	p->config.labels = NULL;
	p->config.nlabels = 0;
	return 0;
}

static void series_free(struct prom_series *s)
{
	free(s->labels);
	free(s->device);
}

void prom_free(struct prom_totals *p)
{
	for (size_t i = 0; i < p->nseries; i++)
		series_free(&p->series[i]);
	free(p->series);
	free(p->user_labels);
	memset(p, 0, sizeof(*p));
}

static struct prom_series *find_series(struct prom_totals *p, const char *labels)
{
	for (size_t i = 0; i < p->nseries; i++)
		if (!strcmp(p->series[i].labels, labels))
			return &p->series[i];
	return NULL;
}

/* Series of a device that count against the cap: all but its "other". */
static size_t series_of_device(const struct prom_totals *p, const char *device)
{
	size_t n = 0;

	for (size_t i = 0; i < p->nseries; i++)
		if (!p->series[i].folded && !strcmp(p->series[i].device, device))
			n++;
	return n;
}

/* device="D",comm="C",cgroup="G" from escaped values (comm, cgroup may be
 * NULL: no such label); NULL when memory is out. */
static char *label_set(const char *device, const char *comm, const char *cgroup,
		       const char *serves)
{
	char *labels;

	if (asprintf(&labels, "device=\"%s\"%s%s%s%s%s%s%s%s%s", device,
		     comm ? ",comm=\"" : "", comm ? comm : "", comm ? "\"" : "",
		     cgroup ? ",cgroup=\"" : "", cgroup ? cgroup : "", cgroup ? "\"" : "",
		     serves ? ",for=\"" : "", serves ? serves : "", serves ? "\"" : "") < 0)
		return NULL;
	return labels;
}

/* A new series, taking labels and device (freed on failure). */
static struct prom_series *add_series(struct prom_totals *p, char *labels, char *device,
				      bool folded, uint64_t now_ns)
{
	struct prom_series *s;

	if (array_reserve((void **)&p->series, &p->capacity, p->nseries + 1, sizeof(*p->series))) {
		free(labels);
		free(device);
		return NULL;
	}
	s = &p->series[p->nseries++];
	memset(s, 0, sizeof(*s));
	s->labels = labels;
	s->device = device;
	s->folded = folded;
	s->changed_ns = now_ns;
	return s;
}

/*
 * The series a row counts in: its own once made, whatever the cap; a new
 * one while its device has fewer than max_rows; else its device's "other"
 * (comm="other", or cgroup="other" with rows per cgroup).  A real process
 * named "other" without a cgroup label has the same labels and shares it:
 * two series never carry the same labels.
 */
static struct prom_series *series_for(struct prom_totals *p, const char *device,
				      const char *comm, const char *cgroup, const char *serves,
				      uint64_t now_ns)
{
	struct prom_series *s;
	char *labels = label_set(device, comm, cgroup, serves), *dev_copy;
	bool by_cgroup = p->config.by_cgroup;

	if (!labels)
		return NULL;
	s = find_series(p, labels);
	if (s) {
		free(labels);
		return s;
	}
	dev_copy = strdup(device);
	if (!dev_copy) {
		free(labels);
		return NULL;
	}
	if (series_of_device(p, device) < p->config.max_rows)
		return add_series(p, labels, dev_copy, false, now_ns);
	free(labels);
	labels = label_set(device, by_cgroup ? NULL : PROM_OTHER, by_cgroup ? PROM_OTHER : NULL,
			   serves);
	if (!labels) {
		free(dev_copy);
		return NULL;
	}
	s = find_series(p, labels);
	if (s) {
		free(labels);
		free(dev_copy);
		return s;
	}
	return add_series(p, labels, dev_copy, true, now_ns);
}

static const enum pmem_counter_id counted_from[PROM_NR_COUNTS] = {
	[PROM_READ_BYTES] = PMEM_READ_BYTES,
	[PROM_WRITE_BYTES] = PMEM_WRITE_BYTES,
	[PROM_DISCARD_BYTES] = PMEM_DISCARD_BYTES,
	[PROM_READ_IOS] = PMEM_READ_IOS,
	[PROM_WRITE_IOS] = PMEM_WRITE_IOS,
	[PROM_DISCARD_IOS] = PMEM_DISCARD_IOS,
	[PROM_FLUSHES] = PMEM_FLUSHES,
	[PROM_DIRTIED_BYTES] = PMEM_DIRTIED_BYTES,
	[PROM_ERRORS + IO_ERR_EIO] = PMEM_ERRORS + IO_ERR_EIO,
	[PROM_ERRORS + IO_ERR_ENOSPC] = PMEM_ERRORS + IO_ERR_ENOSPC,
	[PROM_ERRORS + IO_ERR_ETIMEDOUT] = PMEM_ERRORS + IO_ERR_ETIMEDOUT,
	[PROM_ERRORS + IO_ERR_EOPNOTSUPP] = PMEM_ERRORS + IO_ERR_EOPNOTSUPP,
	[PROM_ERRORS + IO_ERR_ENODATA] = PMEM_ERRORS + IO_ERR_ENODATA,
	[PROM_ERRORS + IO_ERR_ENOLINK] = PMEM_ERRORS + IO_ERR_ENOLINK,
	[PROM_ERRORS + IO_ERR_EREMOTEIO] = PMEM_ERRORS + IO_ERR_EREMOTEIO,
	[PROM_ERRORS + IO_ERR_OTHER] = PMEM_ERRORS + IO_ERR_OTHER,
};

static bool row_changed(const struct proc_io *row)
{
	for (int c = 0; c < PROM_NR_COUNTS; c++)
		if (row->delta[counted_from[c]])
			return true;
	return row->wait_delta.blkio_ns != 0;
}

/* A label value of a name in the frame's table, escaped; NULL when memory
 * is out. */
static char *escaped_name(const struct frame *f, res_key key)
{
	uint32_t len;
	const char *name = res_name(f->names, key, &len);

	return escaped_copy(name, len);
}

/* 0, or -ENOMEM: the row is not counted. */
static int add_row(struct prom_totals *p, const struct frame *f, const struct proc_io *row,
		   uint64_t now_ns)
{
	char *device = escaped_name(f, row->device_name);
	char *comm = f->by_cgroup ? NULL : escaped_name(f, row->comm_name);
	char *cgroup = row->cgroup_name ? escaped_name(f, row->cgroup_name) : NULL;
	char *serves = row->serves_name ? escaped_name(f, row->serves_name) : NULL;
	struct prom_series *s = NULL;

	if (device && (comm || f->by_cgroup) && (cgroup || !row->cgroup_name) &&
	    (serves || !row->serves_name))
		s = series_for(p, device, comm, cgroup, serves, now_ns);
	free(device);
	free(comm);
	free(cgroup);
	free(serves);
	if (!s)
		return -ENOMEM;
	for (int c = 0; c < PROM_NR_COUNTS; c++)
		s->count[c] += row->delta[counted_from[c]];
	if (f->iowait_known)
		s->iowait_ns += row->wait_delta.blkio_ns;
	s->changed_ns = now_ns;
	return 0;
}

/* Series unchanged for idle_ns go; the rest keep their order. */
static void drop_idle(struct prom_totals *p, uint64_t now_ns)
{
	size_t kept = 0;

	for (size_t i = 0; i < p->nseries; i++) {
		struct prom_series *s = &p->series[i];

		if (p->config.idle_ns && now_ns - s->changed_ns >= p->config.idle_ns)
			series_free(s);
		else
			p->series[kept++] = *s;
	}
	p->nseries = kept;
}

void prom_add_frame(struct prom_totals *p, const struct frame *f, uint64_t now_ns)
{
	for (size_t i = 0; i < f->nrows; i++)
		if (row_changed(f->rows[i]) && add_row(p, f, f->rows[i], now_ns))
			p->alloc_failed++;
	for (int cause = 0; cause < LOST_NR_CAUSES; cause++)
		p->lost[cause] += f->lost[cause];
	p->iowait_measured |= f->iowait_known;
	/* A row that found no memory is lost like one the tally could not keep. */
	p->lost[LOST_ROW_ALLOC] += p->alloc_failed;
	p->alloc_failed = 0;
	drop_idle(p, now_ns);
}

void prom_finish(struct prom_totals *p, const uint64_t lost[LOST_NR_CAUSES])
{
	/* The summary's losses are the run's, but rows prom itself could not
	 * keep are only in its own count. */
	uint64_t own = p->lost[LOST_ROW_ALLOC];

	memcpy(p->lost, lost, sizeof(p->lost));
	if (own > p->lost[LOST_ROW_ALLOC])
		p->lost[LOST_ROW_ALLOC] = own;
	p->finished = true;
}

/* ---- rendering ---- */

static void family(FILE *out, const char *name, const char *type, const char *help)
{
	fprintf(out, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

/* A sample's name and labels, then the space before its value: the file's
 * own labels (own_format, printf's) and after them the user's
 * (--prom-label), in braces when there is any. */
__attribute__((format(printf, 4, 5)))
static void sample(FILE *out, const struct prom_totals *p, const char *name,
		   const char *own_format, ...)
{
	va_list ap;

	fprintf(out, "%s{", name);
	va_start(ap, own_format);
	vfprintf(out, own_format, ap);
	va_end(ap);
	fprintf(out, "%s%s} ", p->user_labels ? "," : "", p->user_labels ? p->user_labels : "");
}

/* The same for a sample without labels of the file's own. */
static void sample_unlabelled(FILE *out, const struct prom_totals *p, const char *name)
{
	if (p->user_labels)
		fprintf(out, "%s{%s} ", name, p->user_labels);
	else
		fprintf(out, "%s ", name);
}

static const char *const op_names[IO_NR_CLASSES] = { "read", "write", "discard" };

/* IO>: the seconds the series' processes waited for block I/O, on the
 * series of the disk they did most I/O on in each interval (device "-":
 * none); written once diskio measured it. */
static void render_iowait(FILE *out, const struct prom_totals *p)
{
	char seconds[32];

	if (!p->iowait_measured)
		return;
	family(out, "diskio_process_iowait_seconds_total", "counter",
	       "Seconds the process waited for block I/O (iotop's IO>, io_schedule()).");
	for (size_t i = 0; i < p->nseries; i++) {
		prom_format_ns_as_seconds(seconds, sizeof(seconds), p->series[i].iowait_ns);
		sample(out, p, "diskio_process_iowait_seconds_total", "%s", p->series[i].labels);
		fprintf(out, "%s\n", seconds);
	}
}

static void render_series(FILE *out, const struct prom_totals *p)
{
	static const struct {
		enum prom_count count;
		const char *name, *help;
	} bytes[] = {
		{ PROM_READ_BYTES, "diskio_read_bytes_total",
		  "Bytes read from the device, charged to the process (comm) or cgroup." },
		{ PROM_WRITE_BYTES, "diskio_write_bytes_total",
		  "Bytes written to the device, charged to their owner (writeback to the "
		  "process that dirtied the data)." },
		{ PROM_DISCARD_BYTES, "diskio_discard_bytes_total", "Bytes discarded on the device." },
		{ PROM_DIRTIED_BYTES, "diskio_dirtied_bytes_total",
		  "Page cache dirtied, on the device under the file's filesystem." },
	};

	for (size_t b = 0; b < sizeof(bytes) / sizeof(bytes[0]); b++) {
		if (bytes[b].count == PROM_DIRTIED_BYTES && !p->config.dirtied)
			continue;
		family(out, bytes[b].name, "counter", bytes[b].help);
		for (size_t i = 0; i < p->nseries; i++) {
			sample(out, p, bytes[b].name, "%s", p->series[i].labels);
			fprintf(out, "%" PRIu64 "\n", p->series[i].count[bytes[b].count]);
		}
	}
	family(out, "diskio_ios_total", "counter",
	       "I/Os by operation, as /proc/diskstats counts them, charged as the bytes are.");
	for (size_t i = 0; i < p->nseries; i++)
		for (int op = 0; op < IO_NR_CLASSES; op++) {
			sample(out, p, "diskio_ios_total", "%s,op=\"%s\"", p->series[i].labels,
			       op_names[op]);
			fprintf(out, "%" PRIu64 "\n", p->series[i].count[PROM_READ_IOS + op]);
		}
	family(out, "diskio_flushes_total", "counter",
	       "Cache flushes the process asked for (bios with a pre-flush).");
	for (size_t i = 0; i < p->nseries; i++) {
		sample(out, p, "diskio_flushes_total", "%s", p->series[i].labels);
		fprintf(out, "%" PRIu64 "\n", p->series[i].count[PROM_FLUSHES]);
	}
	family(out, "diskio_io_errors_total", "counter",
	       "Failed I/Os by kind (errno name), charged as the bytes are; a kind "
	       "appears at its first error.");
	for (size_t i = 0; i < p->nseries; i++)
		for (int k = 0; k < IO_ERROR_KINDS; k++) {
			if (!p->series[i].count[PROM_ERRORS + k])
				continue;
			sample(out, p, "diskio_io_errors_total", "%s,kind=\"%s\"",
			       p->series[i].labels, io_error_names[k]);
			fprintf(out, "%" PRIu64 "\n", p->series[i].count[PROM_ERRORS + k]);
		}
	render_iowait(out, p);
}

/* A device's name as a label value. */
struct device_label {
	char text[5 * PMEM_NAME_MAX + 1];
};

static const char *device_label(const struct pmem_device *dev, struct device_label *label)
{
	prom_escape_label(label->text, sizeof(label->text), dev->name,
			  strnlen(dev->name, PMEM_NAME_MAX));
	return label->text;
}

static void render_device_counters(FILE *out, const struct prom_totals *p,
				   const struct pmem_metrics *devices)
{
	static const struct {
		enum pmem_counter_id id;
		const char *name, *help;
	} bytes[] = {
		{ PMEM_READ_BYTES, "diskio_device_read_bytes_total", "Bytes read from the device." },
		{ PMEM_WRITE_BYTES, "diskio_device_write_bytes_total",
		  "Bytes written to the device." },
		{ PMEM_DISCARD_BYTES, "diskio_device_discard_bytes_total",
		  "Bytes discarded on the device." },
	};
	struct device_label label;

	for (size_t b = 0; b < sizeof(bytes) / sizeof(bytes[0]); b++) {
		family(out, bytes[b].name, "counter", bytes[b].help);
		for (size_t d = 0; d < devices->count; d++) {
			sample(out, p, bytes[b].name, "device=\"%s\"",
			       device_label(&devices->devices[d], &label));
			fprintf(out, "%" PRIu64 "\n", devices->devices[d].counter[bytes[b].id].total);
		}
	}
	family(out, "diskio_device_ios_total", "counter",
	       "I/Os on the device by operation, as /proc/diskstats counts them.");
	for (size_t d = 0; d < devices->count; d++)
		for (int op = 0; op < IO_NR_CLASSES; op++) {
			sample(out, p, "diskio_device_ios_total", "device=\"%s\",op=\"%s\"",
			       device_label(&devices->devices[d], &label), op_names[op]);
			fprintf(out, "%" PRIu64 "\n",
				devices->devices[d].counter[PMEM_READ_IOS + op].total);
		}
	family(out, "diskio_device_flushes_total", "counter",
	       "Flush requests the device completed, as /proc/diskstats counts them.");
	for (size_t d = 0; d < devices->count; d++) {
		sample(out, p, "diskio_device_flushes_total", "device=\"%s\"",
		       device_label(&devices->devices[d], &label));
		fprintf(out, "%" PRIu64 "\n", devices->devices[d].counter[PMEM_FLUSHES].total);
	}
	family(out, "diskio_device_io_errors_total", "counter",
	       "Failed I/Os on the device by kind (errno name); a kind appears at its first "
	       "error.");
	for (size_t d = 0; d < devices->count; d++)
		for (int k = 0; k < IO_ERROR_KINDS; k++) {
			uint64_t n = devices->devices[d].counter[PMEM_ERRORS + k].total;

			if (!n)
				continue;
			sample(out, p, "diskio_device_io_errors_total", "device=\"%s\",kind=\"%s\"",
			       device_label(&devices->devices[d], &label), io_error_names[k]);
			fprintf(out, "%" PRIu64 "\n", n);
		}
}

/* One histogram: the kernel's log2 slots as cumulative buckets, le the
 * slot's upper bound; the last slot has no upper bound, so it is only in
 * +Inf, which is _count. */
static void render_histogram(FILE *out, const struct prom_totals *p,
			     const struct pmem_device *dev, int op)
{
	struct device_label label;
	const char *name = device_label(dev, &label);
	uint64_t cumulative = 0;
	char le[32], sum[32];

	for (unsigned int k = 0; k < LATENCY_SLOTS; k++) {
		cumulative += dev->latency_slots[op][k].total;
		if (k == LATENCY_SLOTS - 1)
			break;
		prom_format_ns_as_seconds(le, sizeof(le), latency_slot_high_ns(k));
		sample(out, p, "diskio_io_latency_seconds_bucket",
		       "device=\"%s\",op=\"%s\",le=\"%s\"", name, op_names[op], le);
		fprintf(out, "%" PRIu64 "\n", cumulative);
	}
	sample(out, p, "diskio_io_latency_seconds_bucket", "device=\"%s\",op=\"%s\",le=\"+Inf\"",
	       name, op_names[op]);
	fprintf(out, "%" PRIu64 "\n", cumulative);
	prom_format_ns_as_seconds(sum, sizeof(sum), dev->op_latency_ns[op].total);
	sample(out, p, "diskio_io_latency_seconds_sum", "device=\"%s\",op=\"%s\"", name,
	       op_names[op]);
	fprintf(out, "%s\n", sum);
	sample(out, p, "diskio_io_latency_seconds_count", "device=\"%s\",op=\"%s\"", name,
	       op_names[op]);
	fprintf(out, "%" PRIu64 "\n", cumulative);
}

/* What part of a device's I/Os its histogram holds: 1 (every I/O), or
 * 1/N on a bio-based disk whose bios are sampled (--latency-sample N). */
static void render_latency_sample(FILE *out, const struct prom_totals *p,
				  const struct pmem_metrics *devices)
{
	struct device_label label;

	family(out, "diskio_latency_sample_ratio", "gauge",
	       "Fraction of the device's I/Os whose latency diskio_io_latency_seconds holds.");
	for (size_t d = 0; d < devices->count; d++) {
		sample(out, p, "diskio_latency_sample_ratio", "device=\"%s\"",
		       device_label(&devices->devices[d], &label));
		fprintf(out, "%.9g\n", 1.0 / pmem_latency_sample(&devices->devices[d]));
	}
	family(out, "diskio_latency_samples_dropped_total", "counter",
	       "Bios chosen for a latency sample but not timed: no free slot in the kernel.");
	for (size_t d = 0; d < devices->count; d++) {
		sample(out, p, "diskio_latency_samples_dropped_total", "device=\"%s\"",
		       device_label(&devices->devices[d], &label));
		fprintf(out, "%" PRIu64 "\n", devices->devices[d].latency_samples_dropped.total);
	}
}

static void render_devices(FILE *out, const struct prom_totals *p,
			   const struct pmem_metrics *devices)
{
	static const struct pmem_metrics none;

	if (!devices)
		devices = &none;
	render_device_counters(out, p, devices);
	family(out, "diskio_io_latency_seconds", "histogram",
	       "Completion latency by device and operation, from the kernel's log2 histogram.");
	for (size_t d = 0; d < devices->count; d++)
		for (int op = 0; op < IO_NR_CLASSES; op++)
			render_histogram(out, p, &devices->devices[d], op);
	render_latency_sample(out, p, devices);
}

static void render_lost(FILE *out, const struct prom_totals *p)
{
	family(out, "diskio_lost_events_total", "counter",
	       "Records diskio could not keep, by cause (README.md, Lost records).");
	for (int cause = 0; cause < LOST_NR_CAUSES; cause++) {
		sample(out, p, "diskio_lost_events_total", "cause=\"%s\"", lost_cause_names[cause]);
		fprintf(out, "%" PRIu64 "\n", p->lost[cause]);
	}
}

static int compare_crashes(const void *pa, const void *pb)
{
	const struct crashfree_process *a = *(const struct crashfree_process *const *)pa;
	const struct crashfree_process *b = *(const struct crashfree_process *const *)pb;

	if (a->crashes != b->crashes)
		return a->crashes < b->crashes ? 1 : -1;
	return strncmp(a->comm, b->comm, CRASHFREE_COMM_LEN);
}

static bool is_other(const struct crashfree_process *p)
{
	return !strncmp(p->comm, PROM_OTHER, CRASHFREE_COMM_LEN);
}

/* Crashes per comm: all, or with more names than max_rows the max_rows
 * with most crashes and the rest as comm="other" (a real "other" joins
 * it).  0 or -ENOMEM. */
static int render_crashes_by_comm(FILE *out, const struct prom_totals *p,
				  const struct crashfree *crash)
{
	uint32_t max_rows = p->config.max_rows;
	const struct crashfree_process **order;
	size_t n = crash->nprocesses, shown = 0;
	bool folding = n > max_rows;
	uint64_t other = 0;

	family(out, "diskio_crashes_total", "counter",
	       "Processes ended by a core-dumping signal, by comm (since the --state history).");
	if (!n)
		return 0;
	order = calloc(n, sizeof(*order));
	if (!order)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		order[i] = &crash->by_process[i];
	qsort(order, n, sizeof(*order), compare_crashes);
	for (size_t i = 0; i < n; i++) {
		size_t len = strnlen(order[i]->comm, CRASHFREE_COMM_LEN);
		char name[5 * CRASHFREE_COMM_LEN + 1];

		if (folding && (shown == max_rows || is_other(order[i]))) {
			other += order[i]->crashes;
			continue;
		}
		prom_escape_label(name, sizeof(name), order[i]->comm, len);
		sample(out, p, "diskio_crashes_total", "comm=\"%s\"", name);
		fprintf(out, "%" PRIu64 "\n", order[i]->crashes);
		shown++;
	}
	if (folding) {
		sample(out, p, "diskio_crashes_total", "comm=\"%s\"", PROM_OTHER);
		fprintf(out, "%" PRIu64 "\n", other);
	}
	free(order);
	return 0;
}

static int render_crash(FILE *out, const struct prom_totals *p, const struct crashfree *crash)
{
	char interval[32];
	int err;

	family(out, "diskio_operational_intervals_total", "counter",
	       "Whole crash intervals diskio has run (since the --state history).");
	sample_unlabelled(out, p, "diskio_operational_intervals_total");
	fprintf(out, "%" PRIu64 "\n", crash->operational_intervals);
	family(out, "diskio_crashfree_intervals_total", "counter",
	       "Whole crash intervals without a crash (since the --state history).");
	sample_unlabelled(out, p, "diskio_crashfree_intervals_total");
	fprintf(out, "%" PRIu64 "\n", crash->crashfree_intervals);
	err = render_crashes_by_comm(out, p, crash);
	family(out, "diskio_crash_interval_seconds", "gauge",
	       "Length of a crash interval (--crash-interval).");
	prom_format_ns_as_seconds(interval, sizeof(interval), crash->interval_ns);
	sample_unlabelled(out, p, "diskio_crash_interval_seconds");
	fprintf(out, "%s\n", interval);
	return err;
}

int prom_render(FILE *out, const struct prom_totals *p, const struct pmem_metrics *devices,
		const struct crashfree *crash)
{
	char version[64];
	int err = 0;

	render_series(out, p);
	render_devices(out, p, devices);
	render_lost(out, p);
	if (crash)
		err = render_crash(out, p, crash);
	prom_escape_label(version, sizeof(version), p->config.version ? p->config.version : "",
			  p->config.version ? strlen(p->config.version) : 0);
	family(out, "diskio_build_info", "gauge", "Always 1; version is diskio's.");
	sample(out, p, "diskio_build_info", "version=\"%s\"", version);
	fputs("1\n", out);
	family(out, "diskio_up", "gauge",
	       "1 while diskio runs, 0 once it has exited cleanly; the file's last line.");
	sample_unlabelled(out, p, "diskio_up");
	fprintf(out, "%d\n", !p->finished);
	if (!err && ferror(out))
		err = -EIO;
	return err;
}
