/* SPDX-License-Identifier: GPL-2.0 */
/* Paths of files diskio reads (sysfs, /proc), built with snprintf(), and
 * the first line of such a small file. */
#ifndef DISKIO_PATH_H
#define DISKIO_PATH_H

#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

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

/* The first line of a small file (sysfs, /proc/PID/comm) without its
 * newline, cut to size - 1 bytes; false if it cannot be read or is empty.
 * Opened non-blocking: a path that names a FIFO never stalls diskio. */
static inline bool read_first_line(const char *path, char *buf, size_t size)
{
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);

	if (fd < 0)
		return false;
	n = read(fd, buf, size - 1);
	close(fd);
	if (n <= 0)
		return false;
	buf[n] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	return buf[0] != '\0';
}

#endif /* DISKIO_PATH_H */
