// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of iotop's PRIO (ioprio.c): the kernel's rule for a task that
 * set no I/O priority (__get_task_ioprio(): the class of its policy at
 * level (nice + 20) / 5), and what a set one shows, as iotop and ionice
 * print them.
 */
#include <criterion/criterion.h>
#include "ioprio.h"

#define PRIO(class, level) ((uint16_t)((class) << 13 | (level)))
#define SCHED_NORMAL_ 0
#define SCHED_BATCH_ 3

static const char *text(uint16_t ioprio, uint8_t policy, int nice)
{
	static char buf[IOPRIO_TEXT_SIZE];

	return ioprio_text(ioprio, policy, nice, buf);
}

Test(ioprio, none_set_is_best_effort_by_nice)
{
	/* the kernel's table: nice -20..19 to levels 0..7, four or five a level */
	static const struct {
		int nice;
		const char *shown;
	} cases[] = {
		{ -20, "be/0" }, { -16, "be/0" }, { -15, "be/1" }, { -11, "be/1" }, { -1, "be/3" },
		{ 0, "be/4" }, { 4, "be/4" }, { 5, "be/5" }, { 10, "be/6" }, { 15, "be/7" },
		{ 19, "be/7" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		cr_assert_str_eq(text(0, SCHED_NORMAL_, cases[i].nice), cases[i].shown, "nice %d",
				 cases[i].nice);
		cr_assert_str_eq(text(0, SCHED_BATCH_, cases[i].nice), cases[i].shown, "batch");
	}
}

Test(ioprio, none_set_takes_the_class_of_the_policy)
{
	cr_assert_str_eq(text(0, POLICY_IDLE, 0), "idle", "SCHED_IDLE: the idle class");
	cr_assert_str_eq(text(0, POLICY_FIFO, 0), "rt/4", "SCHED_FIFO: rt at nice's level");
	cr_assert_str_eq(text(0, POLICY_RR, -20), "rt/0");
	cr_assert_str_eq(text(0, POLICY_DEADLINE, 19), "rt/7");
	cr_assert_str_eq(text(0, 7 /* SCHED_EXT */, 0), "be/4");
}

Test(ioprio, a_set_priority_is_shown_as_set)
{
	cr_assert_str_eq(text(PRIO(IOPRIO_BE, 7), SCHED_NORMAL_, -20), "be/7",
			 "ionice -c2 -n7: nice does not matter");
	cr_assert_str_eq(text(PRIO(IOPRIO_RT, 0), SCHED_NORMAL_, 0), "rt/0");
	cr_assert_str_eq(text(PRIO(IOPRIO_IDLE, 0), SCHED_NORMAL_, 0), "idle", "ionice -c3");
	cr_assert_str_eq(text(PRIO(IOPRIO_IDLE, 7), POLICY_FIFO, 0), "idle", "idle has no levels");
	/* Linux 6.5+: hints in bits 3-12 are not the level */
	cr_assert_str_eq(text(PRIO(IOPRIO_BE, 2) | 1 << 3, SCHED_NORMAL_, 0), "be/2");
	/* a class the kernel refuses to set */
	cr_assert_str_eq(text(PRIO(5, 0), SCHED_NORMAL_, 0), "?");
}

Test(ioprio, effective_gives_class_and_level)
{
	enum ioprio_class class;
	unsigned int level;

	ioprio_effective(0, SCHED_NORMAL_, 7, &class, &level);
	cr_assert_eq(class, IOPRIO_BE);
	cr_assert_eq(level, 5);
	ioprio_effective(PRIO(IOPRIO_RT, 3), POLICY_IDLE, 0, &class, &level);
	cr_assert_eq(class, IOPRIO_RT);
	cr_assert_eq(level, 3);
	/* a nice the kernel never has is held to its range */
	ioprio_effective(0, SCHED_NORMAL_, 127, &class, &level);
	cr_assert_eq(level, 7);
	ioprio_effective(0, SCHED_NORMAL_, -128, &class, &level);
	cr_assert_eq(level, 0);
}
