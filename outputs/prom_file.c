// SPDX-License-Identifier: GPL-2.0
/*
 * --prom FILE as an output (outputs.h): the totals of prom.h fed every
 * frame, the file rewritten whole (atomic_file.h) every interval, on a
 * reload, and at exit with "diskio_up 0".
 */
#include <stdlib.h>
#include <string.h>
#include "atomic_file.h"
#include "abi.h"
#include "msg.h"
#include "output.h"
#include "prom.h"

struct prom_file {
	struct output output;		/* first: the list holds its address */
	const char *path;
	struct atomic_target target;	/* its directory, opened by check() */
	struct prom_totals totals;
	const struct tally *tally;
	bool failing;			/* the last write failed */
};

static int render(FILE *out, void *arg)
{
	const struct prom_file *p = arg;

	return prom_render(out, &p->totals, tally_devices(p->tally), tally_crash(p->tally));
}

/* The file, rewritten whole.  A failure (a full disk) leaves the last
 * complete file in place: one warning, then a note once it is written
 * again; collection goes on meanwhile. */
static void write_file(struct prom_file *p)
{
	int err = atomic_target_write(&p->target, 0644, false, render, p);

	if (err && !p->failing)
		warn("cannot write %s: %s; it keeps its last complete contents, diskio goes on "
		     "and tries again every interval", p->path, strerror(-err));
	else if (!err && p->failing)
		fprintf(stderr, "diskio: note: %s is written again\n", p->path);
	p->failing = err != 0;
}

static int check(struct output *o, uint64_t now_ns)
{
	struct prom_file *p = (struct prom_file *)o;

	(void)now_ns;
	return output_check_file("--prom", p->path, " (its directory must exist and be "
				 "writable; node_exporter's is /var/lib/prometheus/node-exporter)",
				 &p->target);
}

static void start(struct output *o, struct tally *t, uint64_t now_ns)
{
	struct prom_file *p = (struct prom_file *)o;

	(void)now_ns;
	p->tally = t;
	write_file(p);
}

static void frame(struct output *o, const struct frame *f, uint64_t now_ns)
{
	struct prom_file *p = (struct prom_file *)o;

	prom_add_frame(&p->totals, f, now_ns);
	write_file(p);
}

static void reload(struct output *o, uint64_t now_ns)
{
	(void)now_ns;
	write_file((struct prom_file *)o);
}

/* At exit: the last frame came as every other; the run's losses to the
 * end, and "diskio_up 0". */
static int finish(struct output *o, const struct output_end *end)
{
	struct prom_file *p = (struct prom_file *)o;

	if (!end->summary)
		return 0;
	prom_finish(&p->totals, end->summary->lost);
	write_file(p);
	return 0;
}

static void free_output(struct output *o)
{
	struct prom_file *p = (struct prom_file *)o;

	prom_free(&p->totals);
	atomic_target_close(&p->target);
	free(p);
}

struct output *prom_file_output(const struct options *opts, bool dirtied)
{
	struct prom_file *p = calloc(1, sizeof(*p));
	struct prom_config config = {
		.max_rows = opts->prom_rows,
		.idle_ns = opts->prom_idle_s * 1000000000ULL,
		.by_cgroup = opts->by_cgroup,
		.dirtied = dirtied,
		.version = DISKIO_VERSION,
		.labels = opts->prom_labels,
		.nlabels = opts->nr_prom_labels,
	};

	if (!p)
		return NULL;
	if (prom_init(&p->totals, &config)) {
		free(p);
		return NULL;
	}
	p->output = (struct output){
		.check = check, .start = start, .frame = frame, .reload = reload,
		.finish = finish, .free = free_output, .reloads = true,
	};
	p->path = opts->prom_path;
	p->target.dirfd = -1;
	return &p->output;
}
