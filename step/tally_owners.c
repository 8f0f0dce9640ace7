// SPDX-License-Identifier: GPL-2.0
/*
 * The tally's rows, whose each is (issue 33): USER, PRIO and COMMAND as the
 * kernel noted them when it made the row, and, for the top view's `o`, the
 * processes /proc lists that have no row, idle.
 */
#include <stdlib.h>
#include <string.h>
#include "array.h"
#include "cmdline.h"
#include "procfs.h"
#include "sorted.h"
#include "tally.h"
#include "tally_private.h"
#include "users.h"

/* uid's name as `ps -o user` shows it, or its number. */
static res_key user_name(struct tally *t, uint32_t uid)
{
	char buf[USER_NAME_SIZE];
	const char *name = users_name(&t->users, uid, buf, sizeof(buf));

	return tally_intern_name(t, name, strlen(name));
}

/* Process tgid's command line as the kernel kept it at its last exec, if
 * that was the process that started at start_ns: its length, else 0. */
static size_t exec_cmdline_of(struct tally *t, uint32_t tgid, uint64_t start_ns,
			      char line[CMDLINE_SIZE])
{
	struct exec_cmdline kept;

	if (!t->config.exec_cmdline ||
	    !t->config.exec_cmdline(tgid, &kept, t->config.exec_cmdline_arg) ||
	    kept.start_ns != start_ns)
		return 0;
	return cmdline_join(kept.args, kept.kept < EXEC_CMDLINE_BYTES ? kept.kept :
			    EXEC_CMDLINE_BYTES, kept.len, line);
}

/* A copy of line[0..len] for a row to keep; NULL without memory (the row
 * then shows none). */
static char *keep_line(const char *line, size_t len)
{
	char *copy = malloc(len + 1);

	if (copy)
		memcpy(copy, line, len + 1);
	return copy;
}

/*
 * The command line of a row's process: /proc/PID/cmdline while the process
 * that started when the kernel says the row's did is there (ps's); else the
 * kernel's copy from its exec, of that same process (it exited within the
 * interval); else, and for a kernel thread, its name in brackets, as ps
 * shows a process without one.  A row of no process has none.
 */
static void learn_cmdline(struct tally *t, struct proc_io *row)
{
	const struct row_owner *owner = &row->owner;
	uint32_t pid = row->tgid ? row->tgid : row->key.tgid;
	char line[CMDLINE_SIZE];
	size_t len = 0;

	free(row->cmdline);
	row->cmdline = NULL;
	if (!(owner->flags & ROW_OWNER_KNOWN) || !row->key.tgid)
		return;
	if (!(owner->flags & ROW_OWNER_KTHREAD) &&
	    row->key.comm[TASK_COMM_LEN - 1] != KEY_MARK_WORKER) {
		if (t->config.proc_root)
			len = proc_cmdline(t->config.proc_root, pid,
					   t->config.clock_ticks ?
					   proc_start_ticks(owner->start_ns, t->config.clock_ticks) :
					   UINT64_MAX, line);
		if (!len)
			len = exec_cmdline_of(t, pid, owner->start_ns, line);
	}
	if (!len) {
		uint32_t name_len;
		const char *name = res_name(&t->names, row->comm_name, &name_len);

		len = cmdline_bracketed(name, name_len, line);
	}
	row->cmdline = keep_line(line, len);
}

/* Whose row it is, as the kernel's entry says (once it says: a row made
 * again where its process is not known keeps what it had).  Its command
 * line is learnt anew when the row is new or its process is another. */
void tally_note_owner(struct tally *t, struct proc_io *row, const struct row_owner *owner,
		       bool created)
{
	bool same_process = !created && owner->start_ns == row->owner.start_ns &&
			    owner->flags == row->owner.flags;

	if (!created && (!(owner->flags & ROW_OWNER_KNOWN) ||
			 !memcmp(owner, &row->owner, sizeof(*owner))))
		return;
	row->owner = *owner;
	row->user_name = owner->flags & ROW_OWNER_KNOWN ? user_name(t, owner->uid) : 0;
	if (!same_process)
		learn_cmdline(t, row);
}

/* The passwd file changed: every row's user anew. */
void tally_rename_users(struct tally *t)
{
	for (size_t i = 0; i < t->procs.count; i++) {
		struct proc_io *row = &t->procs.rows[i];

		if (row->owner.flags & ROW_OWNER_KNOWN)
			row->user_name = user_name(t, row->owner.uid);
	}
}


/* ---- the idle processes (the top view's o) ---- */

void tally_free_idle(struct tally *t)
{
	for (size_t i = 0; i < t->nidle; i++)
		free(t->idle[i].cmdline);
	t->nidle = 0;
}

static int compare_id(const void *key, const void *element)
{
	uint32_t a = *(const uint32_t *)key, b = *(const uint32_t *)element;

	return (a > b) - (a < b);
}

static int compare_ids(const void *a, const void *b)
{
	return compare_id(a, b);
}

