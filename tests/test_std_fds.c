// SPDX-License-Identifier: GPL-2.0
/* lib/std_fds.c: closed standard descriptors come back on /dev/null. */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "std_fds.h"

static bool is_dev_null(int fd)
{
	struct stat a, b;

	return !fstat(fd, &a) && !stat("/dev/null", &b) && a.st_rdev == b.st_rdev &&
	       S_ISCHR(a.st_mode);
}

/* In a child (the test's own descriptors stay): 0 and 2 closed, 1 open
 * on a pipe, which must stay where it is. */
Test(std_fds, closed_ones_are_dev_null_and_open_ones_stay)
{
	int pipefd[2], status;
	pid_t pid;

	cr_assert_eq(pipe(pipefd), 0);
	pid = fork();
	cr_assert_geq(pid, 0);
	if (!pid) {
		if (dup2(pipefd[1], STDOUT_FILENO) < 0)
			_exit(10);
		close(pipefd[0]);
		close(pipefd[1]);
		close(STDIN_FILENO);
		close(STDERR_FILENO);
		if (std_fds_reopen())
			_exit(11);
		if (!is_dev_null(STDIN_FILENO) || !is_dev_null(STDERR_FILENO))
			_exit(12);
		if ((fcntl(STDIN_FILENO, F_GETFL) & O_ACCMODE) != O_RDONLY ||
		    (fcntl(STDERR_FILENO, F_GETFL) & O_ACCMODE) != O_WRONLY)
			_exit(13);
		if (is_dev_null(STDOUT_FILENO) || write(STDOUT_FILENO, "x", 1) != 1)
			_exit(14);
		_exit(0);
	}
	close(pipefd[1]);
	cr_assert_eq(waitpid(pid, &status, 0), pid);
	cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0, "child: status %d", status);
	{
		char c = 0;

		cr_assert_eq(read(pipefd[0], &c, 1), 1);
		cr_assert_eq(c, 'x');
	}
	close(pipefd[0]);
}
