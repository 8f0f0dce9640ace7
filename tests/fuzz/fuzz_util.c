// SPDX-License-Identifier: GPL-2.0
/* Helpers of the libFuzzer targets: see fuzz_util.h. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fuzz_util.h"

static char scratch_dir[PATH_MAX];

void fuzz_fail(const char *file, int line, const char *cond, const char *fmt, ...)
{
	va_list args;

	/* fd 2 directly: stderr may be swapped or closed by a target. */
	dprintf(STDERR_FILENO, "%s:%d: check failed: %s: ", file, line, cond);
	va_start(args, fmt);
	vdprintf(STDERR_FILENO, fmt, args);
	va_end(args);
	dprintf(STDERR_FILENO, "\n");
	abort();
}

static void remove_tree(const char *path, int keep_top)
{
	struct stat st;
	DIR *dir;
	struct dirent *entry;
	char child[PATH_MAX];

	if (lstat(path, &st))
		return;
	if (S_ISDIR(st.st_mode)) {
		dir = opendir(path);
		if (dir) {
			while ((entry = readdir(dir))) {
				if (!strcmp(entry->d_name, ".") || !strcmp(entry->d_name, ".."))
					continue;
				if (snprintf(child, sizeof(child), "%s/%s", path, entry->d_name) <
				    (int)sizeof(child))
					remove_tree(child, 0);
			}
			closedir(dir);
		}
		if (!keep_top)
			rmdir(path);
	} else {
		unlink(path);
	}
}

void fuzz_empty_dir(const char *dir)
{
	remove_tree(dir, 1);
}

static void remove_scratch_dir(void)
{
	if (scratch_dir[0])
		remove_tree(scratch_dir, 0);
}

const char *fuzz_scratch_dir(void)
{
	const char *base = getenv("TMPDIR");

	if (!base || !*base)
		base = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";

	if (scratch_dir[0])
		return scratch_dir;
	snprintf(scratch_dir, sizeof(scratch_dir), "%s/diskio-fuzz.XXXXXX", base);
	if (!mkdtemp(scratch_dir))
		fuzz_fail(__FILE__, __LINE__, "mkdtemp", "%s: %s", scratch_dir, strerror(errno));
	atexit(remove_scratch_dir);
	return scratch_dir;
}

void fuzz_write_file(const char *path, const uint8_t *data, size_t len)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
	size_t done = 0;

	if (fd < 0)
		fuzz_fail(__FILE__, __LINE__, "open", "%s: %s", path, strerror(errno));
	while (done < len) {
		ssize_t wrote = write(fd, data + done, len - done);

		if (wrote < 0 && errno == EINTR)
			continue;
		if (wrote <= 0)
			fuzz_fail(__FILE__, __LINE__, "write", "%s: %s", path, strerror(errno));
		done += (size_t)wrote;
	}
	if (close(fd))
		fuzz_fail(__FILE__, __LINE__, "close", "%s: %s", path, strerror(errno));
}

#define MAX_LEN_FLAG "-max_len="
#define MAX_ARGS 256

void fuzz_raise_max_len(int *argc, char ***argv, int max_len)
{
	static char *args[MAX_ARGS + 2];
	static char flag[sizeof(MAX_LEN_FLAG) + 16];
	bool has_max_len = false;
	int n = 0;

	if (*argc > MAX_ARGS)
		return;
	snprintf(flag, sizeof(flag), "%s%d", MAX_LEN_FLAG, max_len);
	for (int i = 0; i < *argc; i++) {
		const char *arg = (*argv)[i];

		if (i && !strncmp(arg, MAX_LEN_FLAG, strlen(MAX_LEN_FLAG))) {
			if (atol(arg + strlen(MAX_LEN_FLAG)) < max_len)
				continue;
			has_max_len = true;
		}
		args[n++] = (*argv)[i];
	}
	if (!has_max_len)
		args[n++] = flag;
	args[n] = NULL;
	*argc = n;
	*argv = args;
}
