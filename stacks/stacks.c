// SPDX-License-Identifier: GPL-2.0
/* --stacks: rows' stacks, their frames' names and folded lines (stacks.h). */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "array.h"
#include "stacks.h"
#include "utf8.h"

static uint64_t sum_of(const uint64_t *values, int first, int n)
{
	uint64_t sum = 0;

	for (int i = first; i < first + n; i++)
		sum += values[i];
	return sum;
}

static const uint64_t *stack_values(const struct row_stack *s, bool cumulative)
{
	return cumulative ? s->total : s->delta;
}

uint64_t row_stack_bytes(const struct row_stack *s, bool cumulative)
{
	return sum_of(stack_values(s, cumulative), STACK_BYTES, IO_NR_CLASSES);
}

uint64_t row_stack_ios(const struct row_stack *s, bool cumulative)
{
	return sum_of(stack_values(s, cumulative), STACK_IOS, IO_NR_CLASSES);
}

uint64_t row_stack_dirtied(const struct row_stack *s, bool cumulative)
{
	return stack_values(s, cumulative)[STACK_DIRTIED_BYTES];
}

uint64_t row_stack_weight(const struct row_stack *s, bool cumulative)
{
	return row_stack_bytes(s, cumulative) + row_stack_dirtied(s, cumulative);
}

void stack_counters_from_kernel(const struct stack_counts *c, uint64_t *counters)
{
	for (int i = 0; i < IO_NR_CLASSES; i++) {
		counters[STACK_BYTES + i] = c->bytes[i];
		counters[STACK_IOS + i] = c->ios[i];
	}
	counters[STACK_DIRTIED_BYTES] = c->dirtied_bytes;
}

int stack_ref_frames(const struct res_table *table, const struct stack_ref *ref,
		     uint64_t *frames, const char **placeholder)
{
	int n;

	switch (ref->state) {
	case STACK_ABSENT:
		return 0;
	case STACK_KEPT:
		n = res_stack_frames(table, ref->key, frames, STACK_MAX_FRAMES);
		if (n >= 0)
			return n;
		break;
	case STACK_UNAVAILABLE:
		*placeholder = "[unavailable]";
		return -1;
	case STACK_NOT_KEPT:
		*placeholder = "[not kept]";
		return -1;
	}
	*placeholder = "[unread]";
	return -1;
}

const char *stack_kernel_frame_name(const struct stack_namer *namer, uint64_t addr, char *buf,
				    size_t size)
{
	if (namer->kernel)
		return namer->kernel(namer->ctx, addr, buf, size);
	snprintf(buf, size, "[unknown] 0x%" PRIx64, addr);
	return buf;
}

const char *stack_user_frame_name(const struct stack_namer *namer, const struct user_frame *frame,
				  char *buf, size_t size, const char **unknown)
{
	*unknown = NULL;
	if (namer->user)
		return namer->user(namer->ctx, frame, buf, size, unknown);
	snprintf(buf, size, "[unknown] 0x%" PRIx64, frame->addr);
	return buf;
}

/* The frames of the tracing machinery that ran diskio's program (the
 * program itself, bpf_trace_run1, __traceiter_block_bio_queue, ...): they
 * are innermost in every kernel stack and say nothing about the I/O.  By
 * name, as their number differs between kernels. */
static bool is_tracing_frame(const char *name)
{
	static const char *const prefixes[] = {
		"bpf_prog_", "bpf_trace_run", "__traceiter_", "__bpf_trace_", "bpf_trampoline_",
	};

	for (size_t i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++)
		if (!strncmp(name, prefixes[i], strlen(prefixes[i])))
			return true;
	return false;
}

/* Where the tracing machinery sits at most: program, trampoline or
 * bpf_trace_run, __traceiter or __bpf_trace. */
#define TRACING_FRAMES_MAX 6

/* How many innermost kernel frames are the tracing machinery's: all up to
 * the last of the first few that is named as such (diskio's own program may
 * have no name of its own in kallsyms: it then borrows a neighbour's). */
static int tracing_frames(const struct stack_namer *namer, const uint64_t *frames, int n)
{
	char name[STACK_NAME_MAX];
	int skip = 0;

	for (int i = 0; i < n && i < TRACING_FRAMES_MAX; i++)
		if (is_tracing_frame(stack_kernel_frame_name(namer, frames[i], name, sizeof(name))))
			skip = i + 1;
	return skip;
}

