// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of trace mode (trace.c: rwbs letters, one line per I/O, crash
 * and interval records) and of io_classify() from abi.h.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

#include <linux/types.h>
#include "abi.h"
#include "trace.h"
#include "view.h"

#include "json_check.h"

/* ---- the trace views under test, one call per record ---- */

static void trace_view(struct view *v, FILE *out, bool json)
{
	if (json)
		view_trace_json(v, out);
	else
		view_trace_batch(v, out);
}

static void trace_print_columns(FILE *out, bool json)
{
	struct view v;

	trace_view(&v, out, json);
	if (v.start)
		v.start(&v);
}

/* The wall-clock time of every event below, 2026-11-22T08:00:01.987654321Z:
 * shown truncated to milliseconds, never rounded up to the next second. */
#define EVENT_WALL_SEC		1795334401
#define EVENT_WALL_NSEC		987654321
#define EVENT_WALL_TEXT		"2026-11-22T08:00:01.987Z"
#define EVENT_WALL_TS		"1795334401.987"

static void trace_print_io(FILE *out, bool json, const struct block_io_event *event,
			   const char *device, double time_s)
{
	struct event_time when = { time_s, { EVENT_WALL_SEC, EVENT_WALL_NSEC } };
	struct view v;

	trace_view(&v, out, json);
	v.io_event(&v, event, device, &when);
}

static void trace_print_crash(FILE *out, bool json, const struct crash_event *event, double time_s)
{
	struct event_time when = { time_s, { EVENT_WALL_SEC, EVENT_WALL_NSEC } };
	struct view v;

	trace_view(&v, out, json);
	v.crash_event(&v, event, &when);
}

/* "type", "time" and "ts" of every record; "schema" and "host" where asked. */
static void expect_record_head(const struct jnode *root, const char *type, const char *time,
			       const char *ts, bool with_host)
{
	struct utsname uts;
	const struct jnode *n;

	cr_assert_eq(root->type, J_OBJ);
	cr_assert(jstr_is(jmust(root, "type", J_STR), type, strlen(type)), "type is not %s", type);
	cr_assert(jstr_is(jmust(root, "time", J_STR), time, strlen(time)), "time: %s",
		  jget(root, "time")->str);
	n = jmust(root, "ts", J_NUM);
	cr_assert_str_eq(n->str, ts);
	if (!with_host) {
		cr_assert_null(jget(root, "schema"));
		cr_assert_null(jget(root, "host"));
		return;
	}
	cr_assert_eq(jkey_u64(root, "schema"), 1);
	cr_assert_eq(uname(&uts), 0);
	cr_assert(jstr_is(jmust(root, "host", J_STR), uts.nodename, strlen(uts.nodename)));
}

static void trace_print_interval(FILE *out, bool json, const struct timespec *wall,
				 double interval_s, uint64_t received,
				 const uint64_t lost[LOST_NR_CAUSES])
{
	struct frame frame = { .wall = *wall, .interval_s = interval_s, .io_events = received };
	struct view v;

	memcpy(frame.lost, lost, sizeof(frame.lost));
	trace_view(&v, out, json);
	v.interval_end(&v, &frame);
}

/* ---- io_classify() ---- */

/* enum req_op of the kernel (include/linux/blk_types.h), spelled out here
 * so that the test does not share constants with the code under test. */
#define OP_READ			0
#define OP_WRITE		1
#define OP_FLUSH		2
#define OP_DISCARD		3
#define OP_SECURE_ERASE		5
#define OP_ZONE_APPEND		7
#define OP_WRITE_ZEROES		9
#define OP_ZONE_OPEN		10
#define OP_ZONE_RESET		15
#define OP_DRV_IN		34
#define OP_DRV_OUT		35
#define REQ_SYNC_BIT		(1U << 11)

