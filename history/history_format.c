// SPDX-License-Identifier: GPL-2.0
/* The record's schema, its bytes, records and header (history_format.h);
 * the layout is doc/record-format.md's.  A frame's objects are
 * history_encode.c's and history_decode.c's. */
#define _GNU_SOURCE
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include "array.h"
#include "history_format.h"

/* ---- the schema ---- */

#define FIELD(k, i, t, st, s, m, n) \
	{ k, i, t, st, offsetof(s, m), sizeof(((s *)0)->m), n, false }
#define UINT(k, i, s, m, n) FIELD(k, i, HT_UNSIGNED, HS_INT, s, m, n)
#define BOOL(k, i, s, m, n) FIELD(k, i, HT_UNSIGNED, HS_BOOL, s, m, n)
#define SPECIAL(k, i, t, n) { k, i, t, HS_SPECIAL, 0, 0, n, false }
#define ROW_COUNTER(i, c, n) UINT(HK_ROW, i, struct proc_io, delta[c], n)
#define DEV_COUNTER(i, m, n) FIELD(HK_DEVICE, i, HT_UNSIGNED, HS_COUNTER, struct pmem_device, m, n)
#define DEV_CHANGE(i, f, n) UINT(HK_DEVICE, i, struct pmem_device, iostat_change.field[f], n)
/* Frames of totals (-a) only: what the run showed since its start. */
#define TOTALS(k, i, t, st, s, m, n) \
	{ k, i, t, st, offsetof(s, m), sizeof(((s *)0)->m), n, true }
#define ROW_TOTAL(i, c, n) TOTALS(HK_ROW, i, HT_UNSIGNED, HS_INT, struct proc_io, total[c], n)
#define DEV_TOTAL(i, m, n) \
	TOTALS(HK_DEVICE, i, HT_UNSIGNED, HS_COUNTER_TOTAL, struct pmem_device, m, n)
#define DEV_START(i, f, n) TOTALS(HK_DEVICE, i, HT_UNSIGNED, HS_INT, struct pmem_device, \
				  iostat_change_start.field[f], n)
#define SPECIAL_TOTALS(k, i, t, n) { k, i, t, HS_SPECIAL, 0, 0, n, true }


