// SPDX-License-Identifier: GPL-2.0
/* The interval views batch (awk) and JSON; the top view is in top.c. */
#include <inttypes.h>
#include <langinfo.h>
#include <locale.h>
#include <string.h>
#include <strings.h>
#include <sys/utsname.h>
#include "view.h"

const char *const lost_cause_names[LOST_NR_CAUSES] = {
	[LOST_STATS_MAP_FULL] = "stats_map_full",
	[LOST_INFLIGHT_FULL] = "inflight_full",
	[LOST_RINGBUF_FULL] = "ringbuf_full",
	[LOST_CRASH_MAP_FULL] = "crash_map_full",
	[LOST_PERF_BUFFER] = "perf_buffer",
	[LOST_COMPLETION_UNSEEN] = "completion_unseen",
	[LOST_OWNER_MAP_FULL] = "owner_map_full",
	[LOST_NAMES_TABLE_FULL] = "names_table_full",
	[LOST_ROW_ALLOC] = "row_alloc_failed",
	[LOST_CRASH_EVENTS_FULL] = "crash_events_full",
	[LOST_STACK_UNAVAILABLE] = "stack_unavailable",
	[LOST_STACKS_MAP_FULL] = "stacks_map_full",
	[LOST_STACKS_TABLE_FULL] = "stacks_table_full",
};

/* The order causes are shown in: a cause added later comes last, so that
 * no field of the "#" lines moves. */
static const enum lost_cause lost_shown[LOST_NR_CAUSES] = {
	LOST_STATS_MAP_FULL, LOST_INFLIGHT_FULL, LOST_RINGBUF_FULL, LOST_CRASH_MAP_FULL,
	LOST_PERF_BUFFER, LOST_COMPLETION_UNSEEN, LOST_NAMES_TABLE_FULL, LOST_OWNER_MAP_FULL,
	LOST_ROW_ALLOC, LOST_CRASH_EVENTS_FULL, LOST_STACK_UNAVAILABLE, LOST_STACKS_MAP_FULL,
	LOST_STACKS_TABLE_FULL,
};

/* Counters a row or device shows, in batch column order. */
static const enum pmem_counter_id shown_counters[] = {
	PMEM_READ_BYTES, PMEM_WRITE_BYTES, PMEM_DISCARD_BYTES,
	PMEM_READ_IOS, PMEM_WRITE_IOS, PMEM_DISCARD_IOS, PMEM_FLUSHES,
};
#define NR_SHOWN (sizeof(shown_counters) / sizeof(shown_counters[0]))

uint64_t lost_total(const uint64_t lost[LOST_NR_CAUSES])
{
	uint64_t sum = 0;

	for (int i = 0; i < LOST_NR_CAUSES; i++)
		sum += lost[i];
	return sum;
}

/* "52.1" (one rounding rule for every average latency), or "-". */
static void format_latency(char *buf, size_t size, const uint64_t *values)
{
	uint64_t tenths;

	if (pmem_avg_latency_tenths_us(values, &tenths))
		snprintf(buf, size, "%" PRIu64 ".%u", tenths / 10, (unsigned int)(tenths % 10));
	else
		snprintf(buf, size, "-");
}

/* A row's latency is shown only with -L: otherwise the rows hold the I/Os
 * tracked for a filter, not a per-process measurement. */
static bool row_latency_tenths(const struct frame *f, const uint64_t *values, uint64_t *tenths)
{
	return f->per_process_latency && pmem_avg_latency_tenths_us(values, tenths);
}

void view_show_frame(struct view *v, const struct frame *f)
{
	if (v->begin)
		v->begin(v, f);
	for (size_t i = 0; v->device && i < f->devices->count; i++)
		v->device(v, f, &f->devices->devices[i]);
	for (size_t i = 0; v->row && i < f->nrows; i++)
		v->row(v, f, f->rows[i]);
	v->interval_end(v, f);
}

void json_write_crash_event(struct jsonw *w, const char *key, const struct crash_event *e)
{
	char buf[16];
	const char *sig = signal_name(e->signal, buf, sizeof(buf));

	jsonw_object(w, key);
	jsonw_u64(w, "pid", e->tgid);
	jsonw_string(w, "comm", e->comm, strnlen(e->comm, sizeof(e->comm)));
	jsonw_string(w, "signal", sig, strlen(sig));
	jsonw_bool(w, "core_dumped", e->core_dumped);
	jsonw_object_end(w);
}

