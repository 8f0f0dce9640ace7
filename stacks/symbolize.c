// SPDX-License-Identifier: GPL-2.0
/*
 * The symbolizer the views are handed (symbolize.h): the kernel's names
 * (ksyms.c) and the user symbolizer (usyms.c) behind one stack_namer, so
 * that views, outputs and the tally name frames without knowing where a
 * name comes from.  Kernel symbols that cannot be read leave kernel
 * frames as addresses, with one warning; nothing here fails for them.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "symbolize.h"

struct symbolizer {
	struct ksyms *ksyms;	/* NULL: kernel frames print as addresses */
	struct usyms *usyms;	/* NULL without user stacks */
	struct stack_namer namer;
};

static char *name_kernel_frame(void *ctx, uint64_t addr, char *buf, size_t size)
{
	const struct symbolizer *sym = ctx;

	if (!sym->ksyms) {
		snprintf(buf, size, "[unknown] 0x%" PRIx64, addr);
		return buf;
	}
	return ksyms_format(sym->ksyms, addr, buf, size);
}

static char *name_user_frame(void *ctx, const struct user_frame *frame, char *buf, size_t size,
			     const char **unknown)
{
	const struct symbolizer *sym = ctx;
	enum usym_unknown why;

	usyms_frame(sym->usyms, frame->tgid, frame->stack_id, frame->index, frame->addr, buf, size,
		    &why);
	*unknown = usym_unknown_name(why);
	return buf;
}

static bool user_inserted(void *ctx, uint32_t tgid, int32_t stack_id, uint64_t *addr)
{
	const struct symbolizer *sym = ctx;

	return usyms_inserted_frame(sym->usyms, tgid, stack_id, addr);
}

static uint64_t frames_recovered(void *ctx)
{
	const struct symbolizer *sym = ctx;
	struct usyms_stats stats;

	usyms_stats(sym->usyms, &stats);	/* zeros without user stacks */
	return stats.recovered;
}

static uint64_t frames_unknown(void *ctx)
{
	const struct symbolizer *sym = ctx;
	struct usyms_stats stats;
	uint64_t sum = 0;

	usyms_stats(sym->usyms, &stats);
	for (int why = USYM_NAMED + 1; why < USYM_NR; why++)
		sum += stats.unknown[why];
	return sum;
}

struct symbolizer *symbolizer_new(const struct symbolizer_options *o,
				  void (*warn)(const char *fmt, ...))
{
	struct symbolizer *sym = calloc(1, sizeof(*sym));

	if (!sym)
		return NULL;
	sym->namer = (struct stack_namer){
		.kernel = name_kernel_frame,
		.user = name_user_frame,
		.user_inserted = user_inserted,
		.frames_recovered = frames_recovered,
		.frames_unknown = frames_unknown,
		.ctx = sym,
		.top = o->top,
	};
	if (o->kernel) {
		sym->ksyms = ksyms_load(o->kallsyms);
		if (!sym->ksyms)
			warn("cannot read kernel symbols from %s: %s; kernel frames are shown as "
			     "addresses", o->kallsyms, strerror(errno));
	}
	if (!o->user)
		return sym;
	sym->usyms = usyms_new(o->proc_root);
	if (!sym->usyms || (o->debug_dir && usyms_add_debug_dir(sym->usyms, o->debug_dir))) {
		symbolizer_free(sym);
		return NULL;
	}
	if (o->debug_dir && !usyms_trusted_dir(sym->usyms, o->debug_dir))
		warn("--debug-dir %s: a directory other users can change (or a path through a "
		     "symlink): its debug files are not used", o->debug_dir);
	usyms_add_own_files(sym->usyms);
	usyms_set_budget(sym->usyms, o->budget_ns);
	return sym;
}

void symbolizer_free(struct symbolizer *sym)
{
	if (!sym)
		return;
	ksyms_free(sym->ksyms);
	usyms_free(sym->usyms);
	free(sym);
}

struct stack_namer *symbolizer_namer(struct symbolizer *sym)
{
	return sym ? &sym->namer : NULL;
}

void symbolizer_user_stack(struct symbolizer *sym, const struct user_stack_event *event)
{
	if (sym && sym->usyms)
		usyms_add_stack(sym->usyms, event);
}

void symbolizer_process_exited(struct symbolizer *sym, uint32_t tgid, uint64_t start_ns)
{
	if (sym)
		usyms_process_exited(sym->usyms, tgid, start_ns);
}

void symbolizer_new_interval(struct symbolizer *sym)
{
	if (sym)
		usyms_new_interval(sym->usyms);
}