const struct history_field history_fields[] = {
	UINT(HK_FRAME, 1, struct frame, wall.tv_sec, "time_s"),
	UINT(HK_FRAME, 2, struct frame, wall.tv_nsec, "time_ns"),
	FIELD(HK_FRAME, 3, HT_DOUBLE, HS_DOUBLE, struct frame, interval_s, "interval_s"),
	BOOL(HK_FRAME, 4, struct frame, partial, "partial"),
	BOOL(HK_FRAME, 5, struct frame, cumulative, "cumulative"),
	BOOL(HK_FRAME, 6, struct frame, per_process_latency, "per_process_latency"),
	BOOL(HK_FRAME, 7, struct frame, by_cgroup, "by_cgroup"),
	BOOL(HK_FRAME, 8, struct frame, per_thread, "per_thread"),
	SPECIAL(HK_FRAME, HF_FRAME_LOST, HT_VECTOR, "lost"),
	UINT(HK_FRAME, 10, struct frame, io_events, "io_events"),
	/* who waits (iowait.h): how, whether the frame knows, over how long a run */
	UINT(HK_FRAME, 11, struct frame, waits_source, "waits_source"),
	BOOL(HK_FRAME, 12, struct frame, iowait_known, "iowait_known"),
	BOOL(HK_FRAME, 13, struct frame, swapin_known, "swapin_known"),
	FIELD(HK_FRAME, 14, HT_DOUBLE, HS_DOUBLE, struct frame, run_s, "run_s"),
	BOOL(HK_FRAME, 15, struct frame, files_on, "files_on"),
	SPECIAL(HK_FRAME, HF_FRAME_STACKS_ON, HT_UNSIGNED, "stacks_on"),
	SPECIAL(HK_FRAME, HF_FRAME_FRAMES_RECOVERED, HT_UNSIGNED, "stack_frames_recovered"),
	SPECIAL(HK_FRAME, HF_FRAME_FRAMES_UNKNOWN, HT_UNSIGNED, "stack_frames_unknown"),
	/* issue 45: /proc/pressure/io over the frame */
	BOOL(HK_FRAME, 19, struct frame, pressure_known, "pressure_known"),
	FIELD(HK_FRAME, 20, HT_DOUBLE, HS_DOUBLE, struct frame, pressure_some_pct, "pressure_some_pct"),
	FIELD(HK_FRAME, 21, HT_DOUBLE, HS_DOUBLE, struct frame, pressure_full_pct, "pressure_full_pct"),

	SPECIAL(HK_DEVICE, HF_DEVICE_NAME, HT_NAME, "name"),
	SPECIAL(HK_DEVICE, HF_DEVICE_TOTAL, HT_UNSIGNED, "total"),
	UINT(HK_DEVICE, 3, struct pmem_device, latency_sample, "latency_sample"),
	BOOL(HK_DEVICE, 4, struct pmem_device, has_iostat, "has_iostat"),
	FIELD(HK_DEVICE, 5, HT_NAME, HS_CHARS, struct pmem_device, layers.below, "below"),
	FIELD(HK_DEVICE, 6, HT_NAME, HS_CHARS, struct pmem_device, layers.dm_name, "dm_name"),
	UINT(HK_DEVICE, 7, struct pmem_device, iostat_change.ns, "iostat_ns"),
	DEV_COUNTER(10, counter[PMEM_READ_BYTES], "read_bytes"),
	DEV_COUNTER(11, counter[PMEM_WRITE_BYTES], "write_bytes"),
	DEV_COUNTER(12, counter[PMEM_DISCARD_BYTES], "discard_bytes"),
	DEV_COUNTER(13, counter[PMEM_READ_IOS], "read_ios"),
	DEV_COUNTER(14, counter[PMEM_WRITE_IOS], "write_ios"),
	DEV_COUNTER(15, counter[PMEM_DISCARD_IOS], "discard_ios"),
	DEV_COUNTER(16, counter[PMEM_FLUSHES], "flushes"),
	DEV_COUNTER(17, counter[PMEM_LATENCY_NS], "latency_ns"),
	DEV_COUNTER(18, counter[PMEM_LATENCY_IOS], "latency_ios"),
	DEV_COUNTER(19, counter[PMEM_DIRTIED_BYTES], "dirtied_bytes"),
	DEV_COUNTER(20, counter[PMEM_WRITEBACK_BYTES], "writeback_bytes"),
	DEV_COUNTER(30, op_latency_ns[IO_READ], "read_latency_ns"),
	DEV_COUNTER(31, op_latency_ns[IO_WRITE], "write_latency_ns"),
	DEV_COUNTER(32, op_latency_ns[IO_DISCARD], "discard_latency_ns"),
	DEV_COUNTER(33, op_latency_ios[IO_READ], "read_latency_ios"),
	DEV_COUNTER(34, op_latency_ios[IO_WRITE], "write_latency_ios"),
	DEV_COUNTER(35, op_latency_ios[IO_DISCARD], "discard_latency_ios"),
	SPECIAL(HK_DEVICE, HF_DEVICE_SLOTS + IO_READ, HT_VECTOR, "read_latency_slots"),
	SPECIAL(HK_DEVICE, HF_DEVICE_SLOTS + IO_WRITE, HT_VECTOR, "write_latency_slots"),
	SPECIAL(HK_DEVICE, HF_DEVICE_SLOTS + IO_DISCARD, HT_VECTOR, "discard_latency_slots"),
	DEV_COUNTER(39, latency_samples_dropped, "latency_samples_dropped"),
	DEV_CHANGE(40, DS_READ_IOS, "ds_read_ios"),
	DEV_CHANGE(41, DS_READ_MERGES, "ds_read_merges"),
	DEV_CHANGE(42, DS_READ_SECTORS, "ds_read_sectors"),
	DEV_CHANGE(43, DS_READ_TICKS, "ds_read_ticks"),
	DEV_CHANGE(44, DS_WRITE_IOS, "ds_write_ios"),
	DEV_CHANGE(45, DS_WRITE_MERGES, "ds_write_merges"),
	DEV_CHANGE(46, DS_WRITE_SECTORS, "ds_write_sectors"),
	DEV_CHANGE(47, DS_WRITE_TICKS, "ds_write_ticks"),
	DEV_CHANGE(48, DS_IN_FLIGHT, "ds_in_flight"),
	DEV_CHANGE(49, DS_IO_TICKS, "ds_io_ticks"),
	DEV_CHANGE(50, DS_TIME_IN_QUEUE, "ds_time_in_queue"),
	DEV_CHANGE(51, DS_DISCARD_IOS, "ds_discard_ios"),
	DEV_CHANGE(52, DS_DISCARD_MERGES, "ds_discard_merges"),
	DEV_CHANGE(53, DS_DISCARD_SECTORS, "ds_discard_sectors"),
	DEV_CHANGE(54, DS_DISCARD_TICKS, "ds_discard_ticks"),
	DEV_CHANGE(55, DS_FLUSH_IOS, "ds_flush_ios"),
	DEV_CHANGE(56, DS_FLUSH_TICKS, "ds_flush_ticks"),
	DEV_TOTAL(60, counter[PMEM_READ_BYTES], "read_bytes_total"),
	DEV_TOTAL(61, counter[PMEM_WRITE_BYTES], "write_bytes_total"),
	DEV_TOTAL(62, counter[PMEM_DISCARD_BYTES], "discard_bytes_total"),
	DEV_TOTAL(63, counter[PMEM_READ_IOS], "read_ios_total"),
	DEV_TOTAL(64, counter[PMEM_WRITE_IOS], "write_ios_total"),
	DEV_TOTAL(65, counter[PMEM_DISCARD_IOS], "discard_ios_total"),
	DEV_TOTAL(66, counter[PMEM_FLUSHES], "flushes_total"),
	DEV_TOTAL(67, counter[PMEM_LATENCY_NS], "latency_ns_total"),
	DEV_TOTAL(68, counter[PMEM_LATENCY_IOS], "latency_ios_total"),
	DEV_TOTAL(69, counter[PMEM_DIRTIED_BYTES], "dirtied_bytes_total"),
	DEV_TOTAL(70, counter[PMEM_WRITEBACK_BYTES], "writeback_bytes_total"),
	DEV_TOTAL(71, op_latency_ns[IO_READ], "read_latency_ns_total"),
	DEV_TOTAL(72, op_latency_ns[IO_WRITE], "write_latency_ns_total"),
	DEV_TOTAL(73, op_latency_ns[IO_DISCARD], "discard_latency_ns_total"),
	DEV_TOTAL(74, op_latency_ios[IO_READ], "read_latency_ios_total"),
	DEV_TOTAL(75, op_latency_ios[IO_WRITE], "write_latency_ios_total"),
	DEV_TOTAL(76, op_latency_ios[IO_DISCARD], "discard_latency_ios_total"),
	SPECIAL_TOTALS(HK_DEVICE, HF_DEVICE_SLOTS_TOTAL + IO_READ, HT_VECTOR, "read_latency_slots_total"),
	SPECIAL_TOTALS(HK_DEVICE, HF_DEVICE_SLOTS_TOTAL + IO_WRITE, HT_VECTOR, "write_latency_slots_total"),
	SPECIAL_TOTALS(HK_DEVICE, HF_DEVICE_SLOTS_TOTAL + IO_DISCARD, HT_VECTOR,
		       "discard_latency_slots_total"),
	DEV_TOTAL(80, latency_samples_dropped, "latency_samples_dropped_total"),
	TOTALS(HK_DEVICE, 81, HT_UNSIGNED, HS_INT, struct pmem_device, iostat_change_start.ns,
	       "iostat_ns_since_start"),
	DEV_START(82, DS_READ_IOS, "ds_read_ios_since_start"),
	DEV_START(83, DS_READ_MERGES, "ds_read_merges_since_start"),
	DEV_START(84, DS_READ_SECTORS, "ds_read_sectors_since_start"),
	DEV_START(85, DS_READ_TICKS, "ds_read_ticks_since_start"),
	DEV_START(86, DS_WRITE_IOS, "ds_write_ios_since_start"),
	DEV_START(87, DS_WRITE_MERGES, "ds_write_merges_since_start"),
	DEV_START(88, DS_WRITE_SECTORS, "ds_write_sectors_since_start"),
	DEV_START(89, DS_WRITE_TICKS, "ds_write_ticks_since_start"),
	DEV_START(90, DS_IN_FLIGHT, "ds_in_flight_since_start"),
	DEV_START(91, DS_IO_TICKS, "ds_io_ticks_since_start"),
	DEV_START(92, DS_TIME_IN_QUEUE, "ds_time_in_queue_since_start"),
	DEV_START(93, DS_DISCARD_IOS, "ds_discard_ios_since_start"),
	DEV_START(94, DS_DISCARD_MERGES, "ds_discard_merges_since_start"),
	DEV_START(95, DS_DISCARD_SECTORS, "ds_discard_sectors_since_start"),
	DEV_START(96, DS_DISCARD_TICKS, "ds_discard_ticks_since_start"),
	DEV_START(97, DS_FLUSH_IOS, "ds_flush_ios_since_start"),
	DEV_START(98, DS_FLUSH_TICKS, "ds_flush_ticks_since_start"),
	/* issue 45: failed I/Os by kind */
	DEV_COUNTER(100, counter[PMEM_ERRORS + IO_ERR_EIO], "errors_eio"),
	DEV_COUNTER(101, counter[PMEM_ERRORS + IO_ERR_ENOSPC], "errors_enospc"),
	DEV_COUNTER(102, counter[PMEM_ERRORS + IO_ERR_ETIMEDOUT], "errors_etimedout"),
	DEV_COUNTER(103, counter[PMEM_ERRORS + IO_ERR_EOPNOTSUPP], "errors_eopnotsupp"),
	DEV_COUNTER(104, counter[PMEM_ERRORS + IO_ERR_ENODATA], "errors_enodata"),
	DEV_COUNTER(105, counter[PMEM_ERRORS + IO_ERR_ENOLINK], "errors_enolink"),
	DEV_COUNTER(106, counter[PMEM_ERRORS + IO_ERR_EREMOTEIO], "errors_eremoteio"),
	DEV_COUNTER(107, counter[PMEM_ERRORS + IO_ERR_OTHER], "errors_other"),
	DEV_TOTAL(110, counter[PMEM_ERRORS + IO_ERR_EIO], "errors_eio_total"),
	DEV_TOTAL(111, counter[PMEM_ERRORS + IO_ERR_ENOSPC], "errors_enospc_total"),
	DEV_TOTAL(112, counter[PMEM_ERRORS + IO_ERR_ETIMEDOUT], "errors_etimedout_total"),
	DEV_TOTAL(113, counter[PMEM_ERRORS + IO_ERR_EOPNOTSUPP], "errors_eopnotsupp_total"),
	DEV_TOTAL(114, counter[PMEM_ERRORS + IO_ERR_ENODATA], "errors_enodata_total"),
	DEV_TOTAL(115, counter[PMEM_ERRORS + IO_ERR_ENOLINK], "errors_enolink_total"),
	DEV_TOTAL(116, counter[PMEM_ERRORS + IO_ERR_EREMOTEIO], "errors_eremoteio_total"),
	DEV_TOTAL(117, counter[PMEM_ERRORS + IO_ERR_OTHER], "errors_other_total"),

	UINT(HK_ROW, 1, struct proc_io, key.tgid, "key_tgid"),
	UINT(HK_ROW, 2, struct proc_io, key.dev, "key_dev"),
	UINT(HK_ROW, 3, struct proc_io, key.cgroup, "key_cgroup"),
	SPECIAL(HK_ROW, HF_ROW_KEY_COMM, HT_BYTES, "key_comm"),
	FIELD(HK_ROW, 5, HT_NAME, HS_KEY, struct proc_io, comm_name, "comm"),
	FIELD(HK_ROW, 6, HT_NAME, HS_KEY, struct proc_io, device_name, "device"),
	FIELD(HK_ROW, 7, HT_NAME, HS_KEY, struct proc_io, cgroup_name, "cgroup"),
	FIELD(HK_ROW, 8, HT_NAME, HS_KEY, struct proc_io, serves_name, "for"),
	UINT(HK_ROW, 9, struct proc_io, tgid, "tgid"),
	ROW_COUNTER(10, PMEM_READ_BYTES, "read_bytes"),
	ROW_COUNTER(11, PMEM_WRITE_BYTES, "write_bytes"),
	ROW_COUNTER(12, PMEM_DISCARD_BYTES, "discard_bytes"),
	ROW_COUNTER(13, PMEM_READ_IOS, "read_ios"),
	ROW_COUNTER(14, PMEM_WRITE_IOS, "write_ios"),
	ROW_COUNTER(15, PMEM_DISCARD_IOS, "discard_ios"),
	ROW_COUNTER(16, PMEM_FLUSHES, "flushes"),
	ROW_COUNTER(17, PMEM_LATENCY_NS, "latency_ns"),
	ROW_COUNTER(18, PMEM_LATENCY_IOS, "latency_ios"),
	ROW_COUNTER(19, PMEM_DIRTIED_BYTES, "dirtied_bytes"),
	ROW_COUNTER(20, PMEM_WRITEBACK_BYTES, "writeback_bytes"),
	SPECIAL(HK_ROW, HF_ROW_LATENCY, HT_VECTOR, "latency_slots"),
	SPECIAL(HK_ROW, HF_ROW_LATENCY_INCOMPLETE, HT_UNSIGNED, "latency_incomplete"),
	SPECIAL_TOTALS(HK_ROW, HF_ROW_LATENCY_TOTAL, HT_VECTOR, "latency_slots_total"),
	UINT(HK_ROW, 24, struct proc_io, owner.start_ns, "start_ns"),
	UINT(HK_ROW, 25, struct proc_io, owner.uid, "uid"),
	UINT(HK_ROW, 26, struct proc_io, owner.ioprio, "ioprio"),
	FIELD(HK_ROW, 27, HT_SIGNED, HS_SINT, struct proc_io, owner.nice, "nice"),
	UINT(HK_ROW, 28, struct proc_io, owner.flags, "owner_flags"),
	FIELD(HK_ROW, 29, HT_NAME, HS_KEY, struct proc_io, user_name, "user"),
	SPECIAL(HK_ROW, HF_ROW_CMDLINE, HT_NAME, "cmdline"),
	ROW_TOTAL(40, PMEM_READ_BYTES, "read_bytes_total"),
	ROW_TOTAL(41, PMEM_WRITE_BYTES, "write_bytes_total"),
	ROW_TOTAL(42, PMEM_DISCARD_BYTES, "discard_bytes_total"),
	ROW_TOTAL(43, PMEM_READ_IOS, "read_ios_total"),
	ROW_TOTAL(44, PMEM_WRITE_IOS, "write_ios_total"),
	ROW_TOTAL(45, PMEM_DISCARD_IOS, "discard_ios_total"),
	ROW_TOTAL(46, PMEM_FLUSHES, "flushes_total"),
	ROW_TOTAL(47, PMEM_LATENCY_NS, "latency_ns_total"),
	ROW_TOTAL(48, PMEM_LATENCY_IOS, "latency_ios_total"),
	ROW_TOTAL(49, PMEM_DIRTIED_BYTES, "dirtied_bytes_total"),
	ROW_TOTAL(50, PMEM_WRITEBACK_BYTES, "writeback_bytes_total"),
	UINT(HK_ROW, 31, struct proc_io, wait_delta.blkio_ns, "iowait_ns"),
	UINT(HK_ROW, 32, struct proc_io, wait_delta.swapin_ns, "swapin_ns"),
	TOTALS(HK_ROW, 51, HT_UNSIGNED, HS_INT, struct proc_io, wait_total.blkio_ns, "iowait_ns_total"),
	TOTALS(HK_ROW, 52, HT_UNSIGNED, HS_INT, struct proc_io, wait_total.swapin_ns,
	       "swapin_ns_total"),
	/* issue 45: failed I/Os by kind */
	ROW_COUNTER(60, PMEM_ERRORS + IO_ERR_EIO, "errors_eio"),
	ROW_COUNTER(61, PMEM_ERRORS + IO_ERR_ENOSPC, "errors_enospc"),
	ROW_COUNTER(62, PMEM_ERRORS + IO_ERR_ETIMEDOUT, "errors_etimedout"),
	ROW_COUNTER(63, PMEM_ERRORS + IO_ERR_EOPNOTSUPP, "errors_eopnotsupp"),
	ROW_COUNTER(64, PMEM_ERRORS + IO_ERR_ENODATA, "errors_enodata"),
	ROW_COUNTER(65, PMEM_ERRORS + IO_ERR_ENOLINK, "errors_enolink"),
	ROW_COUNTER(66, PMEM_ERRORS + IO_ERR_EREMOTEIO, "errors_eremoteio"),
	ROW_COUNTER(67, PMEM_ERRORS + IO_ERR_OTHER, "errors_other"),
	ROW_TOTAL(70, PMEM_ERRORS + IO_ERR_EIO, "errors_eio_total"),
	ROW_TOTAL(71, PMEM_ERRORS + IO_ERR_ENOSPC, "errors_enospc_total"),
	ROW_TOTAL(72, PMEM_ERRORS + IO_ERR_ETIMEDOUT, "errors_etimedout_total"),
	ROW_TOTAL(73, PMEM_ERRORS + IO_ERR_EOPNOTSUPP, "errors_eopnotsupp_total"),
	ROW_TOTAL(74, PMEM_ERRORS + IO_ERR_ENODATA, "errors_enodata_total"),
	ROW_TOTAL(75, PMEM_ERRORS + IO_ERR_ENOLINK, "errors_enolink_total"),
	ROW_TOTAL(76, PMEM_ERRORS + IO_ERR_EREMOTEIO, "errors_eremoteio_total"),
	ROW_TOTAL(77, PMEM_ERRORS + IO_ERR_OTHER, "errors_other_total"),
	/* issue 45: the row's cgroup's io.pressure, as the frame showed it */
	BOOL(HK_ROW, 80, struct proc_io, cgroup_pressure.known, "cgroup_pressure_known"),
	FIELD(HK_ROW, 81, HT_DOUBLE, HS_DOUBLE, struct proc_io, cgroup_pressure.some_pct,
	      "cgroup_pressure_some_pct"),
	FIELD(HK_ROW, 82, HT_DOUBLE, HS_DOUBLE, struct proc_io, cgroup_pressure.full_pct,
	      "cgroup_pressure_full_pct"),

	UINT(HK_CRASH, 1, struct crashfree, interval_ns, "interval_ns"),
	UINT(HK_CRASH, 2, struct crashfree, operational_intervals, "operational_intervals"),
	UINT(HK_CRASH, 3, struct crashfree, crashfree_intervals, "crashfree_intervals"),
	UINT(HK_CRASH, 4, struct crashfree, crashes, "crashes"),

	FIELD(HK_CRASH_PROCESS, 1, HT_NAME, HS_CHARS, struct crashfree_process, comm, "comm"),
	UINT(HK_CRASH_PROCESS, 2, struct crashfree_process, crashes, "crashes"),

	UINT(HK_CRASH_EVENT, 1, struct crash_event, tgid, "pid"),
	UINT(HK_CRASH_EVENT, 2, struct crash_event, time_ns, "time_ns"),
	UINT(HK_CRASH_EVENT, 3, struct crash_event, signal, "signal"),
	UINT(HK_CRASH_EVENT, 4, struct crash_event, core_dumped, "core_dumped"),
	FIELD(HK_CRASH_EVENT, 5, HT_NAME, HS_CHARS, struct crash_event, comm, "comm"),

	/* --files (issue 35): the lines as the run showed them (cut by its
	 * --files-top); counts of the interval, or totals in a frame of -a. */
	UINT(HK_FILE, 1, struct file_row, key.who.tgid, "key_tgid"),
	UINT(HK_FILE, 2, struct file_row, key.who.dev, "key_dev"),
	UINT(HK_FILE, 3, struct file_row, key.who.cgroup, "key_cgroup"),
	UINT(HK_FILE, 4, struct file_row, key.kind, "kind"),
	UINT(HK_FILE, 5, struct file_row, key.fs_dev, "fs_dev"),
	UINT(HK_FILE, 6, struct file_row, key.ino, "ino"),
	UINT(HK_FILE, 7, struct file_row, tgid, "pid"),
	FIELD(HK_FILE, 8, HT_NAME, HS_KEY, struct file_row, comm_name, "comm"),
	FIELD(HK_FILE, 9, HT_NAME, HS_KEY, struct file_row, device_name, "device"),
	SPECIAL(HK_FILE, HF_FILE_PATH, HT_NAME, "path"),
	BOOL(HK_FILE, 11, struct file_row, unlinked, "deleted"),
	UINT(HK_FILE, 12, struct file_row, nfiles, "file_count"),
	UINT(HK_FILE, 13, struct file_row, bytes[IO_READ], "read_bytes"),
	UINT(HK_FILE, 14, struct file_row, bytes[IO_WRITE], "write_bytes"),
	UINT(HK_FILE, 15, struct file_row, ios[IO_READ], "read_ios"),
	UINT(HK_FILE, 16, struct file_row, ios[IO_WRITE], "write_ios"),
	/* issue 47: a number given again is another file (0: not recorded) */
	UINT(HK_FILE, 17, struct file_row, key.generation, "generation"),

	/* --stacks: each follows the ROW it is one of the top stacks of */
	SPECIAL(HK_STACK, HF_STACK_KERNEL_STATE, HT_UNSIGNED, "kernel_state"),
	SPECIAL(HK_STACK, HF_STACK_USER_STATE, HT_UNSIGNED, "user_state"),
	SPECIAL(HK_STACK, HF_STACK_KERNEL, HT_VECTOR, "kernel"),
	SPECIAL(HK_STACK, HF_STACK_USER, HT_VECTOR, "user"),
	SPECIAL(HK_STACK, HF_STACK_USER_UNKNOWN, HT_VECTOR, "user_unknown"),
	SPECIAL(HK_STACK, HF_STACK_COUNTS, HT_VECTOR, "counts"),
	SPECIAL_TOTALS(HK_STACK, HF_STACK_COUNTS_TOTAL, HT_VECTOR, "counts_total"),
};

