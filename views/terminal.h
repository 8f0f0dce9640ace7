/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The terminal under the top view: the alternate screen, keys read one at a
 * time without echo, SIGWINCH as a descriptor, and everything put back on
 * every way out (the normal end, SIGINT, SIGTERM, SIGHUP, exit(), a fatal
 * signal).  Messages on stderr meanwhile are held and shown after the
 * screen is restored.
 */
#ifndef DISKIO_TERMINAL_H
#define DISKIO_TERMINAL_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

struct terminal {
	int keys_fd;		/* stdin when it is a terminal, else -1 */
	int resize_fd;		/* a signalfd of SIGWINCH, -1 without one */
};

/* Take the terminal: keys without echo or line editing (stdin), the
 * alternate screen with the cursor hidden (stdout) when alternate_screen.
 * 0, or -1 after one "diskio: ..." line (nothing is left changed). */
int terminal_start(struct terminal *t, bool alternate_screen);

/* Bytes typed, after poll() said keys_fd is readable.  0 or less: the
 * terminal is gone (keys_fd is then -1). */
ssize_t terminal_read_keys(struct terminal *t, char *buf, size_t size);

/* After poll() said resize_fd is readable: consume the signal. */
void terminal_resized(struct terminal *t);

/* The terminal's size (of stdout); false when unknown. */
bool terminal_size(unsigned int *rows, unsigned int *cols);

/* Put everything back: typed-ahead keys discarded, the saved modes, the
 * normal screen and cursor, then the held messages.  Idempotent; stdout is
 * flushed first. */
void terminal_stop(struct terminal *t);

#endif /* DISKIO_TERMINAL_H */
