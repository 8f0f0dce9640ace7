/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Processes as /proc shows them (issue 33): a process's stat line, its
 * command line (checked to be the process a row was made for), and every
 * process (or thread) with its name, user, priority and command line, for
 * the top view's `o` (iotop without --only: the idle ones too).  Pure: the
 * /proc root is a parameter, so tests use a tree of their own; the one
 * thing /proc does not show, a task's I/O priority, comes from a function
 * the caller gives (ioprio_get(2)).
 */
#ifndef DISKIO_PROCFS_H
#define DISKIO_PROCFS_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "abi.h"
#include "cmdline.h"

#define PROC_PF_WQ_WORKER	0x00000020	/* include/linux/sched.h */
#define PROC_PF_KTHREAD		0x00200000
/* A name as /proc/PID/stat shows it: a task's comm, or a workqueue
 * worker's with the work it does ("kworker/u8:1-flush-254:0", 64 bytes at
 * most in the kernel's buffer). */
#define PROC_NAME_MAX		64

/* The fields of /proc/PID/stat (proc(5)) diskio reads. */
struct proc_stat {
	char name[PROC_NAME_MAX + 1];	/* field 2, without its parentheses */
	uint32_t flags;			/* 9: PF_* */
	int nice;			/* 19 */
	uint64_t start_ticks;		/* 22: the start, clock ticks since boot */
	uint8_t policy;			/* 41 */
};

/* A stat line, text[0..len), into *st; false if it is not one (the name
 * is the text between the first '(' and the last ')': a name may hold
 * both, and spaces). */
bool proc_stat_parse(const char *text, size_t len, struct proc_stat *st);

/* The effective uid of a status file's "Uid:" line (real, effective,
 * saved, filesystem); false without one. */
bool proc_status_euid(const char *text, size_t len, uint32_t *uid);

/* The cgroup v2 path of a cgroup file's "0::PATH" line, into path (cut
 * to size); false without one. */
bool proc_cgroup_path(const char *text, size_t len, char *path, size_t size);

/* What clock ticks of /proc/PID/stat's starttime a start in ns since
 * boot (struct row_owner's start_ns) is: ns / (10^9 / ticks_per_s),
 * nsec_to_clock_t() for the USER_HZ of every Linux architecture (100). */
uint64_t proc_start_ticks(uint64_t start_ns, long ticks_per_s);

/*
 * Process pid's command line from proc_root/PID/cmdline, joined
 * (cmdline_join()) into out, if it is the process that started at
 * start_ticks (UINT64_MAX: any); both files are read through one
 * descriptor of the process's directory, which stays that process's even
 * if it exits meanwhile and its pid is taken.  Its length; 0 when the
 * process is gone, is another one (its pid was taken), or has no command
 * line (a kernel thread; a zombie, whose memory is gone).
 */
size_t proc_cmdline(const char *proc_root, uint32_t pid, uint64_t start_ticks,
		    char out[CMDLINE_SIZE]);

/* A process (or a thread) as the lister found it: valid during the call. */
struct proc_entry {
	uint32_t pid;		/* the process, or with threads the thread's id */
	uint32_t tgid;		/* its process */
	char comm[TASK_COMM_LEN];	/* as -c matches it: a worker's own name */
	const char *name;	/* as stat shows it: a worker's with its work */
	uint32_t uid;		/* effective */
	uint16_t ioprio;	/* as set (ioprio_get(2)), 0: none, or not known */
	uint8_t policy;
	int nice;
	bool kthread;
	uint64_t start_ticks;
	const char *cmdline;	/* cmdline_join()'d; "" for none */
	const char *cgroup;	/* its cgroup v2 path; NULL when not asked for or none */
};

struct proc_lister {
	const char *proc_root;		/* "/proc" */
	bool threads;			/* every thread (PID/task/TID), not every process */
	bool cgroups;			/* read each one's cgroup */
	/* tid's I/O priority as ioprio_get(2) gives it (< 0: not known) */
	int (*ioprio_of)(uint32_t tid, void *arg);
	void *ioprio_arg;
};

/* each(entry, arg) for every process, or thread, in proc_root, in the
 * order of its directory, until each returns non-zero; one that is gone
 * before it is read whole is left out.  The number listed, or -errno when
 * proc_root cannot be read. */
int proc_list(const struct proc_lister *l, int (*each)(const struct proc_entry *e, void *arg),
	      void *arg);

#endif /* DISKIO_PROCFS_H */