static void write_escaped(FILE *out, const char *name, size_t len, const char *also_escaped)
{
	if (!len) {
		fputc('-', out);
		return;
	}
	for (size_t i = 0; i < len; i++) {
		unsigned char c = name[i];

		if (c <= 0x20 || c >= 0x7f || c == '\\' || strchr(also_escaped, c))
			fprintf(out, "\\x%02x", c);
		else
			fputc(c, out);
	}
}

void batch_write_name(FILE *out, const char *name, size_t len)
{
	write_escaped(out, name, len, "");
}

/* Inside "by_process=a:1,b:2" the separators must not appear in names. */
static void batch_write_listed_name(FILE *out, const char *name, size_t len)
{
	write_escaped(out, name, len, ",:=");
}

void format_duration(char *buf, size_t size, uint64_t seconds)
{
	if (seconds && seconds % 86400 == 0)
		snprintf(buf, size, "%" PRIu64 "d", seconds / 86400);
	else if (seconds && seconds % 3600 == 0)
		snprintf(buf, size, "%" PRIu64 "h", seconds / 3600);
	else if (seconds && seconds % 60 == 0)
		snprintf(buf, size, "%" PRIu64 "m", seconds / 60);
	else
		snprintf(buf, size, "%" PRIu64 "s", seconds);
}

void format_bytes(char *buf, size_t size, double bytes)
{
	static const char *const units[] = { "B", "KiB", "MiB", "GiB", "TiB", "PiB" };
	int unit = 0;

	while (bytes >= 1024 && unit < 5) {
		bytes /= 1024;
		unit++;
	}
	if (unit == 0)
		snprintf(buf, size, "%.0f %s", bytes, units[unit]);
	else
		snprintf(buf, size, "%.1f %s", bytes, units[unit]);
}

void format_utc(char *buf, size_t size, const struct timespec *when)
{
	unsigned int millis = (unsigned int)(when->tv_nsec / 1000000) % 1000U;
	struct tm tm;
	size_t n;

	gmtime_r(&when->tv_sec, &tm);
	n = strftime(buf, size, "%Y-%m-%dT%H:%M:%S", &tm);
	if (n)
		snprintf(buf + n, size - n, ".%03uZ", millis);
}

uint64_t epoch_millis(const struct timespec *when)
{
	return (uint64_t)when->tv_sec * 1000U + (uint64_t)when->tv_nsec / 1000000U;
}

void json_write_record_head(struct jsonw *w, const char *type, const struct timespec *when,
			    const char *host)
{
	char text[40];

	format_utc(text, sizeof(text), when);
	jsonw_string(w, "type", type, strlen(type));
	if (host) {
		jsonw_u64(w, "schema", JSON_SCHEMA_VERSION);
		jsonw_string(w, "host", host, strlen(host));
	}
	jsonw_string(w, "time", text, strlen(text));
	jsonw_thousandths(w, "ts", epoch_millis(when));
}

size_t frame_rows_shown(const struct frame *f, unsigned int max_rows)
{
	return max_rows && f->nrows > max_rows ? max_rows : f->nrows;
}

/* The node name for JSON records ("" if uname() fails, which it does not). */
void view_init_host(struct view *v)
{
	struct utsname uts;

	v->host[0] = '\0';
	if (!uname(&uts))
		snprintf(v->host, sizeof(v->host), "%s", uts.nodename);
}

bool locale_is_utf8(void)
{
	const char *codeset;
	bool utf8;

	if (!setlocale(LC_CTYPE, ""))
		return false;
	codeset = nl_langinfo(CODESET);
	utf8 = codeset && (!strcasecmp(codeset, "UTF-8") || !strcasecmp(codeset, "utf8"));
	setlocale(LC_CTYPE, "C");
	return utf8;
}

const char *signal_name(uint32_t sig, char *buf, size_t size)
{
	static const char *const names[32] = {
		[3] = "SIGQUIT", [4] = "SIGILL", [5] = "SIGTRAP", [6] = "SIGABRT",
		[7] = "SIGBUS", [8] = "SIGFPE", [11] = "SIGSEGV", [24] = "SIGXCPU",
		[25] = "SIGXFSZ", [31] = "SIGSYS",
	};

	if (sig < 32 && names[sig])
		return names[sig];
	snprintf(buf, size, "SIG%u", sig);
	return buf;
}