Test(io_classify, operations_as_the_kernel_accounts_them)
{
	cr_assert_eq(io_classify(OP_READ), IO_READ);
	cr_assert_eq(io_classify(OP_WRITE), IO_WRITE);
	cr_assert_eq(io_classify(OP_FLUSH), IO_FLUSH);
	cr_assert_eq(io_classify(OP_DISCARD), IO_DISCARD);
	cr_assert_eq(io_classify(OP_SECURE_ERASE), IO_WRITE,
		     "op_stat_group() accounts a secure erase as a write");
	cr_assert_eq(io_classify(OP_WRITE_ZEROES), IO_WRITE);
	cr_assert_eq(io_classify(OP_ZONE_APPEND), IO_WRITE);
	cr_assert_eq(io_classify(OP_DRV_IN), IO_IGNORED);
	cr_assert_eq(io_classify(OP_DRV_OUT), IO_IGNORED);
}

Test(io_classify, a_discard_is_never_a_write)
{
	cr_assert_neq(io_classify(OP_DISCARD), IO_WRITE);
	cr_assert_neq(io_classify(OP_DISCARD | REQ_SYNC_BIT), IO_WRITE);
}

Test(io_classify, flag_bits_do_not_change_the_class)
{
	static const uint32_t ops[] = {
		OP_READ, OP_WRITE, OP_FLUSH, OP_DISCARD, OP_SECURE_ERASE, OP_ZONE_APPEND,
		OP_WRITE_ZEROES, OP_DRV_IN, OP_DRV_OUT,
	};

	for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
		enum io_class plain = io_classify(ops[i]);

		cr_assert_eq(io_classify(ops[i] | REQ_SYNC_BIT), plain, "op %u", ops[i]);
		for (int bit = 8; bit < 32; bit++)
			cr_assert_eq(io_classify(ops[i] | (1U << bit)), plain, "op %u bit %d",
				     ops[i], bit);
	}
}

Test(io_classify, every_op_lands_in_a_class)
{
	for (uint32_t op = 0; op < 256; op++) {
		enum io_class c = io_classify(op);

		cr_assert(c == IO_READ || c == IO_WRITE || c == IO_DISCARD || c == IO_FLUSH ||
			  c == IO_IGNORED, "op %u", op);
		if (op >= 32)
			cr_assert_eq(c, IO_IGNORED, "passthrough op %u", op);
	}
}

/* ---- format_rwbs() ---- */

static void expect_rwbs(uint32_t op, uint32_t flags, const char *expected)
{
	char buf[RWBS_LEN + 8];

	memset(buf, 0x55, sizeof(buf));
	format_rwbs(buf, op, flags);
	cr_assert_leq(strnlen(buf, sizeof(buf)), RWBS_LEN - 1, "op %u flags %#x: no NUL in time",
		      op, flags);
	cr_assert_str_eq(buf, expected, "op %u flags %#x", op, flags);
	for (size_t i = RWBS_LEN; i < sizeof(buf); i++)
		cr_assert_eq((unsigned char)buf[i], 0x55, "op %u flags %#x: wrote past %d bytes",
			     op, flags, RWBS_LEN);
}

Test(format_rwbs, kernel_letters)
{
	expect_rwbs(OP_READ, 0, "R");
	expect_rwbs(OP_WRITE, 0, "W");
	expect_rwbs(OP_WRITE, IO_FLAG_SYNC, "WS");
	expect_rwbs(OP_DISCARD, 0, "D");
	expect_rwbs(OP_SECURE_ERASE, 0, "DE");
	expect_rwbs(OP_FLUSH, 0, "F");
	expect_rwbs(OP_WRITE, IO_FLAG_PREFLUSH | IO_FLAG_SYNC, "FWS");
	expect_rwbs(OP_WRITE, IO_FLAG_FUA | IO_FLAG_SYNC, "WFS");
	expect_rwbs(OP_READ, IO_FLAG_RAHEAD, "RA");
	expect_rwbs(OP_WRITE, IO_FLAG_META, "WM");
	expect_rwbs(OP_READ, IO_FLAG_SYNC | IO_FLAG_META, "RSM");
	expect_rwbs(OP_FLUSH, IO_FLAG_PREFLUSH, "FF");
}

