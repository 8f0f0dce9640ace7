// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of --stacks' pure parts: the tally's per (row, stack) totals
 * (stacks interned once, rows' top stacks, a full table counted lost with the
 * bytes kept), and the folded lines of stacks.c (order of frames, safe
 * names, merged lines, the tracing machinery's frames left out).
 */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stacks.h"
#include "tally.h"

#define SECOND UINT64_C(1000000000)
#define T0 (100 * SECOND)
#define AT(step) (T0 + (uint64_t)(step) * SECOND)
#define NO_SYSFS "/nonexistent/diskio-test-stacks-sysfs"
#define DEV MKDEV(8, 0)

/* ---- a fake symbolizer: addresses 0x1000 * n are "k<n>" and "u<n>" ---- */

static char *fake_kernel(void *ctx, uint64_t addr, char *buf, size_t size)
{
	(void)ctx;
	if (addr == 0xb0)
		snprintf(buf, size, "bpf_prog_1234_handle_bio_queue");
	else if (addr == 0xb1)
		snprintf(buf, size, "bpf_trace_run1+0x10");
	else if (addr == 0xb2)
		snprintf(buf, size, "_einittext+0x3c8");	/* a program without its own name */
	else if (addr == 0x3001 || addr == 0x3002)	/* two call sites in one function */
		snprintf(buf, size, "submit_bio+0x%" PRIx64, addr == 0x3001 ? 0x5cul : 0x90ul);
	else
		snprintf(buf, size, "k%" PRIu64, addr / 0x1000);
	return buf;
}

static char *fake_user(void *ctx, const struct user_frame *frame, char *buf, size_t size,
		       const char **unknown)
{
	uint64_t addr = frame->addr;

	(void)ctx;
	*unknown = NULL;
	if (addr == 0x5000) {
		snprintf(buf, size, "[unknown] libc.so.6+0x12");
		*unknown = "stripped";
	} else if (addr == 0x6000) {
		snprintf(buf, size, "ns::f(int; char)");
	} else {
		snprintf(buf, size, "u%" PRIu64 "@%u", addr / 0x1000, frame->tgid);
	}
	return buf;
}

static bool alive(uint32_t tgid)
{
	return tgid != 666;
}

/* ---- snapshots ---- */

#define MAX_STACKS 16
#define MAX_TRACES 16

struct snap {
	struct snapshot s;
	struct snapshot_row rows[4];
	struct snapshot_stack stacks[MAX_STACKS];
	struct snapshot_trace traces[MAX_TRACES];
	struct snapshot_stack final_stacks[MAX_STACKS];
};

static void snap_init(struct snap *sp)
{
	memset(sp, 0, sizeof(*sp));
	sp->s.rows = sp->rows;
	sp->s.rows_capacity = 4;
	sp->s.stacks = sp->stacks;
	sp->s.stacks_capacity = MAX_STACKS;
	sp->s.traces = sp->traces;
	sp->s.traces_capacity = MAX_TRACES;
	sp->s.final_stacks = sp->final_stacks;
	sp->s.final_stacks_capacity = MAX_STACKS;
}

static struct proc_dev_key who(uint32_t tgid, const char *comm)
{
	struct proc_dev_key key;

	memset(&key, 0, sizeof(key));
	key.tgid = tgid;
	key.dev = DEV;
	strncpy(key.comm, comm, sizeof(key.comm) - 1);
	return key;
}

static void snap_row(struct snap *sp, uint32_t tgid, const char *comm, uint64_t read_bytes,
		     uint64_t dirtied)
{
	struct snapshot_row *row = &sp->rows[sp->s.nrows++];

	memset(row, 0, sizeof(*row));
	row->key = who(tgid, comm);
	row->stats.bytes[IO_READ] = read_bytes;
	row->stats.ios[IO_READ] = read_bytes / 4096;
	row->stats.dirtied_bytes = dirtied;
}

/* Running totals of (tgid, kernel id, user id). */
static void snap_stack(struct snap *sp, uint32_t tgid, const char *comm, int32_t kid, int32_t uid,
		       uint64_t read_bytes, uint64_t dirtied)
{
	struct snapshot_stack *e = &sp->stacks[sp->s.nstacks++];

	cr_assert_leq(sp->s.nstacks, MAX_STACKS);
	memset(e, 0, sizeof(*e));
	e->key.who = who(tgid, comm);
	e->key.kernel_stack = kid;
	e->key.user_stack = uid;
	e->counts.bytes[IO_READ] = read_bytes;
	e->counts.ios[IO_READ] = read_bytes / 4096;
	e->counts.dirtied_bytes = dirtied;
}

static void snap_trace(struct snap *sp, uint32_t id, const uint64_t *frames, uint32_t n)
{
	struct snapshot_trace *t = &sp->traces[sp->s.ntraces++];

	cr_assert_leq(sp->s.ntraces, MAX_TRACES);
	t->id = id;
	t->nframes = n;
	memcpy(t->frames, frames, n * sizeof(*frames));
}

static void tally_start(struct tally *t, uint64_t stacks_mem, uint32_t top)
{
	struct tally_config config = {
		.sysfs_root = NO_SYSFS,
		.process_alive = alive,
		.crash_interval_ns = 3600 * SECOND,
		.stacks_mem = stacks_mem,
		.stacks_top = top,
	};

	cr_assert_eq(tally_init(t, &config, T0), 0);
}

static void step(struct tally *t, const struct snap *sp, int n, struct frame *f)
{
	struct timespec wall = { .tv_sec = 1795334400 + n };

	tally_frame(t, &sp->s, AT(n), &wall, false, f);
}

static const struct proc_io *row_of(const struct frame *f, uint32_t tgid)
{
	for (size_t i = 0; i < f->nrows; i++)
		if (f->rows[i]->key.tgid == tgid)
			return f->rows[i];
	cr_assert_fail("no row of %u", tgid);
	return NULL;
}

static const uint64_t kframes[] = { 0xb0, 0xb1, 0x3000, 0x2000, 0x1000 };
static const uint64_t uframes[] = { 0x9000, 0x8000 };

/* Folded output of the tally's stacks. */
static char *folded_of(const struct tally *t)
{
	struct stack_namer namer = {
		.table = &t->stacks.table, .kernel = fake_kernel, .user = fake_user, .top = 5,
	};
	char *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);

	cr_assert_not_null(out);
	cr_assert_eq(folded_write(out, t->stacks.all, t->stacks.n, &namer), 0);
	cr_assert_eq(fclose(out), 0);
	return text;
}

