/* SPDX-License-Identifier: GPL-2.0 */
/*
 * --diagnose's thresholds (issue 45): when a disk is busy, saturated or
 * throttled, who counts as waiting, how many drivers and files are named.
 * doc/diagnose.md gives each one's reasoning; --diagnose-rule NAME=VALUE
 * overrides one.
 */
#ifndef DISKIO_DIAGNOSE_RULES_H
#define DISKIO_DIAGNOSE_RULES_H

#include <stddef.h>
#include <stdint.h>

struct diagnose_rules {
	double busy_util;	/* %util at or above: the disk is busy */
	double saturated_queue;	/* aqu-sz at or above, busy too: saturated */
	double throttled_util;	/* %util below, with a waiter on it: throttled */
	double wait_pct;	/* IO> at or above: a process waits */
	uint64_t failing_errors;	/* failed I/Os at or above: failing */
	uint32_t drivers;	/* processes named per disk, by share of its bytes */
	uint32_t files;		/* files named per driver (with --files) */
};

void diagnose_rules_default(struct diagnose_rules *r);

/*
 * "NAME=VALUE" into r: 0, or -EINVAL with why (at most size bytes) saying
 * what is wrong, for one "diskio: ..." line.
 */
int diagnose_rule_set(struct diagnose_rules *r, const char *text, char *why, size_t size);

/* The rules' names, space-separated, for --help and the errors. */
extern const char diagnose_rule_names[];

#endif /* DISKIO_DIAGNOSE_RULES_H */
