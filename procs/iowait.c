// SPDX-License-Identifier: GPL-2.0
/* Each task's waits as changes per interval (iowait.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "array.h"
#include "iowait.h"
#include "sorted.h"

void iowait_tasks_init(struct iowait_tasks *t)
{
	memset(t, 0, sizeof(*t));
}

void iowait_tasks_free(struct iowait_tasks *t)
{
	free(t->tasks);
	iowait_tasks_init(t);
}

static int compare_id(const void *key, const void *element)
{
	const struct task_id *a = key, *b = &((const struct iowait_task *)element)->id;

	if (a->tid != b->tid)
		return a->tid < b->tid ? -1 : 1;
	return (a->start_ns > b->start_ns) - (a->start_ns < b->start_ns);
}

/* The change from *seen to now, which becomes *seen; nothing while now is
 * below it. */
static uint64_t total_change(uint64_t *seen, uint64_t now)
{
	uint64_t change = now > *seen ? now - *seen : 0;

	if (now > *seen)
		*seen = now;
	return change;
}

/* rec's change; its task kept (inserted in id order when new).  -ENOMEM:
 * the new task could not be kept, its whole totals are the change. */
static int count_record(struct iowait_tasks *t, const struct task_waits *rec,
			struct iowait_ns *change)
{
	size_t at = sorted_find(&rec->id, t->tasks, t->count, sizeof(*t->tasks), compare_id);
	struct iowait_task *task = at < t->count ? &t->tasks[at] : NULL;
	bool exited = rec->flags & TASK_WAITS_EXITED;

	if (task && !compare_id(&rec->id, task)) {
		task->listed = true;
		if (task->exited) {	/* counted at its exit: old news */
			memset(change, 0, sizeof(*change));
			return 0;
		}
		change->blkio_ns = total_change(&task->blkio_seen, rec->blkio_ns);
		change->swapin_ns = total_change(&task->swapin_seen, rec->swapin_ns);
		task->exited = exited;
		return 0;
	}
	change->blkio_ns = rec->blkio_ns;
	change->swapin_ns = rec->swapin_ns;
	if (array_reserve((void **)&t->tasks, &t->capacity, t->count + 1, sizeof(*t->tasks)))
		return -ENOMEM;
	memmove(&t->tasks[at + 1], &t->tasks[at], (t->count - at) * sizeof(*t->tasks));
	t->count++;
	t->tasks[at] = (struct iowait_task){
		.id = rec->id,
		.blkio_seen = rec->blkio_ns,
		.swapin_seen = rec->swapin_ns,
		.listed = true,
		.exited = exited,
	};
	return 0;
}

/* Tasks this reading did not list: exited ones go, others after
 * IOWAIT_UNSEEN_READINGS readings. */
static void forget_unlisted(struct iowait_tasks *t)
{
	size_t kept = 0;

	for (size_t i = 0; i < t->count; i++) {
		struct iowait_task *task = &t->tasks[i];

		if (task->listed)
			task->unseen = 0;
		else if (task->exited || ++task->unseen >= IOWAIT_UNSEEN_READINGS)
			continue;
		task->listed = false;
		t->tasks[kept++] = *task;
	}
	t->count = kept;
}

int iowait_tasks_read(struct iowait_tasks *t, const struct task_waits *recs, size_t n,
		      iowait_add_fn add, void *arg)
{
	int err = 0;

	for (size_t i = 0; i < n; i++) {
		struct iowait_ns change;

		if (count_record(t, &recs[i], &change))
			err = -ENOMEM;
		if (add && (change.blkio_ns || change.swapin_ns))
			add(&recs[i], &change, arg);
	}
	forget_unlisted(t);
	return err;
}
