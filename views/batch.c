// SPDX-License-Identifier: GPL-2.0
/* The batch view: stable lines for awk, one per device and row (README.md,
 * "Output"; doc/outputs.md lists every field). */
#include <inttypes.h>
#include <string.h>
#include "format.h"
#include "ioprio.h"
#include "view.h"

/* "52.1" (one rounding rule for every average latency), or "-". */
static void format_latency(char *buf, size_t size, const uint64_t *values)
{
	uint64_t tenths;

	if (pmem_avg_latency_tenths_us(values, &tenths))
		snprintf(buf, size, "%" PRIu64 ".%u", tenths / 10, (unsigned int)(tenths % 10));
	else
		snprintf(buf, size, "-");
}

static void batch_start(struct view *v)
{
	fputs("# time pid comm device read_bytes write_bytes discard_bytes read_ios write_ios"
	      " discard_ios flushes avg_latency_us dirtied_bytes writeback_bytes cgroup for", v->out);
	/* issue 33: who waited (batch_waits()), who the process is (batch_row_owner()) */
	fputs(" iowait_pct swapin_pct uid user ioprio cmdline", v->out);
	/* issue 45: the failed I/Os (batch_errors()) */
	fputs(" errors error_kinds", v->out);
	/* issue 45: the row's cgroup's I/O pressure (batch_row_pressure()) */
	fputs(" cgroup_io_pressure_some_pct cgroup_io_pressure_full_pct", v->out);
	fputc('\n', v->out);
}

/* Fields 17 and 18, after `for`: IO> and SWAPIN, percent of the interval
 * with two decimals, "-" where not known. */
