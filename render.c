// SPDX-License-Identifier: GPL-2.0
#include <inttypes.h>
#include <string.h>
#include "render.h"

const char *const lost_reason_names[LOST_NR_REASONS] = {
	[LOST_REASON_STATS_MAP] = "stats_map_full",
	[LOST_REASON_INFLIGHT] = "inflight_full",
	[LOST_REASON_RINGBUF] = "ringbuf_full",
	[LOST_REASON_CRASH_MAP] = "crash_map_full",
	[LOST_REASON_PERF_BUFFER] = "perf_buffer",
	[LOST_REASON_COMPLETION_UNSEEN] = "completion_unseen",
	[LOST_REASON_NAMES_TABLE] = "names_table_full",
};

/* Counters a row or device shows, in batch column order. */
static const enum pmem_counter_id shown_counters[] = {
	PMEM_READ_BYTES, PMEM_WRITE_BYTES, PMEM_DISCARD_BYTES,
	PMEM_READ_IOS, PMEM_WRITE_IOS, PMEM_DISCARD_IOS, PMEM_FLUSHES,
};
#define NR_SHOWN (sizeof(shown_counters) / sizeof(shown_counters[0]))

uint64_t lost_total(const uint64_t lost[LOST_NR_REASONS])
{
	uint64_t sum = 0;

	for (int i = 0; i < LOST_NR_REASONS; i++)
		sum += lost[i];
	return sum;
}