Test(tally_stacks, rows_get_their_heaviest_stacks_with_interval_changes)
{
	struct tally t;
	struct snap sp;
	struct frame f;
	const struct proc_io *row;

	tally_start(&t, 1 << 20, 2);
	snap_init(&sp);
	snap_row(&sp, 10, "reader", 3 * 4096 + 8192, 0);
	snap_stack(&sp, 10, "reader", 1, 2, 3 * 4096, 0);
	snap_stack(&sp, 10, "reader", 3, 2, 8192, 0);
	snap_stack(&sp, 10, "reader", 4, STACK_ID_NONE, 0, 0);	/* nothing yet */
	snap_trace(&sp, 1, kframes, 5);
	snap_trace(&sp, 2, uframes, 2);
	snap_trace(&sp, 3, kframes + 2, 3);
	step(&t, &sp, 1, &f);
	row = row_of(&f, 10);
	cr_assert_eq(row->nstacks, 2, "the stacks with bytes, at most --stacks-top");
	cr_assert_eq(row_stack_bytes(row->stacks[0], false), 3 * 4096);
	cr_assert_eq(row_stack_ios(row->stacks[0], false), 3);
	cr_assert_eq(row->stacks[0]->kernel.state, STACK_KEPT);
	cr_assert_eq(row->stacks[0]->user.state, STACK_KEPT);
	cr_assert_eq(row_stack_bytes(row->stacks[1], false), 8192);
	/* The same user stack, interned once. */
	cr_assert_eq(row->stacks[0]->user.key, row->stacks[1]->user.key);
	tally_close_interval(&t);

	/* Only the second stack moves: it comes first, the first has nothing. */
	sp.stacks[1].counts.bytes[IO_READ] += 40960;
	sp.stacks[1].counts.ios[IO_READ] += 10;
	sp.rows[0].stats.bytes[IO_READ] += 40960;
	sp.s.ntraces = 0;	/* ids are given once */
	step(&t, &sp, 2, &f);
	row = row_of(&f, 10);
	cr_assert_eq(row->nstacks, 1);
	cr_assert_eq(row_stack_bytes(row->stacks[0], false), 40960);
	cr_assert_eq(row_stack_bytes(row->stacks[0], true), 40960 + 8192);
	cr_assert_eq(row->stacks[0]->kernel.state, STACK_KEPT, "still known without its trace");
	cr_assert_eq(f.lost[LOST_STACKS_TABLE_FULL], 0);
	tally_close_interval(&t);
	tally_free(&t);
}