/* Whether the frame has a row of process (or thread) id. */
static bool has_shown_row(const struct tally *t, uint32_t id)
{
	size_t at = sorted_find(&id, t->shown_ids, t->nshown_ids, sizeof(*t->shown_ids),
				compare_id);

	return at < t->nshown_ids && t->shown_ids[at] == id;
}

/* Whether path is group or below it (both paths under the cgroup2 mount). */
static bool cgroup_within(const char *path, const char *group)
{
	size_t len = strlen(group);

	if (!strcmp(group, "/"))
		return true;
	while (len > 1 && group[len - 1] == '/')
		len--;
	return !strncmp(path, group, len) && (path[len] == '\0' || path[len] == '/');
}

/* The process filters, as the kernel holds rows to them: -p (its process,
 * or its thread: e is a thread with -t), -u (its user), -c (its name),
 * --cgroup (its group or one below). */
static bool idle_selected(struct tally *t, const struct proc_entry *e)
{
	const struct tally_config *c = &t->config;
	bool in_group = !c->nr_filter_cgroups;

	if (c->nr_filter_pids) {
		bool listed = false;

		for (uint32_t i = 0; i < c->nr_filter_pids && !listed; i++)
			listed = c->filter_pids[i] == e->tgid || c->filter_pids[i] == e->pid;
		if (!listed)
			return false;
	}
	if (c->nr_filter_uids) {
		bool listed = false;

		for (uint32_t i = 0; i < c->nr_filter_uids && !listed; i++)
			listed = c->filter_uids[i] == e->uid;
		if (!listed)
			return false;
	}
	if (c->filter_comm && strcmp(e->comm, c->filter_comm))
		return false;
	for (uint32_t i = 0; i < c->nr_filter_cgroups && !in_group && e->cgroup; i++) {
		const char *group = cgroup_names_lookup(&t->cgroups, c->filter_cgroups[i]);

		in_group = group && cgroup_within(e->cgroup, group);
	}
	return in_group;
}

/* A process /proc lists: an idle row, unless it has a row in the frame or
 * the filters leave it out.  Stops the listing (1) when memory is out. */
static int take_idle(const struct proc_entry *e, void *arg)
{
	struct tally *t = arg;
	struct proc_io *row;
	char line[CMDLINE_SIZE];
	size_t len;

	if (has_shown_row(t, e->pid) || !idle_selected(t, e))
		return 0;
	if (array_reserve((void **)&t->idle, &t->idle_capacity, t->nidle + 1, sizeof(*t->idle))) {
		t->lost[LOST_ROW_ALLOC]++;
		return 1;
	}
	row = &t->idle[t->nidle++];
	memset(row, 0, sizeof(*row));
	row->idle = true;
	row->key.tgid = e->pid;
	memcpy(row->key.comm, e->comm, strnlen(e->comm, TASK_COMM_LEN - 1));
	row->tgid = e->tgid;
	row->comm_name = tally_intern_name(t, e->name, strlen(e->name));
	row->device_name = t->no_device_name;
	row->cgroup_name = e->cgroup && t->config.cgroup_mount ?
			   tally_intern_name(t, e->cgroup, strlen(e->cgroup)) : 0;
	row->owner = (struct row_owner){
		.start_ns = 0, .uid = e->uid, .ioprio = e->ioprio, .nice = (int8_t)e->nice,
		.flags = ROW_OWNER_KNOWN | (e->kthread ? ROW_OWNER_KTHREAD : 0) |
			 (e->policy & ROW_OWNER_POLICY),
	};
	row->user_name = user_name(t, e->uid);
	len = e->cmdline[0] && !e->kthread ? strlen(e->cmdline) :
	      cmdline_bracketed(e->name, strlen(e->name), line);
	row->cmdline = keep_line(e->cmdline[0] && !e->kthread ? e->cmdline : line, len);
	return 0;
}

/* The processes of no row in the frame's n rows, as /proc lists them now. */
size_t tally_list_idle(struct tally *t, size_t n)
{
	struct proc_lister lister = {
		.proc_root = t->config.proc_root,
		.threads = t->config.per_thread,
		.cgroups = t->config.cgroup_mount != NULL,
		.ioprio_of = t->config.ioprio_of,
		.ioprio_arg = t->config.ioprio_arg,
	};

	tally_free_idle(t);
	if (!t->config.all_processes || t->config.by_cgroup || t->config.filter_devices ||
	    !t->config.proc_root)
		return 0;
	if (array_reserve((void **)&t->shown_ids, &t->shown_ids_capacity, n,
			  sizeof(*t->shown_ids)))
		return 0;
	for (size_t i = 0; i < n; i++)
		t->shown_ids[i] = t->shown[i]->key.tgid;
	t->nshown_ids = n;
	if (n)
		qsort(t->shown_ids, n, sizeof(*t->shown_ids), compare_ids);
	proc_list(&lister, take_idle, t);
	if (array_reserve((void **)&t->idle_ptrs, &t->idle_ptrs_capacity, t->nidle,
			  sizeof(*t->idle_ptrs))) {
		tally_free_idle(t);
		return 0;
	}
	for (size_t i = 0; i < t->nidle; i++)
		t->idle_ptrs[i] = &t->idle[i];
	return t->nidle;
}
