// SPDX-License-Identifier: GPL-2.0
/* Processes as /proc shows them (procfs.h). */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "path.h"
#include "procfs.h"
#include "scan.h"

/* A stat line is under 1 KiB; a status file under 2 KiB; a cgroup file
 * one line per hierarchy.  A command line is read this far: past
 * CMDLINE_MAX, only whether there is more matters. */
#define STAT_READ_MAX		4096
#define STATUS_READ_MAX		8192
#define CGROUP_READ_MAX		(PATH_MAX + 64)
#define CMDLINE_READ_MAX	(CMDLINE_MAX + 2)

/* The fields of a stat line after the name's ')': field 3 (state) is the
 * first; diskio reads four of them, the others are skipped whatever they
 * hold (rsslim, field 25, may be 2^64 - 1). */
#define STAT_FIRST_AFTER_NAME	3
#define STAT_FLAGS		9
#define STAT_NICE		19
#define STAT_START		22
#define STAT_POLICY		41

/* A signed decimal field ("-5"): what nice is. */
static bool scan_signed(const char **cursor, int64_t *value)
{
	const char *s = *cursor;
	bool negative = scan_char(&s, '-');
	uint64_t magnitude;

	if (!scan_decimal(&s, &magnitude) || magnitude > INT64_MAX)
		return false;
	*value = negative ? -(int64_t)magnitude : (int64_t)magnitude;
	*cursor = s;
	return true;
}

bool proc_stat_parse(const char *text, size_t len, struct proc_stat *st)
{
	char line[STAT_READ_MAX];
	const char *open, *close, *s;
	size_t name_len;
	bool have_start = false;

	if (len >= sizeof(line) || memchr(text, '\0', len))
		return false;
	memcpy(line, text, len);
	line[len] = '\0';
	open = strchr(line, '(');
	close = strrchr(line, ')');
	if (!open || !close || close < open)
		return false;
	name_len = (size_t)(close - open - 1);
	if (name_len > PROC_NAME_MAX)
		name_len = PROC_NAME_MAX;
	memset(st, 0, sizeof(*st));
	memcpy(st->name, open + 1, name_len);
	st->name[name_len] = '\0';
	s = close + 1;
	for (int field = STAT_FIRST_AFTER_NAME; field <= STAT_POLICY; field++) {
		int64_t value = 0;

		if (!scan_char(&s, ' ') || !*s || *s == ' ')
			break;
		if (field != STAT_FLAGS && field != STAT_NICE && field != STAT_START &&
		    field != STAT_POLICY) {
			s += strcspn(s, " \n");	/* a field diskio does not read */
			continue;
		}
		if (!scan_signed(&s, &value) || (*s && *s != ' ' && *s != '\n'))
			return false;
		switch (field) {
		case STAT_FLAGS:
			st->flags = (uint32_t)value;
			break;
		case STAT_NICE:
			st->nice = value < -20 ? -20 : value > 19 ? 19 : (int)value;
			break;
		case STAT_START:
			if (value < 0)
				return false;
			st->start_ticks = (uint64_t)value;
			have_start = true;
			break;
		case STAT_POLICY:
			st->policy = value >= 0 && value < 256 ? (uint8_t)value : 0;
			break;
		}
	}
	return have_start;
}

/* The line of text[0..len) that starts with prefix: its rest, up to its
 * newline, into line (NUL-terminated, cut to size); false without one. */
static bool find_line(const char *text, size_t len, const char *prefix, char *line, size_t size)
{
	size_t plen = strlen(prefix);

	for (const char *at = text, *end = text + len; at < end;) {
		const char *newline = memchr(at, '\n', (size_t)(end - at));
		size_t line_len = (size_t)((newline ? newline : end) - at);

		if (line_len >= plen && !memcmp(at, prefix, plen)) {
			size_t rest = line_len - plen < size - 1 ? line_len - plen : size - 1;

			memcpy(line, at + plen, rest);
			line[rest] = '\0';
			return !memchr(line, '\0', rest);
		}
		at += line_len + 1;
	}
	return false;
}

