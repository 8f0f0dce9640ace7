// SPDX-License-Identifier: GPL-2.0
/* A task's I/O priority as iotop shows it (ioprio.h). */
#include <stdio.h>
#include "ioprio.h"

#define NICE_MIN	(-20)
#define NICE_MAX	19

void ioprio_effective(uint16_t ioprio, uint8_t policy, int nice, enum ioprio_class *class,
		      unsigned int *level)
{
	unsigned int set = IOPRIO_CLASS_OF(ioprio);

	if (set != IOPRIO_NONE) {
		*class = (enum ioprio_class)set;
		*level = IOPRIO_LEVEL_OF(ioprio);
		return;
	}
	if (policy == POLICY_IDLE)
		*class = IOPRIO_IDLE;
	else if (policy == POLICY_FIFO || policy == POLICY_RR || policy == POLICY_DEADLINE)
		*class = IOPRIO_RT;
	else
		*class = IOPRIO_BE;
	/* a nice the kernel never has is held to its range: a level is 0-7 */
	if (nice < NICE_MIN)
		nice = NICE_MIN;
	if (nice > NICE_MAX)
		nice = NICE_MAX;
	*level = (unsigned int)(nice + 20) / 5;
}

const char *ioprio_text(uint16_t ioprio, uint8_t policy, int nice, char buf[IOPRIO_TEXT_SIZE])
{
	enum ioprio_class class;
	unsigned int level;

	ioprio_effective(ioprio, policy, nice, &class, &level);
	switch (class) {
	case IOPRIO_RT:
		snprintf(buf, IOPRIO_TEXT_SIZE, "rt/%u", level);
		break;
	case IOPRIO_BE:
		snprintf(buf, IOPRIO_TEXT_SIZE, "be/%u", level);
		break;
	case IOPRIO_IDLE:
		snprintf(buf, IOPRIO_TEXT_SIZE, "idle");
		break;
	default:
		snprintf(buf, IOPRIO_TEXT_SIZE, "?");
	}
	return buf;
}
