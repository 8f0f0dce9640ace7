// SPDX-License-Identifier: GPL-2.0
/* Closed standard descriptors onto /dev/null (std_fds.h). */
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>
#include "std_fds.h"

int std_fds_reopen(void)
{
	for (int fd = STDIN_FILENO; fd <= STDERR_FILENO; fd++) {
		int null_fd;

		if (fcntl(fd, F_GETFD) != -1 || errno != EBADF)
			continue;
		null_fd = open("/dev/null", fd == STDIN_FILENO ? O_RDONLY : O_WRONLY);
		if (null_fd < 0)
			return -1;
		/* The lowest free fd: this one, the lower ones are open by now. */
		if (null_fd != fd)
			return -1;
	}
	return 0;
}