const size_t history_nfields = sizeof(history_fields) / sizeof(history_fields[0]);

const struct history_field *history_field_of(uint8_t kind, uint64_t id)
{
	for (size_t i = 0; i < history_nfields; i++)
		if (history_fields[i].kind == kind && history_fields[i].id == id)
			return &history_fields[i];
	return NULL;
}

/* ---- bytes ---- */

int hbuf_put(struct hbuf *b, const void *p, size_t n)
{
	if (array_reserve((void **)&b->bytes, &b->cap, b->len + n, 1))
		return -ENOMEM;
	if (n)
		memcpy(b->bytes + b->len, p, n);
	b->len += n;
	return 0;
}

int hbuf_reserve(struct hbuf *b, size_t more)
{
	return array_reserve((void **)&b->bytes, &b->cap, b->len + more, 1) ? -ENOMEM : 0;
}

int hbuf_uleb(struct hbuf *b, uint64_t v)
{
	uint8_t tmp[10];
	size_t n = 0;

	do {
		tmp[n] = v & 0x7f;
		v >>= 7;
		if (v)
			tmp[n] |= 0x80;
		n++;
	} while (v);
	return hbuf_put(b, tmp, n);
}

int hbuf_string(struct hbuf *b, const char *s, size_t len)
{
	return hbuf_uleb(b, len) ?: hbuf_put(b, s, len);
}

