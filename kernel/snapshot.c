// SPDX-License-Identifier: GPL-2.0
/* A snapshot of the maps (snapshot.h). */
#include <stdlib.h>
#include <string.h>
#include "snapshot.h"

void snapshot_free(struct snapshot *s)
{
	free(s->rows);
	free(s->latency);
	free(s->flushes);
	free(s->row_latency);
	free(s->final_rows);
	free(s->final_row_latency);
	free(s->final_stacks);
	free(s->crashes);
	free(s->stacks);
	free(s->files);
	free(s->traces);
	free(s->waits.tasks);
	free(s->start_waits.tasks);
	memset(s, 0, sizeof(*s));
}
