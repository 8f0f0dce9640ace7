// SPDX-License-Identifier: GPL-2.0
/*
 * --state FILE as an output (outputs.h): the crash-free hours of earlier
 * runs read before anything is loaded and adopted by the tally, and the
 * state saved when a crash was counted or a crash interval closed, on a
 * reload and at exit (crashfree_state.h).
 */
#include <stdlib.h>
#include <string.h>
#include "crashfree_state.h"
#include "msg.h"
#include "output.h"

struct state_file {
	struct output output;		/* first: the list holds its address */
	const char *path;
	uint64_t crash_interval_ns;
	struct crashfree saved;		/* as read, until the tally adopts it */
	uint64_t read_ns;
	const struct tally *tally;
	/* What the file holds of what a power cut must not lose: the counts
	 * of closed intervals and of crashes (the progress into the current
	 * interval is saved with them, not every interval). */
	uint64_t saved_operational, saved_crashfree, saved_crashes;
};

static int check(struct output *o, uint64_t now_ns)
{
	struct state_file *s = (struct state_file *)o;

	struct atomic_target where;
	int status;

	s->read_ns = now_ns;
	if (crashfree_load(&s->saved, s->path, s->crash_interval_ns, now_ns, stderr) < 0)
		return EXIT_START;
	/* Its saves go where the rule of every file diskio writes allows. */
	status = output_check_file("--state", s->path, "", &where);
	atomic_target_close(&where);
	return status;
}

static void start(struct output *o, struct tally *t, uint64_t now_ns)
{
	struct state_file *s = (struct state_file *)o;

	(void)now_ns;
	tally_adopt_crash(t, &s->saved, s->read_ns);
	s->tally = t;
	/* As read: the file holds them already (a new file is written at the
	 * first change or at exit). */
	s->saved_operational = tally_crash(t)->operational_intervals;
	s->saved_crashfree = tally_crash(t)->crashfree_intervals;
	s->saved_crashes = tally_crash(t)->crashes;
}

static void save(struct state_file *s, uint64_t now_ns)
{
	const struct crashfree *crash = tally_crash(s->tally);
	int err = crashfree_save(crash, s->path, now_ns);

	if (err) {
		warn("cannot save state file %s: %s", s->path, strerror(-err));
		return;
	}
	s->saved_operational = crash->operational_intervals;
	s->saved_crashfree = crash->crashfree_intervals;
	s->saved_crashes = crash->crashes;
}

/* Each interval: saved (and fsynced) only when a crash was counted or a
 * crash interval closed, so that a service that sees no crash flushes the
 * disk once an hour, not every interval. */
static void frame(struct output *o, const struct frame *f, uint64_t now_ns)
{
	struct state_file *s = (struct state_file *)o;
	const struct crashfree *crash = f->crash;

	if (crash->operational_intervals != s->saved_operational ||
	    crash->crashfree_intervals != s->saved_crashfree ||
	    crash->crashes != s->saved_crashes)
		save(s, now_ns);
}

static void reload(struct output *o, uint64_t now_ns)
{
	save((struct state_file *)o, now_ns);
}

static int finish(struct output *o, const struct output_end *end)
{
	save((struct state_file *)o, end->now_ns);
	return 0;
}

static void free_output(struct output *o)
{
	struct state_file *s = (struct state_file *)o;

	crashfree_free(&s->saved);
	free(s);
}

struct output *state_file_output(const struct options *opts)
{
	struct state_file *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	s->output = (struct output){
		.check = check, .start = start, .frame = frame, .reload = reload,
		.finish = finish, .free = free_output,
	};
	s->path = opts->state_path;
	s->crash_interval_ns = opts->crash_interval_s * 1000000000ULL;
	return &s->output;
}