/* Each frame of one side of s: its name, and for user frames why it has none;
 * the tracing machinery's kernel frames left out unless all. */
static size_t walk_frames(const struct stack_namer *namer, const struct row_stack *s,
			  bool user, bool outer_first, bool all,
			  void (*fn)(const char *name, const char *unknown, void *arg), void *arg)
{
	uint64_t frames[STACK_MAX_FRAMES + 1], inserted;
	const char *placeholder = NULL, *unknown = NULL;
	char name[STACK_NAME_MAX];
	int n = stack_ref_frames(namer->table, user ? &s->user : &s->kernel, frames, &placeholder);
	int first = 0;

	if (n < 0) {
		fn(placeholder, NULL, arg);
		return 1;
	}
	/* The caller of a frameless frame 0, which the namer recovered. */
	if (user && n > 0 && namer->user_inserted &&
	    namer->user_inserted(namer->ctx, s->key.who.tgid, s->key.user_stack, &inserted)) {
		memmove(frames + 2, frames + 1, (size_t)(n - 1) * sizeof(frames[0]));
		frames[1] = inserted;
		n++;
	}
	if (!user && !all)
		first = tracing_frames(namer, frames, n);
	for (int i = 0; i < n - first; i++) {
		int index = outer_first ? n - 1 - i : first + i;

		if (user) {
			struct user_frame frame = {
				.tgid = s->key.who.tgid,
				.stack_id = s->key.user_stack,
				.index = (uint32_t)index,
				.addr = frames[index],
			};

			const char *named = stack_user_frame_name(namer, &frame, name,
								  sizeof(name), &unknown);

			fn(named, unknown, arg);
		} else {
			fn(stack_kernel_frame_name(namer, frames[index], name, sizeof(name)), NULL,
			   arg);
		}
	}
	return n - first;
}

static size_t for_each_frame(const struct stack_namer *namer, const struct row_stack *s,
			     bool user, bool outer_first,
			     void (*fn)(const char *name, const char *unknown, void *arg), void *arg)
{
	return walk_frames(namer, s, user, outer_first, false, fn, arg);
}

size_t stack_for_each_kept(const struct stack_namer *namer, const struct row_stack *s, bool user,
			   void (*fn)(const char *name, const char *unknown, void *arg), void *arg)
{
	return walk_frames(namer, s, user, false, true, fn, arg);
}

struct name_fn {
	void (*name)(const char *name, void *arg);
	void (*why)(const char *why, void *arg);
	void *arg;
};

static void call_name(const char *name, const char *unknown, void *arg)
{
	struct name_fn *fn = arg;

	(void)unknown;
	fn->name(name, fn->arg);
}

static void call_why(const char *name, const char *unknown, void *arg)
{
	struct name_fn *fn = arg;

	(void)name;
	fn->why(unknown, fn->arg);
}

size_t stack_for_each_name(const struct stack_namer *namer, const struct row_stack *s, bool user,
			   bool outer_first, void (*fn)(const char *name, void *arg), void *arg)
{
	struct name_fn call = { .name = fn, .arg = arg };

	return for_each_frame(namer, s, user, outer_first, call_name, &call);
}

size_t stack_for_each_unknown(const struct stack_namer *namer, const struct row_stack *s,
			      void (*fn)(const char *why, void *arg), void *arg)
{
	struct name_fn call = { .why = fn, .arg = arg };

	return for_each_frame(namer, s, true, false, call_why, &call);
}

/* ---- folded ---- */

void folded_safe_name(char *name)
{
	unsigned char *c = (unsigned char *)name;

	if (!*name) {
		strcpy(name, "_");
		return;
	}
	for (size_t left = strlen(name), len; left; c += len, left -= len) {
		/* A character of more than one byte (strict UTF-8: utf8.h) stays. */
		len = *c >= 0x80 ? utf8_decode((const char *)c, left, NULL) : 0;
		if (len)
			continue;
		/* One byte: ASCII, or the first byte of what is not UTF-8; the bytes
		 * after it are looked at on their own (a continuation byte alone is
		 * not UTF-8 either, so a bad sequence becomes one '_' a byte). */
		if (*c <= 0x20 || *c == 0x7f || *c == ';' || *c >= 0x80)
			*c = '_';
		len = 1;
	}
}

