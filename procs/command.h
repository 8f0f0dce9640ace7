/* SPDX-License-Identifier: GPL-2.0 */
/*
 * `diskio [OPTIONS] -- COMMAND [ARGS]` (issue 45): the command run in a
 * cgroup v2 group of its own, so that a filter on the group follows it and
 * every process it starts, and its end seen as a descriptor the run polls.
 * Unlike the rest of procs/, this makes system calls: it runs a process.
 */
#ifndef DISKIO_COMMAND_H
#define DISKIO_COMMAND_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

struct command {
	pid_t pid;		/* 0: not started */
	int pidfd;		/* readable once it exited; -1 none */
	bool exited;
	int status;		/* its wait status once exited */
	char group[PATH_MAX];	/* the group's directory, "" none */
};

void command_init(struct command *c);

/*
 * A new group under the cgroup2 mount for the command, its path relative
 * to the mount (as --cgroup takes it) into rel.  0, or -errno after one
 * "diskio: ..." line on err.
 */
int command_make_group(struct command *c, const char *mount, char *rel, size_t size, FILE *err);

/*
 * Run argv[0] (searched in PATH) with argv, in the group if one was made,
 * with the signals diskio changed (SIGPIPE ignored) put back.  0, or -errno
 * after one "diskio: ..." line on err: it could not be started (not found,
 * not executable: the errno of its exec).
 */
int command_start(struct command *c, char *const argv[], FILE *err);

/* Reap it if it exited (pidfd readable, or wait true: wait for it).  true
 * once it has exited. */
bool command_reap(struct command *c, bool wait);

/* What diskio exits with for it: its exit status, 128 + the signal that
 * ended it (as a shell says). */
int command_exit_status(const struct command *c);

/* Its group removed (a process the command left running keeps it: said on
 * err), the descriptor closed.  The command must have exited. */
void command_free(struct command *c, FILE *err);

#endif /* DISKIO_COMMAND_H */
