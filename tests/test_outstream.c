// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the stream diskio's view writes to (lib/outstream.c), on
 * real pipes: a reader that keeps up, one that went away, one that never
 * reads while a signal asks diskio to stop, and one that reads late but
 * within the grace.  No root.
 */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "outstream.h"

#define MS	1000000ULL
/* More than a pipe holds (64 KiB by default): the writer must wait. */
#define LINES	20000
#define LINE	"0123456789abcdefghijklmnopqrstuvwxyz0123456789\n"	/* 47 bytes */

static struct outstream stream;

static void stop_stream(int sig)
{
	(void)sig;
	outstream_stop(&stream);
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/* A signal in ms milliseconds, as Ctrl-C would come: no SA_RESTART, as
 * diskio's own handlers. */
static void signal_in(int ms)
{
	struct sigaction action = { .sa_handler = stop_stream };
	struct itimerval when = { .it_value = { .tv_sec = ms / 1000, .tv_usec = (ms % 1000) * 1000 } };

	cr_assert_eq(sigaction(SIGALRM, &action, NULL), 0);
	cr_assert_eq(setitimer(ITIMER_REAL, &when, NULL), 0);
}

/* Everything the pipe holds, without waiting. */
static size_t drain(int fd, size_t *lines)
{
	char buf[65536];
	size_t total = 0;
	ssize_t n;

	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
	while ((n = read(fd, buf, sizeof(buf))) > 0) {
		for (ssize_t i = 0; i < n; i++)
			*lines += buf[i] == '\n';
		total += (size_t)n;
	}
	return total;
}

static void write_lines(FILE *out, int n)
{
	for (int i = 0; i < n; i++)
		fputs(LINE, out);
}

Test(outstream, a_reader_that_keeps_up_gets_every_byte)
{
	int fds[2];
	size_t lines = 0;

	cr_assert_eq(pipe(fds), 0);
	cr_assert_eq(outstream_open(&stream, fds[1], 100 * MS), 0);
	write_lines(stream.file, 100);
	cr_assert_eq(outstream_flush(&stream), 0);
	cr_assert_eq(drain(fds[0], &lines), 100 * strlen(LINE));
	cr_assert_eq(lines, 100);
	cr_assert_eq(outstream_close(&stream), 0);
	cr_assert_eq(stream.lines_dropped, 0);
	cr_assert_eq(fcntl(fds[1], F_GETFL) & O_NONBLOCK, 0, "the descriptor's flags are untouched");
	close(fds[0]);
	close(fds[1]);
}

Test(outstream, a_reader_gone_is_epipe_not_another_calls_errno)
{
	int fds[2];

	signal(SIGPIPE, SIG_IGN);
	cr_assert_eq(pipe(fds), 0);
	close(fds[0]);
	cr_assert_eq(outstream_open(&stream, fds[1], 100 * MS), 0);
	write_lines(stream.file, 3);
	errno = ENOENT;		/* what another call left: never reported */
	cr_assert_eq(outstream_flush(&stream), -EPIPE);
	/* What follows is dropped at once, never written after a gap. */
	write_lines(stream.file, 2);
	cr_assert_eq(outstream_close(&stream), -EPIPE);
	cr_assert_eq(stream.lines_dropped, 5);
	close(fds[1]);
}

/*
 * diskio -T | (sleep 15; cat): the pipe is full and nobody reads.  The
 * writes wait, as they should, until a signal asks diskio to stop; then the
 * rest waits at most the grace, and every line is either in the pipe, whole,
 * or counted as dropped (a line cut in the middle is dropped).
 */
Test(outstream, a_pipe_nobody_reads_holds_a_signal_only_for_the_grace, .timeout = 10)
{
	int fds[2];
	size_t lines = 0, bytes;
	uint64_t signalled, done;

	cr_assert_eq(pipe(fds), 0);
	cr_assert_eq(outstream_open(&stream, fds[1], 200 * MS), 0);
	signal_in(100);
	write_lines(stream.file, LINES);
	signalled = now_ns();
	cr_assert_eq(outstream_flush(&stream), -ETIMEDOUT);
	write_lines(stream.file, 7);		/* the summary, after the grace */
	cr_assert_eq(outstream_close(&stream), -ETIMEDOUT);
	done = now_ns();
	/* The signal came at about 100 ms; the grace is 200 ms after it. */
	cr_assert_lt(done - signalled, 2000 * MS, "held %llu ms",
		     (unsigned long long)((done - signalled) / MS));
	bytes = drain(fds[0], &lines);
	cr_assert_gt(bytes, 0, "the pipe took what it holds");
	cr_assert_lt(lines, LINES);
	cr_assert_eq(lines + stream.lines_dropped, LINES + 7,
		     "%zu lines in the pipe, %llu dropped", lines,
		     (unsigned long long)stream.lines_dropped);
	cr_assert_eq(fcntl(fds[1], F_GETFL) & O_NONBLOCK, 0, "the flags are put back");
	close(fds[0]);
	close(fds[1]);
}

/* A reader that starts late, within the grace, gets everything. */
Test(outstream, a_late_reader_within_the_grace_gets_every_line, .timeout = 10)
{
	int fds[2], status;
	pid_t reader;

	cr_assert_eq(pipe(fds), 0);
	reader = fork();
	cr_assert_neq(reader, -1);
	if (reader == 0) {
		char buf[65536];
		size_t lines = 0;
		ssize_t n;

		close(fds[1]);
		usleep(150 * 1000);
		while ((n = read(fds[0], buf, sizeof(buf))) > 0)
			for (ssize_t i = 0; i < n; i++)
				lines += buf[i] == '\n';
		_exit(lines == LINES ? 0 : 1);
	}
	close(fds[0]);
	cr_assert_eq(outstream_open(&stream, fds[1], 3000 * MS), 0);
	outstream_stop(&stream);	/* asked to stop before the last records */
	write_lines(stream.file, LINES);
	cr_assert_eq(outstream_close(&stream), 0);
	cr_assert_eq(stream.lines_dropped, 0);
	close(fds[1]);
	cr_assert_eq(waitpid(reader, &status, 0), reader);
	cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0, "the reader missed lines");
}
