// SPDX-License-Identifier: GPL-2.0
/* --folded FILE as an output (outputs.h): the run's stacks as folded lines
 * (stacks.h), written whole at exit. */
#include <stdlib.h>
#include <string.h>
#include "atomic_file.h"
#include "msg.h"
#include "output.h"
#include "stacks.h"

struct folded_file {
	struct output output;		/* first: the list holds its address */
	const char *path;
	struct atomic_target target;	/* its directory, opened by check() */
};

static int check(struct output *o, uint64_t now_ns)
{
	(void)now_ns;
	struct folded_file *f = (struct folded_file *)o;

	return output_check_file("--folded", f->path, "", &f->target);
}

static int render(FILE *out, void *arg)
{
	const struct tally *t = arg;
	size_t n;
	const struct row_stack *stacks = tally_stacks(t, &n);

	return folded_write(out, stacks, n, tally_stack_namer(t));
}

static int finish(struct output *o, const struct output_end *end)
{
	struct folded_file *f = (struct folded_file *)o;
	int err = atomic_target_write(&f->target, 0644, false, render, end->tally);

	if (err) {
		fail("cannot write --folded %s: %s", f->path, strerror(-err));
		return -1;
	}
	return 0;
}

static void free_output(struct output *o)
{
	atomic_target_close(&((struct folded_file *)o)->target);
	free(o);
}

struct output *folded_file_output(const struct options *opts)
{
	struct folded_file *f = calloc(1, sizeof(*f));

	if (!f)
		return NULL;
	f->output = (struct output){ .check = check, .finish = finish, .free = free_output };
	f->path = opts->folded_path;
	f->target.dirfd = -1;
	return &f->output;
}