void hbuf_free(struct hbuf *b)
{
	free(b->bytes);
	memset(b, 0, sizeof(*b));
}

uint64_t hcur_uleb(struct hcur *c)
{
	uint64_t v = 0;

	for (unsigned int shift = 0; shift < 64; shift += 7) {
		uint8_t byte;

		if (c->bad || c->p >= c->end)
			break;
		byte = *c->p++;
		v |= (uint64_t)(byte & 0x7f) << shift;
		if (!(byte & 0x80))
			return v;
	}
	c->bad = true;
	return 0;
}

const uint8_t *hcur_take(struct hcur *c, size_t n)
{
	const uint8_t *p = c->p;

	if (c->bad || (size_t)(c->end - c->p) < n) {
		c->bad = true;
		return NULL;
	}
	c->p += n;
	return p;
}

/* A string of at most size - 1 bytes into out; a longer one is damage. */
static void hcur_string(struct hcur *c, char *out, size_t size)
{
	uint64_t len = hcur_uleb(c);
	const uint8_t *p = len < size ? hcur_take(c, len) : NULL;

	if (!p) {
		c->bad = true;
		out[0] = '\0';
		return;
	}
	memcpy(out, p, len);
	out[len] = '\0';
}

static void put_le32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = v >> (8 * i);
}

