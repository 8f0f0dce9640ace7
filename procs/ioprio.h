/* SPDX-License-Identifier: GPL-2.0 */
/*
 * iotop's PRIO column (issue 33): a task's I/O priority as iotop and the
 * kernel give it ("be/4", "rt/0", "idle"), from what the task has set
 * (ioprio_set(2), ionice) and, when it has set nothing, from its nice
 * value and scheduling policy, by the kernel's own rule.  Pure.
 */
#ifndef DISKIO_IOPRIO_H
#define DISKIO_IOPRIO_H

#include <stdint.h>

/* The classes of include/uapi/linux/ioprio.h: an ioprio value is its class
 * in bits 13-15 and its level in bits 0-2 (bits 3-12: hints, Linux 6.5+). */
enum ioprio_class {
	IOPRIO_NONE = 0,	/* nothing set: the class of the task's policy */
	IOPRIO_RT = 1,
	IOPRIO_BE = 2,
	IOPRIO_IDLE = 3,
};

#define IOPRIO_CLASS_OF(ioprio)	((unsigned int)(ioprio) >> 13 & 7)
#define IOPRIO_LEVEL_OF(ioprio)	((unsigned int)(ioprio) & 7)

/* Scheduling policies (include/uapi/linux/sched.h) the rule looks at. */
#define POLICY_FIFO	1
#define POLICY_RR	2
#define POLICY_IDLE	5
#define POLICY_DEADLINE	6

/* Room for ioprio_text(): "be/7", "idle", "?". */
#define IOPRIO_TEXT_SIZE 8

/*
 * The priority the kernel gives a task (__get_task_ioprio(), Linux 6.0+):
 * the one it set, ioprio; with none set (class NONE), the class of its
 * policy (SCHED_IDLE idle; FIFO, RR and DEADLINE rt; the others be) at
 * level (nice + 20) / 5 (task_nice_ioclass(), task_nice_ioprio()), so be/4
 * at nice 0.  *level: 0 (highest) to 7.
 */
void ioprio_effective(uint16_t ioprio, uint8_t policy, int nice, enum ioprio_class *class,
		      unsigned int *level);

/* The same as iotop shows it: "be/N", "rt/N", "idle" (which has no
 * levels), and "?" for a class the kernel refuses to set (4 to 7). */
const char *ioprio_text(uint16_t ioprio, uint8_t policy, int nice,
			char buf[IOPRIO_TEXT_SIZE]);

#endif /* DISKIO_IOPRIO_H */
