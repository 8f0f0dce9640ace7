/* SPDX-License-Identifier: GPL-2.0 */
/* Trace mode (-T): one record per completed I/O, the biosnoop view; its
 * views are view_trace_batch() and view_trace_json() of view.h. */
#ifndef DISKIO_TRACE_H
#define DISKIO_TRACE_H

#include <stdint.h>
#include "abi.h"

#define RWBS_LEN 8

/* The kernel's rwbs letters (blk_fill_rwbs()): F for a preflush, then
 * R, W, D, DE (secure erase), F (flush) or N, then F (FUA), A (readahead),
 * S (sync), M (metadata). */
void format_rwbs(char buf[RWBS_LEN], uint32_t op, uint32_t flags);

#endif /* DISKIO_TRACE_H */