static uint32_t get_le32(const uint8_t *p)
{
	return p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24;
}

/* ---- records ---- */

int history_record_put(struct hbuf *out, uint8_t type, const void *body, size_t len)
{
	uint8_t head[9];
	uint32_t crc = crc32(0, &type, 1);

	if (len + 1 > HISTORY_RECORD_MAX)
		return -E2BIG;
	crc = crc32(crc, body, len);
	put_le32(head, len + 1);
	put_le32(head + 4, crc);
	head[8] = type;
	return hbuf_put(out, head, sizeof(head)) ?: hbuf_put(out, body, len);
}

enum history_record_status history_record_get(const uint8_t *buf, size_t len, size_t off,
					      struct history_record *r)
{
	uint32_t n;

	if (off > len || len - off < 8)
		return HISTORY_RECORD_SHORT;
	n = get_le32(buf + off);
	if (n < 1 || n > HISTORY_RECORD_MAX)
		return HISTORY_RECORD_BAD;
	if (len - off - 8 < n)
		return HISTORY_RECORD_SHORT;
	if (crc32(0, buf + off + 8, n) != get_le32(buf + off + 4))
		return HISTORY_RECORD_BAD;
	r->type = buf[off + 8];
	r->body = buf + off + 9;
	r->body_len = n - 1;
	r->end = off + 8 + n;
	return HISTORY_RECORD_OK;
}

