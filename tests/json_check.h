/* SPDX-License-Identifier: GPL-2.0 */
/* Checks of output for unit tests, independent of the code under test: the
 * strict JSON parser (json_reader.h), awk-like field splitting and capture of
 * a FILE (check_util.c). */
#ifndef DISKIO_JSON_CHECK_H
#define DISKIO_JSON_CHECK_H

#include <criterion/criterion.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json_reader.h"

#define MAXFIELDS 64
#define FIELDLEN 512

/* awk's default field splitting: runs of blanks (space, tab) separate. */
size_t split_fields(const char *line, char fields[MAXFIELDS][FIELDLEN]);

/* Output written to a FILE, captured in memory. */
struct cap {
	char *buf;
	size_t len;
	FILE *f;
};

FILE *cap_open(struct cap *c);
void cap_close(struct cap *c);

#endif /* DISKIO_JSON_CHECK_H */