void printable_name(char *buf, size_t size, const char *name, size_t len)
{
	size_t i;

	for (i = 0; i < len && i + 1 < size; i++) {
		unsigned char c = name[i];

		buf[i] = (c < 0x20 || c >= 0x7f) ? '?' : c;
	}
	buf[i] = '\0';
}

/* "hours", "hour", or for an interval that is no whole day, hour or minute
 * "intervals of 90s". */
static void crash_interval_unit(char *buf, size_t size, uint64_t interval_s, uint64_t count)
{
	static const struct {
		uint64_t seconds;
		const char *one, *many;
	} units[] = {
		{ 86400, "day", "days" }, { 3600, "hour", "hours" }, { 60, "minute", "minutes" },
		{ 1, "second", "seconds" },
	};
	char every[16];

	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		if (interval_s == units[i].seconds) {
			snprintf(buf, size, "%s", count == 1 ? units[i].one : units[i].many);
			return;
		}
	}
	format_duration(every, sizeof(every), interval_s);
	snprintf(buf, size, "%s of %s", count == 1 ? "interval" : "intervals", every);
}

char *format_crash_line(char *buf, size_t size, const struct crashfree *crash, bool utf8)
{
	const char *dot = utf8 ? "\u00b7" : "-";
	char unit[48];
	size_t n;

	if (!size)
		return buf;
	crash_interval_unit(unit, sizeof(unit), crash->interval_ns / 1000000000U,
			    crash->operational_intervals);
	snprintf(buf, size, "crash-free %" PRIu64 " of %" PRIu64 " %s %s ",
		 crash->crashfree_intervals, crash->operational_intervals, unit, dot);
	n = strlen(buf);
	if (!crash->crashes) {
		snprintf(buf + n, size - n, "no crashes");
		return buf;
	}
	snprintf(buf + n, size - n, "%" PRIu64 " %s", crash->crashes,
		 crash->crashes == 1 ? "crash" : "crashes");
	n = strlen(buf);
	/* The names that fit, each whole, then ", ..." for the rest. */
	for (size_t i = 0; i < crash->nprocesses; i++) {
		const struct crashfree_process *p = &crash->by_process[i];
		char comm[CRASHFREE_COMM_LEN], item[CRASHFREE_COMM_LEN + 32];
		size_t len;

		printable_name(comm, sizeof(comm), p->comm, strnlen(p->comm, CRASHFREE_COMM_LEN));
		if (crash->nprocesses == 1 && p->crashes == crash->crashes)
			snprintf(item, sizeof(item), " (%s", comm);
		else
			snprintf(item, sizeof(item), "%s%s %" PRIu64, i ? ", " : " (", comm,
				 p->crashes);
		len = strlen(item);
		/* room for this item, ", ..." and ")" */
		if (n + len + 6 >= size) {
			if (n + 6 < size) {
				snprintf(buf + n, size - n, "%s...)", i ? ", " : " (");
				n = strlen(buf);
			}
			return buf;
		}
		memcpy(buf + n, item, len + 1);
		n += len;
	}
	if (crash->nprocesses && n + 1 < size)
		memcpy(buf + n, ")", 2);
	return buf;
}

/* ---- batch ---- */

static void batch_start(struct view *v)
{
	fputs("# time pid comm device read_bytes write_bytes discard_bytes read_ios write_ios"
	      " discard_ios flushes avg_latency_us dirtied_bytes writeback_bytes cgroup\n", v->out);
}

static void batch_counters(FILE *out, const uint64_t *values)
{
	char latency[32];

	for (size_t i = 0; i < NR_SHOWN; i++)
		fprintf(out, " %s=%" PRIu64, pmem_counter_names[shown_counters[i]],
			values[shown_counters[i]]);
	format_latency(latency, sizeof(latency), values);
	fprintf(out, " avg_latency_us=%s", latency);
}

void batch_write_lost(FILE *out, const uint64_t lost[LOST_NR_CAUSES])
{
	fprintf(out, " lost=%" PRIu64, lost_total(lost));
	for (int i = 0; i < LOST_NR_CAUSES; i++)
		fprintf(out, " lost_%s=%" PRIu64, lost_cause_names[lost_shown[i]], lost[lost_shown[i]]);
}

