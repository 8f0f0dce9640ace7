/* SPDX-License-Identifier: GPL-2.0 */
/* What this system and kernel offer diskio, asked before any BPF is loaded. */
#ifndef DISKIO_PROBE_H
#define DISKIO_PROBE_H

#include <stdbool.h>

/* Which hooks this kernel has, read from its BTF. */
struct kernel_hooks {
	bool bio_queue;		/* block_bio_queue and block_bio_complete */
	bool io_start;		/* block_io_start and block_io_done (Linux 6.5+) */
	bool rq_issue;		/* block_rq_issue and block_rq_complete */
	bool getrq;		/* block_getrq, passing only the bio */
	bool exit_group_dead;	/* sched_process_exit passes group_dead */
	bool process_exit;
	bool dirty_folio;	/* writeback_dirty_folio (Linux 5.17+) */
	bool process_exec;	/* sched_process_exec: command lines (issue 33) */
	/* IO> and SWAPIN (waits.bpf.h) */
	bool task_iter;		/* the task iterator, iter/task (Linux 5.8+) */
	bool sched_switch;	/* sched_switch passing prev_state (Linux 5.18+) */
	bool task_delays;	/* task->delays: delay accounting built in */
	bool rdonly_cast;	/* the bpf_rdonly_cast() kfunc (Linux 6.2+) */
};

/* Privileges and BTF: 0, or -1 after one "diskio: ..." line. */
int check_system(void);

/* The tracepoints this kernel has, read from its BTF: 0, or -1 after one
 * "diskio: ..." line when the block hooks are missing. */
int probe_hooks(struct kernel_hooks *hooks);

#endif /* DISKIO_PROBE_H */