Test(tally_stacks, a_full_table_loses_the_stack_not_the_bytes)
{
	uint64_t big[100];
	struct tally t;
	struct snap sp;
	struct frame f;
	const struct proc_io *row;

	/* Room for the bucket heads and less than 100 frames of 9-10 bytes. */
	tally_start(&t, 900, 5);
	/* Deltas of 2^62 either way: 10 bytes a frame. */
	for (int i = 0; i < 100; i++)
		big[i] = (i % 2 ? 0x4000000000000000ULL : 0) + (uint64_t)i;
	snap_init(&sp);
	snap_row(&sp, 20, "w", 5 * 4096, 8192);
	snap_stack(&sp, 20, "w", 1, STACK_ID_NONE, 5 * 4096, 0);
	snap_stack(&sp, 20, "w", 2, STACK_ID_UNAVAILABLE, 0, 8192);
	snap_trace(&sp, 1, big, 100);
	snap_trace(&sp, 2, kframes, 5);
	step(&t, &sp, 1, &f);
	row = row_of(&f, 20);
	cr_assert_eq(iostats_values(row, false)[PMEM_READ_BYTES], 5 * 4096, "the row keeps its bytes");
	cr_assert_eq(row->nstacks, 2);
	cr_assert_eq(row->stacks[0]->kernel.state, STACK_NOT_KEPT, "state %u, used %u", row->stacks[0]->kernel.state, t.stacks.table.used);
	cr_assert_eq(row->stacks[0]->user.state, STACK_ABSENT);
	cr_assert_eq(row->stacks[1]->user.state, STACK_UNAVAILABLE);
	cr_assert_eq(f.lost[LOST_STACKS_TABLE_FULL], 5, "its 5 I/Os");
	tally_close_interval(&t);
	tally_free(&t);
}

Test(tally_stacks, forgotten_rows_give_their_stack_keys_and_stay_folded)
{
	struct tally t;
	struct snap sp;
	struct frame f;
	struct timespec wall = { 0 };
	struct summary summary;
	char *text;

	tally_start(&t, 1 << 20, 5);
	snap_init(&sp);
	snap_row(&sp, 666, "gone", 4096, 0);
	snap_stack(&sp, 666, "gone", 1, 2, 4096, 0);
	snap_trace(&sp, 1, kframes, 5);
	snap_trace(&sp, 2, uframes, 2);
	for (int n = 1; n <= 4 && !t.stacks.nforget; n++) {
		step(&t, &sp, n, &f);
		tally_close_interval(&t);
		sp.s.ntraces = 0;
	}
	cr_assert_eq(t.stacks.nforget, 1, "the exited process's stack entry goes");
	cr_assert_eq(t.stacks.forget[0].who.tgid, 666);
	/* The loader deleted them; the stack entry had gained 4096 bytes more
	 * (the pid used again by a process of the same name). */
	sp.s.nstacks = sp.s.nrows = 0;
	sp.final_stacks[0] = sp.stacks[0];
	sp.final_stacks[0].counts.bytes[IO_READ] = 8192;
	sp.final_stacks[0].counts.ios[IO_READ] = 2;
	sp.s.nfinal_stacks = 1;
	step(&t, &sp, 5, &f);
	tally_close_interval(&t);
	sp.s.nfinal_stacks = 0;
	/* A new entry of the same key counts from zero. */
	snap_stack(&sp, 666, "gone", 1, 2, 4096, 0);
	step(&t, &sp, 6, &f);
	tally_close_interval(&t);
	tally_summary(&t, &sp.s, AT(9), &wall, &summary);
	text = folded_of(&t);
	cr_assert_str_eq(text, "gone;u8@666;u9@666;k1;k2;k3 12288\n");
	free(text);
	tally_free(&t);
}

/*
 * The run ends in the interval after a row was forgotten: the last frame is
 * made from the final snapshot, which holds the forgotten entry's last
 * counts, and the summary from that same snapshot.  The entry counts once
 * (it counted twice, 16384 bytes, when the summary counted the stacks again).
 */