Test(format_rwbs, other_ops_are_N)
{
	expect_rwbs(OP_WRITE_ZEROES, 0, "N");
	expect_rwbs(OP_ZONE_APPEND, 0, "N");
	expect_rwbs(OP_ZONE_OPEN, 0, "N");
	expect_rwbs(OP_ZONE_RESET, 0, "N");
	expect_rwbs(OP_DRV_IN, 0, "N");
	expect_rwbs(OP_DRV_OUT, IO_FLAG_SYNC, "NS");
}

Test(format_rwbs, flag_bits_above_the_op_are_ignored)
{
	expect_rwbs(OP_WRITE | REQ_SYNC_BIT, 0, "W");
	expect_rwbs(OP_READ | 0xffffff00U, 0, "R");
}

Test(format_rwbs, longest_combination_fits)
{
	expect_rwbs(OP_SECURE_ERASE,
		    IO_FLAG_PREFLUSH | IO_FLAG_FUA | IO_FLAG_RAHEAD | IO_FLAG_SYNC | IO_FLAG_META,
		    "FDEFASM");
	/* flags diskio does not know add nothing */
	expect_rwbs(OP_WRITE, 0xffffffe0U, "W");
}

/* ---- output ---- */


static struct block_io_event make_io(uint32_t tgid, const char *comm, size_t comm_len)
{
	struct block_io_event e;

	memset(&e, 0, sizeof(e));
	e.type = EVENT_IO;
	e.tgid = tgid;
	e.time_ns = 123456789;
	e.latency_ns = 52100;
	e.sector = 123456789012ULL;
	e.bytes = 1048576;
	e.dev = 254 << 20;
	e.op = OP_WRITE;
	e.flags = IO_FLAG_SYNC;
	memcpy(e.comm, comm, comm_len > TASK_COMM_LEN ? TASK_COMM_LEN : comm_len);
	return e;
}

static const struct {
	const char *comm;
	size_t len;
	const char *escaped;
} comms[] = {
	{ "dd", 2, "dd" },
	{ "my prog", 7, "my\\x20prog" },
	{ "tab\tnl\n", 7, "tab\\x09nl\\x0a" },
	{ "back\\", 5, "back\\x5c" },
	{ "\xff\x80", 2, "\\xff\\x80" },
	{ "", 0, "-" },
	{ "0123456789abcdef", 16, "0123456789abcdef" },	/* 16 bytes, no NUL */
};

Test(trace_print_io, batch_line_has_eight_fields)
{
	static const char *const devices[] = { "vda", "my disk", "" };

	for (size_t i = 0; i < sizeof(comms) / sizeof(comms[0]); i++) {
		for (size_t d = 0; d < 3; d++) {
			struct block_io_event e = make_io(4242, comms[i].comm, comms[i].len);
			char fields[MAXFIELDS][FIELDLEN];
			struct cap c;

			trace_print_io(cap_open(&c), false, &e, devices[d], 1.5);
			cap_close(&c);
			cr_assert_eq(c.buf[c.len - 1], '\n');
			cr_assert_null(memchr(c.buf, '\n', c.len - 1), "several lines: %s", c.buf);
			for (size_t k = 0; k + 1 < c.len; k++)
				cr_assert((unsigned char)c.buf[k] >= 0x20 &&
					  (unsigned char)c.buf[k] < 0x7f, "byte %#x in %s",
					  (unsigned char)c.buf[k], c.buf);
			c.buf[c.len - 1] = '\0';
			cr_assert_eq(split_fields(c.buf, fields), 8, "comm #%zu device #%zu: %s", i,
				     d, c.buf);
			cr_assert_str_eq(fields[0], "1.500000");
			cr_assert_str_eq(fields[1], "4242");
			cr_assert_str_eq(fields[2], comms[i].escaped);
			cr_assert_str_eq(fields[3], d == 0 ? "vda" : d == 1 ? "my\\x20disk" : "-");
			cr_assert_str_eq(fields[4], "WS");
			cr_assert_str_eq(fields[5], "123456789012");
			cr_assert_str_eq(fields[6], "1048576");
			cr_assert_str_eq(fields[7], "52.1");
			free(c.buf);
		}
	}
}

