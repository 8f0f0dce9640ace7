// SPDX-License-Identifier: GPL-2.0
/* The rows' cgroups' I/O pressure (cgroup_pressure.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "array.h"
#include "cgroup_pressure.h"
#include "sorted.h"

void cgroup_pressure_init(struct cgroup_pressures *p, struct cgroup_names *names, size_t max,
			  uint64_t start_ns)
{
	memset(p, 0, sizeof(*p));
	p->names = names;
	p->max = max ? max : CGROUP_PRESSURE_GROUPS;
	p->start_ns = p->step_ns = p->prev_step_ns = start_ns;
}

void cgroup_pressure_free(struct cgroup_pressures *p)
{
	free(p->groups);
	p->groups = NULL;
	p->count = p->capacity = 0;
}

static int compare_id(const void *id, const void *group)
{
	uint64_t a = *(const uint64_t *)id, b = ((const struct cgroup_pressure *)group)->id;

	return (a > b) - (a < b);
}

static int compare_groups(const void *a, const void *b)
{
	return compare_id(&((const struct cgroup_pressure *)a)->id, b);
}

/* One group of the walk, appended (sorted once it is done). */
struct walk {
	struct cgroup_pressures *p;
	bool out_of_room;
};

static void visit(uint64_t id, const struct io_pressure *reading, void *arg)
{
	struct walk *w = arg;
	struct cgroup_pressures *p = w->p;
	struct cgroup_pressure *g;

	if (p->count >= p->max ||
	    array_reserve((void **)&p->groups, &p->capacity, p->count + 1, sizeof(*p->groups))) {
		w->out_of_room = true;
		return;
	}
	g = &p->groups[p->count++];
	memset(g, 0, sizeof(*g));
	g->id = id;
	g->start = g->last = *reading;
	g->last_ns = p->start_ns;
	g->from_walk = true;
}

int cgroup_pressure_baseline(struct cgroup_pressures *p)
{
	struct walk w = { .p = p };
	int groups;

	if (!p->names || !p->names->mount[0])
		return 0;
	groups = cgroup_pressure_walk(p->names->mount, visit, &w);
	if (p->count)
		qsort(p->groups, p->count, sizeof(*p->groups), compare_groups);
	/* A group the walk did not keep would be taken for a new one. */
	p->have_every_start = groups > 0 && !w.out_of_room;
	if (w.out_of_room && p->count < p->max)
		return -ENOMEM;
	return 0;
}

void cgroup_pressure_begin(struct cgroup_pressures *p, uint64_t now_ns)
{
	p->step++;
	p->prev_step_ns = p->step_ns;
	p->step_ns = now_ns;
}

/* g read now, and its share of the step's interval (cumulative: of the
 * time since the start) worked out: its reading before must be of the step
 * before (or, for -a, of the start). */
static void read_group(struct cgroup_pressures *p, struct cgroup_pressure *g, bool cumulative)
{
	const struct io_pressure before = g->last;
	const uint64_t before_ns = g->last_ns;
	const char *path = cgroup_names_lookup(p->names, g->id);
	struct pressure_share *share = &g->share;

	if (!path || cgroup_pressure_read(p->names->mount, path, &g->last))
		g->last.known = false;
	g->last_ns = p->step_ns;
	g->read_step = p->step;
	if (cumulative)
		share->known = pressure_pct(&g->start, &g->last, p->step_ns - p->start_ns,
					    &share->some_pct, &share->full_pct);
	else
		share->known = before_ns == p->prev_step_ns &&
			       pressure_pct(&before, &g->last, p->step_ns - p->prev_step_ns,
					    &share->some_pct, &share->full_pct);
}

/* A group first asked for: its baseline is what the walk at the start
 * implies (a group it did not see was made since: PSI counted it from
 * zero), else none. */
static struct cgroup_pressure *add_group(struct cgroup_pressures *p, uint64_t id, size_t where)
{
	struct cgroup_pressure *g;

	if (p->count >= p->max ||
	    array_reserve((void **)&p->groups, &p->capacity, p->count + 1, sizeof(*p->groups)))
		return NULL;
	memmove(&p->groups[where + 1], &p->groups[where],
		(p->count - where) * sizeof(*p->groups));
	p->count++;
	g = &p->groups[where];
	memset(g, 0, sizeof(*g));
	g->id = id;
	if (p->have_every_start) {
		g->start.known = true;
		/* the first step's interval began at the start */
		g->last.known = p->prev_step_ns == p->start_ns;
		g->last_ns = p->start_ns;
	}
	return g;
}

struct pressure_share cgroup_pressure_of(struct cgroup_pressures *p, uint64_t id, bool cumulative)
{
	size_t where = sorted_find(&id, p->groups, p->count, sizeof(*p->groups), compare_id);
	struct cgroup_pressure *g = NULL;

	if (!id || !p->names || !p->names->mount[0])
		return (struct pressure_share){ 0 };
	if (where < p->count && p->groups[where].id == id)
		g = &p->groups[where];
	else if (!(g = add_group(p, id, where)))
		return (struct pressure_share){ 0 };	/* beyond the bound */
	g->seen_step = p->step;
	if (g->read_step != p->step)
		read_group(p, g, cumulative);
	return g->share;
}

void cgroup_pressure_end(struct cgroup_pressures *p, bool cumulative)
{
	size_t kept = 0;

	for (size_t i = 0; i < p->count; i++) {
		struct cgroup_pressure *g = &p->groups[i];
		bool recent = g->seen_step && p->step - g->seen_step < CGROUP_PRESSURE_KEEP_STEPS;

		/* -a needs of a group only its reading at the start */
		if (!recent && !(cumulative && (g->start.known || g->from_walk))) {
			if (g->from_walk)
				p->have_every_start = false;
			continue;
		}
		if (recent && !cumulative && g->read_step != p->step)
			read_group(p, g, false);
		p->groups[kept++] = *g;
	}
	p->count = kept;
}