static void batch_crash_line(FILE *out, const struct crashfree *crash)
{
	fprintf(out, "# crash interval_s=%" PRIu64 " operational_intervals=%" PRIu64
		" crashfree_intervals=%" PRIu64 " crashes=%" PRIu64 " by_process=",
		(uint64_t)(crash->interval_ns / 1000000000U), crash->operational_intervals,
		crash->crashfree_intervals, crash->crashes);
	if (!crash->nprocesses)
		fputc('-', out);
	for (size_t i = 0; i < crash->nprocesses; i++) {
		const struct crashfree_process *p = &crash->by_process[i];

		if (i)
			fputc(',', out);
		batch_write_listed_name(out, p->comm, strnlen(p->comm, sizeof(p->comm)));
		fprintf(out, ":%" PRIu64, p->crashes);
	}
	fputc('\n', out);
}

void batch_write_crash_event(FILE *out, const struct crash_event *e)
{
	char buf[16];

	fprintf(out, "pid=%u comm=", e->tgid);
	batch_write_name(out, e->comm, strnlen(e->comm, sizeof(e->comm)));
	fprintf(out, " signal=%s core_dumped=%u\n", signal_name(e->signal, buf, sizeof(buf)),
		e->core_dumped);
}

static void batch_begin(struct view *v, const struct frame *f)
{
	uint64_t values[PMEM_NR_COUNTERS];

	format_utc(v->when, sizeof(v->when), &f->wall);
	v->rows_begun = false;
	v->rows_shown = 0;
	v->rows_cut = f->nrows - frame_rows_shown(f, v->screen.max_rows);
	fprintf(v->out, "# time=%s interval_s=%g", v->when, f->interval_s);
	pmem_values(&f->devices->aggregate, f->cumulative, values);
	batch_counters(v->out, values);
	batch_write_lost(v->out, f->lost);
	fprintf(v->out, " rows_cut=%u\n", v->rows_cut);
}

/* " read_p50_us=12.3 read_p95_us=… … discard_p99_us=-" */
static void batch_latency_percentiles(FILE *out, const struct pmem_device *dev, bool cumulative)
{
	for (unsigned int op = 0; op < IO_NR_CLASSES; op++) {
		struct latency_summary l;

		pmem_latency_summary(dev, op, cumulative, &l);
		if (l.ios)
			fprintf(out, " %s_p50_us=%.1f %s_p95_us=%.1f %s_p99_us=%.1f",
				pmem_op_names[op], l.p50_us, pmem_op_names[op], l.p95_us,
				pmem_op_names[op], l.p99_us);
		else
			fprintf(out, " %s_p50_us=- %s_p95_us=- %s_p99_us=-", pmem_op_names[op],
				pmem_op_names[op], pmem_op_names[op]);
	}
}

void batch_write_histogram(FILE *out, const struct pmem_device *dev, unsigned int op,
			   bool cumulative)
{
	enum { BAR_WIDTH = 40 };
	struct latency_hist h;
	unsigned int first = LATENCY_SLOTS, last = 0;
	uint64_t most = 0;

	pmem_latency_hist(dev, op, cumulative, &h);
	for (unsigned int k = 0; k < LATENCY_SLOTS; k++) {
		if (!h.slots[k])
			continue;
		first = first < k ? first : k;
		last = k;
		most = most > h.slots[k] ? most : h.slots[k];
	}
	if (first == LATENCY_SLOTS)
		return;
	fputs("# histogram ", out);
	batch_write_name(out, dev->name, strlen(dev->name));
	fprintf(out, " %s usecs : count distribution\n", pmem_op_names[op]);
	for (unsigned int k = first; k <= last; k++) {
		unsigned int stars = (unsigned int)((h.slots[k] * BAR_WIDTH + most - 1) / most);

		fprintf(out, "# %12.3f -> %-12.3f : %-10" PRIu64 " |%.*s%*s|\n",
			(double)latency_slot_low_ns(k) / 1000.0,
			(double)latency_slot_high_ns(k) / 1000.0, h.slots[k], (int)stars,
			"****************************************", (int)(BAR_WIDTH - stars), "");
	}
}

static void batch_device(struct view *v, const struct frame *f, const struct pmem_device *dev)
{
	uint64_t values[PMEM_NR_COUNTERS];

	fputs("# device ", v->out);
	batch_write_name(v->out, dev->name, strlen(dev->name));
	pmem_values(dev, f->cumulative, values);
	batch_counters(v->out, values);
	batch_latency_percentiles(v->out, dev, f->cumulative);
	fputc('\n', v->out);
	if (v->histograms)
		for (unsigned int op = 0; op < IO_NR_CLASSES; op++)
			batch_write_histogram(v->out, dev, op, f->cumulative);
}

