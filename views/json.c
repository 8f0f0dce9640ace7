// SPDX-License-Identifier: GPL-2.0
/* The JSON view: one NDJSON record per interval and a summary (doc/outputs.md
 * lists every key). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "format.h"
#include "ioprio.h"
#include "view.h"

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

/* ---- IO> and SWAPIN (iowait.h) ---- */

/* "delayacct", "sched": how IO> was measured; NULL: it was not. */
static const char *waits_source_name(enum waits_source source)
{
	switch (source) {
	case WAITS_DELAYACCT:
		return "delayacct";
	case WAITS_SCHED:
		return "sched";
	case WAITS_NONE:
		break;
	}
	return NULL;
}

/* "iowait_source": "delayacct" or "sched", null when IO> is not measured. */
static void json_waits_source(struct jsonw *w, const struct frame *f)
{
	const char *source = waits_source_name(f->waits_source);

	if (source)
		jsonw_string(w, "iowait_source", source, strlen(source));
	else
		jsonw_null(w, "iowait_source");
}

/* IO> and SWAPIN: "iowait_pct", "swapin_pct", percent of the interval with
 * two decimals, or null where not known. */
static void json_row_waits(struct jsonw *w, const struct frame *f, const struct proc_io *row)
{
	static const char *const keys[] = { "iowait_pct", "swapin_pct" };

	for (int swapin = 0; swapin <= 1; swapin++) {
		double pct;

		if (frame_wait_pct(f, row, f->cumulative, swapin, &pct))
			jsonw_double(w, keys[swapin], "%.2f", pct);
		else
			jsonw_null(w, keys[swapin]);
	}
}

void json_write_pressure(struct jsonw *w, const char *key, const struct pressure_share *p)
{
	if (!p->known) {
		jsonw_null(w, key);
		return;
	}
	jsonw_object(w, key);
	jsonw_double(w, "some", "%.2f", p->some_pct);
	jsonw_double(w, "full", "%.2f", p->full_pct);
	jsonw_object_end(w);
}

/* issue 45: "pressure", /proc/pressure/io in percent of the interval (-a:
 * of the run); null without PSI. */
static void json_pressure(struct jsonw *w, const struct frame *f)
{
	const struct pressure_share p = { f->pressure_known, f->pressure_some_pct,
					  f->pressure_full_pct };

	json_write_pressure(w, "pressure", &p);
}

static void json_begin(struct view *v, const struct frame *f)
{
	v->rows_shown = 0;
	v->rows_cut = f->nrows - frame_rows_shown(f, v->screen.max_rows);
	jsonw_object(&v->json, NULL);
	json_write_record_head(&v->json, "interval", &f->wall, v->host);
	jsonw_double(&v->json, "interval_s", "%g", f->interval_s);
	jsonw_bool(&v->json, "partial", f->partial);
	json_waits_source(&v->json, f);
	json_pressure(&v->json, f);
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

/* issue 33: "uid", "user", "ioprio" and "cmdline" (batch_row_owner()'s
 * fields), null each for a row of no process. */
static void json_row_owner(struct jsonw *w, const struct frame *f, const struct proc_io *row)
{
	char prio[IOPRIO_TEXT_SIZE];
	const char *text;
	uint32_t len;

	if (!(row->owner.flags & ROW_OWNER_KNOWN)) {
		jsonw_null(w, "uid");
		jsonw_null(w, "user");
		jsonw_null(w, "ioprio");
		jsonw_null(w, "cmdline");
		return;
	}
	jsonw_u64(w, "uid", row->owner.uid);
	if (row->user_name) {
		text = res_name(f->names, row->user_name, &len);
		jsonw_string(w, "user", text, len);
	} else {
		jsonw_null(w, "user");
	}
	text = row_ioprio(row, prio);
	jsonw_string(w, "ioprio", text, strlen(text));
	if (row->cmdline)
		jsonw_string(w, "cmdline", row->cmdline, strlen(row->cmdline));
	else
		jsonw_null(w, "cmdline");
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
		uint32_t pid = f->per_thread ? row->tgid : row->key.tgid;

		if (pid || !f->per_thread)
			jsonw_u64(w, "pid", pid);
		else
			jsonw_null(w, "pid");
		name = res_name(f->names, row->comm_name, &len);
		jsonw_string(w, "comm", name, len);
	}
	if (iostats_has_device(row)) {
		name = res_name(f->names, row->device_name, &len);
		jsonw_string(w, "device", name, len);
	} else {
		jsonw_null(w, "device");	/* a process that only waited */
	}
	for (size_t i = 0; i < NR_SHOWN; i++)
		jsonw_u64(w, pmem_counter_names[shown_counters[i]], values[shown_counters[i]]);
	if (row_latency_tenths(f, values, &tenths))
		jsonw_tenths(w, "avg_latency_us", tenths);
	else
		jsonw_null(w, "avg_latency_us");
	jsonw_u64(w, "dirtied_bytes", values[PMEM_DIRTIED_BYTES]);
	jsonw_u64(w, "writeback_bytes", values[PMEM_WRITEBACK_BYTES]);
	pmem_write_errors_json(w, values);
	if (row->cgroup_name) {
		name = res_name(f->names, row->cgroup_name, &len);
		jsonw_string(w, "cgroup", name, len);
	} else {
		jsonw_null(w, "cgroup");
	}
	/* issue 45: its cgroup's io.pressure over the interval (-a: the run);
	 * null when not known (a group first seen, no file, a replay's sum) */
	json_write_pressure(w, "cgroup_pressure", &row->cgroup_pressure);
	if (row->serves_name) {
		name = res_name(f->names, row->serves_name, &len);
		jsonw_string(w, "for", name, len);
	} else {
		jsonw_null(w, "for");
	}
	/* -t: the thread's id; pid is its process's */
	if (f->per_thread && !f->by_cgroup)
		jsonw_u64(w, "tid", row->key.tgid);
	else
		jsonw_null(w, "tid");
	json_row_latency(w, f, row);
	json_row_waits(w, f, row);
	json_row_owner(w, f, row);	/* issue 33 */
	if (v->stacks)
		json_row_stacks(v, f, row);
	jsonw_object_end(w);
}