size_t history_next_record(const uint8_t *buf, size_t len, size_t off)
{
	struct history_record r;

	for (off++; off < len; off++)
		if (history_record_get(buf, len, off, &r) == HISTORY_RECORD_OK)
			return off;
	return len;
}

bool history_record_to_end(const uint8_t *buf, size_t len, size_t off,
			   struct history_record *r)
{
	size_t n;

	if (off > len || len - off < 9)
		return false;
	n = len - off - 8;
	if (n > HISTORY_RECORD_MAX || crc32(0, buf + off + 8, n) != get_le32(buf + off + 4))
		return false;
	r->type = buf[off + 8];
	r->body = buf + off + 9;
	r->body_len = n - 1;
	r->end = len;
	return true;
}

enum history_magic history_magic_of(const uint8_t *buf, size_t len)
{
	struct history_record r;

	if (len < HISTORY_MAGIC_LEN)
		return HISTORY_MAGIC_NONE;
	if (!memcmp(buf, HISTORY_MAGIC, HISTORY_MAGIC_LEN))
		return HISTORY_MAGIC_OK;
	/* A CRC-checked header (or its copy) is no accident of foreign bytes. */
	if (history_record_get(buf, len, HISTORY_MAGIC_LEN, &r) == HISTORY_RECORD_OK &&
	    (r.type == HISTORY_REC_HEADER || r.type == HISTORY_REC_HEADER_COPY))
		return HISTORY_MAGIC_DAMAGED;
	return HISTORY_MAGIC_NONE;
}