bool proc_status_euid(const char *text, size_t len, uint32_t *uid)
{
	char line[128];
	const char *s = line;
	uint64_t real, effective;

	if (!find_line(text, len, "Uid:", line, sizeof(line)))
		return false;
	scan_blanks(&s);
	if (!scan_decimal(&s, &real))
		return false;
	scan_blanks(&s);
	if (!scan_decimal(&s, &effective) || effective > UINT32_MAX)
		return false;
	*uid = (uint32_t)effective;
	return true;
}

bool proc_cgroup_path(const char *text, size_t len, char *path, size_t size)
{
	return size && find_line(text, len, "0::", path, size) && path[0] == '/';
}

uint64_t proc_start_ticks(uint64_t start_ns, long ticks_per_s)
{
	if (ticks_per_s <= 0 || 1000000000L % ticks_per_s)
		return UINT64_MAX;	/* no rule to compare by: any start */
	return start_ns / (uint64_t)(1000000000L / ticks_per_s);
}

/* File name in directory dir_fd, its first size - 1 bytes at most, into
 * buf (NUL-terminated): their number, or -1. */
static ssize_t read_at(int dir_fd, const char *name, char *buf, size_t size)
{
	int fd = openat(dir_fd, name, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	size_t n = 0;

	if (fd < 0)
		return -1;
	while (n < size - 1) {
		ssize_t got = read(fd, buf + n, size - 1 - n);

		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			close(fd);
			return -1;
		}
		if (!got)
			break;
		n += (size_t)got;
	}
	close(fd);
	buf[n] = '\0';
	return (ssize_t)n;
}

/* dir_fd's stat line, parsed; false if it cannot be. */
static bool read_stat(int dir_fd, struct proc_stat *st)
{
	char text[STAT_READ_MAX];
	ssize_t n = read_at(dir_fd, "stat", text, sizeof(text));

	return n > 0 && proc_stat_parse(text, (size_t)n, st);
}

/* dir_fd's command line, joined into out: its length. */
static size_t read_cmdline(int dir_fd, char out[CMDLINE_SIZE])
{
	char args[CMDLINE_READ_MAX + 1];
	ssize_t n = read_at(dir_fd, "cmdline", args, sizeof(args));

	if (n <= 0) {
		out[0] = '\0';
		return 0;
	}
	/* a full buffer: there may be more than was read */
	return cmdline_join(args, (size_t)n, (size_t)n == CMDLINE_READ_MAX ? SIZE_MAX : (size_t)n,
			    out);
}

static int open_process_dir(const char *proc_root, uint32_t pid)
{
	char path[PATH_MAX];

	if (!build_path(path, "%s/%" PRIu32, proc_root, pid))
		return -1;
	return open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
}

size_t proc_cmdline(const char *proc_root, uint32_t pid, uint64_t start_ticks,
		    char out[CMDLINE_SIZE])
{
	struct proc_stat st;
	int dir_fd = pid ? open_process_dir(proc_root, pid) : -1;
	size_t len = 0;

	out[0] = '\0';
	if (dir_fd < 0)
		return 0;
	if (read_stat(dir_fd, &st) && (start_ticks == UINT64_MAX || st.start_ticks == start_ticks))
		len = read_cmdline(dir_fd, out);
	close(dir_fd);
	return len;
}

/* A worker's comm: its name without the work after its id's ':'
 * ("kworker/u8:1-flush-254:0" is "kworker/u8:1"), cut to what the kernel
 * keeps, as -c matches it. */
static void comm_of(const struct proc_stat *st, char comm[TASK_COMM_LEN])
{
	size_t len = strlen(st->name);
	const char *id = strchr(st->name, ':');

	if ((st->flags & PROC_PF_WQ_WORKER) && id)
		len = (size_t)(id - st->name) + strcspn(id, "+-");
	if (len > TASK_COMM_LEN - 1)
		len = TASK_COMM_LEN - 1;
	memcpy(comm, st->name, len);
	comm[len] = '\0';
}

