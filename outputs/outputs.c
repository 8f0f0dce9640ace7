// SPDX-License-Identifier: GPL-2.0
/* The run's outputs besides the view (outputs.h), walked in order. */
#include <string.h>
#include "msg.h"
#include "outputs.h"

static int add(struct outputs *outs, struct output *o)
{
	if (!o) {
		fail("out of memory");
		return -1;
	}
	outs->list[outs->n++] = o;
	return 0;
}

int outputs_open(struct outputs *outs, const struct options *opts, bool dirtied)
{
	memset(outs, 0, sizeof(*outs));
	if (opts->prom_path && add(outs, prom_file_output(opts, dirtied)))
		return -1;
	if (opts->folded_path && add(outs, folded_file_output(opts)))
		return -1;
	if (opts->state_path && add(outs, state_file_output(opts)))
		return -1;
	if (opts->record_dir && add(outs, record_file_output(opts)))
		return -1;
	return 0;
}

int outputs_check(struct outputs *outs, uint64_t now_ns)
{
	for (size_t i = 0; i < outs->n; i++)
		if (outs->list[i]->check && outs->list[i]->check(outs->list[i], now_ns))
			return -1;
	return 0;
}

void outputs_start(struct outputs *outs, struct tally *t, uint64_t now_ns)
{
	for (size_t i = 0; i < outs->n; i++)
		if (outs->list[i]->start)
			outs->list[i]->start(outs->list[i], t, now_ns);
}

void outputs_frame(struct outputs *outs, const struct frame *f, uint64_t now_ns)
{
	for (size_t i = 0; i < outs->n; i++)
		if (outs->list[i]->frame)
			outs->list[i]->frame(outs->list[i], f, now_ns);
}

void outputs_reload(struct outputs *outs, uint64_t now_ns)
{
	for (size_t i = 0; i < outs->n; i++)
		if (outs->list[i]->reload)
			outs->list[i]->reload(outs->list[i], now_ns);
}

void outputs_summarize(struct outputs *outs, struct summary *s)
{
	for (size_t i = 0; i < outs->n; i++)
		if (outs->list[i]->summarize)
			outs->list[i]->summarize(outs->list[i], s);
}

int outputs_finish(struct outputs *outs, const struct output_end *end)
{
	int err = 0;

	for (size_t i = 0; i < outs->n; i++)
		if (outs->list[i]->finish && outs->list[i]->finish(outs->list[i], end))
			err = -1;
	return err;
}

bool outputs_reload_on_sighup(const struct outputs *outs)
{
	for (size_t i = 0; i < outs->n; i++)
		if (outs->list[i]->reloads)
			return true;
	return false;
}

void outputs_free(struct outputs *outs)
{
	for (size_t i = 0; i < outs->n; i++)
		outs->list[i]->free(outs->list[i]);
	outs->n = 0;
}
