// SPDX-License-Identifier: GPL-2.0
/* A command run for diskio in a group of its own (command.h). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include "command.h"

void command_init(struct command *c)
{
	memset(c, 0, sizeof(*c));
	c->pidfd = -1;
}

int command_make_group(struct command *c, const char *mount, char *rel, size_t size, FILE *err)
{
	int n = snprintf(rel, size, "/diskio-command-%d", (int)getpid());

	if (!mount[0]) {
		fprintf(err, "diskio: -- COMMAND follows the command in a cgroup v2 group, and no "
			"cgroup2 hierarchy is mounted; give --all to count the whole machine\n");
		return -ENOENT;
	}
	if (n < 0 || (size_t)n >= size ||
	    (size_t)snprintf(c->group, sizeof(c->group), "%s%s", mount, rel) >= sizeof(c->group))
		return -ENAMETOOLONG;
	if (mkdir(c->group, 0755) && errno != EEXIST) {
		int e = errno;

		fprintf(err, "diskio: cannot make the command's cgroup %s: %s; give --all to count "
			"the whole machine\n", c->group, strerror(e));
		c->group[0] = '\0';
		return -e;
	}
	return 0;
}

/* In the child: into the group, signals as a shell leaves them, then exec.
 * What fails is sent up the pipe as an errno (and where). */
static void run_child(const struct command *c, char *const argv[], int report)
{
	enum { STEP_GROUP, STEP_EXEC };
	int step[2] = { 0, 0 };
	sigset_t none;

	signal(SIGPIPE, SIG_DFL);
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	signal(SIGHUP, SIG_DFL);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	if (c->group[0]) {
		char procs[PATH_MAX + 16];
		int fd;

		snprintf(procs, sizeof(procs), "%s/cgroup.procs", c->group);
		fd = open(procs, O_WRONLY | O_CLOEXEC);
		if (fd < 0 || write(fd, "0", 1) != 1) {
			step[0] = STEP_GROUP;
			step[1] = errno;
			if (write(report, step, sizeof(step)) < 0)
				_exit(127);
			_exit(127);
		}
		close(fd);
	}
	execvp(argv[0], argv);
	step[0] = STEP_EXEC;
	step[1] = errno;
	if (write(report, step, sizeof(step)) < 0)
		_exit(127);
	_exit(errno == ENOENT ? 127 : 126);
}

int command_start(struct command *c, char *const argv[], FILE *err)
{
	int fds[2], step[2];
	ssize_t n;
	pid_t pid;

	if (pipe2(fds, O_CLOEXEC))
		return -errno;
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		int e = errno;

		close(fds[0]);
		close(fds[1]);
		fprintf(err, "diskio: cannot start %s: %s\n", argv[0], strerror(e));
		return -e;
	}
	if (pid == 0) {
		close(fds[0]);
		run_child(c, argv, fds[1]);
	}
	close(fds[1]);
	c->pid = pid;
	/* EOF: the exec succeeded (the pipe closed on exec) */
	do
		n = read(fds[0], step, sizeof(step));
	while (n < 0 && errno == EINTR);
	close(fds[0]);
	if (n == (ssize_t)sizeof(step)) {
		command_reap(c, true);
		fprintf(err, step[0] ? "diskio: cannot run %s: %s\n" :
			"diskio: cannot put %s in its cgroup: %s\n", argv[0], strerror(step[1]));
		return -step[1];
	}
	c->pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
	return 0;
}

bool command_reap(struct command *c, bool wait)
{
	int status;
	pid_t got;

	if (c->exited || !c->pid)
		return c->exited;
	do
		got = waitpid(c->pid, &status, wait ? 0 : WNOHANG);
	while (got < 0 && errno == EINTR);
	if (got == c->pid) {
		c->exited = true;
		c->status = status;
	}
	return c->exited;
}

int command_exit_status(const struct command *c)
{
	if (WIFEXITED(c->status))
		return WEXITSTATUS(c->status);
	if (WIFSIGNALED(c->status))
		return 128 + WTERMSIG(c->status);
	return 1;
}

void command_free(struct command *c, FILE *err)
{
	if (c->pidfd >= 0)
		close(c->pidfd);
	c->pidfd = -1;
	if (c->group[0] && rmdir(c->group) && errno != ENOENT)
		fprintf(err, "diskio: the command left processes running in %s (%s); it stays\n",
			c->group, strerror(errno));
	c->group[0] = '\0';
}