struct scratch {
	char cmdline[CMDLINE_SIZE];
	char cgroup[CGROUP_READ_MAX];
	char text[STATUS_READ_MAX];
};

/* The task of directory dir_fd (id, of process tgid) to each(), whose
 * answer goes to *stop: 1 if it was listed, 0 if it was gone first. */
static int list_one(const struct proc_lister *l, int dir_fd, uint32_t id, uint32_t tgid,
		    struct scratch *s, int (*each)(const struct proc_entry *e, void *arg),
		    void *arg, int *stop)
{
	struct proc_entry e = { .pid = id, .tgid = tgid };
	struct proc_stat st;
	ssize_t n;
	int ioprio;

	if (!read_stat(dir_fd, &st))
		return 0;
	n = read_at(dir_fd, "status", s->text, sizeof(s->text));
	if (n <= 0 || !proc_status_euid(s->text, (size_t)n, &e.uid))
		return 0;
	comm_of(&st, e.comm);
	e.name = st.name;
	e.policy = st.policy;
	e.nice = st.nice;
	e.kthread = st.flags & PROC_PF_KTHREAD;
	e.start_ticks = st.start_ticks;
	ioprio = l->ioprio_of ? l->ioprio_of(id, l->ioprio_arg) : -1;
	e.ioprio = ioprio > 0 ? (uint16_t)ioprio : 0;
	read_cmdline(dir_fd, s->cmdline);
	e.cmdline = s->cmdline;
	if (l->cgroups) {
		n = read_at(dir_fd, "cgroup", s->text, sizeof(s->text));
		if (n > 0 && proc_cgroup_path(s->text, (size_t)n, s->cgroup, sizeof(s->cgroup)))
			e.cgroup = s->cgroup;
	}
	*stop = each(&e, arg);
	return 1;
}

/* A directory entry that is a number: a pid. */
static bool entry_pid(const struct dirent *d, uint32_t *pid)
{
	const char *s = d->d_name;
	uint64_t value;

	if (!scan_decimal(&s, &value) || *s || !value || value > UINT32_MAX)
		return false;
	*pid = (uint32_t)value;
	return true;
}

/* Every thread of process tgid (its directory dir_fd). */
static int list_threads(const struct proc_lister *l, int dir_fd, uint32_t tgid,
			struct scratch *s, int (*each)(const struct proc_entry *e, void *arg),
			void *arg, int *stop)
{
	int task_fd = openat(dir_fd, "task", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *dir = task_fd >= 0 ? fdopendir(task_fd) : NULL;
	struct dirent *d;
	int listed = 0;

	if (!dir) {
		if (task_fd >= 0)
			close(task_fd);
		return 0;
	}
	while (!*stop && (d = readdir(dir))) {
		uint32_t tid;
		int thread_fd;

		if (!entry_pid(d, &tid))
			continue;
		thread_fd = openat(dirfd(dir), d->d_name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (thread_fd < 0)
			continue;
		listed += list_one(l, thread_fd, tid, tgid, s, each, arg, stop);
		close(thread_fd);
	}
	closedir(dir);
	return listed;
}

int proc_list(const struct proc_lister *l, int (*each)(const struct proc_entry *e, void *arg),
	      void *arg)
{
	DIR *dir = opendir(l->proc_root);
	struct scratch *s;
	struct dirent *d;
	int listed = 0, stop = 0;

	if (!dir)
		return -errno;
	s = malloc(sizeof(*s));
	if (!s) {
		closedir(dir);
		return -ENOMEM;
	}
	while (!stop && (d = readdir(dir))) {
		uint32_t pid;
		int dir_fd;

		if (!entry_pid(d, &pid))
			continue;
		dir_fd = openat(dirfd(dir), d->d_name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (dir_fd < 0)
			continue;
		if (l->threads)
			listed += list_threads(l, dir_fd, pid, s, each, arg, &stop);
		else
			listed += list_one(l, dir_fd, pid, pid, s, each, arg, &stop);
		close(dir_fd);
	}
	free(s);
	closedir(dir);
	return listed;
}
