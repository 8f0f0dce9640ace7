// SPDX-License-Identifier: GPL-2.0
/* The terminal under the top view (terminal.h). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <langinfo.h>
#include <locale.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/signalfd.h>
#include <termios.h>
#include <unistd.h>
#include "msg.h"
#include "terminal.h"

#define ENTER_SCREEN	"\033[?1049h\033[H\033[2J\033[?25l"
#define LEAVE_SCREEN	"\033[?25h\033[?1049l"

/* What to put back, where a signal handler can reach it.  restore_taken()
 * only calls async-signal-safe functions. */
static struct {
	volatile sig_atomic_t taken;
	int keys_fd;			/* whose modes were saved; -1: none */
	struct termios saved;
	bool alternate_screen;
	int stderr_fd;			/* the real stderr while messages are held */
	int held_fd;			/* the messages held */
	bool winch_blocked;
	sigset_t saved_mask;
} held = { .keys_fd = -1, .stderr_fd = -1, .held_fd = -1 };

static const int fatal_signals[] = { SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT };

static void write_all(int fd, const char *buf, size_t len)
{
	while (len) {
		ssize_t n = write(fd, buf, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return;
		buf += n;
		len -= n;
	}
}

/* The held messages go to the real stderr. */
static void release_stderr(void)
{
	char buf[4096];
	ssize_t n;

	if (held.stderr_fd < 0)
		return;
	dup2(held.stderr_fd, STDERR_FILENO);
	close(held.stderr_fd);
	held.stderr_fd = -1;
	if (lseek(held.held_fd, 0, SEEK_SET) == 0)
		while ((n = read(held.held_fd, buf, sizeof(buf))) > 0)
			write_all(STDERR_FILENO, buf, n);
	close(held.held_fd);
	held.held_fd = -1;
}

static void restore_taken(void)
{
	int saved_errno = errno;

	if (!held.taken)
		return;
	held.taken = 0;
	if (held.keys_fd >= 0) {
		/* Keys typed but not read would reach the shell. */
		tcflush(held.keys_fd, TCIFLUSH);
		tcsetattr(held.keys_fd, TCSANOW, &held.saved);
		held.keys_fd = -1;
	}
	if (held.alternate_screen) {
		write_all(STDOUT_FILENO, LEAVE_SCREEN, strlen(LEAVE_SCREEN));
		held.alternate_screen = false;
	}
	release_stderr();
	errno = saved_errno;
}

/* A crash leaves the terminal as it found it, then crashes as it would have. */
static void on_fatal_signal(int sig)
{
	restore_taken();
	signal(sig, SIG_DFL);
	raise(sig);
}

static void restore_at_exit(void)
{
	fflush(NULL);		/* the view's stream, before the screen goes */
	restore_taken();
}

/* Messages on stderr, when it is the terminal, wait in memory: written
 * now they would vanish with the alternate screen. */
static void hold_stderr(void)
{
	int memory_fd;

	if (!isatty(STDERR_FILENO))
		return;
	memory_fd = memfd_create("diskio-stderr", MFD_CLOEXEC);
	if (memory_fd < 0)
		return;
	held.stderr_fd = fcntl(STDERR_FILENO, F_DUPFD_CLOEXEC, 3);
	if (held.stderr_fd < 0 || dup2(memory_fd, STDERR_FILENO) < 0) {
		if (held.stderr_fd >= 0)
			close(held.stderr_fd);
		held.stderr_fd = -1;
		close(memory_fd);
		return;
	}
	held.held_fd = memory_fd;
}

/* SIGWINCH as a descriptor to poll, next to the events and the keys. */
static int open_resize_fd(void)
{
	sigset_t winch;
	int fd;

	sigemptyset(&winch);
	sigaddset(&winch, SIGWINCH);
	if (sigprocmask(SIG_BLOCK, &winch, &held.saved_mask))
		return -1;
	fd = signalfd(-1, &winch, SFD_NONBLOCK | SFD_CLOEXEC);
	if (fd < 0) {
		sigprocmask(SIG_SETMASK, &held.saved_mask, NULL);
		return -1;
	}
	held.winch_blocked = true;
	return fd;
}

int terminal_start(struct terminal *t, bool alternate_screen)
{
	struct sigaction fatal = { .sa_handler = on_fatal_signal };
	static bool at_exit_set;
	struct termios keys;

	t->keys_fd = -1;
	t->resize_fd = -1;
	if (isatty(STDIN_FILENO)) {
		if (tcgetattr(STDIN_FILENO, &held.saved)) {
			fail("cannot read the terminal's modes: %s", strerror(errno));
			return -1;
		}
		keys = held.saved;
		/* Keys as they are typed, not echoed; Ctrl-C still interrupts,
		 * Ctrl-Z would leave a stopped diskio holding the screen. */
		keys.c_lflag &= ~(ICANON | ECHO);
		keys.c_cc[VMIN] = 1;
		keys.c_cc[VTIME] = 0;
		keys.c_cc[VSUSP] = _POSIX_VDISABLE;
		if (tcsetattr(STDIN_FILENO, TCSANOW, &keys)) {
			fail("cannot set the terminal's modes: %s", strerror(errno));
			return -1;
		}
		held.keys_fd = STDIN_FILENO;
		t->keys_fd = STDIN_FILENO;
	}
	held.taken = 1;
	if (!at_exit_set) {
		atexit(restore_at_exit);
		at_exit_set = true;
	}
	for (size_t i = 0; i < sizeof(fatal_signals) / sizeof(fatal_signals[0]); i++)
		sigaction(fatal_signals[i], &fatal, NULL);
	if (alternate_screen) {
		write_all(STDOUT_FILENO, ENTER_SCREEN, strlen(ENTER_SCREEN));
		held.alternate_screen = true;
	}
	hold_stderr();
	t->resize_fd = open_resize_fd();
	return 0;
}

ssize_t terminal_read_keys(struct terminal *t, char *buf, size_t size)
{
	ssize_t n;

	do
		n = read(t->keys_fd, buf, size);
	while (n < 0 && errno == EINTR);
	if (n <= 0)
		t->keys_fd = -1;
	return n;
}

void terminal_resized(struct terminal *t)
{
	struct signalfd_siginfo info;

	while (read(t->resize_fd, &info, sizeof(info)) == sizeof(info))
		;
}

bool terminal_size(unsigned int *rows, unsigned int *cols)
{
	struct winsize ws;

	if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) || !ws.ws_row || !ws.ws_col)
		return false;
	*rows = ws.ws_row;
	*cols = ws.ws_col;
	return true;
}

void terminal_stop(struct terminal *t)
{
	fflush(NULL);		/* the view's stream, before the screen goes */
	restore_taken();
	if (t->resize_fd >= 0) {
		close(t->resize_fd);
		t->resize_fd = -1;
	}
	if (held.winch_blocked) {
		sigprocmask(SIG_SETMASK, &held.saved_mask, NULL);
		held.winch_blocked = false;
	}
	t->keys_fd = -1;
}