Test(tally_stacks, the_summary_from_the_last_frames_snapshot_counts_nothing_twice)
{
	struct tally t;
	struct snap sp;
	struct frame f;
	struct timespec wall = { 0 };
	struct summary summary;
	char *text;

	tally_start(&t, 1 << 20, 5);
	snap_init(&sp);
	snap_row(&sp, 666, "gone", 4096, 0);
	snap_stack(&sp, 666, "gone", 1, 2, 4096, 0);
	snap_trace(&sp, 1, kframes, 5);
	snap_trace(&sp, 2, uframes, 2);
	for (int n = 1; n <= 4 && !t.stacks.nforget; n++) {
		step(&t, &sp, n, &f);
		tally_close_interval(&t);
		sp.s.ntraces = 0;
	}
	cr_assert_eq(t.stacks.nforget, 1);
	sp.s.nstacks = sp.s.nrows = 0;
	sp.final_stacks[0] = sp.stacks[0];
	sp.final_stacks[0].counts.bytes[IO_READ] = 8192;
	sp.final_stacks[0].counts.ios[IO_READ] = 2;
	sp.s.nfinal_stacks = 1;
	tally_frame(&t, &sp.s, AT(5), &wall, true, &f);	/* the last, partial frame */
	tally_close_interval(&t);
	tally_summary(&t, &sp.s, AT(5), &wall, &summary);
	text = folded_of(&t);
	cr_assert_str_eq(text, "gone;u8@666;u9@666;k1;k2;k3 8192\n");
	free(text);
	tally_free(&t);
}

Test(tally_stacks, without_stacks_nothing_is_kept)
{
	struct tally t;
	struct snap sp;
	struct frame f;

	tally_start(&t, 0, 5);
	snap_init(&sp);
	snap_row(&sp, 10, "r", 4096, 0);
	snap_stack(&sp, 10, "r", 1, 2, 4096, 0);
	step(&t, &sp, 1, &f);
	cr_assert_eq(t.stacks.n, 0);
	cr_assert_null(row_of(&f, 10)->stacks);
	tally_close_interval(&t);
	tally_free(&t);
}

Test(tally_stacks, many_new_stacks_all_kept_in_linear_memory)
{
	struct tally t;
	struct snap sp;
	struct frame f;

	tally_start(&t, 1 << 20, 5);
	for (int n = 1; n <= 8; n++) {
		snap_init(&sp);
		snap_row(&sp, 10, "r", 4096 * MAX_STACKS * n, 0);
		for (int i = 0; i < MAX_STACKS; i++)
			snap_stack(&sp, 10, "r", n * MAX_STACKS + i, STACK_ID_NONE, 4096, 0);
		step(&t, &sp, n, &f);
		tally_close_interval(&t);
	}
	cr_assert_eq(t.stacks.n, 8 * MAX_STACKS);
	cr_assert_eq(t.lost[LOST_ROW_ALLOC], 0);
	cr_assert_leq(t.stacks.capacity, 2 * t.stacks.n, "capacity %zu for %zu stacks",
		      t.stacks.capacity, t.stacks.n);
	tally_free(&t);
}

/* ---- folded lines ---- */

static struct row_stack fake_stack(uint32_t tgid, const char *comm, struct stack_ref kernel,
				   struct stack_ref user, uint64_t bytes, uint64_t dirtied)
{
	struct row_stack s;

	memset(&s, 0, sizeof(s));
	s.key.who = who(tgid, comm);
	s.kernel = kernel;
	s.user = user;
	s.total[STACK_BYTES + IO_WRITE] = bytes;
	s.total[STACK_DIRTIED_BYTES] = dirtied;
	return s;
}

