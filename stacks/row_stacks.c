// SPDX-License-Identifier: GPL-2.0
/* --stacks, the tally's part (row_stacks.h). */
#define _GNU_SOURCE		/* qsort_r() */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "array.h"
#include "pmem_metrics.h"
#include "row_stacks.h"
#include "sorted.h"

/* One bucket head per this many bytes of the stacks' table: most stacks
 * encode to 100-300 bytes. */
#define TABLE_BYTES_PER_BUCKET 256

int row_stacks_init(struct row_stacks *rs, uint64_t mem)
{
	uint64_t buckets = mem / TABLE_BYTES_PER_BUCKET;

	memset(rs, 0, sizeof(*rs));
	rs->buf = malloc(mem);
	if (!rs->buf)
		return -ENOMEM;
	if (res_table_init(&rs->table, rs->buf, mem, buckets ? (uint32_t)buckets : 1)) {
		row_stacks_free(rs);
		return -ENOMEM;
	}
	return 0;
}

void row_stacks_free(struct row_stacks *rs)
{
	free(rs->buf);
	free(rs->ids);
	free(rs->all);
	free(rs->order);
	free(rs->forget);
	memset(rs, 0, sizeof(*rs));
}

/* New stack ids' frames, interned once for the run. */
static void take_traces(struct row_stacks *rs, const struct snapshot *s)
{
	for (size_t i = 0; i < s->ntraces; i++) {
		const struct snapshot_trace *trace = &s->traces[i];
		struct stack_ref *ref;
		size_t wanted = (size_t)trace->id + 1;

		if (wanted > rs->nids) {
			if (array_reserve((void **)&rs->ids, &rs->ids_capacity, wanted,
					  sizeof(*rs->ids)))
				continue;	/* its stacks show as unread */
			memset(rs->ids + rs->nids, 0, (wanted - rs->nids) * sizeof(*rs->ids));
			rs->nids = wanted;
		}
		ref = &rs->ids[trace->id];
		if (ref->state != STACK_ABSENT)
			continue;	/* given before */
		switch (res_intern_stack(&rs->table, trace->frames, trace->nframes, &ref->key)) {
		case RES_OK:
			ref->state = STACK_KEPT;
			break;
		case RES_OUT_OF_SPACE:
			ref->state = STACK_NOT_KEPT;
			break;
		default:
			ref->state = STACK_UNREAD;
		}
	}
}

/* The side of a stack that the kernel's id names. */
static struct stack_ref stack_ref_of(const struct row_stacks *rs, int32_t id)
{
	struct stack_ref none = { .state = STACK_ABSENT }, unread = { .state = STACK_UNREAD };

	if (id == STACK_ID_NONE)
		return none;
	if (id < 0)
		return (struct stack_ref){ .state = STACK_UNAVAILABLE };
	if ((size_t)id >= rs->nids || rs->ids[id].state == STACK_ABSENT)
		return unread;
	return rs->ids[id];
}

static int compare_stack_keys(const void *a, const void *b)
{
	return memcmp(a, b, sizeof(struct stack_key));
}

/* The row stack of key among the first n (sorted), or NULL. */
static struct row_stack *find_row_stack(struct row_stacks *rs, size_t n,
					const struct stack_key *key)
{
	if (!n)		/* rs->all may still be NULL */
		return NULL;
	return bsearch(key, rs->all, n, sizeof(*rs->all), compare_stack_keys);
}

/* An I/O of a stack whose frames the table could not keep is counted lost
 * (dirtying alone: once an interval): its bytes stay with its row. */
static void count_unkept(const struct row_stack *stack, uint64_t lost[LOST_NR_CAUSES])
{
	uint64_t ios = row_stack_ios(stack, false);

	if (stack->kernel.state != STACK_NOT_KEPT && stack->user.state != STACK_NOT_KEPT)
		return;
	if (ios)
		lost[LOST_STACKS_TABLE_FULL] += ios;
	else if (row_stack_dirtied(stack, false))
		lost[LOST_STACKS_TABLE_FULL]++;
}

