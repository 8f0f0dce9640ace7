// SPDX-License-Identifier: GPL-2.0
/* The tally's step for --files (issue 35): files.c's lines of the interval,
 * named after the process rows they belong to (tally.h). */
#include <string.h>
#include "tally.h"
#include "tally_private.h"

void tally_count_files(struct tally *t, const struct snapshot *s, struct frame *frame)
{
	if (files_step(&t->files, s->files, s->nfiles, t->config.cumulative, t->config.files_top))
		t->lost[LOST_ROW_ALLOC]++;
	for (size_t i = 0; i < t->files.nrows; i++) {
		struct file_row *r = &t->files.rows[i];
		const struct proc_io *row = iostats_find(&t->procs, &r->key.who);
		const char *device = devname_lookup(&t->devnames, r->key.who.dev);

		/* a row forgotten since (-a keeps its files): from the key */
		r->tgid = row ? row->tgid : r->key.who.tgid;
		r->comm_name = row ? row->comm_name :
				     tally_intern_name(t, r->key.who.comm,
						       strnlen(r->key.who.comm, TASK_COMM_LEN - 1));
		r->device_name = row ? row->device_name :
				       tally_intern_name(t, device, strlen(device));
	}
	frame->files_on = true;
	frame->files = t->files.rows;
	frame->nfiles = t->files.nrows;
}

void tally_file_name(struct tally *t, const void *data, size_t size)
{
	int named = t->config.files_mountinfo ? files_name_event(&t->files, data, size) : 0;

	if (named < 0)
		t->lost[LOST_NAMES_TABLE_FULL]++;
	else if (named > 0)
		t->lost[LOST_FILE_NAMES_UNMADE]++;	/* issue 47 */
}
