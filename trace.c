// SPDX-License-Identifier: GPL-2.0
#include <inttypes.h>
#include <string.h>
#include "pmem_metrics.h"
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

void trace_print_columns(FILE *out, bool json)
{
	if (!json)
		fputs("# time_s pid comm device op sector bytes latency_us\n", out);
}

void trace_print_io(FILE *out, bool json, const struct block_io_event *event, const char *device,
		    double time_s)
{
	char rwbs[RWBS_LEN];
	size_t comm_len = strnlen(event->comm, sizeof(event->comm));

	format_rwbs(rwbs, event->op, event->flags);
	if (json) {
		fprintf(out, "{\"time\":%.6f,\"pid\":%u,\"comm\":", time_s, event->tgid);
		json_write_string(out, event->comm, comm_len);
		fputs(",\"device\":", out);
		json_write_string(out, device, strlen(device));
		fprintf(out, ",\"op\":\"%s\",\"sector\":%" PRIu64 ",\"bytes\":%u,\"latency_us\":%.1f}\n",
			rwbs, (uint64_t)event->sector, event->bytes, event->latency_ns / 1000.0);
		return;
	}
	fprintf(out, "%.6f %u ", time_s, event->tgid);
	batch_write_name(out, event->comm, comm_len);
	fputc(' ', out);
	batch_write_name(out, device, strlen(device));
	fprintf(out, " %s %" PRIu64 " %u %.1f\n", rwbs, (uint64_t)event->sector, event->bytes,
		event->latency_ns / 1000.0);
}

void trace_print_crash(FILE *out, bool json, const struct crash_event *event, double time_s)
{
	char buf[16];
	const char *sig = signal_name(event->signal, buf, sizeof(buf));
	size_t comm_len = strnlen(event->comm, sizeof(event->comm));

	if (json) {
		fprintf(out, "{\"time\":%.6f,\"crash\":{\"pid\":%u,\"comm\":", time_s, event->tgid);
		json_write_string(out, event->comm, comm_len);
		fprintf(out, ",\"signal\":\"%s\",\"core_dumped\":%s}}\n", sig,
			event->core_dumped ? "true" : "false");
		return;
	}
	fprintf(out, "# crash-event time_s=%.6f pid=%u comm=", time_s, event->tgid);
	batch_write_name(out, event->comm, comm_len);
	fprintf(out, " signal=%s core_dumped=%u\n", sig, event->core_dumped);
}

void trace_print_interval(FILE *out, bool json, const struct timespec *wall, double interval_s,
			  uint64_t received, const uint64_t lost[LOST_NR_REASONS])
{
	char when[32];

	format_utc(when, sizeof(when), wall);
	if (json) {
		fprintf(out, "{\"time\":\"%s\",\"interval_s\":%g,\"events\":%" PRIu64 ",", when,
			interval_s, received);
		json_write_lost(out, lost);
		fputs("}\n", out);
		return;
	}
	fprintf(out, "# interval time=%s interval_s=%g events=%" PRIu64, when, interval_s, received);
	batch_write_lost(out, lost);
	fputc('\n', out);
}