Test(trace_print_io, columns_line_names_eight_fields)
{
	char fields[MAXFIELDS][FIELDLEN];
	struct cap c;

	trace_print_columns(cap_open(&c), false);
	cap_close(&c);
	cr_assert_eq(c.buf[0], '#');
	c.buf[c.len - 1] = '\0';
	cr_assert_eq(split_fields(c.buf + 1, fields), 8, "%s", c.buf);
	free(c.buf);

	trace_print_columns(cap_open(&c), true);
	cap_close(&c);
	cr_assert_eq(c.len, 0, "JSON has no column line");
	free(c.buf);
}

Test(trace_print_io, checker_rejects_invalid_json)
{
	json_self_test();
}

Test(trace_print_io, json_event_line)
{
	for (size_t i = 0; i < sizeof(comms) / sizeof(comms[0]); i++) {
		struct block_io_event e = make_io(4242, comms[i].comm, comms[i].len);
		struct jnode root;
		struct cap c;

		e.sector = UINT64_MAX;
		e.bytes = UINT32_MAX;
		trace_print_io(cap_open(&c), true, &e, "we\"ird\\dev", 2.25);
		cap_close(&c);
		json_parse_line(c.buf, c.len, &root);
		expect_record_head(&root, "event", EVENT_WALL_TEXT, EVENT_WALL_TS, false);
		cr_assert_float_eq(jkey_double(&root, "time_s"), 2.25, 1e-9);
		cr_assert_eq(jkey_u64(&root, "pid"), 4242);
		jmust(&root, "comm", J_STR);
		if (comms[i].len && (unsigned char)comms[i].comm[0] < 0x80)
			cr_assert(jstr_is(jget(&root, "comm"), comms[i].comm, comms[i].len),
				  "comm #%zu", i);
		cr_assert(jstr_is(jmust(&root, "device", J_STR), "we\"ird\\dev", 10));
		cr_assert(jstr_is(jmust(&root, "op", J_STR), "WS", 2));
		cr_assert_eq(jkey_u64(&root, "sector"), UINT64_MAX);
		cr_assert_eq(jkey_u64(&root, "bytes"), UINT32_MAX);
		cr_assert_float_eq(jkey_double(&root, "latency_us"), 52.1, 1e-9);
		j_free(&root);
		free(c.buf);
	}
}

Test(trace_print_io, json_comm_with_control_bytes)
{
	struct block_io_event e = make_io(1, "a\"\\\x01\x1f\x7f\xff", 7);
	struct jnode root;
	struct cap c;

	trace_print_io(cap_open(&c), true, &e, "vda", 0);
	cap_close(&c);
	json_parse_line(c.buf, c.len, &root);
	cr_assert(jstr_is(jmust(&root, "comm", J_STR), "a\"\\\x01\x1f\x7f\xc3\xbf", 8));
	j_free(&root);
	free(c.buf);
}

Test(trace_print_interval, json)
{
	uint64_t lost[LOST_NR_CAUSES] = { 1, 0, 7, 0, 100, 2 };
	struct timespec wall = { 1795334401, 0 };
	const struct jnode *l, *by_cause;
	struct jnode root;
	uint64_t sum = 0;
	struct cap c;

	trace_print_interval(cap_open(&c), true, &wall, 0.5, 999, lost);
	cap_close(&c);
	json_parse_line(c.buf, c.len, &root);
	expect_record_head(&root, "interval", "2026-11-22T08:00:01.000Z", "1795334401.000", true);
	cr_assert_float_eq(jkey_double(&root, "interval_s"), 0.5, 1e-12);
	cr_assert_eq(jkey_u64(&root, "events"), 999);
	l = jmust(&root, "lost", J_OBJ);
	cr_assert_eq(jkey_u64(l, "events"), 110);
	by_cause = jmust(l, "by_cause", J_OBJ);
	cr_assert_eq(by_cause->nkids, LOST_NR_CAUSES);
	for (size_t i = 0; i < by_cause->nkids; i++)
		sum += ju64(&by_cause->kids[i]);
	cr_assert_eq(sum, 110);
	cr_assert_eq(jkey_u64(by_cause, "ringbuf_full"), 7);
	j_free(&root);
	free(c.buf);
}

