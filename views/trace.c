// SPDX-License-Identifier: GPL-2.0
#include <inttypes.h>
#include <string.h>
#include "view.h"
#include "trace.h"

void format_rwbs(char buf[RWBS_LEN], uint32_t op, uint32_t flags)
{
	int i = 0;

	if (flags & IO_FLAG_PREFLUSH)
		buf[i++] = 'F';
	switch (op & DISKIO_REQ_OP_MASK) {
	case DISKIO_REQ_OP_WRITE:
		buf[i++] = 'W';
		break;
	case DISKIO_REQ_OP_DISCARD:
		buf[i++] = 'D';
		break;
	case DISKIO_REQ_OP_SECURE_ERASE:
		buf[i++] = 'D';
		buf[i++] = 'E';
		break;
	case DISKIO_REQ_OP_FLUSH:
		buf[i++] = 'F';
		break;
	case DISKIO_REQ_OP_READ:
		buf[i++] = 'R';
		break;
	default:
		buf[i++] = 'N';
	}
	if (flags & IO_FLAG_FUA)
		buf[i++] = 'F';
	if (flags & IO_FLAG_RAHEAD)
		buf[i++] = 'A';
	if (flags & IO_FLAG_SYNC)
		buf[i++] = 'S';
	if (flags & IO_FLAG_META)
		buf[i++] = 'M';
	buf[i] = '\0';
}

static void trace_batch_start(struct view *v)
{
	fputs("# time_s pid comm device op sector bytes latency_us\n", v->out);
}

static void trace_batch_io(struct view *v, const struct block_io_event *e, const char *device,
			   const struct event_time *when)
{
	char rwbs[RWBS_LEN];

	format_rwbs(rwbs, e->op, e->flags);
	fprintf(v->out, "%.6f %u ", when->since_start_s, e->tgid);
	batch_write_name(v->out, e->comm, strnlen(e->comm, sizeof(e->comm)));
	fputc(' ', v->out);
	batch_write_name(v->out, device, strlen(device));
	fprintf(v->out, " %s %" PRIu64 " %u %.1f\n", rwbs, (uint64_t)e->sector, e->bytes,
		e->latency_ns / 1000.0);
}

static void trace_batch_crash(struct view *v, const struct crash_event *e,
			      const struct event_time *when)
{
	fprintf(v->out, "# crash-event time_s=%.6f ", when->since_start_s);
	batch_write_crash_event(v->out, e);
}

static void trace_batch_interval_end(struct view *v, const struct frame *f)
{
	char when[32];

	format_utc(when, sizeof(when), &f->wall);
	fprintf(v->out, "# interval time=%s interval_s=%g events=%" PRIu64, when, f->interval_s,
		f->io_events);
	batch_write_lost(v->out, f->lost);
	fprintf(v->out, " partial=%d\n", f->partial);
}

static void trace_json_io(struct view *v, const struct block_io_event *e, const char *device,
			  const struct event_time *when)
{
	struct jsonw *w = &v->json;
	char rwbs[RWBS_LEN];

	format_rwbs(rwbs, e->op, e->flags);
	jsonw_object(w, NULL);
	json_write_record_head(w, "event", &when->wall, NULL);
	jsonw_double(w, "time_s", "%.6f", when->since_start_s);
	jsonw_u64(w, "pid", e->tgid);
	jsonw_string(w, "comm", e->comm, strnlen(e->comm, sizeof(e->comm)));
	jsonw_string(w, "device", device, strlen(device));
	jsonw_string(w, "op", rwbs, strlen(rwbs));
	jsonw_u64(w, "sector", e->sector);
	jsonw_u64(w, "bytes", e->bytes);
	jsonw_double(w, "latency_us", "%.1f", e->latency_ns / 1000.0);
	jsonw_object_end(w);
	jsonw_end_record(w);
}

/* A crash as a record of its own, flat: the members of a "crash_events"
 * element after the record's head. */
static void trace_json_crash(struct view *v, const struct crash_event *e,
			     const struct event_time *when)
{
	struct jsonw *w = &v->json;
	char buf[16];
	const char *sig = signal_name(e->signal, buf, sizeof(buf));

	jsonw_object(w, NULL);
	json_write_record_head(w, "crash", &when->wall, NULL);
	jsonw_double(w, "time_s", "%.6f", when->since_start_s);
	jsonw_u64(w, "pid", e->tgid);
	jsonw_string(w, "comm", e->comm, strnlen(e->comm, sizeof(e->comm)));
	jsonw_string(w, "signal", sig, strlen(sig));
	jsonw_bool(w, "core_dumped", e->core_dumped);
	jsonw_object_end(w);
	jsonw_end_record(w);
}

static void trace_json_interval_end(struct view *v, const struct frame *f)
{
	struct jsonw *w = &v->json;

	jsonw_object(w, NULL);
	json_write_record_head(w, "interval", &f->wall, v->host);
	jsonw_double(w, "interval_s", "%g", f->interval_s);
	jsonw_bool(w, "partial", f->partial);
	jsonw_u64(w, "events", f->io_events);
	json_write_lost(w, f->lost);
	jsonw_object_end(w);
	jsonw_end_record(w);
}

/* Trace mode shows no rows or devices: an interval is one summary line. */
void view_trace_batch(struct view *v, FILE *out)
{
	*v = (struct view){
		.start = trace_batch_start, .interval_end = trace_batch_interval_end,
		.io_event = trace_batch_io, .crash_event = trace_batch_crash,
		.summary = view_batch_summary, .out = out
	};
}

void view_trace_json(struct view *v, FILE *out)
{
	*v = (struct view){
		.interval_end = trace_json_interval_end, .io_event = trace_json_io,
		.crash_event = trace_json_crash, .summary = view_json_summary, .out = out
	};
	jsonw_init(&v->json, out);
	view_init_host(v);
}