/* The kernel's running totals of one stack_counts entry into its row stack. */
static void record_stack(const struct row_stacks *rs, struct row_stack *stack,
			 const struct snapshot_stack *entry, uint64_t lost[LOST_NR_CAUSES])
{
	uint64_t counters[STACK_NR_COUNTERS];

	stack_counters_from_kernel(&entry->counts, counters);
	for (int c = 0; c < STACK_NR_COUNTERS; c++) {
		stack->delta[c] = counter_delta(&stack->seen[c], counters[c]);
		stack->total[c] += stack->delta[c];
	}
	stack->kernel = stack_ref_of(rs, stack->key.kernel_stack);
	stack->user = stack_ref_of(rs, stack->key.user_stack);
	count_unkept(stack, lost);
}

void row_stacks_count(struct row_stacks *rs, const struct snapshot *s,
		      uint64_t lost[LOST_NR_CAUSES])
{
	size_t sorted = rs->n;

	take_traces(rs, s);
	for (size_t i = 0; i < rs->n; i++)
		memset(rs->all[i].delta, 0, sizeof(rs->all[i].delta));
	/* Entries deleted since the last frame: what they gained after the last
	 * snapshot is this interval's, and their key's next entry counts from
	 * zero (as the tally's count_forgotten() does for rows). */
	for (size_t i = 0; i < s->nfinal_stacks; i++) {
		struct row_stack *stack = find_row_stack(rs, sorted, &s->final_stacks[i].key);

		if (!stack)
			continue;
		record_stack(rs, stack, &s->final_stacks[i], lost);
		memset(stack->seen, 0, sizeof(stack->seen));
	}
	for (size_t i = 0; i < s->nstacks; i++) {
		const struct snapshot_stack *entry = &s->stacks[i];
		struct row_stack *stack = find_row_stack(rs, sorted, &entry->key);

		if (!stack) {
			if (array_reserve((void **)&rs->all, &rs->capacity, rs->n + 1,
					  sizeof(*rs->all))) {
				lost[LOST_ROW_ALLOC]++;
				continue;
			}
			stack = &rs->all[rs->n++];
			memset(stack, 0, sizeof(*stack));
			stack->key = entry->key;
		}
		record_stack(rs, stack, entry, lost);
	}
	if (rs->n > sorted)
		qsort(rs->all, rs->n, sizeof(*rs->all), compare_stack_keys);
}

static int compare_who(const void *who, const void *stack)
{
	return memcmp(who, &((const struct row_stack *)stack)->key.who, sizeof(struct proc_dev_key));
}

/* The first row stack of who (they are sorted by key, who first). */
static size_t first_stack_of(const struct row_stacks *rs, const struct proc_dev_key *who)
{
	return sorted_find(who, rs->all, rs->n, sizeof(*rs->all), compare_who);
}

static int compare_weight_desc(const void *pa, const void *pb, void *cumulative)
{
	uint64_t a = row_stack_weight(*(struct row_stack *const *)pa, *(bool *)cumulative);
	uint64_t b = row_stack_weight(*(struct row_stack *const *)pb, *(bool *)cumulative);

	return (a < b) - (a > b);
}

void row_stacks_attach(struct row_stacks *rs, struct proc_io *const *shown, size_t nshown,
		       uint32_t top, bool cumulative)
{
	size_t used = 0;

	if (!top || !rs->n ||
	    array_reserve((void **)&rs->order, &rs->order_capacity, rs->n, sizeof(*rs->order)))
		return;
	for (size_t i = 0; i < nshown; i++) {
		struct proc_io *row = shown[i];
		struct row_stack **mine = rs->order + used;
		size_t n = 0;

		for (size_t k = first_stack_of(rs, &row->key);
		     k < rs->n && !memcmp(&rs->all[k].key.who, &row->key, sizeof(row->key)); k++)
			if (row_stack_weight(&rs->all[k], cumulative))
				mine[n++] = &rs->all[k];
		if (n > 1)
			qsort_r(mine, n, sizeof(*mine), compare_weight_desc, &cumulative);
		used += n;
		row->stacks = mine;
		row->nstacks = n < top ? n : top;
	}
}

void row_stacks_forget(struct row_stacks *rs, const struct proc_dev_key *gone, size_t n)
{
	rs->nforget = 0;
	for (size_t i = 0; i < n; i++) {
		for (size_t k = first_stack_of(rs, &gone[i]);
		     k < rs->n && !memcmp(&rs->all[k].key.who, &gone[i], sizeof(gone[i])); k++) {
			if (array_reserve((void **)&rs->forget, &rs->forget_capacity,
					  rs->nforget + 1, sizeof(*rs->forget)))
				return;
			rs->forget[rs->nforget++] = rs->all[k].key;
		}
	}
}
