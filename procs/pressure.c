// SPDX-License-Identifier: GPL-2.0
/* /proc/pressure/io and a cgroup's io.pressure (pressure.h). */
#include <errno.h>
#include <fcntl.h>
#include <fts.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pressure.h"

/* The total= of the line starting with kind ("some", "full"). */
static bool line_total(const char *text, const char *kind, uint64_t *total)
{
	size_t len = strlen(kind);

	for (const char *line = text; line && *line;) {
		const char *eol = strchr(line, '\n'), *at;

		if (!strncmp(line, kind, len) && line[len] == ' ') {
			at = strstr(line, " total=");
			if (at && (!eol || at < eol)) {
				char *end;

				errno = 0;
				*total = strtoull(at + 7, &end, 10);
				return !errno && end != at + 7 && (*end == '\n' || !*end);
			}
			return false;
		}
		line = eol ? eol + 1 : NULL;
	}
	return false;
}

int pressure_parse(const char *text, struct io_pressure *out)
{
	out->known = false;
	out->some_us = out->full_us = 0;
	if (!line_total(text, "some", &out->some_us))
		return -EINVAL;
	if (!line_total(text, "full", &out->full_us))
		out->full_us = 0;
	out->known = true;
	return 0;
}

int pressure_read(const char *path, struct io_pressure *out)
{
	char text[512];
	ssize_t n;
	int fd;

	out->known = false;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, text, sizeof(text) - 1);
	if (n < 0) {
		int err = -errno;

		close(fd);
		return err;
	}
	close(fd);
	text[n] = '\0';
	return pressure_parse(text, out);
}

int cgroup_pressure_read(const char *mount, const char *path, struct io_pressure *out)
{
	char file[PATH_MAX];

	out->known = false;
	if (snprintf(file, sizeof(file), "%s%s/io.pressure", mount,
		     strcmp(path, "/") ? path : "") >= (int)sizeof(file))
		return -ENAMETOOLONG;
	return pressure_read(file, out);
}

int cgroup_pressure_walk(const char *mount,
			 void (*visit)(uint64_t id, const struct io_pressure *p, void *arg),
			 void *arg)
{
	char *const roots[] = { (char *)mount, NULL };
	/* one filesystem, no symbolic link followed, no chdir() */
	FTS *walk = fts_open(roots, FTS_PHYSICAL | FTS_XDEV | FTS_NOCHDIR, NULL);
	FTSENT *entry;
	int groups = 0;

	if (!walk)
		return -errno;
	while ((entry = fts_read(walk))) {
		struct io_pressure p;
		char file[PATH_MAX];

		if (entry->fts_info != FTS_D)
			continue;
		if (snprintf(file, sizeof(file), "%s/io.pressure", entry->fts_path) <
		    (int)sizeof(file))
			pressure_read(file, &p);
		else
			p.known = false;
		visit(entry->fts_statp->st_ino, &p, arg);
		groups++;
	}
	fts_close(walk);
	return groups;
}

static double percent(uint64_t before, uint64_t now, uint64_t ns)
{
	double pct = now > before ? (double)(now - before) * 1e5 / (double)ns : 0.0;

	return pct > 100.0 ? 100.0 : pct;
}

bool pressure_pct(const struct io_pressure *before, const struct io_pressure *now, uint64_t ns,
		  double *some_pct, double *full_pct)
{
	if (!before->known || !now->known || !ns)
		return false;
	*some_pct = percent(before->some_us, now->some_us, ns);
	*full_pct = percent(before->full_us, now->full_us, ns);
	return true;
}