Test(folded, outermost_first_merged_safe_and_sorted)
{
	static uint32_t storage[1024];
	uint64_t tracing[] = { 0xb2, 0xb1, 0x2000, 0x1000 };
	uint64_t odd[] = { 0x6000, 0x5000 };
	struct res_table table;
	struct stack_ref k, u, o, none = { STACK_ABSENT, 0 };
	struct stack_ref lost = { STACK_UNAVAILABLE, 0 }, unkept = { STACK_NOT_KEPT, 0 };
	struct stack_namer namer = { .table = &table, .kernel = fake_kernel, .user = fake_user };
	struct row_stack s[6];
	char *text = NULL;
	size_t len = 0;
	FILE *out;

	cr_assert_eq(res_table_init(&table, storage, sizeof(storage), 16), RES_OK);
	k.state = u.state = o.state = STACK_KEPT;
	cr_assert_eq(res_intern_stack(&table, tracing, 4, &k.key), RES_OK);
	cr_assert_eq(res_intern_stack(&table, uframes, 2, &u.key), RES_OK);
	cr_assert_eq(res_intern_stack(&table, odd, 2, &o.key), RES_OK);
	s[0] = fake_stack(1, "my app", k, u, 100, 20);
	s[1] = fake_stack(1, "my app", k, u, 1, 0);	/* the same line: summed */
	s[2] = fake_stack(2, "kworker/0:1", k, none, 0, 4096);
	s[3] = fake_stack(3, "x;y", lost, o, 7, 0);
	s[4] = fake_stack(4, "z", unkept, none, 0, 0);	/* no bytes: no line */
	s[5] = fake_stack(5, "", none, none, 9, 0);
	out = open_memstream(&text, &len);
	cr_assert_eq(folded_write(out, s, 6, &namer), 0);
	cr_assert_eq(fclose(out), 0);
	cr_assert_str_eq(text,
			 "_ 9\n"
			 "kworker/0:1;k1;k2 4096\n"
			 "my_app;u8@1;u9@1;k1;k2 121\n"
			 "x_y;[unknown]_libc.so.6+0x12;ns::f(int__char);[unavailable] 7\n");
	free(text);
}

Test(folded, frames_without_offsets)
{
	static const char *const cases[][2] = {
		{ "submit_bio+0x5c", "submit_bio" },
		{ "zram_read+0x1c [zram]", "zram_read_[zram]" },
		{ "[unknown] libc.so.6+0x12", "[unknown]_libc.so.6+0x12" },
		{ "[unknown] 0xffffffff81000000", "[unknown]_0xffffffff81000000" },
		{ "[vdso]+0x9a0", "[vdso]" },
		{ "main", "main" },
		{ "f+0x", "f+0x" },			/* no digits: not an offset */
		{ "a+0x1b+0x2c", "a+0x1b" },		/* only the last one */
		{ "op+0xz+0x10", "op+0xz" },
		{ "g+0x10 (deleted)", "g+0x10_(deleted)" },	/* not " [module]" */
		{ "[unavailable]", "[unavailable]" },
		{ "", "_" },
	};
	char out[STACK_NAME_MAX], small[6];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		folded_frame_name(cases[i][0], out, sizeof(out));
		cr_expect_str_eq(out, cases[i][1], "%s", cases[i][0]);
	}
	folded_frame_name("submit_bio+0x5c", small, sizeof(small));
	cr_expect_str_eq(small, "submi");
}

Test(folded, call_sites_of_one_function_are_one_line)
{
	static uint32_t storage[1024];
	uint64_t near[] = { 0x3001, 0x1000 }, far[] = { 0x3002, 0x1000 };
	struct res_table table;
	struct stack_ref a = { STACK_KEPT, 0 }, b = { STACK_KEPT, 0 }, none = { STACK_ABSENT, 0 };
	struct stack_namer namer = { .table = &table, .kernel = fake_kernel, .user = fake_user };
	struct row_stack s[2];
	char *text = NULL;
	size_t len = 0;
	FILE *out;

	cr_assert_eq(res_table_init(&table, storage, sizeof(storage), 16), RES_OK);
	cr_assert_eq(res_intern_stack(&table, near, 2, &a.key), RES_OK);
	cr_assert_eq(res_intern_stack(&table, far, 2, &b.key), RES_OK);
	cr_assert_neq(a.key, b.key);
	s[0] = fake_stack(1, "app", a, none, 4096, 0);
	s[1] = fake_stack(1, "app", b, none, 512, 0);
	out = open_memstream(&text, &len);
	cr_assert_eq(folded_write(out, s, 2, &namer), 0);
	cr_assert_eq(fclose(out), 0);
	cr_assert_str_eq(text, "app;k1;submit_bio 4608\n");
	free(text);
}

Test(folded, safe_names)
{
	char a[] = "a b\tc;d\x01", b[8] = "";

	folded_safe_name(a);
	cr_assert_str_eq(a, "a_b_c_d_");
	folded_safe_name(b);
	cr_assert_str_eq(b, "_");
}

/* Folded lines are UTF-8: well-formed sequences stay, each byte of what is not
 * UTF-8 becomes '_'. */
