/* SPDX-License-Identifier: GPL-2.0 */
/* Paths of files diskio reads (sysfs, /proc), built with snprintf(). */
#ifndef DISKIO_PATH_H
#define DISKIO_PATH_H

#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>

/* path := fmt...; false when it would not fit, so that callers never open a
 * truncated path. */
static inline bool __attribute__((format(printf, 2, 3)))
build_path(char path[PATH_MAX], const char *fmt, ...)
{
	va_list ap;
	int len;

	va_start(ap, fmt);
	len = vsnprintf(path, PATH_MAX, fmt, ap);
	va_end(ap);
	return len >= 0 && len < PATH_MAX;
}

#endif /* DISKIO_PATH_H */