static void batch_waits(FILE *out, const struct frame *f, const struct proc_io *row)
{
	for (int swapin = 0; swapin <= 1; swapin++) {
		double pct;

		if (frame_wait_pct(f, row, f->cumulative, swapin, &pct))
			fprintf(out, " %.2f", pct);
		else
			fputs(" -", out);
	}
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
	fprintf(v->out, " rows_cut=%u", v->rows_cut);
	/* --stacks: callers of frameless functions found by .eh_frame (the run's) */
	if (v->stacks && v->stacks->frames_recovered)
		fprintf(v->out, " stack_frames_recovered=%" PRIu64,
			v->stacks->frames_recovered(v->stacks->ctx));
	/* --stacks: user frames left without a name, each with its why (the run's) */
	if (v->stacks && v->stacks->frames_unknown)
		fprintf(v->out, " stack_frames_unknown=%" PRIu64,
			v->stacks->frames_unknown(v->stacks->ctx));
	/* issue 45: /proc/pressure/io, percent of the interval */
	if (f->pressure_known)
		fprintf(v->out, " io_pressure_some_pct=%.2f io_pressure_full_pct=%.2f",
			f->pressure_some_pct, f->pressure_full_pct);
	else
		fputs(" io_pressure_some_pct=- io_pressure_full_pct=-", v->out);
	fprintf(v->out, " partial=%d\n", f->partial);
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

/* " r/s=1.00 ... util=12.50": iostat -x's figures under iostat -o JSON's
 * names, "-" each where the kernel lists no such device. */
static void batch_iostat(FILE *out, const struct pmem_device *dev, bool cumulative)
{
	double values[IOSTAT_X_NR];

	if (dev->has_iostat)
		iostat_x_values(&dev->iostat[cumulative], values);
	for (int i = 0; i < IOSTAT_X_NR; i++) {
		if (dev->has_iostat)
			fprintf(out, " %s=%.2f", iostat_x_names[i], values[i]);
		else
			fprintf(out, " %s=-", iostat_x_names[i]);
	}
}

/* Issue 45: the failed I/Os, " N KINDS" (a row's fields 23 and 24) or
 * " errors=N error_kinds=KINDS" (a device line's); KINDS: "ENOSPC:3,EIO:1",
 * "-" for none. */
static void batch_errors(FILE *out, const uint64_t values[PMEM_NR_COUNTERS], bool keyed)
{
	const char *sep = "";

	fprintf(out, keyed ? " errors=%" PRIu64 " error_kinds=" : " %" PRIu64 " ",
		pmem_errors(values));
	for (int k = 0; k < IO_ERROR_KINDS; k++) {
		if (!values[PMEM_ERRORS + k])
			continue;
		fprintf(out, "%s%s:%" PRIu64, sep, io_error_names[k], values[PMEM_ERRORS + k]);
		sep = ",";
	}
	if (!*sep)
		fputc('-', out);
}

static void batch_device(struct view *v, const struct frame *f, const struct pmem_device *dev)
{
	uint64_t values[PMEM_NR_COUNTERS];

	fputs("# device ", v->out);
	batch_write_name(v->out, dev->name, strlen(dev->name));
	pmem_values(dev, f->cumulative, values);
	batch_counters(v->out, values);
	batch_latency_percentiles(v->out, dev, f->cumulative);
	batch_iostat(v->out, dev, f->cumulative);
	fprintf(v->out, " latency_sample=%" PRIu32 " latency_samples_dropped=%" PRIu64,
		pmem_latency_sample(dev), pmem_value(&dev->latency_samples_dropped, f->cumulative));
	fputs(" below=", v->out);
	if (dev->layers.below[0])
		fputs(dev->layers.below, v->out);	/* kernel names: no space, no '/' */
	else
		fputc('-', v->out);
	fputs(" dm_name=", v->out);
	if (dev->layers.dm_name[0])
		batch_write_name(v->out, dev->layers.dm_name, strlen(dev->layers.dm_name));
	else
		fputc('-', v->out);
	batch_errors(v->out, values, true);
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

/*
 * issue 33: " uid user ioprio cmdline", whose the row is as the kernel
 * noted it when it made the row: the uid (a number), its name as `ps -o
 * user` shows it, the I/O priority as iotop does ("be/4") and the whole
 * command line, the names escaped as every name is; "-" each for a row of
 * no process (--by cgroup, what a stacked device sent below).
 */
static void batch_row_owner(struct view *v, const struct frame *f, const struct proc_io *row)
{
	char prio[IOPRIO_TEXT_SIZE];
	const char *name;
	uint32_t len;

	if (!(row->owner.flags & ROW_OWNER_KNOWN)) {
		fputs(" - - - -", v->out);
		return;
	}
	fprintf(v->out, " %" PRIu32 " ", row->owner.uid);
	if (row->user_name) {
		name = res_name(f->names, row->user_name, &len);
		batch_write_name(v->out, name, len);
	} else {
		fputc('-', v->out);
	}
	fprintf(v->out, " %s ", row_ioprio(row, prio));
	if (row->cmdline)
		batch_write_name(v->out, row->cmdline, strlen(row->cmdline));
	else
		fputc('-', v->out);
}

/* Fields 25 and 26, after error_kinds (issue 45): the row's cgroup's
 * io.pressure, some and full, percent of the interval (-a: of the run)
 * with two decimals; "-" each where not known. */
static void batch_row_pressure(FILE *out, const struct proc_io *row)
{
	if (row->cgroup_pressure.known)
		fprintf(out, " %.2f %.2f", row->cgroup_pressure.some_pct,
			row->cgroup_pressure.full_pct);
	else
		fputs(" - -", out);
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
	fputc(' ', v->out);
	if (row->serves_name) {
		name = res_name(f->names, row->serves_name, &len);
		batch_write_name(v->out, name, len);
	} else {
		fputc('-', v->out);
	}
	/* issue 33: after the last field of before (for) */
	batch_waits(v->out, f, row);
	batch_row_owner(v, f, row);
	batch_errors(v->out, values, false);
	batch_row_pressure(v->out, row);
	fputc('\n', v->out);
	if (v->stacks)
		batch_row_stacks(v, f, row);
}

/* --files (issue 35): "# file pid=… comm=… device=… dev=MAJ:MIN ino=…
 * path=… deleted=0|1 file_count=… read_bytes=… write_bytes=… read_ios=…
 * write_ios=…" for each line of the frame's files, after the rows; dev and
 * ino "-" for [metadata], [unknown] and [other files]. */
static void batch_files(struct view *v, const struct frame *f)
{
	for (size_t i = 0; i < f->nfiles; i++) {
		const struct file_row *r = &f->files[i];
		const char *name;
		uint32_t len;

		fprintf(v->out, "# file pid=%" PRIu32 " comm=", r->tgid);
		name = res_name(f->names, r->comm_name, &len);
		batch_write_name(v->out, name, len);
		fputs(" device=", v->out);
		name = res_name(f->names, r->device_name, &len);
		batch_write_name(v->out, name, len);
		if (r->key.kind == FILE_KIND_FILE)
			fprintf(v->out, " dev=%u:%u ino=%" PRIu64, r->key.fs_dev >> MINORBITS,
				r->key.fs_dev & MINORMASK, (uint64_t)r->key.ino);
		else
			fputs(" dev=- ino=-", v->out);
		fputs(" path=", v->out);
		batch_write_name(v->out, r->path, strlen(r->path));
		fprintf(v->out, " deleted=%d file_count=%" PRIu32 " read_bytes=%" PRIu64
			" write_bytes=%" PRIu64 " read_ios=%" PRIu64 " write_ios=%" PRIu64 "\n",
			r->unlinked, r->nfiles, r->bytes[IO_READ], r->bytes[IO_WRITE],
			r->ios[IO_READ], r->ios[IO_WRITE]);
	}
}

static void batch_interval_end(struct view *v, const struct frame *f)
{
	batch_begin_rows(v, f);
	batch_files(v, f);
}

void view_batch_summary(struct view *v, const struct summary *s)
{
	char when[32];

	format_utc(when, sizeof(when), &s->wall);
	fprintf(v->out, "# summary time=%s duration_s=%.3f", when, s->duration_s);
	if (s->has_io_events)
		fprintf(v->out, " events=%" PRIu64, s->io_events);
	batch_write_lost(v->out, s->lost);
	/* The run's totals, as JSON's "total": appended, so that no field moves. */
	if (s->devices) {
		uint64_t values[PMEM_NR_COUNTERS];

		pmem_values(&s->devices->aggregate, true, values);
		batch_counters(v->out, values);
	}
	if (s->recording)
		fprintf(v->out, " record_gaps=%" PRIu64, s->record_gaps);
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
