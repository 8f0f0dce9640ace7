/* SPDX-License-Identifier: GPL-2.0 */
/* What the batch and JSON views share (format.c), beyond view.h. */
#ifndef DISKIO_VIEWS_FORMAT_H
#define DISKIO_VIEWS_FORMAT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include "frame.h"
#include "pmem_metrics.h"

/* Counters a row or device shows, in batch column order. */
#define NR_SHOWN 7
extern const enum pmem_counter_id shown_counters[NR_SHOWN];

/* A row's latency is shown only with -L: otherwise the rows hold the I/Os
 * tracked for a filter, not a per-process measurement. */
bool row_latency_tenths(const struct frame *f, const uint64_t *values, uint64_t *tenths);

/* name as batch_write_name() writes it, with also_escaped's bytes escaped too. */
void write_escaped(FILE *out, const char *name, size_t len, const char *also_escaped);
/* Inside "by_process=a:1,b:2" the separators must not appear in names. */
void batch_write_listed_name(FILE *out, const char *name, size_t len);

/* issue 33: a row's I/O priority as iotop shows it ("be/4"), into buf
 * (IOPRIO_TEXT_SIZE bytes); NULL for a row of no process (--by cgroup,
 * what a stacked device sent below). */
const char *row_ioprio(const struct proc_io *row, char *buf);

#endif /* DISKIO_VIEWS_FORMAT_H */
