// SPDX-License-Identifier: GPL-2.0
/* --replay DIR (replay.h). */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include "history_read.h"
#include "history_write.h"
#include "msg.h"
#include "replay.h"
#include "replay_sum.h"
#include "replay_window.h"
#include "view.h"

struct replay {
	const struct options *opts;
	struct replay_window window;
	struct view view;
	struct history_reader reader;
	struct replay_sum sum;		/* -a */
	bool header_shown;		/* the reader's header was printed */
	bool done;			/* past --end, or stdout went away */
};

/* A file of dir, whole, read-only: its bytes and length, or NULL. */
static uint8_t *map_file(const char *path, size_t *len)
{
	struct stat st;
	uint8_t *p;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) || !st.st_size) {
		close(fd);
		return NULL;
	}
	p = mmap(NULL, st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (p == MAP_FAILED)
		return NULL;
	*len = st.st_size;
	return p;
}

/* "# record ..." or {"type":"record",...}: the run the next frames are of. */
static void show_header(struct replay *rp, const struct history_header *h)
{
	struct view *v = &rp->view;
	struct timespec start = { .tv_sec = h->start_s };
	char when[32];

	snprintf(v->host, sizeof(v->host), "%s", h->host);
	if (rp->opts->output == OUTPUT_JSON) {
		struct jsonw *w = &v->json;

		jsonw_object(w, NULL);
		json_write_record_head(w, "record", &start, v->host);
		jsonw_string(w, "boot_id", h->boot_id, strlen(h->boot_id));
		jsonw_string(w, "kernel", h->kernel, strlen(h->kernel));
		jsonw_double(w, "interval_s", "%g", (double)h->interval_ns / 1e9);
		if (h->filter[0])
			jsonw_string(w, "filter", h->filter, strlen(h->filter));
		else
			jsonw_null(w, "filter");
		jsonw_object_end(w);
		jsonw_end_record(w);
		return;
	}
	format_utc(when, sizeof(when), &start);
	fprintf(v->out, "# record time=%s host=", when);
	batch_write_name(v->out, h->host, strlen(h->host));
	fputs(" boot_id=", v->out);
	batch_write_name(v->out, h->boot_id, strlen(h->boot_id));
	fputs(" kernel=", v->out);
	batch_write_name(v->out, h->kernel, strlen(h->kernel));
	fprintf(v->out, " interval_s=%g filter=", (double)h->interval_ns / 1e9);
	batch_write_name(v->out, h->filter, strlen(h->filter));
	fputc('\n', v->out);
}

static void show_frame(struct replay *rp, struct frame *f)
{
	if (!replay_window_holds(&rp->window, &f->wall)) {
		int64_t ms = (int64_t)f->wall.tv_sec * 1000 + f->wall.tv_nsec / 1000000;

		rp->done = ms > rp->window.end_ms;
		return;
	}
	if (!rp->header_shown) {
		show_header(rp, &rp->reader.header);
		rp->header_shown = true;
	}
	f->cumulative = rp->opts->cumulative;
	if (f->cumulative && replay_sum_add(&rp->sum, f, rp->opts->sort)) {
		fail("out of memory");
		rp->done = true;
		return;
	}
	view_show_frame(&rp->view, f);
	if (fflush(rp->view.out) || ferror(rp->view.out))
		rp->done = true;	/* a reader that went away (| head) */
}

/* One day file: its frames in the window, from the index's chunk on. */
static void replay_file(struct replay *rp, const char *dir, const char *day)
{
	char path[4096];
	size_t len = 0, index_len = 0;
	uint8_t *buf, *index = NULL;

	if (!history_day_path(path, sizeof(path), dir, day, ".dkr") ||
	    !(buf = map_file(path, &len)))
		return;
	if (!history_reader_open(&rp->reader, buf, len)) {
		warn("--replay: %s is not a record of diskio", path);
		munmap(buf, len);
		return;
	}
	if (rp->window.begin_ms != INT64_MIN &&
	    history_day_path(path, sizeof(path), dir, day, ".dki") &&
	    (index = map_file(path, &index_len)))
		history_reader_seek(&rp->reader, index, index_len,
				    (uint64_t)rp->window.begin_ms * 1000000ULL);
	rp->header_shown = false;
	while (!rp->done) {
		enum history_item item = history_reader_next(&rp->reader);

		if (item == HISTORY_END)
			break;
		if (item == HISTORY_HEADER)
			rp->header_shown = false;
		else
			show_frame(rp, &rp->reader.frame.frame);
	}
	if (rp->reader.bad_records)
		warn("--replay: %s/%s.dkr: %llu damaged records passed over", dir, day,
		     (unsigned long long)rp->reader.bad_records);
	rp->reader.bad_records = 0;
	if (index)
		munmap(index, index_len);
	munmap(buf, len);
}

/* DIR's day files in the window's days, oldest first. */
static int replay_dir(struct replay *rp, const char *dir)
{
	struct dirent **names;
	char first[16] = "", last[16] = "~";
	int n = scandir(dir, &names, NULL, alphasort);

	if (n < 0) {
		fail("cannot read --replay directory %s: %s", dir, strerror(errno));
		return -1;
	}
	if (rp->window.begin_ms != INT64_MIN)
		history_day_of(rp->window.begin_ms / 1000, first);
	if (rp->window.end_ms != INT64_MAX)
		history_day_of(rp->window.end_ms / 1000, last);
	for (int i = 0; i < n; i++) {
		const char *name = names[i]->d_name;
		char day[16];

		if (strlen(name) == 14 && !strcmp(name + 10, ".dkr") && !rp->done) {
			memcpy(day, name, 10);
			day[10] = '\0';
			if (strcmp(day, first) >= 0 && strcmp(day, last) <= 0)
				replay_file(rp, dir, day);
		}
		free(names[i]);
	}
	free(names);
	return 0;
}

int replay_main(const struct options *opts)
{
	struct replay rp = { .opts = opts };
	struct options shown = *opts;
	const char *bad = NULL;
	int err = 0;

	if (replay_window_of(opts->begin, opts->end, time(NULL), &rp.window, &bad)) {
		fail("invalid time '%s': 2026-11-26T03:00:00Z (as records print time), 03:00 "
		     "(today, UTC) or -2h (s, m, h, d before now)", bad);
		return EXIT_USAGE;
	}
	/* The top view does not step through a record yet: batch lines. */
	if (shown.output == OUTPUT_AUTO)
		shown.output = OUTPUT_BATCH;
	if (history_reader_init(&rp.reader) || replay_sum_init(&rp.sum)) {
		fail("out of memory");
		return EXIT_START;
	}
	if (view_open(&rp.view, &shown, locale_is_utf8(), NULL, stdout)) {
		err = EXIT_START;
	} else {
		if (rp.view.start)
			rp.view.start(&rp.view);
		if (replay_dir(&rp, opts->replay_dir))
			err = EXIT_START;
		fflush(stdout);
		view_free(&rp.view);
	}
	replay_sum_free(&rp.sum);
	history_reader_free(&rp.reader);
	return err;
}