/* ---- the header ---- */

void history_header_init(struct history_header *h)
{
	memset(h, 0, sizeof(*h));
	h->version = HISTORY_VERSION;
	for (size_t i = 0; i < history_nfields; i++)
		h->schema[i] = (struct history_schema_entry){
			history_fields[i].kind, history_fields[i].id, history_fields[i].type };
	h->nschema = history_nfields;
}

int history_header_encode(const struct history_header *h, struct hbuf *out)
{
	int err = hbuf_uleb(out, h->version) ?:
		  hbuf_string(out, h->host, strlen(h->host)) ?:
		  hbuf_string(out, h->boot_id, strlen(h->boot_id)) ?:
		  hbuf_string(out, h->kernel, strlen(h->kernel)) ?:
		  hbuf_string(out, h->filter, strlen(h->filter)) ?:
		  hbuf_uleb(out, h->interval_ns) ?:
		  hbuf_uleb(out, (uint64_t)h->start_s) ?:
		  hbuf_uleb(out, h->nschema);

	for (size_t i = 0; !err && i < h->nschema; i++) {
		const struct history_field *f = history_field_of(h->schema[i].kind, h->schema[i].id);
		const char *name = f ? f->name : "";

		err = hbuf_uleb(out, h->schema[i].kind) ?: hbuf_uleb(out, h->schema[i].id) ?:
		      hbuf_uleb(out, h->schema[i].type) ?: hbuf_string(out, name, strlen(name));
	}
	return err;
}