/* The crash lines come after the devices, before the rows. */
static void batch_begin_rows(struct view *v, const struct frame *f)
{
	if (v->rows_begun)
		return;
	v->rows_begun = true;
	if (f->crash)
		batch_crash_line(v->out, f->crash);
	for (size_t i = 0; i < f->ncrash_events; i++) {
		fputs("# crash-event ", v->out);
		batch_write_crash_event(v->out, &f->crash_events[i]);
	}
}

/* Frames joined with ';' in one awk field ("-" for none). */
struct batch_frames {
	FILE *out;
	size_t written;
};

static void batch_frame(const char *name, void *arg)
{
	struct batch_frames *frames = arg;

	if (frames->written++)
		fputc(';', frames->out);
	write_escaped(frames->out, name, strlen(name), ";");
}

static void batch_stack_side(FILE *out, const struct stack_namer *namer,
			     const struct row_stack *s, bool user)
{
	struct batch_frames frames = { .out = out };

	if (!stack_for_each_name(namer, s, user, false, batch_frame, &frames))
		fputc('-', out);
}

/* "# stack pid=… comm=… device=… bytes=… ios=… dirtied_bytes=… kernel=a;b
 * user=c;d" for each of the row's top stacks, frames innermost first. */
static void batch_row_stacks(struct view *v, const struct frame *f, const struct proc_io *row)
{
	for (uint32_t i = 0; i < row->nstacks; i++) {
		const struct row_stack *s = row->stacks[i];
		const char *name;
		uint32_t len;

		fprintf(v->out, "# stack pid=%" PRIu32 " comm=", row->key.tgid);
		name = res_name(f->names, row->comm_name, &len);
		batch_write_name(v->out, name, len);
		fputs(" device=", v->out);
		name = res_name(f->names, row->device_name, &len);
		batch_write_name(v->out, name, len);
		fprintf(v->out, " bytes=%" PRIu64 " ios=%" PRIu64 " dirtied_bytes=%" PRIu64 " kernel=",
			row_stack_bytes(s, f->cumulative), row_stack_ios(s, f->cumulative),
			row_stack_dirtied(s, f->cumulative));
		batch_stack_side(v->out, v->stacks, s, false);
		fputs(" user=", v->out);
		batch_stack_side(v->out, v->stacks, s, true);
		fputc('\n', v->out);
	}
}

static void batch_row(struct view *v, const struct frame *f, const struct proc_io *row)
{
	const uint64_t *values = iostats_values(row, f->cumulative);
	const char *name;
	uint64_t tenths;
	uint32_t len;

	batch_begin_rows(v, f);
	if (v->screen.max_rows && v->rows_shown >= v->screen.max_rows)
		return;		/* counted in rows_cut */
	v->rows_shown++;
	if (f->by_cgroup) {
		fprintf(v->out, "%s - - ", v->when);
	} else {
		fprintf(v->out, "%s %" PRIu32 " ", v->when, row->key.tgid);
		name = res_name(f->names, row->comm_name, &len);
		batch_write_name(v->out, name, len);
		fputc(' ', v->out);
	}
	name = res_name(f->names, row->device_name, &len);
	batch_write_name(v->out, name, len);
	for (size_t i = 0; i < NR_SHOWN; i++)
		fprintf(v->out, " %" PRIu64, values[shown_counters[i]]);
	if (row_latency_tenths(f, values, &tenths))
		fprintf(v->out, " %" PRIu64 ".%u", tenths / 10, (unsigned int)(tenths % 10));
	else
		fputs(" -", v->out);
	fprintf(v->out, " %" PRIu64 " %" PRIu64 " ", values[PMEM_DIRTIED_BYTES],
		values[PMEM_WRITEBACK_BYTES]);
	if (row->cgroup_name) {
		name = res_name(f->names, row->cgroup_name, &len);
		batch_write_name(v->out, name, len);
	} else {
		fputc('-', v->out);
	}
	fputc('\n', v->out);
	if (v->stacks)
		batch_row_stacks(v, f, row);
}

static void batch_interval_end(struct view *v, const struct frame *f)
{
	batch_begin_rows(v, f);
}

