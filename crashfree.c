// SPDX-License-Identifier: GPL-2.0
/*
 * The crash-free interval tracker (crashfree.h): memfaultd's
 * crashfree_interval.rs bookkeeping of two marks, whole intervals and
 * crashes per comm, on a clock the caller passes in. It only counts, in
 * memory, so that its rules are tested as memfaultd's scenarios with no
 * file and no clock; keeping the counts across runs is the state file's
 * job (outputs/crashfree_state.c).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "crashfree.h"
#include "sorted.h"

/* Modular comparison, as the kernel's time_before(): see doc/design.md. */
static bool time_before(uint64_t a, uint64_t b)
{
	return (int64_t)(a - b) < 0;
}

static uint64_t saturating_add(uint64_t a, uint64_t b)
{
	uint64_t sum;

	if (__builtin_add_overflow(a, b, &sum))
		return UINT64_MAX;
	return sum;
}

/* Modular time comparisons only work for intervals below 2^63 ns. */
static uint64_t usable_interval(uint64_t interval_ns)
{
	if (interval_ns == 0)
		return CRASHFREE_DEFAULT_INTERVAL_NS;
	if (interval_ns > INT64_MAX)
		return INT64_MAX;
	return interval_ns;
}

void crashfree_init(struct crashfree *cf, uint64_t interval_ns, uint64_t now_ns)
{
	memset(cf, 0, sizeof(*cf));
	cf->interval_ns = usable_interval(interval_ns);
	cf->operational_mark_ns = now_ns;
	cf->crashfree_mark_ns = now_ns;
}

void crashfree_free(struct crashfree *cf)
{
	free(cf->by_process);
	cf->by_process = NULL;
	cf->nprocesses = 0;
	cf->capacity = 0;
}

/* Only called with *mark_ns not after now_ns, so the subtraction is exact. */
static uint64_t count_whole_intervals(uint64_t *mark_ns, uint64_t interval_ns,
				      uint64_t now_ns)
{
	uint64_t intervals = (now_ns - *mark_ns) / interval_ns;

	*mark_ns += intervals * interval_ns;
	return intervals;
}

struct crashfree_counted crashfree_update(struct crashfree *cf, uint64_t now_ns)
{
	struct crashfree_counted counted = { 0, 0 };

	/* The struct is public: never divide by an interval set to 0 by hand. */
	if (cf->interval_ns == 0)
		return counted;

	/* A mark ahead of now counts nothing and restarts at now, as in memfaultd. */
	if (time_before(now_ns, cf->operational_mark_ns))
		cf->operational_mark_ns = now_ns;
	if (time_before(now_ns, cf->crashfree_mark_ns))
		cf->crashfree_mark_ns = now_ns;

	counted.operational = count_whole_intervals(&cf->operational_mark_ns,
						    cf->interval_ns, now_ns);
	counted.crashfree = count_whole_intervals(&cf->crashfree_mark_ns,
						  cf->interval_ns, now_ns);
	cf->operational_intervals = saturating_add(cf->operational_intervals,
						   counted.operational);
	cf->crashfree_intervals = saturating_add(cf->crashfree_intervals,
						 counted.crashfree);
	return counted;
}

/* Normalise a name the way the kernel stores task->comm: cut, NUL padded. */
static void copy_comm(char name[CRASHFREE_COMM_LEN], const char *comm)
{
	size_t len = comm ? strnlen(comm, CRASHFREE_COMM_LEN - 1) : 0;

	memset(name, 0, CRASHFREE_COMM_LEN);
	if (len)
		memcpy(name, comm, len);
}

static int compare_process(const void *name, const void *process)
{
	return strcmp(name, ((const struct crashfree_process *)process)->comm);
}

/* Index of name in the sorted table, or where it belongs if not *found. */
static size_t find_process(const struct crashfree *cf, const char *name, bool *found)
{
	size_t index = sorted_find(name, cf->by_process, cf->nprocesses, sizeof(*cf->by_process),
				   compare_process);

	*found = index < cf->nprocesses && !strcmp(cf->by_process[index].comm, name);
	return index;
}

static int insert_process(struct crashfree *cf, size_t index,
			  const char name[CRASHFREE_COMM_LEN], uint64_t crashes)
{
	struct crashfree_process *slot;

	if (array_reserve((void **)&cf->by_process, &cf->capacity, cf->nprocesses + 1,
			  sizeof(*cf->by_process)))
		return -ENOMEM;
	slot = &cf->by_process[index];
	memmove(slot + 1, slot, (cf->nprocesses - index) * sizeof(*slot));
	memcpy(slot->comm, name, CRASHFREE_COMM_LEN);
	slot->crashes = crashes;
	cf->nprocesses++;
	return 0;
}

int crashfree_record_crash(struct crashfree *cf, const char *comm, uint64_t at_ns)
{
	char name[CRASHFREE_COMM_LEN];
	bool found;
	size_t index;
	int err;

	if (time_before(cf->crashfree_mark_ns, at_ns))
		cf->crashfree_mark_ns = at_ns;

	copy_comm(name, comm);
	index = find_process(cf, name, &found);
	if (found) {
		cf->by_process[index].crashes++;
	} else {
		err = insert_process(cf, index, name, 1);
		if (err)
			return err;
	}
	cf->crashes++;
	return 0;
}

int crashfree_restore_process(struct crashfree *cf, const char *comm, uint64_t crashes)
{
	char name[CRASHFREE_COMM_LEN];
	bool found;
	size_t index;

	copy_comm(name, comm);
	index = find_process(cf, name, &found);
	if (found)
		return -EEXIST;
	return insert_process(cf, index, name, crashes);
}
