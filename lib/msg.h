/* SPDX-License-Identifier: GPL-2.0 */
/* diskio's messages on stderr: one line each, "diskio: ...". */
#ifndef DISKIO_MSG_H
#define DISKIO_MSG_H

/* An error: what went wrong and what to do. */
void fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Something diskio goes on without: "diskio: warning: ...". */
void warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* What the output cannot show and how to change that: "diskio: note: ...". */
void note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif /* DISKIO_MSG_H */