int history_header_decode(const uint8_t *body, size_t len, struct history_header *h)
{
	struct hcur c = { body, body + len, false };
	uint64_t n;

	memset(h, 0, sizeof(*h));
	h->version = hcur_uleb(&c);
	hcur_string(&c, h->host, sizeof(h->host));
	hcur_string(&c, h->boot_id, sizeof(h->boot_id));
	hcur_string(&c, h->kernel, sizeof(h->kernel));
	hcur_string(&c, h->filter, sizeof(h->filter));
	h->interval_ns = hcur_uleb(&c);
	h->start_s = (int64_t)hcur_uleb(&c);
	n = hcur_uleb(&c);
	if (c.bad || h->version != HISTORY_VERSION || n > HISTORY_SCHEMA_MAX)
		return -EBADMSG;
	for (size_t i = 0; i < n; i++) {
		uint64_t kind = hcur_uleb(&c), id = hcur_uleb(&c), type = hcur_uleb(&c);
		uint64_t name_len = hcur_uleb(&c);

		hcur_take(&c, name_len);
		if (c.bad || kind > 255 || id < 1 || id > 127 || type < HT_UNSIGNED ||
		    type > HT_DOUBLE)
			return -EBADMSG;
		h->schema[i] = (struct history_schema_entry){ kind, id, type };
	}
	h->nschema = n;
	return 0;
}

int history_schema_type(const struct history_header *h, uint8_t kind, uint64_t id)
{
	for (size_t i = 0; i < h->nschema; i++)
		if (h->schema[i].kind == kind && h->schema[i].id == id)
			return h->schema[i].type;
	return 0;
}