void view_batch_summary(struct view *v, const struct summary *s)
{
	char when[32];

	format_utc(when, sizeof(when), &s->wall);
	fprintf(v->out, "# summary time=%s duration_s=%.3f", when, s->duration_s);
	if (s->has_io_events)
		fprintf(v->out, " events=%" PRIu64, s->io_events);
	batch_write_lost(v->out, s->lost);
	fputc('\n', v->out);
	batch_crash_line(v->out, s->crash);
}

void view_batch(struct view *v, FILE *out)
{
	*v = (struct view){
		.start = batch_start, .begin = batch_begin, .device = batch_device,
		.row = batch_row, .interval_end = batch_interval_end,
		.summary = view_batch_summary, .out = out
	};
}

/* ---- JSON ---- */

void json_write_lost(struct jsonw *w, const uint64_t lost[LOST_NR_CAUSES])
{
	jsonw_object(w, "lost");
	jsonw_u64(w, "events", lost_total(lost));
	jsonw_object(w, "by_cause");
	for (int i = 0; i < LOST_NR_CAUSES; i++)
		jsonw_u64(w, lost_cause_names[lost_shown[i]], lost[lost_shown[i]]);
	jsonw_object_end(w);
	jsonw_object_end(w);
}

static void json_crash(struct jsonw *w, const struct crashfree *crash)
{
	jsonw_object(w, "crash");
	jsonw_u64(w, "interval_s", crash->interval_ns / 1000000000U);
	jsonw_u64(w, "operational_intervals", crash->operational_intervals);
	jsonw_u64(w, "crashfree_intervals", crash->crashfree_intervals);
	jsonw_u64(w, "crashes", crash->crashes);
	jsonw_object(w, "by_process");
	for (size_t i = 0; i < crash->nprocesses; i++)
		jsonw_u64(w, crash->by_process[i].comm, crash->by_process[i].crashes);
	jsonw_object_end(w);
	jsonw_object_end(w);
}

static void json_begin(struct view *v, const struct frame *f)
{
	v->rows_shown = 0;
	v->rows_cut = f->nrows - frame_rows_shown(f, v->screen.max_rows);
	jsonw_object(&v->json, NULL);
	json_write_record_head(&v->json, "interval", &f->wall, v->host);
	jsonw_double(&v->json, "interval_s", "%g", f->interval_s);
	jsonw_array(&v->json, "processes");
}

/* "latency_us":{"p50":…,"p95":…,"p99":…}: the row's percentiles over all
 * operations with -L, null where they are not known. */
static void json_row_latency(struct jsonw *w, const struct frame *f, const struct proc_io *row)
{
	static const char *const keys[] = { "p50", "p95", "p99" };
	struct latency_summary l;
	bool known = f->per_process_latency && !f->by_cgroup &&
		     iostats_latency_summary(row, f->cumulative, &l);
	double values[3];

	if (known) {
		values[0] = l.p50_us;
		values[1] = l.p95_us;
		values[2] = l.p99_us;
	}
	jsonw_object(w, "latency_us");
	for (int k = 0; k < 3; k++)
		if (known)
			jsonw_double(w, keys[k], "%.1f", values[k]);
		else
			jsonw_null(w, keys[k]);
	jsonw_object_end(w);
}

static void json_frame(const char *name, void *arg)
{
	jsonw_string(arg, NULL, name, strlen(name));
}

static void json_frame_unknown(const char *why, void *arg)
{
	if (why)
		jsonw_string(arg, NULL, why, strlen(why));
	else
		jsonw_null(arg, NULL);
}

/* "stacks":[{"bytes":…,"ios":…,"dirtied_bytes":…,"kernel":[…],"user":[…],
 * "user_unknown":[…]}]: the row's top stacks, frames innermost first; for
 * each user frame why it has no name, or null. */
static void json_row_stacks(struct view *v, const struct frame *f, const struct proc_io *row)
{
	struct jsonw *w = &v->json;

	jsonw_array(w, "stacks");
	for (uint32_t i = 0; i < row->nstacks; i++) {
		const struct row_stack *s = row->stacks[i];

		jsonw_object(w, NULL);
		jsonw_u64(w, "bytes", row_stack_bytes(s, f->cumulative));
		jsonw_u64(w, "ios", row_stack_ios(s, f->cumulative));
		jsonw_u64(w, "dirtied_bytes", row_stack_dirtied(s, f->cumulative));
		jsonw_array(w, "kernel");
		stack_for_each_name(v->stacks, s, false, false, json_frame, w);
		jsonw_array_end(w);
		jsonw_array(w, "user");
		stack_for_each_name(v->stacks, s, true, false, json_frame, w);
		jsonw_array_end(w);
		jsonw_array(w, "user_unknown");
		stack_for_each_unknown(v->stacks, s, json_frame_unknown, w);
		jsonw_array_end(w);
		jsonw_object_end(w);
	}
	jsonw_array_end(w);
}