/* --files (issue 35): a line of the frame's files. */
static void json_file(struct jsonw *w, const struct frame *f, const struct file_row *r)
{
	static const char deleted[] = " (deleted)";
	const char *name;
	char dev[32];
	uint32_t len;

	jsonw_object(w, NULL);
	jsonw_u64(w, "pid", r->tgid);
	name = res_name(f->names, r->comm_name, &len);
	jsonw_string(w, "comm", name, len);
	name = res_name(f->names, r->device_name, &len);
	jsonw_string(w, "device", name, len);
	if (r->key.kind == FILE_KIND_FILE) {
		snprintf(dev, sizeof(dev), "%u:%u", r->key.fs_dev >> MINORBITS,
			 r->key.fs_dev & MINORMASK);
		jsonw_string(w, "dev", dev, strlen(dev));
		jsonw_u64(w, "ino", r->key.ino);
	} else {
		jsonw_null(w, "dev");
		jsonw_null(w, "ino");
	}
	if (r->unlinked) {
		size_t n = strlen(r->path);
		char *text = malloc(n + sizeof(deleted));

		if (text) {
			memcpy(text, r->path, n);
			memcpy(text + n, deleted, sizeof(deleted));
			jsonw_string(w, "path", text, n + sizeof(deleted) - 1);
			free(text);
		} else {
			jsonw_string(w, "path", r->path, n);
		}
	} else {
		jsonw_string(w, "path", r->path, strlen(r->path));
	}
	jsonw_bool(w, "deleted", r->unlinked);
	jsonw_u64(w, "file_count", r->nfiles);
	jsonw_u64(w, "read_bytes", r->bytes[IO_READ]);
	jsonw_u64(w, "write_bytes", r->bytes[IO_WRITE]);
	jsonw_u64(w, "read_ios", r->ios[IO_READ]);
	jsonw_u64(w, "write_ios", r->ios[IO_WRITE]);
	jsonw_object_end(w);
}

static void json_interval_end(struct view *v, const struct frame *f)
{
	struct jsonw *w = &v->json;

	jsonw_array_end(w);
	jsonw_u64(w, "rows_cut", v->rows_cut);
	if (f->files_on) {
		jsonw_array(w, "files");
		for (size_t i = 0; i < f->nfiles; i++)
			json_file(w, f, &f->files[i]);
		jsonw_array_end(w);
	}
	if (v->stacks && v->stacks->frames_recovered)
		jsonw_u64(w, "stack_frames_recovered", v->stacks->frames_recovered(v->stacks->ctx));
	if (v->stacks && v->stacks->frames_unknown)
		jsonw_u64(w, "stack_frames_unknown", v->stacks->frames_unknown(v->stacks->ctx));
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

void view_json_start(struct view *v)
{
	struct jsonw *w = &v->json;
	struct timespec now;

	clock_gettime(CLOCK_REALTIME, &now);
	jsonw_object(w, NULL);
	json_write_record_head(w, "start", &now, v->host);
	jsonw_double(w, "interval_s", "%g", v->interval_s);
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
	if (s->recording)
		jsonw_u64(w, "record_gaps", s->record_gaps);
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