/* A folded line being built, in a growing buffer. */
struct text_buffer {
	char *text;
	size_t len, capacity;
	bool failed;
};

static void text_append(struct text_buffer *l, const char *s, size_t len)
{
	if (l->failed)
		return;
	if (array_reserve((void **)&l->text, &l->capacity, l->len + len + 1, 1)) {
		l->failed = true;
		return;
	}
	memcpy(l->text + l->len, s, len);
	l->len += len;
	l->text[l->len] = '\0';
}

/* Where "+0xHEX" ends frame's function name, after which only a " [module]"
 * may follow; NULL if it has none. */
static const char *offset_of(const char *frame)
{
	const char *at = NULL;

	for (const char *p = strstr(frame, "+0x"); p; p = strstr(p + 1, "+0x")) {
		const char *end = p + 3;

		while (isxdigit((unsigned char)*end))
			end++;
		if (end > p + 3 && (!*end || (end[0] == ' ' && end[1] == '[')))
			at = p;
	}
	return at;
}

void folded_frame_name(const char *frame, char *out, size_t size)
{
	const char *offset = strncmp(frame, "[unknown]", 9) ? offset_of(frame) : NULL;

	if (offset) {
		const char *rest = offset + 3;

		while (isxdigit((unsigned char)*rest))
			rest++;
		snprintf(out, size, "%.*s%s", (int)(offset - frame), frame, rest);
	} else {
		snprintf(out, size, "%s", frame);
	}
	folded_safe_name(out);
}

static void text_append_frame(const char *name, void *arg)
{
	char safe[STACK_NAME_MAX];

	folded_frame_name(name, safe, sizeof(safe));
	text_append(arg, ";", 1);
	text_append(arg, safe, strlen(safe));
}

struct folded_line {
	char *text;		/* without the count */
	uint64_t bytes;
};

static int compare_lines(const void *a, const void *b)
{
	return strcmp(((const struct folded_line *)a)->text, ((const struct folded_line *)b)->text);
}

/* "comm;user outermost…innermost;kernel outermost…innermost" of s. */
static char *folded_text(const struct row_stack *s, const struct stack_namer *namer)
{
	char comm[TASK_COMM_LEN + 1];
	struct text_buffer l = {};

	memcpy(comm, s->key.who.comm, TASK_COMM_LEN);
	comm[TASK_COMM_LEN] = '\0';
	folded_safe_name(comm);
	text_append(&l, comm, strlen(comm));
	/* The caller's frames first: a flame graph grows from the root. */
	stack_for_each_name(namer, s, true, true, text_append_frame, &l);
	stack_for_each_name(namer, s, false, true, text_append_frame, &l);
	if (l.failed) {
		free(l.text);
		return NULL;
	}
	return l.text;
}

static int write_lines(FILE *out, struct folded_line *lines, size_t n)
{
	for (size_t i = 0; i < n;) {
		uint64_t bytes = lines[i].bytes;
		size_t j = i + 1;

		while (j < n && !strcmp(lines[j].text, lines[i].text))
			bytes += lines[j++].bytes;
		if (fprintf(out, "%s %" PRIu64 "\n", lines[i].text, bytes) < 0)
			return -EIO;
		i = j;
	}
	return 0;
}

int folded_write(FILE *out, const struct row_stack *stacks, size_t n,
		 const struct stack_namer *namer)
{
	struct folded_line *lines = calloc(n ? n : 1, sizeof(*lines));
	size_t nlines = 0;
	int err = 0;

	if (!lines)
		return -ENOMEM;
	for (size_t i = 0; i < n && !err; i++) {
		uint64_t bytes = row_stack_weight(&stacks[i], true);

		if (!bytes)
			continue;
		lines[nlines].text = folded_text(&stacks[i], namer);
		lines[nlines].bytes = bytes;
		if (!lines[nlines++].text)
			err = -ENOMEM;
	}
	if (!err) {
		qsort(lines, nlines, sizeof(*lines), compare_lines);
		err = write_lines(out, lines, nlines);
	}
	for (size_t i = 0; i < nlines; i++)
		free(lines[i].text);
	free(lines);
	return err;
}
