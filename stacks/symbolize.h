/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Names for stack frames (--stacks), as the views and outputs get them:
 * one symbolizer, made from the options, that names kernel frames
 * (ksyms.h: /proc/kallsyms) and user frames (usyms.h: the ELF files the
 * process mapped, or files only root can change, by build id) through a
 * stack_namer (stacks.h), and takes the events of --stacks.  Its users
 * include this header alone; the two namers' own functions come with it.
 * No libbpf; unit-tested without root against fake /proc files and test
 * binaries.
 */
#ifndef DISKIO_SYMBOLIZE_H
#define DISKIO_SYMBOLIZE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include "abi.h"
#include "ksyms.h"
#include "stacks.h"
#include "usyms.h"

struct symbolizer_options {
	bool kernel, user;		/* which stacks are named */
	const char *kallsyms;		/* "/proc/kallsyms" */
	const char *proc_root;		/* "/proc" */
	const char *debug_dir;		/* --debug-dir, or NULL */
	uint64_t budget_ns;		/* usyms_set_budget() */
	uint32_t top;			/* --stacks-top, for the namer */
};

struct symbolizer;

/*
 * Kernel symbols read now (a warning through warn() when they cannot be:
 * kernel frames are then addresses), and the user symbolizer with diskio's
 * own files cached.  NULL when out of memory.
 */
struct symbolizer *symbolizer_new(const struct symbolizer_options *o,
				  void (*warn)(const char *fmt, ...));
void symbolizer_free(struct symbolizer *sym);

/* What views and the --folded file name frames with; its table (of the
 * stacks) is the caller's to set.  NULL for a NULL symbolizer. */
struct stack_namer *symbolizer_namer(struct symbolizer *sym);

/* The events of --stacks (EVENT_USER_STACK, EVENT_STACK_PROCESS_EXIT), and
 * the start of an interval's time budget; nothing for NULL. */
void symbolizer_user_stack(struct symbolizer *sym, const struct user_stack_event *event);
void symbolizer_process_exited(struct symbolizer *sym, uint32_t tgid, uint64_t start_ns);
void symbolizer_new_interval(struct symbolizer *sym);

#endif /* DISKIO_SYMBOLIZE_H */
