/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The stream diskio's view writes to: a FILE over a descriptor (stdout)
 * whose writes wait for a slow reader, as writing to a pipe should, until
 * diskio is asked to stop.  From then on the rest waits at most a grace
 * period after the request; what the reader has not taken by then is
 * dropped and counted in lines, so that a reader that stopped reading
 * (`diskio -T | (sleep 60; cat)`) never holds a signal.
 *
 * Errors are the stream's own: the errno of the write that failed is kept
 * where it happened, so that no message carries an errno of another call.
 * Once a write has failed or the grace has run out, the rest is dropped
 * at once (and counted), never written after a gap.
 */
#ifndef DISKIO_OUTSTREAM_H
#define DISKIO_OUTSTREAM_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

struct outstream {
	FILE *file;			/* what the view writes to */
	int fd;
	int fd_flags;			/* as found: put back by outstream_close() */
	uint64_t grace_ns;
	volatile sig_atomic_t stopping;	/* outstream_stop() was called */
	volatile sig_atomic_t closed;
	volatile uint64_t deadline_ns;	/* CLOCK_MONOTONIC, set before stopping */
	int error;			/* errno of the write that failed; 0: none */
	bool timed_out;			/* the grace ran out with bytes left */
	uint64_t lines_dropped;		/* lines not written, whole or in part */
};

/* A stream over fd (which stays open: it is the caller's).  0, or -errno. */
int outstream_open(struct outstream *o, int fd, uint64_t grace_ns);

/* From now on, writes wait at most until grace_ns from now.  Async-signal-
 * safe (clock_gettime, fcntl): a signal handler calls it, and a write
 * blocked at that moment returns at once to wait by the deadline. */
void outstream_stop(struct outstream *o);

/* Write what the view buffered.  0 when all of it is written so far, else
 * why not: -EPIPE (the reader went away), -ETIMEDOUT (not read within the
 * grace after outstream_stop()), or the -errno of the write that failed. */
int outstream_flush(struct outstream *o);

/* Flush, close the FILE, put the descriptor's flags back; as
 * outstream_flush().  o->lines_dropped then counts every line not written. */
int outstream_close(struct outstream *o);

#endif /* DISKIO_OUTSTREAM_H */
