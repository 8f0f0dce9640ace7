/* SPDX-License-Identifier: GPL-2.0 */
/*
 * --stacks: a row's bytes per (kernel stack, user stack), the stacks as keys
 * of their own res_table (resources.h), their frames' names, and the folded
 * lines of flame graphs.  Pure: frames are named through the callbacks of a
 * struct stack_namer, which the loader points at symbolize.h.
 */
#ifndef DISKIO_STACKS_H
#define DISKIO_STACKS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "abi.h"
#include "resources.h"

/* struct stack_counts as an array. */
enum stack_counter {
	STACK_BYTES = 0,			/* + IO_READ, IO_WRITE, IO_DISCARD */
	STACK_IOS = STACK_BYTES + IO_NR_CLASSES,	/* + the class */
	STACK_DIRTIED_BYTES = STACK_IOS + IO_NR_CLASSES,
	STACK_NR_COUNTERS,
};

/* What a row's stack holds on one side (kernel or user). */
enum stack_state {
	STACK_ABSENT = 0,	/* not asked for, or a kernel thread's user stack */
	STACK_KEPT,		/* interned: key */
	STACK_UNAVAILABLE,	/* the kernel could not capture it (lost_stack_unavailable) */
	STACK_NOT_KEPT,		/* --stacks-mem was full (lost_stacks_table_full) */
	STACK_UNREAD,		/* its frames could not be read from the kernel */
};

struct stack_ref {
	uint32_t state;		/* enum stack_state */
	res_key key;		/* STACK_KEPT: in the stacks' res_table */
};

/* One entry of the kernel's stack_counts: a row's I/O and dirtying with
 * one pair of stacks; running totals as last read, and their changes. */
struct row_stack {
	struct stack_key key;
	struct stack_ref kernel, user;
	uint64_t seen[STACK_NR_COUNTERS];
	uint64_t delta[STACK_NR_COUNTERS];	/* this interval */
	uint64_t total[STACK_NR_COUNTERS];	/* since start */
};

/* I/O bytes (read, write, discard), I/Os, dirtied bytes; and their sum
 * bytes + dirtied, which orders a row's stacks. */
uint64_t row_stack_bytes(const struct row_stack *s, bool cumulative);
uint64_t row_stack_ios(const struct row_stack *s, bool cumulative);
uint64_t row_stack_dirtied(const struct row_stack *s, bool cumulative);
uint64_t row_stack_weight(const struct row_stack *s, bool cumulative);

/* struct stack_counts as counters[STACK_NR_COUNTERS]. */
void stack_counters_from_kernel(const struct stack_counts *c, uint64_t *counters);

/* A user frame: frame index (innermost 0) of tgid's user stack stack_id,
 * at addr. */
struct user_frame {
	uint32_t tgid;
	int32_t stack_id;
	uint32_t index;
	uint64_t addr;
};

/* How frames get their names; kernel or user may be NULL ("[unknown] 0x…").
 * user sets *unknown to why a frame has no name (a word), or NULL. */
struct stack_namer {
	const struct res_table *table;		/* of the stacks */
	char *(*kernel)(void *ctx, uint64_t addr, char *buf, size_t size);
	char *(*user)(void *ctx, const struct user_frame *frame, char *buf, size_t size,
		      const char **unknown);
	/* A frame the namer recovered after frame 0 of a user stack (the
	 * caller of a frameless function, which the kernel's walk skips):
	 * true and its address; it is then frame index 1 and the kernel's
	 * frame i is index i + 1.  NULL: none. */
	bool (*user_inserted)(void *ctx, uint32_t tgid, int32_t stack_id, uint64_t *addr);
	/* How many such frames were recovered in the run; NULL: not counted. */
	uint64_t (*frames_recovered)(void *ctx);
	/* How many user frames of the run's captured stacks have no name
	 * (each says why, *unknown above); NULL: not counted. */
	uint64_t (*frames_unknown)(void *ctx);
	void *ctx;
	uint32_t top;				/* --stacks-top: stacks per row shown */
};

/* Longest frame name kept. */
#define STACK_NAME_MAX 256

/*
 * The frames of one side of a stack, innermost first (as the kernel gives
 * them), into frames[STACK_MAX_FRAMES]: their number.  A side without
 * frames of its own gives -1 and *placeholder: "[unavailable]", "[not kept]"
 * or "[unread]", which is shown as its one frame; STACK_ABSENT gives 0.
 */
int stack_ref_frames(const struct res_table *table, const struct stack_ref *ref,
		     uint64_t *frames, const char **placeholder);

/* The name of a kernel frame. */
const char *stack_kernel_frame_name(const struct stack_namer *namer, uint64_t addr, char *buf,
				    size_t size);

/* The name of a user frame; *unknown: why it has none, or NULL. */
const char *stack_user_frame_name(const struct stack_namer *namer, const struct user_frame *frame,
				  char *buf, size_t size, const char **unknown);

/*
 * Call fn(name, arg) for each frame of one side of s, innermost first, or
 * outermost first with outer_first (flame graphs); a placeholder is one
 * frame.  Returns the number of frames named.
 */
size_t stack_for_each_name(const struct stack_namer *namer, const struct row_stack *s, bool user,
			   bool outer_first, void (*fn)(const char *name, void *arg), void *arg);

/* Call fn(why, arg) for each user frame of s, innermost first, as
 * stack_for_each_name() names them: why a frame has no name, or NULL. */
size_t stack_for_each_unknown(const struct stack_namer *namer, const struct row_stack *s,
			      void (*fn)(const char *why, void *arg), void *arg);

/* Call fn(name, unknown, arg) for each frame of one side of s as a record
 * keeps it (--record): innermost first, the tracing machinery's kernel
 * frames in (stack_for_each_name() leaves them out by their names, and so
 * does a replay's), the frame the namer recovered in; unknown as
 * stack_for_each_unknown() gives it.  A side of no frames of its own (a
 * placeholder) is one frame.  Returns the number of frames. */
size_t stack_for_each_kept(const struct stack_namer *namer, const struct row_stack *s, bool user,
			   void (*fn)(const char *name, const char *unknown, void *arg), void *arg);

/* ---- folded lines, for flamegraph.pl, inferno and speedscope ---- */

/* A name as one folded frame, in place: whitespace, ';' and control bytes
 * become '_' (they would split the line), and so does each byte of what is
 * not UTF-8 (overlong forms, surrogates, past U+10FFFF, a stray continuation
 * byte, a sequence cut short); well-formed UTF-8 stays.  An empty name
 * becomes "_". */
void folded_safe_name(char *name);

/*
 * frame (a name stack_frame_name() gave) as one folded frame into out: its
 * "+0xOFFSET" left out ("submit_bio+0x5c" and "submit_bio+0x90" are one
 * function, which a flame graph draws once), a module kept
 * ("zram_read [zram]"), then made safe.  "[unknown] FILE+0xOFFSET" is kept
 * whole: the offset is all that tells unknown frames apart.
 */
void folded_frame_name(const char *frame, char *out, size_t size);

/*
 * "comm;user frames;kernel frames BYTES" for each of stacks[0..n), frames
 * outermost to innermost, BYTES their total I/O bytes plus dirtied bytes
 * (the run's); lines that come out the same are one line with their sum;
 * sorted; stacks without bytes left out.  0, or -errno when out of memory
 * or the write failed.
 */
int folded_write(FILE *out, const struct row_stack *stacks, size_t n,
		 const struct stack_namer *namer);

#endif /* DISKIO_STACKS_H */