Test(trace_print_interval, batch)
{
	uint64_t lost[LOST_NR_CAUSES] = { 1, 0, 7, 0, 100, 2 };
	struct timespec wall = { 1795334401, 0 };
	struct cap c;

	trace_print_interval(cap_open(&c), false, &wall, 0.5, 999, lost);
	cap_close(&c);
	cr_assert_eq(c.buf[0], '#', "%s", c.buf);
	cr_assert_eq(c.buf[c.len - 1], '\n');
	cr_assert_null(memchr(c.buf, '\n', c.len - 1));
	cr_assert(!strncmp(c.buf, "# interval time=2026-11-22T08:00:01.000Z interval_s=0.5 ", 56),
		  "%s", c.buf);
	cr_assert(strstr(c.buf, " events=999"), "%s", c.buf);
	cr_assert(strstr(c.buf, " lost=110"), "%s", c.buf);
	cr_assert(strstr(c.buf, " lost_perf_buffer=100"), "%s", c.buf);
	free(c.buf);
}

static struct crash_event make_crash(uint32_t tgid, const char *comm, size_t len, uint32_t sig,
				     uint32_t core)
{
	struct crash_event e;

	memset(&e, 0, sizeof(e));
	e.type = EVENT_CRASH;
	e.tgid = tgid;
	e.signal = sig;
	e.core_dumped = core;
	memcpy(e.comm, comm, len > TASK_COMM_LEN ? TASK_COMM_LEN : len);
	return e;
}

Test(trace_print_crash, json)
{
	struct crash_event e = make_crash(77, "seg \"fault\"", 11, 11, 1);
	const struct jnode *crash;
	struct jnode root;
	struct cap c;

	/* A record of its own, flat: no "crash" object (an interval's "crash"
	 * is the crash-free counts, an object of another shape). */
	trace_print_crash(cap_open(&c), true, &e, 3.5);
	cap_close(&c);
	json_parse_line(c.buf, c.len, &root);
	expect_record_head(&root, "crash", EVENT_WALL_TEXT, EVENT_WALL_TS, false);
	cr_assert_float_eq(jkey_double(&root, "time_s"), 3.5, 1e-9);
	cr_assert_null(jget(&root, "crash"));
	crash = &root;
	cr_assert_eq(jkey_u64(crash, "pid"), 77);
	cr_assert(jstr_is(jmust(crash, "comm", J_STR), "seg \"fault\"", 11));
	cr_assert(jstr_is(jmust(crash, "signal", J_STR), "SIGSEGV", 7));
	jmust(crash, "core_dumped", J_TRUE);
	j_free(&root);
	free(c.buf);

	e = make_crash(78, "0123456789abcdef", 16, 99, 0);
	trace_print_crash(cap_open(&c), true, &e, 0);
	cap_close(&c);
	json_parse_line(c.buf, c.len, &root);
	crash = &root;
	cr_assert(jstr_is(jmust(crash, "comm", J_STR), "0123456789abcdef", 16));
	cr_assert(jstr_is(jmust(crash, "signal", J_STR), "SIG99", 5));
	jmust(crash, "core_dumped", J_FALSE);
	j_free(&root);
	free(c.buf);
}

Test(trace_print_crash, batch)
{
	struct crash_event e = make_crash(77, "seg fault\n", 10, 6, 1);
	struct cap c;

	trace_print_crash(cap_open(&c), false, &e, 3.5);
	cap_close(&c);
	cr_assert_eq(c.buf[0], '#', "%s", c.buf);
	cr_assert_eq(c.buf[c.len - 1], '\n');
	cr_assert_null(memchr(c.buf, '\n', c.len - 1), "%s", c.buf);
	cr_assert(strstr(c.buf, "time_s=3.500000"), "%s", c.buf);
	cr_assert(strstr(c.buf, "pid=77 comm=seg\\x20fault\\x0a signal=SIGABRT core_dumped=1"),
		  "%s", c.buf);
	free(c.buf);
}
