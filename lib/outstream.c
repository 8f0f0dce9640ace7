// SPDX-License-Identifier: GPL-2.0
/* A FILE whose writes a stop request bounds (outstream.h). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "outstream.h"

static uint64_t monotonic_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static uint64_t count_lines(const char *buf, size_t size)
{
	uint64_t n = 0;

	for (const char *p = buf; (p = memchr(p, '\n', size - (size_t)(p - buf))); p++)
		n++;
	return n;
}

/* After outstream_stop(): wait until fd takes bytes again or the deadline
 * passes (false). */
static bool wait_writable(struct outstream *o)
{
	for (;;) {
		uint64_t now = monotonic_ns();
		struct pollfd pfd = { .fd = o->fd, .events = POLLOUT };
		int timeout_ms;

		if (now >= o->deadline_ns)
			return false;
		timeout_ms = (int)((o->deadline_ns - now + 999999) / 1000000);
		if (poll(&pfd, 1, timeout_ms) > 0)
			return true;	/* writable, or an error the write will tell */
		/* a signal (EINTR) or the timeout: the clock decides */
	}
}

/*
 * glibc hands over what the view buffered.  All of it is taken (returned as
 * written) so that stdio keeps no error state of its own: what could not be
 * written is dropped and counted here, and the reason kept.  Before
 * outstream_stop() a write blocks as long as the reader is slow; a signal
 * interrupts it (the handlers have no SA_RESTART), and the loop then finds
 * the stream stopping, the descriptor non-blocking, and waits by the clock.
 */
static ssize_t cookie_write(void *cookie, const char *buf, size_t size)
{
	struct outstream *o = cookie;
	size_t done = 0;

	while (done < size && !o->error && !o->timed_out) {
		ssize_t n;

		if (o->stopping && !wait_writable(o)) {
			o->timed_out = true;
			break;
		}
		n = write(o->fd, buf + done, size - done);
		if (n > 0)
			done += (size_t)n;
		else if (n < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		else
			o->error = n < 0 ? errno : EIO;
	}
	o->lines_dropped += count_lines(buf + done, size - done);
	return (ssize_t)size;
}

int outstream_open(struct outstream *o, int fd, uint64_t grace_ns)
{
	static const cookie_io_functions_t io = { .write = cookie_write };
	int flags = fcntl(fd, F_GETFL);

	memset(o, 0, sizeof(*o));
	if (flags < 0)
		return -errno;
	o->fd = fd;
	o->fd_flags = flags;
	o->grace_ns = grace_ns;
	o->file = fopencookie(o, "w", io);
	return o->file ? 0 : -errno;
}

void outstream_stop(struct outstream *o)
{
	int saved_errno = errno;

	if (o->stopping || o->closed || !o->file)
		return;
	o->deadline_ns = monotonic_ns() + o->grace_ns;
	/* A write about to start no longer blocks; one blocked now returns
	 * with EINTR or what it wrote. */
	fcntl(o->fd, F_SETFL, o->fd_flags | O_NONBLOCK);
	o->stopping = 1;
	errno = saved_errno;
}

static int stream_error(const struct outstream *o)
{
	if (o->error)
		return -o->error;
	return o->timed_out ? -ETIMEDOUT : 0;
}

int outstream_flush(struct outstream *o)
{
	fflush(o->file);
	return stream_error(o);
}

int outstream_close(struct outstream *o)
{
	if (!o->file)
		return 0;
	fclose(o->file);	/* its last bytes go through cookie_write() */
	o->closed = 1;
	if (o->stopping)
		fcntl(o->fd, F_SETFL, o->fd_flags);
	o->file = NULL;
	return stream_error(o);
}
