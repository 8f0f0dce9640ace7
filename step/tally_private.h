/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What tally.c shares with the files that do a part of its step
 * (tally_owners.c, tally_waits.c, tally_files.c, tally_names.c): for them
 * only, not for the tally's users.
 */
#ifndef DISKIO_TALLY_PRIVATE_H
#define DISKIO_TALLY_PRIVATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "resources.h"

struct frame;
struct proc_io;
struct row_owner;
struct snapshot;
struct tally;

/* tally_names.c: name's key in the tally's table of names; "?" and a loss
 * when it is full. */
res_key tally_intern_name(struct tally *t, const char *name, size_t len);
/* tally_names.c: a new row's names (its disk, process and cgroup). */
void tally_name_row(struct tally *t, struct proc_io *row);
/* tally_names.c: the sysfs the tally reads (config.sysfs_root, else /sys). */
const char *tally_sysfs_root(const struct tally *t);

/* tally_owners.c: whose row it is, as the kernel's entry says (its user
 * and command line learnt when it is new or another process's). */
void tally_note_owner(struct tally *t, struct proc_io *row, const struct row_owner *owner,
		      bool created);
/* tally_owners.c: the passwd file changed: every row's user anew. */
void tally_rename_users(struct tally *t);
/* tally_owners.c: the processes of no row among the frame's n shown rows,
 * idle, as /proc lists them now (with the top view's o): how many. */
size_t tally_list_idle(struct tally *t, size_t n);
void tally_free_idle(struct tally *t);

/* tally_files.c (--files): the step's file lines into frame, named as
 * their process rows are. */
void tally_count_files(struct tally *t, const struct snapshot *s, struct frame *frame);

/* tally_waits.c: the interval's IO> and SWAPIN onto the rows. */
void tally_count_waits(struct tally *t, const struct snapshot *s, uint64_t interval_ns,
		       struct frame *frame);

#endif /* DISKIO_TALLY_PRIVATE_H */
