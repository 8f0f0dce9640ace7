/* SPDX-License-Identifier: GPL-2.0 */
/*
 * I/O pressure (issue 45): /proc/pressure/io, the share of time some task
 * (some) or every non-idle task (full) was stalled on I/O, as the kernel's
 * PSI counts it (Documentation/accounting/psi.rst).  Its total= fields are
 * running totals in microseconds: an interval's pressure is their change
 * over the interval's length.  A cgroup v2 group has the same file,
 * io.pressure, counting its own tasks' stalls (the mount is a parameter, so
 * that tests use trees of their own).  No libbpf; unit-tested without root.
 */
#ifndef DISKIO_PRESSURE_H
#define DISKIO_PRESSURE_H

#include <stdbool.h>
#include <stdint.h>

struct io_pressure {
	bool known;		/* read and parsed */
	uint64_t some_us;	/* "some" total= */
	uint64_t full_us;	/* "full" total= (0 on kernels before 5.13 without it) */
};

/* A stall as shown: percents of a span of some task and every task
 * stalled; known false when it could not be measured. */
struct pressure_share {
	bool known;
	double some_pct, full_pct;
};

/* The text of a pressure file into *out: 0, or -EINVAL when it has no
 * "some ... total=N" line (out->known false). */
int pressure_parse(const char *text, struct io_pressure *out);

/* path (/proc/pressure/io) read and parsed: 0, or -errno (no PSI: the file
 * is missing, or reading it fails with EOPNOTSUPP when psi=0). */
int pressure_read(const char *path, struct io_pressure *out);

/* The stall between two readings as percents of ns nanoseconds, capped at
 * 100: false when either reading is unknown or ns is 0. */
bool pressure_pct(const struct io_pressure *before, const struct io_pressure *now, uint64_t ns,
		  double *some_pct, double *full_pct);

/* The io.pressure of the cgroup v2 group at path (relative to mount: "/",
 * "/system.slice/x.service") into *out: 0, or -errno (no such group; no
 * file: the root group on kernels before 5.2, or cgroup.pressure 0; a text
 * pressure_parse() refuses: -EINVAL). */
int cgroup_pressure_read(const char *mount, const char *path, struct io_pressure *out);

/* Every group under mount, its id (its directory's inode number, as
 * cgroups.h's) and its io.pressure as read now (out->known false when it
 * cannot be), handed to visit.  The number of groups visited, or -errno
 * when the mount cannot be walked. */
int cgroup_pressure_walk(const char *mount,
			 void (*visit)(uint64_t id, const struct io_pressure *p, void *arg),
			 void *arg);

#endif /* DISKIO_PRESSURE_H */
