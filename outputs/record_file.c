// SPDX-License-Identifier: GPL-2.0
/*
 * --record DIR as an output (outputs.h): every frame appended to DIR's day
 * file by history_write.h, whose header says where and how the run was
 * made (host, boot, kernel, interval and the filter it used); with
 * --stacks the rows' stacks go in named by the run's symbolizer.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>
#include "history_write.h"
#include "msg.h"
#include "output.h"

struct record_file {
	struct output output;		/* first: the list holds its address */
	struct history_writer writer;
	bool stacks;			/* --stacks */
};

/* "-D zram0 -p 42 -c dd --cgroup /x": the filter as given, so that a
 * replay says what the record left out. */
static void describe_filter(const struct options *opts, char *buf, size_t size)
{
	size_t n = 0;

	buf[0] = '\0';
#define ADD(...) do { if (n < size) n += snprintf(buf + n, size - n, __VA_ARGS__); } while (0)
	for (uint32_t i = 0; i < opts->nr_devices; i++)
		ADD("%s-D %s", n ? " " : "", opts->devices[i]);
	for (uint32_t i = 0; i < opts->nr_pids; i++)
		ADD("%s-p %u", n ? " " : "", opts->pids[i]);
	if (opts->filter_comm)
		ADD("%s-c %s", n ? " " : "", opts->comm);
	for (uint32_t i = 0; i < opts->nr_cgroups; i++)
		ADD("%s--cgroup %s", n ? " " : "", opts->cgroups[i]);
#undef ADD
}

static void read_boot_id(char *buf, size_t size)
{
	FILE *f = fopen("/proc/sys/kernel/random/boot_id", "re");

	buf[0] = '\0';
	if (f && fgets(buf, size, f))
		buf[strcspn(buf, "\n")] = '\0';
	if (f)
		fclose(f);
}

static int check(struct output *o, uint64_t now_ns)
{
	struct record_file *r = (struct record_file *)o;
	const char *dir = r->writer.dir;
	struct stat st;

	(void)now_ns;
	if (mkdir(dir, 0750) && errno != EEXIST) {
		fail("cannot make --record directory %s: %s", dir, strerror(errno));
		return -1;
	}
	if (stat(dir, &st) || !S_ISDIR(st.st_mode) || access(dir, W_OK | X_OK)) {
		fail("cannot write in --record directory %s: %s", dir,
		     errno ? strerror(errno) : "not a directory");
		return -1;
	}
	return 0;
}

/* --stacks: the rows' stacks go in with their frames' names, as the run
 * names them, so that a replay needs no symbolizer. */
static void start(struct output *o, struct tally *t, uint64_t now_ns)
{
	struct record_file *r = (struct record_file *)o;

	(void)now_ns;
	if (r->stacks)
		r->writer.stacks = tally_stack_namer(t);
}

static void frame(struct output *o, const struct frame *f, uint64_t now_ns)
{
	/* A failure has been said once; the next frames try again. */
	history_writer_frame(&((struct record_file *)o)->writer, f, now_ns);
}

/* The gaps this run leaves, counting the one finish() marks. */
static void summarize(struct output *o, struct summary *s)
{
	s->recording = true;
	s->record_gaps = history_writer_gaps(&((struct record_file *)o)->writer);
}

/* Frames that could not be written and then were are a gap in the record,
 * not a failure: only a write or sync failing at the end is. */
static int finish(struct output *o, const struct output_end *end)
{
	struct record_file *r = (struct record_file *)o;
	int err = history_writer_finish(&r->writer);

	(void)end;
	if (err)
		fail("cannot finish the --record files in %s: %s", r->writer.dir, strerror(-err));
	return err ? -1 : 0;
}

static void free_output(struct output *o)
{
	struct record_file *r = (struct record_file *)o;

	history_writer_free(&r->writer);
	free(r);
}

struct output *record_file_output(const struct options *opts)
{
	struct record_file *r = calloc(1, sizeof(*r));
	struct history_header *h;
	struct utsname uts;

	if (!r)
		return NULL;
	h = &r->writer.header;
	history_header_init(h);
	if (!uname(&uts)) {
		snprintf(h->host, sizeof(h->host), "%s", uts.nodename);
		snprintf(h->kernel, sizeof(h->kernel), "%s", uts.release);
	}
	read_boot_id(h->boot_id, sizeof(h->boot_id));
	describe_filter(opts, h->filter, sizeof(h->filter));
	h->interval_ns = (uint64_t)(opts->interval_s * 1e9);
	h->start_s = time(NULL);
	r->writer.dir = opts->record_dir;
	r->writer.keep_days = opts->record_days;
	r->writer.max_bytes = opts->record_max;
	r->writer.warn = stderr;
	r->stacks = opts->stacks != 0;
	if (history_writer_init(&r->writer)) {
		free(r);
		return NULL;
	}
	r->output = (struct output){
		.check = check, .start = start, .frame = frame, .summarize = summarize,
		.finish = finish, .free = free_output,
	};
	return &r->output;
}