static void json_row(struct view *v, const struct frame *f, const struct proc_io *row)
{
	const uint64_t *values = iostats_values(row, f->cumulative);
	struct jsonw *w = &v->json;
	const char *name;
	uint64_t tenths;
	uint32_t len;

	if (v->screen.max_rows && v->rows_shown >= v->screen.max_rows)
		return;		/* counted in rows_cut */
	v->rows_shown++;
	jsonw_object(w, NULL);
	if (f->by_cgroup) {
		jsonw_null(w, "pid");
		jsonw_null(w, "comm");
	} else {
		jsonw_u64(w, "pid", row->key.tgid);
		name = res_name(f->names, row->comm_name, &len);
		jsonw_string(w, "comm", name, len);
	}
	name = res_name(f->names, row->device_name, &len);
	jsonw_string(w, "device", name, len);
	for (size_t i = 0; i < NR_SHOWN; i++)
		jsonw_u64(w, pmem_counter_names[shown_counters[i]], values[shown_counters[i]]);
	if (row_latency_tenths(f, values, &tenths))
		jsonw_tenths(w, "avg_latency_us", tenths);
	else
		jsonw_null(w, "avg_latency_us");
	jsonw_u64(w, "dirtied_bytes", values[PMEM_DIRTIED_BYTES]);
	jsonw_u64(w, "writeback_bytes", values[PMEM_WRITEBACK_BYTES]);
	if (row->cgroup_name) {
		name = res_name(f->names, row->cgroup_name, &len);
		jsonw_string(w, "cgroup", name, len);
	} else {
		jsonw_null(w, "cgroup");
	}
	json_row_latency(w, f, row);
	if (v->stacks)
		json_row_stacks(v, f, row);
	jsonw_object_end(w);
}

static void json_interval_end(struct view *v, const struct frame *f)
{
	struct jsonw *w = &v->json;

	jsonw_array_end(w);
	jsonw_u64(w, "rows_cut", v->rows_cut);
	pmem_write_json(f->devices, w, f->cumulative, v->histograms);
	json_write_lost(w, f->lost);
	if (f->crash)
		json_crash(w, f->crash);
	if (f->ncrash_events) {
		jsonw_array(w, "crash_events");
		for (size_t i = 0; i < f->ncrash_events; i++)
			json_write_crash_event(w, NULL, &f->crash_events[i]);
		jsonw_array_end(w);
	}
	jsonw_object_end(w);
	jsonw_end_record(w);
}

void view_json_summary(struct view *v, const struct summary *s)
{
	struct jsonw *w = &v->json;

	jsonw_object(w, NULL);
	json_write_record_head(w, "summary", &s->wall, v->host);
	jsonw_double(w, "duration_s", "%.3f", s->duration_s);
	if (s->has_io_events)
		jsonw_u64(w, "events", s->io_events);
	if (s->devices)
		pmem_write_json(s->devices, w, true, v->histograms);
	json_write_lost(w, s->lost);
	json_crash(w, s->crash);
	jsonw_object_end(w);
	jsonw_end_record(w);
}

/* Devices are written by the registry's own serializer, pmem_write_json(). */
void view_json(struct view *v, FILE *out)
{
	*v = (struct view){
		.begin = json_begin, .row = json_row, .interval_end = json_interval_end,
		.summary = view_json_summary, .out = out
	};
	jsonw_init(&v->json, out);
	view_init_host(v);
}

/* ---- quiet ---- */

static void quiet_interval_end(struct view *v, const struct frame *f)
{
	(void)v;
	(void)f;
}

static void quiet_summary(struct view *v, const struct summary *s)
{
	(void)v;
	(void)s;
}

void view_quiet(struct view *v, FILE *out)
{
	*v = (struct view){
		.interval_end = quiet_interval_end, .summary = quiet_summary, .out = out
	};
}
