// SPDX-License-Identifier: GPL-2.0
#include <stdarg.h>
#include <stdio.h>
#include "msg.h"

static void vmessage(const char *prefix, const char *fmt, va_list ap)
{
	fputs(prefix, stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

/* An error: one line, "diskio: what went wrong". */
void fail(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmessage("diskio: ", fmt, ap);
	va_end(ap);
}

/* Something diskio goes on without. */
void warn(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmessage("diskio: warning: ", fmt, ap);
	va_end(ap);
}


/* What the output cannot show, and how to change that. */
void note(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmessage("diskio: note: ", fmt, ap);
	va_end(ap);
}