static const char *name_of(const struct frame *frame, res_key key, uint32_t *len)
{
	const char *name = res_lookup(frame->names, key, len);

	if (!name) {
		*len = 1;
		return "?";
	}
	return name;
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
	struct tm tm;

	gmtime_r(&when->tv_sec, &tm);
	strftime(buf, size, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

static double avg_latency_us(const uint64_t *values)
{
	return values[PMEM_LATENCY_IOS] ?
	       (double)values[PMEM_LATENCY_NS] / values[PMEM_LATENCY_IOS] / 1000.0 : -1.0;
}

static void device_values(const struct pmem_device *dev, bool cumulative,
			  uint64_t values[PMEM_NR_COUNTERS])
{
	for (int i = 0; i < PMEM_NR_COUNTERS; i++)
		values[i] = pmem_value(&dev->counter[i], cumulative);
}

/* ---- batch ---- */

void render_batch_columns(FILE *out)
{
	fputs("# time pid comm device read_bytes write_bytes discard_bytes read_ios write_ios"
	      " discard_ios flushes avg_latency_us\n", out);
}

static void batch_counters(FILE *out, const uint64_t *values)
{
	for (size_t i = 0; i < NR_SHOWN; i++)
		fprintf(out, " %s=%" PRIu64, pmem_counter_names[shown_counters[i]],
			values[shown_counters[i]]);
	if (values[PMEM_LATENCY_IOS])
		fprintf(out, " avg_latency_us=%.1f", avg_latency_us(values));
	else
		fputs(" avg_latency_us=-", out);
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

static void batch_crash_event(FILE *out, const struct crash_event *event)
{
	char buf[16];

	fprintf(out, "# crash-event pid=%u comm=", event->tgid);
	batch_write_name(out, event->comm, strnlen(event->comm, sizeof(event->comm)));
	fprintf(out, " signal=%s core_dumped=%u\n", signal_name(event->signal, buf, sizeof(buf)),
		event->core_dumped);
}

void render_batch(FILE *out, const struct frame *frame)
{
	char when[32];
	uint64_t values[PMEM_NR_COUNTERS];

	format_utc(when, sizeof(when), &frame->wall);
	fprintf(out, "# time=%s interval_s=%g", when, frame->interval_s);
	device_values(&frame->devices->aggregate, frame->cumulative, values);
	batch_counters(out, values);
	batch_write_lost(out, frame->lost);
	fputc('\n', out);

	for (size_t d = 0; d < frame->devices->count; d++) {
		const struct pmem_device *dev = &frame->devices->devices[d];

		fputs("# device ", out);
		batch_write_name(out, dev->name, strlen(dev->name));
		device_values(dev, frame->cumulative, values);
		batch_counters(out, values);
		fputc('\n', out);
	}
	if (frame->crash)
		batch_crash_line(out, frame->crash);
	for (size_t i = 0; i < frame->ncrash_events; i++)
		batch_crash_event(out, &frame->crash_events[i]);

	for (size_t r = 0; r < frame->nrows; r++) {
		const struct proc_io *row = frame->rows[r];
		const uint64_t *v = iostats_values(row, frame->cumulative);
		const char *name;
		uint32_t len;

		fprintf(out, "%s %" PRIu32 " ", when, row->key.tgid);
		name = name_of(frame, row->comm_name, &len);
		batch_write_name(out, name, len);
		fputc(' ', out);
		name = name_of(frame, row->device_name, &len);
		batch_write_name(out, name, len);
		for (size_t i = 0; i < NR_SHOWN; i++)
			fprintf(out, " %" PRIu64, v[shown_counters[i]]);
		if (frame->per_process_latency && v[PMEM_LATENCY_IOS])
			fprintf(out, " %.1f\n", avg_latency_us(v));
		else
			fputs(" -\n", out);
	}
}

/* ---- JSON ---- */

static void json_counters(FILE *out, const uint64_t *values)
{
	for (size_t i = 0; i < NR_SHOWN; i++)
		fprintf(out, "%s\"%s\":%" PRIu64, i ? "," : "",
			pmem_counter_names[shown_counters[i]], values[shown_counters[i]]);
}

static void json_crash(FILE *out, const struct crashfree *crash)
{
	fprintf(out, "\"crash\":{\"interval_s\":%" PRIu64 ",\"operational_intervals\":%" PRIu64
		",\"crashfree_intervals\":%" PRIu64 ",\"crashes\":%" PRIu64 ",\"by_process\":{",
		(uint64_t)(crash->interval_ns / 1000000000U), crash->operational_intervals,
		crash->crashfree_intervals, crash->crashes);
	for (size_t i = 0; i < crash->nprocesses; i++) {
		const struct crashfree_process *p = &crash->by_process[i];

		if (i)
			fputc(',', out);
		json_write_string(out, p->comm, strnlen(p->comm, sizeof(p->comm)));
		fprintf(out, ":%" PRIu64, p->crashes);
	}
	fputs("}}", out);
}

void json_write_lost(FILE *out, const uint64_t lost[LOST_NR_REASONS])
{
	fprintf(out, "\"lost\":{\"events\":%" PRIu64 ",\"by_cause\":{", lost_total(lost));
	for (int i = 0; i < LOST_NR_REASONS; i++)
		fprintf(out, "%s\"%s\":%" PRIu64, i ? "," : "", lost_reason_names[i], lost[i]);
	fputs("}}", out);
}

void batch_write_lost(FILE *out, const uint64_t lost[LOST_NR_REASONS])
{
	fprintf(out, " lost=%" PRIu64, lost_total(lost));
	for (int i = 0; i < LOST_NR_REASONS; i++)
		fprintf(out, " lost_%s=%" PRIu64, lost_reason_names[i], lost[i]);
}

void render_summary(FILE *out, bool json, const struct timespec *wall, double duration_s,
		    const uint64_t lost[LOST_NR_REASONS], const uint64_t *trace_received,
		    const struct crashfree *crash)
{
	char when[32];

	format_utc(when, sizeof(when), wall);
	if (json) {
		fprintf(out, "{\"summary\":{\"time\":\"%s\",\"duration_s\":%.3f,", when,
			duration_s);
		if (trace_received)
			fprintf(out, "\"events\":%" PRIu64 ",", *trace_received);
		json_write_lost(out, lost);
		fputc(',', out);
		json_crash(out, crash);
		fputs("}}\n", out);
		return;
	}
	fprintf(out, "# summary time=%s duration_s=%.3f", when, duration_s);
	if (trace_received)
		fprintf(out, " events=%" PRIu64, *trace_received);
	batch_write_lost(out, lost);
	fputc('\n', out);
	batch_crash_line(out, crash);
}

void render_json(FILE *out, const struct frame *frame)
{
	char when[32];

	format_utc(when, sizeof(when), &frame->wall);
	fprintf(out, "{\"time\":\"%s\",\"interval_s\":%g,\"processes\":[", when,
		frame->interval_s);
	for (size_t r = 0; r < frame->nrows; r++) {
		const struct proc_io *row = frame->rows[r];
		const uint64_t *v = iostats_values(row, frame->cumulative);
		const char *name;
		uint32_t len;

		fprintf(out, "%s{\"pid\":%" PRIu32 ",\"comm\":", r ? "," : "", row->key.tgid);
		name = name_of(frame, row->comm_name, &len);
		json_write_string(out, name, len);
		fputs(",\"device\":", out);
		name = name_of(frame, row->device_name, &len);
		json_write_string(out, name, len);
		fputc(',', out);
		json_counters(out, v);
		if (frame->per_process_latency && v[PMEM_LATENCY_IOS])
			fprintf(out, ",\"avg_latency_us\":%.1f}", avg_latency_us(v));
		else
			fputs(",\"avg_latency_us\":null}", out);
	}
	fputs("],", out);
	pmem_write_json(frame->devices, out, frame->cumulative);
	fputc(',', out);
	json_write_lost(out, frame->lost);
	if (frame->crash) {
		fputc(',', out);
		json_crash(out, frame->crash);
	}
	if (frame->ncrash_events) {
		fputs(",\"crash_events\":[", out);
		for (size_t i = 0; i < frame->ncrash_events; i++) {
			const struct crash_event *e = &frame->crash_events[i];
			char buf[16];

			fprintf(out, "%s{\"pid\":%u,\"comm\":", i ? "," : "", e->tgid);
			json_write_string(out, e->comm, strnlen(e->comm, sizeof(e->comm)));
			fprintf(out, ",\"signal\":\"%s\",\"core_dumped\":%s}",
				signal_name(e->signal, buf, sizeof(buf)),
				e->core_dumped ? "true" : "false");
		}
		fputc(']', out);
	}
	fputs("}\n", out);
}

/* ---- top ---- */

/* Lines of a top frame are built in a buffer so they can be clipped to the
 * terminal's width without cutting an escape sequence. */
struct top_writer {
	FILE *out;
	const struct screen *screen;
	unsigned int lines;
};

static bool top_line(struct top_writer *w, const char *line)
{
	size_t len = strlen(line);

	if (w->screen->rows && w->lines >= w->screen->rows)
		return false;
	if (w->screen->cols) {
		/* Cut at a character boundary: a UTF-8 character (the '·' of the
		 * crash line) takes one column however many bytes it has. */
		unsigned int columns = 0;

		for (size_t i = 0; i < len; i++) {
			if (((unsigned char)line[i] & 0xc0) == 0x80)
				continue;
			if (columns++ == w->screen->cols) {
				len = i;
				break;
			}
		}
	}
	fwrite(line, 1, len, w->out);
	fputs(w->screen->clear ? "\033[K\n" : "\n", w->out);
	w->lines++;
	return true;
}

/* A name for the terminal: anything but printable ASCII becomes '?', so a
 * process cannot send control sequences (C0, or C1 such as 0x9b CSI, raw or
 * UTF-8 encoded) to the terminal by naming itself. */
static void top_name(char *buf, size_t size, const char *name, size_t len)
{
	size_t i;

	for (i = 0; i < len && i + 1 < size; i++) {
		unsigned char c = name[i];

		buf[i] = (c < 0x20 || c >= 0x7f) ? '?' : c;
	}
	buf[i] = '\0';
}

static void top_rate(char *buf, size_t size, uint64_t value, const struct frame *frame)
{
	double shown = frame->cumulative ? (double)value : value / frame->interval_s;

	format_bytes(buf, size, shown);
	if (!frame->cumulative)
		strncat(buf, "/s", size - strlen(buf) - 1);
}

static void top_latency(char *buf, size_t size, const uint64_t *values)
{
	if (values[PMEM_LATENCY_IOS])
		snprintf(buf, size, "%.1f", avg_latency_us(values));
	else
		snprintf(buf, size, "-");
}

void render_top(FILE *out, const struct frame *frame, const struct screen *screen)
{
	struct top_writer w = { .out = out, .screen = screen };
	uint64_t values[PMEM_NR_COUNTERS];
	char line[512], clock[16], r[32], wr[32], d[32], lat[32];
	struct tm tm;
	unsigned int shown = 0;

	if (screen->clear)
		fputs("\033[H", out);
	localtime_r(&frame->wall.tv_sec, &tm);
	strftime(clock, sizeof(clock), "%H:%M:%S", &tm);
	device_values(&frame->devices->aggregate, frame->cumulative, values);
	top_rate(r, sizeof(r), values[PMEM_READ_BYTES], frame);
	top_rate(wr, sizeof(wr), values[PMEM_WRITE_BYTES], frame);
	top_rate(d, sizeof(d), values[PMEM_DISCARD_BYTES], frame);
	snprintf(line, sizeof(line), "diskio %s  every %gs%s  read %s  write %s  discard %s  lost %"
		 PRIu64, clock, frame->interval_s, frame->cumulative ? " (totals)" : "", r, wr, d,
		 lost_total(frame->lost));
	top_line(&w, line);

	if (frame->crash) {
		const struct crashfree *crash = frame->crash;
		char every[16];
		int n;

		format_duration(every, sizeof(every), (uint64_t)(crash->interval_ns / 1000000000U));
		n = snprintf(line, sizeof(line), "crash-free %" PRIu64 "/%" PRIu64
			     " intervals of %s \u00b7 crashes %" PRIu64, crash->crashfree_intervals,
			     crash->operational_intervals, every, crash->crashes);
		for (size_t i = 0; i < crash->nprocesses && n < (int)sizeof(line) - 40; i++) {
			char comm[CRASHFREE_COMM_LEN];

			top_name(comm, sizeof(comm), crash->by_process[i].comm,
				 strnlen(crash->by_process[i].comm, CRASHFREE_COMM_LEN));
			n += snprintf(line + n, sizeof(line) - n, "%s%s %" PRIu64, i ? ", " : " (",
				      comm, crash->by_process[i].crashes);
		}
		if (crash->nprocesses && n < (int)sizeof(line) - 1)
			strcat(line, ")");
		top_line(&w, line);
	}

	snprintf(line, sizeof(line), "%-12s %12s %12s %12s %8s %8s %8s %10s", "DEVICE",
		 frame->cumulative ? "READ" : "READ/s", frame->cumulative ? "WRITE" : "WRITE/s",
		 frame->cumulative ? "DISCARD" : "DISCARD/s", "R_IO", "W_IO", "D_IO", "AVG_LAT_us");
	top_line(&w, line);
	for (size_t i = 0; i < frame->devices->count; i++) {
		const struct pmem_device *dev = &frame->devices->devices[i];
		char name[32];

		device_values(dev, frame->cumulative, values);
		top_name(name, sizeof(name), dev->name, strlen(dev->name));
		top_rate(r, sizeof(r), values[PMEM_READ_BYTES], frame);
		top_rate(wr, sizeof(wr), values[PMEM_WRITE_BYTES], frame);
		top_rate(d, sizeof(d), values[PMEM_DISCARD_BYTES], frame);
		top_latency(lat, sizeof(lat), values);
		snprintf(line, sizeof(line), "%-12s %12s %12s %12s %8" PRIu64 " %8" PRIu64 " %8"
			 PRIu64 " %10s", name, r, wr, d, values[PMEM_READ_IOS],
			 values[PMEM_WRITE_IOS], values[PMEM_DISCARD_IOS], lat);
		top_line(&w, line);
	}
	top_line(&w, "");
	snprintf(line, sizeof(line), "%8s %-16s %-10s %12s %12s %12s %7s %7s %7s %10s", "PID",
		 "COMM", "DEVICE", frame->cumulative ? "READ" : "READ/s",
		 frame->cumulative ? "WRITE" : "WRITE/s", frame->cumulative ? "DISCARD" : "DISCARD/s",
		 "R_IO", "W_IO", "D_IO", "LAT_us");
	top_line(&w, line);
	for (size_t i = 0; i < frame->nrows; i++) {
		const struct proc_io *row = frame->rows[i];
		const uint64_t *v = iostats_values(row, frame->cumulative);
		char comm[TASK_COMM_LEN], devname[32];
		const char *name;
		uint32_t len;

		if (screen->max_rows && shown >= screen->max_rows)
			break;
		name = name_of(frame, row->comm_name, &len);
		top_name(comm, sizeof(comm), name, len);
		name = name_of(frame, row->device_name, &len);
		top_name(devname, sizeof(devname), name, len);
		top_rate(r, sizeof(r), v[PMEM_READ_BYTES], frame);
		top_rate(wr, sizeof(wr), v[PMEM_WRITE_BYTES], frame);
		top_rate(d, sizeof(d), v[PMEM_DISCARD_BYTES], frame);
		if (frame->per_process_latency)
			top_latency(lat, sizeof(lat), v);
		else
			snprintf(lat, sizeof(lat), "-");
		snprintf(line, sizeof(line), "%8" PRIu32 " %-16s %-10s %12s %12s %12s %7" PRIu64
			 " %7" PRIu64 " %7" PRIu64 " %10s", row->key.tgid, comm, devname, r, wr, d,
			 v[PMEM_READ_IOS], v[PMEM_WRITE_IOS], v[PMEM_DISCARD_IOS], lat);
		if (!top_line(&w, line))
			break;
		shown++;
	}
	if (screen->clear)
		fputs("\033[J", out);	/* erase what the previous frame left below */
	else
		fputc('\n', out);
}