Test(folded, safe_names_are_utf8)
{
	static const char *const cases[][2] = {
		/* well-formed: 2 bytes (U+00E9, U+07FF the last), 3 (U+20AC, U+0800
		 * the first, U+D7FF and U+E000 around the surrogates, U+FFFF the
		 * last), 4 (U+1F600, U+10000 the first, U+10FFFF the last) */
		{ "caf\xc3\xa9", "caf\xc3\xa9" },
		{ "\xdf\xbf", "\xdf\xbf" },
		{ "\xe2\x82\xac" "1", "\xe2\x82\xac" "1" },
		{ "\xe0\xa0\x80", "\xe0\xa0\x80" },
		{ "\xed\x9f\xbf\xee\x80\x80", "\xed\x9f\xbf\xee\x80\x80" },
		{ "\xef\xbf\xbf", "\xef\xbf\xbf" },
		{ "\xe6\x97\xa5\xe6\x9c\xac" "::f()", "\xe6\x97\xa5\xe6\x9c\xac" "::f()" },
		{ "\xf0\x9f\x98\x80", "\xf0\x9f\x98\x80" },
		{ "\xf0\x90\x80\x80", "\xf0\x90\x80\x80" },
		{ "\xf4\x8f\xbf\xbf", "\xf4\x8f\xbf\xbf" },
		{ "gr\xc3\xb6\xc3\x9f" "e (int; x)", "gr\xc3\xb6\xc3\x9f" "e_(int__x)" },
		/* overlong forms */
		{ "\xc0\xaf", "__" },
		{ "a\xc1\xbf" "b", "a__b" },
		{ "\xe0\x80\xaf", "___" },
		{ "\xe0\x9f\xbf", "___" },
		{ "\xf0\x8f\xbf\xbf", "____" },
		/* surrogates U+D800 and U+DFFF */
		{ "\xed\xa0\x80", "___" },
		{ "x\xed\xbf\xbfy", "x___y" },
		/* past U+10FFFF: U+110000, 0xf5.., the old 5- and 6-byte forms, 0xfe, 0xff */
		{ "\xf4\x90\x80\x80", "____" },
		{ "\xf5\x80\x80\x80", "____" },
		{ "\xf8\x88\x80\x80\x80", "_____" },
		{ "\xfc\x84\x80\x80\x80\x80", "______" },
		{ "\xfe\xff", "__" },
		/* cut short: at the end, before ASCII, before a space, before another
		 * sequence (which stays) */
		{ "ab\xc3", "ab_" },
		{ "\xe2\x82", "__" },
		{ "\xf0\x9f\x98", "___" },
		{ "\xe2\x82x", "__x" },
		{ "\xf0\x9f\x98 ;", "_____" },
		{ "\xe2\xc3\xa9", "_\xc3\xa9" },
		{ "\xf0\x9f\xf0\x9f\x98\x80", "__\xf0\x9f\x98\x80" },
		/* stray continuation bytes */
		{ "\x80", "_" },
		{ "a\xbf" "b", "a_b" },
		{ "\xc3\xa9\xa9", "\xc3\xa9_" },
		{ "\xf0\x9f\x98\x80\x80\x80", "\xf0\x9f\x98\x80__" },
		/* a comm the kernel cut at 15 bytes, in the middle of a sequence */
		{ "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3",
		  "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9_" },
	};
	char name[64], small[3];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		snprintf(name, sizeof(name), "%s", cases[i][0]);
		folded_safe_name(name);
		cr_expect_str_eq(name, cases[i][1], "case %zu", i);
	}
	/* A frame cut to fit its buffer in the middle of a sequence. */
	folded_frame_name("f\xc3\xa9+0x10", small, sizeof(small));
	cr_expect_str_eq(small, "f_");
}

Test(stack_refs, placeholders_and_absent)
{
	uint64_t frames[STACK_MAX_FRAMES];
	const char *placeholder = NULL;
	struct stack_ref ref = { STACK_ABSENT, 0 };

	cr_assert_eq(stack_ref_frames(NULL, &ref, frames, &placeholder), 0);
	ref.state = STACK_UNAVAILABLE;
	cr_assert_eq(stack_ref_frames(NULL, &ref, frames, &placeholder), -1);
	cr_assert_str_eq(placeholder, "[unavailable]");
	ref.state = STACK_NOT_KEPT;
	cr_assert_eq(stack_ref_frames(NULL, &ref, frames, &placeholder), -1);
	cr_assert_str_eq(placeholder, "[not kept]");
	ref.state = STACK_UNREAD;
	cr_assert_eq(stack_ref_frames(NULL, &ref, frames, &placeholder), -1);
	cr_assert_str_eq(placeholder, "[unread]");
}
